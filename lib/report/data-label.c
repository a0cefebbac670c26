// SPDX-License-Identifier: MIT
/*
 * data-label.c - a data address's object as one label, in the words of
 * the report's dso_daddr and symbol_daddr keys (pebs_report__field):
 * "[heap]", "[stack:PID]", "anon", a file with the address's file offset
 * ("libc.so.6+0x1d4000"), then the data symbol covering the address if
 * any ("memwalk+0x4010 counters+0x10").
 *
 * The mappings are those the resolver holds when called: a session's
 * resolver (pebs_session__symbols) during its replay labels an address
 * as it was mapped at the sample's time.
 *
 * Only the process's first stack is named by the kernel ("[stack]",
 * the main thread's, whose tid is the pid: "[stack:PID]"); since Linux
 * 4.5 /proc and the MMAP2 records name no thread stack, and MMAP2 carries
 * no MAP_STACK flag, so other threads' stacks are "anon" as in perf.
 */
#include <errno.h>
#include <stdio.h>

#include "pebsshim/report.h"
#include "core/internal.h"

int pebs_symbols__data_label(struct pebs_symbols *syms, pid_t pid,
			     uint64_t addr, char *buf, size_t len)
{
	struct pebs_report_row row = { .pid = pid, .addr = addr };
	char dso[256], sym[512];
	const char *s = sym;
	struct pebs_sym ds;
	int err;

	if (!syms || !buf || !len)
		return core_err(-EINVAL, "data label: no resolver or buffer");
	err = pebs_symbols__resolve_data(syms, pid, addr, &ds);
	if (err && err != -ENOENT)
		return core_err(err, "data label: cannot resolve %#llx",
				(unsigned long long)addr);
	row.data_dso = ds.dso;
	row.data_sym = ds.name;
	row.data_sym_off = ds.offset;
	pebs_report__field(&row, PEBS_REPORT_DSO_DADDR, dso, sizeof(dso));
	if (!strcmp(dso, "[stack]"))
		snprintf(dso, sizeof(dso), "[stack:%d]", (int)pid);
	else if (ds.dso && ds.dso[0] == '/' && ds.dso[1] != '/')
		snprintf(dso + strlen(dso), sizeof(dso) - strlen(dso),
			 "+0x%llx", (unsigned long long)ds.dso_offset);
	if (!ds.name)
		return snprintf(buf, len, "%s", dso);
	/* symbol_daddr's "[.] name+0xoff", without the mode */
	pebs_report__field(&row, PEBS_REPORT_SYM_DADDR, sym, sizeof(sym));
	if (sym[0] == '[' && sym[2] == ']' && sym[3] == ' ')
		s = sym + 4;
	return snprintf(buf, len, "%s %s", dso, s);
}
