// SPDX-License-Identifier: MIT
/*
 * record-budget.c - a recording under an overhead budget (--budget):
 * each event's costs measured at the start or cached (record-calibrate.c),
 * one controller channel per event (pebs_budget), fed every interval with
 * the event's samples and events (its counters), the sampled CPUs' or
 * tasks' CPU time and context switches (/proc) and the recorder's own CPU
 * (getrusage); the periods it returns applied by opening the events
 * again at them, on every thread or CPU sampled (record-reopen.c: at the
 * next window of the duty cycle, or at once), event groups included. A
 * clock counts one event per ns of CPU: its first period comes from the
 * model (rec_budget_start); the software events counted per occurrence
 * run in freq mode until their first period is set (swevent()). When
 * counting alone costs more than the budget, the duty cycle
 * (record-duty.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "record/record-int.h"
#include "core/internal.h"

#define INTERVAL_NS	PEBS_RECORDER_BUDGET_INTERVAL_NS

/* the user + system CPU time of @ru, ns */
static uint64_t ru_ns(const struct rusage *ru)
{
	return ((uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec) *
	       1000000000ull + ((uint64_t)ru->ru_utime.tv_usec +
				(uint64_t)ru->ru_stime.tv_usec) * 1000u;
}

uint64_t rec_self_ns(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru_ns(&ru);
}

/*
 * What is sampled so far, in one pass: its CPU time (*@cpu_ns, 0 when
 * unknown) and its context switches (*@switches): those of the threads
 * of the command or of the pids (not their children), the tids; with
 * CPUs their busy time and the machine's switches (/proc/stat's ctxt) in
 * the share of the CPUs sampled
 */
static void sampled(struct pebs_recorder *r, uint64_t *cpu_ns,
		    uint64_t *switches)
{
	static long hz;
	char path[64];
	int64_t t = 0, v;
	uint64_t n = 0;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	if (r->per_cpu) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		if (!core_proc_stat(&r->targets, &t, &n))
			t = 0;
		n = online > 0 ? n * r->targets.n / (uint64_t)online : 0;
	} else if (r->o.cmd) {
		/* the counters: the command and all its descendants, live */
		if (!r->bud.sw_fd || read(r->bud.sw_fd - 1, &n, sizeof(n)) !=
		    (ssize_t)sizeof(n))
			n = core_task_switches(r->child.pid, 0);
		if (r->bud.cpu_fd && read(r->bud.cpu_fd - 1, cpu_ns,
					  sizeof(*cpu_ns)) ==
		    (ssize_t)sizeof(*cpu_ns)) {
			*switches = n;
			return;
		}
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)r->child.pid);
		t = core_stat_file_ticks(path, true);
	} else {
		for (unsigned int i = 0; i < r->procs.n; i++) {
			pid_t id = r->procs.v[i], tgid = pebs_proc__tgid(id);

			if (tgid <= 0)
				continue;
			if (r->o.tids)
				snprintf(path, sizeof(path), "/proc/%d/task/%d/stat",
					 (int)tgid, (int)id);
			else
				snprintf(path, sizeof(path), "/proc/%d/stat",
					 (int)id);
			v = core_stat_file_ticks(path, !r->o.tids);
			t += v > 0 ? v : 0;
		}
		/* their threads' switches, a bounded number read an
		   interval (core_switches_read) */
		n = core_switches_read(&r->bud.sw_seen, &r->procs, r->o.tids);
	}
	*cpu_ns = t > 0 && hz > 0 ? (uint64_t)t * (1000000000ull / (uint64_t)hz) : 0;
	*switches = n;
}

/* perf_event_max_sample_rate / 2: the kernel throttles above it */
static double kernel_max_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	double rate = 0;

	if (f) {
		if (fscanf(f, "%lf", &rate) != 1)
			rate = 0;
		fclose(f);
	}
	return rate / 2;
}

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * The events the kernel counts in perf_swevent_event (software events
 * but the clocks, tracepoints, breakpoints): with PERF_SAMPLE_PERIOD
 * and a fixed period it samples every event (data->period = 1). Under
 * a budget they run in freq mode, where each sample carries the
 * kernel's period, and a period is set as the frequency that gives it.
 */
static bool swevent(const struct perf_event_attr *a)
{
	return (a->type == PERF_TYPE_SOFTWARE && !is_clock(a)) ||
	       a->type == PERF_TYPE_TRACEPOINT ||
	       a->type == PERF_TYPE_BREAKPOINT;
}

/*
 * @ev's period when it opens: -c's, else its own; a clock's from the
 * model, the period that spends 90 % of its even share of the budget
 * on the kernel's cost (the recorder's is not known yet), within the
 * controller's limits; a software event's frequency, what that share
 * allows on one busy CPU. The periods a command's threads inherit are
 * those they start with: PERF_EVENT_IOC_PERIOD changes the event, not
 * its copies in threads that already run.
 */
static void first_period(struct rec_budget *bu, unsigned int i,
			 struct pebs_event *ev, unsigned int nr_evs,
			 const struct pebs_budget_opts *o)
{
	double share = o->budget / nr_evs * 0.9, p, f;
	double min_rate = o->min_rate ? o->min_rate : PEBS_BUDGET_MIN_RATE;

	if (o->floor)
		ev->attr.sample_period = o->floor;
	if (swevent(&ev->attr)) {
		f = share * 1e9 / bu->cost[i];
		if (o->max_rate)
			f = fmin(f, o->max_rate);
		/*
		 * a floor (-c): the kernel's period in freq mode is the event
		 * rate over the frequency, and the rate is not known before
		 * the event runs: at the budget's frequency (tens of kHz) a
		 * page fault's period was ~20 for the whole first interval
		 * under -c 1000. The minimum rate until the controller knows
		 * the rate (then its frequencies keep the floor at it)
		 */
		if (o->floor)
			f = fmin(f, min_rate);
		bu->freq[i] = true;
		ev->attr.freq = 1;
		ev->attr.sample_freq = (uint64_t)llround(fmax(f, min_rate));
		return;
	}
	if (!is_clock(&ev->attr))
		return;
	p = bu->cost[i] / share;
	if (o->max_rate)
		p = fmax(p, 1e9 / o->max_rate);
	p = fmin(p, 1e9 / min_rate);
	p = fmax(p, (double)o->floor);
	ev->attr.sample_period = (uint64_t)llround(fmax(p, 1));
}

int rec_budget_calibrate(struct pebs_recorder *r)
{
	struct rec_budget *bu = &r->bud;
	double max = kernel_max_rate(), clk = 0, pf[3] = { 0, 0, 0 };
	PEBS_OPTS(pebs_budget_opts, o, .budget = r->o.budget,
		  .nr_channels = r->nr_evs, .floor = r->o.period,
		  .max_rate = (double)r->o.freq);
	int err;

	if (!r->o.budget)
		return 0;
	/* -F is a frequency not to exceed; the kernel's limit too */
	if (max > 0 && (!o.max_rate || o.max_rate > max))
		o.max_rate = max;
	bu->max_rate = o.max_rate;
	if (o.max_rate && o.max_rate < PEBS_BUDGET_MIN_RATE)
		o.min_rate = o.max_rate;
	for (unsigned int i = 0; i < r->nr_evs; i++) {
		err = swevent(&r->evs[i].attr) ? rec_cal_swevent(r, i, pf) :
		      rec_cal_event(r, i, &clk);
		if (err)
			return rec_err(err, "--budget: cannot measure what a sample of %s costs: %s",
				       r->evs[i].name, pebs_errmsg());
		first_period(bu, i, &r->evs[i], r->nr_evs, &o);
	}
	err = rec_cal_switch(r);
	if (err)
		return rec_err(err, "--budget: cannot measure what a context switch costs: %s",
			       pebs_errmsg());
	return pebs_budget__new(&o, &bu->b);
}

/*
 * Each event's count so far, its channels' counters summed (an
 * inherited channel's includes its children's); false if one cannot be
 * read as one value (a group's)
 */
static bool read_counts(struct pebs_recorder *r, uint64_t *counts)
{
	unsigned int n = pebs_chanset__nr_channels(r->set);

	memset(counts, 0, r->nr_evs * sizeof(*counts));
	for (unsigned int i = 0; i < n; i++) {
		struct pebs_channel *ch = pebs_chanset__channel(r->set, i);
		uint64_t v[5];	/* { value, then what read_format adds } */

		if (!ch || rec_ev_of(r, ch) == r->nr_evs)
			continue;	/* closed; the tracking event counts
					   nothing */
		if ((pebs_channel__attr(ch)->read_format & PERF_FORMAT_GROUP) ||
		    read(pebs_channel__fd(ch), v, sizeof(v)) < (ssize_t)sizeof(v[0]))
			return false;
		counts[rec_ev_of(r, ch)] += v[0];
	}
	/* and what the channels the duty cycle closed had counted */
	for (unsigned int i = 0; i < r->nr_evs; i++)
		counts[i] += r->bud.closed[i];
	return true;
}

/* event @i's channel in the controller, at @period, with its costs */
static int set_channel(struct rec_budget *bu, unsigned int i, uint64_t period)
{
	int err;

	bu->period[i] = period;
	err = pebs_budget__set_channel(bu->b, i, period, bu->cost[i]);
	/* no off cost: closed in the off windows, it costs nothing there */
	return err ? err : pebs_budget__set_event_cost(bu->b, i,
						       bu->event_cost[i]);
}

/*
 * A command's CPU time: a task-clock counter on it, inherited, enabled at
 * its exec. Read, an inherited counter sums its live children's copies
 * (perf_event_read_value), so the time of descendants not yet reaped is
 * in it: /proc/PID/stat's cutime has it only once they are reaped, and
 * a command that waits for a long-running child (sh -c 'prog; ...') kept
 * the controller blind for that child's whole run. Without it (refused):
 * /proc, as before. Its context switches likewise: a context-switches
 * counter (switches out, as /proc's voluntary and nonvoluntary count
 * them), one read an interval where /proc took two files a thread: with
 * hundreds of threads on two CPUs the recorder, one runnable thread among
 * them, spent seconds on those files between two drains, and its rings
 * overflowed (300 idle threads and ~170 that take page faults under
 * --budget 5%: 108,051 and 142,401 samples lost of 145,000-176,000).
 */
static int open_counter(struct pebs_recorder *r, uint64_t config)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
		.config = config, .disabled = 1,
		.inherit = 1, .enable_on_exec = 1,
	};
	long fd;

	if (!r->o.cmd || r->per_cpu)
		return 0;
	fd = syscall(SYS_perf_event_open, &a, r->child.pid, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd >= 0 ? (int)fd + 1 : 0;
}

void rec_budget_close(struct pebs_recorder *r)
{
	if (r->bud.cpu_fd)
		close(r->bud.cpu_fd - 1);
	if (r->bud.sw_fd)
		close(r->bud.sw_fd - 1);
	r->bud.cpu_fd = r->bud.sw_fd = 0;
	core_switches_free(&r->bud.sw_seen);
	rec_reopen_free(r);
}

int rec_budget_start(struct pebs_recorder *r)
{
	struct rec_budget *bu = &r->bud;
	int err;

	if (!bu->b)
		return 0;
	bu->cpu_fd = open_counter(r, PERF_COUNT_SW_TASK_CLOCK);
	bu->sw_fd = open_counter(r, PERF_COUNT_SW_CONTEXT_SWITCHES);
	err = rec_reopen_init(r);
	if (err)
		return err;
	for (unsigned int i = 0; i < r->nr_evs; i++) {
		/* in freq mode: once its first samples tell its period */
		if (bu->freq[i])
			continue;
		/*
		 * a clock's period is steered too: its samples carry the
		 * period it was opened with whatever PERF_EVENT_IOC_PERIOD
		 * sets (perf_swevent_hrtimer reports hw.last_period, set
		 * once), but the events are opened again at each change; the
		 * model's period did not count the recorder's CPU per sample
		 * (2.0-2.6 % at --budget 2%), the controller does
		 */
		err = set_channel(bu, i, r->attrs[i].sample_period);
		if (err)
			return err;
	}
	err = pebs_budget__set_switch_cost(bu->b, bu->switch_cost);
	if (err)
		return err;
	bu->t_last = core_mono_ns();
	rec_duty_begin(r, bu->t_last);
	bu->self_last = rec_self_ns();
	sampled(r, &bu->cpu_last, &bu->sw_last);
	if (!read_counts(r, bu->count))
		memset(bu->count, 0, sizeof(bu->count));
	return 0;
}

/*
 * The frequency that gives event @i @period at the event rate of the
 * interval (@events in @elapsed_ns), within the kernel's limit
 */
static uint64_t freq_of(const struct pebs_recorder *r, uint64_t events,
			uint64_t elapsed_ns, uint64_t period)
{
	double f = (double)events * 1e9 / (double)elapsed_ns / (double)period;
	double max = r->bud.max_rate;

	if (max && f > max)
		f = max;
	return (uint64_t)llround(fmax(f, 1));
}

/*
 * The periods the controller chose: each event's channels open again at
 * its new period, on every thread, at the next window or at once
 * (reopen_due; PERF_EVENT_IOC_PERIOD reaches an inherited event, not its
 * copies in running threads), in freq mode at the frequency that gives
 * the period at the interval's rate
 */
static void apply(struct pebs_recorder *r, const uint64_t *next,
		  const uint64_t *events, uint64_t elapsed_ns)
{
	struct rec_budget *bu = &r->bud;

	for (unsigned int i = 0; i < r->nr_evs; i++) {
		if (!next[i])
			continue;
		if (next[i] != bu->period[i])
			bu->reopen_due = true;
		bu->period[i] = next[i];
		if (bu->freq[i])
			r->evs[i].attr.sample_freq =
				freq_of(r, events[i], elapsed_ns, next[i]);
	}
}

/*
 * The events of the interval from the counters: a sample's period in
 * freq mode is the kernel's guess, and summed over few samples it can
 * be off by orders of magnitude (an event that counts per occurrence
 * costs per occurrence: the true count matters); else the periods' sum
 */
static void count_events(struct pebs_recorder *r)
{
	struct rec_budget *bu = &r->bud;
	uint64_t now[PEBS_RECORDER_MAX_EVENTS];

	if (!read_counts(r, now))
		return;
	for (unsigned int i = 0; i < r->nr_evs; i++) {
		/*
		 * a channel removed (its task gone) takes its count away:
		 * the samples' periods then (a command ended within the
		 * interval, its channel gone before the last one is read)
		 */
		if (now[i] > bu->count[i])
			bu->events[i] = now[i] - bu->count[i];
		bu->count[i] = now[i];
	}
}

/*
 * A frequency's channel starts at the period its first samples had: at
 * least 1 (each sample stands for an event or more), though the counts
 * read may say fewer events than samples (-p of 300 threads, some gone
 * between the read of the counts and the drain of the rings, the
 * recorder slowed by strace: a period of 0, which the controller
 * refuses, ended the recording in 3 runs of 8)
 */
static int start_freq(struct rec_budget *bu, unsigned int nr_evs)
{
	int err = 0;

	for (unsigned int i = 0; i < nr_evs && !err; i++) {
		if (!bu->freq[i] || bu->period[i] || !bu->samples[i] ||
		    !bu->events[i])
			continue;
		err = set_channel(bu, i, bu->events[i] > bu->samples[i] ?
				  bu->events[i] / bu->samples[i] : 1);
	}
	return err;
}

/*
 * The interval from bu->t_last to @now fed to the controller (@final:
 * the last, into its totals only), with what is sampled now (@cpu,
 * @sw: sampled()), its periods into @next; returns
 * pebs_budget__update's
 */
static int feed(struct pebs_recorder *r, uint64_t now, bool final,
		uint64_t cpu, uint64_t sw, uint64_t *next)
{
	struct rec_budget *bu = &r->bud;
	uint64_t self = rec_self_ns();
	int n;

	bu->iv_off = rec_duty_off_ns(r, now);
	count_events(r);
	n = start_freq(bu, r->nr_evs);
	if (!n) {
		PEBS_OPTS(pebs_budget_interval, iv, .elapsed_ns = now - bu->t_last,
			  .sampled_cpu_ns = cpu > bu->cpu_last ?
					    cpu - bu->cpu_last : 0,
			  .recorder_cpu_ns = self > bu->self_last ?
					     self - bu->self_last : 0,
			  .samples = bu->samples, .events = bu->events,
			  .disabled_ns = bu->iv_off,
			  /* a thread gone takes its count away */
			  .switches = sw > bu->sw_last ? sw - bu->sw_last : 0,
			  .final = final);

		n = pebs_budget__update(bu->b, &iv, next);
	}
	bu->self_last = self;
	bu->sw_last = sw;
	if (cpu)
		bu->cpu_last = cpu;
	return n;
}

int rec_budget_tick(struct pebs_recorder *r)
{
	struct rec_budget *bu = &r->bud;
	uint64_t next[PEBS_RECORDER_MAX_EVENTS], now, cpu, sw;
	int n;

	if (!bu->b)
		return 0;
	now = core_mono_ns();
	if (now - bu->t_last < INTERVAL_NS)
		return rec_duty_step(r, now);
	sampled(r, &cpu, &sw);
	/*
	 * no CPU time seen in it (/proc counts in clock ticks, 10 ms
	 * here): the interval goes on, its samples kept for the next
	 * (they were dropped, and the controller never saw a command
	 * that runs less than a tick per interval)
	 */
	if (cpu <= bu->cpu_last)
		return rec_duty_step(r, now);
	n = feed(r, now, false, cpu, sw, next);
	for (unsigned int i = 0; i < r->nr_evs; i++)
		if (bu->events[i] && now - bu->t_last > bu->iv_off)
			bu->on_rate[i] = (double)bu->events[i] /
					 (double)(now - bu->t_last - bu->iv_off);
	/*
	 * the events were counted in the enabled windows only: their rate
	 * there is what a frequency meets (over the whole interval it was
	 * d times lower, and the kernel's periods 1/d times the one set)
	 */
	if (n > 0)
		apply(r, next, bu->events, now - bu->t_last > bu->iv_off ?
		      now - bu->t_last - bu->iv_off : now - bu->t_last);
	bu->t_last = now;
	memset(bu->samples, 0, sizeof(bu->samples));
	memset(bu->events, 0, sizeof(bu->events));
	if (n < 0)
		return n;
	/*
	 * a new period now if the events are open and no duty cycle runs;
	 * in a cycle, at the next window (each opens them: no closing and
	 * opening more, each a drain and the kernel's IPIs to the CPUs)
	 */
	if (bu->reopen_due && !bu->duty.off && !bu->duty.cycle_end) {
		n = rec_reopen_close(r);
		if (!n)
			n = rec_reopen_open(r);
		if (n)
			return rec_err(n, "cannot reopen the events at their new periods: %s",
				       pebs_errmsg());
	}
	bu->reopen_due = false;
	/* the duty the controller now asks for, from the next cycle */
	return rec_duty_step(r, now);
}

int rec_budget_final(struct pebs_recorder *r)
{
	uint64_t next[PEBS_RECORDER_MAX_EVENTS], cpu, sw;
	int n;

	if (!r->bud.b)
		return 0;
	sampled(r, &cpu, &sw);
	/* the command reaped: /proc has it no more, its rusage does (the
	   counter still reads: the same clock as the intervals before) */
	if (r->bud.end_cpu && !r->bud.cpu_fd)
		cpu = r->bud.end_cpu;
	n = feed(r, core_mono_ns(), true, cpu, sw, next);
	return n < 0 ? n : 0;
}

void rec_budget_reaped(struct pebs_recorder *r, const struct rusage *ru)
{
	/* the command and the children it waited for, as /proc's stat
	   with cutime and cstime */
	r->bud.end_cpu = ru_ns(ru);
}

bool pebs_recorder__carried(const struct pebs_recorder *r, unsigned int i,
			    uint64_t *min, uint64_t *max)
{
	bool any = r && r->bud.b && i < r->nr_evs && r->bud.carried_max[i];

	if (min)
		*min = any ? r->bud.carried_min[i] : 0;
	if (max)
		*max = any ? r->bud.carried_max[i] : 0;
	return any && r->bud.freq[i];
}

double pebs_recorder__event_cost(const struct pebs_recorder *r,
				 unsigned int i, bool *proxy)
{
	bool budgeted = r && r->bud.b && i < r->nr_evs;

	if (proxy)
		*proxy = budgeted && r->bud.event_proxy[i];
	return budgeted ? r->bud.event_cost[i] : 0;
}
