// SPDX-License-Identifier: MIT
/*
 * export-perfetto.c - a recording as a Perfetto trace
 * (pebs_export__perfetto), in one pass of a pebs_session:
 *
 * - each thread and process met, as TrackDescriptors with a
 *   ThreadDescriptor / ProcessDescriptor naming it (again when its
 *   comm changes);
 * - who ran on each CPU as Perfetto draws it: sched_switch ftrace events
 *   in per-CPU FtraceEventBundles (written every BUNDLE_MAX events), from
 *   the module's switch history (PERF_RECORD_SWITCH_CPU_WIDE of an event
 *   without context_switch, as pebs_switchrec writes them) where the
 *   recording has it, else the kernel's SWITCH / SWITCH_CPU_WIDE records
 *   (record --switch-events), else a change of thread between a CPU's
 *   samples; the source is chosen once the first PENDING_MAX switches
 *   are in (or at the end) and named by an instant event on a
 *   "pebs-shim" track;
 * - each sample as a PerfSample (cpu, pid, tid, cpu_mode, its interned
 *   call stack), which Perfetto shows as CPU profile samples;
 * - counter tracks per CPU, one value per millisecond with samples (and
 *   0 after it when the next has none): samples, and where the events
 *   sample them loads, stores, HITM, remote accesses (data source) and
 *   mean weight (cycles).
 *
 * Field numbers, from Perfetto's protos (see also perfetto.c):
 * FtraceEventBundle cpu 1, event 2; FtraceEvent timestamp 1, pid 2,
 * sched_switch 4; SchedSwitchFtraceEvent prev_comm 1, prev_pid 2,
 * prev_prio 3, prev_state 4, next_comm 5, next_pid 6, next_prio 7.
 * PerfSample cpu 1, pid 2, tid 3, callstack_iid 4, cpu_mode 5
 * (MODE_KERNEL 1, MODE_USER 2). TrackDescriptor uuid 1, name 2,
 * process 3, thread 4, parent_uuid 5, counter 8; ProcessDescriptor pid
 * 1, process_name 6; ThreadDescriptor pid 1, tid 2, thread_name 5;
 * CounterDescriptor unit 3 (UNIT_COUNT 2). TrackEvent type 9
 * (TYPE_INSTANT 3, TYPE_COUNTER 4), track_uuid 11, name 23,
 * counter_value 30, double_counter_value 44.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-int.h"
#include "session/session-int.h"

#define BUNDLE_MAX	1024	/* sched_switch events per bundle */
#define PENDING_MAX	65536	/* switches held until the source is chosen */
#define NS_PER_MS	1000000ull
#define PRIO_DEFAULT	120	/* not recorded: nice 0's */

#define UUID_THREAD	(1ull << 60)
#define UUID_PROCESS	(2ull << 60)
#define UUID_NOTE	(3ull << 60)
#define UUID_COUNTER	(4ull << 60)

/* where sched_switch events come from, by preference */
enum { SRC_SAMPLES, SRC_KERNEL, SRC_MODULE, NR_SRC };

static const char *const src_note[NR_SRC] = {
	"sched_switch from the samples' threads (no switch records)",
	"sched_switch from PERF_RECORD_SWITCH (record --switch-events)",
	"sched_switch from the module's switch history",
};

struct sw {
	uint64_t time;
	int32_t prev_pid, prev_tid, next_pid, next_tid;
	uint32_t cpu;
	uint8_t src, state;
	bool gap;		/* the module's overrun: from what ran to idle */
};

/* the counters of one CPU */
enum { C_SAMPLES, C_LOADS, C_STORES, C_HITM, C_REMOTE, C_WEIGHT, NR_C };

static const char *const c_name[NR_C] = {
	"samples/ms", "loads/ms", "stores/ms", "HITM/ms", "remote/ms",
	"mean weight (cycles)",
};

struct cpu {
	struct ex_pb bundle;	/* cpu, then the events so far */
	unsigned int nr;	/* events in bundle */
	uint64_t last;		/* the bundle's last event time */
	bool have_tid;		/* SRC_SAMPLES: the thread of the last sample */
	int32_t pid, tid;
	int32_t run_pid, run_tid;	/* switched in last */
	bool counting, tracks;
	uint64_t ms;		/* the millisecond counted */
	uint64_t c[NR_C];	/* C_WEIGHT: the sum */
	uint64_t nr_weights;
};

struct pexp {
	struct ex_src x;
	struct pebs_threads *threads;
	struct ex_trace t;
	struct ex_pb body, ev, sub;
	struct cpu *cpus;
	size_t nr_cpus;		/* those seen, and zeroed ones */
	struct sw *pending;
	size_t nr_pending;
	int src;		/* -1: not chosen yet */
	bool seen[NR_SRC];
	struct ex_intern seen_threads, seen_procs;
	struct ex_frame frames[PEBS_CALLCHAIN_MAX];
	unsigned int nr_frames;
	bool *cs;		/* per attr: context_switch */
};

static int oom(void)
{
	return core_err(-ENOMEM, "export: out of memory");
}

static struct cpu *cpu_of(struct pexp *e, uint32_t cpu)
{
	if (cpu >= PEBS_MAX_CPUS ||
	    core_grow_zero(&e->cpus, &e->nr_cpus, (size_t)cpu + 1,
			   sizeof(*e->cpus)))
		return NULL;
	return &e->cpus[cpu];
}

/* a TrackDescriptor packet of e->sub (filled by the caller after uuid) */
static int track(struct pexp *e, uint64_t ts)
{
	return ex_trace__packet(&e->t, ts, 60, &e->sub);
}

/* the descriptors of thread @tid of @pid, if new or renamed */
static int thread(struct pexp *e, uint64_t ts, int32_t pid, int32_t tid)
{
	const char *comm, *pcomm;
	uintptr_t key[3];
	uint32_t id;
	bool added;
	int err;

	if (tid <= 0)
		return 0;	/* the idle task: Perfetto's swapper */
	if (pid <= 0)
		pid = tid;
	comm = pebs_threads__comm_at(e->threads, tid, ts);
	key[0] = (uintptr_t)pid;
	key[1] = (uintptr_t)tid;
	key[2] = (uintptr_t)comm;	/* comms are interned: one pointer */
	if (ex_intern__get(&e->seen_threads, key, sizeof(key), &id, &added))
		return oom();
	if (!added)
		return 0;
	pcomm = pebs_threads__comm_at(e->threads, pid, ts);
	key[1] = (uintptr_t)pcomm;
	if (ex_intern__get(&e->seen_procs, key, 2 * sizeof(key[0]), &id,
			   &added))
		return oom();
	if (added) {
		e->ev.len = e->sub.len = 0;
		ex_pb__uint(&e->ev, 1, (uint64_t)pid);
		if (pcomm)
			ex_pb__bytes(&e->ev, 6, pcomm, strlen(pcomm));
		ex_pb__uint(&e->sub, 1, UUID_PROCESS | (uint32_t)pid);
		ex_pb__msg(&e->sub, 3, &e->ev);
		err = track(e, ts);
		if (err)
			return err;
	}
	e->ev.len = e->sub.len = 0;
	ex_pb__uint(&e->ev, 1, (uint64_t)pid);
	ex_pb__uint(&e->ev, 2, (uint64_t)tid);
	if (comm)
		ex_pb__bytes(&e->ev, 5, comm, strlen(comm));
	ex_pb__uint(&e->sub, 1, UUID_THREAD | (uint32_t)tid);
	ex_pb__uint(&e->sub, 5, UUID_PROCESS | (uint32_t)pid);
	ex_pb__msg(&e->sub, 4, &e->ev);
	return track(e, ts);
}

/* write CPU @cpu's bundle, if it has events */
static int flush_bundle(struct pexp *e, uint32_t cpu)
{
	struct cpu *c = &e->cpus[cpu];
	int err;

	if (!c->nr)
		return 0;
	err = ex_trace__packet(&e->t, c->last, 1, &c->bundle);
	c->bundle.len = 0;
	c->nr = 0;
	return err;
}

static const char *comm_of(struct pexp *e, int32_t tid, uint64_t ts)
{
	const char *comm = pebs_threads__comm_at(e->threads, tid, ts);

	return comm ? comm : "";
}

/* one sched_switch into its CPU's bundle */
static int emit_switch(struct pexp *e, const struct sw *w)
{
	struct cpu *c = cpu_of(e, w->cpu);
	const char *pc, *nc;
	struct sw gap;
	int err;

	if (!c)
		return w->cpu >= PEBS_MAX_CPUS ? 0 : oom();
	if (w->gap) {
		gap = *w;
		gap.prev_pid = c->run_pid;
		gap.prev_tid = c->run_tid;
		w = &gap;
	}
	c->run_pid = w->next_pid;
	c->run_tid = w->next_tid;
	if ((err = thread(e, w->time, w->prev_pid, w->prev_tid)) ||
	    (err = thread(e, w->time, w->next_pid, w->next_tid)))
		return err;
	pc = w->prev_tid > 0 ? comm_of(e, w->prev_tid, w->time) : "swapper";
	nc = w->next_tid > 0 ? comm_of(e, w->next_tid, w->time) : "swapper";
	e->sub.len = e->ev.len = 0;
	ex_pb__bytes(&e->sub, 1, pc, strlen(pc));
	ex_pb__uint(&e->sub, 2, (uint64_t)(int64_t)(w->prev_tid > 0 ?
						      w->prev_tid : 0));
	ex_pb__uint(&e->sub, 3, PRIO_DEFAULT);
	ex_pb__uint(&e->sub, 4, w->state);
	ex_pb__bytes(&e->sub, 5, nc, strlen(nc));
	ex_pb__uint(&e->sub, 6, (uint64_t)(int64_t)(w->next_tid > 0 ?
						      w->next_tid : 0));
	ex_pb__uint(&e->sub, 7, PRIO_DEFAULT);
	ex_pb__uint(&e->ev, 1, w->time);
	ex_pb__uint(&e->ev, 2, w->prev_tid > 0 ? (uint32_t)w->prev_tid : 0);
	ex_pb__msg(&e->ev, 4, &e->sub);
	if (!c->nr)
		ex_pb__uint(&c->bundle, 1, w->cpu);
	ex_pb__msg(&c->bundle, 2, &e->ev);
	if (c->bundle.err)
		return oom();
	c->nr++;
	c->last = w->time;
	return c->nr < BUNDLE_MAX ? 0 : flush_bundle(e, w->cpu);
}

/* choose the source: the best one seen; write what is held of it */
static int choose(struct pexp *e)
{
	size_t i;
	int err = 0;

	for (e->src = NR_SRC - 1; e->src > 0 && !e->seen[e->src]; e->src--)
		;
	if (e->nr_pending) {
		e->sub.len = e->ev.len = 0;
		ex_pb__uint(&e->sub, 1, UUID_NOTE);
		ex_pb__bytes(&e->sub, 2, "pebs-shim", 9);
		err = track(e, e->pending[0].time);
		e->ev.len = 0;
		ex_pb__uint(&e->ev, 9, 3);	/* TYPE_INSTANT */
		ex_pb__uint(&e->ev, 11, UUID_NOTE);
		ex_pb__bytes(&e->ev, 23, src_note[e->src],
			     strlen(src_note[e->src]));
		if (!err)
			err = ex_trace__packet(&e->t, e->pending[0].time, 11,
					       &e->ev);
	}
	for (i = 0; !err && i < e->nr_pending; i++)
		if (e->pending[i].src == e->src)
			err = emit_switch(e, &e->pending[i]);
	free(e->pending);
	e->pending = NULL;
	e->nr_pending = 0;
	return err;
}

static int add_switch(struct pexp *e, const struct sw *w)
{
	e->seen[w->src] |= !w->gap;
	if (e->src >= 0)
		return w->src == e->src ? emit_switch(e, w) : 0;
	if (!e->pending) {
		e->pending = malloc(PENDING_MAX * sizeof(*e->pending));
		if (!e->pending)
			return oom();
	}
	e->pending[e->nr_pending++] = *w;
	return e->nr_pending < PENDING_MAX ? 0 : choose(e);
}

/*
 * A SWITCH or SWITCH_CPU_WIDE record; or a gap in the module's history (a
 * PERF_RECORD_LOST of tid -1, which no task has), where the CPU goes to
 * idle as the timeline plot shows no thread there: the switch after it
 * comes from prev -1 (no out record), drawn from idle too.
 */
static int on_record(void *arg, const struct perf_event_header *ev)
{
	struct pexp *e = arg;
	struct pebs_report_sample rs = { 0 };
	struct pebs_sample s;
	struct sw w = { 0 };
	unsigned int idx;
	bool out = ev->misc & PERF_RECORD_MISC_SWITCH_OUT;
	int32_t np[2];
	int m;

	if ((ev->type != PERF_RECORD_SWITCH &&
	     ev->type != PERF_RECORD_SWITCH_CPU_WIDE &&
	     ev->type != PERF_RECORD_LOST) ||
	    pebs_perfdata__sample_id(e->x.pd, ev, &s, &idx) ||
	    !(s.present & PERF_SAMPLE_TIME) || !(s.present & PERF_SAMPLE_CPU))
		return 0;	/* not placeable on a CPU and a time */
	rs.cpu = s.cpu;
	rs.event = idx;
	m = pebs_filter__match(e->x.o->filter, &rs, s.time);
	if (m == PEBS_FILTER_DROP || m == PEBS_FILTER_ASIDE)
		return 0;
	w.time = s.time;
	w.cpu = s.cpu;
	w.src = idx < e->x.nr_attrs && e->cs[idx] ? SRC_KERNEL : SRC_MODULE;
	if (ev->type == PERF_RECORD_LOST) {
		if (w.src != SRC_MODULE || (int32_t)s.tid != -1)
			return 0;	/* not the module's gap */
		w.gap = true;
		return add_switch(e, &w);
	}
	/* blocked (S) when the kernel says the task was not preempted;
	   otherwise not known: R */
	w.state = w.src == SRC_KERNEL && out &&
		  !(ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	if (ev->type == PERF_RECORD_SWITCH_CPU_WIDE) {
		if (ev->size < sizeof(*ev) + sizeof(np))
			return 0;
		memcpy(np, ev + 1, sizeof(np));
		if (out) {		/* next_prev: the next task */
			w.next_pid = np[0];
			w.next_tid = np[1];
		} else if (np[1] == -1) {	/* after a gap: no out record */
			w.next_pid = (int32_t)s.pid;
			w.next_tid = (int32_t)s.tid;
			return add_switch(e, &w);
		} else {
			return 0;	/* its out record said it */
		}
		w.prev_pid = (int32_t)s.pid;
		w.prev_tid = (int32_t)s.tid;
	} else if (out) {	/* one task's: the other side unknown */
		w.prev_pid = (int32_t)s.pid;
		w.prev_tid = (int32_t)s.tid;
	} else {
		w.next_pid = (int32_t)s.pid;
		w.next_tid = (int32_t)s.tid;
	}
	return add_switch(e, &w);
}

/* the counter tracks of CPU @cpu */
static int counter_tracks(struct pexp *e, uint32_t cpu, uint64_t ts)
{
	char name[64];
	unsigned int k;
	int err;

	for (k = 0; k < NR_C; k++) {
		if ((k >= C_LOADS && k <= C_REMOTE && !e->x.any_src) ||
		    (k == C_WEIGHT && !e->x.any_weight))
			continue;
		snprintf(name, sizeof(name), "cpu%u %s", cpu, c_name[k]);
		e->sub.len = e->ev.len = 0;
		ex_pb__uint(&e->sub, 1, UUID_COUNTER | (uint64_t)cpu << 8 | k);
		ex_pb__bytes(&e->sub, 2, name, strlen(name));
		if (k != C_WEIGHT)
			ex_pb__uint(&e->ev, 3, 2);	/* UNIT_COUNT */
		ex_pb__msg(&e->sub, 8, &e->ev);
		err = track(e, ts);
		if (err)
			return err;
	}
	return 0;
}

/* the counters' values at @ts (@zero: all 0) */
static int counter_values(struct pexp *e, uint32_t cpu, uint64_t ts,
			  bool zero)
{
	struct cpu *c = &e->cpus[cpu];
	unsigned int k;
	int err = 0;

	for (k = 0; k < NR_C && !err; k++) {
		if ((k >= C_LOADS && k <= C_REMOTE && !e->x.any_src) ||
		    (k == C_WEIGHT && !e->x.any_weight))
			continue;
		e->ev.len = 0;
		ex_pb__uint(&e->ev, 9, 4);	/* TYPE_COUNTER */
		ex_pb__uint(&e->ev, 11, UUID_COUNTER | (uint64_t)cpu << 8 | k);
		if (k == C_WEIGHT)
			ex_pb__double(&e->ev, 44, zero || !c->nr_weights ? 0.0 :
				      (double)c->c[k] / (double)c->nr_weights);
		else
			ex_pb__uint(&e->ev, 30, zero ? 0 : c->c[k]);
		err = ex_trace__packet(&e->t, ts, 11, &e->ev);
	}
	return err;
}

/* write CPU @cpu's millisecond (and 0 after it unless @next follows) */
static int flush_counters(struct pexp *e, uint32_t cpu, uint64_t next,
			  bool last)
{
	struct cpu *c = &e->cpus[cpu];
	int err;

	if (!c->counting)
		return 0;
	if (!c->tracks) {
		err = counter_tracks(e, cpu, c->ms * NS_PER_MS);
		if (err)
			return err;
		c->tracks = true;
	}
	err = counter_values(e, cpu, c->ms * NS_PER_MS, false);
	if (!err && (last || next != c->ms + 1))
		err = counter_values(e, cpu, (c->ms + 1) * NS_PER_MS, true);
	memset(c->c, 0, sizeof(c->c));
	c->nr_weights = 0;
	c->counting = false;
	return err;
}

static int count(struct pexp *e, struct cpu *c, uint32_t cpu, uint64_t time,
		 const struct pebs_report_sample *r)
{
	union perf_mem_data_src src = { .val = r->data_src };
	struct pebs_data_src d;
	uint64_t ms = time / NS_PER_MS;
	int err;

	if (c->counting && ms != c->ms &&
	    (err = flush_counters(e, cpu, ms, false)))
		return err;
	c->counting = true;
	c->ms = ms;
	c->c[C_SAMPLES]++;
	if (r->has_src) {
		pebs_data_src__decode(r->data_src, &d);
		c->c[C_LOADS] += !!(src.mem_op & PERF_MEM_OP_LOAD);
		c->c[C_STORES] += !!(src.mem_op & PERF_MEM_OP_STORE);
		c->c[C_HITM] += (src.mem_snoop & PERF_MEM_SNOOP_HITM) ||
				(src.mem_snoopx & PERF_MEM_SNOOPX_PEER);
		c->c[C_REMOTE] += !!d.remote;
	}
	if (r->has_weight) {
		c->c[C_WEIGHT] += r->weight;
		c->nr_weights++;
	}
	return 0;
}

static int stack_frame(void *arg, const struct ex_frame *f)
{
	struct pexp *e = arg;
	struct ex_frame *k = &e->frames[e->nr_frames++];

	*k = *f;
	if (f->name == f->hex)	/* an address: in the copy's own room */
		k->name = k->hex;
	return 0;
}

static int on_sample(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *r)
{
	struct pexp *e = arg;
	struct cpu *c = NULL;
	struct sw w = { 0 };
	uint64_t iid;
	int m, err;

	e->x.st->samples++;
	if (!(s->present & PERF_SAMPLE_TIME))
		return 0;	/* not on the timeline */
	m = pebs_filter__match(e->x.o->filter, r, s->time);
	if (m == PEBS_FILTER_DROP || m == PEBS_FILTER_ASIDE)
		return 0;	/* not a sample of the trace at all */
	if (s->present & PERF_SAMPLE_CPU) {
		c = cpu_of(e, r->cpu);
		if (!c && r->cpu < PEBS_MAX_CPUS)
			return oom();
	}
	/* another thread on the CPU than at its last sample: a switch */
	if (c && (!c->have_tid || c->tid != r->tid)) {
		w = (struct sw){ .time = s->time, .cpu = r->cpu,
				 .src = SRC_SAMPLES, .next_pid = r->pid,
				 .next_tid = r->tid };
		if (c->have_tid) {
			w.prev_pid = c->pid;
			w.prev_tid = c->tid;
		}
		c->have_tid = true;
		c->pid = r->pid;
		c->tid = r->tid;
		err = add_switch(e, &w);
		if (err)
			return err;
		c = &e->cpus[r->cpu];	/* the table may have moved */
	}
	if (m != PEBS_FILTER_PASS)
		return 0;
	e->x.st->exported++;
	err = thread(e, s->time, r->pid, r->tid);
	e->nr_frames = 0;
	if (!err)
		err = ex_stack(e->x.syms, s, r, stack_frame, e);
	if (!err)
		err = ex_trace__callstack(&e->t, e->frames, e->nr_frames, &iid);
	if (err)
		return err;
	e->body.len = 0;
	ex_pb__uint(&e->body, 1, c ? r->cpu : 0);
	ex_pb__uint(&e->body, 2, r->pid > 0 ? (uint32_t)r->pid : 0);
	ex_pb__uint(&e->body, 3, r->tid > 0 ? (uint32_t)r->tid : 0);
	ex_pb__uint(&e->body, 4, iid);
	ex_pb__uint(&e->body, 5, r->kernel ? 1 : 2);
	err = ex_trace__packet(&e->t, s->time, 66, &e->body);
	if (!err && c)
		err = count(e, c, r->cpu, s->time, r);
	return err;
}

/* the clock of the recording's timestamps, as Perfetto's perf importer
   names it: perf's own unless the events chose one (use_clockid) */
static uint32_t trace_clock(const struct perf_event_attr *a)
{
	if (!a || !a->use_clockid)
		return EX_CLOCK_PERF;
	switch (a->clockid) {
	case 0:
		return EX_CLOCK_REALTIME;
	case 1:
		return EX_CLOCK_MONOTONIC;
	case 4:
		return EX_CLOCK_MONOTONIC_RAW;
	case 7:
		return EX_CLOCK_BOOTTIME;
	default:
		return EX_CLOCK_PERF;
	}
}

/* which events' switch records are the kernel's (context_switch) */
static int scan_attrs(struct pexp *e)
{
	const struct perf_event_attr *a;
	unsigned int i;

	e->cs = calloc(e->x.nr_attrs + 1, sizeof(*e->cs));
	if (!e->cs)
		return oom();
	for (i = 0; i < e->x.nr_attrs; i++) {
		a = pebs_perfdata__attr(e->x.pd, i, NULL, NULL);
		e->cs[i] = a && a->context_switch;
	}
	return 0;
}

/* the end: the source if not chosen, the last counters and bundles */
static int finish(struct pexp *e)
{
	uint32_t i;
	int err = e->src < 0 ? choose(e) : 0;

	for (i = 0; !err && i < e->nr_cpus; i++)
		err = flush_counters(e, i, 0, true);
	for (i = 0; !err && i < e->nr_cpus; i++)
		err = flush_bundle(e, i);
	return err;
}

static void pexp_free(struct pexp *e)
{
	uint32_t i;

	for (i = 0; i < e->nr_cpus; i++)
		ex_pb__free(&e->cpus[i].bundle);
	free(e->cpus);
	free(e->pending);
	free(e->cs);
	ex_pb__free(&e->body);
	ex_pb__free(&e->ev);
	ex_pb__free(&e->sub);
	ex_intern__free(&e->seen_threads);
	ex_intern__free(&e->seen_procs);
}

int pebs_export__perfetto(struct pebs_session *ss,
			  const struct pebs_export_opts *o,
			  struct pebs_export_stats *st)
{
	struct pexp e = { .src = -1 };
	int err, cerr;

	if (!ss || !o || o->sz < sizeof(*o) || !o->output ||
	    o->split != PEBS_EXPORT_SPLIT_NONE)
		return core_err(-EINVAL, "export: no session or output, or a "
				"split (pprof's only)");
	ex_src__init(&e.x, ss, o, st);
	e.threads = pebs_session__threads(ss);
	err = scan_attrs(&e);
	if (!err)
		err = ex_trace__open(&e.t, o->output,
				     trace_clock(pebs_perfdata__attr(e.x.pd, 0,
								     NULL,
								     NULL)),
				     e.x.bids, e.x.bids_size);
	if (err) {
		pexp_free(&e);
		return err;
	}
	err = pebs_session__set_records(ss, on_record, &e);
	if (!err)
		err = pebs_session__process(ss, false, on_sample, &e, NULL);
	pebs_session__set_records(ss, NULL, NULL);
	if (err == -ENOMEM)
		oom();
	if (!err || err == -EBADMSG) {
		cerr = finish(&e);
		if (cerr)
			err = cerr;
	}
	cerr = ex_trace__close(&e.t, (!err || err == -EBADMSG) &&
				     e.x.st->exported);
	if (cerr && (!err || err == -EBADMSG))
		err = cerr;
	e.x.st->files = (!err || err == -EBADMSG) && e.x.st->exported;
	pexp_free(&e);
	if (err == -EBADMSG)
		core_err(err, "a damaged record: the trace holds the records "
			 "before it");
	return err;
}
