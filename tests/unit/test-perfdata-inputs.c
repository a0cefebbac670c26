// SPDX-License-Identifier: MIT
/*
 * test-perfdata-inputs.c - the perf.data reader on the inputs perf users
 * have besides a finished file: hostile attr tables (linear work and
 * memory), files perf never finished (data size 0), pipe-mode streams
 * (from memory and through a real pipe), zstd-compressed records and
 * directory-format recordings (perf record --threads). The same on
 * recordings perf makes: tests/live/test-perfdata-perf.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME)

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static size_t put(struct buf *b, const void *p, size_t n)
{
	size_t at = b->len;

	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + at, p, n);
	b->len += n;
	return at;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put_hdr(struct buf *b, uint32_t type, size_t size)
{
	struct perf_event_header h = { type, 0, (uint16_t)size };

	put(b, &h, 8);
}

/* a sample of ST: { header; id; ip; time } */
static void put_sample(struct buf *b, uint64_t id, uint64_t ip)
{
	put_hdr(b, PERF_RECORD_SAMPLE, 32);
	put64(b, id);
	put64(b, ip);
	put64(b, 1000 + ip);
}

static struct perf_event_attr attr_of(uint64_t config)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.size = PERF_ATTR_SIZE_VER5,
		.config = config,
		.sample_type = ST,
		.sample_id_all = 1,
	};
}

/*
 * A file header with @nattr events (attr_size VER5), event i having
 * @nids ids starting at 100000 * (i + 1).
 */
static size_t put_header_attrs(struct buf *b, unsigned int nattr,
			       unsigned int nids)
{
	struct pebs_perf_file_header h = {
		.magic = PEBS_PERF_MAGIC,
		.size = sizeof(h),
		.attr_size = PERF_ATTR_SIZE_VER5 + 16,
	};
	size_t ids_at, attrs_at;

	put(b, &h, sizeof(h));
	ids_at = b->len;
	for (unsigned int i = 0; i < nattr; i++)
		for (unsigned int j = 0; j < nids; j++)
			put64(b, 100000ULL * (i + 1) + j);
	attrs_at = b->len;
	for (unsigned int i = 0; i < nattr; i++) {
		struct perf_event_attr a = attr_of(i);

		put(b, &a, PERF_ATTR_SIZE_VER5);
		put64(b, ids_at + 8ULL * nids * i);
		put64(b, 8ULL * nids);
	}
	h.attrs = (struct pebs_perf_file_section){ attrs_at, b->len - attrs_at };
	h.data.offset = b->len;
	memcpy(b->p, &h, sizeof(h));
	return b->len;
}

static void set_data_size(struct buf *b, uint64_t size)
{
	memcpy(b->p + offsetof(struct pebs_perf_file_header, data.size),
	       &size, 8);
}

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/*
 * 800 events, 11 ids each (~180 KB): read with work and memory linear in
 * the file (the id map was re-sorted per event: > 30 s, 125 MB). The
 * bound checked is memory: the reader holds at most 8 bytes per file
 * byte (ids, hash table, attrs); and every id maps to its event.
 * The same table with every event's ids section aliased to the whole
 * file is refused, having allocated nothing.
 */
static void test_many_attrs(void **state)
{
	struct buf b = { 0 };
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;
	struct pebs_sample s;
	unsigned int idx, n = 0;
	size_t before;

	(void)state;
	put_header_attrs(&b, 800, 11);
	for (unsigned int i = 0; i < 800; i += 7)
		put_sample(&b, 100000ULL * (i + 1) + i % 11, i);
	set_data_size(&b, b.len - ((struct pebs_perf_file_header *)b.p)->data.offset);
	assert_in_range(b.len, 150000, 250000);
	before = heap_in_use();
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), 0);
	assert_in_range(heap_in_use() - before, 0, 8 * b.len);
	assert_int_equal(pebs_perfdata__nr_attrs(pd), 800);
	while (pebs_perfdata__next(pd, &ev) > 0) {
		assert_int_equal(pebs_perfdata__sample(pd, ev, &s, &idx), 0);
		assert_int_equal(idx, s.ip);
		n++;
	}
	assert_int_equal(n, (800 + 6) / 7);
	pebs_perfdata__close(pd);

	/* every event's ids: the whole file (800 x 22k ids, as in the
	 * report: 180 KB, > 30 s and 125 MB before) */
	for (unsigned int i = 0; i < 800; i++) {
		const struct pebs_perf_file_header *h = (void *)b.p;
		unsigned char *e = b.p + h->attrs.offset +
				   i * h->attr_size + PERF_ATTR_SIZE_VER5;

		memcpy(e, &(uint64_t){ 0 }, 8);
		memcpy(e + 8, &(uint64_t){ b.len & ~7UL }, 8);
	}
	before = heap_in_use();
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), -EBADMSG);
	assert_non_null(strstr(pebs_errmsg(), "overlap"));
	assert_in_range(heap_in_use() - before, 0, 4096);
	free(b.p);
}

/* a file of 2 events with 2 samples and @feat HOSTNAME */
static void build_small(struct buf *b, bool feat)
{
	struct pebs_perf_file_header *h;
	size_t data_at, tab;
	uint32_t len = 8;

	b->len = 0;
	data_at = put_header_attrs(b, 2, 1);
	put_sample(b, 100000, 0x1111);
	put_sample(b, 200000, 0x2222);
	h = (void *)b->p;
	h->data.size = b->len - data_at;
	if (!feat)
		return;
	h->features[0] = 1ULL << PEBS_FEAT_HOSTNAME;
	tab = b->len;
	put64(b, tab + 16);
	put64(b, 12);
	put(b, &len, 4);
	put(b, "box\0\0\0\0\0", 8);
}

/* perf record killed: data.size 0, the last record cut short */
static void test_unfinished(void **state)
{
	struct buf b = { 0 };
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;
	struct pebs_sample s;
	char host[8];

	(void)state;
	build_small(&b, false);
	put_sample(&b, 100000, 0x3333);
	b.len -= 5;			/* the third sample is cut */
	set_data_size(&b, 0);
	((struct pebs_perf_file_header *)b.p)->features[0] =
		1ULL << PEBS_FEAT_HOSTNAME;	/* set, table never written */
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), 0);
	assert_true(pebs_perfdata__truncated(pd));
	assert_int_equal(pebs_perfdata__feat_str(pd, PEBS_FEAT_HOSTNAME, host,
						 sizeof(host)), -ENOENT);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
		assert_int_equal(pebs_perfdata__sample(pd, ev, &s, NULL), 0);
		assert_int_equal(s.ip, 0x1111);
		assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
		assert_int_equal(pebs_perfdata__next(pd, &ev), 0);
		pebs_perfdata__rewind(pd);
	}
	pebs_perfdata__close(pd);

	/* a finished file with an empty data section is not unfinished */
	build_small(&b, true);
	memmove(b.p + 104 + 16 + 2 * (PERF_ATTR_SIZE_VER5 + 16),
		b.p + b.len - 28, 28);
	b.len = 104 + 16 + 2 * (PERF_ATTR_SIZE_VER5 + 16) + 28;
	set_data_size(&b, 0);
	memcpy(b.p + b.len - 28, &(uint64_t){ b.len - 12 }, 8);
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), 0);
	assert_false(pebs_perfdata__truncated(pd));
	assert_int_equal(pebs_perfdata__feat_str(pd, PEBS_FEAT_HOSTNAME, host,
						 sizeof(host)), 3);
	assert_int_equal(pebs_perfdata__next(pd, &ev), 0);
	pebs_perfdata__close(pd);

	/* with a real data size, a record past the end is still an error */
	build_small(&b, false);
	((struct pebs_perf_file_header *)b.p)->data.size += 8;
	put64(&b, 0x0040000000000009ULL);	/* a 64-byte sample header */
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), 0);
	assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
	assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
	assert_int_equal(pebs_perfdata__next(pd, &ev), -EBADMSG);
	assert_false(pebs_perfdata__truncated(pd));
	pebs_perfdata__close(pd);
	free(b.p);
}

/*
 * A pipe-mode stream: header, HEADER_ATTR x2, HEADER_FEATURE HOSTNAME,
 * HEADER_TRACING_DATA with a 4000-byte payload, FINISHED_INIT, then
 * @nsamples samples alternating between the events.
 */
static void build_pipe(struct buf *b, unsigned int nsamples)
{
	uint32_t len = 8;

	b->len = 0;
	put64(b, PEBS_PERF_MAGIC);
	put64(b, 16);
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr a = attr_of(i);

		put_hdr(b, PEBS_PERF_RECORD_HEADER_ATTR, 8 + PERF_ATTR_SIZE_VER5 + 8);
		put(b, &a, PERF_ATTR_SIZE_VER5);
		put64(b, 10 + i);
	}
	put_hdr(b, PEBS_PERF_RECORD_HEADER_FEATURE, 16 + 12);
	put64(b, PEBS_FEAT_HOSTNAME);
	put(b, &len, 4);
	put(b, "pipe\0\0\0\0", 8);
	put_hdr(b, PEBS_PERF_RECORD_HEADER_TRACING_DATA, 16);
	put64(b, 4000);
	for (int i = 0; i < 500; i++)
		put64(b, 0x0040000000000009ULL);	/* not records */
	put_hdr(b, PEBS_PERF_RECORD_FINISHED_INIT, 8);
	for (unsigned int i = 0; i < nsamples; i++)
		put_sample(b, 10 + i % 2, i);
}

/* read a stream: records and samples; the sample ips must count up */
static void read_pipe(struct pebs_perfdata *pd, unsigned int nsamples)
{
	const struct perf_event_header *ev;
	struct pebs_sample s;
	unsigned int idx, n = 0, samples = 0;
	char host[8];
	int r;

	assert_true(pebs_perfdata__is_pipe(pd));
	assert_int_equal(pebs_perfdata__nr_attrs(pd), 2);
	assert_int_equal(pebs_perfdata__feat_str(pd, PEBS_FEAT_HOSTNAME, host,
						 sizeof(host)), 4);
	assert_string_equal(host, "pipe");
	while ((r = pebs_perfdata__next(pd, &ev)) > 0) {
		/* aligned, though HEADER_FEATURE's 28 bytes shift the rest */
		assert_int_equal((uintptr_t)ev & 7, 0);
		if (n++ == 3)
			assert_int_equal(ev->type, PEBS_PERF_RECORD_HEADER_TRACING_DATA);
		if (ev->type != PERF_RECORD_SAMPLE)
			continue;
		assert_int_equal(pebs_perfdata__sample(pd, ev, &s, &idx), 0);
		assert_int_equal(s.ip, samples);
		assert_int_equal(idx, samples % 2);
		samples++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(n, 5 + nsamples);
	assert_int_equal(samples, nsamples);
	assert_int_equal(pebs_perfdata__nr_attrs(pd), 2);
}

static void test_pipe_memory(void **state)
{
	struct buf b = { 0 };
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;

	(void)state;
	build_pipe(&b, 20000);	/* 640 KB: more than the stream's buffer */
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), 0);
	read_pipe(pd, 20000);
	pebs_perfdata__rewind(pd);	/* memory: can be read again */
	read_pipe(pd, 20000);
	pebs_perfdata__close(pd);

	/* killed: the last sample is cut short, dropped */
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len - 3, &pd), 0);
	assert_false(pebs_perfdata__truncated(pd));
	for (int i = 0; i < 5 + 19999; i++)
		assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
	assert_int_equal(pebs_perfdata__next(pd, &ev), 0);
	assert_true(pebs_perfdata__truncated(pd));
	pebs_perfdata__close(pd);
	free(b.p);
}

/* the same stream through a real pipe, written by a child */
static void test_pipe_fd(void **state)
{
	struct buf b = { 0 };
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;
	int fds[2], status;
	pid_t pid;

	(void)state;
	build_pipe(&b, 20000);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[0]);
		for (size_t at = 0; at < b.len;) {
			/* odd-sized writes: records straddle reads */
			ssize_t w = write(fds[1], b.p + at,
					  b.len - at < 777 ? b.len - at : 777);

			if (w <= 0)
				_exit(1);
			at += w;
		}
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(pebs_perfdata__open_fd(fds[0], &pd), 0);
	read_pipe(pd, 20000);
	pebs_perfdata__rewind(pd);
	assert_int_equal(pebs_perfdata__next(pd, &ev), -ESPIPE);
	assert_non_null(strstr(pebs_errmsg(), "save it to a file"));
	pebs_perfdata__close(pd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);

	/* a plain file through a pipe is refused with the fix */
	assert_int_equal(pipe(fds), 0);
	build_small(&b, false);
	assert_int_equal(write(fds[1], b.p, b.len), (ssize_t)b.len);
	close(fds[1]);
	assert_int_equal(pebs_perfdata__open_fd(fds[0], &pd), -EBADMSG);
	assert_non_null(strstr(pebs_errmsg(), "give it as a file"));
	free(b.p);
}

/*
 * A file whose data is @nrec samples compressed into COMPRESSED records
 * of at most @chunk input bytes each (so records straddle them), with
 * HEADER_COMPRESSED { 1, zstd, 1, 0, @mmap_len }.
 */
static void build_zstd(struct buf *b, unsigned int nrec, size_t chunk,
		       uint32_t mmap_len)
{
	struct buf raw = { 0 };
	ZSTD_CStream *cs = ZSTD_createCStream();
	struct pebs_perf_file_header *h;
	size_t data_at, tab;
	static unsigned char out[60000];	/* one record: < 64 KiB */
	uint32_t comp[5] = { 1, 1, 1, 0, mmap_len };

	assert_non_null(cs);
	assert_false(ZSTD_isError(ZSTD_initCStream(cs, 1)));
	for (unsigned int i = 0; i < nrec; i++)
		put_sample(&raw, 100000 * (1 + i % 2), i);
	b->len = 0;
	data_at = put_header_attrs(b, 2, 1);
	for (size_t at = 0; at < raw.len; at += chunk) {
		ZSTD_inBuffer in = { raw.p + at,
				     raw.len - at < chunk ? raw.len - at : chunk, 0 };
		ZSTD_outBuffer o = { out, sizeof(out), 0 };
		bool last = at + chunk >= raw.len;
		size_t left;

		do {
			left = ZSTD_compressStream2(cs, &o, &in,
						    last ? ZSTD_e_end : ZSTD_e_flush);
			assert_false(ZSTD_isError(left));
			assert_true(o.pos < o.size);
		} while (left || in.pos < in.size);
		/* not padded (perf 6.1): what follows may be unaligned */
		put_hdr(b, PEBS_PERF_RECORD_COMPRESSED, 8 + o.pos);
		put(b, out, o.pos);
	}
	put_hdr(b, PEBS_PERF_RECORD_FINISHED_ROUND, 8);
	h = (void *)b->p;
	h->data.size = b->len - data_at;
	h->features[0] = 1ULL << PEBS_FEAT_COMPRESSED;
	tab = b->len;
	put64(b, tab + 16);
	put64(b, sizeof(comp));
	put(b, comp, sizeof(comp));
	ZSTD_freeCStream(cs);
	free(raw.p);
}

static void test_zstd(void **state)
{
	struct buf b = { 0 };
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;
	struct pebs_sample s;
	unsigned int idx, samples = 0, other = 0;
	int r;

	(void)state;
	build_zstd(&b, 3000, 1000, 64 << 10);	/* 96 KB in 1000-byte pieces */
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), 0);
	for (int pass = 0; pass < 2; pass++) {
		samples = other = 0;
		while ((r = pebs_perfdata__next(pd, &ev)) > 0) {
			/* aligned, though COMPRESSED records are not padded */
			assert_int_equal((uintptr_t)ev & 7, 0);
			if (ev->type != PERF_RECORD_SAMPLE) {
				assert_int_equal(ev->type, PEBS_PERF_RECORD_FINISHED_ROUND);
				other++;
				continue;
			}
			assert_int_equal(pebs_perfdata__sample(pd, ev, &s, &idx), 0);
			assert_int_equal(s.ip, samples);
			assert_int_equal(idx, samples % 2);
			samples++;
		}
		assert_int_equal(r, 0);
		assert_int_equal(samples, 3000);
		assert_int_equal(other, 1);
		assert_false(pebs_perfdata__truncated(pd));
		pebs_perfdata__rewind(pd);
	}
	pebs_perfdata__close(pd);

	/* one piece decompresses to more than mmap_len */
	build_zstd(&b, 3000, 64 << 10, 4096);
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), 0);
	while ((r = pebs_perfdata__next(pd, &ev)) > 0)
		;
	assert_int_equal(r, -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "mmap_len"));
	pebs_perfdata__close(pd);

	/* a corrupt frame */
	build_zstd(&b, 300, 1000, 64 << 10);
	b.p[104 + 16 + 2 * (PERF_ATTR_SIZE_VER5 + 16) + 8] ^= 0xff;
	assert_int_equal(pebs_perfdata__from_memory(b.p, b.len, &pd), 0);
	r = pebs_perfdata__next(pd, &ev);
	assert_int_equal(r, -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "zstd"));
	assert_int_equal(pebs_perfdata__next(pd, &ev), 0);
	pebs_perfdata__close(pd);
	free(b.p);
}

/* write @len bytes at @p to @dir/@name */
static void write_file(const char *d, const char *name, const void *p,
		       size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/*
 * A perf record --threads directory: DIR/data (header, FINISHED_INIT,
 * HEADER_DIR_FORMAT), DIR/data.0 with samples at even times and a cut
 * last record, DIR/data.1 at odd times then a FINISHED_ROUND, and an
 * empty DIR/data.2. The samples come out in time order.
 */
static void test_directory(void **state)
{
	char d[] = "/tmp/pebs-dir-XXXXXX";
	struct buf b = { 0 }, k[2] = { { 0 }, { 0 } };
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;
	struct pebs_sample s;
	struct pebs_perf_file_header *h;
	unsigned int n = 0, ip = 0;
	size_t data_at, tab;
	int r;

	(void)state;
	assert_non_null(mkdtemp(d));
	assert_int_equal(pebs_perfdata__open(d, &pd), -EOPNOTSUPP);
	assert_non_null(strstr(pebs_errmsg(), "--threads"));
	data_at = put_header_attrs(&b, 2, 1);
	put_hdr(&b, PEBS_PERF_RECORD_FINISHED_INIT, 8);
	h = (void *)b.p;
	h->data.size = b.len - data_at;
	write_file(d, "data", b.p, b.len);	/* no DIR_FORMAT yet */
	assert_int_equal(pebs_perfdata__open(d, &pd), -EOPNOTSUPP);
	assert_non_null(strstr(pebs_errmsg(), "HEADER_DIR_FORMAT"));
	h->features[0] = 1ULL << PEBS_FEAT_DIR_FORMAT;
	tab = b.len;
	put64(&b, tab + 16);
	put64(&b, 8);
	put64(&b, 1);				/* version */
	write_file(d, "data", b.p, b.len);
	for (unsigned int i = 0; i < 8; i++)
		put_sample(&k[i % 2], 100000 * (1 + i % 2), i);
	put_hdr(&k[1], PEBS_PERF_RECORD_FINISHED_ROUND, 8);
	put_hdr(&k[0], PERF_RECORD_SAMPLE, 32);	/* cut by a kill */
	write_file(d, "data.0", k[0].p, k[0].len);
	write_file(d, "data.1", k[1].p, k[1].len);
	write_file(d, "data.2", "", 0);

	assert_int_equal(pebs_perfdata__open(d, &pd), 0);
	for (int pass = 0; pass < 2; pass++) {
		int types[11] = { 0 };

		n = ip = 0;
		while ((r = pebs_perfdata__next(pd, &ev)) > 0) {
			assert_true(n < 11);
			types[n++] = ev->type;
			if (ev->type != PERF_RECORD_SAMPLE)
				continue;
			assert_int_equal(pebs_perfdata__sample(pd, ev, &s, NULL), 0);
			assert_int_equal(s.ip, ip++);
		}
		assert_int_equal(r, 0);
		assert_int_equal(n, 10);
		assert_int_equal(types[0], PEBS_PERF_RECORD_FINISHED_INIT);
		/* data.1's FINISHED_ROUND stays after its last sample (7) */
		assert_int_equal(types[9], PEBS_PERF_RECORD_FINISHED_ROUND);
		assert_int_equal(ip, 8);
		assert_true(pebs_perfdata__truncated(pd));
		pebs_perfdata__rewind(pd);
	}
	pebs_perfdata__close(pd);
	assert_int_equal(t_rm_tree(d), 0);
	free(b.p);
	free(k[0].p);
	free(k[1].p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_attrs),
		cmocka_unit_test(test_unfinished),
		cmocka_unit_test(test_pipe_memory),
		cmocka_unit_test(test_pipe_fd),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
