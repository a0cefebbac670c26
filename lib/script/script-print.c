// SPDX-License-Identifier: MIT
/*
 * script-print.c - a sample printed (pebs_script__sample): one line per
 * sample, as perf script -F prints it (perf 6.1,
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
 * attr_tid: the thread switched in last on the sample's CPU
 * (script_attr_tid, lib/script/script.c); empty without switch records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "symbols/dso.h"
#include "script/script-int.h"

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
	if (m & SF(SF_SYM)) {
		fprintf(f, " %s", sym->name ? sym->name : "[unknown]");
		if (sym->name && (m & SF(SF_SYMOFF)))
			fprintf(f, "+0x%" PRIx64, sym->offset);
	}
	if (m & SF(SF_DSO))
		print_dso(f, sym->dso);
}

/*
 * perf script's srcline of code @sym (map__fprintf_srcline: perf's text
 * without the symbol, "DSO[ADDR]" where addr2line finds nothing) into
 * @buf; false where perf prints none: no mapping, or its
 * SRCLINE_UNKNOWN "??:0".
 */
static bool srcline_of(const struct pebs_script *sc,
		       const struct pebs_sym *sym, uint64_t ip, char *buf,
		       size_t len)
{
	struct pebs_sym s = *sym;

	s.name = NULL;
	return sym->dso && pebs_srcline__perf_str(sc->srcl, &s, ip,
						  ip >= KERNEL_START, buf,
						  len) >= 0 &&
	       strncmp(buf, "??:0", 4);
}

static void print_srcline(const struct pebs_script *sc,
			  const struct pebs_sym *sym, uint64_t ip, FILE *f)
{
	char buf[4200];

	if (srcline_of(sc, sym, ip, buf, sizeof(buf)))
		fprintf(f, "\n  %s", buf);
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

/*
 * perf script --max-stack: whether chain entry @ip of a sample of event
 * @ev is a frame to print (not a context marker, and fewer than the
 * limit printed: *@n counts them; of a --call-graph dwarf sample the
 * unwound user frames count afresh, perf's unwinder having its own
 * limit); its mode and lookup as pebs_callchain__step's.
 */
static bool frame_shown(const struct pebs_script *sc, unsigned int ev,
			uint64_t ip, int *mode, bool *lookup, unsigned int *n)
{
	if (pebs_callchain__step(ip, mode, lookup) <= 0) {
		if (ip == PERF_CONTEXT_USER && ev < sc->nr_attrs &&
		    (sc->stype[ev] & PEBS_SAMPLE_DWARF) == PEBS_SAMPLE_DWARF)
			*n = 0;
		return false;	/* a context marker */
	}
	return (*n)++ < sc->max_stack;
}

/* ---- text ---- */

static void text_callchain(const struct pebs_script *sc,
			   struct pebs_symbols *syms,
			   const struct pebs_sample *s, unsigned int ev,
			   uint32_t m, FILE *f)
{
	struct pebs_sym sym;
	unsigned int n = 0;
	int mode = -1;
	bool lookup;
	uint64_t ip;
	size_t i;

	if (pebs_callchain__dropped(s))	/* perf prints none of it */
		return;
	for (i = 0; i < s->callchain_nr; i++) {
		memcpy(&ip, &s->callchain[i], sizeof(ip));
		if (!frame_shown(sc, ev, ip, &mode, &lookup, &n))
			continue;
		memset(&sym, 0, sizeof(sym));
		if (lookup)
			code_at(syms, (pid_t)s->pid, ip, &sym);
		/* perf finds a frame's mapping among the data ones too */
		if (lookup && !sym.dso && ip < KERNEL_START)
			data_at(syms, (pid_t)s->pid, ip, &sym);
		fputc('\t', f);
		/* and shows a frame's address in its mapping (perf's
		   map__map_ip): the offset in a file, the vdso or a memfd,
		   the address itself in anonymous memory and JIT code */
		print_sym(f, &sym, m, true, sym.dso && ip < KERNEL_START &&
			  !dso_anon_name(sym.dso) ? sym.dso_offset : ip);
		if (m & SF(SF_SRCLINE))
			print_srcline(sc, &sym, ip, f);
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

	if (m & SF(SF_ATTR_TID)) {
		tid = script_attr_tid(sc, s);
		if (tid >= 0)
			fprintf(f, " attr_tid=%d", tid);
		else
			fputs(" attr_tid=-", f);
	}
	if (m & SF(SF_MEM_LEVEL)) {
		if (s->present & PERF_SAMPLE_DATA_SRC)
			mem_level(s, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "-");
		fprintf(f, " mem_level=%s", buf);
	}
	if (m & SF(SF_DATA_OBJECT)) {
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
	bool chain = (m & SF(SF_IP)) && (m & SF(SF_CALLCHAIN)) &&
		     (s->present & PERF_SAMPLE_CALLCHAIN) && s->callchain_nr;
	char comm[32], buf[192], dec[160];
	struct pebs_sym sym;
	int len;

	if (m & SF(SF_COMM)) {
		if (rs->comm)
			snprintf(comm, sizeof(comm), "%s", rs->comm);
		else
			snprintf(comm, sizeof(comm), ":%d", (int)s->tid);
		fprintf(f, chain ? "%s " : "%16s ", comm);
	}
	if ((m & SF(SF_PID)) && (m & SF(SF_TID)))
		fprintf(f, "%5d/%-5d ", (int)s->pid, (int)s->tid);
	else if (m & SF(SF_PID))
		fprintf(f, "%5d ", (int)s->pid);
	else if (m & SF(SF_TID))
		fprintf(f, "%5d ", (int)s->tid);
	if (m & SF(SF_CPU))
		fprintf(f, "[%03d] ", (int)s->cpu);
	if (m & SF(SF_TIME)) {
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64,
			 s->time / 1000000000, s->time % 1000000000 / 1000);
		fprintf(f, "%12s: ", buf);
	}
	if (m & SF(SF_PERIOD))
		fprintf(f, "%10" PRIu64 " ", rs->period);
	if (m & SF(SF_EVENT))
		fprintf(f, "%*s: ", sc->name_width, name ? name : "[unknown]");
	if (m & SF(SF_ADDR)) {
		fprintf(f, "%16" PRIx64, s->addr);
		if (sc->page_fault[rs->event]) {
			data_at(syms, (pid_t)s->pid, s->addr, &sym);
			print_sym(f, &sym, m & (SF(SF_SYM) | SF(SF_SYMOFF) |
						SF(SF_DSO)), false, 0);
		}
	}
	if (m & SF(SF_DATA_SRC)) {
		pebs_data_src__str(s->data_src, dec, sizeof(dec));
		len = snprintf(buf, 100, "%16" PRIx64 " %s", s->data_src, dec);
		if (len > 99)
			len = 99;	/* perf's scnprintf into 100 bytes */
		if (len > sc->src_width)
			sc->src_width = len;
		fprintf(f, "%-*s", sc->src_width, buf);
	}
	if (m & SF(SF_WEIGHT))
		fprintf(f, "%16" PRIu64, s->weight);
	if (m & SF(SF_INS_LAT))
		fprintf(f, "%16" PRIu16, s->weight2);
	if (m & SF(SF_IP)) {
		fputc(chain ? '\n' : ' ', f);
		if (chain) {
			text_callchain(sc, syms, s, rs->event, m, f);
		} else {
			code_at(syms, (pid_t)s->pid, s->ip, &sym);
			print_sym(f, &sym, m, true, s->ip);
			if (m & SF(SF_SRCLINE))
				print_srcline(sc, &sym, s->ip, f);
		}
	}
	if (m & SF(SF_PHYS_ADDR))
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
		      const struct pebs_sample *s, unsigned int ev, FILE *f)
{
	bool json = sc->fmt == PEBS_SCRIPT_JSONL, first = true;
	char frame[320], *p = NULL;
	struct pebs_sym sym;
	size_t size = 0, nr;
	unsigned int n = 0;
	int mode = -1;
	bool lookup;
	FILE *m;
	uint64_t ip;
	size_t i;

	if (!(s->present & PERF_SAMPLE_CALLCHAIN)) {
		put_str(sc, NULL, f);
		return;
	}
	/* a chain perf drops has no frame, as in text */
	nr = pebs_callchain__dropped(s) ? 0 : s->callchain_nr;
	/* csv: "sym;sym;..." leaf first; jsonl: an array of the same */
	m = json ? f : open_memstream(&p, &size);
	if (!m)
		return;
	if (json)
		fputc('[', f);
	for (i = 0; i < nr; i++) {
		memcpy(&ip, &s->callchain[i], sizeof(ip));
		if (!frame_shown(sc, ev, ip, &mode, &lookup, &n))
			continue;
		memset(&sym, 0, sizeof(sym));
		if (lookup)
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
		put_num(sc, st & script_fields[c].need, s->weight, f);
		break;
	case SF_INS_LAT:
		put_num(sc, st & script_fields[c].need, s->weight2, f);
		break;
	case SF_PERIOD:
		/* as perf report: the attr's period when not sampled */
		put_num(sc, true, rs->period, f);
		break;
	case SF_PHYS_ADDR:
		put_hex(sc, st & PERF_SAMPLE_PHYS_ADDR, s->phys_addr, f);
		break;
	case SF_CALLCHAIN:
		put_chain(sc, syms, s, rs->event, f);
		break;
	case SF_ATTR_TID:
		tid = script_attr_tid(sc, s);
		put_num(sc, tid >= 0, (uint64_t)tid, f);
		break;
	case SF_MEM_LEVEL:
		if (st & PERF_SAMPLE_DATA_SRC)
			mem_level(s, buf, sizeof(buf));
		put_str(sc, (st & PERF_SAMPLE_DATA_SRC) ? buf : NULL, f);
		break;
	case SF_SRCLINE:	/* perf script's, where it prints one */
		code_at(syms, (pid_t)s->pid, s->ip, &sym);
		put_str(sc, (st & PERF_SAMPLE_IP) &&
			srcline_of(sc, &sym, s->ip, buf, sizeof(buf)) ? buf :
			NULL, f);
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
					script_fields[sc->cols[i]].name);
			else if (i)
				fputc(',', f);
			put_col(sc, syms, sc->cols[i], s, rs, f);
		}
		fputs(sc->fmt == PEBS_SCRIPT_JSONL ? "}\n" : "\n", f);
	}
	return ferror(f) ? core_err(-EIO, "script: write error") : 0;
}
