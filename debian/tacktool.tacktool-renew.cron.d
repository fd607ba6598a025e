# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The weekly re-sign of TackFile TACKs (the admin guide's section 9) where
# systemd does not run; where it does, tacktool-renew.timer runs it and this
# line stands down.  Inert: it does nothing and says nothing until
# /etc/tack/renew.conf names what to re-sign (TACK_RENEW).
17 4 * * 1 root [ -d /run/systemd/system ] && exit 0; [ -x /usr/libexec/tacktool/tack-renew ] || exit 0; /usr/libexec/tacktool/tack-renew
