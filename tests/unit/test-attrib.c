// SPDX-License-Identifier: MIT
/*
 * test-attrib.c - the attribution engine (lib/attrib/attrib.c): TID samples go
 * out at once, MAP samples wait for the round and get the thread of a
 * history built in memory (with their callchain), BOTH and SWITCH check
 * TIDs against a history, comms from COMM/FORK records, the module's
 * table and /proc, and whose each side-band record is.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "fake-map.h"


#define ST_ID (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	       PERF_SAMPLE_IDENTIFIER)
#define ST_SAMPLE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | ST_ID | \
		   PERF_SAMPLE_CALLCHAIN)

/* ---- records ------------------------------------------------------------ */

struct rec {
	union {
		struct perf_event_header h;
		uint64_t u[64];
	};
};

/* a sample of ST_SAMPLE: @nr callchain entries 0x1000, 0x1001, ... */
static void make_sample(struct rec *r, uint32_t pid, uint32_t tid,
			uint64_t time, uint32_t cpu, unsigned int nr,
			struct pebs_sample *s)
{
	struct perf_event_attr attr = { .size = sizeof(attr),
					.sample_type = ST_SAMPLE };
	struct pebs_sample_layout l;
	unsigned int n = 1;

	r->u[n++] = 77;				/* identifier */
	r->u[n++] = 0x400000;			/* ip */
	r->u[n++] = pid | (uint64_t)tid << 32;
	r->u[n++] = time;
	r->u[n++] = cpu;
	r->u[n++] = nr;
	for (unsigned int i = 0; i < nr; i++)
		r->u[n++] = 0x1000 + i;
	r->h = (struct perf_event_header){ PERF_RECORD_SAMPLE, 0,
					   (uint16_t)(8 * n) };
	assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
	assert_int_equal(pebs_sample__decode(&l, &r->h, s), 0);
}

/* a record of @type with a body of @words u64 and an ST_ID sample_id */
static void make_record(struct rec *r, uint32_t type, uint16_t misc,
			const uint64_t *body, unsigned int words,
			uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	unsigned int n = 1;

	for (unsigned int i = 0; i < words; i++)
		r->u[n++] = body[i];
	r->u[n++] = pid | (uint64_t)tid << 32;
	r->u[n++] = time;
	r->u[n++] = cpu;
	r->u[n++] = 77;
	r->h = (struct perf_event_header){ type, misc, (uint16_t)(8 * n) };
}

/* ---- callbacks ------------------------------------------------------------ */

struct got {
	unsigned int n;
	struct pebs_attrib_who who[16];
	unsigned int tag[16];
	uint64_t cc_last[16];		/* the last callchain entry */
	unsigned int mism, none;
	struct pebs_attrib_who found;
};

static int emit(void *ctx, unsigned int tag, const struct pebs_sample *s,
		const struct perf_event_header *raw,
		const struct pebs_attrib_who *who)
{
	struct got *g = ctx;
	const char *r = (const char *)raw;

	assert_true(g->n < 16);
	assert_int_equal(raw->type, PERF_RECORD_SAMPLE);
	if (s->callchain_nr) {
		/* the callchain lies inside the record handed over */
		assert_true((const char *)s->callchain > r &&
			    (const char *)s->callchain < r + raw->size);
		memcpy(&g->cc_last[g->n], &s->callchain[s->callchain_nr - 1],
		       8);
	}
	g->who[g->n] = *who;
	g->tag[g->n++] = tag;
	return 0;
}

static void mismatch(void *ctx, uint32_t cpu, uint64_t time,
		     const struct pebs_attrib_who *sample,
		     const struct pebs_attrib_who *found)
{
	struct got *g = ctx;

	(void)cpu;
	(void)time;
	(void)sample;
	if (found) {
		g->mism++;
		g->found = *found;
	} else {
		g->none++;
	}
}

static const PEBS_OPTS(pebs_attrib_cbs, cbs, .emit = emit,
		       .mismatch = mismatch);

/* ---- tests ---------------------------------------------------------------- */

static void test_tid(void **state)
{
	struct pebs_attrib *a;
	struct pebs_sample s;
	struct got g = { 0 };
	struct rec r;

	(void)state;
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_TID, NULL, 0, &a), 0);
	make_sample(&r, 10, 11, 1000, 0, 0, &s);
	assert_int_equal(pebs_attrib__sample(a, 3, &s, &r.h, &cbs, &g), 0);
	assert_int_equal(g.n, 1);		/* at once */
	assert_int_equal(g.tag[0], 3);
	assert_int_equal(g.who[0].tgid, 10);
	assert_int_equal(g.who[0].tid, 11);
	assert_int_equal(pebs_attrib__round(a, &cbs, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(pebs_attrib__stats(a)->samples, 1);
	assert_int_equal(pebs_attrib__stats(a)->agree +
			 pebs_attrib__stats(a)->unattributed, 0);
	pebs_attrib__delete(a);
}

/* MAP: held until the round; the history's thread, the callchain kept */
static void test_map(void **state)
{
	struct pebs_attrib *a;
	struct pebs_sample s;
	struct got g = { 0 };
	struct fake_map f;
	struct rec r;

	(void)state;
	fake_map_init(&f);
	fake_map_switch(&f, 0, 100, 5, 6, "early");
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_MAP, f.map, 0, &a), 0);
	/* a sample on CPU 0 at 250 and one on CPU 1 before any switch */
	make_sample(&r, 0, 0, 250, 0, 3, &s);
	assert_int_equal(pebs_attrib__sample(a, 1, &s, &r.h, &cbs, &g), 0);
	make_sample(&r, 0, 0, 50, 1, 5, &s);
	assert_int_equal(pebs_attrib__sample(a, 2, &s, &r.h, &cbs, &g), 0);
	memset(&r, 0xee, sizeof(r));	/* the ring moves on */
	assert_int_equal(g.n, 0);
	/* the history reaches 200 on CPU 0 only by the round */
	fake_map_switch(&f, 0, 200, 7, 8, "late");
	assert_int_equal(pebs_attrib__round(a, &cbs, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.tag[0], 1);
	assert_int_equal(g.who[0].tgid, 7);
	assert_int_equal(g.who[0].tid, 8);
	assert_int_equal(g.cc_last[0], 0x1002);
	assert_int_equal(g.who[1].tid, -1);
	assert_int_equal(g.cc_last[1], 0x1004);
	assert_int_equal(pebs_attrib__stats(a)->unattributed, 1);
	assert_int_equal(pebs_attrib__stats(a)->samples, 2);
	/* the table named the thread on CPU 0 */
	assert_true(pebs_attrib__comm_known(a, 8));
	assert_string_equal(pebs_attrib__comm(a, 8, NULL), "late");

	/* a side-band record gets the history's thread at its time */
	{
		struct pebs_attrib_who who;
		uint64_t body[1] = { 0 };

		make_record(&r, PERF_RECORD_THROTTLE, 0, body, 1, 0, 0, 300,
			    0);
		assert_int_equal(pebs_attrib__record(a, &r.h, ST_ID, &who),
				 0);
		assert_int_equal(who.tid, 8);
	}
	pebs_attrib__delete(a);
	fake_map_free(&f);
}

/* BOTH: TIDs out at once, checked against the module's history */
static void test_both(void **state)
{
	struct pebs_attrib *a;
	struct pebs_sample s;
	struct got g = { 0 };
	struct fake_map f;
	struct rec r;

	(void)state;
	fake_map_init(&f);
	fake_map_switch(&f, 1, 100, 5, 6, "x");
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_BOTH, f.map, 0, &a), 0);
	make_sample(&r, 5, 6, 150, 1, 0, &s);	/* agrees */
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &r.h, &cbs, &g), 0);
	make_sample(&r, 5, 9, 160, 1, 0, &s);	/* another thread */
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &r.h, &cbs, &g), 0);
	make_sample(&r, 5, 6, 150, 0, 0, &s);	/* CPU 0: no entry */
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &r.h, &cbs, &g), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.who[1].tid, 9);	/* the TID, not the map's */
	assert_int_equal(pebs_attrib__round(a, &cbs, &g), 0);
	assert_int_equal(pebs_attrib__stats(a)->agree, 1);
	assert_int_equal(pebs_attrib__stats(a)->disagree, 1);
	assert_int_equal(pebs_attrib__stats(a)->unattributed, 1);
	assert_int_equal(g.mism, 1);
	assert_int_equal(g.found.tid, 6);
	assert_int_equal(g.none, 1);
	pebs_attrib__delete(a);
	fake_map_free(&f);
}

/* SWITCH: the history comes from PERF_RECORD_SWITCH_CPU_WIDE records */
static void test_switch(void **state)
{
	struct pebs_attrib_who who;
	struct pebs_attrib *a;
	struct pebs_sample s;
	struct got g = { 0 };
	uint64_t body[1] = { 0 };
	struct rec r;

	(void)state;
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_SWITCH, NULL, NR_CPUS,
					  &a), 0);
	/* CPU 0: a switch-out first tells who ran since the start */
	make_record(&r, PERF_RECORD_SWITCH_CPU_WIDE,
		    PERF_RECORD_MISC_SWITCH_OUT, body, 1, 20, 21, 500, 0);
	assert_int_equal(pebs_attrib__record(a, &r.h, ST_ID, &who), 0);
	assert_int_equal(who.tid, 0);		/* not MAP: no lookup */
	/* then 30/31 came in at 500 */
	make_record(&r, PERF_RECORD_SWITCH_CPU_WIDE, 0, body, 1, 30, 31, 500,
		    0);
	assert_int_equal(pebs_attrib__record(a, &r.h, ST_ID, &who), 0);

	make_sample(&r, 20, 21, 400, 0, 0, &s);	/* agrees (from 0) */
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &r.h, &cbs, &g), 0);
	make_sample(&r, 30, 31, 600, 0, 0, &s);	/* agrees */
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &r.h, &cbs, &g), 0);
	make_sample(&r, 20, 21, 700, 0, 0, &s);	/* the history says 31 */
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &r.h, &cbs, &g), 0);
	make_sample(&r, 20, 21, 700, 1, 0, &s);	/* CPU 1: nothing */
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &r.h, &cbs, &g), 0);
	assert_int_equal(pebs_attrib__round(a, &cbs, &g), 0);
	assert_int_equal(pebs_attrib__stats(a)->agree, 2);
	assert_int_equal(pebs_attrib__stats(a)->disagree, 1);
	assert_int_equal(pebs_attrib__stats(a)->unattributed, 1);
	assert_int_equal(g.found.tid, 31);
	assert_int_equal(pebs_attrib__stats(a)->history_lost, 0);
	pebs_attrib__delete(a);
}

/* COMM names, FORK inherits, MMAP2/EXIT say whose, /proc and fallbacks */
static void test_comms_and_records(void **state)
{
	struct pebs_attrib_who who;
	struct pebs_attrib *a;
	struct rec r;
	uint64_t body[8];
	char self[32];
	pid_t gone;

	(void)state;
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_TID, NULL, 0, &a), 0);
	/* COMM: pid 40, tid 41, "worker" */
	memset(body, 0, sizeof(body));
	body[0] = 40 | (uint64_t)41 << 32;
	memcpy(&body[1], "worker", 7);
	make_record(&r, PERF_RECORD_COMM, 0, body, 2, 40, 41, 1, 0);
	assert_int_equal(pebs_attrib__record(a, &r.h, ST_ID, &who), 0);
	assert_int_equal(who.tgid, 40);
	assert_int_equal(who.tid, 41);
	assert_string_equal(pebs_attrib__comm(a, 41, NULL), "worker");
	/* FORK: pid 40, ppid 40, tid 42, ptid 41: named as its parent */
	body[0] = 40 | (uint64_t)40 << 32;
	body[1] = 42 | (uint64_t)41 << 32;
	body[2] = 5;
	make_record(&r, PERF_RECORD_FORK, 0, body, 3, 40, 42, 2, 0);
	assert_int_equal(pebs_attrib__record(a, &r.h, ST_ID, &who), 0);
	assert_int_equal(who.tid, 42);
	assert_string_equal(pebs_attrib__comm(a, 42, NULL), "worker");
	/* EXIT and MMAP2 say whose they are */
	make_record(&r, PERF_RECORD_EXIT, 0, body, 3, 40, 42, 3, 0);
	assert_int_equal(pebs_attrib__record(a, &r.h, ST_ID, &who), 0);
	assert_int_equal(who.tgid, 40);
	assert_int_equal(who.tid, 42);
	body[0] = 50 | (uint64_t)51 << 32;
	make_record(&r, PERF_RECORD_MMAP2, 0, body, 8, 50, 51, 3, 0);
	assert_int_equal(pebs_attrib__record(a, &r.h, ST_ID, &who), 0);
	assert_int_equal(who.tid, 51);
	/* a truncated record */
	r.h.size = 4;
	assert_int_equal(pebs_attrib__record(a, &r.h, ST_ID, &who), -EBADMSG);

	/* swapper, /proc, the fallback, ":tid" */
	assert_string_equal(pebs_attrib__comm(a, 0, NULL), "swapper");
	gone = fork();
	assert_true(gone >= 0);
	if (!gone)
		_exit(0);
	waitpid(gone, NULL, 0);
	assert_false(pebs_attrib__comm_known(a, gone));
	assert_string_equal(pebs_attrib__comm(a, gone, "fb"), "fb");
	snprintf(self, sizeof(self), ":%d", (int)gone);
	assert_string_equal(pebs_attrib__comm(a, gone, NULL), self);
	assert_int_equal(pebs_attrib__load_proc(a, gone), -ESRCH);
	assert_int_equal(pebs_attrib__load_proc(a, getpid()), 0);
	assert_true(pebs_attrib__comm_known(a, getpid()));
	assert_string_equal(pebs_attrib__comm(a, getpid(), NULL), "test-attrib");
	pebs_attrib__delete(a);
}

/* many threads: the name table grows and keeps every name */
static void test_comms_grow(void **state)
{
	struct pebs_attrib *a;
	char name[16];

	(void)state;
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_TID, NULL, 0, &a), 0);
	for (int t = 1; t <= 5000; t++) {
		snprintf(name, sizeof(name), "t%d", t);
		pebs_attrib__set_comm(a, 1, 100000 + t, name);
	}
	for (int t = 1; t <= 5000; t += 499) {
		snprintf(name, sizeof(name), "t%d", t);
		assert_string_equal(pebs_attrib__comm(a, 100000 + t, NULL),
				    name);
	}
	pebs_attrib__delete(a);
}

static void test_bad_args(void **state)
{
	struct pebs_attrib *a = NULL;

	(void)state;
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_MAP, NULL, 0, &a),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "pebs_map"));
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_BOTH, NULL, 0, &a),
			 -EINVAL);
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_SWITCH, NULL, 0, &a),
			 -EINVAL);
	assert_int_equal(pebs_attrib__new((enum pebs_attrib_mode)9, NULL, 0,
					  &a), -EINVAL);
	assert_null(a);
	pebs_attrib__delete(NULL);
}

/* the history MAP and BOTH read, for pebs_switchrec; none for the others */
static void test_timeline_of(void **state)
{
	struct pebs_map_switch sw;
	struct pebs_attrib *a;
	struct fake_map f;

	(void)state;
	fake_map_init(&f);
	fake_map_switch(&f, 1, 100, 5, 6, "x");
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_BOTH, f.map, 0, &a), 0);
	assert_non_null(pebs_attrib__timeline(a));
	assert_int_equal(pebs_timeline__lookup(pebs_attrib__timeline(a), 1,
					       150, &sw), 0);
	assert_int_equal(sw.pid, 6);
	pebs_attrib__delete(a);
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_TID, NULL, 0, &a), 0);
	assert_null(pebs_attrib__timeline(a));
	pebs_attrib__delete(a);
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_SWITCH, NULL, 2, &a), 0);
	assert_null(pebs_attrib__timeline(a));
	pebs_attrib__delete(a);
	assert_null(pebs_attrib__timeline(NULL));
	fake_map_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tid),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_both),
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_comms_and_records),
		cmocka_unit_test(test_comms_grow),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_timeline_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
