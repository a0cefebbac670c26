// SPDX-License-Identifier: MIT
/*
 * obs-raw.c - the observer's raw file (pebs-shim observe --raw): one
 * record per kept observation and observed CPU, binary (the layout
 * below, little-endian) or CSV, and the parser of the binary layout.
 *
 * Records come at the observation rate (tens of MB/s when free-running),
 * so they go through one 256 KiB buffer written with write(2), whose
 * errors (ENOSPC, EFBIG, EPIPE) are seen at once, and stop at a size
 * limit: whole records only, never more than max_bytes in all.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/observe.h"
#include "core/internal.h"
#include "core/opts.h"

#define OBS_VERSION 1
#define BUF_SIZE (256 * 1024)

struct obs_file_header {
	char magic[8];		/* "PEBSOBS\0" */
	uint32_t version;	/* 1 */
	uint32_t header_size;	/* 64 + 64 * nr_events */
	uint32_t record_size;	/* 32 + 8 * nr_events */
	uint32_t nr_events;
	uint32_t nr_cpus;	/* observed CPUs */
	int32_t observer_cpu;
	uint64_t tsc_hz;	/* measured against CLOCK_MONOTONIC */
	uint64_t period_cycles;	/* --period-cycles, 0: free-running */
	uint32_t lo_ppm;	/* trustable bounds (ppm of 1) */
	uint32_t hi_ppm;
	uint64_t reserved;
	/* then nr_events names, PEBS_OBS_RAW_NAME_LEN bytes, NUL padded */
};

struct obs_record {
	uint64_t tsc;		/* start rdtscp of the observation */
	uint64_t dt;		/* cycles since the previous one's start */
	uint32_t cpu;		/* the observed CPU */
	int32_t tgid;		/* -1 never seen / no table, 0 idle */
	int32_t pid;
	uint32_t switches;	/* low 32 bits of the slot's switch count */
	/* then nr_events uint64_t counter deltas over dt */
};

_Static_assert(sizeof(struct obs_file_header) == 64, "64-byte header");
_Static_assert(sizeof(struct obs_record) == 32, "32-byte record head");
_Static_assert(sizeof(PEBS_OBS_RAW_MAGIC) == 8, "8-byte magic");

struct pebs_obs_raw {
	struct pebs_obs_raw_info info;
	unsigned int cpus[PEBS_MAX_CPUS];
	bool csv;
	uint64_t max_bytes;
	int fd;
	bool full;		/* max_bytes reached: records stop */
	uint64_t bytes, records;
	size_t len;
	char buf[BUF_SIZE];
};

static int flush(struct pebs_obs_raw *raw)
{
	size_t off = 0;

	while (off < raw->len) {
		ssize_t n = write(raw->fd, raw->buf + off, raw->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		off += n;
	}
	raw->len = 0;
	return 0;
}

/* append @len bytes, flushing as needed; @len <= BUF_SIZE */
static int put(struct pebs_obs_raw *raw, const void *p, size_t len)
{
	int err;

	if (raw->len + len > BUF_SIZE && (err = flush(raw)))
		return err;
	memcpy(raw->buf + raw->len, p, len);
	raw->len += len;
	raw->bytes += len;
	return 0;
}

static int header(struct pebs_obs_raw *raw)
{
	const struct pebs_obs_raw_info *in = &raw->info;
	struct obs_file_header h;
	int err;

	if (raw->csv) {
		err = put(raw, "tsc,dt,cpu,tgid,pid,switches", 28);
		for (unsigned int e = 0; !err && e < in->nr_events; e++) {
			err = put(raw, ",", 1);
			if (!err)
				err = put(raw, in->names[e], strlen(in->names[e]));
		}
		return err ? err : put(raw, "\n", 1);
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PEBS_OBS_RAW_MAGIC, sizeof(h.magic));
	h.version = OBS_VERSION;
	h.header_size = in->header_size;
	h.record_size = in->record_size;
	h.nr_events = in->nr_events;
	h.nr_cpus = in->nr_cpus;
	h.observer_cpu = in->observer_cpu;
	h.tsc_hz = in->tsc_hz;
	h.period_cycles = in->period_cycles;
	h.lo_ppm = in->lo_ppm;
	h.hi_ppm = in->hi_ppm;
	err = put(raw, &h, sizeof(h));
	for (unsigned int e = 0; !err && e < in->nr_events; e++)
		err = put(raw, in->names[e], PEBS_OBS_RAW_NAME_LEN);
	return err;
}

int pebs_obs_raw__create(const char *path,
			 const struct pebs_obs_raw_info *info,
			 const unsigned int *cpus,
			 const struct pebs_obs_raw_opts *opts,
			 struct pebs_obs_raw **rawp)
{
	struct pebs_obs_raw_opts o;
	struct pebs_obs_raw *raw;
	int err;

	if (!path || !info || !cpus || !rawp || !info->nr_cpus ||
	    info->nr_cpus > PEBS_MAX_CPUS ||
	    info->nr_events > PEBS_OBS_MAX_EVENTS)
		return core_err(-EINVAL, "raw file: bad arguments");
	err = opts_copy(&o, sizeof(o), opts, "pebs_obs_raw_opts");
	if (err)
		return err;
	raw = malloc(sizeof(*raw));
	if (!raw)
		return -ENOMEM;
	raw->info = *info;
	raw->info.header_size = sizeof(struct obs_file_header) +
				PEBS_OBS_RAW_NAME_LEN * info->nr_events;
	raw->info.record_size = sizeof(struct obs_record) +
				8 * info->nr_events;
	for (unsigned int e = 0; e < info->nr_events; e++)
		raw->info.names[e][PEBS_OBS_RAW_NAME_LEN - 1] = '\0';
	memcpy(raw->cpus, cpus, info->nr_cpus * sizeof(*cpus));
	raw->csv = o.csv;
	raw->max_bytes = o.max_bytes ? o.max_bytes : UINT64_MAX;
	raw->full = false;
	raw->bytes = raw->records = 0;
	raw->len = 0;
	raw->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (raw->fd < 0) {
		err = -errno;
		free(raw);
		return err;
	}
	err = header(raw);
	if (!err)
		err = flush(raw);
	if (err) {
		close(raw->fd);
		free(raw);
		return err;
	}
	*rawp = raw;
	return 0;
}

/* one observed CPU's record into @p; returns its length */
static size_t record(const struct pebs_obs_raw *raw, char *p, size_t cap,
		     uint64_t tsc, uint64_t dt, unsigned int i,
		     const uint64_t *w, const uint64_t *d)
{
	unsigned int nev = raw->info.nr_events;
	size_t n;

	if (raw->csv) {
		n = snprintf(p, cap, "%" PRIu64 ",%" PRIu64 ",%u,%d,%d,%" PRIu64,
			     tsc, dt, raw->cpus[i], (int32_t)w[0],
			     (int32_t)w[1], w[2]);
		for (unsigned int e = 0; e < nev && n < cap; e++)
			n += snprintf(p + n, cap - n, ",%" PRIu64, d[e]);
		if (n < cap)
			p[n++] = '\n';
		return n < cap ? n : cap;
	}
	struct obs_record r = {
		.tsc = tsc, .dt = dt, .cpu = raw->cpus[i],
		.tgid = (int32_t)w[0], .pid = (int32_t)w[1],
		.switches = (uint32_t)w[2],
	};

	memcpy(p, &r, sizeof(r));
	memcpy(p + sizeof(r), d, 8 * nev);
	return sizeof(r) + 8 * nev;
}

int pebs_obs_raw__add_row(struct pebs_obs_raw *raw, const uint64_t *row,
			  uint64_t dt, const uint64_t *deltas)
{
	unsigned int nev = raw->info.nr_events;
	const uint64_t *w = row + 2;
	/* 32 + 8 * 8 bytes binary; CSV: 6 + 8 numbers of at most 20 */
	char rec[512];
	int err;

	if (raw->full)
		return 0;
	for (unsigned int i = 0; i < raw->info.nr_cpus; i++) {
		size_t n = record(raw, rec, sizeof(rec), row[0], dt, i, w,
				  deltas + (size_t)i * nev);

		if (raw->bytes + n > raw->max_bytes) {
			raw->full = true;
			err = flush(raw);
			return err ? err : 1;
		}
		err = put(raw, rec, n);
		if (err)
			return err;
		raw->records++;
		w += PEBS_OBS_CPU_HEAD + nev;
	}
	return 0;
}

uint64_t pebs_obs_raw__bytes(const struct pebs_obs_raw *raw)
{
	return raw->bytes;
}

uint64_t pebs_obs_raw__records(const struct pebs_obs_raw *raw)
{
	return raw->records;
}

int pebs_obs_raw__close(struct pebs_obs_raw *raw)
{
	int err;

	if (!raw)
		return 0;
	err = flush(raw);
	if (close(raw->fd) && !err)
		err = -errno;
	free(raw);
	return err;
}

int pebs_obs_raw__parse_header(const void *buf, size_t len,
			       struct pebs_obs_raw_info *info)
{
	struct obs_file_header h;

	if (len < sizeof(h))
		return core_err(-ENODATA, "raw file: %zu bytes, shorter than its 64-byte header",
				len);
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, PEBS_OBS_RAW_MAGIC, sizeof(h.magic)))
		return core_err(-EPROTO, "raw file: bad magic: not written by pebs-shim observe --raw --format bin");
	if (h.version != OBS_VERSION)
		return core_err(-EPROTO, "raw file: version %u, this library reads %u",
				h.version, OBS_VERSION);
	if (!h.nr_cpus || h.nr_cpus > PEBS_MAX_CPUS ||
	    h.nr_events > PEBS_OBS_MAX_EVENTS ||
	    h.header_size != sizeof(h) + PEBS_OBS_RAW_NAME_LEN * h.nr_events ||
	    h.record_size != sizeof(struct obs_record) + 8 * h.nr_events)
		return core_err(-EPROTO, "raw file: inconsistent header (%u CPUs, %u events, sizes %u/%u)",
				h.nr_cpus, h.nr_events, h.header_size,
				h.record_size);
	if (len < h.header_size)
		return core_err(-ENODATA, "raw file: %zu bytes, shorter than its %u-byte header",
				len, h.header_size);
	memset(info, 0, sizeof(*info));
	info->nr_events = h.nr_events;
	info->nr_cpus = h.nr_cpus;
	info->observer_cpu = h.observer_cpu;
	info->tsc_hz = h.tsc_hz;
	info->period_cycles = h.period_cycles;
	info->lo_ppm = h.lo_ppm;
	info->hi_ppm = h.hi_ppm;
	info->header_size = h.header_size;
	info->record_size = h.record_size;
	for (unsigned int e = 0; e < h.nr_events; e++) {
		memcpy(info->names[e],
		       (const char *)buf + sizeof(h) + PEBS_OBS_RAW_NAME_LEN * e,
		       PEBS_OBS_RAW_NAME_LEN);
		info->names[e][PEBS_OBS_RAW_NAME_LEN - 1] = '\0';
	}
	return (int)h.header_size;
}

int pebs_obs_raw__parse_record(const struct pebs_obs_raw_info *info,
			       const void *buf, size_t len,
			       struct pebs_obs_raw_record *rec)
{
	struct obs_record r;

	if (len < info->record_size)
		return core_err(-ENODATA, "raw file: a cut record (%zu of %u bytes)",
				len, info->record_size);
	memcpy(&r, buf, sizeof(r));
	rec->tsc = r.tsc;
	rec->dt = r.dt;
	rec->cpu = r.cpu;
	rec->tgid = r.tgid;
	rec->pid = r.pid;
	rec->switches = r.switches;
	memset(rec->delta, 0, sizeof(rec->delta));
	memcpy(rec->delta, (const char *)buf + sizeof(r),
	       8 * (size_t)info->nr_events);
	return 0;
}
