// SPDX-License-Identifier: MIT
/*
 * cmd-mem.c - `pebs-shim mem`: perf mem's front door. `mem record` is
 * tools/mem-record.c.
 */
#include <string.h>

#include "cmds.h"
#include "util.h"

/* the subcommand word after perf mem's own options (-t OPS takes a value) */
static int find_sub(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") || !strcmp(argv[i], "--type")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-')
			return i;
	}
	return -1;
}

int cmd_mem(int argc, char **argv)
{
	int sub = find_sub(argc, argv);

	/* perf takes any abbreviation of three letters or more */
	if (sub > 0 && strlen(argv[sub]) >= 3 &&
	    !strncmp(argv[sub], "record", strlen(argv[sub])))
		return mem_record(argc, argv, sub);
	if (sub < 0 && argc > 1 && (!strcmp(argv[argc - 1], "-h") ||
				    !strcmp(argv[argc - 1], "--help")))
		return mem_record(argc, argv, argc);
	tool_err("mem", "%s%s: use pebs-shim mem record [options] -- COMMAND",
		 sub > 0 ? "unknown subcommand " : "no subcommand",
		 sub > 0 ? argv[sub] : "");
	return 2;
}
