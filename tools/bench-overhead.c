// SPDX-License-Identifier: MIT
/*
 * bench-overhead.c - pebs-shim bench overhead: the wall time of a fixed
 * amount of memwalk work alone, under `pebs-shim record` and under
 * `perf record --no-bpf-event`, same event and periods, several runs
 * interleaved; prints the median of each and its ratio to the bare run.
 * Figures only, no pass/fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"

#define MAX_PERIODS	8
#define MAX_REPS	101

struct bench {
	unsigned int reps;
	const char *hops, *mb, *event;
	const char *periods[MAX_PERIODS];
	unsigned int nr_periods;
	char workload[PATH_MAX];
	char self[PATH_MAX];
	char dir[64];
	bool no_perf;
};

static void usage(FILE *f)
{
	fputs(
"usage: pebs-shim bench overhead [options]\n"
"\n"
"Runs memwalk --hops N (a fixed amount of work) alone, under\n"
"`pebs-shim record` and under `perf record --no-bpf-event`, with the same\n"
"event and sampling periods, interleaving the runs, and prints the median\n"
"wall time of each with its ratio to the bare run. Recordings go to a\n"
"temporary directory under /tmp and are removed. No pass/fail.\n"
"\n"
"  -r, --reps N          runs of each configuration (default 5)\n"
"  -H, --hops N          memwalk's work: walker hops (default 4000000)\n"
"  -m, --mb M            memwalk's ring size in MiB (default 16)\n"
"  -e, --event EV        event for both recorders (default cpu-clock)\n"
"  -c, --periods LIST    comma-separated periods (default 1000000,100000:\n"
"                        1 ms and 100 us of cpu-clock)\n"
"  -w, --workload PATH   memwalk binary (default: workloads/memwalk next\n"
"                        to this pebs-shim)\n"
"      --no-perf         skip perf record\n"
"  -h, --help            this help\n",
	      f);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Run argv with stdout/stderr to /dev/null; returns the wall time in
 * seconds, or -1 if it could not run or exited nonzero (127: not found).
 */
static double run(char *const argv[], int *status)
{
	double t0 = now_s(), t;
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	t = now_s() - t0;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return *status ? -1 : t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median of the successful runs; -1 if none succeeded */
static double median(double *v, unsigned int n)
{
	double ok[MAX_REPS];
	unsigned int m = 0;

	for (unsigned int i = 0; i < n; i++)
		if (v[i] >= 0)
			ok[m++] = v[i];
	if (!m)
		return -1;
	qsort(ok, m, sizeof(ok[0]), cmp_double);
	return m % 2 ? ok[m / 2] : (ok[m / 2 - 1] + ok[m / 2]) / 2;
}

static int parse(struct bench *b, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "hops", required_argument, NULL, 'H' },
		{ "mb", required_argument, NULL, 'm' },
		{ "event", required_argument, NULL, 'e' },
		{ "periods", required_argument, NULL, 'c' },
		{ "workload", required_argument, NULL, 'w' },
		{ "no-perf", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char periods[256] = "1000000,100000";
	char *end, *tok, *save = NULL;
	ssize_t n;
	long v;
	int c;

	b->reps = 5;
	b->hops = "4000000";
	b->mb = "16";
	b->event = "cpu-clock";
	opterr = 0;
	while ((c = getopt_long(argc, argv, "r:H:m:e:c:w:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'r':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > MAX_REPS) {
				fprintf(stderr, "pebs-shim bench overhead: bad --reps '%s': give 1..%d\n",
					optarg, MAX_REPS);
				return 2;
			}
			b->reps = (unsigned int)v;
			break;
		case 'H':
		case 'm':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1) {
				fprintf(stderr, "pebs-shim bench overhead: bad %s '%s': give a positive number\n",
					c == 'H' ? "--hops" : "--mb", optarg);
				return 2;
			}
			*(c == 'H' ? &b->hops : &b->mb) = optarg;
			break;
		case 'e':
			b->event = optarg;
			break;
		case 'c':
			snprintf(periods, sizeof(periods), "%s", optarg);
			break;
		case 'w':
			snprintf(b->workload, sizeof(b->workload), "%s", optarg);
			break;
		case 'P':
			b->no_perf = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			fprintf(stderr, "pebs-shim bench overhead: bad option '%s': see --help\n",
				argv[optind - 1]);
			return 2;
		}
	}
	for (tok = strtok_r(periods, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		v = strtol(tok, &end, 10);
		if (*end || v < 1 || b->nr_periods == MAX_PERIODS) {
			fprintf(stderr, "pebs-shim bench overhead: bad period '%s': give up to %d positive numbers\n",
				tok, MAX_PERIODS);
			return 2;
		}
		b->periods[b->nr_periods++] = tok;
	}
	if (!b->nr_periods) {
		fprintf(stderr, "pebs-shim bench overhead: no period given: e.g. --periods 1000000\n");
		return 2;
	}
	n = readlink("/proc/self/exe", b->self, sizeof(b->self) - 1);
	if (n <= 0) {
		fprintf(stderr, "pebs-shim bench overhead: cannot find this pebs-shim (/proc/self/exe): %s\n",
			strerror(errno));
		return 1;
	}
	b->self[n] = '\0';
	if (!b->workload[0]) {
		char *slash = strrchr(b->self, '/');

		snprintf(b->workload, sizeof(b->workload),
			 "%.*s/workloads/memwalk", (int)(slash - b->self),
			 b->self);
	}
	if (access(b->workload, X_OK)) {
		fprintf(stderr, "pebs-shim bench overhead: %s: %s: build the workloads (make) or give --workload PATH\n",
			b->workload, strerror(errno));
		return 1;
	}
	return 0;
}

static void print_cell(double t, double bare)
{
	if (t < 0)
		printf("  %-20s", "failed");
	else
		printf("  %8.3f s  %5.2fx  ", t, bare > 0 ? t / bare : 0);
}

int bench_overhead(int argc, char **argv)
{
	struct bench b = { 0 };
	double bare[MAX_REPS], shim[MAX_PERIODS][MAX_REPS];
	double perf[MAX_PERIODS][MAX_REPS];
	char out_shim[128], out_perf[128];
	int err, st, perf_st = 0;
	double mb;

	err = parse(&b, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	snprintf(b.dir, sizeof(b.dir), "/tmp/pebs-bench-overhead.XXXXXX");
	if (!mkdtemp(b.dir)) {
		fprintf(stderr, "pebs-shim bench overhead: cannot create a directory in /tmp: %s\n",
			strerror(errno));
		return 1;
	}
	snprintf(out_shim, sizeof(out_shim), "%s/shim.data", b.dir);
	snprintf(out_perf, sizeof(out_perf), "%s/perf.data", b.dir);

	printf("overhead: %s --hops %s --mb %s; event %s; %u runs each, interleaved; median wall time and ratio to bare\n",
	       b.workload, b.hops, b.mb, b.event, b.reps);
	fflush(stdout);
	for (unsigned int r = 0; r < b.reps; r++) {
		char *wl[] = { b.workload, "--hops", (char *)b.hops, "--mb",
			       (char *)b.mb, NULL };

		bare[r] = run(wl, &st);
		for (unsigned int p = 0; p < b.nr_periods; p++) {
			char *sv[] = { b.self, "record", "-e", (char *)b.event,
				       "-c", (char *)b.periods[p], "-o",
				       out_shim, "--", b.workload, "--hops",
				       (char *)b.hops, "--mb", (char *)b.mb,
				       NULL };
			char *pv[] = { "perf", "record", "--no-bpf-event", "-q",
				       "-e", (char *)b.event, "-c",
				       (char *)b.periods[p], "-o", out_perf,
				       "--", b.workload, "--hops",
				       (char *)b.hops, "--mb", (char *)b.mb,
				       NULL };

			shim[p][r] = run(sv, &st);
			perf[p][r] = b.no_perf || perf_st == 127 ? -1 :
				     run(pv, &perf_st);
		}
	}
	unlink(out_shim);
	unlink(out_perf);
	rmdir(b.dir);

	mb = median(bare, b.reps);
	printf("%-10s  %-20s  %-20s  %-20s\n", "period", "bare",
	       "pebs-shim record", "perf record");
	for (unsigned int p = 0; p < b.nr_periods; p++) {
		printf("%-10s", b.periods[p]);
		print_cell(mb, mb);
		print_cell(median(shim[p], b.reps), mb);
		if (b.no_perf || perf_st == 127)
			printf("  %-20s", b.no_perf ? "skipped" :
						      "n/a (no perf)");
		else
			print_cell(median(perf[p], b.reps), mb);
		putchar('\n');
	}
	if (mb < 0) {
		fprintf(stderr, "pebs-shim bench overhead: the bare workload failed: run %s --hops %s by hand\n",
			b.workload, b.hops);
		return 1;
	}
	return 0;
}
