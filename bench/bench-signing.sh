#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# bench-signing.sh -- benchmark 5: TackSigningKey at scale.
#
# Since 71502d9 a start or graceful restart signs synchronously only what
# clients may hold a pin on (none here: no TackPinActivation); everything
# else is queued, and a background process (`tack-signing`, forked by the
# parent at the end of the pass) signs it, writes each TACK into the store
# and publishes it in shared memory, which the handshakes read: served as
# soon as signed, no restart.  It logs TACK00077 when it is done.
#
# Part 1, the server: N name-based SSL vhosts (default 10,000; the
# certificates of bench-scale.sh, each its own P-256 key), no TackFile,
# one server-level TackStore, in these configurations:
#   A    the same vhosts without mod_tack;
#   B1   TackSigningKey (a key file) and an EMPTY store: all N are left to
#        the background (signed by its signer, written into the store,
#        served from shared memory);
#   B2   TackSigningKey with a FULL store (the one B1 wrote): nothing to
#        sign, everything read from the store and verified -- "the same
#        restart with nothing to sign", the reference of the 1.10 target;
#   B1t  as B1 with the key in a SoftHSM2 token (pkcs11: URI);
#   B1r  as B1 with the key in a SoftHSM2 token behind `p11-kit server`
#        (a remote token: the module reaches it through p11-kit-client.so,
#        P11_KIT_SERVER_ADDRESS in httpd's environment; the server pinned
#        to the client core, standing in for another machine);
#   S    B2's full store without TackSigningKey: what the store alone
#        costs, so B2 - S is the signing key's cost when nothing is signed.
# Per round, the configurations in rotating order, each:
#   start-up  exec of `apache2 -DFOREGROUND` to the first handshake with the
#             last vhost (in B2 and S carrying a TACK; in B1* whatever it
#             carries, recorded);
#   all served (B1*)  exec to the background's TACK00077 in the error log,
#             confirmed once the clock has stopped by handshakes with the
#             last, the first, the middle and two random vhosts, each
#             carrying byte for byte the TACK of its store file, whose TACK
#             ID is the signing key's;
#   graceful  SIGUSR1 to the new generation's "resuming normal operations"
#             and a handshake after it.  In B1* the store is emptied (moved
#             aside, nothing deleted) right before the SIGUSR1, so that the
#             graceful leaves all N to the background again;
#   all served after the graceful (B1*)  SIGUSR1 to the next TACK00077,
#             confirmed as above.
# CPU: user + system time of the parent (/proc/PID/stat) across the
# start-up and across the graceful, and of the children it reaped by the
# time the background and its signers had gone (the background process
# with its signers; at a graceful also the old generation's child).
# Every configuration's start, graceful and stop runs under flock
# $BENCH_LOCK (lib.sh; the test suites' lock), a few minutes at most; the
# time spent waiting for it is recorded.
#
# Part 2, the tool: `tack sign -c CERTDIR -o DIR` of the same N
# certificates with the key in a file, in the SoftHSM2 token and in the
# remote token, alternating, a fresh output directory per round.
#
# Writes $OUT/signing.{tsv,tool.tsv,md,verdicts}; prints the figures and
# one verdict line.
. "$(dirname "$0")/lib.sh"

# 7 rounds of six configurations at 10,000 vhosts: about 35 minutes when the
# machine is as fast as on 2026-12-05 (a round ~4.5 min), 45 when slower.
N=${BENCH_SIGN_N:-$([ "$QUICK" = 1 ] && echo 1000 || echo 10000)}
SROUNDS=${BENCH_SIGN_ROUNDS:-$([ "$QUICK" = 1 ] && echo 3 || echo 7)}
TROUNDS=${BENCH_SIGN_TOOL_ROUNDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 2)}
CONFIGS=${BENCH_SIGN_CONFIGS:-A B1 B2 B1t B1r S}
# How long the background may take for all N (B1r at 10,000: a minute or two).
ALL_TIMEOUT=${BENCH_SIGN_ALL_TIMEOUT:-900}
PORT=18540
SD=$OUT/scale
GD=$OUT/signing
SRV=$OUT/srv/signing
TSV=$OUT/signing.tsv
TTSV=$OUT/signing.tool.tsv
MD=$OUT/signing.md
VERD=$OUT/signing.verdicts
SOFTHSM=/usr/lib/softhsm/libsofthsm2.so
P11CLIENT=/usr/lib/x86_64-linux-gnu/pkcs11/p11-kit-client.so
URI='pkcs11:token=tack;object=tackkey;type=private'
RURI="pkcs11:token=remote;object=tackkey;type=private?module-path=$P11CLIENT"
# B1* log at tack:info for TACK00036 and TACK00077 (in the parent two lines
# a pass, the background one a TACK); the others at notice: at info B2 and S
# would log a line per vhost in the pass (TACK00056, ~0.15 s at 10,000),
# a cost B1's parent does not have.
LOGLEVEL='notice tack:info'

need_loadgen
[ -x "$GENCERTS" ] || die "$GENCERTS missing: run make bench-build"
: > "$VERD"
if ! have_module || ! have_tool; then
    printf '## 5. TackSigningKey at scale\n\nNot measured: module or tool missing.\n' > "$MD"
    echo "5. graceful restart B1/B2 ≤ 1.10 at $N vhosts|not measured|NOT MEASURED" >> "$VERD"
    echo "VERDICT signing: NOT MEASURED (module or tool missing)"
    exit 0
fi
token=1
remote=1
if [ ! -e "$SOFTHSM" ] || ! command -v pkcs11-tool > /dev/null ||
    ! command -v softhsm2-util > /dev/null; then
    log "signing: softhsm2 or opensc missing: no token measurements"
    token=0
fi
if [ "$token" = 0 ] || [ ! -e "$P11CLIENT" ] || ! command -v p11-kit > /dev/null; then
    [ "$token" = 0 ] || log "signing: p11-kit or $P11CLIENT missing: no remote token measurements"
    remote=0
fi
[ "$token" = 1 ] || CONFIGS=$(echo " $CONFIGS " | sed 's/ B1t / /')
[ "$remote" = 1 ] || CONFIGS=$(echo " $CONFIGS " | sed 's/ B1r / /')
CONFIGS=$(echo $CONFIGS)
has_cfg() { echo " $CONFIGS " | grep -q " $1 "; }
is_b1() { case $1 in B1 | B1t | B1r) return 0 ;; esac; return 1; }

REPORT_ONLY=${BENCH_SIGN_REPORT_ONLY:-${BENCH_REPORT_ONLY:-0}}
P11_PID=""
P11_ADDR=""
p11_stop() {
    local i
    [ -n "$P11_PID" ] || return 0
    kill -TERM "$P11_PID" 2> /dev/null
    for i in $(seq 1 50); do
        kill -0 "$P11_PID" 2> /dev/null || break
        sleep 0.1
    done
    P11_PID=""
}
if [ "$REPORT_ONLY" != 1 ]; then
# ---- the fleet, the keys, the tokens ---------------------------------------
name_of() { printf 'v%05d.bench.test' "$1"; }
log "signing: $N certificates"
"$GENCERTS" -n "$N" -o "$SD/certs" || die "gencerts failed"
# Stores and signed directories of an earlier run go to a trash directory
# that is deleted only at the end: ext4 skips recently freed inodes, and
# creating 10,000 files right after deleting 10,000 costs seconds of system
# time (bench-tool.sh found it) that would land on B1's first round.
TRASH=$OUT/signing-trash.$$
mkdir -p "$TRASH"
[ -d "$GD" ] && mv "$GD" "$TRASH/old"
mkdir -p "$GD"
"$TACK" genkey -p "$PW" -o "$GD/tack.key" > /dev/null 2>&1 || die "tack genkey failed"
printf '%s\n' "$PW" > "$GD/pw"
chmod 600 "$GD/pw"
if [ "$token" = 1 ]; then
    mkdir -p "$GD/tokens"
    printf 'directories.tokendir = %s/tokens\nobjectstore.backend = file\nlog.level = ERROR\n' \
        "$GD" > "$GD/softhsm2.conf"
    export SOFTHSM2_CONF=$GD/softhsm2.conf
    # "tack" for B1t, "remote" (behind p11-kit server) for B1r
    for label in tack remote; do
        softhsm2-util --init-token --free --label "$label" --pin 1234 --so-pin 5678 \
            >> "$GD/token.log" 2>&1 || die "softhsm2-util failed (see $GD/token.log)"
        pkcs11-tool --module "$SOFTHSM" --token-label "$label" --login --pin 1234 \
            --keypairgen --key-type EC:prime256v1 --label tackkey --id 01 \
            >> "$GD/token.log" 2>&1 || die "pkcs11-tool failed (see $GD/token.log)"
    done
    printf '1234\n' > "$GD/pin"
    chmod 600 "$GD/pin"
fi
if [ "$remote" = 1 ]; then
    # The remote token: p11-kit server exporting the "remote" token on a
    # unix socket, pinned to the client core (another machine's CPU).
    mkdir -p "$GD/p11run"
    chmod 700 "$GD/p11run"
    XDG_RUNTIME_DIR=$GD/p11run taskset -c "$CLI_CPU" p11-kit server \
        --provider "$SOFTHSM" 'pkcs11:token=remote' > "$GD/p11-kit.out" 2> "$GD/p11-kit.err" ||
        die "p11-kit server failed: $(cat "$GD/p11-kit.err")"
    P11_ADDR=$(sed -n 's/^P11_KIT_SERVER_ADDRESS=\([^;]*\);.*/\1/p' "$GD/p11-kit.out")
    P11_PID=$(sed -n 's/^P11_KIT_SERVER_PID=\([0-9]*\);.*/\1/p' "$GD/p11-kit.out")
    [ -n "$P11_ADDR" ] && [ -n "$P11_PID" ] || die "p11-kit server said: $(cat "$GD/p11-kit.out")"
    log "signing: p11-kit server $P11_PID at $P11_ADDR"
fi
trap 'p11_stop' EXIT
# The TACK IDs the stores' TACKs must carry.
key_id() { # CFG
    case $1 in
    B1t) "$TACK" view "$URI" ;;
    B1r) P11_KIT_SERVER_ADDRESS=$P11_ADDR "$TACK" view "$RURI" ;;
    *) "$TACK" view "$GD/tack.key" ;;
    esac 2> /dev/null | sed -n 's/^TACK ID *= *//p' | head -1
}
declare -A KEYID
for cfg in $CONFIGS; do
    [ "$cfg" = A ] && continue
    KEYID[$cfg]=$(key_id "$cfg")
    [ -n "${KEYID[$cfg]}" ] || die "no TACK ID for $cfg's key"
done

# The first N certificates only (the directory may hold more), for the tool.
CERTDIR=$OUT/tool/certs-$N
if [ "$(find "$CERTDIR" -name '*.crt' 2> /dev/null | wc -l)" -ne "$N" ]; then
    rm -rf "$CERTDIR"
    mkdir -p "$CERTDIR"
    for i in $(seq 1 "$N"); do
        ln -s "$SD/certs/$(name_of "$i").crt" "$CERTDIR/"
    done
fi

# write_vhosts CFG FILE: the vhosts, and for B* the server-level directives.
write_vhosts() {
    local cfg=$1 file=$2
    {
        case $cfg in
        S) echo "TackStore $GD/store-B2" ;;
        B1 | B2 | B1t | B1r)
            echo "TackStore $GD/store-$cfg"
            case $cfg in
            B1t)
                echo "TackSigningKey \"$URI\""
                echo "TackSigningPassword file:$GD/pin"
                ;;
            B1r)
                echo "TackSigningKey \"$RURI\""
                echo "TackSigningPassword file:$GD/pin"
                ;;
            *)
                echo "TackSigningKey $GD/tack.key"
                echo "TackSigningPassword file:$GD/pw"
                ;;
            esac
            ;;
        esac
        gen_vhosts "$N" "$PORT" "$SD"
    } > "$file"
}

ELOG=$SRV/logs/error.log
resumed() { grep -c 'resuming normal operations' "$ELOG" 2> /dev/null; }
bg_done() { grep -c 'TACK00077' "$ELOG" 2> /dev/null; }
store_of() { case $1 in S) echo "$GD/store-B2" ;; *) echo "$GD/store-$1" ;; esac; }
stored() { find "$(store_of "$1")" -name '*.tack.pem' 2> /dev/null | wc -l; }
# store_file CFG I: vhost I's TACK file in CFG's store (NAME.ecdsa.HASH.tack.pem)
store_file() {
    local f
    for f in "$(store_of "$1")/$(name_of "$2")".*.tack.pem; do
        echo "$f"
        return
    done
}

# httpd_run CFG: start the server in the foreground, in the background of
# this shell; sets PPID_H.  Not holding fd 9 (the lock).
httpd_run() {
    if [ "$1" = B1r ]; then
        P11_KIT_SERVER_ADDRESS=$P11_ADDR taskset -c "$SRV_CPU" \
            "$APACHE" -f "$SRV/httpd.conf" -DFOREGROUND 9>&- &
    else
        taskset -c "$SRV_CPU" "$APACHE" -f "$SRV/httpd.conf" -DFOREGROUND 9>&- &
    fi
    PPID_H=$!
}

# answer CFG: one handshake with the last vhost, asking for a TACK; prints
# how many TACKs it carried (0 or 1).  In B2 and S it must carry one.
answer() {
    local res k end=$(($(date +%s) + 600))
    # --await in slices of 2 s, so that a server that died is noticed
    until res=$(loadgen -q -n 1 --await 2 --timeout 600 --tls 1.2 -x \
        -s "$(name_of "$N")" "127.0.0.1:$PORT" 2> /dev/null); do
        kill -0 "$PPID_H" 2> /dev/null && [ "$(date +%s)" -lt "$end" ] || return 1
    done
    k=$(kv tack_replies "$(echo "$res" | tail -1)")
    case $1 in B2 | S) [ "$k" = 1 ] || return 1 ;; esac
    echo "${k:-0}"
}

# wait_log FUNC COUNT: until the error log has COUNT lines of FUNC's
# pattern (resumed, bg_done), at most ALL_TIMEOUT seconds; status 1 on
# time-out or if the server died.  Every 10 ms it reads only what was
# appended since (at LogLevel tack:info the background logs a line per
# TACK: 4 MB at 10,000, too much to grep a hundred times a second).
wait_log() {
    local pat want=$2 end=$((EPOCHSECONDS + ALL_TIMEOUT)) pos=0 size n=0
    case $1 in resumed) pat='resuming normal operations' ;; *) pat=TACK00077 ;; esac
    while :; do
        size=$(stat -c %s "$ELOG")
        if [ "$size" -gt "$pos" ]; then
            n=$((n + $(tail -c +$((pos + 1)) "$ELOG" | head -c $((size - pos)) | grep -c "$pat")))
            pos=$size
        fi
        [ "$n" -lt "$want" ] || return 0
        [ "$EPOCHSECONDS" -lt "$end" ] || return 1
        kill -0 "$PPID_H" 2> /dev/null || return 1
        sleep 0.01
    done
}

# bg_seconds: the background's own figure in the last TACK00077.
bg_seconds() { grep 'TACK00077' "$ELOG" | tail -1 | sed -n 's/.* TACKs\{0,1\} in \([0-9.]*\) seconds.*/\1/p'; }
# queued K: "N left to the background" of the K-th TACK00036 (one key).
queued() { grep 'TACK00036' "$ELOG" | sed -n "$1{s/.*, \([0-9]*\) left to the background.*/\1/p}"; }

# bg_gone: wait (at most 30 s) until the parent has no background process
# or signer left (reaped), so that their CPU is in its children's.
bg_gone() {
    local i
    for i in $(seq 1 300); do
        ps -o comm= --ppid "$PPID_H" 2> /dev/null | grep -q '^tack-sign' || return 0
        sleep 0.1
    done
    log "signing: the background is still there after 30 s"
}

# confirm CFG R: untimed; the last, the first, the middle and two random
# vhosts each serve byte for byte the TACK of their store file, and the
# last one's TACK ID is the signing key's.
confirm() {
    local cfg=$1 r=$2 i f id
    for i in "$N" 1 $(((N + 1) / 2)) $(((r * 7919) % N + 1)) $(((r * 104729 + 17) % N + 1)); do
        f=$(store_file "$cfg" "$i")
        [ -f "$f" ] || die "$cfg: no $f in the store"
        "$TACK" serverinfo -t "$f" -o "$GD/expect-$cfg.pem" -f > /dev/null 2>&1 ||
            die "tack serverinfo $f failed"
        loadgen -q -n 1 --timeout 60 --tls 1.2 -s "$(name_of "$i")" \
            -e "$GD/expect-$cfg.pem" "127.0.0.1:$PORT" > /dev/null ||
            die "$cfg: $(name_of "$i") does not serve $f"
    done
    f=$(store_file "$cfg" "$N")
    id=$("$TACK" view "$f" 2> /dev/null | sed -n 's/^TACK ID *= *//p' | head -1)
    [ "$id" = "${KEYID[$cfg]}" ] || die "$cfg: $f is under key $id, not ${KEYID[$cfg]}"
}

# empty_store CFG TAG: move the store aside (deleted at the very end).
empty_store() {
    mv "$GD/store-$1" "$TRASH/store-$1-$2"
    mkdir "$GD/store-$1"
}

# children_cpu_ms PID: CPU of the children the process has reaped.
children_cpu_ms() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.0f\n", ($14 + $15) * 1000 / hz }' "/proc/$1/stat"
}

fail_round() { # CFG WHAT
    lock_end
    log "signing: $1: $2; the error log says:"
    grep -v 'resuming normal\|AH00558\|AH00489\|AH00094\|AH00493' "$ELOG" | tail -8 >&2
    die "$1: $2"
}

# one_round CFG ROUND: start, all served, graceful, all served, stop; one
# TSV line.
one_round() {
    local cfg=$1 r=$2 t0 t1 t1a t2 t3 t3a k k77 cpu0 cpu1 cpu2 ch0 ch1 ch2
    local bs="" bg="" ans0 ans1 q0="" q1="" w0=0 w1=0 p_rss ld wait_ms
    httpd_write_conf "$SRV" $PORT "$([ "$cfg" = A ] && echo 0 || echo 1)" \
        "$GD/vhosts-$cfg.conf" "$(is_b1 "$cfg" && echo "$LOGLEVEL" || echo notice)"
    if is_b1 "$cfg"; then
        [ "$(stored "$cfg")" -eq 0 ] || empty_store "$cfg" "$r-pre"
    fi
    case $cfg in B2 | S) touch "$GD/b2-mark" && sleep 0.01 ;; esac
    : > "$ELOG"
    lock_begin
    wait_ms=$LOCK_WAIT_MS
    ld=$(load1)
    t0=$(now_ns)
    httpd_run "$cfg"
    ans0=$(answer "$cfg") || fail_round "$cfg" "no handshake with $(name_of "$N") at start-up"
    t1=$(now_ns)
    cpu0=$(proc_cpu_ms "$PPID_H")
    p_rss=$(mem_kib "$PPID_H" VmRSS)
    if is_b1 "$cfg"; then
        wait_log bg_done 1 || fail_round "$cfg" "no TACK00077 within ${ALL_TIMEOUT} s of the start"
        t1a=$(now_ns)
        bs=$(bg_seconds)
        q0=$(queued 1)
        confirm "$cfg" "$r"
        bg_gone
        w0=$(stored "$cfg")
        [ "$w0" -eq "$N" ] || log "signing: $cfg round $r: $w0 TACKs in the store after the start, expected $N"
        empty_store "$cfg" "$r-start"
    else
        t1a=$t1
        [ "$cfg" = A ] || confirm "$cfg" "$r"
    fi
    ch0=$(children_cpu_ms "$PPID_H")
    k=$(resumed)
    k77=$(bg_done)
    t2=$(now_ns)
    cpu1=$(proc_cpu_ms "$PPID_H")
    ch1=$(children_cpu_ms "$PPID_H")
    kill -USR1 "$PPID_H"
    wait_log resumed $((k + 1)) || fail_round "$cfg" "no new generation after SIGUSR1"
    ans1=$(answer "$cfg") || fail_round "$cfg" "no handshake after the graceful restart"
    t3=$(now_ns)
    cpu2=$(proc_cpu_ms "$PPID_H")
    if is_b1 "$cfg"; then
        wait_log bg_done $((k77 + 1)) || fail_round "$cfg" "no TACK00077 within ${ALL_TIMEOUT} s of the graceful"
        t3a=$(now_ns)
        bg=$(bg_seconds)
        q1=$(queued 2)
        confirm "$cfg" "$r"
        w1=$(stored "$cfg")
        [ "$w1" -eq "$N" ] || log "signing: $cfg round $r: $w1 TACKs in the store after the graceful, expected $N"
    else
        t3a=$t3
        [ "$cfg" = A ] || confirm "$cfg" "$r"
    fi
    bg_gone
    ch2=$(children_cpu_ms "$PPID_H")
    kill -TERM "$PPID_H"
    wait "$PPID_H" 2> /dev/null
    lock_end
    case $cfg in
    B2 | S) w0=$(find "$GD/store-B2" -name '*.tack.pem' -newer "$GD/b2-mark" | wc -l) ;;
    esac
    if grep -qE '\[[a-z_]*:(error|crit|alert|emerg)\]' "$ELOG"; then
        log "signing: errors logged ($cfg):"
        grep -E '\[[a-z_]*:(error|crit|alert|emerg)\]' "$ELOG" | head -3 >&2
    fi
    cp "$ELOG" "$GD/error-$cfg-$r.log"
    printf '%s\t' "$N" "$cfg" "$r" \
        "$(calc "($t1 - $t0) / 1e6")" "$(calc "($t1a - $t0) / 1e6")" "${bs:-}" \
        "$cpu0" "$ch0" \
        "$(calc "($t3 - $t2) / 1e6")" "$(calc "($t3a - $t2) / 1e6")" "${bg:-}" \
        "$((cpu2 - cpu1))" "$((ch2 - ch1))" \
        "${q0:-}" "${q1:-}" "$w0" "$w1" "$ans0" "$ans1" "$p_rss" "$ld" >> "$TSV"
    printf '%s\n' "$wait_ms" >> "$TSV"
    log "signing: round $r $cfg: start $(calc "($t1 - $t0) / 1e6") ms (all served $(calc "($t1a - $t0) / 1e6")), graceful $(calc "($t3 - $t2) / 1e6") ms (all served $(calc "($t3a - $t2) / 1e6")), parent CPU $cpu0 / $((cpu2 - cpu1)) ms, queued ${q0:--}/${q1:--}, load $ld, waited $wait_ms ms for the lock"
}

trap 'httpd_stop "$SRV"; p11_stop' EXIT
for cfg in $CONFIGS; do
    write_vhosts "$cfg" "$GD/vhosts-$cfg.conf"
    case $cfg in A | S) ;; *) mkdir -p "$GD/store-$cfg" ;; esac
done
# B2's full store: what a B1 start writes (one untimed start, also a warm-up
# of the page cache for the certificates): its background signs everything.
if has_cfg B2 || has_cfg S; then
    mkdir -p "$GD/store-B2"
    log "signing: filling B2's store (one start, untimed, until TACK00077)"
    httpd_write_conf "$SRV" $PORT 1 "$GD/vhosts-B2.conf" "$LOGLEVEL"
    : > "$ELOG"
    lock_begin
    httpd_run B2
    answer B1 > /dev/null || fail_round B2 "filling B2's store: no handshake"
    wait_log bg_done 1 || fail_round B2 "filling B2's store: no TACK00077"
    bg_gone
    kill -TERM "$PPID_H"
    wait "$PPID_H" 2> /dev/null
    lock_end
    [ "$(stored B2)" -eq "$N" ] || die "B2's store has $(stored B2) files, expected $N"
fi

printf 'vhosts\tcfg\tround\tstart_ms\tstart_all_ms\tstart_bg_s\tstart_cpu_ms\tstart_children_cpu_ms\tgraceful_ms\tgraceful_all_ms\tgraceful_bg_s\tgraceful_cpu_ms\tgraceful_children_cpu_ms\tqueued_start\tqueued_graceful\twritten_start\twritten_graceful\ttack_at_answer_start\ttack_at_answer_graceful\tparent_rss_kib\tload1\tlock_wait_ms\n' > "$TSV"
set -- $CONFIGS
ncfg=$#
log "signing: $N vhosts, $SROUNDS rounds of: $CONFIGS"
for r in $(seq 1 "$SROUNDS"); do
    # Rotate the order: each configuration runs first, second, ... in turn.
    order=""
    for j in $(seq 0 $((ncfg - 1))); do
        idx=$(((j + r - 1) % ncfg + 1))
        order="$order ${!idx}"
    done
    for cfg in $order; do
        one_round "$cfg" "$r"
    done
done
trap 'p11_stop' EXIT

# ---- the tool: tack sign of N certificates, key file and tokens -------------
printf 'what\tround\twall_s\tuser_s\tsys_s\tload1\tlock_wait_ms\n' > "$TTSV"
TIMEFORMAT='%R %U %S'
TOOLS="file"
[ "$token" = 1 ] && TOOLS="$TOOLS token"
[ "$remote" = 1 ] && TOOLS="$TOOLS remote"
for r in $(seq 1 "$TROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order=$TOOLS; else order=$(echo "$TOOLS" | awk '{ for (i = NF; i; i--) printf "%s ", $i }'); fi
    for what in $order; do
        dest=$GD/sign-$what-$r
        mkdir -p "$dest"
        case $what in
        file) set -- -k "$GD/tack.key" -p "$PW" ;;
        token) set -- -k "$URI" -p 1234 ;;
        remote) set -- -k "$RURI" -p 1234 ;;
        esac
        sync
        lock_begin
        ld=$(load1)
        t=$({ time P11_KIT_SERVER_ADDRESS=$P11_ADDR taskset -c "$SRV_CPU,$CLI_CPU" \
            "$TACK" sign "$@" -e 90d -c "$CERTDIR" -o "$dest" --no-progress \
            > "$GD/sign-$what.log" 2>&1 9>&-; } 2>&1) ||
            { lock_end; die "tack sign ($what) failed: $(tail -3 "$GD/sign-$what.log")"; }
        lock_end
        k=$(find "$dest" -name '*.tack.pem' | wc -l)
        [ "$k" -eq "$N" ] || die "tack sign ($what) wrote $k files, expected $N"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$what" "$r" $t "$ld" "$LOCK_WAIT_MS" >> "$TTSV"
        log "signing: tack sign ($what) round $r: $t (wall user sys)"
        mv "$dest" "$TRASH/"
    done
done
p11_stop
trap - EXIT
rm -rf "$TRASH"
else
    # BENCH_SIGN_REPORT_ONLY=1 (or BENCH_REPORT_ONLY=1): the report from the
    # last run's rounds in $OUT, nothing measured.
    [ -s "$TSV" ] || die "no $TSV to report from"
    N=$(awk -F'\t' 'NR == 2 { print $1 }' "$TSV")
    CONFIGS=$(awk -F'\t' 'NR > 1 && !($2 in s) { s[$2]; printf "%s ", $2 }' "$TSV")
    SROUNDS=$(awk -F'\t' 'NR > 1 && $3 > m { m = $3 } END { print m }' "$TSV")
    TROUNDS=$(awk -F'\t' 'NR > 1 && $2 > m { m = $2 } END { print m + 0 }' "$TTSV" 2> /dev/null)
    TOOLS=$(awk -F'\t' 'NR > 1 && !($1 in s) { s[$1]; printf "%s ", $1 }' "$TTSV" 2> /dev/null)
    echo " $TOOLS " | grep -q ' token ' || token=0
fi

# ---- the report --------------------------------------------------------------
# col CFG FIELD: the field of CFG's rounds, one a line.
col() {
    awk -F'\t' -v c="$1" -v f="$2" 'NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $2 == c && $idx[f] != "" { print $idx[f] }' "$TSV"
}
med() { col "$1" "$2" | median; }
spread() { col "$1" "$2" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.0f..%.0f\n", lo, hi; else print "nan" }'; }
# ratios CFG REF FIELD: per-round CFG/REF ratios (paired within the round).
ratios() {
    awk -F'\t' -v c="$1" -v ref="$2" -v f="$3" 'NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $2 == ref { a[$3] = $idx[f] }
        $2 == c { b[$3] = $idx[f] }
        END { for (r in a) if ((r in b) && a[r] > 0) printf "%.6f\n", b[r] / a[r] }' "$TSV"
}
pratio() { ratios "$1" "$2" "$3" | median; }
rspread() { ratios "$1" "$2" "$3" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.3f..%.3f\n", lo, hi; else print "nan" }'; }
# above CFG REF FIELD LIMIT: how many per-round ratios exceed LIMIT
above() { ratios "$1" "$2" "$3" | awk -v l="$4" '$1 > l { k++ } END { print k + 0 }'; }
nrat() { ratios "$1" "$2" "$3" | wc -l; }
tcol() { awk -F'\t' -v w="$1" -v f="$2" '$1 == w { print $f }' "$TTSV"; }
ratio_cell() { # CFG REF FIELD
    if [ "$1" = "$2" ]; then echo "1 | "; return; fi
    has_cfg "$2" || { echo "n/a | "; return; }
    printf '%s | %s\n' "$(fmt 3 "$(pratio "$1" "$2" "$3")")" "$(rspread "$1" "$2" "$3")"
}

desc() {
    case $1 in
    A) echo "A: the vhosts without mod_tack" ;;
    B1) echo "B1: TackSigningKey (key file), empty TackStore: $N left to the background" ;;
    B2) echo "B2: TackSigningKey (key file), full TackStore: $N verified, nothing to sign (the reference of the 1.10 target)" ;;
    B1t) echo "B1t: TackSigningKey in a SoftHSM2 token, empty TackStore: $N left to the background" ;;
    B1r) echo "B1r: TackSigningKey in a SoftHSM2 token behind \`p11-kit server\` (remote token through p11-kit-client.so), empty TackStore: $N left to the background" ;;
    S) echo "S: B2's full TackStore without TackSigningKey: $N verified (B2 − S is what the key costs when nothing is signed)" ;;
    esac
}
loads=$( (for c in $CONFIGS; do col "$c" load1; done; for w in $TOOLS; do tcol "$w" 6; done) | minmax)
waits=$( (for c in $CONFIGS; do col "$c" lock_wait_ms; done; for w in $TOOLS; do tcol "$w" 7; done) | awk '$1 > 1000 { k++ } END { print k + 0 }')
REF=B2
has_cfg B2 || REF=A
{
    echo "## 5. TackSigningKey at scale"
    echo
    echo "$N name-based SSL vhosts on one port, each with its own ECDSA P-256"
    echo "certificate (those of benchmark 3), no TackFile; B adds"
    echo "\`LoadModule tack_module\`, a server-level \`TackStore\` and"
    echo "\`TackSigningKey\` + \`TackSigningPassword file:\`; no"
    echo "\`TackPinActivation\`, so no name is pinned and a start or graceful"
    echo "restart waits for no signature: everything the store lacks is left to"
    echo "the background process.  $SROUNDS rounds, each running every"
    echo "configuration once in a rotating order (each configuration's start,"
    echo "graceful and stop under the suite lock, \`flock ${LOCK:-(none)}\`);"
    echo "medians; ratios are medians of the per-round ratios (paired within a"
    echo "round), with their min..max."
    echo
    echo "- **answers**: start-up, exec of \`apache2 -DFOREGROUND\` to the first"
    echo "  handshake with the last vhost (in B2 and S carrying its TACK);"
    echo "  graceful, SIGUSR1 to the new generation's \"resuming normal"
    echo "  operations\" and a handshake with the last vhost after it."
    echo "- **all served** (B1, B1t, B1r): exec or SIGUSR1 to the background's"
    echo "  \`TACK00077\` in the error log; then, clock stopped, the last, the"
    echo "  first, the middle and two random vhosts each serve byte for byte the"
    echo "  TACK the background wrote to their store file, under the signing"
    echo "  key's TACK ID.  In B2 and S all are served when the server answers."
    echo "- B1's graceful is a graceful with an empty store: the store its"
    echo "  start's background filled is moved aside right before SIGUSR1."
    echo
    for c in $CONFIGS; do echo "- $(desc "$c")"; done
    echo
    echo "### Answering new connections"
    echo
    echo "| configuration | start ms | min..max | start /$REF | min..max | start /A | min..max | graceful ms | min..max | graceful /$REF | min..max | graceful /A | min..max | parent CPU ms, start | parent CPU ms, graceful | graceful parent CPU /$REF | min..max |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for c in $CONFIGS; do
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$c" \
            "$(fmt 0 "$(med "$c" start_ms)")" "$(spread "$c" start_ms)" \
            "$(ratio_cell "$c" "$REF" start_ms)" "$(ratio_cell "$c" A start_ms)" \
            "$(fmt 0 "$(med "$c" graceful_ms)")" "$(spread "$c" graceful_ms)" \
            "$(ratio_cell "$c" "$REF" graceful_ms)" "$(ratio_cell "$c" A graceful_ms)" \
            "$(fmt 0 "$(med "$c" start_cpu_ms)")" "$(fmt 0 "$(med "$c" graceful_cpu_ms)")" \
            "$(ratio_cell "$c" "$REF" graceful_cpu_ms)"
    done
    echo
    echo "Parent CPU: user + system time of the httpd parent (/proc/PID/stat;"
    echo "started with -DFOREGROUND, so both start-up passes run in it) up to the"
    echo "first answer, and across the graceful (SIGUSR1 to the answer)."
    echo
    echo "### Until all $N TACKs are served"
    echo
    echo "| configuration | start → all served, ms | min..max | background's own s (TACK00077) | graceful → all served, ms | min..max | background's own s | reaped children CPU ms, start | reaped children CPU ms, graceful | left to the background (start / graceful) | written to the store (start / graceful) | TACK in the first answer (start / graceful, rounds) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for c in $CONFIGS; do
        [ "$c" = A ] && continue
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s / %s of %s |\n' "$c" \
            "$(fmt 0 "$(med "$c" start_all_ms)")" "$(spread "$c" start_all_ms)" \
            "$(fmt 1 "$(med "$c" start_bg_s)")" \
            "$(fmt 0 "$(med "$c" graceful_all_ms)")" "$(spread "$c" graceful_all_ms)" \
            "$(fmt 1 "$(med "$c" graceful_bg_s)")" \
            "$(fmt 0 "$(med "$c" start_children_cpu_ms)")" "$(fmt 0 "$(med "$c" graceful_children_cpu_ms)")" \
            "$(fmt 0 "$(med "$c" queued_start)")" "$(fmt 0 "$(med "$c" queued_graceful)")" \
            "$(fmt 0 "$(med "$c" written_start)")" "$(fmt 0 "$(med "$c" written_graceful)")" \
            "$(col "$c" tack_at_answer_start | awk '{ s += $1 } END { print s + 0 }')" \
            "$(col "$c" tack_at_answer_graceful | awk '{ s += $1 } END { print s + 0 }')" \
            "$(col "$c" tack_at_answer_start | wc -l)"
    done
    echo
    echo "Reaped children CPU: user + system time of the children the parent had"
    echo "reaped once the background process and its signers were gone (at the"
    echo "start: the background with its signer; at a graceful also the old"
    echo "generation's child, as in A and B2).  Written: TACK files in the store"
    echo "(B1*: the whole store; B2, S: files newer than the start, none expected)."
    echo "TACK in the first answer: the last vhost's, asked for once the server"
    echo "answers.  In B1* it is there because the background signs in httpd's"
    echo "order of the virtual hosts, which begins with the last one of the"
    echo "configuration (each <VirtualHost> goes to the front of the list): the"
    echo "last vhost is among the first signed, the first one is the last."
    echo
    if has_cfg S && has_cfg B2; then
        echo "TackSigningKey with nothing to sign, B2/S per round (the same store"
        echo "without the key): start-up $(fmt 3 "$(pratio B2 S start_ms)") ($(rspread B2 S start_ms)),"
        echo "graceful $(fmt 3 "$(pratio B2 S graceful_ms)") ($(rspread B2 S graceful_ms))."
        echo
    fi
    echo "Load: the 1-minute load average at the start of each measurement ranged"
    echo "$loads (2 cores; other engineers' suites run on this machine, kept off"
    echo "the timed sections by the lock, but not their builds and editors); $waits"
    echo "measurement(s) waited more than a second for the lock."
    echo
    echo "Raw rounds: \`bench/out/signing.tsv\`; each round's error log:"
    echo "\`bench/out/signing/error-CFG-ROUND.log\`."
    echo
    echo "### \`tack sign\` of $N certificates: key file and tokens"
    echo
    echo "\`tack sign -k KEY -e 90d -c DIR -o DIR\`, the same $N certificates,"
    echo "$TROUNDS round(s) alternating the keys, a fresh output directory each;"
    echo "median (min..max)."
    echo
    echo "| key | wall s | per TACK | user s | sys s |"
    echo "|---|---|---|---|---|"
    for w in $TOOLS; do
        case $w in
        file) lbl="key file (PBKDF2 once)" ;;
        token) lbl="SoftHSM2 token (\`$URI\`)" ;;
        remote) lbl="SoftHSM2 behind p11-kit server (\`pkcs11:token=remote;…?module-path=…/p11-kit-client.so\`)" ;;
        esac
        printf '| %s | %s (%s) | %s µs | %s | %s |\n' "$lbl" \
            "$(fmt 2 "$(tcol "$w" 3 | median)")" "$(tcol "$w" 3 | minmax)" \
            "$(fmt 0 "$(calc "$(tcol "$w" 3 | median) * 1e6 / $N")")" \
            "$(fmt 2 "$(tcol "$w" 4 | median)")" "$(fmt 2 "$(tcol "$w" 5 | median)")"
    done
    echo
    echo "Raw rounds: \`bench/out/signing.tool.tsv\`."
} > "$MD"

fails=0
# The target: a graceful restart with N to sign answers within 1.10 times
# the same restart with nothing to sign (B2), per key kind.
for c in B1 B1t B1r; do
    has_cfg "$c" && has_cfg B2 || continue
    r=$(pratio "$c" B2 graceful_ms)
    v=$(awk -v r="$r" 'BEGIN { print (r <= 1.10) ? "PASS" : "FAIL" }')
    [ "$v" = PASS ] || fails=$((fails + 1))
    echo "5. graceful restart $c/B2 ≤ 1.10 at $N vhosts ($N to sign vs nothing to sign)|$(fmt 3 "$r") ($(fmt 0 "$(med B2 graceful_ms)") → $(fmt 0 "$(med "$c" graceful_ms)") ms; per-round $(rspread "$c" B2 graceful_ms), $(above "$c" B2 graceful_ms 1.10) of $(nrat "$c" B2 graceful_ms) above 1.10; parent CPU $(fmt 3 "$(pratio "$c" B2 graceful_cpu_ms)"), per-round $(rspread "$c" B2 graceful_cpu_ms))|$v" >> "$VERD"
    echo "$c/B2 graceful: $(fmt 3 "$r") (per-round $(rspread "$c" B2 graceful_ms)); parent CPU $(fmt 3 "$(pratio "$c" B2 graceful_cpu_ms)") ($(rspread "$c" B2 graceful_cpu_ms)); B2 $(fmt 0 "$(med B2 graceful_ms)") ms, $c $(fmt 0 "$(med "$c" graceful_ms)") ms"
done
for c in B1 B1t B1r; do
    has_cfg "$c" && has_cfg B2 || continue
    r=$(pratio "$c" B2 start_ms)
    echo "5. start-up $c/B2 at $N vhosts (informative)|$(fmt 3 "$r") ($(fmt 0 "$(med B2 start_ms)") → $(fmt 0 "$(med "$c" start_ms)") ms; per-round $(rspread "$c" B2 start_ms); parent CPU $(fmt 3 "$(pratio "$c" B2 start_cpu_ms)"))|reported" >> "$VERD"
    echo "$c/B2 start-up: $(fmt 3 "$r") (per-round $(rspread "$c" B2 start_ms))"
done
for c in B1 B1t B1r; do
    has_cfg "$c" || continue
    echo "5. time until all $N TACKs are served, $c (start / graceful; informative)|$(fmt 1 "$(calc "$(med "$c" start_all_ms) / 1000")") s ($(col "$c" start_all_ms | awk '{ print $1 / 1000 }' | minmax)) / $(fmt 1 "$(calc "$(med "$c" graceful_all_ms) / 1000")") s ($(col "$c" graceful_all_ms | awk '{ print $1 / 1000 }' | minmax))|reported" >> "$VERD"
    echo "$c all served: start $(fmt 1 "$(calc "$(med "$c" start_all_ms) / 1000")") s, graceful $(fmt 1 "$(calc "$(med "$c" graceful_all_ms) / 1000")") s"
done
if has_cfg B2 && has_cfg A; then
    for f in start_ms graceful_ms; do
        what=$([ "$f" = start_ms ] && echo "start-up" || echo "graceful restart")
        r=$(pratio B2 A "$f")
        v=$(awk -v r="$r" 'BEGIN { print (r <= 1.10) ? "PASS" : "FAIL" }')
        [ "$v" = PASS ] || fails=$((fails + 1))
        echo "5. $what B2/A ≤ 1.10 at $N vhosts (TackSigningKey, full store)|$(fmt 3 "$r") ($(fmt 0 "$(med A "$f")") → $(fmt 0 "$(med B2 "$f")") ms; per-round $(rspread B2 A "$f"))|$v" >> "$VERD"
        echo "B2/A $what: $(fmt 3 "$r") (per-round $(rspread B2 A "$f"))"
    done
fi
for w in $TOOLS; do
    echo "tack sign $N ($w): $(fmt 2 "$(tcol "$w" 3 | median)") s wall"
done
if ! has_cfg B2 || ! has_cfg B1; then
    echo "VERDICT signing: NOT MEASURED (B1 and B2 must be among BENCH_SIGN_CONFIGS)"
    exit 0
fi
if [ "$fails" -eq 0 ]; then
    echo "VERDICT signing: PASS (graceful with $N to sign / with nothing to sign ≤ 1.10; B2/A ≤ 1.10)"
else
    echo "VERDICT signing: FAIL ($fails target(s) above 1.10 at $N vhosts; see $MD)"
fi
