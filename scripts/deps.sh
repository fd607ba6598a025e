#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# deps.sh -- install the Debian packages mod_tack builds and tests with, on
# Debian 12 (bookworm) or 13 (trixie), and keep OpenSSL's packages as new as
# the apache2 that comes with them.
#
# Package names differ between releases; they are chosen by what the
# archive has, never by a release's name: the clang runtime (sanitizers,
# libFuzzer) that matches the clang the archive installs (libclang-rt-14-dev
# on Debian 12, libclang-rt-19-dev on 13), and OpenSSL's library (libssl3 on
# Debian 12, libssl3t64 on 13, after the 64-bit time_t transition).  On
# another release it says which one it is, and tries the same way.
#
# Debian's apache2 is built against the newest libssl of the archive, but
# installing it does not upgrade an older libssl already on the machine;
# mod_ssl then warns at every start (AH01882, "compiled against a newer
# library") and every error-log check of the suites fails.  So the OpenSSL
# packages are installed or upgraded in the same apt-get call as the rest,
# whenever they are older than the archive's.  As root it runs apt-get and
# says what it installed or upgraded; otherwise it prints the exact command.
# scripts/preflight.sh catches a mismatch that remains (a held package).
#
# deps.sh openssl: only the OpenSSL packages (make package-autopkgtest, whose
# test installs apache2 from the archive and checks its error log).
# deps.sh names: print the release-dependent names (clang runtime, libssl),
# one per line, and exit.
set -e

candidate_version() {
    apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p'
}

# has_candidate PKG: the archive (apt's lists) can install PKG.
has_candidate() {
    c=$(candidate_version "$1")
    [ -n "$c" ] && [ "$c" != "(none)" ]
}

# The release, named in what it prints; anything but Debian 12 or 13 is
# tried all the same, with a word first.
release=unknown
if [ -r /etc/os-release ]; then
    release=$(. /etc/os-release; echo "${PRETTY_NAME:-$ID ${VERSION_ID:-}}")
    codename=$(. /etc/os-release; echo "${ID:-}:${VERSION_CODENAME:-}")
    case $codename in
    debian:bookworm | debian:trixie) ;;
    *)
        echo "deps: this is $release; mod_tack is tested on Debian 12" \
             "(bookworm) and Debian 13 (trixie) only: trying the packages" \
             "its archive has, by the same rules (docs/contributing.md)" >&2
        ;;
    esac
fi

# The names below are read from apt's package lists: a fresh machine may
# have none yet (clang unknown), and root can fetch them.
if ! has_candidate clang && [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update
fi

# OpenSSL's library: libssl3t64 where the archive has it (Debian 13),
# libssl3 otherwise (Debian 12).
if has_candidate libssl3t64; then
    LIBSSL=libssl3t64
else
    LIBSSL=libssl3
fi
# The clang runtime of the clang the archive installs: clang's version is
# 1:MAJOR.0-N (1:14.0-55.7~deb12u1, 1:19.0-63).
clang_major=$(candidate_version clang |
              sed -n 's/^[0-9]*:*\([0-9][0-9]*\)\..*/\1/p')
CLANG_RT=libclang-rt-${clang_major:-N}-dev
if [ -z "$clang_major" ] || ! has_candidate "$CLANG_RT"; then
    echo "deps: $release: the archive has no clang runtime for clang" \
         "'$(candidate_version clang)' (looked for $CLANG_RT): run" \
         "apt-get update as root, then make deps again" >&2
    exit 1
fi

# Keys in a token go through OpenSSL's pkcs11-provider: in Debian 13's
# main archive, in bookworm-backports only for Debian 12, where it is
# installed with -t bookworm-backports; when apt's sources have no
# candidate for it there, root adds bookworm-backports to them (its
# packages are installed only when asked for by -t, so nothing else on the
# machine changes).
BACKPORTS=
if [ "${codename:-}" = debian:bookworm ]; then
    BACKPORTS=bookworm-backports
fi

PKGS="build-essential pkg-config check libjansson-dev \
apache2 apache2-dev libapache2-mod-perl2 clang $CLANG_RT man-db \
valgrind gdb pebble certbot softhsm2 opensc p11-kit p11-kit-modules \
prometheus sudo curl jq"
# Installed in an apt-get call of its own when it comes from backports.
PROVIDER_PKGS="pkcs11-provider"
# Kept at the archive's version, together.
OPENSSL_PKGS="$LIBSSL openssl libssl-dev"
case ${1:-} in
"") ;;
openssl) PKGS= PROVIDER_PKGS= ;;
names) echo "$CLANG_RT"; echo "$LIBSSL"; exit 0 ;;
*) echo "usage: deps.sh [openssl | names]" >&2; exit 2 ;;
esac

installed_version() {
    dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null |
        sed -n 's/^[a-z]* ok installed //p'
}

# What apt-get must be told: packages missing, and OpenSSL packages missing
# or older than their candidate.
wanted() {
    for p in $PKGS $PROVIDER_PKGS; do
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
    echo "deps: all packages present (OpenSSL $(installed_version $LIBSSL))"
    exit 0
fi
# from_backports LIST: the words of LIST that come from BACKPORTS (none
# when there is no backports step); others: the rest.
from_backports() {
    [ -n "$BACKPORTS" ] || return 0
    for p in $1; do
        case " $PROVIDER_PKGS " in *" $p "*) printf ' %s' "$p" ;; esac
    done
}
others() {
    for p in $1; do
        case " $(from_backports "$1") " in
        *" $p "*) ;;
        *) printf ' %s' "$p" ;;
        esac
    done
}
BACKPORTS_LIST=/etc/apt/sources.list.d/$BACKPORTS.list
BACKPORTS_LINE="deb http://deb.debian.org/debian $BACKPORTS main"
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: to install or upgrade:$todo"
    bp=$(from_backports "$todo")
    if [ -n "$bp" ]; then
        echo "deps: run as root:  echo '$BACKPORTS_LINE' >$BACKPORTS_LIST" \
             "&& apt-get update && apt-get install -y$(others "$todo")" \
             "&& apt-get install -y -t $BACKPORTS$bp"
    else
        echo "deps: run as root:  apt-get update && apt-get install -y$todo"
    fi
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$(from_backports "$todo")" ] && ! has_candidate pkcs11-provider
then
    echo "deps: Debian 12 has pkcs11-provider in $BACKPORTS only: adding" \
         "'$BACKPORTS_LINE' to $BACKPORTS_LIST"
    echo "$BACKPORTS_LINE" >"$BACKPORTS_LIST"
fi
apt-get update
todo=$(wanted)    # the fresh lists may know newer OpenSSL packages
before=$(mktemp)
snapshot > "$before"
main=$(others "$todo")
bp=$(from_backports "$todo")
if [ -n "$main" ]; then
    apt-get install -y --no-install-recommends $main
fi
if [ -n "$bp" ]; then
    apt-get install -y --no-install-recommends -t "$BACKPORTS" $bp
fi
# Say what changed: new packages, then upgrades with both versions.
snapshot | join -a 2 -e NONE -o 1.2,2.1,2.2 "$before" - |
    awk '$1 == "NONE" { n++; new = new " " $2 }
         $1 != "NONE" && $1 != $3 { print "deps: upgraded " $2 " " $1 " -> " $3 }
         END { if (n) print "deps: installed " n " packages:" new }'
rm -f "$before"
echo "deps: OpenSSL is now $(installed_version $LIBSSL)"
