#!/bin/sh
# 50-observe - the observer on CPU 1 watches CPU 0, where two pinned
# threads alternate (A runs 70 ms, B 30 ms); each thread's residency as
# `pebs-shim observe` reports it must be within 3 percentage points of
# /proc/<tid>/schedstat over the same window (tests/vm/obs-alternate.c,
# which also reads the binary output back). Checks first that the guest
# CPU has rdtscp (qemu -cpu max), that `observe` without the module
# says in one line to load it, a short run with a per-CPU counter and
# raw CSV output, that the default output of a 20 s run is the summary
# alone (under 1 MiB: the observer's output is bounded by design,
# whatever the duration; 60 s, until 2026-11-28, took a minute of make
# check for the same check), and
# that --raw on a full 1 MiB filesystem ends the run with one ENOSPC line,
# exit 1, and the summary still printed.
#
# Measured under TCG on this 2-core host (busy, load 6-9): the observer's
# vCPU runs only part of the time, so ~97 % of the observed time lies in
# gaps over 100 us between observations, and with the default 1 %
# tolerance 40-47 % of the observations are kept (50 % tolerance keeps
# 99 %); kept and unfiltered shares differ by under 1 point, so the
# default tolerance stays. Slices of 70/30 ms (not 7/3) and 20 s keep
# the error of gap-level sampling small: 7/3 ms slices over 3-5 s gave
# 4-10 point errors.
name=50-observe

if ! grep -qw rdtscp /proc/cpuinfo; then
	echo "PEBS-VM FAIL $name no rdtscp in the guest's /proc/cpuinfo flags (qemu needs -cpu max)"
	exit 1
fi
msg=$(pebs-shim observe -C 0 --on 1 --duration 0.1 2>&1)
case $msg in
*"insmod"*) ;;
*) echo "PEBS-VM FAIL $name without the module: '$msg'"; exit 1 ;;
esac
pebs-map-load || { echo "PEBS-VM FAIL $name insmod"; exit 1; }
# table and a per-CPU software counter (read()), CSV out
if ! pebs-shim observe -C 0 --on 1 -e task-clock --duration 0.5 \
	--raw /tmp/obs.csv --format csv >/tmp/obs.out 2>&1 ||
   ! grep -q '^counters: read() for all 1' /tmp/obs.out ||
   ! head -n 1 /tmp/obs.csv | grep -q '^tsc,dt,cpu,tgid,pid,switches,task-clock$' ||
   [ "$(wc -l </tmp/obs.csv)" -lt 2 ]; then
	cat /tmp/obs.out
	pebs-map-unload
	echo "PEBS-VM FAIL $name observe with -e task-clock and CSV output"
	exit 1
fi
grep -E '^(counters|resolution|trustable):' /tmp/obs.out
rm -f /tmp/obs.csv

# the default output is bounded: 20 s free-running with the table
pebs-shim observe -C 0 --on 1 --duration 20 >/tmp/obs20.out 2>&1
rc=$?
size=$(wc -c </tmp/obs20.out)
if [ $rc != 0 ] || [ "$size" -ge 1048576 ] ||
   ! grep -q '^trustable: ' /tmp/obs20.out; then
	tail -n 20 /tmp/obs20.out
	pebs-map-unload
	echo "PEBS-VM FAIL $name 20 s default run: exit $rc, $size bytes of output"
	exit 1
fi
grep -E '^(observations|trustable):' /tmp/obs20.out
echo "20 s run, default output: $size bytes"

# --raw on a full filesystem: one line naming the file and ENOSPC
mkdir -p /tmp/small
mount -t tmpfs -o size=1m tmpfs /tmp/small
pebs-shim observe -C 0 --on 1 --duration 5 --raw /tmp/small/raw.bin \
	>/tmp/full.out 2>/tmp/full.err
rc=$?
umount /tmp/small
if [ $rc != 1 ] || [ "$(grep -c . /tmp/full.err)" != 1 ] ||
   ! grep -q '^pebs-shim observe: writing /tmp/small/raw.bin: No space left on device' /tmp/full.err ||
   ! grep -q '^trustable: ' /tmp/full.out; then
	cat /tmp/full.err
	tail -n 5 /tmp/full.out
	pebs-map-unload
	echo "PEBS-VM FAIL $name --raw on a full 1 MiB tmpfs: exit $rc"
	exit 1
fi
cat /tmp/full.err
obs-alternate --duration 20 --unit-ms 10 --tolerance 1 >/tmp/obs.out 2>&1
rc=$?
rm -f /tmp/obs.bin
grep -v '^PEBS-VM ' /tmp/obs.out
pebs-map-unload || { echo "PEBS-VM FAIL $name rmmod"; exit 1; }
verdict=$(grep '^PEBS-VM ' /tmp/obs.out | tail -n 1)
[ -n "$verdict" ] || verdict="PEBS-VM FAIL $name obs-alternate exited $rc without a verdict"
case $verdict in
"PEBS-VM PASS "*) verdict="$verdict; 20 s default output $size bytes; --raw on a full 1 MiB tmpfs: ENOSPC line, exit 1" ;;
esac
echo "$verdict"
