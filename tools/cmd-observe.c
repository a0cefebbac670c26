// SPDX-License-Identifier: MIT
/*
 * cmd-observe.c - pebs-shim observe: a Shim-style observer thread.
 *
 * The calling thread pins itself to --on and spins: rdtscp, the table
 * slots of the observed CPUs, their counters, rdtscp. Rows go into a
 * chunk buffer; between chunks they are filtered (trustable) and summed.
 * The output is that aggregate, of a size independent of the run's
 * length, at the end (and every -I ms); per-observation records only
 * with --raw (lib/observe/obs-raw.c), bounded by --raw-max.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim.h"
#include "cmds.h"
#include "util.h"


static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: pebs-shim observe -C CPUS [--on CPU] [-e EVENT]... [options]\n"
"\n"
"A Shim-style observer (Yang et al., ISCA 2015): one thread pinned to --on\n"
"spins, and each iteration takes rdtscp, a consistent copy of each observed\n"
"CPU's /dev/pebs_map slot (who runs there), the counters given with -e on\n"
"each observed CPU, and rdtscp again. An observation is kept (trustable)\n"
"only if, against the previous one, the ratio of the end-timestamp delta to\n"
"the start-timestamp delta lies within 1 +- --tolerance. The summary gives\n"
"the achieved resolution, the kept fraction and, per observed CPU, each\n"
"thread's share of the time (residency at the observer's resolution: an\n"
"interval between two observations counts whole for the thread seen when\n"
"the slot's switch count did not move, else half to each side) and counter\n"
"totals (deltas go to the thread seen at the end of their interval).\n"
"\n"
"  -C, --cpu CPUS         CPUs to observe: 0 | 0,2 | 0-3 (required)\n"
"      --on CPU           CPU the observer runs on (default: the first online\n"
"                         CPU not observed)\n"
"  -e, --event EVENT      count EVENT on each observed CPU (up to %d); libpfm4\n"
"                         or perf names, e.g. task-clock, cpu-clock, cycles\n"
"      --period-cycles N  one observation every N TSC cycles (spin on rdtsc);\n"
"                         default: as fast as possible\n"
"      --duration S       seconds to observe (default 1; Ctrl-C stops\n"
"                         early and still prints the summary)\n"
"      --tolerance PCT    trustable band, percent (default 1: 0.99..1.01)\n"
"  -o, --output FILE      write the summary to FILE instead of stdout\n"
"  -I, --interval-print MS  also print the summary so far every MS ms\n"
"      --raw FILE         also write every kept observation to FILE\n"
"      --raw-max SIZE     stop raw records at SIZE bytes (K, M, G suffixes;\n"
"                         default 64M); observing goes on, one line says so\n"
"      --format bin|csv   raw format (default bin)\n"
"      --map PATH         the table (default /dev/pebs_map; a table file\n"
"                         replays a saved one)\n"
"      --no-map           counters only: no table (tgid/pid read as -1)\n"
"  -h, --help             this text\n"
"\n"
"What the hardware allows. rdpmc reads the counter registers of the logical\n"
"CPU that executes it: the observer can read with rdpmc only counters of its\n"
"own CPU. An SMT sibling has its own registers, so even an observer on the\n"
"sibling of an observed CPU cannot rdpmc that CPU's per-CPU counters. Every\n"
"other counter is read with read(2), which costs a system call and makes the\n"
"kernel interrupt (IPI) the observed CPU to fold the count: the observer\n"
"perturbs what it watches. For a counter of its own CPU the observer uses\n"
"rdpmc when the perf user page allows it (seqlock on lock, index, offset,\n"
"pmc_width; cap_user_rdpmc checked) and rdpmc times faster than read(): a\n"
"hypervisor may trap rdpmc (on the project's VM it costs 17000-26000\n"
"cycles a read, read() 5000-11000). One line says which path each counter\n"
"takes and why. In a VM without a virtual PMU there are no hardware\n"
"counters: use software events (task-clock, cpu-clock). Timestamps need\n"
"rdtscp (under qemu TCG: -cpu max; the guest TSC is then emulated).\n"
"\n"
"Output. The summary (observations, resolution as period quantiles, the\n"
"trustable fraction, and per observed CPU each thread's residency and\n"
"counter totals) has a size independent of the run's length. A write error\n"
"(a full disk: ENOSPC, EFBIG, EPIPE) on --raw ends the run with one line\n"
"naming the file, exit 1, and the summary still printed.\n"
"\n"
"Raw output (--raw). CSV: a header line, then tsc,dt,cpu,tgid,pid,switches,\n"
"<one column per event>. bin (little-endian): a 64-byte header\n"
"  char magic[8] \"PEBSOBS\\0\"; u32 version (1); u32 header_size (64 + 64 *\n"
"  nr_events); u32 record_size (32 + 8 * nr_events); u32 nr_events; u32\n"
"  nr_cpus; s32 observer_cpu; u64 tsc_hz; u64 period_cycles; u32 lo_ppm;\n"
"  u32 hi_ppm; u64 reserved\n"
"then nr_events event names of 64 bytes (NUL padded), then one record per\n"
"kept observation and observed CPU:\n"
"  u64 tsc (start rdtscp); u64 dt (cycles since the previous observation);\n"
"  u32 cpu; s32 tgid; s32 pid; u32 switches (low 32 bits of the slot's\n"
"  switch count); u64 delta[nr_events]\n"
"Records come at the observation rate (tens of MB/s when free-running):\n"
"--raw-max bounds the file; --period-cycles bounds the rate.\n"
"\n"
"Needs the pebs_map module for the table (insmod kmod/pebs_map.ko), root (or\n"
"perf_event_paranoid <= 0) for per-CPU counters.\n",
		PEBS_OBS_MAX_EVENTS);
}


/* a CPU list (pebs_cpulist__parse) into @cpus, in order */
static int parse_cpus(const char *s, struct pebs_ids *cpus)
{
	static uint64_t bits[PEBS_MAX_CPUS / 64];

	pebs_ids__free(cpus);
	if (pebs_cpulist__parse(s, PEBS_MAX_CPUS, bits) ||
	    pebs_cpulist__ids(bits, PEBS_MAX_CPUS, cpus))
		return -1;
	return cpus->n;
}

static int pick_on_cpu(const struct pebs_ids *cpus)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	for (long c = 0; c < online && c < PEBS_MAX_CPUS; c++)
		if (!pebs_ids__has(cpus, c))
			return c;
	return -1;
}

/* the option combinations and CPUs: 0, or the usage error's status */
static int check_opts(const struct pebs_ids *cpus, int on_cpu, bool no_map,
		      const char *mappath, int nr_ev)
{
	/* a CPU this system lacks is a bad value, not a runtime failure */
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (no_map && mappath)
		return tool_usage_err("observe", "%s", "--map and --no-map together");
	if (no_map && !nr_ev)
		return tool_usage_err("observe", "%s", "nothing to observe: --no-map needs -e EVENT");
	for (unsigned int i = 0; ncpu > 0 && i < cpus->n; i++)
		if (cpus->v[i] >= ncpu)
			return tool_usage_err("observe", "-C: CPU %u does not exist (CPUs 0-%ld here)",
					 cpus->v[i], ncpu - 1);
	if (ncpu > 0 && on_cpu >= ncpu)
		return tool_usage_err("observe", "--on: CPU %d does not exist (CPUs 0-%ld here)",
				 on_cpu, ncpu - 1);
	return 0;
}

enum { OPT_ON = 256, OPT_PERIOD, OPT_DURATION, OPT_TOL, OPT_FORMAT, OPT_MAP,
       OPT_NOMAP, OPT_RAW, OPT_RAW_MAX };


/* what the run's callbacks need */
struct obs_run {
	const struct pebs_observer *obs;
	struct pebs_obs_stats *st;
	const struct pebs_event *evs;
	struct pebs_obs_raw *raw;
	const char *rawpath;
	FILE *sf;
	uint64_t *deltas, hz, t_first, t_last;
	double tol;
	int werr;		/* a raw write error: ends the run */
};

/* the chunk's rows: filtered and summed, kept ones to --raw */
static int on_rows(void *ctx, const uint64_t *rows, unsigned int n)
{
	struct obs_run *o = ctx;
	size_t words = pebs_observer__row_words(o->obs);

	for (unsigned int r = 0; r < n; r++) {
		const uint64_t *row = rows + r * words;
		int err;

		if (!o->t_first)
			o->t_first = row[0];
		err = pebs_obs_stats__add(o->st, row, o->deltas);
		if (err < 0)
			return err;
		if (err && o->raw && !o->werr) {
			o->werr = pebs_obs_raw__add_row(o->raw, row,
							row[0] - o->t_last,
							o->deltas);
			if (o->werr == 1) {
				tool_err("observe", "--raw-max reached: %s holds the first %" PRIu64
					 " records (%" PRIu64 " bytes); observing goes on",
					 o->rawpath, pebs_obs_raw__records(o->raw),
					 pebs_obs_raw__bytes(o->raw));
				o->werr = 0;
			}
		}
		o->t_last = row[0];
	}
	return o->werr < 0;
}

/* -I: the summary so far */
static int on_interval(void *ctx, uint64_t tsc)
{
	struct obs_run *o = ctx;
	double secs = (tsc - o->t_first) / (double)o->hz;
	PEBS_OPTS(pebs_obs_print_opts, po, .events = o->evs, .tsc_hz = o->hz,
		  .secs = secs, .tolerance = o->tol);
	int err;

	fprintf(o->sf, "# %.3f s\n", secs);
	err = pebs_obs_stats__print(o->st, o->obs, o->sf, &po);
	fflush(o->sf);
	return err;
}

int cmd_observe(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "on", required_argument, NULL, OPT_ON },
		{ "event", required_argument, NULL, 'e' },
		{ "period-cycles", required_argument, NULL, OPT_PERIOD },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "tolerance", required_argument, NULL, OPT_TOL },
		{ "output", required_argument, NULL, 'o' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "raw", required_argument, NULL, OPT_RAW },
		{ "raw-max", required_argument, NULL, OPT_RAW_MAX },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "map", required_argument, NULL, OPT_MAP },
		{ "no-map", no_argument, NULL, OPT_NOMAP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *evnames[PEBS_OBS_MAX_EVENTS], *outpath = NULL;
	const char *mappath = NULL;
	struct pebs_ids cpus = { 0 };
	int nr_cpus = 0, nr_ev = 0, on_cpu = -1, c, err, rc = 1;
	uint64_t period = 0, v, lo, hi, again = 0;
	uint64_t raw_max = 64 << 20, interval_ms = 0;
	double duration = 1;
	bool csv = false, no_map = false;
	struct pebs_event evs[PEBS_OBS_MAX_EVENTS];
	struct pebs_map *map = NULL;
	struct pebs_observer *obs = NULL;
	struct obs_run o = { .sf = stdout, .evs = evs, .tol = 1 };

	optind = 1;
	opterr = 0;	/* one line of our own instead */
	while ((c = getopt_long(argc, argv, "C:e:o:I:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			nr_cpus = parse_cpus(optarg, &cpus);
			if (nr_cpus <= 0) {
				pebs_ids__free(&cpus);
				return tool_usage_err("observe", "-C: %s", pebs_errmsg());
			}
			break;
		case OPT_ON:
			if (!tool_parse_u64(optarg, &v) || v >= PEBS_MAX_CPUS)
				return tool_usage_err("observe", "bad --on CPU '%s'", optarg);
			on_cpu = v;
			break;
		case 'e':
			if (nr_ev == PEBS_OBS_MAX_EVENTS)
				return tool_usage_err("observe", "too many events (at most %d) at '%s'",
						 PEBS_OBS_MAX_EVENTS, optarg);
			evnames[nr_ev++] = optarg;
			break;
		case OPT_PERIOD:
			if (!tool_parse_u64(optarg, &period) || !period)
				return tool_usage_err("observe", "bad --period-cycles '%s'", optarg);
			break;
		case OPT_DURATION:
			if (!tool_parse_double(optarg, &duration) || duration <= 0 ||
			    duration > 86400)
				return tool_usage_err("observe", "bad --duration '%s' (seconds)", optarg);
			break;
		case OPT_TOL:
			if (!tool_parse_double(optarg, &o.tol) || o.tol < 0 || o.tol >= 100)
				return tool_usage_err("observe", "bad --tolerance '%s' (percent, 0..100)",
						 optarg);
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'I':
			if (!tool_parse_u64(optarg, &interval_ms) || interval_ms < 10 ||
			    interval_ms > 86400000)
				return tool_usage_err("observe", "bad -I '%s' (milliseconds, at least 10)",
						 optarg);
			break;
		case OPT_RAW:
			o.rawpath = optarg;
			break;
		case OPT_RAW_MAX:
			if (!tool_parse_size(optarg, &raw_max) || !raw_max)
				return tool_usage_err("observe", "bad --raw-max '%s' (bytes, K/M/G)",
						 optarg);
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "csv"))
				csv = true;
			else if (!strcmp(optarg, "bin"))
				csv = false;
			else
				return tool_usage_err("observe", "bad --format '%s' (bin or csv)", optarg);
			break;
		case OPT_MAP:
			mappath = optarg;
			break;
		case OPT_NOMAP:
			no_map = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return tool_usage_err("observe", "bad option or missing argument '%s'",
					 argv[optind - 1]);
		}
	}
	if (optind < argc)
		return tool_usage_err("observe", "unexpected argument '%s'", argv[optind]);
	if (!nr_cpus)
		return tool_usage_err("observe", "%s", "no CPU to observe (-C)");
	rc = check_opts(&cpus, on_cpu, no_map, mappath, nr_ev);
	if (rc) {
		pebs_ids__free(&cpus);
		return rc;
	}
	rc = 1;
	if (on_cpu < 0)
		on_cpu = pick_on_cpu(&cpus);
	if (on_cpu < 0) {
		pebs_ids__free(&cpus);
		return tool_usage_err("observe", "%s", "no free CPU for the observer: give --on");
	}
	lo = llround((100 - o.tol) * 10000);
	hi = llround((100 + o.tol) * 10000);
	if (hi > UINT32_MAX)
		hi = UINT32_MAX;

	for (int e = 0; e < nr_ev; e++) {
		err = pebs_event__parse(evnames[e], &evs[e]);
		if (err) {
			tool_err("observe", "%s", pebs_errmsg());
			rc = 2;
			goto out;
		}
	}
	if (!no_map) {
		err = pebs_map__open(mappath, &map);
		if (err) {
			tool_err("observe", "%s%s", pebs_errmsg(),
				err == -ENOENT ? "; or --no-map -e EVENT for counters only" : "");
			goto out;
		}
	}
	PEBS_OPTS(pebs_observer_opts, opts, .map = map);
	err = pebs_observer__new(on_cpu, &opts, &obs);
	if (err)
		goto out_err;
	o.obs = obs;
	for (int i = 0; i < nr_cpus; i++) {
		err = pebs_observer__add_cpu(obs, cpus.v[i]);
		if (err < 0)
			goto out_err;
	}
	for (int e = 0; e < nr_ev; e++) {
		err = pebs_observer__add_event(obs, &evs[e]);
		if (err < 0)
			goto out_err;
	}
	err = pebs_obs_stats__new(obs, lo, hi, &o.st);
	if (err)
		goto out_err;

	err = pebs_tsc_hz(50, &o.hz);
	if (err)
		goto out_err;
	o.deltas = calloc((size_t)nr_cpus * (nr_ev ? nr_ev : 1), sizeof(*o.deltas));
	if (!o.deltas) {
		tool_err("observe", "out of memory");
		goto out;
	}
	if (outpath) {
		o.sf = fopen(outpath, "we");
		if (!o.sf) {
			o.sf = stdout;
			tool_err("observe", "cannot create %s: %s: check the path",
				outpath, strerror(errno));
			goto out;
		}
	}
	if (o.rawpath) {
		PEBS_OPTS(pebs_obs_raw_opts, ro, .csv = csv,
			  .max_bytes = raw_max);
		struct pebs_obs_raw_info ri = {
			.nr_cpus = nr_cpus, .nr_events = nr_ev,
			.observer_cpu = on_cpu, .tsc_hz = o.hz,
			.period_cycles = period, .lo_ppm = lo, .hi_ppm = hi,
		};

		for (int e = 0; e < nr_ev; e++)
			memcpy(ri.names[e], evs[e].name,
			       strnlen(evs[e].name, sizeof(ri.names[e]) - 1));
		err = pebs_obs_raw__create(o.rawpath, &ri,
					   (const unsigned int *)cpus.v, &ro,
					   &o.raw);
		if (err) {
			tool_err("observe", "cannot create %s: %s: check the path and free space",
				o.rawpath, strerror(-err));
			goto out;
		}
	}
	pebs_observer__print_setup(obs, o.sf, map ? (mappath ? mappath :
						      PEBS_MAP_DEVICE) :
				   "none (--no-map)");
	fflush(o.sf);

	/* a full disk or a closed pipe is an error return, not a signal */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	PEBS_OPTS(pebs_observer_run_opts, run, .period_cycles = period,
		  .duration_cycles = (uint64_t)(duration * o.hz),
		  .interval_cycles = interval_ms * o.hz / 1000,
		  .stop = &interrupted, .again = &again, .on_rows = on_rows,
		  .on_interval = on_interval, .ctx = &o);
	err = pebs_observer__run(obs, &run);
	if (err)
		goto out_err;
	if (o.werr < 0)
		tool_err("observe", "writing %s: %s: the run ended there (free space, or --raw-max)",
			o.rawpath, strerror(-o.werr));
	err = pebs_obs_raw__close(o.raw);
	o.raw = NULL;
	if (err && !o.werr) {
		o.werr = err;
		tool_err("observe", "writing %s: %s", o.rawpath, strerror(-err));
	}
	if (again)
		fprintf(o.sf, "slot reads that stayed inconsistent (skipped): %" PRIu64 "\n",
			again);
	if (interval_ms)
		fprintf(o.sf, "# %.3f s, end\n", (o.t_last - o.t_first) / (double)o.hz);
	PEBS_OPTS(pebs_obs_print_opts, po, .events = evs, .tsc_hz = o.hz,
		  .secs = (o.t_last - o.t_first) / (double)o.hz,
		  .tolerance = o.tol);
	err = pebs_obs_stats__print(o.st, obs, o.sf, &po);
	if (err)
		goto out_err;
	if (fflush(o.sf) || ferror(o.sf)) {
		tool_err("observe", "writing %s: %s",
			outpath ? outpath : "the summary (stdout)", strerror(errno));
		goto out;
	}
	rc = o.werr ? 1 : 0;
	goto out;

out_err:
	tool_err("observe", "%s", pebs_errmsg()[0] ? pebs_errmsg() :
		strerror(-err));
out:
	pebs_obs_raw__close(o.raw);
	if (o.sf != stdout && fclose(o.sf) && rc == 0) {
		tool_err("observe", "writing %s: %s", outpath, strerror(errno));
		rc = 1;
	}
	free(o.deltas);
	pebs_obs_stats__delete(o.st);
	pebs_observer__delete(obs);
	pebs_map__close(map);
	pebs_ids__free(&cpus);
	return rc;
}
