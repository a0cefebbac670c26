// SPDX-License-Identifier: MIT
/*
 * cmd-record.c - pebs-shim record: sample a command, processes, threads
 * or CPUs into a perf.data or CSV file, attributing each sample to a
 * thread by its TID or through the /dev/pebs_map switch history. The
 * recording is the library's (struct pebs_recorder); this file is its
 * loop: signals, --duration, the status line, the exit status.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "record.h"

#define POLL_MS		100	/* poll round: bounds the map history lag */
#define STATUS_NS	250000000ull

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	/* SIGCHLD only interrupts the poll: the recorder reaps the command */
	if (sig != SIGCHLD)
		stop_sig = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* record's options as the recorder's; @av: the command line stored */
static void recorder_opts(const struct rec_opts *o, const char **av, int ac,
			  struct pebs_recorder **rp,
			  struct pebs_recorder_opts *ro)
{
	*ro = (struct pebs_recorder_opts){
		.sz = sizeof(*ro),
		.events = o->evstrs, .nr_events = o->nr_evs,
		.period = o->period, .freq = o->freq,
		.ring_pages = o->pages, .output = o->output,
		.format = o->format, .attr = o->attr_req,
		.callgraph = o->callgraph, .stack_size = o->stack_size,
		.data_addr = o->data_addr, .weight = o->weight,
		.phys_data = o->phys_data,
		.data_page_size = o->data_page_size,
		.all_user = o->all_user, .all_kernel = o->all_kernel,
		.no_inherit = o->no_inherit,
		.switch_events = o->switch_events,
		.no_switch_history = o->no_switch_history,
		.no_buildid_cache = o->no_buildid_cache,
		.objects = o->objects, .objects_all = o->objects_all,
		.objects_interval = o->objects_interval,
		.all_cpus = o->all_cpus, .cpus = o->cpu_list,
		.pids = o->pid_list, .tids = o->tid_list,
		.cmd = o->cmd, .budget = o->budget,
		.cal_cache = o->cal_cache[0] ? o->cal_cache : NULL,
		.recalibrate = o->recalibrate,
		.argc = ac, .argv = av,
		/* -v: each sample whose history entry names another thread */
		.mismatch = o->verbose ? rec_print_mismatch : NULL,
		.ctx = rp,
	};
}

/* the recording's rounds until the command ends, a signal or --duration */
static int run(struct pebs_recorder *r, const struct rec_opts *o)
{
	bool tty = !o->quiet && isatty(STDERR_FILENO);
	uint64_t t0 = now_ns(), last_t = t0, last_n = 0;
	uint64_t end = o->duration > 0 ?
		       t0 + (uint64_t)(o->duration * 1e9) : UINT64_MAX;
	int n = 0, err;

	while (!stop_sig) {
		uint64_t now = now_ns();
		int timeout = POLL_MS;

		if (now >= end)
			break;
		if (end - now < (uint64_t)POLL_MS * 1000000)
			timeout = (int)((end - now) / 1000000) + 1;
		n = pebs_recorder__poll(r, timeout);
		if (n < 0)
			tool_err("record", "%s", pebs_errmsg());
		if (n)
			break;
		now = now_ns();
		if (tty && now - last_t >= STATUS_NS)
			rec_status_line(r, o, t0, now, &last_t, &last_n);
	}
	err = pebs_recorder__stop(r, stop_sig);
	if (err && n >= 0)
		tool_err("record", "%s", pebs_errmsg());
	if (tty)
		fputs("\r\033[K", stderr);
	return err;
}

int cmd_record(int argc, char **argv)
{
	const struct rec_line line = { .argc = argc, .argv = argv };

	return rec_main(argc, argv, &line);
}

/* the exit status of a failed step; @usage: its errors the user's */
static int failed(int err, bool usage)
{
	tool_err("record", "%s", err == -ENOMEM && !*pebs_errmsg() ?
		 "out of memory" : pebs_errmsg());
	return usage && (err == -EINVAL || err == -ESRCH) ? REC_EXIT_USAGE :
							     REC_EXIT_SETUP;
}

int rec_main(int argc, char **argv, const struct rec_line *line)
{
	struct rec_opts o = { 0 };
	struct pebs_recorder_opts ro;
	struct pebs_recorder *r = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	const char **av;
	int ret, err;

	err = rec_parse_args(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	/* the command line in the header as typed ("record ..." or, from
	   mem record and c2c record, theirs) */
	av = calloc((size_t)line->argc + 2, sizeof(*av));
	if (!av) {
		tool_err("record", "out of memory");
		return REC_EXIT_SETUP;
	}
	av[0] = "pebs-shim";
	for (int i = 0; i < line->argc; i++)
		av[i + 1] = line->argv[i];
	recorder_opts(&o, av, line->argc + 1, &r, &ro);
	err = pebs_recorder__new(&ro, &r);
	if (err) {
		ret = failed(err, true);
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	err = pebs_recorder__prepare(r);
	/* -vv: each attr as it goes to the kernel, as perf record -vv */
	for (unsigned int i = 0; !err && o.verbose > 1 &&
				 i < pebs_recorder__nr_events(r); i++) {
		struct perf_event_attr a;

		if (!pebs_recorder__attr(r, i, &a, sizeof(a)))
			rec_print_attr(stderr, &a);
	}
	err = err ? err : pebs_recorder__open(r);
	if (err) {
		ret = failed(err, false);
		goto out;
	}
	if (o.verbose)
		rec_print_events(r, o.per_cpu);
	err = pebs_recorder__start(r);
	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		ret = err == -ENOENT ? REC_EXIT_NOTFOUND : REC_EXIT_NOEXEC;
		goto out;
	}
	/* once recording surely runs: which source `auto` chose */
	for (unsigned int i = 0; i < pebs_recorder__nr_events(r) && !o.quiet; i++)
		if (pebs_recorder__event(r, i)->note[0])
			tool_err("record", "%s", pebs_recorder__event(r, i)->note);
	err = run(r, &o);
	if (pebs_recorder__close(r)) {
		tool_err("record", "%s", pebs_errmsg());
		err = -EIO;
	}
	if (err) {
		ret = REC_EXIT_RUNTIME;
		goto out;
	}
	if (!o.quiet)
		rec_summary(r, &o, stop_sig != 0);
	rec_budget_floor(r, &o);
	ret = pebs_recorder__stats(r)->status;
out:
	pebs_recorder__delete(r);
	free(av);
	return ret;
}
