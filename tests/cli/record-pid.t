#!/bin/bash
# record-pid.t - pebs-shim record -p PID on a running memwalk: every
# sample names one of its threads, the counts match, chase() comes
# first, and recording stops by itself when the process exits.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..7

start_memwalk() {	# start_memwalk SECONDS: sets mw and ids
	"$memwalk" --seconds "$1" --mb 16 2>"$T/mw.err" &
	mw=$!
	for _ in $(seq 100); do
		grep -q 'pid=' "$T/mw.err" && break
		sleep 0.1
	done
}

start_memwalk 30		# outlives the 1.5 s recording on a loaded host
"$tool" record -e cpu-clock -c 250000 -p "$mw" --duration 1.5 \
	-o "$T/pid.data" 2>"$T/err"
ok_rc $? "record -p exits 0"
sed 's/^/# /' "$T/err"
n=$(summary_count "$T/err")
perf script -i "$T/pid.data" -F comm,pid,tid >"$T/script" 2>/dev/null
m=$(wc -l <"$T/script")
[ -n "$n" ] && [ "$n" -gt 100 ] && [ "$m" = "$n" ]
ok_rc $? "perf script sees as many samples as reported ($m vs $n)"
read -r P W S <<<"$(memwalk_ids "$T/mw.err")"
threads_right "$T/script" "$P" "$W" "$S" all
ok_rc $? "every sample names one of memwalk's threads (pid $P)"
top=$(top_symbol "$T/pid.data")
[ "$top" = chase ]
ok_rc $? "perf report --sort sym ranks chase first (got '$top')"
kill -0 "$mw" 2>/dev/null
ok_rc $? "the process keeps running after a --duration stop"
kill "$mw" 2>/dev/null
wait "$mw"

# no --duration: the recording ends with the process
start_memwalk 1
timeout 30 "$tool" record -e cpu-clock -c 1000000 -p "$mw" \
	-o "$T/pid2.data" 2>"$T/err2"
ok_rc $? "record -p stops when the process exits"
sed 's/^/# /' "$T/err2"
wait "$mw"
perf script -i "$T/pid2.data" -F comm,pid,tid >"$T/script2" 2>/dev/null
read -r P W S <<<"$(memwalk_ids "$T/mw.err")"
threads_right "$T/script2" "$P" "$W" "$S" all
ok_rc $? "its samples name memwalk's threads"
