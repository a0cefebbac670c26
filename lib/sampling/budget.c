// SPDX-License-Identifier: MIT
/*
 * budget.c - the sampling budget controller: each channel's period so
 * that the estimated cost of sampling stays under a share of the
 * sampled CPU time (the model is in pebsshim/sampling.h, "Sampling
 * budgets"). Pure arithmetic on what the caller feeds: no clock, no
 * ioctl, so that tests can drive it with synthetic rate traces.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "pebsshim/sampling.h"
#include "core/internal.h"
#include "core/opts.h"

#define BUDGET_MAX_CHANNELS	65536u
#define BUDGET_AIM		0.9	/* of a channel's share */

struct budget_chan {
	struct pebs_budget_stats st;
	double cost_ns;		/* kernel cost of one sample */
	double event_ns;	/* of every event, sampled or not */
	double off_ns;		/* of every event while disabled */
	double floor;		/* the least it can cost (a fraction) */
	double off;		/* what it costs disabled (a fraction) */
	double density;		/* events per sampled CPU ns, peak-held */
	double rate;		/* events per wall ns, peak-held */
	bool set;		/* pebs_budget__set_channel was called */
};

struct pebs_budget {
	struct pebs_budget_opts o;
	double recorder_ns;	/* recorder CPU per sample, averaged */
	bool have_recorder;
	double overhead;	/* last estimate, all channels */
	double floor;		/* the least they can cost (a fraction) */
	double off;		/* what they cost disabled (a fraction) */
	double switch_ns;	/* a sampled task's context switch */
	double switching;	/* what switches cost (a fraction) */
	double duty;		/* share of the time the events are on */
	unsigned int nr_fixed;
	struct pebs_budget_totals tot;
	struct budget_chan ch[];
};

int pebs_budget__new(const struct pebs_budget_opts *opts,
		     struct pebs_budget **bp)
{
	struct pebs_budget_opts o;
	struct pebs_budget *b;
	int err;

	err = opts_copy(&o, sizeof(o), opts, "pebs_budget_opts");
	if (err)
		return err;
	if (!opts || !bp)
		return core_err(-EINVAL, "budget: no options given (a budget "
				"and a number of channels are needed)");
	if (!(o.budget > 0 && o.budget < 1))
		return core_err(-EINVAL, "budget: %g is not a share in (0, 1) "
				"(2 %% is 0.02)", o.budget);
	if (!o.nr_channels || o.nr_channels > BUDGET_MAX_CHANNELS)
		return core_err(-EINVAL, "budget: %u channels (1 to %u)",
				o.nr_channels, BUDGET_MAX_CHANNELS);
	if (!o.floor)
		o.floor = 1;
	if (o.ceiling && o.floor > o.ceiling)
		return core_err(-EINVAL, "budget: floor period %llu above "
				"ceiling %llu",
				(unsigned long long)o.floor,
				(unsigned long long)o.ceiling);
	if (!(o.max_rate >= 0) || !(o.min_rate >= 0))
		return core_err(-EINVAL, "budget: negative sample rate");
	if (!o.min_rate)
		o.min_rate = PEBS_BUDGET_MIN_RATE;
	if (o.max_rate && o.min_rate > o.max_rate)
		return core_err(-EINVAL, "budget: minimum rate %g/s above the "
				"maximum %g/s (lower --budget's minimum or "
				"raise -F)", o.min_rate, o.max_rate);
	b = calloc(1, sizeof(*b) + o.nr_channels * sizeof(b->ch[0]));
	if (!b)
		return core_err(-ENOMEM, "budget: out of memory");
	b->o = o;
	b->duty = 1;
	*bp = b;
	return 0;
}

static struct budget_chan *chan(const struct pebs_budget *b, unsigned int ch)
{
	if (!b || ch >= b->o.nr_channels)
		return NULL;
	return (struct budget_chan *)&b->ch[ch];
}

int pebs_budget__set_channel(struct pebs_budget *b, unsigned int ch,
			     uint64_t period, double cost_ns)
{
	struct budget_chan *c = chan(b, ch);

	if (!c || !period || !(cost_ns >= 0))
		return core_err(-EINVAL, "budget: channel %u: no such channel, "
				"period 0 or negative cost", ch);
	c->set = true;
	c->cost_ns = cost_ns;
	c->st.period = c->st.min_period = c->st.max_period = period;
	return 0;
}

int pebs_budget__set_event_cost(struct pebs_budget *b, unsigned int ch,
				double event_ns)
{
	struct budget_chan *c = chan(b, ch);

	if (!c || !(event_ns >= 0))
		return core_err(-EINVAL, "budget: channel %u: no such channel "
				"or negative cost per event", ch);
	c->event_ns = event_ns;
	return 0;
}

int pebs_budget__set_off_cost(struct pebs_budget *b, unsigned int ch,
			      double off_ns)
{
	struct budget_chan *c = chan(b, ch);

	if (!c || !(off_ns >= 0))
		return core_err(-EINVAL, "budget: channel %u: no such channel "
				"or negative cost per disabled event", ch);
	c->off_ns = off_ns;
	return 0;
}

int pebs_budget__set_switch_cost(struct pebs_budget *b, double switch_ns)
{
	if (!b || !(switch_ns >= 0))
		return core_err(-EINVAL, "budget: no controller or a negative "
				"cost per context switch");
	b->switch_ns = switch_ns;
	return 0;
}

int pebs_budget__fixed(struct pebs_budget *b, unsigned int ch,
		       uint64_t period)
{
	struct budget_chan *c = chan(b, ch);

	if (!c || !period)
		return core_err(-EINVAL, "budget: channel %u: no such channel "
				"or period 0", ch);
	if (!c->st.fixed)
		b->nr_fixed++;
	c->st.fixed = true;
	c->set = true;
	c->st.period = period;
	if (period < c->st.min_period || !c->st.min_period)
		c->st.min_period = period;
	if (period > c->st.max_period)
		c->st.max_period = period;
	return 0;
}

/* a burst counts at once, a fall by halves */
static double peak_hold(double held, double now)
{
	double decayed = (held + now) / 2;

	return now > decayed ? now : decayed;
}

/*
 * a channel's limits: the floor (and what max_rate allows at its event
 * rate), the ceiling (and what keeps min_rate); the user's floor wins
 */
static void limits(const struct pebs_budget *b, const struct budget_chan *c,
		   double *lo, double *hi)
{
	*lo = (double)b->o.floor;
	if (b->o.max_rate)
		*lo = fmax(*lo, c->rate * 1e9 / b->o.max_rate);
	*hi = c->rate * 1e9 / b->o.min_rate;
	if (b->o.ceiling)
		*hi = fmin(*hi, (double)b->o.ceiling);
	if (*hi < *lo)
		*hi = *lo;
}

/*
 * The new period of an adjustable channel with samples, or 0: the one
 * that spends BUDGET_AIM of what its @share leaves after counting its
 * events (their cost does not depend on the period), within its limits,
 * when the channel is over its share, out of its limits, or could
 * sample at least 20 % more often. Sets c->floor, what the channel
 * costs at the ceiling.
 *
 * Counting alone (with the minimum rate) over the share: the duty
 * cycle's (pebs_budget__duty), whose windows pay for counting anyway,
 * so the period spends on samples as much as counting costs, the cost
 * of a sample over that of an event (within the limits), and c->floor
 * is what the channel costs at it. The duty cycle's estimate stands on
 * the windows' samples: the least (the ceiling) left a few in each
 * window, page faults at --budget 1 % had ~8 in each of ~8 windows,
 * and their sites' shares were off by 5-7 points; half the time on
 * with samples as costly as counting has the windows' events sampled
 * where their count alone was before.
 */
static uint64_t decide(const struct pebs_budget *b, struct budget_chan *c,
		       double share)
{
	double cost = c->cost_ns + b->recorder_ns;
	double p = (double)c->st.period, lo, hi, want;
	bool duty;
	uint64_t w;

	limits(b, c, &lo, &hi);
	share -= c->density * c->event_ns;
	want = share > 0 ? c->density * cost / (BUDGET_AIM * share) : hi;
	duty = want >= hi && c->event_ns > 0;
	if (duty)
		want = cost / c->event_ns;
	want = fmin(fmax(want, lo), hi);
	want = fmin(fmax(want, 1), 0x1p62);
	c->floor = c->density * (c->event_ns + cost / (duty ? want : hi));
	w = (uint64_t)llround(want);
	if (w == c->st.period)
		return 0;
	if (p < lo || p > hi)
		return w;
	if (duty)
		return fabs(want - p) > PEBS_BUDGET_HYSTERESIS * p ? w : 0;
	if (want > p && c->density * cost / p > share)
		return w;
	/* under the share (so want <= p / 0.9): only if 20 % more samples */
	if (want * (1 + PEBS_BUDGET_HYSTERESIS) <= p)
		return w;
	return 0;
}

/*
 * What channel @c cost in an interval, a fraction of its sampled CPU
 * time: @samples and @ev events in the enabled share @on of the time
 * (@cpu, the enabled share of the CPU time), the off windows' events
 * (at the enabled windows' density) at the disabled cost. *@enabled:
 * what it costs enabled, a fraction of @cpu.
 */
static double estimate(const struct budget_chan *c, double recorder_ns,
		       double samples, double ev, double cpu, double on,
		       double *enabled)
{
	*enabled = (samples * (c->cost_ns + recorder_ns) +
		    ev * c->event_ns) / cpu;
	return *enabled * on + ev / cpu * c->off_ns * (1 - on);
}

/* the events behind channel @i's samples in @in: the counted, else the
   periods set */
static double events_of(const struct budget_chan *c,
			const struct pebs_budget_interval *in, unsigned int i)
{
	return in->events && in->events[i] ? (double)in->events[i] :
	       (double)in->samples[i] * (double)c->st.period;
}

/* the totals: an interval's estimate @overhead of its sampled CPU */
static void account(struct pebs_budget *b, double overhead,
		    const struct pebs_budget_interval *in)
{
	struct pebs_budget_totals *t = &b->tot;
	double cost = overhead * (double)in->sampled_cpu_ns;

	t->intervals++;
	t->cost_ns += cost;
	t->cpu_ns += in->sampled_cpu_ns;
	t->elapsed_ns += in->elapsed_ns;
	if (t->decided)
		return;
	t->first_cost_ns += cost;
	t->first_cpu_ns += in->sampled_cpu_ns;
	t->first_elapsed_ns += in->elapsed_ns;
}

/*
 * The final interval: its estimate in the totals, nothing learnt (the
 * densities, costs and periods stay); @switching its switches' share.
 * The recorder's CPU per sample is the average, or this interval's
 * when there is none yet (a run shorter than one interval).
 */
static int final(struct pebs_budget *b, const struct pebs_budget_interval *in,
		 double switching)
{
	double on = 1 - (double)in->disabled_ns / (double)in->elapsed_ns;
	double cpu = (double)in->sampled_cpu_ns * on, total = switching, en;
	double rec = b->recorder_ns;
	uint64_t all = 0;
	unsigned int i;

	for (i = 0; i < b->o.nr_channels; i++)
		all += b->ch[i].set ? in->samples[i] : 0;
	if (!b->have_recorder && all)
		rec = (double)in->recorder_cpu_ns / (double)all;
	for (i = 0; i < b->o.nr_channels; i++) {
		const struct budget_chan *c = &b->ch[i];

		if (c->set && (in->samples[i] || (in->events && in->events[i])))
			total += estimate(c, rec, (double)in->samples[i],
					  events_of(c, in, i), cpu, on, &en);
	}
	account(b, total, in);
	return 0;
}

int pebs_budget__update(struct pebs_budget *b,
			const struct pebs_budget_interval *iv, uint64_t *next)
{
	struct pebs_budget_interval in;
	double cpu, on, fixed_cost = 0, total = 0, share, sw;
	uint64_t all = 0;
	unsigned int i, active = 0, seen = 0;
	int err, n = 0;

	if (!b || !next)
		return core_err(-EINVAL, "budget: update without a controller "
				"or an array for the periods");
	err = opts_copy(&in, sizeof(in), iv, "pebs_budget_interval");
	if (err)
		return err;
	if (!iv || !in.samples)
		return core_err(-EINVAL, "budget: an interval needs its "
				"samples per channel");
	for (i = 0; i < b->o.nr_channels; i++)
		next[i] = 0;
	if (!in.sampled_cpu_ns || !in.elapsed_ns) {
		b->tot.elapsed_ns += in.elapsed_ns;
		if (!b->tot.decided)
			b->tot.first_elapsed_ns += in.elapsed_ns;
		return 0;	/* nothing ran: nothing learnt */
	}
	/* the switches cost on and off alike: as a fixed channel does */
	sw = (double)in.switches * b->switch_ns / (double)in.sampled_cpu_ns;
	if (in.disabled_ns >= in.elapsed_ns) {
		/* all off: the events cost as disabled at the held density */
		for (i = 0; i < b->o.nr_channels; i++)
			sw += b->ch[i].off;
		account(b, sw, &in);
		return 0;	/* nothing seen: nothing learnt */
	}
	if (in.final)
		return final(b, &in, sw);
	b->switching = sw;
	/* the events saw the enabled share of the time, and of the CPU's */
	on = 1 - (double)in.disabled_ns / (double)in.elapsed_ns;
	cpu = (double)in.sampled_cpu_ns * on;
	fixed_cost = b->switching;
	for (i = 0; i < b->o.nr_channels; i++)
		if (b->ch[i].set)
			all += in.samples[i];
	if (all && in.recorder_cpu_ns) {
		double now = (double)in.recorder_cpu_ns / (double)all;

		b->recorder_ns = b->have_recorder ?
				 (b->recorder_ns + now) / 2 : now;
		b->have_recorder = true;
	}
	for (i = 0; i < b->o.nr_channels; i++) {
		struct budget_chan *c = &b->ch[i];
		double ev;

		if (!c->set)
			continue;
		/*
		 * samples, or events counted without a sample (a period too
		 * long for the rate, as after a fall under a duty cycle)
		 */
		if (in.samples[i] || (in.events && in.events[i])) {
			seen++;
			/* the periods the samples carry, else the one set */
			ev = events_of(c, &in, i);
			c->density = peak_hold(c->density, ev / cpu);
			c->rate = peak_hold(c->rate,
					    ev / ((double)in.elapsed_ns * on));
			c->off = c->density * c->off_ns;
			c->st.samples += in.samples[i];
			c->st.overhead = estimate(c, b->recorder_ns,
						  (double)in.samples[i], ev,
						  cpu, on, &c->floor);
			total += c->st.overhead;
		}
		if (c->st.fixed)
			fixed_cost += c->floor;
		else if (c->density > 0)
			active++;
	}
	if (seen)
		b->overhead = total + b->switching;
	account(b, total + b->switching, &in);
	if (seen)
		b->tot.decided = true;
	share = active ? (b->o.budget - fixed_cost) / active : 0;
	for (i = 0; i < b->o.nr_channels; i++) {
		struct budget_chan *c = &b->ch[i];
		uint64_t p;

		if (!c->set || c->st.fixed ||
		    !(in.samples[i] || (in.events && in.events[i])))
			continue;	/* idle: keep the period */
		p = decide(b, c, share);
		if (!p)
			continue;
		next[i] = p;
		c->st.period = p;
		c->st.changes++;
		if (p < c->st.min_period)
			c->st.min_period = p;
		if (p > c->st.max_period)
			c->st.max_period = p;
		n++;
	}
	if (seen) {
		double adjustable = 0;

		b->floor = b->off = b->switching;
		for (i = 0; i < b->o.nr_channels; i++) {
			b->floor += b->ch[i].floor;
			b->off += b->ch[i].off;
			if (!b->ch[i].st.fixed)
				adjustable += b->ch[i].floor;
		}
		/*
		 * the channels whose period moves cannot meet what is left
		 * (counting alone costs more): on only part of the time,
		 * aiming as the periods do, the off windows costing b->off
		 * (none under it: 0, the recorder's least duty); a fixed
		 * channel over by noise is the estimate's to say
		 */
		b->duty = !(adjustable > 0 &&
			    adjustable > b->o.budget - fixed_cost) ? 1 :
			  b->floor <= b->off ? 0 :
			  fmin(fmax((BUDGET_AIM * b->o.budget - b->off) /
				    (b->floor - b->off), 0), 1);
	}
	return n;
}

const struct pebs_budget_stats *pebs_budget__stats(const struct pebs_budget *b,
						   unsigned int ch)
{
	const struct budget_chan *c = chan(b, ch);

	return c ? &c->st : NULL;
}

double pebs_budget__overhead(const struct pebs_budget *b)
{
	return b ? b->overhead : 0;
}

double pebs_budget__floor(const struct pebs_budget *b)
{
	return b ? b->floor : 0;
}

double pebs_budget__off_floor(const struct pebs_budget *b)
{
	return b ? b->off : 0;
}

double pebs_budget__duty(const struct pebs_budget *b)
{
	return b ? b->duty : 1;
}

const struct pebs_budget_totals *pebs_budget__totals(const struct pebs_budget *b)
{
	return b ? &b->tot : NULL;
}

double pebs_budget__controlled(const struct pebs_budget *b)
{
	const struct pebs_budget_totals *t = pebs_budget__totals(b);

	return t && t->decided && t->cpu_ns > t->first_cpu_ns ?
	       (t->cost_ns - t->first_cost_ns) /
	       (double)(t->cpu_ns - t->first_cpu_ns) : -1;
}

unsigned int pebs_budget__nr_fixed(const struct pebs_budget *b)
{
	return b ? b->nr_fixed : 0;
}

void pebs_budget__delete(struct pebs_budget *b)
{
	free(b);
}
