// SPDX-License-Identifier: MIT
/*
 * kallsyms.c - the running kernel as the resolver sees it: its build id
 * (/sys/kernel/notes), its _text and its text symbols (/proc/kallsyms,
 * dso_load_kallsyms).
 *
 * /proc/kallsyms can be read on a thread of its own (kload_start: into
 * a private dso), so that a session scans
 * its file meanwhile (lib/session/session.c, lib/symbols/symbols.c): the kernel formats
 * some 200 000 lines for it, tens of milliseconds. The loaded symbols
 * are then moved into the caller's kernel dso, as a load in place
 * would have left it. kallsyms_probe tells, from the first lines, whether
 * such a load would find symbols, for a session that reads them only at
 * the first kernel address (syms_kernel_defer).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/symbols.h"
#include "symbols/dso.h"
#include "core/internal.h"

/* The running kernel's build id, read once: its size, or -errno. */
static uint8_t host_bid[BUILD_ID_MAX];
static int host_bid_len;
static pthread_once_t host_bid_once = PTHREAD_ONCE_INIT;

static int read_host_bid(uint8_t bid[BUILD_ID_MAX])
{
	unsigned char buf[4096];
	size_t off = 0, n;
	int fd;
	ssize_t got;

	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read(fd, buf, sizeof(buf));
	close(fd);
	if (got < 0)
		return -EIO;
	n = (size_t)got;
	/* ELF notes: u32 namesz, descsz, type; name, desc 4-aligned */
	while (off + 12 <= n) {
		uint32_t namesz = ld32(buf + off), descsz = ld32(buf + off + 4);
		uint32_t type = ld32(buf + off + 8);
		size_t name = off + 12, desc = name + ((namesz + 3u) & ~3u);

		if (desc > n || descsz > n - desc)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && descsz &&
		    descsz <= BUILD_ID_MAX) {
			memcpy(bid, buf + desc, descsz);
			return (int)descsz;
		}
		off = desc + ((descsz + 3u) & ~3u);
	}
	return -ENOENT;
}

static void host_bid_init(void)
{
	host_bid_len = read_host_bid(host_bid);
}

int kallsyms_host_build_id(uint8_t bid[BUILD_ID_MAX])
{
	/* the running kernel does not change under a process */
	pthread_once(&host_bid_once, host_bid_init);
	if (host_bid_len > 0)
		memcpy(bid, host_bid, (size_t)host_bid_len);
	return host_bid_len;
}

/* A /proc/kallsyms line "addr type name[\tmodule]", as sscanf's
   "%llx %c %255s" would read it (without its cost): false if not. */
static bool kallsyms_line(const char *p, unsigned long long *addr,
			  char *type, const char **name, size_t *len)
{
	unsigned long long a = 0;
	const char *q = p;
	size_t l;

	for (;; q++) {
		unsigned int d = (unsigned int)(*q | 0x20);

		if (*q >= '0' && *q <= '9')
			d = (unsigned int)(*q - '0');
		else if (d >= 'a' && d <= 'f')
			d -= 'a' - 10;
		else
			break;
		a = a << 4 | d;
	}
	if (q == p || q[0] != ' ' || !q[1] || q[2] != ' ')
		return false;
	*addr = a;
	*type = q[1];
	*name = q + 3;
	l = strcspn(q + 3, " \t\n\v\f\r");
	*len = l < 255 ? l : 255;
	return l > 0;
}

/* A code symbol's type in kallsyms (perf's kernel functions). */
static bool text_type(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/*
 * The kernel's own text ends below the first address /proc/kallsyms may
 * list after it (modules, BPF, trampolines): on x86-64 these all live
 * from MODULES_VADDR on, above the kernel image. Elsewhere no read stops
 * early.
 */
#if defined(__x86_64__)
#define CORE_TEXT_END	0xffffffffc0000000ULL
#else
#define CORE_TEXT_END	0ULL
#endif

/*
 * A table @s of @nr symbols replacing @old's @nr_old (both in address
 * order): each symbol the old table had too (its address and name) takes
 * the old name's pointer, so that report rows keyed by it before the
 * reload (kallsyms read in part, then in full) stay one row with those
 * after; the old names are kept (dso_retire).
 */
static void keep_names(struct sym *s, size_t nr, const struct sym *old,
		       size_t nr_old)
{
	size_t i = 0, j = 0, k;

	while (i < nr && j < nr_old) {
		if (s[i].start != old[j].start) {
			if (s[i].start < old[j].start)
				i++;
			else
				j++;
			continue;
		}
		/* the aliases at this address, old and new */
		for (k = j; k < nr_old && old[k].start == s[i].start; k++)
			if (!strcmp(old[k].name, s[i].name)) {
				s[i].name = old[k].name;
				break;
			}
		i++;
	}
}

/*
 * The text symbols of the kallsyms file @path into @k; with @limit,
 * only up to the first symbol above *limit (it may still fall while
 * reading), so long as the symbols so far are in address order and in
 * the kernel's own text: k->syms_end is then that symbol's address, and
 * the table is right below it. With @text (the recorded _text), the
 * symbols move by its distance from the file's _text, as perf's
 * kallsyms__delta (a copy cached at another boot).
 */
static int load(struct dso *k, const char *path, const _Atomic uint64_t *limit,
		uint64_t text)
{
	size_t nr = 0, cap = 0, names_len = 0, names_cap = 0, i;
	uint64_t end = 0, file_text = 0;
	bool sorted = true;
	char line[512];
	struct sym *s = NULL;
	char *names = NULL;
	int err = 0;
	FILE *f;

	f = core_fopen_file(path);
	if (!f)
		return core_err(-errno, "cannot read %s: %s", path,
				strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		const char *name;
		char type;
		size_t l;

		if (!kallsyms_line(line, &addr, &type, &name, &l) ||
		    !text_type(type) || !addr)
			continue;
		if (l == 5 && !memcmp(name, "_text", 5))
			file_text = addr;
		l++;
		/*
		 * Among aliases the last listed wins, as in perf: it sizes
		 * kallsyms symbols up to the next address before choosing,
		 * so only the last alias has a size. Listed one after the
		 * other (the file is in address order), it replaces the
		 * one before, and the table stays sorted.
		 */
		if (nr && s[nr - 1].start == addr)
			nr--;
		else if (nr && s[nr - 1].start > addr)
			sorted = false;
		if (core_grow(&s, &cap, nr + 1, sizeof(*s)) ||
		    core_grow(&names, &names_cap, names_len + l, 1)) {
			err = -ENOMEM;
			break;
		}
		s[nr].start = addr;
		s[nr].size = 0;
		/* aliases apart (out of order): the last listed first */
		s[nr].rank = nr < INT_MAX ? -(int)nr : INT_MIN;
		s[nr].order = (uint32_t)nr;
		/* an offset for now: names may still move */
		s[nr].name = (const char *)(uintptr_t)names_len;
		memcpy(names + names_len, name, l - 1);
		names[names_len + l - 1] = '\0';
		names_len += l;
		nr++;
		if (limit && sorted && addr < CORE_TEXT_END &&
		    addr > atomic_load_explicit(limit, memory_order_relaxed)) {
			end = addr;
			break;
		}
	}
	fclose(f);
	if (err) {
		free(s);
		free(names);
		return core_err(-ENOMEM, "symbols: out of memory");
	}
	if (!nr) {
		free(s);
		free(names);
		return core_err(-EACCES, "%s shows no addresses: run as root "
				"or lower kernel.kptr_restrict", path);
	}
	for (i = 0; i < nr; i++) {
		s[i].name = names + (uintptr_t)s[i].name;
		if (text && file_text)
			s[i].start = s[i].start - file_text + text;
	}
	dso_syms_sort(s, &nr);
	keep_names(s, nr, k->syms, k->nr_syms);
	free(k->syms);
	dso_retire(k, k->names);	/* rows may hold its names */
	k->syms = s;
	k->nr_syms = nr;
	k->names = names;
	k->syms_end = end;
	/* the path stays the same string: rows may hold it */
	if (!k->path)
		k->path = strdup(KERNEL_NAME);
	if (!k->path)
		return core_err(-ENOMEM, "symbols: out of memory");
	return (int)nr;
}

int dso_load_kallsyms(struct dso *k)
{
	return load(k, "/proc/kallsyms", NULL, 0);
}

int dso_load_kallsyms_file(struct dso *k, const char *path,
			   uint64_t text)
{
	return load(k, path, NULL, text);
}

uint64_t kallsyms_host_text(void)
{
	unsigned long long addr;
	char line[512], type;
	const char *name;
	uint64_t found = 0;
	size_t l;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (kallsyms_line(line, &addr, &type, &name, &l) && l == 5 &&
		    !memcmp(name, "_text", 5))
			found = addr;
	fclose(f);
	return found;
}

struct kload {
	pthread_t thread;
	struct dso d;
	int ret;
	char msg[256];		/* the thread's pebs_errmsg() */
	atomic_bool done;	/* d, ret and msg are written */
	_Atomic uint64_t limit;	/* kload_limit */
};

static void *run(void *arg)
{
	struct kload *k = arg;

	k->ret = load(&k->d, "/proc/kallsyms", &k->limit, 0);
	if (k->ret < 0)
		snprintf(k->msg, sizeof(k->msg), "%s", pebs_errmsg());
	atomic_store_explicit(&k->done, true, memory_order_release);
	return NULL;
}

bool kload_ready(struct kload *k)
{
	return atomic_load_explicit(&k->done, memory_order_acquire);
}

void kload_limit(struct kload *k, uint64_t max)
{
	atomic_store_explicit(&k->limit, max, memory_order_relaxed);
}

struct kload *kload_start(uint64_t limit)
{
	struct kload *k = calloc(1, sizeof(*k));

	if (k) {
		atomic_init(&k->done, false);
		atomic_init(&k->limit, limit);
	}
	if (k && pthread_create(&k->thread, NULL, run, k)) {
		free(k);
		return NULL;
	}
	return k;
}

void kload_cancel(struct kload *k)
{
	if (!k)
		return;
	pthread_join(k->thread, NULL);
	dso_free(&k->d);
	free(k);
}

int kload_finish(struct kload *k, struct dso *kernel)
{
	int ret;

	pthread_join(k->thread, NULL);
	ret = k->ret;
	if (ret < 0) {
		ret = core_err(ret, "%s", k->msg);
		dso_free(&k->d);
		free(k);
		return ret;
	}
	keep_names(k->d.syms, k->d.nr_syms, kernel->syms, kernel->nr_syms);
	free(kernel->syms);
	dso_retire(kernel, kernel->names);
	kernel->syms = k->d.syms;
	kernel->nr_syms = k->d.nr_syms;
	kernel->names = k->d.names;
	kernel->syms_end = k->d.syms_end;
	/* the path stays the same string: rows may hold it */
	if (!kernel->path) {
		kernel->path = k->d.path;
		k->d.path = NULL;
	}
	free(k->d.path);
	free(k);
	return kernel->path ? ret :
	       core_err(-ENOMEM, "symbols: out of memory");
}

int kallsyms_probe(void)
{
	unsigned long long addr;
	char line[512], type;
	const char *name;
	size_t l;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return core_err(-errno, "cannot read /proc/kallsyms: %s",
				strerror(errno));
	/* hidden addresses read 0, all of them */
	while (fgets(line, sizeof(line), f))
		if (kallsyms_line(line, &addr, &type, &name, &l) && addr &&
		    text_type(type)) {
			fclose(f);
			return 1;
		}
	fclose(f);
	return core_err(-EACCES, "/proc/kallsyms shows no addresses: "
			"run as root or lower kernel.kptr_restrict");
}
