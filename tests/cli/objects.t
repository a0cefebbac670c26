#!/bin/bash
# objects.t - record --objects and report --sort object with real data
# addresses (software page faults with -d): tests/workloads/objects
# writes objects of known sizes from known sites once each, so every
# page of an object faults once: alloc_big 1024, alloc_small 256,
# alloc_first 512, then freed and its range reallocated by alloc_second
# 512, map_anon 64, alloc_in_thread (on a second thread) 128, alloc_pair
# 128 (two objects of 256 KiB, one after the other), alloc_shared 128
# (half written by each thread: shared), and the
# static array table (1 MiB of .bss, mapped
# anonymously past the file's pages) 256. The report must give those counts per allocation
# site (the reallocated range split at the reallocation: the interposer's
# CLOCK_MONOTONIC times and the samples' agree), the object columns
# (instances, bytes, peak live bytes; a static variable's ELF size) must say what the workload
# allocated, in text, CSV and JSON, c2c report must name each line's
# object (the reallocated range's lines hit by both), plot heat's rows
# must be the objects (not anon), the static struct rec and array of
# structs pts split by field with object_instance (DWARF: rec.tail 4,
# rec.head 2, pts[].y 3, pts[].x 3), perf report and perf
# script must read the file without a word on stderr, an exec'd program
# stays preloaded, a SIGKILLed recording keeps its objects, a process
# outliving the recording is unharmed, -p or
# --format csv say what --objects cannot do, and with --phys-data on a
# one-node machine every access with a physical address is node_local.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
need_objects
echo 1..46

"$tool" record --objects -e page-faults -c 1 -d -o "$T/o.data" -- "$wl" \
	>"$T/out" 2>"$T/err"
ok_rc $? "record --objects -e page-faults -c 1 -d exits 0"
diag "$T/err"
grep -Eq "^pebs-shim record: objects: ([5-9]|1[0-5]) allocations" "$T/err"
ok_rc $? "the summary counts the workload's allocations"

# samples per object: "site count" from the CSV's object column (the
# page faults: report leaves the pebs-shim:alloc/free samples out, so
# its tables have one event, not split by event)
rows() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) col = i; next }
		 $10 == "" { s = $col; sub(/ \(.*/, "", s)
		 print s, $4 }' c="$2" "$1"
}
"$tool" report -i "$T/o.data" --sort object --format csv \
	>"$T/r.csv" 2>"$T/rerr"
ok_rc $? "report --sort object --format csv exits 0"
rows "$T/r.csv" object >"$T/rows"
want="alloc_big 1024
alloc_small 256
alloc_first 512
alloc_second 512
map_anon 64
alloc_in_thread 128
alloc_pair 128
alloc_shared 128
table 256"
got=$(grep -E '^(alloc_|map_anon|table )' "$T/rows" | sort)
[ "$got" = "$(sort <<<"$want")" ]
ok_rc $? "each allocation site and the static table have one sample per page written"
[ "$got" = "$(sort <<<"$want")" ] || diag "$T/rows"

# the range alloc_first had is reallocated by alloc_second
first=$(sed -n 's/^first=\([^ ]*\) .*/\1/p' "$T/out")
second=$(sed -n 's/.* second=\(.*\)/\1/p' "$T/out")
if [ -n "$first" ] && [ "$first" = "$second" ]; then
	ok "alloc_second got alloc_first's range ($first)"
else
	skip "glibc placed alloc_second elsewhere ($first, $second): the split is not tested"
fi

"$tool" report -i "$T/o.data" --sort object_instance --format csv \
	>"$T/i.csv" 2>/dev/null
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "object_instance") c = i }
	 $10 == "" && $4 == 1024 &&
	 $c ~ /^alloc_big \(objects.c:[0-9]+\) <- main #1$/ { f = 1 }
	 END { exit !f }' \
	"$T/i.csv"
ok_rc $? "report --sort object_instance names each object (alloc_big ... #1)"

"$tool" report -i "$T/o.data" --sort object --format json >"$T/r.json" \
	2>/dev/null && grep -q '"object": *"alloc_second (objects.c:[0-9]*) <- main"' \
	"$T/r.json"
ok_rc $? "JSON rows carry the object with its source line and caller"

# the object columns of the page-fault rows: "site instances bytes peak
# sharing" (each object written by one thread: private, the second
# thread's own too; alloc_shared by both: shared)
cols() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		 $10 == "" { s = $c["object"]; sub(/ \(.*/, "", s)
		 print s, $c["instances"], $c["bytes"], $c["peak_live"],
		 $c["sharing"] }' "$1"
}
got=$(cols "$T/r.csv" | grep -E '^(alloc_big|alloc_pair|alloc_shared|map_anon|table|alloc_in_thread) ' | sort)
want="alloc_big 1 4194304 4194304 private
alloc_in_thread 1 524288 524288 private
alloc_pair 2 524288 262144 private
alloc_shared 1 524288 524288 shared
map_anon 1 262144 262144 private
table 1 1048576 1048576 private"
[ "$got" = "$want" ]
ok_rc $? "CSV object columns: instances, bytes, peak live bytes per site, the static table's symbol size, the sharing class"
[ "$got" = "$want" ] || diag "$T/r.csv"

grep -q '"object": *"alloc_pair (objects.c:[0-9]*) <- main", "instances": 2, "bytes": 524288, "peak_live": 262144, "local": 0, "remote": 0, "sharing": "private"' \
	"$T/r.json"
ok_rc $? "JSON rows carry the object columns"

"$tool" report -i "$T/o.data" --sort object --top 100 >"$T/r.txt" 2>/dev/null
grep -q '^ Overhead  *Samples .*threads  *sharing  *instances  *bytes  *peak-live  *Data Object Site$' \
	"$T/r.txt" &&
awk '/ alloc_pair \(/ && $2 == 128 && $(NF - 7) == "private" &&
     $(NF - 6) == 2 && $(NF - 5) == 524288 && $(NF - 4) == 262144 { f = 1 }
     END { exit !f }' "$T/r.txt"
ok_rc $? "text: the object columns and alloc_pair's 128 samples, 2 instances, 512 KiB, 256 KiB live at most"

# the default tables leave the allocations out (no accesses: no row of
# theirs, no weight section of their sizes) and say so; --event names
# them back: alloc_big's 4 MiB as its symbol's weight
"$tool" report -i "$T/o.data" --top 0 >"$T/d.txt" 2>/dev/null
"$tool" report -i "$T/o.data" --event pebs-shim:alloc --format csv \
	>"$T/d.csv" 2>/dev/null
n=$(grep -v '^# \(event [0-9]\|objects \)' "$T/d.txt" | grep -c 'pebs-shim:\|avg-wt')
grep -q '^# objects   : [0-9][0-9]* samples of pebs-shim:alloc and pebs-shim:free .* --event names them$' \
	"$T/d.txt" && [ "$n" = 0 ] &&
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		 $1 == "symbols" && $c["event"] == "pebs-shim:alloc" &&
		 $c["samples"] == 1 && $c["avg_weight"] == "4194304.0" &&
		 $c["sym"] == "[.] alloc_big" { f = 1 }
		 END { exit !f }' "$T/d.csv"
ok_rc $? "report's tables leave pebs-shim:alloc/free out unless --event names them ($n rows)"

# local and remote accesses per object, as perf c2c splits them, from
# the AMD IBS fixture's data sources (its c2c: 3 remote HITM, 2 local
# DRAM loads, one of each at an unmapped address); the ring's threads
# share anon's lines, some true and some false sharing by c2c's rules,
# bash's one load is private
fx=$PEBS_SRC/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data
got=$("$tool" report -i "$fx" --sort object --format csv 2>/dev/null |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		 $c["local"] + $c["remote"] > 0 { print $c["object"],
		 $c["local"], $c["remote"], $c["sharing"] }' | sort | tr '\n' ,)
[ "$got" = "anon 0 2 true+false,bash 1 0 private," ]
ok_rc $? "local/remote accesses and sharing per object from IBS data sources ($got)"

# static variables by field (object_instance), whole (object)
got=$(rows "$T/i.csv" object_instance | grep -E '^(rec|pts)' | sort | tr '\n' ,)
obj=$(cols "$T/r.csv" | grep -E '^(rec|pts) ' | sort | tr '\n' ,)
[ "$got" = "pts[].x 3,pts[].y 3,rec.head 2,rec.tail 4," ] &&
	[ "$obj" = "pts 1 24576 24576 private,rec 1 24576 24576 private," ]
ok_rc $? "static structs: object_instance by DWARF field ($got), object whole with its size ($obj)"

# object_field: the fields as rows of their own, under their object
# (--sort object,object_field), with the object's columns; a heap
# object or an unstructured variable is its own field
"$tool" report -i "$T/o.data" --sort object,object_field --format csv \
	>"$T/f.csv" 2>/dev/null
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["object"] ~ /^(rec|pts|table|alloc_big )/ {
	s = $c["object_field"]; sub(/ \(.*/, "", s)
	print $c["object"] "/" s, $4, $c["bytes"] }' "$T/f.csv" | sort |
	tr '\n' , | sed 's/ (objects[^/]*\//\//')
"$tool" report -i "$T/o.data" --sort object_field --top 0 2>/dev/null |
	grep -q '  Data Object Field$' &&
[ "$got" = "alloc_big/alloc_big 1024 4194304,pts/pts[].x 3 24576,pts/pts[].y 3 24576,rec/rec.head 2 24576,rec/rec.tail 4 24576,table/table 256 1048576," ]
ok_rc $? "--sort object,object_field: rec.tail 4, rec.head 2, pts[].x 3, pts[].y 3 under their objects ($got)"

# c2c report: each cache line's object; one fault per page, so alloc_big
# has 1024 lines, each of it alone
"$tool" c2c report -i "$T/o.data" --show-all --format csv >"$T/c2c.csv" \
	2>"$T/c2cerr"
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ s = $c["data_object"]; sub(/ \(.*/, "", s); print s, $c["data_objects"] }' \
	"$T/c2c.csv" | sort | uniq -c | awk '{ print $2, $3, $1 }')
grep -qx 'alloc_big 1 1024' <<<"$got" && grep -qx 'table 1 256' <<<"$got" &&
	[ ! -s "$T/c2cerr" ]
ok_rc $? "c2c report --format csv: 1024 lines of alloc_big, 256 of the static table"
grep -qx 'alloc_big 1 1024' <<<"$got" || diag - <<<"$got"
if [ -n "$first" ] && [ "$first" = "$second" ]; then
	grep -qx 'alloc_first 2 512' <<<"$got"
	ok_rc $? "c2c: the reallocated range's 512 lines hold alloc_first then alloc_second"
else
	skip "glibc placed alloc_second elsewhere: no shared lines"
fi
"$tool" c2c report -i "$T/o.data" --show-all >"$T/c2c.txt" 2>/dev/null &&
	grep -q '^  object: alloc_big (objects.c:[0-9]*) <- main #1$' "$T/c2c.txt" &&
	"$tool" c2c report -i "$T/o.data" --show-all --format json 2>/dev/null |
	grep -q '"data_object":"alloc_big (objects.c:[0-9]*) <- main","data_object_instance":"alloc_big (objects.c:[0-9]*) <- main #1","data_objects":1'
ok_rc $? "c2c report (text, JSON) names a line's object"

# plot heat: each object's range one row named by its site and caller
"$tool" plot heat -i "$T/o.data" --event page-faults -o "$T/heat.svg" \
	2>"$T/heaterr"
sed -n 's|.*<text x="6.0" y="[0-9.]*">0x[0-9a-f]* \([^<]*\)</text>.*|\1|p' \
	"$T/heat.svg" >"$T/heat.rows"
for row in '4 MiB alloc_big &lt;- main' '1 MiB alloc_small &lt;- main' \
	'256 KiB map_anon &lt;- main' '1 MiB table'; do
	grep -qx "$row" "$T/heat.rows" || { echo "no row $row"; break; }
done >"$T/heat.miss"
[ ! -s "$T/heaterr" ] && [ ! -s "$T/heat.miss" ]
ok_rc $? "plot heat: rows of 4 MiB alloc_big, 1 MiB alloc_small, 256 KiB map_anon, 1 MiB table"
[ -s "$T/heat.miss" ] && diag "$T/heat.miss" "$T/heat.rows"
# without --event: the same picture (allocations are no accesses)
"$tool" plot heat -i "$T/o.data" -o "$T/heatall.svg" 2>/dev/null
sed 's/ samples of page-faults,/ samples,/' "$T/heat.svg" | cmp -s - "$T/heatall.svg"
ok_rc $? "plot heat leaves the pebs-shim:alloc/free samples out"
start=$(sed -n 's|.*<text x="6.0" y="[0-9.]*">\(0x[0-9a-f]*\) 4 MiB alloc_big &lt;- main</text>.*|\1|p' \
	"$T/heat.svg")
end=$(printf '%#x' $(( ${start:-0} + (4 << 20) )))
"$tool" plot heat -i "$T/o.data" --event page-faults --granule page \
	--range "${start:-0}-$end" -o "$T/heatp.svg" 2>/dev/null
n=$(grep -c '<text x="6.0" y="[0-9.]*">0x[0-9a-f]* alloc_big &lt;- main</text>' \
	"$T/heatp.svg")
[ "$n" = 48 ]
ok_rc $? "plot heat --granule page --range (alloc_big's): its pages named by it ($n of 48 rows)"

# export --format pprof: the allocations (pebs-shim:alloc, sizes as
# periods) are left out of the profile: its total is the page faults'
# (report's samples by object), read by go tool pprof
GO=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null)
if [ -n "$GO" ]; then
	"$tool" export --format pprof -i "$T/o.data" -o "$T/o.pb.gz" \
		--labels data_object 2>/dev/null &&
	"$GO" tool pprof -top "$T/o.pb.gz" 2>/dev/null >"$T/top"
	n=$(sed -n 's/.*Total samples = \([0-9]*\) *$/\1/p' "$T/top")
	[ -n "$n" ] &&
		[ "$n" = "$(awk -F, '$10 == "" { s += $4 } END { print s }' "$T/r.csv")" ]
	ok_rc $? "pprof -top: the profile's $n samples are the page faults (no allocation's bytes)"
else
	skip "go is not installed (apt-get install golang-go): no go tool pprof to read the export"
fi

perf report -i "$T/o.data" --stdio >/dev/null 2>"$T/perr"
empty "perf report reads the file without a warning" "$T/perr"
perf script -i "$T/o.data" -F event,addr >"$T/script" 2>"$T/serr"
n=$(grep -c 'pebs-shim:alloc' "$T/script")
[ ! -s "$T/serr" ] && [ "$n" -ge 5 ]
ok_rc $? "perf script shows the pebs-shim:alloc samples ($n), silently"

# fork and exec: sh runs the workload as a child, which is preloaded again
"$tool" record --objects -e page-faults -c 1 -d -o "$T/x.data" -- \
	sh -c "\"$wl\"; true" >/dev/null 2>"$T/xerr" &&
"$tool" report -i "$T/x.data" --sort object --format csv >"$T/x.csv" \
	2>/dev/null
rows "$T/x.csv" object | grep -q '^alloc_big 1024$'
ok_rc $? "a program exec'd by a child of the command keeps its objects"

# a recording killed (SIGKILL) after the objects were seen keeps them:
# its header has no event names, the events are known by their ids
"$tool" record --objects -e page-faults -c 1 -d -o "$T/k.data" -- \
	sh -c "echo \$\$ >\"$T/k.pid\"; \"$wl\" >\"$T/k.out\"; exec sleep 30" \
	>/dev/null 2>&1 &
rec=$!
for _ in $(seq 100); do grep -q first= "$T/k.out" 2>/dev/null && break
	sleep 0.1; done
sleep 2	# the writer updates the file's header at least once a second
kill -9 "$rec"
wait "$rec" 2>/dev/null
kill "$(cat "$T/k.pid")" 2>/dev/null
"$tool" report -i "$T/k.data" --sort object --format csv >"$T/k.csv" \
	2>/dev/null
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "object") oc = i }
	 $4 == 1024 && $oc ~ /^alloc_big / { f = 1 } END { exit !f }' \
	"$T/k.csv"
ok_rc $? "a SIGKILLed recording keeps the objects it had seen"

# small allocations sampled by bytes: the periods (bytes each sample
# stands for) sum to the bytes allocated; ~190 samples expected (a
# Poisson count: 7.2 %), so +-35 % is 5 standard deviations
"$tool" record --objects -e page-faults -c 1000 -o "$T/s.data" -- \
	"$wl" --small >"$T/s.out" 2>/dev/null &&
"$tool" report -i "$T/s.data" --sort object --event pebs-shim:alloc \
	--format csv >"$T/s.csv" 2>/dev/null
bytes=$(sed -n 's/^bytes=//p' "$T/s.out")
est=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "object") oc = i }
	$10 == "pebs-shim:alloc" && $oc ~ /^alloc_tiny / { s += $3 }
	END { print s + 0 }' "$T/s.csv")
awk -v b="${bytes:-0}" -v e="$est" 'BEGIN { exit !(b > 0 && e > 0.65 * b &&
	e < 1.35 * b) }'
ok_rc $? "sampled small allocations estimate the bytes allocated ($est of ${bytes:-?})"
# the site's row: instances and bytes are the estimates of all of them
# (each sample counted period / size times), not the ~190 sampled: its
# bytes are the periods' sum, and each sample of at most 1000 bytes
# stands for 1 / (1 - exp(-1000 / 512Ki)) = 524.8 objects or more. (How
# near 200000 the instances come is checked at 16 KiB below: here one
# sample of a 1-byte block stands for 524288, and the estimate's
# standard deviation is 14 %, sqrt(200 x sum over s of 512Ki / s).)
set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	$10 == "pebs-shim:alloc" && $c["object"] ~ /^alloc_tiny / {
		print $c["instances"], $c["bytes"], $c["samples"] }' "$T/s.csv")
[ "$2" = "$est" ] && awk -v n="${1:-0}" -v k="${3:-0}" \
	'BEGIN { exit !(k > 0 && n >= 524 * k) }'
ok_rc $? "the site's instances and bytes estimate all 200000 allocations, not the sampled ones (${1:-?} instances, ${2:-?} bytes, from ${3:-?} samples)"

# --objects=BYTES: a mean interval of 16 KiB samples ~32 times as many
# (~6000), and their periods still sum to the bytes allocated (+-6 % is
# over 4 standard deviations), their instances to the 200000 allocations
# (+-15 %: the standard deviation is 2.5 %, sqrt(200 x sum over s of
# 16Ki / s) / 200000, and one sample of a 1-byte block stands for 16384)
"$tool" record --objects=16K -e page-faults -c 1000 -o "$T/s16.data" -- \
	"$wl" --small >"$T/s16.out" 2>/dev/null &&
"$tool" report -i "$T/s16.data" --sort object --event pebs-shim:alloc \
	--format csv >"$T/s16.csv" 2>/dev/null
bytes=$(sed -n 's/^bytes=//p' "$T/s16.out")
set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	$10 == "pebs-shim:alloc" && $c["object"] ~ /^alloc_tiny / {
		s += $3; n += $4; k += $c["instances"] }
	END { print s + 0, n + 0, k + 0 }' "$T/s16.csv")
awk -v b="${bytes:-0}" -v e="$1" -v n="$2" -v i="$3" 'BEGIN {
	exit !(b > 0 && e > 0.94 * b && e < 1.06 * b && n > 4000 && n < 8000 &&
	       i > 170000 && i < 230000) }'
ok_rc $? "--objects=16K samples ~32x more, and estimates the bytes allocated ($1 of ${bytes:-?} in $2 samples) and the allocations ($3 of 200000)"
"$tool" record --objects=0 -e page-faults -o "$T/z.data" -- true 2>"$T/zerr"
[ $? = 123 ] && [ "$(wc -l <"$T/zerr")" = 1 ] &&
	grep -q -- "bad --objects value '0'.*--objects=BYTES" "$T/zerr" &&
	[ ! -e "$T/z.data" ]
ok_rc $? "--objects=0 is a one-line usage error naming the forms"

# a malloc called with a frame pointer the stack walk cannot follow
# (-16: the walk's bound once wrapped around, and as, built without
# frame pointers, crashed under the interposer)
"$tool" record --objects=all -e page-faults -o "$T/fp.data" -- \
	"$wl" --bad-fp >"$T/fp.out" 2>/dev/null
rc=$?
a=$(sed -n 's/^bad-fp=0x//p' "$T/fp.out")
[ "$rc" = 0 ] && [ -n "$a" ] &&
	"$tool" script -i "$T/fp.data" -F event,addr 2>/dev/null |
	grep -q "^pebs-shim:alloc: *$a\$"
ok_rc $? "a malloc under a frame pointer of -16 is recorded, the command unharmed (rc $rc)"

# a statically linked command never runs the interposer: record says so
if printf 'int main(void) { return 0; }\n' |
	cc -static -x c - -o "$T/static" 2>/dev/null; then
	"$tool" record --objects -e page-faults -o "$T/st.data" -- "$T/static" \
		2>"$T/sterr"
	[ $? = 0 ] && grep -q "objects: no process of the command ran libpebsshim-objects.so (statically linked" "$T/sterr"
	ok_rc $? "a static command: record says no process ran the interposer"
else
	skip "cc -static cannot link here (no libc.a)"
fi

# --objects=all: every one of them
"$tool" record --objects=all -e page-faults -c 1000 -o "$T/a.data" -- \
	"$wl" --small >/dev/null 2>&1 &&
"$tool" report -i "$T/a.data" --sort object --event pebs-shim:alloc \
	--format csv >"$T/a.csv" 2>/dev/null
n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "object") oc = i }
	$10 == "pebs-shim:alloc" && $oc ~ /^alloc_tiny / { s += $4 }
	END { print s + 0 }' "$T/a.csv")
[ "$n" = 200000 ]
ok_rc $? "--objects=all records every allocation ($n of 200000)"
set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	$10 == "pebs-shim:alloc" && $c["object"] ~ /^alloc_tiny / {
		print $c["instances"], $c["bytes"], $c["peak_live"] }' "$T/a.csv")
[ "$1 $2 $3" = "200000 100100000 1000" ]
ok_rc $? "--objects=all: the site's instances, bytes and peak live exact ($1, $2, $3)"

# the ring loses nothing under load: bench/allocs (2 threads) makes
# 2 x 50000 more allocations and frees with N = 50001 than with N = 1,
# a ring's worth of records several times over
allocs=$PEBS_BUILD/bench/allocs
if [ -x "$allocs" ]; then
	for n in 1 50001; do
		"$tool" record --objects=all -e cpu-clock -o "$T/b.data" -- \
			"$allocs" 2 $n 2>&1 >/dev/null |
			sed -n 's/.*objects: \([0-9]*\) allocations and \([0-9]*\) releases.*/\1 \2/p'
	done >"$T/b.counts"
	d=$(awk 'NR == 1 { a = $1; f = $2 } NR == 2 { print $1 - a, $2 - f }' \
		"$T/b.counts")
	[ "$d" = "100000 100000" ]
	ok_rc $? "--objects=all on 2 threads x 50000 allocations loses none ($d more allocations and releases)"

	# default sampling: the free of every tracked allocation is
	# recorded, a big chunk's (told by glibc's chunk size) and a
	# sampled small one's (found through the filter) alike: bench/allocs
	# frees all it allocated, and each of its 2 threads' stacks is
	# released at its exit
	c=$("$tool" record --objects -e cpu-clock -o "$T/bd.data" -- \
		"$allocs" 2 200000 2>&1 >/dev/null |
		sed -n 's/.*objects: \([0-9]*\) allocations and \([0-9]*\) releases.*/\1 \2/p')
	awk -v c="$c" 'BEGIN { split(c, n, " "); exit !(n[1] > 1000 && n[2] == n[1] + 2) }'
	ok_rc $? "default sampling records the free of every tracked allocation (allocations and releases: $c)"

	# a command SIGKILLed while its threads allocate (it may leave a
	# record half written): the recording still ends, at once
	start=$(date +%s)
	timeout 60 "$tool" record --objects=all -e cpu-clock -o "$T/kk.data" -- \
		sh -c "\"$allocs\" 2 100000000 & sleep 0.5; kill -9 \$!; wait" \
		>/dev/null 2>"$T/kkerr"
	rc=$?
	[ "$rc" = 0 ] && [ $(( $(date +%s) - start )) -lt 10 ]
	ok_rc $? "a command killed while allocating on two threads: the recording ends (rc $rc)"
	[ "$rc" = 0 ] || diag "$T/kkerr"

	# the recorder SIGKILLed while the ring is full: the command stops
	# tracking and finishes (it does not wait for the dead recorder)
	"$tool" record --objects=all -e cpu-clock -o "$T/rk.data" -- \
		sh -c "echo \$\$ >\"$T/rk.pid\"; \"$allocs\" 2 3000000; echo rc=\$? >\"$T/rk.out\"" \
		>/dev/null 2>&1 &
	rec=$!
	sleep 0.5
	kill -STOP "$rec"	# the ring fills
	sleep 0.5
	kill -9 "$rec"
	wait "$rec" 2>/dev/null
	for _ in $(seq 200); do grep -q rc= "$T/rk.out" 2>/dev/null && break
		sleep 0.1; done
	grep -q '^rc=0$' "$T/rk.out"
	ok_rc $? "the recorder killed while the ring is full: the command finishes"
	# on a failure, the command still waits: end it
	[ -s "$T/rk.pid" ] && pkill -P "$(cat "$T/rk.pid")" 2>/dev/null
else
	for _ in 1 2 3 4; do skip "no $allocs: make all builds it"; done
fi

# a process that outlives the recording is not hurt (no SIGPIPE): it
# allocates after record ended and still exits 0
"$tool" record --objects -e page-faults -c 1000 -o "$T/d.data" -- \
	sh -c "(sleep 1; \"$wl\" --small >\"$T/d.out\"; echo rc=\$? >>\"$T/d.out\") &" \
	>/dev/null 2>&1
for _ in $(seq 100); do grep -q rc= "$T/d.out" 2>/dev/null && break
	sleep 0.1; done
grep -q '^rc=0$' "$T/d.out"
ok_rc $? "a process that outlives the recording keeps running (no SIGPIPE)"

sleep 5 &
pid=$!
"$tool" record --objects -e page-faults -p "$pid" --duration 0.2 \
	-o "$T/p.data" >/dev/null 2>"$T/perr2"
rc=$?
kill "$pid" 2>/dev/null
[ "$rc" = 0 ] &&
	[ "$(grep -c -- '--objects: -p cannot preload' "$T/perr2")" = 1 ]
ok_rc $? "-p: --objects says in one line it cannot preload, and records"

"$tool" record --objects --format csv -e page-faults -o "$T/c.csv" -- true \
	2>"$T/cerr"
[ $? = 123 ] && grep -q -- "--objects with --format csv" "$T/cerr"
ok_rc $? "--objects with --format csv is a usage error naming both"

# threads: the second thread's stack ([stack:TID], 16 pages of a local
# array written, and the frames below it) and its TLS block of the
# workload (32 KiB; glibc zeroes it in pthread_create, before the thread
# starts, so those faults precede the object: the thread drops its pages
# and writes them again, 8 faults inside it)
"$tool" script -i "$T/o.data" -F tid,period,event,ip,dso >"$T/th.txt" \
	2>/dev/null
pid=$(awk '$3 == "pebs-shim:stack:" { print $1; exit }' "$T/th.txt")
tid=$(awk '$3 == "pebs-shim:stack:" { n++; if (n == 2) print $1 }' "$T/th.txt")
n=$(rows "$T/r.csv" object | awk -v l="[stack:$tid]" '$1 == l { print $2 }')
[ -n "$tid" ] && [ "$tid" != "$pid" ] && [ "${n:-0}" -ge 16 ] &&
	[ "${n:-0}" -le 20 ]
ok_rc $? "the thread's stack is an object, [stack:$tid], with its local array's 16 page faults ($n)"
grep -Eq "^ *$tid +32768 +pebs-shim:tls: .*\(.*/workloads/objects\)\$" \
	"$T/th.txt"
ok_rc $? "the thread's TLS block of the workload is an object (pebs-shim:tls, 32768 bytes, named by the workload)"
n=$(rows "$T/r.csv" object | awk -v l="[tls:$tid]" '$1 == l && $2 == "objects" { print $3 }')
[ "${n:-0}" = 8 ]
ok_rc $? "the TLS block's page faults (its 8 pages, dropped and written again by the thread) land in [tls:$tid] objects ($n)"

# the interposer's own memory (its tables, its data, the ring's pages
# the command writes) is one object, named as such, not "set" or a file
n=$(rows "$T/r.csv" object | awk '$1 == "[pebs-shim" { print $NF }')
rows "$T/r.csv" object | grep -Eq '^(set|libpebsshim-objects|memfd:)' ||
	[ "${n:-0}" -lt 1 ]
[ $? = 1 ]
ok_rc $? "the interposer's own memory is one object, [pebs-shim interposer] ($n samples)"
# --phys-data: every sample with a physical address counts in node_local
# or node_remote by its NUMA node against its CPU's; on a machine of one
# node, all in node_local
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
"$tool" record --objects --phys-data -e page-faults -c 1 -d \
	-o "$T/n.data" -- "$wl" >/dev/null 2>"$T/nerr"
rc=$?
if [ "$rc" != 0 ] && grep -q "permission denied" "$T/nerr"; then
	skip_n 2 "--phys-data (PERF_SAMPLE_PHYS_ADDR) refused: run as root or lower perf_event_paranoid to 1"
elif [ "$nodes" != 1 ]; then
	skip_n 2 "$nodes NUMA nodes in /sys/devices/system/node: remote accesses may be real (one node needed)"
else
	"$tool" report -i "$T/n.data" --sort object --format csv \
		>"$T/n.csv" 2>>"$T/nerr"
	# the last two columns (an object's label may hold commas)
	awk -F, 'NR == 1 { h = ($(NF - 1) == "node_local" && $NF == "node_remote"); next }
		 { loc += $(NF - 1); rem += $NF }
		 END { print "# node_local", loc, "node_remote", rem
		       exit !(h && loc > 0 && rem == 0) }' "$T/n.csv"
	ok_rc $? "--phys-data on one node: CSV counts accesses in node_local, none in node_remote"
	diag "$T/nerr"
	"$tool" report -i "$T/n.data" --sort object --format json \
		>"$T/n.json" 2>/dev/null &&
	grep -q '"node_local": [1-9]' "$T/n.json" &&
	! grep -q '"node_remote": [1-9]' "$T/n.json" &&
	"$tool" report -i "$T/n.data" --sort object --top 100 2>/dev/null |
		grep -q 'node-lcl  node-rmt'
	ok_rc $? "JSON has node_local and no node_remote, text the node-lcl and node-rmt columns"
fi
