// SPDX-License-Identifier: MIT
/*
 * svg.c - a small, deterministic SVG writer for the plots.
 *
 * Everything goes through one stdio stream: markup the caller spells
 * (pebs_svg__raw, __printf) and text that comes from the recording
 * (symbols, comms, file names), which __esc makes valid XML whatever its
 * bytes: the five markup characters become entities, control characters
 * that XML 1.0 forbids and bytes that are not UTF-8 become '?'.
 * Numbers are printed with a fixed precision (%.1f), so the same input
 * gives the same bytes. The writer counts the elements it was asked for
 * (__count) and keeps the first write error for __finish.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/plot.h"
#include "plot/svg.h"

struct pebs_svg {
	FILE *f;
	unsigned long elements;
	unsigned long max_elements;
	int err;
};

int pebs_svg__new(FILE *f, double width, double height,
		  unsigned long max_elements, struct pebs_svg **sp)
{
	struct pebs_svg *s;

	if (!f || !sp || !(width > 0) || !(height > 0))
		return core_err(-EINVAL, "svg: no stream or an empty picture");
	s = calloc(1, sizeof(*s));
	if (!s)
		return core_err(-ENOMEM, "svg: out of memory");
	s->f = f;
	s->max_elements = max_elements ? max_elements : ULONG_MAX;
	pebs_svg__printf(s,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		width, height, width, height);
	*sp = s;
	return 0;
}

int pebs_svg__finish(struct pebs_svg *s)
{
	int err;

	if (!s)
		return -EINVAL;
	pebs_svg__raw(s, "</svg>\n");
	if (!s->err && fflush(s->f))
		s->err = -errno;
	err = s->err;
	free(s);
	return err ? core_err(err, "svg: cannot write the picture: %s",
			      strerror(-err)) : 0;
}

static void check(struct pebs_svg *s, int ret)
{
	if (ret < 0 && !s->err)
		s->err = errno ? -errno : -EIO;
}

void pebs_svg__raw(struct pebs_svg *s, const char *markup)
{
	check(s, fputs(markup, s->f));
}

void pebs_svg__printf(struct pebs_svg *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check(s, vfprintf(s->f, fmt, ap));
	va_end(ap);
}

/* The length of the valid UTF-8 sequence at @p (of @n bytes), else 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF, U+FFFE/U+FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff ||
	    c == 0xfffe || c == 0xffff)
		return 0;
	return len;
}

void pebs_svg__esc(struct pebs_svg *s, const char *str)
{
	const unsigned char *p = (const unsigned char *)str;
	const char *ent;
	size_t k;

	while (*p) {
		k = 1;
		switch (*p) {
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '"': ent = "&quot;"; break;
		case '\'': ent = "&#39;"; break;
		default:
			k = utf8_len(p, strnlen((const char *)p, 4));
			/* XML 1.0 allows tab, LF, CR only below 0x20 */
			if (!k || (*p < 0x20 && *p != '\t'))
				ent = "?", k = 1;
			else
				ent = NULL;
			break;
		}
		if (ent)
			check(s, fputs(ent, s->f));
		else if (fwrite(p, 1, k, s->f) != k)
			check(s, -1);
		p += k;
	}
}

bool pebs_svg__count(struct pebs_svg *s, unsigned long n)
{
	if (s->elements + n > s->max_elements)
		return false;
	s->elements += n;
	return true;
}

unsigned long pebs_svg__elements(const struct pebs_svg *s)
{
	return s->elements;
}

void pebs_svg__text(struct pebs_svg *s, double x, double y,
		    const char *attrs, const char *str)
{
	pebs_svg__printf(s, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y,
			 attrs ? " " : "", attrs ? attrs : "");
	pebs_svg__esc(s, str);
	pebs_svg__raw(s, "</text>\n");
}

void pebs_svg__rect(struct pebs_svg *s, double x, double y, double w,
		    double h, const char *fill)
{
	pebs_svg__printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			 "height=\"%.1f\" fill=\"%s\"/>", x, y, w, h, fill);
}

/* FNV-1a: a colour's variation by name, the same on every run. */
uint32_t pebs_svg__hash(const char *str)
{
	uint32_t h = 2166136261u;

	while (*str)
		h = (h ^ (unsigned char)*str++) * 16777619u;
	return h;
}

void pebs_svg__hsl(char *buf, size_t len, unsigned int hue,
		   unsigned int sat, unsigned int light)
{
	snprintf(buf, len, "hsl(%u,%u%%,%u%%)", hue % 360,
		 sat > 100 ? 100 : sat, light > 100 ? 100 : light);
}
