#!/bin/sh
# 11-module-history - the module's switch history against perf's own
# record of sched:sched_switch (per CPU, PERF_SAMPLE_RAW|TIME|CPU) over
# the same window of a mixed load (more runnable threads than CPUs, short
# sleeps, a pipe ping-pong). At least 99.9 % of the switches must agree
# (cpu, time order, incoming tid).
name=11-module-history
. /pebs/guest-lib.sh

# the window: pebs_history_ms=MS on the kernel command line (default 500;
# make check-debug's slower kernel needs a longer one for 500 switches)
ms=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^pebs_history_ms=\([0-9]*\)$/\1/p' | tail -n 1)
# a history deep enough for the whole window
pebs-map-load history=32768 || fail "pebs-map-load failed"
out=$(module-test history "${ms:-500}" | tail -n 1)
echo "$out"
pebs-map-unload || fail "pebs-map-unload failed"
case $out in
ok\ *) echo "PEBS-VM PASS $name ${out#ok }" ;;
*) fail "${out#FAIL }" ;;
esac
