/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/script.h - libpebsshim: one line per sample, as perf script
 * prints it, or csv or JSON lines (lib/script/script.c).
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_SCRIPT_H
#define PEBSSHIM_SCRIPT_H

#include <stdio.h>

#include "pebsshim/symbols.h"
#include "pebsshim/session.h"
#include "pebsshim/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A pebs_script prints samples one per line as perf script -F does:
 * perf's field names (comm, tid, pid, time, cpu, event, ip, sym, symoff,
 * dso, addr, data_src, weight, period, phys_addr, callchain) and
 * pebs-shim's own: attr_tid (the thread running on the sample's CPU at
 * its time by the recording's switch history, PERF_RECORD_SWITCH_CPU_WIDE:
 * the module's or the kernel's), mem_level (the data source's level,
 * as pebs_data_src__decode's lvl), data_object (pebs_symbols__data_label).
 * Text is perf script's line, byte for byte for perf's fields, with
 * pebs-shim's appended as " name=value"; csv has a header row and
 * one row per sample; jsonl one object per sample. Feed it the
 * session's non-sample records (pebs_session__set_records with
 * pebs_script__record) for attr_tid.
 */
struct pebs_script;

enum pebs_script_format {
	PEBS_SCRIPT_TEXT,
	PEBS_SCRIPT_CSV,
	PEBS_SCRIPT_JSONL,
};

/*
 * pebs_script__new - a printer for the samples of @pd (its events'
 * names and sample types) of fields @fields, comma-separated (NULL:
 * the default, perf script's for the events); in text, a perf field
 * that an event's samples do not carry is refused as perf refuses it.
 * Returns 0, -EINVAL (pebs_errmsg() names the bad field), -ENOMEM.
 */
PEBS_API int pebs_script__new(struct pebs_perfdata *pd, const char *fields,
			      enum pebs_script_format fmt,
			      struct pebs_script **sp);
PEBS_API void pebs_script__delete(struct pebs_script *sc);

/*
 * pebs_script__set_max_stack - print at most @max frames of each call
 * chain, as perf script --max-stack: the innermost (perf's callee
 * order); of a --call-graph dwarf sample, @max kernel frames and @max
 * unwound user frames (perf's unwinder has its own limit). Default: all.
 * Returns 0 or -EINVAL.
 */
PEBS_API int pebs_script__set_max_stack(struct pebs_script *sc,
					unsigned int max);

/* pebs_script__header - the csv header row (nothing for text and jsonl). */
PEBS_API int pebs_script__header(struct pebs_script *sc, FILE *f);

/* pebs_script__record - a non-sample record in time order (switches). */
PEBS_API int pebs_script__record(struct pebs_script *sc,
				 const struct perf_event_header *ev);

/*
 * pebs_script__sample - print sample @s of event @rs->event, resolved
 * as @rs by a session whose resolver is @syms (its maps now are those of
 * the sample's time: call it from the session's callback). Returns 0,
 * -EIO (write error), -ENOMEM.
 */
PEBS_API int pebs_script__sample(struct pebs_script *sc,
				 struct pebs_symbols *syms,
				 const struct pebs_sample *s,
				 const struct pebs_report_sample *rs, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_SCRIPT_H */
