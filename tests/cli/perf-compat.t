#!/bin/bash
# perf-compat.t - files written by the real perf (record's modes, inject,
# a killed or cut recording) read by pebs-shim as perf reads them.
#
# Fixtures (tests/fixtures/compat/, made with perf 6.1 on a 2-CPU VM
# without a PMU; each *.txt is perf script's output of its file):
#  - tp-exit.perf.data: the last switch of an exiting thread, whose tid
#    the kernel gives as -1 (perf's thread ":-1"):
#      perf record -a --synth=no -B -N -e sched:sched_switch \
#        --filter 'prev_comm == "w1"' ./w1
#    w1 is a main() that creates a thread doing nothing and joins it;
#    tp-exit.script.txt is perf script -F comm,tid,cpu,time,event (a
#    tracepoint's default fields, its payload left out).
#  - inject-b.perf.data: perf inject -b of a recording of 169 cpu-clock
#    samples (perf record -e cpu-clock -c 250000 of a 2-thread loop);
#    inject writes 100-byte HEADER_BUILD_ID records, so the records after
#    them are not 8-byte aligned; inject-b.script.txt is perf script -F
#    comm,tid,time,event,period.
#  - compressed2.perf.data: perf record -z -e cpu-clock -c 250000 of the
#    same loop, rewritten by to-compressed2.py as perf >= 6.15 writes -z
#    (PERF_RECORD_COMPRESSED2: the data's size, then padding);
#    compressed2.script.txt is perf 6.1's perf script -F
#    comm,tid,time,event,period of the file before the rewrite.
#  - children.perf.data: perf record -g -e cpu-clock:u -c 1000000
#    ./chainw, chainw (chainw.c: a static program without libc, a known
#    call tree with a shared callee and a recursion) recorded as
#    /tmp/pebs-shim-chainw/chainw, found here by its build id in a
#    build-id cache made for the test; children.report.txt is perf
#    report --stdio -n (children, the default with call chains; sort
#    comm,dso,sym), children-no.report.txt the same with --no-children,
#    children-sym.report.txt with --sort sym --percent-limit 20.
# Live (skipped where perf cannot record): perf record's modes on
# touchpages, compared with perf report's rows (Overhead, samples,
# command, shared object, symbol; perf with --no-children/--no-group),
# and perf report's children (-g recordings) row for row, in order.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
F=$S/tests/fixtures/compat
T=$(mktemp -d /tmp/perf-compat-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"
need_bin "$PS" "$B/workloads/touchpages"

echo "1..34"

# -- fixtures: no perf needed ---------------------------------------------
"$PS" script -i "$F/tp-exit.perf.data" 2>"$T/err" | sed 's/ *$//' >"$T/out"
sed 's/ *$//' "$F/tp-exit.script.txt" >"$T/exp"
if cmp -s "$T/exp" "$T/out" && [ ! -s "$T/err" ]; then
	ok "tracepoint: perf script's default fields, tid -1 as ':-1'"
else
	nok "tracepoint: perf script's default fields, tid -1 as ':-1'"
	diff "$T/exp" "$T/out" | diag; diag "$T/err"
fi
"$PS" report -i "$F/tp-exit.perf.data" --sort comm -n 2>"$T/err" |
	sed -n '/^# samples by --sort keys/,$p' |
	awk '/^ +[0-9.]+%/ { print $1, $2, $4 }' >"$T/out"
printf '66.67%% 2 w1\n33.33%% 1 :-1\n' >"$T/exp"
if cmp -s "$T/exp" "$T/out"; then
	ok "report --sort comm: the tid -1 sample is perf's ':-1' row"
else
	nok "report --sort comm: the tid -1 sample is perf's ':-1' row"
	diag "$T/out" "$T/err"
fi

# fixture_script NAME TEST: script -F comm,tid,time,event,period of
# NAME.perf.data is NAME.script.txt, perf script's, with no word on stderr
fixture_script() {
	"$PS" script -i "$F/$1.perf.data" -F comm,tid,time,event,period \
		>"$T/out" 2>"$T/err"
	if cmp -s "$F/$1.script.txt" "$T/out" && [ ! -s "$T/err" ]; then
		ok "$2"
	else
		nok "$2" "$(wc -l <"$T/out") lines"
		diff "$F/$1.script.txt" "$T/out" | diag
		diag "$T/err"
	fi
}
fixture_script inject-b \
	"perf inject -b (records not 8-byte aligned): all 169 samples"

# perf's trace field (the payload) is perf's alone: said so, not "unknown"
"$PS" script -i "$F/tp-exit.perf.data" -F comm,tid,event,trace >"$T/out" \
	2>"$T/err"
rc=$?
[ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q "perf script's field 'trace' is not printed by pebs-shim" "$T/err"
ok_rc $? "-F trace: refused as perf's field, in one line (rc $rc)"

# a newer perf's -z: COMPRESSED2 records
fixture_script compressed2 "perf >= 6.15's -z (COMPRESSED2): all 170 samples"

# its samples have no CPU (perf record without -a/-C/--sample-cpu)
"$PS" report -i "$F/inject-b.perf.data" --sort cpu -n 2>&1 |
	awk '/^ +[0-9.]+%/ { print $1, $2, $4 }' >"$T/out"
check "report --sort cpu: no CPU sampled is perf's -001, not CPU 0" \
	test "$(cat "$T/out")" = "100.00% 169 -001"

# a perf record killed (SIGKILL): the header's data size still 0
python3 - "$F/inject-b.perf.data" "$T/k.data" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', d, 40)
d = d[:off + size - 13]		# cut inside the last record
struct.pack_into('<Q', d, 48, 0)
open(sys.argv[2], 'wb').write(d)
EOF
"$PS" script -i "$T/k.data" -F comm,tid,time,event,period >"$T/out" \
	2>"$T/err"
rc=$?
[ $rc = 0 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q "k.data: the header's data size is 0 (was perf record properly terminated?)" "$T/err"
ok_rc $? "data size 0: one warning, as perf's: $(head -1 "$T/err")"
head -n "$(wc -l <"$T/out")" "$F/inject-b.script.txt" | cmp -s - "$T/out" &&
	[ "$(wc -l <"$T/out")" -ge 160 ]
ok_rc $? "... and the samples before the cut ($(wc -l <"$T/out"))"
# a finished file cut short (a partial copy)
head -c 6000 "$F/inject-b.perf.data" >"$T/c.data"
"$PS" report -i "$T/c.data" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q 'perf.data truncated: its data section' "$T/err"
ok_rc $? "a cut copy: refused in one line: $(head -1 "$T/err")"

# -- children: perf report's default with call chains ---------------------
# perf_rows: perf report --stdio's entries (not its call graph), fields
# joined by one space; ps_rows: pebs-shim report -n's --sort table, its
# threads column left out (after Samples)
perf_rows() { awk '/^ +[0-9.]+%/ { $1 = $1; print }'; }
ps_rows() {
	awk '/^# samples by --sort keys/ { m = 1 }
	     m && /^ +[0-9.]+%/ { if ($2 ~ /%$/) $4 = ""; else $3 = ""
				  $0 = $0; $1 = $1; print }'
}
# in_order NAME EXPECTED ACTUAL: the same rows in the same order
in_order() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		ok "$1 ($(wc -l <"$3") rows)"
	else
		nok "$1"
		diff "$2" "$3" | diag
	fi
}
# the fixture's program, by its build id, in a cache of the test's own
BID=c36387e973c4eddca3d13fb0bc9902ab62ecc268
mkdir -p "$T/home/.debug/.build-id/${BID:0:2}/${BID:2}"
cp "$F/chainw" "$T/home/.debug/.build-id/${BID:0:2}/${BID:2}/elf"
CH=$F/children.perf.data
fixture_children() {	# NAME SAVED PEBS-SHIM-OPTION...
	local name=$1 saved=$2
	shift 2
	perf_rows <"$F/$saved" >"$T/exp"
	HOME=$T/home "$PS" report -i "$CH" -n --top 0 "$@" 2>"$T/err" |
		ps_rows >"$T/out"
	[ -s "$T/err" ] && diag "$T/err"
	in_order "$name" "$T/exp" "$T/out"
}
fixture_children "perf record -g: perf report's Children, Self, order (caller above callee on ties)" \
	children.report.txt --sort comm,dso,sym
fixture_children "... --no-children: Self alone, as perf's" \
	children-no.report.txt --sort comm,dso,sym --no-children
fixture_children "... --sort sym --percent-limit 20 (by Children, as perf)" \
	children-sym.report.txt --sort sym --percent-limit 20
# the recursion (rec three frames deep) counts once per sample: rec's
# Children is the samples under it, not three times them
grep -q '^ *18.50% *0.00% .*\[\.\] rec$' "$F/children.report.txt"
ok_rc $? "perf's saved output: rec (recursive) at 18.50%, once per sample"
# csv and json: the children columns
HOME=$T/home "$PS" report -i "$CH" --sort sym --format csv >"$T/csv" 2>&1
head -1 "$T/csv" | grep -q ',children,children_period$' &&
	grep -q '^samples by --sort keys,0\.0000,0,0,.*,\[\.\] main,.*,100\.0000,200000000$' "$T/csv"
ok_rc $? "csv: children and children_period last ($(grep -c '' "$T/csv") lines)"
HOME=$T/home "$PS" report -i "$CH" --sort sym --format json 2>&1 |
	python3 -c '
import json, sys
rows = json.load(sys.stdin)["tables"][0]["rows"]
r = {x["sym"]: x for x in rows}
sys.exit(not (r["[.] leaf"]["children"] == 74.0 and
	      r["[.] leaf"]["overhead"] == 74.0 and
	      r["[.] rec"]["children_period"] == 37000000 and
	      r["[.] rec"]["period"] == 0))'
ok_rc $? "json: children and children_period per row"
# perf's children cumulate code keys only: --children with a data key
"$PS" report -i "$CH" --sort sym,page --children >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q "give those keys or --no-children" "$T/err"
ok_rc $? "--children --sort sym,page: refused in one line (rc $rc)"
# default tables: the threads' and symbols' (code keys) have children
HOME=$T/home "$PS" report -i "$CH" >"$T/out" 2>&1
awk '/^# threads/ { getline; print; exit }' "$T/out" |
	grep -q '^ Children       Self  Tgid:Command' &&
	awk '/^# symbols/ { getline; getline; print; exit }' "$T/out" |
	grep -q '^  100.00%      0.00%        1  \[\.\] _start  chainw$'
ok_rc $? "default tables: threads and symbols by Children"

# -- live: perf record's modes --------------------------------------------
W="$B/workloads/touchpages 256"
if ! command -v perf >/dev/null ||
   ! perf record -q -e page-faults -c 1 -o "$T/probe.data" -- true \
	>/dev/null 2>&1; then
	skip_n 14 "perf cannot record here"
	exit 0
fi
# rows FILE [PERF-OPTION...]: perf report's rows and pebs-shim's, each as
# "event overhead samples comm dso sym", sorted (ties may differ in order)
rows() {
	local f=$1
	shift
	local a ps=()
	for a in "$@"; do	# as pebs-shim's too
		[ "$a" = --no-children ] && ps+=("$a")
	done
	perf report --stdio -i "$f" --sort comm,dso,sym -n "$@" 2>/dev/null |
		awk "/^# Samples: .* of events* '/ { split(\$0, a, \"'\"); ev = a[2] }
		     /^ +[0-9.]+%/ { \$1 = \$1; print ev, \$0 }" |
		sort >"$T/perf.rows"
	"$PS" report -i "$f" --sort comm,dso,sym -n --top 0 "${ps[@]}" \
		2>"$T/ps.err" |
		awk -v one="$(perf report --stdio -i "$f" 2>/dev/null |
			      sed -n "s/^# Samples: .* of events* '\(.*\)'/\1/p" |
			      head -1)" '
		     /^# samples by --sort keys, share within each event/ { m = 1 }
		     /^ +[0-9.]+%/ { if (m) { ev = $4; $4 = "" } else ev = one
				     $3 = ""; $1 = $1; print ev, $0 }' |
		tr -s ' ' | sort >"$T/ps.rows"
}
# same NAME FILE [PERF-OPTION...]
same() {
	local name=$1
	shift
	rows "$@"
	if [ -s "$T/perf.rows" ] && cmp -s "$T/perf.rows" "$T/ps.rows" &&
	   [ ! -s "$T/ps.err" ]; then
		ok "$name ($(wc -l <"$T/ps.rows") rows)"
	else
		nok "$name"
		diff "$T/perf.rows" "$T/ps.rows" | diag
		diag "$T/ps.err"
	fi
}
rec() {	# rec FILE PERF-RECORD-OPTION...
	local f=$1
	shift
	perf record -q -o "$T/$f" "$@" >/dev/null 2>"$T/rec.err"
}
rec plain.data -e page-faults -c 1 -d -- $W
same "perf record -e page-faults -d" "$T/plain.data"
rec g.data -g -e page-faults -c 1 -- $W
same "perf record -g (perf report --no-children)" "$T/g.data" --no-children
# live_children NAME FILE SORT: perf report's default (children) and
# pebs-shim's, row for row in order
live_children() {
	perf report --stdio -i "$2" --sort "$3" -n 2>/dev/null | perf_rows \
		>"$T/exp"
	"$PS" report -i "$2" --sort "$3" -n --top 0 2>"$T/err" | ps_rows \
		>"$T/out"
	[ -s "$T/err" ] && diag "$T/err"
	in_order "$1" "$T/exp" "$T/out"
}
live_children "perf record -g: perf report's children, in order" "$T/g.data" \
	comm,dso,sym
rec gk.data -g -e cpu-clock -c 100000 -- $W
live_children "perf record -g -e cpu-clock (kernel frames): children by dso,sym" \
	"$T/gk.data" dso,sym
# with -d the data mappings are recorded: ld.so's first frame (a return
# address into its data segment) is in ld.so's mapping, as perf has it
rec gd.data -g -d -e page-faults -c 1 -- $W
live_children "perf record -g -d: a frame in a data mapping is that mapping's" \
	"$T/gd.data" dso,sym
# and named by the data symbol there, as perf prints an object symbol:
# tests/workloads/dataframe's faults are taken under a fake frame whose
# return address is fake_frames + 0x40 or + 0x60 in turn (x86-64): one
# row for the symbol, shown with the first one's offset
rec gdf.data -g -d -e page-faults:u -c 1 -- "$B/workloads/dataframe" 64
live_children "perf record -g -d: a frame in a data segment is named by its data symbol" \
	"$T/gdf.data" dso,sym
if [ "$(uname -m)" = x86_64 ]; then
	grep -q '^[0-9.]*% 0\.00% 0 dataframe \[\.\] fake_frames+0x40$' "$T/out" &&
		! grep -q 'fake_frames+0x60' "$T/out"
	ok_rc $? "the fake frames' one row: dataframe [.] fake_frames+0x40"
else
	skip "the fake frame needs x86-64's frame pointer walk"
fi
rec grp.data -e '{cpu-clock/period=100000/,page-faults/period=1/}' -- $W
same "perf record -e '{cpu-clock,page-faults}' (per event)" "$T/grp.data" \
	--no-group
rec multi.data -z -T --sample-cpu --namespaces --switch-events -k mono \
	-e cpu-clock/period=100000/,page-faults/period=1/ -- $W
same "perf record -z -T --sample-cpu --namespaces --switch-events -k mono -e cpu-clock,page-faults" \
	"$T/multi.data"
perf record -q -o - -g -e page-faults -c 1 -- $W 2>/dev/null |
	tee "$T/pipe.data" |
	"$PS" script -i - -F comm,tid,event,period >"$T/out" 2>"$T/err"
same "perf record -o - -g (a pipe-mode file)" "$T/pipe.data" --no-children
grep -c 'page-faults' "$T/out" >"$T/n"
[ "$(cat "$T/n")" -ge 256 ] && [ ! -s "$T/err" ]
ok_rc $? "perf record -o - | pebs-shim script -i - ($(cat "$T/n") samples)"
# perf script on a pipe: a call chain brings sym to -F ip
perf script -i "$T/pipe.data" -F time,ip >"$T/a" 2>/dev/null
"$PS" script -i "$T/pipe.data" -F time,ip >"$T/b" 2>&1
cmp -s "$T/a" "$T/b" && grep -q '^	 *[0-9a-f]* [^ ]' "$T/b"
ok_rc $? "pipe with call chains: -F time,ip shows the frames' symbols, as perf"
# call chains perf takes apart (machine.c's add_callchain_ip): a
# marker it does not know (here -1, as a JIT's or another arch's stack
# leaves) drops the whole chain, and a kernel address among user frames
# (a stale frame pointer) is in no user map: [unknown], not the
# kernel's. g.data's chains edited in place; script and report as perf.
if python3 - "$T/g.data" "$T/gx.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
asz, ao, _, do, ds = struct.unpack_from('<QQQQQ', b, 16)
st = struct.unpack_from('<Q', b, ao + 24)[0]
USER, p, done = 0xfffffffffffffe00, do, 0
while p < do + ds and done < 2:
    t, size = struct.unpack_from('<I', b, p)[0], struct.unpack_from('<H', b, p + 6)[0]
    if t == 9 and st & 32:
        q = p + 8
        for bit, n in ((1 << 16, 8), (1, 8), (2, 8), (4, 8), (8, 8), (64, 8), (512, 8), (128, 8), (256, 8)):
            q += n if st & bit else 0
        nr = struct.unpack_from('<Q', b, q)[0]
        ips = list(struct.unpack_from('<%dQ' % nr, b, q + 8))
        if USER in ips and ips.index(USER) < nr - 2:
            # the first such chain: its last frame -1; the second: a
            # kernel address in its user part
            ips[-1] = 0xffffffffffffffff if done == 0 else 0xfb7fbf750000000b
            struct.pack_into('<%dQ' % nr, b, q + 8, *ips)
            done += 1
    p += size
open(sys.argv[2], 'wb').write(b)
sys.exit(done != 2)
PY
then
	perf script -i "$T/gx.data" >"$T/a" 2>/dev/null
	"$PS" script -i "$T/gx.data" >"$T/b" 2>"$T/err"
	cmp -s "$T/a" "$T/b" && [ -s "$T/a" ] && [ ! -s "$T/err" ]
	ok_rc $? "a chain with an unknown marker (dropped) and one with a kernel address among user frames ([unknown]): script as perf"
	diff "$T/a" "$T/b" | head -n 10 | diag
	live_children "the same chains: report's children as perf's, in order" \
		"$T/gx.data" dso,sym
else
	skip_n 2 "no python3, or g.data has no user call chains to edit"
fi
# an exec'd command (-g -d): the page faults taken inside execve have
# the old program's call to it as their user frame (perf keeps the old
# mappings after an exec), and frames in libc's data are named by its
# debug file's data symbols (libc6-dbg) as perf names them
rec gexec.data -g -d -e page-faults -c 1 -- bash -c "exec $W"
perf script -i "$T/gexec.data" >"$T/a" 2>/dev/null
"$PS" script -i "$T/gexec.data" >"$T/b" 2>"$T/err"
cmp -s "$T/a" "$T/b" && grep -q 'execve' "$T/b" && [ ! -s "$T/err" ]
ok_rc $? "exec'd under -g -d: script's lines are perf's ($(grep -c execve "$T/b") frames in execve)"
diff "$T/a" "$T/b" | head -n 10 | diag
perf inject -b -i "$T/plain.data" -o "$T/inj.data" 2>/dev/null
same "perf inject -b" "$T/inj.data"
perf script -i "$T/inj.data" -F comm,tid,time,event,period >"$T/a" 2>/dev/null
"$PS" script -i "$T/inj.data" -F comm,tid,time,event,period >"$T/b" 2>&1
cmp -s "$T/a" "$T/b" && [ -s "$T/a" ]
ok_rc $? "perf inject -b: script's lines are perf's ($(wc -l <"$T/b"))"
