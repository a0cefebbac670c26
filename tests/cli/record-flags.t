#!/bin/bash
# record-flags.t - perf record's flags with perf's meanings, and the exit
# status: the command's own (128+N for a signal), else record's codes.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..18

rec() {	# rec ARGS...: record quietly into $T/f.data, status in $rc
	"$tool" record -q -e cpu-clock -o "$T/f.data" "$@" 2>"$T/err"
	rc=$?
}

rec -- false
ok_rc "$([ "$rc" = 1 ]; echo $?)" "record -- false exits 1 ($rc)"
rec -- sh -c 'exit 42'
ok_rc "$([ "$rc" = 42 ]; echo $?)" "the command's status is record's ($rc)"
rec -- sh -c 'kill -SEGV $$'
ok_rc "$([ "$rc" = 139 ]; echo $?)" "a command killed by SIGSEGV gives 128+11 ($rc)"
rec -- "$T/nonexistent"
ok_rc "$([ "$rc" = 127 ]; echo $?)" "a command not found gives 127 ($rc)"
: >"$T/noexec"
chmod 644 "$T/noexec"
rec -- "$T/noexec"
ok_rc "$([ "$rc" = 126 ]; echo $?)" "a command not executable gives 126 ($rc)"
rec --no-such-option -- true
ok_rc "$([ "$rc" = 123 ]; echo $?)" "a usage error gives 123 ($rc)"
rec -- true
[ ! -s "$T/err" ]
ok_rc $? "-q prints nothing on success"

# every short option means what it means to perf record
"$tool" record --help >"$T/help"
bad=
for o in $(grep -oE '^  -[a-zA-Z],' "$T/help" | tr -d ' ,' | grep -vx -- -h); do
	perf record -h 2>&1 | grep -qE "^ +$o(,| )" || bad="$bad $o"
done
[ -z "$bad" ]
ok_rc $? "each short option of record is one of perf record's${bad:+ (not:$bad)}"

# -d: data addresses on an event that has none by itself
rec -d -- true
perf evlist -v -i "$T/f.data" 2>/dev/null | grep -q 'sample_type: [A-Z|]*ADDR'
ok_rc $? "-d adds PERF_SAMPLE_ADDR"
rec --duration 0.3 -- sleep 5
ok_rc "$([ "$rc" = 0 ]; echo $?)" "--duration ends the command and exits 0 ($rc)"

# -g: callchains perf report walks from first_touch through main
"$tool" record -q -g -e page-faults -c 1 -o "$T/g.data" -- \
	"$memwalk" --seconds 0.2 --mb 4 --share 2>"$T/err"
ok_rc $? "record -g exits 0"
perf evlist -v -i "$T/g.data" 2>/dev/null | grep -q 'CALLCHAIN'
ok_rc $? "-g sets PERF_SAMPLE_CALLCHAIN"
perf report -g graph,0 --stdio --no-children --comm memwalk \
	-S first_touch -i "$T/g.data" 2>/dev/null >"$T/g.txt"
awk '/---first_touch/ { c = 1; next }
     c && $1 == "alloc_touched" { c = 2; next }
     c == 2 && $1 == "main" { found = 1 }
     { c = 0 } END { exit !found }' "$T/g.txt"
ok_rc $? "perf report -g shows first_touch <- alloc_touched <- main"

rec --call-graph dwarf,4000 -- true
perf evlist -v -i "$T/f.data" 2>/dev/null >"$T/ev"
grep -q 'REGS_USER|STACK_USER' "$T/ev" &&
	grep -q 'sample_regs_user: 0xff0fff' "$T/ev" &&
	grep -q 'sample_stack_user: 4000' "$T/ev"
ok_rc $? "--call-graph dwarf,4000: user regs (perf's mask) and 4000 bytes of stack"

# -i: the threads memwalk starts are not followed
rec -i -- "$memwalk" --seconds 0.3 --mb 4
read -r P W S <<<"$(memwalk_ids "$T/err")"
perf script -i "$T/f.data" -F tid 2>/dev/null | sort -u >"$T/tids"
[ -n "$P" ] && [ "$(tr -d ' ' <"$T/tids")" = "$P" ]
ok_rc $? "-i: samples of the main thread only ($(tr '\n' ' ' <"$T/tids"))"

rec --switch-events -- sleep 0.1
perf script --show-switch-events -i "$T/f.data" 2>/dev/null |
	grep -q PERF_RECORD_SWITCH
ok_rc $? "--switch-events records PERF_RECORD_SWITCH"

# perf's groups: {a,b} opens b with a's fd as group_fd (strace shows it)
"$tool" record -q -e '{cpu-clock,page-faults:period=1}' -o "$T/f.data" -- \
	"$memwalk" --seconds 0.2 --mb 8 2>"$T/err"
perf script -i "$T/f.data" -F event 2>/dev/null | sort | uniq -c >"$T/ev"
grep -q 'cpu-clock' "$T/ev" && grep -q 'page-faults' "$T/ev"
ok_rc $? "-e '{cpu-clock,page-faults:period=1}': samples of both events ($(tr -s ' \n' ' ' <"$T/ev"))"
if command -v strace >/dev/null; then
	strace -f -e trace=perf_event_open -o "$T/strace" "$tool" record -q \
		-e '{cpu-clock,page-faults}' -o "$T/g.data" -- true >/dev/null 2>&1
	# every member's group_fd is a leader's fd returned just before it
	awk '/perf_event_open/ { n = split($0, f, ", "); fd = $NF
		gfd = f[n - 1] + 0
		if (gfd >= 0) { if (!(gfd in leaders)) bad++; members++ }
		else leaders[fd] = 1 }
		END { exit !(members > 0 && !bad) }' "$T/strace"
	ok_rc $? "the member opens with its leader's fd as group_fd"
else
	skip "strace is not installed"
fi
