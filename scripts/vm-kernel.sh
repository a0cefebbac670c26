#!/bin/sh
# vm-kernel.sh - make the qemu guest kernel available and print its path.
#
# The guest must run the kernel the module is built against, so the
# version comes from the newest /usr/src/linux-headers-*-amd64 (the same
# KDIR the Makefile picks), not from `uname -r`. The Debian package
# linux-image-<ver> is fetched with `apt-get download` (no install, no
# initramfs generation) into a cache directory and boot/vmlinuz-<ver> is
# extracted from it with dpkg-deb -x.
#
# Usage: scripts/vm-kernel.sh [--help]
# Env:   PEBS_VM_CACHE  cache directory (default $PEBS_BUILD/vm-cache,
#                       or build/vm-cache in the source tree)
#        KDIR           kernel headers to match (default: newest
#                       /usr/src/linux-headers-*-amd64)
set -eu

me=vm-kernel.sh
die() {
	echo "$me: $*" >&2
	exit 1
}

case ${1:-} in
-h|--help)
	sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'
	exit 0 ;;
'') ;;
*)
	echo "$me: unknown argument '$1': see --help" >&2
	exit 2 ;;
esac

src=$(cd "$(dirname "$0")/.." && pwd)
cache=${PEBS_VM_CACHE:-${PEBS_BUILD:-$src/build}/vm-cache}

if [ -z "${KDIR:-}" ]; then
	KDIR=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null |
	       sort -V | tail -n 1)
fi
[ -n "$KDIR" ] ||
	die "no /usr/src/linux-headers-*-amd64: install linux-headers-amd64"
ver=${KDIR##*/linux-headers-}
vmlinuz=$cache/boot/vmlinuz-$ver
if [ -s "$vmlinuz" ]; then
	echo "$vmlinuz"
	exit 0
fi

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
vmlinuz=$cache/boot/vmlinuz-$ver
# Several test runs may ask at once: one downloads, the others wait.
exec 9>"$cache/.lock"
flock 9
if [ ! -s "$vmlinuz" ]; then
	pkg=linux-image-$ver
	deb=$(ls "$cache"/"$pkg"_*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		if ! (cd "$cache" && apt-get download -q "$pkg" >&2); then
			echo "$me: apt-get download $pkg failed;" \
			     "retrying after apt-get update" >&2
			apt-get update -q >&2 ||
				die "apt-get update failed: check the network"
			(cd "$cache" && apt-get download -q "$pkg" >&2) ||
				die "cannot download $pkg: is it still in the archive?"
		fi
		deb=$(ls "$cache"/"$pkg"_*.deb | head -n 1)
	fi
	tmp=$(mktemp -d "$cache/extract.XXXXXX")
	dpkg-deb -x "$deb" "$tmp" ||
		{ rm -rf "$tmp"; die "dpkg-deb -x $deb failed"; }
	[ -s "$tmp/boot/vmlinuz-$ver" ] ||
		{ rm -rf "$tmp"; die "$deb holds no boot/vmlinuz-$ver"; }
	mkdir -p "$cache/boot"
	mv "$tmp/boot/vmlinuz-$ver" "$vmlinuz"
	rm -rf "$tmp" "$deb"
fi
echo "$vmlinuz"
