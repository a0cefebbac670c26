#!/bin/bash
# report-dwarf.t - recordings with --call-graph dwarf (user registers and
# a copy of the user stack per sample) are unwound by the files' CFI, as
# perf's report and script unwind them: on a perf recording of memwalk,
# `pebs-shim script` prints what `perf script --no-inline` prints, byte
# for byte, and the Children rows (--sort comm,dso,sym) are perf
# report --no-inline's; pebs-shim record's own dwarf recording is
# unwound too. perf adds inlined functions as frames of their own
# (hence --no-inline), and its libunwind a last frame at 0 - 1 where the
# stack copy ends (ffffffffffffffff [unknown], left out of perf's output
# here); pebs-shim does neither (pebs-shim(1)). A copy of 256 bytes
# cuts most chains: they must end where perf's end. Thirty processes
# unwound under a limit of 40 descriptors give the chains they give
# without it (the files of the last 8 processes only are kept open).
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-dwarf-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"
W="$B/workloads/memwalk --seconds 0.3 --mb 8"

echo "1..8"

# thirty processes, each its own files: the same chains under
# ulimit -n 40 as without a limit
"$PS" record -e cpu-clock --call-graph dwarf -o "$T/many.data" -- bash -c \
	"for i in \$(seq 30); do $B/workloads/memwalk --seconds 0.05 --mb 4 >/dev/null & done; wait" >/dev/null 2>&1
"$PS" script -i "$T/many.data" >"$T/many.all" 2>&1
(ulimit -n 40 && "$PS" script -i "$T/many.data" >"$T/many.40" 2>&1)
if [ "$(grep -c 'walker+' "$T/many.all")" -gt 30 ] &&
   cmp -s "$T/many.all" "$T/many.40"; then
	ok "30 processes: the same chains under ulimit -n 40 ($(grep -c 'walker+' "$T/many.all") walker frames)"
else
	nok "30 processes: the same chains under ulimit -n 40"
	diff "$T/many.all" "$T/many.40" | head -6 | diag
fi

# pebs-shim's own recording: the walker's frames reach start_thread
if "$PS" record -e cpu-clock --call-graph dwarf -o "$T/ps.data" -- $W \
	>/dev/null 2>"$T/rec.err"; then
	"$PS" script -i "$T/ps.data" >"$T/ps.script" 2>&1
	check "own recording: a sample in chase unwinds to walker and start_thread" \
		awk '/chase\+/ { c = 1; next }
		     c && /walker\+/ { w = 1; next }
		     w && /start_thread\+/ { found = 1; exit }
		     /^$/ { c = w = 0 }
		     END { exit !found }' "$T/ps.script"
	"$PS" report -i "$T/ps.data" --sort sym --top 0 >"$T/ps.rep" 2>&1
	check "own recording: walker's Children share is at least chase's" \
		awk '$NF == "chase" { c = $1 + 0 } $NF == "walker" { w = $1 + 0 }
		     END { exit !(c > 20 && w >= c) }' "$T/ps.rep"
else
	skip_n 2 "cannot record cpu-clock with --call-graph dwarf: $(head -1 "$T/rec.err")"
fi

if ! command -v perf >/dev/null; then
	skip_n 5 "no perf to compare with"
	exit 0
fi
perf record -q -e cpu-clock --call-graph dwarf -o "$T/perf.data" -- $W \
	>/dev/null 2>&1
# perf's script without libunwind's frames at 0 - 1
perf_script() {
	perf script --no-inline -i "$1" 2>/dev/null |
		grep -v '^	ffffffffffffffff \[unknown\] (\[unknown\])$'
}
perf_script "$T/perf.data" >"$T/perf.script"
if ! grep -q 'walker+.*memwalk' "$T/perf.script"; then
	skip_n 5 "perf records or unwinds no dwarf call chains here"
	exit 0
fi
"$PS" script -i "$T/perf.data" >"$T/a.script" 2>"$T/err"
if cmp -s "$T/perf.script" "$T/a.script"; then
	ok "perf's recording: script equals perf script --no-inline ($(wc -l <"$T/a.script") lines)"
else
	nok "perf's recording: script equals perf script --no-inline"
	diff "$T/perf.script" "$T/a.script" | head -8 | diag
	diag "$T/err"
fi
check "... and has user frames beyond the sampled ip" \
	grep -q 'start_thread+' "$T/a.script"

# Children rows: "children self comm dso sym", sorted
perf report --stdio --no-inline -g none --sort comm,dso,sym \
	-i "$T/perf.data" 2>/dev/null | grep -E '^ +[0-9.]+%' |
	grep -v ' 0xffffffffffffffff$' |
	awk '{ print $1, $2, $3, $4, $5, $6 }' | sort >"$T/perf.rows"
"$PS" report -i "$T/perf.data" --sort comm,dso,sym --top 0 2>/dev/null |
	sed -n '/^ Children/,$p' | grep -E '^ +[0-9.]+%' |
	awk '{ print $1, $2, $4, $5, $6, $7 }' | sort >"$T/ps.rows"
if [ -s "$T/perf.rows" ] && cmp -s "$T/perf.rows" "$T/ps.rows"; then
	ok "perf's recording: Children rows equal perf report --no-inline's ($(wc -l <"$T/ps.rows"))"
else
	nok "perf's recording: Children rows equal perf report --no-inline's"
	diff "$T/perf.rows" "$T/ps.rows" | head -8 | diag
fi
# the chain made of the unwound frames reaches the walker thread's root
check "perf's recording: start_thread's Children share is over 50 %" \
	awk '$6 == "start_thread" && $3 == "walker" && $1 + 0 > 50 { f = 1 }
	     END { exit !f }' "$T/ps.rows"

# a 256-byte copy: the chains end where perf's end
perf record -q -e cpu-clock --call-graph dwarf,256 -o "$T/short.data" -- $W \
	>/dev/null 2>&1
perf_script "$T/short.data" >"$T/perf.short"
"$PS" script -i "$T/short.data" >"$T/ps.short" 2>"$T/err"
if [ -s "$T/perf.short" ] && cmp -s "$T/perf.short" "$T/ps.short"; then
	ok "a 256-byte stack copy: script equals perf's, chains cut alike ($(grep -c cpu-clock "$T/ps.short") samples)"
else
	nok "a 256-byte stack copy: script equals perf's, chains cut alike"
	diff "$T/perf.short" "$T/ps.short" | head -8 | diag
	diag "$T/err"
fi
