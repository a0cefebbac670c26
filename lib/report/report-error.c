// SPDX-License-Identifier: MIT
/*
 * report-error.c - each row's share with its sampling error
 * (pebs_report__set_errors): how far the share printed may be from the
 * share the program's events had, as one standard error in points.
 *
 * A share is a ratio, p = X_r / X, of the row's periods to all of its
 * event's; its error is that of the linearized sum, z = X_r - p X
 * (the delta method), whose variance has two parts:
 *
 * - The samples taken outside a duty cycle, each standing for w
 *   events (its period), were drawn from the events at about 1 in w:
 *   Horvitz-Thompson's variance of a sum, sum w (w - 1), for z
 *   (1 - p)^2 H_r + p^2 (H - H_r), H_r the row's sum of w (w - 1), H
 *   the event's. A period of 1 (every event) has none.
 *
 * - A duty cycle (pebs-shim record --budget, PEBS_CYCLE_EVENT) samples
 *   one random window per cycle: the cycles are strata of one unit
 *   each, and the variance of the sum over them, sum_c Var(z_c), is
 *   estimated from neighbouring cycles (collapsed strata, as for
 *   systematic samples): n / (2 (n - 1)) sum_c (z_c - z_c-1)^2 over the
 *   n cycles, z_c = x_rc - p x_c, x_rc and x_c the row's and the event's
 *   periods in cycle c. It holds the windows' own sampling too, and
 *   errs high where the program changes from cycle to cycle more than
 *   within one. The sum expands to A_r - 2 p B_r + p^2 C, A_r the sum of
 *   the row's differences squared, B_r of their products with the
 *   event's, C of the event's squared, so that a row keeps only its
 *   last two cycles with samples and two sums: a row's cycle is closed
 *   (its pairs summed) when a sample of a later cycle reaches it, or at
 *   the end, the cycles between counting as empty. The samples come in
 *   time order (a session's), so a closed cycle's totals are final.
 *
 * An event's periods per cycle are kept for the cycles it has samples
 * in only, in rising order (a row's closing finds its three by
 * bisection), so that memory follows the samples, not events times
 * cycles: a file of many events each sampled once in a late cycle
 * costs no more than its samples. A sample older than its event's (or
 * row's) latest cycle, which a time-ordered stream does not deliver,
 * is counted in that latest cycle.
 *
 * One cycle alone (n = 1) has no neighbour: its rows have no error.
 * Rows derived from other rows (pebs_report__derive_top) have none
 * either. A report with errors keeps its rows (no __defer).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "pebsshim/report.h"
#include "report/report-rows.h"

#define NONE	UINT32_MAX		/* a row's event: none yet */
#define MIXED	(UINT32_MAX - 1)	/* ... several: no error */

/* A row's cycles and sums. */
struct rerr {
	uint32_t ev;		/* its event, NONE or MIXED */
	uint32_t cyc, pcyc;	/* its last cycle with samples (0: none),
				   and the one before */
	double cur, prev;	/* its period in them */
	double a, b;		/* sum of its differences squared, of their
				   products with the event's: pairs closed */
	double h;		/* sum of w (w - 1) outside the cycles */
};

/* An event's period in one cycle. */
struct cyc_sum {
	uint32_t cyc;
	double x;
};

/* An event's cycles with samples, rising. */
struct ev_cycles {
	struct cyc_sum *v;
	size_t n, cap;
};

struct rp_err {
	struct rerr *rows;	/* by the row's rext (ext - 1) */
	size_t nr_rows, cap_rows;
	struct ev_cycles *x;	/* per event */
	double *h;		/* per event: sum of w (w - 1) outside */
	double *c;		/* per event: sum of its differences
				   squared (rp_err_finish) */
	double *tot;		/* per event: its periods' sum, which the
				   report's 64-bit one must equal (a damaged
				   file's may pass 2^64 and wrap) */
	uint32_t n;		/* cycles: the latest seen */
	unsigned int nr_events;
};

int pebs_report__set_errors(struct pebs_report *r)
{
	struct rp_err *e;
	size_t n;

	if (!r || r->nr || r->samples || r->defer || r->nr_all)
		return core_err(-EINVAL, "report: errors are set on a new "
				"report, before its samples");
	if (r->err)
		return 0;
	n = r->nr_events ? r->nr_events : 1;
	e = calloc(1, sizeof(*e));
	if (e) {
		e->x = calloc(n, sizeof(*e->x));
		e->h = calloc(n, sizeof(*e->h));
		e->c = calloc(n, sizeof(*e->c));
		e->tot = calloc(n, sizeof(*e->tot));
	}
	if (!e || !e->x || !e->h || !e->c || !e->tot) {
		r->err = e;
		rp_err_free(r);
		return core_err(-ENOMEM, "report: out of memory");
	}
	e->nr_events = r->nr_events;
	r->err = e;
	return 0;
}

void rp_err_free(struct pebs_report *r)
{
	struct rp_err *e = r->err;

	if (!e)
		return;
	for (unsigned int i = 0; e->x && i < e->nr_events; i++)
		free(e->x[i].v);
	free(e->x);
	free(e->h);
	free(e->c);
	free(e->tot);
	free(e->rows);
	free(e);
	r->err = NULL;
}

/* Event @ev's period in cycle @k (0: none there). */
static double at(const struct rp_err *e, uint32_t ev, uint32_t k)
{
	const struct ev_cycles *c = &e->x[ev];
	size_t lo = 0, hi = c->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->v[mid].cyc < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->v[lo].cyc == k ? c->v[lo].x : 0;
}

/*
 * The pairs of row @w's last cycle k that are known once its next
 * cycle with samples is @next (UINT32_MAX: none, the end) into *@a and
 * *@b: (k - 1, k) always, (k, k + 1) when the row has none in k + 1.
 */
static void close_cycle(const struct rp_err *e, const struct rerr *w,
			uint32_t next, double *a, double *b)
{
	uint32_t k = w->cyc;
	double d;

	if (!k)
		return;
	if (k >= 2) {
		d = w->cur - (w->pcyc + 1 == k ? w->prev : 0);
		*a += d * d;
		*b += d * (at(e, w->ev, k) - at(e, w->ev, k - 1));
	}
	if (next > k + 1 && k + 1 <= e->n) {
		*a += w->cur * w->cur;
		*b -= w->cur * (at(e, w->ev, k + 1) - at(e, w->ev, k));
	}
}

/* Row @row's state (a new one: no event yet); NULL: out of memory. */
static struct rerr *row_err(struct pebs_report *r, struct rsum *row)
{
	struct rp_err *e = r->err;
	size_t i;

	if (!rp_row_ext(r, row))
		return NULL;
	i = row->ext - 1;
	if (i >= e->nr_rows) {
		if (core_grow(&e->rows, &e->cap_rows, i + 1, sizeof(*e->rows)))
			return NULL;
		for (size_t j = e->nr_rows; j <= i; j++)
			e->rows[j] = (struct rerr){ .ev = NONE };
		e->nr_rows = i + 1;
	}
	return &e->rows[i];
}

int rp_err_add(struct pebs_report *r, struct rsum *row,
	       const struct pebs_report_sample *s, uint64_t period, double wsq)
{
	struct rp_err *e = r->err;
	uint32_t k = s->cycle, ev = s->event;
	struct rerr *w;

	if (ev >= e->nr_events)
		return 0;
	e->tot[ev] += (double)period;
	if (!k) {
		e->h[ev] += wsq;
	} else {
		struct ev_cycles *c = &e->x[ev];

		if (!c->n || c->v[c->n - 1].cyc < k) {
			if (core_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
				return core_err(-ENOMEM, "report: out of memory");
			c->v[c->n++] = (struct cyc_sum){ .cyc = k };
		}
		c->v[c->n - 1].x += (double)period;	/* or its latest */
		if (k > e->n)
			e->n = k;
	}
	if (!row)
		return 0;
	w = row_err(r, row);
	if (!w)
		return core_err(-ENOMEM, "report: out of memory");
	if (w->ev == NONE)
		w->ev = ev;
	else if (w->ev != ev)
		w->ev = MIXED;
	if (w->ev == MIXED)
		return 0;
	if (!k) {
		w->h += wsq;
	} else if (k <= w->cyc) {	/* its cycle (or, out of order, kept
					   in its latest) */
		w->cur += (double)period;
	} else {
		close_cycle(e, w, k, &w->a, &w->b);
		w->pcyc = w->cyc;
		w->prev = w->cur;
		w->cyc = k;
		w->cur = (double)period;
	}
	return 0;
}

/*
 * C, the sum over the pairs (k - 1, k), 2 <= k <= n, of the event's
 * differences squared, from its cycles with samples alone: each x_k^2
 * once per pair it is in, less twice the products of neighbours.
 */
void rp_err_finish(struct pebs_report *r)
{
	struct rp_err *e = r->err;
	const struct ev_cycles *c;
	double sum;

	for (unsigned int ev = 0; e && ev < e->nr_events; ev++) {
		c = &e->x[ev];
		sum = 0;
		for (size_t i = 0; i < c->n; i++) {
			uint32_t k = c->v[i].cyc;
			double x = c->v[i].x;

			sum += x * x * ((k >= 2) + (k + 1 <= e->n));
			if (i && c->v[i - 1].cyc + 1 == k)
				sum -= 2 * x * c->v[i - 1].x;
		}
		e->c[ev] = sum;
	}
}

double pebs_report__share_error(const struct pebs_report *r, size_t i)
{
	const struct rp_err *e = r ? r->err : NULL;
	const struct rsum *row;
	struct rerr w;
	double p, x, var, a, b, n;

	if (!e || i >= r->nr)
		return -1;
	row = (const struct rsum *)row_at(r, r->order ? r->order[i] : i);
	if (!row->ext || row->ext - 1 >= e->nr_rows)
		return -1;
	w = e->rows[row->ext - 1];
	if (w.ev >= e->nr_events || !r->ev_period[w.ev] || e->n == 1)
		return -1;
	x = (double)r->ev_period[w.ev];
	/* periods past 2^64 in all (a damaged file): shares unknown */
	if (fabs(e->tot[w.ev] - x) > 1e-6 * e->tot[w.ev])
		return -1;
	p = (double)row->period / x;
	var = (1 - p) * (1 - p) * w.h + p * p * (e->h[w.ev] - w.h);
	if (e->n >= 2) {
		a = w.a;
		b = w.b;
		close_cycle(e, &w, UINT32_MAX, &a, &b);
		n = e->n;
		var += n / (2 * (n - 1)) * (a - 2 * p * b + p * p * e->c[w.ev]);
	}
	return var > 0 ? 100 * sqrt(var) / x : 0;
}

bool pebs_report__errors(const struct pebs_report *r)
{
	return r && r->err && !r->nr_all;	/* not derived */
}
