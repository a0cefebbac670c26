// SPDX-License-Identifier: MIT
/*
 * record-place.c - which CPU the recorder's thread runs on.
 *
 * Where a CPU it may use is idle, the scheduler wakes the recorder there,
 * and its work costs the command nothing. Where every one is busy, the
 * scheduler wakes it where it ran last, so its CPU time is taken from
 * one of the command's threads only: with as many threads as CPUs that
 * thread finishes last, and the command's wall time grows by the whole
 * of the recorder's time instead of its share (bench/allocs, 2 threads
 * on 2 CPUs, 128 KiB chunks tracked under --objects: one CPU idle for
 * the last 127 ms of a 1.2 s run, against 17 ms bare). So every
 * PLACE_NS the busy time of its CPUs is read from /proc/stat, less the
 * recorder's own (its work must not make an idle CPU look busy); when
 * they were all busy (idle less than half a CPU), the recorder's thread
 * may run anywhere but on the CPU it is on for the next period, which
 * moves it over the busy CPUs in turn; when one was idle, anywhere again.
 * The recorder's own affinity at the start (taskset) bounds it; with a
 * single CPU there or /proc/stat unreadable nothing is done.
 */
#include <sched.h>
#include <unistd.h>

#include "record/record-int.h"
#include "core/internal.h"

#define PLACE_NS	100000000ull	/* 10 ticks of /proc/stat at 100 Hz */

bool rec_place_all_busy(int64_t busy_ticks, unsigned int ncpus,
			double ticks)
{
	return ncpus && (double)ncpus * ticks - (double)busy_ticks < ticks / 2;
}

/* the CPUs of the recorder's thread's affinity, into @p (false: none or
   more than a cpu_set_t holds) */
static bool place_start(struct rec_place *p)
{
	if (sched_getaffinity(0, sizeof(p->allowed), &p->allowed))
		return false;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &p->allowed) &&
		    pebs_ids__push(&p->cpus, cpu))
			return false;
	return p->cpus.n > 1;
}

void rec_place_tick(struct pebs_recorder *r)
{
	struct rec_place *p = &r->place;
	uint64_t now = core_mono_ns(), ctxt = 0, own;
	int64_t busy = 0;
	long hz;

	if (p->off || (p->at_ns && now - p->at_ns < PLACE_NS))
		return;
	own = rec_self_ns();
	if (!p->at_ns && !place_start(p)) {
		p->off = true;
		return;
	}
	if (!core_proc_stat(&p->cpus, &busy, &ctxt)) {
		p->off = true;
		return;
	}
	hz = sysconf(_SC_CLK_TCK);
	if (p->at_ns && hz > 0 &&
	    rec_place_all_busy(busy - p->busy - (int64_t)((double)(own -
			       p->own_ns) / 1e9 * (double)hz), p->cpus.n,
			       (double)(now - p->at_ns) / 1e9 * (double)hz)) {
		cpu_set_t other = p->allowed;
		int cpu = sched_getcpu();

		if (cpu >= 0 && cpu < CPU_SETSIZE)
			CPU_CLR(cpu, &other);
		if (CPU_COUNT(&other) &&
		    !sched_setaffinity(0, sizeof(other), &other))
			p->narrowed = true;
	} else if (p->narrowed &&
		   !sched_setaffinity(0, sizeof(p->allowed), &p->allowed)) {
		p->narrowed = false;
	}
	p->at_ns = now;
	p->busy = busy;
	p->own_ns = own;
}

void rec_place_end(struct pebs_recorder *r)
{
	struct rec_place *p = &r->place;

	if (p->narrowed)
		sched_setaffinity(0, sizeof(p->allowed), &p->allowed);
	p->narrowed = false;
	p->off = true;
	pebs_ids__free(&p->cpus);
}
