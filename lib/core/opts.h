/* SPDX-License-Identifier: MIT */
/*
 * opts.h - the library side of the public ABI scheme (see "Extensible
 * structs" at the top of pebsshim.h): sz-prefixed option and callback
 * structs, and perf_event_attr of a size the caller chose. Not installed.
 */
#ifndef PEBSSHIM_OPTS_H
#define PEBSSHIM_OPTS_H

#include <stddef.h>
#include <linux/perf_event.h>

/*
 * opts_copy - copy the caller's sz-prefixed struct @in (NULL: all
 * defaults) into the library's @out of @out_sz bytes: the first
 * min(in->sz, out_sz) bytes, the rest zero, then out's sz = @out_sz.
 * Returns 0, or -EINVAL with a message naming @type when in->sz is
 * smaller than its own field (not set: use PEBS_OPTS()) or larger with a
 * non-zero byte past @out_sz (a field of a newer library), as libbpf's
 * OPTS_VALID.
 */
int opts_copy(void *out, size_t out_sz, const void *in,
	      const char *type);

/*
 * opts_attr_copy - @src, a perf_event_attr of src->size bytes (0: unset,
 * taken as this library's size), into @dst: min(size, sizeof(*dst)) bytes,
 * the rest zero, dst->size = sizeof(*dst). Returns 0, or -EINVAL (size
 * below PERF_ATTR_SIZE_VER0, or a non-zero byte past this library's
 * struct: a field of newer kernel headers it cannot honour). @what
 * names the attr in the message.
 */
int opts_attr_copy(struct perf_event_attr *dst,
		   const struct perf_event_attr *src, const char *what);

/*
 * opts_attr_area_check - the bytes of an attr area of @size bytes
 * (struct pebs_event.attr_area, PEBS_EVENT_ATTR_AREA) past this library's
 * struct perf_event_attr must be zero. Returns 0 or -EINVAL naming @name
 * (the event).
 */
int opts_attr_area_check(const unsigned char *area, size_t size,
			 const char *name);

#endif
