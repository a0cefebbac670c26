#!/bin/bash
# record-cost.t - the recorder's own CPU per sample, beside perf record's
# on the same system-wide run: a busy process outside the recording
# makes the samples, the recorded command is `sleep`, and perf stat's
# task-clock of the recorder (with sleep, ~1 ms) is the recorder's CPU.
# Three interleaved rounds; the median ratio must be at most 0.2
# (issue 12). Needs system-wide recording (root or paranoid <= 0).
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
[ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] ||
	skip_all "system-wide recording needs root or perf_event_paranoid <= 0"
echo 1..2

cost() {	# cost NAME CMD...: prints "msec samples"
	local name=$1; shift
	perf stat -x, -e task-clock -o "$T/$name.stat" -- "$@" \
		2>"$T/$name.err" >/dev/null
	local ms samples
	ms=$(awk -F, '/task-clock/ { print $1 }' "$T/$name.stat")
	samples=$(sed -n 's/.*Captured and wrote .* (\([0-9]*\) samples) \]$/\1/p' \
		"$T/$name.err")
	echo "$ms ${samples:-0}"
}

ratios=
bad=0
for round in 1 2 3; do
	"$memwalk" --seconds 6 --mb 16 2>/dev/null &
	load=$!
	sleep 0.3
	read -r pm pn <<<"$(cost ps "$tool" record -a -e cpu-clock -c 50000 \
		-o "$T/ps.data" -- sleep 2)"
	read -r fm fn <<<"$(cost perf perf record --no-bpf-event -a \
		-e cpu-clock -c 50000 -o "$T/perf.data" -- sleep 2)"
	wait "$load"
	echo "# round $round: pebs-shim $pm ms for $pn samples, perf $fm ms for $fn samples"
	if [ "${pn:-0}" -lt 1000 ] || [ "${fn:-0}" -lt 1000 ]; then
		bad=1
		continue
	fi
	ratios="$ratios $(awk -v a="$pm" -v b="$pn" -v c="$fm" -v d="$fn" \
		'BEGIN { printf "%.3f", (a / b) / (c / d) }')"
done
[ "$bad" = 0 ]
ok $? "both recorders took over 1000 samples in each round"
med=$(echo $ratios | tr ' ' '\n' | sort -n | sed -n 2p)
echo "# per-sample CPU ratios pebs-shim/perf:$ratios (median $med)"
awk -v m="${med:-9}" 'BEGIN { exit !(m <= 0.2) }'
ok $? "the recorder's CPU per sample is at most 0.2x perf record's (median $med)"
