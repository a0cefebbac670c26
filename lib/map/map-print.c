// SPDX-License-Identifier: MIT
/*
 * map-print.c - the table as pebs-shim map prints it: a header line
 * (ABI version, CPUs, history length, clock, hook, pid namespace), then
 * one line per CPU (who runs there, its switches, its comm) and, when
 * asked, each CPU's last switches.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pebsshim/map.h"
#include "core/internal.h"
#include "core/opts.h"

static const char *clock_name(uint32_t clock, char *buf, size_t len)
{
	if (clock == PEBS_MAP_CLOCK_LOCAL)
		return "local_clock";
	snprintf(buf, len, "unknown(%u)", clock);
	return buf;
}

static const char *hook_name(uint32_t hook, char *buf, size_t len)
{
	if (hook == PEBS_MAP_HOOK_TRACEPOINT)
		return "tracepoint";
	if (hook == PEBS_MAP_HOOK_DIRECT)
		return "direct";
	snprintf(buf, len, "unknown(%u)", hook);
	return buf;
}

void pebs_map__print_header(const struct pebs_map *map, FILE *f)
{
	const struct pebs_map_header *h = pebs_map__header(map);
	char cb[32], hb[32];

	fprintf(f, "pebs_map ABI %u: %u CPUs, hist_len %u, clock %s, hook %s, pids %s\n",
		h->abi_version, h->nr_slots, h->hist_len,
		clock_name(h->clock, cb, sizeof(cb)),
		hook_name(h->hook, hb, sizeof(hb)),
		h->pid_ns == PEBS_MAP_PIDNS_INIT ? "init-ns" : "other-ns");
}

static void print_who(FILE *f, int32_t tgid, int32_t pid)
{
	if (tgid == 0)
		fprintf(f, "idle");
	else
		fprintf(f, "tgid %" PRId32 " pid %" PRId32, tgid, pid);
}

static int print_history(const struct pebs_map *map, FILE *f,
			 unsigned int cpu, uint64_t head, unsigned int want,
			 struct pebs_map_switch *buf)
{
	uint64_t cursor = head > want ? head - want : 0;
	uint64_t lost = 0;
	int n;

	n = pebs_map__hist_read(map, cpu, &cursor, buf, want, &lost);
	if (n < 0)
		return n;
	if (lost)
		fprintf(f, "  (%" PRIu64 " older switches no longer in the history)\n",
			lost);
	for (int i = 0; i < n; i++) {
		uint64_t t = buf[i].time;

		fprintf(f, "  switch %" PRIu64 " at %" PRIu64 ".%09" PRIu64 ": ",
			cursor - n + i, t / 1000000000, t % 1000000000);
		print_who(f, buf[i].tgid, buf[i].pid);
		fputc('\n', f);
	}
	return 0;
}

static bool wanted(const uint64_t *cpus, unsigned int cpu)
{
	return !cpus || cpus[cpu / 64] >> (cpu % 64) & 1;
}

int pebs_map__print(const struct pebs_map *map, FILE *f,
		    const struct pebs_map_print_opts *opts)
{
	struct pebs_map_print_opts o;
	struct pebs_map_switch *buf = NULL;
	struct pebs_map_snapshot snap;
	unsigned int nr;
	int err;

	err = opts_copy(&o, sizeof(o), opts, "pebs_map_print_opts");
	if (err)
		return err;
	if (!map || !f)
		return core_err(-EINVAL, "map print: no table or no stream");
	if (o.history) {
		buf = calloc(o.history, sizeof(*buf));
		if (!buf)
			return core_err(-ENOMEM, "out of memory for %u history "
					"entries: ask for fewer", o.history);
	}
	nr = pebs_map__nr_cpus(map);
	for (unsigned int cpu = 0; cpu < nr; cpu++) {
		if (!wanted(o.cpus, cpu))
			continue;
		err = pebs_map__read_slot(map, cpu, &snap);
		if (err)
			break;
		if (snap.tgid == -1) {
			if (o.all || o.cpus)
				fprintf(f, "CPU%u: -\n", cpu);
			continue;
		}
		fprintf(f, "CPU%u: ", cpu);
		print_who(f, snap.tgid, snap.pid);
		fprintf(f, " switches %" PRIu64, snap.switches);
		if (snap.tgid)
			fprintf(f, " comm %s", snap.comm);
		fputc('\n', f);
		if (o.history) {
			err = print_history(map, f, cpu, snap.hist_head,
					    o.history, buf);
			if (err)
				break;
		}
	}
	free(buf);
	return err;
}
