// SPDX-License-Identifier: MIT
/*
 * test-event-probe - pebs_event__probe() against this host's kernel.
 *
 * What a host can open depends on its PMU, so each case first reads the
 * facts (sysfs cpu and ibs_op PMUs, cpu/caps/max_precise, the core PMU
 * libpfm4 detects) and asserts the outcome those facts imply. Observed on
 * the project's VM (kernel 6.18, virtualized AMD core PMU with
 * max_precise 0, no ibs_op, libpfm4 sees amd64_fam19h_zen3): loads ->
 * -ENOENT at parse; forced skl loads -> probe -EOPNOTSUPP; auto ->
 * cpu-clock. On a VM without any PMU the kernel answers ENOENT instead.
 * Forced-PMU cases run in a re-executed copy of this program, since
 * libpfm4 reads LIBPFM_FORCE_PMU once per process. Then perf's syntax
 * side by side with perf record (perf evlist -v of its file), and the
 * kernel samples cpu-clock brings when the kernel allows them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "pebsshim.h"
#include "helpers.h"
#include "core/internal.h"
#include "event/event-internal.h"

static bool has_cpu_pmu, has_ibs;
static int max_precise = -1;

static void host_facts(void)
{
	char path[256];
	FILE *f;

	has_cpu_pmu = event_sysfs_has("cpu", NULL);
	has_ibs = event_sysfs_has("ibs_op", NULL);
	snprintf(path, sizeof(path), "%s/cpu/caps/max_precise",
		 event_sysfs_root());
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &max_precise) != 1)
			max_precise = -1;
		fclose(f);
	}
}

static bool core_is_intel(void)
{
	const char *core = event_pfm_core_pmu(0);

	return core && strncmp(core, "amd", 3);
}

/* child mode: parse (and probe) one event with a forced PMU */
static int child(const char *str)
{
	struct pebs_event ev;
	int rc, probe = 1;

	rc = pebs_event__parse(str, &ev);
	if (!rc)
		probe = pebs_event__probe(&ev);
	printf("%d %d %#x\n%s\n%s\n", rc, probe, ev.flags, pebs_errmsg(),
	       ev.note);
	return 0;
}

struct forced {
	int rc, probe;
	unsigned int flags;
	char msg[512], note[200];
};

static void run_forced(const char *pmu, const char *str, struct forced *r)
{
	char cmd[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "LIBPFM_FORCE_PMU=%s /proc/%d/exe "
		 "--child '%s'", pmu, (int)getpid(), str);
	p = popen(cmd, "r");
	assert_non_null(p);
	memset(r, 0, sizeof(*r));
	/* line by line: the message may be empty */
	assert_non_null(fgets(cmd, sizeof(cmd), p));
	assert_int_equal(sscanf(cmd, "%d %d %x", &r->rc, &r->probe,
				&r->flags), 3);
	assert_non_null(fgets(r->msg, sizeof(r->msg), p));
	r->msg[strcspn(r->msg, "\n")] = '\0';
	if (!fgets(r->note, sizeof(r->note), p))
		r->note[0] = '\0';
	r->note[strcspn(r->note, "\n")] = '\0';
	assert_int_equal(pclose(p), 0);
	print_message("# %s %s: parse %d probe %d: %s [%s]\n", pmu, str,
		      r->rc, r->probe, r->msg, r->note);
}

static void test_software(void **state)
{
	static const char *const names[] = {
		"cpu-clock", "task-clock", "page-faults", "minor-faults",
		"major-faults", "context-switches", "cpu-migrations", "dummy",
		"cpu-clock:period=100000", "page-faults:u",
	};
	struct pebs_event ev;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		assert_int_equal(pebs_event__parse(names[i], &ev), 0);
		if (pebs_event__probe(&ev))
			fail_msg("%s: %s", names[i], pebs_errmsg());
		assert_string_equal(pebs_errmsg(), "");
	}
}

/* the kernel has no check on precise_ip for software PMUs (6.1, 6.18) */
static void test_precise_software(void **state)
{
	static const char *const names[] = {
		"cpu-clock:precise=1", "cpu-clock:precise=2",
		"task-clock:precise=3", "page-faults:precise=2",
	};
	struct pebs_event ev;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		assert_int_equal(pebs_event__parse(names[i], &ev), 0);
		assert_true(ev.attr.precise_ip > 0);
		if (pebs_event__probe(&ev))
			fail_msg("%s: %s", names[i], pebs_errmsg());
	}
}

static void test_loads_here(void **state)
{
	struct pebs_event ev;
	const char *core = event_pfm_core_pmu(0);

	(void)state;
	if (has_ibs || core_is_intel())
		skip();	/* a PEBS/IBS candidate: covered by test_auto */
	assert_int_equal(pebs_event__parse("loads", &ev), -ENOENT);
	print_message("# loads: %s\n", pebs_errmsg());
	if (core)
		assert_non_null(strstr(pebs_errmsg(), "this CPU/VM has no "
				       "ibs_op PMU (loads on"));
	else
		assert_non_null(strstr(pebs_errmsg(), "no PEBS or IBS load"));
	assert_non_null(strstr(pebs_errmsg(), "use -e auto"));
}

static void test_loads_forced_skl(void **state)
{
	struct forced r;

	(void)state;
	run_forced("skl", "loads", &r);
	assert_int_equal(r.rc, 0);
	if (!has_cpu_pmu) {
		/* no hardware PMU at all: the raw type is unknown */
		assert_int_equal(r.probe, -ENOENT);
		assert_string_equal(r.msg, "this CPU/VM has no skl PMU (loads): "
				    "use -e auto or a software event such as "
				    "cpu-clock");
	} else if (max_precise >= 0 && max_precise < 2) {
		/* a core PMU without PEBS (x86_pmu_max_precise) */
		assert_int_equal(r.probe, -EOPNOTSUPP);
		assert_string_equal(r.msg, "loads: precise_ip=2 not supported "
				    "here (Operation not supported): lower "
				    ":precise");
	} else {
		skip();	/* PEBS hardware: the answer depends on the model */
	}
}

static void test_auto(void **state)
{
	struct pebs_event ev;
	char want[200], full[300];
	struct forced r;

	(void)state;
	assert_int_equal(pebs_event__parse("auto", &ev), 0);
	print_message("# auto: %s [%s]\n", ev.resolved, ev.note);
	assert_string_equal(ev.name, "auto");
	assert_int_equal(pebs_event__probe(&ev), 0);
	if (!(ev.flags & PEBS_EVENT_FALLBACK)) {
		/* this host samples loads precisely */
		assert_true(ev.flags & PEBS_EVENT_PRECISE);
		assert_true(ev.flags & PEBS_EVENT_MEMORY);
		assert_non_null(strstr(ev.note, " loads ("));
		return;
	}
	assert_int_equal(ev.flags, PEBS_EVENT_SOFTWARE | PEBS_EVENT_FALLBACK);
	assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev.attr.config, PERF_COUNT_SW_CPU_CLOCK);
	if (!has_ibs && !core_is_intel()) {
		if (!has_cpu_pmu)
			snprintf(want, sizeof(want), "no hardware PMU: "
				 "virtualized?");
		else
			snprintf(want, sizeof(want), "the %s PMU has no IBS "
				 "(no ibs_op): virtualized?",
				 event_pfm_core_pmu(0));
		snprintf(full, sizeof(full), "auto: no PEBS/IBS here (%s); "
			 "sampling cpu-clock instead", want);
		assert_string_equal(ev.note, full);
	}

	/* the same host seen as a Skylake: PEBS encodes, the kernel says no */
	run_forced("skl", "auto", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.probe, 0);
	assert_int_equal(r.flags, PEBS_EVENT_SOFTWARE | PEBS_EVENT_FALLBACK);
	if (!has_cpu_pmu)
		assert_string_equal(r.note, "auto: no PEBS/IBS here (no "
				    "hardware PMU: virtualized?); sampling "
				    "cpu-clock instead");
	else if (max_precise >= 0 && max_precise < 2)
		assert_string_equal(r.note, "auto: no PEBS/IBS here (the "
				    "kernel refuses skl precise_ip=2: "
				    "virtualized?); sampling cpu-clock "
				    "instead");
}

static char fake[64];

/* a sysfs PMU whose type the kernel does not know: ENOENT from the open */
static void test_probe_unknown_pmu(void **state)
{
	struct pebs_event ev;
	char path[128];
	FILE *f;

	(void)state;
	snprintf(fake, sizeof(fake), "/tmp/pebs-ev-live-XXXXXX");
	assert_non_null(mkdtemp(fake));
	snprintf(path, sizeof(path), "%s/ghost", fake);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/ghost/type", fake);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("4000\n", f);	/* dynamic types are allocated from 6 up */
	fclose(f);

	event_sysfs_set_root(fake);
	/* :u, so that perf_event_paranoid lets anyone ask */
	assert_int_equal(pebs_event__parse("ghost//u", &ev), 0);
	event_sysfs_set_root(NULL);
	assert_int_equal(ev.attr.type, 4000);
	assert_int_equal(pebs_event__probe(&ev), -ENOENT);
	assert_string_equal(pebs_errmsg(), "this CPU/VM has no ghost PMU "
			    "(ghost//u): use -e auto or a software event such "
			    "as cpu-clock");
	assert_int_equal(t_rm_tree(fake), 0);
}

/* a real sysfs event through the sysfs encoder */
static void test_probe_msr(void **state)
{
	struct pebs_event ev;
	int rc;

	(void)state;
	/*
	 * Kept out of the kernel, msr/tsc/ gets exclude_kernel, which the
	 * msr PMU refuses (EINVAL), as perf's fallback does.
	 */
	if (!event_sysfs_has("msr", "events/tsc") ||
	    !event_priv_kernel_allowed())
		skip();
	assert_int_equal(pebs_event__parse("msr/tsc/", &ev), 0);
	assert_string_equal(ev.pmu, "msr");
	assert_int_equal(ev.flags, PEBS_EVENT_SYSFS);
	rc = pebs_event__probe(&ev);
	if (rc == -EACCES || rc == -EPERM)
		skip();	/* counts the kernel too: needs privileges */
	assert_int_equal(rc, 0);
	/* the msr PMU cannot filter by privilege (PERF_PMU_CAP_NO_EXCLUDE) */
	assert_int_equal(pebs_event__parse("msr/tsc/u", &ev), 0);
	assert_int_equal(pebs_event__probe(&ev), -EINVAL);
	assert_non_null(strstr(pebs_errmsg(), "the msr PMU refused"));
}

/* ---- side by side with perf record ------------------------------------ */

/* the value of " key: " in a perf evlist -v line, 0 when not shown */
static unsigned long long evlist_field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s: ", key);
	p = strstr(line, pat);
	return p ? strtoull(p + strlen(pat), NULL, 0) : 0;
}

/*
 * perf record -e STR -o FILE -- true; perf evlist -v -i FILE: one line
 * per event into @lines. Returns the number of lines, -1 if perf failed.
 */
static int perf_evlist(const char *str, char lines[][1024], int max)
{
	char cmd[512], file[] = "/tmp/pebs-evperf-XXXXXX";
	int fd, n = 0;
	FILE *p;

	fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "perf record -q --no-bpf-event -e '%s' "
		 "-o %s -- true >/dev/null 2>&1 && perf evlist -v -i %s "
		 "2>/dev/null", str, file, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n < max && fgets(lines[n], sizeof(lines[0]), p))
		if (strstr(lines[n], " type: ") && !strstr(lines[n], "# "))
			n++;
	if (pclose(p))
		n = -1;
	unlink(file);
	return n;
}

/*
 * What pebs_event__parse_list encodes is what perf 6.1 writes for the
 * same -e, field by field (type, config, exclude_*, precise_ip, and the
 * tracepoints' sample_period 1), for the events this host has.
 */
static void test_same_as_perf(void **state)
{
	static const char *const strs[] = {
		"cpu-clock", "cpu-clock:u", "cpu-clock:k", "cpu-clock:h",
		"cpu-clock:pp", "cpu-clock:ppp", "cpu-clock:P",
		"cpu-clock:ku", "cpu-clock:upp", "page-faults:uk", "task-clock",
		"faults", "cs", "context-switches", "cpu-migrations",
		"migrations", "minor-faults", "major-faults",
		"alignment-faults", "emulation-faults", "dummy",
		"sched:sched_switch", "sched:sched_switch:k",
		"sched:sched_wakeup:u", "cpu-clock,faults",
		"{cpu-clock,task-clock}:u", "{cpu-clock:k,faults}:u",
	};
	static const char *const keys[] = {
		"type", "config", "exclude_user", "exclude_kernel",
		"exclude_hv", "exclude_guest", "exclude_host", "precise_ip",
	};
	static char lines[4][1024];
	struct pebs_event evs[4];
	unsigned int nr, i, k, compared = 0;
	int n;

	(void)state;
	if (system("perf --version >/dev/null 2>&1"))
		skip();
	for (i = 0; i < ARRAY_SIZE(strs); i++) {
		n = perf_evlist(strs[i], lines, 4);
		if (n < 0) {
			print_message("# perf cannot record %s here\n",
				      strs[i]);
			continue;
		}
		nr = 0;
		if (pebs_event__parse_list(strs[i], evs, 4, &nr))
			fail_msg("%s: %s", strs[i], pebs_errmsg());
		assert_int_equal(nr, n);
		for (k = 0; k < nr; k++) {
			const struct perf_event_attr *a = &evs[k].attr;
			const unsigned long long ours[] = {
				a->type, a->config, a->exclude_user,
				a->exclude_kernel, a->exclude_hv,
				a->exclude_guest, a->exclude_host,
				a->precise_ip,
			};
			size_t f;

			print_message("# %s [%u] perf: %s", strs[i], k,
				      lines[k]);
			for (f = 0; f < ARRAY_SIZE(keys); f++)
				if (evlist_field(lines[k], keys[f]) != ours[f])
					fail_msg("%s [%u]: %s perf %llu, ours "
						 "%llu", strs[i], k, keys[f],
						 evlist_field(lines[k],
							      keys[f]),
						 ours[f]);
			if (a->type == PERF_TYPE_TRACEPOINT) {
				assert_int_equal(a->sample_period, 1);
				assert_non_null(strstr(lines[k], "|RAW"));
			}
			compared++;
		}
	}
	print_message("# %u events compared with perf\n", compared);
	assert_true(compared > 0);
}

/* ---- kernel samples ------------------------------------------------------ */

/*
 * cpu-clock as root, perf_event_paranoid allowing it: nothing excluded,
 * and dd copying /dev/zero to /dev/null (kernel work) yields samples in
 * the kernel's half of the address space.
 */
static void test_kernel_samples(void **state)
{
	PEBS_OPTS(pebs_channel_opts, o, .period = 100000,
		  .enable_on_exec = true);
	const struct perf_event_header *rec;
	struct pebs_channel *ch = NULL;
	struct pebs_event ev;
	struct pebs_sample s;
	unsigned long kernel = 0, user = 0;
	int go[2], status, r, done = 0;
	pid_t pid;

	(void)state;
	if (!event_priv_kernel_allowed())
		skip();		/* the kernel is refused: nothing to see */
	assert_int_equal(pebs_event__parse("cpu-clock", &ev), 0);
	assert_int_equal(ev.attr.exclude_kernel, 0);
	assert_int_equal(ev.attr.exclude_user, 0);
	assert_string_equal(ev.note, "");

	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		execlp("dd", "dd", "if=/dev/zero", "of=/dev/null",
		       "count=200000", "status=none", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	assert_int_equal(pebs_channel__open(&ev, pid, -1, &o, &ch), 0);
	assert_int_equal(pebs_channel__attr(ch)->exclude_kernel, 0);
	assert_int_equal(write(go[1], "x", 1), 1);
	close(go[1]);
	while (!done) {
		done = waitpid(pid, &status, WNOHANG) == pid;
		if (!done)
			usleep(10000);
		if (pebs_ring__read_init(pebs_channel__ring(ch)))
			continue;
		while ((r = pebs_ring__next(pebs_channel__ring(ch), &rec)) >
		       0) {
			if (rec->type != PERF_RECORD_SAMPLE)
				continue;
			assert_int_equal(pebs_sample__decode(
					 pebs_channel__layout(ch), rec, &s), 0);
			if (s.ip >= KERNEL_START)
				kernel++;
			else
				user++;
		}
		assert_int_equal(r, 0);
		pebs_ring__consume(pebs_channel__ring(ch));
	}
	pebs_channel__close(ch);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	print_message("# dd: %lu kernel samples, %lu user samples\n", kernel,
		      user);
	assert_true(kernel > 0);
	assert_true(kernel > user);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software),
		cmocka_unit_test(test_precise_software),
		cmocka_unit_test(test_loads_here),
		cmocka_unit_test(test_loads_forced_skl),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_probe_unknown_pmu),
		cmocka_unit_test(test_probe_msr),
		cmocka_unit_test(test_same_as_perf),
		cmocka_unit_test(test_kernel_samples),
	};

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(argv[2]);
	host_facts();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
