#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# test-openssl4.sh -- the core, the tool and the module against OpenSSL
# 4.0, in a clone inside a sid chroot (make test-openssl4 runs it there
# through scripts/test-release.sh; it refuses to run anywhere else, since
# it installs experimental's OpenSSL over the system's).
#
# OpenSSL 4.0 is in experimental only (libssl4, libssl-dev, openssl 4.0.x);
# sid's and experimental's Release files may be past their Valid-Until.
# It builds with -Werror=deprecated-declarations, runs the unit tests
# (make check, and make check-asan) and the tool's tests that need neither
# httpd nor a token.  Then the module: Debian builds no apache2 against
# OpenSSL 4.0, so scripts/openssl4-httpd.sh builds httpd from Debian's
# apache2 source (bookworm's) against it, once, into OSSL4_CACHE, a host
# directory test-release.sh mounts here (make test-openssl4 sets
# TACK_RELEASE_BIND); the module is built with that httpd's apxs and the
# Apache suite (t/apache) runs against it.  Whatever cannot run is named,
# with the reason, never passed.
set -eu

if [ ! -f /.mod-tack-chroot ]; then
    echo "test-openssl4: runs inside test-release.sh's sid chroot only" \
         "(make test-openssl4)" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
mirror=$(sh scripts/apt-source.sh)
echo "deb $mirror experimental main" >/etc/apt/sources.list.d/experimental.list
apt="apt-get -q -y -o Acquire::Check-Valid-Until=false"
$apt update >/dev/null
$apt install --no-install-recommends -t experimental \
    libssl-dev libssl4 openssl >/dev/null
$apt install --no-install-recommends build-essential pkg-config check \
    libjansson-dev clang libclang-rt-dev perl libjson-pp-perl \
    libipc-run-perl git man-db groff-base p11-kit-modules >/dev/null
# httpd's build and the module's (APR, PCRE2, nghttp2 for mod_http2), and
# what the Apache suite runs beside it: /etc/mime.types, curl (h2.t),
# promtool (status.t), and IO::Socket::SSL, HTTP::Tiny's https (guard.t,
# silent.t and status.t read the status page with it).  make test has it
# through libapache2-mod-perl2 (libwww-perl, liblwp-protocol-https-perl),
# which this tree does not install: Apache::Test comes from httpd's
# source.  Its Net::SSLeay links sid's OpenSSL 3: the tests' client only,
# the httpd and the module under test are on OpenSSL 4.0.
$apt install --no-install-recommends libapr1-dev libaprutil1-dev \
    libpcre2-dev zlib1g-dev libexpat1-dev libnghttp2-dev media-types \
    curl prometheus libio-socket-ssl-perl >/dev/null
# libfaketime for the renewal tests (27-no-lapse.t, nolapse.t) and systemd
# for systemd-analyze (30-renew-timer.t), as make test's trees get them
# from deps.sh.
$apt install --no-install-recommends libfaketime systemd >/dev/null
ver=$(openssl version)
case $ver in
"OpenSSL 4."*) echo "test-openssl4: $ver" ;;
*)
    echo "test-openssl4: experimental gave '$ver', not OpenSSL 4" >&2
    exit 1
    ;;
esac

make core tool
echo "test-openssl4: ENGINE symbols in ./tack:" \
     "$(nm tack | grep -c ' ENGINE_' || true)"
if nm tack | grep -q ' ENGINE_'; then
    exit 1
fi
make check
make check-asan

# ---- httpd built on OpenSSL 4.0, and the module with its apxs -------------------
# mod_md links libcurl, which sid builds on OpenSSL 3: it is not built, and
# the files that load it are left out rather than two OpenSSLs in a process.
OSSL4_CACHE=/var/cache/mod-tack/ossl4
if ! mountpoint -q "$OSSL4_CACHE"; then
    echo "test-openssl4: $OSSL4_CACHE is not mounted from the host" \
         "(TACK_RELEASE_BIND): httpd is built in this tree, for this run only"
fi
t0=$(date +%s)
prefix=$(sh scripts/openssl4-httpd.sh "$OSSL4_CACHE")
echo "test-openssl4: httpd: $(cat "$prefix/.built") ($(($(date +%s) - t0)) s" \
     "this run)"
export APACHE2="$prefix/bin/httpd" APXS="$prefix/bin/apxs" \
    MODDIR="$prefix/modules" APACHE2CTL="$prefix/bin/apache2ctl" \
    PERL5LIB="$prefix/perl5"
make APXS="$APXS" module build/gencerts
ldd build/mod_tack.so | grep -q 'libssl\.so\.4' || {
    echo "test-openssl4: build/mod_tack.so does not link libssl.so.4" >&2
    exit 1
}
sh scripts/preflight.sh
"$APACHE2" -v | sed -n 's/^Server version: /test-openssl4: /p'


# The tool's tests, those that start httpd with the built one; not those
# with a token (below).
token_tests="t/tool/12-pkcs11.t t/apache/signing.t t/apache/fleet.t"
token_tests="$token_tests t/apache/pin.t"
not_run="t/tool/12-pkcs11.t"
run=
for t in t/tool/*.t; do
    case " $not_run " in
    *" $t "*) ;;
    *) run="$run $t" ;;
    esac
done
# shellcheck disable=SC2086
prove $run
for t in $not_run; do
    case $t in
    *pkcs11*) continue ;;
    esac
done
echo "test-openssl4: NOT RUN on OpenSSL 4.0: t/repo/ (the repository's own" \
    "checks: the guides against Debian's apache2 layout, which no apache2" \
    "built against OpenSSL 4.0 has, the docs, the layers; make test runs" \
    "them in the Debian 12 and 13 trees)"

# ---- the Apache suite -----------------------------------------------------------
apache_not_run="t/apache/md-cert.t t/apache/background.t"
apache_not_run="$apache_not_run t/apache/signing.t t/apache/fleet.t"
apache_not_run="$apache_not_run t/apache/pin.t"
apache_run=
for t in t/apache/*.t; do
    case " $apache_not_run " in
    *" $t "*) ;;
    *) apache_run="$apache_run $t" ;;
    esac
done
t0=$(date +%s)
# shellcheck disable=SC2086
t/run-apache-tests $apache_run
echo "test-openssl4: t/apache: $(echo $apache_run | wc -w) files passed" \
     "in $(($(date +%s) - t0)) s"
for t in $apache_not_run; do
    case $t in
    */md-cert.t) why="tests mod_md, which links libcurl on OpenSSL 3" ;;
    */background.t) why="loads mod_md (its staged certificates), which links libcurl on OpenSSL 3" ;;
    *) continue ;;
    esac
    echo "test-openssl4: NOT RUN on OpenSSL 4.0: $t ($why)"
done

# ---- tokens: pkcs11-provider built from sid's source ------------------------------
# Debian builds no pkcs11-provider against OpenSSL 4.0; SoftHSM2 beside it
# links OpenSSL 3, in its own namespace (pkcs11-provider dlopens it with
# RTLD_DEEPBIND).
why=$(mktemp)
if p11=$(sh scripts/openssl4-pkcs11-provider.sh "$OSSL4_CACHE" 2>"$why"); then
    cat "$why"
    $apt install --no-install-recommends softhsm2 opensc p11-kit >/dev/null
    modulesdir=$(openssl version -m | sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
    install -m 644 "$p11" "$modulesdir/pkcs11.so"
    prove t/tool/12-pkcs11.t
    t/run-apache-tests t/apache/signing.t t/apache/fleet.t t/apache/pin.t
    echo "test-openssl4: token tests passed: $token_tests"
else
    for t in $token_tests; do
        echo "test-openssl4: NOT RUN on OpenSSL 4.0: $t (needs" \
             "pkcs11-provider, which Debian has not built for OpenSSL 4.0," \
             "and building it failed: $(tail -n 1 "$why"))"
    done
fi
rm -f "$why"
