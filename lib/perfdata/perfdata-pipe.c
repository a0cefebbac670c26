// SPDX-License-Identifier: MIT
/*
 * perfdata-pipe.c - records of a pipe-mode perf.data stream (perf record
 * -o -), read from a file descriptor or from memory without seeking.
 *
 * After the 16-byte { PERFILE2, 16 } header the stream is one record
 * after another. The buffer holds one record at a time (a record is at
 * most 64 KiB: perf_event_header.size is 16 bits); the payload that
 * follows AUXTRACE and HEADER_TRACING_DATA records is read and dropped
 * (pd_stream__skip), so memory stays bounded whatever the stream's
 * length.
 *
 * Records come out 8-byte aligned (perf's HEADER_FEATURE records have
 * odd sizes, and shift every record after them): one that is not is
 * copied first.
 *
 * The prologue (perf's HEADER_ATTR / HEADER_FEATURE / ... records up to
 * FINISHED_INIT) is kept: the reader parses it when it opens the stream
 * and __next then returns it again before reading on (pd_stream__replay).
 * Rewinding replays the prologue and continues from where it ended,
 * which works on memory and on seekable descriptors (a pipe-mode stream
 * saved to a file), not on a pipe.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "core/internal.h"
#include "perfdata/perfdata-int.h"

#define BUF_SIZE	(256u << 10)	/* > 64 KiB, the largest record */

struct pd_stream {
	int fd;				/* or -1: memory */
	const unsigned char *mem;
	size_t mem_size, mem_pos;
	unsigned char *buf;		/* BUF_SIZE bytes */
	unsigned char *align;		/* a record copied to be aligned */
	size_t head, tail;		/* unread bytes: buf[head, tail) */
	size_t last;			/* size of the record last returned */
	bool eof, truncated;
	/* the prologue */
	bool capture;
	unsigned char *pro;
	size_t pro_len, pro_cap, pro_pos;
	bool replay, replayed;		/* replaying; the last record was */
	off_t resume;			/* fd offset after the prologue, or -1 */
	size_t resume_mem;
	uint64_t read_after;		/* bytes consumed past the prologue */
};

static int stream_new(struct pd_stream **sp)
{
	struct pd_stream *s = calloc(1, sizeof(*s));

	if (!s || !(s->buf = malloc(BUF_SIZE)) ||
	    !(s->align = malloc(1u << 16))) {
		if (s)
			free(s->buf);
		free(s);
		return core_err(-ENOMEM, "out of memory for a perf.data stream");
	}
	s->fd = -1;
	s->resume = -1;
	*sp = s;
	return 0;
}

int pd_stream__new_fd(int fd, struct pd_stream **sp)
{
	int err = stream_new(sp);

	if (!err)
		(*sp)->fd = fd;
	return err;
}

int pd_stream__new_mem(const void *buf, size_t size, struct pd_stream **sp)
{
	int err = stream_new(sp);

	if (!err) {
		(*sp)->mem = buf;
		(*sp)->mem_size = size;
	}
	return err;
}

void pd_stream__free(struct pd_stream *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s->align);
	free(s->pro);
	free(s);
}

/* read up to @n bytes into @dst: the count, 0 at the end, or -errno */
static ssize_t src_read(struct pd_stream *s, void *dst, size_t n)
{
	ssize_t r;

	if (s->fd < 0) {
		size_t left = s->mem_size - s->mem_pos;

		if (n > left)
			n = left;
		memcpy(dst, s->mem + s->mem_pos, n);
		s->mem_pos += n;
		return n;
	}
	do
		r = read(s->fd, dst, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return core_err(-errno, "cannot read the perf.data stream: %m");
	return r;
}

/* make @n bytes available at buf + head: 1, 0 (the stream ended first) */
static int fill(struct pd_stream *s, size_t n)
{
	while (s->tail - s->head < n) {
		ssize_t r;

		if (s->eof)
			return 0;
		if (BUF_SIZE - s->head < n) {
			memmove(s->buf, s->buf + s->head, s->tail - s->head);
			s->tail -= s->head;
			s->head = 0;
		}
		r = src_read(s, s->buf + s->tail, BUF_SIZE - s->tail);
		if (r < 0)
			return r;
		if (!r)
			s->eof = true;
		s->tail += r;
	}
	return 1;
}

/* keep a copy of the record at @rec in the prologue */
static int keep(struct pd_stream *s, const unsigned char *rec, size_t n)
{
	size_t at = (s->pro_len + 7) & ~(size_t)7;	/* 8-byte aligned */

	if (core_grow(&s->pro, &s->pro_cap, at + n, 1))
		return core_err(-ENOMEM, "out of memory for the perf.data stream's header records");
	memcpy(s->pro + at, rec, n);
	s->pro_len = at + n;
	return 0;
}

int pd_stream__next(struct pd_stream *s, const unsigned char **rec)
{
	uint16_t size;
	int r;

	s->replayed = false;
	if (s->replay) {
		s->pro_pos = (s->pro_pos + 7) & ~(size_t)7;
		if (s->pro_pos + 8 <= s->pro_len) {
			s->replayed = true;
			*rec = s->pro + s->pro_pos;
			s->pro_pos += ld16(*rec + 6);
			return 1;
		}
		s->replay = false;
	}
	s->head += s->last;
	s->read_after += s->capture ? 0 : s->last;
	s->last = 0;
	r = fill(s, 8);
	if (r <= 0) {
		s->truncated |= !r && s->tail != s->head;
		return r;
	}
	size = ld16(s->buf + s->head + 6);
	if (size < 8)
		return core_err(-EBADMSG,
				"corrupt perf.data stream: record of %u bytes", size);
	r = fill(s, size);
	if (r <= 0) {
		s->truncated |= !r;
		return r;
	}
	*rec = s->buf + s->head;
	s->last = size;
	if ((uintptr_t)*rec & 7) {	/* after a record of odd size */
		memcpy(s->align, *rec, size);
		*rec = s->align;
	}
	return s->capture ? (keep(s, *rec, size) ?: 1) : 1;
}

int pd_stream__skip(struct pd_stream *s, uint64_t n)
{
	if (s->replayed)
		return 1;	/* dropped when the prologue was read */
	s->head += s->last;
	s->read_after += s->capture ? 0 : s->last;
	s->last = 0;
	while (n) {
		size_t have = s->tail - s->head;
		ssize_t r;

		if (have) {
			size_t c = have < n ? have : n;

			s->head += c;
			s->read_after += c;
			n -= c;
			continue;
		}
		s->head = s->tail = 0;
		r = src_read(s, s->buf, n < BUF_SIZE ? n : BUF_SIZE);
		if (r < 0)
			return r;
		if (!r) {
			s->truncated = true;
			return 0;
		}
		s->tail = r;
	}
	return 1;
}

void pd_stream__capture(struct pd_stream *s, bool on)
{
	s->capture = on;
	if (on)
		return;
	/* the last record read belongs to the prologue */
	s->head += s->last;
	s->last = 0;
	/* where the prologue ends in the source */
	s->resume_mem = s->mem_pos - (s->tail - s->head);
	if (s->fd >= 0) {
		off_t at = lseek(s->fd, 0, SEEK_CUR);

		s->resume = at < 0 ? -1 : at - (off_t)(s->tail - s->head);
	}
	s->read_after = 0;
}

void pd_stream__prologue(const struct pd_stream *s, const unsigned char **p,
			 size_t *len)
{
	*p = s->pro;
	*len = s->pro_len;
}

int pd_stream__rewind(struct pd_stream *s)
{
	s->pro_pos = 0;
	s->replay = true;
	if (!s->read_after && !s->last)
		return 0;	/* nothing past the prologue read yet */
	if (s->fd < 0) {
		s->mem_pos = s->resume_mem;
	} else if (s->resume < 0 ||
		   lseek(s->fd, s->resume, SEEK_SET) != s->resume) {
		s->replay = false;
		return core_err(-ESPIPE,
				"cannot read a pipe-mode perf.data stream twice: save it to a file first (perf record -o - ... > FILE)");
	}
	s->head = s->tail = s->last = 0;
	s->read_after = 0;
	s->eof = s->truncated = false;
	return 0;
}

bool pd_stream__truncated(const struct pd_stream *s)
{
	return s->truncated;
}
