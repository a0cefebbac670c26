#!/bin/bash
# demo.sh - the README's main command, end to end (make demo):
#
#   pebs-shim record --objects -g --switch-events -e auto \
#        -e page-faults:period=1 -- memwalk --share
#        auto: the best source this machine has (PEBS/IBS loads, else
#        cpu-clock, and one line says so); page faults: real data
#        addresses that need no PMU (first touches, and the cache line
#        the two threads share); -g: call chains (frame pointers);
#        --switch-events: who ran on each CPU when; --objects: the
#        arrays' allocation sites (the heat map's rows name them)
#   pebs-shim report                        threads, symbols, memory, sharing
#   pebs-shim c2c report                    the shared line, as perf c2c
#   perf report --stdio --sort sym | head   when perf is installed
#   pebs-shim plot flame, timeline, heat    three pictures (SVG), their
#                                           paths printed last
#
# Builds the tool and the workloads first if needed, after checking that
# what the build needs is installed (else it says which packages are
# missing: `make deps` as root installs them). Runs unprivileged too
# (recording a command needs only perf_event_paranoid <= 2).
#
# Env: B (build dir, default <repo>/build), SECONDS_TO_RUN (default 2),
# DEMO_OUT (recording, default $TMPDIR/pebs-shim-demo-$USER.data; the
# pictures go beside it, named after it).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$src/build}
case $B in /*) ;; *) B=$src/$B ;; esac
tool=$B/pebs-shim
memwalk=$B/workloads/memwalk
objlib=$B/libpebsshim-objects.so	# record --objects preloads it
out=${DEMO_OUT:-${TMPDIR:-/tmp}/pebs-shim-demo-$(id -un).data}
secs=${SECONDS_TO_RUN:-2}

say() { echo "demo: $*" >&2; }

# what building needs: a header or command, and the Debian package
missing=()
command -v "${CC:-cc}" >/dev/null || missing+=(build-essential)
command -v make >/dev/null || missing+=(make)
for need in perfmon/pfmlib.h:libpfm4-dev gelf.h:libelf-dev zlib.h:zlib1g-dev \
	    zstd.h:libzstd-dev libiberty/demangle.h:libiberty-dev \
	    linux/perf_event.h:linux-libc-dev; do
	[ -e "/usr/include/${need%%:*}" ] || missing+=("${need#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
	if [ ! -x "$tool" ] || [ ! -x "$memwalk" ] || [ ! -f "$objlib" ]; then
		say "cannot build: missing ${missing[*]}"
		say "install them as root: make deps (or apt-get install --no-install-recommends ${missing[*]})"
		exit 1
	fi
	say "cannot rebuild (missing ${missing[*]}): using the existing build in $B"
else
	# incremental: does nothing when the build is up to date
	make -s -C "$src" B="$B" "$tool" "$memwalk" "$objlib" >&2
fi

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" != 0 ] && [ "$paranoid" -gt 2 ]; then
	say "perf_event_paranoid is $paranoid: unprivileged users cannot open perf events here"
	say "run as root, or allow per-process profiling: sysctl kernel.perf_event_paranoid=2"
	exit 1
fi

echo "+ pebs-shim record --objects -g --switch-events -e auto -e page-faults:period=1 -o $out -- memwalk --seconds $secs --share"
"$tool" record --objects -g --switch-events -e auto -e page-faults:period=1 -o "$out" -- \
	"$memwalk" --seconds "$secs" --share
echo
echo "+ pebs-shim report -i $out"
"$tool" report -i "$out"
echo
echo "+ pebs-shim c2c report -i $out | sed -n '/Shared Data Cache Line Table/,\$p' | head -30"
"$tool" c2c report -i "$out" | sed -n '/Shared Data Cache Line Table/,$p' | head -30 || true
if command -v perf >/dev/null; then
	echo
	echo "+ perf report --stdio --no-children --sort sym -i $out | head -20"
	perf report --stdio --no-children --sort sym -i "$out" 2>/dev/null | head -20 || true
else
	say "perf is not installed (linux-perf; make deps installs it): skipping perf report"
fi

# the pictures: the code of the first event (auto's), who ran where,
# which data the page faults touched
base=${out%.data}
"$tool" report -i "$out" >"$base.events"
ev0=$(sed -n 's/^# event 0   : \([^ ]*\) (.*/\1/p' "$base.events")
ev1=$(sed -n 's/^# event 1   : \([^ ]*\) (.*/\1/p' "$base.events")
rm -f "$base.events"
echo
echo "+ pebs-shim plot flame --event $ev0; plot timeline --event $ev0; plot heat --event $ev1"
"$tool" plot flame -i "$out" ${ev0:+--event "$ev0"} -o "$base-flame.svg"
"$tool" plot timeline -i "$out" ${ev0:+--event "$ev0"} -o "$base-timeline.svg"
"$tool" plot heat -i "$out" ${ev1:+--event "$ev1"} -o "$base-heat.svg"
echo "demo: open these in a browser (hover, click, search):"
for k in flame timeline heat; do
	echo "  $base-$k.svg"
done
