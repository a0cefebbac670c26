#!/bin/bash
# record-kernel.t - as root, record samples the kernel as perf does:
# `record -a -e cpu-clock -- dd` has [k] symbols in perf report, and the
# page faults of dd (every fault, -c 1) number what perf record counts of
# the same command, within 5 % or 6 faults (dd makes about 80, and two
# runs of it differ by a few: 78-83 here).
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
need root percpu || skip_all "$why"
echo 1..3

"$tool" record -q -a -e cpu-clock -o "$T/k.data" -- \
	dd if=/dev/zero of=/dev/null count=200000 2>"$T/err"
check "record -a -e cpu-clock -- dd exits 0" test $? = 0
perf report --stdio --sort dso,sym -i "$T/k.data" 2>/dev/null >"$T/rep"
k=$(grep -cE '^ +[0-9.]+% +\[kernel\.kallsyms\] +\[k\] ' "$T/rep")
check "perf report shows kernel symbols ([k], $k rows)" test "$k" -gt 0

"$tool" record -q -e page-faults -c 1 -o "$T/p.data" -- \
	dd if=/dev/zero of=/dev/null count=2000 2>/dev/null
perf record -q -e page-faults -c 1 -o "$T/perf.data" -- \
	dd if=/dev/zero of=/dev/null count=2000 2>/dev/null
a=$(perf script -i "$T/p.data" 2>/dev/null | wc -l)
b=$(perf script -i "$T/perf.data" 2>/dev/null | wc -l)
check "dd's page faults: pebs-shim $a, perf $b (within 5 % or 6)" \
	awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d
		exit !(a > 0 && b > 0 && (d <= 0.05 * b || d <= 6)) }'
