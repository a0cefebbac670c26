// SPDX-License-Identifier: MIT
/*
 * event-suggest.c - the known names nearest to an unknown one, for a
 * one-line "did you mean a, b or c?": the aliases, perf's generic names
 * (hardware, software, hw-cache), libpfm4's events of the PMUs present
 * (or forced), and the PMUs of the sysfs tree. A name scores by
 * case-insensitive edit distance (at most a third of what was typed, at
 * least 2), or best when it starts with what was typed (3+ characters).
 * Each candidate costs O(typed * candidate) with both under 64
 * characters; the five best are kept in place.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "event-internal.h"

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

void pebs_close_init(struct pebs_close *c, const char *q, size_t qlen)
{
	memset(c, 0, sizeof(*c));
	c->q = q;
	c->qlen = qlen < NAME_MAX_CMP ? qlen : 0;
}

void pebs_close_consider(struct pebs_close *c, const char *name)
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

void pebs_close_format(const struct pebs_close *c, char *out, size_t len)
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

	dir = opendir(pebs_sysfs_root());
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			pebs_close_consider(c, d->d_name);
	closedir(dir);
}

void pebs_event_suggest(const char *q, size_t qlen, char *out, size_t len)
{
	struct pebs_close c;
	const char *name;
	unsigned int i;

	pebs_close_init(&c, q, qlen);
	for (i = 0; (name = pebs_event_builtin_name(i)); i++)
		pebs_close_consider(&c, name);
	for (i = 0; (name = pebs_generic_name(i)); i++)
		pebs_close_consider(&c, name);
	pebs_pfm_consider_all(&c);
	consider_pmus(&c);
	pebs_close_format(&c, out, len);
}

void pebs_pmu_suggest(const char *q, size_t qlen, char *out, size_t len)
{
	struct pebs_close c;

	pebs_close_init(&c, q, qlen);
	consider_pmus(&c);
	pebs_close_format(&c, out, len);
}
