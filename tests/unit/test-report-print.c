// SPDX-License-Identifier: MIT
/*
 * test-report-print.c - pebs_report_tables__print on synthetic tables
 * printed into a memstream: the text header (of the Intel fixture: its
 * host, command line and events), the tables' columns, widths, the
 * --top and --percent-limit cuts, perf report --mem-mode's lines and
 * the weight percentiles; csv and json rows; bad options refused. (The
 * whole outputs on recordings: tests/cli/report*.t.)
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
#include "helpers.h"

#define FIXTURE	"intel-skx-xeon8173M_ldlat64_weight-struct.perf.data"

struct fx {
	struct pebs_perfdata *pd;
	struct pebs_report *syms, *lines;
	struct pebs_weights *w;
	struct pebs_report_table t[2];
	uint64_t per_event[2];
	struct pebs_session_stats st;
};

static void add(struct fx *x, const char *comm, int32_t tid, const char *sym,
		uint64_t addr, uint64_t period, uint64_t weight)
{
	struct pebs_report_sample s = {
		.pid = 10, .tid = tid, .comm = comm, .dso = "/bin/app",
		.sym = sym, .ip = 0x401000, .period = period,
		.has_addr = true, .addr = addr, .has_weight = weight != 0,
		.weight = weight,
	};

	assert_int_equal(pebs_report__add(x->syms, &s), 0);
	assert_int_equal(pebs_report__add(x->lines, &s), 0);
	assert_int_equal(pebs_weights__add(x->w, &s), 0);
}

static int setup(void **state)
{
	enum pebs_report_key k[PEBS_REPORT_MAX_KEYS];
	struct fx *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	x->pd = t_open_fixture(FIXTURE);
	assert_non_null(x->pd);
	assert_int_equal(pebs_report__parse_keys("sym,dso", k, 2), 2);
	assert_int_equal(pebs_report__new(k, 2, 2, &x->syms), 0);
	assert_int_equal(pebs_report__parse_keys("line", k, 1), 1);
	assert_int_equal(pebs_report__new(k, 1, 2, &x->lines), 0);
	assert_int_equal(pebs_weights__new(&x->w), 0);
	/* 6 of 10 in hot (two threads), 3 in "a,b" (quoted), 1 in cold */
	add(x, "app", 11, "hot", 0x1000, 300, 40);
	add(x, "app", 12, "hot", 0x1008, 300, 60);
	add(x, "app", 11, "a,b", 0x2000, 300, 0);
	add(x, "app", 11, "cold", 0x3040, 100, 0);
	pebs_report__sort(x->syms);
	pebs_report__sort(x->lines);
	x->t[0] = (struct pebs_report_table){ "symbols", x->syms };
	x->t[1] = (struct pebs_report_table){ "cache lines", x->lines };
	x->per_event[0] = 4;
	x->st = (struct pebs_session_stats){
		.event_samples = x->per_event, .nr_events = 2,
		.first_time = 1000000, .last_time = 3500000, .lost = 2,
		.lost_samples = 1,
	};
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	pebs_report__delete(x->syms);
	pebs_report__delete(x->lines);
	pebs_weights__delete(x->w);
	pebs_perfdata__close(x->pd);
	free(x);
	return 0;
}

static struct pebs_report_print_opts opts(struct fx *x,
					  enum pebs_report_format fmt)
{
	PEBS_OPTS(pebs_report_print_opts, o, .format = fmt, .path = "x.data",
		  .pd = x->pd, .stats = &x->st, .tables = x->t,
		  .nr_tables = 2, .weights = x->w, .samples = 5,
		  .filtered = 1, .with_addr = 4);
	return o;
}

static char *print(const struct pebs_report_print_opts *o, int want)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pebs_report_tables__print(f, o), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_text(void **state)
{
	struct fx *x = *state;
	struct pebs_report_print_opts o = opts(x, PEBS_REPORT_FORMAT_TEXT);
	char *out = print(&o, 0);

	/* the header: the file's features and the counts given */
	T_HAS_LINE(out, "# pebs-shim report of x.data");
	T_HAS_LINE(out, "# recorded on: oxco15.prod.google.com, Linux "
		 "4.15.0-smp-923.44.0.0, Intel(R) Xeon(R) Platinum 8173M CPU "
		 "@ 2.00GHz");
	T_HAS_LINE(out, "# command   : /usr/bin/perf5 record -a -c 10009 -d "
		 "--pfm-events MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:"
		 "precise=2:mh:mg:pinned -i -m 16 -N -o - -W sleep 10");
	T_HAS_LINE(out, "# event 0   : MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:"
		 "precise=2:mh:mg:pinned (type 4, config 0x1cd, config1 0x40, "
		 "period 10009, precise_ip 2): 4 samples");
	T_HAS_LINE(out, "# event 1   : dummy:HG (type 1, config 0x9, period "
		 "10009): 0 samples");
	T_HAS_LINE(out, "# samples   : 5 (4 with a data address, 0 with a data "
		 "source, 2 with a weight)");
	T_HAS_LINE(out, "# lost      : 2 samples in LOST records, 1 in "
		 "LOST_SAMPLES; 0 throttle events");
	T_HAS_LINE(out, "# duration  : 2.500 ms (first to last sample)");
	T_HAS_LINE(out, "# filtered  : 1 samples left out of the tables");
	assert_null(strstr(out, "# order"));
	/* the tables: widths from the rows, the last column unpadded */
	assert_non_null(strstr(out, "\n\n# symbols\n"
		" Overhead    avg-wt  threads  Symbol    Shared Object\n"
		"   60.00%      50.0        2  [.] hot   app\n"
		"   30.00%         -        1  [.] a,b   app\n"
		"   10.00%         -        1  [.] cold  app\n\n"
		"# cache lines (4 samples with a data address)\n"
		" Overhead    avg-wt  threads  cache line\n"
		"   60.00%      50.0        2  0x1000\n"));
	/* the default tables: the weights' percentiles, by event name */
	assert_non_null(strstr(out, "\n\n# weight (latency, cycles as the PMU "
		"reports it) of 2 samples with one\n"
		"       min       mean        p50        p90        p99        "
		"max    samples  event\n"
		"        40       50.0         60         60         60         "
		"60          2  MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:"
		"mh:mg:pinned\n"));
	free(out);
}

/* quiet (-q): the rows only, the tables a blank line apart */
static void test_text_quiet(void **state)
{
	struct fx *x = *state;
	struct pebs_report_print_opts o = opts(x, PEBS_REPORT_FORMAT_TEXT);
	char *out;

	o.quiet = true;
	o.top = 2;
	out = print(&o, 0);
	assert_string_equal(out,
		"   60.00%      50.0        2  [.] hot  app\n"
		"   30.00%         -        1  [.] a,b  app\n"
		"\n"
		"   60.00%      50.0        2  0x1000\n"
		"   30.00%         -        1  0x2000\n");
	free(out);
}

/* -n, --top, --percent-limit, --mem-mode, several events, file order */
static void test_text_options(void **state)
{
	struct fx *x = *state;
	struct pebs_report_print_opts o = opts(x, PEBS_REPORT_FORMAT_TEXT);
	char *out;

	o.show_nr = true;
	o.top = 1;
	o.nr_tables = 1;
	o.flags = PEBS_ORDERED_FILE_ORDER;
	out = print(&o, 0);
	T_HAS_LINE(out, "# order     : file order (an event does not sample "
		 "TIME)");
	assert_non_null(strstr(out, "# symbols\n"
		" Overhead     Samples    avg-wt  threads  Symbol   "
		"Shared Object\n"
		"   60.00%           2      50.0        2  [.] hot  "
		"app\n"
		"      ...  (2 more rows: --top to show more)\n"));
	free(out);

	/* below 20 %: hidden, and not counted as more rows */
	o.show_nr = false;
	o.top = 0;
	o.percent_limit = 20;
	out = print(&o, 0);
	T_HAS_LINE(out, "   30.00%         -        1  [.] a,b  app");
	assert_null(strstr(out, "cold"));
	assert_null(strstr(out, "more rows"));
	free(out);

	/* --mem-mode's lines; with --sort keys no weight section */
	o.percent_limit = 0;
	o.mem_mode = true;
	o.sort = "sym,dso";
	o.by_event = true;
	out = print(&o, 0);
	assert_non_null(strstr(out, "\n# symbols, share within each event\n"
		"# Total weight : 1000\n# Sort order   : sym,dso\n"
		" Overhead    avg-wt  threads  Symbol    Shared Object\n"));
	assert_null(strstr(out, "# weight (latency"));
	free(out);
}

/* every row; the key columns a table is not grouped by left empty */
static void test_csv(void **state)
{
	struct fx *x = *state;
	struct pebs_report_print_opts o = opts(x, PEBS_REPORT_FORMAT_CSV);
	char *out = print(&o, 0);

	assert_string_equal(out,
		"table,overhead,period,samples,avg_weight,loads,stores,hitm,"
		"threads,event,pid,tgid,tid,comm,dso,sym,cpu,page,line,addr,"
		"src,"
		"symbol_daddr,dso_daddr,mem,snoop,tlb,dcacheline,phys_daddr,"
		"weight,local_weight,locked,blocked,local_ins_lat,object,"
		"object_instance\n"
		"symbols,60.0000,600,2,50.0,0,0,0,2,,,,,,app,[.] hot"
		",,,,,,,,,,,,,,,,,,,\n"
		"symbols,30.0000,300,1,,0,0,0,1,,,,,,app,\"[.] a,b\""
		",,,,,,,,,,,,,,,,,,,\n"
		"symbols,10.0000,100,1,,0,0,0,1,,,,,,app,[.] cold"
		",,,,,,,,,,,,,,,,,,,\n"
		"cache lines,60.0000,600,2,50.0,0,0,0,2,,,,,,,,,,0x1000"
		",,,,,,,,,,,,,,,,\n"
		"cache lines,30.0000,300,1,,0,0,0,1,,,,,,,,,,0x2000"
		",,,,,,,,,,,,,,,,\n"
		"cache lines,10.0000,100,1,,0,0,0,1,,,,,,,,,,0x3040"
		",,,,,,,,,,,,,,,,\n");
	free(out);
}

static void test_json(void **state)
{
	struct fx *x = *state;
	struct pebs_report_print_opts o = opts(x, PEBS_REPORT_FORMAT_JSON);
	char *out;

	o.path = "a\"b";
	o.top = 2;
	out = print(&o, 0);
	assert_string_equal(out,
		"{\n  \"file\": \"a\\\"b\",\n  \"samples\": 5,\n"
		"  \"lost\": 3,\n  \"tables\": [\n"
		"    {\"title\": \"symbols\", \"keys\": [\"sym\", \"dso\"], "
		"\"rows\": [\n"
		"        {\"overhead\": 60.0000, \"period\": 600, \"samples\": "
		"2, \"avg_weight\": 50.0, \"loads\": 0, \"stores\": 0, "
		"\"hitm\": 0, \"threads\": 2, \"sym\": \"[.] hot\", \"dso\": "
		"\"app\"},\n"
		"        {\"overhead\": 30.0000, \"period\": 300, \"samples\": "
		"1, \"loads\": 0, \"stores\": 0, \"hitm\": 0, \"threads\": 1, "
		"\"sym\": \"[.] a,b\", \"dso\": \"app\"}\n"
		"      ]},\n"
		"    {\"title\": \"cache lines\", \"keys\": [\"line\"], "
		"\"rows\": [\n"
		"        {\"overhead\": 60.0000, \"period\": 600, \"samples\": "
		"2, \"avg_weight\": 50.0, \"loads\": 0, \"stores\": 0, "
		"\"hitm\": 0, \"threads\": 2, \"line\": \"0x1000\"},\n"
		"        {\"overhead\": 30.0000, \"period\": 300, \"samples\": "
		"1, \"loads\": 0, \"stores\": 0, \"hitm\": 0, \"threads\": 1, "
		"\"line\": \"0x2000\"}\n"
		"      ]}\n  ]\n}\n");
	free(out);
}

static void test_refused(void **state)
{
	struct fx *x = *state;
	struct pebs_report_print_opts o = opts(x, PEBS_REPORT_FORMAT_TEXT);
	struct pebs_report_table bad = { "no report", NULL };
	char *out;

	o.pd = NULL;
	out = print(&o, -EINVAL);
	assert_string_equal(out, "");
	free(out);
	o = opts(x, PEBS_REPORT_FORMAT_TEXT);
	o.stats = NULL;
	free(print(&o, -EINVAL));
	o = opts(x, PEBS_REPORT_FORMAT_TEXT);
	o.tables = &bad;
	o.nr_tables = 1;
	free(print(&o, -EINVAL));
	o = opts(x, (enum pebs_report_format)7);
	free(print(&o, -EINVAL));
	assert_non_null(strstr(pebs_errmsg(), "PEBS_REPORT_FORMAT_"));
	o = opts(x, PEBS_REPORT_FORMAT_TEXT);
	o.sz = 4;	/* not set as PEBS_OPTS sets it */
	free(print(&o, -EINVAL));
	assert_int_equal(pebs_report_tables__print(stdout, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_options),
		cmocka_unit_test(test_text_quiet),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
