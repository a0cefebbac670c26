// SPDX-License-Identifier: MIT
/*
 * sample-edit.c - where the leading fields of a sample and the fields
 * of a sample_id sit, as a pebs_sample_layout says (the one place these
 * offsets are computed for the readers and writers of perf.data), and
 * a record re-encoded with PERF_SAMPLE_TID added.
 */
#include <errno.h>
#include <string.h>

#include "pebsshim/decode.h"
#include "core/internal.h"

/* the fixed leading fields of a PERF_RECORD_SAMPLE, in record order */
static const uint64_t sample_order[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
	PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
	PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
};

/* the fields of a sample_id (sample_id_all), in record order */
static const uint64_t id_order[] = {
	PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
	PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

int pebs_sample_layout__pos(const struct pebs_sample_layout *l,
			    uint64_t field, bool sample_id)
{
	const uint64_t *order = sample_id ? id_order : sample_order;
	size_t n = sample_id ? NR(id_order) : NR(sample_order), i;
	uint64_t before = 0, from = 0;

	if (!l)
		return -EINVAL;
	for (i = 0; i < n && order[i] != field; i++)
		before |= order[i];
	if (i == n)
		return -EINVAL;
	for (; i < n; i++)
		from |= order[i];
	if (!sample_id)
		return (int)sizeof(struct perf_event_header) +
		       8 * __builtin_popcountll(l->sample_type & before);
	return 8 * __builtin_popcountll(l->sample_type & from);
}

int pebs_sample__add_tid(const struct pebs_sample_layout *l,
			 bool sample_id_all, const struct perf_event_header *ev,
			 int32_t tgid, int32_t tid, void *buf, size_t len)
{
	uint32_t pt[2] = { (uint32_t)tgid, (uint32_t)tid };
	size_t at, size;
	char *out = buf;

	if (!l || !ev || !buf)
		return core_err(-EINVAL, "add tid: nothing to re-encode");
	if (l->sample_type & PERF_SAMPLE_TID)
		return core_err(-EINVAL, "add tid: the samples have a TID");
	size = ev->size;
	if (ev->type == PERF_RECORD_SAMPLE) {
		at = pebs_sample_layout__pos(l, PERF_SAMPLE_TID, false);
		if (at > size)
			return core_err(-EBADMSG, "corrupt sample: %zu bytes "
					"end before its TID", size);
	} else if (sample_id_all && ev->type < PEBS_PERF_RECORD_HEADER_ATTR) {
		size_t idlen = pebs_sample_layout__pos(l, PERF_SAMPLE_TID,
						       true);

		if (size < sizeof(*ev) + idlen)
			return core_err(-EBADMSG, "corrupt record: %zu bytes "
					"cannot hold a %zu-byte sample_id",
					size, idlen);
		at = size - idlen;	/* TID leads the sample_id */
	} else {
		if (len < size)
			return core_err(-ENOSPC, "add tid: %zu bytes do not "
					"hold the record", len);
		memcpy(buf, ev, size);
		return (int)size;
	}
	if (len < size + 8 || size + 8 > UINT16_MAX)
		return core_err(-ENOSPC, "add tid: %zu bytes do not hold the "
				"record with its TID", len);
	memcpy(out, ev, at);
	memcpy(out + at, pt, sizeof(pt));
	memcpy(out + at + 8, (const char *)ev + at, size - at);
	((struct perf_event_header *)buf)->size = (uint16_t)(size + 8);
	return (int)(size + 8);
}
