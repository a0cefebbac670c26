#!/bin/bash
# map.t - pebs-shim map: errors without the module, usage errors, and the
# full output against synthetic table files laid out as include/pebs_map.h
# says (generated here with python3).
set -u
tool=$PEBS_BUILD/pebs-shim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$PEBS_SRC/tests/tap.sh"

echo "1..23"

# gen FILE [key=value...]: a 4-CPU table (hist_len 8) with the header
# fields overridable, e.g. magic=0 abi=2 cut=1 (bytes cut off the end).
gen() {
	python3 - "$@" <<'EOF'
import struct, sys
out = sys.argv[1]
kw = dict(a.split('=') for a in sys.argv[2:])
kw = {k: int(v, 0) for k, v in kw.items()}
PAGE, NR, LEN = 4096, 4, 8
table_size = PAGE
hist_offset, hist_size = PAGE, PAGE
hdr = struct.pack('<QIIIIQQQQIIIIII6Q',
	kw.get('magic', 0x0050414d53424550), kw.get('abi', 1), 128, NR,
	kw.get('slot_size', 64), 128, table_size, hist_offset, hist_size,
	LEN, 16, 1, kw.get('hook', 1), 1, 0, *[0] * 6)
assert len(hdr) == 128
def slot(cpu, tgid, pid, switches, comm):
	last = 1000000000 + (switches - 1) * 1000 if switches else 0
	return struct.pack('<IiiIQQQ16sQ', 2 * switches, tgid, pid, cpu,
			   switches, last, switches, comm.encode(), 0)
# CPU0 runs bash, CPU1 is idle, CPU2 never switched, CPU3 runs a worker
slots = [(238, 238, 1234, 'bash'), (0, 0, 5678, ''), (-1, -1, 0, ''),
	 (4242, 4243, 3, 'worker')]
buf = bytearray(hist_offset + hist_size)
buf[0:128] = hdr
hist = {0: lambda k: (238, 238) if k % 2 else (0, 0),
	1: lambda k: (0, 0) if k % 2 else (17, 18),
	3: lambda k: (4242, 4243)}
for c, (tgid, pid, sw, comm) in enumerate(slots):
	buf[128 + 64 * c:192 + 64 * c] = slot(c, tgid, pid, sw, comm)
	if c not in hist:
		continue
	# switch k at 1 s + k us, in place k % LEN; the 8 newest survive
	for k in range(max(0, sw - LEN), sw):
		off = hist_offset + (c * LEN + k % LEN) * 16
		buf[off:off + 16] = struct.pack('<Qii', 1000000000 + k * 1000,
						*hist[c](k))
cut = kw.get('cut', 0)
open(out, 'wb').write(buf[:len(buf) - cut])
EOF
}

# run NAME EXPECTED_RC CMD...: runs, keeps stdout/stderr in $tmp/out|err
run() {
	local name=$1 want=$2 rc
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$name (exit $rc)"
	else
		nok "$name (exit $rc, expected $want)"
		sed 's/^/# /' "$tmp/out" "$tmp/err"
	fi
}

same() { # same NAME FILE: $tmp/out equals FILE
	if diff -u "$2" "$tmp/out" >"$tmp/diff"; then
		ok "$1"
	else
		nok "$1"
		sed 's/^/# /' "$tmp/diff"
	fi
}

errline() { # errline NAME REGEX: stderr is one line matching REGEX
	if [ "$(wc -l <"$tmp/err")" = 1 ] && grep -Eq "$2" "$tmp/err"; then
		ok "$1"
	else
		nok "$1"
		sed 's/^/# /' "$tmp/err"
	fi
}

# ---- no module on this host -----------------------------------------
if [ -e /dev/pebs_map ]; then
	skip "/dev/pebs_map exists here (module loaded)"
	skip "/dev/pebs_map exists here (module loaded)"
else
	run "no device" 1 "$tool" map
	errline "no device: one line naming the fix" \
		'^pebs-shim map: /dev/pebs_map not found: load the module \(insmod kmod/pebs_map.ko or scripts/pebs-map-load\)$'
fi

# ---- usage errors ---------------------------------------------------
run "--help" 0 "$tool" map --help
check "--help documents every option" \
	grep -q -- '--history N' "$tmp/out"
bad=0
for args in "-C 0-x" "-C 3-1" "-C ,1" "-i 0" "-i x" "-n -1" "-H 0" \
	    "--history" "--bogus" "-x" "extra"; do
	# shellcheck disable=SC2086
	"$tool" map -d "$tmp/none" $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ] ||
	   ! grep -q '^pebs-shim map: .*: ' "$tmp/err"; then
		echo "# '$args': exit $rc: $(cat "$tmp/err")"
		bad=1
	fi
done
check "bad arguments: exit 2, one line each" test $bad = 0

# ---- a synthetic table file -----------------------------------------
gen "$tmp/table"
cat >"$tmp/want" <<'EOF'
pebs_map ABI 1: 4 CPUs, hist_len 8, clock local_clock, hook tracepoint, pids init-ns
CPU0: tgid 238 pid 238 switches 1234 comm bash
CPU1: idle switches 5678
CPU3: tgid 4242 pid 4243 switches 3 comm worker
EOF
run "table file" 0 "$tool" map -d "$tmp/table"
same "table file: CPUs never seen are skipped" "$tmp/want"

run "--all" 0 "$tool" map --all -d "$tmp/table"
sed '3a CPU2: -' "$tmp/want" >"$tmp/want-all"
same "--all shows CPU2 as never seen" "$tmp/want-all"

run "-C 1-2" 0 "$tool" map -C 1-2 -d "$tmp/table"
cat >"$tmp/want-c" <<'EOF'
pebs_map ABI 1: 4 CPUs, hist_len 8, clock local_clock, hook tracepoint, pids init-ns
CPU1: idle switches 5678
CPU2: -
EOF
same "-C 1-2 shows exactly those CPUs" "$tmp/want-c"

run "--history 3" 0 "$tool" map --history 3 -C 0,3 -d "$tmp/table"
cat >"$tmp/want-h" <<'EOF'
pebs_map ABI 1: 4 CPUs, hist_len 8, clock local_clock, hook tracepoint, pids init-ns
CPU0: tgid 238 pid 238 switches 1234 comm bash
  switch 1231 at 1.001231000: tgid 238 pid 238
  switch 1232 at 1.001232000: idle
  switch 1233 at 1.001233000: tgid 238 pid 238
CPU3: tgid 4242 pid 4243 switches 3 comm worker
  switch 0 at 1.000000000: tgid 4242 pid 4243
  switch 1 at 1.000001000: tgid 4242 pid 4243
  switch 2 at 1.000002000: tgid 4242 pid 4243
EOF
same "--history 3: the last switches, oldest first" "$tmp/want-h"

# 8 places hold 7 stable switches: the 13 before them are reported gone
run "--history 20" 0 "$tool" map -H 20 -C 1 -d "$tmp/table"
if [ "$(sed -n 3p "$tmp/out")" = "  (13 older switches no longer in the history)" ] &&
   [ "$(grep -c '^  switch ' "$tmp/out")" = 7 ] &&
   [ "$(tail -n 1 "$tmp/out")" = "  switch 5677 at 1.005677000: idle" ]; then
	ok "--history beyond the history length: 7 kept, 13 reported lost"
else
	nok "--history beyond the history length"
	sed 's/^/# /' "$tmp/out"
fi

run "-i 10 -n 3" 0 "$tool" map -i 10 -n 3 -d "$tmp/table"
if [ "$(grep -c '^CPU0: ' "$tmp/out")" = 3 ] &&
   [ "$(grep -c '^pebs_map ABI' "$tmp/out")" = 1 ] &&
   [ "$(wc -l <"$tmp/out")" = 12 ]; then
	ok "-i 10 -n 3 prints the table three times"
else
	nok "-i 10 -n 3 prints the table three times"
	sed 's/^/# /' "$tmp/out"
fi

# -i without -n runs until SIGINT, then exits 0
"$tool" map -i 20 -d "$tmp/table" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do
	[ "$(grep -c '^CPU0' "$tmp/out")" -ge 2 ] && break
	sleep 0.1
done
kill -INT $pid
wait $pid
check "-i until SIGINT: exit 0 after several tables" \
	test $? = 0 -a "$(grep -c '^CPU0' "$tmp/out")" -ge 2

run "-C beyond the table" 2 "$tool" map -C 0,9 -d "$tmp/table"

# ---- bad tables -----------------------------------------------------
gen "$tmp/bad" abi=2
run "ABI version mismatch" 1 "$tool" map -d "$tmp/bad"
errline "ABI version mismatch message" \
	'^pebs-shim map: pebs_map ABI version 2, this pebs-shim expects 1: rebuild the module or the tool$'
gen "$tmp/bad" magic=0x1234 && "$tool" map -d "$tmp/bad" 2>"$tmp/err"
check "bad magic: exit 1, named" test $? = 1 -a -n "$(grep 'not a pebs_map table' "$tmp/err")"
gen "$tmp/bad" cut=1 && "$tool" map -d "$tmp/bad" 2>"$tmp/err"
check "truncated file: exit 1" test $? = 1 -a -n "$(grep 'corrupt table' "$tmp/err")"
