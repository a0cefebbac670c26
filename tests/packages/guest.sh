#!/bin/sh
# guest.sh - run inside the fresh Debian root of packages.t, after the
# four packages were installed there with apt: TAP lines for what a user
# of the packages does. $1: the release (Makefile VERSION). POSIX sh.
v=$1
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
T=/tmp/pkg-guest
mkdir -p $T

for p in libpebsshim0 libpebsshim-dev pebs-shim pebs-map-dkms; do
	check "$p is installed" sh -c \
		"dpkg-query -W -f='\${Status} \${Version}' $p | grep -qx 'install ok installed $v'"
done
check "pebs-shim --version: pebs-shim $v" \
	sh -c "[ \"\$(pebs-shim --version)\" = 'pebs-shim $v' ]"

# an example, built with pkg-config alone against the installed library
flags=$(echo $(pkg-config --cflags --libs libpebsshim))
if cc -std=gnu11 -Wall -Wextra -Werror -o $T/map-watch /tmp/examples/map-watch.c \
	$flags >$T/cc 2>&1 &&
   cc -std=gnu11 -Wall -Wextra -Werror -o $T/sample-thread \
	/tmp/examples/sample-thread.c $flags >>$T/cc 2>&1 &&
   cc -std=gnu11 -Wall -Wextra -Werror -o $T/attrib-threads \
	/tmp/examples/attrib-threads.c $flags >>$T/cc 2>&1 &&
   cc -std=gnu11 -Wall -Wextra -Werror -o $T/thread-samples \
	/tmp/examples/thread-samples.c $flags >>$T/cc 2>&1 &&
   cc -std=gnu11 -Wall -Wextra -Werror -o $T/c2c-lines \
	/tmp/examples/c2c-lines.c $flags >>$T/cc 2>&1; then
	ok "examples build with pkg-config --cflags --libs libpebsshim ($flags)"
else
	nok "examples build with pkg-config --cflags --libs libpebsshim ($flags)"
	sed 's/^/# /' $T/cc | head -10
fi
$T/map-watch $T/none >$T/mw 2>&1
rc=$?
ldd $T/map-watch >$T/ldd 2>&1
if [ $rc = 1 ] && grep -q "^map-watch: $T/none not found" $T/mw &&
   grep -qE 'libpebsshim.so.0 => /(usr/)?lib/' $T/ldd; then
	ok "map-watch runs on the installed libpebsshim.so.0 (missing table: exit 1, one line)"
else
	nok "map-watch runs on the installed libpebsshim.so.0 (missing table: exit 1, one line)"
	sed 's/^/# /' $T/mw $T/ldd | head -10
fi
$T/sample-thread page-faults:period=1 /bin/true >$T/st 2>&1
check "sample-thread samples page faults ($(tail -1 $T/st))" \
	grep -qE '^[0-9]+ samples' $T/st

# a short recording and its report
pebs-shim record -q -e cpu-clock -c 100000 -o $T/x.data -- \
	sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done' >$T/rec 2>&1
rc=$?
check "pebs-shim record -e cpu-clock -- a shell loop (exit $rc)" \
	sh -c "[ $rc = 0 ] && [ -s $T/x.data ]"
pebs-shim report -i $T/x.data >$T/rep 2>&1
rc=$?
check "pebs-shim report names the loop's shell (exit $rc)" \
	sh -c "[ $rc = 0 ] && grep -qw sh $T/rep"
if [ $rc != 0 ] || ! grep -qw sh $T/rep; then
	sed 's/^/# /' $T/rec $T/rep | head -10
fi

# record --objects finds the packaged interposer and tracks a command's
# allocations (every one of them with =all)
pebs-shim record --objects=all -e cpu-clock -c 100000 -o $T/o.data -- \
	sh -c 'i=0; while [ $i -lt 1000 ]; do i=$((i + 1)); done' >$T/orec 2>&1
rc=$?
check "pebs-shim record --objects=all with the packaged interposer (exit $rc)" \
	sh -c "[ $rc = 0 ] && grep -qE 'objects: [1-9][0-9]* allocations' $T/orec"
[ $rc = 0 ] || sed 's/^/# /' $T/orec | head -5

# the pages, the module's sources, the group and the rule
check "man pages: pebs-shim-record(1), pebs_report__new(3) link, pebs_map(4)" \
	test -f /usr/share/man/man1/pebs-shim-record.1.gz -a \
	-e /usr/share/man/man3/pebs_report__new.3.gz -a \
	-f /usr/share/man/man4/pebs_map.4.gz
check "pebs-map-dkms: the source tree, dkms knows pebs-map/$v" \
	sh -c "[ -f /usr/src/pebs-map-$v/dkms.conf ] &&
	       dkms status pebs-map/$v | grep -q 'pebs-map/$v'"
# the kernel whose headers were installed first: the package's postinst
# built and installed the module for it
kver=$(ls /lib/modules | sort -V | tail -n 1)
dkms status pebs-map/$v -k "$kver" >$T/dkms 2>&1
modprobe -n -v -S "$kver" pebs_map >$T/modprobe 2>&1
modinfo -k "$kver" -F parm pebs_map >$T/parm 2>&1
if grep -q "pebs-map/$v, $kver, .*: installed" $T/dkms &&
   grep -q "^insmod /lib/modules/$kver/updates/dkms/pebs_map.ko" $T/modprobe &&
   grep -q '^unprivileged:' $T/parm; then
	ok "dkms built and installed pebs_map.ko for $kver at install; modprobe -n finds it"
else
	nok "dkms built and installed pebs_map.ko for $kver at install; modprobe -n finds it"
	sed 's/^/# /' $T/dkms $T/modprobe $T/parm | head -10
fi
check "pebs-map-dkms: the pebs group, the udev rule, unprivileged=1" \
	sh -c "getent group pebs >/dev/null &&
	       grep -q 'GROUP=\"pebs\", MODE=\"0440\"' /usr/lib/udev/rules.d/99-pebs-map.rules &&
	       grep -qx 'options pebs_map unprivileged=1' /etc/modprobe.d/pebs_map.conf"
echo "1..$n"
