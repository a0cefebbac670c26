#!/bin/bash
# features.t - the feature probe (tests/helpers.h, tests/probe, tap.sh's
# need) and the suite's behaviour on a host without rdtscp: with
# PEBS_TEST_NO_RDTSCP=1 (which the probe and the library honour) every
# test that needs rdtscp skips with that reason and nothing fails; the
# pure unit tests of the trustable filter do not skip at all; and the
# runner's failure log, which make check lists last.
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
T=$(mktemp -d /tmp/features-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"

echo "1..12"

probe=$B/tests/probe
"$probe" root >"$T/out"
rc=$?
if [ -n "${PEBS_TEST_NO_ROOT:-}" ]; then
	# root hidden for the whole run: the probe says so (as test 2 checks)
	check "probe root: hidden by PEBS_TEST_NO_ROOT (exit $rc)" \
		eval '[ $rc = 1 ] && grep -qx "root hidden by PEBS_TEST_NO_ROOT=1" "$T/out"'
elif [ "$(id -u)" = 0 ]; then
	check "probe root: yes as root (exit $rc)" test $rc = 0 -a ! -s "$T/out"
else
	check "probe root: no, with the reason (exit $rc)" \
		grep -qx 'not running as root' "$T/out"
fi
PEBS_TEST_NO_ROOT=1 "$probe" root >"$T/out"
rc=$?
check "PEBS_TEST_NO_ROOT=1 hides root: exit 1 and says so ($(cat "$T/out"))" \
	eval '[ $rc = 1 ] && grep -qx "root hidden by PEBS_TEST_NO_ROOT=1" "$T/out"'
"$probe" no-such-feature >"$T/out"
rc=$?
check "an unknown feature is a usage error (exit $rc)" \
	eval '[ $rc = 2 ] && grep -q "unknown feature" "$T/out"'
if need no-such-feature; then
	nok "need: false for an unknown feature"
else
	ok "need: false for an unknown feature, reason '$why'"
fi
PEBS_TEST_NO_RDTSCP=1 "$probe" rdtscp >"$T/out"
check "PEBS_TEST_NO_RDTSCP=1: no rdtscp ($(cat "$T/out"))" \
	grep -qx 'rdtscp hidden by PEBS_TEST_NO_RDTSCP=1' "$T/out"

# The suite as a host without rdtscp sees it
files=("$B/tests/unit/test-trustable" "$B/tests/live/test-observer"
       "$S/tests/cli/observe.t" "$S/tests/cli/examples.t")
PEBS_TEST_NO_RDTSCP=1 PEBS_SKIP_LOG=$T/skips prove \
	--exec "$S/scripts/run-test" "${files[@]}" >"$T/prove" 2>&1
rc=$?
if [ $rc = 0 ]; then
	ok "without rdtscp: test-trustable, test-observer, observe.t, examples.t pass"
else
	nok "without rdtscp: test-trustable, test-observer, observe.t, examples.t pass (prove exit $rc)"
	diag "$T/prove"
fi
touch "$T/skips"
check "test-trustable skips nothing (pure arithmetic)" \
	eval '! grep -q "test-trustable:" "$T/skips"'
n=$(grep -c 'test-observer: rdtscp hidden by PEBS_TEST_NO_RDTSCP=1' "$T/skips")
check "test-observer: the observer tests skip for rdtscp ($n)" test "$n" -ge 4
n=$(grep -c 'tests/cli/observe.t: .*rdtscp hidden by PEBS_TEST_NO_RDTSCP=1' "$T/skips")
check "observe.t: the runs skip for rdtscp ($n)" test "$n" -ge 10
check "examples.t: observe-embed skips for rdtscp" \
	grep -q 'tests/cli/examples.t: observe-embed: rdtscp hidden by PEBS_TEST_NO_RDTSCP=1' "$T/skips"

# make check lists each failure last (a CI log cut to its tail shows
# it): the "not ok" line with its comments, and the file's exit status
cat >"$T/fails.t" <<'EOF2'
echo 1..2
echo "ok 1 - fine"
echo "not ok 2 - broken"
echo "# because of this"
exit 3
EOF2
PEBS_SRC=$T PEBS_FAIL_LOG=$T/fails bash "$S/scripts/run-test" "$T/fails.t" \
	>/dev/null 2>&1
check "a failing test's line and comment are in the failure log" \
	eval 'diff <(printf "fails.t: %s\n" "not ok 2 - broken" \
		"# because of this" "exit status 3") "$T/fails"'
PEBS_SRC=$T PEBS_FAIL_LOG=$T/fails2 bash "$S/scripts/run-test" \
	"$B/tests/unit/test-trustable" >/dev/null 2>&1
check "a passing test leaves the failure log empty" test ! -s "$T/fails2"
