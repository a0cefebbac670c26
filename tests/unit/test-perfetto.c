// SPDX-License-Identifier: MIT
/*
 * test-perfetto.c - the Perfetto export (lib/export/perfetto.c,
 * export-perfetto.c) and what it added to the encoder (pb.c): varint
 * fields kept when 0, doubles, nested messages and their errors, plain
 * (not gzip) output of mode 0600 renamed into place; a trace's sequence
 * set up (clock snapshot, incremental state cleared, defaults), a call
 * stack interned once, the root first, in the packet that first uses
 * it; and a whole export of a recording written here: sched_switch from
 * the module's switch history (SWITCH_CPU_WIDE of an event without
 * context_switch; its gaps to idle), from the kernel's (with it), or from
 * the samples' threads (without switch records), named by the note event;
 * an event set aside by the filter is in none of it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "export/export-int.h"
#include "pb-read.h"

static char path[64];

/* the first field @num of message [p, p + len) into *@f: 1, or 0 */
static int find(const uint8_t *p, size_t len, unsigned int num,
		struct field *f)
{
	const uint8_t *end = p + len;

	while (next_field(&p, end, f))
		if (f->num == num)
			return 1;
	return 0;
}

static void test_encoder(void **state)
{
	static const uint8_t want[] = {
		0x08, 0x00,				/* 1: 0 */
		0xe1, 0x02, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, /* 44: 1.5 */
		0x1a, 0x03, 0x10, 0xac, 0x02,		/* 3: { 2: 300 } */
	};
	struct ex_pb pb = { 0 }, m = { 0 };

	(void)state;
	ex_pb__uint(&pb, 1, 0);
	ex_pb__double(&pb, 44, 1.5);
	ex_pb__uint(&m, 2, 300);
	ex_pb__msg(&pb, 3, &m);
	assert_false(pb.err);
	assert_int_equal(pb.len, sizeof(want));
	assert_memory_equal(pb.b, want, sizeof(want));
	m.err = true;		/* a failed message fails its parent */
	ex_pb__msg(&pb, 4, &m);
	assert_true(pb.err);
	ex_pb__free(&pb);
	ex_pb__free(&m);
}

static void test_plain_output(void **state)
{
	static const uint8_t want[] = { 0x0a, 0x02, 0x10, 0x07 };
	struct ex_pb m = { 0 };
	struct ex_out o;
	struct stat st;
	uint8_t *b;
	size_t len;
	FILE *f;

	(void)state;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("old", f);
	fclose(f);
	ex_pb__uint(&m, 2, 7);
	/* an aborted output keeps the old file */
	assert_int_equal(ex_out__open(&o, path, false), 0);
	assert_int_equal(ex_out__field(&o, 1, &m), 0);
	ex_out__abort(&o);
	b = gunzip(path, &len);
	assert_int_equal(len, 3);
	free(b);
	assert_int_equal(ex_out__open(&o, path, false), 0);
	assert_int_equal(ex_out__field(&o, 1, &m), 0);
	assert_int_equal(ex_out__commit(&o), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	f = fopen(path, "rb");	/* the bytes as they are: no gzip */
	assert_non_null(f);
	b = malloc(16);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, 16, f), sizeof(want));
	fclose(f);
	assert_memory_equal(b, want, sizeof(want));
	free(b);
	ex_pb__free(&m);
	unlink(path);
}

/* the strings of InternedData field @num, by iid, in *@names */
static unsigned int interned(const struct field *idata, unsigned int num,
			     const char **names, size_t *lens)
{
	const uint8_t *p = idata->p, *end = p + idata->len;
	struct field f, g;
	unsigned int n = 0;

	while (next_field(&p, end, &f)) {
		if (f.num != num)
			continue;
		assert_true(find(f.p, f.len, 1, &g));
		assert_int_equal(g.v, n + 1);	/* iids in order, from 1 */
		assert_true(find(f.p, f.len, 2, &g));
		names[n] = (const char *)g.p;
		lens[n++] = g.len;
	}
	return n;
}

static void test_trace(void **state)
{
	struct ex_frame fr[2] = {
		{ .dso = "/nonexistent/libx.so", .name = "leaf", .addr = 0x10,
		  .named = true },
		{ .name = "main", .addr = 0x20, .named = true },
	};
	struct ex_pb body = { 0 };
	struct ex_trace t;
	struct field pk, f, g, idata;
	const uint8_t *p, *end;
	const char *names[8];
	size_t lens[8], len;
	uint64_t iid;
	unsigned int n = 0;
	uint8_t *b;

	(void)state;
	assert_int_equal(ex_trace__open(&t, path, EX_CLOCK_PERF, NULL, 0), 0);
	ex_pb__uint(&body, 4, 1);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ex_trace__callstack(&t, fr, 2, &iid), 0);
		assert_int_equal(iid, 1);	/* the same stack: one iid */
		assert_int_equal(ex_trace__packet(&t, 1000 + i, 66, &body), 0);
	}
	assert_int_equal(t.packets, 4);
	assert_int_equal(ex_trace__close(&t, true), 0);
	ex_pb__free(&body);
	b = gunzip(path, &len);
	p = b;
	end = b + len;
	while (next_field(&p, end, &pk)) {
		assert_int_equal(pk.num, 1);	/* Trace.packet */
		assert_true(find(pk.p, pk.len, 10, &f));
		assert_int_equal(f.v, 1);	/* sequence 1 */
		switch (n++) {
		case 0:		/* clock snapshot: PERF primary, BOOTTIME equal */
			assert_true(find(pk.p, pk.len, 6, &f));
			assert_true(find(f.p, f.len, 2, &g));
			assert_int_equal(g.v, EX_CLOCK_PERF);
			assert_true(find(f.p, f.len, 1, &g));
			assert_true(find(g.p, g.len, 2, &idata));
			assert_int_equal(idata.v, 1000);
			break;
		case 1:		/* the state cleared, the defaults */
			assert_true(find(pk.p, pk.len, 13, &f));
			assert_int_equal(f.v, 1);
			assert_true(find(pk.p, pk.len, 59, &f));
			assert_true(find(f.p, f.len, 58, &g));
			assert_int_equal(g.v, EX_CLOCK_PERF);
			break;
		case 2:		/* the stack interned with its first use */
			assert_true(find(pk.p, pk.len, 8, &f));
			assert_int_equal(f.v, 1000);
			assert_true(find(pk.p, pk.len, 13, &f));
			assert_int_equal(f.v, 2);	/* needs the state */
			assert_true(find(pk.p, pk.len, 12, &idata));
			assert_int_equal(interned(&idata, 5, names, lens), 2);
			assert_memory_equal(names[0], "main", 4); /* root */
			assert_memory_equal(names[1], "leaf", 4);
			/* main in no file: "[unknown]"; leaf's path split */
			assert_int_equal(interned(&idata, 17, names, lens), 3);
			assert_memory_equal(names[0], "[unknown]", 9);
			assert_memory_equal(names[1], "nonexistent", 11);
			assert_memory_equal(names[2], "libx.so", 7);
			assert_true(find(idata.p, idata.len, 7, &f));
			assert_true(find(f.p, f.len, 2, &g));
			assert_int_equal(g.v, 1);	/* frame_ids: main */
			assert_true(find(idata.p, idata.len, 19, &f));
			assert_true(find(f.p, f.len, 7, &g));
			assert_int_equal(g.v, 1);	/* path "[unknown]" */
			assert_true(find(idata.p, idata.len, 6, &f));
			assert_true(find(f.p, f.len, 4, &g));
			assert_int_equal(g.v, 0x20);	/* main's rel_pc */
			assert_true(find(pk.p, pk.len, 66, &f));
			break;
		case 3:		/* used again: nothing interned */
			assert_false(find(pk.p, pk.len, 12, &f));
			assert_true(find(pk.p, pk.len, 66, &f));
			break;
		}
	}
	assert_int_equal(n, 4);
	free(b);
	/* a trace not committed leaves no file */
	unlink(path);
	assert_int_equal(ex_trace__open(&t, path, EX_CLOCK_PERF, NULL, 0), 0);
	assert_int_equal(ex_trace__close(&t, false), 0);
	assert_int_equal(access(path, F_OK), -1);
}

/* ---- a whole export of a recording written here ---- */

#define STYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct sid {		/* sample_id: TID, TIME, CPU */
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

struct sample_rec {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t period;
};

struct switch_rec {
	struct perf_event_header h;
	uint32_t next_prev_pid, next_prev_tid;
	struct sid id;
};

static void put(struct pebs_perfdata_writer *w, const void *rec)
{
	assert_int_equal(pebs_perfdata_writer__write(w, rec), 0);
}

/*
 * worker 100/101 and 100/102; on CPU 1 at 100 ns a switch from 50/55 to
 * 101 (out and in records, with @switches), and with @gap the module's
 * gap at 150 ns (LOST, tid -1); then samples of 101 and 102 (a change of
 * thread: the samples' switch)
 */
static void recording(bool switches, bool context_switch, bool gap)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		.sample_type = STYPE, .sample_id_all = 1,
		.context_switch = context_switch,
	};
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[8];
		struct sid id;
	} comm = {
		{ PERF_RECORD_COMM, 0, sizeof(comm) }, 100, 101, "worker",
		{ 100, 101, 10, 1, 0 },
	};
	struct switch_rec out = {
		{ PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT,
		  sizeof(out) }, 100, 101, { 50, 55, 100, 1, 0 },
	}, in = {
		{ PERF_RECORD_SWITCH_CPU_WIDE, 0, sizeof(in) }, 50, 55,
		{ 100, 101, 100, 1, 0 },
	};
	struct sample_rec s1 = {
		{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s1) },
		0x401000, 100, 101, 200, 1, 0, 1,
	}, s2 = {
		{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s2) },
		0x401000, 100, 102, 2000300, 1, 0, 1,
	};
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		struct sid sid;
	} lost = {
		{ PERF_RECORD_LOST, 0, sizeof(lost) }, 0, 3,
		{ (uint32_t)-1, (uint32_t)-1, 150, 1, 0 },
	};
	struct perf_event_header round = {
		PEBS_PERF_RECORD_FINISHED_ROUND, 0, 8
	};
	struct pebs_perfdata_writer *w;

	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, NULL, 0,
							"page-faults"), 0);
	put(w, &comm);
	if (switches) {
		put(w, &out);
		put(w, &in);
	}
	if (gap)
		put(w, &lost);
	put(w, &s1);
	put(w, &s2);
	put(w, &round);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
}

struct seen {
	unsigned int samples, switches, counters;
	int64_t prev_tid[4], next_tid[4];
	char note[128];
};

/* the trace of the recording at path through filter @f: @samples seen,
   @exported exported */
static void export_filtered(const struct pebs_filter *f, unsigned int samples,
			    unsigned int exported, struct seen *sn)
{
	char out[80];
	struct pebs_perfdata *pd;
	struct pebs_session *ss;
	struct pebs_export_opts o = { .sz = sizeof(o), .output = out,
				      .filter = f };
	struct pebs_export_stats st;
	struct field pk, fl, g, h;
	const uint8_t *p, *end, *q, *qe;
	uint8_t *b;
	size_t len;

	snprintf(out, sizeof(out), "%s.trace", path);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_session__new(pd, &ss), 0);
	assert_int_equal(pebs_export__perfetto(ss, &o, &st), 0);
	assert_int_equal(st.samples, samples);
	assert_int_equal(st.exported, exported);
	assert_int_equal(st.files, 1);
	pebs_session__delete(ss);
	pebs_perfdata__close(pd);
	memset(sn, 0, sizeof(*sn));
	b = gunzip(out, &len);
	/* the unresolved ip named by its address */
	assert_non_null(memmem(b, len, "0x0000000000401000", 18));
	p = b;
	end = b + len;
	while (next_field(&p, end, &pk)) {
		sn->samples += find(pk.p, pk.len, 66, &fl);
		if (find(pk.p, pk.len, 11, &fl)) {	/* TrackEvent */
			assert_true(find(fl.p, fl.len, 9, &g));
			sn->counters += g.v == 4;
			if (g.v == 3 && find(fl.p, fl.len, 23, &g))
				snprintf(sn->note, sizeof(sn->note), "%.*s",
					 (int)g.len, (const char *)g.p);
		}
		if (!find(pk.p, pk.len, 1, &fl))		/* a bundle */
			continue;
		assert_true(find(fl.p, fl.len, 1, &g));
		assert_int_equal(g.v, 1);		/* CPU 1 */
		q = fl.p;
		qe = fl.p + fl.len;
		while (next_field(&q, qe, &g)) {
			if (g.num != 2)
				continue;
			assert_true(find(g.p, g.len, 4, &h));
			assert_true(sn->switches < 4);
			assert_true(find(h.p, h.len, 2, &fl));
			sn->prev_tid[sn->switches] = (int64_t)fl.v;
			assert_true(find(h.p, h.len, 6, &fl));
			sn->next_tid[sn->switches++] = (int64_t)fl.v;
		}
	}
	free(b);
	unlink(out);
}

static void export(struct seen *sn)
{
	export_filtered(NULL, 2, 2, sn);
}

static void test_export_sources(void **state)
{
	struct seen sn;

	(void)state;
	/* the module's: an event without context_switch */
	recording(true, false, true);
	export(&sn);
	assert_int_equal(sn.samples, 2);
	assert_string_equal(sn.note,
			    "sched_switch from the module's switch history");
	assert_int_equal(sn.switches, 2);	/* the out record's, the gap */
	assert_int_equal(sn.prev_tid[0], 55);
	assert_int_equal(sn.next_tid[0], 101);
	assert_int_equal(sn.prev_tid[1], 101);	/* to idle in the gap */
	assert_int_equal(sn.next_tid[1], 0);
	/* two milliseconds with a sample and a 0 after each */
	assert_int_equal(sn.counters, 4);
	/* the kernel's */
	recording(true, true, false);
	export(&sn);
	assert_string_equal(sn.note, "sched_switch from PERF_RECORD_SWITCH "
			    "(record --switch-events)");
	assert_int_equal(sn.switches, 1);
	/* none: the samples' threads (idle to 101, 101 to 102) */
	recording(false, false, false);
	export(&sn);
	assert_string_equal(sn.note, "sched_switch from the samples' threads "
			    "(no switch records)");
	assert_int_equal(sn.switches, 2);
	assert_int_equal(sn.prev_tid[0], 0);
	assert_int_equal(sn.next_tid[0], 101);
	assert_int_equal(sn.prev_tid[1], 101);
	assert_int_equal(sn.next_tid[1], 102);
	unlink(path);
}

/*
 * An event set aside (pebs_filter__aside, as export does with record
 * --objects' bookkeeping) is no sample of the trace at all: page faults
 * of 101 at 200 and 400 ns around one of the other event by 102 at 300
 * ns make one switch (idle to 101), not three as if 102 had run.
 */
static void test_export_aside(void **state)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		.sample_type = STYPE | PERF_SAMPLE_IDENTIFIER,
		.sample_id_all = 1,
	}, d = a;
	struct {
		struct perf_event_header h;
		uint64_t id, ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t period;
	} s[3] = {
		{ { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s[0]) },
		  1, 0x401000, 100, 101, 200, 1, 0, 1 },
		{ { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s[0]) },
		  2, 0x401000, 100, 102, 300, 1, 0, 1 },
		{ { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s[0]) },
		  1, 0x401000, 100, 101, 400, 1, 0, 1 },
	};
	const uint64_t id1 = 1, id2 = 2;
	struct pebs_perfdata_writer *w;
	struct pebs_filter *f;
	struct seen sn;

	(void)state;
	d.config = PERF_COUNT_SW_DUMMY;
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id1, 1,
							"page-faults"), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &d, &id2, 1,
							"dummy"), 0);
	for (int i = 0; i < 3; i++)
		put(w, &s[i]);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	export_filtered(NULL, 3, 3, &sn);
	assert_int_equal(sn.switches, 3);
	assert_int_equal(pebs_filter__new(&f), 0);
	assert_int_equal(pebs_filter__aside(f, 1), 0);
	export_filtered(f, 3, 2, &sn);
	assert_int_equal(sn.samples, 2);
	assert_int_equal(sn.switches, 1);
	assert_int_equal(sn.prev_tid[0], 0);
	assert_int_equal(sn.next_tid[0], 101);
	pebs_filter__delete(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoder),
		cmocka_unit_test(test_plain_output),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_export_sources),
		cmocka_unit_test(test_export_aside),
	};

	snprintf(path, sizeof(path), "/tmp/test-perfetto.%d", getpid());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
