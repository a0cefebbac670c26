// SPDX-License-Identifier: MIT
/*
 * module-test - checks of kmod/pebs_map.ko, run inside the qemu guest by
 * tests/vm/guest/1*-module-*.sh (static binary /pebs/module-test).
 *
 *   module-test correct               slots vs. pinned threads, -1 slots
 *   module-test history [ms]          history vs. perf sched_switch
 *   module-test mmap                  refused mmaps, mprotect, ioctl, fork
 *   module-test pin                   rmmod refused while open/mapped,
 *                                     done after munmap (unloads it)
 *   module-test quick [hist_len]      header and seeded slots after a load
 *   module-test readers [ms]          concurrent snapshot/history readers
 *                                     against churning threads
 *   module-test dump                  print the header and the slots
 *
 * It reads /dev/pebs_map directly, with lib/core/barrier.h only, so that it
 * tests the module on its own (lib/map/map.c has its own tests). Each command
 * prints "ok <figures>" on success (exit 0) or "FAIL <reason>" (exit 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "vm-map.h"

/* ---- correct: slots against pinned threads ---------------------------- */

struct pinned {
	pthread_t thread;
	const struct map *m;
	unsigned int cpu;
	char name[16];
	pid_t tid;
	unsigned int reads, own, wrong_cpu;
	volatile bool *stop;
	char why[160];
};

/* Every read of the own CPU's slot by a running thread must show it. */
static void check_own_slot(struct pinned *p)
{
	struct pebs_map_slot s;
	int c = sched_getcpu();

	if (c < 0 || (unsigned int)c != p->cpu) {
		p->wrong_cpu++;
		return;
	}
	s = slot_get(p->m, c);
	p->reads++;
	if (s.pid == p->tid && s.tgid == getpid() &&
	    !strncmp(s.comm, p->name, sizeof(s.comm)))
		p->own++;
	else if (!p->why[0])
		snprintf(p->why, sizeof(p->why),
			 "%s (tid %d) on cpu %u read tgid %d pid %d comm %.16s",
			 p->name, p->tid, p->cpu, s.tgid, s.pid, s.comm);
}

static void *pinned_main(void *arg)
{
	struct pinned *p = arg;
	unsigned int i;

	p->tid = gettid();
	prctl(PR_SET_NAME, p->name);
	pin_to(p->cpu);
	sleep_us(1000);	/* be switched in again, under the new name */
	if (!p->stop) {
		for (i = 0; i < 2000; i++)
			check_own_slot(p);
		return NULL;
	}
	while (!*p->stop)
		check_own_slot(p);	/* a spinner sharing its CPU */
	return NULL;
}

static void check_unseen(const struct map *m, const bool *online,
			 const char *when)
{
	unsigned int c;

	for (c = 0; c < m->nr; c++) {
		struct pebs_map_slot s = slot_get(m, c);

		if (s.cpu != c)
			fail("%s: slot %u says cpu %u", when, c, s.cpu);
		if (online[c])
			continue;
		if (s.tgid != -1 || s.pid != -1 || s.switches || s.hist_head ||
		    s.last_switch_ns || s.seq)
			fail("%s: offline cpu %u: tgid %d pid %d switches %llu",
			     when, c, s.tgid, s.pid,
			     (unsigned long long)s.switches);
	}
}

static int cmd_correct(void)
{
	static bool online[MAX_CPUS], possible[MAX_CPUS];
	static struct pinned pin[MAX_CPUS];
	struct pinned spin[2];
	volatile bool stop = false;
	unsigned int c, nr_online = 0, nr_offline, own_ok = 0, x, obs;
	unsigned long seen[2] = { 0, 0 }, others = 0, transitions = 0;
	uint64_t last_sw[MAX_CPUS] = { 0 }, t_end, idle = 0, entries = 0;
	int last = -1, maxp, i;
	struct map m;

	map_open(&m);
	maxp = read_cpulist("/sys/devices/system/cpu/possible", possible,
			    MAX_CPUS);
	read_cpulist("/sys/devices/system/cpu/online", online, MAX_CPUS);
	if (m.nr != (unsigned int)maxp + 1)
		fail("nr_slots %u, but possible CPUs are 0-%d", m.nr, maxp);
	for (c = 0; c < m.nr; c++)
		nr_online += online[c];
	nr_offline = m.nr - nr_online;
	check_unseen(&m, online, "at start");

	/* 1. a thread pinned to each CPU sees itself in its CPU's slot */
	for (c = 0; c < m.nr; c++) {
		if (!online[c])
			continue;
		pin[c] = (struct pinned){ .m = &m, .cpu = c };
		snprintf(pin[c].name, sizeof(pin[c].name), "pin-%u", c);
		if (pthread_create(&pin[c].thread, NULL, pinned_main, &pin[c]))
			fail("pthread_create");
	}
	for (c = 0; c < m.nr; c++) {
		if (!online[c])
			continue;
		pthread_join(pin[c].thread, NULL);
		if (pin[c].why[0])
			fail("%s", pin[c].why);
		if (pin[c].wrong_cpu || pin[c].own != 2000)
			fail("pin-%u: %u/2000 own reads, %u off its cpu", c,
			     pin[c].own, pin[c].wrong_cpu);
		own_ok++;
	}

	/* 2. two spinners pinned to one CPU alternate in its slot */
	x = 0;
	obs = 0;
	for (c = 1; c < m.nr; c++) {
		if (online[c]) {
			obs = c;
			break;
		}
	}
	for (i = 0; i < 2; i++) {
		spin[i] = (struct pinned){ .m = &m, .cpu = x, .stop = &stop };
		snprintf(spin[i].name, sizeof(spin[i].name), "spin-%c", 'a' + i);
		if (pthread_create(&spin[i].thread, NULL, pinned_main, &spin[i]))
			fail("pthread_create");
	}
	sleep_us(20000);	/* let both spinners get going */
	pin_to(obs);		/* the observer, on another CPU if any */
	t_end = now_ns() + 400000000ull;
	while (now_ns() < t_end) {
		for (c = 0; c < m.nr; c++) {
			struct pebs_map_slot s = slot_get(&m, c);

			if (!online[c]) {
				if (s.tgid != -1 || s.pid != -1 || s.switches)
					fail("offline cpu %u: tgid %d pid %d",
					     c, s.tgid, s.pid);
				continue;
			}
			/* 3. counters only grow, history head == switches */
			if (s.switches < last_sw[c] || s.hist_head != s.switches)
				fail("cpu %u: switches %llu after %llu, hist_head %llu",
				     c, (unsigned long long)s.switches,
				     (unsigned long long)last_sw[c],
				     (unsigned long long)s.hist_head);
			last_sw[c] = s.switches;
			if (c != x || obs == x)
				continue;
			for (i = 0; i < 2; i++) {
				if (s.pid == spin[i].tid)
					break;
			}
			if (i == 2) {
				others++;
				continue;
			}
			seen[i]++;
			if (last >= 0 && last != i)
				transitions++;
			last = i;
		}
	}
	stop = true;
	for (i = 0; i < 2; i++) {
		pthread_join(spin[i].thread, NULL);
		if (spin[i].why[0])
			fail("%s", spin[i].why);
		if (!spin[i].reads)
			fail("%s never ran on cpu %u", spin[i].name, x);
	}
	if (obs != x && (!seen[0] || !seen[1] || !transitions))
		fail("cpu %u slot: spin-a seen %lu, spin-b %lu, %lu transitions",
		     x, seen[0], seen[1], transitions);

	/* 4. idle reads 0/0; our own threads carry our tgid */
	for (c = 0; c < m.nr; c++) {
		static struct pebs_map_switch e[1 << 16];
		uint64_t cur = 0, lost = 0;
		unsigned int k, got;

		if (!online[c])
			continue;
		got = hist_copy(&m, c, &cur, e, 1 << 16, &lost);
		for (k = 0; k < got; k++) {
			entries++;
			if (e[k].pid == 0 && e[k].tgid != 0)
				fail("cpu %u: pid 0 with tgid %d", c,
				     e[k].tgid);
			idle += e[k].pid == 0;
			if ((e[k].pid == spin[0].tid ||
			     e[k].pid == spin[1].tid) &&
			    e[k].tgid != getpid())
				fail("cpu %u: spinner tid %d with tgid %d",
				     c, e[k].pid, e[k].tgid);
		}
	}
	if (!idle)
		fail("no switch to the idle task (pid 0) in %llu history entries",
		     (unsigned long long)entries);

	/* 5. CPUs that never ran still read -1 */
	check_unseen(&m, online, "at end");
	printf("ok possible=%u online=%u table=%lluB own=%u/%u spin-a=%lu spin-b=%lu transitions=%lu idle=%llu/%llu unseen=%u\n",
	       m.nr, nr_online, (unsigned long long)m.h->table_size, own_ok,
	       nr_online, seen[0], seen[1], transitions,
	       (unsigned long long)idle, (unsigned long long)entries,
	       nr_offline);
	map_close(&m);
	return 0;
}

/* ---- history: against perf's sched:sched_switch ------------------------ */

struct ev {
	uint64_t time;
	int32_t pid;
};

struct load {
	pthread_t thread;
	volatile bool *stop;
	unsigned int kind, seed;
	int rfd, wfd;
};

static void busy_us(unsigned int us)
{
	uint64_t end = now_ns() + us * 1000ull;

	while (now_ns() < end)
		;
}

static void *load_main(void *arg)
{
	struct load *l = arg;
	char b = 0;

	while (!*l->stop) {
		switch (l->kind) {
		case 0:	/* compute, sometimes sleep */
			busy_us(100 + rand_r(&l->seed) % 2000);
			if (rand_r(&l->seed) % 3 == 0)
				sleep_us(50 + rand_r(&l->seed) % 500);
			break;
		case 1:	/* short sleeps */
			sleep_us(100 + rand_r(&l->seed) % 300);
			break;
		default: /* pipe ping-pong */
			if (write(l->wfd, &b, 1) != 1 || read(l->rfd, &b, 1) != 1)
				return NULL;
			break;
		}
	}
	return NULL;
}

static long perf_open(struct perf_event_attr *attr, int cpu)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* offset of "field:pid_t next_pid;" in the raw sample, from the format */
static int next_pid_offset(const char *dir)
{
	char path[256], line[512];
	int off = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/format", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " next_pid;");
		int size;

		if (p && sscanf(strstr(p, "offset:"), "offset:%d;\tsize:%d;",
				&off, &size) == 2 && size == 4)
			break;
		off = -1;
	}
	fclose(f);
	return off;
}

/* Copy the samples of one perf ring: (time, next_pid) in ring order. */
static size_t perf_drain(void *base, size_t data_size, int off, int cpu,
			 struct ev *out, size_t max, uint64_t *lost)
{
	struct perf_event_mmap_page *pg = base;
	unsigned char *data = (unsigned char *)base + page_size;
	uint64_t head = pebs_load_acquire(&pg->data_head), tail = 0;
	unsigned char rec[4096];
	size_t n = 0;

	while (tail < head) {
		struct perf_event_header hdr;
		size_t i;

		for (i = 0; i < sizeof(hdr); i++)
			((unsigned char *)&hdr)[i] = data[(tail + i) % data_size];
		if (hdr.size < sizeof(hdr) || hdr.size > sizeof(rec))
			fail("cpu %d: bad perf record size %u", cpu, hdr.size);
		for (i = 0; i < hdr.size; i++)
			rec[i] = data[(tail + i) % data_size];
		tail += hdr.size;
		if (hdr.type == PERF_RECORD_LOST) {
			*lost += ((uint64_t *)(rec + sizeof(hdr)))[1];
		} else if (hdr.type == PERF_RECORD_SAMPLE) {
			/* TIME, CPU (+res), RAW (u32 size, data) */
			const unsigned char *p = rec + sizeof(hdr);
			uint64_t time;
			uint32_t scpu, rsize;
			int32_t pid;

			memcpy(&time, p, 8);
			memcpy(&scpu, p + 8, 4);
			memcpy(&rsize, p + 16, 4);
			if ((int)scpu != cpu || (uint32_t)off + 4 > rsize)
				fail("cpu %d: sample of cpu %u, raw %u bytes",
				     cpu, scpu, rsize);
			memcpy(&pid, p + 20 + off, 4);
			if (n == max)
				fail("cpu %d: more than %zu samples", cpu, max);
			out[n].time = time;
			out[n].pid = pid;
			n++;
		}
	}
	pebs_store_release(&pg->data_tail, tail);
	return n;
}

struct agree {
	uint64_t perf, module, matched, pid_differs, max_dt, sum_dt;
};


/*
 * Both lists record the same tracepoint calls on one CPU, in call order.
 * The module's probe was attached before perf's, so call k is stamped by
 * the module (m_k) and then by perf (p_k) before call k + 1 starts:
 * m_k <= p_k <= m_(k+1), however long a qemu vCPU stalls between the two
 * probes. local_clock() may repeat a value for several calls (it clamps
 * when the guest's TSC lags), so times alone cannot pair entries: walk
 * both lists in order, pair p_i with m_j when the tids agree and the times
 * fit, and when they do not, resynchronise on the nearest (di, dj) from
 * which three entries pair up again (di perf-only, dj module-only
 * entries). Module entries outside the perf window are not counted.
 */
static bool fits(const struct ev *p, size_t np, const struct ev *m,
		 size_t nm, size_t i, size_t j)
{
	return i < np && j < nm && p[i].pid == m[j].pid &&
	       m[j].time <= p[i].time &&
	       (j + 1 == nm || p[i].time <= m[j + 1].time) &&
	       (i == 0 || p[i - 1].time <= m[j].time);
}

static bool resyncs(const struct ev *p, size_t np, const struct ev *m,
		    size_t nm, size_t i, size_t j)
{
	unsigned int k;

	for (k = 0; k < 3; k++) {
		if (i + k == np || j + k == nm)
			return k > 0;
		if (!fits(p, np, m, nm, i + k, j + k))
			return false;
	}
	return true;
}

static void match_cpu(const struct ev *p, size_t np, const struct ev *m,
		      size_t nm, struct agree *a)
{
	size_t i = 0, j = 0, d, di;

	if (!np)
		return;
	while (j + 1 < nm && m[j + 1].time < p[0].time)
		j++;
	while (nm > j && m[nm - 1].time > p[np - 1].time)
		nm--;
	a->perf += np;
	a->module += nm - j;
	while (i < np && j < nm) {
		if (fits(p, np, m, nm, i, j)) {
			uint64_t dt = p[i].time - m[j].time;

			a->matched++;
			a->sum_dt += dt;
			if (dt > a->max_dt)
				a->max_dt = dt;
			i++;
			j++;
			continue;
		}
		for (d = 1; d <= 16; d++) {
			for (di = 0; di <= d; di++) {
				if (resyncs(p, np, m, nm, i + di, j + d - di))
					break;
			}
			if (di <= d)
				break;
		}
		if (d <= 16) {
			i += di;	/* seen by perf only */
			j += d - di;	/* seen by the module only */
		} else {
			a->pid_differs++;
			i++;
			j++;
		}
	}
}

static int cmd_history(unsigned int window_ms)
{
	static bool online[MAX_CPUS];
	static const char *const dirs[] = {
		"/sys/kernel/tracing/events/sched/sched_switch",
		"/sys/kernel/debug/tracing/events/sched/sched_switch",
	};
	const size_t ring_pages = 2048;	/* 8 MiB per CPU */
	const size_t max_ev = 1 << 20;
	size_t data_size = ring_pages * page_size;
	static void *ring[MAX_CPUS];
	static int fd[MAX_CPUS];
	struct perf_event_attr attr;
	struct load load[16];
	unsigned int nload, c, i, nr_online = 0;
	int id = -1, off = -1, pfd[2][2];
	volatile bool stop = false;
	struct ev *pe, *me;
	struct pebs_map_switch *raw;
	struct agree a = { 0 };
	uint64_t plost = 0, mlost = 0;
	double agree;
	char path[300];
	struct map m;

	for (i = 0; i < 2 && id < 0; i++) {
		snprintf(path, sizeof(path), "%s/id", dirs[i]);
		id = read_int_file(path);
		if (id >= 0)
			off = next_pid_offset(dirs[i]);
	}
	if (id < 0 || off < 0)
		fail("no sched_switch id/format in tracefs (id %d, next_pid offset %d)",
		     id, off);

	map_open(&m);
	read_cpulist("/sys/devices/system/cpu/online", online, MAX_CPUS);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr.disabled = 1;
	for (c = 0; c < m.nr; c++) {
		if (!online[c])
			continue;
		nr_online++;
		fd[c] = perf_open(&attr, c);
		if (fd[c] < 0)
			fail("perf_event_open(sched_switch, cpu %u): %s", c,
			     strerror(errno));
		ring[c] = mmap(NULL, (ring_pages + 1) * page_size,
			       PROT_READ | PROT_WRITE, MAP_SHARED, fd[c], 0);
		if (ring[c] == MAP_FAILED)
			fail("mmap perf ring: %s", strerror(errno));
	}

	/* more runnable threads than CPUs, sleepers, a ping-pong pair */
	if (pipe(pfd[0]) || pipe(pfd[1]))
		fail("pipe: %s", strerror(errno));
	nload = 2 * nr_online + 4;
	if (nload > 16)
		nload = 16;
	for (i = 0; i < nload; i++) {
		load[i] = (struct load){ .stop = &stop, .seed = i + 1 };
		load[i].kind = i < 2 ? 2 : i < 4 ? 1 : 0;
		load[i].rfd = pfd[i & 1][0];
		load[i].wfd = pfd[!(i & 1)][1];
		if (pthread_create(&load[i].thread, NULL, load_main, &load[i]))
			fail("pthread_create");
	}
	sleep_us(50000);
	for (c = 0; c < m.nr; c++)
		if (online[c])
			ioctl(fd[c], PERF_EVENT_IOC_ENABLE, 0);
	sleep_us(window_ms * 1000);
	for (c = 0; c < m.nr; c++)
		if (online[c])
			ioctl(fd[c], PERF_EVENT_IOC_DISABLE, 0);
	stop = true;
	/* unblock the ping-pong pair */
	close(pfd[0][1]);
	close(pfd[1][1]);
	for (i = 0; i < nload; i++)
		pthread_join(load[i].thread, NULL);

	pe = malloc(max_ev * sizeof(*pe));
	me = malloc(max_ev * sizeof(*me));
	raw = malloc(max_ev * sizeof(*raw));
	if (!pe || !me || !raw)
		fail("out of memory");
	for (c = 0; c < m.nr; c++) {
		uint64_t cur = 0, head = m.slots[c].hist_head;
		size_t np, nm;

		if (!online[c])
			continue;
		np = perf_drain(ring[c], data_size, off, c, pe, max_ev, &plost);
		/* the whole live history of this CPU */
		cur = head > m.len - 1 ? head - (m.len - 1) : 0;
		nm = hist_copy(&m, c, &cur, raw, max_ev, &mlost);
		for (i = 0; i < nm; i++) {
			me[i].time = raw[i].time;
			me[i].pid = raw[i].pid;
		}
		if (np && (!nm || me[0].time > pe[0].time))
			fail("cpu %u: history (%u entries) does not reach back to the window start: load with a larger history=",
			     c, m.len);
		match_cpu(pe, np, me, nm, &a);
	}
	if (plost)
		fail("perf lost %llu samples (ring too small)",
		     (unsigned long long)plost);
	if (a.perf < 500)
		fail("only %llu switches in the window: load too light",
		     (unsigned long long)a.perf);
	agree = 100.0 * a.matched /
		(a.perf > a.module ? a.perf : a.module);
	printf("%s agree=%.3f%% perf=%llu module=%llu matched=%llu pid_differs=%llu dt_avg=%lluns dt_max=%lluns window=%ums cpus=%u\n",
	       agree >= 99.9 ? "ok" : "FAIL", agree,
	       (unsigned long long)a.perf, (unsigned long long)a.module,
	       (unsigned long long)a.matched,
	       (unsigned long long)a.pid_differs,
	       (unsigned long long)(a.matched ? a.sum_dt / a.matched : 0),
	       (unsigned long long)a.max_dt, window_ms, nr_online);
	map_close(&m);
	return agree >= 99.9 ? 0 : 1;
}

/* ---- mmap: what must be refused ---------------------------------------- */

static unsigned int nchecks;

static void expect_mmap_err(int fd, size_t len, int prot, int flags,
			    off_t off, int err, const char *what)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p != MAP_FAILED)
		fail("%s: mmap succeeded", what);
	if (errno != err)
		fail("%s: errno %s, want %s", what, strerror(errno),
		     strerror(err));
	nchecks++;
}

static int cmd_mmap(void)
{
	struct map m;
	const struct pebs_map_header *h;
	size_t ts, hs;
	off_t ho;
	int rw, status;
	void *p;
	pid_t pid;

	map_open(&m);
	h = m.h;
	ts = h->table_size;
	hs = h->hist_size;
	ho = h->hist_offset;
	if (ts < 2 * (size_t)page_size)
		fail("table of %zu bytes: boot with more possible CPUs to test a table of several pages",
		     ts);

	/* writable or executable, shared or private */
	expect_mmap_err(m.fd, ts, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0,
			EPERM, "PROT_WRITE MAP_PRIVATE");
	expect_mmap_err(m.fd, ts, PROT_READ | PROT_EXEC, MAP_SHARED, 0, EPERM,
			"PROT_EXEC");
	expect_mmap_err(m.fd, hs, PROT_READ | PROT_WRITE, MAP_PRIVATE, ho,
			EPERM, "history PROT_WRITE MAP_PRIVATE");
	/* an O_RDONLY file cannot be mapped shared-writable at all */
	expect_mmap_err(m.fd, ts, PROT_READ | PROT_WRITE, MAP_SHARED, 0,
			EACCES, "PROT_WRITE MAP_SHARED on O_RDONLY");
	rw = open(PEBS_MAP_DEVICE, O_RDWR | O_CLOEXEC);
	if (rw < 0)
		fail("open O_RDWR (as root): %s", strerror(errno));
	expect_mmap_err(rw, ts, PROT_READ | PROT_WRITE, MAP_SHARED, 0, EPERM,
			"PROT_WRITE MAP_SHARED on O_RDWR");
	expect_mmap_err(rw, hs, PROT_WRITE, MAP_SHARED, ho, EPERM,
			"history PROT_WRITE MAP_SHARED on O_RDWR");
	close(rw);

	/* READ_IMPLIES_EXEC (old binaries): PROT_READ gets PROT_EXEC added,
	 * which must not make the table unmappable; it stays non-executable */
	{
		int pers = personality(0xffffffff);

		if (personality(pers | READ_IMPLIES_EXEC) < 0)
			fail("personality(READ_IMPLIES_EXEC): %s", strerror(errno));
		p = mmap(NULL, ts, PROT_READ, MAP_SHARED, m.fd, 0);
		personality(pers);
		if (p == MAP_FAILED)
			fail("PROT_READ under READ_IMPLIES_EXEC: %s", strerror(errno));
		if (!mprotect(p, ts, PROT_READ | PROT_EXEC))
			fail("mprotect(PROT_EXEC) succeeded under READ_IMPLIES_EXEC");
		munmap(p, ts);
		nchecks++;
	}

	/* sizes and offsets */
	expect_mmap_err(m.fd, ts + page_size, PROT_READ, MAP_SHARED, 0, EINVAL,
			"table + 1 page");
	expect_mmap_err(m.fd, hs + page_size, PROT_READ, MAP_SHARED, ho,
			EINVAL, "history + 1 page");
	expect_mmap_err(m.fd, page_size, PROT_READ, MAP_SHARED, page_size,
			EINVAL, "offset 1 page");
	expect_mmap_err(m.fd, page_size, PROT_READ, MAP_SHARED,
			ho + page_size, EINVAL, "history offset + 1 page");
	expect_mmap_err(m.fd, page_size, PROT_READ, MAP_SHARED, ho + hs,
			EINVAL, "offset past the history");
	expect_mmap_err(m.fd, page_size, PROT_READ, MAP_SHARED, ho - page_size,
			EINVAL, "offset just below the history");

	/* a read-only mapping stays read-only */
	if (!mprotect((void *)h, ts, PROT_READ | PROT_WRITE))
		fail("mprotect(table, PROT_WRITE) succeeded");
	if (errno != EACCES)
		fail("mprotect(table, PROT_WRITE): %s", strerror(errno));
	nchecks++;
	if (!mprotect((void *)h, ts, PROT_READ | PROT_EXEC))
		fail("mprotect(table, PROT_EXEC) succeeded");
	nchecks++;
	if (!mprotect((void *)m.hist, hs, PROT_READ | PROT_WRITE))
		fail("mprotect(history, PROT_WRITE) succeeded");
	nchecks++;
	p = mmap(NULL, ts, PROT_READ, MAP_PRIVATE, m.fd, 0);
	if (p == MAP_FAILED)
		fail("read-only MAP_PRIVATE: %s", strerror(errno));
	if (!mprotect(p, ts, PROT_READ | PROT_WRITE))
		fail("mprotect(private table, PROT_WRITE) succeeded");
	munmap(p, ts);
	nchecks++;

	/* a short mapping of the first page is fine */
	p = mmap(NULL, page_size, PROT_READ, MAP_SHARED, m.fd, 0);
	if (p == MAP_FAILED || ((const struct pebs_map_header *)p)->magic !=
			       PEBS_MAP_MAGIC)
		fail("one-page mapping of the table: %s", strerror(errno));
	munmap(p, page_size);
	nchecks++;

	/* no ioctls */
	if (ioctl(m.fd, _IO('P', 0x42)) != -1 || errno != ENOTTY)
		fail("unknown ioctl: %s, want ENOTTY", strerror(errno));
	if (ioctl(m.fd, PERF_EVENT_IOC_ENABLE, 0) != -1 || errno != ENOTTY)
		fail("PERF_EVENT_IOC_ENABLE: %s, want ENOTTY", strerror(errno));
	nchecks += 2;

	/* VM_DONTCOPY: a child does not inherit the mappings */
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid) {
		char line[512];
		FILE *f = fopen("/proc/self/maps", "r");
		int found = 0;

		while (f && fgets(line, sizeof(line), f))
			found |= strstr(line, "pebs_map") != NULL;
		_exit(f && !found ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fail("a forked child still has the mapping (VM_DONTCOPY)");
	nchecks++;

	/* the mappings still read right after all that */
	if (h->magic != PEBS_MAP_MAGIC || m.slots[0].cpu != 0 ||
	    m.slots[m.nr - 1].cpu != m.nr - 1)
		fail("table reads wrong after the refused calls");
	map_close(&m);
	printf("ok checks=%u table=%zuB history=%zuB\n", nchecks, ts, hs);
	return 0;
}

/* ---- pin: an open file or a mapping keeps the module loaded ----------- */

static int rmmod(void)
{
	return syscall(SYS_delete_module, "pebs_map", O_NONBLOCK) ? -errno : 0;
}

static int cmd_pin(void)
{
	const struct pebs_map_header *h;
	uint64_t size;
	struct map m;
	int ret;

	map_open(&m);
	ret = rmmod();
	if (ret != -EWOULDBLOCK)
		fail("rmmod while open and mapped: %s, want EAGAIN",
		     strerror(-ret));
	/* close the file: the table mapping alone must still pin it */
	munmap((void *)m.hist, m.h->hist_size);
	h = m.h;
	size = h->table_size;
	close(m.fd);
	ret = rmmod();
	if (ret != -EWOULDBLOCK)
		fail("rmmod while mapped (file closed): %s, want EAGAIN",
		     strerror(-ret));
	if (h->magic != PEBS_MAP_MAGIC)
		fail("table unreadable after close");
	munmap((void *)h, size);
	ret = rmmod();
	if (ret)
		fail("rmmod after munmap and close: %s", strerror(-ret));
	if (!access(PEBS_MAP_DEVICE, F_OK))
		fail("%s still exists after rmmod", PEBS_MAP_DEVICE);
	printf("ok busy-open=EAGAIN busy-mapped=EAGAIN unloaded\n");
	return 0;
}

/* ---- quick: right after a load ------------------------------------------ */

static int cmd_quick(unsigned int want_len)
{
	static bool online[MAX_CPUS];
	unsigned int c;
	struct map m;

	map_open(&m);
	if (want_len && m.len != want_len)
		fail("hist_len %u, loaded with history=%u", m.len, want_len);
	read_cpulist("/sys/devices/system/cpu/online", online, MAX_CPUS);
	for (c = 0; c < m.nr; c++) {
		struct pebs_map_slot s = slot_get(&m, c);

		if (s.cpu != c || (online[c] && (s.tgid < 0 || s.pid < 0)) ||
		    (!online[c] && (s.tgid != -1 || s.pid != -1)))
			fail("after load: slot %u cpu %u tgid %d pid %d (%s)",
			     c, s.cpu, s.tgid, s.pid,
			     online[c] ? "online" : "offline");
	}
	map_close(&m);
	printf("ok len=%u\n", m.len);
	return 0;
}

/* ---- readers: snapshots and history walks while threads churn --------- */

#define NCHURN 6
#define NREAD 3

static pid_t churn_tid[NCHURN];
static volatile bool churn_stop;

static void *churn_main(void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg, seed = i + 7;
	char name[16];

	snprintf(name, sizeof(name), "churn-%u", i);
	prctl(PR_SET_NAME, name);
	/*
	 * A slot shows a task only until its CPU switches away from it:
	 * after this sleep no slot holds our tid with the old comm.
	 */
	sleep_us(1000);
	__atomic_store_n(&churn_tid[i], gettid(), __ATOMIC_RELEASE);
	while (!churn_stop) {
		if (rand_r(&seed) % 4)
			sched_yield();
		else
			sleep_us(rand_r(&seed) % 200);
	}
	return NULL;
}

struct reader {
	pthread_t thread;
	const struct map *m;
	const bool *online;
	uint64_t *last_sw, *last_t, *cursor;	/* per CPU */
	uint64_t snaps, entries, lost, retries;
	char why[200];
};


static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint64_t *last_sw = r->last_sw, *last_t = r->last_t;
	uint64_t *cursor = r->cursor;
	struct pebs_map_switch e[512];
	unsigned int c, k, got;

	while (!churn_stop) {
		for (c = 0; c < r->m->nr; c++) {
			struct pebs_map_slot s;
			uint64_t lost = 0;

			if (slot_read(r->m, c, &s)) {
				r->retries++;
				continue;
			}
			r->snaps++;
			if (s.cpu != c || s.hist_head != s.switches ||
			    s.switches < last_sw[c] ||
			    !churn_pair_ok(churn_tid, NCHURN, s.tgid, s.pid, s.comm) ||
			    (!r->online[c] && s.tgid != -1)) {
				snprintf(r->why, sizeof(r->why),
					 "torn slot %u: cpu %u tgid %d pid %d comm %.16s switches %llu head %llu",
					 c, s.cpu, s.tgid, s.pid, s.comm,
					 (unsigned long long)s.switches,
					 (unsigned long long)s.hist_head);
				return NULL;
			}
			last_sw[c] = s.switches;
			got = hist_copy(r->m, c, &cursor[c], e, 512, &lost);
			if (lost)
				last_t[c] = 0;	/* a gap: times restart */
			r->lost += lost;
			for (k = 0; k < got; k++) {
				if (e[k].time < last_t[c] ||
				    !churn_pair_ok(churn_tid, NCHURN, e[k].tgid, e[k].pid, NULL)) {
					snprintf(r->why, sizeof(r->why),
						 "bad history entry on cpu %u: time %llu after %llu, tgid %d pid %d",
						 c, (unsigned long long)e[k].time,
						 (unsigned long long)last_t[c],
						 e[k].tgid, e[k].pid);
					return NULL;
				}
				last_t[c] = e[k].time;
			}
			r->entries += got;
		}
	}
	return NULL;
}

static int cmd_readers(unsigned int ms)
{
	static bool online[MAX_CPUS];
	pthread_t churn[NCHURN];
	struct reader rd[NREAD];
	uint64_t snaps = 0, entries = 0, lost = 0, retries = 0;
	unsigned int i;
	struct map m;

	map_open(&m);
	read_cpulist("/sys/devices/system/cpu/online", online, MAX_CPUS);
	for (i = 0; i < NCHURN; i++)
		if (pthread_create(&churn[i], NULL, churn_main,
				   (void *)(uintptr_t)i))
			fail("pthread_create");
	for (i = 0; i < NCHURN; i++)
		while (!__atomic_load_n(&churn_tid[i], __ATOMIC_ACQUIRE))
			sched_yield();
	for (i = 0; i < NREAD; i++) {
		rd[i] = (struct reader){ .m = &m, .online = online };
		rd[i].last_sw = calloc(m.nr, sizeof(uint64_t));
		rd[i].last_t = calloc(m.nr, sizeof(uint64_t));
		rd[i].cursor = calloc(m.nr, sizeof(uint64_t));
		if (!rd[i].last_sw || !rd[i].last_t || !rd[i].cursor)
			fail("out of memory");
		if (pthread_create(&rd[i].thread, NULL, reader_main, &rd[i]))
			fail("pthread_create");
	}
	sleep_us(ms * 1000);
	churn_stop = true;
	for (i = 0; i < NCHURN; i++)
		pthread_join(churn[i], NULL);
	for (i = 0; i < NREAD; i++) {
		pthread_join(rd[i].thread, NULL);
		if (rd[i].why[0])
			fail("reader %u: %s", i, rd[i].why);
		snaps += rd[i].snaps;
		entries += rd[i].entries;
		lost += rd[i].lost;
		retries += rd[i].retries;
		free(rd[i].last_sw);
		free(rd[i].last_t);
		free(rd[i].cursor);
	}
	if (!entries)
		fail("readers saw no history entries");
	if (retries)
		fail("%llu snapshots found no consistent copy",
		     (unsigned long long)retries);
	map_close(&m);
	printf("ok snapshots=%llu entries=%llu overrun=%llu hist_len=%u\n",
	       (unsigned long long)snaps, (unsigned long long)entries,
	       (unsigned long long)lost, m.len);
	return 0;
}

/* ---- dump: the table as a reader sees it ------------------------------ */

static int cmd_dump(void)
{
	unsigned int c, first_unseen = 0, unseen = 0;
	const struct pebs_map_header *h;
	struct map m;

	map_open(&m);
	h = m.h;
	printf("pebs_map abi %u: %u slots of %u B at %llu, table %llu B; history %u x %u B per CPU at offset %llu (%llu B); clock %u, hook %u, pid_ns %u\n",
	       h->abi_version, h->nr_slots, h->slot_size,
	       (unsigned long long)h->slots_offset,
	       (unsigned long long)h->table_size, h->hist_len,
	       h->hist_entry_size, (unsigned long long)h->hist_offset,
	       (unsigned long long)h->hist_size, h->clock, h->hook, h->pid_ns);
	printf("%4s %8s %6s %6s %-16s %9s %14s\n", "cpu", "seq", "tgid",
	       "pid", "comm", "switches", "last_switch_ns");
	for (c = 0; c <= m.nr; c++) {
		struct pebs_map_slot s;

		if (c < m.nr) {
			s = slot_get(&m, c);
			if (s.pid == -1 && !s.switches) {
				if (!unseen++)
					first_unseen = c;
				continue;
			}
		}
		if (unseen)
			printf("%4u-%u: never seen (tgid -1, pid -1)\n",
			       first_unseen, first_unseen + unseen - 1);
		unseen = 0;
		if (c == m.nr)
			break;
		printf("%4u %8u %6d %6d %-16.16s %9llu %14llu\n", c, s.seq,
		       s.tgid, s.pid, s.comm, (unsigned long long)s.switches,
		       (unsigned long long)s.last_switch_ns);
	}
	map_close(&m);
	return 0;
}

/* open /dev/pebs_map in a child as @uid (or in a new pid namespace when
 * @uid < 0): 0 or the errno, through the exit status */
static int open_as(int uid)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd;

		if (uid >= 0) {
			if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
				_exit(200);
		} else {
			pid_t inner;

			if (unshare(CLONE_NEWPID))
				_exit(201);
			inner = fork();	/* the first child of the new namespace */
			if (inner < 0)
				_exit(202);
			if (inner) {
				if (waitpid(inner, &status, 0) < 0)
					_exit(203);
				_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 204);
			}
		}
		fd = open(PEBS_MAP_DEVICE, O_RDONLY | O_CLOEXEC);
		_exit(fd < 0 ? errno : 0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		fail("the child that opens the device died");
	if (WEXITSTATUS(status) >= 200)
		fail("the child could not change its credentials or namespace (%d)",
		     WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

static const char *err_name(int e)
{
	return e == 0 ? "ok" : e == EPERM ? "EPERM" : e == EACCES ? "EACCES" :
	       strerror(e);
}

/*
 * access WANT: root opens the device; user 65534 gets WANT ("ok",
 * "EPERM" or "EACCES": the file mode, CAP_PERFMON and unprivileged= decide);
 * a reader in a new pid namespace is refused with EPERM.
 */
static int cmd_access(const char *want)
{
	int fd = open(PEBS_MAP_DEVICE, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		fail("open as root: %s", strerror(errno));
	close(fd);
	e = open_as(65534);
	if (strcmp(err_name(e), want))
		fail("open as user 65534: %s, want %s", err_name(e), want);
	e = open_as(-1);
	if (e != EPERM)
		fail("open from a new pid namespace: %s, want EPERM", err_name(e));
	printf("ok root=ok user=%s pidns=EPERM\n", want);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	unsigned int arg = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "correct"))
		return cmd_correct();
	if (!strcmp(cmd, "history"))
		return cmd_history(arg ? arg : 400);
	if (!strcmp(cmd, "mmap"))
		return cmd_mmap();
	if (!strcmp(cmd, "pin"))
		return cmd_pin();
	if (!strcmp(cmd, "quick"))
		return cmd_quick(arg);
	if (!strcmp(cmd, "readers"))
		return cmd_readers(arg ? arg : 1000);
	if (!strcmp(cmd, "dump"))
		return cmd_dump();
	if (!strcmp(cmd, "access") && argc > 2)
		return cmd_access(argv[2]);
	fprintf(stderr,
		"usage: module-test correct|history [ms]|mmap|pin|quick [hist_len]|readers [ms]|dump|access ok|EPERM|EACCES\n");
	return 2;
}
