#!/bin/bash
# packages.t - the Debian packages of `make deb` installed in a fresh
# Debian root (mmdebstrap, the host's apt sources and suite) with apt,
# which brings their dependencies; there tests/packages/guest.sh builds
# an example with pkg-config, runs pebs-shim --version and a short
# cpu-clock record and report, a record --objects=all (the packaged
# interposer found), and checks the pages, the DKMS source
# tree, the module DKMS built at install for the root's kernel headers
# (linux-headers-amd64, installed first) and modprobe's view of it, the
# pebs group and the udev rule. Then the same root, which also got
# linux-image-amd64 (the headers' version), udev, passwd and mount, boots in
# qemu (scripts/deb-root-boot.sh, TCG) with tests/packages/boot-guest.sh
# as init: DKMS rebuilds the module for the running kernel, modprobe, the
# udev rule's root:pebs 0440 node, a pebs member maps the table and a
# non-member is refused, the module's CAP_PERFMON rule, modprobe -r.
# Heavy (it downloads a base system; with make deb 6 to 8.5 min on 2
# busy cores, the boot ~2.5 min of it, DKMS's rebuild under TCG ~90 s):
# run by `make check-packages`, not by make check.
# Environment: DEB_DIR (the .deb files), VERSION, PEBS_SRC, PEBS_BUILD
# (its tests/probe says whether qemu is there).
set -u
S=${PEBS_SRC:?} DEB_DIR=${DEB_DIR:?} VERSION=${VERSION:?}
T=$(mktemp -d /tmp/packages-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (mmdebstrap and chroot)"
command -v mmdebstrap >/dev/null ||
	skip_all "mmdebstrap is not installed (apt-get install mmdebstrap)"
ls "$DEB_DIR"/*.deb >/dev/null 2>&1 || skip_all "no packages in $DEB_DIR: make deb"
# this host's Debian release (os-release read in a subshell: it sets
# VERSION too)
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
[ -n "$suite" ] || skip_all "no VERSION_CODENAME in /etc/os-release"
sources=$(ls /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list \
	2>/dev/null | head -1)

# for the boot: the kernel (its initramfs-tools initrd mounts a virtio
# disk), systemd-udevd, useradd, mount (setpriv, unshare: util-linux)
if need qemu; then
	boot_pkgs="linux-image-amd64 initramfs-tools udev passwd mount"
else
	boot_pkgs= no_boot=$why
fi

mkdir "$T/debs" "$T/root"
cp "$DEB_DIR"/*.deb "$T/debs/"
rm -f "$T"/debs/*-dbgsym_*.deb
start=$(date +%s)
# the hooks run with /proc, /sys and /dev mounted in the root
mmdebstrap --variant=apt --include=ca-certificates \
	--customize-hook="mkdir -p \"\$1/tmp/debs\" \"\$1/tmp/examples\" &&
		cp $T/debs/*.deb \"\$1/tmp/debs/\" &&
		cp $S/examples/*.c \"\$1/tmp/examples/\" &&
		cp $S/tests/packages/guest.sh \"\$1/tmp/\" &&
		install -m 0755 $S/tests/packages/boot-guest.sh \"\$1/usr/local/sbin/\"" \
	--customize-hook="chroot \"\$1\" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends linux-headers-amd64 $boot_pkgs pkg-config gcc libc6-dev' >$T/apt0.log 2>&1; echo \$? >$T/apt0.rc" \
	--customize-hook="chroot \"\$1\" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/debs/*.deb' >$T/apt.log 2>&1; echo \$? >$T/apt.rc" \
	--customize-hook="chroot \"\$1\" sh /tmp/guest.sh $VERSION >$T/guest.tap 2>&1 || true" \
	"$suite" "$T/root" ${sources:+"$sources"} >"$T/mmdebstrap.log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
echo "# mmdebstrap ($suite) with the packages installed and tested: ${secs} s"

if [ $rc != 0 ]; then
	echo "1..1"
	nok "mmdebstrap $suite (exit $rc)"
	tail -15 "$T/mmdebstrap.log" | diag /dev/stdin
	exit 0
fi
# the boot, from the same root (mmdebstrap emptied its /tmp): its TAP
# lines are the console's "PKG-BOOT " lines
if [ -z "$boot_pkgs" ]; then
	boot=skip
elif [ "$(cat "$T/apt0.rc")" != 0 ] || [ "$(cat "$T/apt.rc")" != 0 ]; then
	boot=skip no_boot="the packages did not install"
else
	start=$(date +%s)
	: >"$T/boot.log"
	"$S/scripts/deb-root-boot.sh" --init /usr/local/sbin/boot-guest.sh \
		--append "pebs.version=$VERSION" --timeout 1200 \
		"$T/root" "$T/boot.log" >"$T/boot.err" 2>&1
	boot=$?
	boot_secs=$(($(date +%s) - start))
	echo "# boot of the root in qemu (TCG), tests and poweroff: ${boot_secs} s"
	tr -d '\r' <"$T/boot.log" | sed -n 's/^PKG-BOOT //p' >"$T/boot.tap"
fi
rm -rf "$T/root"

# renumber FILE: its TAP lines and comments, numbered after ours
renumber() {
	local l
	while IFS= read -r l; do
		case $l in
		'#'*) echo "$l" ;;
		'not ok '*) tap_n=$((tap_n + 1)); echo "not ok $tap_n ${l#not ok [0-9]* }" ;;
		'ok '*) tap_n=$((tap_n + 1)); echo "ok $tap_n ${l#ok [0-9]* }" ;;
		esac
	done < <(grep -E '^(not )?ok |^#' "$1")
}
nguest=$(grep -cE '^(not )?ok ' "$T/guest.tap")
nboot=0
[ "$boot" = skip ] || nboot=$(grep -cE '^(not )?ok ' "$T/boot.tap")
echo "1..$((4 + nguest + nboot))"
ok "mmdebstrap $suite: a fresh root in ${secs} s"
if [ "$(cat "$T/apt0.rc")" = 0 ]; then
	ok "apt-get install linux-headers-amd64 $boot_pkgs gcc pkg-config (for dkms, the boot and the examples)"
else
	nok "apt-get install linux-headers-amd64 $boot_pkgs gcc pkg-config (for dkms, the boot and the examples)"
	tail -15 "$T/apt0.log" | diag /dev/stdin
fi
if [ "$(cat "$T/apt.rc")" = 0 ]; then
	ok "apt-get install the packages ($(ls "$T/debs" | tr '\n' ' '))"
else
	nok "apt-get install the packages"
	tail -15 "$T/apt.log" | diag /dev/stdin
fi
renumber "$T/guest.tap"
if [ "$boot" = skip ]; then
	skip "booting the root in qemu: $no_boot"
	exit 0
fi
gplan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$T/boot.tap")
if [ "$boot" = 0 ] && [ "$gplan" = "$nboot" ]; then
	ok "the root booted in qemu (Debian's kernel and initrd, virtio disk) and ran its $nboot tests"
else
	nok "the root booted in qemu and ran its tests (exit $boot, $nboot of ${gplan:-?} TAP lines)"
	{ cat "$T/boot.err"; tr -d '\r' <"$T/boot.log" | grep -v '^PKG-BOOT ' | tail -15; } |
		diag /dev/stdin
fi
renumber "$T/boot.tap"
