// SPDX-License-Identifier: MIT
/*
 * record.c - views of the non-sample records (COMM, FORK, EXIT, MMAP,
 * MMAP2, LOST, LOST_SAMPLES, SWITCH, SWITCH_CPU_WIDE, THROTTLE,
 * UNTHROTTLE, FINISHED_ROUND), decoded in one place.
 *
 * Every field is read with memcpy (records in a file section may be
 * unaligned) and checked against the payload, which is the record less
 * its header and less the sample_id trailer (attr.sample_id_all) whose
 * size the caller gives. Strings must end with a NUL inside the payload.
 */
#include <errno.h>
#include <string.h>

#include "pebsshim/decode.h"
#include "core/internal.h"

/* A NUL-terminated string at @off within @len bytes of payload @p. */
static const char *payload_str(const unsigned char *p, size_t len, size_t off)
{
	if (off >= len || !memchr(p + off, '\0', len - off))
		return NULL;
	return (const char *)p + off;
}

static int decode_mmap(const struct perf_event_header *ev,
		       const unsigned char *p, size_t len,
		       struct pebs_record_mmap *m)
{
	size_t name_off = ev->type == PERF_RECORD_MMAP ? 32 : 64;

	if (len < name_off)
		return -EBADMSG;
	m->pid = ld32(p);
	m->tid = ld32(p + 4);
	m->start = ld64(p + 8);
	m->len = ld64(p + 16);
	m->pgoff = ld64(p + 24);
	m->data = !!(ev->misc & PERF_RECORD_MISC_MMAP_DATA);
	/* MMAP: executable unless a data mapping (perf's convention) */
	m->prot = m->data ? 1 | 2 : 1 | 4;	/* PROT_READ|WRITE or EXEC */
	if (ev->type == PERF_RECORD_MMAP2) {
		if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->build_id_size = p[32] <= 20 ? p[32] : 0;
			memcpy(m->build_id, p + 36, sizeof(m->build_id));
		} else {
			m->maj = ld32(p + 32);
			m->min = ld32(p + 36);
			m->ino = ld64(p + 40);
			m->ino_generation = ld64(p + 48);
		}
		m->prot = ld32(p + 56);
		m->flags = ld32(p + 60);
	}
	m->filename = payload_str(p, len, name_off);
	return m->filename ? 0 : -EBADMSG;
}

int pebs_record__decode(const struct perf_event_header *ev, size_t id_size,
			struct pebs_record *r)
{
	const unsigned char *p;
	size_t len;

	if (!ev || !r)
		return core_err(-EINVAL, "record: no record");
	p = (const unsigned char *)(ev + 1);
	memset(r, 0, sizeof(*r));
	r->type = ev->type;
	r->misc = ev->misc;
	if (ev->size < sizeof(*ev))
		return core_err(-EBADMSG, "record: size %u below its header",
				ev->size);
	len = ev->size - sizeof(*ev);
	/* perf's own records (>= 64) and SAMPLE carry no sample_id */
	if (ev->type != PERF_RECORD_SAMPLE &&
	    ev->type < PEBS_PERF_RECORD_HEADER_ATTR /* perf's own: >= 64 */) {
		if (len < id_size)
			goto short_rec;
		len -= id_size;
	}
	switch (ev->type) {
	case PERF_RECORD_COMM:
		if (len < 8)
			goto short_rec;
		r->comm.pid = ld32(p);
		r->comm.tid = ld32(p + 4);
		r->comm.exec = !!(ev->misc & PERF_RECORD_MISC_COMM_EXEC);
		r->comm.comm = payload_str(p, len, 8);
		if (!r->comm.comm)
			goto short_rec;
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (len < 24)
			goto short_rec;
		r->task.pid = ld32(p);
		r->task.ppid = ld32(p + 4);
		r->task.tid = ld32(p + 8);
		r->task.ptid = ld32(p + 12);
		r->task.time = ld64(p + 16);
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (decode_mmap(ev, p, len, &r->mmap))
			goto short_rec;
		return 0;
	case PERF_RECORD_LOST:
		if (len < 16)
			goto short_rec;
		r->lost.id = ld64(p);
		r->lost.lost = ld64(p + 8);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (len < 8)
			goto short_rec;
		r->lost.lost = ld64(p);
		return 0;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (len < 8)
			goto short_rec;
		r->sw.next_prev_pid = ld32(p);
		r->sw.next_prev_tid = ld32(p + 4);
		/* fall through */
	case PERF_RECORD_SWITCH:
		r->sw.out = !!(ev->misc & PERF_RECORD_MISC_SWITCH_OUT);
		r->sw.preempt =
			!!(ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (len < 24)
			goto short_rec;
		r->throttle.time = ld64(p);
		r->throttle.id = ld64(p + 8);
		r->throttle.stream_id = ld64(p + 16);
		return 0;
	case PEBS_PERF_RECORD_FINISHED_ROUND:
		return 0;
	default:
		return core_err(-ENOENT, "record: type %u has no view",
				ev->type);
	}
short_rec:
	return core_err(-EBADMSG, "record: a type %u record of %u bytes is "
			"too short or has an unterminated string", ev->type,
			ev->size);
}
