// SPDX-License-Identifier: MIT
/*
 * test-report.c - the report object (lib/report/report.c): grouping by keys,
 * period-weighted totals, perf's tie order, key parsing, the printed
 * fields, what the keys need of the pass; and three synthetic recordings (pebs_perfdata_writer) read
 * back through a pebs_session (pebs_ordered, pebs_threads and
 * pebs_symbols): varying
 * periods, records written out of time order around an exec, and a
 * kernel whose build id is not this one's. With PEBS_REPORT_KEEP=dir
 * the files stay in dir (periods.data, order.data, foreign.data) for
 * tests/cli/report-perf.t, which compares pebs-shim report with perf.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "report-rows.h"

#define SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

__attribute__((noinline, used)) int pebs_test_heavy_fn(int x);
__attribute__((noinline, used)) int pebs_test_heavy_fn(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, used)) int pebs_test_light_fn(int x);
__attribute__((noinline, used)) int pebs_test_light_fn(int x)
{
	return x * 5 + 2;
}

static void test_group_and_weigh(void **state)
{
	enum pebs_report_key keys[2] = { PEBS_REPORT_COMM, PEBS_REPORT_SYM };
	struct pebs_report_sample s = { .pid = 1, .tid = 1 };
	const struct pebs_report_row *row;
	struct pebs_report *r;
	uint64_t samples, period;
	char buf[64];
	int i;

	(void)state;
	assert_int_equal(pebs_report__new(keys, 2, 1, &r), 0);
	s.comm = "a";
	s.sym = "hot";
	s.period = 9000;
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.sym = "cold";
	s.period = 100;
	for (i = 0; i < 9; i++)
		assert_int_equal(pebs_report__add(r, &s), 0);
	/* unresolved, shown by address; a tie with "b" sorts after "a" */
	s.comm = "b";
	s.sym = NULL;
	s.ip = 0x1234;
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.comm = NULL;
	s.tid = 77;
	s.kernel = true;
	s.ip = 0xffffffff81000000ull;
	assert_int_equal(pebs_report__add(r, &s), 0);
	pebs_report__sort(r);
	assert_int_equal(pebs_report__nr_rows(r), 4);
	pebs_report__totals(r, -1, &samples, &period);
	assert_int_equal(samples, 12);
	assert_int_equal(period, 9000 + 900 + 200);
	row = pebs_report__row(r, 0);	/* one sample, most period */
	assert_int_equal(row->samples, 1);
	assert_string_equal(row->sym, "hot");
	row = pebs_report__row(r, 1);
	assert_int_equal(row->samples, 9);
	assert_int_equal(row->period, 900);
	/* the unknown comm is ":77", which perf orders before "b" */
	row = pebs_report__row(r, 2);
	pebs_report__field(row, PEBS_REPORT_COMM, buf, sizeof(buf));
	assert_string_equal(buf, ":77");
	pebs_report__field(row, PEBS_REPORT_SYM, buf, sizeof(buf));
	assert_string_equal(buf, "[k] 0xffffffff81000000");
	row = pebs_report__row(r, 3);
	assert_string_equal(row->comm, "b");
	pebs_report__field(row, PEBS_REPORT_SYM, buf, sizeof(buf));
	assert_string_equal(buf, "[.] 0x0000000000001234");
	assert_null(pebs_report__row(r, 4));
	pebs_report__delete(r);
}

static void test_data_keys(void **state)
{
	enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
	struct pebs_report_sample s = { .period = 1 };
	const struct pebs_report_row *row;
	struct pebs_report *r;
	char buf[64];
	int n;

	(void)state;
	n = pebs_report__parse_keys("line,dso", keys, PEBS_REPORT_MAX_KEYS);
	assert_int_equal(n, 2);
	assert_int_equal(pebs_report__new(keys, 2, 1, &r), 0);
	/* no data address: not counted in a line table */
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.has_addr = true;
	s.dso = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	s.addr = 0x1000047;
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.addr = 0x1000041;	/* the same line */
	assert_int_equal(pebs_report__add(r, &s), 0);
	pebs_report__sort(r);
	assert_int_equal(pebs_report__nr_rows(r), 1);
	row = pebs_report__row(r, 0);
	assert_int_equal(row->samples, 2);
	pebs_report__field(row, PEBS_REPORT_LINE, buf, sizeof(buf));
	assert_string_equal(buf, "0x1000040");
	pebs_report__field(row, PEBS_REPORT_DSO, buf, sizeof(buf));
	assert_string_equal(buf, "libc.so.6");
	pebs_report__delete(r);

	/* dcacheline: line within its data object; phys_daddr: 0 unsampled */
	n = pebs_report__parse_keys("dcacheline,phys_daddr", keys, 8);
	assert_int_equal(n, 2);
	assert_int_equal(pebs_report__new(keys, 2, 1, &r), 0);
	s.addr = 0x1000047;
	s.data_dso = "[heap]";
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.data_dso = NULL;	/* the same line, no mapping: another row */
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.has_phys = true;
	s.phys_addr = 0x5000;
	assert_int_equal(pebs_report__add(r, &s), 0);
	pebs_report__sort(r);
	assert_int_equal(pebs_report__nr_rows(r), 3);
	row = pebs_report__row(r, 0);	/* ties: by line, then phys */
	pebs_report__field(row, PEBS_REPORT_DCACHELINE, buf, sizeof(buf));
	assert_string_equal(buf, "[.] 0x0000000001000040");
	pebs_report__field(row, PEBS_REPORT_PHYS_DADDR, buf, sizeof(buf));
	assert_string_equal(buf, "[.] 0000000000000000");
	row = pebs_report__row(r, 2);
	pebs_report__field(row, PEBS_REPORT_DCACHELINE, buf, sizeof(buf));
	assert_string_equal(buf, "[X] 0x0000000001000040");
	pebs_report__field(row, PEBS_REPORT_PHYS_DADDR, buf, sizeof(buf));
	assert_string_equal(buf, "[.] 0x0000000000005000");
	pebs_report__delete(r);

	/* dcacheline as perf prints it: the data symbol of the line's first
	   sample, offset from its start to the line; a second object in
	   the same line does not split the row */
	n = pebs_report__parse_keys("dcacheline", keys, 8);
	assert_int_equal(pebs_report__new(keys, (unsigned int)n, 1, &r), 0);
	s.has_phys = false;
	s.data_dso = "/usr/bin/app";
	s.data_sym = "table";		/* starts at 0x1000010 */
	s.addr = 0x1000047;
	s.data_sym_off = 0x37;
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.data_sym = "counter";		/* starts at 0x1000078 */
	s.addr = 0x1000078;
	s.data_sym_off = 0;
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.data_sym = NULL;		/* another line, no data symbol */
	s.addr = 0x2000000;
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.kernel = true;		/* a kernel line with a symbol */
	s.data_dso = "[kernel.kallsyms]";
	s.data_sym = "jiffies";
	s.addr = 0xffffffff82000008;
	s.data_sym_off = 8;
	assert_int_equal(pebs_report__add(r, &s), 0);
	pebs_report__sort(r);
	assert_int_equal(pebs_report__nr_rows(r), 3);
	row = pebs_report__row(r, 0);	/* two samples */
	assert_int_equal(row->samples, 2);
	pebs_report__field(row, PEBS_REPORT_DCACHELINE, buf, sizeof(buf));
	assert_string_equal(buf, "[.] table+0x30");
	row = pebs_report__row(r, 1);
	pebs_report__field(row, PEBS_REPORT_DCACHELINE, buf, sizeof(buf));
	assert_string_equal(buf, "[.] 0x0000000002000000");
	row = pebs_report__row(r, 2);
	pebs_report__field(row, PEBS_REPORT_DCACHELINE, buf, sizeof(buf));
	assert_string_equal(buf, "[k] jiffies+0x0");
	pebs_report__delete(r);
	s.kernel = false;
	s.data_sym = NULL;
	s.data_sym_off = 0;

	/* weight as perf's: a row per weight, weight x samples shown,
	   ties heavier first; no weight is weight 0 */
	n = pebs_report__parse_keys("weight", keys, 8);
	assert_int_equal(n, 1);
	assert_int_equal(keys[0], PEBS_REPORT_WEIGHT);
	assert_int_equal(pebs_report__new(keys, 1, 1, &r), 0);
	s.has_weight = true;
	s.weight = 30;
	assert_int_equal(pebs_report__add(r, &s), 0);
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.weight = 500;
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.weight = 700;
	assert_int_equal(pebs_report__add(r, &s), 0);
	s.has_weight = false;
	assert_int_equal(pebs_report__add(r, &s), 0);
	pebs_report__sort(r);
	assert_int_equal(pebs_report__nr_rows(r), 4);
	row = pebs_report__row(r, 0);
	pebs_report__field(row, PEBS_REPORT_WEIGHT, buf, sizeof(buf));
	assert_string_equal(buf, "60");
	row = pebs_report__row(r, 1);	/* one sample each: heavier first */
	pebs_report__field(row, PEBS_REPORT_WEIGHT, buf, sizeof(buf));
	assert_string_equal(buf, "700");
	row = pebs_report__row(r, 2);
	pebs_report__field(row, PEBS_REPORT_WEIGHT, buf, sizeof(buf));
	assert_string_equal(buf, "500");
	row = pebs_report__row(r, 3);
	pebs_report__field(row, PEBS_REPORT_WEIGHT, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_string_equal(pebs_report__key_name(PEBS_REPORT_WEIGHT),
			    "weight");
	pebs_report__delete(r);

	assert_int_equal(pebs_report__parse_keys("comm,bogus", keys, 8),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'bogus'"));
	assert_int_equal(pebs_report__parse_keys("", keys, 8), -EINVAL);
	assert_int_equal(pebs_report__parse_keys("pid,tid,comm", keys, 2),
			 -EINVAL);
	assert_int_equal(pebs_report__parse_keys("symbol", keys, 8), 1);
	assert_int_equal(keys[0], PEBS_REPORT_SYM);
	assert_string_equal(pebs_report__key_name(PEBS_REPORT_DSO), "dso");
	/* perf's pid is a thread, shown tid:comm; tgid the process */
	assert_int_equal(pebs_report__parse_keys("pid,tgid,tid", keys, 8), 3);
	assert_int_equal(keys[0], PEBS_REPORT_THREAD);
	assert_int_equal(keys[1], PEBS_REPORT_PID);
	assert_int_equal(keys[2], PEBS_REPORT_TID);
	assert_string_equal(pebs_report__key_name(PEBS_REPORT_THREAD), "pid");
	assert_string_equal(pebs_report__key_name(PEBS_REPORT_PID), "tgid");
	{
		struct pebs_report_row t = { .pid = 7, .tid = 9, .comm = "w1" };

		pebs_report__field(&t, PEBS_REPORT_THREAD, buf, sizeof(buf));
		assert_string_equal(buf, "9:w1");
		pebs_report__field(&t, PEBS_REPORT_PID, buf, sizeof(buf));
		assert_string_equal(buf, "7:w1");
		t.comm = NULL;	/* perf's thread without a comm: ":tid" */
		pebs_report__field(&t, PEBS_REPORT_THREAD, buf, sizeof(buf));
		assert_string_equal(buf, "9::9");
		/* and a process whose leader is unknown: no comm */
		pebs_report__field(&t, PEBS_REPORT_PID, buf, sizeof(buf));
		assert_string_equal(buf, "7:");
	}
}

/*
 * sort_top orders the first rows as a full sort does (ties by key, then
 * first seen), add_batch counts as add one by one does; a row keeps its
 * first PEBS_REPORT_MAX_TIDS thread ids and counts one more past them.
 */
/* perf mem's keys and cost: weight overhead, local_weight, locked... */
static void test_mem_keys(void **state)
{
	enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
	union perf_mem_data_src d = { .val = 0 };
	struct pebs_report_sample s = { .period = 1000, .has_src = true };
	const struct pebs_report_row *row;
	struct pebs_report *r;
	uint64_t samples, period;
	char buf[64];
	int n;

	(void)state;
	/* perf mem's default: 12 names, powerpc's p_stage_cyc left out */
	n = pebs_report__parse_keys(PEBS_REPORT_MEM_SORT, keys,
				    PEBS_REPORT_MAX_KEYS);
	assert_int_equal(n, 11);
	assert_int_equal(keys[0], PEBS_REPORT_LOCAL_WEIGHT);
	assert_int_equal(keys[10], PEBS_REPORT_LOCAL_INS_LAT);
	n = pebs_report__parse_keys("local_weight,locked,blocked,"
				    "local_ins_lat", keys,
				    PEBS_REPORT_MAX_KEYS);
	assert_int_equal(n, 4);
	assert_int_equal(pebs_report__new(keys, 4, 1, &r), 0);
	d.mem_lock = PERF_MEM_LOCK_LOCKED;
	d.mem_blk = PERF_MEM_BLK_DATA | PERF_MEM_BLK_ADDR;
	s.data_src = d.val;
	s.has_weight = true;
	s.weight = 300;
	s.ins_lat = 7;
	pebs_report_sample__mem_cost(&s);
	assert_int_equal(s.period, 300);
	assert_int_equal(pebs_report__add(r, &s), 0);
	assert_int_equal(pebs_report__add(r, &s), 0);
	/* no weight: costs 1; lock N/A, blk N/A */
	d.mem_lock = PERF_MEM_LOCK_NA;
	d.mem_blk = PERF_MEM_BLK_NA;
	s.data_src = d.val;
	s.has_weight = false;
	s.weight = 0;
	s.ins_lat = 0;
	s.period = 1000;
	pebs_report_sample__mem_cost(&s);
	assert_int_equal(s.period, 1);
	assert_int_equal(pebs_report__add(r, &s), 0);
	pebs_report__sort(r);
	pebs_report__totals(r, -1, &samples, &period);
	assert_int_equal(samples, 3);
	assert_int_equal(period, 601);
	assert_int_equal(pebs_report__nr_rows(r), 2);
	row = pebs_report__row(r, 0);
	assert_int_equal(row->samples, 2);
	assert_true(pebs_report__overhead(r, row, false) > 99.8);
	pebs_report__field(row, PEBS_REPORT_LOCAL_WEIGHT, buf, sizeof(buf));
	assert_string_equal(buf, "300");	/* not 600: the row's weight */
	pebs_report__field(row, PEBS_REPORT_WEIGHT, buf, sizeof(buf));
	assert_string_equal(buf, "600");	/* perf's weight x samples */
	pebs_report__field(row, PEBS_REPORT_LOCKED, buf, sizeof(buf));
	assert_string_equal(buf, "Yes");
	pebs_report__field(row, PEBS_REPORT_BLOCKED, buf, sizeof(buf));
	assert_string_equal(buf, "Data Addr");
	pebs_report__field(row, PEBS_REPORT_LOCAL_INS_LAT, buf, sizeof(buf));
	assert_string_equal(buf, "7");
	row = pebs_report__row(r, 1);
	pebs_report__field(row, PEBS_REPORT_LOCKED, buf, sizeof(buf));
	assert_string_equal(buf, "N/A");
	pebs_report__field(row, PEBS_REPORT_BLOCKED, buf, sizeof(buf));
	assert_string_equal(buf, "N/A");
	pebs_report__delete(r);
}

static void test_top_and_tids(void **state)
{
	enum pebs_report_key k = PEBS_REPORT_ADDR;
	struct pebs_report_sample s = { .has_addr = true, .period = 1 };
	const struct pebs_report_row *row;
	static struct pebs_report_sample many[1000];
	struct pebs_report *full, *top;
	uint64_t want[5];
	unsigned int i;

	(void)state;
	assert_int_equal(pebs_report__new(&k, 1, 1, &full), 0);
	assert_int_equal(pebs_report__new(&k, 1, 1, &top), 0);
	for (i = 0; i < 1000; i++) {
		/* periods 1..7 over 1000 addresses: many ties */
		s.addr = 0x1000 + (i * 7919) % 1000 * 8;
		s.period = 1 + i % 7;
		s.tid = (int32_t)(i % 13);
		s.has_addr = i % 100 != 5;	/* some go to no row */
		assert_int_equal(pebs_report__add(full, &s), 0);
		many[i] = s;
	}
	/* in uneven batches: 1, then 998, then 1 */
	assert_int_equal(pebs_report__add_batch(top, many, 1), 0);
	assert_int_equal(pebs_report__add_batch(top, many + 1, 998), 0);
	assert_int_equal(pebs_report__add_batch(top, many + 999, 1), 0);
	s.has_addr = true;
	pebs_report__sort(full);
	pebs_report__sort_top(top, 5);
	assert_int_equal(pebs_report__nr_rows(top),
			 pebs_report__nr_rows(full));
	assert_int_equal(pebs_report__nr_rows(top), 990);
	for (i = 0; i < 5; i++)
		want[i] = pebs_report__row(full, i)->addr;
	for (i = 0; i < 5; i++) {
		row = pebs_report__row(top, i);
		assert_int_equal(row->addr, want[i]);
		assert_int_equal(row->period, 7);
	}
	pebs_report__delete(full);
	pebs_report__delete(top);

	/* one address, 10 threads: 8 kept, counted as 9 ("8+") */
	assert_int_equal(pebs_report__new(&k, 1, 1, &top), 0);
	for (i = 0; i < 20; i++) {
		s.tid = (int32_t)(100 + i % 10);
		assert_int_equal(pebs_report__add(top, &s), 0);
	}
	pebs_report__sort_top(top, 1);
	row = pebs_report__row(top, 0);
	assert_int_equal(row->samples, 20);
	assert_int_equal(row->nr_tids, PEBS_REPORT_MAX_TIDS + 1);
	for (i = 0; i < PEBS_REPORT_MAX_TIDS; i++)
		assert_int_equal(row->tids[i], 100 + (int32_t)i);
	pebs_report__delete(top);
}

/* ---- synthetic recordings ----------------------------------------------- */

struct sample_rec {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, period;
};

struct id_trailer {
	uint32_t pid, tid;
	uint64_t time;
};

static void path_of(char *buf, size_t len, const char *name)
{
	const char *keep = getenv("PEBS_REPORT_KEEP");

	if (keep)
		snprintf(buf, len, "%s/%s", keep, name);
	else
		snprintf(buf, len, "/tmp/test-report.%d.%s", getpid(), name);
}

static struct pebs_perfdata_writer *create(const char *path, bool kernel)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
		.sample_type = SAMPLE_TYPE, .sample_id_all = 1,
		.exclude_kernel = !kernel,
	};
	struct pebs_perfdata_writer *w;
	uint64_t id = 7;	/* an id: a reader sorts them */

	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1,
							"cpu-clock"), 0);
	return w;
}

static void sample(struct pebs_perfdata_writer *w, uint64_t ip,
		   uint64_t time, uint64_t period, bool kernel)
{
	struct sample_rec s = {
		{ PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL :
		  PERF_RECORD_MISC_USER, sizeof(s) },
		ip, (uint32_t)getpid(), (uint32_t)getpid(), time, period,
	};

	assert_int_equal(pebs_perfdata_writer__write(w, &s.h), 0);
}

static void round_end(struct pebs_perfdata_writer *w)
{
	struct perf_event_header h = { PEBS_PERF_RECORD_FINISHED_ROUND, 0, 8 };

	assert_int_equal(pebs_perfdata_writer__write(w, &h), 0);
}

/* A whole file through a pebs_session into a report by @keys. */
struct pass {
	struct pebs_perfdata *pd;
	struct pebs_session *ss;
	struct pebs_report *rep;
};

static int add(void *arg, const struct pebs_sample *s,
	       const struct pebs_report_sample *rs)
{
	struct pass *p = arg;

	(void)s;
	return pebs_report__add(p->rep, rs);
}

static struct pass *report(const char *path, const char *keys)
{
	enum pebs_report_key k[PEBS_REPORT_MAX_KEYS];
	struct pass *p = calloc(1, sizeof(*p));
	unsigned int flags;
	int n;

	assert_non_null(p);
	assert_int_equal(pebs_perfdata__open(path, &p->pd), 0);
	assert_int_equal(pebs_session__new(p->pd, &p->ss), 0);
	n = pebs_report__parse_keys(keys, k, PEBS_REPORT_MAX_KEYS);
	assert_true(n > 0);
	assert_int_equal(pebs_report__new(k, (unsigned int)n, 1, &p->rep), 0);
	assert_int_equal(pebs_session__process(p->ss, true, add, p, &flags),
			 0);
	assert_int_equal(flags, 0);
	pebs_report__sort(p->rep);
	return p;
}

static void pass_free(struct pass *p, const char *path)
{
	pebs_report__delete(p->rep);
	pebs_session__delete(p->ss);
	pebs_perfdata__close(p->pd);
	free(p);
	if (!getenv("PEBS_REPORT_KEEP"))
		unlink(path);
}

static void test_derive_pages(void **state)
{
	enum pebs_report_key lk[2] = { PEBS_REPORT_EVENT, PEBS_REPORT_LINE };
	enum pebs_report_key pk[2] = { PEBS_REPORT_EVENT, PEBS_REPORT_PAGE };
	enum pebs_report_key sk[2] = { PEBS_REPORT_SYM, PEBS_REPORT_LINE };
	struct pebs_report *lines, *pages, *top, *all, *bad;
	struct pebs_report_sample s = { .pid = 1 };
	union perf_mem_data_src src;
	uint64_t x = 88172645463325252ull, n1, p1, n2, p2;
	unsigned int i;

	(void)state;
	assert_int_equal(pebs_report__new(lk, 2, 2, &lines), 0);
	assert_int_equal(pebs_report__new(pk, 2, 2, &pages), 0);
	assert_int_equal(pebs_report__new(pk, 2, 2, &top), 0);
	assert_int_equal(pebs_report__new(pk, 2, 2, &all), 0);
	for (i = 0; i < 30000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 300 pages of 64 lines, two events, 1..5 periods */
		s.addr = 0x7f0000000000ull + (x % 300) * 4096 +
			 (x >> 20) % 4096;
		s.event = (x >> 40) % 2;
		s.period = 1 + (x >> 44) % 5;
		/* 32 pages of 12 threads, 32 of 4, the others of 1 */
		s.tid = (int32_t)(x % 300 < 32 ? (x >> 48) % 12 :
				  x % 300 < 64 ? 20 + (x >> 48) % 4 : 7);
		s.has_addr = (x >> 52) % 50 != 0;
		s.hidden = (x >> 54) % 40 == 0;
		s.has_weight = (x >> 56) % 3 == 0;
		s.weight = (x >> 58) + 1;
		src.val = 0;
		src.mem_op = (x >> 60) % 2 ? PERF_MEM_OP_LOAD :
					     PERF_MEM_OP_STORE;
		src.mem_snoop = (x >> 61) % 2 ? PERF_MEM_SNOOP_HITM : 0;
		s.data_src = src.val;
		s.has_src = (x >> 62) % 2;
		assert_int_equal(pebs_report__add(lines, &s), 0);
		assert_int_equal(pebs_report__add(pages, &s), 0);
	}
	pebs_report__sort(pages);
	pebs_report__sort_top(lines, 3);
	assert_int_equal(pebs_report__derive_top(top, lines, 7), 0);
	assert_int_equal(pebs_report__derive_top(all, lines, SIZE_MAX), 0);
	assert_true(pebs_report__nr_rows(pages) > 500);
	assert_int_equal(pebs_report__nr_rows(top),
			 pebs_report__nr_rows(pages));
	assert_int_equal(pebs_report__nr_rows(all),
			 pebs_report__nr_rows(pages));
	assert_null(pebs_report__row(top, 7));
	same_rows(top, pages, 7, false);
	same_rows(all, pages, pebs_report__nr_rows(pages), false);
	pebs_report__totals(pages, 1, &n1, &p1);
	pebs_report__totals(top, 1, &n2, &p2);
	assert_int_equal(n2, n1);
	assert_int_equal(p2, p1);
	/* a sort after it keeps the order */
	pebs_report__sort_top(top, 7);
	same_rows(top, pages, 7, false);
	/* not new, or keys that do not match */
	assert_int_equal(pebs_report__derive_top(top, lines, 7), -EINVAL);
	assert_int_equal(pebs_report__new(&pk[1], 1, 2, &bad), 0);
	assert_int_equal(pebs_report__derive_top(bad, lines, 7), -EINVAL);
	pebs_report__delete(bad);
	assert_int_equal(pebs_report__new(sk, 2, 2, &bad), 0);
	assert_int_equal(pebs_report__derive_top(all, bad, 7), -EINVAL);
	pebs_report__delete(bad);
	pebs_report__delete(lines);
	pebs_report__delete(pages);
	pebs_report__delete(top);
	pebs_report__delete(all);
}

/* One sample of period 9000 in heavy, nine of 100 in light. */
static void test_periods(void **state)
{
	const struct pebs_session_stats *st;
	struct pebs_perfdata_writer *w;
	const struct pebs_report_row *row;
	char path[PATH_MAX];
	struct pass *p;
	int i;

	(void)state;
	path_of(path, sizeof(path), "periods.data");
	w = create(path, false);
	assert_true(pebs_perfdata_writer__synth_task(w, getpid()) > 0);
	sample(w, (uintptr_t)pebs_test_heavy_fn + 1, 1000, 9000, false);
	for (i = 0; i < 9; i++)
		sample(w, (uintptr_t)pebs_test_light_fn + 1, 1001 + i, 100,
		       false);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);

	p = report(path, "sym");
	st = pebs_session__stats(p->ss);
	assert_int_equal(st->nr_events, 1);
	assert_int_equal(st->event_samples[0], 10);
	assert_int_equal(st->first_time, 1000);
	assert_int_equal(st->last_time, 1009);
	assert_int_equal(st->bad, 0);
	row = pebs_report__row(p->rep, 0);
	assert_string_equal(row->sym, "pebs_test_heavy_fn");
	assert_int_equal(row->period, 9000);
	row = pebs_report__row(p->rep, 1);
	assert_string_equal(row->sym, "pebs_test_light_fn");
	assert_int_equal(row->samples, 9);
	pass_free(p, path);
}

/*
 * An exec at time 200 renames the thread "after"; the file has the
 * COMM first and then, in the same round, samples of time 100..104
 * taken before it: in time order they belong to the old comm.
 */
static void test_out_of_order(void **state)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		struct id_trailer id;
	} c = { { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(c) },
		0, 0, "after", { 0, 0, 200 } };
	struct pebs_perfdata_writer *w;
	const struct pebs_report_row *row;
	char path[PATH_MAX];
	struct pass *p;
	int i;

	(void)state;
	path_of(path, sizeof(path), "order.data");
	w = create(path, false);
	assert_true(pebs_perfdata_writer__synth_task(w, getpid()) > 0);
	round_end(w);
	c.pid = c.tid = c.id.pid = c.id.tid = (uint32_t)getpid();
	assert_int_equal(pebs_perfdata_writer__write(w, &c.h), 0);
	for (i = 0; i < 5; i++)
		sample(w, (uintptr_t)pebs_test_heavy_fn + 1, 100 + i, 1000,
		       false);
	round_end(w);
	for (i = 0; i < 3; i++)
		sample(w, 0x1000, 300 + i, 1000, false);
	round_end(w);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);

	p = report(path, "comm,dso");
	assert_int_equal(pebs_report__nr_rows(p->rep), 2);
	row = pebs_report__row(p->rep, 0);
	assert_int_equal(row->samples, 5);
	assert_string_equal(row->comm, "test-report");
	assert_non_null(strstr(row->dso, "test-report"));
	row = pebs_report__row(p->rep, 1);
	assert_int_equal(row->samples, 3);
	assert_string_equal(row->comm, "after");
	assert_null(row->dso);		/* the exec dropped the maps */
	pass_free(p, path);
}

/* This host's address of kernel function @name, or 0. */
static uint64_t kernel_addr(const char *name)
{
	char line[512], sym[256];
	unsigned long long a;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %*c %255s", &a, sym) == 2 &&
		    !strcmp(sym, name))
			found = a;
	if (f)
		fclose(f);
	return found;
}

/*
 * A recording whose kernel MMAP2 carries another kernel's build id:
 * kernel samples at this host's schedule+4 must stay raw addresses.
 */
static void test_foreign_kernel(void **state)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint8_t bid_size, pad[3], bid[20];
		uint32_t prot, flags;
		char name[24];
		struct id_trailer id;
	} m = { { PERF_RECORD_MMAP2, PERF_RECORD_MISC_KERNEL |
		  PERF_RECORD_MISC_MMAP_BUILD_ID, sizeof(m) },
		UINT32_MAX, 0, 0, 0, 0, 20, { 0 }, { 0 }, 5, 0,
		"[kernel.kallsyms]_text", { UINT32_MAX, 0, 0 } };
	uint64_t text = kernel_addr("_text"), sched = kernel_addr("schedule");
	struct pebs_perfdata_writer *w;
	const struct pebs_report_row *row;
	char path[PATH_MAX];
	struct pass *p;
	int i;

	(void)state;
	if (!text || !sched)
		skip();		/* kallsyms without addresses */
	path_of(path, sizeof(path), "foreign.data");
	w = create(path, true);
	m.start = text;
	m.len = UINT64_MAX - text;
	m.pgoff = text;
	memset(m.bid, 0x5a, sizeof(m.bid));
	assert_int_equal(pebs_perfdata_writer__write(w, &m.h), 0);
	assert_true(pebs_perfdata_writer__synth_task(w, getpid()) > 0);
	for (i = 0; i < 4; i++)
		sample(w, sched + 4, 1000 + i, 1000, true);
	round_end(w);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);

	p = report(path, "dso,sym");
	assert_int_equal(pebs_session__stats(p->ss)->kernel, 0);
	row = pebs_report__row(p->rep, 0);
	assert_int_equal(row->samples, 4);
	assert_null(row->sym);
	assert_string_equal(row->dso, "[kernel.kallsyms]");
	assert_int_equal(row->ip, sched + 4);
	pass_free(p, path);
}

/* Weights per event: count, min, mean, ranks n/2, 9n/10, 99n/100, max. */
static void test_weights(void **state)
{
	struct pebs_report_sample s = { .has_weight = true };
	struct pebs_weight_summary w;
	struct pebs_weights *ws;
	unsigned int i;

	(void)state;
	assert_int_equal(pebs_weights__new(&ws), 0);
	for (i = 100; i >= 1; i--) {	/* 1..100, backwards */
		s.weight = i;
		assert_int_equal(pebs_weights__add(ws, &s), 0);
	}
	s.has_weight = false;		/* not counted */
	assert_int_equal(pebs_weights__add(ws, &s), 0);
	s.has_weight = true;
	s.event = 3;
	s.weight = 1ull << 40;		/* kept as 2^32 - 1 */
	assert_int_equal(pebs_weights__add(ws, &s), 0);
	assert_int_equal(pebs_weights__nr(ws), 101);
	assert_int_equal(pebs_weights__summary(ws, 0, &w), 0);
	assert_int_equal(w.samples, 100);
	assert_int_equal(w.min, 1);
	assert_int_equal(w.max, 100);
	assert_int_equal(w.p50, 51);
	assert_int_equal(w.p90, 91);
	assert_int_equal(w.p99, 100);
	assert_true(w.mean > 50.49 && w.mean < 50.51);
	assert_int_equal(pebs_weights__summary(ws, 3, &w), 0);
	assert_int_equal(w.max, UINT32_MAX);
	assert_int_equal(pebs_weights__summary(ws, 1, &w), -ENOENT);
	assert_int_equal(w.samples, 0);
	assert_int_equal(pebs_weights__summary(ws, 9, &w), -ENOENT);
	assert_int_equal(pebs_weights__summary(NULL, 0, &w), -EINVAL);
	pebs_weights__delete(ws);
}

/* what a report's keys need of the pass: data resolution, objects */
static void test_needs(void **state)
{
	static const struct {
		const char *keys;
		unsigned int needs;
	} cases[] = {
		{ "pid,tid,comm", 0 },
		{ "sym,dso", 0 },
		{ "page", 0 },	/* the address, not its object */
		{ "src,mem", 0 },
		{ "event,symbol_daddr", PEBS_REPORT_NEEDS_DATA },
		{ "dso_daddr", PEBS_REPORT_NEEDS_DATA },
		{ "dcacheline,pid", PEBS_REPORT_NEEDS_DATA },
		{ "object", PEBS_REPORT_NEEDS_DATA | PEBS_REPORT_NEEDS_OBJECTS },
		{ "sym,object_instance",
		  PEBS_REPORT_NEEDS_DATA | PEBS_REPORT_NEEDS_OBJECTS },
		{ "object_field",
		  PEBS_REPORT_NEEDS_DATA | PEBS_REPORT_NEEDS_OBJECTS },
	};
	enum pebs_report_key k[PEBS_REPORT_MAX_KEYS];
	struct pebs_report *r;
	int n;

	(void)state;
	assert_int_equal(pebs_report__needs(NULL), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		n = pebs_report__parse_keys(cases[i].keys, k,
					    PEBS_REPORT_MAX_KEYS);
		assert_true(n > 0);
		assert_int_equal(pebs_report__new(k, (unsigned int)n, 1, &r),
				 0);
		if (pebs_report__needs(r) != cases[i].needs)
			fail_msg("%s: %u", cases[i].keys,
				 pebs_report__needs(r));
		pebs_report__delete(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_and_weigh),
		cmocka_unit_test(test_data_keys),
		cmocka_unit_test(test_mem_keys),
		cmocka_unit_test(test_top_and_tids),
		cmocka_unit_test(test_derive_pages),
		cmocka_unit_test(test_periods),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_foreign_kernel),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_needs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
