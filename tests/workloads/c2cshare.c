// SPDX-License-Identifier: MIT
/*
 * c2cshare - two threads writing one cache line, for c2c tests with
 * software events (page faults carry the data address).
 *
 *   --true   both threads write offset 0 of the line: true sharing;
 *   --false  thread a writes offset 0, thread b offset 8: false sharing;
 *   --procs  two processes each map one shared file (a memfd, MAP_SHARED)
 *            at different addresses and write offset 0 of its second
 *            page: one line of the file shared by two processes.
 *
 * Each thread loops: drop the page (madvise MADV_DONTNEED), then store
 * to its word of the page's first line in write_word(), so every store
 * faults, and a page-fault sample of either thread names that line and
 * its offset. --iters N (default 2000) stores per thread.
 *
 * The ids go to stderr before the work starts:
 *	c2cshare: pid=P a=T1 b=T2 line=0xADDR
 * (--procs: a and b are the two processes, each printing its line.)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile uint64_t *page;
static long iters = 2000;
static pthread_barrier_t start;

struct worker {
	unsigned int off;	/* the word written, in 8-byte units */
	pid_t tid;
};

static __attribute__((noinline)) void write_word(volatile uint64_t *w,
						 uint64_t v)
{
	*w = v;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	long i;

	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&start);	/* the ids are printed */
	for (i = 0; i < iters; i++) {
		madvise((void *)page, 4096, MADV_DONTNEED);
		write_word(page + w->off, (uint64_t)i);
	}
	return NULL;
}

/* --procs: this process's mapping of the file's second page, written */
static int proc_work(int fd, void *hint, pid_t other)
{
	volatile uint64_t *p = mmap(hint, 4096, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd, 4096);
	long i;

	if (p == MAP_FAILED) {
		perror("c2cshare: mmap");
		return 1;
	}
	fprintf(stderr, "c2cshare: pid=%d a=%d b=%d line=%p\n", getpid(),
		getpid(), other, (void *)p);
	for (i = 0; i < iters; i++) {
		madvise((void *)p, 4096, MADV_DONTNEED);
		write_word(p, (uint64_t)i);
	}
	return 0;
}

static int procs(void)
{
	int fd = memfd_create("c2cshare", 0), st;
	pid_t child;

	if (fd < 0 || ftruncate(fd, 2 * 4096)) {
		perror("c2cshare: memfd");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("c2cshare: fork");
		return 1;
	}
	if (!child)
		_exit(proc_work(fd, (void *)0x300000000000, getppid()));
	if (proc_work(fd, (void *)0x200000000000, child) ||
	    waitpid(child, &st, 0) != child || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct worker a = { .off = 0 }, b = { .off = 1 };
	pthread_t ta, tb;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--true")) {
			b.off = 0;
		} else if (!strcmp(argv[i], "--false")) {
			b.off = 1;
		} else if (!strcmp(argv[i], "--procs")) {
			b.off = UINT32_MAX;
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			iters = atol(argv[++i]);
		} else {
			fprintf(stderr, "usage: c2cshare --true|--false|"
				"--procs [--iters N]\n");
			return 2;
		}
	}
	if (b.off == UINT32_MAX)
		return procs();
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("c2cshare: mmap");
		return 1;
	}
	pthread_barrier_init(&start, NULL, 3);
	if (pthread_create(&ta, NULL, work, &a) ||
	    pthread_create(&tb, NULL, work, &b)) {
		fprintf(stderr, "c2cshare: cannot start threads\n");
		return 1;
	}
	pthread_barrier_wait(&start);
	fprintf(stderr, "c2cshare: pid=%d a=%d b=%d line=%p\n", getpid(),
		a.tid, b.tid, (void *)page);
	pthread_barrier_wait(&start);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}
