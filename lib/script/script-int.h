/* SPDX-License-Identifier: MIT */
/*
 * script-int.h - pebs_script's state, shared by lib/script/script.c (the
 * fields asked, per event) and lib/script/script-print.c (a sample
 * printed). Not installed.
 */
#ifndef PEBSSHIM_SCRIPT_INT_H
#define PEBSSHIM_SCRIPT_INT_H

#include "pebsshim/script.h"

enum sf {
	SF_COMM, SF_TID, SF_PID, SF_TIME, SF_CPU, SF_EVENT, SF_IP, SF_SYM,
	SF_SYMOFF, SF_DSO, SF_ADDR, SF_DATA_SRC, SF_WEIGHT, SF_INS_LAT,
	SF_PERIOD, SF_PHYS_ADDR, SF_CALLCHAIN, SF_ATTR_TID, SF_MEM_LEVEL,
	SF_DATA_OBJECT, SF_SRCLINE, SF_NR
};

/* a field: its name, the sample_type bits it needs (any of them) */
struct script_field {
	const char *name;
	uint64_t need;		/* sample_type bits (any of them) */
	const char *perf_name;	/* perf's name of the bit in its error */
};
extern const struct script_field script_fields[SF_NR];

/* the bit of field @x in a mask of fields */
#define SF(x)	(1u << (x))

struct pebs_script {
	struct pebs_perfdata *pd;
	enum pebs_script_format fmt;
	unsigned int nr_attrs;
	uint32_t *mask;		/* per attr: the fields printed (text) */
	uint64_t *stype;	/* per attr: sample_type */
	bool *page_fault;	/* per attr: addr correlates to a symbol */
	enum sf cols[SF_NR];	/* csv, jsonl: columns in order */
	unsigned int nr_cols;
	int name_width;		/* the longest event name */
	int src_width;		/* data_src's widest so far (perf's static) */
	int32_t *running;	/* per CPU: switched in last, or -1 */
	uint32_t nr_cpus;
	unsigned int max_stack;	/* frames of a chain printed */
	struct pebs_srcline *srcl;	/* the srcline field's, or NULL */
};

/* script_attr_tid - the thread switched in last on @s's CPU
   (pebs_script__record), -1 if none */
int32_t script_attr_tid(const struct pebs_script *sc,
			const struct pebs_sample *s);

#endif /* PEBSSHIM_SCRIPT_INT_H */
