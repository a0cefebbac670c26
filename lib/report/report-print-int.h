/* SPDX-License-Identifier: MIT */
/*
 * report-print-int.h - pebs_report_tables__print's state and helpers,
 * shared by its text printer (report-print.c) and its CSV and JSON
 * printers (report-csv.c).
 */
#ifndef PEBSSHIM_REPORT_PRINT_INT_H
#define PEBSSHIM_REPORT_PRINT_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "pebsshim/report.h"

struct rp_print {
	FILE *f;
	struct pebs_report_print_opts o;	/* top: 0 made UINT_MAX */
	unsigned int nr_attrs;			/* the file's events */
	bool obj_cols;		/* csv: a table has an object key */
	bool children_cols;	/* csv: a table has children */
	bool err_cols;		/* csv: a table has sampling errors */
	uint32_t tail_cols;	/* csv: the keys of rp_tail_keys (bit n:
				   the nth) some table has */
};

/* csv's last key columns, each there when some table has its key */
#define RP_NR_TAIL	3
extern const enum pebs_report_key rp_tail_keys[RP_NR_TAIL];
uint32_t rp_tail_cols(const struct rp_print *r);

/* whether @row is shown: not below --percent-limit (Overhead, or
   Children in a report with children) */
bool rp_shown(const struct rp_print *r, const struct pebs_report *rep,
	      const struct pebs_report_row *row);
/* whether a table of the report has what @has says (csv: the columns
   of children, pebs_report__children; of errors, pebs_report__errors) */
bool rp_any_table(const struct rp_print *r,
		  bool (*has)(const struct pebs_report *rep));
/* A row's field; events by their name in the file. */
void rp_field(const struct rp_print *r, const struct pebs_report_row *row,
	      enum pebs_report_key k, char *buf, size_t len);
/* whether @keys has an object key (a table with one has the object
   columns) */
bool rp_any_obj_key(const enum pebs_report_key *keys, unsigned int n);
/* what a row's object columns describe: its object, else its field */
const char *rp_obj_label(const struct pebs_report_row *row);

/* report-csv.c: whether a table of the report has an object key; the
   CSV and JSON printers */
bool rp_any_objects(const struct rp_print *r);
void rp_print_csv(const struct rp_print *r);
void rp_print_json(const struct rp_print *r);

#endif /* PEBSSHIM_REPORT_PRINT_INT_H */
