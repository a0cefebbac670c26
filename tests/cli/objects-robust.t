#!/bin/bash
# objects-robust.t - record --objects on unusual program behaviour
# (tests/workloads/objects-robust): under the interposer each mode must
# print what it prints without it and exit the same, the recording must
# end, and pebs-shim report --sort object and perf report must read the
# file. The modes run under the default sampling, --objects=all or
# --objects=1K in turn (each case once: the file stays quick).
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
wl=$PEBS_BUILD/workloads/objects-robust
lib=$PEBS_BUILD/libpebsshim-objects.so
[ -x "$wl" ] && [ -f "$lib" ] ||
	skip_all "no $wl or $lib: build them first (make all)"
echo 1..14

# same OPT NAME ARGS...: the workload's mode ARGS under record OPT
# prints and exits as bare, within 30 s; the file in $T/NAME.data
same() {
	local opt=$1 name=$2 rc0 rc
	shift 2
	"$wl" "$@" >"$T/$name.bare" 2>&1 </dev/null
	rc0=$?
	timeout 30 "$tool" record "$opt" -e page-faults -o "$T/$name.data" -- \
		"$wl" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	rc=$?
	grep -v '^\[\? \?pebs-shim record' "$T/$name.err" >>"$T/$name.out"
	if [ "$rc" = "$rc0" ] && cmp -s "$T/$name.bare" "$T/$name.out"; then
		ok "$name under record $opt: the same output and exit status ($rc)"
	else
		nok "$name under record $opt: the same output and exit status ($rc, bare $rc0)"
		diff "$T/$name.bare" "$T/$name.out" | diag -
	fi
}

# a fork while another thread holds the loader's lock (starting a thread,
# in dl_iterate_phdr): the child once waited for it forever in the
# interposer's atfork handler; each child's big allocation is recorded
same --objects fork fork
n=$(perf script -i "$T/fork.data" -F pid,event,period 2>/dev/null |
	awk '$3 == "pebs-shim:alloc:" && $2 == 300000 { print $1 }' |
	sort -u | wc -l)
[ "$n" = 150 ]
ok_rc $? "each of the 150 forked children records its allocation ($n)"

# malloc, free, mmap and munmap in a signal handler interrupting the
# hooks (their lock is taken under the thread's guard)
same --objects=1K signal signal

same --objects=all spawn spawn
same --objects=1K threads threads
same --objects=all api api
# each allocation is released once: a failed realloc or reallocarray
# once sent the release of the block it left allocated (and its later
# free again), and reallocarray sent each array twice (glibc's calls
# realloc)
c=$(sed -n 's/.*objects: \([0-9]*\) allocations and \([0-9]*\) releases.*/\1 \2/p' \
	"$T/api.err")
set -- $c
[ -n "$c" ] && [ "$1" = "$2" ]
ok_rc $? "api: as many releases as allocations, each sent once ($c)"
same --objects mmap mmap
same --objects=1K rlimit rlimit
same --objects=all coro coro
# a program that closes every fd (the ring's too: Python's subprocess
# does) then execs: the exec'd program maps the ring through the
# recorder's fd, and its allocation of 200000 bytes is recorded
same --objects closefds closefds
perf script -i "$T/closefds.data" -F event,period 2>/dev/null |
	grep -q '^ *200000 *pebs-shim:alloc:'
ok_rc $? "a program exec'd after every fd was closed is still recorded"

# a library with __thread variables dlopened after the start
if printf '__thread int v[1024];\nint *tls_v(void) { return v; }\n' |
	cc -shared -fPIC -x c - -o "$T/libtls.so" 2>/dev/null; then
	same --objects=all dlopen dlopen "$T/libtls.so" tls_v
else
	skip "cc cannot build a shared library here"
fi

# the readers read what the cases recorded (not signal's 30000 objects
# at one address: report takes seconds over them)
bad=
for f in fork api mmap coro threads dlopen; do
	"$tool" report -i "$T/$f.data" --sort object >/dev/null 2>&1 ||
		bad="$bad report:$f"
	perf report -i "$T/$f.data" --stdio >/dev/null 2>&1 ||
		bad="$bad perf:$f"
done
[ -z "$bad" ]
ok_rc $? "pebs-shim report --sort object and perf report read the files${bad:+ (failed:$bad)}"
