#!/bin/bash
# report-symbols.t - symbols as `pebs-shim report` finds them: C++
# names demangled as perf 6.1 shows them by default (libiberty, no
# parameters), a binary rebuilt after
# the recording shown without symbols rather than with wrong ones, and
# the recorded build taken from perf's cache ~/.debug/.build-id when it
# is there; a FIFO left where a recorded binary (or its cached copy)
# was is passed over, not read (a hostile recording cannot stall report,
# script or export, nor a binary replaced during a recording record's
# end).
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-symbols-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..9"

if ! command -v g++ >/dev/null; then
	for i in 1 2 3 4 5 6 7 8 9; do skip "no g++"; done
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

# a FIFO at the recorded path and in the cache: never opened for reading
# (a read would wait for a writer forever); the samples keep the file's
# name, without symbols
rm -f "$T/prog" "$d/elf"
mkfifo "$T/prog" "$d/elf"
HOME=$T/home timeout 60 "$PS" report -i "$T/cxx.data" --sort dso,sym --top 1 \
	>"$T/r4.out" 2>&1
check "report: a FIFO where the binary was is passed over (prog, addresses)" \
	grep -qE '^ +[0-9.]+% +1 +prog +\[\.\] 0x[0-9a-f]{16}$' "$T/r4.out"
HOME=$T/home timeout 60 "$PS" script -i "$T/cxx.data" >"$T/s4.out" 2>&1
check "script too" grep -q "(.*/prog)" "$T/s4.out"
HOME=$T/home timeout 60 "$PS" export --format pprof -i "$T/cxx.data" \
	-o "$T/x.pb.gz" >"$T/e4.out" 2>&1
check "export too" test -s "$T/x.pb.gz"

# a binary replaced by a FIFO while recorded: record's end reads build
# ids and copies the files into the cache, passing it over
cp /bin/true "$T/victim"
HOME=$T/home timeout 60 "$PS" record -e page-faults -c 1 -o "$T/v.data" -- \
	bash -c "'$T/victim'; rm '$T/victim'; mkfifo '$T/victim'" >"$T/v.out" 2>&1
check "record: a recorded binary replaced by a FIFO ends the recording" \
	bash -c "test -s '$T/v.data' && timeout 60 '$PS' report -i '$T/v.data' --sort dso >/dev/null 2>&1"
