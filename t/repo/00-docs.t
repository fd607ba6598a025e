# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# docs/tack.1 renders with man -l, without groff warnings, and documents
# every command `tack help` lists; README's documentation list names every
# directive of docs/directives.md.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

# Nothing here may pass by skipping: make deps installs man-db (and with it
# groff-base), and make test builds the tool first.
BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
BAIL_OUT('man or groff not installed: run make deps')
    unless -x '/usr/bin/man' && -x '/usr/bin/groff';

my $page = top() . '/docs/tack.1';
ok(-e $page, 'docs/tack.1 exists');

{
    my ($rc, $out, $err) = man_render('-l', $page);
    is($rc, 0, 'man -l docs/tack.1 exits 0') or diag($err);
    is($err, '', '... and says nothing on stderr');
    like($out, qr/^NAME\n tack \S make, inspect/m, 'it has a NAME section');
    for my $s ('SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'PASSWORDS',
               'EXIT STATUS', 'EXAMPLES') {
        like($out, qr/^\Q$s\E$/m, "section $s");
    }
}

{
    my ($rc, $out, $err) = run3('groff', '-man', '-ww', '-z', $page);
    is($err, '', 'groff -ww finds nothing to warn about') or diag($err);
}

{
    my ($rc, $out) = tack('help');
    my @cmds = $out =~ /^  (\w+)\s/mg;
    ok(@cmds >= 7, 'tack help lists the commands');
    my $src = slurp($page);
    for my $c (grep { $_ ne 'help' && $_ ne 'version' } @cmds) {
        like($src, qr/^\.SS "tack \Q$c\E"$/m, "the man page explains $c");
    }
}

{
    my @dirs = slurp(top() . '/docs/directives.md') =~ /^## (Tack\w+)$/mg;
    ok(@dirs >= 12, scalar(@dirs) . ' directives in docs/directives.md');
    my ($list) = slurp(top() . '/README') =~ /^  docs\/directives\.md(.*?)^  docs\//ms;
    my %named = map { $_ => 1 } ($list // '') =~ /\b(Tack\w+)\b/g;
    ok($named{$_}, "README's documentation list names $_") for @dirs;
}

done_testing();
