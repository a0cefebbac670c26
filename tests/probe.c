// SPDX-License-Identifier: MIT
/*
 * probe.c - tests/probe FEATURE...: exit 0 if the host has every
 * FEATURE (helpers.h lists them), else print the first missing one's
 * reason on stdout and exit 1; exit 2 on a usage error. tap.sh's need
 * runs it, so the shell tests ask the same question the C tests do.
 */
#include <stdio.h>
#include <string.h>

#include "helpers.h"

int main(int argc, char **argv)
{
	char why[160];

	if (argc < 2) {
		fprintf(stderr, "usage: probe FEATURE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (!t_have(argv[i], why, sizeof(why))) {
			puts(why);
			return strncmp(why, "unknown feature", 15) ? 1 : 2;
		}
	}
	return 0;
}
