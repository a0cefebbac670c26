// SPDX-License-Identifier: MIT
/*
 * perfetto.c - a Perfetto trace being written (struct ex_trace): the
 * Trace message (protos/perfetto/trace/trace.proto) is its TracePackets
 * one after the other, each field 1 of it, so a packet is encoded and
 * written as soon as it is complete. All packets are on one sequence
 * (trusted_packet_sequence_id 1); the first two set it up: a
 * ClockSnapshot naming the recording's clock the trace's and equating
 * BOOTTIME (the clock Perfetto reads ftrace events on) with it at the
 * first timestamp, then SEQ_INCREMENTAL_STATE_CLEARED with the
 * sequence's defaults (timestamp_clock_id). Call stacks are interned
 * (InternedData: function names, mapping paths, build ids, mappings,
 * frames, callstacks), each entry sent once, in the packet that first
 * uses it, with iids in the order first met: memory and output grow
 * with the distinct stacks, not the samples.
 *
 * Field numbers, from Perfetto's protos: Trace packet 1. TracePacket
 * ftrace_events 1, clock_snapshot 6, timestamp 8,
 * trusted_packet_sequence_id 10, track_event 11, interned_data 12,
 * sequence_flags 13 (SEQ_INCREMENTAL_STATE_CLEARED 1,
 * SEQ_NEEDS_INCREMENTAL_STATE 2), timestamp_clock_id 58,
 * trace_packet_defaults 59, track_descriptor 60, perf_sample 66.
 * TracePacketDefaults timestamp_clock_id 58. ClockSnapshot clocks 1
 * (Clock clock_id 1, timestamp 2), primary_trace_clock 2. InternedData
 * function_names 5, frames 6, callstacks 7, build_ids 16, mapping_paths
 * 17, mappings 19; InternedString iid 1, str 2; Mapping iid 1, build_id
 * 2, path_string_ids 7; Frame iid 1, function_name_id 2, mapping_id 3,
 * rel_pc 4; Callstack iid 1, frame_ids 2 (the root first).
 */
#include <errno.h>
#include <string.h>

#include "export/export-int.h"
#include "symbols/dso.h"

#define SEQ_ID		1

/* intern @key in @t; a new entry's iid (from 1) in *@iid, *@added */
static int intern(struct ex_intern *t, const void *key, size_t len,
		  uint64_t *iid, bool *added)
{
	uint32_t id;

	if (ex_intern__get(t, key, len, &id, added))
		return -ENOMEM;
	*iid = (uint64_t)id + 1;
	return 0;
}

/* an InternedString entry of field @field in the pending InternedData */
static int intern_str(struct ex_trace *t, struct ex_intern *tab,
		      unsigned int field, const void *s, size_t len,
		      uint64_t *iid)
{
	bool added;

	if (intern(tab, s, len, iid, &added))
		return -ENOMEM;
	if (added) {
		t->tmp.len = 0;
		ex_pb__uint(&t->tmp, 1, *iid);
		ex_pb__bytes(&t->tmp, 2, s, len);
		ex_pb__msg(&t->interned, field, &t->tmp);
	}
	return 0;
}

/* the Mapping of file @dso: its path as components, its build id */
static int mapping(struct ex_trace *t, const char *dso, uint64_t *iid)
{
	uint64_t ids[64], bid_iid = 0;
	uint8_t bid[BUILD_ID_MAX];
	const char *p = dso, *q;
	size_t n = 0, i;
	bool added;
	int len;

	if (intern(&t->maps, dso, strlen(dso), iid, &added))
		return -ENOMEM;
	if (!added)
		return 0;
	/* "/usr/lib/libc.so.6" as "usr", "lib", "libc.so.6": Perfetto
	   joins them with '/' after a leading one */
	while (*p && n < sizeof(ids) / sizeof(ids[0])) {
		while (*p == '/')
			p++;
		q = p + strcspn(p, "/");
		if (q == p)
			break;
		if (intern_str(t, &t->paths, 17, p, (size_t)(q - p),
			       &ids[n++]))
			return -ENOMEM;
		p = q;
	}
	len = ex_build_id(t->bids, t->bids_size, dso, bid);
	if (len > 0 && intern_str(t, &t->bid_strs, 16, bid, (size_t)len,
				  &bid_iid))
		return -ENOMEM;
	t->tmp.len = 0;
	ex_pb__uint(&t->tmp, 1, *iid);
	ex_pb__u64(&t->tmp, 2, bid_iid);
	for (i = 0; i < n; i++)
		ex_pb__uint(&t->tmp, 7, ids[i]);
	ex_pb__msg(&t->interned, 19, &t->tmp);
	return 0;
}

/* the Frame of @f */
static int frame(struct ex_trace *t, const struct ex_frame *f, uint64_t *iid)
{
	uint64_t key[3] = { 0, 0, f->addr };
	bool added;

	/* code in no known file: in "[unknown]", as perf names it, so that
	   every frame has a mapping (older readers drop frames without) */
	if (intern_str(t, &t->fnames, 5, f->name, strlen(f->name), &key[0]) ||
	    mapping(t, f->dso ? f->dso : "[unknown]", &key[1]) ||
	    intern(&t->frames, key, sizeof(key), iid, &added))
		return -ENOMEM;
	if (added) {
		t->tmp.len = 0;
		ex_pb__uint(&t->tmp, 1, *iid);
		ex_pb__uint(&t->tmp, 2, key[0]);
		ex_pb__uint(&t->tmp, 3, key[1]);
		ex_pb__uint(&t->tmp, 4, f->addr);
		ex_pb__msg(&t->interned, 6, &t->tmp);
	}
	return 0;
}

int ex_trace__callstack(struct ex_trace *t, const struct ex_frame *frames,
			unsigned int n, uint64_t *iid)
{
	uint64_t ids[PEBS_CALLCHAIN_MAX];
	unsigned int i;
	bool added;

	if (n > PEBS_CALLCHAIN_MAX)
		n = PEBS_CALLCHAIN_MAX;
	for (i = 0; i < n; i++)		/* the root first */
		if (frame(t, &frames[n - 1 - i], &ids[i]))
			return core_err(-ENOMEM, "perfetto: out of memory");
	if (intern(&t->stacks, ids, n * sizeof(ids[0]), iid, &added))
		return core_err(-ENOMEM, "perfetto: out of memory");
	if (added) {
		t->tmp.len = 0;
		ex_pb__uint(&t->tmp, 1, *iid);
		for (i = 0; i < n; i++)
			ex_pb__uint(&t->tmp, 2, ids[i]);
		ex_pb__msg(&t->interned, 7, &t->tmp);
	}
	return 0;
}

/* write packet t->pkt */
static int put_packet(struct ex_trace *t)
{
	int err = ex_out__field(&t->out, 1, &t->pkt);

	t->packets += !err;
	return err;
}

/* the sequence's first packets, the clocks equal at @ts */
static int start(struct ex_trace *t, uint64_t ts)
{
	struct ex_pb clock = { 0 };
	int err;

	t->pkt.len = t->tmp.len = 0;
	ex_pb__uint(&clock, 1, t->clock);
	ex_pb__uint(&clock, 2, ts);
	ex_pb__msg(&t->tmp, 1, &clock);
	if (t->clock != EX_CLOCK_BOOTTIME) {
		clock.len = 0;
		ex_pb__uint(&clock, 1, EX_CLOCK_BOOTTIME);
		ex_pb__uint(&clock, 2, ts);
		ex_pb__msg(&t->tmp, 1, &clock);
	}
	ex_pb__uint(&t->tmp, 2, t->clock);	/* primary_trace_clock */
	ex_pb__uint(&t->pkt, 10, SEQ_ID);
	ex_pb__msg(&t->pkt, 6, &t->tmp);
	ex_pb__free(&clock);
	err = put_packet(t);
	if (err)
		return err;
	t->pkt.len = t->tmp.len = 0;
	ex_pb__uint(&t->tmp, 58, t->clock);
	ex_pb__uint(&t->pkt, 10, SEQ_ID);
	ex_pb__uint(&t->pkt, 13, 1);	/* SEQ_INCREMENTAL_STATE_CLEARED */
	ex_pb__msg(&t->pkt, 59, &t->tmp);
	t->started = true;
	return put_packet(t);
}

int ex_trace__packet(struct ex_trace *t, uint64_t ts, unsigned int field,
		     const struct ex_pb *body)
{
	bool interned = t->interned.len > 0;
	int err;

	if (!t->started && (err = start(t, ts)))
		return err;
	t->pkt.len = 0;
	ex_pb__uint(&t->pkt, 8, ts);
	ex_pb__uint(&t->pkt, 10, SEQ_ID);
	if (interned || field == 66) {	/* uses the interned stacks */
		ex_pb__uint(&t->pkt, 13, 2);
		if (interned)
			ex_pb__msg(&t->pkt, 12, &t->interned);
	}
	ex_pb__msg(&t->pkt, field, body);
	if (t->interned.err || t->tmp.err)
		t->pkt.err = true;
	t->interned.len = 0;
	return put_packet(t);
}

int ex_trace__open(struct ex_trace *t, const char *path, uint32_t clock,
		   const void *bids, size_t bids_size)
{
	memset(t, 0, sizeof(*t));
	t->clock = clock;
	t->bids = bids;
	t->bids_size = bids_size;
	return ex_out__open(&t->out, path, false);
}

static void free_tables(struct ex_trace *t)
{
	ex_pb__free(&t->pkt);
	ex_pb__free(&t->tmp);
	ex_pb__free(&t->interned);
	ex_intern__free(&t->fnames);
	ex_intern__free(&t->paths);
	ex_intern__free(&t->bid_strs);
	ex_intern__free(&t->maps);
	ex_intern__free(&t->frames);
	ex_intern__free(&t->stacks);
}

int ex_trace__close(struct ex_trace *t, bool commit)
{
	int err = 0;

	free_tables(t);
	if (commit)
		err = ex_out__commit(&t->out);
	else
		ex_out__abort(&t->out);
	return err;
}
