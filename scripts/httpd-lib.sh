# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# httpd-lib.sh -- sourced by demo.sh, preflight.sh and bench/lib.sh: a
# private httpd on a free port of 127.0.0.1 (the Perl suites' counterpart is
# t/lib/PrivateHttpd.pm).  The caller sets APACHE2 and MODDIR and writes
# DIR/httpd.conf (httpd_conf_head, then its own lines); the functions below
# read the pid file's and the error log's paths from it (absolute, as
# httpd_conf_head writes them), so every one takes DIR.  POSIX sh (dash
# and bash); every variable local.

# free_port FIRST LAST: print the first port of FIRST..LAST that nothing
# listens on at 127.0.0.1, or nothing when all are taken.
free_port() {
    local p=$1
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
    local d
    d=$(mktemp -d "/tmp/mod_tack-$1.XXXXXX") || exit 1
    chmod 755 "$d"
    echo "$d"
}

# httpd_conf_head DIR PORT LOGLEVEL MODULE...: print the lines every private
# Debian apache2 needs (it has no built-in MPM and no envvars), its run/ and
# logs/ directories made: runtime files and the pid file in DIR/run, the
# error log DIR/logs/error.log, 127.0.0.1:PORT, the children as nobody, and
# LoadModule for each MODULE (mpm_event, ssl, ...).
httpd_conf_head() {
    local dir=$1 port=$2 level=$3 m
    shift 3
    mkdir -p "$dir/run" "$dir/logs"
    cat <<EOF
ServerRoot "$dir"
DefaultRuntimeDir "$dir/run"
PidFile "$dir/run/httpd.pid"
ErrorLog "$dir/logs/error.log"
LogLevel $level
User nobody
Group nogroup
ServerName localhost
Listen 127.0.0.1:$port
EOF
    for m in "$@"; do
        echo "LoadModule ${m}_module $MODDIR/mod_$m.so"
    done
}

# httpd_conf_path DIR DIRECTIVE: the path DIR/httpd.conf gives DIRECTIVE
# (PidFile, ErrorLog), quotes removed; nothing and status 1 without one.
httpd_conf_path() {
    local v
    v=$(sed -n "s/^$2[ 	]\{1,\}\"\{0,1\}\([^\"]*\)\"\{0,1\}[ 	]*\$/\1/p" \
        "$1/httpd.conf" 2>/dev/null | head -n 1)
    [ -n "$v" ] && echo "$v"
}

# httpd_pid DIR: the parent's pid from its pid file; status 1 without one.
httpd_pid() {
    local f
    f=$(httpd_conf_path "$1" PidFile) && cat "$f" 2>/dev/null
}

# httpd_error_log DIR: the error log's path.
httpd_error_log() { httpd_conf_path "$1" ErrorLog; }

# httpd_wait_up DIR: wait up to 10 s until the error log says the server is
# up ("resuming normal operations"; the listening socket is bound long
# before); status 1 if it did not.
httpd_wait_up() {
    local log n=0
    log=$(httpd_error_log "$1") || return 1
    until grep -q 'resuming normal operations' "$log" 2>/dev/null; do
        n=$((n + 1))
        [ $n -lt 100 ] || return 1
        sleep 0.1
    done
}

# httpd_stop DIR: SIGTERM to the parent, wait until it has gone (30 s: a
# benchmark's 10,000 vhosts take their time), then SIGKILL; nothing when it
# does not run.
httpd_stop() {
    local pid n=0
    pid=$(httpd_pid "$1") || return 0
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null; do
        n=$((n + 1))
        if [ $n -ge 300 ]; then
            kill -KILL "$pid" 2>/dev/null
            return 0
        fi
        sleep 0.1
    done
}

# httpd_cleanup DIR: httpd_stop, and remove DIR.
httpd_cleanup() {
    httpd_stop "$1"
    rm -rf "$1"
}
