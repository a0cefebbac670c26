// SPDX-License-Identifier: MIT
/*
 * test-event-parse - software names, modifiers, argument checks and the
 * perf_event_open error messages, with the PMU libpfm4 detects here (no
 * forcing: its perf:: table is then active and serves as a cross-check).
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
#include "core/internal.h"
#include "event/event-internal.h"

static const struct {
	const char *name, *pfm;
	uint64_t config;
	bool memory;
} sw[] = {
	{ "cpu-clock", "perf::PERF_COUNT_SW_CPU_CLOCK",
	  PERF_COUNT_SW_CPU_CLOCK, false },
	{ "task-clock", "perf::PERF_COUNT_SW_TASK_CLOCK",
	  PERF_COUNT_SW_TASK_CLOCK, false },
	{ "page-faults", "perf::PERF_COUNT_SW_PAGE_FAULTS",
	  PERF_COUNT_SW_PAGE_FAULTS, true },
	{ "faults", "perf::PERF_COUNT_SW_PAGE_FAULTS",
	  PERF_COUNT_SW_PAGE_FAULTS, true },
	{ "context-switches", "perf::PERF_COUNT_SW_CONTEXT_SWITCHES",
	  PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cs", "perf::PERF_COUNT_SW_CONTEXT_SWITCHES",
	  PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cpu-migrations", "perf::PERF_COUNT_SW_CPU_MIGRATIONS",
	  PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "migrations", "perf::PERF_COUNT_SW_CPU_MIGRATIONS",
	  PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "minor-faults", "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN",
	  PERF_COUNT_SW_PAGE_FAULTS_MIN, true },
	{ "major-faults", "perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ",
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ, true },
	/* libpfm4 4.13's perf:: table lacks these three */
	{ "alignment-faults", NULL,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS, false },
	{ "emulation-faults", NULL,
	  PERF_COUNT_SW_EMULATION_FAULTS, false },
	{ "dummy", NULL, PERF_COUNT_SW_DUMMY, false },
};

/*
 * As perf record -e NAME[mods] writes them as root (perf evlist -v):
 * nothing excluded but the guest; :u also hv and kernel; :k user and
 * hv, not the guest; :u:k (perf's :uk) hv only.
 */
static void test_software(void **state)
{
	static const char *const mods[] = { "", ":u", ":k", ":u:k" };
	static const bool excl_k[] = { 0, 1, 0, 0 }, excl_u[] = { 0, 0, 1, 0 },
			  excl_hv[] = { 0, 1, 1, 1 }, excl_g[] = { 1, 1, 0, 1 };
	struct pebs_event ev, ref;
	char buf[96];
	size_t i, m;

	(void)state;
	event_priv_override(1);
	for (i = 0; i < ARRAY_SIZE(sw); i++) {
		for (m = 0; m < ARRAY_SIZE(mods); m++) {
			snprintf(buf, sizeof(buf), "%s%s", sw[i].name, mods[m]);
			assert_int_equal(pebs_event__parse(buf, &ev), 0);
			assert_string_equal(ev.name, buf);
			assert_int_equal(ev.attr.size, sizeof(ev.attr));
			assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
			assert_int_equal(ev.attr.config, sw[i].config);
			assert_int_equal(ev.attr.exclude_kernel, excl_k[m]);
			assert_int_equal(ev.attr.exclude_user, excl_u[m]);
			assert_int_equal(ev.attr.exclude_hv, excl_hv[m]);
			assert_int_equal(ev.attr.exclude_guest, excl_g[m]);
			assert_string_equal(ev.pmu, "perf");
			assert_int_equal(ev.flags, PEBS_EVENT_SOFTWARE |
					 (sw[i].memory ? PEBS_EVENT_MEMORY : 0));
			assert_string_equal(ev.note, "");

			/* the same attr as libpfm4's perf:: table */
			if (!sw[i].pfm || getenv("LIBPFM_FORCE_PMU"))
				continue;
			snprintf(buf, sizeof(buf), "%s%s", sw[i].pfm, mods[m]);
			assert_int_equal(pebs_event__parse(buf, &ref), 0);
			assert_int_equal(ref.attr.type, ev.attr.type);
			assert_int_equal(ref.attr.config, ev.attr.config);
			assert_int_equal(ref.attr.exclude_kernel,
					 ev.attr.exclude_kernel);
			assert_int_equal(ref.attr.exclude_user,
					 ev.attr.exclude_user);
			assert_int_equal(ref.flags & PEBS_EVENT_SOFTWARE,
					 PEBS_EVENT_SOFTWARE);
			assert_string_equal(ref.pmu, "perf");
		}
	}
	assert_int_equal(pebs_event__parse("cpu-clock:period=10007:k", &ev), 0);
	assert_int_equal(ev.attr.sample_period, 10007);
	assert_int_equal(ev.attr.exclude_user, 1);
	assert_string_equal(ev.resolved, "cpu-clock:k:period=10007");
	assert_int_equal(pebs_event__parse("task-clock:precise=2", &ev), 0);
	assert_int_equal(ev.attr.precise_ip, 2);
	assert_int_equal(ev.flags, PEBS_EVENT_SOFTWARE | PEBS_EVENT_PRECISE);
	assert_string_equal(ev.resolved, "task-clock:pp");
	event_priv_override(-1);
}

static void expect(const char *str, int err, const char *word)
{
	struct pebs_event ev;

	assert_int_equal(pebs_event__parse(str, &ev), err);
	if (!strstr(pebs_errmsg(), word))
		fail_msg("'%s' not in: %s", word, pebs_errmsg());
	assert_int_equal(ev.attr.type, 0);
	assert_int_equal(ev.attr.size, 0);
}

static void test_bad_input(void **state)
{
	char longname[200];
	struct pebs_event ev;

	(void)state;
	assert_int_equal(pebs_event__parse(NULL, &ev), -EINVAL);
	assert_int_equal(pebs_event__parse("cpu-clock", NULL), -EINVAL);
	expect("", -EINVAL, "empty event name");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect(longname, -EINVAL, "longer than 127");
	expect("cpu-clock:x", -EINVAL, "bad modifier 'x' in 'cpu-clock:x'");
	expect("cpu-clock:precise=4", -EINVAL, "precise is 0..3");
	expect("cpu-clock:period=-1", -EINVAL, "'period=-1'");
	expect("cpu-clock:period=12abc", -EINVAL, "'period=12abc'");
	expect("page-fault", -ENOENT, "did you mean page-faults");
	expect("cpu-clok", -ENOENT, "cpu-clock");
	expect("xyzzy-quux-frob", -ENOENT, "unknown event 'xyzzy-quux-frob'");

	/* a failure leaves a message; a success clears it */
	assert_int_equal(pebs_event__parse("dummy", &ev), 0);
	assert_string_equal(pebs_errmsg(), "");
}

static void test_open_errors(void **state)
{
	struct pebs_event ev;
	char want[256];
	FILE *f;
	int paranoid;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "loads");
	strcpy(ev.pmu, "skl");
	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_RAW;
	ev.attr.config = 0x81d0;
	ev.attr.precise_ip = 2;
	ev.attr.exclude_kernel = 1;

	/* positive or negative errno in, negative out */
	assert_int_equal(pebs_perf_open_error(&ev, ENOENT), -ENOENT);
	assert_string_equal(pebs_errmsg(), "this CPU/VM has no skl PMU (loads): "
			    "use -e auto or a software event such as "
			    "cpu-clock");
	assert_int_equal(pebs_perf_open_error(&ev, -ENODEV), -ENODEV);
	assert_non_null(strstr(pebs_errmsg(), "has no skl PMU"));

	assert_int_equal(pebs_perf_open_error(&ev, EOPNOTSUPP), -EOPNOTSUPP);
	assert_non_null(strstr(pebs_errmsg(), "loads: precise_ip=2 not "
			       "supported here"));
	assert_non_null(strstr(pebs_errmsg(), "lower :precise"));
	assert_int_equal(pebs_perf_open_error(&ev, EINVAL), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "precise_ip=2 not supported"));
	ev.attr.precise_ip = 0;
	assert_int_equal(pebs_perf_open_error(&ev, EINVAL), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "refused type 4 config 0x81d0"));

	/* EACCES names the sysctl and its current value */
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &paranoid), 1);
	fclose(f);
	snprintf(want, sizeof(want), "/proc/sys/kernel/perf_event_paranoid = "
		 "%d: run as root, or lower it", paranoid);
	assert_int_equal(pebs_perf_open_error(&ev, EACCES), -EACCES);
	assert_non_null(strstr(pebs_errmsg(), want));
	/* what each level allows: whole CPUs (-a/-C) need 0 */
	assert_non_null(strstr(pebs_errmsg(), "0 also whole CPUs"));
	assert_null(strstr(pebs_errmsg(), ":u"));	/* already user only */
	ev.attr.exclude_kernel = 0;
	assert_int_equal(pebs_perf_open_error(&ev, EPERM), -EPERM);
	assert_non_null(strstr(pebs_errmsg(), want));
	assert_non_null(strstr(pebs_errmsg(), "add :u"));

	assert_int_equal(pebs_perf_open_error(&ev, EMFILE), -EMFILE);
	assert_non_null(strstr(pebs_errmsg(), "ulimit -n"));
	assert_int_equal(pebs_perf_open_error(&ev, EBUSY), -EBUSY);
	assert_non_null(strstr(pebs_errmsg(), "busy"));
	assert_int_equal(pebs_perf_open_error(NULL, E2BIG), -E2BIG);
	assert_int_equal(pebs_perf_open_error(&ev, EFAULT), -EFAULT);
	assert_non_null(strstr(pebs_errmsg(), "perf_event_open failed"));

	/* probe refuses an event that was never parsed */
	memset(&ev, 0, sizeof(ev));
	assert_int_equal(pebs_event__probe(&ev), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_open_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
