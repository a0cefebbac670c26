// SPDX-License-Identifier: MIT
/*
 * data-src.c - decode union perf_mem_data_src the way perf prints it
 * (tools/perf/util/mem-events.c: perf_mem__{op,lvl,snp,tlb,lck,blk}_
 * scnprintf and perf_script__meminfo_scnprintf).
 *
 * The level follows perf >= 6.3: when mem_lvl_num names a level it is
 * used with mem_remote and mem_hops ("Remote node, same socket RAM hit");
 * only otherwise are the old mem_lvl bits listed ("L3 or L3 hit" in
 * perf 6.1 becomes "L3 hit"). Hit/miss always come from mem_lvl.
 */
#include <stdio.h>
#include <string.h>

#include "pebsshim/decode.h"
#include "core/internal.h"

#ifndef PERF_MEM_LVLNUM_UNC
#define PERF_MEM_LVLNUM_UNC 0x08	/* uncached; uapi since 6.7 */
#endif

/* bit i of mem_lvl */
static const char *const mem_lvl[] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
	"Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
	"Remote Cache (2 hops)", "I/O", "Uncached",
};

static const char *const mem_lvlnum[16] = {
	[PERF_MEM_LVLNUM_UNC] = "Uncached",
	[PERF_MEM_LVLNUM_CXL] = "CXL",
	[PERF_MEM_LVLNUM_IO] = "I/O",
	[PERF_MEM_LVLNUM_ANY_CACHE] = "Any cache",
	[PERF_MEM_LVLNUM_LFB] = "LFB/MAB",
	[PERF_MEM_LVLNUM_RAM] = "RAM",
	[PERF_MEM_LVLNUM_PMEM] = "PMEM",
	[PERF_MEM_LVLNUM_NA] = "N/A",
};

static const enum pebs_mem_level lvlnum_level[16] = {
	[PERF_MEM_LVLNUM_L1] = PEBS_MEM_LVL_L1,
	[PERF_MEM_LVLNUM_L2] = PEBS_MEM_LVL_L2,
	[PERF_MEM_LVLNUM_L3] = PEBS_MEM_LVL_L3,
	[PERF_MEM_LVLNUM_L4] = PEBS_MEM_LVL_L4,
	[PERF_MEM_LVLNUM_UNC] = PEBS_MEM_LVL_UNCACHED,
	[PERF_MEM_LVLNUM_CXL] = PEBS_MEM_LVL_CXL,
	[PERF_MEM_LVLNUM_IO] = PEBS_MEM_LVL_IO,
	[PERF_MEM_LVLNUM_ANY_CACHE] = PEBS_MEM_LVL_ANY_CACHE,
	[PERF_MEM_LVLNUM_LFB] = PEBS_MEM_LVL_LFB,
	[PERF_MEM_LVLNUM_RAM] = PEBS_MEM_LVL_RAM,
	[PERF_MEM_LVLNUM_PMEM] = PEBS_MEM_LVL_PMEM,
};

/* bit i of mem_lvl, from L1 (bit 3) on */
static const enum pebs_mem_level lvl_level[] = {
	[3] = PEBS_MEM_LVL_L1, [4] = PEBS_MEM_LVL_LFB, [5] = PEBS_MEM_LVL_L2,
	[6] = PEBS_MEM_LVL_L3, [7] = PEBS_MEM_LVL_RAM, [8] = PEBS_MEM_LVL_RAM,
	[9] = PEBS_MEM_LVL_RAM, [10] = PEBS_MEM_LVL_ANY_CACHE,
	[11] = PEBS_MEM_LVL_ANY_CACHE, [12] = PEBS_MEM_LVL_IO,
	[13] = PEBS_MEM_LVL_UNCACHED,
};

static const char *const mem_hops[] = {
	"N/A", "core, same node", "node, same socket", "socket, same board",
	"board",
};

static const char *const snoop_access[] = { "N/A", "None", "Hit", "Miss",
					    "HitM" };
static const char *const snoopx_access[] = { "Fwd", "Peer" };
static const char *const tlb_access[] = { "N/A", "HIT", "MISS", "L1", "L2",
					  "Walker", "Fault" };

/* A bounded string builder: appends, always NUL-terminated. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *str)
{
	size_t n = strlen(str);

	if (b->len + n >= b->cap)
		n = b->cap - 1 - b->len;
	memcpy(b->s + b->len, str, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* append the names of the set bits of @m, " or " after anything before */
static void sb_bits(struct sbuf *b, uint64_t m, const char *const *names,
		    size_t nr_names)
{
	for (size_t i = 0; m && i < nr_names; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (b->len)
			sb_add(b, " or ");
		sb_add(b, names[i]);
	}
}

static void decode_level(union perf_mem_data_src ds, struct pebs_data_src *d)
{
	struct sbuf b = { d->lvl, 0, sizeof(d->lvl) };
	const char *hit_miss = "";
	unsigned int num = ds.mem_lvl_num;
	uint64_t lvl = ds.mem_lvl;

	d->lvl[0] = '\0';
	d->hit = lvl & PERF_MEM_LVL_HIT;
	d->miss = !d->hit && (lvl & PERF_MEM_LVL_MISS);
	if (d->hit)
		hit_miss = "hit";
	else if (d->miss)
		hit_miss = "miss";
	d->remote = ds.mem_remote;
	d->hops = ds.mem_hops;

	if (num && num != PERF_MEM_LVLNUM_NA) {
		char tmp[8];

		d->level = lvlnum_level[num];
		if (ds.mem_remote)
			sb_add(&b, "Remote ");
		if (ds.mem_hops && ds.mem_hops < ARRAY_SIZE(mem_hops)) {
			sb_add(&b, mem_hops[ds.mem_hops]);
			sb_add(&b, " ");
		}
		if (mem_lvlnum[num]) {
			sb_add(&b, mem_lvlnum[num]);
		} else {
			snprintf(tmp, sizeof(tmp), "L%u", num);
			sb_add(&b, tmp);
		}
		sb_add(&b, " ");
		sb_add(&b, hit_miss);
		return;
	}

	lvl &= ~(uint64_t)(PERF_MEM_LVL_NA | PERF_MEM_LVL_HIT |
			   PERF_MEM_LVL_MISS);
	if (!lvl) {
		d->level = PEBS_MEM_LVL_NA;
		sb_add(&b, "N/A");
		return;
	}
	d->level = lvl_level[__builtin_ctzll(lvl)];
	if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2 |
		   PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		d->remote = true;
	sb_bits(&b, lvl, mem_lvl, ARRAY_SIZE(mem_lvl));
	sb_add(&b, " ");
	sb_add(&b, hit_miss);
}

void pebs_data_src__decode(uint64_t data_src, struct pebs_data_src *d)
{
	union perf_mem_data_src ds = { .val = data_src };
	struct sbuf b;
	uint64_t m;

	memset(d, 0, sizeof(*d));
	d->val = data_src;

	/* op: the first bit wins, as in perf_mem__op_scnprintf */
	m = ds.mem_op;
	d->load = !(m & PERF_MEM_OP_NA) && (m & PERF_MEM_OP_LOAD);
	d->store = !(m & (PERF_MEM_OP_NA | PERF_MEM_OP_LOAD)) &&
		   (m & PERF_MEM_OP_STORE);
	if (m & PERF_MEM_OP_NA)
		strcpy(d->op, "N/A");
	else if (m & PERF_MEM_OP_LOAD)
		strcpy(d->op, "LOAD");
	else if (m & PERF_MEM_OP_STORE)
		strcpy(d->op, "STORE");
	else if (m & PERF_MEM_OP_PFETCH)
		strcpy(d->op, "PFETCH");
	else if (m & PERF_MEM_OP_EXEC)
		strcpy(d->op, "EXEC");
	else
		strcpy(d->op, "No");

	decode_level(ds, d);

	b = (struct sbuf){ d->snoop, 0, sizeof(d->snoop) };
	d->snoop[0] = '\0';
	sb_bits(&b, ds.mem_snoop, snoop_access, ARRAY_SIZE(snoop_access));
	sb_bits(&b, ds.mem_snoopx, snoopx_access, ARRAY_SIZE(snoopx_access));
	if (!b.len)
		sb_add(&b, "N/A");

	b = (struct sbuf){ d->tlb, 0, sizeof(d->tlb) };
	d->tlb[0] = '\0';
	m = ds.mem_dtlb & ~(uint64_t)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS);
	sb_bits(&b, m, tlb_access, ARRAY_SIZE(tlb_access));
	if (!b.len)
		sb_add(&b, "N/A");
	if (ds.mem_dtlb & PERF_MEM_TLB_HIT)
		sb_add(&b, " hit");
	if (ds.mem_dtlb & PERF_MEM_TLB_MISS) {
		sb_add(&b, " miss");
		d->tlb_miss = true;
	}

	if (ds.mem_lock & PERF_MEM_LOCK_NA) {
		strcpy(d->lock, "N/A");
	} else if (ds.mem_lock & PERF_MEM_LOCK_LOCKED) {
		strcpy(d->lock, "Yes");
		d->locked = true;
	} else {
		strcpy(d->lock, "No");
	}

	b = (struct sbuf){ d->blk, 0, sizeof(d->blk) };
	d->blk[0] = '\0';
	if (!ds.mem_blk || (ds.mem_blk & PERF_MEM_BLK_NA)) {
		sb_add(&b, " N/A");
	} else {
		if (ds.mem_blk & PERF_MEM_BLK_DATA)
			sb_add(&b, " Data");
		if (ds.mem_blk & PERF_MEM_BLK_ADDR)
			sb_add(&b, " Addr");
	}
}

bool pebs_data_src__known(uint64_t data_src)
{
	union perf_mem_data_src ds = { .val = data_src };

	return (ds.mem_op && !(ds.mem_op & PERF_MEM_OP_NA)) ||
	       (ds.mem_lvl & ~(uint64_t)PERF_MEM_LVL_NA) ||
	       (ds.mem_lvl_num && ds.mem_lvl_num != PERF_MEM_LVLNUM_NA);
}

int pebs_data_src__str(uint64_t data_src, char *buf, size_t len)
{
	struct pebs_data_src d;

	pebs_data_src__decode(data_src, &d);
	return snprintf(buf, len, "|OP %s|LVL %s|SNP %s|TLB %s|LCK %s|BLK %s",
			d.op, d.lvl, d.snoop, d.tlb, d.lock, d.blk);
}
