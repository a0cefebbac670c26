// SPDX-License-Identifier: MIT
/*
 * perfdata-feat.c - the header feature sections of a perf.data file, in
 * the layouts perf's util/header.c writes (write_*) and reads
 * (process_*): strings, NRCPUS, CPUDESC/CPUID, TOTAL_MEM, CMDLINE,
 * EVENT_DESC, SAMPLE_TIME, CLOCKID/CLOCK_DATA, and the machine
 * descriptions perf c2c and perf mem need: CPU_TOPOLOGY, NUMA_TOPOLOGY,
 * PMU_MAPPINGS, CACHE, MEM_TOPOLOGY (from /proc and /sys); GROUP_DESC
 * of the groups declared with pebs_perfdata_writer__add_group.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "perfdata/perfdata-write.h"

#define CPUINFO_MAX		16384
#define SYS_CPU			"/sys/devices/system/cpu"
#define SYS_NODE		"/sys/devices/system/node"
#define SYS_MEMORY		"/sys/devices/system/memory"
#define SYS_PMUS		"/sys/bus/event_source/devices"
#define MAX_CACHES		512
#define MAX_NODES		4096

void bytes_add(struct bytes *b, const void *p, size_t len)
{
	if (b->oom || !len)
		return;
	if (core_grow(&b->p, &b->cap, b->len + len, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

void bytes_u32(struct bytes *b, uint32_t v)
{
	bytes_add(b, &v, sizeof(v));
}

void bytes_u64(struct bytes *b, uint64_t v)
{
	bytes_add(b, &v, sizeof(v));
}

void bytes_str(struct bytes *b, const char *s)
{
	static const char zero[NAME_ALIGN];
	size_t olen = strlen(s) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	bytes_u32(b, (uint32_t)len);
	bytes_add(b, s, olen);
	bytes_add(b, zero, len - olen);
}

/* A sysfs value, trailing whitespace cut; false if unreadable. */
static bool sys_str(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool sys_str(char *buf, size_t len, const char *fmt, ...)
{
	char path[256];
	va_list ap;
	ssize_t n;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	n = core_read_small(path, buf, len);
	if (n < 0)
		return false;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return true;
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
	if (core_read_small("/proc/cpuinfo", info, CPUINFO_MAX) < 0)
		info[0] = '\0';
	core_cpuinfo_field(info, "model name", model, sizeof(model));
	bytes_str(desc, model[0] ? model : "unknown");
	core_cpuinfo_field(info, "vendor_id", vendor, sizeof(vendor));
	core_cpuinfo_field(info, "cpu family", fam, sizeof(fam));
	core_cpuinfo_field(info, "model", mod, sizeof(mod));
	core_cpuinfo_field(info, "stepping", step, sizeof(step));
	snprintf(buf, sizeof(buf), "%s,%s,%s,%s", vendor[0] ? vendor :
		 "unknown", fam, mod, step);
	bytes_str(id, buf);
	free(info);
}

static uint64_t total_mem_kb(void)
{
	char buf[4096], *p;

	if (core_read_small("/proc/meminfo", buf, sizeof(buf)) < 0)
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
	n = core_read_small("/proc/self/cmdline", buf, sizeof(buf));
	for (i = 0; i < n; i++)
		nr += !buf[i];
	bytes_u32(b, (uint32_t)nr);
	for (i = 0; i < n; i += (int)strlen(buf + i) + 1)
		bytes_str(b, buf + i);
}

static void feat_event_desc(const struct pebs_perfdata_writer *w,
			    struct bytes *b)
{
	unsigned int i;

	bytes_u32(b, w->nr_attrs);
	bytes_u32(b, (uint32_t)w->attr_size);
	for (i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];

		bytes_add(b, &a->attr, w->attr_size);
		bytes_u32(b, a->nr_ids);
		bytes_str(b, a->name);
		bytes_add(b, a->ids, a->nr_ids * sizeof(uint64_t));
	}
}

/* whether CPU @cpu is online (cpu0 often has no "online" file) */
static bool cpu_online(unsigned int cpu)
{
	char v[8];

	if (!sys_str(v, sizeof(v), SYS_CPU "/cpu%u/online", cpu))
		return true;
	return v[0] == '1';
}

/* append @s to the list @l of @nr distinct strings (in @b) if new */
static void add_unique(struct bytes *b, char **l, uint32_t *nr,
		       uint32_t max, const char *s)
{
	for (uint32_t i = 0; i < *nr; i++)
		if (!strcmp(l[i], s))
			return;
	if (*nr == max || !(l[*nr] = strdup(s))) {
		b->oom = true;
		return;
	}
	(*nr)++;
}

static void put_list(struct bytes *b, char **l, uint32_t nr)
{
	bytes_u32(b, nr);
	for (uint32_t i = 0; i < nr; i++) {
		bytes_str(b, l[i]);
		free(l[i]);
	}
}

/* perf's id of CPU @cpu in topology file @name, -1 when unknown */
static uint32_t topo_id(unsigned int cpu, const char *name)
{
	char v[32];

	if (!sys_str(v, sizeof(v), SYS_CPU "/cpu%u/topology/%s", cpu, name))
		return (uint32_t)-1;
	return (uint32_t)atoi(v);
}

/*
 * CPU_TOPOLOGY (perf's write_cpu_topology): the distinct package CPU
 * lists, the distinct core (SMT sibling) lists, per CPU up to NRCPUS'
 * "available" {core_id, socket_id}, then on x86 the distinct die lists
 * and per CPU its die_id.
 */
static void feat_cpu_topology(struct bytes *b, unsigned int nr_cpus)
{
	char **pk, **co, **di, v[4096];
	uint32_t npk = 0, nco = 0, ndi = 0;
	bool has_die = access(SYS_CPU "/cpu0/topology/die_cpus_list",
			      F_OK) == 0;

	pk = calloc(3 * (size_t)nr_cpus, sizeof(*pk));
	if (!pk) {
		b->oom = true;
		return;
	}
	co = pk + nr_cpus;
	di = co + nr_cpus;
	for (unsigned int c = 0; c < nr_cpus; c++) {
		if (!cpu_online(c))
			continue;
		if (sys_str(v, sizeof(v), SYS_CPU "/cpu%u/topology/package_cpus_list", c) ||
		    sys_str(v, sizeof(v), SYS_CPU "/cpu%u/topology/core_siblings_list", c))
			add_unique(b, pk, &npk, nr_cpus, v);
		if (has_die &&
		    sys_str(v, sizeof(v), SYS_CPU "/cpu%u/topology/die_cpus_list", c))
			add_unique(b, di, &ndi, nr_cpus, v);
		if (sys_str(v, sizeof(v), SYS_CPU "/cpu%u/topology/core_cpus_list", c) ||
		    sys_str(v, sizeof(v), SYS_CPU "/cpu%u/topology/thread_siblings_list", c))
			add_unique(b, co, &nco, nr_cpus, v);
	}
	put_list(b, pk, npk);
	put_list(b, co, nco);
	for (unsigned int c = 0; c < nr_cpus; c++) {
		bytes_u32(b, topo_id(c, "core_id"));
		bytes_u32(b, topo_id(c, "physical_package_id"));
	}
	if (ndi) {
		put_list(b, di, ndi);
		for (unsigned int c = 0; c < nr_cpus; c++)
			bytes_u32(b, topo_id(c, "die_id"));
	}
	free(pk);
}

/* the value of "Node N <key>: <v> kB" in a node's meminfo */
static uint64_t node_meminfo(const char *info, const char *key)
{
	const char *p = strstr(info, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* the NUMA nodes in /sys (sorted); -1 if there is no node directory */
static int list_nodes(uint32_t *nodes, unsigned int max)
{
	struct dirent *de;
	unsigned int nr = 0, n;
	DIR *d = opendir(SYS_NODE);

	if (!d)
		return -1;
	while ((de = readdir(d)) && nr < max)
		if (sscanf(de->d_name, "node%u", &n) == 1)
			nodes[nr++] = n;
	closedir(d);
	qsort(nodes, nr, sizeof(*nodes), cmp_u32);
	return (int)nr;
}

/*
 * NUMA_TOPOLOGY (perf's write_numa_topology): u32 nr, then per node
 * u32 node, u64 MemTotal kB, u64 MemFree kB, its CPU list. A kernel
 * without NUMA shows no node directory: one node 0 with every CPU, as
 * perf c2c needs at least one node.
 */
static void feat_numa(struct bytes *b, unsigned int nr_cpus)
{
	static uint32_t nodes[MAX_NODES];
	char info[4096], key[64], cpus[4096];
	int nr = list_nodes(nodes, MAX_NODES);

	if (nr <= 0) {
		bytes_u32(b, 1);
		bytes_u32(b, 0);
		bytes_u64(b, total_mem_kb());
		bytes_u64(b, 0);
		snprintf(cpus, sizeof(cpus), "0-%u", nr_cpus - 1);
		bytes_str(b, cpus);
		return;
	}
	bytes_u32(b, (uint32_t)nr);
	for (int i = 0; i < nr; i++) {
		if (!sys_str(info, sizeof(info), SYS_NODE "/node%u/meminfo",
			     nodes[i]))
			info[0] = '\0';
		if (!sys_str(cpus, sizeof(cpus), SYS_NODE "/node%u/cpulist",
			     nodes[i]))
			cpus[0] = '\0';
		bytes_u32(b, nodes[i]);
		snprintf(key, sizeof(key), "Node %u MemTotal:", nodes[i]);
		bytes_u64(b, node_meminfo(info, key));
		snprintf(key, sizeof(key), "Node %u MemFree:", nodes[i]);
		bytes_u64(b, node_meminfo(info, key));
		bytes_str(b, cpus);
	}
}

/*
 * PMU_MAPPINGS (perf's write_pmu_mappings): u32 nr, then per PMU in
 * directory order u32 type, name.
 */
static void feat_pmu_mappings(struct bytes *b)
{
	struct bytes l = { 0 };
	struct dirent *de;
	uint32_t nr = 0;
	char v[32];
	DIR *d = opendir(SYS_PMUS);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    !sys_str(v, sizeof(v), SYS_PMUS "/%s/type", de->d_name))
			continue;
		bytes_u32(&l, (uint32_t)atoi(v));
		bytes_str(&l, de->d_name);
		nr++;
	}
	closedir(d);
	bytes_u32(b, nr);
	bytes_add(b, l.p, l.len);
	b->oom |= l.oom;
	free(l.p);
}

struct cache {
	uint32_t level, line, sets, ways;
	char type[32], size[32], map[256];
};

static bool cache_read(struct cache *c, unsigned int cpu, unsigned int idx)
{
	char v[32];

#define CACHE_FILE SYS_CPU "/cpu%u/cache/index%u/"
	if (!sys_str(v, sizeof(v), CACHE_FILE "level", cpu, idx))
		return false;
	c->level = (uint32_t)atoi(v);
	c->line = sys_str(v, sizeof(v), CACHE_FILE "coherency_line_size",
			  cpu, idx) ? (uint32_t)atoi(v) : 0;
	c->sets = sys_str(v, sizeof(v), CACHE_FILE "number_of_sets",
			  cpu, idx) ? (uint32_t)atoi(v) : 0;
	c->ways = sys_str(v, sizeof(v), CACHE_FILE "ways_of_associativity",
			  cpu, idx) ? (uint32_t)atoi(v) : 0;
	return sys_str(c->type, sizeof(c->type), CACHE_FILE "type", cpu, idx) &&
	       sys_str(c->size, sizeof(c->size), CACHE_FILE "size", cpu, idx) &&
	       sys_str(c->map, sizeof(c->map), CACHE_FILE "shared_cpu_list",
		       cpu, idx);
#undef CACHE_FILE
}

static bool cache_same(const struct cache *a, const struct cache *b)
{
	return a->level == b->level && a->line == b->line &&
	       a->sets == b->sets && a->ways == b->ways &&
	       !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       !strcmp(a->map, b->map);
}

/*
 * CACHE (perf's write_cache): u32 version 1, u32 nr, then per distinct
 * cache (CPU by CPU, index by index, stably ordered by level) u32
 * level, line size, sets, ways, and the strings type, size, CPU list.
 */
static void feat_cache(struct bytes *b, unsigned int nr_cpus)
{
	struct cache *c = calloc(MAX_CACHES, sizeof(*c));
	unsigned int nr = 0;

	if (!c) {
		b->oom = true;
		return;
	}
	for (unsigned int cpu = 0; cpu < nr_cpus; cpu++) {
		for (unsigned int idx = 0; idx < 10 && nr < MAX_CACHES; idx++) {
			unsigned int i;

			if (!cache_read(&c[nr], cpu, idx))
				break;
			for (i = 0; i < nr && !cache_same(&c[i], &c[nr]); i++)
				;
			nr += i == nr;
		}
	}
	if (nr) {
		bytes_u32(b, 1);
		bytes_u32(b, nr);
		for (uint32_t lvl = 0; lvl <= 4; lvl++) {
			for (unsigned int i = 0; i < nr; i++) {
				if (c[i].level != lvl)
					continue;
				bytes_u32(b, c[i].level);
				bytes_u32(b, c[i].line);
				bytes_u32(b, c[i].sets);
				bytes_u32(b, c[i].ways);
				bytes_str(b, c[i].type);
				bytes_str(b, c[i].size);
				bytes_str(b, c[i].map);
			}
		}
	}
	free(c);
}

/* the bitmap of the memory blocks of node @node, as perf writes it */
static void mem_node(struct bytes *b, uint32_t node)
{
	char path[128];
	struct dirent *de;
	uint64_t *set, size = 0;
	unsigned int mem;
	DIR *d;

	snprintf(path, sizeof(path), SYS_NODE "/node%u", node);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "memory%u", &mem) == 1 && mem >= size)
			size = (uint64_t)mem + 1;
	set = calloc((size + 63) / 64 + 1, sizeof(*set));
	if (!set) {
		b->oom = true;
		closedir(d);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "memory%u", &mem) == 1 && mem < size)
			set[mem / 64] |= 1ULL << (mem % 64);
	closedir(d);
	bytes_u64(b, node);
	bytes_u64(b, size);
	bytes_u64(b, size);		/* the bitmap's bits, then its words */
	bytes_add(b, set, (size + 63) / 64 * sizeof(*set));
	free(set);
}

/*
 * MEM_TOPOLOGY (perf's write_mem_topology): u64 version 1, u64 memory
 * block size, u64 nr, then per node u64 node, u64 nr blocks, the bitmap
 * of its blocks. Absent without /sys/devices/system/memory.
 */
static void feat_mem_topology(struct bytes *b)
{
	static uint32_t nodes[MAX_NODES];
	char v[64];
	int nr;

	if (!sys_str(v, sizeof(v), SYS_MEMORY "/block_size_bytes"))
		return;
	nr = list_nodes(nodes, MAX_NODES);
	if (nr <= 0)
		return;
	bytes_u64(b, 1);
	bytes_u64(b, strtoull(v, NULL, 16));
	bytes_u64(b, (uint64_t)nr);
	for (int i = 0; i < nr; i++)
		mem_node(b, nodes[i]);
}

int pebs_perfdata_writer__add_group(struct pebs_perfdata_writer *w,
				    unsigned int leader,
				    unsigned int nr_members, const char *name)
{
	char *copy = NULL;

	if (!w || nr_members < 2 || leader >= w->nr_attrs ||
	    nr_members > w->nr_attrs - leader)
		return core_err(-EINVAL, "perfdata writer: a group is two or "
				"more events already added");
	if (w->started)
		return core_err(-EINVAL, "perfdata writer: groups must be "
				"added before the first record");
	for (unsigned int i = 0; i < w->nr_attrs; i++) {
		unsigned int n = w->attrs[i].nr_members;

		if (n > 1 && i < leader + nr_members && leader < i + n)
			return core_err(-EINVAL, "perfdata writer: event %u "
					"is in a group already", i > leader ?
					i : leader);
	}
	if (name && !(copy = strdup(name)))
		return core_err(-ENOMEM, "perfdata writer: out of memory");
	w->attrs[leader].nr_members = nr_members;
	w->attrs[leader].group = copy;
	return 0;
}

/* perf's write_group_desc: u32 nr, then name, u32 leader, u32 members */
static void feat_group_desc(const struct pebs_perfdata_writer *w,
			    struct bytes *b)
{
	uint32_t nr = 0;

	for (unsigned int i = 0; i < w->nr_attrs; i++)
		nr += w->attrs[i].nr_members > 1;
	if (!nr)
		return;
	bytes_u32(b, nr);
	for (unsigned int i = 0; i < w->nr_attrs; i++) {
		if (w->attrs[i].nr_members < 2)
			continue;
		bytes_str(b, w->attrs[i].group ?: "{anon_group}");
		bytes_u32(b, i);
		bytes_u32(b, w->attrs[i].nr_members);
	}
}

void wr_features(const struct pebs_perfdata_writer *w, struct bytes *f,
		 unsigned int nr, bool at_start)
{
	unsigned int nr_cpus = (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	struct utsname u;

	if (nr <= PEBS_FEAT_CLOCK_DATA)
		return;
	uname(&u);
	if (!at_start) {	/* the pipe has its own record for it */
		bytes_add(&f[PEBS_FEAT_TRACING_DATA], w->tracing.p,
			  w->tracing.len);
		wr_feat_build_id(w, &f[PEBS_FEAT_BUILD_ID]);
	}
	bytes_str(&f[PEBS_FEAT_HOSTNAME], u.nodename);
	bytes_str(&f[PEBS_FEAT_OSRELEASE], u.release);
	wr_version(w, &f[PEBS_FEAT_VERSION]);
	bytes_str(&f[PEBS_FEAT_ARCH], u.machine);
	bytes_u32(&f[PEBS_FEAT_NRCPUS], nr_cpus);
	bytes_u32(&f[PEBS_FEAT_NRCPUS], (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	feat_cpu(&f[PEBS_FEAT_CPUDESC], &f[PEBS_FEAT_CPUID]);
	bytes_u64(&f[PEBS_FEAT_TOTAL_MEM], total_mem_kb());
	feat_cmdline(w, &f[PEBS_FEAT_CMDLINE]);
	feat_event_desc(w, &f[PEBS_FEAT_EVENT_DESC]);
	feat_cpu_topology(&f[PEBS_FEAT_CPU_TOPOLOGY], nr_cpus);
	feat_numa(&f[PEBS_FEAT_NUMA_TOPOLOGY], nr_cpus);
	feat_pmu_mappings(&f[PEBS_FEAT_PMU_MAPPINGS]);
	feat_group_desc(w, &f[PEBS_FEAT_GROUP_DESC]);
	feat_cache(&f[PEBS_FEAT_CACHE], nr_cpus);
	feat_mem_topology(&f[PEBS_FEAT_MEM_TOPOLOGY]);
	if (!at_start && w->stats.last_time) {
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
}
