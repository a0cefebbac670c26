// SPDX-License-Identifier: MIT
/*
 * test-report-defer.c - a report of lines built by sorting
 * (pebs_report__defer, lib/report/report-defer.c) against the same report
 * built by hashing: the same rows in the same order (sums, thread ids
 * in the same order), the same row count and totals, the same derived
 * pages; a weight, too many (thread, period, data source) triples, or
 * a million samples of few lines turn it back into an ordinary report
 * with the same rows; a sweep through memory (the sort that merges
 * the few entries out of an ascending run) gives the same rows too;
 * misuse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "report-rows.h"

#define NR_SAMPLES	70000

/* Sample @i of a stream of lines in 300 pages, 1..5 periods, threads
   and data sources mixed, some hidden or without an address; with a
   weight when @weights; with @tids different threads (0: a few). */
static void make_sample(unsigned int i, bool weights, unsigned int tids,
			struct pebs_report_sample *s)
{
	uint64_t x = 88172645463325252ull ^ (i * 0x9e3779b97f4a7c15ull);
	union perf_mem_data_src src = { .val = 0 };

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	memset(s, 0, sizeof(*s));
	s->pid = 1;
	s->addr = 0x7f0000000000ull + (x % 300) * 4096 + (x >> 20) % 4096;
	s->period = 1 + (x >> 44) % 5;
	s->tid = (int32_t)(tids ? i % tids :
			   x % 300 < 32 ? (x >> 48) % 12 :
			   x % 300 < 64 ? 20 + (x >> 48) % 4 : 7);
	s->has_addr = (x >> 52) % 50 != 0;
	s->hidden = (x >> 54) % 40 == 0;
	s->has_weight = weights && (x >> 56) % 3 == 0;
	s->weight = (x >> 58) + 1;
	src.mem_op = (x >> 60) % 2 ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE;
	src.mem_snoop = (x >> 61) % 2 ? PERF_MEM_SNOOP_HITM : 0;
	s->data_src = src.val;
	s->has_src = (x >> 62) % 2;
}

static void same_totals(const struct pebs_report *r,
			const struct pebs_report *want)
{
	uint64_t n1, p1, n2, p2;

	pebs_report__totals(want, -1, &n1, &p1);
	pebs_report__totals(r, -1, &n2, &p2);
	assert_int_equal(n2, n1);
	assert_int_equal(p2, p1);
}

/* Lines of NR_SAMPLES samples, hashed and deferred, the top @top. */
static void compare(bool weights, unsigned int tids, size_t top)
{
	enum pebs_report_key lk = PEBS_REPORT_LINE, pk = PEBS_REPORT_PAGE;
	struct pebs_report *hashed, *def, *pages, *derived;
	struct pebs_report_sample s[64];
	unsigned int i, j;
	size_t n;

	assert_int_equal(pebs_report__new(&lk, 1, 1, &hashed), 0);
	assert_int_equal(pebs_report__new(&lk, 1, 1, &def), 0);
	assert_int_equal(pebs_report__new(&pk, 1, 1, &pages), 0);
	assert_int_equal(pebs_report__new(&pk, 1, 1, &derived), 0);
	assert_int_equal(pebs_report__defer(def), 0);
	for (i = 0; i < NR_SAMPLES; i += 64) {
		for (j = 0; j < 64; j++) {
			make_sample(i + j, weights, tids, &s[j]);
			assert_int_equal(pebs_report__add(hashed, &s[j]), 0);
			assert_int_equal(pebs_report__add(pages, &s[j]), 0);
		}
		/* one at a time and in batches */
		if (i % 128)
			assert_int_equal(pebs_report__add_batch(def, s, 64),
					 0);
		for (j = 0; !(i % 128) && j < 64; j++)
			assert_int_equal(pebs_report__add(def, &s[j]), 0);
	}
	/* the pages need the lines sorted first */
	assert_int_equal(pebs_report__derive_top(derived, def, 7),
			 weights || tids ? 0 : -EINVAL);
	pebs_report__sort(hashed);
	pebs_report__sort(pages);
	pebs_report__sort_top(def, top);
	n = pebs_report__nr_rows(hashed);
	assert_true(n > 5000);
	assert_int_equal(pebs_report__nr_rows(def), n);
	same_rows(def, hashed, top < n ? top : n, true);
	same_totals(def, hashed);
	if (weights || tids) {	/* an ordinary report: every row */
		assert_non_null(pebs_report__row(def, n - 1));
	} else {
		assert_null(pebs_report__row(def, top));
		assert_int_equal(pebs_report__derive_top(derived, def, 7), 0);
		assert_int_equal(pebs_report__nr_rows(derived),
				 pebs_report__nr_rows(pages));
		same_rows(derived, pages, 7, false);
		same_totals(derived, pages);
		/* no samples after sorting */
		assert_int_equal(pebs_report__add(def, &s[0]), -EINVAL);
	}
	pebs_report__delete(hashed);
	pebs_report__delete(def);
	pebs_report__delete(pages);
	pebs_report__delete(derived);
}

static void test_same_rows(void **state)
{
	(void)state;
	compare(false, 0, 10);
	compare(false, 0, SIZE_MAX);
}

static void test_back_to_rows(void **state)
{
	(void)state;
	/* weights, and a thread per sample: more than 65536 triples */
	compare(true, 0, 10);
	compare(false, NR_SAMPLES, 10);
}

/* Past 2^20 entries: of few lines, rows instead; of many, entries still. */
static void test_many(void **state)
{
	enum pebs_report_key lk = PEBS_REPORT_LINE;
	struct pebs_report *hashed, *def;
	struct pebs_report_sample s = { .pid = 1, .period = 1,
					.has_addr = true };
	unsigned int i, lines;

	(void)state;
	for (lines = 1000; lines <= 2000000; lines *= 2000) {
		assert_int_equal(pebs_report__new(&lk, 1, 1, &hashed), 0);
		assert_int_equal(pebs_report__new(&lk, 1, 1, &def), 0);
		assert_int_equal(pebs_report__defer(def), 0);
		for (i = 0; i < (1u << 20) + 5000; i++) {
			s.addr = 0x10000000ull + (i * 7919u % lines) * 64;
			s.tid = (int32_t)(i % 3);
			assert_int_equal(pebs_report__add(hashed, &s), 0);
			assert_int_equal(pebs_report__add(def, &s), 0);
		}
		pebs_report__sort(hashed);
		pebs_report__sort_top(def, 10);
		assert_int_equal(pebs_report__nr_rows(def),
				 pebs_report__nr_rows(hashed));
		same_rows(def, hashed, 10, true);
		same_totals(def, hashed);
		/* few lines: an ordinary report keeps every row */
		if (lines == 1000)
			assert_non_null(pebs_report__row(def, 10));
		else
			assert_null(pebs_report__row(def, 10));
		pebs_report__delete(hashed);
		pebs_report__delete(def);
	}
}

/*
 * A sweep: lines in ascending order, three samples each of threads in
 * turn, after 100 samples of lines above it; now and then a line a few
 * behind (taking the sweep's last entries out of the ascending run) or
 * five ahead (an entry out of the run tied with the run's later ones).
 * The thread ids of every row in the same order as hashed.
 */
static void test_sweep(void **state)
{
	enum pebs_report_key lk = PEBS_REPORT_LINE;
	struct pebs_report *hashed, *def;
	struct pebs_report_sample s = { .pid = 1, .has_addr = true };
	uint64_t x = 88172645463325252ull, line;
	unsigned int i;
	size_t n;

	(void)state;
	assert_int_equal(pebs_report__new(&lk, 1, 1, &hashed), 0);
	assert_int_equal(pebs_report__new(&lk, 1, 1, &def), 0);
	assert_int_equal(pebs_report__defer(def), 0);
	for (i = 0; i < NR_SAMPLES; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		line = i < 100 ? 1000000 + x % 50 : (i - 100) / 3;
		if (i >= 100 && i % 401 == 0)
			line -= line < 8 ? line : x % 8;
		else if (i >= 100 && i % 97 == 0)
			line += 5;
		s.addr = 0x7f0000000000ull + line * 64 + x % 64;
		s.tid = (int32_t)(i % 5);
		s.period = 1 + x % 3;
		assert_int_equal(pebs_report__add(hashed, &s), 0);
		assert_int_equal(pebs_report__add(def, &s), 0);
	}
	pebs_report__sort(hashed);
	pebs_report__sort_top(def, SIZE_MAX);
	n = pebs_report__nr_rows(hashed);
	assert_true(n > 20000);
	assert_int_equal(pebs_report__nr_rows(def), n);
	same_rows(def, hashed, n, true);
	same_totals(def, hashed);
	pebs_report__delete(hashed);
	pebs_report__delete(def);
}

static void test_misuse(void **state)
{
	enum pebs_report_key k2[2] = { PEBS_REPORT_EVENT, PEBS_REPORT_LINE };
	enum pebs_report_key sym = PEBS_REPORT_SYM, line = PEBS_REPORT_LINE;
	struct pebs_report_sample s;
	struct pebs_report *r;

	(void)state;
	assert_int_equal(pebs_report__defer(NULL), -EINVAL);
	assert_int_equal(pebs_report__new(k2, 2, 2, &r), 0);
	assert_int_equal(pebs_report__defer(r), -EINVAL);
	pebs_report__delete(r);
	assert_int_equal(pebs_report__new(&sym, 1, 1, &r), 0);
	assert_int_equal(pebs_report__defer(r), -EINVAL);
	pebs_report__delete(r);
	/* not new */
	assert_int_equal(pebs_report__new(&line, 1, 1, &r), 0);
	make_sample(1, false, 0, &s);
	s.has_addr = true;
	s.hidden = false;
	assert_int_equal(pebs_report__add(r, &s), 0);
	assert_int_equal(pebs_report__defer(r), -EINVAL);
	pebs_report__delete(r);
	/* empty: no rows */
	assert_int_equal(pebs_report__new(&line, 1, 1, &r), 0);
	assert_int_equal(pebs_report__defer(r), 0);
	pebs_report__sort_top(r, 10);
	assert_int_equal(pebs_report__nr_rows(r), 0);
	assert_null(pebs_report__row(r, 0));
	pebs_report__delete(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_rows),
		cmocka_unit_test(test_back_to_rows),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_misuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
