// SPDX-License-Identifier: MIT
/*
 * cmd-mem.c - `pebs-shim mem SUBCOMMAND`, as perf mem: `mem report` is
 * `report --mem-mode -n` (perf mem report's table: a sample costs its
 * weight, perf mem's default keys, the "Total weight" line). Other
 * subcommands sit beside it in the table below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"

static int mem_report(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 3, sizeof(*av));
	int i, n = 0, ret;

	if (!av) {
		fprintf(stderr, "pebs-shim mem: out of memory\n");
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

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} subs[] = {
	{ "report", mem_report,
	  "perf mem report's table: rows by perf mem's keys, Overhead as "
	  "share of the weight\n             (takes report's options)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: pebs-shim mem SUBCOMMAND [options]\n\n");
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		fprintf(f, "  %-10s %s\n", subs[i].name, subs[i].help);
}

int cmd_mem(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "pebs-shim mem: no subcommand: give report "
			"(pebs-shim mem --help)\n");
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pebs-shim mem: unknown subcommand '%s': give report "
		"(pebs-shim mem --help)\n", argv[1]);
	return 2;
}
