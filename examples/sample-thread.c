// SPDX-License-Identifier: MIT
/*
 * sample-thread.c - sample a command (or this program) with a channel
 * set and print every sample, then the number the kernel dropped.
 *
 *	sample-thread [EVENT [COMMAND [ARG...]]]
 *
 * EVENT defaults to `auto`: PEBS/IBS loads where the CPU has them, else
 * cpu-clock (the library says why on stderr). Without COMMAND it samples
 * its own thread faulting in 64000 fresh pages: with
 * `page-faults:period=1` each page shows up as a sample's addr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid(), when built without make */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pebsshim.h"

struct counts {
	uint64_t samples, lost;
	bool gone;		/* the command exited */
	bool failed;		/* ... and not with 0 */
};

/* Called by pebs_chanset__poll for each decoded sample. */
static int print_sample(void *ctx, struct pebs_channel *ch,
			const struct pebs_sample *s,
			const struct perf_event_header *raw)
{
	struct counts *c = ctx;
	char src[128] = "";

	(void)ch;
	(void)raw;
	/* PEBS/IBS events record where the access was served from */
	if ((s->present & PERF_SAMPLE_DATA_SRC) && s->data_src)
		pebs_data_src__str(s->data_src, src, sizeof(src));
	printf("tid %u cpu %u time %" PRIu64 ".%09" PRIu64 " ip %#" PRIx64
	       " addr %#" PRIx64 "%s%s\n", s->tid, s->cpu,
	       s->time / 1000000000, s->time % 1000000000, s->ip, s->addr,
	       src[0] ? " " : "", src);
	c->samples++;
	return 0;
}

static void count_lost(void *ctx, struct pebs_channel *ch, uint64_t lost)
{
	(void)ch;
	((struct counts *)ctx)->lost += lost;
}

static void target_gone(void *ctx, int target)
{
	(void)target;
	((struct counts *)ctx)->gone = true;
}

/* Run COMMAND, sampled from its exec on, until it exits. */
static int run_command(struct pebs_chanset *set, char **argv,
		       const struct pebs_chanset_cbs *cbs, struct counts *c)
{
	int p[2], err, status;
	pid_t pid;
	char go;

	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {		/* wait for the parent's go, then exec */
		close(p[1]);
		if (read(p[0], &go, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "sample-thread: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(p[0]);
	err = pebs_chanset__add(set, pid);
	if (!err && write(p[1], "x", 1) != 1)
		err = -errno;
	close(p[1]);		/* without a go the child exits 127 */
	/* wake up when a ring is half full, until the command is gone */
	while (!err && !c->gone) {
		err = pebs_chanset__poll(set, 100, cbs, c);
		if (err > 0 || err == -EINTR)
			err = 0;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		c->failed = true;
	return err;
}

/* The small loop of self mode: 1000 times, fault in 64 fresh pages. */
static int run_self(struct pebs_chanset *set,
		    const struct pebs_chanset_cbs *cbs, struct counts *c)
{
	size_t len = 64 * (size_t)sysconf(_SC_PAGESIZE);
	int err = pebs_chanset__add(set, gettid());

	for (int i = 0; i < 1000 && !err; i++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -errno;
		memset(p, 1, len);	/* a fault per page, then CPU time */
		munmap(p, len);
		err = pebs_chanset__poll(set, 0, cbs, c); /* no waiting */
		if (err > 0)
			err = 0;
	}
	return err;
}

int main(int argc, char **argv)
{
	PEBS_OPTS(pebs_chanset_cbs, cbs,
		.on_sample = print_sample,
		.on_lost = count_lost,
		.on_exit = target_gone,
	);
	struct counts c = { 0 };
	struct pebs_chanset *set = NULL;
	struct pebs_event ev;
	int err;

	err = pebs_event__parse(argc > 1 ? argv[1] : "auto", &ev);
	if (err)
		goto out;
	if (ev.note[0])
		fprintf(stderr, "sample-thread: %s\n", ev.note);

	/* a command is sampled from its exec on, this thread at once */
	PEBS_OPTS(pebs_channel_opts, opts, .enable_on_exec = argc > 2);
	/* software events without :period=N: ~1000 samples per second */
	if (!ev.attr.sample_period && (ev.flags & PEBS_EVENT_SOFTWARE))
		opts.freq = 1000;
	err = pebs_chanset__new(&ev, 1, PEBS_TARGET_TASK, &opts, &set);
	if (err)
		goto out;
	err = argc > 2 ? run_command(set, argv + 2, &cbs, &c)
		       : run_self(set, &cbs, &c);
	/* then what stayed below the wakeup watermark */
	if (!err)
		err = pebs_chanset__drain(set, &cbs, &c);
	if (err >= 0) {
		printf("%" PRIu64 " samples of %s, lost %" PRIu64 "\n",
		       c.samples, ev.resolved, c.lost);
		err = 0;
	}
out:
	if (err)
		fprintf(stderr, "sample-thread: %s\n",
			pebs_errmsg()[0] ? pebs_errmsg() : strerror(-err));
	pebs_chanset__delete(set);
	return err || c.failed ? 1 : 0;
}
