// SPDX-License-Identifier: MIT
/*
 * record-opts.c - the options of `pebs-shim record`: perf record's
 * letters with perf's meanings, pebs-shim's own options long only.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

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
"                         perf's names (cpu-clock, page-faults, cycles,\n"
"                         L1-dcache-load-misses), rNNNN, sys:name\n"
"                         tracepoints, PMU terms (cpu/event=0xd0,umask=0x81/pp,\n"
"                         ibs_op//), the aliases loads, stores, ldlat[=N],\n"
"                         perf's modifiers (:u :k :pp ...), comma lists\n"
"                         (a,b) and groups ({a,b}, opened as perf's groups)\n"
"  -c, --count=PERIOD     sample every PERIOD events (fixed period: lets\n"
"                         the CPU batch PEBS records). Default: the\n"
"                         event's :period=N, 250000 ns for cpu-clock and\n"
"                         task-clock, else %u\n"
"  -F, --freq=FREQ        about FREQ samples per second instead\n"
"      --budget=PCT[%%]    keep the estimated cost of sampling under PCT %%\n"
"                         of the sampled CPU time: each event's cost per\n"
"                         sample is measured at the start, its period then\n"
"                         follows its rate (-c: the smallest period, -F:\n"
"                         the highest rate; at least %u samples/s per\n"
"                         event); every sample carries its period\n"
"      --recalibrate      measure the costs again (else those kept for\n"
"                         this machine and boot in $XDG_CACHE_HOME or\n"
"                         ~/.cache/pebs-shim/budget-costs)\n"
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
"  -W, --weight           sample the weight (PERF_SAMPLE_WEIGHT_STRUCT: the\n"
"                         load latency of PEBS, the latency of IBS)\n"
"      --phys-data        sample physical data addresses (PHYS_ADDR)\n"
"      --data-page-size   sample the data address' page size\n"
"      --all-user         every event counts user space only (perf's)\n"
"      --all-kernel       every event counts the kernel only (perf's)\n"
"  -g                     callchains by frame pointers (--call-graph fp)\n"
"      --call-graph=fp|dwarf[,SIZE]\n"
"                         fp: kernel-walked callchains; dwarf: user\n"
"                         registers and SIZE bytes of user stack (default\n"
"                         %u) per sample, unwound by report and script\n"
"  -T, --timestamp, --sample-cpu\n"
"                         accepted for perf: samples always carry the\n"
"                         time and the CPU\n"
"      --switch-events    record context switches (PERF_RECORD_SWITCH)\n"
"  -i, --no-inherit       do not follow threads and children created\n"
"                         after the start\n"
"      --objects[=all|BYTES]\n"
"                         data objects: preload libpebsshim-objects.so into\n"
"                         the command to record its heap and anonymous\n"
"                         mmap allocations (address, size, thread, time,\n"
"                         stack) as samples of the events pebs-shim:alloc\n"
"                         and pebs-shim:free; allocations of 64 KiB or\n"
"                         more always, smaller ones sampled by bytes (mean\n"
"                         interval BYTES, K, M or G, default 512K;\n"
"                         reweighted); =all: every one.\n"
"                         Times in CLOCK_MONOTONIC (perf's -k)\n"
"  -N, --no-buildid-cache  do not keep the recorded files and the vdso\n"
"                         in perf's build-id cache (~/.debug), where\n"
"                         report finds them once the files change\n"
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
"      --no-switch-history\n"
"                         with map or both and -a/-C, do not write the\n"
"                         module's switch history into the perf.data file\n"
"                         (by default it goes in as\n"
"                         PERF_RECORD_SWITCH_CPU_WIDE, unless\n"
"                         --switch-events records the kernel's)\n"
"\n"
"  -q, --quiet            no status line, notes or summary (errors only)\n"
"  -v, --verbose          more detail (events, channels, mismatches)\n"
"  -h, --help             this help\n"
"\n"
"At the end perf's summary (wakeups; MB and samples written) and one\n"
"line with the samples written, samples lost, throttle events and the\n"
"attribution used; with --budget, the estimated overhead and each\n"
"event's period range. On a terminal a status line shows the elapsed\n"
"time, samples, lost samples and MB written (and the estimated\n"
"overhead and the period ranges with --budget; not with -q).\n"
"\n"
"Exit status: the command's own (128+N if signal N killed it, or if\n"
"SIGINT, SIGTERM or SIGHUP stopped the recording; 0 without a command\n"
"or when --duration ended it), else %d usage error, %d recording could\n"
"not start, %d recording failed midway, %d command not executable,\n"
"%d command not found.\n",
		PEBS_CHANNEL_DEF_PERIOD, PEBS_BUDGET_MIN_RATE,
		PEBS_RECORDER_CPU_RING_PAGES, PEBS_RECORDER_TASK_RING_PAGES,
		PEBS_RECORDER_TASK_RING_BUDGET / PEBS_RECORDER_TASK_RING_PAGES, PEBS_RECORDER_DWARF_STACK,
		REC_EXIT_USAGE, REC_EXIT_SETUP, REC_EXIT_RUNTIME,
		REC_EXIT_NOEXEC, REC_EXIT_NOTFOUND);
}

/* long-only options: codes outside the range of letters */
enum {
	OPT_FORMAT = 256, OPT_DURATION, OPT_ATTR, OPT_CALL_GRAPH,
	OPT_SAMPLE_CPU, OPT_SWITCH_EVENTS, OPT_NO_SWITCH_HISTORY,
	OPT_PHYS_DATA, OPT_DATA_PAGE_SIZE, OPT_ALL_USER, OPT_ALL_KERNEL,
	OPT_OBJECTS, OPT_BUDGET, OPT_RECALIBRATE,
};

/* "fp", "dwarf" or "dwarf,SIZE" (perf's --call-graph); 0 or exit code */
static int parse_callgraph(struct rec_opts *o, const char *arg)
{
	uint64_t v;

	if (!strcmp(arg, "fp")) {
		o->callgraph = PEBS_RECORDER_CG_FP;
		return 0;
	}
	if (!strncmp(arg, "dwarf", 5) && (!arg[5] || arg[5] == ',')) {
		o->callgraph = PEBS_RECORDER_CG_DWARF;
		o->stack_size = PEBS_RECORDER_DWARF_STACK;
		if (!arg[5])
			return 0;
		/* perf: a multiple of 8 up to 65528 (round_up(USHRT_MAX, 8)) */
		if (tool_parse_u64(arg + 6, &v) && v && v <= 65528) {
			o->stack_size = (uint32_t)((v + 7) & ~7ull);
			return 0;
		}
	}
	tool_err("record", "bad --call-graph '%s': give fp, dwarf or dwarf,SIZE (SIZE bytes of stack, at most 65528)",
		arg);
	return REC_EXIT_USAGE;
}

/*
 * --budget's costs kept per machine: $XDG_CACHE_HOME/pebs-shim/budget-costs
 * (an absolute XDG_CACHE_HOME, as the XDG spec says), else
 * ~/.cache/pebs-shim/budget-costs; none without either
 */
static void cal_cache_path(struct rec_opts *o)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n = -1;

	if (xdg && xdg[0] == '/')
		n = snprintf(o->cal_cache, sizeof(o->cal_cache),
			     "%s/pebs-shim/budget-costs", xdg);
	else if (home && home[0] == '/')
		n = snprintf(o->cal_cache, sizeof(o->cal_cache),
			     "%s/.cache/pebs-shim/budget-costs", home);
	if (n < 0 || (size_t)n >= sizeof(o->cal_cache))
		o->cal_cache[0] = 0;
}

/* "2%" or "2": a share of the sampled CPU time; 0 or exit code */
static int parse_budget(struct rec_opts *o, const char *arg)
{
	char buf[32];
	size_t n = strlen(arg);
	double pct;

	if (n && n < sizeof(buf)) {
		memcpy(buf, arg, n + 1);
		if (buf[n - 1] == '%')
			buf[n - 1] = 0;
		if (tool_parse_double(buf, &pct) && pct > 0 && pct < 100) {
			o->budget = pct / 100;
			return 0;
		}
	}
	tool_err("record", "bad budget '%s': give a share of the sampled CPU time above 0 and below 100 %% (e.g. --budget 2%%)",
		 arg);
	return REC_EXIT_USAGE;
}

int rec_parse_args(struct rec_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "data", no_argument, NULL, 'd' },
		{ "weight", no_argument, NULL, 'W' },
		{ "phys-data", no_argument, NULL, OPT_PHYS_DATA },
		{ "data-page-size", no_argument, NULL, OPT_DATA_PAGE_SIZE },
		{ "all-user", no_argument, NULL, OPT_ALL_USER },
		{ "all-kernel", no_argument, NULL, OPT_ALL_KERNEL },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "attr", required_argument, NULL, OPT_ATTR },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "sample-cpu", no_argument, NULL, OPT_SAMPLE_CPU },
		{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
		{ "no-switch-history", no_argument, NULL,
		  OPT_NO_SWITCH_HISTORY },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "objects", optional_argument, NULL, OPT_OBJECTS },
		{ "budget", required_argument, NULL, OPT_BUDGET },
		{ "recalibrate", no_argument, NULL, OPT_RECALIBRATE },
		{ "no-buildid-cache", no_argument, NULL, 'N' },
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
	while ((c = getopt_long(argc, argv, "+:e:c:F:m:o:dWgTiNqvaC:p:t:h",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (o->nr_evs == PEBS_RECORDER_MAX_EVENTS) {
				tool_err("record", "too many events: give at most %d",
					PEBS_RECORDER_MAX_EVENTS);
				return REC_EXIT_USAGE;
			}
			o->evstrs[o->nr_evs++] = optarg;
			break;
		case 'c':
			if (!tool_parse_u64(optarg, &v) || !v) {
				tool_err("record", "bad period '%s': give a positive number of events (e.g. -c 10000)",
					optarg);
				return REC_EXIT_USAGE;
			}
			o->period = v;
			break;
		case 'F':
			if (!tool_parse_u64(optarg, &v) || !v) {
				tool_err("record", "bad frequency '%s': give a positive number of samples per second (e.g. -F 1000)",
					optarg);
				return REC_EXIT_USAGE;
			}
			o->freq = v;
			break;
		case 'm':
			if (!tool_parse_u64(optarg, &v) || !v || (v & (v - 1)) ||
			    v > (1u << 20)) {
				tool_err("record", "bad page count '%s': give a power of two (e.g. -m 64)",
					optarg);
				return REC_EXIT_USAGE;
			}
			o->pages = (unsigned int)v;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "perf")) {
				o->format = PEBS_RECORDER_PERF;
			} else if (!strcmp(optarg, "csv")) {
				o->format = PEBS_RECORDER_CSV;
			} else {
				tool_err("record", "unknown format '%s': use perf or csv",
					optarg);
				return REC_EXIT_USAGE;
			}
			break;
		case 'd':
			o->data_addr = true;
			break;
		case 'W':
			o->weight = true;
			break;
		case OPT_PHYS_DATA:
			o->phys_data = true;
			break;
		case OPT_DATA_PAGE_SIZE:
			o->data_page_size = true;
			break;
		case OPT_ALL_USER:
			o->all_user = true;
			break;
		case OPT_ALL_KERNEL:
			o->all_kernel = true;
			break;
		case 'g':
			o->callgraph = PEBS_RECORDER_CG_FP;
			break;
		case OPT_CALL_GRAPH:
			c = parse_callgraph(o, optarg);
			if (c)
				return c;
			break;
		case 'T':
		case OPT_SAMPLE_CPU:
			/* samples always carry TIME and CPU (attribution) */
			break;
		case OPT_SWITCH_EVENTS:
			o->switch_events = true;
			break;
		case OPT_NO_SWITCH_HISTORY:
			o->no_switch_history = true;
			break;
		case 'i':
			o->no_inherit = true;
			break;
		case OPT_OBJECTS:
			o->objects = true;
			o->objects_all = optarg && !strcmp(optarg, "all");
			if (optarg && !o->objects_all &&
			    (!tool_parse_size(optarg, &o->objects_interval) ||
			     !o->objects_interval ||
			     o->objects_interval > PEBS_RECORDER_OBJECTS_MAX)) {
				tool_err("record", "bad --objects value '%s': give --objects (sampled by bytes, every 512 KiB on average), --objects=BYTES (1 to 1G, K, M or G: e.g. 2M) or --objects=all",
					optarg);
				return REC_EXIT_USAGE;
			}
			break;
		case 'N':
			o->no_buildid_cache = true;
			break;
		case OPT_BUDGET:
			c = parse_budget(o, optarg);
			if (c)
				return c;
			break;
		case OPT_RECALIBRATE:
			o->recalibrate = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_DURATION:
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || *end || !(o->duration > 0) ||
			    !isfinite(o->duration)) {
				tool_err("record", "bad duration '%s': give seconds > 0 (e.g. --duration 2.5)",
					optarg);
				return REC_EXIT_USAGE;
			}
			break;
		case OPT_ATTR:
			for (c = 0; pebs_recorder_attr_str(c); c++)
				if (!strcmp(optarg, pebs_recorder_attr_str(c)))
					break;
			if (!pebs_recorder_attr_str(c)) {
				tool_err("record", "unknown attribution '%s': use auto, tid, map or both",
					optarg);
				return REC_EXIT_USAGE;
			}
			o->attr_req = (enum pebs_recorder_attr)c;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'a':
			o->all_cpus = true;
			break;
		case 'C':
			o->cpu_list = optarg;
			break;
		case 'p':
			o->pid_list = optarg;
			break;
		case 't':
			o->tid_list = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			tool_err("record", "option '%s' needs a value: see pebs-shim record --help",
				argv[optind - 1]);
			return REC_EXIT_USAGE;
		default:
			tool_err("record", "unknown option '%s': see pebs-shim record --help",
				argv[optind - 1]);
			return REC_EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->cmd = &argv[optind];
	if (o->period && o->freq) {
		tool_err("record", "-c and -F together: give either a period or a frequency");
		return REC_EXIT_USAGE;
	}
	if (o->all_user && o->all_kernel) {
		tool_err("record", "--all-user and --all-kernel together: give one");
		return REC_EXIT_USAGE;
	}
	if (o->all_cpus && o->cpu_list) {
		tool_err("record", "-a and -C together: -a already means every CPU");
		return REC_EXIT_USAGE;
	}
	o->per_cpu = o->all_cpus || o->cpu_list;
	c = !!o->pid_list + !!o->tid_list + o->per_cpu;
	if (c > 1 || (c && !o->per_cpu && o->cmd)) {
		tool_err("record", "more than one target: give one of -- COMMAND, -p, -t, -a, -C");
		return REC_EXIT_USAGE;
	}
	if (!c && !o->cmd) {
		tool_err("record", "nothing to record: give -- COMMAND, -p PID, -t TID, -a or -C LIST");
		return REC_EXIT_USAGE;
	}
	if (o->objects && o->format == PEBS_RECORDER_CSV) {
		tool_err("record", "--objects with --format csv: the objects go into a perf.data file, drop --format csv");
		return REC_EXIT_USAGE;
	}
	if (o->objects && !o->cmd) {
		/* the interposer is preloaded into a command record starts */
		if (!o->quiet)
			tool_err("record", "--objects: %s cannot preload the allocation interposer into running processes: recording without heap objects",
				o->pid_list ? "-p" : o->tid_list ? "-t" : o->all_cpus ? "-a" : "-C");
		o->objects = o->objects_all = false;
	}
	if (o->recalibrate && !o->budget) {
		tool_err("record", "--recalibrate without --budget: the costs are measured for a budget, add --budget PCT");
		return REC_EXIT_USAGE;
	}
	cal_cache_path(o);
	if (!o->nr_evs)
		o->evstrs[o->nr_evs++] = "auto";
	if (!o->output)
		o->output = o->format == PEBS_RECORDER_CSV ? "pebs-shim.csv" :
							  "pebs-shim.data";
	return 0;
}
