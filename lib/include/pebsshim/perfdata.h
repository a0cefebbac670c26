/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/perfdata.h - libpebsshim: perf.data files: reading, writing,
 * output paths.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_PERFDATA_H
#define PEBSSHIM_PERFDATA_H

#include <stdio.h>
#include <time.h>
#include "pebsshim/decode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* perf.data reader (lib/perfdata/perfdata-open.c,                    */
/* lib/perfdata/perfdata-read.c, lib/perfdata/perfdata-next.c)        */
/* ------------------------------------------------------------------ */

/*
 * The on-disk format (tools/perf/Documentation/perf.data-file-format.txt),
 * little-endian only. These definitions are shared with the writer.
 *
 *   struct pebs_perf_file_header	at offset 0
 *   attrs section: header.attrs.size / header.attr_size entries of
 *	{ struct perf_event_attr (attr_size - 16 bytes);
 *	  struct pebs_perf_file_section ids; }  (ids: an array of u64)
 *   data section: records, each starting with struct perf_event_header
 *   at data.offset + data.size: one pebs_perf_file_section per feature
 *   bit set in header.features, in bit order
 */
#define PEBS_PERF_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */

struct pebs_perf_file_section {
	uint64_t offset;	/* from the start of the file */
	uint64_t size;
};
struct pebs_perf_file_header {
	uint64_t magic;		/* PEBS_PERF_MAGIC */
	uint64_t size;		/* sizeof(struct pebs_perf_file_header) */
	uint64_t attr_size;	/* one attrs entry: attr.size + 16 */
	struct pebs_perf_file_section attrs;
	struct pebs_perf_file_section data;
	struct pebs_perf_file_section event_types; /* unused, zero */
	uint64_t features[4];	/* bitmap of enum pebs_perf_feat */
};

/* Feature sections (perf's HEADER_*; tools/perf/util/header.h). */
enum pebs_perf_feat {
	PEBS_FEAT_TRACING_DATA = 1,
	PEBS_FEAT_BUILD_ID,
	PEBS_FEAT_HOSTNAME,		/* perf string */
	PEBS_FEAT_OSRELEASE,		/* perf string */
	PEBS_FEAT_VERSION,		/* perf string */
	PEBS_FEAT_ARCH,			/* perf string */
	PEBS_FEAT_NRCPUS,		/* u32 available, u32 online */
	PEBS_FEAT_CPUDESC,		/* perf string */
	PEBS_FEAT_CPUID,		/* perf string */
	PEBS_FEAT_TOTAL_MEM,		/* u64 kB */
	PEBS_FEAT_CMDLINE,		/* u32 nr, nr perf strings */
	PEBS_FEAT_EVENT_DESC,		/* u32 nr, u32 attr_size, then nr of
					   { attr, u32 nr_ids, perf string
					   name, u64 ids[nr_ids] } */
	PEBS_FEAT_CPU_TOPOLOGY,
	PEBS_FEAT_NUMA_TOPOLOGY,
	PEBS_FEAT_BRANCH_STACK,
	PEBS_FEAT_PMU_MAPPINGS,
	PEBS_FEAT_GROUP_DESC,
	PEBS_FEAT_AUXTRACE,
	PEBS_FEAT_STAT,
	PEBS_FEAT_CACHE,
	PEBS_FEAT_SAMPLE_TIME,
	PEBS_FEAT_MEM_TOPOLOGY,
	PEBS_FEAT_CLOCKID,
	PEBS_FEAT_DIR_FORMAT,
	PEBS_FEAT_BPF_PROG_INFO,
	PEBS_FEAT_BPF_BTF,
	PEBS_FEAT_COMPRESSED,
	PEBS_FEAT_CPU_PMU_CAPS,
	PEBS_FEAT_CLOCK_DATA,
	PEBS_FEAT_HYBRID_TOPOLOGY,
	PEBS_FEAT_PMU_CAPS,
	PEBS_FEAT_BITS = 256,
};
/*
 * A "perf string" is { u32 len; char str[len]; } with str NUL-padded to
 * a multiple of 8 (len counts the padding).
 */

/*
 * struct pebs_perfdata - a perf.data file opened for reading (the file
 * is mapped read-only; records point into the mapping).
 *
 * Usage:
 *	struct pebs_perfdata *pd;
 *	const struct perf_event_header *ev;
 *	struct pebs_sample s;
 *	unsigned int idx;
 *
 *	err = pebs_perfdata__open(path, &pd);
 *	while ((err = pebs_perfdata__next(pd, &ev)) > 0) {
 *		if (ev->type != PERF_RECORD_SAMPLE)
 *			continue;
 *		if (pebs_perfdata__sample(pd, ev, &s, &idx) == 0)
 *			use(&s, pebs_perfdata__attr(pd, idx, NULL, NULL));
 *	}
 *	pebs_perfdata__close(pd);
 */
struct pebs_perfdata;

/*
 * pebs_perfdata__open - open and validate a perf.data file.
 *
 * Reads the header, the attrs (attr.size of any value: the first
 * min(size, sizeof(struct perf_event_attr)) bytes are copied, the rest
 * zeroed) with their ids, the feature bitmap and section table, and
 * HEADER_EVENT_DESC names when present. Returns 0, -errno from
 * open/fstat/mmap (-ENOENT, -EACCES, ...), -EBADMSG (not a perf.data
 * file, or a section lies outside the file), -EOPNOTSUPP (big-endian
 * or the old PERFFILE format). Pipe-mode streams ("-": standard input),
 * compressed records and unfinished files: see pebs_perfdata__open_fd.
 */
PEBS_API int pebs_perfdata__open(const char *path, struct pebs_perfdata **pdp);

/*
 * pebs_perfdata__from_memory - as __open, over @size bytes at @buf
 * (not copied: must outlive the reader). For tests and fuzzing.
 */
PEBS_API int pebs_perfdata__from_memory(const void *buf, size_t size,
					struct pebs_perfdata **pdp);

/*
 * Besides a plain file, pebs_perfdata__open and __from_memory read:
 *  - pipe-mode streams (perf record -o -: a 16-byte header, then
 *    perf's HEADER_ATTR / HEADER_FEATURE / ... records inline up to
 *    FINISHED_INIT, read when the stream is opened, so that __attr,
 *    __attr_name and __feat work at once); __open("-") reads standard
 *    input. A stream is read as it comes, in bounded memory: a record
 *    from __next is valid only until the next call, and __rewind works
 *    on a stream saved to a file (or in memory), not on a pipe (the next
 *    __next then fails with -ESPIPE).
 *  - zstd-compressed records (perf record -z): the records inside each
 *    PERF_RECORD_COMPRESSED (perf >= 6.15: COMPRESSED2, its data's size
 *    given, then padding) come out of __next, valid until its next
 *    call; the COMPRESSED records themselves are not returned. A frame
 *    that does not decompress, or to more than HEADER_COMPRESSED's
 *    mmap_len, gives -EINVAL from __next.
 *  - files perf never finished (killed perf record: the header's data
 *    size is still 0): records run to the end of the file; a last record
 *    cut short is dropped, not an error (see __truncated).
 *  - directory-format recordings (perf record --threads): @path is the
 *    directory; __next returns DIR/data's records, then those of the
 *    DIR/data.N files merged by time (each file is in time order; a
 *    record without a time keeps its place in its file).
 */

/*
 * pebs_perfdata__open_fd - as __open, on an open descriptor that the
 * reader takes over (closed on failure and by __close): a regular file
 * is mapped, a directory read as perf record --threads wrote it, and
 * anything else (a pipe, a socket) must carry a pipe-mode stream.
 * Returns as __open; -EBADMSG if a pipe carries something else,
 * -EOPNOTSUPP for a directory perf record --threads did not write.
 */
PEBS_API int pebs_perfdata__open_fd(int fd, struct pebs_perfdata **pdp);

/*
 * pebs_perfdata__open_rewindable - as __open, for callers that read the
 * recording more than once (__rewind): "-" on a pipe or socket is first
 * copied to its end into an anonymous memory file (memory grows with
 * the stream); anything else is opened as __open does. Returns as
 * __open, or -errno from reading standard input.
 */
PEBS_API int pebs_perfdata__open_rewindable(const char *path,
					    struct pebs_perfdata **pdp);

/* pebs_perfdata__header - the file header (native byte order). */
PEBS_API const struct pebs_perf_file_header *
pebs_perfdata__header(const struct pebs_perfdata *pd);

/*
 * pebs_perfdata__nr_attrs - number of events (attrs section entries plus
 * PERF_RECORD_HEADER_ATTR records seen so far by __next).
 */
PEBS_API unsigned int pebs_perfdata__nr_attrs(const struct pebs_perfdata *pd);

/*
 * pebs_perfdata__attr - event @idx: its attr (attr->size is the bytes
 * held: the file's size, at most this library's sizeof(struct
 * perf_event_attr), so the attr can go to a writer or be read up to its
 * size safely), and, if @ids is not NULL, its sample ids
 * in *ids / *nr_ids. Returns NULL if @idx is out of range. Valid until
 * close.
 */
PEBS_API const struct perf_event_attr *
pebs_perfdata__attr(const struct pebs_perfdata *pd, unsigned int idx,
		    const uint64_t **ids, size_t *nr_ids);

/*
 * pebs_perfdata__attr_name - the event's name from HEADER_EVENT_DESC
 * (e.g. "ibs_op//"), or NULL if the file has none for it.
 */
PEBS_API const char *pebs_perfdata__attr_name(const struct pebs_perfdata *pd,
					      unsigned int idx);

/*
 * A budgeted recording's duty cycles (pebs-shim record --budget, when
 * counting the events costs more than the budget: they are on in one
 * random window per cycle): a sample of this software dummy event
 * (IDENTIFIER, TID, TIME, PERIOD) where a cycle begins, its TIME that
 * of the last sample of the events before it (a sample after it is in
 * the new cycle), its PERIOD the cycle's length in ns; PERIOD 1 where
 * the events are on for good again (no cycle). The session numbers the
 * cycles (pebs_report_sample.cycle) and delivers no sample of it. The
 * id names it in a file without HEADER_EVENT_DESC (a killed recording).
 */
#define PEBS_CYCLE_EVENT	"pebs-shim:cycle"
#define PEBS_CYCLE_ID		0xfffffffffff00010ull

/* pebs_perfdata__cycle_event - the attr index of PEBS_CYCLE_EVENT in
   @pd (by name, or by its id), or -ENOENT. */
PEBS_API int pebs_perfdata__cycle_event(const struct pebs_perfdata *pd);

/* pebs_perfdata__has_feat - whether feature section @feat is present. */
PEBS_API bool pebs_perfdata__has_feat(const struct pebs_perfdata *pd,
				      unsigned int feat);

/*
 * pebs_perfdata__feat - the raw bytes of feature section @feat.
 * Returns 0, or -ENOENT if the file does not have it.
 */
PEBS_API int pebs_perfdata__feat(const struct pebs_perfdata *pd,
				 unsigned int feat, const void **data,
				 size_t *size);

/*
 * pebs_perfdata__feat_str - a feature that is one perf string (HOSTNAME,
 * OSRELEASE, VERSION, ARCH, CPUDESC, CPUID) copied NUL-terminated into
 * @buf (truncated to @len). Returns the string's length, -ENOENT
 * (absent), -EBADMSG (malformed).
 */
PEBS_API int pebs_perfdata__feat_str(const struct pebs_perfdata *pd,
				     unsigned int feat, char *buf, size_t len);

/*
 * pebs_perfdata__next - the next record of the data section.
 *
 * Returns 1 and points *ev at the record, 8-byte aligned (in the
 * mapping: valid until close; from a pipe-mode stream or a compressed
 * record, or copied because the file had it unaligned: valid until the
 * next call), 0 at the end, or
 * -EBADMSG if a record's size is smaller than its header or runs past
 * the data section (iteration stops there). The payload that follows
 * AUXTRACE and HEADER_TRACING_DATA records is skipped. HEADER_ATTR
 * records add an event (see __nr_attrs). Every record is returned,
 * including perf's own types (>= 64), except PERF_RECORD_COMPRESSED and
 * COMPRESSED2 (perf record -z): the records inside are returned instead.
 */
PEBS_API int pebs_perfdata__next(struct pebs_perfdata *pd,
				 const struct perf_event_header **ev);

/* pebs_perfdata__rewind - restart __next at the first record. */
PEBS_API void pebs_perfdata__rewind(struct pebs_perfdata *pd);

/*
 * pebs_perfdata__sample - decode a PERF_RECORD_SAMPLE with the attr its
 * id (IDENTIFIER or ID) maps to (the only attr if there is one; id 0,
 * which perf writes into records it synthesizes, maps to the first, as
 * in perf), and store that attr's index in *attr_idx (may be NULL).
 * Returns 0,
 * -EINVAL (not a sample record), -ENOENT (id matches no attr),
 * -EBADMSG (record too short), -EOPNOTSUPP (sample_type not decodable).
 */
PEBS_API int pebs_perfdata__sample(const struct pebs_perfdata *pd,
				   const struct perf_event_header *ev,
				   struct pebs_sample *s,
				   unsigned int *attr_idx);

/*
 * pebs_perfdata__sample_id - decode the trailing sample_id of a kernel
 * non-sample record (COMM, MMAP2, EXIT, ...) written with sample_id_all.
 * Returns as __sample; -ENOENT also when the attr lacks sample_id_all or
 * the record is one of perf's own (type >= 64).
 */
PEBS_API int pebs_perfdata__sample_id(const struct pebs_perfdata *pd,
				      const struct perf_event_header *ev,
				      struct pebs_sample *s,
				      unsigned int *attr_idx);

/* pebs_perfdata__is_pipe - whether the input is a pipe-mode stream. */
PEBS_API bool pebs_perfdata__is_pipe(const struct pebs_perfdata *pd);

/*
 * pebs_perfdata__truncated - whether the recording was cut short: the
 * header's data size is 0 (perf record did not finish; perf warns "Was
 * the 'perf record' command properly terminated?"), or the last record
 * read so far ran past the end of the file or stream and was dropped.
 */
PEBS_API bool pebs_perfdata__truncated(const struct pebs_perfdata *pd);

/* pebs_perfdata__close - unmap and free; NULL is allowed. */
PEBS_API void pebs_perfdata__close(struct pebs_perfdata *pd);

/* ------------------------------------------------------------------ */
/* perf.data writer (lib/perfdata/perfdata-write.c,                   */
/* lib/perfdata/perfdata-feat.c, lib/perfdata/synth.c)                */
/* ------------------------------------------------------------------ */

/*
 * A perf.data (PERFILE2) file that perf script/report read without
 * warnings. Order of calls:
 *
 *	pebs_perfdata_writer__create(path, &w);
 *	pebs_perfdata_writer__add_attr(w, attr, ids, nr_ids, name);  (1+)
 *	pebs_perfdata_writer__set_cmdline(w, argc, argv);	(optional)
 *	pebs_perfdata_writer__synth_task(w, pid);		(per process)
 *	pebs_perfdata_writer__write(w, record);			(any record)
 *	pebs_perfdata_writer__close(w);
 *
 * Records are batched in a large buffer (one write() per buffer). The
 * header goes first and its data size is updated at every flush, so a
 * recording killed after the commit reads to its last flush; __close()
 * writes the feature sections (see pebs_perfdata_writer__create for the
 * list) and the final header.
 * A writer is not thread-safe; no call may be made from a signal
 * handler (the record tool sets a flag there and calls __close() from
 * its main loop).
 *
 * Records need not be in time order: perf sorts them. A record tool
 * that drains several rings should write a PERF_RECORD_FINISHED_ROUND
 * header (type 68, size 8) after each pass over all rings, as perf
 * record does, so that perf can sort in rounds.
 */
struct pebs_perfdata_writer;

/* What has been written so far. */
struct pebs_perfdata_writer_stats {
	uint64_t records;	/* records written (incl. synthesized) */
	uint64_t samples;	/* PERF_RECORD_SAMPLE */
	uint64_t lost;		/* sum of PERF_RECORD_LOST.lost */
	uint64_t bytes;		/* data section size */
	uint64_t first_time;	/* first/last sample TIME (if sampled) */
	uint64_t last_time;
};

/*
 * pebs_perfdata_writer__create - a writer of the perf.data file @path,
 * built unseen: @path must be absent or a regular file (-EEXIST
 * otherwise), and the file is an O_TMPFILE in the path's directory (else
 * a hidden temporary name), so nothing at @path changes until
 * pebs_perfdata_writer__commit() (or __close(), which commits). The
 * header is written with the first record and its data size is updated
 * after every flush, so a recording killed after the commit reads up to
 * its last flushed record. Records are flushed at least once a second
 * (at a PERF_RECORD_FINISHED_ROUND) and when the 1 MiB buffer fills; a
 * flush cut short by a full disk keeps the whole records that made it.
 * __close() appends the feature sections (CPU_TOPOLOGY, NUMA_TOPOLOGY,
 * PMU_MAPPINGS, CACHE and MEM_TOPOLOGY among them) and sets their bits.
 * attrs are written with PERF_ATTR_SIZE_VER7 bytes unless a later field
 * is set. HEADER_BUILD_ID also holds the kernel ([kernel.kallsyms], from
 * /sys/kernel/notes) and the vdso ([vdso]). Returns 0, or -errno from
 * open/write (pebs_errmsg(): "cannot create <path>: <strerror>: ...").
 */
PEBS_API int pebs_perfdata_writer__create(const char *path,
					  struct pebs_perfdata_writer **wp);

/*
 * pebs_perfdata_writer__create_pipe - a writer of perf's pipe format on
 * @fd (perf record -o -; read by perf report -i -): a 16-byte header,
 * then a HEADER_ATTR record per event and a HEADER_FEATURE record per
 * feature known at the start (no BUILD_ID, no SAMPLE_TIME), written with
 * the first record, then the records. @fd is not closed by __close().
 * Returns 0, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__create_pipe(int fd,
					       struct pebs_perfdata_writer **wp);

/*
 * pebs_perfdata_writer__set_cmdline - the command line stored in
 * HEADER_CMDLINE (perf report --header shows it; pebs-shim report
 * prints it). Copied. Convention: pebs-shim record stores its own argv
 * and, when it chose an attribution mode itself, appends the effective
 * one as "--attribution=<mode>", which pebs-shim report displays.
 * Returns 0, -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__set_cmdline(struct pebs_perfdata_writer *w,
					       int argc,
					       const char *const *argv);

/*
 * pebs_perfdata_writer__add_attr - declare an event: its attr (copied:
 * attr->size bytes, 0 meaning the library's sizeof(struct
 * perf_event_attr); bytes past the library's struct must be zero), the
 * sample ids
 * the kernel gave its fds (PERF_EVENT_IOC_ID; may be NULL if nr_ids is
 * 0, which is only allowed for a single event) and its name (NULL: none;
 * shown by perf as the event name). Must precede the first record.
 * With two or more events every attr needs PERF_SAMPLE_IDENTIFIER and
 * the same sample_id_all (perf cannot tell the events apart otherwise).
 * Returns 0, -EINVAL (after the first record, the rule above, attr->size
 * below PERF_ATTR_SIZE_VER0, or a non-zero byte past the library's
 * struct), -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__add_attr(struct pebs_perfdata_writer *w,
					    const struct perf_event_attr *attr,
					    const uint64_t *ids,
					    unsigned int nr_ids,
					    const char *name);

/*
 * pebs_perfdata_writer__add_group - events @leader .. @leader +
 * @nr_members - 1 (indexes in the order of __add_attr, added already)
 * form one group, as perf's {a,b}: written as HEADER_GROUP_DESC, which
 * perf report --group, perf evlist -g and perf report --header show.
 * @name: NULL for perf's anonymous group ("{anon_group}"). Must precede
 * the first record. Returns 0, -EINVAL (fewer than two events, events
 * not added yet, an event already in a group, after the first record),
 * -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__add_group(struct pebs_perfdata_writer *w,
					     unsigned int leader,
					     unsigned int nr_members,
					     const char *name);

/*
 * pebs_perfdata_writer__synth_task - synthesize what perf needs to name
 * the threads and symbols of process @pid, which may already be running:
 * a PERF_RECORD_COMM per thread (/proc/<pid>/task/<tid>/comm) and a
 * PERF_RECORD_MMAP2 per executable mapping of /proc/<pid>/maps (with
 * pgoff, device, inode, prot, flags). When the attrs have sample_id_all
 * the records carry a sample_id trailer: the thread, TIME 0 (sorted
 * before every sample), CPU 0 and the first event's first id. Returns
 * the number of threads seen, -ESRCH if the process is gone, or -errno.
 * The writer also synthesizes the kernel map ([kernel.kallsyms]_text)
 * before the first record when an event samples the kernel and
 * /proc/kallsyms shows addresses, as perf record does, and, when an
 * event samples PERF_SAMPLE_ADDR, the data mappings too (misc
 * PERF_RECORD_MISC_MMAP_DATA, "//anon" for anonymous ones), as perf
 * record -d does.
 */
PEBS_API int pebs_perfdata_writer__synth_task(struct pebs_perfdata_writer *w,
					      pid_t pid);

/*
 * pebs_perfdata_writer__write - append one record (any type: SAMPLE,
 * COMM, MMAP2, LOST, SWITCH, FINISHED_ROUND, ...) as is. Samples and
 * LOST records are counted in the stats; sample TIME feeds
 * HEADER_SAMPLE_TIME. Returns 0, -EINVAL (header.size < 8 or not a
 * multiple of 8), or -errno from write().
 */
PEBS_API int pebs_perfdata_writer__write(struct pebs_perfdata_writer *w,
					 const struct perf_event_header *ev);

/*
 * pebs_perfdata_writer__commit - recording really started: write the
 * header and what is buffered, move an existing non-empty @path to
 * @path.old (pebs_output__backup) and give the file its path. Call it
 * once the events are open and the command exec'd; no-op for a pipe or
 * when already done. Returns 0 or -errno (pebs_errmsg() says which step
 * failed and names the path).
 */
PEBS_API int pebs_perfdata_writer__commit(struct pebs_perfdata_writer *w);

/* pebs_perfdata_writer__stats - the counters so far. */
PEBS_API const struct pebs_perfdata_writer_stats *
pebs_perfdata_writer__stats(const struct pebs_perfdata_writer *w);

/*
 * pebs_perfdata_writer__discard - drop a writer without finishing it:
 * an uncommitted file never appears; a committed one stays as far as it
 * was flushed. Frees @w (NULL is allowed).
 */
PEBS_API void pebs_perfdata_writer__discard(struct pebs_perfdata_writer *w);

/*
 * pebs_perfdata_writer__close - flush, write the feature sections and
 * the final header, close the file and free @w (NULL is allowed, then
 * it returns 0). Returns 0 or the first -errno of the flush/writes (the
 * writer is freed in every case).
 */
PEBS_API int pebs_perfdata_writer__close(struct pebs_perfdata_writer *w);

/* ------------------------------------------------------------------ */
/* Output paths (lib/perfdata/output.c)                               */
/* ------------------------------------------------------------------ */

/*
 * pebs_output__check - whether @path may receive a recording: absent, or
 * a regular file. Returns 0, -EEXIST (exists and is a directory, device,
 * fifo or socket; pebs_errmsg() names which), -EINVAL (empty path) or
 * -errno from stat.
 */
PEBS_API int pebs_output__check(const char *path);

/*
 * pebs_output__backup - perf's rule for an existing output: a non-empty
 * regular file @path is renamed to "@path.old" (replacing an old one);
 * an absent or empty file is left alone. Returns 0, the errors of
 * pebs_output__check(), or -errno from rename (pebs_errmsg() names both
 * paths).
 */
PEBS_API int pebs_output__backup(const char *path);

/* ------------------------------------------------------------------ */
/* A recording's builds into the build-id cache                       */
/* (lib/perfdata/buildid-write.c)                                     */
/* ------------------------------------------------------------------ */

/*
 * pebs_buildid_cache__add_perfdata - pebs_buildid_cache__add for every
 * file and the vdso of the build id table (HEADER_BUILD_ID) of the
 * recording @path, as perf record does at its end unless
 * --no-buildid-cache, the kernel's kallsyms too; files gone or rebuilt
 * since (another boot's kernel) are skipped. Returns the number cached,
 * or -errno (@path cannot be read: pebs_perfdata__open's errors).
 */
PEBS_API int pebs_buildid_cache__add_perfdata(const char *path);

/* ---- perfdata: the header as perf report --header-only prints it (lib/perfdata/perfdata-header.c) ---- */

#define PEBS_HEADER_FULL	1u	/* perf's -I: the topologies in full */

/*
 * pebs_perfdata__print_header - @pd's file header and feature sections
 * as perf 6.1's `perf report --header-only` prints them, between its
 * "# ========" lines: "captured on" (the file's modification time
 * @captured, ctime's words; 0: no such line), offsets, each feature perf
 * knows in bit order with perf's words (no build ids: perf prints none
 * there), the missing ones. @flags: PEBS_HEADER_FULL prints the CPU and
 * NUMA topologies and caches instead of "info available". Returns 0,
 * -EINVAL, -EIO (write error).
 */
PEBS_API int pebs_perfdata__print_header(const struct pebs_perfdata *pd,
					 FILE *f, time_t captured,
					 unsigned int flags);

/* ---- perfdata: records counted by type (lib/perfdata/perfdata-stats.c) ---- */

/*
 * pebs_perfdata__print_stats - perf 6.1's `perf report --stats`: the
 * records of @pd from where __next is to the end counted by type with
 * perf's names ("Aggregated stats:", TOTAL first, then each type's count
 * and share; a COMPRESSED record and each record inside it count), then
 * per event its samples and lost samples ("NAME stats:"). With
 * @skip_empty (perf's default) zero counts are left out. Returns 0,
 * -EINVAL, -ENOMEM, -EBADMSG (a damaged record: nothing printed), -EIO.
 */
PEBS_API int pebs_perfdata__print_stats(struct pebs_perfdata *pd,
					bool skip_empty, FILE *f);

/* ---- perfdata: pebs-shim's metadata in a recording (lib/perfdata/perfdata-meta.c) ---- */

/*
 * pebs_perfdata_writer__set_meta - record "@key=@value" in the file
 * (files and pipes) as a word of HEADER_VERSION after "pebs-shim"
 * ("pebs-shim attribution=tid": perf prints it as the perf version and
 * reads nothing into it), replacing @key's value; pebs-shim record
 * stores "attribution=MODE" so. Returns 0, -EINVAL (empty, a blank or
 * a non-printable character, '=' in the key, 1 KiB in all), -ENOMEM.
 */
PEBS_API int pebs_perfdata_writer__set_meta(struct pebs_perfdata_writer *w,
					    const char *key,
					    const char *value);

/*
 * pebs_perfdata__meta - the value of @key in @pd's HEADER_VERSION words
 * (a file pebs-shim wrote) into @buf (at most @len bytes with the NUL).
 * Returns its length, -ENOENT (not pebs-shim's, or no such key), -EINVAL.
 */
PEBS_API int pebs_perfdata__meta(const struct pebs_perfdata *pd,
				 const char *key, char *buf, size_t len);

/* ---- perfdata: an output replaced whole ---- */

/*
 * pebs_output__replace - write @path through @write(@ctx, f) into a new
 * file beside it (@path.XXXXXX), given the umask's permissions and
 * renamed over @path only once all of it is written: a failure leaves
 * @path as it was and no file behind. @path must be absent or a regular
 * file (pebs_output__check). Returns 0, the errors of
 * pebs_output__check(), or -errno of creating, writing or renaming, or
 * @write's -errno (pebs_errmsg() names the path). Reads the umask by
 * setting it: call it while no other thread creates files.
 */
PEBS_API int pebs_output__replace(const char *path,
				  int (*write)(void *ctx, FILE *f), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_PERFDATA_H */
