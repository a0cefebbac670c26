/* SPDX-License-Identifier: MIT */
/*
 * observe-raw.h - pebs-shim observe's raw output (--raw FILE): one
 * record per kept observation and observed CPU, in the binary layout
 * that `pebs-shim observe --help` documents or as CSV, written through
 * a bounded buffer with a size limit (--raw-max).
 */
#ifndef PEBS_SHIM_OBSERVE_RAW_H
#define PEBS_SHIM_OBSERVE_RAW_H

#include <stdbool.h>
#include <stdint.h>

#include "pebsshim.h"

struct raw_out;

struct raw_conf {
	const char *path;
	bool csv;
	uint64_t max_bytes;	/* stop writing records beyond this size */
	unsigned int nr_cpus, nr_events;
	const unsigned int *cpus;	/* the observed CPU ids */
	const struct pebs_event *evs;
	int on_cpu;
	uint64_t tsc_hz, period_cycles;
	uint32_t lo_ppm, hi_ppm;
};

/*
 * raw_open - create (or replace) conf->path and write the header.
 * Returns 0, or -errno from open/write (-ENOMEM).
 */
int raw_open(const struct raw_conf *conf, struct raw_out **rawp);

/*
 * raw_row - the records of one kept observation (@row as
 * pebs_observer__read() fills it, @dt cycles since the previous kept
 * one, @deltas as pebs_obs_stats__add() fills them). Returns 0, 1 when
 * the size limit was reached now (no record is written after it;
 * observing goes on), or -errno from write(2) (ENOSPC, EFBIG, EPIPE...).
 */
int raw_row(struct raw_out *raw, const uint64_t *row, uint64_t dt,
	    const uint64_t *deltas);

/* bytes written so far (header included), and records */
uint64_t raw_bytes(const struct raw_out *raw);
uint64_t raw_records(const struct raw_out *raw);

/*
 * raw_close - flush and close. Returns 0 or -errno from write/close;
 * the file is closed and @raw freed in every case. NULL is allowed.
 */
int raw_close(struct raw_out *raw);

#endif
