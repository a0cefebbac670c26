// SPDX-License-Identifier: MIT
/*
 * memwalk - the demo workload: two named threads with one hot function
 * each, so that a profile has a clear answer.
 *
 *   walker    runs all the time in chase(): pointer chasing over a
 *             randomly linked ring of 64-byte nodes (--mb MB, one cache
 *             miss per hop once the ring exceeds the caches);
 *   streamer  runs about a quarter of the time in stream(): sequential
 *             read-modify-write over its own buffer (--mb / 4 MB), then
 *             sleeps;
 *
 * so chase() dominates a CPU profile (~75-80 % of the samples) and
 * stream() comes second. Each thread allocates and first touches its
 * own memory, so page faults are attributed to it too.
 *
 * --share adds a sharing phase: every millisecond each thread drops a
 * shared page (madvise MADV_DONTNEED) and writes its own word of the
 * same cache line in share_line(), so both threads fault on, load from
 * and store to one cache line: the "who shares a cache line" table.
 *
 * --hops N makes the work fixed instead of timed: the run ends when the
 * walker has made N hops (for overhead comparisons: wall time of the
 * same work with and without a recorder).
 *
 * The pid and the thread ids go to stderr before the work starts:
 *	memwalk: pid=P walker=T1 streamer=T2
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct node {
	struct node *next;
	uint64_t pad[7];
};

static atomic_int stop;
static size_t mb = 64;
static unsigned long long max_hops;	/* --hops: fixed work, not time */
static bool share;
static char *shared_page;	/* one page; its first cache line is shared */
static pthread_barrier_t started;
static pid_t tids[2];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fault every page in (so page-fault samples name this function). */
static void first_touch(char *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;

	for (i = 0; i < len; i += page)
		((volatile char *)p)[i] = 0;
}

/*
 * @len bytes of their own mapping, between two inaccessible guard pages:
 * the kernel merges adjacent anonymous mappings of the same protection,
 * and a recording then has one mapping for both (the ring and the 8 MiB
 * that build_ring's permutation took below it, one 72 MiB mapping: 1
 * run in 8 of the demo), which the heat map draws as one row.
 */
static void *alloc_touched(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len + 2 * page, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED ||
	    mprotect(p + page, len, PROT_READ | PROT_WRITE)) {
		fprintf(stderr, "memwalk: mmap %zu bytes: %s\n", len,
			strerror(errno));
		exit(1);
	}
	first_touch(p + page, len);
	return p + page;
}

/* Link @n nodes into one random cycle (Sattolo's algorithm). */
static struct node *build_ring(struct node *nodes, size_t n)
{
	size_t *perm = malloc(n * sizeof(*perm));
	uint64_t x = 88172645463325252ull;
	size_t i;

	if (!perm) {
		fprintf(stderr, "memwalk: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % i;
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		nodes[perm[i]].next = &nodes[perm[(i + 1) % n]];
	free(perm);
	return nodes;
}

/* The walker's hot function. */
static struct node *chase(struct node *p, unsigned long hops)
{
	while (hops--)
		p = p->next;
	return p;
}

/* The streamer's hot function. */
static uint64_t stream(uint64_t *buf, size_t n)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		buf[i] = buf[i] * 3 + 1;
		sum += buf[i];
	}
	return sum;
}

/* Both threads write words of the same cache line of a dropped page. */
static void share_line(int who)
{
	volatile uint64_t *line = (volatile uint64_t *)shared_page;

	madvise(shared_page, (size_t)sysconf(_SC_PAGESIZE), MADV_DONTNEED);
	line[who]++;
	line[2] += line[1 - who];
}

static void maybe_share(int who, uint64_t *next_share)
{
	uint64_t t;

	if (!share)
		return;
	t = now_ns();
	if (t >= *next_share) {
		share_line(who);
		*next_share = t + 1000000;
	}
}

static void *walker(void *arg)
{
	size_t n = mb * 1024 * 1024 / sizeof(struct node);
	uint64_t next_share = 0;
	unsigned long long done = 0;
	struct node *p;

	(void)arg;
	pthread_setname_np(pthread_self(), "walker");
	tids[0] = gettid();
	p = build_ring(alloc_touched(n * sizeof(struct node)), n);
	pthread_barrier_wait(&started);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		p = chase(p, 20000);
		maybe_share(0, &next_share);
		done += 20000;
		if (max_hops && done >= max_hops)
			break;
	}
	return p;
}

static void *streamer(void *arg)
{
	size_t n = mb * 1024 * 1024 / 4 / sizeof(uint64_t);
	uint64_t *buf, sum = 0, next_share = 0;
	const size_t chunk = 32768;	/* 256 KiB per call */
	struct timespec nap = { 0, 6000000 };
	size_t off = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "streamer");
	tids[1] = gettid();
	buf = alloc_touched(n * sizeof(*buf));
	pthread_barrier_wait(&started);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		uint64_t t0 = now_ns();

		/* ~2 ms of streaming, then ~6 ms of sleep */
		while (now_ns() - t0 < 2000000) {
			size_t len = n - off < chunk ? n - off : chunk;

			sum += stream(buf + off, len);
			off = off + len == n ? 0 : off + len;
		}
		maybe_share(1, &next_share);
		nanosleep(&nap, NULL);
	}
	return (void *)(uintptr_t)sum;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: memwalk [--seconds S | --hops N] [--mb M] [--share]\n"
		"  --seconds S  run for S seconds (default 2)\n"
		"  --mb M       walker ring of M MiB, streamer buffer of M/4 "
		"(default 64)\n"
		"  --share      both threads also write one shared cache line "
		"(and fault on it)\n"
		"  --hops N     fixed work instead of time: stop once the walker "
		"made N hops\n"
		"               (for overhead benchmarks: compare wall times)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "mb", required_argument, NULL, 'm' },
		{ "share", no_argument, NULL, 'S' },
		{ "hops", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 2;
	struct timespec ts;
	pthread_t th[2];
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "s:m:SH:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seconds = strtod(optarg, &end);
			if (*end || seconds <= 0) {
				fprintf(stderr, "memwalk: bad --seconds '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			mb = strtoul(optarg, &end, 10);
			if (*end || mb < 4) {
				fprintf(stderr, "memwalk: bad --mb '%s' "
					"(at least 4)\n", optarg);
				return 2;
			}
			break;
		case 'S':
			share = true;
			break;
		case 'H':
			max_hops = strtoull(optarg, &end, 10);
			if (*end || !max_hops) {
				fprintf(stderr, "memwalk: bad --hops '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (share)
		shared_page = alloc_touched((size_t)sysconf(_SC_PAGESIZE));
	pthread_barrier_init(&started, NULL, 3);
	if (pthread_create(&th[0], NULL, walker, NULL) ||
	    pthread_create(&th[1], NULL, streamer, NULL)) {
		fprintf(stderr, "memwalk: cannot create threads\n");
		return 1;
	}
	pthread_barrier_wait(&started);
	fprintf(stderr, "memwalk: pid=%d walker=%d streamer=%d\n", getpid(),
		tids[0], tids[1]);
	if (max_hops) {
		pthread_join(th[0], NULL);
		atomic_store(&stop, 1);
		pthread_join(th[1], NULL);
		return 0;
	}
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	atomic_store(&stop, 1);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	return 0;
}
