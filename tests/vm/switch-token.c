// SPDX-License-Identifier: MIT
/*
 * switch-token.c - a workload whose switch order is known by
 * construction, and the check of a recording's context-switch records
 * against it (tests/vm/guest/41-record-switches.sh).
 *
 *   switch-token run [CPU]      three SCHED_FIFO threads of equal
 *                               priority, pinned to CPU (default 0),
 *                               hand a token through pipes in a fixed,
 *                               irregular order (as hist-oracle.c); each
 *                               turn spins 1-3 ms. Prints "cpu C", then
 *                               "turn N TID" per turn, then "ok".
 *   switch-token check FILE LOG
 *                               the PERF_RECORD_SWITCH_CPU_WIDE records
 *                               of FILE on LOG's CPU, restricted to the
 *                               three tids: their in records must hold
 *                               the turns' tids in order, contiguous (a
 *                               thread preempted within its turn may
 *                               come in twice in a row), after at most
 *                               2 x 3 ins of the threads' start (each
 *                               runs on the CPU until it first blocks)
 *                               and before those of their exit; every out
 *                               record of one of them must be followed
 *                               on that CPU by the in record of the task
 *                               its next_prev names, whose prev names it
 *                               back; no PERF_RECORD_LOST on that CPU.
 *                               Prints "ok turns=N from=F ins=I outs=O"
 *                               or "FAIL <reason>".
 *   switch-token gaps FILE      the module's gaps in FILE (LOST records
 *                               with sample tid -1): prints "lost=N
 *                               gaps=G ins=I bad=B", B the in records
 *                               right after a gap that name a prev (they
 *                               must not: the prev is unknown there).
 *
 * A FIFO thread is not preempted by its equals or by normal tasks, so
 * among the three, the switch-ins on the CPU are the token order.
 */
#include <pthread.h>
#include <sys/syscall.h>

#include "vm-map.h"
#include "pebsshim.h"

#define NTHR		3
#define TURNS		60

static const int order[] = { 0, 1, 0, 2, 1, 2, 0, 2, 1, 2 };
static const uint64_t spin_ns[] = { 1000000, 2000000, 3000000, 2000000 };

struct thr {
	pthread_t t;
	int rfd, wfd[NTHR];
	pid_t tid;
};

static struct thr thr[NTHR];
static pid_t who[TURNS];
static int done_fd[2];
static volatile int ready;

static void *run(void *arg)
{
	struct thr *me = arg;
	int turn, next;

	me->tid = (pid_t)syscall(SYS_gettid);
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		uint64_t until;

		if (read(me->rfd, &turn, sizeof(turn)) != sizeof(turn))
			fail("token: read: %s", strerror(errno));
		if (turn < 0)
			return NULL;
		who[turn] = me->tid;
		until = now_ns() + spin_ns[turn % 4];
		while (now_ns() < until)
			;
		if (++turn == TURNS) {
			if (write(done_fd[1], &turn, sizeof(turn)) != sizeof(turn))
				fail("done: write: %s", strerror(errno));
			continue;
		}
		next = order[turn % 10];
		if (write(me->wfd[next], &turn, sizeof(turn)) != sizeof(turn))
			fail("token: write: %s", strerror(errno));
	}
}

static int do_run(unsigned int cpu)
{
	int fds[NTHR][2], k = 0, stop = -1;
	pthread_attr_t at;

	token_ring_setup(done_fd, fds, NTHR, cpu, &at);
	for (int i = 0; i < NTHR; i++) {
		char name[16];

		thr[i].rfd = fds[i][0];
		for (int j = 0; j < NTHR; j++)
			thr[i].wfd[j] = fds[j][1];
		if (pthread_create(&thr[i].t, &at, run, &thr[i]))
			fail("pthread_create (SCHED_FIFO, CPU %u) failed", cpu);
		snprintf(name, sizeof(name), "token-%d", i);
		pthread_setname_np(thr[i].t, name);
	}
	while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < NTHR)
		sleep_us(1000);
	sleep_us(20000);	/* all three blocked in read() */
	if (write(fds[order[0]][1], &k, sizeof(k)) != sizeof(k) ||
	    read(done_fd[0], &k, sizeof(k)) != sizeof(k))
		fail("token: %s", strerror(errno));
	for (int i = 0; i < NTHR; i++)
		if (write(fds[i][1], &stop, sizeof(stop)) != sizeof(stop))
			fail("stop: write: %s", strerror(errno));
	for (int i = 0; i < NTHR; i++)
		pthread_join(thr[i].t, NULL);
	printf("cpu %u\n", cpu);
	for (int i = 0; i < TURNS; i++)
		printf("turn %d %d\n", i, (int)who[i]);
	printf("ok\n");
	return 0;
}

/* ---- check ------------------------------------------------------------ */

struct chk {
	struct pebs_sample_layout l;
	unsigned int cpu;
	pid_t tids[NTHR];
	pid_t turn[TURNS];
	pid_t seen[4 * TURNS];	/* ins of the three, repeats collapsed */
	int k;
	unsigned int ins, outs, lost;
	int32_t want_in;	/* after an out of ours: who must come in */
	int32_t want_prev;	/* ... naming this prev; -1: nothing owed */
};

static bool ours(const struct chk *c, int32_t tid)
{
	for (int i = 0; i < NTHR; i++)
		if (c->tids[i] == tid)
			return true;
	return false;
}

static int on_record(void *arg, const struct perf_event_header *ev,
		     uint64_t time)
{
	struct chk *c = arg;
	struct pebs_sample s;
	int32_t np[2];
	int32_t tid;

	(void)time;
	if (ev->type != PERF_RECORD_SWITCH_CPU_WIDE &&
	    ev->type != PERF_RECORD_LOST)
		return 0;
	if (pebs_sample__decode_id(&c->l, ev, &s) || s.cpu != c->cpu)
		return 0;
	if (ev->type == PERF_RECORD_LOST) {
		c->lost++;
		return 0;
	}
	memcpy(np, ev + 1, sizeof(np));
	tid = (int32_t)s.tid;
	if (ev->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		if (c->want_prev >= 0)
			fail("two out records without an in between on CPU %u "
			     "(%d out, owed the in of %d)", c->cpu, tid,
			     c->want_in);
		if (ours(c, tid) || ours(c, np[1])) {
			c->outs += ours(c, tid);
			c->want_in = np[1];
			c->want_prev = tid;
		}
		return 0;
	}
	if (c->want_prev >= 0) {
		if (tid != c->want_in || np[1] != c->want_prev)
			fail("out record of %d said next %d; the in record "
			     "after it is %d with prev %d", c->want_prev,
			     c->want_in, tid, np[1]);
		c->want_prev = -1;
	}
	if (!ours(c, tid))
		return 0;
	c->ins++;
	if (c->k > 0 && c->seen[c->k - 1] == tid)
		return 0;	/* preempted within its turn */
	if (c->k >= 4 * TURNS)
		fail("more than %d switches to the token threads", 4 * TURNS);
	c->seen[c->k++] = tid;
	return 0;
}

/* where the turns start in the ins, or -1 */
static int match(const struct chk *c)
{
	for (int at = 0; at <= 2 * NTHR && at + TURNS <= c->k; at++)
		if (!memcmp(c->seen + at, c->turn, sizeof(c->turn)))
			return at;
	return -1;
}

static int do_check(const char *path, const char *log)
{
	struct chk c = { .want_prev = -1 };
	const struct perf_event_attr *a;
	struct pebs_perfdata *pd;
	char line[128];
	int n = 0, t, tid, at;
	FILE *f = fopen(log, "r");

	if (!f)
		fail("%s: %s", log, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "cpu %u", &c.cpu) == 1)
			continue;
		if (sscanf(line, "turn %d %d", &t, &tid) != 2 || t != n ||
		    n >= TURNS)
			continue;
		c.turn[n++] = tid;
		for (int i = 0; i < NTHR; i++)
			if (c.tids[i] == tid || !c.tids[i]) {
				c.tids[i] = tid;
				break;
			}
	}
	fclose(f);
	if (n != TURNS)
		fail("%s: %d turns logged, not %d", log, n, TURNS);
	if (pebs_perfdata__open(path, &pd))
		fail("%s", pebs_errmsg());
	a = pebs_perfdata__attr(pd, 0, NULL, NULL);
	if (!a || pebs_sample_layout__init(&c.l, a))
		fail("%s: no event to decode its records with", path);
	if (pebs_ordered__process(pd, on_record, &c, NULL))
		fail("%s: %s", path, pebs_errmsg());
	pebs_perfdata__close(pd);
	if (c.lost)
		fail("%u PERF_RECORD_LOST on CPU %u", c.lost, c.cpu);
	at = match(&c);
	if (at < 0) {
		fprintf(stderr, "switch-token: the ins of the token threads:");
		for (int i = 0; i < c.k; i++)
			fprintf(stderr, " %d", (int)c.seen[i]);
		fprintf(stderr, "\n");
		fail("the records' %d switches to the token threads do not hold "
		     "the %d turns in order", c.k, TURNS);
	}
	printf("ok turns=%d from=%d ins=%u outs=%u\n", TURNS, at, c.ins,
	       c.outs);
	return 0;
}

/* ---- gaps ------------------------------------------------------------- */

struct gaps {
	struct pebs_sample_layout l;
	uint64_t lost, gaps, ins, bad;
	bool after_gap[MAX_CPUS];
};

static int on_gap_record(void *arg, const struct perf_event_header *ev,
			 uint64_t time)
{
	struct gaps *g = arg;
	struct pebs_sample s;
	uint64_t lost;
	int32_t np[2];

	(void)time;
	if ((ev->type != PERF_RECORD_SWITCH_CPU_WIDE &&
	     ev->type != PERF_RECORD_LOST) ||
	    pebs_sample__decode_id(&g->l, ev, &s) || s.cpu >= MAX_CPUS)
		return 0;
	if (ev->type == PERF_RECORD_LOST) {
		if ((int32_t)s.tid != -1 || ev->size < sizeof(*ev) + 16)
			return 0;	/* the kernel's: samples lost */
		memcpy(&lost, (const char *)(ev + 1) + 8, sizeof(lost));
		g->lost += lost;
		g->gaps++;
		g->after_gap[s.cpu] = true;
		return 0;
	}
	if (ev->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		g->bad += g->after_gap[s.cpu];	/* an out right after a gap */
		return 0;
	}
	memcpy(np, ev + 1, sizeof(np));
	g->ins++;
	if (g->after_gap[s.cpu] && (np[0] != -1 || np[1] != -1))
		g->bad++;
	g->after_gap[s.cpu] = false;
	return 0;
}

static int do_gaps(const char *path)
{
	static struct gaps g;
	const struct perf_event_attr *a;
	struct pebs_perfdata *pd;

	if (pebs_perfdata__open(path, &pd))
		fail("%s", pebs_errmsg());
	a = pebs_perfdata__attr(pd, 0, NULL, NULL);
	if (!a || pebs_sample_layout__init(&g.l, a))
		fail("%s: no event to decode its records with", path);
	if (pebs_ordered__process(pd, on_gap_record, &g, NULL))
		fail("%s: %s", path, pebs_errmsg());
	pebs_perfdata__close(pd);
	printf("lost=%llu gaps=%llu ins=%llu bad=%llu\n",
	       (unsigned long long)g.lost, (unsigned long long)g.gaps,
	       (unsigned long long)g.ins, (unsigned long long)g.bad);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return do_run(argc > 2 ? (unsigned int)atoi(argv[2]) : 0);
	if (argc == 4 && !strcmp(argv[1], "check"))
		return do_check(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "gaps"))
		return do_gaps(argv[2]);
	fail("usage: switch-token run [CPU] | check FILE LOG | gaps FILE");
}
