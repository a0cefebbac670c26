// SPDX-License-Identifier: MIT
/* PLACEHOLDER: replaced by the owner of this subcommand. */
#include <stdio.h>

#include "cmds.h"

int cmd_record(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "pebs-shim %s: not built yet\n", argv[0]);
	return 1;
}
