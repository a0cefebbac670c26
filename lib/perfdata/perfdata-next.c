// SPDX-License-Identifier: MIT
/*
 * perfdata-next.c - the records of a perf.data file or stream, one at a
 * time: from the mapped data section, from a pipe-mode stream
 * (lib/perfdata/perfdata-pipe.c), and from inside PERF_RECORD_COMPRESSED records
 * (lib/perfdata/perfdata-zstd.c), which are decompressed and never returned
 * themselves. HEADER_ATTR records add their event the first time they
 * are read (not again after a rewind).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "perfdata/perfdata-int.h"

/* a HEADER_FEATURE record: { header; u64 feat_id; data } */
#define FEAT_REC_HDR	16
/* pipe mode: at most this much of perf's header records is kept */
#define PROLOGUE_MAX	(16u << 20)
/* HEADER_COMPRESSED: u32 version, type, level, ratio, mmap_len */
#define COMP_TYPE_ZSTD	1

/*
 * The bytes after the record at @rec that belong to it (AUXTRACE and
 * HEADER_TRACING_DATA carry a payload) into *extra; false if the record
 * is too short to say.
 */
static bool payload(const unsigned char *rec, uint64_t *extra)
{
	uint32_t type = ld32(rec);
	uint16_t size = ld16(rec + 6);

	*extra = 0;
	if (type == PEBS_PERF_RECORD_AUXTRACE) {	/* { header; u64 size } */
		if (size < 16)
			return false;
		*extra = ld64(rec + 8);
	} else if (type == PEBS_PERF_RECORD_HEADER_TRACING_DATA) {
		if (size < 12)			/* { header; u32 size } */
			return false;
		*extra = ld32(rec + 8);
	}
	return true;
}

static int bad_record(uint64_t at, unsigned int size)
{
	return core_err(-EBADMSG,
			"corrupt perf.data: bad record at offset %llu (size %u); stopped there",
			(unsigned long long)at, size);
}

/* the next record of the mapped data section: 1, 0 at its end, -errno */
static int file_rec(struct pebs_perfdata *pd, const unsigned char **recp)
{
	const unsigned char *rec = pd->buf + pd->pos;
	uint64_t left = pd->data_end - pd->pos, extra;
	uint16_t size;

	if (pd->pos >= pd->data_end)
		return 0;
	if (left < 8)
		goto cut;
	size = ld16(rec + 6);
	if (size < 8)
		return bad_record(pd->pos, size);
	if (size > left)	/* before payload() reads inside it */
		goto cut;
	if (!payload(rec, &extra))
		return bad_record(pd->pos, size);
	if (extra > left - size)
		goto cut;
	pd->pos += size + extra;
	if ((uintptr_t)rec & 7) {	/* e.g. after perf -z's COMPRESSED */
		if (!pd->rec && !(pd->rec = malloc(1u << 16)))
			return core_err(-ENOMEM, "out of memory for a perf.data record");
		memcpy(pd->rec, rec, size);
		rec = pd->rec;
	}
	*recp = rec;
	return 1;
cut:	/* the last record runs past the end */
	if (pd->unfinished) {	/* was being written: drop it, as perf */
		pd->truncated = true;
		pd->pos = pd->data_end;
		return 0;
	}
	return bad_record(pd->pos, left < 8 ? 0 : size);
}

/* the next record of a pipe-mode stream: 1, 0 at its end, -errno */
static int stream_rec(struct pebs_perfdata *pd, const unsigned char **recp)
{
	const unsigned char *rec;
	uint64_t extra;
	int r = pd_stream__next(pd->stream, &rec);

	if (r <= 0)
		return r;
	if (!payload(rec, &extra))
		return core_err(-EBADMSG,
				"corrupt perf.data stream: record type %u too short for its payload size",
				ld32(rec));
	if (extra) {	/* skipping reuses the buffer: keep the record */
		if (!pd->rec && !(pd->rec = malloc(1u << 16)))
			return core_err(-ENOMEM, "out of memory for a perf.data record");
		memcpy(pd->rec, rec, ld16(rec + 6));
		rec = pd->rec;
		r = pd_stream__skip(pd->stream, extra);
		if (r <= 0)
			return r;
	}
	*recp = rec;
	return 1;
}

static bool is_compressed(uint32_t type)
{
	return type == PEBS_PERF_RECORD_COMPRESSED ||
	       type == PEBS_PERF_RECORD_COMPRESSED2;
}

/* feed one PERF_RECORD_COMPRESSED { header; zstd data[] }, or perf
   6.15's COMPRESSED2 { header; u64 data_size; zstd data[]; padding } */
static int decompress(struct pebs_perfdata *pd, const unsigned char *rec)
{
	uint16_t size = ld16(rec + 6);
	const unsigned char *data = rec + 8;
	uint64_t len = size - 8;

	if (!pd->zstd) {
		const unsigned char *c = pd->feat[PEBS_FEAT_COMPRESSED];
		/* a file never finished has no features: assume the most */
		uint64_t mmap_len = PD_ZSTD_MAX_MMAP_LEN;
		int err;

		if (c && pd->feat_size[PEBS_FEAT_COMPRESSED] >= 20) {
			if (ld32(c + 4) != COMP_TYPE_ZSTD)
				return core_err(-EOPNOTSUPP,
						"perf.data is compressed with method %u; only zstd (1) is supported",
						ld32(c + 4));
			mmap_len = ld32(c + 16);
		}
		err = pd_zstd__new(mmap_len, &pd->zstd);
		if (err)
			return err;
	}
	if (ld32(rec) == PEBS_PERF_RECORD_COMPRESSED2) {
		if (size < 16 || ld64(rec + 8) > (uint64_t)size - 16u)
			return core_err(-EBADMSG,
					"corrupt perf.data: a COMPRESSED2 record of %u bytes says %llu bytes of data",
					size, size < 16 ? 0ULL :
					(unsigned long long)ld64(rec + 8));
		data = rec + 16;
		len = ld64(rec + 8);
	}
	return pd_zstd__feed(pd->zstd, data, len);
}

int pebs_perfdata__next(struct pebs_perfdata *pd,
			const struct perf_event_header **ev)
{
	const unsigned char *rec = NULL;
	int r = 0;

	if (pd->done)
		return 0;
	if (pd->rewind_err) {
		pd->done = true;
		return core_err(pd->rewind_err,
				"cannot read a pipe-mode perf.data stream twice: save it to a file first (perf record -o - ... > FILE)");
	}
	for (;;) {
		if (pd->zstd) {
			r = pd_zstd__next(pd->zstd, &rec);
			if (r)
				break;
		}
		r = pd->stream ? stream_rec(pd, &rec) : file_rec(pd, &rec);
		if (!r && pd->dir)	/* DIR/data first, then DIR/data.N */
			r = pd_dir__next(pd->dir, &rec);
		if (r <= 0) {
			if (!r && pd->zstd && pd_zstd__pending(pd->zstd))
				pd->truncated = true;
			break;
		}
		if (!is_compressed(ld32(rec)))
			break;
		pd->nr_comp[ld32(rec) != PEBS_PERF_RECORD_COMPRESSED]++;
		r = decompress(pd, rec);
		if (r)
			break;
	}
	/* a record inside a hostile compressed payload (or one after a
	   record of odd size) may sit at any address: copied, aligned */
	if (r > 0 && ((uintptr_t)rec & 7)) {
		if (!pd->rec && !(pd->rec = malloc(1u << 16)))
			return core_err(-ENOMEM, "out of memory for a perf.data record");
		memmove(pd->rec, rec, ld16(rec + 6));
		rec = pd->rec;
	}
	if (r > 0 && ld32(rec) == PEBS_PERF_RECORD_HEADER_ATTR &&
	    pd->nrec >= pd->seen_upto)
		r = pd_header_attr(pd, rec, ld16(rec + 6)) ?: 1;
	if (r <= 0) {
		pd->done = r < 0;
		return r;
	}
	if (++pd->nrec > pd->seen_upto)
		pd->seen_upto = pd->nrec;
	*ev = (const struct perf_event_header *)rec;
	return 1;
}

uint64_t pd_release(const struct pebs_perfdata *pd, uint64_t from,
		    uint64_t to)
{
	uintptr_t pg, a, b;

	if (!pd->mapped || pd->stream || pd->dir || pd->zstd || to <= from ||
	    to - from < PD_RELEASE_MIN || to > pd->size)
		return from;
	pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	a = ((uintptr_t)pd->buf + from) & ~(pg - 1);
	b = ((uintptr_t)pd->buf + to) & ~(pg - 1);
	/* a private read-only file mapping: the pages come back from the
	   page cache if read again */
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
	return to;
}

void pebs_perfdata__rewind(struct pebs_perfdata *pd)
{
	pd->pos = pd->data_start;
	pd->nrec = 0;
	pd->done = pd->truncated = false;
	if (pd->zstd)
		pd_zstd__reset(pd->zstd);
	if (pd->stream && pd_stream__rewind(pd->stream))
		pd->rewind_err = -ESPIPE;
	if (pd->dir)
		pd_dir__rewind(pd->dir);
}

int pd_read_prologue(struct pebs_perfdata *pd)
{
	size_t off[PEBS_FEAT_BITS] = { 0 };
	const unsigned char *rec, *pro;
	size_t len = 0;
	int r = 0, err = 0;

	pd_stream__capture(pd->stream, true);
	while (!err && (r = stream_rec(pd, &rec)) > 0) {
		uint32_t type = ld32(rec);
		uint16_t size = ld16(rec + 6);
		uint64_t f;

		pd_stream__prologue(pd->stream, &pro, &len);
		if (type == PEBS_PERF_RECORD_HEADER_ATTR) {
			err = pd_header_attr(pd, rec, size);
		} else if (type == PEBS_PERF_RECORD_HEADER_FEATURE &&
			   size >= FEAT_REC_HDR &&
			   (f = ld64(rec + 8)) < PEBS_FEAT_BITS) {
			off[f] = len - size + FEAT_REC_HDR;
			pd->feat_size[f] = size - FEAT_REC_HDR;
			pd->hdr.features[f / 64] |= 1ULL << (f % 64);
		}
		if (!is_compressed(type))
			pd->seen_upto++;
		if (type == PEBS_PERF_RECORD_FINISHED_INIT ||
		    type == PERF_RECORD_SAMPLE ||
		    is_compressed(type) || len > PROLOGUE_MAX)
			break;
	}
	pd_stream__capture(pd->stream, false);
	if (err || r < 0)
		return err ?: r;
	pd_stream__prologue(pd->stream, &pro, &len);
	for (unsigned int f = 0; f < PEBS_FEAT_BITS; f++)
		if (off[f])
			pd->feat[f] = pro + off[f];
	pd_stream__rewind(pd->stream);	/* __next replays the prologue */
	return pd_read_event_desc(pd);
}
