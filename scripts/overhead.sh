#!/bin/bash
# overhead.sh - how much recording slows a workload down: memwalk --hops N
# (fixed work) alone, under `pebs-shim record` and under
# `perf record --no-bpf-event`, same event (cpu-clock) and periods (1 ms,
# 100 us by default), several interleaved runs; one table of median wall
# times and their ratios to the bare run. Figures, no pass/fail.
#
# Usage: scripts/overhead.sh [pebs-shim bench overhead options]
#   e.g. scripts/overhead.sh --reps 9 --hops 8000000 --periods 1000000,100000,20000
# Env: B (build dir, default <repo>/build). Builds the tool and the
# workloads if needed. Per-task recording: works unprivileged with
# perf_event_paranoid <= 2. Timings on a shared machine are noisy: use
# more --reps there.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$src/build}
case $B in /*) ;; *) B=$src/$B ;; esac
if [ ! -x "$B/pebs-shim" ] || [ ! -x "$B/workloads/memwalk" ]; then
	make -s -C "$src" B="$B" "$B/pebs-shim" "$B/workloads/memwalk" >&2
fi
command -v perf >/dev/null ||
	echo "overhead.sh: perf is not installed (linux-perf): only pebs-shim is measured" >&2
exec "$B/pebs-shim" bench overhead "$@"
