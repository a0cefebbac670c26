#!/bin/bash
# report-srcline.t - perf's source lines against perf 6.1: script's
# srcline field line for line (each frame's line under it; perf's
# "DSO[ADDR]" where addr2line finds nothing, nothing for "??:0"), and
# the srcline and srcfile sort keys (perf report --no-children: its
# Children rows of source lines are not lines, see the man page), row
# for row: a cpu-clock -g recording of
# memwalk (its lines, kernel frames as sym+OFFSET, graphs under the
# rows byte for byte), every page fault of memwalk with its addresses
# (ld.so's _start ":0" and memwalk's "??:0": addr2line's answers for
# code without a line) and gcc compiling a file (cc1 has no DWARF and
# only .dynsym: "??:0", and cc1[ADDR] with perf's objdump address where
# addr2line finds nothing). --children is refused; csv and json carry
# the keys.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-srcline-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..17"
F=$S/tests/fixtures/compat/children.perf.data
refused "--children --sort srcline: exit 2, one line" \
	"'srcline' has keys that are not code" \
	"$PS" report --children --sort srcline -i "$F"
refused "script -F comm,srcline (no ip): exit 2, perf's words" \
	"Display of source line number requested but sample IP is not selected" \
	"$PS" script -F comm,srcline -i "$F"

if ! command -v perf >/dev/null || ! command -v addr2line >/dev/null; then
	skip_n 15 "no perf (or no addr2line for it) to compare with"
	exit 0
fi
W=$B/workloads/memwalk
perf record -q -g -e cpu-clock -o "$T/g.data" -- "$W" --seconds 0.3 --mb 8 \
	>/dev/null 2>&1
perf record -q -d -e page-faults -c 1 -o "$T/d.data" -- "$W" --seconds 0.2 \
	--mb 4 >/dev/null 2>&1

same_report_rows "cpu-clock -g: --sort srcline" 'memwalk\.c:[0-9]+$' \
	"$T/g.data" --sort srcline
same_report_rows "cpu-clock -g: --sort dso,srcline (kernel: sym+OFFSET)" \
	'\[kernel\.kallsyms\]	[a-z_0-9.]+\+[0-9]+$' "$T/g.data" --sort dso,srcline
same_report_rows "cpu-clock -g: --sort srcfile" 'memwalk\.c$' "$T/g.data" --sort srcfile
perf report --stdio --no-children --sort srcline -g caller -i "$T/g.data" \
	>"$T/perf.out" 2>/dev/null
"$PS" report --no-children --sort srcline --top 0 -g caller -i "$T/g.data" \
	>"$T/ps.out" 2>&1
if python3 "$S/tests/cli/graph-rows.py" "$T/perf.out" "$T/ps.out" >"$T/cmp"; then
	ok "-g caller under srcline rows: perf's graphs ($(tail -1 "$T/cmp"))"
else
	nok "-g caller under srcline rows"
	diag "$T/cmp"
fi
same_report_rows "page faults -d: --sort srcline,dso (??:0 and :0)" \
	'^[0-9.]+%	\?\?:0	memwalk$' "$T/d.data" --sort srcline,dso
same_report_rows "page faults -d: --sort srcfile" 'memwalk\.c$' "$T/d.data" --sort srcfile

# gcc: cc1 is stripped (no DWARF, only .dynsym)
printf '#include <stdio.h>\n' >"$T/c.c"
for i in $(seq 1 60); do
	printf 'static int f%d(int x) { int a[32]; for (int i = 0; i < 32; i++) a[i] = x * i + %d; return a[x & 31]; }\n' \
		"$i" "$i" >>"$T/c.c"
done
printf 'int main(void) { return f1(2) + f60(3); }\n' >>"$T/c.c"
if perf record -q -e cpu-clock -F 2000 -o "$T/gcc.data" -- \
	gcc -O2 -c "$T/c.c" -o "$T/c.o" >/dev/null 2>&1 &&
   [ -n "$(perf report --stdio -i "$T/gcc.data" --sort dso 2>/dev/null |
	   grep -E '% +cc1 *$')" ]; then
	same_report_rows "gcc: --sort srcline (cc1: ??:0)" '\?\?:0$' \
		"$T/gcc.data" --sort srcline
	same_report_rows "gcc: --sort dso,srcfile" 'cc1' "$T/gcc.data" --sort dso,srcfile
else
	skip_n 2 "no gcc samples in cc1 here"
fi

# script -F ...,srcline: perf script's lines (--no-inline: no inlined
# frames of its own)
same_script() {	# FILE FIELDS
	perf script --no-inline -i "$1" -F "$2" >"$T/a" 2>/dev/null
	"$PS" script -i "$1" -F "$2" >"$T/b" 2>"$T/ps.err"
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b" && grep -q '^  [^ ]' "$T/b"; then
		ok "script -F $2 of $(basename "$1"): perf's ($(wc -l <"$T/a") lines)"
	else
		nok "script -F $2 of $(basename "$1")"
		diff "$T/a" "$T/b" | head -6 | diag
		diag "$T/ps.err"
	fi
}
same_script "$T/g.data" comm,tid,ip,sym,dso,srcline
same_script "$T/d.data" ip,sym,symoff,srcline,period
if [ -s "$T/gcc.data" ]; then
	same_script "$T/gcc.data" comm,ip,sym,srcline
else
	skip "no gcc recording"
fi

"$PS" script -i "$T/g.data" -F comm,ip,srcline --format csv >"$T/scsv" 2>&1
check "script csv: a srcline column" \
	grep -qE '^[a-z]+,0x[0-9a-f]+,memwalk\.c:[0-9]+$' "$T/scsv"

# csv and json: the srcline and srcfile columns
"$PS" report -i "$T/g.data" --sort srcline,srcfile --format csv --top 3 \
	>"$T/csv" 2>&1
check "csv: srcline,srcfile columns last, with the rows' values" \
	grep -qE ',memwalk\.c:[0-9]+,memwalk\.c$' "$T/csv"
check "csv: the header names them" grep -qE ',srcline,srcfile$' "$T/csv"
"$PS" report -i "$T/g.data" --sort srcline --format json --top 3 \
	>"$T/json" 2>&1
check "json: \"srcline\" in the rows" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); \
		assert any(r["srcline"].startswith("memwalk.c:") \
			   for t in d["tables"] for r in t["rows"])' "$T/json"
