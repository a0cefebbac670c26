#!/bin/bash
# export.t - `pebs-shim export --format pprof` read by the real client,
# Debian's go tool pprof (golang-go): -top gives report --sort sym's
# functions and shares (to 0.1 pp) on a fresh page-fault recording and
# the fixtures, -tags the labels with their counts (data_object by the
# data objects of record --objects), -raw the mappings with
# perf buildid-list's build ids; splits by window and event; filters;
# pprof -http's page in headless chromium; mode 0600, byte-identical output,
# errors.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
GO=$(command -v go || ls /usr/lib/go/bin/go 2>/dev/null)
[ -n "$GO" ] || skip_all "go is not installed (apt-get install golang-go): no go tool pprof to read the exports"
export PPROF_TMPDIR=$T HOME=$T GOCACHE=$T/gocache
pprof() { "$GO" tool pprof "$@" 2>/dev/null; }
A=$PEBS_SRC/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data
I=$PEBS_SRC/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
echo 1..19

# same_shares DATA PB: report --sort sym's shares per function (Self:
# --no-children) equal pprof -top's flat% (names summed on each side;
# 0.1 pp)
same_shares() {
	"$tool" report -i "$1" --sort sym --top 0 --no-children 2>/dev/null |
		awk '/^# samples by --sort keys/ { on = 1; next }
		     on && $1 ~ /%$/ { p = $1; sub(/%/, "", p)
			n = $0; sub(/^[^[]*\[[.k]\] /, "", n)
			s[n] += p }
		     END { for (n in s) print "R\t" n "\t" s[n] }' >"$T/shares"
	pprof -top -nodefraction=0 -edgefraction=0 "$2" |
		awk '/^ +flat +flat%/ { on = 1; next }
		     on { p = $2; sub(/%/, "", p); n = $0
			  sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n)
			  s[n] += p }
		     END { for (n in s) print "P\t" n "\t" s[n] }' >>"$T/shares"
	awk -F'\t' '{ v[$1, $2] = $3; names[$2] = 1; nr[$1]++ }
		END { if (!nr["R"] || !nr["P"]) { print "# no rows"; exit 1 }
		      for (n in names) { d = v["R", n] - v["P", n]
			if (d > 0.1 || d < -0.1) { bad++
			  if (bad < 5) print "# " n ": report " v["R", n] \
				"% pprof " v["P", n] "%" } }
		      exit bad > 0 }' "$T/shares"
}

"$tool" record -e page-faults -c 1 -d -g -o "$T/pf.data" -- \
	"$touchpages" 2000 "$T/addrs" 2>"$T/rec.err"
ok_rc $? "record -e page-faults -c 1 -d -g touchpages exits 0"
"$tool" export --format pprof -i "$T/pf.data" -o "$T/pf.pb.gz" \
	--labels comm,tid,cpu,mem_level,data_page 2>"$T/err"
check "export --format pprof exits 0, silent, a gzip file of mode 0600" \
	bash -c "test ! -s '$T/err' && gzip -t '$T/pf.pb.gz' &&
		 test \$(stat -c %a '$T/pf.pb.gz') = 600"
out=$(same_shares "$T/pf.data" "$T/pf.pb.gz")
ok_rc $? "pprof -top: the functions and shares of report --sort sym (page faults)"
[ -n "$out" ] && echo "$out"
samples=$(sed -n 's/^pebs-shim record: \([0-9]*\) samples written.*/\1/p' "$T/rec.err")
pprof -tags "$T/pf.pb.gz" >"$T/tags"
check "pprof -tags: comm touchpages holds all $samples samples; tid, cpu, mem_level, data_page listed" \
	bash -c "grep -qE '^ *comm: Total $samples\\.0' '$T/tags' &&
		 grep -qE '^ +$samples\\.0 \\( *100%\\): touchpages' '$T/tags' &&
		 grep -q '^ *tid: Total' '$T/tags' && grep -q '^ *cpu: Total' '$T/tags' &&
		 grep -q '^ *mem_level: Total' '$T/tags' &&
		 grep -qE '^ +[0-9.]+ \\( *[0-9.]+%\\): 0x[0-9a-f]+000\$' '$T/tags'"
pprof -raw "$T/pf.pb.gz" | sed -n '/^Mappings/,$p' | awk 'NR > 1 { print $3, $4 }' |
	sort >"$T/maps"
perf buildid-list -i "$T/pf.data" 2>/dev/null | awk '{ print $2, $1 }' | sort >"$T/bids"
join "$T/maps" "$T/bids" >"$T/joined"
check "pprof -raw: the mappings carry perf buildid-list's build ids (ld.so, libc, touchpages, kernel)" \
	bash -c "test \$(wc -l <'$T/joined') -ge 3 && awk '\$2 != \$3 { exit 1 }' '$T/joined' &&
		 grep -q '/touchpages ' '$T/joined'"
if [ -d /usr/lib/debug/.build-id ]; then
	check "pprof -lines: source lines from the debug files (libc6-dbg)" \
		bash -c "'$GO' tool pprof -top -lines '$T/pf.pb.gz' 2>/dev/null |
			 grep -qE ' [^ ]+\\.c:[1-9][0-9]*\$'"
else
	skip "no /usr/lib/debug/.build-id (libc6-dbg): no source lines to show"
fi

# the web UI: pprof -http's top page, loaded (and its table filled by
# its script) in headless chromium, names report's top function first
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then
	skip "no chromium (Debian package chromium): no browser to load pprof -http's page"
else
	port=$((20000 + $$ % 20000))
	"$("$GO" tool -n pprof)" -no_browser -http=127.0.0.1:$port "$T/pf.pb.gz" \
		>"$T/http.log" 2>&1 &
	http_pid=$!
	for i in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$port/ui/top" && break
		sleep 0.2
	done
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$T/chromium" --dump-dom \
		"http://127.0.0.1:$port/ui/top" 2>/dev/null >"$T/dom"
	kill "$http_pid" 2>/dev/null
	wait "$http_pid" 2>/dev/null
	top=$("$tool" report -i "$T/pf.data" --sort sym --top 1 --no-children |
		sed -n 's/^ *[0-9.]*% .*\[[.k]\] //p' | head -1)
	first=$(grep -o '<td[^>]*>[^<]*</td>' "$T/dom" | sed -n 6p | sed 's/<[^>]*>//g')
	check "pprof -http in headless chromium: the top page's first function is report's ($top)" \
		test -n "$top" -a "$first" = "$top"
fi

# the fixtures: no call chains, unresolved user code, weights, data sources
"$tool" export --format pprof -i "$I" -o "$T/i.pb.gz" 2>"$T/err"
out=$(same_shares "$I" "$T/i.pb.gz")
ok_rc $? "Intel fixture: pprof -top equals report --sort sym"
[ -n "$out" ] && echo "$out"
pprof -raw "$T/i.pb.gz" | sed -n '/^Samples/,+1p' >"$T/i.raw"
check "Intel fixture: sample types samples, the event, weight (cycles), hitm, remote" \
	bash -c "grep -q 'samples/count MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned/count\\[dflt\\] weight/cycles hitm/count remote/count' '$T/i.raw'"
"$tool" export --format pprof -i "$A" -o "$T/a.pb.gz" 2>"$T/err"
out=$(same_shares "$A" "$T/a.pb.gz")
ok_rc $? "AMD fixture: pprof -top equals report --sort sym"
[ -n "$out" ] && echo "$out"
"$tool" export --format pprof -i "$A" -o "$T/a2.pb.gz" 2>"$T/err"
check "the same input gives a byte-identical profile" cmp -s "$T/a.pb.gz" "$T/a2.pb.gz"

# splits and filters
"$tool" export --format pprof -i "$I" -o "$T/w.pb.gz" --split window=1 2>"$T/err"
n=0; for f in "$T"/w.[0-9][0-9][0-9][0-9][0-9][0-9].pb.gz; do
	[ -e "$f" ] && n=$((n + $(pprof -raw "$f" | awk '/^Samples/ { on = 1; next }
		/^Locations/ { on = 0 } on && $1 ~ /^[0-9]+$/ { s += $1 } END { print s + 0 }')))
done
check "--split window=1: files OUT.NNNNNN.pb.gz, no OUT.pb.gz, their samples add up to the 14" \
	bash -c "test ! -e '$T/w.pb.gz' && test -e '$T/w.000000.pb.gz' && test $n = 14"
"$tool" export --format pprof -i "$A" -o "$T/e.pb.gz" --split event 2>"$T/err"
check "--split event: OUT.<event>.pb.gz (ibs_op// as ibs_op__)" test -s "$T/e.ibs_op__.pb.gz"
"$tool" export --format pprof -i "$I" -o "$T/c.pb.gz" --cpu 28 --labels cpu 2>"$T/err"
check "--cpu 28: only CPU 28's samples (5 of 14)" \
	bash -c "'$GO' tool pprof -tags '$T/c.pb.gz' 2>/dev/null | grep -qE '^ *cpu: Total 50045\\.0' &&
		 '$GO' tool pprof -tags '$T/c.pb.gz' 2>/dev/null | grep -qE '50045\\.0 \\( *100%\\): 28'"

"$tool" export --format pprof -i "$I" -o "$T/ev.pb.gz" --event nosuch 2>"$T/err"
rc=$?
"$tool" export --format pprof -i "$I" -o "$T/ev.pb.gz" \
	--event MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned 2>"$T/err2"
check "--event: an unknown name exits 2 naming it, the recorded name exports" \
	bash -c "test $rc = 2 && grep -q \"has no event 'nosuch'\" '$T/err' && test ! -s '$T/err2' &&
		 test -s '$T/ev.pb.gz'"

# a recording of record --objects: data_object names the objects (each
# page of alloc_big faults once: 1024)
wl=$PEBS_BUILD/workloads/objects
"$tool" record --objects -e page-faults -c 1 -d -o "$T/o.data" -- "$wl" \
	>/dev/null 2>&1 &&
"$tool" export --format pprof -i "$T/o.data" -o "$T/o.pb.gz" \
	--labels data_object 2>"$T/err"
check "--labels data_object: record --objects' objects by site (alloc_big 1024)" \
	bash -c "test ! -s '$T/err' && '$GO' tool pprof -tags '$T/o.pb.gz' 2>/dev/null |
		 grep -qE '^ +1024\.0 \( *[0-9.]+%\): alloc_big \(objects\.c:[0-9]+\) <- main\$'"
# errors
"$tool" export -i "$I" -o "$T/x.pb.gz" 2>"$T/err"
check "no --format: exit 2, one line naming the fix" \
	bash -c "test $? = 2 && grep -qx 'pebs-shim export: no --format: give --format pprof or --format perfetto' '$T/err'"
echo keep >"$T/keep.pb.gz"
"$tool" export --format pprof -i "$T/none.data" -o "$T/keep.pb.gz" 2>"$T/err"
rc=$?
check "an unreadable input: exit 1, the old output kept" \
	bash -c "test $rc = 1 && test \"\$(cat '$T/keep.pb.gz')\" = keep && test \$(wc -l <'$T/err') = 1"
"$tool" export --format pprof -i "$I" -o "$T" 2>"$T/err"
rc=$?
check "-o a directory: exit 1, one line" \
	bash -c "test $rc = 1 && grep -q 'is a directory' '$T/err'"
