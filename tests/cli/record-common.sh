# record-common.sh - helpers for tests/cli/record-*.t (sourced, bash).
#
# Env (from scripts/run-test): PEBS_BUILD (build dir), PEBS_SRC (repo).
PEBS_BUILD=${PEBS_BUILD:-$PEBS_SRC/build}
tool=$PEBS_BUILD/pebs-shim
memwalk=$PEBS_BUILD/workloads/memwalk
touchpages=$PEBS_BUILD/workloads/touchpages
T=$(mktemp -d /tmp/pebs-rec-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

. "$PEBS_SRC/tests/tap.sh"
need_tools() {
	need_bin "$tool" "$memwalk" "$touchpages"
	command -v perf >/dev/null || skip_all "perf is not installed"
}

# the objects workload ($wl) and the interposer ($lib), or skip all
need_objects() {
	wl=$PEBS_BUILD/workloads/objects
	lib=$PEBS_BUILD/libpebsshim-objects.so
	[ -x "$wl" ] && [ -f "$lib" ] ||
		skip_all "no $wl or $lib: build them first (make all)"
}

# the sample count from the summary line of a record run's stderr
summary_count() {
	sed -n 's/^pebs-shim record: \([0-9]*\) samples written.*/\1/p' "$1"
}

# "pid walker streamer" from memwalk's stderr line
memwalk_ids() {
	sed -n 's/.*memwalk: pid=\([0-9]*\) walker=\([0-9]*\) streamer=\([0-9]*\).*/\1 \2 \3/p' "$1"
}

# every line of perf script -F pid,tid,comm with pid $2 names the right
# thread: walker/streamer by tid, the main thread as memwalk; prints the
# offending lines as diagnostics. Args: SCRIPT_OUTPUT PID WALKER STREAMER
# [ALL [PRE]]: with ALL, lines of other pids are offences too; PRE is
# also a right name of the main thread (its comm before the exec, which
# system-wide recording sees: the forked pebs-shim).
threads_right() {
	awk -v P="$2" -v W="$3" -v S="$4" -v all="${5:-}" -v pre="${6:-memwalk}" '
	{
		# "comm  pid/tid": comm may hold spaces
		n = split($NF, a, "/"); pid = a[1]; tid = a[2]
		comm = $0; sub(/[ \t]+[0-9]+\/[0-9]+[ \t]*$/, "", comm)
		sub(/^[ \t]+/, "", comm)
		if (pid != P) { if (all) { bad++; if (bad < 5) print "# other process: " $0 } ; next }
		seen++
		# kernel samples of a thread past its exit: perf writes tid -1
		if (tid == -1)
			next
		# a new thread is "memwalk" until it names itself
		if ((tid == W && (comm == "walker" || comm == "memwalk")) ||
		    (tid == S && (comm == "streamer" || comm == "memwalk")) ||
		    (tid == P && (comm == "memwalk" || comm == pre)))
			next
		bad++
		if (bad < 5) print "# wrong thread: " $0
	}
	END { if (!seen) print "# no sample of pid " P; exit !(seen && !bad) }' "$1"
}

# the symbol perf report ranks first; extra args go to perf report.
# SORT (default sym): with --pid use pid,sym, since perf filters merged
# sym-only rows by the thread of their first sample (another process
# running the same binary would hide them).
top_symbol() {
	local f=$1; shift
	perf report --stdio --sort "${SORT:-sym}" -i "$f" "$@" 2>/dev/null |
		awk '/^ *[0-9.]+%/ { print $NF; exit }'
}
