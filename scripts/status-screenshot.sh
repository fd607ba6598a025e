#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# status-screenshot.sh -- make status-screenshot: the tack-status page of a
# private httpd with N virtual hosts (1,000 by default) behind one
# TackStore, photographed by headless Chromium at 1,280 pixels wide, into
# docs/status-1000.png (OUT=...).  A few vhosts carry each kind of problem
# so that the page shows them first: two certificates without a TACK in
# the store, one TACK expiring in 9 days, a malformed and an expired store
# file.  Not part of make test: it takes about a minute, and its result is
# for people to look at.
#
#   VHOSTS=1000 WIDTH=1280 HEIGHT=1600 OUT=docs/status-1000.png
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
N=${VHOSTS:-1000}
W=${WIDTH:-1280}
H=${HEIGHT:-1600}
OUT=${OUT:-docs/status-1000.png}
APACHE2=${APACHE2:-/usr/sbin/apache2}
MODDIR=${MODDIR:-/usr/lib/apache2/modules}
CHROMIUM=${CHROMIUM:-chromium}
d=$top/build/screenshot
pw=screenshot-pw

command -v "$CHROMIUM" >/dev/null || {
    echo "status-screenshot: $CHROMIUM not found (apt-get install chromium)" >&2
    exit 1
}
rm -rf "$d"
mkdir -p "$d/certs" "$d/store" "$d/logs"
build/gencerts -n "$N" -o "$d/certs" --prefix www --domain example.test \
    >/dev/null
./tack genkey -p "$pw" -o "$d/fleet.key" >/dev/null
./tack sign -k "$d/fleet.key" -p "$pw" -c "$d/certs" -o "$d/store" -e 90d \
    --no-progress >/dev/null
# The problems: no TACK for two certificates, one expiring soon, a
# malformed and an expired file.
# (Each file is named HOST.KEYTYPE.SPKI8.tack.pem: the globs find them.)
rm -f "$d/store/www00017.example.test".*.tack.pem \
    "$d/store/www00342.example.test".*.tack.pem
./tack sign -k "$d/fleet.key" -p "$pw" -f \
    -c "$d/certs/www00005.example.test.crt" -e 9d \
    -o "$(echo "$d/store/www00005.example.test".*.tack.pem)" >/dev/null
printf -- '-----BEGIN TACK-----\nAAAA\n-----END TACK-----\n' \
    > "$(echo "$d/store/www00901.example.test".*.tack.pem)"
./tack sign -k "$d/fleet.key" -p "$pw" \
    -c "$d/certs/www00017.example.test.crt" -e 2020-01-01Z --now 2019-12-01Z \
    -o "$d/store/old.tack.pem" >/dev/null 2>&1 ||
    printf 'an expired TACK could not be signed\n' >&2

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
{
    for m in mpm_event authz_core mime socache_shmcb ssl authz_host; do
        echo "LoadModule ${m}_module $MODDIR/mod_$m.so"
    done
    cat <<EOF
LoadModule tack_module $top/build/mod_tack.so
TackStateFile $d/tack-state.json
ServerRoot $d
DefaultRuntimeDir $d/logs
PidFile $d/logs/httpd.pid
Listen 127.0.0.1:$port
ErrorLog $d/logs/error_log
LogLevel warn
User nobody
Group nogroup
ServerName localhost
TypesConfig /etc/mime.types
SSLSessionCache shmcb:$d/logs/ssl_scache(512000)
TackStore $d/store
<Location /tack-status>
    SetHandler tack-status
    Require ip 127.0.0.1
</Location>
EOF
    i=1
    while [ "$i" -le "$N" ]; do
        name=$(printf 'www%05d.example.test' "$i")
        pins=off
        [ $((i % 3)) -eq 0 ] && pins=on
        cat <<EOF
<VirtualHost 127.0.0.1:$port>
    ServerName $name
    SSLEngine on
    SSLCertificateFile certs/$name.crt
    SSLCertificateKeyFile certs/$name.key
    TackPinActivation $pins
</VirtualHost>
EOF
        i=$((i + 1))
    done
} > "$d/httpd.conf"

"$APACHE2" -f "$d/httpd.conf" -k start
trap '"$APACHE2" -f "$d/httpd.conf" -k stop >/dev/null 2>&1 || true' EXIT
i=0
until grep -q 'resuming normal operations' "$d/logs/error_log" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -lt 600 ] || { echo "status-screenshot: httpd did not start" >&2; exit 1; }
    sleep 0.2
done
url=https://127.0.0.1:$port/tack-status
# Some handshakes, so that the counters are not all zero.
for n in 00001 00002 00003 00005 00017; do
    t/tmp/tackprobe 127.0.0.1 "$port" "www$n.example.test" >/dev/null 2>&1 ||
        openssl s_client -connect "127.0.0.1:$port" \
            -servername "www$n.example.test" -tls1_2 -serverinfo 62208 \
            </dev/null >/dev/null 2>&1 || true
done
curl -sk "$url" > "$d/status.html"
echo "status-screenshot: $(grep -c '<tr' "$d/status.html") table rows," \
    "$(wc -c < "$d/status.html") bytes of HTML"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --ignore-certificate-errors --user-data-dir="$d/chromium" \
    --window-size="$W,$H" --screenshot="$top/$OUT" "$url" 2>"$d/chromium.log"
echo "status-screenshot: $OUT (${W}x$H, $N vhosts)"
