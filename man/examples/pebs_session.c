// SPDX-License-Identifier: MIT
/* Replay a perf.data file in time order: samples per event and thread. */
#include <stdio.h>
#include <pebsshim.h>

static int show(void *arg, const struct pebs_sample *s,
                const struct pebs_report_sample *rs)
{
    (void)arg;
    printf("%llu.%09llu %s/%d %s\n",
           (unsigned long long)(s->time / 1000000000),
           (unsigned long long)(s->time % 1000000000),
           rs->comm ? rs->comm : ":?", rs->tid, rs->sym ? rs->sym : "?");
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "perf.data";
    const struct pebs_session_stats *st;
    struct pebs_perfdata *pd = NULL;
    struct pebs_session *ss = NULL;
    int err;

    err = pebs_perfdata__open(path, &pd);
    if (!err)
        err = pebs_session__new(pd, &ss);
    if (!err)
        err = pebs_session__process(ss, false, show, NULL, NULL);
    if (err < 0) {
        fprintf(stderr, "%s\n", pebs_errmsg());
        return 1;
    }
    st = pebs_session__stats(ss);
    for (unsigned int i = 0; i < st->nr_events; i++)
        printf("event %u: %llu samples\n", i,
               (unsigned long long)st->event_samples[i]);
    printf("lost %llu\n", (unsigned long long)st->lost_samples);
    pebs_session__delete(ss);
    pebs_perfdata__close(pd);
    return 0;
}
