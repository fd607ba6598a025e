# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The files the root parent writes (issue 25, item 1): a TACK that
# TackSigningKey writes into a TackStore is created with its final mode set
# on its descriptor and renamed in place, so a user who can write the store
# directory cannot make root change another file's mode by swapping the
# temporary file for a symbolic link.  The race is made deterministic by
# t/reliability/swapper.c (LD_PRELOAD): right after the temporary file is
# written, it is replaced by a link to a root-only file.  Before the fix the
# parent then set 0644 by name and the root-only file became readable by
# everyone.  Such a store is also refused by apache2 -t and warned about at
# a start (owned by another user, or writable by others).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use RelTest;

need(qw(httpd module tool openssl));
my $swapper = top_dir() . '/build/rel/swapper.so';
ok(-f $swapper, 'the swapper shim is built (make reliability-build)')
    or BAIL_OUT("$swapper missing");

my $d = tmp_root() . '/fx';
mkdir $d;
chmod 0755, $d;
make_cert($d, 'a', 'ec', 'a.test');
make_cert($d, 'b', 'ec', 'b.test');
tack_genkey("$d/sign.key");
write_file("$d/sign.pw", PASSWORD . "\n");
chmod 0600, "$d/sign.pw";
write_file("$d/secret", "root only\n");
chmod 0600, "$d/secret";

my $h = RelTest::Httpd->new(name => 'files');
my $store = $h->root . '/store';
mkdir $store;
chmod 0755, $store;
my $vhosts = "TackSigningKey $d/sign.key\nTackSigningPassword file:$d/sign.pw\n"
    . "TackStore $store\n";
for my $n (qw(a b)) {
    $vhosts .= "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName $n.test\n"
        . "    SSLEngine on\n    SSLCertificateFile $d/$n.crt\n"
        . "    SSLCertificateKeyFile $d/$n.key\n</VirtualHost>\n";
}
$h->write_conf($vhosts);
my $log = $h->root . '/swap.log';
unlink $log;
my $r = RelTest::run_cmd({ timeout => 60, env => { LD_PRELOAD => $swapper,
    SWAP_MATCH => "$store/", SWAP_TARGET => "$d/secret", SWAP_LOG => $log } },
    $RelTest::HTTPD, '-f', $h->conf_file, '-k', 'start');
ok($r->{rc} == 0 && $h->wait_ready(0), 'a start that signs two TACKs into the store, '
   . 'each temporary file swapped for a link to a root-only file') or diag($r->{out});
my @swaps = split /\n/, read_file($log) // '';
is(scalar(@swaps), 2, 'the shim swapped both temporary files') or diag(@swaps);
is(sprintf('%04o', (stat "$d/secret")[2] & 07777), '0600',
   'the root-only file is still 0600 (the mode was set on the descriptor, never by name)');
is(read_file("$d/secret"), "root only\n", '... and its content is untouched');
my @links = grep { -l $_ } glob("$store/*.tack.pem");
is(scalar(@links), 2, 'what the swap left in the store are links') or diag(`ls -l $store`);
$h->stop;

# ... which the next pass does not follow, and a store others can write or
# own is refused by apache2 -t (before: Syntax OK, nothing checked the owner)
unlink glob("$store/*.tack.pem");
$r = $h->configtest;
is($r->{rc}, 0, 'apache2 -t: a root-owned 0755 store is trusted') or diag($r->{out});
chown 65534, 65534, $store;
$r = $h->configtest;
isnt($r->{rc}, 0, 'apache2 -t refuses a store directory owned by nobody');
like($r->{out}, qr/TACK00065: TackStore \Q$store\E: owned by nobody \(uid 65534\), not by root \(whoever owns it decides what pinned clients must accept\): chown root -R \Q$store\E/,
     '... naming the owner and the fix');
$h->write_conf("TackStoreOwner nobody\n" . $vhosts);
$r = $h->configtest;
like($r->{out}, qr/TACK00065: TackStoreOwner nobody is the user httpd's children run as \(User\)/,
     'TackStoreOwner naming the children\'s user is refused too');
chown 0, 0, $store;
chmod 0775, $store;
$h->write_conf($vhosts);
$r = $h->configtest;
like($r->{out}, qr/TACK00065: TackStore \Q$store\E: writable by its group .*: chmod go-w \Q$store\E/,
     'a store its group can write: refused, with the chmod');
$r = $h->start;
ok($r->{ready}, 'a real start with it is not refused') or diag($r->{out});
like($h->log_since(0), qr/\[tack:warn\].*TACK00066: TackStore \Q$store\E: writable by its group .*; its TACKs are served all the same/,
     '... and warns');
my $s = s_client(port => $h->port, name => 'a.test');
ok(defined $s->{ext} && length($s->{ext}) > 100, '... serving a.test\'s TACK');
$h->stop;
chmod 0755, $store;

done_testing();
