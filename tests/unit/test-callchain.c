// SPDX-License-Identifier: MIT
/*
 * test-callchain.c - call chains to frames (lib/symbols/callchain.c):
 * PERF_CONTEXT_* markers are not frames and set kernel or user, no
 * markers means by address, the frame cap, a sample without a chain;
 * frames resolved through this process's own maps; frame kinds; and the
 * frame names stackcollapse-perf.pl makes (offsets, tidying, unknown
 * symbols named by their file, comms).
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
#include "core/internal.h"

#define KADDR	0xffffffff81000000ULL

/* a function of this program, to be found by name */
__attribute__((noinline)) int pebs_test_callchain_fn(int x);
__attribute__((noinline)) int pebs_test_callchain_fn(int x)
{
	return x * 3 + 1;
}

static void test_markers(void **state)
{
	uint64_t chain[] = {
		PERF_CONTEXT_KERNEL, KADDR + 1, KADDR + 2,
		PERF_CONTEXT_USER, 0x1000, 0x2000,
	};
	struct pebs_sample s = {
		.present = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP, .pid = 1,
		.ip = KADDR + 1, .callchain = chain,
		.callchain_nr = sizeof(chain) / sizeof(chain[0]),
	};
	struct pebs_frame fr[PEBS_CALLCHAIN_MAX + 10];
	struct pebs_symbols *syms;
	uint64_t big[PEBS_CALLCHAIN_MAX + 10];
	unsigned int i;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	assert_int_equal(pebs_callchain__resolve(syms, &s, false, fr, 10), 4);
	assert_int_equal(fr[0].ip, KADDR + 1);
	assert_true(fr[0].kernel);
	assert_true(fr[1].kernel);
	assert_int_equal(fr[2].ip, 0x1000);
	assert_false(fr[2].kernel);
	assert_null(fr[2].sym);
	assert_null(fr[2].dso);
	/* max frames */
	assert_int_equal(pebs_callchain__resolve(syms, &s, false, fr, 3), 3);
	/* no markers: kernel by address */
	chain[0] = 0x3000;
	assert_int_equal(pebs_callchain__resolve(syms, &s, false, fr, 10), 5);
	assert_false(fr[0].kernel);
	assert_true(fr[1].kernel);
	/* only markers, or no chain: the sample's ip, kernel as told */
	s.callchain_nr = 1;
	chain[0] = PERF_CONTEXT_USER;
	assert_int_equal(pebs_callchain__resolve(syms, &s, true, fr, 10), 1);
	assert_int_equal(fr[0].ip, KADDR + 1);
	assert_true(fr[0].kernel);
	s.present = PERF_SAMPLE_IP;
	assert_int_equal(pebs_callchain__resolve(syms, &s, false, fr, 10), 1);
	assert_false(fr[0].kernel);
	/* a chain longer than perf's max stack is cut there */
	for (i = 0; i < PEBS_CALLCHAIN_MAX + 10; i++)
		big[i] = 0x1000 + i;
	s.present = PERF_SAMPLE_CALLCHAIN;
	s.callchain = big;
	s.callchain_nr = PEBS_CALLCHAIN_MAX + 10;
	assert_int_equal(pebs_callchain__resolve(syms, &s, false, fr,
						 PEBS_CALLCHAIN_MAX + 10),
			 PEBS_CALLCHAIN_MAX);
	assert_int_equal(pebs_callchain__resolve(NULL, &s, false, fr, 1),
			 -EINVAL);
	pebs_symbols__delete(syms);
}

/*
 * The context rules of perf 6.1's add_callchain_ip: a frame is looked up
 * in its context's maps alone (a kernel address among user frames, a
 * user address among kernel frames: [unknown]); a marker perf does not
 * know (a guest's, -1) drops the whole chain: the sample's ip alone.
 */
static void test_contexts(void **state)
{
	uint64_t chain[] = {
		PERF_CONTEXT_KERNEL, KADDR + 1, 0x1000,
		PERF_CONTEXT_USER, 0x2000, KADDR + 5,
	};
	struct pebs_sample s = {
		.present = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP, .pid = 1,
		.ip = KADDR + 1, .callchain = chain,
		.callchain_nr = sizeof(chain) / sizeof(chain[0]),
	};
	struct pebs_frame fr[8];
	struct pebs_symbols *syms;
	int mode = -1;
	bool lookup;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	assert_false(pebs_callchain__dropped(&s));
	assert_int_equal(pebs_callchain__resolve(syms, &s, true, fr, 8), 4);
	assert_true(fr[0].kernel);
	assert_string_equal(fr[0].dso, "[kernel.kallsyms]");
	assert_true(fr[1].kernel);	/* a user address in kernel context */
	assert_null(fr[1].dso);
	assert_false(fr[3].kernel);	/* a kernel address in user context */
	assert_int_equal(fr[3].ip, KADDR + 5);
	assert_null(fr[3].dso);
	assert_null(fr[3].sym);
	/* -1 (past the markers perf knows) drops it all */
	chain[5] = (uint64_t)-1;
	assert_true(pebs_callchain__dropped(&s));
	assert_int_equal(pebs_callchain__resolve(syms, &s, true, fr, 8), 1);
	assert_int_equal(fr[0].ip, KADDR + 1);
	assert_true(fr[0].kernel);
	/* the steps */
	assert_int_equal(pebs_callchain__step(PERF_CONTEXT_HV, &mode, &lookup),
			 0);
	assert_int_equal(mode, 1);
	assert_int_equal(pebs_callchain__step(PERF_CONTEXT_USER, &mode,
					      &lookup), 0);
	assert_int_equal(mode, 0);
	assert_int_equal(pebs_callchain__step(0x1000, &mode, &lookup), 1);
	assert_true(lookup);
	assert_int_equal(pebs_callchain__step(KADDR, &mode, &lookup), 1);
	assert_false(lookup);
	assert_int_equal(pebs_callchain__step(PERF_CONTEXT_GUEST_KERNEL, &mode,
					      &lookup), -1);
	mode = -1;	/* no marker yet: any address is looked up */
	assert_int_equal(pebs_callchain__step(KADDR, &mode, &lookup), 1);
	assert_true(lookup);
	pebs_symbols__delete(syms);
}

static void test_own_maps(void **state)
{
	uint64_t chain[] = {
		PERF_CONTEXT_USER,
		(uint64_t)(uintptr_t)pebs_test_callchain_fn + 4,
	};
	struct pebs_sample s = {
		.present = PERF_SAMPLE_CALLCHAIN, .callchain = chain,
		.callchain_nr = 2,
	};
	struct pebs_symbols *syms;
	struct pebs_frame fr[4];
	char buf[256];

	(void)state;
	assert_int_equal(pebs_test_callchain_fn(1), 4);
	s.pid = (uint32_t)getpid();
	assert_int_equal(pebs_symbols__new(&syms), 0);
	assert_true(pebs_symbols__load_pid(syms, getpid()) >= 0);
	assert_int_equal(pebs_callchain__resolve(syms, &s, false, fr, 4), 1);
	assert_non_null(fr[0].sym);
	assert_string_equal(fr[0].sym, "pebs_test_callchain_fn");
	assert_non_null(strstr(fr[0].dso, "test-callchain"));
	assert_int_equal(pebs_frame__kind(&fr[0]), PEBS_FRAME_USER);
	assert_int_equal(pebs_frame__folded(&fr[0], buf, sizeof(buf)),
			 (int)strlen("pebs_test_callchain_fn"));
	assert_string_equal(buf, "pebs_test_callchain_fn");
	pebs_symbols__delete(syms);
}

static void folded(const char *sym, const char *dso, const char *want)
{
	struct pebs_frame fr = { .ip = 1, .sym = sym, .dso = dso };
	char buf[128];

	assert_int_equal(pebs_frame__folded(&fr, buf, sizeof(buf)),
			 (int)strlen(want));
	assert_string_equal(buf, want);
}

static void test_names(void **state)
{
	struct pebs_frame fr = { 0 };
	char buf[16];

	(void)state;
	folded("chase", "/bin/memwalk", "chase");
	folded(NULL, "/usr/lib/x86_64-linux-gnu/libc.so.6", "[libc.so.6]");
	folded(NULL, "[kernel.kallsyms]", "[[kernel.kallsyms]]");
	folded(NULL, "//anon", "[anon]");
	folded(NULL, NULL, "[unknown]");
	/* tidy_generic */
	folded("ns::f(int, char)", "/x", "ns::f");
	folded("ns::(anonymous namespace)::g(int)", "/x",
	       "ns::(anonymous namespace)::g");
	folded("net/http.(*Client).Do", "/x", "net/http.(*Client).Do");
	folded("a;b\"c'd", "/x", "a:bcd");
	folded("(process)", "/x", "");
	/* a cut name stays NUL-terminated */
	fr.sym = "a_very_long_symbol_name";
	assert_int_equal(pebs_frame__folded(&fr, buf, 8), 7);
	assert_string_equal(buf, "a_very_");
	assert_int_equal(pebs_frame__folded(&fr, buf, 0), -EINVAL);
	/* kinds */
	fr.dso = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	assert_int_equal(pebs_frame__kind(&fr), PEBS_FRAME_LIB);
	fr.dso = "[vdso]";
	assert_int_equal(pebs_frame__kind(&fr), PEBS_FRAME_LIB);
	fr.dso = NULL;
	assert_int_equal(pebs_frame__kind(&fr), PEBS_FRAME_UNKNOWN);
	fr.kernel = true;
	assert_int_equal(pebs_frame__kind(&fr), PEBS_FRAME_KERNEL);
	/* comms */
	pebs_frame__comm("V8 Worker;x", 5, buf, sizeof(buf));
	assert_string_equal(buf, "V8_Worker:x");
	pebs_frame__comm(NULL, 1234, buf, sizeof(buf));
	assert_string_equal(buf, ":1234");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_contexts),
		cmocka_unit_test(test_own_maps),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
