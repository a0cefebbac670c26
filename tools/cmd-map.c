// SPDX-License-Identifier: MIT
/*
 * cmd-map.c - pebs-shim map: print the /dev/pebs_map table (who runs on
 * each CPU) and, with --history, each CPU's last switches
 * (pebs_map__print), once or every -i milliseconds.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmds.h"
#include "pebsshim.h"
#include "util.h"

#define MAX_HISTORY	(1u << 20)
#define MAX_CPUS	(1u << 16)	/* CPU numbers -C accepts */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const char usage_text[] =
"usage: pebs-shim map [-d DEVICE] [-i MS] [-n COUNT] [-C CPULIST]\n"
"                     [--history N] [--all]\n"
"\n"
"Print the per-CPU table of the pebs_map module: the thread running on\n"
"each CPU (pids as seen from the initial pid namespace), the number of\n"
"switches recorded there, and with --history the last switches.\n"
"\n"
"  -d, --device PATH   the device, or a table file laid out the same way\n"
"                      (default " PEBS_MAP_DEVICE ")\n"
"  -i, --interval MS   print again every MS milliseconds, until SIGINT or\n"
"                      COUNT times\n"
"  -n, --count COUNT   print COUNT times (every second unless -i)\n"
"  -C, --cpu CPULIST   only these CPUs, e.g. 0-3,6\n"
"  -H, --history N     also print each CPU's last N switches (time in s\n"
"                      of the table's clock, tgid, pid)\n"
"  -a, --all           also CPUs never seen switching (shown as '-');\n"
"                      by default they are skipped unless named by -C\n"
"  -h, --help          this text\n"
"\n"
"Output: a header line (ABI version, CPUs, history length, clock, hook),\n"
"then one line per CPU:\n"
"  CPU0: tgid 238 pid 238 switches 1234 comm bash\n"
"  CPU1: idle switches 5678\n"
"Exit status: 0 success, 1 runtime failure (e.g. module not loaded),\n"
"2 usage error.\n";



/* a CPU list (pebs_cpulist__parse) added to @set (MAX_CPUS bits) */
static int parse_cpulist(const char *s, uint64_t *set)
{
	static uint64_t bits[MAX_CPUS / 64];
	int err = pebs_cpulist__parse(s, MAX_CPUS, bits);

	for (unsigned int i = 0; !err && i < MAX_CPUS / 64; i++)
		set[i] |= bits[i];
	return err;
}

int cmd_map(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "history", required_argument, NULL, 'H' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long interval = 0, count = 0;
	uint64_t v;
	PEBS_OPTS(pebs_map_print_opts, o, );
	const char *device = NULL;
	uint64_t *cpus = NULL;
	struct pebs_map *map;
	struct sigaction sa;
	int c, err, ret = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:i:n:C:H:ah", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			device = optarg;
			break;
		case 'i':
			if (!tool_parse_u64(optarg, &v) || !v || v > 86400000)
				return tool_usage_err("map", "bad interval '%s': give milliseconds, 1 to 86400000",
						      optarg);
			interval = v;
			break;
		case 'n':
			if (!tool_parse_u64(optarg, &v) || !v)
				return tool_usage_err("map", "bad count '%s': give 1 or more",
						      optarg);
			count = v;
			break;
		case 'C':
			if (!cpus)
				cpus = calloc(MAX_CPUS / 64, sizeof(*cpus));
			if (!cpus) {
				tool_err("map", "out of memory");
				return 1;
			}
			if (parse_cpulist(optarg, cpus)) {
				free(cpus);
				return tool_usage_err("map", "bad CPU list '%s': give e.g. 0-3,6",
						 optarg);
			}
			break;
		case 'H':
			if (!tool_parse_u64(optarg, &v) || !v || v > MAX_HISTORY)
				return tool_usage_err("map", "bad history length '%s': give 1 to %u",
						 optarg, MAX_HISTORY);
			o.history = v;
			break;
		case 'a':
			o.all = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			free(cpus);
			return 0;
		case ':':
			free(cpus);
			return tool_usage_err("map", "option '%s' needs a value",
					 argv[optind - 1]);
		default:
			free(cpus);
			if (optopt)
				return tool_usage_err("map", "unknown option '-%c'",
						 optopt);
			return tool_usage_err("map", "unknown option '%s'",
					 argv[optind - 1]);
		}
	}
	if (optind < argc) {
		free(cpus);
		return tool_usage_err("map", "unexpected argument '%s'",
				 argv[optind]);
	}
	if (count && !interval)
		interval = 1000;
	o.cpus = cpus;

	err = pebs_map__open(device, &map);
	if (err) {
		tool_err("map", "%s", pebs_errmsg());
		goto out_free;
	}
	if (cpus) {
		unsigned int nr = pebs_map__nr_cpus(map);
		int cpu = pebs_cpulist__next(cpus, MAX_CPUS, nr);

		if (cpu >= 0) {
			tool_err("map", "CPU %d not in the table (%u CPUs): choose CPUs 0-%u",
				cpu, nr, nr - 1);
			ret = 2;
			goto out_close;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	pebs_map__print_header(map, stdout);
	for (unsigned long i = 0; !stop; i++) {
		struct timespec ts = {
			.tv_sec = interval / 1000,
			.tv_nsec = interval % 1000 * 1000000,
		};

		if (i)
			putchar('\n');
		err = pebs_map__print(map, stdout, &o);
		if (err) {
			tool_err("map", "%s", pebs_errmsg());
			goto out_close;
		}
		if (fflush(stdout)) {
			tool_err("map", "writing the output: %s",
				strerror(errno));
			goto out_close;
		}
		if (!interval || (count && i + 1 >= count))
			break;
		/* SIGINT interrupts the sleep (no SA_RESTART) and stops us */
		nanosleep(&ts, NULL);
	}
	ret = 0;
out_close:
	pebs_map__close(map);
out_free:
	free(cpus);
	return ret;
}
