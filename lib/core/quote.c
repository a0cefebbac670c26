// SPDX-License-Identifier: MIT
/*
 * quote.c - strings as fields of machine-readable outputs: a CSV field
 * (RFC 4180) and a JSON string, the one quoting of every csv and json
 * printer (report, c2c, script, the commands).
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

void pebs_csv__str(FILE *f, const char *s)
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

void pebs_json__str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
