// SPDX-License-Identifier: MIT
/*
 * test-ring.c - the ring reader on synthetic rings laid out as the
 * kernel lays them out: a struct perf_event_mmap_page, then a
 * power-of-two data area at data_offset; records are written at
 * head & mask (wrapping) and published by advancing data_head.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

#define PAGE 4096

struct fake {
	unsigned char *mem;	/* page + data */
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t size;
	uint64_t head;		/* producer position (unpublished) */
	struct pebs_ring *ring;
};

/* a ring of @size data bytes whose tail and head start at @pos */
static void fake_init(struct fake *f, uint64_t size, uint64_t pos)
{
	assert_int_equal(posix_memalign((void **)&f->mem, PAGE, PAGE + size), 0);
	memset(f->mem, 0, PAGE + size);
	f->pg = (void *)f->mem;
	f->data = f->mem + PAGE;
	f->size = size;
	f->pg->data_offset = PAGE;
	f->pg->data_size = size;
	f->pg->data_head = f->pg->data_tail = f->head = pos;
	assert_int_equal(pebs_ring__new(f->mem, 0, &f->ring), 0);
}

static void fake_fini(struct fake *f)
{
	pebs_ring__delete(f->ring);
	free(f->mem);
}

/* write @len bytes at the producer position, wrapping as the kernel does */
static void produce(struct fake *f, const void *rec, size_t len)
{
	for (size_t i = 0; i < len; i++)
		f->data[(f->head + i) & (f->size - 1)] =
			((const unsigned char *)rec)[i];
	f->head += len;
}

static void publish(struct fake *f)
{
	__atomic_store_n(&f->pg->data_head, f->head, __ATOMIC_RELEASE);
}

static size_t make_record(unsigned char *buf, uint32_t type, uint16_t size,
			  uint64_t fill)
{
	struct perf_event_header h = { type, 0, size };

	memcpy(buf, &h, sizeof(h));
	for (size_t i = sizeof(h); i < size; i++)
		buf[i] = (unsigned char)(fill + i);
	return size;
}

static bool in_data(const struct fake *f, const void *p)
{
	const unsigned char *c = p;

	return c >= f->data && c < f->data + f->size;
}

/*
 * A record that straddles the end of the data area, split at every byte
 * offset of its header and body: it comes back whole, from the bounce
 * buffer, and the tail published afterwards equals the head.
 */
static void test_wrap_every_offset(void **state)
{
	static const uint16_t sizes[] = { 8, 16, 72, 200 };

	(void)state;
	for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
		uint16_t len = sizes[si];

		for (uint16_t k = 0; k <= len; k++) {
			unsigned char rec[256], got[256];
			const struct perf_event_header *ev;
			struct fake f;

			/* k bytes fit before the end; a lap in, too */
			fake_init(&f, 1024, 3 * 1024 + 1024 - k);
			make_record(rec, PERF_RECORD_MMAP2, len, k);
			produce(&f, rec, len);
			publish(&f);
			assert_int_equal(pebs_ring__read_init(f.ring), 0);
			assert_int_equal(pebs_ring__next(f.ring, &ev), 1);
			memcpy(got, ev, len);
			assert_memory_equal(got, rec, len);
			if (k == 0 || k == len) {
				assert_true(in_data(&f, ev));	/* zero copy */
				assert_int_equal(pebs_ring__stats(f.ring)->wrapped, 0);
			} else {
				assert_false(in_data(&f, ev));
				assert_int_equal(pebs_ring__stats(f.ring)->wrapped, 1);
			}
			assert_int_equal(pebs_ring__next(f.ring, &ev), 0);
			pebs_ring__consume(f.ring);
			assert_int_equal(f.pg->data_tail, f.head);
			assert_int_equal(pebs_ring__read_init(f.ring), -EAGAIN);
			fake_fini(&f);
		}
	}
}

/* a PEBS-like sample split at every offset decodes to the same values */
static void test_wrap_decode(void **state)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT_STRUCT |
			PERF_SAMPLE_DATA_SRC,
	};
	uint64_t rec[9] = { 0, 42, 0x401000, 0x100000000ULL * 7 + 5,
			    123456789, 0xdead000, 3, 0x0005000400000120ULL,
			    0x68100142 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, sizeof(rec) };
	struct pebs_sample_layout l;

	(void)state;
	memcpy(rec, &h, sizeof(h));
	assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
	for (unsigned int k = 0; k <= sizeof(rec); k++) {
		const struct perf_event_header *ev;
		struct pebs_sample s;
		struct fake f;

		fake_init(&f, 4096, 4096 - k);
		produce(&f, rec, sizeof(rec));
		publish(&f);
		assert_int_equal(pebs_ring__read_init(f.ring), 0);
		assert_int_equal(pebs_ring__next(f.ring, &ev), 1);
		assert_int_equal(pebs_sample__decode(&l, ev, &s), 0);
		assert_int_equal(s.id, 42);
		assert_int_equal(s.ip, 0x401000);
		assert_int_equal(s.pid, 5);
		assert_int_equal(s.tid, 7);
		assert_int_equal(s.time, 123456789);
		assert_int_equal(s.addr, 0xdead000);
		assert_int_equal(s.cpu, 3);
		assert_int_equal(s.weight, 0x120);
		assert_int_equal(s.weight2, 4);
		assert_int_equal(s.weight3, 5);
		assert_int_equal(s.data_src, 0x68100142);
		pebs_ring__consume(f.ring);
		fake_fini(&f);
	}
}

/* a sample with variable-size fields (CALLCHAIN, RAW) split everywhere */
static void test_wrap_decode_variable(void **state)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC,
	};
	/* header, id, ip, nr=3, ips[3], raw size 12 + 12 bytes, weight, ds */
	unsigned char rec[8 + 8 + 8 + 8 + 24 + 16 + 8 + 8];
	uint64_t v[] = { 7, 0x401000, 3, 0xa1, 0xa2, 0xa3 };
	uint32_t raw_size = 12;
	uint64_t tail[] = { 321, 0x68100142 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, sizeof(rec) };
	struct pebs_sample_layout l;

	(void)state;
	memcpy(rec, &h, 8);
	memcpy(rec + 8, v, sizeof(v));
	memcpy(rec + 56, &raw_size, 4);
	memcpy(rec + 60, "twelve bytes", 12);
	memcpy(rec + 72, tail, sizeof(tail));
	assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
	assert_int_equal(l.fixed_size, 0);
	for (unsigned int k = 0; k <= sizeof(rec); k++) {
		const struct perf_event_header *ev;
		struct pebs_sample s;
		uint64_t ip2;
		struct fake f;

		fake_init(&f, 512, 5 * 512 - k);
		produce(&f, rec, sizeof(rec));
		publish(&f);
		assert_int_equal(pebs_ring__read_init(f.ring), 0);
		assert_int_equal(pebs_ring__next(f.ring, &ev), 1);
		assert_int_equal(pebs_sample__decode(&l, ev, &s), 0);
		assert_int_equal(s.id, 7);
		assert_int_equal(s.ip, 0x401000);
		assert_int_equal(s.callchain_nr, 3);
		memcpy(&ip2, s.callchain + 2, 8);
		assert_int_equal(ip2, 0xa3);
		assert_int_equal(s.raw_size, 12);
		assert_memory_equal(s.raw, "twelve bytes", 12);
		assert_int_equal(s.weight, 321);
		assert_int_equal(s.data_src, 0x68100142);
		pebs_ring__consume(f.ring);
		assert_int_equal(f.pg->data_tail, f.head);
		fake_fini(&f);
	}
}

/*
 * Many laps: records of varying sizes (8-byte multiples, as the kernel
 * writes) produced in batches; every one is read once, in order, in one
 * pass per snapshot, and the tail follows the head.
 */
static void test_stream(void **state)
{
	struct fake f;
	uint64_t produced = 0, consumed = 0, seq_next = 0;

	(void)state;
	fake_init(&f, 4096, 0);
	for (int batch = 0; batch < 500; batch++) {
		const struct perf_event_header *ev;
		int n;

		/* fill up to what the reader has freed */
		for (;;) {
			uint16_t len = 16 + 8 * ((produced * 7 + batch) % 30);
			unsigned char rec[256];

			if (f.head + len - f.pg->data_tail > f.size)
				break;
			make_record(rec, PERF_RECORD_SAMPLE, len, 0);
			memcpy(rec + 8, &produced, 8);
			produce(&f, rec, len);
			produced++;
			if (produced % (batch % 5 + 1) == 0)
				break;
		}
		publish(&f);
		if (pebs_ring__read_init(f.ring) == -EAGAIN)
			continue;
		while ((n = pebs_ring__next(f.ring, &ev)) > 0) {
			uint64_t seq;

			memcpy(&seq, (const unsigned char *)ev + 8, 8);
			assert_int_equal(seq, seq_next);
			seq_next++;
			consumed++;
		}
		assert_int_equal(n, 0);
		pebs_ring__consume(f.ring);
		assert_int_equal(f.pg->data_tail, f.head);
	}
	assert_int_equal(consumed, produced);
	assert_true(f.head > 20 * f.size);	/* it did lap */
	assert_true(pebs_ring__stats(f.ring)->wrapped > 0);
	assert_int_equal(pebs_ring__stats(f.ring)->samples, produced);
	fake_fini(&f);
}

/* publish, read a snapshot whose records are of @types in order: how many */
static size_t read_types(struct fake *f, const uint32_t *types)
{
	const struct perf_event_header *ev;
	size_t n = 0;

	publish(f);
	assert_int_equal(pebs_ring__read_init(f->ring), 0);
	while (pebs_ring__next(f->ring, &ev) > 0) {
		struct perf_event_header c;

		memcpy(&c, ev, sizeof(c));
		assert_int_equal(c.type, types[n++]);
	}
	pebs_ring__consume(f->ring);
	return n;
}

/* LOST, THROTTLE, UNTHROTTLE are counted; every record is passed on */
static void test_accounting(void **state)
{
	static const uint32_t types[] = {
		PERF_RECORD_COMM, PERF_RECORD_MMAP2, PERF_RECORD_LOST,
		PERF_RECORD_SAMPLE, PERF_RECORD_THROTTLE, PERF_RECORD_SWITCH,
		PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_LOST,
		PERF_RECORD_UNTHROTTLE, PERF_RECORD_EXIT, PERF_RECORD_THROTTLE,
		PERF_RECORD_FORK,
	};
	const struct pebs_ring_stats *st;
	uint64_t lost = 0;
	struct fake f;
	size_t i = 0;

	(void)state;
	fake_init(&f, 256, 100);	/* records wrap too */
	for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
		/* LOST: { header; u64 id; u64 lost; sample_id (u64 time) } */
		uint64_t rec[4] = { 0, 99, 1000 + t, 5 };
		struct perf_event_header h = { types[t], 0, sizeof(rec) };

		memcpy(rec, &h, sizeof(h));
		if (types[t] == PERF_RECORD_LOST)
			lost += 1000 + t;
		produce(&f, rec, sizeof(rec));
		if (t == 5)	/* two snapshots */
			i += read_types(&f, types + i);
	}
	i += read_types(&f, types + i);
	assert_int_equal(i, ARRAY_SIZE(types));
	st = pebs_ring__stats(f.ring);
	assert_int_equal(st->records, ARRAY_SIZE(types));
	assert_int_equal(st->samples, 1);
	assert_int_equal(st->lost_records, 2);
	assert_int_equal(st->lost, lost);
	assert_int_equal(st->throttles, 2);
	assert_int_equal(st->unthrottles, 1);
	assert_int_equal(st->bad, 0);
	assert_int_equal(f.pg->data_tail, f.head);
	fake_fini(&f);
}

/*
 * Corrupt sizes: 0, 4 (smaller than the header), more than was
 * published, more than the ring. Each is -EBADMSG once, the reader
 * skips to the head (no hang, no read outside the data area: ASan), and
 * the next snapshot reads normally.
 */
static void test_corrupt(void **state)
{
	static const uint16_t bad[] = { 0, 4, 7, 1024, 4096, 65528 };

	(void)state;
	for (size_t b = 0; b < ARRAY_SIZE(bad); b++) {
		for (uint64_t start = 1000; start < 1024 + 8; start += 4) {
			const struct perf_event_header *ev;
			unsigned char rec[64];
			struct perf_event_header h = { PERF_RECORD_SAMPLE, 0,
						       bad[b] };
			struct fake f;
			int n, calls = 0;

			fake_init(&f, 1024, start);
			make_record(rec, PERF_RECORD_COMM, 32, 1);
			produce(&f, rec, 32);		/* a good one first */
			produce(&f, &h, sizeof(h));	/* then the bad header */
			produce(&f, rec, 24);		/* and some bytes */
			publish(&f);
			assert_int_equal(pebs_ring__read_init(f.ring), 0);
			assert_int_equal(pebs_ring__next(f.ring, &ev), 1);
			while ((n = pebs_ring__next(f.ring, &ev)) > 0)
				assert_true(++calls < 10);
			assert_int_equal(n, -EBADMSG);
			assert_true(strstr(pebs_errmsg(), "corrupt") != NULL);
			assert_int_equal(pebs_ring__next(f.ring, &ev), 0);
			pebs_ring__consume(f.ring);
			assert_int_equal(f.pg->data_tail, f.head);
			assert_int_equal(pebs_ring__stats(f.ring)->bad, 1);

			/* the ring goes on */
			produce(&f, rec, 32);
			publish(&f);
			assert_int_equal(pebs_ring__read_init(f.ring), 0);
			assert_int_equal(pebs_ring__next(f.ring, &ev), 1);
			assert_int_equal(pebs_ring__next(f.ring, &ev), 0);
			pebs_ring__consume(f.ring);
			assert_int_equal(f.pg->data_tail, f.head);
			fake_fini(&f);
		}
	}
}

/* fewer than 8 bytes published after a record: corrupt, not a hang */
static void test_short_tail(void **state)
{
	const struct perf_event_header *ev;
	struct fake f;

	(void)state;
	fake_init(&f, 1024, 0);
	f.head = 4;
	publish(&f);
	assert_int_equal(pebs_ring__read_init(f.ring), 0);
	assert_int_equal(pebs_ring__next(f.ring, &ev), -EBADMSG);
	assert_int_equal(pebs_ring__next(f.ring, &ev), 0);
	pebs_ring__consume(f.ring);
	assert_int_equal(f.pg->data_tail, 4);
	fake_fini(&f);
}

/* a head more than a ring ahead of the tail */
static void test_head_overrun(void **state)
{
	struct fake f;

	(void)state;
	fake_init(&f, 1024, 0);
	f.head = 1024 + 8;
	publish(&f);
	assert_int_equal(pebs_ring__read_init(f.ring), -EBADMSG);
	assert_int_equal(f.pg->data_tail, 1024 + 8);
	assert_int_equal(pebs_ring__read_init(f.ring), -EAGAIN);
	assert_int_equal(pebs_ring__stats(f.ring)->bad, 1);
	fake_fini(&f);
}

/* data_offset/data_size 0 (kernels before 4.1): one page on, given size */
static void test_legacy_page(void **state)
{
	const struct perf_event_header *ev;
	unsigned char *mem = NULL;
	struct perf_event_mmap_page *pg;
	struct pebs_ring *ring;
	unsigned char rec[16];

	(void)state;
	assert_int_equal(posix_memalign((void **)&mem, PAGE, PAGE + 2048), 0);
	pg = (void *)mem;
	memset(mem, 0, PAGE + 2048);
	make_record(rec, PERF_RECORD_EXIT, 16, 3);
	memcpy(mem + PAGE + 2040, rec, 8);	/* wraps at 2048 */
	memcpy(mem + PAGE, rec + 8, 8);
	pg->data_tail = 2040;
	pg->data_head = 2056;
	assert_int_equal(pebs_ring__new(mem, 2048, &ring), 0);
	assert_int_equal(pebs_ring__read_init(ring), 0);
	assert_int_equal(pebs_ring__next(ring, &ev), 1);
	assert_memory_equal(ev, rec, 16);
	pebs_ring__consume(ring);
	assert_int_equal(pg->data_tail, 2056);
	pebs_ring__delete(ring);

	assert_int_equal(pebs_ring__new(mem, 3000, &ring), -EINVAL);
	assert_int_equal(pebs_ring__new(mem, 0, &ring), -EINVAL);
	pg->data_offset = PAGE;
	pg->data_size = 1000;	/* not a power of two */
	assert_int_equal(pebs_ring__new(mem, 2048, &ring), -EINVAL);
	free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_every_offset),
		cmocka_unit_test(test_wrap_decode),
		cmocka_unit_test(test_wrap_decode_variable),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_accounting),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_short_tail),
		cmocka_unit_test(test_head_overrun),
		cmocka_unit_test(test_legacy_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
