// SPDX-License-Identifier: MIT
/*
 * test-heat-ranges.c - the heat map's range view (lib/plot/heat.c,
 * heat-ranges.c, plot-heat.c) on synthetic samples over a few mappings
 * (MMAP2 data records: anonymous memory, [heap], a file, [stack]): rows
 * are the mappings, trimmed to the pages touched, in address order,
 * labelled with start, size and name, their shares summing to 100 %; a
 * mapping whose density differs is split (a hot head, a cold middle),
 * one whose density is even stays whole, pieces alike are merged; two
 * arrays in one mapping, each touched by its own thread, are two rows
 * named by their threads; data objects (record --objects) in one
 * mapping, evenly touched by one thread, are a row each named by the
 * object without its "(file:line)", unnamed pages beside them apart,
 * a small object too; the
 * row count is bounded (the coldest summed in one line); the same
 * samples give the same bytes; --range by addresses and by a mapping's
 * name, and a bad range's error.
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
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"

#define MS	1000000ULL
#define PG	4096ULL
#define PID	900

static void data_map(struct pebs_symbols *syms, uint64_t start,
		     uint64_t pages, uint64_t pgoff, const char *name)
{
	uint64_t buf[(PATH_MAX + 256) / 8];

	t_make_mmap2(buf, PID, start, pages * PG, pgoff,
		     PROT_READ | PROT_WRITE,
		     PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, name);
	assert_int_equal(pebs_symbols__add_record(syms,
		(const struct perf_event_header *)buf), 0);
}

/* @value at page @page of @base, at time @ms */
static void touch(struct pebs_heat *h, uint64_t base, uint64_t page,
		  uint64_t value, uint64_t ms)
{
	struct pebs_report_sample rs = { .pid = PID, .tid = PID,
					 .has_addr = true,
					 .addr = base + page * PG + 8 };

	assert_int_equal(pebs_heat__add(h, ms * MS, &rs, value), 0);
}

static char *draw(struct pebs_heat *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(pebs_heat__write_svg(h, m, "H", NULL, 0), 0);
	fclose(m);
	return buf;
}

struct rows {
	char label[64][128];
	double share[64], sum;
	unsigned int n;
};

/* The rows' labels ("0x..." at x 6) and shares, top to bottom. */
static void rows_of(const char *svg, struct rows *r)
{
	const char *p = svg, *e;

	memset(r, 0, sizeof(*r));
	while ((p = strstr(p, "<text x=\"6.0\" y=\""))) {
		p = strchr(p, '>') + 1;
		e = strstr(p, "</text>");
		if (strncmp(p, "0x", 2)) {
			p = e;
			continue;
		}
		assert_true(r->n < 64);
		snprintf(r->label[r->n], sizeof(r->label[0]), "%.*s",
			 (int)(e - p), p);
		/* the share is the next text ending in '%' */
		p = strstr(e, "%</text>");
		assert_non_null(p);
		e = p;
		while (e > svg && e[-1] != '>')
			e--;
		r->share[r->n] = strtod(e, NULL);
		r->sum += r->share[r->n];
		r->n++;
	}
}

static struct pebs_symbols *four_maps(void)
{
	struct pebs_symbols *syms;

	assert_int_equal(pebs_symbols__new(&syms), 0);
	data_map(syms, 0x10000000, 64, 0, "//anon");
	data_map(syms, 0x20000000, 16, 0, "[heap]");
	data_map(syms, 0x30000000, 8, 0x1000, "/usr/lib/libfoo.so");
	data_map(syms, 0x7ff000000000, 32, 0, "[stack]");
	return syms;
}

static struct pebs_heat *ranges(struct pebs_symbols *syms,
				unsigned int max_rows)
{
	struct pebs_heat *h;

	assert_int_equal(pebs_heat__new(PG, 0, 100 * MS, &h), 0);
	assert_int_equal(pebs_heat__set_symbols(h, syms), 0);
	assert_int_equal(pebs_heat__set_ranges(h, max_rows), 0);
	return h;
}

static void fill_four(struct pebs_heat *h)
{
	uint64_t i;

	for (i = 0; i < 64; i++)		/* anon: even, 64 */
		touch(h, 0x10000000, i, 1, i);
	for (i = 0; i < 16; i++)		/* heap: even, 64 */
		touch(h, 0x20000000, i, 4, 50);
	touch(h, 0x30000000, 2, 3, 10);		/* file: pages 2-3, 6 */
	touch(h, 0x30000000, 3, 3, 90);
	touch(h, 0x7ff000000000, 30, 5, 5);	/* stack: the top, 10 */
	touch(h, 0x7ff000000000, 31, 5, 6);
}

static void test_rows_are_mappings(void **state)
{
	struct pebs_symbols *syms = four_maps();
	struct pebs_heat *h = ranges(syms, 0);
	struct rows r;
	char *a, *b;

	(void)state;
	fill_four(h);
	a = draw(h);
	rows_of(a, &r);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.label[0], "0x000010000000 256 KiB anon");
	assert_string_equal(r.label[1], "0x000020000000 64 KiB [heap]");
	assert_string_equal(r.label[2], "0x000030002000 8 KiB libfoo.so+0x3000");
	assert_string_equal(r.label[3], "0x7ff00001e000 8 KiB [stack:900]");
	/* 64, 64, 6, 10 of 144 */
	assert_true(r.share[0] == 44.44 && r.share[1] == 44.44);
	assert_true(r.share[2] == 4.17 && r.share[3] == 6.94);
	assert_true(r.sum > 99.98 && r.sum < 100.02);
	assert_non_null(strstr(a, "all 4 ranges drawn"));
	/* a cell's tooltip: the range, the mapping, value per page */
	assert_non_null(strstr(a, "0x30002000-0x30004000 (8 KiB) "
			       "libfoo.so+0x3000, of the mapping "
			       "0x30000000-0x30008000, pid 900, "
			       "10.000-10.833 ms: 3 (1.5 per page)"));
	/* deterministic */
	b = draw(h);
	assert_string_equal(a, b);
	free(a);
	free(b);
	pebs_heat__delete(h);
	pebs_symbols__delete(syms);
}

static void test_split_merge(void **state)
{
	struct pebs_symbols *syms;
	struct pebs_heat *h;
	struct rows r;
	uint64_t i;
	char *a;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	data_map(syms, 0x40000000, 100, 0, "//anon");	/* hot head */
	data_map(syms, 0x50000000, 100, 0, "//anon");	/* even enough */
	data_map(syms, 0x60000000, 30, 0, "//anon");	/* cold middle */
	data_map(syms, 0x70000000, 30, 0, "//anon");	/* 4, 6, 40 */
	h = ranges(syms, 0);
	for (i = 0; i < 100; i++) {
		touch(h, 0x40000000, i, i < 20 ? 10 : 1, i);
		touch(h, 0x50000000, i, i < 50 ? 4 : 5, i);
	}
	for (i = 0; i < 30; i++) {
		touch(h, 0x60000000, i, i / 10 == 1 ? 1 : 10, i);
		touch(h, 0x70000000, i, i < 10 ? 4 : i < 20 ? 6 : 40, i);
	}
	a = draw(h);
	rows_of(a, &r);
	assert_int_equal(r.n, 2 + 1 + 3 + 2);
	/* split where the density drops tenfold */
	assert_string_equal(r.label[0], "0x000040000000 80 KiB anon");
	assert_string_equal(r.label[1], "0x000040014000 320 KiB anon");
	/* 4 and 5 a page: one range */
	assert_string_equal(r.label[2], "0x000050000000 400 KiB anon");
	/* hot, cold, hot */
	assert_string_equal(r.label[3], "0x000060000000 40 KiB anon");
	assert_string_equal(r.label[4], "0x00006000a000 40 KiB anon");
	assert_string_equal(r.label[5], "0x000060014000 40 KiB anon");
	/* 4 and 6 split apart on the way to 40, then merged */
	assert_string_equal(r.label[6], "0x000070000000 80 KiB anon");
	assert_string_equal(r.label[7], "0x000070014000 40 KiB anon");
	assert_true(r.sum > 99.98 && r.sum < 100.02);
	free(a);
	pebs_heat__delete(h);
	pebs_symbols__delete(syms);
}

/* two arrays the kernel merged into one mapping (reported when the
   second was mapped, after the first was partly touched), each first
   touched by its own thread: one row each, named by the thread */
static void test_threads(void **state)
{
	struct pebs_symbols *syms;
	struct pebs_heat *h;
	struct rows r;
	uint64_t i;
	char *a;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	/* the first array mapped, its first pages touched; then the
	   second merged with it: one MMAP2 record of both */
	data_map(syms, 0x40000000, 64, 0, "//anon");
	h = ranges(syms, 0);
	for (i = 0; i < 80; i++) {
		struct pebs_report_sample rs = {
			.pid = PID, .tid = i < 64 ? PID + 1 : PID + 2,
			.comm = i < 64 ? "walker" : "streamer",
			.has_addr = true, .addr = 0x40000000 + i * PG,
		};

		if (i == 10)
			data_map(syms, 0x40000000, 80, 0, "//anon");
		assert_int_equal(pebs_heat__add(h, i * MS, &rs, 1), 0);
	}
	/* a page both touch: its own row, no thread named */
	data_map(syms, 0x50000000, 1, 0, "//anon");
	for (i = 0; i < 2; i++) {
		struct pebs_report_sample rs = {
			.pid = PID, .tid = PID + 1 + (int32_t)i,
			.comm = i ? "streamer" : "walker", .has_addr = true,
			.addr = 0x50000000,
		};

		assert_int_equal(pebs_heat__add(h, i * MS, &rs, 1), 0);
	}
	a = draw(h);
	rows_of(a, &r);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.label[0], "0x000040000000 256 KiB anon (walker)");
	assert_string_equal(r.label[1], "0x000040040000 64 KiB anon (streamer)");
	assert_string_equal(r.label[2], "0x000050000000 4 KiB anon");
	free(a);
	pebs_heat__delete(h);
	pebs_symbols__delete(syms);
}

/* @pages pages from @page of @base named @object (NULL: none) */
static void touch_obj(struct pebs_heat *h, uint64_t base, uint64_t page,
		      uint64_t pages, const char *object)
{
	for (uint64_t i = page; i < page + pages; i++) {
		struct pebs_report_sample rs = {
			.pid = PID, .tid = PID, .has_addr = true,
			.addr = base + i * PG, .object = object,
			.object_inst = object,
		};

		assert_int_equal(pebs_heat__add(h, i * MS, &rs, 1), 0);
	}
}

static void test_objects(void **state)
{
	static const char a[] = "alloc_a (x.c:10) <- main";
	static const char b[] = "alloc_b (x.c:20) <- main";
	struct pebs_symbols *syms;
	struct pebs_heat *h;
	struct rows r;
	char *svg;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	data_map(syms, 0x40000000, 200, 0, "//anon");
	h = ranges(syms, 0);
	/* a: 64 pages, b: 64 pages, 8 unnamed, 1 page of b (1 % of the
	   samples would not be split off by density) */
	touch_obj(h, 0x40000000, 0, 64, a);
	touch_obj(h, 0x40000000, 64, 64, b);
	touch_obj(h, 0x40000000, 128, 8, NULL);
	touch_obj(h, 0x40000000, 136, 1, b);
	svg = draw(h);
	rows_of(svg, &r);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.label[0], "0x000040000000 256 KiB alloc_a &lt;- main");
	assert_string_equal(r.label[1], "0x000040040000 256 KiB alloc_b &lt;- main");
	assert_string_equal(r.label[2], "0x000040080000 32 KiB anon");
	assert_string_equal(r.label[3], "0x000040088000 4 KiB alloc_b &lt;- main");
	/* the tooltips name the object in full */
	assert_non_null(strstr(svg, "(256 KiB) alloc_a (x.c:10) &lt;- main, "));
	free(svg);
	pebs_heat__delete(h);
	/* the fine view: each page by its object */
	assert_int_equal(pebs_heat__new(PG, 0, 100 * MS, &h), 0);
	assert_int_equal(pebs_heat__set_symbols(h, syms), 0);
	touch_obj(h, 0x40000000, 0, 2, a);
	svg = draw(h);
	rows_of(svg, &r);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.label[0], "0x000040000000 alloc_a &lt;- main");
	free(svg);
	pebs_heat__delete(h);
	pebs_symbols__delete(syms);
}

static void test_bounded(void **state)
{
	struct pebs_symbols *syms;
	struct pebs_heat *h;
	struct rows r;
	uint64_t i;
	char *a;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	/* 60 one-page mappings, page i with value i + 1: 48 drawn */
	for (i = 0; i < 60; i++)
		data_map(syms, 0x10000000 + i * 2 * PG, 1, 0, "//anon");
	h = ranges(syms, 0);
	for (i = 0; i < 60; i++)
		touch(h, 0x10000000 + i * 2 * PG, 0, i + 1, i);
	a = draw(h);
	rows_of(a, &r);
	assert_int_equal(r.n, 48);
	/* the hottest, in address order: pages 12..59 */
	assert_string_equal(r.label[0], "0x000010018000 4 KiB anon");
	assert_string_equal(r.label[47], "0x000010076000 4 KiB anon");
	/* 1 + ... + 12 = 78 of 1830 */
	assert_non_null(strstr(a, "12 more ranges, 4.26% of the total, "
			       "not drawn"));
	assert_true(r.sum + 4.26 > 99.98 && r.sum + 4.26 < 100.02);
	free(a);
	pebs_heat__delete(h);
	pebs_symbols__delete(syms);
	/* one mapping of ten alternating blocks, at most 4 rows */
	assert_int_equal(pebs_symbols__new(&syms), 0);
	data_map(syms, 0x10000000, 100, 0, "//anon");
	h = ranges(syms, 4);
	for (i = 0; i < 100; i++)
		touch(h, 0x10000000, i, i / 10 % 2 ? 1 : 100, i);
	a = draw(h);
	rows_of(a, &r);
	assert_int_equal(r.n, 4);
	assert_true(r.sum > 99.98 && r.sum < 100.02);
	assert_non_null(strstr(a, "all 4 ranges drawn"));
	free(a);
	assert_int_equal(pebs_heat__set_ranges(h, 4097), -EINVAL);
	assert_int_equal(pebs_heat__set_ranges(NULL, 4), -EINVAL);
	pebs_heat__delete(h);
	pebs_symbols__delete(syms);
}

static void test_range_filter(void **state)
{
	struct pebs_symbols *syms = four_maps();
	struct pebs_heat *h;
	struct rows r;
	char *a;

	(void)state;
	/* by address: the heap's first 4 pages */
	h = ranges(syms, 0);
	assert_int_equal(pebs_heat__set_range(h, "0x20000000-0x20004000"), 0);
	fill_four(h);
	a = draw(h);
	rows_of(a, &r);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.label[0], "0x000020000000 16 KiB [heap]");
	assert_true(r.share[0] == 100.00);
	assert_non_null(strstr(a, "80 samples outside the range left out"));
	free(a);
	pebs_heat__delete(h);
	/* by name, single pages */
	assert_int_equal(pebs_heat__new(PG, 0, 100 * MS, &h), 0);
	assert_int_equal(pebs_heat__set_symbols(h, syms), 0);
	assert_int_equal(pebs_heat__set_range(h, "[stack]"), 0);
	fill_four(h);
	a = draw(h);
	rows_of(a, &r);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.label[0], "0x7ff00001e000 [stack:900]");
	assert_string_equal(r.label[1], "0x7ff00001f000 [stack:900]");
	free(a);
	assert_int_equal(pebs_heat__set_range(h, "libfoo.so"), 0);
	assert_int_equal(pebs_heat__set_range(h, "0x20-0x10"), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "START < END"));
	assert_int_equal(pebs_heat__set_range(h, "0x20+0x10"), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "ADDR-ADDR"));
	assert_int_equal(pebs_heat__set_range(h, ""), -EINVAL);
	pebs_heat__delete(h);
	pebs_symbols__delete(syms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_are_mappings),
		cmocka_unit_test(test_split_merge),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_objects),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_range_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
