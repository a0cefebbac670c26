#!/bin/bash
# c2c.t - `pebs-shim c2c report` on the real fixtures (AMD Zen 4 IBS
# perf c2c recording, Intel SKX load latency): every line's key and
# counters equal those computed independently here, in awk, from
# `perf script`'s samples and mmap/fork records: lines keyed as perf's
# dcacheline sort (sort__dcacheline_cmp, tools/perf/util/sort.c),
# counters by perf's c2c_decode_stats rules (perf 6.1,
# tools/perf/util/mem-events.c); the summary blocks, the shared line
# table and the pareto rows equal `perf c2c report --stdio`'s; a
# page-fault recording of memwalk --share (no data source) is ranked by
# cross-thread writes and shows the two threads writing one line; live
# page-fault recordings of c2cshare --true / --false are classified true
# and false sharing with the right threads, offsets and source line;
# every code address's source line is perf script's srcline;
# c2cshare --procs (two processes, one MAP_SHARED file page) is one
# line of both, keyed by the file offset as perf does; live recordings'
# lines and counts equal perf report --sort=dcacheline's; `pebs-shim
# report`'s sharing section (fed in its own one pass) lists the lines
# `pebs-shim c2c report` shows, with the same rank, address and counts,
# on both fixtures and the c2cshare recordings.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/c2c-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..53"

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

# Independent counts, in awk from perf script's output (no pebs-shim
# code): every sample's line key and perf's c2c_decode_stats counters.
cat >"$T/oracle.awk" <<'EOF'
# perf script -F pid,tid,cpu,addr,data_src,ip --show-mmap-events
# --show-task-events  ->  one row per cache line:
#   cpumode|dso|pid|al_line  then the 31 counters of perf's
#   c2c_decode_stats (mem-events.c, perf 6.1), and a "total" row.
# Lines are keyed as perf's sort__dcacheline_cmp: cpumode (from the
# ip: kernel at >= 2^63), the data mapping (newest first) of that
# address space, its maj:min:ino:gen, the pid for private anonymous
# user memory, and the 64-byte line of addr - start + pgoff (addr for
# anonymous memory, the kernel image, or no mapping).
# A FORK copies the parent's maps (perf script does not show the
# FORK_EXEC mark of perf's synthesized FORKs, which copy nothing; no
# sample here lies in a map only such a copy would give).
# 64-bit values are pairs of 32-bit halves: mawk has doubles only.
function hex(s,   i, v) {
	v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function split64(s, r) {
	sub(/^0x/, "", s)
	while (length(s) < 16) s = "0" s
	r["hi"] = hex(substr(s, 1, 8)); r["lo"] = hex(substr(s, 9, 8))
}
function norm(r) {
	while (r["lo"] < 0) { r["lo"] += 4294967296; r["hi"]-- }
	while (r["lo"] >= 4294967296) { r["lo"] -= 4294967296; r["hi"]++ }
	r["hi"] = (r["hi"] + 4294967296) % 4294967296
}
function ge(ah, al, bh, bl) { return ah > bh || (ah == bh && al >= bl) }
function bit(v, k) { return int(v / 2 ^ k) % 2 }
function bits(v, lo, n) { return int(v / 2 ^ lo) % (2 ^ n) }
function inc(k, x) { st[k, x]++ }
function addmap(p, s, l, pg, id, ident, shared,   n, r) {
	n = ++nm[p]
	split64(s, r); mh[p, n] = r["hi"]; ml[p, n] = r["lo"]
	split64(l, r); eh[p, n] = mh[p, n] + r["hi"]; el[p, n] = ml[p, n] + r["lo"]
	r["hi"] = eh[p, n]; r["lo"] = el[p, n]; norm(r)
	eh[p, n] = r["hi"]; el[p, n] = r["lo"]
	split64(pg, r); ph[p, n] = r["hi"]; pl[p, n] = r["lo"]
	mid[p, n] = id; mident[p, n] = ident; mshared[p, n] = shared
}
function decode(k, v, addr,   op, lvl, snoop, lock, remote, snoopx, blk, hops, mrem) {
	op = bits(v, 0, 5); lvl = bits(v, 5, 14); snoop = bits(v, 19, 5)
	lock = bits(v, 24, 2); remote = bits(v, 37, 1); snoopx = bits(v, 38, 2)
	blk = bits(v, 40, 3); hops = bits(v, 43, 3)
	mrem = remote && !hops
	inc(k, "nr_entries")
	if (bit(lock, 1)) inc(k, "locks")
	if (bit(blk, 1)) inc(k, "blk_data")
	if (bit(blk, 2)) inc(k, "blk_addr")
	if (bit(op, 1)) {
		inc(k, "load")
		if (!addr) { inc(k, "ld_noadrs"); return }
		if (bit(lvl, 1)) {			# HIT
			if (bit(lvl, 13)) inc(k, "ld_uncache")
			if (bit(lvl, 12)) inc(k, "ld_io")
			if (bit(lvl, 4)) inc(k, "ld_fbhit")
			if (bit(lvl, 3)) inc(k, "ld_l1hit")
			if (bit(lvl, 5)) {
				inc(k, "ld_l2hit")
				if (bit(snoopx, 1)) { inc(k, "lcl_peer"); inc(k, "tot_peer") }
			}
			if (bit(lvl, 6)) {
				if (bit(snoop, 4)) { inc(k, "lcl_hitm"); inc(k, "tot_hitm") }
				else inc(k, "ld_llchit")
				if (bit(snoopx, 1)) { inc(k, "lcl_peer"); inc(k, "tot_peer") }
			}
			if (bit(lvl, 7)) {
				inc(k, "lcl_dram")
				inc(k, bit(snoop, 2) ? "ld_shared" : "ld_excl")
			}
			if (bit(lvl, 8) || bit(lvl, 9) || mrem) {
				inc(k, "rmt_dram")
				inc(k, bit(snoop, 2) ? "ld_shared" : "ld_excl")
			}
		}
		if (bit(lvl, 10) || bit(lvl, 11) || mrem) {
			if (bit(snoop, 2)) inc(k, "rmt_hit")
			else if (bit(snoop, 4)) { inc(k, "rmt_hitm"); inc(k, "tot_hitm") }
			else if (bit(snoopx, 1)) {
				inc(k, "rmt_hit"); inc(k, "rmt_peer"); inc(k, "tot_peer")
			}
		}
		if (bit(lvl, 2)) inc(k, "ld_miss")
	} else if (bit(op, 2)) {
		inc(k, "store")
		if (!addr) { inc(k, "st_noadrs"); return }
		if (bit(lvl, 1)) {
			if (bit(lvl, 13)) inc(k, "st_uncache")
			if (bit(lvl, 3)) inc(k, "st_l1hit")
		}
		if (bit(lvl, 2) && bit(lvl, 3)) inc(k, "st_l1miss")
		if (bit(lvl, 0)) inc(k, "st_na")
	} else {
		inc(k, "noparse")
	}
}
BEGIN {
	NN = split("nr_entries locks store st_uncache st_noadrs st_l1hit " \
		"st_l1miss st_na load ld_excl ld_shared ld_uncache ld_io " \
		"ld_miss ld_noadrs ld_fbhit ld_l1hit ld_l2hit ld_llchit " \
		"lcl_hitm rmt_hitm tot_hitm lcl_peer rmt_peer tot_peer " \
		"rmt_hit lcl_dram rmt_dram blk_data blk_addr noparse", NAME)
}
/PERF_RECORD_MMAP/ {
	# ... PERF_RECORD_MMAP[2] PID/TID: [0xS(0xL) @ PG[ MAJ:MIN INO GEN]]: PROT NAME
	line = $0
	sub(/.*PERF_RECORD_MMAP2? /, "", line)
	pid = line; sub(/\/.*/, "", pid)
	if (pid == -1) pid = "k"
	inner = line; sub(/^[^[]*\[/, "", inner); sub(/\]: .*/, "", inner)
	name = line; sub(/^[^]]*\]: [^ ]+ /, "", name)
	prot = line; sub(/^[^]]*\]: /, "", prot); sub(/ .*/, "", prot)
	s = inner; sub(/\(.*/, "", s)
	l = inner; sub(/^[^(]*\(/, "", l); sub(/\).*/, "", l)
	n = split(inner, f, " ")
	pg = f[3]
	id = n >= 6 ? f[4] ":" f[5] ":" f[6] : "00:00:0:0"
	if (id ~ /^0+:0+:0:0$/) id = "0"
	shared = substr(prot, 4, 1) == "s"
	if (pid == "k") {
		ident = name ~ /^\[kernel\.kallsyms\]/; id = "0"; shared = 0
		if (!ident) pg = "0"
	} else {
		ident = name == "//anon" || name ~ /^\/dev\/zero/ ||
			name ~ /^\/anon_hugepage/ || name ~ /^\[stack/ ||
			name ~ /^\/SYSV/ || name == "[heap]"
	}
	if (ident) pg = "0"
	addmap(pid, s, l, pg, id, ident, shared)
	next
}
/PERF_RECORD_FORK/ {
	x = $0; sub(/.*PERF_RECORD_FORK\(/, "", x)
	child = x; sub(/:.*/, "", child)
	parent = x; sub(/^[^(]*\(/, "", parent); sub(/:.*/, "", parent)
	if (child != parent) {
		nm[child] = 0
		for (i = 1; i <= nm[parent]; i++) {
			n = ++nm[child]
			mh[child, n] = mh[parent, i]; ml[child, n] = ml[parent, i]
			eh[child, n] = eh[parent, i]; el[child, n] = el[parent, i]
			ph[child, n] = ph[parent, i]; pl[child, n] = pl[parent, i]
			mid[child, n] = mid[parent, i]
			mident[child, n] = mident[parent, i]
			mshared[child, n] = mshared[parent, i]
		}
	}
	next
}
/PERF_RECORD/ { next }
$1 ~ /^[0-9]+\/[0-9]+$/ && $2 ~ /^\[[0-9]+\]$/ {
	pid = $1; sub(/\/.*/, "", pid)
	# without data_src (software events): perf's "N/A" value
	addr = $3; ip = $NF
	dsrc = NF > 4 ? hex($4) : 1 + 2^5 + 2^19 + 2^24 + 2^26 + 15 * 2^33
	kern = length(ip) == 16 && index("89abcdef", substr(ip, 1, 1)) > 0
	isaddr = addr !~ /^0+$/
	decode("total", dsrc, isaddr)
	if (!isaddr) next
	split64(addr, A)
	p = kern ? "k" : pid
	found = 0
	for (i = nm[p]; i >= 1; i--) {
		if (ge(A["hi"], A["lo"], mh[p, i], ml[p, i]) &&
		    !ge(A["hi"], A["lo"], eh[p, i], el[p, i])) { found = i; break }
	}
	r["hi"] = A["hi"]; r["lo"] = A["lo"]
	if (!found) {
		key = (kern ? "K" : "U") "|X|-"
	} else {
		if (!mident[p, found]) {
			r["hi"] = A["hi"] - mh[p, found] + ph[p, found]
			r["lo"] = A["lo"] - ml[p, found] + pl[p, found]
			norm(r)
		}
		bypid = !kern && !mshared[p, found] && mid[p, found] == "0"
		key = (kern ? "K" : "U") "|" mid[p, found] "|" (bypid ? pid : "-")
	}
	key = key "|" sprintf("%08x%08x", r["hi"], r["lo"] - r["lo"] % 64)
	keys[key] = 1
	decode(key, dsrc, 1)
}
END {
	for (k in keys) {
		out = k
		for (i = 1; i <= NN; i++) out = out " " (st[k, NAME[i]] + 0)
		print out
	}
	out = "total"
	for (i = 1; i <= NN; i++) out = out " " (st["total", NAME[i]] + 0)
	print out
}
EOF
# tsv CSV: the csv with tabs between fields, quotes undone (a quoted
# field may hold commas: a node list "0-1,3", a C++ symbol)
# report's sharing section and c2c report's shown lines (its csv) as
# rank, address, samples, loads (data source op load), stores, HITM, cross-thread writes,
# threads, offsets, kind; into $T/sh.rep and $T/sh.c2c (report must
# have the section; both may list no line)
sharing() {
	"$PS" report -i "$1" --top 0 2>/dev/null | awk '
		/^# shared cache lines/ { on = 1; next }
		on && /^rank / { rows = 1; next }
		rows && (/^#/ || /^$/ || /^ *\.\.\./) { exit }
		rows { print $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }
		END { exit !rows }' >"$T/sh.rep" || return 1
	"$PS" c2c report -i "$1" --format csv 2>/dev/null | tsv |
		awk -F'\t' '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = $c["sharing"]
		  print $c["rank"], $c["addr"], $c["nr_entries"],
			$c["load"], $c["store"], $c["tot_hitm"], $c["xwrites"],
			$c["threads"], $c["offsets"], k }' >"$T/sh.c2c"
	cmp -s "$T/sh.rep" "$T/sh.c2c"
}

# $1: label, $2: file
same_sharing() {
	if sharing "$2"; then
		ok "$1: report's sharing section lists c2c report's lines ($(wc -l <"$T/sh.c2c") lines, $(awk '{ n += $3 } END { print n + 0 }' "$T/sh.c2c") samples)"
	else
		nok "$1: report's sharing section lists c2c report's lines" \
			"$(diff "$T/sh.c2c" "$T/sh.rep" | head -6)"
	fi
}

tsv() {
	awk '{
		out = ""; q = 0
		for (i = 1; i <= length($0); i++) {
			ch = substr($0, i, 1)
			if (ch == "\"") {
				if (q && substr($0, i + 1, 1) == "\"") {
					out = out ch; i++
				} else {
					q = !q
				}
			} else if (ch == "," && !q) {
				out = out "\t"
			} else {
				out = out ch
			}
		}
		print out }' "$1"
}
# pebs-shim's csv in the oracle's form: key, then the same counters
cat >"$T/csvkey.awk" <<'EOF'
BEGIN {
	FS = "\t"
	NN = split("nr_entries locks store st_uncache st_noadrs st_l1hit " \
		"st_l1miss st_na load ld_excl ld_shared ld_uncache ld_io " \
		"ld_miss ld_noadrs ld_fbhit ld_l1hit ld_l2hit ld_llchit " \
		"lcl_hitm rmt_hitm tot_hitm lcl_peer rmt_peer tot_peer " \
		"rmt_hit lcl_dram rmt_dram blk_data blk_addr noparse", NAME, " ")
}
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
	out = $col["cpumode"] "|" $col["dso"] "|" $col["key_pid"] "|" $col["al_line"]
	for (i = 1; i <= NN; i++) out = out " " $col[NAME[i]]
	print out
}
EOF
# oracle SCRIPT CSV: the lines of both, compared (keys and counters)
oracle() {
	awk -f "$T/oracle.awk" "$1" >"$T/or.all"
	grep -v '^total ' "$T/or.all" | sort >"$T/or.lines"
	tsv "$2" | awk -f "$T/csvkey.awk" | sort >"$T/ours.lines"
	cmp -s "$T/or.lines" "$T/ours.lines"
}

# dcl DATA CSV: perf report --sort=dcacheline (sort__dcacheline_cmp
# itself) against our lines: the same multiset of per-line sample
# counts, and every row perf prints as an address ("[.] 0x...", not a
# symbol) is one of ours with that mark, map-relative line and count;
# perf's "[X] 0000000000000000" rows hold the samples without a data
# address, which are in our totals only.
dcl() {
	perf report --mem-mode --sort=dcacheline --stdio -n -i "$1" \
		2>/dev/null | awk '/^ +[0-9.]+%/ {
			a = $4; sub(/^0x/, "", a)
			# samples without a data address: no line of ours
			if ($3 == "[X]" && a ~ /^0+$/)
				next
			if (a ~ /^[0-9a-f]+$/)
				print "addr", substr($3, 2, 1), a, $2
			print "count", $2 }' >"$T/dcl.perf"
	tsv "$2" | awk -F'\t' '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print "addr", $c["level"], $c["al_line"], $c["nr_entries"]
		  print "count", $c["nr_entries"] }' >"$T/dcl.ours"
	grep '^count' "$T/dcl.perf" | sort >"$T/dcl.pc"
	grep '^count' "$T/dcl.ours" | sort >"$T/dcl.oc"
	grep '^addr' "$T/dcl.perf" | sort >"$T/dcl.pa"
	grep '^addr' "$T/dcl.ours" | sort >"$T/dcl.oa"
	[ -s "$T/dcl.pa" ] && cmp -s "$T/dcl.pc" "$T/dcl.oc" &&
		[ -z "$(comm -23 "$T/dcl.pa" "$T/dcl.oa")" ]
}

# src DATA: every code address of our pareto (--show-all) with its
# Source:Line (or none) against perf script's srcline of that address
# (perf resolves through the object's DWARF, or its separate debug file
# under /usr/lib/debug/.build-id, as we do)
src() {
	"$PS" c2c report -i "$1" --show-all 2>/dev/null | awk '
		$1 ~ /%$/ && $9 ~ /^0x/ {
			ip = $9; sub(/^0x/, "", ip)
			s = (NF >= 18 && $NF ~ /:[0-9]+$/) ? $NF : "-"
			print ip, s }' | sort -u >"$T/src.ours"
	perf script -F ip,srcline -i "$1" 2>/dev/null | awk '
		NF == 1 && $1 ~ /^[0-9a-f]+$/ {
			if (ip != "") print ip, "-"
			ip = $1; next }
		ip != "" {
			s = $1
			if (s ~ /^\[/ || s ~ /^:/ || s !~ /:[1-9][0-9]*$/) s = "-"
			print ip, s; ip = "" }
		END { if (ip != "") print ip, "-" }' | sort -u >"$T/src.all"
	awk 'NR == FNR { want[$1] = 1; next } $1 in want' "$T/src.ours" \
		"$T/src.all" >"$T/src.perf"
	# perf 6.1 names the compilation unit's file for a line of a file
	# it #includes (glibc's dl-error-minimal.c:175 for the line of
	# dl-error-skeleton.c it includes; libdw, and we, name the
	# included file): compared by address and line number, the files
	# that differ counted
	nfile=$(paste -d' ' "$T/src.ours" "$T/src.perf" | awk '
		$1 == $3 && $2 != $4 { n++ } END { print n + 0 }')
	[ -s "$T/src.ours" ] &&
		cmp -s <(sed 's/ .*:/ :/' "$T/src.ours") \
		       <(sed 's/ .*:/ :/' "$T/src.perf")
}

FIELDS=pid,tid,cpu,addr,data_src,ip
EVENTS="--show-mmap-events --show-task-events"
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
	"$PS" c2c report -i "$F" --show-all --format csv >"$T/$fx.csv" \
		2>"$T/$fx.err"
	check "$fx: c2c report --format csv exits 0" test $? = 0
	perf script -i "$P" -F $FIELDS $EVENTS >"$T/$fx.script" 2>/dev/null
	if oracle "$T/$fx.script" "$T/$fx.csv"; then
		ok "$fx: every line's key and counters equal those computed in awk from perf script ($(wc -l <"$T/or.lines") lines, $(awk '$1 == "total" { print $2 }' "$T/or.all") samples)"
	else
		nok "$fx: every line's key and counters equal those computed in awk from perf script" \
			"$(diff "$T/or.lines" "$T/ours.lines" | head -6)"
	fi
	if dcl "$P" "$T/$fx.csv"; then
		ok "$fx: perf report --sort=dcacheline has our lines ($(wc -l <"$T/dcl.pc") lines, $(wc -l <"$T/dcl.pa") by address)"
	else
		nok "$fx: perf report --sort=dcacheline has our lines" \
			"$(diff "$T/dcl.pc" "$T/dcl.oc" | head -3)" \
			"$(comm -23 "$T/dcl.pa" "$T/dcl.oa" | head -3)"
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

# 15-19: csv, errors
"$PS" c2c report -i "$AMD" --format csv >"$T/a.csv"
tsv "$T/a.csv" >"$T/a.tsv"
check "csv: a header and the 2 shown lines, every row as wide as the header" \
	awk -F'\t' 'NR == 1 { w = NF } NF != w { exit 1 } END { exit NR != 3 }' \
	"$T/a.tsv"
# the detail table: its rows of a line (one per offset and code
# address) add up to the line's row of the line table, counter by counter
"$PS" c2c report -i "$AMD" --format csv --table detail --show-all \
	>"$T/d.csv"
"$PS" c2c report -i "$AMD" --format csv --show-all >"$T/l.csv"
sums() {	# FILE: "addr nr_entries load store tot_hitm" per line
	tsv "$1" | awk -F'\t' '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = $c["addr"]; n[k] += $c["nr_entries"]; l[k] += $c["load"]
		  s[k] += $c["store"]; h[k] += $c["tot_hitm"] }
		END { for (k in n) print k, n[k], l[k], s[k], h[k] }' | sort
}
sums "$T/d.csv" >"$T/d.sum"
sums "$T/l.csv" >"$T/l.sum"
tsv "$T/d.csv" >"$T/d.tsv"
check "csv detail: every row as wide as the header; per line the rows add up to the line's counters ($(wc -l <"$T/d.csv") rows, $(wc -l <"$T/l.sum") lines)" \
	bash -c "awk -F'\t' 'NR == 1 { w = NF } NF != w { exit 1 }' '$T/d.tsv' &&
		 [ -s '$T/l.sum' ] && cmp -s '$T/d.sum' '$T/l.sum'"
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
"$PS" c2c report --table ips -i "$AMD" 2>/dev/null; c=$?
check "an unknown subcommand, display or table: exit 2" test "$a$b$c" = 222

# 20-27: page faults of two threads writing one line (no data source)
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
ev = top.get('false_evidence') if top['sharing'] == 'true+false' else \
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
perf script -i "$T/pf.data" -F pid,tid,cpu,addr,ip $EVENTS \
	>"$T/pf.script" 2>/dev/null
"$PS" c2c report -i "$T/pf.data" --show-all --format csv >"$T/pfa.csv"
if oracle "$T/pf.script" "$T/pfa.csv"; then
	ok "page faults: every line's key and counters equal the awk oracle's on perf script ($(wc -l <"$T/or.lines") lines)"
else
	nok "page faults: every line's key and counters equal the awk oracle's on perf script" \
		"$(diff "$T/or.lines" "$T/ours.lines" | head -6)"
fi
if dcl "$T/pf.data" "$T/pfa.csv"; then
	ok "page faults: perf report --sort=dcacheline has our lines ($(wc -l <"$T/dcl.pc") lines, $(wc -l <"$T/dcl.pa") by address)"
else
	nok "page faults: perf report --sort=dcacheline has our lines" \
		"$(diff "$T/dcl.pc" "$T/dcl.oc" | head -3)" \
		"$(comm -23 "$T/dcl.pa" "$T/dcl.oa" | head -3)"
fi
python3 -c '
import json, sys
for l in json.load(open(sys.argv[1]))["lines"]:
	print(l["pid"], int(l["addr"], 16), l["stats"]["nr_entries"])
' "$T/pf.json" | sort >"$T/pf.ours"
wc -l <"$T/pfa.csv" >"$T/pfa.n"
check "page faults: only lines touched by two threads are shown" \
	bash -c "[ -s '$T/pf.ours' ] && [ \$(wc -l <'$T/pf.ours') -lt \$(cat '$T/pfa.n') ]"
check "the text report names the false sharing with its evidence" \
	grep -qE "sharing: (true\+false: )?false \(different bytes\)" "$T/pf.txt"
check "the text report lists both threads with their accesses" \
	bash -c "grep -q '/$walker(' '$T/pf.txt' && grep -q '/$streamer(' '$T/pf.txt'"

# 28-43: live, page faults with data addresses (-d) of c2cshare: two
# threads storing to one line, at one offset (true sharing) or at 0 and
# 8 (false sharing); keys and counters against the awk oracle, the
# summary against perf c2c report, the classification and its evidence
# against the thread ids the workload prints, and the source line of
# the store (libdw) against the workload's source.
CS=$B/workloads/c2cshare
store_line=$(grep -n '^	\*w = v;$' "$S/tests/workloads/c2cshare.c" | cut -d: -f1)
for mode in true false; do
	"$PS" record -e page-faults -c 1 -d -o "$T/cs-$mode.data" -- \
		"$CS" --$mode >"$T/cs.out" 2>&1
	ids=$(sed -n 's/.*a=\([0-9]*\) b=\([0-9]*\).*/\1 \2/p' "$T/cs.out")
	check "$mode: record page faults of c2cshare --$mode ($ids)" \
		test -s "$T/cs-$mode.data" -a -n "$ids"
	"$PS" c2c report -i "$T/cs-$mode.data" --show-all --format csv \
		>"$T/cs.csv"
	perf script -i "$T/cs-$mode.data" -F pid,tid,cpu,addr,ip $EVENTS \
		>"$T/cs.script" 2>/dev/null
	if oracle "$T/cs.script" "$T/cs.csv"; then
		ok "$mode: every line's key and counters equal the awk oracle's ($(wc -l <"$T/or.lines") lines)"
	else
		nok "$mode: every line's key and counters equal the awk oracle's" \
			"$(diff "$T/or.lines" "$T/ours.lines" | head -6)"
	fi
	if dcl "$T/cs-$mode.data" "$T/cs.csv"; then
		ok "$mode: perf report --sort=dcacheline has our lines ($(wc -l <"$T/dcl.pc") lines, $(wc -l <"$T/dcl.pa") by address)"
	else
		nok "$mode: perf report --sort=dcacheline has our lines" \
			"$(diff "$T/dcl.pc" "$T/dcl.oc" | head -3)" \
			"$(comm -23 "$T/dcl.pa" "$T/dcl.oa" | head -3)"
	fi
	"$PS" c2c report -i "$T/cs-$mode.data" >"$T/cs.ours" 2>/dev/null
	perf --no-pager c2c report --stdio -i "$T/cs-$mode.data" \
		>"$T/cs.perf" 2>/dev/null
	block "Trace Event Information" "$T/cs.perf" >"$T/p.txt"
	block "Trace Event Information" "$T/cs.ours" >"$T/o.txt"
	if [ -s "$T/p.txt" ] && cmp -s "$T/p.txt" "$T/o.txt"; then
		ok "$mode: 'Trace Event Information' is perf c2c report's ($(awk '/Total records/ { print $NF }' "$T/p.txt") records)"
	else
		nok "$mode: 'Trace Event Information' is perf c2c report's" \
			"$(diff "$T/p.txt" "$T/o.txt" | head -6)"
	fi
	# the first line of the csv: sharing, evidence threads and offsets
	want_off="0 0"
	[ $mode = false ] && want_off="0 8"
	got=$(tsv "$T/cs.csv" | awk -F'\t' -v ids="$ids" -v mode=$mode -v off="$want_off" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NR == 2 {
			t = $c["tid_a"] " " $c["tid_b"]
			split(ids, x, " ")
			o = $c["off_a"] " " $c["off_b"]
			if (mode == "false" && $c["off_a"] > $c["off_b"])
				o = $c["off_b"] " " $c["off_a"]
			ok = $c["sharing"] == mode && o == off &&
			     (t == x[1] " " x[2] || t == x[2] " " x[1])
			print (ok ? "yes" : "no"), $c["sharing"], t, o
		}')
	check "$mode: the first line is $mode sharing between threads $ids at offsets $want_off ($got)" \
		test "${got%% *}" = yes
	check "$mode: the store's source line is c2cshare.c:$store_line" \
		grep -q "write_word+0x[0-9a-f]*  c2cshare  c2cshare.c:$store_line\$" \
		"$T/cs.ours"
	if src "$T/cs-$mode.data"; then
		ok "$mode: every code address's source line is perf script's srcline ($(wc -l <"$T/src.ours") addresses, $(grep -vc ' -$' "$T/src.ours") with a line; $nfile in a file the unit includes, which perf names by the unit)"
	else
		nok "$mode: every code address's source line is perf script's srcline" \
			"$(diff "$T/src.ours" "$T/src.perf" | head -6)"
	fi
	same_sharing "$mode" "$T/cs-$mode.data"
done

# 44-47: two processes writing one shared file page (a memfd mapped
# MAP_SHARED at different addresses): perf keys the line by the file's
# dso id and offset, not by pid or address, so it is one line of both
"$PS" record -e page-faults -c 1 -d -o "$T/cs-procs.data" -- \
	"$CS" --procs >"$T/cs.out" 2>&1
pids=$(sed -n 's/.*pid=\([0-9]*\) a=.*/\1/p' "$T/cs.out" | sort -n | tr '\n' ' ')
check "procs: record page faults of c2cshare --procs ($pids)" \
	test -s "$T/cs-procs.data" -a -n "$pids"
"$PS" c2c report -i "$T/cs-procs.data" --show-all --format csv >"$T/cs.csv"
perf script -i "$T/cs-procs.data" -F pid,tid,cpu,addr,ip $EVENTS \
	>"$T/cs.script" 2>/dev/null
if oracle "$T/cs.script" "$T/cs.csv"; then
	ok "procs: every line's key and counters equal the awk oracle's ($(wc -l <"$T/or.lines") lines)"
else
	nok "procs: every line's key and counters equal the awk oracle's" \
		"$(diff "$T/or.lines" "$T/ours.lines" | head -6)"
fi
if dcl "$T/cs-procs.data" "$T/cs.csv"; then
	ok "procs: perf report --sort=dcacheline has our lines ($(grep -c '^addr s ' "$T/dcl.pa") [s] line)"
else
	nok "procs: perf report --sort=dcacheline has our lines" \
		"$(diff "$T/dcl.pc" "$T/dcl.oc" | head -3)" \
		"$(comm -23 "$T/dcl.pa" "$T/dcl.oa" | head -3)"
fi
got=$(tsv "$T/cs.csv" | awk -F'\t' '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	NR == 2 { p = $c["pid_a"] " " $c["pid_b"]
		  if ($c["pid_a"] + 0 > $c["pid_b"] + 0)
			p = $c["pid_b"] " " $c["pid_a"]
		  print $c["level"], $c["key_pid"], $c["al_line"], $c["sharing"], p " " }')
check "procs: the first line is the file's (mark s, no pid, file offset 0x1000), true sharing of both processes ($got)" \
	test "$got" = "s - 0000000000001000 true $pids"

# 48-50 (and one each for --true, --false above): pebs-shim report's
# sharing section, fed in the report's pass, lists the lines c2c report
# shows, ranked and counted the same
same_sharing procs "$T/cs-procs.data"
same_sharing "AMD IBS fixture" "$AMD"
same_sharing "Intel load latency fixture" "$INTEL"

# 51-52: the sharing class of every line and offset of the fixtures
# against an oracle of the standard definitions (issue 23) on the json's
# per-offset threads: true = two threads on one byte, one writing it;
# false = a writer of bytes the other thread never touches while that
# thread touches bytes the writer never writes; true+false = both; and
# the words are the only ones any table prints
for f in AMD INTEL; do
	eval file=\$$f
	"$PS" c2c report -i "$file" --show-all --format json >"$T/cls.json" 2>/dev/null
	[ $f = AMD ] && cp "$T/cls.json" "$T/cls.amd.json"
	python3 - "$T/cls.json" >"$T/cls.out" 2>&1 <<'PY'
import json, sys, collections
j = json.load(open(sys.argv[1]))
seen = collections.Counter()
bad = []
def cls(t, f):
	return 'true+false' if t and f else 'true' if t else 'false' if f else 'none'
for l in j['lines']:
	nodes = []
	for o in l['offsets']:
		for t in o['threads']:
			nodes.append((o['offset'], (t['pid'], t['tid']),
				      t['stores'] + t['unknown'] > 0))
	acc = collections.defaultdict(set); wr = collections.defaultdict(set)
	for off, th, w in nodes:
		acc[th].add(off)
		if w: wr[th].add(off)
	T = F = False
	ot = collections.defaultdict(lambda: [False, False])
	for oa, ta, wa in nodes:
		if not wa: continue
		for ob, tb, wb in nodes:
			if ta == tb: continue
			if oa == ob:
				T = True; ot[oa][0] = ot[ob][0] = True
			elif oa not in acc[tb] and ob not in wr[ta]:
				F = True; ot[oa][1] = ot[ob][1] = True
	want = cls(T, F)
	seen[l['sharing']] += 1
	if l['sharing'] != want:
		bad.append((l['addr'], l['sharing'], want))
	for o in l['offsets']:
		w = cls(*ot[o['offset']])
		if o['sharing'] != w:
			bad.append((l['addr'], o['offset'], o['sharing'], w))
	ev = l.get('evidence')
	if want != 'none' and not (ev and ev['a']['writes'] and
				   (ev['a']['offset'] == ev['b']['offset']) ==
				   (want != 'false')):
		bad.append((l['addr'], 'evidence', ev))
print(dict(seen), bad[:5])
sys.exit(1 if bad or set(seen) - {'none', 'true', 'false', 'true+false'} else 0)
PY
	if [ $? = 0 ]; then
		ok "$f fixture: every line's and offset's sharing class is the standard definitions' ($(cat "$T/cls.out"))"
	else
		nok "$f fixture: every line's and offset's sharing class is the standard definitions'" "$(cat "$T/cls.out")"
	fi
done
python3 -c '
import json, sys
n = sum(1 for l in json.load(open(sys.argv[1]))["lines"]
	if l["sharing"] in ("true", "true+false") and
	   not l["evidence"]["b"]["writes"])
print(n); sys.exit(n == 0)' "$T/cls.amd.json" >"$T/cls.n"
rc=$?
check "AMD fixture: a writer and a reader of one offset is true sharing ($(cat "$T/cls.n") lines)" \
	test $rc = 0
