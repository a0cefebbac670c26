// SPDX-License-Identifier: MIT
/*
 * test-budget - the sampling budget controller on synthetic rate traces:
 * convergence under the budget, step changes, bursts, idle phases,
 * noise inside the hysteresis, a channel that cannot change period,
 * the floor, the ceilings (min_rate, opts.ceiling) and max_rate, and
 * bad options; an event whose every occurrence costs (a page fault
 * counted in software): its cost comes off the budget, and when it
 * alone exceeds the budget the channel keeps the minimum rate and the
 * floor says so; the duty cycle that then meets the budget, the off
 * windows' own cost (an open, disabled event still costs per event) and
 * the context switches' (on and off alike); the totals over the run,
 * the first interval's part apart, and the final interval.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"

#define IV_NS	100000000ull	/* 100 ms intervals, one busy CPU */
#define COST	5000.0		/* kernel ns per sample */
#define REC	1000.0		/* recorder ns per sample */
#define BUDGET	0.02

/* a recording: per channel the event density (events per CPU ns) */
struct sim {
	struct pebs_budget *b;
	unsigned int n;
	uint64_t period[2];
	uint64_t samples[2];
	double density[2];
	uint64_t cpu_ns;
	double on;		/* share of the interval enabled */
	bool duty;		/* follow pebs_budget__duty */
	int changes;		/* channels changed by the last step */
};

static void sim_init(struct sim *s, const struct pebs_budget_opts *o,
		     uint64_t period)
{
	unsigned int i;

	s->n = o->nr_channels;
	s->cpu_ns = IV_NS;
	s->on = 1;
	assert_int_equal(pebs_budget__new(o, &s->b), 0);
	for (i = 0; i < s->n; i++) {
		s->period[i] = period;
		s->density[i] = 1;	/* cpu-clock: one event per ns */
		assert_int_equal(pebs_budget__set_channel(s->b, i, period,
							  COST), 0);
	}
}

/*
 * one interval at the current periods, the events enabled s->on of it;
 * the new periods applied. With s->duty the duty cycle too, and the
 * events counted given (as the recorder reads them: a few samples at
 * the minimum rate tell the density only roughly).
 */
static void sim_step(struct sim *s)
{
	uint64_t next[2], all = 0, events[2];
	unsigned int i;
	PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = IV_NS,
		  .sampled_cpu_ns = s->cpu_ns, .samples = s->samples,
		  .disabled_ns = (uint64_t)llround((1 - s->on) * IV_NS));

	for (i = 0; i < s->n; i++) {
		events[i] = (uint64_t)llround(s->density[i] * s->on *
					      (double)s->cpu_ns);
		s->samples[i] = (uint64_t)llround((double)events[i] /
						  (double)s->period[i]);
		all += s->samples[i];
	}
	if (s->duty)
		iv.events = events;
	iv.recorder_cpu_ns = (uint64_t)(REC * (double)all);
	s->changes = pebs_budget__update(s->b, &iv, next);
	assert_true(s->changes >= 0);
	for (i = 0; i < s->n; i++)
		if (next[i])
			s->period[i] = next[i];
	if (s->duty)
		s->on = pebs_budget__duty(s->b);
}

/* one channel at 10000 (60 %), ten intervals: converged */
static void sim_converged(struct sim *s, const struct pebs_budget_opts *o)
{
	int i;

	sim_init(s, o, 10000);
	for (i = 0; i < 10; i++)
		sim_step(s);
}

/* the true overhead of the last interval */
static double sim_overhead(const struct sim *s)
{
	double o = 0;
	unsigned int i;

	for (i = 0; i < s->n; i++)
		o += (double)s->samples[i] * (COST + REC) / (double)s->cpu_ns;
	return o;
}

/* ideal period of one channel alone: density x cost / (0.9 budget) */
static double ideal(double density)
{
	return density * (COST + REC) / (0.9 * BUDGET);
}

static void converges_and_holds(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	struct sim s = {0};
	int i, quiet = 0;

	(void)state;
	sim_init(&s, &o, 10000);	/* 100k samples/s: 60 % */
	sim_step(&s);
	assert_true(sim_overhead(&s) > 0.5);
	/* the estimate of the first interval is the true one */
	assert_true(fabs(pebs_budget__overhead(s.b) - sim_overhead(&s)) <
		    1e-3);
	for (i = 0; i < 3; i++)
		sim_step(&s);
	assert_true(sim_overhead(&s) <= BUDGET);
	assert_true(sim_overhead(&s) >= 0.75 * BUDGET);
	for (i = 0; i < 20; i++) {
		sim_step(&s);
		quiet += s.changes == 0;
		assert_true(sim_overhead(&s) <= BUDGET);
	}
	assert_int_equal(quiet, 20);
	assert_true(fabs((double)s.period[0] - ideal(1)) < 0.2 * ideal(1));
	assert_int_equal(pebs_budget__stats(s.b, 0)->min_period, 10000);
	assert_int_equal(pebs_budget__stats(s.b, 0)->max_period,
			 s.period[0]);
	pebs_budget__delete(s.b);
}

static void step_changes(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	struct sim s = {0};
	int i;

	(void)state;
	sim_converged(&s, &o);
	/* four times the events: over the budget for one interval only */
	s.density[0] = 4;
	sim_step(&s);
	assert_true(sim_overhead(&s) > BUDGET);
	sim_step(&s);
	assert_true(sim_overhead(&s) <= BUDGET);
	assert_true(fabs((double)s.period[0] - ideal(4)) < 0.2 * ideal(4));
	/* back down: the period follows within 8 intervals */
	s.density[0] = 1;
	for (i = 0; i < 8; i++) {
		sim_step(&s);
		assert_true(sim_overhead(&s) <= BUDGET);
	}
	assert_true(fabs((double)s.period[0] - ideal(1)) < 0.25 * ideal(1));
	pebs_budget__delete(s.b);
}

static void bursts(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	struct sim s = {0};
	uint64_t steady, top;
	int i;

	(void)state;
	sim_converged(&s, &o);
	steady = s.period[0];
	/* one interval at ten times the rate raises the period at once */
	s.density[0] = 10;
	sim_step(&s);
	s.density[0] = 1;
	top = s.period[0];
	assert_true(top > 5 * steady);
	/* then it comes down by halves, never below steady */
	for (i = 0; i < 10; i++) {
		uint64_t before = s.period[0];

		sim_step(&s);
		assert_true(s.period[0] <= before);
		assert_true(s.period[0] >= steady * 8 / 10);
	}
	assert_true(fabs((double)s.period[0] - (double)steady) <
		    0.25 * (double)steady);
	pebs_budget__delete(s.b);
}

/* bursts every other interval: the held peak keeps each under 2x */
static void recurring_bursts(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	struct sim s = {0};
	int i;

	(void)state;
	sim_converged(&s, &o);
	for (i = 0; i < 30; i++) {
		s.density[0] = i % 2 ? 1 : 10;
		sim_step(&s);
		if (i >= 2)
			assert_true(sim_overhead(&s) < 2 * BUDGET);
	}
	pebs_budget__delete(s.b);
}

static void idle_phase_keeps_period(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	struct sim s = {0};
	uint64_t steady;
	int i;

	(void)state;
	sim_converged(&s, &o);
	steady = s.period[0];
	/* the workload sleeps: a trickle of CPU, no samples */
	s.cpu_ns = 1000;
	for (i = 0; i < 30; i++) {
		sim_step(&s);
		assert_int_equal(s.samples[0], 0);
		assert_int_equal(s.changes, 0);
	}
	/* nothing ran at all */
	s.cpu_ns = 0;
	sim_step(&s);
	assert_int_equal(s.changes, 0);
	/* it wakes up as before: same period, no change */
	s.cpu_ns = IV_NS;
	sim_step(&s);
	assert_int_equal(s.changes, 0);
	assert_int_equal(s.period[0], steady);
	assert_int_equal(pebs_budget__stats(s.b, 0)->max_period, steady);
	pebs_budget__delete(s.b);
}

static void noise_within_hysteresis(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	struct sim s = {0};
	uint64_t changes;
	int i;

	(void)state;
	sim_converged(&s, &o);
	changes = pebs_budget__stats(s.b, 0)->changes;
	for (i = 0; i < 40; i++) {
		s.density[0] = i % 2 ? 0.9 : 1.05;
		sim_step(&s);
	}
	assert_int_equal(pebs_budget__stats(s.b, 0)->changes, changes);
	pebs_budget__delete(s.b);
}

static void fixed_channel(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 2);
	struct sim s = {0};
	int i;

	(void)state;
	sim_init(&s, &o, 10000);
	/* channel 1 refuses: it keeps 1 ms, 1000 samples/s, 0.6 % */
	s.period[1] = 1000000;
	assert_int_equal(pebs_budget__fixed(s.b, 1, s.period[1]), 0);
	assert_int_equal(pebs_budget__fixed(s.b, 1, s.period[1]), 0);
	assert_int_equal(pebs_budget__nr_fixed(s.b), 1);
	assert_true(pebs_budget__stats(s.b, 1)->fixed);
	for (i = 0; i < 15; i++) {
		sim_step(&s);
		assert_int_equal(s.period[1], 1000000);
	}
	assert_int_equal(pebs_budget__stats(s.b, 1)->changes, 0);
	/* channel 0 spends what is left: 1.4 % */
	assert_true(sim_overhead(&s) <= BUDGET);
	assert_true(sim_overhead(&s) >= 0.75 * BUDGET);
	assert_true(fabs((double)s.period[0] -
			 (COST + REC) / (0.9 * (BUDGET - 0.006))) <
		    0.2 * (COST + REC) / (0.9 * (BUDGET - 0.006)));
	assert_int_equal(pebs_budget__fixed(s.b, 2, 1), -EINVAL);
	assert_true(pebs_budget__duty(s.b) == 1);
	pebs_budget__delete(s.b);

	/* one that alone costs 3 %: the other keeps only its 100/s */
	sim_init(&s, &o, 10000);
	s.period[1] = 200000;
	assert_int_equal(pebs_budget__fixed(s.b, 1, s.period[1]), 0);
	for (i = 0; i < 5; i++)
		sim_step(&s);
	assert_int_equal(s.period[0], 10000000);
	assert_int_equal(s.period[1], 200000);
	/* no period meets it: a duty cycle (0.9 x 2 % / ~3.1 %) */
	assert_true(pebs_budget__duty(s.b) > 0.55 &&
		    pebs_budget__duty(s.b) < 0.6);
	pebs_budget__delete(s.b);
}

static void floor_wins(void **state)
{
	/* the user's -c 1000000: 1000 samples/s although 3000 would do */
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1,
		  .floor = 1000000);
	struct sim s = {0};
	int i;

	(void)state;
	sim_init(&s, &o, 5000000);
	for (i = 0; i < 10; i++) {
		sim_step(&s);
		assert_true(s.period[0] >= 1000000);
	}
	assert_int_equal(s.period[0], 1000000);
	pebs_budget__delete(s.b);
}

static void ceilings(void **state)
{
	/* 1 ms a sample, 1 %: 9 samples/s would fit; 100/s are kept */
	PEBS_OPTS(pebs_budget_opts, o, .budget = 0.01, .nr_channels = 1);
	PEBS_OPTS(pebs_budget_opts, c, .budget = 0.01, .nr_channels = 1,
		  .ceiling = 2000000);
	struct sim s = {0};
	int i;

	(void)state;
	assert_int_equal(pebs_budget__new(&o, &s.b), 0);
	s.n = 1;
	s.cpu_ns = IV_NS;
	s.on = 1;
	s.density[0] = 1;
	s.period[0] = 100000;
	assert_int_equal(pebs_budget__set_channel(s.b, 0, s.period[0], 1e6),
			 0);
	for (i = 0; i < 10; i++) {
		sim_step(&s);
		assert_true(s.period[0] <= 10000000);	/* 1e9/s / 100 */
	}
	assert_int_equal(s.period[0], 10000000);
	assert_true(pebs_budget__overhead(s.b) > 0.01);	/* it says so */
	pebs_budget__delete(s.b);

	/* an explicit ceiling below that */
	assert_int_equal(pebs_budget__new(&c, &s.b), 0);
	s.period[0] = 100000;
	assert_int_equal(pebs_budget__set_channel(s.b, 0, s.period[0], 1e6),
			 0);
	for (i = 0; i < 5; i++)
		sim_step(&s);
	assert_int_equal(s.period[0], 2000000);
	pebs_budget__delete(s.b);
}

static void max_rate(void **state)
{
	/* -F 1000: the budget would allow 3000 samples/s */
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1,
		  .max_rate = 1000);
	struct sim s = {0};

	(void)state;
	sim_converged(&s, &o);
	assert_int_equal(s.period[0], 1000000);
	assert_true(s.samples[0] <= 100);	/* per 100 ms */
	pebs_budget__delete(s.b);
}

static void bad_options(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = 0.02, .nr_channels = 1);
	struct pebs_budget *b = NULL;
	uint64_t next[1], samples[1] = {0};
	PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = 1,
		  .sampled_cpu_ns = 1);

	(void)state;
	o.budget = 0;
	assert_int_equal(pebs_budget__new(&o, &b), -EINVAL);
	o.budget = 2;	/* 200 %, or "2" meant as 2 % */
	assert_int_equal(pebs_budget__new(&o, &b), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "0.02"));
	o.budget = 0.02;
	o.nr_channels = 0;
	assert_int_equal(pebs_budget__new(&o, &b), -EINVAL);
	o.nr_channels = 1;
	o.floor = 10;
	o.ceiling = 5;
	assert_int_equal(pebs_budget__new(&o, &b), -EINVAL);
	o.ceiling = 0;
	o.min_rate = 1000;
	o.max_rate = 10;
	assert_int_equal(pebs_budget__new(&o, &b), -EINVAL);
	o.max_rate = 0;
	assert_int_equal(pebs_budget__new(NULL, &b), -EINVAL);
	assert_int_equal(pebs_budget__new(&o, &b), 0);
	assert_int_equal(pebs_budget__set_channel(b, 1, 100, COST), -EINVAL);
	assert_int_equal(pebs_budget__set_channel(b, 0, 0, COST), -EINVAL);
	assert_int_equal(pebs_budget__update(b, &iv, next), -EINVAL);
	iv.samples = samples;
	assert_int_equal(pebs_budget__update(b, &iv, next), 0);
	assert_null(pebs_budget__stats(b, 1));
	pebs_budget__delete(b);
	pebs_budget__delete(NULL);
}

/*
 * The tasks keep sampling at 10000 whatever the controller sets (an
 * inherited event's copies, which PERF_EVENT_IOC_PERIOD does not reach):
 * with the events the samples carry, the controller's period settles at
 * the ideal one instead of climbing each interval; without them it
 * climbs (the model believes its period, the rate does not fall).
 */
static void period_not_applied(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	uint64_t samples[1], events[1], next[1], with = 0, without = 0;
	struct pebs_budget *b[2];
	int i, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		assert_int_equal(pebs_budget__new(&o, &b[k]), 0);
		assert_int_equal(pebs_budget__set_channel(b[k], 0, 10000,
							  COST), 0);
	}
	samples[0] = IV_NS / 10000;
	events[0] = samples[0] * 10000;
	for (i = 0; i < 20; i++) {
		PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = IV_NS,
			  .sampled_cpu_ns = IV_NS, .samples = samples,
			  .recorder_cpu_ns = (uint64_t)(REC * (double)samples[0]),
			  .events = events);

		assert_true(pebs_budget__update(b[0], &iv, next) >= 0);
		iv.events = NULL;
		assert_true(pebs_budget__update(b[1], &iv, next) >= 0);
	}
	with = pebs_budget__stats(b[0], 0)->period;
	without = pebs_budget__stats(b[1], 0)->period;
	assert_true(fabs((double)with - ideal(1)) < 0.2 * ideal(1));
	assert_true((double)without > 100 * ideal(1));
	pebs_budget__delete(b[0]);
	pebs_budget__delete(b[1]);
}

/* a page fault every 1600 ns of CPU, each costing @event_ns counted */
#define FAULT_DENSITY	(1.0 / 1600)

static void sim_faults(struct sim *s, const struct pebs_budget_opts *o,
		       double event_ns)
{
	sim_init(s, o, 1);
	s->density[0] = FAULT_DENSITY;
	assert_int_equal(pebs_budget__set_event_cost(s->b, 0, event_ns), 0);
}

static void event_cost_under_budget(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	struct sim s = {0};
	/* counting costs 1 %: the samples get 90 % of the 1 % left */
	double counting = FAULT_DENSITY * 16, want, over;
	int i;

	(void)state;
	sim_faults(&s, &o, 16);
	sim_step(&s);		/* every fault sampled: far over */
	over = sim_overhead(&s) + counting;
	assert_true(fabs(pebs_budget__overhead(s.b) - over) < 1e-3);
	for (i = 0; i < 10; i++)
		sim_step(&s);
	want = FAULT_DENSITY * (COST + REC) / (0.9 * (BUDGET - counting));
	assert_true(fabs((double)s.period[0] - want) < 0.2 * want);
	over = sim_overhead(&s) + counting;
	assert_true(over <= BUDGET && over >= 0.85 * BUDGET);
	assert_true(fabs(pebs_budget__overhead(s.b) - over) < 1e-3);
	/* without the events' cost the period would be half as long */
	assert_true((double)s.period[0] > 1.5 * FAULT_DENSITY *
		    (COST + REC) / (0.9 * BUDGET));
	assert_true(pebs_budget__floor(s.b) < BUDGET);
	/* the periods meet it: always enabled */
	assert_true(pebs_budget__duty(s.b) == 1);
	pebs_budget__delete(s.b);
}

static void event_cost_over_budget(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	struct sim s = {0};
	/*
	 * counting costs 5 %: no period meets 2 %; a duty cycle's (its
	 * windows pay for counting anyway): samples that cost what
	 * counting does, one per (COST + REC) / 80 = 75 faults, not the
	 * least rate's (100/s: one per 6250)
	 */
	double counting = FAULT_DENSITY * 80, hi = FAULT_DENSITY * 1e9 / 100;
	double floor, balanced = (COST + REC) / 80;
	int i;

	(void)state;
	sim_faults(&s, &o, 80);
	for (i = 0; i < 10; i++)
		sim_step(&s);
	assert_true(fabs((double)s.period[0] - balanced) <= 1);
	assert_true(balanced < hi / 50);
	floor = counting + FAULT_DENSITY * (COST + REC) / balanced;
	assert_true(fabs(floor - 2 * counting) < 1e-9);
	assert_true(fabs(pebs_budget__floor(s.b) - floor) < 1e-4);
	assert_true(pebs_budget__floor(s.b) > BUDGET);
	assert_true(fabs(pebs_budget__overhead(s.b) - floor) < 1e-3);
	/* it stays there */
	for (i = 0; i < 5; i++) {
		sim_step(&s);
		assert_int_equal(s.changes, 0);
	}
	pebs_budget__delete(s.b);
	/* the user's floor (-c) wins: 500, and the floor costs at it */
	o.floor = 500;
	sim_faults(&s, &o, 80);
	for (i = 0; i < 10; i++)
		sim_step(&s);
	assert_int_equal(s.period[0], 500);
	assert_true(fabs(pebs_budget__floor(s.b) - counting -
			 FAULT_DENSITY * (COST + REC) / 500) < 1e-4);
	assert_int_equal(pebs_budget__set_event_cost(s.b, 1, 1), -EINVAL);
	assert_int_equal(pebs_budget__set_event_cost(s.b, 0, -1), -EINVAL);
	assert_int_equal(pebs_budget__set_event_cost(NULL, 0, 1), -EINVAL);
	assert_true(pebs_budget__floor(NULL) == 0);
	pebs_budget__delete(s.b);
}

/*
 * Counting costs 5 %, the budget is 1 %: the events are enabled d =
 * 0.9 x 1 % / 10 % = 0.09 of the time (aiming at 90 % of the budget;
 * enabled, the samples cost as much as counting: 10 %), their period
 * from the costs (the rate and density measured over the enabled
 * time), and what they cost over the whole time is the budget. The
 * load falls (a tenth of the faults: counting 0.5 %): d comes back to 1.
 */
static void duty_cycle(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = 0.01, .nr_channels = 1);
	struct sim s = {0};
	double balanced = (COST + REC) / 80, floor;
	int i;

	(void)state;
	sim_faults(&s, &o, 80);
	s.duty = true;
	assert_true(pebs_budget__duty(s.b) == 1);	/* nothing seen yet */
	for (i = 0; i < 10; i++)
		sim_step(&s);
	floor = FAULT_DENSITY * 2 * 80;
	assert_true(fabs(pebs_budget__floor(s.b) - floor) < 1e-4);
	assert_true(fabs(s.on - 0.9 * 0.01 / floor) < 1e-3);
	assert_true(s.on > 0.085 && s.on < 0.095);
	/* the enabled windows' density: not d times too low */
	assert_true(fabs((double)s.period[0] - balanced) <= 1);
	assert_true(fabs(pebs_budget__overhead(s.b) - 0.009) < 1e-4);
	assert_true(fabs(pebs_budget__stats(s.b, 0)->overhead - 0.009) < 1e-4);
	/* it holds */
	for (i = 0; i < 5; i++) {
		sim_step(&s);
		assert_int_equal(s.changes, 0);
		assert_true(s.on > 0.085 && s.on < 0.095);
	}
	/* the load falls: back to always enabled within a few intervals */
	s.density[0] = FAULT_DENSITY / 10;
	for (i = 0; i < 8 && s.on < 1; i++)
		sim_step(&s);
	assert_true(s.on == 1);
	assert_true(i >= 2);		/* the peak held decays by halves */
	for (i = 0; i < 10; i++)
		sim_step(&s);
	assert_true(pebs_budget__floor(s.b) < 0.01);
	assert_true(pebs_budget__overhead(s.b) <= 0.01);
	/* an interval wholly disabled tells nothing */
	{
		uint64_t next[1], period = s.period[0];
		PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = IV_NS,
			  .sampled_cpu_ns = IV_NS, .samples = s.samples,
			  .disabled_ns = IV_NS);

		assert_int_equal(pebs_budget__update(s.b, &iv, next), 0);
		assert_int_equal(pebs_budget__stats(s.b, 0)->period, period);
	}
	assert_true(pebs_budget__duty(NULL) == 1);
	pebs_budget__delete(s.b);
}

/*
 * The same recording enabled 20 % of the time but reported as always
 * enabled: the density looks 5 times too low, counting seems to cost 1
 * % and d ~ 0.45 instead of 0.09 — why disabled_ns matters
 */
static void duty_needs_disabled_time(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = 0.01, .nr_channels = 1);
	PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = IV_NS,
		  .sampled_cpu_ns = IV_NS);
	uint64_t samples[1], events[1], next[1];
	struct pebs_budget *b;

	(void)state;
	assert_int_equal(pebs_budget__new(&o, &b), 0);
	assert_int_equal(pebs_budget__set_channel(b, 0, 1000, COST), 0);
	assert_int_equal(pebs_budget__set_event_cost(b, 0, 80), 0);
	events[0] = (uint64_t)(FAULT_DENSITY * 0.2 * IV_NS);
	samples[0] = events[0] / 1000;
	iv.samples = samples;
	iv.events = events;
	assert_true(pebs_budget__update(b, &iv, next) >= 0);
	assert_true(pebs_budget__duty(b) > 0.4);
	pebs_budget__delete(b);
	assert_int_equal(pebs_budget__new(&o, &b), 0);
	assert_int_equal(pebs_budget__set_channel(b, 0, 1000, COST), 0);
	assert_int_equal(pebs_budget__set_event_cost(b, 0, 80), 0);
	iv.disabled_ns = IV_NS * 4 / 5;
	assert_true(pebs_budget__update(b, &iv, next) >= 0);
	assert_true(pebs_budget__duty(b) < 0.1);
	pebs_budget__delete(b);
}

/*
 * The off windows cost too: an open, disabled page-faults event still
 * takes the kernel's software-event path in every fault (here 40 ns of
 * the 80 ns counting costs). Counting 5 % (10 % with the samples of a
 * duty cycle's windows), 2.5 % even while disabled:
 * a 3 % budget is met with d = (0.9 x 3 % - 2.5 %) / (floor - 2.5 %),
 * and the estimate over the whole time (the off windows' faults at 40
 * ns) is 0.9 x the budget; a 2 % budget cannot be met at all: d = 0
 * (the recorder's least duty) and the off floor says why.
 */
static void off_windows_cost(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = 0.03, .nr_channels = 1);
	struct sim s = {0};
	double floor, off = FAULT_DENSITY * 40;
	int i;

	(void)state;
	sim_faults(&s, &o, 80);
	assert_int_equal(pebs_budget__set_off_cost(s.b, 0, 40), 0);
	assert_int_equal(pebs_budget__set_off_cost(s.b, 0, -1), -EINVAL);
	assert_int_equal(pebs_budget__set_off_cost(s.b, 1, 40), -EINVAL);
	s.duty = true;
	for (i = 0; i < 12; i++)
		sim_step(&s);
	floor = FAULT_DENSITY * 2 * 80;
	assert_true(fabs(pebs_budget__floor(s.b) - floor) < 1e-4);
	assert_true(fabs(pebs_budget__off_floor(s.b) - off) < 1e-5);
	assert_true(fabs(s.on - (0.9 * 0.03 - off) / (floor - off)) < 1e-3);
	/* without the off cost d would be 0.9 x 3 % / floor ~ 0.27 */
	assert_true(s.on > 0.02 && s.on < 0.035);
	assert_true(fabs(pebs_budget__overhead(s.b) - 0.027) < 2e-4);
	pebs_budget__delete(s.b);

	/* 2 %: under what the events cost even disabled */
	o.budget = 0.02;
	sim_faults(&s, &o, 80);
	assert_int_equal(pebs_budget__set_off_cost(s.b, 0, 40), 0);
	s.duty = true;
	s.on = 1;
	for (i = 0; i < 3; i++)
		sim_step(&s);
	assert_true(pebs_budget__duty(s.b) == 0);
	assert_true(fabs(pebs_budget__off_floor(s.b) - off) < 1e-6);
	assert_true(pebs_budget__off_floor(s.b) > 0.02);
	/* an interval 1 % enabled: its estimate is nearly the off floor */
	{
		uint64_t next[1], events[1], samples[1];
		PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = IV_NS,
			  .sampled_cpu_ns = IV_NS, .samples = samples,
			  .events = events, .disabled_ns = IV_NS / 100 * 99);

		events[0] = (uint64_t)(FAULT_DENSITY * IV_NS / 100);
		samples[0] = 1;
		assert_true(pebs_budget__update(s.b, &iv, next) >= 0);
		assert_true(pebs_budget__overhead(s.b) > off * 0.99);
		assert_true(pebs_budget__overhead(s.b) < off + 0.001);
	}
	assert_true(pebs_budget__off_floor(NULL) == 0);
	pebs_budget__delete(s.b);
}

/*
 * Context switches cost whether the events are on or off (the tracking
 * event stays enabled): 10000 switches a second of CPU at 1 us is 1 %,
 * added to the estimate, the floor and the off floor, and taken off
 * what the periods may spend. The 3 % budget of off_windows_cost then
 * leaves 2.7 - 1 - 2.5 < 0: no duty meets it (d = 0).
 */
static void switches_cost(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = IV_NS,
		  .sampled_cpu_ns = IV_NS, .switches = 1000);
	uint64_t samples[1] = { 0 }, events[1], next[1];
	struct pebs_budget *b;
	double est;

	(void)state;
	assert_int_equal(pebs_budget__new(&o, &b), 0);
	assert_int_equal(pebs_budget__set_switch_cost(b, -1), -EINVAL);
	assert_int_equal(pebs_budget__set_switch_cost(NULL, 1), -EINVAL);
	/* cpu-clock, 1 sample per 100 us: 60 ms of 100 ms... at 10 ms */
	assert_int_equal(pebs_budget__set_channel(b, 0, 10000000, COST), 0);
	samples[0] = 10;
	iv.samples = samples;
	assert_true(pebs_budget__update(b, &iv, next) >= 0);
	est = pebs_budget__overhead(b);
	assert_int_equal(pebs_budget__set_switch_cost(b, 1000), 0);
	assert_true(pebs_budget__update(b, &iv, next) >= 0);
	/* + 1000 switches x 1 us of 100 ms */
	assert_true(fabs(pebs_budget__overhead(b) - est - 0.01) < 1e-4);
	assert_true(pebs_budget__floor(b) >= 0.01);
	pebs_budget__delete(b);

	/* page faults: 5 % counting, 2.5 % disabled, 1 % switching */
	o.budget = 0.03;
	assert_int_equal(pebs_budget__new(&o, &b), 0);
	assert_int_equal(pebs_budget__set_channel(b, 0, 1000, COST), 0);
	assert_int_equal(pebs_budget__set_event_cost(b, 0, 80), 0);
	assert_int_equal(pebs_budget__set_off_cost(b, 0, 40), 0);
	assert_int_equal(pebs_budget__set_switch_cost(b, 1000), 0);
	events[0] = (uint64_t)(FAULT_DENSITY * IV_NS);
	samples[0] = events[0] / 1000;
	iv.events = events;
	assert_true(pebs_budget__update(b, &iv, next) >= 0);
	assert_true(fabs(pebs_budget__off_floor(b) -
			 (FAULT_DENSITY * 40 + 0.01)) < 1e-6);
	assert_true(pebs_budget__duty(b) == 0);
	pebs_budget__delete(b);
}

/*
 * the totals: the first interval with samples (at the starting period)
 * apart, then the controlled ones; an interval with no CPU time adds its
 * wall time only, one all off its off cost, the final one its estimate
 * and nothing else (no period, no change, the last estimate kept)
 */
static void totals(void **state)
{
	PEBS_OPTS(pebs_budget_opts, o, .budget = BUDGET, .nr_channels = 1);
	PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = IV_NS);
	const struct pebs_budget_totals *t;
	struct pebs_budget_stats st;
	struct sim s = {0};
	uint64_t samples[1] = { 10 }, next[1];
	double first, cost, est;
	int i;

	(void)state;
	assert_null(pebs_budget__totals(NULL));
	sim_init(&s, &o, 10000);	/* 100k samples/s: 60 % */
	t = pebs_budget__totals(s.b);
	assert_false(t->decided);
	assert_true(pebs_budget__controlled(s.b) == -1);
	sim_step(&s);
	assert_true(t->decided && t->intervals == 1);
	/* decided, but nothing after the first interval yet */
	assert_true(pebs_budget__controlled(s.b) == -1);
	assert_true(fabs(t->cost_ns - sim_overhead(&s) * IV_NS) < 1);
	assert_true(t->first_cost_ns == t->cost_ns &&
		    t->first_cpu_ns == IV_NS && t->first_elapsed_ns == IV_NS);
	first = t->first_cost_ns;
	for (i = 0; i < 9; i++)
		sim_step(&s);
	assert_true(t->intervals == 10 && t->cpu_ns == 10 * IV_NS &&
		    t->first_cost_ns == first);
	/* the whole run over the budget (the start's 60 %), the rest not */
	assert_true(t->cost_ns / (double)t->cpu_ns > BUDGET);
	assert_true((t->cost_ns - first) / (double)(t->cpu_ns - IV_NS) <=
		    BUDGET);
	assert_true(fabs(pebs_budget__controlled(s.b) - (t->cost_ns - first) /
			 (double)(t->cpu_ns - IV_NS)) < 1e-12);
	/* no CPU time: its wall time only */
	iv.samples = samples;
	cost = t->cost_ns;
	assert_int_equal(pebs_budget__update(s.b, &iv, next), 0);
	assert_true(t->cost_ns == cost && t->intervals == 10 &&
		    t->elapsed_ns == 11 * IV_NS);
	/* all off: what the events cost disabled (1 % at 0.01 ns each) */
	assert_int_equal(pebs_budget__set_off_cost(s.b, 0, 0.01), 0);
	sim_step(&s);
	cost = t->cost_ns;
	iv.sampled_cpu_ns = IV_NS;
	iv.disabled_ns = IV_NS;
	assert_int_equal(pebs_budget__update(s.b, &iv, next), 0);
	assert_true(fabs(t->cost_ns - cost - 0.01 * IV_NS) < 1);
	/* the final one: 10 samples at their cost and the recorder's */
	st = *pebs_budget__stats(s.b, 0);
	est = pebs_budget__overhead(s.b);
	cost = t->cost_ns;
	iv.disabled_ns = 0;
	iv.final = true;
	samples[0] = 10;
	assert_int_equal(pebs_budget__update(s.b, &iv, next), 0);
	assert_true(next[0] == 0 && t->intervals == 13);
	assert_true(fabs(t->cost_ns - cost - 10 * (COST + REC)) < 1);
	assert_true(pebs_budget__stats(s.b, 0)->period == st.period &&
		    pebs_budget__stats(s.b, 0)->changes == st.changes &&
		    pebs_budget__stats(s.b, 0)->samples == st.samples &&
		    pebs_budget__overhead(s.b) == est);
	pebs_budget__delete(s.b);

	/* a run within the first interval: the final one is all of it */
	sim_init(&s, &o, 10000);
	t = pebs_budget__totals(s.b);
	iv.recorder_cpu_ns = 10 * (uint64_t)REC;
	assert_int_equal(pebs_budget__update(s.b, &iv, next), 0);
	assert_false(t->decided);
	assert_true(fabs(t->cost_ns - 10 * (COST + REC)) < 1 &&
		    t->first_cost_ns == t->cost_ns &&
		    t->first_cpu_ns == t->cpu_ns);
	/* nothing controlled */
	assert_true(pebs_budget__controlled(s.b) == -1);
	assert_true(pebs_budget__controlled(NULL) == -1);
	pebs_budget__delete(s.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(converges_and_holds),
		cmocka_unit_test(step_changes),
		cmocka_unit_test(bursts),
		cmocka_unit_test(recurring_bursts),
		cmocka_unit_test(idle_phase_keeps_period),
		cmocka_unit_test(noise_within_hysteresis),
		cmocka_unit_test(fixed_channel),
		cmocka_unit_test(floor_wins),
		cmocka_unit_test(ceilings),
		cmocka_unit_test(max_rate),
		cmocka_unit_test(bad_options),
		cmocka_unit_test(period_not_applied),
		cmocka_unit_test(event_cost_under_budget),
		cmocka_unit_test(event_cost_over_budget),
		cmocka_unit_test(duty_cycle),
		cmocka_unit_test(duty_needs_disabled_time),
		cmocka_unit_test(off_windows_cost),
		cmocka_unit_test(switches_cost),
		cmocka_unit_test(totals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
