# guest-lib.sh - sourced by the guest scripts (scripts/vm-run.sh puts it
# in /pebs): set name=SCRIPT first.
# fail REASON...: the script's FAIL line, the module unloaded, exit 1
fail() {
	echo "PEBS-VM FAIL $name $*"
	grep -q '^pebs_map ' /proc/modules && pebs-map-unload
	exit 1
}
# param NAME DEFAULT: NAME=value from the kernel command line
param() {
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=\([0-9]*\)\$/\1/p" | tail -n 1)
	echo "${v:-$2}"
}
