/* SPDX-License-Identifier: MIT */
/*
 * dso.h - files and their symbols (lib/symbols/dso.c), shared by lib/symbols/symbols.c;
 * not installed.
 */
#ifndef PEBSSHIM_DSO_H
#define PEBSSHIM_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include <libelf.h>

#define BUILD_ID_MAX		20

struct sym {
	uint64_t start;
	uint64_t size;		/* 0: up to the next symbol */
	const char *name;
	int rank;		/* among aliases the lowest is shown */
	uint32_t order;		/* then the first in the table */
};

/*
 * Set in sym.order once loaded (sorting is over): this symbol's first
 * byte is the sizeless symbol's before it, as perf 6.1 answers there
 * (the first PLT entry after _init).
 */
#define SYM_PREV_FIRST		(1u << 31)

struct seg {
	uint64_t offset, filesz, vaddr;
};

struct dso {
	char *path;
	bool loaded;		/* tried: syms valid (maybe empty) */
	bool is_file;		/* a path that can be opened */
	bool jit;		/* "[JIT] tid PID": /tmp/perf-PID.map */
	struct sym *syms;
	size_t nr_syms;
	char *names;		/* all symbol names, NUL-separated */
	uint64_t syms_end;	/* kallsyms read only up to here (0: all) */
	char *pnames;		/* the synthesized "name@plt" ones */
	struct seg *segs;
	size_t nr_segs;
	struct sym *dsyms;	/* data objects (STT_OBJECT) */
	size_t nr_dsyms;
	char *dnames;
	uint8_t want_bid[BUILD_ID_MAX];
	size_t want_bid_len;	/* 0: accept any local file */
};

/* pebs_dso_free - free what @d holds (not @d). */
void pebs_dso_free(struct dso *d);

/*
 * pebs_dso_load - load @d's symbols once: from the file itself when its
 * build id is the wanted one (or none is wanted), else from a copy with
 * that build id (~/.debug/.build-id, /usr/lib/debug/.build-id); the
 * file's .symtab, else its debug file's, else .dynsym; C++ and Rust
 * names demangled. A file that cannot be read or matched ends with no
 * symbols. Returns 0 or -ENOMEM.
 */
int pebs_dso_load(struct dso *d);

/*
 * pebs_dso_jit_name - whether an executable mapping of @filename in
 * process @pid is JIT code for perf (map__new: anonymous memory, the
 * heap, a stack, SysV shared memory): then its name "[JIT] tid PID" in
 * @buf, whose symbols pebs_dso_load reads from /tmp/perf-PID.map, and
 * whose addresses are the symbols' (map with pgoff = start).
 */
bool pebs_dso_jit_name(const char *filename, int pid, char *buf,
		       size_t len);

/* ---- where files are found (lib/symbols/dso-find.c) ---- */

/*
 * pebs_elf_open - open @path as ELF into *@elfp and *@fdp; with
 * @want_len, only if its build id is @want. The build id found goes to
 * @bid / *@bid_len. False if not (nothing left open).
 */
bool pebs_elf_open(const char *path, const uint8_t *want, size_t want_len,
		   Elf **elfp, int *fdp, uint8_t *bid, size_t *bid_len);

/*
 * pebs_dso_open - pebs_elf_open of the file with @d's recorded build id:
 * the file itself, else perf's build-id cache, else the distribution's
 * debug file. A name that is no file ([vdso]) is found in the cache only.
 */
bool pebs_dso_open(const struct dso *d, Elf **elfp, int *fdp, uint8_t *bid,
		   size_t *bid_len);

/* pebs_elf_section - the section of @elf named @name, or NULL. */
Elf_Scn *pebs_elf_section(Elf *elf, const char *name, GElf_Shdr *sh);

/*
 * pebs_debug_candidate - the @i-th place (from 0) where perf 6.1 looks
 * for the separate debug file of @path (its ELF @elf, build id @bid of
 * @len bytes; 0: none), into @buf: the .gnu_debuglink name as is, beside
 * @path, in its .debug/ and under /usr/lib/debug/<dir>/ (0-3), perf's
 * cache ~/.debug/.build-id/xx/yyyy/debug (4), the distribution's
 * /usr/lib/debug/.build-id/xx/yyyy.debug (5). @buf is "" where that
 * place does not apply. Returns false past the last.
 */
bool pebs_debug_candidate(const char *path, Elf *elf, const uint8_t *bid,
			  size_t len, unsigned int i, char *buf, size_t size);

/* pebs_dso_find_sym - the symbol covering @addr, or NULL. */
struct sym *pebs_dso_find_sym(struct sym *s, size_t nr, uint64_t addr);

/* pebs_dso_syms_sort - sort @s by address, aliases at one address kept
   once (perf's choice among them); *@nr shrinks accordingly */
void pebs_dso_syms_sort(struct sym *s, size_t *nr);

/*
 * pebs_dso_load_kallsyms - the text symbols of /proc/kallsyms into @k.
 * Returns their number, -EACCES (no addresses shown), or -errno.
 */
int pebs_dso_load_kallsyms(struct dso *k);
/*
 * pebs_dso_load_kallsyms_file - the same from a kallsyms file @path (a
 * copy in perf's build-id cache), its symbols moved by @text (the
 * recorded _text; 0: none) less the file's _text.
 */
int pebs_dso_load_kallsyms_file(struct dso *k, const char *path,
				uint64_t text);

/* pebs_dso_file_to_vaddr - file offset -> link-time address. */
bool pebs_dso_file_to_vaddr(const struct dso *d, uint64_t off, uint64_t *va);

/*
 * pebs_host_kernel_build_id - the running kernel's build id from
 * /sys/kernel/notes into @bid. Returns its size, or -errno (-ENOENT:
 * no build id note).
 */
int pebs_host_kernel_build_id(uint8_t bid[BUILD_ID_MAX]);

/* pebs_host_kernel_text - this boot's _text (/proc/kallsyms), or 0. */
uint64_t pebs_host_kernel_text(void);

/*
 * pebs_buildid_dir - perf's build-id cache directory ($HOME/.debug) into
 * @buf (lib/symbols/buildid-cache.c). Returns 0, -ENOENT (no $HOME) or
 * -ENAMETOOLONG.
 */
int pebs_buildid_dir(char *buf, size_t size);

/*
 * pebs_buildid_cache_entry - the cache's file for @name (a path,
 * "[vdso]", "[kernel.kallsyms]") of build id @bid (@len bytes) into
 * @buf: $HOME/.debug/<name>/<build id>/@leaf, as perf lays it out
 * (lib/symbols/buildid-cache.c). Returns 0, -ENOENT (no $HOME) or -ENAMETOOLONG.
 */
int pebs_buildid_cache_entry(char *buf, size_t size, const char *name,
			     const uint8_t *bid, size_t len, const char *leaf);

#endif /* PEBSSHIM_DSO_H */
