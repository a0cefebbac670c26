#!/bin/bash
# export-perfetto.t - `pebs-shim export --format perfetto` decoded by
# protoc (Debian's protobuf-compiler) against tests/export/perfetto.proto,
# the schema of what the export writes with Perfetto's field numbers:
# the sequence set up (clock snapshot on the perf clock, incremental
# state cleared, every packet on sequence 1), a PerfSample per sample
# (report's count) whose call stacks are interned before use, thread
# names, sched_switch per CPU from the samples' threads, from
# PERF_RECORD_SWITCH (record --switch-events) and from
# PERF_RECORD_SWITCH_CPU_WIDE (-a) as many as perf script shows, counter
# tracks adding up to the samples, the fixtures' memory counters,
# byte-identical output, a pipe, perf's zstd and --threads files,
# filters, mode 0600, errors; Perfetto's trace_processor_shell where
# installed.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
command -v protoc >/dev/null ||
	skip_all "protoc is not installed (apt-get install protobuf-compiler): nothing to decode the traces with"
PROTO=$PEBS_SRC/tests/export
I=$PEBS_SRC/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
A=$PEBS_SRC/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data
echo 1..24

# decode TRACE: the text form, or nothing when protoc refuses it
decode() {
	protoc --proto_path="$PROTO" --decode=perfetto.Trace \
		"$PROTO/perfetto.proto" <"$1" 2>"$T/protoc.err"
}
# count WORD FILE: lines opening WORD's block or field
count() { grep -c "^ *$1" "$2"; }
# switches DECODED: "cpu count" per CPU of the sched_switch events
switches() {
	awk '/^  ftrace_events \{/ { b = 1 } b && /^    cpu: / { c = $2 }
	     b && /sched_switch \{/ { n[c + 0]++ } /^}/ { b = 0; c = 0 }
	     END { for (k in n) print k, n[k] }' "$1" | sort -n
}
# samples DATA: the sample count report gives
samples() {
	"$tool" report -i "$1" --sort pid 2>/dev/null |
		sed -n 's/^# samples *: \([0-9]*\).*/\1/p'
}
# counter_sum DECODED SUFFIX: the sum of the values of the counter tracks
# whose name ends in SUFFIX
counter_sum() {
	awk -v sfx="$2" '
	/^  track_descriptor \{/ { td = 1; u = "" }
	td && /^    uuid: / { u = $2 }
	td && /^    name: / { nm = $0; sub(/^    name: "/, "", nm); sub(/"$/, "", nm)
		if (substr(nm, length(nm) - length(sfx) + 1) == sfx) want[u] = 1 }
	/^  track_event \{/ { te = 1; tu = "" }
	te && /^    track_uuid: / { tu = $2 }
	te && /^    (counter_value|double_counter_value): / { if (tu in want) s += $2 }
	/^}/ { td = te = 0 }
	END { printf "%.0f\n", s }' "$1"
}

# 1-8: page faults with call chains, no switch records
"$tool" record -e page-faults -c 1 -d -g -o "$T/pf.data" -- \
	"$touchpages" 2000 "$T/addrs" 2>"$T/rec.err"
ok_rc $? "record -e page-faults -c 1 -d -g touchpages exits 0"
"$tool" export --format perfetto -i "$T/pf.data" -o "$T/pf.trace" 2>"$T/err"
rc=$?
decode "$T/pf.trace" >"$T/pf.txt"
check "export exits 0, silent, a file of mode 0600 that protoc decodes as perfetto.Trace" \
	bash -c "test $rc = 0 && test ! -s '$T/err' && test \$(stat -c %a '$T/pf.trace') = 600 &&
		 test -s '$T/pf.txt' && test ! -s '$T/protoc.err'"
n=$(samples "$T/pf.data")
rec=$(summary_count "$T/rec.err")
check "a PerfSample per sample: $(count 'perf_sample {' "$T/pf.txt") = report's $n = record's $rec" \
	test "$(count 'perf_sample {' "$T/pf.txt")" = "$n" -a "$n" = "$rec"
awk '/^packet \{/ { p++ } /^  trusted_packet_sequence_id: 1$/ { s++ }
	     p == 1 && /primary_trace_clock: 10/ { clk++ }
	     p == 1 && /clock_id: 6/ { boot++ }
	     p == 2 && /^  sequence_flags: 1$/ { clr++ }
	     p == 2 && /timestamp_clock_id: 10/ { def++ }
	     /^  perf_sample \{/ { ps++ } /^  sequence_flags: 2$/ { need++ }
	     END { exit !(p > 2 && s == p && clk == 1 && boot == 1 && clr == 1 &&
			  def == 1 && need >= ps) }' "$T/pf.txt"
ok_rc $? "sequence: a ClockSnapshot (perf clock primary, BOOTTIME equated), then SEQ_INCREMENTAL_STATE_CLEARED with timestamp_clock_id 10; every packet on sequence 1; samples need the state"
awk '/^    callstacks \{/ { cs = 1 } cs && /^      iid: / { def[$2] = 1; cs = 0 }
     /^    callstack_iid: / { used++; if (!($2 in def)) bad++ }
     /^    frames \{/ { fr = 1 } fr && /^      iid: / { fdef[$2] = 1; fr = 0 }
     /^      frame_ids: / { if (!($2 in fdef)) bad++ }
     END { exit !(used > 0 && !bad) }' "$T/pf.txt"
ok_rc $? "every callstack_iid and frame id is interned before its use"
pid=$(perf script -i "$T/pf.data" -F pid 2>/dev/null | head -1 | tr -d ' ')
check "thread and process descriptors name touchpages ($pid)" \
	bash -c "grep -A3 '^    thread {' '$T/pf.txt' | grep -q 'tid: $pid' &&
		 grep -q 'thread_name: \"touchpages\"' '$T/pf.txt' &&
		 grep -q 'process_name: \"touchpages\"' '$T/pf.txt'"
switches "$T/pf.txt" >"$T/sw.got"
perf script -i "$T/pf.data" -F cpu,tid 2>/dev/null |
	awk '{ c = $2; gsub(/[^0-9]/, "", c); c += 0
	       if (!(c in last) || last[c] != $1) n[c]++; last[c] = $1 }
	     END { for (k in n) print k, n[k] }' | sort -n >"$T/sw.want"
check "no switch records: sched_switch per CPU at each change of thread between its samples ($(tr '\n' ' ' <"$T/sw.want")), named so" \
	bash -c "test -s '$T/sw.want' && cmp -s '$T/sw.got' '$T/sw.want' &&
		 grep -q \"name: \\\"sched_switch from the samples.* threads\" '$T/pf.txt'"
check "counter tracks: the samples/ms values add up to the $n samples" \
	test "$(counter_sum "$T/pf.txt" " samples/ms")" = "$n"

# 9-10: the same bytes twice; a pipe-mode stream read once from a pipe
"$tool" export --format perfetto -i "$T/pf.data" -o "$T/pf2.trace" 2>/dev/null
check "the same recording gives a byte-identical trace" cmp -s "$T/pf.trace" "$T/pf2.trace"
"$tool" record -e page-faults -c 1 -d -g -o - -- "$touchpages" 500 "$T/addrs2" \
	2>/dev/null >"$T/p.data"
"$tool" export --format perfetto -i "$T/p.data" -o "$T/pfile.trace" 2>/dev/null
cat "$T/p.data" | "$tool" export --format perfetto -i - -o "$T/ppipe.trace" 2>"$T/err"
check "a pipe-mode stream through a pipe gives the trace of its file" \
	bash -c "test -s '$T/pfile.trace' && cmp -s '$T/pfile.trace' '$T/ppipe.trace'"

# 11-12: the kernel's switch records: per task, and CPU-wide with -a
# (a sleep first: the task surely switches)
"$tool" record --switch-events -e page-faults -c 1 -d -o "$T/sw.data" -- \
	bash -c "sleep 0.01; exec '$touchpages' 2000 '$T/addrs3'" 2>/dev/null
"$tool" export --format perfetto -i "$T/sw.data" -o "$T/sw.trace" 2>/dev/null
decode "$T/sw.trace" >"$T/sw.txt"
switches "$T/sw.txt" >"$T/sw.got"
perf script -i "$T/sw.data" --show-switch-events -F cpu 2>/dev/null |
	awk '/PERF_RECORD_SWITCH/ { c = $0; sub(/^[^[]*\[/, "", c); sub(/\].*/, "", c)
				    n[c + 0]++ }
	     END { for (k in n) print k, n[k] }' | sort -n >"$T/sw.want"
check "--switch-events: a sched_switch per PERF_RECORD_SWITCH on each CPU ($(tr '\n' ' ' <"$T/sw.want")), named so" \
	bash -c "test -s '$T/sw.want' && cmp -s '$T/sw.got' '$T/sw.want' &&
		 grep -q 'name: \"sched_switch from PERF_RECORD_SWITCH' '$T/sw.txt'"
if need percpu; then
	"$tool" record -a --switch-events -e page-faults -c 1 -d -o "$T/swa.data" \
		-- "$memwalk" --seconds 0.2 --mb 4 >/dev/null 2>&1
	"$tool" export --format perfetto -i "$T/swa.data" -o "$T/swa.trace" 2>/dev/null
	decode "$T/swa.trace" >"$T/swa.txt"
	switches "$T/swa.txt" >"$T/sw.got"
	perf script -i "$T/swa.data" --show-switch-events -F cpu 2>/dev/null |
		awk '/PERF_RECORD_SWITCH_CPU_WIDE (OUT|IN .*\/-1 *$)/ {
			c = $0; sub(/^[^[]*\[/, "", c); sub(/\].*/, "", c); n[c + 0]++ }
		     END { for (k in n) print k, n[k] }' | sort -n >"$T/sw.want"
	check "-a --switch-events: a sched_switch per SWITCH_CPU_WIDE OUT (and IN from an exited task, prev tid -1) on each CPU ($(tr '\n' ' ' <"$T/sw.want"))" \
		bash -c "test -s '$T/sw.want' && cmp -s '$T/sw.got' '$T/sw.want'"
else
	skip "$why"
fi

# 13-15: the fixtures: weights and data sources become counters
"$tool" export --format perfetto -i "$I" -o "$T/i.trace" 2>"$T/err"
decode "$T/i.trace" >"$T/i.txt"
check "Intel fixture: 14 PerfSamples, tracks loads/ms, HITM/ms, remote/ms, mean weight (cycles)" \
	bash -c "test \$(grep -c '^  perf_sample {' '$T/i.txt') = 14 &&
		 grep -q 'name: \"cpu[0-9]* loads/ms\"' '$T/i.txt' &&
		 grep -q 'name: \"cpu[0-9]* HITM/ms\"' '$T/i.txt' &&
		 grep -q 'name: \"cpu[0-9]* remote/ms\"' '$T/i.txt' &&
		 grep -q 'name: \"cpu[0-9]* mean weight (cycles)\"' '$T/i.txt' &&
		 grep -q 'double_counter_value: [1-9]' '$T/i.txt'"
loads=0
for v in $("$tool" script -i "$I" --format csv -F data_src 2>/dev/null | grep '^0x'); do
	loads=$((loads + !!(v & 2)))	# PERF_MEM_OP_LOAD
done
check "Intel fixture: the loads/ms values add up to the loads (script's $loads)" \
	test "$(counter_sum "$T/i.txt" " loads/ms")" = "$loads"
"$tool" export --format perfetto -i "$A" -o "$T/a.trace" 2>"$T/err"
decode "$T/a.trace" >"$T/a.txt"
n=$(samples "$A")
check "AMD fixture: a PerfSample per sample ($n), the same bytes twice" \
	bash -c "test \$(grep -c '^  perf_sample {' '$T/a.txt') = $n &&
		 '$tool' export --format perfetto -i '$A' -o '$T/a2.trace' &&
		 cmp -s '$T/a.trace' '$T/a2.trace'"

# 16-17: perf's own zstd-compressed and --threads recordings
perf record -q -z -e page-faults -c 1 -d -o "$T/z.data" -- "$touchpages" 500 "$T/a4" \
	>/dev/null 2>&1
"$tool" export --format perfetto -i "$T/z.data" -o "$T/z.trace" 2>"$T/err"
n=$(samples "$T/z.data")
got=$(decode "$T/z.trace" | grep -c '^  perf_sample {')
check "perf record -z (zstd): a PerfSample per sample ($n)" test -n "$n" -a "$got" = "$n"
if perf record --threads -q -e page-faults -c 1 -o "$T/t.data" -- "$touchpages" 500 "$T/a5" \
	>/dev/null 2>&1 && [ -d "$T/t.data" ]; then
	"$tool" export --format perfetto -i "$T/t.data" -o "$T/t.trace" 2>"$T/err"
	n=$(samples "$T/t.data")
	got=$(decode "$T/t.trace" | grep -c '^  perf_sample {')
	check "perf record --threads (a directory): a PerfSample per sample ($n)" \
		test -n "$n" -a "$got" = "$n"
else
	skip "perf record --threads does not make a directory here"
fi

# 18-20: filters (--cpu on the system-wide recording where there is one)
src=$T/swa.data
[ -s "$src" ] || src=$T/sw.data
cpu=$(perf script -i "$src" -F cpu 2>/dev/null | tail -1 | tr -dc 0-9)
cpu=$((10#$cpu))
"$tool" export --format perfetto -i "$src" -o "$T/c.trace" --cpu "$cpu" 2>/dev/null
decode "$T/c.trace" >"$T/c.txt"
want=$(perf script -i "$src" -F cpu 2>/dev/null | tr -dc '0-9\n' |
	awk -v c="$cpu" '$1 + 0 == c' | wc -l)
cpus=$(grep -A1 '^  perf_sample {' "$T/c.txt" | sed -n 's/^ *cpu: //p' | sort -u)
swcpus=$(switches "$T/c.txt" | cut -d' ' -f1)
check "--cpu $cpu: the $want samples of CPU $cpu, switches of that CPU only" \
	test "$(grep -c '^  perf_sample {' "$T/c.txt")" = "$want" -a "$cpus" = "$cpu" \
		-a "$swcpus" = "$cpu"
from=$(perf script -i "$T/pf.data" -F time 2>/dev/null | sed -n 100p | tr -d ' :')
to=$(perf script -i "$T/pf.data" -F time 2>/dev/null | sed -n 300p | tr -d ' :')
"$tool" export --format perfetto -i "$T/pf.data" -o "$T/t1.trace" --time "$from,$to" 2>/dev/null
left=$("$tool" report -i "$T/pf.data" --time "$from,$to" 2>/dev/null |
	sed -n 's/^# filtered *: \([0-9]*\) samples.*/\1/p')
want=$(( $(samples "$T/pf.data") - ${left:-0} ))
check "--time $from,$to: the $want samples report keeps" \
	test "$(decode "$T/t1.trace" | grep -c '^  perf_sample {')" = "$want" -a "$want" -gt 0
echo keep >"$T/keep.trace"
"$tool" export --format perfetto -i "$T/pf.data" -o "$T/keep.trace" --comm nosuch 2>"$T/err"
rc=$?
check "--comm nosuch: nothing passes: exit 1, one line, the old file kept" \
	bash -c "test $rc = 1 && test \"\$(cat '$T/keep.trace')\" = keep &&
		 test \$(wc -l <'$T/err') = 1 && grep -q 'nothing written' '$T/err'"

# 21-23: errors
"$tool" export --format perfetto -i "$T/pf.data" -o "$T/x.trace" --labels comm 2>"$T/err"
rc1=$?
"$tool" export --format perfetto -i "$T/pf.data" -o "$T/x.trace" --split event 2>"$T/err2"
rc2=$?
check "--labels and --split are pprof's: exit 2, one line each, nothing written" \
	bash -c "test $rc1 = 2 -a $rc2 = 2 && grep -q 'labels is pprof' '$T/err' &&
		 grep -q 'split is pprof' '$T/err2' && test ! -e '$T/x.trace'"
"$tool" export --format perfetto -i "$T/none.data" -o "$T/keep.trace" 2>"$T/err"
rc=$?
check "an unreadable input: exit 1, the old output kept" \
	bash -c "test $rc = 1 && test \"\$(cat '$T/keep.trace')\" = keep && test \$(wc -l <'$T/err') = 1"
"$tool" export --format perfetto -i "$T/pf.data" -o "$T" 2>"$T/err"
rc=$?
check "-o a directory: exit 1, one line" \
	bash -c "test $rc = 1 && grep -q 'is a directory' '$T/err'"

# 24: Perfetto's own reader, where installed (not in Debian, not on npm)
TP=$(command -v trace_processor_shell || command -v trace_processor)
if [ -z "$TP" ]; then
	skip "no trace_processor_shell (Perfetto's; not packaged by Debian or npm): protoc's decoding only"
else
	printf '%s\n' "select count(*) as n from perf_sample;" >"$T/q.sql"
	n=$("$TP" --query-file "$T/q.sql" "$T/pf.trace" 2>/dev/null | tr -dc '0-9\n' | grep . | tail -1)
	check "trace_processor loads the trace: perf_sample has the $(samples "$T/pf.data") samples" \
		test "$n" = "$(samples "$T/pf.data")"
fi
