// SPDX-License-Identifier: MIT
/*
 * event-mods.c - privilege levels and precision of an event, as perf 6.1
 * decides them, and perf's retries when the kernel refuses one:
 *
 *  - modifiers after the last ':' (or the closing '/' or '}'): perf's
 *    letters u k h G H p P I (util/parse-events.c get_event_modifier),
 *    in any grouping ("upp", "u:pp"), and this library's period=N,
 *    freq=N, precise=N (and ldlat=N for the ldlat alias);
 *  - the kernel: perf opens the event as asked and, on EACCES, when
 *    neither user nor kernel is excluded (no u/k/h, or both u and k),
 *    falls back to excluding the kernel and hypervisor if
 *    perf_event_paranoid > 1 (util/evsel.c evsel__fallback); the
 *    kernel refuses only without CAP_SYS_ADMIN or CAP_PERFMON
 *    (util/util.c perf_event_paranoid_check(1), the kernel's
 *    perf_allow_kernel). The decision is taken here at parse time, so
 *    what the event asks for is what the kernel will grant.
 *
 * Then what perf 6.1 retries when perf_event_open refuses an
 * event (util/evsel.c), so that an event perf opens opens here too:
 *
 *  - evsel__precise_ip_fallback: with :P (PEBS_EVENT_PRECISE_MAX) any
 *    failure lowers precise_ip by one, down to 0; when 0 fails too the
 *    original precise_ip comes back and the other retries run (each
 *    of them walks precise_ip down again);
 *  - the missing features, only on EINVAL, newest first and cumulative
 *    (evsel__open_cpu's fallback_missing_features): no
 *    PERF_FORMAT_LOST (Linux < 6.0), WEIGHT for WEIGHT_STRUCT (< 5.12),
 *    then neither exclude_guest nor exclude_host (perf's "switching off
 *    exclude_guest, exclude_host");
 *  - evsel__fallback, once those are exhausted (a channel set calls
 *    pebs_event__fallback and opens again): cycles becomes cpu-clock on
 *    ENOENT/ENXIO/ENODEV ("The cycles event is not supported, trying to
 *    fall back to cpu-clock-ticks"), and EACCES with the kernel not
 *    excluded and perf_event_paranoid > 1 excludes kernel and
 *    hypervisor, the name getting perf's "u".
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "pebsshim/event.h"
#include "core/internal.h"
#include "event/event-internal.h"

#define PARANOID_FILE	"/proc/sys/kernel/perf_event_paranoid"
#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

static const char *paranoid_file;
static int kernel_override = -1;

void event_priv_set_paranoid_file(const char *path)
{
	paranoid_file = path;
}

void event_priv_override(int kernel_allowed)
{
	kernel_override = kernel_allowed;
}

int event_priv_paranoid(void)
{
	FILE *f = fopen(paranoid_file ? paranoid_file : PARANOID_FILE, "re");
	int v;

	if (!f)
		return INT_MAX;	/* perf: unreadable counts as strictest */
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MAX;
	fclose(f);
	return v;
}

/* effective capability @cap of this thread (perf_cap__capable) */
static bool capable(unsigned int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

bool event_priv_kernel_allowed_by(int paranoid, bool cap_admin,
				  bool cap_perfmon)
{
	return cap_admin || cap_perfmon || paranoid <= 1;
}

bool event_priv_kernel_allowed(void)
{
	if (kernel_override >= 0)
		return kernel_override;
	return event_priv_kernel_allowed_by(event_priv_paranoid(),
					    capable(CAP_SYS_ADMIN),
					    capable(CAP_PERFMON));
}

/* ---- parsing --------------------------------------------------------- */

static int parse_num(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end || *v > max ? -EINVAL : 0;
}

static bool perf_letters(const char *tok, size_t len)
{
	return len && strspn(tok, "ukhGHpPI") >= len;
}

static int bad(const char *str, const char *tok, size_t len,
	       unsigned int allow)
{
	return core_err(-EINVAL, "bad modifier '%.*s' in '%s': use perf's "
			"u, k, h, G, H, I, p, pp, ppp, P, or period=N, "
			"freq=N%s%s", (int)len, tok, str,
			allow & PEBS_MOD_PRECISE ? ", precise=N" : "",
			allow & PEBS_MOD_LDLAT ? ", ldlat=N" : "");
}

static int parse_kv(const char *str, const char *tok, unsigned int allow,
		    struct pebs_mods *m)
{
	uint64_t v;

	if (!strncmp(tok, "period=", 7) || !strncmp(tok, "freq=", 5)) {
		const char *val = strchr(tok, '=') + 1;

		if (parse_num(val, UINT64_MAX, &v) || !v)
			return core_err(-EINVAL, "bad modifier '%s' in '%s': "
					"the %.*s is a number > 0", tok, str,
					(int)(val - tok - 1), tok);
		m->period = v;
		m->freq = tok[0] == 'f';
	} else if (!strncmp(tok, "precise=", 8) && (allow & PEBS_MOD_PRECISE)) {
		if (parse_num(tok + 8, 3, &v))
			return core_err(-EINVAL, "bad modifier '%s' in '%s': "
					"precise is 0..3", tok, str);
		m->precise = (int)v;
	} else if (!strncmp(tok, "ldlat=", 6) && (allow & PEBS_MOD_LDLAT)) {
		if (parse_num(tok + 6, 65535, &v) || !v)
			return core_err(-EINVAL, "bad modifier '%s' in '%s': "
					"ldlat is 1..65535 cycles", tok, str);
		m->ldlat = (long)v;
	} else {
		return bad(str, tok, strlen(tok), allow);
	}
	return 0;
}

int event_mods_parse(const char *str, const char *mods, unsigned int allow,
		     struct pebs_mods *m)
{
	char buf[128], *tok, *save;
	size_t len;

	memset(m, 0, sizeof(*m));
	m->precise = -1;
	m->ldlat = -1;
	if (*mods == ':' && !mods[1])
		return core_err(-EINVAL, "bad modifier '' in '%s': nothing "
				"after the ':'", str);
	if (*mods == ':')
		mods++;
	if (!*mods)
		return 0;
	if (strlen(mods) >= sizeof(buf))
		return core_err(-EINVAL, "modifiers of '%.40s...' too long",
				str);
	strcpy(buf, mods);
	for (tok = strtok_r(buf, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		int err;

		len = strlen(tok);
		if (strchr(tok, '=')) {
			err = parse_kv(str, tok, allow, m);
			if (err)
				return err;
			continue;
		}
		if (!perf_letters(tok, len))
			return bad(str, tok, len, allow);
		if (m->nletters + len >= sizeof(m->letters))
			return core_err(-EINVAL, "bad modifiers in '%s': at "
					"most %zu letters, as perf takes", str,
					sizeof(m->letters) - 1);
		memcpy(m->letters + m->nletters, tok, len);
		m->nletters += len;
	}
	return 0;
}

bool event_mods_is_letters(const char *s)
{
	return perf_letters(s, strlen(s));
}

/*
 * perf's get_event_modifier(): the first of u/k/h excludes all three
 * levels, then each letter re-includes its level; G/H likewise for
 * guest and host; p raises precise_ip (and excludes the guest unless
 * G/H was given), P asks for the highest precise_ip the PMU takes. A
 * single event starts from nothing excluded; a group's modifiers start
 * from what each member already has (@from_attr; a member's own G/H is
 * not remembered, as if given on the group).
 */
int event_mods_apply(const char *str, const struct pebs_mods *m,
		     struct pebs_event *ev, bool from_attr)
{
	struct perf_event_attr *attr = &ev->attr;
	int eu = 0, ek = 0, eh = 0, eG = 0, eH = 0, exclude, exclude_GH = 0;
	int precise = from_attr ? attr->precise_ip : 0;
	bool precise_max = false;
	unsigned int i;

	if (from_attr) {
		eu = attr->exclude_user;
		ek = attr->exclude_kernel;
		eh = attr->exclude_hv;
		eG = attr->exclude_guest;
		eH = attr->exclude_host;
	}
	exclude = eu | ek | eh;
	for (i = 0; i < m->nletters; i++) {
		switch (m->letters[i]) {
		case 'u':
		case 'k':
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			if (m->letters[i] == 'u') {
				if (!exclude_GH)
					eG = 1;
				eu = 0;
			} else if (m->letters[i] == 'k') {
				ek = 0;
			} else {
				eh = 0;
			}
			break;
		case 'G':
		case 'H':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			if (m->letters[i] == 'G')
				eG = 0;
			else
				eH = 0;
			break;
		case 'p':
			precise++;
			if (!exclude_GH)
				eG = 1;
			break;
		case 'P':
			precise_max = true;
			break;
		case 'I':
			attr->exclude_idle = 1;
			break;
		}
	}
	if (precise > 3)
		return core_err(-EINVAL, "bad modifier in '%s': precise_ip "
				"is at most ppp (3)", str);
	if (m->nletters) {
		attr->exclude_user = eu;
		attr->exclude_kernel = ek;
		attr->exclude_hv = eh;
		attr->exclude_guest = eG;
		attr->exclude_host = eH;
		attr->precise_ip = precise;
	}
	if (precise_max) {
		attr->precise_ip = 3;
		ev->flags |= PEBS_EVENT_PRECISE_MAX;
	}
	if (m->precise >= 0)
		attr->precise_ip = m->precise;
	if (m->period) {
		attr->sample_period = m->period;	/* or sample_freq */
		attr->freq = m->freq;
	}
	return 0;
}

/*
 * What perf's evsel__fallback() does on EACCES, decided up front: with
 * neither user nor kernel excluded and the kernel not allowed, exclude
 * kernel and hv.
 */
void event_priv_fallback(struct pebs_event *ev)
{
	struct perf_event_attr *attr = &ev->attr;
	int paranoid;

	if (attr->exclude_user || attr->exclude_kernel ||
	    event_priv_kernel_allowed())
		return;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	if (ev->note[0])
		return;
	paranoid = event_priv_paranoid();
	if (paranoid == INT_MAX)
		snprintf(ev->note, sizeof(ev->note), "%.40s: user space "
			 "only (%s is unreadable)", ev->name, PARANOID_FILE);
	else
		snprintf(ev->note, sizeof(ev->note), "%.40s: user space only "
			 "(perf_event_paranoid %d, no CAP_PERFMON), "
			 "as perf's %.30s:u", ev->name, paranoid, ev->name);
}

/* "u", "k", "uk", "upp"...: the letters that give @attr, for resolved */
void event_mods_letters(const struct perf_event_attr *attr, char *out,
			size_t len)
{
	size_t n = 0;
	unsigned int i;

	if (len < 8)
		return;
	if (attr->exclude_user || attr->exclude_kernel || attr->exclude_hv) {
		if (!attr->exclude_user)
			out[n++] = 'u';
		if (!attr->exclude_kernel)
			out[n++] = 'k';
		if (!attr->exclude_hv)
			out[n++] = 'h';
	}
	for (i = 0; i < attr->precise_ip && i < 3; i++)
		out[n++] = 'p';
	out[n] = '\0';
}

/* ---- perf's open-time retries ----------------------------------------- */

/* pebs-shim's cpu-clock period when none was given: perf's 4 kHz */
#define CLOCK_PERIOD_NS		250000

enum { STEP_NONE, STEP_LOST, STEP_WEIGHT, STEP_GUEST, STEP_END };

void event_open_try_init(struct pebs_open_try *t,
			 const struct perf_event_attr *attr, bool precise_max,
			 bool weight_fallback)
{
	memset(t, 0, sizeof(*t));
	t->precise_max = precise_max;
	t->precise = attr->precise_ip;
	t->sample_type = attr->sample_type;
	t->read_format = attr->read_format;
	t->weight = weight_fallback &&
		    (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
	t->exclude_guest = attr->exclude_guest;
	t->exclude_host = attr->exclude_host;
}

static bool applies(const struct pebs_open_try *t, unsigned int step)
{
	switch (step) {
	case STEP_LOST:
		return t->read_format & PERF_FORMAT_LOST;
	case STEP_WEIGHT:
		return t->weight;
	case STEP_GUEST:
		return t->exclude_guest || t->exclude_host;
	default:
		return false;
	}
}

bool event_open_try_next(struct pebs_open_try *t,
			 struct perf_event_attr *attr, int err)
{
	if (err < 0)
		err = -err;
	if (t->precise_max) {
		if (attr->precise_ip) {
			attr->precise_ip--;
			return true;
		}
		attr->precise_ip = t->precise;
	}
	if (err != EINVAL)
		return false;
	do
		t->step++;
	while (t->step < STEP_END && !applies(t, t->step));
	if (t->step >= STEP_END)
		return false;
	/* cumulative, as perf's perf_missing_features */
	attr->read_format = t->read_format;
	attr->sample_type = t->sample_type;
	if (t->step >= STEP_LOST)
		attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
	if (t->step >= STEP_WEIGHT && t->weight)
		attr->sample_type = (t->sample_type &
				     ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT) |
				    PERF_SAMPLE_WEIGHT;
	if (t->step >= STEP_GUEST)
		attr->exclude_guest = attr->exclude_host = 0;
	return true;
}

/* ev->note: @msg, after what is there already when it fits */
static void note(struct pebs_event *ev, const char *msg)
{
	size_t n = strlen(ev->note), len = strlen(msg);

	if (n && n + 2 + len < sizeof(ev->note)) {
		memcpy(ev->note + n, "; ", 2);
		memcpy(ev->note + n + 2, msg, len + 1);
	} else {
		snprintf(ev->note, sizeof(ev->note), "%s", msg);
	}
}

static bool cycles_fallback(struct pebs_event *ev)
{
	struct perf_event_attr *a = &ev->attr;
	char letters[8] = "";

	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	if (!a->sample_period)		/* none given: cpu-clock's */
		a->sample_period = CLOCK_PERIOD_NS;
	/* perf drops the name: cpu-clock with the attr's modifiers */
	event_mods_letters(a, letters, sizeof(letters));
	snprintf(ev->name, sizeof(ev->name), "cpu-clock%s%s",
		 letters[0] ? ":" : "", letters);
	snprintf(ev->resolved, sizeof(ev->resolved), "%s", ev->name);
	snprintf(ev->pmu, sizeof(ev->pmu), "perf");
	ev->flags = (ev->flags & ~(PEBS_EVENT_PRECISE | PEBS_EVENT_MEMORY |
				   PEBS_EVENT_PRECISE_MAX)) |
		    PEBS_EVENT_SOFTWARE;
	note(ev, "The cycles event is not supported, trying to fall back "
	     "to cpu-clock-ticks");
	return true;
}

static bool kernel_fallback(struct pebs_event *ev, int paranoid)
{
	size_t n = strlen(ev->name);
	char msg[128];
	const char *sep = strchr(ev->name, '/') ||
			  (strchr(ev->name, ':') && !strstr(ev->resolved,
							    "::")) ? "" : ":";

	if (ev->attr.exclude_user || n + strlen(sep) + 1 >= sizeof(ev->name))
		return false;
	snprintf(ev->name + n, sizeof(ev->name) - n, "%su", sep);
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	snprintf(msg, sizeof(msg), "kernel.perf_event_paranoid=%d, trying "
		 "to fall back to excluding kernel and hypervisor  samples",
		 paranoid);
	note(ev, msg);
	return true;
}

bool pebs_event__fallback(struct pebs_event *ev, int err)
{
	int paranoid;

	if (!ev)
		return false;
	if (err < 0)
		err = -err;
	if ((err == ENOENT || err == ENXIO || err == ENODEV) &&
	    ev->attr.type == PERF_TYPE_HARDWARE &&
	    ev->attr.config == PERF_COUNT_HW_CPU_CYCLES)
		return cycles_fallback(ev);
	if (err == EACCES && !ev->attr.exclude_kernel &&
	    (paranoid = event_priv_paranoid()) > 1)
		return kernel_fallback(ev, paranoid);
	return false;
}
