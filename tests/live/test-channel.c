// SPDX-License-Identifier: MIT
/*
 * test-channel - channels on this host with software events: cpu-clock
 * of a thread and of a CPU, page-fault addresses, enable/disable, period
 * 0, PERF_EVENT_IOC_ID, one ring shared through SET_OUTPUT, errors.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

#define ST_PF (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static size_t ps;

static void sw_event(struct pebs_event *ev, uint64_t config, const char *name)
{
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, name);
	strcpy(ev->pmu, "perf");
	ev->flags = PEBS_EVENT_SOFTWARE;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.config = config;
}

/*
 * Open, or skip the test when perf_event_open itself is unavailable
 * (no perf support, or not allowed for this target).
 */
static struct pebs_channel *open_or_skip(const struct pebs_event *ev,
					 pid_t pid, int cpu,
					 const struct pebs_channel_opts *o)
{
	struct pebs_channel *ch = NULL;
	int err = pebs_channel__open(ev, pid, cpu, o, &ch);

	if (err == -ENOSYS || err == -EACCES || err == -EPERM ||
	    err == -ENOENT) {
		print_message("# skip: %s\n", pebs_errmsg());
		skip();
	}
	if (err)
		fail_msg("pebs_channel__open: %d %s", err, pebs_errmsg());
	return ch;
}

typedef void (*sample_fn)(void *arg, struct pebs_channel *ch,
			  const struct pebs_sample *s);

/* read every record published so far; returns the number of samples */
static unsigned int drain(struct pebs_channel *ch, sample_fn fn, void *arg)
{
	struct pebs_ring *ring = pebs_channel__ring(ch);
	const struct perf_event_header *ev;
	struct pebs_sample s;
	unsigned int n = 0;
	int r;

	/* one snapshot: a busy producer cannot keep us here */
	if (pebs_ring__read_init(ring))
		return 0;
	while ((r = pebs_ring__next(ring, &ev)) > 0) {
		if (ev->type != PERF_RECORD_SAMPLE)
			continue;
		assert_int_equal(pebs_sample__decode(pebs_channel__layout(ch),
						     ev, &s), 0);
		fn(arg, ch, &s);
		n++;
	}
	assert_int_equal(r, 0);
	pebs_ring__consume(ring);
	return n;
}

/* ---- a busy thread pinned to one CPU ---------------------------------- */

struct busy {
	pthread_t thread;
	int cpu;
	atomic_int tid;
	atomic_int stop;
};

static void *busy_fn(void *arg)
{
	struct busy *b = arg;
	cpu_set_t set;
	volatile unsigned long x = 0;

	CPU_ZERO(&set);
	CPU_SET(b->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return NULL;
	atomic_store(&b->tid, (int)syscall(SYS_gettid));
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed))
		x++;
	return NULL;
}

/* the highest CPU we may run on */
static int some_cpu(void)
{
	cpu_set_t set;
	int cpu = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;
	return cpu;
}

static void busy_start(struct busy *b)
{
	memset(b, 0, sizeof(*b));
	b->cpu = some_cpu();
	assert_int_equal(pthread_create(&b->thread, NULL, busy_fn, b), 0);
	/* bounded: the thread sets tid right after pinning itself */
	for (int i = 0; i < 10000 && !atomic_load(&b->tid); i++)
		usleep(1000);
	assert_int_not_equal(atomic_load(&b->tid), 0);
}

static void busy_stop(struct busy *b)
{
	atomic_store(&b->stop, 1);
	pthread_join(b->thread, NULL);
}

struct clock_check {
	int tid;		/* the busy thread */
	bool only_tid;		/* every sample must be of it */
	int cpu;		/* expected cpu */
	uint64_t last_time;
	unsigned int samples, of_tid;
};

static void check_clock(void *arg, struct pebs_channel *ch,
			const struct pebs_sample *s)
{
	struct clock_check *c = arg;
	uint64_t id;

	assert_true(s->present & PERF_SAMPLE_TIME);
	assert_true(s->present & PERF_SAMPLE_CPU);
	if (s->time < c->last_time)
		fail_msg("time went back: %llu after %llu",
			 (unsigned long long)s->time,
			 (unsigned long long)c->last_time);
	c->last_time = s->time;
	assert_int_equal(s->cpu, c->cpu);
	if (c->only_tid) {
		assert_int_equal(s->tid, c->tid);
		assert_int_equal(s->pid, getpid());
	}
	pebs_channel__id(ch, &id);
	assert_int_equal(s->id, id);
	c->samples++;
	c->of_tid += (int)s->tid == (int)c->tid;
}

/*
 * gather cpu-clock samples until @want of them are of the busy thread,
 * with a generous bound (60 s)
 */
static void gather(struct pebs_channel *ch, struct clock_check *c,
		   unsigned int want)
{
	struct pollfd pfd = { .fd = pebs_channel__fd(ch), .events = POLLIN };

	for (int i = 0; i < 600 && c->of_tid < want; i++) {
		poll(&pfd, 1, 100);
		drain(ch, check_clock, c);
	}
	if (c->of_tid < want)
		fail_msg("only %u cpu-clock samples of the busy thread "
			 "(%u in all) in 60 s", c->of_tid, c->samples);
}

static void test_cpu_clock_thread(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 200000, /* 200 us */
		  .sample_type = ST_PF, .ring_pages = 16, .watermark = 1024);
	struct clock_check c = { 0 };
	struct pebs_channel *ch;
	struct pebs_event ev;
	struct busy b;

	(void)state;
	sw_event(&ev, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	busy_start(&b);
	ch = open_or_skip(&ev, atomic_load(&b.tid), -1, &o);
	assert_int_equal(pebs_channel__pid(ch), atomic_load(&b.tid));
	assert_int_equal(pebs_channel__cpu(ch), -1);
	assert_int_equal(pebs_channel__attr(ch)->sample_period, 200000);
	c.tid = atomic_load(&b.tid);
	c.only_tid = true;
	c.cpu = b.cpu;
	gather(ch, &c, 50);
	busy_stop(&b);
	assert_int_equal(c.of_tid, c.samples);
	assert_int_equal(pebs_ring__stats(pebs_channel__ring(ch))->lost, 0);
	print_message("# %u samples of tid %d on cpu %d\n", c.samples, c.tid,
		      c.cpu);
	pebs_channel__close(ch);
}

static void test_cpu_clock_cpu(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 200000,
		  .sample_type = ST_PF, .ring_pages = 16, .watermark = 1024);
	struct clock_check c = { 0 };
	struct pebs_channel *ch;
	struct pebs_event ev;
	struct busy b;

	(void)state;
	sw_event(&ev, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	busy_start(&b);
	ch = open_or_skip(&ev, -1, b.cpu, &o);
	assert_int_equal(pebs_channel__pid(ch), -1);
	assert_int_equal(pebs_channel__cpu(ch), b.cpu);
	c.cpu = b.cpu;
	/* other tasks may run there too: every sample must be of the CPU */
	c.tid = atomic_load(&b.tid);
	gather(ch, &c, 20);
	busy_stop(&b);
	print_message("# %u samples on cpu %d, %u of the busy thread\n",
		      c.samples, c.cpu, c.of_tid);
	pebs_channel__close(ch);
}

/* ---- page faults -------------------------------------------------------- */

struct pages {
	char *buf;
	unsigned int n;
	unsigned int *seen;
	unsigned int in_range, outside;
	uint64_t id;
	bool check_id;
};

static void pages_map(struct pages *p, unsigned int n)
{
	memset(p, 0, sizeof(*p));
	p->n = n;
	p->buf = mmap(NULL, n * ps, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p->buf != MAP_FAILED);
	/* one fault per 4 KiB page: no transparent huge pages */
	madvise(p->buf, n * ps, MADV_NOHUGEPAGE);
	p->seen = calloc(n, sizeof(*p->seen));
	assert_non_null(p->seen);
}

static void pages_unmap(struct pages *p)
{
	munmap(p->buf, p->n * ps);
	free(p->seen);
}

/* page i is touched at a distinct offset, so the address is exact */
static char *page_addr(const struct pages *p, unsigned int i)
{
	return p->buf + i * ps + (i * 72) % ps;
}

static void pages_touch(struct pages *p)
{
	for (unsigned int i = 0; i < p->n; i++)
		*(volatile char *)page_addr(p, i) = 1;
}

static void check_page(void *arg, struct pebs_channel *ch,
		       const struct pebs_sample *s)
{
	struct pages *p = arg;
	uintptr_t a = (uintptr_t)s->addr;
	uintptr_t lo = (uintptr_t)p->buf;
	unsigned int i;

	(void)ch;
	assert_true(s->present & PERF_SAMPLE_ADDR);
	if (p->check_id)
		assert_int_equal(s->id, p->id);
	if (a < lo || a >= lo + p->n * ps) {
		p->outside++;
		return;
	}
	i = (unsigned int)((a - lo) / ps);
	if ((char *)a != page_addr(p, i))
		fail_msg("fault at %p, page %u was touched at %p", (void *)a,
			 i, (void *)page_addr(p, i));
	assert_int_equal(s->tid, (uint32_t)syscall(SYS_gettid));
	p->seen[i]++;
	p->in_range++;
}

static void test_page_fault_addrs(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF,
		  .disabled = true);
	struct pebs_channel *ch;
	struct pebs_event ev;
	struct pages p;

	(void)state;
	sw_event(&ev, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	ch = open_or_skip(&ev, 0, -1, &o);
	pages_map(&p, 200);
	assert_int_equal(pebs_channel__enable(ch), 0);
	pages_touch(&p);
	assert_int_equal(pebs_channel__disable(ch), 0);
	drain(ch, check_page, &p);
	for (unsigned int i = 0; i < p.n; i++)
		if (p.seen[i] != 1)
			fail_msg("page %u reported %u times", i, p.seen[i]);
	assert_int_equal(p.in_range, p.n);
	assert_int_equal(pebs_ring__stats(pebs_channel__ring(ch))->lost, 0);
	print_message("# %u page addresses exact, %u other faults\n",
		      p.in_range, p.outside);
	pages_unmap(&p);
	pebs_channel__close(ch);
}

/* touch a fresh buffer of @pages pages; how many of its faults were sampled */
static unsigned int phase(struct pebs_channel *ch, unsigned int pages)
{
	struct pages p;
	unsigned int n;

	pages_map(&p, pages);
	p.check_id = true;
	pebs_channel__id(ch, &p.id);
	pages_touch(&p);
	drain(ch, check_page, &p);
	n = p.in_range;
	pages_unmap(&p);
	return n;
}

static void test_enable_disable_period(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF,
		  .disabled = true);
	struct pebs_channel *ch;
	struct pebs_event ev;
	uint64_t id = 0;
	unsigned int n;

	(void)state;
	sw_event(&ev, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	ch = open_or_skip(&ev, 0, -1, &o);
	assert_int_equal(pebs_channel__id(ch, &id), 0);
	assert_int_not_equal(id, 0);

	assert_int_equal(phase(ch, 16), 0);			/* opened disabled */
	assert_int_equal(pebs_channel__enable(ch), 0);
	assert_int_equal(phase(ch, 16), 16);
	assert_int_equal(pebs_channel__disable(ch), 0);
	assert_int_equal(phase(ch, 16), 0);
	assert_int_equal(pebs_channel__enable(ch), 0);
	assert_int_equal(phase(ch, 16), 16);

	assert_int_equal(pebs_channel__set_period(ch, 0), 0);
	assert_int_equal(phase(ch, 16), 0);			/* period 0 stops */
	assert_int_equal(pebs_channel__enable(ch), 0);
	assert_int_equal(phase(ch, 16), 0);			/* still period 0 */
	assert_int_equal(pebs_channel__set_period(ch, 1), 0);
	assert_int_equal(phase(ch, 16), 16);		/* and resumes */

	/* a disable in between wins over the new period */
	assert_int_equal(pebs_channel__set_period(ch, 0), 0);
	assert_int_equal(pebs_channel__disable(ch), 0);
	assert_int_equal(pebs_channel__set_period(ch, 1), 0);
	assert_int_equal(phase(ch, 16), 0);
	assert_int_equal(pebs_channel__enable(ch), 0);
	assert_int_equal(phase(ch, 16), 16);

	/*
	 * period 4 while enabled: one fault in four is sampled from the
	 * first window on, and stays so (faults outside the buffer may shift
	 * the count a little). Linux 6.18 sampled 4, then 0, of each 64
	 * faults when the period was changed on the running event.
	 */
	assert_int_equal(pebs_channel__set_period(ch, 4), 0);
	for (int w = 0; w < 3; w++) {
		n = phase(ch, 64);
		if (n < 12 || n > 20)
			fail_msg("period 4, window %d: %u of 64 faults sampled",
				 w, n);
	}
	assert_int_equal(pebs_channel__set_period(ch, 1), 0);
	assert_int_equal(phase(ch, 16), 16);
	assert_int_equal(pebs_channel__set_period(ch, 1ULL << 63), -EINVAL);
	pebs_channel__close(ch);
}

/*
 * A kernel before 5.12 refuses PERF_SAMPLE_WEIGHT_STRUCT with EINVAL.
 * This program's syscall() stands in for libc's (the library is linked
 * statically into it): while fake_old_kernel is set, perf_event_open
 * fails like such a kernel, and otherwise opens the same sample_type on
 * a software event (no PEBS here), so that the channel is real.
 */
static bool fake_old_kernel;
static uint64_t fake_types[4];
static unsigned int fake_calls;

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (fake_old_kernel && nr == SYS_perf_event_open) {
		struct perf_event_attr attr = *(struct perf_event_attr *)a[0];

		if (fake_calls < ARRAY_SIZE(fake_types))
			fake_types[fake_calls] = attr.sample_type;
		fake_calls++;
		if (attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
			errno = EINVAL;
			return -1;
		}
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_PAGE_FAULTS;
		attr.precise_ip = 0;
		return real(nr, &attr, a[1], a[2], a[3], a[4]);
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void test_weight_fallback(void **state)
{
	struct pebs_channel *ch = NULL;
	struct pebs_event ev;
	uint64_t want = (PEBS_CHANNEL_PEBS_SAMPLE &
			 ~PERF_SAMPLE_WEIGHT_STRUCT) | PERF_SAMPLE_WEIGHT;
	int err;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "MEM_INST_RETIRED:ALL_LOADS");
	ev.flags = PEBS_EVENT_PRECISE | PEBS_EVENT_MEMORY;
	ev.attr.type = PERF_TYPE_RAW;
	ev.attr.config = 0x81d0;
	ev.attr.precise_ip = 2;

	fake_old_kernel = true;
	err = pebs_channel__open(&ev, 0, -1, NULL, &ch);
	fake_old_kernel = false;
	if (err == -EACCES || err == -EPERM || err == -ENOSYS)
		skip();
	assert_int_equal(err, 0);
	/* perf's order: without FORMAT_LOST first, then WEIGHT too */
	assert_int_equal(fake_calls, 3);
	assert_int_equal(fake_types[0], PEBS_CHANNEL_PEBS_SAMPLE);
	assert_int_equal(fake_types[1], PEBS_CHANNEL_PEBS_SAMPLE);
	assert_int_equal(fake_types[2], want);
	assert_int_equal(pebs_channel__attr(ch)->sample_type, want);
	pebs_channel__close(ch);

	/* an explicit sample_type is not rewritten */
	{
		PEBS_OPTS(pebs_channel_opts, o,
			  .sample_type = PEBS_CHANNEL_PEBS_SAMPLE);

		fake_calls = 0;
		fake_old_kernel = true;
		err = pebs_channel__open(&ev, 0, -1, &o, &ch);
		fake_old_kernel = false;
		assert_int_equal(err, -EINVAL);
		/* once, and once more without PERF_FORMAT_LOST */
		assert_int_equal(fake_calls, 2);
		assert_int_equal(fake_types[0], PEBS_CHANNEL_PEBS_SAMPLE);
		assert_int_equal(fake_types[1], PEBS_CHANNEL_PEBS_SAMPLE);
	}
}

/* a dead pid is -ESRCH with a message naming it */
static void test_no_such_pid(void **state)
{
	struct pebs_channel *ch = NULL;
	struct pebs_event ev;
	char want[32];
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	sw_event(&ev, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	assert_int_equal(pebs_channel__open(&ev, pid, -1, NULL, &ch), -ESRCH);
	assert_null(ch);
	snprintf(want, sizeof(want), "pid %d", (int)pid);
	assert_non_null(strstr(pebs_errmsg(), want));
}

/*
 * An unprivileged user past the locked-memory limit gets -EPERM naming
 * perf_event_mlock_kb (run in a child that drops root).
 */
static void test_mlock_limit(void **state)
{
	struct rlimit rl = { 64 << 10, 64 << 10 };
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();		/* needs root to become another user */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* 4 MiB: beyond perf_event_mlock_kb x CPUs + RLIMIT_MEMLOCK */
		PEBS_OPTS(pebs_channel_opts, o, .ring_pages = 1024);
		struct pebs_channel *ch;
		struct pebs_event ev;
		int err;

		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgid(65534) ||
		    setuid(65534))
			_exit(3);
		sw_event(&ev, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
		ev.attr.exclude_kernel = 1;	/* allowed at paranoid 2 */
		ev.attr.exclude_hv = 1;
		err = pebs_channel__open(&ev, 0, -1, &o, &ch);
		if (err == -EACCES || err == -EPERM) {
			if (strstr(pebs_errmsg(), "perf_event_mlock_kb"))
				_exit(0);
			_exit(err == -EACCES ? 77 : 1);
		}
		_exit(err ? 2 : 4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();		/* perf_event_open not allowed for nobody */
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_bad_ring(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .ring_pages = 6);
	struct pebs_channel *ch = NULL;
	struct pebs_event ev;

	(void)state;
	sw_event(&ev, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	assert_int_equal(pebs_channel__open(&ev, 0, -1, &o, &ch), -EINVAL);
	assert_null(ch);
	assert_non_null(strstr(pebs_errmsg(), "power of two"));
}

/* the fd does not leak into exec'd programs */
static void test_cloexec(void **state)
{
	struct pebs_channel *ch;
	struct pebs_event ev;
	int fl;

	(void)state;
	sw_event(&ev, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	ch = open_or_skip(&ev, 0, -1, NULL);
	fl = fcntl(pebs_channel__fd(ch), F_GETFD);
	assert_true(fl >= 0 && (fl & FD_CLOEXEC));
	assert_int_equal(pebs_channel__attr(ch)->sample_type,
			 PEBS_CHANNEL_SW_SAMPLE);
	assert_string_equal(pebs_channel__event(ch)->name, "page-faults");
	pebs_channel__close(ch);
	pebs_channel__close(NULL);
}

/*
 * faults on the pages of @p in a shared ring, counted by their id: [0]
 * owner, [1] user
 */
struct by_id {
	uint64_t ids[2];
	unsigned int n[2], other;
	const struct pages *p;
};

static void count_id(void *arg, struct pebs_channel *ch,
		     const struct pebs_sample *s)
{
	struct by_id *b = arg;
	uintptr_t lo = (uintptr_t)b->p->buf;

	(void)ch;
	assert_true(s->present & PERF_SAMPLE_IDENTIFIER);
	if (s->addr < lo || s->addr >= lo + b->p->n * ps)
		return;
	if (s->id == b->ids[0] || s->id == b->ids[1])
		b->n[s->id == b->ids[1]]++;
	else
		b->other++;
}

/*
 * Two events of this task share the owner's ring; closing the owner
 * first stops it and keeps the ring for the other; another CPU's event
 * cannot write to a task's cpu -1 ring.
 */
static void test_set_output(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF);
	struct pebs_channel *own, *user, *bad = NULL;
	struct pebs_event pf, minor;
	struct by_id b = { 0 };
	struct pages p;

	(void)state;
	sw_event(&pf, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	sw_event(&minor, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults");
	own = open_or_skip(&pf, 0, -1, &o);
	assert_int_equal(pebs_channel__open_output(&minor, 0, -1, &o, own,
						   &user), 0);
	assert_ptr_equal(pebs_channel__ring(user), pebs_channel__ring(own));
	pebs_channel__id(own, &b.ids[0]);
	pebs_channel__id(user, &b.ids[1]);
	assert_true(b.ids[0] != b.ids[1]);

	b.p = &p;
	pages_map(&p, 64);
	pages_touch(&p);
	drain(user, count_id, &b);
	pages_unmap(&p);
	if (b.n[0] != 64 || b.n[1] != 64)
		fail_msg("shared ring: %u owner and %u user samples of 64 faults",
			 b.n[0], b.n[1]);

	/* the owner goes first: its event stops, its ring stays */
	pebs_channel__close(own);
	memset(b.n, 0, sizeof(b.n));
	pages_map(&p, 32);
	pages_touch(&p);
	drain(user, count_id, &b);
	pages_unmap(&p);
	assert_int_equal(b.n[0], 0);
	assert_int_equal(b.n[1], 32);
	assert_int_equal(b.other, 0);

	assert_true(pebs_channel__open_output(&pf, 0, 0, &o, user, &bad) < 0);
	assert_null(bad);
	assert_int_equal(pebs_channel__open_output(&pf, 0, -1, &o, NULL, &bad),
			 -EINVAL);
	pebs_channel__close(user);
}

/*
 * A group (perf's {a,b}): the member opens with the leader's fd and
 * samples like any channel; a leader of another task or CPU, or none,
 * is refused.
 */
static void test_group_member(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF);
	struct pebs_channel *lead, *member, *bad = NULL;
	struct pebs_event pf, minor;
	struct by_id b = { 0 };
	struct pages p;

	(void)state;
	sw_event(&pf, PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	sw_event(&minor, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults");
	lead = open_or_skip(&pf, 0, -1, &o);
	assert_int_equal(pebs_channel__open_member(&minor, 0, -1, &o, lead,
						   lead, &member), 0);
	pebs_channel__id(lead, &b.ids[0]);
	pebs_channel__id(member, &b.ids[1]);
	b.p = &p;
	pages_map(&p, 16);
	pages_touch(&p);
	drain(member, count_id, &b);
	pages_unmap(&p);
	if (b.n[0] != 16 || b.n[1] != 16)
		fail_msg("group: %u leader and %u member samples of 16 faults",
			 b.n[0], b.n[1]);
	assert_int_equal(pebs_channel__open_member(&minor, 0, 0, &o, NULL,
						   lead, &bad), -EINVAL);
	assert_int_equal(pebs_channel__open_member(&minor, getppid(), -1, &o,
						   NULL, lead, &bad), -EINVAL);
	assert_int_equal(pebs_channel__open_member(&minor, 0, -1, &o, NULL,
						   NULL, &bad), -EINVAL);
	assert_null(bad);
	pebs_channel__close(member);
	pebs_channel__close(lead);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_clock_thread),
		cmocka_unit_test(test_cpu_clock_cpu),
		cmocka_unit_test(test_page_fault_addrs),
		cmocka_unit_test(test_enable_disable_period),
		cmocka_unit_test(test_weight_fallback),
		cmocka_unit_test(test_no_such_pid),
		cmocka_unit_test(test_mlock_limit),
		cmocka_unit_test(test_bad_ring),
		cmocka_unit_test(test_cloexec),
		cmocka_unit_test(test_set_output),
		cmocka_unit_test(test_group_member),
	};

	ps = (size_t)sysconf(_SC_PAGESIZE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
