// SPDX-License-Identifier: MIT
/*
 * checks-hw.c - the probes of the precise memory PMU and its event (the
 * precise checks of checks-mem.c use them), and the checks only
 * hardware can answer: the observer's rdpmc, the module's switch
 * history. Each probes first and skips with
 * the exact reason where the machine lacks the feature (or a
 * PEBS_TEST_NO_* variable hides it); where it has it, a minimal real
 * check runs on a workload whose answer is known.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "selftest/selftest-int.h"

#define PMU_DIR "/sys/bus/event_source/devices"

/*
 * Whether a precise memory PMU is here: a core PMU with max_precise > 0
 * or ibs_op. Sets @r to skip with the reason when not (or when
 * PEBS_TEST_NO_PMU or PEBS_TEST_NO_PRECISE hides it).
 */
bool st_have_precise(struct pebs_selftest_result *r)
{
	static const char *const core[] = { "cpu", "cpu_core", "cpu_atom" };
	char path[256], val[64];
	bool any = false;
	unsigned int i;

	if (st_hidden("PMU")) {
		st_set(r, PEBS_SELFTEST_SKIP, "PMU hidden by PEBS_TEST_NO_PMU=1");
		return false;
	}
	if (st_hidden("PRECISE")) {
		st_set(r, PEBS_SELFTEST_SKIP,
		       "precise sampling hidden by PEBS_TEST_NO_PRECISE=1");
		return false;
	}
	if (!access(PMU_DIR "/ibs_op", F_OK))
		return true;
	for (i = 0; i < sizeof(core) / sizeof(core[0]); i++) {
		snprintf(path, sizeof(path), PMU_DIR "/%s", core[i]);
		if (access(path, F_OK))
			continue;
		any = true;
		snprintf(path, sizeof(path), PMU_DIR "/%s/caps/max_precise",
			 core[i]);
		if (st_read_line(path, val, sizeof(val)) && atoi(val) > 0)
			return true;
	}
	st_set(r, PEBS_SELFTEST_SKIP, "%s", any ?
	       "max_precise 0 in " PMU_DIR "/cpu*/caps and no ibs_op: no "
	       "PEBS or IBS here" :
	       "no core PMU in " PMU_DIR " (no cpu, cpu_core, cpu_atom, "
	       "ibs_op; a VM without a virtual PMU?)");
	return false;
}

/*
 * The load event perf mem record (or c2c record) would use here, parsed
 * into @ev; skip with the reason when there is none or it is a group.
 */
bool st_mem_event(struct pebs_selftest_result *r, bool c2c,
		  struct pebs_event *ev)
{
	PEBS_OPTS(pebs_mem_record_opts, o, .c2c = c2c,
		  .ops = PEBS_MEM_OP_LOAD);
	struct pebs_mem_record *mr;
	const char *const *argv;
	const char *load = NULL;
	int err, i;

	err = pebs_mem_record__new(&o, &mr);
	if (err == -EINVAL) {		/* AMD: IBS takes loads and stores */
		o.ops = 0;
		err = pebs_mem_record__new(&o, &mr);
	}
	if (err) {
		st_set(r, PEBS_SELFTEST_SKIP, "no precise memory event: %s",
		       pebs_errmsg());
		return false;
	}
	argv = pebs_mem_record__argv(mr);
	for (i = 0; argv[i] && !load; i++)
		if (!strcmp(argv[i], "-e") && argv[i + 1])
			load = argv[i + 1];
	err = !load ? -ENOENT : load[0] == '{' ? -EOPNOTSUPP :
	      pebs_event__parse(load, ev);
	if (err)
		st_set(r, PEBS_SELFTEST_SKIP, "%s%s", load ? load : "no event",
		       err == -EOPNOTSUPP ? ": a mem-loads-aux group, which "
		       "the self-test does not open yet" : ": cannot parse");
	pebs_mem_record__delete(mr);
	return !err;
}

bool st_load_event(struct pebs_selftest_result *r, char *buf, size_t len)
{
	struct pebs_event ev;
	const char *lat;

	if (!st_have_precise(r) || !st_mem_event(r, false, &ev))
		return false;
	lat = strstr(ev.name, "ldlat=");
	if (lat)
		snprintf(buf, len, "%.*sldlat=3%s", (int)(lat - ev.name),
			 ev.name, lat + 6 + strspn(lat + 6, "0123456789"));
	else
		snprintf(buf, len, "%s", ev.name);
	return true;
}

bool st_have_map(struct pebs_selftest_result *r)
{
	if (st_hidden("MAP")) {
		st_set(r, PEBS_SELFTEST_SKIP,
		       "/dev/pebs_map hidden by PEBS_TEST_NO_MAP=1");
		return false;
	}
	if (access("/dev/pebs_map", F_OK)) {
		st_set(r, PEBS_SELFTEST_SKIP, "no /dev/pebs_map: the module is "
		       "not loaded (modprobe pebs_map, see README)");
		return false;
	}
	return true;
}

bool st_open_map(struct pebs_selftest_result *r, struct pebs_map **map)
{
	int err;

	if (!st_have_map(r))
		return false;
	err = pebs_map__open("/dev/pebs_map", map);
	if (!err)
		return true;
	st_set(r, err == -EACCES || err == -EPERM ? PEBS_SELFTEST_SKIP :
	       PEBS_SELFTEST_FAIL, "%s", pebs_errmsg());
	return false;
}

void st_check_rdpmc(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *opts)
{
	PEBS_OPTS(pebs_observer_opts, o, .no_pin = true);
	struct pebs_observer *obs = NULL;
	struct pebs_event ev;
	const char *why = "";
	uint64_t row[2][16];
	char val[64];
	volatile unsigned long x = 0;
	size_t at;
	int cpu, err;
	(void)opts;

	if (st_hidden("PMU")) {
		st_set(r, PEBS_SELFTEST_SKIP, "PMU hidden by PEBS_TEST_NO_PMU=1");
		return;
	}
	if (access(PMU_DIR "/cpu", F_OK) && access(PMU_DIR "/cpu_core", F_OK)) {
		st_set(r, PEBS_SELFTEST_SKIP, "no core PMU in " PMU_DIR
		       ": no counter to read with rdpmc");
		return;
	}
	if (st_read_line(PMU_DIR "/cpu/rdpmc", val, sizeof(val)) &&
	    !strcmp(val, "0")) {
		st_set(r, PEBS_SELFTEST_SKIP, "rdpmc disabled: " PMU_DIR
		       "/cpu/rdpmc is 0 (echo 1 > it as root)");
		return;
	}
	if (!pebs_cpu_has_rdtscp()) {
		st_set(r, PEBS_SELFTEST_SKIP, "%s: the observer cannot run",
		       st_no_rdtscp());
		return;
	}
	cpu = sched_getcpu();
	err = pebs_event__parse("cycles", &ev);
	if (!err)
		err = pebs_observer__new(cpu, &o, &obs);
	if (!err)
		err = pebs_observer__add_cpu(obs, (unsigned int)cpu);
	if (err >= 0)
		err = pebs_observer__add_event(obs, &ev);
	if (err < 0) {
		st_set(r, PEBS_SELFTEST_FAIL, "opening the observer on CPU %d: "
		       "%s", cpu, pebs_errmsg());
		goto out;
	}
	if (pebs_observer__counter_path(obs, 0, 0, &why) !=
	    PEBS_COUNTER_RDPMC) {
		st_set(r, PEBS_SELFTEST_SKIP, "rdpmc not usable: %s", why);
		goto out;
	}
	at = 2 + PEBS_OBS_CPU_HEAD;
	err = pebs_observer__read(obs, row[0], 16);
	for (unsigned long i = 0; i < 10000000; i++)
		x += i;
	if (!err)
		err = pebs_observer__read(obs, row[1], 16);
	if (err)
		st_set(r, PEBS_SELFTEST_FAIL, "reading the observer: %s",
		       strerror(-err));
	else if (row[1][at] > row[0][at] + 1000000)
		st_set(r, PEBS_SELFTEST_PASS, "cycles read with rdpmc advanced "
		       "by %llu over a 10^7-step loop",
		       (unsigned long long)(row[1][at] - row[0][at]));
	else
		st_set(r, PEBS_SELFTEST_FAIL, "cycles read with rdpmc went "
		       "from %llu to %llu over a 10^7-step loop (want > 10^6 "
		       "more)", (unsigned long long)row[0][at],
		       (unsigned long long)row[1][at]);
out:
	pebs_observer__delete(obs);
}

void st_check_module(struct pebs_selftest_result *r,
		    const struct pebs_selftest_opts *opts)
{
	struct pebs_map_switch sw[256];
	struct pebs_map_snapshot snap;
	struct pebs_map *map = NULL;
	uint64_t *cursor = NULL;
	bool seen[2] = { false, false };
	unsigned int cpu, ncpu;
	struct st_wl w;
	int err, n, i;
	(void)opts;

	if (!st_open_map(r, &map))
		return;
	ncpu = pebs_map__nr_cpus(map);
	cursor = calloc(ncpu, sizeof(*cursor));
	err = cursor ? st_wl_start(&w, ST_TOUCH, 2, 1u << 20) : -ENOMEM;
	if (err) {
		st_set(r, PEBS_SELFTEST_FAIL, "cannot start the workload: %s",
		       strerror(-err));
		goto out;
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		if (!pebs_map__read_slot(map, cpu, &snap))
			cursor[cpu] = snap.hist_head;
	if (st_wl_finish(&w)) {
		st_set(r, PEBS_SELFTEST_FAIL, "the workload did not exit 0");
		goto out;
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		while ((n = pebs_map__hist_read(map, cpu, &cursor[cpu], sw, 256,
						NULL)) > 0)
			for (i = 0; i < n; i++) {
				seen[0] |= sw[i].pid == w.tid[0];
				seen[1] |= sw[i].pid == w.tid[1];
			}
	if (seen[0] && seen[1])
		st_set(r, PEBS_SELFTEST_PASS, "threads %d and %d both switched "
		       "in, in the history of %u CPUs", (int)w.tid[0],
		       (int)w.tid[1], ncpu);
	else
		st_set(r, PEBS_SELFTEST_FAIL, "thread %d %s, thread %d %s in "
		       "the switch history of %u CPUs", (int)w.tid[0],
		       seen[0] ? "found" : "missing", (int)w.tid[1],
		       seen[1] ? "found" : "missing", ncpu);
out:
	free(cursor);
	pebs_map__close(map);
}
