// SPDX-License-Identifier: MIT
/*
 * cmd-c2c.c - `pebs-shim c2c report`: cache-line sharing of a recording,
 * printed as perf c2c report --stdio prints it (the counting, ranking
 * and classification are the library's pebs_c2c).
 *
 * The library reads the file into the table in time order
 * (pebs_c2c__read_perfdata); this file prints it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "pebsshim.h"

enum fmt { FMT_STDIO, FMT_CSV, FMT_JSON };

struct c2c_cmd {
	const char *path;
	enum fmt fmt;
	enum pebs_c2c_display display;
	bool display_set;
	bool show_all;			/* every line, not only shown ones */
	struct pebs_perfdata *pd;
	struct pebs_symbols *code;	/* code mappings: symbols */
	struct pebs_c2c *c2c;
	uint64_t bad;			/* samples that did not decode */
	bool first;			/* JSON: no comma before the next */
};

static void c2c_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void c2c_err(const char *fmt, ...)
{
	va_list ap;

	fputs("pebs-shim c2c: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- counters by name ------------------------------------------------- */

#define F(x) { #x, offsetof(struct pebs_c2c_stats, x) }
static const struct { const char *name; size_t off; } fields[] = {
	F(nr_entries), F(locks), F(store), F(st_uncache), F(st_noadrs),
	F(st_l1hit), F(st_l1miss), F(st_na), F(load), F(ld_excl),
	F(ld_shared), F(ld_uncache), F(ld_io), F(ld_miss), F(ld_noadrs),
	F(ld_fbhit), F(ld_l1hit), F(ld_l2hit), F(ld_llchit), F(lcl_hitm),
	F(rmt_hitm), F(tot_hitm), F(lcl_peer), F(rmt_peer), F(tot_peer),
	F(rmt_hit), F(lcl_dram), F(rmt_dram), F(blk_data), F(blk_addr),
	F(nomap), F(noparse),
};
#undef F

static uint64_t field(const struct pebs_c2c_stats *st, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)st + fields[i].off, sizeof(v));
	return v;
}

static const char *const sharing_name[] = {
	[PEBS_C2C_PRIVATE] = "none",
	[PEBS_C2C_FALSE_SHARING] = "false",
	[PEBS_C2C_TRUE_SHARING] = "true",
};

static const char *const display_name[] = {
	[PEBS_C2C_TOT_HITM] = "Total HITMs",
	[PEBS_C2C_LCL_HITM] = "Local HITMs",
	[PEBS_C2C_RMT_HITM] = "Remote HITMs",
	[PEBS_C2C_PEER] = "Peer Snoop",
	[PEBS_C2C_XWRITES] = "Cross-thread writes",
};

/* "[.] sym+0x12  dso" parts of a code address */
static void code_str(struct c2c_cmd *m, uint32_t pid, uint64_t ip,
		     char *sym, size_t len, const char **dso)
{
	struct pebs_sym s;
	const char *slash;

	pebs_symbols__resolve(m->code, (pid_t)pid, ip, &s);
	if (s.name)
		snprintf(sym, len, "[%c] %s+0x%" PRIx64,
			 ip >= 1ULL << 63 ? 'k' : '.', s.name, s.offset);
	else
		snprintf(sym, len, "[%c] 0x%016" PRIx64,
			 ip >= 1ULL << 63 ? 'k' : '.', s.dso ? s.dso_offset : ip);
	slash = s.dso ? strrchr(s.dso, '/') : NULL;
	*dso = slash ? slash + 1 : s.dso ? s.dso : "[unknown]";
}

/* perf's node list (bitmap_scnprintf): "0", "0-2,5", or "N/A" */
static const char *nodes_str(uint64_t mask, char *buf, size_t len)
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

/* ---- stdio ------------------------------------------------------------ */

static double pct(uint64_t a, uint64_t b)
{
	return ((double)a / (double)b) * 100.;	/* as perf: -nan% for 0/0 */
}

#define L(label, v) printf("  %-34s: %10" PRIu64 "\n", label, (uint64_t)(v))
#define LP(label, a, b) printf("  %-34s: %10.1f%%\n", label, pct(a, b))

static void banner(const char *title)
{
	printf("=================================================\n"
	       "%s\n"
	       "=================================================\n", title);
}

static void print_trace_info(const struct pebs_c2c_stats *st)
{
	uint64_t llc = pebs_c2c_stats__llc_misses(st);

	banner("            Trace Event Information              ");
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

static void print_shared_info(struct c2c_cmd *m)
{
	struct pebs_c2c_stats st;
	unsigned int n = pebs_c2c__shared(m->c2c, &st);

	banner("    Global Shared Cache Line Event Information   ");
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

static void print_details(struct c2c_cmd *m)
{
	unsigned int i, n = pebs_perfdata__nr_attrs(m->pd);

	banner("                 c2c details                     ");
	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a =
			pebs_perfdata__attr(m->pd, i, NULL, NULL);
		const char *name = pebs_perfdata__attr_name(m->pd, i);

		printf("%-36s: ", i ? "" : "  Events");
		if (name)
			printf("%s\n", name);
		else
			printf("type %u config 0x%llx\n", a->type,
			       (unsigned long long)a->config);
	}
	printf("  %-34s: %s\n", "Cachelines sort on",
	       display_name[m->display]);
	printf("  %-34s: %s\n", "Cacheline data grouping", "offset,iaddr");
}

static int print_line_row(const struct pebs_c2c_line *l, void *arg)
{
	struct c2c_cmd *m = arg;
	const struct pebs_c2c_stats *st = &l->stats;
	struct pebs_c2c_stats sh;
	char nb[160];
	uint64_t tot;

	if (m->display == PEBS_C2C_XWRITES) {
		printf("  %5u  %#18" PRIx64 " %7u %8" PRIu64 " %8" PRIu64
		       " %7u %7u  %s\n", l->rank, l->addr, l->pid,
		       st->nr_entries, l->xwrites, l->nr_threads,
		       l->nr_offsets, sharing_name[l->sharing]);
		return 0;
	}
	pebs_c2c__shared(m->c2c, &sh);
	tot = m->display == PEBS_C2C_LCL_HITM ? sh.lcl_hitm :
	      m->display == PEBS_C2C_RMT_HITM ? sh.rmt_hitm :
	      m->display == PEBS_C2C_PEER ? sh.tot_peer : sh.tot_hitm;
	printf("  %5u  %#18" PRIx64 "  %4s  %6" PRIu64 " %7.2f%% %8" PRIu64
	       " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
	       " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
	       " %8" PRIu64 " %9" PRIu64 " %8" PRIu64 " %9" PRIu64 " %8" PRIu64
	       " %9" PRIu64 " %9" PRIu64 "  %7u  %s\n",
	       l->rank, l->addr, nodes_str(l->nodes, nb, sizeof(nb)),
	       l->phys_addrs,
	       pct(m->display == PEBS_C2C_LCL_HITM ? st->lcl_hitm :
		   m->display == PEBS_C2C_RMT_HITM ? st->rmt_hitm :
		   m->display == PEBS_C2C_PEER ? st->tot_peer : st->tot_hitm,
		   tot),
	       st->tot_hitm, st->lcl_hitm, st->rmt_hitm,
	       pebs_c2c_stats__records(st), pebs_c2c_stats__loads(st),
	       st->st_l1hit + st->st_l1miss + st->st_na,
	       st->st_l1hit, st->st_l1miss, st->st_na,
	       st->ld_fbhit, st->ld_l1hit, st->ld_l2hit,
	       st->ld_llchit, st->lcl_hitm, st->rmt_hit, st->rmt_hitm,
	       st->lcl_dram, st->rmt_dram, l->nr_threads,
	       sharing_name[l->sharing]);
	return 0;
}

static void print_line_table(struct c2c_cmd *m)
{
	banner("           Shared Data Cache Line Table          ");
	if (m->display == PEBS_C2C_XWRITES) {
		printf("# Index             Address     Pid  Records  Xwrites"
		       " Threads Offsets  Sharing\n");
	} else {
		printf("#        ----------- Cacheline ----------      Tot  "
		       "------- Load "
		       "Hitm -------    Total    Total    Total  --------- "
		       "Stores --------  ----- Core Load Hit -----  - LLC Load "
		       "Hit --  - RMT Load Hit --  --- Load Dram ----\n");
		printf("# Index             Address  Node  PA cnt     Hitm    Total  "
		       "LclHitm  RmtHitm  records    Loads   Stores    L1Hit   "
		       "L1Miss      N/A       FB       L1       L2    LclHit  "
		       "LclHitm    RmtHit  RmtHitm       Lcl       Rmt  Threads"
		       "  Sharing\n");
	}
	printf("#\n");
	pebs_c2c__for_each_line(m->c2c, m->show_all, print_line_row, m);
}

struct pareto {
	struct c2c_cmd *m;
	const struct pebs_c2c_line *line;
	const struct pebs_c2c_offset *off;
	bool more;		/* JSON: an offset was printed */
};

static double mean(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / n : 0;
}

static int print_ip(const struct pebs_c2c_ip *ip, void *arg)
{
	struct pareto *p = arg;
	const struct pebs_c2c_stats *st = &ip->stats, *ls = &p->line->stats;
	const char *dso;
	char sym[256], nb[160];

	/* perf shows entries with stores or HITMs (is_valid_hist_entry) */
	if (!st->store && !st->tot_hitm && !ip->unknown)
		return 0;
	code_str(p->m, ip->pid, ip->ip, sym, sizeof(sym), &dso);
	printf("         %7.2f%% %7.2f%% %7.2f%% %7.2f%% %7.2f%%    0x%02x"
	       "  %4s  %6" PRIu64 "  %#18" PRIx64 " %8.0f %8.0f %8.0f %8" PRIu64 " %6u  %s  %s\n",
	       ls->rmt_hitm ? pct(st->rmt_hitm, ls->rmt_hitm) : 0.0,
	       ls->lcl_hitm ? pct(st->lcl_hitm, ls->lcl_hitm) : 0.0,
	       ls->st_l1hit ? pct(st->st_l1hit, ls->st_l1hit) : 0.0,
	       ls->st_l1miss ? pct(st->st_l1miss, ls->st_l1miss) : 0.0,
	       ls->st_na ? pct(st->st_na, ls->st_na) : 0.0,
	       p->off->offset, nodes_str(ip->nodes, nb, sizeof(nb)),
	       ip->pa_cnt, ip->ip, mean(ip->rmt_hitm_w, ip->rmt_hitm_n),
	       mean(ip->lcl_hitm_w, ip->lcl_hitm_n),
	       mean(ip->load_w, ip->load_n),
	       pebs_c2c_stats__records(st) + ip->unknown, ip->nr_cpus, sym,
	       dso);
	return 0;
}

static int print_thread(const struct pebs_c2c_thread *t, void *arg)
{
	(void)arg;
	printf(" %u/%u(%" PRIu64 "L,%" PRIu64 "S", t->pid, t->tid, t->loads,
	       t->stores);
	if (t->unknown)
		printf(",%" PRIu64 "?", t->unknown);
	printf(")");
	return 0;
}

static int print_cpu(const struct pebs_c2c_cpu *c, void *arg)
{
	(void)arg;
	printf(" %u(%" PRIu64 ")", c->cpu, c->samples);
	return 0;
}

static int print_offset(const struct pebs_c2c_offset *o, void *arg)
{
	struct pareto *p = arg;

	p->off = o;
	pebs_c2c__for_each_ip(p->m->c2c, o->id, print_ip, p);
	printf("         offset %#x: %" PRIu64 " loads, %" PRIu64 " stores",
	       o->offset, o->stats.load, o->stats.store);
	if (o->unknown)
		printf(", %" PRIu64 " unknown-kind", o->unknown);
	printf(", %" PRIu64 " HITM\n           threads (pid/tid):",
	       o->stats.tot_hitm);
	pebs_c2c__for_each_thread(p->m->c2c, o->id, print_thread, NULL);
	printf("\n           cpus:");
	pebs_c2c__for_each_cpu(p->m->c2c, o->id, print_cpu, NULL);
	printf("\n");
	return 0;
}

static void print_pair(const char *what, const struct pebs_c2c_evidence *e,
		       bool known)
{
	const char *w = known ? "writes" : "touches";

	printf("  sharing: %s: %u/%u %s offset %#x, %u/%u %s offset %#x\n",
	       what, e->pid_a, e->tid_a, w, e->off_a, e->pid_b, e->tid_b,
	       e->b_writes ? w : "reads", e->off_b);
}

static void print_evidence(const struct pebs_c2c_line *l, bool known)
{
	if (l->sharing == PEBS_C2C_PRIVATE) {
		printf("  sharing: none (%u thread%s%s)\n", l->nr_threads,
		       l->nr_threads == 1 ? "" : "s",
		       l->nr_threads > 1 ? ", no two at different offsets "
		       "with a writer" : "");
		return;
	}
	print_pair(l->sharing == PEBS_C2C_TRUE_SHARING ?
		   "TRUE (same offset)" : "FALSE (different offsets)",
		   &l->evidence, known);
	if (l->also_false)
		print_pair("also FALSE (different offsets)",
			   &l->false_evidence, known);
}

static int print_pareto_line(const struct pebs_c2c_line *l, void *arg)
{
	struct pareto p = { .m = arg, .line = l };
	const struct pebs_c2c_stats *st = &l->stats;

	printf("\n  ----------------------------------------------------------"
	       "------------\n");
	printf("  %5u  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64
	       "  %7" PRIu64 "  %#18" PRIx64 "  pid %u, %u threads, %u cpus"
	       "\n", l->rank, st->rmt_hitm, st->lcl_hitm, st->st_l1hit,
	       st->st_l1miss, st->st_na, l->addr, l->pid, l->nr_threads,
	       l->nr_cpus);
	print_evidence(l, pebs_c2c__has_data_src(p.m->c2c));
	printf("  ----------------------------------------------------------"
	       "------------\n");
	return pebs_c2c__for_each_offset(p.m->c2c, l->id, print_offset, &p);
}

static void print_pareto(struct c2c_cmd *m)
{
	banner("      Shared Cache Line Distribution Pareto      ");
	printf("#        ----- HITM -----  ------- Store Refs ------  "
	       "--- Data address ---  ---------- cycles ----------"
	       "    Total    cpu\n");
	printf("#   Num  RmtHitm  LclHitm   L1 Hit  L1 Miss      N/A  "
	       "Offset  Node  PA cnt        Code address  rmt hitm lcl hitm"
	       "     load  "
	       "records    cnt  Symbol  Object\n#\n");
	pebs_c2c__for_each_line(m->c2c, m->show_all, print_pareto_line, m);
}

static void print_stdio(struct c2c_cmd *m)
{
	print_trace_info(pebs_c2c__stats(m->c2c));
	printf("\n");
	print_shared_info(m);
	printf("\n");
	print_details(m);
	printf("\n");
	print_line_table(m);
	printf("\n");
	print_pareto(m);
}

/* ---- csv and json ----------------------------------------------------- */

static void csv_line_header(void)
{
	size_t i;

	printf("rank,addr,pid");
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		printf(",%s", fields[i].name);
	printf(",records,loads,llc_misses,unknown,xwrites,mean_load_weight,"
	       "pa_cnt,nodes,threads,offsets,cpus,sharing,pid_a,tid_a,off_a,"
	       "pid_b,tid_b,off_b,also_false,false_pid_a,false_tid_a,"
	       "false_off_a,false_pid_b,false_tid_b,false_off_b\n");
}

static void csv_pair(bool set, const struct pebs_c2c_evidence *e)
{
	if (!set)
		printf(",,,,,,");
	else
		printf(",%u,%u,%u,%u,%u,%u", e->pid_a, e->tid_a, e->off_a,
		       e->pid_b, e->tid_b, e->off_b);
}

static int csv_line(const struct pebs_c2c_line *l, void *arg)
{
	const struct pebs_c2c_evidence *e = &l->evidence;
	char nb[160];
	size_t i;

	(void)arg;
	printf("%u,0x%" PRIx64 ",%u", l->rank, l->addr, l->pid);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		printf(",%" PRIu64, field(&l->stats, i));
	printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%.1f,%" PRIu64 ",\"%s\",%u,%u,%u,%s",
	       pebs_c2c_stats__records(&l->stats),
	       pebs_c2c_stats__loads(&l->stats),
	       pebs_c2c_stats__llc_misses(&l->stats), l->unknown, l->xwrites,
	       mean(l->load_weight, l->load_weight_n), l->phys_addrs,
	       l->nodes ? nodes_str(l->nodes, nb, sizeof(nb)) : "",
	       l->nr_threads, l->nr_offsets, l->nr_cpus,
	       sharing_name[l->sharing]);
	csv_pair(l->sharing != PEBS_C2C_PRIVATE, e);
	printf(",%d", l->also_false);
	csv_pair(l->also_false, &l->false_evidence);
	printf("\n");
	return 0;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_stats(const struct pebs_c2c_stats *st)
{
	size_t i;

	printf("{");
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "", fields[i].name,
		       field(st, i));
	printf(",\"records\":%" PRIu64 ",\"loads\":%" PRIu64
	       ",\"llc_misses\":%" PRIu64 "}", pebs_c2c_stats__records(st),
	       pebs_c2c_stats__loads(st), pebs_c2c_stats__llc_misses(st));
}

static int json_ip(const struct pebs_c2c_ip *ip, void *arg)
{
	struct pareto *p = arg;
	unsigned int i, n;
	const char *dso;
	char sym[256];

	code_str(p->m, ip->pid, ip->ip, sym, sizeof(sym), &dso);
	printf("%s{\"ip\":\"0x%" PRIx64 "\",\"symbol\":", p->m->first ? "" :
	       ",", ip->ip);
	json_str(sym + 4);	/* without the "[.] " mark */
	printf(",\"object\":");
	json_str(dso);
	printf(",\"pa_cnt\":%" PRIu64 ",\"nodes\":[", ip->pa_cnt);
	for (n = 0, i = 0; i < 64; i++)
		if (ip->nodes >> i & 1)
			printf("%s%u", n++ ? "," : "", i);
	printf("]");
	printf(",\"kernel\":%s,\"cpus\":%u,\"unknown\":%" PRIu64
	       ",\"mean_rmt_hitm\":%.1f,\"mean_lcl_hitm\":%.1f"
	       ",\"mean_load\":%.1f,\"stats\":",
	       ip->ip >= 1ULL << 63 ? "true" : "false", ip->nr_cpus,
	       ip->unknown, mean(ip->rmt_hitm_w, ip->rmt_hitm_n),
	       mean(ip->lcl_hitm_w, ip->lcl_hitm_n),
	       mean(ip->load_w, ip->load_n));
	json_stats(&ip->stats);
	printf("}");
	p->m->first = false;
	return 0;
}

static int json_thread(const struct pebs_c2c_thread *t, void *arg)
{
	struct c2c_cmd *m = arg;

	printf("%s{\"pid\":%u,\"tid\":%u,\"loads\":%" PRIu64 ",\"stores\":%"
	       PRIu64 ",\"unknown\":%" PRIu64 ",\"hitm\":%" PRIu64 "}",
	       m->first ? "" : ",", t->pid, t->tid, t->loads, t->stores,
	       t->unknown, t->hitm);
	m->first = false;
	return 0;
}

static int json_cpu(const struct pebs_c2c_cpu *c, void *arg)
{
	struct c2c_cmd *m = arg;

	printf("%s{\"cpu\":%u,\"samples\":%" PRIu64 "}", m->first ? "" : ",",
	       c->cpu, c->samples);
	m->first = false;
	return 0;
}

static int json_offset(const struct pebs_c2c_offset *o, void *arg)
{
	struct pareto *p = arg;
	struct c2c_cmd *m = p->m;

	printf("%s{\"offset\":%u,\"unknown\":%" PRIu64 ",\"stats\":",
	       p->more ? "," : "", o->offset, o->unknown);
	p->more = true;
	json_stats(&o->stats);
	printf(",\"ips\":[");
	m->first = true;
	pebs_c2c__for_each_ip(m->c2c, o->id, json_ip, p);
	printf("],\"threads\":[");
	m->first = true;
	pebs_c2c__for_each_thread(m->c2c, o->id, json_thread, m);
	printf("],\"cpus\":[");
	m->first = true;
	pebs_c2c__for_each_cpu(m->c2c, o->id, json_cpu, m);
	printf("]}");
	return 0;
}

static void json_pair(const char *name, const struct pebs_c2c_evidence *e)
{
	printf(",\"%s\":{\"a\":{\"pid\":%u,\"tid\":%u,\"offset\":%u,"
	       "\"writes\":true},\"b\":{\"pid\":%u,\"tid\":%u,"
	       "\"offset\":%u,\"writes\":%s}}", name, e->pid_a, e->tid_a,
	       e->off_a, e->pid_b, e->tid_b, e->off_b,
	       e->b_writes ? "true" : "false");
}

static int json_line(const struct pebs_c2c_line *l, void *arg)
{
	struct pareto p = { .m = arg, .line = l };
	const struct pebs_c2c_evidence *e = &l->evidence;
	unsigned int i, n;

	printf("%s\n{\"rank\":%u,\"addr\":\"0x%" PRIx64 "\",\"pid\":%u,"
	       "\"unknown\":%" PRIu64 ",\"xwrites\":%" PRIu64
	       ",\"mean_load_weight\":%.1f,\"pa_cnt\":%" PRIu64
	       ",\"threads\":%u,\"cpus\":%u,\"sharing\":\"%s\"",
	       l->rank ? "," : "", l->rank, l->addr, l->pid, l->unknown,
	       l->xwrites, mean(l->load_weight, l->load_weight_n),
	       l->phys_addrs, l->nr_threads, l->nr_cpus,
	       sharing_name[l->sharing]);
	printf(",\"nodes\":[");
	for (n = 0, i = 0; i < 64; i++)
		if (l->nodes >> i & 1)
			printf("%s%u", n++ ? "," : "", i);
	printf("]");
	if (l->sharing != PEBS_C2C_PRIVATE)
		json_pair("evidence", e);
	if (l->also_false)
		json_pair("false_evidence", &l->false_evidence);
	printf(",\"stats\":");
	json_stats(&l->stats);
	printf(",\"offsets\":[");
	pebs_c2c__for_each_offset(p.m->c2c, l->id, json_offset, &p);
	printf("]}");
	return 0;
}

static void print_json(struct c2c_cmd *m)
{
	struct pebs_c2c_stats sh;
	unsigned int n = pebs_c2c__shared(m->c2c, &sh);

	printf("{\"file\":");
	json_str(m->path);
	printf(",\"sort\":");
	json_str(display_name[m->display]);
	printf(",\"has_data_src\":%s,\"undecoded\":%" PRIu64 ",\"totals\":",
	       pebs_c2c__has_data_src(m->c2c) ? "true" : "false", m->bad);
	json_stats(pebs_c2c__stats(m->c2c));
	printf(",\"shared_lines\":%u,\"shared\":", n);
	json_stats(&sh);
	printf(",\"lines\":[");
	pebs_c2c__for_each_line(m->c2c, m->show_all, json_line, m);
	printf("]}\n");
}

/* ---- command ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
"usage: pebs-shim c2c report [-i FILE] [--stdio] [-d tot|lcl|rmt|peer|xwrites]\n"
"                            [--show-all] [--format csv|json]\n"
"Cache-line sharing of a recording, counted and ranked as perf c2c report\n"
"does (perf's labels and columns), with each shown line's offsets, code\n"
"addresses, threads and CPUs and its true/false sharing with evidence.\n"
"  -i, --input FILE     the recording (default pebs-shim.data, as report)\n"
"      --stdio          text tables (the default; accepted for perf users)\n"
"  -d, --display KIND   rank by tot (default), lcl or rmt HITM, peer snoops,\n"
"                       or xwrites: cross-thread writes (the default when\n"
"                       no sample has a data source, e.g. page faults)\n"
"      --show-all       every line with a data address, not only those\n"
"                       perf shows (shown ones first)\n"
"      --format FMT     csv: the shared line table; json: everything\n");
}

static int parse_display(const char *s, enum pebs_c2c_display *d)
{
	static const char *const names[] = {
		[PEBS_C2C_TOT_HITM] = "tot", [PEBS_C2C_LCL_HITM] = "lcl",
		[PEBS_C2C_RMT_HITM] = "rmt", [PEBS_C2C_PEER] = "peer",
		[PEBS_C2C_XWRITES] = "xwrites",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*d = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_args(struct c2c_cmd *m, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stdio", no_argument, NULL, 'S' },
		{ "display", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'F' },
		{ "show-all", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "i:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			m->path = optarg;
			break;
		case 'S':
			m->fmt = FMT_STDIO;
			break;
		case 'd':
			if (parse_display(optarg, &m->display)) {
				c2c_err("unknown display '%s': use tot, lcl, "
					"rmt, peer or xwrites", optarg);
				return 2;
			}
			m->display_set = true;
			break;
		case 'F':
			if (!strcmp(optarg, "csv")) {
				m->fmt = FMT_CSV;
			} else if (!strcmp(optarg, "json")) {
				m->fmt = FMT_JSON;
			} else {
				c2c_err("unknown format '%s': use csv or json",
					optarg);
				return 2;
			}
			break;
		case 'A':
			m->show_all = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "pebs-shim c2c: bad option: see "
				"pebs-shim c2c report --help\n");
			return 2;
		}
	}
	if (optind != argc) {
		c2c_err("unexpected argument '%s': the input is -i FILE",
			argv[optind]);
		return 2;
	}
	return 0;
}

static int run(struct c2c_cmd *m)
{
	int err;

	err = pebs_perfdata__open_rewindable(m->path, &m->pd);
	if (err) {
		c2c_err("%s: give a perf.data file with -i", pebs_errmsg());
		return 1;
	}
	if (pebs_symbols__new(&m->code) || pebs_c2c__new(&m->c2c))
		goto out_oom;
	err = pebs_c2c__read_perfdata(m->c2c, m->pd, m->code, &m->bad);
	if (err == -ENOMEM)
		goto out_oom;
	if (err)	/* damaged: report the records before the damage */
		c2c_err("%s: %s: reporting the records before it", m->path,
			pebs_errmsg());
	if (!m->display_set && !pebs_c2c__has_data_src(m->c2c))
		m->display = PEBS_C2C_XWRITES;
	if (pebs_c2c__sort(m->c2c, m->display) < 0)
		goto out_oom;
	if (m->bad)
		c2c_err("%" PRIu64 " samples could not be decoded and are "
			"left out", m->bad);
	if (m->fmt == FMT_JSON) {
		print_json(m);
	} else if (m->fmt == FMT_CSV) {
		csv_line_header();
		pebs_c2c__for_each_line(m->c2c, m->show_all, csv_line, m);
	} else {
		print_stdio(m);
	}
	if (fflush(stdout) || ferror(stdout)) {
		c2c_err("writing the report failed: check the output");
		return 1;
	}
	return err ? 1 : 0;

out_oom:
	c2c_err("out of memory: report a smaller file");
	return 1;
}

int cmd_c2c(int argc, char **argv)
{
	struct c2c_cmd m = { .path = "pebs-shim.data" };
	int ret;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "report")) {
		c2c_err("unknown subcommand '%s': use pebs-shim c2c report "
			"(record with pebs-shim record or perf c2c record)",
			argv[1]);
		return 2;
	}
	ret = parse_args(&m, argc - 1, argv + 1);
	if (ret)
		return ret == 1 ? 0 : ret;
	ret = run(&m);
	pebs_c2c__delete(m.c2c);
	pebs_symbols__delete(m.code);
	pebs_perfdata__close(m.pd);
	return ret;
}
