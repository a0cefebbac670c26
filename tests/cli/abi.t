#!/bin/bash
# abi.t - the shared library's ABI: libpebsshim.so.0.1.0 with SONAME
# libpebsshim.so.0 and the links .so.0 and .so; it exports only pebs_*
# symbols, each under a version node of lib/libpebsshim.map, which lists
# them by name; the PEBS_API functions of lib/include/pebsshim.h and
# the module headers it includes are exactly the map's names and the
# exports; no private header has a public header's name; abidiff
# against the dump abi/libpebsshim.abi finds no function removed,
# changed (a public struct grown or reshaped) or added; the umbrella
# header and every module header compile on their own as C11 and as C++
# with -Wall -Wextra -Werror; a program links against the shared library
# alone (-lpebsshim) and runs; programs built against a newer
# <linux/perf_event.h> (struct perf_event_attr grown by 16 bytes) and an
# older one (PERF_ATTR_SIZE_VER5) see the same struct pebs_event (848
# bytes, note at 680) and work with the library: the newer caller's
# fields read as zero and, once set, are refused with -EINVAL; the
# older caller's attr is written at its own size and no further.
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
so=$B/libpebsshim.so.0
hdr=$S/lib/include/pebsshim.h
T=$(mktemp -d /tmp/abi-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$PEBS_SRC/tests/tap.sh"

echo "1..22"

if [ ! -f "$so" ]; then
	nok "$so exists (make B=... lib)"
	for i in $(seq 21); do skip "no shared library"; done
	exit 0
fi
ok "$so exists"

soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
check "SONAME is libpebsshim.so.0 ($soname)" test "$soname" = libpebsshim.so.0
check "libpebsshim.so.0 -> libpebsshim.so.0.1.0, libpebsshim.so -> libpebsshim.so.0" \
	test "$(readlink "$so")" = libpebsshim.so.0.1.0 -a \
	"$(readlink "$B/libpebsshim.so")" = libpebsshim.so.0 -a \
	-f "$B/libpebsshim.so.0.1.0"

# version nodes of the map ("NAME {" at the start of a line)
sed -n 's/^\([A-Za-z_][A-Za-z0-9_.]*\)[[:space:]]*{.*/\1/p' \
	"$S/lib/libpebsshim.map" >"$T/nodes"
check "lib/libpebsshim.map defines the node LIBPEBSSHIM_0.1 ($(tr '\n' ' ' <"$T/nodes"))" \
	grep -qx LIBPEBSSHIM_0.1 "$T/nodes"
# the names of the map's global: lists (comments dropped), no globs
sed 's,/\*.*\*/,,; /\/\*/,/\*\//d' "$S/lib/libpebsshim.map" |
	awk '/global:/ { g = 1; next } /local:|}/ { g = 0 }
	     g { gsub(/[;[:space:]]/, ""); if ($0 != "") print }' |
	sort >"$T/listed"
grep '[*?[]' "$T/listed" >"$T/globs"
empty "the map lists its symbols by name, without globs" "$T/globs"

# defined dynamic symbols, without the version definitions (type A)
nm -D --defined-only "$so" | awk '{ print $2, $3 }' >"$T/nm"
awk '$1 != "A" { sub(/@.*/, "", $2); print $2 }' "$T/nm" | sort -u \
	>"$T/exports"
awk '$1 == "A" { print $2 }' "$T/nm" | grep -vxF -f "$T/nodes" >"$T/abs"
empty "the only absolute symbols are the version nodes" "$T/abs"
check "it exports functions ($(wc -l <"$T/exports"))" test -s "$T/exports"
grep -v '^pebs_' "$T/exports" >"$T/foreign"
empty "every exported symbol starts with pebs_" "$T/foreign"

# objdump -T: the version column of every defined symbol
objdump -T "$so" | awk '$2 == "g" && $0 !~ /\*(UND|ABS)\*/ { print $(NF - 1), $NF }' \
	>"$T/versions"
awk 'NR == FNR { node[$1] = 1; next } !($1 in node) { print }' \
	"$T/nodes" "$T/versions" >"$T/unversioned"
if [ "$(wc -l <"$T/versions")" = "$(wc -l <"$T/exports")" ] &&
   [ ! -s "$T/unversioned" ]; then
	ok "objdump -T: every export is under a node of the map"
else
	nok "objdump -T: every export is under a node of the map"
	diag "$T/unversioned"
fi

# PEBS_API function names of the header
python3 "$S/tests/pebs_api.py" "$hdr" >"$T/declared"
check "the header declares PEBS_API functions ($(wc -l <"$T/declared"))" \
	test -s "$T/declared"
comm -23 "$T/declared" "$T/exports" >"$T/unexported"
empty "every PEBS_API function of the header is exported" "$T/unexported"
comm -13 "$T/declared" "$T/exports" >"$T/undeclared"
empty "every export is a PEBS_API function of the header" "$T/undeclared"
comm -23 "$T/declared" "$T/listed" |
	sed 's/.*/symbol & added: run make abi-dump and add it to the map (lib\/libpebsshim.map)/' \
	>"$T/unlisted"
comm -13 "$T/declared" "$T/listed" |
	sed 's/.*/& is in lib\/libpebsshim.map but not declared PEBS_API in the header/' \
	>>"$T/unlisted"
empty "the map lists exactly the header's PEBS_API functions" "$T/unlisted"

# abidw and abidiff take a type as public when the base name of the file
# that defines it is that of a public header: a private header named as
# one (lib/map/map.h beside pebsshim/map.h) would put the insides of an
# opaque object into the ABI
(cd "$S/lib/include" && ls pebsshim.h pebsshim/*.h; cd "$S/include" && ls *.h) |
	xargs -n1 basename | sort -u >"$T/pubnames"
(cd "$S/lib" && ls */*.h | grep -v '^include/') |
	awk -F/ 'NR == FNR { pub[$0] = 1; next }
		 $2 in pub { print "lib/" $0 " has the name of a public header: call it " substr($2, 1, length($2) - 2) "-int.h" }' \
	"$T/pubnames" - >"$T/clash"
empty "no private header of lib/ is named as a public header" "$T/clash"

# abidiff: the dump kept in the repo against the built library, public
# types only (those of lib/include and include, as make abi-dump took)
abi=$S/abi/libpebsshim.abi
if ! command -v abidiff >/dev/null; then
	skip_n 3 "abidiff is not installed (apt-get install abigail-tools)"
elif [ ! -f "$abi" ]; then
	nok "$abi exists (make abi-dump)"
	skip_n 2 "no ABI dump"
else
	abidiff --headers-dir2 "$S/lib/include" --headers-dir2 "$S/include" \
		--drop-private-types "$abi" "$(readlink -f "$so")" \
		>"$T/abidiff" 2>&1
	sed -n "s/^ *\[D\] '\([a-z]*\) .*{\([^@}]*\)[@}].*/symbol \2 (\1) removed: an ABI break (restore it, or make a new SONAME)/p" \
		"$T/abidiff" >"$T/removed"
	empty "abidiff $abi: no symbol removed" "$T/removed"
	sed -n "s/^ *\[C\] '\([a-z]*\) [^(]* \**\([a-z_0-9]*\)(.*/\2 (\1) changed: a public type it reaches differs; if on purpose run make abi-dump/p" \
		"$T/abidiff" >"$T/changed"
	if [ -s "$T/changed" ]; then
		nok "abidiff $abi: no function or public struct changed"
		diag "$T/changed"
		grep -E 'type size|insertion|deletion|changed from|offset' \
			"$T/abidiff" | sort -u | diag /dev/stdin
	else
		ok "abidiff $abi: no function or public struct changed"
	fi
	sed -n "s/^ *\[A\] '\([a-z]*\) .*{\([^@}]*\)[@}].*/symbol \2 (\1) added: run make abi-dump and add it to the map/p" \
		"$T/abidiff" >"$T/added"
	empty "abidiff $abi: no symbol added" "$T/added"
fi

# every public header on its own (twice: the include guard): the umbrella
# pebsshim.h and each module header pebsshim/<module>.h
: >"$T/cc"
: >"$T/cxx"
for h in pebsshim.h $(cd "$S/lib/include" && ls pebsshim/*.h); do
	printf '#include "%s"\n#include "%s"\n' "$h" "$h" >"$T/h.c"
	gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$S/include" \
		-I"$S/lib/include" "$T/h.c" >>"$T/cc" 2>&1 ||
		echo "$h does not compile alone as C11" >>"$T/cc"
	if command -v g++ >/dev/null; then
		g++ -fsyntax-only -x c++ -Wall -Wextra -Werror -I"$S/include" \
			-I"$S/lib/include" "$T/h.c" >>"$T/cxx" 2>&1 ||
			echo "$h does not compile alone as C++" >>"$T/cxx"
	fi
done
empty "pebsshim.h and each pebsshim/*.h compile alone as C11 (gcc -std=c11 -Wall -Wextra -Werror)" "$T/cc"
if command -v g++ >/dev/null; then
	empty "pebsshim.h and each pebsshim/*.h compile as C++ (g++ -x c++ -Wall -Wextra -Werror)" "$T/cxx"
else
	skip "g++ is not installed"
fi

# a program linked with the shared library alone (as an installed
# library is used: -lpebsshim), run against it
ln -s "$so" "$T/libpebsshim.so"
rc=0
gcc -std=gnu11 -Wall -Wextra -Werror -I"$S/include" -I"$S/lib/include" \
	-o "$T/prog" "$S/examples/map-watch.c" -L"$T" -lpebsshim >"$T/ld" 2>&1 &&
	{ LD_LIBRARY_PATH=$B "$T/prog" "$T/no-table" >"$T/out" 2>&1; rc=$?; }
if [ $rc = 1 ] && grep -q "^map-watch: $T/no-table not found" "$T/out" &&
   LD_LIBRARY_PATH=$B ldd "$T/prog" | grep -q "libpebsshim.so.0 => $so "; then
	ok "examples/map-watch.c links with -lpebsshim alone and runs on it"
else
	nok "examples/map-watch.c links with -lpebsshim alone and runs on it"
	diag "$T/ld" "$T/out"
fi

# callers built against other kernel headers: a copy of linux/perf_event.h
# with struct perf_event_attr grown by 16 bytes (newer) or cut at
# PERF_ATTR_SIZE_VER5 (older)
mkdir -p "$T/newer/linux" "$T/older/linux"
awk '/^struct perf_event_attr \{/ { in_attr = 1 }
     in_attr && /^\};/ { print "\t__u64\tconfig3;\n\t__u64\tfuture_field;"; in_attr = 0 }
     { print }' /usr/include/linux/perf_event.h >"$T/newer/linux/perf_event.h"
awk '/^struct perf_event_attr \{/ { in_attr = 1 }
     in_attr && /aux_sample_size;/ { cut = 1 }
     in_attr && /^\};/ { cut = 0; in_attr = 0 }
     !cut { print }' /usr/include/linux/perf_event.h >"$T/older/linux/perf_event.h"
cat >"$T/caller.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "pebsshim.h"

int main(void)
{
	struct { struct perf_event_attr a; unsigned char guard[64]; } out;
	struct pebs_event ev;
	int err;

	printf("attr %zu event %zu note %zu\n", sizeof(struct perf_event_attr),
	       sizeof(struct pebs_event), offsetof(struct pebs_event, note));
	if (pebs_event__parse("cpu-clock", &ev))
		return 1;
	memset(&out, 0xa5, sizeof(out));
	err = pebs_channel_attr(&ev, NULL, &out.a, sizeof(out.a));
	printf("channel_attr %d size %u guard %#x\n", err, out.a.size,
	       out.guard[0]);
#ifdef NEWER
	printf("new fields %llu %llu\n", (unsigned long long)ev.attr.config3,
	       (unsigned long long)ev.attr.future_field);
	ev.attr.future_field = 1;
	printf("set: channel_attr %d probe %d\n",
	       pebs_channel_attr(&ev, NULL, &out.a, sizeof(out.a)),
	       pebs_event__probe(&ev));
#endif
	return 0;
}
EOF
for v in newer older; do
	V=$(echo $v | tr a-z A-Z)
	if gcc -std=gnu11 -Wall -Wextra -Werror -D$V -I"$T/$v" -I"$S/include" \
		-I"$S/lib/include" -o "$T/caller-$v" "$T/caller.c" \
		-L"$T" -lpebsshim >"$T/out-$v" 2>&1; then
		LD_LIBRARY_PATH=$B "$T/caller-$v" >"$T/out-$v" 2>&1
	fi
done
printf '#include <stdio.h>\n#include <linux/perf_event.h>\nint main(void) { printf("%%zu", sizeof(struct perf_event_attr)); return 0; }\n' |
	gcc -x c -o "$T/attr-size" - && lib_attr=$("$T/attr-size")
cat >"$T/want-newer" <<EOF
attr $((lib_attr + 16)) event 848 note 680
channel_attr 0 size $lib_attr guard 0xa5
new fields 0 0
set: channel_attr -22 probe -22
EOF
if diff -u "$T/want-newer" "$T/out-newer" >"$T/d-newer"; then
	ok "a caller with a grown perf_event_attr: same pebs_event, new fields zero, -EINVAL once set"
else
	nok "a caller with a grown perf_event_attr: same pebs_event, new fields zero, -EINVAL once set"
	diag "$T/d-newer"
fi
cat >"$T/want-older" <<EOF
attr 112 event 848 note 680
channel_attr 0 size 112 guard 0xa5
EOF
if diff -u "$T/want-older" "$T/out-older" >"$T/d-older"; then
	ok "a caller with PERF_ATTR_SIZE_VER5 headers: same pebs_event, its attr written at its size only"
else
	nok "a caller with PERF_ATTR_SIZE_VER5 headers: same pebs_event, its attr written at its size only"
	diag "$T/d-older"
fi
