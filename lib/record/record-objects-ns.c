// SPDX-License-Identifier: MIT
/*
 * record-objects-ns.c - the pids of a command's processes in a PID
 * namespace of their own (unshare --pid, a container), which the data
 * objects' records carry, as the kernel's samples carry them: the
 * recorder's namespace's.
 *
 * The interposer cannot learn them: a process sees the pids of its own
 * namespace and those below only, and its /proc (a container mounts its
 * own) shows NSpid from its namespace's level down. The recorder, a level
 * up or more, sees both: a record of another namespace names it (the
 * inode number of the process's /proc/PID/ns/pid), and the recorder
 * finds the thread in its own /proc, a process whose ns/pid is that
 * namespace and a task of it whose status's NSpid line ends with the
 * record's tid (the pid in the innermost namespace, the process's own).
 *
 * A thread's first record (its stack's, PSO_STACK) is read while the
 * thread waits for it (objects_sync in the interposer), so the thread is
 * alive then: its entry is made, or checked, since a tid of the
 * namespace may have been another thread's before. A thread's later
 * records use the entry; one never found keeps its namespace's pids (a
 * negative entry keeps it from scanning /proc again until that tid's
 * next first record). A scan reads the ns link of every process and the
 * status of the namespace's threads, once per drain at most that reads
 * a thread's first record (it finds every thread whose first record
 * that drain reads: they wait for it, alive).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/record-int.h"
#include "record/objects-proto.h"
#include "core/internal.h"

struct ns_ent {
	uint32_t ns, tid;	/* the key: 0, 0 an empty slot */
	uint32_t pid, gtid;	/* in the recorder's namespace (0: not found) */
};

/* namespaces scanned in one drain at most: a scan finds every thread
   alive then, and each thread whose first record the drain reads is */
#define SCANS_MAX	8

struct rec_objects_ns {
	struct ns_ent *v;
	uint32_t cap, n;	/* cap a power of two, n used */
	uint32_t drain;		/* the drain of the scans below */
	uint32_t nscanned, scanned[SCANS_MAX];
};

static uint32_t hash(uint32_t ns, uint32_t tid)
{
	return ns * 0x9e3779b1u ^ tid * 0x85ebca6bu;
}

/* @ns, @tid's slot: its entry, or the empty slot for it */
static struct ns_ent *find(struct rec_objects_ns *t, uint32_t ns,
			   uint32_t tid)
{
	uint32_t i = hash(ns, tid) & (t->cap - 1);

	while (t->v[i].ns && (t->v[i].ns != ns || t->v[i].tid != tid))
		i = (i + 1) & (t->cap - 1);
	return &t->v[i];
}

static int grow(struct rec_objects_ns *t)
{
	struct rec_objects_ns big = { .cap = t->cap ? t->cap * 2 : 256 };

	big.v = calloc(big.cap, sizeof(*big.v));
	if (!big.v)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->v[i].ns)
			*find(&big, t->v[i].ns, t->v[i].tid) = t->v[i];
	big.n = t->n;
	free(t->v);
	*t = big;
	return 0;
}

/* the entry of @ns, @tid, made (not found) if new; NULL: out of memory */
static struct ns_ent *get(struct rec_objects_ns *t, uint32_t ns, uint32_t tid)
{
	struct ns_ent *e;

	if ((t->n + 1) * 2 > t->cap && grow(t))
		return NULL;
	e = find(t, ns, tid);
	if (!e->ns) {
		*e = (struct ns_ent){ .ns = ns, .tid = tid };
		t->n++;
	}
	return e;
}

/* the last number of the NSpid line of /proc/@pid/task/@tid/status: the
   thread's tid in its own namespace (0: none) */
static uint32_t ns_tid(uint32_t pid, uint32_t tid)
{
	char path[64], buf[4096], *line, *end;
	uint32_t last = 0;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/status", pid, tid);
	if (core_read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	line = strstr(buf, "\nNSpid:");
	if (!line)
		return 0;
	line += 7;
	end = strchr(line, '\n');
	if (end)
		*end = 0;
	for (char *tok = strtok_r(line, " \t", &end); tok;
	     tok = strtok_r(NULL, " \t", &end))
		last = (uint32_t)strtoul(tok, NULL, 10);
	return last;
}

/* whether process @pid is in the PID namespace @ns */
static bool in_ns(uint32_t pid, uint32_t ns)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/ns/pid", pid);
	return !stat(path, &st) && (uint32_t)st.st_ino == ns;
}

/*
 * Every thread of namespace @ns into @t's entries, once per drain @drain
 * (and SCANS_MAX namespaces at most: records naming namespaces of their
 * own cost no more than that).
 */
static int scan(struct rec_objects_ns *t, uint32_t ns, uint32_t drain)
{
	struct pebs_ids procs = { 0 }, tasks = { 0 };
	int err = 0;

	if (t->drain != drain) {
		t->drain = drain;
		t->nscanned = 0;
	}
	for (uint32_t i = 0; i < t->nscanned; i++)
		if (t->scanned[i] == ns)
			return 0;
	if (t->nscanned == SCANS_MAX)
		return 0;
	t->scanned[t->nscanned++] = ns;
	err = pebs_proc__pids(&procs);
	if (err) {
		err = err == -ENOMEM ? err : 0;	/* no /proc: no translation */
		goto out;
	}
	for (unsigned int k = 0; !err && k < procs.n; k++) {
		uint32_t pid = (uint32_t)procs.v[k];

		if (!in_ns(pid, ns))
			continue;
		tasks.n = 0;
		/* a process gone meanwhile has no thread to find */
		err = pebs_proc__tasks((pid_t)pid, &tasks) == -ENOMEM ? -ENOMEM : 0;
		for (unsigned int i = 0; !err && i < tasks.n; i++) {
			uint32_t gtid = (uint32_t)tasks.v[i], tid;
			struct ns_ent *e;

			if (!(tid = ns_tid(pid, gtid)))
				continue;
			e = get(t, ns, tid);
			if (!e)
				err = -ENOMEM;
			else
				*e = (struct ns_ent){ ns, tid, pid, gtid };
		}
	}
out:
	pebs_ids__free(&procs);
	pebs_ids__free(&tasks);
	return err;
}

int rec_objects_ns_fix(struct rec_objects_ns **tp, struct pso_rec *rec,
		       uint32_t drain)
{
	struct rec_objects_ns *t = *tp;
	struct ns_ent *e;
	int err;

	if (!t) {
		t = *tp = calloc(1, sizeof(*t));
		if (!t || grow(t))
			return -ENOMEM;
	}
	e = get(t, rec->pidns, rec->tid);
	if (!e)
		return -ENOMEM;
	/* a thread's first record: the entry, if any, may be a thread's
	   that had its tid before */
	if (!e->pid || (rec->kind == PSO_STACK &&
			ns_tid(e->pid, e->gtid) != rec->tid)) {
		if (rec->kind != PSO_STACK && e->pid == 0 && e->gtid)
			return 0;	/* not found before: untranslated */
		e->pid = 0;
		e->gtid = 1;	/* looked for */
		err = scan(t, rec->pidns, drain);
		if (err)
			return err;
		e = find(t, rec->pidns, rec->tid);
		if (!e->pid)
			return 0;
	}
	rec->pid = e->pid;
	rec->tid = e->gtid;
	rec->pidns = 0;
	return 0;
}

void rec_objects_ns_free(struct rec_objects_ns *t)
{
	if (t)
		free(t->v);
	free(t);
}
