// SPDX-License-Identifier: MIT
/*
 * workload.c - the self-test's workloads: threads that touch, chase,
 * store to or share their memory. Run two ways: forked from the library
 * and held until the checks' channels are open (their tids and buffer
 * parts reported through a pipe), or as a command of their own
 * (`pebs-shim test --workload NAME`, pebs_selftest__workload) that prints
 * its layout and the time of its measured phase, so that pebs-shim
 * record and perf record can each run it.
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
#include <time.h>
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
	uint64_t steps;
	char *buf;
	pthread_barrier_t ready, go;
	pthread_t th[ST_MAX_THR];
	pid_t tid[ST_MAX_THR];
	unsigned int idx[ST_MAX_THR];
};

static struct child C;

/*
 * A cycle through the @n lines of [p, p + n * LINE) (@n a power of
 * two) in the order of a full-period LCG (Hull-Dobell: odd increment,
 * multiplier 1 mod 4), which defeats the prefetchers without a table:
 * building it touches nothing but the buffer, so its page faults all
 * fall inside it.
 */
void st_chase_build(char *p, size_t size)
{
	const uint64_t a = 6364136223846793005ULL, c = 1442695040888963407ULL;
	uint64_t n = size / LINE, x = 0, i;

	for (i = 0; i < n; i++) {
		uint64_t next = (a * x + c) & (n - 1);

		*(void **)(p + x * LINE) = p + next * LINE;
		x = next;
	}
}

void st_chase_run(char *p, uint64_t steps)
{
	void **cur = (void **)p;
	uint64_t i;

	for (i = 0; i < steps; i++)
		cur = *cur;
	__asm__ __volatile__("" : : "r"(cur) : "memory");
}

/* 8-byte stores through the part, @passes times over */
static void store_run(char *p, size_t size, uint64_t passes)
{
	uint64_t i;
	size_t off;

	for (i = 0; i < passes; i++)
		for (off = 0; off < size; off += sizeof(uint64_t))
			*(volatile uint64_t *)(p + off) = i;
}

/* thread @i's word of the shared line: its own (false), one (true) */
static char *share_word(unsigned int i)
{
	return C.kind == ST_FALSE_SHARE ? C.buf + i * (LINE / 2) : C.buf;
}

static void *thread_fn(void *arg)
{
	unsigned int i = *(unsigned int *)arg;
	char *p = C.buf + i * C.part;
	uint64_t n;
	size_t off;

	C.tid[i] = (pid_t)syscall(SYS_gettid);
	if (C.kind == ST_CHASE)
		st_chase_build(p, C.part);
	pthread_barrier_wait(&C.ready);
	pthread_barrier_wait(&C.go);
	switch (C.kind) {
	case ST_TOUCH:
		for (off = 0; off < C.part; off += 4096)
			((volatile char *)p)[off] = 1;
		break;
	case ST_CHASE:
		st_chase_run(p, C.steps);
		break;
	case ST_STORE:
		store_run(p, C.part, C.steps);
		break;
	case ST_SHARE:
		for (n = 0; n < C.steps; n++)
			atomic_fetch_add((_Atomic uint64_t *)share_word(i), 1);
		break;
	case ST_FALSE_SHARE:
		for (n = 0; n < C.steps; n++)
			(*(volatile uint64_t *)share_word(i))++;
		break;
	}
	return NULL;
}

/* map the buffer, start the threads, wait until each is ready: 0 or -errno */
static int child_setup(struct st_wl *w)
{
	unsigned int i;
	int err;

	C.buf = mmap(NULL, C.nthr * C.part, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (C.buf == MAP_FAILED)
		return -errno;
	/* one fault per 4 KiB page, whatever the THP setting */
	madvise(C.buf, C.nthr * C.part, MADV_NOHUGEPAGE);
	pthread_barrier_init(&C.ready, NULL, C.nthr + 1);
	pthread_barrier_init(&C.go, NULL, C.nthr + 1);
	for (i = 0; i < C.nthr; i++) {
		C.idx[i] = i;
		err = pthread_create(&C.th[i], NULL, thread_fn, &C.idx[i]);
		if (err)
			return -err;	/* the caller exits: no thread left */
	}
	pthread_barrier_wait(&C.ready);
	memset(w, 0, sizeof(*w));
	w->nthr = C.nthr;
	w->part = C.part;
	for (i = 0; i < C.nthr; i++) {
		w->tid[i] = C.tid[i];
		w->lo[i] = (uintptr_t)C.buf + i * C.part;
	}
	return 0;
}

/* release the threads and wait for them */
static void child_go(void)
{
	unsigned int i;

	pthread_barrier_wait(&C.go);
	for (i = 0; i < C.nthr; i++)
		pthread_join(C.th[i], NULL);
	pthread_barrier_destroy(&C.ready);
	pthread_barrier_destroy(&C.go);
}

static void set_kind(enum st_kind kind, unsigned int nthr, size_t part,
		     uint64_t steps)
{
	C.kind = kind;
	C.nthr = nthr;
	C.part = part;
	C.steps = steps ? steps : kind == ST_CHASE ? CHASE_STEPS : SHARE_STEPS;
}

/* the forked child: never returns */
static void child(int rep, int go)
{
	struct st_wl w;
	char b;

	if (child_setup(&w))
		_exit(3);
	if (write(rep, &w, sizeof(w)) != (ssize_t)sizeof(w))
		_exit(3);
	if (read(go, &b, 1) != 1)
		_exit(4);
	child_go();
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
	set_kind(kind, nthr, part, 0);
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

int st_wl_go(struct st_wl *w)
{
	if (write(w->go_fd, "g", 1) != 1) {
		st_wl_kill(w);
		return -1;
	}
	close(w->go_fd);
	w->go_fd = -1;
	return 0;
}

int st_wl_finish(struct st_wl *w)
{
	int status;

	if (st_wl_go(w))
		return -1;
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

/*
 * The buffer "far larger than the LLC": the next power of two of four
 * times the last level cache (the kernel's cpu0 index3, else glibc's,
 * which a VM's CPUID may inflate), at least 64 MiB, at most 256 MiB.
 */
size_t st_large_size(void)
{
	char val[64], unit = 0;
	long llc = 0;
	size_t want, size = 64u << 20;

	if (st_read_line("/sys/devices/system/cpu/cpu0/cache/index3/size", val,
			 sizeof(val)) && sscanf(val, "%ld%c", &llc, &unit) >= 1)
		llc *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
	if (llc <= 0)
		llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	want = llc > 0 ? 4 * (size_t)llc : 0;
	while (size < want && size < (256u << 20))
		size <<= 1;
	return size;
}

/* the known workloads; part 0: st_large_size() */
static const struct known {
	const char *name;
	enum st_kind kind;
	unsigned int nthr;
	size_t part;
	uint64_t steps;
} known[] = {
	{ "touch", ST_TOUCH, 1, 4u << 20, 0 },
	{ "chase-small", ST_CHASE, 1, 16u << 10, 1u << 27 },
	{ "chase-large", ST_CHASE, 1, 0, 1u << 19 },
	{ "store", ST_STORE, 1, 0, 2 },
	{ "false-share", ST_FALSE_SHARE, 2, LINE, 1u << 24 },
	{ "true-share", ST_SHARE, 2, LINE, 1u << 22 },
};

/* the workloads that run in the main thread (checks-budget.c's) */
static const struct main_known {
	const char *name;
	int (*run)(FILE *out);
} mains[] = {
	{ "budget", st_wl_budget },
	{ "objects", st_wl_objects },
};

#define NR_KNOWN (sizeof(known) / sizeof(known[0]))
#define NR_MAINS (sizeof(mains) / sizeof(mains[0]))

const char *pebs_selftest__workload_name(unsigned int nr)
{
	return nr >= 1 && nr <= NR_KNOWN ? known[nr - 1].name :
	       nr > NR_KNOWN && nr <= NR_KNOWN + NR_MAINS ?
	       mains[nr - NR_KNOWN - 1].name : NULL;
}

void st_clock_start(struct st_clock *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->wall);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c->cpu);
}

static double since(const struct timespec *a, clockid_t id)
{
	struct timespec b;

	clock_gettime(id, &b);
	return (double)(b.tv_sec - a->tv_sec) +
	       (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

void st_clock_print(const struct st_clock *c, FILE *out)
{
	double cpu = since(&c->cpu, CLOCK_PROCESS_CPUTIME_ID);

	fprintf(out, "cpu_seconds=%.6f\nseconds=%.6f\n", cpu,
		since(&c->wall, CLOCK_MONOTONIC));
	fflush(out);
}

int pebs_selftest__workload(const char *name, FILE *out)
{
	const struct known *k = NULL;
	struct st_clock clk;
	struct st_wl w;
	unsigned int i;
	bool share;
	int err;

	for (i = 0; name && out && i < NR_MAINS; i++)
		if (!strcmp(mains[i].name, name))
			return mains[i].run(out);
	for (i = 0; name && i < NR_KNOWN; i++)
		if (!strcmp(known[i].name, name))
			k = &known[i];
	if (!k || !out)
		return core_err(-EINVAL, "no workload '%s': touch, chase-small, "
				"chase-large, store, false-share, true-share, "
				"budget, objects", name ? name : "");
	set_kind(k->kind, k->nthr, k->part ? k->part : st_large_size(),
		 k->steps);
	err = child_setup(&w);
	if (err)
		return core_err(err, "workload %s: cannot map %zu bytes or start "
				"its threads: %s", name, C.nthr * C.part,
				strerror(-err));
	share = k->kind == ST_SHARE || k->kind == ST_FALSE_SHARE;
	fprintf(out, "workload=%s\nbuffer=%#lx+%zu\n", k->name,
		(unsigned long)C.buf, share ? (size_t)LINE : C.nthr * C.part);
	for (i = 0; i < C.nthr; i++)
		fprintf(out, "thread.%u=%d %#lx+%zu\n", i, (int)w.tid[i],
			share ? (unsigned long)share_word(i) :
			(unsigned long)w.lo[i],
			share ? sizeof(uint64_t) : C.part);
	fflush(out);
	st_clock_start(&clk);
	child_go();
	st_clock_print(&clk, out);
	munmap(C.buf, C.nthr * C.part);
	return ferror(out) ? core_err(-EIO, "workload: cannot write its "
				      "layout") : 0;
}

/* @out's "key=value" lines as written by pebs_selftest__workload */
int st_layout_parse(const char *out, struct st_layout *l)
{
	const char *p = out;

	memset(l, 0, sizeof(*l));
	l->seconds = -1;
	while (p && *p) {
		unsigned long lo, size;
		unsigned int i;
		double s;
		int tid;

		if (sscanf(p, "buffer=%lx+%lu", &lo, &size) == 2) {
			l->buf = lo;
			l->size = size;
		} else if (sscanf(p, "thread.%u=%d %lx+%lu", &i, &tid, &lo,
				  &size) == 4 && i < ST_MAX_THR && i == l->nthr) {
			l->tid[i] = tid;
			l->lo[i] = lo;
			l->len[i] = size;
			l->nthr++;
		} else if (sscanf(p, "seconds=%lf", &s) == 1) {
			l->seconds = s;
		} else if (sscanf(p, "cpu_seconds=%lf", &s) == 1) {
			l->cpu_seconds = s;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return l->size && l->nthr && l->seconds >= 0 ? 0 : -EINVAL;
}
