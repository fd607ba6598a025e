#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# uninstall-check.sh [--package] CONFDIR -- run by make uninstall (and, with
# --package, by libapache2-mod-tack's prerm) before it removes anything:
# lists every Tack directive that the httpd configuration in CONFDIR still
# reads, outside the module's own mods-available/tack.conf, as FILE:LINE:
# TEXT, and exits 1 when there is one.  Without the module httpd refuses
# such a configuration ("Invalid command 'TackFile'"), so `apache2ctl
# graceful`, and the next boot, would fail.  A "SetHandler tack-status"
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
# grep_conf ERE: the lines of the configuration matching ERE, as FILE:LINE:
# TEXT.  Directive names are case-insensitive; comments are not read.
grep_conf() {
    printf '%s\n' "$files" | while IFS= read -r f; do
        case $f in
        */mods-enabled/tack.conf | */mods-available/tack.conf) continue ;;
        esac
        [ -f "$f" ] || continue
        grep -n -i -E "^[[:space:]]*$1([[:space:]]|\$)" "$f" | sed "s#^#$f:#"
    done
}
found=$(grep_conf 'Tack[A-Za-z0-9]*')
handlers=$(grep_conf 'SetHandler[[:space:]]+"?tack-status"?')
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
apache2ctl graceful, restart or boot fails with "Invalid command").
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
fail with "Invalid command"). Remove these lines first:
$found
then run make uninstall again (nothing was removed). FORCE=1 removes
mod_tack all the same.
MSG
leftovers
exit 1
