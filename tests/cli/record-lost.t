#!/bin/bash
# record-lost.t - samples the kernel drops (a 1-page ring, a sample per
# page fault) are written as perf's PERF_RECORD_LOST_SAMPLES, from the
# per-event counts (PERF_FORMAT_LOST), so perf report's "Total Lost
# Samples" matches the summary.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
echo 1..3

"$tool" record -m 1 -e page-faults -c 1 -o "$T/l.data" -- \
	"$touchpages" 30000 2>"$T/err"
ok_rc $? "record -m 1 -e page-faults -c 1 exits 0"
sed 's/^/# /' "$T/err"
lost=$(sed -n 's/.* written to .*, \([0-9]*\) lost,.*/\1/p' "$T/err")
if [ -z "$lost" ] || [ "$lost" = 0 ]; then
	skip "the recorder kept up: nothing lost"
	skip "the recorder kept up: nothing lost"
	exit 0
fi
n=$(perf report -D -i "$T/l.data" 2>/dev/null | grep -c 'PERF_RECORD_LOST_SAMPLES:')
[ "$n" -ge 1 ]
ok_rc $? "the file holds PERF_RECORD_LOST_SAMPLES ($n)"
total=$(perf report --stdio -i "$T/l.data" 2>/dev/null |
	sed -n 's/^# Total Lost Samples: \([0-9]*\)/\1/p')
[ "$total" = "$lost" ]
ok_rc $? "perf report's Total Lost Samples is the $lost lost ($total)"
