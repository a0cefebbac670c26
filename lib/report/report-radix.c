// SPDX-License-Identifier: MIT
/*
 * report-radix.c - the report's one radix sort: entries (a 64-bit key
 * and the 32-bit value it stands for) in key order, stably, in linear
 * time; the deferred report sorts its samples with it
 * (lib/report/report-defer.c), the derived report its rows by page
 * (lib/report/report-derive.c).
 */
#include <string.h>

#include "report/report-rows.h"

#define DIGIT_BITS	16

struct rp_kv *rp_radix(struct rp_kv *e, struct rp_kv *tmp, size_t n,
		       uint32_t (*hist)[RP_RADIX_BUCKETS])
{
	struct rp_kv *t;
	unsigned int k, b;
	size_t i, sum;

	memset(hist, 0, RP_RADIX_DIGITS * sizeof(*hist));
	for (i = 0; i < n; i++) {
		uint64_t v = e[i].key;

		for (k = 0; k < RP_RADIX_DIGITS; k++)
			hist[k][(v >> (k * DIGIT_BITS)) &
				(RP_RADIX_BUCKETS - 1)]++;
	}
	for (k = 0; k < RP_RADIX_DIGITS; k++) {
		for (b = 0; b < RP_RADIX_BUCKETS && hist[k][b] != n; b++)
			;
		if (b < RP_RADIX_BUCKETS)
			continue;	/* one value: nothing to move */
		for (b = 0, sum = 0; b < RP_RADIX_BUCKETS; b++) {
			size_t c = hist[k][b];

			hist[k][b] = (uint32_t)sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			uint64_t v = e[i].key;

			tmp[hist[k][(v >> (k * DIGIT_BITS)) &
				    (RP_RADIX_BUCKETS - 1)]++] = e[i];
		}
		t = e;
		e = tmp;
		tmp = t;
	}
	return e;
}
