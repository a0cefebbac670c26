// SPDX-License-Identifier: MIT
/*
 * record-reopen.c - the duty cycle's off windows with the sampled events
 * closed (record-duty.c switches them): each window opens them again on
 * what is sampled then, each thread of the command's or the pids'
 * process trees, every CPU of -a/-C, the tids of -t, at the periods the
 * controller set last; the off window closes them, after their records
 * are drained and their counts and lost counts kept. The reopened
 * channels' ids are not in the file's header: their records are written
 * with the id of the event's channel on the same CPU at the start
 * (rec_alias).
 */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include "record/record-int.h"
#include "core/internal.h"

/* channels enabled between two drains of the rings in a window's start */
#define DRAIN_EVERY	64

/*
 * Closing is chosen when the rings are the tracking event's (it opens
 * first on each CPU and is never closed). Groups too: each window opens
 * a thread's (or CPU's) events in their order, so a group's leader
 * before its members (pebs_chanset__open_event), and each event reads
 * its own count (a group is opened without PERF_FORMAT_GROUP)
 */
int rec_reopen_init(struct pebs_recorder *r)
{
	struct rec_budget *bu = &r->bud;
	unsigned int n = pebs_chanset__nr_channels(r->set);

	bu->closes = r->tracking;
	if (!bu->closes)
		return 0;
	for (unsigned int i = 0; i < r->nr_evs; i++)
		pebs_sample_layout__init(&bu->layout[i], &r->attrs[i]);
	bu->orig = calloc(n ? n : 1, sizeof(*bu->orig));
	if (!bu->orig)
		return core_err(-ENOMEM, "out of memory");
	for (unsigned int i = 0; i < n; i++) {
		struct pebs_channel *ch = pebs_chanset__channel(r->set, i);
		struct rec_orig *o = &bu->orig[bu->nr_orig];

		if (!ch || rec_ev_of(r, ch) == r->nr_evs ||
		    pebs_channel__id(ch, &o->id))
			continue;
		o->ev = rec_ev_of(r, ch);
		o->cpu = pebs_channel__cpu(ch);
		o->pid = pebs_channel__pid(ch);
		bu->nr_orig++;
	}
	return 0;
}

/* ---- the reopened channels' ids, as ids of the file -------------------- */

/*
 * Two tables of id -> the file's id, open addressing (key 0: free): the
 * channels of this window and those of the one before, whose records
 * the attribution may still hold (it writes them at the end of a round,
 * and a window is several rounds); older ones are forgotten, so the
 * tables hold two windows' channels at most.
 */
static uint64_t *slot_of(struct rec_alias_tab *t, uint64_t id)
{
	unsigned int i = (unsigned int)(id * 0x9e3779b97f4a7c15ull >> 40) & t->mask;

	while (t->kv[2 * i] && t->kv[2 * i] != id)
		i = (i + 1) & t->mask;
	return &t->kv[2 * i];
}

static int alias_add(struct rec_alias_tab *t, uint64_t id, uint64_t as)
{
	uint64_t *kv;

	if (!id)
		return 0;
	if (2 * (t->n + 1) > t->mask) {
		struct rec_alias_tab big = { .mask = t->mask ? 2 * t->mask + 1 : 63 };

		big.kv = calloc(2 * (size_t)(big.mask + 1), sizeof(*big.kv));
		if (!big.kv)
			return core_err(-ENOMEM, "out of memory");
		for (unsigned int i = 0; t->kv && i <= t->mask; i++)
			if (t->kv[2 * i])
				alias_add(&big, t->kv[2 * i], t->kv[2 * i + 1]);
		free(t->kv);
		*t = big;
	}
	kv = slot_of(t, id);
	t->n += !kv[0];
	kv[0] = id;
	kv[1] = as;
	return 0;
}

/* the last window's table becomes the one before, emptied of older ids */
static void alias_turn(struct rec_budget *bu)
{
	struct rec_alias_tab old = bu->alias[1];

	bu->alias[1] = bu->alias[0];
	bu->alias[0] = old;
	if (old.kv)
		memset(old.kv, 0, 2 * (size_t)(old.mask + 1) * sizeof(*old.kv));
	bu->alias[0].n = 0;
}

const struct perf_event_header *rec_alias(struct pebs_recorder *r,
					  const struct perf_event_attr *attr,
					  const struct perf_event_header *ev)
{
	struct rec_budget *bu = &r->bud;
	size_t at;
	uint64_t id, *kv = NULL;

	/* the id is a sample's first field, another record's last */
	if (!bu->alias[0].n && !bu->alias[1].n)
		return ev;
	if (!(attr->sample_type & PERF_SAMPLE_IDENTIFIER) || ev->size < 16)
		return ev;
	if (ev->type == PERF_RECORD_SAMPLE)
		at = sizeof(*ev);
	else if (attr->sample_id_all)
		at = ev->size - 8u;
	else
		return ev;
	memcpy(&id, (const char *)ev + at, sizeof(id));
	for (unsigned int i = 0; i < 2 && (!kv || !kv[0]); i++)
		if (bu->alias[i].kv)
			kv = slot_of(&bu->alias[i], id);
	if (!kv || !kv[0])
		return ev;
	if (!bu->patch && !(bu->patch = malloc(REC_ALIAS_MAX)))
		return ev;	/* unpatched: perf warns of an unknown id */
	memcpy(bu->patch, ev, ev->size);
	memcpy((char *)bu->patch + at, &kv[1], sizeof(kv[1]));
	return (const struct perf_event_header *)bu->patch;
}

size_t rec_period_at(uint64_t sample_type)
{
	const uint64_t before = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
				PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
				PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU;

	/* the fields before PERIOD are one u64 each */
	return sizeof(struct perf_event_header) + 8u * (unsigned int)
	       __builtin_popcountll(sample_type & before);
}

int rec_period_in(struct pebs_recorder *r, unsigned int ev,
		  const struct pebs_channel *ch, struct pebs_sample *s,
		  const struct perf_event_header **raw)
{
	const struct perf_event_attr *a = pebs_channel__attr(ch);
	struct rec_budget *bu = &r->bud;
	struct perf_event_header *h;
	size_t at;

	if ((a->sample_type & PERF_SAMPLE_PERIOD) ||
	    !(r->attrs[ev].sample_type & PERF_SAMPLE_PERIOD))
		return 0;
	at = rec_period_at(a->sample_type);
	if ((*raw)->size < at || (*raw)->size + 8u > UINT16_MAX)
		return core_err(-EBADMSG, "a %u-byte sample of %s has no room "
				"for its sample_type 0x%llx and a period",
				(*raw)->size, r->evs[ev].name,
				(unsigned long long)a->sample_type);
	if (!bu->with_period && !(bu->with_period = malloc(REC_ALIAS_MAX)))
		return core_err(-ENOMEM, "out of memory");
	h = bu->with_period;
	memcpy(h, *raw, at);
	memcpy((char *)h + at, &a->sample_period, 8);
	memcpy((char *)h + at + 8, (const char *)*raw + at, (*raw)->size - at);
	h->size = (uint16_t)((*raw)->size + 8u);
	*raw = h;
	/* its fields as the file's attr lays them out */
	return pebs_sample__decode(&bu->layout[ev], h, s);
}

void rec_reopen_free(struct pebs_recorder *r)
{
	struct rec_budget *bu = &r->bud;

	free(bu->orig);
	free(bu->alias[0].kv);
	free(bu->alias[1].kv);
	free(bu->patch);
	free(bu->with_period);
	bu->with_period = NULL;
	bu->orig = NULL;
	bu->nr_orig = 0;
	memset(bu->alias, 0, sizeof(bu->alias));
	bu->patch = NULL;
}

/*
 * The samples a window holds at least: a channel opened counts from 0,
 * so a window's events after its last sample are not seen, and one with
 * fewer events than a period had no sample at all: sampled at the
 * minimum rate, 100/s (the controller's period in a duty cycle before
 * it chose one whose samples cost what counting does), most windows of
 * a few ms had none, and only those of the phases where the events were
 * densest were seen
 */
#define WINDOW_SAMPLES	8

/*
 * Event @ev's period in the window that opens on @nr_on threads (or
 * CPUs), each event counting its own: the controller's, or shorter so
 * that the window holds WINDOW_SAMPLES per thread at the rate the events
 * had while enabled shared among them (an event counted per occurrence:
 * its samples cost far less than its counting), within -c's floor and
 * the rate limit
 */
static uint64_t window_period(const struct pebs_recorder *r, unsigned int ev,
			      unsigned int nr_on)
{
	const struct rec_budget *bu = &r->bud;
	const struct rec_duty *du = &bu->duty;
	uint64_t p = bu->period[ev];
	uint64_t win = du->cycle_end ? du->win :
		       PEBS_RECORDER_BUDGET_INTERVAL_NS;
	double want;

	if (!p || !bu->freq[ev] || !(bu->on_rate[ev] > 0))
		return p;
	want = bu->on_rate[ev] * (double)win /
	       (WINDOW_SAMPLES * (double)(nr_on ? nr_on : 1));
	if (bu->max_rate)
		want = fmax(want, bu->on_rate[ev] * 1e9 / bu->max_rate);
	want = fmax(fmax(want, (double)r->o.period), 1);
	return want < (double)p ? (uint64_t)want : p;
}

/* the id in the header that @ch's records are written with */
static uint64_t file_id(const struct pebs_recorder *r, unsigned int ev,
			const struct pebs_channel *ch)
{
	const struct rec_budget *bu = &r->bud;
	int cpu = pebs_channel__cpu(ch);
	uint64_t first = 0;

	for (unsigned int i = 0; i < bu->nr_orig; i++) {
		const struct rec_orig *o = &bu->orig[i];

		if (o->ev != ev)
			continue;
		if (!first)
			first = o->id;
		if (o->cpu == cpu && (cpu >= 0 || o->pid == pebs_channel__pid(ch)))
			return o->id;
	}
	return first;
}

/*
 * The threads of the processes of @roots and of their descendants: each
 * process's /proc/PID/task, each thread's children
 * (/proc/PID/task/TID/children) added to the processes to walk. Both
 * lists are appended to without a search (a command of thousands of
 * processes made each window's scan quadratic) and the threads merged
 * into @tasks once, without repeats (core_ids_merge); a process is in
 * one children file at a time, so a repeat is one reparented during
 * the scan, walked again.
 */
static int tree(const struct pebs_ids *roots, struct pebs_ids *tasks)
{
	struct pebs_ids procs = { 0 }, got = { 0 }, one = { 0 };
	char path[64];
	int err = 0;

	for (unsigned int i = 0; i < roots->n && !err; i++)
		err = pebs_ids__push(&procs, roots->v[i]);
	for (unsigned int i = 0; i < procs.n && !err; i++) {
		one.n = 0;
		/* a process gone meanwhile has no thread to open on */
		err = pebs_proc__tasks(procs.v[i], &one);
		if (err == -ESRCH) {
			err = 0;
			continue;
		}
		for (unsigned int j = 0; j < one.n && !err; j++) {
			FILE *f;
			int child;

			err = pebs_ids__push(&got, one.v[j]);
			snprintf(path, sizeof(path), "/proc/%d/task/%d/children",
				 (int)procs.v[i], one.v[j]);
			f = err ? NULL : fopen(path, "re");
			if (!f)
				continue;
			while (!err && fscanf(f, "%d", &child) == 1)
				err = pebs_ids__push(&procs, child);
			fclose(f);
		}
	}
	if (!err)
		err = core_ids_merge(tasks, got.v, got.n);
	pebs_ids__free(&procs);
	pebs_ids__free(&got);
	pebs_ids__free(&one);
	return err ? core_err(err, "out of memory") : 0;
}

/*
 * What to open on: the threads of the trees when the events are
 * inherited (the command's, or those of the pids' processes), else the
 * targets as at the start (CPUs, the tids)
 */
static int what(struct pebs_recorder *r, struct pebs_ids *on)
{
	struct pebs_ids roots = { 0 };
	int err;

	if (r->per_cpu || !r->copts.inherit) {
		for (unsigned int i = 0; i < r->targets.n; i++)
			if (pebs_ids__push(on, r->targets.v[i]))
				return core_err(-ENOMEM, "out of memory");
		return 0;
	}
	if (r->o.cmd)
		err = pebs_ids__push(&roots, r->child.pid) ?
		      core_err(-ENOMEM, "out of memory") : 0;
	else
		err = 0;
	for (unsigned int i = 0; !err && !r->o.cmd && i < r->procs.n; i++) {
		pid_t tgid = pebs_proc__tgid(r->procs.v[i]);

		if (tgid > 0 && pebs_ids__add(&roots, tgid))
			err = core_err(-ENOMEM, "out of memory");
	}
	if (!err)
		err = tree(&roots, on);
	pebs_ids__free(&roots);
	return err;
}

/*
 * A new channel of event @ev: its frequency now (opened in freq mode,
 * before the controller set a period), its alias, enabled
 */
static int start(struct pebs_recorder *r, unsigned int ev,
		 struct pebs_channel *ch)
{
	const struct perf_event_attr *a = pebs_channel__attr(ch);
	uint64_t want = r->evs[ev].attr.sample_freq, id;
	int err = 0;

	if (a->freq && want && want != a->sample_freq)
		err = pebs_channel__set_period(ch, want);
	if (!err && !pebs_channel__id(ch, &id))
		err = alias_add(&r->bud.alias[0], id, file_id(r, ev, ch));
	return err ? err : pebs_channel__enable(ch);
}

/*
 * Every DRAIN_EVERY channels switched (@n counts them), what the rings
 * hold read: with hundreds of threads on a busy machine the recorder,
 * one runnable thread among them, took seconds to enable (or disable)
 * them all, while the channels already on filled the rings (300 idle
 * threads and ~170 taking page faults under --budget 5%: no sample lost
 * in three runs, where reading only between windows lost 0-78,846 in
 * five)
 */
static int drain_every(struct pebs_recorder *r, unsigned int *n)
{
	return ++*n % DRAIN_EVERY ? 0 : rec_drain_round(r);
}

int rec_reopen_open(struct pebs_recorder *r)
{
	struct pebs_ids on = { 0 };
	unsigned int n;
	int err = what(r, &on);

	for (unsigned int i = 0; !err && i < on.n; i++) {
		/*
		 * at the period set last, fixed: in freq mode each window
		 * restarted the kernel's adaptation from period 1, whose
		 * samples then carried periods thousands of times the
		 * events they stood for (1.5 M page faults at --budget 1%:
		 * 1457 samples whose periods summed to 148 M)
		 */
		for (unsigned int ev = 0; !err && ev < r->nr_evs; ev++)
			err = pebs_chanset__open_event(r->set, ev, on.v[i],
						       window_period(r, ev, on.n));
		/* a thread (or the tid, or the CPU) gone meanwhile */
		if (err == -ESRCH || err == -ENODEV)
			err = 0;
		else if (err == -EMFILE || err == -ENFILE)
			err = core_err(err, "%u threads x %u CPUs of events are more than the open files allowed: raise ulimit -n",
				       on.n, (unsigned int)sysconf(_SC_NPROCESSORS_ONLN));
	}
	pebs_ids__free(&on);
	/* a new channel may sit where a freed one was: the cache forgets */
	r->last_ch = NULL;
	if (err)
		return err;
	alias_turn(&r->bud);
	/*
	 * from the last channel down: a drain removes a thread gone
	 * meanwhile by moving the set's last target into its place, which
	 * is then one already started (started again: the same alias, the
	 * event enabled twice), never one skipped
	 */
	n = pebs_chanset__nr_channels(r->set);
	for (unsigned int i = n, started = 0; i-- > 0 && !err;) {
		struct pebs_channel *ch = pebs_chanset__channel(r->set, i);
		unsigned int ev = ch ? rec_ev_of(r, ch) : r->nr_evs;

		if (ev < r->nr_evs)
			err = start(r, ev, ch);
		if (!err && ev < r->nr_evs)
			err = drain_every(r, &started);
	}
	return err;
}

int rec_reopen_close(struct pebs_recorder *r)
{
	struct rec_budget *bu = &r->bud;
	unsigned int n = pebs_chanset__nr_channels(r->set);
	int err = 0;

	/* stopped, then what their rings hold written (a thread a drain
	   removes moves the last target into its place: one not stopped
	   then is closed below all the same) */
	for (unsigned int i = 0, stopped = 0; i < n && !err; i++) {
		struct pebs_channel *ch = pebs_chanset__channel(r->set, i);

		if (!ch || rec_ev_of(r, ch) == r->nr_evs)
			continue;
		pebs_channel__disable(ch);
		err = drain_every(r, &stopped);
	}
	if (err)
		return err;
	err = rec_drain_round(r);
	if (err < 0)
		return err;
	n = pebs_chanset__nr_channels(r->set);
	for (unsigned int i = 0; i < n && !err; i++) {
		struct pebs_channel *ch = pebs_chanset__channel(r->set, i);
		unsigned int ev = ch ? rec_ev_of(r, ch) : r->nr_evs;
		uint64_t v[5];	/* { value, then what read_format adds } */

		if (ev == r->nr_evs)
			continue;
		/* its count and its lost samples outlive it */
		if (read(pebs_channel__fd(ch), v, sizeof(v)) >=
		    (ssize_t)sizeof(v[0]))
			bu->closed[ev] += v[0];
		err = rec_write_lost(r, ch);
	}
	for (unsigned int ev = 0; ev < r->nr_evs && !err; ev++)
		err = pebs_chanset__close_event(r->set, ev);
	/* the channel -> event cache may name a freed channel */
	r->last_ch = NULL;
	return err;
}

bool pebs_recorder__closes(const struct pebs_recorder *r)
{
	return r && r->bud.b && r->bud.closes;
}
