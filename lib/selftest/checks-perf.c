// SPDX-License-Identifier: MIT
/*
 * checks-perf.c - pebs-shim side by side with perf on the known
 * workloads, each run as a command (`pebs-shim test --workload NAME`)
 * under `pebs-shim record` and under `perf record` with the same event
 * and period: the chase's slowdown under each (overhead), page-fault
 * data addresses (pf-perf), and report's top rows against perf
 * report's (report-perf). Where the machine has a precise memory event
 * the overhead uses it, else cpu-clock, so these run everywhere perf
 * does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define TIMEOUT 120.0		/* seconds, for one command */
#define ROUNDS_MAX 5

/*
 * Run @argv; its workload's layout into @l. 0, or -1 with @r set to
 * fail naming the command, its exit status and its last error line.
 */
int st_run_wl(struct pebs_selftest_result *r, struct st_cmds *c,
		  char *const argv[], struct st_layout *l)
{
	char line[256];
	int err = st_spawn(argv, TIMEOUT, c->run);

	if (!err && !c->run->status && !st_layout_parse(c->run->out, l))
		return 0;
	st_set(r, PEBS_SELFTEST_FAIL, "%s %s: %s%s", argv[0],
	       argv[1] ? argv[1] : "", err ? strerror(-err) :
	       c->run->timed_out ? "timed out" : "failed",
	       err ? "" : st_last_line(c->run->err, line, sizeof(line)));
	if (!err && !c->run->timed_out)
		snprintf(r->message + strlen(r->message),
			 sizeof(r->message) - strlen(r->message),
			 " (exit %d)", c->run->status);
	return -1;
}

int st_cmds_init(struct pebs_selftest_result *r,
		 const struct pebs_selftest_opts *o, bool need_perf,
		 struct st_cmds *c)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	if (!st_tool(o, r) || (need_perf && !(c->perf = st_perf(o, r))))
		return -1;
	c->run = malloc(sizeof(*c->run));
	if (!c->run) {
		st_set(r, PEBS_SELFTEST_FAIL, "out of memory");
		return -1;
	}
	if (st_tmpdir(r, c->dir, sizeof(c->dir))) {
		free(c->run);
		return -1;
	}
	return 0;
}

void st_cmds_done(struct st_cmds *c)
{
	st_rmtmp(c->dir);
	free(c->run);
}

/*
 * argv into @argv (at least 20 slots) for workload @wl run bare (@who
 * 0), or under pebs-shim (1) or perf (2) running @args (the subcommand
 * and its options: "record", "-e", EV...) with the output @out.
 */
void st_wl_argv(struct st_cmds *c, int who, const char *const *args,
		const char *out, const char *wl, char **argv)
{
	unsigned int n = 0, i;

	if (who) {
		argv[n++] = (char *)(who == 1 ? c->o->tool : c->perf);
		for (i = 0; args[i] && i < 10; i++)
			argv[n++] = (char *)args[i];
		argv[n++] = "-q";
		argv[n++] = "-o";
		argv[n++] = (char *)out;
		argv[n++] = "--";
	}
	argv[n++] = (char *)c->o->tool;
	argv[n++] = "test";
	argv[n++] = "--workload";
	argv[n++] = (char *)wl;
	argv[n] = NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void st_spread(double *v, unsigned int n, double *med, double *lo,
	       double *hi)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*lo = v[0];
	*hi = v[n - 1];
}

/* samples in the recording @path, -1 when it cannot be read */
static long long samples_in(const char *path)
{
	struct st_mem m;
	long long n;

	st_mem_init(&m, NULL);
	n = st_mem_scan(path, &m) ? -1 : (long long)m.samples;
	st_mem_free(&m);
	return n;
}

/*
 * The margin by which pebs-shim's slowdown may exceed perf's before the
 * check fails: every pebs-shim round slower than every perf round by
 * more than 10 % of the bare run. Slowdowns are of the chase's CPU time
 * (its thread's user and system time, where the sampling interrupts
 * are charged), which other load on the machine leaves alone; its wall
 * time is printed too.
 */
#define OVERHEAD_MARGIN 0.10

void st_check_overhead(struct pebs_selftest_result *r,
		       const struct pebs_selftest_opts *o)
{
	const char *rec_args[6] = { "record", "-e", "cpu-clock:u", "-c", "100000",
				    NULL };
	struct pebs_selftest_result scratch = { .sz = sizeof(scratch) };
	double slow[2][ROUNDS_MAX], wall[2][ROUNDS_MAX];
	double med[2], lo[2], hi[2], wmed[2], wlo[2], whi[2];
	unsigned int rounds = o->quick ? 2 : ROUNDS_MAX, i, k;
	char out[2][600], *argv[20];
	struct pebs_event ev;
	long long n[2];
	struct st_cmds c;

	if (st_cmds_init(r, o, true, &c))
		return;
	if (st_have_precise(&scratch) && st_mem_event(&scratch, false, &ev)) {
		rec_args[2] = ev.name;
		rec_args[4] = "10007";
	}
	snprintf(out[0], sizeof(out[0]), "%s/pebs-shim.data", c.dir);
	snprintf(out[1], sizeof(out[1]), "%s/perf.data", c.dir);
	for (i = 0; i < rounds; i++) {
		struct st_layout l[3];

		/* interleaved: each round starts with another of the three */
		for (k = 0; k < 3; k++) {
			int who = (int)((i + k) % 3);

			st_wl_argv(&c, who, rec_args, who ? out[who - 1] : NULL,
				"chase-small", argv);
			if (st_run_wl(r, &c, argv, &l[who]))
				goto out;
		}
		for (k = 0; k < 2; k++) {
			slow[k][i] = l[k + 1].cpu_seconds /
				     (l[0].cpu_seconds > 0 ? l[0].cpu_seconds : 1e-9);
			wall[k][i] = l[k + 1].seconds /
				     (l[0].seconds > 0 ? l[0].seconds : 1e-9);
		}
	}
	for (k = 0; k < 2; k++) {
		st_spread(slow[k], rounds, &med[k], &lo[k], &hi[k]);
		st_spread(wall[k], rounds, &wmed[k], &wlo[k], &whi[k]);
		n[k] = samples_in(out[k]);
	}
	st_detail(r, "event=%s", rec_args[2]);
	st_detail(r, "period=%s", rec_args[4]);
	st_detail(r, "rounds=%u", rounds);
	st_detail(r, "pebs_shim.slowdown=%.3f", med[0]);
	st_detail(r, "pebs_shim.spread=%.3f-%.3f", lo[0], hi[0]);
	st_detail(r, "pebs_shim.wall_slowdown=%.3f", wmed[0]);
	st_detail(r, "pebs_shim.wall_spread=%.3f-%.3f", wlo[0], whi[0]);
	st_detail(r, "pebs_shim.samples=%lld", n[0]);
	st_detail(r, "perf.slowdown=%.3f", med[1]);
	st_detail(r, "perf.spread=%.3f-%.3f", lo[1], hi[1]);
	st_detail(r, "perf.wall_slowdown=%.3f", wmed[1]);
	st_detail(r, "perf.wall_spread=%.3f-%.3f", wlo[1], whi[1]);
	st_detail(r, "perf.samples=%lld", n[1]);
	st_detail(r, "ratio=%.3f", med[0] / med[1]);
	if (n[0] <= 0 || n[1] <= 0)
		st_set(r, PEBS_SELFTEST_FAIL, "%s: no samples read back "
		       "(pebs-shim %lld, perf %lld)", rec_args[2], n[0], n[1]);
	else if (lo[0] > hi[1] + OVERHEAD_MARGIN)
		st_set(r, PEBS_SELFTEST_FAIL, "%s -c %s: the chase's CPU time "
		       "%.3fx (%.3f-%.3f) its bare run's under pebs-shim "
		       "record, %.3fx (%.3f-%.3f) under perf record: every "
		       "pebs-shim round more than %.0f %% above every perf "
		       "round (%u rounds)", rec_args[2], rec_args[4], med[0],
		       lo[0], hi[0], med[1], lo[1], hi[1],
		       OVERHEAD_MARGIN * 100, rounds);
	else
		st_set(r, PEBS_SELFTEST_PASS, "%s -c %s: the chase's CPU time "
		       "%.3fx (%.3f-%.3f) its bare run's under pebs-shim "
		       "record, %.3fx (%.3f-%.3f) under perf record; ratio "
		       "%.3f (%u rounds, %lld and %lld samples)", rec_args[2],
		       rec_args[4], med[0], lo[0], hi[0], med[1], lo[1], hi[1],
		       med[0] / med[1], rounds, n[0], n[1]);
out:
	st_cmds_done(&c);
}

/*
 * Run workload @wl under pebs-shim (@who 1) or perf (2) running @args
 * into @path; its layout into @l and what the recording says into @m
 * (st_mem_free it). 0, or -1 with @r set to fail.
 */
int st_record_wl(struct pebs_selftest_result *r, struct st_cmds *c, int who,
		 const char *const *args, const char *wl, const char *path,
		 struct st_layout *l, struct st_mem *m)
{
	char *argv[20];
	int err;

	st_wl_argv(c, who, args, path, wl, argv);
	if (st_run_wl(r, c, argv, l))
		return -1;
	st_mem_init(m, l);
	err = st_mem_scan(path, m);
	if (err) {
		st_set(r, PEBS_SELFTEST_FAIL, "reading %s's recording %s of %s: "
		       "%s", who == 1 ? "pebs-shim" : "perf", path, wl,
		       pebs_errmsg());
		st_mem_free(m);
		return -1;
	}
	return 0;
}

/* page faults with data addresses, every one */
const char *const st_pf_args[] = { "record", "-e", "page-faults:u", "-d",
				   "-c", "1", NULL };

/*
 * The touch workload's page faults recorded by pebs-shim into @path[0]
 * and by perf into @path[1]; layouts and analyses into @l and @m (both
 * to st_mem_free). 0, or -1 with @r set.
 */
static int record_touch(struct pebs_selftest_result *r, struct st_cmds *c,
			char path[2][600], struct st_layout *l,
			struct st_mem *m)
{
	int k;

	for (k = 0; k < 2; k++) {
		snprintf(path[k], 600, "%s/%s.data", c->dir,
			 k ? "perf" : "pebs-shim");
		if (st_record_wl(r, c, k + 1, st_pf_args, "touch", path[k],
				 &l[k], &m[k])) {
			if (k)
				st_mem_free(&m[0]);
			return -1;
		}
	}
	return 0;
}

void st_check_pf_perf(struct pebs_selftest_result *r,
		      const struct pebs_selftest_opts *o)
{
	struct st_layout l[2];
	struct st_mem m[2];
	char path[2][600];
	double d_share;
	long long pages;
	uint64_t d_n;
	struct st_cmds c;
	int k;

	if (st_cmds_init(r, o, true, &c))
		return;
	if (record_touch(r, &c, path, l, m))
		goto out;
	pages = (long long)(l[0].size / 4096);
	d_n = m[0].samples > m[1].samples ? m[0].samples - m[1].samples :
	      m[1].samples - m[0].samples;
	d_share = st_mem_inside(&m[0]) - st_mem_inside(&m[1]);
	for (k = 0; k < 2; k++) {
		const char *who = k ? "perf" : "pebs_shim";

		st_detail(r, "%s.samples=%llu", who,
			  (unsigned long long)m[k].samples);
		st_detail(r, "%s.with_addr=%llu", who,
			  (unsigned long long)m[k].with_addr);
		st_detail(r, "%s.inside=%llu", who,
			  (unsigned long long)m[k].inside);
		st_detail(r, "%s.inside_share=%.1f", who, st_mem_inside(&m[k]));
	}
	st_detail(r, "buffer_pages=%lld", pages);
	/*
	 * The known answer: each page of the buffer faults once, under
	 * either; the faults of the command's start (the loader's) are the
	 * same binary's, so the totals agree within 5 %.
	 */
	if ((long long)m[0].inside == pages && (long long)m[1].inside == pages &&
	    d_n * 20 <= m[1].samples && d_share < 2 && d_share > -2)
		st_set(r, PEBS_SELFTEST_PASS, "page-faults:u -d: pebs-shim "
		       "record %llu samples, %.1f %% in the buffer; perf "
		       "record %llu, %.1f %%; each of its %lld pages once in "
		       "both", (unsigned long long)m[0].samples,
		       st_mem_inside(&m[0]), (unsigned long long)m[1].samples,
		       st_mem_inside(&m[1]), pages);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "page-faults:u -d: pebs-shim "
		       "record %llu samples, %llu in the buffer (%.1f %%); "
		       "perf record %llu, %llu (%.1f %%); want %lld in the "
		       "buffer in both, totals within 5 %%, shares within 2 "
		       "points", (unsigned long long)m[0].samples,
		       (unsigned long long)m[0].inside, st_mem_inside(&m[0]),
		       (unsigned long long)m[1].samples,
		       (unsigned long long)m[1].inside, st_mem_inside(&m[1]),
		       pages);
	st_mem_free(&m[0]);
	st_mem_free(&m[1]);
out:
	st_cmds_done(&c);
}

#define TOP 3
struct row {
	double pct;
	char sym[200];
};

/*
 * The rows of a --sort sym report: "  69.42%  [.] thread_fn" (perf
 * report -q), "  69.42%  1  [.] thread_fn" (pebs-shim report, after
 * its "# samples by --sort keys" line). Returns how many (at most @max).
 */
static unsigned int report_rows(const char *out, bool ours, struct row *rows,
				unsigned int max)
{
	const char *p = ours ? strstr(out, "# samples by --sort keys") : out;
	unsigned int n = 0;

	while (p && *p && n < max) {
		const char *nl = strchr(p, '\n'), *sym;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		double pct;
		char pc;

		sym = memchr(p, '[', len);
		if (sscanf(p, " %lf%c", &pct, &pc) == 2 && pc == '%' && sym) {
			size_t sl = len - (size_t)(sym - p);

			while (sl && sym[sl - 1] == ' ')
				sl--;
			rows[n].pct = pct;
			snprintf(rows[n].sym, sizeof(rows[n].sym), "%.*s",
				 (int)sl, sym);
			n++;
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

/* @path reported by pebs-shim (@ours) or perf into @rows: count, -1 (@r) */
static int report_of(struct pebs_selftest_result *r, struct st_cmds *c,
		     bool ours, const char *path, struct row *rows,
		     unsigned int max)
{
	char *ps[] = { (char *)c->o->tool, "report", "-i", (char *)path,
		       "--sort", "sym", "--stdio", "--top", "0", NULL };
	char *pf[] = { (char *)c->perf, "report", "-i", (char *)path,
		       "--sort", "sym", "--stdio", "-q", NULL };
	char line[256];
	int err = st_spawn(ours ? ps : pf, TIMEOUT, c->run);

	if (!err && !c->run->status)
		return (int)report_rows(c->run->out, ours, rows, max);
	st_set(r, PEBS_SELFTEST_FAIL, "%s report -i %s: %s%s",
	       ours ? "pebs-shim" : "perf", path, err ? strerror(-err) :
	       "failed: ", err ? "" : st_last_line(c->run->err, line,
						   sizeof(line)));
	return -1;
}

/*
 * @path reported by pebs-shim and by perf (--sort sym): each of
 * pebs-shim's top rows is a row of perf's with the same share (ties may
 * come in another order), and the top row is the same. Adds the rows
 * compared and those that agree to @rows and @agree, the rows to @r's
 * figures under @tag; the top row into @top. 0, or -1 with @r set.
 */
int st_reports_agree(struct pebs_selftest_result *r, struct st_cmds *c,
		     const char *path, const char *tag, unsigned int *rows,
		     unsigned int *agree, char *top, size_t top_len)
{
	struct row ours[TOP], *theirs = malloc(4096 * sizeof(*theirs));
	unsigned int i, j;
	int n, nt;

	if (!theirs) {
		st_set(r, PEBS_SELFTEST_FAIL, "out of memory");
		return -1;
	}
	n = report_of(r, c, true, path, ours, TOP);
	nt = n < 0 ? -1 : report_of(r, c, false, path, theirs, 4096);
	for (i = 0; nt >= 0 && i < (unsigned int)n; i++) {
		for (j = 0; j < (unsigned int)nt; j++)
			if (!strcmp(ours[i].sym, theirs[j].sym) &&
			    ours[i].pct == theirs[j].pct)
				break;
		*agree += j < (unsigned int)nt &&
			  (i || !strcmp(ours[0].sym, theirs[0].sym));
		st_detail(r, "%s.row%u=%.2f%% %s | perf: %s", tag, i + 1,
			  ours[i].pct, ours[i].sym, j < (unsigned int)nt ?
			  "same" : "absent or another share");
	}
	if (n > 0)
		snprintf(top, top_len, "%.2f%% %s", ours[0].pct, ours[0].sym);
	free(theirs);
	if (nt < 0)
		return -1;
	*rows += (unsigned int)n;
	return 0;
}

void st_check_report_perf(struct pebs_selftest_result *r,
			  const struct pebs_selftest_opts *o)
{
	unsigned int agree = 0, rows = 0;
	char path[2][600], top[256] = "";
	struct st_layout l[2];
	struct st_mem m[2];
	struct st_cmds c;
	int k;

	if (st_cmds_init(r, o, true, &c))
		return;
	if (record_touch(r, &c, path, l, m))
		goto out;
	st_mem_free(&m[0]);
	st_mem_free(&m[1]);
	/* each recording reported by both */
	for (k = 0; k < 2; k++)
		if (st_reports_agree(r, &c, path[k], k ? "perf_data" :
				     "pebs_shim_data", &rows, &agree, top,
				     sizeof(top)))
			goto out;
	if (rows == 2 * TOP && agree == rows)
		st_set(r, PEBS_SELFTEST_PASS, "page-faults:u of the touch "
		       "workload recorded by pebs-shim and by perf: report's top "
		       "%u rows by symbol are perf report's, same shares (top: "
		       "%s)", TOP, top);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "report's top rows by symbol: %u "
		       "of %u found in perf report with the same share (want "
		       "%u of %u, the first the same): see the figures", agree,
		       rows, 2 * TOP, 2 * TOP);
out:
	st_cmds_done(&c);
}
