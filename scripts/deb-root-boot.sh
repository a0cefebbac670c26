#!/bin/sh
# deb-root-boot.sh - boot a Debian root directory in qemu (TCG) as the
# guest's whole system, and keep its console.
#
# Usage: scripts/deb-root-boot.sh [options] ROOT LOG
#
# ROOT is a Debian root directory (e.g. made by mmdebstrap) holding a
# kernel (linux-image-amd64: boot/vmlinuz-VER and its initramfs-tools
# boot/initrd.img-VER, the newest is taken). It is copied into a sparse
# ext4 image with `mke2fs -t ext4 -d ROOT` (no loop mount), and qemu boots
# that kernel and initrd with the image as a virtio disk:
#   root=/dev/vda rw console=ttyS0 init=INIT panic=-1 quiet
# The console goes to LOG. The image is deleted when qemu exits.
#
# Options:
#   --init PATH       the init to run in the guest, a path inside ROOT
#                     (default /sbin/init)
#   --append ARGS     more kernel command line (repeatable)
#   --end STRING      the console line the guest prints when it is done
#                     (default "PKG-BOOT END")
#   --timeout SECS    host-side limit for the boot (default 900)
#   --mem MB          guest memory (default 1536)
#   --smp N           guest CPUs (default 2)
#   --image FILE      where to make the disk image (default: a new file
#                     next to LOG); deleted at exit
#   -h, --help        this text
#
# qemu runs with `-accel tcg,thread=single` (never kvm here; one host
# thread for every vCPU: see NOTES on multi-threaded TCG and live
# patching) and -no-reboot; qemu exits 0 on a panic too, so the verdict
# is the END line. Exit status: 0 when LOG holds the END line, 1 when
# not (timeout, panic, boot failure: see LOG), 2 usage.
set -eu

me=deb-root-boot.sh
usage() {
	sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'
}
die() {
	echo "$me: $*" >&2
	exit 1
}
need_arg() {
	[ "$#" -ge 2 ] || { echo "$me: $1 needs an argument: see --help" >&2; exit 2; }
}

init=/sbin/init
append=
end="PKG-BOOT END"
timeout=900
mem=1536
smp=2
image=
while [ $# -gt 0 ]; do
	case $1 in
	--init) need_arg "$@"; init=$2; shift 2 ;;
	--append) need_arg "$@"; append="$append $2"; shift 2 ;;
	--end) need_arg "$@"; end=$2; shift 2 ;;
	--timeout) need_arg "$@"; timeout=$2; shift 2 ;;
	--mem) need_arg "$@"; mem=$2; shift 2 ;;
	--smp) need_arg "$@"; smp=$2; shift 2 ;;
	--image) need_arg "$@"; image=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "$me: unknown option '$1': see --help" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# = 2 ] || { echo "$me: give ROOT and LOG: see --help" >&2; exit 2; }
root=$1 log=$2
for n in "$timeout" "$mem" "$smp"; do
	case $n in
	''|*[!0-9]*|0) echo "$me: '$n' is not a positive number: see --help" >&2
		exit 2 ;;
	esac
done

[ -d "$root" ] || die "$root is not a directory: give a Debian root"
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
command -v mke2fs >/dev/null || die "mke2fs is not installed (apt-get install e2fsprogs)"
vmlinuz=$(ls "$root"/boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$vmlinuz" ] ||
	die "no $root/boot/vmlinuz-*: install linux-image-amd64 in the root"
ver=${vmlinuz##*/vmlinuz-}
initrd=$root/boot/initrd.img-$ver
[ -s "$initrd" ] ||
	die "no $initrd: install initramfs-tools in the root before the kernel"
[ -x "$root$init" ] || die "$root$init is not an executable init"

[ -n "$image" ] || image=$(mktemp "$(dirname "$log")/deb-root.XXXXXX.img")
trap 'rm -f "$image"' EXIT
trap 'exit 1' HUP INT TERM
# the root's size, plus room for a module build and the logs
kib=$(du -sk "$root" | cut -f1)
mke2fs -q -F -t ext4 -L debroot -d "$root" "$image" "$((kib * 5 / 4 + 524288))k" ||
	die "mke2fs -d $root failed"

: >"$log"
timeout --kill-after=10 "$timeout" qemu-system-x86_64 -accel tcg,thread=single \
	-m "$mem" -smp "$smp" -display none -no-reboot -monitor none \
	-serial "file:$log" \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-drive "file=$image,if=virtio,format=raw" \
	-append "root=/dev/vda rw console=ttyS0 init=$init panic=-1 quiet$append" \
	</dev/null >/dev/null 2>&1 || true
tr -d '\r' <"$log" | grep -qx "$end"
