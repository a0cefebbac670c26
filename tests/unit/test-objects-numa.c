// SPDX-License-Identifier: MIT
/*
 * test-objects-numa.c - node_local/node_remote per data object
 * (lib/objects/objects-numa.c over lib/perfdata/perfdata-numa.c) on a
 * synthetic recording: two NUMA nodes in HEADER_NUMA_TOPOLOGY (CPU 0 on
 * node 0, CPU 1 on node 1) and HEADER_MEM_TOPOLOGY (256 MiB blocks: 0-1
 * on node 0, 2-3 on node 1), two objects from pebs-shim:alloc samples as
 * record --objects writes them, and accesses with physical addresses on
 * both nodes from CPUs of both nodes; a physical address outside the
 * topology, a CPU outside it and no physical address count in neither;
 * a malformed MEM_TOPOLOGY gives no nodes. The writer puts this
 * machine's topology in the file: the test swaps in its own sections.
 */
#include <errno.h>
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

#define BLOCK		0x10000000ULL	/* 256 MiB */
#define NODE0_PA	0x1000ULL
#define NODE1_PA	(2 * BLOCK + 0x2000)
#define NOWHERE_PA	(5 * BLOCK)

#define ACC_ST	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | \
		 PERF_SAMPLE_PHYS_ADDR)

static void write_access(struct pebs_perfdata_writer *w, uint64_t time,
			 uint64_t addr, uint32_t cpu, uint64_t pa)
{
	uint64_t r[8] = { 0, 7, 0x401234, (uint64_t)50 << 32 | 50, time, addr,
			  cpu, pa };

	assert_int_equal(t_write_sample(w, r, sizeof(r)), 0);
}

/* HEADER_NUMA_TOPOLOGY: node @i's CPU list is "i" */
static size_t numa_section(unsigned char *b)
{
	size_t at = 0;
	uint32_t v;
	uint64_t kb = 1024;

	v = 2;
	memcpy(b + at, &v, 4), at += 4;
	for (uint32_t n = 0; n < 2; n++) {
		char cpus[8] = { (char)('0' + n) };	/* padded to 8 */

		memcpy(b + at, &n, 4), at += 4;
		memcpy(b + at, &kb, 8), at += 8;
		memcpy(b + at, &kb, 8), at += 8;
		v = sizeof(cpus);
		memcpy(b + at, &v, 4), at += 4;
		memcpy(b + at, cpus, sizeof(cpus)), at += sizeof(cpus);
	}
	return at;
}

/* HEADER_MEM_TOPOLOGY: blocks 0-1 on node 0, 2-3 on node 1 (@version
   other than 1: malformed) */
static size_t mem_section(unsigned char *b, uint64_t version)
{
	uint64_t v[] = { version, BLOCK, 2,
			 0, 2 * BLOCK, 4, 0x3,
			 1, 2 * BLOCK, 4, 0xc };

	memcpy(b, v, sizeof(v));
	return sizeof(v);
}

/*
 * The file at @path with its NUMA_TOPOLOGY and MEM_TOPOLOGY sections
 * replaced (set if absent): the feature table after the data is
 * rewritten, the other sections copied after it.
 */
static void set_topology(const char *path, uint64_t mem_version)
{
	unsigned char numa[256], mem[256], *buf, *out;
	struct pebs_perf_file_section sec[256], *tab;
	struct pebs_perf_file_header h;
	size_t size, at, n = 0, k = 0, numa_len, mem_len;
	FILE *f = fopen(path, "rb");
	long end;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	assert_true(end > 0);
	size = (size_t)end;
	buf = malloc(size);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, size, f), size);
	fclose(f);
	memcpy(&h, buf, sizeof(h));
	tab = (void *)(buf + h.data.offset + h.data.size);
	for (unsigned int bit = 0; bit < 256; bit++)
		if (h.features[bit / 64] >> (bit % 64) & 1)
			sec[bit] = tab[n++];
	h.features[PEBS_FEAT_NUMA_TOPOLOGY / 64] |=
		1ULL << (PEBS_FEAT_NUMA_TOPOLOGY % 64);
	h.features[PEBS_FEAT_MEM_TOPOLOGY / 64] |=
		1ULL << (PEBS_FEAT_MEM_TOPOLOGY % 64);
	numa_len = numa_section(numa);
	mem_len = mem_section(mem, mem_version);
	out = malloc(size + 2 * 16 + numa_len + mem_len);
	assert_non_null(out);
	at = h.data.offset + h.data.size;
	memcpy(out, buf, at);
	memcpy(out, &h, sizeof(h));
	tab = (void *)(out + at);
	for (unsigned int bit = 0; bit < 256; bit++)
		k += h.features[bit / 64] >> (bit % 64) & 1;
	at += k * sizeof(*tab);
	k = 0;
	for (unsigned int bit = 0; bit < 256; bit++) {
		const unsigned char *src;
		size_t len;

		if (!(h.features[bit / 64] >> (bit % 64) & 1))
			continue;
		if (bit == PEBS_FEAT_NUMA_TOPOLOGY) {
			src = numa, len = numa_len;
		} else if (bit == PEBS_FEAT_MEM_TOPOLOGY) {
			src = mem, len = mem_len;
		} else {
			src = buf + sec[bit].offset;
			len = sec[bit].size;
		}
		tab[k++] = (struct pebs_perf_file_section){ at, len };
		memcpy(out + at, src, len);
		at += len;
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out, 1, at, f), at);
	fclose(f);
	free(out);
	free(buf);
}

/*
 * Object A [0x10000, 0x11000) of site 0x401000, B [0x20000, 0x21000) of
 * site 0x402000. A: CPU 0 on node 0's memory (local), CPU 1 on node 0's
 * (remote), CPU 1 on node 1's (local), CPU 0 outside the memory
 * topology, CPU 5 (in no node) on node 0's, no physical address (0):
 * 2 local, 1 remote. B: CPU 0 on node 1's twice: 2 remote.
 */
static void write_recording(const char *path, uint64_t mem_version)
{
	struct perf_event_attr acc = {
		.size = sizeof(acc), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		.sample_type = ACC_ST, .sample_id_all = 1,
	};
	struct perf_event_attr dummy = t_alloc_attr();
	struct pebs_perfdata_writer *w;
	uint64_t id = 7;

	assert_int_equal(pebs_perfdata_writer__create(path, &w), 0);
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &acc, &id, 1,
							"page-faults"), 0);
	id = PEBS_OBJECTS_ALLOC_ID;
	assert_int_equal(pebs_perfdata_writer__add_attr(w, &dummy, &id, 1,
			 PEBS_OBJECTS_ALLOC_EVENT), 0);
	assert_int_equal(t_write_alloc(w, 10, 0x10000, 0x1000, 0x401000), 0);
	assert_int_equal(t_write_alloc(w, 11, 0x20000, 0x1000, 0x402000), 0);
	write_access(w, 20, 0x10010, 0, NODE0_PA);
	write_access(w, 21, 0x10020, 1, NODE0_PA + 64);
	write_access(w, 22, 0x10030, 1, NODE1_PA);
	write_access(w, 23, 0x10040, 0, NOWHERE_PA);
	write_access(w, 24, 0x10050, 5, NODE0_PA);
	write_access(w, 25, 0x10060, 0, 0);
	write_access(w, 30, 0x20010, 0, NODE1_PA);
	write_access(w, 31, 0x20020, 0, NODE1_PA + BLOCK);
	assert_int_equal(pebs_perfdata_writer__close(w), 0);
	set_topology(path, mem_version);
}

static int add_access(void *arg, const struct pebs_sample *s,
		      const struct pebs_report_sample *rs)
{
	(void)s;
	if (rs->event)
		return 0;
	return pebs_objects__add_sample(arg, rs);
}

/* the access of the object at @addr (pid 50) at time 40 */
static void access_of(struct pebs_objects *o, uint64_t addr,
		      struct pebs_object_access *oa)
{
	struct pebs_object obj;

	assert_int_equal(pebs_objects__find(o, 50, addr, 40, &obj), 0);
	assert_int_equal(pebs_objects__access(o, 0, obj.site, oa), 0);
}

static void session(uint64_t mem_version, struct pebs_object_access *a,
		    struct pebs_object_access *b)
{
	char path[] = "/tmp/test-objects-numa.XXXXXX";
	struct pebs_perfdata *pd;
	struct pebs_session *ss;
	struct pebs_objects *o;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_recording(path, mem_version);
	assert_int_equal(pebs_perfdata__open(path, &pd), 0);
	assert_int_equal(pebs_session__new(pd, &ss), 0);
	assert_int_equal(pebs_objects__new(&o), 0);
	assert_int_equal(pebs_session__set_objects(ss, o), 0);
	assert_int_equal(pebs_session__process(ss, true, add_access, o, NULL),
			 0);
	assert_int_equal(pebs_objects__count(o), 2);
	access_of(o, 0x10000, a);
	access_of(o, 0x20000, b);
	pebs_session__delete(ss);
	pebs_objects__delete(o);
	pebs_perfdata__close(pd);
	unlink(path);
}

static void test_nodes(void **state)
{
	struct pebs_object_access a, b;

	(void)state;
	session(1, &a, &b);
	assert_int_equal(a.samples, 6);
	assert_int_equal(a.node_local, 2);
	assert_int_equal(a.node_remote, 1);
	assert_int_equal(b.samples, 2);
	assert_int_equal(b.node_local, 0);
	assert_int_equal(b.node_remote, 2);
	/* no data source: the data_src split stays empty */
	assert_int_equal(a.with_src, 0);
	assert_int_equal(a.local + a.remote, 0);
}

/* a MEM_TOPOLOGY of another version: no node for any address */
static void test_bad_mem_topology(void **state)
{
	struct pebs_object_access a, b;

	(void)state;
	session(2, &a, &b);
	assert_int_equal(a.samples, 6);
	assert_int_equal(a.node_local + a.node_remote, 0);
	assert_int_equal(b.node_local + b.node_remote, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_bad_mem_topology),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
