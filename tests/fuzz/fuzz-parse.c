// SPDX-License-Identifier: MIT
/*
 * fuzz-parse.c - libFuzzer target for the library's small parsers: the
 * observer's raw file (pebs_obs_raw__parse_header/__parse_record over
 * the whole input), and the text parsers of the commands' options: CPU
 * lists, filters (--comm/--pid/--tid/--cpu/--time), report sort keys
 * and -g's argument (perf's call graph options), event lists (perf's
 * syntax, groups, modifiers); and record
 * --budget's cache of costs (its file's text: found and rewritten).
 *
 * Input: one selector byte, then the bytes (for the text parsers, cut at
 * the first NUL and copied into a buffer of exactly their length + 1 so
 * that ASan catches a read past the end). Selector % 4: 0 the raw file,
 * 1 CPU lists and filters, 2 sort keys (with bit 0x80: -g's argument),
 * 3 event lists (with bit 0x80: the cache's text).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim.h"
#include "record/record-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_obs_raw(const uint8_t *data, size_t size)
{
	struct pebs_obs_raw_record rec;
	struct pebs_obs_raw_info info;
	int hs = pebs_obs_raw__parse_header(data, size, &info);

	if (hs < 0)
		return;
	for (size_t off = (size_t)hs; off < size; off += info.record_size)
		if (pebs_obs_raw__parse_record(&info, data + off, size - off,
					       &rec))
			break;
}

/* the cache's text: each key it may hold looked up, then rewritten */
static void fuzz_calcache(const char *s)
{
	static char out[REC_CAL_FILE_MAX];
	struct rec_cal_entry e = { .when = 1, .v = { 2, 3 } }, got;
	size_t len;

	for (const char *p = s; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
		rec_cal_find(s, strtoull(p, NULL, 16), &got);
	len = rec_cal_compose(s, 7, &e, out);
	if (len >= sizeof(out) || rec_cal_find(out, 7, &got))
		abort();
}

static void fuzz_filter(const char *s, unsigned int which)
{
	struct pebs_filter *f;

	if (pebs_filter__new(&f))
		return;
	switch (which % 5) {
	case 0: pebs_filter__comms(f, s); break;
	case 1: pebs_filter__pids(f, s); break;
	case 2: pebs_filter__tids(f, s); break;
	case 3: pebs_filter__cpus(f, s); break;
	default: pebs_filter__time(f, s, 1000000000ULL, 9000000000ULL); break;
	}
	pebs_filter__delete(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
	static struct pebs_event evs[16];
	uint64_t bits[PEBS_MAX_CPUS / 64];
	unsigned int nr;
	size_t len;
	char *s;

	if (size < 1 || size > 4096)
		return 0;
	if (data[0] % 4 == 0) {
		uint8_t *copy = malloc(size - 1 ? size - 1 : 1);

		if (!copy)
			return 0;
		memcpy(copy, data + 1, size - 1);
		fuzz_obs_raw(copy, size - 1);
		free(copy);
		return 0;
	}
	len = strnlen((const char *)data + 1, size - 1);
	s = malloc(len + 1);
	if (!s)
		return 0;
	memcpy(s, data + 1, len);
	s[len] = '\0';
	switch (data[0] % 4) {
	case 1:
		pebs_cpulist__parse(s, PEBS_MAX_CPUS, bits);
		fuzz_filter(s, data[0] / 4);
		break;
	case 2:
		if (data[0] & 0x80) {
			PEBS_OPTS(pebs_report_graph_opts, g);

			pebs_report_graph__parse(s, &g);
		} else {
			pebs_report__parse_keys(s, keys, PEBS_REPORT_MAX_KEYS);
		}
		break;
	default:
		if (data[0] & 0x80)
			fuzz_calcache(s);
		else
			pebs_event__parse_list(s, evs, 16, &nr);
		break;
	}
	free(s);
	return 0;
}
