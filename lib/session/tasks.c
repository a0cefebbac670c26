// SPDX-License-Identifier: MIT
/*
 * tasks.c - the recorded tasks and their address spaces, as perf 6.1's
 * `perf report --tasks` and `--mmaps` print them (builtin-report.c:
 * tasks_print, task__print_level, maps__fprintf_task), from perf's
 * machine as util/machine.c, thread.c, map.c and maps.c keep it:
 *
 * - threads: the idle thread 0/0 "swapper" first; COMM, FORK, EXIT (and
 *   MMAP/MMAP2 with --mmaps) find or make the thread of their pid/tid.
 *   A new thread is ":TID" until a COMM (or its parent's, at FORK)
 *   names it; one of another process's pid makes that process's leader
 *   too and shares its maps. A known thread of pid -1 takes the pid
 *   given later. FORK drops the threads already holding the child's tid
 *   and, when its pid differs, the parent's; the child's ppid is the
 *   parent's tid, and a new process copies the parent's maps (not when
 *   perf synthesized the FORK: PERF_RECORD_MISC_FORK_EXEC). EXIT ends
 *   nothing that is printed.
 * - maps (with --mmaps): a user MMAP/MMAP2 goes into its process's maps
 *   (lib/session/tasks-maps.c: perf's overlap rules and dsos). MMAP's
 *   prot is EXEC unless it is data, its flags 0. The name is perf's dso
 *   name: an anonymous executable map is /tmp/perf-PID.map (PID: the
 *   thread's when it was made), [vdso] has offset 0; the id is read
 *   from MMAP2's union even when the record carries a build id.
 *
 * The tree: threads in perf's order (tid modulo 256, then tid), each
 * under the thread whose tid is its ppid, roots (ppid -1) in the order
 * first reached. A cycle of ppids is printed by neither. Bounds for
 * hostile input: the indent stops growing at TASKS_MAX_LEVEL levels, so
 * the output stays linear; the threads are in a hash table, the maps
 * bounded (tasks-maps.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/session.h"
#include "session/tasks-int.h"
#include "symbols/dso.h"

#define TASKS_MAX_LEVEL	1024		/* indent levels printed */
#define TABLE_SIZE	256		/* perf's THREADS__TABLE_SIZE */
#define MISC_CPUMODE	7		/* PERF_RECORD_MISC_CPUMODE_MASK */
#define F_HUGETLB	0x40000		/* MAP_HUGETLB */

struct task {
	int32_t pid, tid, ppid, nspid;	/* nspid: pid when made */
	const char *comm;		/* NULL: ":TID" */
	struct tk_maps *maps;
	bool live;
	uint32_t child, last, sibling;	/* the tree (print) */
	bool listed;
};

struct pebs_tasks {
	unsigned int flags;
	struct task *t;
	size_t nr, cap;
	struct tk_chains tids;		/* the live tasks by tid */
	size_t nr_live;
	struct tk_space sp;		/* maps, dsos, names */
};

/* ---- threads: perf's machine__findnew_thread ---- */

static uint32_t lookup(const struct pebs_tasks *ts, int32_t tid)
{
	return tk_chains_first(&ts->tids, (uint32_t)tid);
}

static void unhash(struct pebs_tasks *ts, uint32_t idx)
{
	tk_chains_remove(&ts->tids, idx);
	ts->t[idx].live = false;
	ts->nr_live--;
	tk_maps_put(&ts->sp, ts->t[idx].maps);
	ts->t[idx].maps = NULL;
}

static int findnew(struct pebs_tasks *ts, int32_t pid, int32_t tid,
		   bool create, uint32_t *idx);

/* perf's machine__update_thread_pid: a thread of pid -1 learns it */
static int update_pid(struct pebs_tasks *ts, uint32_t idx, int32_t pid)
{
	uint32_t leader;
	int err;

	if (pid == ts->t[idx].pid || pid == -1 || ts->t[idx].pid != -1)
		return 0;
	ts->t[idx].pid = pid;
	if (pid == ts->t[idx].tid)
		return 0;
	err = findnew(ts, pid, pid, true, &leader);
	if (err || ts->t[idx].maps == ts->t[leader].maps)
		return err;
	tk_maps_put(&ts->sp, ts->t[idx].maps);
	ts->t[idx].maps = ts->t[leader].maps;
	ts->t[idx].maps->refs++;
	return 0;
}

/* the live thread of @tid (TK_NONE in *idx if none and not @create) */
static int findnew(struct pebs_tasks *ts, int32_t pid, int32_t tid,
		   bool create, uint32_t *idx)
{
	struct task *t;
	uint32_t i = lookup(ts, tid), leader;
	int err;

	*idx = i;
	if (i != TK_NONE)
		return update_pid(ts, i, pid);
	if (!create)
		return 0;
	if (core_grow(&ts->t, &ts->cap, ts->nr + 1, sizeof(*ts->t)) ||
	    tk_chains_add(&ts->tids, (uint32_t)tid))
		return tk_oom();
	i = (uint32_t)ts->nr++;
	t = &ts->t[i];
	*t = (struct task){ .pid = pid, .tid = tid, .ppid = -1, .nspid = pid,
			    .live = true };
	ts->nr_live++;
	*idx = i;
	if (pid != tid && pid != -1) {	/* thread__init_maps: the leader's */
		err = findnew(ts, pid, pid, true, &leader);
		if (err)
			return err;
		ts->t[i].maps = ts->t[leader].maps;
		ts->t[i].maps->refs++;
		return 0;
	}
	return tk_maps_new(&ts->t[i].maps);
}

/* ---- records ---- */

static int on_comm(struct pebs_tasks *ts, const struct pebs_record *r)
{
	const char *c;
	char buf[16];		/* TASK_COMM_LEN */
	uint32_t i;
	int err = findnew(ts, (int32_t)r->comm.pid, (int32_t)r->comm.tid,
			  true, &i);

	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%s", r->comm.comm);
	c = core_strset_add(&ts->sp.names, buf);
	if (!c)
		return tk_oom();
	ts->t[i].comm = c;
	return 0;
}

/* perf's machine__process_fork_event and thread__fork */
static int on_fork(struct pebs_tasks *ts, const struct perf_event_header *ev,
		   const struct pebs_record *r)
{
	int32_t ppid = (int32_t)r->task.ppid, ptid = (int32_t)r->task.ptid;
	struct tk_maps *from, *to;
	uint32_t child, parent;
	int err;

	if ((err = findnew(ts, (int32_t)r->task.pid, (int32_t)r->task.tid,
			   false, &child)) ||
	    (err = findnew(ts, ppid, ptid, true, &parent)))
		return err;
	if (ts->t[parent].pid != ppid) {	/* an erroneous parent */
		unhash(ts, parent);
		if ((err = findnew(ts, ppid, ptid, true, &parent)))
			return err;
	}
	if (child != TK_NONE && ts->t[child].live)	/* the tid's old thread */
		unhash(ts, child);
	if ((err = findnew(ts, (int32_t)r->task.pid, (int32_t)r->task.tid,
			   true, &child)))
		return err;
	if (ts->t[parent].comm)
		ts->t[child].comm = ts->t[parent].comm;
	ts->t[child].ppid = ts->t[parent].tid;
	from = ts->t[parent].maps;	/* NULL: the parent was the old one */
	to = ts->t[child].maps;
	if (ts->t[child].pid == ts->t[parent].pid || !from || from == to ||
	    (ev->misc & PERF_RECORD_MISC_FORK_EXEC))
		return 0;
	return tk_maps_copy(&ts->sp, to, from);
}

/* perf's machine__process_mmap{,2}_event and map__new, user maps */
static int on_mmap(struct pebs_tasks *ts, const struct perf_event_header *ev,
		   const struct pebs_record *r)
{
	const unsigned char *p = (const unsigned char *)(ev + 1);
	const char *name = r->mmap.filename;
	struct tk_map n = { .start = r->mmap.start, .pgoff = r->mmap.pgoff };
	uint32_t maj = 0, min = 0, i;
	uint64_t ino = 0, gen = 0;
	char buf[32];
	bool anon;
	int err;

	if ((ev->misc & MISC_CPUMODE) == PERF_RECORD_MISC_KERNEL ||
	    (ev->misc & MISC_CPUMODE) == PERF_RECORD_MISC_GUEST_KERNEL)
		return 0;	/* the kernel's maps: not a task's */
	n.end = r->mmap.start + r->mmap.len;
	if (ev->type == PERF_RECORD_MMAP2) {
		/* perf 6.1 reads the id from the union, build id or not */
		maj = ld32(p + 32);
		min = ld32(p + 36);
		ino = ld64(p + 40);
		gen = ld64(p + 48);
		n.prot = r->mmap.prot;
		n.flags = r->mmap.flags;
	} else {
		n.prot = r->mmap.data ? 0 : TK_EXEC;
	}
	if ((err = findnew(ts, (int32_t)r->mmap.pid, (int32_t)r->mmap.tid,
			   true, &i)))
		return err;
	/* map__new's is_anon_memory, a huge page, is_no_dso_memory */
	anon = dso_anon_name(name) || (n.flags & F_HUGETLB);
	if (anon && ts->t[i].nspid && (n.prot & TK_EXEC)) {
		snprintf(buf, sizeof(buf), "/tmp/perf-%d.map", ts->t[i].nspid);
		name = buf;
	}
	if (!strcmp(name, "[vdso]")) {	/* machine__findnew_vdso */
		n.pgoff = 0;
		maj = min = 0;
		ino = gen = 0;
	}
	if ((err = tk_dso_findnew(&ts->sp, name, maj, min, ino, gen, &n.dso)))
		return err;
	return tk_map_insert(&ts->sp, ts->t[i].maps, &n);
}

int pebs_tasks__new(unsigned int flags, struct pebs_tasks **tp)
{
	struct pebs_tasks *ts;
	uint32_t idle;
	int err;

	if (!tp || (flags & ~PEBS_TASKS_MMAPS))
		return core_err(-EINVAL, "tasks: bad flags or no result pointer");
	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return tk_oom();
	ts->flags = flags;
	ts->sp.seed = 0x2545f4914f6cdd1dull;
	/* perf_session__register_idle_thread */
	err = findnew(ts, 0, 0, true, &idle);
	if (!err && !(ts->t[idle].comm = core_strset_add(&ts->sp.names, "swapper")))
		err = tk_oom();
	if (err) {
		pebs_tasks__delete(ts);
		return err;
	}
	*tp = ts;
	return 0;
}

int pebs_tasks__add_record(struct pebs_tasks *ts,
			   const struct perf_event_header *ev)
{
	struct pebs_record r;
	uint32_t i;

	if (!ts || !ev)
		return core_err(-EINVAL, "tasks: no record");
	switch (ev->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		break;
	default:
		return 0;
	}
	if (pebs_record__decode(ev, 0, &r))
		return 0;	/* damaged: skipped, as perf */
	switch (ev->type) {
	case PERF_RECORD_COMM:
		return on_comm(ts, &r);
	case PERF_RECORD_FORK:
		return on_fork(ts, ev, &r);
	case PERF_RECORD_EXIT:	/* only the pid a thread may learn */
		return findnew(ts, (int32_t)r.task.pid, (int32_t)r.task.tid,
			       false, &i);
	default:
		return ts->flags & PEBS_TASKS_MMAPS ? on_mmap(ts, ev, &r) : 0;
	}
}

void pebs_tasks__delete(struct pebs_tasks *ts)
{
	size_t i;

	if (!ts)
		return;
	for (i = 0; i < ts->nr; i++)
		tk_maps_put(&ts->sp, ts->t[i].maps);
	free(ts->t);
	tk_chains_free(&ts->tids);
	tk_space_free(&ts->sp);
	free(ts);
}

/* ---- the tree, as perf's tasks_print ---- */

static int by_table(const void *a, const void *b)
{
	const struct task *x = *(const struct task *const *)a;
	const struct task *y = *(const struct task *const *)b;
	uint32_t hx = (uint32_t)x->tid % TABLE_SIZE;
	uint32_t hy = (uint32_t)y->tid % TABLE_SIZE;

	if (hx != hy)
		return hx < hy ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void add_child(struct pebs_tasks *ts, uint32_t parent, uint32_t c)
{
	if (ts->t[parent].child == TK_NONE)
		ts->t[parent].child = c;
	else
		ts->t[ts->t[parent].last].sibling = c;
	ts->t[parent].last = c;
	ts->t[c].listed = true;
}

static void print_task(const struct pebs_tasks *ts, const struct task *t,
		       size_t level, FILE *f)
{
	int lv = level < TASKS_MAX_LEVEL ? (int)level : TASKS_MAX_LEVEL;
	int indent = fprintf(f, "  %8d %8d %8d |%*s", t->pid, t->tid, t->ppid,
			     lv, "");

	if (t->comm)
		fprintf(f, "%s\n", t->comm);
	else
		fprintf(f, ":%d\n", t->tid);
	if (ts->flags & PEBS_TASKS_MMAPS)
		tk_maps_print(&ts->sp, t->maps, indent > 0 ? indent : 0, f);
}

int pebs_tasks__print(struct pebs_tasks *ts, FILE *f)
{
	struct task **ord;
	uint32_t *stack, root = TK_NONE, last_root = TK_NONE, cur, p;
	size_t n = 0, i, depth;
	int err = 0;

	if (!ts || !f)
		return core_err(-EINVAL, "tasks: no tasks or no output");
	ord = malloc((ts->nr_live + 1) * sizeof(*ord));
	stack = malloc((ts->nr_live + 1) * sizeof(*stack));
	if (!ord || !stack) {
		err = tk_oom();
		goto out;
	}
	for (i = 0; i < ts->nr; i++) {
		ts->t[i].child = ts->t[i].sibling = TK_NONE;
		ts->t[i].listed = false;
		if (ts->t[i].live)
			ord[n++] = &ts->t[i];
	}
	qsort(ord, n, sizeof(*ord), by_table);
	/* perf's tasks_list: each thread under its parent, up to a root */
	for (i = 0; i < n; i++) {
		for (cur = (uint32_t)(ord[i] - ts->t); !ts->t[cur].listed;
		     cur = p) {
			if (ts->t[cur].ppid == -1) {	/* a root */
				if (root == TK_NONE)
					root = cur;
				else
					ts->t[last_root].sibling = cur;
				last_root = cur;
				ts->t[cur].listed = true;
				break;
			}
			p = lookup(ts, ts->t[cur].ppid);
			if (p == TK_NONE) {
				err = core_err(-ENOENT, "tasks: thread %d's parent "
					       "%d is not in the recording",
					       ts->t[cur].tid, ts->t[cur].ppid);
				goto out;
			}
			add_child(ts, p, cur);
		}
	}
	fprintf(f, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	/* depth first, each thread's children in the order they came */
	for (cur = root; cur != TK_NONE; cur = ts->t[cur].sibling) {
		print_task(ts, &ts->t[cur], 0, f);
		depth = 0;
		stack[depth++] = ts->t[cur].child;
		while (depth) {
			uint32_t c = stack[depth - 1];

			if (c == TK_NONE) {
				depth--;
				continue;
			}
			stack[depth - 1] = ts->t[c].sibling;
			print_task(ts, &ts->t[c], depth, f);
			stack[depth++] = ts->t[c].child;
		}
	}
	if (ferror(f))
		err = core_err(-EIO, "tasks: cannot write the output");
out:
	free(ord);
	free(stack);
	return err;
}

static int add_one(void *arg, const struct perf_event_header *ev,
		   uint64_t time)
{
	(void)time;
	return pebs_tasks__add_record(arg, ev);
}

int pebs_tasks__read(struct pebs_tasks *ts, struct pebs_perfdata *pd,
		     unsigned int *flags)
{
	if (!ts || !pd)
		return core_err(-EINVAL, "tasks: no tasks or no recording");
	return pebs_ordered__process(pd, add_one, ts, flags);
}
