#!/bin/bash
# record-pipe.t - a recording to standard output (-o -) is not corrupted
# by what the command prints: its standard output goes to standard error,
# as perf record's does (evlist__prepare_workload with a pipe), so
# pebs-shim report -i - and perf report -i - read the pipe.
. "$PEBS_SRC/tests/cli/record-common.sh"
[ -x "$tool" ] || skip_all "no $tool: build it first (make B=... tool)"
[ -x "$touchpages" ] || skip_all "no workloads in $PEBS_BUILD/workloads"
echo 1..7

cmd=(sh -c 'echo hello; exec "$0" 64' "$touchpages")

"$tool" record -q -e page-faults -c 1 -o - -- "${cmd[@]}" 2>"$T/err1" |
	"$tool" report -i - >"$T/rep1" 2>"$T/rerr1"
st=("${PIPESTATUS[@]}")
ok_rc "$([ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ]; echo $?)" \
	"record -o - | pebs-shim report -i - both exit 0 (${st[*]})"
# touchpages prints the address of each page after sh's hello
[ "$(head -1 "$T/err1")" = hello ] && [ "$(wc -l <"$T/err1")" -gt 64 ]
ok_rc $? "the command's standard output went to standard error"
awk '/^# event 0/ && /page-faults/ && $0 !~ / 0 samples/ { f = 1 }
     END { exit !f }' "$T/rep1"
ok_rc $? "pebs-shim report reads the page-fault samples from the pipe"

# CSV to a pipe: the header is the first line
"$tool" record -q --format csv -e page-faults -c 1 -o - -- "${cmd[@]}" \
	2>"$T/err2" >"$T/out.csv"
head -1 "$T/out.csv" | grep -q '^time,cpu,'
ok_rc $? "record --format csv -o -: the header is the first line, not hello"
[ "$(head -1 "$T/err2")" = hello ]
ok_rc $? "with CSV to a pipe too, hello went to standard error"

if ! command -v perf >/dev/null; then
	skip_n 2 "perf is not installed"
	exit 0
fi
"$tool" record -q -e page-faults -c 1 -o - -- "${cmd[@]}" 2>"$T/err3" |
	perf report -i - --stdio --sort comm 2>"$T/perr" >"$T/prep"
st=("${PIPESTATUS[@]}")
ok_rc "$([ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ]; echo $?)" \
	"record -o - | perf report -i - both exit 0 (${st[*]})"
grep -q 'touchpages' "$T/prep"
ok_rc $? "perf report -i - shows touchpages' samples"
