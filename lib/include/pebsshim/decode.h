/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/decode.h - libpebsshim: decoding perf records: samples, data
 * sources, other records.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_DECODE_H
#define PEBSSHIM_DECODE_H

#include <linux/perf_event.h>
#include "pebsshim/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Samples (lib/decode/sample.c)                                      */
/* ------------------------------------------------------------------ */

/*
 * A decoded PERF_RECORD_SAMPLE (or the sample_id of another record).
 * Fields whose bit is not in @present are zero. Pointers point into the
 * record (valid as long as the record is).
 */
struct pebs_sample {
	uint64_t present;	/* PERF_SAMPLE_* bits stored below (not the
				   skipped READ, BRANCH_STACK, REGS_*,
				   STACK_USER, AUX) */
	uint64_t id;		/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t weight;	/* WEIGHT, or WEIGHT_STRUCT var1_dw */
	uint16_t weight2;	/* WEIGHT_STRUCT var2_w (e.g. retire lat.) */
	uint16_t weight3;	/* WEIGHT_STRUCT var3_w */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t callchain_nr;	/* CALLCHAIN: number of entries */
	const uint64_t *callchain; /* unaligned-safe: read with memcpy */
	uint32_t raw_size;	/* RAW: payload size */
	const void *raw;
};

/*
 * struct pebs_sample_layout - how the samples of one event are laid out,
 * prepared once from its attr (sample_type, read_format,
 * branch_sample_type, sample_regs_user/intr) so that decoding a record
 * does not re-walk the sample_type bits: when every field present has a
 * fixed size (the PEBS case) each field is read at a precomputed offset.
 * A value: copy it freely; fill it only with pebs_sample_layout__init().
 */
struct pebs_sample_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint32_t regs_user_nr;	/* weight of sample_regs_user */
	uint32_t regs_intr_nr;	/* weight of sample_regs_intr */
	uint32_t read_size;	/* bytes of READ when not a group, else 0 */
	uint32_t fixed_size;	/* record size when every field is fixed
				   size, else 0 (decoded field by field) */
	uint32_t id_size;	/* bytes of a trailing sample_id */
	int16_t off[16];	/* private: field offsets (fixed layouts) */
};

/*
 * pebs_sample_layout__init - prepare @l for samples of @attr.
 * Returns 0, or -EOPNOTSUPP if sample_type (or branch_sample_type, or
 * read_format) has a bit this decoder does not know.
 */
PEBS_API int pebs_sample_layout__init(struct pebs_sample_layout *l,
				      const struct perf_event_attr *attr);

/*
 * pebs_sample__decode - decode PERF_RECORD_SAMPLE @ev with layout @l:
 * IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, WEIGHT or
 * WEIGHT_STRUCT, DATA_SRC, TRANSACTION, PHYS_ADDR, CGROUP,
 * DATA_PAGE_SIZE, CODE_PAGE_SIZE are stored; CALLCHAIN and RAW are
 * pointed at; READ, BRANCH_STACK, REGS_USER, STACK_USER, REGS_INTR and
 * AUX are skipped. Every length is checked against ev->size. Returns 0
 * or -EBADMSG (record too short or a length field overruns it).
 */
PEBS_API int pebs_sample__decode(const struct pebs_sample_layout *l,
				 const struct perf_event_header *ev,
				 struct pebs_sample *s);

/*
 * The user registers and stack of a sample (REGS_USER, STACK_USER: what
 * perf record --call-graph dwarf copies for unwinding afterwards).
 */
struct pebs_sample_user {
	uint64_t abi;		/* PERF_SAMPLE_REGS_ABI_*; 0: none (a
				   kernel thread's sample) */
	uint64_t mask;		/* whose registers (sample_regs_user), 0
				   without */
	const void *regs;	/* a u64 per bit of mask, lowest bit first
				   (unaligned: read with memcpy) */
	uint64_t stack_size;	/* bytes copied from the stack pointer up
				   (the kernel's dyn_size), 0: none */
	const void *stack;
};

/*
 * The sample types of perf's --call-graph dwarf (its CALLCHAIN_DWARF
 * record mode): user registers and stack, both; a session unwinds such
 * samples' user frames.
 */
#define PEBS_SAMPLE_DWARF	(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/*
 * pebs_sample__user - the user registers and stack of PERF_RECORD_SAMPLE
 * @ev, laid out by @l, whose attr's sample_regs_user is
 * @sample_regs_user, into @u (zero where the sample has none); pointers
 * point into the record. Returns 0, -EINVAL (NULL, or a mask whose
 * weight is not @l's), or -EBADMSG (as pebs_sample__decode).
 */
PEBS_API int pebs_sample__user(const struct pebs_sample_layout *l,
			       uint64_t sample_regs_user,
			       const struct perf_event_header *ev,
			       struct pebs_sample_user *u);

/*
 * pebs_sample__decode_id - decode the sample_id that a non-sample record
 * carries at its END with attr.sample_id_all (TID, TIME, ID, STREAM_ID,
 * CPU, IDENTIFIER in that order). Returns 0 or -EBADMSG (the record is
 * shorter than its header plus the sample_id).
 */
PEBS_API int pebs_sample__decode_id(const struct pebs_sample_layout *l,
				    const struct perf_event_header *ev,
				    struct pebs_sample *s);

/*
 * pebs_sample__parse - decode a PERF_RECORD_SAMPLE laid out for
 * @sample_type alone (builds a layout per call: prefer __decode in
 * loops). Returns 0, -EBADMSG if the record is too short for its
 * sample_type, -EOPNOTSUPP if sample_type has READ, BRANCH_STACK,
 * REGS_USER or REGS_INTR (their size needs the attr: use
 * pebs_sample_layout__init) or an unknown bit.
 */
PEBS_API int pebs_sample__parse(const struct perf_event_header *ev,
				uint64_t sample_type, struct pebs_sample *s);

/*
 * pebs_sample__parse_id - decode the trailing sample_id of a non-sample
 * record (sample_id_all). Returns as pebs_sample__parse.
 */
PEBS_API int pebs_sample__parse_id(const struct perf_event_header *ev,
				   uint64_t sample_type, struct pebs_sample *s);

/* ------------------------------------------------------------------ */
/* Data sources (data_src) (lib/decode/data-src.c)                    */
/* ------------------------------------------------------------------ */

/* Where a memory access was served from, normalised over both encodings. */
enum pebs_mem_level {
	PEBS_MEM_LVL_NA = 0,
	PEBS_MEM_LVL_L1,
	PEBS_MEM_LVL_LFB,	/* line fill buffer / miss address buffer */
	PEBS_MEM_LVL_L2,
	PEBS_MEM_LVL_L3,
	PEBS_MEM_LVL_L4,
	PEBS_MEM_LVL_ANY_CACHE,	/* e.g. a remote cache (see remote) */
	PEBS_MEM_LVL_RAM,	/* DRAM (see remote) */
	PEBS_MEM_LVL_PMEM,
	PEBS_MEM_LVL_CXL,
	PEBS_MEM_LVL_IO,
	PEBS_MEM_LVL_UNCACHED,
};

/*
 * A decoded data_src (union perf_mem_data_src). The strings are what
 * perf's mem-events.c prints for each column (perf >= 6.3 for the
 * level: mem_lvl_num + mem_remote + mem_hops when mem_lvl_num is set,
 * else the old mem_lvl bits).
 */
struct pebs_data_src {
	uint64_t val;
	enum pebs_mem_level level; /* lowest level named */
	bool hit, miss;		/* level hit / miss */
	bool remote;		/* mem_remote, or a REM_* mem_lvl bit */
	unsigned int hops;	/* mem_hops (0: not given) */
	bool locked;
	bool tlb_miss;
	bool load, store;
	char op[8];		/* "LOAD" "STORE" "PFETCH" "EXEC" "N/A" "No" */
	char lvl[64];		/* "L1 hit", "LFB/MAB hit", "Remote node,
				   same socket RAM hit", "N/A" ... */
	char snoop[32];		/* "None", "HitM", "Hit or Fwd", "N/A" ... */
	char tlb[64];		/* "L1 or L2 hit", "L2 miss", "N/A" ... */
	char lock[4];		/* "Yes" "No" "N/A" */
	char blk[16];		/* " N/A", " Data", " Data Addr" (as perf) */
};

/* pebs_data_src__decode - fill @d from @data_src (never fails). */
PEBS_API void pebs_data_src__decode(uint64_t data_src,
				    struct pebs_data_src *d);

/*
 * pebs_data_src__known - whether @data_src says anything: an operation
 * or a level other than N/A (software events' samples carry
 * PERF_MEM_NA, all N/A).
 */
PEBS_API bool pebs_data_src__known(uint64_t data_src);

/*
 * pebs_data_src__str - data_src as `perf script -F data_src` prints it
 * after the hex value, e.g.
 * "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A".
 * Returns the length snprintf would have written.
 */
PEBS_API int pebs_data_src__str(uint64_t data_src, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Record views (lib/decode/record.c)                                 */
/* ------------------------------------------------------------------ */

/* Records perf itself writes into the data section (above kernel types). */
enum pebs_perf_user_record {
	PEBS_PERF_RECORD_HEADER_ATTR = 64,   /* attr (attr.size bytes), u64 ids[] */
	PEBS_PERF_RECORD_HEADER_TRACING_DATA = 66, /* u32 size; data follows */
	PEBS_PERF_RECORD_HEADER_BUILD_ID = 67,
	PEBS_PERF_RECORD_FINISHED_ROUND = 68,
	PEBS_PERF_RECORD_ID_INDEX = 69,
	PEBS_PERF_RECORD_AUXTRACE_INFO = 70,
	PEBS_PERF_RECORD_AUXTRACE = 71,	/* u64 size; data follows */
	PEBS_PERF_RECORD_THREAD_MAP = 73,
	PEBS_PERF_RECORD_CPU_MAP = 74,
	PEBS_PERF_RECORD_EVENT_UPDATE = 78,
	PEBS_PERF_RECORD_TIME_CONV = 79,
	PEBS_PERF_RECORD_HEADER_FEATURE = 80,
	PEBS_PERF_RECORD_COMPRESSED = 81,
	PEBS_PERF_RECORD_FINISHED_INIT = 82,
	PEBS_PERF_RECORD_COMPRESSED2 = 83,	/* perf >= 6.15's -z: u64
						   data_size, zstd, padding */
};

/* COMM: a thread's name; exec set when it came from an exec. */
struct pebs_record_comm {
	uint32_t pid, tid;
	const char *comm;	/* in the record */
	bool exec;		/* PERF_RECORD_MISC_COMM_EXEC */
};

/* FORK and EXIT */
struct pebs_record_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* MMAP and MMAP2 (MMAP: prot is READ|EXEC, or READ|WRITE when data) */
struct pebs_record_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;	/* MMAP2 without a build id */
	uint64_t ino, ino_generation;
	uint8_t build_id[20];	/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;	/* 0: none */
	uint32_t prot, flags;	/* PROT_*, MAP_* */
	bool data;		/* PERF_RECORD_MISC_MMAP_DATA */
	const char *filename;	/* in the record */
};

/* LOST (id, lost) and LOST_SAMPLES (lost; id 0) */
struct pebs_record_lost {
	uint64_t id, lost;
};

/* SWITCH and SWITCH_CPU_WIDE (the other task only in the latter) */
struct pebs_record_switch {
	bool out, preempt;
	uint32_t next_prev_pid, next_prev_tid;
};

/* THROTTLE and UNTHROTTLE */
struct pebs_record_throttle {
	uint64_t time, id, stream_id;
};

/* One decoded record: the member for @type is set. */
struct pebs_record {
	uint32_t type;		/* PERF_RECORD_*, or 68 FINISHED_ROUND */
	uint16_t misc;
	union {
		struct pebs_record_comm comm;
		struct pebs_record_task task;
		struct pebs_record_mmap mmap;
		struct pebs_record_lost lost;
		struct pebs_record_switch sw;
		struct pebs_record_throttle throttle;
	};
};

/*
 * pebs_record__decode - decode the non-sample record @ev into @r. The
 * payload is @ev less its header and less @id_size bytes of sample_id
 * trailer (struct pebs_sample_layout.id_size of the file's first attr
 * when it has sample_id_all, else 0; perf's own records, type >= 64,
 * have none); decode the trailer itself with pebs_sample__decode_id.
 * Strings point into the record. Returns 0, -EBADMSG (too short for its
 * type, or a string without its NUL), -ENOENT (a type without a view:
 * SAMPLE, AUX, ...), -EINVAL.
 */
PEBS_API int pebs_record__decode(const struct perf_event_header *ev,
				 size_t id_size, struct pebs_record *r);

/* ---- decode: field places, a TID added ---- */

/*
 * pebs_sample_layout__pos - where field @field (one PERF_SAMPLE_ bit of
 * IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU; for a sample_id
 * only TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER) sits in the records of
 * @l, or would be inserted if @l's sample_type lacks it: in a
 * PERF_RECORD_SAMPLE (@sample_id false), bytes from the record's start
 * (the header included); in the sample_id other records carry
 * (sample_id_all; @sample_id true), bytes from the record's end to the
 * field's start. Needs only @l's sample_type (also set when
 * pebs_sample_layout__init refused the attr). Returns the offset, or
 * -EINVAL for another field.
 */
PEBS_API int pebs_sample_layout__pos(const struct pebs_sample_layout *l,
				     uint64_t field, bool sample_id);

/*
 * pebs_sample__add_tid - @ev, a record of an event laid out as @l
 * (whose sample_type lacks PERF_SAMPLE_TID), re-encoded into @buf (@len
 * bytes) with pid @tgid and tid @tid inserted where the perf ABI puts
 * them: in a sample, or in the sample_id of another kernel record when
 * @sample_id_all; other records are copied as they are. Returns the new
 * size, -EINVAL (@l has a TID), -EBADMSG (@ev is shorter than its
 * layout) or -ENOSPC (@len too small; a record is at most 64 KiB).
 */
PEBS_API int pebs_sample__add_tid(const struct pebs_sample_layout *l,
				  bool sample_id_all,
				  const struct perf_event_header *ev,
				  int32_t tgid, int32_t tid, void *buf,
				  size_t len);

/* ------------------------------------------------------------------ */
/* Data sources counted as perf c2c does (lib/decode/c2c-stats.c)     */
/* ------------------------------------------------------------------ */

/*
 * Counters of one set of samples, exactly as perf's c2c_decode_stats()
 * (tools/perf/util/mem-events.c, perf 6.1) defines them; the names are
 * perf's struct c2c_stats fields.
 */
struct pebs_c2c_stats {
	uint64_t nr_entries;	/* every sample ("Total records") */
	uint64_t locks;		/* mem_lock LOCKED */
	uint64_t store, st_uncache, st_noadrs, st_l1hit, st_l1miss, st_na;
	uint64_t load, ld_excl, ld_shared, ld_uncache, ld_io, ld_miss;
	uint64_t ld_noadrs, ld_fbhit, ld_l1hit, ld_l2hit, ld_llchit;
	uint64_t lcl_hitm, rmt_hitm, tot_hitm;
	uint64_t lcl_peer, rmt_peer, tot_peer;
	uint64_t rmt_hit, lcl_dram, rmt_dram;
	uint64_t blk_data, blk_addr;
	uint64_t nomap;		/* load/store whose data or code address
				   lies in no known mapping */
	uint64_t noparse;	/* neither load nor store (op N/A, ...) */
};

/*
 * pebs_c2c_stats__add_sample - count one sample into @st as
 * c2c_decode_stats() does: @data_src its PERF_SAMPLE_DATA_SRC
 * (PERF_MEM_DATA_SRC_NONE when the sample has none), @addr its data
 * address (0: none), @mapped whether both its data and code addresses
 * lie in known mappings. Returns 0 when the sample was fully decoded,
 * else -EINVAL (no address, not a load or store, or not mapped: perf's
 * -1; the counters are updated as perf does either way).
 */
PEBS_API int pebs_c2c_stats__add_sample(struct pebs_c2c_stats *st,
					uint64_t data_src, uint64_t addr,
					bool mapped);

/* pebs_c2c_stats__sum - add every counter of @add to @st (c2c_add_stats). */
PEBS_API void pebs_c2c_stats__sum(struct pebs_c2c_stats *st,
				  const struct pebs_c2c_stats *add);

/*
 * Derived counts of builtin-c2c.c: __llc_misses = lcl_dram + rmt_dram +
 * rmt_hitm + rmt_hit; __loads ("Total Loads") = llc misses + ld_fbhit +
 * ld_l1hit + ld_l2hit + ld_llchit + lcl_hitm; __records (the table's
 * "Total records") = loads + st_l1hit + st_l1miss + st_na.
 */
PEBS_API uint64_t pebs_c2c_stats__llc_misses(const struct pebs_c2c_stats *st);
PEBS_API uint64_t pebs_c2c_stats__loads(const struct pebs_c2c_stats *st);
PEBS_API uint64_t pebs_c2c_stats__records(const struct pebs_c2c_stats *st);

/*
 * pebs_c2c_stats__field - the name of counter @i (0, 1, ...: perf's
 * struct c2c_stats names, in the order of struct pebs_c2c_stats) and,
 * when @st and @v are given, its value in *@v; NULL past the last.
 */
PEBS_API const char *pebs_c2c_stats__field(const struct pebs_c2c_stats *st,
					   unsigned int i, uint64_t *v);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_DECODE_H */
