// SPDX-License-Identifier: MIT
/*
 * record-out.c - where a recording goes: a perf.data file
 * through the library's writer, or a CSV file with one row per sample;
 * "-" is standard output (perf's pipe format, or CSV). Both are buffered
 * (the writer batches records; the CSV stream has a large stdio buffer):
 * no system call per sample.
 *
 * Nothing on disk changes before recording really starts: the path is
 * only checked at rec_out_open(); the file appears (an existing one
 * becoming FILE.old) at the first record written after the start, or
 * at rec_out_close(); rec_out_discard() leaves the disk as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record-int.h"
#include "core/internal.h"

#define CSV_BUF		(1u << 20)
#define REC_MAX		(64u << 10)	/* a perf record is at most 64 KiB */

struct rec_out {
	struct rec_out_conf conf;
	/* perf */
	struct pebs_perfdata_writer *w;
	uint64_t *scratch;		/* re-encoded records */
	const struct perf_event_attr *attrs;	/* rec_out_start's */
	struct pebs_sample_layout *layouts;	/* of each of attrs */
	bool begun;			/* the output is at its path */
	bool failed;			/* a write failed (the caller said so) */
	uint64_t max_time;		/* the newest TIME read or written */
	/* csv */
	bool csv_stdout;
	FILE *csv;
	char *csvbuf;
	struct pebs_symbols *syms;
};

static void on_xfsz(int sig)
{
	(void)sig;
}

static bool is_stdout(const char *path)
{
	return !strcmp(path, "-");
}

int rec_out_open(const struct rec_out_conf *conf, struct rec_out **outp)
{
	struct sigaction xfsz = { .sa_handler = on_xfsz, .sa_flags = SA_RESTART };
	struct rec_out *out = calloc(1, sizeof(*out));
	int err;

	if (!out)
		return -ENOMEM;
	out->conf = *conf;
	/*
	 * past ulimit -f, write() fails with EFBIG instead of killing us;
	 * caught, not ignored: exec resets a handler, so the command keeps
	 * the default
	 */
	sigaction(SIGXFSZ, &xfsz, NULL);
	if (conf->format == PEBS_RECORDER_PERF) {
		if (is_stdout(conf->path))
			err = pebs_perfdata_writer__create_pipe(STDOUT_FILENO,
								&out->w);
		else
			err = pebs_perfdata_writer__create(conf->path, &out->w);
		if (err)
			goto out_free;
		out->scratch = malloc(REC_MAX + 16);
		if (!out->scratch) {
			err = core_err(-ENOMEM, "out of memory");
			goto out_free;
		}
	} else {
		out->csv_stdout = is_stdout(conf->path);
		if (!out->csv_stdout && (err = pebs_output__check(conf->path)))
			goto out_free;
		out->csvbuf = malloc(CSV_BUF);
		err = pebs_symbols__new(&out->syms);
		if (err || !out->csvbuf) {
			err = core_err(-ENOMEM, "out of memory");
			goto out_free;
		}
		/* kernel symbols when kallsyms shows addresses */
		pebs_symbols__load_kallsyms(out->syms);
	}
	*outp = out;
	return 0;

out_free:
	rec_out_discard(out);
	return err;
}

/*
 * Recording runs: give the output its path (an existing file becomes
 * FILE.old). Called by the first record written after the start.
 */
static int begin(struct rec_out *out)
{
	const char *path = out->conf.path;
	int err, fd;

	if (out->begun)
		return 0;
	out->begun = true;
	if (out->w) {
		err = pebs_perfdata_writer__commit(out->w);
		out->failed |= err != 0;
		return err;
	}
	if (out->csv_stdout) {
		out->csv = stdout;
	} else {
		err = pebs_output__backup(path);
		if (err)
			return err;
		/* private (0600) as perf.data: the rows hold addresses */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		out->csv = fd < 0 ? NULL : fdopen(fd, "w");
		if (!out->csv) {
			err = -errno;
			if (fd >= 0)
				close(fd);
			return core_err(err, "cannot create %s: %s: choose a writable path with -o",
					path, strerror(-err));
		}
	}
	setvbuf(out->csv, out->csvbuf, _IOFBF, CSV_BUF);
	if (fputs("time,cpu,tgid,pid,comm,event,ip,symbol,addr,weight,data_src\n",
		  out->csv) < 0)
		return core_err(-EIO, "cannot write %s: %s", path,
				strerror(EIO));
	return 0;
}

/* the event index of a channel, by the event it was opened with */
static int ev_index(const struct rec_out_conf *conf,
		    const struct pebs_event *ev)
{
	for (unsigned int i = 0; i < conf->nr_evs; i++)
		if (!strcmp(conf->evs[i].name, ev->name))
			return (int)i;
	return -1;
}

int rec_out_start(struct rec_out *out, struct pebs_chanset *set,
		  const struct perf_event_attr *attrs)
{
	const struct rec_out_conf *conf = &out->conf;
	unsigned int n = pebs_chanset__nr_channels(set);
	uint64_t *ids;
	unsigned int *nr;
	int err = 0;

	if (!out->w)
		return 0;
	/* ids[e * n + k]: the k-th id of event e */
	ids = calloc((size_t)n * conf->nr_evs + 1, sizeof(*ids));
	nr = calloc(conf->nr_evs, sizeof(*nr));
	out->layouts = calloc(conf->nr_evs + 1, sizeof(*out->layouts));
	if (!ids || !nr || !out->layouts) {
		err = core_err(-ENOMEM, "out of memory");
		goto out_free;
	}
	/* the kernel's layouts, which the TID is added to */
	out->attrs = attrs;
	for (unsigned int e = 0; e < conf->nr_evs; e++)
		pebs_sample_layout__init(&out->layouts[e], &attrs[e]);
	for (unsigned int i = 0; i < n; i++) {
		struct pebs_channel *ch = pebs_chanset__channel(set, i);
		int e = ev_index(conf, pebs_channel__event(ch));
		uint64_t id;

		if (e < 0 || pebs_channel__id(ch, &id))
			continue;
		ids[(size_t)e * n + nr[e]++] = id;
	}
	for (unsigned int e = 0; e < conf->nr_evs; e++) {
		struct perf_event_attr attr = attrs[e];
		const struct pebs_event *ev = &conf->evs[e];
		const char *name = ev->name;

		if (conf->add_tid)
			attr.sample_type |= PERF_SAMPLE_TID;
		if (!strcmp(name, "auto") && ev->resolved[0])
			name = ev->resolved;
		err = pebs_perfdata_writer__add_attr(out->w, &attr,
						     &ids[(size_t)e * n], nr[e],
						     name);
		if (err) {
			rec_err(err, "cannot describe event %s in the output: %s",
				ev->name, pebs_errmsg());
			break;
		}
	}
	if (!err && conf->objects &&
	    (err = rec_objects_attrs(out->w, &attrs[0])))
		rec_err(err, "cannot describe the object events in the output: %s",
			pebs_errmsg());
	if (!err && conf->cycles && (err = rec_duty_attr(out->w, &attrs[0])))
		rec_err(err, "cannot describe the cycle event in the output: %s",
			pebs_errmsg());
	/* {a,b}: the leader and its members follow each other in evs */
	for (unsigned int e = 0; e < conf->nr_evs && !err; e++)
		if (conf->evs[e].leader == e && conf->evs[e].nr_members > 1 &&
		    (err = pebs_perfdata_writer__add_group(out->w, e,
				conf->evs[e].nr_members, NULL)))
			rec_err(err, "cannot describe group %s in the output: %s",
				conf->evs[e].name, pebs_errmsg());
out_free:
	free(ids);
	free(nr);
	return err;
}

int rec_out_dummy(struct pebs_perfdata_writer *w,
		  const struct perf_event_attr *like, uint64_t sample_type,
		  uint64_t id, const char *name)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY, .sample_period = 1,
		.sample_type = sample_type,
		.exclude_kernel = 1, .exclude_hv = 1,
		.sample_id_all = like->sample_id_all,
		.use_clockid = like->use_clockid,
		.clockid = like->clockid,
	};

	return pebs_perfdata_writer__add_attr(w, &a, &id, 1, name);
}

int rec_out_cmdline(struct rec_out *out, int argc, const char *const *argv)
{
	if (!out->w)
		return 0;
	return pebs_perfdata_writer__set_cmdline(out->w, argc, argv);
}

int rec_out_meta(struct rec_out *out, const char *key, const char *value)
{
	if (!out->w)
		return 0;
	return pebs_perfdata_writer__set_meta(out->w, key, value);
}

int rec_out_synth_process(struct rec_out *out, pid_t pid)
{
	int err;

	if (out->w)
		err = pebs_perfdata_writer__synth_task(out->w, pid);
	else
		err = pebs_symbols__load_pid(out->syms, pid);
	/*
	 * a process that exits meanwhile, or whose maps we may not read,
	 * only loses its names; running out of memory or disk is an error
	 */
	if (err == -ENOMEM || err == -ENOSPC || err == -EFBIG || err == -EIO) {
		return rec_err(err, "cannot describe process %d in %s: %s",
			       pid, out->conf.path, pebs_errmsg());
	}
	return 0;
}

void rec_out_saw_time(struct rec_out *out, uint64_t time)
{
	if (time > out->max_time)
		out->max_time = time;
}

/* @attr's sample layout: rec_out_start's, else made in @own */
static const struct pebs_sample_layout *
layout_of(const struct rec_out *out, const struct perf_event_attr *attr,
	  struct pebs_sample_layout *own)
{
	if (out->attrs && attr >= out->attrs &&
	    attr < out->attrs + out->conf.nr_evs)
		return &out->layouts[attr - out->attrs];
	pebs_sample_layout__init(own, attr);
	return own;
}

static int write_rec(struct rec_out *out, const struct perf_event_attr *attr,
		     const struct perf_event_header *ev,
		     const struct rec_who *who)
{
	struct pebs_sample_layout own;
	const struct pebs_sample_layout *l;
	struct pebs_sample id;
	int n, err;

	/* a side-band record's time (the samples' were seen as read) */
	if (out->conf.cycles && ev->type != PERF_RECORD_SAMPLE &&
	    attr->sample_id_all && (attr->sample_type & PERF_SAMPLE_TIME) &&
	    !pebs_sample__decode_id(layout_of(out, attr, &own), ev, &id))
		rec_out_saw_time(out, id.time);
	if (!out->conf.add_tid)
		return pebs_perfdata_writer__write(out->w, ev);
	l = layout_of(out, attr, &own);
	n = pebs_sample__add_tid(l, attr->sample_id_all, ev, who->tgid,
				 who->tid, out->scratch, REC_MAX + 16);
	if (n < 0)
		return n == -EBADMSG ? 0 : n;	/* drop a malformed record */
	err = pebs_perfdata_writer__write(out->w,
				(const struct perf_event_header *)out->scratch);
	return err;
}

static int csv_row(struct rec_out *out, unsigned int ev_idx,
		   const struct pebs_sample *s, const struct rec_who *who)
{
	FILE *f = out->csv;
	struct pebs_sym sym;
	char buf[256];
	bool has = s->present & PERF_SAMPLE_IP;

	fprintf(f, "%llu,%u,%d,%d,", (unsigned long long)s->time, s->cpu,
		who->tgid, who->tid);
	pebs_csv__str(f, pebs_attrib__comm(out->conf.comms, who->tid, NULL));
	fputc(',', f);
	pebs_csv__str(f, out->conf.evs[ev_idx].name);
	fprintf(f, ",0x%llx,", (unsigned long long)s->ip);
	if (has && who->tgid >= 0) {
		pebs_symbols__resolve(out->syms, who->tgid, s->ip, &sym);
		pebs_sym__str(&sym, s->ip, buf, sizeof(buf));
		pebs_csv__str(f, buf);
	}
	fputc(',', f);
	if (s->present & PERF_SAMPLE_ADDR)
		fprintf(f, "0x%llx", (unsigned long long)s->addr);
	fputc(',', f);
	if (s->present & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		fprintf(f, "%llu", (unsigned long long)s->weight);
	fputc(',', f);
	if (s->present & PERF_SAMPLE_DATA_SRC) {
		pebs_data_src__str(s->data_src, buf, sizeof(buf));
		pebs_csv__str(f, buf);
	}
	fputc('\n', f);
	return ferror(f) ? core_err(-EIO, "cannot write %s: %s",
				    out->conf.path, strerror(EIO)) : 0;
}

int rec_out_sample(struct rec_out *out, unsigned int ev_idx,
		   const struct perf_event_attr *attr,
		   const struct pebs_sample *s,
		   const struct perf_event_header *raw,
		   const struct rec_who *who)
{
	int err = begin(out);

	if (err)
		return err;
	err = out->w ? write_rec(out, attr, raw, who) :
		       csv_row(out, ev_idx, s, who);
	out->failed |= err != 0;
	return err;
}

int rec_out_record(struct rec_out *out, const struct perf_event_attr *attr,
		   const struct perf_event_header *ev,
		   const struct rec_who *who)
{
	int err = begin(out);

	if (err)
		return err;
	if (!out->w)
		return pebs_symbols__add_record(out->syms, ev);
	err = write_rec(out, attr, ev, who);
	out->failed |= err != 0;
	return err;
}

uint64_t rec_out_max_time(const struct rec_out *out)
{
	return out->max_time;
}

int rec_out_raw(struct rec_out *out, const struct perf_event_header *ev,
		uint64_t time)
{
	int err = begin(out);

	rec_out_saw_time(out, time);
	if (err || !out->w)
		return err;
	err = pebs_perfdata_writer__write(out->w, ev);
	out->failed |= err != 0;
	return err;
}

int rec_out_round(struct rec_out *out)
{
	static const struct perf_event_header round = {
		.type = PEBS_PERF_RECORD_FINISHED_ROUND,
		.size = sizeof(round),
	};
	int err = begin(out);

	if (err || !out->w)
		return err;
	err = pebs_perfdata_writer__write(out->w, &round);
	out->failed |= err != 0;
	return err;
}

uint64_t rec_out_samples(const struct rec_out *out, uint64_t csv_rows)
{
	if (out->w)
		return pebs_perfdata_writer__stats(out->w)->samples;
	return csv_rows;
}

int rec_out_close(struct rec_out *out)
{
	int err = begin(out);

	if (out->w) {
		int err2 = pebs_perfdata_writer__close(out->w);

		out->w = NULL;
		/* a write error was said when it happened */
		if (err2 && !err && !out->failed)
			rec_err(err2, "cannot finish %s: %s", out->conf.path,
				pebs_errmsg());
		err = err ? err : err2;
		/* as perf record: its build-id table into ~/.debug */
		if (!err && out->conf.buildid_cache &&
		    !is_stdout(out->conf.path))
			pebs_buildid_cache__add_perfdata(out->conf.path);
	} else if (out->csv) {
		int bad = out->csv_stdout ? fflush(out->csv) : fclose(out->csv);

		if (bad && !err) {
			err = core_err(-errno, "cannot finish %s: %s: free space on its file system",
				       out->conf.path, strerror(errno));
		}
		out->csv = NULL;
	}
	rec_out_discard(out);
	return err;
}

void rec_out_discard(struct rec_out *out)
{
	if (!out)
		return;
	pebs_perfdata_writer__discard(out->w);
	if (out->csv && !out->csv_stdout)
		fclose(out->csv);
	else if (out->csv)
		fflush(out->csv);
	pebs_symbols__delete(out->syms);
	free(out->csvbuf);
	free(out->scratch);
	free(out->layouts);
	free(out);
}
