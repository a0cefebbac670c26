#!/bin/bash
# selftest.t - pebs-shim test: the whole run (--json, --markdown) is quick,
# its JSON parses, the software-event checks pass, each hardware check
# skips with its reason where the machine lacks the feature (none may
# pass without it), the PEBS_TEST_NO_* variables make the matching checks
# skip, and the command's usage (--list, NAME/NUMBER, exit statuses);
# the budget and objects checks pass with page faults, skip without the
# interposer, and on a fake PEBS tree take the precise load event.
set -u
tool=$PEBS_BUILD/pebs-shim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$PEBS_SRC/tests/tap.sh"
need_bin "$tool"

echo "1..28"

SW="pf-addr tid ring-loss file-roundtrip rdtscp"
# record --budget and --objects: the precise load event on hardware, else
# page-faults, so they pass here too
REC="budget objects"
# the checks that run pebs-shim record and perf record side by side
PERFCMP="overhead pf-perf report-perf"
HW="precise-mem sharing observer-rdpmc module module-switch observer-residency"

# status NAME JSON: the status of check NAME, then its message
status() {
	python3 - "$2" "$1" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["checks"] if c["name"] == sys.argv[2]]
print(c[0]["status"] if c else "absent", c[0]["message"] if c else "")
EOF2
}

start=$(date +%s)
"$tool" test --quick --json "$T/all.json" --markdown "$T/all.md" >"$T/out" 2>"$T/err"
rc=$?
secs=$(($(date +%s) - start))
check "the whole run finishes within 2 minutes (${secs}s)" [ "$secs" -lt 120 ]
if python3 -m json.tool "$T/all.json" >/dev/null 2>"$T/jerr"; then
	ok "the JSON parses"
else
	nok "the JSON parses" "$(head -3 "$T/jerr")"
fi
check "the JSON and the Markdown are 0600 (they hold addresses)" \
	eval '[ "$(stat -c %a "$T/all.json" "$T/all.md" | sort -u)" = 600 ]'
n=$(grep -c '^| [0-9]' "$T/all.md")
check "the Markdown has a row per check ($n)" \
	eval '[ "$n" = "$("$tool" test --list | wc -l)" ]'

# the software checks open page-faults:u on the workload: root, or
# perf_event_paranoid <= 2 (3, a Debian patch, refuses users everything)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if need root || [ "$paranoid" -le 2 ]; then
	bad=
	for c in machine $SW known-addr $REC; do
		read -r st msg < <(status "$c" "$T/all.json")
		want=pass
		# a CPU without rdtscp (some days' machine here, or hidden):
		# its check skips, saying why
		[ "$c" = rdtscp ] && ! need rdtscp && want=skip
		[ "$st" = "$want" ] || bad="$bad $c: $st (want $want) $msg;"
	done
	if [ -z "$bad" ]; then ok "the software-event checks pass"
	else
		nok "the software-event checks pass" "$bad"
		# the failed checks' figures, to tell which rule broke
		python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["checks"]:
    if c["status"] == "fail":
        print("# %s: %s" % (c["name"], " ".join(
            "%s=%s" % kv for kv in c.get("details", {}).items())))
' "$T/all.json"
	fi
	check "exit status 0 when nothing failed ($rc)" [ "$rc" = 0 ]
	python3 - "$T/all.json" >"$T/rec" 2>&1 <<'EOF2'
import json, sys
c = {c["name"]: c for c in json.load(open(sys.argv[1]))["checks"]}
b, o = c["budget"], c["objects"]
ev = b["details"].get("event", "")
bad = [k for k in ("round1.period_sum", "round1.count", "round1.estimate",
                   "round3.throttles", "slowdown") if k not in b["details"]]
bad += [] if ev and ("-e " + ev) in b["message"] else ["budget names no event"]
bad += [] if "objects_site_c" in o["details"] else ["objects: no site figures"]
bad += [] if ("-e " + o["details"].get("event", "?")) in o["message"] else ["objects names no event"]
print(bad or "", ev)
sys.exit(1 if bad else 0)
EOF2
	ok_rc $? "budget and objects: the result lines name the event, the JSON has each round's and each site's figures ($(cat "$T/rec"))"
else
	skip_n 3 "not root and perf_event_paranoid $paranoid > 2"
fi
# as a user (nobody): the same software checks pass at paranoid <= 2
if ! need root; then
	skip "not root: cannot run as another user"
elif [ "$paranoid" -gt 2 ] || ! command -v setpriv >/dev/null; then
	skip "perf_event_paranoid $paranoid > 2, or no setpriv"
else
	chmod 0755 "$T"
	mkdir "$T/u" && chown 65534:65534 "$T/u"
	(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$tool" test --json "$T/u/user.json" machine $SW) >"$T/user" 2>&1
	rc=$?
	check "as user nobody: the software checks pass, exit 0 ($rc: $(tail -1 "$T/user"))" \
		eval '[ $rc = 0 ] && grep -qx "6 passed, 0 failed, 0 skipped" "$T/user"'
fi

# side by side with perf: figures where perf is (not hidden by
# PEBS_TEST_NO_PERF), else skip with the reason
if command -v perf >/dev/null && [ -z "${PEBS_TEST_NO_PERF:-}" ]; then
	bad=
	for c in $PERFCMP; do
		read -r st msg < <(status "$c" "$T/all.json")
		[ "$st" = pass ] || bad="$bad $c: $st $msg;"
	done
	if [ -z "$bad" ]; then ok "the checks side by side with perf pass with their figures"
	else nok "the checks side by side with perf pass with their figures" "$bad"; fi
	python3 - "$T/all.json" >"$T/fig" 2>&1 <<'EOF2'
import json, sys
d = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "overhead"][0]["details"]
want = ["event", "period", "rounds", "pebs_shim.slowdown", "pebs_shim.spread",
        "perf.slowdown", "perf.spread", "ratio"]
missing = [k for k in want if k not in d]
print("missing:", missing) if missing else None
sys.exit(1 if missing or d["rounds"] != "2" else 0)
EOF2
	ok_rc $? "overhead: --quick runs 2 rounds; JSON has both slowdowns, spreads, the ratio $(cat "$T/fig")"
	check "the Markdown carries the overhead's figures" \
		grep -q '^pebs_shim.slowdown=' "$T/all.md"
else
	skip_n 3 "no perf to compare with (or PEBS_TEST_NO_PERF set)"
fi
PEBS_TEST_NO_PERF=1 "$tool" test --json "$T/noperf.json" $PERFCMP >/dev/null 2>&1
bad=
for c in $PERFCMP; do
	read -r st msg < <(status "$c" "$T/noperf.json")
	[ "$st" = skip ] && [[ $msg == *PEBS_TEST_NO_PERF=1* ]] || bad="$bad $c: $st $msg;"
done
if [ -z "$bad" ]; then ok "PEBS_TEST_NO_PERF=1: the comparisons with perf skip, naming it"
else nok "PEBS_TEST_NO_PERF=1: the comparisons with perf skip, naming it" "$bad"; fi

# hardware checks: skip with a reason where the feature is missing
bad=
for c in $HW; do
	read -r st msg < <(status "$c" "$T/all.json")
	case $c in
	module|module-switch|observer-residency) need map && continue ;;
	*) need precise && continue ;;
	esac
	[ "$st" = skip ] && [ -n "$msg" ] || bad="$bad $c: $st $msg;"
done
if [ -z "$bad" ]; then ok "every hardware check the machine cannot run skips with its reason"
else nok "every hardware check the machine cannot run skips with its reason" "$bad"; fi

# no interposer: the objects check skips with record's reason
PEBS_SHIM_OBJECTS_LIB=$T/none.so "$tool" test --json "$T/nolib.json" objects \
	>/dev/null 2>&1
rc=$?
read -r st msg < <(status objects "$T/nolib.json")
check "no libpebsshim-objects.so: objects skips naming it, exit 0 ($rc: $st $msg)" \
	eval '[ $rc = 0 ] && [ "$st" = skip ] && [[ $msg == *"$T/none.so"*PEBS_SHIM_OBJECTS_LIB* ]]'

# the precise path as far as it goes here: a fake Skylake PMU tree over
# /sys in a mount namespace (as record-mem.t): both pick mem record's load
# event with ldlat 3, then skip, naming why it cannot open or count here
if ! need root || ! command -v unshare >/dev/null; then
	skip "the fake PMU tree goes over /sys in a mount namespace: needs root and unshare"
else
	F=$T/fake
	for f in type=4 format/event=config:0-7 format/umask=config:8-15 \
		format/ldlat=config1:0-15 caps/max_precise=3 \
		events/mem-loads=event=0xcd,umask=0x1,ldlat=3 \
		events/mem-stores=event=0xd0,umask=0x82; do
		mkdir -p "$(dirname "$F/cpu/${f%%=*}")"
		echo "${f#*=}" >"$F/cpu/${f%%=*}"
	done
	cat >"$T/ns.sh" <<'NS'
set -e
mount -t tmpfs none /sys/bus/event_source/devices
cp -r "$1"/* /sys/bus/event_source/devices/
shift
"$@"
NS
	timeout 120 unshare -m sh "$T/ns.sh" "$F" "$tool" test --json "$T/fake.json" \
		budget objects >/dev/null 2>&1
	bad=
	for c in budget objects; do
		read -r st msg < <(status "$c" "$T/fake.json")
		[ "$st" = skip ] && [[ $msg == *"cpu/mem-loads,ldlat=3/P"* ]] ||
			bad="$bad $c: $st $msg;"
	done
	if [ -z "$bad" ]; then ok "a fake PEBS tree: budget and objects take the precise load event (ldlat 3) and skip saying why it cannot run here"
	else nok "a fake PEBS tree: budget and objects take the precise load event (ldlat 3) and skip saying why it cannot run here" "$bad"; fi
fi

# hidden features: every hardware check skips, naming the variable
PEBS_TEST_NO_PMU=1 PEBS_TEST_NO_MAP=1 "$tool" test --json "$T/hid.json" \
	$HW >/dev/null 2>&1
bad=
for c in $HW; do
	read -r st msg < <(status "$c" "$T/hid.json")
	[ "$st" = skip ] && [[ $msg == *PEBS_TEST_NO_* ]] || bad="$bad $c: $st $msg;"
done
if [ -z "$bad" ]; then ok "PEBS_TEST_NO_PMU/MAP=1: every hardware check skips, naming the variable"
else nok "PEBS_TEST_NO_PMU/MAP=1: every hardware check skips, naming the variable" "$bad"; fi

if need rdtscp; then
	read -r st msg < <(status rdtscp "$T/all.json")
	check "rdtscp runs where the CPU has it ($st)" [ "$st" != skip ]
else
	skip "rdtscp: $why"
fi
PEBS_TEST_NO_RDTSCP=1 "$tool" test -v --json "$T/nor.json" machine rdtscp \
	>"$T/nor" 2>&1
read -r st msg < <(status rdtscp "$T/nor.json")
check "PEBS_TEST_NO_RDTSCP=1: the rdtscp check skips ($st $msg)" \
	eval '[ "$st" = skip ] && [ "$msg" = "rdtscp hidden by PEBS_TEST_NO_RDTSCP=1" ]'
check "PEBS_TEST_NO_RDTSCP=1: the machine says rdtscp hidden or no" \
	grep -Eq '^ +rdtscp=(hidden|no)' "$T/nor"

# the machine's description: the keys bug reports rely on
python3 - "$T/all.json" >"$T/keys" 2>&1 <<'EOF2'
import json, sys
d = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "machine"][0]["details"]
want = ["cpu.vendor", "cpu.family", "cpu.model", "cpu.name", "kernel",
        "perf_event_paranoid", "kptr_restrict", "core_pmu", "ibs", "rdpmc",
        "rdtscp", "numa_nodes", "pebs_map", "kernel_headers", "hypervisor"]
missing = [k for k in want if k not in d]
print("missing:", missing) if missing else None
sys.exit(1 if missing else 0)
EOF2
ok_rc $? "the machine check describes CPU, kernel, paranoid, PMUs, rdpmc, rdtscp, NUMA, module, VM"
check "the kernel in the description is uname's" \
	grep -q "\"kernel\": \"Linux $(uname -r) " "$T/all.json"

# usage: --list, one check by name and by number, exit statuses
"$tool" test --list >"$T/list"
check "--list names 18 checks, each software or hardware" \
	eval '[ $(grep -Ec "^ *[0-9]+  [a-z-]+ +(software|hardware) " "$T/list") = 18 ]'
"$tool" test 2 tid >"$T/two" 2>&1
rc=$?
check "a number and a name run those two checks ($rc)" \
	eval 'grep -q "^ 2: .*: " "$T/two" && grep -q "^ 3: .*: " "$T/two" && [ $(grep -c "^ *[0-9]*: " "$T/two") = 2 ]'
"$tool" test nosuch >"$T/out" 2>"$T/err"
rc=$?
check "an unknown check: exit 2 and says how to list them ($(cat "$T/err"))" \
	eval '[ $rc = 2 ] && grep -q "no check .nosuch.*--list" "$T/err"'
"$tool" test --json "$T/nodir/x.json" machine >"$T/out" 2>"$T/err"
rc=$?
check "an unwritable --json: exit 2 naming the path ($(cat "$T/err"))" \
	eval '[ $rc = 2 ] && grep -q "cannot create $T/nodir/x.json" "$T/err"'
"$tool" test --workload chase-small >"$T/wl" 2>&1
rc=$?
check "--workload chase-small: its buffer, thread and time ($rc)" \
	eval '[ $rc = 0 ] && grep -q "^buffer=0x[0-9a-f]*+16384$" "$T/wl" &&
	      grep -q "^thread.0=[0-9]* 0x" "$T/wl" && grep -q "^seconds=" "$T/wl"'
"$tool" test --workload nosuch >"$T/out" 2>"$T/err"
rc=$?
check "--workload nosuch: exit 2 naming the workloads ($(cat "$T/err"))" \
	eval '[ $rc = 2 ] && grep -q "no workload .nosuch.*true-share" "$T/err"'
"$tool" test --bogus >"$T/out" 2>"$T/err"
check "an unknown option: exit 2" [ $? = 2 ]
