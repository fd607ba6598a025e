#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# apt-source.sh -- the Debian mirror this machine's apt uses, its URL alone
# on standard output, for the scripts that fetch a source package from it
# (openssl4-httpd.sh, openssl4-pkcs11-provider.sh, test-openssl4.sh,
# httpd-suite.sh): TACK_MIRROR when set; else the URI of the first deb
# entry in what apt reads, in apt's order: sources.list's one-line
# entries, then sources.list.d's files by name, a .list's one-line
# entries, a .sources' deb822 stanzas (Types: deb, the first of URIs:; a
# stanza with Enabled: no skipped: Debian 13 has only
# sources.list.d/debian.sources); else http://deb.debian.org/debian.
# TACK_APT_DIR: apt's directory (default /etc/apt; t/repo/32-apt-source.t).
set -eu

if [ -n "${TACK_MIRROR:-}" ]; then
    echo "$TACK_MIRROR"
    exit 0
fi
dir=${TACK_APT_DIR:-/etc/apt}

# one_line FILE: the URI of FILE's first deb line ("deb [OPTIONS] URI
# SUITE ..."; deb-src lines and comments are not deb lines).
one_line() {
    sed -n 's/^[[:space:]]*deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]\{1,\}\)[[:space:]].*/\2/p' \
        "$1" | head -n 1
}

# deb822 FILE: the first URI of FILE's first enabled stanza whose Types
# has deb (field names in any case; a field may go on in indented lines).
deb822() {
    awk '
    function reset() { deb = 0; on = 1; uri = ""; field = "" }
    function done() {
        if (deb && on && uri != "") { print uri; found = 1; exit }
        reset()
    }
    function value(v,   w, n, i) {
        n = split(v, w)
        if (field == "types") {
            for (i = 1; i <= n; i++) if (w[i] == "deb") deb = 1
        } else if (field == "uris" && uri == "" && n > 0) {
            uri = w[1]
        } else if (field == "enabled" && n > 0) {
            on = tolower(w[1]) != "no"
        }
    }
    BEGIN { reset() }
    /^#/ { next }
    /^[ \t]*$/ { done(); next }
    /^[ \t]/ { value($0); next }
    {
        i = index($0, ":")
        field = i ? tolower(substr($0, 1, i - 1)) : ""
        value(i ? substr($0, i + 1) : "")
    }
    END { if (!found) done() }
    ' "$1"
}

mirror=
if [ -f "$dir/sources.list" ]; then
    mirror=$(one_line "$dir/sources.list")
fi
for f in "$dir"/sources.list.d/*; do
    if [ -n "$mirror" ]; then
        break
    elif [ -f "$f" ]; then
        case $f in
        *.list) mirror=$(one_line "$f") ;;
        *.sources) mirror=$(deb822 "$f") ;;
        esac
    fi
done
echo "${mirror:-http://deb.debian.org/debian}"
