// SPDX-License-Identifier: MIT
/*
 * plot-timeline.c - who ran on which CPU when, as an SVG: one row per
 * CPU, thread segments in distinct colours, the samples' density drawn
 * over them, a time axis in ms and a thread legend.
 *
 * Segments come from PERF_RECORD_SWITCH / SWITCH_CPU_WIDE records when
 * the recording has them: a record's sample_id names the thread switched
 * in or out on its CPU. Those of an event without attr.context_switch
 * were not written by the kernel (which writes them only for events with
 * it: record --switch-events) but by pebs_switchrec from the module's
 * history (record with /dev/pebs_map); they are preferred when both
 * kinds are there, and their PERF_RECORD_LOST (tid -1) marks a gap left
 * by an overrun, where no segment is drawn. Otherwise segments come
 * from the samples' threads. Either way the time is cut into columns
 * and each CPU's column shows the thread that had most of it (time
 * between switches, or samples): the picture has at most CPUs x columns
 * segments whatever the recording's size. A column keeps its four
 * heaviest threads (the space-saving rule), so memory per column is
 * fixed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/plot.h"
#include "plot/svg.h"

#define SLOTS		4	/* threads kept per column */
#define ROW_H		28.0
#define LEFT		70.0
#define TOP		60.0

struct ev {
	uint64_t time;
	int32_t tid, pid;
	uint32_t cpu;
	uint8_t type;		/* 0 sample, 1 switch in, 2 out, 3 gap */
	uint8_t module;		/* switch or gap: from the module's history */
};

struct pebs_cpuplot {
	struct ev *evs;
	size_t nr, cap;
	uint64_t nr_sw[2];	/* switch records: the kernel's, the module's */
	uint64_t lost[2];	/* switches lost in gaps (LOST records) */
	bool have_time;
	uint64_t t0, t1;
};

struct cell_thread {
	int32_t tid, pid;
	uint64_t amount;
};

struct cell {
	struct cell_thread s[SLOTS];
	uint32_t samples;
};

int pebs_cpuplot__new(struct pebs_cpuplot **tp)
{
	if (!tp)
		return core_err(-EINVAL, "timeline: nowhere to put it");
	*tp = calloc(1, sizeof(**tp));
	return *tp ? 0 : core_err(-ENOMEM, "timeline: out of memory");
}

void pebs_cpuplot__delete(struct pebs_cpuplot *tl)
{
	if (!tl)
		return;
	free(tl->evs);
	free(tl);
}

static int push(struct pebs_cpuplot *tl, uint32_t cpu, uint64_t time,
		int32_t pid, int32_t tid, uint8_t type, bool module)
{
	if (cpu >= PEBS_MAX_CPUS)
		return 0;	/* no CPU: not placeable */
	if (core_grow(&tl->evs, &tl->cap, tl->nr + 1, sizeof(*tl->evs)))
		return core_err(-ENOMEM, "timeline: out of memory");
	tl->evs[tl->nr++] = (struct ev){ time, tid, pid, cpu, type, module };
	if (!tl->have_time || time < tl->t0)
		tl->t0 = time;
	if (!tl->have_time || time > tl->t1)
		tl->t1 = time;
	tl->have_time = true;
	return 0;
}

int pebs_cpuplot__add_switch(struct pebs_cpuplot *tl, uint32_t cpu,
			      uint64_t time, int32_t pid, int32_t tid,
			      bool out)
{
	if (!tl)
		return core_err(-EINVAL, "timeline: none");
	tl->nr_sw[0]++;
	if (tid < 0)
		return 0;	/* no thread (the kernel's -1) */
	return push(tl, cpu, time, pid, tid, out ? 2 : 1, false);
}

int pebs_cpuplot__add_sample(struct pebs_cpuplot *tl,
			      const struct pebs_sample *s,
			      const struct pebs_report_sample *rs)
{
	if (!tl || !s || !rs)
		return core_err(-EINVAL, "timeline: no sample");
	if (!(s->present & PERF_SAMPLE_TIME) ||
	    !(s->present & PERF_SAMPLE_CPU))
		return 0;
	return push(tl, rs->cpu, s->time, rs->pid, rs->tid, 0, false);
}

/* an event id and whether its attr has context_switch */
struct id_cs {
	uint64_t id;
	bool cs;
};

struct scan {
	struct pebs_cpuplot *tl;
	struct pebs_perfdata *pd;
	struct pebs_sample_layout l;
	struct id_cs *ids;
	size_t nr_ids;
	bool cs0;		/* the first attr's context_switch */
};

static int cmp_id(const void *pa, const void *pb)
{
	const struct id_cs *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* every id of the file's attrs with its context_switch, sorted */
static int scan_ids(struct scan *sc)
{
	unsigned int nr = pebs_perfdata__nr_attrs(sc->pd);
	size_t total = 0, n;
	const uint64_t *ids;

	for (unsigned int i = 0; i < nr; i++)
		if (pebs_perfdata__attr(sc->pd, i, &ids, &n))
			total += n;
	sc->ids = malloc((total + 1) * sizeof(*sc->ids));
	if (!sc->ids)
		return core_err(-ENOMEM, "timeline: out of memory");
	for (unsigned int i = 0; i < nr; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(sc->pd, i, &ids, &n);

		for (size_t k = 0; a && k < n; k++)
			sc->ids[sc->nr_ids++] = (struct id_cs){
				ids[k], a->context_switch };
	}
	qsort(sc->ids, sc->nr_ids, sizeof(*sc->ids), cmp_id);
	return 0;
}

/* whether the kernel may have written a record of @s's event */
static bool by_kernel(const struct scan *sc, const struct pebs_sample *s)
{
	struct id_cs key, *hit;

	if (!(s->present & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)))
		return sc->cs0;
	key.id = s->id;
	hit = bsearch(&key, sc->ids, sc->nr_ids, sizeof(*sc->ids), cmp_id);
	return hit ? hit->cs : sc->cs0;
}

static int on_record(void *arg, const struct perf_event_header *ev,
		     uint64_t time)
{
	struct scan *sc = arg;
	struct pebs_sample s;
	bool module;

	(void)time;
	if (ev->type != PERF_RECORD_SWITCH &&
	    ev->type != PERF_RECORD_SWITCH_CPU_WIDE &&
	    ev->type != PERF_RECORD_LOST)
		return 0;
	if (pebs_sample__decode_id(&sc->l, ev, &s) ||
	    !(s.present & PERF_SAMPLE_TIME) || !(s.present & PERF_SAMPLE_CPU))
		return 0;	/* not placeable on a CPU and a time */
	module = !by_kernel(sc, &s);
	if (ev->type == PERF_RECORD_LOST) {
		uint64_t lost;

		/* the module's gaps have tid -1 (no task has); the kernel's
		   LOST under a context_switch event may have lost switches */
		if (ev->size < sizeof(*ev) + 16 ||
		    (module && (int32_t)s.tid != -1))
			return 0;
		memcpy(&lost, (const char *)(ev + 1) + 8, sizeof(lost));
		sc->tl->lost[module] += lost;
		return push(sc->tl, s.cpu, s.time, -1, -1, 3, module);
	}
	sc->tl->nr_sw[module]++;
	if ((int32_t)s.tid < 0)
		return 0;	/* no thread (the kernel's -1) */
	return push(sc->tl, s.cpu, s.time, (int32_t)s.pid, (int32_t)s.tid,
		    ev->misc & PERF_RECORD_MISC_SWITCH_OUT ? 2 : 1, module);
}

int pebs_cpuplot__read_switches(struct pebs_cpuplot *tl,
				 struct pebs_perfdata *pd)
{
	struct scan sc = { .tl = tl, .pd = pd };
	const struct perf_event_attr *a;
	int err;

	if (!tl || !pd)
		return core_err(-EINVAL, "timeline: no recording");
	a = pebs_perfdata__attr(pd, 0, NULL, NULL);
	if (!a || !a->sample_id_all || pebs_sample_layout__init(&sc.l, a))
		return 0;	/* records without time and CPU */
	sc.cs0 = a->context_switch;
	err = scan_ids(&sc);
	if (!err)
		err = pebs_ordered__process(pd, on_record, &sc, NULL);
	free(sc.ids);
	return err == -EBADMSG ? 0 : err;	/* a damaged tail: use the rest */
}

enum pebs_cpuplot_source pebs_cpuplot__source(const struct pebs_cpuplot *tl)
{
	if (tl->nr_sw[1])
		return PEBS_CPUPLOT_MODULE_SWITCH;
	return tl->nr_sw[0] ? PEBS_CPUPLOT_KERNEL_SWITCH : PEBS_CPUPLOT_SAMPLES;
}

bool pebs_cpuplot__has_switches(const struct pebs_cpuplot *tl)
{
	return pebs_cpuplot__source(tl) != PEBS_CPUPLOT_SAMPLES;
}

/* ---- aggregation ---------------------------------------------------- */

/* Add @amount of thread @tid to @c (space-saving: evict the least). */
static void credit(struct cell *c, int32_t pid, int32_t tid, uint64_t amount)
{
	unsigned int i, min = 0;

	for (i = 0; i < SLOTS; i++) {
		if (c->s[i].amount && c->s[i].tid == tid) {
			c->s[i].amount += amount;
			return;
		}
		if (c->s[i].amount < c->s[min].amount)
			min = i;
	}
	c->s[min].amount += amount;	/* an empty slot has 0 */
	c->s[min].tid = tid;
	c->s[min].pid = pid;
}

static const struct cell_thread *top(const struct cell *c)
{
	const struct cell_thread *best = NULL;
	unsigned int i;

	for (i = 0; i < SLOTS; i++)
		if (c->s[i].amount && (!best || c->s[i].amount > best->amount ||
				       (c->s[i].amount == best->amount &&
					c->s[i].tid < best->tid)))
			best = &c->s[i];
	return best;
}

struct grid {
	struct cell *cells;	/* rows x cols */
	int32_t *row_cpu;	/* CPU of each row */
	uint32_t rows, cols;
	uint64_t t0, span;
};

static uint32_t col_of(const struct grid *g, uint64_t t)
{
	uint64_t c;

	if (t <= g->t0)
		return 0;
	c = (uint64_t)((double)(t - g->t0) / (double)g->span * g->cols);
	return c >= g->cols ? g->cols - 1 : (uint32_t)c;
}

/* Spread the interval [a, b) of @tid over row @r's columns. */
static void spread(struct grid *g, uint32_t r, int32_t pid, int32_t tid,
		   uint64_t a, uint64_t b)
{
	uint32_t c = col_of(g, a), last = col_of(g, b);
	double w = (double)g->span / g->cols;

	for (; c <= last; c++) {
		double lo = g->t0 + c * w, hi = lo + w;
		double s = (double)a > lo ? (double)a : lo;
		double e = (double)b < hi ? (double)b : hi;

		if (e > s)
			credit(&g->cells[(size_t)r * g->cols + c], pid, tid,
			       (uint64_t)(e - s) + 1);
	}
}

/* A sample's thread from the sample up to the CPU's next one (see
   typical_gap), else its own column. */
static void sample_span(struct grid *g, uint32_t r, const struct ev *evs,
			size_t j, size_t end, uint64_t gap)
{
	const struct ev *e = &evs[j];

	if (j + 1 < end && evs[j + 1].time - e->time <= gap)
		spread(g, r, e->pid, e->tid, e->time, evs[j + 1].time);
	else
		credit(&g->cells[(size_t)r * g->cols + col_of(g, e->time)],
		       e->pid, e->tid, 1);
}

static int cmp_ev(const void *pa, const void *pb)
{
	const struct ev *a = pa, *b = pb;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The end of the CPU's events that start at @i (sorted by CPU). */
static size_t i_end(const struct pebs_cpuplot *tl, size_t i)
{
	size_t j = i;

	while (j < tl->nr && tl->evs[j].cpu == tl->evs[i].cpu)
		j++;
	return j;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * Without switch records, a thread holds its CPU from one of its samples
 * to the next one there when they are close: at most 4 x the CPU's
 * median gap between samples (an idle CPU yields few samples: longer
 * gaps stay empty). Returns that limit (0 if unknown).
 */
static uint64_t typical_gap(const struct ev *evs, size_t n)
{
	uint64_t *gaps, median;
	size_t i, k = 0;

	gaps = malloc((n + 1) * sizeof(*gaps));
	if (!gaps)
		return 0;
	for (i = 1; i < n; i++)
		if (!evs[i].type && !evs[i - 1].type)
			gaps[k++] = evs[i].time - evs[i - 1].time;
	if (!k) {
		free(gaps);
		return 0;
	}
	qsort(gaps, k, sizeof(*gaps), cmp_u64);
	median = gaps[k / 2];
	free(gaps);
	return median * 4;
}

static int build(struct pebs_cpuplot *tl, struct grid *g, uint32_t cols)
{
	enum pebs_cpuplot_source src = pebs_cpuplot__source(tl);
	bool switches = src != PEBS_CPUPLOT_SAMPLES;
	bool module = src == PEBS_CPUPLOT_MODULE_SWITCH;
	size_t i, j;
	uint32_t r = 0;

	qsort(tl->evs, tl->nr, sizeof(*tl->evs), cmp_ev);
	for (i = 0, g->rows = 0; i < tl->nr; i++)
		g->rows += !i || tl->evs[i].cpu != tl->evs[i - 1].cpu;
	g->cols = cols;
	g->t0 = tl->t0;
	g->span = tl->t1 > tl->t0 ? tl->t1 - tl->t0 : 1;
	g->cells = calloc((size_t)g->rows * cols + 1, sizeof(*g->cells));
	g->row_cpu = calloc(g->rows + 1, sizeof(*g->row_cpu));
	if (!g->cells || !g->row_cpu)
		return core_err(-ENOMEM, "timeline: out of memory");
	for (i = 0; i < tl->nr; i = j, r++) {
		int32_t cur = -1, cur_pid = 0;
		uint64_t since = tl->t0, last = tl->t0, gap = 0;
		size_t end = i_end(tl, i);

		g->row_cpu[r] = (int32_t)tl->evs[i].cpu;
		if (!switches)
			gap = typical_gap(tl->evs + i, end - i);
		for (j = i; j < end; j++) {
			const struct ev *e = &tl->evs[j];
			struct cell *c = &g->cells[(size_t)r * cols +
						   col_of(g, e->time)];

			if (e->type == 0) {
				c->samples++;
				if (!switches)
					sample_span(g, r, tl->evs, j, end, gap);
				continue;
			}
			if (!switches || e->module != module)
				continue;	/* the other source's */
			if (e->type == 3) {		/* gap: owner unknown */
				if (cur >= 0)
					spread(g, r, cur_pid, cur, since,
					       e->time);
				cur = -1;
			} else if (e->type == 1) {	/* in */
				if (cur == e->tid)
					continue;	/* it runs on */
				if (cur >= 0)
					spread(g, r, cur_pid, cur, since,
					       e->time);
				cur = e->tid;
				cur_pid = e->pid;
				since = e->time;
			} else {			/* out */
				/* a thread whose "in" was not recorded (it
				   ran since the recording's start, or the
				   CPU's previous switch) */
				spread(g, r, e->pid, e->tid,
				       cur == e->tid ? since : last, e->time);
				cur = -1;
			}
			last = e->time;
		}
		if (cur >= 0)
			spread(g, r, cur_pid, cur, since, tl->t1);
	}
	return 0;
}

/* ---- the picture ---------------------------------------------------- */

struct thread_total {
	int32_t tid, pid;
	uint64_t columns;
};

static int cmp_total(const void *pa, const void *pb)
{
	const struct thread_total *a = pa, *b = pb;

	if (a->columns != b->columns)
		return a->columns > b->columns ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Threads by the columns they hold, most first (their colour rank). */
static struct thread_total *rank(const struct grid *g, size_t *nr)
{
	struct thread_total *t = NULL;
	size_t n = 0, cap = 0, i, k;

	for (i = 0; i < (size_t)g->rows * g->cols; i++) {
		const struct cell_thread *s = top(&g->cells[i]);

		if (!s)
			continue;
		for (k = 0; k < n && t[k].tid != s->tid; k++)
			;
		if (k == n) {
			if (core_grow(&t, &cap, n + 1, sizeof(*t))) {
				free(t);
				return NULL;
			}
			t[n++] = (struct thread_total){ s->tid, s->pid, 0 };
		}
		t[k].columns++;
	}
	if (n)
		qsort(t, n, sizeof(*t), cmp_total);
	*nr = n;
	return t ? t : calloc(1, sizeof(*t));
}

static void thread_colour(const struct thread_total *t, size_t nr,
			  int32_t tid, char *buf, size_t len)
{
	size_t i;

	if (tid == 0) {
		pebs_svg__hsl(buf, len, 0, 0, 85);
		return;
	}
	for (i = 0; i < nr && t[i].tid != tid; i++)
		;
	/* the golden angle: neighbours in rank far apart in hue */
	pebs_svg__hsl(buf, len, (unsigned int)(i * 137.508) % 360, 65,
		      i % 2 ? 62 : 50);
}

static const char *name_of(struct pebs_threads *th, int32_t pid,
			   int32_t tid, char *buf, size_t len)
{
	const char *c = th ? pebs_threads__comm(th, pid, tid) : NULL;

	if (c)
		snprintf(buf, len, "%s %d", c, tid);
	else
		snprintf(buf, len, ":%d", tid);
	return buf;
}

static void axis(struct pebs_svg *s, const struct grid *g, double w,
		 double y)
{
	double ms = (double)g->span / 1e6, raw = ms / 8, p10, m, step, t;
	char buf[32];

	/* about 8 ticks at 1, 2 or 5 x 10^n ms */
	p10 = pow(10, floor(log10(raw)));
	m = raw / p10;
	step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p10;
	for (t = 0; t <= ms + 1e-9; t += step) {
		double x = LEFT + t / ms * w;

		pebs_svg__printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				 "y2=\"%.1f\" stroke=\"#999\"/>\n", x, TOP - 4,
				 x, y);
		snprintf(buf, sizeof(buf), "%g ms", t);
		pebs_svg__text(s, x, TOP - 8, "text-anchor=\"middle\"", buf);
	}
}

static const char css[] =
"<style type=\"text/css\"><![CDATA[\n"
"text{font-family:monospace;font-size:11px;fill:#000}\n"
"#title{font-size:16px;text-anchor:middle}\n"
"#sub{text-anchor:middle;fill:#555}\n"
"rect.seg:hover{stroke:#000;stroke-width:1}\n"
"]]></style>\n";

int pebs_cpuplot__write_svg(struct pebs_cpuplot *tl,
			     struct pebs_threads *threads, FILE *out,
			     const char *title, const char *subtitle,
			     unsigned int width)
{
	struct grid g = { 0 };
	struct thread_total *tt = NULL;
	struct pebs_svg *s = NULL;
	double w, height, cw, y;
	uint32_t r, c, c2, maxs = 1, cols;
	size_t nr = 0, i, legend;
	char fill[32], name[96], buf[512];
	int err;

	if (!tl || !out)
		return core_err(-EINVAL, "timeline: no output");
	if (!width)
		width = 1200;
	w = width - LEFT - 20;
	cols = (uint32_t)(w / 2);
	err = build(tl, &g, cols ? cols : 1);
	if (!err && !(tt = rank(&g, &nr)))
		err = core_err(-ENOMEM, "timeline: out of memory");
	if (err)
		goto out;
	legend = nr < 24 ? nr : 24;
	cw = w / g.cols;
	height = TOP + g.rows * ROW_H + 30 + (legend + 2) / 3 * 16.0 + 10;
	err = pebs_svg__new(out, width, height, 0, &s);
	if (err)
		goto out;
	pebs_svg__raw(s, css);
	pebs_svg__printf(s, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\""
			 " fill=\"#fff\"/>\n", width, height);
	{
		enum pebs_cpuplot_source src = pebs_cpuplot__source(tl);
		bool mod = src == PEBS_CPUPLOT_MODULE_SWITCH;
		char lost[64] = "";

		if (src != PEBS_CPUPLOT_SAMPLES && tl->lost[mod])
			snprintf(lost, sizeof(lost), " (%llu switches lost "
				 "in gaps)", (unsigned long long)tl->lost[mod]);
		snprintf(buf, sizeof(buf), "%s: thread segments from %s%s",
			 title ? title : "Timeline",
			 mod ? "module switch history" :
			 src ? "PERF_RECORD_SWITCH" : "sample TIDs", lost);
	}
	pebs_svg__text(s, width / 2.0, 18, "id=\"title\"", buf);
	if (subtitle)
		pebs_svg__text(s, width / 2.0, 34, "id=\"sub\"", subtitle);
	axis(s, &g, w, TOP + g.rows * ROW_H);
	for (i = 0; i < (size_t)g.rows * g.cols; i++)
		if (g.cells[i].samples > maxs)
			maxs = g.cells[i].samples;
	for (r = 0; r < g.rows; r++) {
		y = TOP + r * ROW_H;
		snprintf(buf, sizeof(buf), "CPU %d", g.row_cpu[r]);
		pebs_svg__text(s, 8, y + ROW_H / 2 + 4, NULL, buf);
		for (c = 0; c < g.cols; c = c2) {
			const struct cell_thread *t =
				top(&g.cells[(size_t)r * g.cols + c]);
			const struct cell_thread *u;

			for (c2 = c + 1; c2 < g.cols; c2++) {
				u = top(&g.cells[(size_t)r * g.cols + c2]);
				if (!t != !u || (t && u->tid != t->tid))
					break;
			}
			if (!t)
				continue;
			thread_colour(tt, nr, t->tid, fill, sizeof(fill));
			pebs_svg__printf(s, "<rect class=\"seg\" x=\"%.1f\" "
					 "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
					 "fill=\"%s\"><title>", LEFT + c * cw,
					 y + 2, (c2 - c) * cw, ROW_H - 4, fill);
			snprintf(buf, sizeof(buf), "CPU %d: %s, %.3f-%.3f ms",
				 g.row_cpu[r],
				 name_of(threads, t->pid, t->tid, name,
					 sizeof(name)),
				 (double)c * g.span / g.cols / 1e6,
				 (double)c2 * g.span / g.cols / 1e6);
			pebs_svg__esc(s, buf);
			pebs_svg__raw(s, "</title></rect>\n");
		}
		/* the sample density over the segments */
		for (c = 0; c < g.cols; c++) {
			uint32_t n = g.cells[(size_t)r * g.cols + c].samples;
			double h = (ROW_H - 6) * n / maxs;

			if (n)
				pebs_svg__printf(s, "<rect x=\"%.1f\" y=\"%.1f\" "
						 "width=\"%.1f\" height=\"%.1f\" "
						 "fill=\"#000\" opacity=\"0.35\" "
						 "pointer-events=\"none\"/>\n",
						 LEFT + c * cw,
						 y + ROW_H - 3 - h, cw, h);
		}
	}
	y = TOP + g.rows * ROW_H + 24;
	for (i = 0; i < legend; i++) {
		double x = LEFT + (i % 3) * (w / 3), yy = y + (i / 3) * 16.0;

		thread_colour(tt, nr, tt[i].tid, fill, sizeof(fill));
		pebs_svg__rect(s, x, yy - 10, 12, 12, fill);
		snprintf(buf, sizeof(buf), "%s (%.1f%% of the columns)",
			 name_of(threads, tt[i].pid, tt[i].tid, name,
				 sizeof(name)),
			 100.0 * tt[i].columns / ((double)g.rows * g.cols));
		pebs_svg__text(s, x + 16, yy, NULL, buf);
	}
	if (nr > legend) {
		snprintf(buf, sizeof(buf), "... and %zu more threads",
			 nr - legend);
		pebs_svg__text(s, LEFT, y + (legend + 2) / 3 * 16.0, NULL, buf);
	}
	err = pebs_svg__finish(s);
	s = NULL;
out:
	if (s)
		pebs_svg__finish(s);
	free(tt);
	free(g.cells);
	free(g.row_cpu);
	return err;
}
