// SPDX-License-Identifier: MIT
/*
 * attrib.c - who each sample of a recording belongs to: the TID the
 * kernel wrote, or the thread a per-CPU switch history (the module's
 * /dev/pebs_map, or PERF_RECORD_SWITCH_CPU_WIDE records) says ran on its
 * CPU at its time; the agreement between the two; and the comm of each
 * thread, from COMM/FORK records, the module's table and /proc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/attrib.h"
#include "core/internal.h"
#include "core/opts.h"

/* ---- tid -> (tgid, comm) --------------------------------------------- */

struct comm_ent {
	int32_t tid;		/* 0 is a valid key (idle); -1 free */
	int32_t tgid;
	char comm[PEBS_MAP_COMM_LEN];
};

/* one sample held until the history covers its time (MAP) */
struct held {
	unsigned int tag;
	size_t rec_off;		/* its record in attrib.raw */
	struct pebs_sample s;	/* callchain, raw: set again at the round */
	ptrdiff_t cc_off, raw_off;	/* their offsets in it; -1: none */
};

/* a sample's (cpu, time, TID) to check against the history */
struct check {
	uint64_t time;
	uint32_t cpu;
	struct pebs_attrib_who who;
};

struct pebs_attrib {
	enum pebs_attrib_mode mode;
	struct pebs_map *map;		/* MAP, BOTH: not owned */
	struct pebs_timeline *tl;	/* the history checked against */
	struct pebs_attrib_stats st;

	struct comm_ent *comms;
	unsigned int mask;		/* capacity - 1, a power of two */
	unsigned int used;
	char tmp[PEBS_MAP_COMM_LEN + 16];

	struct held *held;
	size_t nr_held, cap_held;
	unsigned char *raw;
	size_t raw_len, raw_cap;
	struct check *chk;
	size_t nr_chk, cap_chk;
};

static unsigned int hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static int comms_alloc(struct pebs_attrib *a, unsigned int cap)
{
	a->comms = malloc(cap * sizeof(*a->comms));
	if (!a->comms)
		return -ENOMEM;
	for (unsigned int i = 0; i < cap; i++)
		a->comms[i].tid = -1;
	a->mask = cap - 1;
	a->used = 0;
	return 0;
}

static struct comm_ent *comms_find(struct pebs_attrib *a, int32_t tid,
				   bool insert)
{
	unsigned int i = hash32((uint32_t)tid) & a->mask;

	while (a->comms[i].tid != -1) {
		if (a->comms[i].tid == tid)
			return &a->comms[i];
		i = (i + 1) & a->mask;
	}
	if (!insert)
		return NULL;
	if (2 * (a->used + 1) > a->mask + 1) {
		struct comm_ent *old = a->comms;
		unsigned int old_cap = a->mask + 1, used = a->used;

		if (comms_alloc(a, 2 * old_cap)) {
			a->comms = old;
			a->mask = old_cap - 1;
			a->used = used;
			return NULL;
		}
		for (unsigned int j = 0; j < old_cap; j++)
			if (old[j].tid != -1)
				*comms_find(a, old[j].tid, true) = old[j];
		free(old);
		return comms_find(a, tid, true);
	}
	a->used++;
	a->comms[i].tid = tid;
	a->comms[i].tgid = -1;
	a->comms[i].comm[0] = '\0';
	return &a->comms[i];
}

void pebs_attrib__set_comm(struct pebs_attrib *a, int32_t tgid, int32_t tid,
			   const char *comm)
{
	struct comm_ent *e = comms_find(a, tid, true);

	if (!e)
		return;		/* out of memory: names fall back to /proc */
	e->tgid = tgid;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
}

bool pebs_attrib__comm_known(struct pebs_attrib *a, int32_t tid)
{
	struct comm_ent *e = comms_find(a, tid, false);

	return e && e->comm[0];
}

const char *pebs_attrib__comm(struct pebs_attrib *a, int32_t tid,
			      const char *fallback)
{
	struct comm_ent *e = comms_find(a, tid, false);
	char comm[PEBS_MAP_COMM_LEN];

	if (e && e->comm[0])
		return e->comm;
	if (tid == 0) {
		snprintf(comm, sizeof(comm), "swapper");
	} else if (!(tid > 0 && !pebs_proc__comm(tid, comm, sizeof(comm)))) {
		if (fallback && *fallback)
			return fallback;
		snprintf(a->tmp, sizeof(a->tmp), ":%d", tid);
		return a->tmp;
	}
	e = comms_find(a, tid, true);
	if (!e) {
		snprintf(a->tmp, sizeof(a->tmp), "%s", comm);
		return a->tmp;
	}
	memcpy(e->comm, comm, sizeof(comm));
	return e->comm;
}

int pebs_attrib__load_proc(struct pebs_attrib *a, pid_t pid)
{
	char comm[PEBS_MAP_COMM_LEN];
	struct pebs_ids tids = { 0 };
	int err = pebs_proc__tasks(pid, &tids);

	for (unsigned int i = 0; !err && i < tids.n; i++)
		if (!pebs_proc__comm(tids.v[i], comm, sizeof(comm)))
			pebs_attrib__set_comm(a, pid, tids.v[i], comm);
	pebs_ids__free(&tids);
	return err;
}

/* ---- the engine ------------------------------------------------------- */

int pebs_attrib__new(enum pebs_attrib_mode mode, struct pebs_map *map,
		     unsigned int nr_cpus, struct pebs_attrib **ap)
{
	struct pebs_attrib *a;
	int err;

	if (!ap || mode > PEBS_ATTRIB_SWITCH)
		return core_err(-EINVAL, "attribution: bad mode %d",
				(int)mode);
	if ((mode == PEBS_ATTRIB_MAP || mode == PEBS_ATTRIB_BOTH) && !map)
		return core_err(-EINVAL, "attribution by the switch history "
				"needs the table: open /dev/pebs_map "
				"(pebs_map__open) first");
	a = calloc(1, sizeof(*a));
	if (!a || comms_alloc(a, 1024)) {
		free(a);
		return core_err(-ENOMEM, "attribution: out of memory");
	}
	a->mode = mode;
	a->map = map;
	if (mode == PEBS_ATTRIB_SWITCH)
		err = pebs_timeline__new_empty(nr_cpus, &a->tl);
	else if (map)
		err = pebs_timeline__new(map, &a->tl);
	else
		err = 0;
	if (!err && a->map) {
		err = pebs_timeline__update(a->tl);
		err = err < 0 ? err : 0;
	}
	if (err) {
		pebs_attrib__delete(a);
		return core_err(err, "attribution: cannot start the switch "
				"timeline: %s", strerror(-err));
	}
	*ap = a;
	return 0;
}

void pebs_attrib__delete(struct pebs_attrib *a)
{
	if (!a)
		return;
	pebs_timeline__delete(a->tl);
	free(a->comms);
	free(a->held);
	free(a->raw);
	free(a->chk);
	free(a);
}

struct pebs_timeline *pebs_attrib__timeline(struct pebs_attrib *a)
{
	return a && a->map ? a->tl : NULL;
}

const struct pebs_attrib_stats *pebs_attrib__stats(struct pebs_attrib *a)
{
	a->st.history_lost = a->tl && a->map ? pebs_timeline__lost(a->tl) : 0;
	return &a->st;
}

/* who ran on @cpu at @time, from the history */
static bool lookup(const struct pebs_attrib *a, uint32_t cpu, uint64_t time,
		   struct pebs_attrib_who *who)
{
	struct pebs_map_switch sw;

	if (!a->tl || pebs_timeline__lookup(a->tl, cpu, time, &sw))
		return false;
	who->tgid = sw.tgid;
	who->tid = sw.pid;
	return true;
}

/*
 * A PERF_RECORD_SWITCH_CPU_WIDE into the baseline: a switch-in of
 * (pid, tid) at its time; a switch-out before any switch-in on that CPU
 * tells who ran since the start.
 */
static void add_switch(struct pebs_attrib *a,
		       const struct perf_event_header *ev,
		       const struct pebs_sample *id)
{
	bool out = ev->misc & PERF_RECORD_MISC_SWITCH_OUT;
	struct pebs_map_switch in = { out ? 0 : id->time, (int32_t)id->pid,
				      (int32_t)id->tid };
	struct pebs_map_switch seen;

	if (!out || pebs_timeline__lookup(a->tl, id->cpu, UINT64_MAX, &seen))
		pebs_timeline__add(a->tl, id->cpu, &in);
}

int pebs_attrib__record(struct pebs_attrib *a,
			const struct perf_event_header *ev,
			uint64_t sample_type, struct pebs_attrib_who *who)
{
	const unsigned char *body = (const unsigned char *)(ev + 1);
	size_t len = ev->size - sizeof(*ev);
	struct pebs_sample id;
	char comm[PEBS_MAP_COMM_LEN];
	int32_t v[4];

	*who = (struct pebs_attrib_who){ 0, 0 };
	if (ev->size < sizeof(*ev))
		return core_err(-EBADMSG, "a record of %u bytes", ev->size);
	for (unsigned int i = 0; i < 4 && 4 * (i + 1) <= len; i++)
		v[i] = (int32_t)ld32(body + 4 * i);
	switch (ev->type) {
	case PERF_RECORD_COMM:
		if (len < 9)
			break;
		snprintf(comm, sizeof(comm), "%.*s",
			 (int)(len - 8 < sizeof(comm) ? len - 8 : sizeof(comm)),
			 (const char *)body + 8);
		pebs_attrib__set_comm(a, v[0], v[1], comm);
		*who = (struct pebs_attrib_who){ v[0], v[1] };
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (len >= 8)
			*who = (struct pebs_attrib_who){ v[0], v[1] };
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (len < 16)
			break;
		/* pid, ppid, tid, ptid: a new task starts with its parent's */
		if (ev->type == PERF_RECORD_FORK) {
			struct comm_ent *p = comms_find(a, v[3], false);

			if (p && p->comm[0]) {
				memcpy(comm, p->comm, sizeof(comm));
				pebs_attrib__set_comm(a, v[0], v[2], comm);
			}
		}
		*who = (struct pebs_attrib_who){ v[0], v[2] };
		return 0;
	}
	if (pebs_sample__parse_id(ev, sample_type, &id))
		return 0;
	if (ev->type == PERF_RECORD_SWITCH_CPU_WIDE &&
	    a->mode == PEBS_ATTRIB_SWITCH &&
	    (id.present & (PERF_SAMPLE_CPU | PERF_SAMPLE_TIME | PERF_SAMPLE_TID))
	    == (PERF_SAMPLE_CPU | PERF_SAMPLE_TIME | PERF_SAMPLE_TID))
		add_switch(a, ev, &id);
	if (a->mode == PEBS_ATTRIB_MAP &&
	    (id.present & (PERF_SAMPLE_CPU | PERF_SAMPLE_TIME)) ==
	    (PERF_SAMPLE_CPU | PERF_SAMPLE_TIME))
		lookup(a, id.cpu, id.time, who);
	return 0;
}

/* where @p points into the record @rec, or -1 */
static ptrdiff_t offset_in(const void *p, const struct perf_event_header *rec)
{
	const char *c = p, *r = (const char *)rec;

	return p && c >= r && c < r + rec->size ? c - r : -1;
}

/* a pointer at @off of @rec (NULL for -1) */
static const void *at_offset(const struct perf_event_header *rec,
			     ptrdiff_t off)
{
	return off < 0 ? NULL : (const char *)rec + off;
}

int pebs_attrib__sample(struct pebs_attrib *a, unsigned int tag,
			const struct pebs_sample *s,
			const struct perf_event_header *raw,
			const struct pebs_attrib_cbs *user_cbs, void *ctx)
{
	struct pebs_attrib_who who = { (int32_t)s->pid, (int32_t)s->tid };
	struct pebs_attrib_cbs c;
	const struct pebs_attrib_cbs *cbs = &c;
	int err;

	/* the caller's table of any size (sz): absent callbacks are NULL */
	err = opts_copy(&c, sizeof(c), user_cbs, "pebs_attrib_cbs");
	if (err)
		return err;
	a->st.samples++;
	if (a->mode == PEBS_ATTRIB_MAP) {
		/* attributed at the round, when the history covers it */
		struct held *h;

		if (core_grow(&a->held, &a->cap_held, a->nr_held + 1,
			 sizeof(*a->held)) ||
		    core_grow(&a->raw, &a->raw_cap,
			 a->raw_len + raw->size, 1))
			return core_err(-ENOMEM, "attribution: out of memory");
		h = &a->held[a->nr_held++];
		h->tag = tag;
		h->rec_off = a->raw_len;
		h->s = *s;
		h->cc_off = offset_in(s->callchain, raw);
		h->raw_off = offset_in(s->raw, raw);
		memcpy(a->raw + a->raw_len, raw, raw->size);
		a->raw_len += raw->size;
		return 0;
	}
	if (a->mode != PEBS_ATTRIB_TID) {
		if (core_grow(&a->chk, &a->cap_chk, a->nr_chk + 1,
			 sizeof(*a->chk)))
			return core_err(-ENOMEM, "attribution: out of memory");
		a->chk[a->nr_chk++] = (struct check){
			.time = s->time, .cpu = s->cpu, .who = who,
		};
	}
	return cbs->emit ? cbs->emit(ctx, tag, s, raw, &who) : 0;
}

static void check_one(struct pebs_attrib *a, const struct check *c,
		      const struct pebs_attrib_cbs *cbs, void *ctx)
{
	struct pebs_attrib_who other;
	bool found = lookup(a, c->cpu, c->time, &other);

	if (found && other.tid == c->who.tid) {
		a->st.agree++;
		return;
	}
	if (found)
		a->st.disagree++;
	else
		a->st.unattributed++;
	if (cbs->mismatch)
		cbs->mismatch(ctx, c->cpu, c->time, &c->who,
			      found ? &other : NULL);
}

/* the table's comm of the thread on each CPU now: names short-lived ones */
static void comms_from_map(struct pebs_attrib *a)
{
	struct pebs_map_snapshot snap;

	for (unsigned int cpu = 0; cpu < pebs_map__nr_cpus(a->map); cpu++) {
		if (pebs_map__read_slot(a->map, cpu, &snap) || snap.pid <= 0 ||
		    pebs_attrib__comm_known(a, snap.pid))
			continue;
		snap.comm[sizeof(snap.comm) - 1] = '\0';
		pebs_attrib__set_comm(a, snap.tgid, snap.pid, snap.comm);
	}
}

int pebs_attrib__round(struct pebs_attrib *a,
		       const struct pebs_attrib_cbs *user_cbs, void *ctx)
{
	struct pebs_attrib_cbs c;
	const struct pebs_attrib_cbs *cbs = &c;
	int err;

	err = opts_copy(&c, sizeof(c), user_cbs, "pebs_attrib_cbs");
	if (err)
		return err;

	if (a->map) {
		err = pebs_timeline__update(a->tl);
		if (err < 0)
			return core_err(err, "cannot read the switch history: "
					"%s", strerror(-err));
		comms_from_map(a);
		err = 0;
	}
	for (size_t i = 0; i < a->nr_held && !err; i++) {
		struct held *h = &a->held[i];
		const struct perf_event_header *raw =
			(const void *)(a->raw + h->rec_off);
		struct pebs_attrib_who who = { -1, -1 };

		h->s.callchain = at_offset(raw, h->cc_off);
		h->s.raw = at_offset(raw, h->raw_off);
		if (!lookup(a, h->s.cpu, h->s.time, &who))
			a->st.unattributed++;
		if (cbs->emit)
			err = cbs->emit(ctx, h->tag, &h->s, raw, &who);
	}
	a->nr_held = 0;
	a->raw_len = 0;
	for (size_t i = 0; i < a->nr_chk; i++)
		check_one(a, &a->chk[i], cbs, ctx);
	a->nr_chk = 0;
	return err;
}
