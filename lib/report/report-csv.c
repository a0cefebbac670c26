// SPDX-License-Identifier: MIT
/*
 * report-csv.c - pebs_report_tables__print's CSV and JSON: every table
 * with stable column names, nothing cut (all rows unless a top is given;
 * no field is shortened):
 *
 * CSV: one header line, then one line per row of every table:
 *   table,overhead,period,samples,avg_weight,loads,stores,hitm,threads,
 *   event,pid,tgid,tid,comm,dso,sym,cpu,page,line,addr,src,
 *   symbol_daddr,dso_daddr,mem,snoop,tlb,dcacheline,phys_daddr,weight,
 *   local_weight,locked,blocked,local_ins_lat,object,object_instance
 * (pid is perf's "tid:comm", tgid the process)
 * where a key the row's table is not grouped by is empty (and, when a
 * table has an object key, its object columns; when a table has
 * children, the children and children_period columns, empty in the
 * other tables; when a table has sampling errors, share_error; when a
 * table has the srcline, srcfile or time key, last that key's column:
 * srcline, srcfile, time, in that order).
 * JSON: {"file":..., "samples":N, "tables":[{"title":..., "keys":[...],
 *   "rows":[{"overhead":..., ..., "<key>":...}]}]} (a table with
 *   children: "children" and "children_period" after "samples").
 * overhead and children are percentages of the table's (or the row's
 * event's) period.
 */
#include <inttypes.h>
#include <stdio.h>

#include "pebsshim/objects.h"
#include "pebsshim/report.h"
#include "core/internal.h"
#include "report/report-print-int.h"

#define FIELD_MAX	4096	/* csv, json: whole */

/* The key columns, in CSV order. */
static const enum pebs_report_key csv_keys[] = {
	PEBS_REPORT_EVENT, PEBS_REPORT_THREAD, PEBS_REPORT_PID, PEBS_REPORT_TID,
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

/* What a CSV line and a JSON row both say of a row. */
struct row_vals {
	const enum pebs_report_key *keys;	/* its table's */
	unsigned int nr_keys;
	double overhead;
	double avg_weight;	/* when row->weight_nr */
	unsigned int threads;	/* PEBS_REPORT_MAX_TIDS + 1: more */
	/* in a table by object, its object's stats and accesses; NULL:
	   no object columns */
	const struct pebs_object_stats *os;
	struct pebs_object_stats st;
	struct pebs_object_access oa;
};

static void row_vals(const struct rp_print *r, const struct pebs_report *rep,
		     const struct pebs_report_row *row, struct row_vals *v)
{
	unsigned int ev = r->o.by_event ? row->event : r->o.sole_event;

	v->nr_keys = pebs_report__keys(rep, &v->keys);
	v->overhead = pebs_report__overhead(rep, row, r->o.by_event);
	v->avg_weight = row->weight_nr ? (double)row->weight_sum /
					 (double)row->weight_nr : 0;
	v->threads = row->nr_tids > PEBS_REPORT_MAX_TIDS ?
		     PEBS_REPORT_MAX_TIDS + 1 : row->nr_tids;
	v->os = NULL;
	if (!r->o.objs || !rp_any_obj_key(v->keys, v->nr_keys))
		return;
	pebs_objects__stats(r->o.objs, ev, rp_obj_label(row), &v->st);
	pebs_objects__access(r->o.objs, ev, rp_obj_label(row), &v->oa);
	v->os = &v->st;
}

bool rp_any_table(const struct rp_print *r,
		  bool (*has)(const struct pebs_report *rep))
{
	unsigned int i;

	for (i = 0; i < r->o.nr_tables; i++)
		if (has(r->o.tables[i].rep))
			return true;
	return false;
}

const enum pebs_report_key rp_tail_keys[RP_NR_TAIL] = {
	PEBS_REPORT_SRCLINE, PEBS_REPORT_SRCFILE, PEBS_REPORT_TIME,
};

uint32_t rp_tail_cols(const struct rp_print *r)
{
	const enum pebs_report_key *keys;
	unsigned int i, n, k;
	uint32_t cols = 0;

	for (i = 0; i < r->o.nr_tables; i++) {
		n = pebs_report__keys(r->o.tables[i].rep, &keys);
		for (k = 0; k < RP_NR_TAIL; k++)
			cols |= has_key(keys, n, rp_tail_keys[k]) ? 1u << k : 0;
	}
	return cols;
}

bool rp_any_objects(const struct rp_print *r)
{
	const enum pebs_report_key *keys;
	unsigned int i, n;

	for (i = 0; r->o.objs && i < r->o.nr_tables; i++) {
		n = pebs_report__keys(r->o.tables[i].rep, &keys);
		if (rp_any_obj_key(keys, n))
			return true;
	}
	return false;
}

/* Call @fn for each row of @t that is shown, up to --top. */
static void each_row(const struct rp_print *r, const struct pebs_report_table *t,
		     void (*fn)(const struct rp_print *r, const struct pebs_report_table *t,
				const struct pebs_report *rep, size_t i,
				const struct pebs_report_row *row, bool first))
{
	const struct pebs_report *rep = t->rep;
	size_t i, n = 0, nr = pebs_report__nr_rows(rep);

	for (i = 0; i < nr && n < r->o.top; i++) {
		const struct pebs_report_row *row = pebs_report__row(rep, i);

		if (!rp_shown(r, rep, row))
			continue;
		fn(r, t, rep, i, row, n++ == 0);
	}
}

static void csv_row(const struct rp_print *r, const struct pebs_report_table *t,
		    const struct pebs_report *rep, size_t i,
		    const struct pebs_report_row *row, bool first)
{
	struct row_vals v;
	char fb[FIELD_MAX];
	FILE *f = r->f;
	unsigned int k;
	double se;

	(void)first;
	row_vals(r, rep, row, &v);
	pebs_csv__str(f, t->title);
	fprintf(f, ",%.4f,%" PRIu64 ",%" PRIu64 ",", v.overhead,
	       row->period, row->samples);
	if (row->weight_nr)
		fprintf(f, "%.1f", v.avg_weight);
	fprintf(f, ",%u,%u,%u,%u", row->loads, row->stores, row->hitm,
		v.threads);
	for (k = 0; k < sizeof(csv_keys) / sizeof(csv_keys[0]); k++) {
		fputc(',', f);
		if (!has_key(v.keys, v.nr_keys, csv_keys[k]))
			continue;
		rp_field(r, row, csv_keys[k], fb, sizeof(fb));
		pebs_csv__str(f, fb);
	}
	/* the object_field key, with the object columns */
	if (r->obj_cols)
		fputc(',', f);
	if (r->obj_cols &&
	    has_key(v.keys, v.nr_keys, PEBS_REPORT_OBJECT_FIELD)) {
		rp_field(r, row, PEBS_REPORT_OBJECT_FIELD, fb, sizeof(fb));
		pebs_csv__str(f, fb);
	}
	if (v.os && v.os->weights)
		fprintf(f, ",%" PRIu64 ",%" PRIu64, v.os->weight_p50,
			v.os->weight_p90);
	else if (v.os)
		fputs(",,", f);
	if (v.os && v.os->instances)
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, v.os->instances,
			v.os->bytes, v.os->peak_live);
	else if (v.os)
		fputs(",,,", f);
	else if (r->obj_cols)
		fputs(",,,,,", f);
	/* local, remote where samples had a data source; sharing */
	if (v.os && v.oa.with_src)
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%s", v.oa.local,
			v.oa.remote, pebs_object_sharing__name(v.oa.sharing));
	else if (v.os)
		fprintf(f, ",,,%s", pebs_object_sharing__name(v.oa.sharing));
	else if (r->obj_cols)
		fputs(",,,", f);
	/* node_local, node_remote where samples had a node (--phys-data) */
	if (v.os && (v.oa.node_local || v.oa.node_remote))
		fprintf(f, ",%" PRIu64 ",%" PRIu64, v.oa.node_local,
			v.oa.node_remote);
	else if (r->obj_cols)
		fputs(",,", f);
	if (pebs_report__children(rep))
		fprintf(f, ",%.4f,%" PRIu64, pebs_report__children_overhead(
				rep, row, r->o.by_event), row->children_period);
	else if (r->children_cols)
		fputs(",,", f);
	if (r->err_cols && (se = pebs_report__share_error(rep, i)) >= 0)
		fprintf(f, ",%.4f", se);
	else if (r->err_cols)
		fputc(',', f);
	for (k = 0; k < RP_NR_TAIL; k++) {
		if (!(r->tail_cols & 1u << k))
			continue;
		fputc(',', f);
		if (!has_key(v.keys, v.nr_keys, rp_tail_keys[k]))
			continue;
		rp_field(r, row, rp_tail_keys[k], fb, sizeof(fb));
		pebs_csv__str(f, fb);
	}
	fputc('\n', f);
}

static void json_row(const struct rp_print *r, const struct pebs_report_table *t,
		     const struct pebs_report *rep, size_t i,
		     const struct pebs_report_row *row, bool first)
{
	struct row_vals v;
	char fb[FIELD_MAX];
	FILE *f = r->f;
	unsigned int k;
	double se;

	(void)t;
	row_vals(r, rep, row, &v);
	fprintf(f, "%s\n        {\"overhead\": %.4f, \"period\": %" PRIu64
	       ", \"samples\": %" PRIu64, first ? "" : ",", v.overhead,
	       row->period, row->samples);
	if (pebs_report__children(rep))
		fprintf(f, ", \"children\": %.4f, \"children_period\": %"
			PRIu64, pebs_report__children_overhead(rep, row,
							      r->o.by_event),
			row->children_period);
	if ((se = pebs_report__share_error(rep, i)) >= 0)
		fprintf(f, ", \"share_error\": %.4f", se);
	if (row->weight_nr)
		fprintf(f, ", \"avg_weight\": %.1f", v.avg_weight);
	fprintf(f, ", \"loads\": %u, \"stores\": %u, \"hitm\": %u, "
	       "\"threads\": %u", row->loads, row->stores, row->hitm,
	       v.threads);
	for (k = 0; k < v.nr_keys; k++) {
		fprintf(f, ", \"%s\": ", pebs_report__key_name(v.keys[k]));
		rp_field(r, row, v.keys[k], fb, sizeof(fb));
		pebs_json__str(f, fb);
	}
	if (v.os && v.os->weights)
		fprintf(f, ", \"p50_weight\": %" PRIu64 ", \"p90_weight\": %"
			PRIu64, v.os->weight_p50, v.os->weight_p90);
	if (v.os && v.os->instances)
		fprintf(f, ", \"instances\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"peak_live\": %" PRIu64, v.os->instances,
			v.os->bytes, v.os->peak_live);
	if (v.os && v.oa.with_src)
		fprintf(f, ", \"local\": %" PRIu64 ", \"remote\": %" PRIu64,
			v.oa.local, v.oa.remote);
	if (v.os && (v.oa.node_local || v.oa.node_remote))
		fprintf(f, ", \"node_local\": %" PRIu64 ", \"node_remote\": %"
			PRIu64, v.oa.node_local, v.oa.node_remote);
	if (v.os)
		fprintf(f, ", \"sharing\": \"%s\"",
			pebs_object_sharing__name(v.oa.sharing));
	fputc('}', f);
}

void rp_print_csv(const struct rp_print *r)
{
	unsigned int i, k;
	FILE *f = r->f;

	fputs("table,overhead,period,samples,avg_weight,loads,stores,hitm,"
	      "threads", f);
	for (k = 0; k < sizeof(csv_keys) / sizeof(csv_keys[0]); k++)
		fprintf(f, ",%s", pebs_report__key_name(csv_keys[k]));
	if (r->obj_cols)
		fputs(",object_field,p50_weight,p90_weight,instances,bytes,"
		      "peak_live,local,remote,sharing,node_local,node_remote", f);
	if (r->children_cols)
		fputs(",children,children_period", f);
	if (r->err_cols)
		fputs(",share_error", f);
	for (k = 0; k < RP_NR_TAIL; k++)
		if (r->tail_cols & 1u << k)
			fprintf(f, ",%s", pebs_report__key_name(rp_tail_keys[k]));
	fputc('\n', f);
	for (i = 0; i < r->o.nr_tables; i++)
		each_row(r, &r->o.tables[i], csv_row);
}

void rp_print_json(const struct rp_print *r)
{
	const enum pebs_report_key *keys;
	unsigned int i, k, nr_keys;
	FILE *f = r->f;

	fprintf(f, "{\n  \"file\": ");
	pebs_json__str(f, r->o.path);
	fprintf(f, ",\n  \"samples\": %" PRIu64 ",\n  \"lost\": %" PRIu64
	       ",\n  \"tables\": [", r->o.samples,
	       r->o.stats->lost + r->o.stats->lost_samples);
	for (i = 0; i < r->o.nr_tables; i++) {
		const struct pebs_report_table *t = &r->o.tables[i];
		const struct pebs_report *rep = t->rep;

		fprintf(f, "%s\n    {\"title\": ", i ? "," : "");
		pebs_json__str(f, t->title);
		fprintf(f, ", \"keys\": [");
		nr_keys = pebs_report__keys(rep, &keys);
		for (k = 0; k < nr_keys; k++)
			fprintf(f, "%s\"%s\"", k ? ", " : "",
			       pebs_report__key_name(keys[k]));
		fprintf(f, "], \"rows\": [");
		each_row(r, t, json_row);
		fprintf(f, "\n      ]}");
	}
	fprintf(f, "\n  ]\n}\n");
}
