// SPDX-License-Identifier: MIT
/*
 * test-sample.c - PERF_RECORD_SAMPLE decoding against records built here
 * in the kernel's field order (perf_output_sample()), for every subset of
 * the fixed-size fields and every subset of the variable-size ones (and
 * the user registers and stack found in them: pebs_sample__user), plus
 * truncations (-EBADMSG) and the trailing sample_id of other records.
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

/* the fixed-size fields, in record order */
static const uint64_t fixed_bits[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
	PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
	PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
	PERF_SAMPLE_WEIGHT, PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_TRANSACTION,
	PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_DATA_PAGE_SIZE,
};

/* the fields whose size the attr or the record gives */
static const uint64_t var_bits[] = {
	PERF_SAMPLE_READ, PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW,
	PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_REGS_USER,
	PERF_SAMPLE_STACK_USER, PERF_SAMPLE_REGS_INTR, PERF_SAMPLE_CGROUP,
	PERF_SAMPLE_CODE_PAGE_SIZE, PERF_SAMPLE_AUX,
};

struct builder {
	unsigned char buf[2048];
	size_t len;
	uint64_t seq;		/* distinct values */
};

static void put(struct builder *b, const void *p, size_t n)
{
	assert_true(b->len + n <= sizeof(b->buf));
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static uint64_t put64(struct builder *b)
{
	uint64_t v = 0x1000000000000000ULL + ++b->seq * 0x10001ULL;

	put(b, &v, 8);
	return v;
}

static void put_u64(struct builder *b, uint64_t v)
{
	put(b, &v, 8);
}

/*
 * Build a sample for @attr into @b, the values it should decode to in
 * @want. The variable-size parts use @variant to pick their shape.
 */
/* the user registers and stack the last build() put (pebs_sample__user) */
static struct pebs_sample_user want_user;

static void build(struct builder *b, const struct perf_event_attr *attr,
		  int variant, struct pebs_sample *want)
{
	uint64_t st = attr->sample_type;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };

	memset(want, 0, sizeof(*want));
	memset(&want_user, 0, sizeof(want_user));
	b->len = 0;
	put(b, &h, sizeof(h));
	if (st & PERF_SAMPLE_IDENTIFIER)
		want->id = put64(b);
	if (st & PERF_SAMPLE_IP)
		want->ip = put64(b);
	if (st & PERF_SAMPLE_TID) {
		uint32_t t[2] = { 1000 + b->seq, 2000 + b->seq };

		b->seq++;
		put(b, t, 8);
		want->pid = t[0];
		want->tid = t[1];
	}
	if (st & PERF_SAMPLE_TIME)
		want->time = put64(b);
	if (st & PERF_SAMPLE_ADDR)
		want->addr = put64(b);
	if (st & PERF_SAMPLE_ID)
		want->id = put64(b);
	if (st & PERF_SAMPLE_STREAM_ID)
		want->stream_id = put64(b);
	if (st & PERF_SAMPLE_CPU) {
		uint32_t c[2] = { 7 + b->seq++, 0xdeadbeef };

		put(b, c, 8);
		want->cpu = c[0];
	}
	if (st & PERF_SAMPLE_PERIOD)
		want->period = put64(b);
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = attr->read_format;

		if (rf & PERF_FORMAT_GROUP) {
			uint64_t nr = 1 + variant % 3;

			put_u64(b, nr);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				put64(b);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				put64(b);
			for (uint64_t i = 0; i < nr; i++) {
				put64(b);
				if (rf & PERF_FORMAT_ID)
					put64(b);
			}
		} else {
			put64(b);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				put64(b);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				put64(b);
			if (rf & PERF_FORMAT_ID)
				put64(b);
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = variant % 4;

		put_u64(b, nr);
		want->callchain_nr = nr;
		want->callchain = (const uint64_t *)(b->buf + b->len);
		for (uint64_t i = 0; i < nr; i++)
			put64(b);
	}
	if (st & PERF_SAMPLE_RAW) {
		/* u32 size + data, padded so the whole is u64 aligned */
		uint32_t size = variant & 1 ? 12 : 4;
		unsigned char raw[12] = "raw-payload";

		put(b, &size, 4);
		want->raw_size = size;
		want->raw = b->buf + b->len;
		put(b, raw, size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = variant % 3;

		put_u64(b, nr);
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			put64(b);
		for (uint64_t i = 0; i < 3 * nr; i++)
			put64(b);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = variant & 1 ? PERF_SAMPLE_REGS_ABI_64 : 0;

		put_u64(b, abi);
		if (abi) {
			want_user.abi = abi;
			want_user.mask = attr->sample_regs_user;
			want_user.regs = b->buf + b->len;
		}
		for (int i = 0; abi && i < __builtin_popcountll(attr->sample_regs_user); i++)
			put64(b);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size = variant & 2 ? 24 : 0;

		put_u64(b, size);
		if (size) {
			want_user.stack = b->buf + b->len;
			want_user.stack_size = size - 8;
		}
		for (uint64_t i = 0; i < size / 8; i++)
			put64(b);
		if (size)
			put_u64(b, size - 8);	/* dyn_size */
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE) {
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			uint32_t w1 = 300 + b->seq;
			uint16_t w2 = 40 + b->seq, w3 = 5 + b->seq;

			b->seq++;
			put(b, &w1, 4);
			put(b, &w2, 2);
			put(b, &w3, 2);
			want->weight = w1;
			want->weight2 = w2;
			want->weight3 = w3;
		} else {
			want->weight = put64(b);
		}
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		want->data_src = put64(b);
	if (st & PERF_SAMPLE_TRANSACTION)
		want->transaction = put64(b);
	if (st & PERF_SAMPLE_REGS_INTR) {
		uint64_t abi = variant & 2 ? PERF_SAMPLE_REGS_ABI_64 : 0;

		put_u64(b, abi);
		for (int i = 0; abi && i < __builtin_popcountll(attr->sample_regs_intr); i++)
			put64(b);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		want->phys_addr = put64(b);
	if (st & PERF_SAMPLE_CGROUP)
		want->cgroup = put64(b);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		want->data_page_size = put64(b);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		want->code_page_size = put64(b);
	if (st & PERF_SAMPLE_AUX) {
		uint64_t size = variant & 1 ? 16 : 0;

		put_u64(b, size);
		for (uint64_t i = 0; i < size / 8; i++)
			put64(b);
	}
	h.size = b->len;
	memcpy(b->buf, &h, sizeof(h));
	want->present = st & ~(uint64_t)(PERF_SAMPLE_READ |
		PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
		PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR |
		PERF_SAMPLE_AUX);
}

static void assert_sample_eq(const struct pebs_sample *a,
			     const struct pebs_sample *b)
{
	assert_int_equal(a->present, b->present);
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->ip, b->ip);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->tid, b->tid);
	assert_int_equal(a->time, b->time);
	assert_int_equal(a->addr, b->addr);
	assert_int_equal(a->stream_id, b->stream_id);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->period, b->period);
	assert_int_equal(a->weight, b->weight);
	assert_int_equal(a->weight2, b->weight2);
	assert_int_equal(a->weight3, b->weight3);
	assert_int_equal(a->data_src, b->data_src);
	assert_int_equal(a->transaction, b->transaction);
	assert_int_equal(a->phys_addr, b->phys_addr);
	assert_int_equal(a->cgroup, b->cgroup);
	assert_int_equal(a->data_page_size, b->data_page_size);
	assert_int_equal(a->code_page_size, b->code_page_size);
	assert_int_equal(a->callchain_nr, b->callchain_nr);
	assert_ptr_equal(a->callchain, b->callchain);
	assert_int_equal(a->raw_size, b->raw_size);
	assert_ptr_equal(a->raw, b->raw);
}

/* decode @attr's record in every shape, and every truncation of it */
/* pebs_sample__user finds the registers and stack build() put */
static void check_user(const struct pebs_sample_layout *l,
		       const struct perf_event_attr *attr,
		       const struct perf_event_header *ev)
{
	struct pebs_sample_user u;

	memset(&u, 0xa5, sizeof(u));
	assert_int_equal(pebs_sample__user(l, attr->sample_regs_user, ev, &u),
			 0);
	assert_int_equal(u.abi, want_user.abi);
	assert_int_equal(u.mask, want_user.mask);
	assert_ptr_equal(u.regs, want_user.regs);
	assert_int_equal(u.stack_size, want_user.stack_size);
	assert_ptr_equal(u.stack, want_user.stack);
	/* another mask's weight is not this layout's */
	if (attr->sample_regs_user)
		assert_int_equal(pebs_sample__user(l,
				attr->sample_regs_user << 1 | 1, ev, &u),
				-EINVAL);
}

static void check_attr(const struct perf_event_attr *attr, int variants,
		       bool truncations)
{
	static struct builder b;
	struct pebs_sample_layout l;
	struct pebs_sample want, got;
	struct pebs_sample_user u;
	const struct perf_event_header *ev = (const void *)b.buf;

	assert_int_equal(pebs_sample_layout__init(&l, attr), 0);
	for (int v = 0; v < variants; v++) {
		build(&b, attr, v, &want);
		memset(&got, 0xa5, sizeof(got));
		assert_int_equal(pebs_sample__decode(&l, ev, &got), 0);
		assert_sample_eq(&got, &want);
		check_user(&l, attr, ev);
		if (!(attr->sample_type & (PERF_SAMPLE_READ |
			PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_REGS_INTR))) {
			/* the sample_type-only API agrees */
			assert_int_equal(pebs_sample__parse(ev, attr->sample_type,
							    &got), 0);
			assert_sample_eq(&got, &want);
		}
		if (!truncations)
			continue;
		/*
		 * Every shorter record (as a kernel would never write), in
		 * a buffer of exactly that size so that ASan sees any read
		 * past the record's end.
		 */
		for (size_t cut = 8; cut <= b.len - 8; cut += 8) {
			struct perf_event_header h = { PERF_RECORD_SAMPLE, 0,
						       b.len - cut };
			unsigned char *t = malloc(h.size);

			assert_non_null(t);
			memcpy(t, b.buf, h.size);
			memcpy(t, &h, sizeof(h));
			assert_int_equal(pebs_sample__decode(&l, (const void *)t,
							     &got), -EBADMSG);
			assert_int_equal(pebs_sample__user(&l,
				attr->sample_regs_user, (const void *)t, &u),
				-EBADMSG);
			free(t);
		}
	}
}

/* every subset of the fixed-size fields, WEIGHT or WEIGHT_STRUCT */
static void test_fixed_subsets(void **state)
{
	(void)state;
	for (unsigned int m = 0; m < 1u << ARRAY_SIZE(fixed_bits); m++) {
		struct perf_event_attr attr = { .size = sizeof(attr) };

		for (size_t i = 0; i < ARRAY_SIZE(fixed_bits); i++)
			if (m & (1u << i))
				attr.sample_type |= fixed_bits[i];
		check_attr(&attr, 1, m % 7 == 0);
		if (attr.sample_type & PERF_SAMPLE_WEIGHT) {
			attr.sample_type ^= PERF_SAMPLE_WEIGHT |
					    PERF_SAMPLE_WEIGHT_STRUCT;
			check_attr(&attr, 1, m % 7 == 0);
		}
	}
}

/* every subset of the variable-size fields, around a few fixed sets */
static void test_variable_subsets(void **state)
{
	static const uint64_t around[] = {
		0,
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT_STRUCT |
		PERF_SAMPLE_DATA_SRC,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_PERIOD |
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_TRANSACTION |
		PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE,
	};
	static const uint64_t read_formats[] = {
		0,
		PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED,
		PERF_FORMAT_GROUP | PERF_FORMAT_ID |
		PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	(void)state;
	for (size_t a = 0; a < ARRAY_SIZE(around); a++) {
		for (unsigned int m = 0; m < 1u << ARRAY_SIZE(var_bits); m++) {
			struct perf_event_attr attr = {
				.size = sizeof(attr),
				.sample_type = around[a],
				.read_format = read_formats[m % 3],
				.sample_regs_user = 0x1ff,
				.sample_regs_intr = 0xf0f0,
				.branch_sample_type = m & 4 ?
					PERF_SAMPLE_BRANCH_HW_INDEX : 0,
			};

			for (size_t i = 0; i < ARRAY_SIZE(var_bits); i++)
				if (m & (1u << i))
					attr.sample_type |= var_bits[i];
			check_attr(&attr, 4, m % 5 == 0);
		}
	}
}

/* the fast path is taken exactly when every field has a fixed size */
static void test_layout(void **state)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC,
	};
	struct pebs_sample_layout l;

	(void)state;
	assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
	assert_int_equal(l.fixed_size, 8 + 7 * 8);
	assert_int_equal(l.id_size, 24);
	attr.sample_type |= PERF_SAMPLE_READ;
	attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
	assert_int_equal(l.read_size, 24);
	assert_int_equal(l.fixed_size, 8 + 7 * 8 + 24);
	attr.read_format |= PERF_FORMAT_GROUP;
	assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
	assert_int_equal(l.fixed_size, 0);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
	assert_int_equal(l.fixed_size, 0);
}

static void test_unsupported(void **state)
{
	unsigned char buf[64] = { 0 };
	const struct perf_event_header *ev = (const void *)buf;
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_MAX };
	struct pebs_sample_layout l;
	struct pebs_sample s;

	(void)state;
	((struct perf_event_header *)buf)->size = sizeof(buf);
	assert_int_equal(pebs_sample_layout__init(&l, &attr), -EOPNOTSUPP);
	attr.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
	assert_int_equal(pebs_sample_layout__init(&l, &attr), -EOPNOTSUPP);
	attr.sample_type = PERF_SAMPLE_READ;
	attr.read_format = 1ULL << 20;
	assert_int_equal(pebs_sample_layout__init(&l, &attr), -EOPNOTSUPP);
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_MAX;
	assert_int_equal(pebs_sample_layout__init(&l, &attr), -EOPNOTSUPP);
	/* sizes that need the attr cannot be decoded from sample_type */
	assert_int_equal(pebs_sample__parse(ev, PERF_SAMPLE_READ, &s),
			 -EOPNOTSUPP);
	assert_int_equal(pebs_sample__parse(ev, PERF_SAMPLE_REGS_USER, &s),
			 -EOPNOTSUPP);
	assert_int_equal(pebs_sample__parse(ev, PERF_SAMPLE_IP |
					    PERF_SAMPLE_BRANCH_STACK, &s),
			 -EOPNOTSUPP);
	assert_int_equal(pebs_sample__parse(ev, PERF_SAMPLE_IP, &s), 0);
	assert_true(strlen(pebs_errmsg()) > 0);
}

/* huge length fields must not wrap the bounds checks */
static void test_huge_lengths(void **state)
{
	static const uint64_t types[] = {
		PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_STACK_USER, PERF_SAMPLE_AUX,
		PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_READ,
	};
	uint64_t buf[8];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, sizeof(buf) };
	struct pebs_sample s;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		struct perf_event_attr attr = {
			.sample_type = types[i],
			.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID,
		};
		struct pebs_sample_layout l;
		static const uint64_t huge[] = { UINT64_MAX, UINT64_MAX / 3 + 1,
						 UINT64_MAX / 8 + 1, 1ULL << 61 };

		assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
		for (size_t j = 0; j < ARRAY_SIZE(huge); j++) {
			for (size_t k = 1; k < 8; k++)
				buf[k] = huge[j];
			memcpy(buf, &h, sizeof(h));
			assert_int_equal(pebs_sample__decode(&l, (const void *)buf,
							     &s), -EBADMSG);
		}
	}
	/* RAW: a u32 size past the end */
	memset(buf, 0xff, sizeof(buf));
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(pebs_sample__parse((const void *)buf, PERF_SAMPLE_RAW,
					    &s), -EBADMSG);
}

/* the sample_id at the END of a non-sample record */
static void test_sample_id(void **state)
{
	static const uint64_t id_bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};

	(void)state;
	for (unsigned int m = 0; m < 1u << ARRAY_SIZE(id_bits); m++) {
		/* a COMM record: pid, tid, "comm\0\0\0\0", then sample_id */
		struct builder b = { .len = 0 };
		struct perf_event_header h = { PERF_RECORD_COMM, 0, 0 };
		uint32_t pt[2] = { 11, 12 };
		struct pebs_sample want = { 0 }, got;
		struct perf_event_attr attr = { 0 };
		struct pebs_sample_layout l;

		put(&b, &h, sizeof(h));
		put(&b, pt, 8);
		put(&b, "comm\0\0\0", 8);
		for (size_t i = 0; i < ARRAY_SIZE(id_bits); i++) {
			if (!(m & (1u << i)))
				continue;
			attr.sample_type |= id_bits[i];
			switch (id_bits[i]) {
			case PERF_SAMPLE_TID: {
				uint32_t t[2] = { 77, 78 };

				put(&b, t, 8);
				want.pid = 77;
				want.tid = 78;
				break;
			}
			case PERF_SAMPLE_TIME:
				want.time = put64(&b);
				break;
			case PERF_SAMPLE_ID:
			case PERF_SAMPLE_IDENTIFIER:
				want.id = put64(&b);
				break;
			case PERF_SAMPLE_STREAM_ID:
				want.stream_id = put64(&b);
				break;
			case PERF_SAMPLE_CPU: {
				uint32_t c[2] = { 3, 0 };

				put(&b, c, 8);
				want.cpu = 3;
				break;
			}
			}
		}
		/* fields outside sample_id must not matter */
		attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
				    PERF_SAMPLE_WEIGHT;
		want.present = attr.sample_type & ~(uint64_t)(PERF_SAMPLE_IP |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT);
		h.size = b.len;
		memcpy(b.buf, &h, sizeof(h));
		assert_int_equal(pebs_sample_layout__init(&l, &attr), 0);
		assert_int_equal(pebs_sample__decode_id(&l, (const void *)b.buf,
							&got), 0);
		assert_sample_eq(&got, &want);
		assert_int_equal(pebs_sample__parse_id((const void *)b.buf,
						       attr.sample_type, &got), 0);
		assert_sample_eq(&got, &want);
		/* a record too short for its sample_id */
		h.size = 8 + l.id_size - 8;
		if (l.id_size) {
			memcpy(b.buf, &h, sizeof(h));
			assert_int_equal(pebs_sample__decode_id(&l,
					(const void *)b.buf, &got), -EBADMSG);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_subsets),
		cmocka_unit_test(test_variable_subsets),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_huge_lengths),
		cmocka_unit_test(test_sample_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
