// SPDX-License-Identifier: MIT
/* util.c - the commands' one error printer and option number parsers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pebsshim.h"
#include "util.h"

static void vmsg(const char *cmd, const char *fmt, va_list ap,
		 const char *tail)
{
	fprintf(stderr, "pebs-shim %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "%s\n", tail);
}

void tool_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(cmd, fmt, ap, "");
	va_end(ap);
}

int tool_usage_err(const char *cmd, const char *fmt, ...)
{
	char tail[64];
	va_list ap;

	snprintf(tail, sizeof(tail), ": see pebs-shim %s --help", cmd);
	va_start(ap, fmt);
	vmsg(cmd, fmt, ap, tail);
	va_end(ap);
	return 2;
}

bool tool_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

bool tool_parse_size(const char *s, uint64_t *v)
{
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || *v > UINT64_MAX >> shift)
		return false;
	*v <<= shift;
	return true;
}

bool tool_parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*v);
}

const char *const tool_filter_names[6] = { "comm", "pid", "tid", "cpu",
					     "dsos", "symbols" };

int tool_symfs(const char *cmd, struct pebs_session *ss, const char *dir)
{
	if (!dir || !pebs_symbols__set_symfs(pebs_session__symbols(ss), dir))
		return 0;
	tool_err(cmd, "%s", pebs_errmsg());
	return -1;
}

bool tool_is_stream(const char *path)
{
	struct stat st;

	return !strcmp(path, "-") && !fstat(STDIN_FILENO, &st) &&
	       !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

void tool_warn_truncated(const char *cmd, const char *path,
			 const struct pebs_perfdata *pd)
{
	if (!pd || !pebs_perfdata__truncated(pd))
		return;
	if (!pebs_perfdata__is_pipe(pd) &&
	    !pebs_perfdata__header(pd)->data.size)
		tool_err(cmd, "warning: %s: the header's data size is 0 (was "
			 "perf record properly terminated?): its records are "
			 "read to the end of the file", path);
	else
		tool_err(cmd, "warning: %s ends inside a record (was perf "
			 "record properly terminated?): the records before it "
			 "are used", path);
}
