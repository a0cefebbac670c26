// SPDX-License-Identifier: MIT
/*
 * record-print.c - what `pebs-shim record` tells the user: the
 * terminal's status line, perf record's end summary and record's own
 * lines, and with -v the events as opened and the attribution's
 * mismatches. The figures are the recorder's (pebs_recorder__stats).
 */
#include <time.h>
#include <sys/stat.h>

#include "record.h"

/* MB in the output file so far (or at the end); 0 for a pipe */
static double output_mb(const char *path)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	return (double)st.st_size / (1024.0 * 1024.0);
}

void rec_status_line(struct pebs_recorder *r, const struct rec_opts *o,
		     uint64_t t0, uint64_t now, uint64_t *last_t,
		     uint64_t *last_n)
{
	const struct pebs_recorder_stats *st = pebs_recorder__stats(r);
	const struct pebs_budget *b = pebs_recorder__budget(r);
	double el = (double)(now - t0) / 1e9;
	double dt = (double)(now - *last_t) / 1e9;

	fprintf(stderr, "\r\033[K[ %.1f s ] %llu samples, %.0f/s, %llu lost, %.3f MB written",
		el, (unsigned long long)st->samples,
		dt > 0 ? (double)(st->samples - *last_n) / dt : 0.0,
		(unsigned long long)st->lost, output_mb(o->output));
	if (b)
		fprintf(stderr, ", overhead %.2f %% (budget %g %%)",
			pebs_budget__overhead(b) * 100, o->budget * 100);
	if (b && pebs_budget__duty(b) < 1)
		fprintf(stderr, ", duty %.1f %%",
			pebs_budget__duty(b) * 100);
	/* each event's period range so far */
	for (unsigned int i = 0; b && i < pebs_recorder__nr_events(r); i++) {
		const struct pebs_budget_stats *bs = pebs_budget__stats(b, i);

		fprintf(stderr, ", %s %llu-%llu", pebs_recorder__event(r, i)->name,
			(unsigned long long)bs->min_period,
			(unsigned long long)bs->max_period);
	}
	*last_t = now;
	*last_n = st->samples;
}

static void attribution(enum pebs_recorder_attr attr, bool baseline,
			const struct pebs_attrib_stats *st)
{
	uint64_t checked = st->agree + st->disagree + st->unattributed;
	char pct[16] = "n/a";

	if (checked)
		snprintf(pct, sizeof(pct), "%.3f %%",
			 100.0 * (double)st->agree / (double)checked);
	if (attr == PEBS_RECORDER_ATTR_MAP)
		fprintf(stderr, "/dev/pebs_map switch history (%llu of %llu samples attributed, %llu history entries overrun)",
			(unsigned long long)(st->samples - st->unattributed),
			(unsigned long long)st->samples,
			(unsigned long long)st->history_lost);
	else if (attr == PEBS_RECORDER_ATTR_BOTH)
		fprintf(stderr, "sample TID, /dev/pebs_map agrees on %s (%llu of %llu; %llu differ, %llu unattributed)",
			pct, (unsigned long long)st->agree,
			(unsigned long long)checked,
			(unsigned long long)st->disagree,
			(unsigned long long)st->unattributed);
	else if (baseline)
		fprintf(stderr, "sample TID (no /dev/pebs_map; PERF_RECORD_SWITCH_CPU_WIDE baseline agrees on %s: %llu of %llu, %llu differ, %llu unattributed)",
			pct, (unsigned long long)st->agree,
			(unsigned long long)checked,
			(unsigned long long)st->disagree,
			(unsigned long long)st->unattributed);
	else
		fputs("sample TID", stderr);
}

/* where the costs came from: measured now (kept or not) or cached when */
static void cal_summary(struct pebs_recorder *r, const struct rec_opts *o)
{
	const char *why;
	uint64_t ns;
	int64_t when;
	time_t t;
	char at[32];

	switch (pebs_recorder__calibration(r, &when, &ns, &why)) {
	case PEBS_RECORDER_CAL_CACHED:
		t = (time_t)when;
		strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
		fprintf(stderr, "pebs-shim record: budget: costs cached, measured on %s (%s; --recalibrate measures them again)\n",
			at, o->cal_cache);
		break;
	case PEBS_RECORDER_CAL_MEASURED:
		fprintf(stderr, "pebs-shim record: budget: costs measured now in %.0f ms, kept for this machine and boot in %s\n",
			(double)ns / 1e6, o->cal_cache);
		break;
	case PEBS_RECORDER_CAL_UNCACHED:
		fprintf(stderr, "pebs-shim record: budget: costs measured now in %.0f ms, not kept: %s\n",
			(double)ns / 1e6, o->cal_cache[0] ? why :
			"neither XDG_CACHE_HOME nor HOME is set");
		break;
	case PEBS_RECORDER_CAL_NONE:
		break;
	}
}

/*
 * the estimate over the whole run, then what of it the start accounts
 * for (the intervals at the starting periods, before the controller's
 * first decision) and the estimate over the part it controlled
 */
static void whole(const struct pebs_budget *b, const struct rec_opts *o)
{
	const struct pebs_budget_totals *t = pebs_budget__totals(b);
	double cpu = (double)t->cpu_ns, ctl = pebs_budget__controlled(b);
	double first_s = (double)t->first_elapsed_ns / 1e9;

	if (!t->cpu_ns) {
		fprintf(stderr, "pebs-shim record: budget %g %% of the sampled CPU time: no estimate: the sampled %s ran no CPU time that /proc counts (%.3f s)\n",
			o->budget * 100, o->per_cpu ? "CPUs" :
			"tasks", (double)t->elapsed_ns / 1e9);
		return;
	}
	fprintf(stderr, "pebs-shim record: budget %g %% of the sampled CPU time: estimated overhead %.2f %% over the whole run (the kernel's cost per event counted and per sample, and the recorder's CPU; %.3f s of sampled CPU time in %.3f s)\n",
		o->budget * 100, t->cost_ns / cpu * 100, cpu / 1e9,
		(double)t->elapsed_ns / 1e9);
	if (ctl < 0) {
		fprintf(stderr, "pebs-shim record: budget: the run ended before the controller could act: all %.3f s at the starting periods (its first decision ends its first %.1f s interval with samples%s)\n",
			first_s, PEBS_RECORDER_BUDGET_INTERVAL_NS / 1e9,
			!t->decided && t->first_elapsed_ns >=
			PEBS_RECORDER_BUDGET_INTERVAL_NS ? ": no interval had any" : "");
		return;
	}
	/* under half an interval after its decision: too short to tell */
	if (t->elapsed_ns - t->first_elapsed_ns <
	    PEBS_RECORDER_BUDGET_INTERVAL_NS / 2) {
		fprintf(stderr, "pebs-shim record: budget: the first %.3f s, at the starting periods before the controller could act, account for %.1f %% of that estimate (%.1f %% of the sampled CPU time); the run ended %.3f s after its first decision, too soon to tell what it kept\n",
			first_s, t->cost_ns > 0 ?
			t->first_cost_ns / t->cost_ns * 100 : 0,
			(double)t->first_cpu_ns / cpu * 100,
			(double)(t->elapsed_ns - t->first_elapsed_ns) / 1e9);
		return;
	}
	fprintf(stderr, "pebs-shim record: budget: the first %.3f s, at the starting periods before the controller could act, account for %.1f %% of that estimate (%.1f %% of the sampled CPU time); over the %.3f s it controlled: %.2f %%, %s the budget\n",
		first_s, t->cost_ns > 0 ? t->first_cost_ns / t->cost_ns * 100 : 0,
		(double)t->first_cpu_ns / cpu * 100,
		(double)(t->elapsed_ns - t->first_elapsed_ns) / 1e9,
		ctl * 100, ctl <= o->budget ? "within" : "over");
}

/*
 * the budget: its estimate, then per event the range of its periods,
 * the last, how often it changed and the cost per sample it was run on
 */
static void budget_summary(struct pebs_recorder *r, const struct rec_opts *o)
{
	const struct pebs_budget *b = pebs_recorder__budget(r);
	uint64_t windows;
	double duty;

	whole(b, o);
	duty = pebs_recorder__duty(r, &windows);
	if (windows)
		fprintf(stderr, "pebs-shim record: budget: duty cycle: the events enabled %.1f %% of the time, in %llu windows at random places of their cycles (%.3g %% asked last)\n",
			duty * 100, (unsigned long long)windows,
			pebs_budget__duty(b) * 100);
	cal_summary(r, o);
	fprintf(stderr, "pebs-shim record: budget: %.3f us per context switch of a sampled task (its perf context; the tracking event keeps it enabled)\n",
		pebs_recorder__switch_cost(r) / 1000);
	for (unsigned int i = 0; i < pebs_recorder__nr_events(r); i++) {
		const struct pebs_budget_stats *st = pebs_budget__stats(b, i);
		uint64_t lo, hi;
		bool proxy;
		double cost = pebs_recorder__sample_cost(r, i, &proxy);

		bool ev_proxy;
		double ev_cost = pebs_recorder__event_cost(r, i, &ev_proxy);

		fprintf(stderr, "pebs-shim record: budget: %s ",
			pebs_recorder__event(r, i)->name);
		/* in freq mode: a period once its first samples tell it */
		if (!st->period)
			fputs("no period (no samples reached the controller)", stderr);
		else
			fprintf(stderr, "period %llu-%llu (last %llu, %llu changes)",
				(unsigned long long)st->min_period,
				(unsigned long long)st->max_period,
				(unsigned long long)st->period,
				(unsigned long long)st->changes);
		/* freq mode: what the kernel gave the samples */
		if (pebs_recorder__carried(r, i, &lo, &hi))
			fprintf(stderr, ", the samples carried %llu-%llu (freq mode, the kernel's, until the first period set, then the periods set, fixed%s)",
				(unsigned long long)lo,
				(unsigned long long)hi,
				windows ? "; in the duty cycle's windows weighted by cycle / window" : "");
		fprintf(stderr, ", %.2f us per sample", cost / 1000);
		/* an event counted per occurrence: what each costs, and
		   while disabled */
		if (ev_proxy || ev_cost > 0)
			fprintf(stderr, ", %.3f us per event (%.3f while disabled; closed in the off windows: 0)",
				ev_cost / 1000,
				pebs_recorder__off_cost(r, i) / 1000);
		fprintf(stderr, "%s\n", !proxy ? "" : ev_proxy ?
			" (page-faults')" : " (cpu-clock's)");
	}
}

void rec_budget_floor(struct pebs_recorder *r, const struct rec_opts *o)
{
	const struct pebs_budget *b = pebs_recorder__budget(r);
	double floor = pebs_budget__floor(b), off = pebs_budget__off_floor(b);
	double least;
	char names[256] = "";
	size_t at = 0;

	if (!b || !(floor > o->budget))
		return;
	for (unsigned int i = 0; i < pebs_recorder__nr_events(r); i++)
		if (at < sizeof(names))
			at += (size_t)snprintf(names + at, sizeof(names) - at,
					       "%s%s", at ? ", " : "",
					       pebs_recorder__event(r, i)->name);
	/* at the least duty: off the rest of the time, at their off cost */
	least = off + (floor - off) * PEBS_RECORDER_MIN_DUTY;
	/* the duty cycle meets it, unless even its least costs more */
	if (pebs_budget__duty(b) >= PEBS_RECORDER_MIN_DUTY ||
	    least <= o->budget) {
		fprintf(stderr, "pebs-shim record: budget %g %% met by a duty cycle: enabled, %s cost %.2f %% of the sampled CPU time here (each event counted, and samples costing as much as the counting, within the period's limits; %.2f %% in the off windows, the events closed there), so they were enabled %.1f %% of the time (%.3g %% asked last), in windows at random places (8 samples a window and thread at least), each sample's period weighted by its cycle over its window so that the periods stand for the whole run; a dummy tracking event stayed enabled, so the mappings, execs and threads of the off windows have their MMAP, COMM and FORK records (see --budget in pebs-shim(1))\n",
			o->budget * 100, names, floor * 100, off * 100,
			pebs_recorder__duty(r, NULL) * 100,
			pebs_budget__duty(b) * 100);
		return;
	}
	fprintf(stderr, "pebs-shim record: budget %g %% cannot be met with %s: enabled, they cost %.2f %% of the sampled CPU time here (each event counted, sampled or not, and samples costing as much as the counting, within the period's limits; %.2f %% in the off windows, the events closed there), %.3f %% at the least duty cycle (enabled %.1f %% of the time); they were sampled at that duty\n",
		o->budget * 100, names, floor * 100,
		off * 100, least * 100, PEBS_RECORDER_MIN_DUTY * 100);
}

void rec_summary(struct pebs_recorder *r, const struct rec_opts *o,
		 bool stopped)
{
	const struct pebs_recorder_stats *c = pebs_recorder__stats(r);
	const struct pebs_switchrec_stats *sw =
		pebs_recorder__switchrec_stats(r);
	const char *path = o->output;
	bool baseline;
	enum pebs_recorder_attr attr = pebs_recorder__attribution(r, &baseline);

	/* perf record's end summary, then which attribution and its rate */
	fprintf(stderr, "[ pebs-shim record: Woken up %llu times to write data ]\n",
		(unsigned long long)c->wakeups);
	fprintf(stderr, "[ pebs-shim record: Captured and wrote %.3f MB %s (%llu samples) ]\n",
		output_mb(path), path, (unsigned long long)c->written);
	fprintf(stderr, "pebs-shim record: %llu samples written to %s, %llu lost, %llu throttle events; attribution: ",
		(unsigned long long)c->written, path,
		(unsigned long long)c->lost,
		(unsigned long long)c->throttles);
	attribution(attr, baseline,
		    pebs_attrib__stats(pebs_recorder__attrib(r)));
	if (c->status > 128)
		fprintf(stderr, "; %s by signal %d", stopped ?
			"recording stopped" : "command killed",
			c->status - 128);
	else if (c->status > 0)
		fprintf(stderr, "; command exited with status %d", c->status);
	fputc('\n', stderr);
	if (sw)
		fprintf(stderr, "pebs-shim record: module switch history: %llu switches written as PERF_RECORD_SWITCH_CPU_WIDE, %llu lost to overruns (marked by PERF_RECORD_LOST)\n",
			(unsigned long long)sw->switches,
			(unsigned long long)sw->lost);
	if (pebs_recorder__budget(r))
		budget_summary(r, o);
	if (o->objects && !c->obj_threads && !c->obj_allocs && !c->obj_frees)
		fprintf(stderr, "pebs-shim record: objects: no process of the command ran libpebsshim-objects.so (statically linked, or LD_PRELOAD removed before an exec): no heap or thread objects, static variables by their symbols only\n");
	else if (o->objects) {
		fprintf(stderr, "pebs-shim record: objects: %llu allocations and %llu releases of the command written as pebs-shim:alloc and pebs-shim:free samples, its threads' stacks and TLS blocks as pebs-shim:stack and pebs-shim:tls%s",
			(unsigned long long)c->obj_allocs,
			(unsigned long long)c->obj_frees,
			c->obj_bad ? " (some malformed records dropped)" : "");
		if (c->obj_lost)
			fprintf(stderr, "; at least %u records lost unfinished (a process died, or a signal handler jumped away, while writing them)",
				c->obj_lost);
		fputc('\n', stderr);
	}
}

void rec_print_mismatch(void *ctx, uint32_t cpu, uint64_t time,
			const struct pebs_attrib_who *sample,
			const struct pebs_attrib_who *found)
{
	struct pebs_recorder **rp = ctx;
	struct pebs_attrib *a = pebs_recorder__attrib(*rp);
	bool baseline;
	const char *src = pebs_recorder__attribution(*rp, &baseline) ==
			  PEBS_RECORDER_ATTR_TID ? "switch" : "map";
	char name[PEBS_MAP_COMM_LEN + 1];

	snprintf(name, sizeof(name), "%s", pebs_attrib__comm(a, sample->tid, NULL));
	if (found)
		fprintf(stderr, "pebs-shim record: mismatch: cpu %u time %llu: sample tid %d (%s), %s tid %d (%s)\n",
			cpu, (unsigned long long)time, sample->tid, name, src,
			found->tid, pebs_attrib__comm(a, found->tid, NULL));
	else
		fprintf(stderr, "pebs-shim record: unattributed: cpu %u time %llu: sample tid %d (%s), no %s entry\n",
			cpu, (unsigned long long)time, sample->tid, name, src);
}

void rec_print_events(struct pebs_recorder *r, bool per_cpu)
{
	struct pebs_chanset *set = pebs_recorder__chanset(r);

	for (unsigned int i = 0; i < pebs_recorder__nr_events(r); i++) {
		const struct pebs_event *ev = pebs_recorder__event(r, i);
		struct perf_event_attr attr, *a = &attr;
		const char *why = NULL;
		bool large;

		if (pebs_recorder__attr(r, i, &attr, sizeof(attr)))
			continue;
		large = pebs_attr_large_pebs(a, &why);
		fprintf(stderr, "pebs-shim record: event %s = %s (pmu %s, type %u, config %#llx, %s %llu, sample_type %#llx, precise_ip %u%s%s)\n",
			ev->name, ev->resolved, ev->pmu, a->type,
			(unsigned long long)a->config,
			a->freq ? "freq" : "period",
			(unsigned long long)a->sample_period,
			(unsigned long long)a->sample_type, a->precise_ip,
			(ev->flags & PEBS_EVENT_PRECISE) ?
			(large ? ", large PEBS" : ", no large PEBS: ") : "",
			(ev->flags & PEBS_EVENT_PRECISE) && !large && why ?
			why : "");
	}
	fprintf(stderr, "pebs-shim record: %u channels on %u %s, %u rings of %u pages\n",
		pebs_chanset__nr_channels(set), pebs_chanset__nr_targets(set),
		per_cpu ? "CPUs" : "tasks", pebs_chanset__nr_rings(set),
		pebs_recorder__ring_pages(r));
}
