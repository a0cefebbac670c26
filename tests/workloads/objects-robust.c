// SPDX-License-Identifier: MIT
/*
 * objects-robust - unusual program behaviour for the allocation
 * interposer of `record --objects` (tests/cli/objects-robust.t): each
 * mode must behave under it exactly as without it (same output, same
 * exit status, no hang). Deterministic output only; a child that hangs
 * is killed after 3 seconds and counted.
 *
 *	objects-robust signal	malloc/free and mmap/munmap in a signal
 *				handler that interrupts the interposer's
 *				own paths (a timer every 100 us while the
 *				main thread maps and unmaps)
 *	objects-robust spawn	vfork + exec, posix_spawn, system
 *	objects-robust fork	fork 100 times while a thread allocates
 *				and two start threads and call
 *				dl_iterate_phdr; each child allocates
 *				(a malloc of 300000 bytes), forks once more
 *				every other time, and exits
 *	objects-robust dlopen LIB SYM	dlopen LIB after start, threads
 *				reading its __thread int SYM (a function
 *				returning its address)
 *	objects-robust threads	threads that exit at once, detached ones,
 *				and pthread_exit from main
 *	objects-robust closefds	close every fd from 3, then exec itself
 *				(mode exec-after) which allocates
 *	objects-robust api	every allocation function on tracked and
 *				untracked pointers, the failures included
 *	objects-robust mmap	mmap, munmap, mremap (MREMAP_MAYMOVE,
 *				MREMAP_FIXED, MREMAP_DONTUNMAP)
 *	objects-robust rlimit	RLIMIT_STACK small then unlimited, with a
 *				thread and an exec of itself
 *	objects-robust coro	allocations on makecontext stacks (heap,
 *				mmap, on the main stack) and on a
 *				sigaltstack
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

extern char **environ;

static const char *self;

/* a malloc of @n bytes written and freed (free(malloc(n)) the compiler
   leaves out) */
static void churn1(size_t n)
{
	char *volatile p = malloc(n);

	if (p && n)
		p[n - 1] = 1;
	free(p);
}

static void die(const char *what)
{
	printf("FAIL %s: %s\n", what, strerror(errno));
	exit(2);
}

/* ---- signal ------------------------------------------------------------ */

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	void *p;

	(void)sig;
	ticks++;
	/* a big one (always tracked: the set's lock) and a small one */
	p = mmap(NULL, 1 << 17, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		munmap(p, 1 << 17);
	churn1(100000);
	churn1(24);
}

static int mode_signal(void)
{
	struct sigaction sa = { .sa_handler = on_tick,
				.sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 100 }, { 0, 100 } };
	unsigned long rounds = 0;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	/* mmap and munmap are async-signal-safe: the handler's malloc never
	   interrupts the real allocator, but does interrupt the hooks */
	while (ticks < 2000) {
		void *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("mmap");
		munmap(p, 1 << 16);
		rounds++;
	}
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
	printf("signal ok\n");
	return rounds ? 0 : 1;
}

/* ---- spawn ------------------------------------------------------------- */

static int wait_rc(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int mode_spawn(void)
{
	char *echo[] = { "echo", "spawned", NULL };
	char *sh[] = { "sh", "-c", "exit 5", NULL };
	pid_t pid;

	fflush(stdout);
	pid = vfork();
	if (pid == 0) {
		execve("/bin/sh", sh, environ);
		_exit(127);
	}
	printf("vfork rc %d\n", wait_rc(pid));
	fflush(stdout);
	if (posix_spawnp(&pid, "echo", NULL, NULL, echo, environ))
		die("posix_spawnp");
	printf("posix_spawn rc %d\n", wait_rc(pid));
	fflush(stdout);
	printf("system rc %d\n", WEXITSTATUS(system("exit 3")));
	return 0;
}

/* ---- fork -------------------------------------------------------------- */

static void *nothing(void *arg)
{
	return arg;
}

static volatile int stop;

static void *churn(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!stop) {
		size_t n = (size_t)rand_r(&seed) % 4000 + 1;
		char *volatile q = calloc(1, n / 16 + 1);

		churn1(n);
		free(q);
	}
	return NULL;
}

/* @pid's exit status, or -1 (and @pid killed) when it has not exited
   within 3 seconds: it hangs (a deadlock in fork's child handlers comes
   before the child can set an alarm) */
static int wait_bounded(pid_t pid)
{
	for (int i = 0; i < 3000; i++) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
					       128 + WTERMSIG(st);
		if (r < 0)
			die("waitpid");
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* a child: allocates (a big object, always tracked), forks again */
static void child(int depth)
{
	churn1(300000);
	churn1(100);
	if (depth) {
		pid_t pid = fork();

		if (pid == 0) {
			child(depth - 1);
			exit(0);
		}
		exit(wait_bounded(pid) ? 1 : 0);
	}
}

/* a slow look at each module: the loader's lock is held most of the
   time */
static int slow_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	(void)arg;
	for (volatile int i = 0; i < 100000; i++)
		;
	return 0;
}

/* threads starting (under the interposer: a dl_iterate_phdr each), and
   dl_iterate_phdr as a C++ throw calls it */
static void *starter(void *arg)
{
	(void)arg;
	while (!stop) {
		pthread_t th;

		if (!pthread_create(&th, NULL, nothing, NULL))
			pthread_join(th, NULL);
		dl_iterate_phdr(slow_module, NULL);
	}
	return NULL;
}

static int mode_fork(void)
{
	pthread_t th[3];
	int bad = 0;

	pthread_create(&th[0], NULL, churn, (void *)1);
	for (int i = 1; i < 3; i++)
		pthread_create(&th[i], NULL, starter, NULL);
	for (int i = 0; i < 100; i++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			child(i % 2);
			exit(0);
		}
		if (wait_bounded(pid)) {
			bad++;
			break;
		}
	}
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("fork children hung or failed: %d\n", bad);
	return bad != 0;
}

/* ---- dlopen ------------------------------------------------------------ */

static int *(*tls_of)(void);

static void *read_tls(void *arg)
{
	int *v = tls_of();

	*v += (int)(uintptr_t)arg;
	churn1(70000);
	return (void *)(uintptr_t)*v;
}

static int mode_dlopen(const char *lib, const char *sym)
{
	void *h = dlopen(lib, RTLD_NOW);
	pthread_t th[4];
	uintptr_t sum = 0;

	if (!h || !(tls_of = (int *(*)(void))dlsym(h, sym))) {
		printf("FAIL dlopen: %s\n", dlerror());
		return 2;
	}
	*tls_of() = 100;
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, read_tls, (void *)(i + 1));
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(th[i], &r);
		sum += (uintptr_t)r;
	}
	printf("dlopen tls main %d threads %lu\n", *tls_of(),
	       (unsigned long)sum);
	return 0;
}

/* ---- threads ----------------------------------------------------------- */

static void *quit(void *arg)
{
	churn1(80000);
	pthread_exit(arg);
}

static void *last(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++)
		churn1((size_t)i * 100);
	usleep(100000);	/* main has called pthread_exit by now */
	printf("last thread done\n");
	fflush(stdout);
	return NULL;
}

static int mode_threads(void)
{
	pthread_attr_t det;
	pthread_t th;

	pthread_attr_init(&det);
	pthread_attr_setdetachstate(&det, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < 200; i++) {
		if (pthread_create(&th, i % 3 ? NULL : &det,
				   i % 2 ? nothing : quit, NULL))
			die("pthread_create");
		if (i % 3)
			pthread_join(th, NULL);
	}
	if (pthread_create(&th, &det, last, NULL))
		die("pthread_create");
	printf("main exits\n");
	fflush(stdout);
	pthread_exit(NULL);
}

/* ---- closefds ---------------------------------------------------------- */

static int mode_closefds(void)
{
	char *argv[] = { (char *)self, "exec-after", NULL };

	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	/* the ring's number taken by other files */
	for (int i = 0; i < 20; i++)
		if (open("/dev/null", O_RDONLY) < 0)
			die("open");
	fflush(stdout);
	execv(self, argv);
	die("execv");
	return 2;
}

static int mode_exec_after(void)
{
	churn1(200000);
	printf("exec-after ok\n");
	return 0;
}

/* ---- api --------------------------------------------------------------- */

#define SAY(cond) printf("%-40s %s\n", #cond, (cond) ? "yes" : "no")

/* @n bytes at @p hold @c (the data survived) */
static int holds(const void *p, int c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i] != c)
			return 0;
	return 1;
}

/* through pointers: the compiler must not see which pointer stays
   valid after a failed realloc */
static void *(*volatile realloc_f)(void *, size_t) = realloc;
static void *(*volatile reallocarray_f)(void *, size_t, size_t) = reallocarray;

static int mode_api(void)
{
	void *p, *q;
	/* volatile: the compiler must not see the failures coming */
	volatile size_t huge = SIZE_MAX / 2, big = (size_t)1 << 33;

	/* tracked (big) and untracked (small, likely) pointers alike */
	for (size_t n = 16; n <= (1 << 20); n *= 64) {
		printf("size %zu\n", n);
		p = malloc(n);
		memset(p, 7, n);
		SAY(malloc_usable_size(p) >= n);
		q = realloc(p, n * 2);
		SAY(q && holds(q, 7, n));
		p = reallocarray(q, n, 3);
		SAY(p && holds(p, 7, n));
		errno = 0;
		q = realloc_f(p, huge);	/* fails: p stays */
		SAY(!q && errno == ENOMEM && holds(p, 7, n));
		errno = 0;
		q = reallocarray_f(p, huge, 4);	/* overflows: p stays */
		SAY(!q && errno == ENOMEM && holds(p, 7, n));
		SAY(realloc(p, 0) == NULL);	/* glibc: frees p */
		p = realloc(NULL, n);
		SAY(p != NULL);
		free(p);
		SAY(posix_memalign(&p, 4096, n) == 0 && !((uintptr_t)p & 4095));
		free(p);
		SAY(posix_memalign(&p, 24, n) == EINVAL);
		p = aligned_alloc(256, n);
		SAY(p && !((uintptr_t)p & 255));
		free(p);
		p = memalign(65536, n);
		SAY(p && !((uintptr_t)p & 65535));
		free(p);
		p = valloc(n);
		SAY(p && !((uintptr_t)p & 4095));
		free(p);
		p = pvalloc(n);
		SAY(p && malloc_usable_size(p) >= ((n + 4095) & ~(size_t)4095));
		free(p);
		p = calloc(n, 1);
		SAY(p && holds(p, 0, n));
		free(p);
	}
	errno = 0;
	SAY(calloc(huge, 3) == NULL && errno == ENOMEM);
	errno = 0;
	SAY(calloc(big, big) == NULL && errno == ENOMEM);
	SAY(malloc(huge) == NULL);
	free(NULL);
	SAY(malloc_usable_size(NULL) == 0);
	p = malloc(0);
	SAY(p != NULL);
	free(p);
	return 0;
}

/* ---- mmap -------------------------------------------------------------- */

static int mode_mmap(void)
{
	size_t pg = 4096;
	char *p, *q, *r, *hole;

	p = mmap(NULL, 64 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 3, 64 * pg);
	SAY(munmap(p + 8 * pg, 8 * pg) == 0);	/* a hole in the middle */
	SAY(munmap(p, 8 * pg) == 0);		/* its head */
	/* grow in place or move */
	q = mremap(p + 16 * pg, 48 * pg, 200 * pg, MREMAP_MAYMOVE);
	SAY(q != MAP_FAILED && holds(q, 3, 48 * pg));
	/* to a fixed place */
	hole = mmap(NULL, 400 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	r = mremap(q, 200 * pg, 100 * pg, MREMAP_MAYMOVE | MREMAP_FIXED,
		   hole + 100 * pg);
	SAY(r == hole + 100 * pg && holds(r, 3, 48 * pg));
	/* the old range stays mapped (and empty) */
	q = mremap(r, 100 * pg, 100 * pg, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
	SAY(q != MAP_FAILED ? holds(q, 3, 48 * pg) && holds(r, 0, pg) :
	    errno == EINVAL);
	/* a failure: the range is untouched */
	SAY(mremap(r, 100 * pg, 1000 * pg, 0) == MAP_FAILED);
	SAY(holds(r, q != MAP_FAILED ? 0 : 3, pg));
	SAY(munmap(hole, 400 * pg) == 0);
	if (q != MAP_FAILED)
		munmap(q, 100 * pg);
	SAY(munmap(NULL, 0) != 0 && errno == EINVAL);
	/* a file's mapping */
	p = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, open(self, O_RDONLY), 0);
	SAY(p != MAP_FAILED && !memcmp(p, "\177ELF", 4));
	munmap(p, pg);
	return 0;
}

/* ---- rlimit ------------------------------------------------------------ */

static int depth(int n)
{
	volatile char pad[512];
	void *p;
	int r;

	pad[0] = (char)n;
	if (!n)
		return pad[0];
	p = malloc(70000);
	r = depth(n - 1) + 1;
	free(p);
	return r + pad[0] - pad[0];
}

static int mode_rlimit(int step)
{
	struct rlimit rl;
	pthread_t th;
	char *argv[] = { (char *)self, "rlimit2", NULL };

	getrlimit(RLIMIT_STACK, &rl);
	rl.rlim_cur = step ? RLIM_INFINITY : 256 << 10;
	if (setrlimit(RLIMIT_STACK, &rl))
		die("setrlimit");
	printf("rlimit %d depth %d\n", step, depth(100));
	if (pthread_create(&th, NULL, quit, NULL))
		die("pthread_create");
	pthread_join(th, NULL);
	fflush(stdout);
	if (!step) {
		execv(self, argv);
		die("execv");
	}
	return 0;
}

/* ---- coro -------------------------------------------------------------- */

static ucontext_t main_ctx, co_ctx;

static void co_body(void)
{
	for (int i = 0; i < 50; i++) {
		churn1(70000);
		churn1(40);
		swapcontext(&co_ctx, &main_ctx);
	}
}

static void run_co(void *stack, size_t len)
{
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = len;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_body, 0);
	for (int i = 0; i <= 50; i++)
		swapcontext(&main_ctx, &co_ctx);
}

static void on_usr1(int sig)
{
	void *p = mmap(NULL, 1 << 17, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)sig;
	if (p != MAP_FAILED)
		munmap(p, 1 << 17);
}

static int mode_coro(void)
{
	size_t len = 256 << 10;
	char local[64 << 10] __attribute__((aligned(16)));
	void *heap = malloc(len);
	void *map = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	stack_t ss = { .ss_sp = malloc(len), .ss_size = len };
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_ONSTACK };

	run_co(heap, len);
	run_co(map, len);
	run_co(local, sizeof(local));
	sigaltstack(&ss, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 100; i++)
		raise(SIGUSR1);
	printf("coro ok\n");
	return 0;
}

static int mode_rlimit1(void)
{
	return mode_rlimit(0);
}

static int mode_rlimit2(void)
{
	return mode_rlimit(1);
}

static const struct {
	const char *name;
	int (*fn)(void);
} modes[] = {
	{ "signal", mode_signal }, { "spawn", mode_spawn },
	{ "fork", mode_fork }, { "threads", mode_threads },
	{ "closefds", mode_closefds }, { "exec-after", mode_exec_after },
	{ "api", mode_api }, { "mmap", mode_mmap },
	{ "rlimit", mode_rlimit1 }, { "rlimit2", mode_rlimit2 },
	{ "coro", mode_coro },
};

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	self = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++)
		if (!strcmp(m, modes[i].name))
			return modes[i].fn();
	if (!strcmp(m, "dlopen") && argc > 3)
		return mode_dlopen(argv[2], argv[3]);
	fprintf(stderr, "usage: objects-robust signal|spawn|fork|dlopen LIB SYM|threads|closefds|api|mmap|rlimit|coro\n");
	return 2;
}
