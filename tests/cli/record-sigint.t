#!/bin/bash
# record-sigint.t - SIGINT (and SIGTERM) in the middle of a recording
# still drain the rings and finish a file that perf script reads.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..6

for sig in INT TERM; do
	"$tool" record -e cpu-clock -c 250000 -o "$T/$sig.data" -- \
		"$memwalk" --seconds 20 --mb 16 2>"$T/$sig.err" &
	rec=$!
	for _ in $(seq 100); do
		grep -q 'pid=' "$T/$sig.err" && break
		sleep 0.1
	done
	sleep 0.5
	kill -"$sig" "$rec"
	wait "$rec"
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ]
	ok_rc $? "SIG$sig: record finishes and exits 128+SIG$sig ($rc, like perf)"
	sed 's/^/# /' "$T/$sig.err"
	n=$(summary_count "$T/$sig.err")
	perf script -i "$T/$sig.data" -F comm,pid,tid >"$T/$sig.script" 2>/dev/null
	ok_rc $? "SIG$sig: perf script reads the file"
	m=$(wc -l <"$T/$sig.script")
	[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$m" = "$n" ]
	ok_rc $? "SIG$sig: it holds the $n samples reported ($m)"
done
