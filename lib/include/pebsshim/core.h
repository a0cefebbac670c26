/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/core.h - libpebsshim: errors, option structs, CPU lists:
 * what every module uses.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_CORE_H
#define PEBSSHIM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what libpebsshim exports (it is built with -fvisibility=hidden). */
#define PEBS_API __attribute__((visibility("default")))

/*
 * Declare and zero an options (or callbacks) struct with its size set:
 *	PEBS_OPTS(pebs_channel_opts, o, .period = 20011);
 *	static const PEBS_OPTS(pebs_chanset_cbs, cbs, .on_sample = f);
 */
#define PEBS_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

/* Pins the size of a public struct (C11 and C++11). */
#ifdef __cplusplus
#define PEBS_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PEBS_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* ------------------------------------------------------------------ */
/* Errors (lib/core/error.c)                                          */
/* ------------------------------------------------------------------ */

/*
 * pebs_errmsg - the reason for the calling thread's last failure.
 *
 * Returns a one-line message (no trailing newline) naming the cause and
 * what to do, or "" if nothing failed yet. Valid until the next library
 * call in this thread.
 */
PEBS_API const char *pebs_errmsg(void);

/* ------------------------------------------------------------------ */
/* CPU lists (lib/core/cpulist.c)                                     */
/* ------------------------------------------------------------------ */

/* CPU ids a bitmap of the tools covers (Debian's NR_CPUS) */
#define PEBS_MAX_CPUS	8192

/*
 * pebs_cpulist__parse - "0-3,8,10-11" into @bitmap, (max_cpus + 63) / 64
 * words (cleared first; CPU c is bit c % 64 of word c / 64). Returns 0,
 * -EINVAL (a bad token, named in pebs_errmsg()), or -ERANGE (a CPU >=
 * @max_cpus).
 */
PEBS_API int pebs_cpulist__parse(const char *str, unsigned int max_cpus,
				 uint64_t *bitmap);

/*
 * pebs_cpulist__online - the online CPUs (/sys/devices/system/cpu/online)
 * into @bitmap as pebs_cpulist__parse fills it. Returns 0 or -errno, the
 * file named in pebs_errmsg().
 */
PEBS_API int pebs_cpulist__online(unsigned int max_cpus, uint64_t *bitmap);

/*
 * pebs_cpulist__next - the first CPU >= @from (0 for the first) set in
 * @bitmap, or -1: for (c = next(b, n, 0); c >= 0; c = next(b, n, c + 1)).
 */
PEBS_API int pebs_cpulist__next(const uint64_t *bitmap, unsigned int max_cpus,
				int from);

/* ---- core: id lists, CPU lists as ids, /proc's processes ---- */

/*
 * struct pebs_ids - a growable list of ids (pids, tids, CPUs): @v holds
 * @n of them (room for @cap). Start from { 0 }; pebs_ids__free empties it.
 */
struct pebs_ids {
	int *v;
	unsigned int n, cap;
};

/* pebs_ids__push - append @id. Returns 0, -EINVAL or -ENOMEM. */
PEBS_API int pebs_ids__push(struct pebs_ids *l, int id);
/* pebs_ids__add - append @id unless @l holds it. Returns as __push. */
PEBS_API int pebs_ids__add(struct pebs_ids *l, int id);
/* pebs_ids__has - whether @l holds @id */
PEBS_API bool pebs_ids__has(const struct pebs_ids *l, int id);
/* pebs_ids__free - free the ids; @l is then empty (and reusable) */
PEBS_API void pebs_ids__free(struct pebs_ids *l);

/*
 * pebs_ids__parse - an id list, "1234,20-22" (decimal ids and inclusive
 * ranges of at most 8193 ids, comma-separated; the grammar of perf's -p,
 * -t, --pid and --tid), appended to @l without repeats, in the order
 * given. Returns 0, -EINVAL (the bad item named in pebs_errmsg(); ids
 * before it may have been appended) or -ENOMEM.
 */
PEBS_API int pebs_ids__parse(struct pebs_ids *l, const char *str);

/*
 * pebs_cpulist__ids - the CPUs set in @bitmap (as pebs_cpulist__parse
 * fills it), in order, appended to @out. Returns 0, -EINVAL or -ENOMEM.
 */
PEBS_API int pebs_cpulist__ids(const uint64_t *bitmap, unsigned int max_cpus,
			       struct pebs_ids *out);

/*
 * pebs_proc__pids - every process now running (/proc), appended to @out
 * without repeats. Returns 0, -ENOMEM, or -errno of reading /proc.
 */
PEBS_API int pebs_proc__pids(struct pebs_ids *out);

/*
 * pebs_proc__tasks - the threads of process @pid (/proc/PID/task),
 * appended to @out without repeats. Returns 0, -ESRCH (@pid is gone),
 * -EINVAL or -ENOMEM.
 */
PEBS_API int pebs_proc__tasks(pid_t pid, struct pebs_ids *out);

/*
 * pebs_proc__tgid - the process of thread @tid (/proc/TID/status), or
 * -ESRCH if @tid is gone.
 */
PEBS_API pid_t pebs_proc__tgid(pid_t tid);

/*
 * pebs_proc__comm - the name of thread @tid (/proc/TID/comm, without
 * its newline) into @buf (@len bytes, cut to fit). Returns 0, or -ESRCH
 * (@tid is gone; @buf unchanged) or -EINVAL.
 */
PEBS_API int pebs_proc__comm(pid_t tid, char *buf, size_t len);

/* ---- core: a command held before its exec ---- */

/*
 * struct pebs_workload - a command forked and held before its exec
 * (perf's prepare/start workload), so that the events watching it are
 * open when it starts: @pid is the child (-1: none). Start from
 * PEBS_WORKLOAD_INIT.
 */
struct pebs_workload {
	pid_t pid;
	int go_fd;		/* write end: one byte releases the child */
	int err_fd;		/* read end: errno of a failed exec, or EOF */
	const char *file;	/* argv[0] */
};

#define PEBS_WORKLOAD_INIT { .pid = -1, .go_fd = -1, .err_fd = -1 }

/*
 * pebs_workload__fork - fork the command @argv (argv[0] looked up in
 * PATH at the exec); the child waits for pebs_workload__go. @flags:
 * PEBS_WORKLOAD_STDOUT_TO_STDERR sends the command's standard output to
 * standard error (for a recording written to standard output, as perf
 * does). Returns 0, -EINVAL (no command, an unknown flag), or -errno of
 * pipe2/fork (named in pebs_errmsg()).
 */
#define PEBS_WORKLOAD_STDOUT_TO_STDERR	(1u << 0)
PEBS_API int pebs_workload__fork(char *const argv[], unsigned int flags,
				 struct pebs_workload *w);

/*
 * pebs_workload__go - release the child: it execs. Returns 0 once the
 * exec succeeded, or the exec's -errno (e.g. -ENOENT; the child is then
 * reaped and w->pid is -1), named in pebs_errmsg().
 */
PEBS_API int pebs_workload__go(struct pebs_workload *w);

/*
 * pebs_workload__abort - end a child never released (it exits 127
 * without its exec) and reap it; closes what is left open. Safe on a
 * released child (its pipes are closed) or on PEBS_WORKLOAD_INIT.
 */
PEBS_API void pebs_workload__abort(struct pebs_workload *w);

/* ------------------------------------------------------------------ */
/* Strings in csv and json outputs (lib/core/quote.c)                 */
/* ------------------------------------------------------------------ */

/*
 * pebs_csv__str - write @s to @f as one CSV field (RFC 4180): as it is,
 * or quoted with its quotes doubled when it holds a comma, a quote or a
 * line break.
 */
PEBS_API void pebs_csv__str(FILE *f, const char *s);

/*
 * pebs_json__str - write @s to @f as a JSON string: in quotes, with
 * quotes and backslashes escaped and control characters as \u00XX.
 */
PEBS_API void pebs_json__str(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_CORE_H */
