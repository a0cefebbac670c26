/* SPDX-License-Identifier: MIT */
/*
 * perfdata-int.h - the perf.data reader's state and helpers, shared by
 * lib/perfdata/'s readers and by the session above them (lib/session/:
 * pd_release and the read position); not installed.
 */
#ifndef PEBSSHIM_PERFDATA_INT_H
#define PEBSSHIM_PERFDATA_INT_H

#include "core/internal.h"
#include "pebsshim/perfdata.h"

/*
 * perf.data reader internals, shared by lib/perfdata/perfdata-read.c with
 * lib/perfdata/perfdata-pipe.c (pipe-mode streams) and lib/perfdata/perfdata-zstd.c
 * (PERF_RECORD_COMPRESSED payloads).
 *
 * pd_stream: records from a descriptor or memory, one at a time.
 * __next returns 1 and a record valid until the next call, 0 at the end
 * (a record cut short by the end sets __truncated), -errno. __skip drops
 * the payload after the record last returned (1, 0 if the stream ended).
 * __capture(s, true) keeps a copy of every record read until
 * __capture(s, false); __prologue gives that copy; __rewind (and the
 * first call after capture ends: see perfdata-read.c) replays it, then
 * continues after it (-ESPIPE on a pipe once it has been read past).
 */
struct pd_stream;
int pd_stream__new_fd(int fd, struct pd_stream **sp);
int pd_stream__new_mem(const void *buf, size_t size, struct pd_stream **sp);
void pd_stream__free(struct pd_stream *s);
int pd_stream__next(struct pd_stream *s, const unsigned char **rec);
int pd_stream__skip(struct pd_stream *s, uint64_t n);
void pd_stream__capture(struct pd_stream *s, bool on);
void pd_stream__prologue(const struct pd_stream *s, const unsigned char **p,
			 size_t *len);
int pd_stream__rewind(struct pd_stream *s);
bool pd_stream__truncated(const struct pd_stream *s);

/*
 * pd_zstd: __feed decompresses one COMPRESSED payload (after the tail
 * of the previous one that __next could not return yet); __next returns
 * its records (1, valid until the next __feed), 0 when the rest needs
 * the next payload; __pending: bytes left over; __reset: a new stream.
 * @mmap_len is HEADER_COMPRESSED's, at most PD_ZSTD_MAX_MMAP_LEN.
 */
#define PD_ZSTD_MAX_MMAP_LEN	(256u << 20)
struct pd_zstd;
int pd_zstd__new(uint64_t mmap_len, struct pd_zstd **zp);
void pd_zstd__free(struct pd_zstd *z);
void pd_zstd__reset(struct pd_zstd *z);
int pd_zstd__feed(struct pd_zstd *z, const void *src, size_t len);
int pd_zstd__next(struct pd_zstd *z, const unsigned char **rec);
bool pd_zstd__pending(const struct pd_zstd *z);

/*
 * struct pebs_perfdata (lib/perfdata/perfdata-read.c: the header, attrs, ids and
 * features; lib/perfdata/perfdata-next.c: the records, from the mapped file, a
 * pipe-mode stream, or inside COMPRESSED records).
 */
#define PD_PIPE_HEADER_SIZE	16	/* pipe mode: { magic, size = 16 } */

struct pd_attr {
	struct perf_event_attr attr;
	struct pebs_sample_layout layout;
	int layout_err;		/* from pebs_sample_layout__init */
	uint64_t *ids;
	size_t nr_ids;
	char *name;
};

struct pebs_perfdata {
	const unsigned char *buf;	/* the file (also in pipe mode when
					   mapped), or NULL */
	size_t size;
	bool mapped;
	struct pebs_perf_file_header hdr;
	const unsigned char *feat[PEBS_FEAT_BITS];
	size_t feat_size[PEBS_FEAT_BITS];
	struct pd_attr *attrs;
	unsigned int nr_attrs;
	size_t cap_attrs;
	struct id_ent *idtab;	/* open addressing, first id wins */
	size_t nr_ids, id_mask;
	uint64_t id_seed;	/* random: see id_hash */
	int sample_id_pos;	/* offset of the id in a sample, or -1 */
	int other_id_pos;	/* its distance from a record's end, or -1 */
	uint64_t data_start, data_end, pos;	/* file mode */
	bool unfinished;	/* data.size was 0: read to the end */
	bool truncated;		/* the last record was cut short */
	bool done;		/* stopped at an error */
	uint64_t nrec;		/* records returned since the start */
	uint64_t nr_comp[2];	/* COMPRESSED, COMPRESSED2 records read
				   (never returned: perfdata-stats.c) */
	uint64_t seen_upto;	/* HEADER_ATTR records before this are in */
	struct pd_stream *stream;	/* pipe mode, else NULL */
	int fd;			/* pipe mode from a descriptor we own, or -1 */
	unsigned char *rec;	/* a record not 8-byte aligned in a file
				   (reused by the next call); pipe mode:
				   room for a record whose
				   payload is skipped (64 KiB) */
	int rewind_err;		/* pipe mode: __rewind failed */
	struct pd_zstd *zstd;	/* from the first COMPRESSED record on */
	struct pd_dir *dir;	/* perf record --threads: DIR/data.N */
};

/* the header, attrs and features of the file at pd->buf (perfdata-read.c) */
int pd_init_file(struct pebs_perfdata *pd);
/* an event read from the file or a HEADER_ATTR record (perfdata-read.c) */
int pd_add_attr(struct pebs_perfdata *pd, const unsigned char *attr_bytes,
		size_t attr_bytes_len, const unsigned char *ids,
		size_t nr_ids);
/* a PERF_RECORD_HEADER_ATTR record's event, unless its ids are known */
int pd_header_attr(struct pebs_perfdata *pd, const unsigned char *rec,
		   uint16_t size);
/* HEADER_EVENT_DESC names, once the features are known */
int pd_read_event_desc(struct pebs_perfdata *pd);
/* pipe mode: read perf's header records up to FINISHED_INIT (perfdata-next.c) */
int pd_read_prologue(struct pebs_perfdata *pd);
/* prefix the last error's reason with @name; returns @err (perfdata-open.c) */
int pd_with_name(int err, const char *name);

/*
 * Directory-format recordings (lib/perfdata/perfdata-dir.c): __open reads
 * DIR/data and maps DIR/data.N; __next returns the next record of the
 * data.N files merged by time (1, 0 at the end, -errno).
 */
struct pd_dir;
int pd_dir__open(int dirfd, struct pebs_perfdata **pdp);
void pd_dir__free(struct pd_dir *d);
int pd_dir__next(struct pd_dir *d, const unsigned char **rec);
void pd_dir__rewind(struct pd_dir *d);
bool pd_dir__truncated(const struct pd_dir *d);

/*
 * pd_attr_named - the attr of pebs-shim's own event named @name, else
 * (no names: a killed recording) the software dummy with the one sample
 * id @id (record --objects' events, record --budget's cycles); UINT32_MAX
 * when none (lib/perfdata/perfdata-read.c).
 */
unsigned int pd_attr_named(const struct pebs_perfdata *pd, const char *name,
			   uint64_t id);

/*
 * pd_release - the pages of @pd's mapping in [from, to) (file offsets;
 * the partial pages at the ends stay) are not needed now: dropped from
 * the process (read again from the page cache if touched). Does nothing
 * for less than PD_RELEASE_MIN bytes or input that is not a mapped
 * file. Returns the offset released up to (@to, or @from when nothing
 * was done), for the next call (lib/perfdata/perfdata-next.c).
 */
#define PD_RELEASE_MIN	(4u << 20)
uint64_t pd_release(const struct pebs_perfdata *pd, uint64_t from,
		    uint64_t to);

/*
 * The header's printer (perfdata-header.c, perfdata-header-machine.c).
 * pd_cur: a feature section read front to back (pd_feat_cur: feature
 * @f of @pd, false if absent); pd_rd32, pd_rd64, and pd_rdstr (a perf
 * string: u32 len, then len bytes holding a NUL) read the next value,
 * 0 or "" when short or bad (which sets bad). pd_print_machine prints
 * feature @ft if it describes the machine (perfdata-header-machine.c:
 * the PMUs, the clock, and in full the topologies, caches and memory);
 * false for another (HYBRID_TOPOLOGY: perf's summary line).
 */
struct pd_cur {
	const unsigned char *p, *end;
	bool bad;
};

bool pd_feat_cur(const struct pebs_perfdata *pd, unsigned int f,
		 struct pd_cur *c);
uint32_t pd_rd32(struct pd_cur *c);
uint64_t pd_rd64(struct pd_cur *c);
const char *pd_rdstr(struct pd_cur *c);
bool pd_print_machine(const struct pebs_perfdata *pd, unsigned int ft,
		      FILE *f);

#endif /* PEBSSHIM_PERFDATA_INT_H */
