// SPDX-License-Identifier: MIT
/*
 * event-pfm.c - libpfm4: initialization (once per process, on first
 * use, so that LIBPFM_FORCE_PMU set before the first call is honoured),
 * encoding (user and kernel levels when the kernel allows the kernel,
 * as perf's util/pfm.c; user only otherwise), and messages that name
 * what was wrong: the modifier libpfm4 refused, or up to five known
 * names close to an unknown one.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pebsshim/event.h"
#include "core/internal.h"
#include "event/event-internal.h"
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

const char *event_pfm_core_pmu(unsigned int i)
{
	if (pfm_ready() != PFM_SUCCESS || i >= MAX_CORE_PMUS)
		return NULL;
	return core_pmus[i];
}

int event_pfm_try(const char *str, struct pebs_event *ev)
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
	ret = pfm_get_os_event_encoding(str, event_priv_kernel_allowed() ?
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

/* ---- close names ----------------------------------------------------------
 *
 * The known names nearest to an unknown one, for a one-line "did you
 * mean a, b or c?": the aliases, perf's generic names (hardware,
 * software, hw-cache), libpfm4's events of the PMUs present (or forced),
 * and the PMUs of the sysfs tree. A name scores by case-insensitive edit
 * distance (at most a third of what was typed, at least 2), or best when
 * it starts with what was typed (3+ characters). Each candidate costs
 * O(typed * candidate) with both under 64 characters; the five best are
 * kept in place.
 */

#define NAME_MAX_CMP	PEBS_CLOSE_NAME_MAX

/* case-insensitive Levenshtein distance, both strings < NAME_MAX_CMP */
static int distance(const char *a, size_t la, const char *b, size_t lb)
{
	int row[NAME_MAX_CMP + 1], prev, tmp;
	size_t i, j;

	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) !=
				   tolower((unsigned char)b[j - 1]);

			tmp = row[j];
			row[j] = prev + cost;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

void event_pfm_close_init(struct pebs_close *c, const char *q, size_t qlen)
{
	memset(c, 0, sizeof(*c));
	c->q = q;
	c->qlen = qlen < NAME_MAX_CMP ? qlen : 0;
}

void event_pfm_close_consider(struct pebs_close *c, const char *name)
{
	size_t len = strlen(name);
	int d, score, limit;
	unsigned int i, j;

	if (!c->qlen || !len || len >= NAME_MAX_CMP)
		return;
	for (i = 0; i < c->n; i++)
		if (!strcasecmp(c->name[i], name))
			return;
	/* a name that starts with what was typed is as good as a typo */
	if (c->qlen >= 3 && !strncasecmp(name, c->q, c->qlen)) {
		score = 1;
	} else {
		d = distance(c->q, c->qlen, name, len);
		limit = c->qlen / 3 > 2 ? (int)c->qlen / 3 : 2;
		if (d > limit)
			return;
		score = 2 * d;
	}
	for (i = 0; i < c->n; i++)
		if (score < c->score[i] ||
		    (score == c->score[i] && strcmp(name, c->name[i]) < 0))
			break;
	if (i == PEBS_CLOSE_NR)
		return;
	if (c->n < PEBS_CLOSE_NR)
		c->n++;
	for (j = c->n - 1; j > i; j--) {
		memcpy(c->name[j], c->name[j - 1], sizeof(c->name[j]));
		c->score[j] = c->score[j - 1];
	}
	memcpy(c->name[i], name, len + 1);
	c->score[i] = score;
}

void event_pfm_close_format(const struct pebs_close *c, char *out, size_t len)
{
	unsigned int i;
	size_t n = 0;

	*out = '\0';
	for (i = 0; i < c->n && n < len; i++)
		n += snprintf(out + n, len - n, "%s%s", i == 0 ? "" :
			      i + 1 == c->n ? " or " : ", ", c->name[i]);
}

/* the PMU directories of the sysfs tree */
static void consider_pmus(struct pebs_close *c)
{
	struct dirent *d;
	DIR *dir;

	dir = opendir(event_sysfs_root());
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			event_pfm_close_consider(c, d->d_name);
	closedir(dir);
}

void event_suggest(const char *q, size_t qlen, char *out, size_t len)
{
	struct pebs_close c;
	const char *name;
	unsigned int i;

	event_pfm_close_init(&c, q, qlen);
	for (i = 0; (name = event_builtin_name(i)); i++)
		event_pfm_close_consider(&c, name);
	for (i = 0; (name = event_generic_name(i)); i++)
		event_pfm_close_consider(&c, name);
	event_pfm_consider_all(&c);
	consider_pmus(&c);
	event_pfm_close_format(&c, out, len);
}

void event_pmu_suggest(const char *q, size_t qlen, char *out, size_t len)
{
	struct pebs_close c;

	event_pfm_close_init(&c, q, qlen);
	consider_pmus(&c);
	event_pfm_close_format(&c, out, len);
}

/* ---- names, for suggestions ------------------------------------------- */

void event_pfm_consider_all(struct pebs_close *c)
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
				event_pfm_close_consider(c, einfo.name);
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
		ret = event_pfm_try(prefix, &scratch);
		if (ret == PFM_ERR_ATTR || ret == PFM_ERR_ATTR_VAL ||
		    ret == PFM_ERR_ATTR_SET) {
			snprintf(tok, len, "%.*s", (int)(p - b), b);
			return;
		}
	}
	snprintf(tok, len, "%s", b);
}

int event_pfm_encode(const char *str, struct pebs_event *ev)
{
	char names[200], tok[64], event[128];
	const char *start, *end;
	int ret;

	ret = event_pfm_try(str, ev);
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
			return core_err(-ENODEV, "%s: libpfm4 failed to "
					"initialize (%s): check "
					"LIBPFM_FORCE_PMU", str,
					pfm_strerror(pfm_ready()));
		break;
	case PFM_ERR_NOTFOUND:
		event_suggest(start, (size_t)(end - start), names,
			      sizeof(names));
		if (*end == ':' && !event_tp_available()) {
			const char *c2 = strchr(end + 1, ':');
			int n = c2 ? (int)(c2 - str) : (int)strlen(str);

			return core_err(-ENOENT, "unknown event '%s'%s%s%s; no "
					"tracefs to look up a tracepoint %.*s "
					"in: mount -t tracefs nodev "
					"/sys/kernel/tracing, or run as root",
					event, names[0] ? ": did you mean " :
					"", names, names[0] ? "?" : "", n, str);
		}
		if (names[0])
			return core_err(-ENOENT, "unknown event '%s': did you "
					"mean %s?", event, names);
		if (!event_pfm_core_pmu(0) && getenv("LIBPFM_FORCE_PMU"))
			return core_err(-ENOENT, "unknown event '%s': "
					"LIBPFM_FORCE_PMU=%s names no PMU "
					"libpfm4 knows (e.g. skl, hsw, icl)",
					event, getenv("LIBPFM_FORCE_PMU"));
		return core_err(-ENOENT, "unknown event '%s': not a perf "
				"event name (perf list), a tracepoint sys:name, "
				"pmu/term=.../, an alias (loads, stores, ldlat, "
				"auto) or a libpfm4 event of %s", event,
				event_pfm_core_pmu(0) ?: "this CPU");
	case PFM_ERR_UMASK:
		list_attrs(event, names, sizeof(names));
		return core_err(-EINVAL, "%s: %s needs a valid unit mask: %s",
				str, event, names);
	case PFM_ERR_ATTR:
	case PFM_ERR_ATTR_VAL:
	case PFM_ERR_ATTR_SET:
		bad_component(str, tok, sizeof(tok));
		list_attrs(event, names, sizeof(names));
		return core_err(-EINVAL, "bad modifier '%s' in '%s' (%s): %s "
				"takes %s", tok, str, pfm_strerror(ret), event,
				names);
	default:
		break;
	}
	return core_err(-EINVAL, "%s: libpfm4 cannot encode it: %s", str,
			pfm_strerror(ret));
}
