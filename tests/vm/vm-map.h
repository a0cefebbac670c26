/* SPDX-License-Identifier: MIT */
/*
 * vm-map.h - what the guest programs that read /dev/pebs_map raw share
 * (module-test.c, map-stress.c): the "FAIL <reason>" exit, small time
 * and CPU helpers, and the read side of the protocol include/pebs_map.h
 * documents (seqcount copies of slots, stable history entries), built
 * on lib/core/barrier.h alone so that the module is tested on its own.
 */
#ifndef PEBS_VM_MAP_H
#define PEBS_VM_MAP_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "core/barrier.h"
#include "pebs_map.h"

#define MAX_CPUS 8192

static inline __attribute__((format(printf, 1, 2), noreturn)) void
fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

/*
 * token_ring_setup - the token-passing workloads' set-up (hist-oracle,
 * switch-token): the done pipe, one pipe per thread, and @at for threads
 * pinned to @cpu at SCHED_FIFO 10, so each switch on that CPU is a
 * hand-over the workload logs itself.
 */
static inline void token_ring_setup(int done[2], int (*fds)[2], unsigned int n,
				    unsigned int cpu, pthread_attr_t *at)
{
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t set;

	if (pipe(done))
		fail("pipe: %s", strerror(errno));
	for (unsigned int i = 0; i < n; i++)
		if (pipe(fds[i]))
			fail("pipe: %s", strerror(errno));
	pthread_attr_init(at);
	pthread_attr_setinheritsched(at, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(at, SCHED_FIFO);
	pthread_attr_setschedparam(at, &sp);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_setaffinity_np(at, sizeof(set), &set);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

static inline void pin_to(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail("sched_setaffinity(cpu %u): %s", cpu, strerror(errno));
}

/* Parse a sysfs cpulist ("0-1,4") into a bitmap; returns the highest id. */
static inline int read_cpulist(const char *path, bool *set, unsigned int n)
{
	char buf[4096], *p;
	int max = -1;
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		fail("cannot read %s", path);
	fclose(f);
	for (p = buf; *p && *p != '\n';) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (; a <= b; a++) {
			if (a < n)
				set[a] = true;
			if ((int)a > max)
				max = a;
		}
		p = *end == ',' ? end + 1 : end;
	}
	return max;
}

/* ---- the mapping ------------------------------------------------------ */

struct map {
	int fd;
	const struct pebs_map_header *h;
	const struct pebs_map_slot *slots;
	const struct pebs_map_switch *hist;
	unsigned int nr;
	unsigned int len;
};

static long page_size;	/* the caller sets it: sysconf(_SC_PAGESIZE) */

static inline void map_open(struct map *m)
{
	const struct pebs_map_header *h;

	m->fd = open(PEBS_MAP_DEVICE, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0)
		fail("open %s: %s", PEBS_MAP_DEVICE, strerror(errno));
	h = mmap(NULL, page_size, PROT_READ, MAP_SHARED, m->fd, 0);
	if (h == MAP_FAILED)
		fail("mmap header page: %s", strerror(errno));
	if (h->magic != PEBS_MAP_MAGIC || h->abi_version != PEBS_MAP_ABI_VERSION ||
	    h->header_size != sizeof(*h) || h->slot_size != PEBS_MAP_SLOT_SIZE ||
	    h->slots_offset < sizeof(*h) || h->slots_offset % 64 ||
	    h->hist_entry_size != sizeof(struct pebs_map_switch) ||
	    h->clock != PEBS_MAP_CLOCK_LOCAL || h->pid_ns != PEBS_MAP_PIDNS_INIT ||
	    (h->hook != PEBS_MAP_HOOK_TRACEPOINT &&
	     h->hook != PEBS_MAP_HOOK_DIRECT))
		fail("bad header: magic %#llx abi %u hdr %u slot %u off %llu",
		     (unsigned long long)h->magic, h->abi_version,
		     h->header_size, h->slot_size,
		     (unsigned long long)h->slots_offset);
	if (h->table_size % page_size ||
	    h->table_size < h->slots_offset + (uint64_t)h->nr_slots * 64 ||
	    h->table_size >= h->slots_offset + (uint64_t)h->nr_slots * 64 + page_size ||
	    h->hist_offset % page_size || h->hist_offset < h->table_size ||
	    !h->hist_len || (h->hist_len & (h->hist_len - 1)) ||
	    h->hist_size % page_size ||
	    h->hist_size < (uint64_t)h->nr_slots * h->hist_len * 16)
		fail("bad sizes: table %llu hist_offset %llu hist_size %llu len %u",
		     (unsigned long long)h->table_size,
		     (unsigned long long)h->hist_offset,
		     (unsigned long long)h->hist_size, h->hist_len);
	m->nr = h->nr_slots;
	m->len = h->hist_len;
	m->h = mmap(NULL, h->table_size, PROT_READ, MAP_SHARED, m->fd, 0);
	if (m->h == MAP_FAILED)
		fail("mmap table (%llu bytes): %s",
		     (unsigned long long)h->table_size, strerror(errno));
	m->hist = mmap(NULL, h->hist_size, PROT_READ, MAP_SHARED, m->fd,
		       h->hist_offset);
	if (m->hist == MAP_FAILED)
		fail("mmap history (%llu bytes at %llu): %s",
		     (unsigned long long)h->hist_size,
		     (unsigned long long)h->hist_offset, strerror(errno));
	munmap((void *)h, page_size);
	m->slots = (const void *)((const char *)m->h + m->h->slots_offset);
}

static inline void map_close(struct map *m)
{
	munmap((void *)m->hist, m->h->hist_size);
	munmap((void *)m->h, m->h->table_size);
	close(m->fd);
}

/*
 * A consistent copy of a slot (seqcount read side); -EAGAIN if none in a
 * second (a qemu vCPU can stall for milliseconds half-way through a
 * write, so spin a little, then yield).
 */
static inline int slot_read(const struct map *m, unsigned int cpu,
		     struct pebs_map_slot *out)
{
	const struct pebs_map_slot *s = &m->slots[cpu];
	uint64_t deadline = 0;
	unsigned int tries;

	for (tries = 0;; tries++) {
		uint32_t s1 = pebs_load_acquire(&s->seq), s2;

		if (tries >= 1000) {
			if (!deadline)
				deadline = now_ns() + 1000000000ull;
			else if (now_ns() > deadline)
				return -EAGAIN;
			sched_yield();
		}
		if (s1 & 1)
			continue;
		memcpy(out, (const void *)s, sizeof(*out));
		pebs_smp_rmb();	/* the copy before the second seq load */
		s2 = PEBS_READ_ONCE(s->seq);
		if (s1 == s2) {
			out->seq = s1;
			return 0;
		}
	}
}

static inline struct pebs_map_slot slot_get(const struct map *m, unsigned int cpu)
{
	struct pebs_map_slot s;

	if (slot_read(m, cpu, &s))
		fail("no consistent copy of slot %u", cpu);
	return s;
}

/*
 * Copy the stable entries of @cpu's history from *cursor on into out[]
 * (at most max); returns the number copied, adds overrun entries to
 * *lost. Entry n is stable iff n > head_after - hist_len (the writer may
 * be filling entry head_after in the place of head_after - hist_len).
 */
static inline unsigned int hist_copy(const struct map *m, unsigned int cpu,
			      uint64_t *cursor, struct pebs_map_switch *out,
			      unsigned int max, uint64_t *lost)
{
	const struct pebs_map_switch *ring = m->hist + (size_t)cpu * m->len;
	uint64_t head = pebs_load_acquire(&m->slots[cpu].hist_head);
	uint64_t from = *cursor, n, after, first_ok;
	unsigned int i, k = 0;

	if (head > m->len - 1 && from < head - (m->len - 1)) {
		*lost += head - (m->len - 1) - from;
		from = head - (m->len - 1);
	}
	if (head - from > max)
		head = from + max;
	for (n = from; n < head; n++)
		out[n - from] = ring[n & (m->len - 1)];
	pebs_smp_rmb();	/* the copies before the second head load */
	after = PEBS_READ_ONCE(m->slots[cpu].hist_head);
	first_ok = after >= m->len ? after - m->len + 1 : 0;
	for (i = 0; i < head - from; i++) {
		if (from + i < first_ok)
			(*lost)++;
		else
			out[k++] = out[i];
	}
	*cursor = head;
	return k;
}

/*
 * churn_pair_ok - an entry naming one of our @n churn threads (tids
 * @tids, named "churn-<i>") must carry our tgid and its name; the idle
 * task is tgid 0 ("swapper/N"); -1 comes for tgid and pid together.
 * @comm may be NULL (history entries have none).
 */
static inline bool churn_pair_ok(const pid_t *tids, unsigned int n,
				 int32_t tgid, int32_t pid, const char *comm)
{
	unsigned int i;
	char name[24];

	if (pid == 0)
		return tgid == 0 && (!comm || !strncmp(comm, "swapper", 7));
	if ((pid == -1) != (tgid == -1))
		return false;
	for (i = 0; i < n; i++) {
		if (pid != tids[i])
			continue;
		snprintf(name, sizeof(name), "churn-%u", i);
		return tgid == getpid() && (!comm || !strncmp(comm, name, 16));
	}
	return true;
}

#endif /* PEBS_VM_MAP_H */
