#!/bin/bash
# record-faults.t - -e page-faults -c 1 --format csv on touchpages N:
# the CSV holds a row for each of the N page addresses, attributed to
# touchpages, with the faulting function named.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..6
N=300

"$tool" record -e page-faults -c 1 --format csv -o "$T/f.csv" -- \
	"$touchpages" "$N" "$T/addrs" 2>"$T/err"
ok_rc $? "record -e page-faults -c 1 --format csv exits 0"
sed 's/^/# /' "$T/err"
[ "$(wc -l <"$T/addrs")" = "$N" ]
ok_rc $? "touchpages printed $N addresses"
# addr column (9th) without 0x, against the printed addresses
awk -F, 'NR > 1 && $9 != "" { sub(/^0x/, "", $9); print $9 }' "$T/f.csv" |
	sort -u >"$T/seen"
missing=$(sort -u "$T/addrs" | comm -23 - "$T/seen" | wc -l)
ok_rc "$missing" "every touched page is a row of the CSV ($missing of $N missing)"
n=$(summary_count "$T/err")
rows=$(($(wc -l <"$T/f.csv") - 1))
[ "$rows" = "$n" ]
ok_rc $? "as many rows as the summary says ($rows vs $n)"
# rows at the touched addresses: process touchpages, symbol main
awk -F, 'NR == FNR { want[$1] = 1; next }
	FNR > 1 { a = $9; sub(/^0x/, "", a); if (!(a in want)) next
		  hits++; if ($5 != "touchpages" || $8 !~ /^main/) bad++ }
	END { exit !(hits && !bad) }' "$T/addrs" "$T/f.csv"
ok_rc $? "those rows name touchpages and main()"

"$tool" record -e page-faults -c 1 -d -o "$T/f.data" -- \
	"$touchpages" 50 "$T/addrs2" >/dev/null 2>&1 &&
"$tool" report -i "$T/f.data" >"$T/h.out" 2>&1
grep -Eq '^# samples   : [0-9]+ \([1-9][0-9]* with a data address, 0 with a data source,' \
	"$T/h.out"
ok_rc $? "report's header: page faults have data addresses but no data source (N/A)"
