# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TACK_PROG: built with TACK_PROG=tacktool (the name Debian's package gives
# the command, its own tack package owning /usr/bin/tack), the tool says
# tacktool wherever it names itself, and make install installs it, its man
# page and the hooks' default under that name.  The build and the install
# go to a temporary directory (BUILD, TOOL_OUT, DESTDIR): ./tack, build/
# and the module in the tree, which other suites use meanwhile, are never
# rebuilt (make -o keeps the module as it is; install only reads it).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
my $top = top();
BAIL_OUT("$top/build/mod_tack.so not built: run make module")
    unless -e "$top/build/mod_tack.so";
BAIL_OUT('man or groff not installed: run make deps')
    unless -x '/usr/bin/man' && -x '/usr/bin/groff';

# A command name that is still tack: the word alone, as a command is
# written (not --tack, mod_tack, *.tack.pem, token=tack, /usr/bin/tack).
my $old_name = qr/(?<![-\w.\/=])tack(?=[ :(`]|$)/m;

# ---- the default build ----------------------------------------------------
{
    my ($rc, $out) = tack('--version');
    like($out, qr/^tack \d+\.\d+\.\d+ \(mod_tack; /,
         './tack --version starts "tack "');
}

# ---- TACK_PROG=tacktool, built and installed into a temporary directory --
my $dir = tmp() . '/prog';
my $dest = "$dir/dest";
mkdir $dir or die "$dir: $!";
my @tree = ('tack', 'build/libtack.a', 'build/mod_tack.so');
my %before = map { $_ => join(' ', (stat "$top/$_")[1, 7, 9]) } @tree;

my @vars = ('PREFIX=/usr', 'TACK_PROG=tacktool', "BUILD=$dir/build",
            "TOOL_OUT=$dir/tacktool", "DESTDIR=$dest",
            "MODULE_SO=$top/build/mod_tack.so");
my ($rc, $out, $err) = run3({ env => { MAKEFLAGS => '' } }, 'make', '-s',
    '-C', $top, '-o', "$top/build/mod_tack.so", 'install', @vars);
is($rc, 0, 'make install TACK_PROG=tacktool DESTDIR=... exits 0')
    or diag($out, $err);
my $bin = "$dest/usr/bin/tacktool";
ok(-x $bin, 'it installs /usr/bin/tacktool');
ok(!-e "$dest/usr/bin/tack", '... and no /usr/bin/tack');
for (@tree) {
    is(join(' ', (stat "$top/$_")[1, 7, 9]), $before{$_},
       "$_ in the tree is untouched");
}

# ---- what users of tacktool see -------------------------------------------
($rc, $out) = run3($bin, '--version');
like($out, qr/^tacktool \d+\.\d+\.\d+ \(mod_tack; /,
     'tacktool --version starts "tacktool "');

($rc, $out) = run3($bin, 'help');
like($out, qr/^usage: tacktool COMMAND \[OPTIONS\]$/m,
     'tacktool help: usage: tacktool COMMAND');
like($out, qr/^`tacktool help COMMAND` \(or `tacktool COMMAND --help`\)/m,
     '... and points to tacktool help COMMAND');
unlike($out, $old_name, '... and names no tack command');
my @cmds = $out =~ /^  (\w+)\s/mg;
ok(@cmds >= 9, 'tacktool help lists the commands');
for my $c (@cmds) {
    ($rc, $out) = run3($bin, 'help', $c);
    like($out, qr/^usage: tacktool \Q$c\E\b/, "tacktool help $c: usage: tacktool $c");
    unlike($out, $old_name, "... and names no tack command");
}
# The synopsis continues under its options, whatever the name's length.
($rc, $out) = run3($bin, 'help', 'check');
my $col = length('usage: tacktool check ');
like($out, qr/^ {$col}\[--format draft-00\|draft-02\|auto\]/m,
     'tacktool help check: the synopsis continues under its first option');
($rc, $out) = run3($bin, 'sign', '--help');
like($out, qr/^usage: tacktool sign -k KEYFILE/, 'tacktool sign --help: usage: tacktool sign');
like($out, qr/--password-file FILE   see `tacktool help genkey`/,
     '... and sends to tacktool help genkey');
unlike($out, $old_name, '... and names no tack command');

($rc, $out, $err) = run3($bin, 'view', "$dir/missing.pem");
is($rc, 2, 'tacktool view of a missing file exits 2');
like($err, qr/^tacktool: /, '... with a message that starts "tacktool: "');
($rc, $out, $err) = run3($bin, 'sign', '--bogus');
like($err, qr/^tacktool sign: unrecognized option '--bogus'$/m,
     "getopt's message starts \"tacktool sign: \"");
like($err, qr/^\(`tacktool help sign` explains the options\)$/m,
     '... and the hint names tacktool help sign');
($rc, $out, $err) = run3($bin, 'preload', 'view', '--bogus');
like($err, qr/^tacktool preload view: unrecognized option/m,
     'preload view: "tacktool preload view: "');
($rc, $out, $err) = run3($bin, 'frobnicate');
like($err, qr/^tacktool: no command "frobnicate"; `tacktool help` lists them$/,
     'an unknown command: tacktool help lists them');
($rc, $out, $err) = run3($bin, 'genkey', '-p', 'pw', '-o', "$dir/k.pem");
is($rc, 0, 'tacktool genkey exits 0') or diag($err);
like($err, qr/^tacktool: wrote \Q$dir\E\/k\.pem, TACK ID /,
     '... and says "tacktool: wrote"');
like(slurp("$dir/k.pem"), qr/^Created by tacktool \d/m,
     '... into a file "Created by tacktool"');

# ---- the man page -----------------------------------------------------------
my $man = "$dest/usr/share/man/man1/tacktool.1";
ok(-e $man, 'the man page is /usr/share/man/man1/tacktool.1');
ok(!-e "$dest/usr/share/man/man1/tack.1", '... and there is no tack.1');
($rc, $out, $err) = man_render('--warnings', '-l', $man);
is($rc, 0, 'man --warnings -l tacktool.1 exits 0');
is($err, '', '... without a warning');
like($out, qr/^TACKTOOL\(1\) User Commands TACKTOOL\(1\)$/m,
     'its title is TACKTOOL(1)');
like($out, qr/^NAME\n tacktool \S make, inspect/m,
     'its NAME line is tacktool');
like($out, qr/^SYNOPSIS\n\s+tacktool +genkey/m, 'its SYNOPSIS says tacktool');
like($out, qr/^\s+\$ tacktool genkey -o site\.key$/m,
     'its examples say tacktool');
like($out, qr/\/etc\/apache2\/tack\//, '/etc/apache2/tack/ is untouched');
like($out, qr/--tack HOST=FILE/, '--tack is untouched');
like($out, qr/\bTackFile\b/, 'TackFile is untouched');
like($out, qr/\bmod_tack's\s+guides\b/, 'mod_tack is untouched');
like($out, qr/installed\s+in\s+\/usr\/share\/doc\/mod_tack\s/,
     'SEE ALSO names the documentation under PREFIX');
# tack stays in one place: the sentence about Debian's other tack package.
(my $rest = $out) =~ s/Debian's\s+package\s+tacktool\s.*?configuration\.//s;
isnt($rest, $out, "it says why Debian's package calls it tacktool");
unlike($rest, $old_name, 'and names no tack command anywhere else');
{
    my $src = slurp($man);
    like($src, qr/^\.SS "tacktool \Q$_\E"$/m, "its section on $_ is tacktool $_")
        for grep { $_ ne 'help' && $_ ne 'version' } @cmds;
    ($rc, $out, $err) = run3('groff', '-man', '-ww', '-z', $man);
    is($err, '', 'groff -ww finds nothing to warn about');
}

# ---- the guides name the installed command -------------------------------
# Every command of `tacktool help` (state included: the package's copies
# said "tack state" in five places) is written tacktool in the installed
# guides, outside what they say of make install's own paths.
{
    my @docs = glob("$dest/usr/share/doc/mod_tack/*.md");
    ok(@docs >= 5, scalar(@docs) . ' guides installed');
    my $cmd_re = join('|', @cmds);
    my @old;
    for my $doc (@docs) {
        my $text = outside_make_install(slurp($doc), "$top/docs/" . ($doc =~ s{.*/}{}r));
        push @old, map { "$doc: $_" }
            grep { /(?:^|[ `("])tack (?:(?:--quiet|-q) )?(?:$cmd_re)\b/ } split /\n/, $text;
    }
    is(scalar(@old), 0, '... none says tack COMMAND for the installed tool')
        or diag(join "\n", @old[0 .. ($#old < 9 ? $#old : 9)]);
}

# ---- the hooks run the installed tacktool ---------------------------------
for my $h (qw(tack-certbot-hook tack-md-hook)) {
    like(slurp("$dest/usr/lib/tack/$h"), qr/^TACK=\$\{TACK:-\/usr\/bin\/tacktool\}$/m,
         "$h runs /usr/bin/tacktool by default");
}

# ---- make uninstall removes those names -----------------------------------
($rc, $out, $err) = run3({ env => { MAKEFLAGS => '' } }, 'make', '-s',
    '-C', $top, 'uninstall', @vars);
is($rc, 0, 'make uninstall TACK_PROG=tacktool DESTDIR=... exits 0')
    or diag($out, $err);
ok(!-e $bin, 'it removes /usr/bin/tacktool');
ok(!-e $man, 'it removes tacktool.1');

done_testing();
