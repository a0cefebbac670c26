/* SPDX-License-Identifier: MIT */
/*
 * c2c.h - `pebs-shim c2c report`: the command's state, shared by its
 * option parsing (cmd-c2c.c) and its printers (c2c-stdio.c: perf c2c
 * report --stdio's tables; c2c-json.c: --format csv and json).
 */
#ifndef PEBS_SHIM_C2C_H
#define PEBS_SHIM_C2C_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pebsshim.h"

enum c2c_fmt { FMT_STDIO, FMT_CSV, FMT_JSON };

struct c2c_cmd {
	const char *path;
	enum c2c_fmt fmt;
	enum pebs_c2c_display display;
	bool display_set;
	bool show_all;			/* every line, not only shown ones */
	bool detail;			/* csv: the detail table */
	bool failed;			/* printing ran out of memory */
	struct pebs_perfdata *pd;
	struct pebs_symbols *code;	/* code mappings: symbols */
	struct pebs_srcline *src;	/* source lines, or NULL */
	struct pebs_c2c *c2c;
	uint64_t bad;			/* samples that did not decode */
	/* a recording of record --objects: each line's data object */
	struct pebs_session *ss;	/* (its labels' strings) */
	struct pebs_objects *objs;
	bool first;			/* JSON: no comma before the next */
};

/* one line's walk: the line and offset being printed */
struct c2c_walk {
	struct c2c_cmd *m;
	const struct pebs_c2c_line *line;
	const struct pebs_c2c_offset *off;
	bool more;		/* JSON: an offset was printed */
};

extern const char *const c2c_display_name[];

/* "[.] sym+0x12" (or "[.] 0x..." without a symbol) and the object */
void c2c_code_str(struct c2c_cmd *m, uint32_t pid, uint64_t ip, char *sym,
		  size_t len, const char **dso);
/* "file.c:12" of a code address, or "" without debug info */
const char *c2c_src_str(struct c2c_cmd *m, uint32_t pid, uint64_t ip);
/* perf's node list: "0", "0-2,5", or "N/A" */
const char *c2c_nodes_str(uint64_t mask, char *buf, size_t len);
/* "maj:min:ino:gen" (perf script's "%02x:%02x" maj:min), "0" for none */
const char *c2c_dso_str(const struct pebs_c2c_dkey *k, char *buf, size_t len);
double c2c_pct(uint64_t a, uint64_t b);
double c2c_mean(uint64_t sum, uint64_t n);

void c2c_print_stdio(struct c2c_cmd *m);
void c2c_print_csv(struct c2c_cmd *m);
void c2c_print_json(struct c2c_cmd *m);

#endif /* PEBS_SHIM_C2C_H */
