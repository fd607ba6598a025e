# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# chroot-lib.sh -- sourced by test-release.sh and package-autopkgtest.sh:
# a copy of a release's base made usable as a chroot, and taken down.
#
#   chroot_mounts ROOT    proc, sys and dev mounted in ROOT (sys and dev
#                         bound from the host, as slaves: nothing mounted
#                         in ROOT reaches the host), the host's resolv.conf,
#                         and an /etc/hosts with localhost where ROOT has
#                         none (a minbase tree may have none; every
#                         installed Debian has one, and the suites resolve
#                         localhost)
#   chroot_mounted ROOT   the mount points at or under ROOT, deepest first
#   chroot_release ROOT   every process whose root is ROOT ended (a server
#                         a failed test left behind holds its mounts), then
#                         every mount under ROOT; returns 1 while anything
#                         is still mounted: a bound /dev is the host's, and
#                         nothing may be removed under ROOT until then
chroot_mounts() {
    mount -t proc proc "$1/proc"
    mount --rbind /sys "$1/sys"
    mount --make-rslave "$1/sys"
    mount --rbind /dev "$1/dev"
    mount --make-rslave "$1/dev"
    cp /etc/resolv.conf "$1/etc/resolv.conf"
    [ -e "$1/etc/hosts" ] ||
        printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' \
            >"$1/etc/hosts"
}

chroot_mounted() {
    findmnt -rn -o TARGET | awk -v r="$1" \
        'index($0, r "/") == 1 || $0 == r' | sort -r
}

chroot_release() {
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] &&
            kill -9 "${p#/proc/}" 2>/dev/null
    done
    for m in $(chroot_mounted "$1"); do
        umount -R "$m" 2>/dev/null || umount -R -l "$m" 2>/dev/null || true
    done
    [ -z "$(chroot_mounted "$1")" ]
}
