// SPDX-License-Identifier: MIT
/*
 * event-pfm.c - libpfm4: initialization (once per process, on first
 * use, so that LIBPFM_FORCE_PMU set before the first call is honoured),
 * encoding (user and kernel levels when the kernel allows the kernel,
 * as perf's util/pfm.c; user only otherwise), and messages that name
 * what was wrong: the modifier libpfm4 refused, or up to five known
 * names close to an unknown one (event-suggest.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "event-internal.h"
/* after <linux/perf_event.h> (internal.h), which libpfm4 then defers to */
#include <perfmon/pfmlib_perf_event.h>

#define MAX_CORE_PMUS	8

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;
static const char *core_pmus[MAX_CORE_PMUS + 1];

static void pfm_init_once(void)
{
	unsigned int n = 0;
	int i;

	pfm_status = pfm_initialize();
	if (pfm_status != PFM_SUCCESS)
		return;
	pfm_for_all_pmus(i) {
		pfm_pmu_info_t info = { .size = sizeof(info) };

		if (pfm_get_pmu_info(i, &info) == PFM_SUCCESS &&
		    info.is_present && info.type == PFM_PMU_TYPE_CORE &&
		    n < MAX_CORE_PMUS)
			core_pmus[n++] = info.name;
	}
}

static int pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init_once);
	return pfm_status;
}

const char *pebs_pfm_core_pmu(unsigned int i)
{
	if (pfm_ready() != PFM_SUCCESS || i >= MAX_CORE_PMUS)
		return NULL;
	return core_pmus[i];
}

int pebs_pfm_try(const char *str, struct pebs_event *ev)
{
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t einfo = { .size = sizeof(einfo) };
	pfm_pmu_info_t pinfo = { .size = sizeof(pinfo) };
	char *fstr = NULL;
	int ret;

	ret = pfm_ready();
	if (ret != PFM_SUCCESS)
		return ret;
	/* sizes first: with size 0 libpfm4 copies back only 64 bytes */
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &ev->attr;
	arg.fstr = &fstr;
	/* as perf's pfm.c, with the kernel when the kernel allows it */
	ret = pfm_get_os_event_encoding(str, pebs_priv_kernel_allowed() ?
					PFM_PLM0 | PFM_PLM3 : PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return ret;
	ev->attr.size = sizeof(ev->attr);
	snprintf(ev->resolved, sizeof(ev->resolved), "%s", fstr);
	free(fstr);
	ev->flags = 0;
	if (pfm_get_event_info(arg.idx, PFM_OS_NONE, &einfo) == PFM_SUCCESS &&
	    pfm_get_pmu_info(einfo.pmu, &pinfo) == PFM_SUCCESS) {
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", pinfo.name);
		/* PEBS on MEM_* events records the data address */
		if (ev->attr.precise_ip && !strncmp(einfo.name, "MEM_", 4))
			ev->flags |= PEBS_EVENT_MEMORY;
	}
	if (ev->attr.type == PERF_TYPE_SOFTWARE)
		ev->flags |= PEBS_EVENT_SOFTWARE;
	if (ev->attr.precise_ip)
		ev->flags |= PEBS_EVENT_PRECISE;
	return 0;
}

/* ---- names, for suggestions ------------------------------------------- */

void pebs_pfm_consider_all(struct pebs_close *c)
{
	int p, e;

	if (pfm_ready() != PFM_SUCCESS)
		return;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pinfo = { .size = sizeof(pinfo) };

		if (pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS ||
		    !pinfo.is_present || p == PFM_PMU_PERF_EVENT_RAW)
			continue;
		for (e = pinfo.first_event; e != -1; e = pfm_get_event_next(e)) {
			pfm_event_info_t einfo = { .size = sizeof(einfo) };

			if (pfm_get_event_info(e, PFM_OS_NONE, &einfo) ==
			    PFM_SUCCESS)
				pebs_close_consider(c, einfo.name);
		}
	}
}

/* ---- messages ------------------------------------------------------------ */

/* "A, B, u, k, ..." - the attributes libpfm4 accepts for @event */
static void list_attrs(const char *event, char *out, size_t len)
{
	pfm_event_info_t einfo = { .size = sizeof(einfo) };
	int idx, i;
	size_t n = 0;

	*out = '\0';
	idx = pfm_find_event(event);
	if (idx < 0 || pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo)
		       != PFM_SUCCESS)
		return;
	for (i = 0; i < einfo.nattrs && n + 4 < len; i++) {
		pfm_event_attr_info_t ainfo = { .size = sizeof(ainfo) };
		int w;

		if (pfm_get_event_attr_info(idx, i, PFM_OS_PERF_EVENT_EXT,
					    &ainfo) != PFM_SUCCESS ||
		    ainfo.type == PFM_ATTR_RAW_UMASK)
			continue;
		w = snprintf(out + n, len - n, "%s%s%s", n ? ", " : "",
			     ainfo.name,
			     ainfo.type == PFM_ATTR_MOD_INTEGER ? "=N" : "");
		if ((size_t)w >= len - n) {
			snprintf(out + n, len - n, "%s...", n ? ", " : "");
			return;
		}
		n += w;
	}
}

/*
 * libpfm4 says only "invalid attribute": find which one by encoding
 * longer and longer prefixes of the string.
 */
static void bad_component(const char *str, char *tok, size_t len)
{
	struct pebs_event scratch;
	const char *start = strstr(str, "::"), *b, *p;
	char prefix[256];
	int ret;

	start = start ? start + 2 : str;
	b = start;	/* the component being looked at */
	for (p = strchr(start, ':'); p; b = p + 1, p = strchr(p + 1, ':')) {
		size_t n = (size_t)(p - str);

		if (n >= sizeof(prefix))
			break;
		memcpy(prefix, str, n);
		prefix[n] = '\0';
		ret = pebs_pfm_try(prefix, &scratch);
		if (ret == PFM_ERR_ATTR || ret == PFM_ERR_ATTR_VAL ||
		    ret == PFM_ERR_ATTR_SET) {
			snprintf(tok, len, "%.*s", (int)(p - b), b);
			return;
		}
	}
	snprintf(tok, len, "%s", b);
}

int pebs_pfm_encode(const char *str, struct pebs_event *ev)
{
	char names[200], tok[64], event[128];
	const char *start, *end;
	int ret;

	ret = pebs_pfm_try(str, ev);
	if (ret == PFM_SUCCESS)
		return 0;
	start = strstr(str, "::");
	start = start ? start + 2 : str;
	end = strchr(start, ':');
	if (!end)
		end = start + strlen(start);
	snprintf(event, sizeof(event), "%.*s", (int)(end - str), str);

	switch (ret) {
	case PFM_ERR_NOINIT:
	case PFM_ERR_NOTSUPP:
		if (pfm_ready() != PFM_SUCCESS)
			return pebs_err(-ENODEV, "%s: libpfm4 failed to "
					"initialize (%s): check "
					"LIBPFM_FORCE_PMU", str,
					pfm_strerror(pfm_ready()));
		break;
	case PFM_ERR_NOTFOUND:
		pebs_event_suggest(start, (size_t)(end - start), names,
				   sizeof(names));
		if (names[0])
			return pebs_err(-ENOENT, "unknown event '%s': did you "
					"mean %s?", event, names);
		if (!pebs_pfm_core_pmu(0) && getenv("LIBPFM_FORCE_PMU"))
			return pebs_err(-ENOENT, "unknown event '%s': "
					"LIBPFM_FORCE_PMU=%s names no PMU "
					"libpfm4 knows (e.g. skl, hsw, icl)",
					event, getenv("LIBPFM_FORCE_PMU"));
		return pebs_err(-ENOENT, "unknown event '%s': not a perf "
				"event name (perf list), a tracepoint sys:name, "
				"pmu/term=.../, an alias (loads, stores, ldlat, "
				"auto) or a libpfm4 event of %s", event,
				pebs_pfm_core_pmu(0) ?: "this CPU");
	case PFM_ERR_UMASK:
		list_attrs(event, names, sizeof(names));
		return pebs_err(-EINVAL, "%s: %s needs a valid unit mask: %s",
				str, event, names);
	case PFM_ERR_ATTR:
	case PFM_ERR_ATTR_VAL:
	case PFM_ERR_ATTR_SET:
		bad_component(str, tok, sizeof(tok));
		list_attrs(event, names, sizeof(names));
		return pebs_err(-EINVAL, "bad modifier '%s' in '%s' (%s): %s "
				"takes %s", tok, str, pfm_strerror(ret), event,
				names);
	default:
		break;
	}
	return pebs_err(-EINVAL, "%s: libpfm4 cannot encode it: %s", str,
			pfm_strerror(ret));
}
