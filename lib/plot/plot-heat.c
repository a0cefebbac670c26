// SPDX-License-Identifier: MIT
/*
 * plot-heat.c - which data is hot when: the heat map's granules
 * (lib/plot/heat.c) as an SVG picture of data address ranges (or
 * pages, or cache lines) x time buckets.
 *
 * The range view (pebs_heat__set_ranges) draws address ranges: the
 * mapping each granule's first sample fell in (pebs_symbols__data_map),
 * binned adaptively (lib/plot/heat-ranges.c), in address order, each
 * labelled with its start, size, mapping (and the data symbol its
 * samples name, when they all name one) and share, its cells coloured
 * by density (value per granule). The fine view draws single granules,
 * the hottest first, each labelled as pebs_symbols__data_label names it
 * at the granule's first sample ("[heap]", "[stack:PID]", "anon", a
 * file and offset, a data symbol), else the sample's data_sym or
 * data_dso. Either view can be limited to one range or mapping
 * (pebs_heat__set_range). Only so many rows are drawn; the rest are
 * summed in one line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/report.h"
#include "pebsshim/plot.h"
#include "plot/heat.h"
#include "plot/svg.h"

#define BUCKETS		HEAT_BUCKETS
#define MAX_ROWS	HEAT_MAX_ROWS
#define ROW_H		14.0
#define LEFT		370.0
#define TOP		56.0

static int cmp_rows(const void *pa, const void *pb)
{
	const struct heat_unit *a = *(const struct heat_unit *const *)pa;
	const struct heat_unit *b = *(const struct heat_unit *const *)pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* A row's label: its data object's, the resolver's, else a file by its
   base name ("//anon", "[heap]" as is). */
static const char *object(const struct heat_unit *r)
{
	const char *slash;

	if (r->named)
		return r->object;
	if (r->label)
		return r->label;
	if (!r->object)
		return "[unknown]";
	slash = strrchr(r->object, '/');
	return slash && r->object[0] == '/' && r->object[1] != '/' ?
	       slash + 1 : r->object;
}

/*
 * A row's label as drawn: a named object's without its " (file:line)"
 * ("alloc <- caller": the caller tells arrays of one allocating
 * function apart in the room a label has; the tooltip has it all).
 */
static const char *short_label(const struct heat_unit *r, const char *name,
			       char *buf, size_t len)
{
	const char *open = r->named ? strstr(name, " (") : NULL;
	const char *close = open ? strchr(open, ')') : NULL;

	if (!close)
		return name;
	snprintf(buf, len, "%.*s%s", (int)(open - name), name, close + 1);
	return buf;
}

/* White (cold) through yellow to red (hot), on a log scale. */
static void heat_colour(double v, double max, char *buf, size_t len)
{
	double f = max > 1 ? log(v + 1) / log(max + 1) : 1;

	pebs_svg__hsl(buf, len, (unsigned int)(60 - 60 * f), 100,
		      (unsigned int)(92 - 42 * f));
}

/* One row as drawn. */
struct line {
	char label[128];	/* left of the cells */
	char tip[384];		/* what each cell's tooltip starts with */
	uint64_t total;
	double cells[BUCKETS];	/* colour values; < 0: no sample */
	uint64_t values[BUCKETS];
	double per;		/* cells are values / per */
};

static void line_cells(struct line *l, const struct heat_unit *u)
{
	uint32_t k;

	for (k = 0; k < u->nr; k++) {
		l->values[u->cells[k].bucket] += u->cells[k].value;
		l->cells[u->cells[k].bucket] =
			(double)l->values[u->cells[k].bucket] / l->per;
	}
}

static void new_line(struct line *l, double per)
{
	size_t k;

	memset(l, 0, sizeof(*l));
	l->per = per;
	for (k = 0; k < BUCKETS; k++)
		l->cells[k] = -1;
}

/* "64 MiB", "12 KiB", "64 B" */
static void size_str(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;
	double v = (double)n;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, v == (double)(uint64_t)v ? "%.0f %s" : "%.1f %s",
		 v, unit[u]);
}

/* The fine view: the hottest granules, single. */
static int fine_lines(struct pebs_heat *h, struct line *lines, size_t *shown,
		      uint64_t *rest, size_t *rows)
{
	struct heat_unit **order;
	size_t i;

	order = malloc((h->nr_rows + 1) * sizeof(*order));
	if (!order)
		return heat_oom();
	for (i = 0; i < h->nr_rows; i++)
		order[i] = &h->rows[i];
	qsort(order, h->nr_rows, sizeof(*order), cmp_rows);
	*rows = h->nr_rows;
	*shown = h->nr_rows < MAX_ROWS ? h->nr_rows : MAX_ROWS;
	for (i = 0; i < *shown; i++) {
		const struct heat_unit *r = order[i];
		uint64_t addr = r->block << h->shift;
		struct line *l = &lines[i];
		char shortn[300];

		new_line(l, 1);
		l->total = r->total;
		snprintf(l->label, sizeof(l->label), "%#014llx %.34s",
			 (unsigned long long)addr,
			 short_label(r, object(r), shortn, sizeof(shortn)));
		snprintf(l->tip, sizeof(l->tip), "%#llx %s pid %d",
			 (unsigned long long)addr, object(r), r->pid);
		line_cells(l, r);
	}
	for (; i < h->nr_rows; i++)
		*rest += order[i]->total;
	free(order);
	return 0;
}

/* The range view: granules binned into address ranges. */
static int range_lines(struct pebs_heat *h, struct line **linesp,
		       size_t *shown, uint64_t *rest, size_t *rows)
{
	struct heat_unit **units;
	struct heat_range *hr;
	struct line *lines;
	size_t i, k, nr;
	int err;

	units = malloc((h->nr_rows + 1) * sizeof(*units));
	if (!units)
		return heat_oom();
	for (i = 0; i < h->nr_rows; i++)
		units[i] = &h->rows[i];
	err = heat_bin(units, h->nr_rows, h->shift, h->maps, h->nr_maps,
		       h->max_ranges, h->total, &hr, &nr);
	if (err) {
		free(units);
		return heat_oom();
	}
	*rows = nr;
	*shown = nr < h->max_ranges ? nr : h->max_ranges;
	lines = realloc(*linesp, (*shown + 1) * sizeof(*lines));
	if (!lines) {
		free(hr);
		free(units);
		return heat_oom();
	}
	*linesp = lines;
	for (i = 0; i < *shown; i++) {
		const struct heat_range *r = &hr[i];
		const struct heat_map *m = r->map ? &h->maps[r->map - 1] : NULL;
		const char *sym = units[r->first]->object;
		char size[32], name[300], shortn[300];
		bool obj;
		struct line *l = &lines[i];

		new_line(l, (double)((r->end - r->start) >> h->shift));
		l->total = r->total;
		/* the data symbol when every granule's samples name it */
		for (k = 1; sym && k < r->n; k++)
			if (!units[r->first + k]->object ||
			    strcmp(units[r->first + k]->object, sym))
				sym = NULL;
		if (!m)
			snprintf(name, sizeof(name), "[unknown]");
		else if (m->file)
			snprintf(name, sizeof(name), "%s+0x%llx", m->name,
				 (unsigned long long)(r->start - m->start +
						      m->pgoff));
		else
			snprintf(name, sizeof(name), "%s", m->name);
		/* one named data object in anonymous memory: its name */
		obj = sym && units[r->first]->named && (!m || !m->file);
		if (obj)
			snprintf(name, sizeof(name), "%s", sym);
		else if (sym && m && strcmp(sym, m->name) && sym[0] != '/' &&
		    strcmp(sym, "//anon") && sym[0] != '[')
			snprintf(name + strlen(name), sizeof(name) - strlen(name),
				 " %s", sym);
		/* memory without a name: which thread touched it */
		if (!obj && r->owner && h->owners[r->owner - 1].comm[0] &&
		    (!m || (!m->file && m->name[0] != '[')))
			snprintf(name + strlen(name), sizeof(name) - strlen(name),
				 " (%s)", h->owners[r->owner - 1].comm);
		size_str(r->end - r->start, size, sizeof(size));
		snprintf(l->label, sizeof(l->label), "%#014llx %s %.30s",
			 (unsigned long long)r->start, size,
			 obj ? short_label(units[r->first], name, shortn,
					   sizeof(shortn)) : name);
		if (m)
			snprintf(l->tip, sizeof(l->tip), "%#llx-%#llx (%s) %s, "
				 "of the mapping %#llx-%#llx, pid %d",
				 (unsigned long long)r->start,
				 (unsigned long long)r->end, size, name,
				 (unsigned long long)m->start,
				 (unsigned long long)m->end, r->pid);
		else
			snprintf(l->tip, sizeof(l->tip), "%#llx-%#llx (%s) "
				 "%s, pid %d", (unsigned long long)r->start,
				 (unsigned long long)r->end, size, name, r->pid);
		for (k = 0; k < r->n; k++)
			line_cells(l, units[r->first + k]);
	}
	for (; i < nr; i++)
		*rest += hr[i].total;
	free(hr);
	free(units);
	return 0;
}

int pebs_heat__write_svg(struct pebs_heat *h, FILE *out, const char *title,
			 const char *subtitle, unsigned int width)
{
	struct line *lines = NULL;
	struct pebs_svg *s;
	size_t i, shown = 0, rows = 0;
	uint64_t rest = 0;
	double max = 1, w, cw, height, y, t;
	char fill[32], buf[512];
	const char *what = h && h->max_ranges ? "ranges" : "rows";
	uint32_t k;
	int err;

	if (!h || !out)
		return core_err(-EINVAL, "heat: no output");
	if (!width)
		width = 1200;
	lines = malloc((MAX_ROWS + 1) * sizeof(*lines));
	if (!lines)
		return heat_oom();
	err = h->max_ranges ? range_lines(h, &lines, &shown, &rest, &rows)
			    : fine_lines(h, lines, &shown, &rest, &rows);
	if (err) {
		free(lines);
		return err;
	}
	for (i = 0; i < shown; i++)
		for (k = 0; k < BUCKETS; k++)
			if (lines[i].cells[k] > max)
				max = lines[i].cells[k];
	w = width - LEFT - 70;
	cw = w / BUCKETS;
	t = (double)(h->t1 - h->t0) / BUCKETS / 1e6;
	height = TOP + shown * ROW_H + 40 + (h->outside ? 14 : 0);
	err = pebs_svg__new(out, width, height, 0, &s);
	if (err) {
		free(lines);
		return err;
	}
	pebs_svg__raw(s, "<style type=\"text/css\"><![CDATA[\n"
		      "text{font-family:monospace;font-size:11px;fill:#000}\n"
		      "#title{font-size:16px;text-anchor:middle}\n"
		      "#sub{text-anchor:middle;fill:#555}\n"
		      "rect.c:hover{stroke:#000;stroke-width:1}\n"
		      "]]></style>\n");
	pebs_svg__printf(s, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\""
			 " fill=\"#fff\"/>\n", width, height);
	pebs_svg__text(s, width / 2.0, 18, "id=\"title\"",
		       title ? title : "Data heat map");
	if (subtitle)
		pebs_svg__text(s, width / 2.0, 34, "id=\"sub\"", subtitle);
	if (h->max_ranges)
		pebs_svg__text(s, 6, TOP - 6, NULL, "start, size, mapping "
			       "(colour: per page)");
	snprintf(buf, sizeof(buf), "0 ms");
	pebs_svg__text(s, LEFT, TOP - 6, NULL, buf);
	snprintf(buf, sizeof(buf), "%.3f ms", (double)(h->t1 - h->t0) / 1e6);
	pebs_svg__text(s, LEFT + w, TOP - 6, "text-anchor=\"end\"", buf);
	pebs_svg__text(s, LEFT + w + 6, TOP - 6, NULL, "share");
	for (i = 0; i < shown; i++) {
		const struct line *l = &lines[i];

		y = TOP + i * ROW_H;
		pebs_svg__text(s, 6, y + ROW_H - 3, NULL, l->label);
		for (k = 0; k < BUCKETS; k++) {
			if (l->cells[k] < 0)
				continue;
			heat_colour(l->cells[k], max, fill, sizeof(fill));
			pebs_svg__printf(s, "<rect class=\"c\" x=\"%.1f\" "
					 "y=\"%.1f\" width=\"%.1f\" "
					 "height=\"%.1f\" fill=\"%s\"><title>",
					 LEFT + k * cw, y, cw, ROW_H - 1, fill);
			snprintf(buf, sizeof(buf), "%s, %.3f-%.3f ms: %llu",
				 l->tip, k * t, (k + 1) * t,
				 (unsigned long long)l->values[k]);
			if (l->per > 1)
				snprintf(buf + strlen(buf),
					 sizeof(buf) - strlen(buf),
					 " (%.3g per %s)", l->cells[k],
					 h->shift == 6 ? "line" : "page");
			pebs_svg__esc(s, buf);
			pebs_svg__raw(s, "</title></rect>\n");
		}
		snprintf(buf, sizeof(buf), "%.2f%%", h->total ?
			 100.0 * (double)l->total / (double)h->total : 0.0);
		pebs_svg__text(s, LEFT + w + 6, y + ROW_H - 3, NULL, buf);
	}
	y = TOP + shown * ROW_H + 20;
	if (!rows)
		snprintf(buf, sizeof(buf), "no sample with a data address");
	else if (shown < rows)
		snprintf(buf, sizeof(buf), "%zu more %s, %.2f%% of the "
			 "total, not drawn", rows - shown, what,
			 100.0 * (double)rest / (double)(h->total ? h->total : 1));
	else
		snprintf(buf, sizeof(buf), "all %zu %s drawn", rows, what);
	pebs_svg__text(s, 6, y, NULL, buf);
	if (h->outside) {
		snprintf(buf, sizeof(buf), "%llu samples outside the range "
			 "left out", (unsigned long long)h->outside);
		pebs_svg__text(s, 6, y + 14, NULL, buf);
	}
	free(lines);
	return pebs_svg__finish(s);
}

