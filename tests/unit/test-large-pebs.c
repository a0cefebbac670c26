// SPDX-License-Identifier: MIT
/*
 * test-large-pebs - pebs_attr_large_pebs() against the rules of Linux 6.1
 * (intel_pmu_hw_config, intel_pmu_large_pebs_flags, LARGE_PEBS_FLAGS),
 * and the attrs pebs_channel_attr() builds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <asm/perf_regs.h>

#include "pebsshim.h"
#include "core/internal.h"

/* a Skylake ALL_LOADS PEBS event as pebs_event__parse would give it */
static void pebs_loads(struct pebs_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "MEM_INST_RETIRED:ALL_LOADS");
	strcpy(ev->pmu, "skl");
	ev->flags = PEBS_EVENT_PRECISE | PEBS_EVENT_MEMORY;
	ev->attr.type = PERF_TYPE_RAW;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.config = 0x81d0;
	ev->attr.precise_ip = 2;
	ev->attr.exclude_kernel = 1;
}

static void page_faults(struct pebs_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "page-faults");
	ev->flags = PEBS_EVENT_SOFTWARE;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
}

/* a batchable attr to break one rule at a time */
static struct perf_event_attr good(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_RAW,
		.config = 0x81d0,
		.precise_ip = 2,
		.sample_period = 10007,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_ADDR,
	};
	return a;
}

static void assert_not(const struct perf_event_attr *a, const char *want)
{
	const char *why = NULL;

	assert_false(pebs_attr_large_pebs(a, &why));
	assert_non_null(why);
	if (!strstr(why, want))
		fail_msg("why is \"%s\", expected \"%s\"", why, want);
}

static void test_good(void **state)
{
	struct perf_event_attr a = good();
	const char *why = "unset";

	(void)state;
	assert_true(pebs_attr_large_pebs(&a, &why));
	assert_string_equal(why, "unset");	/* untouched when batchable */
	assert_true(pebs_attr_large_pebs(&a, NULL));
}

static void test_precise(void **state)
{
	struct perf_event_attr a = good();

	(void)state;
	a.precise_ip = 0;
	assert_not(&a, "precise_ip is 0");
	for (unsigned int p = 1; p <= 3; p++) {
		a.precise_ip = p;
		assert_true(pebs_attr_large_pebs(&a, NULL));
	}
}

static void test_freq(void **state)
{
	struct perf_event_attr a = good();

	(void)state;
	a.freq = 1;
	a.sample_freq = 4000;
	assert_not(&a, "freq mode");
	assert_false(pebs_attr_large_pebs(&a, NULL));
}

static void test_wakeup(void **state)
{
	struct perf_event_attr a = good();

	(void)state;
	a.wakeup_events = 1;
	assert_not(&a, "wakeup_events without watermark");
	/* the same union read as a byte watermark is fine */
	a.watermark = 1;
	a.wakeup_watermark = 4096;
	assert_true(pebs_attr_large_pebs(&a, NULL));
}

/* every bit of the 6.1 set (plus TIME on Skylake+) batches */
static void test_allowed_bits(void **state)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
		PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_CPU,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_DATA_SRC,
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_TRANSACTION,
		PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_CODE_PAGE_SIZE, PERF_SAMPLE_WEIGHT,
		PERF_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_REGS_INTR,
	};
	struct perf_event_attr a = good();

	(void)state;
	a.sample_regs_intr = 1ULL << PERF_REG_X86_AX;
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++) {
		a.sample_type = bits[i];
		if (!pebs_attr_large_pebs(&a, NULL))
			fail_msg("bit 0x%llx alone not batchable",
				 (unsigned long long)bits[i]);
	}
	a.sample_type = 0;
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		a.sample_type |= bits[i];
	assert_true(pebs_attr_large_pebs(&a, NULL));
}

static void test_refused_bits(void **state)
{
	static const struct {
		uint64_t bit;
		const char *why;
	} bits[] = {
		{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" },
		{ PERF_SAMPLE_READ, "READ" },
		{ PERF_SAMPLE_RAW, "RAW" },
		{ PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
		{ PERF_SAMPLE_STACK_USER, "STACK_USER" },
		{ PERF_SAMPLE_AUX, "AUX" },
		{ PERF_SAMPLE_CGROUP, "CGROUP" },
		{ PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	};
	struct perf_event_attr a = good();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++) {
		a.sample_type = PERF_SAMPLE_IP | bits[i].bit;
		assert_not(&a, bits[i].why);
	}
	/* an unknown future bit */
	a.sample_type = PERF_SAMPLE_IP | (1ULL << 40);
	assert_not(&a, "outside the large-PEBS set");
}

static void test_clockid(void **state)
{
	struct perf_event_attr a = good();

	(void)state;
	a.sample_type |= PERF_SAMPLE_TIME;
	assert_true(pebs_attr_large_pebs(&a, NULL));
	a.use_clockid = 1;
	a.clockid = 1;	/* CLOCK_MONOTONIC */
	assert_not(&a, "TIME with use_clockid");
	/* use_clockid without TIME is fine */
	a.sample_type &= ~PERF_SAMPLE_TIME;
	assert_true(pebs_attr_large_pebs(&a, NULL));
}

static void test_regs(void **state)
{
	struct perf_event_attr a = good();

	(void)state;
	a.sample_type |= PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = 1ULL << PERF_REG_X86_SP;
	assert_not(&a, "without exclude_kernel");
	a.exclude_kernel = 1;
	assert_true(pebs_attr_large_pebs(&a, NULL));
	a.sample_regs_user |= 1ULL << PERF_REG_X86_DS;	/* not in PEBS */
	assert_not(&a, "REGS_USER beyond the GP registers");

	a = good();
	a.sample_type |= PERF_SAMPLE_REGS_INTR;
	a.sample_regs_intr = (1ULL << PERF_REG_X86_R15) |
			     (1ULL << PERF_REG_X86_FLAGS);
	assert_true(pebs_attr_large_pebs(&a, NULL));
	a.sample_regs_intr |= 1ULL << PERF_REG_X86_XMM0;
	assert_not(&a, "REGS_INTR beyond the GP registers");
}

/* the first reason is named: precise, then freq, then wakeup, then type */
static void test_order(void **state)
{
	struct perf_event_attr a = good();

	(void)state;
	a.precise_ip = 0;
	a.freq = 1;
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	assert_not(&a, "precise_ip");
	a.precise_ip = 1;
	assert_not(&a, "freq mode");
	a.freq = 0;
	assert_not(&a, "CALLCHAIN");
}

static void test_default_pebs_attr(void **state)
{
	struct perf_event_attr a;
	struct pebs_event ev;
	const char *why = NULL;

	(void)state;
	pebs_loads(&ev);
	assert_int_equal(pebs_channel_attr(&ev, NULL, &a, sizeof(a)), 0);
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(a.type, PERF_TYPE_RAW);
	assert_int_equal(a.config, 0x81d0);
	assert_int_equal(a.precise_ip, 2);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(a.sample_type, PEBS_CHANNEL_PEBS_SAMPLE);
	assert_true(a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
	assert_true(a.sample_type & PERF_SAMPLE_DATA_SRC);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.sample_period, PEBS_CHANNEL_DEF_PERIOD);
	assert_int_equal(a.sample_id_all, 1);
	assert_int_equal(a.watermark, 1);
	assert_int_equal(a.wakeup_watermark,
			 PEBS_CHANNEL_DEF_PAGES * sysconf(_SC_PAGESIZE) / 2);
	assert_int_equal(a.disabled, 0);
	assert_int_equal(a.inherit, 0);
	assert_int_equal(a.use_clockid, 0);
	if (!pebs_attr_large_pebs(&a, &why))
		fail_msg("default PEBS attr not batchable: %s", why);

	/* options that keep it batchable */
	{
		PEBS_OPTS(pebs_channel_opts, o, .period = 1000,
			  .ring_pages = 8, .watermark = 4096,
			  .inherit = true, .disabled = true,
			  .context_switch = true, .task_records = true);

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), 0);
		assert_int_equal(a.sample_period, 1000);
		assert_int_equal(a.wakeup_watermark, 4096);
		assert_int_equal(a.inherit, 1);
		assert_int_equal(a.disabled, 1);
		assert_int_equal(a.context_switch, 1);
		assert_true(a.comm && a.comm_exec && a.mmap && a.mmap2 &&
			    a.mmap_data && a.task);
		assert_true(pebs_attr_large_pebs(&a, NULL));
	}
	/* ... and those that do not */
	{
		PEBS_OPTS(pebs_channel_opts, o, .freq = 1000);

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), 0);
		assert_int_equal(a.freq, 1);
		assert_int_equal(a.sample_freq, 1000);
		assert_not(&a, "freq mode");
	}
	{
		PEBS_OPTS(pebs_channel_opts, o, .use_clockid = true,
			  .clockid = 1);

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), 0);
		assert_int_equal(a.use_clockid, 1);
		assert_int_equal(a.clockid, 1);
		assert_not(&a, "TIME with use_clockid");
	}
	/* the event's own period is kept when no option overrides it */
	ev.attr.sample_period = 20011;
	assert_int_equal(pebs_channel_attr(&ev, NULL, &a, sizeof(a)), 0);
	assert_int_equal(a.sample_period, 20011);
}

static void test_default_sw_attr(void **state)
{
	struct perf_event_attr a;
	struct pebs_event ev;

	(void)state;
	page_faults(&ev);
	assert_int_equal(pebs_channel_attr(&ev, NULL, &a, sizeof(a)), 0);
	assert_int_equal(a.sample_type, PEBS_CHANNEL_SW_SAMPLE);
	assert_true(a.sample_type & PERF_SAMPLE_PERIOD);
	assert_int_equal(a.sample_period, PEBS_CHANNEL_DEF_PERIOD);
	{
		PEBS_OPTS(pebs_channel_opts, o, .enable_on_exec = true);

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), 0);
		assert_int_equal(a.enable_on_exec, 1);
		assert_int_equal(a.disabled, 1);	/* implied */
	}
}

static void test_bad_opts(void **state)
{
	struct perf_event_attr a;
	struct pebs_event ev;

	(void)state;
	pebs_loads(&ev);
	{
		PEBS_OPTS(pebs_channel_opts, o, .period = 1, .freq = 1);

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), -EINVAL);
		assert_non_null(strstr(pebs_errmsg(), "choose one"));
	}
	{
		PEBS_OPTS(pebs_channel_opts, o, .ring_pages = 3);

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), -EINVAL);
	}
	{
		PEBS_OPTS(pebs_channel_opts, o,
			  .ring_pages = PEBS_CHANNEL_MAX_PAGES * 2);

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), -EINVAL);
	}
	{
		PEBS_OPTS(pebs_channel_opts, o, .ring_pages = 1,
			  .watermark = 1u << 20);

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), -EINVAL);
	}
	{
		struct pebs_channel_opts o = { .sz = 0 };

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), -EINVAL);
		assert_non_null(strstr(pebs_errmsg(), "PEBS_OPTS"));
	}
	{
		/* a newer caller: unknown zero tail ok, non-zero refused */
		struct {
			struct pebs_channel_opts o;
			uint64_t more;
		} big;

		memset(&big, 0, sizeof(big));
		big.o.sz = sizeof(big);
		assert_int_equal(pebs_channel_attr(&ev, &big.o, &a, sizeof(a)), 0);
		big.more = 1;
		assert_int_equal(pebs_channel_attr(&ev, &big.o, &a, sizeof(a)), -EINVAL);
	}
	{
		/* an older caller knowing only sz and sample_type */
		struct pebs_channel_opts o = {
			.sz = offsetof(struct pebs_channel_opts, period),
			.sample_type = PERF_SAMPLE_IP,
			.period = 77,	/* beyond sz: ignored */
		};

		assert_int_equal(pebs_channel_attr(&ev, &o, &a, sizeof(a)), 0);
		assert_int_equal(a.sample_type, PERF_SAMPLE_IP);
		assert_int_equal(a.sample_period, PEBS_CHANNEL_DEF_PERIOD);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_precise),
		cmocka_unit_test(test_freq),
		cmocka_unit_test(test_wakeup),
		cmocka_unit_test(test_allowed_bits),
		cmocka_unit_test(test_refused_bits),
		cmocka_unit_test(test_clockid),
		cmocka_unit_test(test_regs),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_default_pebs_attr),
		cmocka_unit_test(test_default_sw_attr),
		cmocka_unit_test(test_bad_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
