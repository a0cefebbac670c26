// SPDX-License-Identifier: MIT
/*
 * c2c-print.c - pebs_c2c__print: a sorted pebs_c2c as perf c2c report
 * --stdio prints it: Trace Event Information, Global Shared Cache Line
 * Event Information, c2c details, the Shared Data Cache Line Table and
 * the Shared Cache Line Distribution Pareto (with, per line, its sharing
 * and evidence, and per offset its threads and CPUs); the helpers the
 * csv and json printers share (c2c-csv.c); and pebs_c2c__print_summary,
 * the shared lines' table of pebs-shim report.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "c2c/c2c-print.h"
#include "core/opts.h"

const char *const c2c_display_name[] = {
	[PEBS_C2C_TOT_HITM] = "Total HITMs",
	[PEBS_C2C_LCL_HITM] = "Local HITMs",
	[PEBS_C2C_RMT_HITM] = "Remote HITMs",
	[PEBS_C2C_PEER] = "Peer Snoop",
	[PEBS_C2C_XWRITES] = "Cross-thread writes",
};

void c2c_code_str(struct c2c_pr *m, uint32_t pid, uint64_t ip,
		  char *sym, size_t len, const char **dso)
{
	struct pebs_sym s = { 0 };
	const char *slash;

	if (m->o.code)
		pebs_symbols__resolve(m->o.code, (pid_t)pid, ip, &s);
	if (s.name)
		snprintf(sym, len, "[%c] %s+0x%" PRIx64,
			 ip >= 1ULL << 63 ? 'k' : '.', s.name, s.offset);
	else
		snprintf(sym, len, "[%c] 0x%016" PRIx64,
			 ip >= 1ULL << 63 ? 'k' : '.', s.dso ? s.dso_offset : ip);
	slash = s.dso ? strrchr(s.dso, '/') : NULL;
	*dso = slash ? slash + 1 : s.dso ? s.dso : "[unknown]";
}

/* perf's bitmap_scnprintf */
const char *c2c_nodes_str(uint64_t mask, char *buf, size_t len)
{
	unsigned int a, b;
	size_t n = 0;

	if (!mask)
		return "N/A";
	buf[0] = '\0';
	for (a = 0; a < 64 && n < len; a = b + 1) {
		if (!(mask >> a & 1)) {
			b = a;
			continue;
		}
		for (b = a; b + 1 < 64 && mask >> (b + 1) & 1; b++)
			;
		n += snprintf(buf + n, len - n, a == b ? "%s%u" : "%s%u-%u",
			      n ? "," : "", a, b);
	}
	return buf;
}

double c2c_pct(uint64_t a, uint64_t b)
{
	return ((double)a / (double)b) * 100.;	/* as perf: -nan% for 0/0 */
}

double c2c_mean(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / n : 0;
}

const char *c2c_dso_str(const struct pebs_c2c_dkey *k, char *buf, size_t len)
{
	if (!k->has_map)
		return "X";
	if (!k->maj && !k->min && !k->ino && !k->ino_generation)
		return "0";
	snprintf(buf, len, "%02x:%02x:%" PRIu64 ":%" PRIu64, k->maj, k->min,
		 k->ino, k->ino_generation);
	return buf;
}

const char *c2c_src_str(struct c2c_pr *m, uint32_t pid, uint64_t ip)
{
	const char *file, *base;
	unsigned int line;
	struct pebs_sym s;

	if (!m->o.src || !m->o.code || ip >= 1ULL << 63)
		return "";
	/* only where the symbol is trusted (the recorded build id, if
	 * any, matched the file here) */
	if (pebs_symbols__resolve(m->o.code, (pid_t)pid, ip, &s) || !s.dso ||
	    pebs_srcline__find(m->o.src, s.dso, s.dso_offset, &file,
					 &line))
		return "";
	base = strrchr(file, '/');	/* perf: the base name */
	snprintf(m->srcbuf, sizeof(m->srcbuf), "%s:%u", base ? base + 1 : file,
		 line);
	return m->srcbuf;
}

/* ---- stdio ------------------------------------------------------------ */

#define L(label, v) fprintf(f, "  %-34s: %10" PRIu64 "\n", label, (uint64_t)(v))
#define LP(label, a, b) fprintf(f, "  %-34s: %10.1f%%\n", label, c2c_pct(a, b))

static void banner(FILE *f, const char *title)
{
	fprintf(f, "=================================================\n"
	       "%s\n"
	       "=================================================\n", title);
}

static void print_trace_info(FILE *f, const struct pebs_c2c_stats *st)
{
	uint64_t llc = pebs_c2c_stats__llc_misses(st);

	banner(f, "            Trace Event Information              ");
	L("Total records", st->nr_entries);
	L("Locked Load/Store Operations", st->locks);
	L("Load Operations", st->load);
	L("Loads - uncacheable", st->ld_uncache);
	L("Loads - IO", st->ld_io);
	L("Loads - Miss", st->ld_miss);
	L("Loads - no mapping", st->ld_noadrs);
	L("Load Fill Buffer Hit", st->ld_fbhit);
	L("Load L1D hit", st->ld_l1hit);
	L("Load L2D hit", st->ld_l2hit);
	L("Load LLC hit", st->ld_llchit + st->lcl_hitm);
	L("Load Local HITM", st->lcl_hitm);
	L("Load Remote HITM", st->rmt_hitm);
	L("Load Remote HIT", st->rmt_hit);
	L("Load Local DRAM", st->lcl_dram);
	L("Load Remote DRAM", st->rmt_dram);
	L("Load MESI State Exclusive", st->ld_excl);
	L("Load MESI State Shared", st->ld_shared);
	L("Load LLC Misses", llc);
	L("Load access blocked by data", st->blk_data);
	L("Load access blocked by address", st->blk_addr);
	L("Load HIT Local Peer", st->lcl_peer);
	L("Load HIT Remote Peer", st->rmt_peer);
	LP("LLC Misses to Local DRAM", st->lcl_dram, llc);
	LP("LLC Misses to Remote DRAM", st->rmt_dram, llc);
	LP("LLC Misses to Remote cache (HIT)", st->rmt_hit, llc);
	LP("LLC Misses to Remote cache (HITM)", st->rmt_hitm, llc);
	L("Store Operations", st->store);
	L("Store - uncacheable", st->st_uncache);
	L("Store - no mapping", st->st_noadrs);
	L("Store L1D Hit", st->st_l1hit);
	L("Store L1D Miss", st->st_l1miss);
	L("Store No available memory level", st->st_na);
	L("No Page Map Rejects", st->nomap);
	L("Unable to parse data source", st->noparse);
}

static void print_shared_info(struct c2c_pr *m)
{
	FILE *f = m->f;
	struct pebs_c2c_stats st;
	unsigned int n = pebs_c2c__shared(m->c2c, &st);

	banner(f, "    Global Shared Cache Line Event Information   ");
	L("Total Shared Cache Lines", n);
	L("Load HITs on shared lines", st.load);
	L("Fill Buffer Hits on shared lines", st.ld_fbhit);
	L("L1D hits on shared lines", st.ld_l1hit);
	L("L2D hits on shared lines", st.ld_l2hit);
	L("LLC hits on shared lines", st.ld_llchit + st.lcl_hitm);
	L("Load hits on peer cache or nodes", st.lcl_peer + st.rmt_peer);
	L("Locked Access on shared lines", st.locks);
	L("Blocked Access on shared lines", st.blk_data + st.blk_addr);
	L("Store HITs on shared lines", st.store);
	L("Store L1D hits on shared lines", st.st_l1hit);
	L("Store No available memory level", st.st_na);
	L("Total Merged records", st.lcl_hitm + st.rmt_hitm + st.store);
}

static void print_details(struct c2c_pr *m)
{
	unsigned int i, n = m->o.pd ? pebs_perfdata__nr_attrs(m->o.pd) : 0;
	FILE *f = m->f;

	banner(f, "                 c2c details                     ");
	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(m->o.pd, i, NULL, NULL);
		const char *name = pebs_perfdata__attr_name(m->o.pd, i);

		fprintf(f, "%-36s: ", i ? "" : "  Events");
		if (name)
			fprintf(f, "%s\n", name);
		else
			fprintf(f, "type %u config 0x%llx\n", a->type,
			       (unsigned long long)a->config);
	}
	fprintf(f, "  %-34s: %s\n", "Cachelines sort on",
	       c2c_display_name[m->c2c->display]);
	fprintf(f, "  %-34s: %s\n", "Cacheline data grouping", "offset,iaddr");
}

static int print_line_row(const struct pebs_c2c_line *l, void *arg)
{
	struct c2c_pr *m = arg;
	const struct pebs_c2c_stats *st = &l->stats;
	struct pebs_c2c_stats sh;
	FILE *f = m->f;
	char nb[160];
	uint64_t tot;

	if (m->c2c->display == PEBS_C2C_XWRITES) {
		fprintf(f, "  %5u  %#18" PRIx64 " %7u %8" PRIu64 " %8" PRIu64
		       " %7u %7u  %s\n", l->rank, l->addr, l->pid,
		       st->nr_entries, l->xwrites, l->nr_threads,
		       l->nr_offsets, pebs_c2c_sharing__name(l->sharing));
		return 0;
	}
	pebs_c2c__shared(m->c2c, &sh);
	tot = m->c2c->display == PEBS_C2C_LCL_HITM ? sh.lcl_hitm :
	      m->c2c->display == PEBS_C2C_RMT_HITM ? sh.rmt_hitm :
	      m->c2c->display == PEBS_C2C_PEER ? sh.tot_peer : sh.tot_hitm;
	fprintf(f, "  %5u  %#18" PRIx64 "  %4s  %6" PRIu64 " %7.2f%% %8" PRIu64
	       " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
	       " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
	       " %8" PRIu64 " %9" PRIu64 " %8" PRIu64 " %9" PRIu64 " %8" PRIu64
	       " %9" PRIu64 " %9" PRIu64 " %8.1f  %7u  %s\n",
	       l->rank, l->addr, c2c_nodes_str(l->nodes, nb, sizeof(nb)),
	       l->phys_addrs,
	       c2c_pct(m->c2c->display == PEBS_C2C_LCL_HITM ? st->lcl_hitm :
		   m->c2c->display == PEBS_C2C_RMT_HITM ? st->rmt_hitm :
		   m->c2c->display == PEBS_C2C_PEER ? st->tot_peer : st->tot_hitm,
		   tot),
	       st->tot_hitm, st->lcl_hitm, st->rmt_hitm,
	       pebs_c2c_stats__records(st), pebs_c2c_stats__loads(st),
	       st->st_l1hit + st->st_l1miss + st->st_na,
	       st->st_l1hit, st->st_l1miss, st->st_na,
	       st->ld_fbhit, st->ld_l1hit, st->ld_l2hit,
	       st->ld_llchit, st->lcl_hitm, st->rmt_hit, st->rmt_hitm,
	       st->lcl_dram, st->rmt_dram,
	       c2c_mean(l->load_weight, l->load_weight_n), l->nr_threads,
	       pebs_c2c_sharing__name(l->sharing));
	return 0;
}

static void print_line_table(struct c2c_pr *m)
{
	FILE *f = m->f;

	banner(f, "           Shared Data Cache Line Table          ");
	if (m->c2c->display == PEBS_C2C_XWRITES) {
		fprintf(f, "# Index             Address     Pid  Records  Xwrites"
		       " Threads Offsets  Sharing\n");
	} else {
		fprintf(f, "#        ----------- Cacheline ----------      Tot  "
		       "------- Load "
		       "Hitm -------    Total    Total    Total  --------- "
		       "Stores --------  ----- Core Load Hit -----  - LLC Load "
		       "Hit --  - RMT Load Hit --  --- Load Dram ----  "
		       "  Load\n");
		fprintf(f, "# Index             Address  Node  PA cnt     Hitm    Total  "
		       "LclHitm  RmtHitm  records    Loads   Stores    L1Hit   "
		       "L1Miss      N/A       FB       L1       L2    LclHit  "
		       "LclHitm    RmtHit  RmtHitm       Lcl       Rmt   Weight"
		       "  Threads  Sharing\n");
	}
	fprintf(f, "#\n");
	pebs_c2c__for_each_line(m->c2c, m->o.show_all, print_line_row, m);
}

static int print_ip(const struct pebs_c2c_ip *ip, void *arg)
{
	struct c2c_walk *p = arg;
	const struct pebs_c2c_stats *st = &ip->stats, *ls = &p->line->stats;
	const char *dso, *src;
	char sym[8192], nb[160];
	FILE *f = p->m->f;

	/* perf shows entries with stores or HITMs (is_valid_hist_entry) */
	if (!st->store && !st->tot_hitm && !ip->unknown)
		return 0;
	c2c_code_str(p->m, ip->pid, ip->ip, sym, sizeof(sym), &dso);
	src = c2c_src_str(p->m, ip->pid, ip->ip);
	fprintf(f, "         %7.2f%% %7.2f%% %7.2f%% %7.2f%% %7.2f%%    0x%02x"
	       "  %4s  %6" PRIu64 "  %#18" PRIx64 " %8.0f %8.0f %8.0f %8"
	       PRIu64 " %6u  %s  %s%s%s\n",
	       ls->rmt_hitm ? c2c_pct(st->rmt_hitm, ls->rmt_hitm) : 0.0,
	       ls->lcl_hitm ? c2c_pct(st->lcl_hitm, ls->lcl_hitm) : 0.0,
	       ls->st_l1hit ? c2c_pct(st->st_l1hit, ls->st_l1hit) : 0.0,
	       ls->st_l1miss ? c2c_pct(st->st_l1miss, ls->st_l1miss) : 0.0,
	       ls->st_na ? c2c_pct(st->st_na, ls->st_na) : 0.0,
	       p->off->offset, c2c_nodes_str(ip->nodes, nb, sizeof(nb)),
	       ip->pa_cnt, ip->ip, c2c_mean(ip->rmt_hitm_w, ip->rmt_hitm_n),
	       c2c_mean(ip->lcl_hitm_w, ip->lcl_hitm_n),
	       c2c_mean(ip->load_w, ip->load_n),
	       pebs_c2c_stats__records(st) + ip->unknown, ip->nr_cpus, sym,
	       dso, *src ? "  " : "", src);
	return 0;
}

static int print_thread(const struct pebs_c2c_thread *t, void *arg)
{
	FILE *f = arg;

	fprintf(f, " %u/%u(%" PRIu64 "L,%" PRIu64 "S", t->pid, t->tid, t->loads,
	       t->stores);
	if (t->unknown)
		fprintf(f, ",%" PRIu64 "?", t->unknown);
	if (t->hitm)
		fprintf(f, ",%" PRIu64 "HITM", t->hitm);
	fprintf(f, ")");
	return 0;
}

static int print_cpu(const struct pebs_c2c_cpu *c, void *arg)
{
	FILE *f = arg;

	fprintf(f, " %u(%" PRIu64 ")", c->cpu, c->samples);
	return 0;
}

/* the load weight of an offset: the sum over its code addresses */
static int sum_weight(const struct pebs_c2c_ip *ip, void *arg)
{
	uint64_t *w = arg;

	w[0] += ip->load_w;
	w[1] += ip->load_n;
	return 0;
}

static int print_offset(const struct pebs_c2c_offset *o, void *arg)
{
	const struct pebs_c2c_stats *st = &o->stats;
	struct c2c_walk *p = arg;
	uint64_t w[2] = { 0, 0 };
	FILE *f = p->m->f;

	p->off = o;
	pebs_c2c__for_each_ip(p->m->c2c, o->id, print_ip, p);
	pebs_c2c__for_each_ip(p->m->c2c, o->id, sum_weight, w);
	fprintf(f, "         offset %#x (sharing %s): %" PRIu64 " loads, %" PRIu64
	       " stores", o->offset, pebs_c2c_sharing__name(o->sharing),
	       st->load, st->store);
	if (o->unknown)
		fprintf(f, ", %" PRIu64 " unknown-kind", o->unknown);
	fprintf(f, ", HITM %" PRIu64 " (lcl %" PRIu64 ", rmt %" PRIu64 "), "
	       "stores L1 hit %" PRIu64 " miss %" PRIu64 ", loads LLC hit %"
	       PRIu64 ", DRAM lcl %" PRIu64 " rmt %" PRIu64
	       ", mean load weight %.1f\n           threads (pid/tid):",
	       st->tot_hitm, st->lcl_hitm, st->rmt_hitm, st->st_l1hit,
	       st->st_l1miss, st->ld_llchit, st->lcl_dram, st->rmt_dram,
	       c2c_mean(w[0], w[1]));
	pebs_c2c__for_each_thread(p->m->c2c, o->id, print_thread, f);
	fprintf(f, "\n           cpus:");
	pebs_c2c__for_each_cpu(p->m->c2c, o->id, print_cpu, f);
	fprintf(f, "\n");
	return 0;
}

static void print_pair(FILE *f, const char *what, const struct pebs_c2c_evidence *e,
		       bool known)
{
	const char *w = known ? "writes" : "touches";

	fprintf(f, "  sharing: %s: %u/%u %s offset %#x, %u/%u %s offset %#x\n",
	       what, e->pid_a, e->tid_a, w, e->off_a, e->pid_b, e->tid_b,
	       e->b_writes ? w : "reads", e->off_b);
}

static void print_evidence(FILE *f, const struct pebs_c2c_line *l,
			   bool known)
{
	if (l->sharing == PEBS_C2C_PRIVATE) {
		fprintf(f, "  sharing: none (%u thread%s%s)\n", l->nr_threads,
		       l->nr_threads == 1 ? "" : "s",
		       l->nr_threads > 1 ? ", no writer" : "");
		return;
	}
	if (l->sharing == PEBS_C2C_FALSE_SHARING) {
		print_pair(f, "false (different bytes)", &l->evidence, known);
		return;
	}
	print_pair(f, l->also_false ? "true+false: true (same bytes)" :
		   "true (same bytes)", &l->evidence, known);
	if (l->also_false)
		print_pair(f, "true+false: false (different bytes)",
			   &l->false_evidence, known);
}

static int print_pareto_line(const struct pebs_c2c_line *l, void *arg)
{
	struct c2c_walk p = { .m = arg, .line = l };
	const struct pebs_c2c_stats *st = &l->stats;
	FILE *f = p.m->f;

	fprintf(f, "\n  ----------------------------------------------------------"
	       "------------\n");
	fprintf(f, "  %5u  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64
	       "  %7" PRIu64 "  %#18" PRIx64 "  pid %u, %u threads, %u cpus"
	       "\n", l->rank, st->rmt_hitm, st->lcl_hitm, st->st_l1hit,
	       st->st_l1miss, st->st_na, l->addr, l->pid, l->nr_threads,
	       l->nr_cpus);
	print_evidence(f, l, pebs_c2c__has_data_src(p.m->c2c));
	if (l->object && l->nr_objects > 1)
		fprintf(f, "  object: %s (and %s%u other%s)\n", l->object_inst,
			l->nr_objects > 3 ? "at least " : "",
			l->nr_objects - 1, l->nr_objects > 2 ? "s" : "");
	else if (l->object)
		fprintf(f, "  object: %s\n", l->object_inst);
	fprintf(f, "  ----------------------------------------------------------"
	       "------------\n");
	return pebs_c2c__for_each_offset(p.m->c2c, l->id, print_offset, &p);
}

static void print_pareto(struct c2c_pr *m)
{
	FILE *f = m->f;

	banner(f, "      Shared Cache Line Distribution Pareto      ");
	fprintf(f, "#        ----- HITM -----  ------- Store Refs ------  "
	       "--- Data address ---  ---------- cycles ----------"
	       "    Total    cpu\n");
	fprintf(f, "#   Num  RmtHitm  LclHitm   L1 Hit  L1 Miss      N/A  "
	       "Offset  Node  PA cnt        Code address  rmt hitm lcl hitm"
	       "     load  "
	       "records    cnt  Symbol  Object  Source:Line\n#\n");
	pebs_c2c__for_each_line(m->c2c, m->o.show_all, print_pareto_line, m);
}

static void print_stdio(struct c2c_pr *m)
{
	FILE *f = m->f;

	print_trace_info(f, pebs_c2c__stats(m->c2c));
	fprintf(f, "\n");
	print_shared_info(m);
	fprintf(f, "\n");
	print_details(m);
	fprintf(f, "\n");
	print_line_table(m);
	fprintf(f, "\n");
	print_pareto(m);
}

int pebs_c2c__print(struct pebs_c2c *c, FILE *f,
		    const struct pebs_c2c_print_opts *opts)
{
	struct c2c_pr m = { .c2c = c, .f = f };
	int err;

	if (!c || !f)
		return core_err(-EINVAL, "c2c print: no table or no stream");
	if (!c->sorted)
		return core_err(-EINVAL, "c2c print: the table is not sorted: "
				"call pebs_c2c__sort first");
	err = opts_copy(&m.o, sizeof(m.o), opts, "pebs_c2c_print_opts");
	if (err)
		return err;
	switch (m.o.format) {
	case PEBS_C2C_FORMAT_STDIO:
		print_stdio(&m);
		break;
	case PEBS_C2C_FORMAT_CSV:
	case PEBS_C2C_FORMAT_CSV_DETAIL:
		c2c_print_csv(&m);
		break;
	case PEBS_C2C_FORMAT_JSON:
		c2c_print_json(&m);
		break;
	default:
		return core_err(-EINVAL, "c2c print: unknown format %d: use a "
				"PEBS_C2C_FORMAT_ value", (int)m.o.format);
	}
	if (m.failed)
		return core_err(-ENOMEM, "c2c print: out of memory");
	return ferror(f) ? core_err(-EIO, "c2c print: writing failed") : 0;
}

/* ---- pebs-shim report's section: the shared lines, one row each ----- */

struct summary_walk {
	FILE *f;
	const struct pebs_threads *threads;
	unsigned int top, shown;
};

static const char *thread_name(const struct summary_walk *w, uint32_t pid,
			       uint32_t tid)
{
	const char *c = w->threads ?
		pebs_threads__comm(w->threads, (int32_t)pid, (int32_t)tid) :
		NULL;

	return c ? c : "?";
}

static int summary_line(const struct pebs_c2c_line *l, void *arg)
{
	struct summary_walk *w = arg;
	const struct pebs_c2c_evidence *e = &l->evidence;
	FILE *f = w->f;

	if (w->shown++ == w->top)
		return 1;
	fprintf(f, "%4u  %#18" PRIx64 "  %7" PRIu64 "  %6" PRIu64 "  %6" PRIu64
		"  %5" PRIu64 "  %7" PRIu64 "  %7u  %7u  %-10s", l->rank,
		l->addr, l->stats.nr_entries, l->stats.load, l->stats.store,
		l->stats.tot_hitm, l->xwrites, l->nr_threads, l->nr_offsets,
		pebs_c2c_sharing__name(l->sharing));
	if (l->sharing != PEBS_C2C_PRIVATE)
		fprintf(f, "  %s/%u@%u %s %s/%u@%u",
			thread_name(w, e->pid_a, e->tid_a), e->tid_a, e->off_a,
			e->b_writes ? "and writer" : "and",
			thread_name(w, e->pid_b, e->tid_b), e->tid_b, e->off_b);
	fputc('\n', f);
	return 0;
}

int pebs_c2c__print_summary(struct pebs_c2c *c, FILE *f,
			    const struct pebs_threads *threads,
			    unsigned int top)
{
	struct summary_walk w = { .f = f, .threads = threads, .top = top };
	bool src;
	int err;

	if (!c || !f)
		return core_err(-EINVAL, "c2c summary: no table or no stream");
	src = pebs_c2c__has_data_src(c);
	err = pebs_c2c__sort(c, src ? PEBS_C2C_TOT_HITM : PEBS_C2C_XWRITES);
	if (err < 0)
		return err;
	fprintf(f, "\n# shared cache lines, as perf c2c ranks them (%s); true sharing: two threads\n"
		"# on the same bytes, one writing; false: two threads on different bytes, one\n"
		"# writing; true+false: both; the evidence is the costliest pair (HITM, stores)\n"
		"# (pebs-shim c2c report: offsets, code addresses, threads, CPUs); samples,\n"
		"# loads and stores count as in every table here (a load: data source op\n"
		"# load); c2c report's Total records and Total Loads are perf's narrower sums\n",
		src ? "by HITM" : "no data source: by cross-thread writes");
	fprintf(f, "%4s  %18s  %7s  %6s  %6s  %5s  %7s  %7s  %7s  %-10s  %s\n",
		"rank", "cache line", "samples", "loads", "stores", "hitm",
		"xwrites", "threads", "offsets", "kind",
		"evidence (comm/tid@offset)");
	err = pebs_c2c__for_each_line(c, false, summary_line, &w);
	if (err == -ENOMEM)
		return err;
	if (!w.shown)
		fprintf(f, "#   (no cache line is shared)\n");
	else if (w.shown > top)
		fprintf(f, "%4s  (more lines: --top to show more)\n", "...");
	return ferror(f) ? core_err(-EIO, "c2c summary: writing failed") : 0;
}
