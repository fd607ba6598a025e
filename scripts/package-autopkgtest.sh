#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# package-autopkgtest.sh DIST VERSION -- make package-autopkgtest: Debian's
# autopkgtest runs debian/tests against the built packages in a test bed
# of its own: a copy of this release's cached debootstrap base
# (scripts/chroot-base.sh, the one make test-release copies), with proc,
# sys and dev mounted, brought up to date (-U), through autopkgtest's
# chroot server; the copy is removed at the end, whatever happens.  This
# machine's packages and configuration are not touched.  Any test that
# fails or is skipped fails the run.  As root.
set -eu
dist=${1:?usage: package-autopkgtest.sh DIST VERSION}
version=${2:?usage: package-autopkgtest.sh DIST VERSION}
say() { echo "make package-autopkgtest: $*" >&2; }

[ "$(id -u)" -eq 0 ] || { say "must run as root (chroot, mount)"; exit 1; }
src=build-pkg/mod-tack-$version
[ -d "$src/debian/tests" ] || { say "no $src/debian/tests: run make package"; exit 1; }
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || { say "/etc/os-release names no VERSION_CODENAME"; exit 1; }
base=$(sh scripts/chroot-base.sh "$codename") || exit 1

# Beside the base, outside the source tree (make package removes
# build-pkg/; nothing mounted may ever be under it).
bed=${base%.base}.testbed
out=build-pkg/autopkgtest-out
. scripts/chroot-lib.sh
# cleanup: what runs in the test bed ended, its mounts gone, then the copy
# (never while anything is mounted).
cleanup() {
    chroot_release "$bed" || {
        say "still mounted under $bed: $(chroot_mounted "$bed"); not removing it"
        return 1
    }
    rm -rf --one-file-system "$bed"
}
cleanup
trap 'cleanup' EXIT
trap 'exit 130' INT TERM HUP
cp -a "$base" "$bed"
chroot_mounts "$bed"
say "a test bed: a copy of $base"

rm -rf "$out"
rc=0
t0=$(date +%s)
autopkgtest -U --output-dir "$out" \
    "$dist"/libapache2-mod-tack_"$version"_*.deb \
    "$dist"/tacktool_"$version"_*.deb "$src" -- chroot "$bed" \
    >"build-pkg/autopkgtest.log" 2>&1 || rc=$?
secs=$(($(date +%s) - t0))
if [ "$rc" -ne 0 ]; then
    # Each test's own reason (what it wrote on stderr), then the verdict.
    for f in "$out"/*-stderr; do
        [ -s "$f" ] || continue
        say "$(basename "$f" -stderr) said:"
        cat "$f" >&2
    done
    tail -n 20 build-pkg/autopkgtest.log >&2
    say "autopkgtest exited $rc after $secs s (2: a test was skipped, 4: one" \
        "failed, 8: none ran, 16: the test bed failed); its log is in $out"
    exit 1
fi
say "passed in $secs s; summary:"
cat "$out/summary" >&2
