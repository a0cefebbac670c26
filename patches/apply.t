#!/bin/bash
# apply.t - the kernel patch applies cleanly to Debian's linux-source-6.1,
# it is a proper git-format patch, __schedule() makes the static call
# between the tracepoint and context_switch() and nothing writable is
# exported, its declarations match the module's, and the module builds
# with HOOK=direct against the stock headers with no compiler warning
# (modpost may only miss pebs_sched_switch_hook_set and _clear, which the
# patched kernel exports). patches/vm-direct.sh builds and boots it.
set -u
src=${PEBS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
patch_file=$src/patches/0001-sched-direct-pebs-map-hook.patch
tarball=${LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
kdir=${KDIR:-$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)}

if [ ! -f "$tarball" ]; then
	echo "1..0 # SKIP $tarball missing: apt-get install linux-source-6.1"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap.sh"

echo "1..7"

# 1: git format-patch shape
if head -n 1 "$patch_file" | grep -Eq '^From [0-9a-f]{40} ' &&
   grep -q '^Subject: \[PATCH\] sched/core: ' "$patch_file" &&
   grep -q '^Signed-off-by: pebs-shim developers' "$patch_file" &&
   grep -q '^---$' "$patch_file"; then
	ok "git format-patch with subject and Signed-off-by"
else
	nok "git format-patch with subject and Signed-off-by"
fi

# 2: applies without fuzz or offset (only the files it touches are
# extracted: tar still decompresses the whole archive, ~10 s)
files=$(sed -n 's|^+++ b/||p' "$patch_file")
top=$(tar -tJf "$tarball" 2>/dev/null | head -n 1 | cut -d/ -f1)
# shellcheck disable=SC2046
tar -xJf "$tarball" -C "$tmp" $(printf "$top/%s " $files) 2>"$tmp/tar.err"
tree=$tmp/$top
if (cd "$tree" && patch --dry-run -p1 <"$patch_file") >"$tmp/dry" 2>&1 &&
   ! grep -Eiq 'hunk|fuzz|offset|reject|malformed' "$tmp/dry"; then
	ok "applies to $(basename "$tarball") with no fuzz or offset"
else
	nok "applies to $(basename "$tarball") with no fuzz or offset"
	diag "$tmp/tar.err" "$tmp/dry"
fi

# 3: the call sits between trace_sched_switch() and context_switch()
(cd "$tree" && patch -s -p1 <"$patch_file") >/dev/null 2>&1
order=$(awk '/^static void __sched notrace __schedule\(/ { in_s = 1 }
	in_s && /trace_sched_switch\(/ { print "trace" }
	in_s && /static_call_cond\(pebs_sched_switch\)\(prev, next\);/ { print "hook" }
	in_s && /= context_switch\(/ { print "switch"; exit }' \
	"$tree/kernel/sched/core.c" | tr '\n' ' ')
exports=$(grep -h '^+EXPORT' "$patch_file" | tr '\n' ' ')
if [ "$order" = "trace hook switch " ] &&
   grep -q '^DEFINE_STATIC_CALL_NULL(pebs_sched_switch,' \
	"$tree/kernel/sched/core.c" &&
   [ "$exports" = "+EXPORT_SYMBOL_GPL(pebs_sched_switch_hook_set); +EXPORT_SYMBOL_GPL(pebs_sched_switch_hook_clear); " ]; then
	ok "__schedule: static call after trace_sched_switch, before context_switch; only set/clear exported"
else
	nok "__schedule: static call after trace_sched_switch, before context_switch (got: $order); only set/clear exported (got: $exports)"
fi

# 4: the module's declarations match the patched header's (a conflicting
# redeclaration is a compile error)
{
	echo 'struct task_struct;'
	sed -n '/^int pebs_sched_switch_hook_set(/,/;$/p; /^void pebs_sched_switch_hook_clear(/,/;$/p' \
		"$tree/include/linux/sched.h"
	sed -n '/^int pebs_sched_switch_hook_set(/,/;$/p; /^void pebs_sched_switch_hook_clear(/,/;$/p' \
		"$src/kmod/hook_direct.c"
} >"$tmp/decl.c"
if [ "$(grep -c '^int pebs_sched_switch_hook_set\|^void pebs_sched_switch_hook_clear' "$tmp/decl.c")" = 4 ] &&
   gcc -std=gnu11 -Wall -Wextra -Werror -c -o "$tmp/decl.o" "$tmp/decl.c" \
	2>"$tmp/decl.err"; then
	ok "kmod/hook_direct.c declares the hook exactly as the patch does"
else
	nok "kmod/hook_direct.c declares the hook exactly as the patch does"
	diag "$tmp/decl.c" "$tmp/decl.err"
fi

# 5-7: HOOK=direct builds against the stock headers, W=1, no warnings
if [ -z "$kdir" ] || [ ! -d "$kdir" ]; then
	skip "no kernel headers in /usr/src: apt-get install linux-headers-amd64"
	skip "no kernel headers"
	skip "no kernel headers"
	exit 0
fi
mkdir -p "$tmp/m/kmod"
cp -r "$src/include" "$tmp/m/"
cp "$src"/kmod/*.c "$src"/kmod/*.h "$src/kmod/Kbuild" "$tmp/m/kmod/"
make -C "$kdir" M="$tmp/m/kmod" W=1 HOOK=direct KBUILD_MODPOST_WARN=1 \
	modules >"$tmp/build" 2>&1
rc=$?
if [ $rc = 0 ] && [ -f "$tmp/m/kmod/pebs_map.ko" ]; then
	ok "make HOOK=direct W=1 against $(basename "$kdir")"
else
	nok "make HOOK=direct W=1 against $(basename "$kdir") (exit $rc)"
	diag "$tmp/build"
fi
if grep -q 'hook_direct\.o' "$tmp/build" &&
   ! grep -Eq 'warning:|error:' "$tmp/build"; then
	ok "no compiler warnings (W=1)"
else
	nok "no compiler warnings (W=1)"
	grep -E -A3 'warning:|error:|hook_direct' "$tmp/build" | diag
fi
grep 'WARNING' "$tmp/build" | sort >"$tmp/modpost"
want="WARNING: modpost: \"pebs_sched_switch_hook_clear\" [$tmp/m/kmod/pebs_map.ko] undefined!
WARNING: modpost: \"pebs_sched_switch_hook_set\" [$tmp/m/kmod/pebs_map.ko] undefined!"
if [ "$(cat "$tmp/modpost")" = "$want" ]; then
	ok "modpost: only pebs_sched_switch_hook_set/_clear undefined (the patched kernel exports them)"
else
	nok "modpost: only pebs_sched_switch_hook_set/_clear undefined"
	diag "$tmp/modpost"
fi
