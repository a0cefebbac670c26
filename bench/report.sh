# report.sh - sourced by bench/run.sh (its functions and $T, $tool, ...):
# pebs-shim report (its default tables) against `perf report --stdio` on
# the same files, interleaved through bench_compare: wall time and peak
# memory (/usr/bin/time %e %M). Two recordings, made with pebs-shim
# record (both tools read them): every page fault of 1 M distinct pages
# with its data address (bench/faults), and 3 M cpu-clock samples
# (system-wide every 20 us while every CPU spins); and, made by perf
# record --call-graph dwarf (8 KiB of stack per sample, unwound by both
# reports: pebs-shim by libdwfl, perf 6.1 by libunwind), cpu-clock
# samples of memwalk; a perf record -g of memwalk, both reports
# printing each row's call graph; and gcc compiling by source line
# (--sort srcline: perf runs addr2line). It only measures.
# Env: FAULTS (default 1000000), CLOCK_SAMPLES (default 3000000),
# GRAPH_SAMPLES (default 200000), DWARF_SAMPLES (default 40000),
# SRCLINE_SAMPLES (default 4000); with BENCH_QUICK=1 20000, 20000, 4000,
# 2000, 500.

report_one() {	# report_one OUT CMD...: prints "seconds MB cpu-seconds"
	local out=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$T/$out.time" "$@" >/dev/null 2>&1 || return 1
	awk '{ printf "%s %.1f %.2f\n", $1, $2 / 1024, $3 + $4 }' "$T/$out.time"
}
# the reports' options beyond the file (the call graph case's)
rep_ps_args=()
rep_pf_args=()
rep_ps() { report_one ps "$tool" report -i "$rep_file" "${rep_ps_args[@]}"; }
rep_pf() { report_one perf perf report --stdio -i "$rep_file" "${rep_pf_args[@]}"; }

# report_case WHAT: both reports of $rep_file side by side (its samples
# counted, a line each), then the file removed
report_case() {
	local n
	n=$(perf script -i "$rep_file" -F tid 2>/dev/null | wc -l)
	bench_compare report "report on $n $1" \
		"time,peak memory,cpu time" "s,MB,s" perf rep_pf pebs-shim rep_ps
	rm -f "$rep_file"
}

report_bench() {
	local nf=${FAULTS:-1000000} nc=${CLOCK_SAMPLES:-3000000} secs i why
	if [ -n "$BENCH_QUICK" ]; then
		nf=${FAULTS:-20000}
		nc=${CLOCK_SAMPLES:-20000}
	fi
	echo "== report time, peak memory and CPU time against perf report --stdio"
	"$tool" record -q -e page-faults -c 1 -d -o "$T/faults.data" -- \
		"$faults" "$nf" "$nf" >/dev/null 2>&1 ||
		{ bench_skip report "report on page faults" "pebs-shim record of $nf faults failed"; }
	if [ -s "$T/faults.data" ]; then
		rep_file=$T/faults.data
		report_case "page-fault samples with addresses"
	fi
	if ! why=$("$probe" percpu); then
		bench_skip report "report on cpu-clock" "$why"
		return
	fi
	# cpu-clock every 20 us on every CPU while every CPU spins
	secs=$(( nc / (50000 * $(nproc)) + 1 ))
	"$tool" record -q -a -e cpu-clock -c 20000 -o "$T/clock.data" -- \
		bash -c "for i in \$(seq $(nproc)); do timeout $secs sh -c 'while :; do :; done' & done; wait" \
		>/dev/null 2>&1 ||
		{ bench_skip report "report on cpu-clock" "pebs-shim record -a for $secs s failed"; return; }
	rep_file=$T/clock.data
	report_case "cpu-clock samples"
	report_graph
	report_dwarf
	report_srcline
	for i in ps perf; do rm -f "$T/$i.time"; done
}

# cpu-clock every 50 us of memwalk's two threads with frame-pointer
# call chains (kernel frames included), each row's call graph printed:
# pebs-shim report --sort comm,dso,sym -g --top 0 against perf report's
# default (graph,0.5,caller under every row)
report_graph() {
	local ng=${GRAPH_SAMPLES:-200000} secs
	[ -n "$BENCH_QUICK" ] && ng=${GRAPH_SAMPLES:-4000}
	secs=$(( ng / 40000 + 1 ))
	perf record -q -e cpu-clock -c 50000 -g -o "$T/graph.data" -- \
		"$memwalk" --seconds "$secs" --mb 64 >/dev/null 2>&1 ||
		{ bench_skip report "report -g" "perf record -g failed"; return; }
	rep_file=$T/graph.data
	rep_ps_args=(--sort comm,dso,sym --top 0 -g)
	rep_pf_args=(--sort comm,dso,sym)
	report_case "cpu-clock samples with call chains, their call graphs printed (-g)"
	rep_ps_args=()
	rep_pf_args=()
}

# cpu-clock every 250 us of memwalk's two threads, --call-graph dwarf
report_dwarf() {
	local nd=${DWARF_SAMPLES:-40000} secs
	[ -n "$BENCH_QUICK" ] && nd=${DWARF_SAMPLES:-2000}
	secs=$(( nd / 8000 + 1 ))
	perf record -q -e cpu-clock -c 250000 --call-graph dwarf \
		-o "$T/dwarf.data" -- "$memwalk" --seconds "$secs" --mb 16 \
		>/dev/null 2>&1 ||
		{ bench_skip report "report on dwarf call chains" "perf record --call-graph dwarf failed"; return; }
	rep_file=$T/dwarf.data
	report_case "cpu-clock samples with dwarf call chains (unwound)"
}
# cpu-clock at 4 kHz of gcc compiling a generated file until about
# SRCLINE_SAMPLES samples: cc1 has no DWARF (perf asks addr2line for each
# sample), --no-children --sort srcline
report_srcline() {
	local ns=${SRCLINE_SAMPLES:-4000} reps i
	[ -n "$BENCH_QUICK" ] && ns=${SRCLINE_SAMPLES:-500}
	command -v gcc >/dev/null && command -v addr2line >/dev/null ||
		{ bench_skip report "report --sort srcline" "no gcc or addr2line"; return; }
	printf '#include <stdio.h>\n' >"$T/src.c"
	for i in $(seq 1 150); do
		printf 'static int f%d(int x) { int a[64]; for (int i = 0; i < 64; i++) a[i] = x * i + %d; return a[x & 63] + (x > 1 ? f%d(x - 1) : 0); }\n' \
			"$i" "$i" $(( i > 1 ? i - 1 : 1 )) >>"$T/src.c"
	done
	printf 'int main(void) { printf("%%d\\n", f150(5)); return 0; }\n' >>"$T/src.c"
	reps=$(( ns / 2500 + 1 ))
	perf record -q -e cpu-clock -F 4000 -o "$T/srcline.data" -- bash -c \
		"for i in \$(seq $reps); do gcc -O2 -c '$T/src.c' -o '$T/src.o'; done" \
		>/dev/null 2>&1 ||
		{ bench_skip report "report --sort srcline" "perf record of gcc failed"; return; }
	rep_file=$T/srcline.data
	rep_ps_args=(--no-children --sort srcline --top 0)
	rep_pf_args=(--no-children --sort srcline -g none)
	report_case "cpu-clock samples of gcc, by source line (--sort srcline)"
	rep_ps_args=()
	rep_pf_args=()
}
report_bench
