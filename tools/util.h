/* SPDX-License-Identifier: MIT */
/*
 * util.h - what every pebs-shim command shares: the one error printer
 * (every message is one line "pebs-shim CMD: cause: what to do") and
 * the number parsers of the option values.
 */
#ifndef PEBS_SHIM_UTIL_H
#define PEBS_SHIM_UTIL_H

#include <stdbool.h>
#include <stdint.h>

/* "pebs-shim @cmd: <message>\n" on stderr */
void tool_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * tool_usage_err - as tool_err, followed by ": see pebs-shim @cmd --help";
 * returns 2, the usage-error exit status of every command.
 */
int tool_usage_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Option values: the whole string must be the number. tool_parse_u64
 * takes decimal, 0x hex and 0 octal, no sign and no blank;
 * tool_parse_size adds a K, M or G suffix (powers of 1024);
 * tool_parse_double takes any finite strtod number.
 */
bool tool_parse_u64(const char *s, uint64_t *v);
bool tool_parse_size(const char *s, uint64_t *v);
bool tool_parse_double(const char *s, double *v);

#endif /* PEBS_SHIM_UTIL_H */
