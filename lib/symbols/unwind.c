// SPDX-License-Identifier: MIT
/*
 * unwind.c - the user frames of a sample recorded with --call-graph
 * dwarf (perf record's, or pebs-shim record's): its copy of the user
 * registers and of the stack from the stack pointer up, unwound by the
 * call frame information (.eh_frame, or .debug_frame) of the files mapped
 * at the sample's time, as perf's unwind-libdw.c unwinds them with
 * elfutils' libdwfl:
 *
 * - the registers are perf's x86-64 ones, given to libdwfl in DWARF's
 *   numbering (perf's libdw__arch_set_initial_registers);
 * - memory is read from the stack copy only (perf also reads a mapped
 *   file's bytes, which CFI never asks for on x86-64), but for its last
 *   word, as perf 6.1's libunwind reader (the unwinder Debian builds)
 *   leaves it; where the copy ends, so does the chain (perf's libunwind
 *   adds a last frame at 0 - 1 there);
 * - a file is reported to libdwfl at the first frame in it, at
 *   map start - page offset (perf's __report_module), found as
 *   lib/symbols/dso-find.c finds it (the recorded build id's copy);
 * - every frame but the first is its pc - 1, inside the call
 *   instruction (perf's frame_callback: not an activation);
 * - at most 127 frames (perf's default max_stack).
 *
 * perf builds a libdwfl session per sample. Here a process keeps its
 * own (struct proc's dwfl) from sample to sample, its files reported
 * once, the last UNWIND_SESSIONS processes unwound keeping theirs (a
 * session holds its files open): the per-sample state (registers and stack) reaches libdwfl's
 * callbacks through the session's context, which points at the sample
 * unwound now. When a file is mapped where another one was reported (an
 * exec, a dlopen after a dlclose), the process's session is begun anew.
 * perf adds inlined functions as frames of their own (unwind_entry's
 * append_inlines); these frames are the machine's only.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/symbols.h"
#include "symbols/dso.h"
#include "core/internal.h"
#include "symbols/symbols-int.h"

/* perf's x86-64 user registers (arch/x86/include/uapi/asm/perf_regs.h) */
enum {
	R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS,
	R_CS, R_SS, R_DS, R_ES, R_FS, R_GS, R_R8, R_R9, R_R10, R_R11,
	R_R12, R_R13, R_R14, R_R15,
};

/* DWARF's x86-64 numbering 0-16 (rax rdx rcx rbx rsi rdi rbp rsp
   r8-r15 rip) in perf's */
static const unsigned char dwarf_to_perf[17] = {
	R_AX, R_DX, R_CX, R_BX, R_SI, R_DI, R_BP, R_SP, R_R8, R_R9,
	R_R10, R_R11, R_R12, R_R13, R_R14, R_R15, R_IP,
};

#define UNWIND_SESSIONS	8

struct syms_unwind {
	struct pebs_symbols *syms;
	struct proc *p;
	const struct pebs_sample_user *u;
	uint64_t sp;		/* the stack copy's address */
	uint64_t *ips;
	unsigned int n, max;
	bool clash;		/* a file where another was reported */
	/* the processes with a libdwfl session, oldest first from next:
	   each keeps its files open, so at most UNWIND_SESSIONS live (a
	   system-wide recording of thousands of processes would run out
	   of descriptors); an entry may be stale (freed since: harmless) */
	struct proc *live[UNWIND_SESSIONS];
	unsigned int next;
};

/* no separate debug files: the CFI is the file's own (.eh_frame, which
   x86-64 files carry, or .debug_frame) */
static int no_debuginfo(Dwfl_Module *mod, void **user, const char *name,
			Dwarf_Addr base, const char *file, const char *link,
			GElf_Word crc, char **path)
{
	(void)mod, (void)user, (void)name, (void)base, (void)file;
	(void)link, (void)crc, (void)path;
	return -1;
}

static const Dwfl_Callbacks offline = {
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Register @r (perf's number) of the sample into *@v: false if absent. */
static bool reg(const struct pebs_sample_user *u, unsigned int r,
		uint64_t *v)
{
	uint64_t bit = 1ull << r;

	if (!(u->mask & bit))
		return false;
	memcpy(v, (const char *)u->regs +
	       8 * (size_t)__builtin_popcountll(u->mask & (bit - 1)), 8);
	return true;
}

/*
 * The module of the file mapped at @pc, reported now if new: NULL
 * outside a file mapping, or when the file cannot be read, or when
 * another file was reported there (then ->clash).
 */
static Dwfl_Module *report(struct syms_unwind *c, Dwfl *dwfl, uint64_t pc)
{
	const struct mapping *m = syms_map_at(c->p, pc);
	uint8_t bid[BUILD_ID_MAX];
	Dwarf_Addr start;
	char path[64];
	Dwfl_Module *mod;
	const char *name;
	size_t bid_len;
	uint64_t base;
	Elf *elf;
	int fd;

	if (!m || m->dso->jit)
		return NULL;
	base = m->start - m->pgoff;
	mod = dwfl_addrmodule(dwfl, pc);
	if (mod) {
		void **user;

		dwfl_module_info(mod, &user, &start, NULL, NULL, NULL, NULL,
				 NULL);
		if (start == base && *user == m->dso)
			return mod;
		c->clash = true;
		return NULL;
	}
	if (!syms_dso_open(c->syms, m->dso, &elf, &fd, bid, &bid_len))
		return NULL;
	elf_end(elf);
	/* libdwfl opens the file itself: the one found, by its fd */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	name = strrchr(m->dso->path, '/');
	name = name ? name + 1 : m->dso->path;
	dwfl_report_begin_add(dwfl);
	mod = dwfl_report_elf(dwfl, name, path, -1, base, false);
	if (mod) {
		void **user;

		dwfl_module_info(mod, &user, NULL, NULL, NULL, NULL, NULL,
				 NULL);
		*user = m->dso;
	} else {
		c->clash = true;	/* overlaps a reported file */
	}
	dwfl_report_end(dwfl, NULL, NULL);
	close(fd);
	return mod;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct syms_unwind *c = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = c;
	return c->p->pid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* A word of the stack copy (perf's memory_read, without the files). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct syms_unwind *c = arg;

	(void)dwfl;
	/* as perf's libunwind reader (access_mem): the copy's last word
	   is not read */
	if (addr < c->sp || c->u->stack_size < 8 ||
	    addr - c->sp >= c->u->stack_size - 8)
		return false;
	memcpy(result, (const char *)c->u->stack + (addr - c->sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct syms_unwind *c = arg;
	Dwarf_Word r[17];
	uint64_t v;

	for (unsigned int i = 0; i < 17; i++)
		r[i] = reg(c->u, dwarf_to_perf[i], &v) ? v : 0;
	return dwfl_thread_state_registers(thread, 0, 17, r);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame(Dwfl_Frame *state, void *arg)
{
	struct syms_unwind *c = arg;
	bool activation;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* its file first: whether it is an activation asks for its CFI */
	report(c, c->p->dwfl, pc);
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	c->ips[c->n++] = activation ? pc : pc - 1;
	return c->n < c->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

void syms_unwind_free(struct proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
}

/* @c->p's libdwfl session, begun (and attached) with the file at @pc. */
static Dwfl *session(struct syms_unwind *c, uint64_t pc)
{
	Dwfl *dwfl = c->p->dwfl;
	struct proc **slot;

	if (dwfl)
		return dwfl;
	/* the oldest session ends (its files closed) */
	slot = &c->live[c->next];
	if (*slot)
		syms_unwind_free(*slot);
	*slot = c->p;
	c->next = (c->next + 1) % UNWIND_SESSIONS;
	dwfl = dwfl_begin(&offline);
	if (!dwfl)
		return NULL;
	/* attaching takes the machine from the first file reported */
	if (!report(c, dwfl, pc) ||
	    !dwfl_attach_state(dwfl, NULL, c->p->pid, &thread_callbacks,
			       c->syms->unwind)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return c->p->dwfl = dwfl;
}

int syms_unwind(struct pebs_symbols *syms, pid_t pid,
		const struct pebs_sample_user *u, uint64_t *ips,
		unsigned int max)
{
	struct syms_unwind *c;
	uint64_t pc, sp;
	Dwfl *dwfl;

	if (u->abi != PERF_SAMPLE_REGS_ABI_64 || !u->stack_size ||
	    !max || !reg(u, R_IP, &pc) || !reg(u, R_SP, &sp))
		return 0;
	if (!syms->unwind) {
		syms->unwind = calloc(1, sizeof(*syms->unwind));
		if (!syms->unwind)
			return syms_oom();
	}
	c = syms->unwind;
	c->syms = syms;
	c->u = u;
	c->sp = sp;
	c->ips = ips;
	c->max = max;
	c->p = syms_proc(syms, pid);
	if (!c->p)
		return 0;
	for (int round = 0; round < 2; round++) {
		c->n = 0;
		c->clash = false;
		dwfl = session(c, pc);
		if (dwfl)
			dwfl_getthread_frames(dwfl, pid, frame, c);
		if (!c->clash)
			break;
		/* another file where the process's session had one: the
		   session anew, once */
		syms_unwind_free(c->p);
	}
	return (int)c->n;
}
