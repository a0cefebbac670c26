// SPDX-License-Identifier: MIT
/*
 * record-target.c - what `pebs-shim record` watches: CPU lists, pid and
 * tid lists, checked against what is online and running (the command it
 * starts is a pebs_workload).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

/* the CPUs of @bits into @out; 0 or -ENOMEM after tool_err */
static int push_cpus(const uint64_t *bits, struct pebs_ids *out)
{
	int err = pebs_cpulist__ids(bits, PEBS_MAX_CPUS, out);

	if (err)
		tool_err("record", "%s", pebs_errmsg());
	return err;
}

int rec_online_cpus(struct pebs_ids *cpus)
{
	static uint64_t online[PEBS_MAX_CPUS / 64];
	int err = pebs_cpulist__online(PEBS_MAX_CPUS, online);

	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		return err;
	}
	return push_cpus(online, cpus);
}

int rec_parse_cpus(const char *str, struct pebs_ids *cpus)
{
	static uint64_t want[PEBS_MAX_CPUS / 64], online[PEBS_MAX_CPUS / 64];
	int c, err;

	err = pebs_cpulist__parse(str, PEBS_MAX_CPUS, want);
	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		return -EINVAL;
	}
	err = pebs_cpulist__online(PEBS_MAX_CPUS, online);
	if (err) {
		tool_err("record", "%s", pebs_errmsg());
		return err;
	}
	for (c = pebs_cpulist__next(want, PEBS_MAX_CPUS, 0); c >= 0;
	     c = pebs_cpulist__next(want, PEBS_MAX_CPUS, c + 1)) {
		if (!(online[c / 64] >> (c % 64) & 1)) {
			tool_err("record", "CPU %d is not online: pick CPUs from /sys/devices/system/cpu/online",
				c);
			return -EINVAL;
		}
	}
	return push_cpus(want, cpus);
}

int rec_parse_pids(const char *str, bool threads, struct pebs_ids *out,
		   struct pebs_ids *procs)
{
	struct pebs_ids ids = { 0 };
	int err;

	err = pebs_ids__parse(&ids, str);
	if (err) {
		tool_err("record", "bad pid list '%s': %s", str, pebs_errmsg());
		goto out_free;
	}
	for (unsigned int i = 0; i < ids.n; i++) {
		int id = ids.v[i];

		if (id == 0 || pebs_proc__tgid(id) < 0) {
			tool_err("record", "no process or thread %d: check the id (ps -eLf)",
				id);
			err = -ESRCH;
			goto out_free;
		}
		if (procs && (err = pebs_ids__push(procs, id)))
			goto out_free;
		if (!threads) {
			err = pebs_ids__add(out, id);
		} else {
			err = pebs_proc__tasks(id, out);
			if (err == -ESRCH)
				tool_err("record", "process %d exited: check the pid", id);
		}
		if (err)
			goto out_free;
	}
out_free:
	pebs_ids__free(&ids);
	return err;
}
