// SPDX-License-Identifier: MIT
/*
 * test-plot.c - the per-CPU timeline (lib/plot/plot-timeline.c) and the data
 * heat map (lib/plot/heat.c, plot-heat.c): segments from switch records (a
 * thread on the CPU since before the recording, a thread switched in and out),
 * else from the samples' threads, and the title saying which; the
 * density; heat rows by (process, granule), hottest first, samples out
 * of time order, the granule's check; the same input, the same bytes;
 * data labels (lib/report/data-label.c) as the report's dso_daddr and
 * symbol_daddr words, and heat rows named by them.
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
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"

#define MS	1000000ULL

static char *cpuplot_svg(struct pebs_cpuplot *tl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(pebs_cpuplot__write_svg(tl, NULL, m, "T", "sub", 0),
			 0);
	fclose(m);
	return buf;
}

static unsigned int count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static void sample(struct pebs_cpuplot *tl, uint32_t cpu, uint64_t t,
		   int32_t tid)
{
	struct pebs_sample s = { .present = PERF_SAMPLE_TIME |
				 PERF_SAMPLE_CPU, .time = t, .cpu = cpu };
	struct pebs_report_sample rs = { .pid = tid, .tid = tid, .cpu = cpu };

	assert_int_equal(pebs_cpuplot__add_sample(tl, &s, &rs), 0);
}

static void test_switches(void **state)
{
	struct pebs_cpuplot *tl;
	char *a, *b;

	(void)state;
	assert_int_equal(pebs_cpuplot__new(&tl), 0);
	/* CPU 0: 100 ran from the start, out at 40 ms; 200 in 50-100 ms */
	assert_int_equal(pebs_cpuplot__add_switch(tl, 0, 0, 100, 100, false),
			 0);
	assert_int_equal(pebs_cpuplot__add_switch(tl, 0, 40 * MS, 100, 100,
						  true), 0);
	assert_int_equal(pebs_cpuplot__add_switch(tl, 0, 50 * MS, 200, 200,
						  false), 0);
	assert_int_equal(pebs_cpuplot__add_switch(tl, 0, 100 * MS, 200, 200,
						  true), 0);
	/* CPU 3: 300 was running before the recording: only its out */
	assert_int_equal(pebs_cpuplot__add_switch(tl, 3, 30 * MS, 300, 300,
						  true), 0);
	/* CPU 5: 400 in 10-20 ms, then 500 out at 30 ms without an in: it
	   ran since the CPU's previous switch (20 ms), not the start; a
	   tid of -1 (the kernel's "none") is no thread */
	assert_int_equal(pebs_cpuplot__add_switch(tl, 5, 10 * MS, 400, 400,
						  false), 0);
	assert_int_equal(pebs_cpuplot__add_switch(tl, 5, 20 * MS, 400, 400,
						  true), 0);
	assert_int_equal(pebs_cpuplot__add_switch(tl, 5, 30 * MS, 500, 500,
						  true), 0);
	assert_int_equal(pebs_cpuplot__add_switch(tl, 5, 35 * MS, 500, -1,
						  true), 0);
	sample(tl, 0, 10 * MS, 100);
	sample(tl, 0, 60 * MS, 200);
	assert_true(pebs_cpuplot__has_switches(tl));
	a = cpuplot_svg(tl);
	b = cpuplot_svg(tl);
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "T: thread segments from PERF_RECORD_SWITCH"));
	assert_non_null(strstr(a, ">CPU 0</text>"));
	assert_non_null(strstr(a, ">CPU 3</text>"));
	assert_null(strstr(a, ">CPU 1</text>"));
	/* one segment per thread: 100 then 200 on CPU 0, 300 on CPU 3,
	   400 and 500 on CPU 5 */
	assert_int_equal(count(a, "<rect class=\"seg\""), 5);
	assert_non_null(strstr(a, "CPU 5: :400, 9.9"));
	assert_non_null(strstr(a, "CPU 5: :500, 20.0"));
	assert_null(strstr(a, ":-1"));
	assert_non_null(strstr(a, "CPU 0: :100, 0.000-"));
	assert_non_null(strstr(a, "CPU 3: :300, 0.000-"));
	/* 200's segment starts at 50 ms (columns of 100 ms / 555) */
	assert_non_null(strstr(a, "CPU 0: :200, 49.9"));
	/* two density marks */
	assert_int_equal(count(a, "opacity=\"0.35\""), 2);
	assert_non_null(strstr(a, "0 ms</text>"));
	free(a);
	free(b);
	pebs_cpuplot__delete(tl);
}

static void test_samples_only(void **state)
{
	struct pebs_cpuplot *tl;
	struct pebs_sample s = { .present = PERF_SAMPLE_TIME, .time = 5 };
	struct pebs_report_sample rs = { 0 };
	unsigned int i;
	char *a;

	(void)state;
	assert_int_equal(pebs_cpuplot__new(&tl), 0);
	/* no CPU: not placeable */
	assert_int_equal(pebs_cpuplot__add_sample(tl, &s, &rs), 0);
	for (i = 0; i < 100; i++)
		sample(tl, 1, i * MS, i < 50 ? 7 : 8);
	assert_false(pebs_cpuplot__has_switches(tl));
	a = cpuplot_svg(tl);
	assert_non_null(strstr(a, "thread segments from sample TIDs"));
	assert_int_equal(count(a, "<rect class=\"seg\""), 2);
	assert_non_null(strstr(a, "CPU 1: :7, 0.000-"));
	assert_non_null(strstr(a, ":8 (4"));	/* legend: 8 has ~half */
	free(a);
	pebs_cpuplot__delete(tl);
	assert_int_equal(pebs_cpuplot__new(NULL), -EINVAL);
	pebs_cpuplot__delete(NULL);
}

static void heat_add(struct pebs_heat *h, uint64_t t, int32_t pid,
		     uint64_t addr, uint64_t v, const char *obj)
{
	struct pebs_report_sample rs = { .pid = pid, .tid = pid,
					 .has_addr = true, .addr = addr,
					 .data_dso = obj };

	assert_int_equal(pebs_heat__add(h, t, &rs, v), 0);
}

static void test_heat(void **state)
{
	struct pebs_report_sample none = { .pid = 1 };
	struct pebs_heat *h;
	char *buf = NULL, *p, *q;
	size_t len = 0;
	FILE *m;
	int i;

	(void)state;
	assert_int_equal(pebs_heat__new(100, 0, 1, &h), -EINVAL);
	assert_int_equal(pebs_heat__new(4096, 0, 120 * MS, &h), 0);
	heat_add(h, 0, 1, 0x1000, 1, "[heap]");
	heat_add(h, 1 * MS, 1, 0x1fff, 1, NULL);	/* same page */
	heat_add(h, 2 * MS, 2, 0x1000, 1, NULL);	/* another process */
	for (i = 0; i < 5; i++)
		heat_add(h, (uint64_t)(110 - i * 20) * MS, 1, 0x7000, 2,
			 "[stack]");	/* out of order: buckets sorted */
	assert_int_equal(pebs_heat__add(h, 0, &none, 1), 0);	/* no addr */
	assert_int_equal(pebs_heat__nr_rows(h), 3);
	m = open_memstream(&buf, &len);
	assert_int_equal(pebs_heat__write_svg(h, m, "H", NULL, 0), 0);
	fclose(m);
	/* hottest first: 0x7000 (10), then 0x1000 of pid 1 (2), pid 2 */
	p = strstr(buf, "0x000000007000 [stack]");
	q = strstr(buf, "0x000000001000 [heap]");
	assert_non_null(p);
	assert_non_null(q);
	assert_true(p < q);
	assert_non_null(strstr(buf, ">76.92%</text>"));	/* 10 / 13 */
	assert_non_null(strstr(buf, ">15.38%</text>"));
	/* five cells of the stack row, two of the heap row, one pid 2 */
	assert_int_equal(count(buf, "<rect class=\"c\""), 8);
	assert_non_null(strstr(buf, "pid 2, 2.000-3.000 ms: 1"));
	assert_non_null(strstr(buf, "all 3 rows drawn"));
	free(buf);
	pebs_heat__delete(h);
}

static void test_heat_many(void **state)
{
	struct pebs_heat *h;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int i;

	(void)state;
	assert_int_equal(pebs_heat__new(64, 0, 0, &h), 0);
	for (i = 0; i < 100; i++)
		heat_add(h, 0, 1, (uint64_t)i * 64, (uint64_t)i + 1, NULL);
	m = open_memstream(&buf, &len);
	assert_int_equal(pebs_heat__write_svg(h, m, NULL, NULL, 0), 0);
	fclose(m);
	/* 48 rows drawn: the hottest (99) first, 52 left in one line */
	assert_non_null(strstr(buf, "0x0000000018c0 [unknown]"));
	assert_null(strstr(buf, "0x000000000000 [unknown]"));
	assert_non_null(strstr(buf, "52 more rows"));
	free(buf);
	pebs_heat__delete(h);
}

/* A data object whose name the label must give. */
__attribute__((used)) int pebs_plot_data_var[16] = { 1 };

/* feed a data MMAP2 record of @pid to @syms */
static void data_map(struct pebs_symbols *syms, uint32_t pid, uint64_t start,
		     uint64_t len, uint64_t pgoff, const char *name)
{
	uint64_t buf[(PATH_MAX + 256) / 8];

	t_make_mmap2(buf, pid, start, len, pgoff, PROT_READ | PROT_WRITE,
		     PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, name);
	assert_int_equal(pebs_symbols__add_record(syms,
		(const struct perf_event_header *)buf), 0);
}

/* this binary's mapping of /proc/self/maps holding @addr */
static void self_data_map(struct pebs_symbols *syms, uint32_t pid,
			  uint64_t addr, const char **base)
{
	static char exe[PATH_MAX];
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool found = false;

	assert_non_null(f);
	assert_true(n > 0);
	exe[n] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o;

		if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &o) == 3 &&
		    addr >= s && addr < e) {
			data_map(syms, pid, s, e - s, o, exe);
			found = true;
		}
	}
	fclose(f);
	assert_true(found);
	*base = strrchr(exe, '/') + 1;
}

static void test_data_label(void **state)
{
	uint64_t addr = (uintptr_t)&pebs_plot_data_var[3];
	struct pebs_symbols *syms;
	struct pebs_sym sym;
	char buf[256], want[256];
	const char *base;
	int n;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	data_map(syms, 900, 0x10000000, 0x21000, 0, "[heap]");
	data_map(syms, 900, 0x7ff000000000, 0x21000, 0, "[stack]");
	data_map(syms, 900, 0x20000000, 0x10000, 0x20000000, "//anon");
	data_map(syms, 900, 0x30000000, 0x10000, 0x3000,
		 "/nonexistent/libx.so");
	assert_int_equal(pebs_symbols__data_label(syms, 900, 0x10000040, buf,
						  sizeof(buf)), 6);
	assert_string_equal(buf, "[heap]");
	pebs_symbols__data_label(syms, 900, 0x7ff000000100, buf, sizeof(buf));
	assert_string_equal(buf, "[stack:900]");
	pebs_symbols__data_label(syms, 900, 0x20000100, buf, sizeof(buf));
	assert_string_equal(buf, "anon");
	pebs_symbols__data_label(syms, 900, 0x30000010, buf, sizeof(buf));
	assert_string_equal(buf, "libx.so+0x3010");
	pebs_symbols__data_label(syms, 900, 0x40000000, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	pebs_symbols__data_label(syms, 901, 0x10000040, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	/* a data symbol: this binary's file offset, the symbol and offset,
	   as report's symbol_daddr says it */
	self_data_map(syms, 900, addr, &base);
	assert_int_equal(pebs_symbols__resolve_data(syms, 900, addr, &sym), 0);
	snprintf(want, sizeof(want), "%s+0x%llx pebs_plot_data_var+0xc", base,
		 (unsigned long long)sym.dso_offset);
	n = pebs_symbols__data_label(syms, 900, addr, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
	/* cut as snprintf cuts: the full length returned */
	assert_int_equal(pebs_symbols__data_label(syms, 900, addr, buf, 8), n);
	assert_int_equal(strlen(buf), 7);
	assert_int_equal(pebs_symbols__data_label(NULL, 900, addr, buf, 8),
			 -EINVAL);
	assert_int_equal(pebs_symbols__data_label(syms, 900, addr, buf, 0),
			 -EINVAL);
	pebs_symbols__delete(syms);
}

/* heat rows named by the resolver at their first sample */
static void test_heat_labels(void **state)
{
	struct pebs_symbols *syms;
	struct pebs_heat *h;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	data_map(syms, 900, 0x7ff000000000, 0x21000, 0, "[stack]");
	assert_int_equal(pebs_heat__new(4096, 0, 10 * MS, &h), 0);
	assert_int_equal(pebs_heat__set_symbols(NULL, syms), -EINVAL);
	assert_int_equal(pebs_heat__set_symbols(h, syms), 0);
	heat_add(h, 0, 900, 0x7ff000000100, 2, "[stack]");
	heat_add(h, 1 * MS, 900, 0x7ff000000200, 1, "[stack]");
	heat_add(h, 2 * MS, 900, 0x50000000, 1, NULL);	/* nowhere */
	/* the stack unmapped: the row keeps the name of its first sample */
	data_map(syms, 900, 0x7ff000000000, 0x21000, 0, "//anon");
	heat_add(h, 3 * MS, 900, 0x7ff000000300, 1, "[stack]");
	m = open_memstream(&buf, &len);
	assert_int_equal(pebs_heat__write_svg(h, m, "H", NULL, 0), 0);
	fclose(m);
	assert_non_null(strstr(buf, ">0x7ff000000000 [stack:900]</text>"));
	assert_non_null(strstr(buf, ">0x000050000000 [unknown]</text>"));
	assert_int_equal(count(buf, "[stack:900]"), 1 + 3);	/* + cells */
	free(buf);
	pebs_heat__delete(h);
	pebs_symbols__delete(syms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switches),
		cmocka_unit_test(test_samples_only),
		cmocka_unit_test(test_heat),
		cmocka_unit_test(test_heat_many),
		cmocka_unit_test(test_data_label),
		cmocka_unit_test(test_heat_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
