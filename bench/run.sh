#!/bin/bash
# run.sh - the benchmarks (make bench): figures, never pass/fail.
# Every comparison with perf runs interleaved in one run through the
# shared driver (bench/lib.sh); the results, with the machine's
# description and the date, go to $BENCH_OUT/latest.{csv,json,md,svg}
# (bench/render.sh).
#
#   slowdown   a workload's wall time bare, under pebs-shim record and
#              under perf record --no-bpf-event, same event, period and
#              sample fields: cpu-clock every 1 ms and 100 us (memwalk),
#              every page fault with its address (-c 1 -d, bench/faults),
#              PEBS loads fixed-period and -F where the CPU has them
#   recorder   the recorder's own CPU per sample, system-wide, against
#              perf and against the copy limit (bench/decode --copy)
#   report     report time and peak memory against perf report --stdio
#              (bench/report.sh)
#   objects    record --objects against heaptrack on an allocation-
#              heavy workload: wall time and peak memory (bench/objects.sh)
#   export     export --format pprof and perfetto against perf report
#              --stdio on 3 M samples (bench/export.sh)
#   budget     record --budget 1/2/5 % against bare, the full rate and
#              perf record -F at the budget's frequency: slowdown and
#              top-10 symbol shares (bench/budget.sh)
#   decode     ring read + decode rate (bench/decode)
#   observe    the observer's period in cycles (bench/observe; rdtscp)
#   vm-switch  the module's switch-hook cost: bench/vm-switch.sh if
#              there is one
#
# Env: PEBS_BUILD, PEBS_SRC; BENCH_OUT (default $PEBS_SRC/bench/results);
# ROUNDS (default 5, at least 5); BENCH_QUICK=1: a short smoke run (tiny
# workloads, 2 rounds; its figures mean nothing); BENCH_ONLY="slowdown
# report ...": only these sections; BENCH_VM_SWITCH: see vm_switch.
set -u
PEBS_SRC=${PEBS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
PEBS_BUILD=${PEBS_BUILD:-$PEBS_SRC/build}
BENCH_OUT=${BENCH_OUT:-$PEBS_SRC/bench/results}
. "$PEBS_SRC/bench/lib.sh"

tool=$PEBS_BUILD/pebs-shim
memwalk=$PEBS_BUILD/workloads/memwalk
faults=$PEBS_BUILD/bench/faults
probe=$PEBS_BUILD/tests/probe
for f in "$tool" "$memwalk" "$faults" "$probe" "$PEBS_BUILD/bench/decode" \
	 "$PEBS_BUILD/bench/observe"; do
	[ -x "$f" ] || { echo "bench: $f is missing: run make bench-build" >&2; exit 1; }
done
command -v perf >/dev/null || { echo "bench: perf is not installed: apt-get install linux-perf" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is not installed: apt-get install time" >&2; exit 1; }
mkdir -p "$BENCH_OUT" || exit 1

T=$(mktemp -d /tmp/bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T
BENCH_ROWS=$T/rows.tsv
: >"$BENCH_ROWS"
started=$(date +%s)

want() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }

# ---- the machine -------------------------------------------------------
machine() {
	local virt ct pmu why
	# a VM (systemd-detect-virt --vm, else cpuinfo's hypervisor flag),
	# and a container if there is one
	virt=$(systemd-detect-virt --vm 2>/dev/null) || virt=
	if [ -z "$virt" ] || [ "$virt" = none ]; then
		if grep -qw hypervisor /proc/cpuinfo; then virt="yes (cpuinfo hypervisor flag)"
		else virt=no; fi
	else
		virt="yes ($virt)"
	fi
	ct=$(systemd-detect-virt --container 2>/dev/null) && [ "$ct" != none ] &&
		virt="$virt, in a $ct container"
	if why=$("$probe" pmu); then pmu=yes; else pmu="no: $why"; fi
	{
		echo "date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "cpu	$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
		echo "cores	$(nproc)"
		echo "kernel	$(uname -r)"
		echo "perf	$(perf --version)"
		echo "virtualized	$virt"
		echo "pmu	$pmu"
		echo "rounds	$ROUNDS"
		echo "quick	${BENCH_QUICK:-0}"
	} >"$T/machine.tsv"
	sed 's/\t/: /' "$T/machine.tsv"
}

# ---- workload slowdown -------------------------------------------------
# the recorders with the same event, period and sample fields: pebs-shim
# writes IP|TID|TIME|CPU|IDENTIFIER (+ADDR|DATA_SRC with -d), perf the
# same with --sample-cpu --sample-identifier. Two metrics: wall time, and
# the CPU time of everything the run spawned (workload and recorder:
# less disturbed than wall time by other load on a shared machine)
slow_bare() { bench_time "${work[@]}"; }
slow_ps() {
	bench_clear "$T/ps.data"
	bench_time "$tool" record -q -o "$T/ps.data" "${opts[@]}" -- "${work[@]}"
}
slow_pf() {
	bench_clear "$T/perf.data"
	bench_time perf record --no-bpf-event -q --sample-cpu --sample-identifier \
		-o "$T/perf.data" "${opts[@]}" -- "${work[@]}"
}
slow() {	# slow CASE: bare, pebs-shim and perf, interleaved
	bench_compare slowdown "$1" "wall,cpu" "s,s" bare slow_bare \
		pebs-shim slow_ps perf slow_pf
	rm -f "$T/ps.data" "$T/perf.data"
	[ -n "$BENCH_QUICK" ] && return
	# a bare median under 3 s (the machine got quicker after sizing) is said
	awk -F'\t' -v OFS='\t' -v c="$1" '
		$1 == "slowdown" && $2 == c && $3 == "wall" && $9 != "" && $9 < 3 {
			$14 = ($14 == "" ? "" : $14 "; ") "bare median under 3 s"
			print "  warning: " c ": the bare median is under 3 s" >"/dev/stderr"
		}
		{ print }' "$BENCH_ROWS" >"$BENCH_ROWS.new" && mv "$BENCH_ROWS.new" "$BENCH_ROWS"
}

# calibrate TARGET BASE CMD...: the work N (CMD's last argument, BASE
# there) that takes TARGET s bare, from the quickest of three runs of
# BASE (the least disturbed one: the bare runs then take at least about
# TARGET unless the machine gets quicker; slow says so then)
calibrate() {
	local target=$1 base=$2 i
	shift 2
	for i in 1 2 3; do bench_wall "$@" "$base" || echo 1; done |
		sort -g | awk -v n="$base" -v g="$target" \
		'NR == 1 { printf "%d", n * g / ($1 > 0 ? $1 : 1) }'
}

slowdown() {
	local target=4 hops nfaults why ev
	[ -n "$BENCH_QUICK" ] && target=0.2
	echo "== workload slowdown (wall time; workloads sized to $target s bare)"
	hops=$(calibrate $target 2000000 "$memwalk" --mb 16 --hops)
	nfaults=$(calibrate $target 300000 "$faults")
	work=("$memwalk" --hops "$hops" --mb 16)
	opts=(-e cpu-clock -c 1000000)
	slow "cpu-clock every 1 ms, memwalk --hops $hops"
	opts=(-e cpu-clock -c 100000)
	slow "cpu-clock every 100 us, memwalk --hops $hops"
	work=("$faults" "$nfaults")
	opts=(-e page-faults -c 1 -d)
	slow "every page fault with its address (-c 1 -d), $nfaults faults"
	if ! why=$("$probe" precise); then
		bench_skip slowdown "PEBS loads (fixed period, large PEBS)" "$why"
		bench_skip slowdown "PEBS loads (frequency mode)" "$why"
		return
	fi
	case $(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -n 1) in
	GenuineIntel) ev="cpu/event=0xd0,umask=0x81/pp" ;;	# ALL_LOADS
	AuthenticAMD) ev="ibs_op//" ;;
	*)
		bench_skip slowdown "PEBS loads" "precise sampling here, but neither Intel PEBS nor AMD IBS"
		return ;;
	esac
	work=("$memwalk" --hops "$hops" --mb 16)
	opts=(-e "$ev" -c 10007 -d)
	slow "PEBS loads $ev -c 10007 -d (large PEBS), memwalk"
	opts=(-e "$ev" -F 4000 -d)
	slow "PEBS loads $ev -F 4000 -d, memwalk"
}

# ---- the recorder's own CPU per sample ----------------------------------
# system-wide cpu-clock every 50 us while memwalk (a separate process,
# started before) keeps every CPU busy; the recorder runs under
# timeout -s INT inside perf stat, whose task-clock is then the
# recorder's own CPU (and timeout's, which only waits: ~1 ms); prints
# "ns/sample bytes/sample"
rec_cost() {	# rec_cost NAME RECORDER-ARGS...
	local name=$1 secs=5 n bytes
	shift
	[ -n "$BENCH_QUICK" ] && secs=1
	"$memwalk" --seconds $((secs + 1)) --mb 16 >/dev/null 2>&1 &
	local load=$!
	sleep 0.3
	perf stat -x, -e task-clock -o "$T/$name.stat" -- \
		timeout -s INT "$secs" "$@" -o "$T/$name.data" -a \
		-e cpu-clock -c 50000 >/dev/null 2>"$T/$name.err"
	wait "$load"
	n=$(sed -n 's/.*Captured and wrote .* (\([0-9]*\) samples) \]$/\1/p' "$T/$name.err")
	# a round with few samples measures start-up, not samples
	if [ -z "$n" ] || [ "$n" -lt 1000 ]; then
		echo "  $name: ${n:-no} samples (under 1000): round left out" >&2
		return 1
	fi
	bytes=$(stat -c %s "$T/$name.data")
	rm -f "$T/$name.data"
	awk -F, -v n="$n" -v b="$bytes" '/task-clock/ { printf "%.1f %.1f\n", $1 * 1e6 / n, b / n }' \
		"$T/$name.stat"
}
cost_ps() { rec_cost ps "$tool" record; }
cost_pf() { rec_cost perf perf record --no-bpf-event --sample-cpu --sample-identifier; }

recorder() {
	local why bytes copy ps
	echo "== the recorder's own CPU per sample (system-wide cpu-clock every 50 us)"
	if ! why=$("$probe" percpu); then
		bench_skip recorder "recorder CPU per sample" "$why"
		return
	fi
	bench_compare recorder "recorder CPU per sample, -a cpu-clock -c 50000" \
		"cpu per sample,file bytes per sample" "ns,B" perf cost_pf pebs-shim cost_ps
	# the copy limit: memcpy of one sample's bytes (IP, TID, TIME, CPU,
	# IDENTIFIER and the header: 48 bytes) out of a ring
	bytes=48
	copy=$("$PEBS_BUILD/bench/decode" --copy $bytes -n $([ -n "$BENCH_QUICK" ] && echo 200000 || echo 20000000) |
		awk '/^result/ { print $3 }')
	ps=$(awk -F'\t' '$2 ~ /^recorder CPU/ && $3 == "cpu per sample" { print $8 }' "$BENCH_ROWS")
	bench_value recorder "copy limit: memcpy of a $bytes-byte sample" "cpu per sample" ns memcpy "$copy" \
		"pebs-shim's median is $(awk -v a="$ps" -v b="$copy" 'BEGIN { if (a > 0 && b > 0) printf "%.0fx", a / b; else printf "?" }') this"
}

# ---- ring decode, observer, switch hook ----------------------------------
decode() {
	local n=20000000 key v unit
	[ -n "$BENCH_QUICK" ] && n=200000
	echo "== ring read + decode rate (synthetic ring, one core)"
	"$PEBS_BUILD/bench/decode" -n $n >"$T/decode.out" || { bench_skip decode "ring decode" "bench/decode failed"; return; }
	sed '/^result/d' "$T/decode.out"
	while read -r _ key v unit; do
		bench_value decode "ring read + decode, $key" "time per sample" "${unit%/sample}" bench/decode "$v" \
			"$(awk -v v="$v" 'BEGIN { printf "%.1f M samples/s", 1e3 / v }')"
	done < <(grep '^result' "$T/decode.out")
}

observe() {
	local why key v unit
	echo "== observer period"
	if ! why=$("$probe" rdtscp); then
		bench_skip observe "observer period" "$why"
		return
	fi
	"$PEBS_BUILD/bench/observe" >"$T/observe.out" || { bench_skip observe "observer period" "bench/observe failed"; return; }
	sed '/^result/d' "$T/observe.out"
	while read -r _ key v unit; do
		bench_value observe "$key" period "$unit" bench/observe "$v"
	done < <(grep '^result' "$T/observe.out")
}

# bench/vm-switch.sh (the module's benchmark, run in a VM) reports by
# printing "result NAME VALUE UNIT" lines, as bench/decode does
# (BENCH_VM_SWITCH=SCRIPT runs another script in its place)
vm_switch() {
	local s=${BENCH_VM_SWITCH:-$PEBS_SRC/bench/vm-switch.sh} key v unit
	echo "== the module's switch-hook cost"
	if [ ! -f "$s" ]; then
		bench_skip vm-switch "switch-hook cost" "bench/vm-switch.sh is not there (the module's VM benchmark)"
		return
	fi
	if [ -n "$BENCH_QUICK" ]; then
		bench_skip vm-switch "switch-hook cost" "BENCH_QUICK: bench/vm-switch.sh boots a VM"
		return
	fi
	if ! PEBS_BUILD=$PEBS_BUILD PEBS_SRC=$PEBS_SRC bash "$s" >"$T/vm.out" 2>&1; then
		cat "$T/vm.out"
		bench_skip vm-switch "switch-hook cost" "bench/vm-switch.sh failed: $(tail -n 1 "$T/vm.out")"
		return
	fi
	grep -v '^result ' "$T/vm.out"
	if ! grep -q '^result ' "$T/vm.out"; then
		bench_skip vm-switch "switch-hook cost" "bench/vm-switch.sh printed no 'result NAME VALUE UNIT' line: $(tail -n 1 "$T/vm.out")"
		return
	fi
	while read -r _ key v unit; do
		bench_value vm-switch "$key" cost "$unit" bench/vm-switch.sh "$v"
	done < <(grep '^result ' "$T/vm.out")
}

machine
want slowdown && slowdown
want recorder && recorder
want report && . "$PEBS_SRC/bench/report.sh"
want objects && . "$PEBS_SRC/bench/objects.sh"
want export && . "$PEBS_SRC/bench/export.sh"
want budget && . "$PEBS_SRC/bench/budget.sh"
want decode && decode
want observe && observe
want vm-switch && vm_switch
echo "bench: took $(( $(date +%s) - started )) s"
echo "took	$(( $(date +%s) - started )) s" >>"$T/machine.tsv"
"$PEBS_SRC/bench/render.sh" "$T/machine.tsv" "$BENCH_ROWS" "$BENCH_OUT/latest" ||
	exit 1
echo "bench: results in $BENCH_OUT/latest.{csv,json,md,svg}"
