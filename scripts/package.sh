#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# package.sh PKGDIR DIST -- make package: build libapache2-mod-tack and
# tacktool with dpkg-buildpackage -us -uc -b from a copy of the tree's
# sources (tracked and new files, as git lists them: no build products) in
# PKGDIR, and put the .debs, .changes and .buildinfo into DIST.  As root,
# missing build dependencies are installed first (deps.sh package).
#
# Each Debian release gets a build of its own: the copy's debian/changelog
# names this release and a version of its own, the committed one (the
# version the tool reports) followed by ~debNu1: 0.1.1~deb12u1 on Debian 12
# (bookworm), 0.1.1~deb13u1 on Debian 13 (trixie), which sorts above it, so
# an upgrade of the system upgrades the package too (and both below the
# committed 0.1.1).  Elsewhere (sid, or not Debian) the committed version,
# distribution unstable, and a note says so.
#
# package.sh --version prints that version (the Makefile's PKG_VERSION);
# TACK_OS_RELEASE=FILE reads FILE instead of /etc/os-release.
set -eu
say() { echo "make package: $*" >&2; }

base=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
case $base in
'') say "no version in debian/changelog"; exit 1 ;;
*[-~]*) say "debian/changelog: $base: the committed version is the" \
    "tool's, with no - (native) and no ~ (added per release)"; exit 1 ;;
esac
# This release, as /etc/os-release (a shell file by its definition) says.
osr=${TACK_OS_RELEASE:-/etc/os-release}
[ -r "$osr" ] || { say "cannot read $osr"; exit 1; }
os_id=$(. "$osr" && echo "${ID:-}")
os_version=$(. "$osr" && echo "${VERSION_ID:-}")
os_codename=$(. "$osr" && echo "${VERSION_CODENAME:-}")
case $os_id:$os_version:$os_codename in
debian:[1-9]:?* | debian:[1-9][0-9]:?*)
    version=$base~deb${os_version}u1 suite=$os_codename fallback= ;;
*)
    version=$base suite=unstable
    fallback="$osr says ID=$os_id VERSION_ID=$os_version (not a numbered"
    fallback="$fallback Debian release): the committed version, $version,"
    fallback="$fallback distribution unstable; the Debian 12 and 13 builds"
    fallback="$fallback are $base~deb12u1 and $base~deb13u1" ;;
esac
if [ "${1:-}" = --version ]; then
    echo "$version"
    exit 0
fi
pkgdir=${1:?usage: package.sh PKGDIR DIST}
dist=${2:?usage: package.sh PKGDIR DIST}
[ -z "$fallback" ] || say "note: $fallback"

if ! git rev-parse --show-toplevel >/dev/null 2>&1; then
    say "needs a git checkout (it packages the files git lists)"
    exit 1
fi

# Build dependencies (debian/control's Build-Depends), when one is
# missing: installed by deps.sh (without Recommends, naming what it
# installed, switching off again what their install scripts switched on,
# as make demo and make test do); named, with the command, when not root.
# make package-test installs its checkers the same way (deps.sh
# package-test).
if ! command -v dpkg-checkbuilddeps >/dev/null 2>&1 ||
    ! dpkg-checkbuilddeps >/dev/null 2>&1; then
    say "installing the build dependencies (debian/control's Build-Depends)"
    TACK_DEPS_FOR=package sh "$(dirname "$0")/deps.sh" package || exit 1
fi

src=$pkgdir/mod-tack-$version
rm -rf --one-file-system "$pkgdir"
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard |
    tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null |
    tar -C "$src" -xf -
# This release's version and name: an entry of its own on top of the
# copy's changelog (the committed version keeps its entry, which its NEWS
# entry names; lintian wants each version an entry: a rewritten first line
# left 0.1.1 missing between 0.1.0 and 0.1.1~deb12u1), signed as the
# committed entry and dated one second after it (never a build's clock:
# two builds are the same).  Elsewhere the committed entry is the build's,
# its distribution set.
if [ "$version" != "$base" ]; then
    trailer=$(sed -n '/^ -- /{p;q;}' "$src/debian/changelog")
    when=${trailer##*>  }
    when=$(LC_ALL=C date -u -R -d "@$(($(date -u -d "$when" +%s) + 1))") || {
        say "debian/changelog: no date in its first entry's trailer"
        exit 1
    }
    trailer="${trailer%>  *}>  $when"
    { printf 'mod-tack (%s) %s; urgency=medium\n\n' "$version" "$suite"
      printf '  * Built for %s from %s.\n\n%s\n\n' "$suite" "$base" "$trailer"
      cat "$src/debian/changelog"
    } >"$src/debian/changelog.new"
    mv "$src/debian/changelog.new" "$src/debian/changelog"
else
    sed -i "1s/^\([^ ]*\) ($base) [^;]*;/\1 ($version) $suite;/" \
        "$src/debian/changelog"
fi
case $(sed -n 1p "$src/debian/changelog") in
"mod-tack ($version) $suite; urgency="*) ;;
*)
    say "$src/debian/changelog: its first line is not" \
        "\"mod-tack ($version) $suite; urgency=...\":" \
        "$(sed -n 1p "$src/debian/changelog")"
    exit 1 ;;
esac
# Standards-Version: the Policy the release's build was checked against,
# its lintian's current one: debian/control's 4.6.2 for Debian 12; 4.7.2
# for Debian 13, whose checklist the packages follow there (systemd units
# under /usr/lib, nothing under /bin, /lib or /sbin, no program name
# another package puts on PATH; lintian --pedantic is clean with it).
case $os_id:$os_version in
debian:13) policy=4.7.2 ;;
*) policy= ;;
esac
if [ -n "$policy" ]; then
    sed -i "s/^Standards-Version: .*/Standards-Version: $policy/" \
        "$src/debian/control"
    grep -q "^Standards-Version: $policy\$" "$src/debian/control" || {
        say "$src/debian/control: no Standards-Version line to set"
        exit 1
    }
fi
say "version $version for $suite (debian/changelog's $base)"
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
