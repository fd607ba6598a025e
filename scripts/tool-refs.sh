#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# tool-refs.sh HOOKDIR TOOL [DIR...] -- the files that still run the tool
# TOOL or a hook of HOOKDIR: certbot's renewal configuration
# (renew_hook = ...) and the links in its renewal-hooks, mod_md's
# MDMessageCmd in httpd's configuration, the hooks' own configuration, a
# sudoers rule, a cron job.  One name a line, sorted; nothing when none.
# make uninstall KEEP_SITES=1 names them; tacktool's prerm refuses to
# remove the tool while there is one (the next renewal would put a
# certificate live without a TACK, its hook gone).
set -u
hookdir=${1:?usage: tool-refs.sh HOOKDIR TOOL [DIR...]}
tool=${2:?usage: tool-refs.sh HOOKDIR TOOL [DIR...]}
shift 2
[ $# -gt 0 ] || set -- /etc/letsencrypt/renewal /etc/letsencrypt/renewal-hooks \
    /etc/apache2 /etc/tack /etc/sudoers /etc/sudoers.d /etc/cron.d /etc/crontab
# The package's own cron line (tacktool-renew, its weekly re-sign, inert
# until /etc/tack/renew.conf names something) goes with the tool: not a
# reference.
{
    grep -rIlF -e "$hookdir/" -e "$tool" "$@" 2>/dev/null
    find "$@" -lname "$hookdir/*" 2>/dev/null
} | grep -vx /etc/cron.d/tacktool-renew | sort -u
exit 0
