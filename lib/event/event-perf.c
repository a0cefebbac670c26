// SPDX-License-Identifier: MIT
/*
 * event-perf.c - perf's own event names, encoded as perf 6.1 does so
 * that they work whatever PMU libpfm4 detects:
 *
 *  - hardware: cycles, instructions, cache-misses, ... (PERF_TYPE_HARDWARE)
 *  - software: cpu-clock, page-faults, cs, ... (PERF_TYPE_SOFTWARE)
 *    (util/parse-events.c event_symbols_hw/_sw);
 *  - hardware caches: <cache>-<op>-<result>, <cache>-<result>,
 *    <cache>-<op> with perf's spellings (L1-dcache-load-misses,
 *    LLC-loads, dTLB-store-misses, branch-load-misses, ...), case
 *    insensitive, only the combinations perf accepts (PERF_TYPE_HW_CACHE,
 *    config = cache | op << 8 | result << 16; op defaults to load,
 *    result to access; util/evsel.c evsel__hw_cache*);
 *  - raw: r followed by hex digits (PERF_TYPE_RAW, config = the number);
 *  - tracepoints sys:name (util/evsel.c evsel__newtp_idx):
 *    PERF_TYPE_TRACEPOINT with config = the id in
 *    <tracefs>/events/<sys>/<name>/id, sample_period 1 and
 *    PERF_SAMPLE_RAW so that samples carry the tracepoint's fields. The
 *    tracefs is found where perf looks (util/tracing_path.c): the tracefs
 *    mount /sys/kernel/tracing, else debugfs's /sys/kernel/debug/tracing.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "pebsshim/event.h"
#include "core/internal.h"
#include "event/event-internal.h"

struct symbol {
	const char *name;
	const char *alias;
	uint32_t type;
	uint64_t config;
	bool memory;		/* PERF_SAMPLE_ADDR is the faulting address */
};

static const struct symbol symbols[] = {
	{ "cpu-cycles", "cycles", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES, false },
	{ "instructions", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS, false },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES, false },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES, false },
	{ "branch-instructions", "branches", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES, false },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BUS_CYCLES, false },
	{ "stalled-cycles-frontend", "idle-cycles-frontend",
	  PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, false },
	{ "stalled-cycles-backend", "idle-cycles-backend",
	  PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, false },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_REF_CPU_CYCLES, false },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_CLOCK, false },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_TASK_CLOCK, false },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS, true },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MIN, true },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ, true },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS, false },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS, false },
	{ "dummy", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, false },
	{ "bpf-output", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_BPF_OUTPUT, false },
	{ "cgroup-switches", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CGROUP_SWITCHES, false },
};

/* perf's evsel__hw_cache, evsel__hw_cache_op, evsel__hw_cache_result */
#define SPELLINGS	5
static const char *const caches[PERF_COUNT_HW_CACHE_MAX][SPELLINGS] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

static const char *const ops[PERF_COUNT_HW_CACHE_OP_MAX][SPELLINGS] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const results[PERF_COUNT_HW_CACHE_RESULT_MAX]
				[SPELLINGS] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

/* which ops each cache has (perf's evsel__hw_cache_stat) */
#define R	(1u << PERF_COUNT_HW_CACHE_OP_READ)
#define W	(1u << PERF_COUNT_HW_CACHE_OP_WRITE)
#define P	(1u << PERF_COUNT_HW_CACHE_OP_PREFETCH)
static const unsigned int cache_ops[PERF_COUNT_HW_CACHE_MAX] = {
	R | W | P, R | P, R | W | P, R | W | P, R, R, R | W | P,
};

/* the longest spelling of @table that starts @s (a '-' or the end next) */
static int match(const char *s, size_t len, const char *const table[][SPELLINGS],
		 unsigned int n, size_t *used)
{
	unsigned int i, j;
	int best = -1;
	size_t best_len = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < SPELLINGS && table[i][j]; j++) {
			size_t l = strlen(table[i][j]);

			if (l <= len && l > best_len &&
			    !strncasecmp(s, table[i][j], l) &&
			    (l == len || s[l] == '-')) {
				best = (int)i;
				best_len = l;
			}
		}
	}
	*used = best_len;
	return best;
}

static int find_cache(const char *s, size_t len, uint64_t *config)
{
	int cache, op = -1, result = -1, r;
	size_t used;

	cache = match(s, len, caches, PERF_COUNT_HW_CACHE_MAX, &used);
	if (cache < 0)
		return -ENOENT;
	s += used;
	len -= used;
	/* up to two more parts: an op and a result, each at most once */
	while (len) {
		s++;	/* the '-' */
		len--;
		if (op < 0 && (r = match(s, len, ops, PERF_COUNT_HW_CACHE_OP_MAX,
					 &used)) >= 0)
			op = r;
		else if (result < 0 &&
			 (r = match(s, len, results,
				    PERF_COUNT_HW_CACHE_RESULT_MAX, &used)) >= 0)
			result = r;
		else
			return -ENOENT;
		s += used;
		len -= used;
	}
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_ops[cache] & (1u << op)))
		return -ENOENT;
	*config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)result << 16;
	return 0;
}

static int find_raw(const char *s, size_t len, uint64_t *config)
{
	size_t i;

	if (len < 2 || len > 17 || s[0] != 'r')
		return -ENOENT;
	for (i = 1; i < len; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return -ENOENT;
	*config = strtoull(s + 1, NULL, 16);
	return 0;
}

/* perf list's names: L1-dcache-loads, L1-dcache-load-misses */
static void cache_name(uint64_t config, char *out, size_t len)
{
	unsigned int op = (config >> 8) & 0xff;

	if (config >> 16 == PERF_COUNT_HW_CACHE_RESULT_MISS)
		snprintf(out, len, "%s-%s-misses", caches[config & 0xff][0],
			 ops[op][0]);
	else
		snprintf(out, len, "%s-%s", caches[config & 0xff][0],
			 ops[op][1]);
}

int event_generic_find(const char *name, size_t len, struct pebs_event *ev)
{
	const struct symbol *sym;
	uint64_t config;

	for (sym = symbols; sym < symbols + ARRAY_SIZE(symbols); sym++) {
		if ((strlen(sym->name) == len && !strncmp(sym->name, name, len))
		    || (sym->alias && strlen(sym->alias) == len &&
			!strncmp(sym->alias, name, len)))
			break;
	}
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	if (sym < symbols + ARRAY_SIZE(symbols)) {
		ev->attr.type = sym->type;
		ev->attr.config = sym->config;
		snprintf(ev->resolved, sizeof(ev->resolved), "%s", sym->name);
		if (sym->type == PERF_TYPE_SOFTWARE) {
			snprintf(ev->pmu, sizeof(ev->pmu), "perf");
			ev->flags |= PEBS_EVENT_SOFTWARE;
		} else {
			snprintf(ev->pmu, sizeof(ev->pmu), "cpu");
		}
		if (sym->memory)
			ev->flags |= PEBS_EVENT_MEMORY;
		return 0;
	}
	if (!find_cache(name, len, &config)) {
		ev->attr.type = PERF_TYPE_HW_CACHE;
		ev->attr.config = config;
		cache_name(config, ev->resolved, sizeof(ev->resolved));
		snprintf(ev->pmu, sizeof(ev->pmu), "cpu");
		return 0;
	}
	if (!find_raw(name, len, &config)) {
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = config;
		snprintf(ev->resolved, sizeof(ev->resolved), "r%llx",
			 (unsigned long long)config);
		snprintf(ev->pmu, sizeof(ev->pmu), "cpu");
		return 0;
	}
	memset(&ev->attr, 0, sizeof(ev->attr));
	return -ENOENT;
}

/* ---- names, for suggestions ------------------------------------------ */

#define NR_CACHE_NAMES	(PERF_COUNT_HW_CACHE_MAX * \
			 PERF_COUNT_HW_CACHE_OP_MAX * \
			 PERF_COUNT_HW_CACHE_RESULT_MAX)

static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static char cache_names[NR_CACHE_NAMES][40];
static unsigned int nr_cache_names;

static void names_init(void)
{
	unsigned int c, o, r;

	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
			for (r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++)
				if (cache_ops[c] & (1u << o))
					cache_name(c | o << 8 | r << 16,
						   cache_names[nr_cache_names++],
						   sizeof(cache_names[0]));
}

const char *event_generic_name(unsigned int i)
{
	const size_t ns = ARRAY_SIZE(symbols);

	if (i < ns)
		return symbols[i].name;
	if (i < 2 * ns)
		return symbols[i - ns].alias ?: "";
	pthread_once(&names_once, names_init);
	if (i < 2 * ns + nr_cache_names)
		return cache_names[i - 2 * ns];
	return NULL;
}

/* ---- tracepoints ------------------------------------------------------- */

static const char *const default_roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static const char *tp_root;

void event_tp_set_root(const char *root)
{
	tp_root = root;
}

/* the first tracing directory with an events/<sys> directory */
static const char *find_root(const char *sys)
{
	char path[512];
	struct stat st;
	size_t i;

	if (tp_root) {
		snprintf(path, sizeof(path), "%s/events/%s", tp_root, sys);
		return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ?
		       tp_root : NULL;
	}
	for (i = 0; i < ARRAY_SIZE(default_roots); i++) {
		snprintf(path, sizeof(path), "%s/events/%s", default_roots[i],
			 sys);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return default_roots[i];
	}
	return NULL;
}

const char *event_tp_root(void)
{
	char path[512];
	size_t i;

	if (tp_root)
		return tp_root;
	for (i = 0; i < ARRAY_SIZE(default_roots); i++) {
		snprintf(path, sizeof(path), "%s/events", default_roots[i]);
		if (!access(path, R_OK | X_OK))
			return default_roots[i];
	}
	return NULL;
}

bool event_tp_available(void)
{
	char path[512];

	if (!tp_root)
		return event_tp_root() != NULL;
	snprintf(path, sizeof(path), "%s/events", tp_root);
	return !access(path, R_OK | X_OK);
}

/* perf's tracepoint names, without globs: [A-Za-z_][A-Za-z0-9_.-]* */
static bool tp_word(const char *s, size_t len)
{
	size_t i;

	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

static int read_id(const char *path, uint64_t *id)
{
	char buf[32], *end;
	size_t n;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	errno = 0;
	*id = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

static int unknown(const char *root, const char *sys, const char *name)
{
	char path[512], names[200];
	struct pebs_close c;
	struct dirent *d;
	DIR *dir;

	event_pfm_close_init(&c, name, strlen(name));
	snprintf(path, sizeof(path), "%s/events/%s", root, sys);
	dir = opendir(path);
	if (dir) {
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.' && d->d_type == DT_DIR)
				event_pfm_close_consider(&c, d->d_name);
		closedir(dir);
	}
	event_pfm_close_format(&c, names, sizeof(names));
	if (names[0])
		return core_err(-ENOENT, "unknown tracepoint '%s:%s': did you "
				"mean %s? (see %s)", sys, name, names, path);
	return core_err(-ENOENT, "unknown tracepoint '%s:%s': see %s (perf "
			"list tracepoint)", sys, name, path);
}

int event_tp_find(const char *str, size_t len, struct pebs_event *ev)
{
	char sys[64], name[128], path[512];
	const char *colon = memchr(str, ':', len), *root;
	uint64_t id = 0;
	int err;

	if (!colon || !tp_word(str, (size_t)(colon - str)) ||
	    !tp_word(colon + 1, len - (size_t)(colon - str) - 1) ||
	    (size_t)(colon - str) >= sizeof(sys) ||
	    len - (size_t)(colon - str) - 1 >= sizeof(name))
		return 1;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - str), str);
	snprintf(name, sizeof(name), "%.*s", (int)(len - (colon - str) - 1),
		 colon + 1);
	root = find_root(sys);
	if (!root)
		return 1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	err = read_id(path, &id);
	if (err == -ENOENT)
		return unknown(root, sys, name);
	if (err)
		return core_err(err, "%s:%s: cannot read %s: %s", sys, name,
				path, err == -EINVAL ? "not a number" :
				strerror(-err));
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	ev->attr.sample_period = 1;
	ev->attr.sample_type = PERF_SAMPLE_RAW;
	snprintf(ev->pmu, sizeof(ev->pmu), "tracepoint");
	snprintf(ev->resolved, sizeof(ev->resolved), "%s:%s", sys, name);
	ev->flags |= PEBS_EVENT_TRACEPOINT;
	return 0;
}

/* perf's evsel__add_modifiers: ":" then k, u, h for the levels counted
   when one is excluded, p per precise level, then H and G */
static void attr_modifiers(const struct perf_event_attr *a, char *out,
			   size_t len)
{
	char m[8];
	size_t n = 0;
	bool guest_default = false;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			m[n++] = 'k';
		if (!a->exclude_user)
			m[n++] = 'u';
		if (!a->exclude_hv)
			m[n++] = 'h';
		guest_default = true;
	}
	if (a->precise_ip)
		guest_default = true;
	for (unsigned int i = 0; i < a->precise_ip && i < 3; i++)
		m[n++] = 'p';
	if (a->exclude_host || a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			m[n++] = 'H';
		if (!a->exclude_guest)
			m[n++] = 'G';
	}
	if (n)
		snprintf(out, len, ":%.*s", (int)n, m);
	else if (len)
		out[0] = '\0';
}

int event_attr_name(const struct perf_event_attr *a, char *out, size_t len)
{
	/* perf's evsel__hw_names (not always the canonical spelling) */
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles",
		"stalled-cycles-frontend", "stalled-cycles-backend",
		"ref-cycles",
	};
	const struct symbol *sym;
	char base[64], mods[10];

	for (sym = symbols; sym < symbols + ARRAY_SIZE(symbols); sym++)
		if (sym->type == a->type && sym->config == a->config)
			break;
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw))
		snprintf(base, sizeof(base), "%s", hw[a->config]);
	else if (sym < symbols + ARRAY_SIZE(symbols))
		snprintf(base, sizeof(base), "%s", sym->name);
	else if (a->type == PERF_TYPE_HW_CACHE &&
		 (a->config & 0xff) < PERF_COUNT_HW_CACHE_MAX &&
		 ((a->config >> 8) & 0xff) < PERF_COUNT_HW_CACHE_OP_MAX &&
		 (a->config >> 16) < PERF_COUNT_HW_CACHE_RESULT_MAX)
		cache_name(a->config, base, sizeof(base));
	else if (a->type == PERF_TYPE_RAW)
		snprintf(base, sizeof(base), "raw 0x%llx",
			 (unsigned long long)a->config);
	else
		return -ENOENT;
	attr_modifiers(a, mods, sizeof(mods));
	snprintf(out, len, "%s%s", base, mods);
	return 0;
}
