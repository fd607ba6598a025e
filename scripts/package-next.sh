#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# package-next.sh VERSION OUTDIR -- the upgrade the package checks install
# over this build (t/package/cycle.t, make package-piuparts): the packaged
# tree of VERSION (build-pkg/mod-tack-VERSION, from make package) copied
# to OUTDIR, its tool version raised to TOOL+next1 (0.1.1~deb12u1 becomes
# 0.1.1+next1~deb12u1: the same release, sorting above), a changelog entry
# of its own, and dpkg-buildpackage -us -uc -b there without the unit
# tests (the build under test ran them).  Prints the new version.
set -eu
say() { echo "package-next: $*" >&2; }
v1=${1:?usage: package-next.sh VERSION OUTDIR}
out=${2:?usage: package-next.sh VERSION OUTDIR}
src1=build-pkg/mod-tack-$v1
[ -d "$src1/debian" ] || { say "no $src1: run make package"; exit 1; }
tv1=${v1%%~*}
release=${v1#"$tv1"}
tv2=$tv1+next1
v2=$tv2$release
dpkg --compare-versions "$v2" gt "$v1" || { say "$v2 does not sort above $v1"; exit 1; }
src=$out/mod-tack-$v2
rm -rf "$out"
mkdir -p "$out"
cp -a "$src1" "$src"
sed -i "s/^\(#define TACK_CLI_VERSION \"\)$tv1\"/\1$tv2\"/" "$src/tool/tack_cli.h"
grep -q "^#define TACK_CLI_VERSION \"$tv2\"" "$src/tool/tack_cli.h" ||
    { say "no TACK_CLI_VERSION \"$tv1\" in $src/tool/tack_cli.h"; exit 1; }
sed -i "s/\"mod_tack $tv1\"/\"mod_tack $tv2\"/" "$src/docs/tack.1"
suite=$(sed -n '1s/^[^)]*) \([^;]*\);.*/\1/p' "$src/debian/changelog")
trailer=$(sed -n '/^ -- /{p;q;}' "$src/debian/changelog")
{ printf 'mod-tack (%s) %s; urgency=medium\n\n' "$v2" "$suite"
  printf '  * The upgrade the package checks install over %s.\n\n' "$v1"
  printf '%s\n\n' "${trailer%>  *}>  $(LC_ALL=C date -u -R)"
  cat "$src/debian/changelog"
} >"$src/debian/changelog.new"
mv "$src/debian/changelog.new" "$src/debian/changelog"
if ! (cd "$src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
    >"$out/build.log" 2>&1; then
    tail -n 40 "$out/build.log" >&2
    say "dpkg-buildpackage of $v2 failed (log: $out/build.log)"
    exit 1
fi
echo "$v2"
