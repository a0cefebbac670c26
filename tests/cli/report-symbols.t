#!/bin/bash
# report-symbols.t - symbols as `pebs-shim report` finds them: C++
# names demangled as perf 6.1 shows them by default (libiberty, no
# parameters), a binary rebuilt after
# the recording shown without symbols rather than with wrong ones, and
# the recorded build taken from perf's cache ~/.debug/.build-id when it
# is there.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-symbols-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..5"

if ! command -v g++ >/dev/null; then
	for i in 1 2 3 4 5; do skip "no g++"; done
	exit 0
fi
cat >"$T/t.cc" <<'CC'
#include <cstdio>
#include <cstdlib>
namespace ns {
template <typename T> struct Box { T v; };
__attribute__((noinline)) long hot(Box<long> *b, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += (s ^ i) * b->v;
	return s;
}
}
int main(int argc, char **argv)
{
	ns::Box<long> b = { argc };
	long n = argc > 1 ? atol(argv[1]) : 1;
	printf("%ld\n", ns::hot(&b, (int)n));
	return VERSION;
}
CC
g++ -O1 -DVERSION=0 -o "$T/prog" "$T/t.cc"
cp "$T/prog" "$T/prog.recorded"
HOME=$T/home "$PS" record -N -e cpu-clock -o "$T/cxx.data" -- "$T/prog" 150000000 \
	>"$T/rec.out" 2>&1
check "recorded the C++ program" test -s "$T/cxx.data"

"$PS" report -i "$T/cxx.data" --sort sym --top 1 >"$T/r1.out" 2>&1
check "C++ demangled as perf shows it: ns::hot first" \
	grep -qE '^ +[5-9][0-9]\.[0-9]+% +1 +\[\.\] ns::hot$' "$T/r1.out"

# the program is rebuilt: another build id at the recorded path
g++ -O1 -DVERSION=1 -o "$T/prog" "$T/t.cc"
HOME=$T/home "$PS" report -i "$T/cxx.data" --sort sym --top 1 >"$T/r2.out" 2>&1
check "rebuilt binary: no symbol (addresses), not a wrong one" \
	bash -c "grep -qE '^ +[0-9.]+% +1 +\\[\\.\\] 0x[0-9a-f]{16}\$' '$T/r2.out' &&
		 ! grep -q 'ns::' '$T/r2.out'"

# perf's cache: ~/.debug/.build-id/xx/yyyy/elf holds the recorded build
bid=$(readelf -n "$T/prog.recorded" | sed -n 's/.*Build ID: //p')
d=$T/home/.debug/.build-id/${bid:0:2}/${bid:2}
mkdir -p "$d"
cp "$T/prog.recorded" "$d/elf"
HOME=$T/home "$PS" report -i "$T/cxx.data" --sort sym --top 1 >"$T/r3.out" 2>&1
check "the recorded build from ~/.debug/.build-id: symbols again" \
	grep -qE '\[\.\] ns::hot$' "$T/r3.out"
HOME=$T/home perf report --stdio -i "$T/cxx.data" --sort sym 2>/dev/null |
	grep '%' | head -1 >"$T/perf.out"
check "perf finds it there too (ns::hot)" grep -q '\[\.\] ns::hot' "$T/perf.out"
