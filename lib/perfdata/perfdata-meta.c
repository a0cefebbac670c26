// SPDX-License-Identifier: MIT
/*
 * perfdata-meta.c - pebs-shim's own facts about a recording, e.g. the
 * attribution record used, kept out of the stored command line (which
 * stays the one typed): " key=value" words after "pebs-shim" in
 * HEADER_VERSION, the feature perf fills with the writing tool's
 * version ("# perf version : pebs-shim attribution=tid" in perf report
 * --header-only).
 *
 * Why there: perf reads HEADER_VERSION as free text and only prints it,
 * in files and in pipes alike. A feature bit of our own is skipped by
 * perf report and perf script (they walk only the features perf knows),
 * but perf inject copies the input's feature bits and indexes its
 * feat_ops table with them when writing: with a bit past
 * HEADER_LAST_FEATURE, perf 6.1's inject writes a file perf then refuses
 * ("attr size field is 0"); and in a pipe perf warns of a feature record
 * it does not know. A dummy event would be listed by perf evlist and
 * counted among the events. perf inject writes its own version, so the
 * words do not survive an inject; nothing else is lost.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/perfdata.h"
#include "core/internal.h"
#include "perfdata/perfdata-write.h"

#define META_MAX	1024
#define TOOL		"pebs-shim"

/* a word: printable, no blank, no '=' in a key */
static bool word(const char *s, bool key)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || (key && *s == '='))
			return false;
	return true;
}

/* " key=" in @text (words after the tool's name), or NULL */
static const char *find(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while ((p = strchr(p, ' '))) {
		p++;
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return p - 1;
	}
	return NULL;
}

int pebs_perfdata_writer__set_meta(struct pebs_perfdata_writer *w,
				   const char *key, const char *value)
{
	struct bytes b = { 0 };
	const char *old = NULL;
	size_t l;

	if (!w || !key || !value || !word(key, true) || !word(value, false) ||
	    w->meta.len + strlen(key) + strlen(value) + 2 > META_MAX)
		return core_err(-EINVAL, "perfdata writer: bad metadata "
				"'%s': a key and a value of printable "
				"characters without blanks (no '=' in the key)",
				key ? key : "(null)");
	if (w->meta.len) {
		bytes_add(&w->meta, "", 1);	/* a C string to search */
		w->meta.len--;
		old = find(w->meta.p, key);
	}
	if (old) {	/* replaced: the words before and after it */
		l = 1 + strcspn(old + 1, " ");
		bytes_add(&b, w->meta.p, (size_t)(old - w->meta.p));
		bytes_add(&b, old + l, w->meta.len - (size_t)(old - w->meta.p)
			  - l);
	} else {
		bytes_add(&b, w->meta.p, w->meta.len);
	}
	bytes_add(&b, " ", 1);
	bytes_add(&b, key, strlen(key));
	bytes_add(&b, "=", 1);
	bytes_add(&b, value, strlen(value));
	if (b.oom || w->meta.oom) {
		free(b.p);
		return core_err(-ENOMEM, "perfdata writer: out of memory");
	}
	free(w->meta.p);
	w->meta = b;
	return 0;
}

void wr_version(const struct pebs_perfdata_writer *w, struct bytes *b)
{
	char text[sizeof(TOOL) + META_MAX + 1];

	snprintf(text, sizeof(text), TOOL "%.*s", (int)w->meta.len,
		 w->meta.len ? w->meta.p : "");
	bytes_str(b, text);
}

int pebs_perfdata__meta(const struct pebs_perfdata *pd, const char *key,
			char *buf, size_t len)
{
	char text[sizeof(TOOL) + META_MAX + 1];
	const char *at;
	size_t vlen;

	if (!pd || !key || !buf || !len || !word(key, true))
		return core_err(-EINVAL, "perfdata: bad metadata lookup");
	if (pebs_perfdata__feat_str(pd, PEBS_FEAT_VERSION, text,
				    sizeof(text)) < 0 ||
	    strncmp(text, TOOL " ", sizeof(TOOL)))
		return core_err(-ENOENT, "perf.data: no pebs-shim metadata");
	at = find(text, key);
	if (!at)
		return core_err(-ENOENT, "perf.data has no metadata '%s'", key);
	at += strlen(key) + 2;
	vlen = strcspn(at, " ");
	snprintf(buf, len, "%.*s", (int)vlen, at);
	return (int)vlen;
}
