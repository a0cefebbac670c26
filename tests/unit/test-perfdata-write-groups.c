// SPDX-License-Identifier: MIT
/*
 * test-perfdata-write-groups.c - event groups in the perf.data writer
 * (pebs_perfdata_writer__add_group): HEADER_GROUP_DESC byte for byte as
 * perf 6.1 writes it for `perf record -e '{cpu-clock,page-faults}'`
 * (u32 nr, "{anon_group}" as a perf string, u32 leader, u32 members),
 * named groups, no section without a group, the argument rules, and the
 * same section in the pipe format's HEADER_FEATURE record.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"

static char dir[] = "/tmp/test-perfdata-groups.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return t_rm_tree(dir);
}

/* a writer with @nr software events, ids 10, 11, ... */
static struct pebs_perfdata_writer *writer(const char *path, unsigned int nr)
{
	struct pebs_perfdata_writer *w;
	struct perf_event_attr a;

	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	for (unsigned int i = 0; i < nr; i++) {
		uint64_t id = 10 + i;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = i;
		a.sample_period = 1000;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
		assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1,
								NULL), 0);
	}
	return w;
}

/* the GROUP_DESC entry perf writes: name, leader, members */
static size_t entry(unsigned char *out, const char *name, uint32_t leader,
		    uint32_t members)
{
	uint32_t len = 64;	/* perf strings: padded to 64 */

	memset(out, 0, 4 + 64 + 8);
	memcpy(out, &len, 4);
	memcpy(out + 4, name, strlen(name));
	memcpy(out + 4 + 64, &leader, 4);
	memcpy(out + 4 + 64 + 4, &members, 4);
	return 4 + 64 + 8;
}

static void test_group_desc(void **state)
{
	unsigned char want[4 + 2 * 76];
	struct pebs_perfdata_writer *w;
	struct pebs_perfdata *pd;
	char path[PATH_MAX];
	const void *feat;
	uint32_t nr = 2;
	size_t size, n;

	(void)state;
	snprintf(path, sizeof(path), "%s/g.data", dir);
	w = writer(path, 5);
	assert_int_equal(pebs_perfdata_writer__add_group(w, 0, 2, NULL), 0);
	assert_int_equal(pebs_perfdata_writer__add_group(w, 2, 3, "mine"), 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_GROUP_DESC, &feat,
					     &size), 0);
	memcpy(want, &nr, 4);
	n = 4 + entry(want + 4, "{anon_group}", 0, 2);
	n += entry(want + n, "mine", 2, 3);
	assert_int_equal(size, n);
	assert_memory_equal(feat, want, n);
	pebs_perfdata__close(pd);

	/* no group, no section */
	w = writer(path, 2);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_GROUP_DESC, &feat,
					     &size), -ENOENT);
	pebs_perfdata__close(pd);
}

static void test_rules(void **state)
{
	struct pebs_perfdata_writer *w;
	char path[PATH_MAX];
	struct perf_event_header fin = { PEBS_PERF_RECORD_FINISHED_ROUND, 0, 8 };

	(void)state;
	snprintf(path, sizeof(path), "%s/r.data", dir);
	w = writer(path, 4);
	/* one event, events not added, past the end */
	assert_int_equal(pebs_perfdata_writer__add_group(w, 0, 1, NULL),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__add_group(w, 4, 2, NULL),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__add_group(w, 3, 2, NULL),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__add_group(NULL, 0, 2, NULL),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__add_group(w, 1, 2, NULL), 0);
	/* overlaps on either side */
	assert_int_equal(pebs_perfdata_writer__add_group(w, 0, 2, NULL),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "event 1 is in a group"));
	assert_int_equal(pebs_perfdata_writer__add_group(w, 2, 2, NULL),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__write(w, &fin), 0);
	assert_int_equal(pebs_perfdata_writer__add_group(w, 3, 1, NULL),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
}

/* the pipe format carries it as a HEADER_FEATURE record, as perf does */
static void test_pipe(void **state)
{
	struct pebs_perfdata_writer *w;
	struct pebs_perfdata *pd;
	unsigned char want[4 + 76];
	char path[PATH_MAX];
	const void *feat;
	uint32_t nr = 1;
	size_t size;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/p.data", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(pebs_perfdata_writer__create_pipe(fileno(f), &w), 0);
	{
		struct perf_event_attr a = {
			.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
			.sample_period = 1,
			.sample_type = PERF_SAMPLE_IDENTIFIER,
		};
		uint64_t id = 1;

		assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1,
								NULL), 0);
		id = 2;
		assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1,
								NULL), 0);
	}
	assert_int_equal(pebs_perfdata_writer__add_group(w, 0, 2, NULL), 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	fclose(f);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_GROUP_DESC, &feat,
					     &size), 0);
	memcpy(want, &nr, 4);
	entry(want + 4, "{anon_group}", 0, 2);
	assert_int_equal(size, sizeof(want));
	assert_memory_equal(feat, want, sizeof(want));
	pebs_perfdata__close(pd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_desc),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_pipe),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
