# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# scripts/deps.sh, the first step of make demo and make test, on the two
# ways a new machine's first command fails before anything is installed:
# apt's lock held by another apt, and an archive that cannot be reached
# (apt-get update then says "W: Failed to fetch" and exits 0).  Each is one
# line that says which and what to do, and nothing is installed.  apt-get,
# apt-cache, apt-mark, dpkg-query and id are stand-ins on PATH that act as
# on a bare Debian 12 machine as root (nothing installed, every package
# available), and record what they were asked; the real ones are never
# run.  What the real ones do is proven where they run: make demo and make
# test as the first commands in pristine trees (.ci/run, make
# test-release).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $bin = tmp() . '/deps-bin';
my $calls = tmp() . '/deps-calls';
mkdir $bin or die "$bin: $!";

# stub(NAME, SHELL BODY): a command on PATH that records its arguments.
sub stub {
    my ($name, $body) = @_;
    write_file("$bin/$name", "#!/bin/sh\necho \"$name \$*\" >>$calls\n$body\n");
    chmod 0755, "$bin/$name";
}
stub('id', 'echo 0');
stub('dpkg-query', 'exit 1');                       # nothing installed
stub('apt-mark', 'exit 0');
stub('apt-cache', 'echo "  Candidate: 1.0-1"');    # everything available

# deps(APT-GET BODY): deps.sh demo as make demo runs it.
sub deps {
    my ($apt_get) = @_;
    stub('apt-get', $apt_get);
    unlink $calls;
    return run_cmd({ env => { PATH => "$bin:/usr/bin:/bin",
                              TACK_DEPS_FOR => 'demo' } },
                   'sh', top() . '/scripts/deps.sh', 'demo');
}

my ($rc, $out, $err) = deps(<<'S');
echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
exit 100
S
is($rc, 1, "apt's lock held by another apt: exit 1");
like($err, qr/^deps: apt is busy \(apt-get, process 4242 holds its lock\): wait until it has finished, then run make demo again; nothing was installed$/m,
     '... one line says so, who holds it, and what to do');
unlike(slurp($calls) // '', qr/^apt-get install/m, '... and nothing was installed');

($rc, $out, $err) = deps(<<'S');
case "$*" in
*update*)
    echo "Err:1 http://deb.example.invalid/debian bookworm InRelease"
    echo "  Temporary failure resolving 'deb.example.invalid'"
    echo "W: Failed to fetch http://deb.example.invalid/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.example.invalid'" >&2
    echo "W: Some index files failed to download. They have been ignored, or old ones used instead." >&2
    exit 0 ;;
esac
exit 100
S
is($rc, 1, 'no network (apt-get update exits 0 with "Failed to fetch"): exit 1');
like($err, qr{^deps: cannot reach the Debian archive \(http://deb\.example\.invalid\): check the network and apt's sources \(/etc/apt/sources\.list\), then run make demo again; nothing was installed$}m,
     '... one line says so, naming the archive, and what to do');
unlike(slurp($calls) // '', qr/^apt-get install/m, '... and nothing was installed');

# The archive answers the lists but not the packages: everything is
# downloaded before anything is installed.
($rc, $out, $err) = deps(<<'S');
case "$*" in
*update*) exit 0 ;;
*--download-only*)
    echo "E: Failed to fetch http://deb.example.invalid/debian/pool/main/a/apache2/apache2_2.4.71-1_amd64.deb  Connection timed out" >&2
    exit 100 ;;
esac
echo "installed" ; exit 0
S
is($rc, 1, 'a download that fails half-way: exit 1');
like($err, qr/^deps: cannot reach the Debian archive/m, '... said in one line');
my @installs = grep { /^apt-get install/ } split /\n/, slurp($calls) // '';
is_deeply([grep { !/--download-only/ } @installs], [],
          '... and apt-get install ran only to download, never to install');

done_testing();
