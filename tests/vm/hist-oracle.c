// SPDX-License-Identifier: MIT
/*
 * hist-oracle.c - guest check of the module's switch history against an
 * oracle that knows the switch order by construction.
 *
 * Three SCHED_FIFO threads of equal priority, pinned to CPU 0, hand a
 * token around through pipes in a fixed, irregular order (T1 T2 T1 T3
 * ...). A FIFO thread is not preempted by its equals or by normal tasks,
 * so a woken thread runs only once the one that woke it blocks: among
 * these three, the switch-ins on CPU 0 are exactly the token order. Each
 * thread spins through its turn for a duration that varies from turn to
 * turn (4, 10 or 18 ms), long enough for the tick and per-CPU kernel
 * threads to cut into some turns.
 *
 * The module's history of CPU 0, restricted to the three tids, must be
 * the token order exactly. Order alone cannot tell a right entry from
 * one that names the task switched out instead of the one switched in
 * (Shim's stale `next`): every chain of switches A->B, B->C, ... gives
 * the same sequence shifted by one. So each turn also anchors itself:
 * right after its read() returns, the thread reads CPU 0's slot (a plain
 * load from the mapping, no system call, so no switch), and the slot
 * and the history's latest entry must name the thread itself, with the
 * slot's last_switch_ns equal to that entry's time (one switch, one
 * reading of the clock). A higher-priority kernel thread that preempted
 * it between the switch-in and the read does not change this: the
 * thread's switch back in is the latest then. A wrong `next` names the
 * task switched out in every entry, never the one running, so it fails
 * on the first turn. The module's debug_wrong_next=1 is that negative
 * control, and 13-module-oracle.sh checks that it fails. The anchors
 * need no clock: comparing the history's times (local_clock) with
 * CLOCK_MONOTONIC, as this test once did, failed in CI whenever the
 * guest's ticks ran late under TCG (local_clock is clamped to the tick's
 * window where sched_clock is unstable: 8.6 ms behind was seen). The
 * anchored entries must also come in switch-number and time order, and
 * a thread preempted within its turn shows twice in a row in the
 * history: that is still one turn.
 *
 * Prints one line: "ok turns=N switches=M" or "FAIL <reason>".
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "pebsshim.h"
#include "vm-map.h"

#define NTHR	3
#define TURNS	60

/* whose turn: 0 T1 1 T2 2 T3; irregular, never the same twice in a
 * row (across the wrap too: a thread passing to itself is no switch) */
static const int order[] = { 0, 1, 0, 2, 1, 2, 0, 2, 1, 2 };
static const uint64_t spin_ns[] = { 4000000, 10000000, 18000000, 10000000,
				    4000000, 18000000, 18000000, 4000000 };

struct thr {
	pthread_t t;
	int idx;
	int rfd, wfd[NTHR];	/* own pipe, and the write ends of all */
	pid_t tid;
};

static struct thr thr[NTHR];
static struct pebs_map *map;
static pid_t who[TURNS];
/* CPU 0's slot as each turn saw it at its start, and the latest entry
 * of the history then */
static struct pebs_map_snapshot seen[TURNS];
static struct pebs_map_switch latest[TURNS];
static int seen_err[TURNS];
static volatile int ready;

static int done_fd[2];	/* the last turn tells the main thread */

/* anchor - CPU 0's slot and its history's latest entry, read by the
 * thread running there */
static int anchor(struct pebs_map_snapshot *snap, struct pebs_map_switch *e)
{
	uint64_t cursor, lost = 0;

	if (pebs_map__read_slot(map, 0, snap) || !snap->hist_head)
		return -1;
	cursor = snap->hist_head - 1;
	return pebs_map__hist_read(map, 0, &cursor, e, 1, &lost) == 1 && !lost ?
	       0 : -1;
}

static void *run(void *arg)
{
	struct thr *me = arg;
	int turn;

	me->tid = syscall(SYS_gettid);
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		uint64_t until;

		if (read(me->rfd, &turn, sizeof(turn)) != sizeof(turn))
			fail("token: read: %s", strerror(errno));
		if (turn < 0)
			return NULL;
		who[turn] = me->tid;
		seen_err[turn] = anchor(&seen[turn], &latest[turn]);
		until = now_ns() + spin_ns[turn % (sizeof(spin_ns) / sizeof(spin_ns[0]))];
		while (now_ns() < until)
			;
		turn++;
		if (turn == TURNS) {
			/* wake the main thread (on another CPU) */
			if (write(done_fd[1], &turn, sizeof(turn)) != sizeof(turn))
				fail("done: write: %s", strerror(errno));
			continue;
		}
		int next = order[turn % (sizeof(order) / sizeof(order[0]))];

		if (write(me->wfd[next], &turn, sizeof(turn)) != sizeof(turn))
			fail("token: write: %s", strerror(errno));
	}
}

int main(void)
{
	struct pebs_map_snapshot snap;
	struct pebs_map_switch *h;
	pthread_attr_t at;
	uint64_t cursor, first, lost = 0;
	int fds[NTHR][2], n, k = 0, stop = -1;

	if (pebs_map__open(NULL, &map))
		fail("%s", pebs_errmsg());
	h = calloc(1 << 16, sizeof(*h));
	if (!h)
		fail("out of memory");
	token_ring_setup(done_fd, fds, NTHR, 0, &at);
	for (int i = 0; i < NTHR; i++) {
		thr[i].idx = i;
		thr[i].rfd = fds[i][0];
		for (int j = 0; j < NTHR; j++)
			thr[i].wfd[j] = fds[j][1];
		if (pthread_create(&thr[i].t, &at, run, &thr[i]))
			fail("pthread_create (SCHED_FIFO, CPU 0) failed");
	}
	while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < NTHR)
		usleep(1000);
	usleep(20000);	/* all three blocked in read() */
	if (pebs_map__read_slot(map, 0, &snap))
		fail("%s", pebs_errmsg());
	cursor = first = snap.hist_head;
	k = 0;
	if (write(fds[order[0]][1], &k, sizeof(k)) != sizeof(k))
		fail("write: %s", strerror(errno));
	if (read(done_fd[0], &k, sizeof(k)) != sizeof(k))
		fail("done: read: %s", strerror(errno));
	for (int i = 0; i < NTHR; i++)
		if (write(fds[i][1], &stop, sizeof(stop)) != sizeof(stop))
			fail("stop: write: %s", strerror(errno));
	for (int i = 0; i < NTHR; i++)
		pthread_join(thr[i].t, NULL);

	n = pebs_map__hist_read(map, 0, &cursor, h, 1 << 16, &lost);
	if (n < 0 || lost)
		fail("history of CPU 0: %s, %llu lost", n < 0 ? pebs_errmsg() : "",
		     (unsigned long long)lost);
	/* each turn's anchor: the thread running on CPU 0 is the one the
	 * slot and the latest switch name, and they are one switch */
	for (k = 0; k < TURNS; k++) {
		if (seen_err[k]) {
			printf("FAIL turn %d: CPU 0's slot or latest switch could not be read\n", k);
			return 1;
		}
		if (seen[k].pid != who[k] || latest[k].pid != who[k]) {
			printf("FAIL turn %d: tid %d ran on CPU 0, but its slot named tid %d and its latest switch tid %d\n",
			       k, who[k], seen[k].pid, latest[k].pid);
			return 1;
		}
		if (latest[k].time != seen[k].last_switch_ns) {
			printf("FAIL turn %d: the slot's last switch at %llu ns, the history's at %llu\n",
			       k, (unsigned long long)seen[k].last_switch_ns,
			       (unsigned long long)latest[k].time);
			return 1;
		}
		if (seen[k].hist_head <= first || seen[k].hist_head > first + (uint64_t)n ||
		    (k && (seen[k].hist_head <= seen[k - 1].hist_head ||
			   latest[k].time < latest[k - 1].time))) {
			printf("FAIL turn %d: its switch (number %llu, at %llu ns) is out of order\n",
			       k, (unsigned long long)seen[k].hist_head - 1,
			       (unsigned long long)latest[k].time);
			return 1;
		}
		/* the history read at the end holds the same entry */
		const struct pebs_map_switch *e = &h[seen[k].hist_head - 1 - first];

		if (e->pid != latest[k].pid || e->time != latest[k].time) {
			printf("FAIL turn %d: switch %llu read later differs (tid %d at %llu ns, then tid %d at %llu)\n",
			       k, (unsigned long long)seen[k].hist_head - 1,
			       latest[k].pid, (unsigned long long)latest[k].time,
			       e->pid, (unsigned long long)e->time);
			return 1;
		}
	}
	/* the whole history of CPU 0, restricted to the three tids, is the
	 * token order */
	k = 0;
	for (int i = 0, last = -1; i < n && k < TURNS; i++) {
		bool ours = false;

		for (int j = 0; j < NTHR; j++)
			ours |= h[i].pid == thr[j].tid;
		if (!ours)
			continue;
		/* back on CPU 0 after a higher-priority task (a per-CPU
		 * kernel thread) preempted it: still the same turn */
		if (h[i].pid == last)
			continue;
		last = h[i].pid;
		if (h[i].pid != who[k]) {
			printf("FAIL turn %d: the history says tid %d, the token was with %d\n",
			       k, h[i].pid, who[k]);
			return 1;
		}
		k++;
	}
	if (k != TURNS) {
		printf("FAIL the history holds %d of the %d turns\n", k, TURNS);
		return 1;
	}
	printf("ok turns=%d switches=%d\n", TURNS, n);
	pebs_map__close(map);
	return 0;
}
