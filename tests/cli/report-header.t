#!/bin/bash
# report-header.t - `pebs-shim report --header-only` (and -I, and
# --header) prints what `perf report --header-only` prints, line for
# line: the Intel fixture (perf 5.17's file, whose CPU topology perf 6.1
# reads without ids), the AMD fixture against the perf 6.1 output stored
# beside it (perf 6.1 refuses the file itself; the stored copy has no
# "captured on" line: that line is perf's file mtime, left out), fresh
# recordings by perf (page faults with -d; zstd-compressed with a clock
# and a group: COMPRESSED, CLOCKID, CLOCK_DATA, GROUP_DESC; a pipe) and
# by pebs-shim record. No difference is allowed.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-header-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

INTEL=$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
AMD=$S/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data
echo "1..17"

# the AMD fixture against perf 6.1's stored output (NOTE lines and the
# omitted captured-on line dropped from it, captured-on from ours)
grep -v '^# NOTE\|^# perf_event_attr entries\|^# "File uses\|captured on' \
	"${AMD%.perf.data}.header.txt" >"$T/want"
"$PS" report --header-only -i "$AMD" | grep -v 'captured on' >"$T/got"
if cmp -s "$T/want" "$T/got"; then
	ok "AMD fixture: perf 6.1's header, line for line ($(wc -l <"$T/got") lines)"
else
	nok "AMD fixture: perf 6.1's header"
	diff "$T/want" "$T/got" | diag
fi
grep -v 'captured on' "${INTEL%.perf.data}.header.txt" >"$T/want"
"$PS" report --header-only -i "$INTEL" | grep -v 'captured on' >"$T/got"
check "Intel fixture: the stored perf output" cmp -s "$T/want" "$T/got"

if ! command -v perf >/dev/null; then
	skip_n 15 "no perf to compare with"
	exit 0
fi

# same NAME FILE [OPTION...]: perf's and pebs-shim's header, every byte
same() {
	local name=$1 f=$2
	shift 2
	perf report --header-only "$@" -i "$f" >"$T/perf.out" 2>/dev/null
	"$PS" report --header-only "$@" -i "$f" >"$T/ps.out" 2>"$T/ps.err"
	if [ -s "$T/perf.out" ] && cmp -s "$T/perf.out" "$T/ps.out"; then
		ok "$name $* ($(wc -l <"$T/ps.out") lines)"
	else
		nok "$name $*"
		diff "$T/perf.out" "$T/ps.out" | diag
		diag "$T/ps.err"
	fi
}
same "Intel fixture" "$INTEL"
same "Intel fixture" "$INTEL" -I

W=$B/workloads/touchpages
perf record -q -e page-faults -d -o "$T/pf.data" -- "$W" 32 >/dev/null 2>&1
perf record -q -z -k monotonic -e '{page-faults,minor-faults}' \
	-o "$T/z.data" -- "$W" 32 >/dev/null 2>&1
"$PS" record -e page-faults -d -c 1 -o "$T/ps.data" -- "$W" 32 \
	>/dev/null 2>&1
if [ ! -s "$T/pf.data" ] || [ ! -s "$T/ps.data" ]; then
	skip_n 11 "cannot record page faults here"
	exit 0
fi
same "perf's page faults" "$T/pf.data"
same "perf's page faults" "$T/pf.data" -I
same "pebs-shim's page faults" "$T/ps.data"
same "pebs-shim's page faults" "$T/ps.data" -I
if [ -s "$T/z.data" ]; then
	same "perf -z -k monotonic, a group" "$T/z.data"
	same "perf -z -k monotonic, a group" "$T/z.data" -I
	check "... which has the group line" \
		grep -q '^# group: {page-faults,minor-faults}$' "$T/ps.out"
	check "... and the clock's and compression's" bash -c "
		grep -q '^# clockid: monotonic (1)$' '$T/ps.out' &&
		grep -q '^# compressed : Zstd, level = 1' '$T/ps.out'"
else
	skip_n 4 "perf record -z -k monotonic failed here"
fi

# a pipe: perf closes the header before the features
perf record -q -e page-faults -o - -- "$W" 16 2>/dev/null >"$T/pipe.data"
perf report --header-only -i - <"$T/pipe.data" >"$T/perf.out" 2>/dev/null
"$PS" report --header-only -i - <"$T/pipe.data" >"$T/ps.out"
check "a pipe: perf's header" cmp -s "$T/perf.out" "$T/ps.out"

# --header: the same lines, then the report
"$PS" report --header -i "$T/ps.data" >"$T/both" 2>&1
"$PS" report --header-only -i "$T/ps.data" >"$T/h"
check "--header: the header first" \
	cmp -s "$T/h" <(head -n "$(wc -l <"$T/h")" "$T/both")
check "... then the report" grep -q '^# pebs-shim report of ' "$T/both"
# perf report --header reads the same file the same way
perf report --header --stdio -i "$T/ps.data" 2>/dev/null |
	sed -n '1,/^# ========$/p' | sed -n '2,/^# ========$/p' >"$T/ph"
sed -n '2,/^# ========$/p' "$T/h" >"$T/mh"
check "perf report --header's header is the same" \
	bash -c "test -s '$T/ph' && cmp -s '$T/ph' '$T/mh'"
# no build ids in perf 6.1's header: not here either
check "no build-id lines (perf 6.1 prints none)" \
	bash -c "! grep -qi 'build.id' '$T/h'"
