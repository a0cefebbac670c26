#!/bin/sh
# boot-guest.sh - the init (PID 1) of the qemu guest of packages.t, booted
# by scripts/deb-root-boot.sh from the same Debian root in which
# guest.sh ran (the packages installed with apt, plus linux-image-amd64,
# udev and passwd): Debian's kernel and initramfs mount that root from a
# virtio disk and run this script instead of systemd. It starts
# systemd-udevd, then prints TAP lines, each prefixed "PKG-BOOT ", for
# what the chroot could not show: DKMS builds the module for the guest's
# running kernel, modprobe loads it with the package's options, the
# shipped udev rule makes /dev/pebs_map root:pebs 0440, a non-root member
# of pebs maps the table and a non-member is refused, the module's own
# rule (CAP_PERFMON unless unprivileged=1), and modprobe -r. It ends with
# "PKG-BOOT END" and powers off. The release to check comes from the
# kernel command line (pebs.version=V). POSIX sh.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
n=0
say() { echo "PKG-BOOT $*"; }
ok() { n=$((n + 1)); say "ok $n - $1"; }
nok() { n=$((n + 1)); say "not ok $n - $1"; }
# show FILE...: the first lines as TAP comments
show() { cat "$@" 2>&1 | sed 's/^/PKG-BOOT # /' | head -12; }
# verdict NAME FILE... < the test's exit status in $?
verdict() {
	rc=$?
	name=$1
	shift
	if [ $rc = 0 ]; then ok "$name"; else nok "$name"; show "$@"; fi
}
end() {
	say "1..$n"
	say END
	sync
	echo o >/proc/sysrq-trigger
	sleep 30
}

mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mountpoint -q /run || mount -t tmpfs tmpfs /run
dmesg -n 1
T=/tmp/pkg-boot
rm -rf $T
mkdir -p $T
v=$(sed -n 's/.*pebs\.version=\([^ ]*\).*/\1/p' /proc/cmdline)
kver=$(uname -r)
say "# guest kernel $kver, $(nproc) CPUs, pebs-shim $v"

/lib/systemd/systemd-udevd --daemon >$T/udevd 2>&1 &&
	udevadm trigger --action=add >>$T/udevd 2>&1 &&
	udevadm settle -t 60 >>$T/udevd 2>&1
verdict "systemd-udevd runs, udevadm trigger and settle" $T/udevd

# DKMS: the module for the running kernel, rebuilt here from the
# installed sources (remove, then install builds it again)
dkms status pebs-map/$v -k "$kver" >$T/dkms0 2>&1
grep -q "pebs-map/$v, $kver, .*: installed" $T/dkms0
verdict "dkms status: pebs-map/$v installed for the guest's kernel $kver at package install" $T/dkms0
ko=/lib/modules/$kver/updates/dkms/pebs_map.ko
start=$(date +%s)
{ timeout 300 dkms remove pebs-map/$v -k "$kver" && [ ! -e $ko ] &&
  timeout 600 dkms install pebs-map/$v -k "$kver"; } >$T/rebuild 2>&1
rc=$?
secs=$(($(date +%s) - start))
dkms status pebs-map/$v -k "$kver" >$T/dkms1 2>&1
[ $rc = 0 ] && [ -f $ko ] && grep -q "pebs-map/$v, $kver, .*: installed" $T/dkms1
verdict "dkms remove, then install rebuilds pebs_map.ko for $kver in the guest (${secs} s)" \
	$T/rebuild $T/dkms1
modinfo -F vermagic pebs_map >$T/vermagic 2>&1
grep -q "^$kver " $T/vermagic
verdict "modinfo pebs_map: the rebuilt module's vermagic is the running kernel's" $T/vermagic

# modprobe with the package's /etc/modprobe.d/pebs_map.conf
# (unprivileged=1), the device node from the shipped udev rule
timeout 60 modprobe pebs_map >$T/modprobe 2>&1 && udevadm settle -t 30 >>$T/modprobe 2>&1
verdict "modprobe pebs_map" $T/modprobe
unpriv=$(cat /sys/module/pebs_map/parameters/unprivileged 2>/dev/null)
[ "$unpriv" = Y ]
verdict "the package's modprobe options load it with unprivileged=Y (got '$unpriv')" \
	/etc/modprobe.d/pebs_map.conf
node=$(stat -c '%U:%G %a %F' /dev/pebs_map 2>&1)
[ "$node" = "root:pebs 440 character special file" ]
verdict "udev: /dev/pebs_map is root:pebs 0440 (stat: $node)" /dev/null

# a member and a non-member of pebs, neither root
useradd -M -s /bin/sh -G pebs pebsuser >$T/users 2>&1 &&
	useradd -M -s /bin/sh otheruser >>$T/users 2>&1
verdict "useradd pebsuser (in group pebs) and otheruser (not)" $T/users
# as USER CAPS -- CMD...: run CMD as USER with USER's groups; CAPS
# (e.g. +perfmon) raised as ambient capabilities, or none if ''; 30 s
as() {
	u=$1 caps=$2
	shift 3
	timeout 30 setpriv --reuid "$u" --regid "$u" --init-groups \
		${caps:+--inh-caps "$caps" --ambient-caps "$caps"} -- "$@"
}
# mapped RC OUT: pebs-shim map exited 0, printed the header and a CPU
mapped() {
	[ "$1" = 0 ] && grep -q '^pebs_map ABI ' "$2" && grep -q '^CPU[0-9]*: ' "$2"
}
# refused RC OUT PATTERN: exit 1, exactly one line, matching PATTERN
refused() {
	[ "$1" = 1 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "$3" "$2"
}
gid=$(getent group pebs | cut -d: -f3)

as pebsuser '' -- pebs-shim map -n 1 -a >$T/member 2>&1
mapped $? $T/member
verdict "a non-root member of pebs maps the table (pebs-shim map -n 1)" $T/member
as otheruser '' -- pebs-shim map -n 1 >$T/other 2>&1
refused $? $T/other "^pebs-shim map: /dev/pebs_map: permission denied (mode 0440, owner uid 0, gid $gid): "
verdict "a non-member is refused: EACCES, one line naming mode and group" $T/other
as otheruser +perfmon -- pebs-shim map -n 1 >$T/other-cap 2>&1
refused $? $T/other-cap "permission denied (mode 0440"
verdict "CAP_PERFMON does not get a non-member past the file mode: EACCES" $T/other-cap
timeout 30 unshare --pid --fork --mount-proc pebs-shim map -n 1 >$T/ns 2>&1
refused $? $T/ns "^pebs-shim map: /dev/pebs_map: not allowed: "
verdict "root in a child pid namespace is refused (EPERM, one line)" $T/ns

timeout 60 modprobe -r pebs_map >$T/rmmod 2>&1 && udevadm settle -t 30 >>$T/rmmod 2>&1 &&
	[ ! -e /sys/module/pebs_map ] && [ ! -e /dev/pebs_map ]
verdict "modprobe -r pebs_map: the module and /dev/pebs_map are gone" $T/rmmod

# the module's default (the admin drops the package's option): group
# membership is not enough, the opener also needs CAP_PERFMON
timeout 60 modprobe pebs_map unprivileged=0 >$T/modprobe0 2>&1 &&
	udevadm settle -t 30 >>$T/modprobe0 2>&1 &&
	[ "$(cat /sys/module/pebs_map/parameters/unprivileged)" = N ]
verdict "modprobe pebs_map unprivileged=0 overrides the package's option" $T/modprobe0
as pebsuser '' -- pebs-shim map -n 1 >$T/member0 2>&1
refused $? $T/member0 "^pebs-shim map: /dev/pebs_map: not allowed: needs CAP_PERFMON"
verdict "unprivileged=0: a member without CAP_PERFMON is refused (EPERM, one line)" $T/member0
as pebsuser +perfmon -- pebs-shim map -n 1 -a >$T/member-cap 2>&1
mapped $? $T/member-cap
verdict "unprivileged=0: a member with CAP_PERFMON maps the table" $T/member-cap
timeout 30 pebs-shim map -n 1 -a >$T/root 2>&1
mapped $? $T/root
verdict "unprivileged=0: root maps the table" $T/root
timeout 60 modprobe -r pebs_map >$T/rmmod0 2>&1 && [ ! -e /sys/module/pebs_map ]
verdict "modprobe -r pebs_map again" $T/rmmod0
end
