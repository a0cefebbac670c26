// SPDX-License-Identifier: MIT
/*
 * cmd-report.c - `pebs-shim report`: summarize a perf.data recording.
 *
 * Two passes over the records: the first learns the threads (COMM,
 * FORK), the address spaces (MMAP, MMAP2) and the counts (LOST,
 * THROTTLE); the second aggregates the samples into tables keyed by
 * strings (thread, symbol, data page, cache line, data source, or the
 * keys given with --sort).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmds.h"
#include "pebsshim.h"

#define CACHE_LINE	64
#define PAGE_SIZE_4K	4096
#define MAX_TIDS	8	/* distinct threads remembered per row */
#define MAX_KEYS	6

#ifndef PERF_RECORD_MISC_BUILD_ID_SIZE
#define PERF_RECORD_MISC_BUILD_ID_SIZE	(1 << 15)
#endif

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
};

/* An open-addressing hash table of rows by key. */
struct table {
	const char *title;
	enum key keys[MAX_KEYS];
	unsigned int nr_keys;
	bool need_addr;		/* only samples with a data address */
	bool need_src;		/* only samples with a data source */
	bool sharing;		/* only rows touched by 2+ threads */
	uint64_t total;		/* samples that had the keys */
	struct row *rows;
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
	uint64_t *attr_samples;
	uint64_t samples, lost, lost_samples, throttles, bad;
	uint64_t first_time, last_time;
	uint64_t with_addr, with_src;
	uint64_t kernel_text;	/* recorded [kernel.kallsyms]_text address */
	uint32_t *weights;
	size_t nr_weights, cap_weights;
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

static struct row *table_row(struct table *t, const char *key)
{
	size_t mask, i;

	if ((t->nr + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct row *rows = calloc(cap, sizeof(*rows));

		if (!rows)
			return NULL;
		for (i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->rows[i].key)
				continue;
			j = hash_str(t->rows[i].key) & (cap - 1);
			while (rows[j].key)
				j = (j + 1) & (cap - 1);
			rows[j] = t->rows[i];
		}
		free(t->rows);
		t->rows = rows;
		t->cap = cap;
	}
	mask = t->cap - 1;
	for (i = hash_str(key) & mask; t->rows[i].key; i = (i + 1) & mask)
		if (!strcmp(t->rows[i].key, key))
			return &t->rows[i];
	t->rows[i].key = strdup(key);
	if (!t->rows[i].key)
		return NULL;
	t->nr++;
	return &t->rows[i];
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
		const struct perf_event_header *h = (const void *)p;
		const uint8_t *bid = (const uint8_t *)p + sizeof(*h) + 4;
		const char *name = (const char *)bid + 24;
		size_t len = 20, max;

		if (h->size < sizeof(*h) + 4 + 24 || h->size > end - p)
			break;
		if (h->misc & PERF_RECORD_MISC_BUILD_ID_SIZE)
			len = bid[20];
		max = (size_t)(p + h->size - name);
		if (len && len <= 20 && strnlen(name, max) < max &&
		    name[0] == '/' &&
		    pebs_symbols__set_build_id(r->syms, name, bid, len))
			return -ENOMEM;
		p += h->size;
	}
	return 0;
}

static int pass1_record(struct report *r, const struct perf_event_header *ev)
{
	const uint32_t *u32 = (const void *)(ev + 1);
	const uint64_t *u64 = (const void *)(ev + 1);

	switch (ev->type) {
	case PERF_RECORD_COMM:
		if (ev->size < sizeof(*ev) + 9)
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
		if (ev->size > sizeof(*ev) + 32 && (int32_t)u32[0] == -1 &&
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

static int make_key(struct report *r, const struct table *t,
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
	return 0;
}

static int add_sample(struct report *r, const struct pebs_sample *s,
		      unsigned int attr_idx)
{
	bool has_addr = (s->present & PERF_SAMPLE_ADDR) && s->addr;
	bool has_src = (s->present & PERF_SAMPLE_DATA_SRC) && s->data_src;
	bool has_w = (s->present & (PERF_SAMPLE_WEIGHT |
				    PERF_SAMPLE_WEIGHT_STRUCT)) && s->weight;
	char key[2048];
	unsigned int i;

	r->samples++;
	r->attr_samples[attr_idx]++;
	if (s->present & PERF_SAMPLE_TIME) {
		if (!r->first_time || s->time < r->first_time)
			r->first_time = s->time;
		if (s->time > r->last_time)
			r->last_time = s->time;
	}
	r->with_addr += has_addr;
	r->with_src += has_src;
	if (has_w) {
		if (r->nr_weights == r->cap_weights) {
			size_t cap = r->cap_weights ? r->cap_weights * 2 : 4096;
			uint32_t *w = realloc(r->weights, cap * sizeof(*w));

			if (!w)
				return -ENOMEM;
			r->weights = w;
			r->cap_weights = cap;
		}
		r->weights[r->nr_weights++] = s->weight > UINT32_MAX ?
					      UINT32_MAX : (uint32_t)s->weight;
	}
	for (i = 0; i < r->nr_tables; i++) {
		struct table *t = &r->tables[i];
		struct row *row;

		if ((t->need_addr && !has_addr) || (t->need_src && !has_src))
			continue;
		make_key(r, t, s, attr_idx, key, sizeof(key));
		row = table_row(t, key);
		if (!row)
			return -ENOMEM;
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
	struct row *rows;
	size_t nr = 0, i, shown = 0;
	int w[MAX_KEYS] = { 0 };
	bool weights = false, threads = true;
	unsigned int k;

	for (k = 0; k < t->nr_keys; k++)
		threads &= t->keys[k] != K_TID;	/* else always 1 */

	printf("\n# %s", t->title);
	if (t->need_addr)
		printf(" (%" PRIu64 " samples with a data address)", t->total);
	else if (t->need_src)
		printf(" (%" PRIu64 " samples with a data source)", t->total);
	putchar('\n');
	if (!t->total) {
		printf("#   (none)\n");
		return;
	}
	rows = malloc(t->nr * sizeof(*rows));
	if (!rows)
		return;
	for (i = 0; i < t->cap; i++) {
		if (!t->rows[i].key)
			continue;
		if (t->sharing && t->rows[i].nr_tids < 2)
			continue;
		rows[nr++] = t->rows[i];
		weights |= t->rows[i].wcount != 0;
	}
	qsort(rows, nr, sizeof(*rows), row_cmp);
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

			w[k] = l > w[k] ? l : w[k];
			key += l + (key[l] == '\t');
		}
	}
	printf("%10s  %7s", "samples", "share");
	if (weights)
		printf("  %8s", "avg-wt");
	if (threads)
		printf("  %7s", "threads");
	for (k = 0; k < t->nr_keys; k++)
		printf("  %-*s", k + 1 < t->nr_keys ? w[k] : 0,
		       key_title(t->keys[k]));
	putchar('\n');
	for (i = 0; i < nr && i < r->top; i++, shown++) {
		struct row *row = &rows[i];

		printf("%10" PRIu64 "  %6.2f%%", row->samples,
		       100.0 * (double)row->samples / (double)t->total);
		if (weights) {
			if (row->wcount)
				printf("  %8.1f", (double)row->wsum /
				       (double)row->wcount);
			else
				printf("  %8s", "-");
		}
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
	size_t n = r->nr_weights;
	uint64_t sum = 0;
	size_t i;

	if (!n)
		return;
	qsort(r->weights, n, sizeof(*r->weights), u32_cmp);
	for (i = 0; i < n; i++)
		sum += r->weights[i];
	printf("\n# weight (latency, cycles as the PMU reports it) of %zu "
	       "samples with one\n", n);
	printf("%10s %10s %10s %10s %10s %10s %10s\n", "min", "mean", "p50",
	       "p90", "p99", "max", "samples");
	printf("%10u %10.1f %10u %10u %10u %10u %10zu\n", r->weights[0],
	       (double)sum / (double)n, r->weights[n / 2],
	       r->weights[n * 9 / 10], r->weights[n * 99 / 100],
	       r->weights[n - 1], n);
}

/* The attribution the record tool stored in the command line. */
static const char *cmdline_attribution(const char **argv, uint32_t argc)
{
	const char *found = NULL;
	uint32_t i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "--attribution=", 14))
			found = argv[i] + 14;
		else if (!strncmp(argv[i], "--attr=", 7))
			found = argv[i] + 7;
		else if (!strcmp(argv[i], "--attr") && i + 1 < argc)
			found = argv[i + 1];
		else if (!strcmp(argv[i], "--"))
			break;
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
		printf("): %" PRIu64 " samples\n", r->attr_samples[i]);
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
	r->nr_tables++;
	return 0;
}

static int setup_tables(struct report *r, const char *sort)
{
	int err = 0;

	r->tables = calloc(8, sizeof(*r->tables));
	if (!r->tables)
		return -ENOMEM;
	if (sort)
		return add_table(r, "samples by --sort keys", sort, false);
	err = err ?: add_table(r, "threads", "pid,tid,comm", false);
	err = err ?: add_table(r, "symbols", "sym,dso", false);
	err = err ?: add_table(r, "data pages", "page", false);
	err = err ?: add_table(r, "cache lines", "line", false);
	err = err ?: add_table(r, "cache lines touched by two or more "
			       "threads (who shares a cache line)", "line",
			       true);
	err = err ?: add_table(r, "data sources", "src", false);
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

		if (ev->type == PERF_RECORD_SAMPLE)
			continue;
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
	struct pebs_sample s;
	unsigned int idx;
	uint64_t text;
	int err;

	err = pebs_perfdata__open(r->path, &r->pd);
	if (err) {
		report_err("%s: give a perf.data file with -i", pebs_errmsg());
		return 1;
	}
	r->nr_attrs = pebs_perfdata__nr_attrs(r->pd);
	if (pebs_symbols__new(&r->syms)) {
		report_err("%s", pebs_errmsg());
		return 1;
	}
	if (setup_tables(r, sort))
		goto out_oom;	/* the keys were checked before */
	if (load_build_ids(r))
		goto out_oom;
	if (pass1(r))
		goto out_oom;
	/* HEADER_ATTR records may have added events */
	r->nr_attrs = pebs_perfdata__nr_attrs(r->pd);
	r->attr_samples = calloc(r->nr_attrs ? r->nr_attrs : 1,
				 sizeof(*r->attr_samples));
	if (!r->attr_samples)
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
		for (j = 0; j < r->tables[i].cap; j++)
			free(r->tables[i].rows[j].key);
		free(r->tables[i].rows);
	}
	free(r->tables);
	free(r->threads);
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
