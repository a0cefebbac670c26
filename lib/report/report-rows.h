/* SPDX-License-Identifier: MIT */
/*
 * report-rows.h - a report's rows as lib/report/report.c stores them, shared
 * with lib/report/report-derive.c. Not installed.
 */
#ifndef PEBSSHIM_REPORT_ROWS_H
#define PEBSSHIM_REPORT_ROWS_H

#include "report/report-keys.h"

#define CHUNK_SHIFT	15		/* rows per chunk: 32768 */
#define CHUNK_ROWS	(1u << CHUNK_SHIFT)
#define MORE_TIDS	(PEBS_REPORT_MAX_TIDS - 1)
#define NO_ATOM		0xff

struct row_slot {
	uint32_t idx;		/* row + 1; 0: empty */
	uint32_t hash;
};

/* A row's sums (40 bytes); its key atoms follow. */
struct rsum {
	uint64_t period, samples;
	uint32_t loads, stores, hitm;
	uint32_t nr_tids;	/* as pebs_report_row's */
	int32_t tid0;
	uint32_t ext;		/* its rext at exts[ext - 1]; 0: none yet */
};

/* What few rows need: weights, and thread ids beyond the first. */
struct rext {
	uint64_t weight_sum, weight_nr;
	int32_t tids[MORE_TIDS];
};

struct rp_defer;
struct rp_err;

struct pebs_report {
	enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
	unsigned int nr_keys;
	bool need_addr, need_src;
	bool dsym_key;		/* the data symbol is a key (symbol_daddr),
				   not only shown (dcacheline) */
	uint8_t atom_of[RK_NR_FIELDS];	/* NO_ATOM: field not kept */
	enum rk_field field_of[RK_NR_FIELDS];	/* atom -> field */
	uint32_t used;		/* the fields of the keys (bit per field) */
	unsigned int nr_atoms, nr_cmp;	/* atoms [0, nr_cmp) are compared */
	bool plain;		/* every key rk_plain, each its own field:
				   atom i is rk_plain_atom(plain_key[i]) */
	enum pebs_report_key plain_key[RK_NR_FIELDS];
	bool direct;		/* not plain: atoms by rk_direct_atom */
	unsigned int direct_flags;
	size_t stride;		/* bytes per row */
	unsigned char **chunks;
	size_t nr, nr_chunks;
	size_t nr_all;		/* derived: rows in all, of which the first
				   nr (in order) are kept */
	struct rext *exts;	/* the rows' extensions */
	size_t nr_exts, cap_exts;
	struct row_slot *slots;
	size_t cap;		/* a power of two */
	uint32_t *order;	/* rows in sorted order, after __sort */
	struct pebs_report_row *view;	/* what __row returns */
	uint64_t samples, period;
	uint64_t *ev_samples, *ev_period;	/* per event */
	unsigned int nr_events;
	struct rsum *last;	/* the row last added to (rows never move),
				   or NULL; its hash */
	uint32_t last_hash;
	struct rp_defer *defer;	/* pebs_report__defer: the samples as
				   entries until sorted, or NULL */
	bool children;		/* pebs_report__set_children: each row's
				   racc follows its atoms */
	struct rp_err *err;	/* pebs_report__set_errors, or NULL */
	struct rp_graph *graph;	/* pebs_report__set_graph: each row's
				   graph root follows its racc */
	bool no_depth;		/* perf's -g none: children tie by keys */
};

/* A call graph's frame and node (lib/report/report-graph.c). */
struct rp_gframe {
	uint64_t ip;
	const char *sym, *dso;
	bool kernel;
};

struct rp_gnode {
	uint64_t hit, children_hit;	/* period ending here, below */
	uint32_t count, children_count;	/* chains ending here, below */
	uint32_t val, nval;		/* frames [val, val + nval) */
	uint32_t parent, child, last, next;	/* 0: none */
	uint32_t cset;		/* its children's set, as the hash knows it */
};

struct rp_graph {
	struct pebs_report_graph_opts o;
	struct rp_gnode *nodes;
	struct rp_gframe *frames;
	uint32_t nr_nodes, nr_frames;
	size_t cap_nodes, cap_frames;
	uint32_t *slots;	/* the children by their parent's cset and
				   first frame (open addressing) */
	uint32_t cap_slots, nr_keyed, nr_csets;
};

/* A row's children (lib/report/report-children.c): the samples whose
   call chain holds it, their period, and perf's callchain max_depth. */
struct racc {
	uint64_t period, samples;
	uint64_t depth;
};

static inline unsigned char *row_at(const struct pebs_report *r, size_t i)
{
	return r->chunks[i >> CHUNK_SHIFT] + (i & (CHUNK_ROWS - 1)) * r->stride;
}

static inline uint64_t *atoms(unsigned char *row)
{
	return (uint64_t *)(row + sizeof(struct rsum));
}

/* row_graph - the graph root (node index, 0: none yet) of @row in a
   report with graphs. */
static inline uint32_t *row_graph(const struct pebs_report *r,
				  const unsigned char *row)
{
	return (uint32_t *)(row + sizeof(struct rsum) +
			    r->nr_atoms * sizeof(uint64_t) +
			    (r->children ? sizeof(struct racc) : 0));
}

/* rp_order_callee - perf's callchain order for -g's @order: callee
   (the leaf first) when asked, else caller with @children, callee
   without (perf report's default) */
static inline bool rp_order_callee(enum pebs_graph_order order,
				   bool children)
{
	return order == PEBS_GRAPH_CALLEE ||
	       (order == PEBS_GRAPH_ORDER_DEFAULT && !children);
}

/*
 * rp_graph_append - the chain of @nr @frames (the leaf first) from
 * position @pos of the order shown on into @row's graph, @period ending
 * there (lib/report/report-graph.c). Returns 0 or -ENOMEM.
 * rp_graph_callee - whether the graph is shown in callee order (the
 * leaf first). rp_graph_free - the graph of @r freed.
 */
int rp_graph_append(struct pebs_report *r, unsigned char *row,
		    const struct pebs_frame *frames, unsigned int nr,
		    unsigned int pos, uint64_t period);
bool rp_graph_callee(const struct pebs_report *r);
void rp_graph_free(struct pebs_report *r);

/* rp_layout - the atoms of @r's keys laid out (compared ones first), its
   stride. */
void rp_layout(struct pebs_report *r);

/* row_acc - the racc of @row in a report with children. */
static inline struct racc *row_acc(const struct pebs_report *r,
				   const unsigned char *row)
{
	return (struct racc *)(row + sizeof(struct rsum) +
			       r->nr_atoms * sizeof(uint64_t));
}

/* rp_acc_cmp - rows @x and @y by their children, as rp_row_cmp (0: a
   tie there). */
int rp_acc_cmp(const struct pebs_report *r, const unsigned char *x,
	       const unsigned char *y);

/* rp_new_row - a new row of key atoms @a, sums 0; NULL: out of memory. */
unsigned char *rp_new_row(struct pebs_report *r, const uint64_t *a);

/* rp_keyed - whether @s goes to a row (else nowhere, or the totals
   only). */
static inline bool rp_keyed(const struct pebs_report *r,
			    const struct pebs_report_sample *s)
{
	return !((r->need_addr && !s->has_addr) ||
		 (r->need_src && !s->has_src) || s->hidden);
}

/* rp_make_key - the key atoms of @s into @a; returns their hash. */
uint32_t rp_make_key(const struct pebs_report *r,
		     const struct pebs_report_sample *s, uint64_t *a);

/*
 * rp_add_runs - the first of @n samples at @s added run by run
 * (lib/report/report-runs.c): returns how many, @n unless the runs turn out
 * short (the rest is for the per-sample path), or fewer with *err set
 * (-ENOMEM).
 */
size_t rp_add_runs(struct pebs_report *r, const struct pebs_report_sample *s,
		   size_t n, int *err);

/* rp_find_row - the row of key atoms @a (hash @h), made if new; NULL:
   out of memory. rp_row_add_tid - thread @tid counted in @row: 0 or
   -ENOMEM. */
unsigned char *rp_find_row(struct pebs_report *r, const uint64_t *a,
			   uint32_t h);
int rp_row_add_tid(struct pebs_report *r, struct rsum *row, int32_t tid);

/* rp_row_ext - the rext of @row, taken when first needed; NULL: out of
   memory. */
struct rext *rp_row_ext(struct pebs_report *r, struct rsum *row);

/* rp_row_cmp - rows by index (qsort_r, @arg the report): the order
   printed. */
int rp_row_cmp(const void *a, const void *b, void *arg);

/* A data source's load, store and HitM, as bits (a sample's counts). */
#define RP_LOAD		1u
#define RP_STORE	2u
#define RP_HITM		4u
unsigned int rp_src_bits(const struct pebs_report_sample *s);

/* rp_hash - the hash of the @n compared atoms at @a (as __add's). */
uint32_t rp_hash(const uint64_t *a, unsigned int n);

/*
 * rp_add_row - @n samples of key atoms @a (hash @h), thread @tid, @period
 * in all and data source @bits into their row (*rowp); not the totals.
 * Returns 0 or -ENOMEM.
 */
int rp_add_row(struct pebs_report *r, const uint64_t *a, uint32_t h,
	       int32_t tid, uint64_t n, uint64_t period, unsigned int bits,
	       struct rsum **rowp);

/* A run of samples alike but for their periods and weights: sums
   (wsq: of each period times itself less one, for rp_err_add). */
struct rp_run {
	uint64_t n, period, weight_sum, weight_nr;
	double wsq;
};

/*
 * rp_add_run - run @u of samples alike to @s (key atoms @a, hash @h when
 * rp_keyed) into their row and the totals, as adding each of them would.
 * Returns 0 or -ENOMEM.
 */
int rp_add_run(struct pebs_report *r, const struct pebs_report_sample *s,
	       const uint64_t *a, uint32_t h, const struct rp_run *u);

/* rp_add_totals - @n samples of @event, @period in all, into the
   report's totals. */
void rp_add_totals(struct pebs_report *r, unsigned int event, uint64_t n,
		   uint64_t period);

/* A row being summed from samples or rows (lib/report/report-derive.c). */
struct rp_acc {
	struct rsum s;
	uint64_t weight_sum, weight_nr;
	int32_t tids[PEBS_REPORT_MAX_TIDS];
	uint64_t a[RK_NR_FIELDS];
};

/* rp_acc_tid - thread @tid into @p, as a row counts its threads. */
void rp_acc_tid(struct rp_acc *p, int32_t tid);

/* The best rows of a stream of rows, kept in a report. */
struct rp_keep {
	size_t n, max;		/* rows wanted; kept before a cut */
	size_t m, cap;		/* rows kept; r->order's size */
	bool cut;		/* once cut, order[n - 1] is the bar a row
				   must pass to be kept */
	uint32_t bar;
};

/* rp_keep_init - keep the first @n rows in order. */
void rp_keep_init(struct rp_keep *k, size_t n);

/* rp_keep_row - row @p (counted in r->nr_all) kept if among the best. */
int rp_keep_row(struct pebs_report *r, struct rp_keep *k,
		const struct rp_acc *p);

/* rp_keep_end - the rows kept, sorted: the first n. */
void rp_keep_end(struct pebs_report *r, struct rp_keep *k);

/*
 * rp_radix - @n entries of @e in key order, stably
 * (lib/report/report-radix.c): 16 bits at a time, the digits every entry
 * shares skipped; @tmp holds @n more, @hist RP_RADIX_DIGITS rows of
 * counters. Returns where the sorted entries are (@e or @tmp).
 */
struct rp_kv {
	uint64_t key;
	uint32_t val;
} __attribute__((packed));
#define RP_RADIX_DIGITS		4
#define RP_RADIX_BUCKETS	(1u << 16)
struct rp_kv *rp_radix(struct rp_kv *e, struct rp_kv *tmp, size_t n,
		       uint32_t (*hist)[RP_RADIX_BUCKETS]);

/*
 * The deferred samples of pebs_report__defer (lib/report/report-defer.c).
 * rp_defer_add - @s (its one atom @key) as an entry; > 0 when it cannot
 * be one: the entries so far are then in rows (r->defer is NULL) and @s
 * goes there too.
 * rp_defer_rows - the rows of the entries, the first @n kept (as
 * pebs_report__sort_top); -ENOMEM: the entries are in rows instead.
 * rp_defer_pages - the pages of @from's sorted entries into @r through
 * @k. rp_defer_free - the entries freed.
 */
int rp_defer_add(struct pebs_report *r, const struct pebs_report_sample *s,
		 uint64_t key);
int rp_defer_rows(struct pebs_report *r, size_t n);
int rp_defer_pages(struct pebs_report *r, const struct pebs_report *from,
		   struct rp_keep *k);
void rp_defer_free(struct rp_defer *d);

/*
 * The rows' sampling errors (lib/report/report-error.c), when r->err:
 * rp_err_add - @s's @period (and wsq, its period times itself less one,
 * summed over a run) into its cycle's totals and into @row (NULL: the
 * totals only); 0 or -ENOMEM. rp_err_finish - the totals' part, once
 * every sample is in (pebs_report__sort_top). rp_err_free - freed.
 */
int rp_err_add(struct pebs_report *r, struct rsum *row,
	       const struct pebs_report_sample *s, uint64_t period, double wsq);
/* rp_wsq - a sample's wsq: @period times itself less one */
static inline double rp_wsq(uint64_t period)
{
	return (double)period * ((double)period - 1);
}
void rp_err_finish(struct pebs_report *r);
void rp_err_free(struct pebs_report *r);

#endif /* PEBSSHIM_REPORT_ROWS_H */
