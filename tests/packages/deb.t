#!/bin/bash
# deb.t - what `make deb` built (run by make check-packages after it):
# the four packages, lintian without errors, and each package's files:
# the shared library alone in libpebsshim0 (with its shlibs), the header,
# static library, .so link, pkg-config file (multiarch libdir) and man3
# pages in libpebsshim-dev, the tool and its man1 pages in pebs-shim, and
# the DKMS tree, udev rule, modprobe options, man4 page and a postinst
# that makes the pebs group and runs dkms in pebs-map-dkms.
# Environment: DEB_DIR, VERSION, PEBS_SRC.
set -u
S=${PEBS_SRC:?} DEB_DIR=${DEB_DIR:?} VERSION=${VERSION:?}
T=$(mktemp -d /tmp/deb-t.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$S/tests/tap.sh"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg --print-architecture)

echo "1..6"

deb() { echo "$DEB_DIR/${1}_${VERSION}_${2:-$arch}.deb"; }
miss=
for p in libpebsshim0 libpebsshim-dev pebs-shim; do
	[ -f "$(deb $p)" ] || miss="$miss $p"
done
[ -f "$(deb pebs-map-dkms all)" ] || miss="$miss pebs-map-dkms"
if [ -n "$miss" ]; then
	nok "the four packages are in $DEB_DIR (missing:$miss): make deb"
	skip_n 5 "no packages"
	exit 0
fi
ok "libpebsshim0, libpebsshim-dev, pebs-shim and pebs-map-dkms $VERSION are built"

lintian --fail-on error --suppress-tags bad-distribution-in-changes-file \
	"$DEB_DIR"/*.changes >"$T/lintian" 2>&1
rc=$?
grep -v 'root privileges' "$T/lintian" >"$T/lint"
if [ $rc = 0 ] && ! grep -q '^E:' "$T/lint"; then
	ok "lintian: no errors ($(grep -c '^W:' "$T/lint") warnings)"
else
	nok "lintian: no errors"
	diag "$T/lint"
fi

files() {	# the files and links of a package, one path a line
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' |
		sed 's|^\./|/|' | grep -v '^/usr/share/doc/' | sort
}
files "$(deb libpebsshim0)" >"$T/lib"
printf '%s\n' "/usr/lib/$ma/libpebsshim.so.0" \
	"/usr/lib/$ma/libpebsshim.so.$VERSION" | sort >"$T/want"
dpkg-deb -I "$(deb libpebsshim0)" shlibs >"$T/shlibs" 2>&1
if cmp -s "$T/want" "$T/lib" &&
   grep -qx "libpebsshim 0 libpebsshim0 (>= $VERSION)" "$T/shlibs"; then
	ok "libpebsshim0: libpebsshim.so.0 -> .so.$VERSION alone, shlibs libpebsshim 0"
else
	nok "libpebsshim0: libpebsshim.so.0 -> .so.$VERSION alone, shlibs libpebsshim 0"
	diag "$T/lib" "$T/shlibs"
fi

files "$(deb libpebsshim-dev)" >"$T/dev"
mkdir "$T/x" && dpkg-deb -x "$(deb libpebsshim-dev)" "$T/x"
pc=$T/x/usr/lib/$ma/pkgconfig/libpebsshim.pc
n3=$(grep -c '^/usr/share/man/man3/pebs_.*\.3\.gz$' "$T/dev")
nfn=$(python3 "$S/tests/pebs_api.py" "$T/x/usr/include/pebsshim.h" | wc -l)
if grep -qx "/usr/lib/$ma/libpebsshim.a" "$T/dev" &&
   [ "$(readlink "$T/x/usr/lib/$ma/libpebsshim.so")" = libpebsshim.so.0 ] &&
   grep -qx /usr/include/pebs_map.h "$T/dev" &&
   grep -qx "libdir=/usr/lib/$ma" "$pc" && grep -qx "Version: $VERSION" "$pc" &&
   grep -qx /usr/share/man/man3/libpebsshim.3.gz "$T/dev" &&
   [ "$n3" -ge "$nfn" ]; then
	ok "libpebsshim-dev: header, .a, .so link, pkg-config file, $n3 man3 pages for $nfn functions"
else
	nok "libpebsshim-dev: header, .a, .so link, pkg-config file, $n3 man3 pages for $nfn functions"
	diag "$T/dev" "$pc"
fi

files "$(deb pebs-shim)" >"$T/tool"
if grep -qx /usr/bin/pebs-shim "$T/tool" &&
   for c in "" -record -report -observe -map; do
	grep -qx "/usr/share/man/man1/pebs-shim$c.1.gz" "$T/tool" || exit 1
   done; then
	ok "pebs-shim: the tool, pebs-shim(1) and pebs-shim-{record,report,observe,map}(1)"
else
	nok "pebs-shim: the tool, pebs-shim(1) and pebs-shim-{record,report,observe,map}(1)"
	diag "$T/tool"
fi

d=$(deb pebs-map-dkms all)
files "$d" >"$T/dkms"
src=/usr/src/pebs-map-$VERSION
dpkg-deb -I "$d" postinst >"$T/postinst" 2>&1
dpkg-deb -f "$d" Depends >"$T/depends"
if grep -qx "$src/dkms.conf" "$T/dkms" &&
   grep -qx "$src/kmod/pebs_map_core.c" "$T/dkms" &&
   grep -qx "$src/include/pebs_map.h" "$T/dkms" &&
   grep -qx /usr/lib/udev/rules.d/99-pebs-map.rules "$T/dkms" &&
   grep -qx /etc/modprobe.d/pebs_map.conf "$T/dkms" &&
   grep -qx /usr/share/man/man4/pebs_map.4.gz "$T/dkms" &&
   grep -q 'addgroup --system --quiet pebs' "$T/postinst" &&
   grep -q 'dkms' "$T/postinst" && grep -qw dkms "$T/depends"; then
	ok "pebs-map-dkms: $src, the udev rule, modprobe options, pebs_map(4); postinst adds the group and runs dkms"
else
	nok "pebs-map-dkms: $src, the udev rule, modprobe options, pebs_map(4); postinst adds the group and runs dkms"
	diag "$T/dkms" "$T/depends"
fi
