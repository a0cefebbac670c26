// SPDX-License-Identifier: MIT
/*
 * test-abi.c - the public structs keep their size and layout, and the
 * library honours the "Extensible structs" rules of pebsshim.h: an
 * sz-prefixed struct of an older caller (smaller sz) works with the
 * missing fields at their defaults, a newer caller's (larger sz) is
 * accepted with a zero tail and refused with -EINVAL otherwise, for
 * every such struct; the attr area of struct pebs_event must be zero
 * past the library's perf_event_attr; perf_event_attr pointers are read
 * and written at the caller's size.
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

/*
 * The sizes (x86-64) callers were compiled with: changing one breaks
 * them. Appending to an sz-prefixed struct is allowed (then raise its
 * size here and run make abi-dump); the others are fixed for the
 * soname.
 */
_Static_assert(sizeof(struct pebs_event) == 848, "pebs_event");
_Static_assert(offsetof(struct pebs_event, attr) == 424, "pebs_event.attr");
_Static_assert(offsetof(struct pebs_event, note) == 680, "pebs_event.note");
_Static_assert(sizeof(((struct pebs_event *)0)->attr_area) ==
	       PEBS_EVENT_ATTR_AREA, "pebs_event.attr_area");
_Static_assert(PEBS_EVENT_ATTR_AREA == 256, "PEBS_EVENT_ATTR_AREA");
_Static_assert(sizeof(struct pebs_channel_opts) == 56, "pebs_channel_opts");
_Static_assert(sizeof(struct pebs_chanset_cbs) == 40, "pebs_chanset_cbs");
_Static_assert(sizeof(struct pebs_observer_opts) == 24, "pebs_observer_opts");
_Static_assert(sizeof(struct pebs_obs_raw_opts) == 24, "pebs_obs_raw_opts");
_Static_assert(sizeof(struct pebs_attrib_cbs) == 24, "pebs_attrib_cbs");
_Static_assert(sizeof(struct pebs_flame_svg_opts) == 48,
	       "pebs_flame_svg_opts");
_Static_assert(sizeof(struct pebs_switchrec_cbs) == 16, "pebs_switchrec_cbs");
_Static_assert(offsetof(struct pebs_attrib_cbs, sz) == 0 &&
	       offsetof(struct pebs_flame_svg_opts, sz) == 0 &&
	       offsetof(struct pebs_channel_opts, sz) == 0 &&
	       offsetof(struct pebs_chanset_cbs, sz) == 0 &&
	       offsetof(struct pebs_observer_opts, sz) == 0 &&
	       offsetof(struct pebs_obs_raw_opts, sz) == 0 &&
	       offsetof(struct pebs_switchrec_cbs, sz) == 0, "sz first");
_Static_assert(sizeof(struct pebs_sample) == 168, "pebs_sample");
_Static_assert(sizeof(struct pebs_sample_layout) == 80, "pebs_sample_layout");
_Static_assert(sizeof(struct pebs_map_snapshot) == 56, "pebs_map_snapshot");
_Static_assert(sizeof(struct pebs_data_src) == 216, "pebs_data_src");
_Static_assert(sizeof(struct pebs_ring_stats) == 64, "pebs_ring_stats");
_Static_assert(sizeof(struct pebs_obs_raw_info) == 560, "pebs_obs_raw_info");
_Static_assert(sizeof(struct pebs_weight_summary) == 56,
	       "pebs_weight_summary");
_Static_assert(sizeof(struct pebs_obs_raw_record) == 96,
	       "pebs_obs_raw_record");
_Static_assert(sizeof(struct pebs_ids) == 16, "pebs_ids");
_Static_assert(sizeof(struct pebs_workload) == 24, "pebs_workload");
_Static_assert(sizeof(struct pebs_observer_run_opts) == 80,
	       "pebs_observer_run_opts");
_Static_assert(sizeof(struct pebs_recorder_opts) == 184 &&
	       offsetof(struct pebs_recorder_opts, sz) == 0,
	       "pebs_recorder_opts");
_Static_assert(sizeof(struct pebs_recorder_stats) == 80,
	       "pebs_recorder_stats");
_Static_assert(sizeof(struct pebs_budget_interval) == 72,
	       "pebs_budget_interval");

/* the library's perf_event_attr ends here inside the event's area */
#define LIB_ATTR	sizeof(struct perf_event_attr)

/* a hand-made cpu-clock event, as a caller without the parser makes it */
static void cpu_clock(struct pebs_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "cpu-clock");
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev->flags = PEBS_EVENT_SOFTWARE;
}

/* a caller built against a newer library: one more field after sz's */
#define NEWER(type)			\
	struct {			\
		struct type o;		\
		uint64_t more;		\
	}

static int nop_sample(void *ctx, struct pebs_channel *ch,
		      const struct pebs_sample *s,
		      const struct perf_event_header *raw)
{
	(void)ctx, (void)ch, (void)s, (void)raw;
	return 0;
}

static void test_channel_opts(void **state)
{
	struct perf_event_attr a;
	struct pebs_event ev;
	NEWER(pebs_channel_opts) big;
	/* an older caller whose struct ends before ring_pages */
	struct pebs_channel_opts old = {
		.sz = offsetof(struct pebs_channel_opts, ring_pages),
		.period = 4000,
		.ring_pages = 3,	/* past sz: never read */
	};

	(void)state;
	cpu_clock(&ev);
	assert_int_equal(pebs_channel_attr(&ev, &old, &a, sizeof(a)), 0);
	assert_int_equal(a.sample_period, 4000);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.period = 5000;
	assert_int_equal(pebs_channel_attr(&ev, &big.o, &a, sizeof(a)), 0);
	assert_int_equal(a.sample_period, 5000);
	big.more = 1;
	assert_int_equal(pebs_channel_attr(&ev, &big.o, &a, sizeof(a)),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "pebs_channel_opts has a "
			       "non-zero field at byte 56"));
	old.sz = 0;
	assert_int_equal(pebs_channel_attr(&ev, &old, &a, sizeof(a)), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "PEBS_OPTS(pebs_channel_opts"));
}

static void test_chanset_cbs(void **state)
{
	NEWER(pebs_chanset_cbs) big;
	struct pebs_chanset *set;
	struct pebs_event ev;
	/* an older caller that knew only on_sample */
	struct pebs_chanset_cbs old = {
		.sz = offsetof(struct pebs_chanset_cbs, on_record),
		.on_sample = nop_sample,
	};
	PEBS_OPTS(pebs_chanset_cbs, cur, .on_sample = nop_sample);

	(void)state;
	cpu_clock(&ev);
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, NULL,
					   &set), 0);
	/* no targets: a drain delivers nothing, after checking the cbs */
	assert_int_equal(pebs_chanset__drain(set, &cur, NULL), 0);
	assert_int_equal(pebs_chanset__drain(set, &old, NULL), 0);
	assert_int_equal(pebs_chanset__drain(set, NULL, NULL), 0);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	assert_int_equal(pebs_chanset__poll(set, 0, &big.o, NULL), 0);
	big.more = 0x40;
	assert_int_equal(pebs_chanset__poll(set, 0, &big.o, NULL), -EINVAL);
	assert_int_equal(pebs_chanset__drain(set, &big.o, NULL), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "pebs_chanset_cbs has a "
			       "non-zero field at byte 40"));
	old.sz = 4;
	assert_int_equal(pebs_chanset__drain(set, &old, NULL), -EINVAL);
	pebs_chanset__delete(set);
}

static void test_observer_opts(void **state)
{
	NEWER(pebs_observer_opts) big;
	struct pebs_observer *obs = NULL;

	(void)state;
	/* the options are checked before anything else (rdtscp, pinning) */
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.more = 1;
	assert_int_equal(pebs_observer__new(0, &big.o, &obs), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "pebs_observer_opts has a "
			       "non-zero field at byte 24"));
	big.o.sz = 2;
	assert_int_equal(pebs_observer__new(0, &big.o, &obs), -EINVAL);
	assert_null(obs);
}

static void test_obs_raw_opts(void **state)
{
	char dir[] = "/tmp/test-abi.XXXXXX", path[64], line[128];
	struct pebs_obs_raw_info info = { .nr_events = 1, .nr_cpus = 1 };
	NEWER(pebs_obs_raw_opts) big;
	/* an older caller that knew only csv */
	struct pebs_obs_raw_opts old = {
		.sz = offsetof(struct pebs_obs_raw_opts, max_bytes),
		.csv = true,
		.max_bytes = 1,		/* past sz: never read */
	};
	const unsigned int cpus[1] = { 0 };
	const uint64_t row[2 + PEBS_OBS_CPU_HEAD + 1] = { 0 };
	const uint64_t deltas[1] = { 5 };
	struct pebs_obs_raw *raw;
	int n = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/raw.csv", dir);
	strcpy(info.names[0], "task-clock");
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.more = 1;
	assert_int_equal(pebs_obs_raw__create(path, &info, cpus, &big.o, &raw),
			 -EINVAL);
	assert_int_equal(pebs_obs_raw__create(path, &info, cpus, &old, &raw),
			 0);
	/* max_bytes was not read: both rows are written */
	assert_int_equal(pebs_obs_raw__add_row(raw, row, 1, deltas), 0);
	assert_int_equal(pebs_obs_raw__add_row(raw, row, 1, deltas), 0);
	assert_int_equal(pebs_obs_raw__close(raw), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "tsc,dt,cpu,tgid,pid,switches,task-clock\n");
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	assert_int_equal(n, 2);
	unlink(path);
	rmdir(dir);
}

static int count_emit(void *ctx, unsigned int tag,
		      const struct pebs_sample *s,
		      const struct perf_event_header *raw,
		      const struct pebs_attrib_who *who)
{
	(void)tag, (void)s, (void)raw;
	if (who->tid == 42)
		++*(int *)ctx;
	return 0;
}

static void test_attrib_cbs(void **state)
{
	struct pebs_sample s = { .pid = 42, .tid = 42 };
	struct perf_event_header raw = { PERF_RECORD_SAMPLE, 0, sizeof(raw) };
	NEWER(pebs_attrib_cbs) big;
	/* an older caller that knew only emit */
	struct pebs_attrib_cbs old = {
		.sz = offsetof(struct pebs_attrib_cbs, mismatch),
		.emit = count_emit,
	};
	struct pebs_attrib *a;
	int n = 0;

	(void)state;
	assert_int_equal(pebs_attrib__new(PEBS_ATTRIB_TID, NULL, 0, &a), 0);
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &raw, &old, &n), 0);
	assert_int_equal(n, 1);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.emit = count_emit;
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &raw, &big.o, &n), 0);
	assert_int_equal(n, 2);
	big.more = 1;
	assert_int_equal(pebs_attrib__sample(a, 0, &s, &raw, &big.o, &n),
			 -EINVAL);
	assert_int_equal(pebs_attrib__round(a, &big.o, &n), -EINVAL);
	assert_int_equal(n, 2);
	assert_int_equal(pebs_attrib__round(a, &old, &n), 0);
	pebs_attrib__delete(a);
}

/* the SVG of a one-frame tree drawn with @o */
static int flame_svg(const struct pebs_flame_svg_opts *o, char **buf)
{
	struct pebs_flame *f;
	size_t len = 0;
	FILE *m;
	int err;

	assert_int_equal(pebs_flame__new(&f), 0);
	m = open_memstream(buf, &len);
	assert_non_null(m);
	err = pebs_flame__write_svg(f, m, o);
	fclose(m);
	pebs_flame__delete(f);
	return err;
}

static void test_flame_svg_opts(void **state)
{
	NEWER(pebs_flame_svg_opts) big;
	/* an older caller that knew only the title */
	struct pebs_flame_svg_opts old = {
		.sz = offsetof(struct pebs_flame_svg_opts, subtitle),
		.title = "Old Title",
		.subtitle = "never read",
	};
	char *svg = NULL;

	(void)state;
	assert_int_equal(flame_svg(&old, &svg), 0);
	assert_non_null(strstr(svg, "Old Title"));
	assert_null(strstr(svg, "never read"));
	free(svg);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.more = 1;
	svg = NULL;
	assert_int_equal(flame_svg(&big.o, &svg), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "pebs_flame_svg_opts has a "
			       "non-zero field at byte 48"));
	free(svg);
}

static void test_event_attr_area(void **state)
{
	struct perf_event_attr a;
	struct pebs_event ev;

	(void)state;
	cpu_clock(&ev);
	/* a newer caller's field past the library's attr, left zero */
	ev.attr.size = PEBS_EVENT_ATTR_AREA;
	assert_int_equal(pebs_channel_attr(&ev, NULL, &a, sizeof(a)), 0);
	assert_int_equal(a.size, sizeof(a));
	/* ... and set: neither opened, nor probed */
	ev.attr_area[LIB_ATTR + 3] = 1;
	assert_int_equal(pebs_channel_attr(&ev, NULL, &a, sizeof(a)), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "event cpu-clock: attr has a "
			       "non-zero field at byte"));
	assert_int_equal(pebs_event__probe(&ev), -EINVAL);
	ev.attr_area[LIB_ATTR + 3] = 0;
	ev.attr_area[PEBS_EVENT_ATTR_AREA - 1] = 1;
	assert_int_equal(pebs_channel_attr(&ev, NULL, &a, sizeof(a)), -EINVAL);
}

static void test_channel_attr_size(void **state)
{
	unsigned char buf[sizeof(struct perf_event_attr) + 16];
	struct perf_event_attr *a = (struct perf_event_attr *)buf;
	PEBS_OPTS(pebs_channel_opts, o, .use_clockid = true, .clockid = 1);
	struct pebs_event ev;

	(void)state;
	cpu_clock(&ev);
	/* an older caller's attr (PERF_ATTR_SIZE_VER3, 96 bytes): the
	   bytes past it are not written */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(pebs_channel_attr(&ev, &o, a, PERF_ATTR_SIZE_VER3),
			 0);
	assert_int_equal(a->size, PERF_ATTR_SIZE_VER3);
	assert_int_equal(a->clockid, 1);
	assert_int_equal(a->config, PERF_COUNT_SW_CPU_CLOCK);
	for (size_t i = PERF_ATTR_SIZE_VER3; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xa5);
	/* clockid lies past VER2 (80 bytes): it does not fit */
	assert_int_equal(pebs_channel_attr(&ev, &o, a, PERF_ATTR_SIZE_VER2),
			 -E2BIG);
	assert_int_equal(pebs_channel_attr(&ev, NULL, a, PERF_ATTR_SIZE_VER2),
			 0);
	assert_int_equal(pebs_channel_attr(&ev, NULL, a, 8), -EINVAL);
	/* a newer caller's larger attr: zeroed past the library's */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(pebs_channel_attr(&ev, NULL, a, sizeof(buf)), 0);
	assert_int_equal(a->size, sizeof(struct perf_event_attr));
	for (size_t i = sizeof(struct perf_event_attr); i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
}

static void test_writer_attr_size(void **state)
{
	char dir[] = "/tmp/test-abi.XXXXXX", path[64];
	unsigned char buf[sizeof(struct perf_event_attr) + 16];
	struct perf_event_attr *a = (struct perf_event_attr *)buf;
	struct pebs_perfdata_writer *w;
	const struct perf_event_attr *got;
	struct pebs_perfdata *pd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	/* an older caller's attr (VER5): garbage past its size unread */
	memset(buf, 0xa5, sizeof(buf));
	memset(buf, 0, PERF_ATTR_SIZE_VER5);
	a->size = PERF_ATTR_SIZE_VER5;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_PAGE_FAULTS;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, a, NULL, 0, "pf"),
			 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	got = pebs_perfdata__attr(pd, 0, NULL, NULL);
	assert_non_null(got);
	assert_int_equal(got->config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(got->sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	assert_int_equal(got->aux_sample_size, 0);	/* past VER5 */
	assert_int_equal(got->sig_data, 0);
	pebs_perfdata__close(pd);
	/* a newer caller's attr with a field past the library's: refused */
	memset(buf + PERF_ATTR_SIZE_VER5, 0, sizeof(buf) - PERF_ATTR_SIZE_VER5);
	a->size = sizeof(buf);
	buf[sizeof(buf) - 1] = 1;
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, a, NULL, 0, "pf"),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "non-zero field at byte"));
	buf[sizeof(buf) - 1] = 0;
	a->size = 32;			/* below PERF_ATTR_SIZE_VER0 */
	assert_int_equal(pebs_perfdata_writer__add_attr(w, a, NULL, 0, "pf"),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "PERF_ATTR_SIZE_VER0"));
	a->size = sizeof(buf);		/* a zero tail: accepted */
	assert_int_equal(pebs_perfdata_writer__add_attr(w, a, NULL, 0, "pf"),
			 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_channel_opts),
		cmocka_unit_test(test_chanset_cbs),
		cmocka_unit_test(test_observer_opts),
		cmocka_unit_test(test_obs_raw_opts),
		cmocka_unit_test(test_attrib_cbs),
		cmocka_unit_test(test_flame_svg_opts),
		cmocka_unit_test(test_event_attr_area),
		cmocka_unit_test(test_channel_attr_size),
		cmocka_unit_test(test_writer_attr_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
