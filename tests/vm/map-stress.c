// SPDX-License-Identifier: MIT
/*
 * map-stress - the read protocol of /dev/pebs_map under load, run in the
 * qemu guest by tests/vm/guest/14-smp-readers.sh and 15-cpu-hotplug.sh
 * (static binary /pebs/map-stress; the module must be loaded).
 *
 *   map-stress readers MS [NREAD [NCHURN]]
 *	NCHURN threads (default 8) switch as fast as they can (pairs
 *	ping-ponging a byte over pipes, with sched_yield and short sleeps
 *	mixed in) while NREAD reader threads (default 8) copy every slot
 *	and walk every CPU's history for MS milliseconds.
 *   map-stress hotplug MS ROUNDS
 *	the same, while the main thread takes CPUs offline and back
 *	online ROUNDS times (CPU 1, 2, ... in turn; CPU 0 stays).
 *   map-stress churn MS [NCHURN]
 *	only the switching load, for MS ms or until SIGTERM (the load
 *	under which 16-load-cycles.sh loads and unloads the module).
 *
 * What every reader checks, on every consistent copy of a slot (the
 * protocol of include/pebs_map.h, read through vm-map.h):
 *  - the slot names its own CPU; tgid and pid are both -1 or neither;
 *    a churn thread's slot carries its own tgid and comm (no torn mix);
 *  - seq is even and only grows; two copies with the same seq are equal
 *    byte for byte (a write always moves seq); seq / 2 is switches or
 *    switches + 1 (the one seeding write at load moves no counter);
 *  - hist_head == switches, and switches and last_switch_ns only grow;
 *  - the newest history entry (hist_head - 1), when still stable, holds
 *    exactly the slot's tgid, pid and last_switch_ns;
 *  - a CPU that was never online reads -1 and 0 switches;
 *  - history entries come in time order per CPU (the order restarts
 *    after an overrun), and churn threads' entries pair tid and tgid.
 * Raw odd seq values seen in passing are counted: evidence that readers
 * really met writers half-way.
 *
 * Hotplug, for each round: after `echo 0 > .../cpuN/online` returns,
 * slot N must show the idle task (pid 0, tgid 0, "swapper/N": the last
 * switch a dying CPU makes is to its idle task, which the module records
 * once the CPU is dead, see pebs_map_cpu_dead()) and stay byte for byte
 * the same while the CPU is offline; after
 * `echo 1`, a thread pinned to N must find itself in slot N, and
 * switches (the history head) must have moved on from the offline value.
 *
 * Prints "ok <figures>" (exit 0) or "FAIL <reason>" (exit 1).
 */
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include "vm-map.h"

#define MAX_CHURN 64
#define MAX_READ 64

static unsigned int nchurn = 8, nread = 8;
static pid_t churn_tid[MAX_CHURN];
static int churn_pipe[MAX_CHURN][2];	/* churn thread i reads [i][0] */
static volatile bool stop;
static volatile sig_atomic_t got_term;
static bool online0[MAX_CPUS];		/* online when we started */

/* ---- the load ---------------------------------------------------------- */

static void *churn_main(void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg, seed = i * 7919 + 1;
	unsigned int partner = i ^ 1, n;
	bool paired = partner < nchurn;
	char name[16], b = 0;

	snprintf(name, sizeof(name), "churn-%u", i);
	prctl(PR_SET_NAME, name);
	/* switch away once: no slot shows our tid under the old comm */
	sleep_us(1000);
	__atomic_store_n(&churn_tid[i], gettid(), __ATOMIC_RELEASE);
	for (n = 0; !stop; n++) {
		if (paired && (i & 1) == 0 &&
		    write(churn_pipe[partner][1], &b, 1) != 1)
			break;
		if (paired && read(churn_pipe[i][0], &b, 1) != 1)
			break;
		if (paired && (i & 1) && write(churn_pipe[partner][1], &b, 1) != 1)
			break;
		if (!paired || n % 64 == 0)
			sched_yield();
		if (n % 512 == 0 || (!paired && rand_r(&seed) % 4 == 0))
			sleep_us(rand_r(&seed) % 200);
	}
	return NULL;
}

static pthread_t churn_thr[MAX_CHURN];

static void churn_start(void)
{
	unsigned int i;

	for (i = 0; i < nchurn; i++)
		if (pipe(churn_pipe[i]))
			fail("pipe: %s", strerror(errno));
	for (i = 0; i < nchurn; i++)
		if (pthread_create(&churn_thr[i], NULL, churn_main,
				   (void *)(uintptr_t)i))
			fail("pthread_create");
	for (i = 0; i < nchurn; i++)
		while (!__atomic_load_n(&churn_tid[i], __ATOMIC_ACQUIRE))
			sched_yield();
}

/* stop is set: wake any thread blocked on its pipe, then join them all */
static void churn_join(void)
{
	unsigned int i;
	char b = 1;

	for (i = 0; i < nchurn; i++)
		if (write(churn_pipe[i][1], &b, 1) != 1)
			fail("wake churn-%u: %s", i, strerror(errno));
	for (i = 0; i < nchurn; i++)
		pthread_join(churn_thr[i], NULL);
}


/* ---- the readers ------------------------------------------------------- */

struct reader {
	pthread_t thread;
	const struct map *m;
	struct pebs_map_slot *last;	/* per CPU: the last consistent copy */
	bool *seen;			/* per CPU: last[] holds one */
	uint64_t *last_t, *cursor;	/* per CPU: history time and cursor */
	uint64_t snaps, same_seq, newest, entries, lost, odd, retries;
	char why[240];
};

#define BAD(r, ...) \
	({ snprintf((r)->why, sizeof((r)->why), __VA_ARGS__); false; })

/* the newest entry against the slot copy it was published with */
static bool check_newest(struct reader *r, unsigned int c,
			 const struct pebs_map_slot *s)
{
	const struct map *m = r->m;
	const struct pebs_map_switch *e;
	struct pebs_map_switch copy;
	uint64_t n = s->hist_head - 1, after;

	if (!s->hist_head)
		return true;
	e = &m->hist[(size_t)c * m->len + (n & (m->len - 1))];
	copy.time = PEBS_READ_ONCE(e->time);
	copy.tgid = PEBS_READ_ONCE(e->tgid);
	copy.pid = PEBS_READ_ONCE(e->pid);
	pebs_smp_rmb();	/* the entry before the second head load */
	after = PEBS_READ_ONCE(m->slots[c].hist_head);
	if (n + m->len <= after)
		return true;	/* overwritten meanwhile: nothing to say */
	r->newest++;
	if (copy.time != s->last_switch_ns || copy.tgid != s->tgid ||
	    copy.pid != s->pid)
		return BAD(r, "cpu %u: entry %llu (time %llu tgid %d pid %d) is not the slot's last switch (time %llu tgid %d pid %d)",
			   c, (unsigned long long)n,
			   (unsigned long long)copy.time, copy.tgid, copy.pid,
			   (unsigned long long)s->last_switch_ns, s->tgid,
			   s->pid);
	return true;
}

static bool check_slot(struct reader *r, unsigned int c,
		       const struct pebs_map_slot *s)
{
	struct pebs_map_slot *l = &r->last[c];

	if (s->cpu != c || !churn_pair_ok(churn_tid, nchurn, s->tgid, s->pid, s->comm) ||
	    (s->seq & 1) || s->hist_head != s->switches ||
	    s->seq / 2 < s->switches || s->seq / 2 - s->switches > 1)
		return BAD(r, "torn slot %u: seq %u cpu %u tgid %d pid %d comm %.16s switches %llu head %llu",
			   c, s->seq, s->cpu, s->tgid, s->pid, s->comm,
			   (unsigned long long)s->switches,
			   (unsigned long long)s->hist_head);
	if (!online0[c] &&
	    (s->tgid != -1 || s->switches))
		return BAD(r, "cpu %u was never online but reads tgid %d, %llu switches",
			   c, s->tgid, (unsigned long long)s->switches);
	if (!r->seen[c]) {
		r->seen[c] = true;
	} else if (s->seq == l->seq) {
		r->same_seq++;
		if (memcmp(s, l, sizeof(*s)))
			return BAD(r, "slot %u: two copies with seq %u differ (pid %d/%d, switches %llu/%llu)",
				   c, s->seq, l->pid, s->pid,
				   (unsigned long long)l->switches,
				   (unsigned long long)s->switches);
	} else if (s->seq < l->seq || s->switches < l->switches ||
		   s->last_switch_ns < l->last_switch_ns) {
		return BAD(r, "slot %u went back: seq %u -> %u, switches %llu -> %llu, time %llu -> %llu",
			   c, l->seq, s->seq,
			   (unsigned long long)l->switches,
			   (unsigned long long)s->switches,
			   (unsigned long long)l->last_switch_ns,
			   (unsigned long long)s->last_switch_ns);
	}
	*l = *s;
	return check_newest(r, c, s);
}

static bool check_history(struct reader *r, unsigned int c)
{
	struct pebs_map_switch e[512];
	uint64_t lost = 0;
	unsigned int k, got;

	got = hist_copy(r->m, c, &r->cursor[c], e, 512, &lost);
	if (lost)
		r->last_t[c] = 0;	/* a gap: the order restarts */
	r->lost += lost;
	for (k = 0; k < got; k++) {
		if (e[k].time < r->last_t[c] ||
		    !churn_pair_ok(churn_tid, nchurn, e[k].tgid, e[k].pid, NULL))
			return BAD(r, "history of cpu %u: time %llu after %llu, tgid %d pid %d",
				   c, (unsigned long long)e[k].time,
				   (unsigned long long)r->last_t[c],
				   e[k].tgid, e[k].pid);
		r->last_t[c] = e[k].time;
	}
	r->entries += got;
	return true;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	unsigned int c;

	while (!stop) {
		for (c = 0; c < r->m->nr; c++) {
			struct pebs_map_slot s;

			if (PEBS_READ_ONCE(r->m->slots[c].seq) & 1)
				r->odd++;
			if (slot_read(r->m, c, &s)) {
				r->retries++;
				continue;
			}
			r->snaps++;
			if (!check_slot(r, c, &s) || !check_history(r, c))
				return NULL;
		}
	}
	return NULL;
}

/* ---- hotplug ----------------------------------------------------------- */

static void set_online(unsigned int cpu, int on)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online",
		 cpu);
	f = fopen(path, "w");
	if (!f)
		fail("open %s: %s", path, strerror(errno));
	if (fprintf(f, "%d\n", on) < 0 || fclose(f))
		fail("echo %d > %s: %s", on, path, strerror(errno));
}

static void pin_all(void)
{
	cpu_set_t set;
	unsigned int c;

	CPU_ZERO(&set);
	for (c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* one round on @cpu: offline, check the frozen idle slot, online */
static void hotplug_round(const struct map *m, unsigned int cpu)
{
	struct pebs_map_slot a, b;
	char idle[16];
	unsigned int i;
	pid_t me = gettid();

	set_online(cpu, 0);
	a = slot_get(m, cpu);
	sleep_us(20000);
	b = slot_get(m, cpu);
	snprintf(idle, sizeof(idle), "swapper/%u", cpu);
	if (a.pid != 0 || a.tgid != 0 || strncmp(a.comm, idle, 16) ||
	    a.hist_head != a.switches)
		fail("offline cpu %u: slot shows tgid %d pid %d comm %.16s, not its idle task",
		     cpu, a.tgid, a.pid, a.comm);
	if (memcmp(&a, &b, sizeof(a)))
		fail("offline cpu %u: slot changed (switches %llu -> %llu)", cpu,
		     (unsigned long long)a.switches,
		     (unsigned long long)b.switches);
	set_online(cpu, 1);
	pin_to(cpu);
	for (i = 0; i < 1000; i++) {
		b = slot_get(m, cpu);
		if (b.pid == me)
			break;
		sleep_us(1000);	/* switch away and back in */
	}
	pin_all();
	if (b.pid != me)
		fail("cpu %u back online: a thread pinned there never saw itself in its slot (tid %d, slot pid %d)",
		     cpu, me, b.pid);
	if (b.switches <= a.switches || b.hist_head <= a.hist_head)
		fail("cpu %u back online: history did not resume (switches %llu -> %llu)",
		     cpu, (unsigned long long)a.switches,
		     (unsigned long long)b.switches);
}

/* ---- commands ---------------------------------------------------------- */

static int cmd_stress(unsigned int ms, unsigned int rounds)
{
	static struct reader rd[MAX_READ];
	uint64_t snaps = 0, same = 0, newest = 0, entries = 0, lost = 0;
	uint64_t odd = 0, retries = 0, t_end;
	unsigned int i, r, ncpu = 0, hot[MAX_CPUS], nhot = 0;
	struct map m;
	char path[96];

	map_open(&m);
	read_cpulist("/sys/devices/system/cpu/online", online0, MAX_CPUS);
	for (i = 0; i < MAX_CPUS && i < m.nr; i++) {
		ncpu += online0[i];
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/online", i);
		if (i && online0[i] && !access(path, W_OK))
			hot[nhot++] = i;
	}
	if (rounds && !nhot)
		fail("no CPU can go offline here (one CPU, or no CONFIG_HOTPLUG_CPU)");
	churn_start();
	for (i = 0; i < nread; i++) {
		rd[i].m = &m;
		rd[i].last = calloc(m.nr, sizeof(*rd[i].last));
		rd[i].seen = calloc(m.nr, sizeof(bool));
		rd[i].last_t = calloc(m.nr, sizeof(uint64_t));
		rd[i].cursor = calloc(m.nr, sizeof(uint64_t));
		if (!rd[i].last || !rd[i].seen || !rd[i].last_t || !rd[i].cursor)
			fail("out of memory");
		if (pthread_create(&rd[i].thread, NULL, reader_main, &rd[i]))
			fail("pthread_create");
	}
	t_end = now_ns() + ms * 1000000ull;
	for (r = 0; r < rounds; r++) {
		sleep_us(ms * 1000 / (rounds + 1));
		hotplug_round(&m, hot[r % nhot]);
	}
	while (now_ns() < t_end)
		sleep_us(10000);
	stop = true;
	churn_join();
	for (i = 0; i < nread; i++) {
		pthread_join(rd[i].thread, NULL);
		if (rd[i].why[0])
			fail("reader %u: %s", i, rd[i].why);
		snaps += rd[i].snaps;
		same += rd[i].same_seq;
		newest += rd[i].newest;
		entries += rd[i].entries;
		lost += rd[i].lost;
		odd += rd[i].odd;
		retries += rd[i].retries;
	}
	if (!entries || !newest)
		fail("readers saw no history (%llu entries, %llu newest checks)",
		     (unsigned long long)entries, (unsigned long long)newest);
	if (retries)
		fail("%llu slot reads found no consistent copy within a second",
		     (unsigned long long)retries);
	printf("ok cpus=%u readers=%u churn=%u ms=%u snapshots=%llu same_seq=%llu newest=%llu entries=%llu overrun=%llu odd_seen=%llu",
	       ncpu, nread, nchurn, ms, (unsigned long long)snaps,
	       (unsigned long long)same, (unsigned long long)newest,
	       (unsigned long long)entries, (unsigned long long)lost,
	       (unsigned long long)odd);
	if (rounds)
		printf(" hotplug_rounds=%u cpus_cycled=%u", rounds,
		       nhot < rounds ? nhot : rounds);
	printf("\n");
	map_close(&m);
	return 0;
}

static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static int cmd_churn(unsigned int ms)
{
	uint64_t t_end = now_ns() + ms * 1000000ull;

	signal(SIGTERM, on_term);
	churn_start();
	while (!got_term && now_ns() < t_end)
		sleep_us(10000);
	stop = true;
	churn_join();
	printf("ok churn=%u\n", nchurn);
	return 0;
}

static unsigned int arg_num(int argc, char **argv, int i, unsigned int dflt,
			    unsigned int max)
{
	unsigned long v;
	char *end;

	if (i >= argc)
		return dflt;
	v = strtoul(argv[i], &end, 10);
	if (*end || !*argv[i] || v > max) {
		fprintf(stderr, "map-stress: '%s' is not a number up to %u\n",
			argv[i], max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	unsigned int ms = arg_num(argc, argv, 2, 2000, 3600000);

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "readers")) {
		nread = arg_num(argc, argv, 3, 8, MAX_READ);
		nchurn = arg_num(argc, argv, 4, 8, MAX_CHURN);
		if (!nread)
			nread = 1;
		return cmd_stress(ms, 0);
	}
	if (!strcmp(cmd, "hotplug"))
		return cmd_stress(ms, arg_num(argc, argv, 3, 2, 1000));
	if (!strcmp(cmd, "churn")) {
		nchurn = arg_num(argc, argv, 3, 8, MAX_CHURN);
		return cmd_churn(ms);
	}
	fprintf(stderr,
		"usage: map-stress readers MS [NREAD [NCHURN]] | hotplug MS ROUNDS | churn MS [NCHURN]\n");
	return 2;
}
