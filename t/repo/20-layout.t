# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# README's Layout section matches the tree (issue 27, item 4): every file and directory git
# tracks at the top is named there, and everything it names exists; the
# top keeps the three parts in their folders (issue 47); and no C file of
# the three parts is over 1,000 lines (issue 47: a file that grows past it
# is split by concern, as the style guide says).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $top = top();
my $readme = slurp("$top/README");
my ($layout) = $readme =~ /^Layout\n-+\n(.*?)(?:\n\S[^\n]*\n-+\n|\z)/ms;
ok($layout, 'README has a Layout section') or BAIL_OUT('no Layout section');

# What the section names: the first word of each entry, braces expanded
# (tack_ext.[ch]), a pattern expanded to the files it matches
# (mod_tack_*.h: one or more, or it names nothing that exists), comma
# lists split (LICENSE, NOTICE).
my %named;
for my $line (split /\n/, $layout) {
    next unless $line =~ /^  (\S.*?)(?:\s{2,}|$)/;
    for my $w (split /,\s*/, $1) {
        if ($w =~ /^(.*)\.\[(\w+)\]$/) {
            $named{"$1.$_"} = 1 for split //, $2;
        } elsif ($w =~ /\*/) {
            my @files = map { s{^\Q$top/\E}{}r } glob "$top/$w";
            $named{$_} = 1 for @files ? @files : ($w);
        } else {
            $named{$w} = 1;
        }
    }
}

# The tree's top, less what the build makes (build*/, dist/, ./tack) and
# dot-files other than .ci/: read from the
# directory, not from git (the chroot runs have no git).
opendir(my $dh, $top) or die "$top: $!";
my @top = map { -d "$top/$_" ? "$_/" : $_ }
    grep { !/^\.(?!ci$)/ && !/^(?:build.*|dist|tack)$/ }
    readdir $dh;
closedir $dh;
ok(@top > 10, 'the top of the tree is read (' . scalar(@top) . ' entries)');
# The top shows the parts (issue 47): the module's files in module/, the
# core's in core/, about twenty entries, not seventy.
ok(@top <= 22, 'the top of the tree has at most 22 entries (' . scalar(@top) . ')')
    or diag("@top");
is(join(' ', sort grep { /^(?:mod_)?tack[_.]/ } @top), 'mod_tack.c',
   'of the C files only mod_tack.c, the module\'s top, is at the top');
my @missing = grep {
    !$named{$_} && !($_ eq 't/' && grep { m{^t/} } keys %named)
        && !($_ eq '.ci/' && $named{'.ci/run'})
} sort @top;
is("@missing", '', 'every top-level file and directory is in README\'s Layout');
# Each script of scripts/ has its line: a newcomer finds what runs what.
opendir(my $sd, "$top/scripts") or die "$top/scripts: $!";
my @unnamed = grep { !$named{"scripts/$_"} } sort grep { !/^\./ } readdir $sd;
closedir $sd;
is("@unnamed", '', 'every file of scripts/ is in README\'s Layout');
my @gone = grep { !-e "$top/$_" } sort keys %named;
is("@gone", '', 'everything README\'s Layout names exists');

# The product's C files (core/, module/, tool/, mod_tack.c): none over
# 1,000 lines.  Read from the directories, so that a new file is counted.
my @c_files = ('mod_tack.c',
               map { my $d = $_; map { s{^\Q$top/\E}{}r } glob "$top/$d/*.c" }
               qw(core module tool));
ok(@c_files >= 40, 'the product\'s C files are found (' . scalar(@c_files) . ')');
my @long;
for my $f (@c_files) {
    my $lines = () = slurp("$top/$f") =~ /\n/g;
    push @long, "$f ($lines lines)" if $lines > 1000;
}
is("@long", '', 'no C file of core/, module/, tool/ or mod_tack.c is over 1,000 lines');

done_testing();
