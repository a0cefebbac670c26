// SPDX-License-Identifier: MIT
/*
 * test-rdpmc.c - the perf user page protocol for user-space counter
 * reads (lib/observe/rdpmc.h), on a synthetic struct perf_event_mmap_page with a
 * fake rdpmc, so that every case is reachable without executing rdpmc
 * (it faults where user rdpmc is off; tests/live/test-observer.c runs
 * the real one where the host allows it). Covers offset, pmc_width sign
 * extension, the fallbacks (index 0, cap_user_rdpmc 0), and the seqlock
 * retry both deterministically and against a writer thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim.h"
#include "core/internal.h"
#include "observe/rdpmc.h"

static struct perf_event_mmap_page page __attribute__((aligned(4096)));
static uint64_t hw_value;		/* what the fake "hardware" returns */
static unsigned int hw_calls;
static unsigned int hw_last_counter;

static uint64_t fake_rdpmc(unsigned int counter)
{
	hw_calls++;
	hw_last_counter = counter;
	return PEBS_READ_ONCE(hw_value);
}

static int setup(void **state)
{
	(void)state;
	memset(&page, 0, sizeof(page));
	page.cap_user_rdpmc = 1;
	page.pmc_width = 48;
	page.index = 3;		/* hardware counter 2 */
	page.lock = 6;
	hw_value = 0;
	hw_calls = 0;
	hw_last_counter = ~0u;
	return 0;
}

static void test_cap_bit_matches_uapi(void **state)
{
	struct perf_event_mmap_page pg;

	(void)state;
	memset(&pg, 0, sizeof(pg));
	pg.cap_user_rdpmc = 1;
	assert_int_equal(pg.capabilities, PEBS_CAP_USER_RDPMC);
}

static void test_offset_added(void **state)
{
	uint64_t v = 0;

	(void)state;
	page.offset = 1000;
	hw_value = 5;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), 0);
	assert_int_equal(v, 1005);
	assert_int_equal(hw_last_counter, 2);	/* index - 1 */
	/* the exported wrapper follows the same path */
	v = 0;
	assert_int_equal(pebs_rdpmc_read(&page, fake_rdpmc, &v), 0);
	assert_int_equal(v, 1005);
}

static void test_sign_extension(void **state)
{
	uint64_t v = 0;

	(void)state;
	/* a 48-bit counter at -16 (armed to overflow), offset 100016 */
	hw_value = 0xfffffffffff0ULL;
	page.offset = 100016;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), 0);
	assert_int_equal(v, 100000);
	/* bits above pmc_width are not part of the count */
	hw_value = 0xdead000000000010ULL;
	page.offset = 0;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), 0);
	assert_int_equal(v, 16);
	/* a positive value just under the sign bit stays positive */
	hw_value = 0x7fffffffffffULL;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), 0);
	assert_int_equal(v, 0x7fffffffffffULL);
	/* negative offset (the kernel's count minus the armed value) */
	page.offset = -(int64_t)0x7fffffffffffLL;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), 0);
	assert_int_equal(v, 0);
	/* width 64 and width 0: taken as is */
	page.offset = 1;
	page.pmc_width = 64;
	hw_value = 0xfffffffffff0ULL;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), 0);
	assert_int_equal(v, 0xfffffffffff1ULL);
	page.pmc_width = 0;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), 0);
	assert_int_equal(v, 0xfffffffffff1ULL);
	assert_int_equal(pebs_sign_extend(0x80, 8), -128);
	assert_int_equal(pebs_sign_extend(0x7f, 8), 127);
}

static void test_index_zero_falls_back(void **state)
{
	uint64_t v = 42;

	(void)state;
	page.index = 0;
	page.offset = 7;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), -EOPNOTSUPP);
	assert_int_equal(hw_calls, 0);		/* never executed rdpmc */
	assert_int_equal(v, 42);		/* untouched */
}

static void test_no_cap_falls_back(void **state)
{
	uint64_t v = 42;

	(void)state;
	page.cap_user_rdpmc = 0;
	page.cap_user_time = 1;
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), -EOPNOTSUPP);
	assert_int_equal(hw_calls, 0);
	assert_int_equal(v, 42);
	assert_int_equal(pebs_rdpmc_read(&page, fake_rdpmc, &v), -EOPNOTSUPP);
	assert_int_equal(pebs_rdpmc_read(NULL, fake_rdpmc, &v), -EINVAL);
}

/* a "writer" that completes one update while the reader is in rdpmc */
static unsigned int bumps_left;

static uint64_t rdpmc_racing_writer(unsigned int counter)
{
	uint64_t v = fake_rdpmc(counter);

	if (bumps_left) {
		bumps_left--;
		page.lock++;
		page.offset += 1000;	/* the reader's copy is now stale */
		hw_value += 7;
		page.lock++;
	}
	return v;
}

static void test_changed_lock_retries(void **state)
{
	uint64_t v = 0;

	(void)state;
	page.offset = 1000;
	hw_value = 1;
	bumps_left = 2;
	assert_int_equal(pebs_rdpmc_page(&page, rdpmc_racing_writer, &v), 0);
	/* two torn copies thrown away, the third is the final state */
	assert_int_equal(hw_calls, 3);
	assert_int_equal(v, 3000 + 1 + 14);
	assert_int_equal(page.lock, 10);
}

static void test_odd_lock(void **state)
{
	uint64_t v = 42;

	(void)state;
	page.lock = 7;		/* a writer stuck midway */
	assert_int_equal(pebs_rdpmc_page(&page, fake_rdpmc, &v), -EAGAIN);
	assert_int_equal(hw_calls, 0);	/* never read during an update */
	assert_int_equal(v, 42);
}

/*
 * A writer thread updating the page as the kernel does (lock odd,
 * fields, lock even) with offset + sext(hw) == K in every generation:
 * a torn read would be off by a multiple of 1000.
 */
#define K 123456789ULL

/* run on @cpu when the machine has two CPUs (best effort) */
static void pin(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static atomic_bool stop;
static atomic_ullong generations;

static void *writer(void *arg)
{
	uint64_t g = 0;

	(void)arg;
	pin(1);		/* the reader is on CPU 0 */
	while (!atomic_load(&stop)) {
		g++;
		atomic_store_explicit(&generations, g, memory_order_relaxed);
		PEBS_WRITE_ONCE(page.lock, page.lock + 1);
		pebs_smp_wmb();
		PEBS_WRITE_ONCE(page.offset, (int64_t)(g * 1000));
		PEBS_WRITE_ONCE(hw_value, (K - g * 1000) & 0xffffffffffffULL);
		PEBS_WRITE_ONCE(page.index, (uint32_t)(g % 3));	/* 0: off */
		pebs_smp_wmb();
		PEBS_WRITE_ONCE(page.lock, page.lock + 1);
	}
	return NULL;
}

static uint64_t threaded_rdpmc(unsigned int counter)
{
	(void)counter;
	return PEBS_READ_ONCE(hw_value);
}

static void test_writer_thread(void **state)
{
	uint64_t ok = 0, off = 0, again = 0, reads = 0, g0, g1;
	uint64_t states = 0;	/* distinct writer states read */
	uint32_t last_lock = 0;
	time_t deadline = time(NULL) + 20;
	pthread_t t;

	(void)state;
	hw_value = K;
	page.offset = 0;
	atomic_store(&stop, false);
	atomic_store(&generations, 0);
	pin(0);
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	/* read while the writer runs: until it has made 100000 updates
	 * since the first read (on a loaded machine the two threads may
	 * only alternate on one CPU) */
	while (!atomic_load(&generations) && time(NULL) < deadline)
		sched_yield();
	g0 = atomic_load(&generations);
	do {
		for (int i = 0; i < 10000; i++) {
			uint64_t v = 0;
			int r = pebs_rdpmc_page(&page, threaded_rdpmc, &v);

			if (r == 0) {
				/* never a torn offset/counter pair */
				assert_int_equal(v, K);
				ok++;
				if (PEBS_READ_ONCE(page.lock) != last_lock)
					states++;
				last_lock = PEBS_READ_ONCE(page.lock);
			} else if (r == -EOPNOTSUPP) {
				off++;
			} else {
				assert_int_equal(r, -EAGAIN);
				again++;
			}
		}
		reads += 10000;
		g1 = atomic_load(&generations);
	} while ((reads < 200000 || g1 - g0 < 100000) && time(NULL) < deadline);
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	print_message("# writer thread: %llu updates during %llu reads: %llu consistent (%llu states), %llu index-0 fallbacks, %llu gave up\n",
		      (unsigned long long)(g1 - g0), (unsigned long long)reads,
		      (unsigned long long)ok, (unsigned long long)states,
		      (unsigned long long)off,
		      (unsigned long long)again);
	if (g1 - g0 < 100000)
		skip();	/* the writer hardly ran: nothing was raced */
	/* each consistent read gave K (checked above); and the retries let
	 * reads through while the writer raced them: a seqlock that never
	 * settles (or gives up at once) fails here */
	assert_true(ok > 0);
	assert_true(again < reads / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_cap_bit_matches_uapi, setup),
		cmocka_unit_test_setup(test_offset_added, setup),
		cmocka_unit_test_setup(test_sign_extension, setup),
		cmocka_unit_test_setup(test_index_zero_falls_back, setup),
		cmocka_unit_test_setup(test_no_cap_falls_back, setup),
		cmocka_unit_test_setup(test_changed_lock_retries, setup),
		cmocka_unit_test_setup(test_odd_lock, setup),
		cmocka_unit_test_setup(test_writer_thread, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
