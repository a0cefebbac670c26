// SPDX-License-Identifier: MIT
/*
 * test-switchrec.c - the module's switch history as perf records
 * (lib/attrib/attrib-switch.c), from a /dev/pebs_map table and history built in
 * memory: each switch after the start gives an out and an in
 * PERF_RECORD_SWITCH_CPU_WIDE with the kernel's fields and trailer; a
 * CPU without an earlier switch gets no out record; an overrun becomes a
 * PERF_RECORD_LOST with the count and the switch after it has no prev;
 * the attrs refused. Then through a perf.data file into the timeline
 * (lib/plot/plot-timeline.c): its source is the module's history, preferred
 * over the kernel's records in the same file, and a gap draws no
 * segment.
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
#include "fake-map.h"

#define MAX_RECS	256
#define ID0		77
#define ID1		78

/* ---- the fake table (fake-map.h) and its timeline ---------------------- */

struct fake {
	struct fake_map m;
	struct pebs_timeline *tl;
};

static void fake_init(struct fake *f)
{
	fake_map_init(&f->m);
	assert_int_equal(pebs_timeline__new(f->m.map, &f->tl), 0);
}

static void fake_free(struct fake *f)
{
	pebs_timeline__delete(f->tl);
	fake_map_free(&f->m);
}

/* ---- the records written ------------------------------------------------ */

struct out {
	union {
		struct perf_event_header h;
		uint64_t u[16];
	} r[MAX_RECS];
	int32_t pid[MAX_RECS], tid[MAX_RECS];
	unsigned int n;
	struct pebs_perfdata_writer *w;	/* also into this file */
};

static int write_cb(void *ctx, const struct perf_event_header *ev,
		    int32_t pid, int32_t tid)
{
	struct out *o = ctx;

	assert_true(o->n < MAX_RECS);
	assert_true(ev->size <= sizeof(o->r[0]));
	memcpy(&o->r[o->n], ev, ev->size);
	o->pid[o->n] = pid;
	o->tid[o->n++] = tid;
	return o->w ? pebs_perfdata_writer__write(o->w, ev) : 0;
}

static const PEBS_OPTS(pebs_switchrec_cbs, cbs, .write = write_cb);

static struct perf_event_attr attr_of(bool context_switch)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			       PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		.sample_id_all = 1,
		.context_switch = context_switch,
	};
	return a;
}

/* record @i: type, misc, the next/prev task and the trailer's fields */
static void check_rec(const struct out *o, unsigned int i, uint32_t type,
		      uint16_t misc, int32_t np_pid, int32_t np_tid,
		      int32_t pid, int32_t tid, uint64_t time, uint32_t cpu,
		      uint64_t id)
{
	struct perf_event_attr a = attr_of(false);
	const struct perf_event_header *h = &o->r[i].h;
	struct pebs_sample_layout l;
	struct pebs_sample s;
	int32_t np[2];

	assert_true(i < o->n);
	assert_int_equal(h->type, type);
	assert_int_equal(h->misc, misc);
	if (type == PERF_RECORD_SWITCH_CPU_WIDE) {
		memcpy(np, h + 1, sizeof(np));
		assert_int_equal(np[0], np_pid);
		assert_int_equal(np[1], np_tid);
	}
	assert_int_equal(pebs_sample_layout__init(&l, &a), 0);
	assert_int_equal(pebs_sample__decode_id(&l, h, &s), 0);
	assert_int_equal((int32_t)s.pid, pid);
	assert_int_equal((int32_t)s.tid, tid);
	assert_int_equal(o->pid[i], pid);
	assert_int_equal(o->tid[i], tid);
	assert_int_equal(s.time, time);
	assert_int_equal(s.cpu, cpu);
	assert_int_equal(s.id, id);
}

static void test_records(void **state)
{
	struct perf_event_attr a = attr_of(false);
	struct pebs_switchrec *sr;
	struct fake f;
	static struct out o;

	(void)state;
	memset(&o, 0, sizeof(o));
	fake_init(&f);
	fake_map_switch(&f.m, 0, 100, 0, 0, NULL);		/* before the start */
	assert_int_equal(pebs_timeline__update(f.tl), 1);
	assert_int_equal(pebs_switchrec__new(f.tl, &a, &sr), 0);
	assert_int_equal(pebs_switchrec__set_cpu(sr, 0, ID0), 0);
	assert_int_equal(pebs_switchrec__set_cpu(sr, 1, ID1), 0);
	fake_map_switch(&f.m, 0, 200, 10, 11, NULL);
	fake_map_switch(&f.m, 0, 300, 10, 12, NULL);
	fake_map_switch(&f.m, 0, 400, 0, 0, NULL);
	fake_map_switch(&f.m, 1, 250, 20, 21, NULL);
	assert_int_equal(pebs_timeline__update(f.tl), 4);
	assert_int_equal(pebs_switchrec__write(sr, &cbs, &o), 0);
	/* CPU 0: idle -> 10/11 -> 10/12 -> idle, an out and an in each */
	check_rec(&o, 0, PERF_RECORD_SWITCH_CPU_WIDE,
		  PERF_RECORD_MISC_SWITCH_OUT, 10, 11, 0, 0, 200, 0, ID0);
	check_rec(&o, 1, PERF_RECORD_SWITCH_CPU_WIDE, 0, 0, 0, 10, 11, 200,
		  0, ID0);
	check_rec(&o, 2, PERF_RECORD_SWITCH_CPU_WIDE,
		  PERF_RECORD_MISC_SWITCH_OUT, 10, 12, 10, 11, 300, 0, ID0);
	check_rec(&o, 3, PERF_RECORD_SWITCH_CPU_WIDE, 0, 10, 11, 10, 12, 300,
		  0, ID0);
	check_rec(&o, 4, PERF_RECORD_SWITCH_CPU_WIDE,
		  PERF_RECORD_MISC_SWITCH_OUT, 0, 0, 10, 12, 400, 0, ID0);
	check_rec(&o, 5, PERF_RECORD_SWITCH_CPU_WIDE, 0, 10, 12, 0, 0, 400, 0,
		  ID0);
	/* CPU 1: nobody known before, so an in record with prev -1 */
	check_rec(&o, 6, PERF_RECORD_SWITCH_CPU_WIDE, 0, -1, -1, 20, 21, 250,
		  1, ID1);
	assert_int_equal(o.n, 7);
	/* header, next/prev, trailer: TID, TIME, CPU, IDENTIFIER */
	assert_int_equal(o.r[0].h.size, 8 + 8 + 4 * 8);
	assert_int_equal(pebs_switchrec__stats(sr)->switches, 4);
	assert_int_equal(pebs_switchrec__stats(sr)->records, 7);
	assert_int_equal(pebs_switchrec__stats(sr)->lost, 0);
	/* nothing new, nothing written; then one more */
	assert_int_equal(pebs_switchrec__write(sr, &cbs, &o), 0);
	assert_int_equal(o.n, 7);
	fake_map_switch(&f.m, 1, 500, 0, 0, NULL);
	assert_int_equal(pebs_timeline__update(f.tl), 1);
	assert_int_equal(pebs_switchrec__write(sr, &cbs, &o), 0);
	assert_int_equal(o.n, 9);
	check_rec(&o, 7, PERF_RECORD_SWITCH_CPU_WIDE,
		  PERF_RECORD_MISC_SWITCH_OUT, 0, 0, 20, 21, 500, 1, ID1);
	pebs_switchrec__delete(sr);
	fake_free(&f);
}

/* only the CPUs given are written */
static void test_cpus(void **state)
{
	struct perf_event_attr a = attr_of(false);
	struct pebs_switchrec *sr;
	struct fake f;
	static struct out o;

	(void)state;
	memset(&o, 0, sizeof(o));
	fake_init(&f);
	assert_int_equal(pebs_switchrec__new(f.tl, &a, &sr), 0);
	assert_int_equal(pebs_switchrec__set_cpu(sr, 1, ID1), 0);
	assert_int_equal(pebs_switchrec__set_cpu(sr, NR_CPUS, ID1), -EINVAL);
	fake_map_switch(&f.m, 0, 200, 10, 11, NULL);
	fake_map_switch(&f.m, 1, 210, 20, 21, NULL);
	assert_int_equal(pebs_timeline__update(f.tl), 2);
	assert_int_equal(pebs_switchrec__write(sr, &cbs, &o), 0);
	assert_int_equal(o.n, 1);
	check_rec(&o, 0, PERF_RECORD_SWITCH_CPU_WIDE, 0, -1, -1, 20, 21, 210,
		  1, ID1);
	pebs_switchrec__delete(sr);
	fake_free(&f);
}

static void test_overrun(void **state)
{
	struct perf_event_attr a = attr_of(false);
	struct pebs_switchrec *sr;
	uint64_t lost, lost_time = 0, sum = 0;
	unsigned int i, at = 0, switches = 0;
	struct fake f;
	static struct out o;

	(void)state;
	memset(&o, 0, sizeof(o));
	fake_init(&f);
	fake_map_switch(&f.m, 0, 100, 1, 1, NULL);
	pebs_timeline__update(f.tl);
	assert_int_equal(pebs_switchrec__new(f.tl, &a, &sr), 0);
	assert_int_equal(pebs_switchrec__set_cpu(sr, 0, ID0), 0);
	/* 20 switches between two reads of a history of 8 */
	for (i = 0; i < 20; i++)
		fake_map_switch(&f.m, 0, 1000 + 10 * i, 100 + i, 100 + i, NULL);
	assert_true(pebs_timeline__update(f.tl) > 0);
	lost = pebs_timeline__lost(f.tl);
	assert_true(lost > 0);
	assert_int_equal(pebs_switchrec__write(sr, &cbs, &o), 0);
	for (i = 0; i < o.n; i++) {
		if (o.r[i].h.type == PERF_RECORD_LOST) {
			assert_int_equal(o.r[i].u[1], ID0);
			sum += o.r[i].u[2];
			at = i;
			lost_time = o.r[i].u[4];	/* TID, then TIME */
		}
	}
	assert_int_equal(sum, lost);
	assert_int_equal(pebs_switchrec__stats(sr)->lost, lost);
	/* the gap is the first thing, and nothing spans it: the next
	   switch has an in record alone, with no prev */
	assert_int_equal(at, 0);
	check_rec(&o, 0, PERF_RECORD_LOST, 0, 0, 0, -1, -1, lost_time, 0, ID0);
	assert_true(lost_time <= 1000 + 10 * lost);
	check_rec(&o, 1, PERF_RECORD_SWITCH_CPU_WIDE, 0, -1, -1,
		  100 + (int32_t)lost, 100 + (int32_t)lost,
		  1000 + 10 * lost, 0, ID0);
	for (i = 1; i < o.n; i++)
		switches += !(o.r[i].h.misc & PERF_RECORD_MISC_SWITCH_OUT);
	assert_int_equal(switches + lost, 20);
	assert_int_equal(o.n, 1 + 1 + 2 * (switches - 1));
	pebs_switchrec__delete(sr);
	fake_free(&f);
}

static void test_refused(void **state)
{
	struct perf_event_attr a = attr_of(false);
	struct pebs_timeline *empty;
	struct pebs_switchrec *sr;
	struct fake f;

	(void)state;
	fake_init(&f);
	a.context_switch = 1;		/* could not be told from the kernel's */
	assert_int_equal(pebs_switchrec__new(f.tl, &a, &sr), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "--switch-events"));
	a = attr_of(false);
	a.use_clockid = 1;		/* not local_clock() */
	assert_int_equal(pebs_switchrec__new(f.tl, &a, &sr), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "clock"));
	a = attr_of(false);
	a.sample_type &= ~PERF_SAMPLE_CPU;
	assert_int_equal(pebs_switchrec__new(f.tl, &a, &sr), -EINVAL);
	a = attr_of(false);
	a.sample_id_all = 0;
	assert_int_equal(pebs_switchrec__new(f.tl, &a, &sr), -EINVAL);
	assert_int_equal(pebs_timeline__new_empty(2, &empty), 0);
	a = attr_of(false);
	assert_int_equal(pebs_switchrec__new(empty, &a, &sr), -EINVAL);
	assert_int_equal(pebs_switchrec__write(NULL, &cbs, NULL), -EINVAL);
	pebs_timeline__delete(empty);
	/* callbacks: sz unset, or a newer caller's non-zero tail */
	a = attr_of(false);
	assert_int_equal(pebs_switchrec__new(f.tl, &a, &sr), 0);
	{
		struct pebs_switchrec_cbs unset = { .write = write_cb };
		struct {
			struct pebs_switchrec_cbs c;
			uint64_t more;
		} big = { { .sz = sizeof(big), .write = write_cb }, 1 };

		assert_int_equal(pebs_switchrec__write(sr, &unset, NULL),
				 -EINVAL);
		assert_int_equal(pebs_switchrec__write(sr, &big.c, NULL),
				 -EINVAL);
		big.more = 0;
		assert_int_equal(pebs_switchrec__write(sr, &big.c, NULL), 0);
	}
	pebs_switchrec__delete(sr);
	fake_free(&f);
}

/* ---- through a perf.data file into the timeline --------------------------- */

static char *plot_of(const char *path, enum pebs_cpuplot_source *src)
{
	struct pebs_cpuplot *tl;
	struct pebs_perfdata *pd;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_cpuplot__new(&tl), 0);
	assert_int_equal(pebs_cpuplot__read_switches(tl, pd), 0);
	*src = pebs_cpuplot__source(tl);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(pebs_cpuplot__write_svg(tl, NULL, m, "T", NULL, 0),
			 0);
	fclose(m);
	pebs_cpuplot__delete(tl);
	pebs_perfdata__close(pd);
	return buf;
}

/* the columns' share the legend gives thread @tid */
static double share_of(const char *svg, int tid)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), ":%d (", tid);
	p = strstr(svg, key);
	return p ? strtod(p + strlen(key), NULL) : -1;
}

/*
 * A kernel-like in record of thread 999 at @time on CPU 0 (prev idle)
 * under id @id: header, next_prev, TID, TIME, CPU, IDENTIFIER.
 */
union krec {
	struct perf_event_header h;
	uint64_t u[6];
};

static const struct perf_event_header *kernel_rec(union krec *r,
						  uint64_t id, uint64_t time)
{
	memset(r, 0, sizeof(*r));
	r->h.type = PERF_RECORD_SWITCH_CPU_WIDE;
	r->h.size = sizeof(*r);
	r->u[2] = 999 | (999ULL << 32);
	r->u[3] = time;
	r->u[5] = id;
	return &r->h;
}

/*
 * A file with the module's records of @f's history under an attr
 * without context_switch, and (@kernel) kernel-like records of thread
 * 999 under a second attr with it.
 */
static void write_file(const char *path, struct fake *f, bool kernel)
{
	struct perf_event_attr a = attr_of(false), k = attr_of(true);
	const uint64_t ids[] = { ID0, ID1 }, kid = 90;
	struct pebs_switchrec *sr;
	static struct out o;

	memset(&o, 0, sizeof(o));
	assert_int_equal(pebs_perfdata_writer__create(path, &o.w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(o.w, &a, ids, 2,
							"cpu-clock"), 0);
	if (kernel)
		assert_int_equal(pebs_perfdata_writer__add_attr(o.w, &k, &kid,
							1, "dummy"), 0);
	assert_int_equal(pebs_perfdata_writer__commit(o.w), 0);
	assert_int_equal(pebs_switchrec__new(f->tl, &a, &sr), 0);
	assert_int_equal(pebs_switchrec__set_cpu(sr, 0, ID0), 0);
	/*
	 * 11 in at 1 ms, then 20 switches to 50 from 2 ms (the history of 8
	 * laps: 15 lost), 12 at 9 ms, idle at 10 ms
	 */
	fake_map_switch(&f->m, 0, 1000000, 10, 11, NULL);
	pebs_timeline__update(f->tl);
	for (int i = 0; i < 20; i++)
		fake_map_switch(&f->m, 0, 2000000 + i, 50, 50, NULL);
	fake_map_switch(&f->m, 0, 9000000, 10, 12, NULL);
	fake_map_switch(&f->m, 0, 10000000, 0, 0, NULL);
	pebs_timeline__update(f->tl);
	assert_int_equal(pebs_switchrec__write(sr, &cbs, &o), 0);
	if (kernel) {
		union krec r;

		assert_int_equal(pebs_perfdata_writer__write(o.w,
				kernel_rec(&r, kid, 1500000)), 0);
	}
	assert_int_equal(pebs_perfdata_writer__close(o.w), 0);
	pebs_switchrec__delete(sr);
}

static void test_plot(void **state)
{
	char dir[] = "/tmp/test-switchrec.XXXXXX", path[64];
	enum pebs_cpuplot_source src;
	struct fake f;
	char *svg;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.data", dir);

	fake_init(&f);
	fake_map_switch(&f.m, 0, 500000, 0, 0, NULL);
	pebs_timeline__update(f.tl);
	write_file(path, &f, false);
	svg = plot_of(path, &src);
	assert_int_equal(src, PEBS_CPUPLOT_MODULE_SWITCH);
	assert_non_null(strstr(svg, "thread segments from module switch "
				    "history ("));
	assert_non_null(strstr(svg, "switches lost in gaps"));
	/*
	 * of 1-10 ms: 11 is known to run at 1 ms only (the gap starts
	 * right after), not until 50's first known switch at 2 ms; 50
	 * from there to 9 ms, 12 from 9 to 10 ms
	 */
	assert_true(share_of(svg, 11) < 1);
	assert_true(share_of(svg, 50) > 70 && share_of(svg, 50) < 85);
	assert_true(share_of(svg, 12) > 5 && share_of(svg, 12) < 20);
	free(svg);
	fake_free(&f);

	/* with the kernel's records of 999 too: the module's are drawn */
	fake_init(&f);
	fake_map_switch(&f.m, 0, 500000, 0, 0, NULL);
	pebs_timeline__update(f.tl);
	write_file(path, &f, true);
	svg = plot_of(path, &src);
	assert_int_equal(src, PEBS_CPUPLOT_MODULE_SWITCH);
	assert_null(strstr(svg, ":999"));
	assert_non_null(strstr(svg, ":12 ("));
	free(svg);
	fake_free(&f);
	unlink(path);
	rmdir(dir);
}

/* the kernel's records alone: drawn, and named so */
static void test_plot_kernel(void **state)
{
	char dir[] = "/tmp/test-switchrec.XXXXXX", path[64];
	struct perf_event_attr k = attr_of(true);
	struct pebs_perfdata_writer *w;
	enum pebs_cpuplot_source src;
	const uint64_t kid = 90;
	union krec r;
	char *svg;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k.data", dir);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &k, &kid, 1,
							"dummy"), 0);
	assert_int_equal(pebs_perfdata_writer__commit(w), 0);
	assert_int_equal(pebs_perfdata_writer__write(w,
				kernel_rec(&r, kid, 1500000)), 0);
	assert_int_equal(pebs_perfdata_writer__write(w,
				kernel_rec(&r, kid, 2500000)), 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	svg = plot_of(path, &src);
	assert_int_equal(src, PEBS_CPUPLOT_KERNEL_SWITCH);
	assert_non_null(strstr(svg, "thread segments from PERF_RECORD_SWITCH"));
	assert_non_null(strstr(svg, ":999 ("));
	free(svg);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_overrun),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_plot),
		cmocka_unit_test(test_plot_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
