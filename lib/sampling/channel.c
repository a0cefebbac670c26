// SPDX-License-Identifier: MIT
/*
 * channel.c - one event on one target: perf_event_open, the mmap ring,
 * enable/disable/period/id, and the large-PEBS predicate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <asm/perf_regs.h>

#include "pebsshim/sampling.h"
#include "core/internal.h"
#include "event/event-internal.h"
#include "core/opts.h"

struct pebs_channel {
	struct pebs_event ev;
	union {			/* pebs_channel__attr: readable, zero,
				   up to PEBS_EVENT_ATTR_AREA bytes */
		struct perf_event_attr attr;
		uint8_t attr_area[PEBS_EVENT_ATTR_AREA];
	};
	struct pebs_sample_layout layout;
	pid_t pid;
	int cpu;
	int fd;
	void *base;		/* user page + data area */
	size_t map_size;
	struct pebs_ring *ring;
	uint64_t id;
	uint64_t period;	/* last period set; 0: stopped by period 0 */
	bool want_enabled;	/* enabled unless stopped by period 0 */
	/*
	 * PERF_EVENT_IOC_SET_OUTPUT: the channel that maps the ring this
	 * one writes to (NULL: its own ring). An owner lives until it was
	 * closed and every channel writing to its ring was: @refs counts
	 * the caller's handle (until __close) and those channels.
	 */
	struct pebs_channel *output;
	unsigned int refs;
	int group_fd;		/* the group leader's fd, or -1 */
};

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static bool is_pebs_like(const struct pebs_event *ev)
{
	if (ev->attr.type == PERF_TYPE_SOFTWARE ||
	    ev->attr.type == PERF_TYPE_TRACEPOINT ||
	    (ev->flags & PEBS_EVENT_SOFTWARE))
		return false;
	return ev->attr.precise_ip ||
	       (ev->flags & (PEBS_EVENT_PRECISE | PEBS_EVENT_MEMORY));
}

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static int fill_attr(const struct pebs_event *ev,
		     const struct pebs_channel_opts *o,
		     struct perf_event_attr *attr, size_t *data_size)
{
	unsigned int pages = o->ring_pages ? o->ring_pages :
			     PEBS_CHANNEL_DEF_PAGES;
	size_t size;

	if (!ev || !attr)
		return core_err(-EINVAL, "channel: no event given");
	if (opts_attr_area_check(ev->attr_area, sizeof(ev->attr_area),
				 ev->name))
		return -EINVAL;
	if (o->period && o->freq)
		return core_err(-EINVAL, "channel: both a period (%llu) and "
				"a frequency (%llu) given: choose one",
				(unsigned long long)o->period,
				(unsigned long long)o->freq);
	if (pages & (pages - 1) || pages > PEBS_CHANNEL_MAX_PAGES)
		return core_err(-EINVAL, "channel: ring of %u pages: use a "
				"power of two up to %u", pages,
				PEBS_CHANNEL_MAX_PAGES);
	size = (size_t)pages * page_size();
	if (o->watermark > size)
		return core_err(-EINVAL, "channel: watermark %u is larger "
				"than the ring (%zu bytes): lower it or use "
				"more ring pages", o->watermark, size);

	*attr = ev->attr;
	attr->size = sizeof(*attr);
	attr->sample_type = o->sample_type ? o->sample_type :
			    is_pebs_like(ev) ? PEBS_CHANNEL_PEBS_SAMPLE :
			    PEBS_CHANNEL_SW_SAMPLE;
	attr->sample_id_all = 1;
	/* the kernel's count of samples it dropped (pebs_channel__lost) */
	attr->read_format |= PERF_FORMAT_LOST;
	if (o->freq) {
		attr->freq = 1;
		attr->sample_freq = o->freq;
	} else if (o->period) {
		attr->freq = 0;
		attr->sample_period = o->period;
	} else if (!attr->sample_period) {
		/* with ev->attr.freq, sample_freq 0 is no frequency either */
		attr->freq = 0;
		attr->sample_period = PEBS_CHANNEL_DEF_PERIOD;
	}
	attr->watermark = 1;
	attr->wakeup_watermark = o->watermark ? o->watermark : size / 2;
	attr->disabled = o->disabled || o->enable_on_exec;
	attr->enable_on_exec = o->enable_on_exec;
	attr->inherit = o->inherit;
	attr->context_switch = o->context_switch;
	attr->comm = attr->comm_exec = o->task_records;
	attr->mmap = attr->mmap2 = attr->mmap_data = o->task_records;
	attr->task = o->task_records;
	attr->use_clockid = o->use_clockid;
	attr->clockid = o->use_clockid ? o->clockid : 0;
	if (data_size)
		*data_size = size;
	return 0;
}

int pebs_channel_attr(const struct pebs_event *ev,
		      const struct pebs_channel_opts *opts,
		      struct perf_event_attr *attr, size_t attr_sz)
{
	struct pebs_channel_opts o;
	struct perf_event_attr a;
	size_t n = attr_sz < sizeof(a) ? attr_sz : sizeof(a);
	const unsigned char *p = (const unsigned char *)&a;
	int err;

	if (!attr || attr_sz < PERF_ATTR_SIZE_VER0)
		return core_err(-EINVAL, "pebs_channel_attr: attr_sz %zu is "
				"below %d (PERF_ATTR_SIZE_VER0): pass "
				"sizeof(struct perf_event_attr)", attr_sz,
				PERF_ATTR_SIZE_VER0);
	err = opts_copy(&o, sizeof(o), opts, "pebs_channel_opts");
	if (!err)
		err = fill_attr(ev, &o, &a, NULL);
	if (err)
		return err;
	for (size_t i = n; i < sizeof(a); i++)
		if (p[i])
			return core_err(-E2BIG, "pebs_channel_attr: the attr "
					"sets byte %zu, past the caller's %zu "
					"bytes: build with newer kernel "
					"headers", i, attr_sz);
	memset(attr, 0, attr_sz);
	memcpy(attr, &a, n);
	attr->size = (uint32_t)n;
	return 0;
}

static unsigned long mlock_kb(void)
{
	unsigned long kb = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");

	if (f) {
		if (fscanf(f, "%lu", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	return kb;
}

static int open_fd(struct pebs_channel *ch, bool default_type)
{
	struct pebs_open_try t;
	long fd;
	int err;

	/*
	 * perf's retries (lib/event/event-mods.c): :P lowers precise_ip; on
	 * EINVAL, older kernels: no FORMAT_LOST (before 6.0), WEIGHT for
	 * WEIGHT_STRUCT (before 5.12, only in the default sample_type),
	 * no exclude_guest/exclude_host.
	 */
	event_open_try_init(&t, &ch->attr,
			    ch->ev.flags & PEBS_EVENT_PRECISE_MAX,
			    default_type);
	do {
		fd = sys_perf_event_open(&ch->attr, ch->pid, ch->cpu,
					 ch->group_fd, PERF_FLAG_FD_CLOEXEC);
		err = fd < 0 ? errno : 0;
	} while (fd < 0 && event_open_try_next(&t, &ch->attr, err));
	errno = err;
	if (fd >= 0) {
		ch->fd = (int)fd;
		return 0;
	}
	if (errno == ESRCH && ch->pid > 0)
		return core_err(-ESRCH, "pid %d: no such process or thread "
				"(it may have exited): check the pid",
				(int)ch->pid);
	return pebs_perf_open_error(&ch->ev, errno);
}

static int map_ring(struct pebs_channel *ch, size_t data_size)
{
	size_t ps = page_size();
	int err;

	ch->map_size = ps + data_size;
	ch->base = mmap(NULL, ch->map_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, ch->fd, 0);
	if (ch->base == MAP_FAILED) {
		err = errno;
		ch->base = NULL;
		if (err == EPERM)
			return core_err(-EPERM, "mapping a %zu KiB perf ring "
					"exceeds the locked-memory limit: "
					"raise /proc/sys/kernel/"
					"perf_event_mlock_kb (now %lu) or use "
					"fewer ring pages", ch->map_size >> 10,
					mlock_kb());
		return core_err(-err, "mapping a %zu KiB perf ring: %s",
				ch->map_size >> 10, strerror(err));
	}
	return pebs_ring__new(ch->base, data_size, &ch->ring);
}

/* send @ch's records to @out's ring (which @out mapped) */
static int set_output(struct pebs_channel *ch, struct pebs_channel *out)
{
	if (ioctl(ch->fd, PERF_EVENT_IOC_SET_OUTPUT, out->fd) < 0)
		return core_err(-errno, "PERF_EVENT_IOC_SET_OUTPUT of %s (cpu "
				"%d) to %s (cpu %d): %s: the kernel shares a "
				"ring only between events of one CPU (or of "
				"one task with cpu -1) and one clock",
				ch->ev.name, ch->cpu, out->ev.name, out->cpu,
				strerror(errno));
	ch->output = out;
	out->refs++;
	return 0;
}

static int channel_open(const struct pebs_event *ev, pid_t pid, int cpu,
			const struct pebs_channel_opts *opts,
			struct pebs_channel *output,
			const struct pebs_channel *leader,
			struct pebs_channel **chp)
{
	struct pebs_channel_opts o;
	struct pebs_channel *ch;
	size_t data_size;
	int err;

	if (!chp || !ev)
		return core_err(-EINVAL, "pebs_channel__open: %s is NULL",
				chp ? "ev" : "chp");
	err = opts_copy(&o, sizeof(o), opts, "pebs_channel_opts");
	if (err)
		return err;
	if (leader && (leader->pid != pid || leader->cpu != cpu))
		return core_err(-EINVAL, "channel: a group member must watch "
				"the task and CPU of its leader");
	if (o.inherit && cpu < 0)
		return core_err(-EINVAL, "channel: the kernel does not map the "
				"ring of an inherited event on every CPU (cpu "
				"-1): open one channel per CPU (a channel set "
				"does)");
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return core_err(-ENOMEM, "channel: out of memory");
	ch->fd = -1;
	ch->refs = 1;
	ch->group_fd = leader ? leader->fd : -1;
	err = fill_attr(ev, &o, &ch->attr, &data_size);
	if (err)
		goto out_free;
	ch->ev = *ev;
	ch->pid = pid;
	ch->cpu = cpu;
	err = open_fd(ch, !o.sample_type);
	if (err)
		goto out_free;
	err = pebs_sample_layout__init(&ch->layout, &ch->attr);
	if (err) {
		core_err(err, "channel: sample_type 0x%llx has bits the "
			 "decoder does not know: drop them",
			 (unsigned long long)ch->attr.sample_type);
		goto out_close;
	}
	if (output)
		err = set_output(ch, output->output ? output->output : output);
	else
		err = map_ring(ch, data_size);
	if (err)
		goto out_unmap;
	if (ioctl(ch->fd, PERF_EVENT_IOC_ID, &ch->id) < 0) {
		err = core_err(-errno, "PERF_EVENT_IOC_ID: %s",
			       strerror(errno));
		goto out_unmap;
	}
	ch->period = ch->attr.freq ? ch->attr.sample_freq :
		     ch->attr.sample_period;
	ch->want_enabled = !ch->attr.disabled;
	*chp = ch;
	core_err_clear();
	return 0;

out_unmap:
	if (ch->output)
		ch->output->refs--;	/* never 0: the caller holds it */
	if (ch->ring)
		pebs_ring__delete(ch->ring);
	if (ch->base)
		munmap(ch->base, ch->map_size);
out_close:
	close(ch->fd);
out_free:
	free(ch);
	return err;
}

int pebs_channel__open(const struct pebs_event *ev, pid_t pid, int cpu,
		       const struct pebs_channel_opts *opts,
		       struct pebs_channel **chp)
{
	return channel_open(ev, pid, cpu, opts, NULL, NULL, chp);
}

int pebs_channel__open_output(const struct pebs_event *ev, pid_t pid,
			      int cpu, const struct pebs_channel_opts *opts,
			      struct pebs_channel *output,
			      struct pebs_channel **chp)
{
	if (!output)
		return core_err(-EINVAL, "pebs_channel__open_output: no "
				"output channel given");
	return channel_open(ev, pid, cpu, opts, output, NULL, chp);
}

int pebs_channel__open_member(const struct pebs_event *ev, pid_t pid,
			      int cpu, const struct pebs_channel_opts *opts,
			      struct pebs_channel *output,
			      const struct pebs_channel *leader,
			      struct pebs_channel **chp)
{
	if (!leader)
		return core_err(-EINVAL, "pebs_channel__open_member: no "
				"group leader given");
	return channel_open(ev, pid, cpu, opts, output, leader, chp);
}

static void channel_free(struct pebs_channel *ch)
{
	struct pebs_channel *out = ch->output;

	if (ch->ring) {
		pebs_ring__delete(ch->ring);
		munmap(ch->base, ch->map_size);
	}
	close(ch->fd);
	free(ch);
	if (out && !--out->refs)
		channel_free(out);
}

void pebs_channel__close(struct pebs_channel *ch)
{
	if (!ch)
		return;
	/*
	 * Other channels still write to this one's ring: stop the event
	 * and keep the fd and the mapping until the last of them closes.
	 */
	if (--ch->refs) {
		ioctl(ch->fd, PERF_EVENT_IOC_DISABLE, 0);
		return;
	}
	channel_free(ch);
}

int pebs_channel__fd(const struct pebs_channel *ch)
{
	return ch->fd;
}

pid_t pebs_channel__pid(const struct pebs_channel *ch)
{
	return ch->pid;
}

int pebs_channel__cpu(const struct pebs_channel *ch)
{
	return ch->cpu;
}

const struct perf_event_attr *pebs_channel__attr(const struct pebs_channel *ch)
{
	return &ch->attr;
}

const struct pebs_event *pebs_channel__event(const struct pebs_channel *ch)
{
	return &ch->ev;
}

const struct pebs_sample_layout *
pebs_channel__layout(const struct pebs_channel *ch)
{
	return &ch->layout;
}

struct pebs_ring *pebs_channel__ring(struct pebs_channel *ch)
{
	return ch->output ? ch->output->ring : ch->ring;
}

static int do_ioctl(struct pebs_channel *ch, unsigned long req,
		    const char *what)
{
	if (ioctl(ch->fd, req, 0) < 0)
		return core_err(-errno, "%s on %s: %s", what, ch->ev.name,
				strerror(errno));
	return 0;
}

int pebs_channel__enable(struct pebs_channel *ch)
{
	ch->want_enabled = true;
	if (!ch->period)
		return 0;
	return do_ioctl(ch, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE");
}

int pebs_channel__disable(struct pebs_channel *ch)
{
	ch->want_enabled = false;
	return do_ioctl(ch, PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE");
}

int pebs_channel__set_period(struct pebs_channel *ch, uint64_t period)
{
	bool running = ch->period && ch->want_enabled;
	int err;

	if (!period) {
		err = do_ioctl(ch, PERF_EVENT_IOC_DISABLE,
			       "PERF_EVENT_IOC_DISABLE");
		if (!err)
			ch->period = 0;
		return err;
	}
	/*
	 * Change the period with the event stopped. On an enabled software
	 * event, PERF_EVENT_IOC_PERIOD left Linux 6.18 sampling almost
	 * nothing (period 4: 4, then 0 and 0 of each 64 page faults); with
	 * the event disabled around it, exactly 16 of each 64.
	 */
	if (running) {
		err = do_ioctl(ch, PERF_EVENT_IOC_DISABLE,
			       "PERF_EVENT_IOC_DISABLE");
		if (err)
			return err;
	}
	if (ioctl(ch->fd, PERF_EVENT_IOC_PERIOD, &period) < 0) {
		err = core_err(-errno, "PERF_EVENT_IOC_PERIOD %llu on %s: %s",
			       (unsigned long long)period, ch->ev.name,
			       errno == EINVAL ? "the kernel refuses this "
			       "period (or frequency above kernel."
			       "perf_event_max_sample_rate)" :
			       strerror(errno));
		if (running)
			ioctl(ch->fd, PERF_EVENT_IOC_ENABLE, 0);
		return err;
	}
	ch->period = period;
	if (ch->want_enabled)
		return do_ioctl(ch, PERF_EVENT_IOC_ENABLE,
				"PERF_EVENT_IOC_ENABLE");
	return 0;
}

int pebs_channel__id(const struct pebs_channel *ch, uint64_t *id)
{
	*id = ch->id;
	return 0;
}

int pebs_channel__lost(const struct pebs_channel *ch, uint64_t *lost)
{
	/* { value, [enabled], [running], [id], lost } (no GROUP) */
	uint64_t v[5];
	unsigned int at = 1 + (unsigned int)__builtin_popcountll(
		ch->attr.read_format & (PERF_FORMAT_TOTAL_TIME_ENABLED |
					PERF_FORMAT_TOTAL_TIME_RUNNING |
					PERF_FORMAT_ID));
	ssize_t n;

	if (!(ch->attr.read_format & PERF_FORMAT_LOST) ||
	    (ch->attr.read_format & PERF_FORMAT_GROUP))
		return core_err(-EOPNOTSUPP, "%s: this kernel does not count "
				"lost samples per event (PERF_FORMAT_LOST, "
				"Linux 6.0)", ch->ev.name);
	n = read(ch->fd, v, sizeof(v));
	if (n < 0)
		return core_err(-errno, "reading %s: %s", ch->ev.name,
				strerror(errno));
	if ((size_t)n < (at + 1) * sizeof(v[0]))
		return core_err(-EIO, "reading %s: %zd bytes, expected %zu",
				ch->ev.name, n, (at + 1) * sizeof(v[0]));
	*lost = v[at];
	return 0;
}

int pebs_channel__lost_record(const struct pebs_channel *ch, void *buf,
			      size_t len)
{
	static const uint64_t id_bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	uint64_t v[2 + ARRAY_SIZE(id_bits)] = { 0 }, lost;
	struct perf_event_header h = { .type = PERF_RECORD_LOST_SAMPLES };
	unsigned int n = 1;
	int err = pebs_channel__lost(ch, &lost);

	if (err || !lost)
		return err;
	/* { header; u64 lost; sample_id with only the ids (as perf's) } */
	v[0] = lost;
	for (size_t i = 0; ch->attr.sample_id_all && i < ARRAY_SIZE(id_bits);
	     i++)
		if (ch->attr.sample_type & id_bits[i])
			v[n++] = id_bits[i] & (PERF_SAMPLE_ID |
					       PERF_SAMPLE_IDENTIFIER) ?
				 ch->id : 0;
	h.size = (uint16_t)(sizeof(h) + 8 * n);
	if (len < h.size)
		return core_err(-ENOSPC, "a LOST_SAMPLES record needs %u bytes",
				h.size);
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + sizeof(h), v, 8 * n);
	return h.size;
}

/* ---- large PEBS ------------------------------------------------------ */

/*
 * arch/x86/events/perf_event.h (6.1): LARGE_PEBS_FLAGS, plus TIME, which
 * intel_ds_init() adds for PEBS format 3 and later (Skylake+).
 */
#define LARGE_PEBS_SAMPLE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | \
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER | \
	 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CODE_PAGE_SIZE | \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_TIME)

/* the registers a PEBS record holds (PEBS_GP_REGS) */
#define PEBS_GP_REGS \
	((1ULL << PERF_REG_X86_AX) | (1ULL << PERF_REG_X86_BX) | \
	 (1ULL << PERF_REG_X86_CX) | (1ULL << PERF_REG_X86_DX) | \
	 (1ULL << PERF_REG_X86_DI) | (1ULL << PERF_REG_X86_SI) | \
	 (1ULL << PERF_REG_X86_SP) | (1ULL << PERF_REG_X86_BP) | \
	 (1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_FLAGS) | \
	 (1ULL << PERF_REG_X86_R8) | (1ULL << PERF_REG_X86_R9) | \
	 (1ULL << PERF_REG_X86_R10) | (1ULL << PERF_REG_X86_R11) | \
	 (1ULL << PERF_REG_X86_R12) | (1ULL << PERF_REG_X86_R13) | \
	 (1ULL << PERF_REG_X86_R14) | (1ULL << PERF_REG_X86_R15))

static const struct {
	uint64_t bit;
	const char *why;
} not_batchable[] = {
	{ PERF_SAMPLE_CALLCHAIN, "sample_type has CALLCHAIN" },
	{ PERF_SAMPLE_READ, "sample_type has READ" },
	{ PERF_SAMPLE_RAW, "sample_type has RAW" },
	{ PERF_SAMPLE_BRANCH_STACK, "sample_type has BRANCH_STACK "
	  "(batchable with adaptive PEBS only, Ice Lake+)" },
	{ PERF_SAMPLE_STACK_USER, "sample_type has STACK_USER" },
	{ PERF_SAMPLE_AUX, "sample_type has AUX" },
	{ PERF_SAMPLE_CGROUP, "sample_type has CGROUP" },
	{ PERF_SAMPLE_DATA_PAGE_SIZE, "sample_type has DATA_PAGE_SIZE" },
};

bool pebs_attr_large_pebs(const struct perf_event_attr *attr,
			  const char **why)
{
	uint64_t flags = LARGE_PEBS_SAMPLE;
	uint64_t extra;
	const char *reason = NULL;

	if (!attr->precise_ip) {
		reason = "precise_ip is 0 (not a PEBS event)";
		goto out;
	}
	if (attr->freq) {
		reason = "freq mode (large PEBS needs a fixed period)";
		goto out;
	}
	if (attr->wakeup_events && !attr->watermark) {
		reason = "wakeup_events without watermark";
		goto out;
	}
	/* intel_pmu_large_pebs_flags() */
	if (attr->use_clockid)
		flags &= ~PERF_SAMPLE_TIME;
	if (!attr->exclude_kernel || (attr->sample_regs_user & ~PEBS_GP_REGS))
		flags &= ~PERF_SAMPLE_REGS_USER;
	if (attr->sample_regs_intr & ~PEBS_GP_REGS)
		flags &= ~PERF_SAMPLE_REGS_INTR;

	extra = attr->sample_type & ~flags;
	if (!extra)
		return true;
	if (extra & PERF_SAMPLE_TIME)
		reason = "sample_type has TIME with use_clockid";
	else if (extra & PERF_SAMPLE_REGS_USER)
		reason = attr->exclude_kernel ?
			 "sample_type has REGS_USER beyond the GP registers" :
			 "sample_type has REGS_USER without exclude_kernel";
	else if (extra & PERF_SAMPLE_REGS_INTR)
		reason = "sample_type has REGS_INTR beyond the GP registers";
	for (size_t i = 0; !reason && i < ARRAY_SIZE(not_batchable); i++)
		if (extra & not_batchable[i].bit)
			reason = not_batchable[i].why;
	if (!reason)
		reason = "sample_type has a bit outside the large-PEBS set";
out:
	if (why)
		*why = reason;
	return false;
}
