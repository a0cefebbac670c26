// SPDX-License-Identifier: MIT
/*
 * record-attr.c - an attr printed as perf record -vv prints it before
 * opening (tools/perf/util/perf_event_attr_fprintf.c): the non-zero
 * fields in perf's order and names, sample_type and read_format as
 * perf's bit names, so the two can be compared line by line.
 */
#include <inttypes.h>
#include <string.h>

#include "record.h"

/* perf's names of the sample_type bits, lowest first */
static const char *const sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
	"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
	"STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
	"REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};
static const char *const read_bits[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

static void bits(char *buf, size_t len, uint64_t v, const char *const *names,
		 unsigned int n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < 64; i++) {
		if (!(v & (1ull << i)))
			continue;
		if (i < n)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? "|" : "", names[i]);
		else
			used += (size_t)snprintf(buf + used, len - used,
						 "%s(unknown bit %u)",
						 used ? "|" : "", i);
		if (used >= len)
			return;
	}
}

static void field(FILE *f, const char *name, uint64_t v, bool hex)
{
	if (!v)
		return;
	if (hex)
		fprintf(f, "  %-32s %#" PRIx64 "\n", name, v);
	else
		fprintf(f, "  %-32s %" PRIu64 "\n", name, v);
}

void rec_print_attr(FILE *f, const struct perf_event_attr *a)
{
	char buf[512];

	fprintf(f, "------------------------------------------------------------\n"
		"perf_event_attr:\n");
	field(f, "type", a->type, false);
	field(f, "size", a->size, false);
	field(f, "config", a->config, true);
	field(f, "{ sample_period, sample_freq }", a->sample_period, false);
	if (a->sample_type) {
		bits(buf, sizeof(buf), a->sample_type, sample_bits,
		     sizeof(sample_bits) / sizeof(sample_bits[0]));
		fprintf(f, "  %-32s %s\n", "sample_type", buf);
	}
	if (a->read_format) {
		bits(buf, sizeof(buf), a->read_format, read_bits,
		     sizeof(read_bits) / sizeof(read_bits[0]));
		fprintf(f, "  %-32s %s\n", "read_format", buf);
	}
	field(f, "disabled", a->disabled, false);
	field(f, "inherit", a->inherit, false);
	field(f, "pinned", a->pinned, false);
	field(f, "exclusive", a->exclusive, false);
	field(f, "exclude_user", a->exclude_user, false);
	field(f, "exclude_kernel", a->exclude_kernel, false);
	field(f, "exclude_hv", a->exclude_hv, false);
	field(f, "exclude_idle", a->exclude_idle, false);
	field(f, "mmap", a->mmap, false);
	field(f, "comm", a->comm, false);
	field(f, "freq", a->freq, false);
	field(f, "inherit_stat", a->inherit_stat, false);
	field(f, "enable_on_exec", a->enable_on_exec, false);
	field(f, "task", a->task, false);
	field(f, "watermark", a->watermark, false);
	field(f, "precise_ip", a->precise_ip, false);
	field(f, "mmap_data", a->mmap_data, false);
	field(f, "sample_id_all", a->sample_id_all, false);
	field(f, "exclude_host", a->exclude_host, false);
	field(f, "exclude_guest", a->exclude_guest, false);
	field(f, "exclude_callchain_kernel", a->exclude_callchain_kernel,
	      false);
	field(f, "exclude_callchain_user", a->exclude_callchain_user, false);
	field(f, "mmap2", a->mmap2, false);
	field(f, "comm_exec", a->comm_exec, false);
	field(f, "use_clockid", a->use_clockid, false);
	field(f, "context_switch", a->context_switch, false);
	field(f, "{ wakeup_events, wakeup_watermark }", a->wakeup_events,
	      false);
	field(f, "{ bp_addr, config1 }", a->config1, true);
	field(f, "{ bp_len, config2 }", a->config2, true);
	field(f, "sample_regs_user", a->sample_regs_user, true);
	field(f, "sample_stack_user", a->sample_stack_user, false);
	field(f, "clockid", (uint64_t)a->clockid, false);
	fprintf(f, "------------------------------------------------------------\n");
}
