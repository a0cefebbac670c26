// SPDX-License-Identifier: MIT
/*
 * record-attr.c - who a sample belongs to, besides the map: the comm of
 * each thread, from COMM/FORK records and /proc.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* ---- tid -> comm --------------------------------------------------- */

struct comm_ent {
	int32_t tid;		/* 0 is a valid key (idle); -1 free */
	int32_t tgid;
	char comm[PEBS_MAP_COMM_LEN];
};

struct rec_comms {
	struct comm_ent *v;
	unsigned int mask;	/* capacity - 1, a power of two */
	unsigned int used;
	char tmp[24];
};

static unsigned int hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static int comms_alloc(struct rec_comms *c, unsigned int cap)
{
	c->v = malloc(cap * sizeof(*c->v));
	if (!c->v)
		return -ENOMEM;
	for (unsigned int i = 0; i < cap; i++)
		c->v[i].tid = -1;
	c->mask = cap - 1;
	c->used = 0;
	return 0;
}

int rec_comms_new(struct rec_comms **cp)
{
	struct rec_comms *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	if (comms_alloc(c, 1024)) {
		free(c);
		return -ENOMEM;
	}
	*cp = c;
	return 0;
}

void rec_comms_delete(struct rec_comms *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

static struct comm_ent *comms_find(struct rec_comms *c, int32_t tid,
				   bool insert)
{
	unsigned int i = hash32((uint32_t)tid) & c->mask;

	while (c->v[i].tid != -1) {
		if (c->v[i].tid == tid)
			return &c->v[i];
		i = (i + 1) & c->mask;
	}
	if (!insert)
		return NULL;
	if (2 * (c->used + 1) > c->mask + 1) {
		struct rec_comms old = *c;

		if (comms_alloc(c, 2 * (old.mask + 1))) {
			*c = old;
			return NULL;
		}
		for (unsigned int j = 0; j <= old.mask; j++) {
			if (old.v[j].tid != -1)
				*comms_find(c, old.v[j].tid, true) = old.v[j];
		}
		free(old.v);
		return comms_find(c, tid, true);
	}
	c->used++;
	c->v[i].tid = tid;
	c->v[i].tgid = -1;
	c->v[i].comm[0] = '\0';
	return &c->v[i];
}

void rec_comms_set(struct rec_comms *c, int32_t tgid, int32_t tid,
		   const char *comm)
{
	struct comm_ent *e = comms_find(c, tid, true);

	if (!e)
		return;		/* out of memory: names fall back to /proc */
	e->tgid = tgid;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
}

void rec_comms_fork(struct rec_comms *c, int32_t tgid, int32_t tid,
		    int32_t ptid)
{
	struct comm_ent *p = comms_find(c, ptid, false);

	if (p && p->comm[0]) {
		char comm[PEBS_MAP_COMM_LEN];

		memcpy(comm, p->comm, sizeof(comm));
		rec_comms_set(c, tgid, tid, comm);
	}
}

bool rec_comms_known(struct rec_comms *c, int32_t tid)
{
	struct comm_ent *e = comms_find(c, tid, false);

	return e && e->comm[0];
}

static bool proc_comm(int32_t tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

const char *rec_comms_get(struct rec_comms *c, int32_t tid,
			  const char *fallback)
{
	struct comm_ent *e = comms_find(c, tid, false);
	char comm[PEBS_MAP_COMM_LEN];

	if (e && e->comm[0])
		return e->comm;
	if (tid == 0)
		snprintf(comm, sizeof(comm), "swapper");
	else if (!(tid > 0 && proc_comm(tid, comm, sizeof(comm)))) {
		if (fallback && *fallback)
			return fallback;
		snprintf(c->tmp, sizeof(c->tmp), ":%d", tid);
		return c->tmp;
	}
	e = comms_find(c, tid, true);
	if (!e) {
		snprintf(c->tmp, sizeof(c->tmp), "%s", comm);
		return c->tmp;
	}
	memcpy(e->comm, comm, sizeof(comm));
	return e->comm;
}

void rec_comms_load_proc(struct rec_comms *c, pid_t pid)
{
	char path[64], comm[PEBS_MAP_COMM_LEN];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid > 0 && proc_comm(tid, comm, sizeof(comm)))
			rec_comms_set(c, pid, tid, comm);
	}
	closedir(d);
}
