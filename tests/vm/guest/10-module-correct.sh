#!/bin/sh
# 10-module-correct - the table against the truth: a thread pinned to each
# CPU reads its own tid/tgid/comm in its CPU's slot; two spinners pinned to
# one CPU alternate in its slot; switch counters only grow; slots of CPUs
# that are possible but never online read -1 throughout; idle reads 0.
name=10-module-correct
. /pebs/guest-lib.sh

pebs-map-load || fail "pebs-map-load failed"
module-test dump
out=$(module-test correct | tail -n 1)
echo "$out"
module-test dump
pebs-map-unload || fail "pebs-map-unload failed"
case $out in
ok\ *) echo "PEBS-VM PASS $name ${out#ok }" ;;
*) fail "${out#FAIL }" ;;
esac
