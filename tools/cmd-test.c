// SPDX-License-Identifier: MIT
/*
 * cmd-test.c - pebs-shim test: run the self-test's checks (lib/selftest)
 * and print each one's outcome, optionally as JSON and Markdown too.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "pebsshim.h"
#include "util.h"

static const char usage_text[] =
"usage: pebs-shim test [--list] [-v] [-q] [--json FILE] [--markdown FILE]\n"
"                      [NAME|NUMBER...]\n"
"       pebs-shim test --workload NAME\n"
"\n"
"Check what this machine can do: each check runs a built-in workload\n"
"whose answer is known and ends pass, fail (with the figures that\n"
"failed) or skip (with the reason). Hardware checks skip where the\n"
"machine lacks the feature. Run it first; attach --markdown's file to\n"
"bug reports.\n"
"\n"
"  -l, --list           list the checks (number, name, kind, what it\n"
"                       proves) and exit\n"
"  -v, --verbose        also print each check's figures (the machine's\n"
"                       description with the first)\n"
"  -j, --json FILE      write the results as JSON to FILE (0600)\n"
"  -m, --markdown FILE  write the results as Markdown to FILE (0600)\n"
"  -q, --quick          fewer rounds where a check repeats (overhead: 2\n"
"                       instead of 5)\n"
"  -w, --workload NAME  run a known workload and print its layout and\n"
"                       timing (run it under perf yourself): touch,\n"
"                       chase-small, chase-large, store, false-share,\n"
"                       true-share, budget, objects\n"
"  -h, --help           this text\n"
"\n"
"Exit status: 0 nothing failed, 1 a check failed, 2 it could not run\n"
"(usage error, an output file could not be written).\n";

static const char *const status_name[] = { "pass", "fail", "skip" };

/* @path opened for writing, created 0600 (the figures hold addresses) */
static FILE *open_out(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *f;

	if (fd < 0) {
		tool_err("test", "cannot create %s: %s: choose a writable path",
			 path, strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

/* "key=value" lines as a JSON object's members */
static void json_details(FILE *f, const char *d)
{
	const char *sep = "";

	fputs("{", f);
	while (*d) {
		const char *nl = strchr(d, '\n'), *eq;
		size_t len = nl ? (size_t)(nl - d) : strlen(d);
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, d);
		eq = strchr(line, '=');
		if (eq) {
			line[eq - line] = 0;
			fputs(sep, f);
			pebs_json__str(f, line);
			fputs(": ", f);
			pebs_json__str(f, line + (eq - line) + 1);
			sep = ", ";
		}
		d += len + (nl != NULL);
	}
	fputs("}", f);
}

/* a Markdown table cell: | and line breaks would break the row */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
}

static void list(void)
{
	unsigned int i;

	for (i = 1; i <= pebs_selftest__nr(); i++)
		printf("%2u  %-18s %-8s %s\n", i, pebs_selftest__name(i),
		       pebs_selftest__hardware(i) ? "hardware" : "software",
		       pebs_selftest__about(i));
}

int cmd_test(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", required_argument, NULL, 'j' },
		{ "markdown", required_argument, NULL, 'm' },
		{ "quick", no_argument, NULL, 'q' },
		{ "workload", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *json = NULL, *md = NULL, *workload = NULL;
	PEBS_OPTS(pebs_selftest_opts, o);
	char self[4096];
	ssize_t self_len;
	struct pebs_selftest_result *res;
	unsigned int *which, nwhich = 0, i, count[3] = { 0 };
	bool verbose = false, do_list = false;
	FILE *jf = NULL, *mf = NULL;
	int c, rc = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":lvj:m:qw:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': do_list = true; break;
		case 'v': verbose = true; break;
		case 'j': json = optarg; break;
		case 'm': md = optarg; break;
		case 'q': o.quick = true; break;
		case 'w': workload = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		case ':':
			return tool_usage_err("test", "option '%s' needs a value",
					      argv[optind - 1]);
		default:
			return tool_usage_err("test", "unknown option '%s'",
					      argv[optind - 1]);
		}
	}
	if (do_list) {
		list();
		return 0;
	}
	if (workload) {
		if (!pebs_selftest__workload(workload, stdout))
			return 0;
		tool_err("test", "%s", pebs_errmsg());
		return 2;
	}
	/* the checks run this very command's record, report and workloads */
	self_len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (self_len > 0) {
		self[self_len] = 0;
		o.tool = self;
	}
	which = calloc(pebs_selftest__nr() + (unsigned int)argc, sizeof(*which));
	res = calloc(pebs_selftest__nr() + (unsigned int)argc, sizeof(*res));
	if (!which || !res) {
		tool_err("test", "out of memory");
		rc = 2;
		goto out;
	}
	for (; optind < argc; optind++) {
		unsigned int n = pebs_selftest__find(argv[optind]);

		if (!n) {
			rc = tool_usage_err("test", "no check '%s' (pebs-shim "
					    "test --list names them)",
					    argv[optind]);
			goto out;
		}
		which[nwhich++] = n;
	}
	if (!nwhich)
		for (i = 1; i <= pebs_selftest__nr(); i++)
			which[nwhich++] = i;
	if ((json && !(jf = open_out(json))) || (md && !(mf = open_out(md)))) {
		rc = 2;
		goto out;
	}
	for (i = 0; i < nwhich; i++) {
		struct pebs_selftest_result *r = &res[i];
		unsigned int n = which[i];

		r->sz = sizeof(*r);
		printf("%2u: %-44s:", n, pebs_selftest__about(n));
		fflush(stdout);
		if (pebs_selftest__run_opts(n, &o, r)) {
			tool_err("test", "%s", pebs_errmsg());
			rc = 2;
			goto out;
		}
		count[r->status]++;
		printf(" %s (%s)\n", status_name[r->status], r->message);
		if (verbose && r->details[0]) {
			const char *d = r->details;

			while (*d) {
				size_t len = strcspn(d, "\n");

				printf("      %.*s\n", (int)len, d);
				d += len + (d[len] == '\n');
			}
		}
	}
	printf("%u passed, %u failed, %u skipped\n", count[0], count[1],
	       count[2]);
	if (jf) {
		fprintf(jf, "{\"tool\": \"pebs-shim test\", \"version\": ");
		pebs_json__str(jf, PEBS_SHIM_VERSION);
		fprintf(jf, ", \"passed\": %u, \"failed\": %u, \"skipped\": %u,"
			"\n \"checks\": [", count[0], count[1], count[2]);
		for (i = 0; i < nwhich; i++) {
			fprintf(jf, "%s\n  {\"number\": %u, \"name\": ",
				i ? "," : "", which[i]);
			pebs_json__str(jf, pebs_selftest__name(which[i]));
			fprintf(jf, ", \"kind\": \"%s\", \"status\": \"%s\", "
				"\"seconds\": %.3f, \"message\": ",
				pebs_selftest__hardware(which[i]) ? "hardware" :
				"software", status_name[res[i].status],
				res[i].seconds);
			pebs_json__str(jf, res[i].message);
			fputs(", \"details\": ", jf);
			json_details(jf, res[i].details);
			fputs("}", jf);
		}
		fputs("\n ]}\n", jf);
	}
	if (mf) {
		fprintf(mf, "# pebs-shim test (%s)\n\n%u passed, %u failed, %u "
			"skipped\n\n| # | check | kind | result | figures or "
			"reason |\n|---|---|---|---|---|\n", PEBS_SHIM_VERSION,
			count[0], count[1], count[2]);
		for (i = 0; i < nwhich; i++) {
			fprintf(mf, "| %u | %s | %s | %s | ", which[i],
				pebs_selftest__name(which[i]),
				pebs_selftest__hardware(which[i]) ? "hardware" :
				"software", status_name[res[i].status]);
			md_cell(mf, res[i].message);
			fputs(" |\n", mf);
		}
		for (i = 0; i < nwhich; i++) {
			if (!res[i].details[0])
				continue;
			fprintf(mf, "\n## %s\n\n```\n%s```\n",
				pebs_selftest__name(which[i]), res[i].details);
		}
	}
	rc = count[1] ? 1 : 0;
out:
	if (jf && fclose(jf) && !rc) {
		tool_err("test", "writing %s: %s", json, strerror(errno));
		rc = 2;
	}
	if (mf && fclose(mf) && !rc) {
		tool_err("test", "writing %s: %s", md, strerror(errno));
		rc = 2;
	}
	free(which);
	free(res);
	return rc;
}
