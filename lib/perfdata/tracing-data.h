/* SPDX-License-Identifier: MIT */
/*
 * tracing-data.h - perf's tracing data (HEADER_TRACING_DATA): the
 * tracefs formats perf's readers need to decode PERF_SAMPLE_RAW of
 * tracepoint samples. Written by lib/perfdata/tracing-data.c, read back by the
 * same file (tests, and any reader that wants the formats). Not
 * installed.
 */
#ifndef PEBSSHIM_TRACING_DATA_H
#define PEBSSHIM_TRACING_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata-write.h"

/*
 * tracing_data_build - append to @b what perf's tracing_data_get()
 * and tracing_data_put() write (version 0.6) for the tracepoints whose
 * ids are @ids[0..nr): the magic "\027\bDtracing", "0.6", endianness,
 * sizeof(long), page size, events/header_page and events/header_event,
 * the formats of the recorded ftrace events, then per recorded system
 * its name and the formats of its recorded events (both in the
 * tracefs's directory order, as perf walks them), an empty kallsyms (as
 * perf 5.x+ writes it), printk_formats and saved_cmdlines. Each id is
 * looked up through @names[i] ("sys:name" as typed, modifiers after a
 * further ':' or '/' ignored; may be NULL) and, when that does not name
 * it, by a walk of every tracefs event. @root is the tracefs directory
 * (event_tp_root()). 0, or -errno with a message (no tracefs, an id no
 * tracepoint has, an unreadable format); @b then holds garbage.
 */
int tracing_data_build(struct bytes *b, const char *root,
		       const uint64_t *ids, const char *const *names,
		       unsigned int nr);

/* what tracing_data_parse found; the pointers point into the input */
struct pebs_tracing_data {
	char version[8];
	bool big_endian;
	unsigned int long_size;
	uint32_t page_size;
	const char *header_page, *header_event, *kallsyms, *printk,
		   *cmdlines;
	size_t header_page_len, header_event_len, kallsyms_len, printk_len,
	       cmdlines_len;
	unsigned int nr_systems;	/* besides ftrace */
	unsigned int nr_formats;	/* ftrace's and the systems' */
};

/* called per event format; nonzero stops the parse with that value */
typedef int (*pebs_tracing_format_fn)(void *arg, const char *sys,
				      const char *format, size_t len);

/*
 * tracing_data_parse - read perf's tracing data (versions 0.5 and
 * 0.6, little-endian), as perf's trace_report() does, calling @fn (may
 * be NULL) for each event format. Linear in @len, no allocation.
 * 0, @fn's nonzero value, or -EINVAL with a message naming the part
 * that is cut short or malformed.
 */
int tracing_data_parse(const void *buf, size_t len,
		       struct pebs_tracing_data *td,
		       pebs_tracing_format_fn fn, void *arg);

/*
 * wr_tracing_data_prepare - w->tracing: HEADER_TRACING_DATA of the
 * writer's tracepoint events (empty without any), read once when data
 * starts; 0 or -errno with a message (the recording cannot be decoded
 * without it). wr_tracing_data_record - append the pipe format's
 * PERF_RECORD_HEADER_TRACING_DATA (header, aligned size, the data, zero
 * padding), as perf_event__synthesize_tracing_data; nothing when
 * w->tracing is empty.
 */
int wr_tracing_data_prepare(struct pebs_perfdata_writer *w);
void wr_tracing_data_record(const struct pebs_perfdata_writer *w,
			    struct bytes *b);

#endif /* PEBSSHIM_TRACING_DATA_H */
