// SPDX-License-Identifier: MIT
/*
 * map.c - the reader of /dev/pebs_map (include/pebs_map.h): slot
 * snapshots under the seqcount protocol and the per-CPU switch histories
 * with overrun detection. The timeline built from them is in
 * lib/map/timeline.c.
 *
 * Every load from the shared table goes through lib/core/barrier.h. The
 * module writes; we never do (the mappings are PROT_READ).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pebsshim/map.h"
#include "core/barrier.h"
#include "map/map-int.h"

/* Attempts at a consistent slot copy before read_slot gives up. */
#define SLOT_TRIES		10000
/* ... of which this many spin before each further attempt yields. */
#define SLOT_SPINS		100
/* Attempts at a history copy or search overtaken by the writer. */
#define HIST_TRIES		16

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	pebs_barrier();
#endif
}

static inline const struct pebs_map_switch *
map_hist(const struct pebs_map *map, unsigned int cpu)
{
	return (const struct pebs_map_switch *)map->hist + cpu * map->hist_len;
}

/* A relaxed copy of one history entry (it may be torn: callers check). */
static inline void entry_read(struct pebs_map_switch *dst,
			      const struct pebs_map_switch *src)
{
	dst->time = PEBS_READ_ONCE(src->time);
	dst->tgid = PEBS_READ_ONCE(src->tgid);
	dst->pid = PEBS_READ_ONCE(src->pid);
}

/*
 * Check @h (already copied out of the table) against the ABI and the
 * memory that backs it: @table_avail bytes of table, @hist_avail bytes
 * of history (UINT64_MAX: unknown, a device sizes its own regions).
 */
static int validate_header(const struct pebs_map_header *h, const char *what,
			   uint64_t table_avail, uint64_t hist_avail)
{
	uint64_t slots_bytes, hist_bytes;

	if (h->magic != PEBS_MAP_MAGIC)
		return core_err(-EBADMSG,
				"%s: not a pebs_map table (magic 0x%016llx): give the pebs_map device or a table file",
				what, (unsigned long long)h->magic);
	if (h->abi_version != PEBS_MAP_ABI_VERSION)
		return core_err(-EPROTO,
				"pebs_map ABI version %u, this pebs-shim expects %u: rebuild the module or the tool",
				h->abi_version, PEBS_MAP_ABI_VERSION);
	if (h->header_size != sizeof(*h) ||
	    h->slot_size != PEBS_MAP_SLOT_SIZE ||
	    h->hist_entry_size != sizeof(struct pebs_map_switch))
		return core_err(-EBADMSG,
				"%s: header/slot/entry sizes %u/%u/%u, expected %zu/%u/%zu: corrupt table or mismatched module",
				what, h->header_size, h->slot_size,
				h->hist_entry_size, sizeof(*h),
				PEBS_MAP_SLOT_SIZE,
				sizeof(struct pebs_map_switch));
	slots_bytes = (uint64_t)h->nr_slots * PEBS_MAP_SLOT_SIZE;
	if (h->nr_slots == 0 || h->slots_offset % 8 ||
	    h->slots_offset < sizeof(*h) || h->slots_offset > h->table_size ||
	    h->table_size - h->slots_offset < slots_bytes ||
	    h->table_size > table_avail)
		return core_err(-EBADMSG,
				"%s: %u slots at offset %llu do not fit the %llu-byte table (%llu bytes present): corrupt table",
				what, h->nr_slots,
				(unsigned long long)h->slots_offset,
				(unsigned long long)h->table_size,
				(unsigned long long)table_avail);
	if (h->hist_len & (h->hist_len - 1))
		return core_err(-EBADMSG,
				"%s: hist_len %u is not a power of two: corrupt table",
				what, h->hist_len);
	if (__builtin_mul_overflow((uint64_t)h->nr_slots * h->hist_len,
				   sizeof(struct pebs_map_switch), &hist_bytes) ||
	    h->hist_size < hist_bytes || (h->hist_len && h->hist_size > hist_avail))
		return core_err(-EBADMSG,
				"%s: history of %u x %u entries does not fit %llu bytes (%llu present): corrupt table",
				what, h->nr_slots, h->hist_len,
				(unsigned long long)h->hist_size,
				(unsigned long long)hist_avail);
	return 0;
}

static int map_new(const struct pebs_map_header *h, struct pebs_map **mapp)
{
	struct pebs_map *map = calloc(1, sizeof(*map));

	if (!map)
		return core_err(-ENOMEM, "pebs_map: out of memory");
	map->hdr = *h;
	map->nr_slots = h->nr_slots;
	map->hist_len = h->hist_len;
	*mapp = map;
	return 0;
}

int pebs_map__from_memory(const void *table, size_t table_size,
			  const void *hist, size_t hist_size,
			  struct pebs_map **mapp)
{
	struct pebs_map_header h;
	int err;

	if (!table || table_size < sizeof(h) || (uintptr_t)table % 8 ||
	    (uintptr_t)hist % 8)
		return core_err(-EINVAL,
				"pebs_map: table memory too small or misaligned: pass 8-byte aligned memory holding a header");
	memcpy(&h, table, sizeof(h));
	err = validate_header(&h, "pebs_map memory", table_size,
			      hist ? hist_size : 0);
	if (err)
		return err;
	err = map_new(&h, mapp);
	if (err)
		return err;
	(*mapp)->table = table;
	(*mapp)->hist = hist;
	core_err_clear();
	return 0;
}

static int open_error(const char *path, int errnum)
{
	struct stat st;

	switch (errnum) {
	case ENOENT:
		if (!strcmp(path, PEBS_MAP_DEVICE))
			return core_err(-ENOENT,
					"%s not found: load the module (insmod kmod/pebs_map.ko or scripts/pebs-map-load)",
					path);
		return core_err(-ENOENT,
				"%s not found: give the pebs_map device or a table file",
				path);
	case EPERM:
		/* the module's own check: CAP_PERFMON, or a pid namespace */
		return core_err(-errnum,
				"%s: not allowed: needs CAP_PERFMON (root) in the initial pid namespace, or the module loaded with unprivileged=1 (scripts/pebs-map-load unprivileged=1 mode=0440, then the pebs group)",
				path);
	case EACCES:
		if (stat(path, &st))
			return core_err(-errnum, "%s: permission denied: run as root",
					path);
		return core_err(-errnum,
				"%s: permission denied (mode %04o, owner uid %u, gid %u): run as root, or join the device's group after loading with unprivileged=1 mode=0440 (kmod/99-pebs-map.rules)",
				path, (unsigned int)(st.st_mode & 07777),
				(unsigned int)st.st_uid, (unsigned int)st.st_gid);
	default:
		return core_err(-errnum, "open %s: %s", path, strerror(errnum));
	}
}

int pebs_map__open(const char *path, struct pebs_map **mapp)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t table_avail = UINT64_MAX, hist_avail = UINT64_MAX;
	struct pebs_map_header h;
	struct pebs_map *map;
	struct stat st;
	void *p;
	int fd, err;

	if (!path)
		path = PEBS_MAP_DEVICE;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return open_error(path, errno);
	if (fstat(fd, &st)) {
		err = core_err(-errno, "stat %s: %s", path, strerror(errno));
		goto out_close;
	}
	if (S_ISREG(st.st_mode)) {
		/* a replayed table: mapping past EOF would SIGBUS later */
		if ((uint64_t)st.st_size < sizeof(h)) {
			err = core_err(-EBADMSG,
				       "%s: %lld bytes, too short for a pebs_map table",
				       path, (long long)st.st_size);
			goto out_close;
		}
		table_avail = st.st_size;
	} else if (!S_ISCHR(st.st_mode)) {
		err = core_err(-ENODEV,
			       "%s: not a device or a file: give the pebs_map device or a table file",
			       path);
		goto out_close;
	}

	/* one page for the header, then the whole table */
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = core_err(-errno, "mmap %s: %s", path, strerror(errno));
		goto out_close;
	}
	memcpy(&h, p, sizeof(h));
	munmap(p, page);
	if (S_ISREG(st.st_mode)) {
		if (h.hist_offset > table_avail ||
		    h.hist_size > table_avail - h.hist_offset)
			hist_avail = 0;
		else
			hist_avail = h.hist_size;
	}
	err = validate_header(&h, path, table_avail, hist_avail);
	if (err)
		goto out_close;
	if (h.hist_len && h.hist_offset % page) {
		err = core_err(-EBADMSG,
			       "%s: history offset %llu is not page aligned: corrupt table",
			       path, (unsigned long long)h.hist_offset);
		goto out_close;
	}
	err = map_new(&h, &map);
	if (err)
		goto out_close;

	p = mmap(NULL, h.table_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = core_err(-errno, "mmap %s (table, %llu bytes): %s", path,
			       (unsigned long long)h.table_size,
			       strerror(errno));
		goto out_free;
	}
	map->table = p;
	map->table_map_len = h.table_size;
	if (h.hist_len) {
		p = mmap(NULL, h.hist_size, PROT_READ, MAP_SHARED, fd,
			 h.hist_offset);
		if (p == MAP_FAILED) {
			err = core_err(-errno,
				       "mmap %s (history, %llu bytes at %llu): %s",
				       path, (unsigned long long)h.hist_size,
				       (unsigned long long)h.hist_offset,
				       strerror(errno));
			goto out_unmap;
		}
		map->hist = p;
		map->hist_map_len = h.hist_size;
	}
	/* the mappings keep the device (and the module) pinned */
	close(fd);
	*mapp = map;
	core_err_clear();
	return 0;

out_unmap:
	munmap((void *)map->table, map->table_map_len);
out_free:
	free(map);
out_close:
	close(fd);
	return err;
}

void pebs_map__close(struct pebs_map *map)
{
	if (!map)
		return;
	if (map->hist_map_len)
		munmap((void *)map->hist, map->hist_map_len);
	if (map->table_map_len)
		munmap((void *)map->table, map->table_map_len);
	free(map);
}

const struct pebs_map_header *pebs_map__header(const struct pebs_map *map)
{
	return &map->hdr;
}

unsigned int pebs_map__nr_cpus(const struct pebs_map *map)
{
	return map->nr_slots;
}

int map_bad_cpu(const struct pebs_map *map, unsigned int cpu)
{
	return core_err(-EINVAL, "CPU %u not in the pebs_map table (%u CPUs)",
			cpu, map->nr_slots);
}

int pebs_map__read_slot(const struct pebs_map *map, unsigned int cpu,
			struct pebs_map_snapshot *snap)
{
	const struct pebs_map_slot *s;
	uint32_t seq;
	int i;

	if (cpu >= map->nr_slots)
		return map_bad_cpu(map, cpu);
	s = map_slot(map, cpu);
	for (i = 0; i < SLOT_TRIES; i++) {
		if (i >= SLOT_SPINS)
			sched_yield();
		/* pairs with the writer's smp_wmb before it makes seq even */
		seq = pebs_load_acquire(&s->seq);
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		snap->cpu = PEBS_READ_ONCE(s->cpu);
		snap->tgid = PEBS_READ_ONCE(s->tgid);
		snap->pid = PEBS_READ_ONCE(s->pid);
		snap->switches = PEBS_READ_ONCE(s->switches);
		snap->last_switch_ns = PEBS_READ_ONCE(s->last_switch_ns);
		snap->hist_head = PEBS_READ_ONCE(s->hist_head);
		for (size_t j = 0; j < PEBS_MAP_COMM_LEN; j++)
			snap->comm[j] = PEBS_READ_ONCE(s->comm[j]);
		/* the copy above happens before the re-check of seq */
		pebs_smp_rmb();
		if (PEBS_READ_ONCE(s->seq) == seq) {
			snap->comm[PEBS_MAP_COMM_LEN - 1] = '\0';
			snap->seq = seq;
			return 0;
		}
		cpu_relax();
	}
	return core_err(-EAGAIN,
			"CPU %u: pebs_map slot kept changing (%d tries): retry",
			cpu, SLOT_TRIES);
}

static int past_head(unsigned int cpu, uint64_t cur, uint64_t head)
{
	return core_err(-EINVAL, "CPU %u: history cursor %llu is past the head %llu",
			cpu, (unsigned long long)cur, (unsigned long long)head);
}

int pebs_map__hist_read(const struct pebs_map *map, unsigned int cpu,
			uint64_t *cursor, struct pebs_map_switch *out,
			unsigned int max, uint64_t *lost)
{
	const struct pebs_map_switch *ring;
	const struct pebs_map_slot *s;
	uint64_t head, first, cur, n, skip, mask;
	uint64_t nlost = 0;
	int tries;

	if (cpu >= map->nr_slots)
		return map_bad_cpu(map, cpu);
	if (max > INT_MAX)
		max = INT_MAX;
	s = map_slot(map, cpu);
	ring = map_hist(map, cpu);
	mask = map->hist_len - 1;
	cur = *cursor;
	n = 0;
	if (!map->hist_len) {
		/* no history kept: every switch is lost */
		head = pebs_load_acquire(&s->hist_head);
		if (cur > head)
			return past_head(cpu, cur, head);
		nlost = head - cur;
		cur = head;
		max = 0;
	}
	for (tries = 0; max && tries < HIST_TRIES; tries++) {
		/* pairs with the writer's release store of hist_head */
		head = pebs_load_acquire(&s->hist_head);
		if (cur > head)
			return past_head(cpu, cur, head);
		first = hist_oldest(map, head);
		if (cur < first) {
			/* already overwritten */
			nlost += first - cur;
			cur = first;
		}
		n = head - cur < max ? head - cur : max;
		for (uint64_t i = 0; i < n; i++)
			entry_read(&out[i], &ring[(cur + i) & mask]);
		/* the copies above happen before the reload of hist_head */
		pebs_smp_rmb();
		first = hist_oldest(map, PEBS_READ_ONCE(s->hist_head));
		if (cur >= first)
			break;
		/* the writer overtook the front of the copy: drop it */
		skip = first - cur < n ? first - cur : n;
		memmove(out, out + skip, (n - skip) * sizeof(*out));
		nlost += skip;
		cur += skip;
		n -= skip;
		if (n)
			break;
		/* all of it was overtaken: go again from the new head */
	}
	*cursor = cur + n;
	if (lost)
		*lost += nlost;
	return n;
}

int pebs_map__lookup(const struct pebs_map *map, unsigned int cpu,
		     uint64_t time, struct pebs_map_switch *who)
{
	const struct pebs_map_switch *ring;
	const struct pebs_map_slot *s;
	uint64_t head, lo, l, r, m, seen, mask;
	int tries;

	if (cpu >= map->nr_slots)
		return map_bad_cpu(map, cpu);
	if (!map->hist_len)
		return -ENOENT;
	s = map_slot(map, cpu);
	ring = map_hist(map, cpu);
	mask = map->hist_len - 1;
	for (tries = 0; tries < HIST_TRIES; tries++) {
		head = pebs_load_acquire(&s->hist_head);
		lo = hist_oldest(map, head);
		seen = head;	/* the oldest switch number we read */
		/* the first switch in [lo, head) later than @time */
		l = lo;
		r = head;
		while (l < r) {
			m = l + (r - l) / 2;
			if (m < seen)
				seen = m;
			if (PEBS_READ_ONCE(ring[m & mask].time) <= time)
				l = m + 1;
			else
				r = m;
		}
		if (l > lo) {
			entry_read(who, &ring[(l - 1) & mask]);
			if (l - 1 < seen)
				seen = l - 1;
		}
		pebs_smp_rmb();
		/* as in hist_read: was any entry we read being rewritten? */
		if (seen >= hist_oldest(map, PEBS_READ_ONCE(s->hist_head)))
			return l > lo ? 0 : -ENOENT;
	}
	return core_err(-EAGAIN,
			"CPU %u: switch history overtaken during the lookup: retry",
			cpu);
}
