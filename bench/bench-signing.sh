#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# bench-signing.sh -- benchmark 5 (issue 14): TackSigningKey at scale.
#
# Part 1, the server: N name-based SSL vhosts (default 10,000; the
# certificates of bench-scale.sh, each its own P-256 key), no TackFile,
# one server-level TackStore, in these configurations:
#   A    the same vhosts without mod_tack;
#   B1   TackSigningKey (a key file) and an EMPTY store: every TACK is
#        signed (N signatures in the signer process, each checked by the
#        parent and written into the store);
#   B2   TackSigningKey with a FULL store (the one B1 wrote): nothing is
#        signed, everything is read from the store and verified;
#   B1t  as B1 with the key in a SoftHSM2 token (pkcs11: URI);
#   S    B2's full store without TackSigningKey: what the store alone
#        costs, so B2 - S is the signing key's cost when nothing is signed.
# Per round, the configurations in rotating order, each:
#   start-up  exec of `apache2 -DFOREGROUND` to the first handshake with the
#             last vhost, which in B must carry a TACK (checked byte for
#             byte against the store file after the clock stopped);
#   graceful  SIGUSR1 to the new generation's "resuming normal operations"
#             and a handshake after it.  In B1/B1t the store is emptied
#             (moved aside, nothing deleted) right before the SIGUSR1, so
#             that the graceful signs all N again: "graceful with an empty
#             store".  A graceful with the store B1 has just filled is
#             what B2 measures.
# Every round runs under flock $BENCH_LOCK (the machine's suite lock), a
# few minutes at most; the time spent waiting for it is recorded.
#
# Part 2, the tool: `tack sign -c CERTDIR -o DIR` of the same N
# certificates with the key in a file and in the SoftHSM2 token,
# alternating, a fresh output directory per round.
#
# Writes $OUT/signing.{tsv,tool.tsv,md,verdicts}; prints the figures and
# one verdict line.
. "$(dirname "$0")/lib.sh"

N=${BENCH_SIGN_N:-$([ "$QUICK" = 1 ] && echo 1000 || echo 10000)}
SROUNDS=${BENCH_SIGN_ROUNDS:-$([ "$QUICK" = 1 ] && echo 3 || echo 4)}
TROUNDS=${BENCH_SIGN_TOOL_ROUNDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
CONFIGS=${BENCH_SIGN_CONFIGS:-A B1 B2 B1t S}
LOCK=${BENCH_LOCK-/tmp/tack-suite.lock}
PORT=18540
SD=$OUT/scale
GD=$OUT/signing
SRV=$OUT/srv/signing
TSV=$OUT/signing.tsv
TTSV=$OUT/signing.tool.tsv
MD=$OUT/signing.md
VERD=$OUT/signing.verdicts
SOFTHSM=/usr/lib/softhsm/libsofthsm2.so
URI='pkcs11:token=tack;object=tackkey;type=private'

need_loadgen
[ -x "$GENCERTS" ] || die "$GENCERTS missing: run make bench-build"
: > "$VERD"
if ! have_module || ! have_tool; then
    printf '## 5. TackSigningKey at scale\n\nNot measured: module or tool missing.\n' > "$MD"
    echo "5. B2/A (TackSigningKey, full store) ≤ 1.10 at $N vhosts|not measured|NOT MEASURED" >> "$VERD"
    echo "VERDICT signing: NOT MEASURED (module or tool missing)"
    exit 0
fi
token=1
if [ ! -e "$SOFTHSM" ] || ! command -v pkcs11-tool > /dev/null ||
    ! command -v softhsm2-util > /dev/null; then
    log "signing: softhsm2 or opensc missing: no token measurements"
    token=0
    CONFIGS=$(echo "$CONFIGS" | sed 's/B1t//')
fi

# lock_begin / lock_end: the machine's suite lock around a timed section.
# The unlock is explicit, so a process that inherited fd 9 cannot keep it.
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

REPORT_ONLY=${BENCH_SIGN_REPORT_ONLY:-${BENCH_REPORT_ONLY:-0}}
if [ "$REPORT_ONLY" != 1 ]; then
# ---- the fleet, the keys, the token ----------------------------------------
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
    softhsm2-util --init-token --free --label tack --pin 1234 --so-pin 5678 \
        > "$GD/token.log" 2>&1 || die "softhsm2-util failed (see $GD/token.log)"
    pkcs11-tool --module "$SOFTHSM" --login --pin 1234 --keypairgen \
        --key-type EC:prime256v1 --label tackkey --id 01 >> "$GD/token.log" 2>&1 ||
        die "pkcs11-tool failed (see $GD/token.log)"
    printf '1234\n' > "$GD/pin"
    chmod 600 "$GD/pin"
fi

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
        B1 | B2 | B1t)
            echo "TackStore $GD/store-$cfg"
            if [ "$cfg" = B1t ]; then
                echo "TackSigningKey \"$URI\""
                echo "TackSigningPassword file:$GD/pin"
            else
                echo "TackSigningKey $GD/tack.key"
                echo "TackSigningPassword file:$GD/pw"
            fi
            ;;
        esac
        awk -v n="$N" -v port=$PORT -v sd="$SD" 'BEGIN {
            for (i = 1; i <= n; i++) {
                name = sprintf("v%05d.bench.test", i)
                printf "<VirtualHost 127.0.0.1:%d>\n    ServerName %s\n", port, name
                printf "    SSLEngine on\n"
                printf "    SSLCertificateFile %s/certs/%s.crt\n", sd, name
                printf "    SSLCertificateKeyFile %s/certs/%s.key\n", sd, name
                printf "</VirtualHost>\n"
            }
        }'
    } > "$file"
}

resumed() { grep -c 'resuming normal operations' "$SRV/logs/error.log" 2> /dev/null; }
stored() { find "$GD/store-$1" -name '*.tack.pem' 2> /dev/null | wc -l; }
last_file() { echo "$GD/store-${1/S/B2}/$(name_of "$N").$PORT.ecdsa.tack.pem"; }

# probe CFG: one handshake with the last vhost; in B it must carry a TACK.
probe() {
    local res
    if [ "$1" = A ]; then
        loadgen -q -n 1 --await 600 --timeout 600 --tls 1.2 -s "$(name_of "$N")" \
            "127.0.0.1:$PORT" > /dev/null
    else
        res=$(loadgen -q -n 1 --await 600 --timeout 600 --tls 1.2 -x \
            -s "$(name_of "$N")" "127.0.0.1:$PORT") || return 1
        [ "$(kv tack_replies "$(echo "$res" | tail -1)")" = 1 ]
    fi
}

# check CFG: untimed; the last vhost serves exactly its file in the store.
check_served() {
    local f
    f=$(last_file "$1")
    [ -f "$f" ] || die "$1: no $f in the store"
    "$TACK" serverinfo -t "$f" -o "$GD/expect-$1.pem" -f > /dev/null 2>&1 ||
        die "tack serverinfo $f failed"
    loadgen -q -n 1 --timeout 60 --tls 1.2 -s "$(name_of "$N")" \
        -e "$GD/expect-$1.pem" "127.0.0.1:$PORT" > /dev/null ||
        die "$1: the last vhost does not serve $f"
}

# empty_store CFG TAG: move the store aside (deleted at the very end).
empty_store() {
    mv "$GD/store-$1" "$TRASH/store-$1-$2"
    mkdir "$GD/store-$1"
}

# children_cpu_ms PID: CPU of the children the process has reaped (the
# signer, and at a graceful restart the old generation's child).
children_cpu_ms() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.0f\n", ($14 + $15) * 1000 / hz }' "/proc/$1/stat"
}

# one_round CFG ROUND: start, graceful restart, stop; one TSV line.
one_round() {
    local cfg=$1 r=$2 t0 t1 t2 t3 ppid k i cpu0 cpu1 cpu2 ch0 ch1 ch2
    local n_start=0 n_grace=0 p_rss ld wait_ms
    httpd_write_conf "$SRV" $PORT "$([ "$cfg" = A ] && echo 0 || echo 1)" \
        "$GD/vhosts-$cfg.conf"
    case $cfg in B1 | B1t) [ "$(stored "$cfg")" -eq 0 ] || empty_store "$cfg" "$r-pre" ;; esac
    case $cfg in B2 | S) touch "$GD/b2-mark" && sleep 0.01 ;; esac
    : > "$SRV/logs/error.log"
    lock_begin
    wait_ms=$LOCK_WAIT_MS
    ld=$(load1)
    t0=$(now_ns)
    taskset -c "$SRV_CPU" "$APACHE" -f "$SRV/httpd.conf" -DFOREGROUND &
    ppid=$!
    probe "$cfg" || { lock_end; die "no handshake with $(name_of "$N") ($cfg): $(grep -v notice "$SRV/logs/error.log" | tail -3)"; }
    t1=$(now_ns)
    cpu0=$(proc_cpu_ms "$ppid")
    ch0=$(children_cpu_ms "$ppid")
    p_rss=$(mem_kib "$ppid" VmRSS)
    [ "$cfg" = A ] || check_served "$cfg"
    case $cfg in
    B1 | B1t)
        n_start=$(stored "$cfg")
        empty_store "$cfg" "$r-start"
        ;;
    B2 | S) n_start=$(find "$GD/store-B2" -name '*.tack.pem' -newer "$GD/b2-mark" | wc -l) ;;
    esac
    k=$(resumed)
    t2=$(now_ns)
    cpu1=$(proc_cpu_ms "$ppid")
    ch1=$(children_cpu_ms "$ppid")
    kill -USR1 "$ppid"
    for i in $(seq 1 120000); do
        [ "$(resumed)" -gt "$k" ] && break
        sleep 0.005
    done
    probe "$cfg" || { lock_end; die "no handshake after graceful restart ($cfg)"; }
    t3=$(now_ns)
    cpu2=$(proc_cpu_ms "$ppid")
    ch2=$(children_cpu_ms "$ppid")
    kill -TERM "$ppid"
    wait "$ppid" 2> /dev/null
    lock_end
    case $cfg in
    B1 | B1t) n_grace=$(stored "$cfg") ;;
    B2 | S) n_grace=$(find "$GD/store-B2" -name '*.tack.pem' -newer "$GD/b2-mark" | wc -l) ;;
    esac
    if grep -qE '\[[a-z_]*:(error|crit|alert|emerg)\]' "$SRV/logs/error.log"; then
        log "signing: errors logged ($cfg):"
        grep -E '\[[a-z_]*:(error|crit|alert|emerg)\]' "$SRV/logs/error.log" | head -3 >&2
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$N" "$cfg" "$r" \
        "$(calc "($t1 - $t0) / 1e6")" "$(calc "($t3 - $t2) / 1e6")" \
        "$cpu0" "$ch0" "$((cpu2 - cpu1))" "$((ch2 - ch1))" \
        "$n_start" "$n_grace" "$p_rss" "$ld" "$wait_ms" >> "$TSV"
    log "signing: round $r $cfg: start $(calc "($t1 - $t0) / 1e6") ms, graceful $(calc "($t3 - $t2) / 1e6") ms, signed/written $n_start + $n_grace, load $ld, waited $wait_ms ms for the lock"
}

trap 'httpd_stop "$SRV"' EXIT
for cfg in $CONFIGS; do
    write_vhosts "$cfg" "$GD/vhosts-$cfg.conf"
    case $cfg in A | S) ;; *) mkdir -p "$GD/store-$cfg" ;; esac
done
# B2's full store: what a B1 start writes (one untimed start, also a warm-up
# of the page cache for the certificates).
if echo " $CONFIGS " | grep -qE ' (B2|S) '; then
    mkdir -p "$GD/store-B2"
    log "signing: filling B2's store (one B1 start, untimed)"
    httpd_write_conf "$SRV" $PORT 1 "$GD/vhosts-B2.conf"
    : > "$SRV/logs/error.log"
    lock_begin
    taskset -c "$SRV_CPU" "$APACHE" -f "$SRV/httpd.conf" -DFOREGROUND &
    ppid=$!
    probe B2 || { lock_end; die "filling B2's store failed: $(grep -v notice "$SRV/logs/error.log" | tail -3)"; }
    kill -TERM "$ppid"
    wait "$ppid" 2> /dev/null
    lock_end
    [ "$(stored B2)" -eq "$N" ] || die "B2's store has $(stored B2) files, expected $N"
fi

printf 'vhosts\tcfg\tround\tstart_ms\tgraceful_ms\tstart_cpu_ms\tstart_children_cpu_ms\tgraceful_cpu_ms\tgraceful_children_cpu_ms\tsigned_start\tsigned_graceful\tparent_rss_kib\tload1\tlock_wait_ms\n' > "$TSV"
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
trap - EXIT

# ---- the tool: tack sign of N certificates, key file and token -------------
printf 'what\tround\twall_s\tuser_s\tsys_s\tload1\tlock_wait_ms\n' > "$TTSV"
TIMEFORMAT='%R %U %S'
TOOLS="file"
[ "$token" = 1 ] && TOOLS="file token"
for r in $(seq 1 "$TROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order=$TOOLS; else order=$(echo "$TOOLS" | awk '{ for (i = NF; i; i--) printf "%s ", $i }'); fi
    for what in $order; do
        dest=$GD/sign-$what-$r
        mkdir -p "$dest"
        if [ "$what" = file ]; then
            set -- -k "$GD/tack.key" -p "$PW"
        else
            set -- -k "$URI" -p 1234
        fi
        sync
        lock_begin
        ld=$(load1)
        t=$({ time taskset -c "$SRV_CPU,$CLI_CPU" "$TACK" sign "$@" -e 90d \
            -c "$CERTDIR" -o "$dest" --no-progress > "$GD/sign-$what.log" 2>&1; } 2>&1) ||
            { lock_end; die "tack sign ($what) failed: $(tail -3 "$GD/sign-$what.log")"; }
        lock_end
        k=$(find "$dest" -name '*.tack.pem' | wc -l)
        [ "$k" -eq "$N" ] || die "tack sign ($what) wrote $k files, expected $N"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$what" "$r" $t "$ld" "$LOCK_WAIT_MS" >> "$TTSV"
        log "signing: tack sign ($what) round $r: $t (wall user sys)"
        mv "$dest" "$TRASH/"
    done
done
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
        $2 == c { print $idx[f] }' "$TSV"
}
med() { col "$1" "$2" | median; }
spread() { col "$1" "$2" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.0f..%.0f\n", lo, hi; else print "nan" }'; }
# ratios CFG FIELD: per-round B/A ratios (paired within the round).
ratios() {
    awk -F'\t' -v c="$1" -v f="$2" 'NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $2 == "A" { a[$3] = $idx[f] }
        $2 == c { b[$3] = $idx[f] }
        END { for (r in a) if ((r in b) && a[r] > 0) printf "%.6f\n", b[r] / a[r] }' "$TSV"
}
pratio() { ratios "$1" "$2" | median; }
rspread() { ratios "$1" "$2" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.3f..%.3f\n", lo, hi; else print "nan" }'; }
# total CPU of the start-up: the parent and the signer it reaped
col_sum() {
    awk -F'\t' -v c="$1" -v f="$2" -v g="$3" 'NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $2 == c { print $idx[f] + $idx[g] }' "$TSV"
}
tcol() { awk -F'\t' -v w="$1" -v f="$2" '$1 == w { print $f }' "$TTSV"; }

desc() {
    case $1 in
    A) echo "A: the vhosts without mod_tack" ;;
    B1) echo "B1: TackSigningKey (key file), empty TackStore: $N signed" ;;
    B2) echo "B2: TackSigningKey, full TackStore: $N verified, none signed" ;;
    B1t) echo "B1t: TackSigningKey in a SoftHSM2 token, empty TackStore: $N signed" ;;
    S) echo "S: B2's full TackStore without TackSigningKey: $N verified (B2 − S is what the key costs when nothing is signed)" ;;
    esac
}
loads=$( (for c in $CONFIGS; do col "$c" load1; done; tcol file 6; tcol token 6) | minmax)
waits=$( (for c in $CONFIGS; do col "$c" lock_wait_ms; done; tcol file 7; tcol token 7) | awk '$1 > 1000 { k++ } END { print k + 0 }')
{
    echo "## 5. TackSigningKey at scale (issue 14)"
    echo
    echo "$N name-based SSL vhosts on one port, each with its own ECDSA P-256"
    echo "certificate (those of benchmark 3), no TackFile; B adds"
    echo "\`LoadModule tack_module\`, a server-level \`TackStore\` and"
    echo "\`TackSigningKey\` + \`TackSigningPassword file:\`.  $SROUNDS rounds, each"
    echo "running every configuration once in a rotating order (each"
    echo "configuration's start, graceful and stop under the machine's suite"
    echo "lock, \`flock $LOCK\`); medians, ratios are medians"
    echo "of the per-round ratios to A of the same round, with their min..max."
    echo "Start-up: exec of \`apache2 -DFOREGROUND\` to the first handshake with the"
    echo "last vhost, in B carrying a TACK (checked byte for byte against its store"
    echo "file once the clock has stopped).  Graceful: SIGUSR1 to the new"
    echo "generation's \"resuming normal operations\" and a handshake after it."
    echo
    echo "**B1's graceful is a graceful with an empty store**: the store B1's"
    echo "start-up filled is moved aside right before the SIGUSR1, so the graceful"
    echo "pass signs all $N again (one configuration pass; a start-up has two: the"
    echo "first signs and writes the store, the second reads and verifies it).  A"
    echo "graceful after B1's start with the store left full is B2's case."
    echo
    for c in $CONFIGS; do echo "- $(desc "$c")"; done
    echo
    echo "| configuration | start ms | spread | start B/A | B/A min..max | start CPU ms (parent + signer) | graceful ms | spread | graceful B/A | B/A min..max | graceful CPU ms (parent) | TACKs written (start + graceful) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for c in $CONFIGS; do
        if [ "$c" = A ]; then sr="1" srs="" gr="1" grs=""; else
            sr=$(fmt 3 "$(pratio "$c" start_ms)"); srs=$(rspread "$c" start_ms)
            gr=$(fmt 3 "$(pratio "$c" graceful_ms)"); grs=$(rspread "$c" graceful_ms)
        fi
        printf '| %s | %s | %s | %s | %s | %s + %s | %s | %s | %s | %s | %s | %s + %s |\n' "$c" \
            "$(fmt 0 "$(med "$c" start_ms)")" "$(spread "$c" start_ms)" "$sr" "$srs" \
            "$(fmt 0 "$(med "$c" start_cpu_ms)")" "$(fmt 0 "$(med "$c" start_children_cpu_ms)")" \
            "$(fmt 0 "$(med "$c" graceful_ms)")" "$(spread "$c" graceful_ms)" "$gr" "$grs" \
            "$(fmt 0 "$(med "$c" graceful_cpu_ms)")" \
            "$(fmt 0 "$(med "$c" signed_start)")" "$(fmt 0 "$(med "$c" signed_graceful)")"
    done
    echo
    echo "CPU: user + system time of the parent (started with -DFOREGROUND, so"
    echo "both passes run in it), and of the children it reaped: at start-up that"
    echo "is the signer alone (the parent waits for each signature, so the two"
    echo "share core $SRV_CPU); at a graceful it would also count the old"
    echo "generation's child, so only the parent's is shown.  Per signed TACK"
    for c in B1 B1t; do
        echo " $CONFIGS " | grep -q " $c " || continue
        printf '(%s − A, start-up): wall %s ms, CPU %s ms; ' "$c" \
            "$(fmt 3 "$(calc "($(med "$c" start_ms) - $(med A start_ms)) / $N")")" \
            "$(fmt 3 "$(calc "($(col_sum "$c" start_cpu_ms start_children_cpu_ms | median) - $(col_sum A start_cpu_ms start_children_cpu_ms | median)) / $N")")"
        printf '(%s − A, graceful): wall %s ms.\n' "$c" \
            "$(fmt 3 "$(calc "($(med "$c" graceful_ms) - $(med A graceful_ms)) / $N")")"
    done
    echo
    if echo " $CONFIGS " | grep -q ' S ' && echo " $CONFIGS " | grep -q ' B2 '; then
        b2s() { awk -F'\t' -v f="$1" 'NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
            $2 == "S" { a[$3] = $idx[f] } $2 == "B2" { b[$3] = $idx[f] }
            END { for (r in a) if ((r in b) && a[r] > 0) printf "%.6f\n", b[r] / a[r] }' "$TSV"; }
        echo "TackSigningKey with nothing to sign, B2/S per round (the same store"
        echo "without the key): start-up $(fmt 3 "$(b2s start_ms | median)") ($(b2s start_ms | minmax)),"
        echo "graceful $(fmt 3 "$(b2s graceful_ms | median)") ($(b2s graceful_ms | minmax))."
        echo
    fi
    echo "Load: the 1-minute load average at the start of each measurement ranged"
    echo "$loads (2 cores; other engineers' suites run on this machine, kept off"
    echo "the timed sections by the lock, but not their builds and editors); $waits"
    echo "measurement(s) waited more than a second for the lock."
    echo
    echo "Raw rounds: \`bench/out/signing.tsv\`."
    echo
    echo "### \`tack sign\` of $N certificates: key file and token"
    echo
    echo "\`tack sign -k KEY -e 90d -c DIR -o DIR\`, the same $N certificates,"
    echo "$TROUNDS round(s) alternating file/token, a fresh output directory each;"
    echo "median (min..max)."
    echo
    echo "| key | wall s | per TACK | user s | sys s |"
    echo "|---|---|---|---|---|"
    for w in $TOOLS; do
        lbl=$([ "$w" = file ] && echo "key file (PBKDF2 once)" || echo "SoftHSM2 token (\`$URI\`)")
        printf '| %s | %s (%s) | %s µs | %s | %s |\n' "$lbl" \
            "$(fmt 2 "$(tcol "$w" 3 | median)")" "$(tcol "$w" 3 | minmax)" \
            "$(fmt 0 "$(calc "$(tcol "$w" 3 | median) * 1e6 / $N")")" \
            "$(fmt 2 "$(tcol "$w" 4 | median)")" "$(fmt 2 "$(tcol "$w" 5 | median)")"
    done
    if [ "$token" = 1 ]; then
        echo
        echo "Token/file wall ratio: $(fmt 2 "$(calc "$(tcol token 3 | median) / $(tcol file 3 | median)")")."
    fi
    echo
    echo "Raw rounds: \`bench/out/signing.tool.tsv\`."
} > "$MD"

fails=0
for c in B2 B1 B1t S; do
    echo " $CONFIGS " | grep -q " $c " || continue
    note=$([ "$c" = S ] && echo "store only, $N verified" || echo "$N signed")
    for f in start_ms graceful_ms; do
        what=$([ "$f" = start_ms ] && echo "start-up" || echo "graceful restart")
        r=$(pratio "$c" "$f")
        if [ "$c" = B2 ]; then
            v=$(awk -v r="$r" 'BEGIN { print (r <= 1.10) ? "PASS" : "FAIL" }')
            [ "$v" = PASS ] || fails=$((fails + 1))
            echo "5. $what B2/A ≤ 1.10 at $N vhosts (TackSigningKey, full store)|$(fmt 3 "$r") ($(fmt 0 "$(med A "$f")") → $(fmt 0 "$(med B2 "$f")") ms; per-round $(rspread B2 "$f"))|$v" >> "$VERD"
        else
            echo "5. $what $c/A at $N vhosts ($note; informative)|$(fmt 3 "$r") ($(fmt 0 "$(med A "$f")") → $(fmt 0 "$(med "$c" "$f")") ms)|reported" >> "$VERD"
        fi
        echo "$c/A $what: $(fmt 3 "$r") (per-round $(rspread "$c" "$f")); A $(fmt 0 "$(med A "$f")") ms, $c $(fmt 0 "$(med "$c" "$f")") ms"
    done
done
for w in $TOOLS; do
    echo "tack sign $N ($w): $(fmt 2 "$(tcol "$w" 3 | median)") s wall"
done
case " $CONFIGS " in
*" B2 "*) ;;
*) echo "VERDICT signing: NOT MEASURED (B2 not among BENCH_SIGN_CONFIGS)"
   exit 0 ;;
esac
if [ "$fails" -eq 0 ]; then
    echo "VERDICT signing: PASS (B2/A start-up and graceful ≤ 1.10 at $N vhosts)"
else
    echo "VERDICT signing: FAIL (B2/A above 1.10 at $N vhosts; see $MD)"
fi
