#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# fuzz-long.sh [TARGET:RUNS]... -- the long fuzzing campaign (make fuzz-long):
# run each libFuzzer target for a fixed number of executions, on top of the
# committed seeds and whatever fuzz/out/TARGET already holds, and record one
# line per target in fuzz/out/long.tsv:
#
#   target  executions  seconds  corpus_files  exec_per_s  findings
#
# Default: every target 1,000,000 executions (the key file's target runs
# PBKDF2 with a fixed count of 2 iterations, so it is as quick as the
# others).  A finding (crash, leak, UBSan report) stops
# that target; its reproducer is fuzz/out/TARGET-crash-* (or leak-, slow-,
# timeout-, oom-) and the line says "FINDING"; the script then goes on with
# the next target and exits 1 at the end.
set -u
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
    set -- tack:1000000 ext00:1000000 ext02:1000000 pem:1000000 \
        keyfile:1000000 validate:1000000 pins:1000000
fi
mkdir -p fuzz/out
tsv=fuzz/out/long.tsv
printf 'target\texecutions\tseconds\tcorpus_files\texec_per_s\tfindings\n' >"$tsv"
status=0
for spec in "$@"; do
    t=${spec%%:*}
    runs=${spec#*:}
    bin=build-fuzz/fuzz_$t
    if [ ! -x "$bin" ]; then
        echo "fuzz-long: $bin missing (make fuzz-build)" >&2
        exit 2
    fi
    mkdir -p "fuzz/out/$t"
    log=fuzz/out/$t.long.log
    start=$(date +%s)
    "$bin" -runs="$runs" -print_final_stats=1 -artifact_prefix="fuzz/out/$t-" \
        -timeout=10 -rss_limit_mb=2048 "fuzz/out/$t" "fuzz/corpus/$t" \
        >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    files=$(ls "fuzz/out/$t" | wc -l)
    seeds=$(ls "fuzz/corpus/$t" | wc -l)
    rate=$(( ${execs:-0} / (secs > 0 ? secs : 1) ))
    if [ "$rc" -eq 0 ]; then
        finding=none
    else
        finding="FINDING: $(grep -m1 -E 'ERROR: |runtime error' "$log" |
            sed 's/^[^:]*: *//' | cut -c1-120) (log: $log)"
        status=1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "${execs:-0}" "$secs" \
        "$((files + seeds))" "$rate" "$finding" >>"$tsv"
    echo "fuzz-long: $t: ${execs:-0} executions in ${secs}s," \
        "corpus $((files + seeds)) files, $finding"
done
echo "fuzz-long: table in $tsv"
exit $status
