#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# bench-tool.sh -- benchmark 4: the `tack` tool.
#   sign    `tack sign -c DIR -o DIR` over 10,000 certificates in one run
#           (each with its own P-256 key), wall and CPU time; target < 10 s;
#   view    `tack view` of one TACK file, latency of the whole command;
#   check   `tack check` against a private mod_tack server (TLS 1.2 and
#           TLS 1.3), latency of the whole command.
# Writes $OUT/tool.{md,verdicts,tsv}; prints figures and one verdict line.
. "$(dirname "$0")/lib.sh"

NCERTS=${BENCH_TOOL_CERTS:-10000}
TROUNDS=${BENCH_TOOL_ROUNDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
LAT_RUNS=${BENCH_TOOL_LAT_RUNS:-$([ "$QUICK" = 1 ] && echo 10 || echo 30)}
PORT=18530
SD=$OUT/scale
MD=$OUT/tool.md
VERD=$OUT/tool.verdicts
TSV=$OUT/tool.tsv
SRV=$OUT/srv/tool

need_loadgen
: > "$VERD"
if ! have_tool; then
    printf '## 4. Tool throughput\n\nNot measured: ./tack is not built.\n' > "$MD"
    echo "4. tack sign of $NCERTS certificates < 10 s|not measured|NOT MEASURED" >> "$VERD"
    echo "VERDICT tool: NOT MEASURED (tool missing)"
    exit 0
fi

log "tool: $NCERTS certificates"
"$GENCERTS" -n "$NCERTS" -o "$SD/certs" || die "gencerts failed"
make_tack_keys "$SD"
# Only the first NCERTS certificates (the directory may hold more).
CERTDIR=$OUT/tool/certs-$NCERTS
if [ "$(find "$CERTDIR" -name '*.crt' 2> /dev/null | wc -l)" -ne "$NCERTS" ]; then
    rm -rf "$CERTDIR"
    mkdir -p "$CERTDIR"
    for i in $(seq 1 "$NCERTS"); do
        ln -s "$SD/certs/$(printf 'v%05d.bench.test' "$i").crt" "$CERTDIR/"
    done
fi

printf 'what\tround\twall_s\tuser_s\tsys_s\n' > "$TSV"
TIMEFORMAT='%R %U %S'
# A fresh directory per round, all removed only after the last round: ext4
# avoids reusing inodes freed in the last minutes, and creating 10,000 files
# right after deleting 10,000 makes its inode allocator scan for minutes of
# system time (measured: 8 s of sys instead of 2) -- a cost of the benchmark,
# not of the tool.
rm -rf "$OUT/tool/signed" "$OUT"/tool/signed-*
for r in $(seq 1 "$TROUNDS"); do
    dest=$OUT/tool/signed-$r
    mkdir -p "$dest"
    sync
    t=$({ time taskset -c "$SRV_CPU,$CLI_CPU" "$TACK" sign -k "$SD/tack.key" \
        -p "$PW" -e 90d -c "$CERTDIR" -o "$dest" --no-progress > /dev/null 2>&1; } 2>&1) \
        || die "tack sign failed"
    n=$(find "$dest" -name '*.tack.pem' | wc -l)
    [ "$n" -eq "$NCERTS" ] || die "tack sign wrote $n files, expected $NCERTS"
    printf 'sign\t%s\t%s\t%s\t%s\n' "$r" $t >> "$TSV"
    log "tool: sign round $r: $t (wall user sys)"
done

one=$SD/tacks/v00001.bench.test.tack.pem
[ -f "$one" ] || one=$(echo "$OUT"/tool/signed-1/v00001.bench.test.*.tack.pem)

# latency CMD...: wall time of one run in ms.
latency() {
    local t0 t1
    t0=$(now_ns)
    "$@" > /dev/null 2>&1 || return 1
    t1=$(now_ns)
    calc "($t1 - $t0) / 1e6"
}

for r in $(seq 1 "$LAT_RUNS"); do
    printf 'view\t%s\t%s\t\t\n' "$r" "$(latency taskset -c "$CLI_CPU" "$TACK" view "$one")" >> "$TSV"
done

# A private mod_tack server for `tack check`.
KD=$OUT/hs/ec
make_cert "$KD" bench.test ec
make_tack_keys "$OUT/hs"
[ -f "$KD/tack.pem" ] || "$TACK" sign -k "$OUT/hs/tack.key" -p "$PW" \
    -c "$KD/bench.test.crt" -e 90d -o "$KD/tack.pem" > /dev/null 2>&1
check_ok=none
if have_module; then
    cat > "$OUT/vh-tool.conf" <<EOF
<VirtualHost 127.0.0.1:$PORT>
    ServerName bench.test
    SSLEngine on
    SSLCertificateFile $KD/bench.test.crt
    SSLCertificateKeyFile $KD/bench.test.key
    TackFile $KD/tack.pem
    TackBreakSigsFile $OUT/hs/breaks.pem
    TackTLS13 on
</VirtualHost>
EOF
    httpd_write_conf "$SRV" $PORT 1 "$OUT/vh-tool.conf"
    httpd_stop "$SRV"
    httpd_start "$SRV"
    trap 'httpd_stop "$SRV"' EXIT
    wait_ready $PORT bench.test || die "tool server did not come up"
    check_ok=yes
    for tls in 1_2 1_3; do
        for r in $(seq 1 "$LAT_RUNS"); do
            ms=$(latency taskset -c "$CLI_CPU" "$TACK" check "127.0.0.1:$PORT" \
                --servername bench.test --tls$tls --require) || check_ok=no
            printf 'check%s\t%s\t%s\t\t\n' "$tls" "$r" "$ms" >> "$TSV"
        done
    done
    httpd_stop "$SRV"
    trap - EXIT
fi

rm -rf "$OUT"/tool/signed-*

col() { awk -F'\t' -v w="$1" -v f="$2" '$1 == w { print $f }' "$TSV"; }
sw=$(col sign 3 | median); su=$(col sign 4 | median); ss=$(col sign 5 | median)
vw=$(col view 3 | median)
c12=$(col check1_2 3 | median); c13=$(col check1_3 3 | median)
per=$(calc "$sw * 1e6 / $NCERTS")
v=$(awk -v s="$sw" 'BEGIN { print (s < 10) ? "PASS" : "FAIL" }')
echo "4. tack sign of $NCERTS certificates in one run < 10 s|$(fmt 2 "$sw") s wall ($(fmt 2 "$su") s user, $(fmt 2 "$ss") s sys)|$v" >> "$VERD"
echo "4. tack view / tack check latency (informative)|view $(fmt 1 "$vw") ms, check $(fmt 1 "$c12") ms (TLS 1.2), $(fmt 1 "$c13") ms (TLS 1.3)|$([ "$check_ok" = no ] && echo FAIL || echo PASS)" >> "$VERD"
{
    echo "## 4. Tool throughput"
    echo
    echo "\`tack sign -k KEY -e 90d -c DIR -o DIR\` over $NCERTS certificates (each"
    echo "its own P-256 key), $TROUNDS run(s), median; the key file's PBKDF2 runs"
    echo "once per run.  Latencies are whole commands (exec to exit), $LAT_RUNS runs,"
    echo "median; \`tack check\` talks to a private mod_tack server on 127.0.0.1."
    echo
    echo "| measurement | median | per item |"
    echo "|---|---|---|"
    echo "| sign $NCERTS, wall | $(fmt 2 "$sw") s | $(fmt 0 "$per") µs |"
    echo "| sign $NCERTS, user + sys CPU | $(fmt 2 "$su") s + $(fmt 2 "$ss") s | |"
    echo "| tack view (one TACK) | $(fmt 1 "$vw") ms | |"
    echo "| tack check, TLS 1.2 | $(fmt 1 "$c12") ms | |"
    echo "| tack check, TLS 1.3 | $(fmt 1 "$c13") ms | |"
    echo
    echo "Sign rounds, wall s: $(col sign 3 | tr '\n' ' '); user s: $(col sign 4 | tr '\n' ' '); sys s: $(col sign 5 | tr '\n' ' ')"
    echo
    echo "Wall time above user + sys is waiting for the disk: the tool syncs"
    echo "what it wrote before moving the files into place."
} > "$MD"
echo "tack sign $NCERTS: $(fmt 2 "$sw") s wall ($(fmt 2 "$su") user, $(fmt 2 "$ss") sys); view $(fmt 1 "$vw") ms; check $(fmt 1 "$c12") ms TLS 1.2, $(fmt 1 "$c13") ms TLS 1.3"
echo "VERDICT tool: $v (sign $NCERTS in $(fmt 2 "$sw") s, target < 10 s)"
