// SPDX-License-Identifier: MIT
/*
 * observe-raw.c - pebs-shim observe --raw: the per-observation records.
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

#include "observe-raw.h"

/* the binary output: little-endian, one header then fixed-size records */
#define OBS_MAGIC "PEBSOBS"
#define OBS_VERSION 1
#define OBS_NAME_LEN 64
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
	/* then nr_events names, OBS_NAME_LEN bytes each, NUL padded */
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

struct raw_out {
	struct raw_conf c;
	int fd;
	bool full;		/* max_bytes reached: records stop */
	uint64_t bytes, records;
	size_t len;
	char buf[BUF_SIZE];
};

static int flush(struct raw_out *raw)
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
static int put(struct raw_out *raw, const void *p, size_t len)
{
	int err;

	if (raw->len + len > BUF_SIZE && (err = flush(raw)))
		return err;
	memcpy(raw->buf + raw->len, p, len);
	raw->len += len;
	raw->bytes += len;
	return 0;
}

static int header(struct raw_out *raw)
{
	const struct raw_conf *c = &raw->c;
	struct obs_file_header h;
	int err;

	if (c->csv) {
		err = put(raw, "tsc,dt,cpu,tgid,pid,switches", 28);
		for (unsigned int e = 0; !err && e < c->nr_events; e++) {
			err = put(raw, ",", 1);
			if (!err)
				err = put(raw, c->evs[e].name,
					  strnlen(c->evs[e].name,
						  sizeof(c->evs[e].name)));
		}
		return err ? err : put(raw, "\n", 1);
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, OBS_MAGIC, sizeof(OBS_MAGIC));
	h.version = OBS_VERSION;
	h.header_size = sizeof(h) + OBS_NAME_LEN * c->nr_events;
	h.record_size = sizeof(struct obs_record) + 8 * c->nr_events;
	h.nr_events = c->nr_events;
	h.nr_cpus = c->nr_cpus;
	h.observer_cpu = c->on_cpu;
	h.tsc_hz = c->tsc_hz;
	h.period_cycles = c->period_cycles;
	h.lo_ppm = c->lo_ppm;
	h.hi_ppm = c->hi_ppm;
	err = put(raw, &h, sizeof(h));
	for (unsigned int e = 0; !err && e < c->nr_events; e++) {
		char name[OBS_NAME_LEN] = "";

		memcpy(name, c->evs[e].name,
		       strnlen(c->evs[e].name, sizeof(name) - 1));
		err = put(raw, name, sizeof(name));
	}
	return err;
}

int raw_open(const struct raw_conf *conf, struct raw_out **rawp)
{
	struct raw_out *raw = malloc(sizeof(*raw));
	int err;

	if (!raw)
		return -ENOMEM;
	raw->c = *conf;
	raw->full = false;
	raw->bytes = raw->records = 0;
	raw->len = 0;
	raw->fd = open(conf->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0644);
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
static size_t record(const struct raw_out *raw, char *p, size_t cap,
		     const uint64_t *row, uint64_t dt, unsigned int i,
		     const uint64_t *w, const uint64_t *d)
{
	const struct raw_conf *c = &raw->c;
	size_t n;

	if (c->csv) {
		n = snprintf(p, cap, "%" PRIu64 ",%" PRIu64 ",%u,%d,%d,%" PRIu64,
			     row[0], dt, c->cpus[i], (int32_t)w[0],
			     (int32_t)w[1], w[2]);
		for (unsigned int e = 0; e < c->nr_events && n < cap; e++)
			n += snprintf(p + n, cap - n, ",%" PRIu64, d[e]);
		if (n < cap)
			p[n++] = '\n';
		return n < cap ? n : cap;
	}
	struct obs_record r = {
		.tsc = row[0], .dt = dt, .cpu = c->cpus[i],
		.tgid = (int32_t)w[0], .pid = (int32_t)w[1],
		.switches = (uint32_t)w[2],
	};

	memcpy(p, &r, sizeof(r));
	memcpy(p + sizeof(r), d, 8 * c->nr_events);
	return sizeof(r) + 8 * c->nr_events;
}

int raw_row(struct raw_out *raw, const uint64_t *row, uint64_t dt,
	    const uint64_t *deltas)
{
	const struct raw_conf *c = &raw->c;
	const uint64_t *w = row + 2;
	/* 32 + 8 * 8 bytes binary; CSV: 6 + 8 numbers of at most 20 */
	char rec[512];
	int err;

	if (raw->full)
		return 0;
	for (unsigned int i = 0; i < c->nr_cpus; i++) {
		size_t n = record(raw, rec, sizeof(rec), row, dt, i, w,
				  deltas + (size_t)i * c->nr_events);

		if (raw->bytes + n > c->max_bytes) {
			raw->full = true;
			err = flush(raw);
			return err ? err : 1;
		}
		err = put(raw, rec, n);
		if (err)
			return err;
		raw->records++;
		w += PEBS_OBS_CPU_HEAD + c->nr_events;
	}
	return 0;
}

uint64_t raw_bytes(const struct raw_out *raw)
{
	return raw->bytes;
}

uint64_t raw_records(const struct raw_out *raw)
{
	return raw->records;
}

int raw_close(struct raw_out *raw)
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
