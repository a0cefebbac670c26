// SPDX-License-Identifier: MIT
/*
 * filter.c - which samples a report counts, with perf report's options
 * and its semantics: --cpu, --time and --event leave samples out (the shares are
 * of what remains), --comm, --pid, --tid, --dsos and --symbols hide rows
 * (the shares stay of all samples). The options:
 * --comm, --pid, --tid, --dsos, --symbols (comma-separated lists; a dso
 * by its file's name or its path, a symbol by its name), --cpu (a CPU
 * list) and
 * --time (perf's syntax: "start,end" in seconds of the perf clock,
 * either side may be empty; "A%-B%" ranges of the recording's span;
 * "N%/M", the M-th slice of N %; several of them comma-separated).
 * Events set aside (pebs_filter__aside: record --objects' bookkeeping)
 * are no samples of the report at all, whatever the other options.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/session.h"
#include "core/internal.h"

#define MAX_RANGES	64

struct range {
	uint64_t start, end;	/* inclusive, ns */
};

/* a set of events (attr indices) */
struct evset {
	uint64_t *bits;		/* NULL: empty */
	unsigned int max;	/* bits in it */
};

/* names given to an option, any of them */
struct names {
	char **v;
	size_t n;
};

struct pebs_filter {
	struct names comms, dsos, syms;
	struct pebs_ids pids, tids;
	uint64_t *cpus;		/* bitmap, NULL: any */
	struct range ranges[MAX_RANGES];
	unsigned int nr_ranges;	/* 0: any time */
	struct evset events;	/* the events kept; empty: any */
	struct evset aside;	/* the events set aside */
};

int pebs_filter__new(struct pebs_filter **fp)
{
	if (!fp)
		return core_err(-EINVAL, "filter: no result pointer");
	*fp = calloc(1, sizeof(**fp));
	return *fp ? 0 : core_err(-ENOMEM, "filter: out of memory");
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* @list's comma-separated names added to @l; @what: the option */
static int names_add(struct names *l, const char *list, const char *what,
		     const char *example)
{
	const char *p = list;

	if (!list || !*list)
		return core_err(-EINVAL, "%s: give names such as %s", what,
				example);
	while (*p) {
		size_t len = strcspn(p, ",");
		char **n = realloc(l->v, (l->n + 1) * sizeof(*n));

		if (!n)
			return core_err(-ENOMEM, "filter: out of memory");
		l->v = n;
		n[l->n] = strndup(p, len);
		if (!n[l->n])
			return core_err(-ENOMEM, "filter: out of memory");
		l->n++;
		p += len + (p[len] == ',');
	}
	return 0;
}

static bool names_has(const struct names *l, const char *name)
{
	for (size_t i = 0; name && i < l->n; i++)
		if (!strcmp(name, l->v[i]))
			return true;
	return false;
}

void pebs_filter__delete(struct pebs_filter *f)
{
	if (!f)
		return;
	names_free(&f->comms);
	names_free(&f->dsos);
	names_free(&f->syms);
	pebs_ids__free(&f->pids);
	pebs_ids__free(&f->tids);
	free(f->cpus);
	free(f->events.bits);
	free(f->aside.bits);
	free(f);
}

static int evset_add(struct evset *s, unsigned int idx)
{
	if (idx >= s->max) {
		unsigned int n = (idx / 64 + 1) * 64;
		uint64_t *e = realloc(s->bits, n / 64 * sizeof(*e));

		if (!e)
			return core_err(-ENOMEM, "filter: out of memory");
		memset(e + s->max / 64, 0, (n - s->max) / 64 * sizeof(*e));
		s->bits = e;
		s->max = n;
	}
	s->bits[idx / 64] |= 1ull << (idx % 64);
	return 0;
}

static bool evset_has(const struct evset *s, unsigned int idx)
{
	return idx < s->max && (s->bits[idx / 64] & (1ull << (idx % 64)));
}

int pebs_filter__event(struct pebs_filter *f, unsigned int idx)
{
	if (!f)
		return core_err(-EINVAL, "filter: none");
	return evset_add(&f->events, idx);
}

int pebs_filter__aside(struct pebs_filter *f, unsigned int idx)
{
	if (!f)
		return core_err(-EINVAL, "filter: none");
	return evset_add(&f->aside, idx);
}

unsigned int pebs_filter__nr_sampled(const struct pebs_filter *f,
				     const struct pebs_session_stats *st,
				     unsigned int *first)
{
	unsigned int i, n = 0;

	if (first)
		*first = 0;
	for (i = 0; st && i < st->nr_events; i++) {
		if (!st->event_samples[i] || (f && evset_has(&f->aside, i)))
			continue;
		if (!n++ && first)
			*first = i;
	}
	return n;
}

int pebs_filter__comms(struct pebs_filter *f, const char *list)
{
	return f ? names_add(&f->comms, list, "--comm", "bash,memwalk") :
		   core_err(-EINVAL, "filter: none");
}

int pebs_filter__dsos(struct pebs_filter *f, const char *list)
{
	return f ? names_add(&f->dsos, list, "--dsos", "libc.so.6,memwalk") :
		   core_err(-EINVAL, "filter: none");
}

int pebs_filter__symbols(struct pebs_filter *f, const char *list)
{
	return f ? names_add(&f->syms, list, "--symbols", "main,chase") :
		   core_err(-EINVAL, "filter: none");
}

static int parse_ids(const char *what, const char *list,
		     struct pebs_ids *ids)
{
	char why[256];
	int err = pebs_ids__parse(ids, list);

	if (err != -EINVAL)
		return err;
	snprintf(why, sizeof(why), "%s", pebs_errmsg());
	return core_err(err, "%s: %s", what, why);
}

int pebs_filter__pids(struct pebs_filter *f, const char *list)
{
	return f ? parse_ids("--pid", list, &f->pids) :
		   core_err(-EINVAL, "filter: none");
}

int pebs_filter__tids(struct pebs_filter *f, const char *list)
{
	return f ? parse_ids("--tid", list, &f->tids) :
		   core_err(-EINVAL, "filter: none");
}

int pebs_filter__events(struct pebs_filter *f, const struct pebs_perfdata *pd,
			const char *names)
{
	unsigned int i, nr = pebs_perfdata__nr_attrs(pd);
	const char *p = names;
	int err;

	if (!f || !pd || !names || !*names)
		return core_err(-EINVAL, "--event: give event names such as "
				"cycles,instructions");
	while (*p) {
		size_t len = strcspn(p, ",");

		for (i = 0; i < nr; i++) {
			const char *name = pebs_perfdata__attr_name(pd, i);

			if (name && strlen(name) == len && !strncmp(name, p, len))
				break;
		}
		if (i == nr)
			return core_err(-ENOENT, "the recording has no event "
					"'%.*s': see the events pebs-shim "
					"report lists", (int)len, p);
		err = pebs_filter__event(f, i);
		if (err)
			return err;
		p += len + (p[len] == ',');
	}
	return 0;
}

int pebs_filter__option(struct pebs_filter *f, const char *name,
			const char *arg)
{
	static const struct {
		const char *name;
		int (*add)(struct pebs_filter *f, const char *list);
	} opts[] = {
		{ "comm", pebs_filter__comms }, { "pid", pebs_filter__pids },
		{ "tid", pebs_filter__tids }, { "cpu", pebs_filter__cpus },
		{ "dsos", pebs_filter__dsos }, { "symbols", pebs_filter__symbols },
	};

	for (size_t i = 0; name && i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strcmp(name, opts[i].name))
			return opts[i].add(f, arg);
	return core_err(-EINVAL, "filter: no option '%s': give comm, pid, "
			"tid, cpu, dsos or symbols", name ? name : "(null)");
}

int pebs_filter__count(const struct pebs_filter *f, const char *name)
{
	const struct names *l = !f || !name ? NULL :
		!strcmp(name, "comm") ? &f->comms :
		!strcmp(name, "dsos") ? &f->dsos :
		!strcmp(name, "symbols") ? &f->syms : NULL;

	return l ? (int)l->n : core_err(-EINVAL, "filter: no list '%s': give "
					"comm, dsos or symbols",
					name ? name : "(null)");
}

int pebs_filter__cpus(struct pebs_filter *f, const char *list)
{
	int err;

	if (!f)
		return core_err(-EINVAL, "filter: none");
	free(f->cpus);
	f->cpus = calloc(PEBS_MAX_CPUS / 64, sizeof(*f->cpus));
	if (!f->cpus)
		return core_err(-ENOMEM, "filter: out of memory");
	err = pebs_cpulist__parse(list, PEBS_MAX_CPUS, f->cpus);
	if (err) {
		free(f->cpus);
		f->cpus = NULL;
	}
	return err;
}

/* "sec[.frac]" (up to 9 fraction digits) in ns; "" is @dflt. */
static int parse_sec(const char *s, size_t len, uint64_t dflt, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ull;
	size_t i = 0;

	if (!len) {
		*ns = dflt;
		return 0;
	}
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10 / 1000000000ull)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i)
		return -EINVAL;
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (scale == 1)
				return -EINVAL;
			scale /= 10;
			frac += (uint64_t)(s[i] - '0') * scale;
		}
	}
	if (i != len)
		return -EINVAL;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/* "N%" -> N (0..100, decimals allowed) at s[0..len). */
static int parse_pct(const char *s, size_t len, double *pct)
{
	char buf[32], *end;

	if (len < 2 || len >= sizeof(buf) || s[len - 1] != '%')
		return -EINVAL;
	memcpy(buf, s, len - 1);
	buf[len - 1] = '\0';
	*pct = strtod(buf, &end);
	return *end || *pct < 0 || *pct > 100 ? -EINVAL : 0;
}

static uint64_t at_pct(uint64_t first, uint64_t last, double pct)
{
	return first + (uint64_t)((double)(last - first) * pct / 100.0);
}

/* One percent term: "A%-B%" or "N%/M". */
static int parse_pct_term(const char *s, size_t len, uint64_t first,
			  uint64_t last, struct range *r)
{
	const char *dash = memchr(s, '-', len), *slash = memchr(s, '/', len);
	double a, b;
	char *end;
	long m;

	if (dash) {
		if (parse_pct(s, (size_t)(dash - s), &a) ||
		    parse_pct(dash + 1, len - (size_t)(dash - s) - 1, &b) ||
		    b < a)
			return -EINVAL;
	} else if (slash) {
		if (parse_pct(s, (size_t)(slash - s), &a) || a <= 0)
			return -EINVAL;
		m = strtol(slash + 1, &end, 10);
		if (end != s + len || m < 1 || (double)(m - 1) * a >= 100)
			return -EINVAL;
		b = (double)m * a;
		a = (double)(m - 1) * a;
		b = b > 100 ? 100 : b;
	} else {
		return -EINVAL;
	}
	r->start = at_pct(first, last, a);
	r->end = at_pct(first, last, b);
	return 0;
}

int pebs_filter__time(struct pebs_filter *f, const char *spec,
		      uint64_t first, uint64_t last)
{
	const char *p = spec;
	size_t len;

	if (!f || !spec || !*spec)
		return core_err(-EINVAL, "--time: give start,end in seconds or "
				"ranges such as 0%%-10%%");
	f->nr_ranges = 0;
	if (!strchr(spec, '%')) {
		const char *comma = strchr(spec, ',');
		struct range *r = &f->ranges[0];

		if (!comma ||
		    parse_sec(spec, (size_t)(comma - spec), 0, &r->start) ||
		    parse_sec(comma + 1, strlen(comma + 1), UINT64_MAX,
			      &r->end) || r->end < r->start)
			return core_err(-EINVAL, "--time: bad '%s': give "
					"start,end in seconds (either may be "
					"empty), e.g. 12.5,13", spec);
		f->nr_ranges = 1;
		return 0;
	}
	while (*p) {
		len = strcspn(p, ",");
		if (f->nr_ranges == MAX_RANGES ||
		    parse_pct_term(p, len, first, last,
				   &f->ranges[f->nr_ranges]))
			return core_err(-EINVAL, "--time: bad range '%.*s': "
					"give A%%-B%% or N%%/M (the M-th N %% "
					"slice)", (int)len, p);
		f->nr_ranges++;
		p += len + (p[len] == ',');
	}
	return 0;
}

static bool in_time(const struct pebs_filter *f, uint64_t time)
{
	unsigned int i;

	for (i = 0; i < f->nr_ranges; i++)
		if (time >= f->ranges[i].start && time <= f->ranges[i].end)
			return true;
	return !f->nr_ranges;
}

int pebs_filter__match(const struct pebs_filter *f,
		       const struct pebs_report_sample *s, uint64_t time)
{
	const char *base;

	if (!f)
		return PEBS_FILTER_PASS;
	if (evset_has(&f->aside, s->event))
		return PEBS_FILTER_ASIDE;
	if ((f->cpus && (s->cpu >= PEBS_MAX_CPUS ||
			 !(f->cpus[s->cpu / 64] & (1ull << (s->cpu % 64))))) ||
	    (f->events.bits && !evset_has(&f->events, s->event)) ||
	    !in_time(f, time))
		return PEBS_FILTER_DROP;
	if ((f->pids.n && !pebs_ids__has(&f->pids, s->pid)) ||
	    (f->tids.n && !pebs_ids__has(&f->tids, s->tid)))
		return PEBS_FILTER_HIDE;
	if (f->comms.n && !names_has(&f->comms, s->comm))
		return PEBS_FILTER_HIDE;
	/* perf's dso short name (the file's) or long name (its path) */
	base = s->dso ? strrchr(s->dso, '/') : NULL;
	if (f->dsos.n && !names_has(&f->dsos, s->dso) &&
	    !(base && names_has(&f->dsos, base + 1)))
		return PEBS_FILTER_HIDE;
	if (f->syms.n && !names_has(&f->syms, s->sym))
		return PEBS_FILTER_HIDE;
	return PEBS_FILTER_PASS;
}
