// SPDX-License-Identifier: MIT
/*
 * record.c - the recorder's life: checked (__new), prepared (the
 * attribution, the output's path, the objects' ring), opened (the
 * channels on every target, the command forked and held, the output
 * describing the events and the running processes), started (the
 * command execs), polled round by round, stopped (the command ended,
 * the rings drained, the lost counts written) and closed (the output
 * finished). The command `pebs-shim record` drives it and prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "record/record-int.h"
#include "core/internal.h"
#include "core/opts.h"

static const char *const attr_names[] = {
	[PEBS_RECORDER_ATTR_AUTO] = "auto", [PEBS_RECORDER_ATTR_TID] = "tid",
	[PEBS_RECORDER_ATTR_MAP] = "map", [PEBS_RECORDER_ATTR_BOTH] = "both",
};

const char *pebs_recorder_attr_str(enum pebs_recorder_attr a)
{
	return (unsigned int)a < ARRAY_SIZE(attr_names) ? attr_names[a] : NULL;
}

int rec_err(int err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return core_err(err, "%s", buf);
}

void rec_count_lost(struct pebs_recorder *r)
{
	r->st.lost = r->lost_kernel > r->lost_ring ? r->lost_kernel :
						     r->lost_ring;
}

int pebs_recorder__new(const struct pebs_recorder_opts *opts,
		       struct pebs_recorder **rp)
{
	struct pebs_recorder *r;
	int err;

	if (!opts || !rp)
		return core_err(-EINVAL, "recorder: no options given");
	r = calloc(1, sizeof(*r));
	if (!r)
		return core_err(-ENOMEM, "out of memory");
	r->child = (struct pebs_workload)PEBS_WORKLOAD_INIT;
	err = opts_copy(&r->o, sizeof(r->o), opts, "pebs_recorder_opts");
	if (!err && (!r->o.output || (unsigned int)r->o.format > 1 ||
		     (unsigned int)r->o.attr > 3 ||
		     (unsigned int)r->o.callgraph > 2 ||
		     (r->o.objects && (!r->o.cmd ||
				       r->o.format != PEBS_RECORDER_PERF))))
		err = core_err(-EINVAL, "recorder: no output, an unknown format, attribution or call graph, or objects without a command's perf.data");
	if (!err && r->o.objects_interval > PEBS_RECORDER_OBJECTS_MAX)
		err = core_err(-EINVAL, "recorder: objects' interval %" PRIu64 " is over %llu bytes",
			       r->o.objects_interval,
			       (unsigned long long)PEBS_RECORDER_OBJECTS_MAX);
	if (!err && !(r->o.budget >= 0 && r->o.budget < 1))
		err = core_err(-EINVAL, "recorder: budget %g is not a share in [0, 1)",
			       r->o.budget);
	r->per_cpu = r->o.all_cpus || r->o.cpus;
	if (!err && (!!r->per_cpu + !!r->o.pids + !!r->o.tids > 1 ||
		     (!r->per_cpu && !!r->o.cmd + !!r->o.pids + !!r->o.tids != 1)))
		err = core_err(-EINVAL, "recorder: give one target: a command, pids, tids, or CPUs");
	if (!err)
		err = rec_parse_events(r);
	if (!err)
		err = rec_parse_targets(r);
	if (err) {
		pebs_recorder__delete(r);
		return err;
	}
	*rp = r;
	return 0;
}

int pebs_recorder__prepare(struct pebs_recorder *r)
{
	struct rec_out_conf conf;
	int err;

	if (!r || r->prepared)
		return core_err(-EINVAL, "recorder: prepared twice");
	err = rec_choose_attr(r);
	if (!err)
		err = rec_budget_track(r);
	if (err)
		return err;
	conf = (struct rec_out_conf){
		.format = r->o.format, .path = r->o.output,
		.evs = r->evs, .nr_evs = rec_nr_open(r),
		.add_tid = r->attr == PEBS_RECORDER_ATTR_MAP,
		.comms = r->attrib,
		.buildid_cache = !r->o.no_buildid_cache,
		.objects = r->o.objects,
		.cycles = r->o.budget > 0 && r->o.format == PEBS_RECORDER_PERF,
	};
	err = rec_out_open(&conf, &r->out);
	if (err)
		return err;
	err = rec_objects_prepare(r);
	if (err)
		return err;
	/* before the channels: -a would sample the calibration's spin */
	err = rec_budget_calibrate(r);
	if (err)
		return err;
	rec_channel_opts(r);
	r->prepared = true;
	return 0;
}

int pebs_recorder__attr(const struct pebs_recorder *r, unsigned int i,
			struct perf_event_attr *attr, size_t size)
{
	if (!r || !r->prepared || i >= r->nr_evs || !attr || !size)
		return core_err(-EINVAL, "recorder: no event %u (or not prepared)",
				i);
	if (!r->set)
		return pebs_channel_attr(&r->evs[i], &r->copts, attr, size);
	memcpy(attr, &r->attrs[i], size < sizeof(r->attrs[i]) ? size :
	       sizeof(r->attrs[i]));
	if (size > sizeof(r->attrs[i]))
		memset((char *)attr + sizeof(r->attrs[i]), 0,
		       size - sizeof(r->attrs[i]));
	return 0;
}

/* the attribution used, as pebs-shim's word in the file (report shows it) */
static int describe(struct pebs_recorder *r)
{
	int err = rec_out_start(r->out, r->set, r->attrs);

	if (!err && r->o.argv)
		err = rec_out_cmdline(r->out, r->o.argc, r->o.argv);
	if (!err)
		err = rec_out_meta(r->out, "attribution",
				   pebs_recorder_attr_str(r->attr));
	if (!err && r->o.budget) {
		char pct[32];

		snprintf(pct, sizeof(pct), "%g%%", r->o.budget * 100);
		err = rec_out_meta(r->out, "budget", pct);
	}
	return err;
}

int pebs_recorder__open(struct pebs_recorder *r)
{
	int err;

	if (!r || !r->prepared || r->opened)
		return core_err(-EINVAL, "recorder: opened twice or not prepared");
	r->opened = true;
	err = rec_open_channels(r);
	if (err)
		return err;
	rec_objects_started(r);
	err = describe(r);
	if (err)
		return err;
	if (r->per_cpu || !r->o.cmd) {
		err = rec_synth_procs(r);
		if (err)
			return err;
	}
	err = rec_start_switchrec(r);
	if (err)
		return err;
	/* a command's channels start at its exec (enable_on_exec) */
	if ((r->per_cpu || !r->o.cmd) && (err = pebs_chanset__enable(r->set)))
		return rec_err(err, "cannot enable the events: %s",
			       pebs_errmsg());
	return rec_budget_start(r);
}

int pebs_recorder__start(struct pebs_recorder *r)
{
	if (!r || !r->opened)
		return core_err(-EINVAL, "recorder: not opened");
	return r->o.cmd ? pebs_workload__go(&r->child) : 0;
}

static bool procs_gone(const struct pebs_recorder *r)
{
	for (unsigned int i = 0; i < r->procs.n; i++)
		if (kill(r->procs.v[i], 0) == 0 || errno != ESRCH)
			return false;
	return r->procs.n > 0;
}

/* whole milliseconds from now to @end (CLOCK_MONOTONIC ns), 0 if past */
static int64_t ms_left(uint64_t end)
{
	uint64_t now = core_mono_ns();

	return now >= end ? 0 : (int64_t)((end - now) / 1000000);
}

/*
 * Wait up to @timeout_ms for a ring as pebs_chanset__poll does. With
 * --objects, the objects' ring is drained meanwhile every 1 to 16 ms
 * (rec_objects_wait_ms: the fuller it was, the sooner), and at once when
 * a producer finds it full (the waker's eventfd): the interposer then
 * seldom waits on a full ring, and an object's sample is written soon
 * after its time.
 */
static int rec_wait(struct pebs_recorder *r, int timeout_ms)
{
	/* a ring of the kernel's, or the objects' waker (a full ring) */
	struct pollfd p[2] = {
		{ .fd = pebs_chanset__epoll_fd(r->set), .events = POLLIN },
		{ .fd = rec_objects_wake_fd(r), .events = POLLIN },
	};
	uint64_t end = core_mono_ns() + (uint64_t)timeout_ms * 1000000;
	int n, err;

	/* each wait, and each drain's (rec_place_tick: at most every 100 ms) */
	rec_place_tick(r);
	if (!rec_objects_on(r) || timeout_ms <= 0)
		return pebs_chanset__poll(r->set, timeout_ms, &rec_chanset_cbs,
					  r);
	for (;;) {
		int w = rec_objects_wait_ms(r), left = (int)ms_left(end);

		n = poll(p, 2, left < 1 ? 1 : left < w ? left : w);
		if (n < 0)
			return errno == EINTR ? -EINTR :
			       core_err(-errno, "poll: %s", strerror(errno));
		if (p[0].revents)
			break;	/* a ring (or a target gone) */
		if (p[1].revents)
			rec_objects_woken(r);
		err = rec_objects_drain(r);
		if (err)
			return err;
		if (ms_left(end) <= 0)
			break;
		rec_place_tick(r);
	}
	return pebs_chanset__poll(r->set, 0, &rec_chanset_cbs, r);
}

int pebs_recorder__poll(struct pebs_recorder *r, int timeout_ms)
{
	int n, status;
	struct rusage ru;

	if (!r || !r->set)
		return core_err(-EINVAL, "recorder: not opened");
	if (r->err)
		return r->err;
	/*
	 * wait for a ring to fill, then read every ring: a round covers all
	 * of them (perf's FINISHED_ROUND promise)
	 */
	/* woken for the duty cycle's next window too */
	n = rec_wait(r, rec_duty_timeout(r, timeout_ms));
	if (n > 0)
		r->st.wakeups++;
	if (n >= 0 || n == -EINTR)
		n = pebs_chanset__drain(r->set, &rec_chanset_cbs, r);
	if (n < 0)
		return r->err = rec_err(n, "reading the rings failed: %s",
					n == -ENOMEM ? "out of memory" :
					pebs_errmsg());
	if (r->err)
		return r->err;
	n = rec_end_round(r);
	if (n)
		return r->err = n;
	n = rec_budget_tick(r);
	if (n)
		return r->err = rec_err(n, "--budget: %s", pebs_errmsg());
	if (r->child_running &&
	    wait4(r->child.pid, &status, WNOHANG, &ru) == r->child.pid) {
		rec_budget_reaped(r, &ru);
		r->child_running = false;
		r->st.status = status;
		return 1;
	}
	if (!r->o.cmd && (procs_gone(r) || (!r->per_cpu && !r->targets_left)))
		return 1;
	return 0;
}

/*
 * time(1)'s rule: the command's status, 128+N for a signal; a recording
 * stopped by a signal says so the same way (perf re-raises it). A
 * command ended by the recorder (SIGTERM) is not a failure.
 */
static int exit_status(const struct pebs_recorder *r, int wstatus,
		       bool killed, int stop_sig)
{
	if (stop_sig)
		return 128 + stop_sig;
	if (r->o.cmd && WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (r->o.cmd && WIFSIGNALED(wstatus) &&
	    !(killed && WTERMSIG(wstatus) == SIGTERM))
		return 128 + WTERMSIG(wstatus);
	return 0;
}

int pebs_recorder__stop(struct pebs_recorder *r, int stop_sig)
{
	int status = r ? r->st.status : 0, n;
	bool killed = false;
	struct rusage ru;

	if (!r || !r->set)
		return core_err(-EINVAL, "recorder: not opened");
	pebs_chanset__disable(r->set);
	rec_place_end(r);
	/* the events off whatever the duty cycle had them: a share so far */
	rec_duty_stop(r);
	if (r->child_running) {
		kill(r->child.pid, SIGTERM);
		while ((n = (int)wait4(r->child.pid, &status, 0, &ru)) < 0 &&
		       errno == EINTR)
			;
		if (n > 0)
			rec_budget_reaped(r, &ru);
		r->child_running = false;
		killed = true;
	}
	r->st.status = exit_status(r, status, killed, stop_sig);
	n = pebs_chanset__drain(r->set, &rec_chanset_cbs, r);
	if (n < 0 && !r->err)
		r->err = rec_err(n, "reading the rings failed: %s",
				 pebs_errmsg());
	/* after the drain, which weighs the last window's samples */
	n = rec_duty_meta(r);
	if (n && !r->err)
		r->err = rec_err(n, "cannot write %s: %s", r->o.output,
				 pebs_errmsg());
	n = rec_objects_stop(r);
	if (n && !r->err)
		r->err = n;
	/* after the drain: the last samples counted */
	n = rec_budget_final(r);
	if (n && !r->err)
		r->err = rec_err(n, "--budget: %s", pebs_errmsg());
	n = rec_end_round(r);
	if (n && !r->err)
		r->err = n;
	n = rec_write_lost_of(r, -1);
	if (n && !r->err)
		r->err = core_err(n, "cannot write %s: %s", r->o.output,
				  strerror(-n));
	return r->err;
}

int pebs_recorder__close(struct pebs_recorder *r)
{
	int err;

	if (!r || !r->out)
		return core_err(-EINVAL, "recorder: no output to close");
	/* the samples of the events and objects: not the cycles' starts */
	r->st.written = rec_out_samples(r->out, r->csv_rows) -
			r->bud.duty.marks;
	err = rec_out_close(r->out);
	r->out = NULL;
	r->closed = true;
	return err;
}

const struct pebs_recorder_stats *
pebs_recorder__stats(const struct pebs_recorder *r)
{
	return r ? &r->st : NULL;
}

unsigned int pebs_recorder__nr_events(const struct pebs_recorder *r)
{
	return r ? r->nr_evs : 0;
}

const struct pebs_event *pebs_recorder__event(const struct pebs_recorder *r,
					      unsigned int i)
{
	return r && i < r->nr_evs ? &r->evs[i] : NULL;
}

enum pebs_recorder_attr
pebs_recorder__attribution(const struct pebs_recorder *r, bool *baseline)
{
	if (baseline)
		*baseline = r && r->switch_baseline;
	return r ? r->attr : PEBS_RECORDER_ATTR_AUTO;
}

struct pebs_attrib *pebs_recorder__attrib(struct pebs_recorder *r)
{
	return r ? r->attrib : NULL;
}

unsigned int pebs_recorder__ring_pages(const struct pebs_recorder *r)
{
	return r ? r->copts.ring_pages : 0;
}

struct pebs_chanset *pebs_recorder__chanset(struct pebs_recorder *r)
{
	return r ? r->set : NULL;
}

const struct pebs_switchrec_stats *
pebs_recorder__switchrec_stats(const struct pebs_recorder *r)
{
	return r && r->swrec ? pebs_switchrec__stats(r->swrec) : NULL;
}

const struct pebs_budget *pebs_recorder__budget(const struct pebs_recorder *r)
{
	return r ? r->bud.b : NULL;
}

double pebs_recorder__sample_cost(const struct pebs_recorder *r,
				  unsigned int i, bool *proxy)
{
	bool budgeted = r && r->bud.b && i < r->nr_evs;

	if (proxy)
		*proxy = budgeted && r->bud.proxy[i];
	return budgeted ? r->bud.cost[i] : 0;
}

void pebs_recorder__delete(struct pebs_recorder *r)
{
	if (!r)
		return;
	if (!r->closed) {
		pebs_workload__abort(&r->child);
		rec_out_discard(r->out);
	}
	rec_objects_free(r);
	rec_place_end(r);
	pebs_chanset__delete(r->set);
	pebs_switchrec__delete(r->swrec);
	pebs_attrib__delete(r->attrib);
	rec_budget_close(r);
	pebs_budget__delete(r->bud.b);
	pebs_map__close(r->map);
	pebs_ids__free(&r->targets);
	pebs_ids__free(&r->procs);
	pebs_ids__free(&r->gone);
	free(r);
}
