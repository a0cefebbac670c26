#!/bin/bash
# vm-direct.sh - try the direct hook for real: build a small kernel from
# linux-source-6.1 with patches/0001-sched-direct-pebs-map-hook.patch,
# build pebs_map.ko with HOOK=direct against it, and run guest scripts in
# qemu with scripts/vm-run.sh.
#
# Usage: patches/vm-direct.sh [-w WORKDIR] [-j JOBS] [-k KBUILD] [--only REGEX]
#   -w WORKDIR    where the source, the kernel build and the module go
#                 (default /tmp/pebs-direct; kept, so a rerun is incremental)
#   -j JOBS       make jobs (default: nproc)
#   -k KBUILD     use this built, patched kernel tree instead (e.g. the
#                 debug kernel of scripts/vm-debug-kernel.sh, which
#                 carries the patch): only the module is built
#   --only REGEX  guest scripts to run (default '^20', pebs-shim map)
#
# The kernel is tinyconfig plus what the guest needs (SMP, modules,
# devtmpfs, initramfs, serial console, ...): about 20 minutes on 2 busy
# cores the first time. Env: PEBS_BUILD (the build dir with vm/ binaries,
# default build), PEBS_SRC. Exit status: that of vm-run.sh, or 1 if a
# step fails; the verdicts are PEBS-VM PASS/FAIL lines in the log it
# prints. Guest scripts that insist on the tracepoint hook fail here.
set -euo pipefail

me=vm-direct.sh
PEBS_SRC=${PEBS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
PEBS_BUILD=${PEBS_BUILD:-$PEBS_SRC/build}
export PEBS_SRC PEBS_BUILD
work=/tmp/pebs-direct
jobs=$(nproc)
kbuild=
only='^20'
tarball=/usr/src/linux-source-6.1.tar.xz
patch_file=$PEBS_SRC/patches/0001-sched-direct-pebs-map-hook.patch

while [ $# -gt 0 ]; do
	case $1 in
	-w) work=$2; shift ;;
	-j) jobs=$2; shift ;;
	-k) kbuild=$(cd "$2" && pwd); shift ;;
	--only) only=$2; shift ;;
	-h|--help)
		sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
		exit 0 ;;
	*) echo "$me: unknown argument '$1': see --help" >&2; exit 2 ;;
	esac
	shift
done
[ -f "$tarball" ] || { echo "$me: $tarball missing: apt-get install linux-source-6.1" >&2; exit 1; }

src=$work/linux-source-6.1
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ -n "$kbuild" ]; then
	[ -f "$kbuild/arch/x86/boot/bzImage" ] && [ -f "$kbuild/Module.symvers" ] ||
		{ echo "$me: $kbuild: no bzImage or Module.symvers: not a built kernel tree" >&2; exit 1; }
else
	kbuild=$work/build
	if [ ! -f "$src/Makefile" ]; then
		echo "$me: extracting $tarball"
		tar -xJf "$tarball" -C "$work"
		(cd "$src" && patch -p1 <"$patch_file")
	fi
	if [ ! -f "$kbuild/.config" ]; then
		make -C "$src" O="$kbuild" tinyconfig >/dev/null
		"$src/scripts/config" --file "$kbuild/.config" \
			-e 64BIT -e SMP --set-val NR_CPUS 128 -e PRINTK -e EARLY_PRINTK \
			-e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e BLK_DEV_INITRD \
			-e DEVTMPFS -e DEVTMPFS_MOUNT -e PROC_FS -e SYSFS -e MODULES \
			-e MODULE_UNLOAD -e BINFMT_ELF -e BINFMT_SCRIPT -e TMPFS -e SHMEM \
			-e FUTEX -e EPOLL -e SIGNALFD -e TIMERFD -e EVENTFD -e AIO \
			-e POSIX_TIMERS -e MULTIUSER -e FILE_LOCKING -e PERF_EVENTS \
			-e HIGH_RES_TIMERS -e NO_HZ_IDLE -e PCI -e ACPI -e RTC_CLASS \
			-e UNIX -e NET -e HOTPLUG_CPU -e PRINTK_TIME -e BUG -e KALLSYMS \
			-e TRACEPOINTS -e FTRACE -e DEBUG_FS -e X86_TSC \
			-e HYPERVISOR_GUEST -e PARAVIRT -e CPU_SUP_AMD -e CPU_SUP_INTEL \
			-d MODULE_SIG -d MODVERSIONS -d RETPOLINE
		make -C "$src" O="$kbuild" olddefconfig >/dev/null
	fi
	echo "$me: building the kernel in $kbuild"
	make -C "$src" O="$kbuild" -j"$jobs" bzImage modules_prepare >"$work/kernel.log" 2>&1 ||
		{ tail -n 20 "$work/kernel.log" >&2; echo "$me: kernel build failed: $work/kernel.log" >&2; exit 1; }
	# external modules resolve the kernel's exports from Module.symvers
	cp "$kbuild/vmlinux.symvers" "$kbuild/Module.symvers"
fi
grep -q '	pebs_sched_switch_hook_set	vmlinux	EXPORT_SYMBOL_GPL' "$kbuild/Module.symvers" ||
	{ echo "$me: the kernel does not export pebs_sched_switch_hook_set: is the patch applied?" >&2; exit 1; }

echo "$me: building pebs_map.ko with HOOK=direct"
rm -rf "$work/m"
mkdir -p "$work/m/kmod"
cp -r "$PEBS_SRC/include" "$work/m/"
cp "$PEBS_SRC"/kmod/*.c "$PEBS_SRC"/kmod/*.h "$PEBS_SRC/kmod/Kbuild" "$work/m/kmod/"
make -C "$kbuild" M="$work/m/kmod" W=1 HOOK=direct modules >"$work/kmod.log" 2>&1 ||
	{ cat "$work/kmod.log" >&2; echo "$me: module build failed" >&2; exit 1; }
if grep -E 'warning:|WARNING' "$work/kmod.log" >&2; then
	echo "$me: the module build warns (above)" >&2
	exit 1
fi

exec "$PEBS_SRC/scripts/vm-run.sh" --kernel "$kbuild/arch/x86/boot/bzImage" \
	--kmod "$work/m/kmod/pebs_map.ko" --only "$only"
