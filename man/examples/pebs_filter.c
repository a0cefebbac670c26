// SPDX-License-Identifier: MIT
/* Count the samples of a perf.data file that perf report --comm keeps. */
#include <stdio.h>
#include <pebsshim.h>

struct count {
    struct pebs_filter *filter;
    unsigned long pass, all;
};

static int count(void *arg, const struct pebs_sample *s,
                 const struct pebs_report_sample *rs)
{
    struct count *c = arg;

    c->all++;
    if (pebs_filter__match(c->filter, rs, s->time) == PEBS_FILTER_PASS)
        c->pass++;
    return 0;
}

int main(int argc, char **argv)
{
    struct count c = { 0 };
    struct pebs_perfdata *pd = NULL;
    struct pebs_session *ss = NULL;
    int err;

    if (argc != 3) {
        fprintf(stderr, "usage: %s FILE COMM[,COMM...]\n", argv[0]);
        return 2;
    }
    err = pebs_filter__new(&c.filter);
    if (!err)
        err = pebs_filter__comms(c.filter, argv[2]);
    if (!err)
        err = pebs_perfdata__open(argv[1], &pd);
    if (!err)
        err = pebs_session__new(pd, &ss);
    if (!err)
        err = pebs_session__process(ss, false, count, &c, NULL);
    if (err < 0) {
        fprintf(stderr, "%s\n", pebs_errmsg());
        return 1;
    }
    printf("%lu of %lu samples pass\n", c.pass, c.all);
    pebs_session__delete(ss);
    pebs_perfdata__close(pd);
    pebs_filter__delete(c.filter);
    return 0;
}
