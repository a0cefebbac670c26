// SPDX-License-Identifier: MIT
/*
 * test-pprof.c - pprof profiles (lib/export/pprof.c, export-pprof.c):
 * a profile built through the API, written, gunzipped and decoded back
 * with a small protobuf reader of this test's own: sample types and the
 * default, samples of one stack and label set summed and others apart,
 * labels (strings, numbers with units), locations, functions with lines,
 * mappings with build ids, string 0 empty; the file's mode 0600, an old
 * file kept when the path cannot be written; --labels and split names.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "core/internal.h"

#include "pb-read.h"

/* the @idx-th varint of a packed field */
static uint64_t packed_at(const struct field *f, unsigned int idx)
{
	const uint8_t *p = f->p, *end = f->p + f->len;
	uint64_t v = 0;

	for (unsigned int i = 0; i <= idx; i++) {
		assert_true(p < end);
		v = rd_varint(&p, end);
	}
	return v;
}

static unsigned int packed_n(const struct field *f)
{
	const uint8_t *p = f->p, *end = f->p + f->len;
	unsigned int n = 0;

	while (p < end) {
		rd_varint(&p, end);
		n++;
	}
	return n;
}

/* a decoded profile: the top-level fields by number */
struct prof {
	uint8_t *buf;
	size_t len;
	const char *str[64];
	size_t str_len[64];
	unsigned int nr_str;
};

static void load(struct prof *pr, const char *path)
{
	const uint8_t *p, *end;
	struct field f;

	memset(pr, 0, sizeof(*pr));
	pr->buf = gunzip(path, &pr->len);
	p = pr->buf;
	end = p + pr->len;
	while (next_field(&p, end, &f))
		if (f.num == 6) {
			assert_true(pr->nr_str < 64);
			pr->str[pr->nr_str] = (const char *)f.p;
			pr->str_len[pr->nr_str++] = f.len;
		}
}

/* string @i equals @s */
static bool str_is(const struct prof *pr, uint64_t i, const char *s)
{
	return i < pr->nr_str && pr->str_len[i] == strlen(s) &&
	       !memcmp(pr->str[i], s, pr->str_len[i]);
}

/* the @nth top-level field @num (a message): its bytes */
static bool nth(const struct prof *pr, unsigned int num, unsigned int nth_,
		struct field *out)
{
	const uint8_t *p = pr->buf, *end = p + pr->len;
	struct field f;

	while (next_field(&p, end, &f))
		if (f.num == num && !nth_--) {
			*out = f;
			return true;
		}
	return false;
}

static unsigned int count(const struct prof *pr, unsigned int num)
{
	struct field f;
	unsigned int n = 0;

	while (nth(pr, num, n, &f))
		n++;
	return n;
}

/* field @num of message @m (varint 0 when absent, as proto3) */
static bool sub(const struct field *m, unsigned int num, unsigned int nth_,
		struct field *out)
{
	const uint8_t *p = m->p, *end = m->p + m->len;
	struct field f;

	while (next_field(&p, end, &f))
		if (f.num == num && !nth_--) {
			*out = f;
			return true;
		}
	memset(out, 0, sizeof(*out));
	return false;
}

static uint64_t sub_v(const struct field *m, unsigned int num)
{
	struct field f;

	sub(m, num, 0, &f);
	return f.v;
}

/* ---- the tests ---- */

static char dir[] = "/tmp/test-pprof.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void test_profile_roundtrip(void **state)
{
	struct pebs_pprof *p;
	struct pebs_pprof_label l[2] = {
		{ .key = "comm", .str = "memwalk" },
		{ .key = "cpu", .num = 0, .unit = "cpu" },
	};
	uint32_t map, loc[3], again;
	int64_t v1[2] = { 1, 100 }, v2[2] = { 1, 250 };
	struct field f, g, h;
	struct prof pr;
	struct stat st;
	char path[256];
	bool added;

	(void)state;
	snprintf(path, sizeof(path), "%s/p.pb.gz", dir);
	assert_int_equal(pebs_pprof__new(&p), 0);
	assert_int_equal(pebs_pprof__sample_type(p, "samples", "count"), 0);
	assert_int_equal(pebs_pprof__sample_type(p, "cycles", "count"), 1);
	assert_int_equal(pebs_pprof__default_type(p, 1), 0);
	assert_int_equal(pebs_pprof__default_type(p, 2), -EINVAL);
	assert_int_equal(pebs_pprof__mapping(p, "/bin/memwalk", "abcd", &map),
			 0);
	assert_int_equal(map, 1);
	assert_int_equal(pebs_pprof__location(p, map, 0x1234, "leaf", &loc[0],
					      &added), 0);
	assert_true(added);
	assert_int_equal(pebs_pprof__location_line(p, loc[0], "walk.c", 42),
			 0);
	assert_int_equal(pebs_pprof__location(p, map, 0x2000, "main", &loc[1],
					      &added), 0);
	assert_int_equal(pebs_pprof__location_line(p, loc[1], "walk.c", 7), 0);
	assert_int_equal(pebs_pprof__location(p, map, 0x1234, "leaf", &again,
					      &added), 0);
	assert_false(added);
	assert_int_equal(again, loc[0]);
	/* no mapping 9, no location 9 */
	assert_int_equal(pebs_pprof__location(p, 9, 0, "x", &again, &added),
			 -EINVAL);
	loc[2] = 9;
	assert_int_equal(pebs_pprof__add(p, loc, 3, NULL, 0, v1), -EINVAL);
	/* two samples of one stack and labels: one Sample, summed */
	assert_int_equal(pebs_pprof__add(p, loc, 2, l, 2, v1), 0);
	assert_int_equal(pebs_pprof__add(p, loc, 2, l, 2, v2), 0);
	/* other labels: another Sample */
	assert_int_equal(pebs_pprof__add(p, loc, 2, l, 1, v1), 0);
	assert_int_equal(pebs_pprof__nr_samples(p), 2);
	assert_int_equal(pebs_pprof__sample_type(p, "late", "count"),
			 -EINVAL);
	pebs_pprof__set_time(p, 0, 5000);
	assert_int_equal(pebs_pprof__write(p, path), 0);
	pebs_pprof__delete(p);

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	load(&pr, path);
	assert_true(str_is(&pr, 0, ""));
	/* sample types and the default */
	assert_int_equal(count(&pr, 1), 2);
	assert_true(nth(&pr, 1, 1, &f));
	assert_true(str_is(&pr, sub_v(&f, 1), "cycles"));
	assert_true(str_is(&pr, sub_v(&f, 2), "count"));
	assert_true(nth(&pr, 14, 0, &f));
	assert_true(str_is(&pr, f.v, "cycles"));
	assert_true(nth(&pr, 10, 0, &f));
	assert_int_equal(f.v, 5000);
	/* the samples */
	assert_int_equal(count(&pr, 2), 2);
	assert_true(nth(&pr, 2, 0, &f));
	assert_true(sub(&f, 1, 0, &g));
	assert_int_equal(packed_n(&g), 2);
	assert_int_equal(packed_at(&g, 0), loc[0]);
	assert_int_equal(packed_at(&g, 1), loc[1]);
	assert_true(sub(&f, 2, 0, &g));
	assert_int_equal(packed_n(&g), 2);
	assert_int_equal(packed_at(&g, 0), 2);
	assert_int_equal(packed_at(&g, 1), 350);
	assert_true(sub(&f, 3, 0, &h));
	assert_true(str_is(&pr, sub_v(&h, 1), "comm"));
	assert_true(str_is(&pr, sub_v(&h, 2), "memwalk"));
	assert_true(sub(&f, 3, 1, &h));
	assert_true(str_is(&pr, sub_v(&h, 1), "cpu"));
	assert_int_equal(sub_v(&h, 2), 0);
	assert_int_equal(sub_v(&h, 3), 0);
	assert_true(str_is(&pr, sub_v(&h, 4), "cpu"));
	assert_false(sub(&f, 3, 2, &h));
	assert_true(nth(&pr, 2, 1, &f));
	assert_true(sub(&f, 2, 0, &g));
	assert_int_equal(packed_at(&g, 0), 1);
	assert_int_equal(packed_at(&g, 1), 100);
	assert_true(sub(&f, 3, 0, &h));
	assert_false(sub(&f, 3, 1, &h));
	/* the mapping */
	assert_int_equal(count(&pr, 3), 1);
	assert_true(nth(&pr, 3, 0, &f));
	assert_int_equal(sub_v(&f, 1), 1);
	assert_int_equal(sub_v(&f, 2), 0);
	assert_int_equal(sub_v(&f, 3), 0x2001);
	assert_true(str_is(&pr, sub_v(&f, 5), "/bin/memwalk"));
	assert_true(str_is(&pr, sub_v(&f, 6), "abcd"));
	assert_int_equal(sub_v(&f, 7), 1);
	/* the locations and their lines, the functions */
	assert_int_equal(count(&pr, 4), 2);
	assert_true(nth(&pr, 4, 0, &f));
	assert_int_equal(sub_v(&f, 1), loc[0]);
	assert_int_equal(sub_v(&f, 2), 1);
	assert_int_equal(sub_v(&f, 3), 0x1234);
	assert_true(sub(&f, 4, 0, &g));
	assert_int_equal(sub_v(&g, 1), 1);
	assert_int_equal(sub_v(&g, 2), 42);
	assert_int_equal(count(&pr, 5), 2);
	assert_true(nth(&pr, 5, 0, &f));
	assert_int_equal(sub_v(&f, 1), 1);
	assert_true(str_is(&pr, sub_v(&f, 2), "leaf"));
	assert_true(str_is(&pr, sub_v(&f, 4), "walk.c"));
	assert_true(nth(&pr, 5, 1, &f));
	assert_true(str_is(&pr, sub_v(&f, 2), "main"));
	free(pr.buf);
}

/* a path that cannot be written keeps what is there */
static void test_write_errors(void **state)
{
	struct pebs_pprof *p;
	int64_t v = 1;
	char path[256], sub_dir[256];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(pebs_pprof__new(&p), 0);
	assert_int_equal(pebs_pprof__sample_type(p, "samples", "count"), 0);
	assert_int_equal(pebs_pprof__add(p, NULL, 0, NULL, 0, &v), 0);
	snprintf(sub_dir, sizeof(sub_dir), "%s/d", dir);
	assert_int_equal(mkdir(sub_dir, 0755), 0);
	assert_int_equal(pebs_pprof__write(p, sub_dir), -EEXIST);
	assert_non_null(strstr(pebs_errmsg(), "directory"));
	snprintf(path, sizeof(path), "%s/nodir/p.pb.gz", dir);
	assert_int_equal(pebs_pprof__write(p, path), -ENOENT);
	/* an existing file is replaced whole */
	snprintf(path, sizeof(path), "%s/old.pb.gz", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old", 3), 3);
	close(fd);
	assert_int_equal(pebs_pprof__write(p, path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(st.st_size > 3);
	pebs_pprof__delete(p);
}

static void test_labels_and_names(void **state)
{
	unsigned int l;
	char buf[256];

	(void)state;
	assert_int_equal(pebs_export__parse_labels("comm,tid,mem_level", &l),
			 0);
	assert_int_equal(l, PEBS_EXPORT_LABEL_COMM | PEBS_EXPORT_LABEL_TID |
			 PEBS_EXPORT_LABEL_LEVEL);
	assert_int_equal(pebs_export__parse_labels("none", &l), 0);
	assert_int_equal(l, 0);
	assert_int_equal(pebs_export__parse_labels("all", &l), 0);
	assert_int_equal(l, 2 * PEBS_EXPORT_LABEL_WEIGHT - 1);
	assert_int_equal(pebs_export__parse_labels("comm,bogus", &l),
			 -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "'bogus'"));
	pebs_export__split_path("out.pb.gz", "cpu/mem-loads/P", buf,
				sizeof(buf));
	assert_string_equal(buf, "out.cpu_mem-loads_P.pb.gz");
	pebs_export__split_path("dir.x/out", "000003", buf, sizeof(buf));
	assert_string_equal(buf, "dir.x/out.000003");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_roundtrip),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_labels_and_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
