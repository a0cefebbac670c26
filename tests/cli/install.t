#!/bin/bash
# install.t - `make install DESTDIR=... PREFIX=/usr` installs the tool,
# the library (static, shared and its links), the pkg-config file, the
# headers (pebsshim.h, the module headers it includes in pebsshim/, and
# pebs_map.h) and the man pages; the installed pieces work together and the
# page renders without warnings; `make uninstall` removes exactly what
# install wrote. Installed into a prefix, every program of examples/
# builds with `pkg-config --cflags --libs libpebsshim` and runs on the
# installed shared library, and with `--static` on the static one.
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
T=$(mktemp -d /tmp/install-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
D=$T/root
. "$S/tests/tap.sh"

echo "1..17"

if make -s -C "$S" B="$B" install DESTDIR="$D" PREFIX=/usr >"$T/make.out" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	nok "make install DESTDIR=... PREFIX=/usr" "$(tail -3 "$T/make.out")"
fi
check "bin/pebs-shim is installed and executable" test -x "$D/usr/bin/pebs-shim"
check "lib: libpebsshim.a and libpebsshim.so.0" \
	test -f "$D/usr/lib/libpebsshim.a" -a -f "$D/usr/lib/libpebsshim.so.0"
check "lib: libpebsshim.so -> libpebsshim.so.0 -> libpebsshim.so.0.1.0" \
	test "$(readlink "$D/usr/lib/libpebsshim.so")" = libpebsshim.so.0 -a \
	"$(readlink "$D/usr/lib/libpebsshim.so.0")" = libpebsshim.so.0.1.0 -a \
	-f "$D/usr/lib/libpebsshim.so.0.1.0"
pc=$D/usr/lib/pkgconfig/libpebsshim.pc
check "lib/pkgconfig/libpebsshim.pc, for prefix /usr" \
	grep -qx 'prefix=/usr' "$pc"
check "include: pebsshim.h and pebs_map.h" \
	test -f "$D/usr/include/pebsshim.h" -a -f "$D/usr/include/pebs_map.h"
# every module header the umbrella includes, under include/pebsshim/
sed -n 's/^#include "\(pebsshim\/[a-z0-9]*\.h\)".*/\1/p' \
	"$S/lib/include/pebsshim.h" >"$T/modhdrs"
(cd "$S/lib/include" && ls pebsshim/*.h) | cmp -s - <(sort "$T/modhdrs") ||
	echo "pebsshim.h does not include exactly lib/include/pebsshim/*.h" \
	>"$T/modmiss"
while read -r h; do
	cmp -s "$S/lib/include/$h" "$D/usr/include/$h" ||
		echo "$h not installed as include/$h" >>"$T/modmiss"
done <"$T/modhdrs"
[ -s "$T/modhdrs" ] || echo "pebsshim.h includes no module header" >>"$T/modmiss"
empty "include/pebsshim/: the $(wc -l <"$T/modhdrs") module headers pebsshim.h includes" \
	"$T/modmiss"
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

# uninstall: nothing install wrote is left; a file it did not write stays
touch "$D/usr/lib/not-ours"
if make -s -C "$S" B="$B" uninstall DESTDIR="$D" PREFIX=/usr >"$T/un.out" 2>&1; then
	find "$D" ! -type d >"$T/left"
	if [ "$(cat "$T/left")" = "$D/usr/lib/not-ours" ]; then
		ok "make uninstall removes every installed file, and only those"
	else
		nok "make uninstall removes every installed file, and only those"
		diag "$T/left"
	fi
else
	nok "make uninstall removes every installed file, and only those" \
		"$(tail -3 "$T/un.out")"
fi

# a real prefix: build examples/ with pkg-config alone
P=$T/prefix
export PKG_CONFIG_PATH=$P/lib/pkgconfig
if ! command -v pkg-config >/dev/null; then
	skip_n 4 "pkg-config is not installed (apt-get install pkg-config)"
	exit 0
fi
make -s -C "$S" B="$B" install PREFIX="$P" >"$T/make2.out" 2>&1
flags=$(echo $(pkg-config --cflags --libs libpebsshim 2>"$T/pc.err"))
check "pkg-config --cflags --libs libpebsshim: -I$P/include -L$P/lib -lpebsshim ($flags)" \
	test "$flags" = "-I$P/include -L$P/lib -lpebsshim"
: >"$T/ex.err"
n=0
for c in "$S"/examples/*.c; do
	e=$(basename "$c" .c)
	cc -std=gnu11 -Wall -Wextra -Werror -o "$T/$e" "$c" $flags \
		>>"$T/ex.err" 2>&1 || echo "$e does not build" >>"$T/ex.err"
	n=$((n + 1))
done
empty "the $n programs of examples/ build with pkg-config's flags alone" "$T/ex.err"
# map-watch on a missing table: one line, exit 1, on the installed .so
LD_LIBRARY_PATH=$P/lib "$T/map-watch" "$T/no-table" >"$T/mw.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "^map-watch: $T/no-table not found" "$T/mw.out" &&
   LD_LIBRARY_PATH=$P/lib ldd "$T/map-watch" |
	grep -q "libpebsshim.so.0 => $P/lib/libpebsshim.so.0 "; then
	ok "examples/map-watch runs on the installed libpebsshim.so.0"
else
	nok "examples/map-watch runs on the installed libpebsshim.so.0"
	diag "$T/mw.out"
fi
# --static: Libs.private is enough to link the static library
sflags=$(pkg-config --cflags --libs --static libpebsshim | sed 's/-lpebsshim/-l:libpebsshim.a/')
if cc -std=gnu11 -Wall -Werror -o "$T/mw-static" "$S/examples/map-watch.c" \
	$sflags >"$T/st.err" 2>&1 &&
   ! ldd "$T/mw-static" | grep -q libpebsshim &&
   { "$T/mw-static" "$T/no-table" >"$T/st.out" 2>&1; [ $? = 1 ]; } &&
   grep -q "^map-watch: $T/no-table not found" "$T/st.out"; then
	ok "pkg-config --static links examples/map-watch with libpebsshim.a"
else
	nok "pkg-config --static links examples/map-watch with libpebsshim.a"
	diag "$T/st.err" "$T/st.out"
fi
