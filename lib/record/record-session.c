// SPDX-License-Identifier: MIT
/*
 * record-session.c - the recorder's callbacks while it runs: samples and
 * records from the channel set through the attribution engine
 * (pebs_attrib) to the output, the kernel's lost counts as
 * PERF_RECORD_LOST_SAMPLES, and the module's switch history as
 * PERF_RECORD_SWITCH_CPU_WIDE (pebs_switchrec) at the end of each round.
 */
#include <errno.h>
#include <string.h>

#include "record/record-int.h"
#include "core/internal.h"

unsigned int rec_ev_of(struct pebs_recorder *r, const struct pebs_channel *ch)
{
	const struct pebs_event *ev;

	if (ch == r->last_ch)
		return r->last_ev;
	ev = pebs_channel__event(ch);
	r->last_ch = ch;
	r->last_ev = 0;
	for (unsigned int i = 0; ev && i < rec_nr_open(r); i++) {
		if (!strcmp(r->evs[i].name, ev->name)) {
			r->last_ev = i;
			break;
		}
	}
	return r->last_ev;
}

/* a sample with its thread, from the attribution engine */
static int emit(void *ctx, unsigned int ev, const struct pebs_sample *s,
		const struct perf_event_header *raw,
		const struct pebs_attrib_who *who)
{
	struct pebs_recorder *r = ctx;
	struct rec_who w = { who->tgid, who->tid };
	int err;

	err = rec_out_sample(r->out, ev, &r->attrs[ev], s,
			     rec_alias(r, &r->attrs[ev], raw), &w);
	if (err)
		r->write_err = err;
	else
		r->csv_rows++;
	return err;
}

static void mismatch(void *ctx, uint32_t cpu, uint64_t time,
		     const struct pebs_attrib_who *sample,
		     const struct pebs_attrib_who *found)
{
	struct pebs_recorder *r = ctx;

	if (r->o.mismatch)
		r->o.mismatch(r->o.ctx, cpu, time, sample, found);
}

static const struct pebs_attrib_cbs acbs = {
	.sz = sizeof(struct pebs_attrib_cbs),
	.emit = emit,
	.mismatch = mismatch,
};

static int on_sample(void *ctx, struct pebs_channel *ch,
		     const struct pebs_sample *s,
		     const struct perf_event_header *raw)
{
	struct pebs_recorder *r = ctx;
	unsigned int ev = rec_ev_of(r, ch);
	struct pebs_sample fixed;
	int err;

	/* reopened at a fixed period: the period the file's samples carry */
	if (r->bud.closes) {
		fixed = *s;
		err = rec_period_in(r, ev, ch, &fixed, &raw);
		if (err)
			return err;
		s = &fixed;
	}
	r->st.samples++;
	r->bud.samples[ev]++;
	/* the newest time read: where a duty cycle's next one starts */
	if (s->present & PERF_SAMPLE_TIME)
		rec_out_saw_time(r->out, s->time);
	if (s->present & PERF_SAMPLE_PERIOD) {
		struct rec_budget *bu = &r->bud;

		/* the events counted: the period as the kernel sampled */
		bu->events[ev] += s->period;
		/* in a duty cycle's window, it stands for its cycle */
		if (bu->closes) {
			err = rec_duty_weigh(r, ev, &fixed, &raw);
			if (err)
				return err;
		}
		if (!bu->carried_max[ev] || s->period < bu->carried_min[ev])
			bu->carried_min[ev] = s->period;
		if (s->period > bu->carried_max[ev])
			bu->carried_max[ev] = s->period;
	}
	return pebs_attrib__sample(r->attrib, ev, s, raw, &acbs, r);
}

static int on_record(void *ctx, struct pebs_channel *ch,
		     const struct perf_event_header *ev)
{
	struct pebs_recorder *r = ctx;
	const struct perf_event_attr *attr = &r->attrs[rec_ev_of(r, ch)];
	struct pebs_attrib_who who;
	struct rec_who w;

	if (ev->type == PERF_RECORD_THROTTLE)
		r->st.throttles++;
	pebs_attrib__record(r->attrib, ev, attr->sample_type, &who);
	w = (struct rec_who){ who.tgid, who.tid };
	return rec_out_record(r->out, attr, rec_alias(r, attr, ev), &w);
}

static void on_lost(void *ctx, struct pebs_channel *ch, uint64_t lost)
{
	struct pebs_recorder *r = ctx;

	(void)ch;
	r->lost_ring += lost;
	rec_count_lost(r);
}

int rec_write_lost(struct pebs_recorder *r, struct pebs_channel *ch)
{
	uint64_t buf[8];
	struct rec_who who = { 0, 0 };
	int n = pebs_channel__lost_record(ch, buf, sizeof(buf));

	if (n <= 0)
		return 0;	/* none, or no per-event count here */
	r->lost_kernel += buf[1];
	rec_count_lost(r);
	return rec_out_record(r->out, pebs_channel__attr(ch),
			      rec_alias(r, pebs_channel__attr(ch),
					(const struct perf_event_header *)buf),
			      &who);
}

int rec_write_lost_of(struct pebs_recorder *r, int target)
{
	int err = 0;

	for (unsigned int i = 0; i < pebs_chanset__nr_channels(r->set) &&
				 !err; i++) {
		struct pebs_channel *ch = pebs_chanset__channel(r->set, i);
		int of;
		bool written = false;

		if (!ch)
			continue;	/* its event closed (record-reopen.c) */
		of = r->per_cpu ? pebs_channel__cpu(ch) : pebs_channel__pid(ch);

		/* the kernel's count is a total: once per channel */
		for (unsigned int j = 0; target < 0 && j < r->gone.n; j++)
			written |= r->gone.v[j] == of;
		if ((target < 0 && !written) || of == target)
			err = rec_write_lost(r, ch);
	}
	if (!err && target >= 0 && pebs_ids__push(&r->gone, target))
		err = -ENOMEM;
	return err;
}

static void on_exit_target(void *ctx, int target)
{
	struct pebs_recorder *r = ctx;
	int err = rec_write_lost_of(r, target);

	if (err && !r->err)
		r->err = core_err(err, "cannot write %s: %s", r->o.output,
				  strerror(-err));
	/* not a thread the duty cycle's windows opened on */
	if (r->targets_left && pebs_ids__has(&r->targets, target))
		r->targets_left--;
	/* its channels are freed now: the channel -> event cache forgets */
	r->last_ch = NULL;
}

const struct pebs_chanset_cbs rec_chanset_cbs = {
	.sz = sizeof(struct pebs_chanset_cbs),
	.on_sample = on_sample,
	.on_record = on_record,
	.on_lost = on_lost,
	.on_exit = on_exit_target,
};

/* ---- the module's history into the file (lib/attrib/attrib-switch.c) --- */

static int write_switch(void *ctx, const struct perf_event_header *ev,
			int32_t pid, int32_t tid)
{
	struct pebs_recorder *r = ctx;
	struct rec_who w = { pid, tid };

	return rec_out_record(r->out, &r->attrs[0], ev, &w);
}

static const PEBS_OPTS(pebs_switchrec_cbs, swcbs, .write = write_switch);

/* from now on, under event 0's id on each CPU (not with switch_events,
   whose records are the kernel's) */
int rec_start_switchrec(struct pebs_recorder *r)
{
	struct pebs_timeline *tl = pebs_attrib__timeline(r->attrib);
	int err;

	if (!tl || !r->per_cpu || r->o.no_switch_history ||
	    r->o.switch_events || r->o.format != PEBS_RECORDER_PERF)
		return 0;
	err = pebs_switchrec__new(tl, &r->attrs[0], &r->swrec);
	err = err ? err : pebs_timeline__update(tl);
	for (unsigned int i = 0; err >= 0 &&
				 i < pebs_chanset__nr_channels(r->set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(r->set, i);
		uint64_t id;

		if (rec_ev_of(r, ch) == 0 && !pebs_channel__id(ch, &id))
			err = pebs_switchrec__set_cpu(r->swrec,
				(unsigned int)pebs_channel__cpu(ch), id);
	}
	return err < 0 ? err : 0;
}

int rec_drain_round(struct pebs_recorder *r)
{
	int err = pebs_chanset__drain(r->set, &rec_chanset_cbs, r);

	return err < 0 ? err : rec_end_round(r);
}

/* the end of a pass over the rings: held samples out, checks done */
int rec_end_round(struct pebs_recorder *r)
{
	int err = pebs_attrib__round(r->attrib, &acbs, r);

	if (!err && r->swrec)
		err = pebs_switchrec__write(r->swrec, &swcbs, r);
	if (!err)
		err = rec_objects_drain(r);
	if (err)
		return err;
	err = rec_out_round(r->out);
	if (err)
		return core_err(err, "cannot write %s: %s", r->o.output,
				strerror(-err));
	return 0;
}
