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
#include <stdio.h>

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
/* tool_is_stream - whether @path is "-" on a pipe or socket (readable
   once: pebs_session__new_stream) */
bool tool_is_stream(const char *path);

/*
 * tool_warn_truncated - perf's warning for a recording cut short ("Was
 * the 'perf record' command properly terminated?"): the header's data
 * size still 0 (a killed perf record) or a last record that runs past
 * the end; said once, as a line of @cmd's, when pebs_perfdata__truncated.
 */
struct pebs_perfdata;
void tool_warn_truncated(const char *cmd, const char *path,
			 const struct pebs_perfdata *pd);
/*
 * tool_symfs - --symfs @dir (NULL: none given) for session @ss's symbols
 * (pebs_symbols__set_symfs): 0, or -1 once the reason is said as a line
 * of @cmd's (the command exits 2).
 */
struct pebs_session;
int tool_symfs(const char *cmd, struct pebs_session *ss, const char *dir);
bool tool_parse_u64(const char *s, uint64_t *v);
bool tool_parse_size(const char *s, uint64_t *v);
bool tool_parse_double(const char *s, double *v);


/*
 * The sample filters of report, script, plot and export (perf report's
 * --comm, --pid, --tid, --cpu, --time and --event): TOOL_FILTER_OPTIONS
 * are their getopt_long entries, for a command whose option enum has
 * OPT_COMM, OPT_PID, OPT_TID, OPT_CPU (in that order), OPT_TIME and
 * OPT_EVENT; tool_filter_names[opt - OPT_COMM] is the name
 * pebs_filter__option takes for the first four.
 */
#define TOOL_FILTER_OPTIONS \
	{ "comm", required_argument, NULL, OPT_COMM }, \
	{ "comms", required_argument, NULL, OPT_COMM }, \
	{ "pid", required_argument, NULL, OPT_PID }, \
	{ "tid", required_argument, NULL, OPT_TID }, \
	{ "cpu", required_argument, NULL, OPT_CPU }, \
	{ "dsos", required_argument, NULL, OPT_DSOS }, \
	{ "symbols", required_argument, NULL, OPT_SYMS }, \
	{ "time", required_argument, NULL, OPT_TIME }, \
	{ "event", required_argument, NULL, OPT_EVENT }
extern const char *const tool_filter_names[6];

#endif /* PEBS_SHIM_UTIL_H */
