#!/bin/sh
# 41-record-switches - pebs-shim record -a with the module writes the
# module's switch history into the perf.data file as
# PERF_RECORD_SWITCH_CPU_WIDE records: on a workload whose switch order
# is known by construction (tests/vm/switch-token.c: three SCHED_FIFO
# threads on CPU 0 handing a token in a fixed order, logging each turn's
# tid), the file's switch records on that CPU name exactly the turns'
# tids in order, each out record's next is the task that comes in, and
# nothing is lost; `pebs-shim plot timeline` draws segments of the three
# tids with the module's history as its source. With
# --no-switch-history the file has no switch records. With a history of
# 64 entries a ping-pong of 20000 round trips laps the ring between
# record's reads: the gaps are in the file as PERF_RECORD_LOST whose
# counts add up to the summary's, the switch after each gap names no
# prev, and the timeline's title counts the switches lost. Where perf was
# shipped into the guest (VM_ARGS='--ship /usr/bin/perf'), `perf script
# --show-switch-events` prints the records and `perf report` reads the
# file.
name=41-record-switches
. /pebs/guest-lib.sh

pebs-map-load || fail "pebs-map-load failed"
pebs-shim record -a -e cpu-clock -c 1000000 -o /tmp/sw.data \
	-- switch-token run 0 >/tmp/sw.log 2>/tmp/sw.err
rc=$?
tail -n 3 /tmp/sw.err
[ "$rc" = 0 ] || fail "record -a exited $rc: $(tail -n 1 /tmp/sw.log)"
written=$(sed -n 's/.*module switch history: \([0-9]*\) switches written.*/\1/p' /tmp/sw.err)
[ "${written:-0}" -gt 0 ] ||
	fail "record's summary names no module switches written"
chk=$(switch-token check /tmp/sw.data /tmp/sw.log | tail -n 1)
echo "switch-token check: $chk"
case $chk in
ok\ *) ;;
*) fail "${chk#FAIL }" ;;
esac

pebs-shim plot timeline -i /tmp/sw.data -o /tmp/sw.svg ||
	fail "pebs-shim plot timeline failed"
grep -q 'thread segments from module switch history' /tmp/sw.svg ||
	fail "the timeline's title does not name the module's history: $(grep -o 'thread segments from [^<]*' /tmp/sw.svg)"
tids=$(sed -n 's/^turn [0-9]* //p' /tmp/sw.log | sort -u)
for t in $tids; do
	grep -q "<title>CPU 0: token-[0-2] $t," /tmp/sw.svg ||
		fail "no segment of token thread $t on CPU 0 in the timeline"
done

pebs-shim record -a --no-switch-history -e cpu-clock -c 1000000 \
	-o /tmp/nosw.data -- switch-token run 0 >/dev/null 2>/tmp/nosw.err ||
	fail "record --no-switch-history failed: $(tail -n 1 /tmp/nosw.err)"
grep -q 'module switch history' /tmp/nosw.err &&
	fail "--no-switch-history still wrote the module's history"
pebs-shim plot timeline -i /tmp/nosw.data -o /tmp/nosw.svg ||
	fail "plot timeline of the --no-switch-history file failed"
grep -q 'thread segments from sample TIDs' /tmp/nosw.svg ||
	fail "without switch records the timeline is not from sample TIDs"

pebs-map-unload || fail "pebs-map-unload failed"
pebs-map-load history=64 || fail "pebs-map-load history=64 failed"
pebs-shim record -a -e cpu-clock -c 1000000 -o /tmp/lap.data \
	-- switch-pingpong 20000 0 >/dev/null 2>/tmp/lap.err ||
	fail "record of the ping-pong failed: $(tail -n 1 /tmp/lap.err)"
said=$(sed -n 's/.*switches written as PERF_RECORD_SWITCH_CPU_WIDE, \([0-9]*\) lost to overruns.*/\1/p' /tmp/lap.err)
gaps=$(switch-token gaps /tmp/lap.data | tail -n 1)
echo "overrun run: summary says $said lost; file: $gaps"
case $gaps in
lost=*) ;;
*) fail "switch-token gaps: ${gaps#FAIL }" ;;
esac
set -- $(echo "$gaps" | tr '=' ' ')
[ "${2:-0}" -gt 0 ] || fail "a history of 64 lapped by 40000 switches lost none"
[ "$2" = "$said" ] ||
	fail "the LOST records count $2 switches, the summary $said"
[ "$8" = 0 ] || fail "$8 switch records after a gap name a task across it"
pebs-shim plot timeline -i /tmp/lap.data -o /tmp/lap.svg ||
	fail "plot timeline of the lapped recording failed"
grep -q "thread segments from module switch history ($said switches lost in gaps)" /tmp/lap.svg ||
	fail "the timeline's title does not count the switches lost: $(grep -o 'thread segments from [^<]*' /tmp/lap.svg)"

perfmsg="perf not in the guest: perf checked on the host's synthetic file"
if command -v perf >/dev/null 2>&1; then
	n=$(perf script -i /tmp/sw.data --show-switch-events 2>/dev/null |
		grep -c 'PERF_RECORD_SWITCH_CPU_WIDE')
	[ "$n" -gt 0 ] || fail "perf script --show-switch-events prints no switch record"
	perf report -i /tmp/sw.data --stdio >/tmp/sw.rep 2>&1 ||
		fail "perf report refuses the file: $(tail -n 2 /tmp/sw.rep)"
	perfmsg="perf script printed $n switch records, perf report read the file"
fi
pebs-map-unload || fail "pebs-map-unload failed"
echo "PEBS-VM PASS $name $written switches written, $chk; timeline from the module's history with the 3 token threads; history=64 lapped: $gaps, as the summary says; $perfmsg"
