#!/bin/sh
# deps.sh -- install the Debian 12 packages mod_tack builds and tests with.
# As root it runs apt-get; otherwise it prints the exact command to run.
set -e
PKGS="build-essential pkg-config openssl libssl-dev check libjansson-dev \
apache2 apache2-dev libapache2-mod-perl2 clang libclang-rt-14-dev man-db \
valgrind gdb"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
        || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps: all packages present"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing:$missing"
    echo "deps: run as root:  apt-get update && apt-get install -y$missing"
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends $missing
