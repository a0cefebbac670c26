// SPDX-License-Identifier: MIT
/*
 * test-tracing-data - perf's tracing data (HEADER_TRACING_DATA) as
 * lib/perfdata/tracing-data.c writes it, read back by its parser: from a fake
 * tracefs (only the recorded formats, ftrace's apart, ids found through
 * the typed name or by a walk, absent printk_formats/saved_cmdlines as
 * zero sizes), every cut-short prefix and an oversized length refused,
 * the writer's feature section in a perf.data file, and this host's
 * tracefs (root).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"
#include "event/event-internal.h"
#include "perfdata/tracing-data.h"

#define SWITCH_FMT	"name: sched_switch\nID: 372\nformat:\n" \
			"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\n"
#define WAKEUP_FMT	"name: sched_wakeup\nID: 374\nformat:\n"
#define IRQ_FMT		"name: irq_handler_entry\nID: 40\nformat:\n"
#define FUNC_FMT	"name: function\nID: 1\nformat:\n"
#define HDR_PAGE	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\n"
#define HDR_EVENT	"# compressed entry header\n"
#define PRINTK		"0xffffffff8281942f : \"thaw_processes\"\n"
#define CMDLINES	"1 init\n"

static char top[64], root[128];

static void put(const char *rel, const char *text)
{
	assert_int_equal(t_put_file(top, rel, text), 0);
}

static void drop(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	unlink(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/pebs-tracing-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	put("t/events/header_page", HDR_PAGE);
	put("t/events/header_event", HDR_EVENT);
	put("t/events/sched/sched_switch/id", "372\n");
	put("t/events/sched/sched_switch/format", SWITCH_FMT);
	put("t/events/sched/sched_wakeup/id", "374\n");
	put("t/events/sched/sched_wakeup/format", WAKEUP_FMT);
	put("t/events/irq/irq_handler_entry/id", "40\n");
	put("t/events/irq/irq_handler_entry/format", IRQ_FMT);
	put("t/events/ftrace/function/id", "1\n");
	put("t/events/ftrace/function/format", FUNC_FMT);
	put("t/printk_formats", PRINTK);
	put("t/saved_cmdlines", CMDLINES);
	snprintf(root, sizeof(root), "%s/t", top);
	event_tp_set_root(root);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	event_tp_set_root(NULL);
	return t_rm_tree(top);
}

struct seen {
	unsigned int n;
	char sys[8][32];
	char fmt[8][4096];
};

static int collect(void *arg, const char *sys, const char *fmt, size_t len)
{
	struct seen *s = arg;

	if (s->n == 8 || len >= sizeof(s->fmt[0]))
		return -E2BIG;
	snprintf(s->sys[s->n], sizeof(s->sys[0]), "%s", sys);
	memcpy(s->fmt[s->n], fmt, len);
	s->fmt[s->n][len] = '\0';
	s->n++;
	return 0;
}

/* the index of @sys's format @fmt in what was seen, or -1 */
static int found(const struct seen *s, const char *sys, const char *fmt)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (!strcmp(s->sys[i], sys) && !strcmp(s->fmt[i], fmt))
			return (int)i;
	return -1;
}

static void build_three(struct bytes *b)
{
	static const uint64_t ids[] = { 372, 1, 40 };
	/* a hint with modifiers, none, and one naming another event */
	static const char *const names[] = { "sched:sched_switch:k", NULL,
					     "sched:sched_wakeup" };

	memset(b, 0, sizeof(*b));
	assert_int_equal(tracing_data_build(b, root, ids, names, 3), 0);
}

static void test_round_trip(void **state)
{
	struct pebs_tracing_data td;
	struct seen s = { 0 };
	struct bytes b;

	(void)state;
	build_three(&b);
	assert_memory_equal(b.p, "\027\010Dtracing0.6", 14);
	assert_int_equal(tracing_data_parse(b.p, b.len, &td, collect, &s),
			 0);
	assert_string_equal(td.version, "0.6");
	assert_false(td.big_endian);
	assert_int_equal(td.long_size, sizeof(long));
	assert_int_equal(td.page_size, sysconf(_SC_PAGESIZE));
	assert_int_equal(td.header_page_len, strlen(HDR_PAGE));
	assert_memory_equal(td.header_page, HDR_PAGE, strlen(HDR_PAGE));
	assert_int_equal(td.header_event_len, strlen(HDR_EVENT));
	assert_memory_equal(td.header_event, HDR_EVENT, strlen(HDR_EVENT));
	/* recorded formats only: sched_wakeup is not there */
	assert_int_equal(td.nr_formats, 3);
	assert_int_equal(td.nr_systems, 2);
	assert_int_equal(s.n, 3);
	assert_int_equal(found(&s, "ftrace", FUNC_FMT), 0);	/* first */
	assert_true(found(&s, "sched", SWITCH_FMT) > 0);
	assert_true(found(&s, "irq", IRQ_FMT) > 0);
	assert_int_equal(found(&s, "sched", WAKEUP_FMT), -1);
	assert_int_equal(td.kallsyms_len, 0);
	assert_int_equal(td.printk_len, strlen(PRINTK));
	assert_memory_equal(td.printk, PRINTK, strlen(PRINTK));
	assert_int_equal(td.cmdlines_len, strlen(CMDLINES));
	assert_memory_equal(td.cmdlines, CMDLINES, strlen(CMDLINES));
	/* the callback's value stops the parse */
	s.n = 8;
	assert_int_equal(tracing_data_parse(b.p, b.len, &td, collect, &s),
			 -E2BIG);
	free(b.p);
}

static void test_unknown_id(void **state)
{
	static const uint64_t ids[] = { 372, 999 };
	struct bytes b = { 0 };

	(void)state;
	assert_int_equal(tracing_data_build(&b, root, ids, NULL, 2),
			 -ENOENT);
	assert_non_null(strstr(pebs_errmsg(), "no tracepoint has id 999"));
	free(b.p);
	assert_int_equal(tracing_data_build(&b, NULL, ids, NULL, 1),
			 -ENOENT);
	assert_non_null(strstr(pebs_errmsg(), "no tracefs"));
}

/* perf writes a zero size for a missing printk_formats/saved_cmdlines */
static void test_absent_files(void **state)
{
	static const uint64_t id = 40;
	struct pebs_tracing_data td;
	struct bytes b = { 0 };

	(void)state;
	drop("t/printk_formats");
	drop("t/saved_cmdlines");
	assert_int_equal(tracing_data_build(&b, root, &id, NULL, 1), 0);
	put("t/printk_formats", PRINTK);
	put("t/saved_cmdlines", CMDLINES);
	assert_int_equal(tracing_data_parse(b.p, b.len, &td, NULL, NULL),
			 0);
	assert_int_equal(td.nr_formats, 1);
	assert_int_equal(td.printk_len, 0);
	assert_int_equal(td.cmdlines_len, 0);
	free(b.p);
}

/* every prefix is refused with a message; a length past the end too */
static void test_hostile(void **state)
{
	struct pebs_tracing_data td;
	struct bytes b;
	uint64_t huge = UINT64_MAX;
	size_t at;

	(void)state;
	build_three(&b);
	for (size_t n = 0; n < b.len; n++) {
		char *copy = malloc(n ? n : 1);	/* ASan sees overreads */

		memcpy(copy, b.p, n);
		assert_int_equal(tracing_data_parse(copy, n, &td, NULL,
						    NULL), -EINVAL);
		assert_non_null(strstr(pebs_errmsg(), "tracing data"));
		free(copy);
	}
	/* header_page's u64 size, after magic, version, 6 bytes, name */
	at = 10 + 4 + 6 + sizeof("header_page");
	memcpy(b.p + at, &huge, sizeof(huge));
	assert_int_equal(tracing_data_parse(b.p, b.len, &td, NULL, NULL),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "header_page"));
	memcpy(b.p, "\027\010Dtrace!!", 10);
	assert_int_equal(tracing_data_parse(b.p, b.len, &td, NULL, NULL),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "magic"));
	free(b.p);
}

/* a recording with a tracepoint carries HEADER_TRACING_DATA */
static void test_writer(void **state)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(a),
		.config = 372,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TID,
	};
	struct pebs_perfdata_writer *w;
	struct pebs_tracing_data td;
	struct pebs_perfdata *pd;
	struct seen s = { 0 };
	char path[128];
	const void *feat;
	size_t size;

	(void)state;
	snprintf(path, sizeof(path), "%s/tp.data", top);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, NULL, 0,
							"sched:sched_switch"),
			 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_TRACING_DATA, &feat,
					     &size), 0);
	assert_int_equal(tracing_data_parse(feat, size, &td, collect, &s),
			 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(found(&s, "sched", SWITCH_FMT), 0);
	pebs_perfdata__close(pd);

	/* no tracepoint, no section */
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, NULL, 0,
							"cpu-clock"), 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_TRACING_DATA, &feat,
					     &size), -ENOENT);
	pebs_perfdata__close(pd);

	/* an id the tracefs does not have: the recording cannot start */
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = 999;
	unlink(path);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, NULL, 0,
							"x:y"), 0);
	assert_int_equal(pebs_perfdata_writer__close(w), -ENOENT);
	assert_int_equal(access(path, F_OK), -1);
}

/* this host's tracefs: sched_switch's own format */
static void test_host_tracefs(void **state)
{
	const char *host;
	struct pebs_tracing_data td;
	struct seen s = { 0 };
	struct bytes b = { 0 };
	char path[256], idbuf[32];
	uint64_t id;
	FILE *f;

	(void)state;
	T_NEED("root");
	event_tp_set_root(NULL);
	host = event_tp_root();
	event_tp_set_root(root);
	if (!host) {
		print_message("# SKIP no tracefs mounted\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", host);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(idbuf, sizeof(idbuf), f));
	fclose(f);
	id = strtoull(idbuf, NULL, 10);
	assert_int_equal(tracing_data_build(&b, host, &id, NULL, 1), 0);
	assert_int_equal(tracing_data_parse(b.p, b.len, &td, collect, &s),
			 0);
	assert_int_equal(td.nr_formats, 1);
	assert_int_equal(td.nr_systems, 1);
	assert_string_equal(s.sys[0], "sched");
	assert_memory_equal(s.fmt[0], "name: sched_switch\n", 19);
	assert_true(td.header_page_len > 0 && td.header_event_len > 0);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_unknown_id),
		cmocka_unit_test(test_absent_files),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_host_tracefs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
