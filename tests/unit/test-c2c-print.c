// SPDX-License-Identifier: MIT
/*
 * test-c2c-print.c - pebs_c2c__print and pebs_c2c__print_summary on a
 * small synthetic table printed into a memstream: perf c2c report
 * --stdio's rows, the csv (lines and detail) and JSON fields, report's
 * summary rows; an unsorted table and bad options refused. (The whole
 * outputs on real recordings: tests/cli/c2c.t.)
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
#include "helpers.h"

#define LD	PERF_MEM_OP_LOAD
#define ST	PERF_MEM_OP_STORE

static uint64_t src(unsigned int op, unsigned int lvl, unsigned int snoop)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = op;
	d.mem_lvl = lvl;
	d.mem_snoop = snoop;
	return d.val;
}

#define HITM_L	src(LD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3, PERF_MEM_SNOOP_HITM)
#define L1ST	src(ST, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1, 0)

static void add(struct pebs_c2c *c, uint64_t addr, uint64_t ip, uint64_t dsrc,
		uint32_t tid, uint32_t cpu, uint64_t weight)
{
	struct pebs_c2c_sample s = {
		.addr = addr, .ip = ip, .data_src = dsrc, .has_data_src = true,
		.pid = 7, .tid = tid, .cpu = cpu, .weight = weight,
		.mapped = true,
	};

	assert_int_equal(pebs_c2c__add(c, &s), 0);
}

/*
 * Line 0x1000: thread 8 loads offset 0 with local HITMs, thread 9 stores
 * to offset 8: false sharing. Line 0x2000: one thread only, not shown.
 */
static struct pebs_c2c *table(void)
{
	struct pebs_c2c *c;

	assert_int_equal(pebs_c2c__new(&c), 0);
	add(c, 0x1000, 0x400, HITM_L, 8, 0, 100);
	add(c, 0x1000, 0x400, HITM_L, 8, 0, 300);
	add(c, 0x1008, 0x404, L1ST, 9, 1, 0);
	add(c, 0x2000, 0x500, L1ST, 8, 0, 0);
	return c;
}

/* what @c prints with @o (its sz set here), as a string to free */
static char *print(struct pebs_c2c *c, struct pebs_c2c_print_opts o,
		   int want)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	o.sz = sizeof(o);
	assert_int_equal(pebs_c2c__print(c, f, &o), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* @out begins with the string literal @lit */
#define STARTS(out, lit) \
	assert_int_equal(strncmp(out, lit, sizeof(lit) - 1), 0)

static void test_stdio(void **state)
{
	struct pebs_c2c *c = table();
	struct pebs_c2c_print_opts o = { .format = PEBS_C2C_FORMAT_STDIO };
	char *out;

	(void)state;
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 1);
	out = print(c, o, 0);
	T_HAS_LINE(out, "  Total records                     :          4");
	T_HAS_LINE(out, "  Load Local HITM                   :          2");
	T_HAS_LINE(out, "  LLC Misses to Local DRAM          :       -nan%");
	T_HAS_LINE(out, "  Total Shared Cache Lines          :          1");
	T_HAS_LINE(out, "  Total Merged records              :          3");
	/* no file: no events listed */
	assert_non_null(strstr(out, "=\n  Cachelines sort on                : "
				    "Total HITMs\n"));
	T_HAS_LINE(out, "      0              0x1000   N/A       0  100.00%"
		 "        2        2        0        3        2        1"
		 "        1        0        0        0        0        0"
		 "         0        2         0        0         0         0"
		 "    200.0        2  false");
	T_HAS_LINE(out, "      0        0        2        1        0        0"
		 "              0x1000  pid 7, 2 threads, 2 cpus");
	T_HAS_LINE(out, "  sharing: false (different bytes): 7/9 writes offset "
		 "0x8, 7/8 reads offset 0");
	/* no symbols: raw code addresses */
	T_HAS_LINE(out, "            0.00%  100.00%    0.00%    0.00%    0.00%"
		 "    0x00   N/A       0               0x400        0      200"
		 "        0        2      1  [.] 0x0000000000000400  [unknown]");
	T_HAS_LINE(out, "           threads (pid/tid): 7/8(2L,0S,2HITM)");
	T_HAS_LINE(out, "           threads (pid/tid): 7/9(0L,1S)");
	T_HAS_LINE(out, "           cpus: 1(1)");
	/* the line of one thread is not shown */
	assert_null(strstr(out, "0x2000"));
	free(out);

	/* by cross-thread writes: its own table */
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_XWRITES), 1);
	out = print(c, o, 0);
	T_HAS_LINE(out, "  Cachelines sort on                : "
		 "Cross-thread writes");
	T_HAS_LINE(out, "# Index             Address     Pid  Records  Xwrites"
		 " Threads Offsets  Sharing");
	T_HAS_LINE(out, "      0              0x1000       7        3        1"
		 "       2       2  false");
	free(out);
	pebs_c2c__delete(c);
}

static void test_csv(void **state)
{
	struct pebs_c2c *c = table();
	struct pebs_c2c_print_opts o = { .format = PEBS_C2C_FORMAT_CSV };
	char *out;

	(void)state;
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 1);
	out = print(c, o, 0);
	STARTS(out, "rank,addr,pid,nr_entries,locks,");
	assert_non_null(strstr(out, ",cpumode,level,dso,key_pid,al_line\n"
		"0,0x1000,7,3,0,1,0,0,1,0,0,2,0,0,0,0,0,0,0,0,0,0,2,0,2,0,0,"
		"0,0,0,0,0,0,0,0,3,2,0,0,1,200.0,0,\"\",2,2,2,false,7,9,8,7,8,"
		"0,0,,,,,,,U,.,X,7,0000000000001000\n"));
	assert_null(strstr(out, "0x2000"));
	free(out);
	/* every line: the private one last */
	o.show_all = true;
	out = print(c, o, 0);
	assert_non_null(strstr(out, "\n1,0x2000,7,1,"));
	assert_non_null(strstr(out, ",none,,,,,,,0,,,,,,,U,.,X,7,"
				    "0000000000002000\n"));
	free(out);

	o.show_all = false;
	o.format = PEBS_C2C_FORMAT_CSV_DETAIL;
	out = print(c, o, 0);
	STARTS(out, "rank,addr,offset,ip,kernel,symbol,"
				 "object,source,records,unknown,nr_entries,");
	assert_non_null(strstr(out, ",cpus,threads,cpu_samples\n"
		"0,0x1000,0,0x400,0,0x0000000000000400,[unknown],,2,0,2,0,0,0,"
		"0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,2,0,2,0,0,0,0,0,0,0,0,0,0,0.0,"
		"200.0,0.0,0,\"\",1,\"7/8:2:0:0:2\",\"0:2\"\n"
		"0,0x1000,8,0x404,0,0x0000000000000404,[unknown],,1,0,1,0,1,0,"
		"0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.0,"
		"0.0,0.0,0,\"\",1,\"7/9:0:1:0:0\",\"1:1\"\n"));
	free(out);
	pebs_c2c__delete(c);
}

static void test_json(void **state)
{
	struct pebs_c2c *c = table();
	struct pebs_c2c_print_opts o = { .format = PEBS_C2C_FORMAT_JSON,
					 .path = "a\"b.data", .undecoded = 5 };
	char *out;

	(void)state;
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 1);
	out = print(c, o, 0);
	STARTS(out, "{\"file\":\"a\\\"b.data\",\"sort\":"
				 "\"Total HITMs\",\"has_data_src\":true,"
				 "\"undecoded\":5,\"totals\":{\"nr_entries\":4,");
	assert_non_null(strstr(out, "\"shared_lines\":1,"));
	assert_non_null(strstr(out, "\n{\"rank\":0,\"addr\":\"0x1000\","
		"\"pid\":7,\"unknown\":0,\"xwrites\":1,\"mean_load_weight\":"
		"200.0,\"pa_cnt\":0,\"threads\":2,\"cpus\":2,\"sharing\":"
		"\"false\",\"nodes\":[],\"key\":{\"cpumode\":\"U\",\"level\":"
		"\".\",\"dso\":\"X\",\"by_pid\":true,\"pid\":7,\"al_line\":"
		"\"0x1000\"},\"evidence\":{\"a\":{\"pid\":7,\"tid\":9,"
		"\"offset\":8,\"writes\":true},\"b\":{\"pid\":7,\"tid\":8,"
		"\"offset\":0,\"writes\":false}},\"stats\":{"));
	assert_non_null(strstr(out, "\"ips\":[{\"ip\":\"0x400\",\"symbol\":"
		"\"0x0000000000000400\",\"object\":\"[unknown]\",\"source\":"
		"null,\"pa_cnt\":0,\"nodes\":[],\"kernel\":false,\"cpus\":1,"));
	assert_non_null(strstr(out, "\"threads\":[{\"pid\":7,\"tid\":9,"
		"\"loads\":0,\"stores\":1,\"unknown\":0,\"hitm\":0}],\"cpus\":"
		"[{\"cpu\":1,\"samples\":1}]}]}]}\n"));
	free(out);
	/* no path: null */
	o.path = NULL;
	out = print(c, o, 0);
	STARTS(out, "{\"file\":null,\"sort\":");
	free(out);
	pebs_c2c__delete(c);
}

static void test_refused(void **state)
{
	struct pebs_c2c *c = table();
	struct pebs_c2c_print_opts o = { .format = PEBS_C2C_FORMAT_STDIO };
	char *out;

	(void)state;
	/* not sorted yet */
	out = print(c, o, -EINVAL);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 1);
	o.format = (enum pebs_c2c_format)99;
	out = print(c, o, -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "PEBS_C2C_FORMAT_"));
	free(out);
	assert_int_equal(pebs_c2c__print(NULL, stdout, NULL), -EINVAL);
	assert_int_equal(pebs_c2c__print(c, NULL, NULL), -EINVAL);
	assert_int_equal(pebs_c2c__print_summary(c, NULL, NULL, 1), -EINVAL);
	pebs_c2c__delete(c);
}

/* pebs-shim report's section: sorts by HITM itself, cut at @top */
static void test_summary(void **state)
{
	struct pebs_c2c *c = table();
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(pebs_c2c__print_summary(c, f, NULL, 10), 0);
	assert_int_equal(pebs_c2c__print_summary(c, f, NULL, 0), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "# shared cache lines, as perf c2c ranks "
				    "them (by HITM); true sharing"));
	T_HAS_LINE(buf, "rank          cache line  samples   loads  stores   hitm"
		 "  xwrites  threads  offsets  kind        evidence "
		 "(comm/tid@offset)");
	/* no threads: comms "?" */
	T_HAS_LINE(buf, "   0              0x1000        3       2       1      2"
		 "        1        2        2  false       ?/9@8 and ?/8@0");
	T_HAS_LINE(buf, " ...  (more lines: --top to show more)");
	free(buf);
	pebs_c2c__delete(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stdio),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
