// SPDX-License-Identifier: MIT
/*
 * plot-flame.c - a session's samples into a flame tree, and the tree as
 * an interactive SVG flame graph (or icicle graph).
 *
 * A stack is the command (or "comm-pid/tid" per thread, as
 * stackcollapse-perf.pl --tid writes it), then the call chain from the
 * outermost frame to the leaf, each frame named as the script names it
 * (pebs_frame__folded). The picture is self-contained: inline CSS and
 * JavaScript, no fonts or links to fetch. Hovering a frame shows its
 * name, samples and share (its <title>, also in the details line);
 * clicking zooms to it, "Reset zoom" goes back; the search box (or
 * "#search=REGEX" in the URL) colours the frames whose name matches and
 * shows the share they cover together (nested matches counted once).
 * Each frame carries its exact extent in value units (data-x, data-v)
 * so that the browser's share is the recording's, not the pixels'.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/plot.h"
#include "core/opts.h"
#include "plot/svg.h"

#define NAME_MAX_LEN	512

int pebs_flame__add_sample(struct pebs_flame *f, struct pebs_symbols *syms,
			   const struct pebs_sample *s,
			   const struct pebs_report_sample *rs,
			   bool per_thread, uint64_t value)
{
	static __thread struct pebs_frame frames[PEBS_CALLCHAIN_MAX];
	static __thread char buf[PEBS_CALLCHAIN_MAX + 1][NAME_MAX_LEN];
	const char *names[PEBS_CALLCHAIN_MAX + 1];
	enum pebs_frame_kind kinds[PEBS_CALLCHAIN_MAX + 1];
	unsigned int n = 0;
	int nr, i;

	if (!f || !syms || !s || !rs)
		return core_err(-EINVAL, "flame: no sample");
	nr = pebs_callchain__resolve(syms, s, rs->kernel, frames,
				     PEBS_CALLCHAIN_MAX);
	if (nr < 0)
		return nr;
	pebs_frame__comm(rs->comm, rs->tid, buf[0], sizeof(buf[0]));
	if (per_thread) {
		size_t l = strlen(buf[0]);

		snprintf(buf[0] + l, sizeof(buf[0]) - l, "-%d/%d", rs->pid,
			 rs->tid);
	}
	names[n] = buf[0];
	kinds[n++] = PEBS_FRAME_COMM;
	for (i = nr - 1; i >= 0; i--) {
		if (pebs_frame__folded(&frames[i], buf[n], sizeof(buf[n])) <= 0)
			continue;
		names[n] = buf[n];
		kinds[n++] = pebs_frame__kind(&frames[i]);
	}
	return pebs_flame__add(f, names, kinds, n, 1, value);
}

/* ---- the picture --------------------------------------------------- */

#define FRAME_H		16.0
#define TOP		56.0	/* title, subtitle, search */
#define BOTTOM		34.0	/* details line, legend */
#define PAD		10.0
#define CHAR_W		7.0	/* 12 px monospace, about */

static const char css[] =
"<style type=\"text/css\"><![CDATA[\n"
"text{font-family:monospace;font-size:12px;fill:#000}\n"
"#title{font-size:17px;text-anchor:middle}\n"
"#sub{font-size:12px;text-anchor:middle;fill:#555}\n"
".f text{pointer-events:none}\n"
".f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}\n"
".hit rect{fill:rgb(230,0,230)!important}\n"
".btn{cursor:pointer;fill:#036}\n"
".hide{display:none}\n"
".faded rect{opacity:0.5}\n"
"input{font:12px monospace;width:180px}\n"
"]]></style>\n";

/*
 * The script: zoom, search and details, over the frames' data-x, data-v
 * and data-n (value units, so shares are exact). W and X0 are the
 * drawing's width and left edge; TOTAL the root's value.
 */
static const char js[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"var frames = [], zx = 0, zv = TOTAL, zd = 0;\n"
"function label(g, w) {\n"
"  var t = g.querySelector('text'), n = g.getAttribute('data-n') || '';\n"
"  if (!t) return;\n"
"  var c = Math.floor((w - 6) / CW);\n"
"  t.textContent = c < 3 ? '' : n.length <= c ? n : n.substring(0, c - 2) + '..';\n"
"}\n"
"function draw() {\n"
"  frames.forEach(function (g) {\n"
"    var x = +g.getAttribute('data-x'), v = +g.getAttribute('data-v');\n"
"    var d = +g.getAttribute('data-d'), r = g.querySelector('rect');\n"
"    var t = g.querySelector('text');\n"
"    var inside = x >= zx && x + v <= zx + zv, anc = d < zd && x <= zx && x + v >= zx + zv;\n"
"    g.classList.toggle('hide', !inside && !anc);\n"
"    g.classList.toggle('faded', anc);\n"
"    var l = anc ? 0 : (x - zx) / zv * W, w = anc ? W : v / zv * W;\n"
"    r.setAttribute('x', (X0 + l).toFixed(1));\n"
"    r.setAttribute('width', Math.max(w - 0.5, 0.1).toFixed(1));\n"
"    if (t) { t.setAttribute('x', (X0 + l + 3).toFixed(1)); label(g, w); }\n"
"  });\n"
"}\n"
"function zoom(g) {\n"
"  zx = +g.getAttribute('data-x'); zv = +g.getAttribute('data-v');\n"
"  zd = +g.getAttribute('data-d'); if (!zv) zv = 1; draw();\n"
"  document.getElementById('unzoom').classList.remove('hide');\n"
"}\n"
"function unzoom() {\n"
"  zx = 0; zv = TOTAL; zd = 0; draw();\n"
"  document.getElementById('unzoom').classList.add('hide');\n"
"}\n"
"function details(g) {\n"
"  var t = g ? g.querySelector('title').textContent : ' ';\n"
"  document.getElementById('details').textContent = t;\n"
"}\n"
"function search(re) {\n"
"  var m = document.getElementById('matched'), spans = [], rx;\n"
"  frames.forEach(function (g) { g.classList.remove('hit'); });\n"
"  m.textContent = ''; m.setAttribute('data-share', '');\n"
"  if (!re) return;\n"
"  try { rx = new RegExp(re); } catch (e) { m.textContent = 'bad regex'; return; }\n"
"  frames.forEach(function (g) {\n"
"    var n = g.getAttribute('data-n');\n"
"    if (n !== null && rx.test(n)) {\n"
"      g.classList.add('hit');\n"
"      spans.push([+g.getAttribute('data-x'), +g.getAttribute('data-v')]);\n"
"    }\n"
"  });\n"
"  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
"  var sum = 0, end = -1;\n"
"  spans.forEach(function (s) {\n"
"    var e = s[0] + s[1];\n"
"    if (s[0] >= end) { sum += s[1]; end = e; }\n"
"    else if (e > end) { sum += e - end; end = e; }\n"
"  });\n"
"  var p = TOTAL ? 100 * sum / TOTAL : 0;\n"
"  m.textContent = 'Matched: ' + p.toFixed(2) + '%';\n"
"  m.setAttribute('data-share', p.toFixed(2));\n"
"}\n"
"function init() {\n"
"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  frames.forEach(function (g) {\n"
"    g.addEventListener('click', function () { zoom(g); });\n"
"    g.addEventListener('mouseover', function () { details(g); });\n"
"    g.addEventListener('mouseout', function () { details(null); });\n"
"  });\n"
"  document.getElementById('unzoom').addEventListener('click', unzoom);\n"
"  var box = document.getElementById('q');\n"
"  if (box) box.addEventListener('input', function () { search(box.value); });\n"
"  var h = /[#&]search=([^&]*)/.exec(location.hash);\n"
"  if (h) { var q = decodeURIComponent(h[1]); if (box) box.value = q; search(q); }\n"
"}\n"
"window.addEventListener('load', init);\n"
"]]></script>\n";

struct draw {
	struct pebs_svg *svg;
	const struct pebs_flame_svg_opts *o;
	double width, x0, scale;	/* px per value unit */
	unsigned int depth;
	uint64_t total, total_samples;
	unsigned long skipped;		/* frames over the element cap */
};

static void colour(const struct pebs_flame_node *n, char *buf, size_t len)
{
	uint32_t h = n->name ? pebs_svg__hash(n->name) : 0;
	unsigned int v = h % 1000;

	switch (n->kind) {
	case PEBS_FRAME_USER:	/* red to orange-red */
		pebs_svg__hsl(buf, len, 0 + v % 20, 75 + v % 15, 55 + v % 10);
		break;
	case PEBS_FRAME_LIB:	/* yellow */
		pebs_svg__hsl(buf, len, 48 + v % 12, 80 + v % 15, 50 + v % 10);
		break;
	case PEBS_FRAME_KERNEL:	/* orange */
		pebs_svg__hsl(buf, len, 25 + v % 10, 85 + v % 10, 55 + v % 10);
		break;
	case PEBS_FRAME_COMM:	/* blue-grey */
		pebs_svg__hsl(buf, len, 210, 25 + v % 10, 70 + v % 10);
		break;
	default:		/* root, unknown, merged */
		pebs_svg__hsl(buf, len, 0, 0, 80 + v % 5);
		break;
	}
}

/* The first bytes of @name that fit @chars characters, ".." if cut. */
static void fit(const char *name, unsigned int chars, char *buf, size_t len)
{
	size_t n = strlen(name), cut;

	if (n <= chars || chars < 3) {
		snprintf(buf, len, "%s", chars < 3 ? "" : name);
		return;
	}
	cut = chars - 2;
	while (cut > 0 && ((unsigned char)name[cut] & 0xc0) == 0x80)
		cut--;		/* not inside a UTF-8 character */
	snprintf(buf, len, "%.*s..", (int)cut, name);
}

/*
 * The depth of the frames that will be drawn: the walk's (narrow
 * frames merged, invisible deep stacks left out) and within the cap, so
 * the picture's height comes from what it shows.
 */
struct shown {
	unsigned long left;	/* frames the cap still allows */
	unsigned int depth;
};

static int shown_depth(void *arg, const struct pebs_flame_node *n)
{
	struct shown *sh = arg;

	if (!sh->left)
		return 0;
	sh->left--;
	if (n->depth > sh->depth)
		sh->depth = n->depth;
	return 0;
}

static int draw_frame(void *arg, const struct pebs_flame_node *n)
{
	struct draw *d = arg;
	struct pebs_svg *s = d->svg;
	double x = d->x0 + (double)n->x * d->scale;
	double w = (double)n->value * d->scale, y;
	double pct = d->total ? 100.0 * (double)n->value / (double)d->total
			      : 0;
	char fill[32], name[64], label[NAME_MAX_LEN];

	if (!pebs_svg__count(s, 1)) {
		d->skipped++;
		return 0;
	}
	if (d->o->icicle)
		y = TOP + n->depth * FRAME_H;
	else
		y = TOP + (d->depth - n->depth) * FRAME_H;
	colour(n, fill, sizeof(fill));
	if (n->name) {
		pebs_svg__printf(s, "<g class=\"f\" data-x=\"%llu\" "
				 "data-v=\"%llu\" data-d=\"%u\" data-n=\"",
				 (unsigned long long)n->x,
				 (unsigned long long)n->value, n->depth);
		pebs_svg__esc(s, n->name);
		pebs_svg__raw(s, "\"><title>");
		pebs_svg__esc(s, n->name);
	} else {
		pebs_svg__printf(s, "<g class=\"f\" data-x=\"%llu\" "
				 "data-v=\"%llu\" data-d=\"%u\"><title>",
				 (unsigned long long)n->x,
				 (unsigned long long)n->value, n->depth);
		snprintf(name, sizeof(name), "%u narrow frames, merged",
			 n->merged);
		pebs_svg__esc(s, name);
	}
	if (d->o->by_samples)
		pebs_svg__printf(s, " (%llu samples, %.2f%%)</title>",
				 (unsigned long long)n->samples, pct);
	else
		pebs_svg__printf(s, " (%llu samples, %s %llu, %.2f%%)</title>",
				 (unsigned long long)n->samples,
				 d->o->unit ? d->o->unit : "value",
				 (unsigned long long)n->value, pct);
	pebs_svg__rect(s, x, y, w > 0.6 ? w - 0.5 : 0.1, FRAME_H - 1, fill);
	fit(n->name ? n->name : "", (unsigned int)((w - 6) / CHAR_W), label,
	    sizeof(label));
	if (*label)
		pebs_svg__text(s, x + 3, y + FRAME_H - 4.5, NULL, label);
	pebs_svg__raw(s, "</g>\n");
	return 0;
}

int pebs_flame__write_svg(const struct pebs_flame *f, FILE *out,
			  const struct pebs_flame_svg_opts *user_o)
{
	struct pebs_flame_svg_opts opts;
	const struct pebs_flame_svg_opts *o = &opts;
	struct draw d = { 0 };
	struct shown sh = { 0 };
	char legend[160];
	double height, width;
	uint64_t min;
	int err;

	if (!f || !out)
		return core_err(-EINVAL, "flame: no output");
	err = opts_copy(&opts, sizeof(opts), user_o,
			"pebs_flame_svg_opts");
	if (err)
		return err;
	d.o = o;
	width = o->width ? o->width : 1200;
	d.width = width - 2 * PAD;
	d.x0 = PAD;
	pebs_flame__totals(f, &d.total_samples, &d.total);
	if (o->by_samples)
		d.total = d.total_samples;
	d.scale = d.total ? d.width / (double)d.total : 0;
	/* frames narrower than 0.1 px are merged (flamegraph.pl's
	   --minwidth) */
	min = d.scale > 0 ? (uint64_t)ceil(0.1 / d.scale) : 1;
	sh.left = o->max_elements ? o->max_elements : 50000;
	err = pebs_flame__walk(f, o->by_samples, min, shown_depth, &sh);
	if (err)
		return err;
	d.depth = sh.depth;
	height = TOP + (d.depth + 1) * FRAME_H + BOTTOM;
	err = pebs_svg__new(out, width, height, o->max_elements
			    ? o->max_elements : 50000, &d.svg);
	if (err)
		return err;
	pebs_svg__raw(d.svg, css);
	pebs_svg__printf(d.svg, "<script type=\"text/ecmascript\">"
			 "var W = %.1f, X0 = %.1f, CW = %.1f, TOTAL = %llu;"
			 "</script>\n", d.width, d.x0, CHAR_W,
			 (unsigned long long)d.total);
	pebs_svg__raw(d.svg, js);
	pebs_svg__printf(d.svg, "<rect x=\"0\" y=\"0\" width=\"%.0f\" "
			 "height=\"%.0f\" fill=\"#f8f8f0\"/>\n", width, height);
	pebs_svg__text(d.svg, width / 2, 20, "id=\"title\"",
		       o->title ? o->title : "Flame Graph");
	if (o->subtitle)
		pebs_svg__text(d.svg, width / 2, 36, "id=\"sub\"", o->subtitle);
	pebs_svg__text(d.svg, PAD, 20, "id=\"unzoom\" class=\"btn hide\"",
		       "Reset zoom");
	pebs_svg__printf(d.svg, "<foreignObject x=\"%.1f\" y=\"4\" "
			 "width=\"200\" height=\"24\"><input "
			 "xmlns=\"http://www.w3.org/1999/xhtml\" id=\"q\" "
			 "placeholder=\"search (regex)\"/></foreignObject>\n",
			 width - PAD - 200);
	pebs_svg__text(d.svg, width - PAD, 44,
		       "id=\"matched\" text-anchor=\"end\" data-share=\"\"",
		       "");
	err = pebs_flame__walk(f, o->by_samples, min, draw_frame, &d);
	if (err) {
		pebs_svg__finish(d.svg);
		return err;
	}
	pebs_svg__text(d.svg, PAD, height - 20, "id=\"details\"", " ");
	snprintf(legend, sizeof(legend), "red: program, yellow: libraries, "
		 "orange: kernel, blue: command%s",
		 d.skipped ? "; some frames not drawn (cap)" : "");
	pebs_svg__text(d.svg, PAD, height - 6, "id=\"legend\"", legend);
	if (d.skipped)
		pebs_svg__printf(d.svg, "<!-- %lu frames over the cap of %lu "
				 "elements not drawn -->\n", d.skipped,
				 pebs_svg__elements(d.svg));
	return pebs_svg__finish(d.svg);
}
