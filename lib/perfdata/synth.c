// SPDX-License-Identifier: MIT
/*
 * synth.c - the records perf record synthesizes for what already exists
 * when recording starts: the kernel's map ([kernel.kallsyms]_text), and
 * per process a PERF_RECORD_COMM per thread (/proc/PID/task) and a
 * PERF_RECORD_MMAP2 per mapping of /proc/PID/maps (executable ones, and
 * data ones too when an event samples addresses, as perf record -d);
 * and what the records written tell: the stats (samples, LOST, sample
 * times) and the files they map, with their build ids and those of the
 * kernel and the vdso (HEADER_BUILD_ID).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "perfdata/perfdata-write.h"
#include "symbols/dso.h"

/*
 * The sample_id trailer of a synthesized record: the thread, time 0
 * (before any sample: perf sorts it first), and the first event's first
 * id (perf maps id 0 to its first event too; a real id is unambiguous).
 */
void wr_id_trailer(const struct pebs_perfdata_writer *w, void *at,
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
int wr_synth_kernel_mmap(struct pebs_perfdata_writer *w)
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
	wr_id_trailer(w, (char *)&u + sizeof(u.h) + 32 + ALIGN8(sizeof(name)),
		      -1, -1);
	return pebs_perfdata_writer__write(w, &u.h);
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
	wr_id_trailer(w, (char *)&u + size, pid, tid);
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

/* whether an event samples data addresses (perf record -d: data maps) */
static bool samples_addr(const struct pebs_perfdata_writer *w)
{
	for (unsigned int i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].attr.sample_type & PERF_SAMPLE_ADDR)
			return true;
	return false;
}

/*
 * One line of /proc/PID/maps as perf's perf_event__synthesize_mmap_events
 * sends it: exec maps, and data maps (misc MMAP_DATA) when @data; an
 * anonymous map is named "//anon".
 */
static int synth_mmap2(struct pebs_perfdata_writer *w, pid_t pid,
		       const char *line, bool data, char *rec)
{
	struct mmap2_rec *m = (struct mmap2_rec *)rec;
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8];
	int name_at = 0;
	const char *name;
	size_t nlen, size;
	bool exec;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &pgoff, &maj, &min, &ino, &name_at) < 7)
		return 0;
	exec = perms[2] == 'x';
	if (!exec && !data)
		return 0;
	name = line + name_at;
	if (!*name)
		name = "//anon";
	nlen = strnlen(name, PATH_MAX - 1);
	size = ALIGN8(sizeof(*m) + nlen + 1);
	memset(m, 0, size + w->id_hdr_size);
	m->h.type = PERF_RECORD_MMAP2;
	m->h.misc = PERF_RECORD_MISC_USER |
		    (exec ? 0 : PERF_RECORD_MISC_MMAP_DATA);
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
		  (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (exec ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	memcpy(m->filename, name, nlen);
	wr_id_trailer(w, rec + size, pid, pid);
	return pebs_perfdata_writer__write(w, &m->h);
}

static int synth_comms(struct pebs_perfdata_writer *w, pid_t tgid)
{
	struct pebs_ids tids = { 0 };
	char comm[64];
	int nr = 0, err;

	err = pebs_proc__tasks(tgid, &tids);
	for (unsigned int i = 0; !err && i < tids.n; i++) {
		if (pebs_proc__comm(tids.v[i], comm, sizeof(comm)))
			continue;	/* the thread exited meanwhile */
		err = synth_comm(w, tgid, tids.v[i], comm);
		nr++;
	}
	pebs_ids__free(&tids);
	return err ? err : nr;
}

int pebs_perfdata_writer__synth_task(struct pebs_perfdata_writer *w,
				     pid_t pid)
{
	char path[64], *line = NULL, *rec;
	bool data;
	size_t cap = 0;
	int nr, err = 0;
	pid_t tgid;
	FILE *f;

	if (!w || pid <= 0)
		return core_err(-EINVAL, "synth_task: bad pid %d", pid);
	tgid = pebs_proc__tgid(pid);
	if (tgid < 0)
		return core_err(-ESRCH, "process %d is gone", pid);
	nr = synth_comms(w, tgid);
	if (nr < 0)
		return nr;
	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return core_err(-ESRCH, "process %d is gone", tgid);
	rec = malloc(sizeof(struct mmap2_rec) + PATH_MAX + 64);
	if (!rec) {
		fclose(f);
		return core_err(-ENOMEM, "synth_task: out of memory");
	}
	data = samples_addr(w);
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		err = synth_mmap2(w, tgid, line, data, rec);
		if (err)
			break;
	}
	free(rec);
	free(line);
	fclose(f);
	return err ? err : nr;
}

/* Remember a mapped file for HEADER_BUILD_ID. */
static void note_file(struct pebs_perfdata_writer *w, const char *path)
{
	if (!w->files_oom && !core_strset_add(&w->files, path))
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

void wr_account(struct pebs_perfdata_writer *w,
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

/* one HEADER_BUILD_ID entry, as perf writes it */
static void build_id_entry(struct bytes *b, uint16_t misc, const uint8_t *bid,
			   int n, const char *name)
{
	static const char zero[NAME_ALIGN];
	struct {
		struct perf_event_header h;
		int32_t pid;
		uint8_t bid[20];
		uint8_t size, pad[3];
	} e;
	size_t olen = strlen(name) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	memset(&e, 0, sizeof(e));
	memcpy(e.bid, bid, (size_t)n);
	e.h.misc = misc | MISC_BUILD_ID_SIZE;
	e.h.size = (uint16_t)(sizeof(e) + len);
	e.pid = -1;		/* the host */
	e.size = (uint8_t)n;
	bytes_add(b, &e, sizeof(e));
	bytes_add(b, name, olen);
	bytes_add(b, zero, len - olen);
}

/*
 * The GNU build id among ELF notes (u32 namesz, descsz, type; name and
 * desc padded to 4) in @len bytes at @p: its length (<= 20) or 0.
 */
static int notes_build_id(const unsigned char *p, size_t len, uint8_t *bid)
{
	size_t at = 0;

	while (at + 12 <= len) {
		uint32_t namesz = ld32(p + at), descsz = ld32(p + at + 4);
		uint32_t type = ld32(p + at + 8);
		size_t name = at + 12, desc = name + ((namesz + 3ul) & ~3ul);

		if (desc + descsz > len || desc < name)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + name, "GNU", 4) && descsz && descsz <= 20) {
			memcpy(bid, p + desc, descsz);
			return (int)descsz;
		}
		at = desc + ((descsz + 3ul) & ~3ul);
	}
	return 0;
}

/* the running kernel's build id (/sys/kernel/notes) */
static int kernel_build_id(uint8_t *bid)
{
	unsigned char notes[4096];
	ssize_t n = core_read_small("/sys/kernel/notes", (char *)notes,
				  sizeof(notes));

	return n > 0 ? notes_build_id(notes, (size_t)n, bid) : 0;
}

/* the vdso's build id, from its image mapped in this process */
static int vdso_build_id(uint8_t *bid)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff +
						      i * eh->e_phentsize);
		int n;

		if (ph->p_type != PT_NOTE)
			continue;
		n = notes_build_id(base + ph->p_offset, ph->p_filesz, bid);
		if (n)
			return n;
	}
	return 0;
}

/*
 * HEADER_BUILD_ID: { perf_event_header (misc KERNEL or USER, and
 * BUILD_ID_SIZE), s32 pid (-1: the host), u8 build_id[20], u8 size,
 * u8 pad[3], filename padded to 64 } for the kernel, the vdso and every
 * mapped file that has a build id, so that readers can tell whether a
 * file is still the one that was recorded.
 */
void wr_feat_build_id(const struct pebs_perfdata_writer *w, struct bytes *b)
{
	uint8_t bid[20];
	int n;

	if ((n = kernel_build_id(bid)))
		build_id_entry(b, PERF_RECORD_MISC_KERNEL, bid, n,
			       "[kernel.kallsyms]");
	if ((n = vdso_build_id(bid)))
		build_id_entry(b, PERF_RECORD_MISC_USER, bid, n, "[vdso]");
	for (size_t i = 0; i < w->files.cap; i++) {
		if (!w->files.tab[i])
			continue;
		n = dso_elf_build_id(w->files.tab[i], bid);
		if (n > 0)
			build_id_entry(b, PERF_RECORD_MISC_USER, bid, n,
				       w->files.tab[i]);
	}
}
