#!/bin/bash
# vm-run.sh - run the guest test scripts inside a qemu guest.
#
# Usage: scripts/vm-run.sh [options]
#
# Builds an initramfs (busybox-static, /pebs holding every $PEBS_BUILD/vm/*
# binary, kmod/pebs_map.ko, scripts/pebs-map-load and pebs-map-unload,
# the dynamically linked $PEBS_BUILD/workloads/* with their shared
# libraries under /pebs/workloads, and tests/vm/guest/*.sh under
# /pebs/guest), boots the kernel from scripts/vm-kernel.sh under
# `qemu-system-x86_64 -accel tcg,thread=single -cpu max` (--tcg multi: one thread per vCPU), and writes the serial console
# to a log file whose path it prints on stdout (last line).
#
# The guest's /init mounts proc, sysfs, devtmpfs, tracefs, debugfs and a
# tmpfs on /tmp, then runs each guest script in lexical order with
# `sh SCRIPT` (cwd /, PATH=/pebs:/bin, a time limit), each framed by
#   PEBS-VM RUN <name>          and   PEBS-VM DONE <name> rc=<rc> secs=<s>
# on the console (and the RUN line in the kernel log, so that dmesg shows
# which script was running); the DONE line ends with tmpfree=BEFORE/AFTER,
# the KiB free in /tmp, which is emptied after each script. A script that leaves pebs_map loaded gets
#   PEBS-VM LEFT-LOADED <name>  and the module is removed.
# At the end the guest prints `PEBS-VM DMESG-BEGIN`, dmesg,
# `PEBS-VM DMESG-END` and powers off. Scripts print their verdict as
# `PEBS-VM PASS <name> ...` or `PEBS-VM FAIL <name> <reason>`.
#
# Options:
#   --only REGEX         run only guest scripts whose file name matches
#                        the extended regex (e.g. --only '^1', --only record)
#   --guest-dir DIR      take the guest scripts from DIR instead of
#                        tests/vm/guest (bench/vm-switch.sh: tests/vm/bench)
#   --ship PROGRAM       also ship a dynamically linked host program (e.g.
#                        perf) with its shared libraries, as /pebs/NAME;
#                        repeatable
#   --log FILE           console log file (default: a new file under
#                        $PEBS_BUILD/vm-logs/)
#   --kernel FILE        guest kernel (default: scripts/vm-kernel.sh)
#   --kmod FILE          module to ship (default: $PEBS_SRC/kmod/pebs_map.ko)
#   --smp N              guest CPUs (default 2)
#   --tcg single|multi   one host thread for all vCPUs (default), or one
#                        per vCPU: real parallelism, but see below
#   --possible-cpus N    possible CPU ids (default 80, 0: kernel default):
#                        slots for CPUs that never run, a table of pages
#   --mem MB             guest memory (default 1024)
#   --timeout SECS       host-side limit for the whole boot (default 600)
#   --script-timeout S   guest-side limit per script (default 300)
#   --append ARGS        extra kernel command line (repeatable)
#   -v, --verbose        also copy the console to stderr as it runs
#   -h, --help           this text
#
# Env: PEBS_BUILD (default $PEBS_SRC/build), PEBS_SRC (default: this
# script's repository). Exit status: 0 when the guest ran to the end
# (DMESG-END seen), 1 otherwise (timeout, panic, boot failure), 2 usage.
# Verdicts are in the log: tests/vm/vm.t turns them into TAP.
set -euo pipefail

me=vm-run.sh
usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}
die() {
	echo "$me: $*" >&2
	exit 1
}
need_arg() {
	[ "$#" -ge 2 ] || { echo "$me: $1 needs an argument: see --help" >&2; exit 2; }
}

PEBS_SRC=${PEBS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
PEBS_BUILD=${PEBS_BUILD:-$PEBS_SRC/build}
export PEBS_SRC PEBS_BUILD

only=
guest_dir=$PEBS_SRC/tests/vm/guest
ship=()
log=
kernel=
kmod=$PEBS_SRC/kmod/pebs_map.ko
smp=2
tcg=single
possible=80
mem=1024
host_timeout=600
script_timeout=300
append=
verbose=0
while [ "$#" -gt 0 ]; do
	case $1 in
	--only) need_arg "$@"; only=$2; shift ;;
	--log) need_arg "$@"; log=$2; shift ;;
	--guest-dir) need_arg "$@"; guest_dir=$2; shift ;;
	--ship) need_arg "$@"; ship+=("$2"); shift ;;
	--kernel) need_arg "$@"; kernel=$2; shift ;;
	--kmod) need_arg "$@"; kmod=$2; shift ;;
	--smp) need_arg "$@"; smp=$2; shift ;;
	--tcg) need_arg "$@"; tcg=$2; shift ;;
	--possible-cpus) need_arg "$@"; possible=$2; shift ;;
	--mem) need_arg "$@"; mem=$2; shift ;;
	--timeout) need_arg "$@"; host_timeout=$2; shift ;;
	--script-timeout) need_arg "$@"; script_timeout=$2; shift ;;
	--append) need_arg "$@"; append+="${append:+ }$2"; shift ;;
	-v|--verbose) verbose=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$me: unknown option '$1': see --help" >&2; exit 2 ;;
	esac
	shift
done
case $tcg in
single|multi) ;;
*) echo "$me: --tcg takes single or multi, not '$tcg'" >&2; exit 2 ;;
esac
for n in "$smp" "$possible" "$mem" "$host_timeout" "$script_timeout"; do
	case $n in
	''|*[!0-9]*) echo "$me: '$n' is not a number: see --help" >&2; exit 2 ;;
	esac
done

command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 not found: apt-get install qemu-system-x86"
command -v cpio >/dev/null || die "cpio not found: apt-get install cpio"
busybox=$(command -v busybox || true)
# a static busybox: ldd refuses it ("not a dynamic executable")
[ -n "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
	die "no static busybox: apt-get install busybox-static"
[ -f "$kmod" ] || die "$kmod not found: run 'make kmod' first"
if [ -z "$kernel" ]; then
	kernel=$("$PEBS_SRC/scripts/vm-kernel.sh") ||
		die "no guest kernel (scripts/vm-kernel.sh failed)"
fi
[ -f "$kernel" ] || die "$kernel: no such kernel image"

scripts=()
for s in "$guest_dir"/*.sh; do
	[ -f "$s" ] || continue
	if [ -n "$only" ] && ! basename "$s" | grep -Eq -- "$only"; then
		continue
	fi
	scripts+=("$s")
done
[ "${#scripts[@]}" -gt 0 ] ||
	die "no guest script in $guest_dir${only:+ matches '$only'}"

if [ -z "$log" ]; then
	mkdir -p "$PEBS_BUILD/vm-logs"
	log=$(mktemp "$PEBS_BUILD/vm-logs/console.XXXXXX")
fi
mkdir -p "$(dirname "$log")"
log=$(cd "$(dirname "$log")" && pwd)/$(basename "$log")

work=$(mktemp -d "${TMPDIR:-/tmp}/pebs-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,pebs/guest,pebs/workloads}

# busybox and one symlink per applet
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
done
[ "$(id -u)" = 0 ] && mknod "$root/dev/console" c 5 1

# the module, its load scripts, the static guest programs, the scripts
cp "$kmod" "$root/pebs/pebs_map.ko"
cp "$PEBS_SRC/scripts/pebs-map-load" "$PEBS_SRC/scripts/pebs-map-unload" \
	"$PEBS_SRC/tests/vm/guest-lib.sh" "$root/pebs/"
if [ -d "$PEBS_BUILD/vm" ]; then
	for f in "$PEBS_BUILD"/vm/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$root/pebs/"
	done
fi
cp "${scripts[@]}" "$root/pebs/guest/"

# dynamically linked programs go with their libraries
ship_libs() {
	{ ldd "$1" 2>/dev/null || true; } |
		{ grep -o '/[^ ]*' || true; } | while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
}
if [ -d "$PEBS_BUILD/workloads" ]; then
	for f in "$PEBS_BUILD"/workloads/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		cp "$f" "$root/pebs/workloads/"
		ship_libs "$f"
	done
fi
for f in "${ship[@]}"; do
	[ -f "$f" ] && [ -x "$f" ] || die "--ship $f: not an executable file"
	cp -L "$f" "$root/pebs/"
	ship_libs "$f"
done

cat >"$root/init" <<EOF
#!/bin/sh
# pebs-shim guest init (generated by scripts/vm-run.sh)
script_timeout=$script_timeout
EOF
cat >>"$root/init" <<'EOF'
export PATH=/pebs:/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ulimit -c 0
now() { cut -d' ' -f1 /proc/uptime; }
# KiB free in /tmp (a small tmpfs: a script that fills it loses its output)
tmpfree() { df -k /tmp | awk 'NR == 2 { print $4 }'; }
echo "PEBS-VM BOOT kernel=$(uname -r) online=$(cat /sys/devices/system/cpu/online) possible=$(cat /sys/devices/system/cpu/possible) uptime=$(now)"
grep -o -w -E 'rdtscp|constant_tsc|nonstop_tsc' /proc/cpuinfo | sort -u |
	tr '\n' ' ' | sed 's/^/PEBS-VM CPUFLAGS /; s/ *$/\n/'
for s in /pebs/guest/*.sh; do
	name=${s##*/}
	name=${name%.sh}
	echo "PEBS-VM RUN $name" >/dev/kmsg
	f0=$(tmpfree)
	echo "PEBS-VM RUN $name"
	t0=$(now)
	cd /
	timeout -s KILL "$script_timeout" sh "$s"
	rc=$?
	f1=$(tmpfree)
	echo "PEBS-VM DONE $name rc=$rc secs=$(echo "$(now) $t0" | awk '{ printf "%.1f", $1 - $2 }') tmpfree=$f0/$f1"
	# each script starts with an empty /tmp
	rm -rf /tmp/* 2>/dev/null
	if grep -q '^pebs_map ' /proc/modules; then
		echo "PEBS-VM LEFT-LOADED $name"
		rmmod pebs_map
	fi
done
echo "PEBS-VM ALL-DONE uptime=$(now)"
echo "PEBS-VM DMESG-BEGIN"
dmesg
echo "PEBS-VM DMESG-END"
sync
poweroff -f
EOF
chmod +x "$root/init" "$root"/pebs/guest/*.sh "$root"/pebs/pebs-map-*

initrd=$work/initrd.cpio
(cd "$root" && find . -print0 | cpio --null -o -H newc --owner=0:0 \
	--quiet >"$initrd")

cmdline="console=ttyS0 panic=-1 oops=panic loglevel=4 log_buf_len=1M"
[ "$possible" -gt 0 ] && cmdline+=" possible_cpus=$possible"
[ -n "$append" ] && cmdline+=" $append"

# thread=single (the default): all vCPUs in one host thread. With
# multi-threaded TCG (--tcg multi),
# one of ~8 full runs hung in 12-module-robust's load/unload cycles:
# rmmod in a soft lockup on CPU 0, and RCU reporting that CPU 1 took no
# timer interrupts (no backtrace: loglevel=4). Suspected, not proven: a
# multi-threaded TCG problem with the kernel patching __schedule() (the
# sched_switch static key flips at every load and unload) while the other
# vCPU runs it. Single-threaded TCG serializes the vCPUs; it passed every
# run since and is no slower here. The control in /work/shared/NOTES.md
# later showed the same hang without the module (toggling the
# sched_switch tracepoint under load): under --tcg multi, guest scripts
# must not switch tracepoints while threads switch (14-smp-readers and
# 15-cpu-hotplug load the module once; make check-vm-stress runs them so).
qemu=(qemu-system-x86_64 -accel "tcg,thread=$tcg" -cpu max -m "$mem" -smp "$smp"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-nographic -no-reboot)
echo "$me: booting ${#scripts[@]} guest script(s); console: $log" >&2
t0=$(date +%s)
timeout --kill-after=10 "$host_timeout" "${qemu[@]}" </dev/null >"$log" 2>&1 &
qpid=$!
# stopped from outside (e.g. a test timeout): stop qemu too
trap 'kill "$qpid" 2>/dev/null; exit 143' TERM INT HUP
[ "$verbose" = 1 ] && tail -n +1 -f --pid="$qpid" "$log" >&2 &
set +e
wait "$qpid"
rc=$?
set -e
t1=$(date +%s)
[ "$rc" = 124 ] || [ "$rc" = 137 ] &&
	echo "PEBS-VM HOST-TIMEOUT after ${host_timeout}s" >>"$log"
echo "PEBS-VM HOST qemu-rc=$rc wall=$((t1 - t0))s" >>"$log"
echo "$me: qemu exited $rc after $((t1 - t0)) s" >&2
echo "$log"
grep -q '^PEBS-VM DMESG-END' "$log"
