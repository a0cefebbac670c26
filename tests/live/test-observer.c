// SPDX-License-Identifier: MIT
/*
 * test-observer.c - the observer loop live on this host: software
 * counters per CPU through read() (never on a hardware counter, so the
 * rdpmc path must decline and fall back), the real rdpmc on a hardware
 * counter where the host has one (checked against read()), the table
 * through an in-memory map, and the summaries (achieved resolution,
 * trustable fraction, residency) computed and sane. Every test asks the
 * feature probe (helpers.h) for what it needs and skips with the reason
 * otherwise: rdtscp, a second CPU, per-CPU events, a PMU. Nothing here
 * asserts speed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "helpers.h"
#include "pebsshim.h"

#define ROWS 3000

static int nr_online(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* observer on the last CPU; skip when per-CPU events are not allowed */
static struct pebs_observer *observer_with(const char *evname, int on,
					   unsigned int observed,
					   const struct pebs_map *map)
{
	PEBS_OPTS(pebs_observer_opts, opts, .map = map);
	struct pebs_observer *obs = NULL;
	struct pebs_event ev;
	int err;

	assert_int_equal(pebs_observer__new(on, &opts, &obs), 0);
	assert_int_equal(pebs_observer__add_cpu(obs, observed), 0);
	if (!evname)
		return obs;
	assert_int_equal(pebs_event__parse(evname, &ev), 0);
	err = pebs_observer__add_event(obs, &ev);
	if (err == -EACCES || err == -EPERM) {
		print_message("# %s\n", pebs_errmsg());
		pebs_observer__delete(obs);
		skip();
	}
	assert_int_equal(err, 0);
	return obs;
}

static void run_rows(struct pebs_observer *obs, struct pebs_obs_stats *st,
		     unsigned int n, uint64_t *first, uint64_t *last)
{
	size_t words = pebs_observer__row_words(obs);
	uint64_t *row = calloc(words, sizeof(*row));
	unsigned int got = 0;

	assert_non_null(row);
	while (got < n) {
		int err = pebs_observer__read(obs, row, words);

		if (err == -EAGAIN)
			continue;
		assert_int_equal(err, 0);
		assert_true(row[1] >= row[0]);	/* one CPU's TSC */
		if (!got && first)
			memcpy(first, row, words * sizeof(*row));
		assert_in_range(pebs_obs_stats__add(st, row, NULL), 0, 1);
		got++;
	}
	if (last)
		memcpy(last, row, words * sizeof(*row));
	free(row);
}

static void check_summary(struct pebs_obs_stats *st, const char *what)
{
	uint64_t rows = pebs_obs_stats__rows(st), kept = pebs_obs_stats__kept(st);
	uint64_t med = pebs_obs_stats__period(st, 0.5);
	uint64_t p99 = pebs_obs_stats__period(st, 0.99);

	print_message("# %s: median %llu cycles, p99 %llu, trustable %llu of %llu\n",
		      what, (unsigned long long)med, (unsigned long long)p99,
		      (unsigned long long)kept, (unsigned long long)rows);
	assert_int_equal(rows, ROWS - 1);
	assert_true(kept <= rows);
	assert_true(med > 0);
	assert_true(p99 >= med);
	assert_true(pebs_obs_stats__period(st, 1.0) >= p99);
	assert_true(pebs_obs_stats__kept_cycles(st) > 0 || kept == 0);
}

/* another CPU's per-CPU software counter: read(), and it advances */
static void test_other_cpu_read_path(void **state)
{
	int on = nr_online() - 1;
	unsigned int observed = on > 0 ? 0 : 0;
	struct pebs_observer *obs;
	struct pebs_obs_stats *st;
	struct pebs_obs_thread th[2];
	uint64_t first[6], last[6];
	const char *why = NULL;

	(void)state;
	T_NEED("rdtscp");
	T_NEED("cpus2");
	T_NEED("percpu");
	obs = observer_with("cpu-clock", on, observed, NULL);
	assert_int_equal(pebs_observer__row_words(obs), 6);
	assert_int_equal(pebs_observer__counter_path(obs, 0, 0, &why),
			 PEBS_COUNTER_READ);
	assert_non_null(strstr(why, "another CPU"));
	assert_int_equal(pebs_obs_stats__new(obs, 990000, 1010000, &st), 0);
	run_rows(obs, st, ROWS, first, last);
	check_summary(st, "cpu-clock on another CPU, read()");
	/* no table: tgid/pid read as -1 */
	assert_int_equal((int64_t)last[2], -1);
	assert_int_equal((int64_t)last[3], -1);
	/* cpu-clock of CPU 0 runs whatever runs there, idle included:
	 * it counts ns, so it advanced with the wall clock */
	assert_true(last[5] > first[5]);
	assert_int_equal(pebs_obs_stats__threads(st, 0, th, 2), 1);
	assert_int_equal(th[0].pid, -1);
	assert_int_equal(th[0].cycles, pebs_obs_stats__kept_cycles(st));
	pebs_obs_stats__delete(st);
	pebs_observer__delete(obs);
}

/* the observer's own CPU: rdpmc is tried, and declines (no PMU here) */
static void test_own_cpu_falls_back(void **state)
{
	struct pebs_observer *obs;
	struct pebs_obs_stats *st;
	uint64_t first[6], last[6];
	const char *why = NULL;
	int path;

	(void)state;
	T_NEED("rdtscp");
	T_NEED("percpu");
	obs = observer_with("task-clock", 0, 0, NULL);
	path = pebs_observer__counter_path(obs, 0, 0, &why);
	print_message("# own CPU task-clock: %s (%s)\n",
		      path == PEBS_COUNTER_RDPMC ? "rdpmc" : "read()", why);
	/* a software event is never on a hardware counter */
	assert_int_equal(path, PEBS_COUNTER_READ);
	assert_null(strstr(why, "another CPU"));
	assert_int_equal(pebs_obs_stats__new(obs, 990000, 1010000, &st), 0);
	run_rows(obs, st, ROWS, first, last);
	check_summary(st, "task-clock on the observer's CPU");
	/* the observer itself runs there the whole time */
	assert_true(last[5] > first[5]);
	pebs_obs_stats__delete(st);
	pebs_observer__delete(obs);
}

/*
 * The real rdpmc, where the hardware and kernel allow it: a self-counting
 * hardware event read through its user page must agree with read(2)
 * (monotonic across rdpmc, read, rdpmc). Skips without a PMU or
 * without cap_user_rdpmc.
 */
static void test_rdpmc_real(void **state)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.exclude_kernel = 1,
	};
	const struct perf_event_mmap_page *pc;
	uint64_t r1 = 0, k = 0, r2 = 0;
	void *p;
	int fd;

	(void)state;
	T_NEED("pmu");
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	assert_true(fd >= 0);
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	pc = p;
	if (!pc->cap_user_rdpmc || !pc->index) {
		print_message("# cap_user_rdpmc %u index %u: no user rdpmc here\n",
			      (unsigned int)pc->cap_user_rdpmc, pc->index);
		assert_int_equal(pebs_rdpmc_read(pc, NULL, &r1), -EOPNOTSUPP);
		munmap(p, sysconf(_SC_PAGESIZE));
		close(fd);
		skip();
	}
	assert_int_equal(pebs_rdpmc_read(pc, NULL, &r1), 0);
	assert_int_equal(read(fd, &k, sizeof(k)), sizeof(k));
	assert_int_equal(pebs_rdpmc_read(pc, NULL, &r2), 0);
	print_message("# user instructions: rdpmc %llu, read() %llu, rdpmc %llu (pmc_width %u)\n",
		      (unsigned long long)r1, (unsigned long long)k,
		      (unsigned long long)r2, (unsigned int)pc->pmc_width);
	assert_true(r1 > 0);
	assert_true(r1 <= k);
	assert_true(k <= r2);
	munmap(p, sysconf(_SC_PAGESIZE));
	close(fd);
}

/* a hardware counter of the observer's own CPU: the path is chosen by
 * timing, and whichever it is, the counts advance */
static void test_own_cpu_hardware(void **state)
{
	struct pebs_observer *obs;
	struct pebs_obs_stats *st;
	uint64_t first[6], last[6];
	const char *why = NULL;
	PEBS_OPTS(pebs_observer_opts, opts);
	struct pebs_event ev;
	int path, err;

	(void)state;
	T_NEED("rdtscp");
	T_NEED("pmu");
	T_NEED("percpu");
	assert_int_equal(pebs_observer__new(0, &opts, &obs), 0);
	assert_int_equal(pebs_observer__add_cpu(obs, 0), 0);
	/* libpfm4 may know no core PMU here (parse fails), or the kernel
	 * may have none (add_event fails): both mean no hardware counter */
	err = pebs_event__parse("instructions", &ev);
	if (!err)
		err = pebs_observer__add_event(obs, &ev);
	if (err < 0) {
		print_message("# %s\n", pebs_errmsg());
		pebs_observer__delete(obs);
		skip();
	}
	path = pebs_observer__counter_path(obs, 0, 0, &why);
	print_message("# own CPU instructions: %s (%s)\n",
		      path == PEBS_COUNTER_RDPMC ? "rdpmc" : "read()", why);
	assert_true(path == PEBS_COUNTER_RDPMC || path == PEBS_COUNTER_READ);
	assert_true(why && why[0]);
	assert_int_equal(pebs_obs_stats__new(obs, 990000, 1010000, &st), 0);
	run_rows(obs, st, ROWS, first, last);
	check_summary(st, "instructions on the observer's CPU");
	assert_true(last[5] > first[5]);	/* the observer runs there */
	pebs_obs_stats__delete(st);
	pebs_observer__delete(obs);
}

/* the table path through an in-memory map: the slot's ids come through */
struct table {
	struct pebs_map_header h;
	struct pebs_map_slot slot[2];
} __attribute__((aligned(64)));

static void test_table_slot(void **state)
{
	static struct table t;
	struct pebs_map *map = NULL;
	struct pebs_observer *obs;
	struct pebs_obs_stats *st;
	struct pebs_obs_thread th[2];
	uint64_t last[5];

	(void)state;
	T_NEED("rdtscp");
	memset(&t, 0, sizeof(t));
	pebs_map_table_init(&t.h, sizeof(t), 2, 0, 0, 0);
	t.slot[0] = (struct pebs_map_slot){ .seq = 4, .tgid = 77, .pid = 78 };
	t.slot[1] = (struct pebs_map_slot){ .seq = 2, .tgid = -1, .pid = -1,
					    .cpu = 1 };
	assert_int_equal(pebs_map__from_memory(&t, sizeof(t), NULL, 0, &map), 0);
	obs = observer_with(NULL, 0, 0, map);
	assert_int_equal(pebs_observer__add_cpu(obs, 2), -EINVAL);	/* no slot */
	assert_int_equal(pebs_obs_stats__new(obs, 990000, 1010000, &st), 0);
	run_rows(obs, st, ROWS, NULL, last);
	check_summary(st, "in-memory table slot");
	assert_int_equal(last[2], 77);
	assert_int_equal(last[3], 78);
	assert_int_equal(pebs_obs_stats__threads(st, 0, th, 2), 1);
	assert_int_equal(th[0].tgid, 77);
	assert_int_equal(th[0].pid, 78);
	assert_int_equal(pebs_obs_stats__threads(st, 0, NULL, 0), 1);
	pebs_obs_stats__delete(st);
	pebs_observer__delete(obs);
	pebs_map__close(map);
}

static void test_errors(void **state)
{
	struct pebs_observer *obs = NULL;
	uint64_t row[8];
	struct pebs_event ev;
	uint64_t hz = 0;
	int i, err = 0;

	(void)state;
	T_NEED("rdtscp");
	assert_int_equal(pebs_observer__new(-1, NULL, &obs), -EINVAL);
	assert_int_equal(pebs_observer__new(0, NULL, &obs), 0);
	assert_int_equal(pebs_observer__on_cpu(obs), 0);
	assert_int_equal(pebs_observer__add_cpu(obs, 100000), -EINVAL);
	assert_int_equal(pebs_observer__read(obs, row, 1), -ENOSPC);
	assert_int_equal(pebs_observer__read(obs, row, 2), 0);	/* no CPUs */
	assert_int_equal(pebs_observer__cpu(obs, 0), -EINVAL);
	/* events without CPUs are only remembered: 8 fit, the 9th not */
	assert_int_equal(pebs_event__parse("cpu-clock", &ev), 0);
	for (i = 0; i < PEBS_OBS_MAX_EVENTS; i++)
		assert_int_equal(pebs_observer__add_event(obs, &ev), i);
	assert_int_equal(pebs_observer__add_event(obs, &ev), -E2BIG);
	assert_int_equal(pebs_observer__nr_events(obs), PEBS_OBS_MAX_EVENTS);
	/* a CPU added now gets all 8 opened (or fails as a whole) */
	err = pebs_observer__add_cpu(obs, 0);
	if (err == -EACCES || err == -EPERM)
		print_message("# %s\n", pebs_errmsg());
	else
		assert_int_equal(err, 0);
	pebs_observer__delete(obs);
	assert_int_equal(pebs_tsc_hz(20, &hz), 0);
	print_message("# TSC %.1f MHz\n", hz / 1e6);
	assert_true(hz > 1000000);
	assert_int_equal(pebs_tsc_hz(0, &hz), -EINVAL);
}

/* a CPU without rdtscp (simulated through the library's switch): a
 * clear refusal, on every host */
static void test_no_rdtscp(void **state)
{
	const char *was = getenv("PEBS_TEST_NO_RDTSCP");
	char *saved = was ? strdup(was) : NULL;
	struct pebs_observer *obs = NULL;

	(void)state;
	assert_int_equal(setenv("PEBS_TEST_NO_RDTSCP", "1", 1), 0);
	assert_false(pebs_cpu_has_rdtscp());
	assert_int_equal(pebs_observer__new(0, NULL, &obs), -EOPNOTSUPP);
	assert_null(obs);
	assert_non_null(strstr(pebs_errmsg(), "no rdtscp"));
	if (saved)
		assert_int_equal(setenv("PEBS_TEST_NO_RDTSCP", saved, 1), 0);
	else
		assert_int_equal(unsetenv("PEBS_TEST_NO_RDTSCP"), 0);
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_other_cpu_read_path),
		cmocka_unit_test(test_own_cpu_falls_back),
		cmocka_unit_test(test_rdpmc_real),
		cmocka_unit_test(test_own_cpu_hardware),
		cmocka_unit_test(test_table_slot),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_no_rdtscp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
