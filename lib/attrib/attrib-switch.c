// SPDX-License-Identifier: MIT
/*
 * attrib-switch.c - the module's switch history (a pebs_timeline fed
 * from /dev/pebs_map) written out as the kernel's own context-switch
 * records, so that a recording keeps who ran where and perf reads it.
 *
 * Each history entry n on CPU c says "(tgid, pid) switched in at time";
 * entry n - 1 names the task it replaced. The kernel, for an event with
 * attr.context_switch on a CPU (perf record -a --switch-events), writes
 * per switch two PERF_RECORD_SWITCH_CPU_WIDE records:
 *
 *   out: misc SWITCH_OUT, next_prev = the next task, sample_id = prev
 *   in:  misc 0,          next_prev = the prev task, sample_id = next
 *
 * with the sample_id_all trailer (TID, TIME, ID, STREAM_ID, CPU,
 * IDENTIFIER as the attr's sample_type asks). We write the same, both at
 * the entry's time: the module stamps a switch once, with local_clock(),
 * which is perf's sample clock (perf_clock()), so no conversion is done;
 * an attr with use_clockid is refused. What the module does not know:
 * whether prev was preempted (SWITCH_OUT_PREEMPT is never set).
 *
 * Overruns (the ring lapped between two reads) appear in the timeline as
 * a gap marker; it becomes a PERF_RECORD_LOST (id, switches lost) at the
 * gap's time on that CPU, and the switch after the gap has no out record
 * and an unknown prev (-1/-1): no record spans the gap.
 *
 * The records are written under the attr (and per-CPU id) the caller
 * gives, one whose context_switch bit is clear: the kernel never writes
 * SWITCH records for such an event, which is how a reader tells these
 * from the kernel's (pebs_cpuplot).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/attrib.h"
#include "map/map-int.h"
#include "core/opts.h"
#include "map/timeline-int.h"

#define SR_REC_MAX	128	/* header + 16 + sample_id (<= 48) */

struct sr_cpu {
	bool on;
	uint64_t id;
	size_t next;		/* the next entry to write */
	size_t gap;		/* entry of the last gap written, or SIZE_MAX */
	uint64_t gap_told;	/* switches already reported for it */
};

struct pebs_switchrec {
	struct pebs_timeline *tl;
	uint64_t sample_type;
	struct pebs_switchrec_stats st;
	unsigned int nr_cpus;
	struct sr_cpu cpu[];
};

int pebs_switchrec__new(struct pebs_timeline *tl,
			const struct perf_event_attr *attr,
			struct pebs_switchrec **srp)
{
	const uint64_t need = PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	const struct pebs_map *map;
	struct pebs_switchrec *sr;
	unsigned int nr;

	if (!tl || !attr || !srp)
		return core_err(-EINVAL, "switch records: no timeline or attr");
	map = timeline_map(tl);
	if (!map)
		return core_err(-EINVAL, "switch records: the timeline is not "
				"fed from /dev/pebs_map");
	if (map->hdr.clock != PEBS_MAP_CLOCK_LOCAL || attr->use_clockid)
		return core_err(-EINVAL, "switch records: the history's clock "
				"is not the samples' (use_clockid %u, map "
				"clock %u): record without -k/--clockid",
				attr->use_clockid, map->hdr.clock);
	if (!attr->sample_id_all || (attr->sample_type & need) != need)
		return core_err(-EINVAL, "switch records: the attr has no "
				"sample_id_all with TIME and CPU to place "
				"them (record per CPU: -a or -C)");
	if (attr->context_switch)
		return core_err(-EINVAL, "switch records: the attr has "
				"context_switch set, so the kernel's records "
				"could not be told from the module's: drop "
				"--switch-events");
	nr = timeline_nr_cpus(tl);
	sr = calloc(1, sizeof(*sr) + nr * sizeof(sr->cpu[0]));
	if (!sr)
		return core_err(-ENOMEM, "switch records: out of memory");
	sr->tl = tl;
	sr->sample_type = attr->sample_type;
	sr->nr_cpus = nr;
	for (unsigned int c = 0; c < nr; c++)
		sr->cpu[c].gap = SIZE_MAX;
	*srp = sr;
	return 0;
}

void pebs_switchrec__delete(struct pebs_switchrec *sr)
{
	free(sr);
}

int pebs_switchrec__set_cpu(struct pebs_switchrec *sr, unsigned int cpu,
			    uint64_t id)
{
	size_t n;

	if (!sr || cpu >= sr->nr_cpus)
		return core_err(-EINVAL, "switch records: CPU %u not in the "
				"history (%u CPUs)", cpu,
				sr ? sr->nr_cpus : 0);
	sr->cpu[cpu].on = true;
	sr->cpu[cpu].id = id;
	/* from now on: what the history held already is not written */
	timeline_entries(sr->tl, cpu, &n);
	sr->cpu[cpu].next = n;
	return 0;
}

const struct pebs_switchrec_stats *
pebs_switchrec__stats(const struct pebs_switchrec *sr)
{
	return &sr->st;
}

static unsigned char *put32(unsigned char *p, uint32_t a, uint32_t b)
{
	memcpy(p, &a, 4);
	memcpy(p + 4, &b, 4);
	return p + 8;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

/* the sample_id_all trailer, in the kernel's order (__perf_event_header__init_id) */
static unsigned char *sample_id(const struct pebs_switchrec *sr,
				unsigned char *p, unsigned int cpu,
				uint64_t time, int32_t pid, int32_t tid)
{
	uint64_t st = sr->sample_type, id = sr->cpu[cpu].id;

	if (st & PERF_SAMPLE_TID)
		p = put32(p, (uint32_t)pid, (uint32_t)tid);
	p = put64(p, time);
	if (st & PERF_SAMPLE_ID)
		p = put64(p, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		p = put64(p, id);
	p = put32(p, cpu, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		p = put64(p, id);
	return p;
}

/* one record: @body_len bytes of @body, then the trailer of (@pid, @tid) */
static int emit(struct pebs_switchrec *sr, unsigned int cpu, uint32_t type,
		uint16_t misc, const unsigned char body[16], size_t body_len,
		uint64_t time, int32_t pid, int32_t tid,
		const struct pebs_switchrec_cbs *cbs, void *ctx)
{
	union {
		struct perf_event_header h;
		unsigned char b[SR_REC_MAX];
	} r;
	unsigned char *p = r.b + sizeof(r.h);
	int err;

	memcpy(p, body, body_len);
	p = sample_id(sr, p + body_len, cpu, time, pid, tid);
	r.h.type = type;
	r.h.misc = misc;
	r.h.size = (uint16_t)(p - r.b);
	err = cbs->write(ctx, &r.h, pid, tid);
	if (!err)
		sr->st.records++;
	return err;
}

/* a PERF_RECORD_LOST for @lost switches of CPU @cpu's gap at @time */
static int emit_lost(struct pebs_switchrec *sr, unsigned int cpu,
		     uint64_t time, uint64_t lost,
		     const struct pebs_switchrec_cbs *cbs, void *ctx)
{
	unsigned char body[16];

	put64(put64(body, sr->cpu[cpu].id), lost);
	sr->st.lost += lost;
	return emit(sr, cpu, PERF_RECORD_LOST, 0, body, 16, time, -1, -1,
		    cbs, ctx);
}

static int emit_switch(struct pebs_switchrec *sr, unsigned int cpu,
		       const struct pebs_map_switch *prev,
		       const struct pebs_map_switch *e,
		       const struct pebs_switchrec_cbs *cbs, void *ctx)
{
	unsigned char body[16];
	int err = 0;

	if (prev) {
		put32(body, (uint32_t)e->tgid, (uint32_t)e->pid);
		err = emit(sr, cpu, PERF_RECORD_SWITCH_CPU_WIDE,
			   PERF_RECORD_MISC_SWITCH_OUT, body, 8, e->time,
			   prev->tgid, prev->pid, cbs, ctx);
	}
	put32(body, prev ? (uint32_t)prev->tgid : UINT32_MAX,
	      prev ? (uint32_t)prev->pid : UINT32_MAX);
	if (!err)
		err = emit(sr, cpu, PERF_RECORD_SWITCH_CPU_WIDE, 0, body, 8,
			   e->time, e->tgid, e->pid, cbs, ctx);
	if (!err)
		sr->st.switches++;
	return err;
}

static int write_cpu(struct pebs_switchrec *sr, unsigned int cpu,
		     const struct pebs_switchrec_cbs *cbs, void *ctx)
{
	struct sr_cpu *c = &sr->cpu[cpu];
	const struct pebs_map_switch *e;
	size_t n, i;
	int err = 0;

	e = timeline_entries(sr->tl, cpu, &n);
	/* a gap already written that grew since (lapped again) */
	if (c->gap != SIZE_MAX && c->gap < n &&
	    (uint64_t)e[c->gap].pid > c->gap_told) {
		err = emit_lost(sr, cpu, e[c->gap].time,
				(uint64_t)e[c->gap].pid - c->gap_told,
				cbs, ctx);
		c->gap_told = (uint64_t)e[c->gap].pid;
	}
	for (i = c->next; i < n && !err; i++) {
		if (e[i].tgid == TIMELINE_GAP_TGID) {
			c->gap = i;
			c->gap_told = (uint64_t)e[i].pid;
			err = emit_lost(sr, cpu, e[i].time, c->gap_told, cbs,
					ctx);
			continue;
		}
		err = emit_switch(sr, cpu,
				  i && e[i - 1].tgid != TIMELINE_GAP_TGID ?
				  &e[i - 1] : NULL, &e[i], cbs, ctx);
	}
	c->next = i;
	return err;
}

int pebs_switchrec__write(struct pebs_switchrec *sr,
			  const struct pebs_switchrec_cbs *user_cbs, void *ctx)
{
	struct pebs_switchrec_cbs cbs;
	int err;

	if (!sr || !user_cbs)
		return core_err(-EINVAL, "switch records: nowhere to write");
	err = opts_copy(&cbs, sizeof(cbs), user_cbs, "pebs_switchrec_cbs");
	if (err)
		return err;
	if (!cbs.write)
		return core_err(-EINVAL, "switch records: nowhere to write");
	for (unsigned int cpu = 0; cpu < sr->nr_cpus && !err; cpu++)
		if (sr->cpu[cpu].on)
			err = write_cpu(sr, cpu, &cbs, ctx);
	return err;
}
