// SPDX-License-Identifier: MIT
/*
 * event.c - event strings to perf_event_attr.
 *
 * One event reaches pebs_event__parse() (lists and groups: event-list.c)
 * in one of these spellings, tried in this order:
 *  - sysfs spellings pmu/term=val,.../mods (event-sysfs.c);
 *  - pmu::event, libpfm4's (event-pfm.c);
 *  - aliases (loads, stores, ldlat[=N], auto) resolved for the PMU that
 *    libpfm4 detects: PEBS events on Intel, IBS op (sysfs) on AMD;
 *  - perf's generic names (cpu-clock, cycles, L1-dcache-loads, rNNNN:
 *    event-perf.c), whatever PMU libpfm4 detects or is forced to;
 *  - tracepoints sys:name (event-perf.c);
 *  - everything else goes to libpfm4 (event-pfm.c).
 * Modifiers and the kernel/hv exclusion perf would choose: event-mods.c.
 * ev->name is what was typed; ev->resolved the canonical spelling.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "pebsshim/event.h"
#include "core/internal.h"
#include "event/event-internal.h"
#include "core/opts.h"

static const char *const alias_names[] = { "loads", "stores", "ldlat",
					   "auto" };

/* The aliases ("" for a gap), NULL at the end: suggestion candidates. */
const char *event_builtin_name(unsigned int i)
{
	return i < ARRAY_SIZE(alias_names) ? alias_names[i] : NULL;
}

/* ---- perf's names and tracepoints ------------------------------------ */

/* perf's defaults (event_attr_init: exclude_guest), then the modifiers */
static int finish_perf(const char *str, const char *mods,
		       struct pebs_event *ev)
{
	struct pebs_mods m;
	int err;

	err = event_mods_parse(str, mods, PEBS_MOD_PRECISE, &m);
	if (err)
		return err;
	ev->attr.exclude_guest = 1;
	return event_mods_apply(str, &m, ev, false);
}

/* "cpu-clock" + ":u" + ":period=N", from the attr as finally encoded */
static void perf_resolved(struct pebs_event *ev)
{
	char letters[8] = "";
	size_t n = strlen(ev->resolved);

	event_mods_letters(&ev->attr, letters, sizeof(letters));
	if (letters[0])
		n += snprintf(ev->resolved + n, sizeof(ev->resolved) - n,
			      ":%s", letters);
	if (ev->attr.sample_period && n < sizeof(ev->resolved) &&
	    !(ev->flags & PEBS_EVENT_TRACEPOINT))
		snprintf(ev->resolved + n, sizeof(ev->resolved) - n,
			 ":%s=%llu", ev->attr.freq ? "freq" : "period",
			 (unsigned long long)ev->attr.sample_period);
}

static bool is_perf_name(const struct pebs_event *ev)
{
	return !(ev->flags & PEBS_EVENT_SYSFS) && !strstr(ev->resolved, "::");
}

void event_finalize(struct pebs_event *ev)
{
	event_priv_fallback(ev);
	if (is_perf_name(ev))
		perf_resolved(ev);
	if (ev->attr.precise_ip)
		ev->flags |= PEBS_EVENT_PRECISE;
}

/*
 * libpfm4 names, with libpfm4's modifiers (:u:k:precise=2...) or perf's
 * letters as the last component (MEM_INST_RETIRED:ALL_LOADS:pp).
 */
static int encode_pfm(const char *str, struct pebs_event *ev)
{
	const char *last = strrchr(str, ':');
	char prefix[sizeof(ev->name)];
	struct pebs_mods m;
	int err;

	if (!event_pfm_try(str, ev))
		return 0;
	if (last && last > str && last[-1] != ':' &&
	    event_mods_is_letters(last + 1)) {
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(last - str),
			 str);
		if (!event_pfm_try(prefix, ev)) {
			err = event_mods_parse(str, last, 0, &m);
			if (!err)
				err = event_mods_apply(str, &m, ev, false);
			if (!err && ev->attr.precise_ip &&
			    strstr(ev->resolved, "::MEM_"))
				ev->flags |= PEBS_EVENT_MEMORY;
			return err;
		}
	}
	return event_pfm_encode(str, ev);
}

/* ---- aliases ----------------------------------------------------------- */

enum alias { ALIAS_LOADS, ALIAS_STORES, ALIAS_LDLAT };

/* an alias's modifiers: levels, precise (p letters or precise=N), ... */
struct amods {
	struct pebs_mods m;
	bool u, k;
	int precise;		/* -1: not given */
	long ldlat;		/* -1: not given */
	uint64_t period;	/* 0: not given */
	bool freq;
};

static int alias_mods(const char *str, const char *mods, unsigned int allow,
		      struct amods *a)
{
	int err, p = 0;
	size_t i;

	err = event_mods_parse(str, mods, allow, &a->m);
	if (err)
		return err;
	a->u = a->k = false;
	for (i = 0; i < a->m.nletters; i++) {
		char c = a->m.letters[i];

		if (c == 'u' || c == 'k') {
			*(c == 'u' ? &a->u : &a->k) = true;
		} else if (c == 'p' && (allow & PEBS_MOD_PRECISE)) {
			p++;
		} else {
			return core_err(-EINVAL, "bad modifier '%c' in '%s': "
					"%s takes u, k%s", c, str, str,
					allow & PEBS_MOD_PRECISE ?
					", p, pp, ppp, precise=N" : "");
		}
	}
	if (p > 3)
		return core_err(-EINVAL, "bad modifier in '%s': precise is "
				"0..3 (ppp)", str);
	a->precise = a->m.precise >= 0 ? a->m.precise : p ? p : -1;
	a->ldlat = a->m.ldlat;
	a->period = a->m.period;
	a->freq = a->m.freq;
	return 0;
}

/* libpfm4 names, newest first: Skylake+ vs Haswell/Broadwell/SNB/GLM */
static const char *const pebs_names[][2] = {
	[ALIAS_LOADS] = { "MEM_INST_RETIRED:ALL_LOADS",
			  "MEM_UOPS_RETIRED:ALL_LOADS" },
	[ALIAS_STORES] = { "MEM_INST_RETIRED:ALL_STORES",
			   "MEM_UOPS_RETIRED:ALL_STORES" },
	[ALIAS_LDLAT] = { "MEM_TRANS_RETIRED:LOAD_LATENCY",
			  "MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD" },
};

static const char *const alias_what[] = { "load", "store", "load-latency" };

#define LDLAT_DEFAULT	32
#define IBS_LDLAT_MIN	128
#define IBS_LDLAT_MAX	2048

static int encode_pebs(enum alias a, const struct amods *m,
		       struct pebs_event *ev)
{
	char buf[192], ldlat[32] = "", period[32] = "";
	const char *pmu;
	unsigned int i, j;

	if (a == ALIAS_LDLAT)
		snprintf(ldlat, sizeof(ldlat), ":ldlat=%ld",
			 m->ldlat > 0 ? m->ldlat : LDLAT_DEFAULT);
	if (m->period)
		snprintf(period, sizeof(period), ":%s=%llu",
			 m->freq ? "freq" : "period",
			 (unsigned long long)m->period);
	for (i = 0; (pmu = event_pfm_core_pmu(i)); i++) {
		for (j = 0; j < ARRAY_SIZE(pebs_names[a]); j++) {
			snprintf(buf, sizeof(buf), "%s::%s%s:precise=%d%s%s%s",
				 pmu, pebs_names[a][j], ldlat,
				 m->precise >= 0 ? m->precise : 2,
				 m->u ? ":u" : "", m->k ? ":k" : "", period);
			if (!event_pfm_try(buf, ev)) {
				ev->flags |= PEBS_EVENT_MEMORY;
				return 0;
			}
		}
	}
	return -ENOENT;
}

static int encode_ibs(enum alias a, const char *str, const struct amods *m,
		      struct pebs_event *ev)
{
	static const char *const filter[] = { "ldop", "stop" };
	char terms[64] = "", buf[128], note[sizeof(ev->note)] = "";
	long lat = m->ldlat;
	size_t n = 0;
	int err;

	if (m->precise >= 0)
		return core_err(-EINVAL, "bad modifier 'precise=%d' in '%s': "
				"IBS (ibs_op) is precise by design", m->precise,
				str);
	if (a != ALIAS_LDLAT && event_sysfs_has("ibs_op", "format/swfilt") &&
	    event_sysfs_has("ibs_op", "format/ldop")) {
		/* the kernel filters loads/stores only with swfilt set */
		n = snprintf(terms, sizeof(terms), "swfilt=1,%s=1", filter[a]);
	} else if (a != ALIAS_LDLAT) {
		snprintf(note, sizeof(note), "ibs_op samples every op here (no "
			 "%s filter): keep samples whose data_src is a %s",
			 filter[a], alias_what[a]);
	} else if (event_sysfs_has("ibs_op", "format/ldlat")) {
		if (lat < 0) {
			lat = IBS_LDLAT_MIN;
			snprintf(note, sizeof(note), "ldlat: IBS thresholds are "
				 "%d..%d cycles; using %d", IBS_LDLAT_MIN,
				 IBS_LDLAT_MAX, IBS_LDLAT_MIN);
		} else if (lat < IBS_LDLAT_MIN || lat > IBS_LDLAT_MAX) {
			return core_err(-EINVAL, "bad modifier 'ldlat=%ld' in "
					"'%s': IBS thresholds are %d..%d "
					"cycles", lat, str, IBS_LDLAT_MIN,
					IBS_LDLAT_MAX);
		}
		n = snprintf(terms, sizeof(terms), "ldlat=%ld", lat);
	} else {
		snprintf(note, sizeof(note), "ibs_op has no load-latency "
			 "filter here: sampling every op; the latency is each "
			 "sample's weight");
	}
	if (m->period)
		snprintf(terms + n, sizeof(terms) - n, "%s%s=%llu",
			 n ? "," : "", m->freq ? "freq" : "period",
			 (unsigned long long)m->period);
	snprintf(buf, sizeof(buf), "ibs_op/%s/%s%s", terms, m->u ? "u" : "",
		 m->k ? "k" : "");
	err = event_sysfs_encode(buf, ev);
	if (!err)
		memcpy(ev->note, note, sizeof(note));
	return err;
}

/*
 * Resolve an alias; on failure *why (if not NULL) says in a few words
 * why this machine has no such event, for `auto`'s note.
 */
static int encode_alias(enum alias a, const char *str, const struct amods *m,
			struct pebs_event *ev, const char **why)
{
	const char *core = event_pfm_core_pmu(0);
	static __thread char whybuf[96];

	if (!encode_pebs(a, m, ev))
		return 0;
	if (event_sysfs_has("ibs_op", NULL))
		return encode_ibs(a, str, m, ev);

	if (!event_sysfs_has("cpu", NULL) &&
	    (!core || !strncmp(core, "amd", 3)))
		snprintf(whybuf, sizeof(whybuf), "no hardware PMU: virtualized?");
	else if (core && !strncmp(core, "amd", 3))
		snprintf(whybuf, sizeof(whybuf), "the %s PMU has no IBS (no "
			 "ibs_op): virtualized?", core);
	else if (core)
		snprintf(whybuf, sizeof(whybuf), "libpfm4 knows no PEBS %s "
			 "event for %s", alias_what[a], core);
	else
		snprintf(whybuf, sizeof(whybuf), "libpfm4 knows no core PMU "
			 "here");
	if (why)
		*why = whybuf;
	if (core && !strncmp(core, "amd", 3))
		return core_err(-ENOENT, "this CPU/VM has no ibs_op PMU (%s "
				"on %s: virtualized?): use -e auto or a "
				"software event such as cpu-clock", str, core);
	return core_err(-ENOENT, "%s: no PEBS or IBS %s event here (%s): use "
			"-e auto or a software event such as cpu-clock", str,
			alias_what[a], whybuf);
}

static const char *probe_why(const struct pebs_event *ev, int err)
{
	static __thread char buf[96];

	switch (-err) {
	case ENOENT:
	case ENODEV:
		return "no hardware PMU: virtualized?";
	case EACCES:
	case EPERM:
		snprintf(buf, sizeof(buf), "perf_event_paranoid forbids %s",
			 ev->pmu);
		return buf;
	case EINVAL:
	case EOPNOTSUPP:
		if (ev->attr.precise_ip)
			snprintf(buf, sizeof(buf), "the kernel refuses %s "
				 "precise_ip=%u: virtualized?", ev->pmu,
				 ev->attr.precise_ip);
		else
			snprintf(buf, sizeof(buf), "the kernel refuses %s per "
				 "thread: %s", ev->pmu, strerror(-err));
		return buf;
	default:
		snprintf(buf, sizeof(buf), "opening %s failed: %s", ev->pmu,
			 strerror(-err));
		return buf;
	}
}

static int encode_auto(const char *str, const struct amods *m,
		       struct pebs_event *ev)
{
	const char *why = NULL;
	char note[sizeof(ev->note)];
	int err;

	err = encode_alias(ALIAS_LOADS, str, m, ev, &why);
	if (!err) {
		err = pebs_event__probe(ev);
		if (!err) {
			snprintf(ev->note, sizeof(ev->note), "auto: %s loads "
				 "(%.130s)", ev->flags & PEBS_EVENT_SYSFS ? "IBS" :
				 "PEBS", ev->resolved);
			return 0;
		}
		why = probe_why(ev, err);
	}
	snprintf(note, sizeof(note), "auto: no PEBS/IBS here (%s); sampling "
		 "cpu-clock instead", why ? why : "unknown reason");
	ev->flags = 0;
	ev->pmu[0] = '\0';
	event_generic_find("cpu-clock", 9, ev);
	ev->attr.exclude_guest = 1;
	err = event_mods_apply(str, &m->m, ev, false);
	if (err)
		return err;
	ev->flags |= PEBS_EVENT_FALLBACK;
	memcpy(ev->note, note, sizeof(note));
	core_err_clear();
	return 0;
}

static int parse_alias(const char *str, size_t len, struct pebs_event *ev)
{
	const char *mods = str + len;
	struct amods m;
	uint64_t v;
	int err;

	if (len == 4 && !strncmp(str, "auto", 4)) {
		err = alias_mods(str, mods, 0, &m);
		return err ? err : encode_auto(str, &m, ev);
	}
	if (len == 5 && !strncmp(str, "loads", 5)) {
		err = alias_mods(str, mods, PEBS_MOD_PRECISE, &m);
		return err ? err : encode_alias(ALIAS_LOADS, str, &m, ev, NULL);
	}
	if (len == 6 && !strncmp(str, "stores", 6)) {
		err = alias_mods(str, mods, PEBS_MOD_PRECISE, &m);
		return err ? err : encode_alias(ALIAS_STORES, str, &m, ev,
						NULL);
	}
	/* ldlat or ldlat=N */
	err = alias_mods(str, mods, PEBS_MOD_PRECISE | PEBS_MOD_LDLAT, &m);
	if (err)
		return err;
	if (len > 6) {
		char num[24], *end;

		if (len - 6 >= sizeof(num))
			return core_err(-EINVAL, "bad ldlat in '%s'", str);
		memcpy(num, str + 6, len - 6);
		num[len - 6] = '\0';
		errno = 0;
		v = strtoull(num, &end, 0);
		if (num[0] == '-' || errno || *end || !v || v > 65535)
			return core_err(-EINVAL, "bad modifier 'ldlat=%s' in "
					"'%s': ldlat is 1..65535 cycles", num,
					str);
		m.ldlat = (long)v;
	}
	return encode_alias(ALIAS_LDLAT, str, &m, ev, NULL);
}

static bool is_alias(const char *str, size_t len)
{
	return (len == 4 && !strncmp(str, "auto", 4)) ||
	       (len == 5 && !strncmp(str, "loads", 5)) ||
	       (len == 6 && !strncmp(str, "stores", 6)) ||
	       (len == 5 && !strncmp(str, "ldlat", 5)) ||
	       (len > 6 && !strncmp(str, "ldlat=", 6));
}

int event_parse_one(const char *str, struct pebs_event *ev,
		    bool defer_priv)
{
	size_t len, tplen;
	int err;

	if (!str || !ev)
		return core_err(-EINVAL, "pebs_event__parse: NULL argument");
	memset(ev, 0, sizeof(*ev));
	if (!*str)
		return core_err(-EINVAL, "empty event name: try -e auto");
	if (strlen(str) >= sizeof(ev->name))
		return core_err(-EINVAL, "event string longer than %zu "
				"characters: '%.40s...'", sizeof(ev->name) - 1,
				str);
	strcpy(ev->name, str);

	len = strcspn(str, ":/");
	tplen = str[len] == ':' ? len + 1 + strcspn(str + len + 1, ":") : 0;
	if (str[len] == '/') {
		err = event_sysfs_encode_priv(str, ev, defer_priv);
	} else if (str[len] == ':' && str[len + 1] == ':') {
		err = encode_pfm(str, ev);	/* pmu::event */
	} else if (is_alias(str, len)) {
		err = parse_alias(str, len, ev);
	} else if (!event_generic_find(str, len, ev)) {
		err = finish_perf(str, str + len, ev);
	} else if (tplen && (err = event_tp_find(str, tplen, ev)) <= 0) {
		if (!err)
			err = finish_perf(str, str + tplen, ev);
	} else {
		err = encode_pfm(str, ev);
	}
	if (err) {
		memset(&ev->attr, 0, sizeof(ev->attr));
		return err;
	}
	if (!defer_priv)
		event_finalize(ev);
	if (!(ev->flags & PEBS_EVENT_FALLBACK))
		core_err_clear();
	return 0;
}

int pebs_event__parse(const char *str, struct pebs_event *ev)
{
	size_t depth = 0;
	const char *p;

	/* a comma or a brace outside pmu/.../ is a list */
	for (p = str; p && *p; p++) {
		if (*p == '/')
			depth ^= 1;
		else if (!depth && (*p == ',' || *p == '{')) {
			if (ev)
				memset(ev, 0, sizeof(*ev));
			return core_err(-EINVAL, "'%s' is a list of events: "
					"pebs_event__parse_list() parses "
					"lists and groups", str);
		}
	}
	return event_parse_one(str, ev, false);
}

/* ---- probing and perf_event_open errors -------------------------------- */

/* a sampling period IBS accepts (a multiple of 16) for probing */
#define PROBE_PERIOD	65536

int pebs_event__probe(const struct pebs_event *ev)
{
	struct perf_event_attr attr;
	int fd;

	if (!ev || !ev->attr.size)
		return core_err(-EINVAL, "pebs_event__probe: no parsed event");
	if (opts_attr_area_check(ev->attr_area, sizeof(ev->attr_area),
				 ev->name))
		return -EINVAL;
	attr = ev->attr;
	attr.size = sizeof(attr);	/* the caller's may be larger */
	attr.disabled = 1;
	if (!(ev->flags & PEBS_EVENT_PRECISE)) {
		attr.sample_period = 0;	/* counting */
		attr.freq = 0;
	} else if (!attr.sample_period) {
		attr.sample_period = PROBE_PERIOD; /* IBS cannot count */
	}
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return pebs_perf_open_error(ev, errno);
	close(fd);
	core_err_clear();
	return 0;
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MIN;
	fclose(f);
	return v;
}

int pebs_perf_open_error(const struct pebs_event *ev, int err)
{
	const char *what = ev && ev->name[0] ? ev->name :
			   ev ? ev->resolved : "event";
	const char *pmu = ev && ev->pmu[0] ? ev->pmu : "this";
	unsigned int precise = ev ? ev->attr.precise_ip : 0;
	int paranoid;

	if (err < 0)
		err = -err;
	switch (err) {
	case ENOENT:
	case ENODEV:
		return core_err(-err, "this CPU/VM has no %s PMU (%s): use -e "
				"auto or a software event such as cpu-clock",
				pmu, what);
	case EACCES:
	case EPERM:
		paranoid = read_paranoid();
		if (paranoid == INT_MIN)
			return core_err(-err, "%s: permission denied and "
					"/proc/sys/kernel/perf_event_paranoid "
					"is unreadable: run as root", what);
		return core_err(-err, "%s: permission denied by "
				"/proc/sys/kernel/perf_event_paranoid = %d: "
				"run as root, or lower it (sysctl -w "
				"kernel.perf_event_paranoid=N: 2 lets users "
				"sample their own processes in user space, 1 "
				"also the kernel, 0 also whole CPUs as -a/-C "
				"need)%s", what, paranoid,
				ev && !ev->attr.exclude_kernel ?
				", or add :u to sample user space only" : "");
	case EINVAL:
	case EOPNOTSUPP:
		if (precise)
			return core_err(-err, "%s: precise_ip=%u not supported "
					"here (%s): lower :precise", what,
					precise, strerror(err));
		if (ev && !strncmp(ev->pmu, "ibs_", 4))
			return core_err(-err, "%s: %s refused (%s): kernels "
					"before 6.2 sample IBS per CPU only, "
					"and before 6.14 without :u/:k", what,
					ev->pmu, strerror(err));
		return core_err(-err, "%s: the %s PMU refused type %u config "
				"%#llx (%s): drop modifiers or use cpu-clock",
				what, pmu, ev ? ev->attr.type : 0,
				ev ? (unsigned long long)ev->attr.config : 0,
				strerror(err));
	case EMFILE:
		return core_err(-err, "%s: too many open files: raise the "
				"limit (ulimit -n)", what);
	case EBUSY:
		return core_err(-err, "%s: the %s PMU is busy (NMI watchdog, "
				"another tool or a VM holds it): retry later or "
				"use cpu-clock", what, pmu);
	case ESRCH:
		return core_err(-err, "%s: the target task is gone", what);
	case E2BIG:
		return core_err(-err, "%s: this kernel does not know "
				"perf_event_attr size %u: upgrade the kernel",
				what, ev ? ev->attr.size : 0);
	default:
		return core_err(-err, "%s: perf_event_open failed: %s", what,
				strerror(err));
	}
}
