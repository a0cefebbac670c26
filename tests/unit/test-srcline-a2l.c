// SPDX-License-Identifier: MIT
/*
 * test-srcline-a2l.c - pebs_srcline__addr2line against binutils'
 * addr2line itself (what perf 6.1 runs for its srcline key) on copies
 * without DWARF of this program (its .debug_* sections removed: .symtab
 * kept, local functions pair with the STT_FILE before them, globals
 * with none) and of a shared object built here without a build id and
 * stripped (.dynsym only: its exported functions, whatever their sizes,
 * the static one between them counted in the one before), at the start
 * and the middle of every function and just past its end; each answer
 * read as perf reads addr2line's ("??:0" nothing, else the file's base
 * name and line). The copies lose their build id and debug link, so no
 * separate debug file is found. Also this program's own DWARF line,
 * and a file that is missing.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
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

#define MAX_ADDRS	600

static const int here_line = __LINE__ + 1;
static __attribute__((noinline)) int here(volatile int *x)
{
	return *x + 1;
}

struct prog {
	char exe[4096];			/* the file */
	uint64_t addr[MAX_ADDRS];	/* virtual addresses */
	size_t nr;
	GElf_Phdr load[8];		/* PT_LOAD, to file offsets */
	size_t nr_load;
};

/* the function addresses of @p->exe (start, middle, just past the
   end) from its .symtab, else .dynsym, and its PT_LOAD headers */
static void read_prog(struct prog *p)
{
	Elf_Scn *dyn = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	size_t i, n;
	Elf *elf;
	int fd;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open(p->exe, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (i = 0; i < n && p->nr_load < 8; i++)
		if (gelf_getphdr(elf, (int)i, &p->load[p->nr_load]) &&
		    p->load[p->nr_load].p_type == PT_LOAD)
			p->nr_load++;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			break;
		if (sh.sh_type == SHT_DYNSYM)
			dyn = scn;
	}
	if (!scn)
		scn = dyn;
	assert_non_null(scn);
	assert_non_null(gelf_getshdr(scn, &sh));
	d = elf_getdata(scn, NULL);
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n && p->nr + 3 <= MAX_ADDRS; i++) {
		if (!gelf_getsym(d, (int)i, &s) ||
		    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		p->addr[p->nr++] = s.st_value;
		p->addr[p->nr++] = s.st_value + s.st_size / 2;
		p->addr[p->nr++] = s.st_value + s.st_size + 1;
	}
	elf_end(elf);
	close(fd);
	assert_true(p->nr >= 9);
}

static bool to_off(const struct prog *p, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < p->nr_load; i++)
		if (addr >= p->load[i].p_vaddr &&
		    addr - p->load[i].p_vaddr < p->load[i].p_filesz) {
			*off = addr - p->load[i].p_vaddr + p->load[i].p_offset;
			return true;
		}
	return false;
}

/* addr2line's answers for every address of @p in @file, one per line */
static char **addr2line(const struct prog *p, const char *file)
{
	char in[] = "/tmp/a2l-in.XXXXXX", cmd[8300], line[4096];
	char **out = calloc(p->nr, sizeof(*out));
	FILE *f;
	size_t i;
	int fd;

	assert_non_null(out);
	fd = mkstemp(in);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	for (i = 0; i < p->nr; i++)
		fprintf(f, "%#llx\n", (unsigned long long)p->addr[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' < '%s'", file, in);
	f = popen(cmd, "r");
	assert_non_null(f);
	for (i = 0; i < p->nr && fgets(line, sizeof(line), f); i++) {
		line[strcspn(line, "\n")] = '\0';
		out[i] = strdup(line);
	}
	pclose(f);
	unlink(in);
	assert_int_equal(i, p->nr);
	return out;
}

/* perf's reading of an addr2line line (srcline.c filename_split and
   srcline_from_fileline): NULL for "??:0", else "base:line" */
static const char *as_perf(const char *a2l, char *buf, size_t len)
{
	const char *colon = strrchr(a2l, ':'), *base;
	char file[4096];

	if (!strcmp(a2l, "??:0") || !colon)
		return NULL;
	snprintf(file, sizeof(file), "%.*s", (int)(colon - a2l), a2l);
	base = strrchr(file, '/');
	snprintf(buf, len, "%s:%lu", base ? base + 1 : file,
		 strtoul(colon + 1, NULL, 0));
	return buf;
}

/* every address of @p in a copy of it made by `objcopy @how` (without
   its build id and debug link); at least @min found by addr2line, and
   @min_file of those with a file name */
static void compare(const struct prog *p, const char *how, size_t min,
		    size_t min_file)
{
	char copy[] = "/tmp/a2l-copy.XXXXXX", cmd[8400], want[4200];
	char got[4200];
	struct pebs_srcline *s;
	const char *file, *w;
	unsigned int line;
	size_t i, found = 0, none = 0, named = 0;
	uint64_t off;
	char **a2l;
	int fd, ret;

	fd = mkstemp(copy);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "objcopy %s --remove-section="
		 ".note.gnu.build-id --remove-section=.gnu_debuglink '%s' '%s'",
		 how, p->exe, copy);
	assert_int_equal(system(cmd), 0);
	a2l = addr2line(p, copy);
	assert_int_equal(pebs_srcline__new(&s), 0);
	for (i = 0; i < p->nr; i++) {
		if (!to_off(p, p->addr[i], &off))
			continue;
		ret = pebs_srcline__addr2line(s, copy, off, &file, &line);
		w = as_perf(a2l[i], want, sizeof(want));
		if (ret == 0)
			snprintf(got, sizeof(got), "%s:%u", file, line);
		if (!w ? ret != -ENOENT : ret != 0 || strcmp(got, w)) {
			print_error("%s %#llx: addr2line '%s', ours %s\n", how,
				    (unsigned long long)p->addr[i], a2l[i],
				    ret ? "nothing" : got);
			fail();
		}
		found += w != NULL;
		none += w == NULL;
		named += w && strncmp(w, "??:", 3);
	}
	print_message("# %s of %s: %zu addresses equal (%zu with a function, "
		      "%zu of them with a file, %zu without)\n", how, p->exe,
		      found + none, found, named, none);
	assert_true(found >= min);
	assert_true(named >= min_file);
	for (i = 0; i < p->nr; i++)
		free(a2l[i]);
	free(a2l);
	pebs_srcline__delete(s);
	unlink(copy);
}

/* a shared object of exported functions and a static one between
   them, without DWARF or a build id, stripped to its .dynsym */
static const char dso_src[] =
	"int g1(int x) { return x * 3 + 1; }\n"
	"static int __attribute__((noinline)) s1(int x) { return g1(x) ^ 5; }\n"
	"int g2(int x) { return s1(x) + 7; }\n"
	"int g3(int x) { return g2(x) * 5 + g1(x); }\n";

static int build_dso(char *path, size_t len)
{
	char src[] = "/tmp/a2l-src.XXXXXX", cmd[8400];
	FILE *f;
	int fd = mkstemp(src);

	if (fd < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fputs(dso_src, f);
	fclose(f);
	snprintf(path, len, "%s.so", src);
	snprintf(cmd, sizeof(cmd), "gcc -x c -O1 -g0 -shared -fPIC "
		 "-Wl,--build-id=none -o '%s' '%s' && strip --strip-all '%s'",
		 path, src, path);
	fd = system(cmd);
	unlink(src);
	return fd ? -1 : 0;
}

/* this program and the shared object */
static int setup(void **state)
{
	struct prog *p;
	ssize_t len;

	if (system("addr2line --version >/dev/null 2>&1 && "
		   "objcopy --version >/dev/null 2>&1 && "
		   "gcc --version >/dev/null 2>&1")) {
		print_message("# SKIP no binutils (addr2line, objcopy) or gcc "
			      "to compare with\n");
		*state = NULL;
		return 0;
	}
	p = calloc(2, sizeof(*p));
	if (!p)
		return -1;
	len = readlink("/proc/self/exe", p[0].exe, sizeof(p[0].exe) - 1);
	if (len <= 0 || build_dso(p[1].exe, sizeof(p[1].exe)))
		return -1;
	p[0].exe[len] = '\0';
	read_prog(&p[0]);
	read_prog(&p[1]);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct prog *p = *state;

	if (p)
		unlink(p[1].exe);
	free(p);
	return 0;
}

static void test_no_dwarf(void **state)
{
	if (!*state)
		skip();
	compare(*state, "--wildcard --remove-section='.debug_*'", 100, 10);
}

static void test_dynsym(void **state)
{
	struct prog *p = *state;

	if (!p)
		skip();
	compare(&p[1], "--strip-all", 6, 0);
}

/* with DWARF: the line of here(); a missing file: nothing */
static void test_dwarf(void **state)
{
	struct prog *p = *state;
	struct pebs_srcline *s;
	const char *file;
	unsigned int line;
	volatile int x = 1;
	uint64_t off = 0;
	Dl_info info;

	if (!p)
		skip();
	assert_int_equal(here(&x), 2);
	assert_true(dladdr((void *)here, &info) != 0);
	assert_true(to_off(p, (uint64_t)((uintptr_t)here -
					 (uintptr_t)info.dli_fbase), &off));
	assert_int_equal(pebs_srcline__new(&s), 0);
	assert_int_equal(pebs_srcline__addr2line(s, p->exe, off, &file,
						 &line), 0);
	assert_non_null(strstr(file, "test-srcline-a2l.c"));
	assert_in_range(line, here_line, here_line + 3);
	assert_int_equal(pebs_srcline__addr2line(s, "/nonexistent/x", off,
						 &file, &line), -ENOENT);
	assert_int_equal(pebs_srcline__addr2line(s, NULL, off, &file, &line),
			 -EINVAL);
	pebs_srcline__delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_dwarf),
		cmocka_unit_test(test_dynsym),
		cmocka_unit_test(test_dwarf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
