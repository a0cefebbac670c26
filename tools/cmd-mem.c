// SPDX-License-Identifier: MIT
/*
 * cmd-mem.c - `pebs-shim mem SUBCOMMAND`, perf mem's front door:
 * `mem record` is tools/mem-record.c; `mem report` is
 * `report --mem-mode -n` (perf mem report's table: a sample costs its
 * weight, perf mem's default keys, the "Total weight" line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "util.h"

static int mem_report(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 3, sizeof(*av));
	int i, n = 0, ret;

	if (!av) {
		tool_err("mem", "out of memory");
		return 1;
	}
	av[n++] = "report";
	av[n++] = "--mem-mode";
	av[n++] = "-n";
	for (i = 1; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	ret = cmd_report(n, av);
	free(av);
	return ret;
}

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

/* perf takes any abbreviation of three letters or more */
static bool is_sub(const char *word, const char *sub)
{
	return strlen(word) >= 3 && !strncmp(sub, word, strlen(word));
}

int cmd_mem(int argc, char **argv)
{
	int sub = find_sub(argc, argv);

	if (sub > 0 && is_sub(argv[sub], "record"))
		return mem_record(argc, argv, sub);
	if (sub > 0 && is_sub(argv[sub], "report"))
		return mem_report(argc - sub, argv + sub);
	if (sub < 0 && argc > 1 && (!strcmp(argv[argc - 1], "-h") ||
				    !strcmp(argv[argc - 1], "--help"))) {
		printf("usage: pebs-shim mem [-t load|store|load,store] "
		       "record [options] -- COMMAND\n"
		       "       pebs-shim mem report [report options]\n\n"
		       "  record   sample memory loads and stores with the "
		       "events perf mem record\n"
		       "           chooses here (pebs-shim mem record --help)\n"
		       "  report   perf mem report's table: rows by perf mem's "
		       "keys, Overhead as\n"
		       "           share of the weight (takes report's "
		       "options)\n");
		return 0;
	}
	tool_err("mem", "%s%s: use pebs-shim mem record [options] -- COMMAND,"
		 " or pebs-shim mem report [-i FILE]",
		 sub > 0 ? "unknown subcommand " : "no subcommand",
		 sub > 0 ? argv[sub] : "");
	return 2;
}
