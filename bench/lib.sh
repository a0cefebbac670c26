# lib.sh - the benchmarks' shared driver (sourced by bench/run.sh and the
# scripts beside it). Every comparison runs its anchor and its subjects
# interleaved in one run (A B C A B C ..., ROUNDS rounds, at least 5
# unless BENCH_QUICK=1), takes per round the ratio subject / anchor of
# each metric, and records min, median and max of those ratios, with a
# warning when max/min > 1.10 (the machine was noisy). Results are rows
# of a tab-separated file ($BENCH_ROWS) that bench/render.sh turns into
# CSV, JSON, Markdown and SVG. Figures only: nothing here fails on one.
#
# Row fields (tab-separated, in this order):
#   section case metric unit subject anchor rounds value anchor_value
#   ratio_min ratio_median ratio_max noisy note
# A plain value (no anchor) leaves anchor and the ratios empty; a skipped
# case has an empty value and "skipped: REASON" as its note.

BENCH_QUICK=${BENCH_QUICK:-}
if [ -n "$BENCH_QUICK" ] && [ "$BENCH_QUICK" != 0 ]; then
	BENCH_QUICK=1
	ROUNDS=${ROUNDS:-2}
else
	BENCH_QUICK=
	ROUNDS=${ROUNDS:-5}
	if [ "$ROUNDS" -lt 5 ]; then
		echo "bench: ROUNDS=$ROUNDS raised to 5 (at least 5 pairs; BENCH_QUICK=1 for a smoke run)" >&2
		ROUNDS=5
	fi
fi

# bench_row FIELD...: append one row (14 fields; tabs in fields become
# spaces)
bench_row() {
	local f out= i=0
	for f in "$@"; do
		f=${f//$'\t'/ }
		if [ $i = 0 ]; then out=$f; else out=$out$'\t'$f; fi
		i=$((i + 1))
	done
	while [ $i -lt 14 ]; do out=$out$'\t'; i=$((i + 1)); done
	printf '%s\n' "$out" >>"${BENCH_ROWS:?}"
}

# bench_value SECTION CASE METRIC UNIT SUBJECT VALUE [NOTE]
bench_value() {
	echo "  $2: $5 $3 $6 $4${7:+ ($7)}"
	bench_row "$1" "$2" "$3" "$4" "$5" "" 1 "$6" "" "" "" "" "" "${7:-}"
}

# bench_skip SECTION CASE REASON
bench_skip() {
	echo "  $2: skipped: $3"
	bench_row "$1" "$2" "" "" "" "" 0 "" "" "" "" "" "" "skipped: $3"
}

# bench_median: the median of the numbers on stdin (one a line)
bench_median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) exit 1
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.6g\n", m }'
}

# bench_compare SECTION CASE METRICS UNITS ANCHOR ANCHOR_FN [SUBJECT FN]...
#   METRICS and UNITS are comma lists of the same length; every FN is a
#   shell function (or command) that runs once and prints one number
#   per metric on its last line of stdout. Rounds run ANCHOR then each
#   SUBJECT, ROUNDS times. A run that fails or prints no number is left
#   out of that round's ratios (and said so).
bench_compare() {
	local section=$1 case=$2 metrics=$3 units=$4
	shift 4
	local labels=() fns=() r i m out dir
	while [ $# -ge 2 ]; do labels+=("$1"); fns+=("$2"); shift 2; done
	dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-cmp.XXXXXX")
	local -a mlist ulist
	IFS=, read -r -a mlist <<<"$metrics"
	IFS=, read -r -a ulist <<<"$units"
	echo "$case: $ROUNDS rounds of ${labels[*]}"
	for ((r = 1; r <= ROUNDS; r++)); do
		local line="  round $r:"
		for i in "${!labels[@]}"; do
			if out=$(set -o pipefail; ${fns[$i]} | tail -n 1) &&
			   [[ $out =~ ^[0-9.eE+-]+( [0-9.eE+-]+)*$ ]]; then
				echo "$out" >>"$dir/$i"
			else
				echo "NA" >>"$dir/$i"
				out="failed"
			fi
			line="$line ${labels[$i]} $out,"
		done
		echo "${line%,}"
	done
	for m in "${!mlist[@]}"; do
		local col=$((m + 1)) av
		av=$(awk -v c=$col '$1 != "NA" { print $c }' "$dir/0" | bench_median) || av=
		for ((i = 1; i < ${#labels[@]}; i++)); do
			local sv stats
			sv=$(awk -v c=$col '$1 != "NA" { print $c }' "$dir/$i" | bench_median) || sv=
			# per-round ratios, rounds where both ran
			stats=$(paste -d' ' "$dir/0" "$dir/$i" | awk -v c=$col -v n=${#mlist[@]} '
				$1 != "NA" && $(n + 1) != "NA" && $c > 0 { print $(n + c) / $c }' |
				sort -g | awk '{ v[NR] = $1 } END {
					if (!NR) exit 1
					m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
					noisy = v[1] > 0 && v[NR] / v[1] > 1.10
					printf "%d %.4f %.4f %.4f %d\n", NR, v[1], m, v[NR], noisy }') || stats=
			if [ -z "$stats" ]; then
				echo "  $case ${mlist[$m]}: ${labels[$i]} / ${labels[0]}: no round where both ran"
				bench_row "$section" "$case" "${mlist[$m]}" "${ulist[$m]}" \
					"${labels[$i]}" "${labels[0]}" 0 "$sv" "$av" "" "" "" "" \
					"no round where both ran"
				continue
			fi
			local n lo med hi noisy note=
			read -r n lo med hi noisy <<<"$stats"
			echo "  $case ${mlist[$m]}: ${labels[$i]} $sv, ${labels[0]} $av ${ulist[$m]}; ratio median $med (min $lo, max $hi, $n rounds)"
			if [ "$noisy" = 1 ]; then
				note="noisy: max/min > 1.10"
				echo "  warning: $case ${mlist[$m]} ${labels[$i]} / ${labels[0]}: max/min > 1.10, the machine was noisy"
			fi
			[ "$n" = "$ROUNDS" ] || note="${note:+$note; }$((ROUNDS - n)) of $ROUNDS rounds failed"
			bench_row "$section" "$case" "${mlist[$m]}" "${ulist[$m]}" \
				"${labels[$i]}" "${labels[0]}" "$n" "$sv" "$av" \
				"$lo" "$med" "$hi" "$noisy" "$note"
		done
	done
	rm -rf "$dir"
}

# bench_clear FILE...: each FILE and its FILE.old gone, before a timed run
# writes FILE: record, like perf record, renames an existing output to
# .old, replacing the one there, so a subject timed after another's large
# file paid for its unlink (record after --objects=all's 576 MB: 0.33 s
# instead of 0.07 s)
bench_clear() {
	local f

	for f in "$@"; do
		rm -f "$f" "$f.old"
	done
}

# bench_time CMD...: run CMD (output discarded), print "WALL CPU": its
# wall seconds and the user+system CPU seconds of CMD and of all it
# waited for (/usr/bin/time, 10 ms steps); fails when CMD fails
bench_time() {
	local f rc=0
	f=$(mktemp "${TMPDIR:-/tmp}/bench-time.XXXXXX") || return 1
	/usr/bin/time -f "%e %U %S" -o "$f" "$@" >/dev/null 2>&1 || rc=1
	[ $rc = 0 ] && awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$f"
	rm -f "$f"
	return $rc
}

# bench_wall CMD...: run CMD (output discarded), print its wall seconds;
# fails when CMD fails
bench_wall() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || return 1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
