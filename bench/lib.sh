# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# lib.sh -- shared by the bench/*.sh scripts (sourced, not run).
#
# Everything runs on 127.0.0.1, ports 18500-18599, with private httpd
# instances under $OUT/srv/<name>; nothing of the system's Apache is used but
# its binary and modules.  Environment knobs (all optional):
#   BENCH_QUICK=1        fewer rounds and sizes: a smoke run of a few minutes
#   BENCH_ROUNDS=N       A/B rounds per comparison (default 10, quick 3)
#   BENCH_SERVER_CPU=0   core the servers are pinned to
#   BENCH_CLIENT_CPU=1   core the load generator is pinned to
#   BENCH_OUT=DIR        scratch and result fragments (default bench/out)
#   BENCH_LOCK=FILE      the machine's suite lock, taken (flock) around every
#                        timed section and every private httpd of the signing
#                        and callgrind benchmarks (default
#                        /tmp/mod-tack-ports.lock, the one the test suites
#                        take; empty: no lock)

set -u

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$BENCH_DIR/.." && pwd)
OUT=${BENCH_OUT:-$BENCH_DIR/out}
LOADGEN=$TOP/build/loadgen
GENCERTS=$TOP/build/gencerts
# run-all.sh snapshots the module and the tool into $OUT/snap at the start,
# so that a rebuild by someone else during a 20-minute run cannot mix two
# versions in one report.
TACK=${BENCH_TACK:-$TOP/tack}
MODULE=${BENCH_MODULE:-$TOP/build/mod_tack.so}
APACHE=${APACHE:-/usr/sbin/apache2}
MODDIR=${MODDIR:-/usr/lib/apache2/modules}
QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
    ROUNDS=${BENCH_ROUNDS:-3}
else
    ROUNDS=${BENCH_ROUNDS:-10}
fi
SRV_CPU=${BENCH_SERVER_CPU:-0}
CLI_CPU=${BENCH_CLIENT_CPU:-1}
PW=bench-password

mkdir -p "$OUT"

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# now_ns: monotonic enough for intervals of milliseconds and more.
now_ns() { date +%s%N; }

# median: the median of the numbers on stdin (one a line); "nan" if none.
median() {
    sort -g | awk '{ a[NR] = $1 }
        END { if (NR == 0) { print "nan"; exit }
              if (NR % 2) { print a[(NR + 1) / 2] }
              else { printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 } }'
}

# minmax: "min..max" of the numbers on stdin.
minmax() {
    sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
        END { if (NR) printf "%.4g..%.4g\n", lo, hi; else print "nan" }'
}

# calc EXPR: floating-point arithmetic with awk.
calc() { awk "BEGIN { printf \"%.6g\n\", $* }"; }

# fmt DIGITS NUMBER
fmt() { awk -v d="$1" -v x="$2" 'BEGIN { if (x == "nan" || x == "") print "n/a"; else printf "%.*f\n", d, x }'; }

# kv KEY LINE: the value of KEY=... in a RESULT line.
kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

need_loadgen() { [ -x "$LOADGEN" ] || die "$LOADGEN missing: run make bench-build"; }
have_module() { [ -f "$MODULE" ]; }
have_tool() { [ -x "$TACK" ]; }

# ---- private httpd ---------------------------------------------------------

# The shell's one private-httpd helper (also demo.sh's and preflight.sh's).
APACHE2=$APACHE
# shellcheck source=../scripts/httpd-lib.sh
. "$TOP/scripts/httpd-lib.sh"

# httpd_write_conf DIR PORT WITH_MODULE VHOSTS_FILE [LOGLEVEL]
# A private server: one child of mpm_event with a fixed 64 threads (no spare
# thread or process management, so every round measures the same processes),
# no session cache, no tickets (every handshake is a full one).
httpd_write_conf() {
    local dir=$1 port=$2 with_module=$3 vhosts=$4 level=${5:-notice}
    mkdir -p "$dir/htdocs"
    : > "$dir/htdocs/index.html"
    {
        httpd_conf_head "$dir" "$port" "$level" \
            mpm_event authz_core mime socache_shmcb ssl
        if [ "$with_module" = 1 ]; then
            echo "LoadModule tack_module $MODULE"
            echo "TackStateFile $dir/tack-state.json"
        fi
        cat <<EOF
TypesConfig /etc/mime.types
DocumentRoot "$dir/htdocs"
<Directory "$dir/htdocs">
    Require all granted
</Directory>
StartServers 1
ServerLimit 1
ThreadLimit 64
ThreadsPerChild 64
MaxRequestWorkers 64
MinSpareThreads 1
MaxSpareThreads 64
MaxConnectionsPerChild 0
SSLSessionCache none
SSLSessionTickets off
SSLRandomSeed startup builtin
SSLRandomSeed connect builtin
SSLProtocol -all +TLSv1.2 +TLSv1.3
EOF
        cat "$vhosts"
    } > "$dir/httpd.conf"
}

# httpd_start DIR [CPU]: start the server pinned to CPU (default $SRV_CPU).
httpd_start() {
    local dir=$1 cpu=${2:-$SRV_CPU}
    rm -f "$dir/run/httpd.pid"
    taskset -c "$cpu" "$APACHE" -f "$dir/httpd.conf" -k start \
        || die "httpd in $dir did not start: $(tail -5 "$dir/logs/error.log")"
}

# httpd_pid DIR and httpd_stop DIR (waits until the parent has gone):
# scripts/httpd-lib.sh's.

# httpd_pids DIR: the parent and its children.
httpd_pids() {
    local pid
    pid=$(httpd_pid "$1") || return 0
    echo "$pid"
    ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' '
}

# httpd_children DIR
httpd_children() {
    local pid
    pid=$(httpd_pid "$1") || return 0
    ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' '
}

# server_cpu_ns DIR: nanoseconds on CPU so far, every thread of the parent
# and its children (/proc/PID/task/*/schedstat, first field).  The thread set
# is fixed by the MPM settings above, so differences are exact.
server_cpu_ns() {
    local p files=""
    for p in $(httpd_pids "$1"); do
        files="$files /proc/$p/task/*/schedstat"
    done
    # shellcheck disable=SC2086
    cat $files 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# mem_kib PID FIELD: a field of /proc/PID/smaps_rollup or status, in KiB
# (Rss, Pss, Private_Dirty, ... from smaps_rollup; VmRSS, VmHWM from status).
mem_kib() {
    local pid=$1 field=$2
    case $field in
    Vm*) awk -v f="$field:" '$1 == f { print $2 }' "/proc/$pid/status" ;;
    Private)
        awk '$1 == "Private_Clean:" || $1 == "Private_Dirty:" { s += $2 }
             END { print s }' "/proc/$pid/smaps_rollup" ;;
    *) awk -v f="$field:" '$1 == f { print $2 }' "/proc/$pid/smaps_rollup" ;;
    esac
}

# loadgen ARGS...: run the load generator on the client core.
loadgen() { taskset -c "$CLI_CPU" "$LOADGEN" "$@"; }

# wait_ready PORT [NAME]: one handshake, retrying while the port refuses.
wait_ready() {
    local port=$1 name=${2:-}
    if [ -n "$name" ]; then
        loadgen -q -n 1 --await 120 --timeout 120 --tls any -s "$name" \
            "127.0.0.1:$port" > /dev/null
    else
        loadgen -q -n 1 --await 120 --timeout 120 --tls any \
            "127.0.0.1:$port" > /dev/null
    fi
}

# gen_vhosts N PORT SD: N name-based SSL vhosts on 127.0.0.1:PORT,
# v00001.bench.test on, with gencerts' certificates in SD/certs (the
# configuration bench-signing.sh and restart-rss.sh measure).
gen_vhosts() {
    awk -v n="$1" -v port="$2" -v sd="$3" 'BEGIN {
        for (i = 1; i <= n; i++) {
            name = sprintf("v%05d.bench.test", i)
            printf "<VirtualHost 127.0.0.1:%d>\n    ServerName %s\n", port, name
            printf "    SSLEngine on\n"
            printf "    SSLCertificateFile %s/certs/%s.crt\n", sd, name
            printf "    SSLCertificateKeyFile %s/certs/%s.key\n", sd, name
            printf "</VirtualHost>\n"
        }
    }'
}

# ---- keys, certificates, TACKs ---------------------------------------------

# make_cert DIR NAME TYPE(ec|rsa): DIR/NAME.crt and DIR/NAME.key.
make_cert() {
    local dir=$1 name=$2 type=$3 alg
    mkdir -p "$dir"
    [ -f "$dir/$name.crt" ] && return 0
    if [ "$type" = rsa ]; then
        alg="-newkey rsa:2048"
    else
        alg="-newkey ec -pkeyopt ec_paramgen_curve:P-256"
    fi
    # shellcheck disable=SC2086
    openssl req -x509 $alg -nodes -keyout "$dir/$name.key" \
        -out "$dir/$name.crt" -subj "/CN=$name" -days 365 \
        -addext "subjectAltName=DNS:$name" \
        -addext basicConstraints=critical,CA:FALSE 2> /dev/null \
        || die "openssl req failed for $name"
}

# make_tack_key DIR: DIR/tack.key (the TACK key) and DIR/breaks.pem, two
# break signatures of two other (retired) TACK keys.
make_tack_keys() {
    local dir=$1 i
    mkdir -p "$dir"
    [ -f "$dir/breaks.pem" ] && return 0
    "$TACK" genkey -p "$PW" -o "$dir/tack.key" > /dev/null 2>&1 \
        || die "tack genkey failed"
    : > "$dir/breaks.pem.tmp"
    for i in 1 2; do
        "$TACK" genkey -p "$PW" -o "$dir/old$i.key" > /dev/null 2>&1 \
            || die "tack genkey failed"
        "$TACK" break -k "$dir/old$i.key" -p "$PW" -o "$dir/break$i.pem" \
            > /dev/null 2>&1 || die "tack break failed"
        cat "$dir/break$i.pem" >> "$dir/breaks.pem.tmp"
    done
    mv "$dir/breaks.pem.tmp" "$dir/breaks.pem"
}

# machine_line: one line describing the machine.
machine_line() {
    printf '%s, %s cores, %s MiB RAM, Linux %s' \
        "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" \
        "$(nproc)" "$(awk '/MemTotal/ { printf "%d", $2 / 1024 }' /proc/meminfo)" \
        "$(uname -r)"
}

# proc_cpu_ms PID: user + system CPU time of the process so far, in ms
# (its threads included, its children not).
proc_cpu_ms() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1000 / hz }' "/proc/$1/stat"
}

# ---- the machine's suite lock -----------------------------------------------
# lock_begin / lock_end: flock $LOCK around a timed section or a private
# httpd's life.  The unlock is explicit (flock -u on the shared open file
# description), so a process that inherited fd 9 (an httpd, its background
# signing process) cannot keep the lock; servers are started with 9>&- all
# the same.  LOCK_WAIT_MS: how long lock_begin waited.
LOCK=${BENCH_LOCK-/tmp/mod-tack-ports.lock}
LOCK_WAIT_MS=0
lock_begin() {
    local t0
    LOCK_WAIT_MS=0
    [ -n "$LOCK" ] || return 0
    exec 9>> "$LOCK"
    t0=$(now_ns)
    flock 9
    LOCK_WAIT_MS=$((($(now_ns) - t0) / 1000000))
}
lock_end() {
    [ -n "$LOCK" ] || return 0
    flock -u 9
    exec 9>&-
}
load1() { cut -d' ' -f1 /proc/loadavg; }
