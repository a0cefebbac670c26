/* SPDX-License-Identifier: MIT */
/* internal.h - helpers shared by the library's .c files; not installed. */
#ifndef PEBSSHIM_INTERNAL_H
#define PEBSSHIM_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "pebsshim.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Unaligned little-endian-host loads from records and files. */
static inline uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t ld16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * pebs_err - record a one-line reason for the calling thread and return
 * @err (a negative errno) so that callers can write
 *	return pebs_err(-ENOENT, "%s not found: ...", path);
 */
int pebs_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* pebs_err_clear - forget the last reason (on success paths). */
void pebs_err_clear(void);

/*
 * Events: sysfs PMUs (lib/event/event-sysfs.c).
 * pebs_sysfs_root - where PMUs are listed, /sys/bus/event_source/devices
 * unless pebs_sysfs_set_root() pointed it elsewhere (tests build a fake
 * tree; NULL restores the default; not thread-safe, set it before use),
 * or the environment's PEBS_TEST_SYSFS_ROOT (the command-line tests').
 * pebs_sysfs_has - whether <root>/<pmu>[/<file>] exists (file may be NULL).
 * pebs_sysfs_encode - encode "pmu/term=val,.../mods" into @ev (see
 * pebs_event__parse); returns 0, -ENOENT (no such PMU) or -EINVAL.
 */
const char *pebs_sysfs_root(void);
void pebs_sysfs_set_root(const char *root);
bool pebs_sysfs_has(const char *pmu, const char *file);
int pebs_sysfs_encode(const char *str, struct pebs_event *ev);

/*
 * Events: libpfm4 (lib/event/event-pfm.c), initialized once per process on
 * first use. pebs_pfm_core_pmu - short name of the i-th core PMU libpfm4
 * detected (or was forced to), NULL past the last. pebs_pfm_try - encode
 * quietly, returning the libpfm4 error code. pebs_pfm_encode - encode
 * with messages: -ENOENT (unknown, close names listed), -EINVAL (bad
 * modifier named), -ENODEV (libpfm4 failed to initialize).
 * pebs_event_builtin_name (lib/event/event.c) - aliases and software names,
 * "" for a gap, NULL at the end: suggestion candidates.
 */
const char *pebs_pfm_core_pmu(unsigned int i);
int pebs_pfm_try(const char *str, struct pebs_event *ev);
int pebs_pfm_encode(const char *str, struct pebs_event *ev);
const char *pebs_event_builtin_name(unsigned int i);

/*
 * pebs_elf_build_id (lib/symbols/symbols.c) - the GNU build id of the ELF file
 * @path, copied into @bid (room for 20 bytes). Returns its length,
 * -ENOENT (not ELF, or no build id), or -errno from open.
 */
int pebs_elf_build_id(const char *path, uint8_t *bid);

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
	unsigned int nr_attrs, cap_attrs;
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
	uint64_t seen_upto;	/* HEADER_ATTR records before this are in */
	struct pd_stream *stream;	/* pipe mode, else NULL */
	int fd;			/* pipe mode from a descriptor we own, or -1 */
	unsigned char *rec;	/* pipe mode: room for a record whose
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

#endif /* PEBSSHIM_INTERNAL_H */
