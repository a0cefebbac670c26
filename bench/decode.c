// SPDX-License-Identifier: MIT
/*
 * decode.c - a benchmark (make bench): how many samples per second the
 * ring reader plus the sample decoder get through on one core, and the
 * copy limit: memcpy of the same records out of the same ring.
 *
 * A synthetic ring laid out as the kernel lays it out (control page, then
 * a power-of-two data area) is filled with PEBS-like samples (IP, TID,
 * TIME, ADDR, CPU, WEIGHT, DATA_SRC; then the same with IDENTIFIER, whose
 * 72-byte records straddle the end of the data area every so often).
 * Only the reader's side is timed: read_init, next, decode, consume. The
 * producer (this thread, between timed batches) plays the kernel. The
 * machine may be shared: the best and the median of 64 Ki-sample rounds
 * are printed with the mean. Figures only: nothing is asserted.
 *
 * --copy BYTES times only memcpy of BYTES-sized records from a 64 KiB
 * ring into a 1 MiB buffer (what any recorder must at least do with a
 * sample: the floor that bench/run.sh sets the recorders' own CPU per
 * sample against).
 * The last line of each run is "result NAME VALUE UNIT" for bench/run.sh.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pebsshim.h"

#define CMD "bench/decode"
#define PAGE 4096

struct bench {
	unsigned char *mem;
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t size, head;
	struct pebs_ring *ring;
	struct pebs_sample_layout layout;
	unsigned char rec[128];
	uint16_t rec_size;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* the kernel's side: copy one record in at head, wrapping */
static void produce(struct bench *b, uint64_t seq)
{
	uint64_t off = b->head & (b->size - 1);
	uint64_t first = b->size - off;
	/* vary time and address as a real stream would */
	uint64_t t = 1000000 + seq * 37, addr = 0x7f0000000000ULL + seq * 64;
	unsigned int at = b->layout.sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0;

	memcpy(b->rec + 8 + at + 16, &t, 8);
	memcpy(b->rec + 8 + at + 24, &addr, 8);
	if (first >= b->rec_size) {
		memcpy(b->data + off, b->rec, b->rec_size);
	} else {
		memcpy(b->data + off, b->rec, first);
		memcpy(b->data, b->rec + first, b->rec_size - first);
	}
	b->head += b->rec_size;
}

static int setup(struct bench *b, uint64_t size, uint64_t sample_type)
{
	struct perf_event_attr attr = { .sample_type = sample_type };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 0 };
	uint64_t v[16], n = 0;
	int err;

	memset(b, 0, sizeof(*b));
	if (posix_memalign((void **)&b->mem, PAGE, PAGE + size))
		return -ENOMEM;
	memset(b->mem, 0, PAGE + size);
	b->pg = (void *)b->mem;
	b->data = b->mem + PAGE;
	b->size = size;
	b->pg->data_offset = PAGE;
	b->pg->data_size = size;
	err = pebs_sample_layout__init(&b->layout, &attr);
	if (!err)
		err = pebs_ring__new(b->mem, size, &b->ring);
	if (err) {
		free(b->mem);
		return err;
	}
	/* field values in record order: identifier, ip, pid/tid, time,
	 * addr, cpu, weight, data_src (a Skylake L1 hit) */
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		v[n++] = 42;
	v[n++] = 0x401136;
	v[n++] = 1234ULL << 32 | 1234;
	v[n++] = 0;
	v[n++] = 0;
	v[n++] = 1;
	v[n++] = 97;
	v[n++] = 0x68100142;
	h.size = 8 + 8 * n;
	memcpy(b->rec, &h, 8);
	memcpy(b->rec + 8, v, 8 * n);
	b->rec_size = h.size;
	return 0;
}

static void teardown(struct bench *b)
{
	pebs_ring__delete(b->ring);
	free(b->mem);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Decode @nr_samples in rounds of ROUND samples; each round's reader time
 * is summed over its batches (one ring fill each). On a shared machine a
 * round that was preempted is slow: report the best and the median round.
 */
#define ROUND 65536

static int run(const char *label, const char *key, uint64_t sample_type,
	       uint64_t ring_size, uint64_t nr_samples)
{
	uint64_t produced = 0, decoded = 0, sum = 0, total_ns = 0;
	uint64_t nr_rounds = (nr_samples + ROUND - 1) / ROUND;
	double *round_ns;	/* ns per sample of each round */
	const struct pebs_ring_stats *st;
	struct bench b;
	int err = setup(&b, ring_size, sample_type);

	round_ns = calloc(nr_rounds, sizeof(*round_ns));
	if (err || !round_ns) {
		fprintf(stderr, CMD ": cannot set up a %llu-byte ring: %s\n",
			(unsigned long long)ring_size,
			strerror(err ? -err : ENOMEM));
		if (!err)
			teardown(&b);
		free(round_ns);
		return 1;
	}
	for (uint64_t r = 0; r < nr_rounds; r++) {
		uint64_t goal = (r + 1) * ROUND < nr_samples ?
				(r + 1) * ROUND : nr_samples;
		uint64_t first = decoded, ns = 0;

		while (decoded < goal) {
			const struct perf_event_header *ev;
			struct pebs_sample s;
			uint64_t t0;

			/* fill what the reader freed, then publish (release) */
			while (b.head + b.rec_size - b.pg->data_tail <= b.size &&
			       produced < goal)
				produce(&b, produced++);
			__atomic_store_n(&b.pg->data_head, b.head,
					 __ATOMIC_RELEASE);

			t0 = now_ns();
			if (pebs_ring__read_init(b.ring))
				break;
			while (pebs_ring__next(b.ring, &ev) > 0) {
				if (ev->type != PERF_RECORD_SAMPLE ||
				    pebs_sample__decode(&b.layout, ev, &s))
					continue;
				sum += s.addr + s.weight + s.time;
				decoded++;
			}
			pebs_ring__consume(b.ring);
			ns += now_ns() - t0;
		}
		total_ns += ns;
		round_ns[r] = (double)ns / (decoded > first ? decoded - first : 1);
	}
	st = pebs_ring__stats(b.ring);
	qsort(round_ns, nr_rounds, sizeof(*round_ns), cmp_double);
	{
		double best = round_ns[0];
		double median = round_ns[nr_rounds / 2];
		double mean = (double)total_ns / (decoded ? decoded : 1);

		printf("%-36s %3u B  best %6.1f M samples/s (%5.2f ns/sample)  median %6.1f M/s (%5.2f ns)  mean %6.1f M/s\n",
		       label, b.rec_size, 1e3 / best, best, 1e3 / median,
		       median, 1e3 / mean);
		printf("%-36s        %llu samples in %llu rounds, %llu ring laps, %llu wrapped records\n",
		       "", (unsigned long long)decoded,
		       (unsigned long long)nr_rounds,
		       (unsigned long long)(b.head / b.size),
		       (unsigned long long)st->wrapped);
		printf("result %s %.2f ns/sample\n", key, median);
	}
	teardown(&b);
	free(round_ns);
	/* keep the decoded values alive */
	return sum == 1 ? 1 : 0;
}

/*
 * The copy limit: memcpy @bytes-sized records out of a 64 KiB ring (two
 * pieces where a record straddles its end) into a 1 MiB output buffer,
 * in rounds of ROUND records; prints the median round's ns per record.
 */
#define COPY_RING 65536
#define COPY_OUT (1 << 20)

static int copy_run(unsigned int bytes, uint64_t nr)
{
	uint64_t nr_rounds = (nr + ROUND - 1) / ROUND, head = 0, at = 0;
	unsigned char *ring = malloc(COPY_RING), *out = malloc(COPY_OUT);
	double *round_ns = calloc(nr_rounds, sizeof(*round_ns));
	double median;

	if (!ring || !out || !round_ns) {
		fprintf(stderr, CMD ": out of memory\n");
		free(ring);
		free(out);
		free(round_ns);
		return 1;
	}
	for (unsigned int i = 0; i < COPY_RING; i++)
		ring[i] = (unsigned char)(i * 31);
	memset(out, 0, COPY_OUT);
	for (uint64_t r = 0; r < nr_rounds; r++) {
		uint64_t t0 = now_ns();

		for (unsigned int k = 0; k < ROUND; k++) {
			uint64_t off = head % COPY_RING, first = COPY_RING - off;

			if (at + bytes > COPY_OUT)
				at = 0;
			if (first >= bytes) {
				memcpy(out + at, ring + off, bytes);
			} else {
				memcpy(out + at, ring + off, first);
				memcpy(out + at + first, ring, bytes - first);
			}
			head += bytes;
			at += bytes;
		}
		/* the copies must not be optimised away */
		__asm__ __volatile__("" : : "r"(out) : "memory");
		round_ns[r] = (double)(now_ns() - t0) / ROUND;
	}
	qsort(round_ns, nr_rounds, sizeof(*round_ns), cmp_double);
	median = round_ns[nr_rounds / 2];
	printf("memcpy of %u-byte records out of a 64 KiB ring: best %.2f ns/record, median %.2f ns/record (%llu rounds of %d)\n",
	       bytes, round_ns[0], median, (unsigned long long)nr_rounds,
	       ROUND);
	printf("result copy-%u %.2f ns/sample\n", bytes, median);
	free(ring);
	free(out);
	free(round_ns);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: decode [-n SAMPLES] [-p PAGES] [--copy BYTES]\n"
		"\n"
		"Ring read + sample decode rate on one core, over a synthetic\n"
		"perf ring of PEBS-like samples (IP|TID|TIME|ADDR|CPU|WEIGHT|\n"
		"DATA_SRC, and the same with IDENTIFIER, whose records wrap\n"
		"around the end of the ring). Prints samples/s and ns/sample.\n"
		"\n"
		"  -n, --samples N   samples per run (default 20000000)\n"
		"  -p, --pages N     data pages of the ring, a power of two\n"
		"                    (default 16: 64 KiB, as a PEBS buffer)\n"
		"  -c, --copy BYTES  instead: memcpy of BYTES-sized records out\n"
		"                    of a 64 KiB ring (the copy limit)\n"
		"  -h, --help        this help\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "samples", required_argument, NULL, 'n' },
		{ "pages", required_argument, NULL, 'p' },
		{ "copy", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const uint64_t pebs = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
	unsigned long long n = 20000000, pages = 16, copy = 0;
	char *end;
	int c, rc;

	while ((c = getopt_long(argc, argv, "n:p:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = strtoull(optarg, &end, 0);
			if (*end || !n) {
				fprintf(stderr, CMD ": bad --samples '%s': give a positive count\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			pages = strtoull(optarg, &end, 0);
			if (*end || !pages || (pages & (pages - 1)) ||
			    pages > 65536) {
				fprintf(stderr, CMD ": bad --pages '%s': give a power of two up to 65536\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			copy = strtoull(optarg, &end, 0);
			if (*end || !copy || copy > 65535) {
				fprintf(stderr, CMD ": bad --copy '%s': give a record size from 1 to 65535 bytes\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, CMD ": unexpected argument '%s': see --help\n",
			argv[optind]);
		return 2;
	}
	if (copy)
		return copy_run((unsigned int)copy, n);
	rc = run("IP|TID|TIME|ADDR|CPU|WEIGHT|DATA_SRC", "decode-64B", pebs,
		 pages * PAGE, n);
	rc |= run("  + IDENTIFIER", "decode-72B-wrapping",
		  pebs | PERF_SAMPLE_IDENTIFIER, pages * PAGE, n);
	return rc;
}
