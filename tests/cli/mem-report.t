#!/bin/bash
# mem-report.t - `pebs-shim mem report` against `perf mem report --stdio`
# on every fixture with weights, row by row: Overhead (each row's share
# of the total weight), Samples and every column of perf mem's default
# keys, and the "Total weight" and "Sort order" header lines. perf 6.1
# names a level twice ("L1 or L1 hit", from mem_lvl and mem_lvl_num);
# pebs-shim names it once ("L1 hit"): perf's is read that way. A fixture
# perf mem report cannot read (the AMD IBS one: "incompatible file
# format") is skipped with perf's reason.
S=$PEBS_SRC
B=${PEBS_BUILD:-$S/build}
PS=$B/pebs-shim
. "$S/tests/tap.sh"
[ -x "$PS" ] || skip_all "no $PS: build it first"
command -v perf >/dev/null || skip_all "perf is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
T=$(mktemp -d /tmp/pebs-memrep.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo 1..8

n=0
for f in "$S"/tests/fixtures/*.perf.data; do
	name=$(basename "$f" .perf.data)
	n=$((n + 1))
	if ! perf mem report --stdio -i "$f" >"$T/perf.txt" 2>"$T/perf.err" ||
	   ! grep -q '^# Total weight' "$T/perf.txt"; then
		skip_n 3 "$name: perf mem report has no table ($(grep -v '^$' "$T/perf.err" | head -1))"
		continue
	fi
	"$PS" mem report -i "$f" --top 0 >"$T/ours.txt" 2>"$T/ours.err"
	"$PS" mem report -i "$f" --format csv >"$T/ours.csv" 2>/dev/null
	for h in "Total weight" "Sort order"; do
		p=$(grep "^# $h" "$T/perf.txt")
		o=$(grep "^# $h" "$T/ours.txt")
		if [ -n "$p" ] && [ "$p" = "$o" ]; then ok "$name: '$p'"
		else nok "$name: the '$h' line is perf's" "perf: $p" "ours: $o"; fi
	done
	python3 - "$T/perf.txt" "$T/ours.csv" >"$T/cmp.out" 2>&1 <<'PY'
import csv, re, sys
lines = open(sys.argv[1]).read().split('\n')
# the column spans: the dotted line under the titles
i = next(k for k, l in enumerate(lines) if l.startswith('# ....'))
titles, dots = lines[i - 1], lines[i]
spans = [(m.start(), m.end()) for m in re.finditer(r'\.+', dots)]
# a column runs from its dots to the next column's start
cols = [(a, spans[j + 1][0] if j + 1 < len(spans) else None)
	for j, (a, _) in enumerate(spans)]
names = [titles[a:b].strip() for a, b in cols]
key = {'Local Weight': 'local_weight', 'Memory access': 'mem',
       'Symbol': 'sym', 'Shared Object': 'dso',
       'Data Symbol': 'symbol_daddr', 'Data Object': 'dso_daddr',
       'Snoop': 'snoop', 'TLB access': 'tlb', 'Locked': 'locked',
       'Blocked': 'blocked', 'Local INSTR Latency': 'local_ins_lat'}
def lvl(s):
	return re.sub(r'^(.+) or \1 (hit|miss)$', r'\1 \2', s)
perf = []
for l in lines[i + 1:]:
	if not re.match(r'^ +[0-9.]+%', l):
		continue
	c = [l[a:b].strip() if b else l[a:].strip() for a, b in cols]
	row = [c[0], c[1]]
	for nm, v in zip(names[2:], c[2:]):
		row.append(lvl(v) if nm == 'Memory access' else v)
	perf.append(row)
ours = []
for r in csv.DictReader(open(sys.argv[2])):
	ours.append(['%.2f%%' % float(r['overhead']), r['samples']] +
		    [r[key[nm]] for nm in names[2:]])
bad = [(p, o) for p, o in zip(perf, ours) if p != o]
print(len(perf), 'rows,', len(names), 'columns:', ', '.join(names))
for p, o in bad[:3]:
	print('perf:', p); print('ours:', o)
sys.exit(1 if bad or len(perf) != len(ours) or not perf else 0)
PY
	if [ $? = 0 ]; then ok "$name: every row is perf mem report's ($(head -1 "$T/cmp.out"))"
	else nok "$name: every row is perf mem report's" "$(head -7 "$T/cmp.out")"; fi
done
# the fixtures' count is in the plan: 3 tests each, and these 2
[ $n = 2 ] || nok "2 fixtures expected, found $n"
"$PS" mem >/dev/null 2>"$T/err"
rc=$?
[ $rc = 2 ] && grep -q "no subcommand: use pebs-shim mem record .*pebs-shim mem report" "$T/err"
ok_rc $? "mem without a subcommand: exit 2 and one line naming the fix"
"$PS" mem record-nothing >/dev/null 2>"$T/err"
rc=$?
[ $rc = 2 ] && grep -q "unknown subcommand record-nothing: use" "$T/err"
ok_rc $? "mem with an unknown subcommand: exit 2, naming it"
