/* SPDX-License-Identifier: MIT */
/*
 * pb-read.h - a minimal protobuf reader for the unit tests of the exports
 * (test-pprof.c, test-perfetto.c): varints, tagged fields (varint,
 * fixed64, length-delimited), a whole file read through zlib. Include
 * after <cmocka.h>.
 */
#ifndef PEBS_TEST_PB_READ_H
#define PEBS_TEST_PB_READ_H

#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

struct field {
	unsigned int num, wire;
	uint64_t v;		/* varint */
	const uint8_t *p;	/* length-delimited */
	size_t len;
};

static uint64_t rd_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
		assert_true(shift < 64);
	}
	fail_msg("varint past the end");
	return 0;
}

/* the next field of [*p, end): 1, or 0 at the end */
static int next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t tag;

	if (*p >= end)
		return 0;
	tag = rd_varint(p, end);
	f->num = (unsigned int)(tag >> 3);
	f->wire = (unsigned int)(tag & 7);
	if (f->wire == 0) {
		f->v = rd_varint(p, end);
	} else if (f->wire == 2) {
		f->len = rd_varint(p, end);
		assert_true(f->len <= (size_t)(end - *p));
		f->p = *p;
		*p += f->len;
	} else if (f->wire == 1) {	/* fixed64, little-endian */
		assert_true(end - *p >= 8);
		f->v = 0;
		for (unsigned int i = 0; i < 8; i++)
			f->v |= (uint64_t)(*p)[i] << (8 * i);
		*p += 8;
	} else {
		fail_msg("wire type %u: not written by lib/export", f->wire);
	}
	return 1;
}

/* the whole file, gunzipped (a plain file is read as it is) */
static uint8_t *gunzip(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16;
	uint8_t *b = malloc(cap);
	int n;

	assert_non_null(gz);
	assert_non_null(b);
	*len = 0;
	while ((n = gzread(gz, b + *len, (unsigned int)(cap - *len))) > 0) {
		*len += (size_t)n;
		if (*len == cap) {
			cap *= 2;
			b = realloc(b, cap);
			assert_non_null(b);
		}
	}
	assert_int_equal(n, 0);
	gzclose(gz);
	return b;
}

#endif /* PEBS_TEST_PB_READ_H */
