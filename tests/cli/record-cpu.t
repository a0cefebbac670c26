#!/bin/bash
# record-cpu.t - pebs-shim record -a / -C (per-CPU channels): the file
# holds exactly the samples reported, memwalk's samples name its threads,
# chase() comes first among them, -C keeps to its CPUs.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_tools
need percpu || skip_all "$why"
echo 1..10

"$tool" record -a -m 512 -e cpu-clock -c 250000 -o "$T/a.data" -- \
	"$memwalk" --seconds 1 --mb 16 2>"$T/err"
ok_rc $? "record -a -- memwalk exits 0"
sed 's/^/# /' "$T/err"
n=$(summary_count "$T/err")
perf script -i "$T/a.data" -F comm,pid,tid >"$T/script" 2>/dev/null
m=$(wc -l <"$T/script")
[ -n "$n" ] && [ "$n" -gt 100 ] && [ "$m" = "$n" ]
ok_rc $? "perf script sees as many samples as reported ($m vs $n)"
read -r P W S <<<"$(memwalk_ids "$T/err")"
threads_right "$T/script" "$P" "$W" "$S" "" pebs-shim
ok_rc $? "memwalk's samples name its threads (pid $P)"
# the walker spends ~80 % of its time in chase(); the streamer, as long
# in stream(), is the same process: rank within the walker's thread
top=$(SORT=pid,sym top_symbol "$T/a.data" --tid "$W")
[ "$top" = chase ]
ok_rc $? "perf report --sort pid,sym --tid (the walker) ranks chase first (got '$top')"
if [ -e /dev/pebs_map ]; then
	grep -q 'attribution: /dev/pebs_map' "$T/err"
	ok_rc $? "auto attribution uses the map"
else
	grep -q 'attribution: sample TID (no /dev/pebs_map; PERF_RECORD_SWITCH_CPU_WIDE baseline agrees' "$T/err"
	ok_rc $? "auto attribution without the module: TID, switch records as baseline"
fi

# memwalk pinned to CPU 0 so that CPU 0 surely sees it (its main thread
# is "taskset" until the exec)
"$tool" record -C 0 -m 1024 -e cpu-clock -c 250000 --format csv -o "$T/c.csv" -- \
	taskset -c 0 "$memwalk" --seconds 0.5 --mb 16 2>"$T/err2"
ok_rc $? "record -C 0 --format csv exits 0"
sed 's/^/# /' "$T/err2"
head -1 "$T/c.csv" | grep -qx 'time,cpu,tgid,pid,comm,event,ip,symbol,addr,weight,data_src'
ok_rc $? "the CSV starts with its header"
n=$(summary_count "$T/err2")
awk -F, -v n="$n" 'NR > 1 { rows++; if ($2 != 0) bad++ }
	END { exit !(rows == n && rows > 0 && !bad) }' "$T/c.csv"
ok_rc $? "$n rows, all on CPU 0"
read -r P W S <<<"$(memwalk_ids "$T/err2")"
# what cannot vary: every row of memwalk names the right thread
awk -F, -v P="$P" -v W="$W" -v S="$S" '
	NR > 1 && $3 == P { seen++
		# a new thread is "memwalk" until it names itself; kernel
		# samples in the exec of taskset still carry the recorder,
		# those of a thread past its exit have tid -1
		if ($4 != -1 && !(($4 == W && ($5 == "walker" || $5 == "memwalk")) ||
		      ($4 == S && ($5 == "streamer" || $5 == "memwalk")) ||
		      ($4 == P && ($5 == "memwalk" || $5 == "taskset" ||
				   ($5 == "pebs-shim" && $8 !~ /^chase/))))) {
			if (++bad < 5) print "# wrong thread: " $0
		}
	}
	END { exit !(seen && !bad) }' "$T/c.csv"
ok_rc $? "CSV rows of memwalk carry its thread names"
# the walker spends ~80 % of its time in chase(): with 50 samples of it
# outside its set-up, chase is certain to show (0.2^50); with fewer (a
# busy CPU 0 starved it), there is nothing to assert
read -r nw nchase <<<"$(awk -F, -v W="$W" '
	NR > 1 && $4 == W && $8 !~ /^(build_ring|first_touch)/ { n++
		if ($8 ~ /^chase/) c++ }
	END { print n + 0, c + 0 }' "$T/c.csv")"
if [ "$nw" -lt 50 ]; then
	skip "the walker got only $nw samples past its set-up (CPU 0 busy): too few to expect chase"
else
	[ "$nchase" -gt 0 ]
	ok_rc $? "chase shows among the walker's $nw samples ($nchase)"
fi
