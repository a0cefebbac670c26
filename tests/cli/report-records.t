#!/bin/bash
# report-records.t - perf report's --stats, --tasks and --mmaps, against
# perf 6.1 byte for byte (and --show-total-period's column): records counted by type and per event (also
# --no-skip-empty), the task tree and each task's maps, on live
# recordings of memwalk (perf record; -z compressed; -d with data maps
# and page faults; a pipe-mode stream; a shell that forks and execs;
# perf record -a), on pebs-shim record's own file and on the fixtures
# perf 6.1 reads. The AMD fixture (perf 6.1 cannot read it) counts its
# records; --stats with --tasks is refused as perf refuses it.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
F=$S/tests/fixtures
T=$(mktemp -d /tmp/report-records-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..15"
refused "--stats with --tasks: exit 2, perf's words" \
	"--tasks and --mmaps can't be used together with --stats" \
	"$PS" report --stats --mmaps -i "$F/compat/children.perf.data"

# the AMD fixture: every record counted (perf 6.1 fails on its attrs)
"$PS" report -i "$F/amd-zen4-epyc9254_ibs-c2c_ring.perf.data" --stats \
	>"$T/amd" 2>&1
check "AMD fixture: 27833 records, 27447 samples of ibs_op//" \
	grep -qE '^ +TOTAL events: +27833$' "$T/amd" &&
	grep -qxE ' +SAMPLE events: +27447' <(sed -n '/ibs_op\/\/ stats:/,$p' "$T/amd")

if ! command -v perf >/dev/null; then
	skip_n 13 "no perf to compare with"
	exit 0
fi

# same NAME FILE: the three modes equal perf's, --no-skip-empty too
same() {
	local m bad=
	for m in --stats "--stats --no-skip-empty" --tasks --mmaps; do
		# shellcheck disable=SC2086
		perf report -i "$2" $m >"$T/a" 2>"$T/a.err"
		# shellcheck disable=SC2086
		"$PS" report -i "$2" $m >"$T/b" 2>"$T/b.err"
		if ! [ -s "$T/a" ] || ! cmp -s "$T/a" "$T/b"; then
			bad="$bad $m"
			diff "$T/a" "$T/b" | head -6 | diag
			diag "$T/b.err"
		fi
	done
	if [ -z "$bad" ]; then
		ok "$1 ($(grep -c "" "$T/b") lines of --mmaps, $(sed -n 's/ *TOTAL events: *//p' \
			<(perf report -i "$2" --stats 2>/dev/null)) records)"
	else
		nok "$1: differs in$bad"
	fi
}

W=$B/workloads/memwalk
perf record -q -e cpu-clock -o "$T/p.data" -- "$W" --seconds 0.3 --mb 8 \
	>/dev/null 2>&1
same "perf record, cpu-clock" "$T/p.data"
perf record -q -z -e cpu-clock -o "$T/z.data" -- "$W" --seconds 0.3 --mb 8 \
	>/dev/null 2>&1
if perf report -i "$T/z.data" --stats 2>/dev/null | grep -q COMPRESSED; then
	same "perf record -z: COMPRESSED and the records inside" "$T/z.data"
else
	skip "this perf wrote no COMPRESSED records (no zstd)"
fi
perf record -q -d -e page-faults -c 1 -o "$T/d.data" -- "$W" --seconds 0.3 \
	--mb 8 >/dev/null 2>&1
same "perf record -d: data maps ([heap], //anon, [stack])" "$T/d.data"
perf record -q -o - -e cpu-clock -- "$W" --seconds 0.3 --mb 8 \
	2>/dev/null >"$T/pipe.data"
same "a pipe-mode stream (ATTR, FEATURE records)" "$T/pipe.data"
perf record -q -e cpu-clock -o "$T/f.data" -- sh -c \
	"ls /usr >/dev/null; $W --seconds 0.2 --mb 8; (cat /proc/self/maps >/dev/null &); wait" \
	>/dev/null 2>&1
same "a shell that forks and execs: tree, comms, copied maps" "$T/f.data"
if perf record -q -a -g -o "$T/a.data" -- sleep 0.3 >/dev/null 2>&1; then
	same "perf record -a -g: every task, synthesized" "$T/a.data"
else
	skip "perf record -a not allowed here"
fi
"$PS" record -q -o "$T/ps.data" -e page-faults -c 1 -d -- "$W" --seconds 0.3 \
	--mb 8 >/dev/null 2>&1
same "pebs-shim record -d" "$T/ps.data"
same "fixture: Intel ldlat weights" \
	"$F/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data"
same "fixture: children" "$F/compat/children.perf.data"
same "fixture: perf inject -b" "$F/compat/inject-b.perf.data"
same "fixture: a tracepoint at exit" "$F/compat/tp-exit.perf.data"

# --show-total-period -n: each row's samples and period, as perf's (the
# rows sorted: with children, rows tied on both shares may come in
# another order than perf's, a known difference)
period_rows() {	# CHILDREN-FLAG
	perf report --stdio -g none -n --show-total-period "$1" \
		--sort comm,dso -i "$T/g.data" 2>/dev/null |
		grep -E '^ +[0-9.]+%' | sed -E 's/ +$//; s/^ +//; s/  +/\t/g' |
		sort >"$T/a"
	"$PS" report -n --show-total-period "$1" --sort comm,dso --top 0 \
		-i "$T/g.data" 2>&1 | sed -n '/^# samples by --sort keys/,$p' |
		grep -E '^ +[0-9.]+%' | sed -E 's/ +$//; s/^ +//; s/  +/\t/g' |
		awk -F'\t' -v OFS='\t' '{ $(NF - 2) = ""; print }' |
		sed 's/\t\t/\t/' | sort >"$T/b"
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b" &&
	   grep -qE '	[0-9]{6,}	' "$T/b"; then
		ok "--show-total-period -n $1: perf's rows ($(wc -l <"$T/a"))"
	else
		nok "--show-total-period -n $1"
		diff "$T/a" "$T/b" | head -6 | diag
	fi
}
perf record -q -g -e cpu-clock -o "$T/g.data" -- "$W" --seconds 0.3 --mb 8 \
	>/dev/null 2>&1
period_rows --no-children
period_rows --children
