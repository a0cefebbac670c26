#!/bin/bash
# observe.t - pebs-shim observe as a user meets it on a host without the
# pebs_map module: --help, the missing-module error, one-line usage
# errors (exit 2), a counters-only run (--no-map) whose raw CSV and
# binary records parse and agree with the summary, the summary in a file
# (-o) and every -I ms, --raw-max, a raw file that hits the file size
# limit (EFBIG: one line, exit 1, the summary still printed), a replayed
# table file, Ctrl-C, and a CPU without rdtscp (one line, exit 1). What
# needs rdtscp, two CPUs or per-CPU counters asks the feature probe and
# skips with its reason.
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
tool=$B/pebs-shim
T=$(mktemp -d /tmp/observe-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$PEBS_SRC/tests/tap.sh"
# greps FILE ERE...: every ERE matches a line of FILE
greps() {
	local f=$1
	shift
	for re; do grep -qE -- "$re" "$f" || return 1; done
}
# run WANT_RC NAME ARGS...: pebs-shim observe ARGS, stdout/stderr in $T
run() {
	local want=$1 name=$2 rc
	shift 2
	"$tool" observe "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$name (exit $rc)"
	else
		nok "$name (exit $rc, expected $want)"
		diag "$T/out" "$T/err"
	fi
}
# one_line NAME PATTERN: stderr is one line "pebs-shim observe: ..."
# matching the extended regex PATTERN, and nothing went to stdout
one_line() {
	if [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] &&
	   grep -qE "^pebs-shim observe: .*$2" "$T/err"; then
		ok "$1"
	else
		nok "$1"
		diag "$T/out" "$T/err"
	fi
}
# usage CASE-NAME PATTERN ARGS...: exit 2 and one line matching PATTERN
usage() {
	local name=$1 pat=$2
	shift 2
	"$tool" observe "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] &&
	   grep -qE "^pebs-shim observe: .*$pat" "$T/err"; then
		ok "$name: one line, exit 2"
	else
		nok "$name: one line, exit 2 (exit $rc)"
		diag "$T/err"
	fi
}
# the summary figures of a run: sets kept, rows, pct, med, p99
summary() {
	local re='^trustable: ([0-9]+) of ([0-9]+) \(([0-9.]+) %\) within '
	local line
	line=$(grep -E "$re" "$1") && [[ $line =~ $re ]] || return 1
	kept=${BASH_REMATCH[1]} rows=${BASH_REMATCH[2]} pct=${BASH_REMATCH[3]}
	re='^resolution: median ([0-9]+) cycles \([0-9]+ ns\), p99 ([0-9]+) cycles \([0-9]+ ns\)$'
	line=$(grep -E "$re" "$1") && [[ $line =~ $re ]] || return 1
	med=${BASH_REMATCH[1]} p99=${BASH_REMATCH[2]}
}

# every long option of the source, to check that --help names each
opts=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", [a-z_]*, NULL, .*/\1/p' \
	"$S/tools/cmd-observe.c")
nopts=$(echo "$opts" | wc -w)
ncpu=$(getconf _NPROCESSORS_CONF)
# the runs below observe CPU 0 from another CPU (rdtscp brackets), and
# most count on it
priv=1 why=
need rdtscp cpus2 percpu || priv=0
obs=1 obswhy=
need rdtscp cpus2 || { obs=0 obswhy=$why; }

echo "1..$((nopts + 77))"

# --- help
run 0 "--help" --help
check "--help writes the usage to stdout only" \
	eval 'greps "$T/out" "^usage: pebs-shim observe -C CPUS" && [ ! -s "$T/err" ]'
cp "$T/out" "$T/help"
run 0 "-h" -h
check "-h prints the same text" cmp -s "$T/help" "$T/out"
for o in $opts; do
	check "--help lists --$o" grep -qE -- "^ +(-[a-zA-Z], )?--$o( |$)" "$T/help"
done
check "--help documents the binary format (magic, header, record)" \
	greps "$T/help" 'PEBSOBS' 'u32 record_size' 'u64 delta\[nr_events\]'

# --- no module: the table is the default
if [ -e /dev/pebs_map ]; then
	skip_n 2 "the pebs_map module is loaded: no missing-module error to check"
else
	run 1 "no module, no --no-map" -C 0 -e task-clock --duration 0.1
	one_line "names /dev/pebs_map, how to load it, and --no-map" \
		'/dev/pebs_map not found: load the module \(insmod kmod/pebs_map\.ko.*--no-map'
fi
run 1 "--map of a file that does not exist" -C 0 --map "$T/none"
one_line "names the file" "$T/none not found"

# --- usage errors: exit 2, one line naming the bad value
usage "no -C" 'no CPU to observe' -e task-clock --no-map
usage "-C x" "-C: cpu list: bad token 'x'" -C x
usage "-C 1-0" "-C: cpu list: bad token '1-0'" -C 1-0
usage "-C 0- (a range without its end)" "-C: cpu list: bad token '0-'" -C 0-
usage "-C -1" "'-1'" -C -1
usage "--on x" "bad --on CPU 'x'" -C 0 --on x
usage "--on -1" "bad --on CPU '-1'" -C 0 --on -1
usage "--tolerance -1" "bad --tolerance '-1'" -C 0 --tolerance -1
usage "--tolerance 100" "bad --tolerance '100'" -C 0 --tolerance 100
usage "--tolerance 1%" "bad --tolerance '1%'" -C 0 --tolerance 1%
usage "--duration 0" "bad --duration '0'" -C 0 --duration 0
usage "--duration -1" "bad --duration '-1'" -C 0 --duration -1
usage "--duration inf" "bad --duration 'inf'" -C 0 --duration inf
usage "--duration 1s" "bad --duration '1s'" -C 0 --duration 1s
usage "--period-cycles 0" "bad --period-cycles '0'" -C 0 --period-cycles 0
usage "--format xml" "bad --format 'xml'" -C 0 --format xml
usage "--no-map without -e" '--no-map needs -e' -C 0 --no-map
usage "--map with --no-map" '--map and --no-map' -C 0 --no-map --map x -e task-clock
usage "an unknown event" "unknown event 'no-such-event'" -C 0 --no-map -e no-such-event
usage "an unknown option" "'--bogus'" -C 0 --bogus
usage "a stray argument" "unexpected argument 'extra'" -C 0 extra

# A CPU that does not exist is a bad value too: exit 2.
"$tool" observe -C "$ncpu" --no-map -e task-clock --duration 0.1 \
	>"$T/out" 2>"$T/err"
rc=$?
one_line "-C $ncpu (no such CPU): one line naming it" "CPU $ncpu"
if [ $rc = 2 ]; then ok "-C $ncpu exits 2"; else
	nok "-C $ncpu exits 2 (exit $rc)"; fi
"$tool" observe -C 0 --on "$ncpu" --no-map -e task-clock --duration 0.1 \
	>"$T/out" 2>"$T/err"
rc=$?
one_line "--on $ncpu (no such CPU): one line naming it" "CPU $ncpu"
if [ $rc = 2 ]; then ok "--on $ncpu exits 2"; else
	nok "--on $ncpu exits 2 (exit $rc)"; fi

if [ $priv = 0 ]; then
	skip_n 2 "$why"
else
	run 1 "--raw into a directory that does not exist" -C 0 --no-map \
		-e task-clock --duration 0.1 --raw "$T/no/dir/x.csv"
	if grep -q "^pebs-shim observe: cannot create $T/no/dir/x.csv: " "$T/err" &&
	   [ "$(wc -l <"$T/err")" = 1 ]; then
		ok "one line naming the file"
	else
		nok "one line naming the file"
		diag "$T/err"
	fi
fi

# --- a counters-only run, CSV
if [ $priv = 0 ]; then
	skip_n 10 "$why"
else
	run 0 "--no-map -e task-clock --duration 1 --raw --format csv" -C 0 \
		--no-map -e task-clock --duration 1 --raw "$T/obs.csv" --format csv
	cp "$T/out" "$T/csv.out"
	check "says how counters are read and that there is no table" \
		greps "$T/out" '^counters: (rdpmc|read\(\)) for ' \
		'^observer on CPU [0-9]+, observing CPU 0; table none \(--no-map\)$'
	if summary "$T/out" && [ "$kept" -le "$rows" ] && [ "$rows" -gt 0 ] &&
	   awk -v p="$pct" -v k="$kept" -v r="$rows" \
		'BEGIN { d = p - 100 * k / r; exit !(d < 0.01 && d > -0.01) }' &&
	   grep -qF "within 99.00..101.00 %" "$T/out"; then
		ok "summary: trustable $kept of $rows ($pct %) within 99..101 %"
	else
		nok "summary: trustable fraction within 99..101 %"
		diag "$T/out"
	fi
	check "summary: resolution median $med <= p99 $p99 cycles, both > 0" \
		test "${med:-0}" -gt 0 -a "${med:-0}" -le "${p99:-0}"
	check "CSV header: tsc,dt,cpu,tgid,pid,switches,task-clock" \
		test "$(head -n 1 "$T/obs.csv")" = "tsc,dt,cpu,tgid,pid,switches,task-clock"
	check "CSV: every row has 7 numeric columns" \
		awk -F, 'NR > 1 && (NF != 7 ||
			 $0 !~ /^[0-9]+,[0-9]+,[0-9]+,-?[0-9]+,-?[0-9]+,[0-9]+,[0-9]+$/) { bad = 1 }
			 END { exit bad || NR < 2 }' "$T/obs.csv"
	check "CSV: one row per kept observation ($kept)" \
		test "$(($(wc -l <"$T/obs.csv") - 1))" = "${kept:-x}"
	check "CSV: tsc increases; 0 < dt <= the gap to the previous row" \
		awk -F, 'NR > 2 && ($1 <= t || $2 <= 0 || $2 > $1 - t) { bad = 1 }
			 NR > 1 { t = $1 } END { exit bad }' "$T/obs.csv"
	check "CSV: cpu 0, no table (tgid -1, pid -1, switches 0)" \
		awk -F, 'NR > 1 && ($3 != 0 || $4 != -1 || $5 != -1 || $6 != 0) { bad = 1 }
			 END { exit bad }' "$T/obs.csv"
	# a counter is read inside [start, end] of its observation, and a
	# kept row's end delta is within 1 % of dt: reads lie < 2.01 dt apart
	mhz=$(sed -n 's/.*TSC \([0-9.]*\) MHz.*/\1/p' "$T/csv.out")
	check "CSV: task-clock deltas (ns) are deltas: < 2.1 dt (+1 us)" \
		awk -F, -v mhz="${mhz:-0}" 'NR > 1 && $7 > 2.1 * $2 * 1000 / mhz + 1000 { bad = 1 }
			 END { exit bad || !mhz }' "$T/obs.csv"
fi

# --- binary output (the default format), two events, --tolerance 5
if [ $priv = 0 ]; then
	skip_n 8 "$why"
else
	run 0 "binary output, -e task-clock -e cpu-clock --tolerance 5" -C 0 \
		--no-map -e task-clock -e cpu-clock --duration 0.3 \
		--tolerance 5 --raw "$T/obs.bin"
	summary "$T/out"
	on=$(sed -n 's/^observer on CPU \([0-9]*\),.*/\1/p' "$T/out")
	mhz=$(sed -n 's/.*TSC \([0-9.]*\) MHz.*/\1/p' "$T/out")
	check "summary: within 95.00..105.00 %" grep -qF "within 95.00..105.00 %" "$T/out"
	python3 - "$T/obs.bin" "${kept:-0}" "${on:--2}" "${mhz:-0}" >"$T/py" 2>&1 <<'EOF'
import struct, sys
path, kept, on, mhz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
b = open(path, 'rb').read()
def t(name, cond):
	print(('ok ' if cond else 'FAIL ') + name)
(magic, ver, hsize, rsize, nev, ncpu, ocpu, hz, period, lo, hi,
 res) = struct.unpack_from('<8sIIIIIiQQIIQ', b, 0)
t('magic PEBSOBS\\0, version 1', magic == b'PEBSOBS\0' and ver == 1)
t('sizes: header 64 + 64 * 2, record 32 + 8 * 2, 2 events, 1 CPU',
  (hsize, rsize, nev, ncpu) == (192, 48, 2, 1))
t('observer CPU, no period, lo/hi ppm 950000/1050000, reserved 0',
  ocpu == on and period == 0 and (lo, hi) == (950000, 1050000) and res == 0)
t('tsc_hz matches the summary (%d Hz, %.1f MHz)' % (hz, mhz),
  abs(hz / 1e6 - mhz) <= 0.1)
names = [b[64 + 64 * i:128 + 64 * i].rstrip(b'\0') for i in range(nev)]
t('event names, NUL padded', names == [b'task-clock', b'cpu-clock'])
t('one record per kept observation (%d)' % kept,
  len(b) == hsize + kept * rsize and kept > 0)
prev, bad = 0, 0
for off in range(hsize, len(b), rsize):
	tsc, dt, cpu, tgid, pid, sw = struct.unpack_from('<QQIiiI', b, off)
	if tsc <= prev or dt == 0 or (prev and dt > tsc - prev) or \
	   (cpu, tgid, pid, sw) != (0, -1, -1, 0):
		bad += 1
	prev = tsc
t('records: tsc increases, dt > 0, cpu 0, tgid/pid -1 (%d bad)' % bad, bad == 0)
EOF
	if grep -q '^ok magic' "$T/py" && grep -q '^ok sizes' "$T/py"; then
		ok "bin header: magic PEBSOBS, version 1, sizes for 2 events"
	else
		nok "bin header: magic PEBSOBS, version 1, sizes for 2 events"
		diag "$T/py"
	fi
	for what in 'observer CPU' 'tsc_hz' 'event names' 'one record' 'records:'; do
		if grep -q "^ok $what" "$T/py"; then
			ok "bin: $(grep "^ok $what" "$T/py" | cut -c4-)"
		else
			nok "bin: $what"
			diag "$T/py"
		fi
	done
fi

# --- a replayed table file: the slot's thread shows in rows and summary
python3 - "$T/table" <<'EOF'
import struct, sys
PAGE = 4096
hdr = struct.pack('<QIIIIQQQQIIIIII6Q', 0x0050414d53424550, 1, 128, 2, 64,
		  128, PAGE, PAGE, PAGE, 8, 16, 1, 1, 1, 0, *[0] * 6)
buf = bytearray(2 * PAGE)
buf[0:128] = hdr
buf[128:192] = struct.pack('<IiiIQQQ16sQ', 20, 77, 78, 0, 10, 5900, 10,
			   b'sh', 0)
buf[192:256] = struct.pack('<IiiIQQQ16sQ', 0, -1, -1, 1, 0, 0, 0, b'', 0)
open(sys.argv[1], 'wb').write(buf)
EOF
if [ $obs = 0 ]; then
	skip_n 4 "$obswhy"
else
	run 0 "--map TABLE-FILE, table only, CSV" -C 0 --map "$T/table" \
		--duration 0.2 --raw "$T/table.csv" --format csv
	check "says: no counters, table TABLE-FILE" \
		greps "$T/out" '^counters: none \(table only\)$' \
		"^observer on CPU [0-9]+, observing CPU 0; table $T/table\$"
	check "CSV: header without events; rows show tgid 77 pid 78, 10 switches" \
		awk -F, 'NR == 1 && $0 != "tsc,dt,cpu,tgid,pid,switches" { bad = 1 }
			 NR > 1 && (NF != 6 || $3 != 0 || $4 != 77 || $5 != 78 || $6 != 10) { bad = 1 }
			 END { exit bad || NR < 2 }' "$T/table.csv"
	check "summary: CPU 0 ran tid 78 of tgid 77 all the time" \
		grep -qE '^  cpu 0 tid 78 tgid 77: 100\.00 % \(all 100\.00 %\)' "$T/out"
fi

# --- Ctrl-C stops a long run early and still prints the summary
if [ $priv = 0 ]; then
	skip_n 2 "$why"
else
	stdbuf -oL "$tool" observe -C 0 --no-map -e task-clock --duration 60 \
		>"$T/out" 2>"$T/err" &
	pid=$!
	# running once it said where it observes from (then 50 ms of TSC
	# calibration before it installs its handler)
	for i in $(seq 100); do
		grep -q '^observer on CPU' "$T/out" && break
		sleep 0.1
	done
	sleep 2
	kill -INT $pid
	wait $pid
	rc=$?
	check "SIGINT: exit 0 (exit $rc)" test $rc = 0
	if summary "$T/out" && [ "$rows" -gt 0 ]; then
		ok "SIGINT: the summary is printed ($rows observations)"
	else
		nok "SIGINT: the summary is printed"
		diag "$T/out" "$T/err"
	fi
fi

# --- the output is bounded: the summary has a size independent of the
# run's length; -o puts it in a file; -I repeats it
if [ $priv = 0 ]; then
	skip_n 8 "$why"
else
	run 0 "no --raw, 0.2 s" -C 0 --no-map -e task-clock --duration 0.2
	short=$(wc -c <"$T/out")
	run 0 "no --raw, 2 s" -C 0 --no-map -e task-clock --duration 2
	long=$(wc -c <"$T/out")
	check "the summary's size does not grow with the run ($short vs $long bytes, < 4 KiB)" \
		test "$long" -lt 4096 -a "$long" -lt $((short + 200))
	run 0 "-o FILE" -C 0 --no-map -e task-clock --duration 0.2 -o "$T/sum"
	check "-o: stdout empty, the summary in FILE" \
		eval '[ ! -s "$T/out" ] && summary "$T/sum" && greps "$T/sum" "^period cycles: p50 [0-9]+ p90 [0-9]+ p99 [0-9]+ p99.9 [0-9]+ max [0-9]+$"'
	run 0 "-I 200 over 1 s" -C 0 --no-map -e task-clock --duration 1 -I 200
	ni=$(grep -c "^trustable: " "$T/out")
	check "-I 200: 4 interim summaries and the final one ($ni)" \
		test "$ni" -ge 4 -a "$ni" -le 6
	check "-I: the last summary follows '# ... s, end'" \
		eval 'grep -qE "^# [0-9.]+ s, end$" "$T/out"'
fi

# --- --raw-max: records stop there, observing goes on (exit 0)
if [ $priv = 0 ]; then
	skip_n 3 "$why"
else
	run 0 "--raw-max 64K" -C 0 --no-map -e task-clock --duration 1 \
		--raw "$T/cap.bin" --raw-max 64K
	sz=$(stat -c %s "$T/cap.bin")
	check "the file is at most 64 KiB, whole records ($sz bytes)" \
		test "$sz" -le 65536 -a $(((sz - 128) % 40)) = 0
	check "one line says the limit was reached" \
		eval '[ "$(grep -c "^pebs-shim observe: --raw-max reached: $T/cap.bin holds the first [0-9]* records" "$T/err")" = 1 ]'
fi

# --- a raw file that cannot grow (ulimit -f: EFBIG, as on a full disk)
if [ $priv = 0 ]; then
	skip_n 4 "$why"
else
	(ulimit -f 64; exec "$tool" observe -C 0 --no-map -e task-clock \
		--duration 3 --raw "$T/big.bin") >"$T/out" 2>"$T/err"
	rc=$?
	check "EFBIG: exit 1 (exit $rc)" test $rc = 1
	one=$(grep -c . "$T/err")
	check "EFBIG: one line naming the file and the cause ($one lines)" \
		eval '[ "$one" = 1 ] && grep -q "^pebs-shim observe: writing $T/big.bin: File too large" "$T/err"'
	check "EFBIG: the summary is still printed" summary "$T/out"
	check "EFBIG: the file holds what was written (64 KiB)" \
		test "$(stat -c %s "$T/big.bin")" = 65536
fi

# --- a CPU without rdtscp (the library's switch simulates one)
PEBS_TEST_NO_RDTSCP=1 "$tool" observe -C 0 --no-map -e task-clock \
	--duration 0.1 >"$T/out" 2>"$T/err"
rc=$?
check "no rdtscp: exit 1 (exit $rc)" test $rc = 1
one_line "no rdtscp: one line naming rdtscp and qemu -cpu max" \
	'no rdtscp: the observer needs it \(under qemu use -cpu max\)'
