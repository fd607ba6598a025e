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

# ---- mod_md's staging directory, read by root's background (issue 36) ------
# httpd's children can write MDStoreDir/staging.  The background listed it,
# then opened each name again: a FIFO put in the file's place in between
# left it blocked in open() until the next restart (nothing signed
# meanwhile), a link made it open a device.  The shim makes both swaps
# right after the name is listed; the background must go on signing.
my $hm = RelTest::Httpd->new(name => 'staged');
my $mroot = $hm->root;
my $mstore = "$mroot/store";
mkdir $mstore;
chmod 0755, $mstore;
make_cert($d, 'c', 'ec', 'c.test');
my $mvhosts = "LoadModule md_module /usr/lib/apache2/modules/mod_md.so\n"
    . "MDStoreDir $mroot/md\nTackSigningRetry 1\n" . $vhosts;
$mvhosts =~ s/TackStore \Q$store\E/TackStore $mstore/;
$mvhosts .= "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName c.test\n"
    . "    SSLEngine on\n    SSLCertificateFile $d/c.crt\n"
    . "    SSLCertificateKeyFile $d/c.key\n</VirtualHost>\n";
$hm->write_conf($mvhosts, loglevel => 'info ssl:warn md:warn');
my $mlog = "$mroot/swap.log";
unlink $mlog;
$r = RelTest::run_cmd({ timeout => 60, env => { LD_PRELOAD => $swapper,
    SWAP_FIFO_DIR => '/staging/fifo', SWAP_LINK_DIR => '/staging/zero',
    SWAP_TARGET => '/dev/zero', SWAP_LOG => $mlog } },
    $RelTest::HTTPD, '-f', $hm->conf_file, '-k', 'start');
ok($r->{rc} == 0 && $hm->wait_ready(0), 'a start with mod_md, a TackSigningKey and a TackStore')
    or diag($r->{out});
my $staging = "$mroot/md/staging";
mkdir "$mroot/md" unless -d "$mroot/md";
mkdir $staging unless -d $staging;
# stage($dir, $name, $cn): a renewed certificate for $cn, moved in whole
sub stage {
    my ($dir, $name, $cn) = @_;
    make_cert($d, "staged-$dir", 'ec', $cn);
    mkdir "$staging/$dir";
    rename "$d/staged-$dir.crt", "$staging/$dir/$name" or die "rename: $!";
}
sub wait_for {
    my ($what, $secs) = @_;
    my $t0 = time;
    until ($what->()) {
        return 0 if time - $t0 > $secs;
        select(undef, undef, undef, 0.1);
    }
    return 1;
}
stage('fifo', 'pubcert.pem', 'a.test');
ok(wait_for(sub { (read_file($mlog) // '') =~ m{^fifo \S+/staging/fifo/pubcert\.pem$}m }, 15),
   'the shim made the staged a.test certificate a FIFO right after it was listed');
select(undef, undef, undef, 1.5);
stage('zero', 'pubcert.pem', 'b.test');
ok(wait_for(sub { (read_file($mlog) // '') =~ m{^link \S+/staging/zero/pubcert\.pem$}m }, 15),
   '... the next round lists another, made a link to /dev/zero (the background was not blocked in open())');
stage('c.test', 'pubcert.pem', 'c.test');
ok(wait_for(sub { scalar(my @f = glob("$mstore/c.test.ecdsa.*.tack.pem")) == 2 }, 15),
   '... and a third, a real renewal of c.test, is signed ahead into the store')
    or diag(`ls -l $mstore; cat $mlog`);
my $mtext = $hm->log_since(0);
like($mtext, qr/\[tack:warn\].*TACK00120: mod_md's staging directory: \S+\/staging\/fifo\/pubcert\.pem is not read: not a regular file \(a FIFO, a socket or a device\), not opened for reading/,
     'the FIFO is named, with why it is not read');
like($mtext, qr/\[tack:warn\].*TACK00120: mod_md's staging directory: \S+\/staging\/zero\/pubcert\.pem is not read: a symbolic link, not followed/,
     'the link too');
is(scalar(() = $mtext =~ /TACK00120: [^\n]*fifo\/pubcert\.pem/g), 1, '... each said once, not every round');
ok(!$hm->crashes($mtext), 'nothing crashed');
$hm->stop;

done_testing();
