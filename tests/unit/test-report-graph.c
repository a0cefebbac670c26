// SPDX-License-Identifier: MIT
/*
 * test-report-graph.c - perf report -g (lib/report/report-graph.c,
 * report-graph-print.c): chains merged by function, split where they
 * part, printed to the byte as perf 6.1 prints them (graph, fractal with
 * its "[...]" rest, flat, folded, count and period values, threshold,
 * print limit, the single chain after "---" and its first frame left
 * out under sym), children rows taking the chain from their frame on in
 * caller and callee order, equal branches in perf's order (addresses in
 * a file, the files' order: pebs_symbols__dso_order), and perf's -g
 * grammar.
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

static const char DSO[] = "/bin/w";
static const char A[] = "a", B[] = "b", C[] = "c", D[] = "d";

/* A report of @keys with graph @mode, @order, @value, threshold @pct. */
static struct pebs_report *new_graph(const char *keys, bool children,
				     enum pebs_graph_mode mode,
				     enum pebs_graph_order order,
				     enum pebs_graph_value value, double pct,
				     unsigned int limit)
{
	enum pebs_report_key k[PEBS_REPORT_MAX_KEYS];
	struct pebs_report *r;
	int n = pebs_report__parse_keys(keys, k, PEBS_REPORT_MAX_KEYS);
	PEBS_OPTS(pebs_report_graph_opts, g, .mode = mode, .order = order,
		  .value = value, .threshold = pct, .has_threshold = true,
		  .print_limit = limit);

	assert_true(n > 0);
	assert_int_equal(pebs_report__new(k, (unsigned int)n, 1, &r), 0);
	if (children)
		assert_int_equal(pebs_report__set_children(r), 0);
	assert_int_equal(pebs_report__set_graph(r, &g), 0);
	assert_true(pebs_report__graph(r));
	return r;
}

/* A sample of period @period with the chain @names (leaf first,
   NULL-ended; a frame's address moves with @ipoff: one function at
   two addresses is one frame of the graph; NULL name: unresolved). */
static void add(struct pebs_report *r, uint64_t period, unsigned int ipoff,
		const char *const *names, unsigned int n)
{
	struct pebs_report_sample s;
	struct pebs_frame fr[16];
	unsigned int i;

	memset(&s, 0, sizeof(s));
	s.pid = s.tid = 7;
	s.comm = "w";
	s.dso = DSO;
	s.sym = names[0];
	s.ip = 0x1000;
	s.period = period;
	for (i = 0; i < n; i++) {
		memset(&fr[i], 0, sizeof(fr[i]));
		fr[i].ip = 0x401000 + 0x100 * i + ipoff;
		fr[i].sym = names[i];
		fr[i].dso = DSO;
	}
	assert_int_equal(pebs_report__add_chain(r, &s, fr, n), 0);
}

/* three chains c <- b <- a and one c <- d <- a, 100 each */
static void add_four(struct pebs_report *r)
{
	static const char *const cba[] = { C, B, A }, *const cda[] = { C, D, A };

	add(r, 100, 0, cba, 3);
	add(r, 100, 8, cba, 3);
	add(r, 100, 16, cba, 3);
	add(r, 100, 0, cda, 3);
}

/* sorted row of symbol @sym printed (@skip: perf's sym skip) */
static char *graph_of(struct pebs_report *r, const char *sym, bool skip)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	pebs_report__sort(r);
	for (i = 0; i < pebs_report__nr_rows(r); i++)
		if (pebs_report__row(r, i)->sym == sym)
			break;
	assert_true(i < pebs_report__nr_rows(r));
	assert_int_equal(pebs_report__print_graph(r, i, false, skip, f), 0);
	fclose(f);
	return buf;
}

static void check(struct pebs_report *r, const char *sym, bool skip,
		  const char *want)
{
	char *got = graph_of(r, sym, skip);

	assert_string_equal(got, want);
	free(got);
}

static void test_graph_callee(void **state)
{
	struct pebs_report *r = new_graph("sym", false, PEBS_GRAPH_GRAPH,
					  PEBS_GRAPH_ORDER_DEFAULT,
					  PEBS_GRAPH_PERCENT, 0, 0);

	(void)state;
	add_four(r);
	check(r, C, true,
	      "            |          \n"
	      "            |--75.00%--b\n"
	      "            |          a\n"
	      "            |          \n"
	      "             --25.00%--d\n"
	      "                       a\n"
	      "\n");
	/* not under sym: the single root's frame after "---" */
	check(r, C, false,
	      "            |\n"
	      "            ---c\n"
	      "               |          \n"
	      "               |--75.00%--b\n"
	      "               |          a\n"
	      "               |          \n"
	      "                --25.00%--d\n"
	      "                          a\n"
	      "\n");
	pebs_report__delete(r);
}

static void test_values_limit(void **state)
{
	struct pebs_report *r = new_graph("sym", false, PEBS_GRAPH_GRAPH,
					  PEBS_GRAPH_CALLEE, PEBS_GRAPH_COUNT,
					  0, 1);

	(void)state;
	add_four(r);
	/* the limit: one branch, its bar kept as perf keeps it */
	check(r, C, true,
	      "            |          \n"
	      "            |--3--b\n"
	      "            |          a\n"
	      "\n");
	pebs_report__delete(r);
	r = new_graph("sym", false, PEBS_GRAPH_GRAPH, PEBS_GRAPH_CALLEE,
		      PEBS_GRAPH_PERIOD, 30, 0);
	add_four(r);
	/* 30 % of 400: d's 100 left out; the branch left holds less than
	   the row: shown with its value */
	check(r, C, true,
	      "            |          \n"
	      "             --300--b\n"
	      "                       a\n"
	      "\n");
	pebs_report__delete(r);
}

static void test_fractal_rest(void **state)
{
	struct pebs_report *r = new_graph("sym", false, PEBS_GRAPH_FRACTAL,
					  PEBS_GRAPH_CALLEE,
					  PEBS_GRAPH_PERCENT, 30, 0);

	(void)state;
	add_four(r);
	check(r, C, true,
	      "            |          \n"
	      "            |--75.00%--b\n"
	      "            |          a\n"
	      "             --25.00%--[...]\n"
	      "\n");
	pebs_report__delete(r);
}

static void test_flat_folded(void **state)
{
	struct pebs_report *r = new_graph("sym", false, PEBS_GRAPH_FLAT,
					  PEBS_GRAPH_CALLEE,
					  PEBS_GRAPH_PERCENT, 0, 0);

	(void)state;
	add_four(r);
	check(r, C, true,
	      "           75.00%\n"
	      "                c\n"
	      "                b\n"
	      "                a\n"
	      "\n"
	      "           25.00%\n"
	      "                c\n"
	      "                d\n"
	      "                a\n"
	      "\n");
	pebs_report__delete(r);
	r = new_graph("sym", false, PEBS_GRAPH_FOLDED, PEBS_GRAPH_CALLER,
		      PEBS_GRAPH_COUNT, 0, 0);
	add_four(r);
	check(r, C, true, "3 a;b;c\n1 a;d;c\n");
	pebs_report__delete(r);
}

static void test_children(void **state)
{
	struct pebs_report *r = new_graph("sym", true, PEBS_GRAPH_GRAPH,
					  PEBS_GRAPH_ORDER_DEFAULT,
					  PEBS_GRAPH_PERCENT, 0, 0);

	(void)state;
	add_four(r);
	/* caller order: a row has its frame and its callees */
	check(r, A, true,
	      "            |          \n"
	      "            |--75.00%--b\n"
	      "            |          c\n"
	      "            |          \n"
	      "             --25.00%--d\n"
	      "                       c\n"
	      "\n");
	check(r, B, true, "            |\n            ---c\n\n");
	pebs_report__delete(r);
	/* callee order: its frame and its callers; a's is a alone (and
	   left out: nothing printed, not even the blank line) */
	r = new_graph("sym", true, PEBS_GRAPH_GRAPH, PEBS_GRAPH_CALLEE,
		      PEBS_GRAPH_PERCENT, 0, 0);
	add_four(r);
	check(r, B, true, "            |\n            ---a\n\n");
	check(r, A, true, "");
	pebs_report__delete(r);
}

static void test_unresolved_split(void **state)
{
	static const char *const c1[] = { C, NULL, A }, *const c2[] = { C };
	struct pebs_report *r = new_graph("sym", false, PEBS_GRAPH_GRAPH,
					  PEBS_GRAPH_CALLEE,
					  PEBS_GRAPH_PERCENT, 0, 0);

	(void)state;
	/* c alone (ends at c: the node splits, c keeps a hit), and c
	   called from an unresolved frame (by address) */
	add(r, 100, 0, c1, 3);
	add(r, 100, 0, c1, 3);
	add(r, 100, 0, c2, 1);
	check(r, C, false,
	      "            |\n"
	      "            ---c\n"
	      "               |          \n"
	      "                --66.67%--0x401100\n"
	      "                          a\n"
	      "\n");
	pebs_report__delete(r);
}

/* a sample in c called from @caller (@dso, @ip), 100 */
static void add_from(struct pebs_report *r, const char *caller,
		     const char *dso, uint64_t ip)
{
	struct pebs_report_sample s = {
		.pid = 7, .tid = 7, .comm = "w", .dso = DSO, .sym = C,
		.ip = 0x1000, .period = 100,
	};
	struct pebs_frame fr[2] = {
		{ .ip = 0x401000, .sym = C, .dso = DSO },
		{ .ip = ip, .sym = caller, .dso = dso,
		  .kernel = dso[0] == '[' },
	};

	assert_int_equal(pebs_report__add_chain(r, &s, fr, 2), 0);
}

/* Equal branches in perf's order: of one file the higher address first;
   of two, the file made later first (pebs_symbols__dso_order), else
   the kernel's last and the others as they came. */
static void test_ties(void **state)
{
	static const char LIB[] = "/lib/x.so", KERNEL[] = "[kernel.kallsyms]";
	const char *want_syms =
		"            |          \n"
		"            |--25.00%--d\n"
		"            |          \n"
		"            |--25.00%--b\n"
		"            |          \n"
		"            |--25.00%--a\n"
		"            |          \n"
		"             --25.00%--0xffffffff81000000\n"
		"\n";
	struct pebs_symbols *syms;
	struct pebs_report *r;
	char *got;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	assert_int_equal(pebs_symbols__add_mmap(syms, 7, 0x400000, 0x10000, 0,
						DSO), 0);
	assert_int_equal(pebs_symbols__add_mmap(syms, 7, 0x7f0000000000,
						0x10000, 0, LIB), 0);
	assert_int_equal(pebs_symbols__dso_order(syms, KERNEL), 0);
	assert_int_equal(pebs_symbols__dso_order(syms, DSO), 1);
	assert_int_equal(pebs_symbols__dso_order(syms, LIB), 2);
	assert_int_equal(pebs_symbols__dso_order(syms, "/none"), -1);
	/* without the files' order: in one file by address, the kernel's
	   last */
	r = new_graph("sym", false, PEBS_GRAPH_GRAPH, PEBS_GRAPH_CALLEE,
		      PEBS_GRAPH_PERCENT, 0, 0);
	add_from(r, NULL, KERNEL, 0xffffffff81000000);
	add_from(r, A, DSO, 0x401200);
	add_from(r, B, DSO, 0x401300);
	check(r, C, true,
	      "            |          \n"
	      "            |--33.33%--b\n"
	      "            |          \n"
	      "            |--33.33%--a\n"
	      "            |          \n"
	      "             --33.33%--0xffffffff81000000\n"
	      "\n");
	pebs_report__delete(r);
	{
		enum pebs_report_key k = PEBS_REPORT_SYM;
		PEBS_OPTS(pebs_report_graph_opts, g, .order = PEBS_GRAPH_CALLEE,
			  .has_threshold = true, .syms = syms);

		assert_int_equal(pebs_report__new(&k, 1, 1, &r), 0);
		assert_int_equal(pebs_report__set_graph(r, &g), 0);
	}
	/* the kernel's, a (w, low), b (w, high), d (x.so, made last) */
	add_from(r, NULL, KERNEL, 0xffffffff81000000);
	add_from(r, A, DSO, 0x401200);
	add_from(r, B, DSO, 0x401300);
	add_from(r, D, LIB, 0x7f0000000100);
	got = graph_of(r, C, true);
	assert_string_equal(got, want_syms);
	free(got);
	pebs_report__delete(r);
	pebs_symbols__delete(syms);
}

/* A row called from 200,000 distinct addresses: each chain is looked
   up among its siblings, not compared with them all (a walk of the
   siblings would take 2e10 steps); all kept, in the folded lines. */
static void test_many_callers(void **state)
{
	struct pebs_report *r = new_graph("sym", false, PEBS_GRAPH_FOLDED,
					  PEBS_GRAPH_CALLEE, PEBS_GRAPH_COUNT,
					  0, 0);
	enum { N = 200000 };
	char *got;
	size_t lines = 0;
	uint32_t i;

	(void)state;
	for (i = 0; i < N; i++)
		add_from(r, NULL, DSO, 0x500000 + 16 * (uint64_t)i);
	add_from(r, NULL, DSO, 0x500000);	/* the first again */
	got = graph_of(r, C, true);
	for (char *p = got; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, N);
	assert_memory_equal(got, "2 c;0x500000\n", 13);
	free(got);
	pebs_report__delete(r);
}

/* perf report --max-stack: the frames counted in the order shown */
static void test_max_stack(void **state)
{
	struct pebs_frame f[6];
	unsigned int i, n;

	(void)state;
	for (i = 0; i < 6; i++)
		f[i] = (struct pebs_frame){ .ip = i, .kernel = i < 2 };
	/* callee order: the innermost */
	assert_int_equal(pebs_report__max_stack(f, 6, 3, PEBS_GRAPH_CALLEE,
						true, false), 3);
	assert_int_equal(f[0].ip, 0);
	assert_int_equal(f[2].ip, 2);
	/* caller order (children's default): the outermost, moved to the
	   front */
	assert_int_equal(pebs_report__max_stack(f, 6, 3,
						PEBS_GRAPH_ORDER_DEFAULT, true,
						false), 3);
	assert_int_equal(f[0].ip, 3);
	assert_int_equal(f[2].ip, 5);
	for (i = 0; i < 6; i++)
		f[i] = (struct pebs_frame){ .ip = i, .kernel = i < 3 };
	/* unwound: 3 kernel frames then 3 user ones; in caller order the
	   kernel's outermost 2, the user's innermost 2 */
	n = pebs_report__max_stack(f, 6, 2, PEBS_GRAPH_CALLER, false, true);
	assert_int_equal(n, 4);
	assert_int_equal(f[0].ip, 1);
	assert_int_equal(f[1].ip, 2);
	assert_int_equal(f[2].ip, 3);
	assert_int_equal(f[3].ip, 4);
	/* short enough: as it was; 0: none */
	assert_int_equal(pebs_report__max_stack(f, 4, 9, PEBS_GRAPH_CALLER,
						false, false), 4);
	assert_int_equal(pebs_report__max_stack(f, 4, 0, PEBS_GRAPH_CALLER,
						false, false), 0);
}

static void test_parse(void **state)
{
	PEBS_OPTS(pebs_report_graph_opts, g);

	(void)state;
	assert_int_equal(pebs_report_graph__parse(NULL, &g), 0);
	assert_int_equal(g.mode, PEBS_GRAPH_GRAPH);
	assert_int_equal(g.order, PEBS_GRAPH_CALLER);
	assert_true(g.has_threshold && g.threshold == 0.5);
	/* perf's prefixes, in its order: f is flat, calle caller */
	assert_int_equal(pebs_report_graph__parse("f,calle,peri", &g), 0);
	assert_int_equal(g.mode, PEBS_GRAPH_FLAT);
	assert_int_equal(g.order, PEBS_GRAPH_CALLER);
	assert_int_equal(g.value, PEBS_GRAPH_PERIOD);
	assert_int_equal(pebs_report_graph__parse("fo,callee,co,2,5", &g), 0);
	assert_int_equal(g.mode, PEBS_GRAPH_FOLDED);
	assert_int_equal(g.order, PEBS_GRAPH_CALLEE);
	assert_int_equal(g.value, PEBS_GRAPH_COUNT);
	assert_true(g.threshold == 2.0);
	assert_int_equal(g.print_limit, 5);
	assert_int_equal(pebs_report_graph__parse("fractal,function", &g), 0);
	assert_int_equal(g.mode, PEBS_GRAPH_FRACTAL);
	assert_int_equal(pebs_report_graph__parse("none,bogus", &g), 0);
	assert_int_equal(g.mode, PEBS_GRAPH_NONE);
	assert_int_equal(pebs_report_graph__parse("graph,address", &g),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "address"));
	assert_int_equal(pebs_report_graph__parse("bogus", &g), -EINVAL);
	assert_int_equal(pebs_report_graph__parse("1,x", &g), -EINVAL);
	assert_int_equal(pebs_report_graph__parse("-1", &g), -EINVAL);
}

static void test_set(void **state)
{
	enum pebs_report_key k = PEBS_REPORT_SYM;
	struct pebs_report *r;
	PEBS_OPTS(pebs_report_graph_opts, g, .mode = PEBS_GRAPH_NONE);
	static const char *const c[] = { C };

	(void)state;
	assert_int_equal(pebs_report__new(&k, 1, 1, &r), 0);
	assert_int_equal(pebs_report__set_graph(r, &g), 0);
	assert_false(pebs_report__graph(r));	/* none: no graph */
	pebs_report__delete(r);
	g.mode = PEBS_GRAPH_GRAPH;
	assert_int_equal(pebs_report__new(&k, 1, 1, &r), 0);
	add(r, 1, 0, c, 1);
	assert_int_equal(pebs_report__set_graph(r, &g), -EINVAL);
	pebs_report__delete(r);
	g.mode = 99;
	assert_int_equal(pebs_report__new(&k, 1, 1, &r), 0);
	assert_int_equal(pebs_report__set_graph(r, &g), -EINVAL);
	pebs_report__delete(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_callee),
		cmocka_unit_test(test_values_limit),
		cmocka_unit_test(test_fractal_rest),
		cmocka_unit_test(test_flat_folded),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_unresolved_split),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_many_callers),
		cmocka_unit_test(test_max_stack),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
