// SPDX-License-Identifier: MIT
/*
 * machine.c - what this machine offers the sampler, as "key=value"
 * lines: the CPU, the kernel's perf settings, the core and IBS PMUs and
 * their caps/, rdpmc, rdtscp, NUMA, the module, virtualization. The
 * first check of `pebs-shim test` prints it; bug reports carry it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define PMU_DIR "/sys/bus/event_source/devices"

struct out {
	char *buf;
	size_t len, used;
	bool cut;
};

static void put(struct out *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put(struct out *o, const char *key, const char *fmt, ...)
{
	char val[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	n = snprintf(o->buf + o->used, o->len - o->used, "%s=%s\n", key, val);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->cut = true;
		return;
	}
	o->used += (size_t)n;
}

/* the first line of @path without its newline, or "" (returns false) */
bool st_read_line(const char *path, char *val, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	val[0] = 0;
	if (!f)
		return false;
	ok = fgets(val, (int)len, f) != NULL;
	fclose(f);
	val[strcspn(val, "\n")] = 0;
	return ok;
}

/* the value of the first "@key\t: value" line of /proc/cpuinfo (the
   first CPU's block is enough) */
static bool cpuinfo(const char *key, char *val, size_t len)
{
	char text[16384];

	if (core_read_small("/proc/cpuinfo", text, sizeof(text)) < 0)
		text[0] = 0;
	core_cpuinfo_field(text, key, val, len);
	return val[0] != 0;
}

bool st_cpu_flag(const char *flag)
{
	char flags[4096], *p;
	size_t n = strlen(flag);

	if (!cpuinfo("flags", flags, sizeof(flags)))
		return false;
	for (p = flags; (p = strstr(p, flag)); p += n)
		if ((p == flags || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/* the files of PMU @pmu's caps/ as "caps.<name>" keys under @key */
static void pmu_caps(struct out *o, const char *pmu)
{
	char dir[256], path[512], val[256], key[300];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), PMU_DIR "/%s/caps", pmu);
	d = opendir(dir);
	if (!d) {
		snprintf(key, sizeof(key), "pmu.%s.caps", pmu);
		put(o, key, "none");
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		st_read_line(path, val, sizeof(val));
		snprintf(key, sizeof(key), "pmu.%s.caps.%s", pmu, de->d_name);
		put(o, key, "%s", val[0] ? val : "(empty)");
	}
	closedir(d);
}

/* cpu, cpu_core, cpu_atom, ibs_op, ibs_fetch: the ones that exist */
static void pmus(struct out *o)
{
	static const char *const core[] = { "cpu", "cpu_core", "cpu_atom" };
	static const char *const ibs[] = { "ibs_op", "ibs_fetch" };
	char path[256], val[256], key[128];
	unsigned int i, nc = 0, ni = 0;

	for (i = 0; i < sizeof(core) / sizeof(core[0]); i++) {
		snprintf(path, sizeof(path), PMU_DIR "/%s", core[i]);
		if (access(path, F_OK))
			continue;
		nc++;
		pmu_caps(o, core[i]);
		snprintf(path, sizeof(path), PMU_DIR "/%s/cpus", core[i]);
		if (st_read_line(path, val, sizeof(val))) {
			snprintf(key, sizeof(key), "pmu.%s.cpus", core[i]);
			put(o, key, "%s", val);
		}
	}
	put(o, "core_pmu", "%s", nc ? (nc > 1 ? "hybrid" : "present") : "none");
	for (i = 0; i < sizeof(ibs) / sizeof(ibs[0]); i++) {
		snprintf(path, sizeof(path), PMU_DIR "/%s", ibs[i]);
		if (access(path, F_OK))
			continue;
		ni++;
		pmu_caps(o, ibs[i]);
	}
	put(o, "ibs", "%s", ni ? "present" : "none");
	if (st_read_line(PMU_DIR "/cpu/rdpmc", val, sizeof(val)))
		put(o, "rdpmc", "%s", val);
	else
		put(o, "rdpmc", "none");
}

static void numa(struct out *o)
{
	char val[256];

	if (st_read_line("/sys/devices/system/node/online", val, sizeof(val)))
		put(o, "numa_nodes", "%s", val);
	else
		put(o, "numa_nodes", "none");
}

static void module(struct out *o)
{
	struct utsname u;
	char path[512];

	put(o, "pebs_map", "%s", access("/dev/pebs_map", F_OK) ? "absent" :
	    "present");
	if (uname(&u))
		return;
	snprintf(path, sizeof(path), "/lib/modules/%s/build", u.release);
	put(o, "kernel_headers", "%s", access(path, F_OK) ? "absent" : path);
}

int pebs_machine__describe(char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };
	static const char *const cpu_keys[][2] = {
		{ "vendor_id", "cpu.vendor" }, { "cpu family", "cpu.family" },
		{ "model", "cpu.model" }, { "model name", "cpu.name" },
		{ "stepping", "cpu.stepping" },
	};
	struct utsname u;
	char val[512];
	unsigned int i;

	if (!buf || !len)
		return core_err(-EINVAL, "machine: no buffer");
	buf[0] = 0;
	for (i = 0; i < sizeof(cpu_keys) / sizeof(cpu_keys[0]); i++) {
		cpuinfo(cpu_keys[i][0], val, sizeof(val));
		put(&o, cpu_keys[i][1], "%s", val[0] ? val : "unknown");
	}
	put(&o, "cpus_online", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (!uname(&u))
		put(&o, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	st_read_line("/proc/sys/kernel/perf_event_paranoid", val, sizeof(val));
	put(&o, "perf_event_paranoid", "%s", val[0] ? val : "unknown");
	st_read_line("/proc/sys/kernel/kptr_restrict", val, sizeof(val));
	put(&o, "kptr_restrict", "%s", val[0] ? val : "unknown");
	pmus(&o);
	put(&o, "rdtscp", "%s", pebs_cpu_has_rdtscp() ? "yes" :
	    (st_cpu_flag("rdtscp") ? "hidden (PEBS_TEST_NO_RDTSCP)" : "no"));
	numa(&o);
	module(&o);
	put(&o, "hypervisor", "%s", st_cpu_flag("hypervisor") ? "yes" : "no");
	if (o.cut)
		return core_err(-ENOSPC, "machine: description longer than "
				"%zu bytes", len);
	return 0;
}
