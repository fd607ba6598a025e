#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# bench-callgrind.sh -- benchmark 2: instructions executed per handshake,
# counted by valgrind's callgrind on `apache2 -X` (one process), so the
# figures do not depend on the machine's load.
#
# Part A, inside the module: --toggle-collect='mt_cb_*' collects only what
# runs inside mod_tack's OpenSSL callbacks (and what they call).  N asking
# handshakes in TLS 1.2 and N in TLS 1.3; instructions / handshakes is the
# module's cost per handshake.  The list of functions that ran inside the
# callbacks must contain no allocator (malloc, apr_palloc, ...) and no lock
# (pthread_mutex, CRYPTO_THREAD_*lock, ...).
#
# Part A2, the TACK from the background's shared memory: a vhost with no
# TackFile, a server-level TackSigningKey and an EMPTY TackStore, so the
# start leaves its certificate to the background process (71502d9), which
# signs it and publishes the answer in shared memory; once the error log
# has the background's TACK00077, the same handshakes as in part A, each
# checked byte for byte against the TACK the background wrote to the store,
# are counted the same way (--toggle-collect='mt_cb_*', the same allocator
# and lock check): the handshake's `slot->late && ready` path.
#
# Every private httpd (each valgrind run) holds the machine's suite lock,
# flock $BENCH_LOCK (lib.sh), from its start to its end.
#
# Part B, the whole connection: instructions inside ap_run_pre_connection +
# ap_run_process_connection (SSL_new, the handshake, the SNI switch, reading
# to EOF) per connection, for a (mod_ssl alone), b0 (mod_tack loaded, client
# not asking), b (mod_tack, asking) and c (ServerInfoFile, asking).  Each is
# the difference of two runs of N1 and N1+N connections, so one-time costs
# (first handshake, lazy initialisation) cancel out.  Accept, lingering close
# and pool clean-up run outside these hooks and are the same in all cases.
#
# Writes $OUT/callgrind.{md,verdicts,tsv}; prints figures and one verdict.
. "$(dirname "$0")/lib.sh"

N=${BENCH_CG_N:-$([ "$QUICK" = 1 ] && echo 30 || echo 100)}
N1=${BENCH_CG_N1:-10}
KEYS=${BENCH_CG_KEYS:-ec rsa}
TLSV=${BENCH_CG_TLS:-1.2 1.3}
PORT=18510
MD=$OUT/callgrind.md
VERD=$OUT/callgrind.verdicts
TSV=$OUT/callgrind.tsv
FORBIDDEN='malloc|calloc|realloc|free($|@)|CRYPTO_(malloc|zalloc|free|memdup|strdup)|apr_p(c)?alloc|apr_palloc|apr_psprintf|apr_pstr|apr_thread_mutex|apr_proc_mutex|apr_global_mutex|pthread_mutex|pthread_rwlock|pthread_spin|CRYPTO_THREAD_(read|write|un)lock|__lll_lock|futex|lock$'

need_loadgen
command -v valgrind > /dev/null || die "valgrind missing (apt-get install valgrind)"
: > "$VERD"
if ! have_module || ! have_tool; then
    printf '## 2. Instructions per handshake (callgrind)\n\nNot measured: module or tool missing.\n' > "$MD"
    echo "2. module instructions per handshake < 200, no allocation, no lock|not measured|NOT MEASURED" >> "$VERD"
    echo "VERDICT callgrind: NOT MEASURED (module or tool missing)"
    exit 0
fi

CGDIR=$OUT/srv/cg
mkdir -p "$CGDIR/out"
chmod 1777 "$CGDIR/out" # the server writes its profile as User nobody

# cg_serve CONF_NAME WITH_MODULE VHOSTFILE OUTFILE TOGGLES...: start apache2
# -X under callgrind, print its pid.
cg_start() {
    local with_module=$1 vhosts=$2 outfile=$3
    shift 3
    httpd_write_conf "$CGDIR" $PORT "$with_module" "$vhosts"
    : > "$CGDIR/logs/error.log"
    # Callgrind opens its output file again at exit, after httpd has
    # switched to User nobody: create it for nobody beforehand.
    rm -f "$outfile"
    install -m 0666 -o nobody /dev/null "$outfile"
    taskset -c "$SRV_CPU" valgrind --tool=callgrind --vgdb=no \
        --callgrind-out-file="$outfile" "$@" \
        "$APACHE" -X -f "$CGDIR/httpd.conf" > "$outfile.log" 2>&1 9>&- &
    echo $!
}
# The caller takes the lock (lock_begin) before $(cg_start ...), in its own
# shell, and cg_stop gives it back.

cg_stop() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null
    for i in $(seq 1 600); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    wait "$pid" 2>/dev/null
    lock_end
}

# cg_total FILE: the Ir total of a callgrind profile.
cg_total() { awk '/^totals:/ { print $2 } /^summary:/ { s = $2 } END { }' "$1" | head -1; }

# cb_annotate PROF: PROF.incl.txt and PROF.self.txt (callgrind_annotate,
# inclusive and exclusive) and PROF.functions, the names of the functions
# that ran inside the callbacks.
cb_annotate() {
    callgrind_annotate --inclusive=yes "$1" 2> /dev/null > "$1.incl.txt"
    callgrind_annotate "$1" 2> /dev/null > "$1.self.txt"
    cb_self "$1" | sed -E 's/^ *[0-9,]+ \([ 0-9.]+%\) +//; s/ \[.*$//; s/^.*://' |
        awk '!seen[$0]++' > "$1.functions"
}
# cb_self PROF: the exclusive list of PROF.self.txt, one function a line.
cb_self() {
    awk '/file:function/ { p = 1; next } p && /^-+$/ { next }
         p && /^$/ { if (n) exit; next } p { n++; print }' "$1.self.txt"
}
# cb_incl PROF FUNC: FUNC's inclusive instructions in PROF.incl.txt.
cb_incl() {
    awk -v f="$2" '$0 ~ f && $1 ~ /^[0-9,]+$/ { gsub(",", "", $1); print $1; exit }' "$1.incl.txt"
}

vhost() { # DIR EXTRA...
    local dir=$1
    shift
    printf '<VirtualHost 127.0.0.1:%s>\n    ServerName bench.test\n' "$PORT"
    printf '    SSLEngine on\n    SSLCertificateFile %s/bench.test.crt\n' "$dir"
    printf '    SSLCertificateKeyFile %s/bench.test.key\n' "$dir"
    printf '    SSLOpenSSLConfCmd NumTickets 0\n'
    for l in "$@"; do printf '    %s\n' "$l"; done
    printf '</VirtualHost>\n'
}

prepare_key() { # KEY: certificate, TACK, serverinfo, vhost files
    local key=$1 KD=$OUT/hs/$1
    make_cert "$KD" bench.test "$key"
    make_tack_keys "$OUT/hs"
    if [ ! -f "$KD/si.pem" ]; then
        "$TACK" sign -k "$OUT/hs/tack.key" -p "$PW" -c "$KD/bench.test.crt" \
            -e 30d -o "$KD/tack.pem" > /dev/null 2>&1 || die "tack sign failed"
        "$TACK" serverinfo -t "$KD/tack.pem" -b "$OUT/hs/breaks.pem" -a 1 \
            --v2 -o "$KD/si.pem" > /dev/null 2>&1 || die "tack serverinfo failed"
    fi
    vhost "$KD" > "$CGDIR/vh-$key-a.conf"
    vhost "$KD" "TackFile $KD/tack.pem" "TackBreakSigsFile $OUT/hs/breaks.pem" \
        "TackPinActivation on" "TackTLS13 on" > "$CGDIR/vh-$key-b.conf"
    vhost "$KD" "SSLOpenSSLConfCmd ServerInfoFile $KD/si.pem" > "$CGDIR/vh-$key-c.conf"
}

# ---- part A: inside the callbacks -------------------------------------------
prepare_key ec
prof=$CGDIR/out/callbacks.out
lock_begin
pid=$(cg_start 1 "$CGDIR/vh-ec-b.conf" "$prof" --toggle-collect='mt_cb_*')
args="-s bench.test -e $OUT/hs/ec/si.pem"
# shellcheck disable=SC2086
loadgen -q -n 1 --await 120 --timeout 120 --tls 1.2 $args "127.0.0.1:$PORT" > /dev/null \
    || { cg_stop "$pid"; die "callgrind server did not come up: $(tail -3 "$CGDIR/logs/error.log")"; }
total_hs=1
for tls in 1.2 1.3; do
    # shellcheck disable=SC2086
    out=$(loadgen -q -c 4 -n "$N" --timeout 60 --tls "$tls" $args "127.0.0.1:$PORT") \
        || { cg_stop "$pid"; die "loadgen failed under callgrind: $out"; }
    total_hs=$((total_hs + $(kv handshakes "$out")))
done
cg_stop "$pid"
cb_ir=$(cg_total "$prof")
cb_per=$(calc "$cb_ir / $total_hs")
cb_annotate "$prof"
add_ir=$(cb_incl "$prof" mt_cb_ext_add)
parse_ir=$(cb_incl "$prof" mt_cb_ext_parse)
bad=$(grep -E "$FORBIDDEN" "$prof.functions" | tr '\n' ' ')
funcs=$(tr '\n' ' ' < "$prof.functions")
echo "callbacks: $cb_ir instructions over $total_hs asking handshakes = $(fmt 1 "$cb_per") per handshake (add $(fmt 1 "$(calc "${add_ir:-0} / $total_hs")"), parse $(fmt 1 "$(calc "${parse_ir:-0} / $total_hs")"))"
echo "callbacks: functions executed: $funcs"
[ -n "$bad" ] && echo "callbacks: FORBIDDEN calls: $bad"

# ---- part A2: the TACK from the background's shared memory ------------------
# A server of its own (its own TackStateFile: part A's pins on another key
# must not count here), TackSigningKey with an empty store; LogLevel
# tack:info for TACK00077.
BGDIR=$OUT/srv/cg-bg
BG_TIMEOUT=${BENCH_CG_BG_TIMEOUT:-300}
bg_ok=0
bg_per="" bg_add="" bg_parse="" bg_bad="" bg_funcs="" bg_hs=0 bg_why=""
if [ "${BENCH_CG_BG:-1}" = 1 ]; then
    KD=$OUT/hs/ec
    rm -rf "$BGDIR/store"
    mkdir -p "$BGDIR/store" "$BGDIR/out"
    chmod 1777 "$BGDIR/out"
    rm -f "$BGDIR/tack-state.json"
    [ -f "$BGDIR/sign.key" ] || "$TACK" genkey -p "$PW" -o "$BGDIR/sign.key" > /dev/null 2>&1 ||
        die "tack genkey failed"
    printf '%s\n' "$PW" > "$BGDIR/pw"
    chmod 600 "$BGDIR/pw"
    {
        echo "TackStore $BGDIR/store"
        echo "TackSigningKey $BGDIR/sign.key"
        echo "TackSigningPassword file:$BGDIR/pw"
        vhost "$KD" "TackBreakSigsFile $OUT/hs/breaks.pem" "TackTLS13 on"
    } > "$BGDIR/vh-bg.conf"
    bprof=$BGDIR/out/background.out
    httpd_write_conf "$BGDIR" $PORT 1 "$BGDIR/vh-bg.conf" "notice tack:info"
    : > "$BGDIR/logs/error.log"
    rm -f "$bprof" "$bprof".*
    lock_begin
    # %p: the background process and its signer, forked from apache2 -X
    # under callgrind, write profiles of their own
    taskset -c "$SRV_CPU" valgrind --tool=callgrind --vgdb=no \
        --callgrind-out-file="$bprof.%p" --toggle-collect='mt_cb_*' \
        "$APACHE" -X -f "$BGDIR/httpd.conf" > "$bprof.log" 2>&1 9>&- &
    pid=$!
    # written at exit as User nobody (see cg_start)
    install -m 0666 -o nobody /dev/null "$bprof.$pid"
    t_end=$((EPOCHSECONDS + BG_TIMEOUT))
    until grep -q TACK00077 "$BGDIR/logs/error.log" 2> /dev/null; do
        if ! kill -0 "$pid" 2> /dev/null || [ "$EPOCHSECONDS" -ge "$t_end" ]; then
            bg_why="no TACK00077 within $BG_TIMEOUT s: $(grep -v notice "$BGDIR/logs/error.log" | tail -2 | cut -c1-300)"
            break
        fi
        sleep 0.5
    done
    sfile=$(ls "$BGDIR"/store/*.tack.pem 2> /dev/null | head -1)
    if [ -z "$bg_why" ] && [ -n "$sfile" ] &&
        "$TACK" serverinfo -t "$sfile" -b "$OUT/hs/breaks.pem" --v2 -o "$BGDIR/expect.pem" -f > /dev/null 2>&1; then
        args="-s bench.test -e $BGDIR/expect.pem"
        bg_hs=0
        for tls in 1.2 1.3; do
            # shellcheck disable=SC2086
            out=$(loadgen -q -c 4 -n "$N" --await 120 --timeout 60 --tls "$tls" $args "127.0.0.1:$PORT") ||
                { bg_why="loadgen failed (the served TACK is not the store's?): $out"; break; }
            bg_hs=$((bg_hs + $(kv handshakes "$out")))
        done
    elif [ -z "$bg_why" ]; then
        bg_why="no TACK file in $BGDIR/store after TACK00077"
    fi
    cg_stop "$pid"
    if [ -z "$bg_why" ]; then
        cp "$bprof.$pid" "$bprof" 2> /dev/null || bg_why="no profile $bprof.$pid"
    fi
    if [ -z "$bg_why" ]; then
        bg_ok=1
        bg_ir=$(cg_total "$bprof")
        bg_per=$(calc "$bg_ir / $bg_hs")
        cb_annotate "$bprof"
        bg_add=$(cb_incl "$bprof" mt_cb_ext_add)
        bg_parse=$(cb_incl "$bprof" mt_cb_ext_parse)
        bg_bad=$(grep -E "$FORBIDDEN" "$bprof.functions" | tr '\n' ' ')
        bg_funcs=$(tr '\n' ' ' < "$bprof.functions")
        echo "background: $bg_ir instructions over $bg_hs asking handshakes (TACK from shared memory) = $(fmt 1 "$bg_per") per handshake (add $(fmt 1 "$(calc "${bg_add:-0} / $bg_hs")"), parse $(fmt 1 "$(calc "${bg_parse:-0} / $bg_hs")"))"
        echo "background: functions executed: $bg_funcs"
        [ -n "$bg_bad" ] && echo "background: FORBIDDEN calls: $bg_bad"
    else
        log "callgrind: the background case was not measured: $bg_why"
        echo "background: not measured: $bg_why"
    fi
fi

# ---- part B: whole connections ----------------------------------------------
# cg_conn KEY TLS CASE COUNT: instructions in the connection hooks.
cg_conn() {
    local key=$1 tls=$2 case=$3 count=$4 with=0 vh args="" pid out f
    case $case in
    a) vh=a ;;
    b0) vh=b; with=1 ;;
    b) vh=b; with=1; args="-e $OUT/hs/$key/si.pem" ;;
    c) vh=c; args="-e $OUT/hs/$key/si.pem" ;;
    esac
    f=$CGDIR/out/conn-$key-$tls-$case-$count.out
    lock_begin
    pid=$(cg_start "$with" "$CGDIR/vh-$key-$vh.conf" "$f" \
        --toggle-collect=ap_run_pre_connection \
        --toggle-collect=ap_run_process_connection)
    # The first connection waits for the server to come up; it is one of
    # COUNT, identical to the others.
    # shellcheck disable=SC2086
    loadgen -q -n 1 --await 120 --timeout 120 --tls "$tls" -s bench.test $args \
        "127.0.0.1:$PORT" > /dev/null || { cg_stop "$pid"; die "server ($key $tls $case) did not come up"; }
    # shellcheck disable=SC2086
    out=$(loadgen -q -c 4 -n $((count - 1)) --timeout 60 --tls "$tls" -s bench.test \
        $args "127.0.0.1:$PORT") || { cg_stop "$pid"; die "loadgen failed ($key $tls $case): $out"; }
    cg_stop "$pid"
    cg_total "$f"
}

printf 'key\ttls\tcase\tn1_ir\tn2_ir\tper_conn\n' > "$TSV"
for key in $KEYS; do
    prepare_key "$key"
    for tls in $TLSV; do
        for case in a b0 b c; do
            i1=$(cg_conn "$key" "$tls" "$case" "$N1")
            i2=$(cg_conn "$key" "$tls" "$case" $((N1 + N)))
            per=$(calc "($i2 - $i1) / $N")
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$tls" "$case" "$i1" "$i2" "$per" >> "$TSV"
            log "callgrind: $key TLS $tls $case: $(fmt 0 "$per") instructions per connection"
        done
    done
done

get() { awk -F'\t' -v k="$1" -v t="$2" -v c="$3" '$1 == k && $2 == t && $3 == c { print $6 }' "$TSV"; }

verdict=PASS
awk -v x="$cb_per" 'BEGIN { exit !(x < 200) }' || verdict=FAIL
[ -z "$bad" ] || verdict=FAIL
{
    echo "## 2. Instructions per handshake (callgrind)"
    echo
    echo "\`valgrind --tool=callgrind\` on \`apache2 -X\` (one process, mpm_event),"
    echo "driven by the load generator; instruction counts do not depend on the"
    echo "machine's load."
    echo
    echo "### Inside mod_tack's callbacks"
    echo
    echo "\`--toggle-collect='mt_cb_*'\`: $total_hs handshakes asking for the TACK"
    echo "(ECDSA certificate, TACK + 2 break signatures; $N in TLS 1.2, $N in"
    echo "TLS 1.3, 1 to wait for the server)."
    echo
    echo "| | instructions | per handshake |"
    echo "|---|---|---|"
    echo "| all callbacks | $cb_ir | **$(fmt 1 "$cb_per")** |"
    echo "| mt_cb_ext_add (inclusive) | ${add_ir:-0} | $(fmt 1 "$(calc "${add_ir:-0} / $total_hs")") |"
    echo "| mt_cb_ext_parse (inclusive) | ${parse_ir:-0} | $(fmt 1 "$(calc "${parse_ir:-0} / $total_hs")") |"
    echo
    echo "Functions executed inside the callbacks (exclusive cost, whole run):"
    echo
    echo '```'
    cb_self "$prof"
    echo '```'
    echo
    if [ -z "$bad" ]; then
        echo "No allocator and no lock among them (checked against \`$FORBIDDEN\`)."
    else
        echo "**Forbidden calls inside the callbacks: $bad**"
    fi
    echo
    echo "Under valgrind, \`time()\` is a real system call (5 instructions in user"
    echo "space); natively it goes through the vDSO, a few dozen instructions."
    echo "A client that does not ask never reaches the callbacks: OpenSSL calls"
    echo "them only for a ClientHello carrying the extension."
    echo
    echo "### The TACK from the background's shared memory"
    echo
    if [ "$bg_ok" = 1 ]; then
        echo "A vhost with no TackFile under a server-level \`TackSigningKey\`"
        echo "(key file) and an empty \`TackStore\`: the start leaves its"
        echo "certificate to the background process, which signs it and publishes"
        echo "the answer in shared memory; measured once the error log had the"
        echo "background's \`TACK00077\`.  $bg_hs handshakes ($N in TLS 1.2, $N in"
        echo "TLS 1.3), each checked byte for byte against the TACK (+ the same 2"
        echo "break signatures) the background wrote to the store; no"
        echo "\`TackPinActivation\`."
        echo
        echo "| | instructions | per handshake |"
        echo "|---|---|---|"
        echo "| all callbacks | $bg_ir | **$(fmt 1 "$bg_per")** |"
        echo "| mt_cb_ext_add (inclusive) | ${bg_add:-0} | $(fmt 1 "$(calc "${bg_add:-0} / $bg_hs")") |"
        echo "| mt_cb_ext_parse (inclusive) | ${bg_parse:-0} | $(fmt 1 "$(calc "${bg_parse:-0} / $bg_hs")") |"
        echo
        echo '```'
        cb_self "$bprof"
        echo '```'
        echo
        if [ -z "$bg_bad" ]; then
            echo "No allocator and no lock among them (the same check)."
        else
            echo "**Forbidden calls inside the callbacks: $bg_bad**"
        fi
    else
        echo "Not measured: ${bg_why:-disabled (BENCH_CG_BG=0)}."
    fi
    echo
    echo "### Whole connection"
    echo
    echo "Instructions inside \`ap_run_pre_connection\` + \`ap_run_process_connection\`"
    echo "per connection (difference of runs with $N1 and $((N1 + N)) connections)."
    echo
    echo "| cert | TLS | a: mod_ssl, no ask | b0: mod_tack, no ask | b: mod_tack, ask | c: ServerInfoFile, ask | b − c | b/c | b0/a | b/a |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$MD"
for key in $KEYS; do
    for tls in $TLSV; do
        a=$(get "$key" "$tls" a); b0=$(get "$key" "$tls" b0)
        b=$(get "$key" "$tls" b); c=$(get "$key" "$tls" c)
        name=$([ "$key" = ec ] && echo "ECDSA P-256" || echo "RSA-2048")
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$tls" \
            "$(fmt 0 "$a")" "$(fmt 0 "$b0")" "$(fmt 0 "$b")" "$(fmt 0 "$c")" \
            "$(fmt 0 "$(calc "$b - $c")")" "$(fmt 4 "$(calc "$b / $c")")" \
            "$(fmt 4 "$(calc "$b0 / $a")")" "$(fmt 4 "$(calc "$b / $a")")" >> "$MD"
        echo "connection: $name TLS $tls: a=$(fmt 0 "$a") b0=$(fmt 0 "$b0") b=$(fmt 0 "$b") c=$(fmt 0 "$c") b/c=$(fmt 4 "$(calc "$b / $c")") b/a=$(fmt 4 "$(calc "$b / $a")")"
        echo "2. whole connection, $name TLS $tls: b/c instructions (informative)|$(fmt 4 "$(calc "$b / $c")") (b − c = $(fmt 0 "$(calc "$b - $c")"))|$(awk -v r="$(calc "$b / $c")" 'BEGIN { print (r <= 1.01) ? "PASS" : "FAIL" }')" >> "$VERD"
    done
done
echo "2. module instructions per handshake < 200, no allocation, no lock|$(fmt 1 "$cb_per")${bad:+, calls: $bad}|$verdict" >> "$VERD"
if [ "$bg_ok" = 1 ]; then
    bg_verdict=PASS
    awk -v x="$bg_per" 'BEGIN { exit !(x < 200) }' || bg_verdict=FAIL
    [ -z "$bg_bad" ] || bg_verdict=FAIL
    [ "$bg_verdict" = PASS ] || verdict=FAIL
    echo "2. the same, TACK served from the background's shared memory|$(fmt 1 "$bg_per")${bg_bad:+, calls: $bg_bad}|$bg_verdict" >> "$VERD"
elif [ "${BENCH_CG_BG:-1}" = 1 ]; then
    echo "2. the same, TACK served from the background's shared memory|not measured: $bg_why|NOT MEASURED" >> "$VERD"
fi
echo >> "$MD"
echo "Profiles: \`bench/out/srv/cg/out/\` (open with \`callgrind_annotate\` or kcachegrind)." >> "$MD"

echo "VERDICT callgrind: $verdict ($(fmt 1 "$cb_per") instructions per handshake in the callbacks${bg_per:+, $(fmt 1 "$bg_per") with the TACK from the background shared memory}${bad:+; forbidden calls: $bad}${bg_bad:+; forbidden calls (background): $bg_bad})"
