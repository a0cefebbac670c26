// SPDX-License-Identifier: MIT
/*
 * event.c - event strings to perf_event_attr.
 *
 * Four spellings reach pebs_event__parse():
 *  - perf's software names (cpu-clock, page-faults, ...), encoded here
 *    from <linux/perf_event.h> so that they work whatever PMU libpfm4
 *    detects or is forced to (LIBPFM_FORCE_PMU hides its perf:: table);
 *  - aliases (loads, stores, ldlat[=N], auto) resolved for the PMU that
 *    libpfm4 detects: PEBS events on Intel, IBS op (sysfs) on AMD;
 *  - sysfs spellings pmu/term=val,.../ (event-sysfs.c);
 *  - everything else goes to libpfm4 (event-pfm.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "internal.h"

struct sw_event {
	const char *name;
	const char *alias;
	const char *pfm_name;	/* libpfm4's name, for ev->resolved */
	uint64_t config;
	bool memory;		/* PERF_SAMPLE_ADDR is the faulting address */
};

static const struct sw_event sw_events[] = {
	{ "cpu-clock", NULL, "PERF_COUNT_SW_CPU_CLOCK",
	  PERF_COUNT_SW_CPU_CLOCK, false },
	{ "task-clock", NULL, "PERF_COUNT_SW_TASK_CLOCK",
	  PERF_COUNT_SW_TASK_CLOCK, false },
	{ "page-faults", "faults", "PERF_COUNT_SW_PAGE_FAULTS",
	  PERF_COUNT_SW_PAGE_FAULTS, true },
	{ "context-switches", "cs", "PERF_COUNT_SW_CONTEXT_SWITCHES",
	  PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cpu-migrations", "migrations", "PERF_COUNT_SW_CPU_MIGRATIONS",
	  PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "minor-faults", NULL, "PERF_COUNT_SW_PAGE_FAULTS_MIN",
	  PERF_COUNT_SW_PAGE_FAULTS_MIN, true },
	{ "major-faults", NULL, "PERF_COUNT_SW_PAGE_FAULTS_MAJ",
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ, true },
	{ "alignment-faults", NULL, "PERF_COUNT_SW_ALIGNMENT_FAULTS",
	  PERF_COUNT_SW_ALIGNMENT_FAULTS, false },
	{ "emulation-faults", NULL, "PERF_COUNT_SW_EMULATION_FAULTS",
	  PERF_COUNT_SW_EMULATION_FAULTS, false },
	{ "dummy", NULL, "PERF_COUNT_SW_DUMMY", PERF_COUNT_SW_DUMMY, false },
};

static const char *const alias_names[] = { "loads", "stores", "ldlat",
					   "auto" };

/* Names pebs_event__parse knows itself ("" for a gap), NULL at the end. */
const char *pebs_event_builtin_name(unsigned int i)
{
	const size_t na = ARRAY_SIZE(alias_names), ns = ARRAY_SIZE(sw_events);

	if (i < na)
		return alias_names[i];
	if (i < na + ns)
		return sw_events[i - na].name;
	if (i < na + 2 * ns)
		return sw_events[i - na - ns].alias ?: "";
	return NULL;
}

/* ---- modifiers of software events and aliases ------------------------ */

#define MOD_PRECISE	(1u << 0)
#define MOD_LDLAT	(1u << 1)

struct mods {
	bool u, k;
	int precise;		/* -1: not given */
	long ldlat;		/* -1: not given */
	uint64_t period;	/* 0: not given */
};

static int parse_num(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end || *v > max ? -EINVAL : 0;
}

/* @mods is what follows the name: "" or ":u:precise=1". */
static int parse_mods(const char *str, const char *mods, unsigned int allow,
		      struct mods *m)
{
	char buf[128], *tok, *save;
	uint64_t v;

	*m = (struct mods){ .precise = -1, .ldlat = -1 };
	if (!*mods)
		return 0;
	if (*mods != ':' || strlen(mods) >= sizeof(buf))
		goto bad;
	strcpy(buf, mods + 1);
	for (tok = strtok_r(buf, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		if (!strcmp(tok, "u")) {
			m->u = true;
		} else if (!strcmp(tok, "k")) {
			m->k = true;
		} else if (!strncmp(tok, "period=", 7)) {
			if (parse_num(tok + 7, UINT64_MAX, &v) || !v)
				return pebs_err(-EINVAL, "bad modifier '%s' in "
						"'%s': the period is a number "
						"> 0", tok, str);
			m->period = v;
		} else if (!strncmp(tok, "precise=", 8) &&
			   (allow & MOD_PRECISE)) {
			if (parse_num(tok + 8, 3, &v))
				return pebs_err(-EINVAL, "bad modifier '%s' in "
						"'%s': precise is 0..3", tok,
						str);
			m->precise = (int)v;
		} else if (!strncmp(tok, "ldlat=", 6) && (allow & MOD_LDLAT)) {
			if (parse_num(tok + 6, 65535, &v) || !v)
				return pebs_err(-EINVAL, "bad modifier '%s' in "
						"'%s': ldlat is 1..65535 "
						"cycles", tok, str);
			m->ldlat = (long)v;
		} else {
			return pebs_err(-EINVAL, "bad modifier '%s' in '%s': "
					"use u, k, period=N%s%s", tok, str,
					allow & MOD_PRECISE ?
					", precise=N" : "",
					allow & MOD_LDLAT ? ", ldlat=N" : "");
		}
	}
	return 0;
bad:
	return pebs_err(-EINVAL, "bad modifiers '%s' in '%s'", mods, str);
}

/* ---- software events -------------------------------------------------- */

static const struct sw_event *find_sw(const char *name, size_t len)
{
	const struct sw_event *sw;

	for (sw = sw_events; sw < sw_events + ARRAY_SIZE(sw_events); sw++) {
		if ((strlen(sw->name) == len && !strncmp(sw->name, name, len)) ||
		    (sw->alias && strlen(sw->alias) == len &&
		     !strncmp(sw->alias, name, len)))
			return sw;
	}
	return NULL;
}

/*
 * The same attr libpfm4's perf:: table gives with PFM_PLM3: user space
 * only unless :k is given, hypervisor excluded.
 */
static void encode_sw(const struct sw_event *sw, const struct mods *m,
		      struct pebs_event *ev)
{
	struct perf_event_attr *attr = &ev->attr;
	bool u = m->u || !m->k;
	int n;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = sw->config;
	attr->exclude_user = !u;
	attr->exclude_kernel = !m->k;
	attr->exclude_hv = 1;
	attr->sample_period = m->period;
	if (m->precise > 0)
		attr->precise_ip = m->precise;
	snprintf(ev->pmu, sizeof(ev->pmu), "perf");
	n = snprintf(ev->resolved, sizeof(ev->resolved), "perf::%s:u=%d:k=%d",
		     sw->pfm_name, u, m->k);
	if (m->precise > 0)
		n += snprintf(ev->resolved + n, sizeof(ev->resolved) - n,
			      ":precise=%d", m->precise);
	if (m->period)
		snprintf(ev->resolved + n, sizeof(ev->resolved) - n,
			 ":period=%llu", (unsigned long long)m->period);
	ev->flags = PEBS_EVENT_SOFTWARE;
	if (sw->memory)
		ev->flags |= PEBS_EVENT_MEMORY;
	if (attr->precise_ip)
		ev->flags |= PEBS_EVENT_PRECISE;
}

/* ---- aliases ----------------------------------------------------------- */

enum alias { ALIAS_LOADS, ALIAS_STORES, ALIAS_LDLAT };

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

static int encode_pebs(enum alias a, const struct mods *m,
		       struct pebs_event *ev)
{
	char buf[192], ldlat[32] = "", period[32] = "";
	const char *pmu;
	unsigned int i, j;

	if (a == ALIAS_LDLAT)
		snprintf(ldlat, sizeof(ldlat), ":ldlat=%ld",
			 m->ldlat > 0 ? m->ldlat : LDLAT_DEFAULT);
	if (m->period)
		snprintf(period, sizeof(period), ":period=%llu",
			 (unsigned long long)m->period);
	for (i = 0; (pmu = pebs_pfm_core_pmu(i)); i++) {
		for (j = 0; j < ARRAY_SIZE(pebs_names[a]); j++) {
			snprintf(buf, sizeof(buf), "%s::%s%s:precise=%d%s%s%s",
				 pmu, pebs_names[a][j], ldlat,
				 m->precise >= 0 ? m->precise : 2,
				 m->u ? ":u" : "", m->k ? ":k" : "", period);
			if (!pebs_pfm_try(buf, ev)) {
				ev->flags |= PEBS_EVENT_MEMORY;
				return 0;
			}
		}
	}
	return -ENOENT;
}

static int encode_ibs(enum alias a, const char *str, const struct mods *m,
		      struct pebs_event *ev)
{
	static const char *const filter[] = { "ldop", "stop" };
	char terms[64] = "", buf[128], note[sizeof(ev->note)] = "";
	long lat = m->ldlat;
	size_t n = 0;
	int err;

	if (m->precise >= 0)
		return pebs_err(-EINVAL, "bad modifier 'precise=%d' in '%s': "
				"IBS (ibs_op) is precise by design", m->precise,
				str);
	if (a != ALIAS_LDLAT && pebs_sysfs_has("ibs_op", "format/swfilt") &&
	    pebs_sysfs_has("ibs_op", "format/ldop")) {
		/* the kernel filters loads/stores only with swfilt set */
		n = snprintf(terms, sizeof(terms), "swfilt=1,%s=1", filter[a]);
	} else if (a != ALIAS_LDLAT) {
		snprintf(note, sizeof(note), "ibs_op samples every op here (no "
			 "%s filter): keep samples whose data_src is a %s",
			 filter[a], alias_what[a]);
	} else if (pebs_sysfs_has("ibs_op", "format/ldlat")) {
		if (lat < 0) {
			lat = IBS_LDLAT_MIN;
			snprintf(note, sizeof(note), "ldlat: IBS thresholds are "
				 "%d..%d cycles; using %d", IBS_LDLAT_MIN,
				 IBS_LDLAT_MAX, IBS_LDLAT_MIN);
		} else if (lat < IBS_LDLAT_MIN || lat > IBS_LDLAT_MAX) {
			return pebs_err(-EINVAL, "bad modifier 'ldlat=%ld' in "
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
		snprintf(terms + n, sizeof(terms) - n, "%speriod=%llu",
			 n ? "," : "", (unsigned long long)m->period);
	snprintf(buf, sizeof(buf), "ibs_op/%s/%s%s", terms, m->u ? "u" : "",
		 m->k ? "k" : "");
	err = pebs_sysfs_encode(buf, ev);
	if (!err)
		memcpy(ev->note, note, sizeof(note));
	return err;
}

/*
 * Resolve an alias; on failure *why (if not NULL) says in a few words
 * why this machine has no such event, for `auto`'s note.
 */
static int encode_alias(enum alias a, const char *str, const struct mods *m,
			struct pebs_event *ev, const char **why)
{
	const char *core = pebs_pfm_core_pmu(0);
	static __thread char whybuf[96];

	if (!encode_pebs(a, m, ev))
		return 0;
	if (pebs_sysfs_has("ibs_op", NULL))
		return encode_ibs(a, str, m, ev);

	if (!pebs_sysfs_has("cpu", NULL) && (!core || !strncmp(core, "amd", 3)))
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
		return pebs_err(-ENOENT, "this CPU/VM has no ibs_op PMU (%s "
				"on %s: virtualized?): use -e auto or a "
				"software event such as cpu-clock", str, core);
	return pebs_err(-ENOENT, "%s: no PEBS or IBS %s event here (%s): use "
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

static int encode_auto(const char *str, const struct mods *m,
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
	memset(&ev->attr, 0, sizeof(ev->attr));
	encode_sw(&sw_events[0], m, ev);
	ev->flags |= PEBS_EVENT_FALLBACK;
	memcpy(ev->note, note, sizeof(note));
	pebs_err_clear();
	return 0;
}

static int parse_alias(const char *str, size_t len, struct pebs_event *ev)
{
	const char *mods = str + len;
	struct mods m;
	uint64_t v;
	int err;

	if (len == 4 && !strncmp(str, "auto", 4)) {
		err = parse_mods(str, mods, 0, &m);
		return err ? err : encode_auto(str, &m, ev);
	}
	if (len == 5 && !strncmp(str, "loads", 5)) {
		err = parse_mods(str, mods, MOD_PRECISE, &m);
		return err ? err : encode_alias(ALIAS_LOADS, str, &m, ev, NULL);
	}
	if (len == 6 && !strncmp(str, "stores", 6)) {
		err = parse_mods(str, mods, MOD_PRECISE, &m);
		return err ? err : encode_alias(ALIAS_STORES, str, &m, ev,
						NULL);
	}
	/* ldlat or ldlat=N */
	err = parse_mods(str, mods, MOD_PRECISE | MOD_LDLAT, &m);
	if (err)
		return err;
	if (len > 6) {
		char num[24];

		if (len - 6 >= sizeof(num))
			return pebs_err(-EINVAL, "bad ldlat in '%s'", str);
		memcpy(num, str + 6, len - 6);
		num[len - 6] = '\0';
		if (parse_num(num, 65535, &v) || !v)
			return pebs_err(-EINVAL, "bad modifier 'ldlat=%s' in "
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

int pebs_event__parse(const char *str, struct pebs_event *ev)
{
	size_t len;
	int err;

	if (!str || !ev)
		return pebs_err(-EINVAL, "pebs_event__parse: NULL argument");
	memset(ev, 0, sizeof(*ev));
	if (!*str)
		return pebs_err(-EINVAL, "empty event name: try -e auto");
	if (strlen(str) >= sizeof(ev->name))
		return pebs_err(-EINVAL, "event string longer than %zu "
				"characters: '%.40s...'", sizeof(ev->name) - 1,
				str);
	strcpy(ev->name, str);

	len = strcspn(str, ":/");
	if (str[len] == '/') {
		err = pebs_sysfs_encode(str, ev);
	} else if (str[len] == ':' && str[len + 1] == ':') {
		err = pebs_pfm_encode(str, ev);	/* pmu::event */
	} else if (is_alias(str, len)) {
		err = parse_alias(str, len, ev);
	} else if (find_sw(str, len)) {
		struct mods m;

		err = parse_mods(str, str + len, MOD_PRECISE, &m);
		if (!err)
			encode_sw(find_sw(str, len), &m, ev);
	} else {
		err = pebs_pfm_encode(str, ev);
	}
	if (err) {
		memset(&ev->attr, 0, sizeof(ev->attr));
		return err;
	}
	if (ev->attr.precise_ip)
		ev->flags |= PEBS_EVENT_PRECISE;
	if (!(ev->flags & PEBS_EVENT_FALLBACK))
		pebs_err_clear();
	return 0;
}

/* ---- probing and perf_event_open errors -------------------------------- */

/* a sampling period IBS accepts (a multiple of 16) for probing */
#define PROBE_PERIOD	65536

int pebs_event__probe(const struct pebs_event *ev)
{
	struct perf_event_attr attr;
	int fd;

	if (!ev || !ev->attr.size)
		return pebs_err(-EINVAL, "pebs_event__probe: no parsed event");
	attr = ev->attr;
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
	pebs_err_clear();
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
		return pebs_err(-err, "this CPU/VM has no %s PMU (%s): use -e "
				"auto or a software event such as cpu-clock",
				pmu, what);
	case EACCES:
	case EPERM:
		paranoid = read_paranoid();
		if (paranoid == INT_MIN)
			return pebs_err(-err, "%s: permission denied and "
					"/proc/sys/kernel/perf_event_paranoid "
					"is unreadable: run as root", what);
		return pebs_err(-err, "%s: permission denied by "
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
			return pebs_err(-err, "%s: precise_ip=%u not supported "
					"here (%s): lower :precise", what,
					precise, strerror(err));
		if (ev && !strncmp(ev->pmu, "ibs_", 4))
			return pebs_err(-err, "%s: %s refused (%s): kernels "
					"before 6.2 sample IBS per CPU only, "
					"and before 6.14 without :u/:k", what,
					ev->pmu, strerror(err));
		return pebs_err(-err, "%s: the %s PMU refused type %u config "
				"%#llx (%s): drop modifiers or use cpu-clock",
				what, pmu, ev ? ev->attr.type : 0,
				ev ? (unsigned long long)ev->attr.config : 0,
				strerror(err));
	case EMFILE:
		return pebs_err(-err, "%s: too many open files: raise the "
				"limit (ulimit -n)", what);
	case EBUSY:
		return pebs_err(-err, "%s: the %s PMU is busy (NMI watchdog, "
				"another tool or a VM holds it): retry later or "
				"use cpu-clock", what, pmu);
	case ESRCH:
		return pebs_err(-err, "%s: the target task is gone", what);
	case E2BIG:
		return pebs_err(-err, "%s: this kernel does not know "
				"perf_event_attr size %u: upgrade the kernel",
				what, ev ? ev->attr.size : 0);
	default:
		return pebs_err(-err, "%s: perf_event_open failed: %s", what,
				strerror(err));
	}
}
