// SPDX-License-Identifier: MIT
/*
 * report-field.c - pebs_report__field: a row's key as perf prints it
 * (perf's hist_entry__*_snprintf for its keys), and pebs-shim's own keys
 * in the same manner.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "pebsshim/decode.h"
#include "pebsshim/objects.h"
#include "pebsshim/report.h"
#include "core/internal.h"

int pebs_report__field(const struct pebs_report_row *row,
		       enum pebs_report_key key, char *buf, size_t len)
{
	struct pebs_data_src ds;
	const char *obj;

	switch (key) {
	case PEBS_REPORT_PID:	/* perf's hist_entry__tgid_snprintf */
		return snprintf(buf, len, "%d:%s", row->pid,
				row->comm ? row->comm : "");
	case PEBS_REPORT_TID:
		return snprintf(buf, len, "%d", row->tid);
	case PEBS_REPORT_THREAD:	/* perf's hist_entry__thread_snprintf */
		return row->comm ?
		       snprintf(buf, len, "%d:%s", row->tid, row->comm) :
		       snprintf(buf, len, "%d::%d", row->tid, row->tid);
	case PEBS_REPORT_COMM:
		return row->comm ? snprintf(buf, len, "%s", row->comm) :
				   snprintf(buf, len, ":%d", row->tid);
	case PEBS_REPORT_DSO:
		return snprintf(buf, len, "%s",
				row->dso ? core_base_name(row->dso) : "[unknown]");
	case PEBS_REPORT_SYM:
		/* perf: "[k] name", "[.] 0x<address, 16 digits>" (its
		   "%-#.*llx": 0 prints without "0x", as a call chain's
		   frame of address 0 shows) */
		if (row->sym)
			return snprintf(buf, len, "[%c] %s",
					row->kernel ? 'k' : '.', row->sym);
		return snprintf(buf, len, "[%c] %#.16llx",
				row->kernel ? 'k' : '.',
				(unsigned long long)row->ip);
	case PEBS_REPORT_CPU:
		/* perf's "%3.3d": -001 where the samples have no CPU */
		return snprintf(buf, len, "%.3d", (int)row->cpu);
	case PEBS_REPORT_EVENT:
		return snprintf(buf, len, "%u", row->event);
	case PEBS_REPORT_PAGE:
	case PEBS_REPORT_LINE:
	case PEBS_REPORT_ADDR:
		return snprintf(buf, len, "0x%llx",
				(unsigned long long)row->addr);
	case PEBS_REPORT_SRC:
		return pebs_data_src__str(row->data_src, buf, len);
	case PEBS_REPORT_PHYS_DADDR:
		/* perf's "%#.16llx": 0 prints without "0x" */
		return snprintf(buf, len, "[%c] %#.16llx",
				row->kernel ? 'k' : '.',
				(unsigned long long)row->phys_addr);
	case PEBS_REPORT_DCACHELINE:
		/* perf's _hist_entry__sym_snprintf of the line: an
		   STT_OBJECT as sym+0xoff, else the address; a line in no
		   known mapping is marked [X] */
		if (row->data_sym)
			return snprintf(buf, len, "[%c] %s+0x%llx",
					row->kernel ? 'k' : '.', row->data_sym,
					(unsigned long long)row->data_sym_off);
		return snprintf(buf, len, "[%c] %#.16llx", !row->data_dso ?
				'X' : row->kernel ? 'k' : '.',
				(unsigned long long)row->addr);
	case PEBS_REPORT_WEIGHT:
		/* perf's "Weight": he->weight * he->stat.nr_events */
		return snprintf(buf, len, "%llu",
				(unsigned long long)(row->weight *
						     row->samples));
	case PEBS_REPORT_LOCAL_WEIGHT:
		/* perf's he_weight: the mean, the weight of the row */
		return snprintf(buf, len, "%llu",
				(unsigned long long)row->weight);
	case PEBS_REPORT_LOCAL_INS_LAT:
		return snprintf(buf, len, "%llu",
				(unsigned long long)row->ins_lat);
	case PEBS_REPORT_LOCKED: {
		union perf_mem_data_src m = { .val = row->data_src };

		/* perf_mem__lck_scnprintf */
		return snprintf(buf, len, "%s", m.mem_lock & PERF_MEM_LOCK_NA ?
				"N/A" : m.mem_lock & PERF_MEM_LOCK_LOCKED ?
				"Yes" : "No");
	}
	case PEBS_REPORT_BLOCKED: {
		union perf_mem_data_src m = { .val = row->data_src };

		/* perf_mem__blk_scnprintf, without its leading blank */
		if (!m.mem_blk || (m.mem_blk & PERF_MEM_BLK_NA))
			return snprintf(buf, len, "N/A");
		return snprintf(buf, len, "%s%s%s",
				m.mem_blk & PERF_MEM_BLK_DATA ? "Data" : "",
				(m.mem_blk & PERF_MEM_BLK_DATA) &&
				(m.mem_blk & PERF_MEM_BLK_ADDR) ? " " : "",
				m.mem_blk & PERF_MEM_BLK_ADDR ? "Addr" : "");
	}
	case PEBS_REPORT_SYM_DADDR:
		if (row->data_sym)
			return snprintf(buf, len, "[%c] %s+0x%llx",
					row->kernel ? 'k' : '.', row->data_sym,
					(unsigned long long)row->data_sym_off);
		return snprintf(buf, len, "[%c] 0x%016llx",
				row->kernel ? 'k' : '.',
				(unsigned long long)row->addr);
	case PEBS_REPORT_DSO_DADDR:
		return snprintf(buf, len, "%s", row->data_dso ?
				core_base_name(row->data_dso) : "[unknown]");
	case PEBS_REPORT_OBJECT:
	case PEBS_REPORT_OBJECT_INSTANCE:
	case PEBS_REPORT_OBJECT_FIELD:
		obj = key == PEBS_REPORT_OBJECT_FIELD ? row->object_field :
		      row->object;
		/* a mapping by its base name, as dso_daddr ("anon") */
		return snprintf(buf, len, "%s", !obj ? "[unknown]" :
				pebs_objects__short_label(obj));
	case PEBS_REPORT_SRCLINE:
		return snprintf(buf, len, "%s", row->srcline ? row->srcline : "");
	case PEBS_REPORT_SRCFILE:
		return snprintf(buf, len, "%s", row->srcfile ? row->srcfile : "");
	case PEBS_REPORT_TIME:	/* perf's timestamp__scnprintf_usec */
		return snprintf(buf, len, "%" PRIu64 ".%06" PRIu64,
				row->time / 1000000000,
				row->time % 1000000000 / 1000);
	case PEBS_REPORT_MEM:
	case PEBS_REPORT_SNOOP:
	case PEBS_REPORT_TLB:
		pebs_data_src__decode(row->data_src, &ds);
		return snprintf(buf, len, "%s", key == PEBS_REPORT_MEM ?
				ds.lvl : key == PEBS_REPORT_SNOOP ? ds.snoop :
				ds.tlb);
	default:
		return core_err(-EINVAL, "report: bad key %d", (int)key);
	}
}
