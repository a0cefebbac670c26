// SPDX-License-Identifier: MIT
/*
 * obs-alternate.c - guest check of the observer's residency figures.
 *
 * Two threads pinned to CPU 0 alternate: A runs (spins) 7 units then
 * hands over to B, which runs 3 units and hands back (a unit is 1 ms,
 * or --unit-ms), so CPU 0 gives A about 70 % and B about 30 % of its
 * time (less exactly under TCG: the truth is measured, not assumed). Meanwhile `pebs-shim observe -C 0
 * --on 1` watches CPU 0 through /dev/pebs_map. The ground truth is the
 * first field of /proc/<tid>/schedstat (ns on a CPU) read around the
 * observer's run, over the wall time of the same window. The observer's
 * share for each thread must be within --max-diff percentage points
 * (default 3) of the truth.
 *
 * Usage: obs-alternate [--duration S] [--tolerance PCT] [--max-diff PP]
 *                      [--unit-ms MS]
 * Prints the observer's output, then one verdict line:
 *   PEBS-VM PASS 50-observe A obs=..% truth=..% B obs=..% truth=..% ...
 *   PEBS-VM FAIL 50-observe <reason>
 * The module must be loaded (pebs-map-load) and pebs-shim on PATH.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NAME "50-observe"
#define BIN "/tmp/obs.bin"

/* the layout pebs-shim observe --help documents */
struct file_header {
	char magic[8];
	uint32_t version, header_size, record_size, nr_events, nr_cpus;
	int32_t observer_cpu;
	uint64_t tsc_hz, period_cycles;
	uint32_t lo_ppm, hi_ppm;
	uint64_t reserved;
};

struct record {
	uint64_t tsc, dt;
	uint32_t cpu;
	int32_t tgid, pid;
	uint32_t switches;
};

/*
 * Read the binary output back: its header, its records (all for CPU 0,
 * the threads seen), and how much of the time between consecutive kept
 * observations lies in gaps over 100 us (the observer's vCPU not
 * running: under TCG on a busy host, most of it).
 */
static int check_bin(int tid_a, int tid_b)
{
	struct file_header h;
	struct record r, p = { 0 };
	double tot = 0, gaps = 0;
	uint64_t n = 0, na = 0, nb = 0;
	FILE *f = fopen(BIN, "rb");

	if (!f || fread(&h, sizeof(h), 1, f) != 1) {
		printf("PEBS-VM FAIL " NAME " cannot read %s\n", BIN);
		return -1;
	}
	if (memcmp(h.magic, "PEBSOBS", 8) || h.version != 1 ||
	    h.header_size != 64 + 64 * h.nr_events ||
	    h.record_size != 32 + 8 * h.nr_events || h.nr_cpus != 1 ||
	    h.observer_cpu != 1 || !h.tsc_hz) {
		printf("PEBS-VM FAIL " NAME " bad header in %s\n", BIN);
		return -1;
	}
	fseek(f, h.header_size, SEEK_SET);
	while (fread(&r, sizeof(r), 1, f) == 1) {
		if (h.nr_events)
			fseek(f, 8 * h.nr_events, SEEK_CUR);
		if (r.cpu != 0) {
			printf("PEBS-VM FAIL " NAME " record for CPU %u\n", r.cpu);
			return -1;
		}
		na += r.pid == tid_a;
		nb += r.pid == tid_b;
		if (n++ && r.tsc - p.tsc == r.dt) {
			tot += r.dt;
			if (r.dt > h.tsc_hz / 10000)
				gaps += r.dt;
		}
		p = r;
	}
	fclose(f);
	if (!na || !nb) {
		printf("PEBS-VM FAIL " NAME " %s: no record of A or B\n", BIN);
		return -1;
	}
	printf("binary output: %llu records (A %llu, B %llu); %.1f %% of the time between consecutive kept observations in gaps > 100 us\n",
	       (unsigned long long)n, (unsigned long long)na,
	       (unsigned long long)nb, tot ? 100 * gaps / tot : 0.0);
	return 0;
}

static sem_t go_a, go_b;
static atomic_int tid_a, tid_b;
static uint64_t slice_a_ns = 7000000, slice_b_ns = 3000000;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("PEBS-VM FAIL " NAME " cannot pin to CPU %d: %s\n", cpu,
		       strerror(errno));
		exit(1);
	}
}

static void spin_ns(uint64_t ns)
{
	uint64_t t0 = now_ns();

	while (now_ns() - t0 < ns)
		;
}

static void *thread_a(void *arg)
{
	(void)arg;
	pin(0);
	atomic_store(&tid_a, gettid());
	for (;;) {
		sem_wait(&go_a);
		spin_ns(slice_a_ns);
		sem_post(&go_b);
	}
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	pin(0);
	atomic_store(&tid_b, gettid());
	for (;;) {
		sem_wait(&go_b);
		spin_ns(slice_b_ns);
		sem_post(&go_a);
	}
	return NULL;
}

static int64_t schedstat_ns(int tid)
{
	char path[64];
	long long ns;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &ns) != 1)
		ns = -1;
	fclose(f);
	return ns;
}

/* run pebs-shim observe, collecting its stdout+stderr into buf */
static int run_observer(const char *duration, const char *tol, char *buf,
			size_t len)
{
	int pfd[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execlp("pebs-shim", "pebs-shim", "observe", "-C", "0", "--on",
		       "1", "--duration", duration, "--tolerance", tol,
		       "--raw", BIN, (char *)NULL);
		perror("exec pebs-shim");
		_exit(127);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], buf + n, len - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* the kept-interval share and the all-interval share of @tid on CPU 0 */
static bool find_share(const char *out, int tid, double *share, double *all)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		int cpu, t, tgid;
		double s, a;

		if (sscanf(l, " cpu %d tid %d tgid %d: %lf %% (all %lf", &cpu, &t,
			   &tgid, &s, &a) == 5 && cpu == 0 && t == tid) {
			*share = s;
			*all = a;
			return true;
		}
	}
	return false;
}

int main(int argc, char **argv)
{
	const char *duration = "3", *tol = "1";
	static char out[1 << 16];
	double max_diff = 3, obs_a, obs_b, all_a, all_b, truth_a, truth_b;
	double trust = -1;
	int64_t a0, b0, a1, b1;
	uint64_t t0, t1;
	pthread_t ta, tb;
	const char *l;
	int rc;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--duration"))
			duration = argv[i + 1];
		else if (!strcmp(argv[i], "--tolerance"))
			tol = argv[i + 1];
		else if (!strcmp(argv[i], "--max-diff"))
			max_diff = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--unit-ms")) {
			/* A runs 7 units, B 3 */
			slice_a_ns = 7 * atof(argv[i + 1]) * 1e6;
			slice_b_ns = 3 * atof(argv[i + 1]) * 1e6;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("PEBS-VM FAIL " NAME " needs 2 CPUs (qemu -smp 2)\n");
		return 1;
	}
	pin(1);
	sem_init(&go_a, 0, 1);
	sem_init(&go_b, 0, 0);
	if (pthread_create(&ta, NULL, thread_a, NULL) ||
	    pthread_create(&tb, NULL, thread_b, NULL)) {
		printf("PEBS-VM FAIL " NAME " cannot create threads\n");
		return 1;
	}
	/* settle: both threads pinned and alternating */
	while (!atomic_load(&tid_a) || !atomic_load(&tid_b))
		usleep(1000);
	usleep(200000);

	a0 = schedstat_ns(tid_a);
	b0 = schedstat_ns(tid_b);
	t0 = now_ns();
	rc = run_observer(duration, tol, out, sizeof(out));
	t1 = now_ns();
	a1 = schedstat_ns(tid_a);
	b1 = schedstat_ns(tid_b);

	/* the observer's report, for the log */
	fputs(out, stdout);
	printf("threads: A tid %d (%.0f ms slices), B tid %d (%.0f ms slices); window %.3f s\n",
	       tid_a, slice_a_ns / 1e6, tid_b, slice_b_ns / 1e6,
	       (t1 - t0) / 1e9);
	if (rc) {
		printf("PEBS-VM FAIL " NAME " pebs-shim observe exited %d\n", rc);
		return 1;
	}
	if (a0 < 0 || a1 < 0 || b0 < 0 || b1 < 0) {
		printf("PEBS-VM FAIL " NAME " no /proc/<tid>/schedstat (CONFIG_SCHED_INFO)\n");
		return 1;
	}
	if (check_bin(tid_a, tid_b))
		return 1;
	truth_a = 100.0 * (a1 - a0) / (t1 - t0);
	truth_b = 100.0 * (b1 - b0) / (t1 - t0);
	l = strstr(out, "trustable: ");
	if (l) {
		l = strchr(l, '(');
		if (l)
			trust = atof(l + 1);
	}
	if (!find_share(out, tid_a, &obs_a, &all_a) ||
	    !find_share(out, tid_b, &obs_b, &all_b)) {
		printf("PEBS-VM FAIL " NAME " the observer did not report both threads (A %d, B %d) on CPU 0; truth A %.1f%% B %.1f%%\n",
		       tid_a, tid_b, truth_a, truth_b);
		return 1;
	}
	printf("PEBS-VM %s " NAME " A obs=%.1f%% truth=%.1f%% B obs=%.1f%% truth=%.1f%% (unfiltered A %.1f%% B %.1f%%) trustable=%.1f%% tolerance=%s%% max-diff=%.0fpp\n",
	       obs_a - truth_a <= max_diff && truth_a - obs_a <= max_diff &&
	       obs_b - truth_b <= max_diff && truth_b - obs_b <= max_diff ?
	       "PASS" : "FAIL", obs_a, truth_a, obs_b, truth_b, all_a, all_b,
	       trust, tol, max_diff);
	return 0;
}
