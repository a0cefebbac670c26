// SPDX-License-Identifier: MIT
/*
 * dataframe - N page faults, each taken under a fake frame whose return
 * address points into the program's data segment (fake_frames + 0x40),
 * as a stale frame pointer's garbage does: a frame pointer walk (perf
 * record -g) then holds a frame in a data mapping, which perf report
 * names by the data symbol there ("fake_frames+0x40"). On other
 * architectures than x86-64 the faults are taken without it.
 *
 *	dataframe N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* in .data (initialised): the file's data mapping, a data symbol */
uintptr_t fake_frames[64] = { 1 };

static void touch(volatile char *p)
{
#if defined(__x86_64__)
	/* the frame pointer at the fake frame {next 0, return address}
	   for the one write: the kernel's walk stops at next 0 */
	__asm__ volatile("push %%rbp\n\t"
			 "mov %1, %%rbp\n\t"
			 "movb $1, (%0)\n\t"
			 "pop %%rbp"
			 : : "r"(p), "r"(fake_frames) : "memory");
#else
	*p = 1;
#endif
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long n = argc == 2 ? strtoul(argv[1], NULL, 0) : 0;
	char *p;

	if (!n) {
		fprintf(stderr, "usage: dataframe N\n");
		return 2;
	}
	fake_frames[0] = 0;
	p = mmap(NULL, n * (unsigned long)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("dataframe: mmap");
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		fake_frames[1] = (uintptr_t)&fake_frames[i & 1 ? 12 : 8];
		touch(p + i * (unsigned long)page);
	}
	return 0;
}
