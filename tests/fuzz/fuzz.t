#!/bin/bash
# fuzz.t - run each libFuzzer target ($PEBS_BUILD/fuzz/fuzz-*, built by
# `make fuzz` with clang -fsanitize=fuzzer,address,undefined) for a
# bounded time (PEBS_FUZZ_TIME seconds, default 10: make check; make
# check-fuzz gives each 60) from a small seed
# corpus made here: PEBS-like sample records and rings (perf's and the
# objects' ring of record --objects) for fuzz-sample,
# small perf.data files (synthetic, and the real fixtures cut down to their
# first records) for fuzz-perfdata, a raw observer file and option strings
# for fuzz-parse, and for fuzz-session the same recordings, a
# pebs-shim record --objects stream and a --call-graph dwarf one (user
# stacks unwound), each behind a byte choosing sort
# keys and modes (its HOME an empty directory: no build-id cache read).
# A crash, leak or sanitizer report is a
# failure; its reproducer is kept in $PEBS_BUILD/fuzz/artifacts/.
set -u
B=${PEBS_BUILD:?set PEBS_BUILD to the build directory}
S=${PEBS_SRC:?set PEBS_SRC to the source tree}
T=${PEBS_FUZZ_TIME:-10}
targets=(fuzz-sample fuzz-perfdata fuzz-parse fuzz-tracing-data fuzz-session)

echo "1..$((${#targets[@]} + 1))"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

have_libfuzzer() {
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)
	      { (void)d; (void)n; return 0; }' > "$tmp/probe.c"
	${CLANG:-clang} -fsanitize=fuzzer -o "$tmp/probe" "$tmp/probe.c" \
		>/dev/null 2>&1
}

# Seeds. Python only writes bytes here; without it libFuzzer starts from
# an empty corpus.
mkdir -p "$tmp/seed-fuzz-sample" "$tmp/seed-fuzz-perfdata" "$tmp/seed-fuzz-parse" \
	"$tmp/seed-fuzz-tracing-data" "$tmp/seed-fuzz-session" "$tmp/home"
if command -v python3 >/dev/null; then
	python3 - "$tmp" "$S" <<'EOF' || echo "# seed generation failed; fuzzing from empty corpora"
import struct, sys, os
tmp, src = sys.argv[1], sys.argv[2]
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD = 1, 2, 4, 8, 16, 32, 64, 128, 256
RAW, BRANCH, REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENT = 1<<10, 1<<11, 1<<12, 1<<13, 1<<14, 1<<15, 1<<16
WSTRUCT = 1 << 24

def hdr(t, size): return struct.pack('<IHH', t, 0, size)
def rec(t, body): return hdr(t, 8 + len(body)) + body
def attrpre(st, rf=0, bst=0, ru=0, ri=0): return struct.pack('<5Q', st, rf, bst, ru, ri)

pebs = IP | TID | TIME | ADDR | CPU | WEIGHT | DATA_SRC
sample = rec(9, struct.pack('<QIIQQIIQQ', 0x401136, 10, 11, 1000, 0x7f00, 1, 0, 97, 0x68100142))
seeds = {
  'pebs': attrpre(pebs) + sample,
  'ident': attrpre(pebs | IDENT) + rec(9, struct.pack('<QQIIQQIIQQ', 42, 0x401136, 10, 11, 1000, 0x7f00, 1, 0, 97, 0x68100142)),
  'wstruct': attrpre(IP | TID | TIME | ADDR | ID | CPU | DATA_SRC | WSTRUCT) +
             rec(9, struct.pack('<QIIQQQIIIHHQ', 0x401136, 10, 11, 1000, 0x7f00, 3168, 1, 0, 225, 4, 0, 0x11868100242)),
  'var': attrpre(IDENT | IP | READ | CALLCHAIN | RAW | BRANCH | REGS_USER | STACK_USER, 0xd, 1 << 17, 0x7, 0) +
         rec(9, struct.pack('<QQ', 1, 2) + struct.pack('<QQQQQ', 2, 5, 6, 7, 8) +
             struct.pack('<QQQ', 2, 0xa, 0xb) + struct.pack('<I', 4) + b'abcd' +
             struct.pack('<QQ', 1, 9) + struct.pack('<3Q', 1, 2, 3) * 1 +
             struct.pack('<QQQQ', 2, 1, 2, 3) + struct.pack('<QQQ', 8, 0, 8)),
  'ring': attrpre(pebs, 0, 0, 4090) + rec(2, struct.pack('<QQQ', 7, 5, 0)) + sample + rec(5, struct.pack('<QQQ', 1, 2, 3)) + sample,
}
# the objects' ring (lib/record/objects-ring.h) from 0: a published
# alloc of 2 frames, a reserved slot, a published free
def objslot(pos, state, kind, nr):
    body = struct.pack('<HBBIIIQQQQ', 48 + 8 * nr, kind, nr, 7, 8, 0, 1, 2, 3, 4) + struct.pack('<%dQ' % nr, *range(nr))
    words = (8 + len(body)) // 8
    return struct.pack('<Q', (pos >> 3) << 32 | 7 << 10 | words << 2 | state) + body
objring = objslot(0, 2, 1, 2)
objring += objslot(len(objring), 1, 1, 0)
objring += objslot(len(objring), 2, 2, 0)
seeds['objring'] = attrpre(0, 0, 0, 0) + objring
for name, data in seeds.items():
    open(os.path.join(tmp, 'seed-fuzz-sample', name), 'wb').write(data)

# fuzz-parse: selector byte (0 raw file, 1 CPU list/filters, 2 sort keys,
# 0x82 report -g's argument, 3 event lists, 0x83 the budget's cache),
# then the input
def parse_seed(name, sel, body):
    open(os.path.join(tmp, 'seed-fuzz-parse', name), 'wb').write(bytes([sel]) + body)
h = b'PEBSOBS\0' + struct.pack('<IIIIIiQQIIQ', 1, 128, 40, 1, 2, 1, 2400000000, 0, 950000, 1050000, 0)
h += b'task-clock'.ljust(64, b'\0')
parse_seed('raw', 0, h + struct.pack('<QQIiiIQ', 1000, 40, 0, 5, 6, 1, 99) * 3)
for i, t in enumerate([b'0-3,8,10-11', b'bash,memwalk', b'10.5,12%', b'25%-50%', b'10%/3', b'1.5,2.5']):
    parse_seed('text%d' % i, 1 + 4 * i, t)
parse_seed('keys', 2, b'comm,dso,sym,symbol_daddr,dcacheline,mem,snoop,tlb')
parse_seed('graph', 0x82, b'fractal,0.5,10,callee,function,count')
for i, t in enumerate([b'cpu-clock', b'{cpu-clock,task-clock}:u', b'page-faults:period=1,r01d1:pp',
                       b'cpu/event=0xd0,umask=0x81,ldlat=30/pp', b'sched:sched_switch', b'perf::cycles:u=1:k=0']):
    parse_seed('event%d' % i, 3, t)
# record --budget's cache of costs (selector 3 with 0x80)
parse_seed('calcache', 0x83, b'# pebs-shim budget calibration 1: KEY TIME V0 V1\n'
           b'b50360ceb217d794 1795770599 91.6556777 651.551471\n'
           b'34bcb077ebd2ddda 1795771202 40.4857595 0\n0000000000000007 5 -1 0\n')

# a small perf.data: 2 attrs (ids 10, 11 | 20), samples, a HEADER_ATTR, HOSTNAME
def perfdata(attr_size):
    st = IDENT | IP | TIME
    out = bytearray(104)
    ids_at = len(out); out += struct.pack('<3Q', 10, 11, 20)
    attrs_at = len(out)
    for i in range(2):
        a = bytearray(attr_size)
        struct.pack_into('<IIQQ', a, 0, 1, attr_size, i, 4000)
        struct.pack_into('<Q', a, 24, st | (ADDR if i else 0))
        struct.pack_into('<Q', a, 40, 1 << 18)     # sample_id_all
        out += a + struct.pack('<QQ', ids_at + 16 * i, 8 if i else 16)
    data_at = len(out)
    out += rec(9, struct.pack('<3Q', 11, 0x1111, 5))
    out += rec(9, struct.pack('<4Q', 20, 0x2222, 6, 0xdead))
    out += rec(3, struct.pack('<II', 1, 1) + b'comm\0\0\0\0' + struct.pack('<Q', 10))
    a = bytearray(112); struct.pack_into('<IIQQQ', a, 0, 1, 112, 2, 1, st | PERIOD)
    out += rec(64, bytes(a) + struct.pack('<Q', 30))
    out += rec(9, struct.pack('<4Q', 30, 0x3333, 7, 100))
    out += rec(68, b'')
    data_end = len(out)
    feat_at = len(out); out += bytes(16)
    s_at = len(out); out += struct.pack('<I', 8) + b'box\0\0\0\0\0'
    struct.pack_into('<QQ', out, feat_at, s_at, len(out) - s_at)
    struct.pack_into('<QQQ', out, 0, 0x32454c4946524550, 104, attr_size + 16)
    struct.pack_into('<QQQQQQ', out, 24, attrs_at, data_at - attrs_at, data_at, data_end - data_at, 0, 0)
    struct.pack_into('<Q', out, 72, 1 << 3)
    return bytes(out)

for size in (64, 112, 128, 136):
    open(os.path.join(tmp, 'seed-fuzz-perfdata', 'synthetic-%d' % size), 'wb').write(perfdata(size))

# a pipe-mode stream: header, HEADER_ATTR x2, HEADER_FEATURE HOSTNAME,
# HEADER_TRACING_DATA with a payload, FINISHED_INIT, samples, a cut one
def pipe():
    st = IDENT | IP | TIME
    out = bytearray(struct.pack('<QQ', 0x32454c4946524550, 16))
    for i in range(2):
        a = bytearray(112); struct.pack_into('<IIQQQ', a, 0, 1, 112, i, 4000, st)
        out += rec(64, bytes(a) + struct.pack('<Q', 10 + i))
    out += rec(80, struct.pack('<QI', 3, 8) + b'pipe\0\0\0\0')
    out += rec(66, struct.pack('<II', 24, 0)) + bytes(24)
    out += rec(82, b'')
    for i in range(20):
        out += rec(9, struct.pack('<3Q', 10 + i % 2, 0x1000 + i, i))
    return bytes(out[:-5])
open(os.path.join(tmp, 'seed-fuzz-perfdata', 'pipe'), 'wb').write(pipe())
# found by fuzz-perfdata (2026-11-28): a record whose size runs past the
# end had its AUXTRACE payload size read beyond the input
open(os.path.join(tmp, 'seed-fuzz-perfdata', 'auxtrace-cut'), 'wb').write(bytes.fromhex(
    '50455246494c453210000000ffffffff40000000455246494c453110e9e9000000'
    '000000000000000a000000000000000000000000000000000050455b7664736f5d'
    '1000000000000000430000003832140008400000e9e9e9e94c0000014700000045'
    '3248000000b0f0ffffff'))

# 800 events (~180 KB; perf.data of the issue: > 30 s, 125 MB), with
# distinct ids and with every ids section aliased to the whole file:
# not seeds (longer than -max_len), timed on their own below
def many(alias):
    st = IDENT | IP | TIME
    n, nids, asz = 800, 11, 120
    out = bytearray(104)
    ids_at = len(out)
    for i in range(n):
        out += struct.pack('<%dQ' % nids, *[100000 * (i + 1) + j for j in range(nids)])
    attrs_at = len(out)
    for i in range(n):
        a = bytearray(asz); struct.pack_into('<IIQQQ', a, 0, 1, asz, i, 4000, st)
        out += a + struct.pack('<QQ', ids_at + 8 * nids * i, 8 * nids)
    data_at = len(out)
    for i in range(0, n, 7):
        out += rec(9, struct.pack('<3Q', 100000 * (i + 1), i, i))
    if alias:
        for i in range(n):
            struct.pack_into('<QQ', out, attrs_at + i * (asz + 16) + asz, 0, len(out) & ~7)
    struct.pack_into('<QQQ', out, 0, 0x32454c4946524550, 104, asz + 16)
    struct.pack_into('<QQQQ', out, 24, attrs_at, data_at - attrs_at, data_at, len(out) - data_at)
    return bytes(out)
os.makedirs(os.path.join(tmp, 'big'), exist_ok=True)
open(os.path.join(tmp, 'big', 'attrs800'), 'wb').write(many(False))
open(os.path.join(tmp, 'big', 'attrs800-aliased'), 'wb').write(many(True))

# the real recordings, cut to their first ~3 KiB of records, no features
for name in ('intel-skx-xeon8173M_ldlat64_weight-struct.perf.data',
             'amd-zen4-epyc9254_ibs-c2c_ring.perf.data'):
    try:
        b = bytearray(open(os.path.join(src, 'tests/fixtures', name), 'rb').read())
    except OSError:
        continue
    ao, asz, do, dsz = struct.unpack_from('<QQQQ', b, 24)
    p, end = do, do + dsz
    while p < end and p - do < 3000:
        p += struct.unpack_from('<H', b, p + 6)[0]
    # keep everything up to p, but ids lie before the data: fine
    out = b[:p]
    struct.pack_into('<Q', out, 48, p - do)
    struct.pack_into('<4Q', out, 72, 0, 0, 0, 0)
    open(os.path.join(tmp, 'seed-fuzz-perfdata', 'cut-' + name), 'wb').write(bytes(out))
EOF
fi

# real perf recordings (pipe mode, zstd-compressed), cut to -max_len
if perf record -q -e cpu-clock -o - -- true 2>/dev/null |
	head -c 8192 > "$tmp/seed-fuzz-perfdata/perf-pipe" &&
   [ -s "$tmp/seed-fuzz-perfdata/perf-pipe" ]; then
	perf record -q -z -e cpu-clock -o "$tmp/z.data" -- true \
		>/dev/null 2>&1 &&
		head -c 8192 "$tmp/z.data" > "$tmp/seed-fuzz-perfdata/perf-zstd"
else
	rm -f "$tmp/seed-fuzz-perfdata/perf-pipe"
	echo "# perf cannot record here: no real pipe/zstd seeds"
fi

# a real tracing data section (perf's own, sched:sched_switch): feature
# bit 1, so the first entry of the feature table after the data
if perf record -q -e sched:sched_switch -o "$tmp/tp.data" -- true \
	>/dev/null 2>&1 && command -v python3 >/dev/null; then
	python3 - "$tmp/tp.data" "$tmp/seed-fuzz-tracing-data/perf" <<'EOF' ||
import struct, sys
b = open(sys.argv[1], 'rb').read()
do, ds = struct.unpack_from('<QQ', b, 40)
if not (struct.unpack_from('<Q', b, 72)[0] & 2):
    sys.exit(1)
off, size = struct.unpack_from('<QQ', b, do + ds)
open(sys.argv[2], 'wb').write(b[off:off + min(size, 8192)])
EOF
	echo "# no tracing data seed: the section was not found"
else
	echo "# perf cannot record sched:sched_switch here: no tracing data seed"
fi

# fuzz-session: the recordings above, and a record --objects stream (with
# call chains, data addresses, allocations), each behind two selector
# bytes (fuzz-session.c: sort keys, stream, children, errors, script, CSV
# (8300: source lines in CSV);
# report, with call graphs (42 48 d8 66: flat, callee, no threshold, a
# print limit and --max-stack 3), the pprof or the Perfetto export)
if [ -x "$B/workloads/objects" ] && [ -r "$B/libpebsshim-objects.so" ]; then
	"$B/pebs-shim" record -q --objects -e page-faults -c 1 -d -g -o - -- \
		"$B/workloads/objects" 2>/dev/null | head -c 8000 >"$tmp/objects.stream"
fi
# and a --call-graph dwarf stream (user registers and 512 bytes of stack
# per sample, unwound by the session with the CFI of the files it maps)
"$B/pebs-shim" record -q -e cpu-clock --call-graph dwarf,512 -o - -- \
	"$B/workloads/memwalk" --seconds 0.1 --mb 4 2>/dev/null |
	head -c 30000 >"$tmp/dwarf.stream"
for f in "$tmp"/seed-fuzz-perfdata/* "$tmp/objects.stream" "$tmp/dwarf.stream"; do
	[ -s "$f" ] || continue
	for sel in 0000 0200 1300 8300 2500 4a00 a600 b700 ec00 0001 0a05 0002 0802 \
		1042 1148 b0d8 1066; do
		{ printf "\x${sel:0:2}\x${sel:2:2}"; cat "$f"; } \
			>"$tmp/seed-fuzz-session/$(basename "$f")-$sel"
	done
done

n=0
for t in "${targets[@]}"; do
	n=$((n + 1))
	bin=$B/fuzz/$t
	if [ ! -x "$bin" ]; then
		if ! have_libfuzzer; then
			echo "ok $n - $t # SKIP libFuzzer unavailable (clang -fsanitize=fuzzer does not link: install clang and libclang-rt-14-dev)"
		else
			echo "not ok $n - $t: $bin not built (run make fuzz)"
		fi
		continue
	fi
	mkdir -p "$tmp/corpus-$t" "$tmp/art-$t"
	seeds=$(ls "$tmp/seed-$t" | wc -l)
	HOME=$tmp/home "$bin" -max_total_time="$T" -timeout=10 -rss_limit_mb=2048 \
		-max_len=8192 -print_final_stats=1 \
		-artifact_prefix="$tmp/art-$t/" \
		"$tmp/corpus-$t" "$tmp/seed-$t" > "$tmp/log-$t" 2>&1
	rc=$?
	# UBSan reports without stopping: a report is a failure too
	grep -q 'runtime error:' "$tmp/log-$t" && rc=${rc/#0/1}
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log-$t")
	cov=$(grep -o 'cov: [0-9]*' "$tmp/log-$t" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "ok $n - $t: ${runs:-?} runs in ${T}s from $seeds seeds, $cov"
	else
		mkdir -p "$B/fuzz/artifacts"
		cp "$tmp/art-$t"/* "$B/fuzz/artifacts/" 2>/dev/null
		echo "not ok $n - $t: exit $rc (reproducers in $B/fuzz/artifacts/)"
		grep -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x' "$tmp/log-$t" |
			head -n 20 | sed 's/^/# /'
	fi
done

# The hostile attr tables: each must run in < 100 ms (libFuzzer's own
# "Executed ... in N ms", sanitizers included).
n=$((n + 1))
bin=$B/fuzz/fuzz-perfdata
if [ ! -x "$bin" ] || [ ! -s "$tmp/big/attrs800" ]; then
	echo "ok $n - 800-attr files # SKIP fuzz-perfdata not built or no python3"
else
	"$bin" -timeout=10 -rss_limit_mb=2048 "$tmp/big/attrs800" \
		"$tmp/big/attrs800-aliased" > "$tmp/log-big" 2>&1
	rc=$?
	ms=$(sed -n 's/^Executed .* in \([0-9]*\) ms$/\1/p' "$tmp/log-big" |
	     tr '\n' ' ')
	slow=$(for m in $ms; do [ "$m" -ge 100 ] && echo "$m"; done)
	if [ $rc -eq 0 ] && [ "$(echo $ms | wc -w)" = 2 ] && [ -z "$slow" ]; then
		echo "ok $n - 800-attr files (180 KB; ids distinct, aliased) in ${ms}ms"
	else
		echo "not ok $n - 800-attr files: exit $rc, times: ${ms:-none} ms (limit 100)"
		tail -n 20 "$tmp/log-big" | sed 's/^/# /'
	fi
fi
