#!/bin/sh
# 20-map-tool.sh - `pebs-shim map` against the real module: one line per
# online CPU with a plausible owner, the tool itself seen running with its
# own pid, and --history 5 with 5 ordered switches per CPU.
name=20-map-tool
out=/tmp/map.out

fail() {
	echo "PEBS-VM FAIL $name $*"
	rmmod pebs_map 2>/dev/null
	exit 1
}

insmod /pebs/pebs_map.ko || fail "insmod /pebs/pebs_map.ko"
i=0
while [ ! -c /dev/pebs_map ] && [ "$i" -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -c /dev/pebs_map ] || fail "no /dev/pebs_map after insmod"

cpus=$(awk '/^processor/ { print $3 }' /proc/cpuinfo)
# make every online CPU switch at least once since the module loaded
for c in $cpus; do
	taskset -c "$c" true || fail "taskset -c $c"
done

# the table, 3 times: the tool runs on some CPU with its own pid
pebs-shim map -i 10 -n 3 >$out 2>&1 &
tool=$!
wait $tool
rc=$?
[ "$rc" = 0 ] || { cat $out; fail "pebs-shim map exited $rc"; }
echo "--- pebs-shim map -i 10 -n 3 (pid $tool)"
cat $out
head -n 1 $out | grep -q '^pebs_map ABI 1: ' || fail "no header line"
hook=$(head -n 1 $out | sed -n 's/.*hook \([a-z]*\),.*/\1/p')
for c in $cpus; do
	n=$(grep -Ec "^CPU$c: (idle switches [0-9]+|tgid [1-9][0-9]* pid [1-9][0-9]* switches [0-9]+ comm .+)$" $out)
	[ "$n" = 3 ] || fail "CPU$c: $n plausible lines of 3"
done
lines=$(grep -c '^CPU' $out)
ncpus=$(echo $cpus | wc -w)
[ "$lines" = $((3 * ncpus)) ] ||
	fail "$lines CPU lines for $ncpus online CPUs x 3 (offline CPUs shown?)"
grep -q "^CPU[0-9]*: tgid $tool pid $tool switches [0-9]* comm pebs-shim$" $out ||
	fail "pebs-shim (pid $tool) not seen running"

pebs-shim map --history 5 >$out 2>&1 || { cat $out; fail "--history 5 failed"; }
echo "--- pebs-shim map --history 5"
cat $out
# per CPU: 5 switch lines with consecutive numbers and ordered times
bad=$(awk '
	/^CPU/ { if (cpu != "" && n != 5) print cpu ": " n " switches";
		 cpu = $1; n = 0; next }
	/^  switch / {
		sub(":", "", $4)
		if (n && ($2 != last + 1 || $4 + 0 < t + 0)) print cpu ": unordered"
		last = $2; t = $4; n++ }
	END { if (cpu == "" || n != 5) print cpu ": " n " switches" }' $out)
[ -z "$bad" ] || fail "history: $bad"
switches=$(awk '/^CPU/ { for (i = 2; i < NF; i++) if ($i == "switches") s += $(i + 1) }
	END { print s }' $out)
rmmod pebs_map || fail "rmmod pebs_map"
echo "PEBS-VM PASS $name cpus=$ncpus hook=$hook switches=$switches"
