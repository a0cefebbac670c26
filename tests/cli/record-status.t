#!/bin/bash
# record-status.t - a status line on a terminal (elapsed, samples, lost,
# MB written), none when stderr is not one or with -q; perf's end
# summary ("Woken up N times", "Captured and wrote X MB FILE (N
# samples)").
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
command -v script >/dev/null || skip_all "no script(1) for a terminal"
echo 1..6

run_tty() {	# stderr on a pseudo-terminal; the output, \r as newlines
	script -qec "$*" /dev/null | tr '\r' '\n' >"$T/tty"
}

run_tty "'$tool' record -e cpu-clock -o '$T/s.data' -- '$memwalk' --seconds 1 --mb 4"
grep -aqE '^.*\[ [0-9.]+ s \] [0-9]+ samples, [0-9]+/s, [0-9]+ lost, [0-9.]+ MB written' "$T/tty"
ok_rc $? "a terminal gets the status line"
sed -n '/Captured/p' "$T/tty" | sed 's/^/# /'

run_tty "'$tool' record -q -e cpu-clock -o '$T/q.data' -- '$memwalk' --seconds 0.5 --mb 4"
grep -aq 'memwalk: pid=' "$T/tty" && ! grep -aqE 'samples|MB' "$T/tty"
ok_rc $? "-q: no status line, no summary"

"$tool" record -e cpu-clock -o "$T/p.data" -- "$memwalk" --seconds 0.5 --mb 4 2>"$T/err"
ok_rc "$(grep -c $'\r' "$T/err")" "no status line when stderr is not a terminal"
grep -qE '^\[ pebs-shim record: Woken up [0-9]+ times to write data \]$' "$T/err"
ok_rc $? "perf's 'Woken up N times' line"
n=$(summary_count "$T/err")
line=$(grep -E '^\[ pebs-shim record: Captured and wrote [0-9.]+ MB ' "$T/err")
[ "$line" = "[ pebs-shim record: Captured and wrote $(awk -v s="$(stat -c %s "$T/p.data")" 'BEGIN { printf "%.3f", s / 1048576 }') MB $T/p.data ($n samples) ]" ]
ok_rc $? "perf's 'Captured and wrote X MB FILE (N samples)' with the file's size"
perf script -i "$T/p.data" 2>/dev/null | wc -l | grep -qx "$n"
ok_rc $? "as many samples as the summary says ($n)"
