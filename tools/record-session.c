// SPDX-License-Identifier: MIT
/*
 * record-session.c - the recorder's callbacks while it runs: samples and
 * records from the channel set through the attribution engine
 * (pebs_attrib) to the output, the kernel's lost counts as
 * PERF_RECORD_LOST_SAMPLES, and the module's switch history as
 * PERF_RECORD_SWITCH_CPU_WIDE (pebs_switchrec) at the end of each round.
 * The setup and the main loop are tools/cmd-record.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

/* ---- the session ------------------------------------------------------ */

unsigned int rec_ev_of(struct record *rec, const struct pebs_channel *ch)
{
	const struct pebs_event *ev;

	if (ch == rec->last_ch)
		return rec->last_ev;
	ev = pebs_channel__event(ch);
	rec->last_ch = ch;
	rec->last_ev = 0;
	for (unsigned int i = 0; ev && i < rec->o.nr_evs; i++) {
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

	if (!rec->o.verbose)
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
	.sz = sizeof(struct pebs_attrib_cbs),
	.emit = emit,
	.mismatch = mismatch,
};

static int on_sample(void *ctx, struct pebs_channel *ch,
		     const struct pebs_sample *s,
		     const struct perf_event_header *raw)
{
	struct record *rec = ctx;

	rec->samples++;
	return pebs_attrib__sample(rec->attrib, rec_ev_of(rec, ch), s, raw, &acbs,
				   rec);
}

static int on_record(void *ctx, struct pebs_channel *ch,
		     const struct perf_event_header *ev)
{
	struct record *rec = ctx;
	const struct perf_event_attr *attr = &rec->attrs[rec_ev_of(rec, ch)];
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

/* perf's PERF_RECORD_LOST_SAMPLES of a channel, if it lost any */
static int write_lost(struct record *rec, struct pebs_channel *ch)
{
	uint64_t buf[8];
	struct rec_who who = { 0, 0 };
	int n = pebs_channel__lost_record(ch, buf, sizeof(buf));

	if (n <= 0)
		return 0;	/* none, or no per-event count here */
	rec->lost_kernel += buf[1];
	return rec_out_record(rec->out, pebs_channel__attr(ch),
			      (const struct perf_event_header *)buf, &who);
}

/* the LOST_SAMPLES of @target's channels (-1: of all), before they go */
int rec_write_lost_of(struct record *rec, int target)
{
	bool cpu = rec->o.per_cpu;
	int err = 0;

	for (unsigned int i = 0; i < pebs_chanset__nr_channels(rec->set) &&
				 !err; i++) {
		struct pebs_channel *ch = pebs_chanset__channel(rec->set, i);

		int of = cpu ? pebs_channel__cpu(ch) : pebs_channel__pid(ch);
		bool written = false;

		/* the kernel's count is a total: once per channel */
		for (unsigned int j = 0; target < 0 && j < rec->gone.n; j++)
			written |= rec->gone.v[j] == of;
		if ((target < 0 && !written) || of == target)
			err = write_lost(rec, ch);
	}
	if (!err && target >= 0 && pebs_ids__push(&rec->gone, target))
		err = -ENOMEM;
	return err;
}

static void on_exit_target(void *ctx, int target)
{
	struct record *rec = ctx;
	int err = rec_write_lost_of(rec, target);

	if (err && !rec->err) {
		tool_err("record", "cannot write %s: %s", rec->o.output, strerror(-err));
		rec->err = err;
	}
	if (rec->targets_left)
		rec->targets_left--;
}

const struct pebs_chanset_cbs rec_chanset_cbs = {
	.sz = sizeof(struct pebs_chanset_cbs),
	.on_sample = on_sample,
	.on_record = on_record,
	.on_lost = on_lost,
	.on_exit = on_exit_target,
};

/* ---- the module's history into the file (lib/attrib/attrib-switch.c) ------- */

static int write_switch(void *ctx, const struct perf_event_header *ev,
			int32_t pid, int32_t tid)
{
	struct record *rec = ctx;
	struct rec_who w = { pid, tid };

	return rec_out_record(rec->out, &rec->attrs[0], ev, &w);
}

static const PEBS_OPTS(pebs_switchrec_cbs, swcbs, .write = write_switch);

/* from now on, under event 0's id on each CPU (-a/-C; not with
   --switch-events, whose records are the kernel's) */
int rec_start_switchrec(struct record *rec)
{
	struct pebs_timeline *tl = pebs_attrib__timeline(rec->attrib);
	int err;

	if (!tl || !rec->o.per_cpu || rec->o.no_switch_history ||
	    rec->o.switch_events || rec->o.format != REC_FMT_PERF)
		return 0;
	err = pebs_switchrec__new(tl, &rec->attrs[0], &rec->swrec);
	err = err ? err : pebs_timeline__update(tl);
	for (unsigned int i = 0; err >= 0 &&
				 i < pebs_chanset__nr_channels(rec->set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(rec->set, i);
		uint64_t id;

		if (rec_ev_of(rec, ch) == 0 && !pebs_channel__id(ch, &id))
			err = pebs_switchrec__set_cpu(rec->swrec,
				(unsigned int)pebs_channel__cpu(ch), id);
	}
	if (err < 0)
		tool_err("record", "%s", pebs_errmsg());
	return err < 0 ? err : 0;
}

/* the end of a pass over the rings: held samples out, checks done */
int rec_end_round(struct record *rec)
{
	int err = pebs_attrib__round(rec->attrib, &acbs, rec);

	if (!err && rec->swrec)
		err = pebs_switchrec__write(rec->swrec, &swcbs, rec);
	if (!err)
		err = rec_objects_drain(rec);
	if (err && !rec->write_err) {
		tool_err("record", "%s", pebs_errmsg());
		return err;
	}
	if (!err)
		err = rec_out_round(rec->out);
	if (err && !rec->err)
		tool_err("record", "cannot write %s: %s", rec->o.output, strerror(-err));
	return err;
}
