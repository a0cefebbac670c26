// SPDX-License-Identifier: MIT
/*
 * perfdata-zstd.c - the records inside PERF_RECORD_COMPRESSED (perf
 * record -z), decompressed with libzstd.
 *
 * As perf's session.c reads them: the payloads of all COMPRESSED records
 * form one zstd stream, and each payload decompresses to at most the
 * mmap_len of HEADER_COMPRESSED (perf compresses one ring-buffer flush at
 * a time); a record may continue in the next payload, so the unread tail
 * of one is carried over before the next is decompressed. The output
 * buffer grows as output arrives up to mmap_len plus the largest record;
 * a payload that does not fit, or that zstd rejects, gives -EINVAL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pebsshim/perfdata.h"
#include "core/internal.h"
#include "perfdata/perfdata-int.h"

#define MAX_REC		(64u << 10)	/* perf_event_header.size is u16 */

struct pd_zstd {
	ZSTD_DStream *ds;
	unsigned char *buf;
	size_t cap, head, size;	/* records: buf[head, size) */
	size_t mmap_len;
};

int pd_zstd__new(uint64_t mmap_len, struct pd_zstd **zp)
{
	struct pd_zstd *z;

	if (mmap_len < 4096 || mmap_len > PD_ZSTD_MAX_MMAP_LEN)
		return core_err(-EINVAL,
				"corrupt perf.data: HEADER_COMPRESSED mmap_len %llu is not within 4 KiB..%u MiB",
				(unsigned long long)mmap_len,
				PD_ZSTD_MAX_MMAP_LEN >> 20);
	z = calloc(1, sizeof(*z));
	if (!z)
		return core_err(-ENOMEM, "out of memory for zstd decompression");
	z->mmap_len = mmap_len;
	/* grown on demand up to mmap_len + MAX_REC (see pd_zstd__feed) */
	z->cap = mmap_len + MAX_REC < (1u << 20) ? mmap_len + MAX_REC : 1u << 20;
	z->buf = malloc(z->cap);
	z->ds = ZSTD_createDStream();
	if (!z->buf || !z->ds || ZSTD_isError(ZSTD_initDStream(z->ds))) {
		pd_zstd__free(z);
		return core_err(-ENOMEM, "out of memory for zstd decompression");
	}
	*zp = z;
	return 0;
}

void pd_zstd__free(struct pd_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z->buf);
	free(z);
}

void pd_zstd__reset(struct pd_zstd *z)
{
	ZSTD_initDStream(z->ds);
	z->head = z->size = 0;
}

int pd_zstd__feed(struct pd_zstd *z, const void *src, size_t len)
{
	ZSTD_inBuffer in = { src, len, 0 };
	ZSTD_outBuffer out;
	size_t rem = z->size - z->head;

	/* the carried tail is less than one record (see pd_zstd__next) */
	memmove(z->buf, z->buf + z->head, rem);
	z->head = 0;
	out = (ZSTD_outBuffer){ z->buf, z->cap < rem + z->mmap_len ?
				z->cap : rem + z->mmap_len, rem };
	while (in.pos < in.size) {
		size_t r;

		if (out.pos == out.size && out.size < rem + z->mmap_len) {
			size_t cap = 2 * z->cap;
			void *p;

			if (cap > z->mmap_len + MAX_REC)
				cap = z->mmap_len + MAX_REC;
			p = realloc(z->buf, cap);
			if (!p)
				return core_err(-ENOMEM, "out of memory for zstd decompression");
			z->buf = out.dst = p;
			z->cap = cap;
			out.size = cap < rem + z->mmap_len ? cap : rem + z->mmap_len;
		}
		r = ZSTD_decompressStream(z->ds, &out, &in);

		if (ZSTD_isError(r)) {
			z->size = 0;
			return core_err(-EINVAL,
					"corrupt perf.data: a compressed record does not decompress (zstd: %s)",
					ZSTD_getErrorName(r));
		}
		if (out.pos == out.size && in.pos < in.size &&
		    out.size >= rem + z->mmap_len) {
			z->size = 0;
			return core_err(-EINVAL,
					"corrupt perf.data: a compressed record decompresses to more than its %zu-byte buffer (HEADER_COMPRESSED mmap_len)",
					z->mmap_len);
		}
	}
	z->size = out.pos;
	return 0;
}

int pd_zstd__next(struct pd_zstd *z, const unsigned char **rec)
{
	uint16_t size;

	if (z->size - z->head < 8)
		return 0;
	size = ld16(z->buf + z->head + 6);
	if (size < 8) {
		z->head = z->size;
		return core_err(-EBADMSG,
				"corrupt perf.data: a record of %u bytes inside a compressed record",
				size);
	}
	if (size > z->size - z->head)
		return 0;	/* continues in the next compressed record */
	*rec = z->buf + z->head;
	z->head += size;
	return 1;
}

bool pd_zstd__pending(const struct pd_zstd *z)
{
	return z->size != z->head;
}
