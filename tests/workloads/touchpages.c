// SPDX-License-Identifier: MIT
/*
 * touchpages - mmap N fresh anonymous pages, touch each once (one page
 * fault each), print their addresses (one hex number per line) to
 * OUTFILE or stdout, exit. Used by the page-fault tests.
 *
 *	touchpages N [OUTFILE]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long n, i;
	volatile char *p;
	char *end;
	FILE *out = stdout;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: touchpages N [OUTFILE]\n");
		return 2;
	}
	errno = 0;
	n = strtoul(argv[1], &end, 0);
	if (errno || *end || !n) {
		fprintf(stderr, "touchpages: bad page count '%s'\n", argv[1]);
		return 2;
	}
	p = mmap(NULL, n * (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "touchpages: mmap %lu pages: %s\n", n,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		p[i * (size_t)page] = 1;
	if (argc == 3) {
		out = fopen(argv[2], "w");
		if (!out) {
			fprintf(stderr, "touchpages: %s: %s\n", argv[2],
				strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		fprintf(out, "%lx\n", (unsigned long)(p + i * (size_t)page));
	if (fclose(out)) {
		fprintf(stderr, "touchpages: write: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
