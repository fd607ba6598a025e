#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# package-owned.sh install|uninstall -- run by make install and make
# uninstall (without DESTDIR) before they change anything: refuses, exit 2,
# while Debian's package libapache2-mod-tack is on this system, installed or
# removed with its conffiles left (dpkg state rc).  The package owns
# /usr/lib/apache2/modules/mod_tack.so and /etc/apache2/mods-available/
# tack.load and tack.conf (its conffiles): make install would replace files
# dpkg owns, make uninstall delete them, and two owners of one file is never
# right, so there is no override.  Exit 0 when dpkg does not know the
# package, or there is no dpkg-query (not Debian).
set -u
action=${1:?usage: package-owned.sh install|uninstall}
pkg=libapache2-mod-tack

command -v dpkg-query >/dev/null 2>&1 || exit 0
# Status-Abbrev: wanted, state, error flag; state n is not installed
# (dpkg-query fails outright for a package it has never seen).
status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) || exit 0
status=${status%% *}
case $status in
'' | ?n*) exit 0 ;;
esac
version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)

if [ "$action" = install ]; then
    verb="would overwrite"
else
    verb="would delete"
fi
case $status in
?c*)
    state="removed, with its conffiles left (dpkg state $status)"
    owns="its conffiles /etc/apache2/mods-available/tack.load and tack.conf"
    todo="apt purge $pkg"
    ;;
?i*)
    state="installed (dpkg state $status)"
    owns="/usr/lib/apache2/modules/mod_tack.so and its conffiles
/etc/apache2/mods-available/tack.load and tack.conf"
    todo="apt remove $pkg (apt purge $pkg: its tack.conf too)"
    ;;
*)
    state="half installed or removed (dpkg state $status)"
    owns="/usr/lib/apache2/modules/mod_tack.so and its conffiles
/etc/apache2/mods-available/tack.load and tack.conf"
    todo="apt purge $pkg (dpkg --audit explains the state)"
    ;;
esac

cat >&2 <<EOF
make $action: refused, nothing changed: Debian's package
$pkg $version is $state.
dpkg owns $owns,
which make $action $verb.  Either remove the package first:
    $todo
then make $action again; or use the package instead: its command is
tacktool (man tacktool), and a2enmod tack enables the module.
EOF
exit 2
