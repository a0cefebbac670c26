// SPDX-License-Identifier: MIT
/*
 * event-tp.c - tracepoints sys:name, as perf 6.1 opens them
 * (util/evsel.c evsel__newtp_idx): PERF_TYPE_TRACEPOINT with config =
 * the id in <tracefs>/events/<sys>/<name>/id, sample_period 1 and
 * PERF_SAMPLE_RAW so that samples carry the tracepoint's fields. The
 * tracefs is found where perf looks (util/tracing_path.c): the tracefs
 * mount /sys/kernel/tracing, else debugfs's /sys/kernel/debug/tracing.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "event-internal.h"

static const char *const default_roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static const char *tp_root;

void pebs_tp_set_root(const char *root)
{
	tp_root = root;
}

/* the first tracing directory with an events/<sys> directory */
static const char *find_root(const char *sys)
{
	char path[512];
	struct stat st;
	size_t i;

	if (tp_root) {
		snprintf(path, sizeof(path), "%s/events/%s", tp_root, sys);
		return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ?
		       tp_root : NULL;
	}
	for (i = 0; i < ARRAY_SIZE(default_roots); i++) {
		snprintf(path, sizeof(path), "%s/events/%s", default_roots[i],
			 sys);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return default_roots[i];
	}
	return NULL;
}

/* perf's tracepoint names, without globs: [A-Za-z_][A-Za-z0-9_.-]* */
static bool tp_word(const char *s, size_t len)
{
	size_t i;

	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

static int read_id(const char *path, uint64_t *id)
{
	char buf[32], *end;
	size_t n;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	errno = 0;
	*id = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

static int unknown(const char *root, const char *sys, const char *name)
{
	char path[512], names[200];
	struct pebs_close c;
	struct dirent *d;
	DIR *dir;

	pebs_close_init(&c, name, strlen(name));
	snprintf(path, sizeof(path), "%s/events/%s", root, sys);
	dir = opendir(path);
	if (dir) {
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.' && d->d_type == DT_DIR)
				pebs_close_consider(&c, d->d_name);
		closedir(dir);
	}
	pebs_close_format(&c, names, sizeof(names));
	if (names[0])
		return pebs_err(-ENOENT, "unknown tracepoint '%s:%s': did you "
				"mean %s? (see %s)", sys, name, names, path);
	return pebs_err(-ENOENT, "unknown tracepoint '%s:%s': see %s (perf "
			"list tracepoint)", sys, name, path);
}

int pebs_tp_find(const char *str, size_t len, struct pebs_event *ev)
{
	char sys[64], name[128], path[512];
	const char *colon = memchr(str, ':', len), *root;
	uint64_t id = 0;
	int err;

	if (!colon || !tp_word(str, (size_t)(colon - str)) ||
	    !tp_word(colon + 1, len - (size_t)(colon - str) - 1) ||
	    (size_t)(colon - str) >= sizeof(sys) ||
	    len - (size_t)(colon - str) - 1 >= sizeof(name))
		return 1;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - str), str);
	snprintf(name, sizeof(name), "%.*s", (int)(len - (colon - str) - 1),
		 colon + 1);
	root = find_root(sys);
	if (!root)
		return 1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	err = read_id(path, &id);
	if (err == -ENOENT)
		return unknown(root, sys, name);
	if (err)
		return pebs_err(err, "%s:%s: cannot read %s: %s", sys, name,
				path, err == -EINVAL ? "not a number" :
				strerror(-err));
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	ev->attr.sample_period = 1;
	ev->attr.sample_type = PERF_SAMPLE_RAW;
	snprintf(ev->pmu, sizeof(ev->pmu), "tracepoint");
	snprintf(ev->resolved, sizeof(ev->resolved), "%s:%s", sys, name);
	ev->flags |= PEBS_EVENT_TRACEPOINT;
	return 0;
}
