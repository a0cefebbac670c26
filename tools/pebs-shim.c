// SPDX-License-Identifier: MIT
/* pebs-shim.c - command dispatch. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "record", cmd_record, "sample a command, processes or CPUs into a file" },
	{ "report", cmd_report, "summarize a recording (threads, symbols, memory)" },
	{ "c2c", cmd_c2c, "cache-line sharing of a recording, as perf c2c report" },
	{ "plot", cmd_plot, "pictures: flame graph, per-CPU timeline, data heat map (SVG)" },
	{ "observe", cmd_observe, "Shim-style observer: poll the table and counters" },
	{ "map", cmd_map, "print the /dev/pebs_map table and switch history" },
	{ "bench", cmd_bench, "benchmarks: decode rate, observer period, overhead" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pebs-shim <command> [options] (pebs-shim <command> --help)\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nSee pebs-shim(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pebs-shim: unknown command '%s': try pebs-shim --help\n",
		argv[1]);
	return 2;
}
