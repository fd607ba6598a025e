#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# fuzz.sh SECONDS TARGET... -- run each libFuzzer target for SECONDS and
# report its execution count.  Fails on the first crash, leak or UBSan
# finding (the reproducer is left in fuzz/out/ by libFuzzer).
set -eu
secs=$1
shift
mkdir -p fuzz/out
total=0
for t in "$@"; do
    mkdir -p "fuzz/out/$t"
    log="fuzz/out/$t.log"
    if ! "build-fuzz/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
            -artifact_prefix="fuzz/out/$t-" -timeout=10 -rss_limit_mb=2048 \
            "fuzz/out/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz: $t FAILED (log: $log)"
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz: $t: ${runs:-0} executions in ${secs}s, no finding"
    if [ "${runs:-0}" -eq 0 ]; then
        echo "fuzz: $t ran nothing"
        exit 1
    fi
    total=$((total + runs))
done
echo "fuzz: $# targets, $total executions in all"
