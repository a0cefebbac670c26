// SPDX-License-Identifier: MIT
/*
 * test-session.c - the session's c2c feed (pebs_session__set_c2c,
 * lib/session-c2c.c): on the real fixtures, the sharing table filled in
 * the report's pass equals the one pebs_c2c__read_perfdata fills in a
 * pass of its own (totals, "No Page Map Rejects", every line with its
 * counts, threads, offsets and sharing), and the report's callback sees
 * every sample as before.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "internal.h"

#define MAX_LINES	4096

struct lines {
	struct pebs_c2c_line v[MAX_LINES];
	size_t n;
};

static int keep_line(const struct pebs_c2c_line *l, void *arg)
{
	struct lines *ls = arg;

	assert_true(ls->n < MAX_LINES);
	ls->v[ls->n++] = *l;
	return 0;
}

static struct pebs_perfdata *open_fixture(const char *name)
{
	const char *src = getenv("PEBS_SRC");
	struct pebs_perfdata *pd;
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".",
		 name);
	if (pebs_perfdata__open(path, &pd))
		print_error("%s: %s (set PEBS_SRC to the source tree)\n", path,
			    pebs_errmsg());
	return pd;
}

static int count(void *arg, const struct pebs_sample *s,
		 const struct pebs_report_sample *rs)
{
	(void)s;
	(void)rs;
	++*(uint64_t *)arg;
	return 0;
}

static void same_lines(struct pebs_c2c *a, struct pebs_c2c *b,
		       enum pebs_c2c_display d, bool all)
{
	struct lines *x = calloc(1, sizeof(*x)), *y = calloc(1, sizeof(*y));
	size_t i;

	assert_non_null(x);
	assert_non_null(y);
	assert_int_equal(pebs_c2c__sort(a, d), pebs_c2c__sort(b, d));
	assert_int_equal(pebs_c2c__for_each_line(a, all, keep_line, x), 0);
	assert_int_equal(pebs_c2c__for_each_line(b, all, keep_line, y), 0);
	assert_int_equal(x->n, y->n);
	for (i = 0; i < x->n; i++) {
		const struct pebs_c2c_line *p = &x->v[i], *q = &y->v[i];

		assert_int_equal(p->addr, q->addr);
		assert_int_equal(p->pid, q->pid);
		assert_int_equal(p->rank, q->rank);
		assert_memory_equal(&p->stats, &q->stats, sizeof(p->stats));
		assert_int_equal(p->unknown, q->unknown);
		assert_int_equal(p->xwrites, q->xwrites);
		assert_int_equal(p->load_weight, q->load_weight);
		assert_int_equal(p->phys_addrs, q->phys_addrs);
		assert_int_equal(p->nr_threads, q->nr_threads);
		assert_int_equal(p->nr_offsets, q->nr_offsets);
		assert_int_equal(p->nr_cpus, q->nr_cpus);
		assert_int_equal(p->sharing, q->sharing);
		assert_memory_equal(&p->evidence, &q->evidence,
				    sizeof(p->evidence));
	}
	free(x);
	free(y);
}

/* shared-only: the lines each display shows are those of every sample */
static void shared_only(const char *name, struct pebs_c2c *own)
{
	static const enum pebs_c2c_display ds[] = {
		PEBS_C2C_TOT_HITM, PEBS_C2C_LCL_HITM, PEBS_C2C_RMT_HITM,
		PEBS_C2C_PEER, PEBS_C2C_XWRITES,
	};
	struct pebs_perfdata *pd = open_fixture(name);
	struct pebs_session *ss;
	struct pebs_c2c *fed;
	uint64_t seen = 0;
	unsigned int i;

	assert_non_null(pd);
	assert_int_equal(pebs_c2c__new(&fed), 0);
	assert_int_equal(pebs_session__new(pd, &ss), 0);
	assert_int_equal(pebs_session__set_c2c(ss, fed, 2), -EINVAL);
	assert_int_equal(pebs_session__set_c2c(ss, fed,
					       PEBS_SESSION_C2C_SHARED), 0);
	assert_int_equal(pebs_session__process(ss, false, count, &seen, NULL),
			 0);
	assert_int_equal(pebs_c2c__has_data_src(own),
			 pebs_c2c__has_data_src(fed));
	/* fewer lines kept */
	assert_true(pebs_c2c__stats(fed)->nr_entries <
		    pebs_c2c__stats(own)->nr_entries);
	for (i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
		same_lines(own, fed, ds[i], false);
	pebs_session__delete(ss);
	pebs_c2c__delete(fed);
	pebs_perfdata__close(pd);
}

static void one_pass_equals_own_pass(const char *name, uint64_t samples)
{
	struct pebs_perfdata *pd = open_fixture(name), *pd2 = open_fixture(name);
	struct pebs_c2c *own, *fed;
	struct pebs_session *ss;
	uint64_t seen = 0;

	assert_non_null(pd);
	assert_non_null(pd2);
	assert_int_equal(pebs_c2c__new(&own), 0);
	assert_int_equal(pebs_c2c__new(&fed), 0);
	assert_int_equal(pebs_c2c__read_perfdata(own, pd, NULL, NULL), 0);

	assert_int_equal(pebs_session__new(pd2, &ss), 0);
	assert_int_equal(pebs_session__set_c2c(ss, fed, 0), 0);
	assert_int_equal(pebs_session__process(ss, false, count, &seen, NULL),
			 0);
	assert_int_equal(seen, samples);
	assert_memory_equal(pebs_c2c__stats(own), pebs_c2c__stats(fed),
			    sizeof(struct pebs_c2c_stats));
	assert_true(pebs_c2c__stats(fed)->nr_entries == samples);
	assert_int_equal(pebs_c2c__has_data_src(own),
			 pebs_c2c__has_data_src(fed));
	same_lines(own, fed, PEBS_C2C_TOT_HITM, true);
	same_lines(own, fed, PEBS_C2C_XWRITES, true);
	shared_only(name, own);
	pebs_session__delete(ss);
	pebs_c2c__delete(own);
	pebs_c2c__delete(fed);
	pebs_perfdata__close(pd);
	pebs_perfdata__close(pd2);
}

/* AMD IBS with data mappings: "No Page Map Rejects" 53 (perf c2c) */
static void test_amd_ibs(void **state)
{
	(void)state;
	one_pass_equals_own_pass("amd-zen4-epyc9254_ibs-c2c_ring.perf.data",
				 27447);
}

static void test_intel_ldlat(void **state)
{
	struct pebs_perfdata *pd =
		open_fixture("intel-skx-xeon8173M_ldlat64_weight-struct.perf.data");
	struct pebs_c2c *c;
	uint64_t n;

	(void)state;
	/* the count of its samples, from pebs_c2c__read_perfdata */
	assert_non_null(pd);
	assert_int_equal(pebs_c2c__new(&c), 0);
	assert_int_equal(pebs_c2c__read_perfdata(c, pd, NULL, NULL), 0);
	n = pebs_c2c__stats(c)->nr_entries;
	pebs_c2c__delete(c);
	pebs_perfdata__close(pd);
	one_pass_equals_own_pass(
		"intel-skx-xeon8173M_ldlat64_weight-struct.perf.data", n);
}

/*
 * A synthetic page-fault recording (software event: no data source):
 * with one thread no line can be shared and the shared-only feed keeps
 * nothing; with a second thread on one line that line is shown, as
 * with every sample.
 */
static const char *write_faults(bool two_threads)
{
	static char path[] = "/tmp/test-session.XXXXXX";
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR,
	};
	struct pebs_perfdata_writer *w;
	uint64_t id = 7;
	unsigned int i;
	int fd;

	strcpy(path + sizeof(path) - 7, "XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1,
							"page-faults"), 0);
	for (i = 0; i < 100; i++) {
		struct {
			struct perf_event_header h;
			uint64_t ip;
			uint32_t pid, tid;
			uint64_t time, addr;
		} r = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
			  sizeof(r) }, 0x401000, 50, 50, 1000 + i,
			0x7f0000000000 + i * 4096 };

		if (two_threads && i == 99) {	/* thread 51 on line 0 */
			r.tid = 51;
			r.addr = 0x7f0000000008;
		}
		assert_int_equal(pebs_perfdata_writer__write(w, &r.h), 0);
	}
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	return path;
}

static void test_shared_only(void **state)
{
	unsigned int two;

	(void)state;
	for (two = 0; two < 2; two++) {
		const char *path = write_faults(two);
		struct pebs_perfdata *pd, *pd2;
		struct pebs_c2c *own, *fed;
		struct pebs_session *ss;
		uint64_t seen = 0;

		assert_int_equal(pebs_perfdata__open(path, &pd), 0);
		assert_int_equal(pebs_perfdata__open(path, &pd2), 0);
		assert_int_equal(pebs_c2c__new(&own), 0);
		assert_int_equal(pebs_c2c__new(&fed), 0);
		assert_int_equal(pebs_c2c__read_perfdata(own, pd, NULL, NULL),
				 0);
		assert_int_equal(pebs_session__new(pd2, &ss), 0);
		assert_int_equal(pebs_session__set_c2c(ss, fed,
						PEBS_SESSION_C2C_SHARED), 0);
		assert_int_equal(pebs_session__process(ss, false, count, &seen,
						       NULL), 0);
		assert_int_equal(seen, 100);
		assert_int_equal(pebs_c2c__stats(own)->nr_entries, 100);
		/* one thread: nothing kept; two: the shared line's two */
		assert_int_equal(pebs_c2c__stats(fed)->nr_entries, two ? 2 : 0);
		assert_int_equal(pebs_c2c__sort(own, PEBS_C2C_XWRITES),
				 two ? 1 : 0);
		same_lines(own, fed, PEBS_C2C_XWRITES, false);
		pebs_session__delete(ss);
		pebs_c2c__delete(own);
		pebs_c2c__delete(fed);
		pebs_perfdata__close(pd);
		pebs_perfdata__close(pd2);
		unlink(path);
	}
}

/* NULL stops the feed; a NULL session is refused */
static void test_args(void **state)
{
	(void)state;
	assert_int_equal(pebs_session__set_c2c(NULL, NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amd_ibs),
		cmocka_unit_test(test_intel_ldlat),
		cmocka_unit_test(test_shared_only),
		cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
