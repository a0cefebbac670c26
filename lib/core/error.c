// SPDX-License-Identifier: MIT
/* error.c - the per-thread "why did it fail" message. */
#include <stdarg.h>
#include <stdio.h>

#include "core/internal.h"

static __thread char errbuf[512];

const char *pebs_errmsg(void)
{
	return errbuf;
}

int core_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return err;
}

void core_err_clear(void)
{
	errbuf[0] = '\0';
}
