// SPDX-License-Identifier: MIT
/*
 * report-format.c - `pebs-shim report --format=csv|json`: every table
 * with stable column names, nothing cut (all rows unless --top is
 * given; no field is shortened).
 *
 * CSV: one header line, then one line per row of every table:
 *   table,overhead,period,samples,avg_weight,loads,stores,hitm,threads,
 *   event,pid,tid,comm,dso,sym,cpu,page,line,addr,src,symbol_daddr,
 *   dso_daddr,mem,snoop,tlb,dcacheline,phys_daddr,weight
 * where a key the row's table is not grouped by is empty; with an object
 * or object_instance key (and objects read), then p50_weight,p90_weight,
 * instances,bytes,peak_live (lib/objects/objects-stats.c; empty where
 * unknown), also in the JSON rows.
 * JSON: {"file":..., "samples":N, "tables":[{"title":..., "keys":[...],
 *   "rows":[{"overhead":..., ..., "<key>":...}]}]}.
 * overhead is a percentage of the table's (or the row's event's) period.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "util.h"

#define FIELD_MAX	4096

/* The key columns, in CSV order. */
static const enum pebs_report_key csv_keys[] = {
	PEBS_REPORT_EVENT, PEBS_REPORT_PID, PEBS_REPORT_TID,
	PEBS_REPORT_COMM, PEBS_REPORT_DSO, PEBS_REPORT_SYM, PEBS_REPORT_CPU,
	PEBS_REPORT_PAGE, PEBS_REPORT_LINE, PEBS_REPORT_ADDR, PEBS_REPORT_SRC,
	PEBS_REPORT_SYM_DADDR, PEBS_REPORT_DSO_DADDR, PEBS_REPORT_MEM,
	PEBS_REPORT_SNOOP, PEBS_REPORT_TLB, PEBS_REPORT_DCACHELINE,
	PEBS_REPORT_PHYS_DADDR, PEBS_REPORT_WEIGHT, PEBS_REPORT_LOCAL_WEIGHT,
	PEBS_REPORT_LOCKED, PEBS_REPORT_BLOCKED, PEBS_REPORT_LOCAL_INS_LAT,
	PEBS_REPORT_OBJECT, PEBS_REPORT_OBJECT_INSTANCE,
};

static bool has_key(const enum pebs_report_key *keys, unsigned int n,
		    enum pebs_report_key k)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (keys[i] == k)
			return true;
	return false;
}

/* the object stats of @row when @rep has an object key, else NULL */
static const struct pebs_object_stats *
obj_stats(const struct report *r, const struct pebs_report *rep,
	  const struct pebs_report_row *row, struct pebs_object_stats *os)
{
	const enum pebs_report_key *keys;
	unsigned int n = pebs_report__keys(rep, &keys);

	if (!r->objs || (!has_key(keys, n, PEBS_REPORT_OBJECT) &&
			 !has_key(keys, n, PEBS_REPORT_OBJECT_INSTANCE)))
		return NULL;
	pebs_objects__stats(r->objs, r->by_event ? row->event : r->sole_event,
			    row->object, os);
	return os;
}

/* whether a table of the report has an object key */
static bool any_objects(const struct report *r)
{
	const enum pebs_report_key *keys;
	unsigned int i, n;

	for (i = 0; r->objs && i < r->nr_tables; i++) {
		n = pebs_report__keys(r->tables[i].rep, &keys);
		if (has_key(keys, n, PEBS_REPORT_OBJECT) ||
		    has_key(keys, n, PEBS_REPORT_OBJECT_INSTANCE))
			return true;
	}
	return false;
}

/* Call @fn for each row of @t that is shown, up to --top. */
static void each_row(const struct report *r, const struct table *t,
		     void (*fn)(const struct report *r, const struct table *t,
				const struct pebs_report *rep,
				const struct pebs_report_row *row, bool first))
{
	const struct pebs_report *rep = t->rep;
	size_t i, n = 0, nr = pebs_report__nr_rows(rep);

	for (i = 0; i < nr && n < r->top; i++) {
		const struct pebs_report_row *row = pebs_report__row(rep, i);

		if (r->percent_limit > 0 &&
		    pebs_report__overhead(rep, row, r->by_event) < r->percent_limit)
			continue;
		fn(r, t, rep, row, n++ == 0);
	}
}

static void csv_row(const struct report *r, const struct table *t,
		    const struct pebs_report *rep,
		    const struct pebs_report_row *row, bool first)
{
	const enum pebs_report_key *keys;
	unsigned int nr_keys = pebs_report__keys(rep, &keys), k;
	struct pebs_object_stats st;
	const struct pebs_object_stats *os = obj_stats(r, rep, row, &st);
	char f[FIELD_MAX];

	(void)first;
	tool_csv_str(stdout, t->title);
	printf(",%.4f,%" PRIu64 ",%" PRIu64 ",", pebs_report__overhead(rep, row, r->by_event),
	       row->period, row->samples);
	if (row->weight_nr)
		printf("%.1f", (double)row->weight_sum /
		       (double)row->weight_nr);
	printf(",%u,%u,%u,%u", row->loads, row->stores, row->hitm,
	       row->nr_tids > PEBS_REPORT_MAX_TIDS ? PEBS_REPORT_MAX_TIDS + 1 :
	       row->nr_tids);
	for (k = 0; k < sizeof(csv_keys) / sizeof(csv_keys[0]); k++) {
		putchar(',');
		if (!has_key(keys, nr_keys, csv_keys[k]))
			continue;
		report_field(r, row, csv_keys[k], f, sizeof(f));
		tool_csv_str(stdout, f);
	}
	if (os && os->weights)
		printf(",%" PRIu64 ",%" PRIu64, os->weight_p50,
		       os->weight_p90);
	else if (os)
		fputs(",,", stdout);
	if (os && os->instances)
		printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64, os->instances,
		       os->bytes, os->peak_live);
	else if (os)
		fputs(",,,", stdout);
	else if (any_objects(r))
		fputs(",,,,,", stdout);
	putchar('\n');
}

static void json_row(const struct report *r, const struct table *t,
		     const struct pebs_report *rep,
		     const struct pebs_report_row *row, bool first)
{
	const enum pebs_report_key *keys;
	unsigned int nr_keys = pebs_report__keys(rep, &keys), k;
	struct pebs_object_stats st;
	const struct pebs_object_stats *os = obj_stats(r, rep, row, &st);
	char f[FIELD_MAX];

	(void)t;
	printf("%s\n        {\"overhead\": %.4f, \"period\": %" PRIu64
	       ", \"samples\": %" PRIu64, first ? "" : ",",
	       pebs_report__overhead(rep, row, r->by_event), row->period, row->samples);
	if (row->weight_nr)
		printf(", \"avg_weight\": %.1f", (double)row->weight_sum /
		       (double)row->weight_nr);
	printf(", \"loads\": %u, \"stores\": %u, \"hitm\": %u, "
	       "\"threads\": %u", row->loads, row->stores, row->hitm,
	       row->nr_tids > PEBS_REPORT_MAX_TIDS ? PEBS_REPORT_MAX_TIDS + 1 :
	       row->nr_tids);
	for (k = 0; k < nr_keys; k++) {
		printf(", \"%s\": ", pebs_report__key_name(keys[k]));
		report_field(r, row, keys[k], f, sizeof(f));
		tool_json_str(stdout, f);
	}
	if (os && os->weights)
		printf(", \"p50_weight\": %" PRIu64 ", \"p90_weight\": %"
		       PRIu64, os->weight_p50, os->weight_p90);
	if (os && os->instances)
		printf(", \"instances\": %" PRIu64 ", \"bytes\": %" PRIu64
		       ", \"peak_live\": %" PRIu64, os->instances, os->bytes,
		       os->peak_live);
	putchar('}');
}

void report_print_csv(const struct report *r)
{
	unsigned int i, k;

	fputs("table,overhead,period,samples,avg_weight,loads,stores,hitm,"
	      "threads", stdout);
	for (k = 0; k < sizeof(csv_keys) / sizeof(csv_keys[0]); k++)
		printf(",%s", pebs_report__key_name(csv_keys[k]));
	if (any_objects(r))
		fputs(",p50_weight,p90_weight,instances,bytes,peak_live",
		      stdout);
	putchar('\n');
	for (i = 0; i < r->nr_tables; i++)
		each_row(r, &r->tables[i], csv_row);
}

void report_print_json(const struct report *r)
{
	const enum pebs_report_key *keys;
	unsigned int i, k, nr_keys;

	printf("{\n  \"file\": ");
	tool_json_str(stdout, r->path);
	printf(",\n  \"samples\": %" PRIu64 ",\n  \"lost\": %" PRIu64
	       ",\n  \"tables\": [", r->samples,
	       r->st->lost + r->st->lost_samples);
	for (i = 0; i < r->nr_tables; i++) {
		const struct table *t = &r->tables[i];
		const struct pebs_report *rep = t->rep;

		printf("%s\n    {\"title\": ", i ? "," : "");
		tool_json_str(stdout, t->title);
		printf(", \"keys\": [");
		nr_keys = pebs_report__keys(rep, &keys);
		for (k = 0; k < nr_keys; k++)
			printf("%s\"%s\"", k ? ", " : "",
			       pebs_report__key_name(keys[k]));
		printf("], \"rows\": [");
		each_row(r, t, json_row);
		printf("\n      ]}");
	}
	printf("\n  ]\n}\n");
}
