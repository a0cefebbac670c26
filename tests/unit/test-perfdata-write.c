// SPDX-License-Identifier: MIT
/*
 * test-perfdata-write.c - the perf.data writer (lib/perfdata/perfdata-write.c),
 * read back with the reader (lib/perfdata/perfdata-read.c): attrs and ids, event
 * names, feature sections, synthesized COMM/MMAP2 records with their
 * sample_id trailer, samples across several write buffers, LOST
 * accounting, and the error paths; the output rules (nothing changes at
 * the path before the commit, FILE.old, non-regular paths refused), a
 * header that is valid while recording (a killed recording reads), a
 * file size limit mid-recording (EFBIG), the pipe format, and the
 * machine features perf c2c/mem need (lib/perfdata/perfdata-feat.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"

/* more samples than one 1 MiB write buffer holds */
#define NR_SAMPLES	40000

struct rec_sample {
	struct perf_event_header h;
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint32_t cpu, res;
	uint64_t period;
};

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
		     PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static char dir[] = "/tmp/test-perfdata-write.XXXXXX";

static int group_setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	return t_rm_tree(dir);
}

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void make_attr(struct perf_event_attr *a, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = config;
	a->sample_period = 1000;
	a->sample_type = SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->exclude_kernel = 1;
}

static void test_create_errors(void **state)
{
	struct pebs_perfdata_writer *w = NULL;
	int err;

	(void)state;
	err = pebs_perfdata_writer__create("/nonexistent-dir/x.data", &w);
	assert_int_equal(err, -ENOENT);
	assert_null(w);
	assert_non_null(strstr(pebs_errmsg(), "/nonexistent-dir/x.data"));
	assert_int_equal(pebs_perfdata_writer__close(NULL), 0);
}

/* A device (/dev/full) is refused before anything is written. */
static void test_device_refused(void **state)
{
	struct pebs_perfdata_writer *w = NULL;
	int err;

	(void)state;
	err = pebs_perfdata_writer__create("/dev/full", &w);
	assert_int_equal(err, -EEXIST);
	assert_null(w);
	assert_non_null(strstr(pebs_errmsg(), "/dev/full"));
	assert_non_null(strstr(pebs_errmsg(), "character device"));
	assert_int_equal(pebs_output__check("/tmp"), -EEXIST);
	assert_non_null(strstr(pebs_errmsg(), "directory"));
	assert_int_equal(access("/dev/full", F_OK), 0);
}

/* the whole of a small file, NUL-terminated, in @buf */
static ssize_t get_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

/* how many entries @dir holds (besides . and ..) */
static int nr_entries(const char *d)
{
	char cmd[PATH_MAX + 32];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", d);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void one_sample(struct pebs_perfdata_writer *w, unsigned int i)
{
	struct rec_sample s = {
		.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
		.id = 1, .ip = 0x400000 + i, .pid = 1, .tid = 1,
		.time = 1000 + i, .cpu = 0, .period = 1000,
	};

	assert_int_equal(pebs_perfdata_writer__write(w, &s.h), 0);
}

/*
 * Before __commit nothing at the path changes, and __discard leaves no
 * trace; __commit keeps a non-empty file as FILE.old; an empty one is
 * replaced without a .old.
 */
static void test_commit_rules(void **state)
{
	struct pebs_perfdata_writer *w;
	struct perf_event_attr a;
	char sub[PATH_MAX], path[PATH_MAX], old[PATH_MAX], buf[64];
	uint64_t id = 1;

	(void)state;
	path_of(sub, sizeof(sub), "commit");
	assert_int_equal(mkdir(sub, 0755), 0);
	path_of(path, sizeof(path), "commit/x.data");
	path_of(old, sizeof(old), "commit/x.data.old");
	assert_int_equal(t_put_file(dir, "commit/x.data", "precious\n"), 0);
	make_attr(&a, PERF_COUNT_SW_CPU_CLOCK);

	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1, "c"), 0);
	one_sample(w, 0);
	assert_true(get_file(path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "precious\n");
	pebs_perfdata_writer__discard(w);
	assert_true(get_file(path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "precious\n");
	assert_int_equal(nr_entries(sub), 1);

	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1, "c"), 0);
	one_sample(w, 0);
	assert_string_equal(buf, "precious\n");
	assert_int_equal(pebs_perfdata_writer__commit(w), 0);
	assert_true(get_file(old, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "precious\n");
	assert_true(get_file(path, buf, sizeof(buf)) > 0);
	assert_memory_equal(buf, "PERFILE2", 8);
	assert_int_equal(pebs_perfdata_writer__commit(w), 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	assert_int_equal(nr_entries(sub), 2);

	/* an empty file is no data to keep: replaced, .old untouched */
	assert_int_equal(unlink(old), 0);
	assert_int_equal(t_put_file(dir, "commit/x.data", ""), 0);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1, "c"), 0);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	assert_int_equal(access(old, F_OK), -1);
	assert_true(get_file(path, buf, sizeof(buf)) > 0);
	assert_memory_equal(buf, "PERFILE2", 8);
	assert_int_equal(pebs_output__backup(path), 0);
	assert_int_equal(access(old, F_OK), 0);
	assert_int_equal(access(path, F_OK), -1);
}

/* The samples a reader finds in @path (-errno if it cannot open it). */
static int count_samples(const char *path)
{
	const struct perf_event_header *ev;
	struct pebs_perfdata *pd;
	int n = 0, err;

	err = pebs_perfdata__open(path, &pd);
	if (err)
		return err;
	while ((err = pebs_perfdata__next(pd, &ev)) > 0)
		n += ev->type == PERF_RECORD_SAMPLE;
	pebs_perfdata__close(pd);
	return err < 0 ? err : n;
}

/*
 * The header is right while recording: after a FINISHED_ROUND (the
 * first one flushes) the file reads as it is, as after a SIGKILL.
 */
static void test_killed_reads(void **state)
{
	static const struct perf_event_header round = {
		.type = PEBS_PERF_RECORD_FINISHED_ROUND, .size = 8 };
	struct pebs_perfdata_writer *w;
	struct pebs_perf_file_header hdr;
	struct perf_event_attr a;
	char path[PATH_MAX];
	uint64_t id = 1;
	int fd;

	(void)state;
	path_of(path, sizeof(path), "killed.data");
	make_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1, "c"), 0);
	assert_int_equal(pebs_perfdata_writer__commit(w), 0);
	for (unsigned int i = 0; i < 100; i++)
		one_sample(w, i);
	assert_int_equal(pebs_perfdata_writer__write(w, &round), 0);
	/* buffered only: not in the file yet */
	for (unsigned int i = 100; i < 150; i++)
		one_sample(w, i);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &hdr, sizeof(hdr)), sizeof(hdr));
	close(fd);
	assert_true(hdr.magic == PEBS_PERF_MAGIC);
	assert_int_equal(hdr.attr_size, PERF_ATTR_SIZE_VER7 +
			 sizeof(struct pebs_perf_file_section));
	assert_int_equal(hdr.data.size, 100 * sizeof(struct rec_sample) + 8);
	assert_int_equal(hdr.features[0], 0);	/* only at the end */
	assert_int_equal(count_samples(path), 100);
	pebs_perfdata_writer__discard(w);	/* as if killed */
	assert_int_equal(count_samples(path), 100);
}

/*
 * A file size limit reached while recording (a full disk): -EFBIG naming
 * the file, sticky; __close() still leaves a consistent file with every
 * whole record that fit.
 */
static void test_size_limit(void **state)
{
	struct pebs_perfdata_writer *w;
	struct perf_event_attr a;
	struct rlimit old, lim;
	char path[PATH_MAX];
	uint64_t id = 1;
	int err = 0, n;
	unsigned int i;

	(void)state;
	path_of(path, sizeof(path), "limit.data");
	make_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1, "c"), 0);
	assert_int_equal(pebs_perfdata_writer__commit(w), 0);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 3u << 20;	/* room for two 1 MiB flushes */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 0; i < 200000 && !err; i++) {
		struct rec_sample s = {
			.h = { PERF_RECORD_SAMPLE, 0, sizeof(s) }, .id = 1,
			.time = i + 1,
		};

		err = pebs_perfdata_writer__write(w, &s.h);
	}
	assert_int_equal(err, -EFBIG);
	assert_non_null(strstr(pebs_errmsg(), path));
	assert_non_null(strstr(pebs_errmsg(), "File too large"));
	assert_int_equal(pebs_perfdata_writer__close(w), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	/*
	 * two 1 MiB flushes fit, the third is cut short: every whole
	 * sample up to the limit counts (header and attr: 256 bytes)
	 */
	n = count_samples(path);
	assert_int_equal(n, ((3u << 20) - 256) / sizeof(struct rec_sample));
}

/*
 * The pipe format: the 16-byte header, HEADER_ATTR (VER7 attr + ids),
 * HEADER_FEATURE records (NUMA_TOPOLOGY among them), then the records.
 */
static void test_pipe(void **state)
{
	struct pebs_perfdata_writer *w;
	struct perf_event_attr a;
	struct perf_event_header h;
	uint64_t id = 9, v[2], pos;
	char path[PATH_MAX];
	bool numa = false;
	int fd, nr_feat = 0, nr_sample = 0;
	char *buf;
	ssize_t n;

	(void)state;
	path_of(path, sizeof(path), "pipe.data");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	make_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(pebs_perfdata_writer__create_pipe(fd, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1, "c"), 0);
	assert_int_equal(pebs_perfdata_writer__commit(w), 0);
	for (unsigned int i = 0; i < 10; i++)
		one_sample(w, i);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	buf = malloc(1 << 20);
	assert_non_null(buf);
	n = pread(fd, buf, 1 << 20, 0);
	close(fd);
	assert_true(n > 16);
	memcpy(v, buf, 16);
	assert_true(v[0] == PEBS_PERF_MAGIC);
	assert_int_equal(v[1], 16);
	memcpy(&h, buf + 16, sizeof(h));
	assert_int_equal(h.type, PEBS_PERF_RECORD_HEADER_ATTR);
	assert_int_equal(h.size, 8 + PERF_ATTR_SIZE_VER7 + 8);
	memcpy(v, buf + 16 + 8 + PERF_ATTR_SIZE_VER7, 8);
	assert_int_equal(v[0], 9);
	for (pos = 16 + h.size; pos + 8 <= (uint64_t)n; pos += h.size) {
		memcpy(&h, buf + pos, sizeof(h));
		assert_true(h.size >= 8);
		if (h.type == PEBS_PERF_RECORD_HEADER_FEATURE) {
			assert_int_equal(nr_sample, 0);	/* features first */
			memcpy(v, buf + pos + 8, 8);
			numa |= v[0] == PEBS_FEAT_NUMA_TOPOLOGY;
			nr_feat++;
		}
		nr_sample += h.type == PERF_RECORD_SAMPLE;
	}
	assert_int_equal(pos, n);
	assert_true(numa);
	assert_true(nr_feat >= 10);
	assert_int_equal(nr_sample, 10);
	free(buf);
}

static void test_api_rules(void **state)
{
	struct pebs_perfdata_writer *w;
	struct perf_event_attr a;
	struct perf_event_header bad = { .type = 99, .size = 12 };
	struct perf_event_header round = {
		.type = PEBS_PERF_RECORD_FINISHED_ROUND, .size = 8 };
	uint64_t id1 = 1, id2 = 2;
	char path[PATH_MAX];

	(void)state;
	path_of(path, sizeof(path), "rules.data");
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	make_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id1, 1, "a"),
			 0);
	/* a second event needs IDENTIFIER in both */
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id2, 1, "b"),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__write(w, &bad), -EINVAL);
	assert_int_equal(pebs_perfdata_writer__write(w, &round), 0);
	/* no events after the first record */
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id2, 1, "b"),
			 -EINVAL);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
}

/* The string number @idx of a HEADER_CMDLINE section. */
static const char *cmdline_arg(const void *data, size_t size, unsigned idx)
{
	const char *p = data, *end = p + size;
	uint32_t nr, len;

	memcpy(&nr, p, 4);
	p += 4;
	for (unsigned int i = 0; i < nr && p + 4 <= end; i++) {
		memcpy(&len, p, 4);
		if (i == idx)
			return p + 4;
		p += 4 + len;
	}
	return NULL;
}

static void test_round_trip(void **state)
{
	static const uint64_t ids_a[] = { 11, 12 }, ids_b[] = { 21 };
	const char *argv[] = { "pebs-shim", "record", "-e", "cpu-clock",
			       "--attribution=tid" };
	const struct pebs_perfdata_writer_stats *st;
	const struct perf_event_header *ev;
	const struct perf_event_attr *ra;
	struct pebs_perfdata_writer *w;
	struct pebs_perfdata *pd;
	struct perf_event_attr a, b;
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint8_t sample_id[40];
	} lost = { { PERF_RECORD_LOST, 0, sizeof(lost) }, 11, 5, { 0 } };
	char path[PATH_MAX], exe[PATH_MAX], host[256], comm[32];
	const uint64_t *ids;
	const void *feat;
	size_t nr_ids, feat_size;
	uint64_t nr_samples = 0, nr_b = 0, last_time = 0;
	bool comm_seen = false, mmap_seen = false, data_seen = false;
	unsigned int idx;
	ssize_t n;
	int err;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	FILE *cf = fopen("/proc/self/comm", "r");
	assert_non_null(fgets(comm, sizeof(comm), cf));
	fclose(cf);
	comm[strcspn(comm, "\n")] = '\0';

	path_of(path, sizeof(path), "rt.data");
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	make_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	make_attr(&b, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, ids_a, 2,
							"cpu-clock"), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &b, ids_b, 1,
							"page-faults"), 0);
	assert_int_equal(pebs_perfdata_writer__set_cmdline(w, 5, argv), 0);
	assert_true(pebs_perfdata_writer__synth_task(w, getpid()) >= 1);
	for (unsigned int i = 0; i < NR_SAMPLES; i++) {
		struct rec_sample s = {
			.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
			       sizeof(s) },
			.id = i % 3 == 2 ? 21 : ids_a[i % 2],
			.ip = 0x400000 + i,
			.pid = (uint32_t)getpid(),
			.tid = (uint32_t)getpid() + i % 4,
			.time = 1000000 + (uint64_t)i * 10,
			.addr = 0x7f0000000000ull + i * 64,
			.cpu = i % 2,
			.period = 1000,
		};
		assert_int_equal(pebs_perfdata_writer__write(w, &s.h), 0);
	}
	assert_int_equal(pebs_perfdata_writer__write(w, &lost.h), 0);
	st = pebs_perfdata_writer__stats(w);
	assert_int_equal(st->samples, NR_SAMPLES);
	assert_int_equal(st->lost, 5);
	assert_int_equal(st->first_time, 1000000);
	assert_int_equal(st->last_time, 1000000 + (NR_SAMPLES - 1) * 10);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);

	err = pebs_perfdata__open(path, &pd);
	assert_int_equal(err, 0);
	assert_int_equal(pebs_perfdata__nr_attrs(pd), 2);
	ra = pebs_perfdata__attr(pd, 0, &ids, &nr_ids);
	assert_non_null(ra);
	assert_int_equal(ra->config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(ra->sample_type, SAMPLE_TYPE);
	assert_int_equal(ra->size, PERF_ATTR_SIZE_VER7);
	assert_int_equal(nr_ids, 2);
	assert_int_equal(ids[1], 12);
	ra = pebs_perfdata__attr(pd, 1, &ids, &nr_ids);
	assert_int_equal(ra->config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(nr_ids, 1);
	assert_int_equal(ids[0], 21);
	assert_string_equal(pebs_perfdata__attr_name(pd, 0), "cpu-clock");
	assert_string_equal(pebs_perfdata__attr_name(pd, 1), "page-faults");

	gethostname(host, sizeof(host));
	{
		char got[256];

		assert_true(pebs_perfdata__feat_str(pd, PEBS_FEAT_HOSTNAME, got,
						    sizeof(got)) > 0);
		assert_string_equal(got, host);
		assert_true(pebs_perfdata__feat_str(pd, PEBS_FEAT_ARCH, got,
						    sizeof(got)) > 0);
		assert_true(pebs_perfdata__feat_str(pd, PEBS_FEAT_OSRELEASE,
						    got, sizeof(got)) > 0);
	}
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_CMDLINE, &feat,
					     &feat_size), 0);
	assert_string_equal(cmdline_arg(feat, feat_size, 4),
			    "--attribution=tid");
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_SAMPLE_TIME, &feat,
					     &feat_size), 0);
	assert_int_equal(feat_size, 16);
	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_NRCPUS));
	/* the build id of every mapped file, this binary's included */
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_BUILD_ID, &feat,
					     &feat_size), 0);
	assert_non_null(memmem(feat, feat_size, exe, strlen(exe) + 1));
	/* and of the vdso and (when /sys shows it) the kernel, as perf */
	assert_non_null(memmem(feat, feat_size, "[vdso]", 7));
	if (access("/sys/kernel/notes", R_OK) == 0)
		assert_non_null(memmem(feat, feat_size, "[kernel.kallsyms]",
				       18));
	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_EVENT_DESC));
	/* what perf c2c and perf mem need: the machine's layout */
	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_CPU_TOPOLOGY));
	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_NUMA_TOPOLOGY));
	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_PMU_MAPPINGS));
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_PMU_MAPPINGS, &feat,
					     &feat_size), 0);
	assert_non_null(memmem(feat, feat_size, "software", 9));
	/* NUMA_TOPOLOGY: u32 nr >= 1, node, MemTotal, MemFree, CPU list */
	assert_int_equal(pebs_perfdata__feat(pd, PEBS_FEAT_NUMA_TOPOLOGY,
					     &feat, &feat_size), 0);
	{
		uint32_t nr, len;

		assert_true(feat_size >= 4 + 4 + 16 + 4 + 64);
		memcpy(&nr, feat, 4);
		assert_true(nr >= 1);
		memcpy(&len, (const char *)feat + 24, 4);
		assert_int_equal(len % 64, 0);
		assert_true(strlen((const char *)feat + 28) > 0);
	}

	while ((err = pebs_perfdata__next(pd, &ev)) > 0) {
		struct pebs_sample s;

		if (ev->type == PERF_RECORD_COMM) {
			const uint32_t *p = (const void *)(ev + 1);

			/* the sample_id trailer is there and decodes */
			assert_int_equal(pebs_perfdata__sample_id(pd, ev, &s,
								  NULL), 0);
			if (p[1] == (uint32_t)getpid()) {
				assert_int_equal(p[0], getpid());
				assert_string_equal((const char *)(p + 2),
						    comm);
				comm_seen = true;
			}
		} else if (ev->type == PERF_RECORD_MMAP2) {
			const char *name = (const char *)(ev + 1) + 8 + 24 +
					   24 + 8;

			uint32_t prot;

			assert_int_equal(pebs_perfdata__sample_id(pd, ev, &s,
								  NULL), 0);
			if (!strcmp(name, exe))
				mmap_seen = true;
			/* addresses sampled: data maps too, marked as such */
			memcpy(&prot, name - 8, 4);
			if (ev->misc & PERF_RECORD_MISC_MMAP_DATA) {
				assert_false(prot & PROT_EXEC);
				data_seen |= !strcmp(name, "[heap]") ||
					     !strcmp(name, "[stack]") ||
					     !strcmp(name, "//anon");
			} else {
				assert_true(prot & PROT_EXEC);
			}
		} else if (ev->type == PERF_RECORD_SAMPLE) {
			assert_int_equal(pebs_perfdata__sample(pd, ev, &s,
							       &idx), 0);
			assert_int_equal(s.ip, 0x400000 + nr_samples);
			assert_int_equal(s.tid, getpid() + nr_samples % 4);
			assert_int_equal(s.addr,
					 0x7f0000000000ull + nr_samples * 64);
			assert_true(s.time > last_time);
			last_time = s.time;
			nr_b += idx == 1;
			assert_int_equal(idx == 1, nr_samples % 3 == 2);
			nr_samples++;
		}
	}
	assert_int_equal(err, 0);
	assert_int_equal(nr_samples, NR_SAMPLES);
	assert_int_equal(nr_b, NR_SAMPLES / 3);
	assert_true(comm_seen);
	assert_true(mmap_seen);
	assert_true(data_seen);
	pebs_perfdata__close(pd);
}

/* The function the samples of test_for_perf point into. */
__attribute__((noinline, used)) int pebs_test_hot_fn(int x);
__attribute__((noinline, used)) int pebs_test_hot_fn(int x)
{
	return x * 5 + 1;
}

/*
 * A file as pebs-shim record writes one for one event without
 * IDENTIFIER: samples of this thread in pebs_test_hot_fn. With
 * PEBS_PERFDATA_KEEP=path it is kept there for tests/cli/report.t, which
 * checks that perf script/report read it without a warning.
 */
static void test_for_perf(void **state)
{
	const char *keep = getenv("PEBS_PERFDATA_KEEP");
	const char *argv[] = { "pebs-shim", "record", "-e", "cpu-clock",
			       "--attribution=tid" };
	struct pebs_perfdata_writer *w;
	struct perf_event_attr a;
	uint64_t id = 7;
	char path[PATH_MAX];

	(void)state;
	path_of(path, sizeof(path), "perf.data");
	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	make_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
	a.exclude_kernel = 0;	/* the kernel map gets synthesized too */
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &a, &id, 1,
							"cpu-clock"), 0);
	assert_int_equal(pebs_perfdata_writer__set_cmdline(w, 5, argv), 0);
	assert_true(pebs_perfdata_writer__synth_task(w, getpid()) >= 1);
	for (unsigned int i = 0; i < 1000; i++) {
		struct {
			struct perf_event_header h;
			uint64_t ip;
			uint32_t pid, tid;
			uint64_t time, addr;
			uint32_t cpu, res;
			uint64_t period;
		} s = {
			.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
			       sizeof(s) },
			.ip = (uintptr_t)pebs_test_hot_fn + i % 4,
			.pid = (uint32_t)getpid(),
			.tid = (uint32_t)getpid(),
			.time = 5000000 + (uint64_t)i * 1000,
			.addr = 0x10000 + (uint64_t)i * 8,
			.cpu = i % 2,
			.period = 1000,
		};
		assert_int_equal(pebs_perfdata_writer__write(w, &s.h), 0);
	}
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	if (keep)
		assert_int_equal(rename(path, keep), 0);
}

static int write_text(void *ctx, FILE *f)
{
	const char *text = ctx;

	if (!strcmp(text, "fail"))
		return core_err(-ENOSPC, "no room");
	fputs(text, f);
	return 0;
}

/* pebs_output__replace: all or nothing, the umask's permissions */
static void test_replace(void **state)
{
	char sub[PATH_MAX], path[PATH_MAX], buf[64];
	struct stat st;
	mode_t old = umask(027);

	(void)state;
	assert_int_equal(t_put_file(dir, "replace/pic.svg", "old\n"), 0);
	path_of(sub, sizeof(sub), "replace");
	path_of(path, sizeof(path), "replace/pic.svg");
	assert_int_equal(pebs_output__replace(path, write_text, "new\n"), 0);
	assert_true(get_file(path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(nr_entries(sub), 1);
	/* a failed write: the file as it was, nothing left beside it */
	assert_int_equal(pebs_output__replace(path, write_text, "fail"),
			 -ENOSPC);
	assert_non_null(strstr(pebs_errmsg(), "no room"));
	assert_non_null(strstr(pebs_errmsg(), "left unchanged"));
	assert_true(get_file(path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "new\n");
	assert_int_equal(nr_entries(sub), 1);
	/* not over a directory (nor a device or fifo) */
	assert_int_equal(pebs_output__replace(sub, write_text, "x"), -EEXIST);
	assert_int_equal(pebs_output__replace(path, NULL, NULL), -EINVAL);
	umask(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_device_refused),
		cmocka_unit_test(test_commit_rules),
		cmocka_unit_test(test_killed_reads),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_api_rules),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_for_perf),
		cmocka_unit_test(test_replace),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
