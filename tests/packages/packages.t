#!/bin/bash
# packages.t - the Debian packages of `make deb` installed in a fresh
# Debian root (mmdebstrap, the host's apt sources and suite) with apt,
# which brings their dependencies; there tests/packages/guest.sh builds
# an example with pkg-config, runs pebs-shim --version and a short
# cpu-clock record and report, and checks the pages, the DKMS source
# tree, the module DKMS built at install for the root's kernel headers
# (linux-headers-amd64, installed first) and modprobe's view of it, the
# pebs group and the udev rule. Heavy (it downloads a base system): run
# by `make check-packages`, not by make check. Loading the module and the
# group's access to /dev/pebs_map need a kernel to load it into (qemu).
# Environment: DEB_DIR (the .deb files), VERSION, PEBS_SRC.
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

mkdir "$T/debs" "$T/root"
cp "$DEB_DIR"/*.deb "$T/debs/"
rm -f "$T"/debs/*-dbgsym_*.deb
start=$(date +%s)
# the hooks run with /proc, /sys and /dev mounted in the root
mmdebstrap --variant=apt --include=ca-certificates \
	--customize-hook="mkdir -p \"\$1/tmp/debs\" \"\$1/tmp/examples\" &&
		cp $T/debs/*.deb \"\$1/tmp/debs/\" &&
		cp $S/examples/*.c \"\$1/tmp/examples/\" &&
		cp $S/tests/packages/guest.sh \"\$1/tmp/\"" \
	--customize-hook="chroot \"\$1\" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends linux-headers-amd64 pkg-config gcc libc6-dev' >$T/apt0.log 2>&1; echo \$? >$T/apt0.rc" \
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
nguest=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$T/guest.tap")
echo "1..$((3 + ${nguest:-0}))"
ok "mmdebstrap $suite: a fresh root in ${secs} s"
if [ "$(cat "$T/apt0.rc")" = 0 ]; then
	ok "apt-get install linux-headers-amd64 gcc pkg-config (for dkms and the examples)"
else
	nok "apt-get install linux-headers-amd64 gcc pkg-config (for dkms and the examples)"
	tail -15 "$T/apt0.log" | diag /dev/stdin
fi
if [ "$(cat "$T/apt.rc")" = 0 ]; then
	ok "apt-get install the packages ($(ls "$T/debs" | tr '\n' ' '))"
else
	nok "apt-get install the packages"
	tail -15 "$T/apt.log" | diag /dev/stdin
fi
# the guest's TAP lines, renumbered after ours
grep -E '^(not )?ok |^#' "$T/guest.tap" | while IFS= read -r l; do
	case $l in
	'#'*) echo "$l" ;;
	'not ok '*) tap_n=$((tap_n + 1)); echo "not ok $tap_n ${l#not ok [0-9]* }" ;;
	*) tap_n=$((tap_n + 1)); echo "ok $tap_n ${l#ok [0-9]* }" ;;
	esac
done
