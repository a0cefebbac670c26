// SPDX-License-Identifier: MIT
/*
 * perfdata-write.c - write perf.data (PERFILE2) files.
 *
 * Layout, as perf record writes it:
 *
 *	file header (104 bytes)
 *	ids of every attr (u64 arrays)
 *	attrs section: per attr, perf_event_attr + perf_file_section(ids)
 *	data section: the records
 *	feature table: one perf_file_section per set feature bit, in order
 *	feature contents
 *
 * The header is written last, by pebs_perfdata_writer__close().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define WBUF_SIZE		(1u << 20)
#define NAME_ALIGN		64
#define CPUINFO_MAX		16384
/* perf's PERF_RECORD_MISC_BUILD_ID_SIZE (tools/perf, not in the UAPI) */
#define MISC_BUILD_ID_SIZE	(1 << 15)
#define ALIGN8(x)		(((x) + 7) & ~(size_t)7)

struct wattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	unsigned int nr_ids;
	char *name;
	int time_pos;		/* u64 index of TIME in a sample, or -1 */
};

struct pebs_perfdata_writer {
	int fd;
	int err;		/* first write error, sticky */
	bool started;		/* ids and attrs written, data begun */
	struct wattr *attrs;
	unsigned int nr_attrs;
	char **argv;
	int argc;
	uint64_t attrs_offset;
	uint64_t data_offset;
	size_t id_hdr_size;	/* sample_id trailer of non-sample records */
	uint64_t tod_ns;	/* CLOCK_REALTIME and the attrs' clockid ... */
	uint64_t clock_ns;	/* ... read together when data started */
	char *buf;
	size_t buf_len;
	char **files;		/* hash set of mapped file paths */
	size_t nr_files, cap_files;
	bool files_oom;
	struct pebs_perfdata_writer_stats stats;
	char path[];
};

/* A growable byte buffer for the feature sections. */
struct bytes {
	char *p;
	size_t len, cap;
	bool oom;
};

static void bytes_add(struct bytes *b, const void *p, size_t len)
{
	if (b->oom || !len)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *n;

		while (cap < b->len + len)
			cap *= 2;
		n = realloc(b->p, cap);
		if (!n) {
			b->oom = true;
			return;
		}
		b->p = n;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

static void bytes_u32(struct bytes *b, uint32_t v)
{
	bytes_add(b, &v, sizeof(v));
}

static void bytes_u64(struct bytes *b, uint64_t v)
{
	bytes_add(b, &v, sizeof(v));
}

/* perf's do_write_string: u32 padded length, string, zero padding */
static void bytes_str(struct bytes *b, const char *s)
{
	static const char zero[NAME_ALIGN];
	size_t olen = strlen(s) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	bytes_u32(b, (uint32_t)len);
	bytes_add(b, s, olen);
	bytes_add(b, zero, len - olen);
}

static int pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
	const char *c = p;

	while (len) {
		ssize_t n = pwrite(fd, c, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int write_failed(struct pebs_perfdata_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return pebs_err(err, "cannot write %s: %s: check free space and the "
			"file system", w->path, strerror(-err));
}

int pebs_perfdata_writer__create(const char *path,
				 struct pebs_perfdata_writer **wp)
{
	struct pebs_perfdata_writer *w;
	struct pebs_perf_file_header hdr;
	int err;

	if (!path || !wp)
		return pebs_err(-EINVAL, "perfdata writer: no path given");
	w = calloc(1, sizeof(*w) + strlen(path) + 1);
	if (!w)
		return pebs_err(-ENOMEM, "perfdata writer: out of memory");
	strcpy(w->path, path);
	w->buf = malloc(WBUF_SIZE);
	if (!w->buf) {
		err = pebs_err(-ENOMEM, "perfdata writer: out of memory");
		goto out_free;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = -errno;
		pebs_err(err, "cannot create %s: %s: choose a writable path",
			 path, strerror(-err));
		goto out_free_buf;
	}
	/* a placeholder: a file cut short stays recognizably unfinished */
	memset(&hdr, 0, sizeof(hdr));
	err = pwrite_all(w->fd, &hdr, sizeof(hdr), 0);
	if (err) {
		pebs_err(err, "cannot write %s: %s: check free space", path,
			 strerror(-err));
		goto out_close;
	}
	w->attrs_offset = sizeof(hdr);
	*wp = w;
	pebs_err_clear();
	return 0;

out_close:
	close(w->fd);	/* not unlinked: the path may be a device */
out_free_buf:
	free(w->buf);
out_free:
	free(w);
	return err;
}

/* Size of the sample_id trailer for @type (perf's id_hdr_size). */
static size_t id_hdr_size(uint64_t type)
{
	size_t n = 0;

	n += !!(type & PERF_SAMPLE_TID);
	n += !!(type & PERF_SAMPLE_TIME);
	n += !!(type & PERF_SAMPLE_ID);
	n += !!(type & PERF_SAMPLE_STREAM_ID);
	n += !!(type & PERF_SAMPLE_CPU);
	n += !!(type & PERF_SAMPLE_IDENTIFIER);
	return n * 8;
}

int pebs_perfdata_writer__add_attr(struct pebs_perfdata_writer *w,
				   const struct perf_event_attr *attr,
				   const uint64_t *ids, unsigned int nr_ids,
				   const char *name)
{
	struct wattr *a, *na;
	uint64_t t;

	if (!w || !attr || (nr_ids && !ids))
		return pebs_err(-EINVAL, "perfdata writer: bad attr arguments");
	if (w->started)
		return pebs_err(-EINVAL, "perfdata writer: events must be "
				"added before the first record");
	if (w->nr_attrs) {
		const struct perf_event_attr *first = &w->attrs[0].attr;

		if (!(attr->sample_type & PERF_SAMPLE_IDENTIFIER) ||
		    !(first->sample_type & PERF_SAMPLE_IDENTIFIER))
			return pebs_err(-EINVAL, "perfdata writer: several "
					"events need PERF_SAMPLE_IDENTIFIER in "
					"every sample_type");
		if (attr->sample_id_all != first->sample_id_all)
			return pebs_err(-EINVAL, "perfdata writer: all events "
					"need the same sample_id_all");
		if (!w->attrs[0].nr_ids || !nr_ids)
			return pebs_err(-EINVAL, "perfdata writer: several "
					"events need their sample ids");
	}
	na = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return pebs_err(-ENOMEM, "perfdata writer: out of memory");
	w->attrs = na;
	a = &na[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	a->attr = *attr;
	a->attr.size = sizeof(a->attr);
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*ids));
		if (!a->ids)
			return pebs_err(-ENOMEM, "perfdata writer: out of memory");
		memcpy(a->ids, ids, nr_ids * sizeof(*ids));
	}
	a->nr_ids = nr_ids;
	a->name = strdup(name ? name : "");
	if (!a->name) {
		free(a->ids);
		return pebs_err(-ENOMEM, "perfdata writer: out of memory");
	}
	t = attr->sample_type;
	a->time_pos = -1;
	if (t & PERF_SAMPLE_TIME)
		a->time_pos = !!(t & PERF_SAMPLE_IDENTIFIER) +
			      !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID);
	if (!w->nr_attrs && attr->sample_id_all)
		w->id_hdr_size = id_hdr_size(t);
	w->nr_attrs++;
	return 0;
}

int pebs_perfdata_writer__set_cmdline(struct pebs_perfdata_writer *w,
				      int argc, const char *const *argv)
{
	char **v;
	int i;

	if (!w || argc < 0 || (argc && !argv))
		return pebs_err(-EINVAL, "perfdata writer: bad cmdline");
	v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return pebs_err(-ENOMEM, "perfdata writer: out of memory");
	for (i = 0; i < argc; i++) {
		v[i] = strdup(argv[i]);
		if (!v[i])
			goto out_free;
	}
	for (i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	w->argv = v;
	w->argc = argc;
	return 0;

out_free:
	while (i--)
		free(v[i]);
	free(v);
	return pebs_err(-ENOMEM, "perfdata writer: out of memory");
}

/*
 * The sample_id trailer of a synthesized record: the thread, time 0
 * (before any sample: perf sorts it first), and the first event's first
 * id (perf maps id 0 to its first event too; a real id is unambiguous).
 */
static void fill_id_trailer(const struct pebs_perfdata_writer *w, void *at,
			    pid_t pid, pid_t tid)
{
	uint64_t t = w->attrs[0].attr.sample_type, *p = at;
	uint64_t id = w->attrs[0].nr_ids ? w->attrs[0].ids[0] : 0;

	if (!w->id_hdr_size)
		return;
	if (t & PERF_SAMPLE_TID)
		*p++ = (uint32_t)pid | (uint64_t)(uint32_t)tid << 32;
	if (t & PERF_SAMPLE_TIME)
		*p++ = 0;
	if (t & PERF_SAMPLE_ID)
		*p++ = id;
	if (t & PERF_SAMPLE_STREAM_ID)
		*p++ = id;
	if (t & PERF_SAMPLE_CPU)
		*p++ = 0;
	if (t & PERF_SAMPLE_IDENTIFIER)
		*p++ = id;
}

/* The address of _text, from /proc/kallsyms; 0 if hidden or unknown. */
static uint64_t kernel_text_addr(void)
{
	unsigned long long addr, found = 0;
	char line[512], type, name[256];
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_text")) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * perf report wants the kernel's map and its relocation symbol (as perf
 * record synthesizes them), else it warns that kernel addresses were
 * restricted. Not needed when no event samples the kernel; impossible
 * when kallsyms hides addresses (then perf warns, rightly).
 */
static int synth_kernel_mmap(struct pebs_perfdata_writer *w)
{
	static const char name[] = "[kernel.kallsyms]_text";
	union {
		struct perf_event_header h;
		uint64_t align[(8 + 32 + sizeof(name) + 7 + 48) / 8];
	} u;
	uint64_t *p = (uint64_t *)(&u.h + 1);
	uint64_t text;
	unsigned int i;

	for (i = 0; i < w->nr_attrs; i++)
		if (!w->attrs[i].attr.exclude_kernel)
			break;
	if (i == w->nr_attrs)
		return 0;
	text = kernel_text_addr();
	if (!text)
		return 0;
	memset(&u, 0, sizeof(u));
	u.h.type = PERF_RECORD_MMAP;
	u.h.misc = PERF_RECORD_MISC_KERNEL;
	u.h.size = (uint16_t)(sizeof(u.h) + 32 + ALIGN8(sizeof(name)) +
			      w->id_hdr_size);
	p[0] = (uint32_t)-1 | ((uint64_t)(uint32_t)-1 << 32); /* pid, tid */
	p[1] = text;		/* start */
	p[2] = ~0ULL - text;	/* len */
	p[3] = text;		/* pgoff: the _text address */
	memcpy(p + 4, name, sizeof(name));
	fill_id_trailer(w, (char *)&u + sizeof(u.h) + 32 +
			ALIGN8(sizeof(name)), -1, -1);
	return pebs_perfdata_writer__write(w, &u.h);
}

/* Write the ids and the attrs section; the data section starts after. */
static int start_data(struct pebs_perfdata_writer *w)
{
	struct bytes b = { 0 };
	struct pebs_perf_file_section *secs;
	uint64_t off = w->attrs_offset;
	unsigned int i;
	int err;

	if (w->err)
		return w->err;
	if (w->started)
		return 0;
	secs = calloc(w->nr_attrs ? w->nr_attrs : 1, sizeof(*secs));
	if (!secs)
		return pebs_err(-ENOMEM, "perfdata writer: out of memory");
	for (i = 0; i < w->nr_attrs; i++) {
		secs[i].offset = off + b.len;
		secs[i].size = w->attrs[i].nr_ids * sizeof(uint64_t);
		bytes_add(&b, w->attrs[i].ids, secs[i].size);
	}
	w->attrs_offset = off + b.len;
	for (i = 0; i < w->nr_attrs; i++) {
		bytes_add(&b, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		bytes_add(&b, &secs[i], sizeof(secs[i]));
	}
	free(secs);
	if (b.oom) {
		free(b.p);
		return pebs_err(-ENOMEM, "perfdata writer: out of memory");
	}
	err = b.len ? pwrite_all(w->fd, b.p, b.len, off) : 0;
	free(b.p);
	if (err)
		return write_failed(w, err);
	w->data_offset = off + b.len;
	w->started = true;
	if (w->nr_attrs && w->attrs[0].attr.use_clockid) {
		/* for perf script --tod: wall time at a known clockid time */
		struct timespec tod, clk;

		clock_gettime(CLOCK_REALTIME, &tod);
		clock_gettime(w->attrs[0].attr.clockid, &clk);
		w->tod_ns = (uint64_t)tod.tv_sec * 1000000000 +
			    (uint64_t)tod.tv_nsec;
		w->clock_ns = (uint64_t)clk.tv_sec * 1000000000 +
			      (uint64_t)clk.tv_nsec;
	}
	return synth_kernel_mmap(w);
}

static int flush(struct pebs_perfdata_writer *w)
{
	int err;

	if (!w->buf_len)
		return 0;
	err = pwrite_all(w->fd, w->buf, w->buf_len,
			 w->data_offset + w->stats.bytes);
	if (err)
		return write_failed(w, err);
	w->stats.bytes += w->buf_len;
	w->buf_len = 0;
	return 0;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* Remember a mapped file for HEADER_BUILD_ID. */
static void note_file(struct pebs_perfdata_writer *w, const char *path)
{
	size_t i, mask;

	if (w->files_oom)
		return;
	if ((w->nr_files + 1) * 2 > w->cap_files) {
		size_t cap = w->cap_files ? w->cap_files * 2 : 256;
		char **n = calloc(cap, sizeof(*n));

		if (!n) {
			w->files_oom = true;
			return;
		}
		for (i = 0; i < w->cap_files; i++) {
			size_t j;

			if (!w->files[i])
				continue;
			j = hash_str(w->files[i]) & (cap - 1);
			while (n[j])
				j = (j + 1) & (cap - 1);
			n[j] = w->files[i];
		}
		free(w->files);
		w->files = n;
		w->cap_files = cap;
	}
	mask = w->cap_files - 1;
	for (i = hash_str(path) & mask; w->files[i]; i = (i + 1) & mask)
		if (!strcmp(w->files[i], path))
			return;
	w->files[i] = strdup(path);
	if (w->files[i])
		w->nr_files++;
	else
		w->files_oom = true;
}

/* MMAP/MMAP2 of a file (not data): remember the file. */
static void note_mmap(struct pebs_perfdata_writer *w,
		      const struct perf_event_header *ev)
{
	/* pid, tid, addr, len, pgoff; MMAP2 adds 24 + 8 bytes */
	size_t off = sizeof(*ev) + 8 + 24;
	const char *name;

	if (ev->misc & PERF_RECORD_MISC_MMAP_DATA)
		return;
	if (ev->type == PERF_RECORD_MMAP2)
		off += 24 + 8;
	if (ev->size <= off)
		return;
	name = (const char *)ev + off;
	if (name[0] == '/' && strnlen(name, ev->size - off) < ev->size - off)
		note_file(w, name);
}

static const struct wattr *sample_attr(const struct pebs_perfdata_writer *w,
				       const struct perf_event_header *ev)
{
	uint64_t id;
	unsigned int i, j;

	if (w->nr_attrs == 1)
		return &w->attrs[0];
	/* several attrs: all have IDENTIFIER, the first u64 */
	if (ev->size < sizeof(*ev) + 8)
		return NULL;
	memcpy(&id, ev + 1, 8);
	for (i = 0; i < w->nr_attrs; i++)
		for (j = 0; j < w->attrs[i].nr_ids; j++)
			if (w->attrs[i].ids[j] == id)
				return &w->attrs[i];
	return NULL;
}

static void account(struct pebs_perfdata_writer *w,
		    const struct perf_event_header *ev)
{
	const struct wattr *a;
	uint64_t v;

	w->stats.records++;
	if (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2) {
		note_mmap(w, ev);
		return;
	}
	if (ev->type == PERF_RECORD_LOST) {
		/* header, u64 id, u64 lost */
		if (ev->size >= sizeof(*ev) + 16) {
			memcpy(&v, (const char *)(ev + 1) + 8, 8);
			w->stats.lost += v;
		}
		return;
	}
	if (ev->type != PERF_RECORD_SAMPLE)
		return;
	w->stats.samples++;
	a = sample_attr(w, ev);
	if (!a || a->time_pos < 0 ||
	    ev->size < sizeof(*ev) + 8 * (size_t)(a->time_pos + 1))
		return;
	memcpy(&v, (const char *)(ev + 1) + 8 * a->time_pos, 8);
	if (!w->stats.first_time || v < w->stats.first_time)
		w->stats.first_time = v;
	if (v > w->stats.last_time)
		w->stats.last_time = v;
}

int pebs_perfdata_writer__write(struct pebs_perfdata_writer *w,
				const struct perf_event_header *ev)
{
	int err;

	if (!w || !ev || ev->size < sizeof(*ev) || ev->size % 8)
		return pebs_err(-EINVAL, "perfdata writer: bad record size %u",
				ev ? ev->size : 0);
	if (!w->started) {
		err = start_data(w);
		if (err)
			return err;
	}
	if (w->err)
		return w->err;
	if (w->buf_len + ev->size > WBUF_SIZE) {
		err = flush(w);
		if (err)
			return err;
	}
	memcpy(w->buf + w->buf_len, ev, ev->size);
	w->buf_len += ev->size;
	account(w, ev);
	return 0;
}

/* Read a small /proc file into @buf (NUL-terminated). */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - (size_t)got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

static int synth_comm(struct pebs_perfdata_writer *w, pid_t pid, pid_t tid,
		      const char *comm)
{
	union {
		struct perf_event_header h;
		uint64_t align[(8 + 8 + 16 + 48) / 8];
	} u;
	size_t clen = strnlen(comm, 15) + 1;
	size_t size = ALIGN8(sizeof(u.h) + 8 + clen);
	uint32_t *p = (uint32_t *)(&u.h + 1);

	memset(&u, 0, sizeof(u));
	u.h.type = PERF_RECORD_COMM;
	u.h.size = (uint16_t)(size + w->id_hdr_size);
	p[0] = (uint32_t)pid;
	p[1] = (uint32_t)tid;
	memcpy(p + 2, comm, clen - 1);
	fill_id_trailer(w, (char *)&u + size, pid, tid);
	return pebs_perfdata_writer__write(w, &u.h);
}

struct mmap2_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

static int synth_mmap2(struct pebs_perfdata_writer *w, pid_t pid,
		       const char *line, char *rec)
{
	struct mmap2_rec *m = (struct mmap2_rec *)rec;
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8];
	int name_at = 0;
	const char *name;
	size_t nlen, size;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &pgoff, &maj, &min, &ino, &name_at) < 7)
		return 0;
	if (perms[2] != 'x')
		return 0;
	name = line + name_at;
	if (!*name)
		name = "//anon";
	nlen = strnlen(name, PATH_MAX - 1);
	size = ALIGN8(sizeof(*m) + nlen + 1);
	memset(m, 0, size + w->id_hdr_size);
	m->h.type = PERF_RECORD_MMAP2;
	m->h.misc = PERF_RECORD_MISC_USER;
	m->h.size = (uint16_t)(size + w->id_hdr_size);
	m->pid = (uint32_t)pid;
	m->tid = (uint32_t)pid;
	m->addr = start;
	m->len = end - start;
	m->pgoff = pgoff;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	memcpy(m->filename, name, nlen);
	fill_id_trailer(w, rec + size, pid, pid);
	return pebs_perfdata_writer__write(w, &m->h);
}

static pid_t tgid_of(pid_t pid)
{
	char path[64], buf[2048], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -ESRCH;
	p = strstr(buf, "\nTgid:");
	return p ? (pid_t)atoi(p + 6) : pid;
}

int pebs_perfdata_writer__synth_task(struct pebs_perfdata_writer *w,
				     pid_t pid)
{
	char path[64], comm[64], *line = NULL, *rec;
	struct dirent *de;
	size_t cap = 0;
	int nr = 0, err = 0;
	pid_t tgid;
	FILE *f;
	DIR *d;

	if (!w || pid <= 0)
		return pebs_err(-EINVAL, "synth_task: bad pid %d", pid);
	tgid = tgid_of(pid);
	if (tgid < 0)
		return pebs_err(-ESRCH, "process %d is gone", pid);
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return pebs_err(-ESRCH, "process %d is gone", tgid);
	while ((de = readdir(d))) {
		pid_t tid = atoi(de->d_name);
		ssize_t n;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid,
			 tid);
		n = read_small(path, comm, sizeof(comm));
		if (n < 0)
			continue;	/* the thread exited meanwhile */
		if (n && comm[n - 1] == '\n')
			comm[n - 1] = '\0';
		err = synth_comm(w, tgid, tid, comm);
		if (err)
			break;
		nr++;
	}
	closedir(d);
	if (err)
		return err;

	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return pebs_err(-ESRCH, "process %d is gone", tgid);
	rec = malloc(sizeof(struct mmap2_rec) + PATH_MAX + 64);
	if (!rec) {
		fclose(f);
		return pebs_err(-ENOMEM, "synth_task: out of memory");
	}
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		err = synth_mmap2(w, tgid, line, rec);
		if (err)
			break;
	}
	free(rec);
	free(line);
	fclose(f);
	return err ? err : nr;
}

const struct pebs_perfdata_writer_stats *
pebs_perfdata_writer__stats(const struct pebs_perfdata_writer *w)
{
	return &w->stats;
}

/* The value of "key<spaces>: value" in /proc/cpuinfo, or "". */
static void cpuinfo_field(const char *cpuinfo, const char *key, char *out,
			  size_t len)
{
	size_t klen = strlen(key);
	const char *p = cpuinfo;

	*out = '\0';
	while (p && *p) {
		if (!strncmp(p, key, klen) && (p[klen] == '\t' ||
					       p[klen] == ' ' ||
					       p[klen] == ':')) {
			const char *v = strchr(p, ':');
			size_t n;

			if (!v)
				return;
			v++;
			v += strspn(v, " \t");
			n = strcspn(v, "\n");
			if (n >= len)
				n = len - 1;
			memcpy(out, v, n);
			out[n] = '\0';
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

static void feat_cpu(struct bytes *desc, struct bytes *id)
{
	char model[256], vendor[64], fam[16], mod[16], step[16], buf[128];
	char *info = malloc(CPUINFO_MAX);

	if (!info) {
		desc->oom = true;
		return;
	}
	/* the first CPU's block is enough */
	if (read_small("/proc/cpuinfo", info, CPUINFO_MAX) < 0)
		info[0] = '\0';
	cpuinfo_field(info, "model name", model, sizeof(model));
	bytes_str(desc, model[0] ? model : "unknown");
	cpuinfo_field(info, "vendor_id", vendor, sizeof(vendor));
	cpuinfo_field(info, "cpu family", fam, sizeof(fam));
	cpuinfo_field(info, "model", mod, sizeof(mod));
	cpuinfo_field(info, "stepping", step, sizeof(step));
	snprintf(buf, sizeof(buf), "%s,%s,%s,%s", vendor[0] ? vendor :
		 "unknown", fam, mod, step);
	bytes_str(id, buf);
	free(info);
}

static uint64_t total_mem_kb(void)
{
	char buf[4096], *p;

	if (read_small("/proc/meminfo", buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "MemTotal:");
	return p ? strtoull(p + 9, NULL, 10) : 0;
}

static void feat_cmdline(const struct pebs_perfdata_writer *w,
			 struct bytes *b)
{
	char buf[8192];
	ssize_t n;
	int i, nr = 0;

	if (w->argc) {
		bytes_u32(b, (uint32_t)w->argc);
		for (i = 0; i < w->argc; i++)
			bytes_str(b, w->argv[i]);
		return;
	}
	/* default: our own command line */
	n = read_small("/proc/self/cmdline", buf, sizeof(buf));
	for (i = 0; i < n; i++)
		nr += !buf[i];
	bytes_u32(b, (uint32_t)nr);
	for (i = 0; i < n; i += (int)strlen(buf + i) + 1)
		bytes_str(b, buf + i);
}

/*
 * HEADER_BUILD_ID: { perf_event_header (misc USER | BUILD_ID_SIZE),
 * s32 pid (-1: the host), u8 build_id[20], u8 size, u8 pad[3],
 * filename padded to 64 } per mapped file that has a build id, so that
 * readers can tell whether a file is still the one that was recorded.
 */
static void feat_build_id(const struct pebs_perfdata_writer *w,
			  struct bytes *b)
{
	static const char zero[NAME_ALIGN];
	size_t i;

	for (i = 0; i < w->cap_files; i++) {
		struct {
			struct perf_event_header h;
			int32_t pid;
			uint8_t bid[20];
			uint8_t size, pad[3];
		} e;
		size_t olen, len;
		int n;

		if (!w->files[i])
			continue;
		memset(&e, 0, sizeof(e));
		n = pebs_elf_build_id(w->files[i], e.bid);
		if (n <= 0)
			continue;
		olen = strlen(w->files[i]) + 1;
		len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
		e.h.type = PEBS_PERF_RECORD_HEADER_BUILD_ID;
		e.h.misc = PERF_RECORD_MISC_USER | MISC_BUILD_ID_SIZE;
		e.h.size = (uint16_t)(sizeof(e) + len);
		e.pid = -1;
		e.size = (uint8_t)n;
		bytes_add(b, &e, sizeof(e));
		bytes_add(b, w->files[i], olen);
		bytes_add(b, zero, len - olen);
	}
}

static void feat_event_desc(const struct pebs_perfdata_writer *w,
			    struct bytes *b)
{
	unsigned int i;

	bytes_u32(b, w->nr_attrs);
	bytes_u32(b, sizeof(struct perf_event_attr));
	for (i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];

		bytes_add(b, &a->attr, sizeof(a->attr));
		bytes_u32(b, a->nr_ids);
		bytes_str(b, a->name);
		bytes_add(b, a->ids, a->nr_ids * sizeof(uint64_t));
	}
}

/* Write the feature table and contents at @off; set the bits in @hdr. */
static int write_features(struct pebs_perfdata_writer *w, uint64_t off,
			  struct pebs_perf_file_header *hdr)
{
	struct bytes f[PEBS_FEAT_CLOCK_DATA + 1];
	struct pebs_perf_file_section secs[PEBS_FEAT_CLOCK_DATA + 1];
	struct bytes all = { 0 };
	struct utsname u;
	unsigned int i, nr = 0;
	uint64_t pos;
	int err;

	memset(f, 0, sizeof(f));
	uname(&u);
	feat_build_id(w, &f[PEBS_FEAT_BUILD_ID]);
	bytes_str(&f[PEBS_FEAT_HOSTNAME], u.nodename);
	bytes_str(&f[PEBS_FEAT_OSRELEASE], u.release);
	bytes_str(&f[PEBS_FEAT_VERSION], "pebs-shim");
	bytes_str(&f[PEBS_FEAT_ARCH], u.machine);
	bytes_u32(&f[PEBS_FEAT_NRCPUS], (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
	bytes_u32(&f[PEBS_FEAT_NRCPUS], (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	feat_cpu(&f[PEBS_FEAT_CPUDESC], &f[PEBS_FEAT_CPUID]);
	bytes_u64(&f[PEBS_FEAT_TOTAL_MEM], total_mem_kb());
	feat_cmdline(w, &f[PEBS_FEAT_CMDLINE]);
	feat_event_desc(w, &f[PEBS_FEAT_EVENT_DESC]);
	if (w->stats.last_time) {
		bytes_u64(&f[PEBS_FEAT_SAMPLE_TIME], w->stats.first_time);
		bytes_u64(&f[PEBS_FEAT_SAMPLE_TIME], w->stats.last_time);
	}
	if (w->clock_ns) {
		struct timespec res = { 0, 0 };
		uint32_t clockid = (uint32_t)w->attrs[0].attr.clockid;

		clock_getres((clockid_t)clockid, &res);
		bytes_u64(&f[PEBS_FEAT_CLOCKID],
			  (uint64_t)res.tv_sec * 1000000000 +
			  (uint64_t)res.tv_nsec);
		bytes_u32(&f[PEBS_FEAT_CLOCK_DATA], 1);	/* version */
		bytes_u32(&f[PEBS_FEAT_CLOCK_DATA], clockid);
		bytes_u64(&f[PEBS_FEAT_CLOCK_DATA], w->tod_ns);
		bytes_u64(&f[PEBS_FEAT_CLOCK_DATA], w->clock_ns);
	}

	for (i = 0; i < ARRAY_SIZE(f); i++)
		nr += f[i].len != 0;
	pos = off + nr * sizeof(struct pebs_perf_file_section);
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		if (!f[i].len)
			continue;
		secs[i].offset = pos;
		secs[i].size = f[i].len;
		pos += f[i].len;
		hdr->features[i / 64] |= 1ULL << (i % 64);
		bytes_add(&all, &secs[i], sizeof(secs[i]));
	}
	for (i = 0; i < ARRAY_SIZE(f); i++)
		bytes_add(&all, f[i].p, f[i].len);
	err = all.oom ? -ENOMEM : 0;
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		err = f[i].oom ? -ENOMEM : err;
		free(f[i].p);
	}
	if (err) {
		free(all.p);
		return pebs_err(err, "perfdata writer: out of memory");
	}
	err = pwrite_all(w->fd, all.p, all.len, off);
	free(all.p);
	return err ? write_failed(w, err) : 0;
}

static int finish(struct pebs_perfdata_writer *w)
{
	struct pebs_perf_file_header hdr;
	int err;

	err = start_data(w);
	if (!err)
		err = flush(w);
	if (err)
		return err;
	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = PEBS_PERF_MAGIC;
	hdr.size = sizeof(hdr);
	hdr.attr_size = sizeof(struct perf_event_attr) +
			sizeof(struct pebs_perf_file_section);
	hdr.attrs.offset = w->attrs_offset;
	hdr.attrs.size = w->nr_attrs * hdr.attr_size;
	hdr.data.offset = w->data_offset;
	hdr.data.size = w->stats.bytes;
	err = write_features(w, w->data_offset + w->stats.bytes, &hdr);
	if (err)
		return err;
	err = pwrite_all(w->fd, &hdr, sizeof(hdr), 0);
	if (err)
		return write_failed(w, err);
	if (!w->nr_attrs)
		return pebs_err(-EINVAL, "%s: no event was declared: perf "
				"cannot read it", w->path);
	return 0;
}

int pebs_perfdata_writer__close(struct pebs_perfdata_writer *w)
{
	unsigned int i;
	int err, i2;

	if (!w)
		return 0;
	err = finish(w);
	if (close(w->fd) && !err)
		err = write_failed(w, -errno);
	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	for (i = 0; i < w->cap_files; i++)
		free(w->files[i]);
	free(w->files);
	for (i2 = 0; i2 < w->argc; i2++)
		free(w->argv[i2]);
	free(w->argv);
	free(w->buf);
	free(w);
	return err;
}
