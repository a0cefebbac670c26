// SPDX-License-Identifier: MIT
/*
 * test-event-perf - perf's event syntax, golden: generic names and
 * hardware caches (type/config as `perf stat -vv -e X` prints them with
 * perf 6.1), raw rNNNN, perf's modifiers (the exclude_* and precise_ip
 * bits `perf record -e X; perf evlist -v` shows as root), the kernel
 * fallback of a process the kernel keeps out of the kernel, tracepoints
 * from a fake tracefs, PMU terms from a fake sysfs tree, comma lists and
 * groups, and the close names of unknown events. The PMU is forced to
 * Skylake (LIBPFM_FORCE_PMU, set before libpfm4's first use) so that
 * nothing depends on this host's CPU.
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
#include <sys/stat.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"
#include "event/event-internal.h"

static char top[64];

static void put(const char *rel, const char *text)
{
	assert_int_equal(t_put_file(top, rel, text), 0);
}

static char top_tracing[128];

static int setup(void **state)
{
	char *path = top_tracing;

	(void)state;
	snprintf(top, sizeof(top), "/tmp/pebs-evperf-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	/* tracefs: ids as Linux 6.1 numbers them here */
	put("tracing/events/sched/sched_switch/id", "372\n");
	put("tracing/events/sched/sched_wakeup/id", "374\n");
	put("tracing/events/sched/sched_waking/id", "375\n");
	put("tracing/events/syscalls/sys_enter_read/id", "655\n");
	put("tracing/events/bad/garbage/id", "12x\n");
	/* sysfs: an Intel core PMU as arch/x86/events/intel/core.c shows */
	put("pmu/cpu/type", "4\n");
	put("pmu/cpu/format/event", "config:0-7\n");
	put("pmu/cpu/format/umask", "config:8-15\n");
	put("pmu/cpu/format/cmask", "config:24-31\n");
	put("pmu/cpu/format/ldlat", "config1:0-15\n");
	put("pmu/cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put("pmu/msr/type", "9\n");
	put("pmu/msr/events/tsc", "event=0x00\n");
	put("pmu/msr/format/event", "config:0-63\n");
	put("paranoid", "2\n");
	put("paranoid-bad", "x\n");
	snprintf(path, sizeof(top_tracing), "%s/tracing", top);
	event_tp_set_root(path);
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	event_priv_override(1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	event_tp_set_root(NULL);
	event_sysfs_set_root(NULL);
	event_priv_override(-1);
	return t_rm_tree(top);
}

static void sysfs_on(void)
{
	static char root[128];

	snprintf(root, sizeof(root), "%s/pmu", top);
	event_sysfs_set_root(root);
}

static struct pebs_event ev;

static void parse_ok(const char *str)
{
	int rc = pebs_event__parse(str, &ev);

	print_message("# %-34s -> %d type %u config %#llx config1 %#llx "
		      "u%d k%d h%d g%d p%u %s %s\n", str, rc, ev.attr.type,
		      (unsigned long long)ev.attr.config,
		      (unsigned long long)ev.attr.config1,
		      ev.attr.exclude_user, ev.attr.exclude_kernel,
		      ev.attr.exclude_hv, ev.attr.exclude_guest,
		      ev.attr.precise_ip, ev.resolved, rc ? pebs_errmsg() : "");
	if (rc)
		fail_msg("%s: %d %s", str, rc, pebs_errmsg());
	assert_string_equal(pebs_errmsg(), "");
}

static void parse_err(const char *str, int err, const char *word)
{
	int rc = pebs_event__parse(str, &ev);

	print_message("# %s -> %d %s\n", str, rc, pebs_errmsg());
	assert_int_equal(rc, err);
	if (!strstr(pebs_errmsg(), word))
		fail_msg("'%s' not in: %s", word, pebs_errmsg());
	assert_int_equal(ev.attr.type, 0);
	assert_int_equal(ev.attr.size, 0);
}

/* perf stat -vv -e NAME true (perf 6.1): type and config */
static void test_generic(void **state)
{
	static const struct {
		const char *str, *resolved;
		uint32_t type;
		uint64_t config;
	} g[] = {
		{ "cycles", "cpu-cycles", 0, 0 },
		{ "cpu-cycles", "cpu-cycles", 0, 0 },
		{ "instructions", "instructions", 0, 1 },
		{ "cache-references", "cache-references", 0, 2 },
		{ "cache-misses", "cache-misses", 0, 3 },
		{ "branches", "branch-instructions", 0, 4 },
		{ "branch-misses", "branch-misses", 0, 5 },
		{ "bus-cycles", "bus-cycles", 0, 6 },
		{ "idle-cycles-frontend", "stalled-cycles-frontend", 0, 7 },
		{ "stalled-cycles-backend", "stalled-cycles-backend", 0, 8 },
		{ "ref-cycles", "ref-cycles", 0, 9 },
		{ "cpu-clock", "cpu-clock", 1, 0 },
		{ "task-clock", "task-clock", 1, 1 },
		{ "faults", "page-faults", 1, 2 },
		{ "cs", "context-switches", 1, 3 },
		{ "migrations", "cpu-migrations", 1, 4 },
		{ "minor-faults", "minor-faults", 1, 5 },
		{ "major-faults", "major-faults", 1, 6 },
		{ "alignment-faults", "alignment-faults", 1, 7 },
		{ "emulation-faults", "emulation-faults", 1, 8 },
		{ "dummy", "dummy", 1, 9 },
		{ "bpf-output", "bpf-output", 1, 10 },
		{ "cgroup-switches", "cgroup-switches", 1, 11 },
		{ "L1-dcache-loads", "L1-dcache-loads", 3, 0 },
		{ "L1-dcache-load-misses", "L1-dcache-load-misses", 3,
		  0x10000 },
		{ "l1d-stores", "L1-dcache-stores", 3, 0x100 },
		{ "L1-icache-load-misses", "L1-icache-load-misses", 3,
		  0x10001 },
		{ "LLC-prefetch-misses", "LLC-prefetch-misses", 3, 0x10202 },
		{ "LLC-loads", "LLC-loads", 3, 2 },
		{ "dTLB-speculative-read-miss", "dTLB-prefetch-misses", 3,
		  0x10203 },
		{ "iTLB-load-misses", "iTLB-load-misses", 3, 0x10004 },
		{ "branch-loads", "branch-loads", 3, 5 },
		{ "branch-load-misses", "branch-load-misses", 3, 0x10005 },
		{ "node-stores", "node-stores", 3, 0x106 },
		{ "dTLB-misses", "dTLB-load-misses", 3, 0x10003 },
		{ "r1a2b", "r1a2b", 4, 0x1a2b },
		{ "rC0", "rc0", 4, 0xc0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(g); i++) {
		parse_ok(g[i].str);
		assert_string_equal(ev.name, g[i].str);
		assert_int_equal(ev.attr.size, sizeof(ev.attr));
		assert_int_equal(ev.attr.type, g[i].type);
		assert_int_equal(ev.attr.config, g[i].config);
		assert_int_equal(ev.attr.exclude_guest, 1);
		assert_int_equal(ev.attr.exclude_kernel, 0);
		assert_string_equal(ev.resolved, g[i].resolved);
		assert_int_equal(!!(ev.flags & PEBS_EVENT_SOFTWARE),
				 g[i].type == PERF_TYPE_SOFTWARE);
	}
	/* combinations perf refuses: iTLB has no stores, L1-icache none */
	parse_err("iTLB-stores", -ENOENT, "unknown event 'iTLB-stores'");
	parse_err("L1-icache-store-misses", -ENOENT, "unknown event");
	parse_err("L1-dcache-load-load", -ENOENT, "unknown event");
	parse_err("r12g", -ENOENT, "unknown event 'r12g'");
}

/* perf record -e X (root) then perf evlist -v: the bits it wrote */
static void test_modifiers(void **state)
{
	static const struct {
		const char *str;
		int u, k, h, g, precise;
		unsigned int flags;
	} g[] = {
		{ "cpu-clock", 0, 0, 0, 1, 0, 0 },
		{ "cpu-clock:u", 0, 1, 1, 1, 0, 0 },
		{ "cpu-clock:k", 1, 0, 1, 0, 0, 0 },
		{ "cpu-clock:h", 1, 1, 0, 0, 0, 0 },
		{ "cpu-clock:pp", 0, 0, 0, 1, 2, PEBS_EVENT_PRECISE },
		{ "cpu-clock:P", 0, 0, 0, 0, 3,
		  PEBS_EVENT_PRECISE | PEBS_EVENT_PRECISE_MAX },
		{ "cpu-clock:ku", 0, 0, 1, 1, 0, 0 },
		{ "cpu-clock:u:k", 0, 0, 1, 1, 0, 0 },
		{ "cpu-clock:ppp", 0, 0, 0, 1, 3, PEBS_EVENT_PRECISE },
		{ "cpu-clock:upp", 0, 1, 1, 1, 2, PEBS_EVENT_PRECISE },
		{ "page-faults:uk", 0, 0, 1, 1, 0, PEBS_EVENT_MEMORY },
		{ "cycles:G", 0, 0, 0, 0, 0, 0 },
		{ "cycles:H", 0, 0, 0, 1, 0, 0 },
		{ "r1a2b:upp", 0, 1, 1, 1, 2, PEBS_EVENT_PRECISE },
		{ "sched:sched_switch", 0, 0, 0, 1, 0, PEBS_EVENT_TRACEPOINT },
		{ "sched:sched_switch:k", 1, 0, 1, 0, 0,
		  PEBS_EVENT_TRACEPOINT },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(g); i++) {
		parse_ok(g[i].str);
		assert_string_equal(ev.name, g[i].str);
		assert_int_equal(ev.attr.exclude_user, g[i].u);
		assert_int_equal(ev.attr.exclude_kernel, g[i].k);
		assert_int_equal(ev.attr.exclude_hv, g[i].h);
		assert_int_equal(ev.attr.exclude_guest, g[i].g);
		assert_int_equal(ev.attr.precise_ip, g[i].precise);
		assert_int_equal(ev.flags & ~(PEBS_EVENT_SOFTWARE),
				 g[i].flags);
		assert_string_equal(ev.note, "");
	}
	parse_ok("cycles:H");
	assert_int_equal(ev.attr.exclude_host, 0);
	parse_ok("cycles:G");
	assert_int_equal(ev.attr.exclude_host, 1);
	parse_ok("cpu-clock:I");
	assert_int_equal(ev.attr.exclude_idle, 1);
	parse_ok("cpu-clock:upp:period=1000");
	assert_int_equal(ev.attr.sample_period, 1000);
	assert_int_equal(ev.attr.freq, 0);
	assert_string_equal(ev.resolved, "cpu-clock:upp:period=1000");
	parse_ok("task-clock:freq=99");
	assert_int_equal(ev.attr.sample_freq, 99);
	assert_int_equal(ev.attr.freq, 1);
	parse_err("cpu-clock:pppp", -EINVAL, "at most ppp");
	parse_err("cpu-clock:uz", -EINVAL, "bad modifier 'uz'");
	parse_err("cpu-clock:freq=0", -EINVAL, "> 0");
	parse_err("cpu-clock:", -EINVAL, "bad modifier");
}

static void test_privilege(void **state)
{
	char path[128];

	(void)state;
	/* perf_event_paranoid_check(1): a capability, or paranoid <= 1 */
	assert_true(event_priv_kernel_allowed_by(2, true, false));
	assert_true(event_priv_kernel_allowed_by(2, false, true));
	assert_true(event_priv_kernel_allowed_by(1, false, false));
	assert_true(event_priv_kernel_allowed_by(-1, false, false));
	assert_false(event_priv_kernel_allowed_by(2, false, false));
	assert_false(event_priv_kernel_allowed_by(3, false, false));
	assert_false(event_priv_kernel_allowed_by(INT_MAX, false, false));

	snprintf(path, sizeof(path), "%s/paranoid", top);
	event_priv_set_paranoid_file(path);
	assert_int_equal(event_priv_paranoid(), 2);
	snprintf(path, sizeof(path), "%s/paranoid-bad", top);
	event_priv_set_paranoid_file(path);
	assert_int_equal(event_priv_paranoid(), INT_MAX);
	snprintf(path, sizeof(path), "%s/none", top);
	event_priv_set_paranoid_file(path);
	assert_int_equal(event_priv_paranoid(), INT_MAX);
	snprintf(path, sizeof(path), "%s/paranoid", top);
	event_priv_set_paranoid_file(path);

	/* refused: what perf's evsel__fallback() turns the event into */
	event_priv_override(0);
	parse_ok("cpu-clock");
	assert_int_equal(ev.attr.exclude_kernel, 1);
	assert_int_equal(ev.attr.exclude_hv, 1);
	assert_int_equal(ev.attr.exclude_user, 0);
	assert_string_equal(ev.name, "cpu-clock");
	assert_string_equal(ev.resolved, "cpu-clock:u");
	assert_string_equal(ev.note, "cpu-clock: user space only "
			    "(perf_event_paranoid 2, no CAP_PERFMON), as "
			    "perf's cpu-clock:u");
	parse_ok("cpu-clock:uk");
	assert_int_equal(ev.attr.exclude_kernel, 1);
	/* kernel only: perf does not fall back, the open will fail */
	parse_ok("cpu-clock:k");
	assert_int_equal(ev.attr.exclude_kernel, 0);
	assert_int_equal(ev.attr.exclude_user, 1);
	assert_string_equal(ev.note, "");
	parse_ok("sched:sched_switch");
	assert_int_equal(ev.attr.exclude_kernel, 1);
	event_priv_override(1);
	event_priv_set_paranoid_file(NULL);
}

static void test_tracepoints(void **state)
{
	(void)state;
	parse_ok("sched:sched_switch");
	assert_int_equal(ev.attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(ev.attr.config, 372);
	assert_int_equal(ev.attr.sample_period, 1);
	assert_int_equal(ev.attr.sample_type, PERF_SAMPLE_RAW);
	assert_string_equal(ev.pmu, "tracepoint");
	assert_string_equal(ev.resolved, "sched:sched_switch");
	parse_ok("syscalls:sys_enter_read:u");
	assert_int_equal(ev.attr.config, 655);
	assert_string_equal(ev.name, "syscalls:sys_enter_read:u");
	assert_string_equal(ev.resolved, "syscalls:sys_enter_read:u");
	parse_err("sched:sched_swich", -ENOENT, "did you mean sched_switch");
	parse_err("sched:sched_wake", -ENOENT,
		  "sched_wakeup or sched_waking");
	parse_err("bad:garbage", -EINVAL, "not a number");
	/* no such system: not a tracepoint, so libpfm4's unknown event */
	parse_err("nosuchsys:foo", -ENOENT, "unknown event 'nosuchsys'");
	parse_err("sched:sched_switch:x", -EINVAL, "bad modifier 'x'");
	/* no tracefs at all: the message says so */
	event_tp_set_root("/nonexistent");
	parse_err("sched:sched_switch", -ENOENT, "unknown event 'sched'");
	parse_err("sched:sched_switch", -ENOENT, "; no tracefs to look up a "
		  "tracepoint sched:sched_switch in: mount -t tracefs");
	parse_err("cpu-clok:u", -ENOENT, "did you mean cpu-clock?; no "
		  "tracefs");
	event_tp_set_root(top_tracing);
}

static void test_pmu_terms(void **state)
{
	(void)state;
	sysfs_on();
	parse_ok("cpu/event=0xd0,umask=0x81/pp");
	assert_int_equal(ev.attr.type, 4);
	assert_int_equal(ev.attr.config, 0x81d0);
	assert_int_equal(ev.attr.precise_ip, 2);
	assert_int_equal(ev.attr.exclude_guest, 1);
	assert_int_equal(ev.attr.exclude_kernel, 0);
	assert_true(ev.flags & PEBS_EVENT_PRECISE);
	assert_string_equal(ev.name, "cpu/event=0xd0,umask=0x81/pp");
	parse_ok("cpu/event=0xcd,umask=1,ldlat=64/");
	assert_int_equal(ev.attr.config, 0x1cd);
	assert_int_equal(ev.attr.config1, 64);
	parse_ok("cpu/mem-loads,ldlat=30/upp");
	assert_int_equal(ev.attr.config, 0x1cd);
	assert_int_equal(ev.attr.config1, 30);
	assert_int_equal(ev.attr.exclude_kernel, 1);
	assert_int_equal(ev.attr.precise_ip, 2);
	parse_ok("cpu/config=0x412e,config1=5,period=1000,name=llc/k");
	assert_int_equal(ev.attr.config, 0x412e);
	assert_int_equal(ev.attr.config1, 5);
	assert_int_equal(ev.attr.sample_period, 1000);
	assert_int_equal(ev.attr.exclude_user, 1);
	assert_string_equal(ev.name, "llc");
	parse_ok("cpu/event=0x3c,freq=1000/:u");
	assert_int_equal(ev.attr.freq, 1);
	assert_int_equal(ev.attr.sample_freq, 1000);
	/* other PMUs refuse exclude bits: no exclude_guest default */
	parse_ok("msr/tsc/");
	assert_int_equal(ev.attr.type, 9);
	assert_int_equal(ev.attr.exclude_guest, 0);
	parse_err("cpu/event=0xd0/pppp", -EINVAL, "at most ppp");
	parse_err("cpu/event=0xd0/q", -EINVAL, "bad modifier 'q'");
	parse_err("cpu/name/", -EINVAL, "name needs a value");
	parse_err("cpux/event=1/", -ENOENT, "did you mean cpu");
	event_sysfs_set_root(NULL);
}

static struct pebs_event evs[8];

static void list_ok(const char *str, unsigned int start, unsigned int want)
{
	unsigned int nr = start;
	int rc = pebs_event__parse_list(str, evs, ARRAY_SIZE(evs), &nr);

	print_message("# list %s -> %d nr %u %s\n", str, rc, nr,
		      rc ? pebs_errmsg() : "");
	if (rc)
		fail_msg("%s: %d %s", str, rc, pebs_errmsg());
	assert_int_equal(nr, want);
}

static void list_err(const char *str, int err, const char *word)
{
	unsigned int nr = 1;
	int rc;

	memset(&evs[1], 0x5a, sizeof(evs[1]));
	rc = pebs_event__parse_list(str, evs, 4, &nr);
	print_message("# list %s -> %d %s\n", str, rc, pebs_errmsg());
	assert_int_equal(rc, err);
	assert_int_equal(nr, 1);
	if (!strstr(pebs_errmsg(), word))
		fail_msg("'%s' not in: %s", word, pebs_errmsg());
}

static void test_lists(void **state)
{
	unsigned int i;

	(void)state;
	list_ok("cpu-clock,page-faults", 0, 2);
	assert_string_equal(evs[0].name, "cpu-clock");
	assert_string_equal(evs[1].name, "page-faults");
	assert_int_equal(evs[1].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	for (i = 0; i < 2; i++) {
		assert_int_equal(evs[i].leader, i);
		assert_int_equal(evs[i].nr_members, 1);
	}
	/* appended after what is there */
	list_ok("cs", 2, 3);
	assert_string_equal(evs[2].name, "cs");
	assert_int_equal(evs[2].leader, 2);

	/* perf evlist -v of {cpu-clock,task-clock}:u: both user only */
	list_ok("{cpu-clock,task-clock}:u", 1, 3);
	for (i = 1; i < 3; i++) {
		assert_int_equal(evs[i].leader, 1);
		assert_int_equal(evs[i].nr_members, 2);
		assert_int_equal(evs[i].attr.exclude_kernel, 1);
		assert_int_equal(evs[i].attr.exclude_hv, 1);
		assert_int_equal(evs[i].attr.exclude_user, 0);
	}
	assert_string_equal(evs[1].name, "cpu-clock");
	assert_string_equal(evs[2].name, "task-clock");
	assert_string_equal(evs[2].resolved, "task-clock:u");

	/* group modifiers add to a member's own (perf: k then u = uk) */
	list_ok("{cpu-clock:k,faults}:u,sched:sched_switch", 0, 3);
	assert_int_equal(evs[0].attr.exclude_user, 0);
	assert_int_equal(evs[0].attr.exclude_kernel, 0);
	assert_int_equal(evs[0].attr.exclude_hv, 1);
	assert_string_equal(evs[0].name, "cpu-clock:k");
	assert_int_equal(evs[1].attr.exclude_kernel, 1);
	assert_int_equal(evs[1].leader, 0);
	assert_int_equal(evs[2].leader, 2);
	assert_int_equal(evs[2].attr.type, PERF_TYPE_TRACEPOINT);

	/* a comma inside pmu/.../ belongs to the event */
	sysfs_on();
	list_ok("cpu/event=0xd0,umask=0x81/pp,{cpu/event=0x3c/,cycles}:k", 0,
		3);
	assert_string_equal(evs[0].name, "cpu/event=0xd0,umask=0x81/pp");
	assert_int_equal(evs[0].attr.config, 0x81d0);
	assert_int_equal(evs[2].leader, 1);
	assert_int_equal(evs[1].attr.exclude_user, 1);
	event_sysfs_set_root(NULL);

	/* the group's fallback comes after its modifiers */
	event_priv_override(0);
	list_ok("{cpu-clock,task-clock}:k", 0, 2);
	assert_int_equal(evs[0].attr.exclude_user, 1);
	assert_int_equal(evs[0].attr.exclude_kernel, 0);
	list_ok("{cpu-clock,task-clock}", 0, 2);
	assert_int_equal(evs[1].attr.exclude_kernel, 1);
	assert_int_equal(evs[1].nr_members, 2);
	event_priv_override(1);

	list_err("cpu-clock,,faults", -EINVAL, "empty event");
	list_err("cpu-clock,", -EINVAL, "comma at the end");
	list_err("{cpu-clock,faults", -EINVAL, "lacks its '}'");
	list_err("{cpu-clock}{faults}", -EINVAL, "after a group's '}'");
	list_err("{cpu-clock,{faults}}", -EINVAL, "do not nest");
	list_err("cpu-clock}", -EINVAL, "unexpected '}'");
	list_err("{}", -EINVAL, "empty event");
	list_err("{cpu-clock}:x", -EINVAL, "bad modifier 'x'");
	list_err("cs,cs,cs,cs", -E2BIG, "more than 4 events");
	list_err("cs,cpu-clok", -ENOENT, "cpu-clock");
	assert_int_equal(pebs_event__parse_list("", evs, 4, &i), -EINVAL);
	i = 5;
	assert_int_equal(pebs_event__parse_list("cs", evs, 4, &i), -EINVAL);
	assert_int_equal(pebs_event__parse_list("cs", evs, 4, NULL), -EINVAL);

	/* one event only through pebs_event__parse */
	parse_err("cpu-clock,faults", -EINVAL, "pebs_event__parse_list");
	parse_err("{cpu-clock}", -EINVAL, "pebs_event__parse_list");
}

/* hostile strings: refused with a message, in one pass */
static void test_hostile(void **state)
{
	static char big[1 << 16];
	unsigned int nr = 0;
	size_t i;

	(void)state;
	memset(big, ',', sizeof(big) - 1);
	assert_int_equal(pebs_event__parse_list(big, evs, 8, &nr), -EINVAL);
	memset(big, '{', sizeof(big) - 1);
	assert_int_equal(pebs_event__parse_list(big, evs, 8, &nr), -EINVAL);
	memset(big, '/', sizeof(big) - 1);
	assert_int_equal(pebs_event__parse_list(big, evs, 8, &nr), -EINVAL);
	for (i = 0; i + 3 < sizeof(big); i += 3)
		memcpy(big + i, "cs,", 3);
	big[i - 1] = '\0';
	assert_int_equal(pebs_event__parse_list(big, evs, 8, &nr), -E2BIG);
	assert_int_equal(nr, 0);
	parse_err("cpu-clock:uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu", -EINVAL,
		  "bad modifier");
	parse_err("cpu-clock:pppppppppp", -EINVAL, "at most ppp");
	parse_err("sched:sched_switch:u:u:u:u:u:u:u:u:u:u:u:u:u:u:u:u:u:u:u",
		  -EINVAL, "at most 15 letters");
}

static void test_suggest(void **state)
{
	(void)state;
	sysfs_on();
	parse_err("cycels", -ENOENT, "did you mean cycles");
	parse_err("cpu-clok", -ENOENT, "cpu-clock");
	parse_err("L1-dcache-lod-misses", -ENOENT, "L1-dcache-load-misses");
	parse_err("contex-switches", -ENOENT, "context-switches");
	parse_err("lods", -ENOENT, "loads");
	parse_err("MEM_INST_RETIRD:ALL_LOADS", -ENOENT, "MEM_INST_RETIRED");
	parse_err("mrs/tsc/", -ENOENT, "did you mean msr");
	event_sysfs_set_root(NULL);
}

/* perf 6.1's evsel__name of an attr the file does not name */
static void attr_name(uint32_t type, uint64_t config, unsigned int mods,
		      const char *want)
{
	struct perf_event_attr a = { .type = type, .config = config };
	char out[96];

	a.exclude_kernel = !!(mods & 1);
	a.exclude_user = !!(mods & 2);
	a.exclude_hv = !!(mods & 4);
	a.exclude_guest = !!(mods & 8);
	a.precise_ip = (mods >> 4) & 3;
	if (!want) {
		assert_int_equal(event_attr_name(&a, out, sizeof(out)), -ENOENT);
		return;
	}
	assert_int_equal(event_attr_name(&a, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void test_attr_name(void **state)
{
	(void)state;
	/* perf record's defaults: exclude_guest, nothing else */
	attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 8, "cpu-clock");
	attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 8,
		  "page-faults");
	/* :u -> exclude_kernel, exclude_hv: "u" then perf's "H" */
	attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1 | 4 | 8,
		  "cpu-clock:uH");
	attr_name(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2 | 4 | 8,
		  "cycles:kH");
	attr_name(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 8 | 0x20,
		  "instructions:ppH");
	attr_name(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, "cycles:HG");
	attr_name(PERF_TYPE_RAW, 0x1cd, 8, "raw 0x1cd");
	attr_name(PERF_TYPE_TRACEPOINT, 300, 8, NULL);
	attr_name(11, 0, 8, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attr_name),
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_privilege),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_pmu_terms),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
