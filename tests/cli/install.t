#!/bin/bash
# install.t - `make install DESTDIR=... PREFIX=/usr` installs the tool,
# the library (static, shared, link), the headers and the man page; the
# installed pieces work together and the page renders without warnings.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
T=$(mktemp -d /tmp/install-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
D=$T/root
. "$S/tests/tap.sh"

echo "1..10"

if make -s -C "$S" B="$B" install DESTDIR="$D" PREFIX=/usr >"$T/make.out" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	nok "make install DESTDIR=... PREFIX=/usr" "$(tail -3 "$T/make.out")"
fi
check "bin/pebs-shim is installed and executable" test -x "$D/usr/bin/pebs-shim"
check "lib: libpebsshim.a and libpebsshim.so.0" \
	test -f "$D/usr/lib/libpebsshim.a" -a -f "$D/usr/lib/libpebsshim.so.0"
check "lib: libpebsshim.so -> libpebsshim.so.0" \
	test "$(readlink "$D/usr/lib/libpebsshim.so")" = libpebsshim.so.0
check "include: pebsshim.h and pebs_map.h" \
	test -f "$D/usr/include/pebsshim.h" -a -f "$D/usr/include/pebs_map.h"
check "share/man/man1/pebs-shim.1" test -f "$D/usr/share/man/man1/pebs-shim.1"
check "the installed tool runs (--help lists every command)" \
	bash -c "'$D/usr/bin/pebs-shim' --help | grep -c -E '^  (record|report|observe|map) ' | grep -qx 4"

# a program built against the installed header and shared library
cat >"$T/use.c" <<'C'
#include <stdio.h>
#include <pebsshim.h>
int main(void)
{
	struct pebs_symbols *syms;
	int n;

	if (pebs_symbols__new(&syms))
		return 1;
	n = pebs_symbols__load_pid(syms, 1 << 30);
	printf("%d %s\n", n, pebs_errmsg());
	pebs_symbols__delete(syms);
	return 0;
}
C
if cc -std=gnu11 -Wall -Werror -I"$D/usr/include" -o "$T/use" "$T/use.c" \
	-L"$D/usr/lib" -lpebsshim >"$T/cc.out" 2>&1 &&
   LD_LIBRARY_PATH=$D/usr/lib "$T/use" >"$T/use.out" 2>&1 &&
   grep -q '^-3 cannot read /proc/1073741824/maps' "$T/use.out"; then
	ok "a program builds against the installed header and .so and runs"
else
	nok "a program builds against the installed header and .so and runs" \
		"$(cat "$T/cc.out" "$T/use.out" 2>/dev/null | head -5)"
fi

P=$D/usr/share/man/man1/pebs-shim.1
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z "$P" >"$T/groff.err" 2>&1
	check "groff -man -ww: the page has no warnings" test ! -s "$T/groff.err"
else
	skip "groff not installed"
fi
if command -v man >/dev/null; then
	MANWIDTH=80 man --warnings -l "$P" >"$T/man.out" 2>"$T/man.err"
	check "man -l renders every subcommand without warnings" \
		bash -c "test ! -s '$T/man.err' &&
			 for c in record report observe map; do
			   grep -qE \"^   \$c\\\$\" '$T/man.out' || exit 1; done"
else
	skip "man not installed"
fi
