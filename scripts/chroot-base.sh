#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# chroot-base.sh DIST -- the minimal debootstrap of Debian release DIST
# (minbase, as a container image is) that make test-release copies for
# each run and the package checks copy for piuparts and autopkgtest's test
# bed: made once, kept under TACK_CHROOT_DIR (default
# /var/cache/mod-tack/chroot) as DIST.base, outside the source tree so
# that no clean, clone or commit reaches it, and never entered itself.
# Its apt sources are the release, its updates and its security archive
# (TACK_MIRROR, TACK_SECURITY_MIRROR); a policy-rc.d keeps packages
# installed in a copy from starting services (they would bind the host's
# ports: a copy shares its network) and logs what would have started.
# Prints the base's path.  As root; test-release.sh --remove DIST deletes it.
set -eu
dist=${1:?usage: chroot-base.sh DIST}
case $dist in
*[!a-z0-9-]*) echo "chroot-base: $dist: not a release name" >&2; exit 2 ;;
esac
cache=${TACK_CHROOT_DIR:-/var/cache/mod-tack/chroot}
base=$cache/$dist.base
mirror=${TACK_MIRROR:-http://deb.debian.org/debian}
security=${TACK_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
say() { echo "chroot-base[$dist]: $*" >&2; }

if [ ! -f "$base/.mod-tack-chroot" ]; then
    [ "$(id -u)" -eq 0 ] || { say "must run as root (debootstrap)"; exit 1; }
    command -v debootstrap >/dev/null || {
        say "installing debootstrap"
        apt-get install -y debootstrap >/dev/null
    }
    rm -rf --one-file-system "$base"   # an earlier build that did not finish
    mkdir -p "$cache"
    say "debootstrap --variant=minbase $dist $base $mirror"
    debootstrap --variant=minbase "$dist" "$base" "$mirror" >"$base.log" 2>&1 || {
        tail -n 20 "$base.log" >&2
        say "debootstrap $dist failed (whole log: $base.log)"
        exit 1
    }
    {
        echo "deb $mirror $dist main"
        case $dist in
        sid | unstable | experimental) ;;
        *)
            echo "deb $mirror $dist-updates main"
            echo "deb $security $dist-security main"
            ;;
        esac
    } >"$base/etc/apt/sources.list"
    printf '#!/bin/sh\necho "$*" >>/var/log/policy-rc.d.log\nexit 101\n' \
        >"$base/usr/sbin/policy-rc.d"
    chmod 755 "$base/usr/sbin/policy-rc.d"
    touch "$base/.mod-tack-chroot"
    say "built the base"
fi
echo "$base"
