#!/bin/bash
# script-formats.t - `pebs-shim script --format csv|jsonl` loads in
# Python's csv and json modules: the header row and keys are the fields
# asked, in order, one row per sample (as many as report counts), the
# same values in both; the filters leave out what report's leave out;
# a pipe (-i -) gives the same rows as the file; attr_tid, from the
# recording's switch records (record -a --switch-events: the kernel's),
# names the sample's own thread.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/script-formats-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

INTEL=$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
AMD=$S/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data
echo "1..16"
if ! command -v python3 >/dev/null; then
	skip_n 15 "no python3"
	exit 0
fi

# load FILE.csv FILE.jsonl NROWS COLS: both load, with these columns, NROWS
# rows, and the same values (csv text = json value as text)
load() {
	python3 - "$@" <<'PY'
import csv, json, sys
cpath, jpath, nrows, cols = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
with open(cpath, newline="") as f:
    r = csv.reader(f)
    head = next(r)
    rows = list(r)
with open(jpath) as f:
    objs = [json.loads(l) for l in f]
assert head == cols, ("csv header", head, cols)
assert len(rows) == nrows, ("csv rows", len(rows), nrows)
assert len(objs) == nrows, ("jsonl rows", len(objs), nrows)
for row, obj in zip(rows, objs):
    assert list(obj) == cols, ("jsonl keys", list(obj))
    for c, v in zip(cols, row):
        j = obj[c]
        j = "" if j is None else str(j)
        if c == "time":
            assert abs(float(v) - float(j)) < 1e-6, (c, v, j)
        else:
            assert v == j, (c, v, j)
PY
}

# FILE SAMPLES: the default columns and a chosen set
for f in "$INTEL:14" "$AMD:27447"; do
	file=${f%:*} n=${f##*:}
	name=$(basename "$file" .perf.data)
	"$PS" script -i "$file" --format csv >"$T/a.csv"
	rc1=$?
	"$PS" script -i "$file" --format jsonl >"$T/a.jsonl"
	rc2=$?
	check "$name: csv and jsonl exit 0" test "$rc1$rc2" = 00
	cols=comm,pid,tid,time,cpu,event,ip,sym,dso,addr,data_src,weight,period,phys_addr,attr_tid,mem_level,data_object
	check "$name: default columns, $n rows, same values" \
		load "$T/a.csv" "$T/a.jsonl" "$n" "$cols"
	cols=time,tid,addr,mem_level,weight,callchain
	"$PS" script -i "$file" --format csv -F $cols >"$T/b.csv"
	"$PS" script -i "$file" --format jsonl -F $cols >"$T/b.jsonl"
	check "$name: -F $cols in that order" \
		load "$T/b.csv" "$T/b.jsonl" "$n" "$cols"
done

# the AMD fixture's addresses: its physical addresses and data sources
check "AMD: phys_addr and data_src filled where sampled" python3 -c "
import json
objs = [json.loads(l) for l in open('$T/a.jsonl')]
assert all(o['phys_addr'] is not None and o['data_src'] is not None for o in objs)
assert any(o['mem_level'] not in ('N/A', None) for o in objs)
"
# filters: --cpu as report's (its sample count), --tid
n=$("$PS" script -i "$AMD" --format csv -F cpu --cpu 0-3 | tail -n +2 | wc -l)
m=$("$PS" script -i "$AMD" --format csv -F cpu | tail -n +2 |
	awk -F, '$1 <= 3' | wc -l)
check "--cpu 0-3 keeps the samples of CPUs 0-3 ($n)" test "$n" = "$m" -a "$n" -gt 0
tid=$("$PS" script -i "$AMD" --format csv -F tid | sed -n 2p)
n=$("$PS" script -i "$AMD" --format csv -F tid --tid "$tid" | tail -n +2 | sort -u)
check "--tid $tid keeps that thread only" test "$n" = "$tid"
"$PS" script -i "$AMD" -F tid --time 0%-10% >"$T/t10" &&
n=$(wc -l <"$T/t10")
check "--time 0%-10% keeps some, not all ($n)" test "$n" -gt 0 -a "$n" -lt 27447

# a pipe: the same rows as the file (perf's pipe format, from perf or
# from pebs-shim record -o -)
if "$PS" record -e page-faults -d -c 1 -o - -- \
	sh -c "'$B/workloads/touchpages' 16 >/dev/null" 2>/dev/null \
	>"$T/pipe.data" && [ -s "$T/pipe.data" ]; then
	"$PS" script -i - --format csv <"$T/pipe.data" >"$T/p1.csv"
	cat "$T/pipe.data" | "$PS" script -i - --format csv >"$T/p2.csv"
	check "a pipe gives the rows of the file" \
		bash -c "test -s '$T/p1.csv' && cmp -s '$T/p1.csv' '$T/p2.csv'"
	check "... one per sample" test "$(wc -l <"$T/p2.csv")" -gt 16
else
	skip_n 2 "cannot record page faults to a pipe here"
fi
# attr_tid: the thread the switch records put on the sample's CPU
if need percpu; then
	"$PS" record -a --switch-events -e page-faults -d -c 1 -o "$T/sw.data" \
		-- sh -c "echo pid=\$\$ >'$T/sw.pid'; exec '$B/workloads/memwalk' --seconds 0.2 --mb 4" \
		>/dev/null 2>&1
	# the workload's samples: a process running when the recording
	# began has no switch record on its CPU until it is switched out
	# (many, on a busy machine), the workload's threads start after it
	"$PS" script -i "$T/sw.data" --format csv -F pid,tid,attr_tid |
		awk -F, -v w="$(sed -n 's/^pid=//p' "$T/sw.pid")" \
			'NR > 1 && $1 == w { n++; if ($3 != "") { a++; m += $2 == $3 } }
			 END { print n + 0, a + 0, m + 0 }' >"$T/sw"
	read -r n a m <"$T/sw"
	check "attr_tid from switch records: most of the workload's samples have one ($a of $n)" \
		test "$n" -gt 0 -a "$a" -gt $((n * 9 / 10))
	check "... and it is the sample's own thread ($m of $a)" test "$m" = "$a"
else
	skip_n 2 "$why"
fi
"$PS" script -i "$INTEL" --format xml >/dev/null 2>"$T/err"
check "a bad --format exits 2 naming the formats" \
	bash -c "test $? = 2 && grep -q 'give text, csv or jsonl' '$T/err'"
# a recording of record --objects: data_object names its data objects
# (one fault per page of alloc_big's 4 MiB)
"$PS" record --objects -e page-faults -c 1 -d -o "$T/obj.data" -- \
	"$B/workloads/objects" >/dev/null 2>&1
rc=$?
"$PS" script -i "$T/obj.data" --event page-faults -F data_object \
	--format csv >"$T/obj.csv" 2>"$T/err"
n=$(grep -cE '^"?alloc_big \(objects\.c:[0-9]+\) <- main"?$' "$T/obj.csv")
check "data_object: record --objects' objects by site (alloc_big $n of 1024)" \
	bash -c "test $rc = 0 && test ! -s '$T/err' && test $n = 1024"
[ "$rc" = 0 ] && [ "$n" = 1024 ] && [ ! -s "$T/err" ] ||
	{ echo "# record exit $rc; data_object of the page faults:"
	  sort "$T/obj.csv" | uniq -c | sort -rn | head -5 | sed 's/^/# /'
	  diag "$T/err"; }
