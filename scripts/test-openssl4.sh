#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# test-openssl4.sh -- the core and the tool against OpenSSL 4.0, in a
# clone inside a sid chroot (make test-openssl4 runs it there through
# scripts/test-release.sh; it refuses to run anywhere else, since it
# installs experimental's OpenSSL over the system's).
#
# OpenSSL 4.0 is in experimental only (libssl4, libssl-dev, openssl 4.0.x);
# sid's and experimental's Release files may be past their Valid-Until.
# It builds with -Werror=deprecated-declarations, runs the unit tests
# (make check, and make check-asan) and the tool's tests that need neither
# httpd nor a token.  The others are named, with the reason, never passed.
set -eu

if [ ! -f /.mod-tack-chroot ]; then
    echo "test-openssl4: runs inside test-release.sh's sid chroot only" \
         "(make test-openssl4)" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
mirror=$(sed -n 's/^deb \([^ ]*\) .*/\1/p' /etc/apt/sources.list | head -n 1)
echo "deb $mirror experimental main" >/etc/apt/sources.list.d/experimental.list
apt="apt-get -q -y -o Acquire::Check-Valid-Until=false"
$apt update >/dev/null
$apt install --no-install-recommends -t experimental \
    libssl-dev libssl4 openssl >/dev/null
$apt install --no-install-recommends build-essential pkg-config check \
    libjansson-dev clang libclang-rt-dev perl libjson-pp-perl \
    libipc-run-perl git man-db groff-base p11-kit-modules >/dev/null
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

# The tool's tests, but for those that start httpd or install the module
# (no apache2 is built against OpenSSL 4.0) or need a PKCS#11 token through
# pkcs11-provider (Debian has no build of it for OpenSSL 4.0 yet).
not_run="t/tool/06-httpd.t t/tool/11-fleet-httpd.t t/tool/12-pkcs11.t"
not_run="$not_run t/tool/15-guides.t t/tool/18-prog-name.t"
not_run="$not_run t/tool/21-guides-config.t"
run=
for t in t/tool/*.t; do
    case " $not_run " in
    *" $t "*) ;;
    *) run="$run $t" ;;
    esac
done
prove $run
for t in $not_run; do
    case $t in
    *pkcs11*) why="needs pkcs11-provider, which Debian has not built for OpenSSL 4.0 yet" ;;
    *prog-name*) why="builds and installs the module, and no apache2 is built against OpenSSL 4.0" ;;
    *guides-config*) why="checks the guides' Apache examples with apache2 -t and the module, and no apache2 is built against OpenSSL 4.0" ;;
    *guides*) why="runs the hosting guide's monitoring against a private httpd with the module, and no apache2 is built against OpenSSL 4.0" ;;
    *) why="starts httpd, and no apache2 is built against OpenSSL 4.0" ;;
    esac
    echo "test-openssl4: NOT RUN on OpenSSL 4.0: $t ($why)"
done
