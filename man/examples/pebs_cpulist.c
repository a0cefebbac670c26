// SPDX-License-Identifier: MIT
/* Print the CPUs of a list ("0-3,8"), or the online CPUs. */
#include <stdio.h>
#include <pebsshim.h>

int main(int argc, char **argv)
{
    static uint64_t cpus[PEBS_MAX_CPUS / 64];
    int c, err;

    if (argc > 1)
        err = pebs_cpulist__parse(argv[1], PEBS_MAX_CPUS, cpus);
    else
        err = pebs_cpulist__online(PEBS_MAX_CPUS, cpus);
    if (err) {
        fprintf(stderr, "%s\n", pebs_errmsg());
        return 1;
    }
    for (c = pebs_cpulist__next(cpus, PEBS_MAX_CPUS, 0); c >= 0;
         c = pebs_cpulist__next(cpus, PEBS_MAX_CPUS, c + 1))
        printf("cpu %d\n", c);
    return 0;
}
