// SPDX-License-Identifier: MIT
/*
 * test-c2c.c - pebs_c2c: every counter branch of perf's
 * c2c_decode_stats (tools/perf/util/mem-events.c, perf 6.1) with
 * synthetic data_src values, the line ranking and display filter of
 * perf c2c report, the walks, true/false sharing (the real fixtures:
 * test-c2c-read.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

#define LD	PERF_MEM_OP_LOAD
#define ST	PERF_MEM_OP_STORE
#define LV(x)	PERF_MEM_LVL_##x
#define SN(x)	PERF_MEM_SNOOP_##x

/* a data_src from its fields */
static uint64_t src(unsigned int op, unsigned int lvl, unsigned int snoop,
		    unsigned int snoopx, unsigned int lock, unsigned int blk,
		    unsigned int remote, unsigned int hops)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = op;
	d.mem_lvl = lvl;
	d.mem_snoop = snoop;
	d.mem_snoopx = snoopx;
	d.mem_lock = lock;
	d.mem_blk = blk;
	d.mem_remote = remote;
	d.mem_hops = hops;
	return d.val;
}

#define SRC(op, lvl, snoop) src(op, lvl, snoop, 0, 0, 0, 0, 0)

/* Count one sample; compare every counter with @want (nr_entries = 1). */
static void check(uint64_t data_src, uint64_t addr, bool mapped, int ret,
		  struct pebs_c2c_stats want)
{
	struct pebs_c2c_stats st;

	memset(&st, 0, sizeof(st));
	want.nr_entries = 1;
	assert_int_equal(pebs_c2c_stats__add_sample(&st, data_src, addr,
						    mapped), ret);
	assert_memory_equal(&st, &want, sizeof(st));
}

#define C(...) ((struct pebs_c2c_stats){ __VA_ARGS__ })
#define A 0x1000	/* a data address */

static void test_loads(void **state)
{
	(void)state;
	check(SRC(LD, LV(HIT) | LV(L1), SN(NONE)), A, true, 0,
	      C(.load = 1, .ld_l1hit = 1));
	check(SRC(LD, LV(HIT) | LV(L1), SN(NONE)), 0, true, -EINVAL,
	      C(.load = 1, .ld_noadrs = 1));
	check(SRC(LD, LV(HIT) | LV(UNC), 0), A, true, 0,
	      C(.load = 1, .ld_uncache = 1));
	check(SRC(LD, LV(HIT) | LV(IO), 0), A, true, 0,
	      C(.load = 1, .ld_io = 1));
	check(SRC(LD, LV(HIT) | LV(LFB), 0), A, true, 0,
	      C(.load = 1, .ld_fbhit = 1));
	check(SRC(LD, LV(HIT) | LV(L2), 0), A, true, 0,
	      C(.load = 1, .ld_l2hit = 1));
	check(src(LD, LV(HIT) | LV(L2), 0, PERF_MEM_SNOOPX_PEER, 0, 0, 0, 0),
	      A, true, 0,
	      C(.load = 1, .ld_l2hit = 1, .lcl_peer = 1, .tot_peer = 1));
	check(SRC(LD, LV(HIT) | LV(L3), SN(HITM)), A, true, 0,
	      C(.load = 1, .lcl_hitm = 1, .tot_hitm = 1));
	check(SRC(LD, LV(HIT) | LV(L3), SN(HIT)), A, true, 0,
	      C(.load = 1, .ld_llchit = 1));
	check(src(LD, LV(HIT) | LV(L3), 0, PERF_MEM_SNOOPX_PEER, 0, 0, 0, 0),
	      A, true, 0,
	      C(.load = 1, .ld_llchit = 1, .lcl_peer = 1, .tot_peer = 1));
	check(SRC(LD, LV(HIT) | LV(LOC_RAM), SN(HIT)), A, true, 0,
	      C(.load = 1, .lcl_dram = 1, .ld_shared = 1));
	check(SRC(LD, LV(HIT) | LV(LOC_RAM), SN(NONE)), A, true, 0,
	      C(.load = 1, .lcl_dram = 1, .ld_excl = 1));
	check(SRC(LD, LV(HIT) | LV(REM_RAM1), SN(NONE)), A, true, 0,
	      C(.load = 1, .rmt_dram = 1, .ld_excl = 1));
	check(SRC(LD, LV(HIT) | LV(REM_RAM2), SN(HIT)), A, true, 0,
	      C(.load = 1, .rmt_dram = 1, .ld_shared = 1));
	/* remote cache: counted with or without the HIT bit */
	check(SRC(LD, LV(REM_CCE1), SN(HIT)), A, true, 0,
	      C(.load = 1, .rmt_hit = 1));
	check(SRC(LD, LV(HIT) | LV(REM_CCE2), SN(HITM)), A, true, 0,
	      C(.load = 1, .rmt_hitm = 1, .tot_hitm = 1));
	check(src(LD, LV(REM_CCE1), 0, PERF_MEM_SNOOPX_PEER, 0, 0, 0, 0),
	      A, true, 0,
	      C(.load = 1, .rmt_hit = 1, .rmt_peer = 1, .tot_peer = 1));
	check(SRC(LD, LV(REM_CCE1), SN(NONE)), A, true, 0, C(.load = 1));
	check(SRC(LD, LV(MISS) | LV(L3), SN(NONE)), A, true, 0,
	      C(.load = 1, .ld_miss = 1));
}

/*
 * mem_remote without mem_hops (Skylake's unknown remote level) counts as
 * remote DRAM and remote cache at once, besides its level: perf's rule.
 */
static void test_remote_bit(void **state)
{
	(void)state;
	check(src(LD, LV(HIT) | LV(L3), SN(HITM), 0, 0, 0, 1, 0), A, true, 0,
	      C(.load = 1, .lcl_hitm = 1, .rmt_dram = 1, .ld_excl = 1,
		.rmt_hitm = 1, .tot_hitm = 2));
	check(src(LD, LV(HIT) | LV(L3), SN(HIT), 0, 0, 0, 1, 0), A, true, 0,
	      C(.load = 1, .ld_llchit = 1, .rmt_dram = 1, .ld_shared = 1,
		.rmt_hit = 1));
	/* with hops (POWER: another core of the node) it is not */
	check(src(LD, LV(HIT) | LV(L3), SN(HIT), 0, 0, 0, 1, 1), A, true, 0,
	      C(.load = 1, .ld_llchit = 1));
}

static void test_stores_and_others(void **state)
{
	(void)state;
	check(SRC(ST, LV(HIT) | LV(L1), 0), A, true, 0,
	      C(.store = 1, .st_l1hit = 1));
	check(SRC(ST, LV(HIT) | LV(UNC), 0), A, true, 0,
	      C(.store = 1, .st_uncache = 1));
	check(SRC(ST, LV(MISS) | LV(L1), 0), A, true, 0,
	      C(.store = 1, .st_l1miss = 1));
	check(SRC(ST, LV(MISS) | LV(L2), 0), A, true, 0, C(.store = 1));
	check(SRC(ST, LV(NA), 0), A, true, 0, C(.store = 1, .st_na = 1));
	check(SRC(ST, LV(HIT) | LV(L1), 0), 0, true, -EINVAL,
	      C(.store = 1, .st_noadrs = 1));
	/* neither load nor store: unparsable, before the map check */
	check(SRC(PERF_MEM_OP_NA, LV(NA), SN(NA)), A, false, -EINVAL,
	      C(.noparse = 1));
	check(SRC(PERF_MEM_OP_PFETCH, LV(HIT) | LV(L1), 0), A, true, -EINVAL,
	      C(.noparse = 1));
	check(0, A, true, -EINVAL, C(.noparse = 1));
	/* not mapped: counted, then nomap */
	check(SRC(LD, LV(HIT) | LV(L1), 0), A, false, -EINVAL,
	      C(.load = 1, .ld_l1hit = 1, .nomap = 1));
	check(SRC(ST, LV(HIT) | LV(L1), 0), A, false, -EINVAL,
	      C(.store = 1, .st_l1hit = 1, .nomap = 1));
	/* lock and block bits whatever the op */
	check(src(PERF_MEM_OP_NA, 0, 0, 0, PERF_MEM_LOCK_LOCKED,
		  PERF_MEM_BLK_DATA | PERF_MEM_BLK_ADDR, 0, 0), A, true,
	      -EINVAL, C(.locks = 1, .blk_data = 1, .blk_addr = 1,
			 .noparse = 1));
}

static void test_sum_and_derived(void **state)
{
	struct pebs_c2c_stats a, b;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	pebs_c2c_stats__add_sample(&a, SRC(LD, LV(HIT) | LV(LOC_RAM), 0), A,
				   true);
	pebs_c2c_stats__add_sample(&a, SRC(LD, LV(HIT) | LV(L1), 0), A, true);
	pebs_c2c_stats__add_sample(&a, SRC(LD, LV(HIT) | LV(L3), SN(HITM)), A,
				   true);
	pebs_c2c_stats__add_sample(&b, SRC(LD, LV(REM_CCE1), SN(HITM)), A,
				   true);
	pebs_c2c_stats__add_sample(&b, SRC(ST, LV(HIT) | LV(L1), 0), A, true);
	pebs_c2c_stats__add_sample(&b, SRC(ST, LV(NA), 0), A, true);
	pebs_c2c_stats__add_sample(&b, SRC(LD, LV(HIT) | LV(L1), 0), 0, true);
	pebs_c2c_stats__sum(&a, &b);
	assert_int_equal(a.nr_entries, 7);
	assert_int_equal(a.load, 5);
	assert_int_equal(a.tot_hitm, 2);
	/* llc misses: lcl_dram + rmt_hitm */
	assert_int_equal(pebs_c2c_stats__llc_misses(&a), 2);
	/* loads: + l1hit + lcl_hitm (not the load without address) */
	assert_int_equal(pebs_c2c_stats__loads(&a), 4);
	assert_int_equal(pebs_c2c_stats__records(&a), 6);
}

/* ---- the table ---------------------------------------------------------- */

static void add(struct pebs_c2c *c, uint64_t addr, uint64_t ip, uint64_t dsrc,
		uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t weight)
{
	struct pebs_c2c_sample s = {
		.addr = addr, .ip = ip, .data_src = dsrc, .has_data_src = true,
		.pid = pid, .tid = tid, .cpu = cpu, .weight = weight,
		.mapped = true,
	};

	assert_int_equal(pebs_c2c__add(c, &s), 0);
}

#define HITM_R	SRC(LD, LV(HIT) | LV(REM_CCE1), SN(HITM))
#define HITM_L	SRC(LD, LV(HIT) | LV(L3), SN(HITM))
#define L1LD	SRC(LD, LV(HIT) | LV(L1), SN(NONE))
#define L1ST	SRC(ST, LV(HIT) | LV(L1), 0)

struct seen {
	unsigned int n;
	uint64_t addr[16];
	uint32_t id[16];
	struct pebs_c2c_line line[16];
};

static int see_line(const struct pebs_c2c_line *l, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 16);
	assert_int_equal(l->rank, s->n);
	s->addr[s->n] = l->addr;
	s->id[s->n] = l->id;
	s->line[s->n++] = *l;
	return 0;
}

static struct seen lines(struct pebs_c2c *c, bool all)
{
	struct seen s = { .n = 0 };

	assert_int_equal(pebs_c2c__for_each_line(c, all, see_line, &s), 0);
	return s;
}

static void test_ranking(void **state)
{
	struct pebs_c2c *c;
	struct pebs_c2c_stats sh;
	struct seen s;
	int i;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	/* line 0x2000: 1 remote + 2 local HITM; 0x1000: 3 local */
	add(c, 0x2008, 0x400, HITM_R, 1, 1, 0, 300);
	add(c, 0x2010, 0x400, HITM_L, 1, 2, 1, 100);
	add(c, 0x2010, 0x404, HITM_L, 1, 2, 1, 100);
	for (i = 0; i < 3; i++)
		add(c, 0x1000, 0x500, HITM_L, 1, 1, 0, 50);
	/* 0x3000: stores and loads only: not shared, not shown */
	add(c, 0x3000, 0x600, L1ST, 1, 1, 0, 0);
	add(c, 0x3000, 0x600, L1LD, 1, 2, 1, 0);
	/* no address: totals only */
	add(c, 0, 0x600, L1LD, 1, 2, 1, 0);
	assert_int_equal(pebs_c2c__stats(c)->nr_entries, 9);
	assert_int_equal(pebs_c2c__stats(c)->ld_noadrs, 1);

	/* the for_each walks need a sort first */
	assert_int_equal(pebs_c2c__for_each_line(c, false, see_line, &s),
			 -EINVAL);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 2);
	assert_int_equal(pebs_c2c__shared(c, &sh), 2);
	assert_int_equal(sh.tot_hitm, 6);
	assert_int_equal(sh.load, 6);
	/* equal total HITM: by address */
	s = lines(c, false);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.addr[0], 0x1000);
	assert_int_equal(s.addr[1], 0x2000);
	s = lines(c, true);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.addr[2], 0x3000);
	assert_int_equal(s.line[2].stats.store, 1);
	assert_int_equal(s.line[0].nr_offsets, 1);
	assert_int_equal(s.line[1].nr_offsets, 2);
	assert_int_equal(s.line[1].load_weight, 500);
	assert_int_equal(s.line[1].load_weight_n, 3);

	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_RMT_HITM), 1);
	s = lines(c, false);
	assert_int_equal(s.addr[0], 0x2000);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_LCL_HITM), 2);
	s = lines(c, false);
	assert_int_equal(s.addr[0], 0x1000);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_PEER), 0);

	/* adding unsorts; 0.1 % filter: 1 HITM among > 1000 is hidden */
	for (i = 0; i < 1000; i++)
		add(c, 0x1000, 0x500, HITM_L, 1, 1, 0, 50);
	add(c, 0x9000, 0x500, HITM_L, 1, 1, 0, 50);
	assert_int_equal(pebs_c2c__for_each_line(c, false, see_line, &s),
			 -EINVAL);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 2);
	assert_int_equal(pebs_c2c__shared(c, NULL), 3);
	pebs_c2c__delete(c);
	pebs_c2c__delete(NULL);
}

/* ---- offsets, code addresses, threads, CPUs --------------------------- */

struct walk {
	struct pebs_c2c *c;
	char log[512];
};

static void logf_(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logf_(struct walk *w, const char *fmt, ...)
{
	size_t n = strlen(w->log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->log + n, sizeof(w->log) - n, fmt, ap);
	va_end(ap);
}

static int w_ip(const struct pebs_c2c_ip *ip, void *arg)
{
	logf_(arg, " ip%llx:%llu/%llu/%u", (unsigned long long)ip->ip,
	      (unsigned long long)ip->stats.tot_hitm,
	      (unsigned long long)ip->rmt_hitm_w, ip->nr_cpus);
	return 0;
}

static int w_thread(const struct pebs_c2c_thread *t, void *arg)
{
	logf_(arg, " t%u/%u:%lluL%lluS%lluH", t->pid, t->tid,
	      (unsigned long long)t->loads, (unsigned long long)t->stores,
	      (unsigned long long)t->hitm);
	return 0;
}

static int w_cpu(const struct pebs_c2c_cpu *cpu, void *arg)
{
	logf_(arg, " c%u:%llu", cpu->cpu, (unsigned long long)cpu->samples);
	return 0;
}

static int w_offset(const struct pebs_c2c_offset *o, void *arg)
{
	struct walk *w = arg;

	logf_(w, "[%u:%u]", o->offset, o->nr_ips);
	assert_int_equal(pebs_c2c__for_each_ip(w->c, o->id, w_ip, w), 0);
	assert_int_equal(pebs_c2c__for_each_thread(w->c, o->id, w_thread, w),
			 0);
	assert_int_equal(pebs_c2c__for_each_cpu(w->c, o->id, w_cpu, w), 0);
	return 0;
}

static int stop_at_first(const struct pebs_c2c_offset *o, void *arg)
{
	(void)o;
	(void)arg;
	return 42;
}

static void test_walks(void **state)
{
	struct walk w = { .log = "" };
	struct pebs_c2c *c;
	struct seen s;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	w.c = c;
	add(c, 0x2008, 0x500, L1LD, 7, 9, 3, 0);
	add(c, 0x2008, 0x400, HITM_R, 7, 8, 2, 300);
	add(c, 0x2008, 0x400, HITM_R, 7, 8, 5, 100);
	add(c, 0x2008, 0x300, L1ST, 7, 8, 2, 0);
	add(c, 0x2000, 0x300, L1ST, 7, 8, 2, 0);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 1);
	s = lines(c, false);
	assert_int_equal(s.line[0].nr_threads, 2);
	assert_int_equal(s.line[0].nr_cpus, 3);
	assert_int_equal(pebs_c2c__for_each_offset(c, s.id[0], w_offset, &w),
			 0);
	/* code addresses: HITM first, then by address */
	assert_string_equal(w.log,
		"[0:1] ip300:0/0/1 t7/8:0L1S0H c2:1"
		"[8:3] ip400:2/400/2 ip300:0/0/1 ip500:0/0/1"
		" t7/8:2L1S2H t7/9:1L0S0H c2:2 c3:1 c5:1");
	assert_int_equal(pebs_c2c__for_each_offset(c, s.id[0], stop_at_first,
						   NULL), 42);
	assert_int_equal(pebs_c2c__for_each_offset(c, 999, w_offset, &w),
			 -EINVAL);
	assert_int_equal(pebs_c2c__for_each_ip(c, 999, w_ip, &w), -EINVAL);
	assert_int_equal(pebs_c2c__for_each_thread(c, 999, w_thread, &w),
			 -EINVAL);
	assert_int_equal(pebs_c2c__for_each_cpu(c, 999, w_cpu, &w), -EINVAL);
	pebs_c2c__delete(c);
}

static int get_ip(const struct pebs_c2c_ip *ip, void *arg)
{
	*(struct pebs_c2c_ip *)arg = *ip;
	return 0;
}

struct ip_of {
	struct pebs_c2c *c;
	struct pebs_c2c_ip ip;
};

static int first_offset_ip(const struct pebs_c2c_offset *o, void *arg)
{
	struct ip_of *w = arg;

	return pebs_c2c__for_each_ip(w->c, o->id, get_ip, &w->ip);
}

/* perf's nodeset and PA cnt: changes of the physical address */
static void test_nodes(void **state)
{
	static const struct { uint64_t pa; int32_t node; } in[] = {
		{ 0x5000, 1 }, { 0x5000, 1 }, { 0x9000, 3 }, { 0x5000, 1 },
		{ 0x7000, -1 }, { 0, 2 },
	};
	struct pebs_c2c_sample smp = { .addr = 0x1000, .ip = 1,
				       .has_data_src = true, .data_src = L1LD,
				       .cpu = 0, .mapped = true };
	struct ip_of w = { .c = NULL };
	struct pebs_c2c *c;
	struct seen s;
	size_t i;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		smp.phys_addr = in[i].pa;
		smp.node = (uint32_t)in[i].node;
		smp.has_node = in[i].node >= 0;
		assert_int_equal(pebs_c2c__add(c, &smp), 0);
	}
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 0);
	s = lines(c, true);
	assert_int_equal(s.line[0].nodes, (1 << 1) | (1 << 3));
	assert_int_equal(s.line[0].phys_addrs, 3);
	/* the code address entry keeps its own */
	w.c = c;
	assert_int_equal(pebs_c2c__for_each_offset(c, s.id[0],
						   first_offset_ip, &w), 0);
	assert_int_equal(w.ip.nodes, (1 << 1) | (1 << 3));
	assert_int_equal(w.ip.pa_cnt, 3);
	pebs_c2c__delete(c);
}

/* user lines are per process, kernel lines are not */
static void test_line_keys(void **state)
{
	struct pebs_c2c *c;
	struct seen s;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	add(c, 0x7000, 0x400, HITM_L, 1, 1, 0, 0);
	add(c, 0x7000, 0x400, HITM_L, 2, 2, 0, 0);
	add(c, 0xffff888000001000ULL, 0xffffffff81000000ULL, HITM_L, 1, 1, 0,
	    0);
	add(c, 0xffff888000001000ULL, 0xffffffff81000000ULL, HITM_L, 2, 2, 0,
	    0);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 3);
	s = lines(c, false);
	/* kernel line first: 2 HITM; then pid 1, pid 2 */
	assert_int_equal(s.line[0].pid, 0);
	assert_int_equal(s.line[0].stats.tot_hitm, 2);
	assert_int_equal(s.line[1].pid, 1);
	assert_int_equal(s.line[2].pid, 2);
	pebs_c2c__delete(c);
}

/* a line's process: its pid, or a kernel line's (pid 0) smallest pid of
   the threads of its first offset */
static void test_line_pid(void **state)
{
	struct pebs_c2c *c;
	struct seen s;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	add(c, 0xffff888000001008ULL, 0xffffffff81000000ULL, HITM_L, 1, 1, 0,
	    0);
	add(c, 0xffff888000001000ULL, 0xffffffff81000000ULL, HITM_L, 4, 4, 0,
	    0);
	add(c, 0xffff888000001000ULL, 0xffffffff81000000ULL, HITM_L, 3, 5, 0,
	    0);
	add(c, 0x7000, 0x400, HITM_L, 2, 2, 0, 0);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 2);
	s = lines(c, false);
	assert_int_equal(s.line[0].pid, 0);
	assert_int_equal(pebs_c2c__line_pid(c, &s.line[0]), 3);
	assert_int_equal(s.line[1].pid, 2);
	assert_int_equal(pebs_c2c__line_pid(c, &s.line[1]), 2);
	pebs_c2c__delete(c);
}

/* ---- sharing ------------------------------------------------------------ */

static struct pebs_c2c_line one_line(struct pebs_c2c *c,
				     enum pebs_c2c_display d)
{
	struct seen s;

	assert_true(pebs_c2c__sort(c, d) >= 0);
	s = lines(c, true);
	assert_int_equal(s.n, 1);
	return s.line[0];
}

/* one access of thread @tid (pid 1) at @addr, @size bytes (0: unknown) */
static void acc(struct pebs_c2c *c, uint64_t addr, uint64_t dsrc,
		uint32_t tid, uint8_t size)
{
	struct pebs_c2c_sample s = {
		.addr = addr, .ip = 0x100 + tid, .data_src = dsrc,
		.has_data_src = true, .pid = 1, .tid = tid, .cpu = tid,
		.mapped = true, .size = size,
	};

	assert_int_equal(pebs_c2c__add(c, &s), 0);
}

static void assert_pair(const struct pebs_c2c_evidence *e, uint32_t tid_a,
			unsigned int off_a, uint32_t tid_b, unsigned int off_b,
			bool b_writes)
{
	assert_int_equal(e->tid_a, tid_a);
	assert_int_equal(e->off_a, off_a);
	assert_int_equal(e->tid_b, tid_b);
	assert_int_equal(e->off_b, off_b);
	assert_int_equal(e->b_writes, b_writes);
}

static int see_offset(const struct pebs_c2c_offset *o, void *arg)
{
	enum pebs_c2c_sharing *v = arg;

	v[o->offset] = o->sharing;
	return 0;
}

/* the class of each offset of @l (PRIVATE where nobody accessed) */
static void offset_classes(struct pebs_c2c *c, const struct pebs_c2c_line *l,
			   enum pebs_c2c_sharing v[64])
{
	memset(v, 0, 64 * sizeof(*v));
	assert_int_equal(pebs_c2c__for_each_offset(c, l->id, see_offset, v),
			 0);
}

/* The six cases of issue 23, by the standard definitions. */
static void test_sharing(void **state)
{
	enum pebs_c2c_sharing off[64];
	struct pebs_c2c_line l;
	struct pebs_c2c *c;

	(void)state;
	/* one writer and one reader of the same word: true */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x1008, L1ST, 1, 0);
	acc(c, 0x1008, L1LD, 2, 0);
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_TRUE_SHARING);
	assert_string_equal(pebs_c2c_sharing__name(l.sharing), "true");
	assert_pair(&l.evidence, 1, 8, 2, 8, false);
	assert_false(l.also_false);
	offset_classes(c, &l, off);
	assert_int_equal(off[8], PEBS_C2C_TRUE_SHARING);
	pebs_c2c__delete(c);

	/* two writers of different words: false */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x1000, L1ST, 1, 0);
	acc(c, 0x1008, L1ST, 2, 0);
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_FALSE_SHARING);
	assert_string_equal(pebs_c2c_sharing__name(l.sharing), "false");
	assert_pair(&l.evidence, 1, 0, 2, 8, true);
	assert_false(l.also_false);
	offset_classes(c, &l, off);
	assert_int_equal(off[0], PEBS_C2C_FALSE_SHARING);
	assert_int_equal(off[8], PEBS_C2C_FALSE_SHARING);
	pebs_c2c__delete(c);

	/* a reader of word A and a writer of word B: false */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x1000, L1LD, 1, 0);
	acc(c, 0x1010, L1ST, 2, 0);
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_FALSE_SHARING);
	assert_pair(&l.evidence, 2, 0x10, 1, 0, false);
	pebs_c2c__delete(c);

	/* both: t1 writes A, t2 reads A (true), t3 writes B (false) */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x1000, L1ST, 1, 0);
	acc(c, 0x1000, L1LD, 2, 0);
	acc(c, 0x1020, L1ST, 3, 0);
	acc(c, 0x1020, L1ST, 3, 0);
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_TRUE_FALSE_SHARING);
	assert_string_equal(pebs_c2c_sharing__name(l.sharing), "true+false");
	assert_true(l.also_false);
	assert_pair(&l.evidence, 1, 0, 2, 0, false);
	/* the costliest false pair: t3's two stores with t1's one */
	assert_pair(&l.false_evidence, 1, 0, 3, 0x20, true);
	offset_classes(c, &l, off);
	assert_int_equal(off[0], PEBS_C2C_TRUE_FALSE_SHARING);
	assert_int_equal(off[0x20], PEBS_C2C_FALSE_SHARING);
	pebs_c2c__delete(c);

	/* a single thread, writing and reading every word: none */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x1000, L1ST, 1, 0);
	acc(c, 0x1008, L1ST, 1, 0);
	acc(c, 0x1008, L1LD, 1, 0);
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_PRIVATE);
	assert_string_equal(pebs_c2c_sharing__name(l.sharing), "none");
	assert_int_equal(l.evidence.tid_a, 0);
	pebs_c2c__delete(c);

	/* two threads only reading, the same and different words: none */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x1000, L1LD, 1, 0);
	acc(c, 0x1000, L1LD, 2, 0);
	acc(c, 0x1008, L1LD, 2, 0);
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_PRIVATE);
	offset_classes(c, &l, off);
	assert_int_equal(off[0], PEBS_C2C_PRIVATE);
	pebs_c2c__delete(c);
}

/*
 * The seqlock: one thread stores to four words, six threads load
 * those same words: true sharing only (padding the fields apart would
 * not help), never false.
 */
static void test_sharing_seqlock(void **state)
{
	struct pebs_c2c_line l;
	struct pebs_c2c *c;
	uint32_t t;
	unsigned int o;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	for (o = 0; o < 32; o += 8) {
		acc(c, 0x2000 + o, L1ST, 1, 8);
		for (t = 2; t < 8; t++)
			acc(c, 0x2000 + o, o == 8 && t == 5 ? HITM_L : L1LD,
			    t, 8);
	}
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_TRUE_SHARING);
	/* the evidence: the pair with the HITM */
	assert_pair(&l.evidence, 1, 8, 5, 8, false);
	pebs_c2c__delete(c);
}

/* Access sizes: 8 bytes at 0 overlap a byte at 4; stores win ties. */
static void test_sharing_sizes(void **state)
{
	struct pebs_c2c_line l;
	struct pebs_c2c *c;

	(void)state;
	/* without sizes: bytes 0 and 4 differ, false */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x3000, L1ST, 1, 0);
	acc(c, 0x3004, L1LD, 2, 0);
	assert_int_equal(one_line(c, PEBS_C2C_TOT_HITM).sharing,
			 PEBS_C2C_FALSE_SHARING);
	/* the store was 8 bytes wide: it covers byte 4, true */
	acc(c, 0x3000, L1ST, 1, 8);
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_TRUE_SHARING);
	assert_pair(&l.evidence, 1, 0, 2, 4, false);
	pebs_c2c__delete(c);

	/* a wide access at the end of the line stays in the line */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x303c, L1ST, 1, 16);
	acc(c, 0x303f, L1LD, 2, 0);
	assert_int_equal(one_line(c, PEBS_C2C_TOT_HITM).sharing,
			 PEBS_C2C_TRUE_SHARING);
	pebs_c2c__delete(c);

	/* two true pairs: the one with more stores is the evidence */
	assert_int_equal(pebs_c2c__new(&c), 0);
	acc(c, 0x4000, L1ST, 1, 0);
	acc(c, 0x4000, L1LD, 2, 0);
	acc(c, 0x4010, L1ST, 3, 0);
	acc(c, 0x4010, L1ST, 4, 0);
	l = one_line(c, PEBS_C2C_TOT_HITM);
	assert_int_equal(l.sharing, PEBS_C2C_TRUE_FALSE_SHARING);
	assert_pair(&l.evidence, 3, 0x10, 4, 0x10, true);
	pebs_c2c__delete(c);
}

/* Samples without a data source: unknown kind, ranked by cross-thread
 * writes (memwalk --share: two threads write words of one line). */
static void test_no_data_src(void **state)
{
	struct pebs_c2c_sample s = { .ip = 0x1, .cpu = UINT32_MAX,
				     .mapped = true };
	struct pebs_c2c *c;
	struct seen v;
	int i;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	for (i = 0; i < 3; i++) {
		s.addr = 0x5000;
		s.pid = 10;
		s.tid = 10;
		assert_int_equal(pebs_c2c__add(c, &s), 0);
		s.addr = 0x5008;
		s.tid = 11;
		assert_int_equal(pebs_c2c__add(c, &s), 0);
	}
	/* a private line with more samples */
	for (i = 0; i < 10; i++) {
		s.addr = 0x9000;
		assert_int_equal(pebs_c2c__add(c, &s), 0);
	}
	assert_false(pebs_c2c__has_data_src(c));
	assert_int_equal(pebs_c2c__stats(c)->noparse, 16);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 0);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_XWRITES), 1);
	v = lines(c, true);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.addr[0], 0x5000);
	assert_int_equal(v.line[0].xwrites, 6);
	assert_int_equal(v.line[0].unknown, 6);
	assert_int_equal(v.line[0].nr_cpus, 0);
	assert_int_equal(v.line[0].sharing, PEBS_C2C_FALSE_SHARING);
	assert_true(v.line[0].evidence.b_writes);
	assert_int_equal(v.line[1].xwrites, 0);
	assert_int_equal(v.line[1].sharing, PEBS_C2C_PRIVATE);
	/* lines named by their data objects (pebs_c2c__set_object), which
	   stay through another sort; no line of that id */
	assert_null(v.line[0].object);
	assert_int_equal(v.line[0].nr_objects, 0);
	assert_int_equal(pebs_c2c__set_object(c, v.line[0].id, "site",
					      "site #2", 2), 0);
	assert_int_equal(pebs_c2c__set_object(c, v.line[1].id, "table", NULL,
					      1), 0);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_XWRITES), 1);
	v = lines(c, true);
	assert_string_equal(v.line[0].object, "site");
	assert_string_equal(v.line[0].object_inst, "site #2");
	assert_int_equal(v.line[0].nr_objects, 2);
	assert_string_equal(v.line[1].object_inst, "table");
	assert_int_equal(pebs_c2c__set_object(c, v.line[1].id, NULL, NULL, 1),
			 0);
	v = lines(c, true);
	assert_null(v.line[1].object);
	assert_int_equal(v.line[1].nr_objects, 0);
	assert_int_equal(pebs_c2c__set_object(c, 99, "x", NULL, 1), -EINVAL);
	pebs_c2c__delete(c);
}

static int count_line(const struct pebs_c2c_line *l, void *arg)
{
	unsigned int *n = arg;

	assert_int_equal(l->nr_offsets, 1);
	assert_int_equal(l->stats.nr_entries, 1);
	(*n)++;
	return 0;
}

/* Many keys: the hash grows, nothing is lost. */
static void test_growth(void **state)
{
	struct pebs_c2c *c;
	unsigned int n;
	uint64_t i;

	(void)state;
	assert_int_equal(pebs_c2c__new(&c), 0);
	for (i = 0; i < 50000; i++)
		add(c, 0x100000 + i * 64 + (i & 63), 0x400 + (i & 7),
		    i % 97 ? L1LD : HITM_L, 1, (uint32_t)(i & 15),
		    (uint32_t)(i & 3), 10);
	assert_int_equal(pebs_c2c__stats(c)->nr_entries, 50000);
	assert_int_equal(pebs_c2c__sort(c, PEBS_C2C_TOT_HITM), 516);
	assert_int_equal(pebs_c2c__shared(c, NULL), 516);
	n = 0;
	assert_int_equal(pebs_c2c__for_each_line(c, true, count_line, &n), 0);
	assert_int_equal(n, 50000);
	pebs_c2c__delete(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_remote_bit),
		cmocka_unit_test(test_stores_and_others),
		cmocka_unit_test(test_sum_and_derived),
		cmocka_unit_test(test_ranking),
		cmocka_unit_test(test_walks),
		cmocka_unit_test(test_line_keys),
		cmocka_unit_test(test_line_pid),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_sharing),
		cmocka_unit_test(test_sharing_seqlock),
		cmocka_unit_test(test_sharing_sizes),
		cmocka_unit_test(test_no_data_src),
		cmocka_unit_test(test_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
