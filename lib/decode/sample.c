// SPDX-License-Identifier: MIT
/*
 * sample.c - decode PERF_RECORD_SAMPLE and the sample_id of other records.
 *
 * The field order is the kernel's (perf_output_sample() in
 * kernel/events/core.c, and the PERF_RECORD_SAMPLE comment in
 * <linux/perf_event.h>):
 *
 *	IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD READ CALLCHAIN
 *	RAW BRANCH_STACK REGS_USER STACK_USER WEIGHT|WEIGHT_STRUCT DATA_SRC
 *	TRANSACTION REGS_INTR PHYS_ADDR CGROUP DATA_PAGE_SIZE CODE_PAGE_SIZE
 *	AUX
 *
 * pebs_sample_layout__init() computes, once per event, the offset of
 * every fixed-size field; when no variable-size field is present (the
 * PEBS case) a record is decoded with one size check and one load per
 * field. Otherwise the record is walked field by field with a bounds
 * check before every read. All loads go through memcpy: records in a
 * bounce buffer or a file need not be aligned.
 */
#include <errno.h>
#include <string.h>

#include "pebsshim/decode.h"
#include "core/internal.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

/* indexes into pebs_sample_layout.off[], in record order */
enum {
	F_IDENTIFIER, F_IP, F_TID, F_TIME, F_ADDR, F_ID, F_STREAM_ID, F_CPU,
	F_PERIOD, F_WEIGHT, F_DATA_SRC, F_TRANSACTION, F_PHYS_ADDR, F_CGROUP,
	F_DATA_PAGE_SIZE, F_CODE_PAGE_SIZE, F_NR
};
_Static_assert(F_NR <= sizeof(((struct pebs_sample_layout *)0)->off) /
	       sizeof(int16_t), "pebs_sample_layout.off is too small");

/* fields with a variable size (or a size the record itself gives) */
#define VARIABLE_BITS (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |	\
		       PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |	\
		       PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR |	\
		       PERF_SAMPLE_AUX)

/* bits whose value ends up in struct pebs_sample */
#define STORED_BITS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |		\
		     PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |	\
		     PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |	\
		     PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_TYPE |		\
		     PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |		\
		     PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |		\
		     PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |	\
		     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

/* the sample_id fields (sample_id_all) */
#define ID_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |	\
		 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |		\
		 PERF_SAMPLE_IDENTIFIER)

#define KNOWN_READ_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED |		\
			   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | \
			   PERF_FORMAT_GROUP | PERF_FORMAT_LOST)

#define F_READ (-1)	/* read_size bytes, not a field of the sample */

/*
 * The fixed-size fields in record order (kernel/events/core.c,
 * perf_output_sample). The variable-size ones (VARIABLE_BITS) stand
 * among them: a layout with any of those is walked field by field
 * (decode_walk), which uses this table up to READ.
 */
static const struct {
	uint64_t bit;
	int field;
} fixed[] = {
	{ PERF_SAMPLE_IDENTIFIER, F_IDENTIFIER },
	{ PERF_SAMPLE_IP, F_IP },
	{ PERF_SAMPLE_TID, F_TID },
	{ PERF_SAMPLE_TIME, F_TIME },
	{ PERF_SAMPLE_ADDR, F_ADDR },
	{ PERF_SAMPLE_ID, F_ID },
	{ PERF_SAMPLE_STREAM_ID, F_STREAM_ID },
	{ PERF_SAMPLE_CPU, F_CPU },
	{ PERF_SAMPLE_PERIOD, F_PERIOD },
	{ PERF_SAMPLE_READ, F_READ },
	{ PERF_SAMPLE_WEIGHT_TYPE, F_WEIGHT },
	{ PERF_SAMPLE_DATA_SRC, F_DATA_SRC },
	{ PERF_SAMPLE_TRANSACTION, F_TRANSACTION },
	{ PERF_SAMPLE_PHYS_ADDR, F_PHYS_ADDR },
	{ PERF_SAMPLE_CGROUP, F_CGROUP },
	{ PERF_SAMPLE_DATA_PAGE_SIZE, F_DATA_PAGE_SIZE },
	{ PERF_SAMPLE_CODE_PAGE_SIZE, F_CODE_PAGE_SIZE },
};

static inline uint16_t rec_size(const struct perf_event_header *ev)
{
	return ld16((const unsigned char *)ev + 6);
}

int pebs_sample_layout__init(struct pebs_sample_layout *l,
			     const struct perf_event_attr *attr)
{
	uint64_t st = attr->sample_type;
	uint32_t off = sizeof(struct perf_event_header);

	memset(l, 0, sizeof(*l));
	l->sample_type = st;	/* pebs_sample_layout__pos needs only it */
	if (st & ~(uint64_t)(PERF_SAMPLE_MAX - 1))
		return core_err(-EOPNOTSUPP,
				"sample_type 0x%llx has bits newer than this decoder: update pebs-shim",
				(unsigned long long)st);
	if ((st & PERF_SAMPLE_WEIGHT_TYPE) == PERF_SAMPLE_WEIGHT_TYPE)
		return core_err(-EOPNOTSUPP,
				"sample_type has both WEIGHT and WEIGHT_STRUCT: the kernel rejects that");
	if ((st & PERF_SAMPLE_READ) &&
	    (attr->read_format & ~(uint64_t)KNOWN_READ_FORMAT))
		return core_err(-EOPNOTSUPP,
				"read_format 0x%llx has unknown bits: update pebs-shim",
				(unsigned long long)attr->read_format);
	if ((st & PERF_SAMPLE_BRANCH_STACK) &&
	    (attr->branch_sample_type & ~(uint64_t)(PERF_SAMPLE_BRANCH_MAX - 1)))
		return core_err(-EOPNOTSUPP,
				"branch_sample_type 0x%llx has unknown bits (e.g. branch counters): update pebs-shim",
				(unsigned long long)attr->branch_sample_type);

	l->sample_type = st;
	l->read_format = attr->read_format;
	l->branch_sample_type = attr->branch_sample_type;
	l->regs_user_nr = __builtin_popcountll(attr->sample_regs_user);
	l->regs_intr_nr = __builtin_popcountll(attr->sample_regs_intr);
	if ((st & PERF_SAMPLE_READ) && !(l->read_format & PERF_FORMAT_GROUP))
		l->read_size = 8 * (1 + __builtin_popcountll(l->read_format &
			(PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
			 PERF_FORMAT_LOST)));
	l->id_size = 8 * __builtin_popcountll(st & ID_BITS);

	if (st & VARIABLE_BITS)
		return 0;
	if ((st & PERF_SAMPLE_READ) && !l->read_size)
		return 0;	/* a group read: nr is in the record */
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
		if (!(st & fixed[i].bit))
			continue;
		if (fixed[i].field == F_READ) {
			off += l->read_size;
			continue;
		}
		l->off[fixed[i].field] = off;
		off += 8;
	}
	l->fixed_size = off;
	return 0;
}

static inline void put_field(struct pebs_sample *s, int f,
			     const unsigned char *p)
{
	switch (f) {
	case F_IDENTIFIER:
	case F_ID:
		s->id = ld64(p);
		break;
	case F_IP:
		s->ip = ld64(p);
		break;
	case F_TID:
		s->pid = ld32(p);
		s->tid = ld32(p + 4);
		break;
	case F_TIME:
		s->time = ld64(p);
		break;
	case F_ADDR:
		s->addr = ld64(p);
		break;
	case F_STREAM_ID:
		s->stream_id = ld64(p);
		break;
	case F_CPU:
		s->cpu = ld32(p);
		break;
	case F_PERIOD:
		s->period = ld64(p);
		break;
	case F_DATA_SRC:
		s->data_src = ld64(p);
		break;
	case F_TRANSACTION:
		s->transaction = ld64(p);
		break;
	case F_PHYS_ADDR:
		s->phys_addr = ld64(p);
		break;
	case F_CGROUP:
		s->cgroup = ld64(p);
		break;
	case F_DATA_PAGE_SIZE:
		s->data_page_size = ld64(p);
		break;
	case F_CODE_PAGE_SIZE:
		s->code_page_size = ld64(p);
		break;
	}
}

static inline void put_weight(struct pebs_sample *s, uint64_t st,
			      const unsigned char *p)
{
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		s->weight = ld32(p);
		s->weight2 = ld16(p + 4);
		s->weight3 = ld16(p + 6);
	} else {
		s->weight = ld64(p);
	}
}

/* the field at @off if @bit is in @st, else 0 */
static inline uint64_t opt64(uint64_t st, uint64_t bit,
			     const unsigned char *p, int off)
{
	return st & bit ? ld64(p + off) : 0;
}

static inline uint32_t opt32(uint64_t st, uint64_t bit,
			     const unsigned char *p, int off)
{
	return st & bit ? ld32(p + off) : 0;
}

/*
 * The fast path: every field at its precomputed offset. The branches
 * depend only on the layout, so in a loop over one event's records they
 * are always predicted. Every field is stored exactly once (a memset of
 * the struct first would cost more than the decoding: rep stos).
 */
static int decode_fixed(const struct pebs_sample_layout *l,
			const unsigned char *p, uint16_t size,
			struct pebs_sample *s)
{
	uint64_t st = l->sample_type;
	const int16_t *off = l->off;

	if (size < l->fixed_size)
		return -EBADMSG;
	s->present = st & STORED_BITS;
	/* both: the kernel writes the same id twice; as the walk, take ID */
	s->id = st & PERF_SAMPLE_ID ? ld64(p + off[F_ID]) :
		opt64(st, PERF_SAMPLE_IDENTIFIER, p, off[F_IDENTIFIER]);
	s->ip = opt64(st, PERF_SAMPLE_IP, p, off[F_IP]);
	s->pid = opt32(st, PERF_SAMPLE_TID, p, off[F_TID]);
	s->tid = opt32(st, PERF_SAMPLE_TID, p, off[F_TID] + 4);
	s->time = opt64(st, PERF_SAMPLE_TIME, p, off[F_TIME]);
	s->addr = opt64(st, PERF_SAMPLE_ADDR, p, off[F_ADDR]);
	s->stream_id = opt64(st, PERF_SAMPLE_STREAM_ID, p, off[F_STREAM_ID]);
	s->cpu = opt32(st, PERF_SAMPLE_CPU, p, off[F_CPU]);
	s->period = opt64(st, PERF_SAMPLE_PERIOD, p, off[F_PERIOD]);
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		s->weight = ld32(p + off[F_WEIGHT]);
		s->weight2 = ld16(p + off[F_WEIGHT] + 4);
		s->weight3 = ld16(p + off[F_WEIGHT] + 6);
	} else {
		s->weight = opt64(st, PERF_SAMPLE_WEIGHT, p, off[F_WEIGHT]);
		s->weight2 = 0;
		s->weight3 = 0;
	}
	s->data_src = opt64(st, PERF_SAMPLE_DATA_SRC, p, off[F_DATA_SRC]);
	s->transaction = opt64(st, PERF_SAMPLE_TRANSACTION, p,
			       off[F_TRANSACTION]);
	s->phys_addr = opt64(st, PERF_SAMPLE_PHYS_ADDR, p, off[F_PHYS_ADDR]);
	s->cgroup = opt64(st, PERF_SAMPLE_CGROUP, p, off[F_CGROUP]);
	s->data_page_size = opt64(st, PERF_SAMPLE_DATA_PAGE_SIZE, p,
				  off[F_DATA_PAGE_SIZE]);
	s->code_page_size = opt64(st, PERF_SAMPLE_CODE_PAGE_SIZE, p,
				  off[F_CODE_PAGE_SIZE]);
	s->callchain_nr = 0;
	s->callchain = NULL;
	s->raw_size = 0;
	s->raw = NULL;
	return 0;
}

/* A bounds-checked cursor over one record. */
struct cursor {
	const unsigned char *p, *end;
};

static inline bool has(const struct cursor *c, uint64_t n)
{
	return (uint64_t)(c->end - c->p) >= n;
}

/* take one u64 field; false if the record ends first */
static inline bool take64(struct cursor *c, uint64_t *v)
{
	if (!has(c, 8))
		return false;
	*v = ld64(c->p);
	c->p += 8;
	return true;
}

/* skip @n u64 words, @n from the record (overflow-safe) */
static inline bool skip_words(struct cursor *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p) / 8)
		return false;
	c->p += n * 8;
	return true;
}

static inline bool skip_bytes(struct cursor *c, uint64_t n)
{
	if (!has(c, n))
		return false;
	c->p += n;
	return true;
}

static bool skip_read(const struct pebs_sample_layout *l, struct cursor *c)
{
	uint64_t nr, per;

	if (l->read_size)
		return skip_bytes(c, l->read_size);
	/* group: nr, [enabled], [running], nr * { value, [id], [lost] } */
	if (!take64(c, &nr))
		return false;
	if (!skip_words(c, __builtin_popcountll(l->read_format &
			(PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING))))
		return false;
	per = 1 + __builtin_popcountll(l->read_format &
				       (PERF_FORMAT_ID | PERF_FORMAT_LOST));
	if (nr > UINT64_MAX / per)
		return false;
	return skip_words(c, nr * per);
}

/* the generic path: walk the record field by field */
static int decode_walk(const struct pebs_sample_layout *l,
		       const unsigned char *rec, uint16_t size,
		       struct pebs_sample *s, struct pebs_sample_user *u)
{
	uint64_t st = l->sample_type, v, dyn = 0;
	struct cursor c = { rec + sizeof(struct perf_event_header),
			    rec + size };

	if (size < sizeof(struct perf_event_header))
		return -EBADMSG;
	memset(s, 0, sizeof(*s));
	s->present = st & STORED_BITS;

	/* the fixed fields before READ; the rest follow field by field */
	for (size_t i = 0; fixed[i].field != F_READ; i++) {
		if (!(st & fixed[i].bit))
			continue;
		if (!has(&c, 8))
			return -EBADMSG;
		put_field(s, fixed[i].field, c.p);
		c.p += 8;
	}
	if ((st & PERF_SAMPLE_READ) && !skip_read(l, &c))
		return -EBADMSG;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!take64(&c, &v))
			return -EBADMSG;
		s->callchain_nr = v;
		s->callchain = (const uint64_t *)c.p;
		if (!skip_words(&c, v))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (!has(&c, 4))
			return -EBADMSG;
		s->raw_size = ld32(c.p);
		s->raw = c.p + 4;
		if (!skip_bytes(&c, 4 + (uint64_t)s->raw_size))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (!take64(&c, &v))
			return -EBADMSG;
		if ((l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) &&
		    !skip_words(&c, 1))
			return -EBADMSG;
		/* struct perf_branch_entry: from, to, flags */
		if (v > UINT64_MAX / 3 || !skip_words(&c, v * 3))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (!take64(&c, &v))	/* abi; 0: no registers */
			return -EBADMSG;
		if (u) {
			u->abi = v;
			u->regs = c.p;
		}
		if (v && !skip_words(&c, l->regs_user_nr))
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (!take64(&c, &v))	/* size; 0: nothing follows */
			return -EBADMSG;
		if (u)
			u->stack = c.p;
		if (v && (!skip_bytes(&c, v) || !take64(&c, &dyn)))
			return -EBADMSG;
		if (u)	/* the bytes copied: dyn_size, at most size */
			u->stack_size = dyn < v ? dyn : v;
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE) {
		if (!has(&c, 8))
			return -EBADMSG;
		put_weight(s, st, c.p);
		c.p += 8;
	}
	if (st & PERF_SAMPLE_DATA_SRC) {
		if (!has(&c, 8))
			return -EBADMSG;
		put_field(s, F_DATA_SRC, c.p);
		c.p += 8;
	}
	if (st & PERF_SAMPLE_TRANSACTION) {
		if (!has(&c, 8))
			return -EBADMSG;
		put_field(s, F_TRANSACTION, c.p);
		c.p += 8;
	}
	if (st & PERF_SAMPLE_REGS_INTR) {
		if (!take64(&c, &v))
			return -EBADMSG;
		if (v && !skip_words(&c, l->regs_intr_nr))
			return -EBADMSG;
	}
	for (int f = F_PHYS_ADDR; f <= F_CODE_PAGE_SIZE; f++) {
		static const uint64_t bits[] = {
			[F_PHYS_ADDR] = PERF_SAMPLE_PHYS_ADDR,
			[F_CGROUP] = PERF_SAMPLE_CGROUP,
			[F_DATA_PAGE_SIZE] = PERF_SAMPLE_DATA_PAGE_SIZE,
			[F_CODE_PAGE_SIZE] = PERF_SAMPLE_CODE_PAGE_SIZE,
		};

		if (!(st & bits[f]))
			continue;
		if (!has(&c, 8))
			return -EBADMSG;
		put_field(s, f, c.p);
		c.p += 8;
	}
	if (st & PERF_SAMPLE_AUX) {
		if (!take64(&c, &v) || !skip_bytes(&c, v))
			return -EBADMSG;
	}
	return 0;
}

/* -EBADMSG: a record of @size bytes too short for @l's fields */
static int corrupt(const struct pebs_sample_layout *l, uint16_t size)
{
	return core_err(-EBADMSG, "corrupt sample: %u-byte record too short for sample_type 0x%llx",
			size, (unsigned long long)l->sample_type);
}

int pebs_sample__decode(const struct pebs_sample_layout *l,
			const struct perf_event_header *ev,
			struct pebs_sample *s)
{
	const unsigned char *p = (const unsigned char *)ev;
	uint16_t size = rec_size(ev);
	int err;

	if (l->fixed_size)
		err = decode_fixed(l, p, size, s);
	else
		err = decode_walk(l, p, size, s, NULL);
	if (__builtin_expect(err, 0))
		return corrupt(l, size);
	return 0;
}

int pebs_sample__user(const struct pebs_sample_layout *l,
		      uint64_t sample_regs_user,
		      const struct perf_event_header *ev,
		      struct pebs_sample_user *u)
{
	struct pebs_sample s;

	if (!l || !ev || !u ||
	    (uint64_t)__builtin_popcountll(sample_regs_user) != l->regs_user_nr)
		return core_err(-EINVAL, "sample: no layout, or not its registers");
	memset(u, 0, sizeof(*u));
	if (decode_walk(l, (const unsigned char *)ev, rec_size(ev), &s, u)) {
		memset(u, 0, sizeof(*u));
		return corrupt(l, rec_size(ev));
	}
	u->mask = u->abi ? sample_regs_user : 0;
	if (!u->abi)
		u->regs = NULL;
	if (!u->stack_size)
		u->stack = NULL;
	return 0;
}

int pebs_sample__decode_id(const struct pebs_sample_layout *l,
			   const struct perf_event_header *ev,
			   struct pebs_sample *s)
{
	static const struct {
		uint64_t bit;
		int field;
	} order[] = {
		{ PERF_SAMPLE_TID, F_TID },
		{ PERF_SAMPLE_TIME, F_TIME },
		{ PERF_SAMPLE_ID, F_ID },
		{ PERF_SAMPLE_STREAM_ID, F_STREAM_ID },
		{ PERF_SAMPLE_CPU, F_CPU },
		{ PERF_SAMPLE_IDENTIFIER, F_IDENTIFIER },
	};
	const unsigned char *p = (const unsigned char *)ev;
	uint16_t size = rec_size(ev);

	if (size < sizeof(struct perf_event_header) + l->id_size)
		return core_err(-EBADMSG, "corrupt record: %u bytes cannot hold a %u-byte sample_id",
				size, l->id_size);
	memset(s, 0, sizeof(*s));
	s->present = l->sample_type & ID_BITS;
	p += size - l->id_size;
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (!(l->sample_type & order[i].bit))
			continue;
		put_field(s, order[i].field, p);
		p += 8;
	}
	return 0;
}

/* sample_type alone determines the layout unless one of these is set */
#define NEEDS_ATTR (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK |	\
		    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR)

static int layout_from_type(uint64_t sample_type,
			    struct pebs_sample_layout *l)
{
	struct perf_event_attr attr = { .sample_type = sample_type };

	if (sample_type & NEEDS_ATTR)
		return core_err(-EOPNOTSUPP,
				"sample_type 0x%llx has READ, BRANCH_STACK or REGS: decode with pebs_sample_layout__init(attr)",
				(unsigned long long)sample_type);
	return pebs_sample_layout__init(l, &attr);
}

int pebs_sample__parse(const struct perf_event_header *ev,
		       uint64_t sample_type, struct pebs_sample *s)
{
	struct pebs_sample_layout l;
	int err = layout_from_type(sample_type, &l);

	return err ? err : pebs_sample__decode(&l, ev, s);
}

int pebs_sample__parse_id(const struct perf_event_header *ev,
			  uint64_t sample_type, struct pebs_sample *s)
{
	struct pebs_sample_layout l;
	struct perf_event_attr attr = { .sample_type = sample_type };
	int err = pebs_sample_layout__init(&l, &attr);

	return err ? err : pebs_sample__decode_id(&l, ev, s);
}
