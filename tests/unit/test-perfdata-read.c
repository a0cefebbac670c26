// SPDX-License-Identifier: MIT
/*
 * test-perfdata-read.c - the perf.data reader on the real recordings in
 * tests/fixtures (made on Skylake-SP and Zen 4 hardware) and on small
 * files built here for attr sizes, HEADER_ATTR records and corruption.
 *
 * Expected figures were checked independently: record and sample counts
 * with `perf report -D` / `perf script` (Debian perf 6.1) on the Intel
 * file and on a copy of the AMD file whose attrs were cut to 128 bytes
 * (perf 6.1 refuses 136), and with a separate Python decoder.
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

#define INTEL "intel-skx-xeon8173M_ldlat64_weight-struct.perf.data"
#define AMD "amd-zen4-epyc9254_ibs-c2c_ring.perf.data"

static struct pebs_perfdata *open_fixture(const char *name)
{
	const char *src = getenv("PEBS_SRC");
	struct pebs_perfdata *pd = NULL;
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".",
		 name);
	err = pebs_perfdata__open(path, &pd);
	if (err)
		print_error("%s: %s (set PEBS_SRC to the source tree)\n", path,
			    pebs_errmsg());
	assert_int_equal(err, 0);
	return pd;
}

static void test_intel(void **state)
{
	struct pebs_perfdata *pd = open_fixture(INTEL);
	const struct perf_event_header *ev;
	const struct perf_event_attr *attr;
	const uint64_t *ids;
	size_t nr_ids;
	uint64_t records = 0, samples = 0, with_id = 0, wmin = ~0ULL, wmax = 0;
	uint64_t types[128] = { 0 };
	char buf[256];
	int n, found = 0;

	(void)state;
	assert_int_equal(pebs_perfdata__nr_attrs(pd), 2);
	attr = pebs_perfdata__attr(pd, 0, &ids, &nr_ids);
	assert_non_null(attr);
	assert_int_equal(attr->size, 96);
	assert_int_equal(attr->type, PERF_TYPE_RAW);
	assert_int_equal(attr->config, 0x1cd);
	assert_int_equal(attr->config1, 0x40);
	assert_int_equal(attr->precise_ip, 2);
	assert_int_equal(attr->sample_type,
			 PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT);
	assert_int_equal(nr_ids, 112);
	assert_int_equal(ids[0], 3168);
	assert_int_equal(ids[111], 3279);
	assert_string_equal(pebs_perfdata__attr_name(pd, 0),
			    "MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned");
	attr = pebs_perfdata__attr(pd, 1, &ids, &nr_ids);
	assert_int_equal(attr->type, PERF_TYPE_SOFTWARE);
	assert_int_equal(attr->config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(ids[0], 3280);
	assert_string_equal(pebs_perfdata__attr_name(pd, 1), "dummy:HG");
	assert_null(pebs_perfdata__attr(pd, 2, NULL, NULL));

	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_EVENT_DESC));
	assert_false(pebs_perfdata__has_feat(pd, PEBS_FEAT_MEM_TOPOLOGY));
	n = pebs_perfdata__feat_str(pd, PEBS_FEAT_HOSTNAME, buf, sizeof(buf));
	assert_int_equal(n, strlen("oxco15.prod.google.com"));
	assert_string_equal(buf, "oxco15.prod.google.com");
	assert_int_equal(pebs_perfdata__feat_str(pd, PEBS_FEAT_CACHE, buf,
						 sizeof(buf)), -ENOENT);

	while ((n = pebs_perfdata__next(pd, &ev)) > 0) {
		struct pebs_sample s;
		unsigned int idx = 99;

		records++;
		types[ev->type < 128 ? ev->type : 0]++;
		if (ev->type != PERF_RECORD_SAMPLE) {
			if (ev->type < PEBS_PERF_RECORD_HEADER_ATTR) {
				/* sample_id_all: TID TIME ID CPU at the end */
				assert_int_equal(pebs_perfdata__sample_id(pd, ev, &s,
									  &idx), 0);
				assert_true(s.present & PERF_SAMPLE_ID);
				with_id++;
			}
			continue;
		}
		samples++;
		assert_int_equal(pebs_perfdata__sample(pd, ev, &s, &idx), 0);
		assert_int_equal(idx, 0);	/* the load-latency event */
		assert_true(s.id >= 3168 && s.id <= 3279);
		if (s.weight < wmin)
			wmin = s.weight;
		if (s.weight > wmax)
			wmax = s.weight;
		if (s.time == 13166196585610ULL) {	/* perf script's first */
			found++;
			assert_int_equal(s.pid, 20132);
			assert_int_equal(s.tid, 20144);
			assert_int_equal(s.cpu, 28);
			assert_int_equal(s.time, 13166196585610ULL);
			assert_int_equal(s.addr, 0x55ffba5cda08ULL);
			assert_int_equal(s.ip, 0xffffffffa4470d46ULL);
			assert_int_equal(s.weight, 225);
			assert_int_equal(s.data_src, 0x11868100242ULL);
			pebs_data_src__str(s.data_src, buf, sizeof(buf));
			assert_string_equal(buf,
				"|OP LOAD|LVL LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
		}
		if (s.time == 13173534502129ULL) {	/* the last one */
			found++;
			assert_int_equal(s.tid, 19892);
			assert_int_equal(s.weight, 168);
			pebs_data_src__str(s.data_src, buf, sizeof(buf));
			assert_string_equal(buf,
				"|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
		}
	}
	assert_int_equal(n, 0);
	assert_int_equal(found, 2);
	assert_int_equal(records, 12964);
	assert_int_equal(samples, 14);
	assert_int_equal(wmin, 70);
	assert_int_equal(wmax, 249);
	/* perf report -D: record types */
	assert_int_equal(types[PERF_RECORD_COMM], 2959);
	assert_int_equal(types[PERF_RECORD_EXIT], 59);
	assert_int_equal(types[PERF_RECORD_FORK], 2955);
	assert_int_equal(types[PERF_RECORD_MMAP], 15);
	assert_int_equal(types[PERF_RECORD_MMAP2], 6930);
	assert_int_equal(types[PEBS_PERF_RECORD_FINISHED_ROUND], 30);
	assert_int_equal(with_id, 2959 + 59 + 2955 + 15 + 6930);

	/* a second pass sees the same */
	pebs_perfdata__rewind(pd);
	records = 0;
	while (pebs_perfdata__next(pd, &ev) > 0)
		records++;
	assert_int_equal(records, 12964);
	assert_int_equal(pebs_perfdata__nr_attrs(pd), 2);
	pebs_perfdata__close(pd);
}

static void test_amd(void **state)
{
	struct pebs_perfdata *pd = open_fixture(AMD);
	const struct perf_event_header *ev;
	const struct perf_event_attr *attr;
	uint64_t records = 0, samples = 0, loads = 0, stores = 0, addrs = 0;
	uint64_t hitm = 0;
	size_t nr_ids;
	const uint64_t *ids;
	char buf[256];
	int n;

	(void)state;
	assert_int_equal(pebs_perfdata__nr_attrs(pd), 1);
	attr = pebs_perfdata__attr(pd, 0, &ids, &nr_ids);
	/* filed with 136 bytes, more than our struct: size says what is held */
	assert_int_equal(attr->size, sizeof(struct perf_event_attr) < 136 ?
			 sizeof(struct perf_event_attr) : 136);
	assert_int_equal(attr->type, 11);	/* ibs_op */
	assert_int_equal(attr->sample_type,
			 PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT |
			 PERF_SAMPLE_PHYS_ADDR);
	assert_int_equal(attr->sample_freq, 4000);
	assert_true(attr->freq);
	assert_int_equal(nr_ids, 48);
	assert_int_equal(ids[0], 6040);
	assert_string_equal(pebs_perfdata__attr_name(pd, 0), "ibs_op//");
	pebs_perfdata__feat_str(pd, PEBS_FEAT_CPUDESC, buf, sizeof(buf));
	assert_string_equal(buf, "AMD EPYC 9254 24-Core Processor");
	pebs_perfdata__feat_str(pd, PEBS_FEAT_OSRELEASE, buf, sizeof(buf));
	assert_string_equal(buf, "6.8.0-124-generic");
	assert_true(pebs_perfdata__has_feat(pd, PEBS_FEAT_MEM_TOPOLOGY));
	assert_false(pebs_perfdata__has_feat(pd, PEBS_FEAT_CLOCKID));

	while ((n = pebs_perfdata__next(pd, &ev)) > 0) {
		struct pebs_sample s;
		struct pebs_data_src d;
		unsigned int idx = 99;

		records++;
		if (ev->type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		assert_int_equal(pebs_perfdata__sample(pd, ev, &s, &idx), 0);
		assert_int_equal(idx, 0);
		pebs_data_src__decode(s.data_src, &d);
		loads += d.load;
		stores += d.store;
		addrs += s.addr != 0;
		if (s.time == 999650414498615ULL) {	/* from perf script */
			hitm++;
			assert_int_equal(s.pid, 1258661);
			assert_int_equal(s.tid, 1258663);
			assert_int_equal(s.cpu, 0);
			assert_int_equal(s.period, 1018897);
			assert_int_equal(s.addr, 0x624b89b17180ULL);
			assert_int_equal(s.ip, 0x624b6f7d4820ULL);
			assert_int_equal(s.weight, 626);
			assert_int_equal(s.phys_addr, 0x23c733180ULL);
			pebs_data_src__str(s.data_src, buf, sizeof(buf));
			assert_string_equal(buf,
				"|OP LOAD|LVL Remote core, same node Any cache hit|SNP HitM|TLB L1 hit|LCK N/A|BLK  N/A");
		}
	}
	assert_int_equal(n, 0);
	assert_int_equal(hitm, 1);
	assert_int_equal(records, 27833);
	assert_int_equal(samples, 27447);
	assert_int_equal(loads, 6078);
	assert_int_equal(stores, 1078);
	assert_int_equal(addrs, 5855);
	pebs_perfdata__close(pd);
}

/* ---- files built here ---------------------------------------------- */

struct file {
	unsigned char buf[8192];
	size_t len;
};

static size_t fput(struct file *f, const void *p, size_t n)
{
	size_t at = f->len;

	assert_true(f->len + n <= sizeof(f->buf));
	memcpy(f->buf + at, p, n);
	f->len += n;
	return at;
}

static void fput64(struct file *f, uint64_t v)
{
	fput(f, &v, 8);
}

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME)

/* a sample of ST: { header; id; ip; time } */
static void put_sample(struct file *f, uint64_t id, uint64_t ip)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 32 };

	fput(f, &h, 8);
	fput64(f, id);
	fput64(f, ip);
	fput64(f, 1000 + ip);
}

/*
 * A file with two events stored with @attr_size-byte attrs (ids 10, 11
 * and 20), @extra records after two samples, and a HOSTNAME feature.
 */
static void build(struct file *f, uint32_t attr_size,
		  void (*extra)(struct file *f))
{
	struct pebs_perf_file_header h = {
		.magic = PEBS_PERF_MAGIC,
		.size = sizeof(h),
		.attr_size = attr_size + 16,
	};
	size_t ids_at, attrs_at, data_at, feat_at, str_at;
	unsigned char attr[256];
	static const char host[8] = "box";

	memset(f, 0, sizeof(*f));
	fput(f, &h, sizeof(h));
	ids_at = f->len;
	fput64(f, 10);
	fput64(f, 11);
	fput64(f, 20);
	attrs_at = f->len;
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE,
			.size = attr_size,
			.config = i ? PERF_COUNT_SW_PAGE_FAULTS :
				      PERF_COUNT_SW_CPU_CLOCK,
			.sample_type = ST | (i ? PERF_SAMPLE_ADDR : 0),
			.sample_id_all = 1,
		};

		/* bytes past our struct (a newer perf) must be ignored */
		memset(attr, 0x5a, sizeof(attr));
		memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
		fput(f, attr, attr_size);
		fput64(f, ids_at + (i ? 16 : 0));
		fput64(f, i ? 8 : 16);
	}
	data_at = f->len;
	put_sample(f, 11, 0x1111);
	put_sample(f, 10, 0x2222);
	if (extra)
		extra(f);
	h.attrs = (struct pebs_perf_file_section){ attrs_at, data_at - attrs_at };
	h.data = (struct pebs_perf_file_section){ data_at, f->len - data_at };
	h.features[0] = 1ULL << PEBS_FEAT_HOSTNAME;
	feat_at = f->len;
	fput64(f, 0);
	fput64(f, 0);
	str_at = f->len;
	{
		uint32_t len = sizeof(host);

		fput(f, &len, 4);
		fput(f, host, sizeof(host));
	}
	memcpy(f->buf + feat_at, &(uint64_t){ str_at }, 8);
	memcpy(f->buf + feat_at + 8, &(uint64_t){ f->len - str_at }, 8);
	memcpy(f->buf, &h, sizeof(h));
}

/* attr sizes from perf 3.x (64) to newer than our headers (136, 144) */
static void test_attr_sizes(void **state)
{
	static const uint32_t sizes[] = { 64, 72, 96, 104, 112, 120, 128, 136,
					  144 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		static struct file f;
		struct pebs_perfdata *pd;
		const struct perf_event_header *ev;
		const struct perf_event_attr *a;
		struct pebs_sample s;
		unsigned int idx;
		char host[16];
		size_t nr;
		const uint64_t *ids;

		build(&f, sizes[i], NULL);
		assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd), 0);
		assert_int_equal(pebs_perfdata__nr_attrs(pd), 2);
		a = pebs_perfdata__attr(pd, 1, &ids, &nr);
		/* the bytes held: the file's, at most our struct */
		assert_int_equal(a->size, sizes[i] < sizeof(*a) ? sizes[i] :
			       sizeof(*a));
		assert_int_equal(a->config, PERF_COUNT_SW_PAGE_FAULTS);
		assert_int_equal(nr, 1);
		assert_int_equal(ids[0], 20);
		if (sizes[i] < sizeof(*a)) {
			/* the part the file did not have is zero */
			const unsigned char *p = (const void *)a;

			for (size_t j = sizes[i]; j < sizeof(*a); j++)
				assert_int_equal(p[j], 0);
		}
		/* no EVENT_DESC: perf's names from the attrs (evsel__name;
		   no exclude bits: its "H" and "G") */
		assert_string_equal(pebs_perfdata__attr_name(pd, 1),
				    "page-faults:HG");
		assert_int_equal(pebs_perfdata__feat_str(pd, PEBS_FEAT_HOSTNAME,
							 host, sizeof(host)), 3);
		assert_string_equal(host, "box");

		assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
		assert_int_equal(pebs_perfdata__sample(pd, ev, &s, &idx), 0);
		assert_int_equal(idx, 0);	/* id 11 */
		assert_int_equal(s.ip, 0x1111);
		assert_int_equal(s.time, 1000 + 0x1111);
		assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
		assert_int_equal(pebs_perfdata__sample(pd, ev, &s, &idx), 0);
		assert_int_equal(idx, 0);
		assert_int_equal(pebs_perfdata__next(pd, &ev), 0);
		pebs_perfdata__close(pd);
	}
}

/* a HEADER_ATTR record (pipe-mode style) adds an event mid-stream */
static void extra_header_attr(struct file *f)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = PERF_ATTR_SIZE_VER5,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_type = ST | PERF_SAMPLE_PERIOD,
	};
	struct perf_event_header h = {
		PEBS_PERF_RECORD_HEADER_ATTR, 0, 8 + PERF_ATTR_SIZE_VER5 + 16
	};
	struct perf_event_header s = { PERF_RECORD_SAMPLE, 0, 40 };
	struct perf_event_header aux = { PEBS_PERF_RECORD_AUXTRACE, 0, 48 };

	fput(f, &h, 8);
	fput(f, &a, PERF_ATTR_SIZE_VER5);
	fput64(f, 30);
	fput64(f, 31);
	/* a sample of the new event (with PERIOD) */
	fput(f, &s, 8);
	fput64(f, 31);
	fput64(f, 0x3333);
	fput64(f, 7);
	fput64(f, 12345);
	/* an AUXTRACE record with 16 bytes of trace data after it */
	fput(f, &aux, 8);
	fput64(f, 16);
	for (int i = 0; i < 4; i++)
		fput64(f, 0);
	fput64(f, 0xffffffffffffffffULL);
	fput64(f, 0xffffffffffffffffULL);
	put_sample(f, 10, 0x4444);
}

static void test_header_attr(void **state)
{
	static struct file f;
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;
	struct pebs_sample s;
	unsigned int idx;
	int n, types[4] = { 0 };

	(void)state;
	build(&f, 128, extra_header_attr);
	assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd), 0);
	for (int pass = 0; pass < 2; pass++) {
		int i = 0;

		pebs_perfdata__rewind(pd);
		while ((n = pebs_perfdata__next(pd, &ev)) > 0) {
			if (i < 4)
				types[i] = ev->type;
			i++;
			if (ev->type != PERF_RECORD_SAMPLE)
				continue;
			assert_int_equal(pebs_perfdata__sample(pd, ev, &s, &idx), 0);
			if (s.ip == 0x3333) {
				assert_int_equal(idx, 2);
				assert_int_equal(s.period, 12345);
				assert_int_equal(s.time, 7);
			}
			if (s.ip == 0x4444) {
				assert_int_equal(idx, 0);
				assert_int_equal(s.time, 1000 + 0x4444);
			}
		}
		assert_int_equal(n, 0);
		assert_int_equal(i, 6);
		assert_int_equal(types[2], PEBS_PERF_RECORD_HEADER_ATTR);
		assert_int_equal(pebs_perfdata__nr_attrs(pd), 3);
	}
	pebs_perfdata__close(pd);
}

/* an id no event has */
static void extra_unknown_id(struct file *f)
{
	put_sample(f, 999, 0x5555);
}

static void test_unknown_id(void **state)
{
	static struct file f;
	struct pebs_perfdata *pd;
	const struct perf_event_header *ev;
	struct pebs_sample s;

	(void)state;
	build(&f, 112, extra_unknown_id);
	assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
	assert_int_equal(pebs_perfdata__sample(pd, ev, &s, NULL), -ENOENT);
	assert_int_equal(pebs_perfdata__sample_id(pd, ev, &s, NULL), -EINVAL);
	pebs_perfdata__close(pd);
}

/* a zero-sized record, and one running past the data section */
static void test_corrupt_records(void **state)
{
	static const uint16_t bad[] = { 0, 4, 4000 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		static struct file f;
		struct pebs_perfdata *pd;
		const struct perf_event_header *ev;
		struct perf_event_header h = { PERF_RECORD_COMM, 0, bad[i] };

		build(&f, 128, NULL);
		assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd), 0);
		/* overwrite the second sample's header */
		memcpy(f.buf + pebs_perfdata__header(pd)->data.offset + 32, &h,
		       sizeof(h));
		assert_int_equal(pebs_perfdata__next(pd, &ev), 1);
		assert_int_equal(pebs_perfdata__next(pd, &ev), -EBADMSG);
		assert_int_equal(pebs_perfdata__next(pd, &ev), 0);
		pebs_perfdata__close(pd);
	}
}

static void test_bad_files(void **state)
{
	static struct file f;
	struct pebs_perfdata *pd = NULL;
	struct pebs_perf_file_header *h = (void *)f.buf;

	(void)state;
	build(&f, 128, NULL);
	assert_int_equal(pebs_perfdata__from_memory(f.buf, 50, &pd), -EBADMSG);
	assert_int_equal(pebs_perfdata__from_memory(f.buf, 4, &pd), -EBADMSG);

	h->magic = 0x50455246494c4532ULL;	/* big-endian file */
	assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd),
			 -EOPNOTSUPP);
	assert_true(strstr(pebs_errmsg(), "big-endian") != NULL);
	memcpy(&h->magic, "PERFFILE", 8);
	assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd),
			 -EOPNOTSUPP);
	memcpy(&h->magic, "NOTPERF!", 8);
	assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd),
			 -EBADMSG);
	h->magic = PEBS_PERF_MAGIC;

	h->data.size += 8;	/* past the end of the file */
	h->data.offset = f.len - 8;
	assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd),
			 -EBADMSG);
	build(&f, 128, NULL);
	h->attrs.size -= 8;	/* not a whole number of entries */
	assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd),
			 -EBADMSG);
	build(&f, 128, NULL);
	h->attr_size = 40;	/* smaller than any attr */
	assert_int_equal(pebs_perfdata__from_memory(f.buf, f.len, &pd),
			 -EBADMSG);
	assert_null(pd);

	assert_int_equal(pebs_perfdata__open("/nonexistent/perf.data", &pd),
			 -ENOENT);
	assert_true(strstr(pebs_errmsg(), "/nonexistent/perf.data") != NULL);
	assert_int_equal(pebs_perfdata__open("/", &pd), -EOPNOTSUPP);
	pebs_perfdata__close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_amd),
		cmocka_unit_test(test_attr_sizes),
		cmocka_unit_test(test_header_attr),
		cmocka_unit_test(test_unknown_id),
		cmocka_unit_test(test_corrupt_records),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
