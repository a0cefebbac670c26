# export.sh - sourced by bench/run.sh (its functions and $T, $tool,
# $probe, ...): the exports against `perf report --stdio` on the same
# recording, the bar issue 25 sets (an export of a 3 M-sample file takes
# less time than perf report on it). One recording, made with pebs-shim
# record (both tools read it): system-wide cpu-clock every 20 us while
# every CPU spins. Interleaved rounds through bench_compare, perf report
# the anchor, then export --format pprof and --format perfetto: wall and
# CPU time (bench_time); the driver prints each subject's ratio to perf
# (median, min, max over the rounds). It only measures.
# Env: EXPORT_SAMPLES (default 3000000; with BENCH_QUICK=1 20000).

exp_perf() { bench_time perf report --stdio -i "$exp_file"; }
exp_pprof() {
	bench_clear "$T/exp.pb.gz"
	bench_time "$tool" export --format pprof -i "$exp_file" -o "$T/exp.pb.gz"
}
exp_perfetto() {
	bench_clear "$T/exp.perfetto-trace"
	bench_time "$tool" export --format perfetto -i "$exp_file" -o "$T/exp.perfetto-trace"
}

export_bench() {
	local nc=${EXPORT_SAMPLES:-3000000} secs n why
	[ -n "$BENCH_QUICK" ] && nc=${EXPORT_SAMPLES:-20000}
	echo "== export (pprof, Perfetto) time against perf report --stdio"
	if ! why=$("$probe" percpu); then
		bench_skip export "export of cpu-clock samples" "$why"
		return
	fi
	# cpu-clock every 20 us on every CPU while every CPU spins
	secs=$(( nc / (50000 * $(nproc)) + 1 ))
	exp_file=$T/export.data
	"$tool" record -q -a -e cpu-clock -c 20000 -o "$exp_file" -- \
		bash -c "for i in \$(seq $(nproc)); do timeout $secs sh -c 'while :; do :; done' & done; wait" \
		>/dev/null 2>&1 ||
		{ bench_skip export "export of cpu-clock samples" "pebs-shim record -a for $secs s failed"; return; }
	n=$("$tool" report -i "$exp_file" --sort pid 2>/dev/null |
		sed -n 's/^# samples *: \([0-9]*\).*/\1/p')
	bench_compare export "export of ${n:-?} cpu-clock samples" "wall,cpu" "s,s" \
		perf exp_perf pprof exp_pprof perfetto exp_perfetto
	rm -f "$exp_file" "$T/exp.pb.gz" "$T/exp.perfetto-trace"
}
export_bench
