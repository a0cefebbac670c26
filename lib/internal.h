/* SPDX-License-Identifier: MIT */
/* internal.h - helpers shared by the library's .c files; not installed. */
#ifndef PEBSSHIM_INTERNAL_H
#define PEBSSHIM_INTERNAL_H

#include "pebsshim.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * pebs_err - record a one-line reason for the calling thread and return
 * @err (a negative errno) so that callers can write
 *	return pebs_err(-ENOENT, "%s not found: ...", path);
 */
int pebs_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* pebs_err_clear - forget the last reason (on success paths). */
void pebs_err_clear(void);

#endif /* PEBSSHIM_INTERNAL_H */
