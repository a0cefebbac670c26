// SPDX-License-Identifier: MIT
/*
 * event-list.c - one -e argument as perf reads it: events separated by
 * commas, and groups {a,b} or {a,b}:mods (util/parse-events.y). A comma
 * inside pmu/term=...,term=.../ belongs to the event. Each event is
 * parsed by event_parse_one(); a group's modifiers apply to every
 * member over its own (perf's parse_events__modifier_group), and only
 * then does the kernel/hv fallback of event-mods.c run, as perf decides
 * it at open time. Members name their leader by index; the leader is
 * opened first and the others with its fd as group_fd.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pebsshim/event.h"
#include "core/internal.h"
#include "event/event-internal.h"

struct list_ctx {
	const char *str;		/* the whole argument, for messages */
	struct pebs_event *evs;
	unsigned int max, n;
};

/* length of the event at @p: up to a ',' or '}' outside pmu/.../ */
static size_t event_len(const char *p)
{
	size_t i;
	int slash = 0;

	for (i = 0; p[i]; i++) {
		if (p[i] == '/')
			slash ^= 1;
		else if (!slash && (p[i] == ',' || p[i] == '}' || p[i] == '{'))
			break;
	}
	return i;
}

static int add_event(struct list_ctx *c, const char *p, size_t len,
		     bool defer)
{
	char buf[sizeof(c->evs->name)];
	int err;

	if (!len)
		return core_err(-EINVAL, "'%s': empty event in the list (two "
				"commas, or a comma at an end?)", c->str);
	if (len >= sizeof(buf))
		return core_err(-EINVAL, "event string longer than %zu "
				"characters: '%.40s...'", sizeof(buf) - 1, p);
	if (c->n == c->max)
		return core_err(-E2BIG, "'%s': more than %u events: give fewer",
				c->str, c->max);
	memcpy(buf, p, len);
	buf[len] = '\0';
	err = event_parse_one(buf, &c->evs[c->n], defer);
	if (err)
		return err;
	c->evs[c->n].leader = c->n;
	c->evs[c->n].nr_members = 1;
	c->n++;
	return 0;
}

/* {a,b,...}[:mods] at @p; returns the characters used or -errno */
static int add_group(struct list_ctx *c, const char *p)
{
	const char *q = p + 1, *mods_end;
	unsigned int leader = c->n, i;
	char mods[64];
	struct pebs_mods m;
	size_t len;
	int err;

	for (;;) {
		if (*q == '{')
			return core_err(-EINVAL, "'%s': groups do not nest",
					c->str);
		len = event_len(q);
		err = add_event(c, q, len, true);
		if (err)
			return err;
		q += len;
		if (*q == '}')
			break;
		if (*q != ',')
			return core_err(-EINVAL, "'%s': %s", c->str, *q == '{' ?
					"groups do not nest" :
					"a group {a,b} lacks its '}'");
		q++;
	}
	q++;	/* the '}' */
	mods_end = q + strcspn(q, ",{}");
	if (*q && *q != ',' && *q != ':')
		return core_err(-EINVAL, "'%s': after a group's '}' come "
				"':modifiers' or ','", c->str);
	if ((size_t)(mods_end - q) >= sizeof(mods))
		return core_err(-EINVAL, "'%s': group modifiers too long",
				c->str);
	snprintf(mods, sizeof(mods), "%.*s", (int)(mods_end - q), q);
	err = event_mods_parse(c->str, mods, 0, &m);
	for (i = leader; !err && i < c->n; i++)
		err = event_mods_apply(c->str, &m, &c->evs[i], true);
	if (err)
		return err;
	for (i = leader; i < c->n; i++) {
		event_finalize(&c->evs[i]);
		c->evs[i].leader = leader;
		c->evs[i].nr_members = c->n - leader;
	}
	return (int)(mods_end - p);
}

int pebs_event__parse_list(const char *str, struct pebs_event *evs,
			   unsigned int max, unsigned int *nr)
{
	struct list_ctx c = { .str = str, .evs = evs, .max = max };
	const char *p = str;
	size_t len;
	int err = 0;

	if (!str || !evs || !nr || *nr > max)
		return core_err(-EINVAL, "pebs_event__parse_list: NULL "
				"argument or *nr > max");
	if (!*str)
		return core_err(-EINVAL, "empty event name: try -e auto");
	c.n = *nr;
	while (!err) {
		if (*p == '{') {
			err = add_group(&c, p);
			if (err > 0) {
				p += err;
				err = 0;
			}
		} else {
			len = event_len(p);
			err = add_event(&c, p, len, false);
			p += len;
		}
		if (err || !*p)
			break;
		if (*p != ',') {
			err = core_err(-EINVAL, "'%s': unexpected '%c' (groups "
				       "are {a,b}:mods, separated by commas)",
				       str, *p);
			break;
		}
		p++;	/* the ',' */
		if (!*p)
			err = core_err(-EINVAL, "'%s': a comma at the end",
				       str);
	}
	if (err) {
		memset(evs + *nr, 0, (c.n - *nr) * sizeof(*evs));
		return err;
	}
	*nr = c.n;
	core_err_clear();
	return 0;
}
