// SPDX-License-Identifier: MIT
/*
 * record-calibrate.c - what each event of a budgeted recording costs
 * here, measured (lib/sampling/budget-calibrate.c: a page-fault loop for
 * the events counted per occurrence, a sampled spin loop for the
 * others; for the former also what each event costs while the event is
 * disabled, pebs_budget__calibrate_off) or taken from the per-machine
 * cache of earlier measurements.
 *
 * The measurements are record's fixed start cost (on a 2-core KVM guest
 * about 0.07 s of page faults, 0.15-0.25 s of spin loops for a clock; with
 * the off windows' and a context switch's, 0.22-0.24 s for page faults),
 * more than a whole 1 % budget of a 4 s run; a shorter measurement would
 * be noisier (the cost per event is ~6 % of a fault here, inside a 1 ms
 * run's noise), so the measurement keeps its rounds and its result is
 * kept instead: one line per event and method in a cache file (the
 * caller's path, pebs-shim record's $XDG_CACHE_HOME/pebs-shim/...),
 * under a key that hashes what makes the cost this machine's: the boot
 * (/proc/sys/kernel/random/boot_id: a different machine, or this one
 * rebooted, never has the same), the kernel release, the CPU model and
 * flags, the CPUs online, the method and the event (type, config,
 * exclusions, precision) with what each sample carries. The file is
 * rewritten whole (a temporary file renamed over it, 0600), at most
 * CACHE_LINES lines, the newest last; a malformed line is ignored.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "record/record-int.h"
#include "core/internal.h"

#define CAL_DENSE	20000		/* calibration periods (ns of a clock) */
#define CAL_SPARSE	2000000
#define CAL_TRIES	3		/* a noisy machine: -EAGAIN, */
#define CAL_MS		20		/* then runs twice as long */
#define CAL_FAULT_MS	1		/* a page-fault loop's runs */

#define CACHE_MAX	65536		/* bytes of the file read */
#define CACHE_LINES	REC_CAL_LINES	/* lines kept */
#define CACHE_LINE	REC_CAL_LINE	/* the longest line kept */
/* in every key: a change of what is measured or how changes it */
#define CACHE_VERSION	"pebs-shim budget calibration 1"

/* ---- the key ------------------------------------------------------------ */

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return core_fnv(h, s, strlen(s) + 1);	/* the NUL separates */
}

void rec_cal_machine_parse(struct rec_cal_machine *m, const char *boot_id,
			   const char *release, const char *cpuinfo,
			   unsigned int nr_cpus)
{
	char flags[4096];

	memset(m, 0, sizeof(*m));
	snprintf(m->boot_id, sizeof(m->boot_id), "%.*s",
		 (int)strcspn(boot_id, "\n"), boot_id);
	snprintf(m->release, sizeof(m->release), "%s", release);
	core_cpuinfo_field(cpuinfo, "model name", m->model, sizeof(m->model));
	core_cpuinfo_field(cpuinfo, "flags", flags, sizeof(flags));
	m->flags = fnv_str(CORE_FNV_SEED, flags);
	m->nr_cpus = nr_cpus;
}

/*
 * this machine; false when it cannot be told apart from another (no
 * boot id): then nothing is cached
 */
static bool machine(struct rec_cal_machine *m)
{
	static char cpuinfo[1 << 16];
	char boot[64];
	struct utsname u;

	if (core_read_small("/proc/sys/kernel/random/boot_id", boot,
			    sizeof(boot)) < 0)
		boot[0] = '\0';
	if (core_read_small("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo)) < 0)
		cpuinfo[0] = '\0';
	if (uname(&u))
		u.release[0] = 0;
	rec_cal_machine_parse(m, boot, u.release, cpuinfo,
			      (unsigned int)sysconf(_SC_NPROCESSORS_ONLN));
	return m->boot_id[0] != 0;
}

uint64_t rec_cal_key(const struct rec_cal_machine *m, const char *method,
		     const struct perf_event_attr *a, uint64_t sample_type)
{
	uint64_t h = fnv_str(CORE_FNV_SEED, CACHE_VERSION);
	uint64_t ev[8] = {
		a->type, a->config, a->config1, a->config2, sample_type,
		a->exclude_user | a->exclude_kernel << 1 | a->exclude_hv << 2 |
		a->exclude_guest << 3 | a->exclude_host << 4 |
		a->exclude_idle << 5,
		a->precise_ip, m->nr_cpus,
	};

	h = fnv_str(h, m->boot_id);
	h = fnv_str(h, m->release);
	h = fnv_str(h, m->model);
	h = core_fnv(h, &m->flags, sizeof(m->flags));
	h = fnv_str(h, method);
	return core_fnv(h, ev, sizeof(ev));
}

/* ---- the file -------------------------------------------------------------- */

/*
 * The next line of @*p (advanced past it) into @line (CACHE_LINE bytes);
 * false at the end. A line too long for it comes back empty: malformed.
 */
static bool next_line(const char **p, char line[CACHE_LINE], size_t *len)
{
	const char *s = *p, *end;
	size_t n;

	if (!*s)
		return false;
	end = strchr(s, '\n');
	n = end ? (size_t)(end - s) : strlen(s);
	*p = end ? end + 1 : s + n;
	*len = n;
	if (n >= CACHE_LINE)
		n = 0;
	memcpy(line, s, n);
	line[n] = 0;
	return true;
}

/* a line "KEY TIME V0 V1"; false if malformed (V0 < 0: no data) */
static bool parse_line(const char *line, uint64_t *key,
		       struct rec_cal_entry *e)
{
	char *end;
	int n = 0;

	if (!isxdigit((unsigned char)line[0]))
		return false;
	*key = strtoull(line, &end, 16);
	if (end != line + 16 || *end != ' ')
		return false;
	if (sscanf(end, " %" SCNd64 " %lf %lf%n", &e->when, &e->v[0],
		   &e->v[1], &n) != 3 || end[n])
		return false;
	return e->when > 0 && isfinite(e->v[0]) && isfinite(e->v[1]) &&
	       e->v[1] >= 0;
}

int rec_cal_find(const char *text, uint64_t key, struct rec_cal_entry *e)
{
	char line[CACHE_LINE];
	struct rec_cal_entry got;
	int found = -ENOENT;
	uint64_t k;
	size_t len;

	while (next_line(&text, line, &len)) {
		/* the newest of a key is the last */
		if (parse_line(line, &k, &got) && k == key) {
			*e = got;
			found = 0;
		}
	}
	return found;
}

size_t rec_cal_compose(const char *text, uint64_t key,
		       const struct rec_cal_entry *e, char *out)
{
	/* a ring of the newest CACHE_LINES - 1 lines kept: where, how long */
	const char *at[CACHE_LINES - 1];
	size_t lens[CACHE_LINES - 1], len;
	unsigned int n = 0, first = 0;
	struct rec_cal_entry got;
	char line[CACHE_LINE];
	const char *p = text;
	uint64_t k;

	for (const char *s = p; next_line(&p, line, &len); s = p) {
		if (!parse_line(line, &k, &got) || k == key)
			continue;
		at[n % (CACHE_LINES - 1)] = s;
		lens[n++ % (CACHE_LINES - 1)] = len;
	}
	if (n > CACHE_LINES - 1) {
		first = n % (CACHE_LINES - 1);
		n = CACHE_LINES - 1;
	}
	len = (size_t)sprintf(out, "# %s: KEY TIME V0 V1 (see pebs-shim(1), --budget)\n",
			      CACHE_VERSION);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int j = (first + i) % (CACHE_LINES - 1);

		len += (size_t)sprintf(out + len, "%.*s\n", (int)lens[j], at[j]);
	}
	return len + (size_t)sprintf(out + len, "%016" PRIx64 " %" PRId64 " %.9g %.9g\n",
				     key, e->when, e->v[0], e->v[1]);
}

/* the file's text (at most CACHE_MAX bytes) into @buf; "" if none */
static void read_cache(const char *path, char *buf)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = 0, got;

	if (fd >= 0) {
		while (n < CACHE_MAX &&
		       (got = read(fd, buf + n, (size_t)(CACHE_MAX - n))) > 0)
			n += got;
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
}

int rec_cal_lookup(const char *path, uint64_t key, struct rec_cal_entry *e)
{
	char *buf = malloc(CACHE_MAX + 1);
	int found;

	if (!buf)
		return -ENOMEM;
	read_cache(path, buf);
	found = rec_cal_find(buf, key, e);
	free(buf);
	return found;
}

/* mkdir -p of @path's directory, 0700 (XDG's mode for a cache) */
static int make_dirs(const char *path)
{
	char dir[4096];
	size_t n = strlen(path);

	if (n >= sizeof(dir))
		return core_err(-ENAMETOOLONG, "calibration cache: path too long: %s",
				path);
	memcpy(dir, path, n + 1);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0700) && errno != EEXIST)
			return core_err(-errno, "calibration cache: cannot create %s: %s",
					dir, strerror(errno));
		*p = '/';
	}
	return 0;
}

int rec_cal_store(const char *path, uint64_t key,
		  const struct rec_cal_entry *e)
{
	char *old = malloc(CACHE_MAX + 1), *out = malloc(REC_CAL_FILE_MAX);
	char tmp[4200];
	size_t len;
	int fd, err = 0;

	if (!old || !out) {
		err = core_err(-ENOMEM, "calibration cache: out of memory");
		goto out_free;
	}
	read_cache(path, old);
	len = rec_cal_compose(old, key, e, out);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path,
			     (int)getpid()) >= sizeof(tmp)) {
		err = core_err(-ENAMETOOLONG, "calibration cache: path too long: %s",
			       path);
		goto out_free;
	}
	err = make_dirs(path);
	if (err)
		goto out_free;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = core_err(-errno, "calibration cache: cannot create %s: %s",
			       tmp, strerror(errno));
		goto out_free;
	}
	if (write(fd, out, len) != (ssize_t)len)
		err = core_err(-EIO, "calibration cache: cannot write %s", tmp);
	if (close(fd) && !err)
		err = core_err(-EIO, "calibration cache: cannot write %s", tmp);
	/* atomic: a reader sees the old file or the new one */
	if (!err && rename(tmp, path))
		err = core_err(-errno, "calibration cache: cannot replace %s: %s",
			       path, strerror(errno));
	if (err)
		unlink(tmp);
out_free:
	free(old);
	free(out);
	return err;
}

/* ---- measured or cached ------------------------------------------------- */

/*
 * @ev's two costs by @method (a page-fault loop: per event and per
 * sample; a spin loop: per sample, v[1] unused) from the cache, else
 * measured by @measure and stored; -ENODATA (the event does not fire
 * there) is cached too, as v[0] = -1
 */
static int cached(struct pebs_recorder *r, const char *method,
		  const struct pebs_event *ev, uint64_t sample_type,
		  int (*measure)(const struct pebs_event *ev, uint64_t st,
				 double v[2]),
		  double v[2])
{
	struct rec_budget *bu = &r->bud;
	struct rec_cal_machine m;
	struct rec_cal_entry e;
	uint64_t key = 0, t;
	bool keyed = r->o.cal_cache && machine(&m);
	int err;

	if (keyed)
		key = rec_cal_key(&m, method, &ev->attr, sample_type);
	if (keyed && !r->o.recalibrate && !rec_cal_lookup(r->o.cal_cache, key, &e)) {
		if (!bu->cal_cached_at || e.when < bu->cal_cached_at)
			bu->cal_cached_at = e.when;
		v[0] = e.v[0];
		v[1] = e.v[1];
		return v[0] < 0 ? -ENODATA : 0;
	}
	t = core_mono_ns();
	err = measure(ev, sample_type, v);
	bu->cal_ns += core_mono_ns() - t;
	bu->cal_measured = true;
	if (err && err != -ENODATA)
		return err;
	if (err)
		v[0] = -1, v[1] = 0;
	if (!r->o.cal_cache) {
		snprintf(bu->cal_note, sizeof(bu->cal_note), "no cache given");
	} else if (!keyed) {
		snprintf(bu->cal_note, sizeof(bu->cal_note),
			 "no boot id in /proc/sys/kernel/random/boot_id to tell this machine apart");
	} else {
		e = (struct rec_cal_entry){ .when = time(NULL),
					    .v = { v[0], v[1] } };
		if (rec_cal_store(r->o.cal_cache, key, &e))
			snprintf(bu->cal_note, sizeof(bu->cal_note), "%s",
				 pebs_errmsg());
	}
	return err;
}

static int measure_faults(const struct pebs_event *ev, uint64_t st,
			  double v[2])
{
	int err = -EAGAIN;

	for (int i = 0; i < CAL_TRIES && err == -EAGAIN; i++)
		err = pebs_budget__calibrate_faults(ev, st, CAL_FAULT_MS << i,
						    0, &v[0], &v[1]);
	return err;
}

static int measure_spin(const struct pebs_event *ev, uint64_t st, double v[2])
{
	int err = -EAGAIN;

	(void)st;
	v[1] = 0;
	for (int i = 0; i < CAL_TRIES && err == -EAGAIN; i++)
		err = pebs_budget__calibrate(ev, CAL_DENSE, CAL_SPARSE,
					     CAL_MS << i, 0, &v[0]);
	return err;
}

static int measure_off(const struct pebs_event *ev, uint64_t st, double v[2])
{
	v[1] = 0;
	return pebs_budget__calibrate_off(ev, st, CAL_FAULT_MS, 0, &v[0]);
}

/* @ev's costs per event, per sample and per event while disabled */
static int swevent_costs(struct pebs_recorder *r, const struct pebs_event *ev,
			 uint64_t st, double v[3])
{
	double off[2];
	int err = cached(r, "faults", ev, st, measure_faults, v);

	if (!err)
		err = cached(r, "off", ev, st, measure_off, off);
	/* disabled, it cannot cost more than counting: above it is noise */
	v[2] = off[0] < v[0] ? off[0] : v[0];
	return err;
}

int rec_cal_swevent(struct pebs_recorder *r, unsigned int i, double pf[3])
{
	struct rec_budget *bu = &r->bud;
	uint64_t st = rec_sample_type(r, &r->evs[i]);
	struct pebs_event faults;
	double v[3];
	int err;

	err = swevent_costs(r, &r->evs[i], st, v);
	if (err != -ENODATA) {
		bu->event_cost[i] = v[0];
		bu->cost[i] = v[1];
		bu->off_cost[i] = v[2];
		return err;
	}
	bu->proxy[i] = bu->event_proxy[i] = true;
	if (!pf[1]) {
		err = pebs_event__parse("page-faults", &faults);
		if (!err)
			err = swevent_costs(r, &faults, st, pf);
		if (err)
			return err;
	}
	bu->event_cost[i] = pf[0];
	bu->cost[i] = pf[1];
	bu->off_cost[i] = pf[2];
	return 0;
}

int rec_cal_event(struct pebs_recorder *r, unsigned int i, double *clk)
{
	struct rec_budget *bu = &r->bud;
	struct pebs_event clock;
	double v[2];
	int err;

	bu->proxy[i] = false;
	err = cached(r, "spin", &r->evs[i], 0, measure_spin, v);
	if (err != -ENODATA) {
		bu->cost[i] = v[0];
		return err;
	}
	bu->proxy[i] = true;
	if (!*clk) {
		err = pebs_event__parse("cpu-clock", &clock);
		if (!err)
			err = cached(r, "spin", &clock, 0, measure_spin, v);
		if (err)
			return err;
		*clk = v[0];
	}
	bu->cost[i] = *clk;
	return 0;
}

static int measure_switch(const struct pebs_event *ev, uint64_t st,
			  double v[2])
{
	(void)st;
	v[1] = 0;
	return pebs_budget__calibrate_switch(ev, 0, &v[0]);
}

int rec_cal_switch(struct pebs_recorder *r)
{
	double v[2];
	int err = cached(r, "switch", &r->evs[r->nr_evs], 0, measure_switch,
			 v);

	r->bud.switch_cost = err ? 0 : v[0];
	return err;
}

double pebs_recorder__switch_cost(const struct pebs_recorder *r)
{
	return r && r->bud.b ? r->bud.switch_cost : 0;
}

double pebs_recorder__off_cost(const struct pebs_recorder *r, unsigned int i)
{
	return r && r->bud.b && i < r->nr_evs ? r->bud.off_cost[i] : 0;
}

enum pebs_recorder_cal pebs_recorder__calibration(const struct pebs_recorder *r,
						  int64_t *when, uint64_t *ns,
						  const char **why)
{
	const struct rec_budget *bu = r ? &r->bud : NULL;

	if (when)
		*when = bu ? bu->cal_cached_at : 0;
	if (ns)
		*ns = bu ? bu->cal_ns : 0;
	if (why)
		*why = bu && bu->cal_note[0] ? bu->cal_note : NULL;
	if (!bu || !bu->b)
		return PEBS_RECORDER_CAL_NONE;
	if (!bu->cal_measured)
		return PEBS_RECORDER_CAL_CACHED;
	return bu->cal_note[0] ? PEBS_RECORDER_CAL_UNCACHED :
	       PEBS_RECORDER_CAL_MEASURED;
}
