#!/bin/sh
# 13-module-oracle - the switch history against an oracle that knows the
# order by construction (tests/vm/hist-oracle.c: three SCHED_FIFO threads
# on CPU 0 handing a token around in a fixed order, each reading CPU 0's
# slot and latest switch as its turn starts): the history must hold
# exactly that order, and each turn's anchor must name the thread that
# runs it. The negative control loads the module with
# debug_wrong_next=1 (it records the task switched out, Shim's stale
# `next`): the same oracle must then fail.
name=13-module-oracle
. /pebs/guest-lib.sh

pebs-map-load || fail "pebs-map-load failed"
out=$(hist-oracle | tail -n 1)
echo "hist-oracle: $out"
pebs-map-unload || fail "pebs-map-unload failed"
case $out in
ok\ *) ;;
*) fail "${out#FAIL }" ;;
esac

pebs-map-load debug_wrong_next=1 || fail "pebs-map-load debug_wrong_next=1 failed"
neg=$(hist-oracle | tail -n 1)
echo "hist-oracle with debug_wrong_next=1: $neg"
pebs-map-unload || fail "pebs-map-unload failed"
case $neg in
FAIL\ *) echo "PEBS-VM PASS $name ${out#ok }; negative control fails as it must: ${neg#FAIL }" ;;
*) fail "the negative control (debug_wrong_next=1) passed: the oracle cannot see a wrong next" ;;
esac
