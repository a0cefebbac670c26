// SPDX-License-Identifier: MIT
/*
 * observer.c - a Shim-style observer: one thread pinned to a CPU polls
 * the /dev/pebs_map slots and the counters of other CPUs, bracketing
 * each observation with rdtscp (the filter and the summaries of its rows
 * are in obs-stats.c).
 */
#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pebsshim/observe.h"
#include "core/internal.h"
#include "core/opts.h"
#include "observe/rdpmc.h"

struct obs_counter {
	int fd;
	struct perf_event_mmap_page *pc;	/* NULL: could not map */
	bool use_rdpmc;		/* rdpmc works and beats read() here */
	char why[128];		/* how it is read, and why */
};

/* reads of each kind timed when a counter of the observer's CPU opens */
#define CALIBRATE_READS	32

struct obs_cpu {
	unsigned int cpu;
	bool own;		/* the observer's own CPU: rdpmc may serve */
	struct obs_counter ctr[PEBS_OBS_MAX_EVENTS];
};

struct pebs_observer {
	int on_cpu;
	bool pinned;
	const struct pebs_map *map;
	unsigned int nr_cpus;
	unsigned int nr_events;
	struct obs_cpu *cpus;
	struct perf_event_attr attr[PEBS_OBS_MAX_EVENTS];
	struct pebs_event ev[PEBS_OBS_MAX_EVENTS];
	long page_size;
};

bool pebs_cpu_has_rdtscp(void)
{
	const char *hide = getenv("PEBS_TEST_NO_RDTSCP");
	unsigned int a, b, c, d;

	if (hide && *hide && strcmp(hide, "0"))
		return false;
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d))
		return false;
	return d & (1u << 27);
}

int pebs_observer__new(int on_cpu, const struct pebs_observer_opts *opts,
		       struct pebs_observer **obsp)
{
	struct pebs_observer_opts o;
	struct pebs_observer *obs;
	int err;

	if (on_cpu < 0 || on_cpu >= CPU_SETSIZE)
		return core_err(-EINVAL, "observer CPU %d out of range", on_cpu);
	err = opts_copy(&o, sizeof(o), opts, "pebs_observer_opts");
	if (err)
		return err;
	if (!pebs_cpu_has_rdtscp())
		return core_err(-EOPNOTSUPP,
				"this CPU has no rdtscp: the observer needs it (under qemu use -cpu max)");
	if (!o.no_pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(on_cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return core_err(-errno, "cannot pin the observer to CPU %d: %s",
					on_cpu, strerror(errno));
	}
	obs = calloc(1, sizeof(*obs));
	if (!obs)
		return core_err(-ENOMEM, "out of memory");
	obs->on_cpu = on_cpu;
	obs->pinned = !o.no_pin;
	obs->map = o.map;
	obs->page_size = sysconf(_SC_PAGESIZE);
	*obsp = obs;
	core_err_clear();
	return 0;
}

static void counter_close(struct pebs_observer *obs, struct obs_counter *c)
{
	if (c->pc)
		munmap(c->pc, obs->page_size);
	if (c->fd >= 0)
		close(c->fd);
	c->pc = NULL;
	c->fd = -1;
}

void pebs_observer__delete(struct pebs_observer *obs)
{
	if (!obs)
		return;
	for (unsigned int i = 0; i < obs->nr_cpus; i++)
		for (unsigned int e = 0; e < obs->nr_events; e++)
			counter_close(obs, &obs->cpus[i].ctr[e]);
	free(obs->cpus);
	free(obs);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A counter of the observer's own CPU: decide between rdpmc and read()
 * by timing both. Where rdpmc is allowed it is normally the fast path,
 * but a hypervisor may trap and emulate it (measured at ~26000 cycles
 * a read on the project's VM, against ~11000 for read()).
 */
static void counter_calibrate(struct obs_counter *c)
{
	const struct perf_event_mmap_page *pc = c->pc;
	uint64_t cost_rdpmc[CALIBRATE_READS], cost_read[CALIBRATE_READS];
	uint64_t v, t0, t1, t2;
	int err = 0;

	if (!(PEBS_READ_ONCE(pc->capabilities) & PEBS_CAP_USER_RDPMC)) {
		snprintf(c->why, sizeof(c->why),
			 "cap_user_rdpmc is 0 (no user rdpmc for this event)");
		return;
	}
	if (!PEBS_READ_ONCE(pc->index)) {
		snprintf(c->why, sizeof(c->why),
			 "index is 0 (the event is not on a hardware counter)");
		return;
	}
	/* interleaved, and the medians: robust to a preemption or two */
	for (int i = 0; i < CALIBRATE_READS && !err; i++) {
		t0 = pebs_rdtsc();
		err = pebs_rdpmc_page(pc, pebs_rdpmc_insn, &v);
		t1 = pebs_rdtsc();
		if (read(c->fd, &v, sizeof(v)) != sizeof(v))
			err = -EIO;
		t2 = pebs_rdtsc();
		cost_rdpmc[i] = t1 - t0;
		cost_read[i] = t2 - t1;
	}
	if (err) {
		snprintf(c->why, sizeof(c->why),
			 "rdpmc or read() failed when timed (%s)", strerror(-err));
		return;
	}
	qsort(cost_rdpmc, CALIBRATE_READS, sizeof(uint64_t), u64_cmp);
	qsort(cost_read, CALIBRATE_READS, sizeof(uint64_t), u64_cmp);
	t0 = cost_rdpmc[CALIBRATE_READS / 2];
	t1 = cost_read[CALIBRATE_READS / 2];
	c->use_rdpmc = t0 <= t1;
	snprintf(c->why, sizeof(c->why),
		 "rdpmc %llu cycles a read, read() %llu%s",
		 (unsigned long long)t0, (unsigned long long)t1,
		 c->use_rdpmc ? "" : ": rdpmc is trapped (a hypervisor?), read() is faster");
}

static int counter_open(struct pebs_observer *obs, unsigned int ev_idx,
			struct obs_cpu *oc)
{
	struct obs_counter *c = &oc->ctr[ev_idx];
	void *pc;
	int fd;

	fd = syscall(SYS_perf_event_open, &obs->attr[ev_idx], -1, oc->cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return pebs_perf_open_error(&obs->ev[ev_idx], errno);
	c->fd = fd;
	c->use_rdpmc = false;
	if (!oc->own) {
		snprintf(c->why, sizeof(c->why), "%s", obs->pinned ?
			 "another CPU's counter (rdpmc reads only the observer's own CPU)" :
			 "the observer is not pinned (rdpmc would read any CPU)");
		return 0;
	}
	/* the user page alone (no data pages) is enough for rdpmc; when
	 * the kernel refuses it, read() still works */
	pc = mmap(NULL, obs->page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		snprintf(c->why, sizeof(c->why),
			 "the kernel refused to map the user page (%s)",
			 strerror(errno));
		return 0;
	}
	c->pc = pc;
	counter_calibrate(c);
	return 0;
}

int pebs_observer__add_cpu(struct pebs_observer *obs, unsigned int cpu)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct obs_cpu *cpus, *oc;
	int err;

	if (obs->map && cpu >= pebs_map__nr_cpus(obs->map))
		return core_err(-EINVAL, "CPU %u is beyond the table's %u slots",
				cpu, pebs_map__nr_cpus(obs->map));
	if (ncpu > 0 && cpu >= (unsigned long)ncpu)
		return core_err(-EINVAL, "CPU %u does not exist (%ld CPUs)",
				cpu, ncpu);
	for (unsigned int i = 0; i < obs->nr_cpus; i++)
		if (obs->cpus[i].cpu == cpu)
			return core_err(-EEXIST, "CPU %u is already observed", cpu);
	cpus = realloc(obs->cpus, (obs->nr_cpus + 1) * sizeof(*cpus));
	if (!cpus)
		return core_err(-ENOMEM, "out of memory");
	obs->cpus = cpus;
	oc = &cpus[obs->nr_cpus];
	memset(oc, 0, sizeof(*oc));
	oc->cpu = cpu;
	/* rdpmc reads the CPU it runs on: only a pinned observer knows */
	oc->own = obs->pinned && (int)cpu == obs->on_cpu;
	for (unsigned int e = 0; e < PEBS_OBS_MAX_EVENTS; e++)
		oc->ctr[e].fd = -1;
	for (unsigned int e = 0; e < obs->nr_events; e++) {
		err = counter_open(obs, e, oc);
		if (err) {
			while (e--)
				counter_close(obs, &oc->ctr[e]);
			return err;
		}
	}
	core_err_clear();
	return obs->nr_cpus++;
}

int pebs_observer__add_event(struct pebs_observer *obs,
			     const struct pebs_event *ev)
{
	unsigned int e = obs->nr_events;
	struct perf_event_attr *attr;
	int err;

	if (e >= PEBS_OBS_MAX_EVENTS)
		return core_err(-E2BIG, "at most %d counters per observed CPU",
				PEBS_OBS_MAX_EVENTS);
	err = opts_attr_area_check(ev->attr_area, sizeof(ev->attr_area),
				 ev->name);
	if (err)
		return err;
	obs->ev[e] = *ev;
	attr = &obs->attr[e];
	*attr = ev->attr;
	/* a plain counting event: no sampling, no ring */
	attr->size = sizeof(*attr);
	attr->sample_period = 0;
	attr->freq = 0;
	attr->sample_type = 0;
	attr->precise_ip = 0;
	attr->read_format = 0;
	attr->disabled = 0;
	attr->enable_on_exec = 0;
	attr->inherit = 0;
	attr->watermark = 0;
	attr->wakeup_events = 0;
	for (unsigned int i = 0; i < obs->nr_cpus; i++) {
		err = counter_open(obs, e, &obs->cpus[i]);
		if (err) {
			while (i--)
				counter_close(obs, &obs->cpus[i].ctr[e]);
			return err;
		}
	}
	core_err_clear();
	return obs->nr_events++;
}

unsigned int pebs_observer__nr_cpus(const struct pebs_observer *obs)
{
	return obs->nr_cpus;
}

unsigned int pebs_observer__nr_events(const struct pebs_observer *obs)
{
	return obs->nr_events;
}

int pebs_observer__cpu(const struct pebs_observer *obs, unsigned int idx)
{
	if (idx >= obs->nr_cpus)
		return -EINVAL;
	return obs->cpus[idx].cpu;
}

int pebs_observer__on_cpu(const struct pebs_observer *obs)
{
	return obs->on_cpu;
}

size_t pebs_observer__row_words(const struct pebs_observer *obs)
{
	return 2 + (size_t)obs->nr_cpus * (PEBS_OBS_CPU_HEAD + obs->nr_events);
}

int pebs_observer__counter_path(const struct pebs_observer *obs,
				unsigned int cpu_idx, unsigned int ev_idx,
				const char **why)
{
	const struct obs_counter *c;

	if (cpu_idx >= obs->nr_cpus || ev_idx >= obs->nr_events)
		return -EINVAL;
	c = &obs->cpus[cpu_idx].ctr[ev_idx];
	if (why)
		*why = c->why;
	return c->use_rdpmc ? PEBS_COUNTER_RDPMC : PEBS_COUNTER_READ;
}

static inline int counter_read(const struct obs_counter *c, uint64_t *v)
{
	ssize_t n;

	/* the protocol says per read whether rdpmc can serve (index 0
	 * while the event is off its counter: read() then) */
	if (c->use_rdpmc && !pebs_rdpmc_page(c->pc, pebs_rdpmc_insn, v))
		return 0;
	n = read(c->fd, v, sizeof(*v));
	if (n < 0)
		return -errno;
	return n == sizeof(*v) ? 0 : -EIO;
}

int pebs_observer__read(struct pebs_observer *obs, uint64_t *row,
			size_t words)
{
	const unsigned int nr_events = obs->nr_events;
	uint64_t *w = row + 2;
	int err;

	if (words < pebs_observer__row_words(obs))
		return -ENOSPC;
	row[0] = pebs_rdtscp();
	for (unsigned int i = 0; i < obs->nr_cpus; i++) {
		const struct obs_cpu *oc = &obs->cpus[i];

		if (obs->map) {
			struct pebs_map_snapshot snap;

			err = pebs_map__read_slot(obs->map, oc->cpu, &snap);
			if (err)
				return err;
			w[0] = (uint64_t)(int64_t)snap.tgid;
			w[1] = (uint64_t)(int64_t)snap.pid;
			w[2] = snap.switches;
		} else {
			w[0] = w[1] = UINT64_MAX;
			w[2] = 0;
		}
		for (unsigned int e = 0; e < nr_events; e++) {
			err = counter_read(&oc->ctr[e],
					   &w[PEBS_OBS_CPU_HEAD + e]);
			if (err)
				return core_err(err, "reading counter %s on CPU %u: %s",
						obs->ev[e].name, oc->cpu,
						strerror(-err));
		}
		w += PEBS_OBS_CPU_HEAD + nr_events;
	}
	row[1] = pebs_rdtscp();
	return 0;
}

int pebs_rdpmc_read(const struct perf_event_mmap_page *pc,
		    uint64_t (*rdpmc)(unsigned int counter), uint64_t *count)
{
	if (!pc || !count)
		return -EINVAL;
	return pebs_rdpmc_page(pc, rdpmc ? rdpmc : pebs_rdpmc_insn, count);
}

/* a (tsc, ns) pair: the clock read bracketed by two TSC reads */
static void tsc_mono_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t a = pebs_rdtscp();

	*ns = core_mono_ns();
	*tsc = a + (pebs_rdtscp() - a) / 2;
}

int pebs_tsc_hz(unsigned int ms, uint64_t *hz)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	uint64_t t0, n0, t1, n1;

	if (!ms || !hz)
		return core_err(-EINVAL, "pebs_tsc_hz: need a duration and a result");
	if (!pebs_cpu_has_rdtscp())
		return core_err(-EOPNOTSUPP,
				"this CPU has no rdtscp: no TSC measurement (under qemu use -cpu max)");
	tsc_mono_pair(&t0, &n0);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	tsc_mono_pair(&t1, &n1);
	if (n1 <= n0 || t1 <= t0)
		return core_err(-EINVAL, "the TSC or CLOCK_MONOTONIC did not advance");
	*hz = (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000 / (n1 - n0));
	return 0;
}
