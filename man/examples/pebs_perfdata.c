// SPDX-License-Identifier: MIT
/* Count the samples of each event of a perf.data file. */
#include <stdio.h>
#include <pebsshim.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "perf.data";
    const struct perf_event_header *ev;
    unsigned long counts[64] = { 0 };
    struct pebs_perfdata *pd;
    struct pebs_sample s;
    unsigned int idx, n;
    int err;

    err = pebs_perfdata__open(path, &pd);
    if (err) {
        fprintf(stderr, "%s\n", pebs_errmsg());
        return 1;
    }
    while ((err = pebs_perfdata__next(pd, &ev)) > 0)
        if (ev->type == PERF_RECORD_SAMPLE &&
            !pebs_perfdata__sample(pd, ev, &s, &idx) && idx < 64)
            counts[idx]++;
    n = pebs_perfdata__nr_attrs(pd);
    for (idx = 0; idx < n && idx < 64; idx++) {
        const char *name = pebs_perfdata__attr_name(pd, idx);

        printf("%s: %lu samples\n", name ? name : "?", counts[idx]);
    }
    if (err < 0)
        fprintf(stderr, "%s\n", pebs_errmsg());
    pebs_perfdata__close(pd);
    return err < 0;
}
