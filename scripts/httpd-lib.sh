# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# httpd-lib.sh -- sourced by demo.sh and preflight.sh: a private httpd in a
# temporary directory on a free port of 127.0.0.1.  The caller sets APACHE2
# and defines die().

# free_port FIRST LAST: print the first port of FIRST..LAST that nothing
# listens on at 127.0.0.1, or nothing when all are taken.
free_port() {
    p=$1
    while [ "$p" -le "$2" ]; do
        if perl -MIO::Socket::INET -e 'exit(IO::Socket::INET->new(
                LocalAddr => "127.0.0.1", LocalPort => $ARGV[0], Listen => 1,
                ReuseAddr => 1) ? 0 : 1)' "$p"; then
            echo "$p"
            return
        fi
        p=$((p + 1))
    done
}

# httpd_dir PREFIX: make the temporary directory (world-searchable, as the
# children run as nobody) and print its name.
httpd_dir() {
    d=$(mktemp -d "/tmp/mod_tack-$1.XXXXXX") || exit 1
    chmod 755 "$d"
    echo "$d"
}

# httpd_cleanup DIR: stop the httpd whose httpd.conf and httpd.pid are in
# DIR, wait up to 5 s for it to go, and remove DIR.
httpd_cleanup() {
    if [ -f "$1/httpd.pid" ]; then
        "$APACHE2" -f "$1/httpd.conf" -k stop >/dev/null 2>&1 || true
        i=0
        while [ -f "$1/httpd.pid" ] && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    fi
    rm -rf "$1"
}
