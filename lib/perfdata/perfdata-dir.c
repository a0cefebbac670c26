// SPDX-License-Identifier: MIT
/*
 * perfdata-dir.c - directory-format recordings (perf record --threads):
 * DIR/data is a perf.data file with the header, the attrs, the features
 * (HEADER_DIR_FORMAT among them) and the records perf synthesized; each
 * DIR/data.N holds the raw records one writer thread took from its ring
 * buffers (no header). perf reads all of them and sorts by time.
 *
 * Here __next returns DIR/data's own records first, then merges the
 * data.N files: of the files' next records, the earliest by time comes
 * out (a record without a time goes with its file's last time, so it
 * keeps its place after the record before it). Each file is in time
 * order as written, so the merge is too; when the events do not agree
 * on where the time sits (or record none), the files are concatenated.
 * Each file is mapped; the files' next records wait in a binary heap
 * ordered by (time, file number), so a pick costs O(log files).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "core/internal.h"
#include "perfdata/perfdata-int.h"

/* data.0 .. data.N-1: perf record --threads writes one per CPU at most */
#define MAX_FILES	PEBS_MAX_CPUS

struct pd_kid {
	struct pebs_perfdata *pd;	/* the file's records */
	const unsigned char *head;	/* its next record, or NULL */
	uint64_t key;			/* its time (see key()) */
	uint64_t last;			/* the time of the last one taken */
};

struct pd_dir {
	unsigned int n;
	int time_sample;	/* offset of TIME in a sample, or -1 */
	int time_other;		/* its distance from a record's end, or -1 */
	bool started;
	bool taken;		/* heap[0]'s head was returned last */
	unsigned int nheap;
	unsigned int heap[MAX_FILES];	/* kids with a head, earliest first */
	struct pd_kid kid[];
};

/* where every event has the time: sets d->time_sample / time_other */
static void time_pos(struct pd_dir *d, const struct pebs_perfdata *pd)
{
	d->time_sample = d->time_other = -1;
	for (unsigned int i = 0; i < pd->nr_attrs; i++) {
		const struct pebs_sample_layout *l = &pd->attrs[i].layout;
		int s = -1, o = -1;

		if (l->sample_type & PERF_SAMPLE_TIME) {
			s = pebs_sample_layout__pos(l, PERF_SAMPLE_TIME, false);
			if (pd->attrs[i].attr.sample_id_all)
				o = pebs_sample_layout__pos(l, PERF_SAMPLE_TIME,
							    true);
		}
		if (!i) {
			d->time_sample = s;
			d->time_other = o;
		}
		if (s != d->time_sample)
			d->time_sample = -1;
		if (o != d->time_other)
			d->time_other = -1;
	}
}

/* the raw records of DIR/data.N, or NULL in *pdp if the file is empty */
static int open_records(const struct pebs_perfdata *parent, int fd,
			struct pebs_perfdata **pdp)
{
	struct pebs_perfdata *pd;
	struct stat st;
	void *buf;

	*pdp = NULL;
	if (fstat(fd, &st))
		return core_err(-errno, "cannot stat: %m");
	if (!st.st_size)
		return 0;
	buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf == MAP_FAILED)
		return core_err(-errno, "cannot map: %m");
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		munmap(buf, st.st_size);
		return core_err(-ENOMEM, "out of memory for a perf.data reader");
	}
	pd->buf = buf;
	pd->size = pd->data_end = st.st_size;
	pd->mapped = true;
	pd->fd = -1;
	pd->unfinished = true;	/* no size to trust: a cut record is dropped */
	/* HEADER_COMPRESSED, for -z (the parent outlives its files) */
	pd->feat[PEBS_FEAT_COMPRESSED] = parent->feat[PEBS_FEAT_COMPRESSED];
	pd->feat_size[PEBS_FEAT_COMPRESSED] =
		parent->feat_size[PEBS_FEAT_COMPRESSED];
	*pdp = pd;
	return 0;
}

void pd_dir__free(struct pd_dir *d)
{
	if (!d)
		return;
	for (unsigned int i = 0; i < d->n; i++)
		pebs_perfdata__close(d->kid[i].pd);
	free(d);
}

int pd_dir__open(int dirfd, struct pebs_perfdata **pdp)
{
	struct pebs_perfdata *pd;
	struct pd_dir *d;
	char name[32];
	int fd, err;

	fd = openat(dirfd, "data", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return core_err(errno == ENOENT ? -EOPNOTSUPP : -errno,
				"a directory without a 'data' file: give a perf.data file or a perf record --threads directory");
	err = pebs_perfdata__open_fd(fd, &pd);
	if (err)
		return pd_with_name(err, "data");
	if (!pebs_perfdata__has_feat(pd, PEBS_FEAT_DIR_FORMAT)) {
		pebs_perfdata__close(pd);
		return core_err(-EOPNOTSUPP,
				"a directory whose 'data' file is not a perf record --threads header (no HEADER_DIR_FORMAT): give the perf.data file itself");
	}
	d = calloc(1, sizeof(*d) + MAX_FILES * sizeof(d->kid[0]));
	if (!d) {
		pebs_perfdata__close(pd);
		return core_err(-ENOMEM, "out of memory for a perf.data directory");
	}
	pd->dir = d;
	time_pos(d, pd);
	for (unsigned int i = 0; i < MAX_FILES; i++) {
		snprintf(name, sizeof(name), "data.%u", i);
		fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			break;
		err = fd < 0 ? core_err(-errno, "cannot open: %m") :
			       open_records(pd, fd, &d->kid[d->n].pd);
		if (fd >= 0)
			close(fd);
		if (err) {
			pebs_perfdata__close(pd);
			return pd_with_name(err, name);
		}
		d->n += d->kid[d->n].pd != NULL;
	}
	*pdp = pd;
	return 0;
}

/* the time of @k's head record, or its last one's */
static uint64_t key(const struct pd_dir *d, const struct pd_kid *k)
{
	uint32_t type = ld32(k->head);
	uint16_t size = ld16(k->head + 6);

	if (type == PERF_RECORD_SAMPLE && d->time_sample >= 0 &&
	    size >= d->time_sample + 8)
		return ld64(k->head + d->time_sample);
	if (type != PERF_RECORD_SAMPLE && type < PEBS_PERF_RECORD_HEADER_ATTR &&
	    d->time_other >= 0 && size >= 8 + d->time_other)
		return ld64(k->head + size - d->time_other);
	return k->last;
}

static bool before(const struct pd_dir *d, unsigned int a, unsigned int b)
{
	return d->kid[a].key < d->kid[b].key ||
	       (d->kid[a].key == d->kid[b].key && a < b);
}

static void sift_down(struct pd_dir *d, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, m = i, t;

		if (l < d->nheap && before(d, d->heap[l], d->heap[m]))
			m = l;
		if (l + 1 < d->nheap && before(d, d->heap[l + 1], d->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = d->heap[i];
		d->heap[i] = d->heap[m];
		d->heap[m] = t;
		i = m;
	}
}

static void sift_up(struct pd_dir *d, unsigned int i)
{
	while (i && before(d, d->heap[i], d->heap[(i - 1) / 2])) {
		unsigned int p = (i - 1) / 2, t = d->heap[i];

		d->heap[i] = d->heap[p];
		d->heap[p] = t;
		i = p;
	}
}

/* read kid @i's next record: 1 (its key set), 0 (no more), -errno */
static int advance(struct pd_dir *d, unsigned int i)
{
	struct pd_kid *k = &d->kid[i];
	const struct perf_event_header *ev;
	int r = pebs_perfdata__next(k->pd, &ev);

	k->head = r > 0 ? (const unsigned char *)ev : NULL;
	if (r > 0)
		k->key = key(d, k);
	return r;
}

int pd_dir__next(struct pd_dir *d, const unsigned char **rec)
{
	struct pd_kid *k;
	int r;

	if (!d->started) {
		for (unsigned int i = 0; i < d->n; i++) {
			r = advance(d, i);
			if (r < 0)
				return r;
			if (r) {
				d->heap[d->nheap++] = i;
				sift_up(d, d->nheap - 1);
			}
		}
		d->started = true;
	} else if (d->taken) {	/* replace the record returned last */
		r = advance(d, d->heap[0]);
		if (r < 0)
			return r;
		if (!r)
			d->heap[0] = d->heap[--d->nheap];
		sift_down(d, 0);
	}
	d->taken = false;
	if (!d->nheap)
		return 0;
	k = &d->kid[d->heap[0]];
	k->last = k->key;
	d->taken = true;
	*rec = k->head;
	return 1;
}

void pd_dir__rewind(struct pd_dir *d)
{
	for (unsigned int i = 0; i < d->n; i++) {
		pebs_perfdata__rewind(d->kid[i].pd);
		d->kid[i].head = NULL;
		d->kid[i].last = 0;
	}
	d->started = d->taken = false;
	d->nheap = 0;
}

bool pd_dir__truncated(const struct pd_dir *d)
{
	for (unsigned int i = 0; i < d->n; i++)
		if (d->kid[i].pd->truncated)
			return true;
	return false;
}
