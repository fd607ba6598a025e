#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# bench-handshake.sh -- benchmark 1: handshake throughput and server CPU per
# handshake, three servers side by side:
#   a  mod_ssl alone, the client does not ask for a TACK
#   b  mod_tack serving a TACK + 2 break signatures, the client asks
#   c  stock mod_ssl serving the very same bytes with SSLOpenSSLConfCmd
#      ServerInfoFile (SERVERINFOV2, so TLS 1.3 too), the client asks
# for ECDSA P-256 and RSA-2048 certificates, TLS 1.2 and TLS 1.3.  Rounds
# alternate a, b, c (rotating the order), each round one loadgen run of
# BENCH_HS_SECS seconds (BENCH_HS_ROUNDS rounds); the three httpds are
# pinned to one core, the load generator to the other.  Server CPU per handshake is read from /proc for
# every thread of the httpd processes.  Prints the medians, the paired
# ratios and one verdict line; writes $OUT/handshake.{tsv,md,verdicts}.
. "$(dirname "$0")/lib.sh"

# Short rounds, many of them: this machine is shared, and background load
# comes in bursts of seconds; interleaving a, b and c every second exposes
# the three alike, and the median of 30 paired ratios shrugs off the bursts.
SECS=${BENCH_HS_SECS:-1}
HS_ROUNDS=${BENCH_HS_ROUNDS:-$([ "$QUICK" = 1 ] && echo 5 || echo 30)}
CONC=${BENCH_HS_CONC:-16}
KEYS=${BENCH_HS_KEYS:-ec rsa}
TLSV=${BENCH_HS_TLS:-1.2 1.3}
PORT_A=18501 PORT_B=18502 PORT_C=18503
TSV=$OUT/handshake.tsv
MD=$OUT/handshake.md
VERD=$OUT/handshake.verdicts

need_loadgen
: > "$VERD"
if ! have_module || ! have_tool; then
    {
        echo "## 1. Handshake throughput"
        echo
        echo "Not measured: the module (build/mod_tack.so) or the tool (./tack) is not built."
    } > "$MD"
    echo "1. handshake b/c, b/a|not measured (module or tool missing)|NOT MEASURED" >> "$VERD"
    echo "VERDICT handshake: NOT MEASURED (module or tool missing)"
    exit 0
fi

vhost() { # PORT DIR EXTRA...
    local port=$1 dir=$2
    shift 2
    printf '<VirtualHost 127.0.0.1:%s>\n    ServerName bench.test\n' "$port"
    printf '    SSLEngine on\n    SSLCertificateFile %s/bench.test.crt\n' "$dir"
    printf '    SSLCertificateKeyFile %s/bench.test.key\n' "$dir"
    printf '    SSLOpenSSLConfCmd NumTickets 0\n'
    for l in "$@"; do printf '    %s\n' "$l"; done
    printf '</VirtualHost>\n'
}

# one_round KEY TLS CFG ROUND
one_round() {
    local key=$1 tls=$2 cfg=$3 round=$4 dir port args out c0 c1 hs
    dir=$OUT/srv/hs-$cfg
    case $cfg in
    a) port=$PORT_A; args="" ;;
    b) port=$PORT_B; args="-e $KD/si.pem" ;;
    c) port=$PORT_C; args="-e $KD/si.pem" ;;
    esac
    c0=$(server_cpu_ns "$dir")
    # shellcheck disable=SC2086
    out=$(loadgen -q -c "$CONC" -d "$SECS" --tls "$tls" -s bench.test $args \
        "127.0.0.1:$port") || die "loadgen failed against $cfg ($key TLS $tls): $out"
    c1=$(server_cpu_ns "$dir")
    hs=$(kv handshakes "$out")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$tls" "$cfg" \
        "$round" "$(kv rate "$out")" "$hs" "$((c1 - c0))" \
        "$(calc "($c1 - $c0) / $hs / 1000")" "$(kv client_cpu_us "$out")" \
        >> "$TSV"
}

# BENCH_HS_ANALYZE_ONLY=1: recompute the figures from the last run's TSV.
if [ "${BENCH_HS_ANALYZE_ONLY:-0}" != 1 ]; then
printf 'key\ttls\tcfg\tround\trate\thandshakes\tserver_cpu_ns\tserver_us_per_hs\tclient_us_per_hs\n' > "$TSV"
for key in $KEYS; do
    KD=$OUT/hs/$key
    make_cert "$KD" bench.test "$key"
    make_tack_keys "$OUT/hs"
    if [ ! -f "$KD/si.pem" ]; then
        "$TACK" sign -k "$OUT/hs/tack.key" -p "$PW" -c "$KD/bench.test.crt" \
            -e 30d -o "$KD/tack.pem" > /dev/null 2>&1 || die "tack sign failed"
        "$TACK" serverinfo -t "$KD/tack.pem" -b "$OUT/hs/breaks.pem" -a 1 \
            --v2 -o "$KD/si.pem" > /dev/null 2>&1 || die "tack serverinfo failed"
    fi
    vhost $PORT_A "$KD" > "$OUT/vh-a.conf"
    vhost $PORT_B "$KD" "TackFile $KD/tack.pem" \
        "TackBreakSigsFile $OUT/hs/breaks.pem" "TackPinActivation on" \
        "TackTLS13 on" > "$OUT/vh-b.conf"
    vhost $PORT_C "$KD" "SSLOpenSSLConfCmd ServerInfoFile $KD/si.pem" \
        > "$OUT/vh-c.conf"
    httpd_write_conf "$OUT/srv/hs-a" $PORT_A 0 "$OUT/vh-a.conf"
    httpd_write_conf "$OUT/srv/hs-b" $PORT_B 1 "$OUT/vh-b.conf"
    httpd_write_conf "$OUT/srv/hs-c" $PORT_C 0 "$OUT/vh-c.conf"
    for cfg in a b c; do
        httpd_stop "$OUT/srv/hs-$cfg"
        : > "$OUT/srv/hs-$cfg/logs/error.log"
        httpd_start "$OUT/srv/hs-$cfg"
    done
    trap 'for c in a b c; do httpd_stop "$OUT/srv/hs-$c"; done' EXIT
    for cfg in a b c; do
        port=$(eval echo "\$PORT_$(echo $cfg | tr a-c A-C)")
        wait_ready "$port" bench.test || die "server $cfg did not come up"
    done
    for tls in $TLSV; do
        log "handshake: $key TLS $tls: warm-up"
        for cfg in a b c; do
            TSV=/dev/null SECS=2 one_round "$key" "$tls" "$cfg" 0
        done
        for r in $(seq 1 "$HS_ROUNDS"); do
            case $((r % 3)) in
            0) order="a b c" ;; 1) order="b c a" ;; 2) order="c a b" ;;
            esac
            for cfg in $order; do
                one_round "$key" "$tls" "$cfg" "$r"
            done
        done
        log "handshake: $key TLS $tls: $HS_ROUNDS rounds done"
    done
    for cfg in a b c; do
        httpd_stop "$OUT/srv/hs-$cfg"
        if grep -E '\[(error|crit|alert|emerg)\]' "$OUT/srv/hs-$cfg/logs/error.log" | head -3 | grep -q .; then
            log "handshake: server $cfg logged errors:"
            grep -E '\[(error|crit|alert|emerg)\]' "$OUT/srv/hs-$cfg/logs/error.log" | head -3 >&2
        fi
    done
    trap - EXIT
done
fi

# ---- analysis ------------------------------------------------------------
# col KEY TLS CFG FIELD: the column over the rounds.
col() {
    awk -F'\t' -v k="$1" -v t="$2" -v c="$3" -v f="$4" '
        NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $1 == k && $2 == t && $3 == c { print $idx[f] }' "$TSV"
}
# pratio KEY TLS CFG1 CFG2 FIELD: median over rounds of CFG1/CFG2 (paired).
pratio() {
    awk -F'\t' -v k="$1" -v t="$2" -v c1="$3" -v c2="$4" -v f="$5" '
        NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $1 == k && $2 == t && $3 == c1 { x[$4] = $idx[f] }
        $1 == k && $2 == t && $3 == c2 { y[$4] = $idx[f] }
        END { for (r in x) if ((r in y) && y[r] > 0) printf "%.6f\n", x[r] / y[r] }' \
        "$TSV" | median
}

# piqr KEY TLS CFG1 CFG2 FIELD: quartiles of the per-round ratios, "q1..q3".
piqr() {
    awk -F'\t' -v k="$1" -v t="$2" -v c1="$3" -v c2="$4" -v f="$5" '
        NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $1 == k && $2 == t && $3 == c1 { x[$4] = $idx[f] }
        $1 == k && $2 == t && $3 == c2 { y[$4] = $idx[f] }
        END { for (r in x) if ((r in y) && y[r] > 0) printf "%.6f\n", x[r] / y[r] }' \
        "$TSV" | sort -g | awk '{ a[NR] = $1 } END { if (NR) printf "%.3f..%.3f\n", a[int((NR + 3) / 4)], a[int((3 * NR + 3) / 4)] }'
}
# insn KEY TLS: b/c instructions per connection from benchmark 2, if run.
insn() {
    [ -f "$OUT/callgrind.tsv" ] || return 0
    awk -F'\t' -v k="$1" -v t="$2" '$1 == k && $2 == t && $3 == "b" { b = $6 }
        $1 == k && $2 == t && $3 == "c" { c = $6 } END { if (b && c) printf "%.4f\n", b / c }' "$OUT/callgrind.tsv"
}
fails=0
IQRS=""
misses_ba=""
{
    echo "## 1. Handshake throughput and server CPU per handshake"
    echo
    echo "Three private httpds side by side, pinned to core $SRV_CPU; the load"
    echo "generator (\`build/loadgen\`, $CONC connections, full handshakes, no"
    echo "tickets, no session cache) pinned to core $CLI_CPU.  $HS_ROUNDS rounds of"
    echo "$SECS s per configuration, alternating a/b/c in rotating order; figures"
    echo "are medians over the rounds, ratios are medians of the per-round"
    echo "(paired) ratios.  Server CPU is every thread of the httpd parent and"
    echo "child (/proc/PID/task/*/schedstat) divided by the handshakes of the run."
    echo
    echo "- a: mod_ssl alone, client does not ask"
    echo "- b: mod_tack, TACK + 2 break signatures (draft-00 body of 426 bytes), client asks"
    echo "- c: stock mod_ssl, the same bytes via \`SSLOpenSSLConfCmd ServerInfoFile\`, client asks"
    echo
    echo "| cert | TLS | a hs/s | b hs/s | c hs/s | a µs/hs | b µs/hs | c µs/hs | b/c hs/s | b/c CPU | b/a hs/s | b/a CPU | c/a CPU |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$MD"
for key in $KEYS; do
    for tls in $TLSV; do
        ra=$(col "$key" "$tls" a rate | median)
        rb=$(col "$key" "$tls" b rate | median)
        rc=$(col "$key" "$tls" c rate | median)
        ua=$(col "$key" "$tls" a server_us_per_hs | median)
        ub=$(col "$key" "$tls" b server_us_per_hs | median)
        uc=$(col "$key" "$tls" c server_us_per_hs | median)
        bc_r=$(pratio "$key" "$tls" b c rate)
        bc_u=$(pratio "$key" "$tls" b c server_us_per_hs)
        ba_r=$(pratio "$key" "$tls" b a rate)
        ba_u=$(pratio "$key" "$tls" b a server_us_per_hs)
        ca_u=$(pratio "$key" "$tls" c a server_us_per_hs)
        ca_r=$(pratio "$key" "$tls" c a rate)
        name=$([ "$key" = ec ] && echo "ECDSA P-256" || echo "RSA-2048")
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
            "$name" "$tls" "$(fmt 0 "$ra")" "$(fmt 0 "$rb")" "$(fmt 0 "$rc")" \
            "$(fmt 1 "$ua")" "$(fmt 1 "$ub")" "$(fmt 1 "$uc")" \
            "$(fmt 3 "$bc_r")" "$(fmt 3 "$bc_u")" "$(fmt 3 "$ba_r")" \
            "$(fmt 3 "$ba_u")" "$(fmt 3 "$ca_u")" >> "$MD"
        printf '%s TLS %s: hs/s a=%s b=%s c=%s; server us/hs a=%s b=%s c=%s; b/c rate %s cpu %s; b/a rate %s cpu %s\n' \
            "$name" "$tls" "$(fmt 0 "$ra")" "$(fmt 0 "$rb")" "$(fmt 0 "$rc")" \
            "$(fmt 1 "$ua")" "$(fmt 1 "$ub")" "$(fmt 1 "$uc")" \
            "$(fmt 3 "$bc_r")" "$(fmt 3 "$bc_u")" "$(fmt 3 "$ba_r")" "$(fmt 3 "$ba_u")"
        v1=$(awk -v r="$bc_r" -v u="$bc_u" 'BEGIN { print (r >= 0.99 && u <= 1.01) ? "PASS" : "FAIL" }')
        iq_r=$(piqr "$key" "$tls" b c rate); iq_u=$(piqr "$key" "$tls" b c server_us_per_hs)
        ins=$(insn "$key" "$tls")
        if [ "$v1" != PASS ]; then
            fails=$((fails + 1))
            v1="FAIL as measured (per-round ratios' IQR: throughput $iq_r, CPU $iq_u${ins:+; instructions b/c $ins})"
        fi
        echo "1. b/c, $name TLS $tls: throughput ≥ 0.99, server CPU ≤ 1.01|$(fmt 3 "$bc_r"), $(fmt 3 "$bc_u")|$v1" >> "$VERD"
        IQRS="$IQRS$name TLS $tls: b/c throughput $iq_r, CPU $iq_u; "
        v2=$(awk -v r="$ba_r" 'BEGIN { print (r >= 0.98) ? "PASS" : "MISS" }')
        if [ "$v2" = MISS ]; then
            # The same bytes without the module (c) cost as much: the
            # difference is the wire, not mod_tack.
            if awk -v bc="$bc_r" -v ca="$ca_r" 'BEGIN { exit !(bc >= 0.99 && ca < 0.98) }'; then
                v2="PASS (explained: c/a = $(fmt 3 "$ca_r"), the bytes on the wire)"
            else
                fails=$((fails + 1))
                misses_ba="$misses_ba $name/$tls"
                v2="MISS as measured (per-round ratios' IQR $(piqr "$key" "$tls" b a rate); c/a = $(fmt 3 "$ca_r"))"
            fi
        fi
        echo "1. b/a, $name TLS $tls: throughput ≥ 0.98|$(fmt 3 "$ba_r") (CPU $(fmt 3 "$ba_u"))|$v2" >> "$VERD"
    done
done
{
    echo
    echo "Client CPU per handshake (median, µs): $(for key in $KEYS; do for tls in $TLSV; do
        printf '%s/TLS %s a=%s b=%s; ' "$key" "$tls" \
            "$(col "$key" "$tls" a client_us_per_hs | median | xargs -I{} awk 'BEGIN{printf "%.0f", {}}')" \
            "$(col "$key" "$tls" b client_us_per_hs | median | xargs -I{} awk 'BEGIN{printf "%.0f", {}}')"
        done; done)"
    echo
    echo "Interquartile ranges of the per-round paired ratios (the resolution of"
    echo "these wall-clock figures on this machine): $IQRS"
    echo
    echo "Spread of server µs/handshake over the rounds (min..max):"
    for key in $KEYS; do for tls in $TLSV; do for cfg in a b c; do
        printf -- '%s/%s/%s %s; ' "$key" "$tls" "$cfg" "$(col "$key" "$tls" "$cfg" server_us_per_hs | minmax)"
    done; done; done
    echo
    echo
    echo "Raw rounds: \`bench/out/handshake.tsv\`."
} >> "$MD"

if [ "$fails" -eq 0 ]; then
    echo "VERDICT handshake: PASS (b/c and b/a within target for every certificate and TLS version)"
else
    echo "VERDICT handshake: FAIL ($fails target(s) missed; see $MD)"
fi
