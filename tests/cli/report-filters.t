#!/bin/bash
# report-filters.t - perf's --comms (-c), --dsos (-d) and --symbols (-S)
# in report and script, against perf 6.1 on a perf -g recording of
# memwalk: report's rows (--no-children --sort comm,dso,sym; a key whose
# filter names one value is left out of the table, as perf elides it)
# and script's lines are perf's; a filtered sample stays in the total
# (perf's absolute percentages), or is not (--percentage relative: shares
# of the samples kept, rows with and without children). An empty list,
# and --percentage words not perf's, are refused. User-space
# rows only: kernel symbols read live can differ (report-perf.t).
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-filters-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..13"
refused "--dsos '': exit 2, one line naming the option" \
	"--dsos: give names" "$PS" report --dsos '' \
	-i "$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data"

if ! command -v perf >/dev/null; then
	skip_n 12 "no perf to compare with"
	exit 0
fi
perf record -q -e cpu-clock -g -o "$T/g.data" -- \
	"$B/workloads/memwalk" --seconds 0.3 --mb 8 >/dev/null 2>&1
if ! perf script -i "$T/g.data" -F ip,sym 2>/dev/null | grep -q chase; then
	skip_n 12 "perf recorded no samples of memwalk's chase here"
	exit 0
fi

# rows "overhead<TAB>key..." of both reports, sorted (perf pads its last
# column: blanks at the ends dropped)
perf_rows() {
	perf report --stdio --no-children -i "$T/g.data" --sort comm,dso,sym \
		"$@" 2>/dev/null | grep -E '^ +[0-9.]+%' |
		sed -E 's/ +$//; s/^ +//; s/  +/\t/g' | sort
}
ps_rows() {
	"$PS" report --no-children -i "$T/g.data" --sort comm,dso,sym \
		--top 0 "$@" 2>/dev/null |
		sed -n '/^# samples by --sort keys/,$p' | grep -E '^ +[0-9.]+%' |
		sed -E 's/ +$//; s/^ +//; s/  +/\t/g' | cut -f1,3- | sort
}
same_rows() {
	local what=$1
	shift
	perf_rows "$@" >"$T/a"
	ps_rows "$@" >"$T/b"
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then
		ok "report $what: perf's rows ($(wc -l <"$T/a"))"
	else
		nok "report $what: perf's rows"
		diff "$T/a" "$T/b" | head -6 | diag
	fi
}
same_rows "--dsos memwalk (one: the column elided)" --dsos memwalk
same_rows "-d memwalk,libc.so.6" -d memwalk,libc.so.6
same_rows "-S chase,stream" -S chase,stream
same_rows "--comms walker (one: the column elided)" --comms walker
same_rows "-c streamer -S stream (two columns elided)" -c streamer -S stream
same_rows "--percentage relative --comm streamer (shares of its samples)" \
	--percentage relative --comm streamer
same_rows "--percentage relative -d memwalk" --percentage relative -d memwalk

same_script() {
	local what=$1
	shift
	perf script -i "$T/g.data" "$@" >"$T/a" 2>/dev/null
	"$PS" script -i "$T/g.data" "$@" >"$T/b" 2>&1
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then
		ok "script $what: perf's lines ($(wc -l <"$T/a"))"
	else
		nok "script $what: perf's lines"
		diff "$T/a" "$T/b" | head -6 | diag
	fi
}
same_script "-S chase -c walker" -S chase -c walker
same_script "--dsos memwalk" --dsos memwalk
# the total stays: chase's share is the same with and without -S
a=$("$PS" report --no-children -i "$T/g.data" --sort sym --top 0 |
	awk '$NF == "chase" { print $1 }')
b=$("$PS" report --no-children -i "$T/g.data" --sort sym,dso -S chase |
	awk '$NF == "memwalk" { print $1 }')
check "-S chase: chase's share as without the filter ($a)" \
	bash -c "test -n '$a' && test '$a' = '$b'"
# relative with children: the rows of --comm's samples, shares of them
perf report --stdio -i "$T/g.data" --sort comm,dso,sym -g none \
	--percentage relative --comm streamer 2>/dev/null |
	grep -E '^ +[0-9.]+%' | sed -E 's/ +$//; s/^ +//; s/  +/\t/g' |
	sort >"$T/a"
"$PS" report -i "$T/g.data" --sort comm,dso,sym --top 0 \
	--percentage relative --comm streamer 2>/dev/null |
	sed -n '/^# samples by --sort keys/,$p' | grep -E '^ +[0-9.]+%' |
	sed -E 's/ +$//; s/^ +//; s/  +/\t/g' | cut -f1,2,4- | sort >"$T/b"
if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then
	ok "--percentage relative --comm streamer with children: perf's rows ($(wc -l <"$T/a"))"
else
	nok "--percentage relative --comm streamer with children: perf's rows"
	diff "$T/a" "$T/b" | head -6 | diag
fi
refused "--percentage relative:x: exit 2, one line naming the words" \
	"give relative or absolute" "$PS" report -i "$T/g.data" \
	--percentage relative:x
