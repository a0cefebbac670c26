// SPDX-License-Identifier: MIT
/*
 * record-setup.c - what a recording samples and watches: each event
 * string parsed as perf reads it with record's periods and call-chain
 * settings, what each sample carries, the target (CPUs online, pids and
 * tids running), the attribution, and the channel set opened on every
 * target with the command forked.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include "record/record-int.h"
#include "core/internal.h"

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

/* ---- events ------------------------------------------------------------ */

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
 * fields of PEBS/IBS. TID goes away with the map's attribution.
 */
uint64_t rec_sample_type(const struct pebs_recorder *r,
			 const struct pebs_event *ev)
{
	const struct pebs_recorder_opts *o = &r->o;
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		      PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;

	if ((ev->flags & PEBS_EVENT_MEMORY) || is_fault_event(&ev->attr) ||
	    ev->attr.type == PERF_TYPE_BREAKPOINT)
		st |= PERF_SAMPLE_ADDR;
	if ((ev->flags & PEBS_EVENT_MEMORY) && (ev->flags & PEBS_EVENT_PRECISE))
		st |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	/* -W: the x86 weight of perf record -W (arch_evsel__set_sample_weight) */
	if (o->weight)
		st = (st & ~(uint64_t)PERF_SAMPLE_WEIGHT) |
		     PERF_SAMPLE_WEIGHT_STRUCT;
	if (o->phys_data)
		st |= PERF_SAMPLE_PHYS_ADDR;
	if (o->data_page_size)
		st |= PERF_SAMPLE_DATA_PAGE_SIZE;
	/* -d: every event (perf record -d) */
	if (o->data_addr)
		st |= PERF_SAMPLE_ADDR;
	/*
	 * with an address, a data source as perf record -d samples it (the
	 * kernel reports "not available" for software events): perf mem
	 * and perf c2c need the field
	 */
	if (st & PERF_SAMPLE_ADDR)
		st |= PERF_SAMPLE_DATA_SRC;
	/* a period that moves (-F, --budget): each sample carries its own */
	if (o->freq || o->budget)
		st |= PERF_SAMPLE_PERIOD;
	/* a tracepoint's fields (perf record -e sys:name samples them) */
	if (ev->flags & PEBS_EVENT_TRACEPOINT)
		st |= PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD;
	if (o->callgraph != PEBS_RECORDER_CG_NONE)
		st |= PERF_SAMPLE_CALLCHAIN;
	if (o->callgraph == PEBS_RECORDER_CG_DWARF)
		st |= PEBS_SAMPLE_DWARF;
	if (r->attr == PEBS_RECORDER_ATTR_MAP)
		st &= ~(uint64_t)PERF_SAMPLE_TID;
	return st;
}

/*
 * Each event string as perf reads it (pebs_event__parse_list: comma
 * lists, {a,b} groups, opened as groups by the channel set) into r->evs.
 * Every failure is -EINVAL: a usage error.
 */
int rec_parse_events(struct pebs_recorder *r)
{
	const struct pebs_recorder_opts *o = &r->o;
	static const char *const dflt[] = { "auto" };
	const char *const *strs = o->nr_events ? o->events : dflt;
	unsigned int n = o->nr_events ? o->nr_events : 1, nr = 0;

	for (unsigned int s = 0; s < n; s++) {
		unsigned int first = nr;

		if (pebs_event__parse_list(strs[s], r->evs,
					   PEBS_RECORDER_MAX_EVENTS, &nr))
			return -EINVAL;
		for (unsigned int i = first; i < nr; i++)
			for (unsigned int j = 0; j < i; j++)
				if (!strcmp(r->evs[i].name, r->evs[j].name))
					return core_err(-EINVAL, "event '%s' given twice: give each event once",
							r->evs[i].name);
	}
	r->nr_evs = nr;
	for (unsigned int i = 0; i < nr; i++) {
		struct pebs_event *ev = &r->evs[i];

		/* perf's --all-user / --all-kernel over the modifiers */
		if (o->all_user || o->all_kernel) {
			ev->attr.exclude_kernel = o->all_user;
			ev->attr.exclude_user = o->all_kernel;
		}
		/* the library's default period is for hardware events */
		if (!o->period && (!o->freq || o->budget) &&
		    !ev->attr.sample_period &&
		    ev->attr.type == PERF_TYPE_SOFTWARE &&
		    (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		     ev->attr.config == PERF_COUNT_SW_TASK_CLOCK))
			ev->attr.sample_period = CLOCK_PERIOD_NS;
		if (o->callgraph == PEBS_RECORDER_CG_DWARF) {
			/* perf's evsel__config_callchain() for dwarf */
			ev->attr.sample_regs_user = DWARF_REGS_MASK;
			ev->attr.sample_stack_user = o->stack_size;
			ev->attr.exclude_callchain_user = 1;
		}
	}
	return 0;
}

/*
 * perf record's tracking event when events can be disabled (-D:
 * evlist__add_dummy, evlist__set_tracking_event): a software dummy,
 * sample_period 1 as perf gives it, named as perf names it, that never
 * counts nor samples; the channel set asks the side-band records of it
 * (pebs_chanset__set_tracking), and the duty cycle leaves it enabled
 */
#define TRACKING_NAME	"dummy:HG"

int rec_budget_track(struct pebs_recorder *r)
{
	struct pebs_event *ev = &r->evs[r->nr_evs];

	if (!r->o.budget)
		return 0;
	for (unsigned int i = 0; i < r->nr_evs; i++)
		if (!strcmp(r->evs[i].name, TRACKING_NAME))
			return core_err(-EINVAL, "event '%s' is --budget's own tracking event: leave it out of -e",
					TRACKING_NAME);
	*ev = (struct pebs_event){
		.name = TRACKING_NAME, .resolved = TRACKING_NAME,
		.pmu = "perf", .flags = PEBS_EVENT_SOFTWARE,
		.leader = r->nr_evs, .nr_members = 1,
	};
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.config = PERF_COUNT_SW_DUMMY;
	ev->attr.sample_period = 1;
	r->tracking = true;
	return 0;
}

/* ---- targets ----------------------------------------------------------- */

static int parse_cpus(const char *str, struct pebs_ids *cpus)
{
	static uint64_t want[PEBS_MAX_CPUS / 64], online[PEBS_MAX_CPUS / 64];
	int c, err;

	if (pebs_cpulist__parse(str, PEBS_MAX_CPUS, want))
		return -EINVAL;
	err = pebs_cpulist__online(PEBS_MAX_CPUS, online);
	if (err)
		return err;
	for (c = pebs_cpulist__next(want, PEBS_MAX_CPUS, 0); c >= 0;
	     c = pebs_cpulist__next(want, PEBS_MAX_CPUS, c + 1))
		if (!(online[c / 64] >> (c % 64) & 1))
			return core_err(-EINVAL, "CPU %d is not online: pick CPUs from /sys/devices/system/cpu/online",
					c);
	return pebs_cpulist__ids(want, PEBS_MAX_CPUS, cpus);
}

static int online_cpus(struct pebs_ids *cpus)
{
	static uint64_t online[PEBS_MAX_CPUS / 64];
	int err = pebs_cpulist__online(PEBS_MAX_CPUS, online);

	return err ? err : pebs_cpulist__ids(online, PEBS_MAX_CPUS, cpus);
}

/*
 * "PID[,PID...]", each existing: with @threads every thread of each
 * process (/proc/PID/task) into @out, else the ids as given
 */
static int parse_pids(const char *str, bool threads, struct pebs_ids *out,
		      struct pebs_ids *procs)
{
	struct pebs_ids ids = { 0 };
	int err;

	err = pebs_ids__parse(&ids, str);
	if (err) {
		rec_err(err, "bad pid list '%s': %s", str, pebs_errmsg());
		goto out_free;
	}
	for (unsigned int i = 0; i < ids.n; i++) {
		int id = ids.v[i];

		if (id == 0 || pebs_proc__tgid(id) < 0) {
			err = core_err(-ESRCH, "no process or thread %d: check the id (ps -eLf)",
				       id);
			goto out_free;
		}
		if ((err = pebs_ids__push(procs, id)))
			goto out_free;
		if (!threads) {
			err = pebs_ids__add(out, id);
		} else {
			err = pebs_proc__tasks(id, out);
			if (err == -ESRCH)
				core_err(err, "process %d exited: check the pid", id);
		}
		if (err)
			goto out_free;
	}
out_free:
	pebs_ids__free(&ids);
	return err;
}

int rec_parse_targets(struct pebs_recorder *r)
{
	if (r->o.cpus)
		return parse_cpus(r->o.cpus, &r->targets);
	if (r->o.all_cpus)
		return online_cpus(&r->targets);
	if (r->o.pids)
		return parse_pids(r->o.pids, true, &r->targets, &r->procs);
	if (r->o.tids)
		return parse_pids(r->o.tids, false, &r->targets, &r->procs);
	return 0;
}

/* ---- attribution ------------------------------------------------------- */

/* the module's history when asked for (or by auto with CPUs) */
static int choose(struct pebs_recorder *r)
{
	int err;

	r->attr = r->o.attr;
	if (r->attr == PEBS_RECORDER_ATTR_TID)
		return 0;
	err = pebs_map__open(NULL, &r->map);
	if (err) {
		if (r->attr != PEBS_RECORDER_ATTR_AUTO)
			return err;
		r->attr = PEBS_RECORDER_ATTR_TID;
		r->switch_baseline = r->per_cpu;
		return 0;
	}
	if (r->attr == PEBS_RECORDER_ATTR_AUTO) {
		if (!r->per_cpu) {
			pebs_map__close(r->map);
			r->map = NULL;
			r->attr = PEBS_RECORDER_ATTR_TID;
			return 0;
		}
		r->attr = PEBS_RECORDER_ATTR_MAP;
	}
	return 0;
}

int rec_choose_attr(struct pebs_recorder *r)
{
	enum pebs_attrib_mode mode;
	int err = choose(r);

	if (err)
		return err;
	mode = r->attr == PEBS_RECORDER_ATTR_MAP ? PEBS_ATTRIB_MAP :
	       r->attr == PEBS_RECORDER_ATTR_BOTH ? PEBS_ATTRIB_BOTH :
	       r->switch_baseline ? PEBS_ATTRIB_SWITCH : PEBS_ATTRIB_TID;
	return pebs_attrib__new(mode, r->map,
				(unsigned int)sysconf(_SC_NPROCESSORS_CONF),
				&r->attrib);
}

/* ---- channels ---------------------------------------------------------- */

/* ring pages per channel: the option, or a default that suits the target */
unsigned int rec_ring_pages(const struct pebs_recorder *r)
{
	unsigned long rings;
	unsigned int pages = PEBS_RECORDER_TASK_RING_PAGES;

	if (r->o.ring_pages)
		return r->o.ring_pages;
	if (r->per_cpu)
		return PEBS_RECORDER_CPU_RING_PAGES;
	if (r->o.cmd || !(r->o.tids || r->o.no_inherit))
		return pages;
	rings = r->targets.n;
	while (pages > 8 && rings * pages > PEBS_RECORDER_TASK_RING_BUDGET)
		pages /= 2;
	return pages;
}

void rec_channel_opts(struct pebs_recorder *r)
{
	uint64_t st0 = rec_sample_type(r, &r->evs[0]);

	/* one sample_type per set: the union of what the events need */
	for (unsigned int i = 1; i < r->nr_evs; i++)
		st0 |= rec_sample_type(r, &r->evs[i]);
	/*
	 * pids: one channel per existing thread (from /proc/PID/task), each
	 * with inherit, so that threads created later are followed too; a
	 * per-process event (pid = tgid) would only count the main thread
	 * and its later children. Inherited events cannot be mapped with
	 * cpu -1, so the channel set opens each on every online CPU.
	 * tids: the threads alone, no inherit.
	 */
	r->copts = (struct pebs_channel_opts){
		.sz = sizeof(r->copts),
		.sample_type = st0,
		/* a budget sets each event's period; -F is its maximum rate */
		.period = r->o.budget ? 0 : r->o.period,
		.freq = r->o.budget ? 0 : r->o.freq,
		.ring_pages = rec_ring_pages(r),
		.inherit = !r->per_cpu && !r->o.tids && !r->o.no_inherit,
		.enable_on_exec = r->o.cmd && !r->per_cpu,
		/* enabled once the running processes are described */
		.disabled = true,
		.context_switch = r->switch_baseline || r->o.switch_events,
		.task_records = true,
		/* the interposer stamps objects with CLOCK_MONOTONIC */
		.use_clockid = r->o.objects,
		.clockid = CLOCK_MONOTONIC,
	};
}

static int add_targets(struct pebs_recorder *r)
{
	struct pebs_ids *targets = &r->targets;
	int err;

	for (unsigned int i = 0; i < targets->n; i++) {
		err = pebs_chanset__add(r->set, targets->v[i]);
		if (err == -ESRCH && r->o.tids)
			return core_err(err, "thread %d exited: check the tid",
					targets->v[i]);
		/* a thread of the pids that ended meanwhile is not an error */
		if (err == -ESRCH && r->o.pids)
			continue;
		if (err)
			return rec_err(err, "cannot open events on %s %d: %s",
				       r->per_cpu ? "CPU" : "task",
				       targets->v[i], pebs_errmsg());
		r->targets_left++;
	}
	if (!pebs_chanset__nr_channels(r->set))
		return core_err(-ESRCH, "no thread of %s is left: check the pid",
				r->o.pids);
	return 0;
}

int rec_open_channels(struct pebs_recorder *r)
{
	int err;

	err = pebs_chanset__new(r->evs, rec_nr_open(r),
				r->per_cpu ? PEBS_TARGET_CPU : PEBS_TARGET_TASK,
				&r->copts, &r->set);
	if (!err && r->tracking)
		err = pebs_chanset__set_tracking(r->set, r->nr_evs);
	if (err)
		return err;
	if (r->o.cmd) {
		err = pebs_workload__fork(r->o.cmd, !strcmp(r->o.output, "-") ?
					  PEBS_WORKLOAD_STDOUT_TO_STDERR : 0,
					  &r->child);
		if (err)
			return err;
		r->child_running = true;
		if (!r->per_cpu && pebs_ids__push(&r->targets, r->child.pid))
			return core_err(-ENOMEM, "out of memory");
	}
	err = add_targets(r);
	if (err)
		return err;
	/* each event and its attr as opened (perf's fallbacks applied) */
	for (unsigned int i = 0; i < rec_nr_open(r); i++)
		r->evs[i] = *pebs_chanset__event(r->set, i);
	for (unsigned int i = 0; i < pebs_chanset__nr_channels(r->set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(r->set, i);

		r->attrs[rec_ev_of(r, ch)] = *pebs_channel__attr(ch);
	}
	return 0;
}

/* CPUs: every process; pids/tids: the processes of the ids */
int rec_synth_procs(struct pebs_recorder *r)
{
	struct pebs_ids pids = { 0 };
	int err;

	err = r->per_cpu ? pebs_proc__pids(&pids) : 0;
	for (unsigned int i = 0; !err && !r->per_cpu && i < r->procs.n; i++) {
		pid_t tgid = pebs_proc__tgid(r->procs.v[i]);

		err = pebs_ids__push(&pids, tgid < 0 ? r->procs.v[i] : tgid);
	}
	/* the processes already running: their threads and mappings first */
	for (unsigned int i = 0; !err && i < pids.n; i++) {
		err = rec_out_synth_process(r->out, pids.v[i]);
		if (!err)
			pebs_attrib__load_proc(r->attrib, pids.v[i]);
	}
	pebs_ids__free(&pids);
	return err;
}
