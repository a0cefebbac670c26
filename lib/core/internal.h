/* SPDX-License-Identifier: MIT */
/* internal.h - helpers shared by the library's .c files; not installed. */
#ifndef PEBSSHIM_INTERNAL_H
#define PEBSSHIM_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <string.h>
#include <time.h>

#include "pebsshim/core.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* CLOCK_MONOTONIC now, in ns */
static inline uint64_t core_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The lowest kernel address, as the library tells kernel from user
 * addresses without the kernel's maps: x86-64's kernel half, as perf's
 * machine__get_kernel_start assumes before it knows the kernel's map.
 */
#define KERNEL_START	(1ULL << 63)

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
 * core_err - record a one-line reason for the calling thread and return
 * @err (a negative errno) so that callers can write
 *	return core_err(-ENOENT, "%s not found: ...", path);
 */
int core_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* core_err_clear - forget the last reason (on success paths). */
void core_err_clear(void);

/*
 * core_grow - room for @need elements of @size bytes in the array at
 * *@arrp (a pointer to the array's pointer) of *@cap elements: doubled
 * until they fit (lib/core/grow.c); core_grow_zero also zeroes the new
 * elements. 0, or -ENOMEM (the array unchanged).
 */
int core_grow(void *arrp, size_t *cap, size_t need, size_t size);
int core_grow_zero(void *arrp, size_t *cap, size_t need, size_t size);

/*
 * big_calloc, big_free - zeroed memory for a large table read
 * at random (huge pages when large; lib/core/bigmem.c); free it with the
 * same @n and @size. NULL when out of memory.
 */
void *big_calloc(size_t n, size_t size);
void big_free(void *p, size_t n, size_t size);

/*
 * core_read_small - a small file (/proc, /sys) into @buf, NUL-terminated
 * (lib/core/proc.c); the bytes read or -errno (then @buf is untouched).
 */
ssize_t core_read_small(const char *path, char *buf, size_t len);

/*
 * core_open_file, core_fopen_file - a file a recording names (a mapped
 * object, a debug file, a perf map: lib/core/file.c) opened for reading,
 * never blocking: an fd or a FILE, else -1 or NULL with errno set
 * (EINVAL: it is no regular file, a FIFO or a device).
 */
int core_open_file(const char *path);
FILE *core_fopen_file(const char *path);

/*
 * core_cpuinfo_field - the value of the first "@key<blanks>: value" line
 * of @text (/proc/cpuinfo's), at most @len - 1 bytes, or "".
 */
void core_cpuinfo_field(const char *text, const char *key, char *out,
			size_t len);

/*
 * /proc's CPU time and context switches (lib/core/proc.c):
 * core_stat_ticks - utime + stime (+ cutime + cstime with @children) of
 * a /proc/.../stat line, in clock ticks, -1 if malformed;
 * core_stat_file_ticks - the same of the file @path (-1: unreadable);
 * core_cpu_busy - the busy ticks (all but idle and iowait) of @cpus in
 * /proc/stat's text (from its first '\n'); core_proc_stat - /proc/stat
 * read once: those busy ticks added to *@busy and the machine's context
 * switches (ctxt) into *@ctxt, false if unreadable;
 * core_task_switches - the (non)voluntary context switches of each
 * thread of @pid (of its thread @tid alone if > 0), 0 if gone.
 */
struct pebs_ids;
/* idlist.c: the ids of @add[0..@n) that @l lacks, the first of repeats,
   appended in order (O(m log m)). 0 or -ENOMEM */
int core_ids_merge(struct pebs_ids *l, const int *add, unsigned int n);
int64_t core_stat_ticks(const char *line, bool children);
int64_t core_stat_file_ticks(const char *path, bool children);
int64_t core_cpu_busy(const char *text, const struct pebs_ids *cpus);
bool core_proc_stat(const struct pebs_ids *cpus, int64_t *busy,
		    uint64_t *ctxt);
uint64_t core_task_switches(pid_t pid, pid_t tid);

/*
 * core_switches_read - the context switches of the threads of @procs
 * (processes, or threads if @tids) since the first call, read from
 * /proc at most CORE_SWITCHES_READS threads a call, in turn: each read
 * adds its thread's growth since its own last read, so a call's sum
 * stands for about one call's switches of every thread however many
 * there are, and the work per call stays bounded (two /proc files a
 * thread every 200 ms took seconds between two reads of the rings of a
 * recorder among hundreds of threads on two CPUs: record-budget.c). A
 * thread counts from its first read; one that ended adds nothing more.
 * core_switches_free - its memory.
 */
#define CORE_SWITCHES_READS	64
struct core_switches {
	struct core_sw_seen {
		int tid;
		bool read;		/* n holds its count */
		bool live;		/* found alive (while pruning) */
		uint64_t n;		/* its switches at its last read */
	} *seen;			/* sorted by tid */
	size_t nr, cap;
	size_t next;			/* the next thread to read, in the list */
	uint64_t total;
};
uint64_t core_switches_read(struct core_switches *cs,
			    const struct pebs_ids *procs, bool tids);
void core_switches_free(struct core_switches *cs);

/*
 * core_fnv - FNV-1a, 64 bits: @n bytes at @p hashed on from @h
 * (CORE_FNV_SEED to start); the library's one string and key hash
 */
#define CORE_FNV_SEED	0xcbf29ce484222325ull
static inline uint64_t core_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

/*
 * A set of strings, each kept once (lib/core/strset.c): zeroed to
 * start. core_strset_add - the set's copy of @s, added if new (equal
 * strings give one pointer, valid until core_strset_free), or NULL when
 * out of memory. Its slots are tab[0..cap), NULL where empty.
 */
struct core_strset {
	char **tab;
	size_t nr, cap;
};
const char *core_strset_add(struct core_strset *set, const char *s);
void core_strset_free(struct core_strset *set);

/* core_base_name - what follows @path's last '/' (all of it if none) */
static inline const char *core_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

#endif /* PEBSSHIM_INTERNAL_H */
