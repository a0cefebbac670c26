// SPDX-License-Identifier: MIT
/*
 * test-session.c - the session's c2c feed (pebs_session__set_c2c,
 * lib/c2c/session-c2c.c): on the real fixtures, the sharing table filled in
 * the report's pass equals the one pebs_c2c__read_perfdata fills in a
 * pass of its own (totals, "No Page Map Rejects", every line with its
 * counts, threads, offsets, sharing and perf's line key), and the
 * report's callback sees every sample as before; on a synthetic file of
 * mappings over time, lines are keyed as perf keys them (one MAP_SHARED
 * file page of two processes is one line; an address remapped is a new
 * line) in the shared-only feed too. The session's hooks, which the
 * feed is one of (ss_hook__set), on their own.
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
#include "core/internal.h"
#include "session/session-int.h"

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

static void same_key(struct pebs_c2c *a, const struct pebs_c2c_line *p,
		     struct pebs_c2c *b, const struct pebs_c2c_line *q)
{
	struct pebs_c2c_dkey x, y;

	assert_int_equal(pebs_c2c__line_key(a, p->id, &x), 0);
	assert_int_equal(pebs_c2c__line_key(b, q->id, &y), 0);
	assert_int_equal(x.al_addr, y.al_addr);
	assert_int_equal(x.ino, y.ino);
	assert_int_equal(x.ino_generation, y.ino_generation);
	assert_int_equal(x.maj, y.maj);
	assert_int_equal(x.min, y.min);
	assert_int_equal(x.pid, y.pid);
	assert_int_equal(x.cpumode, y.cpumode);
	assert_int_equal(x.has_map, y.has_map);
	assert_int_equal(x.by_pid, y.by_pid);
	assert_int_equal(x.level, y.level);
}

/* the lines @a and @b show in display @d (@all: every line), and how
 * many */
static size_t same_lines(struct pebs_c2c *a, struct pebs_c2c *b,
			 enum pebs_c2c_display d, bool all)
{
	struct lines *x = calloc(1, sizeof(*x)), *y = calloc(1, sizeof(*y));
	size_t i, n;

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
		same_key(a, p, b, q);
	}
	n = x->n;
	free(x);
	free(y);
	return n;
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
	assert_int_equal(pebs_session__set_c2c(ss, fed, 4), -EINVAL);
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
 * A new page-fault recording (software event: no data source) in
 * @path (a mkstemp template of @size bytes, made anew), samples and
 * records with pid, tid and time.
 */
static struct pebs_perfdata_writer *new_faults(char *path, size_t size)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR,
		.sample_id_all = 1,
	};
	struct pebs_perfdata_writer *w;
	uint64_t id = 7;
	int fd;

	strcpy(path + size - 7, "XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1,
							"page-faults"), 0);
	return w;
}

/* A MMAP2 record of @len bytes at @start: a file (@ino) or //anon. */
static void write_mmap2(struct pebs_perfdata_writer *w, uint64_t time,
			uint32_t pid, uint64_t start, uint64_t len,
			uint64_t ino, uint32_t flags)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
		char name[16];
		uint32_t id_pid, id_tid;	/* sample_id_all */
		uint64_t id_time;
	} r = { { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, sizeof(r) },
		pid, pid, start, len, 0, ino ? 8 : 0, ino ? 1 : 0, ino,
		ino ? 1 : 0, 3 /* rw */, flags, "//anon", pid, pid, time };

	if (ino)
		strcpy(r.name, "/tmp/shm");
	assert_int_equal(pebs_perfdata_writer__write(w, &r.h), 0);
}

static void write_store(struct pebs_perfdata_writer *w, uint32_t pid,
			uint32_t tid, uint64_t time, uint64_t addr)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time, addr;
	} r = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) },
		0x401000, pid, tid, time, addr };

	assert_int_equal(pebs_perfdata_writer__write(w, &r.h), 0);
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
	struct pebs_perfdata_writer *w = new_faults(path, sizeof(path));
	unsigned int i;

	for (i = 0; i < 99; i++)
		write_store(w, 50, 50, 1000 + i, 0x7f0000000000 + i * 4096);
	if (two_threads)	/* thread 51 on line 0 */
		write_store(w, 50, 51, 1099, 0x7f0000000008);
	else
		write_store(w, 50, 50, 1099, 0x7f0000000000 + 99 * 4096);
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

/*
 * Page faults (no data source) of processes 60 and 61 on one MAP_SHARED
 * file page mapped at different addresses: one line of two threads
 * (perf keys it by the file and its offset). Then process 60 remaps an
 * anonymous page with that file: its two threads' samples at one
 * address, before and after, are two lines of one thread each.
 */
static const char *write_mapped(void)
{
	static char path[] = "/tmp/test-session.XXXXXX";
	struct pebs_perfdata_writer *w = new_faults(path, sizeof(path));

	write_mmap2(w, 10, 60, 0x7f0000000000, 4096, 1234, 1 /* MAP_SHARED */);
	write_mmap2(w, 11, 61, 0x7e0000000000, 4096, 1234, 1);
	write_mmap2(w, 12, 60, 0x7d0000000000, 4096, 0, 2 /* MAP_PRIVATE */);
	write_store(w, 60, 60, 1000, 0x7f0000000010);
	write_store(w, 61, 61, 1001, 0x7e0000000018);
	write_store(w, 60, 60, 1002, 0x7d0000000040);
	write_mmap2(w, 1003, 60, 0x7d0000000000, 4096, 1234, 1);
	write_store(w, 60, 62, 1004, 0x7d0000000048);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	return path;
}

static void test_mapped(void **state)
{
	const char *path = write_mapped();
	struct pebs_perfdata *pd, *pd2;
	struct pebs_c2c *own, *fed;
	struct pebs_session *ss;
	struct pebs_c2c_dkey k;
	unsigned int shared;
	uint64_t seen;
	struct lines *ls = calloc(1, sizeof(*ls));

	(void)state;
	assert_non_null(ls);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_c2c__new(&own), 0);
	assert_int_equal(pebs_c2c__read_perfdata(own, pd, NULL, NULL), 0);
	/* three lines: the file's offsets 0 and 0x40, the anonymous one */
	assert_int_equal(pebs_c2c__sort(own, PEBS_C2C_XWRITES), 1);
	assert_int_equal(pebs_c2c__for_each_line(own, true, keep_line, ls), 0);
	assert_int_equal(ls->n, 3);
	assert_int_equal(ls->v[0].nr_threads, 2);
	assert_int_equal(pebs_c2c__line_key(own, ls->v[0].id, &k), 0);
	assert_int_equal(k.ino, 1234);
	assert_int_equal(k.al_addr, 0);
	assert_int_equal(k.level, 's');
	for (shared = 0; shared < 2; shared++) {
		seen = 0;
		assert_int_equal(pebs_perfdata__open(path, &pd2), 0);
		assert_int_equal(pebs_c2c__new(&fed), 0);
		assert_int_equal(pebs_session__new(pd2, &ss), 0);
		assert_int_equal(pebs_session__set_c2c(ss, fed, shared ?
					PEBS_SESSION_C2C_SHARED : 0), 0);
		assert_int_equal(pebs_session__process(ss, false, count, &seen,
						       NULL), 0);
		assert_int_equal(seen, 4);
		/* shared-only: just the shared line's two samples */
		assert_int_equal(pebs_c2c__stats(fed)->nr_entries,
				 shared ? 2 : 4);
		assert_int_equal(same_lines(own, fed, PEBS_C2C_XWRITES,
					    !shared), shared ? 1 : 3);
		pebs_session__delete(ss);
		pebs_c2c__delete(fed);
		pebs_perfdata__close(pd2);
	}
	free(ls);
	pebs_c2c__delete(own);
	pebs_perfdata__close(pd);
	unlink(path);
}

/* NULL stops the feed; a NULL session is refused */
static void test_args(void **state)
{
	(void)state;
	assert_int_equal(pebs_session__set_c2c(NULL, NULL, 0), -EINVAL);
}

/* A hook that counts what it is called with. */
struct counts {
	uint64_t samples, records, finished, freed;
	int fail;		/* returned by the next record call */
};

static int hk_sample(void *arg, const struct perf_event_header *ev,
		     const struct pebs_sample *s, unsigned int idx)
{
	struct counts *c = arg;

	assert_int_equal(ev->type, PERF_RECORD_SAMPLE);
	(void)s;
	(void)idx;
	c->samples++;
	return 0;
}

static int hk_record(void *arg, const struct perf_event_header *ev)
{
	struct counts *c = arg;

	assert_int_not_equal(ev->type, PERF_RECORD_SAMPLE);
	c->records++;
	return c->fail ? core_err(c->fail, "hook: planted failure") : 0;
}

static int hk_finish(void *arg)
{
	((struct counts *)arg)->finished++;
	return 0;
}

static void hk_free(void *arg)
{
	((struct counts *)arg)->freed++;
}

static const struct ss_hook_ops hk_ops = {
	.sz = sizeof(hk_ops),
	.sample = hk_sample,
	.record = hk_record,
	.finish = hk_finish,
	.free = hk_free,
};

/*
 * The session's hooks (ss_hook__set): one sees every sample and every
 * other record of a pass, then its end; another of the same ops takes
 * its place (the first freed), NULL removes it, the session's end frees
 * the last; a hook's error ends the pass; ops of another size are
 * refused.
 */
static void test_hooks(void **state)
{
	struct pebs_perfdata *pd =
		open_fixture("amd-zen4-epyc9254_ibs-c2c_ring.perf.data");
	struct ss_hook_ops bad = hk_ops;
	struct counts a = { 0 }, b = { 0 };
	struct pebs_session *ss;
	uint64_t seen = 0;

	(void)state;
	assert_non_null(pd);
	assert_int_equal(pebs_session__new(pd, &ss), 0);
	bad.sz = sizeof(bad) - 1;
	assert_int_equal(ss_hook__set(ss, &bad, &a), -EINVAL);
	assert_int_equal(ss_hook__set(ss, &hk_ops, &a), 0);
	assert_int_equal(pebs_session__process(ss, false, count, &seen, NULL),
			 0);
	assert_int_equal(a.samples, seen);
	assert_true(a.records > 0);
	assert_int_equal(a.finished, 1);
	assert_int_equal(a.freed, 0);
	/* replaced: the first freed, the second fails the pass */
	b.fail = -EIO;
	assert_int_equal(ss_hook__set(ss, &hk_ops, &b), 0);
	assert_int_equal(a.freed, 1);
	pebs_perfdata__rewind(pd);
	assert_int_equal(pebs_session__process(ss, false, count, &seen, NULL),
			 -EIO);
	assert_string_equal(pebs_errmsg(), "hook: planted failure");
	assert_int_equal(b.records, 1);
	/* removed, then the session's end frees none */
	assert_int_equal(ss_hook__set(ss, &hk_ops, NULL), 0);
	assert_int_equal(b.freed, 1);
	assert_int_equal(ss_hook__set(ss, &hk_ops, &a), 0);
	pebs_session__delete(ss);
	assert_int_equal(a.freed, 2);
	assert_int_equal(b.freed, 1);
	pebs_perfdata__close(pd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amd_ibs),
		cmocka_unit_test(test_intel_ldlat),
		cmocka_unit_test(test_shared_only),
		cmocka_unit_test(test_mapped),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
