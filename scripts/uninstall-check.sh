#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# uninstall-check.sh [--package] CONFDIR -- run by make uninstall (and, with
# --package, by libapache2-mod-tack's prerm) before it removes anything:
# lists every line that the httpd configuration in CONFDIR still reads
# and that needs the module, outside the module's own
# mods-available/tack.conf and outside <IfModule tack_module> (or
# mod_tack.c) blocks, as FILE:LINE: TEXT, and exits 1 when there is one:
# every Tack directive ("Invalid command 'TackFile'" without the module),
# and every LogLevel that names the module, in any form httpd takes
# (tack:, tack_module:, mod_tack.c:, alone or among other modules: "Cannot
# find module tack").  Without the module `apache2ctl graceful`, and the
# next boot, would fail.  A "SetHandler tack-status"
# line is not among them: httpd accepts a handler no module knows (the page
# is then gone, nothing else), so those lines are named as leftovers the
# administrator may want to remove, and are no reason to refuse.  The files
# are the ones httpd reads (apache2ctl -t -D DUMP_INCLUDES); when that
# cannot run, every enabled file.
set -u
package=
if [ "${1:-}" = --package ]; then
    package=1
    shift
fi
confdir=${1:?usage: uninstall-check.sh [--package] CONFDIR}

files=$(APACHE_CONFDIR=$confdir apache2ctl -t -D DUMP_INCLUDES 2>/dev/null |
        sed -n 's/^ *([0-9*]*) //p')
if [ -z "$files" ]; then
    files=$(ls -d "$confdir"/apache2.conf "$confdir"/ports.conf \
        "$confdir"/conf-enabled/* "$confdir"/sites-enabled/* \
        "$confdir"/mods-enabled/*.conf 2>/dev/null)
fi
# grep_conf ERE: the lines of the configuration matching ERE (lower case:
# directive and module names are matched without case), as FILE:LINE:
# TEXT, leaving out what <IfModule tack_module> or <IfModule mod_tack.c>
# encloses (httpd skips it without the module).  Comments are not read.
grep_conf() {
    printf '%s\n' "$files" | while IFS= read -r f; do
        case $f in
        */mods-enabled/tack.conf | */mods-available/tack.conf) continue ;;
        esac
        [ -f "$f" ] || continue
        awk -v re="^[[:space:]]*$1" -v f="$f" '
        { line = tolower($0) }
        line ~ /^[[:space:]]*<ifmodule[[:space:]]/ {
            n++
            ours[n] = line ~ /^[[:space:]]*<ifmodule[[:space:]]+"?(tack_module|mod_tack\.c)"?[[:space:]]*>/
            inside += ours[n]
            next
        }
        line ~ /^[[:space:]]*<\/ifmodule[[:space:]]*>/ {
            if (n) { inside -= ours[n]; n-- }
            next
        }
        !inside && line ~ re { print f ":" NR ":" $0 }' "$f" ||
            echo "$f:0: (could not be read through; look at it yourself)"
    done
}
found=$({ grep_conf 'tack[a-z0-9]*([[:space:]]|$)'
          grep_conf 'loglevel([[:space:]]+[^[:space:]]+)*[[:space:]]+"?(tack|tack_module|mod_tack\.c):'
        } | sort -t: -k1,1 -k2,2n)
handlers=$(grep_conf 'sethandler[[:space:]]+"?tack-status"?([[:space:]]|$)')
leftovers() {
    [ -n "$handlers" ] || return 0
    cat >&2 <<MSG
Left for you to remove, no reason to refuse (httpd accepts a handler no
module knows; the status page goes with the module):
$handlers
MSG
}
if [ -z "$found" ]; then
    leftovers
    exit 0
fi
if [ -n "$package" ]; then
    cat >&2 <<MSG
libapache2-mod-tack: not removed: the configuration in $confdir still uses
mod_tack, and without the module httpd would refuse it (the next
apache2ctl graceful, restart or boot fails with "Invalid command" or
"Cannot find module tack").
Remove these lines first:
$found
then remove the package again. TACK_FORCE_REMOVE=1 (in apt's environment)
removes it all the same.
MSG
    leftovers
    exit 1
fi
cat >&2 <<MSG
make uninstall: the configuration in $confdir still uses mod_tack; without
the module httpd would refuse it (apache2ctl graceful and the next start
fail: "Invalid command", "Cannot find module tack").
Remove these lines first:
$found
then run make uninstall again (nothing was removed). FORCE=1 removes
mod_tack all the same.
MSG
leftovers
exit 1
