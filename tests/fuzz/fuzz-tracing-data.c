// SPDX-License-Identifier: MIT
/*
 * fuzz-tracing-data.c - libFuzzer target for the reader of perf's
 * tracing data (HEADER_TRACING_DATA, lib/perfdata/tracing-data.c): the input is
 * the section; every format handed to the callback and every part the
 * parser returns must lie in the input (ASan and this check), and a
 * parse costs linear time (libFuzzer's timeout).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim.h"
#include "perfdata/tracing-data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *in;
static size_t in_size;

static bool in_input(const void *p, size_t len)
{
	const uint8_t *q = p;

	return q >= in && q <= in + in_size &&
	       len <= (size_t)(in + in_size - q);
}

static void inside(const void *p, size_t len)
{
	if (len && !in_input(p, len))
		abort();
}

/* a system's name is in the input (NUL-terminated there), or "ftrace" */
static int each(void *arg, const char *sys, const char *fmt, size_t len)
{
	(void)arg;
	if (in_input(sys, 1)) {
		size_t left = (size_t)(in + in_size - (const uint8_t *)sys);

		if (!memchr(sys, '\0', left))
			abort();
	} else if (strcmp(sys, "ftrace")) {
		abort();
	}
	inside(fmt, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pebs_tracing_data td;

	in = data;
	in_size = size;
	if (tracing_data_parse(data, size, &td, each, NULL))
		return 0;
	inside(td.header_page, td.header_page_len);
	inside(td.header_event, td.header_event_len);
	inside(td.kallsyms, td.kallsyms_len);
	inside(td.printk, td.printk_len);
	inside(td.cmdlines, td.cmdlines_len);
	return 0;
}
