// SPDX-License-Identifier: MIT
/*
 * test-script.c - pebs_script (lib/script/script.c, script-print.c) on
 * a synthetic recording of page faults: each perf field as perf script
 * prints it (widths, the event name padded to the longest, the time's
 * microseconds, data_src padded to the widest printed so far, a page
 * fault's address with its file), pebs-shim's columns (attr_tid from a
 * SWITCH_CPU_WIDE record, mem_level), csv quoting and its header row,
 * jsonl nulls, the field list's order and errors, and a field the
 * samples lack refused in text as perf refuses it; a streaming session
 * (pebs_session__new_stream) prints the same; a call chain through
 * files, the vdso, a memfd, anonymous and JIT memory as perf prints it.
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
#include <cmocka.h>

#include "pebsshim.h"

#define STYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

/* data sources: an L1 hit load, and a longer decode (remote cache, 1 hop) */
#define SRC_L1	((2ULL << 0) | ((0x08ULL | 0x02ULL) << 5) | (1ULL << 19) | \
		 ((0x01ULL | 0x02ULL) << 26) | (1ULL << 24))
#define SRC_RAM	((2ULL << 0) | ((0x400ULL | 0x02ULL) << 5) | (1ULL << 19) | \
		 ((0x01ULL | 0x02ULL) << 26) | (1ULL << 24))

struct sid {		/* sample_id: TID, TIME, CPU */
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

struct sample_rec {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, addr;
	uint32_t cpu, res;
	uint64_t period, weight, data_src;
};

static char path[64];

static void put(struct pebs_perfdata_writer *w, const void *rec)
{
	assert_int_equal(pebs_perfdata_writer__write(w, rec), 0);
}

static void sample(struct pebs_perfdata_writer *w, uint64_t time,
		   uint32_t cpu, uint64_t addr, uint64_t src, uint64_t weight)
{
	struct sample_rec s = {
		{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
		0x401000, 100, 101, time, addr, cpu, 0, 3, weight, src,
	};

	put(w, &s);
}

/* comm "worker" 100/101, a switch to 555 on CPU 2, three samples */
static int setup(void **state)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 3,
		.sample_type = STYPE, .sample_id_all = 1,
	};
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[8];
		struct sid id;
	} comm = {
		{ PERF_RECORD_COMM, 0, sizeof(comm) }, 100, 101, "worker",
		{ 100, 101, 10, 0, 0 },
	};
	struct {
		struct perf_event_header h;
		uint32_t next_prev_pid, next_prev_tid;
		struct sid id;
	} sw = {
		{ PERF_RECORD_SWITCH_CPU_WIDE, 0, sizeof(sw) }, 7, 7,
		{ 550, 555, 20, 2, 0 },
	};
	struct perf_event_header round = {
		PEBS_PERF_RECORD_FINISHED_ROUND, 0, 8
	};
	struct pebs_perfdata_writer *w;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test-script.%d.data", getpid());
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, NULL, 0,
							"page-faults"), 0);
	put(w, &comm);
	put(w, &sw);
	sample(w, 1234567890123ULL, 2, 0x7f0000001000ULL, SRC_RAM, 250);
	sample(w, 1234567990000ULL, 3, 0x10, SRC_L1, 7);
	sample(w, 1234568000000ULL, 2, 0, SRC_L1, 0);
	put(w, &round);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

struct run {
	struct pebs_session *ss;
	struct pebs_script *sc;
	FILE *f;
};

static int on_sample(void *arg, const struct pebs_sample *s,
		     const struct pebs_report_sample *rs)
{
	struct run *r = arg;

	return pebs_script__sample(r->sc, pebs_session__symbols(r->ss), s, rs,
				   r->f);
}

static int on_record(void *arg, const struct perf_event_header *ev)
{
	struct run *r = arg;

	return pebs_script__record(r->sc, ev);
}

/* The output of fields @fields in @fmt (malloc'd), or NULL if refused. */
/* the script of the file at path (@max_stack: frames printed, -1 all) */
static int max_stack = -1;

static char *script_in(const char *fields, enum pebs_script_format fmt,
		       bool stream)
{
	struct pebs_perfdata *pd;
	struct run r = { 0 };
	char *out = NULL;
	size_t len = 0;

	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	if (pebs_script__new(pd, fields, fmt, &r.sc)) {
		pebs_perfdata__close(pd);
		return NULL;
	}
	if (max_stack >= 0)
		assert_int_equal(pebs_script__set_max_stack(r.sc,
				(unsigned int)max_stack), 0);
	assert_int_equal(stream ? pebs_session__new_stream(pd, &r.ss) :
			 pebs_session__new(pd, &r.ss), 0);
	assert_int_equal(pebs_session__set_records(r.ss, on_record, &r), 0);
	r.f = open_memstream(&out, &len);
	assert_non_null(r.f);
	assert_int_equal(pebs_script__header(r.sc, r.f), 0);
	assert_int_equal(pebs_session__process(r.ss, false, on_sample, &r,
					       NULL), 0);
	fclose(r.f);
	pebs_session__delete(r.ss);
	pebs_script__delete(r.sc);
	pebs_perfdata__close(pd);
	return out;
}

static char *script(const char *fields, enum pebs_script_format fmt)
{
	return script_in(fields, fmt, false);
}

static void expect(const char *fields, enum pebs_script_format fmt,
		   const char *want)
{
	char *got = script(fields, fmt);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_text_fields(void **state)
{
	(void)state;
	expect("comm,tid,pid", PEBS_SCRIPT_TEXT,
	       "          worker   100/101   \n"
	       "          worker   100/101   \n"
	       "          worker   100/101   \n");
	expect("tid,cpu,time", PEBS_SCRIPT_TEXT,
	       "  101 [002]  1234.567890: \n"
	       "  101 [003]  1234.567990: \n"
	       "  101 [002]  1234.568000: \n");
	expect("period,event,weight", PEBS_SCRIPT_TEXT,
	       "         3 page-faults:              250\n"
	       "         3 page-faults:                7\n"
	       "         3 page-faults:                0\n");
	/* a page fault's address with its file ([unknown]: no mapping) */
	expect("addr,dso", PEBS_SCRIPT_TEXT,
	       "    7f0000001000 ([unknown])\n"
	       "              10 ([unknown])\n"
	       "               0 ([unknown])\n");
	expect("ip,sym,dso", PEBS_SCRIPT_TEXT,
	       "           401000 [unknown] ([unknown])\n"
	       "           401000 [unknown] ([unknown])\n"
	       "           401000 [unknown] ([unknown])\n");
}

/* data_src: its hex and decode, padded to the widest printed so far */
static void test_data_src(void **state)
{
	char ram[128], l1[128], want[512], a[160], b[160];
	int wide;

	(void)state;
	pebs_data_src__str(SRC_RAM, ram, sizeof(ram));
	pebs_data_src__str(SRC_L1, l1, sizeof(l1));
	assert_true(strlen(ram) > strlen(l1));
	wide = snprintf(a, sizeof(a), "%16llx %s",
			(unsigned long long)SRC_RAM, ram);
	snprintf(b, sizeof(b), "%16llx %s", (unsigned long long)SRC_L1, l1);
	snprintf(want, sizeof(want), "%s\n%-*s\n%-*s\n", a, wide, b, wide, b);
	expect("data_src", PEBS_SCRIPT_TEXT, want);
}

static void test_pebs_columns(void **state)
{
	(void)state;
	/* CPU 2 ran 555 since the switch at 20; CPU 3: no history */
	expect("tid,attr_tid,mem_level", PEBS_SCRIPT_TEXT,
	       "  101  attr_tid=555 mem_level=Remote Cache (1 hop) hit\n"
	       "  101  attr_tid=- mem_level=L1 hit\n"
	       "  101  attr_tid=555 mem_level=L1 hit\n");
	expect("attr_tid,tid,comm", PEBS_SCRIPT_CSV,
	       "attr_tid,tid,comm\n555,101,worker\n,101,worker\n"
	       "555,101,worker\n");
	expect("cpu,attr_tid,weight,addr", PEBS_SCRIPT_JSONL,
	       "{\"cpu\":2,\"attr_tid\":555,\"weight\":250,"
	       "\"addr\":\"0x7f0000001000\"}\n"
	       "{\"cpu\":3,\"attr_tid\":null,\"weight\":7,\"addr\":\"0x10\"}\n"
	       "{\"cpu\":2,\"attr_tid\":555,\"weight\":0,\"addr\":\"0x0\"}\n");
	expect("time,data_object,phys_addr,sym", PEBS_SCRIPT_CSV,
	       "time,data_object,phys_addr,sym\n"
	       "1234.567890123,[unknown],,\n"
	       "1234.567990000,[unknown],,\n"
	       "1234.568000000,,,\n");
}

/* a session without the first pass (a pipe's) prints the same, and
   counts the samples as it goes */
static void test_stream(void **state)
{
	static const char f[] = "comm,tid,time,cpu,addr,data_src,attr_tid";
	char *a = script_in(f, PEBS_SCRIPT_TEXT, false);
	char *b = script_in(f, PEBS_SCRIPT_TEXT, true);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/* "+f" and "-f" change the defaults: columns added last, removed */
static void test_change_defaults(void **state)
{
	char *got;

	(void)state;
	got = script("-ip,-sym,-dso,-data_src,-weight,-phys_addr,-comm,"
		     "-event,-period,-attr_tid,-mem_level,-data_object,+ins_lat",
		     PEBS_SCRIPT_CSV);
	assert_non_null(got);
	assert_true(!strncmp(got, "pid,tid,time,cpu,addr,ins_lat\n"
			     "100,101,1234.567890123,2,0x7f0000001000,\n",
			     strlen("pid,tid,time,cpu,addr,ins_lat\n"
				    "100,101,1234.567890123,2,0x7f0000001000,"
				    "\n")));
	free(got);
	/* text: perf's default line, less the ip and its symbol */
	expect("-ip,-time,-period,-event,-comm", PEBS_SCRIPT_TEXT,
	       "  101 [002] \n  101 [003] \n  101 [002] \n");
}

/* A call chain through every kind of mapping, as perf 6.1's script
   printed it on this file: an offset in a file, the vdso and a memfd
   (map__map_ip), the address itself in anonymous memory, executable
   anonymous memory named by its /tmp/perf-PID.map (dso's long name) */
static void mmap2(struct pebs_perfdata_writer *w, uint64_t start,
		  uint64_t pgoff, uint32_t prot, const char *name)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, gen;
		uint32_t prot, flags;
		char fn[32];
		uint32_t id_pid, id_tid;
		uint64_t id_time;
	} r = {
		{ PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, sizeof(r) },
		100, 100, start, 0x10000, pgoff, 0, 0, 0, 0, prot, 2, "",
		100, 100, 5,
	};

	snprintf(r.fn, sizeof(r.fn), "%s", name);
	put(w, &r);
}

static void test_callchain_maps(void **state)
{
	static const uint64_t chain[] = {
		PERF_CONTEXT_USER, 0x7fff00000389ULL, 0x7e0000000010ULL,
		0x7e1000000020ULL, 0x7e2000000030ULL, 0x7e3000000040ULL,
		0x7f1000000050ULL, 0x7e4000000070ULL, 0x7e5000000080ULL,
		0x7e6000000090ULL, 0x7e70000000a0ULL, 0x600000ULL,
	};
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN,
		.sample_id_all = 1, .mmap = 1, .mmap2 = 1,
	};
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time, nr, ips[12];
	} smp = {
		{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(smp) },
		0x7fff00000389ULL, 100, 100, 1000000000ULL, 12, { 0 },
	};
	struct pebs_perfdata_writer *w;
	char saved[64];
	char *got;

	(void)state;
	memcpy(saved, path, sizeof(saved));
	snprintf(path, sizeof(path), "/tmp/test-script-cc.%d.data", getpid());
	memcpy(smp.ips, chain, sizeof(chain));
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, NULL, 0,
							"page-faults"), 0);
	mmap2(w, 0x7fff00000000ULL, 0, 5, "[vdso]");
	mmap2(w, 0x7e0000000000ULL, 0, 5, "//anon");
	mmap2(w, 0x7e1000000000ULL, 0x4000, 5, "/dev/zero");
	mmap2(w, 0x7e2000000000ULL, 0, 5, "/SYSV00001234");
	mmap2(w, 0x7e3000000000ULL, 0, 3, "[heap]");
	mmap2(w, 0x7f1000000000ULL, 0x3000, 5, "/nonexistent/libx.so");
	mmap2(w, 0x7e7000000000ULL, 0x1000, 5, "/memfd:jit (deleted)");
	mmap2(w, 0x7e4000000000ULL, 0, 3, "//anon");
	mmap2(w, 0x7e5000000000ULL, 0x2000, 3, "/dev/zero (deleted)");
	mmap2(w, 0x7e6000000000ULL, 0x2000, 3, "/nonexistent/data.bin");
	put(w, &smp);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	/* --max-stack: the innermost frames (csv: the same) */
	max_stack = 2;
	got = script("ip,sym,dso", PEBS_SCRIPT_TEXT);
	assert_non_null(got);
	assert_string_equal(got,
		"\n"
		"\t             389 [unknown] ([vdso])\n"
		"\t    7e0000000010 [unknown] (/tmp/perf-100.map)\n"
		"\n");
	free(got);
	got = script("callchain", PEBS_SCRIPT_CSV);
	max_stack = -1;
	assert_non_null(got);
	assert_string_equal(got, "callchain\n0x7fff00000389;0x7e0000000010\n");
	free(got);
	got = script("ip,sym,dso", PEBS_SCRIPT_TEXT);
	unlink(path);
	memcpy(path, saved, sizeof(path));
	assert_non_null(got);
	assert_string_equal(got,
		"\n"
		"\t             389 [unknown] ([vdso])\n"
		"\t    7e0000000010 [unknown] (/tmp/perf-100.map)\n"
		"\t    7e1000000020 [unknown] (/tmp/perf-100.map)\n"
		"\t    7e2000000030 [unknown] (/tmp/perf-100.map)\n"
		"\t    7e3000000040 [unknown] ([heap])\n"
		"\t            3050 [unknown] (/nonexistent/libx.so)\n"
		"\t    7e4000000070 [unknown] (//anon)\n"
		"\t    7e5000000080 [unknown] (/dev/zero (deleted))\n"
		"\t            2090 [unknown] (/nonexistent/data.bin)\n"
		"\t            10a0 [unknown] (/memfd:jit (deleted))\n"
		"\t          600000 [unknown] ([unknown])\n"
		"\n");
	free(got);
}

static void test_errors(void **state)
{
	struct pebs_perfdata *pd;
	struct pebs_script *sc;

	(void)state;
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_script__new(pd, "tid,bogus", PEBS_SCRIPT_CSV,
					  &sc), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'bogus'"));
	assert_int_equal(pebs_script__new(pd, "", PEBS_SCRIPT_CSV, &sc),
			 -EINVAL);
	/* text: perf's refusal of a field the samples lack */
	assert_int_equal(pebs_script__new(pd, "tid,phys_addr",
					  PEBS_SCRIPT_TEXT, &sc), -EINVAL);
	assert_string_equal(pebs_errmsg(), "Samples for 'page-faults' event "
			    "do not have PHYS_ADDR attribute set. Cannot print "
			    "'phys_addr' field.");
	assert_int_equal(pebs_script__new(pd, "sym", PEBS_SCRIPT_TEXT, &sc),
			 -EINVAL);
	/* perf's: symoff without sym; signed and unsigned fields mixed */
	assert_int_equal(pebs_script__new(pd, "ip,symoff", PEBS_SCRIPT_TEXT,
					  &sc), -EINVAL);
	assert_int_equal(pebs_script__new(pd, "tid,+cpu", PEBS_SCRIPT_CSV,
					  &sc), -EINVAL);
	assert_int_equal(pebs_script__new(pd, "+phys_addr", PEBS_SCRIPT_TEXT,
					  &sc), -EINVAL);
	/* csv has it, empty */
	assert_int_equal(pebs_script__new(pd, "tid,phys_addr",
					  PEBS_SCRIPT_CSV, &sc), 0);
	pebs_script__delete(sc);
	assert_int_equal(pebs_script__new(pd, NULL, 7, &sc), -EINVAL);
	pebs_perfdata__close(pd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_fields),
		cmocka_unit_test(test_data_src),
		cmocka_unit_test(test_pebs_columns),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_change_defaults),
		cmocka_unit_test(test_callchain_maps),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
