// SPDX-License-Identifier: MIT
/*
 * cmd-record.c - pebs-shim record: sample a command, processes, threads
 * or CPUs into a perf.data or CSV file, attributing each sample to a
 * thread by its TID or through the /dev/pebs_map switch history.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "record.h"

#define POLL_MS		100	/* poll round: bounds the map history lag */
#define STATUS_NS	250000000ull

static volatile sig_atomic_t stop_sig, child_sig;

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_sig = 1;
	else
		stop_sig = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- attribution ------------------------------------------------------ */

/* the module's history when asked for (or by auto with -a/-C) */
static int choose_attr(struct record *rec)
{
	int err;

	rec->attr = rec->o.attr_req;
	if (rec->attr == REC_ATTR_TID)
		return 0;
	err = pebs_map__open(NULL, &rec->map);
	if (err) {
		if (rec->attr != REC_ATTR_AUTO) {
			tool_err("record", "%s", pebs_errmsg());
			return err;
		}
		rec->attr = REC_ATTR_TID;
		rec->switch_baseline = rec->o.per_cpu;
		return 0;
	}
	if (rec->attr == REC_ATTR_AUTO) {
		if (!rec->o.per_cpu) {
			pebs_map__close(rec->map);
			rec->map = NULL;
			rec->attr = REC_ATTR_TID;
			return 0;
		}
		rec->attr = REC_ATTR_MAP;
	}
	return 0;
}

static int new_attrib(struct record *rec)
{
	enum pebs_attrib_mode mode = rec->attr == REC_ATTR_MAP ? PEBS_ATTRIB_MAP :
		rec->attr == REC_ATTR_BOTH ? PEBS_ATTRIB_BOTH :
		rec->switch_baseline ? PEBS_ATTRIB_SWITCH : PEBS_ATTRIB_TID;
	int err;

	err = pebs_attrib__new(mode, rec->map,
			       (unsigned int)sysconf(_SC_NPROCESSORS_CONF),
			       &rec->attrib);
	if (err)
		tool_err("record", "%s", pebs_errmsg());
	return err;
}

/* the processes already running: their threads and mappings first */
static int synth_procs(struct record *rec, const struct pebs_ids *pids)
{
	for (unsigned int i = 0; i < pids->n; i++) {
		int err = rec_out_synth_process(rec->out, pids->v[i]);

		if (err)
			return err;
		pebs_attrib__load_proc(rec->attrib, pids->v[i]);
	}
	return 0;
}

/* CPUs, threads of -p, or -t threads: checked before anything starts */
static int parse_targets(struct record *rec)
{
	if (rec->o.cpu_list)
		return rec_parse_cpus(rec->o.cpu_list, &rec->targets);
	if (rec->o.all_cpus)
		return rec_online_cpus(&rec->targets);
	if (rec->o.pid_list)
		return rec_parse_pids(rec->o.pid_list, true, &rec->targets,
				      &rec->procs);
	if (rec->o.tid_list)
		return rec_parse_pids(rec->o.tid_list, false, &rec->targets,
				      &rec->procs);
	return 0;
}

/* ring pages per channel: -m, or a default that suits the target */
static unsigned int ring_pages(const struct record *rec)
{
	unsigned long rings;
	unsigned int pages = REC_TASK_RING_PAGES;

	if (rec->o.pages)
		return rec->o.pages;
	if (rec->o.per_cpu)
		return REC_CPU_RING_PAGES;
	if (rec->o.cmd || !(rec->o.tid_list || rec->o.no_inherit))
		return pages;
	rings = rec->targets.n;
	while (pages > 8 && rings * pages > REC_TASK_RING_BUDGET)
		pages /= 2;
	return pages;
}

static int open_channels(struct record *rec)
{
	struct pebs_ids *targets = &rec->targets;
	bool cmd_task = rec->o.cmd && !rec->o.per_cpu;
	uint64_t st0 = rec_sample_type(&rec->o, rec->attr, &rec->evs[0]);
	int err;

	/* one sample_type per set: the union of what the events need */
	for (unsigned int i = 1; i < rec->o.nr_evs; i++)
		st0 |= rec_sample_type(&rec->o, rec->attr, &rec->evs[i]);
	/*
	 * -p: one channel per existing thread (from /proc/PID/task), each
	 * with inherit, so that threads created later are followed too; a
	 * per-process event (pid = tgid) would only count the main thread
	 * and its later children. Inherited events cannot be mapped with
	 * cpu -1, so the channel set opens each on every online CPU.
	 * -t: the threads alone, no inherit.
	 */
	PEBS_OPTS(pebs_channel_opts, opts,
		  .sample_type = st0,
		  .period = rec->o.period,
		  .freq = rec->o.freq,
		  .ring_pages = ring_pages(rec),
		  .inherit = !rec->o.per_cpu && !rec->o.tid_list &&
			     !rec->o.no_inherit,
		  .enable_on_exec = cmd_task,
		  /* enabled once the running processes are described */
		  .disabled = true,
		  .context_switch = rec->switch_baseline ||
				    rec->o.switch_events,
		  .task_records = true,
		  /* the interposer stamps objects with CLOCK_MONOTONIC */
		  .use_clockid = rec->o.objects,
		  .clockid = CLOCK_MONOTONIC);

	/* -vv: each attr as it goes to the kernel, as perf record -vv */
	for (unsigned int i = 0; rec->o.verbose > 1 && i < rec->o.nr_evs; i++) {
		struct perf_event_attr a;

		if (!pebs_channel_attr(&rec->evs[i], &opts, &a, sizeof(a)))
			rec_print_attr(stderr, &a);
	}
	err = pebs_chanset__new(rec->evs, rec->o.nr_evs,
				rec->o.per_cpu ? PEBS_TARGET_CPU :
					       PEBS_TARGET_TASK,
				&opts, &rec->set);
	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		return err;
	}
	if (rec->o.cmd) {
		err = pebs_workload__fork(rec->o.cmd, !strcmp(rec->o.output, "-") ?
					  PEBS_WORKLOAD_STDOUT_TO_STDERR : 0,
					  &rec->child);
		if (err) {
			tool_err("record", "%s", pebs_errmsg());
			return err;
		}
		if (cmd_task && pebs_ids__push(targets, rec->child.pid))
			return -ENOMEM;
	}
	for (unsigned int i = 0; i < targets->n; i++) {
		err = pebs_chanset__add(rec->set, targets->v[i]);
		if (err == -ESRCH && rec->o.tid_list) {
			tool_err("record", "thread %d exited: check the tid",
				targets->v[i]);
			return err;
		}
		/* a thread of -p that ended meanwhile is not an error */
		if (err == -ESRCH && rec->o.pid_list) {
			err = 0;
			continue;
		}
		if (err) {
			tool_err("record", "cannot open events on %s %d: %s",
				rec->o.per_cpu ? "CPU" : "task", targets->v[i],
				pebs_errmsg());
			return err;
		}
		rec->targets_left++;
	}
	if (!pebs_chanset__nr_channels(rec->set)) {
		tool_err("record", "no thread of %s is left: check the pid",
			rec->o.pid_list);
		return -ESRCH;
	}
	/* each event and its attr as opened (perf's fallbacks applied) */
	for (unsigned int i = 0; i < rec->o.nr_evs; i++)
		rec->evs[i] = *pebs_chanset__event(rec->set, i);
	for (unsigned int i = 0; i < pebs_chanset__nr_channels(rec->set); i++) {
		struct pebs_channel *ch = pebs_chanset__channel(rec->set, i);

		rec->attrs[rec_ev_of(rec, ch)] = *pebs_channel__attr(ch);
	}
	if (rec->o.verbose) {
		for (unsigned int i = 0; i < rec->o.nr_evs; i++) {
			const struct perf_event_attr *a = &rec->attrs[i];
			const char *why = NULL;
			bool large = pebs_attr_large_pebs(a, &why);

			fprintf(stderr, "pebs-shim record: event %s = %s (pmu %s, type %u, config %#llx, %s %llu, sample_type %#llx, precise_ip %u%s%s)\n",
				rec->evs[i].name, rec->evs[i].resolved,
				rec->evs[i].pmu, a->type,
				(unsigned long long)a->config,
				a->freq ? "freq" : "period",
				(unsigned long long)a->sample_period,
				(unsigned long long)a->sample_type,
				a->precise_ip,
				(rec->evs[i].flags & PEBS_EVENT_PRECISE) ?
				(large ? ", large PEBS" : ", no large PEBS: ") : "",
				(rec->evs[i].flags & PEBS_EVENT_PRECISE) &&
				!large && why ? why : "");
		}
		fprintf(stderr, "pebs-shim record: %u channels on %u %s, %u rings of %u pages\n",
			pebs_chanset__nr_channels(rec->set),
			pebs_chanset__nr_targets(rec->set),
			rec->o.per_cpu ? "CPUs" : "tasks",
			pebs_chanset__nr_rings(rec->set), ring_pages(rec));
	}
	return 0;
}

static bool procs_gone(const struct record *rec)
{
	for (unsigned int i = 0; i < rec->procs.n; i++)
		if (kill(rec->procs.v[i], 0) == 0 || errno != ESRCH)
			return false;
	return rec->procs.n > 0;
}

static void summary(const struct record *rec, int child_status)
{
	const struct rec_counts c = {
		.written = rec->written,
		/* the kernel's per-event count (what LOST_SAMPLES says, and
		 * perf's Total Lost Samples) also holds the samples whose
		 * LOST record was still pending when the ring went away */
		.lost = rec->lost_kernel > rec->lost ? rec->lost_kernel :
						      rec->lost,
		.throttles = rec->throttles, .wakeups = rec->wakeups,
	};

	rec_summary(rec->o.output, &c, rec->attr, rec->switch_baseline,
		    pebs_attrib__stats(rec->attrib), child_status,
		    stop_sig != 0);
	if (rec->swrec) {
		const struct pebs_switchrec_stats *st =
			pebs_switchrec__stats(rec->swrec);

		fprintf(stderr, "pebs-shim record: module switch history: %llu switches written as PERF_RECORD_SWITCH_CPU_WIDE, %llu lost to overruns (marked by PERF_RECORD_LOST)\n",
			(unsigned long long)st->switches,
			(unsigned long long)st->lost);
	}
}

/*
 * the command line in the header as typed ("record ..." or, from mem
 * record and c2c record, theirs), and the attribution actually used as
 * pebs-shim's word of the version feature (report shows it)
 */
static int store_cmdline(struct record *rec, const struct rec_line *line)
{
	int argc = line->argc;
	char **argv = line->argv;
	const char **av = calloc((size_t)argc + 2, sizeof(*av));
	int n = 0, err;

	if (!av)
		return -ENOMEM;
	av[n++] = "pebs-shim";
	for (int i = 0; i < argc; i++)
		av[n++] = argv[i];
	err = rec_out_cmdline(rec->out, n, av);
	free(av);
	return err ?: rec_out_meta(rec->out, "attribution",
				   rec_attr_names[rec->attr]);
}

static int run(struct record *rec)
{
	bool tty = !rec->o.quiet && isatty(STDERR_FILENO);
	uint64_t t0 = now_ns(), last_t = t0, last_n = 0;
	uint64_t end = rec->o.duration > 0 ?
		       t0 + (uint64_t)(rec->o.duration * 1e9) : UINT64_MAX;
	bool child_running = rec->o.cmd != NULL;
	int child_status = 0, status = 0, n;

	while (!stop_sig && !rec->err) {
		uint64_t now = now_ns();
		int timeout = POLL_MS;

		if (now >= end)
			break;
		if (end - now < (uint64_t)POLL_MS * 1000000)
			timeout = (int)((end - now) / 1000000) + 1;
		/*
		 * wait for a ring to fill, then read every ring: a round
		 * covers all of them (perf's FINISHED_ROUND promise)
		 */
		n = pebs_chanset__poll(rec->set, timeout, &rec_chanset_cbs, rec);
		if (n > 0)
			rec->wakeups++;
		if (n >= 0 || n == -EINTR)
			n = pebs_chanset__drain(rec->set, &rec_chanset_cbs, rec);
		if (n < 0) {
			tool_err("record", "reading the rings failed: %s",
				n == -ENOMEM ? "out of memory" : pebs_errmsg());
			rec->err = n;
			break;
		}
		if (rec_end_round(rec)) {
			rec->err = -EIO;
			break;
		}
		if (child_running && child_sig) {
			child_sig = 0;
			if (waitpid(rec->child.pid, &status, WNOHANG) ==
			    rec->child.pid) {
				child_running = false;
				break;
			}
		}
		if (!rec->o.cmd && (procs_gone(rec) ||
				  (!rec->o.per_cpu && !rec->targets_left)))
			break;
		now = now_ns();
		if (tty && now - last_t >= STATUS_NS)
			rec_status_line(rec->o.output, rec->samples, rec->lost, t0, now,
					&last_t, &last_n);
	}
	pebs_chanset__disable(rec->set);
	if (child_running) {
		kill(rec->child.pid, SIGTERM);
		while (waitpid(rec->child.pid, &status, 0) < 0 &&
		       errno == EINTR)
			;
	}
	/*
	 * time(1)'s rule: the command's status, 128+N for a signal; a
	 * recording stopped by a signal says so the same way (perf
	 * re-raises it). A command ended by --duration is not a failure.
	 */
	if (stop_sig)
		child_status = 128 + stop_sig;
	else if (rec->o.cmd && WIFEXITED(status))
		child_status = WEXITSTATUS(status);
	else if (rec->o.cmd && WIFSIGNALED(status) &&
		 !(child_running && WTERMSIG(status) == SIGTERM))
		child_status = 128 + WTERMSIG(status);
	n = pebs_chanset__drain(rec->set, &rec_chanset_cbs, rec);
	if (n < 0 && !rec->err) {
		tool_err("record", "reading the rings failed: %s", pebs_errmsg());
		rec->err = n;
	}
	if (rec_end_round(rec) && !rec->err)
		rec->err = -EIO;
	n = rec_write_lost_of(rec, -1);
	if (n && !rec->err) {
		tool_err("record", "cannot write %s: %s", rec->o.output, strerror(-n));
		rec->err = n;
	}
	if (tty)
		fputs("\r\033[K", stderr);
	return child_status;
}

int cmd_record(int argc, char **argv)
{
	const struct rec_line line = { .argc = argc, .argv = argv };

	return rec_main(argc, argv, &line);
}

int rec_main(int argc, char **argv, const struct rec_line *line)
{
	struct record rec = { .child = PEBS_WORKLOAD_INIT };
	struct sigaction sa = { .sa_handler = on_signal };
	int ret = REC_EXIT_SETUP, err, child_status;

	err = rec_parse_args(&rec.o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (rec_parse_events(&rec.o, rec.evs))
		return REC_EXIT_USAGE;
	err = parse_targets(&rec);
	if (err) {
		ret = err == -EINVAL || err == -ESRCH ? REC_EXIT_USAGE :
			REC_EXIT_SETUP;
		goto out;
	}
	if (choose_attr(&rec))
		goto out;
	if (new_attrib(&rec))
		goto out;
	{
		struct rec_out_conf conf = {
			.format = rec.o.format, .path = rec.o.output,
			.evs = rec.evs, .nr_evs = rec.o.nr_evs,
			.add_tid = rec.attr == REC_ATTR_MAP,
			.comms = rec.attrib,
			.buildid_cache = !rec.o.no_buildid_cache,
			.objects = rec.o.objects,
		};

		if (rec_out_open(&conf, &rec.out))
			goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	if (rec_objects_prepare(&rec))
		goto out_discard;
	if (open_channels(&rec))
		goto out_discard;
	rec_objects_started(&rec);
	if (rec_out_start(rec.out, rec.set, rec.attrs))
		goto out_discard;
	if (store_cmdline(&rec, line)) {
		tool_err("record", "out of memory");
		goto out_discard;
	}
	if (rec.o.per_cpu || !rec.o.cmd) {
		struct pebs_ids pids = { 0 };

		/* -a/-C: every process; -p/-t: the processes of the ids */
		err = rec.o.per_cpu ? pebs_proc__pids(&pids) : 0;
		for (unsigned int i = 0; !err && !rec.o.per_cpu &&
					 i < rec.procs.n; i++) {
			pid_t tgid = pebs_proc__tgid(rec.procs.v[i]);

			err = pebs_ids__push(&pids, tgid < 0 ? rec.procs.v[i] : tgid);
		}
		if (err)
			tool_err("record", "%s", pebs_errmsg());
		else
			err = synth_procs(&rec, &pids);
		pebs_ids__free(&pids);
		if (err)
			goto out_discard;
	}
	if (rec_start_switchrec(&rec))
		goto out_discard;
	/* a command's channels start at its exec (enable_on_exec) */
	if ((rec.o.per_cpu || !rec.o.cmd) && pebs_chanset__enable(rec.set)) {
		tool_err("record", "cannot enable the events: %s", pebs_errmsg());
		goto out_discard;
	}
	if (rec.o.cmd) {
		err = pebs_workload__go(&rec.child);
		if (err) {
			tool_err("record", "%s", pebs_errmsg());
			ret = err == -ENOENT ? REC_EXIT_NOTFOUND :
					       REC_EXIT_NOEXEC;
			goto out_discard;
		}
	}
	/* once recording surely runs: which source `auto` chose */
	for (unsigned int i = 0; i < rec.o.nr_evs && !rec.o.quiet; i++)
		if (rec.evs[i].note[0])
			tool_err("record", "%s", rec.evs[i].note);
	child_status = run(&rec);
	rec.written = rec_out_samples(rec.out, rec.csv_rows);
	err = rec_out_close(rec.out);
	rec.out = NULL;
	if (err || rec.err) {
		ret = REC_EXIT_RUNTIME;
		goto out;
	}
	if (!rec.o.quiet) {
		summary(&rec, child_status);
		rec_objects_summary(&rec);
	}
	ret = child_status;
	goto out;

out_discard:
	pebs_workload__abort(&rec.child);
	rec_out_discard(rec.out);
	rec.out = NULL;
out:
	rec_objects_free(&rec);
	pebs_chanset__delete(rec.set);
	pebs_switchrec__delete(rec.swrec);
	pebs_attrib__delete(rec.attrib);
	pebs_map__close(rec.map);
	pebs_ids__free(&rec.targets);
	pebs_ids__free(&rec.procs);
	pebs_ids__free(&rec.gone);
	return ret;
}
