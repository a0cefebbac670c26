// SPDX-License-Identifier: MIT
/*
 * residency.c - the observer's residency of a thread against the
 * kernel's own account of it (/proc/PID/task/TID/schedstat: time on a
 * CPU): a chase pinned to one CPU, observed from another through the
 * module's table until it exits. Needs /dev/pebs_map (the table names
 * who runs), rdtscp and two CPUs.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define MAX_THREADS 64

bool st_schedstat(pid_t pid, pid_t tid, uint64_t *run_ns)
{
	char path[64], val[128];
	unsigned long long ns;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
		 (int)tid);
	if (!st_read_line(path, val, sizeof(val)) ||
	    sscanf(val, "%llu", &ns) != 1)
		return false;
	*run_ns = ns;
	return true;
}

/*
 * Within 5 % of schedstat's, plus two observation periods (an interval
 * at each end is split in halves) and 2 ms (schedstat is read every
 * 1024 observations while the thread lives, so its last stretch before
 * exit is missing).
 */
bool st_residency_ok(double observed, double sched, double period)
{
	double d = observed > sched ? observed - sched : sched - observed;

	return sched > 0 && d <= 0.05 * sched + 2 * period + 0.002;
}

/* two CPUs this process may use: the observer's and the workload's */
static bool two_cpus(cpu_set_t *saved, int *obs_cpu, int *wl_cpu)
{
	int c;

	*obs_cpu = *wl_cpu = -1;
	if (sched_getaffinity(0, sizeof(*saved), saved))
		return false;
	for (c = 0; c < CPU_SETSIZE && *wl_cpu < 0; c++)
		if (CPU_ISSET(c, saved)) {
			if (*obs_cpu < 0)
				*obs_cpu = c;
			else
				*wl_cpu = c;
		}
	return *wl_cpu >= 0;
}

/* observe @cpu until @w exits: the stats, schedstat's ns in @sched */
static int observe(struct pebs_observer *obs, struct pebs_obs_stats *st,
		   struct st_wl *w, uint64_t *sched)
{
	size_t n = pebs_observer__row_words(obs);
	uint64_t *row = calloc(n, sizeof(*row)), s0 = 0, s1 = 0, i;
	int status, err = 0;

	if (!row)
		return -ENOMEM;
	st_schedstat(w->pid, w->tid[0], &s0);
	s1 = s0;
	if (st_wl_go(w)) {
		free(row);
		return -ECHILD;
	}
	for (i = 0;; i++) {
		if (!pebs_observer__read(obs, row, n) &&
		    pebs_obs_stats__add(st, row, NULL) < 0)
			err = -ENOMEM;
		if (i % 1024)
			continue;
		st_schedstat(w->pid, w->tid[0], &s1);
		if (waitpid(w->pid, &status, WNOHANG) == w->pid)
			break;
	}
	*sched = s1 - s0;
	free(row);
	return err;
}

void st_check_residency(struct pebs_selftest_result *r,
			const struct pebs_selftest_opts *opts)
{
	PEBS_OPTS(pebs_observer_opts, oo);
	struct pebs_obs_thread th[MAX_THREADS];
	struct pebs_observer *obs = NULL;
	struct pebs_obs_stats *st = NULL;
	struct pebs_map *map = NULL;
	double observed = -1, sched, period;
	uint64_t hz = 0, sched_ns = 0;
	int obs_cpu, wl_cpu, err, k, i;
	cpu_set_t saved, one;
	struct st_wl w;

	(void)opts;
	if (!st_have_map(r))
		return;
	if (!pebs_cpu_has_rdtscp()) {
		st_set(r, PEBS_SELFTEST_SKIP, "%s: the observer cannot run",
		       st_no_rdtscp());
		return;
	}
	if (!two_cpus(&saved, &obs_cpu, &wl_cpu)) {
		st_set(r, PEBS_SELFTEST_SKIP, "one CPU allowed: the observer "
		       "needs its own");
		return;
	}
	if (!st_open_map(r, &map))
		return;
	oo.map = map;
	err = st_wl_start(&w, ST_CHASE, 1, 1u << 20);
	if (err) {
		st_set(r, PEBS_SELFTEST_FAIL, "cannot start the workload: %s",
		       strerror(-err));
		goto out_map;
	}
	CPU_ZERO(&one);
	CPU_SET(wl_cpu, &one);
	err = sched_setaffinity(w.tid[0], sizeof(one), &one) ? -errno : 0;
	if (!err)
		err = pebs_observer__new(obs_cpu, &oo, &obs);
	if (!err)
		err = pebs_observer__add_cpu(obs, (unsigned int)wl_cpu);
	if (err >= 0)
		err = pebs_obs_stats__new(obs, 990000, 1010000, &st);
	if (err >= 0)
		err = observe(obs, st, &w, &sched_ns);
	else
		st_wl_kill(&w);
	sched_setaffinity(0, sizeof(saved), &saved);
	if (err < 0) {
		st_set(r, PEBS_SELFTEST_FAIL, "observing CPU %d from CPU %d: %s",
		       wl_cpu, obs_cpu, pebs_errmsg());
		goto out;
	}
	pebs_tsc_hz(20, &hz);
	k = pebs_obs_stats__threads(st, 0, th, MAX_THREADS);
	for (i = 0; hz && i < k && i < MAX_THREADS; i++)
		if (th[i].pid == w.tid[0])
			observed = (double)th[i].all_cycles / (double)hz;
	period = hz ? (double)pebs_obs_stats__period(st, 0.5) / (double)hz : 0;
	sched = (double)sched_ns / 1e9;
	st_detail(r, "cpus=%d observed from %d", wl_cpu, obs_cpu);
	st_detail(r, "observed_s=%.6f", observed);
	st_detail(r, "schedstat_s=%.6f", sched);
	st_detail(r, "period_us=%.3f", period * 1e6);
	if (observed >= 0 && st_residency_ok(observed, sched, period))
		st_set(r, PEBS_SELFTEST_PASS, "thread %d: %.6f s on CPU %d by "
		       "the observer (period %.3f us), %.6f s by schedstat",
		       (int)w.tid[0], observed, wl_cpu, period * 1e6, sched);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "thread %d: %.6f s on CPU %d by "
		       "the observer (-1: never seen), %.6f s by schedstat: "
		       "want within 5 %% + 2 periods (%.3f us) + 2 ms",
		       (int)w.tid[0], observed, wl_cpu, sched, period * 1e6);
out:
	pebs_obs_stats__delete(st);
	pebs_observer__delete(obs);
out_map:
	pebs_map__close(map);
}
