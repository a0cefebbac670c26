// SPDX-License-Identifier: MIT
/*
 * perfdata-write.c - write perf.data (PERFILE2) files and streams.
 *
 * File layout, as perf record writes it:
 *
 *	file header (104 bytes)
 *	ids of every attr (u64 arrays)
 *	attrs section: per attr, perf_event_attr + perf_file_section(ids)
 *	data section: the records
 *	feature table: one perf_file_section per set feature bit, in order
 *	feature contents
 *
 * The file is built as an unnamed temporary file in the target's
 * directory and appears at its path only at __commit() (an existing
 * regular file becoming PATH.old, perf's rule): a recording that fails
 * to start leaves the disk as it was. The header goes first, with the
 * data size it has so far (updated after each flush), so a killed
 * recording stays readable up to its last flushed record; __close()
 * appends the features and sets their bits.
 *
 * The pipe format (perf record -o -): a 16-byte header, then one
 * HEADER_ATTR record per event and one HEADER_FEATURE record per
 * feature known at the start, then the records.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "core/opts.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/tracing-data.h"

#define WBUF_SIZE		(1u << 20)
#define FLUSH_NS		1000000000ull	/* flush at least each second */
#define HDR_DATA_SIZE_OFF	offsetof(struct pebs_perf_file_header, data.size)

_Static_assert(sizeof(struct perf_event_attr) >= PERF_ATTR_SIZE_VER7,
	       "perf_event_attr older than PERF_ATTR_SIZE_VER7");

/* pwrite all of @p; *@done (if not NULL): how much was written */
static int pwrite_some(int fd, const void *p, size_t len, uint64_t off,
		       size_t *done)
{
	const char *c = p;
	int err = 0;

	while (len) {
		ssize_t n = pwrite(fd, c, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		c += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	if (done)
		*done = (size_t)(c - (const char *)p);
	return err;
}

static int pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
	return pwrite_some(fd, p, len, off, NULL);
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_failed(struct pebs_perfdata_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return core_err(err, "cannot write %s: %s: %s", w->path,
			strerror(-err), err == -EPIPE ? "the reader went away" :
			"free space on its file system (or raise ulimit -f)");
}

static struct pebs_perfdata_writer *writer_new(const char *name)
{
	struct pebs_perfdata_writer *w;

	w = calloc(1, sizeof(*w) + strlen(name) + 1);
	if (!w)
		return NULL;
	strcpy(w->path, name);
	w->fd = -1;
	w->attr_size = PERF_ATTR_SIZE_VER7;
	w->buf = malloc(WBUF_SIZE);
	if (!w->buf) {
		free(w);
		return NULL;
	}
	return w;
}

static void writer_free(struct pebs_perfdata_writer *w)
{
	unsigned int i;
	int j;

	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
		free(w->attrs[i].group);
	}
	free(w->attrs);
	core_strset_free(&w->files);
	for (j = 0; j < w->argc; j++)
		free(w->argv[j]);
	free(w->argv);
	free(w->tmp_path);
	free(w->tracing.p);
	free(w->meta.p);
	free(w->buf);
	free(w);
}

int pebs_perfdata_writer__create(const char *path,
				 struct pebs_perfdata_writer **wp)
{
	struct pebs_perfdata_writer *w;
	int err;

	if (!path || !wp)
		return core_err(-EINVAL, "perfdata writer: no path given");
	*wp = NULL;
	err = pebs_output__check(path);
	if (err)
		return err;
	w = writer_new(path);
	if (!w)
		return core_err(-ENOMEM, "perfdata writer: out of memory");
	err = wr_open_tmp(w);
	if (err) {
		core_err(err, "cannot create %s: %s: choose a writable path",
			 path, strerror(-err));
		writer_free(w);
		return err;
	}
	*wp = w;
	core_err_clear();
	return 0;
}

int pebs_perfdata_writer__create_pipe(int fd, struct pebs_perfdata_writer **wp)
{
	struct pebs_perfdata_writer *w;

	if (fd < 0 || !wp)
		return core_err(-EINVAL, "perfdata writer: bad pipe fd %d", fd);
	w = writer_new("standard output");
	if (!w)
		return core_err(-ENOMEM, "perfdata writer: out of memory");
	w->fd = fd;
	w->pipe = true;
	w->committed = true;
	*wp = w;
	return 0;
}

/* PERF_ATTR_SIZE_VER7, or the whole struct when a later field is set */
static size_t attr_size_of(const struct perf_event_attr *attr)
{
	const unsigned char *p = (const unsigned char *)attr;

	for (size_t i = PERF_ATTR_SIZE_VER7; i < sizeof(*attr); i++)
		if (p[i])
			return sizeof(*attr);
	return PERF_ATTR_SIZE_VER7;
}

int pebs_perfdata_writer__add_attr(struct pebs_perfdata_writer *w,
				   const struct perf_event_attr *attr,
				   const uint64_t *ids, unsigned int nr_ids,
				   const char *name)
{
	struct wattr *a, *na;
	struct pebs_sample_layout l;

	if (!w || !attr || (nr_ids && !ids))
		return core_err(-EINVAL, "perfdata writer: bad attr arguments");
	if (w->started)
		return core_err(-EINVAL, "perfdata writer: events must be "
				"added before the first record");
	if (w->nr_attrs) {
		const struct perf_event_attr *first = &w->attrs[0].attr;

		if (!(attr->sample_type & PERF_SAMPLE_IDENTIFIER) ||
		    !(first->sample_type & PERF_SAMPLE_IDENTIFIER))
			return core_err(-EINVAL, "perfdata writer: several "
					"events need PERF_SAMPLE_IDENTIFIER in "
					"every sample_type");
		if (attr->sample_id_all != first->sample_id_all)
			return core_err(-EINVAL, "perfdata writer: all events "
					"need the same sample_id_all");
		if (!w->attrs[0].nr_ids || !nr_ids)
			return core_err(-EINVAL, "perfdata writer: several "
					"events need their sample ids");
	}
	na = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return core_err(-ENOMEM, "perfdata writer: out of memory");
	w->attrs = na;
	a = &na[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	/* the caller's attr.size: older or newer kernel headers */
	if (opts_attr_copy(&a->attr, attr, "perfdata writer"))
		return -EINVAL;
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*ids));
		if (!a->ids)
			return core_err(-ENOMEM, "perfdata writer: out of memory");
		memcpy(a->ids, ids, nr_ids * sizeof(*ids));
	}
	a->nr_ids = nr_ids;
	a->name = strdup(name ? name : "");
	if (!a->name) {
		free(a->ids);
		return core_err(-ENOMEM, "perfdata writer: out of memory");
	}
	/* only the places of the leading fields are needed: those of an
	   attr the decoder cannot read whole are still known */
	pebs_sample_layout__init(&l, &a->attr);
	a->time_pos = -1;
	if (l.sample_type & PERF_SAMPLE_TIME)
		a->time_pos = (pebs_sample_layout__pos(&l, PERF_SAMPLE_TIME,
						       false) - 8) / 8;
	if (!w->nr_attrs && attr->sample_id_all)
		w->id_hdr_size = pebs_sample_layout__pos(&l, PERF_SAMPLE_TID,
							 true);
	if (attr_size_of(&a->attr) > w->attr_size)
		w->attr_size = attr_size_of(&a->attr);
	w->nr_attrs++;
	return 0;
}

int pebs_perfdata_writer__set_cmdline(struct pebs_perfdata_writer *w,
				      int argc, const char *const *argv)
{
	char **v;
	int i;

	if (!w || argc < 0 || (argc && !argv))
		return core_err(-EINVAL, "perfdata writer: bad cmdline");
	v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return core_err(-ENOMEM, "perfdata writer: out of memory");
	for (i = 0; i < argc; i++) {
		v[i] = strdup(argv[i]);
		if (!v[i])
			goto out_free;
	}
	for (i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	w->argv = v;
	w->argc = argc;
	return 0;

out_free:
	while (i--)
		free(v[i]);
	free(v);
	return core_err(-ENOMEM, "perfdata writer: out of memory");
}

/* the file header; features only at the end (@feats: bits to set) */
static void file_header(const struct pebs_perfdata_writer *w,
			struct pebs_perf_file_header *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = PEBS_PERF_MAGIC;
	hdr->size = sizeof(*hdr);
	hdr->attr_size = w->attr_size + sizeof(struct pebs_perf_file_section);
	hdr->attrs.offset = w->attrs_offset;
	hdr->attrs.size = w->nr_attrs * hdr->attr_size;
	hdr->data.offset = w->data_offset;
	hdr->data.size = w->stats.bytes;
}

/* File: ids, attrs, and the header saying "no data yet". */
static int start_file(struct pebs_perfdata_writer *w)
{
	struct pebs_perf_file_header hdr;
	struct pebs_perf_file_section sec;
	struct bytes b = { 0 };
	uint64_t off = sizeof(hdr), ids_off = off;
	unsigned int i;
	int err;

	for (i = 0; i < w->nr_attrs; i++)
		bytes_add(&b, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	w->attrs_offset = off + b.len;
	for (i = 0; i < w->nr_attrs; i++) {
		sec.offset = ids_off;
		sec.size = w->attrs[i].nr_ids * 8;
		ids_off += sec.size;
		bytes_add(&b, &w->attrs[i].attr, w->attr_size);
		bytes_add(&b, &sec, sizeof(sec));
	}
	if (b.oom) {
		free(b.p);
		return core_err(-ENOMEM, "perfdata writer: out of memory");
	}
	w->data_offset = off + b.len;
	file_header(w, &hdr);
	err = pwrite_all(w->fd, b.p, b.len, off);
	if (!err)
		err = pwrite_all(w->fd, &hdr, sizeof(hdr), 0);
	free(b.p);
	return err ? write_failed(w, err) : 0;
}

/* Append a record of any size (perf's feature records are unaligned). */
static int put(struct pebs_perfdata_writer *w, const void *p, size_t len);

/* Pipe: header, HEADER_ATTR per event, HEADER_FEATURE per feature. */
static int start_pipe(struct pebs_perfdata_writer *w)
{
	struct bytes f[PEBS_FEAT_CLOCK_DATA + 1];
	uint64_t hdr[2] = { PEBS_PERF_MAGIC, sizeof(hdr) };
	struct bytes b = { 0 };
	int err = put(w, hdr, sizeof(hdr));

	for (unsigned int i = 0; i < w->nr_attrs && !err; i++) {
		struct perf_event_header h = {
			.type = PEBS_PERF_RECORD_HEADER_ATTR,
		};
		size_t size = sizeof(h) + w->attr_size + w->attrs[i].nr_ids * 8;

		if (size > UINT16_MAX) {
			err = core_err(-E2BIG, "event %s has too many ids for "
				       "the pipe format: record to a file",
				       w->attrs[i].name);
			break;
		}
		h.size = (uint16_t)size;
		b.len = 0;
		bytes_add(&b, &h, sizeof(h));
		bytes_add(&b, &w->attrs[i].attr, w->attr_size);
		bytes_add(&b, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
		err = b.oom ? -ENOMEM : put(w, b.p, b.len);
	}
	memset(f, 0, sizeof(f));
	if (!err)
		wr_features(w, f, ARRAY_SIZE(f), true);
	for (unsigned int i = 0; i < ARRAY_SIZE(f); i++) {
		struct perf_event_header h = {
			.type = PEBS_PERF_RECORD_HEADER_FEATURE,
			.size = (uint16_t)(sizeof(h) + 8 + f[i].len),
		};
		uint64_t feat = i;

		if (!err && f[i].oom)
			err = core_err(-ENOMEM, "perfdata writer: out of memory");
		if (!err && f[i].len && sizeof(h) + 8 + f[i].len <= UINT16_MAX) {
			b.len = 0;
			bytes_add(&b, &h, sizeof(h));
			bytes_add(&b, &feat, sizeof(feat));
			bytes_add(&b, f[i].p, f[i].len);
			err = b.oom ? -ENOMEM : put(w, b.p, b.len);
		}
		free(f[i].p);
	}
	b.len = 0;
	wr_tracing_data_record(w, &b);
	if (!err && b.len)
		err = b.oom ? -ENOMEM : put(w, b.p, b.len);
	free(b.p);
	return err;
}

static int start_data(struct pebs_perfdata_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (w->started)
		return 0;
	for (unsigned int i = 0; i < w->nr_attrs; i++)
		w->attrs[i].attr.size = (uint32_t)w->attr_size;
	w->started = true;
	err = wr_tracing_data_prepare(w);
	if (!err)
		err = w->pipe ? start_pipe(w) : start_file(w);
	if (err) {
		w->err = w->err ? w->err : err;
		return err;
	}
	if (w->nr_attrs && w->attrs[0].attr.use_clockid) {
		/* for perf script --tod: wall time at a known clockid time */
		struct timespec tod, clk;

		clock_gettime(CLOCK_REALTIME, &tod);
		clock_gettime(w->attrs[0].attr.clockid, &clk);
		w->tod_ns = (uint64_t)tod.tv_sec * 1000000000 +
			    (uint64_t)tod.tv_nsec;
		w->clock_ns = (uint64_t)clk.tv_sec * 1000000000 +
			      (uint64_t)clk.tv_nsec;
	}
	return wr_synth_kernel_mmap(w);
}

/* the whole records at the start of the buffer within @len bytes */
static size_t whole_records(const struct pebs_perfdata_writer *w, size_t len)
{
	size_t at = 0;

	while (at + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h =
			(const void *)(w->buf + at);

		if (!h->size || at + h->size > len)
			break;
		at += h->size;
	}
	return at;
}

/*
 * Write the buffer; in a file, then the header's data size, so that the
 * file is complete up to here if recording dies. A write cut short (a
 * full disk) counts the whole records that made it.
 */
static int flush(struct pebs_perfdata_writer *w)
{
	uint64_t size;
	size_t done = 0;
	int err;

	if (!w->buf_len)
		return 0;
	if (w->pipe) {
		err = write_all(w->fd, w->buf, w->buf_len);
		done = err ? 0 : w->buf_len;
	} else {
		err = pwrite_some(w->fd, w->buf, w->buf_len,
				  w->data_offset + w->stats.bytes, &done);
		if (err)
			done = whole_records(w, done);
		size = w->stats.bytes + done;
		/* in a block written already: no new space needed */
		if (done && !err)
			err = pwrite_all(w->fd, &size, sizeof(size),
					 HDR_DATA_SIZE_OFF);
		else if (done)
			pwrite_all(w->fd, &size, sizeof(size),
				   HDR_DATA_SIZE_OFF);
	}
	w->stats.bytes += done;
	if (err)
		return write_failed(w, err);
	w->buf_len = 0;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/*
 * At the end of a round: flush when the last flush is FLUSH_NS old, so
 * that a killed recording loses at most that much, and a pipe's reader
 * sees records while they come.
 */
static int flush_if_old(struct pebs_perfdata_writer *w)
{
	uint64_t now = now_ns();

	if (now - w->flushed_ns < FLUSH_NS)
		return 0;
	w->flushed_ns = now;
	return flush(w);
}

static int put(struct pebs_perfdata_writer *w, const void *p, size_t len)
{
	int err;

	if (w->buf_len + len > WBUF_SIZE) {
		err = flush(w);
		if (err)
			return err;
	}
	memcpy(w->buf + w->buf_len, p, len);
	w->buf_len += len;
	return 0;
}

int pebs_perfdata_writer__write(struct pebs_perfdata_writer *w,
				const struct perf_event_header *ev)
{
	int err;

	if (!w || !ev || ev->size < sizeof(*ev) || ev->size % 8)
		return core_err(-EINVAL, "perfdata writer: bad record size %u",
				ev ? ev->size : 0);
	if (!w->started) {
		err = start_data(w);
		if (err)
			return err;
	}
	if (w->err)
		return w->err;
	err = put(w, ev, ev->size);
	if (err)
		return err;
	wr_account(w, ev);
	if (ev->type == PEBS_PERF_RECORD_FINISHED_ROUND)
		return flush_if_old(w);
	return 0;
}

const struct pebs_perfdata_writer_stats *
pebs_perfdata_writer__stats(const struct pebs_perfdata_writer *w)
{
	return &w->stats;
}

int pebs_perfdata_writer__commit(struct pebs_perfdata_writer *w)
{
	int err;

	if (!w)
		return core_err(-EINVAL, "perfdata writer: no writer");
	if (w->committed)
		return 0;
	err = start_data(w);
	if (!err)
		err = flush(w);
	if (err)
		return err;
	err = pebs_output__backup(w->path);
	if (err)
		return err;
	err = wr_link_in(w);
	if (err)
		return core_err(err, "cannot create %s: %s: choose a writable "
				"path", w->path, strerror(-err));
	free(w->tmp_path);
	w->tmp_path = NULL;
	w->committed = true;
	return 0;
}

/* Write the feature table and contents at @off; set the bits in @hdr. */
static int write_features(struct pebs_perfdata_writer *w, uint64_t off,
			  struct pebs_perf_file_header *hdr)
{
	struct bytes f[PEBS_FEAT_CLOCK_DATA + 1];
	struct pebs_perf_file_section secs[PEBS_FEAT_CLOCK_DATA + 1];
	struct bytes all = { 0 };
	uint64_t features[ARRAY_SIZE(hdr->features)] = { 0 };
	unsigned int i, nr = 0;
	uint64_t pos;
	int err;

	memset(f, 0, sizeof(f));
	wr_features(w, f, ARRAY_SIZE(f), false);
	for (i = 0; i < ARRAY_SIZE(f); i++)
		nr += f[i].len != 0;
	pos = off + nr * sizeof(struct pebs_perf_file_section);
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		if (!f[i].len)
			continue;
		secs[i].offset = pos;
		secs[i].size = f[i].len;
		pos += f[i].len;
		features[i / 64] |= 1ULL << (i % 64);
		bytes_add(&all, &secs[i], sizeof(secs[i]));
	}
	for (i = 0; i < ARRAY_SIZE(f); i++)
		bytes_add(&all, f[i].p, f[i].len);
	err = all.oom ? -ENOMEM : 0;
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		err = f[i].oom ? -ENOMEM : err;
		free(f[i].p);
	}
	if (err) {
		free(all.p);
		return core_err(err, "perfdata writer: out of memory");
	}
	err = pwrite_all(w->fd, all.p, all.len, off);
	free(all.p);
	if (err)
		return write_failed(w, err);
	memcpy(hdr->features, features, sizeof(features));
	return 0;
}

/*
 * Flush, then the features and the final header. After a write error
 * the header still gets the data size of the last complete flush (it
 * lies in blocks already allocated), so the file stays readable.
 */
static int finish(struct pebs_perfdata_writer *w)
{
	struct pebs_perf_file_header hdr;
	int err, err2;

	err = start_data(w);
	if (!err)
		err = flush(w);
	if (w->pipe || !w->started)
		return err;
	file_header(w, &hdr);
	if (!err)
		err = write_features(w, w->data_offset + w->stats.bytes, &hdr);
	err2 = pwrite_all(w->fd, &hdr, sizeof(hdr), 0);
	if (err2 && !err)
		err = write_failed(w, err2);
	if (!err && !w->nr_attrs)
		err = core_err(-EINVAL, "%s: no event was declared: perf "
			       "cannot read it", w->path);
	return err;
}

int pebs_perfdata_writer__close(struct pebs_perfdata_writer *w)
{
	int err, err2;

	if (!w)
		return 0;
	err = finish(w);
	err2 = pebs_perfdata_writer__commit(w);
	err = err ? err : err2;
	if (!w->pipe && close(w->fd) && !err)
		err = write_failed(w, -errno);
	w->fd = -1;
	if (w->tmp_path)
		unlink(w->tmp_path);
	writer_free(w);
	return err;
}

void pebs_perfdata_writer__discard(struct pebs_perfdata_writer *w)
{
	if (!w)
		return;
	if (!w->pipe && w->fd >= 0)
		close(w->fd);
	if (w->tmp_path)
		unlink(w->tmp_path);
	writer_free(w);
}
