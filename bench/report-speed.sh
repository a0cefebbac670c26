#!/bin/bash
# report-speed.sh - a benchmark (make bench), not a test: pebs-shim report
# (its default tables) against `perf report --stdio` on the same files,
# interleaved (pebs-shim, perf, pebs-shim, perf ...), wall time and peak
# memory (/usr/bin/time). Two recordings: page faults with data addresses
# (every fault of touchpages) and cpu-clock (system-wide, a busy loop).
# Prints each file's ratios pebs-shim / perf as min, median and max, with
# a warning when max/min > 1.10. The goal (issue 11) is time <= 0.33x and
# memory <= 1x; nothing here fails on a figure.
# Env: PEBS_BUILD, PEBS_SRC; FAULTS (default 1000000), CLOCK_SAMPLES
# (default 3000000), ROUNDS (default 5).
set -u
PEBS_SRC=${PEBS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
PEBS_BUILD=${PEBS_BUILD:-$PEBS_SRC/build}
tool=$PEBS_BUILD/pebs-shim
T=$(mktemp -d /tmp/report-speed.XXXXXX)
trap 'rm -rf "$T"' EXIT
command -v perf >/dev/null || { echo "report-speed: skipped: perf is not installed"; exit 0; }
[ -x /usr/bin/time ] || { echo "report-speed: skipped: /usr/bin/time is not installed (apt-get install time)"; exit 0; }
faults=${FAULTS:-1000000}
clock=${CLOCK_SAMPLES:-3000000}
echo "report-speed: $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) CPUs, $(uname -r), $(perf --version)"

# the recordings (made with pebs-shim record; both tools read them)
"$tool" record -q -e page-faults -c 1 -o "$T/faults.data" -- \
	"$PEBS_BUILD/workloads/touchpages" "$faults" /dev/null 2>/dev/null
# cpu-clock every 20 us on every CPU while every CPU spins
secs=$(( clock / (50000 * $(nproc)) + 1 ))
"$tool" record -q -a -e cpu-clock -c 20000 -o "$T/clock.data" -- \
	bash -c "for i in \$(seq $(nproc)); do timeout $secs sh -c 'while :; do :; done' & done; wait" \
	2>/dev/null

measure() {	# measure NAME FILE: rounds of both tools, then the ratios
	local name=$1 f=$2 n r
	n=$(perf script -i "$f" -F ip 2>/dev/null | wc -l)
	echo "$name: $f, $n samples"
	: >"$T/$name.ratios"
	for r in $(seq "${ROUNDS:-5}"); do
		/usr/bin/time -f "%e %M" -o "$T/ps.t" "$tool" report -i "$f" >/dev/null 2>&1
		/usr/bin/time -f "%e %M" -o "$T/perf.t" perf report --stdio -i "$f" >/dev/null 2>&1
		read -r pt pm <"$T/ps.t"
		read -r ft fm <"$T/perf.t"
		echo "  round $r: pebs-shim $pt s $((pm / 1024)) MB, perf $ft s $((fm / 1024)) MB"
		awk -v a="$pt" -v b="$ft" -v c="$pm" -v d="$fm" \
			'BEGIN { printf "%.3f %.3f\n", (b > 0 ? a / b : 0), c / d }' >>"$T/$name.ratios"
	done
	for col in 1 2; do
		sort -n -k$col "$T/$name.ratios" | awk -v col=$col -v what="$([ $col = 1 ] && echo time || echo 'peak memory')" '
			{ v[NR] = $col }
			END {
				printf "  %s ratio pebs-shim / perf report: min %.3f median %.3f max %.3f\n",
				       what, v[1], v[int((NR + 1) / 2)], v[NR]
				if (v[1] > 0 && v[NR] / v[1] > 1.10)
					print "  warning: max/min > 1.10, the machine was noisy"
			}'
	done
}
measure faults "$T/faults.data"
measure clock "$T/clock.data"
