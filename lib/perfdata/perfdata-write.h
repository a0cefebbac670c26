/* SPDX-License-Identifier: MIT */
/*
 * perfdata-write.h - the perf.data writer's private parts, shared by
 * lib/perfdata/perfdata-write.c (file, header, records), lib/perfdata/perfdata-feat.c
 * (header feature sections) and lib/perfdata/synth.c (records synthesized from
 * /proc). Not installed.
 */
#ifndef PEBSSHIM_PERFDATA_WRITE_H
#define PEBSSHIM_PERFDATA_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/internal.h"
#include "pebsshim/perfdata.h"

#define NAME_ALIGN		64
#define ALIGN8(x)		(((x) + 7) & ~(size_t)7)

/* A growable byte buffer for the feature sections. */
struct bytes {
	char *p;
	size_t len, cap;
	bool oom;
};

struct wattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	unsigned int nr_ids;
	char *name;
	int time_pos;		/* u64 index of TIME in a sample, or -1 */
	unsigned int nr_members; /* > 1: leads a group of that many */
	char *group;		/* its group's name, NULL: perf's anonymous */
};

struct pebs_perfdata_writer {
	int fd;
	int err;		/* first write error, sticky */
	bool started;		/* ids and attrs written, data begun */
	bool pipe;		/* perf's pipe format on a stream */
	bool committed;		/* the file is at its path */
	bool tmpfile;		/* fd is an O_TMPFILE (else tmp_path names it) */
	struct wattr *attrs;
	unsigned int nr_attrs;
	size_t attr_size;	/* perf_event_attr bytes written per attr */
	char **argv;
	int argc;
	uint64_t attrs_offset;
	uint64_t data_offset;
	size_t id_hdr_size;	/* sample_id trailer of non-sample records */
	uint64_t tod_ns;	/* CLOCK_REALTIME and the attrs' clockid ... */
	uint64_t clock_ns;	/* ... read together when data started */
	char *buf;
	size_t buf_len;
	uint64_t flushed_ns;	/* CLOCK_MONOTONIC_COARSE of the last flush */
	struct core_strset files;	/* the mapped files' paths */
	bool files_oom;
	struct pebs_perfdata_writer_stats stats;
	char *tmp_path;		/* named temporary file, when not O_TMPFILE */
	struct bytes tracing;	/* HEADER_TRACING_DATA (lib/perfdata/tracing-data.c) */
	struct bytes meta;	/* " key=value" words (perfdata-meta.c) */
	char path[];
};

void bytes_add(struct bytes *b, const void *p, size_t len);
void bytes_u32(struct bytes *b, uint32_t v);
void bytes_u64(struct bytes *b, uint64_t v);
/* perf's do_write_string: u32 padded length, string, zero padding */
void bytes_str(struct bytes *b, const char *s);

/*
 * wr_features - the contents of every feature section perf record
 * writes (indexed by PEBS_FEAT_*; empty = not written). With @at_start
 * only those known before the first record (the pipe format sends them
 * first): no BUILD_ID, no SAMPLE_TIME.
 */
void wr_features(const struct pebs_perfdata_writer *w, struct bytes *f,
		 unsigned int nr, bool at_start);
/* wr_version - HEADER_VERSION: "pebs-shim", then the metadata set, as
   " key=value" words (lib/perfdata/perfdata-meta.c) */
void wr_version(const struct pebs_perfdata_writer *w, struct bytes *b);

/* fill the sample_id trailer of a synthesized record */
void wr_id_trailer(const struct pebs_perfdata_writer *w, void *at,
		   pid_t pid, pid_t tid);

/*
 * wr_open_tmp - open w->fd as an unnamed file in the directory of
 * w->path (or a hidden named one, w->tmp_path). wr_link_in - give it
 * w->path (replacing an empty regular file). Both 0 or -errno
 * (lib/perfdata/output.c).
 */
int wr_open_tmp(struct pebs_perfdata_writer *w);
int wr_link_in(struct pebs_perfdata_writer *w);

/* count a written record in the stats, note a mapped file (lib/perfdata/synth.c) */
void wr_account(struct pebs_perfdata_writer *w,
		const struct perf_event_header *ev);

/* HEADER_BUILD_ID: kernel, vdso, mapped files (lib/perfdata/synth.c) */
void wr_feat_build_id(const struct pebs_perfdata_writer *w, struct bytes *b);

/* the kernel's map, as perf record synthesizes it (lib/perfdata/synth.c) */
int wr_synth_kernel_mmap(struct pebs_perfdata_writer *w);

#endif /* PEBSSHIM_PERFDATA_WRITE_H */
