// SPDX-License-Identifier: MIT
/*
 * plot-heat.c - which data is hot when: data pages (or cache lines) x
 * time buckets as an SVG heat map, the hottest rows first, each row
 * labelled with its address and data object: with a resolver
 * (pebs_heat__set_symbols) as pebs_symbols__data_label names it at the
 * row's first sample ("[heap]", "[stack:PID]", "anon", a file and
 * offset, a data symbol), else the sample's data_sym or data_dso.
 *
 * A row is (process, address >> granule). Samples arrive in time order,
 * so a row's buckets are appended (or the last one grows): memory is
 * linear in the samples at worst and in rows x buckets at best, and a
 * row's total is kept as it goes. Only the hottest rows are drawn; the
 * rest are summed in one line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/report.h"
#include "pebsshim/plot.h"
#include "plot/svg.h"

#define BUCKETS		120
#define MAX_ROWS	48
#define ROW_H		14.0
#define LEFT		330.0
#define TOP		56.0

struct cellv {
	uint32_t bucket;
	uint64_t value;
};

struct row {
	int32_t pid;
	uint64_t block;
	const char *object;	/* data_sym or data_dso, or NULL */
	char *label;		/* pebs_symbols__data_label's, or NULL */
	uint64_t total, samples;
	struct cellv *cells;
	uint32_t nr, cap;
};

struct pebs_heat {
	unsigned int shift;	/* log2 of the granule */
	uint64_t t0, t1;
	struct row *rows;
	size_t nr_rows, cap_rows;
	uint32_t *tab;		/* (pid, block) -> row + 1 */
	size_t mask;
	uint64_t total, samples;
	struct pebs_symbols *syms;	/* labels rows, or NULL */
};

static int oom(void)
{
	return core_err(-ENOMEM, "heat: out of memory");
}

int pebs_heat__new(uint64_t granule, uint64_t first_time, uint64_t last_time,
		   struct pebs_heat **hp)
{
	struct pebs_heat *h;

	if (!hp || granule < 2 || (granule & (granule - 1)))
		return core_err(-EINVAL, "heat: the granule must be a power "
				"of two (64, 4096)");
	h = calloc(1, sizeof(*h));
	if (!h)
		return oom();
	h->shift = (unsigned int)__builtin_ctzll(granule);
	h->t0 = first_time;
	h->t1 = last_time > first_time ? last_time : first_time + 1;
	*hp = h;
	return 0;
}

void pebs_heat__delete(struct pebs_heat *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->nr_rows; i++) {
		free(h->rows[i].cells);
		free(h->rows[i].label);
	}
	free(h->rows);
	free(h->tab);
	free(h);
}

static size_t slot_of(const struct pebs_heat *h, int32_t pid, uint64_t block)
{
	uint64_t k = block * 0x9e3779b97f4a7c15ULL ^ (uint32_t)pid;

	k ^= k >> 29;
	return (size_t)(k * 0xbf58476d1ce4e5b9ULL >> 17) & h->mask;
}

static int grow(struct pebs_heat *h)
{
	size_t mask = h->mask ? h->mask * 2 + 1 : 4095, i, j;
	uint32_t *tab = calloc(mask + 1, sizeof(*tab));

	if (!tab)
		return oom();
	h->mask = mask;
	for (i = 0; i < h->nr_rows; i++) {
		j = slot_of(h, h->rows[i].pid, h->rows[i].block);
		while (tab[j])
			j = (j + 1) & mask;
		tab[j] = (uint32_t)i + 1;
	}
	free(h->tab);
	h->tab = tab;
	return 0;
}

static struct row *row_of(struct pebs_heat *h, int32_t pid, uint64_t block)
{
	struct row *r;
	size_t i;

	if ((h->nr_rows + 1) * 2 > h->mask && grow(h))
		return NULL;
	for (i = slot_of(h, pid, block); h->tab[i]; i = (i + 1) & h->mask) {
		r = &h->rows[h->tab[i] - 1];
		if (r->pid == pid && r->block == block)
			return r;
	}
	if (h->nr_rows == h->cap_rows) {
		size_t cap = h->cap_rows ? h->cap_rows * 2 : 1024;

		if (cap >= UINT32_MAX)
			return NULL;
		r = realloc(h->rows, cap * sizeof(*r));
		if (!r)
			return NULL;
		h->rows = r;
		h->cap_rows = cap;
	}
	r = &h->rows[h->nr_rows];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->block = block;
	h->tab[i] = (uint32_t)++h->nr_rows;
	return r;
}

int pebs_heat__add(struct pebs_heat *h, uint64_t time,
		   const struct pebs_report_sample *rs, uint64_t value)
{
	uint32_t b = 0;
	struct row *r;

	if (!h || !rs)
		return core_err(-EINVAL, "heat: no sample");
	if (!rs->has_addr)
		return 0;
	if (time > h->t0)
		b = time >= h->t1 ? BUCKETS - 1 :
		    (uint32_t)((double)(time - h->t0) / (double)(h->t1 - h->t0)
			       * BUCKETS);
	if (b >= BUCKETS)
		b = BUCKETS - 1;
	r = row_of(h, rs->pid, rs->addr >> h->shift);
	if (!r)
		return oom();
	if (!r->samples && h->syms) {
		char buf[384];
		int n = pebs_symbols__data_label(h->syms, rs->pid, rs->addr,
						 buf, sizeof(buf));

		if (n == -ENOMEM)
			return oom();
		if (n > 0 && !(r->label = strdup(buf)))
			return oom();
	}
	if (!r->object)
		r->object = rs->data_sym ? rs->data_sym : rs->data_dso;
	/* in time order a row's last bucket is the one to grow; a late
	   sample (out of order) searches back */
	if (r->nr && r->cells[r->nr - 1].bucket == b) {
		r->cells[r->nr - 1].value += value;
	} else {
		uint32_t i = r->nr;

		while (i > 0 && r->cells[i - 1].bucket > b)
			i--;
		if (i > 0 && r->cells[i - 1].bucket == b) {
			r->cells[i - 1].value += value;
		} else {
			if (r->nr == r->cap) {
				uint32_t cap = r->cap ? r->cap * 2 : 4;
				struct cellv *c = realloc(r->cells,
							  cap * sizeof(*c));

				if (!c)
					return oom();
				r->cells = c;
				r->cap = cap;
			}
			memmove(r->cells + i + 1, r->cells + i,
				(r->nr - i) * sizeof(*r->cells));
			r->cells[i] = (struct cellv){ b, value };
			r->nr++;
		}
	}
	r->total += value;
	r->samples++;
	h->total += value;
	h->samples++;
	return 0;
}

int pebs_heat__set_symbols(struct pebs_heat *h, struct pebs_symbols *syms)
{
	if (!h)
		return core_err(-EINVAL, "heat: no map");
	h->syms = syms;
	return 0;
}

size_t pebs_heat__nr_rows(const struct pebs_heat *h)
{
	return h->nr_rows;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = *(const struct row *const *)pa;
	const struct row *b = *(const struct row *const *)pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* A row's label: the resolver's, else a file by its base name ("//anon",
   "[heap]" as is). */
static const char *object(const struct row *r)
{
	const char *slash;

	if (r->label)
		return r->label;
	if (!r->object)
		return "[unknown]";
	slash = strrchr(r->object, '/');
	return slash && r->object[0] == '/' && r->object[1] != '/' ?
	       slash + 1 : r->object;
}

/* White (cold) through yellow to red (hot), on a log scale. */
static void heat_colour(uint64_t v, uint64_t max, char *buf, size_t len)
{
	double f = max > 1 ? log((double)v + 1) / log((double)max + 1) : 1;

	pebs_svg__hsl(buf, len, (unsigned int)(60 - 60 * f), 100,
		      (unsigned int)(92 - 42 * f));
}

int pebs_heat__write_svg(struct pebs_heat *h, FILE *out, const char *title,
			 const char *subtitle, unsigned int width)
{
	struct row **order = NULL;
	struct pebs_svg *s;
	size_t i, shown;
	uint64_t max = 1, rest = 0;
	double w, cw, height, y;
	char fill[32], buf[512];
	uint32_t k;
	int err;

	if (!h || !out)
		return core_err(-EINVAL, "heat: no output");
	if (!width)
		width = 1200;
	order = malloc((h->nr_rows + 1) * sizeof(*order));
	if (!order)
		return oom();
	for (i = 0; i < h->nr_rows; i++)
		order[i] = &h->rows[i];
	qsort(order, h->nr_rows, sizeof(*order), cmp_rows);
	shown = h->nr_rows < MAX_ROWS ? h->nr_rows : MAX_ROWS;
	for (i = 0; i < shown; i++)
		for (k = 0; k < order[i]->nr; k++)
			if (order[i]->cells[k].value > max)
				max = order[i]->cells[k].value;
	for (i = shown; i < h->nr_rows; i++)
		rest += order[i]->total;
	w = width - LEFT - 70;
	cw = w / BUCKETS;
	height = TOP + shown * ROW_H + 40;
	err = pebs_svg__new(out, width, height, 0, &s);
	if (err) {
		free(order);
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
	snprintf(buf, sizeof(buf), "0 ms");
	pebs_svg__text(s, LEFT, TOP - 6, NULL, buf);
	snprintf(buf, sizeof(buf), "%.3f ms", (double)(h->t1 - h->t0) / 1e6);
	pebs_svg__text(s, LEFT + w, TOP - 6, "text-anchor=\"end\"", buf);
	pebs_svg__text(s, LEFT + w + 6, TOP - 6, NULL, "share");
	for (i = 0; i < shown; i++) {
		const struct row *r = order[i];
		uint64_t addr = r->block << h->shift;

		y = TOP + i * ROW_H;
		snprintf(buf, sizeof(buf), "%#014llx %.34s",
			 (unsigned long long)addr, object(r));
		pebs_svg__text(s, 6, y + ROW_H - 3, NULL, buf);
		for (k = 0; k < r->nr; k++) {
			const struct cellv *c = &r->cells[k];
			double t = (double)(h->t1 - h->t0) / BUCKETS / 1e6;

			heat_colour(c->value, max, fill, sizeof(fill));
			pebs_svg__printf(s, "<rect class=\"c\" x=\"%.1f\" "
					 "y=\"%.1f\" width=\"%.1f\" "
					 "height=\"%.1f\" fill=\"%s\"><title>",
					 LEFT + c->bucket * cw, y, cw,
					 ROW_H - 1, fill);
			snprintf(buf, sizeof(buf), "%#llx %s pid %d, "
				 "%.3f-%.3f ms: %llu",
				 (unsigned long long)addr,
				 object(r), r->pid,
				 c->bucket * t, (c->bucket + 1) * t,
				 (unsigned long long)c->value);
			pebs_svg__esc(s, buf);
			pebs_svg__raw(s, "</title></rect>\n");
		}
		snprintf(buf, sizeof(buf), "%.2f%%", h->total ?
			 100.0 * (double)r->total / (double)h->total : 0.0);
		pebs_svg__text(s, LEFT + w + 6, y + ROW_H - 3, NULL, buf);
	}
	y = TOP + shown * ROW_H + 20;
	if (!h->nr_rows)
		snprintf(buf, sizeof(buf), "no sample with a data address");
	else if (shown < h->nr_rows)
		snprintf(buf, sizeof(buf), "%zu more rows, %.2f%% of the "
			 "total, not drawn", h->nr_rows - shown,
			 100.0 * (double)rest / (double)(h->total ? h->total : 1));
	else
		snprintf(buf, sizeof(buf), "all %zu rows drawn", h->nr_rows);
	pebs_svg__text(s, 6, y, NULL, buf);
	free(order);
	return pebs_svg__finish(s);
}
