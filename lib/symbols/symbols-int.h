/* SPDX-License-Identifier: MIT */
/*
 * symbols-int.h - the resolver's state (struct pebs_symbols), shared by
 * lib/symbols/symbols.c (address spaces and lookups) and lib/symbols/symbols-kernel.c
 * (the recording's build ids and the kernel's symbols). Not installed.
 */
#ifndef PEBSSHIM_SYMBOLS_INT_H
#define PEBSSHIM_SYMBOLS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/dso.h"
#include "core/internal.h"
#include "pebsshim/symbols.h"

struct mapping {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct proc {
	pid_t pid;
	struct mapping *maps;	/* executable mappings (or data ones) */
	size_t nr, cap;
	struct proc *data;	/* the data mappings, or NULL */
	struct Dwfl *dwfl;	/* libdwfl's session of its files, for
				   unwinding (unwind.c), or NULL */
};

struct cached {
	uint64_t ip;
	pid_t pid;
	uint32_t gen;		/* 0: empty */
	int ret;
	struct pebs_sym sym;
};

/* items by key: open addressing, at most half full (symbols.c) */
struct syms_index {
	void **slot;
	size_t cap;		/* a power of two, or 0 */
};

struct pebs_symbols {
	struct dso **dsos;
	size_t nr_dsos, cap_dsos;
	/* the dsos by path (a linear search made a recording of 20,000
	   mapped files take 0.96 s to report, 100,000 tens of seconds) */
	struct syms_index dso_index;
	struct proc **procs;	/* in the order first seen */
	size_t nr_procs, cap_procs;
	/* the processes by pid (a sorted array's insertions cost a move
	   of the processes after each: quadratic in a file whose pids
	   come in descending order) */
	struct syms_index proc_index;
	struct dso kernel;	/* "[kernel.kallsyms]" */
	uint8_t kernel_bid[BUILD_ID_MAX];	/* as recorded */
	size_t kernel_bid_len;
	uint64_t kernel_text;	/* recorded _text (kernel MMAP pgoff) */
	uint32_t gen;		/* mappings' generation: cache validity */
	struct cached *cache;
	struct proc *last;	/* the last process found (never freed
				   before the end) */
	struct kload *kload;	/* /proc/kallsyms being read on a thread
				   (syms_kernel_start), or NULL */
	int kernel_lazy;	/* taken at the first kernel address:
				   SYMS_KERNEL_HOST or _CACHED; 0: none */
	bool kernel_nowait;	/* pebs_symbols__kernel_nowait */
	/* frames in data (pebs_callchain__data_frame): per data symbol
	   (its name's pointer, open-addressed) the first "sym+0xoff" */
	struct frame_name {
		const char *sym;
		char *shown;
	} *frame_names;
	size_t nr_frame_names, cap_frame_names;
	struct syms_unwind *unwind;	/* the sample unwound (unwind.c) */
	char *symfs;		/* pebs_symbols__set_symfs, or NULL */
};

/* where the kernel's symbols come from (pebs_symbols__load_kernel's
   answers) */
enum { SYMS_KERNEL_HOST = 1, SYMS_KERNEL_CACHED = 2 };

/*
 * syms_resolve_bss - the data symbol of @addr in an anonymous mapping
 * that directly follows a file's mapping in process @pid: the part of
 * that file's .bss past its last file page, which the kernel maps as
 * anonymous memory (lib/objects names static variables there; the data
 * keys, as perf, leave it anonymous), and its size (ELF st_size, 0:
 * sizeless) in *@size; sym->dso is that file's path, sym->dso_offset
 * the address's offset in the anonymous mapping. 0, -ENOENT, -ENOMEM.
 */
int syms_resolve_bss(struct pebs_symbols *syms, pid_t pid, uint64_t addr,
		     struct pebs_sym *sym, uint64_t *size);
/*
 * syms_resolve_data - pebs_symbols__resolve_data, and the data symbol's
 * size (ELF st_size, 0: sizeless) in *@size when @size is not NULL.
 */
int syms_resolve_data(struct pebs_symbols *syms, pid_t pid, uint64_t addr,
		      struct pebs_sym *sym, uint64_t *size);

/* -ENOMEM with the library's message */
int syms_oom(void);
/* a mapping or a file changed: the (pid, ip) cache is stale */
void syms_invalidate(struct pebs_symbols *syms);
/* the file @path's dso, made if new; NULL when out of memory */
struct dso *syms_dso_findnew(struct pebs_symbols *syms, const char *path);
/* whether @name is the kernel's map ("[kernel.kallsyms]...") */
bool syms_is_kernel_name(const char *name);
/* whether the recorded kernel is this host's (its build id, else where
   its text is) */
bool syms_same_kernel(const struct pebs_symbols *syms);
/* dso_load of a mapped file: a [vdso] may be this host's (host_vdso) */
int syms_dso_load(const struct pebs_symbols *syms, struct dso *d);
/* dso_open of a mapped file, the same way */
bool syms_dso_open(const struct pebs_symbols *syms, struct dso *d,
		   Elf **elfp, int *fdp, uint8_t *bid, size_t *bid_len);
/* the process @pid's address space (NULL: none seen), and its file
   mapping at @addr (NULL: none) */
struct proc *syms_proc(struct pebs_symbols *syms, pid_t pid);
const struct mapping *syms_map_at(const struct proc *p, uint64_t addr);

/*
 * syms_unwind - the user frames of process @pid's sample whose user
 * registers and stack are @u, by the CFI of the files mapped now
 * (lib/symbols/unwind.c): at most @max into @ips, the first the user
 * pc, the others inside their calls (return address - 1). Returns
 * their number (0: none: no registers, no stack, or a pc in no file),
 * or -ENOMEM.
 */
int syms_unwind(struct pebs_symbols *syms, pid_t pid,
		const struct pebs_sample_user *u, uint64_t *ips,
		unsigned int max);
/* syms_unwind_free - @p's libdwfl session ended */
void syms_unwind_free(struct proc *p);
/*
 * syms_kernel_now - the kernel's symbols at the first kernel address
 * looked up after syms_kernel_defer: the thread's (syms_kernel_start),
 * or read now. 0 or -errno.
 */
int syms_kernel_now(struct pebs_symbols *syms);
/*
 * syms_kernel_all - all of /proc/kallsyms, for an address above the part
 * read (kload_limit); without it, no kernel symbols. 0 or -errno.
 */
int syms_kernel_all(struct pebs_symbols *syms);
/*
 * syms_kernel_pending - whether a kernel address is to be left unnamed
 * now: the symbols are still being read and the caller does not wait
 * (pebs_symbols__kernel_nowait).
 */
bool syms_kernel_pending(struct pebs_symbols *syms);

/*
 * syms_kernel_start - when the recorded kernel is this host's (as known
 * so far: the build ids read), read /proc/kallsyms on a thread while the
 * caller goes on; pebs_symbols__load_kernel waits for it, checks again
 * and takes its symbols (lib/symbols/symbols.c). Without a thread the load
 * happens there as before.
 */
void syms_kernel_start(struct pebs_symbols *syms);

/*
 * syms_kernel_defer - pebs_symbols__load_kernel without the wait: the
 * same answer (1: the kernel is this host's and /proc/kallsyms shows its
 * symbols; 2: another kernel's copy is in the build-id cache; 0 or
 * -errno), but the symbols are taken only when a kernel address is
 * first looked up: from the thread of syms_kernel_start if one runs
 * (waiting for it then), else read then; never if none is.
 */
int syms_kernel_defer(struct pebs_symbols *syms);
/* syms_kernel_limit - kload_limit of the thread of syms_kernel_start */
void syms_kernel_limit(struct pebs_symbols *syms, uint64_t max);

#endif
