# objects.sh - sourced by bench/run.sh (its functions and $T, $tool, ...):
# the cost of data objects (record --objects) side by side with
# heaptrack, interleaved through bench_compare. The workload is
# bench/allocs: THREADS threads each making N allocations and frees of
# 16-1039 bytes (one in 256 of 128 KiB), each written once. Two cases:
# 1. every tracker at N allocations a thread: bare; pebs-shim record
#    without objects (the recorder's own cost: cpu-clock every 10 ms);
#    the same with --objects (default sampling) and with --objects=all;
#    heaptrack (Debian's, every allocation with its stack);
# 2. the default sampling's slowdown on the workload sized to about 3 s
#    bare (where record's start-up, about 0.1 s, weighs little): bare,
#    record, record --objects;
# 3. the same with small allocations only (allocs --small: the workload
#    issue 24 names; case 2's 128 KiB blocks are all tracked, and are
#    four fifths of its records).
# Cases 2 and 3 also run the workload under an interposer that only
# forwards (bench/preload/forward.c, LD_PRELOAD, no recorder): the floor
# any LD_PRELOAD interposer pays on each malloc and free.
# Metrics: wall time, and peak memory (GNU time's %M: the largest
# process's peak resident set, recorder and interpreter included). The
# issue's goals: default <= 1.10x bare and <= 0.2x heaptrack's added
# time; --objects=all <= heaptrack. It only measures.
# Env: ALLOC_THREADS (default 2), ALLOCS (per thread, default 2000000;
# 20000 with BENCH_QUICK=1, when case 2 uses it too).

obj_one() {	# obj_one CMD...: prints "seconds MB" (wall to the ns: the
		# bare run of a quick smoke run takes milliseconds)
	local t0 t1
	t0=$(date +%s.%N)
	/usr/bin/time -f "%M" -o "$T/obj.time" "$@" >/dev/null 2>&1 || return 1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" '{ printf "%.4f %.1f\n", b - a, $1 / 1024 }' "$T/obj.time"
}
obj_bare() { obj_one "${obj_work[@]}"; }
obj_rec() {
	bench_clear "$T/obj.data"
	obj_one "$tool" record -q -e cpu-clock -c 10000000 -o "$T/obj.data" -- "${obj_work[@]}"
}
obj_def() {
	bench_clear "$T/obj.data"
	obj_one "$tool" record -q --objects -e cpu-clock -c 10000000 \
		-o "$T/obj.data" -- "${obj_work[@]}"
}
obj_all() {
	bench_clear "$T/obj.data"
	obj_one "$tool" record -q --objects=all -e cpu-clock -c 10000000 \
		-o "$T/obj.data" -- "${obj_work[@]}"
}
obj_fwd() { obj_one env LD_PRELOAD="$PEBS_BUILD/bench/libforward.so" "${obj_work[@]}"; }
obj_heaptrack() {
	rm -f "$T"/heaptrack.*
	obj_one heaptrack -o "$T/heaptrack.out" "${obj_work[@]}"
}

objects_bench() {
	local nt=${ALLOC_THREADS:-2} n=${ALLOCS:-2000000}
	local lib=$PEBS_BUILD/libpebsshim-objects.so
	[ -n "$BENCH_QUICK" ] && n=${ALLOCS:-20000}
	echo "== data objects: record --objects against heaptrack"
	obj_work=("$PEBS_BUILD/bench/allocs" "$nt" "$n")
	if [ ! -x "${obj_work[0]}" ] || [ ! -r "$lib" ]; then
		bench_skip objects "allocation workload" "bench/allocs or $lib is missing: run make bench-build"
		return
	fi
	local ht=(heaptrack obj_heaptrack) fwd=("forwarding interposer" obj_fwd)
	if [ ! -r "$PEBS_BUILD/bench/libforward.so" ]; then
		bench_skip objects "forwarding interposer" "$PEBS_BUILD/bench/libforward.so is missing: run make bench-build"
		fwd=()
	fi
	if ! command -v heaptrack >/dev/null; then
		bench_skip objects "heaptrack" "heaptrack is not installed: apt-get install heaptrack"
		ht=()
	fi
	bench_compare objects "$nt threads x $n allocations" \
		"wall,peak memory" "s,MB" bare obj_bare \
		"record" obj_rec "record --objects" obj_def \
		"record --objects=all" obj_all "${ht[@]}"
	if [ -z "$BENCH_QUICK" ]; then
		n=$(calibrate 3 "$n" "${obj_work[@]:0:2}")
		obj_work=("${obj_work[@]:0:2}" "$n")
	fi
	bench_compare objects "default sampling, $nt threads x $n allocations" \
		"wall,peak memory" "s,MB" bare obj_bare \
		"record" obj_rec "record --objects" obj_def "${fwd[@]}"
	obj_work=("${obj_work[0]}" --small "$nt" "$n")
	[ -z "$BENCH_QUICK" ] &&
		obj_work=("${obj_work[@]:0:3}" "$(calibrate 3 "$n" "${obj_work[@]:0:3}")")
	bench_compare objects "default sampling, small only, $nt threads x ${obj_work[3]} allocations" \
		"wall,peak memory" "s,MB" bare obj_bare \
		"record" obj_rec "record --objects" obj_def "${fwd[@]}"
	rm -f "$T/obj.data" "$T/obj.time" "$T"/heaptrack.*
}
objects_bench
