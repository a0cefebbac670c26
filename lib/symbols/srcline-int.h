/* SPDX-License-Identifier: MIT */
/*
 * srcline-int.h - binutils addr2line's answer from the symbol table
 * (lib/symbols/srcline-syms.c), for lib/symbols/srcline.c, and the
 * address perf's srcline prints without one (lib/session/session.c);
 * not installed.
 */
#ifndef PEBSSHIM_SRCLINE_INT_H
#define PEBSSHIM_SRCLINE_INT_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

struct a2l_syms;

/* a2l_syms_new - @elf's sections and function symbols as binutils reads
   them (@elf must stay open while they are used): 0 or -ENOMEM */
int a2l_syms_new(Elf *elf, struct a2l_syms **tp);
void a2l_syms_delete(struct a2l_syms *t);

/*
 * a2l_syms_find - whether binutils' elf_find_function finds a function
 * for address @addr (a virtual address of the file); *@file then is the
 * file name it pairs with it, or NULL (addr2line's "??").
 */
bool a2l_syms_find(const struct a2l_syms *t, uint64_t addr,
		   const char **file);

struct pebs_srcline;

/*
 * srcline_objdump_addr - perf's map__rip_2objdump of file offset @off of
 * @path, as its srcline fallback "dso[ADDR]" prints it: the virtual
 * address in an executable (ET_EXEC: perf adds the text offset), the
 * offset itself in other objects or where @path is not an ELF file.
 */
uint64_t srcline_objdump_addr(struct pebs_srcline *s, const char *path,
			      uint64_t off);

#endif
