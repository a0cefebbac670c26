// SPDX-License-Identifier: MIT
/*
 * record-duty.c - a budgeted recording's duty cycle (record-budget.c
 * decides it: pebs_budget__duty): the sampled events enabled in one
 * window per cycle, at random places, the tracking event left on.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/record-int.h"
#include "core/internal.h"

/*
 * The duty cycle: when counting the events alone costs more than the
 * budget (pebs_budget__duty < 1), the events are enabled only in
 * windows, one per cycle (CYCLE_NS, or longer when a window would be
 * shorter than MIN_WIN_NS), each starting at random so that periodic
 * program phases do not alias. PERF_EVENT_IOC_DISABLE /
 * ENABLE on an inherited event reach its children, those of threads
 * started before the window and after (the kernel's
 * perf_event_for_each_child). The off time of each controller interval
 * is accounted here (rec_duty_off_ns): the controller measures the
 * densities over the enabled windows only. A disabled event writes no
 * side-band records either: they come from the tracking event
 * (rec_budget_track), which the cycle leaves enabled, so that MMAP,
 * COMM, FORK/EXIT and switch records of the off windows are in the file.
 *
 * A window's samples stand for their whole cycle: a window of length w
 * starts uniformly in [0, c) of its cycle of length c and what passes
 * the cycle's end wraps to its start (two pieces then, both in the
 * future when the cycle is planned), so that it covers every instant of
 * the cycle with the same chance w / c and is on for w of every cycle;
 * each sample's period is written multiplied by the inverse, c / w (the
 * Horvitz-Thompson estimator, as --objects reweighs its sampled
 * allocations): the periods then sum to an unbiased estimate of the
 * events of the whole run, and a phase's share of them to its share of
 * the run. Unweighted, the windows stood for themselves only, while the
 * first interval, at the starting periods before the controller acts,
 * was always on: with page faults at --budget 1 % (15 % duty) it
 * weighed 29 % of the samples' periods for 5 % of the run. A window
 * clipped at the cycle's end instead of wrapped would be on for less
 * than w in some cycles, the instants near the cycle's ends covered
 * less often.
 *
 * Each cycle's start is in the file, a sample of PEBS_CYCLE_EVENT
 * (lib/include/pebsshim/perfdata.h) at the time of the newest sample
 * read or record written before it: the windows' samples were all read
 * by then (the events closed, or the rings drained at the cycle's end),
 * and a later one happens after it; no record written before is newer
 * (perf would call it out of order). A report then knows each sample's cycle, and
 * so how much each row's share moves from window to window
 * (lib/report/report-error.c), which no count can tell afterwards.
 */
/*
 * a cycle lasts 25 ms at least: at 100 ms, --budget 5% on bench/faults
 * --sites (its three sites' chunks faulted in a 45 ms pattern) had about
 * 50 windows in 5 s and the sites' shares 2.3-11.6 points from their
 * 4:2:1, at 25 ms 154-171 windows and 1.0-4.1 points (four runs each);
 * the run's time 1.05x bare against 1.04x (8 rounds interleaved, medians)
 */
#define CYCLE_NS	25000000ull
#define MIN_WIN_NS	2000000ull	/* the recorder wakes in ms */
/* the longest cycle: its window of MIN_WIN_NS is the least duty */
#define MAX_CYCLE_NS	((uint64_t)(MIN_WIN_NS / PEBS_RECORDER_MIN_DUTY + 0.5))

/* the recorder's thread's CPU time, ns */
static uint64_t thread_ns(void)
{
	struct timespec ts;

	return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) ? 0 :
	       (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the events opened again or closed, what that costs the recorder noted */
static int toggle(struct pebs_recorder *r, bool on, uint64_t now)
{
	struct rec_duty *du = &r->bud.duty;
	uint64_t t0 = thread_ns();
	int err = on ? rec_reopen_open(r) : rec_reopen_close(r);
	double spent = (double)(thread_ns() - t0);

	du->toggle_ns[on] = du->toggle_ns[on] ?
			    0.75 * du->toggle_ns[on] + 0.25 * spent : spent;
	if (err)
		return rec_err(err, "cannot %s the events for the duty cycle: %s",
			       on ? "reopen" : "close", pebs_errmsg());
	if (on) {
		du->off_ns += now - du->off_since;
		du->off_total += now - du->off_since;
	} else {
		du->off_since = now;
	}
	du->off = !on;
	return 0;
}

/*
 * The next cycle from @now: its window at random, for duty @d. With the
 * events closed in the off windows a cycle costs the recorder an open and
 * a close (0.3-0.5 ms of its CPU for page faults on 2 CPUs here: at 10
 * cycles a second, a whole 0.5 % budget), so a cycle is long enough for
 * them to take at most TOGGLE_SHARE of budget @budget. The windows are
 * what a program of phases has its shares' error from (each window sees
 * the phases it falls on: the error goes as 1 / sqrt(windows)), the
 * samples in them what a program without phases has; a quarter of the
 * budget buys four times the windows of a twentieth (bench/faults
 * --sites at --budget 1%: 33-35 windows instead of 8-9 in 4.5 s, the
 * sites' shares 2.0-13.0 points from their 4:2:1, 6.5 on average in
 * eight runs, instead of 9.9-33.2, 17.9 in four) for a fifth fewer
 * samples
 */
#define TOGGLE_SHARE	0.25
static void plan(struct rec_duty *du, double d, double budget, uint64_t now)
{
	double least = (du->toggle_ns[0] + du->toggle_ns[1]) /
		       (TOGGLE_SHARE * budget);
	uint64_t win, at, cycle = CYCLE_NS;

	if (least > (double)MAX_CYCLE_NS)
		cycle = MAX_CYCLE_NS;
	else if (least > (double)cycle)
		cycle = (uint64_t)least;
	/* the least duty (0 when the off windows alone cost the budget) */
	if (d < PEBS_RECORDER_MIN_DUTY)
		d = PEBS_RECORDER_MIN_DUTY;
	win = (uint64_t)(d * (double)cycle);
	if (win < MIN_WIN_NS) {
		win = MIN_WIN_NS;
		cycle = (uint64_t)((double)MIN_WIN_NS / d);
		if (cycle > MAX_CYCLE_NS)
			cycle = MAX_CYCLE_NS;
	}
	at = (uint64_t)((double)cycle * ((double)rand_r(&du->seed) /
					 ((double)RAND_MAX + 1)));
	du->win_start = now + at;
	du->win_end = now + (at + win < cycle ? at + win : cycle);
	du->head_end = now + (at + win > cycle ? at + win - cycle : 0);
	du->cycle_end = now + cycle;
	du->win = win;
	du->weight = (double)cycle / (double)win;
}

/* whether the cycle has the events on at @now */
static bool on_at(const struct rec_duty *du, uint64_t now)
{
	return now < du->head_end ||
	       (now >= du->win_start && now < du->win_end);
}

/* the cycle's window's periods, all weighed: into the sum of squares */
static void cycle_done(struct rec_duty *du)
{
	du->sq_sum += du->win_sum * du->win_sum;
	du->win_sum = 0;
}

void rec_duty_begin(struct pebs_recorder *r, uint64_t now)
{
	struct rec_duty *du = &r->bud.duty;

	*du = (struct rec_duty){ .t0 = now, .seed = (unsigned int)now,
				 .marks = du->marks };
}

int rec_duty_attr(struct pebs_perfdata_writer *w,
		  const struct perf_event_attr *like)
{
	return rec_out_dummy(w, like, PERF_SAMPLE_IDENTIFIER |
			     PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			     PERF_SAMPLE_PERIOD, PEBS_CYCLE_ID,
			     PEBS_CYCLE_EVENT);
}

/* a cycle of @len ns begins (1: the events stay on from now) */
static int mark(struct pebs_recorder *r, uint64_t len)
{
	uint64_t rec[5];
	struct perf_event_header *h = (struct perf_event_header *)rec;
	uint32_t pid = (uint32_t)getpid();
	int err;

	if (r->o.format != PEBS_RECORDER_PERF)
		return 0;	/* CSV rows: samples only */
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(rec);
	rec[1] = PEBS_CYCLE_ID;
	rec[2] = (uint64_t)pid << 32 | pid;
	rec[3] = rec_out_max_time(r->out);
	rec[4] = len;
	err = rec_out_raw(r->out, h, rec[3]);
	if (err)
		return rec_err(err, "cannot write the duty cycle's start: %s",
			       pebs_errmsg());
	r->bud.duty.marks++;
	return 0;
}

int rec_duty_step(struct pebs_recorder *r, uint64_t now)
{
	struct rec_duty *du = &r->bud.duty;
	double d = pebs_budget__duty(r->bud.b);
	int err;

	/* a cycle over (or none yet): the next one, at the duty now */
	if (now >= du->cycle_end) {
		/* what the rings hold carries the weight of its cycle */
		if (!du->off && du->weight > 1) {
			err = rec_drain_round(r);
			if (err < 0)
				return rec_err(err, "reading the rings failed: %s",
					       pebs_errmsg());
		}
		cycle_done(du);
		if (d >= 1) {
			err = du->cycle_end ? mark(r, 1) : 0;
			du->cycle_end = 0;
			du->weight = 1;
			return err ? err : du->off ? toggle(r, true, now) : 0;
		}
		plan(du, d, r->o.budget, now);
		du->windows++;
		err = mark(r, du->cycle_end - now);
		if (err)
			return err;
	}
	if (du->off == on_at(du, now))
		return toggle(r, du->off, now);
	return 0;
}

int rec_duty_weigh(struct pebs_recorder *r, unsigned int ev,
		   struct pebs_sample *s, const struct perf_event_header **raw)
{
	struct rec_budget *bu = &r->bud;
	struct rec_duty *du = &bu->duty;
	size_t at = rec_period_at(r->attrs[ev].sample_type);
	double x;
	uint64_t p;

	if (!(s->present & PERF_SAMPLE_PERIOD))
		return 0;
	if (du->weight <= 1) {
		du->all_sum += (double)s->period;
		return 0;
	}
	if ((*raw)->size < at + 8u)
		return core_err(-EBADMSG, "a %u-byte sample of %s has no room for its period",
				(*raw)->size, r->evs[ev].name);
	/* rounded, the remainder carried to the event's next sample */
	x = (double)s->period * du->weight + du->carry[ev];
	p = x < 1 ? 1 : (uint64_t)(x + 0.5);
	du->carry[ev] = x - (double)p;
	du->win_sum += (double)p;
	du->all_sum += (double)p;
	if (*raw != bu->with_period) {
		if (!bu->with_period &&
		    !(bu->with_period = malloc(REC_ALIAS_MAX)))
			return core_err(-ENOMEM, "out of memory");
		memcpy(bu->with_period, *raw, (*raw)->size);
		*raw = bu->with_period;
	}
	memcpy((char *)bu->with_period + at, &p, sizeof(p));
	s->period = p;
	return 0;
}

int rec_duty_timeout(const struct pebs_recorder *r, int timeout_ms)
{
	const struct rec_duty *du = &r->bud.duty;
	uint64_t now = core_mono_ns(), next;
	int ms;

	if (!r->bud.b || !du->cycle_end)
		return timeout_ms;
	next = !du->off ? (now < du->head_end ? du->head_end : du->win_end) :
	       now < du->win_start ? du->win_start : du->cycle_end;
	ms = next <= now ? 0 : (int)((next - now + 999999) / 1000000);
	return timeout_ms < 0 || ms < timeout_ms ? ms : timeout_ms;
}

uint64_t rec_duty_off_ns(struct pebs_recorder *r, uint64_t now)
{
	struct rec_duty *du = &r->bud.duty;
	uint64_t off = du->off_ns;

	if (du->off) {
		off += now - du->off_since;
		du->off_total += now - du->off_since;
		du->off_since = now;
	}
	du->off_ns = 0;
	return off;
}

double pebs_recorder__duty(const struct pebs_recorder *r, uint64_t *windows)
{
	const struct rec_duty *du;
	uint64_t off, all, now;

	if (windows)
		*windows = r && r->bud.b ? r->bud.duty.windows : 0;
	if (!r || !r->bud.b)
		return 1;
	du = &r->bud.duty;
	now = du->end ? du->end : core_mono_ns();
	off = du->off_total + (du->off ? now - du->off_since : 0);
	all = now - du->t0;
	return all && off < all ? 1 - (double)off / (double)all : all ? 0 : 1;
}

/*
 * A share's sampling error at worst: each window seeing one phase of the
 * program, a share p is a mean of the windows' shares, each 0 or 1,
 * weighted by the periods they wrote (t_c, of T in all, the samples
 * outside a duty cycle included: they saw all there was), so its
 * standard error is sqrt(p (1 - p) sum t_c^2) / T, at most
 * 0.5 sqrt(sum t_c^2) / T: 50 / sqrt(windows) points when the windows
 * weigh alike, more when few of them hold the samples (a program idle
 * in most), less when the start, always enabled, holds many.
 */
void rec_duty_stop(struct pebs_recorder *r)
{
	if (r->bud.b)
		r->bud.duty.end = core_mono_ns();
}

int rec_duty_meta(struct pebs_recorder *r)
{
	struct rec_duty *du = &r->bud.duty;
	char pct[32];
	uint64_t windows;
	double d;
	int err;

	if (!r->bud.b)
		return 0;
	d = pebs_recorder__duty(r, &windows);
	if (!windows)
		return 0;
	cycle_done(du);
	snprintf(pct, sizeof(pct), "%.3g%%", d * 100);
	err = rec_out_meta(r->out, "duty", pct);
	/* the shares' sampling error is that of so many windows */
	snprintf(pct, sizeof(pct), "%llu", (unsigned long long)windows);
	err = err ? err : rec_out_meta(r->out, "windows", pct);
	if (err || !(du->all_sum > 0))
		return err;
	snprintf(pct, sizeof(pct), "%.2f",
		 50 * sqrt(du->sq_sum) / du->all_sum);
	return rec_out_meta(r->out, "share_error", pct);
}
