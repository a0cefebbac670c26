#!/bin/bash
# render.sh - the benchmarks' results as files: render.sh MACHINE ROWS OUT
# reads the machine's description (MACHINE: "key<TAB>value" lines) and
# the rows of bench/lib.sh (ROWS, tab-separated, fields listed there) and
# writes OUT.csv, OUT.json, OUT.md (a Markdown table) and OUT.svg (a bar
# chart of the ratios, log scale, with min-max whiskers). The same input
# gives the same bytes. Each file is written beside and renamed into
# place, so a failed run leaves the previous results whole.
set -u
[ $# = 3 ] || { echo "usage: render.sh MACHINE ROWS OUT" >&2; exit 2; }
machine=$1 rows=$2 out=$3
for f in "$machine" "$rows"; do
	[ -r "$f" ] || { echo "render.sh: cannot read $f: give the files bench/run.sh writes" >&2; exit 1; }
done

fields="section case metric unit subject anchor rounds value anchor_value ratio_min ratio_median ratio_max noisy note"

# CSV: a header, the machine as rows of section "machine" (key in case,
# value in note), then the results
awk -F'\t' -v fields="$fields" '
	function q(s) {
		if (s ~ /[",\n]/) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
		return s
	}
	BEGIN { n = split(fields, h, " "); line = h[1]; for (i = 2; i <= n; i++) line = line "," h[i]; print line }
	FNR == NR { printf "machine,%s,,,,,,,,,,,,%s\n", q($1), q($2); next }
	{ line = q($1); for (i = 2; i <= 14; i++) line = line "," q($i); print line }
' "$machine" "$rows" >"$out.csv.new" || exit 1

# JSON: {"machine": {...}, "results": [{...}, ...]}; numbers stay numbers
awk -F'\t' -v fields="$fields" '
	function s(v) {
		gsub(/\\/, "\\\\", v); gsub(/"/, "\\\"", v); gsub(/\t/, " ", v)
		return "\"" v "\""
	}
	function val(v) {
		if (v == "") return "null"
		if (v ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) return v
		return s(v)
	}
	BEGIN { n = split(fields, h, " "); printf "{\n  \"machine\": {" }
	FNR == NR { printf "%s\n    %s: %s", (m++ ? "," : ""), s($1), s($2); next }
	FNR == 1 && !r { printf "\n  },\n  \"results\": [" }
	{
		printf "%s\n    {", (r++ ? "," : "")
		for (i = 1; i <= 14; i++) {
			v = (i == 13) ? ($i == "1" ? "true" : ($i == "0" ? "false" : "null")) : \
			    (i <= 6 || i == 14) ? ($i == "" ? "null" : s($i)) : val($i)
			printf "%s%s: %s", (i > 1 ? ", " : ""), s(h[i]), v
		}
		printf "}"
	}
	END { if (!r) printf "\n  },\n  \"results\": ["; printf "\n  ]\n}\n" }
' "$machine" "$rows" >"$out.json.new" || exit 1

# Markdown: the machine in one paragraph, then one table row per result
awk -F'\t' '
	function cell(v) { gsub(/\|/, "\\|", v); return v }
	FNR == NR { m[$1] = $2; next }
	FNR == 1 {
		printf "Run %s on %s (%s cores), kernel %s, %s, virtualized: %s, PMU: %s; %s rounds%s%s.\n\n",
		       m["date"], m["cpu"], m["cores"], m["kernel"], m["perf"],
		       m["virtualized"], m["pmu"], m["rounds"],
		       (m["quick"] == "1" ? ", BENCH_QUICK (a smoke run: the figures mean nothing)" : ""),
		       (m["took"] != "" ? ", took " m["took"] : "")
		print "| benchmark | metric | subject / anchor | ratio: median (min-max) | subject | anchor | note |"
		print "|---|---|---|---|---|---|---|"
	}
	{
		if ($14 ~ /^skipped/) { printf "| %s: %s | | | | | | %s |\n", $1, cell($2), cell($14); next }
		unit = $4 == "" ? "" : " " $4
		if ($6 == "")
			printf "| %s: %s | %s | %s | | %s%s | | %s |\n", $1, cell($2), $3, $5, $8, unit, cell($14)
		else
			printf "| %s: %s | %s | %s / %s | %s (%s-%s)%s | %s%s | %s%s | %s |\n",
			       $1, cell($2), $3, $5, $6, $11, $10, $12, ($13 == "1" ? " noisy" : ""),
			       $8, unit, $9, unit, cell($14)
	}
' "$machine" "$rows" >"$out.md.new" || exit 1

# SVG: one bar per ratio, from 1 to the median on a log2 axis, whiskers
# from min to max
awk -F'\t' '
	function x(r) { if (r < lo) r = lo; if (r > hi) r = hi; return left + (log(r) - log(lo)) / (log(hi) - log(lo)) * width }
	function esc(v) { gsub(/&/, "\\&amp;", v); gsub(/</, "\\&lt;", v); gsub(/>/, "\\&gt;", v); gsub(/"/, "\\&quot;", v); return v }
	FNR == NR { m[$1] = $2; next }
	$11 != "" { n++; lab[n] = $2 ": " $3 " " $5 "/" $6; med[n] = $11; mn[n] = $10; mx[n] = $12; noisy[n] = $13 }
	END {
		lo = 0.25; hi = 4
		for (i = 1; i <= n; i++) {
			while (mn[i] > 0 && mn[i] < lo && lo > 1 / 1024) lo /= 2
			while (mx[i] > hi && hi < 1024) hi *= 2
		}
		left = 520; width = 400; bar = 22; top = 60
		h = top + n * bar + 50; w = left + width + 40
		printf "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", w, h, w, h
		printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h
		printf "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">subject / anchor: median of %s interleaved rounds, min-max whiskers (log scale; left of 1 is better)</text>\n", esc(m["rounds"])
		printf "<text x=\"10\" y=\"36\">%s, %s cores, %s, %s, virtualized: %s%s</text>\n", esc(m["date"] " " m["cpu"]), esc(m["cores"]), esc(m["kernel"]), esc(m["perf"]), esc(m["virtualized"]), (m["quick"] == "1" ? " (BENCH_QUICK smoke run)" : "")
		for (t = lo; t <= hi * 1.0001; t *= 2) {
			printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n", x(t), top - 6, x(t), top + n * bar, (t == 1 ? "black" : "#ddd")
			printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x(t), top + n * bar + 16, (t < 1 ? sprintf("1/%d", 1 / t + 0.5) : sprintf("%d", t))
		}
		for (i = 1; i <= n; i++) {
			y = top + (i - 1) * bar
			a = x(1); b = x(med[i])
			printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 8, y + 15, esc(lab[i])
			printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", (a < b ? a : b), y + 4, (a < b ? b - a : a - b), bar - 8, (med[i] <= 1 ? "#4a8" : "#c64")
			printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n", x(mn[i]), y + bar / 2, x(mx[i]), y + bar / 2
			printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n", x(mn[i]), y + 6, x(mn[i]), y + bar - 6
			printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n", x(mx[i]), y + 6, x(mx[i]), y + bar - 6
			printf "<text x=\"%.1f\" y=\"%d\">%.3g%s</text>\n", x(mx[i]) + 4, y + 15, med[i], (noisy[i] == "1" ? " (noisy)" : "")
		}
		printf "<text x=\"%d\" y=\"%d\">ratio (subject / anchor)</text>\n", left, h - 10
		printf "</svg>\n"
	}
' "$machine" "$rows" >"$out.svg.new" || exit 1

for ext in csv json md svg; do
	mv -f "$out.$ext.new" "$out.$ext" || exit 1
done
