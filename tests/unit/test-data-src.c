// SPDX-License-Identifier: MIT
/*
 * test-data-src.c - data_src strings as perf prints them.
 *
 * The values below come from the real recordings in tests/fixtures.
 * Expected strings are what Debian's perf 6.1 `perf script -F data_src`
 * printed for them, except the LVL column: perf 6.1 lists both the old
 * mem_lvl bits and mem_lvl_num ("LFB/MAB or LFB/MAB hit"), perf >= 6.3
 * (and pebs-shim) uses mem_lvl_num when it is set ("LFB/MAB hit").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

static void check_str(uint64_t v, const char *want)
{
	char buf[160];
	int n = pebs_data_src__str(v, buf, sizeof(buf));

	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_intel_fixture_values(void **state)
{
	(void)state;
	check_str(0x11868100242ULL,
		  "|OP LOAD|LVL LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
	check_str(0x10268100142ULL,
		  "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
	check_str(0x1026a100142ULL,
		  "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK Yes|BLK  N/A");
	check_str(0x10468100442ULL,
		  "|OP LOAD|LVL L2 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
	check_str(0x10650100842ULL,
		  "|OP LOAD|LVL L3 hit|SNP None|TLB L2 miss|LCK No|BLK  N/A");
	check_str(0x10668100842ULL,
		  "|OP LOAD|LVL L3 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
}

static void test_amd_fixture_values(void **state)
{
	(void)state;
	check_str(0x1e05080021ULL,
		  "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A");
	check_str(0x229080142ULL,
		  "|OP LOAD|LVL L1 hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A");
	check_str(0x205080142ULL,
		  "|OP LOAD|LVL L1 hit|SNP N/A|TLB N/A|LCK N/A|BLK  N/A");
	check_str(0x429080444ULL,
		  "|OP STORE|LVL L2 hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A");
	check_str(0x1e29080024ULL,
		  "|OP STORE|LVL N/A|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A");
	/* identical in perf 6.1: the mem_hops path */
	check_str(0x83629088042ULL,
		  "|OP LOAD|LVL Remote core, same node Any cache hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A");
	check_str(0x83629808042ULL,
		  "|OP LOAD|LVL Remote core, same node Any cache hit|SNP HitM|TLB L1 hit|LCK N/A|BLK  N/A");
	check_str(0x1a29081042ULL,
		  "|OP LOAD|LVL RAM hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A");
}

static void test_fields(void **state)
{
	struct pebs_data_src d;

	(void)state;
	pebs_data_src__decode(0x83629808042ULL, &d);
	assert_true(d.load);
	assert_false(d.store);
	assert_int_equal(d.level, PEBS_MEM_LVL_ANY_CACHE);
	assert_true(d.remote);
	assert_int_equal(d.hops, 1);
	assert_true(d.hit);
	assert_false(d.miss);
	assert_string_equal(d.snoop, "HitM");

	pebs_data_src__decode(0x10650100842ULL, &d);
	assert_int_equal(d.level, PEBS_MEM_LVL_L3);
	assert_false(d.remote);
	assert_true(d.tlb_miss);
	assert_false(d.locked);

	pebs_data_src__decode(0x1026a100142ULL, &d);
	assert_int_equal(d.level, PEBS_MEM_LVL_L1);
	assert_true(d.locked);
	assert_string_equal(d.lock, "Yes");

	pebs_data_src__decode(0x1e05080021ULL, &d);
	assert_int_equal(d.level, PEBS_MEM_LVL_NA);
	assert_false(d.load || d.store);
	assert_string_equal(d.op, "N/A");
}

/* encodings built from the uapi macros */
static void test_synthetic(void **state)
{
	struct pebs_data_src d;
	uint64_t v;

	(void)state;
	/* snoopx FWD joins the snoop list; blocked data and address */
	v = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L3) |
	    PERF_MEM_S(SNOOP, HIT) | PERF_MEM_S(SNOOPX, FWD) |
	    PERF_MEM_S(TLB, WK) | PERF_MEM_S(TLB, MISS) |
	    PERF_MEM_S(LOCK, NA) | PERF_MEM_S(BLK, DATA) | PERF_MEM_S(BLK, ADDR);
	check_str(v, "|OP LOAD|LVL L3 hit|SNP Hit or Fwd|TLB Walker miss|LCK N/A|BLK  Data Addr");
	/* snoopx alone */
	v = PERF_MEM_S(OP, STORE) | PERF_MEM_S(SNOOPX, FWD) |
	    PERF_MEM_S(SNOOPX, PEER);
	check_str(v, "|OP STORE|LVL N/A|SNP Fwd or Peer|TLB N/A|LCK No|BLK  N/A");
	/* mem_lvl_num + remote + hops: a remote socket's DRAM */
	v = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) |
	    PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(REMOTE, REMOTE) |
	    PERF_MEM_S(HOPS, 2);
	check_str(v, "|OP LOAD|LVL Remote socket, same board RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	pebs_data_src__decode(v, &d);
	assert_int_equal(d.level, PEBS_MEM_LVL_RAM);
	assert_true(d.remote);
	assert_int_equal(d.hops, 3);
	/* numbered levels without a name */
	v = PERF_MEM_S(OP, PFETCH) | PERF_MEM_S(LVL, MISS) |
	    PERF_MEM_S(LVLNUM, L4);
	check_str(v, "|OP PFETCH|LVL L4 miss|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	/* the old bits only: remote DRAM, one hop */
	v = PERF_MEM_S(OP, EXEC) | PERF_MEM_S(LVL, HIT) |
	    PERF_MEM_S(LVL, REM_RAM1) | PERF_MEM_S(SNOOP, MISS) |
	    PERF_MEM_S(LOCK, LOCKED);
	check_str(v, "|OP EXEC|LVL Remote RAM (1 hop) hit|SNP Miss|TLB N/A|LCK Yes|BLK  N/A");
	pebs_data_src__decode(v, &d);
	assert_int_equal(d.level, PEBS_MEM_LVL_RAM);
	assert_true(d.remote);
	/* nothing at all: op 0 prints "No", as perf does */
	check_str(0, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
}

/* a source that says something: not a software event's PERF_MEM_NA */
static void test_known(void **state)
{
	(void)state;
	assert_false(pebs_data_src__known(0));
	/* the kernel's PERF_MEM_NA (include/linux/perf_event.h) */
	assert_false(pebs_data_src__known(PERF_MEM_S(OP, NA) |
					  PERF_MEM_S(LVL, NA) |
					  PERF_MEM_S(SNOOP, NA) |
					  PERF_MEM_S(LOCK, NA) |
					  PERF_MEM_S(TLB, NA)));
	assert_false(pebs_data_src__known(PERF_MEM_S(OP, NA) |
					  PERF_MEM_S(LVLNUM, NA)));
	assert_true(pebs_data_src__known(PERF_MEM_S(OP, LOAD) |
					 PERF_MEM_S(LVL, NA)));
	assert_true(pebs_data_src__known(PERF_MEM_S(OP, NA) |
					 PERF_MEM_S(LVL, HIT) |
					 PERF_MEM_S(LVL, L1)));
	assert_true(pebs_data_src__known(PERF_MEM_S(LVLNUM, RAM)));
	/* the fixtures' first values: an SKX load, a Zen 4 IBS op */
	assert_true(pebs_data_src__known(0x11868100242ULL));
}

static void test_truncation(void **state)
{
	char buf[10];
	int n;

	(void)state;
	n = pebs_data_src__str(0x11868100242ULL, buf, sizeof(buf));
	assert_true(n > (int)sizeof(buf));
	assert_string_equal(buf, "|OP LOAD|");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_fixture_values),
		cmocka_unit_test(test_amd_fixture_values),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
