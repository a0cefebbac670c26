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

/*
 * struct ex_intern - distinct byte strings (keys) numbered 0, 1, ... in
 * the order first met: what keeps an export's memory bounded by the
 * distinct strings, functions, locations and stacks, not the samples.
 */
struct ex_intern {
	uint8_t *data;		/* the keys, one after the other */
	size_t len, cap;
	size_t *off;		/* key i is data[off[i], off[i + 1]) */
	uint32_t n, n_cap;
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
/* a length-delimited field: bytes, a string, a message */
void ex_pb__bytes(struct ex_pb *pb, unsigned int field, const void *p,
		  size_t len);
/* a packed repeated varint field (left out when empty) */
void ex_pb__packed(struct ex_pb *pb, unsigned int field, const uint64_t *v,
		   size_t n);
void ex_pb__free(struct ex_pb *pb);

/*
 * struct ex_out - a gzip-compressed output built in a hidden temporary
 * file (mode 0600: it holds addresses) beside @path and renamed to @path
 * by ex_out__commit: a failed export leaves no part of a file and keeps
 * the file it would have replaced.
 */
struct ex_out {
	char *path, *tmp;
	gzFile gz;
};

int ex_out__open(struct ex_out *o, const char *path);
/* write message @pb as field @field of the top-level message */
int ex_out__field(struct ex_out *o, unsigned int field,
		  const struct ex_pb *pb);
int ex_out__commit(struct ex_out *o);
/* drop the temporary file (after an error); harmless after commit */
void ex_out__abort(struct ex_out *o);

#endif /* PEBSSHIM_EXPORT_INT_H */
