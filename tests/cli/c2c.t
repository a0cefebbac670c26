#!/bin/bash
# c2c.t - `pebs-shim c2c report` on the real fixtures (AMD Zen 4 IBS
# perf c2c recording, Intel SKX load latency): every line's counters
# equal those computed independently here from `perf script`'s addr and
# data_src fields by perf's c2c_decode_stats rules (perf 6.1,
# tools/perf/util/mem-events.c); the summary blocks, the shared line
# table and the pareto rows equal `perf c2c report --stdio`'s; a
# page-fault recording of memwalk --share (no data source) is ranked by
# cross-thread writes and shows the two threads writing one line.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/c2c-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..23"

AMD=$S/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data
INTEL=$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data

# perf 6.1 refuses attr size 136 (the AMD file): a copy with each attr
# cut to 128 bytes (the fields past 128 are zero there) reads the same.
python3 - "$AMD" "$T/amd128.data" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
_, _, asz, aoff, alen = struct.unpack_from('<QQQQQ', b, 0)
ents = []
for i in range(alen // asz):
	e = b[aoff + i * asz:aoff + (i + 1) * asz]
	a = bytearray(e[:128])
	struct.pack_into('<I', a, 4, 128)
	ents.append(bytes(a) + bytes(e[asz - 16:]))
new = b''.join(ents)
b[aoff:aoff + len(new)] = new
struct.pack_into('<QQQ', b, 16, 144, aoff, len(new))
open(sys.argv[2], 'wb').write(b)
EOF

# Independent counts: perf script's fields, perf's decode rules, lines
# keyed by (pid, line) for user addresses and (0, line) for kernel ones.
cat >"$T/check.py" <<'EOF'
import json, re, sys
script, js = sys.argv[1:3]
NAMES = ('nr_entries locks store st_uncache st_noadrs st_l1hit st_l1miss '
	 'st_na load ld_excl ld_shared ld_uncache ld_io ld_miss ld_noadrs '
	 'ld_fbhit ld_l1hit ld_l2hit ld_llchit lcl_hitm rmt_hitm tot_hitm '
	 'lcl_peer rmt_peer tot_peer rmt_hit lcl_dram rmt_dram blk_data '
	 'blk_addr noparse').split()

def bits(v, lo, n):
	return (v >> lo) & ((1 << n) - 1)

def decode(st, v, addr):
	op, lvl, snoop = bits(v, 0, 5), bits(v, 5, 14), bits(v, 19, 5)
	lock, remote, snoopx = bits(v, 24, 2), bits(v, 37, 1), bits(v, 38, 2)
	blk, hops = bits(v, 40, 3), bits(v, 43, 3)
	HIT, MISS, L1, LFB, L2, L3, LOC_RAM = 2, 4, 8, 16, 32, 64, 128
	REM_RAM1, REM_RAM2, REM_CCE1, REM_CCE2, IO, UNC, NA = (
		256, 512, 1024, 2048, 4096, 8192, 1)
	S_HIT, S_HITM, PEER = 4, 16, 2
	mrem = remote and not hops
	def inc(*k):
		for x in k:
			st[x] += 1
	inc('nr_entries')
	if lock & 2: inc('locks')
	if blk & 2: inc('blk_data')
	if blk & 4: inc('blk_addr')
	if op & 2:
		inc('load')
		if not addr:
			inc('ld_noadrs'); return
		if lvl & HIT:
			if lvl & UNC: inc('ld_uncache')
			if lvl & IO: inc('ld_io')
			if lvl & LFB: inc('ld_fbhit')
			if lvl & L1: inc('ld_l1hit')
			if lvl & L2:
				inc('ld_l2hit')
				if snoopx & PEER: inc('lcl_peer', 'tot_peer')
			if lvl & L3:
				if snoop & S_HITM: inc('lcl_hitm', 'tot_hitm')
				else: inc('ld_llchit')
				if snoopx & PEER: inc('lcl_peer', 'tot_peer')
			if lvl & LOC_RAM:
				inc('lcl_dram')
				inc('ld_shared' if snoop & S_HIT else 'ld_excl')
			if lvl & (REM_RAM1 | REM_RAM2) or mrem:
				inc('rmt_dram')
				inc('ld_shared' if snoop & S_HIT else 'ld_excl')
		if lvl & (REM_CCE1 | REM_CCE2) or mrem:
			if snoop & S_HIT: inc('rmt_hit')
			elif snoop & S_HITM: inc('rmt_hitm', 'tot_hitm')
			elif snoopx & PEER: inc('rmt_hit', 'rmt_peer', 'tot_peer')
		if lvl & MISS: inc('ld_miss')
	elif op & 4:
		inc('store')
		if not addr:
			inc('st_noadrs'); return
		if lvl & HIT:
			if lvl & UNC: inc('st_uncache')
			if lvl & L1: inc('st_l1hit')
		if lvl & MISS and lvl & L1: inc('st_l1miss')
		if lvl & NA: inc('st_na')
	else:
		inc('noparse')

pat = re.compile(r'^\s*(\d+)/(\d+)\s+\[(\d+)\]\s+([0-9a-f]+)\s+([0-9a-f]+)\s')
tot = dict.fromkeys(NAMES, 0)
lines = {}
n = 0
for l in open(script):
	m = pat.match(l)
	if not m:
		sys.exit('unparsed perf script line: ' + l)
	n += 1
	pid, addr, v = int(m.group(1)), int(m.group(4), 16), int(m.group(5), 16)
	decode(tot, v, addr)
	if addr:
		key = (0 if addr >= 1 << 63 else pid, addr & ~63)
		decode(lines.setdefault(key, dict.fromkeys(NAMES, 0)), v, addr)
j = json.load(open(js))
bad = [k for k in NAMES if j['totals'][k] != tot[k]]
got = {(l['pid'], int(l['addr'], 16)): l['stats'] for l in j['lines']}
if set(got) != set(lines):
	bad.append('line set: %d lines here, %d in pebs-shim' %
		   (len(lines), len(got)))
else:
	for key, st in lines.items():
		bad += ['line %x %s: %d != %d' % (key[1], k, got[key][k], st[k])
			for k in NAMES if got[key][k] != st[k]]
for b in bad[:10]:
	print(b)
print('%d samples, %d lines, %d differences' % (n, len(lines), len(bad)),
      file=sys.stderr)
sys.exit(1 if bad or not n else 0)
EOF

FIELDS=pid,tid,cpu,addr,data_src,ip
# block NAME FILE: the lines of a "=== NAME ===" block of a c2c report
block() {
	awk -v n="$1" 'index($0, n) { on = 1; next }
		on && /^=+$/ { if (seen++) exit; next }
		on && NF' "$2"
}
# rows KIND FILE: the rows of the shared line table (KIND table) or of
# the pareto (KIND pareto) in one form for perf's and ours: the table
# without our Threads and Sharing columns, the pareto up to the cpu
# count (perf's symbol is raw without the binary), offsets as numbers.
rows() {
	python3 - "$@" <<'PY'
import re, sys
kind, path = sys.argv[1:]
text = open(path).read()
title = {'table': 'Shared Data Cache Line Table',
	 'pareto': 'Shared Cache Line Distribution Pareto'}[kind]
part = text.split(title, 1)[1] if title in text else ''
part = part.split('\n=====', 2)[1] if '\n=====' in part else ''
for l in part.splitlines():
	f = l.split()
	if not f or f[0].startswith('#'):
		continue
	if kind == 'table' and f[0].isdigit() and len(f) >= 23:
		f = f[:23]
		print(' '.join(f))
	elif kind == 'pareto' and f[0].endswith('%'):
		print(' '.join(f[:5] + [str(int(f[5], 16))] + f[6:14]))
PY
}

for fx in amd intel; do
	if [ $fx = amd ]; then F=$AMD; P=$T/amd128.data; else F=$INTEL; P=$F; fi
	"$PS" c2c report -i "$F" --show-all --format json >"$T/$fx.json" \
		2>"$T/$fx.err"
	check "$fx: c2c report --format json exits 0" test $? = 0
	perf script -i "$P" -F $FIELDS >"$T/$fx.script" 2>/dev/null
	python3 "$T/check.py" "$T/$fx.script" "$T/$fx.json" \
		>"$T/$fx.diff" 2>"$T/$fx.sum"
	if [ $? = 0 ]; then
		ok "$fx: every line's counters equal perf's rules on perf script's data_src ($(cat "$T/$fx.sum"))"
	else
		nok "$fx: every line's counters equal perf's rules on perf script's data_src" \
			"$(cat "$T/$fx.sum")" "$(head -5 "$T/$fx.diff")"
	fi
	"$PS" c2c report -i "$F" >"$T/$fx.ours" 2>/dev/null
	perf --no-pager c2c report --stdio --no-source -i "$P" \
		>"$T/$fx.perf" 2>/dev/null
	for b in "Trace Event Information" \
		 "Global Shared Cache Line Event Information"; do
		block "$b" "$T/$fx.perf" >"$T/p.txt"
		block "$b" "$T/$fx.ours" >"$T/o.txt"
		if [ -s "$T/p.txt" ] && cmp -s "$T/p.txt" "$T/o.txt"; then
			ok "$fx: '$b' is perf c2c report's, line for line ($(wc -l <"$T/p.txt") lines)"
		else
			nok "$fx: '$b' is perf c2c report's" \
				"$(diff "$T/p.txt" "$T/o.txt" | head -6)"
		fi
	done
	rows table "$T/$fx.perf" >"$T/p.txt"
	rows table "$T/$fx.ours" >"$T/o.txt"
	if cmp -s "$T/p.txt" "$T/o.txt"; then
		ok "$fx: the shared line table has perf's lines, order and counts ($(wc -l <"$T/p.txt") lines)"
	else
		nok "$fx: the shared line table has perf's lines, order and counts" \
			"$(diff "$T/p.txt" "$T/o.txt" | head -6)"
	fi
	rows pareto "$T/$fx.perf" >"$T/p.txt"
	rows pareto "$T/$fx.ours" >"$T/o.txt"
	if cmp -s "$T/p.txt" "$T/o.txt"; then
		ok "$fx: the pareto rows are perf's ($(wc -l <"$T/p.txt") code addresses)"
	else
		nok "$fx: the pareto rows are perf's" \
			"$(diff "$T/p.txt" "$T/o.txt" | head -6)"
	fi
done

# 13-16: csv, errors
"$PS" c2c report -i "$AMD" --format csv >"$T/a.csv"
check "csv: a header and the 2 shown lines, every row as wide as the header" \
	awk -F, 'NR == 1 { w = NF } NF != w { exit 1 } END { exit NR != 3 }' \
	"$T/a.csv"
"$PS" c2c report -i "$T/none.data" >"$T/out" 2>"$T/err"
rc=$?
check "a missing file: exit 1, one line naming it" \
	bash -c "[ $rc = 1 ] && [ \$(wc -l <'$T/err') = 1 ] &&
		 grep -q 'none.data' '$T/err' && [ ! -s '$T/out' ]"
python3 - "$AMD" "$T/bad.data" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
at = struct.unpack_from('<Q', b, 40)[0]	# data.offset
for i in range(5000):
	at += struct.unpack_from('<H', b, at + 6)[0]
struct.pack_into('<H', b, at + 6, struct.unpack_from('<H', b, at + 6)[0] + 4)
open(sys.argv[2], 'wb').write(b)
EOF
"$PS" c2c report -i "$T/bad.data" >"$T/out" 2>"$T/err"
rc=$?
check "a record size 4 bytes off: exit 1, one line, the records before it reported" \
	bash -c "[ $rc = 1 ] && [ \$(wc -l <'$T/err') = 1 ] &&
		 grep -q 'corrupt perf.data: bad record at offset' '$T/err' &&
		 grep -q 'Total records' '$T/out'"
"$PS" c2c top -i "$AMD" 2>/dev/null; a=$?
"$PS" c2c report -d hitm -i "$AMD" 2>/dev/null; b=$?
check "an unknown subcommand or display: exit 2" test "$a$b" = 22

# 17-23: page faults of two threads writing one line (no data source)
"$PS" record -e page-faults -c 1 -o "$T/pf.data" -- \
	"$B/workloads/memwalk" --share --seconds 1 --mb 4 \
	>"$T/rec.out" 2>&1
check "record page faults of memwalk --share" test -s "$T/pf.data"
walker=$(sed -n 's/.*walker=\([0-9]*\).*/\1/p' "$T/rec.out")
streamer=$(sed -n 's/.*streamer=\([0-9]*\).*/\1/p' "$T/rec.out")
"$PS" c2c report -i "$T/pf.data" >"$T/pf.txt" 2>&1
check "no data source: ranked by cross-thread writes" \
	grep -q 'Cachelines sort on *: Cross-thread writes' "$T/pf.txt"
"$PS" c2c report -i "$T/pf.data" --format json >"$T/pf.json"
python3 - "$T/pf.json" "$walker" "$streamer" >"$T/pf.check" 2>&1 <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
w, s = int(sys.argv[2]), int(sys.argv[3])
top = j['lines'][0]
ev = top.get('false_evidence') if top['sharing'] == 'true' else \
	top.get('evidence') if top['sharing'] == 'false' else None
tids = {o['offset']: {t['tid'] for t in o['threads']} for o in top['offsets']}
print('top line', top['addr'], top['sharing'], 'xwrites', top['xwrites'],
      'offsets', {k: sorted(v) for k, v in tids.items()}, 'evidence', ev)
assert not j['has_data_src'] and j['totals']['noparse'] == \
	j['totals']['nr_entries']
assert top['xwrites'] == top['stats']['nr_entries'] > 0
assert all(l['xwrites'] <= top['xwrites'] for l in j['lines'])
assert w in tids.get(0, ()) and s in tids.get(8, ())
assert ev and {ev['a']['tid'], ev['b']['tid']} == {w, s} and \
	{ev['a']['offset'], ev['b']['offset']} == {0, 8}
EOF
if [ $? = 0 ]; then ok "the first line: walker at offset 0, streamer at 8, false sharing between them"
else nok "the first line: walker at offset 0, streamer at 8, false sharing between them" "$(cat "$T/pf.check")"; fi
perf script -i "$T/pf.data" -F pid,tid,addr 2>/dev/null | python3 -c '
import collections, sys
n = collections.Counter()
for l in sys.stdin:
	f = l.split()
	a = int(f[1], 16)
	if a:
		n[(0 if a >= 1 << 63 else int(f[0].split("/")[0]), a & ~63)] += 1
for (p, a), c in n.items():
	print(p, a, c)
' | sort >"$T/pf.perf"
python3 -c '
import json, sys
for l in json.load(open(sys.argv[1]))["lines"]:
	print(l["pid"], int(l["addr"], 16), l["stats"]["nr_entries"])
' "$T/pf.json" | sort >"$T/pf.ours"
"$PS" c2c report -i "$T/pf.data" --show-all --format json >"$T/pfa.json"
python3 -c '
import json, sys
for l in json.load(open(sys.argv[1]))["lines"]:
	print(l["pid"], int(l["addr"], 16), l["stats"]["nr_entries"])
' "$T/pfa.json" | sort >"$T/pfa.ours"
check "page faults: the records of every line are perf script's" \
	cmp -s "$T/pf.perf" "$T/pfa.ours"
check "page faults: only lines touched by two threads are shown" \
	bash -c "[ -s '$T/pf.ours' ] && [ \$(wc -l <'$T/pf.ours') -lt \$(wc -l <'$T/pfa.ours') ]"
check "the text report names the false sharing with its evidence" \
	grep -qE "sharing: (also )?FALSE \(different offsets\)" "$T/pf.txt"
check "the text report lists both threads with their accesses" \
	bash -c "grep -q '/$walker(' '$T/pf.txt' && grep -q '/$streamer(' '$T/pf.txt'"
