// SPDX-License-Identifier: MIT
/*
 * test-flame.c - the stack tree (lib/plot/flame.c): aggregation, totals and
 * depth, FlameGraph's folded output (lines sorted bytewise by stack as
 * stackcollapse-perf.pl sorts them, counts by samples or value), the
 * walk (children by name, x offsets, narrow frames merged), the depth
 * limit; and the flame SVG (lib/plot/plot-flame.c): frames carry exact
 * extents, the same tree gives the same bytes, the element cap; its
 * height comes from the frames drawn, not from invisible deep stacks;
 * a million distinct samples give at most the cap of frames, the same
 * bytes for the same samples.
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

static const enum pebs_frame_kind K[PEBS_FLAME_MAX_DEPTH + 1];

static void add(struct pebs_flame *f, const char *stack, uint64_t samples,
		uint64_t value)
{
	char buf[512], *save, *tok;
	const char *names[64];
	unsigned int n = 0;

	snprintf(buf, sizeof(buf), "%s", stack);
	for (tok = strtok_r(buf, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save))
		names[n++] = tok;
	assert_int_equal(pebs_flame__add(f, names, K, n, samples, value), 0);
}

static char *collapsed(struct pebs_flame *f, bool by_samples)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(pebs_flame__write_collapsed(f, m, by_samples), 0);
	fclose(m);
	return buf;
}

static void test_collapsed(void **state)
{
	struct pebs_flame *f;
	uint64_t s, v;
	char *out;

	(void)state;
	assert_int_equal(pebs_flame__new(&f), 0);
	add(f, "memwalk;main;chase", 3, 300);
	add(f, "memwalk;main;chase", 1, 100);
	add(f, "memwalk;main", 2, 20);
	add(f, "memwalk;main!x", 1, 1);	/* '!' < ';': sorts before main;.. */
	add(f, "memwalk;ma", 1, 1);
	add(f, "a b;x", 5, 5);
	pebs_flame__totals(f, &s, &v);
	assert_int_equal(s, 13);
	assert_int_equal(v, 427);
	/* all, memwalk, main, chase, main!x, ma, "a b", x */
	assert_int_equal(pebs_flame__nr_nodes(f), 8);
	assert_int_equal(pebs_flame__depth(f), 3);
	out = collapsed(f, true);
	/* bytewise, as perl's sort: "memwalk;ma " < "memwalk;main " <
	   "memwalk;main!x" < "memwalk;main;chase" */
	assert_string_equal(out, "a b;x 5\n"
				 "memwalk;ma 1\n"
				 "memwalk;main 2\n"
				 "memwalk;main!x 1\n"
				 "memwalk;main;chase 4\n");
	free(out);
	out = collapsed(f, false);
	assert_non_null(strstr(out, "memwalk;main;chase 400\n"));
	assert_non_null(strstr(out, "memwalk;main 20\n"));
	free(out);
	pebs_flame__delete(f);
}

struct seen {
	char names[16][32];
	uint64_t x[16], value[16];
	unsigned int depth[16], merged[16];
	unsigned int n;
};

static int record_node(void *arg, const struct pebs_flame_node *n)
{
	struct seen *s = arg;

	assert_true(s->n < 16);
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s",
		 n->name ? n->name : "(merged)");
	s->x[s->n] = n->x;
	s->value[s->n] = n->value;
	s->depth[s->n] = n->depth;
	s->merged[s->n] = n->merged;
	s->n++;
	return 0;
}

static int stop_at_two(void *arg, const struct pebs_flame_node *n)
{
	(void)n;
	return ++*(int *)arg == 2 ? 42 : 0;
}

static void test_walk(void **state)
{
	struct pebs_flame *f;
	struct seen s = { .n = 0 };
	int calls = 0;

	(void)state;
	assert_int_equal(pebs_flame__new(&f), 0);
	add(f, "p;zeta", 1, 50);
	add(f, "p;alpha", 1, 40);
	add(f, "p;tiny1", 1, 2);
	add(f, "p;tiny2", 1, 3);
	add(f, "p", 1, 5);
	assert_int_equal(pebs_flame__walk(f, false, 5, record_node, &s), 0);
	/* all, p, alpha, zeta (by name), then tiny1+tiny2 merged */
	assert_int_equal(s.n, 5);
	assert_string_equal(s.names[0], "all");
	assert_int_equal(s.value[0], 100);
	assert_string_equal(s.names[1], "p");
	assert_string_equal(s.names[2], "alpha");
	assert_int_equal(s.x[2], 0);
	assert_int_equal(s.value[2], 40);
	assert_string_equal(s.names[3], "zeta");
	assert_int_equal(s.x[3], 40);
	assert_string_equal(s.names[4], "(merged)");
	assert_int_equal(s.x[4], 90);
	assert_int_equal(s.value[4], 5);
	assert_int_equal(s.merged[4], 2);
	assert_int_equal(s.depth[4], 2);
	/* by samples: everything is 1 wide; min 1 merges nothing */
	s.n = 0;
	assert_int_equal(pebs_flame__walk(f, true, 1, record_node, &s), 0);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.value[0], 5);
	/* narrow merged blocks narrower than min are dropped too */
	s.n = 0;
	assert_int_equal(pebs_flame__walk(f, false, 45, record_node, &s), 0);
	assert_int_equal(s.n, 4);	/* all, p, zeta, merged(alpha..) */
	assert_string_equal(s.names[3], "(merged)");
	assert_int_equal(s.value[3], 45);
	/* the callback's value stops the walk */
	assert_int_equal(pebs_flame__walk(f, false, 1, stop_at_two, &calls),
			 42);
	assert_int_equal(calls, 2);
	pebs_flame__delete(f);
}

static void test_limits(void **state)
{
	const char *names[PEBS_FLAME_MAX_DEPTH + 1];
	struct pebs_flame *f;
	unsigned int i;
	uint64_t s;

	(void)state;
	for (i = 0; i <= PEBS_FLAME_MAX_DEPTH; i++)
		names[i] = i % 2 ? "a" : "b";
	assert_int_equal(pebs_flame__new(&f), 0);
	assert_int_equal(pebs_flame__add(f, names, K, PEBS_FLAME_MAX_DEPTH + 1,
					 1, 1), -E2BIG);
	assert_int_equal(pebs_flame__add(f, names, K, PEBS_FLAME_MAX_DEPTH,
					 1, 1), 0);
	assert_int_equal(pebs_flame__depth(f), PEBS_FLAME_MAX_DEPTH);
	assert_int_equal(pebs_flame__add(NULL, names, K, 1, 1, 1), -EINVAL);
	/* an empty stack counts at the root, and is no folded line */
	assert_int_equal(pebs_flame__add(f, NULL, NULL, 0, 1, 1), 0);
	pebs_flame__totals(f, &s, NULL);
	assert_int_equal(s, 2);
	pebs_flame__delete(f);
	pebs_flame__delete(NULL);
}

/* many distinct stacks: the tables grow, every stack is kept */
static void test_many(void **state)
{
	struct pebs_flame *f;
	char a[16], b[16];
	const char *names[3];
	unsigned int i;
	uint64_t s;

	(void)state;
	assert_int_equal(pebs_flame__new(&f), 0);
	for (i = 0; i < 20000; i++) {
		snprintf(a, sizeof(a), "f%u", i % 100);
		snprintf(b, sizeof(b), "g%u", i);
		names[0] = "comm";
		names[1] = a;
		names[2] = b;
		assert_int_equal(pebs_flame__add(f, names, K, 3, 1, i), 0);
	}
	pebs_flame__totals(f, &s, NULL);
	assert_int_equal(s, 20000);
	assert_int_equal(pebs_flame__nr_nodes(f), 1 + 1 + 100 + 20000);
	pebs_flame__delete(f);
}

static char *svg(struct pebs_flame *f, const struct pebs_flame_svg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(pebs_flame__write_svg(f, m, o), 0);
	fclose(m);
	return buf;
}

static void test_svg(void **state)
{
	PEBS_OPTS(pebs_flame_svg_opts, o, .title = "T <&>", .unit = "period");
	struct pebs_flame *f;
	char *a, *b, *p;
	unsigned int n = 0;

	(void)state;
	assert_int_equal(pebs_flame__new(&f), 0);
	add(f, "memwalk;main;chase", 3, 300);
	add(f, "memwalk;main;stream", 1, 100);
	a = svg(f, &o);
	b = svg(f, &o);
	assert_string_equal(a, b);	/* deterministic */
	assert_non_null(strstr(a, "<title>T &lt;&amp;&gt;</title>") ||
			strstr(a, ">T &lt;&amp;&gt;</text>"));
	assert_non_null(strstr(a, "data-x=\"0\" data-v=\"300\" data-d=\"3\" "
			       "data-n=\"chase\""));
	assert_non_null(strstr(a, "data-x=\"300\" data-v=\"100\" data-d=\"3\" "
			       "data-n=\"stream\""));
	assert_non_null(strstr(a, "chase (3 samples, period 300, 75.00%)"));
	assert_non_null(strstr(a, "id=\"matched\""));
	for (p = a; (p = strstr(p, "<g class=\"f\"")); p++)
		n++;
	assert_int_equal(n, 5);
	free(a);
	free(b);
	/* the cap: two frames drawn, the rest counted in a comment */
	o.max_elements = 2;
	a = svg(f, &o);
	for (n = 0, p = a; (p = strstr(p, "<g class=\"f\"")); p++)
		n++;
	assert_int_equal(n, 2);
	assert_non_null(strstr(a, "<!-- 3 frames over the cap"));
	free(a);
	pebs_flame__delete(f);
}

/* the height of a flame of depth 2 (56 px above, 16 a row, 34 below) */
static void test_height(void **state)
{
	PEBS_OPTS(pebs_flame_svg_opts, o);
	struct pebs_flame *f;
	char *a;

	(void)state;
	assert_int_equal(pebs_flame__new(&f), 0);
	add(f, "a;b", 1, 1000000000);
	/* one unit of 10^9: far below 0.1 px, 40 frames deep */
	add(f, "a;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q;r;s;t;u;v;w;x;y;z;"
	       "c;d;e;f;g;h;i;j;k;l;m;n;o;p;q", 1, 1);
	assert_int_equal(pebs_flame__depth(f), 40);
	a = svg(f, &o);
	assert_non_null(strstr(a, "width=\"1200\" height=\"138\""));
	assert_null(strstr(a, "data-n=\"c\""));
	free(a);
	/* the cap: root and "a" drawn, so one row less */
	o.max_elements = 2;
	a = svg(f, &o);
	assert_non_null(strstr(a, "width=\"1200\" height=\"122\""));
	free(a);
	/* wide enough, the deep stack is drawn and counts */
	add(f, "a;c;d", 1, 500000000);
	o.max_elements = 0;
	a = svg(f, &o);
	assert_non_null(strstr(a, "data-n=\"d\""));
	assert_non_null(strstr(a, "width=\"1200\" height=\"154\""));
	free(a);
	pebs_flame__delete(f);
}

/* xorshift64: the same "random" stacks on every run */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* 10^6 samples of 1..16 frames out of 5000 names, seeded */
static struct pebs_flame *big_tree(void)
{
	static char names[5000][12];
	const char *stack[17];
	struct pebs_flame *f;
	uint64_t x = 88172645463325252ULL, r;
	unsigned int i, d, n;

	for (i = 0; i < 5000; i++)
		snprintf(names[i], sizeof(names[i]), "fn%u", i);
	assert_int_equal(pebs_flame__new(&f), 0);
	for (i = 0; i < 1000000; i++) {
		r = next_rand(&x);
		n = 1 + (unsigned int)(r % 16);
		stack[0] = "big";
		for (d = 1; d <= n; d++)
			stack[d] = names[next_rand(&x) % (d < 3 ? 50 : 5000)];
		assert_int_equal(pebs_flame__add(f, stack, K, n + 1, 1,
						 1 + r % 1000), 0);
	}
	return f;
}

static void test_million(void **state)
{
	PEBS_OPTS(pebs_flame_svg_opts, o, .unit = "period");
	struct pebs_flame *f = big_tree(), *g = big_tree();
	char *a, *b, *p;
	unsigned long frames = 0;
	uint64_t samples;

	(void)state;
	pebs_flame__totals(f, &samples, NULL);
	assert_int_equal(samples, 1000000);
	assert_true(pebs_flame__nr_nodes(f) > 500000);	/* mostly distinct */
	a = svg(f, &o);
	b = svg(g, &o);
	assert_string_equal(a, b);	/* the same samples, the same bytes */
	for (p = a; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	/* merged below 0.1 px, so far fewer than the nodes, within the cap */
	assert_true(frames > 100 && frames <= 50000);
	free(b);
	/* a lower cap is kept, the rest counted */
	o.max_elements = 1000;
	b = svg(f, &o);
	for (frames = 0, p = b; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	assert_int_equal(frames, 1000);
	assert_non_null(strstr(b, "frames over the cap of 1000 elements"));
	free(a);
	free(b);
	pebs_flame__delete(f);
	pebs_flame__delete(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collapsed),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_height),
		cmocka_unit_test(test_million),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
