// SPDX-License-Identifier: MIT
/*
 * pb.c - the few pieces of protobuf an export writes: varints, tagged
 * fields, packed varints, doubles, nested messages; interning tables;
 * output through zlib (gzip-compressed for pprof, plain for Perfetto).
 *
 * A hand encoder instead of protobuf-c: profile.proto needs only
 * varints and length-delimited fields, and the Go runtime's own pprof
 * writer (runtime/pprof/proto.go) is such an encoder. Generated code
 * would build the whole Profile message in memory (every sample) before
 * packing it; here each top-level field is encoded and compressed as it
 * is written (protobuf allows fields in any order, repeated fields
 * interleaved), so memory is the interning tables only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export-int.h"

static uint64_t hash_bytes(const uint8_t *p, size_t len)
{
	uint64_t h = core_fnv(CORE_FNV_SEED, p, len);

	return h ^ (h >> 29);
}

const uint8_t *ex_intern__key(const struct ex_intern *t, uint32_t id,
			      size_t *len)
{
	*len = t->off[id + 1] - t->off[id];
	return t->data + t->off[id];
}

static int grow_slots(struct ex_intern *t)
{
	uint32_t n = t->nr_slots ? t->nr_slots * 2 : 1024, i, j;
	uint32_t *slot = calloc(n, sizeof(*slot));
	const uint8_t *k;
	size_t len;

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		k = ex_intern__key(t, i, &len);
		for (j = (uint32_t)hash_bytes(k, len) & (n - 1); slot[j];
		     j = (j + 1) & (n - 1))
			;
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nr_slots = n;
	return 0;
}

static int append(struct ex_intern *t, const void *key, size_t len)
{
	if (core_grow(&t->off, &t->n_cap, (size_t)t->n + 2, sizeof(*t->off)) ||
	    core_grow(&t->data, &t->cap, t->len + len, 1))
		return -ENOMEM;
	if (len)
		memcpy(t->data + t->len, key, len);
	t->off[t->n] = t->len;
	t->len += len;
	t->off[++t->n] = t->len;
	return 0;
}

int ex_intern__get(struct ex_intern *t, const void *key, size_t len,
		   uint32_t *id, bool *added)
{
	uint32_t j;
	const uint8_t *k;
	size_t klen;

	*added = false;
	if ((t->n + 1) * 2 > t->nr_slots && grow_slots(t))
		return -ENOMEM;
	for (j = (uint32_t)hash_bytes(key, len) & (t->nr_slots - 1);
	     t->slot[j]; j = (j + 1) & (t->nr_slots - 1)) {
		k = ex_intern__key(t, t->slot[j] - 1, &klen);
		if (klen == len && !memcmp(k, key, len)) {
			*id = t->slot[j] - 1;
			return 0;
		}
	}
	if (append(t, key, len))
		return -ENOMEM;
	t->slot[j] = t->n;
	*id = t->n - 1;
	*added = true;
	return 0;
}

void ex_intern__free(struct ex_intern *t)
{
	free(t->data);
	free(t->off);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static void put(struct ex_pb *pb, const void *p, size_t len)
{
	if (pb->err)
		return;
	if (core_grow(&pb->b, &pb->cap, pb->len + len, 1)) {
		pb->err = true;
		return;
	}
	if (len)
		memcpy(pb->b + pb->len, p, len);
	pb->len += len;
}

static size_t varint(uint8_t *buf, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	return n;
}

void ex_pb__varint(struct ex_pb *pb, uint64_t v)
{
	uint8_t buf[10];

	put(pb, buf, varint(buf, v));
}

void ex_pb__u64(struct ex_pb *pb, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	ex_pb__varint(pb, (uint64_t)field << 3);	/* wire type 0 */
	ex_pb__varint(pb, v);
}

void ex_pb__uint(struct ex_pb *pb, unsigned int field, uint64_t v)
{
	ex_pb__varint(pb, (uint64_t)field << 3);
	ex_pb__varint(pb, v);
}

void ex_pb__double(struct ex_pb *pb, unsigned int field, double d)
{
	uint8_t buf[8];
	uint64_t v;
	unsigned int i;

	memcpy(&v, &d, sizeof(v));
	for (i = 0; i < 8; i++)		/* little-endian, as the wire */
		buf[i] = (uint8_t)(v >> (8 * i));
	ex_pb__varint(pb, (uint64_t)field << 3 | 1);	/* wire type 1 */
	put(pb, buf, sizeof(buf));
}

void ex_pb__msg(struct ex_pb *pb, unsigned int field, const struct ex_pb *m)
{
	if (m->err)
		pb->err = true;
	else
		ex_pb__bytes(pb, field, m->b, m->len);
}

void ex_pb__bytes(struct ex_pb *pb, unsigned int field, const void *p,
		  size_t len)
{
	ex_pb__varint(pb, (uint64_t)field << 3 | 2);
	ex_pb__varint(pb, len);
	put(pb, p, len);
}

void ex_pb__packed(struct ex_pb *pb, unsigned int field, const uint64_t *v,
		   size_t n)
{
	uint8_t buf[10];
	size_t i, len = 0;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		len += varint(buf, v[i]);
	ex_pb__varint(pb, (uint64_t)field << 3 | 2);
	ex_pb__varint(pb, len);
	for (i = 0; i < n; i++)
		ex_pb__varint(pb, v[i]);
}

void ex_pb__free(struct ex_pb *pb)
{
	free(pb->b);
	memset(pb, 0, sizeof(*pb));
}

int ex_out__open(struct ex_out *o, const char *path, bool gzip)
{
	const char *slash = strrchr(path, '/');
	int fd, err = pebs_output__check(path);
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;

	memset(o, 0, sizeof(*o));
	if (err)
		return err;
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%.*s.%s.pebs-shim.XXXXXX",
				 (int)dlen, path, path + dlen) < 0) {
		o->tmp = NULL;
		ex_out__abort(o);
		return core_err(-ENOMEM, "export: out of memory");
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);	/* mode 0600 */
	if (fd < 0) {
		err = core_err(-errno, "cannot create a file beside %s: %s: "
			       "choose a writable directory", path,
			       strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		ex_out__abort(o);
		return err;
	}
	/* "T": zlib writes the bytes as they are (no gzip) */
	o->gz = gzdopen(fd, gzip ? "wb6" : "wbT");
	if (!o->gz) {
		close(fd);
		ex_out__abort(o);
		return core_err(-ENOMEM, "export: out of memory");
	}
	return 0;
}

int ex_out__field(struct ex_out *o, unsigned int field,
		  const struct ex_pb *pb)
{
	struct ex_pb head = { 0 };
	int ok;

	if (pb->err)
		return core_err(-ENOMEM, "export: out of memory");
	ex_pb__varint(&head, (uint64_t)field << 3 | 2);
	ex_pb__varint(&head, pb->len);
	ok = !head.err &&
	     gzwrite(o->gz, head.b, (unsigned int)head.len) == (int)head.len &&
	     (!pb->len ||
	      gzwrite(o->gz, pb->b, (unsigned int)pb->len) == (int)pb->len);
	ex_pb__free(&head);
	if (!ok)
		return core_err(-EIO, "cannot write %s: %s: free space or "
				"choose another path", o->path,
				strerror(errno ? errno : EIO));
	return 0;
}

int ex_out__commit(struct ex_out *o)
{
	int err = 0, zerr = gzclose(o->gz);

	o->gz = NULL;
	if (zerr != Z_OK)
		err = core_err(-EIO, "cannot write %s: %s: free space or "
			       "choose another path", o->path,
			       strerror(errno ? errno : EIO));
	else if (rename(o->tmp, o->path))
		err = core_err(-errno, "cannot create %s: %s: choose another "
			       "path", o->path, strerror(errno));
	if (!err) {
		free(o->tmp);
		o->tmp = NULL;
	}
	ex_out__abort(o);
	return err;
}

void ex_out__abort(struct ex_out *o)
{
	if (o->gz)
		gzclose(o->gz);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}
