/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/symbols.h - libpebsshim: symbols: code and data addresses,
 * call chains, source lines, build ids.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_SYMBOLS_H
#define PEBSSHIM_SYMBOLS_H

#include "pebsshim/decode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Symbols: code and data addresses, build ids, the kernel            */
/* (lib/symbols/symbols.c, lib/symbols/symbols-kernel.c,              */
/* lib/symbols/dso.c)                                                 */
/* ------------------------------------------------------------------ */

/*
 * Resolve (pid, ip) to symbol + offset: address spaces come from
 * /proc/<pid>/maps or from MMAP/MMAP2/FORK/COMM records; symbols from
 * the mapped file's ELF .symtab, else the .symtab of its separate debug
 * file (/usr/lib/debug/.build-id/xx/yyyy.debug), else its .dynsym,
 * loaded once per file (lazily, at the first lookup in it) and looked
 * up by binary search; among aliases at one address the global, least
 * underscored name is shown. Kernel addresses resolve through
 * /proc/kallsyms on request (pebs_symbols__load_kallsyms), else to
 * "[kernel.kallsyms]" without a symbol. A pebs_symbols is not thread-safe.
 */
struct pebs_symbols;

/* A resolved address. Strings live as long as the pebs_symbols. */
struct pebs_sym {
	const char *name;	/* symbol, or NULL if none covers ip */
	uint64_t offset;	/* ip - symbol start */
	const char *dso;	/* mapped file ("[vdso]", "[kernel.kallsyms]", ...),
				   or NULL if ip is in no known mapping */
	uint64_t dso_offset;	/* file offset of ip within dso */
};

/* pebs_symbols__new - an empty resolver. Returns 0 or -ENOMEM. */
PEBS_API int pebs_symbols__new(struct pebs_symbols **symsp);

/*
 * pebs_symbols__set_build_id - the build id @path had where it was
 * recorded (HEADER_BUILD_ID, or MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID).
 * A local file with another (or no) build id then resolves to no symbol
 * instead of a wrong one: use it for recordings from other machines.
 * Returns 0, -EINVAL (size 0 or > 20), -ENOMEM.
 */
PEBS_API int pebs_symbols__set_build_id(struct pebs_symbols *syms,
					const char *path,
					const uint8_t *build_id, size_t size);

/*
 * pebs_symbols__load_pid - (re)read /proc/<pid>/maps for process @pid
 * (a tgid). Returns the number of mappings, -ESRCH (no such process),
 * -EACCES, or -errno.
 */
PEBS_API int pebs_symbols__load_pid(struct pebs_symbols *syms, pid_t pid);

/*
 * pebs_symbols__add_mmap - add one file mapping of process @pid:
 * [start, start + len) maps @path at file offset @pgoff. A new mapping
 * replaces the part of older ones it overlaps. Returns 0, -EINVAL,
 * -ENOMEM.
 */
PEBS_API int pebs_symbols__add_mmap(struct pebs_symbols *syms, pid_t pid,
				    uint64_t start, uint64_t len,
				    uint64_t pgoff, const char *path);

/*
 * pebs_symbols__add_record - feed a record from a ring or a perf.data
 * file: MMAP and MMAP2 add mappings (data mappings, misc
 * PERF_RECORD_MISC_MMAP_DATA, are ignored), FORK of a new process
 * copies the parent's mappings, COMM with PERF_RECORD_MISC_COMM_EXEC
 * drops them. Other records are ignored. Returns 0 or -ENOMEM.
 */
PEBS_API int pebs_symbols__add_record(struct pebs_symbols *syms,
				      const struct perf_event_header *ev);

/*
 * pebs_symbols__load_kallsyms - resolve kernel addresses (ip >= 2^63)
 * through this host's /proc/kallsyms from now on; only right for
 * recordings of this boot. Without it they resolve to dso "[kernel.kallsyms]"
 * and no symbol. Returns the number of symbols, -EACCES if kallsyms
 * shows no addresses (kptr_restrict), or -errno.
 */
PEBS_API int pebs_symbols__load_kallsyms(struct pebs_symbols *syms);

/*
 * pebs_symbols__resolve - the symbol of @ip in process @pid. Returns 0
 * with sym->name set, -ENOENT with sym->dso/name set as far as known
 * (no mapping, or no symbol covers ip; sym->dso set when the mapping
 * is known), -ENOMEM (loading the file's symbols), or -EINVAL. Files
 * that cannot be read or parsed, or whose build id differs from the one
 * set, resolve to no symbol (once: the failure is cached).
 */
PEBS_API int pebs_symbols__resolve(struct pebs_symbols *syms, pid_t pid,
				   uint64_t ip, struct pebs_sym *sym);

/*
 * pebs_sym__str - "name+0xoff" (or "name" at offset 0), "[dso]+0xoff"
 * when only the mapping is known, "0x<ip>" otherwise. Returns what
 * snprintf returns.
 */
PEBS_API int pebs_sym__str(const struct pebs_sym *sym, uint64_t ip,
			   char *buf, size_t len);

/*
 * pebs_symbols__add_build_ids - the HEADER_BUILD_ID section of a
 * perf.data file (pebs_perfdata__feat(pd, PEBS_FEAT_BUILD_ID, ...)):
 * every file's recorded build id (pebs_symbols__set_build_id), the
 * kernel's ("[kernel.kallsyms]") included. Symbols of a file whose
 * local copy differs then come from ~/.debug/.build-id or
 * /usr/lib/debug/.build-id, or are not shown. Returns the number of
 * build ids taken, -EBADMSG (an entry overruns the section), -ENOMEM.
 */
PEBS_API int pebs_symbols__add_build_ids(struct pebs_symbols *syms,
					 const void *data, size_t size);

/*
 * pebs_symbols__load_kernel - load this host's /proc/kallsyms only if
 * the recording's kernel is the running one: its build id (from
 * HEADER_BUILD_ID, or a kernel MMAP2 with a build id) equals the one in
 * /sys/kernel/notes, or, when none was recorded, the kernel map's _text
 * (perf's kernel MMAP) equals this boot's. For another kernel whose
 * build id perf's build-id cache has a kallsyms copy of
 * (~/.debug/[kernel.kallsyms]/<build id>/kallsyms, as perf record and
 * pebs-shim record leave it), that copy is loaded instead, its symbols
 * moved by the recorded _text less the copy's (perf's kallsyms__delta).
 * Otherwise kernel addresses stay unresolved (dso "[kernel.kallsyms]",
 * no symbol), as perf shows them. Returns 1 (this host's), 2 (the
 * cached copy), 0 (another kernel, or unknown), or -errno of
 * pebs_symbols__load_kallsyms.
 */
PEBS_API int pebs_symbols__load_kernel(struct pebs_symbols *syms);

/*
 * pebs_symbols__resolve_data - the data object of address @addr in
 * process @pid, as perf's symbol_daddr/dso_daddr: the mapping from the
 * data mappings of MMAP/MMAP2 records (perf record -d: "[heap]",
 * "[stack]", "//anon", file data), else the executable ones, gives
 * sym->dso and the file offset; a data symbol (STT_OBJECT of .symtab or
 * .dynsym) covering it gives sym->name and offset. Returns as
 * pebs_symbols__resolve.
 */
PEBS_API int pebs_symbols__resolve_data(struct pebs_symbols *syms,
					pid_t pid, uint64_t addr,
					struct pebs_sym *sym);

/* The mapping that holds a data address (pebs_symbols__data_map). */
struct pebs_data_map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	const char *dso;	/* "[heap]", "[stack]", "//anon", a file path */
};

/*
 * pebs_symbols__data_map - the mapping of process @pid that holds data
 * address @addr, chosen as pebs_symbols__resolve_data chooses it (the
 * data mappings of MMAP/MMAP2 records first): its range, file offset
 * and dso (strings live as long as @syms). Returns 0, -ENOENT (no
 * mapping holds it), -EINVAL.
 */
PEBS_API int pebs_symbols__data_map(struct pebs_symbols *syms, pid_t pid,
				    uint64_t addr, struct pebs_data_map *map);

/*
 * pebs_symbols__kernel_nowait - while this host's /proc/kallsyms is
 * still being read on its thread (a pebs_session reads it from the
 * first kernel address of its opening scan), resolve kernel addresses
 * unnamed (dso "[kernel.kallsyms]", no symbol: as a foreign kernel's)
 * instead of waiting for it (@nowait true), or wait (false, the
 * default). Addresses looked up once it is read are named as usual.
 */
PEBS_API void pebs_symbols__kernel_nowait(struct pebs_symbols *syms,
					  bool nowait);

/*
 * pebs_symbols__set_symfs - look for every file under directory @dir,
 * as perf's --symfs: a file, its separate debug files beside it,
 * /usr/lib/debug/.build-id and a JIT's /tmp/perf-PID.map are read from
 * @dir + their path, perf's cache from @dir/.debug (not ~/.debug), and
 * the kernel is named from no local file (neither /proc/kallsyms nor a
 * cached kallsyms: raw addresses), nor the vdso from this process's.
 * A @dir that is "/" is none, as perf's. Before the first lookup.
 * Returns 0, -EINVAL or -ENOMEM.
 */
PEBS_API int pebs_symbols__set_symfs(struct pebs_symbols *syms,
				     const char *dir);

/*
 * pebs_symbols__dso_order - the place of file @dso (a pebs_sym's or
 * pebs_frame's) among the files @syms has met, as perf makes its dso
 * objects: the kernel 0, then, from 1, the recording's build ids in the
 * file's order (pebs_symbols__add_build_ids), then the mappings as they
 * came; -1 for a file never met.
 */
PEBS_API int pebs_symbols__dso_order(const struct pebs_symbols *syms,
				     const char *dso);

/* pebs_symbols__delete - free; NULL is allowed. */
PEBS_API void pebs_symbols__delete(struct pebs_symbols *syms);

/* ------------------------------------------------------------------ */
/* Frames of call chains (lib/symbols/callchain.c)                    */
/* ------------------------------------------------------------------ */

/* What a frame's code is: it chooses the frame's colour. */
enum pebs_frame_kind {
	PEBS_FRAME_USER,	/* the program's own executable */
	PEBS_FRAME_LIB,		/* a shared library, [vdso] */
	PEBS_FRAME_KERNEL,	/* the kernel */
	PEBS_FRAME_UNKNOWN,	/* no known mapping */
	PEBS_FRAME_COMM,	/* a flame graph's command (or thread) */
	PEBS_FRAME_ROOT,	/* a flame graph's "all" */
	PEBS_FRAME_MERGED,	/* a flame graph's narrow frames, merged */
};

/* One resolved frame. Strings live as long as the pebs_symbols. */
struct pebs_frame {
	uint64_t ip;
	const char *sym;	/* NULL: no symbol covers ip */
	const char *dso;	/* NULL: ip in no known mapping */
	bool kernel;
};

/* pebs_frame__kind - kernel, library (".so" in the file's name, or a
   "[...]" mapping), the executable, or unknown. */
PEBS_API enum pebs_frame_kind pebs_frame__kind(const struct pebs_frame *fr);

/*
 * pebs_frame__folded - the frame's name as FlameGraph's
 * stackcollapse-perf.pl makes it from `perf script`: the symbol without
 * its offset, ';' turned into ':', quotes dropped, and what follows the
 * first '(' dropped (not "(anonymous namespace)", not Go's ".(T)."
 * names); without a symbol "[file]" (the mapping's base name, e.g.
 * "[libc.so.6]", "[[kernel.kallsyms]]") or "[unknown]". Returns the
 * length (0: a name the script skips, starting with '('), or -EINVAL.
 */
PEBS_API int pebs_frame__folded(const struct pebs_frame *fr, char *buf,
				size_t len);

/*
 * pebs_frame__comm - a stack's first frame as stackcollapse-perf.pl
 * makes it: @comm (":tid" when NULL, as perf script prints it) with
 * spaces turned into '_' (and ';' into ':'). Returns snprintf's value.
 */
PEBS_API int pebs_frame__comm(const char *comm, int32_t tid, char *buf,
			      size_t len);

/* ------------------------------------------------------------------ */
/* Call chains (lib/symbols/callchain.c)                              */
/* ------------------------------------------------------------------ */

/* Frames kept per call chain: perf's default kernel.perf_event_max_stack */
#define PEBS_CALLCHAIN_MAX	127

/*
 * pebs_callchain__resolve - the frames of sample @s, the leaf first,
 * resolved with @syms as they are now (call it from a pebs_session
 * callback: the maps of the sample's time). PERF_CONTEXT_* markers are
 * not frames; they say which frames are kernel ones (without markers,
 * addresses from 2^63 up are). At most @max (and PEBS_CALLCHAIN_MAX)
 * frames. A sample without PERF_SAMPLE_CALLCHAIN is one frame, its ip,
 * kernel if @kernel, and so is a chain perf drops as corrupt (an
 * unknown marker: pebs_callchain__step). A frame outside its context's
 * half of the address space is [unknown] (no sym, no dso). Returns the
 * number of frames (>= 1) or -EINVAL.
 */
/*
 * pebs_callchain__step - one entry of a call chain, walked leaf first
 * with *@mode -1 to start, as perf 6.1's add_callchain_ip walks it: a
 * frame returns 1, *@lookup saying whether to look it up (perf looks a
 * frame up in its context's maps alone, so a kernel address among user
 * frames, a stale frame pointer's garbage, is in none, nor a user
 * address among kernel frames); PERF_CONTEXT_KERNEL, _HV (*@mode 1) and
 * _USER (0) return 0; another marker (a guest's, or garbage such as -1)
 * returns -1: perf then takes the chain as corrupt and drops all of it.
 */
PEBS_API int pebs_callchain__step(uint64_t entry, int *mode, bool *lookup);

/*
 * pebs_callchain__dropped - whether perf drops @s's call chain as corrupt
 * (an entry pebs_callchain__step returns -1 for, among the first
 * PEBS_CALLCHAIN_MAX frames): perf script then prints none of its frames
 * and perf report counts the sample for its own symbol alone.
 */
PEBS_API bool pebs_callchain__dropped(const struct pebs_sample *s);

PEBS_API int pebs_callchain__resolve(struct pebs_symbols *syms,
				     const struct pebs_sample *s, bool kernel,
				     struct pebs_frame *frames,
				     unsigned int max);

/*
 * pebs_callchain__data_frame - user frame @fr of process @pid outside
 * every executable mapping (a stale frame pointer's return address into
 * a data segment, the heap or the stack) as perf's report takes it:
 * fr->dso the mapping that holds it (pebs_symbols__resolve_data's,
 * NULL: none), and where a data symbol covers it fr->sym as perf prints
 * an object symbol, "name+0x<offset>" (equal names one pointer, valid
 * until pebs_symbols__delete). Returns 0 (named), -ENOENT (no data
 * symbol; fr->sym untouched), -ENOMEM, -EINVAL.
 */
PEBS_API int pebs_callchain__data_frame(struct pebs_symbols *syms,
					pid_t pid, struct pebs_frame *fr);

/* ------------------------------------------------------------------ */
/* Source lines (lib/symbols/srcline.c)                               */
/* ------------------------------------------------------------------ */

/*
 * Source lines of code addresses (lib/symbols/srcline.c, libdw), perf's
 * "Source:Line": an object is opened once, each (object, offset) looked
 * up once. Not thread-safe.
 */
struct pebs_srcline;

/* pebs_srcline__new - an empty cache. Returns 0, -EINVAL, -ENOMEM. */
PEBS_API int pebs_srcline__new(struct pebs_srcline **sp);

/*
 * pebs_srcline__find - the source file (as the DWARF line table names
 * it; valid until __delete) and line of the code at file offset @offset
 * of the ELF object @path (pebs_sym.dso and .dso_offset), from its DWARF
 * or its separate debug file (/usr/lib/debug/.build-id). Line 0 is
 * code the DWARF ties to no line of the file (perf prints "file:0").
 * Returns 0, -ENOENT (no such file, no debug info, or no line table
 * row for it), -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_srcline__find(struct pebs_srcline *s, const char *path,
				uint64_t offset, const char **file,
				unsigned int *line);

/*
 * pebs_srcline__addr2line - the answer perf 6.1 reads from binutils'
 * addr2line for its srcline and srcfile keys: the DWARF's line as
 * __find gives it; for code without one, the function binutils finds in
 * the symbol table (.symtab, else .dynsym: the nearest start at or below
 * the address in its section, whatever its size) gives line 0 and the
 * file name binutils pairs with it (the STT_FILE before a local symbol)
 * or "??". Returns 0, -ENOENT (addr2line finds nothing: perf then shows
 * its own symbol), -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_srcline__addr2line(struct pebs_srcline *s, const char *path,
				     uint64_t offset, const char **file,
				     unsigned int *line);

/*
 * pebs_srcline__perf_str - perf's srcline text of the code @sym names
 * (pebs_symbols__resolve's answer for @ip; @kernel: a kernel address)
 * into @buf: addr2line's answer as "file:line" (the file's base name:
 * __addr2line), else perf's fallback: "sym+OFFSET" (decimal) when
 * @sym->name is set (perf's report), "DSO[ADDR]" when not (perf's
 * objdump address: the virtual address in an executable), "??:0"
 * without a mapping. Returns 1 for addr2line's answer (its file ends at
 * the last ':'), 0 for a fallback, -EINVAL, -ENOMEM.
 */
PEBS_API int pebs_srcline__perf_str(struct pebs_srcline *s,
				    const struct pebs_sym *sym, uint64_t ip,
				    bool kernel, char *buf, size_t len);

/* pebs_srcline__delete - free (closing the objects); NULL is allowed. */
PEBS_API void pebs_srcline__delete(struct pebs_srcline *s);

/* ------------------------------------------------------------------ */
/* The build-id cache, as perf record keeps it                        */
/* (lib/symbols/buildid-cache.c)                                      */
/* ------------------------------------------------------------------ */

/*
 * pebs_buildid_cache__add - keep the file @path, whose build id is
 * @build_id (@size bytes), in perf's build-id cache ($HOME/.debug) as
 * perf record does: $HOME/.debug/<real path>/<build id>/elf (a hard link,
 * or a copy) and the link $HOME/.debug/.build-id/<xx>/<rest> to its
 * directory. @path "[vdso]" keeps this boot's vdso image as
 * $HOME/.debug/[vdso]/<build id>/vdso, "[kernel.kallsyms]" this boot's
 * /proc/kallsyms as $HOME/.debug/[kernel.kallsyms]/<build id>/kallsyms
 * (not when it hides the addresses: -EACCES). Nothing is replaced.
 * Returns 0, -ESRCH (the file on disk, or this boot's vdso or kernel,
 * has another build id), -EINVAL or another -errno.
 */
PEBS_API int pebs_buildid_cache__add(const char *path,
				     const uint8_t *build_id, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_SYMBOLS_H */
