# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# `make help` lists every target of the Makefile (README says it lists them
# all), and names none that does not exist.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $mk = slurp(top() . '/Makefile');
(my $joined = $mk) =~ s/\\\n/ /g;
my %phony = map { $_ => 1 } map { split ' ' } $joined =~ /^\.PHONY:(.*)$/mg;
# Every target a user types is .PHONY; a rule for a name that is not
# (a file like ./tack) is not a target to list.
my @rules = $mk =~ /^([a-z][a-z0-9-]*):(?!=)/mg;
ok(scalar(keys %phony) >= 30, 'the Makefile declares its targets .PHONY');
for my $t (@rules) {
    next if $t eq 'tack'; # the binary
    ok($phony{$t}, "target $t is .PHONY");
}
my ($rc, $out, $err) = run3({ cwd => top() }, 'make', '-s', 'help');
is($rc, 0, 'make help exits 0') or diag($err);
my %listed = map { $_ => 1 } $out =~ /^\s+make ([a-z][a-z0-9-]*)/mg;
like($out, qr/^\s+make\s{2,}build/m, 'make help names plain make');
for my $t (sort keys %phony) {
    next if $t eq 'all'; # plain make
    ok($listed{$t}, "make help lists $t");
}
for my $t (sort keys %listed) {
    ok($phony{$t}, "make help's $t is a target of the Makefile");
}

# Variables of one target must not shadow another's: make test-release
# without DIST= is Debian 13's (the packages' output directory once took
# the name).
($rc, $out, $err) = run3({ cwd => top() }, 'make', '-n', 'test-release');
like($out, qr{scripts/test-release\.sh trixie$}m, 'make test-release alone tests trixie');
($rc, $out, $err) = run3({ cwd => top() }, 'make', '-n', 'test-release', 'DIST=bookworm');
like($out, qr{scripts/test-release\.sh bookworm$}m, '... and DIST=bookworm bookworm');

done_testing();
