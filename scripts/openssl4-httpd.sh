#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# openssl4-httpd.sh CACHE -- httpd built against this machine's OpenSSL
# (4.0, in make test-openssl4's sid chroot), or the one built before:
# prints its prefix, CACHE/httpd-SRCVERSION-openssl-SSLVERSION-RECIPE,
# alone on standard output (what it says goes to standard error).
# scripts/test-openssl4.sh runs it; CACHE is a host directory that
# scripts/test-release.sh bind-mounts into the tree (TACK_RELEASE_BIND),
# so that the build outlives the run tree.
#
# The source is Debian's apache2 source package, fetched with apt-get
# source through an apt configuration of its own under CACHE/apt (a
# deb-src line, its own lists: nothing of the machine's apt changes), from
# a release whose archive serves it whole: bookworm main (sid's and
# trixie's 2.4.71 answer 404 for their files; TACK_HTTPD_SOURCE_RELEASE
# names another).  Built from the upstream tarball in it (not Debian's
# packaging): ./configure --enable-ssl --with-ssl=/usr, the event, prefork
# and worker MPMs and the modules the suites load (configure_args below).
# Beside httpd the prefix gets, from the same source package, Debian's apache2ctl
# (bin/) and httpd's Apache::Test (perl5/; sid has it only inside
# libapache2-mod-perl2, which would bring Debian's OpenSSL 3 apache2).
#
# A prefix is used only once complete (.built, written last); any module
# or program of it that links OpenSSL 3 fails the build.
set -eu

cache=${1:?usage: openssl4-httpd.sh CACHE}
release=${TACK_HTTPD_SOURCE_RELEASE:-bookworm}
say() { echo "openssl4-httpd: $*" >&2; }

mirror=$(sh "$(dirname "$0")/apt-source.sh")
apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" \
         "$cache/src"
echo "deb-src $mirror $release main" >"$apt_dir/sources.list"
apt_o="-o Dir::Etc::sourcelist=$apt_dir/sources.list
       -o Dir::Etc::sourceparts=- -o Dir::State::lists=$apt_dir/lists
       -o Dir::Cache=$apt_dir/cache -o Acquire::Check-Valid-Until=false"
# shellcheck disable=SC2086
apt-get -q $apt_o update >"$apt_dir/update.log" 2>&1 || {
    cat "$apt_dir/update.log" >&2
    say "apt-get update of deb-src $mirror $release main failed"
    exit 1
}
# shellcheck disable=SC2086
srcver=$(apt-cache $apt_o showsrc apache2 |
         sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$srcver" ] || { say "no apache2 source in $release main"; exit 1; }
sslver=$(dpkg-query -W -f='${Version}' libssl-dev)
# Debian's apache2 has mod_unixd, mod_log_config, mod_logio, mod_version
# and mod_watchdog built in (apache2 -l): so has this one, so that the
# suites' configurations serve both.  mod_md (libcurl) and mod_ldap
# (libldap) are left out: sid builds both libraries on OpenSSL 3.
mpms="event prefork worker"
mods="most ssl socache_shmcb http2 proxy proxy_http status headers"
configure_args="--enable-ssl --with-ssl=/usr
    --enable-unixd=static --enable-log-config=static --enable-logio=static
    --enable-version=static --enable-watchdog=static
    --disable-md --disable-ldap --disable-authnz-ldap"
# The key: the source's version, OpenSSL's, and these options.
# shellcheck disable=SC2086
recipe=$(printf '%s\n' "$mpms" "$mods" $configure_args | md5sum | cut -c1-8)
prefix=$cache/httpd-$srcver-openssl-$sslver-$recipe
what="httpd $srcver (Debian $release's apache2 source) against OpenSSL $sslver"

if [ -f "$prefix/.built" ]; then
    say "reusing $what: $prefix"
    echo "$prefix"
    exit 0
fi

t0=$(date +%s)
say "building $what into $prefix"
rm -rf "$prefix"
upstream=${srcver%-*}
# Old versions' sources and prefixes go: only the current ones are kept.
find "$cache/src" -maxdepth 1 -name 'apache2_*' ! -name "apache2_$upstream[.-]*" \
    -delete
if [ ! -f "$cache/src/apache2_$upstream.orig.tar.gz" ] ||
   [ ! -f "$cache/src/apache2_$srcver.debian.tar.xz" ]; then
    # shellcheck disable=SC2086
    (cd "$cache/src" &&
     apt-get -q $apt_o source --download-only "apache2=$srcver") \
        >"$apt_dir/source.log" 2>&1 || {
        cat "$apt_dir/source.log" >&2
        say "apt-get source apache2=$srcver ($release) failed"
        exit 1
    }
fi

work=$(mktemp -d /tmp/openssl4-httpd.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -xzf "$cache/src/apache2_$upstream.orig.tar.gz" -C "$work"
tar -xJf "$cache/src/apache2_$srcver.debian.tar.xz" -C "$work"
src=$work/httpd-$upstream
log=$cache/httpd-build.log
{
    cd "$src"
    # shellcheck disable=SC2086
    ./configure --prefix="$prefix" --with-apr=/usr/bin/apr-1-config \
        --with-apr-util=/usr/bin/apu-1-config \
        --enable-mpms-shared="$mpms" --enable-mods-shared="$mods" \
        $configure_args
    make -j"$(nproc)"
    make install
} >"$log" 2>&1 || {
    tail -n 30 "$log" >&2
    say "building $what failed (whole log: $log)"
    rm -rf "$prefix"
    exit 1
}
install -m 755 "$work/debian/apache2ctl" "$prefix/bin/apache2ctl"
cp -a "$work/debian/perl-framework/Apache-Test/lib" "$prefix/perl5"

# One OpenSSL in every process: nothing of the prefix may link OpenSSL 3.
bad=
for f in "$prefix"/bin/* "$prefix"/modules/*.so; do
    [ -f "$f" ] && [ ! -h "$f" ] || continue
    if ldd "$f" 2>/dev/null | grep -q 'lib\(ssl\|crypto\)\.so\.3'; then
        bad="$bad ${f#"$prefix"/}"
    fi
done
if [ -n "$bad" ]; then
    say "links OpenSSL 3:$bad"
    rm -rf "$prefix"
    exit 1
fi
ldd "$prefix/modules/mod_ssl.so" | grep -q 'libssl\.so\.4' || {
    say "mod_ssl.so does not link libssl.so.4: $(ldd "$prefix/modules/mod_ssl.so")"
    rm -rf "$prefix"
    exit 1
}
warnings=$(grep -c 'warning:' "$log" || true)
echo "$what; $warnings compiler warnings; built in $(($(date +%s) - t0)) s" \
    >"$prefix/.built"
# Earlier builds (another source or OpenSSL version) are not used again.
for old in "$cache"/httpd-*-openssl-*; do
    [ "$old" = "$prefix" ] || rm -rf "$old"
done
say "built: $(cat "$prefix/.built")"
echo "$prefix"
