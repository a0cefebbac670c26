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
/* the kernel's map and dso, as perf names it */
#define KERNEL_NAME		"[kernel.kallsyms]"

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
	uint32_t order;		/* made after this many (perf's dso objects
				   come in this order: build ids, then maps) */
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
	const char *symfs;	/* pebs_symbols__set_symfs's directory, or
				   NULL: files are looked for under it */
	bool host_vdso;		/* [vdso] of this host's kernel: when no
				   cached copy is found, this process's
				   own image (perf report's) */
	struct retired *retired;	/* names of tables replaced */
};

/*
 * dso_file - where @d's file (or @path, one of its debug files' places)
 * is looked for: under its symfs (perf's --symfs), else itself; in @buf
 * of @size. Returns the name, or NULL when too long.
 */
const char *dso_file(const struct dso *d, const char *path, char *buf,
		     size_t size);

/* dso_free - free what @d holds (not @d). */
void dso_free(struct dso *d);

/*
 * dso_retire - keep @names (a names buffer of @d's that a reload
 * replaces: NULL is allowed) until dso_free: the rows and frames made
 * before the reload still point into it (kallsyms read in part, then in
 * full; a table dropped for another build id).
 */
void dso_retire(struct dso *d, char *names);

/*
 * dso_load - load @d's symbols once: from the file itself when its
 * build id is the wanted one (or none is wanted), else from a copy with
 * that build id (~/.debug/.build-id, /usr/lib/debug/.build-id); the
 * file's .symtab, else its debug file's, else .dynsym; C++ and Rust
 * names demangled. A file that cannot be read or matched ends with no
 * symbols. Returns 0 or -ENOMEM.
 */
int dso_load(struct dso *d);

/*
 * dso_anon_name - whether a mapping of @filename is memory without a
 * file for perf (map__new's is_anon_memory and is_no_dso_memory:
 * "//anon", "/dev/zero", "/anon_hugepage", a stack, SysV shared memory,
 * the heap): its addresses are their own offsets (map__map_ip is the
 * identity), where a file's are ip - start + pgoff.
 */
bool dso_anon_name(const char *filename);

/*
 * dso_jit_name - whether an executable mapping of @filename in
 * process @pid is JIT code for perf (map__new: anonymous memory, the
 * heap, a stack, SysV shared memory): then its name "[JIT] tid PID" in
 * @buf, whose symbols dso_load reads from /tmp/perf-PID.map, and
 * whose addresses are the symbols' (map with pgoff = start).
 */
bool dso_jit_name(const char *filename, int pid, char *buf,
		  size_t len);

/*
 * dso_jit_map - whether @name is a JIT dso's ("[JIT] tid PID", perf's
 * short name): then its map file /tmp/perf-PID.map (perf's long name,
 * the one perf script prints) in @path.
 */
bool dso_jit_map(const char *name, char *path, size_t len);

/* ---- where files are found (lib/symbols/dso-find.c) ---- */

/*
 * dso_elf_open - open @path as ELF into *@elfp and *@fdp; with
 * @want_len, only if its build id is @want. The build id found goes to
 * @bid / *@bid_len. False if not (nothing left open).
 */
bool dso_elf_open(const char *path, const uint8_t *want, size_t want_len,
		  Elf **elfp, int *fdp, uint8_t *bid, size_t *bid_len);

/*
 * dso_open - dso_elf_open of the file with @d's recorded build id:
 * the file itself, else perf's build-id cache, else the distribution's
 * debug file. A name that is no file ([vdso]) is found in the cache, or,
 * with host_vdso, is this process's vdso image.
 */
bool dso_open(const struct dso *d, Elf **elfp, int *fdp, uint8_t *bid,
	      size_t *bid_len);

/* dso_elf_section - the section of @elf named @name, or NULL. */
Elf_Scn *dso_elf_section(Elf *elf, const char *name, GElf_Shdr *sh);

/*
 * dso_debug_candidate - the @i-th place (from 0) where perf 6.1 looks
 * for the separate debug file of @path (its ELF @elf, build id @bid of
 * @len bytes; 0: none), into @buf: the .gnu_debuglink name as is, beside
 * @path, in its .debug/ and under /usr/lib/debug/<dir>/ (0-3), perf's
 * cache ~/.debug/.build-id/xx/yyyy/debug (4), the distribution's
 * /usr/lib/debug/.build-id/xx/yyyy.debug (5). Under a @symfs (NULL:
 * none; @path is then the file's place there), perf's cache is
 * <symfs>/.debug and the distribution's under the symfs. @buf is ""
 * where that place does not apply. Returns false past the last.
 */
bool dso_debug_candidate(const char *path, const char *symfs, Elf *elf,
			 const uint8_t *bid, size_t len, unsigned int i,
			 char *buf, size_t size);

/* dso_find_sym - the symbol covering @addr, or NULL. */
struct sym *dso_find_sym(struct sym *s, size_t nr, uint64_t addr);

/* dso_syms_sort - sort @s by address, aliases at one address kept
   once (perf's choice among them); *@nr shrinks accordingly */
void dso_syms_sort(struct sym *s, size_t *nr);

/*
 * dso_load_kallsyms - the text symbols of /proc/kallsyms into @k.
 * Returns their number, -EACCES (no addresses shown), or -errno.
 */
int dso_load_kallsyms(struct dso *k);
/*
 * dso_load_kallsyms_file - the same from a kallsyms file @path (a
 * copy in perf's build-id cache), its symbols moved by @text (the
 * recorded _text; 0: none) less the file's _text.
 */
int dso_load_kallsyms_file(struct dso *k, const char *path,
			   uint64_t text);

/* dso_file_to_vaddr - file offset -> link-time address. */
bool dso_file_to_vaddr(const struct dso *d, uint64_t off, uint64_t *va);

/*
 * kallsyms_host_build_id - the running kernel's build id from
 * /sys/kernel/notes into @bid. Returns its size, or -errno (-ENOENT:
 * no build id note).
 */
int kallsyms_host_build_id(uint8_t bid[BUILD_ID_MAX]);

/* kallsyms_host_text - this boot's _text (/proc/kallsyms), or 0. */
uint64_t kallsyms_host_text(void);

/*
 * buildid_dir - perf's build-id cache directory ($HOME/.debug) into
 * @buf (lib/symbols/buildid-cache.c). Returns 0, -ENOENT (no $HOME) or
 * -ENAMETOOLONG.
 */
int buildid_dir(char *buf, size_t size);

/*
 * buildid_write_vdso - this boot's vdso image (this process's [vdso]
 * mapping) into @fd: 0, -ENOENT (no vdso) or -EIO
 * (lib/symbols/buildid-cache.c).
 */
int buildid_write_vdso(int fd);

/*
 * buildid_cache_entry - the cache's file for @name (a path,
 * "[vdso]", "[kernel.kallsyms]") of build id @bid (@len bytes) into
 * @buf: $HOME/.debug/<name>/<build id>/@leaf, as perf lays it out
 * (lib/symbols/buildid-cache.c). Returns 0, -ENOENT (no $HOME) or -ENAMETOOLONG.
 */
int buildid_cache_entry(char *buf, size_t size, const char *name,
			const uint8_t *bid, size_t len, const char *leaf);

/* perf's PERF_RECORD_MISC_BUILD_ID_SIZE (tools/perf, not in the UAPI): a
   HEADER_BUILD_ID entry's or MMAP2 record's build id has its size */
#define MISC_BUILD_ID_SIZE	(1 << 15)

/*
 * buildid_section__next - the next entry of a HEADER_BUILD_ID section
 * [*@pp, @end) into @e, and *@pp past it: 1; 0 at the end (fewer bytes
 * left than an entry); -EBADMSG (the reason set) when an entry overruns
 * the section. Entries without a build id (size 0 or over BUILD_ID_MAX)
 * or whose name is not NUL-terminated are skipped; @e's pointers are
 * into the section (lib/symbols/buildid-cache.c).
 */
struct buildid_entry {
	int32_t pid;
	const uint8_t *bid;
	size_t len;
	const char *name;
};
int buildid_section__next(const unsigned char **pp, const unsigned char *end,
			  struct buildid_entry *e);

/*
 * dso_elf_build_id (lib/symbols/dso-find.c) - the GNU build id of the ELF file
 * @path, copied into @bid (room for 20 bytes). Returns its length,
 * -ENOENT (not ELF, or no build id), or -errno from open.
 */
int dso_elf_build_id(const char *path, uint8_t *bid);

/*
 * kallsyms_probe - 1 if /proc/kallsyms lists a text symbol with its
 * address, else -errno (lib/symbols/kallsyms.c).
 */
int kallsyms_probe(void);

/*
 * kload_start - start reading /proc/kallsyms on a thread; NULL if none
 * could start (lib/symbols/kallsyms.c). kload_finish - wait for it and
 * move its symbols into @kernel (as dso_load_kallsyms would have
 * loaded them there): its answer. kload_cancel - wait for it and drop
 * them (NULL: nothing). Both free @k.
 */
struct kload;
struct kload *kload_start(uint64_t limit);
/* kload_ready - whether the thread is done (kload_finish will not wait) */
bool kload_ready(struct kload *k);
/* kload_limit - only kernel addresses up to @max will be looked up: the
   thread may stop reading past them, leaving the table right below
   dso.syms_end (lib/symbols/kallsyms.c); kload_start's @limit is the first such
   (UINT64_MAX: read all) */
void kload_limit(struct kload *k, uint64_t max);
int kload_finish(struct kload *k, struct dso *kernel);
void kload_cancel(struct kload *k);

#endif /* PEBSSHIM_DSO_H */
