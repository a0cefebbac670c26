// SPDX-License-Identifier: MIT
/* csv.c - one CSV field (RFC 4180), for every writer of CSV rows. */
#include <stdio.h>
#include <string.h>

#include "pebsshim/core.h"

void pebs_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
