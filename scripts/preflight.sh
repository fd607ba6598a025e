#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# preflight.sh -- before the suites: does a plain httpd with mod_ssl, and
# no mod_tack, start without a warning on this machine?
#
# Every httpd-based suite fails a test on any unexpected [warn] or [error]
# line in its error log, which is how it catches what mod_tack or its
# configuration causes.  A warning that the machine causes on its own would
# fail them all, as 7 puzzling failures; the usual one is mod_ssl's AH01882
# ("compiled against a newer library"), when libssl3 is older than the
# OpenSSL Debian's apache2 was built with.  (Another is a tree the suites'
# httpd user cannot read, checked first.)  This starts mod_ssl alone on
# 127.0.0.1 (first free port of 18750-18759), stops it, and exits 1 with one
# line naming the cause and the packages to upgrade; 0 when the log is clean.
set -u

APACHE2=${APACHE2:-/usr/sbin/apache2}
MODDIR=${MODDIR:-/usr/lib/apache2/modules}

die() { echo "preflight: $*" >&2; exit 1; }

[ -x "$APACHE2" ] || die "$APACHE2 missing: run make deps"

# As root, the suites' httpds serve and read files of this tree as nobody;
# a clone under a directory others cannot search (root's home is 0700)
# would fail them with "Permission denied" (AH00035).
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -eq 0 ] && ! runuser -u nobody -- test -r "$top/README"; then
    die "httpd's children run as nobody and cannot read $top (a parent" \
        "directory without search permission for others, as root's 0700" \
        "home): clone the tree where others can search, e.g. under /tmp" \
        "or /srv, or chmod o+x each parent"
fi

. "$(dirname "$0")/httpd-lib.sh"
port=$(free_port 18750 18759)
[ -n "$port" ] || die "no free port in 127.0.0.1:18750-18759"

dir=$(httpd_dir preflight)
cleanup() { httpd_cleanup "$dir"; }
trap cleanup EXIT INT TERM

{
    httpd_conf_head "$dir" "$port" warn \
        mpm_event authz_core socache_shmcb ssl
    echo "SSLSessionCache shmcb:$dir/run/ssl_scache(512000)"
} > "$dir/httpd.conf"

out=$("$APACHE2" -f "$dir/httpd.conf" -k start 2>&1) ||
    die "a plain httpd with mod_ssl does not start: $out"
httpd_wait_up "$dir" || die "a plain httpd with mod_ssl did not start:" \
    "$(tail -n 1 "$dir/logs/error.log" 2>/dev/null)"

bad=$(grep -E '^\[[^]]*\] \[[a-z_]*:(warn|error|crit|alert|emerg)\]' \
      "$dir/logs/error.log" | head -n 1)
[ -z "$bad" ] && exit 0

case "$bad" in
*AH01882*)
    # "... newer library (OpenSSL 3.0.22 25 Aug 2026 (OpenSSL 3.0.19 ...)"
    built=$(echo "$bad" | sed -n 's/.*newer library (OpenSSL \([0-9][0-9.]*\).*/\1/p')
    # libssl3 on Debian 12, libssl3t64 on Debian 13: the one installed.
    lib=$(dpkg-query -W -f='${db:Status-Abbrev}${Package} ${Version}\n' \
          libssl3 libssl3t64 2>/dev/null | sed -n 's/^ii *//p' | head -n 1)
    die "mod_ssl was built against OpenSSL ${built:-?} but ${lib:-libssl}" \
        "is loaded (AH01882 at every httpd start fails the suites'" \
        "error-log checks): upgrade them, as root:" \
        "apt-get install -y ${lib%% *} openssl libssl-dev"
    ;;
*)
    die "a plain httpd with mod_ssl, no mod_tack, logs at start (the" \
        "suites' error-log checks would fail): ${bad#*] }"
    ;;
esac
