// SPDX-License-Identifier: MIT
/*
 * script.c - one line per sample, as perf script -F prints it (perf 6.1,
 * tools/perf/builtin-script.c), or the same fields as csv or jsonl: the
 * fields asked (-F, perf's "+f" and "-f" changes of its defaults), per
 * event the fields printed (perf's defaults for its kind of event, less
 * those its samples lack; perf's refusal of an asked field they lack),
 * the csv header row, and attr_tid: the thread switched in last on the
 * sample's CPU by the PERF_RECORD_SWITCH_CPU_WIDE records (the module's
 * history that pebs-shim record writes, or the kernel's with
 * --switch-events), fed in time order through pebs_script__record. The
 * lines themselves: lib/script/script-print.c.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "script/script-int.h"

const struct script_field script_fields[SF_NR] = {
	[SF_COMM] = { "comm", 0, NULL },
	[SF_TID] = { "tid", PERF_SAMPLE_TID, "TID" },
	[SF_PID] = { "pid", PERF_SAMPLE_TID, "TID" },
	[SF_TIME] = { "time", PERF_SAMPLE_TIME, "TIME" },
	[SF_CPU] = { "cpu", PERF_SAMPLE_CPU, "CPU" },
	[SF_EVENT] = { "event", 0, NULL },
	[SF_IP] = { "ip", PERF_SAMPLE_IP, "IP" },
	[SF_SYM] = { "sym", 0, NULL },
	[SF_SYMOFF] = { "symoff", 0, NULL },
	[SF_DSO] = { "dso", 0, NULL },
	[SF_ADDR] = { "addr", PERF_SAMPLE_ADDR, "ADDR" },
	[SF_DATA_SRC] = { "data_src", PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
	[SF_WEIGHT] = { "weight", PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT" },
	[SF_INS_LAT] = { "ins_lat", PERF_SAMPLE_WEIGHT_STRUCT,
			 "WEIGHT_STRUCT" },
	/* without PERIOD, the attr's (perf: evsel__parse_sample) */
	[SF_PERIOD] = { "period", 0, NULL },
	[SF_PHYS_ADDR] = { "phys_addr", PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" },
	[SF_CALLCHAIN] = { "callchain", PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" },
	[SF_ATTR_TID] = { "attr_tid", 0, NULL },
	[SF_MEM_LEVEL] = { "mem_level", PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
	[SF_DATA_OBJECT] = { "data_object", PERF_SAMPLE_ADDR, "ADDR" },
	[SF_SRCLINE] = { "srcline", 0, NULL },
};

/* perf script's defaults (its output[] table): hardware, software and
   tracepoint events; every other PMU (raw, cpu, ibs_op) adds the
   memory fields; fields an event's samples lack are left out */
#define DEF_BASIC	(SF(SF_COMM) | SF(SF_TID) | SF(SF_CPU) | \
			 SF(SF_TIME) | SF(SF_EVENT) | SF(SF_IP) | \
			 SF(SF_SYM) | SF(SF_SYMOFF) | SF(SF_DSO) | \
			 SF(SF_PERIOD))
#define DEF_RAW		(DEF_BASIC | SF(SF_ADDR) | SF(SF_DATA_SRC) | \
			 SF(SF_WEIGHT) | SF(SF_PHYS_ADDR) | \
			 SF(SF_INS_LAT))
/* tracepoints: no period, and the ip only with a call chain (perf's
   perf_session__check_output_opt: "print symbols only if callchains
   are present") */
#define DEF_TP		(SF(SF_COMM) | SF(SF_TID) | SF(SF_CPU) | \
			 SF(SF_TIME) | SF(SF_EVENT))
#define DEF_TP_IP	(SF(SF_IP) | SF(SF_SYM) | SF(SF_SYMOFF) | SF(SF_DSO))
#define PEBS_COLS	(SF(SF_ATTR_TID) | SF(SF_MEM_LEVEL) | \
			 SF(SF_DATA_OBJECT))
/* csv and jsonl without -F */
static const char default_cols[] = "comm,pid,tid,time,cpu,event,ip,sym,dso,"
	"addr,data_src,weight,period,phys_addr,attr_tid,mem_level,"
	"data_object";

/* perf script's fields that pebs-shim script does not print */
static bool perf_only_field(const char *p, size_t len)
{
	static const char *const names[] = {
		"trace", "iregs", "uregs", "brstack", "brstacksym",
		"flags", "bpf-output", "callindent", "insn", "insnlen",
		"synth", "metric", "misc", "srccode", "ipc", "tod",
		"data_page_size", "code_page_size", "machine_pid", "vcpu",
		"cgroup", "retire_lat", "brstackinsn", "brstackinsnlen",
		"brstackoff", "dsoff", "brcntr",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(names[i], p, len))
			return true;
	return false;
}

/*
 * @list into @cols (in order) and @mask; perf's "+f" and "-f" tokens
 * (all signed, or none) into @add and @del instead, to change the
 * defaults.
 */
static int parse_fields(const char *list, enum sf *cols, unsigned int *nr,
			uint32_t *mask, uint32_t *add, uint32_t *del)
{
	const char *p = list;
	unsigned int i;
	size_t len;
	char sign;

	*nr = 0;
	*mask = *add = *del = 0;
	while (*p) {
		sign = *p == '+' || *p == '-' ? *p++ : 0;
		len = strcspn(p, ",");
		for (i = 0; i < SF_NR; i++)
			if (strlen(script_fields[i].name) == len &&
			    !strncmp(script_fields[i].name, p, len))
				break;
		if (i == SF_NR && perf_only_field(p, len))
			return core_err(-EINVAL, "-F: perf script's field "
					"'%.*s' is not printed by pebs-shim "
					"script (a tracepoint's payload, "
					"registers, branch stacks...): use "
					"perf script for it", (int)len, p);
		if (i == SF_NR)
			return core_err(-EINVAL, "-F: unknown field '%.*s':"
					" give comm, tid, pid, time, cpu, event,"
					" ip, sym, symoff, dso, addr, data_src, "
					"weight, ins_lat, period, phys_addr, "
					"callchain, srcline, attr_tid, "
					"mem_level, data_object", (int)len, p);
		if ((sign && *nr) || (!sign && (*add | *del)))
			return core_err(-EINVAL, "-F: '+field' and '-field' "
					"change the default fields, a list "
					"without signs replaces them: not both");
		if (sign == '+') {
			*add |= SF(i);
			*del &= ~SF(i);
		} else if (sign == '-') {
			*del |= SF(i);
			*add &= ~SF(i);
		} else if (!(*mask & SF(i))) {
			cols[(*nr)++] = (enum sf)i;
		}
		*mask |= sign ? 0 : SF(i);
		p += len + (p[len] == ',');
	}
	if (!*nr && !*add && !*del)
		return core_err(-EINVAL, "-F: no field given: e.g. "
				"-F comm,tid,time,addr");
	return 0;
}

/* perf's check (evsel__check_stype): an asked field the samples lack */
static int check_attr(struct pebs_script *sc, unsigned int idx,
		      uint32_t asked, uint32_t shown)
{
	const char *name = pebs_perfdata__attr_name(sc->pd, idx);
	unsigned int i;

	for (i = 0; i < SF_NR; i++) {
		if (!(asked & SF(i)) || !script_fields[i].need ||
		    (sc->stype[idx] & script_fields[i].need))
			continue;
		return core_err(-EINVAL, "Samples for '%s' event do not have "
				"%s attribute set. Cannot print '%s' field.",
				name ? name : "?", script_fields[i].perf_name,
				script_fields[i].name);
	}
	if ((shown & SF(SF_SYMOFF)) && !(shown & SF(SF_SYM)))
		return core_err(-EINVAL, "Display of offsets requested but "
				"symbol is notselected.");
	if ((asked & SF(SF_SRCLINE)) && !(shown & SF(SF_IP)))
		return core_err(-EINVAL, "Display of source line number "
				"requested but sample IP is not selected. "
				"Hence, no address to lookup the source line "
				"number.");
	if ((asked & (SF(SF_SYM) | SF(SF_DSO) | SF(SF_SYMOFF))) &&
	    !(shown & (SF(SF_IP) | SF(SF_ADDR))))
		return core_err(-EINVAL, "Display of symbols requested but "
				"neither sample IP nor sample address "
				"available.");
	return 0;
}

static bool is_page_fault(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

static int setup_attrs(struct pebs_script *sc, const char *list)
{
	uint32_t asked = 0, add, del, f, srcl = 0;
	unsigned int i, n;
	int err;

	for (i = 0; i < sc->nr_attrs; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(sc->pd, i, NULL, NULL);
		const char *name = pebs_perfdata__attr_name(sc->pd, i);
		int len = name ? (int)strlen(name) : 0;

		sc->stype[i] = a ? a->sample_type : 0;
		sc->page_fault[i] = a && is_page_fault(a);
		if (len > sc->name_width)
			sc->name_width = len;
	}
	err = parse_fields(list ? list : default_cols, sc->cols, &sc->nr_cols,
			   &asked, &add, &del);
	if (err)
		return err;
	if (add | del) {	/* the default columns, changed */
		err = parse_fields(default_cols, sc->cols, &sc->nr_cols,
				   &asked, &f, &f);
		for (f = 0; !err && f < SF_NR; f++)
			if ((add & SF(f)) && !(asked & SF(f)))
				sc->cols[sc->nr_cols++] = (enum sf)f;
		for (f = 0, n = 0; !err && f < sc->nr_cols; f++)
			if (!(del & SF(sc->cols[f])))
				sc->cols[n++] = sc->cols[f];
		sc->nr_cols = n;
		if (!n)
			return core_err(-EINVAL, "-F: no field left");
	}
	for (i = 0; i < sc->nr_attrs; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(sc->pd, i, NULL, NULL);
		uint32_t m = asked;

		if (!list || add || del) {
			/* perf's defaults, less what is missing */
			m = (a && a->type < PERF_TYPE_RAW) ? DEF_BASIC :
			    DEF_RAW;
			if (a && a->type == PERF_TYPE_TRACEPOINT)
				m = DEF_TP;
			if (sc->stype[i] & PERF_SAMPLE_CALLCHAIN)
				m |= SF(SF_CALLCHAIN) | (m == DEF_TP ?
							 DEF_TP_IP : 0);
			for (f = 0; f < SF_NR; f++)
				if (script_fields[f].need &&
				    !(sc->stype[i] & script_fields[f].need))
					m &= ~SF(f);
			m = (m | add) & ~del;
		}
		/* text: perf refuses a field asked that the samples lack */
		if (list && sc->fmt == PEBS_SCRIPT_TEXT &&
		    (err = check_attr(sc, i, (add | del ? add : asked) &
				      ~PEBS_COLS & ~SF(SF_CALLCHAIN), m)))
			return err;
		/* perf: ip shows the call chain the samples have */
		if (list && !(del & SF(SF_CALLCHAIN)) &&
		    (sc->stype[i] & PERF_SAMPLE_CALLCHAIN))
			m |= SF(SF_CALLCHAIN);
		/* perf on a pipe (its process_attr): call chains bring ip
		   and sym, unless "-ip" or "-sym" */
		if (list && pebs_perfdata__is_pipe(sc->pd) &&
		    (sc->stype[i] & PERF_SAMPLE_CALLCHAIN) &&
		    (sc->stype[i] & PERF_SAMPLE_IP))
			m |= (SF(SF_IP) | SF(SF_SYM)) & ~del;
		sc->mask[i] = m;
		srcl |= m & SF(SF_SRCLINE);
	}
	for (i = 0; i < sc->nr_cols; i++)
		srcl |= sc->cols[i] == SF_SRCLINE && sc->fmt != PEBS_SCRIPT_TEXT;
	return srcl ? pebs_srcline__new(&sc->srcl) : 0;
}

int pebs_script__new(struct pebs_perfdata *pd, const char *list,
		     enum pebs_script_format fmt, struct pebs_script **sp)
{
	struct pebs_script *sc;
	unsigned int n;
	int err;

	if (!pd || !sp || fmt > PEBS_SCRIPT_JSONL)
		return core_err(-EINVAL, "script: no file or bad format");
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return core_err(-ENOMEM, "script: out of memory");
	sc->pd = pd;
	sc->fmt = fmt;
	sc->max_stack = UINT_MAX;
	n = sc->nr_attrs = pebs_perfdata__nr_attrs(pd);
	sc->mask = calloc(n + 1, sizeof(*sc->mask));
	sc->stype = calloc(n + 1, sizeof(*sc->stype));
	sc->page_fault = calloc(n + 1, sizeof(*sc->page_fault));
	if (!sc->mask || !sc->stype || !sc->page_fault) {
		pebs_script__delete(sc);
		return core_err(-ENOMEM, "script: out of memory");
	}
	err = setup_attrs(sc, list);
	if (err) {
		pebs_script__delete(sc);
		return err;
	}
	*sp = sc;
	return 0;
}

int pebs_script__set_max_stack(struct pebs_script *sc, unsigned int max)
{
	if (!sc)
		return core_err(-EINVAL, "script: none");
	sc->max_stack = max;
	return 0;
}

void pebs_script__delete(struct pebs_script *sc)
{
	if (!sc)
		return;
	free(sc->mask);
	free(sc->stype);
	free(sc->page_fault);
	free(sc->running);
	pebs_srcline__delete(sc->srcl);
	free(sc);
}

int pebs_script__header(struct pebs_script *sc, FILE *f)
{
	unsigned int i;

	if (!sc || !f)
		return core_err(-EINVAL, "script: no script or file");
	if (sc->fmt != PEBS_SCRIPT_CSV)
		return 0;
	for (i = 0; i < sc->nr_cols; i++)
		fprintf(f, "%s%s", i ? "," : "",
			script_fields[sc->cols[i]].name);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

int pebs_script__record(struct pebs_script *sc,
			const struct perf_event_header *ev)
{
	struct pebs_sample s;
	int32_t *r;
	uint32_t n;

	if (!sc || !ev)
		return core_err(-EINVAL, "script: no record");
	/* the "in" half of a switch: sample_id is the task switched in */
	if (ev->type != PERF_RECORD_SWITCH_CPU_WIDE ||
	    (ev->misc & PERF_RECORD_MISC_SWITCH_OUT) ||
	    pebs_perfdata__sample_id(sc->pd, ev, &s, NULL) ||
	    (s.present & (PERF_SAMPLE_CPU | PERF_SAMPLE_TID)) !=
	    (PERF_SAMPLE_CPU | PERF_SAMPLE_TID) || s.cpu >= 65536)
		return 0;
	if (s.cpu >= sc->nr_cpus) {
		n = s.cpu + 1;
		r = realloc(sc->running, n * sizeof(*r));
		if (!r)
			return core_err(-ENOMEM, "script: out of memory");
		memset(r + sc->nr_cpus, 0xff, (n - sc->nr_cpus) * sizeof(*r));
		sc->running = r;
		sc->nr_cpus = n;
	}
	sc->running[s.cpu] = (int32_t)s.tid;
	return 0;
}

int32_t script_attr_tid(const struct pebs_script *sc,
			const struct pebs_sample *s)
{
	if (!(s->present & PERF_SAMPLE_CPU) || s->cpu >= sc->nr_cpus)
		return -1;
	return sc->running[s->cpu];
}
