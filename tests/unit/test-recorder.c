// SPDX-License-Identifier: MIT
/*
 * test-recorder - the recorder's checks and choices before anything
 * opens: event strings (bad, given twice, the default), targets (CPU
 * lists, pids, tids, one target), what each sample carries (-d, -W,
 * --phys-data, call graphs, -F, a fault event's address), the
 * attribution names; the interposer's messages turned into
 * pebs-shim:alloc and pebs-shim:free samples; -p's threads' context
 * switches read from /proc a bounded number a call.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "record/record-int.h"
#include "core/internal.h"

static char *const true_cmd[] = { "true", NULL };

/* opts with a command and an output in a fresh directory */
static struct pebs_recorder_opts opts_cmd(const char *const *evs,
					  unsigned int n)
{
	struct pebs_recorder_opts o = {
		.sz = sizeof(o), .events = evs, .nr_events = n,
		.output = "/nonexistent-dir/t.data", .cmd = true_cmd,
	};

	return o;
}

static void test_events(void **state)
{
	static const char *const twice[] = { "page-faults", "page-faults" };
	static const char *const bad[] = { "no-such-event-here" };
	static const char *const list[] = { "page-faults,cpu-clock" };
	struct pebs_recorder_opts o = opts_cmd(NULL, 0);
	struct pebs_recorder *r;

	(void)state;
	/* no event: "auto" */
	assert_int_equal(pebs_recorder__new(&o, &r), 0);
	assert_int_equal(pebs_recorder__nr_events(r), 1);
	assert_string_equal(pebs_recorder__event(r, 0)->name, "auto");
	assert_null(pebs_recorder__event(r, 1));
	pebs_recorder__delete(r);

	o = opts_cmd(list, 1);
	assert_int_equal(pebs_recorder__new(&o, &r), 0);
	assert_int_equal(pebs_recorder__nr_events(r), 2);
	/* cpu-clock's default period: perf's 4 kHz */
	assert_int_equal(pebs_recorder__event(r, 1)->attr.sample_period,
			 250000);
	pebs_recorder__delete(r);

	o = opts_cmd(twice, 2);
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "given twice"));
	o = opts_cmd(bad, 1);
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
}

static void test_targets(void **state)
{
	static const char *const pf[] = { "page-faults" };
	struct pebs_recorder_opts o = opts_cmd(pf, 1);
	struct pebs_recorder *r;
	char self[32];

	(void)state;
	/* two targets */
	o.pids = "1";
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
	/* none */
	o.pids = NULL;
	o.cmd = NULL;
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
	o.cpus = "0-";
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
	o.cpus = "4095";
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "not online"));
	o.cpus = "0";
	assert_int_equal(pebs_recorder__new(&o, &r), 0);
	pebs_recorder__delete(r);
	o.cpus = NULL;
	o.tids = "0";
	assert_int_equal(pebs_recorder__new(&o, &r), -ESRCH);
	o.tids = "1,x";
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "bad pid list '1,x'"));
	snprintf(self, sizeof(self), "%d", (int)getpid());
	o.tids = NULL;
	o.pids = self;
	assert_int_equal(pebs_recorder__new(&o, &r), 0);
	pebs_recorder__delete(r);
	/* objects need a command's perf.data */
	o.objects = true;
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
}

/* event 0's sample_type under @o (TID attribution: no module asked) */
static uint64_t sample_type(struct pebs_recorder_opts *o)
{
	struct pebs_recorder *r;
	struct perf_event_attr a;
	char dir[] = "/tmp/test-recorder-XXXXXX", path[64];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.data", dir);
	o->output = path;
	o->attr = PEBS_RECORDER_ATTR_TID;
	assert_int_equal(pebs_recorder__new(o, &r), 0);
	assert_int_equal(pebs_recorder__prepare(r), 0);
	assert_int_equal(pebs_recorder__attr(r, 0, &a, sizeof(a)), 0);
	assert_int_equal(pebs_recorder__attr(r, 9, &a, sizeof(a)), -EINVAL);
	pebs_recorder__delete(r);
	/* nothing on disk before recording runs */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(rmdir(dir), 0);
	return a.sample_type;
}

static void test_sample_type(void **state)
{
	static const char *const pf[] = { "page-faults" };
	static const char *const clk[] = { "cpu-clock" };
	const uint64_t base = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			      PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CPU;
	struct pebs_recorder_opts o = opts_cmd(clk, 1);

	(void)state;
	assert_int_equal(sample_type(&o), base);
	/* a fault has an address, and with it a data source */
	o = opts_cmd(pf, 1);
	assert_int_equal(sample_type(&o), base | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_DATA_SRC);
	o = opts_cmd(clk, 1);
	o.data_addr = o.weight = o.phys_data = true;
	o.freq = 1000;
	assert_int_equal(sample_type(&o), base | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT |
			 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_PERIOD);
	o = opts_cmd(clk, 1);
	o.callgraph = PEBS_RECORDER_CG_DWARF;
	o.stack_size = 1024;
	assert_int_equal(sample_type(&o), base | PERF_SAMPLE_CALLCHAIN |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	o = opts_cmd(clk, 1);
	o.callgraph = PEBS_RECORDER_CG_FP;
	assert_int_equal(sample_type(&o), base | PERF_SAMPLE_CALLCHAIN);
}

static void test_attr_names(void **state)
{
	(void)state;
	assert_string_equal(pebs_recorder_attr_str(PEBS_RECORDER_ATTR_AUTO),
			    "auto");
	assert_string_equal(pebs_recorder_attr_str(PEBS_RECORDER_ATTR_BOTH),
			    "both");
	assert_null(pebs_recorder_attr_str((enum pebs_recorder_attr)4));
}

/* an interposer message of @kind with @nr call-stack entries */
static size_t make_msg(uint64_t *m, uint8_t kind, uint8_t nr)
{
	struct pso_rec *r = (struct pso_rec *)m;

	memset(m, 0, sizeof(struct pso_rec) + nr * 8u);
	r->size = (uint16_t)(sizeof(*r) + nr * 8u);
	r->kind = kind;
	r->nr_ips = nr;
	r->pid = 10;
	r->tid = 11;
	r->time = 12345;
	r->addr = 0x7f0000001000;
	r->len = 4096;
	r->weight = 8192;
	for (unsigned int i = 0; i < nr; i++)
		r->ips[i] = 0x401000 + i;
	return r->size;
}

static void test_objects_sample(void **state)
{
	uint64_t m[64], s[REC_OBJ_SAMPLE_MAX / 8];
	const struct perf_event_header *h = (const void *)s;
	size_t n;

	(void)state;
	n = make_msg(m, PSO_ALLOC, 3);
	assert_int_equal(rec_objects_sample(m, n, s, sizeof(s)), 8 * 13);
	assert_int_equal(h->type, PERF_RECORD_SAMPLE);
	assert_int_equal(s[1], PEBS_OBJECTS_ALLOC_ID);
	assert_int_equal(s[2], 0x401000);		/* IP: the caller */
	assert_int_equal(s[3], (11ull << 32) | 10);	/* pid, tid */
	assert_int_equal(s[4], 12345);
	assert_int_equal(s[5], 0x7f0000001000);
	assert_int_equal(s[6], 8192);			/* PERIOD: bytes */
	assert_int_equal(s[7], 4);			/* chain: context + 3 */
	assert_int_equal(s[8], PERF_CONTEXT_USER);
	assert_int_equal(s[11], 0x401002);
	assert_int_equal(s[12], 4096);			/* WEIGHT: size */
	/* the largest stack fits */
	n = make_msg(m, PSO_ALLOC, PSO_MAX_IPS);
	assert_int_equal(rec_objects_sample(m, n, s, sizeof(s)),
			 REC_OBJ_SAMPLE_MAX);

	n = make_msg(m, PSO_FREE, 0);
	assert_int_equal(rec_objects_sample(m, n, s, sizeof(s)), 8 * 7);
	assert_int_equal(s[1], PEBS_OBJECTS_FREE_ID);
	assert_int_equal(s[2], 0);
	assert_int_equal(s[6], 4096);			/* an unmapped range */
	((struct pso_rec *)m)->len = 0;
	assert_int_equal(rec_objects_sample(m, n, s, sizeof(s)), 8 * 7);
	assert_int_equal(s[6], 1);			/* free(): 1 */
	/* a thread's stack; a TLS block named by an address in its module */
	n = make_msg(m, PSO_STACK, 0);
	assert_int_equal(rec_objects_sample(m, n, s, sizeof(s)), 8 * 7);
	assert_int_equal(s[1], PEBS_OBJECTS_STACK_ID);
	assert_int_equal(s[5], 0x7f0000001000);
	assert_int_equal(s[6], 4096);
	n = make_msg(m, PSO_TLS, 1);
	assert_int_equal(rec_objects_sample(m, n, s, sizeof(s)), 8 * 7);
	assert_int_equal(s[1], PEBS_OBJECTS_TLS_ID);
	assert_int_equal(s[2], 0x401000);
	assert_int_equal(s[6], 4096);

	/* malformed: size, kind, stack length, short, no room */
	n = make_msg(m, PSO_ALLOC, 2);
	assert_int_equal(rec_objects_sample(m, n - 8, s, sizeof(s)), 0);
	assert_int_equal(rec_objects_sample(m, 8, s, sizeof(s)), 0);
	assert_int_equal(rec_objects_sample(m, n, s, 64), 0);
	((struct pso_rec *)m)->kind = PSO_TLS + 1;
	assert_int_equal(rec_objects_sample(m, n, s, sizeof(s)), 0);
	n = make_msg(m, PSO_ALLOC, 2);
	((struct pso_rec *)m)->nr_ips = PSO_MAX_IPS + 1;
	assert_int_equal(rec_objects_sample(m, n, s, sizeof(s)), 0);
}

/* what the budget reads from /proc: a task's ticks, CPUs' busy ticks */
static void test_budget_proc(void **state)
{
	static const char *const clk[] = { "cpu-clock" };
	struct pebs_recorder_opts o = opts_cmd(clk, 1);
	struct pebs_recorder *r;
	struct pebs_ids cpus = { 0 };
	/* a name with blanks and parentheses; utime 7 stime 5 cutime 3
	   cstime 2 */
	const char *stat = "42 (a) b (c)) R 1 42 42 0 -1 4194560 100 0 0 0 "
			   "7 5 3 2 20 0 1 0 1000 0 0";
	const char *pstat = "\ncpu  2 9 9 9 9 9 9 9 0 0\n"
			    "cpu0 10 1 20 500 4 2 3 0 0 0\n"
			    "cpu1 100 0 0 9 9 0 0 0 0 0\n"
			    "cpu2 1000 0 0 0 0 0 0 0 0 0\nintr 1 2\n";

	(void)state;
	assert_int_equal(core_stat_ticks(stat, false), 12);
	assert_int_equal(core_stat_ticks(stat, true), 17);
	assert_int_equal(core_stat_ticks("42 (x) R 1 2", false), -1);
	assert_int_equal(pebs_ids__push(&cpus, 0), 0);
	assert_int_equal(pebs_ids__push(&cpus, 2), 0);
	/* not the "cpu " line of all CPUs (whose first figure is a 2) */
	/* user + nice + system + irq + softirq + steal: not idle, iowait */
	assert_int_equal(core_cpu_busy(pstat, &cpus), 36 + 1000);
	pebs_ids__free(&cpus);
	/* a budget is a share below 1 */
	o.budget = 1.5;
	assert_int_equal(pebs_recorder__new(&o, &r), -EINVAL);
	o.budget = 0.02;
	assert_int_equal(pebs_recorder__new(&o, &r), 0);
	/* no controller before __prepare */
	assert_null(pebs_recorder__budget(r));
	assert_true(pebs_recorder__sample_cost(r, 0, NULL) == 0);
	pebs_recorder__delete(r);
}

/* core_switches_read's threads: each waits, naps SW_NAPS times (a
   voluntary switch each), waits again */
#define SW_THREADS	100
#define SW_NAPS		20
static pthread_barrier_t sw_start, sw_done, sw_end;

static void *sw_napper(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&sw_start);
	for (int i = 0; i < SW_NAPS; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	pthread_barrier_wait(&sw_done);
	pthread_barrier_wait(&sw_end);
	return NULL;
}

/*
 * -p's switches from /proc, a bounded number of threads a read: 101
 * threads are read 64 at the first call, all by the second (each's
 * first read its start, so nothing counted yet but the main thread's
 * few); then 100 threads nap 20 times each, and two calls (each thread
 * read once more) count those 2000 switches and the barriers' few;
 * once they have ended their entries go.
 */
static void test_switches_bounded(void **state)
{
	struct core_switches cs = { 0 };
	struct pebs_ids me = { 0 };
	pthread_t th[SW_THREADS];
	uint64_t before, after;

	(void)state;
	assert_int_equal(pebs_ids__push(&me, (int)getpid()), 0);
	assert_int_equal(pthread_barrier_init(&sw_start, NULL, SW_THREADS + 1), 0);
	assert_int_equal(pthread_barrier_init(&sw_done, NULL, SW_THREADS + 1), 0);
	assert_int_equal(pthread_barrier_init(&sw_end, NULL, SW_THREADS + 1), 0);
	for (int i = 0; i < SW_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, sw_napper, NULL), 0);
	usleep(50000);		/* all asleep on the barrier */
	assert_int_equal(core_switches_read(&cs, &me, false), 0);
	assert_int_equal(cs.nr, CORE_SWITCHES_READS);
	before = core_switches_read(&cs, &me, false);
	assert_int_equal(cs.nr, SW_THREADS + 1);
	assert_in_range(before, 0, 20);
	pthread_barrier_wait(&sw_start);
	pthread_barrier_wait(&sw_done);
	core_switches_read(&cs, &me, false);
	after = core_switches_read(&cs, &me, false);
	assert_in_range(after - before, SW_THREADS * SW_NAPS,
			SW_THREADS * (SW_NAPS + 10));
	/* the threads gone: their entries go, the total stays */
	pthread_barrier_wait(&sw_end);
	for (int i = 0; i < SW_THREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 4; i++)
		assert_true(core_switches_read(&cs, &me, false) >= after);
	/* pruned once they outnumber the live threads twice and 64 */
	assert_in_range(cs.nr, 1, 4);
	/* a thread by its id (-t), and one gone: nothing read */
	core_switches_free(&cs);
	assert_int_equal(cs.nr, 0);
	pebs_ids__free(&me);
	assert_int_equal(pebs_ids__push(&me, INT32_MAX), 0);
	assert_int_equal(core_switches_read(&cs, &me, true), 0);
	assert_int_equal(cs.nr, 0);
	core_switches_free(&cs);
	pebs_ids__free(&me);
	pthread_barrier_destroy(&sw_start);
	pthread_barrier_destroy(&sw_done);
	pthread_barrier_destroy(&sw_end);
}

/* record-place.c's rule: all busy when under half a CPU of the period
   was idle */
static void test_place_busy(void **state)
{
	(void)state;
	/* 2 CPUs, 10 ticks each */
	assert_true(rec_place_all_busy(20, 2, 10));
	assert_true(rec_place_all_busy(16, 2, 10));	/* 4 idle */
	assert_false(rec_place_all_busy(15, 2, 10));	/* 5: half a CPU */
	assert_false(rec_place_all_busy(10, 2, 10));	/* one CPU idle */
	/* ticks counted late: more busy than the period */
	assert_true(rec_place_all_busy(23, 2, 10));
	assert_true(rec_place_all_busy(64 * 10 - 4, 64, 10));
	assert_false(rec_place_all_busy(0, 0, 10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_sample_type),
		cmocka_unit_test(test_attr_names),
		cmocka_unit_test(test_objects_sample),
		cmocka_unit_test(test_budget_proc),
		cmocka_unit_test(test_switches_bounded),
		cmocka_unit_test(test_place_busy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
