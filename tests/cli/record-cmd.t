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
perf report --header-only -i "$T/cmd.data" >"$T/hdr" 2>"$T/hdr.err"
grep -q "^# cmdline : pebs-shim record -e cpu-clock -c 250000 -o $T/cmd.data -- $memwalk --seconds 1 --mb 16 *$" "$T/hdr" &&
	grep -q "^# perf version : pebs-shim attribution=tid$" "$T/hdr" &&
	test ! -s "$T/hdr.err" &&
	"$tool" report -i "$T/cmd.data" 2>/dev/null |
	grep -q "^# attribution: tid (as recorded by pebs-shim record)$"
ok_rc $? "the stored command line is the one typed; the mode auto chose is in the file's own words (perf version), report shows it"

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
