// SPDX-License-Identifier: MIT
/*
 * test-ordered.c - time-ordered records (lib/session/ordered.c): delivery by
 * rounds as perf's ordered events, ties in queue order, records without
 * time at once, the bounded queue, copies of reused buffers, and a
 * whole perf.data file written
 * out of order and read back in time order (with the fallback to file
 * order when the event does not sample TIME).
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

struct seen {
	uint64_t times[64];
	const struct perf_event_header *evs[64];
	unsigned int nr;
};

static int collect(void *arg, const struct perf_event_header *ev,
		   uint64_t time)
{
	struct seen *s = arg;

	if (s->nr == 64)
		return -E2BIG;
	s->evs[s->nr] = ev;
	s->times[s->nr++] = time;
	return 0;
}

static void test_rounds(void **state)
{
	struct perf_event_header h[8];
	struct pebs_ordered *o;
	struct seen s = { .nr = 0 };

	(void)state;
	assert_int_equal(pebs_ordered__new(0, 0, collect, &s, &o), 0);
	assert_int_equal(pebs_ordered__queue(o, &h[0], 30), 0);
	assert_int_equal(pebs_ordered__queue(o, &h[1], 10), 0);
	/* first round: nothing is safe yet (limit 0) */
	assert_int_equal(pebs_ordered__round(o), 0);
	assert_int_equal(s.nr, 0);
	assert_int_equal(pebs_ordered__queue(o, &h[2], 20), 0);
	assert_int_equal(pebs_ordered__queue(o, &h[3], 40), 0);
	assert_int_equal(pebs_ordered__queue(o, &h[4], 20), 0);
	/* second round: up to 30, the newest before the first round */
	assert_int_equal(pebs_ordered__round(o), 0);
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.times[0], 10);
	assert_ptr_equal(s.evs[1], &h[2]);	/* ties: queue order */
	assert_ptr_equal(s.evs[2], &h[4]);
	assert_int_equal(s.times[3], 30);
	/* a record without time goes at once */
	assert_int_equal(pebs_ordered__queue(o, &h[5], PEBS_ORDERED_NO_TIME),
			 0);
	assert_ptr_equal(s.evs[4], &h[5]);
	/* older than one delivered: counted, delivered first at the end */
	assert_int_equal(pebs_ordered__queue(o, &h[6], 5), 0);
	assert_int_equal(pebs_ordered__out_of_order(o), 1);
	assert_int_equal(pebs_ordered__flush(o), 0);
	assert_int_equal(s.nr, 7);
	assert_int_equal(s.times[5], 5);
	assert_int_equal(s.times[6], 40);
	pebs_ordered__delete(o);
}

/*
 * Rounds and a flush before anything was queued deliver nothing, and
 * the queue works after them. (That they do no arithmetic on the queue
 * not yet allocated, NULL + 0, is clang's UBSan's to see: fuzz-session
 * found it; gcc's, in make check-san, does not report it.)
 */
static void test_empty(void **state)
{
	struct perf_event_header h;
	struct pebs_ordered *o;
	struct seen s = { .nr = 0 };

	(void)state;
	assert_int_equal(pebs_ordered__new(0, 0, collect, &s, &o), 0);
	assert_int_equal(pebs_ordered__round(o), 0);
	assert_int_equal(pebs_ordered__round(o), 0);
	assert_int_equal(pebs_ordered__flush(o), 0);
	assert_int_equal(s.nr, 0);
	assert_int_equal(pebs_ordered__queue(o, &h, 7), 0);
	assert_int_equal(pebs_ordered__flush(o), 0);
	assert_int_equal(s.nr, 1);
	pebs_ordered__delete(o);
}

/*
 * The natural merge sort: rings' runs interleaved in a round, a reversed
 * run, ties across runs (queue order kept), and a second round merged
 * with what waited from the first.
 */
static void test_runs(void **state)
{
	static const uint64_t t[] = {
		/* ring A */ 1, 4, 7, 10, 13,
		/* ring B */ 2, 4, 8, 11,
		/* reversed */ 12, 9, 6, 3,
		/* ring A again, second round */ 14, 15,
	};
	struct perf_event_header h[sizeof(t) / sizeof(t[0])];
	struct pebs_ordered *o;
	struct seen s = { .nr = 0 };
	unsigned int i;

	(void)state;
	assert_int_equal(pebs_ordered__new(0, 0, collect, &s, &o), 0);
	for (i = 0; i < 13; i++)
		assert_int_equal(pebs_ordered__queue(o, &h[i], t[i]), 0);
	assert_int_equal(pebs_ordered__round(o), 0);
	assert_int_equal(s.nr, 0);
	for (; i < 15; i++)
		assert_int_equal(pebs_ordered__queue(o, &h[i], t[i]), 0);
	assert_int_equal(pebs_ordered__round(o), 0);	/* up to 13 */
	assert_int_equal(s.nr, 13);
	assert_int_equal(pebs_ordered__flush(o), 0);
	assert_int_equal(s.nr, 15);
	for (i = 1; i < s.nr; i++)
		assert_true(s.times[i - 1] <= s.times[i]);
	assert_ptr_equal(s.evs[3], &h[1]);	/* the 4 of ring A first */
	assert_ptr_equal(s.evs[4], &h[6]);
	assert_int_equal(s.times[14], 15);
	pebs_ordered__delete(o);
}

static void test_bounded(void **state)
{
	struct perf_event_header h[20];
	struct pebs_ordered *o;
	struct seen s = { .nr = 0 };
	unsigned int i;

	(void)state;
	assert_int_equal(pebs_ordered__new(8, 0, collect, &s, &o), 0);
	for (i = 0; i < 20; i++)
		assert_int_equal(pebs_ordered__queue(o, &h[i], 100 - i), 0);
	/* never more than 8 queued: the oldest halves went out */
	assert_true(s.nr >= 12);
	assert_int_equal(pebs_ordered__flush(o), 0);
	assert_int_equal(s.nr, 20);
	pebs_ordered__delete(o);
}

/* With PEBS_ORDERED_COPY the caller's buffer may change at once. */
static int check_ip(void *arg, const struct perf_event_header *ev,
		    uint64_t time)
{
	uint64_t *want = arg, ip;

	memcpy(&ip, ev + 1, sizeof(ip));
	assert_int_equal(ip, time * 10);
	(*want)++;
	return 0;
}

static void test_copy(void **state)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
	} buf = { { PERF_RECORD_SAMPLE, 0, sizeof(buf) }, 0 };
	struct pebs_ordered *o;
	uint64_t seen = 0, t;

	(void)state;
	assert_int_equal(pebs_ordered__new(0, PEBS_ORDERED_COPY, check_ip,
					   &seen, &o), 0);
	for (t = 5; t > 0; t--) {
		buf.ip = t * 10;	/* one buffer, reused */
		assert_int_equal(pebs_ordered__queue(o, &buf.h, t), 0);
	}
	buf.ip = 0;
	assert_int_equal(pebs_ordered__flush(o), 0);
	assert_int_equal(seen, 5);
	/* queued and never delivered: freed with the queue */
	buf.ip = 70;
	assert_int_equal(pebs_ordered__queue(o, &buf.h, 7), 0);
	pebs_ordered__delete(o);
}

/* A file with 3 samples written out of time order, then a round. */
static char *write_file(uint64_t sample_type)
{
	static char path[] = "/tmp/test-ordered.XXXXXX";
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1,
		.sample_type = sample_type,
	};
	uint64_t times[3] = { 300, 100, 200 }, id = 7;
	struct pebs_perfdata_writer *w;
	unsigned int i;
	int fd;

	strcpy(path + sizeof(path) - 7, "XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &attr, &id, 1,
							"cpu-clock"), 0);
	for (i = 0; i < 3; i++) {
		struct {
			struct perf_event_header h;
			uint64_t ip, time;
		} rec = { { PERF_RECORD_SAMPLE, 0, sizeof(rec) },
			  0x1000 + i, times[i] };

		if (!(sample_type & PERF_SAMPLE_TIME))
			rec.h.size -= 8;
		assert_int_equal(pebs_perfdata_writer__write(w, &rec.h), 0);
	}
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	return path;
}

static int collect_ips(void *arg, const struct perf_event_header *ev,
		       uint64_t time)
{
	uint64_t *ips = arg, ip;

	(void)time;
	if (ev->type != PERF_RECORD_SAMPLE)
		return 0;	/* the writer's kernel map */
	memcpy(&ip, ev + 1, sizeof(ip));
	ips[ips[0]++ + 1] = ip;
	return 0;
}

/* Time order over a file larger than what the reader keeps mapped. */
struct order_check {
	uint64_t n, last, bad;
};

static int check_order(void *arg, const struct perf_event_header *ev,
		       uint64_t time)
{
	struct order_check *c = arg;

	if (ev->type != PERF_RECORD_SAMPLE)
		return 0;
	c->bad += time < c->last;
	c->last = time;
	c->n++;
	return 0;
}

static void test_large_file(void **state)
{
	static char path[] = "/tmp/test-ordered-large.XXXXXX";
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME,
	};
	struct perf_event_header round = { PEBS_PERF_RECORD_FINISHED_ROUND,
					   0, 8 };
	struct order_check c = { 0, 0, 0 };
	struct pebs_perfdata_writer *w;
	struct pebs_perfdata *pd;
	uint64_t id = 7, i, t = 1000;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &attr, &id, 1,
							"cpu-clock"), 0);
	/* 600 k samples (14 MB) in rounds of two interleaved rings */
	for (i = 0; i < 600000; i++) {
		struct {
			struct perf_event_header h;
			uint64_t ip, time;
		} rec = { { PERF_RECORD_SAMPLE, 0, sizeof(rec) }, i,
			  t + (i % 1000 < 500 ? 2 * (i % 500) :
					       2 * (i % 500) + 1) };

		assert_int_equal(pebs_perfdata_writer__write(w, &rec.h), 0);
		if (i % 1000 == 999) {
			assert_int_equal(pebs_perfdata_writer__write(w, &round),
					 0);
			t += 1000;
		}
	}
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_ordered__process(pd, check_order, &c, NULL), 0);
	assert_int_equal(c.n, 600000);
	assert_int_equal(c.bad, 0);
	pebs_perfdata__close(pd);
	unlink(path);
}

static void test_file(void **state)
{
	char *path = write_file(PERF_SAMPLE_IP | PERF_SAMPLE_TIME);
	struct pebs_perfdata *pd;
	uint64_t ips[8] = { 0 };
	unsigned int flags;

	(void)state;
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_ordered__process(pd, collect_ips, ips, &flags),
			 0);
	assert_int_equal(flags, 0);
	assert_int_equal(ips[0], 3);
	assert_int_equal(ips[1], 0x1001);	/* time 100 */
	assert_int_equal(ips[2], 0x1002);
	assert_int_equal(ips[3], 0x1000);
	pebs_perfdata__close(pd);
	unlink(path);

	/* no TIME: file order, flagged */
	path = write_file(PERF_SAMPLE_IP);
	memset(ips, 0, sizeof(ips));
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_ordered__process(pd, collect_ips, ips, &flags),
			 0);
	assert_int_equal(flags, PEBS_ORDERED_FILE_ORDER);
	assert_int_equal(ips[1], 0x1000);
	assert_int_equal(ips[3], 0x1002);
	pebs_perfdata__close(pd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_large_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
