/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/plot.h - libpebsshim: pictures: flame graphs, CPU timelines,
 * heat maps, SVG.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_PLOT_H
#define PEBSSHIM_PLOT_H

#include <stdio.h>
#include "pebsshim/decode.h"
#include "pebsshim/symbols.h"
#include "pebsshim/perfdata.h"
#include "pebsshim/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Flame graphs (lib/plot/flame.c, lib/plot/plot-flame.c)             */
/* ------------------------------------------------------------------ */

/*
 * A flame graph's data: stacks aggregated into a tree under a root
 * "all", each node one frame name under one parent, with its samples
 * and value (period or weight; the caller chooses what it adds). Memory
 * grows with the distinct nodes only. Not thread-safe.
 */
struct pebs_flame;

/* Frames per stack (the command or thread, and a call chain) */
#define PEBS_FLAME_MAX_DEPTH	256

/* A node as a walk shows it. */
struct pebs_flame_node {
	const char *name;	/* NULL for a merged block */
	enum pebs_frame_kind kind;
	unsigned int depth;	/* root 0 */
	uint64_t x;		/* left edge: the value left of it */
	uint64_t value;		/* width: its total (samples or value) */
	uint64_t samples;	/* its total samples */
	uint64_t self;		/* what ends here */
	unsigned int merged;	/* a merged block: how many frames */
};
typedef int (*pebs_flame_fn)(void *arg, const struct pebs_flame_node *n);

/* How pebs_flame__write_svg draws (PEBS_OPTS(); NULL: defaults). */
struct pebs_flame_svg_opts {
	size_t sz;
	const char *title;	/* NULL: "Flame Graph" */
	const char *subtitle;	/* NULL: none */
	const char *unit;	/* what the value is ("period", "weight") */
	unsigned int width;	/* px; 0: 1200 */
	bool icicle;		/* the root at the top */
	bool by_samples;	/* widths by samples, else by value */
	unsigned long max_elements; /* frames drawn at most; 0: 50000 */
};

/* pebs_flame__new - an empty tree. Returns 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_flame__new(struct pebs_flame **fp);

/*
 * pebs_flame__add - one stack of @n frames, the outermost first
 * (command, main, ..., leaf), each with its kind (the first time a node
 * is made it keeps it), counting @samples samples of @value. Returns 0,
 * -EINVAL, -E2BIG (more than PEBS_FLAME_MAX_DEPTH frames), -ENOMEM.
 */
PEBS_API int pebs_flame__add(struct pebs_flame *f, const char *const *names,
			     const enum pebs_frame_kind *kinds,
			     unsigned int n, uint64_t samples,
			     uint64_t value);

/* pebs_flame__totals - samples and value added (either may be NULL). */
PEBS_API void pebs_flame__totals(const struct pebs_flame *f,
				 uint64_t *samples, uint64_t *value);

/* pebs_flame__nr_nodes - nodes in the tree, the root included. */
PEBS_API size_t pebs_flame__nr_nodes(const struct pebs_flame *f);

/* pebs_flame__depth - the deepest node's depth (root 0). */
PEBS_API unsigned int pebs_flame__depth(const struct pebs_flame *f);

/*
 * pebs_flame__write_collapsed - FlameGraph's folded stacks to @out, one
 * line per distinct stack, "comm;frame;...;leaf COUNT", COUNT its
 * samples (@by_samples, as stackcollapse-perf.pl counts) or its value,
 * lines sorted bytewise by stack. Returns 0, -EINVAL, -EIO, -ENOMEM.
 */
PEBS_API int pebs_flame__write_collapsed(const struct pebs_flame *f,
					 FILE *out, bool by_samples);

/*
 * pebs_flame__walk - every node for drawing, parents before children,
 * children left to right by name (bytewise), widths in samples
 * (@by_samples) or value. Children narrower than @min_width are not
 * visited: each parent's narrow children come after the others as one
 * merged node (when together at least @min_width). The callback returns
 * 0 to go on; another value stops the walk and is returned. Returns 0,
 * that value, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_flame__walk(const struct pebs_flame *f, bool by_samples,
			      uint64_t min_width, pebs_flame_fn fn,
			      void *arg);

/*
 * pebs_flame__add_sample - sample @s (resolved as @rs by a pebs_session,
 * from whose callback this is called, with the session's symbols) as
 * one stack: its command (pebs_frame__comm; "comm-pid/tid" with
 * @per_thread, as stackcollapse-perf.pl --tid), then its call chain
 * from the outermost frame to the leaf (pebs_frame__folded names), one
 * sample of @value. Returns as pebs_flame__add.
 */
PEBS_API int pebs_flame__add_sample(struct pebs_flame *f,
				    struct pebs_symbols *syms,
				    const struct pebs_sample *s,
				    const struct pebs_report_sample *rs,
				    bool per_thread, uint64_t value);

/*
 * pebs_flame__write_svg - the tree as a self-contained, interactive SVG
 * flame graph (inline CSS and script: hover shows a frame's name,
 * samples and share, click zooms, a search box or "#search=REGEX" in the
 * URL highlights matching frames and writes their total share, nested
 * matches once, into the element with id "matched" and its data-share
 * attribute). Colours by kind: program red, libraries yellow, kernel
 * orange. Frames narrower than 0.1 px are merged; past max_elements
 * frames are left out (an XML comment says how many). The same tree
 * gives the same bytes. Returns 0, -EINVAL (also: o->sz unset or with
 * unknown non-zero fields), -ENOMEM, or the write error.
 */
PEBS_API int pebs_flame__write_svg(const struct pebs_flame *f, FILE *out,
				   const struct pebs_flame_svg_opts *o);

/* pebs_flame__delete - free; NULL is allowed. */
PEBS_API void pebs_flame__delete(struct pebs_flame *f);

/* ------------------------------------------------------------------ */
/* CPU timelines (lib/plot/plot-timeline.c)                           */
/* ------------------------------------------------------------------ */

/*
 * A per-CPU timeline: thread segments from PERF_RECORD_SWITCH records
 * (__read_switches, __add_switch) or, when there are none, from the
 * samples' threads; the samples' density drawn over them. Time is cut
 * into columns, each showing the thread that had most of it, so the
 * picture's size does not grow with the recording. Not thread-safe.
 */
struct pebs_cpuplot;

/*
 * Where a pebs_cpuplot's thread segments come from: the module's history
 * written by pebs_switchrec (SWITCH records of an event without
 * context_switch; preferred when both kinds are present), the kernel's
 * PERF_RECORD_SWITCH(_CPU_WIDE), or the samples' TIDs.
 */
enum pebs_cpuplot_source {
	PEBS_CPUPLOT_SAMPLES,
	PEBS_CPUPLOT_KERNEL_SWITCH,
	PEBS_CPUPLOT_MODULE_SWITCH,
};

/* pebs_cpuplot__new - an empty timeline. Returns 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_cpuplot__new(struct pebs_cpuplot **tp);

/*
 * pebs_cpuplot__add_switch - thread @tid of @pid switched in (or @out)
 * on @cpu at @time. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_cpuplot__add_switch(struct pebs_cpuplot *tl,
				       uint32_t cpu, uint64_t time,
				       int32_t pid, int32_t tid, bool out);

/*
 * pebs_cpuplot__read_switches - every SWITCH and SWITCH_CPU_WIDE record
 * of @pd from where its __next is (rewind it after), placed by its
 * sample_id's CPU and TIME (records without them are skipped). Returns
 * 0, -ENOMEM.
 */
PEBS_API int pebs_cpuplot__read_switches(struct pebs_cpuplot *tl,
					  struct pebs_perfdata *pd);

/*
 * pebs_cpuplot__add_sample - a sample (with TIME and CPU; others are
 * skipped) for the density, and for the segments when there are no
 * switch records. Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_cpuplot__add_sample(struct pebs_cpuplot *tl,
				       const struct pebs_sample *s,
				       const struct pebs_report_sample *rs);

/* pebs_cpuplot__has_switches - whether segments come from switches. */
PEBS_API bool pebs_cpuplot__has_switches(const struct pebs_cpuplot *tl);

/*
 * pebs_cpuplot__write_svg - the picture: one row per CPU seen, segments
 * coloured per thread (hover: CPU, comm and tid from @threads, may be
 * NULL, and the interval in ms), a time axis in ms, a legend of the
 * threads; the title says where the segments came from. @width 0: 1200.
 * Returns 0, -EINVAL, -ENOMEM, or the write error.
 */
PEBS_API int pebs_cpuplot__write_svg(struct pebs_cpuplot *tl,
				      struct pebs_threads *threads, FILE *out,
				      const char *title, const char *subtitle,
				      unsigned int width);

/* pebs_cpuplot__source - the segments' source, as the title names it. */
PEBS_API enum pebs_cpuplot_source
pebs_cpuplot__source(const struct pebs_cpuplot *tl);

/* pebs_cpuplot__delete - free; NULL is allowed. */
PEBS_API void pebs_cpuplot__delete(struct pebs_cpuplot *tl);

/* ------------------------------------------------------------------ */
/* Heat maps (lib/plot/plot-heat.c)                                   */
/* ------------------------------------------------------------------ */

/*
 * A data heat map: rows are (process, data address / granule), columns
 * 120 time buckets between the recording's first and last sample times;
 * a cell's colour is the samples or weight there (the caller's value).
 * Rows are labelled with their data object (the sample's data_sym, else
 * data_dso). Not thread-safe.
 */
struct pebs_heat;

/*
 * pebs_heat__new - an empty map of @granule bytes per row (a power of
 * two: 4096 pages, 64 cache lines) over [@first_time, @last_time].
 * Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_heat__new(uint64_t granule, uint64_t first_time,
			    uint64_t last_time, struct pebs_heat **hp);

/*
 * pebs_heat__set_symbols - label the rows of @h with
 * pebs_symbols__data_label(@syms) at each row's first sample (the
 * resolver must outlive the adds); NULL goes back to the samples'
 * data_sym or data_dso. Returns 0 or -EINVAL.
 */
PEBS_API int pebs_heat__set_symbols(struct pebs_heat *h,
				    struct pebs_symbols *syms);

/*
 * pebs_heat__add - sample @rs at @time counts @value in its row (none
 * without a data address). Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_heat__add(struct pebs_heat *h, uint64_t time,
			    const struct pebs_report_sample *rs,
			    uint64_t value);

/* pebs_heat__nr_rows - the distinct rows seen. */
PEBS_API size_t pebs_heat__nr_rows(const struct pebs_heat *h);

/*
 * pebs_heat__write_svg - the picture: the 48 hottest rows (by total,
 * then address), each with its address, object and share; the rest
 * summed in one line. @width 0: 1200. Returns 0, -EINVAL, -ENOMEM, or
 * the write error.
 */
PEBS_API int pebs_heat__write_svg(struct pebs_heat *h, FILE *out,
				  const char *title, const char *subtitle,
				  unsigned int width);

/* pebs_heat__delete - free; NULL is allowed. */
PEBS_API void pebs_heat__delete(struct pebs_heat *h);

/* ------------------------------------------------------------------ */
/* SVG writer (lib/plot/svg.c)                                        */
/* ------------------------------------------------------------------ */

/*
 * A deterministic SVG writer over a stdio stream: markup as given,
 * text escaped (the five XML characters as entities; control characters
 * XML forbids and bytes that are not UTF-8 as '?'), numbers with a fixed
 * precision. It counts drawn elements against a cap and keeps the first
 * write error for __finish.
 */
struct pebs_svg;

/*
 * pebs_svg__new - start a picture of @width x @height on @f (not owned)
 * allowing @max_elements elements (0: no cap; see __count). Returns 0,
 * -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_svg__new(FILE *f, double width, double height,
			   unsigned long max_elements, struct pebs_svg **sp);

/*
 * pebs_svg__finish - close the picture, flush, free @s. Returns 0 or
 * the first write error (-errno, e.g. -ENOSPC).
 */
PEBS_API int pebs_svg__finish(struct pebs_svg *s);

/* pebs_svg__raw, __printf - markup, written as is. */
PEBS_API void pebs_svg__raw(struct pebs_svg *s, const char *markup);
PEBS_API void pebs_svg__printf(struct pebs_svg *s, const char *fmt, ...);

/* pebs_svg__esc - text or an attribute value, escaped. */
PEBS_API void pebs_svg__esc(struct pebs_svg *s, const char *str);

/* pebs_svg__text - <text x y ATTRS>escaped str</text> */
PEBS_API void pebs_svg__text(struct pebs_svg *s, double x, double y,
			     const char *attrs, const char *str);

/* pebs_svg__rect - <rect x y width height fill/> (no newline) */
PEBS_API void pebs_svg__rect(struct pebs_svg *s, double x, double y,
			     double w, double h, const char *fill);

/*
 * pebs_svg__count - reserve @n elements: false (nothing reserved) when
 * that would pass the cap, so the caller draws less.
 */
PEBS_API bool pebs_svg__count(struct pebs_svg *s, unsigned long n);

/* pebs_svg__elements - elements reserved so far. */
PEBS_API unsigned long pebs_svg__elements(const struct pebs_svg *s);

/* pebs_svg__hash - FNV-1a of @str: a colour's stable variation. */
PEBS_API uint32_t pebs_svg__hash(const char *str);

/* pebs_svg__hsl - "hsl(H,S%,L%)" into @buf. */
PEBS_API void pebs_svg__hsl(char *buf, size_t len, unsigned int hue,
			    unsigned int sat, unsigned int light);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_PLOT_H */
