#!/bin/sh
# 15-cpu-hotplug - CPUs go offline and come back while readers read and
# threads switch, the module loaded (tests/vm/map-stress.c hotplug).
# What a reader sees of an offline CPU: its slot frozen on the idle task
# (tgid 0, pid 0, comm swapper/N: the last switch a dying CPU makes), its
# counters and history standing still; once the CPU is back, switches
# and history go on from where they stopped. Needs 2 or more CPUs.
# Kernel command line: pebs_hotplug_ms=MS (default 4000),
# pebs_hotplug_rounds=N (default 2; `make check-vm-stress`: 12).
name=15-cpu-hotplug
. /pebs/guest-lib.sh
ms=$(param pebs_hotplug_ms 4000)
rounds=$(param pebs_hotplug_rounds 2)

[ -w /sys/devices/system/cpu/cpu1/online ] ||
	fail "no /sys/devices/system/cpu/cpu1/online: boot 2 or more CPUs"
pebs-map-load || fail "pebs-map-load failed"
out=$(map-stress hotplug "$ms" "$rounds" | tail -n 1)
echo "map-stress hotplug $ms $rounds: $out"
echo "online after: $(cat /sys/devices/system/cpu/online)"
for f in /sys/devices/system/cpu/cpu*/online; do
	[ "$(cat "$f")" = 1 ] || echo 1 >"$f"
done
pebs-map-unload || fail "pebs-map-unload failed"
case $out in
ok\ *) echo "PEBS-VM PASS $name ${out#ok }" ;;
*) fail "${out#FAIL }" ;;
esac
