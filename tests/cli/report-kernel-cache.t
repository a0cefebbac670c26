#!/bin/bash
# report-kernel-cache.t - another kernel's symbols from perf's build-id
# cache, side by side with perf: `pebs-shim record` keeps this boot's
# /proc/kallsyms as ~/.debug/[kernel.kallsyms]/<build id>/kallsyms (perf
# record's layout and link); a recording of another kernel (here: this
# one's with its build id changed) is reported with raw kernel addresses
# while the cache has no copy for that build id, and with the copy's
# symbols once it has one, as perf report does in both cases.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-kernel-cache-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..7"
if ! grep -qE '^[0-9a-f]*[1-9a-f][0-9a-f]* [tT] ' /proc/kallsyms 2>/dev/null; then
	skip_n 7 "/proc/kallsyms hides kernel addresses from this user"
	exit 0
fi
FAKE=abababababababababababababababababababab
H=$T/home

HOME=$H "$PS" record -q -e page-faults -c 1 -o "$T/x.data" -- \
	"$B/bench/faults" 2000 2000 >"$T/rec.out" 2>&1
check "recorded page faults" test -s "$T/x.data"
bid=$(ls "$H/.debug/[kernel.kallsyms]" 2>/dev/null)
# the kernel's own symbols (up to _etext: modules and BPF come and go)
sed '/ _etext$/q' /proc/kallsyms >"$T/core.now"
sed '/ _etext$/q' "$H/.debug/[kernel.kallsyms]/$bid/kallsyms" >"$T/core.kept" 2>/dev/null
check "record kept this boot's kallsyms under the kernel's build id" \
	bash -c "[ -n '$bid' ] && [ -s '$T/core.kept' ] &&
		 cmp -s '$T/core.kept' '$T/core.now' &&
		 [ \"\$(readlink '$H/.debug/.build-id/${bid:0:2}/${bid:2}')\" = \
		   '../../[kernel.kallsyms]/$bid' ]"

# the same recording with another kernel's build id
python3 - "$T/x.data" "$T/f.data" "$bid" "$FAKE" <<'PY'
import sys
src, dst, old, new = sys.argv[1:]
b = open(src, 'rb').read()
assert b.count(bytes.fromhex(old)) == 1
open(dst, 'wb').write(b.replace(bytes.fromhex(old), bytes.fromhex(new)))
PY

# [k] rows as "name" lines, sorted: ours and perf's
ours() {
	HOME=$H "$PS" report -i "$T/f.data" --sort sym --top 0 >"$T/ours.out" 2>&1
	sed -n 's/.*\[k\] \([^ ]*\).*/\1/p' "$T/ours.out" | sort
}
perfs() {
	HOME=$H perf report -i "$T/f.data" --stdio --sort sym 2>/dev/null |
		sed -n 's/.*\[k\] \([^ ]*\).*/\1/p' | sort
}

ours >"$T/raw.ours"
if [ ! -s "$T/raw.ours" ]; then
	skip_n 5 "no kernel sample in this recording"
	exit 0
fi
check "no copy for that build id: raw kernel addresses, said in the header" \
	bash -c "! grep -qv '^0xffff' '$T/raw.ours' &&
		 grep -q '^# kernel    : not recorded, another build' '$T/ours.out'"

cp -r "$H/.debug/[kernel.kallsyms]/$bid" "$H/.debug/[kernel.kallsyms]/$FAKE"
ours >"$T/named.ours"
check "a copy for that build id: kernel symbols from it, said in the header" \
	bash -c "! grep -q '^0xffff' '$T/named.ours' &&
		 grep -q '^# kernel    : another build (symbols from its kallsyms' '$T/ours.out'"

if ! command -v perf >/dev/null; then
	skip_n 3 "perf is not installed"
	exit 0
fi
perfs >"$T/named.perf"
check "perf report names the same kernel symbols from the copy" \
	cmp -s "$T/named.ours" "$T/named.perf"
rm -rf "$H/.debug/[kernel.kallsyms]/$FAKE"
perfs >"$T/raw.perf"
check "without the copy perf shows the same raw addresses" \
	cmp -s "$T/raw.ours" "$T/raw.perf"
check "and they are not this host's symbols" \
	bash -c "! grep -qv '^0xffff' '$T/raw.perf'"
