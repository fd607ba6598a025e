#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# test-release.sh DIST [COMMAND...] -- run the README's two commands (or
# COMMAND) from a fresh clone of this tree's HEAD inside a clean chroot of
# Debian release DIST (bookworm, trixie; sid for OpenSSL 4: make
# test-openssl4), as a new user on that release would (make test-release
# DIST=trixie).
#
# Every run starts from a pristine tree, as a new user's machine would: a
# minimal debootstrap (minbase, as a container image is) is made once and
# kept as a base under TACK_CHROOT_DIR (default /var/cache/mod-tack/chroot:
# DIST.base; scripts/chroot-base.sh, which says more), outside the source
# tree, and never entered; each run copies it anew to DIST,
# where the clone runs.  Downloaded packages are kept in DIST.debs, mounted
# as the run tree's apt archive, so that a warm run downloads nothing; a
# cold one (a new machine) fetches them once.  The tree shares the host's
# network, so nothing else may run the suites on this machine at the same
# time (their ports would collide); a policy-rc.d keeps the packages
# installed in it (apache2) from starting services on the host's ports and
# logs what would have started.  After the command, what is switched on in
# the tree (apache2's *-enabled, systemd's and sysvinit's start links) is
# compared with what it was before it: anything but Debian's apache2's own
# fails the run (the README's commands change nothing else; a harness
# that is not one of them names itself in TACK_RELEASE_ANY_SWITCHED_ON
# instead).  proc, sys,
# dev and the package cache are mounted for the run and unmounted at its
# end, whatever happens, before anything is removed; so is each
# HOSTDIR:TREEDIR of TACK_RELEASE_BIND (space-separated), a host directory
# bind-mounted at TREEDIR in the tree (read-only as HOSTDIR:TREEDIR:ro): a
# harness's cache kept between runs (make test-openssl4's httpd built
# against OpenSSL 4.0), or the release's base for piuparts to copy (.ci/run).
#
#   test-release.sh DIST               make demo, then make test
#   test-release.sh DIST make check    any command, in the clone
#   test-release.sh --remove DIST      unmount and delete the base, the
#                                      run tree and the package cache
set -eu

usage() {
    echo "usage: test-release.sh [--remove] DIST [COMMAND...]" >&2
    exit 2
}
remove=
if [ "${1:-}" = --remove ]; then
    remove=1
    shift
fi
[ $# -ge 1 ] || usage
dist=$1
shift
case $dist in
*[!a-z0-9-]* | "") usage ;;
esac
if [ "$(id -u)" -ne 0 ]; then
    echo "test-release: must run as root (debootstrap, chroot, mount)" >&2
    exit 1
fi

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${TACK_CHROOT_DIR:-/var/cache/mod-tack/chroot}
base=$cache/$dist.base
root=$cache/$dist
debs=$cache/$dist.debs
clone=/srv/mod_tack
start=$(date +%s)

say() {
    echo "test-release[$dist, $(($(date +%s) - start)) s]: $*"
}

. "$top/scripts/chroot-lib.sh"

# unmount: the run's processes in the tree ended, then its mounts
# (chroot_release); nothing is removed while anything is mounted.
unmount() {
    chroot_release "$root" || {
        echo "test-release: still mounted under $root:" \
            $(chroot_mounted "$root") >&2
        return 1
    }
}

remove_tree() {
    unmount || {
        echo "test-release: not removing $root while something is mounted" \
             "in it" >&2
        exit 1
    }
    rm -rf --one-file-system "$root"
}

if [ -n "$remove" ]; then
    [ -d "$root" ] && remove_tree
    rm -rf --one-file-system "$base" "$debs"
    say "removed $root, $base and $debs"
    exit 0
fi

# ---- the base, built once (scripts/chroot-base.sh) -------------------------
sh "$top/scripts/chroot-base.sh" "$dist" >/dev/null

# ---- a pristine copy of it ----------------------------------------------------
unmount
rm -rf --one-file-system "$root"
cp -a "$base" "$root"
mkdir -p "$debs/partial"
say "a pristine copy of the $dist base ($(du -sm "$base" | cut -f1) MB;" \
    "$(find "$debs" -maxdepth 1 -name '*.deb' | wc -l) packages in the" \
    "download cache)"

trap 'unmount' EXIT
trap 'exit 130' INT TERM HUP
# The tree a mount point of its own, private: in the chroot, / is then a
# mount whose propagation a test's mount namespace may make private
# (unshare -m; 22-deps.t and 25-postrm.t overlay /etc and /var/lib there),
# and nothing mounted in the tree reaches the host's namespace.
mount --bind "$root" "$root"
mount --make-private "$root"
chroot_mounts "$root"
mount --bind "$debs" "$root/var/cache/apt/archives"
for b in ${TACK_RELEASE_BIND:-}; do
    ro=
    case $b in *:ro) ro=1 b=${b%:ro} ;; esac
    mkdir -p "${b%%:*}" "$root${b#*:}"
    mount --bind "${b%%:*}" "$root${b#*:}"
    [ -z "$ro" ] || mount -o remount,bind,ro "$root${b#*:}"
done
# sid's and experimental's Release files are past their Valid-Until on
# machines whose mirror is not refreshed daily: apt would refuse every
# update.  Only there: a stable release's stale Release file is a real
# problem worth an error.
case $dist in
sid | unstable | experimental)
    echo 'Acquire::Check-Valid-Until "false";' \
        >"$root/etc/apt/apt.conf.d/99mod-tack-valid-until"
    ;;
esac

in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive "$@"
}

# ---- refresh: the release as it is today, and git and make (what a new
# user has installed to clone the tree and type the README's commands) ---------
say "refreshing packages"
in_root apt-get update -q >/dev/null
in_root apt-get -y -q -o Dpkg::Options::=--force-confold upgrade >/dev/null
in_root apt-get install -y -q --no-install-recommends git make >/dev/null
say "$(in_root sh -c '. /etc/os-release; echo $PRETTY_NAME'), kernel $(uname -r)"

# ---- a fresh clone of HEAD -----------------------------------------------------
rm -rf --one-file-system "$root$clone"
mkdir -p "$root$(dirname "$clone")"
git clone -q "$top" "$root$clone"
say "fresh clone of $(git -C "$root$clone" log -1 --format='%h %s' | cut -c1-70)"

if [ $# -eq 0 ]; then
    set -- sh -c 'make demo && make test'
fi
say "running: $*"
# In the background, waited for: a shell runs its traps only between
# commands, and wait is one that a signal interrupts; the trap then ends
# every process in the chroot (unmount) and leaves nothing mounted.
switched_on() {
    in_root sh "$clone/scripts/deps.sh" switched-on | sort
}
on_before=$(mktemp)
switched_on >"$on_before"
rc=0
in_root sh -c 'cd "$1" && shift && exec "$@"' sh "$clone" "$@" &
wait $! || rc=$?
if [ $rc -eq 0 ]; then
    say "passed: $*"
else
    say "FAILED (exit $rc): $*"
fi

# ---- what the command left switched on ----------------------------------------
if [ -s "$root/var/log/policy-rc.d.log" ]; then
    say "what packages' scripts would have started (policy-rc.d refused):" \
        $(sed 's/ .*//' "$root/var/log/policy-rc.d.log" | sort -u)
fi
if [ -n "${TACK_RELEASE_ANY_SWITCHED_ON:-}" ]; then
    say "what the command switched on is not checked: $TACK_RELEASE_ANY_SWITCHED_ON"
    rm -f "$on_before"
    exit $rc
fi
new_on=$(switched_on | comm -13 "$on_before" -)
rm -f "$on_before"
extra=$(printf '%s\n' "$new_on" |
        awk 'NF && $2 != "apache2" && $2 != "apache2-bin" && $2 != "apache2-data"')
if [ -n "$extra" ]; then
    say "FAILED: left switched on, beyond Debian's apache2's own (LINK PACKAGE):"
    printf '%s\n' "$extra" | sed 's/^/    /'
    [ $rc -ne 0 ] || rc=1
else
    say "nothing switched on beyond Debian's apache2's own" \
        "($(printf '%s\n' "$new_on" | grep -c .) new links, all apache2's)"
fi
exit $rc
