#!/bin/bash
# record-file-perf.t - perf's own tools accept pebs-shim's files: perf mem
# report and perf c2c report run on a page-fault recording with data
# addresses (DATA_SRC sampled with ADDR; NUMA_TOPOLOGY present, no
# "Failed setup nodes"), and perf report --header-only shows the same
# machine description (CPU and NUMA topology, PMU mappings, caches,
# memory topology) for a pebs-shim recording as for a perf recording of
# the same machine; a running process (-p) gets its data maps.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..14
cd "$T" || exit 1
# nothing NAME FILE: pass iff FILE is empty, else show it
nothing() {
	[ ! -s "$2" ]; ok_rc $? "$1"
	sed 's/^/# /' "$2" | head -10
}

"$tool" record -e page-faults -c 1 -o pf.data -- "$touchpages" 500 addrs \
	2>err
ok_rc $? "record -e page-faults -c 1 -- touchpages exits 0"
perf report --header-only -i pf.data 2>/dev/null | grep '^# event' |
	grep -q 'ADDR.*DATA_SRC\|DATA_SRC.*ADDR'
ok_rc $? "its sample_type has ADDR and DATA_SRC"
perf mem report --stdio -i pf.data >mem 2>&1
rc=$?
ok_rc $rc "perf mem report --stdio exits 0"
[ $rc = 0 ] || sed 's/^/# /' mem | head -5
grep -q 'touchpages' mem; ok_rc $? "... and shows touchpages' samples"
perf c2c report --stdio -i pf.data >c2c 2>&1
rc=$?
ok_rc $rc "perf c2c report --stdio exits 0"
[ $rc = 0 ] || sed 's/^/# /' c2c | head -5
! grep -q "Failed setup nodes" c2c; ok_rc $? "... without 'Failed setup nodes'"

# the machine as perf describes it, from both files
perf record --no-bpf-event -q -e cpu-clock -o perf.data -- true 2>/dev/null ||
	skip_all "perf record fails here"
perf report --header-only -I -i perf.data >h.perf 2>/dev/null
perf report --header-only -I -i pf.data >h.shim 2>/dev/null
machine() {	# the lines that describe the machine, not the run
	grep -E '^# (sibling|CPU [0-9]|node[0-9]+ cpu list|pmu mappings|nrcpus|cpuid|cpudesc|arch|memory nodes|  *L[0-9])' "$1"
}
machine h.perf >m.perf
machine h.shim >m.shim
[ -s m.perf ]; ok_rc $? "perf's header describes the machine ($(wc -l <m.perf) lines)"
diff m.perf m.shim >d
nothing "pebs-shim's header describes it the same way" d
missing() {
	sed -n 's/^# missing features: //p' "$1" | tr ' ' '\n' |
		grep -xE 'CPU_TOPOLOGY|NUMA_TOPOLOGY|PMU_MAPPINGS|CACHE|MEM_TOPOLOGY|BUILD_ID|EVENT_DESC|CMDLINE' | sort
}
missing h.perf >f.perf
missing h.shim >f.shim
comm -13 f.perf f.shim >extra
nothing "no feature perf writes is missing from pebs-shim's file" extra
grep -q "event : .*size = 128" h.shim
ok_rc $? "the attr is written with PERF_ATTR_SIZE_VER7 (128 bytes)"

# build ids of the kernel (perf buildid-list -k: the running one) and vdso
k=$(perf buildid-list -k 2>/dev/null)
perf buildid-list -i pf.data >bids 2>/dev/null
grep -q "^$k \[kernel.kallsyms\]$" bids
ok_rc $? "the kernel's build id is perf's ($k)"
grep -qE '^[0-9a-f]{40} \[vdso\]$' bids
ok_rc $? "the vdso has its build id: $(grep vdso bids)"

# a process that already runs: its data maps are synthesized (-d/ADDR)
"$memwalk" --seconds 3 >/dev/null 2>mw &
mw=$!
sleep 0.5
"$tool" record -e page-faults -c 1 -p $mw -o pid.data --duration 1 \
	>/dev/null 2>err
ok_rc $? "record -p PID -e page-faults exits 0"
wait $mw
perf script -D -i pid.data 2>/dev/null |
	grep -E 'PERF_RECORD_MMAP2 [0-9]+/[0-9]+: .* rw-p .*//anon' | head -1 >anon
[ -s anon ]; ok_rc $? "the running process' anonymous data maps are in the file: $(cut -c1-80 anon)"
