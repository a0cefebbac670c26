/* SPDX-License-Identifier: MIT */
/*
 * report-rows.h - the row comparison of the report unit tests
 * (test-report.c, test-report-defer.c): two reports' first rows equal in
 * every field. Include after cmocka.h and pebsshim.h.
 */
#ifndef PEBS_TEST_REPORT_ROWS_H
#define PEBS_TEST_REPORT_ROWS_H

/* Two strings alike: both NULL or equal. */
static inline void same_str(const char *b, const char *a)
{
	if (!a || !b)
		assert_ptr_equal(b, a);
	else
		assert_string_equal(b, a);
}

/* The first @n rows of @r and @want: equal in every field (the thread
   ids in the same order when @in_order, else in any). */
static inline void same_rows(const struct pebs_report *r,
		      const struct pebs_report *want, size_t n, bool in_order)
{
	struct pebs_report_row a, b;
	unsigned int t, u;
	size_t i;

	for (i = 0; i < n; i++) {
		a = *pebs_report__row(want, i);
		b = *pebs_report__row(r, i);
		assert_int_equal(b.pid, a.pid);
		assert_int_equal(b.tid, a.tid);
		assert_int_equal(b.cpu, a.cpu);
		same_str(b.comm, a.comm);
		same_str(b.dso, a.dso);
		same_str(b.sym, a.sym);
		assert_int_equal(b.ip, a.ip);
		assert_int_equal(b.kernel, a.kernel);
		assert_int_equal(b.data_src, a.data_src);
		assert_int_equal(b.phys_addr, a.phys_addr);
		same_str(b.data_dso, a.data_dso);
		same_str(b.data_sym, a.data_sym);
		assert_int_equal(b.data_sym_off, a.data_sym_off);
		assert_int_equal(b.weight, a.weight);
		assert_int_equal(b.addr, a.addr);
		assert_int_equal(b.event, a.event);
		assert_int_equal(b.period, a.period);
		assert_int_equal(b.samples, a.samples);
		assert_int_equal(b.weight_sum, a.weight_sum);
		assert_int_equal(b.weight_nr, a.weight_nr);
		assert_int_equal(b.loads, a.loads);
		assert_int_equal(b.stores, a.stores);
		assert_int_equal(b.hitm, a.hitm);
		assert_int_equal(b.nr_tids, a.nr_tids);
		/* of more than kept, any kept */
		for (t = 0; a.nr_tids <= PEBS_REPORT_MAX_TIDS &&
			    t < a.nr_tids; t++) {
			for (u = 0; u < b.nr_tids && b.tids[u] != a.tids[t];
			     u++)
				;
			assert_int_equal(in_order ? t : u, u);
			assert_true(u < b.nr_tids);
		}
	}
}

#endif
