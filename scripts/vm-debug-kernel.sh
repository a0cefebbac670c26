#!/bin/bash
# vm-debug-kernel.sh - build (once, cached) a debug kernel for the qemu
# guest and print the path of its bzImage: Debian's linux-source-6.1
# with KASAN (generic), lockdep (PROVE_LOCKING, which brings PROVE_RCU),
# DEBUG_ATOMIC_SLEEP and DEBUG_LIST, on a small configuration that has
# what the guest needs (tinyconfig + SMP, modules, devtmpfs, initramfs,
# serial console, tracepoints, perf events, CPU hotplug, pid namespaces,
# schedstats). Debian ships no such kernel; the first build took 41 min
# (make -j2, 2456 s) on this project's shared 2-core machine (load ~10). `make check-debug` runs the VM suite in it
# (tests/vm/vm.t fails on any WARNING/BUG/KASAN/lockdep line in dmesg).
# The source carries patches/0001-sched-direct-pebs-map-hook.patch: an
# unset static call is a NOP in __schedule(), so the default
# (tracepoint) module runs on a kernel that is otherwise Debian's, and
# the same kernel also builds and runs the module with HOOK=direct.
#
# Usage: scripts/vm-debug-kernel.sh [-j JOBS]
#
# The source is extracted (and patched) to
# $PEBS_BUILD/kernel/linux-source-6.1-pebs (kept), the build goes to
# $PEBS_BUILD/kernel/debug (kept: a rerun is incremental), its log to
# $PEBS_BUILD/kernel/debug.log; the time each step took is printed on
# stderr. Modules for it are built with KDIR=$PEBS_BUILD/kernel/debug.
# Env: PEBS_BUILD (default build), LINUX_SOURCE (default
# /usr/src/linux-source-6.1.tar.xz, package linux-source-6.1).
set -euo pipefail

me=vm-debug-kernel.sh
PEBS_SRC=${PEBS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
PEBS_BUILD=${PEBS_BUILD:-$PEBS_SRC/build}
tarball=${LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
jobs=$(nproc)
case ${1:-} in
-j) jobs=${2:?-j needs a number} ;;
-h|--help)
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
	exit 0 ;;
'') ;;
*) echo "$me: unknown argument '$1': see --help" >&2; exit 2 ;;
esac

mkdir -p "$PEBS_BUILD/kernel"
top=$(cd "$PEBS_BUILD/kernel" && pwd)
src=$top/linux-source-6.1-pebs
patch_file=$PEBS_SRC/patches/0001-sched-direct-pebs-map-hook.patch
out=$top/debug
log=$top/debug.log
image=$out/arch/x86/boot/bzImage
exec 9>"$top/.debug.lock"
flock 9

step() {	# step NAME CMD...: run, print how long it took
	local t0=$SECONDS
	"${@:2}" >>"$log" 2>&1 || {
		tail -n 25 "$log" >&2
		echo "$me: $1 failed (log: $log)" >&2
		exit 1
	}
	echo "$me: $1: $((SECONDS - t0)) s" >&2
}

if [ ! -f "$src/Makefile" ]; then
	[ -f "$tarball" ] ||
		{ echo "$me: $tarball missing: apt-get install linux-source-6.1" >&2; exit 1; }
	rm -rf "$top/linux-source-6.1"
	step "extract $tarball" tar -xJf "$tarball" -C "$top"
	(cd "$top/linux-source-6.1" && patch -s -p1 <"$patch_file") ||
		{ echo "$me: $patch_file does not apply" >&2; exit 1; }
	mv "$top/linux-source-6.1" "$src"
fi
# what the guest needs (SCHEDSTATS: /proc/<tid>/schedstat for 50-observe)
guest_opts=(
	-e 64BIT -e SMP --set-val NR_CPUS 128 -e PRINTK -e EARLY_PRINTK
	-e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e BLK_DEV_INITRD
	-e DEVTMPFS -e DEVTMPFS_MOUNT -e PROC_FS -e SYSFS -e MODULES
	-e MODULE_UNLOAD -e BINFMT_ELF -e BINFMT_SCRIPT -e TMPFS -e SHMEM
	-e FUTEX -e EPOLL -e SIGNALFD -e TIMERFD -e EVENTFD -e AIO
	-e POSIX_TIMERS -e MULTIUSER -e FILE_LOCKING -e PERF_EVENTS
	-e HIGH_RES_TIMERS -e NO_HZ_IDLE -e PCI -e ACPI -e RTC_CLASS
	-e UNIX -e NET -e HOTPLUG_CPU -e PRINTK_TIME -e BUG -e KALLSYMS
	-e FTRACE -e ENABLE_DEFAULT_TRACERS -e DEBUG_FS -e X86_TSC
	-e HYPERVISOR_GUEST -e PARAVIRT -e CPU_SUP_AMD -e CPU_SUP_INTEL
	-e NAMESPACES -e PID_NS -e USER_NS -e UTS_NS -e SCHEDSTATS
	-d MODULE_SIG -d MODVERSIONS -d RETPOLINE)
# the debugging
debug_opts=(
	-e DEBUG_KERNEL -e SLUB -e KASAN -e KASAN_GENERIC -e KASAN_OUTLINE
	-e PROVE_LOCKING -e PROVE_RCU -e DEBUG_ATOMIC_SLEEP -e DEBUG_LIST
	-e DEBUG_SPINLOCK -e DEBUG_MUTEXES -e LOCKDEP -e DEBUG_LOCKDEP
	-e STACKTRACE -d SLOB
	-e DETECT_HUNG_TASK -e SOFTLOCKUP_DETECTOR -e PANIC_ON_OOPS)
# a tree configured with other options is configured again (and rebuilt,
# incrementally)
opts="${guest_opts[*]} ${debug_opts[*]}"
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.pebs-opts" 2>/dev/null)" != "$opts" ]; then
	mkdir -p "$out"
	[ -f "$out/.config" ] || step tinyconfig make -C "$src" O="$out" tinyconfig
	"$src/scripts/config" --file "$out/.config" "${guest_opts[@]}" "${debug_opts[@]}"
	step olddefconfig make -C "$src" O="$out" olddefconfig
	missing=
	for c in KASAN PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP TRACEPOINTS \
		 PERF_EVENTS HOTPLUG_CPU MODULE_UNLOAD PID_NS SCHED_INFO; do
		grep -q "^CONFIG_$c=y" "$out/.config" || missing+=" $c"
	done
	if [ -n "$missing" ]; then
		mv "$out/.config" "$out/.config.rejected"
		echo "$me: olddefconfig dropped:$missing (see $out/.config.rejected)" >&2
		exit 1
	fi
	echo "$opts" >"$out/.pebs-opts"
fi
if [ ! -f "$image" ] || [ ! -f "$out/Module.symvers" ] ||
   [ "$out/.config" -nt "$image" ]; then
	step "make -j$jobs bzImage modules_prepare" \
		nice make -C "$src" O="$out" -j"$jobs" bzImage modules_prepare
	# external modules resolve the kernel's exports from Module.symvers
	cp "$out/vmlinux.symvers" "$out/Module.symvers"
fi
echo "$image"
