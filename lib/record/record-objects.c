// SPDX-License-Identifier: MIT
/*
 * record-objects.c - a recording's data objects (--objects): the command
 * runs with libpebsshim-objects.so preloaded (tools/objects/objects.c),
 * which writes its tracked allocations and releases into a ring in
 * shared memory (lib/record/objects-ring.h: no system call per record);
 * while it waits for the rings, record reads what is there every 1 to
 * WAIT_MAX_MS milliseconds (pebs_recorder__poll: rec_objects_wait_ms,
 * shorter the fuller the ring was), and at the end of every round and
 * of the recording, and writes each as a sample of one of two extra
 * events of the perf.data file, software dummies named "pebs-shim:alloc"
 * and "pebs-shim:free" (HEADER_EVENT_DESC): perf report and perf script
 * read them as samples of named events, without a warning, and a killed
 * recording keeps every object written before the kill.
 *
 * An alloc sample: IP the allocation's caller, TID, TIME (the
 * interposer's CLOCK_MONOTONIC, the clock the events then use:
 * use_clockid, perf's -k CLOCK_MONOTONIC), ADDR the object's address,
 * PERIOD the bytes it stands for (its size, or size / probability when
 * sampled), CALLCHAIN its stack (user context), WEIGHT its size. A free
 * sample: ADDR, PERIOD the length of an unmapped range (1 for free()).
 *
 * The ring has a lane per CPU. A producer waits while its lane is full,
 * so nothing is dropped: it sleeps on a futex of the lane, having asked
 * the recorder to read at once (the waker below). A process in another
 * PID namespace sends its namespace's pids, which record-objects-ns.c
 * translates. The ring holds what the command writes in the
 * milliseconds record may be kept from the CPU: 16 MiB with
 * --objects=all (a few hundred thousand records), 1 MiB when sampling
 * (ten thousand: a few thousand a second is a heavy load then), shared
 * by the lanes (at least 64 KiB each), so that its pages, which count
 * in the memory of the recorder and of the command, stay few. A slot
 * reserved but never finished (its process died, or a thread jumped out
 * of a signal handler in the middle) would stop its lane's reading: it
 * is skipped once its process is gone, or after HOLE_NS, or at the end
 * after END_NS in all, and counted (obj_lost).
 *
 * Time order: a producer stamps its record once it holds its slot, an
 * allocation's after the allocator returned and a release's before the
 * allocator frees, so a range freed by one thread and allocated again by
 * another has the free's time first, and the objects' lookup over time
 * (lib/objects) follows the times, not the order of arrival. A lane's
 * records come in the order of their slots and each is stamped a copy's
 * time before it is published, so it reaches the file in the round of
 * its time, or the next when its lane was read before another lane's
 * newer record was published (the session orders records by time and
 * delivers at a round those up to the round before, as it does the
 * kernel's per-CPU samples), unless its producer is preempted in
 * between, or it waits behind an unfinished slot of its lane (up to
 * HOLE_NS).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "record/record-int.h"
#include "record/objects-ring.h"
#include "core/internal.h"

/* an unfinished slot is skipped after this long (its producer alive) */
#define HOLE_NS		1000000000ull
/* ... and at the end of the recording, after this long */
#define END_NS		50000000ull
/* tail handed back to the producers after this many bytes read */
#define RELEASE_BYTES	(256u << 10)
/*
 * The wait between reads while the rings are quiet: doubled while a read
 * finds under 1/64 of the ring, halved when it finds over 1/8, so that
 * a producer seldom waits on a full ring, and a recorder that woke every
 * millisecond (1000 times a second, each taking a CPU from the command)
 * wakes less when the command allocates little.
 */
#define WAIT_MAX_MS	16

/* the sample ids of the events: far above the kernel's */
#define ID_ALLOC	PEBS_OBJECTS_ALLOC_ID
#define ID_FREE		PEBS_OBJECTS_FREE_ID
#define ID_STACK	PEBS_OBJECTS_STACK_ID
#define ID_TLS		PEBS_OBJECTS_TLS_ID

#ifndef PEBS_OBJECTS_LIB
#define PEBS_OBJECTS_LIB "/usr/local/lib/pebs-shim/libpebsshim-objects.so"
#endif

struct rec_objects {
	int fd;			/* the memfd */
	bool started;		/* the command runs: read the ring */
	bool final;		/* the recording ends: wait (END_NS), close */
	struct pso_ring *ring;	/* NULL once closed */
	size_t map_len;
	uint32_t lanes;		/* the ring's lanes, */
	uint64_t size;		/* each of this many bytes */
	struct rec_lane {
		/* the lane, found once with the recorder's size: the
		   command may write over the ring's header */
		struct pso_lane *l;
		uint64_t tail;		/* read up to here */
		uint64_t stuck_at;	/* an unfinished slot at the tail, */
		uint64_t stuck_since;	/* seen first then (0: none) */
	} lane[PSO_LANES_MAX];
	uint64_t deadline;	/* of the last drain's waits */
	unsigned int wait_ms;	/* between reads (rec_objects_wait_ms) */
	int wake_fd;		/* the waker's eventfd (-1: none) */
	bool waking;		/* the waker thread runs */
	bool stopping;		/* ... and is to end */
	pthread_t waker;
	struct rec_objects_ns *ns;	/* pids of other namespaces */
	uint32_t drains;	/* rec_objects_drain's calls */
	char path[PATH_MAX];
	uint64_t slot[PSO_SLOT_MAX / 8];	/* one record, copied out */
};

/* $PEBS_SHIM_OBJECTS_LIB, beside the pebs-shim binary (a build tree),
   else where make install put it */
static int find_lib(char *path, size_t len)
{
	const char *env = getenv("PEBS_SHIM_OBJECTS_LIB");
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(path, len, "%s", env);
		return access(path, R_OK) ? -errno : 0;
	}
	n = readlink("/proc/self/exe", path, len - 1);
	if (n > 0) {
		path[n] = 0;
		slash = strrchr(path, '/');
		if (slash && (size_t)(slash - path) + 25 < len) {
			strcpy(slash + 1, "libpebsshim-objects.so");
			if (!access(path, R_OK))
				return 0;
		}
	}
	snprintf(path, len, "%s", PEBS_OBJECTS_LIB);
	return access(path, R_OK) ? -errno : 0;
}

/*
 * The ring: a memfd of the header page and a lane per CPU (up to
 * PSO_LANES_MAX) sharing @total bytes, shared, its pages
 * allocated here (fallocate), so that a producer's first write to a page
 * maps it rather than allocating it under the page's lock, where two
 * threads writing records side by side slept on that lock (bench/allocs
 * --small 2, 1.3 s: 37 sleeps, 43 ms; allocated first, 14 and 24 sleeps,
 * 21 ms). Not MAP_POPULATE in the interposer: every process the command
 * starts would map the whole ring at once (--objects=all: 1.2 ms each).
 */
static int ring_create(struct rec_objects *ob, uint32_t total)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	struct stat st;

	ob->lanes = cpus < 1 ? 1 : cpus > PSO_LANES_MAX ? PSO_LANES_MAX :
		    (uint32_t)cpus;
	/* the largest power of two of the lane's share, PSO_LANE_MIN or more */
	for (ob->size = PSO_LANE_MIN; ob->size * 2 * ob->lanes <= total;)
		ob->size *= 2;
	ob->map_len = pso_ring_bytes(ob->lanes, ob->size);
	ob->fd = memfd_create(PEBS_OBJECTS_RING_NAME, 0);
	if (ob->fd < 0 || fchmod(ob->fd, 0600) ||
	    ftruncate(ob->fd, (off_t)ob->map_len) ||
	    fallocate(ob->fd, 0, 0, (off_t)ob->map_len))
		return core_err(-errno, "--objects: cannot create its %zu MiB ring (memfd): %s: raise the memory limit",
				ob->map_len >> 20, strerror(errno));
	ob->ring = mmap(NULL, ob->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			ob->fd, 0);
	if (ob->ring == MAP_FAILED) {
		ob->ring = NULL;
		return core_err(-errno, "--objects: cannot map its ring: %s: raise the memory limit",
				strerror(errno));
	}
	/*
	 * locked in memory where RLIMIT_MEMLOCK allows: reclaim (here the
	 * host's DAMON pageout, which takes pages it finds idle) unmapped
	 * ring pages, and the producers slept on their locks to map them
	 * again (bench/allocs with 128 KiB chunks: 59 sleeps in a 1.2 s run,
	 * 13 and 24 locked; the wall time did not change measurably)
	 */
	(void)mlock(ob->ring, ob->map_len);
	ob->ring->size = ob->size;
	ob->ring->lanes = ob->lanes;
	for (uint32_t i = 0; i < ob->lanes; i++) {
		ob->lane[i].l = pso_ring_lane(ob->ring, i);
		ob->lane[i].l->size = ob->size;
	}
	ob->ring->recorder = (uint32_t)getpid();
	if (!stat("/proc/self/ns/pid", &st))
		ob->ring->pidns = (uint32_t)st.st_ino;
	ob->ring->open = 1;
	__atomic_store_n(&ob->ring->magic, PSO_RING_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

int rec_objects_prepare(struct pebs_recorder *r)
{
	struct rec_objects *ob;
	const char *pre = getenv("LD_PRELOAD");
	char num[32], pid[32], mode[32], *val;
	int err;

	if (!r->o.objects)
		return 0;
	ob = calloc(1, sizeof(*ob));
	if (!ob)
		return core_err(-ENOMEM, "out of memory");
	ob->fd = ob->wake_fd = -1;
	ob->wait_ms = 1;
	r->objs = ob;
	err = find_lib(ob->path, sizeof(ob->path));
	if (err)
		return core_err(err, "--objects: cannot read %s: %s: install pebs-shim fully or set PEBS_SHIM_OBJECTS_LIB to libpebsshim-objects.so",
				ob->path, strerror(-err));
	/* a ring for all records, or for a sampled few: 1/8 of the
	   default interval's share or more */
	err = ring_create(ob, r->o.objects_all || (r->o.objects_interval &&
			      r->o.objects_interval < PSO_INTERVAL / 8) ?
			      PSO_RING_ALL : PSO_RING_SAMPLED);
	if (err)
		return err;
	/* the command and what it execs keep the fd (no close-on-exec) */
	if (r->o.objects_all)
		snprintf(mode, sizeof(mode), "all");
	else
		snprintf(mode, sizeof(mode), "%" PRIu64, r->o.objects_interval ?
			 r->o.objects_interval : (uint64_t)PSO_INTERVAL);
	snprintf(num, sizeof(num), "%d", ob->fd);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (pre && *pre && asprintf(&val, "%s:%s", ob->path, pre) < 0)
		val = NULL;
	else if (!(pre && *pre))
		val = strdup(ob->path);
	if (!val)
		return core_err(-ENOMEM, "out of memory");
	err = setenv("LD_PRELOAD", val, 1) || setenv(PSO_ENV_FD, num, 1) ||
	      setenv(PSO_ENV_RECORDER, pid, 1) || setenv(PSO_ENV_MODE, mode, 1);
	free(val);
	if (err)
		return core_err(-ENOMEM, "out of memory");
	return 0;
}

/*
 * The waker: a thread asleep on the ring's futex word kick, which a
 * producer that found the ring full sets and wakes (pso_ring_kick); it
 * writes the eventfd that pebs_recorder__poll waits on with the kernel's
 * rings, so the recorder reads at once rather than at its next timeout
 * (up to WAIT_MAX_MS). A futex, not an eventfd in the command: the
 * command's descriptors are the program's, which may close them all (an
 * eventfd cannot be opened again through /proc/PID/fd) or reuse their
 * numbers; the futex word is in the ring every process maps, in any PID
 * namespace. Signals are blocked in the thread: they reach the recorder's
 * main thread, whose poll they interrupt.
 */
static void *waker(void *arg)
{
	struct rec_objects *ob = arg;
	uint64_t one = 1;

	while (!__atomic_load_n(&ob->stopping, __ATOMIC_ACQUIRE)) {
		pso_futex(&ob->ring->kick, FUTEX_WAIT, 0, NULL);
		if (__atomic_exchange_n(&ob->ring->kick, 0, __ATOMIC_SEQ_CST) &&
		    write(ob->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			break;
	}
	return NULL;
}

/* the waker, if it can be had (else the reads are every WAIT_MAX_MS at
   the longest, as they are anyway) */
static void waker_start(struct rec_objects *ob)
{
	sigset_t all, old;

	ob->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ob->wake_fd < 0)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ob->waking = !pthread_create(&ob->waker, NULL, waker, ob);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void waker_stop(struct rec_objects *ob)
{
	if (ob->waking) {
		__atomic_store_n(&ob->stopping, true, __ATOMIC_RELEASE);
		__atomic_store_n(&ob->ring->kick, 1, __ATOMIC_SEQ_CST);
		pso_futex(&ob->ring->kick, FUTEX_WAKE, 1, NULL);
		pthread_join(ob->waker, NULL);
		ob->waking = false;
	}
	if (ob->wake_fd >= 0)
		close(ob->wake_fd);
	ob->wake_fd = -1;
}

int rec_objects_wake_fd(const struct pebs_recorder *r)
{
	return r->objs ? r->objs->wake_fd : -1;
}

void rec_objects_woken(struct pebs_recorder *r)
{
	uint64_t n;
	ssize_t got;

	if (r->objs && r->objs->wake_fd >= 0) {
		got = read(r->objs->wake_fd, &n, sizeof(n));	/* nonblocking */
		(void)got;
	}
}

/* the fd stays open until the end: a process of the command that closed
   its copy (a program closing every fd before an exec, Python's
   subprocess) opens the ring as /proc/RECORDER/fd/FD */
void rec_objects_started(struct pebs_recorder *r)
{
	if (r->objs && r->objs->fd >= 0) {
		r->objs->started = true;
		waker_start(r->objs);
	}
}

size_t rec_objects_sample(const void *msg, size_t len, uint64_t *buf,
			  size_t size)
{
	const struct pso_rec *r = msg;
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint64_t *p = buf + 1;
	static const uint64_t ids[] = {
		[PSO_ALLOC] = ID_ALLOC, [PSO_FREE] = ID_FREE,
		[PSO_STACK] = ID_STACK, [PSO_TLS] = ID_TLS,
	};
	bool alloc;

	if (len < sizeof(*r) || r->size != len ||
	    r->kind < PSO_ALLOC || r->kind > PSO_TLS ||
	    r->nr_ips > PSO_MAX_IPS || r->size != sizeof(*r) + r->nr_ips * 8u ||
	    size < REC_OBJ_SAMPLE_MAX)
		return 0;
	alloc = r->kind == PSO_ALLOC;
	*p++ = ids[r->kind];
	*p++ = r->nr_ips ? r->ips[0] : 0;
	*p++ = (uint64_t)r->tid << 32 | r->pid;
	*p++ = r->time;
	*p++ = r->addr;
	if (alloc) {
		*p++ = r->weight;
		*p++ = r->nr_ips + 1u;
		*p++ = PERF_CONTEXT_USER;
		memcpy(p, r->ips, r->nr_ips * 8u);
		p += r->nr_ips;
		*p++ = r->len;
	} else {
		*p++ = r->len > 1 ? r->len : 1;
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)((char *)p - (char *)buf);
	return h->size;
}

/*
 * Whether to skip the unfinished slot at lane @ln's tail (@pid its
 * producer, 0 unknown): its process is gone, or it has been there
 * HOLE_NS; at the end of the recording, once END_NS have passed since
 * the last drain began (however many such slots there are).
 */
static bool give_up(const struct rec_objects *ob, struct rec_lane *ln,
		    uint32_t pid)
{
	uint64_t now = core_mono_ns();

	if (ln->stuck_at != ln->tail || !ln->stuck_since) {
		ln->stuck_at = ln->tail;
		ln->stuck_since = now;
	}
	if (pid && kill((pid_t)pid, 0) && errno == ESRCH)
		return true;
	if (ob->final)
		return now >= ob->deadline;
	return now - ln->stuck_since >= HOLE_NS;
}

static int write_rec(struct pebs_recorder *r, uint32_t len)
{
	struct rec_objects *ob = r->objs;
	uint64_t buf[REC_OBJ_SAMPLE_MAX / 8];
	struct pso_rec *rec = (struct pso_rec *)ob->slot;
	int err;

	/* a process of another PID namespace: its pids as the samples'
	   (ob->slot is the record's copy) */
	if (len >= sizeof(*rec) && rec->pidns &&
	    (err = rec_objects_ns_fix(&ob->ns, rec, ob->drains)))
		return core_err(err, "--objects: out of memory");

	if (!rec_objects_sample(ob->slot, len, buf, sizeof(buf))) {
		r->st.obj_bad++;	/* not one of the interposer's */
		return 0;
	}
	switch (((const struct pso_rec *)ob->slot)->kind) {
	case PSO_ALLOC:
		r->st.obj_allocs++;
		break;
	case PSO_FREE:
		r->st.obj_frees++;
		break;
	case PSO_STACK:
		r->st.obj_threads++;
		break;
	default:
		break;	/* a TLS block */
	}
	return rec_out_raw(r->out, (const struct perf_event_header *)buf,
			   ((const struct pso_rec *)ob->slot)->time);
}

/*
 * Lane @i's records up to its head as this begins (at most a lane's
 * worth: what lies past it cannot have been written yet), as samples;
 * the bytes read in *@got.
 */
static int drain_lane(struct pebs_recorder *r, uint32_t i, uint64_t *got)
{
	struct rec_objects *ob = r->objs;
	struct rec_lane *ln = &ob->lane[i];
	struct pso_lane *l = ln->l;
	uint64_t head, end, start = ln->tail, done = 0;
	uint64_t release = RELEASE_BYTES < ob->size / 4 ? RELEASE_BYTES :
			   ob->size / 4;
	struct pso_slot s;
	int err = 0;

	head = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE);
	end = head - ln->tail > ob->size ? ln->tail + ob->size : head;
	while (!err && ln->tail < end) {
		uint64_t was = ln->tail;
		enum pso_next k = pso_lane_next(l, ob->size, ln->tail, head,
						ob->slot, &s);

		switch (k) {
		case PSO_NONE:
			end = ln->tail;
			break;
		case PSO_REC:
			err = write_rec(r, s.len - 8);
			ln->tail += s.len;
			break;
		case PSO_BAD:
			r->st.obj_bad++;
			ln->tail += s.len;
			break;
		case PSO_BUSY:
		case PSO_HOLE:
			if (give_up(ob, ln, k == PSO_BUSY ? s.pid : 0)) {
				r->st.obj_lost++;
				ln->tail = k == PSO_BUSY ? ln->tail + s.len :
					   pso_lane_resync(l, ob->size, ln->tail);
			} else if (ob->final) {
				nanosleep(&(struct timespec){ .tv_nsec = 1000000 },
					  NULL);
			} else {
				end = ln->tail;	/* the next drain looks again */
			}
			break;
		}
		done += ln->tail - was;
		if (done >= release) {
			pso_lane_release(l, ln->tail);
			done = 0;
		}
	}
	pso_lane_release(l, ln->tail);
	*got = ln->tail - start;
	return err;
}

/*
 * Every lane's records, each up to its head as its turn begins; the wait
 * to the next drain halved when a lane was over 1/8 full, doubled when
 * each was under 1/64.
 */
int rec_objects_drain(struct pebs_recorder *r)
{
	struct rec_objects *ob = r->objs;
	uint64_t got, most = 0;
	int err = 0;

	if (!ob || !ob->ring || !ob->started)
		return 0;
	__atomic_fetch_add(&ob->ring->beat, 1, __ATOMIC_RELAXED);
	ob->drains++;
	for (uint32_t i = 0; !err && i < ob->lanes; i++) {
		err = drain_lane(r, i, &got);
		most = got > most ? got : most;
	}
	if (most > ob->size / 8)
		ob->wait_ms = ob->wait_ms > 1 ? ob->wait_ms / 2 : 1;
	else if (most < ob->size / 64 && ob->wait_ms < WAIT_MAX_MS)
		ob->wait_ms *= 2;
	return err;
}

int rec_objects_wait_ms(const struct pebs_recorder *r)
{
	return r->objs ? (int)r->objs->wait_ms : 1;
}

bool rec_objects_on(const struct pebs_recorder *r)
{
	return r->objs && r->objs->ring && r->objs->started;
}

/* the last drain waits for unfinished slots (END_NS), then the
   producers stop */
int rec_objects_stop(struct pebs_recorder *r)
{
	struct rec_objects *ob = r->objs;
	int err;

	if (!ob || !ob->ring)
		return 0;
	ob->final = true;
	ob->deadline = core_mono_ns() + END_NS;
	err = rec_objects_drain(r);
	__atomic_store_n(&ob->ring->open, 0, __ATOMIC_RELEASE);
	waker_stop(ob);
	return err;
}

void rec_objects_free(struct pebs_recorder *r)
{
	struct rec_objects *ob = r->objs;

	if (!ob)
		return;
	if (ob->ring) {
		waker_stop(ob);
		__atomic_store_n(&ob->ring->open, 0, __ATOMIC_RELEASE);
		munmap(ob->ring, ob->map_len);
	}
	if (ob->fd >= 0)
		close(ob->fd);
	rec_objects_ns_free(ob->ns);
	free(ob);
	r->objs = NULL;
}

int rec_objects_attrs(struct pebs_perfdata_writer *w,
		      const struct perf_event_attr *like)
{
	const uint64_t all = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			     PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			     PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD;
	static const struct {
		uint64_t id;
		const char *name;
	} rest[] = {
		{ ID_FREE, PEBS_OBJECTS_FREE_EVENT },
		{ ID_STACK, PEBS_OBJECTS_STACK_EVENT },
		{ ID_TLS, PEBS_OBJECTS_TLS_EVENT },
	};
	int err = rec_out_dummy(w, like, all | PERF_SAMPLE_CALLCHAIN |
				PERF_SAMPLE_WEIGHT, ID_ALLOC,
				PEBS_OBJECTS_ALLOC_EVENT);

	/* the others: IP, TID, TIME, ADDR and PERIOD */
	for (size_t i = 0; !err && i < sizeof(rest) / sizeof(*rest); i++)
		err = rec_out_dummy(w, like, all, rest[i].id, rest[i].name);
	return err;
}
