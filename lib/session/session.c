// SPDX-License-Identifier: MIT
/*
 * session.c - a recording replayed in time order, as perf's session:
 * the threads (pebs_threads) and address spaces (pebs_symbols, maps
 * over time) follow the COMM, FORK, EXIT, MMAP and MMAP2 records, and
 * each sample reaches the caller resolved against the state of its
 * time (comm, dso, symbol, data object, period) as a
 * pebs_report_sample.
 *
 * Opening scans the file once: samples per event, first and last
 * sample time, and the kernel's maps, so that the kernel's build id is
 * checked before the first sample; from the first kernel address met
 * (sample or call chain), when the build ids already tell,
 * /proc/kallsyms is read on a thread meanwhile, and waited for only at
 * the first kernel address resolved (syms_kernel_defer). Without
 * kernel addresses it is not read at all.
 *
 * A budgeted recording's PEBS_CYCLE_EVENT samples are the session's
 * own: they number the duty cycles the other samples are in
 * (pebs_report_sample.cycle) and are not counted or delivered.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/session.h"
#include "perfdata/perfdata-int.h"
#include "session/session-int.h"
#include "symbols/symbols-int.h"

struct pebs_session {
	struct pebs_perfdata *pd;
	struct pebs_threads *threads;
	struct pebs_symbols *syms;
	struct pebs_session_stats st;
	size_t events_cap;	/* st.event_samples' room (core_grow) */
	size_t id_size;		/* sample_id trailer of non-sample records */
	bool data;		/* resolve data addresses */
	pebs_session_fn fn;
	void *arg;
	struct ss_hook *hooks;	/* ss_hook__set, in order */
	unsigned int nr_hooks;
	uint32_t pid0, tid0;	/* the first sample's thread */
	bool threads_seen, more_threads;	/* one, two or more */
	uint64_t kernel_max;	/* the highest kernel address of a sample,
				   or 0 */
	bool stream;		/* no scan (pebs_session__new_stream): the
				   counts and the kernel's symbols as the
				   pass goes */
	uint64_t *chain;	/* a DWARF-unwound sample's call chain */
	size_t chain_cap;
	unsigned int cycle_ev;	/* PEBS_CYCLE_EVENT's attr, or UINT_MAX */
	uint32_t cycle;		/* the samples' duty cycle now, 0: none */
	uint32_t cycles;	/* the cycles begun so far in the pass */
	struct pebs_srcline *srcl;	/* pebs_session__set_srclines */
	struct core_strset srcstr;	/* their strings, interned */
	uint64_t quantum;	/* the time slices' length, ns */
};

/* perf's default max_stack (sysctl kernel.perf_event_max_stack) */
#define UNWIND_MAX	127

struct ss_hook {
	const struct ss_hook_ops *ops;
	void *arg;
};

static int oom(void)
{
	return core_err(-ENOMEM, "session: out of memory");
}

static void unhook(const struct ss_hook *h)
{
	if (h->ops->free)
		h->ops->free(h->arg);
}

static int count_sample(struct pebs_session *ss, const struct pebs_sample *s,
			unsigned int idx)
{
	struct pebs_session_stats *st = &ss->st;

	/* doubled, not grown to each new index: a file whose samples name
	   its events in rising order costs linear time */
	if (idx >= st->nr_events) {
		if (core_grow_zero(&st->event_samples, &ss->events_cap,
				   (size_t)idx + 1, sizeof(*st->event_samples)))
			return oom();
		st->nr_events = idx + 1;
	}
	st->event_samples[idx]++;
	if (ss->threads_seen && (s->pid != ss->pid0 || s->tid != ss->tid0))
		ss->more_threads = true;
	if (!ss->threads_seen) {
		ss->threads_seen = true;
		ss->pid0 = s->pid;
		ss->tid0 = s->tid;
	}
	if (s->present & PERF_SAMPLE_TIME) {
		if (!st->first_time || s->time < st->first_time)
			st->first_time = s->time;
		if (s->time > st->last_time)
			st->last_time = s->time;
	}
	return 0;
}

/* The highest kernel address of @s (its ip, its call chain's kernel
   part), or 0. */
static uint64_t kernel_max(const struct pebs_sample *s)
{
	uint64_t ip, max = s->ip >= KERNEL_START ? s->ip : 0;
	size_t i;

	for (i = 0; (s->present & PERF_SAMPLE_CALLCHAIN) &&
		    i < s->callchain_nr; i++) {
		memcpy(&ip, &s->callchain[i], sizeof(ip));
		if (ip == PERF_CONTEXT_USER)
			break;	/* the user part follows */
		if (ip >= KERNEL_START && ip < PERF_CONTEXT_MAX && ip > max)
			max = ip;
	}
	return max;
}

/* The scan: events' samples, the time span, the kernel's maps. */
static int scan(struct pebs_session *ss)
{
	const struct perf_event_header *ev;
	uint64_t released = ss->pd->data_start;
	struct pebs_record rec;
	struct pebs_sample s;
	unsigned int idx;
	uint64_t kmax;
	int ret, err;

	while ((ret = pebs_perfdata__next(ss->pd, &ev)) > 0) {
		/* the scan keeps nothing of the file */
		released = pd_release(ss->pd, released, ss->pd->pos);
		if (ev->type == PERF_RECORD_SAMPLE) {
			if (pebs_perfdata__sample(ss->pd, ev, &s, &idx))
				continue;
			if (idx == ss->cycle_ev) {	/* not the program's */
				ss->st.cycles += s.period > 1;
				continue;
			}
			if ((err = count_sample(ss, &s, idx)))
				return err;
			kmax = kernel_max(&s);
			if (kmax && !ss->kernel_max)	/* the first */
				syms_kernel_start(ss->syms);
			if (kmax > ss->kernel_max)
				ss->kernel_max = kmax;
		} else if ((ev->type == PERF_RECORD_MMAP ||
			    ev->type == PERF_RECORD_MMAP2) &&
			   !pebs_record__decode(ev, 0, &rec) &&
			   (int32_t)rec.mmap.pid == -1 &&
			   pebs_symbols__add_record(ss->syms, ev) == -ENOMEM) {
			return oom();
		}
	}
	pd_release(ss->pd, released, ss->pd->data_end);
	pebs_perfdata__rewind(ss->pd);
	/* the kernel symbols above are not needed: may be left unread */
	syms_kernel_limit(ss->syms, ss->kernel_max);
	return 0;
}

static int session_new(struct pebs_perfdata *pd, bool stream,
		       struct pebs_session **sp)
{
	const struct perf_event_attr *a;
	struct pebs_sample_layout l;
	struct pebs_session *ss;
	const void *data;
	size_t size;
	int err, cyc;

	if (!pd || !sp)
		return core_err(-EINVAL, "session: no file");
	ss = calloc(1, sizeof(*ss));
	if (!ss)
		return oom();
	ss->pd = pd;
	err = pebs_threads__new(&ss->threads);
	err = err ?: pebs_symbols__new(&ss->syms);
	a = pebs_perfdata__attr(pd, 0, NULL, NULL);
	if (!err && a && a->sample_id_all &&
	    !pebs_sample_layout__init(&l, a))
		ss->id_size = l.id_size;
	/* build ids first: a kernel MMAP2 may carry one too */
	if (!err && !pebs_perfdata__feat(pd, PEBS_FEAT_BUILD_ID, &data,
					 &size) &&
	    pebs_symbols__add_build_ids(ss->syms, data, size) == -ENOMEM)
		err = oom();
	ss->stream = stream;
	cyc = pebs_perfdata__cycle_event(pd);
	ss->cycle_ev = cyc < 0 ? UINT_MAX : (unsigned int)cyc;
	ss->quantum = 100000000;	/* perf's --time-quantum: 100 ms */
	err = err ?: stream ? 0 : scan(ss);
	if (err) {
		pebs_session__delete(ss);
		return err;
	}
	/* waited for at the first kernel address (streaming: decided
	   there, from the build ids and kernel maps met by then) */
	if (!stream)
		ss->st.kernel = syms_kernel_defer(ss->syms);
	*sp = ss;
	return 0;
}

int pebs_session__new(struct pebs_perfdata *pd, struct pebs_session **sp)
{
	return session_new(pd, false, sp);
}

int pebs_session__new_stream(struct pebs_perfdata *pd,
			     struct pebs_session **sp)
{
	return session_new(pd, true, sp);
}

/* pebs_session__set_records: the caller's function as a record hook */
struct rec_hook {
	pebs_session_record_fn fn;
	void *arg;
};

static int rec_hook_record(void *arg, const struct perf_event_header *ev)
{
	struct rec_hook *h = arg;

	return h->fn(h->arg, ev);
}

static const struct ss_hook_ops rec_hook_ops = {
	.sz = sizeof(rec_hook_ops),
	.record = rec_hook_record,
	.free = free,
};

int pebs_session__set_records(struct pebs_session *ss,
			      pebs_session_record_fn fn, void *arg)
{
	struct rec_hook *h = NULL;

	if (!ss)
		return core_err(-EINVAL, "session: none");
	if (fn) {
		h = malloc(sizeof(*h));
		if (!h)
			return oom();
		h->fn = fn;
		h->arg = arg;
	}
	return ss_hook__set(ss, &rec_hook_ops, h);
}

/* Streaming: the counts of the scan, and the kernel's symbols decided
   at the first kernel address. */
static int stream_sample(struct pebs_session *ss, const struct pebs_sample *s,
			 unsigned int idx)
{
	int err = count_sample(ss, s, idx);

	if (!err && !ss->kernel_max && kernel_max(s)) {
		ss->kernel_max = kernel_max(s);
		ss->st.kernel = syms_kernel_defer(ss->syms);
	}
	return err;
}

void pebs_session__delete(struct pebs_session *ss)
{
	if (!ss)
		return;
	pebs_threads__delete(ss->threads);
	pebs_symbols__delete(ss->syms);
	for (unsigned int i = 0; i < ss->nr_hooks; i++)
		unhook(&ss->hooks[i]);
	free(ss->hooks);
	free(ss->chain);
	free(ss->st.event_samples);
	pebs_srcline__delete(ss->srcl);
	core_strset_free(&ss->srcstr);
	free(ss);
}

int pebs_session__set_time_quantum(struct pebs_session *ss, uint64_t ns)
{
	if (!ss || !ns)
		return core_err(-EINVAL, "session: no session or a time "
				"quantum of 0");
	ss->quantum = ns;
	return 0;
}

int pebs_session__set_srclines(struct pebs_session *ss, bool on)
{
	if (!ss)
		return core_err(-EINVAL, "session: none");
	if (!on || ss->srcl)
		return 0;
	return pebs_srcline__new(&ss->srcl);
}

/*
 * perf's srcline and srcfile of a sample (util/srcline.c __get_srcline
 * with its symbol, sort.c hist_entry__get_srcfile): pebs_srcline__perf_
 * str's text, and its file where addr2line answered other than "??:0"
 * (perf's SRCLINE_UNKNOWN), else "". -ENOMEM, else 0.
 */
static int resolve_srcline(struct pebs_session *ss, const struct pebs_sym *sym,
			   struct pebs_report_sample *rs)
{
	char buf[PATH_MAX + 32];
	int r = pebs_srcline__perf_str(ss->srcl, sym, rs->ip, rs->kernel, buf,
				       sizeof(buf));

	if (r < 0)
		return oom();
	rs->srcfile = "";	/* one pointer: rows compare them */
	rs->srcline = core_strset_add(&ss->srcstr, buf);
	if (!rs->srcline)
		return oom();
	if (r == 1 && strcmp(buf, "??:0") && buf[0] != ':') {
		*strrchr(buf, ':') = '\0';
		rs->srcfile = core_strset_add(&ss->srcstr, buf);
	}
	return rs->srcfile ? 0 : oom();
}

const struct pebs_session_stats *
pebs_session__stats(const struct pebs_session *ss)
{
	return &ss->st;
}

struct pebs_threads *pebs_session__threads(struct pebs_session *ss)
{
	return ss->threads;
}

struct pebs_symbols *pebs_session__symbols(struct pebs_session *ss)
{
	return ss->syms;
}

/* A sample against the threads and maps of its time: 0 or -ENOMEM. */
static int resolve(struct pebs_session *ss,
		    const struct perf_event_header *ev,
		    const struct pebs_sample *s, unsigned int idx,
		    struct pebs_report_sample *rs)
{
	uint16_t mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const struct perf_event_attr *a;
	struct pebs_sym sym;

	memset(rs, 0, sizeof(*rs));
	rs->pid = (int32_t)s->pid;
	rs->tid = (int32_t)s->tid;
	/* not sampled: perf's (u32)-1, its cpu key's "-001" */
	rs->cpu = s->present & PERF_SAMPLE_CPU ? s->cpu : UINT32_MAX;
	rs->event = idx;
	rs->cycle = ss->cycle;
	if (s->present & PERF_SAMPLE_TIME)	/* perf's hist_time */
		rs->time = s->time - s->time % ss->quantum;
	rs->comm = pebs_threads__comm(ss->threads, rs->pid, rs->tid);
	rs->kernel = mode == PERF_RECORD_MISC_KERNEL ||
		     (mode == PERF_RECORD_MISC_CPUMODE_UNKNOWN &&
		      s->ip >= KERNEL_START);
	pebs_symbols__resolve(ss->syms, (pid_t)s->pid, s->ip, &sym);
	rs->dso = sym.dso;
	rs->sym = sym.name;
	/* unresolved: perf shows the address within the file */
	rs->ip = sym.dso && !rs->kernel ? sym.dso_offset : s->ip;
	if (ss->srcl && resolve_srcline(ss, &sym, rs))
		return -ENOMEM;
	rs->has_addr = (s->present & PERF_SAMPLE_ADDR) && s->addr;
	rs->has_src = (s->present & PERF_SAMPLE_DATA_SRC) && s->data_src;
	rs->has_weight = (s->present & (PERF_SAMPLE_WEIGHT |
					PERF_SAMPLE_WEIGHT_STRUCT)) &&
			 s->weight;
	rs->has_phys = (s->present & PERF_SAMPLE_PHYS_ADDR) && s->phys_addr;
	rs->addr = s->addr;
	rs->data_src = s->data_src;
	rs->weight = s->weight;
	/* perf's ins_lat: WEIGHT_STRUCT's var2_w */
	if (s->present & PERF_SAMPLE_WEIGHT_STRUCT)
		rs->ins_lat = s->weight2;
	rs->phys_addr = s->phys_addr;
	/* as perf's ip__resolve_data: in the maps of the sample's mode, so
	   a kernel-mode access to a user address is in no known object */
	if (ss->data && rs->has_addr &&
	    (!rs->kernel || s->addr >= KERNEL_START)) {
		pebs_symbols__resolve_data(ss->syms, (pid_t)s->pid, s->addr,
					   &sym);
		rs->data_dso = sym.dso;
		rs->data_sym = sym.name;
		rs->data_sym_off = sym.offset;
	}
	for (unsigned int i = 0; rs->has_addr && i < ss->nr_hooks; i++)
		if (ss->hooks[i].ops->label)
			ss->hooks[i].ops->label(ss->hooks[i].arg, s, rs);
	if (s->present & PERF_SAMPLE_PERIOD) {
		rs->period = s->period;
	} else {
		/* as perf: the attr's period (1 in frequency mode) */
		a = pebs_perfdata__attr(ss->pd, idx, NULL, NULL);
		rs->period = a && !a->freq && a->sample_period ?
			     a->sample_period : 1;
	}
	return 0;
}

/*
 * A sample recorded with --call-graph dwarf (user registers and stack):
 * its call chain made the kernel's part, then the user frames unwound
 * from the stack copy (lib/symbols/unwind.c), as perf's report and
 * script make it (record_mode CALLCHAIN_DWARF: both REGS_USER and
 * STACK_USER sampled). 0, or -ENOMEM; a sample that cannot be unwound
 * keeps its chain.
 */
static int unwind(struct pebs_session *ss, const struct perf_event_header *ev,
		  struct pebs_sample *s, unsigned int idx)
{
	const struct pd_attr *a = &ss->pd->attrs[idx];
	struct pebs_sample_user u;
	size_t nk = 0, need;
	int n;

	if ((a->attr.sample_type & PEBS_SAMPLE_DWARF) != PEBS_SAMPLE_DWARF ||
	    !(s->present & PERF_SAMPLE_CALLCHAIN))
		return 0;
	if (pebs_sample__user(&a->layout, a->attr.sample_regs_user, ev, &u)) {
		core_err_clear();	/* not unwound: no error */
		return 0;
	}
	/* the kernel's part: up to a user context (none when the user
	   chain was excluded, as perf's dwarf mode excludes it) */
	while (nk < s->callchain_nr) {
		uint64_t ip;

		memcpy(&ip, &s->callchain[nk], sizeof(ip));
		if (ip == PERF_CONTEXT_USER)
			break;
		nk++;
	}
	need = nk + 1 + UNWIND_MAX;
	if (need > ss->chain_cap) {
		uint64_t *c = realloc(ss->chain, need * sizeof(*c));

		if (!c)
			return -ENOMEM;
		ss->chain = c;
		ss->chain_cap = need;
	}
	n = syms_unwind(ss->syms, (pid_t)s->pid, &u, ss->chain + nk + 1,
			UNWIND_MAX);
	if (n <= 0)
		return n;
	if (nk)
		memcpy(ss->chain, s->callchain, nk * sizeof(*ss->chain));
	ss->chain[nk] = PERF_CONTEXT_USER;
	s->callchain = ss->chain;
	s->callchain_nr = nk + 1 + (size_t)n;
	return 0;
}

static int on_record(void *arg, const struct perf_event_header *ev,
		     uint64_t time)
{
	struct pebs_session *ss = arg;
	struct pebs_report_sample rs;
	struct pebs_record rec;
	struct pebs_sample s;
	unsigned int idx, i;
	int err;

	if (ev->type == PERF_RECORD_SAMPLE) {
		if (pebs_perfdata__sample(ss->pd, ev, &s, &idx) ||
		    idx >= pebs_perfdata__nr_attrs(ss->pd)) {
			ss->st.bad++;
			return 0;
		}
		/* a duty cycle begins (PERIOD its length), or ends (1) */
		if (idx == ss->cycle_ev) {
			ss->cycle = s.period > 1 ? ++ss->cycles : 0;
			if (ss->stream)	/* no scan counted them */
				ss->st.cycles += s.period > 1;
			return 0;
		}
		if (unwind(ss, ev, &s, idx))
			return oom();
		if (ss->stream && stream_sample(ss, &s, idx))
			return oom();
		for (i = 0; i < ss->nr_hooks; i++)
			if (ss->hooks[i].ops->sample &&
			    (err = ss->hooks[i].ops->sample(ss->hooks[i].arg,
							     ev, &s, idx)))
				return err;
		if (resolve(ss, ev, &s, idx, &rs))
			return -ENOMEM;
		return ss->fn(ss->arg, &s, &rs);
	}
	for (i = 0; i < ss->nr_hooks; i++)
		if (ss->hooks[i].ops->record &&
		    (err = ss->hooks[i].ops->record(ss->hooks[i].arg, ev)))
			return err;
	if (pebs_record__decode(ev, ss->id_size, &rec))
		return 0;	/* other types, or damaged: skipped */
	switch (rec.type) {
	case PERF_RECORD_LOST:
		ss->st.lost += rec.lost.lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		ss->st.lost_samples += rec.lost.lost;
		return 0;
	case PERF_RECORD_THROTTLE:
		ss->st.throttles++;
		return 0;
	default:
		break;
	}
	if (pebs_threads__add_record(ss->threads, &rec,
				     time == PEBS_ORDERED_NO_TIME ? 0 : time))
		return oom();
	return pebs_symbols__add_record(ss->syms, ev) == -ENOMEM ? oom() : 0;
}

int ss_hook__set(struct pebs_session *ss, const struct ss_hook_ops *ops,
		 void *arg)
{
	struct ss_hook *h;
	unsigned int i;

	if (!ss || !ops || ops->sz != sizeof(*ops))
		return core_err(-EINVAL, "session: bad hook");
	for (i = 0; i < ss->nr_hooks && ss->hooks[i].ops != ops; i++)
		;
	if (i < ss->nr_hooks) {
		unhook(&ss->hooks[i]);
		memmove(&ss->hooks[i], &ss->hooks[i + 1],
			(--ss->nr_hooks - i) * sizeof(*ss->hooks));
	}
	if (!arg)
		return 0;
	h = realloc(ss->hooks, (ss->nr_hooks + 1) * sizeof(*h));
	if (!h) {
		if (ops->free)
			ops->free(arg);
		return oom();
	}
	ss->hooks = h;
	ss->hooks[ss->nr_hooks++] = (struct ss_hook){ ops, arg };
	return 0;
}

struct pebs_perfdata *ss_perfdata(const struct pebs_session *ss)
{
	return ss->pd;
}

bool ss_one_thread(const struct pebs_session *ss)
{
	return !ss->more_threads;
}

int pebs_session__process(struct pebs_session *ss, bool data,
			  pebs_session_fn fn, void *arg, unsigned int *flags)
{
	unsigned int i;
	int err;

	if (!ss || !fn)
		return core_err(-EINVAL, "session: no callback");
	ss->data = data;
	ss->fn = fn;
	ss->arg = arg;
	err = pebs_ordered__process(ss->pd, on_record, ss, flags);
	for (i = 0; i < ss->nr_hooks && err != -ENOMEM; i++) {
		const struct ss_hook *h = &ss->hooks[i];
		int ret = h->ops->finish ? h->ops->finish(h->arg) : 0;

		if (ret)
			return ret;
	}
	return err;
}
