#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# package-piuparts.sh DIST VERSION -- make package-piuparts: Debian's
# piuparts on both packages together, in a chroot of this release it makes
# and removes: install and purge (nothing left behind, nothing of another
# package's changed), then the upgrade from this build to the next
# (scripts/package-next.sh): this build installed with apt from a local
# repository, then the next one's files over it, then purge.  The chroot
# is a copy of this release's cached debootstrap base, the one make
# test-release copies (scripts/chroot-base.sh).  As root; any failure
# fails the run, with piuparts's log.
set -eu
dist=${1:?usage: package-piuparts.sh DIST VERSION}
v1=${2:?usage: package-piuparts.sh DIST VERSION}
say() { echo "make package-piuparts: $*" >&2; }
[ "$(id -u)" -eq 0 ] || { say "must run as root (piuparts makes a chroot)"; exit 1; }
command -v piuparts >/dev/null || { say "no piuparts: make package-test-deps"; exit 1; }
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || { say "/etc/os-release names no VERSION_CODENAME"; exit 1; }
for p in libapache2-mod-tack tacktool; do
    ls "$dist"/"$p"_"$v1"_*.deb >/dev/null 2>&1 ||
        { say "no $dist/${p}_${v1}_*.deb: run make package"; exit 1; }
done

work=build-pkg/piuparts
rm -rf "$work"
mkdir -p "$work/repo"
# The next build, the upgrade's target.
v2=$(sh scripts/package-next.sh "$v1" "$work/next") || exit 1
# This build, as apt sees an archive's: a flat repository.
cp "$dist"/libapache2-mod-tack_"$v1"_*.deb "$dist"/tacktool_"$v1"_*.deb "$work/repo/"
(cd "$work/repo" && dpkg-scanpackages . /dev/null >Packages 2>/dev/null)
repo=$(cd "$work/repo" && pwd)

# A copy of the release's base (scripts/chroot-base.sh, made once) with
# its sources (the release, its updates and security): the first line's
# archive is piuparts's mirror, the others extra repositories beside the
# local one.
base=$(sh scripts/chroot-base.sh "$codename") || exit 1
set -- --existing-chroot="$base" \
    -m "$(awk '$1 == "deb" { print $2; exit }' "$base/etc/apt/sources.list")"
while read -r line; do
    [ -z "$line" ] || set -- "$@" --extra-repo="$line"
done <<LINES
$(awk '$1 == "deb"' "$base/etc/apt/sources.list" | sed 1d)
LINES
say "$codename: a copy of $base"
log=$work/piuparts.log
t0=$(date +%s)
rc=0
piuparts -d "$codename" "$@" --bindmount="$repo" \
    --extra-repo="deb [trusted=yes] file://$repo ./" \
    -l "$log" "$work"/next/libapache2-mod-tack_"$v2"_*.deb \
    "$work"/next/tacktool_"$v2"_*.deb >/dev/null 2>&1 || rc=$?
secs=$(($(date +%s) - t0))
if [ $rc -ne 0 ] || ! grep -q 'PASS: All tests' "$log"; then
    grep -n 'FAIL\|ERROR' "$log" | tail -n 20 >&2 || true
    say "FAILED after $secs s (exit $rc); the whole log: $log"
    exit 1
fi
# Both tests ran: the upgrade test runs only when apt knows this build.
for t in 'PASS: Installation and purging test' \
    'PASS: Installation, upgrade and purging tests'; do
    grep -q "$t" "$log" || { say "the log has no '$t': a test did not run ($log)"; exit 1; }
done
say "passed in $secs s: install and purge of $v2, upgrade from $v1 to $v2 (log: $log)"
