#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# openssl4-pkcs11-provider.sh CACHE -- OpenSSL's pkcs11-provider built
# against this machine's OpenSSL (4.0, in make test-openssl4's sid chroot),
# or the one built before: prints the path of its pkcs11.so alone on
# standard output.  Exits 3, with the reason on standard error, when it
# cannot be had: Debian builds none against 4.0, so it comes from sid's
# source package (apt-get source through an apt configuration of its own
# under CACHE/apt-sid, as scripts/openssl4-httpd.sh does for httpd), kept
# in CACHE/pkcs11-provider-SRCVERSION-openssl-SSLVERSION; a build that
# links OpenSSL 3 is refused.
set -eu

cache=${1:?usage: openssl4-pkcs11-provider.sh CACHE}
say() { echo "openssl4-pkcs11-provider: $*" >&2; }

mirror=$(sh "$(dirname "$0")/apt-source.sh")
apt_dir=$cache/apt-sid
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" \
         "$cache/src"
echo "deb-src $mirror sid main" >"$apt_dir/sources.list"
apt_o="-o Dir::Etc::sourcelist=$apt_dir/sources.list
       -o Dir::Etc::sourceparts=- -o Dir::State::lists=$apt_dir/lists
       -o Dir::Cache=$apt_dir/cache -o Acquire::Check-Valid-Until=false"
# shellcheck disable=SC2086
apt-get -q $apt_o update >"$apt_dir/update.log" 2>&1 || {
    say "apt-get update of deb-src $mirror sid main failed:" \
        "$(grep -m 1 '^E:' "$apt_dir/update.log")"
    exit 3
}
# shellcheck disable=SC2086
srcver=$(apt-cache $apt_o showsrc pkcs11-provider |
         sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$srcver" ] || { say "no pkcs11-provider source in sid main"; exit 3; }
sslver=$(dpkg-query -W -f='${Version}' libssl-dev)
prefix=$cache/pkcs11-provider-$srcver-openssl-$sslver
so=$prefix/pkcs11.so
if [ -f "$prefix/.built" ]; then
    say "reusing $(cat "$prefix/.built")"
    echo "$so"
    exit 0
fi

upstream=${srcver%-*}
orig=$(ls "$cache/src/pkcs11-provider_$upstream.orig.tar."* 2>/dev/null |
       head -n 1 || true)
if [ -z "$orig" ]; then
    # shellcheck disable=SC2086
    (cd "$cache/src" &&
     apt-get -q $apt_o source --download-only "pkcs11-provider=$srcver") \
        >"$apt_dir/source.log" 2>&1 || {
        say "apt-get source pkcs11-provider=$srcver (sid) failed:" \
            "$(grep '^E: Failed to fetch' "$apt_dir/source.log" |
               sed 's/^E: Failed to fetch //; s/ *\[IP:.*//' | tr '\n' ';')"
        exit 3
    }
    orig=$(ls "$cache/src/pkcs11-provider_$upstream.orig.tar."* | head -n 1)
fi

t0=$(date +%s)
what="pkcs11-provider $srcver (sid's source) against OpenSSL $sslver"
say "building $what"
apt-get install -y -q --no-install-recommends meson ninja-build pkgconf \
    libp11-kit-dev >/dev/null
rm -rf "$prefix"
work=$(mktemp -d /tmp/openssl4-pkcs11.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -xf "$orig" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
log=$cache/pkcs11-provider-build.log
{
    cd "$src"
    meson setup build
    meson compile -C build
    mkdir -p "$prefix"
    cp build/src/pkcs11.so "$so"
} >"$log" 2>&1 || {
    grep -m 5 'error' "$log" >&2 || tail -n 20 "$log" >&2
    say "building $what failed (whole log: $log)"
    rm -rf "$prefix"
    exit 3
}
if ldd "$so" | grep -q 'libcrypto\.so\.3'; then
    say "$so links OpenSSL 3: $(ldd "$so" | grep libcrypto)"
    rm -rf "$prefix"
    exit 3
fi
echo "$what, built in $(($(date +%s) - t0)) s" >"$prefix/.built"
for old in "$cache"/pkcs11-provider-*-openssl-*; do
    [ "$old" = "$prefix" ] || rm -rf "$old"
done
echo "$so"
