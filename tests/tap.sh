# tap.sh - the TAP words of the shell tests (sourced by bash .t scripts).
# Each script prints its own plan ("1..N") and then calls these.
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
# nok NAME [LINE...]: a failure, with LINEs as TAP comments
nok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	for l in "$@"; do echo "# $l"; done
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
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
