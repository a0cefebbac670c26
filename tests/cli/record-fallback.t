#!/bin/bash
# record-fallback.t - events perf opens after a retry open here the same
# way (perf 6.1's evsel__open and evsel__fallback; lib/event/event-mods.c):
# without a PMU, cycles falls back to cpu-clock with perf's message and
# the name perf's file gets; cycles:P first walks precise_ip 3, 2, 1, 0
# down on the hardware event, then falls back keeping precise_ip 3, the
# very perf_event_open sequence perf makes (strace); -q says nothing;
# an event without a fallback still fails with record's setup code.
# (The retries on EINVAL of older kernels are in test-event-open.)
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
if need pmu; then skip_all "this host has a PMU: cycles opens, no fallback"; fi
echo 1..8
cd "$T" || exit 1
msg='The cycles event is not supported, trying to fall back to cpu-clock-ticks'

"$tool" record -e cycles -o c.data -- true 2>err
check "record -e cycles exits 0 without a PMU" test $? = 0
check "... saying perf's '$msg'" \
	grep -qx "pebs-shim record: $msg" err
perf record -q --no-bpf-event -e cycles -o perf.data -- true 2>/dev/null ||
	skip_all "perf record fails here"
a=$(perf evlist -i perf.data 2>/dev/null) b=$(perf evlist -i c.data 2>/dev/null)
check "the file's event is perf's: '$b' (perf: '$a')" test -n "$a" -a "$a" = "$b"
"$tool" record -q -e cycles -o q.data -- true 2>err
empty "-q: no message" err

"$tool" record -q -e cycles:P -o p.data -- true 2>/dev/null
perf record -q --no-bpf-event -e cycles:P -o perfp.data -- true 2>/dev/null
a=$(perf evlist -i perfp.data 2>/dev/null) b=$(perf evlist -i p.data 2>/dev/null)
check "cycles:P gives perf's event: '$b' (perf: '$a')" test -n "$a" -a "$a" = "$b"

# the attempts from the first cycles open with precise_ip 3 on: type,
# precise_ip, result (fds as "fd")
attempts() {
	strace -f -e trace=perf_event_open -e signal=none -o "$1.st" "${@:2}" \
		>/dev/null 2>&1
	grep -o 'type=PERF_TYPE_[A-Z]*\|precise_ip=[0-9]\|= -1 E[A-Z]*\|= [0-9]*$' \
		"$1.st" | sed 's/^= [0-9]*$/= fd/' | paste -sd' ' |
		sed 's/type=/\n/g' | sed -n '/HARDWARE precise_ip=3/,$p' | head -5
}
if command -v strace >/dev/null; then
	attempts shim "$tool" record -q -e cycles:P -o p.data -- true >s.shim
	attempts perf perf record -q --no-bpf-event -e cycles:P -o perfp.data \
		-- true >s.perf
	if [ "$(wc -l <s.perf)" = 5 ] && cmp -s s.perf s.shim; then
		ok "cycles:P: perf's open sequence: $(paste -sd'|' s.perf)"
	else
		nok "cycles:P: perf's open sequence" "perf: $(paste -sd'|' s.perf)" \
			"pebs-shim: $(paste -sd'|' s.shim)"
	fi
else
	skip "strace is not installed"
fi

"$tool" record -q -e instructions -o i.data -- true 2>err
rc=$?
check "instructions has no fallback: exit $rc (setup, 124)" test $rc = 124
check "... and one line names it" \
	test "$(wc -l <err)" = 1 -a -n "$(grep instructions err)"
