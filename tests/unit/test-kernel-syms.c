// SPDX-License-Identifier: MIT
/*
 * test-kernel-syms.c - the HEADER_BUILD_ID iterator
 * (lib/symbols/buildid-cache.c), and kernel addresses in the symbolizer
 * (lib/symbols/symbols.c, lib/symbols/symbols-kernel.c, lib/symbols/kallsyms.c): /proc/kallsyms loaded, only for
 * the recorded kernel's build id, read on a thread and taken at the
 * first kernel address, read only up to the addresses a recording has,
 * not waited for (pebs_symbols__kernel_nowait), and another kernel's
 * from perf's build-id cache. Tests that need the kernel's addresses
 * skip where /proc/kallsyms hides them.
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
#include "symbols/dso.h"
#include "helpers.h"
#include "core/internal.h"
#include "symbols/symbols-int.h"

/* The address of text symbol @name in /proc/kallsyms, or 0. */
static uint64_t ksym_addr(const char *name)
{
	unsigned long long a;
	char line[256], n[128], type;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &type, n) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(n, name))
			found = a;
	if (f)
		fclose(f);
	return found;
}

static void test_kernel(void **state)
{
	struct pebs_symbols *syms = *state;
	struct pebs_sym sym;
	uint64_t text;
	int n;

	assert_int_equal(pebs_symbols__resolve(syms, 1, 0xffffffff81000000ull,
					       &sym), -ENOENT);
	assert_string_equal(sym.dso, "[kernel.kallsyms]");

	n = pebs_symbols__load_kallsyms(syms);
	if (n == -EACCES || n == -ENOENT)
		skip();
	assert_true(n > 1000);
	text = ksym_addr("schedule");
	assert_true(text != 0);
	assert_int_equal(pebs_symbols__resolve(syms, 1, text + 4, &sym), 0);
	assert_string_equal(sym.name, "schedule");
	assert_int_equal(sym.offset, 4);
	assert_string_equal(sym.dso, "[kernel.kallsyms]");
}

/* A HEADER_BUILD_ID entry for @name with build id bytes all @byte. */
static size_t bid_entry(unsigned char *buf, const char *name,
			unsigned char byte)
{
	struct perf_event_header h = { 67, 1 << 15, 0 };
	size_t len = (strlen(name) + 1 + 63) / 64 * 64;
	int32_t pid = -1;

	h.size = (uint16_t)(sizeof(h) + 28 + len);
	memset(buf, 0, h.size);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &pid, 4);
	memset(buf + sizeof(h) + 4, byte, 20);
	buf[sizeof(h) + 24] = 20;
	strcpy((char *)buf + sizeof(h) + 28, name);
	return h.size;
}

/*
 * The one HEADER_BUILD_ID iterator (buildid_section__next): entries in
 * order with their build id and its size, those without a build id or a
 * terminated name skipped, 0 at the end (a tail shorter than an entry
 * too), -EBADMSG at an entry running past the section, for the resolver
 * (pebs_symbols__add_build_ids) as for the cache's writer.
 */
static void test_build_id_section(void **state)
{
	unsigned char sec[1024];
	const unsigned char *p = sec, *end;
	struct perf_event_header h;
	struct buildid_entry e;
	size_t n = 0, at;

	(void)state;
	n += bid_entry(sec + n, "/usr/lib/a.so", 0x11);
	at = n;
	n += bid_entry(sec + n, "/no/build/id", 0x22);
	sec[at + sizeof(h) + 24] = 0;	/* build id size 0 */
	at = n;
	n += bid_entry(sec + n, "[vdso]", 0x33);
	/* its name runs to the entry's end */
	memset(sec + at + sizeof(h) + 28, 'x', n - at - sizeof(h) - 28);
	n += bid_entry(sec + n, "[kernel.kallsyms]", 0x44);
	end = sec + n;
	assert_int_equal(buildid_section__next(&p, end, &e), 1);
	assert_string_equal(e.name, "/usr/lib/a.so");
	assert_int_equal(e.len, 20);
	assert_int_equal(e.pid, -1);
	assert_int_equal(e.bid[0], 0x11);
	assert_int_equal(e.bid[19], 0x11);
	assert_int_equal(buildid_section__next(&p, end, &e), 1);
	assert_string_equal(e.name, "[kernel.kallsyms]");
	assert_int_equal(e.bid[0], 0x44);
	assert_ptr_equal(p, end);
	assert_int_equal(buildid_section__next(&p, end, &e), 0);
	/* a tail shorter than an entry ends the section */
	p = sec;
	assert_int_equal(buildid_section__next(&p, sec + 30, &e), 0);
	/* an entry running past the section */
	p = sec;
	assert_int_equal(buildid_section__next(&p, end - 8, &e), 1);
	assert_int_equal(buildid_section__next(&p, end - 8, &e), -EBADMSG);
	assert_non_null(strstr(pebs_errmsg(), "overruns the section"));
	/* an entry shorter than its fixed part */
	p = sec;
	memcpy(&h, sec, sizeof(h));
	h.size = sizeof(h) + 27;
	memcpy(sec, &h, sizeof(h));
	assert_int_equal(buildid_section__next(&p, end, &e), -EBADMSG);
}

/* The running kernel's build id from /sys/kernel/notes, or 0 bytes. */
static size_t host_bid(unsigned char *bid)
{
	unsigned char buf[4096];
	size_t n, off = 0;
	FILE *f = fopen("/sys/kernel/notes", "r");

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 12 <= n) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		if (type == 3 && nsz == 4 && dsz == 20) {
			memcpy(bid, buf + off + 16, 20);
			return 20;
		}
		off += 12 + ((nsz + 3) & ~3u) + ((dsz + 3) & ~3u);
	}
	return 0;
}

/* The recorded kernel is this one (its build id): 0 or skipped. */
static void this_kernel(struct pebs_symbols *syms)
{
	unsigned char sec[512], bid[20];
	size_t n;

	if (!host_bid(bid))
		skip();		/* no notes */
	n = bid_entry(sec, "[kernel.kallsyms]", 0);
	memcpy(sec + sizeof(struct perf_event_header) + 4, bid, 20);
	assert_int_equal(pebs_symbols__add_build_ids(syms, sec, n), 1);
}

static void test_kernel_build_id(void **state)
{
	struct pebs_symbols *syms = *state;
	unsigned char sec[512];
	size_t n = 0;
	struct pebs_sym sym;
	int ret;

	/* another kernel: kallsyms is not loaded, addresses stay raw */
	n += bid_entry(sec + n, "[kernel.kallsyms]", 0x5a);
	n += bid_entry(sec + n, "/nonexistent/lib.so", 0x11);
	assert_int_equal(pebs_symbols__add_build_ids(syms, sec, n), 2);
	assert_int_equal(pebs_symbols__load_kernel(syms), 0);
	assert_int_equal(pebs_symbols__resolve(syms, 1, 0xffffffff81000000ull,
					       &sym), -ENOENT);
	assert_null(sym.name);
	assert_string_equal(sym.dso, "[kernel.kallsyms]");
	/* an entry running past the section */
	assert_int_equal(pebs_symbols__add_build_ids(syms, sec, n - 8),
			 -EBADMSG);

	/* this kernel: loaded */
	this_kernel(syms);
	ret = pebs_symbols__load_kernel(syms);
	if (ret == -EACCES)
		skip();
	assert_int_equal(ret, 1);
}

/*
 * syms_kernel_defer: the same answer as pebs_symbols__load_kernel, and
 * the symbols read at the first kernel address looked up, or taken then
 * from the thread syms_kernel_start began.
 */
static void test_kernel_deferred(void **state)
{
	struct pebs_symbols *syms = *state;
	unsigned char sec[512];
	struct pebs_sym sym;
	uint64_t text;
	size_t n;
	int ret;

	n = bid_entry(sec, "[kernel.kallsyms]", 0x5a);
	assert_int_equal(pebs_symbols__add_build_ids(syms, sec, n), 1);
	assert_int_equal(syms_kernel_defer(syms), 0);	/* another kernel */
	assert_int_equal(pebs_symbols__resolve(syms, 1, 0xffffffff81000000ull,
					       &sym), -ENOENT);
	text = kallsyms_host_text();
	if (!text)
		skip();		/* addresses hidden */
	this_kernel(syms);
	ret = syms_kernel_defer(syms);
	assert_int_equal(ret, 1);
	/* read now: _text (or an alias at its address) */
	assert_int_equal(pebs_symbols__resolve(syms, 1, text, &sym), 0);
	assert_non_null(sym.name);
	assert_int_equal(sym.offset, 0);
	assert_string_equal(sym.dso, "[kernel.kallsyms]");

	/* read on a thread meanwhile: taken at the first kernel lookup */
	syms_kernel_start(syms);
	assert_int_equal(syms_kernel_defer(syms), 1);
	assert_int_equal(pebs_symbols__resolve(syms, 1, text + 1, &sym), 0);
	assert_non_null(sym.name);
	assert_int_equal(sym.offset, 1);
	assert_string_equal(sym.dso, "[kernel.kallsyms]");
}

/*
 * /proc/kallsyms read only up to the first text symbol past a limit
 * (kload_start's): on x86-64 the table ends there (syms_end) and is the
 * whole table below it; through the resolver, an address above the part
 * read has all of it read.
 */
static void test_kernel_partial(void **state)
{
	struct pebs_symbols *syms = *state;
	struct dso full, part;
	uint64_t text, sched;
	const char *first;
	struct pebs_sym sym;
	struct kload *k;
	char copy[256];
	size_t i;
	int ret;

	memset(&full, 0, sizeof(full));
	memset(&part, 0, sizeof(part));
	ret = dso_load_kallsyms(&full);
	if (ret == -EACCES || ret == -ENOENT)
		skip();		/* addresses hidden */
	assert_true(ret > 1000);
	assert_int_equal(full.syms_end, 0);
	text = kallsyms_host_text();
	sched = ksym_addr("schedule");
	assert_true(text && sched > text);
	k = kload_start(text);
	assert_non_null(k);
	assert_true(kload_finish(k, &part) > 0);
#if defined(__x86_64__)
	assert_true(part.syms_end > text);
	assert_true(part.syms_end <= sched);
	assert_true(part.nr_syms < full.nr_syms);
#endif
	for (i = 0; i < part.nr_syms && (!part.syms_end ||
					 part.syms[i].start < part.syms_end);
	     i++) {
		assert_int_equal(part.syms[i].start, full.syms[i].start);
		assert_string_equal(part.syms[i].name, full.syms[i].name);
	}
	assert_true(i > 0);
	dso_free(&full);
	dso_free(&part);

	this_kernel(syms);
	syms_kernel_start(syms);
	syms_kernel_limit(syms, text);
	assert_int_equal(syms_kernel_defer(syms), 1);
	assert_int_equal(pebs_symbols__resolve(syms, 1, text, &sym), 0);
	assert_int_equal(sym.offset, 0);
	first = sym.name;
	snprintf(copy, sizeof(copy), "%s", first);
	assert_int_equal(pebs_symbols__resolve(syms, 1, sched + 4, &sym), 0);
	assert_string_equal(sym.name, "schedule");
	assert_int_equal(sym.offset, 4);
	assert_string_equal(sym.dso, "[kernel.kallsyms]");
	/* the whole table read: a name given out before it stays readable
	   (report rows hold it: ASan saw it freed) and is the one given
	   out again (rows key by it: one row, not two, per symbol) */
	assert_string_equal(first, copy);
	assert_int_equal(pebs_symbols__resolve(syms, 1, text, &sym), 0);
	assert_ptr_equal(sym.name, first);
}

/*
 * pebs_symbols__kernel_nowait: while the thread still reads, a kernel
 * address resolves unnamed, as a foreign kernel's, instead of waiting
 * (and is not remembered so); with the mode off it is named.
 */
static void test_kernel_nowait(void **state)
{
	struct pebs_symbols *syms = *state;
	uint64_t sched = ksym_addr("schedule");
	struct pebs_sym sym;
	int ret;

	if (!sched)
		skip();		/* addresses hidden */
	this_kernel(syms);
	syms_kernel_start(syms);
	assert_int_equal(syms_kernel_defer(syms), 1);
	pebs_symbols__kernel_nowait(syms, true);
	ret = pebs_symbols__resolve(syms, 1, sched + 4, &sym);
	assert_string_equal(sym.dso, "[kernel.kallsyms]");
	if (ret) {	/* still being read (nearly always) */
		assert_int_equal(ret, -ENOENT);
		assert_null(sym.name);
		assert_int_equal(sym.dso_offset, sched + 4);
	} else {
		assert_string_equal(sym.name, "schedule");
	}
	pebs_symbols__kernel_nowait(syms, false);
	assert_int_equal(pebs_symbols__resolve(syms, 1, sched + 4, &sym), 0);
	assert_string_equal(sym.name, "schedule");
	assert_int_equal(sym.offset, 4);
}

/*
 * Another kernel whose kallsyms perf's build-id cache holds
 * (~/.debug/[kernel.kallsyms]/<build id>/kallsyms): its symbols, moved
 * by the recorded _text less the copy's (a copy kept at another boot);
 * without the copy, none.
 */
static void test_kernel_cached(void **state)
{
	static const char copy[] =
		"ffffffff82000000 T _text\n"
		"ffffffff82000000 T startup_64\n"
		"ffffffff82000100 T k_first\n"
		"ffffffff82000180 d k_data\n"
		"ffffffff82000200 t k_second\n"
		"ffffffff82000300 T k_third\n";
	struct pebs_symbols *syms = *state;
	char home[] = "/tmp/test-kernel-syms.XXXXXX", *old;
	unsigned char sec[512];
	struct pebs_sym sym;
	size_t n;

	assert_non_null(mkdtemp(home));
	old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", home, 1);
	n = bid_entry(sec, "[kernel.kallsyms]", 0xcd);
	assert_int_equal(pebs_symbols__add_build_ids(syms, sec, n), 1);
	syms->kernel_text = 0xffffffff81000000ull;	/* recorded _text */
	assert_int_equal(pebs_symbols__load_kernel(syms), 0);	/* no copy */
	assert_int_equal(pebs_symbols__resolve(syms, 1, 0xffffffff81000104ull,
					       &sym), -ENOENT);
	assert_int_equal(t_put_file(home, ".debug/[kernel.kallsyms]/"
				    "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd/"
				    "kallsyms", copy), 0);
	assert_int_equal(pebs_symbols__load_kernel(syms), 2);
	assert_int_equal(pebs_symbols__resolve(syms, 1, 0xffffffff81000104ull,
					       &sym), 0);
	assert_string_equal(sym.name, "k_first");
	assert_int_equal(sym.offset, 4);
	assert_int_equal(pebs_symbols__resolve(syms, 1, 0xffffffff81000208ull,
					       &sym), 0);
	assert_string_equal(sym.name, "k_second");
	assert_string_equal(sym.dso, "[kernel.kallsyms]");
	/* the session's way: taken at the first kernel address */
	assert_int_equal(syms_kernel_defer(syms), 2);
	assert_int_equal(pebs_symbols__resolve(syms, 1, 0xffffffff81000300ull,
					       &sym), 0);
	assert_string_equal(sym.name, "k_third");
	assert_int_equal(t_rm_tree(home), 0);
	if (old)
		setenv("HOME", old, 1);
	free(old);
}

/* a test of its own pebs_symbols */
#define SYMS_TEST(f) \
	cmocka_unit_test_setup_teardown(f, t_symbols_setup, t_symbols_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id_section),
		SYMS_TEST(test_kernel),
		SYMS_TEST(test_kernel_build_id),
		SYMS_TEST(test_kernel_deferred),
		SYMS_TEST(test_kernel_partial),
		SYMS_TEST(test_kernel_nowait),
		SYMS_TEST(test_kernel_cached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
