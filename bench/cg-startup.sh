#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# cg-startup.sh N MODULE_SO PORT OUTPREFIX [CPU [CFG]]: instructions executed
# by `apache2 -X` (under callgrind) from exec to the first handshake with the
# last of N vhosts (CFG B, the default: the TACK'd configuration of
# bench-scale.sh; CFG A: the same without mod_tack): both
# configuration passes, mod_ssl's certificate loading, mod_tack's directive
# handlers and hooks), and the share inside mod_tack's entry points
# (directive handlers, config create/merge, hooks), from callgrind's
# inclusive costs.  Prints "total=... module=... per_vhost_module=...".
# Used by bench-scale.sh; runs alone too.
. "$(dirname "$0")/lib.sh"
n=$1 so=$2 port=$3 prefix=$4 cpu=${5:-$SRV_CPU} cfg=${6:-B}
SD=$OUT/scale
D=$prefix.srv
ENTRY='^(mt_cmd_[A-Za-z0-9]+|mt_config_(create|merge)|mt_setup_check|mt_hook_[a-z_]+|mt_stores_forget|mt_status_forget|mt_status_handler|mt_status_hook)$'
mkdir -p "$D/cg"
chmod 1777 "$D/cg"
sed "s/127.0.0.1:18520>/127.0.0.1:$port>/" "$SD/vhosts-$n-$cfg.conf" > "$D/vhosts.conf"
MODULE=$so httpd_write_conf "$D" "$port" "$([ "$cfg" = B ] && echo 1 || echo 0)" "$D/vhosts.conf"
out=$D/cg/startup.out
rm -f "$out"
install -m 0666 -o nobody /dev/null "$out"
taskset -c "$cpu" valgrind --tool=callgrind --vgdb=no --callgrind-out-file="$out" \
    "$APACHE" -X -f "$D/httpd.conf" > "$out.log" 2>&1 &
pid=$!
name=$(printf 'v%05d.bench.test' "$n")
expect=""
[ "$cfg" = B ] && expect="-e $SD/expect-$n.pem"
# shellcheck disable=SC2086
loadgen -q -n 1 --await 1200 --timeout 1200 --tls 1.2 -s "$name" $expect \
    "127.0.0.1:$port" > /dev/null || { kill -TERM $pid; die "cg-startup: no handshake"; }
kill -TERM "$pid"
wait "$pid" 2> /dev/null
total=$(awk '/^totals:/ { print $2 }' "$out")
callgrind_annotate --inclusive=yes --threshold=100 "$out" 2> /dev/null > "$out.incl.txt"
module=$(awk '/file:function/ { p = 1; next } p && /^-+$/ { next }
     p && /^$/ { if (k) exit; next } p { k++; print }' "$out.incl.txt" |
    sed -E 's/^ *([0-9,]+) \([ 0-9.]+%\) +(.*)$/\1 \2/; s/ \[.*$//' |
    awk -v re="$ENTRY" '{ c = $1; gsub(",", "", c); f = $2; sub(/^.*:/, "", f)
        if (f ~ re && !seen[f]++) s += c } END { printf "%.0f\n", s }')
echo "total=$total module=$module per_vhost_module=$(calc "$module / $n") share=$(calc "$module / $total")"
