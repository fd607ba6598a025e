#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# package.sh PKGDIR DIST -- make package: build libapache2-mod-tack and
# tacktool with dpkg-buildpackage -us -uc -b from a copy of the tree's
# sources (tracked and new files, as git lists them: no build products) in
# PKGDIR, and put the .debs, .changes and .buildinfo into DIST.  As root,
# missing build dependencies are installed first (apt-get build-dep).
set -eu
pkgdir=${1:?usage: package.sh PKGDIR DIST}
dist=${2:?usage: package.sh PKGDIR DIST}
say() { echo "make package: $*" >&2; }

version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
[ -n "$version" ] || { say "no version in debian/changelog"; exit 1; }
if ! git rev-parse --show-toplevel >/dev/null 2>&1; then
    say "needs a git checkout (it packages the files git lists)"
    exit 1
fi

# Build dependencies (debian/control), and the checkers make package-test
# runs (lintian, autopkgtest): installed here as root, named otherwise.
if ! command -v dpkg-checkbuilddeps >/dev/null 2>&1 ||
    ! dpkg-checkbuilddeps >/dev/null 2>&1 ||
    ! command -v lintian >/dev/null 2>&1 ||
    ! command -v autopkgtest >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ]; then
        say "missing build dependencies; as root: apt-get update &&" \
            "apt-get install -y dpkg-dev lintian autopkgtest &&" \
            "apt-get build-dep -y ./"
        exit 1
    fi
    say "installing the build dependencies (apt-get build-dep ./)," \
        "lintian and autopkgtest"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q dpkg-dev lintian autopkgtest >/dev/null
    apt-get build-dep -y -q ./ >/dev/null
fi

src=$pkgdir/mod-tack-$version
rm -rf "$pkgdir"
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard |
    tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null |
    tar -C "$src" -xf -
dirty=$(git status --porcelain --untracked-files=no | wc -l)
[ "$dirty" -eq 0 ] ||
    say "note: $dirty changed file(s) not committed are in this build"

log=$pkgdir/build.log
# The source package too (before the build touches the tree), for lintian.
if ! (cd "$pkgdir" && dpkg-source -b "mod-tack-$version") >"$log" 2>&1; then
    cat "$log" >&2
    say "dpkg-source -b failed"
    exit 1
fi
say "dpkg-buildpackage -us -uc -b in $src (log: $log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >>"$log" 2>&1; then
    tail -40 "$log" >&2
    say "the build failed; the whole log is $log"
    exit 1
fi
mkdir -p "$dist"
rm -f "$dist"/*.deb "$dist"/*.changes "$dist"/*.buildinfo "$dist"/*.dsc \
    "$dist"/*.tar.xz
for f in "$pkgdir"/*_"$version"_*.deb "$pkgdir"/mod-tack_"$version"_*.changes \
         "$pkgdir"/mod-tack_"$version"_*.buildinfo \
         "$pkgdir"/mod-tack_"$version".dsc "$pkgdir"/mod-tack_"$version".tar.xz; do
    [ -e "$f" ] || { say "dpkg-buildpackage made no $f"; exit 1; }
    cp "$f" "$dist"/
done
say "built:"
ls -l "$dist" >&2
