#!/bin/bash
# record-groups.t - a {a,b} group in the file as perf writes it
# (HEADER_GROUP_DESC): perf evlist -g, perf report --header-only and
# perf report --group show the same group for a pebs-shim recording as
# for perf record's own; a recording without a group has no
# GROUP_DESC, as perf's.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..6
cd "$T" || exit 1
G='{cpu-clock,page-faults}'

"$tool" record -q -e "$G" -o ps.data -- "$memwalk" --seconds 1 \
	>/dev/null 2>err
check "record -e '$G' exits 0" test $? = 0
perf record -q --no-bpf-event -e "$G" -o perf.data -- "$memwalk" \
	--seconds 1 >/dev/null 2>&1 || skip_all "perf record fails here"

same() {	# same WHAT CMD...: CMD's output on both files, equal and non-empty
	local what=$1
	shift
	"$@" -i perf.data >o.perf 2>/dev/null
	"$@" -i ps.data >o.shim 2>/dev/null
	if [ -s o.perf ] && cmp -s o.perf o.shim; then
		ok "$what as perf's: $(head -1 o.perf)"
	else
		nok "$what as perf's" "perf: $(head -1 o.perf)" \
			"pebs-shim: $(head -1 o.shim)"
	fi
}
grp_line() { perf report --header-only "$@" | grep '^# group:'; }
samples_line() { perf report --stdio --group "$@" | grep '^# Samples:' |
	sed 's/[0-9.]*K* of/N of/'; }
same "perf evlist -g" perf evlist -g
same "perf report --header-only's group line" grp_line
same "perf report --group's event line" samples_line

"$tool" record -q -e cpu-clock,page-faults -o flat.data -- true 2>/dev/null
perf report --header-only -i flat.data 2>/dev/null >h
check "a comma list is no group: no '# group:' line" \
	test "$(grep -c '^# group:' h)" = 0
check "... and GROUP_DESC is among the missing features, as in perf's" \
	grep -q '^# missing features:.* GROUP_DESC' h
