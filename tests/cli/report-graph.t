#!/bin/bash
# report-graph.t - report -g and -G, perf report's call graphs, against
# perf 6.1 on perf -g and --call-graph dwarf recordings of memwalk
# (user space: kernel symbols read live can differ, report-perf.t):
# each row's graph is perf's (graph-rows.py: the same tree, siblings
# by value; the count of rows equal to the byte is printed) under
# --children and --no-children, -G, callee order, fractal (its "[...]"),
# a threshold, and --sort sym (a single chain's first frame left out);
# folded lines are perf's; -g none orders the children rows as perf's
# -g none does. -g last on the line is perf's default; -g on samples
# without chains, with --format csv, or with a sort key perf has not
# (address) is refused in one line. The library's side, to the byte:
# tests/unit/test-report-graph.c.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-graph-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..21"
FX=$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
refused "-g on samples without call chains: refused, naming -g" \
	"no call chains: record with -g" "$PS" report -i "$FX" -g
refused "-g with --format csv: refused" "text only" "$PS" report -i "$FX" \
	--format csv -g graph
refused "-g address (no srcline here): refused, naming it" \
	"'address' is not supported" "$PS" report -i "$FX" -g graph,address

if ! command -v perf >/dev/null; then
	skip_n 18 "no perf to compare with"
	exit 0
fi
W=("$B/workloads/memwalk" --seconds 0.4 --mb 8)
perf record -q -e cpu-clock:u -g -o "$T/g.data" -- "${W[@]}" >/dev/null 2>&1
if ! perf script -i "$T/g.data" -F ip,sym 2>/dev/null | grep -q chase; then
	skip_n 18 "perf recorded no samples of memwalk's chase here"
	exit 0
fi

# same NAME FILE SORT GRAPH-OPTION...: perf's graphs (the perf option
# list as given; pebs-shim's adds --top 0)
same() {
	local name=$1 f=$2 sort=$3
	shift 3
	perf report --stdio --no-inline -i "$f" --sort "$sort" "$@" \
		>"$T/perf.out" 2>/dev/null
	"$PS" report -i "$f" --sort "$sort" --top 0 "$@" >"$T/ps.out" \
		2>"$T/ps.err"
	if python3 "$S/tests/cli/graph-rows.py" "$T/perf.out" "$T/ps.out" \
		>"$T/cmp"; then
		ok "$name ($(tail -1 "$T/cmp"))"
	else
		nok "$name"
		diag "$T/cmp" "$T/ps.err"
	fi
}
same "-g: perf's graphs under --children rows" "$T/g.data" comm,dso,sym -g
same "--no-children -g graph (callee order): perf's" "$T/g.data" \
	comm,dso,sym --no-children -g graph
same "-G (caller order) without children: perf's" "$T/g.data" sym \
	--no-children -G
same "-g callee,0.1 with children: perf's" "$T/g.data" dso,sym \
	-g callee,0.1
same "-g fractal,2 (its [...] rests): perf's" "$T/g.data" comm,dso,sym \
	-g fractal,2
same "--sort sym -g: perf's (the single chain's first frame left out)" \
	"$T/g.data" sym -g

same "--no-children -g flat,0: perf's" "$T/g.data" comm,dso,sym \
	--no-children -g flat,0
same "-g folded,0,count: perf's" "$T/g.data" sym -g folded,0,count

# --max-stack: perf counts the frames in the order it shows them (the
# outermost with children, the innermost without)
same "--max-stack 3 -g (children: the outermost 3): perf's" "$T/g.data" \
	comm,dso,sym --max-stack 3 -g
same "--max-stack 2 --no-children -g: perf's" "$T/g.data" comm,dso,sym \
	--max-stack 2 --no-children -g

# script --max-stack: perf script's frames, the innermost
same_script() {	# NAME FILE OPTION...
	local name=$1 f=$2
	shift 2
	perf script --no-inline -i "$f" "$@" >"$T/a" 2>/dev/null
	"$PS" script -i "$f" "$@" >"$T/b" 2>&1
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then
		ok "$name ($(wc -l <"$T/a") lines)"
	else
		nok "$name"
		diff "$T/a" "$T/b" | head -6 | diag
	fi
}
same_script "script --max-stack 2: perf's lines" "$T/g.data" --max-stack 2

# every page fault: many branches of equal value (perf's order: of one
# file by address, of two by the order perf made its dso objects)
perf record -q -e page-faults:u -c 1 -g -o "$T/f.data" -- "${W[@]}" \
	>/dev/null 2>&1
same "page faults -g fractal,0: perf's, equal branches in perf's order" \
	"$T/f.data" comm,dso,sym -g fractal,0
same "page faults -g folded,0,count: perf's order" "$T/f.data" \
	comm,dso,sym -g folded,0,count

# -g none: no graph, and perf's order of rows of equal Children (by
# the keys, not the chains' depth)
rows() { awk '/^ +[0-9.]+%/ && !/^            /'; }
perf report --stdio -i "$T/g.data" --sort comm,dso,sym -g none 2>/dev/null |
	rows | awk '{ $1 = $1; print }' >"$T/a"
"$PS" report -i "$T/g.data" --sort comm,dso,sym --top 0 -g none |
	sed -n '/^# samples by --sort keys/,$p' | rows |
	awk '{ $3 = ""; $0 = $0; $1 = $1; print }' >"$T/b"
if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b" &&
   ! grep -q -- '---\|--[0-9.]*%--' "$T/b"; then
	ok "-g none: perf's rows in perf's order ($(wc -l <"$T/a")), no graph"
else
	nok "-g none: perf's rows in perf's order"
	diff "$T/a" "$T/b" | head -8 | diag
fi

# -g last: perf's default (graph,0.5,caller)
"$PS" report -i "$T/g.data" --sort comm,dso,sym --top 0 -g >"$T/last"
"$PS" report -i "$T/g.data" --sort comm,dso,sym --top 0 \
	-g graph,0.5,caller,function,percent >"$T/full"
check "-g as the last word: perf's default graph,0.5,caller" \
	bash -c "cmp -s '$T/last' '$T/full' && grep -q -- '--[0-9.]*%--' '$T/last'"

# dwarf: the unwound chains, as perf --no-inline unwinds them
perf record -q -e cpu-clock:u --call-graph dwarf -o "$T/d.data" -- "${W[@]}" \
	>/dev/null 2>&1
if perf script -i "$T/d.data" -F ip,sym 2>/dev/null | grep -q chase; then
	same "--call-graph dwarf -g: perf --no-inline's graphs" "$T/d.data" \
		comm,dso,sym -g
	same "--call-graph dwarf --max-stack 3 -g: perf's (unwound: the innermost)" \
		"$T/d.data" comm,dso,sym --max-stack 3 -g
	same_script "--call-graph dwarf: script --max-stack 3, perf's lines" \
		"$T/d.data" --max-stack 3
else
	skip_n 3 "perf recorded no dwarf samples of chase here"
fi
