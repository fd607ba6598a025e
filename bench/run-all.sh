#!/bin/bash
# run-all.sh -- run the four benchmarks and write bench/results.md (with the
# plot bench/scale.png).  `make bench` calls it after building; BENCH_QUICK=1
# gives a short smoke run (fewer rounds; the report says so).
. "$(dirname "$0")/lib.sh"

REPORT=${BENCH_REPORT:-$BENCH_DIR/results.md}
PLOT=$BENCH_DIR/scale.png

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
rm -f "$OUT"/*.verdicts
status=0
for b in handshake callgrind scale tool; do
    log "bench: ---- $b ----"
    if ! bash "$BENCH_DIR/bench-$b.sh" | tee "$OUT/$b.out"; then
        log "bench: $b failed"
        echo "$b benchmark|script failed (see bench/out/$b.out)|FAIL" >> "$OUT/$b.verdicts"
        status=1
    fi
done
elapsed=$(($(date +%s) - start))
[ -f "$OUT/scale.png" ] && cp "$OUT/scale.png" "$PLOT"

# ---- the report ---------------------------------------------------------------
git_rev=$(cd "$TOP" && git rev-parse --short HEAD 2> /dev/null)
git_dirty=$(cd "$TOP" && git status --porcelain -- mod_tack.c mod_tack_config.c mod_tack.h 'tack*.c' 'tack*.h' 2> /dev/null | grep -q . && echo " (with uncommitted changes)")
{
    echo "# mod_tack performance report"
    echo
    echo "Written by \`make bench\` (bench/run-all.sh) on $(date -u '+%Y-%m-%d %H:%M UTC') in $((elapsed / 60)) min $((elapsed % 60)) s."
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
    echo "- mod_tack and tack at commit ${git_rev:-unknown}${git_dirty}"
    echo "- Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (this machine is shared: other"
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
    for b in handshake callgrind scale tool; do
        [ -f "$OUT/$b.verdicts" ] && sed 's/^/| /; s/|/ | /g; s/$/ |/' "$OUT/$b.verdicts" | sed 's/^|  /| /'
    done
    echo
    if [ -f "$BENCH_DIR/findings.md" ]; then
        cat "$BENCH_DIR/findings.md"
        echo
    fi
    for b in handshake callgrind scale tool; do
        [ -f "$OUT/$b.md" ] && { cat "$OUT/$b.md"; echo; }
    done
} > "$REPORT"
sed -i 's|](scale.png)|](scale.png)|' "$REPORT"
log "bench: report written to $REPORT"
grep -h '^VERDICT' "$OUT"/*.out 2> /dev/null
exit $status
