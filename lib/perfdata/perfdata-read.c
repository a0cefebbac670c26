// SPDX-License-Identifier: MIT
/*
 * perfdata-read.c - read perf.data files (little-endian, PERFILE2).
 *
 * Layout (tools/perf/Documentation/perf.data-file-format.txt): a fixed
 * header, an attrs section of { perf_event_attr, ids section } entries,
 * the data section of records, then one section descriptor per feature
 * bit. The file is mapped read-only; every offset and size read from it
 * is checked against the mapping before use, so a corrupt or truncated
 * file yields -EBADMSG, never a read outside it. Work and memory are
 * linear in the file's size: ids go into a hash table, and the attrs'
 * id sections together may not hold more ids than the file has room for.
 *
 * A file whose header still says data.size == 0 was never finished (perf
 * record fixes the size at exit; a killed perf never does): as perf,
 * which warns "Was the 'perf record' command properly terminated?" and
 * reads on, its records run to the end of the file, the last one if cut
 * short is dropped (pebs_perfdata__truncated), and the feature table,
 * never written, is absent.
 *
 * Opening (memory, paths, descriptors): lib/perfdata/perfdata-open.c. Records:
 * lib/perfdata/perfdata-next.c, with pipe-mode streams (perf record -o -) from
 * lib/perfdata/perfdata-pipe.c, the records inside PERF_RECORD_COMPRESSED (perf
 * record -z) from lib/perfdata/perfdata-zstd.c, and perf record --threads
 * directories from lib/perfdata/perfdata-dir.c.
 *
 * Samples are matched to their event through their id (IDENTIFIER, or
 * ID at the position every event agrees on, as perf's evlist id_pos),
 * then decoded with that event's struct pebs_sample_layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "pebsshim/perfdata.h"
#include "core/internal.h"
#include "event/event-internal.h"
#include "perfdata/perfdata-int.h"

_Static_assert(sizeof(struct pebs_perf_file_header) == 104,
	       "struct perf_file_header is 104 bytes on disk");
_Static_assert(sizeof(struct pebs_perf_file_section) == 16,
	       "struct perf_file_section is 16 bytes on disk");

#define PERF_MAGIC_SWAPPED	0x50455246494c4532ULL
#define PERF_MAGIC_V1		0x454c494646524550ULL	/* "PERFFILE" */
/* bounds for streams, whose length is not known: far above perf's use
 * (events x CPUs or threads), far below what would exhaust memory */
#define PD_MAX_ATTRS		(1u << 16)
#define PD_MAX_IDS		(1u << 22)

struct id_ent {
	uint64_t id;
	unsigned int idx1;	/* attr index + 1; 0: an empty slot */
};

/* is [off, off + len) inside the file? */
static bool in_file(const struct pebs_perfdata *pd, uint64_t off,
		    uint64_t len)
{
	return off <= pd->size && len <= pd->size - off;
}

/*
 * Ids are hashed with a per-reader random seed (splitmix64's finalizer
 * over id + seed): a file cannot choose ids that all land in one run of
 * the table and make every lookup walk it.
 */
static size_t id_hash(uint64_t seed, uint64_t id, size_t mask)
{
	uint64_t x = id + seed;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return (size_t)(x ^ (x >> 31)) & mask;
}

static const struct id_ent *id_find(const struct pebs_perfdata *pd,
				    uint64_t id)
{
	if (!pd->nr_ids)
		return NULL;
	for (size_t i = id_hash(pd->id_seed, id, pd->id_mask);;
	     i = (i + 1) & pd->id_mask) {
		const struct id_ent *e = &pd->idtab[i];

		if (!e->idx1)
			return NULL;
		if (e->id == id)
			return e;
	}
}

static void id_put(uint64_t seed, struct id_ent *tab, size_t mask,
		   uint64_t id, unsigned int idx1)
{
	size_t i = id_hash(seed, id, mask);

	while (tab[i].idx1 && tab[i].id != id)
		i = (i + 1) & mask;
	if (!tab[i].idx1)
		tab[i] = (struct id_ent){ id, idx1 };
}

/* room for @more ids at a load of at most 1/2 */
static int id_reserve(struct pebs_perfdata *pd, size_t more)
{
	size_t cap = pd->idtab ? pd->id_mask + 1 : 64;
	struct id_ent *tab;

	if (more > PD_MAX_IDS || pd->nr_ids + more > PD_MAX_IDS)
		return core_err(-EBADMSG,
				"corrupt perf.data: more than %u event ids",
				PD_MAX_IDS);
	if (!pd->idtab && getrandom(&pd->id_seed, sizeof(pd->id_seed),
				    GRND_NONBLOCK) != sizeof(pd->id_seed))
		pd->id_seed = (uintptr_t)pd ^ (uint64_t)time(NULL) << 20;
	while (cap / 2 < pd->nr_ids + more)
		cap *= 2;
	if (pd->idtab && cap == pd->id_mask + 1)
		return 0;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return core_err(-ENOMEM, "out of memory for perf.data ids");
	for (size_t i = 0; pd->idtab && i <= pd->id_mask; i++)
		if (pd->idtab[i].idx1)
			id_put(pd->id_seed, tab, cap - 1, pd->idtab[i].id,
			       pd->idtab[i].idx1);
	free(pd->idtab);
	pd->idtab = tab;
	pd->id_mask = cap - 1;
	return 0;
}

/* where the id sits in a sample of @l (offset) or in a sample_id
 * (@other: its distance from the record's end); -1: no id */
static int id_pos(const struct pebs_sample_layout *l, bool other)
{
	if (l->sample_type & PERF_SAMPLE_IDENTIFIER)
		return pebs_sample_layout__pos(l, PERF_SAMPLE_IDENTIFIER, other);
	if (!(l->sample_type & PERF_SAMPLE_ID))
		return -1;
	return pebs_sample_layout__pos(l, PERF_SAMPLE_ID, other);
}

/* the id positions every event agrees on (perf: evlist id_pos), kept
 * up to date as event @i is added */
static void update_id_pos(struct pebs_perfdata *pd, unsigned int i)
{
	const struct pebs_sample_layout *l = &pd->attrs[i].layout;

	if (!i) {
		pd->sample_id_pos = id_pos(l, false);
		pd->other_id_pos = id_pos(l, true);
		return;
	}
	if (id_pos(l, false) != pd->sample_id_pos)
		pd->sample_id_pos = -1;
	if (id_pos(l, true) != pd->other_id_pos)
		pd->other_id_pos = -1;
}

/*
 * Add an event: @attr_bytes of a stored perf_event_attr (copied up to
 * our size, the rest zeroed) and @nr_ids ids at @ids (file memory).
 */
int pd_add_attr(struct pebs_perfdata *pd, const unsigned char *attr_bytes,
		size_t attr_bytes_len, const unsigned char *ids, size_t nr_ids)
{
	struct pd_attr *a;
	int err;

	if (pd->nr_attrs >= PD_MAX_ATTRS)
		return core_err(-EBADMSG, "corrupt perf.data: more than %u events",
				PD_MAX_ATTRS);
	err = id_reserve(pd, nr_ids);
	if (err)
		return err;
	if (core_grow(&pd->attrs, &pd->cap_attrs, (size_t)pd->nr_attrs + 1,
		      sizeof(*pd->attrs)))
		return core_err(-ENOMEM, "out of memory for perf.data attrs");
	a = &pd->attrs[pd->nr_attrs];
	memset(a, 0, sizeof(*a));
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*a->ids));
		if (!a->ids)
			return core_err(-ENOMEM, "out of memory for perf.data ids");
		memcpy(a->ids, ids, nr_ids * sizeof(*a->ids));
	}
	a->nr_ids = nr_ids;
	if (attr_bytes_len > sizeof(a->attr))
		attr_bytes_len = sizeof(a->attr);
	memcpy(&a->attr, attr_bytes, attr_bytes_len);
	/* a newer perf's attr: size says what is held, not what was filed */
	if (a->attr.size > sizeof(a->attr))
		a->attr.size = sizeof(a->attr);
	a->layout_err = pebs_sample_layout__init(&a->layout, &a->attr);
	for (size_t i = 0; i < nr_ids; i++, pd->nr_ids++)
		id_put(pd->id_seed, pd->idtab, pd->id_mask, a->ids[i],
		       pd->nr_attrs + 1);
	pd->nr_attrs++;
	update_id_pos(pd, pd->nr_attrs - 1);
	return 0;
}

static int read_attrs(struct pebs_perfdata *pd)
{
	const struct pebs_perf_file_header *h = &pd->hdr;
	uint64_t n, esz = h->attr_size;
	int err;

	if (!h->attrs.size)
		return 0;
	if (esz < PERF_ATTR_SIZE_VER0 + sizeof(struct pebs_perf_file_section) ||
	    h->attrs.size % esz || !in_file(pd, h->attrs.offset, h->attrs.size))
		return core_err(-EBADMSG,
				"corrupt perf.data: attrs section (%llu bytes of %llu-byte entries) does not fit the file",
				(unsigned long long)h->attrs.size,
				(unsigned long long)esz);
	n = h->attrs.size / esz;
	/* id sections that overlap could repeat the file's bytes n times */
	for (uint64_t i = 0, total = 0; i < n; i++) {
		total += ld64(pd->buf + h->attrs.offset + (i + 1) * esz - 8) / 8;
		if (total > pd->size / 8)
			return core_err(-EBADMSG,
					"corrupt perf.data: the attrs' id sections hold more ids than the %zu-byte file has room for (they overlap)",
					pd->size);
	}
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *e = pd->buf + h->attrs.offset + i * esz;
		uint64_t ids_off = ld64(e + esz - 16);
		uint64_t ids_size = ld64(e + esz - 8);

		if (ids_size % 8 || !in_file(pd, ids_off, ids_size))
			return core_err(-EBADMSG,
					"corrupt perf.data: ids of attr %llu lie outside the file",
					(unsigned long long)i);
		err = pd_add_attr(pd, e, esz - 16, pd->buf + ids_off,
			       ids_size / 8);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The feature section table that follows the data section. Returns
 * whether every entry lies in the file and points past the table (how
 * a finished file with an empty data section is told from an unfinished
 * one, whose "table" is its first records).
 */
static bool read_features(struct pebs_perfdata *pd, bool store)
{
	uint64_t off = pd->hdr.data.offset + pd->hdr.data.size;
	unsigned int n = 0;
	bool valid = true;

	for (unsigned int f = 0; f < PEBS_FEAT_BITS; f++)
		n += !!(pd->hdr.features[f / 64] & (1ULL << (f % 64)));
	for (unsigned int f = 0, i = 0; f < PEBS_FEAT_BITS; f++) {
		const unsigned char *e;
		uint64_t so, ss;

		if (!(pd->hdr.features[f / 64] & (1ULL << (f % 64))))
			continue;
		if (!in_file(pd, off + 16ULL * i, 16))
			return false;	/* truncated table: the rest is absent */
		e = pd->buf + off + 16ULL * i++;
		so = ld64(e);
		ss = ld64(e + 8);
		if (!in_file(pd, so, ss) || so < off + 16ULL * n) {
			valid = false;
		} else if (store) {
			pd->feat[f] = pd->buf + so;
			pd->feat_size[f] = ss;
		}
	}
	return valid;
}

/* a perf string at *p (u32 len, then len bytes); advance *p past it */
static const char *perf_string(const unsigned char **p,
			       const unsigned char *end, uint32_t *len)
{
	const char *s;

	if (end - *p < 4)
		return NULL;
	*len = ld32(*p);
	if ((uint64_t)(end - *p - 4) < *len)
		return NULL;
	s = (const char *)*p + 4;
	*p += 4 + (uint64_t)*len;
	return s;
}

int pd_read_event_desc(struct pebs_perfdata *pd)
{
	const unsigned char *p = pd->feat[PEBS_FEAT_EVENT_DESC], *end;
	uint32_t nr, asz, nr_ids, len;

	if (!p || pd->feat_size[PEBS_FEAT_EVENT_DESC] < 8)
		return 0;
	end = p + pd->feat_size[PEBS_FEAT_EVENT_DESC];
	nr = ld32(p);
	asz = ld32(p + 4);
	p += 8;
	for (uint32_t i = 0; i < nr && i < pd->nr_attrs; i++) {
		const char *name;

		if ((uint64_t)(end - p) < (uint64_t)asz + 4)
			return 0;
		p += asz;
		nr_ids = ld32(p);
		p += 4;
		name = perf_string(&p, end, &len);
		if (!name || (uint64_t)(end - p) / 8 < nr_ids)
			return 0;
		p += 8ULL * nr_ids;
		free(pd->attrs[i].name);
		pd->attrs[i].name = strndup(name, len);
		if (!pd->attrs[i].name)
			return core_err(-ENOMEM, "out of memory for event names");
	}
	return 0;
}

/* the events the file does not name (no EVENT_DESC: perf record was
   killed) get perf's names from their attrs (evsel__name) */
static int name_unnamed(struct pebs_perfdata *pd)
{
	char name[96];

	for (unsigned int i = 0; i < pd->nr_attrs; i++) {
		if (pd->attrs[i].name ||
		    event_attr_name(&pd->attrs[i].attr, name, sizeof(name)))
			continue;
		pd->attrs[i].name = strdup(name);
		if (!pd->attrs[i].name)
			return core_err(-ENOMEM, "out of memory for event names");
	}
	return 0;
}

int pd_init_file(struct pebs_perfdata *pd)
{
	struct pebs_perf_file_header *h = &pd->hdr;
	uint64_t magic;
	int err;

	if (pd->size < 8)
		return core_err(-EBADMSG, "not a perf.data file: %zu bytes", pd->size);
	magic = ld64(pd->buf);
	if (magic == PERF_MAGIC_SWAPPED)
		return core_err(-EOPNOTSUPP,
				"perf.data is big-endian: only little-endian files are supported");
	if (magic == PERF_MAGIC_V1)
		return core_err(-EOPNOTSUPP,
				"perf.data uses the old PERFFILE format: rewrite it with a current perf (perf inject)");
	if (magic != PEBS_PERF_MAGIC)
		return core_err(-EBADMSG, "not a perf.data file (bad magic)");
	if (pd->size >= 16 && ld64(pd->buf + 8) == PD_PIPE_HEADER_SIZE) {
		h->magic = magic;
		h->size = PD_PIPE_HEADER_SIZE;
		err = pd_stream__new_mem(pd->buf + PD_PIPE_HEADER_SIZE,
					 pd->size - PD_PIPE_HEADER_SIZE,
					 &pd->stream);
		return err ? err : pd_read_prologue(pd);
	}
	if (pd->size < sizeof(*h))
		return core_err(-EBADMSG, "corrupt perf.data: truncated header");
	memcpy(h, pd->buf, sizeof(*h));
	if (h->size < sizeof(*h))
		return core_err(-EBADMSG, "corrupt perf.data: header size %llu",
				(unsigned long long)h->size);
	/* a file cut after perf record finished it (a partial copy) */
	if (!in_file(pd, h->data.offset, h->data.size))
		return core_err(-EBADMSG,
				"perf.data truncated: its data section (%llu bytes at %llu) runs past the end of the file (%zu bytes): copy the whole file",
				(unsigned long long)h->data.size,
				(unsigned long long)h->data.offset, pd->size);
	err = read_attrs(pd);
	if (err)
		return err;
	pd->data_start = pd->pos = h->data.offset;
	pd->data_end = h->data.offset + h->data.size;
	/* never finished (see the top): the records run to the end */
	if (!h->data.size && !read_features(pd, false)) {
		pd->unfinished = true;
		pd->data_end = pd->size;
		return name_unnamed(pd);
	}
	read_features(pd, true);
	err = pd_read_event_desc(pd);
	return err ? err : name_unnamed(pd);
}

const struct pebs_perf_file_header *
pebs_perfdata__header(const struct pebs_perfdata *pd)
{
	return &pd->hdr;
}

unsigned int pebs_perfdata__nr_attrs(const struct pebs_perfdata *pd)
{
	return pd->nr_attrs;
}

const struct perf_event_attr *
pebs_perfdata__attr(const struct pebs_perfdata *pd, unsigned int idx,
		    const uint64_t **ids, size_t *nr_ids)
{
	if (idx >= pd->nr_attrs)
		return NULL;
	if (ids)
		*ids = pd->attrs[idx].ids;
	if (nr_ids)
		*nr_ids = pd->attrs[idx].nr_ids;
	return &pd->attrs[idx].attr;
}

const char *pebs_perfdata__attr_name(const struct pebs_perfdata *pd,
				     unsigned int idx)
{
	return idx < pd->nr_attrs ? pd->attrs[idx].name : NULL;
}

unsigned int pd_attr_named(const struct pebs_perfdata *pd, const char *name,
			   uint64_t id)
{
	unsigned int n = pebs_perfdata__nr_attrs(pd);

	for (unsigned int i = 0; i < n; i++) {
		const char *a = pebs_perfdata__attr_name(pd, i);

		if (a && !strcmp(a, name))
			return i;
	}
	for (unsigned int i = 0; i < n; i++) {
		const uint64_t *ids;
		size_t nr;
		const struct perf_event_attr *a =
			pebs_perfdata__attr(pd, i, &ids, &nr);

		if (a && a->type == PERF_TYPE_SOFTWARE &&
		    a->config == PERF_COUNT_SW_DUMMY && nr == 1 &&
		    ids[0] == id)
			return i;
	}
	return UINT32_MAX;
}

int pebs_perfdata__cycle_event(const struct pebs_perfdata *pd)
{
	unsigned int i = pd ? pd_attr_named(pd, PEBS_CYCLE_EVENT,
					    PEBS_CYCLE_ID) : UINT32_MAX;

	return i == UINT32_MAX ? -ENOENT : (int)i;
}

bool pebs_perfdata__has_feat(const struct pebs_perfdata *pd, unsigned int feat)
{
	return feat < PEBS_FEAT_BITS &&
	       (pd->hdr.features[feat / 64] & (1ULL << (feat % 64)));
}

int pebs_perfdata__feat(const struct pebs_perfdata *pd, unsigned int feat,
			const void **data, size_t *size)
{
	if (!pebs_perfdata__has_feat(pd, feat) || !pd->feat[feat])
		return core_err(-ENOENT, "perf.data has no feature section %u", feat);
	*data = pd->feat[feat];
	*size = pd->feat_size[feat];
	return 0;
}

int pebs_perfdata__feat_str(const struct pebs_perfdata *pd, unsigned int feat,
			    char *buf, size_t len)
{
	const unsigned char *p, *end;
	const char *s;
	size_t size = 0, n;
	uint32_t slen;
	const void *data = NULL;
	int err = pebs_perfdata__feat(pd, feat, &data, &size);

	if (err)
		return err;
	p = data;
	end = p + size;
	s = perf_string(&p, end, &slen);
	if (!s)
		return core_err(-EBADMSG, "corrupt perf.data: feature %u is not a string", feat);
	n = strnlen(s, slen);
	if (len) {
		size_t c = n < len - 1 ? n : len - 1;

		memcpy(buf, s, c);
		buf[c] = '\0';
	}
	return (int)n;
}

bool pebs_perfdata__truncated(const struct pebs_perfdata *pd)
{
	return pd->unfinished || pd->truncated ||
	       (pd->stream && pd_stream__truncated(pd->stream)) ||
	       (pd->dir && pd_dir__truncated(pd->dir));
}

bool pebs_perfdata__is_pipe(const struct pebs_perfdata *pd)
{
	return pd->stream != NULL;
}

/* a PERF_RECORD_HEADER_ATTR: { header; attr (attr.size); u64 ids[] } */
int pd_header_attr(struct pebs_perfdata *pd, const unsigned char *rec,
		   uint16_t size)
{
	uint32_t asz;
	size_t nr_ids;
	const unsigned char *ids;

	if (size < 8 + PERF_ATTR_SIZE_VER0)
		return core_err(-EBADMSG, "corrupt perf.data: short HEADER_ATTR record");
	asz = ld32(rec + 8 + 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8u)
		return core_err(-EBADMSG, "corrupt perf.data: HEADER_ATTR attr size %u", asz);
	ids = rec + 8 + asz;
	nr_ids = (size - 8 - asz) / 8;
	/* already known from the attrs section (e.g. after perf inject) */
	if (nr_ids && id_find(pd, ld64(ids)))
		return 0;
	return pd_add_attr(pd, rec + 8, asz, ids, nr_ids);
}

/* which event a record belongs to: its index, or -errno */
static int find_attr(const struct pebs_perfdata *pd, const unsigned char *rec,
		     uint16_t size, bool sample)
{
	const struct id_ent *e;
	int pos = sample ? pd->sample_id_pos : pd->other_id_pos;
	uint64_t id;

	if (pd->nr_attrs == 1)
		return 0;
	if (!pd->nr_attrs)
		return core_err(-ENOENT, "perf.data has no event attributes");
	if (!sample && !pd->attrs[0].attr.sample_id_all)
		return 0;	/* as perf: no sample_id, the first event */
	if (pos < 0)
		return core_err(-ENOENT,
				"perf.data events do not agree on where the sample id is (record them with IDENTIFIER)");
	if (size < 8 + pos)
		return core_err(-EBADMSG, "corrupt record: too short for its id");
	id = ld64(sample ? rec + pos : rec + size - pos);
	if (!id)
		return 0;	/* perf's synthesized records: the first event */
	e = id_find(pd, id);
	if (!e)
		return core_err(-ENOENT, "sample id %llu matches no event in perf.data",
				(unsigned long long)id);
	return e->idx1 - 1;
}

int pebs_perfdata__sample(const struct pebs_perfdata *pd,
			  const struct perf_event_header *ev,
			  struct pebs_sample *s, unsigned int *attr_idx)
{
	const unsigned char *rec = (const unsigned char *)ev;
	struct perf_event_header h;
	const struct pd_attr *a;
	int idx;

	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE)
		return core_err(-EINVAL, "record type %u is not a sample", h.type);
	idx = find_attr(pd, rec, h.size, true);
	if (idx < 0)
		return idx;
	a = &pd->attrs[idx];
	if (a->layout_err)
		return a->layout_err;
	if (attr_idx)
		*attr_idx = idx;
	return pebs_sample__decode(&a->layout, ev, s);
}

int pebs_perfdata__sample_id(const struct pebs_perfdata *pd,
			     const struct perf_event_header *ev,
			     struct pebs_sample *s, unsigned int *attr_idx)
{
	const unsigned char *rec = (const unsigned char *)ev;
	struct perf_event_header h;
	const struct pd_attr *a;
	int idx;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE)
		return core_err(-EINVAL, "a sample has no trailing sample_id: use pebs_perfdata__sample");
	if (h.type >= PEBS_PERF_RECORD_HEADER_ATTR || h.type == 0)
		return core_err(-ENOENT, "record type %u (perf's own) carries no sample_id", h.type);
	idx = find_attr(pd, rec, h.size, false);
	if (idx < 0)
		return idx;
	a = &pd->attrs[idx];
	if (a->layout_err)
		return a->layout_err;
	if (!a->attr.sample_id_all)
		return core_err(-ENOENT, "event %d was recorded without sample_id_all", idx);
	if (attr_idx)
		*attr_idx = idx;
	return pebs_sample__decode_id(&a->layout, ev, s);
}
