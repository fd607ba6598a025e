#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# deps.sh -- install the Debian 12 packages mod_tack builds and tests with,
# and keep OpenSSL's packages as new as the apache2 that comes with them.
#
# Debian's apache2 is built against the newest libssl3 of the archive, but
# installing it does not upgrade an older libssl3 already on the machine;
# mod_ssl then warns at every start (AH01882, "compiled against a newer
# library") and every error-log check of the suites fails.  So the OpenSSL
# packages are installed or upgraded in the same apt-get call as the rest,
# whenever they are older than the archive's.  As root it runs apt-get and
# says what it installed or upgraded; otherwise it prints the exact command.
# scripts/preflight.sh catches a mismatch that remains (a held package).
#
# deps.sh openssl: only the OpenSSL packages (make package-autopkgtest, whose
# test installs apache2 from the archive and checks its error log).
set -e
PKGS="build-essential pkg-config check libjansson-dev \
apache2 apache2-dev libapache2-mod-perl2 clang libclang-rt-14-dev man-db \
valgrind gdb pebble certbot softhsm2 opensc libengine-pkcs11-openssl \
prometheus"
# Kept at the archive's version, together.
OPENSSL_PKGS="libssl3 openssl libssl-dev"
case ${1:-} in
"") ;;
openssl) PKGS= ;;
*) echo "usage: deps.sh [openssl]" >&2; exit 2 ;;
esac

installed_version() {
    dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null |
        sed -n 's/^[a-z]* ok installed //p'
}

candidate_version() {
    apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p'
}

# What apt-get must be told: packages missing, and OpenSSL packages missing
# or older than their candidate.
wanted() {
    for p in $PKGS; do
        [ -n "$(installed_version "$p")" ] || printf ' %s' "$p"
    done
    for p in $OPENSSL_PKGS; do
        have=$(installed_version "$p")
        cand=$(candidate_version "$p")
        if [ -z "$have" ]; then
            printf ' %s' "$p"
        elif [ -n "$cand" ] && [ "$cand" != "(none)" ] &&
             dpkg --compare-versions "$have" lt "$cand" &&
             ! apt-mark showhold 2>/dev/null | grep -qx "$p"; then
            printf ' %s' "$p"
        fi
    done
}

# A package the administrator holds is theirs to upgrade: say so, and let
# scripts/preflight.sh judge whether the suites can run with it.
for p in $OPENSSL_PKGS; do
    if apt-mark showhold 2>/dev/null | grep -qx "$p"; then
        echo "deps: $p is held at $(installed_version "$p"); not upgrading it"
    fi
done

snapshot() {
    dpkg-query -W -f='${Status} ${Package} ${Version}\n' 2>/dev/null |
        sed -n 's/^[a-z]* ok installed //p' | sort
}

todo=$(wanted)
if [ -z "$todo" ]; then
    echo "deps: all packages present (OpenSSL $(installed_version libssl3))"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: to install or upgrade:$todo"
    echo "deps: run as root:  apt-get update && apt-get install -y$todo"
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
todo=$(wanted)    # the fresh lists may know newer OpenSSL packages
before=$(mktemp)
snapshot > "$before"
apt-get install -y --no-install-recommends $todo
# Say what changed: new packages, then upgrades with both versions.
snapshot | join -a 2 -e NONE -o 1.2,2.1,2.2 "$before" - |
    awk '$1 == "NONE" { n++; new = new " " $2 }
         $1 != "NONE" && $1 != $3 { print "deps: upgraded " $2 " " $1 " -> " $3 }
         END { if (n) print "deps: installed " n " packages:" new }'
rm -f "$before"
echo "deps: OpenSSL is now $(installed_version libssl3)"
