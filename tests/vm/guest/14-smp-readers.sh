#!/bin/sh
# 14-smp-readers - many readers against heavy switching on every CPU, the
# module loaded once (tests/vm/map-stress.c lists the invariants: seq
# parity and growth, equal copies for an equal seq, hist_head ==
# switches, the newest entry matching its slot, history in time order).
# No tracepoint is switched on or off while the load runs, so this is
# safe under multi-threaded TCG (see /work/shared/NOTES.md: live code
# patching under load hangs MTTCG guests, with or without the module).
# Kernel command line: pebs_stress_ms=MS (default 4000), pebs_readers=N
# (default 8), pebs_churn=N (default 8); `make check-vm-stress` boots 4
# vCPUs under multi-threaded TCG with pebs_stress_ms=60000.
name=14-smp-readers
. /pebs/guest-lib.sh
ms=$(param pebs_stress_ms 4000)
nread=$(param pebs_readers 8)
nchurn=$(param pebs_churn 8)

pebs-map-load || fail "pebs-map-load failed"
out=$(map-stress readers "$ms" "$nread" "$nchurn" | tail -n 1)
echo "map-stress readers $ms $nread $nchurn: $out"
pebs-map-unload || fail "pebs-map-unload failed"
case $out in
ok\ *) echo "PEBS-VM PASS $name ${out#ok }" ;;
*) fail "${out#FAIL }" ;;
esac
