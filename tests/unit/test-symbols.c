// SPDX-License-Identifier: MIT
/*
 * test-symbols.c - the symbolizer (lib/symbols/symbols.c): functions of this
 * very binary and of libc through /proc/self/maps, mappings from
 * records (MMAP2, FORK, COMM exec), overlapping mappings, build-id
 * mismatches, perf's --symfs, and the printed form (kernel addresses:
 * test-kernel-syms.c).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "symbols/dso.h"
#include "helpers.h"
#include "core/internal.h"

/* A function whose address and name the test knows. */
__attribute__((noinline, used)) int pebs_test_target_fn(int x);
__attribute__((noinline, used)) int pebs_test_target_fn(int x)
{
	return x * 7 + 3;
}

static void self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	assert_true(n > 0);
	buf[n] = '\0';
}

static void test_own_function(void **state)
{
	struct pebs_symbols *syms = *state;
	uint64_t ip = (uintptr_t)pebs_test_target_fn + 5;
	struct pebs_sym sym;
	char exe[PATH_MAX], str[256];

	self_exe(exe, sizeof(exe));
	assert_true(pebs_symbols__load_pid(syms, getpid()) > 0);
	assert_int_equal(pebs_symbols__resolve(syms, getpid(), ip, &sym), 0);
	assert_string_equal(sym.name, "pebs_test_target_fn");
	assert_int_equal(sym.offset, 5);
	assert_string_equal(sym.dso, exe);
	pebs_sym__str(&sym, ip, str, sizeof(str));
	assert_string_equal(str, "pebs_test_target_fn+0x5");

	/* the function's first byte: no offset printed */
	ip = (uintptr_t)pebs_test_target_fn;
	assert_int_equal(pebs_symbols__resolve(syms, getpid(), ip, &sym), 0);
	pebs_sym__str(&sym, ip, str, sizeof(str));
	assert_string_equal(str, "pebs_test_target_fn");
}

/* The name of this binary's pebs_test_target_fn under symfs @dir (NULL:
   none), or NULL when it has none. */
static const char *own_under(const char *dir, struct pebs_symbols **sp)
{
	uint64_t ip = (uintptr_t)pebs_test_target_fn + 5;
	struct pebs_sym sym;

	assert_int_equal(pebs_symbols__new(sp), 0);
	assert_true(pebs_symbols__load_pid(*sp, getpid()) > 0);
	if (dir)
		assert_int_equal(pebs_symbols__set_symfs(*sp, dir), 0);
	if (pebs_symbols__resolve(*sp, getpid(), ip, &sym))
		return NULL;	/* -ENOENT: no symbol */
	return sym.name;
}

/* perf's --symfs: files under the directory only (this binary is found
   when copied there), "/" is none, set before the first lookup */
static void test_symfs(void **state)
{
	char dir[] = "/tmp/test-symfs.XXXXXX", exe[PATH_MAX], cmd[5 * PATH_MAX];
	struct pebs_symbols *syms;
	const char *name;

	(void)state;
	self_exe(exe, sizeof(exe));
	assert_non_null(mkdtemp(dir));
	assert_null(own_under(dir, &syms));	/* nothing there */
	pebs_symbols__delete(syms);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'\"$(dirname '%s')\" && "
		 "cp '%s' '%s%s'", dir, exe, exe, dir, exe);
	assert_int_equal(system(cmd), 0);
	name = own_under(dir, &syms);
	assert_non_null(name);
	assert_string_equal(name, "pebs_test_target_fn");
	/* after a lookup: refused */
	assert_int_equal(pebs_symbols__set_symfs(syms, dir), -EINVAL);
	pebs_symbols__delete(syms);
	name = own_under("/", &syms);
	assert_non_null(name);
	assert_string_equal(name, "pebs_test_target_fn");
	pebs_symbols__delete(syms);
	assert_int_equal(pebs_symbols__new(&syms), 0);
	assert_int_equal(pebs_symbols__set_symfs(syms, ""), -EINVAL);
	pebs_symbols__delete(syms);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_libc_function(void **state)
{
	struct pebs_symbols *syms = *state;
	uint64_t ip = (uintptr_t)&getppid;	/* through the GOT: in libc */
	struct pebs_sym sym;

	assert_true(pebs_symbols__load_pid(syms, getpid()) > 0);
	assert_int_equal(pebs_symbols__resolve(syms, getpid(), ip, &sym), 0);
	assert_non_null(strstr(sym.name, "getppid"));
	assert_int_equal(sym.offset, 0);
	assert_non_null(strstr(sym.dso, "libc"));
}

static void test_no_process(void **state)
{
	struct pebs_symbols *syms = *state;
	struct pebs_sym sym;

	assert_int_equal(pebs_symbols__load_pid(syms, INT_MAX), -ESRCH);
	assert_int_equal(pebs_symbols__resolve(syms, 12345, 0x400000, &sym),
			 -ENOENT);
	assert_null(sym.dso);
	assert_null(sym.name);
}

/*
 * Many mapped files (the dsos found by path through a hash index, grown
 * as they come): each address resolves to its own, a path mapped again,
 * by another process, to the same dso, never a neighbour's
 */
static void test_many_dsos(void **state)
{
	struct pebs_symbols *syms = *state;
	const char *first = NULL;
	struct pebs_sym sym;
	char path[64];

	for (unsigned int i = 0; i < 5000; i++) {
		snprintf(path, sizeof(path), "[file %u]", i);
		assert_int_equal(pebs_symbols__add_mmap(syms, 4243,
							0x100000 + i * 0x1000ull,
							0x1000, 0, path), 0);
	}
	assert_int_equal(pebs_symbols__add_mmap(syms, 4244, 0x700000, 0x1000,
						0, "[file 17]"), 0);
	for (unsigned int i = 0; i < 5000; i++) {
		snprintf(path, sizeof(path), "[file %u]", i);
		pebs_symbols__resolve(syms, 4243, 0x100000 + i * 0x1000ull + 8,
				      &sym);
		assert_non_null(sym.dso);
		assert_string_equal(sym.dso, path);
		if (i == 17)
			first = sym.dso;
	}
	pebs_symbols__resolve(syms, 4244, 0x700010, &sym);
	assert_ptr_equal(sym.dso, first);
}

/* many processes, their pids in descending order: each its own maps */
static void test_many_procs(void **state)
{
	struct pebs_symbols *syms = *state;
	struct pebs_sym sym;
	char path[64];

	for (int pid = 3000; pid > 0; pid--) {
		snprintf(path, sizeof(path), "[proc %d]", pid);
		assert_int_equal(pebs_symbols__add_mmap(syms, pid, 0x400000,
							0x1000, 0, path), 0);
	}
	for (int pid = 1; pid <= 3000; pid++) {
		snprintf(path, sizeof(path), "[proc %d]", pid);
		pebs_symbols__resolve(syms, pid, 0x400010, &sym);
		assert_non_null(sym.dso);
		assert_string_equal(sym.dso, path);
	}
	assert_int_equal(pebs_symbols__resolve(syms, 3001, 0x400010, &sym),
			 -ENOENT);
	assert_null(sym.dso);
}

static void test_overlap(void **state)
{
	struct pebs_symbols *syms = *state;
	struct pebs_sym sym;
	char str[128];

	assert_int_equal(pebs_symbols__add_mmap(syms, 4242, 0x10000, 0x30000,
						0, "/nonexistent/a.so"), 0);
	/* a new mapping in the middle splits the old one */
	assert_int_equal(pebs_symbols__add_mmap(syms, 4242, 0x20000, 0x10000,
						0x5000, "/nonexistent/b.so"), 0);

	assert_int_equal(pebs_symbols__resolve(syms, 4242, 0x18000, &sym),
			 -ENOENT);
	assert_string_equal(sym.dso, "/nonexistent/a.so");
	assert_int_equal(sym.dso_offset, 0x8000);
	pebs_sym__str(&sym, 0x18000, str, sizeof(str));
	assert_string_equal(str, "[a.so]+0x8000");

	pebs_symbols__resolve(syms, 4242, 0x28000, &sym);
	assert_string_equal(sym.dso, "/nonexistent/b.so");
	assert_int_equal(sym.dso_offset, 0xd000);

	/* the tail of a keeps its file offset */
	pebs_symbols__resolve(syms, 4242, 0x38000, &sym);
	assert_string_equal(sym.dso, "/nonexistent/a.so");
	assert_int_equal(sym.dso_offset, 0x28000);

	assert_int_equal(pebs_symbols__resolve(syms, 4242, 0x40000, &sym),
			 -ENOENT);
	assert_null(sym.dso);
	pebs_sym__str(&sym, 0x40000, str, sizeof(str));
	assert_string_equal(str, "0x40000");

	/* another process is another address space */
	pebs_symbols__resolve(syms, 4243, 0x18000, &sym);
	assert_null(sym.dso);
	assert_int_equal(pebs_symbols__add_mmap(syms, 1, 0, 0, 0, "/x"),
			 -EINVAL);
}

/* Find this binary's executable mapping in /proc/self/maps. */
/* A data object whose address and name the test knows. */
__attribute__((used)) int pebs_test_data_var[16] = { 1 };

/* The mapping of /proc/self/maps holding @addr. */
static void self_map(uint64_t addr, uint64_t *start, uint64_t *len,
		     uint64_t *pgoff, char *exe, size_t exe_len)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	assert_non_null(f);
	self_exe(exe, exe_len);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o;

		if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &o) == 3 &&
		    addr >= s && addr < e) {
			*start = s;
			*len = e - s;
			*pgoff = o;
			found = true;
		}
	}
	fclose(f);
	assert_true(found);
}

static void exe_text(uint64_t *start, uint64_t *len, uint64_t *pgoff,
		     char *exe, size_t exe_len)
{
	self_map((uintptr_t)pebs_test_target_fn, start, len, pgoff, exe,
		 exe_len);
}

static void test_records(void **state)
{
	struct pebs_symbols *syms = *state;
	uint64_t start = 0, len = 0, pgoff = 0, buf[(PATH_MAX + 256) / 8];
	uint64_t ip = (uintptr_t)pebs_test_target_fn + 2;
	struct perf_event_header *h = (void *)buf;
	uint32_t *u32 = (uint32_t *)(h + 1);
	char exe[PATH_MAX];
	struct pebs_sym sym;

	exe_text(&start, &len, &pgoff, exe, sizeof(exe));

	/* a data mapping is ignored, the executable one is used */
	t_make_mmap2(buf, 777, start, len, pgoff, PROT_READ | PROT_EXEC,
		   PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, exe);
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve(syms, 777, ip, &sym), -ENOENT);
	t_make_mmap2(buf, 777, start, len, pgoff, PROT_READ | PROT_EXEC,
		   PERF_RECORD_MISC_USER, exe);
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve(syms, 777, ip, &sym), 0);
	assert_string_equal(sym.name, "pebs_test_target_fn");
	assert_int_equal(sym.offset, 2);

	/* FORK of a new process: the child inherits the mappings */
	memset(buf, 0, 48);
	h->type = PERF_RECORD_FORK;
	h->size = sizeof(*h) + 24;
	u32[0] = 778;	/* pid */
	u32[1] = 777;	/* ppid */
	u32[2] = 778;
	u32[3] = 777;
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve(syms, 778, ip, &sym), 0);
	assert_string_equal(sym.name, "pebs_test_target_fn");

	/* COMM with COMM_EXEC: a new image, but the old mappings stay
	   until new ones cover them, as perf's thread maps keep them (a
	   sample taken in execve has its caller in the old image) */
	memset(buf, 0, 32);
	h->type = PERF_RECORD_COMM;
	h->misc = PERF_RECORD_MISC_COMM_EXEC;
	h->size = sizeof(*h) + 16;
	u32[0] = 778;
	u32[1] = 778;
	strcpy((char *)(u32 + 2), "true");
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve(syms, 778, ip, &sym), 0);
	assert_string_equal(sym.name, "pebs_test_target_fn");
	t_make_mmap2(buf, 778, start, len, pgoff, PROT_READ | PROT_EXEC,
		   PERF_RECORD_MISC_USER, "/new/image");
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve(syms, 778, ip, &sym), -ENOENT);
	assert_string_equal(sym.dso, "/new/image");	/* no such file */
	assert_int_equal(pebs_symbols__resolve(syms, 777, ip, &sym), 0);
	assert_string_equal(sym.name, "pebs_test_target_fn");
}

static void test_build_id_mismatch(void **state)
{
	struct pebs_symbols *syms = *state;
	static const uint8_t wrong[20] = { 0xde, 0xad, 0xbe, 0xef };
	uint64_t ip = (uintptr_t)pebs_test_target_fn;
	char exe[PATH_MAX];
	struct pebs_sym sym;

	self_exe(exe, sizeof(exe));
	assert_true(pebs_symbols__load_pid(syms, getpid()) > 0);
	assert_int_equal(pebs_symbols__resolve(syms, getpid(), ip, &sym), 0);
	/* recorded elsewhere from another build: no (wrong) symbol */
	assert_int_equal(pebs_symbols__set_build_id(syms, exe, wrong, 20), 0);
	assert_int_equal(pebs_symbols__resolve(syms, getpid(), ip, &sym),
			 -ENOENT);
	assert_string_equal(sym.dso, exe);
	assert_null(sym.name);
	assert_int_equal(pebs_symbols__set_build_id(syms, exe, wrong, 0),
			 -EINVAL);
}

/*
 * Data addresses: a file data mapping of this binary resolves to the
 * data symbol (STT_OBJECT) + offset; [heap] to the mapping alone; the
 * data mappings follow FORK and stay at exec (as perf keeps a thread's
 * maps: the frame of a sample taken in execve is the old libc's).
 */
static void test_data_objects(void **state)
{
	struct pebs_symbols *syms = *state;
	uint64_t start, len, pgoff, buf[(PATH_MAX + 256) / 8];
	uint64_t addr = (uintptr_t)&pebs_test_data_var[3];
	struct perf_event_header *h = (void *)buf;
	uint32_t *u32 = (uint32_t *)(h + 1);
	char exe[PATH_MAX];
	struct pebs_sym sym;

	self_map(addr, &start, &len, &pgoff, exe, sizeof(exe));
	t_make_mmap2(buf, 900, start, len, pgoff, PROT_READ | PROT_WRITE,
		   PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, exe);
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve_data(syms, 900, addr, &sym), 0);
	assert_string_equal(sym.name, "pebs_test_data_var");
	assert_int_equal(sym.offset, 12);
	assert_string_equal(sym.dso, exe);
	/* not code: the ip lookup does not see data mappings */
	assert_int_equal(pebs_symbols__resolve(syms, 900, addr, &sym),
			 -ENOENT);

	t_make_mmap2(buf, 900, 0x10000000, 0x21000, 0, PROT_READ | PROT_WRITE,
		   PERF_RECORD_MISC_USER, "[heap]");
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve_data(syms, 900, 0x10000040,
						    &sym), -ENOENT);
	assert_string_equal(sym.dso, "[heap]");
	assert_null(sym.name);
	assert_int_equal(sym.dso_offset, 0x40);

	/* FORK: the child has them; exec: kept */
	memset(buf, 0, 48);
	h->type = PERF_RECORD_FORK;
	h->size = sizeof(*h) + 24;
	u32[0] = u32[2] = 901;
	u32[1] = u32[3] = 900;
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve_data(syms, 901, addr, &sym), 0);
	assert_string_equal(sym.name, "pebs_test_data_var");
	memset(buf, 0, 32);
	h->type = PERF_RECORD_COMM;
	h->misc = PERF_RECORD_MISC_COMM_EXEC;
	h->size = sizeof(*h) + 16;
	u32[0] = u32[1] = 901;
	memcpy(u32 + 2, "x", 2);
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve_data(syms, 901, addr, &sym), 0);
	assert_string_equal(sym.name, "pebs_test_data_var");
	assert_int_equal(pebs_symbols__resolve_data(syms, 901, 0x10000040,
						    &sym), -ENOENT);
	assert_string_equal(sym.dso, "[heap]");
}

/* ---- perf's names and places (the parity helper's tests) ---------------- */

/* Run @cmd (a shell line); skip the test if it cannot (no objcopy). */
static void run_or_skip(const char *cmd)
{
	if (system(cmd)) {
		print_message("# SKIP cannot run: %s\n", cmd);
		skip();
	}
}

/*
 * A stripped copy of this program finds its symbols and source lines in
 * its separate debug file: by .gnu_debuglink beside it, and by build id
 * in perf's cache ($HOME/.debug/.build-id/xx/yyyy/debug).
 */
static void test_debug_files(void **state)
{
	struct pebs_symbols *syms = *state, *s2;
	uint64_t ip = (uintptr_t)pebs_test_target_fn + 3, base = 1ULL << 40;
	char exe[PATH_MAX], dir[] = "/tmp/test-symbols.XXXXXX";
	char cmd[6 * PATH_MAX], path[2 * PATH_MAX], *home;
	const char *file0, *file1;
	unsigned int line0, line1;
	struct pebs_srcline *src;
	struct pebs_sym sym;
	uint8_t bid[20];
	size_t off;
	int n, i;

	self_exe(exe, sizeof(exe));
	n = dso_elf_build_id(exe, bid);
	if (n <= 0) {
		print_message("# SKIP this program has no build id\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug %s %s/t.debug &&"
		 " objcopy --strip-all --add-gnu-debuglink=%s/t.debug %s %s/t &&"
		 " objcopy --strip-all %s %s/u", exe, dir, dir, exe, dir, exe,
		 dir);
	run_or_skip(cmd);
	assert_true(pebs_symbols__load_pid(syms, getpid()) > 0);
	assert_int_equal(pebs_symbols__resolve(syms, getpid(), ip, &sym), 0);
	assert_int_equal(pebs_srcline__new(&src), 0);
	assert_int_equal(pebs_srcline__find(src, exe, sym.dso_offset, &file0,
					    &line0), 0);
	assert_true(line0 > 0);

	/* .gnu_debuglink: t.debug beside t */
	assert_int_equal(pebs_symbols__new(&s2), 0);
	snprintf(path, sizeof(path), "%s/t", dir);
	assert_int_equal(pebs_symbols__add_mmap(s2, 42, base, 1ULL << 30, 0,
						path), 0);
	assert_int_equal(pebs_symbols__resolve(s2, 42, base + sym.dso_offset,
					       &sym), 0);
	assert_string_equal(sym.name, "pebs_test_target_fn");
	assert_int_equal(sym.offset, 3);
	assert_int_equal(pebs_srcline__find(src, path, sym.dso_offset, &file1,
					    &line1), 0);
	assert_string_equal(file1, file0);
	assert_int_equal(line1, line0);
	pebs_symbols__delete(s2);

	/* no debuglink: found by build id in $HOME/.debug */
	home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", dir, 1);
	off = (size_t)snprintf(path, sizeof(path), "%s/.debug/.build-id/%02x/",
			       dir, bid[0]);
	for (i = 1; i < n; i++)
		off += (size_t)snprintf(path + off, sizeof(path) - off, "%02x",
					bid[i]);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && cp %s/t.debug %s/debug",
		 path, dir, path);
	run_or_skip(cmd);
	assert_int_equal(pebs_symbols__new(&s2), 0);
	snprintf(path, sizeof(path), "%s/u", dir);
	assert_int_equal(pebs_symbols__set_build_id(s2, path, bid, (size_t)n),
			 0);
	assert_int_equal(pebs_symbols__add_mmap(s2, 42, base, 1ULL << 30, 0,
						path), 0);
	assert_int_equal(pebs_symbols__resolve(s2, 42, base + sym.dso_offset,
					       &sym), 0);
	assert_string_equal(sym.name, "pebs_test_target_fn");
	assert_int_equal(pebs_srcline__find(src, path, sym.dso_offset, &file1,
					    &line1), 0);
	assert_int_equal(line1, line0);
	pebs_symbols__delete(s2);
	pebs_srcline__delete(src);
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * JIT code as perf names it: an executable anonymous mapping is
 * "[JIT] tid PID" with the symbols of /tmp/perf-PID.map, at the
 * addresses the code ran at; without the file, only the address.
 */
static void test_jit_map(void **state)
{
	struct pebs_symbols *syms = *state;
	uint64_t buf[64], start = 0x7f0000001000ULL;
	struct perf_event_header *h = (void *)buf;
	const int pid = 999999;	/* above pid_max's default: no real one */
	char path[64];
	struct pebs_sym sym;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "7f0000001010 20 jit_fn\nbad line\n"
		   "7f0000001100 0 Zero::size()\n");
	fclose(f);
	t_make_mmap2(buf, pid, start, 0x1000, 0x7f0000001, PROT_READ | PROT_EXEC,
		   PERF_RECORD_MISC_USER, "//anon");
	assert_int_equal(pebs_symbols__add_record(syms, h), 0);
	assert_int_equal(pebs_symbols__resolve(syms, pid, start + 0x18, &sym),
			 0);
	assert_string_equal(sym.dso, "[JIT] tid 999999");
	assert_string_equal(sym.name, "jit_fn");
	assert_int_equal(sym.offset, 8);
	assert_int_equal(sym.dso_offset, start + 0x18);
	/* size 0: its first byte only, as perf */
	assert_int_equal(pebs_symbols__resolve(syms, pid, start + 0x100, &sym),
			 0);
	assert_string_equal(sym.name, "Zero::size()");
	assert_int_equal(pebs_symbols__resolve(syms, pid, start + 0x101, &sym),
			 -ENOENT);
	assert_int_equal(pebs_symbols__resolve(syms, pid, start + 0x40, &sym),
			 -ENOENT);
	assert_int_equal(sym.dso_offset, start + 0x40);
	unlink(path);
}

/*
 * perf's build-id cache as perf record writes it: the file under its
 * real path and build id, linked from .build-id/xx/yyyy; a file whose
 * build id is another is refused.
 */
static void test_buildid_cache(void **state)
{
	char exe[PATH_MAX], dir[] = "/tmp/test-symbols.XXXXXX", *home;
	char path[3 * PATH_MAX], sbid[41], cmd[PATH_MAX + 16];
	uint8_t bid[20];
	struct stat st;
	int n, i;

	(void)state;
	self_exe(exe, sizeof(exe));
	n = dso_elf_build_id(exe, bid);
	if (n <= 0) {
		print_message("# SKIP this program has no build id\n");
		skip();
	}
	for (i = 0; i < n; i++)
		sprintf(sbid + 2 * i, "%02x", bid[i]);
	assert_non_null(mkdtemp(dir));
	home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", dir, 1);
	assert_int_equal(pebs_buildid_cache__add(exe, bid, (size_t)n), 0);
	snprintf(path, sizeof(path), "%s/.debug%s/%s/elf", dir, exe, sbid);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/.debug/.build-id/%.2s/%s/elf", dir,
		 sbid, sbid + 2);
	assert_int_equal(stat(path, &st), 0);
	/* again: kept as it is */
	assert_int_equal(pebs_buildid_cache__add(exe, bid, (size_t)n), 0);
	bid[0] ^= 1;
	assert_int_equal(pebs_buildid_cache__add(exe, bid, (size_t)n), -ESRCH);
	assert_int_equal(pebs_buildid_cache__add(exe, bid, 0), -EINVAL);
	assert_int_equal(pebs_buildid_cache__add("rel/path", bid, (size_t)n),
			 -ENOENT);
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Source lines as perf 6.1 shows them: the answer of binutils' addr2line
 * (which perf runs), compared byte by byte over two functions of a
 * program built here from a wrapper.c that only #includes impl.c (the
 * case where addr2line names the CU's own file for the first line
 * sequence's rows that keep the initial file).
 */
static void test_srcline_as_addr2line(void **state)
{
	char dir[] = "/tmp/test-symbols.XXXXXX", cmd[8192], path[PATH_MAX];
	char want[PATH_MAX + 32], got[PATH_MAX + 32], line[PATH_MAX + 64];
	unsigned long long a[2], sz[2];
	struct pebs_srcline *src;
	int nfn = 0, compared = 0, wrapper = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf 'static inline long ha(long x) { return x * 3 + 1; }\\n' >a.h &&"
		 " printf '#include \"a.h\"\\n#include <stdlib.h>\\n"
		 "__attribute__((noinline)) long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += ha(i + s); return s; }\\n"
		 "int main(int c, char **v) { return (int)work(atol(v[1])); }\\n' >impl.c &&"
		 " printf '#include \"impl.c\"\\n' >wrap.c &&"
		 " cc -O2 -g -o w wrap.c && command -v addr2line >/dev/null",
		 dir);
	run_or_skip(cmd);
	snprintf(cmd, sizeof(cmd), "nm -S %s/w", dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long x, y;
		char t, name[64];

		if (sscanf(line, "%llx %llx %c %63s", &x, &y, &t, name) == 4 &&
		    (!strcmp(name, "work") || !strcmp(name, "main")) && nfn < 2) {
			a[nfn] = x;
			sz[nfn++] = y;
		}
	}
	pclose(f);
	assert_int_equal(nfn, 2);
	assert_int_equal(pebs_srcline__new(&src), 0);
	snprintf(path, sizeof(path), "%s/w", dir);
	for (int k = 0; k < 2; k++) {
		for (unsigned long long o = 0; o < sz[k]; o++) {
			const char *file, *b;
			unsigned int ln;
			char *p;

			snprintf(cmd, sizeof(cmd), "addr2line -e %s 0x%llx", path,
				 a[k] + o);
			f = popen(cmd, "r");
			assert_non_null(f);
			if (!fgets(line, sizeof(line), f))
				line[0] = '\0';
			pclose(f);
			line[strcspn(line, " \n")] = '\0';
			p = strrchr(line, '/');
			snprintf(want, sizeof(want), "%s", p ? p + 1 : line);
			if (strstr(want, "??") || strstr(want, ":0"))
				continue;	/* no line known */
			/* a PIE's text: file offset = address */
			assert_int_equal(pebs_srcline__find(src, path, a[k] + o,
							    &file, &ln), 0);
			b = strrchr(file, '/');
			snprintf(got, sizeof(got), "%s:%u", b ? b + 1 : file,
				 ln);
			assert_string_equal(got, want);
			compared++;
			wrapper += !strncmp(want, "wrap.c:", 7);
		}
	}
	print_message("# %d addresses as addr2line's, %d in wrap.c\n",
		      compared, wrapper);
	assert_true(compared > 10);
	pebs_srcline__delete(src);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * perf 6.1's symbol extents (symbols__fixup_end): a sizeless symbol runs
 * to the next one, the last sizeless one to the page after its own; a
 * sized one ends at its size; a first byte marked SYM_PREV_FIRST is the
 * symbol's before.
 */
static void test_symbol_extents(void **state)
{
	struct sym s[3] = {
		{ .start = 0x1000, .size = 0, .name = "a" },
		{ .start = 0x2000, .size = 0x10, .name = "b" },
		{ .start = 0x3008, .size = 0, .name = "c" },
	};

	(void)state;
	assert_null(dso_find_sym(s, 3, 0xfff));
	assert_string_equal(dso_find_sym(s, 3, 0x1fff)->name, "a");
	assert_string_equal(dso_find_sym(s, 3, 0x200f)->name, "b");
	assert_null(dso_find_sym(s, 3, 0x2010));
	assert_string_equal(dso_find_sym(s, 3, 0x4fff)->name, "c");
	assert_null(dso_find_sym(s, 3, 0x5000));
	/* perf 6.1's first PLT byte: the sizeless symbol's before it */
	s[1].order |= SYM_PREV_FIRST;
	assert_string_equal(dso_find_sym(s, 3, 0x2000)->name, "a");
	assert_string_equal(dso_find_sym(s, 3, 0x2001)->name, "b");
}

/* a test of its own pebs_symbols */
#define SYMS_TEST(f) \
	cmocka_unit_test_setup_teardown(f, t_symbols_setup, t_symbols_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SYMS_TEST(test_own_function),
		SYMS_TEST(test_libc_function),
		SYMS_TEST(test_no_process),
		SYMS_TEST(test_many_dsos),
		SYMS_TEST(test_many_procs),
		SYMS_TEST(test_overlap),
		SYMS_TEST(test_records),
		SYMS_TEST(test_build_id_mismatch),
		SYMS_TEST(test_data_objects),
		/* the parity helper's */
		SYMS_TEST(test_debug_files),
		SYMS_TEST(test_jit_map),
		cmocka_unit_test(test_buildid_cache),
		cmocka_unit_test(test_srcline_as_addr2line),
		cmocka_unit_test(test_symbol_extents),
		cmocka_unit_test(test_symfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
