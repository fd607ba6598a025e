#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# run-all.sh -- run the five benchmarks and write bench/results.md (with the
# plot bench/scale.png).  `make bench` calls it after building; BENCH_QUICK=1
# gives a short smoke run (fewer rounds; the report says so).
# BENCH_REPORT_ONLY=1 rewrites the report from the fragments of the last run
# in bench/out/ without running anything.
. "$(dirname "$0")/lib.sh"
set -o pipefail # a failing benchmark must not hide behind tee

REPORT=${BENCH_REPORT:-$BENCH_DIR/results.md}
PLOT=$(dirname "$REPORT")/scale.png

# ---- tools the benchmarks need (not test dependencies) ---------------------
missing=""
command -v valgrind > /dev/null || missing="$missing valgrind"
command -v gnuplot > /dev/null || missing="$missing gnuplot-nox"
command -v taskset > /dev/null || missing="$missing util-linux"
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        log "bench: installing$missing"
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing \
            > "$OUT/apt.log" 2>&1 || {
            apt-get update > /dev/null 2>&1
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing \
                > "$OUT/apt.log" 2>&1
        } || die "could not install:$missing (see $OUT/apt.log)"
    else
        die "missing:$missing -- run as root: apt-get install -y$missing"
    fi
fi
[ "$(nproc)" -ge 2 ] || log "bench: fewer than 2 cores: server and load generator share one"

start=$(date +%s)
status=0
if [ "${BENCH_REPORT_ONLY:-0}" != 1 ]; then
    # One version of the module and the tool for the whole run.
    rm -rf "$OUT/snap"
    mkdir -p "$OUT/snap"
    [ -f "$MODULE" ] && cp "$MODULE" "$OUT/snap/mod_tack.so"
    [ -x "$TACK" ] && cp "$TACK" "$OUT/snap/tack"
    {
        echo "commit $(cd "$TOP" && git rev-parse --short HEAD 2> /dev/null)"
        (cd "$TOP" && git status --porcelain -- mod_tack.c module core 2> /dev/null) |
            sed 's/^/changed /'
        [ -f "$OUT/snap/mod_tack.so" ] && echo "mod_tack.so built $(date -u -r "$MODULE" '+%Y-%m-%d %H:%M:%S UTC') sha256 $(sha256sum < "$OUT/snap/mod_tack.so" | cut -c1-16)"
        [ -f "$OUT/snap/tack" ] && echo "tack built $(date -u -r "$TACK" '+%Y-%m-%d %H:%M:%S UTC') sha256 $(sha256sum < "$OUT/snap/tack" | cut -c1-16)"
    } > "$OUT/snap/info"
fi
[ -f "$OUT/snap/mod_tack.so" ] && export BENCH_MODULE=$OUT/snap/mod_tack.so
[ -f "$OUT/snap/tack" ] && export BENCH_TACK=$OUT/snap/tack
if [ "${BENCH_REPORT_ONLY:-0}" = 1 ]; then
    BENCHES=""
    elapsed=$(cat "$OUT/elapsed" 2> /dev/null || echo 0)
else
    BENCHES="handshake callgrind scale tool signing"
    rm -f "$OUT"/*.verdicts
fi
for b in $BENCHES; do
    log "bench: ---- $b ----"
    if ! bash "$BENCH_DIR/bench-$b.sh" | tee "$OUT/$b.out"; then
        log "bench: $b failed"
        echo "$b benchmark|script failed (see bench/out/$b.out)|FAIL" >> "$OUT/$b.verdicts"
        status=1
    fi
done
if [ -n "$BENCHES" ]; then
    elapsed=$(($(date +%s) - start))
    echo "$elapsed" > "$OUT/elapsed"
    date -u '+%Y-%m-%d %H:%M UTC' > "$OUT/finished"
    cut -d' ' -f1-3 /proc/loadavg > "$OUT/loadavg"
fi
[ -f "$OUT/scale.png" ] && cp "$OUT/scale.png" "$PLOT"

# ---- the report ---------------------------------------------------------------
git_rev=$(awk '$1 == "commit" { print $2 }' "$OUT/snap/info" 2> /dev/null)
git_dirty=$(grep -q '^changed' "$OUT/snap/info" 2> /dev/null && echo " with uncommitted changes to $(awk '$1 == "changed" { printf "%s ", $NF }' "$OUT/snap/info")")
snap_line=$(grep -E '^(mod_tack.so|tack) built' "$OUT/snap/info" 2> /dev/null | tr '\n' ';')
{
    echo "# mod_tack performance report"
    echo
    echo "Written by \`make bench\` (bench/run-all.sh); the run finished $(cat "$OUT/finished" 2> /dev/null) and took $((elapsed / 60)) min $((elapsed % 60)) s."
    [ "$QUICK" = 1 ] && echo "**BENCH_QUICK=1: a smoke run with $ROUNDS rounds; the figures are indicative only.**"
    echo
    echo "## Machine and versions"
    echo
    echo "- Machine: $(machine_line)"
    echo "- $(lsb_release -ds 2> /dev/null || grep PRETTY_NAME /etc/os-release | cut -d'"' -f2)"
    echo "- $("$APACHE" -v | head -1 | sed 's/^Server version: //'), mpm_event"
    echo "- $(openssl version)"
    echo "- $(valgrind --version), $(gnuplot --version 2> /dev/null)"
    echo "- $(cc --version | head -1)"
    echo "- mod_tack and tack at commit ${git_rev:-unknown}${git_dirty} (copied to bench/out/snap at the start of the run: $snap_line)"
    echo "- Load average at the end of the run: $(cat "$OUT/loadavg" 2> /dev/null) (this machine is shared: other"
    echo "  test suites may run at the same time, which is why rounds alternate and"
    echo "  instruction counts are the decisive figure)"
    echo
    echo "Server set-up: private httpd instances on 127.0.0.1 (ports 18500-18599),"
    echo "mpm_event with one child of a fixed 64 threads (StartServers 1,"
    echo "ServerLimit 1, ThreadsPerChild 64, MaxConnectionsPerChild 0, spare-thread"
    echo "limits that never trigger): no process or thread is created or reaped"
    echo "during a run, so throughput is not disturbed by MPM maintenance and the"
    echo "server CPU read from /proc covers exactly the processes that served the"
    echo "handshakes.  \`SSLSessionCache none\`, \`SSLSessionTickets off\`,"
    echo "\`SSLOpenSSLConfCmd NumTickets 0\`: every handshake is a full one.  Servers"
    echo "pinned to core $SRV_CPU, the load generator to core $CLI_CPU (\`taskset\`)."
    echo
    echo "## Verdicts"
    echo
    echo "| target | measured | verdict |"
    echo "|---|---|---|"
    for b in handshake callgrind scale tool signing; do
        [ -f "$OUT/$b.verdicts" ] && awk -F'|' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }' "$OUT/$b.verdicts"
    done
    echo
    if [ -f "$BENCH_DIR/findings.md" ]; then
        cat "$BENCH_DIR/findings.md"
        echo
    fi
    for b in handshake callgrind scale tool signing; do
        [ -f "$OUT/$b.md" ] && { cat "$OUT/$b.md"; echo; }
    done
} > "$REPORT"
sed -i 's|](scale.png)|](scale.png)|' "$REPORT"
log "bench: report written to $REPORT"
grep -h '^VERDICT' "$OUT"/*.out 2> /dev/null
exit $status
