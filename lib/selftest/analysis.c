// SPDX-License-Identifier: MIT
/*
 * analysis.c - what the precise checks conclude from a recording of a
 * known workload: the share of data addresses inside its buffer, the
 * data-source levels the loads were served from, the weight median,
 * and the cache lines two threads touch, each classified as true
 * sharing (a word touched by both) or false sharing (each thread its
 * own words), with their HITM loads. Fed sample by sample (st_mem_add)
 * or from a perf.data file (st_mem_scan); memory is bounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define LINE 64
#define WORD 8
#define MAX_WEIGHTS (1u << 20)
#define MAX_LINES (1u << 16)	/* line table slots (power of two) */

static const char *const level_name[ST_LVL_NR] = {
	"L1", "LFB", "L2", "L3", "RAM", "remote", "other",
};

const char *st_level_name(enum st_level l)
{
	return l < ST_LVL_NR ? level_name[l] : "?";
}

/*
 * The level a load was served from, as perf mem report names it: the
 * PERF_MEM_LVLNUM_* field where the PMU fills it (IBS, newer Intel),
 * else the older PERF_MEM_LVL_* bits of a hit. Remote caches and
 * memory are one level: "remote".
 */
enum st_level st_level_of(uint64_t data_src)
{
	union perf_mem_data_src d = { .val = data_src };

	if (d.mem_remote && d.mem_lvl_num != PERF_MEM_LVLNUM_NA &&
	    d.mem_lvl_num)
		return ST_LVL_REMOTE;
	switch (d.mem_lvl_num) {
	case PERF_MEM_LVLNUM_L1: return ST_LVL_L1;
	case PERF_MEM_LVLNUM_LFB: return ST_LVL_LFB;
	case PERF_MEM_LVLNUM_L2: return ST_LVL_L2;
	case PERF_MEM_LVLNUM_L3: return ST_LVL_L3;
	case PERF_MEM_LVLNUM_RAM: return ST_LVL_RAM;
	default: break;
	}
	if (!(d.mem_lvl & PERF_MEM_LVL_HIT))
		return ST_LVL_OTHER;
	if (d.mem_lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2 |
			 PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		return ST_LVL_REMOTE;
	if (d.mem_lvl & PERF_MEM_LVL_LOC_RAM)
		return ST_LVL_RAM;
	if (d.mem_lvl & PERF_MEM_LVL_L3)
		return ST_LVL_L3;
	if (d.mem_lvl & PERF_MEM_LVL_L2)
		return ST_LVL_L2;
	if (d.mem_lvl & PERF_MEM_LVL_LFB)
		return ST_LVL_LFB;
	if (d.mem_lvl & PERF_MEM_LVL_L1)
		return ST_LVL_L1;
	return ST_LVL_OTHER;
}

/* a HITM load (Intel) or one served by a peer cache (AMD), as perf c2c */
static bool is_hitm(uint64_t data_src)
{
	union perf_mem_data_src d = { .val = data_src };

	return (d.mem_op & PERF_MEM_OP_LOAD) &&
	       ((d.mem_snoop & PERF_MEM_SNOOP_HITM) ||
		(d.mem_snoopx & PERF_MEM_SNOOPX_PEER));
}

void st_mem_init(struct st_mem *m, const struct st_layout *l)
{
	memset(m, 0, sizeof(*m));
	m->l = l;
}

/* the line table's slot of @line, NULL when the table is full */
static struct st_line *line_slot(struct st_mem *m, uint64_t line)
{
	uint64_t h = (line / LINE) * 0x9e3779b97f4a7c15ULL, i;

	if (!m->lines) {
		m->lines = calloc(MAX_LINES, sizeof(*m->lines));
		if (!m->lines)
			return NULL;
	}
	for (i = 0; i < 64; i++) {
		struct st_line *s = &m->lines[(h + i) & (MAX_LINES - 1)];

		if (s->used && s->line == line)
			return s;
		if (!s->used) {
			s->used = true;
			s->line = line;
			return s;
		}
	}
	return NULL;
}

/* thread @tid touched word @w of @s */
static void line_touch(struct st_line *s, uint32_t tid, unsigned int w)
{
	unsigned int i;

	for (i = 0; i < s->ntid && s->tid[i] != tid; i++)
		;
	if (i == ST_LINE_TIDS) {
		s->more_tids = true;
	} else {
		if (i == s->ntid)
			s->tid[s->ntid++] = tid;
		s->words[i] |= (uint8_t)(1u << w);
	}
	if (!(s->word_seen & (1u << w))) {
		s->word_seen |= (uint8_t)(1u << w);
		s->word_tid[w] = tid;
	} else if (s->word_tid[w] != tid) {
		s->word_shared |= (uint8_t)(1u << w);
	}
}

void st_mem_add(struct st_mem *m, const struct pebs_sample *s)
{
	bool src = s->present & PERF_SAMPLE_DATA_SRC;
	union perf_mem_data_src d = { .val = s->data_src };
	struct st_line *ln;
	unsigned int i;
	bool in;

	m->samples++;
	if (src && s->data_src) {
		m->with_src++;
		if (d.mem_op & PERF_MEM_OP_LOAD) {
			m->loads++;
			m->level[st_level_of(s->data_src)]++;
		} else if (d.mem_op & PERF_MEM_OP_STORE) {
			m->stores++;
		}
		if (is_hitm(s->data_src))
			m->hitm++;
	}
	if ((s->present & PERF_SAMPLE_WEIGHT_TYPE) && s->weight) {
		/* past MAX_WEIGHTS, or out of memory, the weight is not kept */
		if (m->capw < MAX_WEIGHTS)
			core_grow(&m->w, &m->capw, m->nw + 1, sizeof(*m->w));
		if (m->nw < m->capw)
			m->w[m->nw++] = s->weight;
	}
	if (!(s->present & PERF_SAMPLE_ADDR) || !s->addr)
		return;
	m->with_addr++;
	in = m->l && s->addr >= m->l->buf && s->addr - m->l->buf < m->l->size;
	m->inside += in;
	for (i = 0; m->l && i < m->l->nthr; i++)
		if (s->tid == (uint32_t)m->l->tid[i]) {
			m->thr_with_addr++;
			m->thr_inside += in;
		}
	ln = line_slot(m, s->addr & ~(uint64_t)(LINE - 1));
	if (!ln) {
		m->lines_dropped++;
		return;
	}
	ln->samples++;
	if (src && is_hitm(s->data_src))
		ln->hitm++;
	line_touch(ln, s->tid, (unsigned int)(s->addr % LINE) / WORD);
}

int st_scan_records(const char *path,
		    void (*fn)(void *arg, const struct pebs_sample *s),
		    void (*other)(void *arg, const struct perf_event_header *ev),
		    void *arg)
{
	const struct perf_event_header *ev;
	struct pebs_perfdata *pd;
	struct pebs_sample s;
	unsigned int idx;
	int err, cycle;

	err = pebs_perfdata__open(path, &pd);
	if (err)
		return err;
	/* a budget's duty cycles' starts: record's, not the workload's */
	cycle = pebs_perfdata__cycle_event(pd);
	while ((err = pebs_perfdata__next(pd, &ev)) > 0) {
		if (ev->type != PERF_RECORD_SAMPLE) {
			if (other)
				other(arg, ev);
			continue;
		}
		err = pebs_perfdata__sample(pd, ev, &s, &idx);
		if (err)
			break;
		if ((int)idx != cycle)
			fn(arg, &s);
	}
	pebs_perfdata__close(pd);
	return err;
}

int st_scan(const char *path,
	    void (*fn)(void *arg, const struct pebs_sample *s), void *arg)
{
	return st_scan_records(path, fn, NULL, arg);
}

static void mem_add(void *arg, const struct pebs_sample *s)
{
	st_mem_add(arg, s);
}

int st_mem_scan(const char *path, struct st_mem *m)
{
	return st_scan(path, mem_add, m);
}

double st_mem_inside(const struct st_mem *m)
{
	return m->with_addr ? 100.0 * (double)m->inside /
			      (double)m->with_addr : 0;
}

double st_mem_thr_inside(const struct st_mem *m)
{
	return m->thr_with_addr ? 100.0 * (double)m->thr_inside /
				  (double)m->thr_with_addr : 0;
}

double st_mem_level_share(const struct st_mem *m, enum st_level l)
{
	return m->loads && l < ST_LVL_NR ?
	       100.0 * (double)m->level[l] / (double)m->loads : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t st_mem_weight_median(struct st_mem *m)
{
	if (!m->nw)
		return 0;
	qsort(m->w, m->nw, sizeof(*m->w), cmp_u64);
	return m->w[(m->nw - 1) / 2];	/* the lower middle */
}

enum st_sharing st_line_sharing(const struct st_line *s)
{
	if (s->ntid < 2)
		return ST_PRIVATE;
	return s->word_shared ? ST_TRUE_SHARING : ST_FALSE_SHARING;
}

const struct st_line *st_mem_line(const struct st_mem *m, uint64_t addr)
{
	uint64_t line = addr & ~(uint64_t)(LINE - 1);
	uint64_t h = (line / LINE) * 0x9e3779b97f4a7c15ULL, i;

	for (i = 0; m->lines && i < 64; i++) {
		const struct st_line *s = &m->lines[(h + i) & (MAX_LINES - 1)];

		if (!s->used)
			return NULL;
		if (s->line == line)
			return s;
	}
	return NULL;
}

const struct st_line *st_mem_top_line(const struct st_mem *m)
{
	const struct st_line *best = NULL;
	size_t i;

	for (i = 0; m->lines && i < MAX_LINES; i++) {
		const struct st_line *s = &m->lines[i];

		if (s->used && st_line_sharing(s) != ST_PRIVATE &&
		    (!best || s->hitm > best->hitm ||
		     (s->hitm == best->hitm && s->samples > best->samples)))
			best = s;
	}
	return best;
}

void st_mem_free(struct st_mem *m)
{
	free(m->w);
	free(m->lines);
	m->w = NULL;
	m->lines = NULL;
	m->nw = m->capw = 0;
}
