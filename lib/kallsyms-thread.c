// SPDX-License-Identifier: MIT
/*
 * kallsyms-thread.c - /proc/kallsyms read on a thread of its own
 * (pebs_dso_load_kallsyms into a private dso), so that a session scans
 * its file meanwhile (lib/session.c, lib/symbols.c): the kernel formats
 * some 200 000 lines for it, tens of milliseconds. The loaded symbols
 * are then moved into the caller's kernel dso, as a load in place
 * would have left it. kallsyms_probe tells, from the first lines, whether
 * such a load would find symbols, for a session that reads them only at
 * the first kernel address (syms_kernel_defer).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dso.h"
#include "internal.h"
#include "session.h"

struct kload {
	pthread_t thread;
	struct dso d;
	int ret;
	char msg[256];		/* the thread's pebs_errmsg() */
};

static void *run(void *arg)
{
	struct kload *k = arg;

	k->ret = pebs_dso_load_kallsyms(&k->d);
	if (k->ret < 0)
		snprintf(k->msg, sizeof(k->msg), "%s", pebs_errmsg());
	return NULL;
}

struct kload *kload_start(void)
{
	struct kload *k = calloc(1, sizeof(*k));

	if (k && pthread_create(&k->thread, NULL, run, k)) {
		free(k);
		return NULL;
	}
	return k;
}

void kload_cancel(struct kload *k)
{
	if (!k)
		return;
	pthread_join(k->thread, NULL);
	pebs_dso_free(&k->d);
	free(k);
}

int kload_finish(struct kload *k, struct dso *kernel)
{
	int ret;

	pthread_join(k->thread, NULL);
	ret = k->ret;
	if (ret < 0) {
		ret = pebs_err(ret, "%s", k->msg);
		pebs_dso_free(&k->d);
		free(k);
		return ret;
	}
	free(kernel->syms);
	free(kernel->names);
	free(kernel->path);
	kernel->syms = k->d.syms;
	kernel->nr_syms = k->d.nr_syms;
	kernel->names = k->d.names;
	kernel->path = k->d.path;
	free(k);
	return kernel->path ? ret :
	       pebs_err(-ENOMEM, "symbols: out of memory");
}

int kallsyms_probe(void)
{
	unsigned long long addr;
	char line[512], type;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return pebs_err(-errno, "cannot read /proc/kallsyms: %s",
				strerror(errno));
	/* hidden addresses read 0, all of them */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c", &addr, &type) == 2 && addr &&
		    type && strchr("tTwW", type)) {
			fclose(f);
			return 1;
		}
	fclose(f);
	return pebs_err(-EACCES, "/proc/kallsyms shows no addresses: "
			"run as root or lower kernel.kptr_restrict");
}
