# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# What the packages' readers read (issue 46, item 5): the docs and hooks as
# make install writes them for the Debian packages, with debian/rules'
# MAKE_VARS (read from debian/rules), beside the source tree's copy (make
# install's defaults), each installed into a DESTDIR of its own with the
# tool and the module already built (make -o, as 21-guides-config.t).
#
#  - No installed doc shows a build marker (<!-- make install -->): the
#    passages between them are copied word for word, the marker lines left
#    out.
#  - The admin guide's section 1 table names each copy's own install, and
#    says whose: make install's in the source tree's copy, the packages'
#    in theirs (DOC_COPY=package), with the names dpkg and dh_compress
#    give (tack.conf.dpkg-dist, tacktool.1.gz, *.md.gz).
#  - The packages' README is their own (debian/README.package), in both
#    packages: no make install, ./tack, tack COMMAND or docs/ path, and
#    every guide and /usr path it names is one the package installs.
#  - The packaged hooks (/usr/libexec/tacktool/) say tacktool: in their
#    comments (no `tack sign`, no "tack, from PATH") and messages (the
#    command they ran, $TACK), and point to the installed admin guide.
#  - The packaged hosting guide sends its reader to no file of the source
#    repository (a test, a make target) without saying it is in mod_tack's
#    source tree: each paragraph or list item that names one says so.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
my $top = top();
my $so = "$top/build/mod_tack.so";
BAIL_OUT("$so not built: run make module") unless -e $so;

# debian/rules' MAKE_VARS: what the package's build gives make install.
(my $rules = slurp("$top/debian/rules")) =~ s/\\\n/ /g;
my ($make_vars) = $rules =~ /^MAKE_VARS\s*:=\s*(.*)$/m;
my @pkg_vars = split ' ', $make_vars // '';
ok(grep({ /^TACK_PROG=tacktool$/ } @pkg_vars), "debian/rules' MAKE_VARS: @pkg_vars");
my %var = map { /^(\w+)=(.*)$/ } @pkg_vars;

my %copy = (
    source  => { vars => [], docdir => '/usr/local/share/doc/mod_tack',
                 hookdir => '/usr/local/lib/tack' },
    package => { vars => \@pkg_vars, docdir => $var{DOCDIR} // '?',
                 hookdir => $var{HOOKDIR} // '?' },
);
my @copies = qw(source package);
for my $c (@copies) {
    my $d = $copy{$c};
    make_install_copy($c, $d, $so);
    $d->{hooks} = "$d->{dest}$d->{hookdir}";
}
my @guides = sort map { s{.*/}{}r } glob("$copy{package}{docs}/*.md");
ok(grep({ $_ eq 'admin-guide.md' } @guides) && grep({ $_ eq 'hosting-guide.md' } @guides),
   "the package's guides: @guides");

# ---- no build markers -------------------------------------------------------
for my $c (@copies) {
    for my $f (map { s{.*/}{}r } glob("$copy{$c}{docs}/*")) {
        next if $f =~ /\.png$/;
        my @marks = grep { /<!--/ } split /\n/, slurp("$copy{$c}{docs}/$f");
        ok(!@marks, "$c copy: $f shows no build marker") or diag(join "\n", @marks);
    }
    # what is between the source's markers is there, word for word
    for my $g (@guides) {
        my @kept = slurp("$top/docs/$g") =~ /^<!-- make install -->\n(.*?)^<!-- \/make install -->\n/msg;
        next unless @kept;
        my $text = slurp("$copy{$c}{docs}/$g");
        is(scalar(grep { index($text, $_) >= 0 } @kept), scalar(@kept),
           "$c copy: $g has its " . scalar(@kept) . " make install passages word for word");
    }
}

# ---- the admin guide's section 1: each copy's own install -------------------
for my $t ('t/repo/15-guides.t', 't/repo/21-guides-config.t') {
    my $src = slurp("$top/$t");
    my @missing = grep { index($src, "'$_'") < 0 } @pkg_vars;
    ok(!@missing, "$t installs the package's copy with debian/rules' MAKE_VARS")
        or diag("not in $t: @missing");
}
my %sec1;
for my $c (@copies) {
    ($sec1{$c}) = slurp("$copy{$c}{docs}/admin-guide.md") =~ /^## 1\. .*?\n(.*?)^### Or: the Debian packages$/ms;
    ok($sec1{$c}, "$c copy: admin-guide.md has section 1") or $sec1{$c} = '';
}
like($sec1{source}, qr/^`make install` puts the files below\. /m,
     "source copy: section 1's table is what make install puts");
like($sec1{package}, qr/^The Debian packages put the files below\. /m,
     "package copy: section 1's table is what the packages put");
unlike($sec1{package}, qr/`make install` puts the files below/,
       '... not what make install puts');
for my $c (@copies) {
    # every place the table names is where this copy's install put it
    my ($table) = $sec1{$c} =~ /^(\| file \| where \|\n.*?)\n\n/ms;
    my @places = ($table // '') =~ m{`(/usr/[^`]*)`}g;
    ok(@places >= 4, "$c copy: section 1's table names " . scalar(@places) . ' places under /usr');
    for my $p (@places) {
        (my $f = $p) =~ s/\.gz$//;    # dh_compress's, after make install
        ok(-e "$copy{$c}{dest}$f", "$c copy: the table's $p is its install's");
    }
}
like($sec1{source}, qr{`/usr/local/share/man/man1/tack\.1` \(`man tack`\)},
     "source copy: the manual as make install puts it");
like($sec1{package}, qr{`/usr/share/man/man1/tacktool\.1\.gz` \(`man tacktool`\)},
     'package copy: the manual as the package ships it, compressed');
like($sec1{package}, qr{`/usr/share/doc/libapache2-mod-tack/` \(`README\.gz` and `\*\.md\.gz`\)},
     '... and the guides and README');
# dh_compress compresses a doc over 4 KB (README.gz, as the table says)
ok(-s "$copy{package}{docs}/README" > 4096, "... the package's README is over 4 KB: README.gz");
# make install's recipe (scripts/install.sh) keeps an edited tack.conf and
# writes tack.conf.dist; the package's postinst and dpkg write
# tack.conf.dpkg-dist.
like(slurp("$top/scripts/install.sh"), qr{/tack\.conf\.dist"$}m, 'make install writes tack.conf.dist');
like($sec1{source}, qr/`tack\.conf\.dist`/, '... and the source copy says so');
my $pkg_guide = slurp("$copy{package}{docs}/admin-guide.md");
like($sec1{package}, qr/`tack\.conf\.dpkg-dist`/, 'the package copy names tack.conf.dpkg-dist in section 1');
unlike($pkg_guide, qr/tack\.conf\.dist\b/, '... and tack.conf.dist nowhere');
unlike($pkg_guide, qr/tacktool\.1(?!\.gz)/, '... nor a tacktool.1 the package does not ship');

# ---- the packages' README ---------------------------------------------------
is(slurp("$copy{source}{docs}/README"), slurp("$top/README"), "source copy: the tree's README");
my $readme = slurp("$copy{package}{docs}/README");
is($readme, slurp("$top/debian/README.package"), "package copy: the packages' README, debian/README.package");
{
    my $cmds = 'genkey|sign|break|view|serverinfo|check|pins|preload|state|help|version';
    # a make target (the Makefile's .PHONY ones) only where the paragraph
    # says it is the source tree's
    (my $mk = slurp("$top/Makefile")) =~ s/\\\n/ /g;
    my $targets = join '|', map { split ' ' } $mk =~ /^\.PHONY:(.*)$/mg;
    my @bad = grep { /\bmake (?:&&|install|uninstall)\b|\.\/tack\b|(?<![-\w.\/=])tack (?:(?:--quiet|-q) )?(?:$cmds)\b|(?<![\w.\/])docs\//
                     || /\bmake\s+(?:$targets)\b/ && !/source tree/ } split /\n\n/, $readme;
    ok(!@bad, "... names no make install, ./tack, tack COMMAND or docs/ path, nor a make target but the source tree's")
        or diag(join "\n--\n", @bad);
    like($readme, qr{^    tacktool genkey }m, '... and says tacktool');
    my @md = $readme =~ /\b([a-z-]+\.md)(?:\.gz)?\b/g;
    ok(@md >= 6, "... names the guides: @md");
    my @gone = grep { !-e "$copy{package}{docs}/$_" && !/^(?:contributing|fuzzing)\.md$/ } @md;
    ok(!@gone, '... each one the package installs') or diag("not installed: @gone");
    ok(!grep({ /^(?:contributing|fuzzing)\.md$/ } @md) || $readme =~ /contributing\.md, fuzzing\.md\) and the screenshot/,
       '... and the developers\' only as the source tree\'s');
    # but tacktool's doc directory (dh_installdocs makes it) and the
    # /usr/bin/tack of Debian's other tack package
    my @paths = grep { !m{^/usr/share/doc/tacktool/?$|^/usr/bin/tack$} }
        map { s/[.,]$//r } $readme =~ m{(?<![\w.])(/usr/[\w./-]+)}g;
    ok(@paths >= 4, "... names " . scalar(@paths) . ' places under /usr');
    my @missing = grep { !-e $copy{package}{dest} . s/\.gz$//r } @paths;
    ok(!@missing, '... each one the packages install') or diag("not installed: @missing");
}
# tacktool's README is that one too, not the tree's (debian/rules)
my ($tool_docs) = $rules =~ /^\s*dh_installdocs -ptacktool (.*)$/m;
my @tool_docs = split ' ', $tool_docs // '';
ok(grep({ $_ eq "debian/tmp$copy{package}{docdir}/README" } @tool_docs)
   && !grep({ $_ eq 'README' } @tool_docs),
   "debian/rules gives tacktool the packages' README: @tool_docs");

# ---- the packaged hooks -----------------------------------------------------
{
    my $cmds = 'genkey|sign|break|view|serverinfo|check|pins|preload|state|help|version';
    my @hooks = sort map { s{.*/}{}r } glob("$top/hooks/*");
    is(join(' ', sort map { s{.*/}{}r } glob("$copy{package}{hooks}/*")), "@hooks",
       "package copy: the hooks in $copy{package}{hookdir}: @hooks");
    for my $h (@hooks) {
        my $text = slurp("$copy{package}{hooks}/$h");
        like($text, qr/^TACK=\$\{TACK:-\/usr\/bin\/tacktool\}$/m, "$h runs /usr/bin/tacktool");
        my @old = grep { /(?<![-\w.\/=\$])tack (?:(?:--quiet|-q) )?(?:$cmds)\b|\(tack, from PATH\)/ }
            split /\n/, $text;
        ok(!@old, "... and its comments say tacktool") or diag(join "\n", @old);
        # what it says: the command it ran is $TACK, never a literal tack
        my @msgs = grep { /^\s*(?:.*(?:\|\||&&|;|\{|then)\s*)?(?:say|die|note)\s/ } split /\n/, $text;
        ok(@msgs >= 3, '... ' . scalar(@msgs) . ' messages');
        my @bad = grep { /\btack\b(?!-)/ } @msgs;
        ok(!@bad, '... none names tack for the tool') or diag(join "\n", @bad);
        my @docs = $text =~ m{([\w/.-]*admin-guide\.md[\w.]*)}g;
        ok(@docs && !grep({ !m{^\Q$copy{package}{docdir}\E/admin-guide\.md\.gz$} } @docs),
           "... and the admin guide as the package installs it: @docs");
    }
    my $renew = slurp("$copy{package}{hooks}/tack-renew");
    like($renew, qr{tacktool-renew\.timer, or by its\n# /etc/cron\.d/tacktool-renew }, 'tack-renew names the timer and cron file the package installs');
    like($rules, qr/--name=tacktool-renew tacktool-renew\.timer/, '... as debian/rules names them');
}

# ---- the hosting guide: the source tree's files said to be there -----------
{
    (my $mk = slurp("$top/Makefile")) =~ s/\\\n/ /g;
    my $targets = join '|', grep { $_ ne 'install' } map { split ' ' } $mk =~ /^\.PHONY:(.*)$/mg;
    (my $text = slurp("$copy{package}{docs}/hosting-guide.md")) =~ s/^( *)```.*?^\1```$//msg;
    # paragraphs, and the items of a list each on its own
    my @paras = split /\n[ \t]*\n|\n(?=[ \t]*(?:[-*]|\d+\.) )/, $text;
    my @naming = grep { /`t\/[\w\/.-]+`|`make (?:$targets)`/ } @paras;
    ok(@naming >= 5, 'package copy: hosting-guide.md names the source tree\'s tests or make targets in '
       . scalar(@naming) . ' paragraphs');
    my @unsaid = grep { !/mod_tack's\s+source\s+tree/ } @naming;
    ok(!@unsaid, '... each saying they are in mod_tack\'s source tree')
        or diag(join "\n--\n", @unsaid);
}

done_testing();
