#!/bin/bash
# report-format.t - `pebs-shim report --format=csv|json`: the documented
# columns and keys, every row (no --top cut), values that agree with the
# text output, quoting of awkward strings, a bad --format refused, and
# -q (perf report -q: the rows only).
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-format-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..11"
I=$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
A=$S/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data

"$PS" report -i "$I" --format=csv >"$T/i.csv" 2>"$T/i.err"
check "csv: the documented header line" \
	test "$(head -1 "$T/i.csv")" = "table,overhead,period,samples,avg_weight,loads,stores,hitm,threads,event,pid,tgid,tid,comm,dso,sym,cpu,page,line,addr,src,symbol_daddr,dso_daddr,mem,snoop,tlb,dcacheline,phys_daddr,weight,local_weight,locked,blocked,local_ins_lat,object,object_instance"
check "csv: each table's samples add up to the 14 samples" python3 - "$T/i.csv" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
n = collections.Counter()
for r in rows:
	n[r['table']] += int(r['samples'])
want = {'threads': 14, 'symbols': 14, 'data pages': 14, 'cache lines': 14, 'data sources': 14}
sys.exit(0 if all(n[t] == v for t, v in want.items()) else 1)
PY

"$PS" report -i "$A" --format=json >"$T/a.json" 2>"$T/a.err"
check "json: parses; all 552 cache lines, 27447 samples, no stderr" python3 - "$T/a.json" "$T/a.err" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
t = {x['title']: x for x in d['tables']}
ok = (d['samples'] == 27447 and t['cache lines']['keys'] == ['line'] and
      len(t["cache lines"]["rows"]) == 552 and
      sum(r['samples'] for r in t['cache lines']['rows']) == 5855 and
      os.path.getsize(sys.argv[2]) == 0)
sys.exit(0 if ok else 1)
PY
check "json: the contended line as in the text (2.18 %, 125 samples, 2 HitM)" python3 - "$T/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for t in d['tables'] if t['title'] == 'cache lines' for r in t['rows']
	if r['line'] == '0x624b89b17180']
r = rows[0]
sys.exit(0 if (len(rows) == 1 and round(r['overhead'], 2) == 2.18 and
	       r['samples'] == 125 and r['loads'] == 26 and r['stores'] == 99 and
	       r['hitm'] == 2 and r['threads'] == 9) else 1)
PY
"$PS" report -i "$I" --format=json --sort comm,sym --top 3 >"$T/top.json"
check "json: --top still cuts when given (3 rows)" python3 -c "
import json, sys; d = json.load(open('$T/top.json'))
sys.exit(0 if len(d['tables'][0]['rows']) == 3 else 1)"

# synthetic varying periods (tests/unit/test-report)
PEBS_REPORT_KEEP=$T "$B/tests/unit/test-report" >/dev/null 2>&1
"$PS" report -i "$T/periods.data" --format=csv --sort sym,dso >"$T/p.csv"
check "csv: the period share per symbol (90.9091 / 9.0909)" \
	bash -c "grep -q '^samples by --sort keys,90.9091,9000,1,' '$T/p.csv' &&
		 grep -q '^samples by --sort keys,9.0909,900,9,' '$T/p.csv'"

"$PS" report -i "$I" --format=xml >/dev/null 2>"$T/bad.err"
rc=$?
check "--format=xml: exit 2, one line naming the choices" \
	bash -c "test $rc = 2 && test \$(wc -l <'$T/bad.err') = 1 &&
		 grep -q 'text, csv or json' '$T/bad.err'"

# --event: samples of the named events only
"$PS" report -i "$I" --format=csv --sort comm --event dummy:HG >"$T/ev0.csv"
"$PS" report -i "$I" --format=csv --sort comm \
	--event 'MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned' >"$T/ev1.csv"
check "--event: dummy:HG has no rows, the ldlat event all 14 samples" \
	bash -c "test \$(wc -l <'$T/ev0.csv') = 1 &&
		 awk -F, 'NR > 1 { s += \$4 } END { exit s != 14 }' '$T/ev1.csv'"
"$PS" report -i "$I" --event bogus >/dev/null 2>"$T/ev.err"
rc=$?
check "--event bogus: exit 2, one line naming it" \
	bash -c "test $rc = 2 && test \$(wc -l <'$T/ev.err') = 1 &&
		 grep -q \"no event 'bogus'\" '$T/ev.err'"

# -q (perf report -q): every line a row or a blank line between tables
"$PS" report -i "$I" -q >"$T/q.txt" 2>"$T/q.err"
rc=$?
check "-q: the default tables' rows only, blank lines between them" \
	bash -c "test $rc = 0 && test -s '$T/q.txt' &&
		 ! grep -Evq '^ +[0-9.]+%|^$' '$T/q.txt' &&
		 test \$(grep -c '^$' '$T/q.txt') -ge 2"
"$PS" report -i "$I" --quiet --no-inline --sort sym --top 0 >"$T/q1.txt"
"$PS" report -i "$I" --sort sym --top 0 | grep -E '^ +[0-9.]+%' >"$T/q2.txt"
check "--quiet --sort sym: the same rows as without it (--no-inline accepted)" \
	cmp -s "$T/q1.txt" "$T/q2.txt"
