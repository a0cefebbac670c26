// SPDX-License-Identifier: MIT
/*
 * c2c-stats.c - count a sample's data source the way perf c2c does
 * (c2c_decode_stats, c2c_add_stats in tools/perf/util/mem-events.c, and
 * the derived totals of tools/perf/builtin-c2c.c; perf 6.1). In decode
 * (below c2c and objects): c2c's lines and the data objects' local and
 * remote accesses count with it.
 */
#include <errno.h>
#include <stddef.h>

#include "pebsshim/decode.h"
#include "core/internal.h"

#ifndef PERF_MEM_SNOOPX_PEER
#define PERF_MEM_SNOOPX_PEER	0x02
#endif
#ifndef PERF_MEM_BLK_DATA
#define PERF_MEM_BLK_DATA	0x02
#define PERF_MEM_BLK_ADDR	0x04
#endif

#define P(a, b) PERF_MEM_##a##_##b

static void c2c_load(struct pebs_c2c_stats *st, uint64_t lvl,
		     uint64_t snoop, uint64_t snoopx, bool mrem)
{
	if (lvl & P(LVL, HIT)) {
		if (lvl & P(LVL, UNC))
			st->ld_uncache++;
		if (lvl & P(LVL, IO))
			st->ld_io++;
		if (lvl & P(LVL, LFB))
			st->ld_fbhit++;
		if (lvl & P(LVL, L1))
			st->ld_l1hit++;
		if (lvl & P(LVL, L2)) {
			st->ld_l2hit++;
			if (snoopx & P(SNOOPX, PEER)) {
				st->lcl_peer++;
				st->tot_peer++;
			}
		}
		if (lvl & P(LVL, L3)) {
			if (snoop & P(SNOOP, HITM)) {
				st->lcl_hitm++;
				st->tot_hitm++;
			} else {
				st->ld_llchit++;
			}
			if (snoopx & P(SNOOPX, PEER)) {
				st->lcl_peer++;
				st->tot_peer++;
			}
		}
		if (lvl & P(LVL, LOC_RAM)) {
			st->lcl_dram++;
			if (snoop & P(SNOOP, HIT))
				st->ld_shared++;
			else
				st->ld_excl++;
		}
		if ((lvl & P(LVL, REM_RAM1)) || (lvl & P(LVL, REM_RAM2)) ||
		    mrem) {
			st->rmt_dram++;
			if (snoop & P(SNOOP, HIT))
				st->ld_shared++;
			else
				st->ld_excl++;
		}
	}
	if ((lvl & P(LVL, REM_CCE1)) || (lvl & P(LVL, REM_CCE2)) || mrem) {
		if (snoop & P(SNOOP, HIT)) {
			st->rmt_hit++;
		} else if (snoop & P(SNOOP, HITM)) {
			st->rmt_hitm++;
			st->tot_hitm++;
		} else if (snoopx & P(SNOOPX, PEER)) {
			st->rmt_hit++;
			st->rmt_peer++;
			st->tot_peer++;
		}
	}
	if (lvl & P(LVL, MISS))
		st->ld_miss++;
}

int pebs_c2c_stats__add_sample(struct pebs_c2c_stats *st, uint64_t data_src,
			       uint64_t addr, bool mapped)
{
	union perf_mem_data_src d = { .val = data_src };
	/* perf: mem_remote without mem_hops (POWER uses hops for "remote") */
	bool mrem = d.mem_remote && !d.mem_hops;

	st->nr_entries++;
	if (d.mem_lock & P(LOCK, LOCKED))
		st->locks++;
	if (d.mem_blk & P(BLK, DATA))
		st->blk_data++;
	if (d.mem_blk & P(BLK, ADDR))
		st->blk_addr++;

	if (d.mem_op & P(OP, LOAD)) {
		st->load++;
		if (!addr) {
			st->ld_noadrs++;
			return -EINVAL;
		}
		c2c_load(st, d.mem_lvl, d.mem_snoop, d.mem_snoopx, mrem);
	} else if (d.mem_op & P(OP, STORE)) {
		st->store++;
		if (!addr) {
			st->st_noadrs++;
			return -EINVAL;
		}
		if (d.mem_lvl & P(LVL, HIT)) {
			if (d.mem_lvl & P(LVL, UNC))
				st->st_uncache++;
			if (d.mem_lvl & P(LVL, L1))
				st->st_l1hit++;
		}
		if ((d.mem_lvl & P(LVL, MISS)) && (d.mem_lvl & P(LVL, L1)))
			st->st_l1miss++;
		if (d.mem_lvl & P(LVL, NA))
			st->st_na++;
	} else {
		st->noparse++;
		return -EINVAL;
	}
	if (!mapped) {
		st->nomap++;
		return -EINVAL;
	}
	return 0;
}

#undef P

void pebs_c2c_stats__sum(struct pebs_c2c_stats *st,
			 const struct pebs_c2c_stats *add)
{
	uint64_t *dst = (uint64_t *)st;
	const uint64_t *src = (const uint64_t *)add;
	size_t i;

	/* every member is a uint64_t counter */
	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		dst[i] += src[i];
}

uint64_t pebs_c2c_stats__llc_misses(const struct pebs_c2c_stats *st)
{
	return st->lcl_dram + st->rmt_dram + st->rmt_hitm + st->rmt_hit;
}

uint64_t pebs_c2c_stats__loads(const struct pebs_c2c_stats *st)
{
	return pebs_c2c_stats__llc_misses(st) + st->ld_fbhit + st->ld_l1hit +
	       st->ld_l2hit + st->ld_llchit + st->lcl_hitm;
}

uint64_t pebs_c2c_stats__records(const struct pebs_c2c_stats *st)
{
	return pebs_c2c_stats__loads(st) + st->st_l1hit + st->st_l1miss +
	       st->st_na;
}

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

const char *pebs_c2c_stats__field(const struct pebs_c2c_stats *st,
				  unsigned int i, uint64_t *v)
{
	if (i >= ARRAY_SIZE(fields))
		return NULL;
	if (st && v)
		memcpy(v, (const char *)st + fields[i].off, sizeof(*v));
	return fields[i].name;
}
