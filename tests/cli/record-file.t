#!/bin/bash
# record-file.t - what `pebs-shim record -o` does to the disk: nothing
# before recording really starts (a failed start leaves a file as it
# was), then an existing file becomes FILE.old (perf's rule; an empty
# one is just replaced); a device, directory or fifo is refused; a
# recording killed with SIGKILL, or stopped by a full disk (ulimit -f;
# a small tmpfs as root) is read by perf report; -o - is perf's pipe
# format for perf report -i -, or CSV on stdout.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..27

# samples perf report counts in FILE ("-": stdin), 0 if it fails
perf_samples() {
	perf report --stdio -i "$1" 2>/dev/null |
		sed -n 's/^# Samples: \([0-9.]*[KM]*\) *of event.*/\1/p' |
		head -1 | grep . || echo 0
}

# -- a failed start changes nothing ------------------------------------
cd "$T" || exit 1
mkdir d && echo precious >d/x.data
"$tool" record -e cpu-clock -o d/x.data -- /nonexistent 2>err
rc=$?
[ "$rc" != 0 ]; ok_rc $? "a command that cannot start: nonzero exit ($rc)"
[ "$(cat d/x.data)" = precious ]; ok_rc $? "... and x.data is untouched"
[ "$(ls -A d)" = x.data ]; ok_rc $? "... with no x.data.old nor a temporary file ($(ls -A d | tr '\n' ' '))"
"$tool" record -e no-such-event -o d/x.data -- true 2>err
[ "$(cat d/x.data)" = precious ] && [ "$(ls -A d)" = x.data ]
ok_rc $? "an unknown event leaves x.data as it was"

# -- a recording that starts keeps the old file as .old -----------------
"$tool" record -e cpu-clock -o d/x.data -- "$memwalk" --seconds 0.5 \
	>/dev/null 2>err
ok_rc $? "record -o d/x.data -- memwalk exits 0"
[ "$(cat d/x.data.old 2>/dev/null)" = precious ]
ok_rc $? "the old x.data is x.data.old"
n=$(perf_samples d/x.data)
[ "$n" != 0 ]; ok_rc $? "perf report reads the new x.data ($n samples)"
: >d/empty.data
"$tool" record -e cpu-clock -o d/empty.data -- true 2>err
[ ! -e d/empty.data.old ] && [ -s d/empty.data ]
ok_rc $? "an empty file is replaced without a .old (perf's rule)"

# -- paths that are not regular files are refused -----------------------
"$tool" record -e cpu-clock -o /dev/null -- true 2>err
rc=$?
[ "$rc" != 0 ] && grep -q "/dev/null exists and is a character device" err
ok_rc $? "-o /dev/null is refused (exit $rc): $(head -1 err)"
[ -c /dev/null ]; ok_rc $? "/dev/null is still a character device"
mkdir d/dir.data
"$tool" record -e cpu-clock -o d/dir.data -- true 2>err
[ $? != 0 ] && grep -q "is a directory" err && [ -d d/dir.data ]
ok_rc $? "a directory is refused: $(head -1 err)"
mkfifo d/fifo.data
timeout 10 "$tool" record -e cpu-clock -o d/fifo.data -- true 2>err
[ $? != 0 ] && grep -q "is a fifo" err && [ -p d/fifo.data ]
ok_rc $? "a fifo is refused: $(head -1 err)"
[ "$(wc -l <err)" = 1 ]; ok_rc $? "with one line"

# -- SIGKILL mid-recording ------------------------------------------------
(
	"$tool" record -e cpu-clock -o d/killed.data -- "$memwalk" \
		--seconds 4 >/dev/null 2>err &
	rec=$!
	sleep 2.5
	kill -KILL $rec
	wait $rec
) 2>/dev/null	# bash's "Killed" line
sleep 1.6	# the orphaned memwalk ends by itself
n=$(perf_samples d/killed.data)
[ "$n" != 0 ]; ok_rc $? "perf report reads a SIGKILLed recording ($n samples)"
perf report --stdio -i d/killed.data 2>&1 | grep -q "data size field is 0"
[ $? != 0 ]; ok_rc $? "... with its data size set (no perf warning)"
"$tool" report -i d/killed.data >rep 2>&1
ok_rc $? "pebs-shim report reads it too: $(grep -m1 '^# samples' rep)"

# -- a full file system ---------------------------------------------------
(ulimit -f 64; exec "$tool" record -e cpu-clock -c 100000 -o d/big.data -- \
	"$memwalk" --seconds 1 >/dev/null 2>err)
rc=$?
[ "$rc" != 0 ]; ok_rc $? "ulimit -f 64: nonzero exit ($rc)"
grep -q "cannot write d/big.data: File too large" err
ok_rc $? "... saying which file and why: $(grep -m1 big.data err)"
n=$(perf_samples d/big.data)
[ "$n" != 0 ]; ok_rc $? "... and perf report reads what fit ($n samples)"
mkdir mnt
why="the 64 KiB tmpfs mount failed"
if need root && mount -t tmpfs -o size=64k tmpfs mnt 2>/dev/null; then
	"$tool" record -e cpu-clock -c 100000 -o mnt/t.data -- \
		"$memwalk" --seconds 1 >/dev/null 2>err
	rc=$?
	n=$(perf_samples mnt/t.data)
	umount mnt
	[ "$rc" != 0 ] && grep -q "cannot write mnt/t.data: No space left on device" err
	ok_rc $? "a full 64 KiB tmpfs: nonzero exit ($rc) and the cause: $(grep -m1 t.data err)"
	[ "$n" != 0 ]; ok_rc $? "... and perf report reads what fit ($n samples)"
else
	skip "$why"
	skip "$why"
fi

# SIGXFSZ (bit 25 of SigIgn) is not ignored in the recorded command
"$tool" record -e cpu-clock -o d/sig.data -- \
	sh -c 'grep SigIgn /proc/self/status' >sig 2>err
ign=$(awk '{ print $2 }' sig)
[ -n "$ign" ] && [ $(( 0x$ign & (1 << 24) )) = 0 ]
ok_rc $? "the command keeps SIGXFSZ's default (SigIgn $ign)"
"$tool" record -e cpu-clock -o /nonexistent-dir/x.data -- true 2>err
[ $? != 0 ] && grep -q "cannot create /nonexistent-dir/x.data: No such file or directory" err
ok_rc $? "a path in a missing directory: $(head -1 err)"

# -- standard output ----------------------------------------------------
"$tool" record -e cpu-clock -o - -- "$memwalk" --seconds 0.5 2>err |
	perf report --stdio -i - >rep 2>&1
ok_rc $? "record -o - | perf report -i - exits 0"
[ ! -e ./- ]; ok_rc $? "... and no file named '-' appears"
grep -q '\[\.\] chase' rep; ok_rc $? "... and perf report names memwalk's chase()"
"$tool" record -e page-faults -c 1 --format csv -o - -- \
	"$touchpages" 50 addrs >csv 2>err
head -1 csv | grep -q '^time,cpu,' && [ "$(wc -l <csv)" -gt 50 ]
ok_rc $? "--format csv -o - writes the CSV to stdout ($(wc -l <csv) lines)"
