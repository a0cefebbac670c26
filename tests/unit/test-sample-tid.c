// SPDX-License-Identifier: MIT
/*
 * test-sample-tid.c - the places of a sample's leading fields and of a
 * sample_id's fields (pebs_sample_layout__pos) and a record re-encoded
 * with PERF_SAMPLE_TID added (pebs_sample__add_tid, lib/decode/): for
 * every combination of 12 sample_type bits, the re-encoded sample is
 * byte for byte the one encoded with TID from the start (an encoder of
 * the perf ABI's order written here), and decodes to the same fields;
 * likewise every sample_id combination of a COMM record; other records
 * are copied; short records and buffers are refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

#define TGID	0x1234
#define TID	0x5678

/* the bits varied, in the perf ABI's order of a sample */
static const uint64_t bits[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
	PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD, PERF_SAMPLE_CALLCHAIN,
	PERF_SAMPLE_WEIGHT, PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_PHYS_ADDR,
};
#define NR_BITS (sizeof(bits) / sizeof(bits[0]))

static size_t put(uint8_t *p, size_t at, uint64_t v)
{
	memcpy(p + at, &v, 8);
	return at + 8;
}

/* a sample of @st: each field's value is its bit (times 3), in order */
static size_t encode_sample(uint64_t st, uint8_t *p)
{
	static const uint64_t order[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
		PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_WEIGHT,
		PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_PHYS_ADDR,
	};
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
				       .misc = PERF_RECORD_MISC_USER };
	size_t at = sizeof(h);

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i]))
			continue;
		if (order[i] == PERF_SAMPLE_TID) {
			at = put(p, at, (uint64_t)TID << 32 | TGID);
		} else if (order[i] == PERF_SAMPLE_CALLCHAIN) {
			at = put(p, at, 2);
			at = put(p, at, 0x401000);
			at = put(p, at, 0x402000);
		} else if (order[i] == PERF_SAMPLE_CPU) {
			at = put(p, at, 3);	/* cpu 3, res 0 */
		} else {
			at = put(p, at, order[i] * 3);
		}
	}
	h.size = (uint16_t)at;
	memcpy(p, &h, sizeof(h));
	return at;
}

/* a COMM record of pid 7 "walker", then the sample_id of @st */
static size_t encode_comm(uint64_t st, uint8_t *p)
{
	static const uint64_t order[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	struct perf_event_header h = { .type = PERF_RECORD_COMM };
	size_t at = sizeof(h);

	at = put(p, at, (uint64_t)7 << 32 | 7);
	memcpy(p + at, "walker\0", 8);
	at += 8;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(st & order[i]))
			continue;
		at = put(p, at, order[i] == PERF_SAMPLE_TID ?
			 (uint64_t)TID << 32 | TGID :
			 order[i] == PERF_SAMPLE_CPU ? 3 : order[i] * 3);
	}
	h.size = (uint16_t)at;
	memcpy(p, &h, sizeof(h));
	return at;
}

static void layout_of(uint64_t st, struct pebs_sample_layout *l)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = st,
				     .sample_id_all = 1 };

	assert_int_equal(pebs_sample_layout__init(l, &a), 0);
}

static void test_every_sample(void **state)
{
	uint8_t in[512], want[512], out[512];

	(void)state;
	for (unsigned int m = 0; m < 1u << NR_BITS; m++) {
		struct pebs_sample_layout l, lt;
		struct pebs_sample s;
		uint64_t st = 0;
		size_t n, nw;
		int r;

		for (size_t i = 0; i < NR_BITS; i++)
			if (m >> i & 1)
				st |= bits[i];
		layout_of(st, &l);
		layout_of(st | PERF_SAMPLE_TID, &lt);
		n = encode_sample(st, in);
		nw = encode_sample(st | PERF_SAMPLE_TID, want);
		memset(out, 0xee, sizeof(out));
		r = pebs_sample__add_tid(&l, true,
					 (struct perf_event_header *)in,
					 TGID, TID, out, sizeof(out));
		if (r != (int)nw || memcmp(out, want, nw))
			fail_msg("sample_type 0x%llx: %d bytes, want %zu "
				 "(from %zu), or other bytes",
				 (unsigned long long)st, r, nw, n);
		/* and the reader of TID samples sees the fields */
		assert_int_equal(pebs_sample__decode(&lt,
				 (struct perf_event_header *)out, &s), 0);
		assert_int_equal(s.pid, TGID);
		assert_int_equal(s.tid, TID);
		if (st & PERF_SAMPLE_ADDR)
			assert_int_equal(s.addr, PERF_SAMPLE_ADDR * 3);
		if (st & PERF_SAMPLE_CALLCHAIN)
			assert_int_equal(s.callchain_nr, 2);
		if (st & PERF_SAMPLE_PHYS_ADDR)
			assert_int_equal(s.phys_addr, PERF_SAMPLE_PHYS_ADDR * 3);
	}
}

static void test_every_sample_id(void **state)
{
	static const uint64_t id_bits[] = {
		PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
		PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
		PERF_SAMPLE_IP, PERF_SAMPLE_ADDR,	/* not in a sample_id */
	};
	uint8_t in[256], want[256], out[256];

	(void)state;
	for (unsigned int m = 0; m < 1u << 7; m++) {
		struct pebs_sample_layout l, lt;
		struct pebs_sample s;
		uint64_t st = 0;
		size_t nw;
		int r;

		for (size_t i = 0; i < 7; i++)
			if (m >> i & 1)
				st |= id_bits[i];
		layout_of(st, &l);
		layout_of(st | PERF_SAMPLE_TID, &lt);
		encode_comm(st, in);
		nw = encode_comm(st | PERF_SAMPLE_TID, want);
		r = pebs_sample__add_tid(&l, true,
					 (struct perf_event_header *)in,
					 TGID, TID, out, sizeof(out));
		if (r != (int)nw || memcmp(out, want, nw))
			fail_msg("sample_id of 0x%llx: %d bytes, want %zu",
				 (unsigned long long)st, r, nw);
		assert_int_equal(pebs_sample__decode_id(&lt,
				 (struct perf_event_header *)out, &s), 0);
		assert_int_equal(s.tid, TID);
		/* without sample_id_all the record has none: copied */
		r = pebs_sample__add_tid(&l, false,
					 (struct perf_event_header *)in,
					 TGID, TID, out, sizeof(out));
		assert_int_equal(r, ((struct perf_event_header *)in)->size);
		assert_memory_equal(out, in, r);
	}
}

static void test_pos(void **state)
{
	struct pebs_sample_layout l;

	(void)state;
	layout_of(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		  PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU, &l);
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_IDENTIFIER,
						 false), 8);
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_TIME, false),
			 32);
	/* ADDR is absent: where it would go */
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_ADDR, false),
			 40);
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_ID, false),
			 40);
	/* sample_id: TID TIME ID CPU IDENTIFIER, distances from the end */
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_TID, true),
			 40);
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_ID, true),
			 24);
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_IDENTIFIER,
						 true), 8);
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_IP, true),
			 -EINVAL);
	assert_int_equal(pebs_sample_layout__pos(&l, PERF_SAMPLE_PERIOD,
						 false), -EINVAL);
	assert_int_equal(pebs_sample_layout__pos(NULL, PERF_SAMPLE_TID, true),
			 -EINVAL);
}

static void test_refused(void **state)
{
	struct pebs_sample_layout l, lt;
	uint8_t in[256], out[256];
	struct perf_event_header *h = (struct perf_event_header *)in;
	size_t n;

	(void)state;
	layout_of(PERF_SAMPLE_IP | PERF_SAMPLE_TIME, &l);
	layout_of(PERF_SAMPLE_IP | PERF_SAMPLE_TID, &lt);
	n = encode_sample(PERF_SAMPLE_IP | PERF_SAMPLE_TIME, in);
	/* one byte short of the room the new record needs */
	assert_int_equal(pebs_sample__add_tid(&l, true, h, 1, 2, out, n + 7),
			 -ENOSPC);
	assert_int_equal(pebs_sample__add_tid(&l, true, h, 1, 2, out, n + 8),
			 (int)n + 8);
	assert_int_equal(pebs_sample__add_tid(&lt, true, h, 1, 2, out,
					      sizeof(out)), -EINVAL);
	/* a sample that ends before its TID's place */
	h->size = 8 + 4;
	assert_int_equal(pebs_sample__add_tid(&l, true, h, 1, 2, out,
					      sizeof(out)), -EBADMSG);
	/* a COMM too short for its sample_id */
	encode_comm(PERF_SAMPLE_IP | PERF_SAMPLE_TIME, in);
	h->size = 8 + 4;
	assert_int_equal(pebs_sample__add_tid(&l, true, h, 1, 2, out,
					      sizeof(out)), -EBADMSG);
	/* user records (HEADER_ATTR on) carry no sample_id: copied */
	h->type = PEBS_PERF_RECORD_HEADER_ATTR;
	h->size = 16;
	assert_int_equal(pebs_sample__add_tid(&l, true, h, 1, 2, out,
					      sizeof(out)), 16);
	assert_memory_equal(out, in, 16);
	assert_int_equal(pebs_sample__add_tid(&l, true, h, 1, 2, out, 15),
			 -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_sample),
		cmocka_unit_test(test_every_sample_id),
		cmocka_unit_test(test_pos),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
