// SPDX-License-Identifier: MIT
/*
 * cmd-record.c - pebs-shim record: sample a command, processes, threads
 * or CPUs into a perf.data or CSV file, attributing each sample to a
 * thread by its TID or through the /dev/pebs_map switch history.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include "cmds.h"
#include "record.h"

#define POLL_MS		100	/* poll round: bounds the map history lag */
#define STATUS_NS	250000000ull
/* per-CPU rings see every task: 1 MiB each unless -m says otherwise */
#define CPU_RING_PAGES	256
/*
 * a command's or process' ring per CPU: perf's default, 512 KiB (what
 * perf_event_mlock_kb allows an unprivileged user per CPU)
 */
#define TASK_RING_PAGES	128
/*
 * The events and inherited threads of a CPU share one ring; threads
 * without inherit (-t, -p -i) have a ring each: without -m their pages
 * shrink (to 8 at least) to keep all rings within this many pages
 */
#define TASK_RING_BUDGET	16384
/*
 * perf's user registers of --call-graph dwarf (PERF_REGS_MASK of
 * tools/perf/arch/x86/include/perf_regs.h): all but the segment ones
 */
#define DWARF_REGS_MASK \
	(((1ULL << PERF_REG_X86_64_MAX) - 1) & \
	 ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | \
	   (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS)))
/* default period of cpu-clock/task-clock: 250 us, perf's 4 kHz */
#define CLOCK_PERIOD_NS	250000

enum attr_mode { ATTR_AUTO, ATTR_TID, ATTR_MAP, ATTR_BOTH };

static const char *const attr_names[] = {
	[ATTR_AUTO] = "auto", [ATTR_TID] = "tid", [ATTR_MAP] = "map",
	[ATTR_BOTH] = "both",
};

struct record {
	/* options */
	const char *evstrs[REC_MAX_EVENTS];
	unsigned int nr_evs;
	uint64_t period, freq;
	unsigned int pages;
	const char *output;
	enum rec_format format;
	double duration;
	enum attr_mode attr_req;
	int verbose;
	bool quiet;
	bool data_addr;			/* -d: PERF_SAMPLE_ADDR on every event */
	bool no_inherit;
	bool switch_events;
	enum rec_callgraph callgraph;
	uint32_t stack_size;		/* --call-graph dwarf,SIZE */
	bool all_cpus;
	const char *cpu_list, *pid_list, *tid_list;
	char **cmd;

	/* setup */
	struct pebs_event evs[REC_MAX_EVENTS];
	struct perf_event_attr attrs[REC_MAX_EVENTS];
	bool per_cpu;
	enum attr_mode attr;		/* TID, MAP or BOTH */
	bool switch_baseline;		/* no module: SWITCH_CPU_WIDE */
	struct pebs_map *map;
	struct pebs_attrib *attrib;
	struct rec_out *out;
	struct pebs_chanset *set;
	struct rec_child child;
	struct rec_ints targets;	/* CPUs, or pids/tids to open */
	struct rec_ints procs;		/* -p processes, to see them end */
	unsigned int targets_left;

	/* channel -> event index cache */
	const struct pebs_channel *last_ch;
	unsigned int last_ev;

	/* counts */
	uint64_t samples, csv_rows, written, lost, throttles;
	uint64_t lost_samples;		/* PERF_FORMAT_LOST counts */
	uint64_t wakeups;		/* polls that found samples */
	int write_err;			/* the output's, from emit() */
	int err;
};

static volatile sig_atomic_t stop_sig, child_sig;

static void usage(FILE *f)
{
	fprintf(f, 
"usage: pebs-shim record [options] -- COMMAND [ARGS...]\n"
"       pebs-shim record [options] -p PID[,PID...] | -t TID[,TID...]\n"
"       pebs-shim record [options] -a | -C LIST [-- COMMAND [ARGS...]]\n"
"\n"
"Sample hardware or software events into a perf.data file (default\n"
"pebs-shim.data, readable by perf script/report and pebs-shim report)\n"
"or a CSV file, attributing each sample to a thread.\n"
"\n"
"Events:\n"
"  -e, --event=EVENT      event to sample, repeatable (default: auto =\n"
"                         PEBS/IBS loads where the CPU has them, else\n"
"                         cpu-clock; one line says which). Accepts libpfm4\n"
"                         names (MEM_INST_RETIRED:ALL_LOADS:precise=2),\n"
"                         perf software events (cpu-clock, page-faults),\n"
"                         sysfs spellings (ibs_op//) and the aliases\n"
"                         loads, stores, ldlat[=N]\n"
"  -c, --count=PERIOD     sample every PERIOD events (fixed period: lets\n"
"                         the CPU batch PEBS records). Default: the\n"
"                         event's :period=N, 250000 ns for cpu-clock and\n"
"                         task-clock, else %u\n"
"  -F, --freq=FREQ        about FREQ samples per second instead\n"
"  -m, --mmap-pages=PAGES data pages of each ring, a power of two; one\n"
"                         ring per CPU, or per thread with -t or -i\n"
"                         (default %u with -a/-C, else %u; fewer when\n"
"                         -t/-i threads exceed %u rings)\n"
"\n"
"Targets (one of):\n"
"  -- COMMAND [ARGS...]   run COMMAND; counting starts at its exec and\n"
"                         follows its children and threads; recording\n"
"                         stops when it exits\n"
"  -p, --pid=PID[,PID...] existing processes with all their threads,\n"
"                         and the threads they create later\n"
"  -t, --tid=TID[,TID...] existing threads only\n"
"  -a, --all-cpus         every online CPU (system-wide; root or\n"
"                         perf_event_paranoid <= 0)\n"
"  -C, --cpu=LIST         these CPUs, e.g. 0-3,6 (must be online)\n"
"  With -a or -C a COMMAND may follow: it bounds the recording.\n"
"\n"
"Output:\n"
"  -o, --output=FILE      output file (default pebs-shim.data, or\n"
"                         pebs-shim.csv with --format csv)\n"
"      --format=perf|csv  perf.data (default) or CSV with a header line:\n"
"                         time,cpu,tgid,pid,comm,event,ip,symbol,addr,\n"
"                         weight,data_src\n"
"      --duration=S       stop after S seconds (also: the command's exit,\n"
"                         SIGINT, SIGTERM, SIGHUP; every way drains the\n"
"                         rings and finishes the file)\n"
"\n"
"Sample contents (perf record's flags):\n"
"  -d, --data             sample data addresses (PERF_SAMPLE_ADDR) of\n"
"                         every event (memory and fault events have\n"
"                         them anyway)\n"
"  -g                     callchains by frame pointers (--call-graph fp)\n"
"      --call-graph=fp|dwarf[,SIZE]\n"
"                         fp: kernel-walked callchains; dwarf: user\n"
"                         registers and SIZE bytes of user stack (default\n"
"                         %u) per sample, for unwinding afterwards\n"
"  -T, --timestamp, --sample-cpu\n"
"                         accepted for perf: samples always carry the\n"
"                         time and the CPU\n"
"      --switch-events    record context switches (PERF_RECORD_SWITCH)\n"
"  -i, --no-inherit       do not follow threads and children created\n"
"                         after the start\n"
"\n"
"Attribution (who each sample belongs to):\n"
"      --attr=auto|tid|map|both\n"
"         tid   the TID the kernel wrote into the sample\n"
"         map   the module's per-CPU switch history (/dev/pebs_map),\n"
"               looked up by the sample's (cpu, time); the hardware\n"
"               records then carry no TID. In the perf.data file every\n"
"               record is re-encoded with the TID found and the attr\n"
"               gets PERF_SAMPLE_TID, so perf shows the right threads\n"
"         both  keep the TID and check the map against it: prints the\n"
"               agreement rate (-v lists each mismatch)\n"
"         auto  (default) map with -a/-C when /dev/pebs_map exists,\n"
"               else tid; with -a/-C and no module it also records\n"
"               PERF_RECORD_SWITCH_CPU_WIDE as the baseline and reports\n"
"               how well that agrees with the TIDs\n"
"\n"
"  -q, --quiet            no status line, notes or summary (errors only)\n"
"  -v, --verbose          more detail (events, channels, mismatches)\n"
"  -h, --help             this help\n"
"\n"
"At the end perf's summary (wakeups; MB and samples written) and one\n"
"line with the samples written, samples lost, throttle events and the\n"
"attribution used. On a terminal a status line shows the elapsed\n"
"time, samples, lost samples and MB written (not with -q).\n"
"\n"
"Exit status: the command's own (128+N if signal N killed it, or if\n"
"SIGINT, SIGTERM or SIGHUP stopped the recording; 0 without a command\n"
"or when --duration ended it), else %d usage error, %d recording could\n"
"not start, %d recording failed midway, %d command not executable,\n"
"%d command not found.\n",
		PEBS_CHANNEL_DEF_PERIOD, CPU_RING_PAGES, TASK_RING_PAGES,
		TASK_RING_BUDGET / TASK_RING_PAGES, REC_DWARF_STACK,
		REC_EXIT_USAGE, REC_EXIT_SETUP, REC_EXIT_RUNTIME,
		REC_EXIT_NOEXEC, REC_EXIT_NOTFOUND);
}

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_sig = 1;
	else
		stop_sig = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- option parsing --------------------------------------------------- */

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

/* long-only options: codes outside the range of letters */
enum {
	OPT_FORMAT = 256, OPT_DURATION, OPT_ATTR, OPT_CALL_GRAPH,
	OPT_SAMPLE_CPU, OPT_SWITCH_EVENTS,
};

/* "fp", "dwarf" or "dwarf,SIZE" (perf's --call-graph); 0 or exit code */
static int parse_callgraph(struct record *rec, const char *arg)
{
	uint64_t v;

	if (!strcmp(arg, "fp")) {
		rec->callgraph = REC_CG_FP;
		return 0;
	}
	if (!strncmp(arg, "dwarf", 5) && (!arg[5] || arg[5] == ',')) {
		rec->callgraph = REC_CG_DWARF;
		rec->stack_size = REC_DWARF_STACK;
		if (!arg[5])
			return 0;
		/* perf: a multiple of 8 up to 65528 (round_up(USHRT_MAX, 8)) */
		if (parse_u64(arg + 6, &v) && v && v <= 65528) {
			rec->stack_size = (uint32_t)((v + 7) & ~7ull);
			return 0;
		}
	}
	rec_err("bad --call-graph '%s': give fp, dwarf or dwarf,SIZE (SIZE bytes of stack, at most 65528)",
		arg);
	return REC_EXIT_USAGE;
}

static int parse_args(struct record *rec, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "data", no_argument, NULL, 'd' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "attr", required_argument, NULL, OPT_ATTR },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "sample-cpu", no_argument, NULL, OPT_SAMPLE_CPU },
		{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	char *end;
	int c;

	/*
	 * Every short letter means what it means to perf record (checked
	 * against perf record -h, 6.1); pebs-shim's own options are long.
	 */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:c:F:m:o:dgTiqvaC:p:t:h",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (rec->nr_evs == REC_MAX_EVENTS) {
				rec_err("too many events: give at most %d",
					REC_MAX_EVENTS);
				return REC_EXIT_USAGE;
			}
			rec->evstrs[rec->nr_evs++] = optarg;
			break;
		case 'c':
			if (!parse_u64(optarg, &v) || !v) {
				rec_err("bad period '%s': give a positive number of events (e.g. -c 10000)",
					optarg);
				return REC_EXIT_USAGE;
			}
			rec->period = v;
			break;
		case 'F':
			if (!parse_u64(optarg, &v) || !v) {
				rec_err("bad frequency '%s': give a positive number of samples per second (e.g. -F 1000)",
					optarg);
				return REC_EXIT_USAGE;
			}
			rec->freq = v;
			break;
		case 'm':
			if (!parse_u64(optarg, &v) || !v || (v & (v - 1)) ||
			    v > (1u << 20)) {
				rec_err("bad page count '%s': give a power of two (e.g. -m 64)",
					optarg);
				return REC_EXIT_USAGE;
			}
			rec->pages = (unsigned int)v;
			break;
		case 'o':
			rec->output = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "perf")) {
				rec->format = REC_FMT_PERF;
			} else if (!strcmp(optarg, "csv")) {
				rec->format = REC_FMT_CSV;
			} else {
				rec_err("unknown format '%s': use perf or csv",
					optarg);
				return REC_EXIT_USAGE;
			}
			break;
		case 'd':
			rec->data_addr = true;
			break;
		case 'g':
			rec->callgraph = REC_CG_FP;
			break;
		case OPT_CALL_GRAPH:
			c = parse_callgraph(rec, optarg);
			if (c)
				return c;
			break;
		case 'T':
		case OPT_SAMPLE_CPU:
			/* samples always carry TIME and CPU (attribution) */
			break;
		case OPT_SWITCH_EVENTS:
			rec->switch_events = true;
			break;
		case 'i':
			rec->no_inherit = true;
			break;
		case 'q':
			rec->quiet = true;
			break;
		case OPT_DURATION:
			errno = 0;
			rec->duration = strtod(optarg, &end);
			if (errno || *end || !(rec->duration > 0) ||
			    !isfinite(rec->duration)) {
				rec_err("bad duration '%s': give seconds > 0 (e.g. --duration 2.5)",
					optarg);
				return REC_EXIT_USAGE;
			}
			break;
		case OPT_ATTR:
			for (c = 0; c < 4; c++)
				if (!strcmp(optarg, attr_names[c]))
					break;
			if (c == 4) {
				rec_err("unknown attribution '%s': use auto, tid, map or both",
					optarg);
				return REC_EXIT_USAGE;
			}
			rec->attr_req = (enum attr_mode)c;
			break;
		case 'v':
			rec->verbose++;
			break;
		case 'a':
			rec->all_cpus = true;
			break;
		case 'C':
			rec->cpu_list = optarg;
			break;
		case 'p':
			rec->pid_list = optarg;
			break;
		case 't':
			rec->tid_list = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			rec_err("option '%s' needs a value: see pebs-shim record --help",
				argv[optind - 1]);
			return REC_EXIT_USAGE;
		default:
			rec_err("unknown option '%s': see pebs-shim record --help",
				argv[optind - 1]);
			return REC_EXIT_USAGE;
		}
	}
	if (optind < argc)
		rec->cmd = &argv[optind];
	if (rec->period && rec->freq) {
		rec_err("-c and -F together: give either a period or a frequency");
		return REC_EXIT_USAGE;
	}
	if (rec->all_cpus && rec->cpu_list) {
		rec_err("-a and -C together: -a already means every CPU");
		return REC_EXIT_USAGE;
	}
	rec->per_cpu = rec->all_cpus || rec->cpu_list;
	c = !!rec->pid_list + !!rec->tid_list + rec->per_cpu;
	if (c > 1 || (c && !rec->per_cpu && rec->cmd)) {
		rec_err("more than one target: give one of -- COMMAND, -p, -t, -a, -C");
		return REC_EXIT_USAGE;
	}
	if (!c && !rec->cmd) {
		rec_err("nothing to record: give -- COMMAND, -p PID, -t TID, -a or -C LIST");
		return REC_EXIT_USAGE;
	}
	if (!rec->nr_evs)
		rec->evstrs[rec->nr_evs++] = "auto";
	if (!rec->output)
		rec->output = rec->format == REC_FMT_CSV ? "pebs-shim.csv" :
							  "pebs-shim.data";
	return 0;
}

/* ---- events ----------------------------------------------------------- */

static bool is_fault_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/*
 * What each sample carries: the batchable set (large PEBS stays
 * possible), a data address where the event has one, and the memory
 * fields of PEBS/IBS. TID goes away with --attr=map.
 */
static uint64_t sample_type_of(const struct record *rec,
			       const struct pebs_event *ev)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		      PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;

	if ((ev->flags & PEBS_EVENT_MEMORY) || is_fault_event(&ev->attr) ||
	    ev->attr.type == PERF_TYPE_BREAKPOINT)
		st |= PERF_SAMPLE_ADDR;
	if ((ev->flags & PEBS_EVENT_MEMORY) && (ev->flags & PEBS_EVENT_PRECISE))
		st |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	if (rec->freq)
		st |= PERF_SAMPLE_PERIOD;
	if (rec->callgraph != REC_CG_NONE)
		st |= PERF_SAMPLE_CALLCHAIN;
	if (rec->callgraph == REC_CG_DWARF)
		st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (rec->attr == ATTR_MAP)
		st &= ~(uint64_t)PERF_SAMPLE_TID;
	return st;
}

static int parse_events(struct record *rec)
{
	for (unsigned int i = 0; i < rec->nr_evs; i++) {
		struct pebs_event *ev = &rec->evs[i];

		for (unsigned int j = 0; j < i; j++) {
			if (!strcmp(rec->evstrs[i], rec->evstrs[j])) {
				rec_err("event '%s' given twice: give each event once",
					rec->evstrs[i]);
				return -EINVAL;
			}
		}
		if (pebs_event__parse(rec->evstrs[i], ev)) {
			rec_err("%s", pebs_errmsg());
			return -EINVAL;
		}
		/* the library's default period is for hardware events */
		if (!rec->period && !rec->freq && !ev->attr.sample_period &&
		    ev->attr.type == PERF_TYPE_SOFTWARE &&
		    (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		     ev->attr.config == PERF_COUNT_SW_TASK_CLOCK))
			ev->attr.sample_period = CLOCK_PERIOD_NS;
		if (rec->callgraph == REC_CG_DWARF) {
			/* perf's evsel__config_callchain() for dwarf */
			ev->attr.sample_regs_user = DWARF_REGS_MASK;
			ev->attr.sample_stack_user = rec->stack_size;
			ev->attr.exclude_callchain_user = 1;
		}
	}
	return 0;
}

/* ---- attribution ------------------------------------------------------ */

/* the module's history when asked for (or by auto with -a/-C) */
static int choose_attr(struct record *rec)
{
	int err;

	rec->attr = rec->attr_req;
	if (rec->attr == ATTR_TID)
		return 0;
	err = pebs_map__open(NULL, &rec->map);
	if (err) {
		if (rec->attr != ATTR_AUTO) {
			rec_err("%s", pebs_errmsg());
			return err;
		}
		rec->attr = ATTR_TID;
		rec->switch_baseline = rec->per_cpu;
		return 0;
	}
	if (rec->attr == ATTR_AUTO) {
		if (!rec->per_cpu) {
			pebs_map__close(rec->map);
			rec->map = NULL;
			rec->attr = ATTR_TID;
			return 0;
		}
		rec->attr = ATTR_MAP;
	}
	return 0;
}

static int new_attrib(struct record *rec)
{
	enum pebs_attrib_mode mode = rec->attr == ATTR_MAP ? PEBS_ATTRIB_MAP :
		rec->attr == ATTR_BOTH ? PEBS_ATTRIB_BOTH :
		rec->switch_baseline ? PEBS_ATTRIB_SWITCH : PEBS_ATTRIB_TID;
	int err;

	err = pebs_attrib__new(mode, rec->map,
			       (unsigned int)sysconf(_SC_NPROCESSORS_CONF),
			       &rec->attrib);
	if (err)
		rec_err("%s", pebs_errmsg());
	return err;
}

/* ---- the session ------------------------------------------------------ */

static unsigned int ev_of(struct record *rec, const struct pebs_channel *ch)
{
	const struct pebs_event *ev;

	if (ch == rec->last_ch)
		return rec->last_ev;
	ev = pebs_channel__event(ch);
	rec->last_ch = ch;
	rec->last_ev = 0;
	for (unsigned int i = 0; ev && i < rec->nr_evs; i++) {
		if (!strcmp(rec->evs[i].name, ev->name)) {
			rec->last_ev = i;
			break;
		}
	}
	return rec->last_ev;
}

/* a sample with its thread, from the attribution engine */
static int emit(void *ctx, unsigned int ev, const struct pebs_sample *s,
		const struct perf_event_header *raw,
		const struct pebs_attrib_who *who)
{
	struct record *rec = ctx;
	struct rec_who w = { who->tgid, who->tid };
	int err;

	err = rec_out_sample(rec->out, ev, &rec->attrs[ev], s, raw, &w);
	if (err)
		rec->write_err = err;
	else
		rec->csv_rows++;
	return err;
}

/* -v: each sample whose history entry names another thread, or none */
static void mismatch(void *ctx, uint32_t cpu, uint64_t time,
		     const struct pebs_attrib_who *sample,
		     const struct pebs_attrib_who *found)
{
	struct record *rec = ctx;
	const char *src = rec->map ? "map" : "switch";
	char a[PEBS_MAP_COMM_LEN + 1];

	if (!rec->verbose)
		return;
	snprintf(a, sizeof(a), "%s",
		 pebs_attrib__comm(rec->attrib, sample->tid, NULL));
	if (found)
		fprintf(stderr, "pebs-shim record: mismatch: cpu %u time %llu: sample tid %d (%s), %s tid %d (%s)\n",
			cpu, (unsigned long long)time, sample->tid, a, src,
			found->tid,
			pebs_attrib__comm(rec->attrib, found->tid, NULL));
	else
		fprintf(stderr, "pebs-shim record: unattributed: cpu %u time %llu: sample tid %d (%s), no %s entry\n",
			cpu, (unsigned long long)time, sample->tid, a, src);
}

static const struct pebs_attrib_cbs acbs = {
	.emit = emit,
	.mismatch = mismatch,
};

static int on_sample(void *ctx, struct pebs_channel *ch,
		     const struct pebs_sample *s,
		     const struct perf_event_header *raw)
{
	struct record *rec = ctx;

	rec->samples++;
	return pebs_attrib__sample(rec->attrib, ev_of(rec, ch), s, raw, &acbs,
				   rec);
}

static int on_record(void *ctx, struct pebs_channel *ch,
		     const struct perf_event_header *ev)
{
	struct record *rec = ctx;
	const struct perf_event_attr *attr = &rec->attrs[ev_of(rec, ch)];
	struct pebs_attrib_who who;
	struct rec_who w;

	if (ev->type == PERF_RECORD_THROTTLE)
		rec->throttles++;
	pebs_attrib__record(rec->attrib, ev, attr->sample_type, &who);
	w = (struct rec_who){ who.tgid, who.tid };
	return rec_out_record(rec->out, attr, ev, &w);
}

static void on_lost(void *ctx, struct pebs_channel *ch, uint64_t lost)
{
	struct record *rec = ctx;

	(void)ch;
	rec->lost += lost;
}

/*
 * perf's PERF_RECORD_LOST_SAMPLES: the samples the kernel dropped for a
 * channel (PERF_FORMAT_LOST), with a sample_id naming the channel
 */
static int write_lost(struct record *rec, struct pebs_channel *ch)
{
	const struct perf_event_attr *attr = pebs_channel__attr(ch);
	static const uint64_t id_bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	struct {
		struct perf_event_header h;
		uint64_t v[1 + 6];
	} r = { .h = { .type = PERF_RECORD_LOST_SAMPLES } };
	struct rec_who who = { 0, 0 };
	unsigned int n = 1;
	uint64_t id;

	if (pebs_channel__lost(ch, &r.v[0]) || !r.v[0])
		return 0;
	rec->lost_samples += r.v[0];
	pebs_channel__id(ch, &id);
	for (unsigned int i = 0; attr->sample_id_all && i < 6; i++)
		if (attr->sample_type & id_bits[i])
			r.v[n++] = id_bits[i] & (PERF_SAMPLE_ID |
						 PERF_SAMPLE_IDENTIFIER) ? id : 0;
	r.h.size = (uint16_t)(sizeof(r.h) + 8 * n);
	return rec_out_record(rec->out, attr, &r.h, &who);
}

/* the LOST_SAMPLES of @target's channels (-1: of all), before they go */
static int write_lost_of(struct record *rec, int target)
{
	bool cpu = rec->per_cpu;
	int err = 0;

	for (unsigned int i = 0; i < pebs_chanset__nr_channels(rec->set) &&
				 !err; i++) {
		struct pebs_channel *ch = pebs_chanset__channel(rec->set, i);

		if (target < 0 || (cpu ? pebs_channel__cpu(ch) :
				   pebs_channel__pid(ch)) == target)
			err = write_lost(rec, ch);
	}
	return err;
}

static void on_exit_target(void *ctx, int target)
{
	struct record *rec = ctx;
	int err = write_lost_of(rec, target);

	if (err && !rec->err) {
		rec_err("cannot write %s: %s", rec->output, strerror(-err));
		rec->err = err;
	}
	if (rec->targets_left)
		rec->targets_left--;
}

static const struct pebs_chanset_cbs cbs = {
	.on_sample = on_sample,
	.on_record = on_record,
	.on_lost = on_lost,
	.on_exit = on_exit_target,
};

/* the end of a pass over the rings: held samples out, checks done */
static int end_round(struct record *rec)
{
	int err = pebs_attrib__round(rec->attrib, &acbs, rec);

	if (err && !rec->write_err) {
		rec_err("%s", pebs_errmsg());
		return err;
	}
	if (!err)
		err = rec_out_round(rec->out);
	if (err && !rec->err)
		rec_err("cannot write %s: %s", rec->output, strerror(-err));
	return err;
}

static int synth_all(struct record *rec)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name);
		int err;

		if (pid <= 0)
			continue;
		err = rec_out_synth_process(rec->out, pid);
		if (err) {
			closedir(d);
			return err;
		}
		pebs_attrib__load_proc(rec->attrib, pid);
	}
	closedir(d);
	return 0;
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* CPUs, threads of -p, or -t threads: checked before anything starts */
static int parse_targets(struct record *rec)
{
	if (rec->cpu_list)
		return rec_parse_cpus(rec->cpu_list, &rec->targets);
	if (rec->all_cpus)
		return rec_online_cpus(&rec->targets);
	if (rec->pid_list)
		return rec_parse_pids(rec->pid_list, true, &rec->targets,
				      &rec->procs);
	if (rec->tid_list)
		return rec_parse_pids(rec->tid_list, false, &rec->targets,
				      &rec->procs);
	return 0;
}

/* ring pages per channel: -m, or a default that suits the target */
static unsigned int ring_pages(const struct record *rec)
{
	unsigned long rings;
	unsigned int pages = TASK_RING_PAGES;

	if (rec->pages)
		return rec->pages;
	if (rec->per_cpu)
		return CPU_RING_PAGES;
	if (rec->cmd || !(rec->tid_list || rec->no_inherit))
		return pages;
	rings = rec->targets.n;
	while (pages > 8 && rings * pages > TASK_RING_BUDGET)
		pages /= 2;
	return pages;
}

static int open_channels(struct record *rec)
{
	struct rec_ints *targets = &rec->targets;
	bool cmd_task = rec->cmd && !rec->per_cpu;
	uint64_t st0 = sample_type_of(rec, &rec->evs[0]);
	int err;

	/* one sample_type per set: the union of what the events need */
	for (unsigned int i = 1; i < rec->nr_evs; i++)
		st0 |= sample_type_of(rec, &rec->evs[i]);
	if (rec->data_addr)
		st0 |= PERF_SAMPLE_ADDR;
	/*
	 * -p: one channel per existing thread (from /proc/PID/task), each
	 * with inherit, so that threads created later are followed too; a
	 * per-process event (pid = tgid) would only count the main thread
	 * and its later children. Inherited events cannot be mapped with
	 * cpu -1, so the channel set opens each on every online CPU.
	 * -t: the threads alone, no inherit.
	 */
	PEBS_OPTS(pebs_channel_opts, opts,
		  .sample_type = st0,
		  .period = rec->period,
		  .freq = rec->freq,
		  .ring_pages = ring_pages(rec),
		  .inherit = !rec->per_cpu && !rec->tid_list &&
			     !rec->no_inherit,
		  .enable_on_exec = cmd_task,
		  /* enabled once the running processes are described */
		  .disabled = true,
		  .context_switch = rec->switch_baseline ||
				    rec->switch_events,
		  .task_records = true);

	err = pebs_chanset__new(rec->evs, rec->nr_evs,
				rec->per_cpu ? PEBS_TARGET_CPU :
					       PEBS_TARGET_TASK,
				&opts, &rec->set);
	if (err) {
		rec_err("%s", pebs_errmsg());
		return err;
	}
	if (rec->cmd) {
		err = rec_child_fork(rec->cmd, &rec->child);
		if (err)
			return err;
		if (cmd_task && rec_ints_push(targets, rec->child.pid))
			return -ENOMEM;
	}
	for (unsigned int i = 0; i < targets->n; i++) {
		err = pebs_chanset__add(rec->set, targets->v[i]);
		if (err == -ESRCH && rec->tid_list) {
			rec_err("thread %d exited: check the tid",
				targets->v[i]);
			return err;
		}
		/* a thread of -p that ended meanwhile is not an error */
		if (err == -ESRCH && rec->pid_list) {
			err = 0;
			continue;
		}
		if (err) {
			rec_err("cannot open events on %s %d: %s",
				rec->per_cpu ? "CPU" : "task", targets->v[i],
				pebs_errmsg());
			return err;
		}
		rec->targets_left++;
	}
	if (!pebs_chanset__nr_channels(rec->set)) {
		rec_err("no thread of %s is left: check the pid",
			rec->pid_list);
		return -ESRCH;
	}
	/* the attr of each event as opened */
	for (unsigned int i = 0; i < pebs_chanset__nr_channels(rec->set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(rec->set, i);

		rec->attrs[ev_of(rec, ch)] = *pebs_channel__attr(ch);
	}
	if (rec->verbose) {
		for (unsigned int i = 0; i < rec->nr_evs; i++) {
			const struct perf_event_attr *a = &rec->attrs[i];
			const char *why = NULL;
			bool large = pebs_attr_large_pebs(a, &why);

			fprintf(stderr, "pebs-shim record: event %s = %s (pmu %s, type %u, config %#llx, %s %llu, sample_type %#llx, precise_ip %u%s%s)\n",
				rec->evs[i].name, rec->evs[i].resolved,
				rec->evs[i].pmu, a->type,
				(unsigned long long)a->config,
				a->freq ? "freq" : "period",
				(unsigned long long)a->sample_period,
				(unsigned long long)a->sample_type,
				a->precise_ip,
				(rec->evs[i].flags & PEBS_EVENT_PRECISE) ?
				(large ? ", large PEBS" : ", no large PEBS: ") : "",
				(rec->evs[i].flags & PEBS_EVENT_PRECISE) &&
				!large && why ? why : "");
		}
		fprintf(stderr, "pebs-shim record: %u channels on %u %s, %u rings of %u pages\n",
			pebs_chanset__nr_channels(rec->set),
			pebs_chanset__nr_targets(rec->set),
			rec->per_cpu ? "CPUs" : "tasks",
			pebs_chanset__nr_rings(rec->set), ring_pages(rec));
	}
	return 0;
}

/* MB in the output file so far (or at the end); 0 for a pipe */
static double output_mb(const struct record *rec)
{
	struct stat st;

	if (stat(rec->output, &st) || !S_ISREG(st.st_mode))
		return 0;
	return (double)st.st_size / (1024.0 * 1024.0);
}

static void status_line(const struct record *rec, uint64_t t0, uint64_t now,
			uint64_t *last_t, uint64_t *last_n)
{
	double el = (double)(now - t0) / 1e9;
	double dt = (double)(now - *last_t) / 1e9;

	fprintf(stderr, "\r\033[K[ %.1f s ] %llu samples, %.0f/s, %llu lost, %.3f MB written",
		el, (unsigned long long)rec->samples,
		dt > 0 ? (double)(rec->samples - *last_n) / dt : 0.0,
		(unsigned long long)rec->lost, output_mb(rec));
	*last_t = now;
	*last_n = rec->samples;
}

static bool procs_gone(const struct record *rec)
{
	for (unsigned int i = 0; i < rec->procs.n; i++)
		if (kill(rec->procs.v[i], 0) == 0 || errno != ESRCH)
			return false;
	return rec->procs.n > 0;
}

static void summary(const struct record *rec, int child_status)
{
	const struct pebs_attrib_stats *st = pebs_attrib__stats(rec->attrib);
	uint64_t n = rec->written;
	uint64_t checked = st->agree + st->disagree + st->unattributed;
	char pct[16] = "n/a";

	if (checked)
		snprintf(pct, sizeof(pct), "%.3f %%",
			 100.0 * (double)st->agree / (double)checked);

	/* perf record's end summary, then which attribution and its rate */
	fprintf(stderr, "[ pebs-shim record: Woken up %llu times to write data ]\n",
		(unsigned long long)rec->wakeups);
	fprintf(stderr, "[ pebs-shim record: Captured and wrote %.3f MB %s (%llu samples) ]\n",
		output_mb(rec), rec->output, (unsigned long long)n);

	fprintf(stderr, "pebs-shim record: %llu samples written to %s, %llu lost, %llu throttle events; attribution: ",
		(unsigned long long)n, rec->output,
		(unsigned long long)rec->lost,
		(unsigned long long)rec->throttles);
	if (rec->attr == ATTR_MAP)
		fprintf(stderr, "/dev/pebs_map switch history (%llu of %llu samples attributed, %llu history entries overrun)",
			(unsigned long long)(st->samples - st->unattributed),
			(unsigned long long)st->samples,
			(unsigned long long)st->history_lost);
	else if (rec->attr == ATTR_BOTH)
		fprintf(stderr, "sample TID, /dev/pebs_map agrees on %s (%llu of %llu; %llu differ, %llu unattributed)",
			pct, (unsigned long long)st->agree,
			(unsigned long long)checked,
			(unsigned long long)st->disagree,
			(unsigned long long)st->unattributed);
	else if (rec->switch_baseline)
		fprintf(stderr, "sample TID (no /dev/pebs_map; PERF_RECORD_SWITCH_CPU_WIDE baseline agrees on %s: %llu of %llu, %llu differ, %llu unattributed)",
			pct, (unsigned long long)st->agree,
			(unsigned long long)checked,
			(unsigned long long)st->disagree,
			(unsigned long long)st->unattributed);
	else
		fputs("sample TID", stderr);
	if (child_status > 128)
		fprintf(stderr, "; %s by signal %d", stop_sig ?
			"recording stopped" : "command killed",
			child_status - 128);
	else if (child_status > 0)
		fprintf(stderr, "; command exited with status %d",
			child_status);
	fputc('\n', stderr);
}

/* the command line in the header, with the attribution actually used */
static int store_cmdline(struct record *rec, int argc, char **argv)
{
	const char **av = calloc((size_t)argc + 3, sizeof(*av));
	char mode[32];
	int n = 0, err;

	if (!av)
		return -ENOMEM;
	av[n++] = "pebs-shim";
	for (int i = 0; i < argc; i++)
		av[n++] = argv[i];
	if (rec->attr_req == ATTR_AUTO) {
		snprintf(mode, sizeof(mode), "--attribution=%s",
			 attr_names[rec->attr]);
		av[n++] = mode;
	}
	err = rec_out_cmdline(rec->out, n, av);
	free(av);
	return err;
}

static int run(struct record *rec)
{
	bool tty = !rec->quiet && isatty(STDERR_FILENO);
	uint64_t t0 = now_ns(), last_t = t0, last_n = 0;
	uint64_t end = rec->duration > 0 ?
		       t0 + (uint64_t)(rec->duration * 1e9) : UINT64_MAX;
	bool child_running = rec->cmd != NULL;
	int child_status = 0, status = 0, n;

	while (!stop_sig && !rec->err) {
		uint64_t now = now_ns();
		int timeout = POLL_MS;

		if (now >= end)
			break;
		if (end - now < (uint64_t)POLL_MS * 1000000)
			timeout = (int)((end - now) / 1000000) + 1;
		/*
		 * wait for a ring to fill, then read every ring: a round
		 * covers all of them (perf's FINISHED_ROUND promise)
		 */
		n = pebs_chanset__poll(rec->set, timeout, &cbs, rec);
		if (n > 0)
			rec->wakeups++;
		if (n >= 0 || n == -EINTR)
			n = pebs_chanset__drain(rec->set, &cbs, rec);
		if (n < 0) {
			rec_err("reading the rings failed: %s",
				n == -ENOMEM ? "out of memory" : pebs_errmsg());
			rec->err = n;
			break;
		}
		if (end_round(rec)) {
			rec->err = -EIO;
			break;
		}
		if (child_running && child_sig) {
			child_sig = 0;
			if (waitpid(rec->child.pid, &status, WNOHANG) ==
			    rec->child.pid) {
				child_running = false;
				break;
			}
		}
		if (!rec->cmd && (procs_gone(rec) ||
				  (!rec->per_cpu && !rec->targets_left)))
			break;
		now = now_ns();
		if (tty && now - last_t >= STATUS_NS)
			status_line(rec, t0, now, &last_t, &last_n);
	}
	pebs_chanset__disable(rec->set);
	if (child_running) {
		kill(rec->child.pid, SIGTERM);
		while (waitpid(rec->child.pid, &status, 0) < 0 &&
		       errno == EINTR)
			;
	}
	/*
	 * time(1)'s rule: the command's status, 128+N for a signal; a
	 * recording stopped by a signal says so the same way (perf
	 * re-raises it). A command ended by --duration is not a failure.
	 */
	if (stop_sig)
		child_status = 128 + stop_sig;
	else if (rec->cmd && WIFEXITED(status))
		child_status = WEXITSTATUS(status);
	else if (rec->cmd && WIFSIGNALED(status) &&
		 !(child_running && WTERMSIG(status) == SIGTERM))
		child_status = 128 + WTERMSIG(status);
	n = pebs_chanset__drain(rec->set, &cbs, rec);
	if (n < 0 && !rec->err) {
		rec_err("reading the rings failed: %s", pebs_errmsg());
		rec->err = n;
	}
	if (end_round(rec) && !rec->err)
		rec->err = -EIO;
	n = write_lost_of(rec, -1);
	if (n && !rec->err) {
		rec_err("cannot write %s: %s", rec->output, strerror(-n));
		rec->err = n;
	}
	if (tty)
		fputs("\r\033[K", stderr);
	return child_status;
}

int cmd_record(int argc, char **argv)
{
	struct record rec = { .child = { .pid = -1, .go_fd = -1,
					 .err_fd = -1 } };
	struct sigaction sa = { .sa_handler = on_signal };
	int ret = REC_EXIT_SETUP, err, child_status;

	err = parse_args(&rec, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (parse_events(&rec))
		return REC_EXIT_USAGE;
	err = parse_targets(&rec);
	if (err) {
		ret = err == -EINVAL || err == -ESRCH ? REC_EXIT_USAGE :
			REC_EXIT_SETUP;
		goto out;
	}
	if (choose_attr(&rec))
		goto out;
	if (new_attrib(&rec))
		goto out;
	{
		struct rec_out_conf conf = {
			.format = rec.format, .path = rec.output,
			.evs = rec.evs, .nr_evs = rec.nr_evs,
			.add_tid = rec.attr == ATTR_MAP,
			.comms = rec.attrib,
		};

		if (rec_out_open(&conf, &rec.out))
			goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	if (open_channels(&rec))
		goto out_discard;
	if (rec_out_start(rec.out, rec.set, rec.attrs))
		goto out_discard;
	if (store_cmdline(&rec, argc, argv)) {
		rec_err("out of memory");
		goto out_discard;
	}
	if (rec.per_cpu) {
		if (synth_all(&rec))
			goto out_discard;
	} else if (!rec.cmd) {
		for (unsigned int i = 0; i < rec.procs.n; i++) {
			pid_t pid = tgid_of(rec.procs.v[i]);

			if (rec_out_synth_process(rec.out, pid))
				goto out_discard;
			pebs_attrib__load_proc(rec.attrib, pid);
		}
	}
	/* a command's channels start at its exec (enable_on_exec) */
	if ((rec.per_cpu || !rec.cmd) && pebs_chanset__enable(rec.set)) {
		rec_err("cannot enable the events: %s", pebs_errmsg());
		goto out_discard;
	}
	if (rec.cmd) {
		err = rec_child_go(&rec.child);
		if (err) {
			ret = err == -ENOENT ? REC_EXIT_NOTFOUND :
					       REC_EXIT_NOEXEC;
			goto out_discard;
		}
	}
	/* once recording surely runs: which source `auto` chose */
	for (unsigned int i = 0; i < rec.nr_evs && !rec.quiet; i++)
		if (rec.evs[i].note[0])
			rec_err("%s", rec.evs[i].note);
	child_status = run(&rec);
	rec.written = rec_out_samples(rec.out, rec.csv_rows);
	err = rec_out_close(rec.out);
	rec.out = NULL;
	if (err || rec.err) {
		ret = REC_EXIT_RUNTIME;
		goto out;
	}
	if (!rec.quiet)
		summary(&rec, child_status);
	ret = child_status;
	goto out;

out_discard:
	rec_child_abort(&rec.child);
	rec_out_discard(rec.out);
	rec.out = NULL;
out:
	pebs_chanset__delete(rec.set);
	pebs_attrib__delete(rec.attrib);
	pebs_map__close(rec.map);
	rec_ints_free(&rec.targets);
	rec_ints_free(&rec.procs);
	return ret;
}
