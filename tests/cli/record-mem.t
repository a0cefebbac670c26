#!/bin/bash
# record-mem.t - pebs-shim mem record and c2c record choose the events and
# sample options of perf 6.1's perf mem record and perf c2c record:
#  - on this machine (no precise memory events): one line naming what is
#    missing and what works instead, which does work;
#  - on fake PMU trees (PEBS_TEST_SYSFS_ROOT) for Intel Skylake, an Intel
#    hybrid (cpu_core/cpu_atom) and AMD (ibs_op): the "calling:" line and
#    each attr of -vv, against perf's source (builtin-mem.c,
#    builtin-c2c.c, arch/x86/util/mem-events.c, evsel__config);
#  - side by side with the installed perf on the same fake tree mounted
#    over /sys in a mount namespace (root, unshare): the calling lines
#    and the attrs' type, config, config1, precise_ip and sample_type.
#    perf picks its tables by the CPUID vendor, so the AMD tree is
#    compared on AMD hosts and the Intel one on Intel hosts;
#  - end to end on a tree whose "cpu" PMU is the software one (type 1,
#    mem-loads and mem-stores = page faults): the recording made, the
#    typed command line and perf's event names stored, and report, c2c
#    report and perf mem report reading it.
. "$PEBS_SRC/tests/cli/record-common.sh"
[ -x "$tool" ] || skip_all "no $tool: build it first (make B=... tool)"
echo 1..37

sys=/sys/bus/event_source/devices
# ---- this machine ------------------------------------------------------
if [ -e $sys/cpu/events/mem-loads ] || [ -e $sys/cpu_core/events/mem-loads ] ||
   [ -e $sys/ibs_op ]; then
	skip_n 5 "this machine has precise memory events"
else
	for c in mem c2c; do
		"$tool" $c record -o "$T/none.data" -- true 2>"$T/err"
		rc=$?
		[ "$rc" = 124 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
			grep -q "no precise memory events.*mem-loads.*ibs_op.*pebs-shim record -e page-faults -d -- COMMAND" "$T/err"
		ok_rc $? "$c record here: exit 124 ($rc) and one line naming what is missing and what to use" 
		[ ! -e "$T/none.data" ]
		ok_rc $? "$c record here: no output file left"
	done
	"$tool" record -q -e page-faults -d -o "$T/pf.data" -- "$touchpages" 16 \
		>/dev/null 2>"$T/err"
	ok_rc $? "what the message proposes works: record -e page-faults -d"
fi

# ---- fake trees --------------------------------------------------------
F=$T/fake
mk() {	# mk TREE REL TEXT
	mkdir -p "$(dirname "$F/$1/$2")"
	echo "$3" >"$F/$1/$2"
}
core() {	# core TREE PMU TYPE LOADS STORES
	mk "$1" "$2/type" "$3"
	mk "$1" "$2/format/event" config:0-7
	mk "$1" "$2/format/umask" config:8-15
	mk "$1" "$2/format/ldlat" config1:0-15
	mk "$1" "$2/events/mem-loads" "$4"
	mk "$1" "$2/events/mem-stores" "$5"
}
core skx cpu 4 event=0xcd,umask=0x1,ldlat=3 event=0xd0,umask=0x82
core adl cpu_core 4 event=0xcd,umask=0x1,ldlat=3 event=0xcd,umask=0x2
mk adl cpu_core/events/mem-loads-aux event=0x03,umask=0x82
core adl cpu_atom 8 event=0xd0,umask=0x5,ldlat=3 event=0xd0,umask=0x6
mk zen4 ibs_op/type 11
mk zen4 ibs_op/format/cnt_ctl config:19
mk zen4 cpu/type 4

run() {	# run TREE ARGS...: pebs-shim -vv on a fake tree into $T/out
	PEBS_TEST_SYSFS_ROOT=$F/$1 "$tool" "${@:2}" -vv -o "$T/x.data" -- true \
		>"$T/out" 2>&1
}
calling() { sed -n 's/^calling: //p' "$T/out" | sed 's/ *$//'; }
# attr N FIELD: the value of FIELD in the N-th attr block of $T/out
attr() {
	awk -v n="$1" -v f="$2" '/^perf_event_attr:/ { b++ }
		b == n && substr($0, 3, 32) ~ "^" f " *$" {
			print substr($0, 36); exit }' "$T/out"
}
has_bits() {	# has_bits N BIT... : every BIT in attr N's sample_type
	local st="|$(attr "$1" sample_type)|" b
	for b in "${@:2}"; do
		case $st in *"|$b|"*) ;; *) return 1 ;; esac
	done
}

run skx mem record
[ "$(calling)" = "record -e cpu/mem-loads,ldlat=30/P -e cpu/mem-stores/P" ]
ok_rc $? "Intel mem record: perf's events (calling: $(calling))"
[ "$(attr 1 type)" = 4 ] && [ "$(attr 1 config)" = 0x1cd ] &&
	[ "$(attr 1 '{ bp_addr, config1 }')" = 0x1e ] &&
	[ "$(attr 1 precise_ip)" = 3 ]
ok_rc $? "Intel loads: type 4, config 0x1cd, config1 30 (ldlat), precise_ip 3 (:P)"
[ "$(attr 2 config)" = 0x82d0 ] && [ "$(attr 2 precise_ip)" = 3 ] &&
	[ -z "$(attr 2 '{ bp_addr, config1 }')" ]
ok_rc $? "Intel stores: config 0x82d0, no ldlat, precise_ip 3"
has_bits 1 ADDR DATA_SRC WEIGHT_STRUCT && has_bits 2 ADDR DATA_SRC WEIGHT_STRUCT &&
	! has_bits 1 PHYS_ADDR && ! has_bits 1 WEIGHT
ok_rc $? "mem record: -W -d: ADDR|DATA_SRC|WEIGHT_STRUCT, no PHYS_ADDR ($(attr 1 sample_type))"
run skx mem -t store record
[ "$(calling)" = "record -e cpu/mem-stores/P" ] && ! has_bits 1 WEIGHT_STRUCT
ok_rc $? "mem -t store record: stores alone, no -W ($(attr 1 sample_type))"
run skx mem record -t load --ldlat 64
[ "$(calling)" = "record -e cpu/mem-loads,ldlat=64/P" ] &&
	[ "$(attr 1 '{ bp_addr, config1 }')" = 0x40 ]
ok_rc $? "mem record -t load --ldlat 64: loads, config1 0x40 (the Intel fixture's)"
run skx mem -p --data-page-size record
has_bits 1 PHYS_ADDR DATA_PAGE_SIZE
ok_rc $? "mem -p --data-page-size: PHYS_ADDR|DATA_PAGE_SIZE"
run skx c2c record
[ "$(calling)" = "record -W -d --phys-data --sample-cpu -e cpu/mem-loads,ldlat=30/P -e cpu/mem-stores/P -vv -o $T/x.data -- true" ]
ok_rc $? "Intel c2c record: perf's whole line"
has_bits 1 ADDR DATA_SRC WEIGHT_STRUCT PHYS_ADDR CPU
ok_rc $? "c2c record: ADDR|DATA_SRC|WEIGHT_STRUCT|PHYS_ADDR|CPU"

run adl mem record
[ "$(calling)" = "record -e {cpu_core/mem-loads-aux/,cpu_core/mem-loads,ldlat=30/}:P -e cpu_atom/mem-loads,ldlat=30/P -e cpu_core/mem-stores/P -e cpu_atom/mem-stores/P" ]
ok_rc $? "hybrid mem record: each event on cpu_core and cpu_atom, the aux group"
[ "$(attr 1 config)" = 0x8203 ] && [ "$(attr 2 config)" = 0x1cd ] &&
	[ "$(attr 3 type)" = 8 ] && [ "$(attr 3 config)" = 0x5d0 ]
ok_rc $? "hybrid: mem-loads-aux leads, cpu_atom's type 8 and encoding"

run zen4 mem record
[ "$(calling)" = "record -e ibs_op//" ] && [ "$(attr 1 type)" = 11 ] &&
	has_bits 1 ADDR DATA_SRC WEIGHT_STRUCT
ok_rc $? "AMD mem record: ibs_op//, type 11, -W -d"
run zen4 c2c record
[ "$(calling)" = "record -W -d --phys-data --sample-cpu -e ibs_op// -vv -o $T/x.data -- true" ] &&
	has_bits 1 ADDR DATA_SRC WEIGHT_STRUCT PHYS_ADDR CPU
ok_rc $? "AMD c2c record: perf's line and fields"
run zen4 c2c record -u
[ "$(calling)" = "record -W -d --phys-data --sample-cpu -e ibs_op// --all-user -vv -o $T/x.data -- true" ] &&
	[ "$(attr 1 exclude_kernel)" = 1 ] && [ -z "$(attr 1 exclude_user)" ]
ok_rc $? "c2c record -u: --all-user after the events, exclude_kernel (perf's)"
PEBS_TEST_SYSFS_ROOT=$F/zen4 "$tool" mem -t load record -- true 2>"$T/err"
rc=$?
[ "$rc" = 123 ] && grep -q "drop -t load" "$T/err"
ok_rc $? "AMD mem -t load: IBS samples both, a usage error ($rc)"
"$tool" mem -t bogus record -- true 2>"$T/err"
rc=$?
[ "$rc" = 123 ] && grep -q "load, store or load,store" "$T/err"
ok_rc $? "mem -t bogus: usage error naming the choices ($rc)"
PEBS_TEST_SYSFS_ROOT=$F/skx "$tool" c2c record -e cycles -- true 2>"$T/err"
[ $? = 123 ] && grep -q "event 'cycles' not found" "$T/err"
ok_rc $? "c2c record -e takes perf's memory event tags only"

# ---- end to end: a "cpu" PMU that is the software one -------------------
mk sw cpu/type 1
mk sw cpu/format/ldlat config1:0-15
mk sw cpu/events/mem-loads config=0x2,ldlat=3
mk sw cpu/events/mem-stores config=0x2
PEBS_TEST_SYSFS_ROOT=$F/sw "$tool" mem -t load record -q -c 1 \
	-o "$T/sw.data" -- "$touchpages" 64 >/dev/null 2>"$T/err"
ok_rc $? "mem -t load record on a software 'cpu' PMU records"
"$tool" report -i "$T/sw.data" >"$T/rep" 2>&1 &&
	grep -q '^# command   : pebs-shim mem -t load record .*-q -c 1 -o .*touchpages 64$' "$T/rep" &&
	grep -q '^# event 0   : cpu/mem-loads,ldlat=30/P (type 1, config 0x2, config1 0x1e, period 1, precise_ip 3): [1-9]' "$T/rep"
ok_rc $? "report: the command line as typed, perf's event name, ldlat in config1"
perf_names=$(perf report --header-only -i "$T/sw.data" 2>/dev/null |
	perl -ne 'print "$1\n" if /^# event : name = (.*?), , /')
[ "$perf_names" = "cpu/mem-loads,ldlat=30/P" ]
ok_rc $? "HEADER_EVENT_DESC holds perf's name (perf report --header-only: $perf_names)"
PEBS_TEST_SYSFS_ROOT=$F/sw "$tool" c2c record -q -c 1 -o "$T/c2c.data" -- \
	"$touchpages" 64 >/dev/null 2>"$T/err" &&
	"$tool" c2c report -i "$T/c2c.data" >"$T/c2c" 2>&1 &&
	grep -qE 'Total records +: +[1-9]' "$T/c2c"
ok_rc $? "c2c record, then c2c report reads it"
perf mem report -i "$T/c2c.data" --stdio >"$T/pmem" 2>&1 &&
	grep -q touchpages "$T/pmem"
ok_rc $? "perf mem report reads c2c record's file"

# ---- side by side with perf --------------------------------------------
vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
case $vendor in
AuthenticAMD) tree=zen4 ;;
GenuineIntel) tree=skx ;;
*) tree= ;;
esac
if ! command -v perf >/dev/null; then
	skip_n 8 "perf is not installed"
	exit 0
elif [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	skip_n 8 "the fake tree goes over /sys in a mount namespace: needs root and unshare"
	exit 0
elif [ -z "$tree" ]; then
	skip_n 8 "perf picks its tables by CPU vendor: '$vendor' is neither"
	exit 0
fi
# the fake tree over /sys (PMUs and /sys/devices, where perf looks)
cat >"$T/ns.sh" <<'NS'
set -e
mount -t tmpfs none /sys/bus/event_source/devices
cp -r "$1"/* /sys/bus/event_source/devices/
mount -t tmpfs none /sys/devices
cp -r "$1"/* /sys/devices/
mkdir -p /sys/devices/system/cpu/cpu0
for f in online possible present; do echo 0 >/sys/devices/system/cpu/$f; done
shift
"$@"
NS
side() {	# side WHO ARGS...: WHO (perf or pebs-shim) -vv in the namespace
	local who=$1
	[ "$who" = pebs-shim ] && who=$tool
	timeout 60 unshare -m sh "$T/ns.sh" "$F/$tree" "$who" "${@:2}" -vv \
		-o "$T/side.data" -- true >"$T/out" 2>&1
	cp "$T/out" "$T/out.$1"
}
# -e list and a -e tag (perf: no -W for the load+store event then)
for who in perf pebs-shim; do
	w=$who
	[ $who = pebs-shim ] && w=$tool
	timeout 60 unshare -m sh "$T/ns.sh" "$F/$tree" "$w" mem record -v \
		-e list >"$T/list.$who" 2>&1
done
cmp -s "$T/list.perf" "$T/list.pebs-shim"
ok_rc $? "mem record -v -e list prints what perf prints ($(head -1 "$T/list.perf"))"
tag=ldlat-stores
[ $tree = zen4 ] && tag=ldst
side perf c2c record -e $tag
p_call=$(calling)
side pebs-shim c2c record -e $tag
s_call=$(calling)
s_call=${s_call/ -vv/}
[ "${p_call%% -o *}" = "${s_call%% -o *}" ]
ok_rc $? "c2c record -e $tag: perf's line ($s_call)"

for c in mem c2c; do
	side perf $c record
	p_call=$(calling)
	p_n=$(grep -c '^perf_event_attr:' "$T/out")
	p_f=
	for ((i = 1; i <= p_n; i++)); do
		p_f="$p_f|$(attr $i type) $(attr $i config) $(attr $i '{ bp_addr, config1 }') $(attr $i precise_ip)"
	done
	p_st=$(attr 1 sample_type)
	side pebs-shim $c record
	s_call=$(calling)
	s_f=
	for ((i = 1; i <= p_n; i++)); do
		s_f="$s_f|$(attr $i type) $(attr $i config) $(attr $i '{ bp_addr, config1 }') $(attr $i precise_ip)"
	done
	s_st=$(attr 1 sample_type)
	if [ $c = mem ]; then
		[ "$p_call" = "$s_call" ]
	else	# the same up to the user's options (perf eats -vv and --)
		s_call=${s_call/ -vv/}
		[ "${p_call%% -o *}" = "${s_call%% -o *}" ]
	fi
	ok_rc $? "$c record: the calling line is perf's ($s_call)"
	[ "$p_n" -ge 1 ] && [ "$p_f" = "$s_f" ]
	ok_rc $? "$c record: type, config, config1, precise_ip of each of perf's $p_n attrs ($s_f)"
	# sample_type: perf's bits, but PERIOD (perf's -F 4000; record
	# samples a fixed period); record adds IDENTIFIER, and CPU
	extra=$(comm -13 <(echo "$p_st" | tr '|' '\n' | sort) \
		<(echo "$s_st" | tr '|' '\n' | sort) | grep -vxE 'IDENTIFIER|CPU' | tr '\n' ' ')
	missing=$(comm -23 <(echo "$p_st" | tr '|' '\n' | sort) \
		<(echo "$s_st" | tr '|' '\n' | sort) | grep -vx PERIOD | tr '\n' ' ')
	[ -n "$p_st" ] && [ -z "$extra$missing" ]
	ok_rc $? "$c record: sample_type has perf's fields ($p_st / $s_st${missing:+; missing $missing}${extra:+; extra $extra})"
	# neither could open the fake PMU: both fail
	grep -qE 'not supported|cannot open|failed' "$T/out.perf" &&
		grep -q 'cannot open events' "$T/out.pebs-shim"
	ok_rc $? "$c record: perf and pebs-shim both fail to open the fake PMU"
done
