#!/bin/sh
# 16-load-cycles - load, check and unload the module over and over while
# 8 threads switch as fast as they can (map-stress churn). Every load and
# unload switches the sched_switch tracepoint, which patches __schedule()
# live: that hangs multi-threaded TCG guests under load, with or without
# the module (the control in /work/shared/NOTES.md), so the boots that
# run this use thread=single (vm-run.sh's default).
# Kernel command line: pebs_cycles=N (default 10; `make check-vm-stress`:
# 200).
name=16-load-cycles
. /pebs/guest-lib.sh
churn=
fail() {
	echo "PEBS-VM FAIL $name $*"
	[ -n "$churn" ] && kill "$churn" 2>/dev/null
	grep -q '^pebs_map ' /proc/modules && pebs-map-unload
	exit 1
}
n=$(param pebs_cycles 10)

# the load outlives the cycles by far; it is stopped when they end
map-stress churn 3600000 8 >/tmp/churn.out 2>&1 &
churn=$!
t0=$(cut -d' ' -f1 /proc/uptime)
i=0
while [ "$i" -lt "$n" ]; do
	h=$((64 << (i % 9)))
	pebs-map-load history=$h || fail "cycle $i: pebs-map-load history=$h"
	out=$(module-test quick $h | tail -n 1)
	case $out in
	ok*) ;;
	*) fail "cycle $i: ${out#FAIL }" ;;
	esac
	pebs-map-unload || fail "cycle $i: pebs-map-unload"
	i=$((i + 1))
done
t1=$(cut -d' ' -f1 /proc/uptime)
kill -0 "$churn" 2>/dev/null || fail "the switching load died: $(cat /tmp/churn.out)"
kill "$churn"
wait "$churn"
load=$(tail -n 1 /tmp/churn.out)
case $load in
ok\ *) ;;
*) churn=; fail "the switching load: $load" ;;
esac
each=$(echo "$t0 $t1 $n" | awk '{ printf "%.0f", ($2 - $1) * 1000 / $3 }')
echo "PEBS-VM PASS $name cycles=$n under load (${load#ok }), ${each} ms each"
