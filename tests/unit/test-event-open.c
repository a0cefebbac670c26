// SPDX-License-Identifier: MIT
/*
 * test-event-open - perf's open-time retries (lib/event/event-mods.c) against
 * fake kernels that refuse what old kernels and PMU-less machines
 * refuse: the :P walk of precise_ip (taken at 1; all refused, then
 * restored), the missing features on EINVAL in perf's order (no
 * FORMAT_LOST, WEIGHT for WEIGHT_STRUCT, no exclude_guest/host), both
 * together, errors that are not retried; and pebs_event__fallback:
 * cycles -> cpu-clock with perf's message and name, the kernel excluded
 * on EACCES under perf_event_paranoid 2, nothing else.
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
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "event/event-internal.h"

/* a fake kernel: what it refuses, and with which errno */
struct kernel {
	unsigned int max_precise;	/* higher: EOPNOTSUPP */
	bool no_pmu;			/* every HARDWARE event: ENOENT */
	bool no_lost, no_weight_struct, no_guest;	/* EINVAL */
	unsigned int calls;
	unsigned int precise[32];	/* precise_ip of each call */
};

static int k_open(struct kernel *k, const struct perf_event_attr *a)
{
	if (k->calls < 32)
		k->precise[k->calls] = a->precise_ip;
	k->calls++;
	if (k->no_pmu && a->type == PERF_TYPE_HARDWARE)
		return ENOENT;
	if (a->precise_ip > k->max_precise)
		return EOPNOTSUPP;
	if ((k->no_lost && (a->read_format & PERF_FORMAT_LOST)) ||
	    (k->no_weight_struct &&
	     (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) ||
	    (k->no_guest && (a->exclude_guest || a->exclude_host)))
		return EINVAL;
	return 0;
}

/* channel.c's loop: 0 or the errno given up with */
static int open_loop(struct kernel *k, struct perf_event_attr *a,
		     bool precise_max, bool weight)
{
	struct pebs_open_try t;
	int err;

	event_open_try_init(&t, a, precise_max, weight);
	while ((err = k_open(k, a)) && event_open_try_next(&t, a, err))
		assert_true(k->calls < 64);
	return err;
}

static void attr_init(struct perf_event_attr *a, unsigned int precise)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_RAW;
	a->config = 0x81d0;
	a->precise_ip = precise;
	a->exclude_guest = 1;
	a->read_format = PERF_FORMAT_LOST;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_WEIGHT_STRUCT;
}

static void test_precise_walk(void **state)
{
	struct kernel k = { .max_precise = 1 };
	struct perf_event_attr a;

	(void)state;
	attr_init(&a, 3);
	assert_int_equal(open_loop(&k, &a, true, true), 0);
	assert_int_equal(k.calls, 3);
	assert_int_equal(k.precise[0], 3);
	assert_int_equal(k.precise[1], 2);
	assert_int_equal(k.precise[2], 1);
	assert_int_equal(a.precise_ip, 1);
	/* EOPNOTSUPP is no missing feature: the rest of the attr stays */
	assert_true(a.read_format & PERF_FORMAT_LOST);
	assert_int_equal(a.exclude_guest, 1);

	/* without :P, pp is pp: refused once, not lowered */
	memset(&k, 0, sizeof(k));
	k.max_precise = 1;
	attr_init(&a, 2);
	assert_int_equal(open_loop(&k, &a, false, true), EOPNOTSUPP);
	assert_int_equal(k.calls, 1);
	assert_int_equal(a.precise_ip, 2);
}

/* no PMU: 3, 2, 1, 0 all refused; precise_ip back to 3 for the fallback */
static void test_precise_restored(void **state)
{
	struct kernel k = { .max_precise = 3, .no_pmu = true };
	struct perf_event_attr a;

	(void)state;
	attr_init(&a, 3);
	a.type = PERF_TYPE_HARDWARE;
	assert_int_equal(open_loop(&k, &a, true, false), ENOENT);
	assert_int_equal(k.calls, 4);
	assert_int_equal(k.precise[3], 0);
	assert_int_equal(a.precise_ip, 3);
}

/* EINVAL: newest feature first, cumulative, as perf_missing_features */
static void test_missing_features(void **state)
{
	struct kernel k = { .max_precise = 3, .no_lost = true };
	struct perf_event_attr a;

	(void)state;
	/* Linux 5.12..5.19: no FORMAT_LOST */
	attr_init(&a, 0);
	assert_int_equal(open_loop(&k, &a, false, true), 0);
	assert_int_equal(k.calls, 2);
	assert_false(a.read_format & PERF_FORMAT_LOST);
	assert_true(a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
	assert_int_equal(a.exclude_guest, 1);

	/* before 5.12: WEIGHT for WEIGHT_STRUCT too */
	memset(&k, 0, sizeof(k));
	k.no_lost = k.no_weight_struct = true;
	attr_init(&a, 0);
	assert_int_equal(open_loop(&k, &a, false, true), 0);
	assert_int_equal(k.calls, 3);
	assert_true(a.sample_type & PERF_SAMPLE_WEIGHT);
	assert_false(a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);

	/* a kernel without exclude_guest: every step, then without it */
	memset(&k, 0, sizeof(k));
	k.no_guest = true;
	attr_init(&a, 0);
	a.exclude_host = 1;
	assert_int_equal(open_loop(&k, &a, false, true), 0);
	assert_int_equal(k.calls, 4);
	assert_int_equal(a.exclude_guest, 0);
	assert_int_equal(a.exclude_host, 0);
	assert_false(a.read_format & PERF_FORMAT_LOST);

	/* no WEIGHT stand-in outside the default sample_type: skipped */
	memset(&k, 0, sizeof(k));
	k.no_weight_struct = true;
	attr_init(&a, 0);
	assert_int_equal(open_loop(&k, &a, false, false), EINVAL);
	assert_int_equal(k.calls, 3);	/* as is, no LOST, no guest */
	assert_true(a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
}

/* :P on a kernel without exclude_guest: the walk at every step */
static void test_walk_per_step(void **state)
{
	struct kernel k = { .max_precise = 2, .no_guest = true };
	struct perf_event_attr a;

	(void)state;
	attr_init(&a, 3);
	a.sample_type = PERF_SAMPLE_IP;		/* no WEIGHT step */
	assert_int_equal(open_loop(&k, &a, true, true), 0);
	/* as is: 3 2 1 0; no LOST: 3 2 1 0; no guest: 3 2 */
	assert_int_equal(k.calls, 10);
	assert_int_equal(k.precise[4], 3);
	assert_int_equal(k.precise[8], 3);
	assert_int_equal(a.precise_ip, 2);
	assert_int_equal(a.exclude_guest, 0);
}

static void test_cycles_fallback(void **state)
{
	struct pebs_event ev;

	(void)state;
	assert_int_equal(pebs_event__parse("cycles:pp", &ev), 0);
	assert_false(pebs_event__fallback(&ev, EINVAL));
	assert_false(pebs_event__fallback(&ev, EOPNOTSUPP));
	assert_true(pebs_event__fallback(&ev, -ENOENT));
	assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev.attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(ev.attr.sample_period, 250000);
	assert_int_equal(ev.attr.precise_ip, 2);	/* perf keeps it */
	assert_string_equal(ev.name, "cpu-clock:pp");
	assert_true(ev.flags & PEBS_EVENT_SOFTWARE);
	assert_non_null(strstr(ev.note, "The cycles event is not supported, "
			       "trying to fall back to cpu-clock-ticks"));
	assert_false(pebs_event__fallback(&ev, ENOENT));

	/* a period given stays; ENODEV and ENXIO too; :P's name is ppp */
	assert_int_equal(pebs_event__parse("cycles:P:period=1000", &ev), 0);
	assert_true(pebs_event__fallback(&ev, ENODEV));
	assert_int_equal(ev.attr.sample_period, 1000);
	assert_string_equal(ev.name, "cpu-clock:ppp");
	assert_false(ev.flags & PEBS_EVENT_PRECISE_MAX);
	assert_int_equal(pebs_event__parse("cycles", &ev), 0);
	assert_true(pebs_event__fallback(&ev, ENXIO));
	assert_string_equal(ev.name, "cpu-clock");

	/* other hardware events have no fallback, as in perf */
	assert_int_equal(pebs_event__parse("instructions", &ev), 0);
	assert_false(pebs_event__fallback(&ev, ENOENT));
	assert_string_equal(ev.name, "instructions");
	assert_false(pebs_event__fallback(NULL, ENOENT));
}

static void test_kernel_fallback(void **state)
{
	char path[] = "/tmp/test-event-open.XXXXXX";
	struct pebs_event ev;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("2\n", f);
	fclose(f);
	/* parsed where the kernel is allowed, refused when opened */
	event_priv_override(1);
	assert_int_equal(pebs_event__parse("cpu-clock:pp", &ev), 0);
	event_priv_override(-1);
	assert_int_equal(ev.attr.exclude_kernel, 0);
	event_priv_set_paranoid_file(path);
	assert_true(pebs_event__fallback(&ev, EACCES));
	assert_int_equal(ev.attr.exclude_kernel, 1);
	assert_int_equal(ev.attr.exclude_hv, 1);
	assert_string_equal(ev.name, "cpu-clock:ppu");	/* perf's "u" */
	assert_non_null(strstr(ev.note, "kernel.perf_event_paranoid=2, "
			       "trying to fall back to excluding kernel"));
	assert_false(pebs_event__fallback(&ev, EACCES));

	event_priv_override(1);
	assert_int_equal(pebs_event__parse("page-faults", &ev), 0);
	event_priv_override(-1);
	assert_true(pebs_event__fallback(&ev, -EACCES));
	assert_string_equal(ev.name, "page-faults:u");
	/* :k excludes user: no fallback */
	event_priv_override(1);
	assert_int_equal(pebs_event__parse("page-faults:k", &ev), 0);
	event_priv_override(-1);
	assert_false(pebs_event__fallback(&ev, EACCES));
	/* paranoid 1 lets the kernel in: EACCES has another cause */
	f = fopen(path, "w");
	fputs("1\n", f);
	fclose(f);
	event_priv_override(1);
	assert_int_equal(pebs_event__parse("page-faults", &ev), 0);
	event_priv_override(-1);
	assert_false(pebs_event__fallback(&ev, EACCES));
	event_priv_set_paranoid_file(NULL);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precise_walk),
		cmocka_unit_test(test_precise_restored),
		cmocka_unit_test(test_missing_features),
		cmocka_unit_test(test_walk_per_step),
		cmocka_unit_test(test_cycles_fallback),
		cmocka_unit_test(test_kernel_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
