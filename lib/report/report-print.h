/* SPDX-License-Identifier: MIT */
/*
 * report-print.h - the printing state of pebs_report_tables__print,
 * shared by its text (report-print.c) and its csv and json
 * (report-format.c).
 */
#ifndef PEBSSHIM_REPORT_PRINT_H
#define PEBSSHIM_REPORT_PRINT_H

#include <stdio.h>

#include "core/internal.h"
#include "pebsshim/report.h"

struct rp_print {
	FILE *f;
	struct pebs_report_print_opts o;	/* top: 0 made UINT_MAX */
	unsigned int nr_attrs;			/* the file's events */
};

/* rp_field - a row's field into @buf; events by their name in the file */
void rp_field(const struct rp_print *r, const struct pebs_report_row *row,
	      enum pebs_report_key k, char *buf, size_t len);

/* report-format.c: PEBS_REPORT_FORMAT_CSV and _JSON */
void rp_print_csv(const struct rp_print *r);
void rp_print_json(const struct rp_print *r);

#endif /* PEBSSHIM_REPORT_PRINT_H */
