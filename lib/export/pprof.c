// SPDX-License-Identifier: MIT
/*
 * pprof.c - a profile in pprof's format (google/pprof proto/profile.proto,
 * gzip-compressed), built sample by sample: samples with the same stack
 * and labels are one Sample whose values are summed, so the memory is
 * that of the distinct strings, functions, locations and (stack, labels)
 * pairs. The tables are written at the end (pebs_pprof__write).
 *
 * Field numbers (profile.proto): Profile sample_type 1, sample 2,
 * mapping 3, location 4, function 5, string_table 6, time_nanos 9,
 * duration_nanos 10, comment 13, default_sample_type 14; ValueType type 1,
 * unit 2; Sample location_id 1, value 2, label 3; Label key 1, str 2,
 * num 3, num_unit 4; Mapping id 1, memory_start 2, memory_limit 3,
 * file_offset 4, filename 5, build_id 6, has_functions 7, has_filenames 8,
 * has_line_numbers 9; Location id 1, mapping_id 2, address 3, line 4;
 * Line function_id 1, line 2; Function id 1, name 2, system_name 3,
 * filename 4.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-int.h"

#define MAX_TYPES	16
#define MAX_COMMENTS	8

struct pebs_pprof {
	struct ex_intern strs, funcs, maps, locs, samples;
	uint32_t types[MAX_TYPES][2];	/* type, unit (string ids) */
	unsigned int nr_types, def_type;
	bool has_def;
	uint32_t comments[MAX_COMMENTS];
	unsigned int nr_comments;
	int64_t *values;		/* nr_types per sample */
	size_t values_cap;		/* samples room */
	struct loc_line *loc_line;	/* per location */
	size_t loc_cap;
	uint64_t *map_limit;		/* per mapping: past its addresses */
	size_t map_cap;
	int64_t time_ns, duration_ns;
};

/* a location's function and line */
struct loc_line {
	uint32_t fn, line;
};

/* the packed key of a location and of a sample's label */
struct loc_key {
	uint32_t map, name;
	uint64_t addr;
};

struct label_key {
	uint32_t key, str, unit, pad;
	int64_t num;
};

int pebs_pprof__new(struct pebs_pprof **pp)
{
	struct pebs_pprof *p = calloc(1, sizeof(*p));
	uint32_t id;
	bool added;

	if (!pp)
		return core_err(-EINVAL, "pprof: nowhere to put the profile");
	/* string 0 is "" */
	if (!p || ex_intern__get(&p->strs, "", 0, &id, &added)) {
		pebs_pprof__delete(p);
		return core_err(-ENOMEM, "pprof: out of memory");
	}
	*pp = p;
	return 0;
}

void pebs_pprof__delete(struct pebs_pprof *p)
{
	if (!p)
		return;
	ex_intern__free(&p->strs);
	ex_intern__free(&p->funcs);
	ex_intern__free(&p->maps);
	ex_intern__free(&p->locs);
	ex_intern__free(&p->samples);
	free(p->values);
	free(p->loc_line);
	free(p->map_limit);
	free(p);
}

static int str_id(struct pebs_pprof *p, const char *s, uint32_t *id)
{
	bool added;

	return ex_intern__get(&p->strs, s ? s : "", s ? strlen(s) : 0, id,
			      &added);
}

int pebs_pprof__sample_type(struct pebs_pprof *p, const char *type,
			    const char *unit)
{
	if (!p || !type || !unit)
		return core_err(-EINVAL, "pprof: a sample type needs a type "
				"and a unit");
	if (p->samples.n || p->nr_types == MAX_TYPES)
		return core_err(-EINVAL, "pprof: at most %d sample types, "
				"given before the first sample: export fewer "
				"events at once (--event, --split event)",
				MAX_TYPES);
	if (str_id(p, type, &p->types[p->nr_types][0]) ||
	    str_id(p, unit, &p->types[p->nr_types][1]))
		return core_err(-ENOMEM, "pprof: out of memory");
	return (int)p->nr_types++;
}

int pebs_pprof__default_type(struct pebs_pprof *p, unsigned int idx)
{
	if (!p || idx >= p->nr_types)
		return core_err(-EINVAL, "pprof: no sample type %u", idx);
	p->def_type = idx;
	p->has_def = true;
	return 0;
}

int pebs_pprof__comment(struct pebs_pprof *p, const char *text)
{
	if (!p || !text || p->nr_comments == MAX_COMMENTS)
		return core_err(-EINVAL, "pprof: at most %d comments",
				MAX_COMMENTS);
	if (str_id(p, text, &p->comments[p->nr_comments]))
		return core_err(-ENOMEM, "pprof: out of memory");
	p->nr_comments++;
	return 0;
}

void pebs_pprof__set_time(struct pebs_pprof *p, int64_t time_ns,
			  int64_t duration_ns)
{
	if (!p)
		return;
	p->time_ns = time_ns;
	p->duration_ns = duration_ns;
}

int pebs_pprof__mapping(struct pebs_pprof *p, const char *file,
			const char *build_id, uint32_t *id)
{
	uint32_t key[2];
	bool added;

	if (!p || !file || !id)
		return core_err(-EINVAL, "pprof: a mapping needs a file");
	if (str_id(p, file, &key[0]) || str_id(p, build_id, &key[1]) ||
	    ex_intern__get(&p->maps, key, sizeof(key), id, &added) ||
	    core_grow_zero(&p->map_limit, &p->map_cap, p->maps.n,
			   sizeof(*p->map_limit)))
		return core_err(-ENOMEM, "pprof: out of memory");
	(*id)++;	/* ids from 1 */
	return 0;
}

int pebs_pprof__location(struct pebs_pprof *p, uint32_t mapping,
			 uint64_t addr, const char *func, uint32_t *id,
			 bool *added)
{
	struct loc_key k = { .map = mapping, .addr = addr };

	if (!p || !func || !id || !added || mapping > p->maps.n)
		return core_err(-EINVAL, "pprof: a location needs a function "
				"and a known mapping");
	if (str_id(p, func, &k.name) ||
	    ex_intern__get(&p->locs, &k, sizeof(k), id, added) ||
	    core_grow_zero(&p->loc_line, &p->loc_cap, p->locs.n,
			   sizeof(*p->loc_line)))
		return core_err(-ENOMEM, "pprof: out of memory");
	if (*added && mapping && addr >= p->map_limit[mapping - 1])
		p->map_limit[mapping - 1] = addr + 1;
	(*id)++;
	return 0;
}

int pebs_pprof__location_line(struct pebs_pprof *p, uint32_t id,
			      const char *file, unsigned int line)
{
	struct loc_key k;
	uint32_t key[2], fn;
	const uint8_t *kp;
	size_t len;
	bool added;

	if (!p || !id || id > p->locs.n)
		return core_err(-EINVAL, "pprof: no location %u", id);
	kp = ex_intern__key(&p->locs, id - 1, &len);
	memcpy(&k, kp, sizeof(k));
	key[0] = k.name;
	if (str_id(p, file, &key[1]) ||
	    ex_intern__get(&p->funcs, key, sizeof(key), &fn, &added))
		return core_err(-ENOMEM, "pprof: out of memory");
	p->loc_line[id - 1].fn = fn + 1;
	p->loc_line[id - 1].line = line;
	return 0;
}

int pebs_pprof__add(struct pebs_pprof *p, const uint32_t *locs,
		    unsigned int nr_locs, const struct pebs_pprof_label *labels,
		    unsigned int nr_labels, const int64_t *values)
{
	size_t len = sizeof(uint32_t) * (1 + nr_locs) +
		     sizeof(struct label_key) * nr_labels;
	struct label_key lk;
	uint8_t *key, *q;
	unsigned int i;
	uint32_t id;
	bool added;
	int err = -ENOMEM;

	if (!p || !values || (nr_locs && !locs) || (nr_labels && !labels) ||
	    !p->nr_types)
		return core_err(-EINVAL, "pprof: a sample needs values of "
				"the sample types");
	for (i = 0; i < nr_locs; i++)
		if (!locs[i] || locs[i] > p->locs.n)
			return core_err(-EINVAL, "pprof: no location %u",
					locs[i]);
	key = malloc(len);
	if (!key)
		return core_err(-ENOMEM, "pprof: out of memory");
	memcpy(key, &nr_locs, sizeof(uint32_t));
	q = key + sizeof(uint32_t);
	if (nr_locs)
		memcpy(q, locs, nr_locs * sizeof(uint32_t));
	q += nr_locs * sizeof(uint32_t);
	for (i = 0; i < nr_labels; i++, q += sizeof(lk)) {
		memset(&lk, 0, sizeof(lk));
		if (str_id(p, labels[i].key, &lk.key) ||
		    (labels[i].str && str_id(p, labels[i].str, &lk.str)) ||
		    (labels[i].unit && str_id(p, labels[i].unit, &lk.unit)))
			goto out;
		lk.num = labels[i].str ? 0 : labels[i].num;
		memcpy(q, &lk, sizeof(lk));
	}
	if (ex_intern__get(&p->samples, key, len, &id, &added) ||
	    core_grow_zero(&p->values, &p->values_cap,
			   p->samples.n * p->nr_types, sizeof(*p->values)))
		goto out;
	for (i = 0; i < p->nr_types; i++)
		p->values[(size_t)id * p->nr_types + i] += values[i];
	err = 0;
out:
	free(key);
	return err ? core_err(err, "pprof: out of memory") : 0;
}

size_t pebs_pprof__nr_samples(const struct pebs_pprof *p)
{
	return p ? p->samples.n : 0;
}

static int write_samples(struct pebs_pprof *p, struct ex_out *o,
			 struct ex_pb *m)
{
	struct ex_pb lb = { 0 };
	uint64_t v[MAX_TYPES], *ids = NULL;
	struct label_key lk;
	const uint8_t *k, *q, *end;
	uint32_t i, j, n, id;
	size_t len, cap = 0;
	int err = 0;

	for (i = 0; i < p->samples.n && !err; i++) {
		k = ex_intern__key(&p->samples, i, &len);
		end = k + len;
		memcpy(&n, k, sizeof(n));
		q = k + sizeof(n);
		if (core_grow(&ids, &cap, n + 1, sizeof(*ids))) {
			err = core_err(-ENOMEM, "pprof: out of memory");
			break;
		}
		for (j = 0; j < n; j++, q += sizeof(id)) {
			memcpy(&id, q, sizeof(id));
			ids[j] = id;
		}
		m->len = 0;
		ex_pb__packed(m, 1, ids, n);
		for (j = 0; j < p->nr_types; j++)
			v[j] = (uint64_t)p->values[(size_t)i * p->nr_types + j];
		/* every value, zeros too: one per sample type */
		ex_pb__varint(m, 2 << 3 | 2);
		for (j = 0, len = 0; j < p->nr_types; j++) {
			uint64_t x = v[j];

			do {
				len++;
				x >>= 7;
			} while (x);
		}
		ex_pb__varint(m, len);
		for (j = 0; j < p->nr_types; j++)
			ex_pb__varint(m, v[j]);
		for (; q < end; q += sizeof(lk)) {
			memcpy(&lk, q, sizeof(lk));
			lb.len = 0;
			ex_pb__u64(&lb, 1, lk.key);
			ex_pb__u64(&lb, 2, lk.str);
			ex_pb__u64(&lb, 3, (uint64_t)lk.num);
			ex_pb__u64(&lb, 4, lk.unit);
			if (lb.err)
				m->err = true;
			else
				ex_pb__bytes(m, 3, lb.b, lb.len);
		}
		err = ex_out__field(o, 2, m);
	}
	free(ids);
	ex_pb__free(&lb);
	return err;
}

static int write_tables(struct pebs_pprof *p, struct ex_out *o,
			struct ex_pb *m)
{
	struct ex_pb line = { 0 };
	uint32_t i, key[2];
	struct loc_key lk;
	const uint8_t *k;
	size_t len;
	int err = 0;

	for (i = 0; i < p->maps.n && !err; i++) {
		k = ex_intern__key(&p->maps, i, &len);
		memcpy(key, k, sizeof(key));
		m->len = 0;
		/* addresses are file offsets (the kernel's: its own):
		   memory_start and file_offset 0 */
		ex_pb__u64(m, 1, i + 1);
		ex_pb__u64(m, 3, p->map_limit[i]);
		ex_pb__u64(m, 5, key[0]);
		ex_pb__u64(m, 6, key[1]);
		ex_pb__u64(m, 7, 1);	/* has_functions */
		ex_pb__u64(m, 8, 1);	/* has_filenames */
		ex_pb__u64(m, 9, 1);	/* has_line_numbers */
		err = ex_out__field(o, 3, m);
	}
	for (i = 0; i < p->locs.n && !err; i++) {
		k = ex_intern__key(&p->locs, i, &len);
		memcpy(&lk, k, sizeof(lk));
		m->len = 0;
		ex_pb__u64(m, 1, i + 1);
		ex_pb__u64(m, 2, lk.map);
		ex_pb__u64(m, 3, lk.addr);
		line.len = 0;
		ex_pb__u64(&line, 1, p->loc_line[i].fn);
		ex_pb__u64(&line, 2, p->loc_line[i].line);
		/* no line for a location never given one (no function) */
		if (line.err)
			m->err = true;
		else if (p->loc_line[i].fn)
			ex_pb__bytes(m, 4, line.b, line.len);
		err = ex_out__field(o, 4, m);
	}
	for (i = 0; i < p->funcs.n && !err; i++) {
		k = ex_intern__key(&p->funcs, i, &len);
		memcpy(key, k, sizeof(key));
		m->len = 0;
		ex_pb__u64(m, 1, i + 1);
		ex_pb__u64(m, 2, key[0]);
		ex_pb__u64(m, 3, key[0]);
		ex_pb__u64(m, 4, key[1]);
		err = ex_out__field(o, 5, m);
	}
	for (i = 0; i < p->strs.n && !err; i++) {
		k = ex_intern__key(&p->strs, i, &len);
		m->len = 0;
		ex_pb__bytes(m, 6, k, len);
		/* field 6 is a string itself: write it without a wrapper */
		if (m->err)
			err = core_err(-ENOMEM, "pprof: out of memory");
		else if (gzwrite(o->gz, m->b, (unsigned int)m->len) !=
			 (int)m->len)
			err = core_err(-EIO, "cannot write %s: free space or "
				       "choose another path", o->path);
	}
	ex_pb__free(&line);
	return err;
}

/* the scalar fields: varints written straight (no length) */
static int write_scalars(struct pebs_pprof *p, struct ex_out *o,
			 struct ex_pb *m)
{
	unsigned int i;

	m->len = 0;
	ex_pb__u64(m, 9, (uint64_t)p->time_ns);
	ex_pb__u64(m, 10, (uint64_t)p->duration_ns);
	for (i = 0; i < p->nr_comments; i++)
		ex_pb__u64(m, 13, p->comments[i]);
	if (p->has_def)
		ex_pb__u64(m, 14, p->types[p->def_type][0]);
	if (m->err)
		return core_err(-ENOMEM, "pprof: out of memory");
	if (m->len && gzwrite(o->gz, m->b, (unsigned int)m->len) != (int)m->len)
		return core_err(-EIO, "cannot write %s: free space or choose "
				"another path", o->path);
	return 0;
}

int pebs_pprof__write(struct pebs_pprof *p, const char *path)
{
	struct ex_pb m = { 0 };
	struct ex_out o;
	unsigned int i;
	int err;

	if (!p || !path)
		return core_err(-EINVAL, "pprof: no profile or path");
	err = ex_out__open(&o, path, true);
	if (err)
		return err;
	for (i = 0; i < p->nr_types && !err; i++) {
		m.len = 0;
		ex_pb__u64(&m, 1, p->types[i][0]);
		ex_pb__u64(&m, 2, p->types[i][1]);
		err = ex_out__field(&o, 1, &m);
	}
	if (!err)
		err = write_samples(p, &o, &m);
	if (!err)
		err = write_tables(p, &o, &m);
	if (!err)
		err = write_scalars(p, &o, &m);
	ex_pb__free(&m);
	if (err) {
		ex_out__abort(&o);
		return err;
	}
	return ex_out__commit(&o);
}
