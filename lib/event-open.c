// SPDX-License-Identifier: MIT
/*
 * event-open.c - what perf 6.1 retries when perf_event_open refuses an
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
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "event-internal.h"

/* pebs-shim's cpu-clock period when none was given: perf's 4 kHz */
#define CLOCK_PERIOD_NS		250000

enum { STEP_NONE, STEP_LOST, STEP_WEIGHT, STEP_GUEST, STEP_END };

void pebs_open_try_init(struct pebs_open_try *t,
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

bool pebs_open_try_next(struct pebs_open_try *t,
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
	pebs_mods_letters(a, letters, sizeof(letters));
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
	    (paranoid = pebs_priv_paranoid()) > 1)
		return kernel_fallback(ev, paranoid);
	return false;
}
