#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# restart-rss.sh -- the httpd parent's memory across graceful restarts: does
# it grow, and with what.  Not a test (CI does not run it): a measurement
# for the hardening review, run by hand (make bench-restart-rss).
#
# N name-based SSL vhosts (default 1,500, gencerts' P-256 certificates) on
# one port, restarted R times (default 100) by SIGUSR1, each restart waited
# for ("resuming normal operations", then one handshake), in these
# configurations, one after the other:
#   none     the vhosts without mod_tack
#   store    mod_tack, a full TackStore (every TACK read and verified)
#   signing  mod_tack, TackSigningKey (a key file) and the same full store:
#            nothing to sign, the signer started and ended each pass
#   bg       (only when named in RSS_CONFIGS: a restart takes about a
#            minute at 1,500 vhosts) mod_tack, TackSigningKey and an empty
#            store that cannot be written (every restart leaves all N to the
#            background, which signs them and publishes them in shared
#            memory)
# After each restart the parent's VmRSS, Private (smaps_rollup), RssAnon,
# RssFile and RssShmem are recorded (what grows: the heap, or pages of
# files and shared memory touched); the report gives, per configuration, the values after restart
# 1, 10, R/2 and R and the slope from restart 10 to R (KiB per restart, a
# least-squares line), so that the first restarts' warm-up (pools reaching
# their size) does not count as growth.
#
#   RSS_VHOSTS=N RSS_RESTARTS=R RSS_CONFIGS="none store signing bg"
. "$(dirname "$0")/lib.sh"

N=${RSS_VHOSTS:-1500}
R=${RSS_RESTARTS:-100}
CONFIGS=${RSS_CONFIGS:-none store signing}
PORT=18590
GD=$OUT/rss
SD=$OUT/scale
SRV=$GD/srv
ELOG=$SRV/logs/error.log
TSV=$GD/restart-rss.tsv

have_module || die "$MODULE missing: run make"
have_tool || die "$TACK missing: run make"
[ -x "$GENCERTS" ] || die "$GENCERTS missing: run make bench-build"
need_loadgen
mkdir -p "$GD" "$SD/certs"
"$GENCERTS" -n "$N" -o "$SD/certs" --prefix v --domain bench.test > /dev/null
[ -f "$GD/tack.key" ] || "$TACK" genkey -p "$PW" -o "$GD/tack.key" 2> /dev/null
printf '%s\n' "$PW" > "$GD/pw"
if [ ! -d "$GD/store-full" ]; then
    log "signing $N certificates into the full store"
    "$TACK" sign -k "$GD/tack.key" -p "$PW" -c "$SD/certs/" -o "$GD/store-full/" \
        --no-progress 2> /dev/null || die "tack sign failed"
fi
# An empty store the background cannot write: a file where a directory is
# expected would be refused; a read-only bind mount is what "a store that
# cannot be written" is for a root process.
mkdir -p "$GD/store-ro"

write_vhosts() {
    local cfg=$1
    {
        case $cfg in
        store) echo "TackStore $GD/store-full" ;;
        signing)
            echo "TackStore $GD/store-full"
            echo "TackSigningKey $GD/tack.key"
            echo "TackSigningPassword file:$GD/pw"
            ;;
        bg)
            echo "TackStore $GD/store-ro"
            echo "TackSigningKey $GD/tack.key"
            echo "TackSigningPassword file:$GD/pw"
            ;;
        esac
        gen_vhosts "$N" "$PORT" "$SD"
    } > "$GD/vhosts-$cfg.conf"
}

resumed() { grep -c 'resuming normal operations' "$ELOG" 2> /dev/null; }

printf 'cfg\trestart\tvmrss_kib\tprivate_kib\trss_anon_kib\trss_file_kib\trss_shmem_kib\n' > "$TSV"
for cfg in $CONFIGS; do
    write_vhosts "$cfg"
    rm -rf "$SRV"
    httpd_write_conf "$SRV" $PORT "$([ "$cfg" = none ] && echo 0 || echo 1)" \
        "$GD/vhosts-$cfg.conf" warn
    ro=
    if [ "$cfg" = bg ]; then
        mount --bind "$GD/store-ro" "$GD/store-ro" &&
            mount -o remount,bind,ro "$GD/store-ro" && ro=1 ||
            die "cannot make $GD/store-ro read-only (needs root)"
    fi
    lock_begin
    httpd_start "$SRV"
    wait_ready $PORT v00001.bench.test
    pid=$(httpd_pid "$SRV")
    log "$cfg: $N vhosts, parent $pid, $R restarts"
    for i in $(seq 1 "$R"); do
        before=$(resumed)
        kill -USR1 "$pid"
        while [ "$(resumed)" -le "$before" ]; do sleep 0.05; done
        wait_ready $PORT v00001.bench.test
        printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$cfg" "$i" \
            "$(mem_kib "$pid" VmRSS)" "$(mem_kib "$pid" Private)" \
            "$(awk '$1 == "RssAnon:" { print $2 }' "/proc/$pid/status")" \
            "$(awk '$1 == "RssFile:" { print $2 }' "/proc/$pid/status")" \
            "$(awk '$1 == "RssShmem:" { print $2 }' "/proc/$pid/status")" >> "$TSV"
    done
    httpd_stop "$SRV"
    lock_end
    [ -z "$ro" ] || umount "$GD/store-ro"
done

# The report: VmRSS after restart 1, 10, R/2 and R, and each field's slope
# from restart 10 to R (KiB per restart, least squares).
awk -F'\t' -v R="$R" 'NR == 1 { for (f = 3; f <= NF; f++) name[f] = $f; nf = NF; next }
    {
        c = $1; i = $2
        if (!(c in seen)) { seen[c] = 1; order[++n] = c }
        if (i == 1 || i == 10 || i == int(R / 2) || i == R) at[c, i] = $3
        if (i >= 10) {
            k[c]++; sx[c] += i; sxx[c] += i * i
            for (f = 3; f <= nf; f++) { sy[c, f] += $f; sxy[c, f] += i * $f }
        }
    }
    END {
        printf "%-8s %9s %9s %9s %9s", "config", "RSS@1", "@10", "@" int(R / 2), "@" R
        for (f = 3; f <= nf; f++) printf " %14s", name[f] "/r"
        printf "\n"
        for (j = 1; j <= n; j++) {
            c = order[j]; d = k[c] * sxx[c] - sx[c] * sx[c]
            printf "%-8s %9s %9s %9s %9s", c, at[c, 1], at[c, 10], at[c, int(R / 2)], at[c, R]
            for (f = 3; f <= nf; f++)
                printf " %14.2f", d ? (k[c] * sxy[c, f] - sx[c] * sy[c, f]) / d : 0
            printf "\n"
        }
    }' "$TSV" | tee "$GD/restart-rss.txt"
log "figures in $TSV, report in $GD/restart-rss.txt (KiB)"
