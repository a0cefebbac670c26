// SPDX-License-Identifier: MIT
/*
 * script.c - one line per sample, as perf script -F prints it (perf 6.1,
 * tools/perf/builtin-script.c: perf_sample__fprintf_start, process_event,
 * perf_sample__fprintf_addr, data_src__fprintf, sample__fprintf_sym), plus
 * pebs-shim's columns (attr_tid, mem_level, data_object), or the same
 * fields as csv (a header row) or jsonl (one object per line).
 *
 * Text is perf's: its fixed order whatever the -F order, its widths
 * (comm %16s, or unpadded when call chains follow; pid/tid %5d/%-5d;
 * [%03d] CPU; time in seconds with microseconds; period %10; the event
 * name padded to the longest event name; addr, ip, phys_addr %16x;
 * weight and ins_lat %16u; data_src as its hex then decoded, padded to
 * the longest printed so far), a call chain one frame per line after
 * the sample's line and an empty line, as perf. For a page fault
 * (perf's sample_addr_correlates_sym) the data address is followed by
 * its symbol and file when sym or dso are asked. pebs-shim's columns
 * follow as " name=value".
 *
 * csv and jsonl: the fields in the order asked, one column each;
 * addresses in hex ("0x..."), time in seconds with nanoseconds; a value
 * the sample does not carry is empty (csv) or null (jsonl).
 *
 * attr_tid: the thread switched in last on the sample's CPU by the
 * PERF_RECORD_SWITCH_CPU_WIDE records (the module's history that pebs-shim
 * record writes, or the kernel's with --switch-events), fed in time order
 * through pebs_script__record; empty without switch records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/script.h"
#include "core/internal.h"
#include "symbols/dso.h"


enum sf {
	SF_COMM, SF_TID, SF_PID, SF_TIME, SF_CPU, SF_EVENT, SF_IP, SF_SYM,
	SF_SYMOFF, SF_DSO, SF_ADDR, SF_DATA_SRC, SF_WEIGHT, SF_INS_LAT,
	SF_PERIOD, SF_PHYS_ADDR, SF_CALLCHAIN, SF_ATTR_TID, SF_MEM_LEVEL,
	SF_DATA_OBJECT, SF_NR
};

static const struct {
	const char *name;
	uint64_t need;		/* sample_type bits (any of them) */
	const char *perf_name;	/* perf's name of the bit in its error */
} fields[SF_NR] = {
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
};

#define F(x)		(1u << (x))
/* perf script's defaults (its output[] table): hardware, software and
   tracepoint events; every other PMU (raw, cpu, ibs_op) adds the
   memory fields; fields an event's samples lack are left out */
#define DEF_BASIC	(F(SF_COMM) | F(SF_TID) | F(SF_CPU) | F(SF_TIME) | \
			 F(SF_EVENT) | F(SF_IP) | F(SF_SYM) | F(SF_SYMOFF) | \
			 F(SF_DSO) | F(SF_PERIOD))
#define DEF_RAW		(DEF_BASIC | F(SF_ADDR) | F(SF_DATA_SRC) | \
			 F(SF_WEIGHT) | F(SF_PHYS_ADDR) | F(SF_INS_LAT))
#define PEBS_COLS	(F(SF_ATTR_TID) | F(SF_MEM_LEVEL) | F(SF_DATA_OBJECT))
/* csv and jsonl without -F */
static const char default_cols[] = "comm,pid,tid,time,cpu,event,ip,sym,dso,"
	"addr,data_src,weight,period,phys_addr,attr_tid,mem_level,"
	"data_object";

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
};

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
			if (strlen(fields[i].name) == len &&
			    !strncmp(fields[i].name, p, len))
				break;
		if (i == SF_NR)
			return core_err(-EINVAL, "-F: unknown field '%.*s':"
					" give comm, tid, pid, time, cpu, event,"
					" ip, sym, symoff, dso, addr, data_src, "
					"weight, ins_lat, period, phys_addr, "
					"callchain, attr_tid, mem_level, "
					"data_object", (int)len, p);
		if ((sign && *nr) || (!sign && (*add | *del)))
			return core_err(-EINVAL, "-F: '+field' and '-field' "
					"change the default fields, a list "
					"without signs replaces them: not both");
		if (sign == '+') {
			*add |= F(i);
			*del &= ~F(i);
		} else if (sign == '-') {
			*del |= F(i);
			*add &= ~F(i);
		} else if (!(*mask & F(i))) {
			cols[(*nr)++] = (enum sf)i;
		}
		*mask |= sign ? 0 : F(i);
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
		if (!(asked & F(i)) || !fields[i].need ||
		    (sc->stype[idx] & fields[i].need))
			continue;
		return core_err(-EINVAL, "Samples for '%s' event do not have "
				"%s attribute set. Cannot print '%s' field.",
				name ? name : "?", fields[i].perf_name,
				fields[i].name);
	}
	if ((shown & F(SF_SYMOFF)) && !(shown & F(SF_SYM)))
		return core_err(-EINVAL, "Display of offsets requested but "
				"symbol is notselected.");
	if ((asked & (F(SF_SYM) | F(SF_DSO) | F(SF_SYMOFF))) &&
	    !(shown & (F(SF_IP) | F(SF_ADDR))))
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
	uint32_t asked = 0, add, del, f;
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
			if ((add & F(f)) && !(asked & F(f)))
				sc->cols[sc->nr_cols++] = (enum sf)f;
		for (f = 0, n = 0; !err && f < sc->nr_cols; f++)
			if (!(del & F(sc->cols[f])))
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
			if (sc->stype[i] & PERF_SAMPLE_CALLCHAIN)
				m |= F(SF_CALLCHAIN);
			for (f = 0; f < SF_NR; f++)
				if (fields[f].need &&
				    !(sc->stype[i] & fields[f].need))
					m &= ~F(f);
			m = (m | add) & ~del;
		}
		/* text: perf refuses a field asked that the samples lack */
		if (list && sc->fmt == PEBS_SCRIPT_TEXT &&
		    (err = check_attr(sc, i, (add | del ? add : asked) &
				      ~PEBS_COLS & ~F(SF_CALLCHAIN), m)))
			return err;
		/* perf: ip shows the call chain the samples have */
		if (list && !(del & F(SF_CALLCHAIN)) &&
		    (sc->stype[i] & PERF_SAMPLE_CALLCHAIN))
			m |= F(SF_CALLCHAIN);
		sc->mask[i] = m;
	}
	return 0;
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

void pebs_script__delete(struct pebs_script *sc)
{
	if (!sc)
		return;
	free(sc->mask);
	free(sc->stype);
	free(sc->page_fault);
	free(sc->running);
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
		fprintf(f, "%s%s", i ? "," : "", fields[sc->cols[i]].name);
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

/* ---- values ---- */

/* The code symbol and file of @ip (perf: "[unknown]" for either). */
static void code_at(struct pebs_symbols *syms, pid_t pid, uint64_t ip,
		    struct pebs_sym *sym)
{
	memset(sym, 0, sizeof(*sym));
	if (pebs_symbols__resolve(syms, pid, ip, sym) && sym->name)
		sym->name = NULL;
}

/* The data object of @addr: its mapping, and a data symbol if one
   covers it */
static void data_at(struct pebs_symbols *syms, pid_t pid, uint64_t addr,
		    struct pebs_sym *sym)
{
	memset(sym, 0, sizeof(*sym));
	if (pebs_symbols__resolve_data(syms, pid, addr, sym) && sym->name)
		sym->name = NULL;
}

/* perf script names a file by its long name: a JIT map's is its
   /tmp/perf-PID.map (report shows the short "[JIT] tid PID") */
static void print_dso(FILE *f, const char *dso)
{
	char map[64];

	if (dso && dso_jit_map(dso, map, sizeof(map)))
		dso = map;
	fprintf(f, " (%s)", dso ? dso : "[unknown]");
}

/* symbol__fprintf_symname(_offs) and map__fprintf_dsoname, as perf */

static void print_sym(FILE *f, const struct pebs_sym *sym, uint32_t m,
		      bool ip, uint64_t addr)
{
	if (ip)
		fprintf(f, "%16" PRIx64, addr);
	if (m & F(SF_SYM)) {
		fprintf(f, " %s", sym->name ? sym->name : "[unknown]");
		if (sym->name && (m & F(SF_SYMOFF)))
			fprintf(f, "+0x%" PRIx64, sym->offset);
	}
	if (m & F(SF_DSO))
		print_dso(f, sym->dso);
}

static int32_t attributed(const struct pebs_script *sc,
			  const struct pebs_sample *s)
{
	if (!(s->present & PERF_SAMPLE_CPU) || s->cpu >= sc->nr_cpus)
		return -1;
	return sc->running[s->cpu];
}

static void mem_level(const struct pebs_sample *s, char *buf, size_t len)
{
	struct pebs_data_src d;

	pebs_data_src__decode(s->data_src, &d);
	snprintf(buf, len, "%s", d.lvl);
}

/* the data object the session named (record --objects' objects: a heap
   object's site, a thread's stack), else the mapping and data symbol */
static void data_object(struct pebs_symbols *syms,
			const struct pebs_sample *s,
			const struct pebs_report_sample *rs, char *buf,
			size_t len)
{
	buf[0] = 0;
	if (rs->object)
		snprintf(buf, len, "%s", rs->object);
	else if (s->addr && pebs_symbols__data_label(syms, (pid_t)s->pid,
						     s->addr, buf, len) < 0)
		buf[0] = 0;
}

/* ---- text ---- */

static void text_callchain(struct pebs_symbols *syms,
			   const struct pebs_sample *s, uint32_t m, FILE *f)
{
	struct pebs_sym sym;
	uint64_t ip;
	size_t i;

	for (i = 0; i < s->callchain_nr; i++) {
		memcpy(&ip, &s->callchain[i], sizeof(ip));
		if (ip >= PERF_CONTEXT_MAX)
			continue;	/* a context marker */
		code_at(syms, (pid_t)s->pid, ip, &sym);
		/* perf finds a frame's mapping among the data ones too */
		if (!sym.dso && ip < KERNEL_START)
			data_at(syms, (pid_t)s->pid, ip, &sym);
		fputc('\t', f);
		/* and shows a frame's address in its mapping (perf's
		   map__map_ip): the offset in a file, the vdso or a memfd,
		   the address itself in anonymous memory and JIT code */
		print_sym(f, &sym, m, true, sym.dso && ip < KERNEL_START &&
			  !dso_anon_name(sym.dso) ? sym.dso_offset : ip);
		fputc('\n', f);
	}
}

static void text_pebs_cols(struct pebs_script *sc, struct pebs_symbols *syms,
			   const struct pebs_sample *s,
			   const struct pebs_report_sample *rs, uint32_t m,
			   FILE *f)
{
	char buf[512];
	int32_t tid;

	if (m & F(SF_ATTR_TID)) {
		tid = attributed(sc, s);
		if (tid >= 0)
			fprintf(f, " attr_tid=%d", tid);
		else
			fputs(" attr_tid=-", f);
	}
	if (m & F(SF_MEM_LEVEL)) {
		if (s->present & PERF_SAMPLE_DATA_SRC)
			mem_level(s, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "-");
		fprintf(f, " mem_level=%s", buf);
	}
	if (m & F(SF_DATA_OBJECT)) {
		data_object(syms, s, rs, buf, sizeof(buf));
		fprintf(f, " data_object=%s", buf[0] ? buf : "-");
	}
}

static void text_sample(struct pebs_script *sc, struct pebs_symbols *syms,
			const struct pebs_sample *s,
			const struct pebs_report_sample *rs, FILE *f)
{
	uint32_t m = sc->mask[rs->event];
	const char *name = pebs_perfdata__attr_name(sc->pd, rs->event);
	bool chain = (m & F(SF_IP)) && (m & F(SF_CALLCHAIN)) &&
		     (s->present & PERF_SAMPLE_CALLCHAIN) && s->callchain_nr;
	char comm[32], buf[192], dec[160];
	struct pebs_sym sym;
	int len;

	if (m & F(SF_COMM)) {
		if (rs->comm)
			snprintf(comm, sizeof(comm), "%s", rs->comm);
		else
			snprintf(comm, sizeof(comm), ":%d", (int)s->tid);
		fprintf(f, chain ? "%s " : "%16s ", comm);
	}
	if ((m & F(SF_PID)) && (m & F(SF_TID)))
		fprintf(f, "%5d/%-5d ", (int)s->pid, (int)s->tid);
	else if (m & F(SF_PID))
		fprintf(f, "%5d ", (int)s->pid);
	else if (m & F(SF_TID))
		fprintf(f, "%5d ", (int)s->tid);
	if (m & F(SF_CPU))
		fprintf(f, "[%03d] ", (int)s->cpu);
	if (m & F(SF_TIME)) {
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64,
			 s->time / 1000000000, s->time % 1000000000 / 1000);
		fprintf(f, "%12s: ", buf);
	}
	if (m & F(SF_PERIOD))
		fprintf(f, "%10" PRIu64 " ", rs->period);
	if (m & F(SF_EVENT))
		fprintf(f, "%*s: ", sc->name_width, name ? name : "[unknown]");
	if (m & F(SF_ADDR)) {
		fprintf(f, "%16" PRIx64, s->addr);
		if (sc->page_fault[rs->event]) {
			data_at(syms, (pid_t)s->pid, s->addr, &sym);
			print_sym(f, &sym, m & (F(SF_SYM) | F(SF_SYMOFF) |
						F(SF_DSO)), false, 0);
		}
	}
	if (m & F(SF_DATA_SRC)) {
		pebs_data_src__str(s->data_src, dec, sizeof(dec));
		len = snprintf(buf, 100, "%16" PRIx64 " %s", s->data_src, dec);
		if (len > 99)
			len = 99;	/* perf's scnprintf into 100 bytes */
		if (len > sc->src_width)
			sc->src_width = len;
		fprintf(f, "%-*s", sc->src_width, buf);
	}
	if (m & F(SF_WEIGHT))
		fprintf(f, "%16" PRIu64, s->weight);
	if (m & F(SF_INS_LAT))
		fprintf(f, "%16" PRIu16, s->weight2);
	if (m & F(SF_IP)) {
		fputc(chain ? '\n' : ' ', f);
		if (chain) {
			text_callchain(syms, s, m, f);
		} else {
			code_at(syms, (pid_t)s->pid, s->ip, &sym);
			print_sym(f, &sym, m, true, s->ip);
		}
	}
	if (m & F(SF_PHYS_ADDR))
		fprintf(f, "%16" PRIx64, s->phys_addr);
	text_pebs_cols(sc, syms, s, rs, m, f);
	fputc('\n', f);
}

/* ---- csv, jsonl ---- */

static void put_str(const struct pebs_script *sc, const char *v, FILE *f)
{
	if (!v) {
		if (sc->fmt == PEBS_SCRIPT_JSONL)
			fputs("null", f);
		return;
	}
	if (sc->fmt == PEBS_SCRIPT_CSV)
		pebs_csv__str(f, v);
	else
		pebs_json__str(f, v);
}

static void put_num(const struct pebs_script *sc, bool have, uint64_t v,
		    FILE *f)
{
	if (have)
		fprintf(f, "%" PRIu64, v);
	else if (sc->fmt == PEBS_SCRIPT_JSONL)
		fputs("null", f);
}

/* "0x..." addresses are strings in json (they do not fit a double) */
static void put_hex(const struct pebs_script *sc, bool have, uint64_t v,
		    FILE *f)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	put_str(sc, have ? buf : NULL, f);
}

static void put_chain(const struct pebs_script *sc, struct pebs_symbols *syms,
		      const struct pebs_sample *s, FILE *f)
{
	bool json = sc->fmt == PEBS_SCRIPT_JSONL, first = true;
	char frame[320], *p = NULL;
	struct pebs_sym sym;
	size_t size = 0;
	FILE *m;
	uint64_t ip;
	size_t i;

	if (!(s->present & PERF_SAMPLE_CALLCHAIN)) {
		put_str(sc, NULL, f);
		return;
	}
	/* csv: "sym;sym;..." leaf first; jsonl: an array of the same */
	m = json ? f : open_memstream(&p, &size);
	if (!m)
		return;
	if (json)
		fputc('[', f);
	for (i = 0; i < s->callchain_nr; i++) {
		memcpy(&ip, &s->callchain[i], sizeof(ip));
		if (ip >= PERF_CONTEXT_MAX)
			continue;
		code_at(syms, (pid_t)s->pid, ip, &sym);
		if (sym.name)
			snprintf(frame, sizeof(frame), "%s", sym.name);
		else
			snprintf(frame, sizeof(frame), "0x%" PRIx64, ip);
		if (!first)
			fputc(json ? ',' : ';', m);
		first = false;
		if (json)
			put_str(sc, frame, m);
		else
			fputs(frame, m);
	}
	if (json) {
		fputc(']', f);
		return;
	}
	fclose(m);
	put_str(sc, p ? p : "", f);
	free(p);
}

static void put_col(struct pebs_script *sc, struct pebs_symbols *syms,
		    enum sf c, const struct pebs_sample *s,
		    const struct pebs_report_sample *rs, FILE *f)
{
	uint64_t st = sc->stype[rs->event];
	const char *name;
	struct pebs_sym sym;
	char buf[512];
	int32_t tid;

	switch (c) {
	case SF_COMM:
		if (!rs->comm)
			snprintf(buf, sizeof(buf), ":%d", (int)s->tid);
		put_str(sc, rs->comm ? rs->comm : buf, f);
		break;
	case SF_TID:
		put_num(sc, st & PERF_SAMPLE_TID, s->tid, f);
		break;
	case SF_PID:
		put_num(sc, st & PERF_SAMPLE_TID, s->pid, f);
		break;
	case SF_TIME:
		if (st & PERF_SAMPLE_TIME)
			fprintf(f, "%" PRIu64 ".%09" PRIu64,
				s->time / 1000000000, s->time % 1000000000);
		else
			put_str(sc, NULL, f);
		break;
	case SF_CPU:
		put_num(sc, st & PERF_SAMPLE_CPU, s->cpu, f);
		break;
	case SF_EVENT:
		name = pebs_perfdata__attr_name(sc->pd, rs->event);
		put_str(sc, name ? name : "[unknown]", f);
		break;
	case SF_IP:
		put_hex(sc, st & PERF_SAMPLE_IP, s->ip, f);
		break;
	case SF_SYM:
	case SF_SYMOFF:
	case SF_DSO:
		code_at(syms, (pid_t)s->pid, s->ip, &sym);
		if (c == SF_DSO)
			put_str(sc, (st & PERF_SAMPLE_IP) ? sym.dso : NULL, f);
		else if (c == SF_SYM || !sym.name)
			put_str(sc, (st & PERF_SAMPLE_IP) ? sym.name : NULL, f);
		else
			put_num(sc, true, sym.offset, f);
		break;
	case SF_ADDR:
		put_hex(sc, st & PERF_SAMPLE_ADDR, s->addr, f);
		break;
	case SF_DATA_SRC:
		put_hex(sc, st & PERF_SAMPLE_DATA_SRC, s->data_src, f);
		break;
	case SF_WEIGHT:
		put_num(sc, st & fields[c].need, s->weight, f);
		break;
	case SF_INS_LAT:
		put_num(sc, st & fields[c].need, s->weight2, f);
		break;
	case SF_PERIOD:
		/* as perf report: the attr's period when not sampled */
		put_num(sc, true, rs->period, f);
		break;
	case SF_PHYS_ADDR:
		put_hex(sc, st & PERF_SAMPLE_PHYS_ADDR, s->phys_addr, f);
		break;
	case SF_CALLCHAIN:
		put_chain(sc, syms, s, f);
		break;
	case SF_ATTR_TID:
		tid = attributed(sc, s);
		put_num(sc, tid >= 0, (uint64_t)tid, f);
		break;
	case SF_MEM_LEVEL:
		if (st & PERF_SAMPLE_DATA_SRC)
			mem_level(s, buf, sizeof(buf));
		put_str(sc, (st & PERF_SAMPLE_DATA_SRC) ? buf : NULL, f);
		break;
	default:	/* SF_DATA_OBJECT */
		data_object(syms, s, rs, buf, sizeof(buf));
		put_str(sc, buf[0] ? buf : NULL, f);
		break;
	}
}

int pebs_script__sample(struct pebs_script *sc, struct pebs_symbols *syms,
			const struct pebs_sample *s,
			const struct pebs_report_sample *rs, FILE *f)
{
	unsigned int i;

	if (!sc || !syms || !s || !rs || !f || rs->event >= sc->nr_attrs)
		return core_err(-EINVAL, "script: no sample or bad event");
	if (sc->fmt == PEBS_SCRIPT_TEXT) {
		text_sample(sc, syms, s, rs, f);
	} else {
		if (sc->fmt == PEBS_SCRIPT_JSONL)
			fputc('{', f);
		for (i = 0; i < sc->nr_cols; i++) {
			if (sc->fmt == PEBS_SCRIPT_JSONL)
				fprintf(f, "%s\"%s\":", i ? "," : "",
					fields[sc->cols[i]].name);
			else if (i)
				fputc(',', f);
			put_col(sc, syms, sc->cols[i], s, rs, f);
		}
		fputs(sc->fmt == PEBS_SCRIPT_JSONL ? "}\n" : "\n", f);
	}
	return ferror(f) ? core_err(-EIO, "script: write error") : 0;
}
