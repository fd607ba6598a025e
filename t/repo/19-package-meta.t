# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# What the Debian packaging states, checked against the tree without
# building (make package-test builds, lints and installs): the version of
# debian/changelog is the one the tool reports and the man page shows, each
# Debian release builds a version of its own above the release before, the
# maintainer scripts parse, and the files debian/rules and the tests run
# are executable.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $top = top();
my ($pkg_version) = slurp("$top/debian/changelog") =~ /\A\S+ \(([^)]+)\) /;
ok($pkg_version, "debian/changelog's version: " . ($pkg_version // 'none'));
my ($rc, $out) = run3({}, $TACK, '--version');
is($rc, 0, 'tack --version');
my ($tool_version) = $out =~ /^\S+ (\S+) /;
is($tool_version, $pkg_version, 'the tool reports the package version');
my ($man_version) = slurp("$top/docs/tack.1") =~ /^\.TH \S+ 1 "[^"]*" "mod_tack ([^"]+)"/m;
is($man_version, $pkg_version, 'the man page shows it');

# Each Debian release's build has a version and a changelog of its own
# (scripts/package.sh): the committed version followed by ~debNu1, so the
# Debian 12 build sorts below the Debian 13 one, and both below the
# committed version, which other systems build.
unlike($pkg_version // '', qr/[-~]/, "debian/changelog's $pkg_version has no - (a native package) and no ~ (added per release)");
my %built;
for my $r (['Debian 12', "ID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n", "~deb12u1"],
           ['Debian 13', "ID=debian\nVERSION_ID=\"13\"\nVERSION_CODENAME=trixie\n", "~deb13u1"],
           ['sid', "ID=debian\nVERSION_CODENAME=forky\n", ''],
           ['Ubuntu 24.04', "ID=ubuntu\nID_LIKE=debian\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n", '']) {
    my ($name, $text, $suffix) = @$r;
    my $f = tmp() . "/os-release.$name";
    write_file($f, $text);
    ($rc, $out) = run3({ env => { TACK_OS_RELEASE => $f }, cwd => $top },
                          'sh', 'scripts/package.sh', '--version');
    chomp $out;
    is($out, "$pkg_version$suffix", "scripts/package.sh --version on $name: $pkg_version$suffix");
    $built{$name} = $out;
}
for my $pair (['Debian 12', 'Debian 13'], ['Debian 13', 'sid']) {
    my ($lo, $hi) = map { $built{$_} } @$pair;
    ($rc, $out) = run3({}, 'dpkg', '--compare-versions', $lo, 'lt', $hi);
    is($rc, 0, "$pair->[0]'s $lo sorts below $pair->[1]'s $hi (dpkg --compare-versions)");
}
# The rotation of the retired tack-md-hook's log, for the sites that have
# it (the guide made it www-data's, group adm, mode 640, before 0.1.1).
(my $rotate = slurp("$top/debian/tacktool.logrotate") // '') =~ s/^#.*\n//mg;
like($rotate, qr{\A/var/log/tack-md-hook\.log \{\n(?:.*\n)*?\tcreate 640 www-data adm\n}, 'debian/tacktool.logrotate rotates /var/log/tack-md-hook.log, making it as the guide did');
# The security release says what to do, where apt-listchanges shows it.
like(slurp("$top/debian/tacktool.NEWS") // '', qr{\Amod-tack \(\Q$pkg_version\E\) .*/etc/sudoers\.d/tack-md.*Security note: the retired\s+mod_md hook behind sudo}s,
     "debian/tacktool.NEWS: this version's entry, the sudoers file to remove and the guide's note");
like(slurp("$top/debian/copyright"),
     qr{\AFormat: https://www\.debian\.org/doc/packaging-manuals/copyright-format/1\.0/\n.*^License: Apache-2\.0$}ms,
     'debian/copyright is machine-readable and says Apache-2.0');
my @tests = map { s{^\Q$top\E/}{}r } grep { !/control$/ } glob("$top/debian/tests/*");
ok(scalar(@tests) >= 2, 'debian/tests has its tests: ' . join(' ', @tests));
for my $f (qw(debian/rules scripts/package.sh scripts/package-autopkgtest.sh
              scripts/install.sh scripts/uninstall-check.sh scripts/tool-refs.sh),
           @tests) {
    ok(-x "$top/$f", "$f is executable");
}
for my $f (glob("$top/debian/*.postinst $top/debian/*.prerm $top/debian/*.postrm"),
           (map { "$top/$_" } @tests), "$top/scripts/install.sh",
           "$top/scripts/uninstall-check.sh",
           "$top/scripts/tool-refs.sh") {
    (my $rel = $f) =~ s{^\Q$top\E/}{};
    ($rc, $out) = run3({}, 'sh', '-n', $f);
    is($rc, 0, "$rel parses (sh -n)") or diag($out);
    like(slurp($f), qr/^set -e/m, "$rel stops at the first error") if $rel =~ m{^debian/};
}
done_testing();
