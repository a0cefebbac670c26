#!/bin/bash
# examples.t - the programs in examples/ run on this host and print what
# they claim: sample-thread samples page faults at the addresses a known
# workload touched, map-watch explains a missing module in one line and
# reads a table file laid out as include/pebs_map.h says, observe-embed
# prints a kept fraction in [0, 1] that matches its counts;
# attrib-threads names its two worker threads (COMM records through
# pebs_attrib) with at least one sample per page each faulted in;
# thread-samples counts a fixture's samples per command as perf report
# --sort comm does; c2c-lines's summary of a fixture is perf c2c
# report's and it lists one 64-byte line per sampled address.
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
ex=$B/examples
T=$(mktemp -d /tmp/examples-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$PEBS_SRC/tests/tap.sh"
# run WANT_RC NAME CMD...: stdout in $T/out, stderr in $T/err
run() {
	local want=$1 name=$2 rc
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$name (exit $rc)"
	else
		nok "$name (exit $rc, expected $want)"
		diag "$T/out" "$T/err"
	fi
}
# a sample line as sample-thread prints it
SAMPLE='^tid [0-9]+ cpu [0-9]+ time [0-9]+\.[0-9]{9} ip 0x[0-9a-f]+ addr (0|0x[0-9a-f]+)( \|.*)?$'

echo "1..34"

for e in sample-thread map-watch observe-embed attrib-threads \
	 thread-samples c2c-lines; do
	check "make all built examples/$e" test -x "$ex/$e"
done

# --- sample-thread on a command: every page touchpages faults in is a
# sample of its tid at that address
pages=50
run 0 "sample-thread page-faults:period=1 touchpages $pages" \
	"$ex/sample-thread" page-faults:period=1 "$B/workloads/touchpages" \
	$pages "$T/pages"
grep -E "$SAMPLE" "$T/out" >"$T/samples"
nsamp=$(wc -l <"$T/samples")
if [ "$(grep -cvE "$SAMPLE" "$T/out")" = 1 ] &&
   tail -n 1 "$T/out" | grep -qE "^$nsamp samples of page-faults(:[a-z]+)?:period=1, lost 0$"; then
	ok "one line per sample ($nsamp), then the count and lost 0"
else
	nok "one line per sample ($nsamp), then the count and lost 0"
	diag "$T/out"
fi
missing=0
while read -r a; do
	grep -q " addr 0x$a\$" "$T/samples" || missing=$((missing + 1))
done <"$T/pages"
if [ "$(wc -l <"$T/pages")" = $pages ] && [ $missing = 0 ]; then
	ok "each of the $pages pages touched is a sample at its address"
else
	nok "each of the $pages pages touched is a sample at its address ($missing missing)"
	diag "$T/pages"
fi
tids=$(awk '{ print $2 }' "$T/samples" | sort -u | wc -l)
check "the samples are of one thread (the command's)" test "$tids" = 1

# --- on itself: 0.2 s of faulting in 64 fresh pages at a time
run 0 "sample-thread page-faults:period=1 (samples itself)" \
	"$ex/sample-thread" page-faults:period=1
total=$(grep -cE "$SAMPLE" "$T/out")
paged=$(grep -E "$SAMPLE" "$T/out" | grep -cE ' addr 0x[0-9a-f]*000$')
if [ "$paged" -ge 64 ]; then
	ok "samples at page-aligned addresses ($paged of $total)"
else
	nok "samples at page-aligned addresses ($paged of $total)"
	diag "$T/out"
fi

# --- auto: the best event here; says on stderr when it falls back
run 0 "sample-thread (auto) samples itself" "$ex/sample-thread"
last=$(tail -n 1 "$T/out")
if [[ $last =~ ^[0-9]+\ samples\ of\ cpu-clock ]]; then
	check "auto fell back to cpu-clock and said why on stderr" \
		grep -q '^sample-thread: auto: no PEBS/IBS here (.*); sampling cpu-clock instead$' "$T/err"
elif [[ $last =~ ^[0-9]+\ samples\ of\ .*,\ lost\ [0-9]+$ ]]; then
	check "auto used a precise event without a fallback note" \
		test ! -s "$T/err"
else
	nok "auto: a summary line ($last)"
fi

run 1 "sample-thread with an unknown event" "$ex/sample-thread" no-such-event
check "one line on stderr names the event" \
	eval "[ \$(wc -l <'$T/err') = 1 ] && grep -q \"^sample-thread: unknown event 'no-such-event'\" '$T/err'"

run 1 "sample-thread with a command that does not exist" \
	"$ex/sample-thread" page-faults "$T/no-such-command"
check "the exec error names the command" \
	grep -q "^sample-thread: $T/no-such-command: No such file or directory$" "$T/err"

# --- map-watch
if [ -e /dev/pebs_map ]; then
	skip_n 2 "the pebs_map module is loaded: no missing-module error to check"
else
	run 1 "map-watch without the module" "$ex/map-watch"
	if [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] &&
	   grep -q '^map-watch: /dev/pebs_map not found: load the module (insmod kmod/pebs_map.ko' "$T/err"; then
		ok "one line: /dev/pebs_map not found, how to load it"
	else
		nok "one line: /dev/pebs_map not found, how to load it"
		diag "$T/err"
	fi
fi

# a 2-CPU table file (hist_len 8): CPU 0 made 10 switches alternating
# between idle and pid 77 ("sh"), CPU 1 never switched
python3 - "$T/table" <<'EOF'
import struct, sys
PAGE, NR, LEN, SW = 4096, 2, 8, 10
hdr = struct.pack('<QIIIIQQQQIIIIII6Q', 0x0050414d53424550, 1, 128, NR, 64,
		  128, PAGE, PAGE, PAGE, LEN, 16, 1, 1, 1, 0, *[0] * 6)
buf = bytearray(2 * PAGE)
buf[0:128] = hdr
buf[128:192] = struct.pack('<IiiIQQQ16sQ', 20, 77, 77, 0, SW,
			   5000 + (SW - 1) * 100, SW, b'sh', 0)
buf[192:256] = struct.pack('<IiiIQQQ16sQ', 0, -1, -1, 1, 0, 0, 0, b'', 0)
for k in range(SW - LEN, SW):
	who = 77 if k % 2 else 0
	off = PAGE + (k % LEN) * 16
	buf[off:off + 16] = struct.pack('<Qii', 5000 + k * 100, who, who)
open(sys.argv[1], 'wb').write(buf)
EOF
cat >"$T/want" <<'EOF'
2 CPUs, 8 history entries each, hook tracepoint
cpu 0: tgid 77 pid 77 comm sh switches 10 last switch 5900 ns history head 10
cpu 1: never seen switching
cpu 0 at 5600 ns: tgid 0 pid 0 (idle)
cpu 0 at 5700 ns: tgid 77 pid 77
cpu 0 at 5800 ns: tgid 0 pid 0 (idle)
cpu 0 at 5900 ns: tgid 77 pid 77
cpu 0: 4 switches followed, 0 lost
EOF
run 0 "map-watch on a table file" "$ex/map-watch" "$T/table"
if diff -u "$T/want" "$T/out" >"$T/diff"; then
	ok "slots, then the last 4 switches of CPU 0, 0 lost"
else
	nok "slots, then the last 4 switches of CPU 0, 0 lost"
	diag "$T/diff"
fi
printf 'not a table' >"$T/short"
run 1 "map-watch on a file too short for a table" "$ex/map-watch" "$T/short"
check "one line on stderr" test "$(wc -l <"$T/err")" = 1

# --- observe-embed: counting on CPU 0 from another CPU needs privileges
run 2 "observe-embed with fewer than 2 rows" "$ex/observe-embed" 1
if ! need rdtscp cpus2 percpu; then
	skip_n 2 "observe-embed: $why"
else
	rows=20000
	run 0 "observe-embed $rows rows of task-clock" "$ex/observe-embed" $rows
	re='^kept ([0-9]+) of ([0-9]+) observations: fraction ([0-9.]+)$'
	line=$(grep -E "$re" "$T/out")
	if [[ $line =~ $re ]] && kept=${BASH_REMATCH[1]} &&
	   all=${BASH_REMATCH[2]} && frac=${BASH_REMATCH[3]} &&
	   [ "$all" = $((rows - 1)) ] && [ "$kept" -le "$all" ] &&
	   awk -v f="$frac" -v k="$kept" -v a="$all" 'BEGIN {
		d = f - k / a; if (d < 0) d = -d
		exit !(f >= 0 && f <= 1 && d < 0.0001) }' &&
	   grep -qE '^median period [1-9][0-9]* cycles \([0-9]+ ns\)$' "$T/out"; then
		ok "kept fraction $frac in [0, 1] ($kept of $all), median period"
	else
		nok "kept fraction in [0, 1], median period"
		diag "$T/out"
	fi
fi

# --- attrib-threads: two named threads, each page a sample of its own
run 0 "attrib-threads 100 200" "$ex/attrib-threads" 100 200
a=$(sed -n 's/^worker-a: \([0-9]*\) samples (tid \([0-9]*\))$/\1 \2/p' "$T/out")
b=$(sed -n 's/^worker-b: \([0-9]*\) samples (tid \([0-9]*\))$/\1 \2/p' "$T/out")
if [ -n "$a" ] && [ -n "$b" ] && [ "${a% *}" -ge 100 ] &&
   [ "${b% *}" -ge 200 ] && [ "${a#* }" != "${b#* }" ]; then
	ok "worker-a has >= 100 samples, worker-b >= 200, two tids ($a; $b)"
else
	nok "worker-a has >= 100 samples, worker-b >= 200, two tids"
	diag "$T/out"
fi

# --- thread-samples and c2c-lines on the Skylake load-latency fixture
fx=$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
run 0 "thread-samples on the Skylake fixture" "$ex/thread-samples" "$fx"
grep -E '^ +[0-9]+  ' "$T/out" | awk '{ print $1, $2 }' | sort >"$T/ts"
if ! command -v perf >/dev/null; then
	skip "perf is not installed (apt-get install linux-perf)"
else
	perf report -i "$fx" --stdio --sort comm -n 2>/dev/null |
		awk '!/^#/ && NF == 3 { print $2, $3 }' | sort >"$T/pr"
	if [ -s "$T/ts" ] && cmp -s "$T/ts" "$T/pr" &&
	   tail -n 1 "$T/out" | grep -q ' threads, 0 undecoded samples$'; then
		ok "samples per command are perf report --sort comm's ($(wc -l <"$T/ts") commands)"
	else
		nok "samples per command are perf report --sort comm's"
		diag "$T/out" "$T/pr"
	fi
fi

run 0 "c2c-lines on the Skylake fixture" "$ex/c2c-lines" "$fx"
re='^records ([0-9]+), loads ([0-9]+) \(L1 ([0-9]+), fill buffer ([0-9]+), L2 ([0-9]+), LLC ([0-9]+), LLC misses ([0-9]+)\), stores ([0-9]+), locked ([0-9]+), undecoded 0$'
if ! command -v perf >/dev/null; then
	skip "perf is not installed (apt-get install linux-perf)"
elif [[ $(head -n 1 "$T/out") =~ $re ]]; then
	ours="${BASH_REMATCH[*]:1}"
	perf --no-pager c2c report -i "$fx" --stdio --no-source 2>/dev/null |
		awk -F: '{ gsub(/^ +| +$/, "", $1); gsub(/ /, "", $2) }
		$1 == "Total records" && !r { r = $2 }
		$1 == "Load Operations" { l = $2 }
		$1 == "Load L1D hit" { l1 = $2 }
		$1 == "Load Fill Buffer Hit" { fb = $2 }
		$1 == "Load L2D hit" { l2 = $2 }
		$1 == "Load LLC hit" { llc = $2 }
		$1 == "Load LLC Misses" && m == "" { m = $2 }
		$1 == "Store Operations" { st = $2 }
		$1 == "Locked Load/Store Operations" { lk = $2 }
		END { print r, l, l1, fb, l2, llc, m, st, lk }' >"$T/pc"
	check "the summary is perf c2c report's (records loads L1 LFB L2 LLC misses stores locked: $ours)" \
		test "$ours" = "$(cat "$T/pc")"
else
	nok "the summary line"
	diag "$T/out"
fi
n=$(head -n 1 "$T/out" | sed 's/^records \([0-9]*\),.*/\1/')
lines=$(grep -cE '^line 0x[0-9a-f]*[048c]0 pid [0-9]+: 1 records, ' "$T/out")
check "one 64-byte aligned line per sample ($lines of $n)" test "$lines" = "$n"
