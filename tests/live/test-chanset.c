// SPDX-License-Identifier: MIT
/*
 * test-chanset - channel sets on this host with page-fault sampling:
 * exits of short-lived children, set difference, -ESRCH, samples of
 * inherited children, lost records, wrapped records, many samples per
 * drain, one ring per CPU shared by events and tasks, a dummy tracking
 * event's side-band while the sampled event is disabled, an event closed
 * and opened again.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

#define ST_PF (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define NR_KIDS 4
#define KID_PAGES 32

static size_t ps;

static void page_faults(struct pebs_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "page-faults");
	strcpy(ev->pmu, "perf");
	ev->flags = PEBS_EVENT_SOFTWARE;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
}

/* two events: page-faults, then cpu-clock */
static void faults_and_clock(struct pebs_event evs[2])
{
	page_faults(&evs[0]);
	page_faults(&evs[1]);
	evs[1].attr.config = PERF_COUNT_SW_CPU_CLOCK;
	strcpy(evs[1].name, "cpu-clock");
}

/* skip when perf_event_open itself is unavailable here */
static void add_or_skip(struct pebs_chanset *set, int target)
{
	int err = pebs_chanset__add(set, target);

	if (err == -ENOSYS || err == -EACCES || err == -EPERM ||
	    err == -ENOENT) {
		print_message("# skip: %s\n", pebs_errmsg());
		skip();
	}
	if (err)
		fail_msg("pebs_chanset__add(%d): %d %s", target, err,
			 pebs_errmsg());
}

static char *map_pages(unsigned int n)
{
	char *p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	/* one fault per 4 KiB page: no transparent huge pages */
	madvise(p, n * ps, MADV_NOHUGEPAGE);
	return p;
}

static void touch(char *p, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i * ps] = 1;
}

/*
 * A child that waits for a byte on @go, touches KID_PAGES fresh pages
 * (with @grandchild: in a child of its own, waited for), and exits.
 */
static pid_t kid(int go, bool grandchild)
{
	pid_t pid = fork();
	char c;

	assert_true(pid >= 0);
	if (pid)
		return pid;
	if (read(go, &c, 1) != 1)
		_exit(2);
	if (grandchild) {
		pid_t g = fork();

		if (g < 0)
			_exit(3);
		if (g) {
			waitpid(g, NULL, 0);
			_exit(0);
		}
	}
	touch(map_pages(KID_PAGES), KID_PAGES);
	_exit(0);
}

struct tally {
	pid_t pids[NR_KIDS];
	unsigned int samples[NR_KIDS];	/* by target pid */
	unsigned int others;		/* samples of other pids */
	unsigned int exits[NR_KIDS];
	unsigned int nr_exits;
	bool late;			/* a sample after its exit */
	uint64_t lost;
	unsigned int lost_calls;
	unsigned int records;
	unsigned int sideband[2];	/* by event: page-faults, cpu-clock
					   (or the dummy) */
};

static int kid_index(const struct tally *t, int pid)
{
	for (int i = 0; i < NR_KIDS; i++)
		if (t->pids[i] == pid)
			return i;
	return -1;
}

static int on_sample(void *ctx, struct pebs_channel *ch,
		     const struct pebs_sample *s,
		     const struct perf_event_header *raw)
{
	struct tally *t = ctx;
	int i = kid_index(t, pebs_channel__pid(ch));

	assert_int_equal(raw->type, PERF_RECORD_SAMPLE);
	assert_true(s->present & PERF_SAMPLE_TID);
	if (i < 0)
		fail_msg("sample of a channel on pid %d, not a target",
			 (int)pebs_channel__pid(ch));
	if (t->exits[i])
		t->late = true;
	if ((pid_t)s->pid == t->pids[i])
		t->samples[i]++;
	else
		t->others++;
	return 0;
}

static void on_exit_cb(void *ctx, int target)
{
	struct tally *t = ctx;
	int i = kid_index(t, target);

	if (i < 0)
		fail_msg("exit of %d, not a target", target);
	t->exits[i]++;
	t->nr_exits++;
}

static void on_lost(void *ctx, struct pebs_channel *ch, uint64_t lost)
{
	struct tally *t = ctx;

	(void)ch;
	t->lost += lost;
	t->lost_calls++;
}

static int on_record(void *ctx, struct pebs_channel *ch,
		     const struct perf_event_header *ev)
{
	struct tally *t = ctx;

	assert_int_not_equal(ev->type, PERF_RECORD_SAMPLE);
	t->records++;
	switch (ev->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_SWITCH:
		t->sideband[pebs_channel__event(ch)->attr.config ==
			    PERF_COUNT_SW_CPU_CLOCK ||
			    pebs_channel__event(ch)->attr.config ==
			    PERF_COUNT_SW_DUMMY]++;
		break;
	}
	return 0;
}

static const PEBS_OPTS(pebs_chanset_cbs, cbs,
	.on_sample = on_sample,
	.on_record = on_record,
	.on_lost = on_lost,
	.on_exit = on_exit_cb,
);

/* poll until every kid's exit was reported (bounded: 60 s) */
static void wait_exits(struct pebs_chanset *set, struct tally *t,
		       unsigned int nr)
{
	for (int i = 0; i < 600 && t->nr_exits < nr; i++) {
		int n = pebs_chanset__poll(set, 100, &cbs, t);

		if (n < 0)
			fail_msg("poll: %d %s", n, pebs_errmsg());
	}
	if (t->nr_exits < nr)
		fail_msg("%u of %u exits reported in 60 s", t->nr_exits, nr);
	/* no second report, no record after the report */
	for (int i = 0; i < 3; i++)
		assert_true(pebs_chanset__poll(set, 50, &cbs, t) >= 0);
	assert_true(pebs_chanset__drain(set, &cbs, t) >= 0);
	for (unsigned int i = 0; i < nr; i++)
		assert_int_equal(t->exits[i], 1);
	assert_false(t->late);
}

static void reap(const pid_t *pids, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int status;

		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
}

/* a pid that existed and is gone (reaped) */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void test_exits(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF);
	struct pebs_chanset *set;
	struct pebs_event ev;
	struct tally t = { 0 };
	char want[32];
	int go[2];
	pid_t gone;

	(void)state;
	page_faults(&ev);
	assert_int_equal(pipe(go), 0);
	for (int i = 0; i < NR_KIDS; i++)
		t.pids[i] = kid(go[0], false);
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, &o,
					   &set), 0);
	for (int i = 0; i < NR_KIDS; i++)
		add_or_skip(set, t.pids[i]);
	assert_int_equal(pebs_chanset__nr_targets(set), NR_KIDS);
	assert_int_equal(pebs_chanset__nr_channels(set), NR_KIDS);
	assert_int_equal(pebs_chanset__add(set, t.pids[0]), -EEXIST);

	gone = dead_pid();
	assert_int_equal(pebs_chanset__add(set, gone), -ESRCH);
	snprintf(want, sizeof(want), "pid %d", (int)gone);
	assert_non_null(strstr(pebs_errmsg(), want));
	assert_int_equal(pebs_chanset__nr_targets(set), NR_KIDS);

	assert_int_equal(write(go[1], "gogo", NR_KIDS), NR_KIDS);
	wait_exits(set, &t, NR_KIDS);
	assert_int_equal(pebs_chanset__nr_targets(set), 0);
	for (int i = 0; i < NR_KIDS; i++)
		if (t.samples[i] < KID_PAGES)
			fail_msg("kid %d: %u samples, %u pages touched", i,
				 t.samples[i], KID_PAGES);
	assert_int_equal(t.lost, 0);
	print_message("# %d exits, samples %u %u %u %u\n", NR_KIDS,
		      t.samples[0], t.samples[1], t.samples[2], t.samples[3]);
	reap(t.pids, NR_KIDS);
	close(go[0]);
	close(go[1]);
	pebs_chanset__delete(set);
}

/*
 * inherit: samples of a grandchild arrive on the child's channels and
 * are delivered (not dropped for their pid); the exit is reported once,
 * after the last of them.
 */
static void test_inherit(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF,
		  .inherit = true, .task_records = true);
	struct pebs_chanset *set;
	struct pebs_event ev;
	struct tally t = { 0 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int go[2];

	(void)state;
	page_faults(&ev);
	assert_int_equal(pipe(go), 0);
	t.pids[0] = kid(go[0], true);
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, &o,
					   &set), 0);
	add_or_skip(set, t.pids[0]);
	/* the kernel maps inherited events per CPU only */
	assert_int_equal(pebs_chanset__nr_channels(set), ncpu);
	for (long i = 0, last = -1; i < ncpu; i++) {
		int cpu = pebs_channel__cpu(pebs_chanset__channel(set, i));

		assert_true(cpu > last);	/* one per online CPU */
		last = cpu;
	}
	assert_int_equal(write(go[1], "g", 1), 1);
	wait_exits(set, &t, 1);
	if (t.others < KID_PAGES)
		fail_msg("%u samples of the grandchild, %u pages touched",
			 t.others, KID_PAGES);
	assert_true(t.records > 0);	/* FORK, EXIT, COMM... */
	print_message("# child %u samples, grandchild %u, %u records\n",
		      t.samples[0], t.others, t.records);
	reap(t.pids, 1);
	close(go[0]);
	close(go[1]);
	pebs_chanset__delete(set);
}

/*
 * Side-band records (COMM, MMAP, FORK, EXIT, SWITCH) come once, from the
 * first event, as from perf's tracking event; the others sample only.
 */
static void test_sideband_once(void **state)
{
	/* cpu-clock: every 100 us; page faults: 1 in 100000 */
	PEBS_OPTS(pebs_channel_opts, o, .period = 100000,
		  .sample_type = ST_PF, .inherit = true, .task_records = true,
		  .context_switch = true);
	struct pebs_chanset *set;
	struct pebs_event evs[2];
	struct tally t = { 0 };
	int go[2];

	(void)state;
	faults_and_clock(evs);
	assert_int_equal(pipe(go), 0);
	t.pids[0] = kid(go[0], true);
	assert_int_equal(pebs_chanset__new(evs, 2, PEBS_TARGET_TASK, &o,
					   &set), 0);
	add_or_skip(set, t.pids[0]);
	for (unsigned int i = 0; i < pebs_chanset__nr_channels(set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(set, i);
		const struct perf_event_attr *a = pebs_channel__attr(ch);
		bool first = pebs_channel__event(ch)->attr.config ==
			     PERF_COUNT_SW_PAGE_FAULTS;

		assert_int_equal(a->comm, first);
		assert_int_equal(a->mmap2, first);
		assert_int_equal(a->task, first);
		assert_int_equal(a->context_switch, first);
		assert_int_equal(a->inherit, 1);
	}
	assert_int_equal(write(go[1], "g", 1), 1);
	wait_exits(set, &t, 1);
	print_message("# side-band records: %u from page-faults, %u from cpu-clock\n",
		      t.sideband[0], t.sideband[1]);
	assert_true(t.sideband[0] > 0);	/* FORK, EXIT, MMAP of the kid */
	assert_int_equal(t.sideband[1], 0);
	reap(t.pids, 1);
	close(go[0]);
	close(go[1]);
	pebs_chanset__delete(set);
}

/*
 * pebs_chanset__set_tracking: the side-band records of a software dummy
 * (perf's tracking event), kept while page-faults is disabled. Both open
 * disabled and the dummy alone is enabled: the kid may still be faulting
 * its way out of fork() when the events are added (under load it was,
 * and page-faults, enabled then, sampled it).
 */
static void test_tracking_event(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF,
		  .inherit = true, .task_records = true, .disabled = true);
	struct pebs_chanset *set;
	struct pebs_event evs[2];
	struct tally t = { 0 };
	int go[2];

	(void)state;
	page_faults(&evs[0]);
	page_faults(&evs[1]);
	evs[1].attr.config = PERF_COUNT_SW_DUMMY;
	strcpy(evs[1].name, "dummy");
	assert_int_equal(pipe(go), 0);
	t.pids[0] = kid(go[0], true);
	assert_int_equal(pebs_chanset__new(evs, 2, PEBS_TARGET_TASK, &o,
					   &set), 0);
	assert_int_equal(pebs_chanset__set_tracking(set, 2), -EINVAL);
	assert_int_equal(pebs_chanset__set_tracking(set, 1), 0);
	add_or_skip(set, t.pids[0]);
	/* chosen before the targets only */
	assert_int_equal(pebs_chanset__set_tracking(set, 0), -EBUSY);
	for (unsigned int i = 0; i < pebs_chanset__nr_channels(set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(set, i);
		const struct perf_event_attr *a = pebs_channel__attr(ch);
		bool dummy = a->config == PERF_COUNT_SW_DUMMY;

		assert_int_equal(a->comm, dummy);
		assert_int_equal(a->mmap2, dummy);
		assert_int_equal(a->task, dummy);
		/* the sampled event stays off, as in a duty cycle's off
		   window */
		if (dummy)
			assert_int_equal(pebs_channel__enable(ch), 0);
	}
	assert_int_equal(write(go[1], "g", 1), 1);
	wait_exits(set, &t, 1);
	print_message("# side-band records: %u from the dummy, %u from page-faults; %u samples\n",
		      t.sideband[1], t.sideband[0], t.samples[0] + t.others);
	/* FORK, EXIT, MMAP of the kid and its grandchild; no sample */
	assert_true(t.sideband[1] >= 4);
	assert_int_equal(t.sideband[0], 0);
	assert_int_equal(t.samples[0] + t.others, 0);
	reap(t.pids, 1);
	close(go[0]);
	close(go[1]);
	pebs_chanset__delete(set);
}

static bool has_channel(struct pebs_chanset *set, struct pebs_channel *ch)
{
	for (unsigned int i = 0; i < pebs_chanset__nr_channels(set); i++)
		if (pebs_chanset__channel(set, i) == ch)
			return true;
	return false;
}

static struct pebs_channel *channel_of(struct pebs_chanset *set, pid_t pid)
{
	for (unsigned int i = 0; i < pebs_chanset__nr_channels(set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(set, i);

		if (pebs_channel__pid(ch) == pid)
			return ch;
	}
	return NULL;
}

static void test_update(void **state)
{
	struct pebs_event evs[2];
	struct pebs_chanset *set;
	struct pebs_channel *b;
	pid_t p[3];
	int go[2];

	(void)state;
	faults_and_clock(evs);
	assert_int_equal(pipe(go), 0);
	for (int i = 0; i < 3; i++)
		p[i] = kid(go[0], false);
	assert_int_equal(pebs_chanset__new(evs, 2, PEBS_TARGET_TASK, NULL,
					   &set), 0);

	add_or_skip(set, p[0]);
	assert_int_equal(pebs_chanset__update(set, (int[]){ p[0], p[1], p[1] },
					      3), 0);
	assert_int_equal(pebs_chanset__nr_targets(set), 2);
	assert_int_equal(pebs_chanset__nr_channels(set), 4);
	b = channel_of(set, p[1]);
	assert_non_null(b);

	assert_int_equal(pebs_chanset__update(set, (int[]){ p[1], p[2] }, 2),
			 0);
	assert_int_equal(pebs_chanset__nr_targets(set), 2);
	assert_true(has_channel(set, b));	/* kept, not reopened */
	assert_null(channel_of(set, p[0]));
	assert_non_null(channel_of(set, p[2]));
	assert_int_equal(pebs_chanset__remove(set, p[0]), -ENOENT);
	assert_int_equal(pebs_chanset__add(set, p[1]), -EEXIST);

	/* all or nothing: a dead pid leaves the set as it was */
	assert_int_equal(pebs_chanset__update(set, (int[]){ p[0], dead_pid() },
					      2), -ESRCH);
	assert_int_equal(pebs_chanset__nr_targets(set), 2);
	assert_true(has_channel(set, b));
	assert_null(channel_of(set, p[0]));

	assert_int_equal(pebs_chanset__disable(set), 0);
	assert_int_equal(pebs_chanset__enable(set), 0);
	assert_null(pebs_chanset__channel(set, 4));
	assert_int_equal(pebs_chanset__update(set, NULL, 0), 0);
	assert_int_equal(pebs_chanset__nr_targets(set), 0);
	assert_int_equal(pebs_chanset__poll(set, 0, &cbs, NULL), 0);

	assert_int_equal(write(go[1], "ggg", 3), 3);
	reap(p, 3);
	close(go[0]);
	close(go[1]);
	pebs_chanset__delete(set);
}

/* the calling process' channel (a TASK target on our own pid) */
static struct pebs_channel *self_channel(struct pebs_chanset *set)
{
	struct pebs_channel *ch = pebs_chanset__channel(set, 0);

	assert_non_null(ch);
	return ch;
}

/*
 * 1 data page, period 1, thousands of faults and no reading: the kernel
 * drops samples and says so with PERF_RECORD_LOST.
 */
static void test_lost(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF,
		  .ring_pages = 1, .disabled = true);
	const unsigned int n = 4096;
	const struct pebs_ring_stats *st;
	struct pebs_chanset *set;
	struct pebs_event ev;
	struct tally t = { 0 };
	int delivered = 0, r;
	char *buf;

	(void)state;
	page_faults(&ev);
	t.pids[0] = getpid();
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, &o,
					   &set), 0);
	add_or_skip(set, getpid());
	buf = map_pages(n + 1);
	assert_int_equal(pebs_chanset__enable(set), 0);
	touch(buf, n);
	r = pebs_chanset__drain(set, &cbs, &t);
	assert_true(r > 0);
	delivered += r;
	/* the kernel writes the LOST record with the next event that fits */
	touch(buf + n * ps, 1);
	assert_int_equal(pebs_chanset__disable(set), 0);
	r = pebs_chanset__drain(set, &cbs, &t);
	assert_true(r >= 0);
	delivered += r;

	st = pebs_ring__stats(pebs_channel__ring(self_channel(set)));
	assert_true(t.lost > 0);
	assert_true(t.lost_calls > 0);
	assert_int_equal(t.lost, st->lost);
	assert_int_equal(t.lost_calls, st->lost_records);
	assert_int_equal(delivered, st->samples);
	if (delivered + t.lost < n + 1)
		fail_msg("%d delivered + %llu lost < %u faults", delivered,
			 (unsigned long long)t.lost, n + 1);
	print_message("# %u faults: %d samples, %llu lost in %u records\n",
		      n + 1, delivered, (unsigned long long)t.lost,
		      t.lost_calls);
	/* the kernel's per-event count (Linux 6.0+) says the same */
	{
		uint64_t kl = 0;
		int err = pebs_channel__lost(self_channel(set), &kl);

		if (err == -EOPNOTSUPP)
			print_message("# no PERF_FORMAT_LOST here: %s\n",
				      pebs_errmsg());
		else
			assert_int_equal(err, 0);
		if (!err)
			assert_int_equal(kl, t.lost);
		if (!err) {
			/* perf's LOST_SAMPLES: lost, then the sample_id */
			uint64_t rec[8], id;
			struct perf_event_header h;
			int size = pebs_channel__lost_record(self_channel(set),
							     rec, sizeof(rec));

			/* sample_id: TID TIME CPU IDENTIFIER */
			assert_int_equal(size, 8 + 8 + 4 * 8);
			memcpy(&h, rec, sizeof(h));
			assert_int_equal(h.type, PERF_RECORD_LOST_SAMPLES);
			assert_int_equal(h.size, size);
			assert_int_equal(rec[1], t.lost);
			pebs_channel__id(self_channel(set), &id);
			assert_int_equal(rec[5], id);	/* IDENTIFIER last */
			assert_int_equal(pebs_channel__lost_record(
				self_channel(set), rec, 16), -ENOSPC);
		}
	}
	munmap(buf, (n + 1) * ps);
	pebs_chanset__delete(set);
}

struct addrs {
	char *buf;
	unsigned int n;
	unsigned int *seen;
	unsigned int in_range;
};

static int on_sample_addr(void *ctx, struct pebs_channel *ch,
			  const struct pebs_sample *s,
			  const struct perf_event_header *raw)
{
	struct addrs *a = ctx;
	uintptr_t lo = (uintptr_t)a->buf;

	(void)ch;
	(void)raw;
	if (s->addr < lo || s->addr >= lo + a->n * ps)
		return 0;
	assert_int_equal((s->addr - lo) % ps, 0);
	a->seen[(s->addr - lo) / ps]++;
	a->in_range++;
	return 0;
}

/*
 * A 2-page ring and 56-byte samples: records wrap around the ring end;
 * every fault is delivered exactly once, several per drain.
 */
static void test_wrap(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF,
		  .ring_pages = 2);
	const PEBS_OPTS(pebs_chanset_cbs, acbs, .on_sample = on_sample_addr);
	const unsigned int n = 1000, chunk = 40;
	const struct pebs_ring_stats *st;
	struct pebs_chanset *set;
	struct pebs_event ev;
	struct addrs a = { .n = n };
	int most = 0;

	(void)state;
	page_faults(&ev);
	a.seen = calloc(n, sizeof(*a.seen));
	assert_non_null(a.seen);
	a.buf = map_pages(n);
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, &o,
					   &set), 0);
	add_or_skip(set, getpid());
	for (unsigned int i = 0; i < n; i += chunk) {
		int r;

		touch(a.buf + i * ps, chunk);
		r = pebs_chanset__drain(set, &acbs, &a);
		assert_true(r >= 0);
		most = r > most ? r : most;
	}
	st = pebs_ring__stats(pebs_channel__ring(self_channel(set)));
	for (unsigned int i = 0; i < n; i++)
		if (a.seen[i] != 1)
			fail_msg("page %u delivered %u times", i, a.seen[i]);
	assert_int_equal(st->lost, 0);
	assert_true(st->wrapped > 0);
	assert_true(most >= (int)chunk);
	print_message("# %u faults, %llu wrapped records, up to %d per drain\n",
		      n, (unsigned long long)st->wrapped, most);
	munmap(a.buf, n * ps);
	free(a.seen);
	pebs_chanset__delete(set);
}

static int count_cb(void *ctx, struct pebs_channel *ch,
		    const struct pebs_sample *s,
		    const struct perf_event_header *raw)
{
	unsigned int *n = ctx;

	(void)raw;
	assert_int_equal(s->cpu, pebs_channel__cpu(ch) < 0 ? s->cpu :
			 (uint32_t)pebs_channel__cpu(ch));
	++*n;
	return 0;
}

/* a ring past its watermark makes poll return with its samples */
static void test_poll_watermark(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF,
		  .ring_pages = 4, .watermark = 1024);
	const PEBS_OPTS(pebs_chanset_cbs, ccbs, .on_sample = count_cb);
	struct pebs_chanset *set;
	struct pebs_event ev;
	unsigned int n = 0;
	char *buf;
	int r = 0;

	(void)state;
	page_faults(&ev);
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, &o,
					   &set), 0);
	add_or_skip(set, getpid());
	buf = map_pages(64);		/* 64 x 56 bytes > 1024 */
	touch(buf, 64);
	/* the wakeup is an irq_work: bounded wait, 60 s */
	for (int i = 0; i < 60 && !r; i++) {
		r = pebs_chanset__poll(set, 1000, &ccbs, &n);
		assert_true(r >= 0);
	}
	assert_true(r >= 64);
	assert_int_equal(n, (unsigned int)r);
	munmap(buf, 64 * ps);
	pebs_chanset__delete(set);
}

/* CPU targets: every sample comes from its channel's CPU */
static void test_cpu_targets(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 100000, /* 100 us */
		  .sample_type = ST_PF, .watermark = 512);
	const PEBS_OPTS(pebs_chanset_cbs, ccbs, .on_sample = count_cb);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pebs_chanset *set;
	struct pebs_event ev;
	unsigned int n = 0;
	int err;

	(void)state;
	page_faults(&ev);
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	strcpy(ev.name, "cpu-clock");
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_CPU, &o,
					   &set), 0);
	for (long c = 0; c < ncpu; c++)
		add_or_skip(set, (int)c);
	assert_int_equal(pebs_chanset__nr_channels(set), ncpu);
	/* this thread's own spinning between polls feeds its CPU */
	for (int i = 0; i < 6000 && n < 20; i++) {
		volatile unsigned long x = 0;

		for (unsigned long k = 0; k < 1000000; k++)
			x += k;
		err = pebs_chanset__poll(set, 0, &ccbs, &n);
		assert_true(err >= 0);
		if (!(i % 100))
			assert_true(pebs_chanset__drain(set, &ccbs, &n) >= 0);
	}
	assert_true(n >= 20);
	pebs_chanset__delete(set);
}

/* a negative callback return stops the drain and is returned */
static int stop_cb(void *ctx, struct pebs_channel *ch,
		   const struct pebs_sample *s,
		   const struct perf_event_header *raw)
{
	unsigned int *calls = ctx;

	(void)ch;
	(void)s;
	(void)raw;
	return ++*calls == 3 ? -ECANCELED : 0;
}

static void test_callback_stops(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF);
	const PEBS_OPTS(pebs_chanset_cbs, scbs, .on_sample = stop_cb);
	struct pebs_chanset *set;
	struct pebs_event ev;
	unsigned int calls = 0;
	char *buf;

	(void)state;
	page_faults(&ev);
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, &o,
					   &set), 0);
	add_or_skip(set, getpid());
	buf = map_pages(16);
	touch(buf, 16);
	assert_int_equal(pebs_chanset__drain(set, &scbs, &calls), -ECANCELED);
	assert_int_equal(calls, 3);
	/* the rest is still there, from the 4th on */
	assert_true(pebs_chanset__drain(set, &scbs, &calls) >= 13);
	munmap(buf, 16 * ps);
	pebs_chanset__delete(set);
}

static void test_bad_args(void **state)
{
	struct pebs_chanset *set = NULL;
	struct pebs_event ev;

	(void)state;
	page_faults(&ev);
	assert_int_equal(pebs_chanset__new(&ev, 0, PEBS_TARGET_TASK, NULL,
					   &set), -EINVAL);
	{
		PEBS_OPTS(pebs_channel_opts, o, .ring_pages = 5);

		assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK,
						   &o, &set), -EINVAL);
	}
	assert_null(set);
	assert_int_equal(pebs_chanset__new(&ev, 1, PEBS_TARGET_CPU, NULL,
					   &set), 0);
	assert_int_equal(pebs_chanset__add(set, -1), -EINVAL);
	assert_int_equal(pebs_chanset__remove(set, 0), -ENOENT);
	assert_true(pebs_chanset__epoll_fd(set) >= 0);
	pebs_chanset__delete(set);
	pebs_chanset__delete(NULL);
}

/* each sample reaches the channel its IDENTIFIER names */
struct owned {
	unsigned int by_ev[2];		/* page-faults, cpu-clock */
	unsigned int wrong;
	unsigned int kid[NR_KIDS];	/* samples of each kid's pid */
	const pid_t *pids;
	unsigned int exits;
};

static int on_sample_owned(void *ctx, struct pebs_channel *ch,
			   const struct pebs_sample *s,
			   const struct perf_event_header *raw)
{
	struct owned *o = ctx;
	uint64_t id;

	(void)raw;
	pebs_channel__id(ch, &id);
	if (s->id != id || (pebs_channel__cpu(ch) >= 0 &&
			    s->cpu != (uint32_t)pebs_channel__cpu(ch)))
		o->wrong++;
	o->by_ev[pebs_channel__event(ch)->attr.config ==
		 PERF_COUNT_SW_CPU_CLOCK]++;
	for (int i = 0; o->pids && i < NR_KIDS; i++)
		if (o->pids[i] == pebs_channel__pid(ch) &&
		    s->pid == (uint32_t)o->pids[i])
			o->kid[i]++;
	return 0;
}

static void on_exit_owned(void *ctx, int target)
{
	(void)target;
	((struct owned *)ctx)->exits++;
}

static const PEBS_OPTS(pebs_chanset_cbs, owned_cbs,
	.on_sample = on_sample_owned,
	.on_exit = on_exit_owned,
);

/* CPU targets, two events: one ring per CPU, samples to their event */
static void test_shared_cpu_rings(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .sample_type = ST_PF,
		  .watermark = 512);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pebs_event evs[2];
	struct pebs_chanset *set;
	struct owned own = { 0 };
	char *buf;

	(void)state;
	faults_and_clock(evs);
	evs[0].attr.sample_period = 1;
	evs[1].attr.sample_period = 100000;	/* 100 us */
	assert_int_equal(pebs_chanset__new(evs, 2, PEBS_TARGET_CPU, &o, &set),
			 0);
	for (long c = 0; c < ncpu; c++)
		add_or_skip(set, (int)c);
	assert_int_equal(pebs_chanset__nr_channels(set), 2 * ncpu);
	assert_int_equal(pebs_chanset__nr_rings(set), ncpu);
	buf = map_pages(64);
	for (int i = 0; i < 3000 && own.by_ev[1] < 20; i++) {
		volatile unsigned long x = 0;

		for (unsigned long k = 0; k < 1000000; k++)
			x += k;
		if (i == 0)
			touch(buf, 64);
		assert_true(pebs_chanset__drain(set, &owned_cbs, &own) >= 0);
	}
	print_message("# %ld rings: %u page-fault, %u cpu-clock samples\n",
		      ncpu, own.by_ev[0], own.by_ev[1]);
	assert_true(own.by_ev[0] >= 64);
	assert_true(own.by_ev[1] >= 20);
	assert_int_equal(own.wrong, 0);
	munmap(buf, 64 * ps);
	pebs_chanset__delete(set);
}

/*
 * Inherited task targets: every event and task of a CPU on one ring;
 * each kid's samples reach its own channels, each exit comes once, and
 * rings stay while other targets use them.
 */
static void test_shared_task_rings(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1, .sample_type = ST_PF,
		  .inherit = true, .task_records = true);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pebs_event evs[2];
	struct pebs_chanset *set;
	pid_t pids[NR_KIDS];
	struct owned own = { .pids = pids };
	int go[2];

	(void)state;
	faults_and_clock(evs);
	assert_int_equal(pipe(go), 0);
	for (int i = 0; i < NR_KIDS; i++)
		pids[i] = kid(go[0], false);
	assert_int_equal(pebs_chanset__new(evs, 2, PEBS_TARGET_TASK, &o,
					   &set), 0);
	for (int i = 0; i < NR_KIDS; i++)
		add_or_skip(set, pids[i]);
	assert_int_equal(pebs_chanset__nr_channels(set), 2 * ncpu * NR_KIDS);
	assert_int_equal(pebs_chanset__nr_rings(set), ncpu);
	/* the first kid's channels own the rings: it goes, they stay */
	assert_int_equal(write(go[1], "g", 1), 1);
	for (int i = 0; i < 600 && !own.exits; i++)
		assert_true(pebs_chanset__poll(set, 100, &owned_cbs, &own) >= 0);
	assert_int_equal(own.exits, 1);
	assert_int_equal(pebs_chanset__nr_rings(set), ncpu);
	assert_int_equal(write(go[1], "ggg", NR_KIDS - 1), NR_KIDS - 1);
	for (int i = 0; i < 600 && own.exits < NR_KIDS; i++)
		assert_true(pebs_chanset__poll(set, 100, &owned_cbs, &own) >= 0);
	assert_int_equal(own.exits, NR_KIDS);
	assert_int_equal(pebs_chanset__nr_targets(set), 0);
	assert_int_equal(pebs_chanset__nr_rings(set), 0);
	for (int i = 0; i < NR_KIDS; i++)
		if (own.kid[i] < KID_PAGES)
			fail_msg("kid %d: %u samples, %u pages touched", i,
				 own.kid[i], KID_PAGES);
	assert_int_equal(own.wrong, 0);
	reap(pids, NR_KIDS);
	close(go[0]);
	close(go[1]);
	pebs_chanset__delete(set);
}

/* without PERF_SAMPLE_IDENTIFIER records cannot be told apart: no sharing */
static void test_no_identifier_no_sharing(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o,
		  .sample_type = ST_PF & ~(uint64_t)PERF_SAMPLE_IDENTIFIER);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pebs_event evs[2];
	struct pebs_chanset *set;

	(void)state;
	faults_and_clock(evs);
	assert_int_equal(pebs_chanset__new(evs, 2, PEBS_TARGET_CPU, &o, &set),
			 0);
	for (long c = 0; c < ncpu; c++)
		add_or_skip(set, (int)c);
	assert_int_equal(pebs_chanset__nr_rings(set), 2 * ncpu);
	pebs_chanset__delete(set);
}


/* the open channels of event @ev (1: the dummy), with @period checked */
static unsigned int count_event(struct pebs_chanset *set, unsigned int ev,
				uint64_t period)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < pebs_chanset__nr_channels(set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(set, i);
		const struct perf_event_attr *a;

		if (!ch || (pebs_channel__event(ch)->attr.config ==
			    PERF_COUNT_SW_DUMMY) != (ev == 1))
			continue;
		a = pebs_channel__attr(ch);
		/* a fixed period's samples do not carry it */
		if (period && (a->freq || a->sample_period != period ||
			       (a->sample_type & PERF_SAMPLE_PERIOD)))
			fail_msg("channel %u: freq %u period %llu sample_type 0x%llx",
				 i, a->freq, (unsigned long long)a->sample_period,
				 (unsigned long long)a->sample_type);
		n++;
	}
	return n;
}

/*
 * pebs_chanset__close_event / __open_event (record --budget's off
 * windows): the rings are the tracking event's, so a closed page-faults
 * channel frees its event (its fd is gone: merely disabled, the kernel
 * keeps the software event's static key and each fault pays); reopened
 * at a fixed period its samples come every period, without
 * PERF_SAMPLE_PERIOD; a task not in the set is added with the event
 * alone, and dropped when it is closed.
 */
static void test_close_reopen(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 1,
		  .sample_type = ST_PF | PERF_SAMPLE_PERIOD, .inherit = true,
		  .task_records = true);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pebs_chanset *set;
	struct pebs_event evs[2];
	struct owned own = { 0 };
	unsigned int before;
	int fds[64], nfd = 0, go[2];
	pid_t kidpid;
	char *buf;

	(void)state;
	page_faults(&evs[0]);
	page_faults(&evs[1]);
	evs[1].attr.config = PERF_COUNT_SW_DUMMY;
	strcpy(evs[1].name, "dummy");
	assert_int_equal(pebs_chanset__new(evs, 2, PEBS_TARGET_TASK, &o,
					   &set), 0);
	assert_int_equal(pebs_chanset__set_tracking(set, 1), 0);
	add_or_skip(set, getpid());
	assert_int_equal(pebs_chanset__nr_rings(set), ncpu);
	for (unsigned int i = 0; i < pebs_chanset__nr_channels(set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(set, i);

		if (pebs_channel__event(ch)->attr.config ==
		    PERF_COUNT_SW_PAGE_FAULTS && nfd < 64)
			fds[nfd++] = pebs_channel__fd(ch);
	}
	assert_int_equal(nfd, ncpu);
	assert_int_equal(pebs_chanset__enable(set), 0);
	buf = map_pages(64);
	touch(buf, 16);
	assert_true(pebs_chanset__drain(set, &owned_cbs, &own) >= 0);
	assert_true(own.by_ev[0] >= 16);

	assert_int_equal(pebs_chanset__close_event(set, 0), 0);
	assert_int_equal(count_event(set, 0, 0), 0);
	assert_int_equal(count_event(set, 1, 0), ncpu);
	/* freed, not kept open for the ring: the dummy maps them */
	for (int i = 0; i < nfd; i++)
		assert_true(fcntl(fds[i], F_GETFD) < 0 && errno == EBADF);
	assert_int_equal(pebs_chanset__nr_rings(set), ncpu);
	before = own.by_ev[0];
	touch(buf + 16 * ps, 16);
	assert_true(pebs_chanset__drain(set, &owned_cbs, &own) >= 0);
	assert_int_equal(own.by_ev[0], before);

	assert_int_equal(pebs_chanset__open_event(set, 0, getpid(), 4), 0);
	assert_int_equal(count_event(set, 0, 4), ncpu);
	assert_int_equal(pebs_chanset__enable(set), 0);
	touch(buf + 32 * ps, 32);
	assert_true(pebs_chanset__drain(set, &owned_cbs, &own) >= 0);
	print_message("# reopened at period 4: %u samples of 32 faults\n",
		      own.by_ev[0] - before);
	assert_true(own.by_ev[0] - before >= 8 - 1 &&
		    own.by_ev[0] - before <= 8 + 4);
	assert_int_equal(own.wrong, 0);

	/* a task not in the set: added with page-faults alone */
	assert_int_equal(pipe(go), 0);
	kidpid = kid(go[0], false);
	assert_int_equal(pebs_chanset__open_event(set, 0, kidpid, 0), 0);
	assert_int_equal(pebs_chanset__nr_targets(set), 2);
	assert_int_equal(count_event(set, 0, 0), 2 * ncpu);
	assert_int_equal(count_event(set, 1, 0), ncpu);
	assert_int_equal(pebs_chanset__open_event(set, 2, kidpid, 0), -EINVAL);
	assert_int_equal(pebs_chanset__close_event(set, 2), -EINVAL);
	assert_int_equal(pebs_chanset__close_event(set, 0), 0);
	assert_int_equal(pebs_chanset__nr_targets(set), 1);
	assert_int_equal(write(go[1], "g", 1), 1);
	reap(&kidpid, 1);
	close(go[0]);
	close(go[1]);
	munmap(buf, 64 * ps);
	pebs_chanset__delete(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exits),
		cmocka_unit_test(test_inherit),
		cmocka_unit_test(test_sideband_once),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_poll_watermark),
		cmocka_unit_test(test_cpu_targets),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_shared_cpu_rings),
		cmocka_unit_test(test_shared_task_rings),
		cmocka_unit_test(test_no_identifier_no_sharing),
		cmocka_unit_test(test_tracking_event),
		cmocka_unit_test(test_close_reopen),
	};

	ps = (size_t)sysconf(_SC_PAGESIZE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
