#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# install.sh install|uninstall -- make install and make uninstall, run from
# the top of the tree with make's variables in the environment (the
# Makefile's INSTALL_VARS: DESTDIR, PREFIX, BINDIR, MANDIR, DOCDIR,
# HOOKDIR, APXS_MODDIR, MODS_AVAILABLE, TACK_CONFDIR, MODS_ENABLED,
# TACK_PROG, DOC_COPY, MODULE_SO, TOOL_OUT, BUILD; uninstall also FORCE
# and KEEP_SITES).  Each command that changes a file is printed before it
# runs, as make printed the recipe's.
#
# install: the module into apxs's module directory, conf/tack.load and
# conf/tack.conf into mods-available (then: a2enmod tack), the tool and its
# man page under PREFIX, the hooks and the documentation.  DESTDIR is
# honoured for packaging; without it, nothing is done while Debian's
# package owns the module's files (scripts/package-owned.sh).
#
# uninstall: nothing is removed while the configuration still has Tack
# directives: httpd would not start without the module
# (scripts/uninstall-check.sh lists them as FILE:LINE).  FORCE=1 removes it
# all the same.  Nor while Debian's package is installed
# (scripts/package-owned.sh): not even with FORCE=1, the files are dpkg's.
# a2dismod first when the module is enabled.
#
# uninstall with KEEP_SITES=1: the way from make install to Debian's
# package (docs/admin-guide.md, "Moving from make install to the package";
# the package's preinst refuses while these files are here).  It removes the
# module, tack.conf.dist, the tool, its man page, the hooks and the docs,
# and leaves the sites' Tack lines, mods-available/tack.load and tack.conf
# and mods-enabled alone, for the package to take over; then names the
# files under /etc that still run the tool or a hook from here.  It refuses
# nothing: with the package installed already (a system where it went over
# a source install), it leaves dpkg's files and removes the rest.
# shellcheck disable=SC2016,SC2018,SC2019 # sed's backquotes and $; an ASCII name
set -eu
action=${1:?usage: install.sh install|uninstall}
: "${DESTDIR=}" "${DOC_COPY=}" "${FORCE=}" "${KEEP_SITES=}"
for v in PREFIX BINDIR MANDIR DOCDIR HOOKDIR APXS_MODDIR MODS_AVAILABLE \
    TACK_CONFDIR MODS_ENABLED TACK_PROG MODULE_SO TOOL_OUT BUILD; do
    eval "[ -n \"\${$v+set}\" ]" || {
        echo "install.sh: $v is not set (make install passes it)" >&2
        exit 2
    }
done

# run CMD...: print it, run it.
run() {
    echo "$*"
    "$@"
}

# DOC_COPY=package: the Debian packages' copy (debian/rules), else the
# source tree's.
package=
case " $DOC_COPY " in
*" package "*) package=1 ;;
esac

# The guides and references tack(1) and tack.conf point to: the
# administrator's, with the picture hosting-guide.md shows; not the
# developers' (contributing.md, fuzzing.md: read in the source tree).
guides=
for d in docs/*.md; do
    case $d in
    docs/contributing.md | docs/fuzzing.md) ;;
    *) guides="$guides $d" ;;
    esac
done
# The other docs, and what an earlier make install put there and uninstall
# removes too.
docs_other="NOTICE docs/status-1000.png"
old_docs="contributing.md fuzzing.md"
# The packages' own README (debian/README.package: the tree's is about
# building and testing).
readme=README
[ -z "$package" ] || readme=debian/README.package
# The hooks certbot and mod_md run (hooks/, docs/admin-guide.md section
# 15), and the weekly re-sign of TackFile TACKs the package runs (section
# 9).
hooks=
for h in hooks/tack-*-hook; do
    [ -e "$h" ] && hooks="$hooks $h"
done
hooks="$hooks hooks/tack-renew"

tack_cmds='genkey|sign|break|view|serverinfo|check|pins|preload|state|help|version'
prog_uc=$(echo "$TACK_PROG" | tr a-z A-Z)

# man_sed FILE: the man page under TACK_PROG's name: in docs/tack.1 the
# command is the word tack alone (after a space, a quote or the start of a
# line; before a space, a colon, a quote or the end), and tack\& the other
# tool of that name; /etc/apache2/tack/, --tack, mod_tack and TACK keep
# their names.
man_sed() {
    sed -E -e "s#/usr/local/share/doc/mod_tack#$DOCDIR#g" \
        -e "s/^\\.TH TACK /.TH $prog_uc /" \
        -e 's/(^|[ "])tack([ :"]|$)/\1'"$TACK_PROG"'\2/g' "$1"
}

# doc_sed FILE: the guides name the places this install puts things and the
# tool's command name (the package's /usr/bin/tacktool,
# /usr/libexec/tacktool/ and `tacktool sign` in the package's copy), except
# between <!-- make install --> and <!-- /make install -->: what is said
# there is about make install's own paths, in every copy, word for word;
# the two marker lines are left out of every copy (a reader of the
# installed file sees no build markers).  The command is the word tack
# before one of the tool's commands (or --quiet, -q, --version, --help),
# after a space, a backquote, a quote, a parenthesis or the start of a
# line, and not before two spaces (aligned text, as tack check's report
# line "tack check     = ok" was before it became "TACK           =
# valid"); and the tool's and the module's messages that name it ("tack:
# wrote ...", "upgrade tack"), `man tack`, the `tack` tool and an anchor of
# a heading that names a command (#6-check-it-with-tack-check).  Not
# /etc/apache2/tack/, --tack, mod_tack, TACK, tack-md-hook, .tack.pem,
# a2enmod tack, LogLevel tack:info, nor the user tack (-u tack, (tack),
# TackStoreOwner tack).
#
# The packages' copy (DOC_COPY=package), after the rest: the admin guide's
# table of section 1 is what the packages put, dpkg keeps the packaged
# sample beside an edited tack.conf as tack.conf.dpkg-dist (make install:
# tack.conf.dist), and dh_compress compresses the manual, the guides and
# the packages' README (debian/README.package: over 4 KB, README.gz).
doc_sed() {
    f=$1
    set --
    [ -z "$package" ] || set -- \
        -e 's/^`make install` puts the files below\. /The Debian packages put the files below. /' \
        -e 's/`tack\.conf\.dist`/`tack.conf.dpkg-dist`/g' \
        -e 's|(/man1/'"$TACK_PROG"'\.1)`|\1.gz`|g' \
        -e 's/\(`README` and `\*\.md`\)/(`README.gz` and `*.md.gz`)/'
    sed -E \
        -e '/^<!-- make install -->$/,/^<!-- \/make install -->$/{/^<!-- \/?make install -->$/d;b;}' \
        -e "s#/usr/local/share/doc/mod_tack#$DOCDIR#g" \
        -e "s#/usr/local/share/man/man1/tack\\.1#$MANDIR/man1/$TACK_PROG.1#g" \
        -e "s#/usr/local/lib/tack/#$HOOKDIR/#g" \
        -e "s#/usr/local/bin/tack([^-_.a-z0-9]|\$)#$BINDIR/$TACK_PROG\\1#g" \
        -e 's/(^|[ `("])tack (((--quiet|-q) )?('"$tack_cmds"')( [^ ]|[]`)",.:;]|$)|--version|--help)/\1'"$TACK_PROG"' \2/g' \
        -e "s/^tack: /$TACK_PROG: /" \
        -e 's/: upgrade tack"/: upgrade '"$TACK_PROG"'"/g' \
        -e 's/`man tack`/`man '"$TACK_PROG"'`/g' \
        -e 's/the `tack` tool/the `'"$TACK_PROG"'` tool/g' \
        -e 's/(\(#[-a-z0-9]*-)tack-('"$tack_cmds"')([-)])/\1'"$TACK_PROG"'-\2\3/g' \
        "$@" "$f"
}

# hook_sed FILE: the hooks as installed: TACK's default is the installed
# tool, which their comments name as the guides do (`tacktool sign` in the
# package's copy), and they point to the installed admin guide, not the
# tree's docs/ (the package's is compressed: DOC_COPY=package).
hook_sed() {
    gz=
    [ -z "$package" ] || gz=.gz
    sed -E \
        -e 's|^TACK=\$\{TACK:-tack\}$|TACK=${TACK:-'"$BINDIR/$TACK_PROG"'}|' \
        -e "s|/usr/local/lib/tack/|$HOOKDIR/|g" \
        -e "s|/usr/local/bin/tack |$BINDIR/$TACK_PROG |g" \
        -e 's|the tack tool \(tack, from PATH\)|the tool ('"$BINDIR/$TACK_PROG"')|' \
        -e "s|docs/admin-guide\\.md|$DOCDIR/admin-guide.md$gz|g" \
        -e 's/(^|[ `("])tack (((--quiet|-q) )?('"$tack_cmds"')( [^ ]|[]`)",.:;]|$))/\1'"$TACK_PROG"' \2/g' \
        "$1"
}

# conf_sed FILE: the sample names the installed docs and the tool's
# command name.
conf_sed() {
    sed -E -e "s#/usr/local/share/doc/mod_tack/#$DOCDIR/#g" \
        -e 's/([ (])tack (sign|break|genkey|view|check) /\1'"$TACK_PROG"' \2 /g' \
        "$1"
}

do_install() {
    # Debian's package owns the module's files: never two owners.
    [ -n "$DESTDIR" ] || scripts/package-owned.sh install
    avail=$DESTDIR$MODS_AVAILABLE
    run install -d "$DESTDIR$APXS_MODDIR" "$avail" "$DESTDIR$BINDIR" \
        "$DESTDIR$MANDIR/man1"
    run install -m 644 "$MODULE_SO" "$DESTDIR$APXS_MODDIR/mod_tack.so"
    echo "conf/tack.load -> $avail/tack.load"
    sed "s#/usr/lib/apache2/modules/#$APXS_MODDIR/#" conf/tack.load \
        >"$avail/tack.load"
    chmod 644 "$avail/tack.load"
    conf_sed conf/tack.conf >"$BUILD/tack.conf"
    if [ -f "$avail/tack.conf" ] &&
        ! cmp -s "$BUILD/tack.conf" "$avail/tack.conf"; then
        echo "keeping the edited $MODS_AVAILABLE/tack.conf;" \
            "the new sample is tack.conf.dist"
        run install -m 644 "$BUILD/tack.conf" "$avail/tack.conf.dist"
    else
        run install -m 644 "$BUILD/tack.conf" "$avail/tack.conf"
    fi
    run install -m 755 "$TOOL_OUT" "$DESTDIR$BINDIR/$TACK_PROG"
    # The man page names the command and the place the documentation was
    # installed in.
    echo "docs/tack.1 -> $DESTDIR$MANDIR/man1/$TACK_PROG.1"
    man_sed docs/tack.1 >"$DESTDIR$MANDIR/man1/$TACK_PROG.1"
    chmod 644 "$DESTDIR$MANDIR/man1/$TACK_PROG.1"
    run install -d "$DESTDIR$DOCDIR"
    # shellcheck disable=SC2086 # lists of names without blanks
    run install -m 644 $docs_other "$DESTDIR$DOCDIR/"
    run install -m 644 "$readme" "$DESTDIR$DOCDIR/README"
    # The guides name where this install put the tool, hooks and docs.
    for d in $guides; do
        echo "$d -> $DESTDIR$DOCDIR/${d#docs/}"
        doc_sed "$d" >"$DESTDIR$DOCDIR/${d#docs/}"
        chmod 644 "$DESTDIR$DOCDIR/${d#docs/}"
    done
    run install -d "$DESTDIR$HOOKDIR"
    # The hooks run the tool installed here unless their TACK says
    # otherwise, and their comments name it, the places they are installed
    # in and the installed admin guide (hook_sed).
    for h in $hooks; do
        echo "$h -> $DESTDIR$HOOKDIR/${h#hooks/}"
        hook_sed "$h" >"$DESTDIR$HOOKDIR/${h#hooks/}"
        chmod 755 "$DESTDIR$HOOKDIR/${h#hooks/}"
    done
    echo "installed; next: a2enmod tack && apache2ctl configtest &&" \
        "apache2ctl graceful ($DOCDIR/admin-guide.md)"
}

# What both ways of uninstalling remove: tack.conf.dist, the tool, its man
# page, the hooks and the docs (and their directories when empty).
uninstall_tool_files() {
    set -- "$DESTDIR$MODS_AVAILABLE/tack.conf.dist" \
        "$DESTDIR$BINDIR/$TACK_PROG" "$DESTDIR$MANDIR/man1/$TACK_PROG.1"
    for h in $hooks; do
        set -- "$@" "$DESTDIR$HOOKDIR/${h#hooks/}"
    done
    run rm -f "$@"
    rmdir --ignore-fail-on-non-empty "$DESTDIR$MANDIR/man1" 2>/dev/null || :
    rmdir --ignore-fail-on-non-empty "$DESTDIR$HOOKDIR" 2>/dev/null || :
    set --
    for d in README $docs_other $guides $old_docs; do
        set -- "$@" "$DESTDIR$DOCDIR/${d##*/}"
    done
    run rm -f "$@"
    rmdir --ignore-fail-on-non-empty "$DESTDIR$DOCDIR" \
        "$(dirname "$DESTDIR$DOCDIR")" 2>/dev/null || :
}

do_uninstall() {
    if [ -z "$DESTDIR" ]; then
        scripts/package-owned.sh uninstall
        if ! scripts/uninstall-check.sh "$TACK_CONFDIR"; then
            [ -n "$FORCE" ] || exit 1
            echo "FORCE=1: removing mod_tack all the same; remove those" \
                "lines before apache2ctl graceful"
        fi
        if [ -e "$MODS_ENABLED/tack.load" ]; then
            # as make's recipe did: the message whatever a2dismod answers
            run a2dismod -q tack || :
            echo "the module was enabled: apache2ctl graceful to unload it"
        fi
    fi
    run rm -f "$DESTDIR$APXS_MODDIR/mod_tack.so" \
        "$DESTDIR$MODS_AVAILABLE/tack.load"
    uninstall_tool_files
    conf=$DESTDIR$MODS_AVAILABLE/tack.conf
    if [ -f "$conf" ] && ! conf_sed conf/tack.conf | cmp -s - "$conf"; then
        echo "keeping the edited $MODS_AVAILABLE/tack.conf"
    else
        rm -f "$conf"
    fi
}

do_uninstall_keep_sites() {
    if [ -n "$DESTDIR" ] ||
        scripts/package-owned.sh uninstall 2>/dev/null; then
        run rm -f "$DESTDIR$APXS_MODDIR/mod_tack.so"
    else
        echo "keeping $APXS_MODDIR/mod_tack.so: libapache2-mod-tack's"
    fi
    uninstall_tool_files
    [ -z "$DESTDIR" ] || return 0
    refs=$(scripts/tool-refs.sh "$HOOKDIR" "$BINDIR/$TACK_PROG") || :
    if [ -n "$refs" ]; then
        echo "these still run the tool or a hook from $PREFIX (the" \
            "package's: /usr/bin/tacktool, /usr/libexec/tacktool/):"
        echo "$refs" | sed 's/^/    /'
    fi
    echo "kept: $MODS_AVAILABLE/tack.load, tack.conf, the sites and" \
        "mods-enabled"
    [ -e "$APXS_MODDIR/mod_tack.so" ] ||
        echo "next, before apache2 restarts: apt install" \
            "./dist/libapache2-mod-tack_*.deb ./dist/tacktool_*.deb"
}

case $action in
install) do_install ;;
uninstall)
    if [ -n "$KEEP_SITES" ]; then
        do_uninstall_keep_sites
    else
        do_uninstall
    fi
    ;;
*)
    echo "usage: install.sh install|uninstall" >&2
    exit 2
    ;;
esac
