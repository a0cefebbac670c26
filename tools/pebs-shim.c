// SPDX-License-Identifier: MIT
/* pebs-shim.c - command dispatch, --version and help COMMAND. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "record", cmd_record, "sample a command, processes or CPUs into a file" },
	{ "report", cmd_report, "summarize a recording (threads, symbols, memory)" },
	{ "script", cmd_script, "one line per sample, as perf script (text, csv, jsonl)" },
	{ "mem", cmd_mem, "memory loads and stores: mem record and mem report, as perf mem" },
	{ "c2c", cmd_c2c, "cache-line sharing: c2c record and c2c report, as perf c2c" },
	{ "export", cmd_export, "a recording as pprof profiles (go tool pprof, Pyroscope, Parca)" },
	{ "plot", cmd_plot, "pictures: flame graph, per-CPU timeline, data heat map (SVG)" },
	{ "observe", cmd_observe, "Shim-style observer: poll the table and counters" },
	{ "map", cmd_map, "print the /dev/pebs_map table and switch history" },
	{ "test", cmd_test, "self-test: what this machine can do, pass/fail/skip per check" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pebs-shim <command> [options] (pebs-shim <command> --help)\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nSee pebs-shim(1), or pebs-shim help COMMAND.\n");
}

/* `man -w PAGE` succeeds: the page is installed where man looks */
static int have_page(const char *page)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(127);
		execlp("man", "man", "-w", page, (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* help COMMAND, as perf help: its man page, else its --help */
static int help(const char *name)
{
	char page[64];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(name, cmds[i].name))
			continue;
		snprintf(page, sizeof(page), "pebs-shim-%s", name);
		if (have_page(page)) {
			fflush(stdout);
			execlp("man", "man", page, (char *)NULL);
		}
		fprintf(stderr, "pebs-shim: no manual page %s(1) here (install "
			"man-db and pebs-shim's pages: make install); its "
			"--help follows\n", page);
		char *argv[] = { (char *)name, "--help", NULL };
		return cmds[i].fn(2, argv);
	}
	fprintf(stderr, "pebs-shim: no command '%s' to help with: try "
		"pebs-shim --help\n", name);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("pebs-shim %s\n", PEBS_SHIM_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return help(argv[2]);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pebs-shim: unknown command '%s': try pebs-shim --help\n",
		argv[1]);
	return 2;
}
