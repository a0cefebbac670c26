#!/bin/bash
# pkg-help.t - `pebs-shim --version` prints the Makefile's VERSION (also
# debian/changelog's); `pebs-shim help COMMAND` shows the installed
# pebs-shim-COMMAND(1) page as perf help does, falls back to the
# command's --help with a one-line note where man finds no page, and
# refuses an unknown command in one line (exit 2).
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
T=$(mktemp -d /tmp/pkg-help-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"
tool=$B/pebs-shim

echo "1..6"

version=$(sed -n 's/^VERSION[[:space:]]*:*=[[:space:]]*//p' "$S/Makefile")
out=$("$tool" --version 2>&1)
check "pebs-shim --version prints 'pebs-shim $version' ($out)" \
	test "$out" = "pebs-shim $version"
if [ -f "$S/debian/changelog" ]; then
	deb=$(sed -n '1s/^[^(]*(\([^)-]*\).*/\1/p' "$S/debian/changelog")
	check "debian/changelog's release is the Makefile's ($deb)" \
		test "$deb" = "$version"
else
	nok "debian/changelog exists"
fi

if ! command -v man >/dev/null; then
	skip "man is not installed"
else
	make -s -C "$S" B="$B" install PREFIX="$T/p" >"$T/inst" 2>&1
	MANPATH=$T/p/share/man MANWIDTH=80 "$tool" help record >"$T/rec" 2>&1
	rc=$?
	if [ $rc = 0 ] && head -1 "$T/rec" | grep -q '^PEBS-SHIM-RECORD(1)' &&
	   grep -qx OPTIONS "$T/rec"; then
		ok "help record shows the installed pebs-shim-record(1)"
	else
		nok "help record shows the installed pebs-shim-record(1) (exit $rc)"
		diag "$T/inst" "$T/rec"
	fi
fi

mkdir "$T/noman"
MANPATH=$T/noman PATH=$PATH "$tool" help map >"$T/map.out" 2>"$T/map.err"
rc=$?
if [ $rc = 0 ] && [ "$(wc -l <"$T/map.err")" = 1 ] &&
   grep -q '^pebs-shim: no manual page pebs-shim-map(1) here' "$T/map.err" &&
   cmp -s "$T/map.out" <("$tool" map --help 2>&1); then
	ok "help map without its page: one line, then map --help (exit 0)"
else
	nok "help map without its page: one line, then map --help (exit $rc)"
	diag "$T/map.err" "$T/map.out"
fi

"$tool" help nosuch >"$T/no.out" 2>"$T/no.err"
rc=$?
check "help nosuch: exit 2, one line naming it" \
	bash -c "[ $rc = 2 ] && [ ! -s '$T/no.out' ] &&
		 [ \$(wc -l <'$T/no.err') = 1 ] &&
		 grep -q \"no command 'nosuch'\" '$T/no.err'"
check "pebs-shim --help points to help COMMAND" \
	bash -c "'$tool' --help | grep -q 'pebs-shim help COMMAND'"
