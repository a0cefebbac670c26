/* SPDX-License-Identifier: MIT */
/*
 * helpers.h - what the tests share: one place that answers "does this
 * host have FEATURE?" for the C tests (t_have(), T_NEED()) and, through
 * the tests/probe program, for the shell tests (tap.sh's need).
 *
 * Features (names as the probe takes them):
 *   rdtscp   the CPU has rdtscp (pebs_cpu_has_rdtscp(): the observer)
 *   pmu      a hardware PMU: perf_event_open of cycles succeeds
 *   precise  precise (PEBS/IBS) sampling: cycles with precise_ip 1 opens
 *   percpu   per-CPU events may be opened (root or perf_event_paranoid <= 0)
 *   root     running as root
 *   cpus2    at least two online CPUs
 *   map      /dev/pebs_map (the module) can be opened
 *   qemu     qemu-system-x86_64 is installed
 *
 * PEBS_TEST_NO_<FEATURE>=1 (e.g. PEBS_TEST_NO_RDTSCP=1) hides a feature
 * the host has, so that every test that needs it can be seen to skip
 * with its reason on a host like this one; the library honours
 * PEBS_TEST_NO_RDTSCP too (pebs_cpu_has_rdtscp()).
 */
#ifndef PEBS_TEST_HELPERS_H
#define PEBS_TEST_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * t_have - whether the host has @feature; if not, @why (may be NULL)
 * gets the reason ("no rdtscp on this CPU", "hidden by
 * PEBS_TEST_NO_RDTSCP", "unknown feature 'x'").
 */
bool t_have(const char *feature, char *why, size_t len);

/*
 * T_NEED(feature) - in a cmocka test: skip it, with the reason as a TAP
 * comment, unless the host has @feature.
 */
#define T_NEED(feature)							\
	do {								\
		char t_why_[160];					\
									\
		if (!t_have(feature, t_why_, sizeof(t_why_))) {		\
			print_message("# SKIP %s\n", t_why_);		\
			skip();						\
		}							\
	} while (0)

/*
 * t_has_line - whether @out holds @line as a whole line (between line
 * starts and ends); T_HAS_LINE fails the cmocka test showing @out if not.
 */
bool t_has_line(const char *out, const char *line);
#define T_HAS_LINE(out, line)						\
	do {								\
		if (!t_has_line(out, line))				\
			fail_msg("no line \"%s\" in:\n%s", line, out);	\
	} while (0)

/*
 * t_put_file - write @text to @top/@rel, making the directories on the
 * way (fake sysfs and tracefs trees); a NULL @text makes @top/@rel a
 * directory. Returns 0 or -errno.
 */
int t_put_file(const char *top, const char *rel, const char *text);

/* t_rm_tree - remove @top and everything under it. Returns 0 or -1. */
int t_rm_tree(const char *top);

/*
 * t_symbols_setup, t_symbols_teardown - a cmocka group state of a new
 * pebs_symbols (the symbolizer tests'), and its end. 0 or -1.
 */
int t_symbols_setup(void **state);
int t_symbols_teardown(void **state);

/*
 * t_make_mmap2 - a PERF_RECORD_MMAP2 of @pid (pid = tid) in @buf (room
 * for the header, 64 bytes and @name): [@start, +@len) at file offset
 * @pgoff, @prot, header misc @misc, no sample_id. Returns its size.
 */
size_t t_make_mmap2(uint64_t *buf, uint32_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, uint32_t prot,
		    uint16_t misc, const char *name);

/*
 * t_open_fixture - open tests/fixtures/@name under $PEBS_SRC (else .):
 * the reader, or NULL after printing why (set PEBS_SRC).
 */
struct pebs_perfdata *t_open_fixture(const char *name);

/*
 * t_write_sample - the PERF_RECORD_SAMPLE @r (@size bytes, a user one)
 * with its header filled in, written by @w. Returns the writer's result.
 */
struct pebs_perfdata_writer;
struct perf_event_attr;
int t_write_sample(struct pebs_perfdata_writer *w, uint64_t *r, size_t size);

/* t_alloc_attr - the attr of record --objects' pebs-shim:alloc event */
struct perf_event_attr t_alloc_attr(void);

/*
 * t_write_alloc - a pebs-shim:alloc sample as lib/record/record-objects.c
 * writes it (pid = tid 50): @size bytes at @addr allocated at @time from
 * @ip, its call chain that one frame. Returns the writer's result.
 */
int t_write_alloc(struct pebs_perfdata_writer *w, uint64_t time,
		  uint64_t addr, uint64_t size, uint64_t ip);

#endif
