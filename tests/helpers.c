// SPDX-License-Identifier: MIT
/*
 * helpers.c - the feature probes of helpers.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "helpers.h"
#include "pebsshim.h"

static bool __attribute__((format(printf, 3, 4)))
say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* opens (and closes) an event: 0 or -errno */
static int try_open(struct perf_event_attr *a, int pid, int cpu)
{
	int fd;

	a->size = sizeof(*a);
	a->disabled = 1;
	fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static bool have_pmu(char *why, size_t len, int precise)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.exclude_kernel = 1, .exclude_hv = 1,
		.sample_period = precise ? 100003 : 0,
		.precise_ip = precise,
	};
	int err = try_open(&a, 0, -1);

	if (!err)
		return true;
	if (precise)
		return say(why, len, "no precise (PEBS/IBS) sampling here: cycles:p fails (%s)",
			   strerror(-err));
	return say(why, len, "no hardware PMU here: cycles fails (%s)",
		   strerror(-err));
}

static bool have_percpu(char *why, size_t len)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
	};
	int err = try_open(&a, -1, 0);

	if (!err)
		return true;
	return say(why, len,
		   "per-CPU events are not allowed here (%s): need root or perf_event_paranoid <= 0",
		   strerror(-err));
}

static bool have_qemu(char *why, size_t len)
{
	const char *path = getenv("PATH");
	char buf[4096], *save, *dir;

	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(buf, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		char exe[4200];

		snprintf(exe, sizeof(exe), "%s/qemu-system-x86_64", dir);
		if (!access(exe, X_OK))
			return true;
	}
	return say(why, len, "%s",
		   "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)");
}

bool t_have(const char *feature, char *why, size_t len)
{
	char var[64];
	const char *hide;
	size_t i;
	int fd;

	snprintf(var, sizeof(var), "PEBS_TEST_NO_%s", feature);
	for (i = strlen("PEBS_TEST_NO_"); var[i]; i++)
		var[i] = toupper((unsigned char)var[i]);
	hide = getenv(var);
	if (hide && *hide && strcmp(hide, "0")) {
		if (why && len)
			snprintf(why, len, "%s hidden by %s=%s", feature, var,
				 hide);
		return false;
	}
	if (!strcmp(feature, "rdtscp"))
		return pebs_cpu_has_rdtscp() ||
		       say(why, len, "%s", "no rdtscp on this CPU");
	if (!strcmp(feature, "pmu"))
		return have_pmu(why, len, 0);
	if (!strcmp(feature, "precise"))
		return have_pmu(why, len, 1);
	if (!strcmp(feature, "percpu"))
		return have_percpu(why, len);
	if (!strcmp(feature, "root"))
		return !geteuid() || say(why, len, "%s", "not running as root");
	if (!strcmp(feature, "cpus2"))
		return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ||
		       say(why, len, "%s", "fewer than two online CPUs");
	if (!strcmp(feature, "map")) {
		fd = open(PEBS_MAP_DEVICE, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return true;
		}
		return say(why, len,
			   "no " PEBS_MAP_DEVICE " (%s): the pebs_map module is not loaded",
			   strerror(errno));
	}
	if (!strcmp(feature, "qemu"))
		return have_qemu(why, len);
	return say(why, len, "unknown feature '%s'", feature);
}

int t_put_file(const char *top, const char *rel, const char *text)
{
	char path[1024], *slash;
	size_t len = text ? strlen(text) : 0;
	int fd, ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", top, rel) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	for (slash = strchr(path + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*slash = '/';
	}
	if (!text)
		return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ok = write(fd, text, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -EIO;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int t_rm_tree(const char *top)
{
	return nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

size_t t_make_mmap2(uint64_t *buf, uint32_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, uint32_t prot,
		    uint16_t misc, const char *name)
{
	struct perf_event_header *h = (void *)buf;
	uint32_t *u32 = (uint32_t *)(h + 1);
	uint64_t *u64 = (uint64_t *)(u32 + 2);
	size_t size = sizeof(*h) + 8 + 24 + 24 + 8 +
		      ((strlen(name) + 8) & ~(size_t)7);

	memset(buf, 0, size);
	h->type = PERF_RECORD_MMAP2;
	h->misc = misc;
	h->size = (uint16_t)size;
	u32[0] = pid;
	u32[1] = pid;
	u64[0] = start;
	u64[1] = len;
	u64[2] = pgoff;
	((uint32_t *)(u64 + 6))[0] = prot;
	strcpy((char *)(u64 + 7), name);
	return size;
}

int t_symbols_setup(void **state)
{
	struct pebs_symbols *syms;

	if (pebs_symbols__new(&syms))
		return -1;
	*state = syms;
	return 0;
}

int t_symbols_teardown(void **state)
{
	pebs_symbols__delete(*state);
	return 0;
}

struct pebs_perfdata *t_open_fixture(const char *name)
{
	const char *src = getenv("PEBS_SRC");
	struct pebs_perfdata *pd = NULL;
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".",
		 name);
	if (pebs_perfdata__open(path, &pd))
		fprintf(stderr, "%s: %s (set PEBS_SRC to the source tree)\n",
			path, pebs_errmsg());
	return pd;
}

bool t_has_line(const char *out, const char *line)
{
	const char *p = out;
	size_t n = strlen(line);

	while ((p = strstr(p, line))) {
		if ((p == out || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
		p++;
	}
	return false;
}

int t_write_sample(struct pebs_perfdata_writer *w, uint64_t *r, size_t size)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE,
				       PERF_RECORD_MISC_USER, (uint16_t)size };

	memcpy(r, &h, sizeof(h));
	return pebs_perfdata_writer__write(w, (void *)r);
}

struct perf_event_attr t_alloc_attr(void)
{
	return (struct perf_event_attr){
		.size = sizeof(struct perf_event_attr),
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			       PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT,
		.sample_id_all = 1,
	};
}

int t_write_alloc(struct pebs_perfdata_writer *w, uint64_t time,
		  uint64_t addr, uint64_t size, uint64_t ip)
{
	uint64_t r[11] = { 0, PEBS_OBJECTS_ALLOC_ID, ip,
			   (uint64_t)50 << 32 | 50, time, addr, size, 2,
			   PERF_CONTEXT_USER, ip, size };

	return t_write_sample(w, r, sizeof(r));
}
