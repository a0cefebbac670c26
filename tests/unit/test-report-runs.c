// SPDX-License-Identifier: MIT
/*
 * test-report-runs.c - a report made another way than sample by sample
 * is the same report: samples added in runs of alike ones
 * (lib/report/report-runs.c) against one by one, for every kind of key;
 * through a pebs_report_feed (lib/report/report-feed.c: batches added on a
 * thread); and kernel samples named after the pass
 * (pebs_report__name_kernel, lib/report/report-rename.c) against samples named
 * as they came.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "symbols/dso.h"
#include "symbols/symbols-int.h"
#include "report-rows.h"

#define NR		3000
#define KERNEL		"[kernel.kallsyms]"

static uint64_t seed = 88172645463325252ull;

/* xorshift64: the same samples every run */
static uint64_t rnd(uint64_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed % n;
}

/*
 * @n samples, most in runs: a run's samples share their thread,
 * function, data source and objects and differ in what differs from
 * sample to sample (ip, address, period, weight, CPU, physical address).
 */
static void make_samples(struct pebs_report_sample *s, size_t n)
{
	static const char *const comms[] = { "a", "b", NULL };
	static const char *const syms[] = { "f", "g", NULL };
	static const char *const dsos[] = { "/x", KERNEL, NULL };
	static const char *const dsyms[] = { "obj", NULL };
	static const uint64_t srcs[] = {
		0, 0x68100142ull /* L1 load */, 0x5080021ull /* store */,
		0x68501042ull /* HitM */,
	};
	size_t i;

	for (i = 0; i < n; i++) {
		struct pebs_report_sample *p = &s[i];

		if (i && rnd(10) < 8) {
			*p = s[i - 1];
			/* now and then one thing else differs */
			switch (rnd(30)) {
			case 0: p->tid++; break;
			case 1: p->pid++; break;
			case 2: p->comm = comms[rnd(3)]; break;
			case 3: p->sym = syms[rnd(3)]; break;
			case 4: p->dso = dsos[rnd(3)]; break;
			case 5: p->kernel = !p->kernel; break;
			case 6: p->event ^= 1; break;
			case 7: p->hidden = !p->hidden; break;
			case 8: p->has_addr = !p->has_addr; break;
			case 9: p->has_src = !p->has_src; break;
			case 10: p->data_src = srcs[rnd(4)]; break;
			case 11: p->data_dso = dsos[rnd(3)]; break;
			case 12: p->data_sym = dsyms[rnd(2)]; break;
			default: break;
			}
		} else {
			memset(p, 0, sizeof(*p));
			p->pid = 1 + (int32_t)rnd(2);
			p->tid = p->pid * 10 + (int32_t)rnd(3);
			p->comm = comms[rnd(3)];
			p->sym = syms[rnd(3)];
			p->dso = dsos[rnd(3)];
			p->kernel = p->dso && !strcmp(p->dso, KERNEL);
			p->event = (unsigned int)rnd(2);
			p->has_addr = rnd(10) < 9;
			p->has_src = rnd(10) < 8;
			p->data_src = p->has_src ? srcs[rnd(4)] : 0;
			p->data_dso = dsos[rnd(3)];
			p->data_sym = dsyms[rnd(2)];
			p->hidden = rnd(20) == 0;
		}
		p->ip = 0x1000 + rnd(4) * 0x10;
		p->cpu = (uint32_t)rnd(4);
		p->addr = p->has_addr ? 0x10000 + rnd(64) * 24 : 0;
		p->period = 1 + rnd(1000);
		p->has_weight = rnd(2);
		p->weight = p->has_weight ? 1 + rnd(300) : 0;
		p->has_phys = rnd(2);
		p->phys_addr = p->has_phys ? 0x7000 + rnd(8) * 64 : 0;
		p->data_sym_off = p->data_sym ? rnd(256) : 0;
	}
}

/* @a and @b hold the same rows, totals and order (and thread ids in
   the same order when @in_order). */
static void same_report(struct pebs_report *a, struct pebs_report *b,
			bool in_order)
{
	uint64_t sa, pa, sb, pb;
	int ev;

	pebs_report__sort(a);
	pebs_report__sort(b);
	assert_int_equal(pebs_report__nr_rows(a), pebs_report__nr_rows(b));
	for (ev = -1; ev < 2; ev++) {
		pebs_report__totals(a, ev, &sa, &pa);
		pebs_report__totals(b, ev, &sb, &pb);
		assert_int_equal(sa, sb);
		assert_int_equal(pa, pb);
	}
	same_rows(a, b, pebs_report__nr_rows(a), in_order);
}

/*
 * Every kind of key: the samples in batches (runs added at once where
 * they are long, the rest one by one) make the report the samples one
 * by one make.
 */
static void test_runs_as_samples(void **state)
{
	static const enum pebs_report_key sets[][3] = {
		{ PEBS_REPORT_PID, PEBS_REPORT_TID, PEBS_REPORT_COMM },
		{ PEBS_REPORT_SYM, PEBS_REPORT_DSO },
		{ PEBS_REPORT_SYM },
		{ PEBS_REPORT_DSO },
		{ PEBS_REPORT_COMM, PEBS_REPORT_SYM },
		{ PEBS_REPORT_SRC },
		{ PEBS_REPORT_CPU },
		{ PEBS_REPORT_EVENT, PEBS_REPORT_TID },
		{ PEBS_REPORT_WEIGHT },
		{ PEBS_REPORT_PAGE },
		{ PEBS_REPORT_LINE, PEBS_REPORT_TID },
		{ PEBS_REPORT_ADDR },
		{ PEBS_REPORT_DCACHELINE },
		{ PEBS_REPORT_SYM_DADDR },
		{ PEBS_REPORT_DSO_DADDR },
		{ PEBS_REPORT_PHYS_DADDR },
		{ PEBS_REPORT_MEM, PEBS_REPORT_SNOOP, PEBS_REPORT_TLB },
	};
	static struct pebs_report_sample s[NR];
	struct pebs_report *one, *batch;
	unsigned int k, nr_keys;
	size_t i, at;

	(void)state;
	make_samples(s, NR);
	for (k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		for (nr_keys = 1; nr_keys < 3 && sets[k][nr_keys]; nr_keys++)
			;
		assert_int_equal(pebs_report__new(sets[k], nr_keys, 2, &one),
				 0);
		assert_int_equal(pebs_report__new(sets[k], nr_keys, 2,
						  &batch), 0);
		for (i = 0; i < NR; i++)
			assert_int_equal(pebs_report__add(one, &s[i]), 0);
		/* uneven batches: runs cut at their ends */
		for (at = 0, i = 1; at < NR; at += i, i = i * 3 + 1)
			assert_int_equal(pebs_report__add_batch(batch, s + at,
						i < NR - at ? i : NR - at), 0);
		same_report(batch, one, true);
		pebs_report__delete(one);
		pebs_report__delete(batch);
	}
}

/*
 * A feed of several reports, over more samples than a batch holds: the
 * reports adding in place makes; no sample after __finish; __delete
 * finishes one left open.
 */
static void test_feed(void **state)
{
	static const enum pebs_report_key keys[][2] = {
		{ PEBS_REPORT_PID, PEBS_REPORT_TID },
		{ PEBS_REPORT_SYM, PEBS_REPORT_DSO },
		{ PEBS_REPORT_LINE },
	};
	static struct pebs_report_sample s[20000];
	struct pebs_report *fed[3], *want[3];
	struct pebs_report_feed *f;
	uint64_t n, period;
	unsigned int k;
	size_t i;

	(void)state;
	make_samples(s, 20000);
	for (k = 0; k < 3; k++) {
		assert_int_equal(pebs_report__new(keys[k], k < 2 ? 2 : 1, 2,
						  &fed[k]), 0);
		assert_int_equal(pebs_report__new(keys[k], k < 2 ? 2 : 1, 2,
						  &want[k]), 0);
	}
	assert_int_equal(pebs_report__defer(fed[2]), 0);
	assert_int_equal(pebs_report_feed__new(fed, 3, &f), 0);
	for (i = 0; i < 20000; i++) {
		assert_int_equal(pebs_report_feed__add(f, &s[i]), 0);
		for (k = 0; k < 3; k++)
			assert_int_equal(pebs_report__add(want[k], &s[i]), 0);
	}
	assert_int_equal(pebs_report_feed__finish(f), 0);
	assert_int_equal(pebs_report_feed__finish(f), 0);
	assert_int_equal(pebs_report_feed__add(f, &s[0]), -EINVAL);
	pebs_report_feed__delete(f);
	for (k = 0; k < 3; k++) {
		same_report(fed[k], want[k], true);
		pebs_report__delete(fed[k]);
		pebs_report__delete(want[k]);
	}
	/* left open: __delete adds the rest and ends the thread */
	assert_int_equal(pebs_report__new(keys[0], 2, 2, &fed[0]), 0);
	assert_int_equal(pebs_report_feed__new(fed, 1, &f), 0);
	for (i = 0; i < 9000; i++)
		assert_int_equal(pebs_report_feed__add(f, &s[i]), 0);
	pebs_report_feed__delete(f);
	pebs_report__totals(fed[0], -1, &n, &period);
	assert_int_equal(n, 9000);
	pebs_report__delete(fed[0]);
	assert_int_equal(pebs_report_feed__new(NULL, 1, &f), -EINVAL);
}

/* A kernel of three functions, as kallsyms would give them. */
static void fake_kernel(struct pebs_symbols *syms)
{
	static const char names[] = "k_one\0k_two\0k_three";
	struct dso *k = &syms->kernel;

	k->syms = calloc(3, sizeof(*k->syms));
	k->names = malloc(sizeof(names));
	assert_non_null(k->syms);
	assert_non_null(k->names);
	memcpy(k->names, names, sizeof(names));
	k->syms[0] = (struct sym){ .start = 0xffffffff81000000ull,
				   .name = k->names };
	k->syms[1] = (struct sym){ .start = 0xffffffff81000100ull,
				   .name = k->names + 6, .order = 1 };
	k->syms[2] = (struct sym){ .start = 0xffffffff81000200ull,
				   .name = k->names + 12, .order = 2 };
	k->nr_syms = 3;
}

/*
 * Kernel samples added unnamed (their symbols not read yet), then
 * named: the report the same samples named as they came make, for
 * keys with the symbol (and with or without its dso) and without.
 */
static void test_name_kernel(void **state)
{
	static const enum pebs_report_key sets[][2] = {
		{ PEBS_REPORT_SYM, PEBS_REPORT_DSO },
		{ PEBS_REPORT_SYM },
		{ PEBS_REPORT_COMM, PEBS_REPORT_SYM },
		{ PEBS_REPORT_DSO },
		{ PEBS_REPORT_TID },
	};
	static const uint64_t ips[] = {
		0xffffffff81000004ull, 0xffffffff81000108ull,
		0xffffffff81000008ull, 0xffffffff81000204ull,
		0xffffffff80000000ull,	/* below every symbol: unnamed */
	};
	struct pebs_report_sample s, named;
	struct pebs_report *late, *now;
	struct pebs_symbols *syms;
	unsigned int k, nr_keys, i;
	struct pebs_sym sym;

	(void)state;
	assert_int_equal(pebs_symbols__new(&syms), 0);
	fake_kernel(syms);
	for (k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		nr_keys = sets[k][1] ? 2 : 1;
		assert_int_equal(pebs_report__new(sets[k], nr_keys, 1, &late),
				 0);
		assert_int_equal(pebs_report__new(sets[k], nr_keys, 1, &now),
				 0);
		for (i = 0; i < 40; i++) {
			memset(&s, 0, sizeof(s));
			s.pid = s.tid = 5 + (int32_t)(i % 3);
			s.comm = i % 4 ? "w" : "v";
			s.period = 10 + i;
			if (i % 6 == 5) {	/* a user sample between */
				s.dso = "/bin/w";
				s.sym = "main";
				s.ip = 0x40;
			} else {
				pebs_symbols__resolve(syms, -1, ips[i % 5],
						      &sym);
				s.kernel = true;
				s.dso = sym.dso;
				s.ip = ips[i % 5];
				named = s;
				named.sym = sym.name;
				/* the first half before kallsyms is in */
				if (i >= 20)
					s = named;
				assert_int_equal(pebs_report__add(now, &named),
						 0);
			}
			if (s.sym && !s.kernel)
				assert_int_equal(pebs_report__add(now, &s), 0);
			assert_int_equal(pebs_report__add(late, &s), 0);
		}
		assert_int_equal(pebs_report__name_kernel(late, syms), 0);
		same_report(late, now, false);
		pebs_report__delete(late);
		pebs_report__delete(now);
	}
	assert_int_equal(pebs_report__name_kernel(NULL, syms), -EINVAL);
	pebs_symbols__delete(syms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_as_samples),
		cmocka_unit_test(test_feed),
		cmocka_unit_test(test_name_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
