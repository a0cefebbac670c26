#!/bin/bash
# vm.t - every guest script of tests/vm/guest in one qemu guest, as TAP.
#
# Builds the module (`make kmod`, serialised with other runs), boots the
# guest once through scripts/vm-run.sh, then prints one test per guest
# script (ok iff the script printed `PEBS-VM PASS <name> ...`, left the
# module unloaded, and started with at least 64 MiB free in the guest's
# /tmp; each line says how long it ran and the KiB free in /tmp before
# and after it) and one for a clean kernel log (no WARNING, BUG, Oops,
# panic, KASAN/UBSAN report or call trace in the guest's dmesg). A
# failing script's last 25 console lines follow as TAP comments; the
# console log is kept as $PEBS_BUILD/vm/console-*.log when anything
# failed, and removed otherwise.
#
# Env: PEBS_SRC, PEBS_BUILD (scripts/run-test sets them); VM_ONLY=REGEX
# runs only matching scripts (as vm-run.sh --only); VM_ARGS adds
# vm-run.sh options.
set -u

src=${PEBS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PEBS_BUILD:-$src/build}
export PEBS_SRC=$src PEBS_BUILD=$build

scripts=()
for s in "$src"/tests/vm/guest/*.sh; do
	[ -f "$s" ] || continue
	if [ -n "${VM_ONLY:-}" ] && ! basename "$s" | grep -Eq -- "$VM_ONLY"; then
		continue
	fi
	scripts+=("$s")
done
if [ "${#scripts[@]}" = 0 ]; then
	echo "1..0 # SKIP no guest script in tests/vm/guest"
	exit 0
fi
. "$src/tests/tap.sh"
need qemu || skip_all "$why"
if ! ls -d /usr/src/linux-headers-*-amd64 >/dev/null 2>&1 && [ -z "${KDIR:-}" ]; then
	echo "1..0 # SKIP no kernel headers in /usr/src (make deps)"
	exit 0
fi

echo "1..$((${#scripts[@]} + 1))"

diag() {
	sed -e 's/\r$//' -e 's/^/# /'
}
fail_all() {
	local i=1 s
	failed=1
	for s in "${scripts[@]}"; do
		echo "not ok $i - $(basename "$s" .sh): $1"
		i=$((i + 1))
	done
	echo "not ok $i - clean kernel log: $1"
	exit 0
}

# The module is built in the source tree: one build at a time.
# against the headers of the kernel the guest boots (scripts/vm-kernel.sh
# picks the same), whatever the host runs; W=1 warnings are errors here
kdir=${KDIR:-$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)}
if ! out=$(flock /tmp/pebs-shim-kmod.lock make -s -C "$src" kmod \
	KDIR="$kdir" KMOD_WERROR=y 2>&1); then
	echo "$out" | tail -n 30 | diag
	fail_all "make kmod failed"
fi

missing=
for c in "$src"/tests/vm/*.c; do
	[ -f "$c" ] || continue
	b=$build/vm/$(basename "$c" .c)
	[ "$b" -nt "$c" ] || missing+=" ${b##*/}"
done
[ -n "$missing" ] &&
	echo "# missing or stale in $build/vm:$missing (make B=$build vmbins)"

read -r -a extra <<<"${VM_ARGS:-}"
mkdir -p "$build/vm"
log=$(mktemp "$build/vm/console-$(date +%Y%m%d-%H%M%S).XXXXXX")
mv "$log" "$log.log"
log=$log.log
failed=0
# a failure keeps the console log, and says where
keep_log() {
	if [ "$failed" = 0 ]; then
		rm -f "$log"
	else
		echo "# console log kept: $log"
	fi
}
trap keep_log EXIT
t0=$(date +%s)
"$src/scripts/vm-run.sh" --log "$log" ${VM_ONLY:+--only "$VM_ONLY"} \
	"${extra[@]}" >/dev/null 2>"$log.stderr"
rc=$?
t1=$(date +%s)
echo "# vm-run.sh exit $rc, $((t1 - t0)) s wall"
if [ ! -s "$log" ]; then
	diag <"$log.stderr"
	fail_all "vm-run.sh produced no console log"
fi
rm -f "$log.stderr"
# drop CRs and the terminal resets the firmware and kernel print
clean=$(sed -e 's/\r$//' -e 's/\x1bc//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' "$log")
grep -oE 'PEBS-VM (BOOT|ALL-DONE|HOST).*' <<<"$clean" | diag

i=1
for s in "${scripts[@]}"; do
	name=$(basename "$s" .sh)
	verdict=$(grep -E "^PEBS-VM (PASS|FAIL) $name( |\$)" <<<"$clean" | tail -n 1)
	section=$(awk -v n="$name" '$0 == "PEBS-VM RUN " n { p = 1 }
		p { print } $0 ~ "^PEBS-VM DONE " n " " { p = 0 }' <<<"$clean")
	done_line=$(grep -E "^PEBS-VM DONE $name " <<<"$clean" | tail -n 1)
	secs=$(sed -n 's/.* secs=\([0-9.]*\).*/\1/p' <<<"$done_line")
	free0=$(sed -n 's/.* tmpfree=\([0-9]*\)\/.*/\1/p' <<<"$done_line")
	free1=$(sed -n 's/.* tmpfree=[0-9]*\/\([0-9]*\).*/\1/p' <<<"$done_line")
	ran="${secs:-?} s, /tmp ${free0:-?} KiB free before, ${free1:-?} after"
	if [[ $verdict == "PEBS-VM PASS $name"* ]] &&
	   ! grep -qx "PEBS-VM LEFT-LOADED $name" <<<"$clean" &&
	   [ "${free0:-0}" -ge 65536 ]; then
		echo "ok $i - $name${verdict#PEBS-VM PASS "$name"} ($ran)"
	else
		failed=1
		if [ -n "$free0" ] && [ "$free0" -lt 65536 ]; then
			why="the guest's /tmp had only $free0 KiB free before it (needs 64 MiB)"
		elif [ -z "$verdict" ]; then
			why="no PEBS-VM PASS/FAIL line"
		elif [[ $verdict == "PEBS-VM PASS"* ]]; then
			why="left pebs_map loaded"
		else
			why=${verdict#PEBS-VM FAIL "$name" }
		fi
		[ -n "$free1" ] && [ "$free1" -lt 1024 ] &&
			why+=" (the guest's /tmp was full when it ended: $free1 KiB free)"
		echo "not ok $i - $name: $why ($ran)"
		if [ -n "$section" ]; then
			tail -n 25 <<<"$section" | diag
		else
			grep -v -E '^PEBS-VM DMESG|^\[' <<<"$clean" | tail -n 25 | diag
		fi
	fi
	i=$((i + 1))
done

bad='WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN|general protection fault|Call Trace|kernel BUG|list_(add|del) corruption|refcount_t:|hung_task|soft lockup|rcu_sched detected stall|rcu: INFO'
if ! grep -q '^PEBS-VM DMESG-END' <<<"$clean"; then
	failed=1
	echo "not ok $i - clean kernel log: the guest did not finish (panic, hang or host timeout)"
	grep -E "$bad" <<<"$clean" | head -n 20 | diag
	tail -n 30 <<<"$clean" | diag
else
	dmesg=$(sed -n '/^PEBS-VM DMESG-BEGIN/,/^PEBS-VM DMESG-END/p' <<<"$clean")
	hits=$(grep -E "$bad" <<<"$dmesg")
	if [ -z "$hits" ]; then
		echo "ok $i - clean kernel log (no WARNING/BUG/Oops/panic/KASAN in dmesg)"
	else
		failed=1
		echo "not ok $i - clean kernel log"
		grep -E -B 3 -A 25 "$bad" <<<"$dmesg" | head -n 60 | diag
	fi
fi
