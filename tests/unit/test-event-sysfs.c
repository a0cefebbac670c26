// SPDX-License-Identifier: MIT
/*
 * test-event-sysfs - events encoded from sysfs PMU descriptions, against
 * fake trees built in /tmp:
 *  zen4: ibs_op as Linux 6.8 shows it on an EPYC 9254 (type 11 as in
 *        tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.header.txt;
 *        format cnt_ctl config:19 and l3missonly config:16 from
 *        arch/x86/events/amd/ibs.c), ibs_fetch, and a "fake" PMU with a
 *        format split across bit ranges and named events;
 *  zen5: ibs_op with the later formats (swfilt config2:0 since 6.14,
 *        ldlat config1:0-11 since 6.15, ldop config1:12 and stop
 *        config1:13 after that);
 *  bare: a cpu PMU and nothing else;
 *  empty: no PMU at all.
 * The AMD Zen4 core PMU is forced so that the aliases take the IBS path.
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
#include <sys/stat.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"
#include "event/event-internal.h"

static char top[64];
static char root_zen4[128], root_zen5[128], root_bare[128], root_empty[128];

static void put(const char *root, const char *rel, const char *text)
{
	assert_int_equal(t_put_file(root, rel, text), 0);
}

static void ibs_op_zen4(const char *root)
{
	put(root, "ibs_op/type", "11\n");
	put(root, "ibs_op/format/cnt_ctl", "config:19\n");
	put(root, "ibs_op/format/l3missonly", "config:16\n");
	put(root, "ibs_op/caps/zen4_ibs_extensions", "1\n");
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/pebs-ev-sysfs-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(root_zen4, sizeof(root_zen4), "%s/zen4", top);
	snprintf(root_zen5, sizeof(root_zen5), "%s/zen5", top);
	snprintf(root_bare, sizeof(root_bare), "%s/bare", top);
	snprintf(root_empty, sizeof(root_empty), "%s/empty", top);

	ibs_op_zen4(root_zen4);
	put(root_zen4, "ibs_fetch/type", "10\n");
	put(root_zen4, "ibs_fetch/format/rand_en", "config:57\n");
	put(root_zen4, "ibs_fetch/format/l3missonly", "config:59\n");
	put(root_zen4, "cpu/type", "4\n");
	put(root_zen4, "fake/type", "42\n");
	put(root_zen4, "fake/format/event", "config:0-7,32-35\n");
	put(root_zen4, "fake/format/umask", "config:8-15\n");
	put(root_zen4, "fake/format/edge", "config:18\n");
	put(root_zen4, "fake/format/thresh", "config1:0-11\n");
	put(root_zen4, "fake/format/filt", "config2:0-3\n");
	put(root_zen4, "fake/format/wide", "config3:0-3\n");
	put(root_zen4, "fake/events/hits", "event=0x3c,umask=0x01\n");
	put(root_zen4, "fake/events/mem-loads", "event=0xcd,umask=0x1,"
	    "thresh=?\n");
	put(root_zen4, "fake/events/far", "event=0x1d0\n");
	put(root_zen4, "fake/events/hits.scale", "1e-9\n");

	ibs_op_zen4(root_zen5);
	put(root_zen5, "ibs_op/format/swfilt", "config2:0\n");
	put(root_zen5, "ibs_op/format/ldlat", "config1:0-11\n");
	put(root_zen5, "ibs_op/format/ldop", "config1:12\n");
	put(root_zen5, "ibs_op/format/stop", "config1:13\n");
	put(root_zen5, "ibs_op/caps/ldlat", "1\n");
	put(root_zen5, "cpu/type", "4\n");

	put(root_bare, "cpu/type", "4\n");
	put(root_empty, "x", NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	event_sysfs_set_root(NULL);
	return t_rm_tree(top);
}

static struct pebs_event ev;

static int parse_in(const char *root, const char *str)
{
	int rc;

	event_sysfs_set_root(root);
	rc = pebs_event__parse(str, &ev);
	print_message("# %s: %s -> %d type %u config %#llx config1 %#llx "
		      "config2 %#llx resolved %s note [%s] %s\n",
		      root + strlen(top), str, rc, ev.attr.type,
		      (unsigned long long)ev.attr.config,
		      (unsigned long long)ev.attr.config1,
		      (unsigned long long)ev.attr.config2, ev.resolved,
		      ev.note, rc ? pebs_errmsg() : "");
	return rc;
}

static void assert_msg(const char *word)
{
	if (!strstr(pebs_errmsg(), word))
		fail_msg("'%s' not in: %s", word, pebs_errmsg());
}

static void test_root(void **state)
{
	(void)state;
	event_sysfs_set_root(NULL);
	assert_string_equal(event_sysfs_root(),
			    "/sys/bus/event_source/devices");
	event_sysfs_set_root(root_zen4);
	assert_string_equal(event_sysfs_root(), root_zen4);
	assert_true(event_sysfs_has("ibs_op", NULL));
	assert_true(event_sysfs_has("ibs_op", "format/cnt_ctl"));
	assert_false(event_sysfs_has("ibs_op", "format/swfilt"));
	assert_false(event_sysfs_has("nope", NULL));
}

static void test_ibs_op(void **state)
{
	const unsigned int ibs = PEBS_EVENT_SYSFS | PEBS_EVENT_PRECISE |
				 PEBS_EVENT_MEMORY;

	(void)state;
	assert_int_equal(parse_in(root_zen4, "ibs_op//"), 0);
	assert_int_equal(ev.attr.size, sizeof(ev.attr));
	assert_int_equal(ev.attr.type, 11);	/* read from the tree */
	assert_int_equal(ev.attr.config, 0);
	assert_int_equal(ev.attr.exclude_kernel, 0);
	assert_int_equal(ev.attr.precise_ip, 0);
	assert_int_equal(ev.flags, ibs);
	assert_string_equal(ev.pmu, "ibs_op");
	assert_string_equal(ev.resolved, "ibs_op//");

	assert_int_equal(parse_in(root_zen4, "ibs_op/cnt_ctl=1/"), 0);
	assert_int_equal(ev.attr.config, 1ull << 19);
	assert_string_equal(ev.resolved, "ibs_op/cnt_ctl=0x1/");
	assert_int_equal(parse_in(root_zen4, "ibs_op/cnt_ctl,l3missonly/"), 0);
	assert_int_equal(ev.attr.config, 0x90000);
	assert_int_equal(parse_in(root_zen4, "ibs_op/period=100000/"), 0);
	assert_int_equal(ev.attr.sample_period, 100000);
	assert_int_equal(ev.attr.freq, 0);
	assert_int_equal(parse_in(root_zen4, "ibs_op/freq=4000/"), 0);
	assert_int_equal(ev.attr.sample_freq, 4000);
	assert_int_equal(ev.attr.freq, 1);

	assert_int_equal(parse_in(root_zen4, "ibs_fetch/rand_en,l3missonly/"),
			 0);
	assert_int_equal(ev.attr.type, 10);
	assert_int_equal(ev.attr.config, (1ull << 57) | (1ull << 59));
	assert_int_equal(ev.flags, PEBS_EVENT_SYSFS | PEBS_EVENT_PRECISE);

	/* IBS periods are multiples of 16 */
	assert_int_equal(parse_in(root_zen4, "ibs_op/period=100001/"),
			 -EINVAL);
	assert_msg("multiples of 16");
	/* no privilege filter before swfilt (Linux 6.14) */
	assert_int_equal(parse_in(root_zen4, "ibs_op//u"), -EINVAL);
	assert_msg("swfilt");
	assert_int_equal(parse_in(root_zen5, "ibs_op//u"), 0);
	assert_int_equal(ev.attr.config2, 1);
	assert_int_equal(ev.attr.exclude_kernel, 1);
	assert_int_equal(ev.attr.exclude_user, 0);
	assert_string_equal(ev.resolved, "ibs_op/swfilt=0x1/u");
	assert_int_equal(parse_in(root_zen5, "ibs_op/ldlat=256,swfilt/k"), 0);
	assert_int_equal(ev.attr.config1, 256);
	assert_int_equal(ev.attr.config2, 1);
	assert_int_equal(ev.attr.exclude_user, 1);

	assert_int_equal(parse_in(root_zen4, "ibs_op/bogus=1/"), -EINVAL);
	assert_msg("unknown term 'bogus' for ibs_op");
	assert_int_equal(parse_in(root_zen4, "ibs_op/cnt_ctl=2/"), -EINVAL);
	assert_msg("does not fit cnt_ctl (1 bits)");
	assert_int_equal(parse_in(root_zen4, "ibs_op/cnt_ctl=x/"), -EINVAL);
	assert_msg("bad value 'x'");
	assert_int_equal(parse_in(root_zen4, "ibs_op/cnt_ctl"), -EINVAL);
	assert_msg("pmu/term=value");
	assert_int_equal(parse_in(root_zen4, "ibs_op//z"), -EINVAL);
	assert_msg("bad modifier 'z'");
	assert_int_equal(parse_in(root_zen4, "ibs_op/../type/"), -EINVAL);

	/* kept out of the kernel (perf_event_paranoid 2, no capability) */
	event_priv_override(0);
	assert_int_equal(parse_in(root_zen4, "ibs_op//"), -EACCES);
	assert_msg("ibs_op cannot leave out the kernel on this kernel (no "
		   "format/swfilt), and perf_event_paranoid");
	assert_int_equal(parse_in(root_zen5, "ibs_op//"), 0);
	assert_int_equal(ev.attr.exclude_kernel, 1);
	assert_int_equal(ev.attr.exclude_hv, 1);
	assert_int_equal(ev.attr.config2, 1);	/* swfilt, set for it */
	assert_non_null(strstr(ev.note, "ibs_op//: user space only"));
	event_priv_override(1);
}

static void test_generic(void **state)
{
	(void)state;
	/* value bits fill the ranges in order: 8 bits at 0-7, 4 at 32-35 */
	assert_int_equal(parse_in(root_zen4, "fake/event=0x1d0/"), 0);
	assert_int_equal(ev.attr.type, 42);
	assert_int_equal(ev.attr.config, 0x1000000d0ull);
	assert_int_equal(ev.flags, PEBS_EVENT_SYSFS);
	assert_string_equal(ev.pmu, "fake");
	assert_int_equal(parse_in(root_zen4, "fake/event=0xfff,umask=0xff,"
				  "edge/"), 0);
	assert_int_equal(ev.attr.config, 0xf0004ffffull);
	assert_int_equal(parse_in(root_zen4, "fake/event=0x1000/"), -EINVAL);
	assert_msg("does not fit event (12 bits)");

	/* named events from events/, user terms after them */
	assert_int_equal(parse_in(root_zen4, "fake/hits/"), 0);
	assert_int_equal(ev.attr.config, 0x13c);
	assert_string_equal(ev.resolved, "fake/event=0x3c,umask=0x1/");
	assert_int_equal(parse_in(root_zen4, "fake/far/"), 0);
	assert_int_equal(ev.attr.config, 0x1000000d0ull);
	assert_int_equal(parse_in(root_zen4, "fake/mem-loads,thresh=64/pp"),
			 0);
	assert_int_equal(ev.attr.config, 0x1cd);
	assert_int_equal(ev.attr.config1, 0x40);
	assert_int_equal(ev.attr.precise_ip, 2);
	assert_int_equal(ev.flags, PEBS_EVENT_SYSFS | PEBS_EVENT_PRECISE);
	assert_int_equal(parse_in(root_zen4, "fake/thresh=64,mem-loads/"), 0);
	assert_int_equal(ev.attr.config1, 0x40);
	assert_int_equal(parse_in(root_zen4, "fake/mem-loads/"), -EINVAL);
	assert_msg("the event needs thresh=N");
	assert_int_equal(parse_in(root_zen4, "fake/hits.scale/"), -EINVAL);
	assert_int_equal(parse_in(root_zen4, "fake/filt=9/"), 0);
	assert_int_equal(ev.attr.config2, 9);
	assert_int_equal(parse_in(root_zen4, "fake/wide=1/"), -EINVAL);
	assert_msg("config3");

	/* raw fields */
	assert_int_equal(parse_in(root_zen4, "fake/config=0x1234,config1=5,"
				  "config2=7,period=1000/uk"), 0);
	assert_int_equal(ev.attr.config, 0x1234);
	assert_int_equal(ev.attr.config1, 5);
	assert_int_equal(ev.attr.config2, 7);
	assert_int_equal(ev.attr.sample_period, 1000);
	assert_int_equal(ev.attr.exclude_user, 0);
	assert_int_equal(ev.attr.exclude_kernel, 0);
	assert_int_equal(ev.attr.exclude_hv, 1);
	assert_int_equal(parse_in(root_zen4, "fake/config/"), -EINVAL);
	assert_msg("config needs a value");
	assert_int_equal(parse_in(root_zen4, "fake/event=1/pppp"), -EINVAL);
	assert_msg("at most ppp");

	/* no such PMU: ENOENT naming it */
	assert_int_equal(parse_in(root_zen4, "nope//"), -ENOENT);
	assert_msg("this CPU/VM has no nope PMU");
	assert_msg("use -e auto");
	assert_int_equal(parse_in(root_empty, "ibs_op//"), -ENOENT);
	assert_msg("no ibs_op PMU");
}

static void test_ibs_aliases(void **state)
{
	(void)state;
	/* Linux 6.8 on Zen 4: no load/store/latency filters */
	assert_int_equal(parse_in(root_zen4, "loads"), 0);
	assert_int_equal(ev.attr.type, 11);
	assert_int_equal(ev.attr.config, 0);
	assert_int_equal(ev.attr.config1, 0);
	assert_string_equal(ev.pmu, "ibs_op");
	assert_string_equal(ev.name, "loads");
	assert_true(ev.flags & PEBS_EVENT_MEMORY);
	assert_non_null(strstr(ev.note, "every op"));
	assert_int_equal(parse_in(root_zen4, "stores"), 0);
	assert_non_null(strstr(ev.note, "data_src is a store"));
	assert_int_equal(parse_in(root_zen4, "ldlat=64"), 0);
	assert_int_equal(ev.attr.config1, 0);
	assert_non_null(strstr(ev.note, "no load-latency filter"));
	assert_int_equal(parse_in(root_zen4, "loads:period=4096"), 0);
	assert_int_equal(ev.attr.sample_period, 4096);
	assert_int_equal(parse_in(root_zen4, "loads:u"), -EINVAL);
	assert_msg("swfilt");
	assert_int_equal(parse_in(root_zen4, "loads:precise=2"), -EINVAL);
	assert_msg("precise by design");

	/* later kernels: the kernel filters loads/stores and latency */
	assert_int_equal(parse_in(root_zen5, "loads"), 0);
	assert_int_equal(ev.attr.config1, 1ull << 12);
	assert_int_equal(ev.attr.config2, 1);
	assert_string_equal(ev.note, "");
	assert_int_equal(parse_in(root_zen5, "stores:u"), 0);
	assert_int_equal(ev.attr.config1, 1ull << 13);
	assert_int_equal(ev.attr.config2, 1);
	assert_int_equal(ev.attr.exclude_kernel, 1);
	assert_int_equal(parse_in(root_zen5, "ldlat"), 0);
	assert_int_equal(ev.attr.config1, 128);
	assert_non_null(strstr(ev.note, "using 128"));
	assert_int_equal(parse_in(root_zen5, "ldlat=256"), 0);
	assert_int_equal(ev.attr.config1, 256);
	assert_int_equal(parse_in(root_zen5, "ldlat=64"), -EINVAL);
	assert_msg("128..2048");

	/* no ibs_op: ENOENT at parse time */
	assert_int_equal(parse_in(root_bare, "loads"), -ENOENT);
	assert_msg("this CPU/VM has no ibs_op PMU (loads on "
		   "amd64_fam19h_zen4");
}

static void test_auto(void **state)
{
	(void)state;
	/* no PMU at all (libpfm4 still detects one from CPUID) */
	assert_int_equal(parse_in(root_empty, "auto"), 0);
	assert_string_equal(ev.name, "auto");
	assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev.attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(ev.flags, PEBS_EVENT_SOFTWARE | PEBS_EVENT_FALLBACK);
	assert_string_equal(ev.note, "auto: no PEBS/IBS here (no hardware "
			    "PMU: virtualized?); sampling cpu-clock instead");
	assert_string_equal(pebs_errmsg(), "");
	/* a core PMU without IBS */
	assert_int_equal(parse_in(root_bare, "auto:k:period=1000000"), 0);
	assert_int_equal(ev.attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(ev.attr.exclude_user, 1);
	assert_int_equal(ev.attr.sample_period, 1000000);
	assert_string_equal(ev.note, "auto: no PEBS/IBS here (the "
			    "amd64_fam19h_zen4 PMU has no IBS (no ibs_op): "
			    "virtualized?); sampling cpu-clock instead");
	assert_int_equal(parse_in(root_bare, "auto:precise=1"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_ibs_op),
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_ibs_aliases),
		cmocka_unit_test(test_auto),
	};

	/* before the first library call: libpfm4 reads it once */
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen4", 1);
	/* as root; test_ibs_op also has a process kept out of the kernel */
	event_priv_override(1);
	return cmocka_run_group_tests(tests, setup, teardown);
}
