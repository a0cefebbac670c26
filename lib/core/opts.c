// SPDX-License-Identifier: MIT
/*
 * opts.c - size-checked copies of the structs callers fill: sz-prefixed
 * options and callback tables, and perf_event_attr of the caller's
 * linux/perf_event.h (see "Extensible structs" in pebsshim.h).
 */
#include <errno.h>
#include <string.h>

#include "core/internal.h"
#include "core/opts.h"

/* the first non-zero byte of p[from, to), or to */
static size_t first_nonzero(const unsigned char *p, size_t from, size_t to)
{
	while (from < to && !p[from])
		from++;
	return from;
}

int opts_copy(void *out, size_t out_sz, const void *in,
	      const char *type)
{
	size_t sz, at;

	memset(out, 0, out_sz);
	if (in) {
		memcpy(&sz, in, sizeof(sz));
		if (sz < sizeof(sz))
			return core_err(-EINVAL, "%s.sz is %zu: declare it "
					"with PEBS_OPTS(%s, ...)", type, sz,
					type);
		at = first_nonzero(in, out_sz, sz);
		if (at < sz)
			return core_err(-EINVAL, "%s has a non-zero field at "
					"byte %zu, past the %zu bytes this "
					"libpebsshim knows: use a newer "
					"libpebsshim or leave it zero", type,
					at, out_sz);
		memcpy(out, in, sz < out_sz ? sz : out_sz);
	}
	memcpy(out, &out_sz, sizeof(out_sz));
	return 0;
}

int opts_attr_copy(struct perf_event_attr *dst,
		   const struct perf_event_attr *src, const char *what)
{
	size_t size = src->size ? src->size : sizeof(*dst);
	size_t at;

	memset(dst, 0, sizeof(*dst));
	if (size < PERF_ATTR_SIZE_VER0)
		return core_err(-EINVAL, "%s: attr.size %zu is below %d "
				"(PERF_ATTR_SIZE_VER0): set it to "
				"sizeof(struct perf_event_attr)", what, size,
				PERF_ATTR_SIZE_VER0);
	at = first_nonzero((const unsigned char *)src, sizeof(*dst), size);
	if (at < size)
		return core_err(-EINVAL, "%s: attr has a non-zero field at "
				"byte %zu, past the %zu bytes of "
				"perf_event_attr this libpebsshim was built "
				"with: rebuild it with newer kernel headers "
				"or leave the field zero", what, at,
				sizeof(*dst));
	memcpy(dst, src, size < sizeof(*dst) ? size : sizeof(*dst));
	dst->size = sizeof(*dst);
	return 0;
}

int opts_attr_area_check(const unsigned char *area, size_t size,
			 const char *name)
{
	size_t at = first_nonzero(area, sizeof(struct perf_event_attr), size);

	if (at < size)
		return core_err(-EINVAL, "event %s: attr has a non-zero "
				"field at byte %zu, past the %zu bytes of "
				"perf_event_attr this libpebsshim was built "
				"with: rebuild it with newer kernel headers "
				"or leave the field zero", name, at,
				sizeof(struct perf_event_attr));
	return 0;
}
