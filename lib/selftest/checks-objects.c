// SPDX-License-Identifier: MIT
/*
 * checks-objects.c - record --objects on a known workload (issue 24):
 * three heap objects allocated at three sites of known sizes and read in
 * known proportions; the samples' data addresses must resolve to them by
 * allocation site (the objects table `report --sort object` uses) in
 * those proportions. With the precise memory load event where the
 * machine has one (the loads, their weights and data sources joined to
 * the objects: the part only hardware shows), else with page-faults -d
 * (software: each page faults once, on its first write), so that the
 * check runs everywhere the interposer does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define PAGE 4096u
#define PASSES 256	/* object i is read spec[i].passes x PASSES times */
/* the precise event's period: about 2,500 samples of the workload's
   ~2.5 x 10^8 loads at most (16-byte loads: fewer), in about 0.2 s, well
   under the kernel's sample rate limit (no throttling) */
#define PRECISE_PERIOD "100003"
#define MIN_SAMPLES 1000
#define REC_CANNOT_START 124	/* record's exit status: events, file */

/* the objects: sizes 2:1:1, read 1:2:4 times: loads 1:1:2, pages 2:1:1 */
static const struct {
	const char *site;
	size_t size;
	unsigned int passes;
} spec[ST_OBJECTS] = {
	{ "objects_site_a", 2u << 20, 1 },
	{ "objects_site_b", 1u << 20, 2 },
	{ "objects_site_c", 1u << 20, 4 },
};

/*
 * Write @p (@n bytes) with @byte, its pages one fault each (no huge
 * page). Each site passes its own byte, so that the compiler cannot fold
 * the three sites into one function (one return address, one site).
 */
static char *fill(char *p, size_t n, int byte)
{
	uintptr_t lo = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(PAGE - 1);

	if (!p)
		return NULL;
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
	memset(p, byte, n);
	return p;
}

/* the three allocation sites: malloc's return address is in each */
static __attribute__((noinline)) char *objects_site_a(size_t n)
{
	return fill(malloc(n), n, 'a');
}

static __attribute__((noinline)) char *objects_site_b(size_t n)
{
	return fill(malloc(n), n, 'b');
}

static __attribute__((noinline)) char *objects_site_c(size_t n)
{
	return fill(malloc(n), n, 'c');
}

static uint64_t read_obj(const char *p, size_t n, unsigned int passes)
{
	uint64_t sum = 0, w;
	unsigned int i;
	size_t off;

	for (i = 0; i < passes; i++)
		for (off = 0; off < n; off += sizeof(w)) {
			memcpy(&w, p + off, sizeof(w));
			sum += w;
		}
	return sum;
}

int st_wl_objects(FILE *out)
{
	char *(*const site[ST_OBJECTS])(size_t) = { objects_site_a,
						     objects_site_b,
						     objects_site_c };
	char *obj[ST_OBJECTS];
	struct st_clock clk;
	uint64_t sum = 0;
	unsigned int i;
	int tid = (int)syscall(SYS_gettid);

	st_clock_start(&clk);
	for (i = 0; i < ST_OBJECTS; i++) {
		obj[i] = site[i](spec[i].size);
		if (!obj[i]) {
			size_t size = spec[i].size;

			while (i--)
				free(obj[i]);
			return core_err(-ENOMEM, "workload objects: cannot "
					"allocate %zu bytes", size);
		}
	}
	fprintf(out, "workload=objects\nbuffer=%#lx+%zu\nthread.0=%d %#lx+%zu\n",
		(unsigned long)obj[0], spec[0].size, tid, (unsigned long)obj[0],
		spec[0].size);
	for (i = 0; i < ST_OBJECTS; i++)
		fprintf(out, "object.%u=%s %#lx+%zu %u\n", i, spec[i].site,
			(unsigned long)obj[i], spec[i].size,
			spec[i].passes * PASSES);
	for (i = 0; i < ST_OBJECTS; i++)
		sum += read_obj(obj[i], spec[i].size, spec[i].passes * PASSES);
	st_clock_print(&clk, out);
	fprintf(out, "sum=%llu\n", (unsigned long long)sum);
	for (i = 0; i < ST_OBJECTS; i++)
		free(obj[i]);
	return ferror(out) ? core_err(-EIO, "workload: cannot write its "
				      "layout") : 0;
}

/* what the workload printed of its objects: 0, or -EINVAL */
static int objects_parse(const char *s, struct st_objects_fig *f)
{
	unsigned int n = 0, i, passes;
	unsigned long addr, size;
	char name[64];

	for (; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (sscanf(s, "object.%u=%63s %lx+%lu %u", &i, name, &addr,
			   &size, &passes) == 5 && i == n && n < ST_OBJECTS) {
			f->lo[n] = addr;
			f->len[n] = size;
			/* what the event sees of it: loads of every pass,
			   or a fault per page */
			f->want[n] = (double)size * (f->precise ? passes : 1);
			n++;
		}
	return n == ST_OBJECTS ? 0 : -EINVAL;
}

/* the object whose site @label names (its first frame), else -1 */
static int site_of(const char *label)
{
	unsigned int i;
	size_t n;

	for (i = 0; label && i < ST_OBJECTS; i++) {
		n = strlen(spec[i].site);
		if (!strncmp(label, spec[i].site, n) &&
		    (label[n] == ' ' || !label[n]))
			return (int)i;
	}
	return -1;
}

struct scan {
	struct pebs_perfdata *pd;
	struct st_objects_fig *f;
};

static int on_sample(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *rs)
{
	struct scan *sc = arg;
	struct st_objects_fig *f = sc->f;
	union perf_mem_data_src src;
	int truth = -1, site;
	unsigned int i;

	if (pebs_objects__event(sc->pd, rs->event) ||
	    !(s->present & PERF_SAMPLE_ADDR))
		return 0;
	/* IBS samples stores too: the objects' loads only (a software
	   event's data source is NA) */
	src.val = s->data_src;
	if ((s->present & PERF_SAMPLE_DATA_SRC) && src.mem_op &&
	    !(src.mem_op & (PERF_MEM_OP_NA | PERF_MEM_OP_LOAD)))
		return 0;
	f->with_addr++;
	for (i = 0; i < ST_OBJECTS; i++)
		if (s->addr >= f->lo[i] && s->addr - f->lo[i] < f->len[i])
			truth = (int)i;
	site = site_of(rs->object);
	if (truth >= 0) {
		f->inside++;
		f->agree += site == truth;
	}
	if (site >= 0) {
		f->site[site]++;
		f->weighted += (s->present & (PERF_SAMPLE_WEIGHT |
					      PERF_SAMPLE_WEIGHT_STRUCT)) &&
			       s->weight;
	}
	return 0;
}

/* the recording @path resolved through its objects into @f: 0, -errno */
static int objects_scan(const char *path, struct st_objects_fig *f)
{
	struct pebs_session *ss = NULL;
	struct pebs_objects *objs = NULL;
	struct scan sc = { .f = f };
	int err;

	err = pebs_perfdata__open(path, &sc.pd);
	if (err)
		return err;
	err = pebs_session__new(sc.pd, &ss);
	if (!err)
		err = pebs_session__use_objects(ss, 0, &objs);
	if (!err)
		err = pebs_session__process(ss, true, on_sample, &sc, NULL);
	f->objects = objs ? pebs_objects__count(objs) : 0;
	pebs_session__delete(ss);
	pebs_objects__delete(objs);
	pebs_perfdata__close(sc.pd);
	return err;
}

/*
 * The rules, the figures into @r's details. Page faults: each page of an
 * object faults once, on its first write (the first page of each, which
 * malloc's chunk header shares, in malloc: outside the object), so the
 * shares are the pages' to 0.1 point: 1 point allowed. Loads: sampled
 * every PRECISE_PERIOD, a share p of n >= MIN_SAMPLES samples has a
 * standard error under 1.6 points: 5 points allowed (over 3 of them).
 */
unsigned int st_objects_judge(struct pebs_selftest_result *r,
			      const struct st_objects_fig *f)
{
	double tol = f->precise ? 5 : 1, want = 0, got;
	uint64_t on = 0;
	unsigned int i, bad = 0;

	for (i = 0; i < ST_OBJECTS; i++) {
		want += f->want[i];
		on += f->site[i];
	}
	st_detail(r, "objects=%llu", (unsigned long long)f->objects);
	st_detail(r, "with_addr=%llu", (unsigned long long)f->with_addr);
	st_detail(r, "inside=%llu", (unsigned long long)f->inside);
	st_detail(r, "inside_by_site=%llu", (unsigned long long)f->agree);
	for (i = 0; i < ST_OBJECTS; i++) {
		got = on ? 100.0 * (double)f->site[i] / (double)on : 0;
		st_detail(r, "%s=%llu samples, %.2f %% (want %.2f %%)",
			  spec[i].site, (unsigned long long)f->site[i], got,
			  want > 0 ? 100 * f->want[i] / want : 0);
		bad += want <= 0 || got - 100 * f->want[i] / want > tol ||
		       100 * f->want[i] / want - got > tol;
	}
	bad += on < MIN_SAMPLES;
	bad += !f->inside || f->agree * 100 < f->inside * 99;
	if (f->precise) {
		st_detail(r, "with_weight=%llu", (unsigned long long)f->weighted);
		bad += !on || f->weighted * 100 < on * 99;
	}
	return bad;
}

void st_check_objects(struct pebs_selftest_result *r,
		      const struct pebs_selftest_opts *o)
{
	const char *args[] = { "record", "--objects", "-e", "page-faults:u",
			       "-d", "-c", "1", NULL, NULL };
	struct pebs_selftest_result why = { .sz = sizeof(why) };
	struct st_objects_fig f = { 0 };
	char path[600], *argv[20], line[256], evstr[128 + 8];
	struct st_layout l;
	struct st_cmds c;
	int err;

	if (st_load_event(&why, evstr, sizeof(evstr))) {
		args[3] = evstr;
		args[6] = PRECISE_PERIOD;
		args[7] = "-W";
		f.precise = true;
	}
	if (st_cmds_init(r, o, false, &c))
		return;
	st_detail(r, "event=%s", args[3]);
	if (!f.precise)
		st_detail(r, "why_not_precise=%s", why.message);
	snprintf(path, sizeof(path), "%s/objects.data", c.dir);
	st_wl_argv(&c, 1, args, path, "objects", argv);
	if (st_run_wl(r, &c, argv, &l)) {
		/* record could not start (exit 124, pebs-shim(1)): no
		   interposer found by its search, or the event refused here
		   (its precise event to a user, page faults at paranoid 3) */
		if (c.run->status == REC_CANNOT_START)
			st_set(r, PEBS_SELFTEST_SKIP, "%s", st_last_line(
			       c.run->err, line, sizeof(line)));
		goto out;
	}
	err = objects_parse(c.run->out, &f);
	if (!err)
		err = objects_scan(path, &f);
	if (err) {
		st_set(r, PEBS_SELFTEST_FAIL, "the workload's objects or the "
		       "recording %s: %s", path, *pebs_errmsg() ?
		       pebs_errmsg() : strerror(-err));
		goto out;
	}
	if (!f.objects) {
		st_set(r, PEBS_SELFTEST_SKIP, "no allocation in the recording: "
		       "the interposer did not run in the workload (%s)",
		       *c.run->err ? st_last_line(c.run->err, line,
						  sizeof(line)) : "record "
		       "said nothing");
		goto out;
	}
	if (!st_objects_judge(r, &f))
		st_set(r, PEBS_SELFTEST_PASS, "record --objects -e %s%s: %llu "
		       "of %llu samples in the objects resolved to their "
		       "sites, shares %.1f/%.1f/%.1f %% as the workload's "
		       "%s%s", args[3], f.precise ? "" :
		       " (no precise memory event here)",
		       (unsigned long long)f.agree,
		       (unsigned long long)f.inside,
		       100.0 * (double)f.site[0] / (double)(f.site[0] +
			       f.site[1] + f.site[2]),
		       100.0 * (double)f.site[1] / (double)(f.site[0] +
			       f.site[1] + f.site[2]),
		       100.0 * (double)f.site[2] / (double)(f.site[0] +
			       f.site[1] + f.site[2]),
		       f.precise ? "loads" : "pages",
		       f.precise ? ", the loads with weights" : "");
	else
		st_set(r, PEBS_SELFTEST_FAIL, "record --objects -e %s: the "
		       "samples in the objects resolved to their sites (want "
		       ">= 99 %%, >= %u samples) in the workload's proportions "
		       "(within %d points)%s: see the figures", args[3],
		       MIN_SAMPLES, f.precise ? 5 : 1, f.precise ?
		       ", the loads with weights (>= 99 %)" : "");
out:
	st_cmds_done(&c);
}
