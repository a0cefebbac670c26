// SPDX-License-Identifier: MIT
/*
 * test-selftest-analysis.c - what the precise checks conclude from a
 * recording (lib/selftest/analysis.c): data-source levels, weight
 * medians, the share of addresses in a workload's buffer (all samples,
 * and its threads'), cache lines classified as true or false sharing
 * with their HITM loads; on synthetic samples and on the two real
 * recordings in tests/fixtures, whose figures perf gave (perf script
 * -F data_src,weight for the Skylake one, perf c2c report's Trace Event
 * Information and Shared Data Cache Line Table for the Zen 4 one, as
 * tests/fixtures/README.md and pebs-shim c2c report show).
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

#include "pebsshim.h"
#include "selftest/selftest-int.h"

#define SRC(op, lvl, lvlnum, remote, snoop, snoopx) \
	((uint64_t)(op) << PERF_MEM_OP_SHIFT | \
	 (uint64_t)(lvl) << PERF_MEM_LVL_SHIFT | \
	 (uint64_t)(lvlnum) << PERF_MEM_LVLNUM_SHIFT | \
	 (uint64_t)(remote) << PERF_MEM_REMOTE_SHIFT | \
	 (uint64_t)(snoop) << PERF_MEM_SNOOP_SHIFT | \
	 (uint64_t)(snoopx) << PERF_MEM_SNOOPX_SHIFT)
#define LOAD PERF_MEM_OP_LOAD
#define HIT PERF_MEM_LVL_HIT

static void test_levels(void **state)
{
	(void)state;
	/* Intel's older bits: the level of a hit */
	assert_int_equal(st_level_of(SRC(LOAD, HIT | PERF_MEM_LVL_L1, 0, 0,
					 0, 0)), ST_LVL_L1);
	assert_int_equal(st_level_of(SRC(LOAD, HIT | PERF_MEM_LVL_LFB, 0, 0,
					 0, 0)), ST_LVL_LFB);
	assert_int_equal(st_level_of(SRC(LOAD, HIT | PERF_MEM_LVL_L3, 0, 0,
					 PERF_MEM_SNOOP_HITM, 0)), ST_LVL_L3);
	assert_int_equal(st_level_of(SRC(LOAD, HIT | PERF_MEM_LVL_LOC_RAM, 0,
					 0, 0, 0)), ST_LVL_RAM);
	assert_int_equal(st_level_of(SRC(LOAD, HIT | PERF_MEM_LVL_REM_CCE1, 0,
					 0, 0, 0)), ST_LVL_REMOTE);
	/* a miss says where it was not served: no level */
	assert_int_equal(st_level_of(SRC(LOAD, PERF_MEM_LVL_MISS |
					 PERF_MEM_LVL_L1, 0, 0, 0, 0)),
			 ST_LVL_OTHER);
	/* the level number (IBS, newer Intel) wins; remote is remote */
	assert_int_equal(st_level_of(SRC(LOAD, HIT, PERF_MEM_LVLNUM_L2, 0, 0,
					 0)), ST_LVL_L2);
	assert_int_equal(st_level_of(SRC(LOAD, HIT, PERF_MEM_LVLNUM_RAM, 0, 0,
					 0)), ST_LVL_RAM);
	assert_int_equal(st_level_of(SRC(LOAD, HIT, PERF_MEM_LVLNUM_ANY_CACHE,
					 1, 0, PERF_MEM_SNOOPX_PEER)),
			 ST_LVL_REMOTE);
	assert_int_equal(st_level_of(SRC(LOAD, PERF_MEM_LVL_NA,
					 PERF_MEM_LVLNUM_NA, 0, 0, 0)),
			 ST_LVL_OTHER);
	assert_string_equal(st_level_name(ST_LVL_RAM), "RAM");
	assert_string_equal(st_level_name(ST_LVL_NR), "?");
}

static void add(struct st_mem *m, uint32_t tid, uint64_t addr, uint64_t src,
		uint64_t weight)
{
	struct pebs_sample s;

	memset(&s, 0, sizeof(s));
	s.present = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |
		    PERF_SAMPLE_WEIGHT;
	s.tid = tid;
	s.addr = addr;
	s.data_src = src;
	s.weight = weight;
	st_mem_add(m, &s);
}

/*
 * A chase's samples: inside its buffer but for the main thread's; L1
 * hits in the small one, RAM in the large; the weight medians.
 */
static void test_synthetic_chase(void **state)
{
	struct st_layout l = { .buf = 0x10000, .size = 0x4000, .nthr = 1,
			       .tid = { 7 } };
	uint64_t l1 = SRC(LOAD, HIT | PERF_MEM_LVL_L1, 0, 0, 0, 0);
	uint64_t ram = SRC(LOAD, HIT | PERF_MEM_LVL_LOC_RAM, 0, 0, 0, 0);
	struct st_mem m;
	int i;

	(void)state;
	st_mem_init(&m, &l);
	for (i = 0; i < 99; i++)
		add(&m, 7, 0x10000 + 64 * (unsigned int)i, l1, 4 + i % 3);
	add(&m, 7, 0x9000, l1, 5);		/* its stack */
	add(&m, 1, 0x20000, ram, 300);		/* the main thread */
	assert_int_equal(m.samples, 101);
	assert_int_equal(m.with_addr, 101);
	assert_int_equal(m.inside, 99);
	assert_int_equal(m.thr_with_addr, 100);
	assert_int_equal(m.thr_inside, 99);
	assert_true(st_mem_thr_inside(&m) == 99.0);
	assert_int_equal(m.loads, 101);
	assert_int_equal(m.level[ST_LVL_L1], 100);
	assert_true(st_mem_level_share(&m, ST_LVL_L1) > 99.0);
	/* 33 x 4, 34 x 5 (with the stack's), 33 x 6, one 300: lower middle */
	assert_int_equal(st_mem_weight_median(&m), 5);
	st_mem_free(&m);

	st_mem_init(&m, NULL);
	assert_true(st_mem_inside(&m) == 0 && st_mem_thr_inside(&m) == 0);
	assert_int_equal(st_mem_weight_median(&m), 0);
	add(&m, 7, 0x10000, ram, 0);		/* no weight: not counted */
	assert_int_equal(m.nw, 0);
	assert_int_equal(m.inside, 0);		/* no layout: no buffer */
	assert_true(st_mem_level_share(&m, ST_LVL_RAM) == 100.0);
	st_mem_free(&m);
}

/* the sharing pairs: each thread its own word, or both one word */
static void test_synthetic_sharing(void **state)
{
	uint64_t hitm = SRC(LOAD, HIT | PERF_MEM_LVL_L3, 0, 0,
			    PERF_MEM_SNOOP_HITM, 0);
	uint64_t peer = SRC(LOAD, HIT, PERF_MEM_LVLNUM_ANY_CACHE, 1, 0,
			    PERF_MEM_SNOOPX_PEER);
	uint64_t store = SRC(PERF_MEM_OP_STORE, HIT | PERF_MEM_LVL_L1, 0, 0,
			     0, 0);
	const struct st_line *ln;
	struct st_mem m;
	int i;

	(void)state;
	st_mem_init(&m, NULL);
	for (i = 0; i < 10; i++) {
		add(&m, 1, 0x1000, hitm, 100);		/* word 0 */
		add(&m, 2, 0x1020, store, 0);		/* word 4 */
		add(&m, 3, 0x2008, peer, 100);		/* word 1, both */
		add(&m, 4, 0x200c, hitm, 100);
		add(&m, 5, 0x3000 + (unsigned int)i, store, 0);	/* one thread */
	}
	ln = st_mem_line(&m, 0x1030);
	assert_non_null(ln);
	assert_int_equal(ln->line, 0x1000);
	assert_int_equal(st_line_sharing(ln), ST_FALSE_SHARING);
	assert_int_equal(ln->ntid, 2);
	assert_int_equal(ln->words[0], 1u << 0);
	assert_int_equal(ln->words[1], 1u << 4);
	assert_int_equal(ln->hitm, 10);
	ln = st_mem_line(&m, 0x2000);
	assert_non_null(ln);
	assert_int_equal(st_line_sharing(ln), ST_TRUE_SHARING);
	assert_int_equal(ln->word_shared, 1u << 1);
	assert_int_equal(ln->hitm, 20);		/* HITM and peer loads */
	assert_int_equal(st_line_sharing(st_mem_line(&m, 0x3000)), ST_PRIVATE);
	assert_null(st_mem_line(&m, 0x4000));
	assert_int_equal(st_mem_top_line(&m)->line, 0x2000);
	assert_int_equal(m.hitm, 30);
	assert_int_equal(m.stores, 20);
	st_mem_free(&m);
}

/* more threads than a line keeps, and a full table: counted, bounded */
static void test_bounds(void **state)
{
	struct st_mem m;
	uint32_t t;

	(void)state;
	st_mem_init(&m, NULL);
	for (t = 1; t <= ST_LINE_TIDS + 2; t++)
		add(&m, t, 0x40, 0, 0);
	assert_int_equal(st_mem_line(&m, 0x40)->ntid, ST_LINE_TIDS);
	assert_true(st_mem_line(&m, 0x40)->more_tids);
	for (t = 0; t < (1u << 17); t++)
		add(&m, 1, 0x100000 + 64 * (uint64_t)t, 0, 0);
	assert_true(m.lines_dropped > 0);
	st_mem_free(&m);
}

static int scan_fixture(const char *name, struct st_mem *m)
{
	const char *src = getenv("PEBS_SRC");
	char path[1024];

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".",
		 name);
	st_mem_init(m, NULL);
	return st_mem_scan(path, m);
}

/*
 * Skylake load latency (ldlat 64): perf script -F data_src,weight says
 * 4 L1, 5 LFB, 1 L2 and 4 L3 hits, weights 70 ... 249, lower middle 89.
 */
static void test_fixture_skx(void **state)
{
	struct st_mem m;

	(void)state;
	assert_int_equal(scan_fixture("intel-skx-xeon8173M_ldlat64_weight-"
				      "struct.perf.data", &m), 0);
	assert_int_equal(m.samples, 14);
	assert_int_equal(m.with_addr, 14);
	assert_int_equal(m.loads, 14);
	assert_int_equal(m.level[ST_LVL_L1], 4);
	assert_int_equal(m.level[ST_LVL_LFB], 5);
	assert_int_equal(m.level[ST_LVL_L2], 1);
	assert_int_equal(m.level[ST_LVL_L3], 4);
	assert_int_equal(m.nw, 14);
	assert_int_equal(st_mem_weight_median(&m), 89);
	assert_int_equal(m.w[0], 70);
	assert_int_equal(m.w[13], 249);
	st_mem_free(&m);
}

/*
 * Zen 4 IBS (perf c2c record): 27,447 samples, 6,078 loads (5,018 L1D
 * hits, 1,047 unmapped, 4 L2D, 3 remote HITM, 2 local DRAM), 1,078 stores, 5,855 with a
 * data address; the top shared line 0x624b89b17180, 2 HITM, true
 * sharing (perf c2c report's Shared Data Cache Line Table).
 */
static void test_fixture_zen4(void **state)
{
	const struct st_line *ln;
	struct st_mem m;

	(void)state;
	assert_int_equal(scan_fixture("amd-zen4-epyc9254_ibs-c2c_ring."
				      "perf.data", &m), 0);
	assert_int_equal(m.samples, 27447);
	assert_int_equal(m.loads, 6078);
	assert_int_equal(m.stores, 1078);
	assert_int_equal(m.with_addr, 5855);
	/*
	 * the levels of the loads' data sources sum to c2c's 6,078 loads;
	 * c2c counts 1,047 of them as "no mapping" before their level (a
	 * data address outside every map), so it has fewer L1D hits and
	 * remote HITMs; L2 and DRAM agree
	 */
	assert_int_equal(m.level[ST_LVL_L1], 6065);
	assert_int_equal(m.level[ST_LVL_L2], 4);
	assert_int_equal(m.level[ST_LVL_REMOTE], 7);
	assert_int_equal(m.level[ST_LVL_RAM], 2);
	assert_int_equal(m.level[ST_LVL_L1] + m.level[ST_LVL_L2] +
			 m.level[ST_LVL_REMOTE] + m.level[ST_LVL_RAM], 6078);
	assert_int_equal(m.hitm, 3);		/* c2c's Load Remote HITM */
	ln = st_mem_top_line(&m);
	assert_non_null(ln);
	assert_int_equal(ln->line, 0x624b89b17180ULL);
	assert_int_equal(ln->hitm, 2);
	assert_int_equal(st_line_sharing(ln), ST_TRUE_SHARING);
	st_mem_free(&m);
}

/*
 * The module-switch check's comparison, live where it can be: a
 * system-wide recording with the kernel's TIDs and its SWITCH_CPU_WIDE
 * records (pebs-shim record -a --switch-events; root) replayed through
 * st_switch_agree: the check's rule holds (>= 99 % of >= 100 agree: a
 * sample taken as its CPU switches may fall on the other side, which
 * happens about once in a few runs here). Skipped without the build's
 * pebs-shim or -a.
 */
/* the build's file @name (PEBS_BUILD's, else build/) into @buf */
static void built(char *buf, size_t len, const char *name)
{
	const char *b = getenv("PEBS_BUILD");

	snprintf(buf, len, "%s/%s", b ? b : "build", name);
}

/* @argv (a pebs-shim record into @path, a mkstemp template made here)
   run; the test skipped when it fails (nothing built, or not allowed) */
static void record_or_skip(char *const argv[], char *path)
{
	struct st_run *run = malloc(sizeof(*run));
	int fd = mkstemp(path), status;

	assert_non_null(run);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(st_spawn(argv, 60, run), 0);
	status = run->status;
	free(run);
	if (status) {
		unlink(path);
		skip();
	}
}

static void test_switch_agree(void **state)
{
	char tool[1024], path[] = "/tmp/test-selftest-sw.XXXXXX";
	char *argv[] = { tool, "record", "-a", "--attr", "tid",
			 "--switch-events", "-e", "cpu-clock", "-c", "100000",
			 "-q", "-o", path, "--", tool, "test", "--workload",
			 "true-share", NULL };
	struct pebs_attrib_stats st;

	(void)state;
	built(tool, sizeof(tool), "pebs-shim");
	record_or_skip(argv, path);	/* -a may not be allowed */
	assert_int_equal(st_switch_agree(path, &st), 0);
	if (!st_switch_ok(&st))
		fail_msg("%llu samples: %llu agree, %llu disagree",
			 (unsigned long long)st.samples,
			 (unsigned long long)st.agree,
			 (unsigned long long)st.disagree);
	st.agree = 98;
	st.disagree = 2;
	assert_false(st_switch_ok(&st));	/* 98 % */
	st.agree = 99;
	st.disagree = 0;
	assert_false(st_switch_ok(&st));	/* fewer than 100 */
	st.agree = 990;
	st.disagree = 10;
	assert_true(st_switch_ok(&st));
	assert_int_equal(st_switch_agree("/nonexistent.data", &st), -ENOENT);
	unlink(path);
}

static void test_scan_errors(void **state)
{
	struct st_mem m;

	(void)state;
	assert_int_equal(scan_fixture("no-such.perf.data", &m), -ENOENT);
	st_mem_free(&m);
}

static void count_scan(void *arg, const struct pebs_sample *s)
{
	uint64_t *n = arg;

	n[0]++;
	n[1] += (s->present & PERF_SAMPLE_IDENTIFIER) &&
		s->id == PEBS_CYCLE_ID;
}

/*
 * The scans see the workload's samples only: a budgeted recording in a
 * duty cycle (page faults counted cost far more than 0.5 %) holds the
 * cycles' starts too, samples of PEBS_CYCLE_EVENT, whose periods (the
 * cycles' lengths, ns) the budget check once summed as faults. Skipped
 * without the build's pebs-shim and bench/faults.
 */
static void test_scan_skips_cycles(void **state)
{
	char tool[1024], faults[1024], path[] = "/tmp/test-selftest-cy.XXXXXX";
	char *argv[] = { tool, "record", "-q", "-e", "page-faults", "-d",
			 "--budget", "0.5%", "-o", path, "--", faults, "600000",
			 NULL };
	const struct perf_event_header *ev;
	struct pebs_perfdata *pd;
	uint64_t n[2] = { 0 }, all = 0;

	(void)state;
	built(tool, sizeof(tool), "pebs-shim");
	built(faults, sizeof(faults), "bench/faults");
	record_or_skip(argv, path);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_true(pebs_perfdata__cycle_event(pd) >= 0);
	while (pebs_perfdata__next(pd, &ev) > 0)
		all += ev->type == PERF_RECORD_SAMPLE;
	pebs_perfdata__close(pd);
	assert_int_equal(st_scan(path, count_scan, n), 0);
	assert_true(n[0] > 0 && n[0] < all);	/* cycles in the file ... */
	assert_int_equal(n[1], 0);		/* ... none scanned */
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_synthetic_chase),
		cmocka_unit_test(test_synthetic_sharing),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_fixture_skx),
		cmocka_unit_test(test_fixture_zen4),
		cmocka_unit_test(test_scan_errors),
		cmocka_unit_test(test_switch_agree),
		cmocka_unit_test(test_scan_skips_cycles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
