/* SPDX-License-Identifier: MIT */
/*
 * srcline-int.h - binutils addr2line's answer from the symbol table
 * (lib/symbols/srcline-syms.c), for lib/symbols/srcline.c; not
 * installed.
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

#endif
