// SPDX-License-Identifier: MIT
/*
 * obs-print.c - what pebs-shim observe prints: the setup line (which
 * path each counter takes, where the observer runs, what it observes)
 * and the summary of a pebs_obs_stats (observations, resolution as
 * period quantiles, the trustable fraction, and per observed CPU each
 * thread's residency, counters and IPC).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/observe.h"
#include "core/internal.h"
#include "core/opts.h"

void pebs_observer__print_setup(const struct pebs_observer *obs, FILE *f,
				const char *table)
{
	unsigned int nr_cpus = pebs_observer__nr_cpus(obs);
	unsigned int nr_ev = pebs_observer__nr_events(obs);

	if (nr_ev && nr_cpus) {
		unsigned int nrd = 0, total = nr_ev * nr_cpus;
		const char *why = "", *why_rd = NULL, *why_read = NULL;

		for (unsigned int i = 0; i < nr_cpus; i++)
			for (unsigned int e = 0; e < nr_ev; e++) {
				if (pebs_observer__counter_path(obs, i, e, &why) ==
				    PEBS_COUNTER_RDPMC) {
					nrd++;
					why_rd = why_rd ? why_rd : why;
				} else {
					why_read = why_read ? why_read : why;
				}
			}
		if (nrd == total)
			fprintf(f, "counters: rdpmc for all %u (%s)\n", total, why_rd);
		else if (!nrd)
			fprintf(f, "counters: read() for all %u (%s)\n", total, why_read);
		else
			fprintf(f, "counters: rdpmc for %u (%s), read() for %u (%s)\n",
				nrd, why_rd, total - nrd, why_read);
	} else if (nr_ev) {
		fprintf(f, "counters: %u per observed CPU, no CPU yet\n", nr_ev);
	} else {
		fprintf(f, "counters: none (table only)\n");
	}
	fprintf(f, "observer on CPU %d, observing CPU%s",
		pebs_observer__on_cpu(obs), nr_cpus > 1 ? "s" : "");
	for (unsigned int i = 0; i < nr_cpus; i++)
		fprintf(f, "%s%d", i ? "," : " ", pebs_observer__cpu(obs, i));
	fprintf(f, "; table %s\n", table);
}

static void task_comm(int pid, char *buf, size_t len)
{
	snprintf(buf, len, "%s", pid == 0 ? "[idle]" : pid < 0 ? "-" : "?");
	if (pid > 0)
		pebs_proc__comm(pid, buf, len);
}

/* index of the event counting @hw (a generic hardware event), or -1 */
static int find_hw(const struct pebs_event *evs, unsigned int n, uint64_t hw)
{
	for (unsigned int e = 0; e < n; e++)
		if (evs[e].attr.type == PERF_TYPE_HARDWARE &&
		    evs[e].attr.config == hw)
			return e;
	return -1;
}

/* one observed CPU: its threads, most cycles first */
static int print_cpu(const struct pebs_obs_stats *st,
		     const struct pebs_observer *obs, unsigned int i, FILE *f,
		     const struct pebs_obs_print_opts *o, int icyc, int iins)
{
	unsigned int nr_events = pebs_observer__nr_events(obs);
	uint64_t kc = pebs_obs_stats__kept_cycles(st);
	uint64_t ac = pebs_obs_stats__all_cycles(st);
	uint64_t hz = o->tsc_hz;
	int n = pebs_obs_stats__threads(st, i, NULL, 0);
	struct pebs_obs_thread *th;

	if (n < 0)
		return n;
	th = calloc(n ? n : 1, sizeof(*th));
	if (!th)
		return core_err(-ENOMEM, "observer summary: out of memory");
	pebs_obs_stats__threads(st, i, th, n);
	fprintf(f, "cpu %d: %d threads; share of the %.3f s of kept intervals (of all %.3f s)\n",
		pebs_observer__cpu(obs, i), n, kc / (double)hz,
		ac / (double)hz);
	for (int t = 0; t < n; t++) {
		char comm[32];

		task_comm(th[t].pid, comm, sizeof(comm));
		fprintf(f, "  cpu %d tid %d tgid %d: %6.2f %% (all %6.2f %%) %-16s %"
			PRIu64 " samples %" PRIu64 " cycles",
			pebs_observer__cpu(obs, i), th[t].pid, th[t].tgid,
			kc ? 100.0 * th[t].cycles / kc : 0.0,
			ac ? 100.0 * th[t].all_cycles / ac : 0.0, comm,
			th[t].samples, th[t].cycles);
		for (unsigned int e = 0; e < nr_events; e++)
			fprintf(f, " %s %" PRIu64, o->events[e].name,
				th[t].counters[e]);
		if (icyc >= 0 && iins >= 0 && th[t].counters[icyc])
			fprintf(f, " IPC %.2f", (double)th[t].counters[iins] /
				th[t].counters[icyc]);
		fputc('\n', f);
	}
	free(th);
	return 0;
}

int pebs_obs_stats__print(const struct pebs_obs_stats *st,
			  const struct pebs_observer *obs, FILE *f,
			  const struct pebs_obs_print_opts *opts)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	static const char *const qn[] = { "p50", "p90", "p99", "p99.9", "max" };
	struct pebs_obs_print_opts o;
	unsigned int nr_events;
	uint64_t rows, kept, med, p99, hz;
	int icyc, iins, err;

	err = opts_copy(&o, sizeof(o), opts, "pebs_obs_print_opts");
	if (err)
		return err;
	if (!st || !obs || !f || !o.tsc_hz)
		return core_err(-EINVAL, "observer summary: give the stats, "
				"the observer, the stream and the TSC's rate");
	nr_events = pebs_observer__nr_events(obs);
	if (nr_events && !o.events)
		return core_err(-EINVAL, "observer summary: the observer counts "
				"%u events: give them", nr_events);
	hz = o.tsc_hz;
	rows = pebs_obs_stats__rows(st);
	kept = pebs_obs_stats__kept(st);
	med = pebs_obs_stats__period(st, 0.5);
	p99 = pebs_obs_stats__period(st, 0.99);
	icyc = find_hw(o.events, nr_events, PERF_COUNT_HW_CPU_CYCLES);
	iins = find_hw(o.events, nr_events, PERF_COUNT_HW_INSTRUCTIONS);

	fprintf(f, "observations: %" PRIu64 " in %.3f s; TSC %.1f MHz\n",
		rows + 1, o.secs, hz / 1e6);
	fprintf(f, "resolution: median %" PRIu64 " cycles (%.0f ns), p99 %" PRIu64
		" cycles (%.0f ns)\n", med, med * 1e9 / hz, p99, p99 * 1e9 / hz);
	fprintf(f, "period cycles:");
	for (unsigned int q = 0; q < sizeof(qs) / sizeof(qs[0]); q++)
		fprintf(f, " %s %" PRIu64, qn[q], pebs_obs_stats__period(st, qs[q]));
	fputc('\n', f);
	fprintf(f, "trustable: %" PRIu64 " of %" PRIu64 " (%.2f %%) within %.2f..%.2f %%\n",
		kept, rows, rows ? 100.0 * kept / rows : 0.0, 100 - o.tolerance,
		100 + o.tolerance);
	for (unsigned int i = 0; i < pebs_observer__nr_cpus(obs); i++) {
		err = print_cpu(st, obs, i, f, &o, icyc, iins);
		if (err)
			return err;
	}
	if (icyc < 0 || iins < 0) {
		struct pebs_event cyc;

		/* say whether asking for them would have helped */
		if (pebs_event__parse("cycles", &cyc) || pebs_event__probe(&cyc))
			fprintf(f, "IPC per thread: not available, this machine cannot count cycles (%s)\n",
				pebs_errmsg());
		else
			fprintf(f, "IPC per thread: add -e cycles -e instructions\n");
	}
	return 0;
}
