// SPDX-License-Identifier: MIT
/*
 * fuzz-sample.c - libFuzzer target for the record decoders: the sample
 * decoder (pebs_sample__decode, __decode_id) with an attr taken from the
 * input, the ring reader walking the input as the contents of a ring,
 * the objects' ring (lib/record/objects-ring.h: what a command preloaded
 * by record --objects writes) read the same way, each record made a
 * sample (rec_objects_sample), and the data_src decoder.
 *
 * Input: 40 bytes of attr (sample_type, read_format, branch_sample_type,
 * sample_regs_user, sample_regs_intr), then the record bytes. The record
 * is copied into a buffer of exactly its size, so that ASan catches any
 * read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim.h"
#include "record/record-int.h"
#include "record/objects-ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RING 4096

static void fuzz_ring(const uint8_t *data, size_t size, uint64_t tail)
{
	static unsigned char mem[4096 + RING] __attribute__((aligned(4096)));
	struct perf_event_mmap_page *pg = (void *)mem;
	const struct perf_event_header *ev;
	struct pebs_ring *ring;
	int n, guard = 0;

	if (size > RING)
		size = RING;
	memset(mem, 0, sizeof(mem));
	pg->data_offset = 4096;
	pg->data_size = RING;
	/* the input starts at @tail, so records wrap */
	for (size_t i = 0; i < size; i++)
		mem[4096 + ((tail + i) & (RING - 1))] = data[i];
	pg->data_tail = tail;
	pg->data_head = tail + size;
	if (pebs_ring__new(mem, 0, &ring))
		abort();
	if (pebs_ring__read_init(ring) == 0) {
		while ((n = pebs_ring__next(ring, &ev)) > 0) {
			struct perf_event_header h;

			memcpy(&h, ev, sizeof(h));	/* may be unaligned */
			if (h.size < 8 || h.size > size || ++guard > RING)
				abort();
		}
		pebs_ring__consume(ring);
		if (pg->data_tail != tail + size)
			abort();
	}
	pebs_ring__delete(ring);
}

/* the input as an objects' ring lane's contents from @tail: every slot read
   or skipped, never past the head, in a bounded number of steps */
static void fuzz_objring(const uint8_t *data, size_t size, uint64_t tail)
{
	static unsigned char mem[PSO_LANE_HDR + RING]
		__attribute__((aligned(4096)));
	struct pso_lane *r = (void *)mem;
	uint64_t buf[PSO_SLOT_MAX / 8], out[REC_OBJ_SAMPLE_MAX / 8];
	uint64_t head;
	struct pso_slot s;
	int guard = 0;

	if (size > RING)
		size = RING;
	memset(mem, 0, sizeof(mem));
	r->size = RING;
	for (size_t i = 0; i < size; i++)
		mem[PSO_LANE_HDR + ((tail + i) & (RING - 1))] = data[i];
	head = r->head = tail + size;
	while (tail < head) {
		switch (pso_lane_next(r, RING, tail, head, buf, &s)) {
		case PSO_NONE:
			abort();	/* tail < head */
		case PSO_REC:
			if (rec_objects_sample(buf, s.len - 8, out,
					       sizeof(out)) > sizeof(out))
				abort();
			tail += s.len;
			break;
		case PSO_BUSY:
		case PSO_BAD:
			tail += s.len;
			break;
		case PSO_HOLE:
			tail = pso_lane_resync(r, RING, tail);
			break;
		}
		if (tail > head || ++guard > RING)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct pebs_sample_layout l;
	struct pebs_sample s;
	struct perf_event_header h;
	struct pebs_data_src d;
	unsigned char *rec;
	char buf[128];
	size_t len;

	if (size < 40 + sizeof(h))
		return 0;
	memcpy(&attr.sample_type, data, 8);
	memcpy(&attr.read_format, data + 8, 8);
	memcpy(&attr.branch_sample_type, data + 16, 8);
	memcpy(&attr.sample_regs_user, data + 24, 8);
	memcpy(&attr.sample_regs_intr, data + 32, 8);
	/* mostly known bits, so that decoding is reached */
	if (!(attr.read_format & 0x8000))
		attr.sample_type &= PERF_SAMPLE_MAX - 1;
	attr.read_format &= 0x1f;
	attr.branch_sample_type &= PERF_SAMPLE_BRANCH_MAX - 1;

	len = size - 40;
	if (len > 65535)
		len = 65535;
	rec = malloc(len);
	if (!rec)
		return 0;
	memcpy(rec, data + 40, len);
	memcpy(&h, rec, sizeof(h));
	h.size = len;
	memcpy(rec, &h, sizeof(h));

	if (pebs_sample_layout__init(&l, &attr) == 0) {
		const struct perf_event_header *ev = (const void *)rec;

		if (pebs_sample__decode(&l, ev, &s) == 0) {
			if (s.callchain_nr && (const unsigned char *)s.callchain +
			    8 * s.callchain_nr > rec + len)
				abort();
			if (s.raw && (const unsigned char *)s.raw +
			    s.raw_size > rec + len)
				abort();
			pebs_data_src__str(s.data_src, buf, sizeof(buf));
		}
		pebs_sample__decode_id(&l, ev, &s);
	}
	pebs_sample__parse((const void *)rec, attr.sample_type, &s);
	pebs_sample__parse_id((const void *)rec, attr.sample_type, &s);
	free(rec);

	pebs_data_src__decode(attr.sample_type ^ attr.sample_regs_user, &d);
	pebs_data_src__str(attr.sample_regs_intr, buf, sizeof(buf));
	fuzz_ring(data + 40, size - 40, attr.sample_regs_user & 0xffffff);
	fuzz_objring(data + 40, size - 40, (attr.sample_regs_user & 0xffffff) * 8);
	return 0;
}
