#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# package-autopkgtest.sh DIST VERSION -- make package-autopkgtest: Debian's
# autopkgtest runs debian/tests against the built packages, with the null
# virtualisation server (this machine: the packages are installed here for
# the test), then purges them again.  Any test that fails or is skipped
# fails the run.  As root, with neither package installed before.
set -eu
dist=${1:?usage: package-autopkgtest.sh DIST VERSION}
version=${2:?usage: package-autopkgtest.sh DIST VERSION}
say() { echo "make package-autopkgtest: $*" >&2; }

[ "$(id -u)" -eq 0 ] || { say "must run as root (it installs the packages)"; exit 1; }
for p in libapache2-mod-tack tacktool; do
    st=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$p" 2>/dev/null || true)
    case $st in
    ii*|i*|rc*)
        say "$p is on this machine already ($st): the test installs the" \
            "built packages; apt purge $p first"
        exit 1 ;;
    esac
done
# The test installs apache2 from the archive, built against the archive's
# newest libssl3, and checks its error log: an older libssl3 left on the
# machine makes mod_ssl warn (AH01882) at every start.
sh scripts/deps.sh openssl || { say "could not bring OpenSSL up to the archive's"; exit 1; }
src=build-pkg/mod-tack-$version
[ -d "$src/debian/tests" ] || { say "no $src/debian/tests: run make package"; exit 1; }
out=build-pkg/autopkgtest-out
rm -rf "$out"
rc=0
autopkgtest --output-dir "$out" \
    "$dist"/libapache2-mod-tack_"$version"_*.deb \
    "$dist"/tacktool_"$version"_*.deb "$src" -- null || rc=$?
# The null server leaves what it installed: take the two packages away.
dpkg --purge tacktool libapache2-mod-tack >/dev/null 2>&1 ||
    say "warning: dpkg --purge tacktool libapache2-mod-tack failed"
if [ "$rc" -ne 0 ]; then
    # Each test's own reason (what it wrote on stderr), then the verdict.
    for f in "$out"/*-stderr; do
        [ -s "$f" ] || continue
        say "$(basename "$f" -stderr) said:"
        cat "$f" >&2
    done
    say "autopkgtest exited $rc (2: a test was skipped, 4: one failed," \
        "8: none ran); its log is in $out"
    exit 1
fi
say "passed; summary:"
cat "$out/summary" >&2
