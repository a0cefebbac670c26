/* SPDX-License-Identifier: MIT */
/* internal.h - helpers shared by the library's .c files; not installed. */
#ifndef PEBSSHIM_INTERNAL_H
#define PEBSSHIM_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "pebsshim/core.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Unaligned little-endian-host loads from records and files. */
static inline uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t ld16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * pebs_err - record a one-line reason for the calling thread and return
 * @err (a negative errno) so that callers can write
 *	return pebs_err(-ENOENT, "%s not found: ...", path);
 */
int pebs_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* pebs_err_clear - forget the last reason (on success paths). */
void pebs_err_clear(void);

/*
 * pebs_elf_build_id (lib/symbols/symbols.c) - the GNU build id of the ELF file
 * @path, copied into @bid (room for 20 bytes). Returns its length,
 * -ENOENT (not ELF, or no build id), or -errno from open.
 */
int pebs_elf_build_id(const char *path, uint8_t *bid);

#endif /* PEBSSHIM_INTERNAL_H */
