#!/bin/bash
# objects-edges.t - record --objects where the interposer's view and the
# kernel's differ: a mremap with MREMAP_DONTUNMAP (the old range stays
# mapped, empty: an object of its own, not released), a command in a
# PID namespace of its own (its records carry the namespace's pids: the
# recorder translates them to the kernel's, which the samples carry),
# and a full ring under --objects=all (the producers wait on a futex,
# the recorder is woken by an eventfd). Page faults with -d give the
# samples real data addresses (tests/workloads/objects --dontunmap).
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
need_objects
echo 1..2

# samples per object: "site count" from report --sort object's CSV
rows() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "object") col = i; next }
		 $10 == "" { s = $col; sub(/ \(.*/, "", s); print s, $4 }' "$1"
}

# record DATA SITES CMD...: record --objects -e page-faults -c 1 -d of
# CMD, then report --sort object's rows of the SITES (a regex)
record() {
	local data=$1 sites=$2
	shift 2
	"$tool" record --objects -e page-faults -c 1 -d -o "$T/$data.data" \
		-- "$@" >"$T/$data.out" 2>"$T/$data.err" &&
	"$tool" report -i "$T/$data.data" --sort object --format csv \
		>"$T/$data.csv" 2>>"$T/$data.err" &&
	rows "$T/$data.csv" | grep -E "^($sites) " | sort
}
want="map_moved 64
remap_keep 64"

# map_moved's 256 KiB written (64 faults), moved by remap_keep with
# MREMAP_DONTUNMAP, the old range written again: its 64 faults are in
# the object remap_keep's call left there (they were anon when the
# mremap was taken for a release of the old range)
if "$wl" --dontunmap >/dev/null 2>&1; then
	got=$(record du 'map_moved|remap_keep' "$wl" --dontunmap)
	[ "$got" = "$want" ]
	ok_rc $? "MREMAP_DONTUNMAP: the old range left mapped is remap_keep's object (64 faults), the moved one map_moved's (64)"
	[ "$got" = "$want" ] || { echo "$got" | diag -; diag "$T/du.err"; }
else
	skip "mremap(MREMAP_DONTUNMAP) fails here (Linux 5.7 or later has it)"
fi

# the workload as PID 1 of a PID namespace with its own /proc: its
# objects (the second thread's too) join the samples as without it (they
# were all anon: the records carried the namespace's pids)
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	got=$(record ns 'alloc_big|alloc_second|alloc_in_thread|alloc_shared' \
		unshare --pid --fork --mount-proc "$wl")
	want="alloc_big 1024
alloc_in_thread 128
alloc_second 512
alloc_shared 128"
	[ "$got" = "$want" ]
	ok_rc $? "in a PID namespace (unshare --pid --fork --mount-proc): the objects of both threads join the samples"
	[ "$got" = "$want" ] || { echo "$got" | diag -; diag "$T/ns.err"; }
else
	skip "unshare --pid --fork --mount-proc fails here (needs root or user namespaces): PID namespaces not tested"
fi
