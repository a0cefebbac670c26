// SPDX-License-Identifier: MIT
/*
 * proc.c - the one reader of /proc's process and task lists: the
 * processes now running, the threads of a process, a thread's process
 * and its name; and of small /proc and /sys files, /proc/cpuinfo's
 * fields among them; a process's CPU ticks, the CPUs' busy ticks and the
 * context switches (record --budget's figures).
 */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"

/* the numeric entries of directory @path appended to @out (no repeats) */
static int numeric_entries(const char *path, struct pebs_ids *out)
{
	struct pebs_ids got = { 0 };
	struct dirent *de;
	int err = 0;
	DIR *d = opendir(path);

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long id;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		id = strtol(de->d_name, &end, 10);
		if (!*end && id > 0 && id <= INT32_MAX)
			err = pebs_ids__push(&got, (int)id);
	}
	closedir(d);
	if (!err)
		err = core_ids_merge(out, got.v, got.n);
	pebs_ids__free(&got);
	return err;
}

int pebs_proc__pids(struct pebs_ids *out)
{
	int err;

	if (!out)
		return core_err(-EINVAL, "process list: no result list");
	err = numeric_entries("/proc", out);
	if (err && err != -ENOMEM)
		return core_err(err, "cannot list /proc: %s: is procfs mounted?",
				strerror(-err));
	return err;
}

int pebs_proc__tasks(pid_t pid, struct pebs_ids *out)
{
	char path[64];
	int err;

	if (!out || pid <= 0)
		return core_err(-EINVAL, "task list: bad pid %d", (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	err = numeric_entries(path, out);
	if (err && err != -ENOMEM)
		return core_err(-ESRCH, "process %d is gone", (int)pid);
	return err;
}

pid_t pebs_proc__tgid(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return core_err(-ESRCH, "thread %d is gone", (int)tid);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int pebs_proc__comm(pid_t tid, char *buf, size_t len)
{
	char path[64], name[64];
	ssize_t n;
	int fd;

	if (!buf || !len)
		return core_err(-EINVAL, "thread name: no buffer");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return core_err(-ESRCH, "thread %d is gone", (int)tid);
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return core_err(-ESRCH, "thread %d is gone", (int)tid);
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	snprintf(buf, len, "%s", name);
	return 0;
}

ssize_t core_read_small(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - (size_t)got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

void core_cpuinfo_field(const char *text, const char *key, char *out,
			size_t len)
{
	size_t klen = strlen(key), n;
	const char *p = text, *v, *end;

	out[0] = '\0';
	for (; *p; p = end ? end + 1 : p + strlen(p)) {
		end = strchr(p, '\n');
		if (strncmp(p, key, klen))
			continue;
		v = p + klen + strspn(p + klen, " \t");
		if (*v != ':')
			continue;
		v += 1 + strspn(v + 1, " \t");
		n = end ? (size_t)(end - v) : strlen(v);
		if (n >= len)
			n = len - 1;
		memcpy(out, v, n);
		out[n] = '\0';
		return;
	}
}

/*
 * core_stat_ticks - utime + stime (+ cutime + cstime with
 * @children) of a /proc/.../stat line, in clock ticks; -1 if malformed
 * (the name may hold blanks and parentheses: the fields follow the last
 * ')')
 */
int64_t core_stat_ticks(const char *line, bool children)
{
	const char *p = strrchr(line, ')');
	unsigned long long v[4];

	/* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt
	   cmajflt utime stime cutime cstime" */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3]) != 4)
		return -1;
	return (int64_t)(v[0] + v[1] + (children ? v[2] + v[3] : 0));
}

int64_t core_stat_file_ticks(const char *path, bool children)
{
	char line[1024];
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	return ok ? core_stat_ticks(line, children) : -1;
}

/*
 * core_cpu_busy - the busy ticks (all but idle and iowait) of the
 * CPUs of @cpus in /proc/stat text @text; -1 if malformed
 */
int64_t core_cpu_busy(const char *text, const struct pebs_ids *cpus)
{
	int64_t busy = 0;
	const char *p = text;

	while ((p = strstr(p, "\ncpu"))) {
		unsigned long long f[8] = { 0 };
		int cpu, n;

		p += 4;
		if (!isdigit((unsigned char)*p))
			continue;	/* "cpu ": all CPUs together */
		if (sscanf(p, "%d %llu %llu %llu %llu %llu %llu %llu %llu%n",
			   &cpu, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5],
			   &f[6], &f[7], &n) < 9)
			continue;
		for (unsigned int i = 0; i < cpus->n; i++)
			if (cpus->v[i] == cpu)
				busy += (int64_t)(f[0] + f[1] + f[2] + f[5] +
						  f[6] + f[7]);
	}
	return busy;
}

/*
 * /proc/stat read once: the busy ticks of the CPUs of @cpus and the
 * machine's context switches (ctxt), line by line (the intr line can be
 * longer than any buffer: its pieces are skipped); false if unreadable
 */
bool core_proc_stat(const struct pebs_ids *cpus, int64_t *busy,
		      uint64_t *ctxt)
{
	char line[1024];
	bool head = true, was;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return false;
	line[0] = '\n';	/* core_cpu_busy's lines start with one */
	while (fgets(line + 1, sizeof(line) - 1, f)) {
		was = head;
		head = strchr(line + 1, '\n') != NULL;
		if (!was)
			continue;	/* the rest of a long line */
		if (!strncmp(line + 1, "cpu", 3))
			*busy += core_cpu_busy(line, cpus);
		else
			sscanf(line + 1, "ctxt %" SCNu64, ctxt);
	}
	fclose(f);
	return true;
}

/* the (non)voluntary context switches of thread @tid into *@n (its
   /proc/TID/status, there for every thread though /proc lists only the
   processes): 0, or -1 when it cannot be read (gone) */
static int thread_switches(pid_t tid, uint64_t *n)
{
	char path[64], text[8192];
	const char *p;
	uint64_t v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (core_read_small(path, text, sizeof(text)) <= 0)
		return -1;
	*n = 0;
	/* "voluntary_ctxt_switches:" and "nonvoluntary_..." */
	for (p = text; (p = strstr(p, "_ctxt_switches:")); p += 15)
		if (sscanf(p + 15, "%" SCNu64, &v) == 1)
			*n += v;
	return 0;
}

/* (non)voluntary context switches of each thread of @pid (of its thread
   @tid alone if > 0) from /proc */
uint64_t core_task_switches(pid_t pid, pid_t tid)
{
	uint64_t n = 0, v;
	struct pebs_ids tids = { 0 };

	if (tid > 0 ? pebs_ids__push(&tids, tid) : pebs_proc__tasks(pid, &tids))
		return 0;
	for (unsigned int i = 0; i < tids.n; i++)
		if (!thread_switches(tids.v[i], &v))
			n += v;
	pebs_ids__free(&tids);
	return n;
}

/* where thread @tid's entry is or would go in @cs (sorted by tid) */
static size_t sw_at(const struct core_switches *cs, int tid)
{
	size_t lo = 0, hi = cs->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->seen[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* @cs's entry of thread @tid, added at its place (its count unknown:
   not read) if missing; NULL: out of memory */
static struct core_sw_seen *sw_entry(struct core_switches *cs, int tid)
{
	size_t at = sw_at(cs, tid);

	if (at < cs->nr && cs->seen[at].tid == tid)
		return &cs->seen[at];
	if (core_grow(&cs->seen, &cs->cap, cs->nr + 1, sizeof(*cs->seen)))
		return NULL;
	memmove(&cs->seen[at + 1], &cs->seen[at],
		(cs->nr - at) * sizeof(*cs->seen));
	cs->nr++;
	cs->seen[at] = (struct core_sw_seen){ .tid = tid };
	return &cs->seen[at];
}

/* the entries of threads not in @live dropped: each live one marked by
   its search, the rest squeezed out */
static void sw_prune(struct core_switches *cs, const struct pebs_ids *live)
{
	size_t kept = 0;

	for (unsigned int i = 0; i < live->n; i++) {
		size_t at = sw_at(cs, live->v[i]);

		if (at < cs->nr && cs->seen[at].tid == live->v[i])
			cs->seen[at].live = true;
	}
	for (size_t i = 0; i < cs->nr; i++)
		if (cs->seen[i].live) {
			cs->seen[i].live = false;
			cs->seen[kept++] = cs->seen[i];
		}
	cs->nr = kept;
}

uint64_t core_switches_read(struct core_switches *cs,
			    const struct pebs_ids *procs, bool tids)
{
	struct pebs_ids all = { 0 };
	unsigned int reads;
	uint64_t n;

	/* the threads now (a process gone, or out of memory: fewer) */
	for (unsigned int i = 0; i < procs->n; i++)
		if (tids)
			pebs_ids__push(&all, procs->v[i]);
		else
			pebs_proc__tasks(procs->v[i], &all);
	reads = all.n < CORE_SWITCHES_READS ? all.n : CORE_SWITCHES_READS;
	for (unsigned int i = 0; i < reads; i++) {
		unsigned int at = (unsigned int)((cs->next + i) % all.n);
		struct core_sw_seen *e;

		if (thread_switches(all.v[at], &n) ||
		    !(e = sw_entry(cs, all.v[at])))
			continue;
		/* a thread's first read is where its count starts */
		if (e->read && n > e->n)
			cs->total += n - e->n;
		e->n = n;
		e->read = true;
	}
	if (all.n) {
		cs->next = (cs->next + reads) % all.n;
		if (cs->nr > 2 * (size_t)all.n + CORE_SWITCHES_READS)
			sw_prune(cs, &all);
	}
	pebs_ids__free(&all);
	return cs->total;
}

void core_switches_free(struct core_switches *cs)
{
	free(cs->seen);
	*cs = (struct core_switches){ 0 };
}
