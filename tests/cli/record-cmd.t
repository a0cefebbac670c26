#!/bin/bash
# record-cmd.t - pebs-shim record -- memwalk: the perf.data file holds
# exactly the samples reported, each names one of memwalk's threads, and
# perf report ranks memwalk's hot function chase() first.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..9

"$tool" record -e cpu-clock -c 250000 -o "$T/cmd.data" -- \
	"$memwalk" --seconds 1 --mb 16 2>"$T/err"
ok_rc $? "record -- memwalk exits 0"
sed 's/^/# /' "$T/err"
n=$(summary_count "$T/err")
ok_rc "$([ -n "$n" ] && [ "$n" -gt 100 ]; echo $?)" "summary line reports samples ($n)"
grep -q 'attribution: sample TID' "$T/err"
ok_rc $? "summary names the attribution"
ok_rc "$(grep -c $'\r' "$T/err")" "no status line when stderr is not a terminal"
perf report --header-only -i "$T/cmd.data" 2>/dev/null |
	grep -q "^# cmdline : pebs-shim record --attr=tid -e cpu-clock -c 250000 -o $T/cmd.data -- $memwalk --seconds 1 --mb 16 *$"
ok_rc $? "the stored command line: the mode auto chose as --attr, the command's arguments last"

perf script -i "$T/cmd.data" -F comm,pid,tid >"$T/script" 2>"$T/script.err"
ok_rc $? "perf script reads the file"
m=$(wc -l <"$T/script")
[ "$m" = "$n" ]
ok_rc $? "perf script sees as many samples as reported ($m vs $n)"
read -r P W S <<<"$(memwalk_ids "$T/err")"
threads_right "$T/script" "$P" "$W" "$S" all
ok_rc $? "every sample names one of memwalk's threads (pid $P)"
top=$(top_symbol "$T/cmd.data")
[ "$top" = chase ]
ok_rc $? "perf report --sort sym ranks chase first (got '$top')"
