// SPDX-License-Identifier: MIT
/*
 * workload.c - the self-test's built-in workloads: a forked child whose
 * threads report their tids and buffer parts through a pipe, wait for a
 * byte, then touch, chase or share their memory and exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define LINE 64
#define CHASE_STEPS (1u << 24)
#define SHARE_STEPS (1u << 22)

struct child {
	enum st_kind kind;
	unsigned int nthr;
	size_t part;
	char *buf;
	pthread_barrier_t ready, go;
	pid_t tid[ST_MAX_THR];
	unsigned int idx[ST_MAX_THR];
};

static struct child C;

/* a random cycle through the lines of [p, p + size), built before the
 * sampling starts so that only the chase itself is sampled */
static void chase_build(char *p, size_t size)
{
	size_t n = size / LINE, i;
	size_t *order = malloc(n * sizeof(*order));
	unsigned int s = 12345;

	if (!order)
		_exit(3);
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j, t;

		s = s * 1103515245u + 12345u;
		j = s % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		*(void **)(p + order[i] * LINE) = p + order[(i + 1) % n] * LINE;
	free(order);
}

static void chase_run(char *p)
{
	void **cur = (void **)p;
	unsigned int i;

	for (i = 0; i < CHASE_STEPS; i++)
		cur = *cur;
	__asm__ __volatile__("" : : "r"(cur) : "memory");
}

static void *thread_fn(void *arg)
{
	unsigned int i = *(unsigned int *)arg;
	char *p = C.buf + i * C.part;
	size_t off;

	C.tid[i] = (pid_t)syscall(SYS_gettid);
	if (C.kind == ST_CHASE)
		chase_build(p, C.part);
	pthread_barrier_wait(&C.ready);
	pthread_barrier_wait(&C.go);
	switch (C.kind) {
	case ST_TOUCH:
		for (off = 0; off < C.part; off += 4096)
			((volatile char *)p)[off] = 1;
		break;
	case ST_CHASE:
		chase_run(p);
		break;
	case ST_SHARE:
		for (off = 0; off < SHARE_STEPS; off++)
			atomic_fetch_add((_Atomic unsigned long *)C.buf, 1);
		break;
	}
	return NULL;
}

/* the child: never returns */
static void child(int rep, int go)
{
	pthread_t th[ST_MAX_THR];
	struct st_wl w = { .nthr = C.nthr, .part = C.part };
	unsigned int i;
	char b;

	C.buf = mmap(NULL, C.nthr * C.part, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (C.buf == MAP_FAILED)
		_exit(3);
	pthread_barrier_init(&C.ready, NULL, C.nthr + 1);
	pthread_barrier_init(&C.go, NULL, C.nthr + 1);
	for (i = 0; i < C.nthr; i++) {
		C.idx[i] = i;
		if (pthread_create(&th[i], NULL, thread_fn, &C.idx[i]))
			_exit(3);
	}
	pthread_barrier_wait(&C.ready);
	for (i = 0; i < C.nthr; i++) {
		w.tid[i] = C.tid[i];
		w.lo[i] = (uintptr_t)C.buf + i * C.part;
	}
	if (write(rep, &w, sizeof(w)) != (ssize_t)sizeof(w))
		_exit(3);
	if (read(go, &b, 1) != 1)
		_exit(4);
	pthread_barrier_wait(&C.go);
	for (i = 0; i < C.nthr; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

int st_wl_start(struct st_wl *w, enum st_kind kind, unsigned int nthr,
		size_t part)
{
	int rep[2], go[2];
	pid_t pid;
	ssize_t n;

	if (!nthr || nthr > ST_MAX_THR)
		return -EINVAL;
	if (pipe2(rep, O_CLOEXEC))
		return -errno;
	if (pipe2(go, O_CLOEXEC)) {
		close(rep[0]);
		close(rep[1]);
		return -errno;
	}
	C.kind = kind;
	C.nthr = nthr;
	C.part = part;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(rep[0]);
		close(go[1]);
		child(rep[1], go[0]);
	}
	close(rep[1]);
	close(go[0]);
	if (pid < 0) {
		close(rep[0]);
		close(go[1]);
		return -errno;
	}
	n = read(rep[0], w, sizeof(*w));
	close(rep[0]);
	w->pid = pid;
	w->go_fd = go[1];
	if (n != (ssize_t)sizeof(*w)) {
		st_wl_kill(w);
		return -EIO;
	}
	return 0;
}

int st_wl_finish(struct st_wl *w)
{
	int status;

	if (write(w->go_fd, "g", 1) != 1) {
		st_wl_kill(w);
		return -1;
	}
	close(w->go_fd);
	w->go_fd = -1;
	if (waitpid(w->pid, &status, 0) != w->pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

void st_wl_kill(struct st_wl *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);
	w->go_fd = -1;
	kill(w->pid, SIGKILL);
	waitpid(w->pid, NULL, 0);
}
