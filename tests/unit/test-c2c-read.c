// SPDX-License-Identifier: MIT
/*
 * test-c2c-read.c - pebs_c2c__read_perfdata on the real fixtures (AMD
 * Zen 4 IBS perf c2c recording, Intel SKX load latency): the counters
 * perf c2c report --stdio (perf 6.1) prints, the lines it shows, and
 * perf's line keys; a damaged record.
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
#include "core/internal.h"

struct seen {
	unsigned int n;
	struct pebs_c2c_line line[16];
	struct pebs_c2c *c;
	bool found;
};

static int see_line(const struct pebs_c2c_line *l, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 16);
	assert_int_equal(l->rank, s->n);
	s->line[s->n++] = *l;
	return 0;
}

/* the Intel line at 0x4e7ca80: /sbin/... data, file offset 0x487ca80 */
static int see_key(const struct pebs_c2c_line *l, void *arg)
{
	struct seen *s = arg;
	struct pebs_c2c_dkey k;

	s->n++;
	if (l->addr != 0x4e7ca80)
		return 0;
	assert_int_equal(pebs_c2c__line_key(s->c, l->id, &k), 0);
	assert_true(k.has_map && !k.by_pid && k.maj == 8 && k.min == 1 &&
		    k.ino == 265285 && k.cpumode == PERF_RECORD_MISC_USER);
	assert_int_equal(k.al_addr, 0x487ca80);
	s->found = true;
	return 0;
}

static void *load_fixture(const char *name, size_t *size)
{
	const char *src = getenv("PEBS_SRC");
	char path[4096];
	FILE *f;
	void *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".",
		 name);
	f = fopen(path, "rb");
	if (!f)
		print_error("%s: cannot open (set PEBS_SRC to the source tree)\n",
			    path);
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static struct pebs_c2c *read_fixture(const void *buf, size_t size, int ret)
{
	struct pebs_perfdata *pd;
	struct pebs_symbols *syms;
	struct pebs_c2c *c;
	uint64_t bad = 1;

	assert_int_equal(pebs_perfdata__from_memory(buf, size, &pd), 0);
	assert_int_equal(pebs_symbols__new(&syms), 0);
	assert_int_equal(pebs_c2c__new(&c), 0);
	assert_int_equal(pebs_c2c__read_perfdata(c, pd, syms, &bad), ret);
	assert_int_equal(bad, 0);
	pebs_symbols__delete(syms);
	pebs_perfdata__close(pd);
	return c;
}

/*
 * The numbers perf c2c report --stdio (perf 6.1) prints for the
 * fixtures (the AMD one from a copy with its attrs cut to 128 bytes,
 * which perf 6.1 needs): "No Page Map Rejects" needs the time order and
 * the data mappings, the rest the decode rules.
 */
static void test_read_fixtures(void **state)
{
	const struct pebs_c2c_stats *st;
	struct seen s = { .n = 0 };
	struct pebs_c2c_dkey k;
	struct pebs_c2c *c;
	size_t size;
	void *buf;

	(void)state;
	buf = load_fixture("amd-zen4-epyc9254_ibs-c2c_ring.perf.data", &size);
	c = read_fixture(buf, size, 0);
	st = pebs_c2c__stats(c);
	assert_int_equal(st->nr_entries, 27447);
	assert_int_equal(st->load, 6078);
	assert_int_equal(st->ld_noadrs, 1047);
	assert_int_equal(st->ld_l1hit, 5018);
	assert_int_equal(st->rmt_hitm, 3);
	assert_int_equal(st->lcl_dram, 2);
	assert_int_equal(st->store, 1078);
	assert_int_equal(st->st_noadrs, 254);
	assert_int_equal(st->st_l1hit, 379);
	assert_int_equal(st->st_na, 80);
	assert_int_equal(st->nomap, 53);
	assert_int_equal(st->noparse, 20291);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 2);
	assert_int_equal(pebs_c2c__for_each_line(c, false, see_line, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.line[0].addr, 0x624b89b17180ULL);
	assert_int_equal(s.line[0].stats.rmt_hitm, 2);
	assert_int_equal(pebs_c2c_stats__records(&s.line[0].stats), 124);
	assert_int_equal(s.line[1].addr, 0xff3b73af50bb3200ULL);
	/* HEADER_MEM_TOPOLOGY: node 0; perf's PA cnt 1 */
	assert_int_equal(s.line[0].nodes, 1);
	assert_int_equal(s.line[0].phys_addrs, 1);
	/* perf's keys: bash's private anonymous memory (MMAP v1: no dso
	 * id), by pid; the kernel's direct map, in no kernel mapping */
	assert_int_equal(pebs_c2c__line_key(c, s.line[0].id, &k), 0);
	assert_true(k.has_map && k.by_pid && k.pid == 1258661 &&
		    k.cpumode == PERF_RECORD_MISC_USER && k.level == '.');
	assert_int_equal(k.al_addr, 0x624b89b17180ULL);
	assert_int_equal(pebs_c2c__line_key(c, s.line[1].id, &k), 0);
	assert_true(!k.has_map && !k.by_pid && k.level == 'X' &&
		    k.cpumode == PERF_RECORD_MISC_KERNEL);
	pebs_c2c__delete(c);
	free(buf);

	buf = load_fixture("intel-skx-xeon8173M_ldlat64_weight-struct.perf.data",
			   &size);
	c = read_fixture(buf, size, 0);
	s.c = c;
	st = pebs_c2c__stats(c);
	assert_int_equal(st->nr_entries, 14);
	assert_int_equal(st->locks, 2);
	assert_int_equal(st->ld_fbhit, 5);
	assert_int_equal(st->ld_l1hit, 4);
	assert_int_equal(st->ld_l2hit, 1);
	assert_int_equal(st->ld_llchit, 4);
	assert_int_equal(st->nomap, 9);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 0);
	/* a user address in a private file mapping (dso id 08:01 ino
	 * 265285): keyed without the pid, by its file offset */
	s.n = 0;
	assert_int_equal(pebs_c2c__for_each_line(c, true, see_key, &s), 0);
	assert_int_equal(s.n, 14);
	assert_true(s.found);
	pebs_c2c__delete(c);
	free(buf);
}

/* A record size made 4 bytes too long: the samples before it count. */
static void test_read_damaged(void **state)
{
	struct pebs_perf_file_header h;
	struct perf_event_header eh;
	struct pebs_c2c *c;
	size_t size, at, i;
	unsigned char *buf;

	(void)state;
	buf = load_fixture("amd-zen4-epyc9254_ibs-c2c_ring.perf.data", &size);
	memcpy(&h, buf, sizeof(h));
	at = h.data.offset;
	for (i = 0; i < 5000; i++) {
		memcpy(&eh, buf + at, sizeof(eh));
		at += eh.size;
	}
	memcpy(&eh, buf + at, sizeof(eh));
	eh.size += 4;
	memcpy(buf + at, &eh, sizeof(eh));
	c = read_fixture(buf, size, -EBADMSG);
	assert_true(pebs_c2c__stats(c)->nr_entries > 1000);
	assert_true(pebs_c2c__stats(c)->nr_entries < 27447);
	assert_int_equal(pebs_c2c__read_perfdata(NULL, NULL, NULL, NULL),
			 -EINVAL);
	pebs_c2c__delete(c);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_fixtures),
		cmocka_unit_test(test_read_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
