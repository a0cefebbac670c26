/* SPDX-License-Identifier: MIT */
/*
 * event-internal.h - what the files of lib/event/ share (and the unit
 * tests of the sysfs and libpfm4 encoders); not installed.
 */
#ifndef PEBSSHIM_EVENT_INTERNAL_H
#define PEBSSHIM_EVENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pebsshim/event.h"

/*
 * Modifiers (lib/event/event-mods.c). event_mods_parse - parse @mods ("" or
 * ":upp:period=N"; the leading ':' is optional) of the event spelled
 * @str (for messages): perf's letters u k h G H I p P, period=N, freq=N,
 * and with @allow precise=N (PEBS_MOD_PRECISE) and ldlat=N
 * (PEBS_MOD_LDLAT). event_mods_apply - apply them to @ev->attr as perf
 * does (@from_attr: a group's modifiers over what the member has).
 * event_mods_is_letters - whether @s is only perf modifier letters.
 * event_mods_letters - the u/k/h/p letters that describe @attr.
 */
#define PEBS_MOD_PRECISE	(1u << 0)
#define PEBS_MOD_LDLAT		(1u << 1)

struct pebs_mods {
	char letters[16];	/* perf's letters in the order given (at
				   most 15, as perf's lexer) */
	size_t nletters;
	int precise;		/* precise=N, -1: not given */
	long ldlat;		/* ldlat=N, -1: not given */
	uint64_t period;	/* period=N or freq=N, 0: not given */
	bool freq;
};

int event_mods_parse(const char *str, const char *mods, unsigned int allow,
		     struct pebs_mods *m);
int event_mods_apply(const char *str, const struct pebs_mods *m,
		     struct pebs_event *ev, bool from_attr);
bool event_mods_is_letters(const char *s);
void event_mods_letters(const struct perf_event_attr *attr, char *out,
			size_t len);

/*
 * Privilege (lib/event/event-mods.c). event_priv_kernel_allowed - whether the
 * kernel lets this process sample the kernel: CAP_SYS_ADMIN, CAP_PERFMON
 * or perf_event_paranoid <= 1 (event_priv_kernel_allowed_by, the rule
 * alone). event_priv_paranoid - the sysctl's value, INT_MAX if
 * unreadable. event_priv_fallback - exclude kernel and hv when no level
 * was chosen and the kernel is not allowed, saying so in ev->note.
 * Tests: event_priv_set_paranoid_file (NULL: /proc/sys/kernel/...),
 * event_priv_override (1 allowed, 0 not, -1 ask the system).
 */
bool event_priv_kernel_allowed(void);
bool event_priv_kernel_allowed_by(int paranoid, bool cap_admin,
				  bool cap_perfmon);
int event_priv_paranoid(void);
void event_priv_fallback(struct pebs_event *ev);
void event_priv_set_paranoid_file(const char *path);
void event_priv_override(int kernel_allowed);

/*
 * perf's open-time retries (lib/event/event-mods.c). event_open_try_init -
 * remember @attr as asked (@precise_max: :P; @weight_fallback: WEIGHT
 * may stand in for WEIGHT_STRUCT). event_open_try_next - after an open
 * of @attr failed with @err (errno or -errno), change @attr for the
 * next attempt as perf does (precise_ip walk, then on EINVAL the
 * missing features) and return true; false: give up with @err. At most
 * 4 x 4 attempts.
 */
struct pebs_open_try {
	bool precise_max, weight, exclude_guest, exclude_host;
	unsigned int precise, step;
	uint64_t sample_type, read_format;
};
void event_open_try_init(struct pebs_open_try *t,
			 const struct perf_event_attr *attr, bool precise_max,
			 bool weight_fallback);
bool event_open_try_next(struct pebs_open_try *t,
			 struct perf_event_attr *attr, int err);

/*
 * perf's generic events (lib/event/event-perf.c). event_generic_find - if
 * @name (@len bytes) is a perf hardware, software or hw-cache name
 * (cycles, cpu-clock, cs, L1-dcache-load-misses, ...) or raw rNNNN,
 * set @ev's type, config, pmu, flags and ev->resolved (the canonical
 * name) and return 0; else -ENOENT without a message.
 * event_generic_name - the i-th name (canonical names and aliases), NULL
 * past the last: suggestion candidates.
 */
int event_generic_find(const char *name, size_t len, struct pebs_event *ev);
const char *event_generic_name(unsigned int i);

/*
 * event_attr_name - perf's name of @a when the file names none (perf's
 * evsel__name: a killed perf record leaves no EVENT_DESC): a hardware,
 * software or hw-cache event's canonical name, "raw 0xNNN", with perf's
 * modifiers (evsel__add_modifiers: "cpu-clock:u" is "cpu-clock:uH");
 * 0, or -ENOENT for other types (tracepoints, dynamic PMUs).
 */
int event_attr_name(const struct perf_event_attr *a, char *out, size_t len);

/*
 * Tracepoints (lib/event/event-perf.c). event_tp_find - if @str's first @len
 * bytes are sys:name and <tracefs>/events/sys/name/id exists, encode it
 * (PERF_TYPE_TRACEPOINT, config = id, sample_period 1, sample_type RAW)
 * and return 0; 1 (not a tracepoint: try other spellings) when @str is
 * not sys:name or sys is no tracepoint system; -ENOENT with close names
 * when sys is one but name is not in it; -errno if id is unreadable. The tracefs is /sys/kernel/tracing, else /sys/kernel/debug/tracing,
 * unless event_tp_set_root() names another (tests; NULL restores).
 */
int event_tp_find(const char *str, size_t len, struct pebs_event *ev);
/* whether a tracefs events directory is there and readable */
bool event_tp_available(void);
/* the tracefs directory: event_tp_set_root's, else the first readable */
const char *event_tp_root(void);
void event_tp_set_root(const char *root);

/*
 * Close names (lib/event/event-pfm.c): up to five known names nearest to
 * what was typed (case-insensitive edit distance, or a prefix).
 * event_pfm_close_consider copies @name. event_suggest - "a, b or c"
 * over the aliases, perf's generic names, libpfm4's events of the
 * present PMUs and the sysfs PMU names; "" when nothing is close.
 */
#define PEBS_CLOSE_NR		5
#define PEBS_CLOSE_NAME_MAX	64

struct pebs_close {
	const char *q;
	size_t qlen;
	char name[PEBS_CLOSE_NR][PEBS_CLOSE_NAME_MAX];
	int score[PEBS_CLOSE_NR];
	unsigned int n;
};

void event_pfm_close_init(struct pebs_close *c, const char *q, size_t qlen);
void event_pfm_close_consider(struct pebs_close *c, const char *name);
void event_pfm_close_format(const struct pebs_close *c, char *out, size_t len);
void event_suggest(const char *q, size_t qlen, char *out, size_t len);
/* the same over the sysfs PMU names only */
void event_pmu_suggest(const char *q, size_t qlen, char *out, size_t len);
/* libpfm4's events of the present PMUs */
void event_pfm_consider_all(struct pebs_close *c);

/*
 * One event of a list (lib/event/event.c): pebs_event__parse with @defer_priv
 * leaving the kernel/hv exclusion to the caller (groups apply their
 * modifiers first, then event_priv_fallback). event_sysfs_encode_priv is
 * event_sysfs_encode with the same choice.
 */
int event_parse_one(const char *str, struct pebs_event *ev,
		    bool defer_priv);
/* event_finalize - the deferred part: privilege fallback, the
 * modifiers in ev->resolved of perf names, PEBS_EVENT_PRECISE */
void event_finalize(struct pebs_event *ev);
int event_sysfs_encode_priv(const char *str, struct pebs_event *ev,
			    bool defer_priv);

/*
 * Events: sysfs PMUs (lib/event/event-sysfs.c).
 * event_sysfs_root - where PMUs are listed, /sys/bus/event_source/devices
 * unless event_sysfs_set_root() pointed it elsewhere (tests build a fake
 * tree; NULL restores the default; not thread-safe, set it before use),
 * or the environment's PEBS_TEST_SYSFS_ROOT (the command-line tests').
 * event_sysfs_has - whether <root>/<pmu>[/<file>] exists (file may be NULL).
 * event_sysfs_encode - encode "pmu/term=val,.../mods" into @ev (see
 * pebs_event__parse); returns 0, -ENOENT (no such PMU) or -EINVAL.
 */
const char *event_sysfs_root(void);
void event_sysfs_set_root(const char *root);
bool event_sysfs_has(const char *pmu, const char *file);
int event_sysfs_encode(const char *str, struct pebs_event *ev);

/*
 * Events: libpfm4 (lib/event/event-pfm.c), initialized once per process on
 * first use. event_pfm_core_pmu - short name of the i-th core PMU libpfm4
 * detected (or was forced to), NULL past the last. event_pfm_try - encode
 * quietly, returning the libpfm4 error code. event_pfm_encode - encode
 * with messages: -ENOENT (unknown, close names listed), -EINVAL (bad
 * modifier named), -ENODEV (libpfm4 failed to initialize).
 * event_builtin_name (lib/event/event.c) - aliases and software names,
 * "" for a gap, NULL at the end: suggestion candidates.
 */
const char *event_pfm_core_pmu(unsigned int i);
int event_pfm_try(const char *str, struct pebs_event *ev);
int event_pfm_encode(const char *str, struct pebs_event *ev);
const char *event_builtin_name(unsigned int i);

#endif /* PEBSSHIM_EVENT_INTERNAL_H */
