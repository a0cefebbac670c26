# tap.sh - the TAP words of the shell tests (sourced by bash .t scripts).
# Each script prints its own plan ("1..N") and then calls these; they
# count in $tap_n (test scripts may use any other name).
tap_n=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
# nok NAME [LINE...]: a failure, with LINEs as TAP comments
nok() {
	tap_n=$((tap_n + 1))
	echo "not ok $tap_n - $1"
	shift
	for l in "$@"; do echo "# $l"; done
}
# ok_rc STATUS NAME: pass iff STATUS (a command's exit status) is 0
ok_rc() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2"; fi; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; }
# diag FILE...: the first 20 lines, as TAP comments
diag() { sed 's/^/# /' "$@" | head -20; }
# check NAME CMD...: pass iff CMD succeeds
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else nok "$name"; fi
}
# empty NAME FILE: pass iff FILE is empty, else show its first lines
empty() {
	if [ ! -s "$2" ]; then ok "$1"; else nok "$1"; diag "$2"; fi
}
# need_bin FILE...: each FILE is a program the build makes; a missing one
# is a broken build, which fails the test file (a skip is only for a
# feature the machine lacks): "not ok" naming it, and exit 1.
need_bin() {
	local f
	for f; do
		[ -x "$f" ] && continue
		echo "not ok $((tap_n + 1)) - no $f: build it first (make -j2 all)"
		exit 1
	done
}
# need FEATURE...: true if the host has every FEATURE (the list is in
# tests/helpers.h; PEBS_TEST_NO_<FEATURE>=1 hides one), else false with
# the reason in $why. C tests ask the same probe (T_NEED); a missing
# probe fails the test file (need_bin).
need() {
	need_bin "${PEBS_BUILD:?}/tests/probe"
	why=$("${PEBS_BUILD:?}/tests/probe" "$@") && return 0
	return 1
}
# skip_all REASON: skip the whole file (plan 1..0)
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}
# refused NAME PATTERN CMD...: pass iff CMD exits 2 with one line on
# standard error, matching PATTERN (grep -e: the cause named)
refused() {
	local name=$1 pat=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
	   printf '%s\n' "$err" | grep -q -e "$pat"; then
		ok "$name"
	else
		nok "$name (exit $rc)" "$err"
	fi
}
# skip_n N REASON: N skips with the same reason
skip_n() {
	local i
	for ((i = 0; i < $1; i++)); do skip "$2"; done
}
# same_report_rows NAME PATTERN FILE ARGS...: the rows ("overhead<TAB>key...",
# in order) of `perf report --stdio --no-children -g none -i FILE ARGS`
# and of `$PS report --no-children --top 0 -i FILE ARGS` (its threads
# column left out) are the same, and one of ours matches PATTERN (grep
# -E); $T is the scratch directory
same_report_rows() {
	local name=$1 pat=$2
	shift 2
	perf report --stdio --no-children -g none -i "$@" 2>/dev/null |
		grep -E '^ +[0-9.]+%' | sed -E 's/ +$//; s/^ +//; s/  +/\t/g' \
		>"$T/a"
	"$PS" report --no-children --top 0 -i "$@" 2>"$T/ps.err" |
		sed -n '/^# samples by --sort keys/,$p' | grep -E '^ +[0-9.]+%' |
		sed -E 's/ +$//; s/^ +//; s/  +/\t/g' | cut -f1,3- >"$T/b"
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b" && grep -qE -- "$pat" "$T/b"; then
		ok "$name ($(wc -l <"$T/a") rows)"
	else
		nok "$name"
		diff "$T/a" "$T/b" | head -6 | diag
		diag "$T/ps.err"
	fi
}
