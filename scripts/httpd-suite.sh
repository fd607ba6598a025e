#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# httpd-suite.sh -- httpd's own test framework (Apache::Test and httpd's
# t/, as Debian ships it in its apache2 source package: debian/perl-
# framework) against the system's apache2, without mod_tack and with it
# (make test-httpd-suite; FULL=1: the whole suite, not only t/ssl).
#
# The source package is that of the running release (/etc/os-release:
# bookworm's on Debian 12, trixie's on 13), fetched from the mirror the
# machine's apt uses (scripts/apt-source.sh: TACK_MIRROR names another)
# with apt-get source through a private apt configuration (a deb-src list, a
# lists and a cache directory of its own under TACK_SRC_DIR, default
# /var/cache/mod-tack/src/CODENAME): the machine's apt is not changed.
# Its version is named; it may be older than the running apache2 (the
# security archive does not serve its source whole), which is fine: the
# framework tests httpd's behaviour.  Once fetched, the framework is kept
# there and reused (delete that directory to fetch anew).
#
# Each run copies it afresh, twice per protocol axis (the framework's
# -sslproto: TLSv1.2, then TLSv1.3; the two sides of t/ssl at once, those
# of the whole suite one after the other), into a directory of its own under
# TACK_HTTPD_SUITE_DIR (default /var/cache/mod-tack/httpd-suite), removed
# at the end; the results and logs stay in build/httpd-suite/.
#   without: the framework's configuration as it is, every module of
#     Debian's apache2 packages loaded (Debian's autopkgtest does the
#     same; other packages' modules, mod_perl and mod_tack among them,
#     are left out), mpm_event.
#   with: the same, plus LoadModule tack_module (build/mod_tack.so), a
#     TackStateFile of the run's and, in every <VirtualHost>
#     with SSLEngine on, a TackFile (a TACK signed by ./tack for the
#     certificate the framework generated, after its configure step) and
#     TackTLS13 On.
# Before the tests, ./tack check --require asks every SSL virtual host
# for its TACK over the axis's protocol: each must serve one that
# verifies with mod_tack, none without.  After them, mod_tack must have
# logged nothing at warn or above.
#
# The per-subtest results (t/TEST -verbose, parsed by httpd-suite.pl) must
# be identical, with equal non-zero subtest counts on both sides: any
# difference fails, naming the file and subtest.  A file that differs is
# run once more on both sides (against timing flakes; said), and that
# second run decides.  Failures of the stock suite on this machine are
# failures on both sides: they are listed, not hidden, and do not fail
# the comparison.
#
# As root (the caches are the machine's); the framework itself runs as
# nobody (Apache::Test refuses to run as root: httpd could not drop its
# children's privileges), and so does its httpd, which writes the state
# file in a directory of nobody's.  It needs build/mod_tack.so and ./tack (make
# test-httpd-suite builds them) and the framework's Perl modules (make
# deps).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
APACHE2=${APACHE2:-/usr/sbin/apache2}
APXS=${APXS:-/usr/bin/apxs}
MODDIR=${MODDIR:-/usr/lib/apache2/modules}
mirror=$(sh scripts/apt-source.sh)
cache=/var/cache/mod-tack
work=${TACK_HTTPD_SUITE_DIR:-$cache/httpd-suite}
AXES=${TACK_HTTPD_SUITE_AXES:-TLSv1.2 TLSv1.3}
# TACK_HTTPD_SUITE_TESTS: the framework's test files or directories to run
# instead (a developer's shortcut).
# limit: how long one side's tests may run (here t/ssl took 1-4 minutes,
# the whole suite 9-13).
if [ -n "${TACK_HTTPD_SUITE_TESTS:-}" ]; then
    tests=$TACK_HTTPD_SUITE_TESTS
    what=$tests
    limit=3600
elif [ -n "${FULL:-}" ]; then
    tests=
    what="the whole suite"
    limit=3600
else
    tests=t/ssl
    what=t/ssl
    limit=900
fi
out=$top/build/httpd-suite
start_time=$(date +%s)

say() { echo "httpd-suite: $*"; }
die() { echo "httpd-suite: $*" >&2; exit 1; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }

[ "$(id -u)" -eq 0 ] || die "must run as root (it runs the framework as nobody)"

[ -f build/mod_tack.so ] && [ -x tack ] ||
    die "build/mod_tack.so or ./tack missing: run make module tool"
[ -x "$APACHE2" ] && [ -x "$APXS" ] ||
    die "$APACHE2 or $APXS missing: run make deps"

# ---- the framework, from the release's apache2 source package ----------------
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "/etc/os-release names no VERSION_CODENAME"
src=${TACK_SRC_DIR:-$cache/src/$codename}
fw=$src/perl-framework
t0=$(date +%s)
if [ -f "$src/perl-framework.version" ] && [ -d "$fw/t/ssl" ]; then
    version=$(cat "$src/perl-framework.version")
    say "httpd's test framework from apache2 $version ($codename), fetched" \
        "before ($fw)"
else
    mkdir -p "$src/lists/partial" "$src/cache/archives/partial"
    echo "deb-src $mirror $codename main" >"$src/sources.list"
    # The host's sources and lists are not read (sourceparts=-), nor
    # written; apt's download user (_apt) could not write here.
    set -- -q -o Dir::Etc::sourcelist="$src/sources.list" \
        -o Dir::Etc::sourceparts=- -o Dir::State::lists="$src/lists" \
        -o Dir::Cache="$src/cache" -o APT::Sandbox::User=root
    say "fetching Debian's apache2 source package ($codename, $mirror)" \
        "with a private apt configuration in $src"
    apt-get "$@" update >"$src/apt.log" 2>&1 ||
        { cat "$src/apt.log" >&2; die "apt-get update failed (above)"; }
    if grep -q '^[WE]: ' "$src/apt.log"; then
        cat "$src/apt.log" >&2
        die "apt-get update could not fetch $codename's source index (above)"
    fi
    rm -rf "$src/dl"
    mkdir -p "$src/dl"
    (cd "$src/dl" && apt-get "$@" source --download-only apache2) \
        >>"$src/apt.log" 2>&1 ||
        { cat "$src/apt.log" >&2; die "apt-get source apache2 failed (above)"; }
    dsc=$(ls "$src"/dl/apache2_*.dsc)
    version=$(sed -n 's/^Version: //p' "$dsc")
    rm -rf "$src/x" "$fw"
    # apt checked the files against the archive's signed index.
    dpkg-source --no-check -x "$dsc" "$src/x" >>"$src/apt.log" 2>&1 ||
        { cat "$src/apt.log" >&2; die "dpkg-source -x $dsc failed (above)"; }
    [ -d "$src/x/debian/perl-framework/t/ssl" ] ||
        die "apache2 $version's source has no debian/perl-framework/t/ssl"
    mv "$src/x/debian/perl-framework" "$fw"
    # dpkg-source leaves a copy of the upstream tarball beside the tree.
    rm -rf "$src/x" "$src"/apache2_*.orig.tar.*
    echo "$version" >"$src/perl-framework.version"
    say "httpd's test framework from apache2 $version ($codename): fetched" \
        "and unpacked in $(elapsed "$t0")"
fi
fetch_secs=$(($(date +%s) - t0))
running=$(dpkg-query -W -f='${Version}' apache2 2>/dev/null || echo unknown)
say "against the system's apache2 $running ($("$APACHE2" -v | sed -n 's/^Server version: //p'))"

# ---- the run's directory ----------------------------------------------------------
mkdir -p "$work"
run=$(mktemp -d "$work/run.XXXXXX")
chmod 755 "$run"
rm -rf "$out"
mkdir -p "$out"
stop_all() {
    trap '' INT TERM HUP
    for d in "$run"/*/; do
        if [ -f "$d/t/TEST" ] && [ -f "$d/t/logs/httpd.pid" ]; then
            as_user "$d" t/TEST -stop-httpd >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$run"
}
trap 'stop_all' EXIT
trap 'exit 130' INT TERM HUP

# as_user DIR CMD...: CMD in DIR as the framework's user, nobody, in a
# clean environment (no APACHE_TEST_* or HARNESS_* of the caller's).
as_user() {
    d=$1
    shift
    (cd "$d" && runuser -u nobody -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        HOME="$d" LANG=C "$@")
}

# Debian's autopkgtest loads every module the apache2 packages ship (its
# debian/tests/run-test-suite), with one MPM: the event MPM here, Debian's
# default.  Modules of other packages are left out: mod_perl
# (libapache2-mod-perl2, which make deps installs for Apache::Test) makes
# the framework run its mod_perl configuration, and mod_tack's is ours.
{
    echo "LoadModule mpm_event_module $MODDIR/mod_mpm_event.so"
    for f in $(dpkg-query -L apache2 apache2-bin apache2-data |
               grep '^/etc/apache2/mods-available/.*\.load$' | sort); do
        case $f in */mpm_*) continue ;; esac
        cat "$f"
    done
    # httpd's test modules, without a .load file (as Debian does).
    for m in bucketeer case_filter case_filter_in; do
        [ -f "$MODDIR/mod_$m.so" ] &&
            echo "LoadModule ${m}_module $MODDIR/mod_$m.so"
    done
    cat /etc/apache2/mods-available/mime.conf
    echo "ServerName localhost"
} >"$run/stock.conf"
# The framework's httpd (nobody) cannot read a tree under a 0700 home:
# the module is copied into the run's directory, where the TACK key is
# made too (root's alone).
cp build/mod_tack.so "$run/mod_tack.so"
{
    cat "$run/stock.conf"
    echo "LoadModule tack_module $run/mod_tack.so"
} >"$run/tack.conf"
umask 077
./tack -q genkey -p httpd-suite -o "$run/tack.key"
umask 022

# prepare SIDE AXIS: a fresh copy of the framework, configured for AXIS
# (its -sslproto), mod_tack's lines in it on the with side.
prepare() {
    side=$1 axis=$2
    d=$run/$axis-$side
    log=$out/$axis-$side.configure.log
    cp -a "$fw" "$d"
    if [ "$side" = tack ]; then
        # The framework's httpd runs as nobody from its start (no root to
        # drop): the state file (and its lock) must be nobody's to write.
        install -d -o nobody -g nogroup -m 0700 "$run/$axis-state"
        perl scripts/httpd-suite.pl inject "$d" "$d/t/conf/tack/server.tack.pem" \
            "$run/$axis-state/tack.state.json" >"$out/$axis-tack.injected"
    fi
    chown -R nobody:nogroup "$d"
    as_user "$d" perl Makefile.PL -apxs "$APXS" -httpd "$APACHE2" \
        -httpd_conf "$run/$side.conf" >"$log" 2>&1 || configure_failed
    configure "$side" "$axis"
    if [ "$side" = tack ]; then
        # The certificate every SSL virtual host of the framework serves
        # (SSLCertificateFile at server level, in t/conf/ssl/ssl.conf.in).
        mkdir -p "$d/t/conf/tack"
        ./tack -q sign -k "$run/tack.key" -p httpd-suite \
            -c "$d/t/conf/ssl/ca/asf/certs/server.crt" \
            -o "$d/t/conf/tack/server.tack.pem"
    fi
}

configure_failed() {
    tail -n 30 "$log" >&2
    die "$axis, $(side_name "$side"): the framework's configure step failed" \
        "(whole log: $log)"
}

# configure SIDE AXIS: the framework's configure step, from a base port
# with the 100 above it free (its httpd takes a port per virtual host from
# there), from 8600 up: Apache::Test's -port select looks at its base
# port only, and the project's Apache::Test suite starts at 8529.
configure() {
    base=$(perl scripts/httpd-suite.pl free-ports "$next_port") ||
        die "no free ports for the framework's httpd"
    next_port=$((base + 100))
    as_user "$run/$2-$1" t/TEST -configure -port "$base" -sslproto "$2" \
        >>"$out/$2-$1.configure.log" 2>&1 || configure_failed
}

side_name() {
    if [ "$1" = tack ]; then echo "with mod_tack"; else echo "without mod_tack"; fi
}

# start SIDE AXIS: start the framework's httpd and list its SSL virtual
# hosts (AXIS-SIDE.vhosts), checking that they are configured as the side
# says.  t/TEST -start-httpd exits 0 even when a port it was configured
# with has been taken since (by another suite's server): the pid file and
# the process are checked, and the framework configured anew (new ports)
# up to twice.
start() {
    side=$1 axis=$2
    d=$run/$axis-$side
    log=$out/$axis-$side.start.log
    for try in 1 2 3; do
        as_user "$d" t/TEST -start-httpd >>"$log" 2>&1 || true
        pid=$(cat "$d/t/logs/httpd.pid" 2>/dev/null || true)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            if [ "$side" = tack ]; then
                perl scripts/httpd-suite.pl vhosts "$d" \
                    "$d/t/conf/tack/server.tack.pem" >"$out/$axis-tack.vhosts"
            else
                perl scripts/httpd-suite.pl vhosts "$d" >"$out/$axis-stock.vhosts"
            fi
            return 0
        fi
        if [ $try -lt 3 ] && grep -q 'in use\|Address already in use' \
               "$log" "$d/t/logs/error_log" 2>/dev/null; then
            say "$axis, $(side_name "$side"): a port was taken since the" \
                "configure step: configuring again"
            configure "$side" "$axis"
            continue
        fi
        break
    done
    tail -n 30 "$log" >&2
    tail -n 20 "$d/t/logs/error_log" >&2 2>/dev/null || true
    die "$axis, $(side_name "$side"): the framework's httpd did not start (above)"
}

stop() {
    as_user "$run/$2-$1" t/TEST -stop-httpd >>"$out/$2-$1.start.log" 2>&1 || true
}

# proof SIDE AXIS: every SSL virtual host serves a TACK that verifies for
# its certificate with mod_tack (tack check --require), none without.  A
# virtual host that requires a client certificate (ssl_ocsp) ends a TLS 1.2
# handshake without one before tack check can judge it: there openssl
# s_client, with the framework's client certificate, shows the reply to
# the TACK request (-serverinfo 62208) or its absence.
proof() {
    side=$1 axis=$2
    d=$run/$axis-$side
    case $axis in TLSv1.3) opt=--tls1_3 ;; *) opt=--tls1_2 ;; esac
    n=0 how=
    while read -r label port; do
        f=$out/$axis-$side.check.$label
        rc=0
        ./tack check "127.0.0.1:$port" --servername localhost $opt --require \
            --timeout 10 >"$f" 2>&1 || rc=$?
        if [ $rc -ne 0 ] && [ "$opt" = --tls1_2 ] &&
           grep -q '^result *= failed: TLS handshake' "$f"; then
            ca=$d/t/conf/ssl/ca/asf
            openssl s_client -connect "127.0.0.1:$port" -servername localhost \
                -tls1_2 -serverinfo 62208 -cert "$ca/certs/client_ok.crt" \
                -key "$ca/keys/client_ok.pem" </dev/null >>"$f" 2>&1 || true
            if grep -q 'BEGIN SERVERINFO FOR EXTENSION 62208' "$f"; then
                rc=0
            else
                echo "extension      = none (the server sent no TACK)" >>"$f"
            fi
            how="$how $label (s_client, a client certificate)"
        fi
        if [ "$side" = tack ] && [ $rc -ne 0 ]; then
            cat "$f" >&2
            die "$axis, with mod_tack: $label (port $port) served no TACK" \
                "that verifies (tack check $opt, above)"
        fi
        if [ "$side" = stock ] && ! grep -q 'the server sent no TACK' "$f"; then
            cat "$f" >&2
            die "$axis, without mod_tack: $label (port $port): a TACK, or no" \
                "answer (above)"
        fi
        n=$((n + 1))
    done <"$out/$axis-$side.vhosts"
    labels=$(cut -d' ' -f1 "$out/$axis-$side.vhosts" | tr '\n' ' ' | sed 's/ $//')
    if [ "$side" = tack ]; then
        say "$axis, with mod_tack: each of the $n SSL virtual hosts served" \
            "a TACK (tack check $opt --require${how:+; but$how}): $labels"
    else
        say "$axis, without mod_tack: none of the $n SSL virtual hosts" \
            "served a TACK"
    fi
}

# tests SIDE AXIS NAME TESTS...: t/TEST -run-tests -verbose TESTS against
# the running httpd; its output in NAME.out, the TAP results in NAME.tap.
tests() {
    side=$1 axis=$2 name=$3
    shift 3
    d=$run/$axis-$side
    t0=$(date +%s)
    rc=0
    # A test that hangs (a server of its own that nobody connects to)
    # must not hold the run: its missing results are differences.
    as_user "$d" timeout -k 30 "$limit" t/TEST -run-tests -verbose "$@" \
        >"$out/$name.out" 2>"$out/$name.err" || rc=$?
    perl scripts/httpd-suite.pl tap "$out/$name.out" >"$out/$name.tap"
    result=$(grep '^Result: \|^Files=' "$out/$name.out" |
             sed 's/ wallclock secs.*/ wallclock s/' | tr '\n' ' ')
    [ $rc -ne 124 ] || result="TIMED OUT after $limit s; $result"
    say "$axis, $(side_name "$side"): t/TEST ${*:-(all)} exited $rc in" \
        "$(elapsed "$t0"): ${result:-no summary}"
}

# after SIDE AXIS: what the error log says at warn or above, and all that
# mod_tack says, kept (the whole log is some 270 MB: the framework's
# configuration logs some modules at trace8); whether httpd dumped core;
# what mod_tack said at warn or above (a failure).
after() {
    side=$1 axis=$2
    d=$run/$axis-$side
    grep -E '\[[a-z_0-9]+:(warn|error|crit|alert|emerg)\]|\[tack:' \
        "$d/t/logs/error_log" >"$out/$axis-$side.error_log" 2>/dev/null || true
    if ls "$d"/t/core* >/dev/null 2>&1; then
        echo yes >"$out/$axis-$side.core"
    else
        echo no >"$out/$axis-$side.core"
    fi
    rm -f "$d"/t/core*
    if [ "$side" = tack ] &&
       grep -E '\[tack:(warn|error|crit|alert|emerg)\]' "$d/t/logs/error_log" \
           >"$out/$axis-tack.tack-warnings"; then
        cat "$out/$axis-tack.tack-warnings" >&2
        say "$axis: FAILED: mod_tack logged at warn or above (above)"
        failed=1
    fi
    [ -s "$out/$axis-tack.tack-warnings" ] || rm -f "$out/$axis-tack.tack-warnings"
}

# t/ssl runs on both sides at once (on ports of their own, under the same
# load); the whole suite one side after the other: some of its tests use
# fixed paths in /tmp (t/modules/proxy.t's /tmp/test-ptf.sock, ...) that
# two runs at once would share, and hang or fail on.
if [ "$tests" = t/ssl ]; then
    together=1
else
    together=
fi
failed=
for axis in $AXES; do
    next_port=8600
    if [ -n "$together" ]; then
        for side in stock tack; do
            prepare "$side" "$axis"
            start "$side" "$axis"
        done
        for side in stock tack; do
            proof "$side" "$axis"
        done
        tests stock "$axis" "$axis-stock" $tests &
        p_stock=$!
        tests tack "$axis" "$axis-tack" $tests &
        p_tack=$!
        wait $p_stock
        wait $p_tack
        for side in stock tack; do
            stop "$side" "$axis"
            after "$side" "$axis"
        done
    else
        for side in stock tack; do
            prepare "$side" "$axis"
            start "$side" "$axis"
            proof "$side" "$axis"
            tests "$side" "$axis" "$axis-$side" $tests
            stop "$side" "$axis"
            after "$side" "$axis"
        done
    fi
    if [ "$(cat "$out/$axis-stock.core")" != "$(cat "$out/$axis-tack.core")" ]; then
        say "$axis: FAILED: httpd dumped core without mod_tack:" \
            "$(cat "$out/$axis-stock.core"), with it: $(cat "$out/$axis-tack.core")"
        failed=1
    elif [ "$(cat "$out/$axis-stock.core")" = yes ]; then
        say "$axis: httpd dumped core on both sides (the stock suite does here)"
    fi
    files=$(perl scripts/httpd-suite.pl compare-files "$out/$axis-stock.tap" \
                "$out/$axis-tack.tap")
    if [ "$(echo "$files" | grep -c .)" -gt 5 ]; then
        say "$axis: $(echo "$files" | grep -c .) files differ: not timing" \
            "flakes, not run again"
    elif [ -n "$files" ]; then
        # One more run of each file that differs, on both sides, one side
        # after the other, against timing flakes: its results replace the
        # first run's for that file.
        perl scripts/httpd-suite.pl compare "$out/$axis-stock.tap" \
            "$out/$axis-tack.tap" "$axis, first run" | grep DIFFERENT || true
        for f in $files; do
            say "$axis: $f differs: running it once more on both sides"
            for side in stock tack; do
                name=$axis-$side.rerun.$(basename "$f" .t)
                start "$side" "$axis"
                tests "$side" "$axis" "$name" "$f"
                stop "$side" "$axis"
                after "$side" "$axis"
                { grep -v "^$f	" "$out/$axis-$side.tap" || true
                  cat "$out/$name.tap"; } >"$out/$axis-$side.tap.new"
                mv "$out/$axis-$side.tap.new" "$out/$axis-$side.tap"
            done
        done
    fi
    perl scripts/httpd-suite.pl compare "$out/$axis-stock.tap" \
        "$out/$axis-tack.tap" "$axis" || failed=1
    rm -rf "$run/$axis-stock" "$run/$axis-tack"
done
stop_all
trap - EXIT

say "apache2 $running; the framework from apache2 $version ($codename);" \
    "fetch $fetch_secs s; all in $(elapsed "$start_time"); logs in $out"
if [ -n "$failed" ]; then
    say "FAILED: $what with and without mod_tack (above)"
    exit 1
fi
say "$what: identical per-subtest results without and with mod_tack" \
    "($AXES)"
