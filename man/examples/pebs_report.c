// SPDX-License-Identifier: MIT
/* perf report --sort comm,sym of a perf.data file. */
#include <stdio.h>
#include <pebsshim.h>

static int add(void *report, const struct pebs_sample *s,
               const struct pebs_report_sample *rs)
{
    (void)s;
    return pebs_report__add(report, rs);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "perf.data";
    enum pebs_report_key keys[PEBS_REPORT_MAX_KEYS];
    struct pebs_perfdata *pd = NULL;
    struct pebs_session *ss = NULL;
    struct pebs_report *r = NULL;
    char comm[64], sym[256];
    int nk, err;

    nk = pebs_report__parse_keys("comm,sym", keys, PEBS_REPORT_MAX_KEYS);
    err = nk < 0 ? nk : pebs_perfdata__open(path, &pd);
    if (!err)
        err = pebs_session__new(pd, &ss);
    if (!err)
        err = pebs_report__new(keys, nk, pebs_perfdata__nr_attrs(pd), &r);
    if (!err)
        err = pebs_session__process(ss, false, add, r, NULL);
    if (err < 0) {
        fprintf(stderr, "%s\n", pebs_errmsg());
        return 1;
    }
    pebs_report__sort(r);
    for (size_t i = 0; i < pebs_report__nr_rows(r); i++) {
        const struct pebs_report_row *row = pebs_report__row(r, i);

        pebs_report__field(row, keys[0], comm, sizeof(comm));
        pebs_report__field(row, keys[1], sym, sizeof(sym));
        printf("%6.2f%%  %-16s %s\n", pebs_report__overhead(r, row, true),
               comm, sym);
    }
    pebs_report__delete(r);
    pebs_session__delete(ss);
    pebs_perfdata__close(pd);
    return 0;
}
