#!/bin/bash
# manpage.t - the manual pages: man/libpebsshim.3 documents every
# PEBS_API function of lib/include/pebsshim.h (the module headers it
# includes) with the header's exact prototype and names no function the
# headers lack; its link line is the
# Makefile's; `make install` installs it; its EXAMPLE compiles, links and
# samples; groff -ww and man -l render it and man/pebs-shim.1 without
# warnings. The generated pages (make man: scripts/man-gen.py, in
# $B/man): one man3 page per object family whose SYNOPSIS holds each of
# its functions' exact prototype, every PEBS_API function in exactly one
# family, a page (or .so link to its family's page) named after every
# function, each family page with every section and no warnings;
# pebs-shim-<command>.1 for record, report, observe and map, naming every
# long option of the command's --help; pebs_map.4; installed, `man
# pebs_report__new` finds its family's page.
set -u
B=${PEBS_BUILD:?} S=${PEBS_SRC:?}
hdr=$S/lib/include/pebsshim.h
page=$S/man/libpebsshim.3
T=$(mktemp -d /tmp/manpage-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$PEBS_SRC/tests/tap.sh"

echo "1..24"

if [ ! -f "$page" ]; then
	nok "$page exists"
	for i in $(seq 22); do skip "no page"; done
	exit 0
fi
ok "man/libpebsshim.3 exists"

# Header: PEBS_API name -> declaration (tests/pebs_api.py, as abi.t
# reads it). Page: the prototypes of its .nf/.fi blocks (roff macros
# and font escapes removed by scripts/man-gen.py's unroff), and every
# pebs_*() it names anywhere.
# Declarations are compared with whitespace normalized.
python3 - "$hdr" "$page" "$T" <<'EOF'
import os, re, sys
hdr, page, t = sys.argv[1:]
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ['PEBS_SRC'], 'tests'))
sys.path.insert(0, os.path.join(os.environ['PEBS_SRC'], 'scripts'))
from pebs_api import declarations, norm
unroff = __import__('man-gen').unroff

decl = declarations(hdr)

lines = open(page).read().split('\n')
protos, block, nf = {}, [], False
for l in lines:
	if l.startswith('.nf'):
		nf, block = True, []
	elif l.startswith('.fi') and nf:
		nf = False
		text = ' '.join(x for x in map(unroff, block)
				if not x.lstrip().startswith('#'))
		for stmt in text.split(';'):
			m = re.match(r'\s*(\S.*?)\b(pebs_\w+)\s*\((.*)\)\s*$', stmt)
			if m:
				protos.setdefault(m.group(2), []).append(
					norm(stmt + ';')[:-1])
	elif nf:
		block.append(l)

text = '\n'.join(unroff(l) for l in lines if not l.startswith('.\\"'))
named = set(re.findall(r'\b(pebs_\w+)\(', text))
words = set(re.findall(r'\bpebs_\w+', text))

def out(name, items):
	with open(f'{t}/{name}', 'w') as f:
		f.write(''.join(f'{x}\n' for x in sorted(items)))

out('declared', decl)
out('unmentioned', set(decl) - words)
out('unknown-protos', set(protos) - set(decl))
out('no-proto', set(decl) - set(protos))
out('dup-protos', [n for n, p in protos.items() if len(p) > 1])
out('differ', [f'{n}: page "{p[0]}" header "{decl[n]}"'
	       for n, p in protos.items() if n in decl and p[0] != decl[n]])
out('unknown-calls', named - set(decl))
EOF
check "the header declares PEBS_API functions ($(wc -l <"$T/declared"))" \
	test -s "$T/declared"
empty "every PEBS_API function of the header is named in the page" \
	"$T/unmentioned"
empty "every prototype of the page names a PEBS_API function" \
	"$T/unknown-protos"
cat "$T/no-proto" "$T/dup-protos" >"$T/proto-count"
empty "every PEBS_API function has exactly one prototype in the page" \
	"$T/proto-count"
empty "each prototype is the header's declaration" "$T/differ"
empty "every pebs_*() the page names (text, example) is in the header" \
	"$T/unknown-calls"

# the static link line of the SYNOPSIS is the Makefile's LDLIBS
libs=$(sed -n 's/^LDLIBS[[:space:]]*:*=[[:space:]]*//p' "$S/Makefile")
if [ -n "$libs" ] && grep -qF -- "-lpebsshim $(echo "$libs" | sed 's/-/\\-/g')" \
	"$page"; then
	ok "SYNOPSIS links with -lpebsshim $libs (the Makefile's LDLIBS)"
else
	nok "SYNOPSIS links with -lpebsshim $libs (the Makefile's LDLIBS)"
fi

check "make install installs it into share/man/man3" \
	bash -c "make -s -n -C '$S' B='$B' install DESTDIR=/nonexistent \
		PREFIX=/usr 2>/dev/null | grep -q \
		'man/libpebsshim.3.* /nonexistent/usr/share/man/man3/'"

# EXAMPLE: the .EX block of that section, compiled against the header,
# linked with the static library, run: one sample per page it touches
sed -n '/^\.SH EXAMPLE/,/^\.SH/p' "$page" | sed -n '/^\.EX/,/^\.EE/p' |
	sed '/^\.E[XE]/d; s/\\-/-/g; s/\\e/\\/g' >"$T/ex.c"
if [ -f "$B/libpebsshim.a" ] &&
   gcc -std=gnu11 -Wall -Wextra -Werror -I"$S/include" -I"$S/lib/include" \
	-o "$T/ex" "$T/ex.c" "$B/libpebsshim.a" $libs >"$T/cc" 2>&1; then
	ok "the EXAMPLE compiles (-Wall -Wextra -Werror) and links"
	if "$T/ex" >"$T/ex.out" 2>"$T/ex.err"; then
		nr=$(grep -cE '^tid [0-9]+ addr 0x[0-9a-f]+$' "$T/ex.out")
		# a fresh 1 MiB malloc is an mmap: a fault per 4 KiB page
		check "the EXAMPLE prints a sample per page it touches ($nr >= 256)" \
			test "$nr" -ge 256
	else
		skip "the EXAMPLE cannot sample here: $(head -1 "$T/ex.err")"
	fi
else
	nok "the EXAMPLE compiles (-Wall -Wextra -Werror) and links"
	diag "$T/cc"
	skip "the EXAMPLE did not build"
fi

# groff: no warnings at all (-ww) for either page
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z "$page" "$S/man/pebs-shim.1" >"$T/groff" 2>&1
	empty "groff -man -ww: libpebsshim.3 and pebs-shim.1 have no warnings" \
		"$T/groff"
else
	skip "groff is not installed"
fi

# man -l renders both: the sections of the library page, the commands
# of the tool's page
if command -v man >/dev/null; then
	rc=0
	MANWIDTH=80 man --warnings -l "$page" >"$T/man3" 2>"$T/man3.err" || rc=1
	for s in NAME SYNOPSIS DESCRIPTION FUNCTIONS 'RETURN VALUE' \
		'THREAD SAFETY' EXAMPLE FILES 'SEE ALSO'; do
		grep -qx "$s" "$T/man3" || { echo "no $s" >>"$T/man3.err"; rc=1; }
	done
	if [ $rc = 0 ] && [ ! -s "$T/man3.err" ]; then
		ok "man -l renders libpebsshim.3 with every section, no warnings"
	else
		nok "man -l renders libpebsshim.3 with every section, no warnings"
		diag "$T/man3.err"
	fi
	rc=0
	MANWIDTH=80 man --warnings -l "$S/man/pebs-shim.1" >"$T/man1" \
		2>"$T/man1.err" || rc=1
	if [ $rc = 0 ] && [ ! -s "$T/man1.err" ] &&
	   grep -q '^SYNOPSIS$' "$T/man1"; then
		ok "man -l renders pebs-shim.1 without warnings"
	else
		nok "man -l renders pebs-shim.1 without warnings"
		diag "$T/man1.err"
	fi
else
	skip "man is not installed"
	skip "man is not installed"
fi

# ---- the generated pages ----------------------------------------------
G=$B/man
python3 - "$hdr" "$G" "$T" <<'PY'
import os, re, sys
hdr, g, t = sys.argv[1:]
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ['PEBS_SRC'], 'tests'))
sys.path.insert(0, os.path.join(os.environ['PEBS_SRC'], 'scripts'))
from pebs_api import declarations, norm
mg = __import__('man-gen')

decl = declarations(hdr)
d3 = os.path.join(g, 'man3')
pages = sorted(os.listdir(d3)) if os.path.isdir(d3) else []
family, links, errs = {}, {}, []
for p in pages:
	lines = open(os.path.join(d3, p)).read().split('\n')
	if lines[0].startswith('.so '):
		links[p[:-2]] = lines[0][4:]
		continue
	text = '\n'.join(mg.sh_section(lines, 'SYNOPSIS'))
	for block in re.findall(r'^\.nf\n(.*?)^\.fi', text, re.S | re.M):
		stmts = ' '.join(x for x in map(mg.unroff, block.split('\n'))
				 if not x.lstrip().startswith('#'))
		for stmt in stmts.split(';'):
			m = re.match(r'\s*(\S.*?)\b(pebs_\w+)\s*\((.*)\)\s*$', stmt)
			if m:
				family.setdefault(m.group(2), []).append(
					(p[:-2], norm(stmt + ';')[:-1]))
	heads = {l[4:].strip('"') for l in lines if l.startswith('.SH ')}
	for h in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'RETURN VALUE',
		  'EXAMPLE', 'SEE ALSO'):
		if h not in heads:
			errs.append(f'{p}: no {h}')

def out(name, items):
	with open(f'{t}/{name}', 'w') as f:
		f.write(''.join(f'{x}\n' for x in sorted(items)))

out('families', {p for v in family.values() for p, _ in v})
out('g-count', [f'{n}: in {len(family.get(n, []))} family pages'
		for n in decl if len(family.get(n, [])) != 1])
out('g-differ', [f'{n}: {p} has "{x}", the header "{decl[n]}"'
		 for n, v in family.items() for p, x in v
		 if n in decl and x != decl[n]])
out('g-unknown', set(family) - set(decl))
bad = []
for n in decl:
	fam = [p for p, _ in family.get(n, [])]
	if n in links:
		if links[n] != f'man3/{fam[0] if fam else "?"}.3':
			bad.append(f'{n}.3 is ".so {links[n]}", not its family page')
	elif n not in fam:
		bad.append(f'no page {n}.3')
out('g-links', bad)
out('g-sections', errs)
PY
nf=$(wc -l <"$T/families")
cat "$T/g-count" "$T/g-unknown" >"$T/g-once"
empty "each PEBS_API function is in the SYNOPSIS of exactly one of the $nf family pages" \
	"$T/g-once"
empty "each family page's prototypes are the header's declarations" \
	"$T/g-differ"
empty "every function has a page of its name (its family's, or a .so link to it)" \
	"$T/g-links"
empty "every family page has NAME, SYNOPSIS, DESCRIPTION, RETURN VALUE, EXAMPLE, SEE ALSO" \
	"$T/g-sections"

if ! command -v man >/dev/null; then
	skip_n 5 "man is not installed"
	exit 0
fi
: >"$T/g-warn"
for p in $(sed 's/$/.3/' "$T/families"); do
	MANWIDTH=80 man --warnings -l "$G/man3/$p" >/dev/null 2>"$T/w" ||
		echo "$p: man failed" >>"$T/g-warn"
	sed "s|^|$p: |" "$T/w" >>"$T/g-warn"
done
for c in record report observe map; do
	p=$G/man1/pebs-shim-$c.1
	if [ ! -f "$p" ]; then
		echo "no $p" >>"$T/g-warn"
		continue
	fi
	MANWIDTH=80 man --warnings -l "$p" >"$T/$c.txt" 2>"$T/w" ||
		echo "$p: man failed" >>"$T/g-warn"
	sed "s|^|$c: |" "$T/w" >>"$T/g-warn"
done
MANWIDTH=80 man --warnings -l "$S/man/pebs_map.4" >"$T/map4.txt" 2>"$T/w"
sed 's|^|pebs_map.4: |' "$T/w" >>"$T/g-warn"
groff -man -Tutf8 -ww -z "$S/man/pebs_map.4" >>"$T/g-warn" 2>&1
empty "man -l renders the family pages, pebs-shim-{record,report,observe,map}.1 and pebs_map.4 without warnings" \
	"$T/g-warn"

# each long option of a command's --help is in its page
: >"$T/g-opts"
for c in record report observe map; do
	[ -f "$T/$c.txt" ] || continue
	for o in $("$B/pebs-shim" $c --help 2>&1 |
		   grep -oE -- '--[a-z][a-z0-9-]*' | grep -vx -- --help | sort -u); do
		grep -qe "$o" "$T/$c.txt" ||
			echo "pebs-shim-$c.1 lacks $o" >>"$T/g-opts"
	done
	for h in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' 'SEE ALSO'; do
		grep -qx "$h" "$T/$c.txt" ||
			echo "pebs-shim-$c.1 has no $h" >>"$T/g-opts"
	done
done
empty "pebs-shim-{record,report,observe,map}.1 have perf's sections and every long option of --help" \
	"$T/g-opts"
check "pebs_map.4 documents the device's parameters, group and errors" \
	bash -c "grep -q 'history=N' '$T/map4.txt' &&
		 grep -q 'unprivileged=1' '$T/map4.txt' &&
		 grep -q 'root:pebs' '$T/map4.txt' && grep -qx 'ERRORS' '$T/map4.txt'"

# installed: man finds a function's page through its .so link
P=$T/prefix
make -s -C "$S" B="$B" install PREFIX="$P" >"$T/inst" 2>&1
MANPATH=$P/share/man MANWIDTH=80 man pebs_report__new >"$T/fn" 2>&1
if head -1 "$T/fn" | grep -q '^PEBS_REPORT(3)' &&
   grep -q 'int pebs_report__new(' "$T/fn"; then
	ok "installed, man pebs_report__new shows pebs_report(3) with its prototype"
else
	nok "installed, man pebs_report__new shows pebs_report(3) with its prototype"
	diag "$T/inst" "$T/fn"
fi

# the EXAMPLE programs of family pages (man/examples/<page>.c): they
# build as the page shows them and do what they say
: >"$T/mx"
libs=$(sed -n 's/^LDLIBS[[:space:]]*:*=[[:space:]]*//p' "$S/Makefile")
for c in "$S"/man/examples/*.c; do
	b=$(basename "$c" .c)
	gcc -std=gnu11 -Wall -Wextra -Werror -I"$S/include" -I"$S/lib/include" \
		-o "$T/mx-$b" "$c" "$B/libpebsshim.a" $libs >>"$T/mx" 2>&1 ||
		echo "man/examples/$b.c does not build" >>"$T/mx"
	grep -q "^\.SH EXAMPLE" "$G/man3/$b.3" 2>/dev/null &&
		grep -qF -- "$(sed -n 2p "$c" | sed 's/\\/\\e/g; s/-/\\-/g')" "$G/man3/$b.3" ||
		echo "$b.3 does not show man/examples/$b.c" >>"$T/mx"
done
# the programs of examples/ a family page shows whole ("Shown in
# <page>(3)" in their head comment; examples.t runs them): every page
# named exists and carries the program's text
: >"$T/shown"
for c in "$S"/examples/*.c; do
	sed -n '1,/\*\//p' "$c" | grep 'Shown in' | grep -o 'pebs_[a-z0-9_]*(3)' |
	while read -r pg; do
		pg=${pg%(3)}
		grep -qF -- "$(sed -n 3p "$c" | sed 's/\\/\\e/g; s/-/\\-/g')" \
			"$G/man3/$pg.3" 2>/dev/null &&
		grep -qF 'int main(' "$G/man3/$pg.3" ||
			echo "$pg.3 does not show examples/$(basename "$c")" >>"$T/shown"
	done
done
n=$(grep -l 'Shown in pebs_' "$S"/examples/*.c | wc -l)
check "examples/ programs shown in family pages ($n) are in them whole" \
	eval "[ $n -ge 3 ] && [ ! -s '$T/shown' ]"
[ -s "$T/shown" ] && diag "$T/shown"
fx=$S/tests/fixtures/intel-skx-xeon8173M_ldlat64_weight-struct.perf.data
"$T/mx-pebs_perfdata" "$fx" 2>&1 |
	grep -qx 'MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned: 14 samples' ||
	echo "pebs_perfdata example: not perf report's 14 samples of the Skylake fixture" >>"$T/mx"
[ "$("$T/mx-pebs_cpulist" 0-2,5 2>&1 | tr '\n' ' ')" = "cpu 0 cpu 1 cpu 2 cpu 5 " ] ||
	echo "pebs_cpulist example: 0-2,5 is not cpus 0 1 2 5" >>"$T/mx"
# perf report's rows, as sets (perf orders ties its own way)
if command -v perf >/dev/null; then
	"$T/mx-pebs_report" "$fx" 2>&1 | awk '{ $1 = $1; print }' | sort >"$T/rx"
	perf report -i "$fx" --stdio --sort comm,sym 2>/dev/null |
		grep -v '^#' | awk 'NF { $1 = $1; print }' | sort >"$T/rp"
	[ -s "$T/rx" ] && cmp -s "$T/rx" "$T/rp" ||
		echo "pebs_report example: not perf report --sort comm,sym's rows" >>"$T/mx"
	# the writer's recording of its own page faults, read by perf
	if ( cd "$T" && "$T/mx-pebs_perfdata_writer" "$T/pf.data" >"$T/pf.out" 2>&1 ); then
		n=$(sed -n 's/^\([0-9]*\) samples in .*/\1/p' "$T/pf.out")
		perf report -i "$T/pf.data" --stdio --sort sym -n >"$T/pf.rep" 2>&1
		grep -q "^# Samples: $n  of event 'page-faults'" "$T/pf.rep" &&
		awk '/memset/ && $2 >= 64 { ok = 1 } END { exit !ok }' "$T/pf.rep" ||
			echo "pebs_perfdata_writer example: perf report does not show its $n samples, 64 in memset" >>"$T/mx"
	else
		echo "pebs_perfdata_writer example failed: $(head -1 "$T/pf.out")" >>"$T/mx"
	fi
	# the session's samples in perf script's order, times and threads
	"$T/mx-pebs_session" "$fx" 2>&1 |
		sed -n 's|^\([0-9]*\.[0-9]\{6\}\)[0-9]* \(.*\)/\([0-9]*\) .*|\2 \3 \1|p' >"$T/ss"
	perf script -i "$fx" -F comm,tid,time 2>/dev/null |
		awk '{ sub(/:$/, "", $3); print $1, $2, $3 }' >"$T/ps"
	[ -s "$T/ss" ] && cmp -s "$T/ss" "$T/ps" &&
		"$T/mx-pebs_session" "$fx" 2>&1 | grep -qx 'event 0: 14 samples' ||
		echo "pebs_session example: not perf script's samples (comm tid time)" >>"$T/mx"
	np=$(perf report -i "$fx" --stdio --comm kstaled,swapper -n 2>/dev/null |
		grep -v '^#' | awk 'NF { n += $2 } END { print n }')
	"$T/mx-pebs_filter" "$fx" kstaled,swapper 2>&1 |
		grep -qx "$np of 14 samples pass" ||
		echo "pebs_filter example: not perf report --comm's $np samples" >>"$T/mx"
fi
"$T/mx-pebs_symbols" 2>&1 | grep -q ' is main+0x4 in ' ||
	echo "pebs_symbols example: main+4 not resolved" >>"$T/mx"
empty "man/examples/*.c build and run (perf.data counts and report rows as perf report's, cpulists, symbols)" \
	"$T/mx"
