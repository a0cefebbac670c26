#!/bin/bash
# report-time.t - perf's time sort key and --time-quantum against perf
# 6.1, row for row: the samples in 100 ms slices (perf's default), in
# 50 ms, 10 ms and 20,000,000 ns slices beside comm, sym and cpu keys (a
# cpu-clock recording of memwalk, every page fault of it, perf record
# -a); a quantum of 0 or of an unknown unit is refused; csv and json
# carry the slice.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-time-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..9"
F=$S/tests/fixtures/compat/children.perf.data
refused "--time-quantum 0: exit 2, one line" "bad --time-quantum '0'" \
	"$PS" report --sort time --time-quantum 0 -i "$F"
refused "--time-quantum 5parsecs: exit 2, one line" \
	"bad --time-quantum '5parsecs'" \
	"$PS" report --sort time --time-quantum 5parsecs -i "$F"
"$PS" report -i "$F" --sort time,comm --time-quantum 1s --format csv \
	>"$T/csv" 2>&1
check "csv: the time column last, the slice's start" \
	grep -qE ',[0-9]+\.[0-9]{6}$' "$T/csv"

if ! command -v perf >/dev/null; then
	skip_n 6 "no perf to compare with"
	exit 0
fi
W=$B/workloads/memwalk
perf record -q -e cpu-clock -o "$T/c.data" -- "$W" --seconds 0.4 --mb 8 \
	>/dev/null 2>&1
perf record -q -d -e page-faults -c 1 -o "$T/d.data" -- "$W" --seconds 0.2 \
	--mb 4 >/dev/null 2>&1

# a slice in each row: seconds and microseconds
SLICE='	[0-9]+\.[0-9]{6}(	|$)'
same_report_rows "--sort time: perf's 100 ms" "$SLICE" "$T/c.data" --sort time
same_report_rows "--sort time,comm --time-quantum 50ms" "$SLICE" "$T/c.data" --sort time,comm \
	--time-quantum 50ms
same_report_rows "--sort comm,time --time-quantum 10ms" "$SLICE" "$T/c.data" --sort comm,time \
	--time-quantum 10ms
same_report_rows "page faults: --sort time,sym --time-quantum 20000000 (ns)" \
	"$SLICE" "$T/d.data" --sort time,sym --time-quantum 20000000
same_report_rows "page faults: --sort time,dso --time-quantum 5ms" \
	"$SLICE" "$T/d.data" --sort time,dso --time-quantum 5ms
"$PS" report -i "$T/c.data" --sort time --format json >"$T/json" 2>&1
check "json: \"time\" in the rows" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); \
		assert all("." in r["time"] for t in d["tables"] \
			   for r in t["rows"])' "$T/json"
