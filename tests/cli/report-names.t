#!/bin/bash
# report-names.t - `pebs-shim report` names what `perf report` (6.1)
# names, row by row on the same file: programs built here are recorded
# by `pebs-shim record` (and one by `perf record`), then both reports
# (--sort comm,dso,sym) must give the same rows: Overhead, command,
# shared object and symbol. The programs cover versioned glibc names
# (memcpy, clock_gettime), the vdso (its image kept in the build-id
# cache at the end of the recording, found there by both reports), C++
# and Rust (legacy and v0) names demangled as perf shows them, ld.so's
# start-up (code labels, aliases), and JIT code named by a
# /tmp/perf-PID.map file. HOME is a scratch directory: the build-id
# cache both write and read is $HOME/.debug.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-names-t.XXXXXX)
trap 'rm -rf "$T" /tmp/perf-$jitpid.map' EXIT
. "$S/tests/tap.sh"
RHOME=$HOME	# rustup finds its toolchains there
export HOME=$T/home
mkdir -p "$HOME"

echo "1..17"
if ! command -v perf >/dev/null || ! command -v g++ >/dev/null; then
	skip_n 17 "no perf to compare with, or no g++"
	exit 0
fi

# "overhead<TAB>comm<TAB>dso<TAB>sym" rows (columns are 2+ spaces apart;
# names may hold single spaces), sorted
perf_rows() {
	perf report --stdio -i "$1" --sort comm,dso,sym 2>/dev/null |
		grep -E '^ +[0-9.]+%' | sed -E 's/^ +//; s/  +/\t/g' | sort
}
ps_rows() {
	"$PS" report -i "$1" --sort comm,dso,sym --top 0 2>"$T/ps.err" |
		sed -n '/^# samples by --sort keys/,$p' |
		grep -E '^ +[0-9.]+%' | sed -E 's/^ +//; s/  +/\t/g' |
		cut -f1,3- | sort
}
# same NAME FILE: both reports give the same rows
same() {
	perf_rows "$2" >"$T/perf.rows"
	ps_rows "$2" >"$T/ps.rows"
	if test -s "$T/perf.rows" && test ! -s "$T/ps.err" &&
	   cmp -s "$T/perf.rows" "$T/ps.rows"; then
		ok "$1 ($(wc -l <"$T/perf.rows") rows as perf's)"
	else
		nok "$1"
		diff "$T/perf.rows" "$T/ps.rows" >"$T/diff"
		diag "$T/diff" "$T/ps.err"
	fi
}
rec() {
	"$PS" record -q -e cpu-clock -F 2000 -o "$@" >/dev/null 2>"$T/rec.err"
}

# versioned glibc calls and the vdso
cat >"$T/v.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static char a[1 << 16], b[1 << 16];
int main(int argc, char **argv)
{
	long n = atol(argv[1]), s = 0;
	struct timespec ts;

	for (long i = 0; i < n; i++) {
		memcpy(a, b + (i & 7), sizeof(a) - 8);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		clock_gettime(CLOCK_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	printf("%ld\n", s);
	return argc > 2;
}
C
gcc -O1 -o "$T/v" "$T/v.c"
rec "$T/v.data" "$T/v" 200000
same "glibc and vdso calls" "$T/v.data"
check "the vdso's functions are named (__vdso_clock_gettime)" \
	grep -qP '\t\[vdso\]\t\[\.\] __vdso_clock_gettime$' "$T/ps.rows"
bid=$(perf buildid-list -i "$T/v.data" 2>/dev/null | awk '$2 == "[vdso]" { print $1 }')
check "record kept the vdso as perf does: ~/.debug/[vdso]/<id>/vdso and its .build-id link" \
	test -n "$bid" -a -s "$HOME/.debug/[vdso]/$bid/vdso" -a \
	-s "$HOME/.debug/.build-id/${bid:0:2}/${bid:2}/vdso"
pbid=$(perf buildid-list -i "$T/v.data" 2>/dev/null | awk -v f="$T/v" '$2 == f { print $1 }')
check "and the program: ~/.debug/.build-id/xx/rest/elf" \
	test -n "$pbid" -a -s "$HOME/.debug/.build-id/${pbid:0:2}/${pbid:2}/elf"
rm -rf "$HOME/.debug"
rec "$T/v2.data" -N "$T/v" 1000
check "-N (--no-buildid-cache): nothing kept" test ! -e "$HOME/.debug"
# perf's own cache, written by perf record, is read the same way
perf record -q -e cpu-clock -F 2000 --no-bpf-event -o "$T/pv.data" \
	"$T/v" 200000 >/dev/null 2>&1
same "a perf record file, with perf's cache" "$T/pv.data"

# C++ names (perf 6.1: no parameters)
cat >"$T/t.cc" <<'CC'
#include <cstdio>
#include <cstdlib>
#include <map>
namespace ns {
template <typename K> struct Tab {
	__attribute__((noinline)) long fill(int n)
	{
		std::map<K, long> m;
		for (int i = 0; i < n; i++)
			m[(K)(i * 7919 % 100003)] += i;
		return (long)m.size();
	}
};
__attribute__((noinline)) long hot(long v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += (s ^ i) * v;
	return s;
}
}
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	ns::Tab<long> t;
	printf("%ld %ld\n", ns::hot(argc, (int)n), t.fill((int)(n / 100)));
	return 0;
}
CC
g++ -O1 -o "$T/cxx" "$T/t.cc"
rec "$T/cxx.data" "$T/cxx" 30000000
same "C++ names" "$T/cxx.data"
check "C++ as perf shows it: ns::Tab<long>::fill, no parameters" \
	grep -qP '\t\[\.\] ns::Tab<long>::fill$' "$T/ps.rows"

# Rust, legacy and v0 mangling
if command -v rustc >/dev/null && HOME=$RHOME rustc --version >/dev/null 2>&1
then
	cat >"$T/r.rs" <<'RS'
use std::collections::HashMap;
mod deep {
    pub mod inner {
        pub struct Acc<T> { pub v: Vec<T> }
        impl<T: Copy + std::ops::Add<Output = T> + Default> Acc<T> {
            #[inline(never)]
            pub fn sum_all(&self, rounds: usize) -> T {
                let mut s = T::default();
                for _ in 0..rounds { for x in &self.v { s = s + *x; } }
                s
            }
        }
    }
}
#[inline(never)]
fn fill(n: u64) -> usize {
    let mut m = HashMap::new();
    for i in 0..n { *m.entry(i * 7919 % 100003).or_insert(0u64) += i; }
    m.len()
}
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let a = deep::inner::Acc { v: (0..1000u64).collect() };
    println!("{} {}", std::hint::black_box(a.sum_all(n)), fill(n as u64 / 4));
}
RS
	HOME=$RHOME rustc -O -o "$T/rleg" "$T/r.rs" 2>"$T/rustc.err"
	HOME=$RHOME rustc -O -C symbol-mangling-version=v0 -o "$T/rv0" \
		"$T/r.rs" 2>>"$T/rustc.err"
	rec "$T/rleg.data" "$T/rleg" 1000000
	same "Rust legacy names" "$T/rleg.data"
	rec "$T/rv0.data" "$T/rv0" 1000000
	same "Rust v0 names" "$T/rv0.data"
	check "Rust v0 as perf shows it: <r::deep::inner::Acc<u64>>::sum_all" \
		grep -qF '<r::deep::inner::Acc<u64>>::sum_all' "$T/ps.rows"
else
	skip_n 3 "no rustc"
fi

# calls through the PLT: "name@plt" in .plt, but the first entry's first
# byte is _init's (perf 6.1 extends the sizeless _init to there); perf
# 6.1 knows no .plt.sec (IBT), so calls through it show as addresses
cat >"$T/plt.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = atol(argv[1]), s = 0;
	char buf[8] = "abc";

	for (long i = 0; i < n; i++)	/* labs: the first PLT entry */
		s += labs(i) + (long)strchr(buf, 'c') + atoi(buf) +
		     getpagesize();
	printf("%ld\n", s);
	return 0;
}
C
gcc -O1 -fno-builtin -o "$T/plt" "$T/plt.c"
rec "$T/plt.data" "$T/plt" 20000000
same "calls through the PLT" "$T/plt.data"
check "PLT entries named as perf names them (name@plt)" \
	grep -qP '\t\[\.\] (strchr|strtol|getpagesize)@plt$' "$T/ps.rows"
if gcc -O1 -fno-builtin -fcf-protection=full -Wl,-z,ibtplt \
	-o "$T/pltsec" "$T/plt.c" 2>/dev/null &&
   readelf -S "$T/pltsec" | grep -q '\.plt\.sec'; then
	rec "$T/pltsec.data" "$T/pltsec" 20000000
	same "calls through .plt.sec (IBT): addresses, as perf 6.1" \
		"$T/pltsec.data"
else
	skip "the linker makes no .plt.sec (-z ibtplt)"
fi

# ld.so's start-up, many times over (its labels and aliases)
rec "$T/ld.data" -- bash -c 'for i in $(seq 150); do /usr/bin/env true; done'
same "ld.so start-ups" "$T/ld.data"

# JIT code with a perf map file
cat >"$T/jit.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* mov rcx, rdi; 1: dec rcx; jnz 1b; ret */
static const unsigned char loop[] = {
	0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3
};
int main(int argc, char **argv)
{
	unsigned char *code = mmap(NULL, 8192, PROT_READ | PROT_WRITE |
				   PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
	long n = atol(argv[1]);
	char path[64];
	FILE *f;

	if (code == MAP_FAILED)
		return 1;
	memcpy(code, loop, sizeof(loop));
	memcpy(code + 256, loop, sizeof(loop));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_hot_loop\n%lx %zx JitCold::run(int)\n",
		(unsigned long)code, sizeof(loop),
		(unsigned long)code + 256, sizeof(loop));
	fclose(f);
	printf("%d\n", (int)getpid());
	((void (*)(long))code)(n);
	((void (*)(long))(code + 256))(n / 4);
	return 0;
}
C
gcc -O1 -o "$T/jit" "$T/jit.c"
"$PS" record -q -e cpu-clock -F 2000 -o "$T/jit.data" "$T/jit" 600000000 \
	>"$T/jit.out" 2>&1
jitpid=$(head -1 "$T/jit.out")
same "JIT code (/tmp/perf-PID.map)" "$T/jit.data"
check "JIT code as perf names it: [JIT] tid PID, jit_hot_loop" \
	grep -qP "\t\[JIT\] tid $jitpid\t\[\.\] jit_hot_loop$" "$T/ps.rows"
