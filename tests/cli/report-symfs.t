#!/bin/bash
# report-symfs.t - perf's --symfs in report and script, against perf 6.1
# on a perf -g recording of memwalk made with a build-id cache of its
# own (HOME=$T/home), read without one (HOME=$T/nohome): the files are
# looked for under the directory only (an empty one: raw addresses; a
# copy of memwalk there: its symbols), perf's cache is the directory's
# .debug (the recording's cache copied there: libc named too), and the
# kernel stays raw, as perf's. Report's rows (dso,sym), its graphs and
# script's lines are perf's; plot and export take it too. An empty
# --symfs is refused.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
PS=$B/pebs-shim
T=$(mktemp -d /tmp/report-symfs-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..10"
refused "--symfs '': exit 2, one line naming the option" \
	"--symfs: give a directory" "$PS" report --symfs '' \
	-i "$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data"

if ! command -v perf >/dev/null; then
	skip_n 9 "no perf to compare with"
	exit 0
fi
W=$B/workloads/memwalk
mkdir -p "$T/home" "$T/nohome" "$T/empty" "$T/root$(dirname "$W")" "$T/cache"
HOME=$T/home perf record -q -g -e cpu-clock -o "$T/g.data" -- \
	"$W" --seconds 0.3 --mb 8 >/dev/null 2>&1
if ! HOME=$T/home perf script -i "$T/g.data" -F ip,sym 2>/dev/null |
   grep -q chase; then
	skip_n 9 "perf recorded no samples of memwalk's chase here"
	exit 0
fi
cp "$W" "$T/root$W"
cp -a "$T/home/.debug" "$T/cache/.debug"

# rows "overhead<TAB>key..." of both reports, sorted
perf_rows() {
	HOME=$T/nohome perf report --stdio --no-children -i "$T/g.data" \
		--sort dso,sym -g none "$@" 2>/dev/null |
		grep -E '^ +[0-9.]+%' | sed -E 's/ +$//; s/^ +//; s/  +/\t/g' |
		sort
}
ps_rows() {
	HOME=$T/nohome "$PS" report --no-children -i "$T/g.data" \
		--sort dso,sym --top 0 "$@" 2>"$T/ps.err" |
		sed -n '/^# samples by --sort keys/,$p' | grep -E '^ +[0-9.]+%' |
		sed -E 's/ +$//; s/^ +//; s/  +/\t/g' | cut -f1,3- | sort
}
same_rows() {	# NAME GREP-PATTERN DIR
	perf_rows --symfs "$3" >"$T/a"
	ps_rows --symfs "$3" >"$T/b"
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b" && grep -qE "$2" "$T/b"; then
		ok "$1 ($(wc -l <"$T/a") rows)"
	else
		nok "$1"
		diff "$T/a" "$T/b" | head -6 | diag
		diag "$T/ps.err"
	fi
}
same_rows "--symfs of nothing: perf's rows, memwalk's addresses raw" \
	'memwalk	\[\.\] 0x0' "$T/empty"
same_rows "--symfs with memwalk's copy: perf's rows, chase named" \
	'memwalk	\[\.\] chase' "$T/root"
same_rows "--symfs whose .debug holds the cache: perf's rows, libc named" \
	'libc\.so\.6	\[\.\] [a-z_]' "$T/cache"
perf_rows --symfs "$T/root" | grep -E 'kernel' >"$T/k"
check "the kernel stays raw under --symfs, as perf's" \
	bash -c "test -s '$T/k' && ! grep -qv $'\t\\[k\\] 0xffff' '$T/k'"

HOME=$T/nohome perf script -i "$T/g.data" --symfs "$T/root" >"$T/a" 2>/dev/null
HOME=$T/nohome "$PS" script -i "$T/g.data" --symfs "$T/root" >"$T/b" 2>"$T/ps.err"
if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then
	ok "script --symfs: perf's lines ($(wc -l <"$T/a"))"
else
	nok "script --symfs: perf's lines"
	diff "$T/a" "$T/b" | head -6 | diag
fi

HOME=$T/nohome perf report --stdio -i "$T/g.data" --sort comm,dso,sym \
	--symfs "$T/root" -g >"$T/a" 2>/dev/null
HOME=$T/nohome "$PS" report -i "$T/g.data" --sort comm,dso,sym --top 0 \
	--symfs "$T/root" -g >"$T/b" 2>"$T/ps.err"
if python3 "$S/tests/cli/graph-rows.py" "$T/a" "$T/b" >"$T/cmp"; then
	ok "report -g --symfs: perf's graphs ($(tail -1 "$T/cmp"))"
else
	nok "report -g --symfs: perf's graphs"
	diag "$T/cmp" "$T/ps.err"
fi

# plot and export take it too: chase in the folded stacks only when
# memwalk is under the symfs; a pprof profile written
for d in empty root; do
	HOME=$T/nohome "$PS" plot flame -i "$T/g.data" --format collapsed \
		--symfs "$T/$d" -o "$T/$d.folded" 2>>"$T/ps.err"
done
check "plot --symfs: chase's stacks with memwalk's copy only" \
	bash -c "grep -q ';chase ' '$T/root.folded' &&
		 ! grep -q ';chase ' '$T/empty.folded'"
HOME=$T/nohome "$PS" export --format pprof -i "$T/g.data" -o "$T/g.pb.gz" \
	--symfs "$T/root" 2>"$T/ps.err"
check "export --symfs: a profile written" test -s "$T/g.pb.gz"

# "/" is no symfs (perf's symbol__init): the host's files
HOME=$T/nohome "$PS" report -i "$T/g.data" --no-children --sort dso,sym \
	--symfs / >"$T/b" 2>&1
check "--symfs /: the host's files, as without it" \
	grep -q 'memwalk  *\[\.\] chase' "$T/b"
