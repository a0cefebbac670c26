#!/bin/bash
# plot.t - `pebs-shim plot`: flame, icicle, timeline and heat pictures of
# real memwalk recordings are well-formed XML (xmllint), render with a
# real renderer (librsvg's rsvg-convert: a PNG of the picture's size that
# is not blank), are the same bytes on every run and fetch nothing
# (no href, src, url(), @import); the folded stacks
# equal perf script's call chains folded as stackcollapse-perf.pl folds
# them (FlameGraph is not in Debian: tests/cli/collapse.awk follows the
# script's rules) for the stacks of memwalk's own code and the sample
# total; the flame graph's widths equal pebs-shim report's shares (chase
# vs stream); in a headless browser (Debian's chromium driven through
# chromedriver) typing a symbol into the search box shows the share
# report gives, and clicking a frame zooms it to the full width; heat
# pages of known objects (tests/workloads/heatfaults, --granule page)
# come hottest first, labelled as report's dso_daddr names them, and as
# address ranges (the default) are the objects' mappings in address
# order with their shares; the demo's recording gives a flame graph as
# tall as its stacks (under 40 rows) and a heat map whose rows are
# memwalk's arrays, and --range picks one of them; 1 M page-fault samples give
# pictures of capped size, the same bytes twice; the timeline names its source; bad input and
# output fail in one line and leave an existing file alone.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
MW=$B/workloads/memwalk
T=$(mktemp -d /tmp/plot-t.XXXXXX)
# the WebDriver session, then the driver and its browser (one process
# group, led by timeout): ended on every way out
wd_port= wd_pid= wd_sid=
wd_stop() {
	[ -n "$wd_sid" ] && curl -s -m 10 -X DELETE "http://127.0.0.1:$wd_port/session/$wd_sid" >/dev/null
	[ -n "$wd_pid" ] && kill -TERM -- "-$wd_pid" 2>/dev/null
	wd_sid= wd_pid=
}
trap 'wd_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
. "$S/tests/tap.sh"

echo "1..55"

# png_check FILE W H: a PNG of W x H whose pixels are not all alike
png_check() {
	python3 - "$@" <<'PYEOF'
import struct, sys, zlib
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, hdr = 8, b'', None
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        hdr = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
pw, ph, depth, ctype = hdr[:4]
if (pw, ph) != (w, h):
    sys.exit('size %dx%d, not %dx%d' % (pw, ph, w, h))
bpp = {2: 3, 6: 4}[ctype] if depth == 8 else sys.exit('depth %d' % depth)
raw, stride = zlib.decompress(idat), pw * bpp
prev, rows, i = bytearray(stride), [], 0
for y in range(ph):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
px = {}
for r in rows:
    for x in range(0, stride, bpp):
        k = r[x:x + 3]
        px[k] = px.get(k, 0) + 1
bg = max(px.values())
if pw * ph - bg < pw * ph // 100:
    sys.exit('blank: %d of %d pixels differ from the background' % (pw * ph - bg, pw * ph))
PYEOF
}
# svg_size FILE: "W H" of the root element
svg_size() {
	sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$1" | head -1
}
# pictures NAME FILE: well-formed, renders, not blank, right size (3 tests)
pictures() {
	local name=$1 f=$2 size
	if xmllint --noout "$f" 2>"$T/xml.err"; then ok "$name: xmllint --noout"
	else nok "$name: xmllint --noout" "$(head -3 "$T/xml.err")"; fi
	if ! command -v rsvg-convert >/dev/null; then
		skip_n 2 "no rsvg-convert (Debian package librsvg2-bin)"
		return
	fi
	if rsvg-convert "$f" -o "$f.png" 2>"$T/rsvg.err"; then ok "$name: rsvg-convert renders it"
	else nok "$name: rsvg-convert renders it" "$(head -3 "$T/rsvg.err")"; fi
	size=$(svg_size "$f")
	if png_check "$f.png" $size 2>"$T/png.err"; then ok "$name: the PNG is ${size/ /x} and not blank"
	else nok "$name: the PNG is ${size/ /x} and not blank" "$(tail -1 "$T/png.err")"; fi
}

# 1-2: recordings of memwalk: cpu-clock with call chains and switch
# records, and without call chains (one level of symbols)
"$PS" record -g --switch-events -e cpu-clock -c 100000 -o "$T/g.data" -- \
	"$MW" --seconds 1 >/dev/null 2>"$T/rec.err"
check "record -g --switch-events memwalk" test -s "$T/g.data"
"$PS" record -e cpu-clock -c 100000 -o "$T/n.data" -- "$MW" --seconds 1 \
	>/dev/null 2>>"$T/rec.err"
check "record memwalk without call chains" test -s "$T/n.data"

# 3-14: each picture
for k in flame icicle timeline; do
	"$PS" plot $k -i "$T/g.data" -o "$T/$k.svg" 2>"$T/$k.err"
	if [ $? = 0 ] && [ ! -s "$T/$k.err" ]; then ok "plot $k: exit 0, no message"
	else nok "plot $k: exit 0, no message" "$(head -2 "$T/$k.err")"; fi
	pictures "$k" "$T/$k.svg"
done

# 15: the same file gives the same bytes
"$PS" plot flame -i "$T/g.data" -o "$T/flame2.svg" 2>/dev/null
"$PS" plot timeline -i "$T/g.data" -o "$T/timeline2.svg" 2>/dev/null
check "the same recording gives byte-identical SVGs (flame, timeline)" \
	bash -c "cmp -s '$T/flame.svg' '$T/flame2.svg' && cmp -s '$T/timeline.svg' '$T/timeline2.svg'"

# 16: self-contained: nothing to fetch (the only URIs are namespaces)
cat "$T"/flame.svg "$T"/timeline.svg "$T"/icicle.svg |
	grep -oE '(href|src)=|url\(|@import|https?://[^"]*' |
	grep -vxE 'http://www.w3.org/(2000/svg|1999/xhtml)' >"$T/refs"
empty "the pictures are self-contained: no href, src, url(), @import, only namespace URIs" "$T/refs"

# 17-18: the timeline says where its segments came from
check "timeline title: segments from PERF_RECORD_SWITCH (record --switch-events)" \
	grep -q 'thread segments from PERF_RECORD_SWITCH<' "$T/timeline.svg"
"$PS" plot timeline -i "$T/n.data" -o "$T/tl-n.svg" 2>/dev/null
if grep -q 'thread segments from sample TIDs<' "$T/tl-n.svg" &&
   grep -q '>walker [0-9]* (' "$T/tl-n.svg" && grep -q '>streamer [0-9]* (' "$T/tl-n.svg"; then
	ok "timeline title: segments from sample TIDs without switch records; walker and streamer in the legend"
else
	nok "timeline title: segments from sample TIDs without switch records; walker and streamer in the legend" \
	    "$(grep -oE '>[^<]* \([0-9.]*% of the columns\)' "$T/tl-n.svg" | head -4)"
fi

# 19-21: folded stacks against perf script, as stackcollapse-perf.pl
# folds them (counts are samples, as the script counts)
"$PS" plot flame -i "$T/g.data" --format=collapsed >"$T/ours.folded" 2>"$T/c.err"
check "--format=collapsed: exit 0, lines 'stack count' sorted bytewise" \
	bash -c "test -s '$T/ours.folded' && ! grep -qvE '^[^ ].* [0-9]+\$' '$T/ours.folded' &&
		 LC_ALL=C sort -c '$T/ours.folded'"
if command -v perf >/dev/null; then
	perf script -i "$T/g.data" 2>/dev/null |
		LC_ALL=C awk -f "$S/tests/cli/collapse.awk" | LC_ALL=C sort >"$T/perf.folded"
	n_perf=$(awk '{ n += $NF } END { print n + 0 }' "$T/perf.folded")
	n_ours=$(awk '{ n += $NF } END { print n + 0 }' "$T/ours.folded")
	check "the stacks count every sample perf script shows ($n_ours, perf $n_perf)" \
		test "$n_ours" = "$n_perf" -a "$n_ours" -gt 1000
	# memwalk's own frames: each stack cut at its first frame that is
	# not memwalk's code (kernel symbols, libraries' versioned names,
	# ld.so's unsized symbols and [vdso] are lib/symbols/symbols.c's business:
	# see the README), counts summed per cut stack: they agree exactly
	own='walker streamer start_thread main chase stream alloc_touched first_touch build_ring'
	cut() {
		awk -v own="$own" 'BEGIN { n = split(own, o, " "); for (i = 1; i <= n; i++) k[o[i]] = 1 }
			{ c = $NF; sub(/ [0-9]+$/, ""); m = split($0, f, ";"); s = f[1]
			  for (i = 2; i <= m && (f[i] in k); i++) s = s ";" f[i]
			  t[s] += c }
			END { for (s in t) print s, t[s] }' "$1" | LC_ALL=C sort
	}
	cut "$T/perf.folded" >"$T/perf.mine"
	cut "$T/ours.folded" >"$T/ours.mine"
	# and whole lines (kernel frames too): those of 95 % of the samples
	same=$(LC_ALL=C sort "$T/ours.folded" | LC_ALL=C comm -12 "$T/perf.folded" - | awk '{ n += $NF } END { print n + 0 }')
	if grep -q ';chase ' "$T/perf.mine" && diff "$T/perf.mine" "$T/ours.mine" >"$T/fold.diff" &&
	   [ $((same * 100)) -ge $((n_perf * 95)) ]; then
		ok "perf script | stackcollapse rules: memwalk's stacks identical ($(wc -l <"$T/ours.mine") stacks); whole lines of $same of $n_perf samples identical"
	else nok "perf script | stackcollapse rules: memwalk's stacks identical, whole lines of 95 % of the samples ($same of $n_perf)" "$(head -6 "$T/fold.diff")"; fi
else
	skip_n 2 "no perf to compare with"
fi

# 22-24: widths against report's shares (chase vs stream)
share_report() {	# FILE SYM [OPTION]: report's first share of that symbol
	"$PS" report -i "$1" --sort sym --top 0 $3 2>/dev/null |
		awk -v s="$2" '$NF == s && $(NF - 1) == "[.]" { sub(/%/, "", $1); print $1; exit }'
}
share_svg() {		# FILE NAME: the frames of that name, their share
	python3 - "$1" "$2" <<'PYEOF'
import re, sys
svg = open(sys.argv[1]).read()
total = int(re.search(r'TOTAL = (\d+)', svg).group(1))
spans = sorted((int(x), int(v)) for x, v, n in re.findall(
    r'data-x="(\d+)" data-v="(\d+)" data-d="\d+" data-n="([^"]*)"', svg) if n == sys.argv[2])
s, end = 0, -1
for x, v in spans:
    if x >= end: s += v; end = x + v
    elif x + v > end: s += x + v - end; end = x + v
print('%.2f' % (100.0 * s / total))
PYEOF
}
"$PS" plot flame -i "$T/n.data" -o "$T/n.svg" 2>/dev/null
rc=$(share_report "$T/n.data" chase) rs=$(share_report "$T/n.data" stream)
fc=$(share_svg "$T/n.svg" chase) fs=$(share_svg "$T/n.svg" stream)
check "flame widths = report's shares without call chains: chase $fc% ($rc%), stream $fs% ($rs%)" \
	test -n "$rc" -a "$fc" = "$rc" -a "$fs" = "$rs"
check "chase is wider than stream (memwalk's known split: $fc% vs $fs%)" \
	awk -v a="$fc" -v b="$fs" 'BEGIN { exit !(a > b && b > 0) }'
# with call chains chase's frames also hold the interrupts taken in it:
# its width is the period of the stacks through chase, and the stacks
# that end in chase hold report's share of chase (its Self), the stacks
# through it its Children
"$PS" plot flame -i "$T/g.data" --format=collapsed --by=period >"$T/period.folded" 2>/dev/null
read -r incl self <<<"$(awk '{ c = $NF; t += c; if ($0 ~ /;chase[; ]/) i += c; if ($0 ~ /;chase [0-9]+$/) s += c }
	END { printf "%.2f %.2f\n", 100 * i / t, 100 * s / t }' "$T/period.folded")"
rc=$(share_report "$T/g.data" chase --no-children)
ch=$(share_report "$T/g.data" chase) fc=$(share_svg "$T/flame.svg" chase)
check "with call chains: chase's frames $fc% = stacks through chase $incl% = report's Children $ch%; stacks ending in chase $self% = report's Self $rc%" \
	test -n "$rc" -a "$fc" = "$incl" -a "$ch" = "$incl" -a "$self" = "$rc"

# 25-26: a real browser driven as a user drives it (W3C WebDriver:
# Debian's chromedriver and chromium): click the search box, type a
# symbol, read the share it shows: report's share of that symbol; click
# a frame: it is zoomed to the whole width
wd() {		# METHOD PATH [JSON]: the session's answer (bounded)
	curl -s -m 30 -X "$1" -H 'Content-Type: application/json' \
		${3:+-d "$3"} "http://127.0.0.1:$wd_port/session${wd_sid:+/$wd_sid}$2"
}
wd_find() {	# CSS: the element's reference
	wd POST /element "$(jq -cn --arg c "$1" '{using: "css selector", value: $c}')" |
		jq -r '.value | objects | to_entries[0].value // empty'
}
wd_js() {	# SCRIPT: its value, as JSON
	wd POST /execute/sync "$(jq -cn --arg s "$1" '{script: $s, args: []}')" | jq -c .value
}
wd_start() {	# a driver on a free private port, a session; else $why
	local i caps
	wd_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	# timeout leads its own process group (chromedriver and chromium
	# in it) and ends it after 180 s whatever happens here
	timeout 180 chromedriver --port="$wd_port" >"$T/chromedriver.log" 2>&1 &
	wd_pid=$!
	for ((i = 0; i < 100; i++)); do
		curl -s -m 2 "http://127.0.0.1:$wd_port/status" | grep -q '"ready":true' && break
		sleep 0.1
	done
	caps=$(jq -cn --arg d "$T/chromium" --arg b "$browser" '{capabilities: {alwaysMatch: {
		browserName: "chrome", "goog:chromeOptions": {binary: $b, args: [
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync",
		"--window-size=1400,1000", ("--user-data-dir=" + $d)]}}}}')
	wd_sid=$(wd POST "" "$caps" | jq -r '.value.sessionId // empty')
	[ -n "$wd_sid" ] && return 0
	why="chromedriver gave no session: $(tail -1 "$T/chromedriver.log")"
	return 1
}
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ] || ! command -v chromedriver >/dev/null; then
	skip_n 2 "no chromium and chromedriver (Debian packages chromium, chromium-driver) for the browser tests"
elif ! wd_start; then
	nok "chromium through chromedriver: a session" "$why"
	nok "chromium: zoom" "no session"
else
	wd POST /url "$(jq -cn --arg u "file://$T/n.svg" '{url: $u}')" >/dev/null
	q=$(wd_find '#q')
	wd POST "/element/$q/click" '{}' >/dev/null
	wd POST "/element/$q/value" '{"text": "^chase$"}' >/dev/null
	m=$(wd_find '#matched')
	got=$(wd GET "/element/$m/text" | jq -r '.value // empty')
	rc=$(share_report "$T/n.data" chase)
	if [ -n "$rc" ] && [ "$got" = "Matched: $rc%" ]; then
		ok "chromium: typing ^chase\$ into the search box shows '$got', report's chase share ($rc%)"
	else
		nok "chromium: typing ^chase\$ into the search box shows '$got', report's chase share ($rc%)" \
		    "box: $(wd_js 'return document.getElementById("q").value')"
	fi
	# zoom: click chase's frame; its rect then spans the drawing's width
	# (W, less the 0.5 px gap), the root is faded, stream is hidden
	f=$(wd_find 'g.f[data-n="chase"] rect')
	wd POST "/element/$f/click" '{}' >/dev/null
	z=$(wd_js 'var g = document.querySelector("g.f[data-n=\"chase\"]"), r = g.querySelector("rect");
		return [+r.getAttribute("width"), W, +r.getAttribute("x"), X0,
			document.querySelector("g.f[data-n=\"all\"]").getAttribute("class"),
			document.querySelector("g.f[data-n=\"stream\"]").getAttribute("class")]')
	if jq -e '.[0] == .[1] - 0.5 and .[2] == .[3] and (.[4] | test("faded")) and
		  (.[5] | test("hide"))' <<<"$z" >/dev/null 2>&1; then
		ok "chromium: clicking chase zooms it to the full width (width, W, x, X0, root, stream: $z)"
	else
		nok "chromium: clicking chase zooms it to the full width" "width, W, x, X0, root, stream: $z"
	fi
fi
wd_stop

# 27-28: per thread, icicle
"$PS" plot flame -i "$T/g.data" --per-thread --format=collapsed >"$T/pt.folded" 2>/dev/null
check "--per-thread: every stack starts with comm-pid/tid" \
	bash -c "test -s '$T/pt.folded' && ! grep -qvE '^[^;]+-[0-9]+/[0-9]+[; ]' '$T/pt.folded' &&
		 grep -qE '^walker-[0-9]+/[0-9]+;' '$T/pt.folded'"
check "icicle: the root 'all' at the top (y of the first frame row)" \
	grep -q '<g class="f" data-x="0" data-v="[0-9]*" data-d="0" data-n="all"><title>all ([0-9]* samples, period [0-9]*, 100.00%)</title><rect x="10.0" y="56.0"' "$T/icicle.svg"

# 29-34: heat: page faults with data addresses on known objects
# (tests/workloads/heatfaults: its main stack faults 24 times a page,
# its brk heap 18, the array `table` 12, a private mapping of its file
# 8, a thread's stack 4), recorded with -p once it has started (the
# maps synthesized from /proc name [heap] and [stack]; the kernel's
# MMAP2 of a fresh brk says //anon, as perf shows it)
HF=$B/workloads/heatfaults
"$HF" "$T/go" >"$T/hf.out" &
hf=$!
for ((i = 0; i < 200; i++)); do [ -s "$T/hf.out" ] && break; sleep 0.05; done
"$PS" record -d -e page-faults -c 1 -p "$hf" --duration 30 -o "$T/pf.data" \
	>/dev/null 2>>"$T/rec.err" &
rec=$!
# the recorder's events are open: go
for ((i = 0; i < 200; i++)); do
	ls -l "/proc/$rec/fd" 2>/dev/null | grep -q perf_event && break
	sleep 0.05
done
sleep 0.3
touch "$T/go"
wait "$rec"
wait "$hf"
"$PS" plot heat -i "$T/pf.data" --granule page -o "$T/heat.svg" 2>"$T/heat.err"
empty "plot heat --granule page of page faults with -d: exit 0, no message" "$T/heat.err"
# rows: address, label, share; kinds by the objects heatfaults printed
"$PS" report -i "$T/pf.data" --sort page,dso_daddr --top 0 2>/dev/null |
	awk 'NF >= 2 && $1 !~ /^#/ && $(NF - 1) ~ /^0x/ { print $(NF - 1), $NF }' >"$T/pages"
python3 - "$T/heat.svg" "$T/hf.out" "$T/pages" >"$T/heat.check" <<'PYEOF'
import re, sys
svg = open(sys.argv[1]).read()
pid, heap, table, file = open(sys.argv[2]).read().split()
table, file = int(table, 16), int(file, 16)
report = {}
for l in open(sys.argv[3]):
    a, o = l.split()
    report[int(a, 16)] = o
rows = re.findall(r'<text x="6\.0" y="[0-9.]+">(0x[0-9a-f]+) ([^<]*)</text>', svg)
shares = [float(x) for x in re.findall(r'>([0-9.]+)%</text>', svg)]
kinds, bad = [], []
for (a, label), share in zip(rows, shares):
    a = int(a, 16)
    if table <= a < table + 8 * 4096:
        k, want = 'T', r'heatfaults\+0x[0-9a-f]+ table\+0x%x$' % (a - table)
    elif file <= a < file + 8 * 4096:
        k, want = 'F', r'heatfaults\+0x%x( |$)' % (a - file)
    elif label.startswith('[stack'):
        k, want = 'S', r'\[stack:%s\]$' % pid
    elif label.startswith('[heap'):
        k, want = 'H', r'\[heap\]$'
    else:
        k, want = label.split()[0], r'\S+$'
    kinds.append(k)
    if not re.match(want, label):
        bad.append('%#x %r is not %s' % (a, label, want))
    # the report's dso_daddr of that page: the same object
    word = re.sub(r'^\[stack:\d+\]$', '[stack]', label.split()[0])
    word = re.sub(r'\+0x[0-9a-f]+$', '', word)
    if report.get(a) != word:
        bad.append('%#x %r: report says %r' % (a, label, report.get(a)))
runs = []
for k in kinds:
    if runs and runs[-1][0] == k: runs[-1][1] += 1
    else: runs.append([k, 1])
print(' '.join('%s%d' % (k, n) for k, n in runs[:6]))
print('sorted' if shares == sorted(shares, reverse=True) and len(shares) == len(rows) else 'unsorted')
for b in bad[:5]: print(b)
PYEOF
read -r runs <"$T/heat.check"
if [ "$(sed -n 2p "$T/heat.check")" = sorted ] &&
   awk -v r="$runs" 'BEGIN { n = split(r, x, " "); if (n < 5) exit 1
	want = "SHTFa"
	for (i = 1; i <= 5; i++) {
		k = substr(x[i], 1, 1); c = substr(x[i], 2) + 0
		if (i < 5 && k != substr(want, i, 1)) exit 1
		if (i == 5 && x[i] !~ /^anon[0-9]+$/) exit 1
		if (i == 5) c = substr(x[i], 5) + 0
		if (c < 8) exit 1
	} }'; then
	ok "heat rows hottest first: main stack, heap, table, file, thread stack ($runs)"
else
	nok "heat rows hottest first: main stack, heap, table, file, thread stack" "runs: $runs" "$(sed -n 2p "$T/heat.check")"
fi
if [ "$(wc -l <"$T/heat.check")" = 2 ] && [ -s "$T/pages" ]; then
	ok "heat labels: [stack:PID], [heap], heatfaults+0xOFF table+0xOFF, the file's offsets, anon; each the object report --sort page,dso_daddr gives"
else
	nok "heat labels: [stack:PID], [heap], heatfaults+0xOFF table+0xOFF, the file's offsets, anon; each the object report --sort page,dso_daddr gives" \
	    "$(tail -n +3 "$T/heat.check")"
fi
pictures heat "$T/heat.svg"

# 35: the same recording as address ranges (the default): rows in
# address order, each object's mapping as ranges labelled with start,
# size and name (table with its symbol), the shares summing to 100 %,
# and per object in heatfaults' order: stack 24, heap 18, table 12,
# file 8, thread stack 4 faults a page
"$PS" plot heat -i "$T/pf.data" -o "$T/heatr.svg" 2>"$T/heatr.err"
python3 - "$T/heatr.svg" "$T/hf.out" >"$T/heatr.check" 2>&1 <<'PYEOF'
import re, sys
svg = open(sys.argv[1]).read()
pid, heap, table, file = open(sys.argv[2]).read().split()
heap, table, file = int(heap, 16), int(table, 16), int(file, 16)
rows = re.findall(r'<text x="6\.0" y="[0-9.]+">(0x[0-9a-f]+) ([0-9.]+ [KMG]?i?B) ([^<]*)</text>', svg)
shares = [float(x) for x in re.findall(r'>([0-9.]+)%</text>', svg)]
unit = {'B': 1, 'KiB': 1024, 'MiB': 1 << 20, 'GiB': 1 << 30}
bad, kind = [], {}
starts = [int(a, 16) for a, _, _ in rows]
if starts != sorted(starts): bad.append('not in address order')
if len(rows) != len(shares) or not rows: bad.append('%d rows, %d shares' % (len(rows), len(shares)))
if abs(sum(shares) - 100) > 0.1: bad.append('shares sum to %.2f' % sum(shares))
for (a, size, name), share in zip(rows, shares):
    a, n = int(a, 16), float(size.split()[0]) * unit[size.split()[1]]
    if table <= a < table + 8 * 4096:
        k = 'T'
        if (a, n, re.sub(r'\+0x[0-9a-f]+', '', name)) != (table, 8 * 4096, 'heatfaults table'):
            bad.append('table row %#x %s %r' % (a, size, name))
    elif file <= a < file + 8 * 4096:
        k = 'F'
        if (a, n, name) != (file, 8 * 4096, 'heatfaults+0x0'):
            bad.append('file row %#x %s %r' % (a, size, name))
    elif heap <= a < heap + 12 * 4096:
        k = 'H'
        if name != '[heap]': bad.append('heap row %#x %r' % (a, name))
    elif name == '[stack:%s]' % pid: k = 'S'
    elif name.startswith('anon'): k = 'a'
    else: k = name
    kind[k] = kind.get(k, 0) + share
order = sorted((v, k) for k, v in kind.items() if k in 'SHTFa')
print(''.join(k for v, k in reversed(order)), ' '.join('%s %.2f' % (k, v) for k, v in sorted(kind.items())))
for b in bad: print(b)
PYEOF
if [ ! -s "$T/heatr.err" ] && [ "$(wc -l <"$T/heatr.check")" = 1 ] &&
   [ "$(awk '{ print $1 }' "$T/heatr.check")" = SHTFa ]; then
	ok "heat ranges: address order, table and file rows at their addresses (32 KiB each), shares 100 %, per object stack > heap > table > file > thread stack ($(sed 's/^[^ ]* //' "$T/heatr.check"))"
else
	nok "heat ranges: address order, table and file rows at their addresses, shares 100 %, per object stack > heap > table > file > thread stack" \
	    "$(head -4 "$T/heatr.check")" "$(head -2 "$T/heatr.err")"
fi

# 36-43: the demo's recording (scripts/demo.sh: -e auto, the best event
# here, and page faults with data addresses, of memwalk --share): the
# flame graph is as tall as its stacks (rows = (height - 56 - 34) / 16,
# a run of [unknown] frames one row), the heat map's rows are memwalk's
# arrays (the walker's 64 MiB ring, the streamer's 16 MiB buffer: one
# anonymous mmap each), the fine view of the ring is its pages
"$PS" record -g --switch-events -e auto -e page-faults:period=1 -o "$T/demo.data" -- \
	"$MW" --seconds 1 --share >/dev/null 2>>"$T/rec.err"
ev0=$("$PS" report -i "$T/demo.data" 2>/dev/null | sed -n 's/^# event 0   : \([^ ]*\) (.*/\1/p')
ev1=$("$PS" report -i "$T/demo.data" 2>/dev/null | sed -n 's/^# event 1   : \([^ ]*\) (.*/\1/p')
check "record as the demo does: events $ev0 and $ev1" test -n "$ev0" -a "$ev1" = page-faults:period=1
"$PS" plot flame -i "$T/demo.data" --event "$ev0" -o "$T/demo-flame.svg" 2>"$T/df.err"
h=$(svg_size "$T/demo-flame.svg" | awk '{ print $2 }')
rows=$(( (${h:-9999} - 56 - 34) / 16 ))
if [ "$rows" -lt 40 ] && [ "$rows" -ge 3 ]; then
	ok "the demo's flame graph: $rows rows of frames ($h px), under 40"
else
	nok "the demo's flame graph: $rows rows of frames ($h px), under 40" "$(head -2 "$T/df.err")" \
	    "deepest: $(grep -o 'data-d="[0-9]*" data-n="[^"]*"' "$T/demo-flame.svg" | sort -t'"' -k2 -n | tail -2)"
fi
"$PS" plot heat -i "$T/demo.data" --event "$ev1" -o "$T/demo-heat.svg" 2>"$T/dh.err"
python3 - "$T/demo-heat.svg" >"$T/dh.check" 2>&1 <<'PYEOF'
import re, sys
svg = open(sys.argv[1]).read()
rows = re.findall(r'<text x="6\.0" y="[0-9.]+">(0x[0-9a-f]+) ([0-9.]+ [KMG]?i?B) ([^<]*)</text>', svg)
shares = [float(x) for x in re.findall(r'>([0-9.]+)%</text>', svg)]
# each range exactly, from its cells' tooltips: start-end (size) name
tips = sorted(set((int(a, 16), int(e, 16), n) for a, e, n in re.findall(
    r'<title>(0x[0-9a-f]+)-(0x[0-9a-f]+) \([^)]*\) (.*?), (?:of the mapping|pid)', svg)))
def array(name, size):
    # the array: rows of one thread end to end covering its size (a
    # density change, e.g. samples the recording lost, may cut it in
    # more than one row)
    i = 0
    while i < len(tips):
        if tips[i][2] != name:
            i += 1
            continue
        j = i
        while j + 1 < len(tips) and tips[j + 1][2] == name and tips[j][1] == tips[j + 1][0]:
            j += 1
        if tips[i][2] == name and tips[j][1] - tips[i][0] == size:
            return tips[i:j + 1]
        i = j + 1
ring, buf = array('anon (walker)', 64 << 20), array('anon (streamer)', 16 << 20)
print('%#x %#x' % (ring[0][0], ring[-1][1]) if ring else '- 0')
print('%d rows, ring %s row(s), buffer %s row(s), sum %.2f' % (len(rows), ring and len(ring), buf and len(buf), sum(shares)))
ok = ring and buf and abs(sum(shares) - 100) < 0.1 and len(rows) <= 48
print('ok' if ok else 'bad: ' + ' | '.join(' '.join(r) for r in rows[:12]))
PYEOF
if [ ! -s "$T/dh.err" ] && [ "$(sed -n 3p "$T/dh.check")" = ok ]; then
	ok "the demo's heat map: rows are ranges, the walker's 64 MiB ring and the streamer's 16 MiB buffer among them ($(sed -n 2p "$T/dh.check"))"
else
	nok "the demo's heat map: rows are ranges, the walker's 64 MiB ring and the streamer's 16 MiB buffer among them" "$(cat "$T/dh.check")" "$(head -2 "$T/dh.err")"
fi
pictures "demo heat" "$T/demo-heat.svg"
read -r rs re <"$T/dh.check"
"$PS" plot heat -i "$T/demo.data" --event "$ev1" --granule page --range "$rs-$re" \
	-o "$T/ring.svg" 2>"$T/ring.err"
python3 - "$T/ring.svg" "$rs" "${re:-0}" >"$T/ring.check" 2>&1 <<'PYEOF'
import re, sys
svg = open(sys.argv[1]).read()
lo, hi = int(sys.argv[2], 16) if sys.argv[2] != '-' else 0, int(sys.argv[3], 16)
rows = re.findall(r'<text x="6\.0" y="[0-9.]+">(0x[0-9a-f]+) ([^<]*)</text>', svg)
bad = [a for a, n in rows if not lo <= int(a, 16) < hi or int(a, 16) % 4096 or n != 'anon']
print(len(rows), len(bad), 'more rows' in svg, 'Data heat map: pages of ' in svg)
PYEOF
check "--granule page --range START-END (the ring): 48 page rows, all anon pages inside it, the rest summed ($(cat "$T/ring.check"))" \
	test ! -s "$T/ring.err" -a "$(cat "$T/ring.check")" = "48 0 True True"
"$PS" plot heat -i "$T/demo.data" --range 12-zz -o "$T/bad.svg" 2>"$T/e6"; r6=$?
check "a bad --range: exit 2, one line naming the forms, no picture" \
	bash -c "test $r6 = 2 && test \$(wc -l <'$T/e6') = 1 && grep -q 'give ADDR-ADDR in hex' '$T/e6' && test ! -e '$T/bad.svg'"

# 44-47: responsive at 1 M samples: page faults of bench/faults with
# call chains and data addresses; each picture is aggregated before it
# is drawn, so its elements are capped whatever the recording's size,
# and the same file gives the same bytes. The caps: flame 50000 frames
# (4 elements each: g, title, rect, text); timeline 555 columns per CPU
# (a segment's rect and title and a density rect each) and a 24-thread
# legend; heat 48 rows x 120 cells (rect and title each)
need_bin "$B/bench/faults"
"$PS" record -d -g -e page-faults -c 1 -o "$T/big.data" -- \
	"$B/bench/faults" 1050000 >/dev/null 2>>"$T/rec.err"
# (the samples a busy machine's recorder lost count too: the caps are
# checked here, not the ring)
nbig=$("$PS" report -i "$T/big.data" --top 1 2>/dev/null |
	awk '$1 == "#" && $2 == "samples" { s = $4 }
	     $1 == "#" && $2 == "lost" { l = $4 } END { print s + l }')
check "a recording of ${nbig:-no} samples and lost ones (at least 1000000)" test "${nbig:-0}" -ge 1000000
ncpu=$(nproc)
for k in flame timeline heat; do
	"$PS" plot $k -i "$T/big.data" -o "$T/big-$k.svg" 2>"$T/big.err"
	"$PS" plot $k -i "$T/big.data" -o "$T/big-$k-2.svg" 2>>"$T/big.err"
	el=$(grep -o '<[a-zA-Z]' "$T/big-$k.svg" | wc -l)
	case $k in
	flame) cap=$((4 * 50000 + 32)) ;;
	timeline) cap=$((ncpu * (3 * 555 + 1) + 2 * 24 + 32)) ;;
	heat) cap=$((48 * (2 * 120 + 2) + 32)) ;;
	esac
	if [ ! -s "$T/big.err" ] && cmp -s "$T/big-$k.svg" "$T/big-$k-2.svg" &&
	   [ "$el" -gt 10 ] && [ "$el" -le "$cap" ] && xmllint --noout "$T/big-$k.svg" 2>/dev/null; then
		ok "1 M samples, $k: $el elements (cap $cap), well-formed, two runs byte-identical"
	else
		nok "1 M samples, $k: $el elements (cap $cap), well-formed, two runs byte-identical" "$(head -2 "$T/big.err")"
	fi
done
rm -f "$T"/big*

# 48: heat without data addresses says so
"$PS" plot heat -i "$T/n.data" -o "$T/heat-n.svg" 2>"$T/heatn.err"
check "plot heat without data addresses: one line naming -d" \
	bash -c "grep -q 'no sample has a data address: record with -d' '$T/heatn.err' &&
		 test \$(wc -l <'$T/heatn.err') = 1"

# 49-52: bad use
"$PS" plot pie -i "$T/n.data" 2>"$T/e1"; r1=$?
check "an unknown kind: exit 2, one line naming the kinds" \
	bash -c "test $r1 = 2 && grep -q 'give flame, icicle, timeline or heat' '$T/e1' && test \$(wc -l <'$T/e1') = 1"
"$PS" plot flame -i "$T/nope.data" -o "$T/x.svg" 2>"$T/e2"; r2=$?
check "a missing input: exit 1, one line, no output file" \
	bash -c "test $r2 = 1 && test \$(wc -l <'$T/e2') = 1 && test ! -e '$T/x.svg'"
"$PS" plot flame -i "$T/g.data" -o /dev/full 2>"$T/e3"; r3=$?
check "a device as output: exit 1, one line, the device left alone" \
	bash -c "test $r3 = 1 && test \$(wc -l <'$T/e3') = 1 && test -c /dev/full"
# a write that fails half way (a file size limit, as a full disk):
# the old file stays whole, no temporary file is left. 2 KiB: less than
# the inline CSS and JS alone (a non-root recording of few frames gives
# an SVG of 9 KiB, under the 16 KiB this used to allow)
echo keep >"$T/keep.svg"
(ulimit -f 2; trap '' XFSZ; exec "$PS" plot flame -i "$T/g.data" -o "$T/keep.svg") 2>"$T/e4"; r4=$?
check "a failed write: exit 1, one line, the old file kept, no temporary left" \
	bash -c "test $r4 = 1 && test \$(wc -l <'$T/e4') = 1 && test \"\$(cat '$T/keep.svg')\" = keep &&
		 test -z \"\$(ls '$T' | grep '^keep.svg.')\""

# 53: --by=weight without weights
echo keep >"$T/w.svg"
"$PS" plot flame -i "$T/n.data" --by=weight -o "$T/w.svg" 2>"$T/e5"; r5=$?
check "--by=weight on samples without a weight: exit 1, one line, the old file kept" \
	bash -c "test $r5 = 1 && grep -q 'no sample has a weight' '$T/e5' && test \"\$(cat '$T/w.svg')\" = keep"

# 54-55: the manual
LC_ALL=C.UTF-8 groff -ww -man -Tutf8 "$S/man/pebs-shim-plot.1" >/dev/null 2>"$T/groff.err"
empty "man/pebs-shim-plot.1 renders without groff warnings" "$T/groff.err"
"$PS" plot --help | grep -oE -- '--[a-z][a-z-]+' | sort -u >"$T/opts"
missing=$(while read -r o; do
	grep -qF -- "${o//-/\\-}" "$S/man/pebs-shim-plot.1" || echo "$o"
done <"$T/opts")
check "every option of plot --help is in pebs-shim-plot(1) ($(wc -l <"$T/opts") options${missing:+; missing: $missing})" \
	test -z "$missing" -a -s "$T/opts"
