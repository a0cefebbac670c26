# budget.sh - sourced by bench/run.sh (its functions and $T, $tool,
# $memwalk, $faults, calibrate, bench_compare): record --budget against
# the workload bare (the anchor), interleaved: --budget 1 %, 2 %, 5 %,
# the full-rate run (every page fault; cpu-clock every 100 us) and perf
# record -F at the frequency the 2 % budget ended with, on the page-fault
# workload (page-faults -d) and on memwalk (cpu-clock). Then the top-10
# symbols of the full-rate run: how far each budgeted run's shares of
# them are (the largest difference, in points). Last, the same for data
# objects (record --objects on the page-fault workload whose chunks come
# from three sites, 4:2:1): the budgeted runs' shares of the full-rate
# run's objects (report --sort object), the median of $ROUNDS runs each.
# It only measures.

bud_ps() {	# bud_ps NAME OPTS...: a pebs-shim run into $T/bud-NAME.data
	local name=$1
	shift
	bench_clear "$T/bud-$name.data"
	bench_time "$tool" record -q -o "$T/bud-$name.data" "$@" -- "${work[@]}"
}
bud_bare() { bench_time "${work[@]}"; }
bud_1() { bud_ps 1 "${ev[@]}" --budget 1%; }
bud_2() { bud_ps 2 "${ev[@]}" --budget 2%; }
bud_5() { bud_ps 5 "${ev[@]}" --budget 5%; }
bud_full() { bud_ps full "${ev[@]}" "${full[@]}"; }
bud_perf() {
	bench_clear "$T/bud-perf.data"
	bench_time perf record --no-bpf-event -q --sample-cpu --sample-identifier \
		-o "$T/bud-perf.data" "${ev[@]}" -F "$freq" -- "${work[@]}"
}

# the sample frequency the 2 % budget ended with, per thread: a clock's
# 1e9 / its period; an event's samples per second of the run
bud_freq() {
	local err=$T/bud-probe.err t0 t1 p n
	t0=$(date +%s.%N)
	"$tool" record -o "$T/bud-probe.data" "${ev[@]}" --budget 2% -- \
		"${work[@]}" >/dev/null 2>"$err" || return 1
	t1=$(date +%s.%N)
	p=$(sed -n 's/^pebs-shim record: budget: [^ ]* period .* (last \([0-9]*\),.*/\1/p' "$err")
	n=$(sed -n 's/^pebs-shim record: \([0-9]*\) samples written.*/\1/p' "$err")
	sed -n 's/^pebs-shim record: budget/  (--budget 2% probe) budget/p' "$err" >&2
	rm -f "$T/bud-probe.data"
	if [ "$ev_kind" = clock ]; then
		awk -v p="$p" 'BEGIN { if (p > 0) printf "%d", 1e9 / p + 0.5 }'
	else
		awk -v n="$n" -v a="$t0" -v b="$t1" \
			'BEGIN { if (b > a && n > 0) printf "%d", n / (b - a) + 0.5 }'
	fi
}

# shares (%) of the top-10 symbols of $T/bud-full.data in FILE: one
# "symbol share" a line (perf report, Overhead = share of the periods;
# its first table: a budgeted file's pebs-shim:cycle comes after)
bud_shares() {
	perf report --stdio --sort sym -i "$1" 2>/dev/null |
		awk '/^# Samples:/ { t++ } t == 1 && /^ *[0-9.]+%/ { s = $1; sub(/%/, "", s); $1 = ""; sub(/^ +/, ""); print $0 "\t" s }'
}

# bud_diff SHARES FULL FILE: the largest difference in points between
# FULL's top 10 and FILE's shares of the same entries, both by the
# function SHARES (bud_shares: symbols; bud_obj_shares: data objects)
bud_diff() {
	"$1" "$2" | head -n 10 >"$T/bud-top"
	"$1" "$3" >"$T/bud-other"
	awk -F'\t' 'NR == FNR { top[$1] = $2; next } { got[$1] = $2 }
		END { for (s in top) { d = top[s] - got[s]; if (d < 0) d = -d
			if (d > m) m = d }; printf "%.2f\n", m }' "$T/bud-top" "$T/bud-other"
}

bud_case() {	# bud_case NAME: the rounds, then the symbol shares
	local name=$1 s
	freq=$(bud_freq)
	if [ -z "$freq" ] || [ "$freq" = 0 ]; then
		bench_skip budget "$name" "the --budget 2% probe run failed or sampled nothing"
		return
	fi
	bench_compare budget "$name; perf -F $freq" "wall,cpu" "s,s" bare bud_bare \
		"budget 1%" bud_1 "budget 2%" bud_2 "budget 5%" bud_5 \
		"full rate" bud_full "perf -F $freq" bud_perf
	for s in 1 2 5 perf; do
		[ -s "$T/bud-$s.data" ] && [ -s "$T/bud-full.data" ] ||
			{ bench_skip budget "$name: top-10 symbol shares, $s" "no recording of the last round"; continue; }
		bench_value budget "$name: top-10 symbol shares, $s vs full rate" \
			"largest difference" points "$([ $s = perf ] && echo "perf -F $freq" || echo "budget $s%")" \
			"$(bud_diff bud_shares "$T/bud-full.data" "$T/bud-$s.data")"
	done
	rm -f "$T"/bud-*.data "$T/bud-top" "$T/bud-other"
}

# shares (%) of the data objects in FILE (pebs-shim report --sort
# object): one "object share" a line
bud_obj_shares() {
	"$tool" report --sort object --format csv -i "$1" 2>/dev/null |
		python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin):
	print("%s\t%s\t%s" % (r["object"], r["overhead"],
				r.get("share_error", "")))'
}

# bud_obj_z FULL FILE: for FULL's top 3 objects, each one's distance in
# FILE from its share in FULL over the error FILE's report printed for
# it (+-pts), squared: one a line
bud_obj_z() {
	bud_obj_shares "$1" | head -n 3 >"$T/bud-top"
	bud_obj_shares "$2" >"$T/bud-other"
	awk -F'\t' 'NR == FNR { top[$1] = $2; next }
		($1 in top) && $3 > 0 { z = ($2 - top[$1]) / $3; printf "%.4f\n", z * z }' \
		"$T/bud-top" "$T/bud-other"
}

# bud_objects N: faults --sites N, at full rate once, then each budget
# in $ROUNDS runs: a duty cycle's shares move with the phases its
# windows fall on (up to 50 / sqrt(windows) points, report's "# shares"
# line), so one run says little; the median run's largest difference,
# the range and the bound report gave are printed
bud_objects() {
	local s i d b
	work=("$faults" --sites "$1")
	bud_ps obj-full --objects -e page-faults -d -c 1 >/dev/null ||
		{ bench_skip budget "objects: shares" "record --objects failed"; return; }
	for s in 1 2 5; do
		: >"$T/bud-obj-d"
		: >"$T/bud-obj-b"
		: >"$T/bud-obj-z"
		for ((i = 1; i <= ROUNDS; i++)); do
			bud_ps obj-$s --objects -e page-faults -d --budget $s% >/dev/null || continue
			bud_diff bud_obj_shares "$T/bud-obj-full.data" "$T/bud-obj-$s.data" >>"$T/bud-obj-d"
			bud_obj_z "$T/bud-obj-full.data" "$T/bud-obj-$s.data" >>"$T/bud-obj-z"
			"$tool" report -i "$T/bud-obj-$s.data" 2>/dev/null |
				sed -n 's/^# shares *: .* up to about +-\([0-9.]*\) points.*/\1/p' >>"$T/bud-obj-b"
		done
		if [ ! -s "$T/bud-obj-d" ]; then
			bench_skip budget "objects: shares, $s" "record --objects failed"
			continue
		fi
		d=$(sort -g "$T/bud-obj-d" | sed -n '1p;$p' | paste -sd-)
		b=$(bench_median <"$T/bud-obj-b" 2>/dev/null)
		bench_value budget "page-faults -d --objects, faults --sites $1: top-10 object shares, budget $s% vs full rate, median of $(wc -l <"$T/bud-obj-d") runs" \
			"largest difference" points "budget $s%" \
			"$(bench_median <"$T/bud-obj-d")" "runs $d${b:+, report bound +-$b}"
		# each row's printed error (+-pts) against the distance seen:
		# about 1 when it says what it should, above when too small
		[ -s "$T/bud-obj-z" ] &&
			bench_value budget "page-faults -d --objects, faults --sites $1: top-3 objects' distance from the full rate over report's +-pts, budget $s%, $(wc -l <"$T/bud-obj-z") shares" \
				"root mean square" ratio "budget $s%" \
				"$(awk '{ s += $1; n++ } END { printf "%.2f", sqrt(s / n) }' "$T/bud-obj-z")"
	done
	rm -f "$T"/bud-obj-*.data "$T/bud-obj-d" "$T/bud-obj-b" "$T/bud-obj-z" "$T/bud-top" "$T/bud-other"
}

budget_bench() {
	local target=4 nfaults hops
	[ -n "$BENCH_QUICK" ] && target=0.2
	echo "== overhead budgets (record --budget; workloads sized to $target s bare)"
	nfaults=$(calibrate $target 300000 "$faults")
	hops=$(calibrate $target 2000000 "$memwalk" --mb 16 --hops)
	work=("$faults" "$nfaults")
	ev=(-e page-faults -d)
	ev_kind=event
	full=(-c 1)
	bud_case "page-faults -d, $nfaults faults"
	work=("$memwalk" --hops "$hops" --mb 16)
	ev=(-e cpu-clock)
	ev_kind=clock
	full=(-c 100000)
	bud_case "cpu-clock, memwalk --hops $hops"
	bud_objects "$nfaults"
}
budget_bench
