#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# deps.sh -- install the Debian packages mod_tack builds and tests with, on
# Debian 12 (bookworm) or 13 (trixie), and keep OpenSSL's packages as new as
# the apache2 that comes with them.
#
#   deps.sh demo     what building and make demo need: the compiler,
#                    apache2 and its headers, OpenSSL's and jansson's
#   deps.sh [test]   that and the test tools (make test, make deps)
#   deps.sh openssl  only the OpenSSL packages (make package-autopkgtest)
#   deps.sh package  what make package builds with: dpkg-dev and
#                    debian/control's Build-Depends (apt-get build-dep
#                    would install their Recommends too, and say nothing)
#   deps.sh package-test  that and Debian's checkers make package-test
#                    runs (lintian, autopkgtest, piuparts, blhc, reprotest)
#   deps.sh names    the release-dependent names, one per line
#   deps.sh switched-on  what is switched on (apache2's *-enabled, systemd's
#                    and sysvinit's start links), "LINK PACKAGE" a line:
#                    make test-release compares it before and after
#
# Nothing else on the machine changes: what the new packages enable beyond
# Debian's apache2 itself is put back as it was (libapache2-mod-perl2's
# postinst enables mod_perl in the system apache2, prometheus and certbot
# enable their service and timer; the tests run private servers and need
# none of them), and each thing put back is named.  Packages are downloaded
# before any is installed, so an archive that cannot be reached changes
# nothing; apt's lock held by another apt, or no network, is said in one
# line with what to do.  What was switched on before the install is
# recorded first, in /var/lib/mod-tack/deps-switched-on (state that must
# outlive the run, not a cache), so that an install that fails or is
# stopped (INT, TERM, HUP) still puts back what the packages switched on so
# far, and what a run killed outright (KILL, a power cut) left switched on
# is put back by the next run as root, before anything else; the record is
# removed once that is done, and its directory with it when empty.
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

what=${1:-test}
case $what in
demo | test | openssl | package | package-test | names | switched-on) ;;
*) echo "usage: deps.sh [demo | test | openssl | package | package-test |" \
        "names | switched-on]" >&2
   exit 2 ;;
esac
# What the packages' scripts switch on is switched off again: what asked
# for them does not need it.
case $what in
package*) NEED="make package does not need it" ;;
*) NEED="the demo and the tests do not need it" ;;
esac

# apt_run CMD...: apt-get as told, its output shown; when it fails, one line
# says why in words a newcomer can act on (apt's lock, the network), and the
# script stops.
apt_run() {
    out=$(mktemp)
    # apt-get update says "W: Failed to fetch" and exits 0 when an index
    # could not be downloaded: that is a failure here.
    if "$@" >"$out" 2>&1 &&
       ! grep -q '^[WE]: Failed to fetch\|^[WE]: Some index files failed' "$out"; then
        cat "$out"
        rm -f "$out"
        return 0
    fi
    cat "$out" >&2
    if grep -q 'Could not get lock\|Unable to acquire the dpkg frontend lock\|Unable to lock' "$out"; then
        holder=$(sed -n -e 's/.*It is held by process \([0-9]*\) (\([^)]*\)).*/\2, process \1/p' \
                        -e 't' -e 's/.*It is held by process \([0-9]*\).*/process \1/p' "$out" | head -n 1)
        echo "deps: apt is busy${holder:+ ($holder holds its lock)}: wait until it" \
             "has finished, then run make ${TACK_DEPS_FOR:-deps} again; nothing was installed" >&2
    elif grep -q 'Temporary failure resolving\|Could not resolve\|Failed to fetch\|Could not connect\|Network is unreachable\|Connection failed\|Connection timed out\|Some index files failed to download' "$out"; then
        echo "deps: cannot reach the Debian archive ($(grep -m1 -o 'http[s]*://[^ ]*' "$out" | cut -d/ -f1-3)):" \
             "check the network and apt's sources (/etc/apt/sources.list), then" \
             "run make ${TACK_DEPS_FOR:-deps} again; nothing was installed" >&2
    else
        echo "deps: $1 failed (above); nothing more was done" >&2
    fi
    rm -f "$out"
    exit 1
}

# enabled: what is switched on, one per line: the links of apache2's
# *-enabled directories and systemd's unit links (*.wants/ and the like),
# and the sysvinit start links, each as "LINK TARGET".
enabled() {
    for l in /etc/apache2/mods-enabled/* /etc/apache2/conf-enabled/* \
             /etc/apache2/sites-enabled/* /etc/rc[2-5].d/S*; do
        [ -L "$l" ] && echo "$l $(readlink -f "$l")"
    done
    [ -d /etc/systemd/system ] &&
        find /etc/systemd/system -type l -printf '%p %l\n' 2>/dev/null
    true
}
# new_since RECORD: the lines of enabled that RECORD (enabled's lines, as
# they were) does not have.  A sysvinit start link is compared by its name
# without the number: insserv renumbers the S?? links of scripts already
# there when a package adds one (S01dbus becomes S02dbus), and those are
# not new.
new_since() {
    enabled | awk -v record="$1" '
        function key(    link) {
            link = $1
            if (link ~ /^\/etc\/rc[2-5]\.d\/S[0-9]/) {
                sub(/\/S[0-9]+/, "/S", link)
            }
            return link substr($0, length($1) + 1)
        }
        FILENAME == record { was[key()] = 1; next }
        !(key() in was)' "$1" -
}
# owner_of FILE: the package FILE is of, whichever of /lib and /usr/lib
# dpkg has it under (Debian 12 registers units in /lib, 13 in /usr/lib);
# nothing, and success all the same, when no package has it (set -e).
owner_of() {
    for f in "$1" "$(readlink -f "$1")" "/usr${1#/usr}" "${1#/usr}"; do
        o=$(dpkg-query -S "$f" 2>/dev/null | sed -n '1s/:.*//p')
        [ -n "$o" ] && { echo "$o"; return 0; }
    done
    return 0
}
# put_back LINK TARGET: switch off what LINK switches on, the way its
# kind is switched off (a2dismod, systemctl disable, update-rc.d), and
# stop it when the package's script started it.
put_back() {
    name=${1##*/}
    case $1 in
    /etc/apache2/mods-enabled/*.load) a2dismod -q -f "${name%.load}" >/dev/null ;;
    /etc/apache2/conf-enabled/*) a2disconf -q "${name%.conf}" >/dev/null ;;
    /etc/apache2/sites-enabled/*) a2dissite -q "${name%.conf}" >/dev/null ;;
    /etc/systemd/system/*)
        if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
            systemctl disable -q --now "$name" || rm -f "$1"
        elif command -v deb-systemd-helper >/dev/null; then
            deb-systemd-helper disable "$name" >/dev/null 2>&1 || rm -f "$1"
        else
            rm -f "$1"
        fi
        ;;
    /etc/rc[2-5].d/S*)
        script=$(echo "$name" | sed 's/^S[0-9]*//')
        invoke-rc.d "$script" stop >/dev/null 2>&1 || true
        update-rc.d "$script" disable >/dev/null 2>&1 || rm -f "$1"
        ;;
    esac
}
# put_back_since RECORD: put back what was switched on since RECORD was
# written, but for Debian's apache2's own (its service, its default modules
# and site: what installing apache2 alone does): the target of each new
# link says whose it is.  One line a package says what was put back.
put_back_since() {
    new_on=$(mktemp)
    put=$(mktemp)
    new_since "$1" >"$new_on"
    while read -r link target; do
        case $link in
        /etc/apache2/mods-enabled/*.conf) continue ;;   # goes with its .load
        esac
        owner=$(owner_of "$target")
        case $owner in
        apache2 | apache2-bin | apache2-data) continue ;;
        esac
        if put_back "$link" "$target"; then
            echo "${owner:-an-unknown-package} $link" >>"$put"
        else
            echo "deps: could not switch off $link (above)" >&2
        fi
    done <"$new_on"
    sort "$put" | awk -v need="$NEED" '
        { sub("^/etc/", "", $2) }
        $1 != p { if (p != "") print line; p = $1
                  line = "deps: switched off again what " p "\x27s install switched on" \
                         " (" need "):" }
        { line = line " " $2 }
        END { if (p != "") print line }'
    # A running apache2 that a package's script restarted with a module now
    # switched off again is reloaded without it, if its configuration is
    # sound.
    pid=$(cat /run/apache2/apache2.pid 2>/dev/null || true)
    if grep -q ' /etc/apache2/mods-enabled/' "$put" &&
       [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
       apache2ctl -t >/dev/null 2>&1
    then
        apache2ctl graceful &&
            echo "deps: the running apache2 reloaded without them"
    fi
    rm -f "$new_on" "$put"
}

# The record of what was switched on before an install (the comment at
# the top): written before apt-get installs anything, removed by
# record_done once what the install switched on is put back.
RECORD_DIR=/var/lib/mod-tack
RECORD=$RECORD_DIR/deps-switched-on
record_done() {
    rm -f "$RECORD"
    rmdir "$RECORD_DIR" 2>/dev/null || true
}

if [ "$what" = switched-on ]; then
    enabled | while read -r link target; do
        echo "$link $(owner_of "$target")"
    done
    exit 0
fi

# A run killed while it installed left its record: what its packages
# switched on is put back first, before anything else (it may have
# installed every package before it was killed, and this run then has
# nothing to install).
if [ "$what" != names ] && [ -f "$RECORD" ] && [ "$(id -u)" -eq 0 ]; then
    echo "deps: an earlier run was stopped while it installed (it left" \
         "$RECORD): putting back what its packages switched on"
    put_back_since "$RECORD"
    record_done
fi

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
if ! has_candidate apache2 && [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt_run apt-get update
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
if { [ "$what" = test ] || [ "$what" = names ]; } &&
   { [ -z "$clang_major" ] || ! has_candidate "$CLANG_RT"; }; then
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

# make demo: build the core, the tool and the module, run apache2.
DEMO_PKGS="build-essential pkg-config libjansson-dev apache2 apache2-dev"
# make test: the unit tests (check), sanitizers and libFuzzer (clang), the
# Apache::Test suite (libapache2-mod-perl2), valgrind, ACME (pebble,
# certbot), tokens (softhsm2, opensc, p11-kit), promtool (prometheus),
# the sudo rule of the mod_md hook, curl and jq for the guides' commands,
# clang-format (make format-check, with Debian 12's),
# libfaketime for the renewal tests (27-no-lapse.t, nolapse.t), systemd
# for systemd-analyze verify of the package's timer (30-renew-timer.t: a
# Debian install has it; a bare tree may not, and nothing runs it);
# then what httpd's own test framework needs (make test-httpd-suite: the
# Depends of run-test-suite in the apache2 source's debian/tests/control,
# but Time::HiRes, which is perl's).
TEST_PKGS="check libapache2-mod-perl2 clang $CLANG_RT clang-format man-db \
valgrind gdb pebble certbot softhsm2 opensc p11-kit p11-kit-modules \
prometheus sudo curl jq libfaketime systemd \
libwww-perl libnet-ssleay-perl libanyevent-perl libdatetime-perl \
libhtml-parser-perl libcrypt-ssleay-perl libhttp-dav-perl \
libprotocol-http2-perl libfcgi-perl libpcre2-dev perl-doc"
# make package: dpkg-dev and debian/control's Build-Depends, each its
# first alternative without versions, profiles or architectures
# (debhelper-compat is debhelper's).  make package-test: Debian's checks
# of the packages (piuparts runs debootstrap; the cycle rotates tacktool's
# log with logrotate; reprotest varies the time with faketime and the
# locale among locales-all's).
build_deps() {
    awk '/^Build-Depends:/ { f = 1; sub(/^Build-Depends:/, ""); print; next }
         f && /^[ \t]/ { print; next }
         { f = 0 }' "$(dirname "$0")/../debian/control" |
        tr ',' '\n' |
        sed -e 's/|.*//' -e 's/([^)]*)//g' -e 's/<[^>]*>//g' \
            -e 's/\[[^]]*\]//g' -e 's/^ *//' -e 's/ .*//' \
            -e 's/^debhelper-compat$/debhelper/' | grep .
}
PACKAGE_PKGS="dpkg-dev $(build_deps | tr '\n' ' ')"
PACKAGE_TEST_PKGS="lintian autopkgtest logrotate piuparts debootstrap blhc \
reprotest faketime locales-all"
# Installed in an apt-get call of its own when it comes from backports.
PROVIDER_PKGS="pkcs11-provider"
# Kept at the archive's version, together.
OPENSSL_PKGS="$LIBSSL openssl libssl-dev"
case $what in
demo) PKGS=$DEMO_PKGS PROVIDER_PKGS= ;;
test) PKGS="$DEMO_PKGS $TEST_PKGS" ;;
openssl) PKGS= PROVIDER_PKGS= ;;
package) PKGS=$PACKAGE_PKGS PROVIDER_PKGS= ;;
package-test) PKGS="$PACKAGE_PKGS $PACKAGE_TEST_PKGS" PROVIDER_PKGS= ;;
names) echo "$CLANG_RT"; echo "$LIBSSL"; exit 0 ;;
esac

installed_version() {
    dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null |
        sed -n 's/^[a-z]* ok installed //p'
}

# What apt-get must be told: packages missing, and OpenSSL packages missing
# or older than their candidate.
wanted() {
    for p in $PKGS $PROVIDER_PKGS; do
        case " $OPENSSL_PKGS " in *" $p "*) continue ;; esac
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
apt_run apt-get update
todo=$(wanted)    # the fresh lists may know newer OpenSSL packages
main=$(others "$todo")
bp=$(from_backports "$todo")
# Everything downloaded first: an archive that stops answering half-way
# leaves the machine as it was.
if [ -n "$main" ]; then
    apt_run apt-get install -y -q --no-install-recommends --download-only $main
fi
if [ -n "$bp" ]; then
    apt_run apt-get install -y -q --no-install-recommends --download-only \
        -t "$BACKPORTS" $bp
fi

# stopped SIGNAL: the trap of INT, TERM and HUP while installing (a shell
# runs it once the apt-get it waits for has ended): put back what the
# packages switched on so far, then end by the same signal.
stopped() {
    trap '' HUP INT TERM
    trap - EXIT
    echo "deps: stopped ($1) while installing: putting back what the" \
         "packages switched on so far"
    put_back_since "$RECORD"
    record_done
    rm -f "$before"
    trap - HUP INT TERM
    kill -s "$1" $$
}
# failed: the trap of EXIT while installing (apt_run's exit 1, set -e):
# the same, with the same exit status.
failed() {
    rc=$?
    trap - EXIT HUP INT TERM
    echo "deps: the install failed: putting back what the packages" \
         "switched on so far"
    put_back_since "$RECORD"
    record_done
    rm -f "$before"
    exit $rc
}

before=$(mktemp)
snapshot > "$before"
mkdir -p "$RECORD_DIR"
enabled | sort >"$RECORD.new"
mv -f "$RECORD.new" "$RECORD"
trap 'stopped HUP' HUP
trap 'stopped INT' INT
trap 'stopped TERM' TERM
trap failed EXIT
if [ -n "$main" ]; then
    apt_run apt-get install -y -q --no-install-recommends $main
fi
if [ -n "$bp" ]; then
    apt_run apt-get install -y -q --no-install-recommends -t "$BACKPORTS" $bp
fi
# Say what changed: new packages, then upgrades with both versions.
snapshot | join -a 2 -e NONE -o 1.2,2.1,2.2 "$before" - |
    awk '$1 == "NONE" { n++; new = new " " $2 }
         $1 != "NONE" && $1 != $3 { print "deps: upgraded " $2 " " $1 " -> " $3 }
         END { if (n) print "deps: installed " n " packages:" new }'
put_back_since "$RECORD"
record_done
trap - EXIT HUP INT TERM
rm -f "$before"
echo "deps: OpenSSL is now $(installed_version $LIBSSL)"
