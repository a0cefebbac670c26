// SPDX-License-Identifier: MIT
/* Record this thread's page faults into a perf.data file perf can read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pebsshim.h>

int main(int argc, char **argv)
{
    PEBS_OPTS(pebs_channel_opts, opts, .period = 1, .task_records = true);
    const char *path = argc > 1 ? argv[1] : "faults.data";
    const struct perf_event_header *rec;
    struct pebs_perfdata_writer *w = NULL;
    struct pebs_channel *ch = NULL;
    struct pebs_ring *ring;
    struct pebs_event ev;
    size_t len = 64 * 4096;
    uint64_t id;
    char *buf;
    int err;

    err = pebs_event__parse("page-faults", &ev);
    if (!err)
        err = pebs_channel__open(&ev, 0, -1, &opts, &ch);
    if (!err)
        err = pebs_perfdata_writer__create(path, &w);
    if (!err)
        err = pebs_channel__id(ch, &id);
    if (!err)
        err = pebs_perfdata_writer__add_attr(w, pebs_channel__attr(ch),
                                             &id, 1, ev.resolved);
    if (!err)
        err = pebs_perfdata_writer__synth_task(w, getpid()) < 0;
    if (!err)
        err = pebs_perfdata_writer__commit(w);
    if (err) {
        fprintf(stderr, "%s\n", pebs_errmsg());
        pebs_perfdata_writer__discard(w);
        pebs_channel__close(ch);
        return 1;
    }
    buf = malloc(len);          /* the code being sampled */
    if (buf)
        memset(buf, 1, len);
    ring = pebs_channel__ring(ch);
    while (!err && pebs_ring__read_init(ring) == 0) {
        while (!err && pebs_ring__next(ring, &rec) > 0)
            err = pebs_perfdata_writer__write(w, rec);
        pebs_ring__consume(ring);
    }
    printf("%llu samples in %s\n", (unsigned long long)
           pebs_perfdata_writer__stats(w)->samples, path);
    err = err ? err : pebs_perfdata_writer__close(w);
    pebs_channel__close(ch);
    free(buf);
    return err != 0;
}
