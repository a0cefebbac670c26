// SPDX-License-Identifier: MIT
/*
 * test-c2c-srcline.c - pebs_srcline (perf c2c's "Source:Line"): this
 * test program (built with -g) names the file and line of a function of
 * its own, found from its file offset as pebs_symbols gives it; the
 * answer is cached; the same program stripped of its debug info
 * (objcopy), a file that is not ELF and a missing file give -ENOENT;
 * libc's lines come from its separate debug file when installed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
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

static const int marker_first = __LINE__ + 1;
static __attribute__((noinline)) int marker(volatile int *x)
{
	*x = *x * 3 + 1;
	return *x;
}
static const int marker_last = __LINE__ - 1;

struct find {
	uintptr_t addr;
	uint64_t off;
	bool found;
};

/* the file offset of @addr in the main program (its PT_LOAD) */
static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	int i;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;	/* not the main program */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= start &&
		    f->addr < start + ph->p_memsz) {
			f->off = f->addr - start + ph->p_offset;
			f->found = true;
			return 1;
		}
	}
	return 0;
}

static void test_own_line(void **state)
{
	struct find f = { .addr = (uintptr_t)marker };
	struct pebs_srcline *s;
	const char *file, *file2;
	unsigned int line, line2;
	char exe[4096];
	ssize_t n;
	volatile int x = 1;

	(void)state;
	assert_int_equal(marker(&x), 4);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	dl_iterate_phdr(phdr_cb, &f);
	assert_true(f.found);
	assert_int_equal(pebs_srcline__new(&s), 0);
	assert_int_equal(pebs_srcline__find(s, exe, f.off, &file, &line), 0);
	print_message("# %s:%u (marker at lines %d-%d)\n", file, line,
		      marker_first, marker_last);
	assert_non_null(strstr(file, "test-c2c-srcline.c"));
	assert_in_range(line, marker_first, marker_last);
	/* the second answer comes from the cache: the same string */
	assert_int_equal(pebs_srcline__find(s, exe, f.off, &file2, &line2), 0);
	assert_ptr_equal(file, file2);
	assert_int_equal(line, line2);
	/* an offset outside every segment has no line */
	assert_int_equal(pebs_srcline__find(s, exe, 1ULL << 40, &file, &line),
			 -ENOENT);
	assert_null(file);
	assert_int_equal(pebs_srcline__find(s, NULL, 0, &file, &line),
			 -EINVAL);
	pebs_srcline__delete(s);
}

static void test_no_debug_info(void **state)
{
	char path[] = "/tmp/srcline-t.XXXXXX";
	struct pebs_srcline *s;
	const char *file;
	unsigned int line;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
	close(fd);
	assert_int_equal(pebs_srcline__new(&s), 0);
	assert_int_equal(pebs_srcline__find(s, path, 0, &file, &line),
			 -ENOENT);
	assert_int_equal(pebs_srcline__find(s, "/nonexistent/x", 0, &file,
					    &line), -ENOENT);
	unlink(path);
	pebs_srcline__delete(s);
}

/* this very program with its debug info stripped: an ELF without lines */
static void test_stripped(void **state)
{
	struct find f = { .addr = (uintptr_t)marker };
	char path[] = "/tmp/srcline-t.XXXXXX", cmd[8400], exe[4096];
	struct pebs_srcline *s;
	const char *file;
	unsigned int line;
	ssize_t n;
	int fd;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-debug '%s' '%s'", exe,
		 path);
	assert_int_equal(system(cmd), 0);
	dl_iterate_phdr(phdr_cb, &f);
	assert_true(f.found);
	assert_int_equal(pebs_srcline__new(&s), 0);
	assert_int_equal(pebs_srcline__find(s, path, f.off, &file, &line),
			 -ENOENT);
	assert_null(file);
	/* the same offset of the unstripped program has its line */
	assert_int_equal(pebs_srcline__find(s, exe, f.off, &file, &line), 0);
	unlink(path);
	pebs_srcline__delete(s);
}

struct lib_find {
	const char *name;	/* a substring of the object's path */
	uintptr_t addr;
	uint64_t off;
	char path[4096];
	bool found;
};

/* the file offset of @addr in the loaded object whose name has @name */
static int lib_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lib_find *f = arg;
	int i;

	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, f->name))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= start &&
		    f->addr < start + ph->p_memsz) {
			f->off = f->addr - start + ph->p_offset;
			snprintf(f->path, sizeof(f->path), "%s",
				 info->dlpi_name);
			f->found = true;
			return 1;
		}
	}
	return 0;
}

/*
 * libc has no DWARF of its own; with its debug file installed
 * (libc6-dbg: /usr/lib/debug/.build-id/xx/yyy.debug) atoi has its line.
 */
static void test_debug_file(void **state)
{
	struct lib_find f = { .name = "libc.so" };
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	struct pebs_srcline *s;
	const char *file;
	unsigned int line;
	int ret;

	(void)state;
	/* libc's own atoi, not a sanitizer's interceptor of it */
	f.addr = libc ? (uintptr_t)dlsym(libc, "atoi") : 0;
	if (libc)
		dlclose(libc);
	dl_iterate_phdr(lib_cb, &f);
	if (!f.found || access("/usr/lib/debug/.build-id", F_OK)) {
		print_message("# SKIP no libc.so or no /usr/lib/debug/"
			      ".build-id (install libc6-dbg)\n");
		skip();
	}
	assert_int_equal(pebs_srcline__new(&s), 0);
	ret = pebs_srcline__find(s, f.path, f.off, &file, &line);
	if (ret == -ENOENT) {
		pebs_srcline__delete(s);
		print_message("# SKIP no debug file for %s\n", f.path);
		skip();
	}
	assert_int_equal(ret, 0);
	print_message("# atoi: %s:%u\n", file, line);
	assert_true(line > 0);
	assert_non_null(strstr(file, "atoi.c"));
	pebs_srcline__delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_line),
		cmocka_unit_test(test_no_debug_info),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_debug_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
