#!/bin/bash
# record-errors.t - bad inputs give one clear line and a nonzero exit;
# --help is complete and exits 0.
. "$PEBS_SRC/tests/cli/record-common.sh"
need_bin "$tool"
echo 1..19

# expect_err DESCRIPTION REGEX ARGS...: nonzero exit, one line, matching
expect_err() {
	local d=$1 re=$2; shift 2
	"$tool" record "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	sed 's/^/# /' "$T/err"
	[ "$rc" != 0 ]
	ok_rc $? "$d: nonzero exit ($rc)"
	[ "$(wc -l <"$T/err")" = 1 ] && grep -Eq "^pebs-shim record: $re" "$T/err"
	ok_rc $? "$d: one line saying so"
}

cd "$T" || exit 1
expect_err "unknown event" ".*nosuchevent" -e nosuchevent -- true
expect_err "bad period" "bad period 'abc'" -c abc -- true
expect_err "zero period" "bad period '0'" -c 0 -- true
pid_max=$(cat /proc/sys/kernel/pid_max)
expect_err "pid that does not exist" "no process or thread $((pid_max + 1))" \
	-p $((pid_max + 1))
expect_err "CPU list out of range" "CPU [0-9]+ is not online" -C 0-4096
expect_err "unwritable output" "cannot create /nonexistent/x.data" \
	-o /nonexistent/x.data -- true
expect_err "command that cannot be executed" \
	"cannot execute '/nonexistent/cmd': No such file or directory" \
	-o "$T/e.data" -- /nonexistent/cmd
[ ! -e "$T/e.data" ]
ok_rc $? "no output file left behind by the failed exec"
if [ -e /dev/pebs_map ]; then
	skip "/dev/pebs_map exists here"
	skip "/dev/pebs_map exists here"
else
	expect_err "--attr=map without the module" \
		"/dev/pebs_map not found: load the module \(insmod kmod/pebs_map.ko" \
		--attr=map -a -o "$T/m.data" -- true
fi

"$tool" record --help >"$T/help" 2>&1
ok_rc $? "--help exits 0"
miss=
for o in --event --count --freq --mmap-pages --output --format --duration \
	--attr --verbose --all-cpus --cpu --pid --tid --help --data \
	--call-graph --timestamp --sample-cpu --switch-events --no-inherit \
	--quiet; do
	grep -q -- "$o" "$T/help" || miss="$miss $o"
done
[ -z "$miss" ]
ok_rc $? "--help documents every option${miss:+ (missing:$miss)}"
