#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# demo.sh -- "make demo": serve a real TACK from Apache httpd and fetch it.
#
# Creates a throwaway certificate, a TACK key, a TACK for the certificate,
# a second key and its break signature; starts a private httpd with
# mod_tack on 127.0.0.1 (first free port of 18460-18469); fetches the TACK
# through a real TLS handshake with openssl s_client and prints it with
# `tack view`; checks it as a TACK client with `tack check`; stops the
# server.  Needs the module and the tool built (make all) and the packages
# of `make deps`.  Nothing outside a temporary directory is touched.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
APACHE2=${APACHE2:-/usr/sbin/apache2}
MODDIR=${MODDIR:-/usr/lib/apache2/modules}
TACK="$top/tack"
MODULE="$top/build/mod_tack.so"
PW=demo-password

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

[ -x "$TACK" ] || die "the tool is not built: run make"
[ -f "$MODULE" ] || die "the module is not built: run make"
[ -x "$APACHE2" ] || die "$APACHE2 missing: run make deps"

. "$(dirname "$0")/httpd-lib.sh"
port=$(free_port 18460 18469)
[ -n "$port" ] || die "no free port in 127.0.0.1:18460-18469"

dir=$(httpd_dir demo)
cleanup() { httpd_cleanup "$dir"; }
trap cleanup EXIT INT TERM

say "a throwaway certificate for demo.test"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -sha256 -days 90 -subj /CN=demo.test \
    -addext subjectAltName=DNS:demo.test \
    -addext basicConstraints=critical,CA:FALSE \
    -keyout "$dir/server.key" -out "$dir/server.crt" 2>/dev/null
echo "$dir/server.crt"

say "a TACK key, and a TACK for the certificate"
"$TACK" genkey -p "$PW" -o "$dir/tack-key.pem"
"$TACK" sign -k "$dir/tack-key.pem" -p "$PW" -c "$dir/server.crt" -e 60d \
    -o "$dir/tack.pem"

say "an old, compromised key and its break signature"
"$TACK" genkey -p "$PW" -o "$dir/old-key.pem"
"$TACK" break -k "$dir/old-key.pem" -p "$PW" -o "$dir/breaksigs.pem"

{
httpd_conf_head "$dir" "$port" 'warn tack:info' \
    mpm_event authz_core mime socache_shmcb ssl
cat <<EOF
TypesConfig /etc/mime.types
DocumentRoot $dir
LoadModule tack_module $MODULE
TackStateFile $dir/run/tack-state.json
SSLSessionCache shmcb:$dir/run/ssl_scache(512000)

<VirtualHost 127.0.0.1:$port>
    ServerName demo.test
    SSLEngine on
    SSLCertificateFile    server.crt
    SSLCertificateKeyFile server.key
    TackFile          tack.pem
    TackBreakSigsFile breaksigs.pem
    TackPinActivation on
</VirtualHost>
EOF
} > "$dir/httpd.conf"

say "the configuration (apache2 -t checks every TACK against the certificate)"
sed -n '/<VirtualHost/,/<\/VirtualHost>/p' "$dir/httpd.conf"
"$APACHE2" -f "$dir/httpd.conf" -t

say "starting httpd on 127.0.0.1:$port"
"$APACHE2" -f "$dir/httpd.conf" -k start
httpd_wait_up "$dir" ||
    { cat "$dir/logs/error.log" >&2; die "httpd did not start"; }
grep '\[tack:' "$dir/logs/error.log" || true

say "fetching TACK: openssl s_client -tls1_2 -serverinfo 62208"
openssl s_client -connect "127.0.0.1:$port" -servername demo.test -tls1_2 \
    -serverinfo 62208 -tlsextdebug </dev/null 2>/dev/null |
    sed -n '/-----BEGIN SERVERINFO FOR EXTENSION 62208-----/,/-----END SERVERINFO/p' \
    > "$dir/fetched.pem"
[ -s "$dir/fetched.pem" ] || die "the server sent no TACK extension"
cat "$dir/fetched.pem"

say "what the server sent, in human form (tack view)"
"$TACK" view "$dir/fetched.pem"

say "checked as a TACK client does (tack check)"
"$TACK" check "127.0.0.1:$port" --servername demo.test --tls1_2 --require

say "stopping httpd"
httpd_stop "$dir"
echo "demo: done"
