// SPDX-License-Identifier: MIT
/*
 * test-event-golden - event encodings for forced Intel PMUs.
 *
 * libpfm4 reads LIBPFM_FORCE_PMU once per process, at initialization, so
 * every case runs pebs_event__parse() in a forked child that sets it
 * first; this process never initializes libpfm4 itself. The expected
 * values were checked against libpfm4 4.13 (Debian 12) by running them.
 * The tables are for a process the kernel keeps out of the kernel
 * (perf_event_paranoid 2, no CAP_PERFMON: event_priv_override(0)), where
 * an event without u/k counts user space only; test_kernel_allowed has
 * the same events for root.
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
#include <sys/wait.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "event/event-internal.h"

struct result {
	int rc;
	struct pebs_event ev;
	char msg[512];
};

static void parse_as(const char *pmu, const char *str, struct result *r)
{
	int fds[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct result res;
		size_t off = 0;

		close(fds[0]);
		memset(&res, 0, sizeof(res));
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		res.rc = pebs_event__parse(str, &res.ev);
		snprintf(res.msg, sizeof(res.msg), "%s", pebs_errmsg());
		while (off < sizeof(res)) {
			n = write(fds[1], (char *)&res + off, sizeof(res) - off);
			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	while (got < sizeof(*r) &&
	       (n = read(fds[0], (char *)r + got, sizeof(*r) - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(got, sizeof(*r));
}

struct golden {
	const char *str;
	uint64_t config, config1;
	unsigned int precise;
	bool excl_k, excl_u;
	const char *resolved;	/* prefix of ev->resolved */
	unsigned int flags;
};

#define PM	(PEBS_EVENT_PRECISE | PEBS_EVENT_MEMORY)

static void check(const char *pmu, const struct golden *g, size_t n)
{
	struct result r;
	size_t i;

	for (i = 0; i < n; i++) {
		parse_as(pmu, g[i].str, &r);
		print_message("# %s %-50s -> type %u config %#llx config1 "
			      "%#llx precise %u %s\n", pmu, g[i].str,
			      r.ev.attr.type,
			      (unsigned long long)r.ev.attr.config,
			      (unsigned long long)r.ev.attr.config1,
			      r.ev.attr.precise_ip, r.ev.resolved);
		if (r.rc)
			fail_msg("%s on %s: %d %s", g[i].str, pmu, r.rc, r.msg);
		assert_int_equal(r.ev.attr.size, sizeof(r.ev.attr));
		assert_int_equal(r.ev.attr.type, PERF_TYPE_RAW);
		assert_int_equal(r.ev.attr.config, g[i].config);
		assert_int_equal(r.ev.attr.config1, g[i].config1);
		assert_int_equal(r.ev.attr.precise_ip, g[i].precise);
		assert_int_equal(r.ev.attr.exclude_kernel, g[i].excl_k);
		assert_int_equal(r.ev.attr.exclude_user, g[i].excl_u);
		assert_int_equal(r.ev.flags, g[i].flags);
		assert_string_equal(r.ev.pmu, pmu);
		assert_string_equal(r.ev.name, g[i].str);
		if (strncmp(r.ev.resolved, g[i].resolved, strlen(g[i].resolved)))
			fail_msg("%s on %s resolved to %s, want %s...",
				 g[i].str, pmu, r.ev.resolved, g[i].resolved);
	}
}

static void test_skl(void **state)
{
	static const struct golden g[] = {
		{ "MEM_INST_RETIRED:ALL_LOADS:precise=2", 0x81d0, 0, 2, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "MEM_INST_RETIRED:ALL_STORES:precise=2", 0x82d0, 0, 2, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_STORES:", PM },
		{ "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=32:precise=2", 0x1cd,
		  0x20, 2, 1, 0, "skl::MEM_TRANS_RETIRED:LOAD_LATENCY:", PM },
		{ "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=64:precise=2", 0x1cd,
		  0x40, 2, 1, 0, "skl::MEM_TRANS_RETIRED:LOAD_LATENCY:", PM },
		/* PFM_PLM3: user only by default; :k alone is kernel only */
		{ "MEM_INST_RETIRED:ALL_LOADS:u", 0x81d0, 0, 0, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", 0 },
		{ "MEM_INST_RETIRED:ALL_LOADS:k", 0x81d0, 0, 0, 0, 1,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", 0 },
		/* perf's evsel__fallback: u and k, but the kernel refuses */
		{ "MEM_INST_RETIRED:ALL_LOADS:u:k", 0x81d0, 0, 0, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", 0 },
		{ "skl::MEM_INST_RETIRED:ALL_LOADS:precise=1", 0x81d0, 0, 1, 1,
		  0, "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		/* aliases */
		{ "loads", 0x81d0, 0, 2, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "stores", 0x82d0, 0, 2, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_STORES:", PM },
		{ "ldlat", 0x1cd, 0x20, 2, 1, 0,
		  "skl::MEM_TRANS_RETIRED:LOAD_LATENCY:", PM },
		{ "ldlat=64", 0x1cd, 0x40, 2, 1, 0,
		  "skl::MEM_TRANS_RETIRED:LOAD_LATENCY:", PM },
		{ "ldlat:ldlat=128", 0x1cd, 0x80, 2, 1, 0,
		  "skl::MEM_TRANS_RETIRED:LOAD_LATENCY:", PM },
		{ "loads:precise=3", 0x81d0, 0, 3, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "loads:k", 0x81d0, 0, 2, 0, 1,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "stores:u:k", 0x82d0, 0, 2, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_STORES:", PM },
	};
	struct result r;

	(void)state;
	check("skl", g, ARRAY_SIZE(g));

	parse_as("skl", "MEM_INST_RETIRED:ALL_LOADS:period=10007", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev.attr.sample_period, 10007);
	assert_int_equal(r.ev.attr.freq, 0);
	parse_as("skl", "loads:period=2003", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev.attr.sample_period, 2003);
	assert_int_equal(r.ev.attr.precise_ip, 2);
}

static void test_hsw_bdw(void **state)
{
	static const struct golden hsw[] = {
		{ "MEM_UOPS_RETIRED:ALL_LOADS:precise=2", 0x81d0, 0, 2, 1, 0,
		  "hsw::MEM_UOPS_RETIRED:ALL_LOADS:", PM },
		{ "loads", 0x81d0, 0, 2, 1, 0,
		  "hsw::MEM_UOPS_RETIRED:ALL_LOADS:", PM },
		{ "stores", 0x82d0, 0, 2, 1, 0,
		  "hsw::MEM_UOPS_RETIRED:ALL_STORES:", PM },
		{ "ldlat=64", 0x1cd, 0x40, 2, 1, 0,
		  "hsw::MEM_TRANS_RETIRED:LOAD_LATENCY:", PM },
	};
	static const struct golden bdw[] = {
		{ "loads", 0x81d0, 0, 2, 1, 0,
		  "bdw::MEM_UOPS_RETIRED:ALL_LOADS:", PM },
		{ "stores", 0x82d0, 0, 2, 1, 0,
		  "bdw::MEM_UOPS_RETIRED:ALL_STORES:", PM },
		{ "ldlat=64", 0x1cd, 0x40, 2, 1, 0,
		  "bdw::MEM_TRANS_RETIRED:LOAD_LATENCY:", PM },
	};

	(void)state;
	check("hsw", hsw, ARRAY_SIZE(hsw));
	check("bdw", bdw, ARRAY_SIZE(bdw));
}

static void test_icl_icx_spr(void **state)
{
	static const char *const pmus[] = { "icl", "icx", "spr" };
	struct golden g[] = {
		{ "loads", 0x81d0, 0, 2, 1, 0, NULL, PM },
		{ "stores", 0x82d0, 0, 2, 1, 0, NULL, PM },
		{ "ldlat=64", 0x1cd, 0x40, 2, 1, 0, NULL, PM },
		{ "ldlat", 0x1cd, 0x20, 2, 1, 0, NULL, PM },
	};
	char res[4][64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(pmus); i++) {
		snprintf(res[0], 64, "%s::MEM_INST_RETIRED:ALL_LOADS:", pmus[i]);
		snprintf(res[1], 64, "%s::MEM_INST_RETIRED:ALL_STORES:",
			 pmus[i]);
		snprintf(res[2], 64, "%s::MEM_TRANS_RETIRED:LOAD_LATENCY:",
			 pmus[i]);
		snprintf(res[3], 64, "%s::MEM_TRANS_RETIRED:LOAD_LATENCY:",
			 pmus[i]);
		g[0].resolved = res[0];
		g[1].resolved = res[1];
		g[2].resolved = res[2];
		g[3].resolved = res[3];
		check(pmus[i], g, ARRAY_SIZE(g));
	}
}

static void test_snb_glm(void **state)
{
	static const struct golden snb[] = {
		{ "MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=32:"
		  "precise=2", 0x1cd, 0x20, 2, 1, 0,
		  "snb::MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD:", PM },
		{ "loads", 0x81d0, 0, 2, 1, 0,
		  "snb::MEM_UOPS_RETIRED:ALL_LOADS:", PM },
		{ "stores", 0x82d0, 0, 2, 1, 0,
		  "snb::MEM_UOPS_RETIRED:ALL_STORES:", PM },
		{ "ldlat=64", 0x1cd, 0x40, 2, 1, 0,
		  "snb::MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD:", PM },
		{ "ldlat", 0x1cd, 0x20, 2, 1, 0,
		  "snb::MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD:", PM },
	};
	static const struct golden glm[] = {
		{ "loads", 0x81d0, 0, 2, 1, 0,
		  "glm::MEM_UOPS_RETIRED:ALL_LOADS:", PM },
		{ "stores", 0x82d0, 0, 2, 1, 0,
		  "glm::MEM_UOPS_RETIRED:ALL_STORES:", PM },
	};
	struct result r;

	(void)state;
	check("snb", snb, ARRAY_SIZE(snb));
	check("glm", glm, ARRAY_SIZE(glm));
	/* Goldmont has no load-latency event in libpfm4 */
	parse_as("glm", "ldlat", &r);
	assert_int_equal(r.rc, -ENOENT);
	assert_non_null(strstr(r.msg, "no PEBS or IBS load-latency event"));
	assert_non_null(strstr(r.msg, "glm"));
}

/* perf's software names do not depend on libpfm4's (hidden) perf:: table */
static void test_software_forced(void **state)
{
	static const struct {
		const char *str;
		uint64_t config;
	} sw[] = {
		{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
		{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
		{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
		{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
		{ "dummy", PERF_COUNT_SW_DUMMY },
	};
	struct result r;
	size_t i;

	(void)state;
	/* the perf:: table is off while a PMU is forced */
	parse_as("skl", "perf::cpu-clock", &r);
	assert_int_equal(r.rc, -ENOENT);

	for (i = 0; i < ARRAY_SIZE(sw); i++) {
		parse_as("skl", sw[i].str, &r);
		assert_int_equal(r.rc, 0);
		assert_int_equal(r.ev.attr.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(r.ev.attr.config, sw[i].config);
		assert_int_equal(r.ev.attr.exclude_kernel, 1);
		assert_int_equal(r.ev.attr.exclude_user, 0);
		assert_string_equal(r.ev.pmu, "perf");
		assert_true(r.ev.flags & PEBS_EVENT_SOFTWARE);
	}
	parse_as("hsw", "page-faults:k", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev.attr.exclude_kernel, 0);
	assert_int_equal(r.ev.attr.exclude_user, 1);
	assert_int_equal(r.ev.flags, PEBS_EVENT_SOFTWARE | PEBS_EVENT_MEMORY);
	assert_string_equal(r.ev.resolved, "page-faults:k");
	assert_string_equal(r.ev.note, "");
	/* u and k, but the kernel refuses: perf falls back to user only */
	parse_as("icl", "cpu-clock:u:k:period=100000", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev.attr.exclude_kernel, 1);
	assert_int_equal(r.ev.attr.exclude_user, 0);
	assert_int_equal(r.ev.attr.exclude_hv, 1);
	assert_int_equal(r.ev.attr.sample_period, 100000);
	assert_string_equal(r.ev.resolved, "cpu-clock:u:period=100000");
	/* no level given: user only, as perf's fallback names it */
	parse_as("skl", "cpu-clock", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev.attr.exclude_kernel, 1);
	assert_int_equal(r.ev.attr.exclude_hv, 1);
	assert_string_equal(r.ev.resolved, "cpu-clock:u");
	assert_non_null(strstr(r.ev.note, "cpu-clock: user space only"));
}

/* root: the same spellings keep the kernel unless told otherwise */
static void test_kernel_allowed(void **state)
{
	static const struct golden g[] = {
		{ "MEM_INST_RETIRED:ALL_LOADS:precise=2", 0x81d0, 0, 2, 0, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "MEM_INST_RETIRED:ALL_LOADS:u", 0x81d0, 0, 0, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", 0 },
		{ "MEM_INST_RETIRED:ALL_LOADS:k", 0x81d0, 0, 0, 0, 1,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", 0 },
		{ "MEM_INST_RETIRED:ALL_LOADS:u:k", 0x81d0, 0, 0, 0, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", 0 },
		/* perf's letters after a libpfm4 name */
		{ "MEM_INST_RETIRED:ALL_LOADS:pp", 0x81d0, 0, 2, 0, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "MEM_INST_RETIRED:ALL_STORES:upp", 0x82d0, 0, 2, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_STORES:", PM },
		{ "loads", 0x81d0, 0, 2, 0, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "loads:u", 0x81d0, 0, 2, 1, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "loads:ppp", 0x81d0, 0, 3, 0, 0,
		  "skl::MEM_INST_RETIRED:ALL_LOADS:", PM },
		{ "ldlat=64:p", 0x1cd, 0x40, 1, 0, 0,
		  "skl::MEM_TRANS_RETIRED:LOAD_LATENCY:", PM },
	};
	struct result r;

	(void)state;
	event_priv_override(1);
	check("skl", g, ARRAY_SIZE(g));
	parse_as("skl", "cpu-clock", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev.attr.exclude_kernel, 0);
	assert_int_equal(r.ev.attr.exclude_hv, 0);
	assert_int_equal(r.ev.attr.exclude_guest, 1);
	assert_string_equal(r.ev.resolved, "cpu-clock");
	assert_string_equal(r.ev.note, "");
	parse_as("icl", "cpu-clock:u:k:period=100000", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.ev.attr.exclude_kernel, 0);
	assert_int_equal(r.ev.attr.exclude_hv, 1);
	assert_string_equal(r.ev.resolved, "cpu-clock:uk:period=100000");
	/* perf's letters on libpfm4 names: at most ppp */
	parse_as("skl", "MEM_INST_RETIRED:ALL_LOADS:pppp", &r);
	assert_int_equal(r.rc, -EINVAL);
	assert_non_null(strstr(r.msg, "at most ppp"));
	event_priv_override(0);
}

static void expect_err(const char *pmu, const char *str, int err,
		       const char *const *words)
{
	struct result r;

	parse_as(pmu, str, &r);
	print_message("# %s %s -> %d %s\n", pmu, str, r.rc, r.msg);
	assert_int_equal(r.rc, err);
	assert_int_equal(r.ev.attr.type, 0);
	assert_int_equal(r.ev.attr.config, 0);
	for (; *words; words++)
		if (!strstr(r.msg, *words))
			fail_msg("'%s' not in: %s", *words, r.msg);
}

#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_errors(void **state)
{
	(void)state;
	/* bad modifiers: named, with what the event takes */
	expect_err("skl", "MEM_INST_RETIRED:ALL_LOADS:foo=1", -EINVAL,
		   WORDS("bad modifier 'foo=1'", "invalid event attribute",
			 "precise=N", "ALL_STORES"));
	expect_err("skl", "MEM_INST_RETIRED:ALL_LOAD", -EINVAL,
		   WORDS("bad modifier 'ALL_LOAD'", "ALL_LOADS"));
	expect_err("skl", "MEM_INST_RETIRED:ALL_LOADS:precise=4", -EINVAL,
		   WORDS("'precise=4'", "invalid event attribute value"));
	expect_err("skl", "MEM_INST_RETIRED:ALL_LOADS:precise=2:precise=1",
		   -EINVAL, WORDS("'precise=1'", "already set"));
	expect_err("skl", "MEM_INST_RETIRED:ALL_LOADS:u:bogus:k", -EINVAL,
		   WORDS("'bogus'"));
	expect_err("skl", "loads:bogus", -EINVAL,
		   WORDS("bad modifier 'bogus' in 'loads:bogus'",
			 "precise=N"));
	expect_err("skl", "loads:precise=9", -EINVAL,
		   WORDS("'precise=9'", "0..3"));
	expect_err("skl", "loads:ldlat=3", -EINVAL, WORDS("'ldlat=3'"));
	expect_err("skl", "ldlat=0", -EINVAL, WORDS("ldlat=0", "1..65535"));
	expect_err("skl", "ldlat=70000", -EINVAL, WORDS("1..65535"));
	expect_err("skl", "cpu-clock:ldlat=3", -EINVAL,
		   WORDS("bad modifier 'ldlat=3' in 'cpu-clock:ldlat=3'"));
	expect_err("skl", "cpu-clock:period=0", -EINVAL,
		   WORDS("'period=0'", "> 0"));
	/* unknown events: up to five close names */
	expect_err("skl", "MEM_INST_RETIRD:ALL_LOADS", -ENOENT,
		   WORDS("unknown event 'MEM_INST_RETIRD'",
			 "MEM_INST_RETIRED"));
	expect_err("skl", "lods", -ENOENT, WORDS("did you mean", "loads"));
	expect_err("skl", "cpu-clok", -ENOENT, WORDS("cpu-clock"));
	expect_err("skl", "MEM_LOAD", -ENOENT,
		   WORDS("MEM_LOAD_RETIRED", "MEM_LOAD_L3_HIT_RETIRED"));
	expect_err("skl", "ZZZZZZZZZZ", -ENOENT,
		   WORDS("unknown event 'ZZZZZZZZZZ'", "skl"));
	expect_err("hsw", "MEM_INST_RETIRED:ALL_LOADS", -ENOENT,
		   WORDS("unknown event 'MEM_INST_RETIRED'"));
	/* "did you mean a, b, c, d or e?": at most five */
	{
		struct result r;
		const char *p;
		int commas = 0;

		parse_as("skl", "MEM_", &r);
		assert_int_equal(r.rc, -ENOENT);
		for (p = r.msg; (p = strstr(p, ", ")); p++)
			commas++;
		assert_true(strstr(r.msg, " or "));
		assert_int_equal(commas, 3);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skl),
		cmocka_unit_test(test_hsw_bdw),
		cmocka_unit_test(test_icl_icx_spr),
		cmocka_unit_test(test_snb_glm),
		cmocka_unit_test(test_software_forced),
		cmocka_unit_test(test_kernel_allowed),
		cmocka_unit_test(test_errors),
	};

	event_priv_override(0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
