#!/bin/bash
# layers.t - scripts/check-layers.py (make check-layers): the real tree
# keeps the direction of lib/README.md; in a scratch copy of lib/ and its
# objects, a planted upward include (core including session's private
# header) and a planted upward call (an object of core calling
# pebs_session__new) each make it fail naming the file and line; a cycle
# written into the table is refused.
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
T=$(mktemp -d /tmp/layers-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$PEBS_SRC/tests/tap.sh"
chk=$S/scripts/check-layers.py

# fails NAME PATTERN: the check of the scratch copy fails (status 1) with
# a line matching PATTERN
fails() {
	python3 "$chk" --src "$T/src" --build "$T/build" 2>"$T/err"
	local rc=$?
	if [ $rc = 1 ] && grep -q "$2" "$T/err"; then
		ok "$1"
	else
		nok "$1 (status $rc)"
		diag "$T/err"
	fi
}

echo "1..7"

if [ ! -f "$B/libpebsshim.a" ]; then
	nok "$B/libpebsshim.a exists (make lib)"
	exit 1
fi
if python3 "$chk" --src "$S" --build "$B" 2>"$T/err"; then
	ok "the real tree keeps the direction"
else
	nok "the real tree keeps the direction"
	diag "$T/err"
fi

# a scratch copy: the sources, the table and the objects
mkdir -p "$T/src" "$T/build"
cp -r "$S/lib" "$T/src/"
cp -r "$B/lib" "$T/build/"
python3 "$chk" --src "$T/src" --build "$T/build" 2>"$T/err"
ok_rc $? "the scratch copy passes before planting"

# an upward include: core/error.c includes session's private header
sed -i '0,/^#include/s//#include "session\/session-int.h"\n#include/' \
	"$T/src/lib/core/error.c"
line=$(grep -n '#include "session/session-int.h"' "$T/src/lib/core/error.c" |
       cut -d: -f1)
fails "an upward include fails, naming lib/core/error.c:$line" \
	"^lib/core/error.c:$line: core includes session's private header session/session-int.h"
cp "$S/lib/core/error.c" "$T/src/lib/core/error.c"

# an upward module header: <pebsshim/report.h> from map
printf '#include <pebsshim/report.h>\n' >>"$T/src/lib/map/map-int.h"
line=$(wc -l <"$T/src/lib/map/map-int.h")
fails "an upward module header fails, naming lib/map/map-int.h:$line" \
	"^lib/map/map-int.h:$line: map includes report's module header pebsshim/report.h"
cp "$S/lib/map/map-int.h" "$T/src/lib/map/map-int.h"

# an upward call: an object of core that calls the session
cat >"$T/src/lib/core/planted.c" <<'EOF'
#include "pebsshim/session.h"

int planted(struct pebs_perfdata *pd);
int planted(struct pebs_perfdata *pd)
{
	struct pebs_session *ss;

	return pebs_session__new(pd, &ss);
}
EOF
if ! cc -I"$S/include" -I"$S/lib/include" -I"$S/lib" -D_GNU_SOURCE -c \
	-o "$T/build/lib/core/planted.o" "$T/src/lib/core/planted.c" 2>"$T/cc"; then
	nok "the planted call compiles"
	diag "$T/cc"
else
	ok "the planted call compiles"
fi
fails "an upward call fails, naming lib/core/planted.c:8" \
	"^lib/core/planted.c:8: core calls pebs_session__new of session"
rm -f "$T/src/lib/core/planted.c" "$T/build/lib/core/planted.o"

# a cycle in the table: core may use report
sed -i 's/^\(| `core` |[^|]*|\) nothing |/\1 `report` |/' "$T/src/lib/README.md"
fails "a cycle in lib/README.md's table is refused" \
	"the table has a cycle: core -> report -> "
