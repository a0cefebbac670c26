// SPDX-License-Identifier: MIT
/*
 * mem-record.c - `pebs-shim mem record` and `pebs-shim c2c record`: the
 * events and sample options perf mem record and perf c2c record choose
 * for this CPU (the library's pebs_mem_record), handed to `pebs-shim
 * record` with the options the user gave, as perf hands them to perf
 * record. The command line stored is the one typed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "record.h"

/* -e list was printed: exit 0 */
#define EXIT_LIST	1000

struct memrec {
	const char *cmd;		/* "mem record" or "c2c record" */
	struct pebs_mem_record_opts opts;
	int verbose;
	bool all_user, all_kernel;
};

static void usage(FILE *f, bool c2c)
{
	if (c2c)
		fprintf(f,
"usage: pebs-shim c2c record [-l|--ldlat N] [-v] [record options] [-- COMMAND]\n"
"Record as perf c2c record does: loads and stores of the CPU's precise\n"
"memory events (Intel: cpu/mem-loads,ldlat=N/P and cpu/mem-stores/P, on\n"
"each of cpu_core and cpu_atom of a hybrid CPU; AMD: ibs_op//) with\n"
"pebs-shim record -W -d --phys-data --sample-cpu. Other options are\n"
"pebs-shim record's (see pebs-shim record --help). Read the result with\n"
"pebs-shim c2c report.\n"
"  -e, --event TAGS  perf's memory events by tag: ldlat-loads, ldlat-stores\n"
"                  (Intel), mem-ldst (AMD); a word selects every tag\n"
"                  holding it; -e list lists this CPU's\n"
"  -l, --ldlat N   load latency threshold in cycles (default %d, Intel)\n"
"  -u, --all-user  user space only; -k, --all-kernel: the kernel only\n"
"  -v, --verbose   print the record command line (\"calling: ...\") and\n"
"                  record's events\n", PEBS_MEM_LDLAT_DEFAULT);
	else
		fprintf(f,
"usage: pebs-shim mem [-t load|store|load,store] [-p|--phys-data]\n"
"                     [--data-page-size] record [--ldlat N] [-v]\n"
"                     [record options] [-- COMMAND]\n"
"Record as perf mem record does: the CPU's precise memory events (Intel:\n"
"cpu/mem-loads,ldlat=N/P for loads, cpu/mem-stores/P for stores, on each\n"
"of cpu_core and cpu_atom of a hybrid CPU; AMD: ibs_op//, loads and\n"
"stores together) with pebs-shim record -W (with loads) -d. Other\n"
"options are pebs-shim record's (see pebs-shim record --help). -t may\n"
"also follow record.\n"
"  -t, --type OPS      load, store or load,store (default)\n"
"  -p, --phys-data     also sample physical addresses (--phys-data)\n"
"      --data-page-size  also sample data page sizes\n"
"  -e, --event TAGS    perf's memory events by tag: ldlat-loads,\n"
"                      ldlat-stores (Intel), mem-ldst (AMD); -e list\n"
"      --ldlat N       load latency threshold in cycles (default %d, Intel)\n"
"  -U, --all-user      user space only; -K, --all-kernel: the kernel only\n"
"  -v, --verbose       print the events (\"calling: record ...\") and\n"
"                      record's events\n", PEBS_MEM_LDLAT_DEFAULT);
}

/* perf's parse_mem_ops: load, store, or both in a comma list */
static int parse_ops(const char *s, unsigned int *ops)
{
	char buf[32], *tok, *save;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	*ops = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "load"))
			*ops |= PEBS_MEM_OP_LOAD;
		else if (!strcmp(tok, "store"))
			*ops |= PEBS_MEM_OP_STORE;
		else
			return -EINVAL;
	}
	return *ops ? 0 : -EINVAL;
}

/* "--opt=V" or "--opt V": the value, and how many args it took (0: no) */
static int opt_value(char **argv, int i, int argc, const char *shrt,
		     const char *lng, const char **val)
{
	size_t n = strlen(lng);

	if ((shrt && !strcmp(argv[i], shrt)) || !strcmp(argv[i], lng)) {
		*val = i + 1 < argc ? argv[i + 1] : NULL;
		return 2;
	}
	if (!strncmp(argv[i], lng, n) && argv[i][n] == '=') {
		*val = argv[i] + n + 1;
		return 1;
	}
	return 0;
}

static int bad_value(const struct memrec *m, const char *opt, const char *v,
		     const char *want)
{
	tool_err(m->cmd, "bad %s '%s': give %s", opt, v ? v : "", want);
	return REC_EXIT_USAGE;
}

/*
 * One option of mem or c2c record at argv[i], taken out of what goes to
 * record: returns the args used (0: not ours, record's), or -exit status.
 */
static int own_option(struct memrec *m, char **argv, int i, int argc)
{
	const char *v;
	uint64_t n;
	int used;

	used = opt_value(argv, i, argc, m->opts.c2c ? "-l" : NULL, "--ldlat",
			 &v);
	if (used) {
		if (!v || !tool_parse_u64(v, &n) || !n || n > 0xffff)
			return -bad_value(m, "--ldlat", v, "a latency in cycles, "
					  "1 to 65535 (e.g. --ldlat 30)");
		m->opts.ldlat = (unsigned int)n;
		return used;
	}
	/* -t TYPE after record (a -t TID of record is a number) */
	used = m->opts.c2c ? 0 : opt_value(argv, i, argc, "-t", "--type", &v);
	if (used && v && parse_ops(v, &m->opts.ops) == 0)
		return used;
	if (used && strcmp(argv[i], "-t"))
		return -bad_value(m, "--type", v, "load, store or load,store");
	/* mem -U/-K, c2c -u/-k: record's --all-user/--all-kernel, after
	 * the events (perf's order) */
	if (!strcmp(argv[i], m->opts.c2c ? "-u" : "-U") ||
	    !strcmp(argv[i], "--all-user")) {
		m->all_user = true;
		return 1;
	}
	if (!strcmp(argv[i], m->opts.c2c ? "-k" : "-K") ||
	    !strcmp(argv[i], "--all-kernel")) {
		m->all_kernel = true;
		return 1;
	}
	/* -v, -vv, --verbose: record is verbose too, as perf's is */
	if (!strcmp(argv[i], "--verbose")) {
		m->verbose++;
		return 0;
	}
	if (argv[i][0] == '-' && argv[i][1] == 'v' &&
	    !argv[i][strspn(argv[i] + 1, "v") + 1]) {
		m->verbose += (int)strlen(argv[i]) - 1;
		return 0;
	}
	/* -e TAGS: perf's memory events by tag; -e list lists them */
	used = opt_value(argv, i, argc, "-e", "--event", &v);
	if (used) {
		char buf[512];

		if (!v)
			return -bad_value(m, "-e", v, "ldlat-loads, "
					  "ldlat-stores, mem-ldst or list");
		if (strcmp(v, "list")) {
			m->opts.events = v;
			return used;
		}
		if (pebs_mem_record__list(buf, sizeof(buf), m->verbose > 0)) {
			tool_err(m->cmd, "%s", pebs_errmsg());
			return -REC_EXIT_SETUP;
		}
		fputs(buf, stderr);	/* where perf lists them */
		return -EXIT_LIST;
	}
	return 0;
}

/* record's arguments: perf's choice, then what the user gave */
static int run_record(struct memrec *m, char **args, int nargs,
		      const struct rec_line *line)
{
	struct pebs_mem_record *mr;
	const char *const *ev;
	char **av;
	int n, ac = 0, ret, err;

	err = pebs_mem_record__new(&m->opts, &mr);
	if (err) {
		tool_err(m->cmd, "%s", pebs_errmsg());
		return err == -ENOMEM ? REC_EXIT_SETUP :
		       err == -EINVAL ? REC_EXIT_USAGE : REC_EXIT_SETUP;
	}
	n = pebs_mem_record__argc(mr);
	ev = pebs_mem_record__argv(mr);
	av = calloc((size_t)(n + nargs + 3), sizeof(*av));
	if (!av) {
		pebs_mem_record__delete(mr);
		tool_err(m->cmd, "out of memory");
		return REC_EXIT_SETUP;
	}
	for (int i = 0; i < n; i++)
		av[ac++] = (char *)ev[i];
	if (m->all_user)
		av[ac++] = "--all-user";
	if (m->all_kernel)
		av[ac++] = "--all-kernel";
	for (int i = 0; i < nargs; i++)
		av[ac++] = args[i];
	if (m->verbose) {
		/* perf mem prints the events, perf c2c the whole line */
		fputs("calling: ", stderr);
		for (int i = 0; i < (m->opts.c2c ? ac : n); i++)
			if (m->opts.c2c || i == 0 || !strcmp(av[i], "-e") ||
			    (i > 0 && !strcmp(av[i - 1], "-e")))
				fprintf(stderr, "%s ", av[i]);
		fputc('\n', stderr);
	}
	ret = rec_main(ac, av, line);
	free(av);
	pebs_mem_record__delete(mr);
	return ret;
}

/*
 * Split @argv (from @from: what follows "record") into our options and
 * record's; up to "--" or the command. Returns 0, -1 after --help, or an
 * exit status.
 */
static int split_args(struct memrec *m, int argc, char **argv, int from,
		      char **args, int *nargs)
{
	int i, used;

	*nargs = 0;
	for (i = from; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout, m->opts.c2c);
			return -1;
		}
		used = own_option(m, argv, i, argc);
		if (used < 0)
			return -used;
		if (used) {
			i += used - 1;
			continue;
		}
		args[(*nargs)++] = argv[i];
	}
	for (; i < argc; i++)
		args[(*nargs)++] = argv[i];
	return 0;
}

static int record_with(struct memrec *m, int argc, char **argv, int from)
{
	const struct rec_line line = { .argc = argc, .argv = argv };
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int nargs, ret;

	if (!args) {
		tool_err(m->cmd, "out of memory");
		return REC_EXIT_SETUP;
	}
	ret = split_args(m, argc, argv, from, args, &nargs);
	if (!ret)
		ret = run_record(m, args, nargs, &line);
	free(args);
	return ret < 0 || ret == EXIT_LIST ? 0 : ret;
}

/*
 * pebs-shim mem [-t OPS] [-p] [--data-page-size] record ...: @argv[0] is
 * "mem", @rec the index of "record".
 */
int mem_record(int argc, char **argv, int rec)
{
	struct memrec m = { .cmd = "mem record" };
	const char *v;
	int used;

	m.opts.sz = sizeof(m.opts);
	for (int i = 1; i < rec; i += used) {
		used = opt_value(argv, i, rec, "-t", "--type", &v);
		if (used) {
			if (!v || parse_ops(v, &m.opts.ops))
				return bad_value(&m, "--type", v,
						 "load, store or load,store");
			continue;
		}
		used = 1;
		if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--phys-data"))
			m.opts.phys_data = true;
		else if (!strcmp(argv[i], "--data-page-size"))
			m.opts.data_page_size = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout, false);
			return 0;
		} else {
			tool_err("mem", "unknown option '%s' before record: "
				 "see pebs-shim mem record --help", argv[i]);
			return REC_EXIT_USAGE;
		}
	}
	return record_with(&m, argc, argv, rec + 1);
}

/* pebs-shim c2c record ...: @argv[0] is "c2c", argv[1] "record" */
int c2c_record(int argc, char **argv)
{
	struct memrec m = { .cmd = "c2c record" };

	m.opts.sz = sizeof(m.opts);
	m.opts.c2c = true;
	return record_with(&m, argc, argv, 2);
}
