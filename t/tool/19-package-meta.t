# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# What the Debian packaging states, checked against the tree without
# building (make package-test builds, lints and installs): the version of
# debian/changelog is the one the tool reports and the man page shows, the
# maintainer scripts parse, and the files debian/rules and the tests run
# are executable.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $top = top();
my ($pkg_version) = slurp("$top/debian/changelog") =~ /\A\S+ \(([^)]+)\) /;
ok($pkg_version, "debian/changelog's version: " . ($pkg_version // 'none'));
my ($rc, $out) = run_cmd({}, $TACK, '--version');
is($rc, 0, 'tack --version');
my ($tool_version) = $out =~ /^\S+ (\S+) /;
is($tool_version, $pkg_version, 'the tool reports the package version');
my ($man_version) = slurp("$top/docs/tack.1") =~ /^\.TH \S+ 1 "[^"]*" "mod_tack ([^"]+)"/m;
is($man_version, $pkg_version, 'the man page shows it');
like(slurp("$top/debian/copyright"),
     qr{\AFormat: https://www\.debian\.org/doc/packaging-manuals/copyright-format/1\.0/\n.*^License: Apache-2\.0$}ms,
     'debian/copyright is machine-readable and says Apache-2.0');
my @tests = map { s{^\Q$top\E/}{}r } grep { !/control$/ } glob("$top/debian/tests/*");
ok(scalar(@tests) >= 2, 'debian/tests has its tests: ' . join(' ', @tests));
for my $f (qw(debian/rules scripts/package.sh scripts/package-autopkgtest.sh
              scripts/uninstall-check.sh), @tests) {
    ok(-x "$top/$f", "$f is executable");
}
for my $f (glob("$top/debian/*.postinst $top/debian/*.prerm $top/debian/*.postrm"),
           (map { "$top/$_" } @tests), "$top/scripts/uninstall-check.sh") {
    (my $rel = $f) =~ s{^\Q$top\E/}{};
    ($rc, $out) = run_cmd({}, 'sh', '-n', $f);
    is($rc, 0, "$rel parses (sh -n)") or diag($out);
    like(slurp($f), qr/^set -e/m, "$rel stops at the first error") if $rel =~ m{^debian/};
}
done_testing();
