/* SPDX-License-Identifier: MIT */
/*
 * pebsshim.h - libpebsshim, the public API of pebs-shim: this header
 * includes one header per module of the library, lowest first (a module
 * header includes the lower ones it needs, and may be included alone).
 *
 * Conventions (every function of the module headers follows them unless
 * it says otherwise):
 *  - Every exported name starts with pebs_ (types, functions) or PEBS_
 *    (macros). Methods of an object are pebs_<object>__<verb>.
 *  - Functions that act return 0 (or a count, where documented) on
 *    success and a negative errno on failure; they never return a bare
 *    -1 and never rely on errno. Constructors return 0 and store the
 *    new object through their last argument.
 *  - On failure the library also records a one-line, human-readable
 *    reason for the calling thread: pebs_errmsg() returns it (e.g.
 *    "/dev/pebs_map not found: load the module (insmod kmod/pebs_map.ko)").
 *    Success does not always clear it: read it only after a failure.
 *  - Predicates return bool. Getters (pebs_<object>__<field>) cannot
 *    fail. Helpers that belong to no object are plain pebs_<name>.
 *  - Objects are opaque and paired: __open/__new/__create with
 *    __close/__delete, all of which accept NULL.
 *    Plain structs are values; option structs start with a size field
 *    (sz) so that they can grow: set it with PEBS_OPTS().
 *
 * Extensible structs (how the public types stay binary compatible; as
 * libbpf's *_opts):
 *  - Option and callback structs the caller fills and the library reads
 *    (pebs_channel_opts, pebs_chanset_cbs, pebs_observer_opts,
 *    pebs_obs_raw_opts, pebs_attrib_cbs, pebs_flame_svg_opts) start
 *    with `size_t sz`, which PEBS_OPTS() sets to the size the caller
 *    was compiled with. The library reads only the first sz bytes:
 *    fields an older caller lacks read as zero (the defaults). A newer
 *    caller's larger sz is accepted when every byte past the library's
 *    struct is zero, refused with -EINVAL otherwise
 *    (a field this library cannot honour); so is sz smaller than the sz
 *    field itself (not set). New fields are only ever appended.
 *  - No public struct embeds a kernel struct whose size depends on the
 *    caller's <linux/perf_event.h> (new kernels grow perf_event_attr):
 *    struct pebs_event keeps its attr in a fixed PEBS_EVENT_ATTR_AREA
 *    (256-byte) union, so its size and layout are the same whatever
 *    headers the caller has; the area's bytes past the library's own
 *    struct perf_event_attr must be zero when an event is opened
 *    (-EINVAL). An opaque object with setters was the alternative; a
 *    value struct with a fixed area keeps `ev.attr.config` and arrays of
 *    events (pebs_event__parse_list, pebs_chanset__new) working.
 *  - A perf_event_attr passed by pointer: inputs copied whole are read
 *    up to attr->size (0: the library's size) with the same zero rule
 *    (pebs_perfdata_writer__add_attr); outputs take the caller's size
 *    (pebs_channel_attr); pointers returned into the library
 *    (pebs_channel__attr) point at PEBS_EVENT_ATTR_AREA bytes, zero
 *    past attr->size. Functions that only read fields present since
 *    PERF_ATTR_SIZE_VER5 (Linux 4.1: pebs_sample_layout__init,
 *    pebs_attr_large_pebs) take any attr of at least that size.
 *  - The sizes of the public structs are pinned: PEBS_STATIC_ASSERT
 *    below and tests/unit/test-abi.c; tests/cli/abi.t compares every
 *    type with the dump abi/libpebsshim.abi.
 */
#ifndef PEBSSHIM_H
#define PEBSSHIM_H

#include "pebsshim/core.h"      /* errors, PEBS_API, PEBS_OPTS, CPU lists */
#include "pebsshim/map.h"       /* the /dev/pebs_map table, timelines */
#include "pebsshim/event.h"     /* event strings, lists, groups */
#include "pebsshim/decode.h"    /* samples, data sources, records */
#include "pebsshim/sampling.h"  /* rings, channels, channel sets */
#include "pebsshim/observe.h"   /* the observer, its summaries, raw file */
#include "pebsshim/attrib.h"    /* attribution, switch records */
#include "pebsshim/symbols.h"   /* symbols, call chains, build ids */
#include "pebsshim/perfdata.h"  /* perf.data reader and writer */
#include "pebsshim/session.h"   /* threads, time order, filters */
#include "pebsshim/objects.h"   /* data objects (record --objects) */
#include "pebsshim/record.h"    /* a recording in progress */
#include "pebsshim/c2c.h"       /* cache-line sharing (perf c2c) */
#include "pebsshim/report.h"    /* reports, weights, data labels */
#include "pebsshim/script.h"    /* one line per sample (perf script) */
#include "pebsshim/export.h"    /* pprof profiles */
#include "pebsshim/plot.h"      /* flame graphs, timelines, heat maps */
#include "pebsshim/selftest.h"  /* pebs-shim test: checks, the machine */

#endif /* PEBSSHIM_H */
