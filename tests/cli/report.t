#!/bin/bash
# report.t - perf.data files from the writer are read by Debian's perf
# without warnings, and `pebs-shim report` summarizes them and the real
# fixtures (Intel PEBS load latency, AMD IBS c2c).
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"
# stderr of perf must have no warning or failure line
clean() { ! grep -qiE 'warning|failed|error' "$1"; }

echo "1..34"

# 1-7: a file written by the writer (tests/unit/test-perfdata-write)
F=$T/w.data
PEBS_PERFDATA_KEEP=$F "$B/tests/unit/test-perfdata-write" >"$T/unit.out" 2>&1
check "the unit test wrote a perf.data file" test -s "$F"
perf script -i "$F" >"$T/script.out" 2>"$T/script.err"
if [ $? = 0 ] && clean "$T/script.err"; then ok "perf script reads it without warnings"
else nok "perf script reads it without warnings" "$(head -3 "$T/script.err")"; fi
check "perf script shows all 1000 samples" test "$(wc -l <"$T/script.out")" = 1000
perf report --stdio -i "$F" --sort sym >"$T/rep.out" 2>"$T/rep.err"
rc=$?
# perf warns of the host, not the file, when /proc/kallsyms hides its
# addresses from this user (kptr_restrict, not root)
if awk 'NR == 1 { exit $1 !~ /^0+$/ }' /proc/kallsyms 2>/dev/null; then
	skip "/proc/kallsyms hides kernel addresses from this user: perf report warns of the host"
elif [ $rc = 0 ] && clean "$T/rep.err"; then ok "perf report reads it without warnings"
else nok "perf report reads it without warnings" "$(head -3 "$T/rep.err")"; fi
check "perf report: 1000 samples, all in pebs_test_hot_fn (synthesized MMAP2)" \
	bash -c "grep -q \"^# Samples: 1000  of event 'cpu-clock'\" '$T/rep.out' &&
		 grep -qE '^ +100.00% +\\[\\.\\] pebs_test_hot_fn' '$T/rep.out'"
perf report --header-only -i "$F" >"$T/hdr.out" 2>"$T/hdr.err"
check "perf report --header-only: cmdline, event name, sample time, no warning" \
	bash -c "grep -q '^# cmdline : pebs-shim record -e cpu-clock --attribution=tid' '$T/hdr.out' &&
		 grep -q '^# event : name = cpu-clock' '$T/hdr.out' &&
		 grep -q '^# sample duration :' '$T/hdr.out' && ! grep -qi warning '$T/hdr.err'"

bid=$(readelf -n "$B/tests/unit/test-perfdata-write" | sed -n 's/.*Build ID: //p')
check "perf buildid-list: the test binary with its build id (HEADER_BUILD_ID)" \
	bash -c "perf buildid-list -i '$F' 2>/dev/null | grep -qx '$bid .*/test-perfdata-write'"

# 8-9: pebs-shim report on the same file
"$PS" report -i "$F" >"$T/ps.out" 2>"$T/ps.err"
check "pebs-shim report: exit 0, 1000 samples, attribution tid" \
	bash -c "grep -q '^# samples   : 1000 ' '$T/ps.out' &&
		 grep -q '^# attribution: tid' '$T/ps.out' && test ! -s '$T/ps.err'"
check "pebs-shim report: pebs_test_hot_fn holds every sample" \
	grep -qE '^ +100.00% +1 +\[\.\] pebs_test_hot_fn ' "$T/ps.out"

# 10-14: the real fixtures
A=$S/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data
I=$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
"$PS" report -i "$A" -n >"$T/amd.out" 2>"$T/amd.err"
check "AMD IBS fixture (attr size 136): 27447 samples, 5855 with an address" \
	bash -c "grep -q '^# samples   : 27447 (5855 with a data address' '$T/amd.out' &&
		 grep -q '^# event 0   : ibs_op// (type 11' '$T/amd.out' && test ! -s '$T/amd.err'"
# one definition of a load in every table (issue 23): the shared-lines
# section counts what the cache-line table counts (perf c2c's Total
# Loads, 25, leaves out a load whose level is in none of its sums)
check "AMD IBS fixture: the shared line perf c2c ranks first comes first (125 samples, 26 loads, 99 stores, 2 HITM, 9 threads, true sharing), counted as in the cache-line table" \
	bash -c "sed -n '/^# shared cache lines, as perf c2c ranks them (by HITM)/,/^\$/p' '$T/amd.out' |
		 grep -qE '^ +0 +0x624b89b17180 +125 +26 +99 +2 +99 +9 +1 +true '"
"$PS" report -i "$A" --top 0 >"$T/amd.all" 2>/dev/null
"$PS" report -i "$A" --sort line -n --top 0 2>/dev/null |
	awk '/^ +[0-9.]+%/ { print $NF, $2, $4, $5 }' | sort >"$T/lines.tab"
sed -n '/^# shared cache lines/,/^$/p' "$T/amd.all" |
	awk '/^ +[0-9]+ +0x/ { print $2, $3, $4, $5 }' | sort >"$T/lines.sh"
check "AMD IBS fixture: every shared line's samples, loads and stores are its cache-line row's ($(wc -l <"$T/lines.sh") lines)" \
	bash -c "test -s '$T/lines.sh' && test -z \"\$(join -v 1 '$T/lines.sh' '$T/lines.tab')\" &&
		 test -z \"\$(join '$T/lines.sh' '$T/lines.tab' | awk '\$2 != \$5 || \$3 != \$6 || \$4 != \$7')\""
check "AMD IBS fixture: the contended line: 2.18 % of the period, 125 samples, 26 loads, 99 stores, 2 HitM, 8+ threads" \
	grep -qE '^ +2.18% +125 +654.0 +26 +99 +2 +8\+ +0x624b89b17180$' "$T/amd.out"
"$PS" report -i "$I" >"$T/intel.out" 2>"$T/intel.err"
check "Intel PEBS ldlat fixture: 14 samples, ldlat event named, dummy has 0" \
	bash -c "grep -q '^# samples   : 14 (14 with a data address, 14 with a data source, 14 with a weight)' '$T/intel.out' &&
		 grep -q 'MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64.*config1 0x40.*: 14 samples' '$T/intel.out' &&
		 grep -q 'dummy:HG .*: 0 samples' '$T/intel.out'"
check "Intel PEBS ldlat fixture: weights 70..249 (min/max)" \
	bash -c "grep -A2 '^# weight' '$T/intel.out' | grep -qE '^ +70 +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +249 +14  MEM_TRANS_RETIRED'"

# 15-16: --sort
"$PS" report -i "$I" --sort comm,src -n --top 0 >"$T/sort.out" 2>&1
check "--sort comm,src -n --top 0: one table, 14 samples in rows" \
	bash -c "test \$(grep -cE '^ +[0-9.]+% +[0-9]+ ' '$T/sort.out') -ge 10 &&
		 awk '/^ +[0-9.]+% +[0-9]+ / { s += \$2 } END { exit s != 14 }' '$T/sort.out'"
"$PS" report -i "$I" --sort comm,bogus >"$T/bad.out" 2>"$T/bad.err"
rc=$?
check "--sort with an unknown key: exit 2, one line" \
	bash -c "test $rc = 2 && test \$(wc -l <'$T/bad.err') = 1"

# 17-20: bad input
"$PS" report -i "$T/nonexistent.data" >"$T/ne.out" 2>"$T/ne.err"
rc=$?
check "missing file: exit 1, one line naming it" \
	bash -c "test $rc = 1 && test \$(wc -l <'$T/ne.err') = 1 &&
		 grep -q '^pebs-shim report: .*nonexistent.data' '$T/ne.err'"
head -c 4096 /dev/urandom >"$T/junk.data"
"$PS" report -i "$T/junk.data" >/dev/null 2>"$T/junk.err"
rc=$?
check "not a perf.data file: exit 1, one line" \
	bash -c "test $rc = 1 && test \$(wc -l <'$T/junk.err') = 1"
(cd "$T" && "$PS" report >/dev/null 2>"$T/def.err"; echo $? >"$T/def.rc")
check "default input pebs-shim.data: named in the error when absent" \
	bash -c "test \$(cat '$T/def.rc') = 1 && grep -q 'pebs-shim.data' '$T/def.err'"

if perf record -q -z -e page-faults -o "$T/z.data" -- true >/dev/null 2>&1; then
	"$PS" report -i "$T/z.data" >"$T/z.out" 2>"$T/z.err"
	rc=$?
	check "perf record -z file: read through libzstd (exit $rc, its samples counted)" \
		bash -c "test $rc = 0 && test ! -s '$T/z.err' &&
			 grep -qE '^# event 0 +: page-faults(:u)? .*: [1-9][0-9]* samples' '$T/z.out'"
else
	skip "this perf cannot record with -z (no zstd)"
fi

# 21: help
"$PS" report --help >"$T/help.out" 2>&1
check "--help: exit 0, usage line" grep -q '^usage: pebs-shim report' "$T/help.out"

# 22-27: files written by pebs-shim record (software event, this host)
R=$T/rec.data
if "$PS" record -e page-faults -c 1 -o "$R" -- "$B/workloads/memwalk" \
	--seconds 0.3 --mb 8 --share >"$T/rec.out" 2>"$T/rec.err" && test -s "$R"; then
	perf script -i "$R" >"$T/rs.out" 2>"$T/rs.err"
	if [ $? = 0 ] && clean "$T/rs.err"; then ok "perf script reads a pebs-shim record file without warnings"
	else nok "perf script reads a pebs-shim record file without warnings" "$(head -3 "$T/rs.err")"; fi
	perf report --stdio -i "$R" >/dev/null 2>"$T/rr.err"
	if [ $? = 0 ] && clean "$T/rr.err"; then ok "perf report reads it without warnings"
	else nok "perf report reads it without warnings" "$(head -3 "$T/rr.err")"; fi
	"$PS" report -i "$R" >"$T/rp.out" 2>&1
	want=$(wc -l <"$T/rs.out")
	check "pebs-shim report counts the $want samples perf script shows" \
		grep -q "^# samples   : $want " "$T/rp.out"
	# memwalk --share: both threads fault on one cache line, again and again
	check "shared cache lines (perf c2c's rules): memwalk's line first, by cross-thread writes, 3 threads, classified" \
		bash -c "sed -n '/^# shared cache lines, as perf c2c ranks them (no data source: by cross-thread writes)/,/^\$/p' '$T/rp.out' |
			 awk '\$1 == 0 { found = (\$7 > 0 && \$8 >= 2 && \$10 ~ /^(true|false)/) }
			      END { exit !found }'"
	check "the attribution record chose (appended to the command line) is shown" \
		grep -q '^# attribution: tid (as recorded by pebs-shim record)' "$T/rp.out"
	# two events: each table is split by event, shares within each event
	if "$PS" record -e page-faults -e minor-faults -c 1 -o "$T/two.data" -- \
		"$B/workloads/memwalk" --seconds 0.2 --mb 8 >/dev/null 2>&1; then
		"$PS" report -i "$T/two.data" >"$T/two.out" 2>&1
		check "two events: tables split by event, walker ~80 % of each" \
			bash -c "grep -q '^# threads, share within each event' '$T/two.out' &&
				 grep -qE '^ +[5-9][0-9]\.[0-9]+% +page-faults +[0-9]+:[^ ]* +[0-9]+ +walker\$' '$T/two.out' &&
				 grep -qE '^ +[5-9][0-9]\.[0-9]+% +minor-faults +[0-9]+:[^ ]* +[0-9]+ +walker\$' '$T/two.out'"
	else
		skip "pebs-shim record -e page-faults -e minor-faults failed"
	fi
else
	for i in 1 2 3 4 5 6; do skip "pebs-shim record failed: $(head -1 "$T/rec.err")"; done
fi

# pipe mode on standard input: perf's stream and pebs-shim's own, read
# from a real pipe (spooled, since the report reads the file twice)
perf record -q -e cpu-clock -o - -- "$B/workloads/memwalk" --seconds 0.3 \
	2>/dev/null | "$PS" report -i - --sort comm,sym --top 5 >"$T/p.out" 2>"$T/p.err"
rc=$?
check "perf record -o - | pebs-shim report -i -: exit 0, walker's chase ranked ($rc)" \
	bash -c "test $rc = 0 && grep -qE 'walker +\[\.\] chase' '$T/p.out'"
"$PS" record -q -e page-faults -c 1 -o - -- "$B/workloads/touchpages" \
	2>/dev/null | "$PS" report -i - >"$T/q.out" 2>"$T/q.err"
rc=$?
check "pebs-shim record -o - | pebs-shim report -i -: exit 0 ($rc)" \
	bash -c "test $rc = 0 && grep -qE '^# event 0 +: page-faults.*: [1-9][0-9]* samples' '$T/q.out'"
"$PS" record -q -e page-faults -c 1 -o - -- "$B/workloads/touchpages" \
	2>/dev/null | "$PS" c2c report -i - >"$T/c.out" 2>"$T/c.err"
rc=$?
check "pebs-shim record -o - | pebs-shim c2c report -i -: exit 0 ($rc)" \
	bash -c "test $rc = 0 && grep -q 'Total records' '$T/c.out'"
# --errors on a recording of a fixed period P (perf's own): each row's
# error is Horvitz-Thompson's over its samples, which for m samples of
# period P comes to 100 sqrt(p (1 - p) (1 - 1/P) / m) points (p the
# row's share); every event a sample (-c 1): none
perf record -q -e page-faults -c 97 -o "$T/e.data" -- "$B/bench/faults" --sites 200000 \
	>/dev/null 2>&1
"$PS" report -i "$T/e.data" --sort sym --errors --format csv >"$T/e.csv" 2>"$T/e.err"
rc=$?
check "report --errors of perf record -c 97: each row's error from its period ($rc)" \
	python3 -c 'import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = sum(int(r["samples"]) for r in rows)
assert m > 100 and len(rows) >= 3
for r in rows[:3]:
	p = float(r["overhead"]) / 100
	want = 100 * math.sqrt(p * (1 - p) * (1 - 1 / 97) / m)
	assert abs(float(r["share_error"]) - want) <= 1e-3 + 1e-3 * want, (r, want)' "$T/e.csv"
perf record -q -e page-faults -c 1 -o "$T/e1.data" -- "$B/bench/faults" 20000 \
	>/dev/null 2>&1
"$PS" report -i "$T/e1.data" --sort sym --errors >"$T/e1.out" 2>&1
check "report --errors of perf record -c 1: every row's error is 0" \
	bash -c "grep -q '^ Overhead   +-pts ' '$T/e1.out' && awk '/^ +[0-9.]+%/ { n++; if (\$2 != \"0.00\") bad++ } END { exit !(n > 0 && !bad) }' '$T/e1.out'"
"$PS" report -i "$T/e1.data" --sort sym >"$T/e0.out" 2>&1
check "without --errors (and no --budget) no +-pts column, as perf report" \
	bash -c "! grep -q '+-pts' '$T/e0.out'"
