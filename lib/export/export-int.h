/* SPDX-License-Identifier: MIT */
/*
 * export-int.h - the export module's private pieces (lib/export/): interning
 * tables, a protobuf encoder and gzip output; not installed.
 */
#ifndef PEBSSHIM_EXPORT_INT_H
#define PEBSSHIM_EXPORT_INT_H

#include <zlib.h>

#include "core/internal.h"
#include "pebsshim/export.h"
#include "pebsshim/perfdata.h"
#include "pebsshim/session.h"

/*
 * struct ex_intern - distinct byte strings (keys) numbered 0, 1, ... in
 * the order first met: what keeps an export's memory bounded by the
 * distinct strings, functions, locations and stacks, not the samples.
 */
struct ex_intern {
	uint8_t *data;		/* the keys, one after the other */
	size_t len, cap;
	size_t *off;		/* key i is data[off[i], off[i + 1]) */
	uint32_t n;
	size_t n_cap;
	uint32_t *slot;		/* open addressing: id + 1, 0 empty */
	uint32_t nr_slots;	/* a power of two */
};

/* ex_intern__get - the id of @key (@len bytes), added if new (*@added
   true). Returns 0 or -ENOMEM. */
int ex_intern__get(struct ex_intern *t, const void *key, size_t len,
		   uint32_t *id, bool *added);
/* ex_intern__key - key @id and its length */
const uint8_t *ex_intern__key(const struct ex_intern *t, uint32_t id,
			      size_t *len);
void ex_intern__free(struct ex_intern *t);

/* struct ex_pb - a protobuf message being encoded (err: out of memory) */
struct ex_pb {
	uint8_t *b;
	size_t len, cap;
	bool err;
};

void ex_pb__varint(struct ex_pb *pb, uint64_t v);
/* a varint field (proto3: left out when 0) */
void ex_pb__u64(struct ex_pb *pb, unsigned int field, uint64_t v);
/* a varint field written even when 0 (proto2 fields Perfetto reads) */
void ex_pb__uint(struct ex_pb *pb, unsigned int field, uint64_t v);
/* a double field (wire type 1, 8 bytes little-endian) */
void ex_pb__double(struct ex_pb *pb, unsigned int field, double d);
/* message @m as field @field (its error carried over) */
void ex_pb__msg(struct ex_pb *pb, unsigned int field, const struct ex_pb *m);
/* a length-delimited field: bytes, a string, a message */
void ex_pb__bytes(struct ex_pb *pb, unsigned int field, const void *p,
		  size_t len);
/* a packed repeated varint field (left out when empty) */
void ex_pb__packed(struct ex_pb *pb, unsigned int field, const uint64_t *v,
		   size_t n);
void ex_pb__free(struct ex_pb *pb);

/*
 * struct ex_out - an output (gzip-compressed or plain) built in a hidden temporary
 * file (mode 0600: it holds addresses) beside @path and renamed to @path
 * by ex_out__commit: a failed export leaves no part of a file and keeps
 * the file it would have replaced.
 */
struct ex_out {
	char *path, *tmp;
	gzFile gz;
};

int ex_out__open(struct ex_out *o, const char *path, bool gzip);
/* write message @pb as field @field of the top-level message */
int ex_out__field(struct ex_out *o, unsigned int field,
		  const struct ex_pb *pb);
int ex_out__commit(struct ex_out *o);
/* drop the temporary file (after an error); harmless after commit */
void ex_out__abort(struct ex_out *o);

/* what every export takes from its session (lib/export/stack.c) */
struct ex_src {
	const struct pebs_export_opts *o;
	struct pebs_export_stats *st;	/* the caller's, else &dummy */
	struct pebs_export_stats dummy;
	struct pebs_perfdata *pd;
	struct pebs_symbols *syms;
	const void *bids;		/* HEADER_BUILD_ID, NULL: none */
	size_t bids_size;
	unsigned int nr_attrs;
	bool any_weight, any_src;	/* an event samples weights, data
					   sources */
};

/* ex_src__init - @x of session @ss exporting as @o into @st (may be
   NULL; zeroed) */
void ex_src__init(struct ex_src *x, struct pebs_session *ss,
		  const struct pebs_export_opts *o,
		  struct pebs_export_stats *st);

/* one frame of a sample's call stack (lib/export/stack.c) */
struct ex_frame {
	const char *dso;	/* the mapped file; NULL: unknown */
	const char *name;	/* the function, else "0x<address>" */
	bool named;		/* a symbol (not the address) */
	bool kernel;
	uint64_t addr;		/* user code in a file: the offset in it;
				   else the address */
	uint64_t dso_offset;	/* the offset in dso */
	char hex[24];		/* name's room when unnamed */
};

/* called per frame, the leaf first; nonzero stops the walk */
typedef int (*ex_frame_fn)(void *arg, const struct ex_frame *f);

/* ex_stack - the frames of sample @s resolved as @res (the session's
   resolution of it); returns what @fn returned, or 0 */
int ex_stack(struct pebs_symbols *syms, const struct pebs_sample *s,
	     const struct pebs_report_sample *res, ex_frame_fn fn, void *arg);

/* ex_build_id - the build id of @dso in @bid (BUILD_ID_MAX bytes): the
   recorded one (HEADER_BUILD_ID @bids), else the local file's. Returns
   its length, 0 if none is known. */
int ex_build_id(const void *bids, size_t bids_size, const char *dso,
		uint8_t *bid);

/* Perfetto's BuiltinClock ids (protos/perfetto/common/builtin_clock.proto) */
enum {
	EX_CLOCK_REALTIME = 1,
	EX_CLOCK_MONOTONIC = 3,
	EX_CLOCK_MONOTONIC_RAW = 5,
	EX_CLOCK_BOOTTIME = 6,
	EX_CLOCK_PERF = 10,
};

/*
 * struct ex_trace - a Perfetto trace being written (lib/export/perfetto.c):
 * packets on one sequence, call stacks interned.
 */
struct ex_trace {
	struct ex_out out;
	struct ex_pb pkt, tmp;
	struct ex_pb interned;		/* for the next packet */
	struct ex_intern fnames, paths, bid_strs, maps, frames, stacks;
	const void *bids;		/* HEADER_BUILD_ID */
	size_t bids_size;
	uint32_t clock;			/* EX_CLOCK_* of the timestamps */
	bool started;
	uint64_t packets;		/* written */
};

/* ex_trace__open - a trace to @path (plain, 0600, renamed into place by
   __close) whose timestamps are on @clock. 0 or -errno (reason set). */
int ex_trace__open(struct ex_trace *t, const char *path, uint32_t clock,
		   const void *bids, size_t bids_size);
/* ex_trace__callstack - the iid of the stack @frames (the leaf first),
   its new interned entries put in the next packet. 0 or -ENOMEM. */
int ex_trace__callstack(struct ex_trace *t, const struct ex_frame *frames,
			unsigned int n, uint64_t *iid);
/* ex_trace__packet - a TracePacket at @ts with @body as field @field
   (and the interned entries pending); the first one starts the
   sequence (clocks, defaults). 0 or -errno (reason set). */
int ex_trace__packet(struct ex_trace *t, uint64_t ts, unsigned int field,
		     const struct ex_pb *body);
/* ex_trace__close - free; with @commit rename the file into place,
   else remove it. 0 or -errno (reason set). */
int ex_trace__close(struct ex_trace *t, bool commit);

#endif /* PEBSSHIM_EXPORT_INT_H */
