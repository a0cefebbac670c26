// SPDX-License-Identifier: MIT
/*
 * c2c-csv.c - pebs_c2c__print's csv and json: the shared line
 * table as CSV (one row per line, every counter, perf's line key, the
 * sharing and its evidence), or with --table detail the cacheline detail
 * (one row per line, offset and code address, with the offset's whole
 * thread and CPU lists), and everything as one JSON object (totals,
 * lines with their offsets, code addresses with symbol and source line,
 * threads and CPUs). Nothing is cut: every thread, CPU and code address.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c2c/c2c-print.h"

/* perf's cpumode as one letter: K kernel, U user, H, G guest kernel, g */
static const char *cpumode_name(uint16_t cpumode)
{
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		return "K";
	case PERF_RECORD_MISC_USER:
		return "U";
	case PERF_RECORD_MISC_HYPERVISOR:
		return "H";
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return "G";
	case PERF_RECORD_MISC_GUEST_USER:
		return "g";
	default:
		return "?";
	}
}

static void csv_line_header(FILE *f, bool objects)
{
	const char *name;
	unsigned int i;

	fprintf(f, "rank,addr,pid");
	for (i = 0; (name = pebs_c2c_stats__field(NULL, i, NULL)); i++)
		fprintf(f, ",%s", name);
	fprintf(f, ",records,loads,llc_misses,unknown,xwrites,mean_load_weight,"
	       "pa_cnt,nodes,threads,offsets,cpus,sharing,pid_a,tid_a,off_a,"
	       "pid_b,tid_b,off_b,also_false,false_pid_a,false_tid_a,"
	       "false_off_a,false_pid_b,false_tid_b,false_off_b,"
	       "cpumode,level,dso,key_pid,al_line%s\n",
	       objects ? ",data_object,data_object_instance,data_objects" : "");
}

static void csv_pair(FILE *f, bool set, const struct pebs_c2c_evidence *e)
{
	if (!set)
		fprintf(f, ",,,,,,");
	else
		fprintf(f, ",%u,%u,%u,%u,%u,%u", e->pid_a, e->tid_a, e->off_a,
		       e->pid_b, e->tid_b, e->off_b);
}

static int csv_line(const struct pebs_c2c_line *l, void *arg)
{
	const struct pebs_c2c_evidence *e = &l->evidence;
	struct c2c_pr *m = arg;
	struct pebs_c2c_dkey k;
	char nb[160], pb[16];
	unsigned int i;
	FILE *f = m->f;
	uint64_t v;

	fprintf(f, "%u,0x%" PRIx64 ",%u", l->rank, l->addr, l->pid);
	for (i = 0; pebs_c2c_stats__field(&l->stats, i, &v); i++)
		fprintf(f, ",%" PRIu64, v);
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%.1f,%" PRIu64 ",\"%s\",%u,%u,%u,%s",
	       pebs_c2c_stats__records(&l->stats),
	       pebs_c2c_stats__loads(&l->stats),
	       pebs_c2c_stats__llc_misses(&l->stats), l->unknown, l->xwrites,
	       c2c_mean(l->load_weight, l->load_weight_n), l->phys_addrs,
	       l->nodes ? c2c_nodes_str(l->nodes, nb, sizeof(nb)) : "",
	       l->nr_threads, l->nr_offsets, l->nr_cpus,
	       pebs_c2c_sharing__name(l->sharing));
	csv_pair(f, l->sharing != PEBS_C2C_PRIVATE, e);
	fprintf(f, ",%d", l->also_false);
	csv_pair(f, l->also_false, &l->false_evidence);
	pebs_c2c__line_key(m->c2c, l->id, &k);
	fprintf(f, ",%s,%c,%s,%s,%016" PRIx64, cpumode_name(k.cpumode),
	       k.level, c2c_dso_str(&k, nb, sizeof(nb)),
	       k.by_pid ? (snprintf(pb, sizeof(pb), "%u", k.pid), pb) : "-",
	       k.al_addr);
	if (m->o.objects && l->object) {
		fputc(',', f);
		pebs_csv__str(f, l->object);
		fputc(',', f);
		pebs_csv__str(f, l->object_inst);
		fprintf(f, ",%u", l->nr_objects);
	} else if (m->o.objects) {
		fputs(",,,", f);
	}
	fputc('\n', f);
	return 0;
}

/* ---- the detail table: one row per (line, offset, code address) -------- */

struct csv_walk {
	struct c2c_pr *m;
	const struct pebs_c2c_line *l;
	const struct pebs_c2c_offset *o;
	char *threads, *cpus;	/* the offset's lists, space separated */
};

static int csv_thread(const struct pebs_c2c_thread *t, void *arg)
{
	FILE *f = arg;

	fprintf(f, "%s%u/%u:%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64,
		ftell(f) ? " " : "", t->pid, t->tid, t->loads, t->stores,
		t->unknown, t->hitm);
	return 0;
}

static int csv_cpu(const struct pebs_c2c_cpu *c, void *arg)
{
	FILE *f = arg;

	fprintf(f, "%s%u:%" PRIu64, ftell(f) ? " " : "", c->cpu, c->samples);
	return 0;
}

static int csv_ip(const struct pebs_c2c_ip *ip, void *arg)
{
	struct csv_walk *w = arg;
	const char *dso, *name;
	char sym[8192], nb[160];
	FILE *f = w->m->f;
	unsigned int i;
	uint64_t v;

	c2c_code_str(w->m, ip->pid, ip->ip, sym, sizeof(sym), &dso);
	fprintf(f, "%u,0x%" PRIx64 ",%u,0x%" PRIx64 ",%d,", w->l->rank,
	       w->l->addr, w->o->offset, ip->ip, ip->ip >= 1ULL << 63);
	pebs_csv__str(f, sym + 4);	/* without the "[.] " mark */
	fputc(',', f);
	pebs_csv__str(f, dso);
	fputc(',', f);
	pebs_csv__str(f, c2c_src_str(w->m, ip->pid, ip->ip));
	fprintf(f, ",%" PRIu64 ",%" PRIu64,
	       pebs_c2c_stats__records(&ip->stats) + ip->unknown, ip->unknown);
	for (i = 0; (name = pebs_c2c_stats__field(&ip->stats, i, &v)); i++)
		fprintf(f, ",%" PRIu64, v);
	fprintf(f, ",%.1f,%.1f,%.1f,%" PRIu64 ",\"%s\",%u,\"%s\",\"%s\"\n",
	       c2c_mean(ip->rmt_hitm_w, ip->rmt_hitm_n),
	       c2c_mean(ip->lcl_hitm_w, ip->lcl_hitm_n),
	       c2c_mean(ip->load_w, ip->load_n), ip->pa_cnt,
	       ip->nodes ? c2c_nodes_str(ip->nodes, nb, sizeof(nb)) : "",
	       ip->nr_cpus, w->threads, w->cpus);
	return 0;
}

/* the offset's thread and CPU lists, whole, for each of its rows */
static int csv_offset(const struct pebs_c2c_offset *o, void *arg)
{
	struct csv_walk *w = arg;
	size_t tlen, clen;
	FILE *t, *c;
	int err = -1;

	w->o = o;
	w->threads = w->cpus = NULL;
	t = open_memstream(&w->threads, &tlen);
	c = open_memstream(&w->cpus, &clen);
	if (t && c) {
		pebs_c2c__for_each_thread(w->m->c2c, o->id, csv_thread, t);
		pebs_c2c__for_each_cpu(w->m->c2c, o->id, csv_cpu, c);
	}
	if (t && !fclose(t) && c && !fclose(c)) {
		err = pebs_c2c__for_each_ip(w->m->c2c, o->id, csv_ip, w);
	} else if (c) {
		fclose(c);
	}
	free(w->threads);
	free(w->cpus);
	return err;
}

static int csv_detail_line(const struct pebs_c2c_line *l, void *arg)
{
	struct csv_walk w = { .m = arg, .l = l };

	return pebs_c2c__for_each_offset(w.m->c2c, l->id, csv_offset, &w);
}

void c2c_print_csv(struct c2c_pr *m)
{
	const char *name;
	FILE *f = m->f;
	unsigned int i;

	if (m->o.format != PEBS_C2C_FORMAT_CSV_DETAIL) {
		csv_line_header(f, m->o.objects);
		pebs_c2c__for_each_line(m->c2c, m->o.show_all, csv_line, m);
		return;
	}
	fprintf(f, "rank,addr,offset,ip,kernel,symbol,object,source,records,"
	       "unknown");
	for (i = 0; (name = pebs_c2c_stats__field(NULL, i, NULL)); i++)
		fprintf(f, ",%s", name);
	fprintf(f, ",mean_rmt_hitm,mean_lcl_hitm,mean_load,pa_cnt,nodes,cpus,"
	       "threads,cpu_samples\n");
	if (pebs_c2c__for_each_line(m->c2c, m->o.show_all, csv_detail_line,
				    m))
		m->failed = true;
}

static void json_stats(FILE *f, const struct pebs_c2c_stats *st)
{
	const char *name;
	unsigned int i;
	uint64_t v;

	fprintf(f, "{");
	for (i = 0; (name = pebs_c2c_stats__field(st, i, &v)); i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", name, v);
	fprintf(f, ",\"records\":%" PRIu64 ",\"loads\":%" PRIu64
	       ",\"llc_misses\":%" PRIu64 "}", pebs_c2c_stats__records(st),
	       pebs_c2c_stats__loads(st), pebs_c2c_stats__llc_misses(st));
}

static int json_ip(const struct pebs_c2c_ip *ip, void *arg)
{
	struct c2c_walk *p = arg;
	unsigned int i, n;
	const char *dso, *src;
	FILE *f = p->m->f;
	char sym[8192];

	c2c_code_str(p->m, ip->pid, ip->ip, sym, sizeof(sym), &dso);
	src = c2c_src_str(p->m, ip->pid, ip->ip);
	fprintf(f, "%s{\"ip\":\"0x%" PRIx64 "\",\"symbol\":", p->m->first ? "" :
	       ",", ip->ip);
	pebs_json__str(f, sym + 4);	/* without the "[.] " mark */
	fprintf(f, ",\"object\":");
	pebs_json__str(f, dso);
	fprintf(f, ",\"source\":");
	if (*src)
		pebs_json__str(f, src);
	else
		fprintf(f, "null");
	fprintf(f, ",\"pa_cnt\":%" PRIu64 ",\"nodes\":[", ip->pa_cnt);
	for (n = 0, i = 0; i < 64; i++)
		if (ip->nodes >> i & 1)
			fprintf(f, "%s%u", n++ ? "," : "", i);
	fprintf(f, "]");
	fprintf(f, ",\"kernel\":%s,\"cpus\":%u,\"unknown\":%" PRIu64
	       ",\"mean_rmt_hitm\":%.1f,\"mean_lcl_hitm\":%.1f"
	       ",\"mean_load\":%.1f,\"stats\":",
	       ip->ip >= 1ULL << 63 ? "true" : "false", ip->nr_cpus,
	       ip->unknown, c2c_mean(ip->rmt_hitm_w, ip->rmt_hitm_n),
	       c2c_mean(ip->lcl_hitm_w, ip->lcl_hitm_n),
	       c2c_mean(ip->load_w, ip->load_n));
	json_stats(f, &ip->stats);
	fprintf(f, "}");
	p->m->first = false;
	return 0;
}

static int json_thread(const struct pebs_c2c_thread *t, void *arg)
{
	struct c2c_pr *m = arg;
	FILE *f = m->f;

	fprintf(f, "%s{\"pid\":%u,\"tid\":%u,\"loads\":%" PRIu64 ",\"stores\":%"
	       PRIu64 ",\"unknown\":%" PRIu64 ",\"hitm\":%" PRIu64 "}",
	       m->first ? "" : ",", t->pid, t->tid, t->loads, t->stores,
	       t->unknown, t->hitm);
	m->first = false;
	return 0;
}

static int json_cpu(const struct pebs_c2c_cpu *c, void *arg)
{
	struct c2c_pr *m = arg;
	FILE *f = m->f;

	fprintf(f, "%s{\"cpu\":%u,\"samples\":%" PRIu64 "}", m->first ? "" : ",",
	       c->cpu, c->samples);
	m->first = false;
	return 0;
}

static int json_offset(const struct pebs_c2c_offset *o, void *arg)
{
	struct c2c_walk *p = arg;
	struct c2c_pr *m = p->m;
	FILE *f = m->f;

	fprintf(f, "%s{\"offset\":%u,\"sharing\":\"%s\",\"unknown\":%" PRIu64
	       ",\"stats\":", p->more ? "," : "", o->offset,
	       pebs_c2c_sharing__name(o->sharing), o->unknown);
	p->more = true;
	json_stats(f, &o->stats);
	fprintf(f, ",\"ips\":[");
	m->first = true;
	pebs_c2c__for_each_ip(m->c2c, o->id, json_ip, p);
	fprintf(f, "],\"threads\":[");
	m->first = true;
	pebs_c2c__for_each_thread(m->c2c, o->id, json_thread, m);
	fprintf(f, "],\"cpus\":[");
	m->first = true;
	pebs_c2c__for_each_cpu(m->c2c, o->id, json_cpu, m);
	fprintf(f, "]}");
	return 0;
}

static void json_pair(FILE *f, const char *name, const struct pebs_c2c_evidence *e)
{
	fprintf(f, ",\"%s\":{\"a\":{\"pid\":%u,\"tid\":%u,\"offset\":%u,"
	       "\"writes\":true},\"b\":{\"pid\":%u,\"tid\":%u,"
	       "\"offset\":%u,\"writes\":%s}}", name, e->pid_a, e->tid_a,
	       e->off_a, e->pid_b, e->tid_b, e->off_b,
	       e->b_writes ? "true" : "false");
}

static int json_line(const struct pebs_c2c_line *l, void *arg)
{
	struct c2c_walk p = { .m = arg, .line = l };
	const struct pebs_c2c_evidence *e = &l->evidence;
	struct pebs_c2c_dkey k;
	FILE *f = p.m->f;
	unsigned int i, n;
	char db[96];

	fprintf(f, "%s\n{\"rank\":%u,\"addr\":\"0x%" PRIx64 "\",\"pid\":%u,"
	       "\"unknown\":%" PRIu64 ",\"xwrites\":%" PRIu64
	       ",\"mean_load_weight\":%.1f,\"pa_cnt\":%" PRIu64
	       ",\"threads\":%u,\"cpus\":%u,\"sharing\":\"%s\"",
	       l->rank ? "," : "", l->rank, l->addr, l->pid, l->unknown,
	       l->xwrites, c2c_mean(l->load_weight, l->load_weight_n),
	       l->phys_addrs, l->nr_threads, l->nr_cpus,
	       pebs_c2c_sharing__name(l->sharing));
	fprintf(f, ",\"nodes\":[");
	for (n = 0, i = 0; i < 64; i++)
		if (l->nodes >> i & 1)
			fprintf(f, "%s%u", n++ ? "," : "", i);
	fprintf(f, "]");
	pebs_c2c__line_key(p.m->c2c, l->id, &k);
	fprintf(f, ",\"key\":{\"cpumode\":\"%s\",\"level\":\"%c\",\"dso\":"
	       "\"%s\",\"by_pid\":%s,\"pid\":%u,\"al_line\":\"0x%" PRIx64
	       "\"}", cpumode_name(k.cpumode), k.level,
	       c2c_dso_str(&k, db, sizeof(db)), k.by_pid ? "true" : "false",
	       k.pid, k.al_addr);
	if (l->object) {
		fprintf(f, ",\"data_object\":");
		pebs_json__str(f, l->object);
		fprintf(f, ",\"data_object_instance\":");
		pebs_json__str(f, l->object_inst);
		fprintf(f, ",\"data_objects\":%u", l->nr_objects);
	}
	if (l->sharing != PEBS_C2C_PRIVATE)
		json_pair(f, "evidence", e);
	if (l->also_false)
		json_pair(f, "false_evidence", &l->false_evidence);
	fprintf(f, ",\"stats\":");
	json_stats(f, &l->stats);
	fprintf(f, ",\"offsets\":[");
	pebs_c2c__for_each_offset(p.m->c2c, l->id, json_offset, &p);
	fprintf(f, "]}");
	return 0;
}

void c2c_print_json(struct c2c_pr *m)
{
	struct pebs_c2c_stats sh;
	unsigned int n = pebs_c2c__shared(m->c2c, &sh);
	FILE *f = m->f;

	fprintf(f, "{\"file\":");
	if (m->o.path)
		pebs_json__str(f, m->o.path);
	else
		fputs("null", f);
	fprintf(f, ",\"sort\":");
	pebs_json__str(f, c2c_display_name[m->c2c->display]);
	fprintf(f, ",\"has_data_src\":%s,\"undecoded\":%" PRIu64 ",\"totals\":",
	       pebs_c2c__has_data_src(m->c2c) ? "true" : "false", m->o.undecoded);
	json_stats(f, pebs_c2c__stats(m->c2c));
	fprintf(f, ",\"shared_lines\":%u,\"shared\":", n);
	json_stats(f, &sh);
	fprintf(f, ",\"lines\":[");
	pebs_c2c__for_each_line(m->c2c, m->o.show_all, json_line, m);
	fprintf(f, "]}\n");
}

