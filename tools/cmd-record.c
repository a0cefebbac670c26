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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "record.h"

#define POLL_MS		100	/* poll round: bounds the map history lag */
#define STATUS_NS	250000000ull
/* per-CPU rings see every task: 1 MiB each unless -m says otherwise */
#define CPU_RING_PAGES	256
/*
 * -p opens a ring per thread per CPU per event: without -m their pages
 * shrink (to 8 at least) to keep all rings within this many pages
 */
#define TASK_RING_BUDGET	16384
/* default period of cpu-clock/task-clock: 250 us, perf's 4 kHz */
#define CLOCK_PERIOD_NS	250000

enum attr_mode { ATTR_AUTO, ATTR_TID, ATTR_MAP, ATTR_BOTH };

static const char *const attr_names[] = {
	[ATTR_AUTO] = "auto", [ATTR_TID] = "tid", [ATTR_MAP] = "map",
	[ATTR_BOTH] = "both",
};

/* one sample held until the switch history covers its time */
struct held {
	unsigned int ev;
	uint32_t raw_off;
	struct pebs_sample s;
};

/* (cpu, time, who) of a sample to check against a switch history */
struct check {
	uint64_t time;
	uint32_t cpu;
	struct rec_who who;
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
	struct pebs_timeline *tl;
	struct pebs_timeline *sw;
	struct rec_comms *comms;
	struct rec_out *out;
	struct pebs_chanset *set;
	struct rec_child child;
	struct rec_ints targets;	/* CPUs, or pids/tids to open */
	struct rec_ints procs;		/* -p processes, to see them end */
	unsigned int targets_left;

	/* channel -> event index cache */
	const struct pebs_channel *last_ch;
	unsigned int last_ev;

	/* samples of this round (map attribution) */
	struct held *held;
	size_t nr_held, cap_held;
	char *raw;
	size_t raw_len, raw_cap;
	/* samples to check against a switch history (both, baseline) */
	struct check *chk;
	size_t nr_chk, cap_chk;

	/* counts */
	uint64_t samples, csv_rows, written, lost, throttles;
	uint64_t agree, disagree, unattributed;
	int err;
};

static volatile sig_atomic_t stop_sig, child_sig;

void rec_err(const char *fmt, ...)
{
	va_list ap;

	fputs("pebs-shim record: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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
"  -m, --mmap-pages=PAGES ring data pages per channel, a power of two\n"
"                         (default %u with -a/-C, else %u; with -p less\n"
"                         when threads x CPUs x events exceed %u rings)\n"
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
"  -d, --duration=S       stop after S seconds (also: the command's exit,\n"
"                         SIGINT, SIGTERM; every way drains the rings\n"
"                         and finishes the file)\n"
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
"  -v, --verbose          more detail (events, channels, mismatches)\n"
"  -h, --help             this help\n"
"\n"
"At the end one line says: samples written, samples lost, throttle\n"
"events, and the attribution used. On a terminal a status line shows\n"
"progress. Exit status: 0 success, 1 runtime error, 2 usage error.\n",
		PEBS_CHANNEL_DEF_PERIOD, CPU_RING_PAGES, PEBS_CHANNEL_DEF_PAGES,
		TASK_RING_BUDGET / PEBS_CHANNEL_DEF_PAGES);
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

static int parse_args(struct record *rec, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "duration", required_argument, NULL, 'd' },
		{ "attr", required_argument, NULL, 'A' },
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

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:c:F:m:o:d:vaC:p:t:h",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (rec->nr_evs == REC_MAX_EVENTS) {
				rec_err("too many events: give at most %d",
					REC_MAX_EVENTS);
				return 2;
			}
			rec->evstrs[rec->nr_evs++] = optarg;
			break;
		case 'c':
			if (!parse_u64(optarg, &v) || !v) {
				rec_err("bad period '%s': give a positive number of events (e.g. -c 10000)",
					optarg);
				return 2;
			}
			rec->period = v;
			break;
		case 'F':
			if (!parse_u64(optarg, &v) || !v) {
				rec_err("bad frequency '%s': give a positive number of samples per second (e.g. -F 1000)",
					optarg);
				return 2;
			}
			rec->freq = v;
			break;
		case 'm':
			if (!parse_u64(optarg, &v) || !v || (v & (v - 1)) ||
			    v > (1u << 20)) {
				rec_err("bad page count '%s': give a power of two (e.g. -m 64)",
					optarg);
				return 2;
			}
			rec->pages = (unsigned int)v;
			break;
		case 'o':
			rec->output = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "perf")) {
				rec->format = REC_FMT_PERF;
			} else if (!strcmp(optarg, "csv")) {
				rec->format = REC_FMT_CSV;
			} else {
				rec_err("unknown format '%s': use perf or csv",
					optarg);
				return 2;
			}
			break;
		case 'd':
			errno = 0;
			rec->duration = strtod(optarg, &end);
			if (errno || *end || !(rec->duration > 0) ||
			    !isfinite(rec->duration)) {
				rec_err("bad duration '%s': give seconds > 0 (e.g. --duration 2.5)",
					optarg);
				return 2;
			}
			break;
		case 'A':
			for (c = 0; c < 4; c++)
				if (!strcmp(optarg, attr_names[c]))
					break;
			if (c == 4) {
				rec_err("unknown attribution '%s': use auto, tid, map or both",
					optarg);
				return 2;
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
			return 2;
		default:
			rec_err("unknown option '%s': see pebs-shim record --help",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc)
		rec->cmd = &argv[optind];
	if (rec->period && rec->freq) {
		rec_err("-c and -F together: give either a period or a frequency");
		return 2;
	}
	if (rec->all_cpus && rec->cpu_list) {
		rec_err("-a and -C together: -a already means every CPU");
		return 2;
	}
	rec->per_cpu = rec->all_cpus || rec->cpu_list;
	c = !!rec->pid_list + !!rec->tid_list + rec->per_cpu;
	if (c > 1 || (c && !rec->per_cpu && rec->cmd)) {
		rec_err("more than one target: give one of -- COMMAND, -p, -t, -a, -C");
		return 2;
	}
	if (!c && !rec->cmd) {
		rec_err("nothing to record: give -- COMMAND, -p PID, -t TID, -a or -C LIST");
		return 2;
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
	/*
	 * with an address, a data source as perf record -d samples it (the
	 * kernel reports "not available" for software events): perf mem
	 * and perf c2c need the field
	 */
	if (st & PERF_SAMPLE_ADDR)
		st |= PERF_SAMPLE_DATA_SRC;
	if (rec->freq)
		st |= PERF_SAMPLE_PERIOD;
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
	}
	return 0;
}

/* ---- attribution ------------------------------------------------------ */

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
	err = pebs_timeline__new(rec->map, &rec->tl);
	if (!err)
		err = pebs_timeline__update(rec->tl);
	if (err < 0) {
		rec_err("%s", pebs_errmsg());
		return err;
	}
	return 0;
}

/* who ran on @cpu at @time, from the map's or the switch records' timeline */
static bool lookup_tl(const struct pebs_timeline *tl, uint32_t cpu,
		      uint64_t time, struct rec_who *who)
{
	struct pebs_map_switch sw;

	if (pebs_timeline__lookup(tl, cpu, time, &sw))
		return false;
	who->tgid = sw.tgid;
	who->tid = sw.pid;
	return true;
}

static void check_one(struct record *rec, const struct check *c)
{
	struct rec_who other;
	bool found;

	found = lookup_tl(rec->tl ? rec->tl : rec->sw, c->cpu, c->time,
			  &other);
	if (found && other.tid == c->who.tid) {
		rec->agree++;
		return;
	}
	if (found)
		rec->disagree++;
	else
		rec->unattributed++;
	if (rec->verbose) {
		char a[PEBS_MAP_COMM_LEN + 1];

		snprintf(a, sizeof(a), "%s", rec_comms_get(rec->comms,
							   c->who.tid, NULL));
		if (found)
			fprintf(stderr, "pebs-shim record: mismatch: cpu %u time %llu: sample tid %d (%s), %s tid %d (%s)\n",
				c->cpu, (unsigned long long)c->time, c->who.tid,
				a, rec->tl ? "map" : "switch", other.tid,
				rec_comms_get(rec->comms, other.tid, NULL));
		else
			fprintf(stderr, "pebs-shim record: unattributed: cpu %u time %llu: sample tid %d (%s), no %s entry\n",
				c->cpu, (unsigned long long)c->time, c->who.tid,
				a, rec->tl ? "map" : "switch");
	}
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

static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t cap2;
	void *p;

	if (need <= *cap)
		return 0;
	cap2 = *cap ? *cap : 256;
	while (cap2 < need)
		cap2 *= 2;
	p = realloc(*v, cap2 * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = cap2;
	return 0;
}

static int hold_check(struct record *rec, const struct pebs_sample *s)
{
	if (grow((void **)&rec->chk, &rec->cap_chk, rec->nr_chk + 1,
		 sizeof(*rec->chk)))
		return -ENOMEM;
	rec->chk[rec->nr_chk++] = (struct check){
		.time = s->time, .cpu = s->cpu,
		.who = { .tgid = (int32_t)s->pid, .tid = (int32_t)s->tid },
	};
	return 0;
}

static int on_sample(void *ctx, struct pebs_channel *ch,
		     const struct pebs_sample *s,
		     const struct perf_event_header *raw)
{
	struct record *rec = ctx;
	unsigned int e = ev_of(rec, ch);
	struct rec_who who;
	int err;

	rec->samples++;
	if (rec->attr == ATTR_MAP) {
		/* attributed after the round, when the history covers it */
		if (grow((void **)&rec->held, &rec->cap_held, rec->nr_held + 1,
			 sizeof(*rec->held)) ||
		    grow((void **)&rec->raw, &rec->raw_cap,
			 rec->raw_len + raw->size, 1))
			return -ENOMEM;
		memcpy(rec->raw + rec->raw_len, raw, raw->size);
		rec->held[rec->nr_held++] = (struct held){
			.ev = e, .raw_off = (uint32_t)rec->raw_len, .s = *s,
		};
		rec->raw_len += raw->size;
		return 0;
	}
	who.tgid = (int32_t)s->pid;
	who.tid = (int32_t)s->tid;
	if ((rec->attr == ATTR_BOTH || rec->switch_baseline) &&
	    (err = hold_check(rec, s)))
		return err;
	err = rec_out_sample(rec->out, e, &rec->attrs[e], s, raw, &who);
	if (!err)
		rec->csv_rows++;
	return err;
}

/*
 * A PERF_RECORD_SWITCH_CPU_WIDE into the baseline timeline: a switch-in
 * of (pid, tid) at its time; a switch-out before any switch-in on that
 * CPU tells who ran since the start.
 */
static void add_switch(struct pebs_timeline *sw,
		       const struct perf_event_header *ev,
		       const struct pebs_sample *id)
{
	bool out = ev->misc & PERF_RECORD_MISC_SWITCH_OUT;
	struct pebs_map_switch in = { out ? 0 : id->time, (int32_t)id->pid,
				      (int32_t)id->tid };
	struct pebs_map_switch seen;

	if (!out || pebs_timeline__lookup(sw, id->cpu, UINT64_MAX, &seen))
		pebs_timeline__add(sw, id->cpu, &in);
}

static int on_record(void *ctx, struct pebs_channel *ch,
		     const struct perf_event_header *ev)
{
	struct record *rec = ctx;
	unsigned int e = ev_of(rec, ch);
	const struct perf_event_attr *attr = &rec->attrs[e];
	const uint32_t *body = (const uint32_t *)(ev + 1);
	struct rec_who who = { 0, 0 };
	struct pebs_sample id;

	switch (ev->type) {
	case PERF_RECORD_COMM:
		rec_comms_set(rec->comms, (int32_t)body[0], (int32_t)body[1],
			      (const char *)&body[2]);
		who = (struct rec_who){ (int32_t)body[0], (int32_t)body[1] };
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		who = (struct rec_who){ (int32_t)body[0], (int32_t)body[1] };
		break;
	case PERF_RECORD_FORK:
		/* pid, ppid, tid, ptid */
		rec_comms_fork(rec->comms, (int32_t)body[0], (int32_t)body[2],
			       (int32_t)body[3]);
		/* fall through */
	case PERF_RECORD_EXIT:
		who = (struct rec_who){ (int32_t)body[0], (int32_t)body[2] };
		break;
	case PERF_RECORD_THROTTLE:
		rec->throttles++;
		/* fall through */
	default:
		if (pebs_sample__parse_id(ev, attr->sample_type, &id))
			break;
		if (ev->type == PERF_RECORD_SWITCH_CPU_WIDE && rec->sw)
			add_switch(rec->sw, ev, &id);
		if (rec->attr == ATTR_MAP &&
		    (id.present & (PERF_SAMPLE_CPU | PERF_SAMPLE_TIME)) ==
		    (PERF_SAMPLE_CPU | PERF_SAMPLE_TIME))
			lookup_tl(rec->tl, id.cpu, id.time, &who);
		break;
	}
	return rec_out_record(rec->out, attr, ev, &who);
}

static void on_lost(void *ctx, struct pebs_channel *ch, uint64_t lost)
{
	struct record *rec = ctx;

	(void)ch;
	rec->lost += lost;
}

static void on_exit_target(void *ctx, int target)
{
	struct record *rec = ctx;

	(void)target;
	if (rec->targets_left)
		rec->targets_left--;
}

static const struct pebs_chanset_cbs cbs = {
	.on_sample = on_sample,
	.on_record = on_record,
	.on_lost = on_lost,
	.on_exit = on_exit_target,
};

/*
 * The table's comm of the thread running on each CPU now: names threads
 * that neither a COMM record nor /proc (once they exit) would name.
 */
static void comms_from_map(struct record *rec)
{
	struct pebs_map_snapshot snap;

	for (unsigned int cpu = 0; cpu < pebs_map__nr_cpus(rec->map); cpu++) {
		if (pebs_map__read_slot(rec->map, cpu, &snap) || snap.pid <= 0 ||
		    rec_comms_known(rec->comms, snap.pid))
			continue;
		snap.comm[sizeof(snap.comm) - 1] = '\0';
		rec_comms_set(rec->comms, snap.tgid, snap.pid, snap.comm);
	}
}

/* the end of a pass over the rings: attribute and check held samples */
static int end_round(struct record *rec)
{
	int err = 0;

	if (rec->tl && pebs_timeline__update(rec->tl) < 0) {
		rec_err("cannot read the switch history: %s", pebs_errmsg());
		return -EIO;
	}
	if (rec->tl)
		comms_from_map(rec);
	for (size_t i = 0; i < rec->nr_held && !err; i++) {
		struct held *h = &rec->held[i];
		struct rec_who who = { -1, -1 };

		if (!lookup_tl(rec->tl, h->s.cpu, h->s.time, &who))
			rec->unattributed++;
		err = rec_out_sample(rec->out, h->ev, &rec->attrs[h->ev], &h->s,
				     (const struct perf_event_header *)
				     (rec->raw + h->raw_off), &who);
		if (!err)
			rec->csv_rows++;
	}
	rec->nr_held = 0;
	rec->raw_len = 0;
	for (size_t i = 0; i < rec->nr_chk; i++)
		check_one(rec, &rec->chk[i]);
	rec->nr_chk = 0;
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
		rec_comms_load_proc(rec->comms, pid);
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
	unsigned int pages = PEBS_CHANNEL_DEF_PAGES;

	if (rec->pages)
		return rec->pages;
	if (rec->per_cpu)
		return CPU_RING_PAGES;
	if (!rec->pid_list)
		return pages;
	rings = (unsigned long)rec->targets.n * rec->nr_evs *
		(unsigned long)sysconf(_SC_NPROCESSORS_ONLN);
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
		  .inherit = !rec->per_cpu && !rec->tid_list,
		  .enable_on_exec = cmd_task,
		  /* enabled once the running processes are described */
		  .disabled = true,
		  .context_switch = rec->switch_baseline,
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
		fprintf(stderr, "pebs-shim record: %u channels on %u %s, rings of %u pages\n",
			pebs_chanset__nr_channels(rec->set),
			pebs_chanset__nr_targets(rec->set),
			rec->per_cpu ? "CPUs" : "tasks", ring_pages(rec));
	}
	return 0;
}

static void status_line(const struct record *rec, uint64_t t0, uint64_t now,
			uint64_t *last_t, uint64_t *last_n)
{
	double el = (double)(now - t0) / 1e9;
	double dt = (double)(now - *last_t) / 1e9;

	fprintf(stderr, "\r\033[K[ %.1f s ] %llu samples, %.0f/s, %llu lost",
		el, (unsigned long long)rec->samples,
		dt > 0 ? (double)(rec->samples - *last_n) / dt : 0.0,
		(unsigned long long)rec->lost);
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
	uint64_t n = rec->written;
	uint64_t checked = rec->agree + rec->disagree + rec->unattributed;
	char pct[16] = "n/a";

	if (checked)
		snprintf(pct, sizeof(pct), "%.3f %%",
			 100.0 * (double)rec->agree / (double)checked);

	fprintf(stderr, "pebs-shim record: %llu samples written to %s, %llu lost, %llu throttle events; attribution: ",
		(unsigned long long)n, rec->output,
		(unsigned long long)rec->lost,
		(unsigned long long)rec->throttles);
	if (rec->attr == ATTR_MAP)
		fprintf(stderr, "/dev/pebs_map switch history (%llu of %llu samples attributed, %llu history entries overrun)",
			(unsigned long long)(rec->samples - rec->unattributed),
			(unsigned long long)rec->samples,
			(unsigned long long)pebs_timeline__lost(rec->tl));
	else if (rec->attr == ATTR_BOTH)
		fprintf(stderr, "sample TID, /dev/pebs_map agrees on %s (%llu of %llu; %llu differ, %llu unattributed)",
			pct, (unsigned long long)rec->agree,
			(unsigned long long)checked,
			(unsigned long long)rec->disagree,
			(unsigned long long)rec->unattributed);
	else if (rec->switch_baseline)
		fprintf(stderr, "sample TID (no /dev/pebs_map; PERF_RECORD_SWITCH_CPU_WIDE baseline agrees on %s: %llu of %llu, %llu differ, %llu unattributed)",
			pct, (unsigned long long)rec->agree,
			(unsigned long long)checked,
			(unsigned long long)rec->disagree,
			(unsigned long long)rec->unattributed);
	else
		fputs("sample TID", stderr);
	if (child_status > 0)
		fprintf(stderr, "; command exited with status %d", child_status);
	else if (child_status < 0)
		fprintf(stderr, "; command killed by signal %d", -child_status);
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
	bool tty = isatty(STDERR_FILENO);
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
	if (rec->cmd) {
		if (WIFEXITED(status))
			child_status = WEXITSTATUS(status);
		else if (WIFSIGNALED(status) &&
			 !(child_running && WTERMSIG(status) == SIGTERM))
			child_status = -WTERMSIG(status);
	}
	n = pebs_chanset__drain(rec->set, &cbs, rec);
	if (n < 0 && !rec->err) {
		rec_err("reading the rings failed: %s", pebs_errmsg());
		rec->err = n;
	}
	if (end_round(rec) && !rec->err)
		rec->err = -EIO;
	if (tty)
		fputs("\r\033[K", stderr);
	return child_status;
}

int cmd_record(int argc, char **argv)
{
	struct record rec = { .child = { .pid = -1, .go_fd = -1,
					 .err_fd = -1 } };
	struct sigaction sa = { .sa_handler = on_signal };
	int ret = 1, err, child_status;

	err = parse_args(&rec, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (parse_events(&rec))
		return 2;
	err = parse_targets(&rec);
	if (err) {
		ret = err == -EINVAL ? 2 : 1;
		goto out;
	}
	if (choose_attr(&rec))
		goto out;
	if (rec_comms_new(&rec.comms))
		goto out_nomem;
	if (rec.switch_baseline &&
	    pebs_timeline__new_empty((unsigned int)sysconf(_SC_NPROCESSORS_CONF),
				     &rec.sw))
		goto out_nomem;
	{
		struct rec_out_conf conf = {
			.format = rec.format, .path = rec.output,
			.evs = rec.evs, .nr_evs = rec.nr_evs,
			.add_tid = rec.attr == ATTR_MAP,
			.comms = rec.comms,
		};

		if (rec_out_open(&conf, &rec.out))
			goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
			rec_comms_load_proc(rec.comms, pid);
		}
	}
	/* a command's channels start at its exec (enable_on_exec) */
	if ((rec.per_cpu || !rec.cmd) && pebs_chanset__enable(rec.set)) {
		rec_err("cannot enable the events: %s", pebs_errmsg());
		goto out_discard;
	}
	if (rec.cmd && rec_child_go(&rec.child))
		goto out_discard;
	/* once recording surely runs: which source `auto` chose */
	for (unsigned int i = 0; i < rec.nr_evs; i++)
		if (rec.evs[i].note[0])
			rec_err("%s", rec.evs[i].note);
	child_status = run(&rec);
	rec.written = rec_out_samples(rec.out, rec.csv_rows);
	err = rec_out_close(rec.out);
	rec.out = NULL;
	if (!err && !rec.err) {
		summary(&rec, child_status);
		ret = 0;
	}
	goto out;

out_nomem:
	rec_err("out of memory");
	goto out;
out_discard:
	rec_child_abort(&rec.child);
	rec_out_discard(rec.out);
	rec.out = NULL;
out:
	pebs_chanset__delete(rec.set);
	pebs_timeline__delete(rec.tl);
	pebs_map__close(rec.map);
	pebs_timeline__delete(rec.sw);
	rec_comms_delete(rec.comms);
	rec_ints_free(&rec.targets);
	rec_ints_free(&rec.procs);
	free(rec.held);
	free(rec.raw);
	free(rec.chk);
	return ret;
}
