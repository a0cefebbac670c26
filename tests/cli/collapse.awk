# collapse.awk - perf script call chains folded by the rules of FlameGraph's
# stackcollapse-perf.pl (default options), for tests/cli/plot.t: a stack
# is "comm;outer;...;leaf", its count the samples; the comm ends before
# the first number field of the event line, spaces become "_"; a frame
# loses its +0x offset; "[unknown]" in a known file becomes "[file]";
# ";" becomes ":", what follows the first "(" goes (not "(anonymous
# namespace)", not Go's ".(T)."), quotes go; names starting "(" are skipped.
/^#/ { next }
/^$/ { if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ } n = 0; comm = ""; next }
/^[^ \t]/ {
	# "comm tid [cpu] time: period event:": the comm (spaces as '_')
	# ends before the first number field, as the script's regex
	comm = $1
	for (i = 2; i <= NF && $i !~ /^[0-9]+(\/[0-9]+)?$/; i++) comm = comm "_" $i
	next
}
{
	line = $0; sub(/^[ \t]+/, "", line)
	pc = line; sub(/[ \t].*/, "", pc); rest = substr(line, length(pc) + 1); sub(/^[ \t]+/, "", rest)
	if (!match(rest, / \([^ ]*\)$/)) next
	mod = substr(rest, RSTART + 2, RLENGTH - 3); func = substr(rest, 1, RSTART - 1)
	sub(/\+0x[0-9a-f]+$/, "", func)
	if (func ~ /^\(/) next
	if (func == "[unknown]" && mod != "[unknown]") { sub(/.*\//, "", mod); func = "[" mod "]" }
	gsub(/;/, ":", func)
	if (func !~ /\.\(.*\)\./) { p = index(func, "("); if (p && substr(func, p, 21) != "(anonymous namespace)") func = substr(func, 1, p - 1) }
	gsub(/["']/, "", func)
	f[++n] = func
}
END { if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ } for (k in c) print k " " c[k] }
