#!/bin/bash
# bench.t - the benchmarks run and write readable results; no timing is
# judged here. A BENCH_QUICK=1 run of bench/run.sh with tiny sizes: exit
# 0, every section present (as figures, or skipped with a reason when
# this host lacks what it needs), CSV with 14 fields a row, JSON that
# parses with the machine's description, an SVG that xmllint accepts.
# The driver (bench/lib.sh) on made-up runs: per-round ratios, median,
# min, max, the noise warning, a failed run left out. The renderer
# (bench/render.sh) on a made-up row with a comma, quotes and <&>: CSV
# quoting, JSON escaping, valid XML, the same bytes twice. The observer
# skipped with the probe's reason without rdtscp; a stand-in for
# bench/vm-switch.sh (BENCH_VM_SWITCH) whose result lines become rows and
# whose failure becomes a skip. And the tool has no bench command.
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
T=$(mktemp -d /tmp/bench-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
# record --budget keeps its costs there, not in the user's cache
export XDG_CACHE_HOME=$T/xdg
. "$S/tests/tap.sh"
echo "1..23"

# ---- the driver on made-up runs -----------------------------------------
BENCH_ROWS=$T/rows.tsv
: >"$BENCH_ROWS"
BENCH_QUICK=
ROUNDS=5
. "$S/bench/lib.sh"
anchor() { echo "2 10"; }
# subject: 1, 3, 2, fails, 2.5 (ratios 0.5 1.5 1 - 1.25) and 10 each
subj() {
	local r
	r=$(cat "$T/r" 2>/dev/null || echo 0)
	echo $((r + 1)) >"$T/r"
	case $r in 0) echo "1 10" ;; 1) echo "3 10" ;; 2) echo "2 10" ;;
	3) return 1 ;; *) echo "2.5 10" ;; esac
}
bench_compare sec "made-up case" "speed,size" "s,B" A anchor S subj >"$T/cmp.out"
IFS=$'\t' read -r -a row <"$BENCH_ROWS"
check "driver: the speed ratio's min, median, max over the 4 rounds that ran" \
	test "${row[9]} ${row[10]} ${row[11]} ${row[6]}" = "0.5000 1.1250 1.5000 4"
check "driver: max/min > 1.10 is flagged noisy, with a warning line" \
	bash -c "[ '${row[12]}' = 1 ] && grep -q 'warning: made-up case speed S / A: max/min > 1.10' '$T/cmp.out'"
check "driver: the failed round is said (round 4 failed; 1 of 5 rounds failed)" \
	bash -c "grep -q 'round 4: A 2 10, S failed' '$T/cmp.out' && [[ '${row[13]}' == *'1 of 5 rounds failed'* ]]"
row2=$(sed -n 2p "$BENCH_ROWS" | cut -f3,8,9,11,13)
check "driver: the second metric: medians 10 and 10, ratio 1, not noisy" \
	test "$row2" = "$(printf 'size\t10\t10\t1.0000\t0')"

# ---- the renderer on made-up rows ---------------------------------------
printf 'date\t2026-01-01T00:00:00Z\ncpu\tCPU "X", <&> 2\ncores\t2\nrounds\t5\nquick\t0\n' >"$T/m.tsv"
printf 'sec\ta, "b" <&>\tt\ts\tS\tA\t5\t1.5\t1\t0.9\t1.5\t2\t1\tnote, too\n' >"$T/r.tsv"
printf 'sec\tskipped case\t\t\t\t\t0\t\t\t\t\t\t\tskipped: no PEBS here\n' >>"$T/r.tsv"
"$S/bench/render.sh" "$T/m.tsv" "$T/r.tsv" "$T/a" &&
	"$S/bench/render.sh" "$T/m.tsv" "$T/r.tsv" "$T/b"
check "render: the same input gives the same bytes" \
	bash -c "for e in csv json md svg; do cmp -s '$T/a.'\$e '$T/b.'\$e || exit 1; done"
check "render: a field with a comma and quotes is quoted in the CSV" \
	grep -qF 'sec,"a, ""b"" <&>",t,s,S,A,5,1.5,1,0.9,1.5,2,1,"note, too"' "$T/a.csv"
if command -v xmllint >/dev/null; then
	check "render: <&> and quotes in the SVG are valid XML" xmllint --noout "$T/a.svg"
else
	skip "xmllint not installed (apt-get install libxml2-utils)"
fi
if command -v jq >/dev/null; then
	check "render: JSON keeps strings and numbers (jq)" \
		bash -c "[ \"\$(jq -r '.machine.cpu, .results[0].case, .results[0].ratio_median, .results[0].noisy, .results[1].note' '$T/a.json')\" = \
			\"\$(printf 'CPU \"X\", <&> 2\na, \"b\" <&>\n1.5\ntrue\nskipped: no PEBS here')\" ]"
else
	check "render: JSON parses (python3 -m json.tool)" python3 -m json.tool "$T/a.json" /dev/null
fi
check "render: the skipped case is a Markdown row with its reason" \
	grep -qF '| sec: skipped case | | | | | | skipped: no PEBS here |' "$T/a.md"
check "render: an unreadable input is one line, exit 1, no output file" \
	bash -c "! '$S/bench/render.sh' '$T/none' '$T/r.tsv' '$T/c' 2>'$T/err' &&
		 [ \$(wc -l <'$T/err') = 1 ] && ! ls '$T'/c.* 2>/dev/null"

# ---- a quick run of everything ------------------------------------------
out=$T/results
if ! command -v perf >/dev/null; then
	skip_n 10 "perf is not installed (apt-get install linux-perf)"
else
	BENCH_QUICK=1 ROUNDS=2 BENCH_ONLY= FAULTS=2000 CLOCK_SAMPLES=4000 ALLOCS=2000 BENCH_OUT=$out \
		PEBS_BUILD=$B PEBS_SRC=$S "$S/bench/run.sh" >"$T/run.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then ok "BENCH_QUICK=1 bench/run.sh exits 0"
	else nok "BENCH_QUICK=1 bench/run.sh exits 0 (exit $rc)" "$(tail -n 5 "$T/run.out")"; fi
	check "it writes latest.csv, .json, .md and .svg" \
		test -s "$out/latest.csv" -a -s "$out/latest.json" -a -s "$out/latest.md" -a -s "$out/latest.svg"
	if command -v python3 >/dev/null; then
		check "every CSV row has the header's 14 fields (python3 csv)" \
			python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); sys.exit(not (len(r) > 10 and all(len(x) == 14 for x in r)))' "$out/latest.csv"
	else
		skip "python3 not installed"
	fi
	if command -v jq >/dev/null; then
		check "the JSON parses and describes the machine (jq)" \
			bash -c "jq -e '.machine | (.date and .cpu and .cores and .kernel and .perf and .virtualized and .pmu)' '$out/latest.json' >/dev/null"
	else
		check "the JSON parses (python3 -m json.tool)" python3 -m json.tool "$out/latest.json" /dev/null
	fi
	if command -v xmllint >/dev/null; then
		check "the SVG is valid XML (xmllint)" xmllint --noout "$out/latest.svg"
	else
		skip "xmllint not installed (apt-get install libxml2-utils)"
	fi
	# every section is there: figures, or a skip with its reason
	missing=
	for s in slowdown recorder report objects export budget decode observe vm-switch; do
		grep -q "^$s," "$out/latest.csv" || missing="$missing $s"
	done
	check "every section has rows (slowdown recorder report objects export budget decode observe vm-switch)${missing:+: missing$missing}" \
		test -z "$missing"
	check "slowdown compares pebs-shim and perf with bare at 1 ms, 100 us and page faults (wall and CPU)" \
		test "$(grep -cE '^slowdown,.*,(wall|cpu),s,(pebs-shim|perf),bare,2,[0-9.]+,[0-9.]+,[0-9.]+,' "$out/latest.csv")" = 12
	# objects: record, --objects, --objects=all (and heaptrack where it is
	# installed) against bare, wall time and peak memory; then record and
	# --objects alone, with the big blocks and with small ones only
	if command -v heaptrack >/dev/null; then nobj=16 ht=", heaptrack"
	else nobj=14 ht=" (heaptrack is not installed)"; fi
	check "objects compares record, --objects, --objects=all$ht with bare (wall, peak memory)" \
		test "$(grep -cE '^objects,.*,(wall,s|peak memory,MB),(record|record --objects|record --objects=all|heaptrack),bare,2,[0-9.]+,[0-9.]+,[0-9.]+,' "$out/latest.csv")" = $nobj
	check "budget compares the top-10 object shares (record --objects) of 1, 2 and 5 % with the full rate (the median of the rounds' runs)" \
		test "$(grep -cE '^budget,"page-faults -d --objects, faults --sites [0-9]+: top-10 object shares, budget [125]% vs full rate, median of [0-9]+ runs",largest difference,points,budget [125]%,,1,[0-9.]+,' "$out/latest.csv")" = 3
	check "objects runs an interposer that only forwards beside default sampling (wall, peak memory)" \
		test "$(grep -cE '^objects,"default sampling[^"]*",(wall,s|peak memory,MB),forwarding interposer,bare,2,[0-9.]+,[0-9.]+,[0-9.]+,' "$out/latest.csv")" = 4
	BENCH_QUICK=1 BENCH_ONLY=observe PEBS_TEST_NO_RDTSCP=1 BENCH_OUT=$T/nordtscp \
		PEBS_BUILD=$B PEBS_SRC=$S "$S/bench/run.sh" >"$T/nr.out" 2>&1
	check "without rdtscp the observer is skipped with the reason" \
		grep -q '^observe,observer period,.*skipped: rdtscp hidden by PEBS_TEST_NO_RDTSCP' "$T/nordtscp/latest.csv"
	# the module's VM benchmark: its result lines become rows; a failure
	# is a skip with its last line
	printf 'echo booting\necho "result switch-hook 123.5 ns"\n' >"$T/vm-ok.sh"
	printf 'echo "no qemu here"\nexit 1\n' >"$T/vm-bad.sh"
	BENCH_QUICK= BENCH_ONLY=vm-switch BENCH_VM_SWITCH=$T/vm-ok.sh BENCH_OUT=$T/vm1 \
		PEBS_BUILD=$B PEBS_SRC=$S "$S/bench/run.sh" >/dev/null 2>&1
	BENCH_QUICK= BENCH_ONLY=vm-switch BENCH_VM_SWITCH=$T/vm-bad.sh BENCH_OUT=$T/vm2 \
		PEBS_BUILD=$B PEBS_SRC=$S "$S/bench/run.sh" >/dev/null 2>&1
	check "bench/vm-switch.sh's result lines are rows; its failure a skip with its last line" \
		bash -c "grep -q '^vm-switch,switch-hook,cost,ns,bench/vm-switch.sh,,1,123.5,' '$T/vm1/latest.csv' &&
			 grep -q '^vm-switch,switch-hook cost,.*skipped: bench/vm-switch.sh failed: no qemu here' '$T/vm2/latest.csv'"
fi

"$B/pebs-shim" bench >"$T/o" 2>"$T/e"
rc=$?
check "pebs-shim has no bench command (exit 2, one line)" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <'$T/e') = 1 ] && grep -q \"unknown command 'bench'\" '$T/e'"
