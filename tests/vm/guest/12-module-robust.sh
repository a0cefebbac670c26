#!/bin/sh
# 12-module-robust - who may open the device (file mode, CAP_PERFMON,
# unprivileged=, pid namespaces), refused mmaps/mprotect/ioctl, rmmod
# pinned by an open
# file or a mapping, bad parameters, the mknod fallback, 50
# load/check/unload cycles, concurrent readers against churning threads.
name=12-module-robust
. /pebs/guest-lib.sh
loaded() {
	grep -q '^pebs_map ' /proc/modules
}
run() {	# run module-test, keep its last line in $out
	out=$(module-test "$@" | tail -n 1)
	echo "module-test $*: $out"
	case $out in
	ok*) ;;
	*) fail "module-test $*: ${out#FAIL }" ;;
	esac
}

# refused mappings; the default mode
pebs-map-load || fail "pebs-map-load failed"
[ "$(stat -c %a /dev/pebs_map)" = 400 ] ||
	fail "/dev/pebs_map mode $(stat -c %a /dev/pebs_map), want 400"
run mmap
mmap=${out#ok }
# who may open it: root; another user only by file mode and, without
# unprivileged=1, CAP_PERFMON; never a reader in another pid namespace
run access EACCES
access_default=${out#ok }
pebs-map-unload || fail "pebs-map-unload"
pebs-map-load mode=0444 || fail "pebs-map-load mode=0444"
run access EPERM
pebs-map-unload || fail "pebs-map-unload"
pebs-map-load mode=0444 unprivileged=1 || fail "pebs-map-load unprivileged=1"
run access ok
access_unpriv=${out#ok }
pebs-map-unload || fail "pebs-map-unload"
pebs-map-load || fail "pebs-map-load"

# an open file, then a mapping alone, pin the module (module-test unloads)
run pin
loaded && fail "pebs_map still loaded after module-test pin"

# bad parameters are refused with a message, nothing stays loaded
for p in history=3 history=0 history=1 history=32 history=12288 \
	 history=1073741824 history=33554432 mode=01000; do
	insmod /pebs/pebs_map.ko "$p" 2>/dev/null && fail "insmod $p succeeded"
	loaded && fail "pebs_map loaded after insmod $p"
done
dmesg | grep -q 'history=3: must be a power of two from 64 to 16777216' ||
	fail "no clear message for history=3 in dmesg"
dmesg | grep -q 'history=1: must be a power of two from 64' ||
	fail "no clear message for history=1 in dmesg"

# no devtmpfs under /dev: pebs-map-load makes the node with mknod
mount -t tmpfs tmpfs /dev || fail "cannot mount a tmpfs on /dev"
pebs-map-load mode=0440 || { umount /dev; fail "pebs-map-load (mknod) failed"; }
node="$(stat -c '%a %F' /dev/pebs_map)"
run quick
pebs-map-unload || { umount /dev; fail "pebs-map-unload (mknod) failed"; }
[ -e /dev/pebs_map ] && { umount /dev; fail "mknod'ed node left behind"; }
umount /dev
[ "$node" = "440 character special file" ] ||
	fail "mknod fallback made '$node', want '440 character special file'"

# 50 load/check/unload cycles, history from 64 to 2^14 entries
t0=$(cut -d' ' -f1 /proc/uptime)
i=0
while [ $i -lt 50 ]; do
	h=$((64 << (i % 9)))
	pebs-map-load history=$h || fail "cycle $i: pebs-map-load history=$h"
	out=$(module-test quick $h | tail -n 1)
	case $out in
	ok*) ;;
	*) fail "cycle $i: ${out#FAIL }" ;;
	esac
	pebs-map-unload || fail "cycle $i: pebs-map-unload"
	i=$((i + 1))
done
t1=$(cut -d' ' -f1 /proc/uptime)
cycles=$(echo "$t0 $t1" | awk '{ printf "%.0f", ($2 - $1) * 1000 / 50 }')

# concurrent readers: a tiny history (constant overrun), then the default
pebs-map-load history=64 || fail "pebs-map-load history=64"
run readers 600
small=${out#ok }
pebs-map-unload || fail "pebs-map-unload"
pebs-map-load || fail "pebs-map-load"
run readers 400
big=${out#ok }
pebs-map-unload || fail "pebs-map-unload"

echo "PEBS-VM PASS $name access: mode 0400 $access_default, 0444 unprivileged=1 $access_unpriv; mmap: $mmap; cycles=50 (${cycles} ms each); readers(history=64): $small; readers(default): $big"
