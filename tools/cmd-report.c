// SPDX-License-Identifier: MIT
/*
 * cmd-report.c - `pebs-shim report`: summarize a perf.data recording.
 *
 * Two passes over the records: the first (in time order) learns the
 * threads (COMM, FORK), the address spaces (MMAP, MMAP2) and the counts
 * (LOST, THROTTLE); the second aggregates the samples into tables keyed
 * by strings (thread, symbol, data page, cache line, data source, or the
 * keys given with --sort).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "pebsshim.h"

#define CACHE_LINE	64
#define PAGE_SIZE_4K	4096
#define MAX_TIDS	8	/* distinct threads remembered per row */
#define MAX_KEYS	6
#define KEY_MAX		2048
#define CHUNK_SIZE	(1u << 20)	/* key storage */

/* perf's PERF_RECORD_MISC_BUILD_ID_SIZE (tools/perf, not in the UAPI) */
#define MISC_BUILD_ID_SIZE	(1 << 15)

enum key {
	K_PID, K_TID, K_COMM, K_SYM, K_DSO, K_PAGE, K_LINE, K_ADDR, K_SRC,
	K_CPU, K_EVENT, NR_K,
};

static const char *const key_names[NR_K] = {
	[K_PID] = "pid", [K_TID] = "tid", [K_COMM] = "comm", [K_SYM] = "sym",
	[K_DSO] = "dso", [K_PAGE] = "page", [K_LINE] = "line",
	[K_ADDR] = "addr", [K_SRC] = "src", [K_CPU] = "cpu",
	[K_EVENT] = "event",
};

/* One row of a table. */
struct row {
	char *key;		/* fields separated by '\t' */
	uint64_t samples;
	uint64_t wsum, wcount;	/* weight (latency) of samples having one */
	int32_t tids[MAX_TIDS];
	unsigned int nr_tids;	/* distinct, saturates at MAX_TIDS + 1 */
	unsigned int attr;	/* event of the row's first sample */
	uint32_t loads, stores;	/* from data_src, where samples have it */
	uint32_t hitm;		/* snoop HitM (or AMD peer): contention */
};

/* A hash slot: row index + 1 (0: empty) and the key's hash. */
struct slot {
	uint32_t idx;
	uint32_t hash;
};

/* Rows in a dense array, found by key through an open-addressing index. */
struct table {
	const char *title;
	enum key keys[MAX_KEYS];
	unsigned int nr_keys;
	bool need_addr;		/* only samples with a data address */
	bool need_src;		/* only samples with a data source */
	bool sharing;		/* only rows touched by 2+ threads */
	struct table *view_of;	/* print another table's rows (filtered) */
	uint64_t total;		/* samples that had the keys */
	uint64_t *ev_total;	/* the same per event (first key "event") */
	struct row *rows;
	size_t nr, cap_rows;
	struct slot *slots;
	size_t cap;		/* slots, a power of two */
	char **chunks;		/* the keys' storage, freed at once */
	size_t nr_chunks, chunk_used;
};

/* The weights of one event's samples, for percentiles. */
struct wlist {
	uint32_t *v;
	size_t nr, cap;
};

/* tid -> comm and tgid */
struct thread {
	int32_t tid, tgid;
	char comm[16];
	bool used;
};

struct report {
	const char *path;
	struct pebs_perfdata *pd;
	struct pebs_symbols *syms;
	struct thread *threads;
	size_t nr_threads, cap_threads;
	unsigned int nr_attrs;
	uint64_t *attr_samples;	/* per event, counted in pass 1 */
	unsigned int nr_counted;
	uint64_t samples, lost, lost_samples, throttles, bad;
	uint64_t first_time, last_time;
	uint64_t with_addr, with_src;
	uint64_t kernel_text;	/* recorded [kernel.kallsyms]_text address */
	struct wlist *weights;	/* per event */
	size_t nr_weights;	/* all events */
	unsigned int top;
	struct table *tables;
	unsigned int nr_tables;
};

static void report_err(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void report_err(const char *fmt, ...)
{
	va_list ap;

	fputs("pebs-shim report: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- threads ------------------------------------------------------------ */

static uint32_t hash_u32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	x *= 0x846ca68b;
	x ^= x >> 16;
	return x;
}

static struct thread *thread_find(struct report *r, int32_t tid, bool add)
{
	size_t mask, i;

	if (add && (r->nr_threads + 1) * 2 > r->cap_threads) {
		size_t cap = r->cap_threads ? r->cap_threads * 2 : 1024;
		struct thread *t = calloc(cap, sizeof(*t)), *old;

		if (!t)
			return NULL;
		old = r->threads;
		for (i = 0; i < r->cap_threads; i++) {
			size_t j;

			if (!old[i].used)
				continue;
			j = hash_u32((uint32_t)old[i].tid) & (cap - 1);
			while (t[j].used)
				j = (j + 1) & (cap - 1);
			t[j] = old[i];
		}
		free(old);
		r->threads = t;
		r->cap_threads = cap;
	}
	if (!r->cap_threads)
		return NULL;
	mask = r->cap_threads - 1;
	for (i = hash_u32((uint32_t)tid) & mask; r->threads[i].used;
	     i = (i + 1) & mask)
		if (r->threads[i].tid == tid)
			return &r->threads[i];
	if (!add)
		return NULL;
	r->threads[i].used = true;
	r->threads[i].tid = tid;
	r->threads[i].tgid = -1;
	r->nr_threads++;
	return &r->threads[i];
}

static int thread_set(struct report *r, int32_t tgid, int32_t tid,
		      const char *comm)
{
	struct thread *t = thread_find(r, tid, true);

	if (!t)
		return -ENOMEM;
	t->tgid = tgid;
	if (comm)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	return 0;
}

static const char *thread_comm(struct report *r, int32_t tgid, int32_t tid)
{
	struct thread *t = thread_find(r, tid, false);

	if (t && t->comm[0])
		return t->comm;
	t = thread_find(r, tgid, false);
	if (t && t->comm[0])
		return t->comm;
	return tid == 0 ? "swapper" : NULL;	/* the idle task, as perf */
}

/* ---- tables ------------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static char *table_strdup(struct table *t, const char *s)
{
	size_t len = strlen(s) + 1;
	char *p;

	if (!t->nr_chunks || t->chunk_used + len > CHUNK_SIZE) {
		char **n = realloc(t->chunks, (t->nr_chunks + 1) * sizeof(*n));

		if (!n)
			return NULL;
		t->chunks = n;
		n[t->nr_chunks] = malloc(CHUNK_SIZE);
		if (!n[t->nr_chunks])
			return NULL;
		t->nr_chunks++;
		t->chunk_used = 0;
	}
	p = t->chunks[t->nr_chunks - 1] + t->chunk_used;
	memcpy(p, s, len);
	t->chunk_used += len;
	return p;
}

static struct row *table_row(struct table *t, const char *key)
{
	uint32_t h = (uint32_t)hash_str(key);
	size_t mask, i;
	struct row *row;

	if ((t->nr + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct slot *slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return NULL;
		for (i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->slots[i].idx)
				continue;
			j = t->slots[i].hash & (cap - 1);
			while (slots[j].idx)
				j = (j + 1) & (cap - 1);
			slots[j] = t->slots[i];
		}
		free(t->slots);
		t->slots = slots;
		t->cap = cap;
	}
	mask = t->cap - 1;
	for (i = h & mask; t->slots[i].idx; i = (i + 1) & mask)
		if (t->slots[i].hash == h &&
		    !strcmp(t->rows[t->slots[i].idx - 1].key, key))
			return &t->rows[t->slots[i].idx - 1];
	if (t->nr == t->cap_rows) {
		size_t cap = t->cap_rows ? t->cap_rows * 2 : 128;
		struct row *rows = realloc(t->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		t->rows = rows;
		t->cap_rows = cap;
	}
	row = &t->rows[t->nr];
	memset(row, 0, sizeof(*row));
	row->key = table_strdup(t, key);
	if (!row->key)
		return NULL;
	t->slots[i].idx = (uint32_t)++t->nr;
	t->slots[i].hash = h;
	return row;
}

static void row_add_tid(struct row *row, int32_t tid)
{
	unsigned int i;

	for (i = 0; i < row->nr_tids && i < MAX_TIDS; i++)
		if (row->tids[i] == tid)
			return;
	if (row->nr_tids < MAX_TIDS)
		row->tids[row->nr_tids] = tid;
	if (row->nr_tids <= MAX_TIDS)
		row->nr_tids++;
}

static int parse_keys(const char *str, struct table *t)
{
	char *copy = strdup(str), *save = NULL, *tok;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	t->nr_keys = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int k;

		for (k = 0; k < NR_K; k++)
			if (!strcmp(tok, key_names[k]))
				break;
		if (k == NR_K) {
			report_err("unknown sort key '%s': use pid, tid, comm, "
				   "sym, dso, page, line, addr, src, cpu or "
				   "event", tok);
			err = -EINVAL;
			break;
		}
		if (t->nr_keys == MAX_KEYS) {
			report_err("too many sort keys: give at most %d",
				   MAX_KEYS);
			err = -EINVAL;
			break;
		}
		t->keys[t->nr_keys++] = k;
		t->need_addr |= k == K_PAGE || k == K_LINE || k == K_ADDR;
		t->need_src |= k == K_SRC;
	}
	free(copy);
	if (!err && !t->nr_keys) {
		report_err("empty --sort: give keys such as comm,sym");
		err = -EINVAL;
	}
	return err;
}

/* ---- pass 1: threads, mappings, counts ---------------------------------- */

static uint64_t local_kernel_text(void)
{
	unsigned long long addr;
	char line[512], name[256], type;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_text"))
			found = addr;
	fclose(f);
	return found;
}

/* HEADER_BUILD_ID: build ids of the files as they were when recorded. */
static int load_build_ids(struct report *r)
{
	const char *p, *end;
	const void *data;
	size_t size;

	if (pebs_perfdata__feat(r->pd, PEBS_FEAT_BUILD_ID, &data, &size))
		return 0;
	p = data;
	end = p + size;
	while (p + sizeof(struct perf_event_header) + 4 + 24 < end) {
		struct perf_event_header h;
		const uint8_t *bid = (const uint8_t *)p + sizeof(h) + 4;
		const char *name = (const char *)bid + 24;
		size_t len = 20, max;

		memcpy(&h, p, sizeof(h));	/* the section may be unaligned */
		if (h.size < sizeof(h) + 4 + 24 || h.size > end - p)
			break;
		if (h.misc & MISC_BUILD_ID_SIZE)
			len = bid[20];
		max = (size_t)(p + h.size - name);
		if (len && len <= 20 && strnlen(name, max) < max &&
		    name[0] == '/' &&
		    pebs_symbols__set_build_id(r->syms, name, bid, len))
			return -ENOMEM;
		p += h.size;
	}
	return 0;
}

static int pass1_record(struct report *r, const struct perf_event_header *ev)
{
	const uint32_t *u32 = (const void *)(ev + 1);
	const uint64_t *u64 = (const void *)(ev + 1);

	switch (ev->type) {
	case PERF_RECORD_COMM:
		/* pid, tid, comm (NUL-terminated within the record) */
		if (ev->size < sizeof(*ev) + 16 ||
		    strnlen((const char *)(u32 + 2), ev->size - 16) ==
		    ev->size - 16u)
			return 0;
		if (thread_set(r, (int32_t)u32[0], (int32_t)u32[1],
			       (const char *)(u32 + 2)))
			return -ENOMEM;
		break;
	case PERF_RECORD_FORK:
		if (ev->size >= sizeof(*ev) + 16) {
			/* pid, ppid, tid, ptid: inherit the parent's comm */
			const char *comm = thread_comm(r, (int32_t)u32[1],
						       (int32_t)u32[3]);
			char c[16];

			snprintf(c, sizeof(c), "%s", comm ? comm : "");
			if (thread_set(r, (int32_t)u32[0], (int32_t)u32[2],
				       comm ? c : NULL))
				return -ENOMEM;
		}
		break;
	case PERF_RECORD_MMAP:
		if (ev->size >= sizeof(*ev) + 32 + 24 &&
		    (int32_t)u32[0] == -1 &&
		    !strncmp((const char *)(u64 + 4), "[kernel.kallsyms]", 17))
			r->kernel_text = u64[3];	/* pgoff: _text */
		break;
	case PERF_RECORD_LOST:
		if (ev->size >= sizeof(*ev) + 16)
			r->lost += u64[1];
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (ev->size >= sizeof(*ev) + 8)
			r->lost_samples += u64[0];
		return 0;
	case PERF_RECORD_THROTTLE:
		r->throttles++;
		return 0;
	default:
		break;
	}
	return pebs_symbols__add_record(r->syms, ev) == -ENOMEM ? -ENOMEM : 0;
}

/* ---- pass 2: samples ---------------------------------------------------- */

static void sym_key(struct report *r, const struct pebs_sample *s,
		    char *buf, size_t len, bool dso_only)
{
	struct pebs_sym sym;
	const char *base;

	pebs_symbols__resolve(r->syms, (pid_t)s->pid, s->ip, &sym);
	if (!dso_only && sym.name) {
		snprintf(buf, len, "%s", sym.name);
		return;
	}
	if (!sym.dso) {
		snprintf(buf, len, "[unknown]");
		return;
	}
	base = strrchr(sym.dso, '/');
	base = base ? base + 1 : sym.dso;
	if (dso_only)
		snprintf(buf, len, "%s", base);
	else
		snprintf(buf, len, "%s%s%s", *base == '[' ? "" : "[", base,
			 *base == '[' ? "" : "]");
}

static void make_key(struct report *r, const struct table *t,
		     const struct pebs_sample *s, unsigned int attr_idx,
		     char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < t->nr_keys && off < len; i++) {
		char f[512];
		const char *name;

		switch (t->keys[i]) {
		case K_PID:
			snprintf(f, sizeof(f), "%d", (int32_t)s->pid);
			break;
		case K_TID:
			snprintf(f, sizeof(f), "%d", (int32_t)s->tid);
			break;
		case K_COMM:
			name = thread_comm(r, (int32_t)s->pid, (int32_t)s->tid);
			if (name)
				snprintf(f, sizeof(f), "%s", name);
			else
				snprintf(f, sizeof(f), ":%d", (int32_t)s->tid);
			break;
		case K_SYM:
			sym_key(r, s, f, sizeof(f), false);
			break;
		case K_DSO:
			sym_key(r, s, f, sizeof(f), true);
			break;
		case K_PAGE:
			snprintf(f, sizeof(f), "0x%" PRIx64,
				 s->addr & ~(uint64_t)(PAGE_SIZE_4K - 1));
			break;
		case K_LINE:
			snprintf(f, sizeof(f), "0x%" PRIx64,
				 s->addr & ~(uint64_t)(CACHE_LINE - 1));
			break;
		case K_ADDR:
			snprintf(f, sizeof(f), "0x%" PRIx64, s->addr);
			break;
		case K_SRC:
			pebs_data_src__str(s->data_src, f, sizeof(f));
			break;
		case K_CPU:
			snprintf(f, sizeof(f), "%u", s->cpu);
			break;
		case K_EVENT:
			name = pebs_perfdata__attr_name(r->pd, attr_idx);
			snprintf(f, sizeof(f), "%s", name ? name : "?");
			break;
		default:
			f[0] = '\0';
			break;
		}
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? "\t" : "", f);
	}
}

static int add_sample(struct report *r, const struct pebs_sample *s,
		      unsigned int attr_idx)
{
	bool has_addr = (s->present & PERF_SAMPLE_ADDR) && s->addr;
	bool has_src = (s->present & PERF_SAMPLE_DATA_SRC) && s->data_src;
	bool has_w = (s->present & (PERF_SAMPLE_WEIGHT |
				    PERF_SAMPLE_WEIGHT_STRUCT)) && s->weight;
	union perf_mem_data_src src = { .val = s->data_src };
	char key[KEY_MAX];
	unsigned int i;

	r->samples++;
	if (s->present & PERF_SAMPLE_TIME) {
		if (!r->first_time || s->time < r->first_time)
			r->first_time = s->time;
		if (s->time > r->last_time)
			r->last_time = s->time;
	}
	r->with_addr += has_addr;
	r->with_src += has_src;
	if (has_w) {
		struct wlist *wl = &r->weights[attr_idx];

		if (wl->nr == wl->cap) {
			size_t cap = wl->cap ? wl->cap * 2 : 4096;
			uint32_t *w = realloc(wl->v, cap * sizeof(*w));

			if (!w)
				return -ENOMEM;
			wl->v = w;
			wl->cap = cap;
		}
		wl->v[wl->nr++] = s->weight > UINT32_MAX ?
				  UINT32_MAX : (uint32_t)s->weight;
		r->nr_weights++;
	}
	for (i = 0; i < r->nr_tables; i++) {
		struct table *t = &r->tables[i];
		struct row *row;

		if ((t->need_addr && !has_addr) ||
		    (t->need_src && !has_src) || t->view_of)
			continue;
		make_key(r, t, s, attr_idx, key, sizeof(key));
		row = table_row(t, key);
		if (!row)
			return -ENOMEM;
		if (!row->samples)
			row->attr = attr_idx;
		if (has_src) {
			row->loads += !!(src.mem_op & PERF_MEM_OP_LOAD);
			row->stores += !!(src.mem_op & PERF_MEM_OP_STORE);
			row->hitm += (src.mem_snoop & PERF_MEM_SNOOP_HITM) ||
				     (src.mem_snoopx & PERF_MEM_SNOOPX_PEER);
		}
		if (t->ev_total)
			t->ev_total[attr_idx]++;
		t->total++;
		row->samples++;
		if (has_w) {
			row->wsum += s->weight;
			row->wcount++;
		}
		row_add_tid(row, (int32_t)s->tid);
	}
	return 0;
}

/* ---- output ------------------------------------------------------------- */

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->key, y->key);
}

static const char *key_title(enum key k)
{
	static const char *const titles[NR_K] = {
		[K_PID] = "pid", [K_TID] = "tid", [K_COMM] = "comm",
		[K_SYM] = "symbol", [K_DSO] = "object", [K_PAGE] = "data page",
		[K_LINE] = "cache line", [K_ADDR] = "data address",
		[K_SRC] = "data source", [K_CPU] = "cpu", [K_EVENT] = "event",
	};
	return titles[k];
}

/* Print the key fields of @key padded to @w. */
static void print_fields(const char *key, const int *w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t l = strcspn(key, "\t");

		printf("  %-*.*s", i + 1 < n ? w[i] : 0, (int)l, key);
		key += l + (key[l] == '\t');
	}
	putchar('\n');
}

static void print_table(struct report *r, struct table *t)
{
	struct table *src = t->view_of ? t->view_of : t;
	struct row *rows;
	size_t nr = 0, i, shown = 0;
	int w[MAX_KEYS] = { 0 };
	bool weights = false, threads = true, mem = false;
	unsigned int k;

	for (k = 0; k < t->nr_keys; k++) {
		threads &= t->keys[k] != K_TID;	/* else always 1 */
		/* memory rows: loads, stores and HitM from data_src */
		mem |= r->with_src && (t->keys[k] == K_LINE ||
				       t->keys[k] == K_PAGE ||
				       t->keys[k] == K_ADDR);
	}

	printf("\n# %s", t->title);
	if (t->need_addr)
		printf(" (%" PRIu64 " samples with a data address)",
		       src->total);
	else if (t->need_src)
		printf(" (%" PRIu64 " samples with a data source)", src->total);
	if (src->ev_total)
		printf(", share within each event");
	putchar('\n');
	if (!src->total) {
		printf("#   (none)\n");
		return;
	}
	rows = malloc((src->nr ? src->nr : 1) * sizeof(*rows));
	if (!rows)
		return;
	for (i = 0; i < src->nr; i++) {
		if (t->sharing && src->rows[i].nr_tids < 2)
			continue;
		rows[nr++] = src->rows[i];
		weights |= src->rows[i].wcount != 0;
	}
	if (r->top < nr) {
		/* keep the top rows in rows[0..top): no sort of them all */
		size_t filled = 0;

		for (i = 0; i < nr; i++) {
			struct row x = rows[i];
			size_t j;

			if (filled == r->top &&
			    row_cmp(&x, &rows[r->top - 1]) >= 0)
				continue;
			j = filled < r->top ? filled++ : r->top - 1;
			for (; j > 0 && row_cmp(&x, &rows[j - 1]) < 0; j--)
				rows[j] = rows[j - 1];
			rows[j] = x;
		}
	} else {
		qsort(rows, nr, sizeof(*rows), row_cmp);
	}
	if (t->sharing && !nr) {
		printf("#   (no cache line was sampled in two threads)\n");
		free(rows);
		return;
	}
	for (k = 0; k < t->nr_keys; k++)
		w[k] = (int)strlen(key_title(t->keys[k]));
	for (i = 0; i < nr && i < r->top; i++) {
		const char *key = rows[i].key;

		for (k = 0; k < t->nr_keys; k++) {
			int l = (int)strcspn(key, "\t");

			w[k] = l > w[k] && l <= 48 ? l : w[k];
			key += l + (key[l] == '\t');
		}
	}
	printf("%10s  %7s", "samples", "share");
	if (weights)
		printf("  %8s", "avg-wt");
	if (mem)
		printf("  %7s  %7s  %7s", "loads", "stores", "hitm");
	if (threads)
		printf("  %7s", "threads");
	for (k = 0; k < t->nr_keys; k++)
		printf("  %-*s", k + 1 < t->nr_keys ? w[k] : 0,
		       key_title(t->keys[k]));
	putchar('\n');
	for (i = 0; i < nr && i < r->top; i++, shown++) {
		struct row *row = &rows[i];

		/* split by event: the share within the row's event */
		printf("%10" PRIu64 "  %6.2f%%", row->samples,
		       100.0 * (double)row->samples /
		       (double)(src->ev_total ? src->ev_total[row->attr] :
				src->total));
		if (weights) {
			if (row->wcount)
				printf("  %8.1f", (double)row->wsum /
				       (double)row->wcount);
			else
				printf("  %8s", "-");
		}
		if (mem)
			printf("  %7u  %7u  %7u", row->loads, row->stores,
			       row->hitm);
		if (threads && row->nr_tids > MAX_TIDS)
			printf("  %6u+", MAX_TIDS);
		else if (threads)
			printf("  %7u", row->nr_tids);
		print_fields(row->key, w, t->nr_keys);
		if (t->sharing) {
			unsigned int j;

			printf("%38s", "by:");
			for (j = 0; j < row->nr_tids && j < MAX_TIDS; j++) {
				const char *c = thread_comm(r, -1,
							    row->tids[j]);

				printf(" %s/%d", c ? c : "?", row->tids[j]);
			}
			printf("%s\n", row->nr_tids > MAX_TIDS ? " ..." : "");
		}
	}
	if (nr > shown)
		printf("%10s  (%zu more rows: -n to show more)\n", "...",
		       nr - shown);
	free(rows);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void print_weights(struct report *r)
{
	unsigned int e;

	if (!r->nr_weights)
		return;
	printf("\n# weight (latency, cycles as the PMU reports it) of %zu "
	       "samples with one\n", r->nr_weights);
	printf("%10s %10s %10s %10s %10s %10s %10s  %s\n", "min", "mean",
	       "p50", "p90", "p99", "max", "samples", "event");
	for (e = 0; e < r->nr_attrs; e++) {
		struct wlist *wl = &r->weights[e];
		const char *name = pebs_perfdata__attr_name(r->pd, e);
		uint32_t *v = wl->v;
		size_t n = wl->nr, i;
		uint64_t sum = 0;

		if (!n)
			continue;
		qsort(v, n, sizeof(*v), u32_cmp);
		for (i = 0; i < n; i++)
			sum += v[i];
		printf("%10u %10.1f %10u %10u %10u %10u %10zu  %s\n", v[0],
		       (double)sum / (double)n, v[n / 2], v[n * 9 / 10],
		       v[n * 99 / 100], v[n - 1], n, name ? name : "?");
	}
}

/*
 * The attribution pebs-shim record used: the --attr option it was given
 * (before any "--"), or the --attribution=MODE it appends (at the very
 * end, also after a command) when it chose the mode itself.
 */
static const char *cmdline_attribution(const char **argv, uint32_t argc)
{
	const char *found = NULL;
	bool opts = true;
	uint32_t i;

	if (argc < 2 || strcmp(argv[1], "record"))
		return NULL;
	if (!strncmp(argv[argc - 1], "--attribution=", 14))
		return argv[argc - 1] + 14;
	for (i = 2; i < argc && opts; i++) {
		if (!strncmp(argv[i], "--attr=", 7))
			found = argv[i] + 7;
		else if (!strcmp(argv[i], "--attr") && i + 1 < argc)
			found = argv[i + 1];
		else if (!strcmp(argv[i], "--"))
			opts = false;
	}
	return found;
}

static void print_cmdline(struct report *r)
{
	const char *argv[256], *p, *end, *attribution;
	const void *data;
	uint32_t nr, len, i, n = 0;
	size_t size;

	if (pebs_perfdata__feat(r->pd, PEBS_FEAT_CMDLINE, &data, &size) ||
	    size < 4)
		return;
	p = data;
	end = p + size;
	memcpy(&nr, p, 4);
	p += 4;
	printf("# command   :");
	for (i = 0; i < nr && n < 256 && p + 4 <= end; i++) {
		memcpy(&len, p, 4);
		if (len > (size_t)(end - p - 4) || !len ||
		    strnlen(p + 4, len) == len)
			break;
		argv[n++] = p + 4;
		printf(" %s", p + 4);
		p += 4 + len;
	}
	putchar('\n');
	attribution = cmdline_attribution(argv, n);
	if (attribution)
		printf("# attribution: %s (as recorded by pebs-shim record)\n",
		       attribution);
}

static void print_header(struct report *r)
{
	char host[256], rel[256], cpu[256];
	unsigned int i;

	printf("# pebs-shim report of %s\n", r->path);
	if (pebs_perfdata__feat_str(r->pd, PEBS_FEAT_HOSTNAME, host,
				    sizeof(host)) < 0)
		snprintf(host, sizeof(host), "?");
	if (pebs_perfdata__feat_str(r->pd, PEBS_FEAT_OSRELEASE, rel,
				    sizeof(rel)) < 0)
		snprintf(rel, sizeof(rel), "?");
	if (pebs_perfdata__feat_str(r->pd, PEBS_FEAT_CPUDESC, cpu,
				    sizeof(cpu)) < 0)
		snprintf(cpu, sizeof(cpu), "?");
	printf("# recorded on: %s, Linux %s, %s\n", host, rel, cpu);
	print_cmdline(r);
	for (i = 0; i < r->nr_attrs; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(r->pd, i, NULL, NULL);
		const char *name = pebs_perfdata__attr_name(r->pd, i);

		printf("# event %u   : %s (type %u, config 0x%llx", i,
		       name ? name : "?", a->type,
		       (unsigned long long)a->config);
		if (a->config1)
			printf(", config1 0x%llx",
			       (unsigned long long)a->config1);
		printf(", %s %llu", a->freq ? "freq" : "period",
		       (unsigned long long)a->sample_period);
		if (a->precise_ip)
			printf(", precise_ip %u", a->precise_ip);
		printf("): %" PRIu64 " samples\n",
		       i < r->nr_counted ? r->attr_samples[i] : 0);
	}
	printf("# samples   : %" PRIu64 " (%" PRIu64 " with a data address, "
	       "%" PRIu64 " with a data source, %zu with a weight)\n",
	       r->samples, r->with_addr, r->with_src, r->nr_weights);
	printf("# lost      : %" PRIu64 " samples in LOST records", r->lost);
	if (r->lost_samples)
		printf(", %" PRIu64 " in LOST_SAMPLES", r->lost_samples);
	printf("; %" PRIu64 " throttle events\n", r->throttles);
	if (r->last_time)
		printf("# duration  : %.3f ms (first to last sample)\n",
		       (double)(r->last_time - r->first_time) / 1e6);
	if (r->bad)
		printf("# undecoded : %" PRIu64 " samples\n", r->bad);
}

/* ---- main --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: pebs-shim report [-i FILE] [--sort KEY[,KEY...]] [-n N] [--stdio]\n"
"\n"
"Summarize a perf.data recording (pebs-shim record, perf record, perf\n"
"mem/c2c record): events, samples, lost samples, duration and the\n"
"attribution used, then tables of the hottest threads, symbols, data\n"
"pages, cache lines, cache lines shared by two or more threads, data\n"
"sources, and weight (latency) statistics where the samples have them.\n"
"With samples of several events every table is split by event (shares\n"
"within each event).\n"
"\n"
"  -i, --input=FILE     the recording (default pebs-shim.data)\n"
"  -s, --sort=KEYS      one table grouped by these comma-separated keys\n"
"                       instead of the default tables: pid, tid, comm,\n"
"                       sym, dso, page, line, addr, src, cpu, event\n"
"  -n, --top=N          rows per table (default 10; 0: all)\n"
"      --stdio          plain text output (the only output; for perf\n"
"                       habits)\n"
"  -h, --help           this help\n"
"\n"
"Symbols come from the recording's MMAP/MMAP2 records and the ELF\n"
"symbol tables of the files on this machine; a file whose build id\n"
"differs from the recorded one is shown as [file] without symbols.\n"
"Kernel symbols are resolved only when the recording's kernel map\n"
"matches this boot's /proc/kallsyms. Data pages are 4 KiB, cache\n"
"lines 64 bytes. Exit status: 0, 1 (unreadable file), 2 (usage).\n");
}

static int add_table(struct report *r, const char *title, const char *keys,
		     bool sharing)
{
	struct table *t = &r->tables[r->nr_tables];

	memset(t, 0, sizeof(*t));
	t->title = title;
	t->sharing = sharing;
	if (parse_keys(keys, t))
		return -EINVAL;
	if (t->keys[0] == K_EVENT) {
		t->ev_total = calloc(r->nr_attrs ? r->nr_attrs : 1,
				     sizeof(*t->ev_total));
		if (!t->ev_total)
			return -ENOMEM;
	}
	r->nr_tables++;
	return 0;
}

/*
 * The default tables; with @by_event (samples of several events) each
 * is split by event, as loads and stores, say, should not be summed.
 */
static int setup_tables(struct report *r, const char *sort, bool by_event)
{
	const char *ev = by_event ? "event," : "";
	char keys[5][32];
	int err = 0;

	r->tables = calloc(8, sizeof(*r->tables));
	if (!r->tables)
		return -ENOMEM;
	if (sort)
		return add_table(r, "samples by --sort keys", sort, false);
	snprintf(keys[0], sizeof(keys[0]), "%spid,tid,comm", ev);
	snprintf(keys[1], sizeof(keys[1]), "%ssym,dso", ev);
	snprintf(keys[2], sizeof(keys[2]), "%spage", ev);
	snprintf(keys[3], sizeof(keys[3]), "%sline", ev);
	snprintf(keys[4], sizeof(keys[4]), "%ssrc", ev);
	err = err ?: add_table(r, "threads", keys[0], false);
	err = err ?: add_table(r, "symbols", keys[1], false);
	err = err ?: add_table(r, "data pages", keys[2], false);
	err = err ?: add_table(r, "cache lines", keys[3], false);
	err = err ?: add_table(r, "cache lines touched by two or more "
			       "threads (who shares a cache line)", keys[3],
			       true);
	if (!err)	/* the same rows as "cache lines", filtered */
		r->tables[r->nr_tables - 1].view_of =
			&r->tables[r->nr_tables - 2];
	err = err ?: add_table(r, "data sources", keys[4], false);
	return err;
}

/*
 * The next record, or -EBADMSG at one that is not 8-byte aligned (a
 * damaged size field): perf.data records are, and the decoders rely on
 * it.
 */
static int next_record(struct report *r, const struct perf_event_header **ev)
{
	int ret = pebs_perfdata__next(r->pd, ev);

	if (ret > 0 && (((uintptr_t)*ev & 7) || (*ev)->size % 8))
		return -EBADMSG;
	return ret;
}

/* A non-sample record and its time, for pass 1 in time order. */
struct timed {
	uint64_t time;
	const struct perf_event_header *ev;
};

static int timed_cmp(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* equal times (e.g. synthesized records at 0) keep file order */
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int count_event(struct report *r, unsigned int idx)
{
	if (idx >= r->nr_counted) {
		unsigned int n = idx + 1;
		uint64_t *c = realloc(r->attr_samples, n * sizeof(*c));

		if (!c)
			return -ENOMEM;
		memset(c + r->nr_counted, 0,
		       (n - r->nr_counted) * sizeof(*c));
		r->attr_samples = c;
		r->nr_counted = n;
	}
	r->attr_samples[idx]++;
	return 0;
}

/*
 * Pass 1 in time order: rings of different CPUs are written interleaved,
 * so a thread's FORK may precede its parent's COMM exec in the file.
 */
static int pass1(struct report *r)
{
	const struct perf_event_header *ev;
	struct timed *recs = NULL, *n;
	size_t nr = 0, cap = 0, i;
	int err;

	while ((err = next_record(r, &ev)) > 0) {
		struct pebs_sample s;

		if (ev->type == PERF_RECORD_SAMPLE) {
			unsigned int idx;

			/* samples per event: are there several to tell apart? */
			if (!pebs_perfdata__sample(r->pd, ev, &s, &idx) &&
			    count_event(r, idx)) {
				free(recs);
				return -ENOMEM;
			}
			continue;
		}
		if (nr == cap) {
			cap = cap ? cap * 2 : 4096;
			n = realloc(recs, cap * sizeof(*recs));
			if (!n) {
				free(recs);
				return -ENOMEM;
			}
			recs = n;
		}
		recs[nr].ev = ev;
		recs[nr].time = 0;
		if (!pebs_perfdata__sample_id(r->pd, ev, &s, NULL) &&
		    (s.present & PERF_SAMPLE_TIME))
			recs[nr].time = s.time;
		nr++;
	}
	if (err < 0)
		report_err("%s: a damaged record at the %zuth: reporting the "
			   "records before it", r->path, nr + 1);
	qsort(recs, nr, sizeof(*recs), timed_cmp);
	for (i = 0; i < nr; i++) {
		if (pass1_record(r, recs[i].ev)) {
			free(recs);
			return -ENOMEM;
		}
	}
	free(recs);
	return 0;
}

static int run(struct report *r, const char *sort)
{
	const struct perf_event_header *ev;
	unsigned int idx, nr_sampled;
	struct pebs_sample s;
	uint64_t text;
	int err;

	err = pebs_perfdata__open(r->path, &r->pd);
	if (err) {
		report_err("%s: give a perf.data file with -i", pebs_errmsg());
		return 1;
	}
	if (pebs_perfdata__has_feat(r->pd, PEBS_FEAT_COMPRESSED)) {
		report_err("%s: zstd-compressed (perf record -z), which pebs-shim "
			   "cannot read: record again without -z", r->path);
		return 1;
	}
	r->nr_attrs = pebs_perfdata__nr_attrs(r->pd);
	if (pebs_symbols__new(&r->syms)) {
		report_err("%s", pebs_errmsg());
		return 1;
	}
	if (load_build_ids(r))
		goto out_oom;
	if (pass1(r))
		goto out_oom;
	/* HEADER_ATTR records may have added events */
	r->nr_attrs = pebs_perfdata__nr_attrs(r->pd);
	for (idx = 0, nr_sampled = 0; idx < r->nr_counted; idx++)
		nr_sampled += r->attr_samples[idx] != 0;
	if (setup_tables(r, sort, nr_sampled > 1))
		goto out_oom;	/* the keys were checked before */
	r->weights = calloc(r->nr_attrs ? r->nr_attrs : 1,
			    sizeof(*r->weights));
	if (!r->weights)
		goto out_oom;
	text = r->kernel_text ? local_kernel_text() : 0;
	if (text && text == r->kernel_text)
		pebs_symbols__load_kallsyms(r->syms);

	pebs_perfdata__rewind(r->pd);
	while (next_record(r, &ev) > 0) {
		if (ev->type != PERF_RECORD_SAMPLE)
			continue;
		if (pebs_perfdata__sample(r->pd, ev, &s, &idx) ||
		    idx >= r->nr_attrs) {
			r->bad++;
			continue;
		}
		if (add_sample(r, &s, idx))
			goto out_oom;
	}
	print_header(r);
	for (idx = 0; idx < r->nr_tables; idx++)
		print_table(r, &r->tables[idx]);
	if (!sort)
		print_weights(r);
	return 0;

out_oom:
	report_err("out of memory: report a smaller file");
	return 1;
}

static void report_free(struct report *r)
{
	unsigned int i;
	size_t j;

	for (i = 0; i < r->nr_tables; i++) {
		for (j = 0; j < r->tables[i].nr_chunks; j++)
			free(r->tables[i].chunks[j]);
		free(r->tables[i].chunks);
		free(r->tables[i].rows);
		free(r->tables[i].slots);
		free(r->tables[i].ev_total);
	}
	free(r->tables);
	free(r->threads);
	for (i = 0; r->weights && i < r->nr_attrs; i++)
		free(r->weights[i].v);
	free(r->weights);
	free(r->attr_samples);
	pebs_symbols__delete(r->syms);
	pebs_perfdata__close(r->pd);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "stdio", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { .path = "pebs-shim.data", .top = 10 };
	const char *sort = NULL;
	char *end;
	int c, ret;

	while ((c = getopt_long(argc, argv, "i:s:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			r.path = optarg;
			break;
		case 's':
			sort = optarg;
			break;
		case 'n':
			r.top = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || optarg[0] == '-') {
				report_err("bad row count '%s': give a number",
					   optarg);
				return 2;
			}
			if (!r.top)
				r.top = ~0u;
			break;
		case 'S':
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "pebs-shim report: bad option: see "
				"pebs-shim report --help\n");
			return 2;
		}
	}
	if (optind != argc) {
		report_err("unexpected argument '%s': the input is -i FILE",
			   argv[optind]);
		return 2;
	}
	if (sort) {
		struct table t;

		memset(&t, 0, sizeof(t));
		if (parse_keys(sort, &t))
			return 2;
	}
	ret = run(&r, sort);
	report_free(&r);
	return ret;
}
