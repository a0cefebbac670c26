// SPDX-License-Identifier: MIT
/*
 * srcline.c - source file and line of a code address, from the DWARF
 * line table of the object (libdw: dwarf_addrdie + dwarf_getsrc_die),
 * as perf's "Source:Line" columns show them.
 *
 * An address is given as the object's path and a file offset (what
 * pebs_symbols__resolve gives as dso and dso_offset); the PT_LOAD
 * segment holding that offset turns it into the address the line
 * table uses. For an object without DWARF the separate debug file is
 * found where perf 6.1 finds it: by .gnu_debuglink, in perf's build-id
 * cache (~/.debug/.build-id/xx/yyyy/debug) and in
 * /usr/lib/debug/.build-id/xx/yyyy.debug (Debian's -dbg and -dbgsym
 * packages). The line is the innermost inlined one's, as perf's default
 * srcline (addr2line's first answer). Each object is opened once (its
 * Dwarf kept, or the failure remembered), and each (object, offset)
 * answer is cached, so a report asks libdw once per distinct code
 * address. Bounded: at most SRC_MAX_OBJS objects are opened and
 * SRC_MAX_CACHE answers kept (the rest are looked up again, or not at
 * all past the object limit).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/symbols.h"
#include "symbols/dso.h"
#include "symbols/srcline-int.h"
#include "core/internal.h"

#define SRC_MAX_OBJS	256
#define SRC_MAX_CACHE	(1U << 20)

struct src_obj {
	char *path;
	int fd, dfd;		/* the object, its separate debug file */
	Elf *elf, *delf;
	Dwarf *dw;		/* NULL: no debug info (or not an ELF file) */
	struct a2l_syms *a2l;	/* binutils' functions, made when asked */
	bool a2l_failed;	/* ... and that failed: not again */
};

struct src_ent {
	uint64_t off;
	uint32_t obj;		/* UINT32_MAX: empty slot */
	uint32_t line;		/* 0: no line known */
	const char *file;	/* owned by the object's Dwarf */
	uint8_t a2l;		/* without a line: 0 not asked yet, 1
				   addr2line's function found, 2 none */
	const char *a2l_file;	/* then its file (NULL: "??") */
};

struct pebs_srcline {
	struct src_obj obj[SRC_MAX_OBJS];
	unsigned int nr_obj;
	struct src_ent *h;	/* open addressing */
	size_t cap, n;
};

int pebs_srcline__new(struct pebs_srcline **sp)
{
	struct pebs_srcline *s;

	if (!sp)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		free(s);
		return core_err(-ENOSYS, "srcline: libelf is too old");
	}
	*sp = s;
	return 0;
}

void pebs_srcline__delete(struct pebs_srcline *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < s->nr_obj; i++) {
		if (s->obj[i].dw)
			dwarf_end(s->obj[i].dw);
		if (s->obj[i].elf)
			elf_end(s->obj[i].elf);
		if (s->obj[i].delf)
			elf_end(s->obj[i].delf);
		if (s->obj[i].fd >= 0)
			close(s->obj[i].fd);
		if (s->obj[i].dfd >= 0)
			close(s->obj[i].dfd);
		a2l_syms_delete(s->obj[i].a2l);
		free(s->obj[i].path);
	}
	free(s->h);
	free(s);
}

/*
 * The GNU build id of @elf (its NT_GNU_BUILD_ID note) in *@id; its size,
 * or 0. (libelf's notes: libdwelf's helper would pull libdwfl's
 * decompressors into static binaries.)
 */
static size_t build_id(Elf *elf, const unsigned char **id)
{
	size_t off, name_off, desc_off;
	Elf_Scn *scn = NULL;
	GElf_Nhdr nh;
	GElf_Shdr sh;
	Elf_Data *d;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		for (off = 0; d && (off = gelf_getnote(d, off, &nh, &name_off,
						       &desc_off)) > 0;) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU",
				    4)) {
				*id = (const unsigned char *)d->d_buf +
				      desc_off;
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/* Whether @elf's build id is the @n bytes at @id (any, if @n is 0). */
static bool same_build_id(Elf *elf, const unsigned char *id, size_t n)
{
	const unsigned char *got;

	return !n || (build_id(elf, &got) == n && !memcmp(got, id, n));
}

/*
 * The DWARF of @o's separate debug file, where perf 6.1 looks for it
 * (dso_debug_candidate: .gnu_debuglink, perf's build-id cache, the
 * distribution's /usr/lib/debug/.build-id), with the object's build id.
 */
static void debug_file(struct src_obj *o)
{
	const unsigned char *id = NULL;
	char path[PATH_MAX];
	unsigned int i;
	size_t n;

	n = build_id(o->elf, &id);
	if (n > BUILD_ID_MAX)
		n = 0;
	for (i = 0; !o->dw && dso_debug_candidate(o->path, NULL, o->elf, id, n,
						  i, path, sizeof(path)); i++) {
		if (!path[0])
			continue;
		o->dfd = core_open_file(path);
		if (o->dfd < 0)
			continue;
		o->delf = elf_begin(o->dfd, ELF_C_READ_MMAP, NULL);
		if (o->delf && elf_kind(o->delf) == ELF_K_ELF &&
		    same_build_id(o->delf, id, n))
			o->dw = dwarf_begin_elf(o->delf, DWARF_C_READ, NULL);
		if (o->dw)
			break;
		elf_end(o->delf);
		o->delf = NULL;
		close(o->dfd);
		o->dfd = -1;
	}
}

/* The object @path, opened on first use; NULL past the limit. */
static struct src_obj *obj_get(struct pebs_srcline *s, const char *path,
			       uint32_t *idx)
{
	struct src_obj *o;
	unsigned int i;

	for (i = 0; i < s->nr_obj; i++) {
		if (!strcmp(s->obj[i].path, path)) {
			*idx = i;
			return &s->obj[i];
		}
	}
	if (s->nr_obj == SRC_MAX_OBJS)
		return NULL;
	o = &s->obj[s->nr_obj];
	o->path = strdup(path);
	if (!o->path)
		return NULL;
	*idx = s->nr_obj++;
	o->elf = o->delf = NULL;
	o->dw = NULL;
	o->a2l = NULL;
	o->a2l_failed = false;
	o->dfd = -1;
	o->fd = core_open_file(path);
	if (o->fd < 0)
		return o;
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF)
		return o;
	o->dw = dwarf_begin_elf(o->elf, DWARF_C_READ, NULL);
	if (!o->dw)
		debug_file(o);
	return o;
}

/* The address of file offset @off (its PT_LOAD segment), or false. */
static bool off_to_addr(Elf *elf, uint64_t off, uint64_t *addr)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
			*addr = off - ph.p_offset + ph.p_vaddr;
			return true;
		}
	}
	return false;
}

/* The index of the first row of @lines at or above @addr. */
static size_t first_row(Dwarf_Lines *lines, size_t n, Dwarf_Addr addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a = 0;

		dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a);
		if (a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The file perf 6.1 names for row @ln of @cu: its file, except where
 * binutils 2.40's addr2line (which perf runs) names another. In a DWARF 5
 * line program, the rows of the CU's first sequence that still use the
 * initial file register (1, no DW_LNS_set_file yet) are given file entry
 * 0, the CU's own name, by addr2line (measured: a wrapper.c that only
 * #includes impl.c gives "wrapper.c" there, where the table says impl.c;
 * glibc's s_sin-fma.c and dl-get-cpu-features.c show the same). The
 * first sequence is taken as the one starting at the CU's first address.
 */
static const char *perf_file(Dwarf_Die *cu, Dwarf_Line *ln)
{
	Dwarf_Addr base, start, end;
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t idx, n, i, first;
	bool eos = false;

	if (dwarf_line_file(ln, &files, &idx) || idx != 1 ||
	    dwarf_ranges(cu, 0, &base, &start, &end) <= 0 ||
	    dwarf_getsrclines(cu, &lines, &n))
		return dwarf_linesrc(ln, NULL, NULL);
	(void)end;
	first = first_row(lines, n, start);
	for (i = first; i < n && !eos; i++) {
		Dwarf_Line *r = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;

		if (dwarf_lineaddr(r, &a) || (i == first && a != start) ||
		    dwarf_line_file(r, &files, &idx) || idx != 1)
			break;
		if (r == ln)
			return dwarf_filesrc(files, 0, NULL, NULL);
		dwarf_lineendsequence(r, &eos);
	}
	return dwarf_linesrc(ln, NULL, NULL);
}

static void lookup(struct src_obj *o, uint64_t off, struct src_ent *e)
{
	Dwarf_Die cu;
	Dwarf_Line *ln;
	uint64_t addr;
	int line;

	e->file = NULL;
	e->line = 0;
	e->a2l = 0;
	if (!o->dw || !off_to_addr(o->elf, off, &addr) ||
	    !dwarf_addrdie(o->dw, addr, &cu))
		return;
	ln = dwarf_getsrc_die(&cu, addr);
	/* line 0 (code of no source line) is "file:0", as perf prints it */
	if (!ln || dwarf_lineno(ln, &line) || line < 0)
		return;
	e->file = perf_file(&cu, ln);
	e->line = e->file ? (uint32_t)line : 0;
}

static size_t slot_of(uint64_t off, uint32_t obj, size_t cap)
{
	uint64_t x = (off ^ ((uint64_t)obj << 48)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(x >> 17) & (cap - 1);
}

static int grow(struct pebs_srcline *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 256, i, j;
	struct src_ent *nh = malloc(ncap * sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (j = 0; j < ncap; j++)
		nh[j].obj = UINT32_MAX;
	for (i = 0; i < s->cap; i++) {
		if (s->h[i].obj == UINT32_MAX)
			continue;
		j = slot_of(s->h[i].off, s->h[i].obj, ncap);
		while (nh[j].obj != UINT32_MAX)
			j = (j + 1) & (ncap - 1);
		nh[j] = s->h[i];
	}
	free(s->h);
	s->h = nh;
	s->cap = ncap;
	return 0;
}

/* @offset's entry of object @idx (@spare when the cache is full), or
   NULL when out of memory */
static struct src_ent *entry(struct pebs_srcline *s, struct src_obj *o,
			     uint32_t idx, uint64_t offset,
			     struct src_ent *spare)
{
	struct src_ent *slot = NULL;
	size_t i;

	if (s->n < SRC_MAX_CACHE && (s->n + 1) * 4 > s->cap * 3 && grow(s))
		return NULL;
	if (s->cap) {
		for (i = slot_of(offset, idx, s->cap);
		     s->h[i].obj != UINT32_MAX; i = (i + 1) & (s->cap - 1)) {
			if (s->h[i].obj == idx && s->h[i].off == offset)
				return &s->h[i];
		}
		if (s->n < SRC_MAX_CACHE) {
			slot = &s->h[i];
			s->n++;
			slot->obj = idx;
			slot->off = offset;
			lookup(o, offset, slot);
			return slot;
		}
	}
	lookup(o, offset, spare);	/* the cache is full: uncached */
	return spare;
}

/*
 * The cache entry of @offset in object @path (opened if new; with @dw,
 * only one with DWARF) into *@ep, its outputs cleared: 0, -EINVAL,
 * -ENOENT (no such object), -ENOMEM. *@op: the object.
 */
static int find(struct pebs_srcline *s, const char *path, uint64_t offset,
		const char **file, unsigned int *line, bool dw,
		struct src_ent *spare, struct src_obj **op,
		struct src_ent **ep)
{
	uint32_t idx;

	if (!s || !path || !file || !line)
		return -EINVAL;
	*file = NULL;
	*line = 0;
	*op = obj_get(s, path, &idx);
	if (!*op || !(*op)->elf || (dw && !(*op)->dw))
		return -ENOENT;
	*ep = entry(s, *op, idx, offset, spare);
	return *ep ? 0 : -ENOMEM;
}

int pebs_srcline__find(struct pebs_srcline *s, const char *path,
		       uint64_t offset, const char **file, unsigned int *line)
{
	struct src_ent spare, *e;
	struct src_obj *o;
	int err = find(s, path, offset, file, line, true, &spare, &o, &e);

	if (err)
		return err;
	if (!e->file)
		return -ENOENT;
	*file = e->file;
	*line = e->line;
	return 0;
}

/* binutils' answer without a line (srcline-syms.c), into @e */
static void a2l_lookup(struct src_obj *o, uint64_t offset, struct src_ent *e)
{
	uint64_t addr;

	e->a2l = 2;
	if (!o->a2l && !o->a2l_failed &&
	    a2l_syms_new(o->delf ? o->delf : o->elf, &o->a2l))
		o->a2l_failed = true;
	if (o->a2l && off_to_addr(o->elf, offset, &addr) &&
	    a2l_syms_find(o->a2l, addr, &e->a2l_file))
		e->a2l = 1;
}

int pebs_srcline__addr2line(struct pebs_srcline *s, const char *path,
			    uint64_t offset, const char **file,
			    unsigned int *line)
{
	struct src_ent spare, *e;
	struct src_obj *o;
	int err = find(s, path, offset, file, line, false, &spare, &o, &e);

	if (err)
		return err;
	if (e->file) {
		*file = e->file;
		*line = e->line;
		return 0;
	}
	if (!e->a2l)
		a2l_lookup(o, offset, e);
	if (e->a2l != 1)
		return -ENOENT;
	*file = e->a2l_file ? e->a2l_file : "??";
	return 0;
}

/* perf's map__rip_2objdump of file offset @off: the virtual address in
   an executable (ET_EXEC: perf adds the text offset), else the offset */
static uint64_t objdump_addr(struct pebs_srcline *s, const char *path,
			     uint64_t off)
{
	struct src_obj *o;
	GElf_Ehdr eh;
	uint64_t addr;
	uint32_t idx;

	o = obj_get(s, path, &idx);
	if (!o || !o->elf || !gelf_getehdr(o->elf, &eh) ||
	    eh.e_type != ET_EXEC || !off_to_addr(o->elf, off, &addr))
		return off;
	return addr;
}

int pebs_srcline__perf_str(struct pebs_srcline *s, const struct pebs_sym *sym,
			   uint64_t ip, bool kernel, char *buf, size_t len)
{
	const char *file, *base;
	unsigned int line;
	int r;

	if (!s || !sym || !buf || !len)
		return -EINVAL;
	if (!sym->dso) {
		snprintf(buf, len, "??:0");
		return 0;
	}
	r = pebs_srcline__addr2line(s, sym->dso, sym->dso_offset, &file, &line);
	if (r == -ENOMEM)
		return r;
	if (!r) {
		base = strrchr(file, '/');
		snprintf(buf, len, "%s:%u", base ? base + 1 : file, line);
		return 1;
	}
	if (sym->name)
		snprintf(buf, len, "%s+%" PRIu64, sym->name, sym->offset);
	else
		snprintf(buf, len, "%s[%" PRIx64 "]", core_base_name(sym->dso),
			 kernel ? ip : objdump_addr(s, sym->dso,
						    sym->dso_offset));
	return 0;
}
