// SPDX-License-Identifier: MIT
/* cmd-bench.c - pebs-shim bench [decode|observe|overhead]... */
#include <stdio.h>
#include <string.h>

#include "cmds.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} benches[] = {
	{ "decode", bench_decode, "ring reader + sample decode rate (samples/s)" },
	{ "observe", bench_observe, "observer period in cycles vs perf's minimum" },
	{ "overhead", bench_overhead, "pebs-shim record vs perf record, same workload" },
};

int cmd_bench(int argc, char **argv)
{
	int rc = 0;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: pebs-shim bench [NAME [options]]\n\nWith no NAME, runs all:\n");
		for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
			printf("  %-9s %s\n", benches[i].name, benches[i].help);
		return 0;
	}
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
		if (argc > 1 && strcmp(argv[1], benches[i].name))
			continue;
		if (argc > 1)
			return benches[i].fn(argc - 1, argv + 1);
		printf("== bench %s\n", benches[i].name);
		fflush(stdout);
		char *av[] = { (char *)benches[i].name, NULL };
		if (benches[i].fn(1, av))
			rc = 1;
	}
	if (argc > 1) {
		fprintf(stderr, "pebs-shim bench: unknown benchmark '%s': try pebs-shim bench --help\n",
			argv[1]);
		return 2;
	}
	return rc;
}
