// SPDX-License-Identifier: MIT
/*
 * test-report-children.c - perf report --children's cumulative entries
 * (lib/report/report-children.c): a sample counts in its own row and
 * once in the row of each frame of its call chain (a recursion once),
 * rows ordered by Children then caller above callee within a thread,
 * hidden samples in the totals only, the keys that allow children, and
 * a feed's batches of chains the same as chains added one by one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"

static const char DSO[] = "/bin/w";

static struct pebs_report *new_children(const char *keys)
{
	enum pebs_report_key k[PEBS_REPORT_MAX_KEYS];
	struct pebs_report *r;
	int n = pebs_report__parse_keys(keys, k, PEBS_REPORT_MAX_KEYS);

	assert_true(n > 0);
	assert_int_equal(pebs_report__new(k, (unsigned int)n, 1, &r), 0);
	assert_int_equal(pebs_report__set_children(r), 0);
	assert_true(pebs_report__children(r));
	return r;
}

/* A sample of thread @tid in @leaf (period @period), and its chain
   @names (leaf first, NULL-ended) in @fr; returns the frames. */
static unsigned int sample(struct pebs_report_sample *s, struct pebs_frame *fr,
			   int32_t tid, uint64_t period,
			   const char *const *names)
{
	unsigned int n;

	memset(s, 0, sizeof(*s));
	s->pid = s->tid = tid;
	s->comm = "w";
	s->dso = DSO;
	s->sym = names[0];
	s->ip = 0x1000;
	s->period = period;
	for (n = 0; names[n]; n++) {
		memset(&fr[n], 0, sizeof(fr[n]));
		fr[n].ip = 0x401000 + n;
		fr[n].sym = names[n];
		fr[n].dso = DSO;
	}
	return n;
}

static void add(struct pebs_report *r, int32_t tid, uint64_t period,
		const char *const *names)
{
	struct pebs_report_sample s;
	struct pebs_frame fr[16];
	unsigned int n = sample(&s, fr, tid, period, names);

	assert_int_equal(pebs_report__add_chain(r, &s, fr, n), 0);
}

/* The row of symbol @sym (by pointer), or NULL; its index in *at. */
static const struct pebs_report_row *find(const struct pebs_report *r,
					  const char *sym, size_t *at)
{
	size_t i;

	for (i = 0; i < pebs_report__nr_rows(r); i++)
		if (pebs_report__row(r, i)->sym == sym) {
			if (at)
				*at = i;
			return pebs_report__row(r, i);
		}
	return NULL;
}

static const char LEAF[] = "leaf", REC[] = "rec", MAIN[] = "main",
		  OTHER[] = "other", TOP[] = "top", MID[] = "mid";

static void test_recursion_once(void **state)
{
	static const char *const deep[] = { LEAF, REC, REC, REC, MAIN, NULL };
	static const char *const flat[] = { OTHER, MAIN, NULL };
	struct pebs_report *r = new_children("comm,dso,sym");
	const struct pebs_report_row *row;
	uint64_t period;

	(void)state;
	add(r, 7, 100, deep);
	add(r, 7, 300, flat);
	pebs_report__sort(r);
	assert_int_equal(pebs_report__nr_rows(r), 4);
	row = find(r, REC, NULL);	/* three frames, one sample */
	assert_non_null(row);
	assert_int_equal(row->children_samples, 1);
	assert_int_equal(row->children_period, 100);
	assert_int_equal(row->samples, 0);
	assert_int_equal(row->period, 0);
	row = find(r, MAIN, NULL);
	assert_int_equal(row->children_period, 400);
	assert_true(pebs_report__children_overhead(r, row, false) == 100.0);
	assert_true(pebs_report__overhead(r, row, false) == 0.0);
	row = find(r, LEAF, NULL);	/* its own row, its frame once */
	assert_int_equal(row->samples, 1);
	assert_int_equal(row->period, 100);
	assert_int_equal(row->children_period, 100);
	pebs_report__totals(r, -1, NULL, &period);
	assert_int_equal(period, 400);
	/* by Children: main, other, then leaf and rec (100 each) */
	assert_ptr_equal(pebs_report__row(r, 0)->sym, MAIN);
	assert_ptr_equal(pebs_report__row(r, 1)->sym, OTHER);
	pebs_report__delete(r);
}

/*
 * top -> mid -> leaf, one sample: leaf and top reach the whole chain
 * (3 frames), mid 2. All three have Children 100 %: top is above mid
 * whatever their names' order, and leaf (Self 100 %) above top.
 */
static void test_caller_above_callee(void **state)
{
	const char *names[2][4] = { { LEAF, MID, TOP, NULL },
				    { LEAF, TOP, MID, NULL } };
	unsigned int v;

	(void)state;
	for (v = 0; v < 2; v++) {
		struct pebs_report *r = new_children("sym");

		add(r, 7, 10, names[v]);
		pebs_report__sort(r);
		assert_ptr_equal(pebs_report__row(r, 0)->sym, LEAF);
		assert_ptr_equal(pebs_report__row(r, 1)->sym, names[v][2]);
		assert_ptr_equal(pebs_report__row(r, 2)->sym, names[v][1]);
		pebs_report__delete(r);
	}
}

/* Rows first counted from different threads: no depth, Self then the
   keys decide (the deeper row is not put first). */
static void test_threads_no_depth(void **state)
{
	static const char *const a[] = { MID, TOP, NULL };
	static const char *const b[] = { LEAF, NULL };
	struct pebs_report *r = new_children("sym");
	size_t i_top, i_leaf;

	(void)state;
	add(r, 1, 10, a);	/* top: Children 10, depth 2, thread 1 */
	add(r, 2, 10, b);	/* leaf: Children 10, Self 10, thread 2 */
	pebs_report__sort(r);
	find(r, TOP, &i_top);
	find(r, LEAF, &i_leaf);
	assert_true(i_leaf < i_top);
	pebs_report__delete(r);
}

static void test_hidden_and_keys(void **state)
{
	static const char *const c[] = { LEAF, MAIN, NULL };
	enum pebs_report_key k[2] = { PEBS_REPORT_SYM, PEBS_REPORT_PAGE };
	struct pebs_report_sample s;
	struct pebs_frame fr[4];
	struct pebs_report *r;
	uint64_t samples;
	unsigned int n;

	(void)state;
	assert_true(pebs_report__can_cumulate(k, 1));
	assert_false(pebs_report__can_cumulate(k, 2));
	assert_int_equal(pebs_report__new(k, 2, 1, &r), 0);
	assert_int_equal(pebs_report__set_children(r), -EINVAL);
	assert_false(pebs_report__children(r));
	pebs_report__delete(r);
	/* rows added first: refused */
	assert_int_equal(pebs_report__new(k, 1, 1, &r), 0);
	n = sample(&s, fr, 3, 5, c);
	assert_int_equal(pebs_report__add(r, &s), 0);
	assert_int_equal(pebs_report__set_children(r), -EINVAL);
	pebs_report__delete(r);
	/* a hidden sample: in the totals, in no row */
	r = new_children("sym");
	s.hidden = true;
	assert_int_equal(pebs_report__add_chain(r, &s, fr, n), 0);
	s.hidden = false;
	assert_int_equal(pebs_report__add(r, &s), 0);	/* no chain */
	/* a user frame at a kernel address: in no mapping (as
	   pebs_callchain__resolve gives it: test-callchain), with the mode
	   of the frame before it (the sample's own: user) */
	fr[1].ip = 0xffffffff81000000ull;
	fr[1].sym = NULL;
	fr[1].dso = NULL;
	assert_int_equal(pebs_report__add_chain(r, &s, fr, n), 0);
	pebs_report__sort(r);
	pebs_report__totals(r, -1, &samples, NULL);
	assert_int_equal(samples, 3);
	assert_int_equal(pebs_report__nr_rows(r), 2);
	assert_int_equal(pebs_report__row(r, 0)->children_samples, 2);
	assert_ptr_equal(pebs_report__row(r, 1)->sym, NULL);
	assert_ptr_equal(pebs_report__row(r, 1)->dso, NULL);
	assert_false(pebs_report__row(r, 1)->kernel);
	assert_int_equal(pebs_report__row(r, 1)->ip, 0xffffffff81000000ull);
	pebs_report__delete(r);
}

/* Many chains through a feed (batches on a thread) and one by one:
   the same rows in the same order. */
static void test_feed(void **state)
{
	static const char *const syms[] = { LEAF, REC, MAIN, OTHER, TOP, MID };
	struct pebs_report *direct = new_children("comm,sym");
	struct pebs_report *fed = new_children("comm,sym");
	struct pebs_report *plain, *reps[2];
	struct pebs_report_feed *f;
	enum pebs_report_key k = PEBS_REPORT_SYM;
	uint64_t seed = 12345;
	size_t i, j;

	(void)state;
	assert_int_equal(pebs_report__new(&k, 1, 1, &plain), 0);
	reps[0] = fed;
	reps[1] = plain;
	assert_int_equal(pebs_report_feed__new(reps, 2, &f), 0);
	for (i = 0; i < 20000; i++) {
		const char *names[9];
		struct pebs_report_sample s;
		struct pebs_frame fr[9];
		unsigned int n, d;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		d = 1 + (unsigned int)(seed >> 60) % 8;
		for (j = 0; j < d; j++)
			names[j] = syms[(seed >> (4 * j + 8)) % 6];
		names[d] = NULL;
		n = sample(&s, fr, (int32_t)(1 + (seed >> 40) % 3),
			   1 + (seed >> 50) % 5, names);
		assert_int_equal(pebs_report__add_chain(direct, &s, fr, n), 0);
		assert_int_equal(pebs_report_feed__add_chain(f, &s, fr, n), 0);
	}
	assert_int_equal(pebs_report_feed__finish(f), 0);
	pebs_report__sort(direct);
	pebs_report__sort(fed);
	pebs_report__sort(plain);
	assert_int_equal(pebs_report__nr_rows(direct), pebs_report__nr_rows(fed));
	for (i = 0; i < pebs_report__nr_rows(direct); i++) {
		struct pebs_report_row a = *pebs_report__row(direct, i);
		const struct pebs_report_row *b = pebs_report__row(fed, i);

		assert_ptr_equal(a.sym, b->sym);
		assert_int_equal(a.children_period, b->children_period);
		assert_int_equal(a.period, b->period);
		assert_int_equal(a.nr_tids, b->nr_tids);
	}
	/* the report without children counted each sample's own row */
	for (i = 0; i < pebs_report__nr_rows(plain); i++)
		assert_int_equal(pebs_report__row(plain, i)->children_period, 0);
	pebs_report_feed__delete(f);
	pebs_report__delete(direct);
	pebs_report__delete(fed);
	pebs_report__delete(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recursion_once),
		cmocka_unit_test(test_caller_above_callee),
		cmocka_unit_test(test_threads_no_depth),
		cmocka_unit_test(test_hidden_and_keys),
		cmocka_unit_test(test_feed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
