// SPDX-License-Identifier: MIT
/*
 * checks-mem.c - the known memory workloads (`pebs-shim test --workload`)
 * recorded by pebs-shim and, side by side, by perf, and what the
 * recordings must say. known-addr runs everywhere: page faults with data
 * addresses show that each workload's buffer and threads are where it
 * says, so that a precise result can only fail for a hardware reason.
 * precise-mem (pebs-shim mem record, perf mem record) and sharing
 * (pebs-shim c2c record, perf c2c record) need PEBS or IBS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define PAGE 4096u

/* samples of each of the layout's threads */
struct per_thread {
	const struct st_layout *l;
	uint64_t n[ST_MAX_THR];
};

static void on_thread(void *arg, const struct pebs_sample *s)
{
	struct per_thread *p = arg;
	unsigned int i;

	for (i = 0; i < p->l->nthr; i++)
		p->n[i] += s->tid == (uint32_t)p->l->tid[i];
}

void st_check_known_addr(struct pebs_selftest_result *r,
			 const struct pebs_selftest_opts *o)
{
	static const char *const big[] = { "touch", "chase-large", "store" };
	static const char *const pair[] = { "false-share", "true-share" };
	unsigned int i, t, bad = 0;
	char path[600];
	struct st_layout l;
	struct st_mem m;
	struct st_cmds c;

	if (st_cmds_init(r, o, false, &c))
		return;
	snprintf(path, sizeof(path), "%s/known.data", c.dir);
	/* the buffers: each page faults once, by the workload's thread */
	for (i = 0; i < 3; i++) {
		uint64_t pages;

		if (st_record_wl(r, &c, 1, st_pf_args, big[i], path, &l, &m))
			goto out;
		pages = l.size / PAGE;
		st_detail(r, "%s.buffer_pages=%llu", big[i],
			  (unsigned long long)pages);
		st_detail(r, "%s.thread_samples=%llu", big[i],
			  (unsigned long long)m.thr_with_addr);
		st_detail(r, "%s.thread_inside=%.2f", big[i],
			  st_mem_thr_inside(&m));
		if (m.inside != pages || st_mem_thr_inside(&m) < 99.0) {
			bad++;
			st_detail(r, "%s.failed=%llu faults in its %llu-page "
				  "buffer, %.2f %% of its thread's (want each "
				  "page once, >= 99 %%)", big[i],
				  (unsigned long long)m.inside,
				  (unsigned long long)pages,
				  st_mem_thr_inside(&m));
		}
		st_mem_free(&m);
	}
	/* the pairs: two threads, each with samples of its own */
	for (i = 0; i < 2; i++) {
		struct per_thread pt = { .l = &l };
		uint64_t *n = pt.n;

		if (st_record_wl(r, &c, 1, st_pf_args, pair[i], path, &l, &m))
			goto out;
		st_mem_free(&m);
		st_scan(path, on_thread, &pt);
		for (t = 0; t < l.nthr; t++)
			st_detail(r, "%s.thread%u=%d %llu samples", pair[i], t,
				  (int)l.tid[t], (unsigned long long)n[t]);
		if (l.nthr != 2 || l.tid[0] == l.tid[1] || !n[0] || !n[1]) {
			bad++;
			st_detail(r, "%s.failed=want two threads, each with "
				  "samples", pair[i]);
		}
	}
	if (!bad)
		st_set(r, PEBS_SELFTEST_PASS, "page-faults:u -d: touch, "
		       "chase-large and store fault each page of their buffer "
		       "once, >= 99 %% of their thread's data addresses inside; "
		       "the sharing pairs run as two threads");
	else
		st_set(r, PEBS_SELFTEST_FAIL, "%u of 5 workloads not where they "
		       "say (see the figures)", bad);
out:
	st_cmds_done(&c);
}

/* what precise-mem concludes from one tool's three recordings */
struct precise {
	struct st_mem m[3];		/* chase-small, chase-large, store */
	struct st_layout l[3];
};

static const char *const precise_wl[3] = { "chase-small", "chase-large",
					   "store" };

static void precise_free(struct precise *p, unsigned int n)
{
	while (n--)
		st_mem_free(&p->m[n]);
}

/* record the three workloads under @who's mem record: 0 or -1 (@r) */
static int precise_record(struct pebs_selftest_result *r, struct st_cmds *c,
			  int who, const char *const *args, struct precise *p)
{
	char path[600];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s-%d.data", c->dir,
			 precise_wl[i], who);
		if (st_record_wl(r, c, who, args, precise_wl[i], path, &p->l[i],
				 &p->m[i])) {
			precise_free(p, i);
			return -1;
		}
	}
	return 0;
}

/* the figures of @p, prefixed @who; the number of rules it breaks */
static unsigned int precise_judge(struct pebs_selftest_result *r,
				  const char *who, struct precise *p)
{
	double small_l1 = st_mem_level_share(&p->m[0], ST_LVL_L1) +
			  st_mem_level_share(&p->m[0], ST_LVL_LFB);
	double large_miss = st_mem_level_share(&p->m[1], ST_LVL_RAM) +
			    st_mem_level_share(&p->m[1], ST_LVL_REMOTE);
	uint64_t w_small = st_mem_weight_median(&p->m[0]);
	uint64_t w_large = st_mem_weight_median(&p->m[1]);
	unsigned int i, bad = 0;

	for (i = 0; i < 3; i++) {
		st_detail(r, "%s.%s.samples=%llu", who, precise_wl[i],
			  (unsigned long long)p->m[i].samples);
		st_detail(r, "%s.%s.inside=%.2f", who, precise_wl[i],
			  st_mem_thr_inside(&p->m[i]));
		bad += p->m[i].thr_with_addr < 100 ||
		       st_mem_thr_inside(&p->m[i]) < 99.0;
	}
	st_detail(r, "%s.chase-small.l1_share=%.1f", who, small_l1);
	st_detail(r, "%s.chase-large.ram_share=%.1f", who, large_miss);
	st_detail(r, "%s.weight_median=%llu small, %llu large", who,
		  (unsigned long long)w_small, (unsigned long long)w_large);
	st_detail(r, "%s.store.stores=%llu", who,
		  (unsigned long long)p->m[2].stores);
	bad += small_l1 < 50 || large_miss < 50 || !p->m[2].stores;
	bad += !w_large || w_small * 4 >= w_large;
	return bad;
}

void st_check_precise(struct pebs_selftest_result *r,
		      const struct pebs_selftest_opts *o)
{
	const char *args[] = { "mem", "record", "-c", "10007", NULL, NULL,
			       NULL };
	struct precise ours, theirs;
	struct pebs_event ev;
	unsigned int bad, bad_perf, rows = 0, agree = 0;
	char path[600], top[256] = "";
	struct st_cmds c;
	int who;

	if (!st_have_precise(r) || !st_mem_event(r, false, &ev))
		return;
	/* Intel's load latency threshold: low enough for L1 hits */
	if (strstr(ev.name, "ldlat")) {
		args[4] = "--ldlat";
		args[5] = "3";
	}
	if (st_cmds_init(r, o, true, &c))
		return;
	if (precise_record(r, &c, 1, args, &ours))
		goto out;
	if (precise_record(r, &c, 2, args, &theirs)) {
		precise_free(&ours, 3);
		goto out;
	}
	bad = precise_judge(r, "pebs_shim", &ours);
	bad_perf = precise_judge(r, "perf", &theirs);
	/* report's top rows of each chase-large recording are perf's */
	for (who = 1; who <= 2; who++) {
		snprintf(path, sizeof(path), "%s/chase-large-%d.data", c.dir,
			 who);
		if (st_reports_agree(r, &c, path, who == 1 ? "pebs_shim.report" :
				     "perf.report", &rows, &agree, top,
				     sizeof(top))) {
			precise_free(&ours, 3);
			precise_free(&theirs, 3);
			goto out;
		}
	}
	bad += agree != rows || !rows;
	if (!bad)
		st_set(r, PEBS_SELFTEST_PASS, "mem record: >= 99 %% of the "
		       "addresses in the buffers, L1 hits dominate the small "
		       "chase, RAM the large one, weight medians %llu << %llu, "
		       "report's top rows perf report's (perf mem record: %u "
		       "rules broken)",
		       (unsigned long long)st_mem_weight_median(&ours.m[0]),
		       (unsigned long long)st_mem_weight_median(&ours.m[1]),
		       bad_perf);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "mem record: %u rules broken "
		       "(addresses in the buffers >= 99 %%, L1 >= 50 %% of the "
		       "small chase's loads, RAM >= 50 %% of the large one's, "
		       "weight medians small x 4 < large, stores sampled, "
		       "report's top rows perf report's); perf mem record "
		       "broke %u: see the figures", bad,
		       bad_perf);
	precise_free(&ours, 3);
	precise_free(&theirs, 3);
out:
	st_cmds_done(&c);
}

/*
 * The pair's line in @m: classified as @want, each thread at its own
 * word; its HITM loads into @hitm. The number of rules broken.
 */
static unsigned int sharing_judge(struct pebs_selftest_result *r,
				  const char *who, const char *wl,
				  const struct st_mem *m,
				  const struct st_layout *l,
				  enum st_sharing want, uint64_t *hitm)
{
	static const char *const kind[] = { "private", "false", "true" };
	const struct st_line *ln = st_mem_line(m, l->buf);
	unsigned int t, i, bad = 0;

	*hitm = ln ? ln->hitm : 0;
	st_detail(r, "%s.%s.line=%#lx %s, %llu samples, %llu HITM", who, wl,
		  (unsigned long)l->buf, ln ? kind[st_line_sharing(ln)] :
		  "absent", ln ? (unsigned long long)ln->samples : 0ULL,
		  (unsigned long long)*hitm);
	if (!ln || st_line_sharing(ln) != want)
		return 1;
	for (t = 0; t < l->nthr; t++) {
		unsigned int word = (unsigned int)(l->lo[t] - l->buf) / 8;

		for (i = 0; i < ln->ntid && ln->tid[i] != (uint32_t)l->tid[t];
		     i++)
			;
		bad += i == ln->ntid || !(ln->words[i] & (1u << word));
	}
	return bad;
}

void st_check_sharing(struct pebs_selftest_result *r,
		      const struct pebs_selftest_opts *o)
{
	static const char *const args[] = { "c2c", "record", NULL };
	static const char *const wl[2] = { "false-share", "true-share" };
	static const enum st_sharing want[2] = { ST_FALSE_SHARING,
						 ST_TRUE_SHARING };
	uint64_t hitm[2][2] = { { 0 } };
	unsigned int bad = 0, i;
	struct pebs_event ev;
	struct st_layout l;
	struct st_mem m;
	struct st_cmds c;
	char path[600];
	int who;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		st_set(r, PEBS_SELFTEST_SKIP, "one CPU online: no sharing");
		return;
	}
	if (!st_have_precise(r) || !st_mem_event(r, true, &ev) ||
	    st_cmds_init(r, o, true, &c))
		return;
	for (who = 1; who <= 2; who++)
		for (i = 0; i < 2; i++) {
			unsigned int b;

			snprintf(path, sizeof(path), "%s/%s-%d.data", c.dir,
				 wl[i], who);
			if (st_record_wl(r, &c, who, args, wl[i], path, &l, &m))
				goto out;
			b = sharing_judge(r, who == 1 ? "pebs_shim" : "perf",
					  wl[i], &m, &l, want[i],
					  &hitm[who - 1][i]);
			bad += who == 1 ? b : 0;
			st_mem_free(&m);
		}
	bad += !hitm[0][1];
	if (!bad)
		st_set(r, PEBS_SELFTEST_PASS, "c2c record: the false-sharing "
		       "line found with each thread at its own word, the "
		       "true-sharing line with both at one; HITM loads %llu and "
		       "%llu (perf c2c record: %llu and %llu)",
		       (unsigned long long)hitm[0][0],
		       (unsigned long long)hitm[0][1],
		       (unsigned long long)hitm[1][0],
		       (unsigned long long)hitm[1][1]);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "c2c record: %u rules broken (each "
		       "line found and classified, each thread at its words, "
		       "HITM loads on the true-sharing line: %llu; perf c2c "
		       "record's: %llu): see the figures", bad,
		       (unsigned long long)hitm[0][1],
		       (unsigned long long)hitm[1][1]);
out:
	st_cmds_done(&c);
}

int st_switch_agree(const char *path, struct pebs_attrib_stats *out)
{
	PEBS_OPTS(pebs_attrib_cbs, cbs);
	const struct perf_event_header *ev;
	const struct perf_event_attr *attr;
	struct pebs_attrib *a = NULL;
	struct pebs_perfdata *pd;
	struct pebs_attrib_who who;
	struct pebs_sample s;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int err;

	memset(out, 0, sizeof(*out));
	err = pebs_perfdata__open(path, &pd);
	if (err)
		return err;
	attr = pebs_perfdata__attr(pd, 0, NULL, NULL);
	err = attr ? pebs_attrib__new(PEBS_ATTRIB_SWITCH, NULL,
				      ncpu > 0 ? (unsigned int)ncpu : 1, &a) :
		     core_err(-EINVAL, "%s: no event", path);
	while (!err && (err = pebs_perfdata__next(pd, &ev)) > 0) {
		if (ev->type != PERF_RECORD_SAMPLE) {
			err = pebs_attrib__record(a, ev, attr->sample_type, &who);
			continue;
		}
		err = pebs_perfdata__sample(pd, ev, &s, NULL);
		if (!err)
			err = pebs_attrib__sample(a, 0, &s, ev, &cbs, NULL);
	}
	if (!err)
		err = pebs_attrib__round(a, &cbs, NULL);
	if (!err)
		*out = *pebs_attrib__stats(a);
	pebs_attrib__delete(a);
	pebs_perfdata__close(pd);
	return err;
}

/* the rule: >= 99 % of >= 100 samples checked agree (a sample taken
 * as its CPU switches may fall on either side) */
bool st_switch_ok(const struct pebs_attrib_stats *st)
{
	uint64_t checked = st->agree + st->disagree;

	return checked >= 100 && st->agree * 100 >= checked * 99;
}

void st_check_module_switch(struct pebs_selftest_result *r,
			    const struct pebs_selftest_opts *o)
{
	static const char *const args[] = { "record", "-a", "--attr", "map",
					    "--switch-events", "-e",
					    "cpu-clock", "-c", "100000", NULL };
	struct pebs_attrib_stats st;
	struct st_layout l;
	struct st_cmds c;
	char path[600], *argv[24];
	uint64_t checked;
	int err;

	if (!st_have_map(r))
		return;
	if (access("/dev/pebs_map", R_OK)) {
		st_set(r, PEBS_SELFTEST_SKIP, "/dev/pebs_map is not readable by "
		       "this user (the pebs group, see README)");
		return;
	}
	if (st_cmds_init(r, o, false, &c))
		return;
	snprintf(path, sizeof(path), "%s/switch.data", c.dir);
	st_wl_argv(&c, 1, args, path, "true-share", argv);
	if (st_run_wl(r, &c, argv, &l))
		goto out;
	err = st_switch_agree(path, &st);
	checked = st.agree + st.disagree;
	st_detail(r, "samples=%llu", (unsigned long long)st.samples);
	st_detail(r, "agree=%llu", (unsigned long long)st.agree);
	st_detail(r, "disagree=%llu", (unsigned long long)st.disagree);
	st_detail(r, "unattributed=%llu", (unsigned long long)st.unattributed);
	if (err)
		st_set(r, PEBS_SELFTEST_FAIL, "reading %s: %s", path,
		       pebs_errmsg());
	else if (st_switch_ok(&st))
		st_set(r, PEBS_SELFTEST_PASS, "record -a --attr map: %llu of "
		       "%llu samples' threads from the module's history are "
		       "the kernel's SWITCH records' thread at that time",
		       (unsigned long long)st.agree,
		       (unsigned long long)checked);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "record -a --attr map: %llu of "
		       "%llu samples' threads agree with the kernel's SWITCH "
		       "records (want >= 99 %% of >= 100), %llu unattributed",
		       (unsigned long long)st.agree,
		       (unsigned long long)checked,
		       (unsigned long long)st.unattributed);
out:
	st_cmds_done(&c);
}
