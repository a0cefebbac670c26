/* SPDX-License-Identifier: MIT */
/*
 * pebsshim/sampling.h - libpebsshim: sampling: perf mmap rings,
 * channels (one event on one target), channel sets.
 *
 * Included by <pebsshim.h>; may also be included alone. The conventions
 * every function follows are in <pebsshim.h>.
 */
#ifndef PEBSSHIM_SAMPLING_H
#define PEBSSHIM_SAMPLING_H

#include "pebsshim/event.h"
#include "pebsshim/decode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Ring reader (lib/sampling/ring.c)                                  */
/* ------------------------------------------------------------------ */

struct pebs_ring;
struct pebs_ring_stats {
	uint64_t records;	/* all records read */
	uint64_t samples;	/* PERF_RECORD_SAMPLE */
	uint64_t lost;		/* sum of PERF_RECORD_LOST.lost */
	uint64_t lost_records;	/* number of PERF_RECORD_LOST records */
	uint64_t throttles;	/* PERF_RECORD_THROTTLE */
	uint64_t unthrottles;	/* PERF_RECORD_UNTHROTTLE */
	uint64_t wrapped;	/* records copied because they wrapped */
	uint64_t bad;		/* -EBADMSG: corrupt records or heads */
};

/*
 * Usage (every record of a snapshot in one pass):
 *	while (pebs_ring__read_init(ring) == 0) {
 *		while ((err = pebs_ring__next(ring, &ev)) > 0)
 *			handle(ev);	// e.g. pebs_sample__decode()
 *		pebs_ring__consume(ring);
 *	}
 */

/*
 * pebs_ring__new - a reader over a perf mmap area: @base points at the
 * struct perf_event_mmap_page. The data area is taken from the page's
 * data_offset/data_size when they are non-zero (kernels >= 4.1), else it
 * follows one page on and is @data_size bytes. Its size must be a power
 * of two. Reading starts at the page's data_tail. The mapping must be
 * writable (the reader stores data_tail). Returns 0, -EINVAL (sizes),
 * -ENOMEM.
 */
PEBS_API int pebs_ring__new(void *base, size_t data_size,
			    struct pebs_ring **ringp);

/*
 * pebs_ring__read_init - snapshot data_head (acquire). Returns 0, -EAGAIN
 * if there is nothing new, or -EBADMSG if data_head is more than the
 * ring size ahead of the tail (corrupt page): the reader then skips to
 * that head and publishes it as the tail.
 */
PEBS_API int pebs_ring__read_init(struct pebs_ring *ring);

/*
 * pebs_ring__next - the next record of the snapshot.
 *
 * Returns 1 and stores a pointer to the record in *ev (into the ring
 * when contiguous, into a bounce buffer when it wraps; valid until the
 * next call; 8-byte aligned when the kernel's records are), 0 at the
 * end of the snapshot, or -EBADMSG if the record is corrupt (size
 * smaller than its header, or larger than what the kernel published,
 * hence than the ring): the reader then skips to the snapshot's head and
 * the next call returns 0. Every record type is returned (SAMPLE, LOST,
 * THROTTLE, COMM, MMAP2, EXIT, SWITCH, ...); LOST, THROTTLE and
 * UNTHROTTLE are also counted in the ring's stats.
 */
PEBS_API int pebs_ring__next(struct pebs_ring *ring,
			     const struct perf_event_header **ev);

/*
 * pebs_ring__consume - publish what was read (release store of
 * data_tail), letting the kernel reuse that space. Records returned by
 * __next must not be used afterwards.
 */
PEBS_API void pebs_ring__consume(struct pebs_ring *ring);

/* pebs_ring__stats - counters since __new. */
PEBS_API const struct pebs_ring_stats *
pebs_ring__stats(const struct pebs_ring *ring);

/* pebs_ring__delete - free; NULL is allowed. */
PEBS_API void pebs_ring__delete(struct pebs_ring *ring);

/* ------------------------------------------------------------------ */
/* Channels (lib/sampling/channel.c)                                  */
/* ------------------------------------------------------------------ */

/*
 * A channel samples one event on one target (a thread, a process and
 * its children with opts.inherit, or a CPU) into its own mmap ring.
 *
 *	PEBS_OPTS(pebs_channel_opts, o, .period = 20011);
 *	struct pebs_channel *ch;
 *	const struct perf_event_header *rec;
 *	struct pebs_sample s;
 *
 *	err = pebs_channel__open(&ev, tid, -1, &o, &ch);
 *	ring = pebs_channel__ring(ch);
 *	while (pebs_ring__read_init(ring) == 0) {
 *		while (pebs_ring__next(ring, &rec) > 0)
 *			if (rec->type == PERF_RECORD_SAMPLE &&
 *			    !pebs_sample__decode(pebs_channel__layout(ch),
 *						 rec, &s))
 *				use(&s);
 *		pebs_ring__consume(ring);
 *	}
 *	pebs_channel__close(ch);
 *
 * A channel is not thread-safe: one thread reads its ring at a time.
 */
struct pebs_channel;
#define PEBS_CHANNEL_DEF_PERIOD	10007	/* no period, no freq given */
#define PEBS_CHANNEL_DEF_PAGES	64	/* data pages of a ring */
#define PEBS_CHANNEL_MAX_PAGES	(1u << 20)

/*
 * PEBS_CHANNEL_PEBS_SAMPLE: the default sample_type of a precise or
 * memory event (batchable by large PEBS on Skylake and later);
 * PEBS_CHANNEL_SW_SAMPLE: the default of every other event (software,
 * tracepoint, non-precise hardware).
 */
#define PEBS_CHANNEL_PEBS_SAMPLE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT)
#define PEBS_CHANNEL_SW_SAMPLE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | \
	 PERF_SAMPLE_PERIOD)
struct pebs_channel_opts {
	size_t sz;
	uint64_t sample_type;	/* 0: PEBS_CHANNEL_PEBS_SAMPLE or
				   PEBS_CHANNEL_SW_SAMPLE (see above) */
	uint64_t period;	/* fixed period; 0: the event's, else
				   PEBS_CHANNEL_DEF_PERIOD */
	uint64_t freq;		/* samples/s instead of a period (disables
				   large PEBS); not with period */
	unsigned int ring_pages; /* data pages, a power of two up to
				    PEBS_CHANNEL_MAX_PAGES; 0: default */
	unsigned int watermark;	/* wakeup after this many bytes (at most
				   the ring); 0: half the ring */
	bool inherit;		/* follow children and new threads (needs
				   cpu >= 0: one channel per CPU) */
	bool enable_on_exec;	/* start counting at exec (implies
				   disabled) */
	bool disabled;		/* open disabled (pebs_channel__enable) */
	bool context_switch;	/* PERF_RECORD_SWITCH(_CPU_WIDE) */
	bool task_records;	/* COMM (with exec), MMAP, MMAP2 with data
				   mappings, FORK/EXIT records */
	bool use_clockid;	/* TIME in clockid below (with TIME in
				   sample_type this disables large PEBS) */
	int clockid;
};

/*
 * pebs_channel__open - open @ev on one target and map its ring.
 *
 * pid > 0, cpu -1: that thread (a tid); pid 0: the calling thread;
 * pid -1, cpu >= 0: everything on that CPU (needs privileges); pid > 0
 * and cpu >= 0: that thread while on that CPU, with opts.inherit also
 * the threads and children it creates from now on (the kernel refuses
 * to map the ring of an inherited event with cpu -1: -EINVAL). The fd is
 * O_CLOEXEC; the ring is mapped writable (1 + ring_pages pages) and read
 * through pebs_channel__ring(). With the default sample_type of a
 * precise event, a kernel that refuses PERF_SAMPLE_WEIGHT_STRUCT
 * (EINVAL; before 5.12) is asked once more with PERF_SAMPLE_WEIGHT.
 * @ev is copied. Returns 0, or: -EINVAL (as pebs_channel_attr, or the
 * kernel refused the attr), -ESRCH (no such pid/tid), -ENOENT/-EACCES/
 * -EOPNOTSUPP... from perf_event_open (explained by
 * pebs_perf_open_error), -EPERM from mmap (ring over
 * /proc/sys/kernel/perf_event_mlock_kb), -ENOMEM.
 */
PEBS_API int pebs_channel__open(const struct pebs_event *ev, pid_t pid,
				int cpu, const struct pebs_channel_opts *opts,
				struct pebs_channel **chp);

/*
 * pebs_channel__open_output - as pebs_channel__open, but the channel
 * maps no ring: its records go to the ring of @output (or of the
 * channel @output writes to) through PERF_EVENT_IOC_SET_OUTPUT, and
 * pebs_channel__ring() returns that ring. The kernel allows it between
 * events of one CPU, or of one task both opened with cpu -1, with one
 * clock. Records then tell their channel only by their id
 * (PERF_SAMPLE_IDENTIFIER). @output may be closed before this channel:
 * it then stops counting and its ring stays mapped until the last
 * channel writing to it is closed. Returns as pebs_channel__open, or
 * -EINVAL (@output NULL or refused by the kernel).
 */
PEBS_API int pebs_channel__open_output(const struct pebs_event *ev,
				       pid_t pid, int cpu,
				       const struct pebs_channel_opts *opts,
				       struct pebs_channel *output,
				       struct pebs_channel **chp);

/*
 * pebs_channel__open_member - as __open_output (@output may be NULL: a
 * ring of its own), as a member of @leader's event group (perf's {a,b}:
 * the group is scheduled onto the PMU as one). @leader must watch the
 * same @pid and @cpu. Returns as __open, or -EINVAL.
 */
PEBS_API int pebs_channel__open_member(const struct pebs_event *ev, pid_t pid,
				       int cpu,
				       const struct pebs_channel_opts *opts,
				       struct pebs_channel *output,
				       const struct pebs_channel *leader,
				       struct pebs_channel **chp);

/*
 * pebs_channel__set_period - PERF_EVENT_IOC_PERIOD (in freq mode: the
 * frequency). The kernel refuses a zero period, so period 0 stops
 * sampling by disabling the event; a later non-zero period re-enables
 * it unless pebs_channel__disable was called in between (and
 * pebs_channel__enable while the period is 0 keeps it stopped). A
 * running event is disabled around the change, so the new period holds
 * from the next event on (Linux 6.18 mis-counted software events whose
 * period changed while they ran). Returns
 * 0, -EINVAL (period the kernel refuses, e.g. bit 63 set or a freq
 * above kernel.perf_event_max_sample_rate), or -errno from ioctl.
 */
PEBS_API int pebs_channel__set_period(struct pebs_channel *ch,
				      uint64_t period);

/*
 * pebs_channel_attr - the perf_event_attr pebs_channel__open would use
 * for @ev with @opts (NULL: defaults): @ev's type, config, config1/2,
 * precise_ip and exclude_* bits, plus size, sample_type, sample_id_all,
 * sample_period (or freq and sample_freq), watermark and
 * wakeup_watermark, disabled, enable_on_exec, inherit, context_switch,
 * comm/comm_exec/mmap/mmap2/mmap_data/task (task_records), use_clockid
 * and clockid. @attr is the caller's, of @attr_sz bytes (pass
 * sizeof(struct perf_event_attr)): the first min(attr_sz, the library's
 * size) are written, the rest zeroed, and attr->size says how many.
 * Returns 0, or -EINVAL (opts.sz unset or with unknown non-zero fields,
 * @ev's attr_area with unknown non-zero bytes, both period and freq,
 * ring_pages not a power of two or too large, watermark larger than the
 * ring, attr_sz below PERF_ATTR_SIZE_VER0), -E2BIG (the attr sets a
 * field past attr_sz: older kernel headers than the library's).
 */
PEBS_API int pebs_channel_attr(const struct pebs_event *ev,
			       const struct pebs_channel_opts *opts,
			       struct perf_event_attr *attr, size_t attr_sz);

/* the perf event file descriptor (owned by the channel) */
PEBS_API int pebs_channel__fd(const struct pebs_channel *ch);

/* the target as given to __open (pid -1 for a CPU channel) */
PEBS_API pid_t pebs_channel__pid(const struct pebs_channel *ch);

/* the CPU as given to __open (-1 for any CPU) */
PEBS_API int pebs_channel__cpu(const struct pebs_channel *ch);

/*
 * the attr the event was opened with (after a WEIGHT fallback); the
 * storage is PEBS_EVENT_ATTR_AREA bytes, zero past attr->size, so a
 * caller with newer kernel headers reads its new fields as zero
 */
PEBS_API const struct perf_event_attr *
pebs_channel__attr(const struct pebs_channel *ch);

/* the channel's copy of the event it was opened with */
PEBS_API const struct pebs_event *
pebs_channel__event(const struct pebs_channel *ch);

/* the sample layout of this channel's attr, for pebs_sample__decode */
PEBS_API const struct pebs_sample_layout *
pebs_channel__layout(const struct pebs_channel *ch);

/* the reader over this channel's ring (owned by the channel) */
PEBS_API struct pebs_ring *pebs_channel__ring(struct pebs_channel *ch);

/* PERF_EVENT_IOC_ENABLE / _DISABLE (with inherit: the children too) */
PEBS_API int pebs_channel__enable(struct pebs_channel *ch);
PEBS_API int pebs_channel__disable(struct pebs_channel *ch);

/*
 * pebs_channel__id - the event id (PERF_EVENT_IOC_ID, read at open):
 * the IDENTIFIER/ID of its samples. Returns 0.
 */
PEBS_API int pebs_channel__id(const struct pebs_channel *ch, uint64_t *id);

/*
 * pebs_attr_large_pebs - whether the kernel would let an Intel CPU
 * batch PEBS records for @attr (multi-record PEBS: one interrupt per
 * buffer, not per sample), by the rules of Linux 6.1
 * (intel_pmu_hw_config, intel_pmu_large_pebs_flags, LARGE_PEBS_FLAGS)
 * for a PEBS format 3 CPU (Skylake and later, where TIME is batchable;
 * Ice Lake's adaptive PEBS additionally batches BRANCH_STACK):
 * precise_ip >= 1; no freq; no wakeup_events unless watermark;
 * sample_type within IP TID TIME ADDR ID CPU STREAM_ID DATA_SRC
 * IDENTIFIER TRANSACTION PHYS_ADDR PERIOD CODE_PAGE_SIZE WEIGHT
 * WEIGHT_STRUCT, REGS_INTR (GP registers only) and REGS_USER (GP
 * registers only, exclude_kernel); no TIME with use_clockid. The
 * kernel also needs every PEBS event on that CPU to qualify, which no
 * attr can tell. If not, and @why is not NULL, *why names the first
 * reason (a static string, e.g. "freq mode", "sample_type has
 * CALLCHAIN").
 */
PEBS_API bool pebs_attr_large_pebs(const struct perf_event_attr *attr,
				   const char **why);

/*
 * pebs_channel__lost - the samples the kernel dropped for this event
 * (its ring was full), as counted per event since Linux 6.0: channels
 * open with PERF_FORMAT_LOST in read_format where the kernel knows it
 * (and without it where it does not). With inherit, the count is the
 * channel's own task's, not its children's. Returns 0, -EOPNOTSUPP (no
 * PERF_FORMAT_LOST here), or -errno of read.
 */
PEBS_API int pebs_channel__lost(const struct pebs_channel *ch,
				uint64_t *lost);

/*
 * pebs_channel__lost_record - perf's PERF_RECORD_LOST_SAMPLES of this
 * channel into @buf (@len bytes): the count of pebs_channel__lost and,
 * with sample_id_all, a sample_id that holds only the channel's id (as
 * perf record writes it at the end). Returns the record's size, 0 when
 * nothing was lost, -ENOSPC (@len too small; 64 bytes always do), or
 * the errors of pebs_channel__lost.
 */
PEBS_API int pebs_channel__lost_record(const struct pebs_channel *ch,
				       void *buf, size_t len);

/* pebs_channel__close - unmap the ring, close the fd, free; NULL is ok. */
PEBS_API void pebs_channel__close(struct pebs_channel *ch);

/* ------------------------------------------------------------------ */
/* Channel sets (lib/sampling/chanset.c, lib/sampling/chanset-poll.c) */
/* ------------------------------------------------------------------ */

/*
 * A channel set opens every event of a list on every target of a set
 * (tasks or CPUs), registers all rings in one epoll instance and
 * drains them. Not thread-safe; callbacks must not add, remove or
 * update targets (-EBUSY).
 */
struct pebs_chanset;
enum pebs_target_kind {
	PEBS_TARGET_TASK,	/* pids or tids (opts.inherit for children:
				   then one channel per event per online
				   CPU, since the kernel cannot mmap an
				   inherited event opened with cpu -1) */
	PEBS_TARGET_CPU,	/* CPUs, system-wide */
};

/*
 * Callbacks (each may be NULL), declared with PEBS_OPTS() (sz: see
 * "Extensible structs" in <pebsshim.h>). A negative return stops the drain and
 * is returned by __poll/__drain; the record it was called for counts as
 * consumed. Records of one ring arrive in ring order; rings are drained
 * one after the other.
 */
struct pebs_chanset_cbs {
	size_t sz;
	/*
	 * a sample of @ch, decoded with its layout; @raw points at the
	 * record (into the ring when it does not wrap), valid during the
	 * call. Samples are never filtered (any pid/tid/cpu is delivered).
	 */
	int (*on_sample)(void *ctx, struct pebs_channel *ch,
			 const struct pebs_sample *s,
			 const struct perf_event_header *raw);
	/* every other record (COMM, MMAP2, SWITCH, EXIT, THROTTLE, LOST...) */
	int (*on_record)(void *ctx, struct pebs_channel *ch,
			 const struct perf_event_header *ev);
	/* a PERF_RECORD_LOST: @lost samples dropped (before on_record) */
	void (*on_lost)(void *ctx, struct pebs_channel *ch, uint64_t lost);
	/*
	 * @target is gone (EPOLLHUP: a task target exited, with inherit
	 * after its last child): called once, after every remaining record
	 * of its channels was delivered; its channels are then closed and
	 * it leaves the set.
	 */
	void (*on_exit)(void *ctx, int target);
};

/*
 * pebs_chanset__new - an empty set that opens every event of @evs on
 * each target added, with @opts (NULL: defaults). The events and opts
 * are copied and checked (pebs_channel_attr). Side-band records
 * (opts.task_records, opts.context_switch) are asked of the first event
 * only (or of the one pebs_chanset__set_tracking names), as perf asks
 * them of its tracking event, so that each arrives once. Returns 0,
 * -EINVAL, -ENOMEM, or -errno from epoll_create1.
 */
PEBS_API int pebs_chanset__new(const struct pebs_event *evs,
			       unsigned int nr_evs,
			       enum pebs_target_kind kind,
			       const struct pebs_channel_opts *opts,
			       struct pebs_chanset **setp);

/*
 * pebs_chanset__add - open every event on @target (a pid/tid, or a
 * CPU). All or nothing. Returns 0, -EEXIST (already in), -ESRCH (no
 * such pid: pebs_errmsg() names it), -EBUSY (inside a callback), or
 * -errno from pebs_channel__open.
 */
PEBS_API int pebs_chanset__add(struct pebs_chanset *set, int target);

/* Close @target's channels. Returns 0, -ENOENT (not in the set), -EBUSY. */
PEBS_API int pebs_chanset__remove(struct pebs_chanset *set, int target);

/*
 * pebs_chanset__update - make the targets exactly @targets (duplicates
 * allowed): adds the new ones first, then removes those not listed;
 * targets in both keep their channels. All or nothing: if an add
 * fails, the set is left as it was and the error returned.
 */
PEBS_API int pebs_chanset__update(struct pebs_chanset *set,
				  const int *targets, unsigned int n);

/*
 * pebs_chanset__poll - wait up to @timeout_ms (-1 forever, 0 not at
 * all) for a ring to reach its watermark or a target to go, then drain
 * every ready ring (all records up to its head at the start of the
 * drain) and report gone targets (see on_exit). Returns the number of
 * samples delivered (0 on timeout), -EINTR, -EBUSY (called from a
 * callback), or the first negative callback return; -EBADMSG (also in
 * pebs_errmsg) if a sample does not decode with its channel's layout.
 */
PEBS_API int pebs_chanset__poll(struct pebs_chanset *set, int timeout_ms,
				const struct pebs_chanset_cbs *cbs, void *ctx);

/*
 * pebs_chanset__drain - as __poll without waiting, draining every ring
 * whether or not it reached its watermark (e.g. at the end of a
 * session). Returns as __poll.
 */
PEBS_API int pebs_chanset__drain(struct pebs_chanset *set,
				 const struct pebs_chanset_cbs *cbs, void *ctx);

/* targets in the set, and their channels (events x targets x CPUs) */
PEBS_API unsigned int pebs_chanset__nr_targets(const struct pebs_chanset *set);
PEBS_API unsigned int pebs_chanset__nr_channels(const struct pebs_chanset *set);

/*
 * pebs_chanset__channel - channel @idx (0 .. nr_channels - 1; the
 * channels of one target are consecutive, in event order, and with
 * inherit event order repeats per online CPU), or NULL (also for a slot
 * whose event is closed: pebs_chanset__close_event). Indexes change
 * when targets are added or removed.
 */
PEBS_API struct pebs_channel *pebs_chanset__channel(struct pebs_chanset *set,
						    unsigned int idx);

/* the epoll fd (for an outer event loop: readable means call __poll(0)) */
PEBS_API int pebs_chanset__epoll_fd(const struct pebs_chanset *set);

/* Enable or disable every channel. Returns 0 or the first -errno. */
PEBS_API int pebs_chanset__enable(struct pebs_chanset *set);
PEBS_API int pebs_chanset__disable(struct pebs_chanset *set);

/*
 * pebs_chanset__nr_rings - the mapped rings of the set. When every
 * event samples PERF_SAMPLE_IDENTIFIER, a channel set maps one ring per
 * CPU, as perf record does: the events of a CPU target, the events and
 * tasks of inherited task targets on one CPU, the events of a task
 * opened with cpu -1 share it; the callbacks still get each record's
 * own channel (by its id). Records of a removed target left in a
 * shared ring are dropped. Without IDENTIFIER every channel has its own
 * ring.
 */
PEBS_API unsigned int pebs_chanset__nr_rings(const struct pebs_chanset *set);

/*
 * pebs_chanset__event - event @i (0 .. nr_evs - 1) as the set opens it
 * now, after the fallbacks of its opens so far (pebs_event__fallback);
 * NULL past the end.
 */
PEBS_API const struct pebs_event *
pebs_chanset__event(const struct pebs_chanset *set, unsigned int i);

/* pebs_chanset__delete - close every channel and free; NULL is ok. */
PEBS_API void pebs_chanset__delete(struct pebs_chanset *set);

/*
 * pebs_chanset__set_tracking - ask the side-band records
 * (opts.task_records, opts.context_switch) of event @ev instead of the
 * first, as perf record moves them to its tracking event: a software
 * dummy (PERF_COUNT_SW_DUMMY) that never samples, left enabled while
 * the others are disabled (perf record -D; record --budget's duty
 * cycle), keeps MMAP, COMM, FORK/EXIT and SWITCH records coming. Before
 * the first target is added. Returns 0, -EINVAL (no such event) or
 * -EBUSY (targets already added).
 */
PEBS_API int pebs_chanset__set_tracking(struct pebs_chanset *set,
					unsigned int ev);

/*
 * pebs_chanset__close_event - close every channel of event @ev (its
 * slots stay, empty: pebs_chanset__channel gives NULL for them), and
 * drop the targets left without a channel. Closing a software event's
 * last fd frees it (and its inherited copies in the threads of a task
 * target), where PERF_EVENT_IOC_DISABLE leaves it installed: the
 * kernel's static key of a software event is held from its creation to
 * its free, so each occurrence costs while it is merely disabled. Rings
 * are the first channel's of each CPU (or task), the tracking event's
 * with pebs_chanset__set_tracking, so a closed channel of another event
 * frees its event; what its ring holds of it must be drained first
 * (records of a closed channel are skipped). Returns 0, -EINVAL (no
 * such event), -EBUSY (from a callback).
 */
PEBS_API int pebs_chanset__close_event(struct pebs_chanset *set,
				       unsigned int ev);

/*
 * pebs_chanset__open_event - open event @ev on @target into its empty
 * slots (on every online CPU with inherit), with the set's options (so
 * disabled when they say so): a target not in the set yet is added with
 * this event alone (a thread whose other events it inherits, say); a
 * group member needs its leader open. @period: 0 for the event's own
 * period or frequency, else that fixed period and samples without
 * PERF_SAMPLE_PERIOD (the kernel samples every occurrence of a software
 * event whose samples carry their period at a fixed period, and each
 * sample's period is @period anyway: the caller adds it). The channels
 * get new sample ids. Returns 0, -EINVAL, -EBUSY, -ESRCH (no such
 * task), or the open's -errno; on failure @target's channels of @ev are
 * closed.
 */
PEBS_API int pebs_chanset__open_event(struct pebs_chanset *set,
				      unsigned int ev, int target,
				      uint64_t period);

/* ------------------------------------------------------------------ */
/* Sampling budgets (lib/sampling/budget.c, budget-calibrate.c)       */
/* ------------------------------------------------------------------ */

/*
 * A budget controller keeps the estimated cost of sampling under a share
 * of the sampled CPUs' time by choosing each channel's period (for
 * pebs_channel__set_period). The model, per interval and channel i:
 *
 *	overhead_i = (events_i x kernel cost per event_i + samples_i x
 *		     (kernel cost per sample_i + recorder CPU per sample))
 *		     / CPU time of the sampled CPUs (or tasks)
 *
 * where samples_i is the channel's samples in the interval, events_i the
 * events behind them, the kernel cost of one event (paid by every
 * occurrence of an event the kernel counts in software, sampled or not:
 * page faults, tracepoints; 0 for clocks and hardware counters) and of
 * one sample are measured (pebs_budget__calibrate_faults,
 * pebs_budget__calibrate), and the recorder's
 * CPU per sample is its CPU time in the interval over all samples of the
 * interval (averaged over intervals). The events behind the samples,
 * samples x period, give each channel's event density (events per
 * sampled CPU ns); the period that spends the channel's share of the
 * budget follows from it. The density is held at its peak and decays by
 * half per interval (a burst raises the period at once, it comes back
 * down over a few intervals); an interval without samples of a channel
 * (nor events counted, when the caller gives them) tells nothing and
 * changes nothing (an idle phase keeps the period).
 * The budget is shared evenly between the channels that have had
 * samples, after what the channels that cannot change period cost. A
 * period moves only when the channel is over its share, or when it
 * could sample at least 20 % more often (the hysteresis); it then aims
 * at 90 % of what the share leaves after the events' cost (which no
 * period changes). It never goes below the floor (opts.floor, and
 * what opts.max_rate allows) nor above the ceiling: opts.ceiling, and
 * the period that keeps opts.min_rate samples per second (default 100)
 * at the channel's event rate. The minimum rate wins over the budget:
 * an event too costly to sample 100 times a second within the budget
 * is sampled 100 times a second (pebs_budget__overhead tells). An
 * event whose counting (with the minimum rate) alone costs more than
 * the share goes to the duty cycle (below) at the period where its
 * samples cost as much as its counting, cost per sample over cost per
 * event within the limits: a window pays for counting anyway, and its
 * samples are what the estimate stands on (pebs_budget__floor tells
 * what the channels cost enabled at the least).
 *
 * The duty cycle: when the floor exceeds the budget (counting alone
 * costs more, e.g. page faults counted in software), no period meets
 * it, but enabling the events only a share d of the time does:
 * pebs_budget__duty returns d = budget / floor, in (0, 1], and 1 when
 * the floor is within the budget (the periods meet it). The caller
 * enables the events in windows (their starts at random, so that
 * periodic program phases do not alias; each window's samples stand for
 * its cycle: the recorder weighs their periods by cycle / window) and
 * says how long they were
 * off in each interval (disabled_ns): the densities, rates and costs
 * are then measured over the enabled share of the time (a density over
 * the whole interval would be d times too low), and
 * pebs_budget__overhead is what they cost over the whole interval (d x
 * the cost when enabled). As the load falls the floor falls and d
 * comes back to 1.
 *
 * What the model cannot see: the cache and TLB pollution a sample
 * leaves in the workload, and the time the kernel spends on samples of
 * CPUs whose time is not counted in sampled_cpu_ns.
 */
struct pebs_budget;
#define PEBS_BUDGET_MIN_RATE	100	/* samples/s per channel kept */
#define PEBS_BUDGET_HYSTERESIS	0.2	/* relative change ignored */
struct pebs_budget_opts {
	size_t sz;
	double budget;		/* the share of sampled CPU time, in (0, 1)
				   (0.02 for 2 %) */
	unsigned int nr_channels; /* channels 0 .. nr_channels - 1 */
	uint64_t floor;		/* smallest period (the user's -c); 0: 1 */
	uint64_t ceiling;	/* largest period; 0: only min_rate's */
	double max_rate;	/* samples/s a channel may not exceed (the
				   user's -F); 0: no limit */
	double min_rate;	/* samples/s a channel keeps; 0:
				   PEBS_BUDGET_MIN_RATE */
};

/* one interval of the recording, as seen by the recorder */
struct pebs_budget_interval {
	size_t sz;
	uint64_t elapsed_ns;	/* wall time of the interval */
	uint64_t sampled_cpu_ns; /* CPU time the sampled tasks (or CPUs,
				    busy time) ran in it */
	uint64_t recorder_cpu_ns; /* the recorder's own CPU time in it */
	const uint64_t *samples; /* per channel: samples in the interval
				    (nr_channels entries) */
	const uint64_t *events;	/* per channel: the events behind them,
				   the sum of the samples' periods
				   (PERF_SAMPLE_PERIOD); NULL or 0: samples
				   x the period set (a period that did not
				   reach every copy of an inherited event
				   shows here) */
	uint64_t disabled_ns;	/* wall time of the interval the events
				   were disabled (the duty cycle's off
				   windows, pebs_budget__duty); 0: none */
	uint64_t switches;	/* context switches of the sampled tasks
				   in it (pebs_budget__set_switch_cost);
				   0: none or unknown */
	bool final;		/* the recording's last, partial interval:
				   counted in the totals only (nothing
				   learnt, no period decided) */
};

/* what the controller did with one channel */
struct pebs_budget_stats {
	uint64_t period;	/* the period now */
	uint64_t min_period;	/* the smallest and largest it had */
	uint64_t max_period;
	uint64_t changes;	/* periods returned by __update */
	uint64_t samples;	/* samples fed */
	double overhead;	/* the estimate of the last interval with
				   samples (a fraction) */
	bool fixed;		/* cannot change period (__fixed) */
};

/*
 * pebs_budget__new - a controller for @opts->nr_channels channels (1 ..
 * 65536). Returns 0, -EINVAL (budget not in (0, 1), no channels, floor
 * above ceiling, negative rates, min_rate above max_rate), -ENOMEM.
 */
PEBS_API int pebs_budget__new(const struct pebs_budget_opts *opts,
			      struct pebs_budget **bp);

/*
 * pebs_budget__set_channel - channel @ch starts at @period (as opened)
 * and one of its samples costs the kernel @cost_ns (measured by
 * pebs_budget__calibrate). Before it is set a channel is left alone.
 * Returns 0, -EINVAL (no such channel, period 0).
 */
PEBS_API int pebs_budget__set_channel(struct pebs_budget *b, unsigned int ch,
				      uint64_t period, double cost_ns);

/*
 * pebs_budget__update - feed one interval; @next (nr_channels entries)
 * receives each channel's new period, or 0 to leave it as it is. The
 * controller takes the new periods as set: a channel that refuses it
 * is reported with pebs_budget__fixed. Returns the number of channels
 * to change, or -EINVAL (no samples array).
 */
PEBS_API int pebs_budget__update(struct pebs_budget *b,
				 const struct pebs_budget_interval *iv,
				 uint64_t *next);

/*
 * pebs_budget__fixed - channel @ch cannot change period (its
 * pebs_channel__set_period failed, e.g. -EOPNOTSUPP): it keeps @period,
 * is never changed again, and what it costs comes off the others'
 * budget. Returns 0, or -EINVAL (no such channel).
 */
PEBS_API int pebs_budget__fixed(struct pebs_budget *b, unsigned int ch,
				uint64_t period);

/* pebs_budget__stats - channel @ch's statistics, NULL if no such channel */
PEBS_API const struct pebs_budget_stats *
pebs_budget__stats(const struct pebs_budget *b, unsigned int ch);

/*
 * pebs_budget__overhead - the estimated overhead of all channels in the
 * last interval with samples (a fraction of the sampled CPU time), and
 * the number of channels that cannot change period.
 */
PEBS_API double pebs_budget__overhead(const struct pebs_budget *b);
PEBS_API unsigned int pebs_budget__nr_fixed(const struct pebs_budget *b);

/* pebs_budget__delete - free; NULL is ok */
PEBS_API void pebs_budget__delete(struct pebs_budget *b);

/*
 * pebs_budget__set_event_cost - each event of channel @ch (sampled or
 * not) costs the kernel @event_ns (pebs_budget__calibrate_faults); 0
 * until set. Returns 0, -EINVAL (no such channel, negative cost).
 */
PEBS_API int pebs_budget__set_event_cost(struct pebs_budget *b,
					 unsigned int ch, double event_ns);

/*
 * pebs_budget__floor - the least the channels can cost at the event
 * rates of the last interval with samples (a fraction of the sampled
 * CPU time): counting their events, and sampling at the ceiling (the
 * minimum rate); a fixed channel at its period. Above the budget, the
 * budget cannot be met with these events: they are sampled at the
 * minimum rate.
 */
PEBS_API double pebs_budget__floor(const struct pebs_budget *b);

/*
 * pebs_budget__duty - the share of the time the events should be
 * enabled (the duty cycle, see "Sampling budgets"): (0.9 x budget -
 * off) / (floor - off) when the floor exceeds the budget (off:
 * pebs_budget__off_floor; 0 when that alone reaches 0.9 x budget), else
 * 1 (also before any interval, and for NULL)
 */
PEBS_API double pebs_budget__duty(const struct pebs_budget *b);

/*
 * pebs_budget__calibrate - measure what one sample of @ev costs on the
 * calling thread, here: a spin loop of a fixed number of iterations
 * runs sampled at @sparse_period and at @dense_period, alternately,
 * @rounds times each (0: 3), each run about @run_ms long (0: 20 ms);
 * with the fastest run of each (the least disturbed by other tasks),
 *	cost = (wall time dense - wall time sparse) /
 *	       (samples dense - samples sparse).
 * The event must count on a spinning thread (cpu-clock, task-clock,
 * cycles, instructions); the periods are in its units (ns for the
 * clocks). Returns 0 and *cost_ns, or -EINVAL (periods not dense <
 * sparse), -ENODATA (fewer than 50 more samples at the dense period:
 * the event does not count in a spin loop), -EAGAIN (the dense runs
 * were not slower: too noisy a machine, try again or longer runs), or
 * the errors of pebs_channel__open.
 */
PEBS_API int pebs_budget__calibrate(const struct pebs_event *ev,
				    uint64_t dense_period,
				    uint64_t sparse_period, unsigned int run_ms,
				    unsigned int rounds, double *cost_ns);

/*
 * pebs_budget__calibrate_faults - what an event counted per occurrence
 * (a software event, a tracepoint) costs on the calling thread when it
 * fires in a page fault: a loop of page faults (each run about @run_ms
 * of the thread's CPU, 0: 1 ms) runs bare, with @ev counting (open,
 * sampling at a period never reached) and with @ev sampled every 4th
 * event, in turn, @rounds times (0: 21, and 43 more when the 21 give a
 * cost per event of 0 or less; at most 64); with the medians
 * of the rounds' differences (many short pairs: the other tenants of a
 * shared machine change a fault's cost over time), in the thread's CPU time (the fault path runs in the
 * task, unlike an interrupt),
 *	*event_ns  = (counted - bare) / events counted
 *	*sample_ns = (sampled - counted) / samples	(unless NULL)
 * @sample_type is the samples' (0: PEBS_CHANNEL_SW_SAMPLE), without
 * PERF_SAMPLE_PERIOD (with it and a fixed period a software event
 * samples every event). *event_ns is 0 when the machine's noise hides
 * it (after the 64 rounds, by default). Returns 0, -EINVAL, -ENODATA
 * (@ev counted fewer events than half the faults: it does not count in
 * a page-fault loop), -EAGAIN (the sampled runs were not slower), or
 * the errors of pebs_channel__open.
 */
PEBS_API int pebs_budget__calibrate_faults(const struct pebs_event *ev,
					   uint64_t sample_type,
					   unsigned int run_ms,
					   unsigned int rounds,
					   double *event_ns, double *sample_ns);

/*
 * pebs_budget__calibrate_off - what an event counted per occurrence
 * costs per page fault while open but disabled: the kernel's static key
 * of its software event stays on from its creation to its free
 * (PERF_EVENT_IOC_DISABLE does not drop it), so every fault still runs
 * the software-event path (___perf_sw_event: the recursion context, the
 * CPU's swevent hash lookup, an empty walk). Bare runs and runs with @ev
 * open and never enabled (each about @run_ms of the thread's CPU, 0: 1
 * ms), interleaved, @rounds pairs (0: 61, at most 1024); *off_ns the
 * median of (disabled - bare) / faults, 0 when the machine's noise hides
 * it. Returns 0, -EINVAL, or the errors of pebs_channel__open.
 */
PEBS_API int pebs_budget__calibrate_off(const struct pebs_event *ev,
					uint64_t sample_type,
					unsigned int run_ms, unsigned int rounds,
					double *off_ns);

/*
 * pebs_budget__set_off_cost - each event of channel @ch costs @off_ns
 * while the channel is disabled (pebs_budget__calibrate_off; 0 until
 * set): the off windows of a duty cycle are not free. The interval's
 * estimate then adds the disabled time's events at that cost (at the
 * density of the enabled windows), and the duty aims at
 *	d = (0.9 x budget - off) / (floor - off)
 * where off is what the channels cost always disabled. Returns 0,
 * -EINVAL (no such channel, negative cost).
 */
PEBS_API int pebs_budget__set_off_cost(struct pebs_budget *b,
				       unsigned int ch, double off_ns);

/*
 * pebs_budget__off_floor - what the channels cost while disabled at the
 * event rates of the last interval with samples (a fraction of the
 * sampled CPU time): no duty cycle goes under it; above the budget, the
 * budget cannot be met at all with these events open
 */
PEBS_API double pebs_budget__off_floor(const struct pebs_budget *b);

/*
 * pebs_budget__calibrate_switch - what @ev, open and enabled on a task,
 * costs that task per context switch (a switch out and back in: the
 * perf context's events scheduled out and in): the calling thread and a
 * thread of its own pinned to its CPU pass a byte through pipes, 200
 * round trips a run, bare and with @ev open on the calling thread,
 * interleaved, @rounds pairs (0: 21, at most 1024); *switch_ns the
 * median of the differences in the calling thread's CPU per round trip,
 * 0 when noise hides it. The thread's CPU affinity is restored. Returns
 * 0, -EINVAL, -errno (affinity, pipes, the thread) or the errors of
 * pebs_channel__open.
 */
PEBS_API int pebs_budget__calibrate_switch(const struct pebs_event *ev,
					   unsigned int rounds,
					   double *switch_ns);

/*
 * pebs_budget__set_switch_cost - each context switch of the sampled
 * tasks (pebs_budget_interval.switches) costs @switch_ns whether the
 * events are enabled or not (a recording's tracking event stays
 * enabled): the estimate, the floor and the off floor add it. Returns
 * 0, -EINVAL (no controller, negative cost).
 */
PEBS_API int pebs_budget__set_switch_cost(struct pebs_budget *b,
					  double switch_ns);

/*
 * The estimate over all the intervals fed (pebs_budget__totals): its
 * cost and the sampled CPU time it is a share of, and the part of both
 * up to the controller's first decision (the intervals until and with
 * the first one with samples or events, run at the starting periods).
 * The whole run's estimate is cost_ns / cpu_ns; the controlled part's
 * (cost_ns - first_cost_ns) / (cpu_ns - first_cpu_ns).
 */
struct pebs_budget_totals {
	double cost_ns;		/* estimated cost of sampling, CPU ns */
	uint64_t cpu_ns;	/* sampled CPU time */
	uint64_t elapsed_ns;	/* wall time */
	double first_cost_ns;	/* of it, before the first decision */
	uint64_t first_cpu_ns;
	uint64_t first_elapsed_ns;
	uint64_t intervals;	/* fed, the final one included */
	bool decided;		/* the controller has decided once */
};

/* pebs_budget__totals - the totals so far; NULL for a NULL controller */
PEBS_API const struct pebs_budget_totals *
pebs_budget__totals(const struct pebs_budget *b);

/*
 * pebs_budget__controlled - the controlled part's estimate, (cost_ns -
 * first_cost_ns) / (cpu_ns - first_cpu_ns), a share of its sampled CPU
 * time; -1 before the first decision, when no CPU time followed it, and
 * for a NULL controller
 */
PEBS_API double pebs_budget__controlled(const struct pebs_budget *b);

#ifdef __cplusplus
}
#endif

#endif /* PEBSSHIM_SAMPLING_H */
