// SPDX-License-Identifier: MIT
/*
 * test-mem-events - pebs_mem_record (lib/event/mem-events.c): what perf
 * 6.1's `perf mem record` and `perf c2c record` pass to perf record, on
 * fake sysfs PMU trees built in /tmp, and the attrs of those events:
 *  skx:   cpu with mem-loads and mem-stores as Linux 6.1 writes them for
 *         Skylake (arch/x86/events/intel/core.c mem_ld_hsw, mem_st_hsw)
 *  spr:   skx plus mem-loads-aux (Sapphire Rapids: loads as a group)
 *  adl:   hybrid cpu_core (with mem-loads-aux) and cpu_atom
 *  loads: a cpu with mem-loads only
 *  zen4:  AMD, ibs_op (type 11 as in the AMD fixture) and a bare cpu
 *  bare:  a cpu PMU without memory events (this VM's case)
 * The expected argvs are perf 6.1's (builtin-mem.c __cmd_record,
 * builtin-c2c.c perf_c2c__record, arch/x86/util/mem-events.c); the
 * attrs are checked against what perf opened in the fixtures: the Intel
 * one's load-latency event with ldlat=64 (config 0x1cd, config1 0x40),
 * the AMD one (a perf c2c record) ibs_op// with type 11.
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
#include "helpers.h"
#include "core/internal.h"
#include "event/event-internal.h"

static char top[64];
static char root[6][128];
enum { SKX, SPR, ADL, LOADS, ZEN4, BARE };
static const char *const names[] = { "skx", "spr", "adl", "loads", "zen4",
				     "bare" };

static void put(int t, const char *rel, const char *text)
{
	assert_int_equal(t_put_file(root[t], rel, text), 0);
}

static void intel_core(int t, const char *pmu, const char *type,
		       const char *loads, const char *stores)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%s/type", pmu);
	put(t, rel, type);
	snprintf(rel, sizeof(rel), "%s/format/event", pmu);
	put(t, rel, "config:0-7\n");
	snprintf(rel, sizeof(rel), "%s/format/umask", pmu);
	put(t, rel, "config:8-15\n");
	snprintf(rel, sizeof(rel), "%s/format/ldlat", pmu);
	put(t, rel, "config1:0-15\n");
	snprintf(rel, sizeof(rel), "%s/events/mem-loads", pmu);
	put(t, rel, loads);
	if (stores) {
		snprintf(rel, sizeof(rel), "%s/events/mem-stores", pmu);
		put(t, rel, stores);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/pebs-mem-events-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	for (int t = 0; t < 6; t++)
		snprintf(root[t], sizeof(root[t]), "%s/%s", top, names[t]);
	intel_core(SKX, "cpu", "4\n", "event=0xcd,umask=0x1,ldlat=3\n",
		   "event=0xd0,umask=0x82\n");
	intel_core(SPR, "cpu", "4\n", "event=0xcd,umask=0x1,ldlat=3\n",
		   "event=0xcd,umask=0x2\n");
	put(SPR, "cpu/events/mem-loads-aux", "event=0x03,umask=0x82\n");
	intel_core(ADL, "cpu_core", "4\n", "event=0xcd,umask=0x1,ldlat=3\n",
		   "event=0xcd,umask=0x2\n");
	put(ADL, "cpu_core/events/mem-loads-aux", "event=0x03,umask=0x82\n");
	intel_core(ADL, "cpu_atom", "8\n", "event=0xd0,umask=0x5,ldlat=3\n",
		   "event=0xd0,umask=0x6\n");
	intel_core(LOADS, "cpu", "4\n", "event=0xcd,umask=0x1,ldlat=3\n",
		   NULL);
	put(ZEN4, "ibs_op/type", "11\n");
	put(ZEN4, "ibs_op/format/cnt_ctl", "config:19\n");
	put(ZEN4, "cpu/type", "4\n");
	put(BARE, "cpu/type", "4\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	event_sysfs_set_root(NULL);
	return t_rm_tree(top);
}

/* the argv pebs_mem_record gives in tree @t, joined by spaces */
static int choose(int t, bool c2c, unsigned int ops, unsigned int ldlat,
		  bool phys, bool page_size, char *out, size_t len)
{
	PEBS_OPTS(pebs_mem_record_opts, o, .c2c = c2c, .ops = ops,
		  .ldlat = ldlat, .phys_data = phys,
		  .data_page_size = page_size);
	struct pebs_mem_record *mr;
	const char *const *av;
	size_t used = 0;
	int err;

	event_sysfs_set_root(root[t]);
	out[0] = '\0';
	err = pebs_mem_record__new(&o, &mr);
	if (err) {
		print_message("# %s: %d %s\n", names[t], err, pebs_errmsg());
		return err;
	}
	av = pebs_mem_record__argv(mr);
	int i;

	for (i = 0; av[i]; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s",
					 i ? " " : "", av[i]);
	assert_int_equal(pebs_mem_record__argc(mr), i);
	print_message("# %s %s: %s\n", names[t], c2c ? "c2c" : "mem", out);
	pebs_mem_record__delete(mr);
	return 0;
}

static void expect(int t, bool c2c, unsigned int ops, unsigned int ldlat,
		   bool phys, bool page_size, const char *want)
{
	char got[512];

	assert_int_equal(choose(t, c2c, ops, ldlat, phys, page_size, got,
				sizeof(got)), 0);
	assert_string_equal(got, want);
}

/* with -e TAGS (perf's perf_mem_events__parse) */
static void expect_tags(int t, bool c2c, const char *tags, const char *want)
{
	PEBS_OPTS(pebs_mem_record_opts, o, .c2c = c2c, .events = tags);
	struct pebs_mem_record *mr;
	char got[512] = "";
	size_t used = 0;

	event_sysfs_set_root(root[t]);
	if (!want) {
		assert_int_equal(pebs_mem_record__new(&o, &mr), -EINVAL);
		assert_non_null(strstr(pebs_errmsg(), "-e list"));
		return;
	}
	assert_int_equal(pebs_mem_record__new(&o, &mr), 0);
	for (const char *const *av = pebs_mem_record__argv(mr); *av; av++)
		used += (size_t)snprintf(got + used, sizeof(got) - used,
					 "%s%s", used ? " " : "", *av);
	pebs_mem_record__delete(mr);
	assert_string_equal(got, want);
}

static void test_tags(void **state)
{
	char buf[512];

	(void)state;
	/* a word selects every tag that holds it; -W only with loads */
	expect_tags(SKX, false, "stores", "record -d -e cpu/mem-stores/P");
	expect_tags(SKX, false, "ldlat", "record -W -d "
		    "-e cpu/mem-loads,ldlat=30/P -e cpu/mem-stores/P");
	expect_tags(SKX, true, "ldlat-loads", "record -W -d --phys-data "
		    "--sample-cpu -e cpu/mem-loads,ldlat=30/P");
	/* AMD: mem-ldst chosen by -e gets no -W (perf's c2c and mem) */
	expect_tags(ZEN4, true, "ldst", "record -d --phys-data --sample-cpu "
		    "-e ibs_op//");
	expect_tags(ZEN4, false, "mem-ldst", "record -d -e ibs_op//");
	expect_tags(ZEN4, false, "loads", NULL);
	expect_tags(SKX, false, "bogus", NULL);

	/* -e list, as perf prints it */
	event_sysfs_set_root(root[ZEN4]);
	assert_int_equal(pebs_mem_record__list(buf, sizeof(buf), true), 0);
	assert_string_equal(buf, "mem-ldst     ibs_op//                 : "
			    "available\n");
	event_sysfs_set_root(root[LOADS]);
	assert_int_equal(pebs_mem_record__list(buf, sizeof(buf), false), 0);
	assert_string_equal(buf, "ldlat-loads  : available\n");
	event_sysfs_set_root(root[BARE]);
	assert_int_equal(pebs_mem_record__list(buf, sizeof(buf), false),
			 -ENOENT);
}

static void test_intel(void **state)
{
	(void)state;
	/* perf mem record: loads and stores by default, -W with loads */
	expect(SKX, false, 0, 0, false, false,
	       "record -W -d -e cpu/mem-loads,ldlat=30/P -e cpu/mem-stores/P");
	expect(SKX, false, PEBS_MEM_OP_STORE, 0, false, false,
	       "record -d -e cpu/mem-stores/P");
	expect(SKX, false, PEBS_MEM_OP_LOAD, 64, true, true,
	       "record -W -d --phys-data --data-page-size "
	       "-e cpu/mem-loads,ldlat=64/P");
	/* perf c2c record: always both, -t does not apply */
	expect(SKX, true, PEBS_MEM_OP_LOAD, 0, false, false,
	       "record -W -d --phys-data --sample-cpu "
	       "-e cpu/mem-loads,ldlat=30/P -e cpu/mem-stores/P");
	expect(SPR, true, 0, 50, false, false,
	       "record -W -d --phys-data --sample-cpu "
	       "-e {cpu/mem-loads-aux/,cpu/mem-loads,ldlat=50/}:P "
	       "-e cpu/mem-stores/P");
	expect(LOADS, false, PEBS_MEM_OP_LOAD, 0, false, false,
	       "record -W -d -e cpu/mem-loads,ldlat=30/P");
}

static void test_hybrid(void **state)
{
	(void)state;
	/* each event on each hybrid PMU, cpu_core first (perf's order) */
	expect(ADL, false, 0, 0, false, false,
	       "record -W -d "
	       "-e {cpu_core/mem-loads-aux/,cpu_core/mem-loads,ldlat=30/}:P "
	       "-e cpu_atom/mem-loads,ldlat=30/P "
	       "-e cpu_core/mem-stores/P -e cpu_atom/mem-stores/P");
	expect(ADL, true, 0, 0, false, false,
	       "record -W -d --phys-data --sample-cpu "
	       "-e {cpu_core/mem-loads-aux/,cpu_core/mem-loads,ldlat=30/}:P "
	       "-e cpu_atom/mem-loads,ldlat=30/P "
	       "-e cpu_core/mem-stores/P -e cpu_atom/mem-stores/P");
}

static void test_amd(void **state)
{
	char got[512];

	(void)state;
	/* perf's mem-ldst entry: -W for it, no ldlat */
	expect(ZEN4, false, 0, 0, false, false, "record -W -d -e ibs_op//");
	expect(ZEN4, true, 0, 0, false, false,
	       "record -W -d --phys-data --sample-cpu -e ibs_op//");
	assert_int_equal(choose(ZEN4, false, PEBS_MEM_OP_LOAD, 0, false,
				false, got, sizeof(got)), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "drop -t load"));
}

static void test_missing(void **state)
{
	char got[512];

	(void)state;
	assert_int_equal(choose(BARE, true, 0, 0, false, false, got,
				sizeof(got)), -ENOENT);
	assert_non_null(strstr(pebs_errmsg(), "no precise memory events"));
	assert_non_null(strstr(pebs_errmsg(), "mem-loads"));
	assert_non_null(strstr(pebs_errmsg(), "ibs_op"));
	assert_non_null(strstr(pebs_errmsg(),
			       "pebs-shim record -e page-faults -d"));
	assert_null(strchr(pebs_errmsg(), '\n'));
	/* stores where the CPU has loads only: perf's "not supported" */
	assert_int_equal(choose(LOADS, false, 0, 0, false, false, got,
				sizeof(got)), -ENOENT);
	assert_non_null(strstr(pebs_errmsg(), "cpu/mem-stores/P"));
	assert_non_null(strstr(pebs_errmsg(), "use -t load"));
}

/* parse @list in tree @t */
static unsigned int parse(int t, const char *list, struct pebs_event *evs)
{
	unsigned int nr = 0;

	event_sysfs_set_root(root[t]);
	if (pebs_event__parse_list(list, evs, 4, &nr))
		fail_msg("%s: %s", list, pebs_errmsg());
	return nr;
}

/* the events' attrs, against the fixtures perf recorded */
static void test_attrs(void **state)
{
	struct pebs_event evs[4];
	const struct perf_event_attr *a;
	struct pebs_perfdata *pd;

	(void)state;
	/* Intel: perf mem record --ldlat 64 loads = the fixture's event */
	pd = t_open_fixture("intel-skx-xeon8173M_ldlat64_weight-struct.perf.data");
	assert_non_null(pd);
	a = pebs_perfdata__attr(pd, 0, NULL, NULL);
	assert_int_equal(parse(SKX, "cpu/mem-loads,ldlat=64/P", evs), 1);
	assert_int_equal(evs[0].attr.type, 4);
	assert_int_equal(evs[0].attr.config, a->config);	/* 0x1cd */
	assert_int_equal(evs[0].attr.config1, a->config1);	/* 64 */
	/*
	 * :P asks the most precise level, stepped down at open; an event's
	 * own modifiers start from zero in perf (get_event_modifier with
	 * no evsel), so P leaves exclude_guest 0
	 */
	assert_int_equal(evs[0].attr.precise_ip, 3);
	assert_int_equal(evs[0].attr.exclude_guest, 0);
	pebs_perfdata__close(pd);

	assert_int_equal(parse(SKX, "cpu/mem-stores/P", evs), 1);
	assert_int_equal(evs[0].attr.config, 0x82d0);
	assert_int_equal(evs[0].attr.config1, 0);
	assert_int_equal(evs[0].attr.precise_ip, 3);

	/* Sapphire Rapids: a group led by mem-loads-aux, :P on both */
	assert_int_equal(parse(SPR, "{cpu/mem-loads-aux/,cpu/mem-loads,"
			       "ldlat=30/}:P", evs), 2);
	assert_int_equal(evs[0].attr.config, 0x8203);
	assert_int_equal(evs[0].nr_members, 2);
	assert_int_equal(evs[1].leader, 0);
	assert_int_equal(evs[1].attr.config, 0x1cd);
	assert_int_equal(evs[1].attr.config1, 30);
	assert_int_equal(evs[0].attr.precise_ip, 3);
	assert_int_equal(evs[1].attr.precise_ip, 3);
	/* a group's modifiers start from the members' (exclude_guest 1) */
	assert_int_equal(evs[0].attr.exclude_guest, 1);
	assert_int_equal(evs[1].attr.exclude_guest, 1);

	/* hybrid: the atom PMU's own type and encoding */
	assert_int_equal(parse(ADL, "cpu_atom/mem-loads,ldlat=30/P", evs), 1);
	assert_int_equal(evs[0].attr.type, 8);
	assert_int_equal(evs[0].attr.config, 0x5d0);
	assert_int_equal(evs[0].attr.config1, 30);

	/* AMD: the fixture is a perf c2c record: ibs_op//, type 11 */
	pd = t_open_fixture("amd-zen4-epyc9254_ibs-c2c_ring.perf.data");
	assert_non_null(pd);
	a = pebs_perfdata__attr(pd, 0, NULL, NULL);
	assert_string_equal(pebs_perfdata__attr_name(pd, 0), "ibs_op//");
	assert_int_equal(parse(ZEN4, "ibs_op//", evs), 1);
	assert_int_equal(evs[0].attr.type, a->type);
	assert_int_equal(evs[0].attr.config, a->config);
	assert_int_equal(evs[0].attr.exclude_guest, a->exclude_guest);
	assert_int_equal(evs[0].attr.precise_ip, a->precise_ip);
	pebs_perfdata__close(pd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_amd),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_tags),
		cmocka_unit_test(test_attrs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
