/* SPDX-License-Identifier: MIT */
/*
 * c2c-print.h - the printing state of pebs_c2c__print, shared by its
 * text tables (c2c-print.c) and its csv and json (c2c-csv.c).
 */
#ifndef PEBSSHIM_C2C_PRINT_H
#define PEBSSHIM_C2C_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "c2c/c2c-int.h"

struct c2c_pr {
	struct pebs_c2c *c2c;
	FILE *f;
	struct pebs_c2c_print_opts o;
	bool failed;			/* printing ran out of memory */
	bool first;			/* JSON: no comma before the next */
	char srcbuf[4096 + 16];		/* c2c_src_str's */
};

/* one line's walk: the line and offset being printed */
struct c2c_walk {
	struct c2c_pr *m;
	const struct pebs_c2c_line *line;
	const struct pebs_c2c_offset *off;
	bool more;		/* JSON: an offset was printed */
};

extern const char *const c2c_display_name[];

/* "[.] sym+0x12" (or "[.] 0x..." without a symbol) and the object */
void c2c_code_str(struct c2c_pr *m, uint32_t pid, uint64_t ip, char *sym,
		  size_t len, const char **dso);
/* "file.c:12" of a code address, or "" without debug info */
const char *c2c_src_str(struct c2c_pr *m, uint32_t pid, uint64_t ip);
/* perf's node list: "0", "0-2,5", or "N/A" */
const char *c2c_nodes_str(uint64_t mask, char *buf, size_t len);
/* "maj:min:ino:gen" (perf script's "%02x:%02x" maj:min), "0" for none */
const char *c2c_dso_str(const struct pebs_c2c_dkey *k, char *buf, size_t len);
double c2c_pct(uint64_t a, uint64_t b);
double c2c_mean(uint64_t sum, uint64_t n);

/* c2c-csv.c: PEBS_C2C_FORMAT_CSV, _CSV_DETAIL and _JSON */
void c2c_print_csv(struct c2c_pr *m);
void c2c_print_json(struct c2c_pr *m);

#endif /* PEBSSHIM_C2C_PRINT_H */
