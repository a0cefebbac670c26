#!/bin/bash
# pkg-dkms.t - the module's packaging: dkms.conf names the Makefile's
# VERSION and the module; `make dkms-install DESTDIR=...` writes the DKMS
# source tree (dkms.conf, the module's sources and include/pebs_map.h,
# nothing built), the udev rule and the modprobe.d options, and `make
# dkms-uninstall` removes them all; dkms builds that tree, in scratch
# trees, for the newest installed Debian kernel headers (the qemu guest's
# kernel) into a pebs_map.ko of that kernel; the udev rule names the
# module's misc device and gives it root:pebs 0440.
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
T=$(mktemp -d /tmp/pkg-dkms-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"
D=$T/root

echo "1..6"

version=$(sed -n 's/^VERSION[[:space:]]*:*=[[:space:]]*//p' "$S/Makefile")
check "dkms.conf: pebs-map $version, module pebs_map built in kmod/" \
	bash -c "grep -qx 'PACKAGE_NAME=\"pebs-map\"' '$S/dkms.conf' &&
		 grep -qx 'PACKAGE_VERSION=\"$version\"' '$S/dkms.conf' &&
		 grep -qx 'BUILT_MODULE_NAME\[0\]=\"pebs_map\"' '$S/dkms.conf' &&
		 grep -qx 'BUILT_MODULE_LOCATION\[0\]=\"kmod/\"' '$S/dkms.conf'"

src=/usr/src/pebs-map-$version
make -s -C "$S" B="$B" dkms-install DESTDIR="$D" >"$T/inst" 2>&1
(cd "$D" && find . ! -type d | sed 's|^\./|/|' | sort) >"$T/files"
{
	echo /etc/modprobe.d/pebs_map.conf
	echo /etc/udev/rules.d/99-pebs-map.rules
	echo "$src/dkms.conf"
	echo "$src/include/pebs_map.h"
	(cd "$S" && ls kmod/Kbuild kmod/*.[ch] | grep -v '\.mod\.c$' |
		sed "s|^|$src/|")
} | sort >"$T/want"
if diff "$T/want" "$T/files" >"$T/diff"; then
	ok "make dkms-install DESTDIR=: the source tree, the rule and the options, nothing built"
else
	nok "make dkms-install DESTDIR=: the source tree, the rule and the options, nothing built"
	diag "$T/inst" "$T/diff"
fi

rule=$D/etc/udev/rules.d/99-pebs-map.rules
name=$(sed -n 's/^#define PEBS_MAP_NAME[[:space:]]*"\(.*\)"/\1/p' "$S/include/pebs_map.h")
if grep -q 'misc_register' "$S"/kmod/*.c &&
   grep -qx "KERNEL==\"$name\", SUBSYSTEM==\"misc\", GROUP=\"pebs\", MODE=\"0440\"" "$rule" &&
   grep -qx 'options pebs_map unprivileged=1' "$D/etc/modprobe.d/pebs_map.conf"; then
	ok "the rule makes misc device $name root:pebs 0440; modprobe.d sets unprivileged=1"
else
	nok "the rule makes misc device $name root:pebs 0440; modprobe.d sets unprivileged=1"
	diag "$rule"
fi

# dkms in scratch trees: nothing of the system's dkms state is touched
kdir=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
kver=${kdir#/usr/src/linux-headers-}
if ! command -v dkms >/dev/null; then
	skip_n 2 "dkms is not installed (apt-get install dkms)"
elif [ -z "$kdir" ] || [ ! -d "/lib/modules/$kver/build" ]; then
	skip_n 2 "no Debian kernel headers (apt-get install linux-headers-amd64)"
else
	mkdir "$T/dkms"
	if dkms build -m pebs-map -v "$version" -k "$kver" \
		--sourcetree "$D/usr/src" --dkmstree "$T/dkms" >"$T/build" 2>&1; then
		ok "dkms build pebs-map/$version -k $kver"
	else
		nok "dkms build pebs-map/$version -k $kver"
		tail -5 "$T/build" | diag /dev/stdin
	fi
	ko=$T/dkms/pebs-map/$version/$kver/$(uname -m)/module/pebs_map.ko
	[ -f "$ko" ] || ko=$(ls "$ko".* 2>/dev/null | head -1)
	vm=$( [ -n "$ko" ] && modinfo -F vermagic "$ko" 2>/dev/null)
	check "dkms made pebs_map.ko for $kver (vermagic $vm)" \
		bash -c "[[ '$vm' == '$kver '* ]]"
fi

make -s -C "$S" B="$B" dkms-uninstall DESTDIR="$D" >"$T/un" 2>&1
find "$D" ! -type d >"$T/left"
[ -d "$D/usr/src/pebs-map-$version" ] && echo "$src is left" >>"$T/left"
empty "make dkms-uninstall DESTDIR=: removes every file, and the source tree" \
	"$T/left"
