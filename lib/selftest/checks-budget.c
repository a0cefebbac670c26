// SPDX-License-Identifier: MIT
/*
 * checks-budget.c - record --budget on a known workload (issue 26): the
 * recording has no THROTTLE record, every sample carries its period and
 * the periods add up to the event's count, the controller's estimate is
 * within the budget, and the workload's measured slowdown against its
 * bare run within the budget and a point. With the precise memory load
 * event where the machine has one (what the controller steers by
 * PERF_EVENT_IOC_PERIOD on hardware), else with page-faults (software,
 * counted per occurrence, steered in freq mode), so the check runs
 * everywhere.
 *
 * The recording is the library's (struct pebs_recorder, as pebs-shim
 * record runs it) so that the controller's figures and the event's
 * counters can be read at its end; its command is the workload run by
 * `pebs-shim test --workload budget`, its layout written to a file (the
 * shell execs it: no child between the recorder and the workload).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define PAGE 4096u
#define TIMEOUT_NS 120000000000ull	/* one recording */
/*
 * Rounds: three, and four more when the three leave a rule of the whole
 * run broken: the slowdown over its allowance (noise only adds time, so
 * the least of seven is nearer the true time; a recorder that costs too
 * much is over in all seven), or the median round's controlled estimate
 * over the budget (a controller that overshoots does it in most of
 * seven). On 2026-11-28's machine here the three-round rules failed 2
 * runs in 15 (the slowdown 1.126 against 1.124 once, the median round's
 * ratio 1.016) and the median estimate once in 19 (the rounds' own
 * 1.39-2.31 %, at the controller's aim of 1.8 %).
 */
#define ROUNDS_FIRST 3
#define ROUNDS_MAX 7

/*
 * The workload: 256 rounds, each faulting the 64 pages of a fresh
 * mapping and chasing pointers 2^20 steps around 16 KiB (L1), all in
 * the main thread: PERF_EVENT_IOC_PERIOD reached the event of the task
 * the recorder opened it on, not its copies in threads already running
 * (a change of period now opens the events again on every thread).
 * Here the faults were under a tenth of its CPU time: counting them
 * costs far under the budget, so the periods keep it, not a duty cycle
 * (with four times the faults, busy moments of the shared machine put
 * a third of the runs in one, whose samples then carried periods of
 * millions, since fixed: see st_budget_judge); the chase is what a
 * precise load event samples.
 */
#define WL_ROUNDS 384
#define WL_PAGES 64
#define WL_STEPS (1u << 20)
#define WL_CHASE (16u << 10)

/*
 * With PEBS_TEST_COUNT=EVENT the workload prints its count of EVENT
 * after its measured phase ("count=N", or "count_error=WHY"): the count
 * the budget check compares the samples' periods with, independent of
 * the recorder. Page faults from its rusage, since the process began
 * (a counter would add its cost per fault to the run measured); another
 * event from a counter of its own, opened before the measured phase (a
 * hardware counter costs no time per event; the bare runs open it too).
 */
#define COUNT_RUSAGE (-2)

static int count_open(FILE *out)
{
	const char *name = getenv("PEBS_TEST_COUNT");
	struct perf_event_attr a;
	struct pebs_event ev;
	int fd;

	if (!name || !*name)
		return -1;
	if (pebs_event__parse(name, &ev)) {
		fprintf(out, "count_error=%s\n", pebs_errmsg());
		return -1;
	}
	if (ev.attr.type == PERF_TYPE_SOFTWARE &&
	    ev.attr.config == PERF_COUNT_SW_PAGE_FAULTS)
		return COUNT_RUSAGE;
	a = ev.attr;
	a.size = sizeof(a);
	a.sample_period = 0;
	a.freq = 0;
	a.sample_type = 0;
	a.read_format = 0;
	a.disabled = 0;
	a.inherit = 0;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		fprintf(out, "count_error=cannot count %s on its own: %s\n",
			name, strerror(errno));
	return fd;
}

static void count_print(int fd, FILE *out)
{
	struct rusage ru;
	uint64_t v;

	if (fd == COUNT_RUSAGE) {
		getrusage(RUSAGE_SELF, &ru);
		fprintf(out, "count=%llu\n", (unsigned long long)
			(ru.ru_minflt + ru.ru_majflt));
		return;
	}
	if (fd < 0)
		return;
	if (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		fprintf(out, "count=%llu\n", (unsigned long long)v);
	else
		fprintf(out, "count_error=cannot read its counter: %s\n",
			strerror(errno));
	close(fd);
}

int st_wl_budget(FILE *out)
{
	size_t len = (size_t)WL_PAGES * PAGE;
	struct st_clock clk;
	char *chase, *p;
	unsigned int i, pg;
	int count;

	chase = mmap(NULL, WL_CHASE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (chase == MAP_FAILED)
		return core_err(-errno, "workload budget: cannot map %u bytes: "
				"%s", WL_CHASE, strerror(errno));
	st_chase_build(chase, WL_CHASE);
	fprintf(out, "workload=budget\nbuffer=%#lx+%u\nthread.0=%d %#lx+%u\n",
		(unsigned long)chase, WL_CHASE, (int)syscall(SYS_gettid),
		(unsigned long)chase, WL_CHASE);
	count = count_open(out);
	fflush(out);
	st_clock_start(&clk);
	for (i = 0; i < WL_ROUNDS; i++) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		madvise(p, len, MADV_NOHUGEPAGE);	/* a fault a page */
		for (pg = 0; pg < WL_PAGES; pg++)
			((volatile char *)p)[(size_t)pg * PAGE] = 1;
		munmap(p, len);
		st_chase_run(chase, WL_STEPS);
	}
	count_print(count, out);
	st_clock_print(&clk, out);
	fprintf(out, "faults=%u\n", i * WL_PAGES);
	munmap(chase, WL_CHASE);
	if (i < WL_ROUNDS)
		return core_err(-ENOMEM, "workload budget: cannot map %zu "
				"bytes", len);
	return ferror(out) ? core_err(-EIO, "workload: cannot write its "
				      "layout") : 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* what the recording's file says: its samples' periods, THROTTLEs */
static void on_sample(void *arg, const struct pebs_sample *s)
{
	struct st_budget_fig *f = arg;

	f->samples++;
	if (!(s->present & PERF_SAMPLE_PERIOD) || !s->period) {
		f->no_period++;
		return;
	}
	f->period_sum += s->period;
	f->last_period = s->period;
	if (s->period > f->max_period)
		f->max_period = s->period;
}

static void on_record(void *arg, const struct perf_event_header *ev)
{
	struct st_budget_fig *f = arg;

	f->throttles += ev->type == PERF_RECORD_THROTTLE;
}

/* the workload's layout, from the file its shell redirected it to */
static int read_layout(const char *path, struct st_run *run,
		       struct st_layout *l)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, run->out, sizeof(run->out) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	run->out[n] = 0;
	return st_layout_parse(run->out, l);
}

/*
 * The workload's command line: the shell exports PEBS_TEST_COUNT ($2)
 * and execs it (no child in between), its layout into $1.
 */
static void wl_argv(struct st_cmds *c, const char *evstr, char *out,
		    size_t len, char **argv)
{
	snprintf(out, len, "%s/budget.out", c->dir);
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = "PEBS_TEST_COUNT=\"$2\"; export PEBS_TEST_COUNT; "
		  "exec \"$0\" test --workload budget >\"$1\"";
	argv[3] = (char *)c->o->tool;
	argv[4] = out;
	argv[5] = (char *)evstr;
	argv[6] = NULL;
}

/*
 * What the workload wrote into @out: its layout into @l, its count of
 * @evstr into *@count. 0, or -1 with @r set (skip: it cannot count the
 * event).
 */
static int wl_result(struct pebs_selftest_result *r, struct st_cmds *c,
		     const char *out, const char *evstr, struct st_layout *l,
		     uint64_t *count)
{
	unsigned long long n;
	const char *p;
	int err = read_layout(out, c->run, l);

	if (err) {
		st_set(r, PEBS_SELFTEST_FAIL, "the workload's output %s: %s",
		       out, strerror(-err));
		return -1;
	}
	p = strstr(c->run->out, "\ncount_error=");
	if (p) {
		p += strlen("\ncount_error=");
		st_set(r, PEBS_SELFTEST_SKIP, "no count of %s to compare the "
		       "periods with: %.*s", evstr, (int)strcspn(p, "\n"), p);
		return -1;
	}
	p = strstr(c->run->out, "\ncount=");
	if (!p || sscanf(p, "\ncount=%llu", &n) != 1) {
		st_set(r, PEBS_SELFTEST_FAIL, "the workload's output %s: no "
		       "count of %s", out, evstr);
		return -1;
	}
	*count = n;
	return 0;
}

/* the workload run bare: 0, or -1 with @r set */
static int bare_run(struct pebs_selftest_result *r, struct st_cmds *c,
		    const char *evstr, struct st_layout *l)
{
	char out[600], *argv[8], line[256];
	uint64_t count;
	int err;

	wl_argv(c, evstr, out, sizeof(out), argv);
	err = st_spawn(argv, (double)(TIMEOUT_NS / 1000000000ull), c->run);
	if (!err && !c->run->status)
		return wl_result(r, c, out, evstr, l, &count);
	st_set(r, PEBS_SELFTEST_FAIL, "the budget workload run bare: %s%s",
	       err ? strerror(-err) : c->run->timed_out ? "timed out" :
	       "failed: ", err || c->run->timed_out ? "" :
	       st_last_line(c->run->err, line, sizeof(line)));
	return -1;
}

/* the recorder's steps until the command is done: 0 or -errno */
static int run_recorder(struct pebs_recorder *rec)
{
	uint64_t end = now_ns() + TIMEOUT_NS;
	int err = pebs_recorder__prepare(rec), n = 0;

	if (!err)
		err = pebs_recorder__open(rec);
	if (!err)
		err = pebs_recorder__start(rec);
	while (!err && (n = pebs_recorder__poll(rec, 100)) == 0 &&
	       now_ns() < end)
		;
	if (err)
		return err;
	err = pebs_recorder__stop(rec, 0);
	if (!err && n == 0)
		err = core_err(-ETIMEDOUT, "the workload ran over %llu s",
			       TIMEOUT_NS / 1000000000ull);
	return n < 0 ? n : err;
}

/*
 * `record --budget` of the budget workload with @evstr into @path: the
 * figures into @f (budget, samples, periods, count, estimates), the
 * workload's layout into @l. 0, or -1 with @r set (skip: the event
 * cannot be opened here).
 */
static int budget_record(struct pebs_selftest_result *r, struct st_cmds *c,
			 const char *evstr, const char *path,
			 struct st_budget_fig *f, struct st_layout *l)
{
	char out[600], *cmd[8];
	const char *evs[1] = { evstr };
	PEBS_OPTS(pebs_recorder_opts, ro, .events = evs, .nr_events = 1,
		  .output = path, .budget = f->budget, .cmd = cmd,
		  .no_buildid_cache = true);
	const struct pebs_budget_totals *t;
	struct pebs_recorder *rec = NULL;
	int err;

	wl_argv(c, evstr, out, sizeof(out), cmd);
	err = pebs_recorder__new(&ro, &rec);
	if (!err)
		err = run_recorder(rec);
	if (err) {
		bool no = err == -EACCES || err == -EPERM || err == -ENOENT ||
			  err == -EOPNOTSUPP || err == -ENOSYS;

		st_set(r, no ? PEBS_SELFTEST_SKIP : PEBS_SELFTEST_FAIL,
		       "record --budget -e %s: %s", evstr, pebs_errmsg());
		pebs_recorder__delete(rec);
		return -1;
	}
	f->status = pebs_recorder__stats(rec)->status;
	f->lost = pebs_recorder__stats(rec)->lost;
	f->duty = pebs_recorder__duty(rec, NULL);
	t = pebs_budget__totals(pebs_recorder__budget(rec));
	f->decided = t && t->decided;
	f->whole = t && t->cpu_ns ? t->cost_ns / (double)t->cpu_ns : -1;
	f->controlled = pebs_budget__controlled(pebs_recorder__budget(rec));
	err = pebs_recorder__close(rec);
	pebs_recorder__delete(rec);
	if (!err)
		err = st_scan_records(path, on_sample, on_record, f);
	if (err) {
		st_set(r, PEBS_SELFTEST_FAIL, "record --budget -e %s: the "
		       "recording %s: %s", evstr, path, pebs_errmsg());
		return -1;
	}
	return wl_result(r, c, out, evstr, l, &f->count);
}

/*
 * the slowdown judged to the budget and a point, or to the bare runs'
 * own spread where that is wider: a machine whose bare runs move by 8 %
 * cannot tell 3 % (least over least of three rounds gave 1.045-1.077 in
 * 5 of 16 checks on such a machine here, 2026-11-28, whatever the build)
 */
static double slowdown_allowed(const struct st_budget_fig *f)
{
	return f->budget + SLOWDOWN_POINT > f->noise ?
	       f->budget + SLOWDOWN_POINT : f->noise;
}

static bool slowdown_ok(const struct st_budget_fig *f)
{
	return f->slowdown > 0 && f->slowdown <= 1 + slowdown_allowed(f);
}

/* the controlled estimate judged: the median round's (one round over in
   a busy moment is noise: 2.05 % controlled once in five checks on
   2026-11-28's machine, the other rounds 1.64-1.66 %; a controller that
   overshoots does it in most rounds), this round's when judged alone */
static double controlled_judged(const struct st_budget_fig *f)
{
	return f->median_controlled > 0 ? f->median_controlled :
	       f->controlled;
}

/*
 * The rules, each figure into @r's details. The periods' sum may fall
 * short of the count by what was counted after the last sample (less
 * than one period) and, in freq mode, the kernel's period of a sample
 * may exceed the events since the one before (its restart after a
 * change of rate, see --budget in pebs-shim(1)); the workload's count
 * of page faults (its rusage) also has the few of its process before
 * the exec the event starts at: the sum must be within 2 % of the count
 * plus the last sample's period (the tail after it is under one period).
 * Under a duty cycle (a busy machine can make counting alone cost more
 * than the budget for a while: seen here once in five runs, 75 %
 * enabled) each sample's period is weighted by its window's inverse
 * coverage of its cycle (see --budget in pebs-shim(1)), so the sum
 * estimates the count of the whole run, off windows included, with the
 * sampling error of a few windows: within 10 %. The largest period is
 * no allowance: under a duty cycle single samples here carried periods
 * of 0.8 and 18 million for 99,000 faults (the freq-mode period after
 * an off window, before the off windows closed the events and each
 * window opened them at a fixed period), which this rule fails. A lost
 * sample (a full ring) takes its period away: none may be lost.
 */
unsigned int st_budget_judge(struct pebs_selftest_result *r,
			     const struct st_budget_fig *f)
{
	double want = (double)f->count;
	double gap = want > (double)f->period_sum ?
		     want - (double)f->period_sum :
		     (double)f->period_sum - want;
	bool periods = f->samples && !f->no_period && !f->lost &&
		       gap <= (f->duty < 1 ? 0.1 : 0.02) * want +
			      (double)f->last_period;
	/* record's summary judges the part it controlled: the first
	   interval runs at the starting periods (here up to 2.08 % over
	   the whole run, 1.86 % controlled, in a busy moment) */
	bool estimate = f->decided && f->controlled >= 0 &&
			controlled_judged(f) <= f->budget;
	bool slow = slowdown_ok(f);

	st_detail(r, "%s.samples=%llu", f->tag,
		  (unsigned long long)f->samples);
	st_detail(r, "%s.throttles=%llu", f->tag,
		  (unsigned long long)f->throttles);
	st_detail(r, "%s.without_period=%llu", f->tag,
		  (unsigned long long)f->no_period);
	st_detail(r, "%s.lost=%llu", f->tag, (unsigned long long)f->lost);
	st_detail(r, "%s.period_sum=%llu", f->tag,
		  (unsigned long long)f->period_sum);
	st_detail(r, "%s.count=%llu", f->tag, (unsigned long long)f->count);
	st_detail(r, "%s.max_period=%llu", f->tag,
		  (unsigned long long)f->max_period);
	st_detail(r, "%s.last_period=%llu", f->tag,
		  (unsigned long long)f->last_period);
	st_detail(r, "%s.estimate=%.3f %% whole run, %.3f %% controlled%s",
		  f->tag, f->whole * 100, f->controlled * 100,
		  f->decided ? "" : " (the controller never decided)");
	st_detail(r, "%s.duty=%.1f %%", f->tag, f->duty * 100);
	st_detail(r, "%s.slowdown_allowed=%.3f", f->tag,
		  1 + slowdown_allowed(f));
	return (f->throttles != 0) + !periods + !estimate + !slow +
	       (f->status != 0);
}

/*
 * What the @n rounds say together, into each round's figures: the
 * slowdown, the least recorded CPU time over the least bare (noise only
 * adds time); the bare runs' spread; the median round's controlled
 * estimate. Returns the median of the rounds' ratios.
 */
static double rounds_figures(const double *rec, const double *bare,
			     struct st_budget_fig *f, unsigned int n)
{
	double q[ROUNDS_MAX], r[ROUNDS_MAX], b[ROUNDS_MAX];
	double ratio, ctl, rlo, blo, bhi, med, hi;
	unsigned int i;

	for (i = 0; i < n; i++) {
		q[i] = rec[i] / (bare[i] > 0 ? bare[i] : 1e-9);
		r[i] = rec[i];
		b[i] = bare[i];
	}
	st_spread(q, n, &ratio, &med, &hi);
	st_spread(r, n, &med, &rlo, &hi);
	st_spread(b, n, &med, &blo, &bhi);
	for (i = 0; i < n; i++)
		q[i] = f[i].controlled;
	st_spread(q, n, &ctl, &med, &hi);
	for (i = 0; i < n; i++) {
		f[i].slowdown = rlo / (blo > 0 ? blo : 1e-9);
		f[i].noise = blo > 0 ? bhi / blo - 1 : 0;
		f[i].median_controlled = ctl;
	}
	return ratio;
}

void st_check_budget(struct pebs_selftest_result *r,
		     const struct pebs_selftest_opts *o)
{
	struct pebs_selftest_result why = { .sz = sizeof(why) };
	unsigned int rounds = ROUNDS_FIRST, i, k, bad = 0;
	double cpu[2][ROUNDS_MAX], median;
	struct st_budget_fig f[ROUNDS_MAX];
	char ev[128 + 8];
	const char *evstr = "page-faults:u";
	char path[600];
	struct st_layout l;
	struct st_cmds c;

	if (st_load_event(&why, ev, sizeof(ev)))
		evstr = ev;
	if (st_cmds_init(r, o, false, &c))
		return;
	snprintf(path, sizeof(path), "%s/budget.data", c.dir);
	st_detail(r, "event=%s", evstr);
	if (evstr != ev)
		st_detail(r, "why_not_precise=%s", why.message);
	/* interleaved: each round starts with the other of the two; more
	   rounds when the first leave a rule of the whole run broken (the
	   judge's own rules: the slowdown, the median controlled estimate) */
	for (i = 0; i < rounds; i++) {
		for (k = 0; k < 2; k++) {
			bool recorded = (i + k) % 2;

			if (recorded) {
				memset(&f[i], 0, sizeof(f[i]));
				f[i].budget = ST_BUDGET;
				snprintf(f[i].tag, sizeof(f[i].tag), "round%u",
					 i + 1);
				if (budget_record(r, &c, evstr, path, &f[i], &l))
					goto out;
			} else if (bare_run(r, &c, evstr, &l)) {
				goto out;
			}
			cpu[recorded][i] = l.cpu_seconds;
		}
		if (i + 1 == ROUNDS_FIRST) {
			rounds_figures(cpu[1], cpu[0], f, i + 1);
			if (!slowdown_ok(&f[0]) ||
			    controlled_judged(&f[0]) > f[0].budget)
				rounds = ROUNDS_MAX;
		}
	}
	median = rounds_figures(cpu[1], cpu[0], f, rounds);
	for (i = 0; i < rounds; i++)
		bad += st_budget_judge(r, &f[i]) != 0;
	st_detail(r, "slowdown=%.3f (least CPU time recorded over least "
		  "bare, %u rounds)", f[0].slowdown, rounds);
	st_detail(r, "slowdown_median=%.3f", median);
	if (!bad)
		st_set(r, PEBS_SELFTEST_PASS, "record --budget %g%% -e %s%s: no "
		       "THROTTLE, every sample with its period, the periods "
		       "%llu of a count of %llu, estimated %.2f %% (%.2f %% "
		       "controlled), the "
		       "workload's CPU time %.3fx its bare run's (%u rounds; "
		       "the bare runs spread %.1f %%)",
		       ST_BUDGET * 100, evstr, evstr == ev ? "" :
		       " (no precise memory event here)",
		       (unsigned long long)f[0].period_sum,
		       (unsigned long long)f[0].count, f[0].whole * 100,
		       f[0].controlled * 100,
		       f[0].slowdown, rounds, f[0].noise * 100);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "record --budget %g%% -e %s: %u "
		       "of %u recordings broke a rule (no THROTTLE; every "
		       "sample with its period, none lost, their sum the count "
		       "within 2 %% and a period; the controlled part's "
		       "estimate within the budget in the median round; "
		       "CPU time within %g %% of the bare run's, or the bare "
		       "runs' spread; exit 0): see the figures",
		       ST_BUDGET * 100, evstr, bad, rounds,
		       (ST_BUDGET + SLOWDOWN_POINT) * 100);
out:
	st_cmds_done(&c);
}
