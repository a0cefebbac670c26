// SPDX-License-Identifier: MIT
/*
 * event-sysfs.c - encode events of PMUs that libpfm4 does not know (AMD
 * IBS, uncore, msr, ...) from the kernel's description of them:
 *
 *	<root>/<pmu>/type		the perf_event_attr.type
 *	<root>/<pmu>/format/<term>	"config1:0-11" or "config:0-7,32-35"
 *	<root>/<pmu>/events/<name>	"event=0x3c,umask=0x1" (perf's aliases)
 *
 * The spelling is perf's: pmu/term[=value],.../[modifiers], where a term
 * is a format name (value 1 if omitted), config=, config1=, config2=,
 * period=, freq=, name= (the event's name instead of what was typed),
 * or a named event from events/; modifiers are perf's (event-mods.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pebsshim/event.h"
#include "core/internal.h"
#include "event/event-internal.h"

#define SYSFS_PMU_ROOT "/sys/bus/event_source/devices"

static const char *sysfs_root;

const char *event_sysfs_root(void)
{
	return sysfs_root ? sysfs_root : SYSFS_PMU_ROOT;
}

void event_sysfs_set_root(const char *root)
{
	sysfs_root = root;
}

bool event_sysfs_has(const char *pmu, const char *file)
{
	char path[512];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s/%s%s%s", event_sysfs_root(), pmu,
		     file ? "/" : "", file ? file : "");
	return n > 0 && (size_t)n < sizeof(path) && stat(path, &st) == 0;
}

/* Read a small sysfs file into @buf without its trailing newline. */
static int read_attr(const char *pmu, const char *dir, const char *name,
		     char *buf, size_t len)
{
	char path[512];
	size_t n;
	FILE *f;
	int err;

	if (snprintf(path, sizeof(path), "%s/%s/%s%s%s", event_sysfs_root(),
		     pmu, dir, *dir ? "/" : "", name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (err)
		return err;
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* A term name must not walk out of the PMU's directory. */
static bool safe_name(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++)
		if (*s == '/')
			return false;
	return true;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static __u64 *attr_field(struct perf_event_attr *attr, const char *name)
{
	if (!strcmp(name, "config"))
		return &attr->config;
	if (!strcmp(name, "config1"))
		return &attr->config1;
	if (!strcmp(name, "config2"))
		return &attr->config2;
	return NULL;
}

struct sysfs_ctx {
	const char *str;		/* the whole spelling, for messages */
	const char *pmu;
	struct pebs_event *ev;
	char *out;			/* resolved terms being built */
	size_t out_len;
	bool swfilt;			/* swfilt= given */
	char need[64];			/* "?" terms of named events, "a,b," */
	char given[128];		/* terms the user gave, "a,b," */
};

static void out_term(struct sysfs_ctx *c, const char *name, uint64_t v)
{
	size_t used = strlen(c->out);

	snprintf(c->out + used, c->out_len - used, "%s%s=%#llx",
		 used ? "," : "", name, (unsigned long long)v);
}

/*
 * Deposit @v into the bits a format file names, lowest value bit into
 * the lowest named bit, as perf does ("config:0-7,32-35": bits 0-7 of
 * the value into config 0-7, bits 8-11 into config 32-35).
 */
static int apply_format(struct sysfs_ctx *c, const char *term, uint64_t v)
{
	char spec[256], *colon, *range, *save;
	struct perf_event_attr *attr = &c->ev->attr;
	__u64 *field;
	uint64_t mask = 0;
	unsigned int width = 0, bit, vbit;
	int err;

	err = read_attr(c->pmu, "format", term, spec, sizeof(spec));
	if (err)
		return err == -ENOENT ? err :
		       core_err(err, "%s: cannot read %s/%s/format/%s: %s",
				c->str, event_sysfs_root(), c->pmu, term,
				strerror(-err));
	colon = strchr(spec, ':');
	if (!colon)
		goto bad_format;
	*colon = '\0';
	field = attr_field(attr, spec);
	if (!field)
		return core_err(-EINVAL, "%s: %s/format/%s uses %s, which this "
				"library cannot set", c->str, c->pmu, term, spec);
	for (range = strtok_r(colon + 1, ",", &save); range;
	     range = strtok_r(NULL, ",", &save)) {
		unsigned long lo, hi;
		char *end;

		lo = strtoul(range, &end, 10);
		hi = lo;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (end == range || *end || hi < lo || hi > 63)
			goto bad_format;
		for (bit = lo; bit <= hi; bit++)
			mask |= 1ull << bit;
	}
	for (bit = 0; bit < 64; bit++)
		width += !!(mask & (1ull << bit));
	if (!width)
		goto bad_format;
	if (width < 64 && v >> width)
		return core_err(-EINVAL, "%s: value %#llx does not fit %s (%u "
				"bits)", c->str, (unsigned long long)v, term,
				width);
	for (bit = 0, vbit = 0; bit < 64; bit++) {
		if (!(mask & (1ull << bit)))
			continue;
		*field &= ~(1ull << bit);
		if (v & (1ull << vbit))
			*field |= 1ull << bit;
		vbit++;
	}
	out_term(c, term, v);
	return 0;

bad_format:
	return core_err(-EINVAL, "%s: cannot read %s/%s/format/%s: not a "
			"format the kernel writes", c->str, event_sysfs_root(),
			c->pmu, term);
}

static int apply_terms(struct sysfs_ctx *c, char *terms, bool from_event);

/* A named event: its file holds terms; "?" marks a value the user gives. */
static int apply_event(struct sysfs_ctx *c, const char *name)
{
	char buf[512];
	int err;

	err = read_attr(c->pmu, "events", name, buf, sizeof(buf));
	if (err)
		return err == -ENOENT ? err :
		       core_err(err, "%s: cannot read %s/%s/events/%s: %s",
				c->str, event_sysfs_root(), c->pmu, name,
				strerror(-err));
	return apply_terms(c, buf, true);
}

/* whether "a,b," lists @term */
static bool listed(const char *list, const char *term)
{
	size_t len = strlen(term);
	const char *p;

	for (p = list; *p; p += strcspn(p, ",") + 1)
		if (!strncmp(p, term, len) && p[len] == ',')
			return true;
	return false;
}

/* the first "?" term of a named event the user did not give, or NULL */
static const char *missing_term(struct sysfs_ctx *c)
{
	char *p, *comma;

	for (p = c->need; *p; p = comma + 1) {
		comma = strchr(p, ',');
		*comma = '\0';
		if (!listed(c->given, p))
			return p;
		*comma = ',';
	}
	return NULL;
}

static int apply_term(struct sysfs_ctx *c, char *term, bool from_event)
{
	struct perf_event_attr *attr = &c->ev->attr;
	char *eq = strchr(term, '=');
	const char *val = eq ? eq + 1 : NULL;
	uint64_t v = 1;
	__u64 *field;
	int err;

	if (eq)
		*eq = '\0';
	if (!safe_name(term))
		return core_err(-EINVAL, "%s: bad term '%s'", c->str, term);
	/* "ldlat=?" in an event file: the user must add ldlat=N */
	if (from_event && val && !strcmp(val, "?")) {
		size_t used = strlen(c->need);

		snprintf(c->need + used, sizeof(c->need) - used, "%s,", term);
		return 0;
	}
	if (!from_event) {
		size_t used = strlen(c->given);

		snprintf(c->given + used, sizeof(c->given) - used, "%s,", term);
	}
	if (val && strcmp(term, "name") && parse_u64(val, &v))
		return core_err(-EINVAL, "%s: bad value '%s' for %s: use a "
				"decimal or 0x number", c->str, val, term);

	field = attr_field(attr, term);
	if (field) {
		if (!val)
			return core_err(-EINVAL, "%s: %s needs a value", c->str,
					term);
		*field = v;
		out_term(c, term, v);
		return 0;
	}
	if (!strcmp(term, "name") && !from_event) {
		if (!val || !*val)
			return core_err(-EINVAL, "%s: name needs a value",
					c->str);
		snprintf(c->ev->name, sizeof(c->ev->name), "%s", val);
		return 0;
	}
	if (!strcmp(term, "period") || !strcmp(term, "freq")) {
		if (!val || !v)
			return core_err(-EINVAL, "%s: %s needs a value > 0",
					c->str, term);
		attr->freq = term[0] == 'f';
		attr->sample_period = v;	/* sample_freq shares it */
		out_term(c, term, v);
		return 0;
	}
	if (event_sysfs_has(c->pmu, "format") &&
	    (err = apply_format(c, term, v)) != -ENOENT) {
		if (!err && !strcmp(term, "swfilt"))
			c->swfilt = true;
		return err;
	}
	if (!from_event && !val && (err = apply_event(c, term)) != -ENOENT)
		return err;
	return core_err(-EINVAL, "%s: unknown term '%s' for %s: see %s/%s/"
			"format and events", c->str, term, c->pmu,
			event_sysfs_root(), c->pmu);
}

static int apply_terms(struct sysfs_ctx *c, char *terms, bool from_event)
{
	char *term, *save;
	int err;

	for (term = strtok_r(terms, ",", &save); term;
	     term = strtok_r(NULL, ",", &save)) {
		err = apply_term(c, term, from_event);
		if (err)
			return err;
	}
	return 0;
}

/*
 * perf's modifiers after the last '/' (event-mods.c), over perf's default
 * exclude_guest for the core PMU. Other PMUs (msr, IBS before Linux
 * 6.14, uncore) refuse exclude bits: perf retries without
 * exclude_guest after EINVAL, so it is not set for them at all.
 */
static int apply_mods(struct sysfs_ctx *c, const char *mods)
{
	struct pebs_mods m;
	int err;

	err = event_mods_parse(c->str, mods, 0, &m);
	if (err)
		return err;
	if (!strcmp(c->pmu, "cpu") || !strncmp(c->pmu, "cpu_", 4))
		c->ev->attr.exclude_guest = 1;
	err = event_mods_apply(c->str, &m, c->ev, false);
	if (!err && !strncmp(c->pmu, "ibs_", 4))
		c->ev->attr.exclude_guest = 0;
	return err;
}

/*
 * IBS has no privilege filter in hardware: kernels since 6.14 filter in
 * software when swfilt (config2:0) is set, older ones refuse exclude_*.
 */
static int ibs_fixup(struct sysfs_ctx *c)
{
	struct perf_event_attr *attr = &c->ev->attr;

	if (attr->exclude_user || attr->exclude_kernel) {
		if (!event_sysfs_has(c->pmu, "format/swfilt") &&
		    !event_priv_kernel_allowed())
			return core_err(-EACCES, "%s: %s cannot leave out the "
					"kernel on this kernel (no "
					"format/swfilt), and perf_event_paranoid "
					"%d keeps this process out of it: run "
					"as root or lower it to 1", c->str,
					c->pmu, event_priv_paranoid());
		if (!event_sysfs_has(c->pmu, "format/swfilt"))
			return core_err(-EINVAL, "%s: %s cannot leave out user "
					"or kernel samples on this kernel (no "
					"format/swfilt): drop :u/:k",
					c->str, c->pmu);
		if (!c->swfilt)
			return apply_format(c, "swfilt", 1);
	}
	if (attr->sample_period && !attr->freq && attr->sample_period & 0xf)
		return core_err(-EINVAL, "%s: %s periods are multiples of 16, "
				"not %llu", c->str, c->pmu,
				(unsigned long long)attr->sample_period);
	return 0;
}

int event_sysfs_encode(const char *str, struct pebs_event *ev)
{
	return event_sysfs_encode_priv(str, ev, false);
}

int event_sysfs_encode_priv(const char *str, struct pebs_event *ev,
			    bool defer_priv)
{
	char pmu[sizeof(ev->pmu)], terms[256], typebuf[32], out[200] = "";
	struct sysfs_ctx c = {
		.str = str, .pmu = pmu, .ev = ev, .out = out,
		.out_len = sizeof(out),
	};
	const char *slash = strchr(str, '/'), *end, *missing;
	uint64_t type;
	int err;

	end = slash ? strchr(slash + 1, '/') : NULL;
	if (!slash || !end)
		return core_err(-EINVAL, "%s: a PMU event is spelled "
				"pmu/term=value,.../ (e.g. ibs_op//)", str);
	if (slash == str || (size_t)(slash - str) >= sizeof(pmu) ||
	    (size_t)(end - slash - 1) >= sizeof(terms))
		return core_err(-EINVAL, "%s: bad PMU name or terms too long",
				str);
	memcpy(pmu, str, slash - str);
	pmu[slash - str] = '\0';
	memcpy(terms, slash + 1, end - slash - 1);
	terms[end - slash - 1] = '\0';
	if (!safe_name(pmu))
		return core_err(-EINVAL, "%s: bad PMU name '%s'", str, pmu);

	err = read_attr(pmu, "", "type", typebuf, sizeof(typebuf));
	if (err == -ENOENT) {
		char names[160];

		event_pmu_suggest(pmu, strlen(pmu), names, sizeof(names));
		if (names[0])
			return core_err(-ENOENT, "this CPU/VM has no %s PMU "
					"(%s; nothing in %s): did you mean "
					"%s?", pmu, str, event_sysfs_root(),
					names);
		return core_err(-ENOENT, "this CPU/VM has no %s PMU (%s; "
				"nothing in %s): use -e auto or a software "
				"event such as cpu-clock", pmu, str,
				event_sysfs_root());
	}
	if (err)
		return core_err(err, "%s: cannot read %s/%s/type: %s", str,
				event_sysfs_root(), pmu, strerror(-err));
	if (parse_u64(typebuf, &type) || type > UINT32_MAX)
		return core_err(-EINVAL, "%s: %s/%s/type holds '%s', not a "
				"number", str, event_sysfs_root(), pmu,
				typebuf);

	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = (uint32_t)type;
	err = apply_terms(&c, terms, false);
	if (!err && (missing = missing_term(&c)))
		err = core_err(-EINVAL, "%s: the event needs %s=N (its file in "
			       "%s/%s/events says ?)", str, missing,
			       event_sysfs_root(), pmu);
	if (!err)
		err = apply_mods(&c, end + 1);
	if (!err && !defer_priv)
		event_priv_fallback(ev);
	if (!err && !strncmp(pmu, "ibs_", 4))
		err = ibs_fixup(&c);
	if (err)
		return err;

	snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu);
	snprintf(ev->resolved, sizeof(ev->resolved), "%s/%s/%s", pmu, out,
		 end[1] == ':' ? end + 2 : end + 1);
	ev->flags |= PEBS_EVENT_SYSFS;
	if (ev->attr.precise_ip || !strncmp(pmu, "ibs_", 4))
		ev->flags |= PEBS_EVENT_PRECISE;
	if (!strcmp(pmu, "ibs_op"))
		ev->flags |= PEBS_EVENT_MEMORY;
	return 0;
}
