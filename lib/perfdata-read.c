// SPDX-License-Identifier: MIT
/*
 * perfdata-read.c - read perf.data files (little-endian, PERFILE2).
 *
 * Layout (tools/perf/Documentation/perf.data-file-format.txt): a fixed
 * header, an attrs section of { perf_event_attr, ids section } entries,
 * the data section of records, then one section descriptor per feature
 * bit. The file is mapped read-only; every offset and size read from it
 * is checked against the mapping before use, so a corrupt or truncated
 * file yields -EBADMSG, never a read outside it.
 *
 * Samples are matched to their event through their id (IDENTIFIER, or
 * ID at the position every event agrees on, as perf's evlist id_pos),
 * then decoded with that event's struct pebs_sample_layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

_Static_assert(sizeof(struct pebs_perf_file_header) == 104,
	       "struct perf_file_header is 104 bytes on disk");
_Static_assert(sizeof(struct pebs_perf_file_section) == 16,
	       "struct perf_file_section is 16 bytes on disk");

#define PERF_MAGIC_SWAPPED	0x50455246494c4532ULL
#define PERF_MAGIC_V1		0x454c494646524550ULL	/* "PERFFILE" */

struct pd_attr {
	struct perf_event_attr attr;
	struct pebs_sample_layout layout;
	int layout_err;		/* from pebs_sample_layout__init */
	uint64_t *ids;
	size_t nr_ids;
	char *name;
};

struct id_ent {
	uint64_t id;
	unsigned int idx;
};

struct pebs_perfdata {
	const unsigned char *buf;
	size_t size;
	bool mapped;
	struct pebs_perf_file_header hdr;
	struct pebs_perf_file_section feat[PEBS_FEAT_BITS];
	struct pd_attr *attrs;
	unsigned int nr_attrs, cap_attrs;
	struct id_ent *idmap;	/* sorted by id */
	size_t nr_ids, cap_ids;
	int sample_id_pos;	/* offset of the id in a sample, or -1 */
	int other_id_pos;	/* its distance from a record's end, or -1 */
	uint64_t data_start, data_end, pos;
	uint64_t attr_recs_upto; /* HEADER_ATTR records before this are in */
};

/* is [off, off + len) inside the file? */
static bool in_file(const struct pebs_perfdata *pd, uint64_t off,
		    uint64_t len)
{
	return off <= pd->size && len <= pd->size - off;
}

static int id_cmp(const void *a, const void *b)
{
	const struct id_ent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct id_ent *id_find(const struct pebs_perfdata *pd,
				    uint64_t id)
{
	struct id_ent key = { .id = id };

	if (!pd->nr_ids)
		return NULL;
	return bsearch(&key, pd->idmap, pd->nr_ids, sizeof(key), id_cmp);
}

/* where the id sits in a sample for @st: offset, or -1 (no id) */
static int sample_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 8;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return 8 + 8 * __builtin_popcountll(st & (PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
}

/* ... and in a sample_id: its distance from the record's end, or -1 */
static int other_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 8;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return 8 + 8 * __builtin_popcountll(st & (PERF_SAMPLE_STREAM_ID |
						  PERF_SAMPLE_CPU));
}

/* the id positions every event agrees on (perf: evlist id_pos) */
static void update_id_pos(struct pebs_perfdata *pd)
{
	pd->sample_id_pos = sample_id_pos(pd->attrs[0].attr.sample_type);
	pd->other_id_pos = other_id_pos(pd->attrs[0].attr.sample_type);
	for (unsigned int i = 1; i < pd->nr_attrs; i++) {
		uint64_t st = pd->attrs[i].attr.sample_type;

		if (sample_id_pos(st) != pd->sample_id_pos)
			pd->sample_id_pos = -1;
		if (other_id_pos(st) != pd->other_id_pos)
			pd->other_id_pos = -1;
	}
}

/*
 * Add an event: @attr_bytes of a stored perf_event_attr (copied up to
 * our size, the rest zeroed) and @nr_ids ids at @ids (file memory).
 */
static int add_attr(struct pebs_perfdata *pd, const unsigned char *attr_bytes,
		    size_t attr_bytes_len, const unsigned char *ids,
		    size_t nr_ids)
{
	struct pd_attr *a;

	if (pd->nr_attrs == pd->cap_attrs) {
		unsigned int cap = pd->cap_attrs ? 2 * pd->cap_attrs : 4;
		void *n = realloc(pd->attrs, cap * sizeof(*pd->attrs));

		if (!n)
			return pebs_err(-ENOMEM, "out of memory for perf.data attrs");
		pd->attrs = n;
		pd->cap_attrs = cap;
	}
	if (pd->nr_ids + nr_ids > pd->cap_ids) {
		size_t cap = pd->cap_ids ? 2 * pd->cap_ids : 64;
		void *n;

		while (cap < pd->nr_ids + nr_ids)
			cap *= 2;
		n = realloc(pd->idmap, cap * sizeof(*pd->idmap));
		if (!n)
			return pebs_err(-ENOMEM, "out of memory for perf.data ids");
		pd->idmap = n;
		pd->cap_ids = cap;
	}
	a = &pd->attrs[pd->nr_attrs];
	memset(a, 0, sizeof(*a));
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*a->ids));
		if (!a->ids)
			return pebs_err(-ENOMEM, "out of memory for perf.data ids");
		memcpy(a->ids, ids, nr_ids * sizeof(*a->ids));
	}
	a->nr_ids = nr_ids;
	if (attr_bytes_len > sizeof(a->attr))
		attr_bytes_len = sizeof(a->attr);
	memcpy(&a->attr, attr_bytes, attr_bytes_len);
	a->layout_err = pebs_sample_layout__init(&a->layout, &a->attr);
	for (size_t i = 0; i < nr_ids; i++) {
		pd->idmap[pd->nr_ids].id = a->ids[i];
		pd->idmap[pd->nr_ids].idx = pd->nr_attrs;
		pd->nr_ids++;
	}
	qsort(pd->idmap, pd->nr_ids, sizeof(*pd->idmap), id_cmp);
	pd->nr_attrs++;
	update_id_pos(pd);
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
		return pebs_err(-EBADMSG,
				"corrupt perf.data: attrs section (%llu bytes of %llu-byte entries) does not fit the file",
				(unsigned long long)h->attrs.size,
				(unsigned long long)esz);
	n = h->attrs.size / esz;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *e = pd->buf + h->attrs.offset + i * esz;
		uint64_t ids_off = ld64(e + esz - 16);
		uint64_t ids_size = ld64(e + esz - 8);

		if (ids_size % 8 || !in_file(pd, ids_off, ids_size))
			return pebs_err(-EBADMSG,
					"corrupt perf.data: ids of attr %llu lie outside the file",
					(unsigned long long)i);
		err = add_attr(pd, e, esz - 16, pd->buf + ids_off,
			       ids_size / 8);
		if (err)
			return err;
	}
	return 0;
}

/* the feature section table that follows the data section */
static void read_features(struct pebs_perfdata *pd)
{
	uint64_t off = pd->hdr.data.offset + pd->hdr.data.size;
	unsigned int n = 0;

	for (unsigned int f = 0; f < PEBS_FEAT_BITS; f++) {
		const unsigned char *e;
		uint64_t so, ss;

		if (!(pd->hdr.features[f / 64] & (1ULL << (f % 64))))
			continue;
		if (!in_file(pd, off + 16ULL * n, 16))
			return;	/* truncated table: the rest is absent */
		e = pd->buf + off + 16ULL * n++;
		so = ld64(e);
		ss = ld64(e + 8);
		if (in_file(pd, so, ss))
			pd->feat[f] = (struct pebs_perf_file_section){ so, ss };
	}
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

/* names from HEADER_EVENT_DESC, in event order (best effort) */
static int read_event_desc(struct pebs_perfdata *pd)
{
	const struct pebs_perf_file_section *sec = &pd->feat[PEBS_FEAT_EVENT_DESC];
	const unsigned char *p = pd->buf + sec->offset, *end = p + sec->size;
	uint32_t nr, asz, nr_ids, len;

	if (!sec->size || sec->size < 8)
		return 0;
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
		pd->attrs[i].name = strndup(name, len);
		if (!pd->attrs[i].name)
			return pebs_err(-ENOMEM, "out of memory for event names");
	}
	return 0;
}

static int pd_init(struct pebs_perfdata *pd)
{
	struct pebs_perf_file_header *h = &pd->hdr;
	uint64_t magic;
	int err;

	if (pd->size < 8)
		return pebs_err(-EBADMSG, "not a perf.data file: %zu bytes", pd->size);
	magic = ld64(pd->buf);
	if (magic == PERF_MAGIC_SWAPPED)
		return pebs_err(-EOPNOTSUPP,
				"perf.data is big-endian: only little-endian files are supported");
	if (magic == PERF_MAGIC_V1)
		return pebs_err(-EOPNOTSUPP,
				"perf.data uses the old PERFFILE format: rewrite it with a current perf (perf inject)");
	if (magic != PEBS_PERF_MAGIC)
		return pebs_err(-EBADMSG, "not a perf.data file (bad magic)");
	if (pd->size >= 16 && ld64(pd->buf + 8) == 16)
		return pebs_err(-EOPNOTSUPP,
				"perf.data is a pipe-mode stream: convert it with perf inject -i - -o FILE");
	if (pd->size < sizeof(*h))
		return pebs_err(-EBADMSG, "corrupt perf.data: truncated header");
	memcpy(h, pd->buf, sizeof(*h));
	if (h->size < sizeof(*h) || !in_file(pd, h->data.offset, h->data.size))
		return pebs_err(-EBADMSG,
				"corrupt perf.data: header size %llu or data section outside the file",
				(unsigned long long)h->size);
	err = read_attrs(pd);
	if (err)
		return err;
	read_features(pd);
	err = read_event_desc(pd);
	if (err)
		return err;
	pd->data_start = pd->pos = h->data.offset;
	pd->data_end = h->data.offset + h->data.size;
	pd->attr_recs_upto = pd->data_start;
	return 0;
}

static int pd_new(const void *buf, size_t size, bool mapped,
		  struct pebs_perfdata **pdp)
{
	struct pebs_perfdata *pd = calloc(1, sizeof(*pd));
	int err;

	if (!pd)
		return pebs_err(-ENOMEM, "out of memory for a perf.data reader");
	pd->buf = buf;
	pd->size = size;
	pd->mapped = mapped;
	pd->sample_id_pos = pd->other_id_pos = -1;
	err = pd_init(pd);
	if (err) {
		pd->mapped = false;	/* the caller unmaps */
		pebs_perfdata__close(pd);
		return err;
	}
	*pdp = pd;
	return 0;
}

int pebs_perfdata__from_memory(const void *buf, size_t size,
			       struct pebs_perfdata **pdp)
{
	return pd_new(buf, size, false, pdp);
}

int pebs_perfdata__open(const char *path, struct pebs_perfdata **pdp)
{
	struct stat st;
	void *buf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pebs_err(-errno, "cannot open %s: %m", path);
	if (fstat(fd, &st)) {
		err = pebs_err(-errno, "cannot stat %s: %m", path);
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < 8) {
		err = pebs_err(S_ISREG(st.st_mode) ? -EBADMSG : -EOPNOTSUPP,
			       "%s is not a perf.data file (%s)", path,
			       S_ISREG(st.st_mode) ? "too short" :
			       "not a regular file: pipe-mode input is not supported");
		goto out_close;
	}
	buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf == MAP_FAILED) {
		err = pebs_err(-errno, "cannot map %s: %m", path);
		goto out_close;
	}
	err = pd_new(buf, st.st_size, true, pdp);
	if (err) {
		char why[256];

		/* prefix the path, keep the reason */
		snprintf(why, sizeof(why), "%s", pebs_errmsg());
		munmap(buf, st.st_size);
		pebs_err(err, "%s: %s", path, why);
	}
out_close:
	close(fd);
	return err;
}

void pebs_perfdata__close(struct pebs_perfdata *pd)
{
	if (!pd)
		return;
	for (unsigned int i = 0; i < pd->nr_attrs; i++) {
		free(pd->attrs[i].ids);
		free(pd->attrs[i].name);
	}
	free(pd->attrs);
	free(pd->idmap);
	if (pd->mapped)
		munmap((void *)pd->buf, pd->size);
	free(pd);
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

bool pebs_perfdata__has_feat(const struct pebs_perfdata *pd, unsigned int feat)
{
	return feat < PEBS_FEAT_BITS &&
	       (pd->hdr.features[feat / 64] & (1ULL << (feat % 64)));
}

int pebs_perfdata__feat(const struct pebs_perfdata *pd, unsigned int feat,
			const void **data, size_t *size)
{
	if (!pebs_perfdata__has_feat(pd, feat) || !pd->feat[feat].offset)
		return pebs_err(-ENOENT, "perf.data has no feature section %u", feat);
	*data = pd->buf + pd->feat[feat].offset;
	*size = pd->feat[feat].size;
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
		return pebs_err(-EBADMSG, "corrupt perf.data: feature %u is not a string", feat);
	n = strnlen(s, slen);
	if (len) {
		size_t c = n < len - 1 ? n : len - 1;

		memcpy(buf, s, c);
		buf[c] = '\0';
	}
	return (int)n;
}

/* a PERF_RECORD_HEADER_ATTR: { header; attr (attr.size); u64 ids[] } */
static int header_attr(struct pebs_perfdata *pd, const unsigned char *rec,
		       uint16_t size)
{
	uint32_t asz;
	size_t nr_ids;
	const unsigned char *ids;

	if (size < 8 + PERF_ATTR_SIZE_VER0)
		return pebs_err(-EBADMSG, "corrupt perf.data: short HEADER_ATTR record");
	asz = ld32(rec + 8 + 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8u)
		return pebs_err(-EBADMSG, "corrupt perf.data: HEADER_ATTR attr size %u", asz);
	ids = rec + 8 + asz;
	nr_ids = (size - 8 - asz) / 8;
	/* already known from the attrs section (e.g. after perf inject) */
	if (nr_ids && id_find(pd, ld64(ids)))
		return 0;
	return add_attr(pd, rec + 8, asz, ids, nr_ids);
}

int pebs_perfdata__next(struct pebs_perfdata *pd,
			const struct perf_event_header **ev)
{
	const unsigned char *rec;
	struct perf_event_header h;
	uint64_t extra = 0;
	int err;

	if (pd->pos >= pd->data_end)
		return 0;
	rec = pd->buf + pd->pos;
	if (pd->data_end - pd->pos < sizeof(h))
		goto bad;
	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) || h.size > pd->data_end - pd->pos)
		goto bad;

	switch (h.type) {
	case PEBS_PERF_RECORD_AUXTRACE:	/* { header; u64 size; ... } data */
		if (h.size < 16)
			goto bad;
		extra = ld64(rec + 8);
		break;
	case PEBS_PERF_RECORD_HEADER_TRACING_DATA: /* { header; u32 size } */
		if (h.size < 12)
			goto bad;
		extra = ld32(rec + 8);
		break;
	case PEBS_PERF_RECORD_HEADER_ATTR:
		if (pd->pos < pd->attr_recs_upto)
			break;
		err = header_attr(pd, rec, h.size);
		if (err) {
			pd->pos = pd->data_end;
			return err;
		}
		break;
	}
	if (extra > pd->data_end - pd->pos - h.size)
		goto bad;
	pd->pos += h.size + extra;
	if (pd->pos > pd->attr_recs_upto)
		pd->attr_recs_upto = pd->pos;
	*ev = (const struct perf_event_header *)rec;
	return 1;
bad:
	err = pebs_err(-EBADMSG,
		       "corrupt perf.data: bad record at offset %llu (size %u); stopped there",
		       (unsigned long long)pd->pos,
		       pd->data_end - pd->pos >= sizeof(h) ? h.size : 0);
	pd->pos = pd->data_end;
	return err;
}

void pebs_perfdata__rewind(struct pebs_perfdata *pd)
{
	pd->pos = pd->data_start;
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
		return pebs_err(-ENOENT, "perf.data has no event attributes");
	if (!sample && !pd->attrs[0].attr.sample_id_all)
		return 0;	/* as perf: no sample_id, the first event */
	if (pos < 0)
		return pebs_err(-ENOENT,
				"perf.data events do not agree on where the sample id is (record them with IDENTIFIER)");
	if (size < 8 + pos)
		return pebs_err(-EBADMSG, "corrupt record: too short for its id");
	id = ld64(sample ? rec + pos : rec + size - pos);
	if (!id)
		return 0;	/* perf's synthesized records: the first event */
	e = id_find(pd, id);
	if (!e)
		return pebs_err(-ENOENT, "sample id %llu matches no event in perf.data",
				(unsigned long long)id);
	return e->idx;
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
		return pebs_err(-EINVAL, "record type %u is not a sample", h.type);
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
		return pebs_err(-EINVAL, "a sample has no trailing sample_id: use pebs_perfdata__sample");
	if (h.type >= PEBS_PERF_RECORD_HEADER_ATTR || h.type == 0)
		return pebs_err(-ENOENT, "record type %u (perf's own) carries no sample_id", h.type);
	idx = find_attr(pd, rec, h.size, false);
	if (idx < 0)
		return idx;
	a = &pd->attrs[idx];
	if (a->layout_err)
		return a->layout_err;
	if (!a->attr.sample_id_all)
		return pebs_err(-ENOENT, "event %d was recorded without sample_id_all", idx);
	if (attr_idx)
		*attr_idx = idx;
	return pebs_sample__decode_id(&a->layout, ev, s);
}
