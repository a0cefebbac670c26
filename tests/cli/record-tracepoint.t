#!/bin/bash
# record-tracepoint.t - tracepoint recordings perf's tools decode: the
# file carries HEADER_TRACING_DATA (the pipe, PERF_RECORD_HEADER_TRACING_DATA)
# as perf record writes it, so `perf script` prints the sched_switch
# fields of a pebs-shim recording as it does for perf's own recording,
# `perf report --stdio` sorts by them, and a tracepoint beside cpu-clock
# decodes too. As root (tracefs and system-wide tracepoints).
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
need root percpu || skip_all "$why"
[ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ] ||
	skip_all "no sched:sched_switch in tracefs"
echo 1..9
cd "$T" || exit 1

# the field names of perf script's sched_switch lines, values dropped
fields() {
	perf script -i "$1" 2>/dev/null | grep 'sched:sched_switch:' |
		sed -E 's/.*sched:sched_switch: *//; s/([a-z_]+)=[^ ]*/\1/g' | sort -u
}

"$tool" record -q -e sched:sched_switch -a -o ps.data -- sleep 1 2>err
check "record -e sched:sched_switch -a -- sleep 1 exits 0" test $? = 0
perf script -i ps.data >script 2>script.err
rc=$?
if [ $rc = 0 ]; then ok "perf script reads it"; else
	nok "perf script reads it" "$(head -3 script.err)"; fi
n=$(grep -c 'sched:sched_switch: prev_comm=.* prev_pid=[0-9]* .*==> next_comm=.* next_pid=[0-9]*' script)
all=$(grep -c 'sched:sched_switch:' script)
check "perf script prints prev_comm=... ==> next_comm=... ($n of $all lines)" \
	test "$n" -gt 0 -a "$n" = "$all"

perf record -q --no-bpf-event -e sched:sched_switch -a -o perf.data \
	-- sleep 1 2>/dev/null || skip_all "perf record fails here"
fields perf.data >f.perf
fields ps.data >f.shim
if [ -s f.perf ] && cmp -s f.perf f.shim; then
	ok "the same fields as on perf's recording: $(head -1 f.perf)"
else
	nok "the same fields as on perf's recording" \
		"perf: $(head -1 f.perf)" "pebs-shim: $(head -1 f.shim)"
fi

perf report --stdio -i ps.data >rep 2>rep.err
rc=$?
check "perf report --stdio exits 0" test $rc = 0
check "... and its rows are sched_switch fields" \
	grep -qE '^ +[0-9.]+% +prev_comm=.*==> next_comm=' rep

"$tool" record -q -e sched:sched_switch -a -o - -- sleep 0.5 2>/dev/null |
	perf script -i - 2>/dev/null >pipe
check "-o - piped into perf script -i -: sched_switch fields" \
	grep -q 'sched:sched_switch: prev_comm=.*==> next_comm=' pipe

"$tool" record -q -e cpu-clock,sched:sched_switch -a -o mix.data \
	-- "$memwalk" --seconds 1 >/dev/null 2>&1
perf script -i mix.data 2>/dev/null >mix
both() { grep -q ' cpu-clock:' mix && grep -q 'sched_switch: prev_comm=' mix; }
check "cpu-clock beside sched:sched_switch: perf script decodes both" both
"$tool" report -i ps.data >shimrep 2>&1
check "pebs-shim report reads the recording" test $? = 0
