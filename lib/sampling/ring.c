// SPDX-License-Identifier: MIT
/*
 * ring.c - read records out of a perf mmap ring buffer.
 *
 * The protocol is libperf's (tools/lib/perf/mmap.c) on a writable
 * mapping: __read_init takes an acquire snapshot of data_head, __next
 * walks the records between our tail and that head (free-running
 * counters, offsets taken modulo the power-of-two data size), __consume
 * publishes the new tail with a release store. A record that straddles
 * the end of the data area is copied, in two pieces, into a per-ring
 * bounce buffer; any other record is returned in place.
 *
 * A record whose size is smaller than its header or larger than what the
 * kernel published cannot be walked past: the reader reports -EBADMSG
 * and skips to the snapshot's head, so a corrupt ring costs one
 * snapshot, never a loop or a read outside the data area.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/sampling.h"
#include "core/barrier.h"
#include "core/internal.h"

/* the largest record: perf_event_header.size is a u16 */
#define MAX_RECORD 65536

struct pebs_ring {
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t size;		/* data area, a power of two */
	uint64_t mask;
	uint64_t start;		/* next record to read (free-running) */
	uint64_t end;		/* data_head of the snapshot */
	struct pebs_ring_stats stats;
	/* wrapped records are reassembled here */
	_Alignas(8) unsigned char bounce[MAX_RECORD];
};

int pebs_ring__new(void *base, size_t data_size, struct pebs_ring **ringp)
{
	struct perf_event_mmap_page *pg = base;
	struct pebs_ring *ring;
	uint64_t off, size;

	if (!base || !ringp)
		return core_err(-EINVAL, "pebs_ring__new: NULL argument");
	/* written once by the kernel at mmap time, before we can see the page */
	off = pg->data_offset;
	size = pg->data_size;
	if (!size) {		/* kernels before 4.1 */
		off = (uint64_t)sysconf(_SC_PAGESIZE);
		size = data_size;
	}
	if (!size || (size & (size - 1)) || off < sizeof(*pg))
		return core_err(-EINVAL,
				"ring data area of %llu bytes at offset %llu: the size must be a power of two after the control page",
				(unsigned long long)size,
				(unsigned long long)off);

	ring = malloc(sizeof(*ring));
	if (!ring)
		return core_err(-ENOMEM, "out of memory for a ring reader");
	memset(ring, 0, offsetof(struct pebs_ring, bounce));
	ring->pg = pg;
	ring->data = (unsigned char *)base + off;
	ring->size = size;
	ring->mask = size - 1;
	/*
	 * Only we write data_tail; the kernel never does. A relaxed load
	 * picks up where an earlier reader of this mapping stopped.
	 */
	ring->start = PEBS_READ_ONCE(pg->data_tail);
	ring->end = ring->start;
	*ringp = ring;
	return 0;
}

void pebs_ring__delete(struct pebs_ring *ring)
{
	free(ring);
}

int pebs_ring__read_init(struct pebs_ring *ring)
{
	/*
	 * Acquire (barrier C of the table in kernel/events/ring_buffer.c):
	 * pairs with the kernel's smp_wmb() between writing the records and
	 * storing data_head (B, perf_output_put_handle()), so the records
	 * below head are visible before we read them.
	 */
	uint64_t head = pebs_load_acquire(&ring->pg->data_head);

	if (head == ring->start)
		return -EAGAIN;
	if (head - ring->start > ring->size) {
		uint64_t ahead = head - ring->start;

		ring->stats.bad++;
		ring->start = ring->end = head;
		pebs_ring__consume(ring);
		return core_err(-EBADMSG,
				"corrupt ring: data_head is %llu bytes ahead of data_tail in a %llu-byte ring; skipped to head",
				(unsigned long long)ahead,
				(unsigned long long)ring->size);
	}
	ring->end = head;
	return 0;
}

/* copy @len bytes at free-running position @pos, which may wrap */
static void copy_out(const struct pebs_ring *ring, void *dst, uint64_t pos,
		     size_t len)
{
	uint64_t off = pos & ring->mask;
	size_t first = ring->size - off;

	if (first >= len) {
		memcpy(dst, ring->data + off, len);
	} else {
		memcpy(dst, ring->data + off, first);
		memcpy((unsigned char *)dst + first, ring->data, len - first);
	}
}

static int corrupt(struct pebs_ring *ring, unsigned int size,
		   uint64_t avail)
{
	ring->stats.bad++;
	ring->start = ring->end;
	return core_err(-EBADMSG,
			"corrupt ring record: size %u with %llu bytes published in a %llu-byte ring; skipped to head",
			size, (unsigned long long)avail,
			(unsigned long long)ring->size);
}

/*
 * Account LOST and THROTTLE records. @h is a copy of the header of @rec
 * (which need not be aligned).
 */
static void count(struct pebs_ring *ring, const struct perf_event_header *h,
		  const unsigned char *rec)
{
	uint64_t lost;

	ring->stats.records++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		ring->stats.samples++;
		break;
	case PERF_RECORD_LOST:
		/* { header; u64 id; u64 lost; sample_id } */
		ring->stats.lost_records++;
		if (h->size >= sizeof(*h) + 16) {
			memcpy(&lost, rec + sizeof(*h) + 8, sizeof(lost));
			ring->stats.lost += lost;
		}
		break;
	case PERF_RECORD_THROTTLE:
		ring->stats.throttles++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		ring->stats.unthrottles++;
		break;
	}
}

int pebs_ring__next(struct pebs_ring *ring,
		    const struct perf_event_header **ev)
{
	uint64_t avail = ring->end - ring->start;
	uint64_t off = ring->start & ring->mask;
	const struct perf_event_header *hdr;
	struct perf_event_header h;

	if (!avail)
		return 0;
	if (avail < sizeof(h))
		return corrupt(ring, 0, avail);
	/*
	 * Plain loads from here on: the acquire of data_head in
	 * __read_init ordered them, and the kernel does not write below
	 * head until we publish a tail past them.
	 */
	if (__builtin_expect(off + sizeof(h) <= ring->size, 1)) {
		hdr = (const void *)(ring->data + off);
		memcpy(&h, hdr, sizeof(h));
	} else {
		copy_out(ring, &h, ring->start, sizeof(h));
		hdr = NULL;
	}
	if (__builtin_expect(h.size < sizeof(h) || h.size > avail, 0))
		return corrupt(ring, h.size, avail);

	if (!hdr || off + h.size > ring->size) {
		copy_out(ring, ring->bounce, ring->start, h.size);
		hdr = (const void *)ring->bounce;
		ring->stats.wrapped++;
	}
	ring->start += h.size;
	count(ring, &h, (const unsigned char *)hdr);
	*ev = hdr;
	return 1;
}

void pebs_ring__consume(struct pebs_ring *ring)
{
	/*
	 * Release (barrier D of the table in kernel/events/ring_buffer.c):
	 * our reads of the records happen before the kernel may overwrite
	 * them. Pairs with A, the control dependency on the data_tail the
	 * kernel loads in __perf_output_begin() before it writes new data.
	 * The kernel comment asks for smp_mb(); only the ordering of our
	 * earlier loads before this store matters, which release gives
	 * (libperf's ring_buffer_write_tail() is a store-release too).
	 */
	pebs_store_release(&ring->pg->data_tail, ring->start);
}

const struct pebs_ring_stats *pebs_ring__stats(const struct pebs_ring *ring)
{
	return &ring->stats;
}
