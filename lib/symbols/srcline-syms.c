// SPDX-License-Identifier: MIT
/*
 * srcline-syms.c - what binutils 2.40's addr2line answers for code the
 * DWARF gives no line (perf 6.1 runs addr2line for its srcline and
 * srcfile keys and shows its answer): the "function" of the address
 * from the symbol table (bfd/elf.c: elf_find_function) and the file
 * name it pairs with it, printed "FILE:?" ("??:?" without one), which
 * perf reads as FILE:0; where no symbol is found addr2line says "??:0"
 * and perf falls back to its own symbol.
 *
 * binutils reads .symtab, or .dynsym when there is none, in table
 * order. The address's section is the first allocated one holding it;
 * its function is the symbol of that section (neither an object, a
 * section, a file nor TLS; not a hidden local untyped one of size 0)
 * with the greatest start at or below the address, the larger size
 * winning a tie, the first an equal one; its size does not bound it.
 * Its file is the last STT_FILE symbol before it in the table, for a
 * local symbol, or for a global one when no STT_FILE came after a
 * symbol (ld puts the local symbols, file by file, before the globals:
 * a global gets no file).
 *
 * Each object's sections and functions are sorted once (functions by
 * section, start, size descending, table order), so an address costs
 * binary searches.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/srcline-int.h"
#include "core/internal.h"

struct a2l_fn {
	uint64_t start, size;	/* size 0 counts as 1, as binutils' */
	uint32_t shndx, idx;	/* its section; table order */
	const char *file;	/* the STT_FILE binutils pairs with it */
};

struct a2l_sec {
	uint64_t addr, size;
	uint32_t shndx;
};

static int by_addr(const void *a, const void *b)
{
	const struct a2l_sec *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->shndx < y->shndx ? -1 : x->shndx > y->shndx;
}

struct a2l_syms {
	struct a2l_fn *fn;
	size_t nr_fn;
	struct a2l_sec *sec;	/* allocated sections, in order */
	size_t nr_sec;
};

static int by_place(const void *a, const void *b)
{
	const struct a2l_fn *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->size != y->size)		/* the larger first */
		return x->size > y->size ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* the symbol table binutils reads: .symtab, else .dynsym */
static Elf_Scn *sym_table(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB && sh->sh_size)
			return scn;
		if (sh->sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = *sh;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

static int read_sections(Elf *elf, struct a2l_syms *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (core_grow(&t->sec, &cap, t->nr_sec + 1, sizeof(*t->sec)))
			return -ENOMEM;
		t->sec[t->nr_sec++] = (struct a2l_sec){ sh.sh_addr, sh.sh_size,
						       (uint32_t)elf_ndxscn(scn) };
	}
	/* binutils takes the first holding an address: sections do not
	   overlap but in hostile files, where the lowest start wins */
	qsort(t->sec, t->nr_sec, sizeof(*t->sec), by_addr);
	return 0;
}

/* binutils' _bfd_elf_maybe_function_sym: whether @s may be a function */
static bool maybe_function(const GElf_Sym *s)
{
	unsigned int type = GELF_ST_TYPE(s->st_info);

	if (type == STT_OBJECT || type == STT_SECTION || type == STT_FILE ||
	    type == STT_TLS || s->st_shndx == SHN_UNDEF ||
	    s->st_shndx >= SHN_LORESERVE)
		return false;
	return s->st_size || GELF_ST_BIND(s->st_info) != STB_LOCAL ||
	       type != STT_NOTYPE ||
	       GELF_ST_VISIBILITY(s->st_other) != STV_HIDDEN;
}

static int read_functions(Elf *elf, struct a2l_syms *t)
{
	enum { NOTHING, SYMBOL, FILE_AFTER } state = NOTHING;
	const char *file = NULL;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym s;
	size_t cap = 0, i, n;

	scn = sym_table(elf, &sh);
	if (!scn || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &s))
			break;
		if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
			file = elf_strptr(elf, sh.sh_link, s.st_name);
			if (state == SYMBOL)
				state = FILE_AFTER;
			continue;
		}
		if (maybe_function(&s)) {
			if (core_grow(&t->fn, &cap, t->nr_fn + 1,
				      sizeof(*t->fn)))
				return -ENOMEM;
			t->fn[t->nr_fn++] = (struct a2l_fn){
				.start = s.st_value,
				.size = s.st_size ? s.st_size : 1,
				.shndx = s.st_shndx, .idx = (uint32_t)i,
				.file = GELF_ST_BIND(s.st_info) == STB_LOCAL ||
					state != FILE_AFTER ? file : NULL,
			};
		}
		if (state == NOTHING)
			state = SYMBOL;
	}
	qsort(t->fn, t->nr_fn, sizeof(*t->fn), by_place);
	return 0;
}

int a2l_syms_new(Elf *elf, struct a2l_syms **tp)
{
	struct a2l_syms *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	if (read_sections(elf, t) || read_functions(elf, t)) {
		a2l_syms_delete(t);
		return -ENOMEM;
	}
	*tp = t;
	return 0;
}

void a2l_syms_delete(struct a2l_syms *t)
{
	if (!t)
		return;
	free(t->fn);
	free(t->sec);
	free(t);
}

/* the index past the last of @t's functions ordered at or before
   (@shndx, @start): of section @shndx from @start on when @strict */
static size_t upper(const struct a2l_syms *t, uint32_t shndx, uint64_t start,
		    bool strict)
{
	size_t lo = 0, hi = t->nr_fn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct a2l_fn *f = &t->fn[mid];

		if (f->shndx < shndx || (f->shndx == shndx &&
		    (strict ? f->start < start : f->start <= start)))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool a2l_syms_find(const struct a2l_syms *t, uint64_t addr,
		   const char **file)
{
	const struct a2l_sec *sec;
	size_t lo = 0, hi = t->nr_sec, i;

	/* the section holding addr (sorted by address) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sec[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	sec = &t->sec[lo - 1];
	if (addr - sec->addr >= sec->size)
		return false;
	/* the last function starting at or below addr; of those starting
	   there, the first (the largest, then the first in the table) */
	i = upper(t, sec->shndx, addr, false);
	if (!i || t->fn[i - 1].shndx != sec->shndx)
		return false;
	i = upper(t, sec->shndx, t->fn[i - 1].start, true);
	*file = t->fn[i].file;
	return true;
}
