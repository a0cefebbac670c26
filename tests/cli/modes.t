#!/bin/bash
# modes.t - the modes of the files pebs-shim creates (issue 23 item 2),
# under umask 022 and 077: files holding addresses are private (0600
# whatever the umask, as perf creates perf.data): recordings (perf.data
# format, a replaced one's new file too, CSV), observe --raw files; the
# build-id cache is laid out as perf lays it out (directories 0755 less
# the umask, a copied file its source's mode, the vdso 0600, kallsyms
# 0600 where perf's copy is 0755); pictures and text outputs (plot's
# SVG, observe -o) honour the umask: 0644 under 022, 0600 under 077.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..24

AMD=$PEBS_SRC/tests/fixtures/amd-zen4-epyc9254_ibs-c2c_ring.perf.data
mode() { stat -c %a "$1" 2>/dev/null || echo none; }
# is NAME WANT FILE: FILE's mode is WANT
is() {
	local got
	got=$(mode "$3")
	if [ "$got" = "$2" ]; then ok "$1: $2"; else nok "$1: $2 (got $got)"; fi
}
obs=1 why=
need rdtscp cpus2 percpu || obs=0
owhy=$why

for um in 022 077; do
	d=$T/u$um
	mkdir -p "$d/h"
	( umask $um
	  cd "$d" || exit 1
	  HOME=$d/h "$tool" record -q -e page-faults -c 1 -d -o x.data -- \
		"$touchpages" >/dev/null 2>&1
	  "$tool" record -q -e page-faults -c 1 -o x.data -- true >/dev/null 2>&1
	  "$tool" record -q -e page-faults -c 1 --format csv -o x.csv -- \
		true >/dev/null 2>&1
	  perf record -q -e page-faults -o p.data -- true >/dev/null 2>&1
	  "$tool" plot timeline -i "$AMD" -o t.svg 2>/dev/null
	  if [ $obs = 1 ]; then
		"$tool" observe -C 0 --on 1 --no-map -e task-clock \
			--duration 0.1 --raw r.bin -o s.txt >/dev/null 2>&1
		# a raw file there already, readable by all, is made private
		: >r2.bin
		chmod 644 r2.bin
		"$tool" observe -C 0 --on 1 --no-map -e task-clock \
			--duration 0.1 --raw r2.bin >/dev/null 2>&1
	  fi )
	pic=644
	[ $um = 077 ] && pic=600
	dir=755
	[ $um = 077 ] && dir=700
	is "umask $um: perf record's perf.data" 600 "$d/p.data"
	is "umask $um: record -o x.data" 600 "$d/x.data"
	is "umask $um: the first recording, moved to x.data.old by the second" 600 "$d/x.data.old"
	is "umask $um: record --format csv" 600 "$d/x.csv"
	is "umask $um: plot's SVG" $pic "$d/t.svg"
	if [ $obs = 1 ]; then
		is "umask $um: observe --raw" 600 "$d/r.bin"
		is "umask $um: observe -o (a text summary)" $pic "$d/s.txt"
		is "umask $um: observe --raw over a 0644 file" 600 "$d/r2.bin"
	else
		skip_n 3 "$owhy"
	fi
	# the build-id cache of the first recording (touchpages, the vdso)
	c=$d/h/.debug
	is "umask $um: the build-id cache directory" $dir "$c"
	elf=$(find "$c" -path '*touchpages/*/elf' 2>/dev/null | head -1)
	src=$(mode "$touchpages")
	is "umask $um: a cached program, its source's mode (perf's)" "$src" "${elf:-$c/none}"
	vdso=$(find "$c" -path '*\[vdso\]/*/vdso' 2>/dev/null | head -1)
	if [ -n "$vdso" ]; then
		is "umask $um: the cached vdso (perf's 0600)" 600 "$vdso"
	else
		skip "umask $um: no vdso was recorded"
	fi
	ks=$(find "$c" -path '*kallsyms*/kallsyms' 2>/dev/null | head -1)
	if [ -n "$ks" ]; then
		is "umask $um: the cached kallsyms (private, where perf's is 0755)" 600 "$ks"
	else
		skip "umask $um: no kallsyms was cached (not root, or kptr_restrict)"
	fi
done
