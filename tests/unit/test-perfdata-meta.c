// SPDX-License-Identifier: MIT
/*
 * test-perfdata-meta.c - pebs-shim's words in a recording
 * (lib/perfdata/perfdata-meta.c): set, replaced, read back from a file
 * and from a pipe stream, refused when they would not be one word, and
 * absent from files other tools wrote (the Intel fixture); and the
 * header printer (lib/perfdata/perfdata-header.c, -machine.c) on the
 * same file: the typed command line, the version with the words,
 * offsets, missing features, the topologies summarized or in full, and
 * no line for a feature bit perf does not know.
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
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"

static char path[64], pipe_path[64];

static void write_one(struct pebs_perfdata_writer *w)
{
	static const char *const argv[] = {
		"pebs-shim", "record", "--", "prog", "it's",
	};
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
	} s = {
		{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
		0x1000, 1, 1, 5000000000ULL,
	};
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME,
	};

	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, NULL, 0,
							"cpu-clock"), 0);
	assert_int_equal(pebs_perfdata_writer__set_cmdline(w, 5, argv), 0);
	assert_int_equal(pebs_perfdata_writer__set_meta(w, "attribution",
							"map"), 0);
	assert_int_equal(pebs_perfdata_writer__set_meta(w, "x", "1"), 0);
	/* replaced, not added */
	assert_int_equal(pebs_perfdata_writer__set_meta(w, "attribution",
							"tid"), 0);
	assert_int_equal(pebs_perfdata_writer__write(w, &s.h), 0);
}

static int setup(void **state)
{
	struct pebs_perfdata_writer *w;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test-meta.%d.data", getpid());
	snprintf(pipe_path, sizeof(pipe_path), "/tmp/test-meta.%d.pipe",
		 getpid());
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	write_one(w);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	fd = open(pipe_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pebs_perfdata_writer__create_pipe(fd, &w), 0);
	write_one(w);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	unlink(pipe_path);
	return 0;
}

static void read_back(const char *p)
{
	struct pebs_perfdata *pd;
	char buf[16];

	assert_int_equal(pebs_perfdata__open(p, &pd), 0);
	assert_int_equal(pebs_perfdata__meta(pd, "attribution", buf,
					     sizeof(buf)), 3);
	assert_string_equal(buf, "tid");
	assert_int_equal(pebs_perfdata__meta(pd, "x", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "1");
	assert_int_equal(pebs_perfdata__meta(pd, "attr", buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(pebs_perfdata__meta(pd, "a=b", buf, sizeof(buf)),
			 -EINVAL);
	/* cut to the buffer, the length as snprintf */
	assert_int_equal(pebs_perfdata__meta(pd, "attribution", buf, 2), 3);
	assert_string_equal(buf, "t");
	pebs_perfdata__close(pd);
}

static void test_meta(void **state)
{
	struct pebs_perfdata_writer *w;
	struct pebs_perfdata *pd;
	char buf[16], tmp[4096];
	const char *src = getenv("PEBS_SRC");

	(void)state;
	read_back(path);
	read_back(pipe_path);
	/* refused: not one word */
	snprintf(tmp, sizeof(tmp), "/tmp/test-meta.%d.bad", getpid());
	assert_int_equal(pebs_perfdata_writer__create(tmp, &w), 0);
	assert_int_equal(pebs_perfdata_writer__set_meta(w, "a b", "c"),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__set_meta(w, "a=", "c"),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__set_meta(w, "a", "c d"),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__set_meta(w, "a", ""), -EINVAL);
	assert_int_equal(pebs_perfdata_writer__set_meta(w, "a", "x=y"), 0);
	pebs_perfdata_writer__discard(w);
	/* perf's files have none */
	snprintf(tmp, sizeof(tmp), "%s/tests/fixtures/intel-skx-xeon8173M_"
		 "ldlat64_weight-struct.perf.data", src ? src : ".");
	assert_int_equal(pebs_perfdata__open(tmp, &pd), 0);
	assert_int_equal(pebs_perfdata__meta(pd, "attribution", buf,
					     sizeof(buf)), -ENOENT);
	pebs_perfdata__close(pd);
}

static char *header(const char *p, unsigned int flags)
{
	struct pebs_perfdata *pd;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(pebs_perfdata__open(p, &pd), 0);
	assert_int_equal(pebs_perfdata__print_header(pd, f, 0, flags), 0);
	assert_int_equal(pebs_perfdata__print_header(pd, f, 0, 4), -EINVAL);
	pebs_perfdata__close(pd);
	fclose(f);
	return out;
}

static void test_header(void **state)
{
	char *h = header(path, 0), *full = header(path, PEBS_HEADER_FULL);
	char *pipe = header(pipe_path, 0);

	(void)state;
	assert_true(!strncmp(h, "# ========\n# header version : 1\n", 32));
	assert_non_null(strstr(h, "\n# perf version : pebs-shim x=1 "
				  "attribution=tid\n"));
	/* as typed; perf's \' for a quote */
	assert_non_null(strstr(h, "\n# cmdline : pebs-shim record -- prog "
				  "it\\'s \n"));
	assert_non_null(strstr(h, "\n# event : name = cpu-clock, , type = 1,"
				  " size = "));
	assert_non_null(strstr(h, ", { sample_period, sample_freq } = 1000, "
				  "sample_type = IP|TID|TIME\n"));
	assert_non_null(strstr(h, "\n# time of first sample : 5.000000\n# "
				  "time of last sample : 5.000000\n# sample "
				  "duration :      0.000 ms\n"));
	assert_non_null(strstr(h, "\n# missing features: TRACING_DATA "));
	assert_true(strlen(h) > 20 &&
		    !strcmp(h + strlen(h) - 14, "\n# ========\n#\n"));
	assert_null(strstr(h, "captured on"));
	if (strstr(h, "CPU_TOPOLOGY info available")) {
		assert_null(strstr(full, "CPU_TOPOLOGY info available"));
		assert_non_null(strstr(full, "\n# sibling threads : "));
	}
	/* a pipe: closed before the features, no missing list */
	assert_non_null(strstr(pipe, "# feat offset    : 0\n# ========\n#\n"));
	assert_null(strstr(pipe, "missing features"));
	assert_non_null(strstr(pipe, "\n# perf version : pebs-shim x=1 "
				     "attribution=tid\n"));
	free(h);
	free(full);
	free(pipe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_header),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
