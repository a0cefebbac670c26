// SPDX-License-Identifier: MIT
/*
 * test-svg.c - the SVG writer (lib/plot/svg.c): the picture's frame, text
 * escaped into valid XML whatever its bytes (entities, forbidden control
 * characters, bytes that are not UTF-8, overlong forms, surrogates),
 * fixed-precision numbers, the element cap, a write error kept for
 * __finish, stable colours.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static struct pebs_svg *open_mem(struct mem *m, unsigned long cap)
{
	struct pebs_svg *s;

	m->buf = NULL;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	assert_int_equal(pebs_svg__new(m->f, 100, 50, cap, &s), 0);
	return s;
}

/* the text written by @str alone, escaped */
static char *escaped(const char *str)
{
	struct pebs_svg *s;
	struct mem m;
	char *start, *end, *r;

	s = open_mem(&m, 0);
	pebs_svg__raw(s, "<t>");
	pebs_svg__esc(s, str);
	pebs_svg__raw(s, "</t>");
	assert_int_equal(pebs_svg__finish(s), 0);
	fclose(m.f);
	start = strstr(m.buf, "<t>") + 3;
	end = strstr(start, "</t>");
	r = strndup(start, (size_t)(end - start));
	free(m.buf);
	return r;
}

static void expect(const char *in, const char *out)
{
	char *r = escaped(in);

	assert_string_equal(r, out);
	free(r);
}

static void test_escape(void **state)
{
	(void)state;
	expect("plain_name+0x10", "plain_name+0x10");
	expect("a<b>&\"c'", "a&lt;b&gt;&amp;&quot;c&#39;");
	expect("std::vector<int>::at", "std::vector&lt;int&gt;::at");
	/* UTF-8 kept: é (2 bytes), € (3), 😀 (4) */
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* control characters: tab kept, others '?' */
	expect("a\tb\x01" "c\x1f" "d\n", "a\tb?c?d?");
	/* not UTF-8: a lone continuation, a cut sequence, an overlong
	   '/', a surrogate, past U+10FFFF, U+FFFE */
	expect("\x80x", "?x");
	expect("\xe2\x82", "??");
	expect("\xc0\xaf", "??");
	expect("\xed\xa0\x80", "???");
	expect("\xf4\x90\x80\x80", "????");
	expect("\xef\xbf\xbe", "???");
	expect("", "");
}

static void test_picture(void **state)
{
	struct pebs_svg *s;
	struct mem m;

	(void)state;
	s = open_mem(&m, 0);
	pebs_svg__rect(s, 1.25, 2, 3.333, 4, "#fff");
	pebs_svg__text(s, 5, 6, "id=\"x\"", "<hi>");
	pebs_svg__text(s, 5, 6, NULL, "yo");
	pebs_svg__printf(s, "<!-- %d -->", 7);
	assert_int_equal(pebs_svg__finish(s), 0);
	fclose(m.f);
	assert_string_equal(m.buf,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"100\" height=\"50\" viewBox=\"0 0 100 50\">\n"
		"<rect x=\"1.2\" y=\"2.0\" width=\"3.3\" height=\"4.0\" "
		"fill=\"#fff\"/>"
		"<text x=\"5.0\" y=\"6.0\" id=\"x\">&lt;hi&gt;</text>\n"
		"<text x=\"5.0\" y=\"6.0\">yo</text>\n"
		"<!-- 7 --></svg>\n");
	free(m.buf);
}

static void test_cap(void **state)
{
	struct pebs_svg *s;
	struct mem m;

	(void)state;
	s = open_mem(&m, 3);
	assert_true(pebs_svg__count(s, 2));
	assert_false(pebs_svg__count(s, 2));
	assert_true(pebs_svg__count(s, 1));
	assert_false(pebs_svg__count(s, 1));
	assert_int_equal(pebs_svg__elements(s), 3);
	assert_int_equal(pebs_svg__finish(s), 0);
	fclose(m.f);
	free(m.buf);
	s = open_mem(&m, 0);	/* no cap */
	assert_true(pebs_svg__count(s, 1000000));
	assert_int_equal(pebs_svg__finish(s), 0);
	fclose(m.f);
	free(m.buf);
}

static void test_errors(void **state)
{
	struct pebs_svg *s;
	FILE *f;
	int i;

	(void)state;
	assert_int_equal(pebs_svg__new(NULL, 1, 1, 0, &s), -EINVAL);
	f = fopen("/dev/full", "w");
	if (!f) {
		skip();
		return;
	}
	assert_int_equal(pebs_svg__new(f, 100, 100, 0, &s), 0);
	for (i = 0; i < 10000; i++)
		pebs_svg__rect(s, i, i, 1, 1, "#000");
	assert_int_equal(pebs_svg__finish(s), -ENOSPC);
	assert_non_null(strstr(pebs_errmsg(), "cannot write"));
	fclose(f);
	assert_int_equal(pebs_svg__finish(NULL), -EINVAL);
}

static void test_colours(void **state)
{
	char buf[32];

	(void)state;
	/* FNV-1a 32-bit test vectors */
	assert_int_equal(pebs_svg__hash(""), 0x811c9dc5u);
	assert_int_equal(pebs_svg__hash("a"), 0xe40c292cu);
	pebs_svg__hsl(buf, sizeof(buf), 370, 120, 50);
	assert_string_equal(buf, "hsl(10,100%,50%)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_picture),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_colours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
