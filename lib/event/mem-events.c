// SPDX-License-Identifier: MIT
/*
 * mem-events.c - what `perf mem record` and `perf c2c record` (perf 6.1)
 * pass to `perf record` for the CPU at hand: the events and the record
 * options that choose the sample fields.
 *
 * perf's tables (tools/perf/arch/x86/util/mem-events.c):
 *	Intel	load	"%s/mem-loads,ldlat=%u/P"  if <pmu>/events/mem-loads
 *		store	"%s/mem-stores/P"	   if <pmu>/events/mem-stores
 *		a PMU with events/mem-loads-aux (Sapphire Rapids, the P-cores
 *		of Alder Lake) loads as "{%s/mem-loads-aux/,%s/mem-loads,
 *		ldlat=%u/}:P"
 *	AMD	load+store "ibs_op//"		   if the ibs_op PMU exists
 * <pmu> is "cpu", or on a hybrid CPU each of cpu_core and cpu_atom (an
 * event is usable if one of them has it, and is then asked of both).
 * perf tells AMD by the CPUID vendor; here the ibs_op PMU tells it: only
 * AMD CPUs have one, and neither vendor's core PMU lists mem-loads on
 * AMD, so the choice is the same on every CPU.
 *
 * The options (tools/perf/builtin-mem.c __cmd_record, builtin-c2c.c
 * perf_c2c__record), in perf's order:
 *	mem	[-W if loads are sampled] -d [--phys-data] [--data-page-size]
 *		-e EVENT...		(-t load|store|load,store; default both)
 *	c2c	-W -d --phys-data --sample-cpu -e EVENT...
 * -W on the AMD load+store event too (perf's "mem-ldst" entry).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pebsshim/event.h"
#include "core/internal.h"
#include "core/opts.h"
#include "event/event-internal.h"

#define MR_MAX_ARGS	24
#define MR_EVENT_LEN	128

struct pebs_mem_record {
	int argc;
	const char *argv[MR_MAX_ARGS + 1];
	char events[8][MR_EVENT_LEN];	/* the -e values argv points into */
	unsigned int nr_events;
};

static const char *const hybrid_pmus[] = { "cpu_core", "cpu_atom" };

/* where events are asked: "cpu" or the hybrid PMUs present */
static unsigned int core_pmus(const char **pmus)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < 2; i++)
		if (event_sysfs_has(hybrid_pmus[i], NULL))
			pmus[n++] = hybrid_pmus[i];
	if (!n)
		pmus[n++] = "cpu";
	return n;
}

static bool any_has(const char *const *pmus, unsigned int n, const char *ev)
{
	char file[64];

	snprintf(file, sizeof(file), "events/%s", ev);
	for (unsigned int i = 0; i < n; i++)
		if (event_sysfs_has(pmus[i], file))
			return true;
	return false;
}

static void add_arg(struct pebs_mem_record *mr, const char *arg)
{
	mr->argv[mr->argc++] = arg;
}

/* "-e" and the event spelled as perf spells it for @pmu */
static void add_event(struct pebs_mem_record *mr, bool load, bool aux,
		      const char *pmu, unsigned int ldlat)
{
	char *ev = mr->events[mr->nr_events++];

	if (!pmu)
		snprintf(ev, MR_EVENT_LEN, "ibs_op//");
	else if (!load)
		snprintf(ev, MR_EVENT_LEN, "%s/mem-stores/P", pmu);
	else if (aux)
		snprintf(ev, MR_EVENT_LEN, "{%s/mem-loads-aux/,%s/mem-loads,"
			 "ldlat=%u/}:P", pmu, pmu, ldlat);
	else
		snprintf(ev, MR_EVENT_LEN, "%s/mem-loads,ldlat=%u/P", pmu,
			 ldlat);
	add_arg(mr, "-e");
	add_arg(mr, ev);
}

static int no_mem_events(const char *const *pmus, unsigned int n)
{
	return core_err(-ENOENT, "no precise memory events on this CPU/VM "
			"(no %s/events/mem-loads or mem-stores, no ibs_op "
			"PMU in %s): record page faults with their data "
			"addresses instead: pebs-shim record -e page-faults "
			"-d -- COMMAND", n > 1 ? "cpu_core, cpu_atom" : pmus[0],
			event_sysfs_root());
}

/* perf_mem_events__record_args() for Intel: one -e per core PMU */
static int intel_events(struct pebs_mem_record *mr, const char *const *pmus,
			unsigned int n, bool loads, bool stores,
			unsigned int ldlat)
{
	if (loads && !any_has(pmus, n, "mem-loads"))
		return core_err(-ENOENT, "%s/mem-loads,ldlat=%u/P: this CPU "
				"has no mem-loads event (no %s/%s/events/"
				"mem-loads): use -t store", pmus[0], ldlat,
				event_sysfs_root(), pmus[0]);
	if (stores && !any_has(pmus, n, "mem-stores"))
		return core_err(-ENOENT, "%s/mem-stores/P: this CPU has no "
				"mem-stores event (no %s/%s/events/mem-stores): "
				"use -t load", pmus[0], event_sysfs_root(),
				pmus[0]);
	for (unsigned int i = 0; loads && i < n; i++)
		add_event(mr, true,
			  event_sysfs_has(pmus[i], "events/mem-loads-aux"),
			  pmus[i], ldlat);
	for (unsigned int i = 0; stores && i < n; i++)
		add_event(mr, false, false, pmus[i], 0);
	return 0;
}

/*
 * perf_mem_events__parse(): each comma-separated word selects every
 * event whose tag contains it (so "loads" is ldlat-loads); Intel's tags
 * are ldlat-loads and ldlat-stores, AMD's mem-ldst
 */
static int parse_tags(const char *str, bool amd, bool *ld, bool *st,
		      bool *ldst)
{
	char buf[128], *tok, *save;
	bool found = false;

	if (strlen(str) >= sizeof(buf))
		return core_err(-EINVAL, "events '%.32s...' too long", str);
	strcpy(buf, str);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (amd && strstr("mem-ldst", tok))
			*ldst = found = true;
		if (!amd && strstr("ldlat-loads", tok))
			*ld = found = true;
		if (!amd && strstr("ldlat-stores", tok))
			*st = found = true;
	}
	return found ? 0 : core_err(-EINVAL, "event '%s' not found: give "
				    "one of %s (-e list)", str, amd ?
				    "mem-ldst" : "ldlat-loads, ldlat-stores");
}

/* the events and options, in perf's order (__cmd_record, perf_c2c__record) */
static int choose(struct pebs_mem_record *mr,
		  const struct pebs_mem_record_opts *o)
{
	unsigned int ops = o->ops ? o->ops : PEBS_MEM_OP_LOAD |
					     PEBS_MEM_OP_STORE;
	unsigned int ldlat = o->ldlat ? o->ldlat : PEBS_MEM_LDLAT_DEFAULT;
	bool amd = event_sysfs_has("ibs_op", NULL);
	bool ld = false, st = false, ldst = false;
	const char *pmus[2];
	unsigned int n = core_pmus(pmus);
	int err;

	if (ops & ~(PEBS_MEM_OP_LOAD | PEBS_MEM_OP_STORE))
		return core_err(-EINVAL, "pebs_mem_record__new: unknown "
				"operations %#x", ops);
	/* perf_mem_events__init(): some event must be there */
	if (!amd && !any_has(pmus, n, "mem-loads") &&
	    !any_has(pmus, n, "mem-stores"))
		return no_mem_events(pmus, n);
	add_arg(mr, "record");
	if (o->events) {
		/* -e: the events asked, and no -W of the load+store event */
		err = parse_tags(o->events, amd, &ld, &st, &ldst);
		if (err)
			return err;
	} else if (amd && (o->c2c || ops == (PEBS_MEM_OP_LOAD |
					      PEBS_MEM_OP_STORE))) {
		ldst = true;
		add_arg(mr, "-W");
	} else if (amd) {
		return core_err(-EINVAL, "ibs_op samples loads and stores "
				"together (perf's mem-ldst event): drop -t %s",
				ops & PEBS_MEM_OP_LOAD ? "load" : "store");
	} else {
		ld = o->c2c || (ops & PEBS_MEM_OP_LOAD);
		st = o->c2c || (ops & PEBS_MEM_OP_STORE);
	}
	if (ld)
		add_arg(mr, "-W");
	add_arg(mr, "-d");
	if (o->c2c || o->phys_data)
		add_arg(mr, "--phys-data");
	if (o->c2c)
		add_arg(mr, "--sample-cpu");
	else if (o->data_page_size)
		add_arg(mr, "--data-page-size");
	if (ldst)
		add_event(mr, true, false, NULL, 0);
	return amd ? 0 : intel_events(mr, pmus, n, ld, st, ldlat);
}

int pebs_mem_record__new(const struct pebs_mem_record_opts *opts,
			 struct pebs_mem_record **mrp)
{
	struct pebs_mem_record_opts o;
	struct pebs_mem_record *mr;
	int err;

	*mrp = NULL;
	err = opts_copy(&o, sizeof(o), opts, "pebs_mem_record_opts");
	if (err)
		return err;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return core_err(-ENOMEM, "out of memory");
	err = choose(mr, &o);
	if (err) {
		free(mr);
		return err;
	}
	mr->argv[mr->argc] = NULL;
	*mrp = mr;
	return 0;
}

int pebs_mem_record__list(char *buf, size_t len, bool names)
{
	static const struct { const char *tag, *file; } tags[] = {
		{ "ldlat-loads", "mem-loads" }, { "ldlat-stores", "mem-stores" },
	};
	const char *pmus[2];
	unsigned int n = core_pmus(pmus);
	size_t used = 0;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	if (event_sysfs_has("ibs_op", NULL))
		return snprintf(buf, len, "%-13s%-*s: available\n", "mem-ldst",
				names ? 25 : 0, names ? "ibs_op//" : "") <
		       (int)len ? 0 : -ENOSPC;
	for (unsigned int i = 0; i < 2; i++) {
		char name[MR_EVENT_LEN] = "";

		if (!any_has(pmus, n, tags[i].file))
			continue;
		/* perf_mem_events__name(j, NULL): on pmu "cpu" */
		if (names && i)
			snprintf(name, sizeof(name), "cpu/mem-stores/P");
		else if (names)
			snprintf(name, sizeof(name), "cpu/mem-loads,ldlat=%u/P",
				 PEBS_MEM_LDLAT_DEFAULT);
		used += (size_t)snprintf(buf + used, len - used,
					 "%-13s%-*s: available\n", tags[i].tag,
					 names ? 25 : 0, name);
		if (used >= len)
			return -ENOSPC;
	}
	return used ? 0 : no_mem_events(pmus, n);
}

int pebs_mem_record__argc(const struct pebs_mem_record *mr)
{
	return mr->argc;
}

const char *const *pebs_mem_record__argv(const struct pebs_mem_record *mr)
{
	return mr->argv;
}

void pebs_mem_record__delete(struct pebs_mem_record *mr)
{
	free(mr);
}
