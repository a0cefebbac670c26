// SPDX-License-Identifier: MIT
/*
 * report-print.c - the text `pebs-shim report` prints: the recording's
 * header, the grouped tables (perf's Overhead = share of the period, the
 * samples column with -n), the cache lines shared by threads, and the
 * weight percentiles.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define FIELD_MAX	512
#define WIDTH_MAX	48	/* wider fields are not padded */

static const char *key_title(enum pebs_report_key k)
{
	static const char *const titles[PEBS_REPORT_NR_KEYS] = {
		[PEBS_REPORT_PID] = "pid", [PEBS_REPORT_TID] = "tid",
		[PEBS_REPORT_COMM] = "Command",
		[PEBS_REPORT_DSO] = "Shared Object",
		[PEBS_REPORT_SYM] = "Symbol", [PEBS_REPORT_CPU] = "CPU",
		[PEBS_REPORT_EVENT] = "event",
		[PEBS_REPORT_PAGE] = "data page",
		[PEBS_REPORT_LINE] = "cache line",
		[PEBS_REPORT_ADDR] = "data address",
		[PEBS_REPORT_SRC] = "data source",
		[PEBS_REPORT_SYM_DADDR] = "Data Symbol",
		[PEBS_REPORT_DSO_DADDR] = "Data Object",
		[PEBS_REPORT_MEM] = "Memory access",
		[PEBS_REPORT_SNOOP] = "Snoop",
		[PEBS_REPORT_TLB] = "TLB access",
		[PEBS_REPORT_DCACHELINE] = "Data Cacheline",
		[PEBS_REPORT_PHYS_DADDR] = "Data Physical Address",
		[PEBS_REPORT_WEIGHT] = "Weight",
		[PEBS_REPORT_LOCAL_WEIGHT] = "Local Weight",
		[PEBS_REPORT_LOCKED] = "Locked",
		[PEBS_REPORT_BLOCKED] = "Blocked",
		[PEBS_REPORT_LOCAL_INS_LAT] = "Local INSTR Latency",
		[PEBS_REPORT_OBJECT] = "Data Object Site",
		[PEBS_REPORT_OBJECT_INSTANCE] = "Data Object Instance",
	};
	return titles[k];
}

/* A row's field; events by name. */
void report_field(const struct report *r, const struct pebs_report_row *row,
		  enum pebs_report_key k, char *buf, size_t len)
{
	const char *name;

	if (k == PEBS_REPORT_EVENT) {
		name = pebs_perfdata__attr_name(r->pd, row->event);
		snprintf(buf, len, "%s", name ? name : "?");
		return;
	}
	pebs_report__field(row, k, buf, len);
}

static bool shown(const struct report *r, const struct pebs_report *rep,
		  const struct pebs_report_row *row)
{
	return r->percent_limit <= 0 ||
	       pebs_report__overhead(rep, row, r->by_event) >= r->percent_limit;
}

void report_print_table(const struct report *r, struct table *t)
{
	const struct pebs_report *rep = t->rep;
	const enum pebs_report_key *keys;
	unsigned int nr_keys, k;
	int w[PEBS_REPORT_MAX_KEYS] = { 0 };
	bool weights = false, threads = true, mem = false, objs = false;
	struct pebs_object_stats os;
	size_t i, nr = pebs_report__nr_rows(rep), n, printed;
	uint64_t total;
	char f[FIELD_MAX];

	nr_keys = pebs_report__keys(rep, &keys);
	for (k = 0; k < nr_keys; k++) {
		threads &= keys[k] != PEBS_REPORT_TID;	/* else always 1 */
		mem |= r->with_src && (keys[k] == PEBS_REPORT_LINE ||
				       keys[k] == PEBS_REPORT_PAGE ||
				       keys[k] == PEBS_REPORT_ADDR);
		/* a data object's columns (lib/objects/objects-stats.c) */
		objs |= r->objs && (keys[k] == PEBS_REPORT_OBJECT ||
				    keys[k] == PEBS_REPORT_OBJECT_INSTANCE);
	}
	mem |= objs && r->with_src;
	pebs_report__totals(rep, -1, &total, NULL);
	printf("\n# %s", t->title);
	for (k = 0; k < nr_keys; k++) {
		if (keys[k] == PEBS_REPORT_SRC) {
			printf(" (%" PRIu64 " samples with a data source)",
			       total);
			break;
		}
		if (keys[k] == PEBS_REPORT_LINE ||
		    keys[k] == PEBS_REPORT_PAGE ||
		    keys[k] == PEBS_REPORT_ADDR) {
			printf(" (%" PRIu64 " samples with a data address)",
			       total);
			break;
		}
	}
	if (r->by_event)
		printf(", share within each event");
	putchar('\n');
	if (r->mem_mode) {	/* perf report --mem-mode's header lines */
		uint64_t weight;

		pebs_report__totals(rep, -1, NULL, &weight);
		printf("# Total weight : %" PRIu64 "\n# Sort order   : %s\n",
		       weight, r->sort);
	}
	if (!total) {
		printf("#   (none)\n");
		return;
	}
	/* widths and columns from the rows that will be printed */
	for (k = 0; k < nr_keys; k++)
		w[k] = (int)strlen(key_title(keys[k]));
	for (i = 0, n = 0; i < nr && n < r->top; i++) {
		const struct pebs_report_row *row = pebs_report__row(rep, i);

		if (!shown(r, rep, row))
			continue;
		n++;
		weights |= row->weight_nr != 0;
		for (k = 0; k < nr_keys; k++) {
			int l;

			report_field(r, row, keys[k], f, sizeof(f));
			l = (int)strlen(f);
			w[k] = l > w[k] && l <= WIDTH_MAX ? l : w[k];
		}
	}
	printf("%9s", "Overhead");
	if (r->show_nr || objs)
		printf("  %10s", "Samples");
	if (weights)
		printf("  %8s", "avg-wt");
	if (weights && objs)
		printf("  %8s  %8s", "p50-wt", "p90-wt");
	if (mem)
		printf("  %7s  %7s  %7s", "loads", "stores", "hitm");
	if (threads)
		printf("  %7s", "threads");
	if (objs)
		printf("  %9s  %12s  %12s", "instances", "bytes", "peak-live");
	for (k = 0; k < nr_keys; k++)
		printf("  %-*s", k + 1 < nr_keys ? w[k] : 0,
		       key_title(keys[k]));
	putchar('\n');
	for (i = 0, printed = 0, n = 0; i < nr; i++) {
		const struct pebs_report_row *row;

		if (printed == r->top && r->percent_limit <= 0) {
			n += nr - i;	/* every row is shown: counted */
			break;
		}
		row = pebs_report__row(rep, i);
		if (!shown(r, rep, row))
			continue;
		n++;
		if (printed == r->top)
			continue;
		printed++;
		printf("%8.2f%%", pebs_report__overhead(rep, row, r->by_event));
		if (r->show_nr || objs)
			printf("  %10" PRIu64, row->samples);
		if (weights && row->weight_nr)
			printf("  %8.1f", (double)row->weight_sum /
			       (double)row->weight_nr);
		else if (weights)
			printf("  %8s", "-");
		if (objs)
			pebs_objects__stats(r->objs, r->by_event ? row->event :
					    r->sole_event, row->object, &os);
		if (weights && objs && os.weights)
			printf("  %8" PRIu64 "  %8" PRIu64, os.weight_p50,
			       os.weight_p90);
		else if (weights && objs)
			printf("  %8s  %8s", "-", "-");
		if (mem)
			printf("  %7u  %7u  %7u", row->loads, row->stores,
			       row->hitm);
		if (threads && row->nr_tids > PEBS_REPORT_MAX_TIDS)
			printf("  %6u+", PEBS_REPORT_MAX_TIDS);
		else if (threads)
			printf("  %7u", row->nr_tids);
		if (objs && os.instances)
			printf("  %9" PRIu64 "  %12" PRIu64 "  %12" PRIu64,
			       os.instances, os.bytes, os.peak_live);
		else if (objs)
			printf("  %9s  %12s  %12s", "-", "-", "-");
		for (k = 0; k < nr_keys; k++) {
			report_field(r, row, keys[k], f, sizeof(f));
			printf("  %-*s", k + 1 < nr_keys ? w[k] : 0, f);
		}
		putchar('\n');
	}
	if (n > printed)
		printf("%9s  (%zu more rows: --top to show more)\n", "...",
		       n - printed);
}

void report_print_weights(struct report *r)
{
	struct pebs_weight_summary w;
	unsigned int e;

	if (!pebs_weights__nr(r->weights))
		return;
	printf("\n# weight (latency, cycles as the PMU reports it) of %" PRIu64
	       " samples with one\n", pebs_weights__nr(r->weights));
	printf("%10s %10s %10s %10s %10s %10s %10s  %s\n", "min", "mean",
	       "p50", "p90", "p99", "max", "samples", "event");
	for (e = 0; e < r->nr_attrs; e++) {
		const char *name = pebs_perfdata__attr_name(r->pd, e);

		if (pebs_weights__summary(r->weights, e, &w))
			continue;
		printf("%10" PRIu64 " %10.1f %10" PRIu64 " %10" PRIu64 " %10"
		       PRIu64 " %10" PRIu64 " %10" PRIu64 "  %s\n", w.min,
		       w.mean, w.p50, w.p90, w.p99, w.max, w.samples,
		       name ? name : "?");
	}
}

/*
 * The attribution pebs-shim record used: "attribution" in the file's
 * pebs-shim section (pebs_perfdata__meta), or, in files of older
 * versions, the --attr option of the stored command line (before any
 * "--"; record inserted --attr=MODE after "record" when auto chose), or
 * the --attribution=MODE appended at the very end.
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

static void print_cmdline(const struct report *r)
{
	const char *argv[256], *p, *end, *attribution;
	const void *data;
	char mode[32];
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
	attribution = pebs_perfdata__meta(r->pd, "attribution", mode,
					  sizeof(mode)) > 0 ? mode :
		      cmdline_attribution(argv, n);
	if (attribution)
		printf("# attribution: %s (as recorded by pebs-shim record)\n",
		       attribution);
}

void report_print_header(const struct report *r)
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
		       i < r->st->nr_events ? r->st->event_samples[i] : 0);
	}
	printf("# samples   : %" PRIu64 " (%" PRIu64 " with a data address, "
	       "%" PRIu64 " with a data source, %" PRIu64 " with a weight)\n",
	       r->samples, r->with_addr, r->with_src,
	       pebs_weights__nr(r->weights));
	printf("# lost      : %" PRIu64 " samples in LOST records",
	       r->st->lost);
	if (r->st->lost_samples)
		printf(", %" PRIu64 " in LOST_SAMPLES", r->st->lost_samples);
	printf("; %" PRIu64 " throttle events\n", r->st->throttles);
	if (r->st->last_time)
		printf("# duration  : %.3f ms (first to last sample)\n",
		       (double)(r->st->last_time - r->st->first_time) / 1e6);
	printf("# kernel    : %s\n", r->st->kernel == 2 ?
	       "another build (symbols from its kallsyms in the build-id "
	       "cache)" : r->st->kernel > 0 ?
	       "this host's (symbols from /proc/kallsyms)" :
	       "not recorded, or another build: kernel addresses "
	       "stay raw");
	if (r->flags & PEBS_ORDERED_FILE_ORDER)
		printf("# order     : file order (an event does not sample "
		       "TIME)\n");
	if (r->filtered)
		printf("# filtered  : %" PRIu64 " samples left out of the "
		       "tables\n", r->filtered);
	if (r->st->bad)
		printf("# undecoded : %" PRIu64 " samples\n", r->st->bad);
}

struct sharing_walk {
	const struct report *r;
	unsigned int shown;
};

static const char *thread_name(const struct report *r, uint32_t pid,
			       uint32_t tid)
{
	const char *c = pebs_threads__comm(pebs_session__threads(r->ss),
					   (int32_t)pid, (int32_t)tid);

	return c ? c : "?";
}

static int sharing_line(const struct pebs_c2c_line *l, void *arg)
{
	struct sharing_walk *w = arg;
	const struct pebs_c2c_evidence *e = &l->evidence;

	if (w->shown++ == w->r->top)
		return 1;
	printf("%4u  %#18" PRIx64 "  %7" PRIu64 "  %6" PRIu64 "  %6" PRIu64
	       "  %5" PRIu64 "  %7" PRIu64 "  %7u  %7u  %-10s", l->rank,
	       l->addr, l->stats.nr_entries, l->stats.load, l->stats.store,
	       l->stats.tot_hitm, l->xwrites, l->nr_threads, l->nr_offsets,
	       pebs_c2c_sharing__name(l->sharing));
	if (l->sharing != PEBS_C2C_PRIVATE)
		printf("  %s/%u@%u %s %s/%u@%u", thread_name(w->r, e->pid_a, e->tid_a),
		       e->tid_a, e->off_a, e->b_writes ? "and writer" : "and",
		       thread_name(w->r, e->pid_b, e->tid_b), e->tid_b, e->off_b);
	putchar('\n');
	return 0;
}

/*
 * Who shares a cache line, by perf c2c's rules (lib/c2c/c2c.c, filled in
 * the report's pass): lines ranked by HITM, or by cross-thread writes
 * when the samples carry no data source; each classified true or false
 * sharing with two accesses as evidence. pebs-shim c2c report shows
 * every offset, code address, thread and CPU.
 */
int report_print_sharing(const struct report *r)
{
	struct sharing_walk w = { .r = r };
	struct pebs_c2c *c = r->c2c;
	bool src;
	int err;

	src = pebs_c2c__has_data_src(c);
	err = pebs_c2c__sort(c, src ? PEBS_C2C_TOT_HITM : PEBS_C2C_XWRITES);
	if (err < 0)
		return err;
	printf("\n# shared cache lines, as perf c2c ranks them (%s); true sharing: two threads\n"
	       "# on the same bytes, one writing; false: two threads on different bytes, one\n"
	       "# writing; true+false: both; the evidence is the costliest pair (HITM, stores)\n"
	       "# (pebs-shim c2c report: offsets, code addresses, threads, CPUs); samples,\n"
	       "# loads and stores count as in every table here (a load: data source op\n"
	       "# load); c2c report's Total records and Total Loads are perf's narrower sums\n",
	       src ? "by HITM" : "no data source: by cross-thread writes");
	printf("%4s  %18s  %7s  %6s  %6s  %5s  %7s  %7s  %7s  %-10s  %s\n",
	       "rank", "cache line", "samples", "loads", "stores", "hitm",
	       "xwrites", "threads", "offsets", "kind", "evidence (comm/tid@offset)");
	err = pebs_c2c__for_each_line(c, false, sharing_line, &w);
	if (!w.shown)
		printf("#   (no cache line is shared)\n");
	else if (w.shown > r->top)
		printf("%4s  (more lines: --top to show more)\n", "...");
	return err == -ENOMEM ? err : 0;
}
