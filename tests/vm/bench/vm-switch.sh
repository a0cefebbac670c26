#!/bin/sh
# vm-switch - the guest half of bench/vm-switch.sh (not a test: it is not
# in tests/vm/guest). switch-pingpong's two threads on one CPU, timed
# bare, with pebs_map loaded, and under perf recording every switch
# system-wide: `perf record -a -e sched:sched_switch` and `perf record -a
# --switch-events -e dummy` when perf was shipped (vm-run.sh --ship),
# else the sched_switch tracepoint enabled through tracefs with a reader
# draining trace_pipe. Each round runs every mode once, starting at a
# different one (interleaved). One line per measurement:
#   PEBS-VM BENCH round=R mode=M trips=N ns=T switches_per_s=S
# Kernel command line: pebs_bench_rounds=N (default 5),
# pebs_bench_trips=N (default 20000).
name=vm-switch
. /pebs/guest-lib.sh
rounds=$(param pebs_bench_rounds 5)
trips=$(param pebs_bench_trips 20000)
tp=/sys/kernel/tracing

if command -v perf >/dev/null && perf record -q --no-bpf-event -a \
	-e sched:sched_switch -o /tmp/probe.data -- true >/tmp/perf.err 2>&1; then
	modes="bare module perf-tp perf-switch"
else
	echo "perf unusable here ($(head -n 1 /tmp/perf.err 2>/dev/null)): tracefs instead"
	[ -w $tp/events/sched/sched_switch/enable ] ||
		fail "neither perf nor $tp/events/sched/sched_switch"
	modes="bare module tracefs"
fi
rm -f /tmp/probe.data

measure() {	# measure MODE: prints switch-pingpong's line
	case $1 in
	bare) switch-pingpong "$trips" ;;
	module)
		pebs-map-load || fail "pebs-map-load"
		switch-pingpong "$trips"
		pebs-map-unload || fail "pebs-map-unload" ;;
	perf-tp)
		perf record -q --no-bpf-event -a -e sched:sched_switch \
			-o /tmp/bench.data -- switch-pingpong "$trips" 2>/tmp/perf.err
		rm -f /tmp/bench.data ;;
	perf-switch)
		perf record -q --no-bpf-event -a --switch-events -e dummy \
			-o /tmp/bench.data -- switch-pingpong "$trips" 2>/tmp/perf.err
		rm -f /tmp/bench.data ;;
	tracefs)
		echo >$tp/trace
		echo 1 >$tp/events/sched/sched_switch/enable
		cat $tp/trace_pipe >/dev/null &
		reader=$!
		switch-pingpong "$trips"
		echo 0 >$tp/events/sched/sched_switch/enable
		kill $reader
		wait $reader 2>/dev/null ;;
	esac
}

set -- $modes
n=$#
r=1
while [ "$r" -le "$rounds" ]; do
	# rotate the order: round r starts with mode (r - 1) % n
	k=0
	while [ "$k" -lt "$n" ]; do
		i=$(( (r - 1 + k) % n + 1 ))
		eval mode=\${$i}
		out=$(measure "$mode" | tail -n 1)
		case $out in
		ok\ *) ;;
		*) fail "round $r $mode: $out $(head -n 2 /tmp/perf.err 2>/dev/null)" ;;
		esac
		set -- $out
		echo "PEBS-VM BENCH round=$r mode=$mode $2 $4 $5"
		set -- $modes
		k=$((k + 1))
	done
	r=$((r + 1))
done
echo "PEBS-VM PASS $name rounds=$rounds trips=$trips modes=$(echo $modes | tr ' ' ,)"
