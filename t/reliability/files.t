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
like($r->{out}, qr/TACK00065: TackStore \Q$store\E: owned by nobody \(uid 65534\), not by root \(whoever owns it decides what pinned clients must accept\): chown root \Q$store\E, and remove or sign again any file in it you did not sign/,
     '... naming the owner and the fix (not chown -R: that would bless what nobody put in it)');
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
stage('fifo', 'pubcert.pem', 'a.test');
ok(TackHelpers::wait_until(15, sub { (read_file($mlog) // '') =~ m{^fifo \S+/staging/fifo/pubcert\.pem$}m }, 0.1),
   'the shim made the staged a.test certificate a FIFO right after it was listed');
select(undef, undef, undef, 1.5);
stage('zero', 'pubcert.pem', 'b.test');
ok(TackHelpers::wait_until(15, sub { (read_file($mlog) // '') =~ m{^link \S+/staging/zero/pubcert\.pem$}m }, 0.1),
   '... the next round lists another, made a link to /dev/zero (the background was not blocked in open())');
stage('c.test', 'pubcert.pem', 'c.test');
ok(TackHelpers::wait_until(15, sub { scalar(my @f = glob("$mstore/c.test.ecdsa.*.tack.pem")) == 2 }, 0.1),
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

# ---- a store swapped for a symbolic link (issue 36) ------------------------
# The owner of the store's parent (TackStoreOwner's home, say) can replace
# the store with a link.  Root then read TACKs from wherever it led, and the
# background, minutes after the start checked it, wrote TACKs there; -t's
# advice (chmod go-w) could not fix a link.  Now the store is opened once,
# never through a link, and written relative to that descriptor.
my $hs = RelTest::Httpd->new(name => 'swapped');
my $sroot = $hs->root;
my $real = "$sroot/real-store";
my $rootonly = "$sroot/root-only";
mkdir $_ for $real, $rootonly;
chmod 0755, $real;
chmod 0700, $rootonly;
symlink($real, "$sroot/store") or die "symlink: $!";
tack_genkey("$d/other.key");
tack_sign("$d/other.key", "$d/a.crt", "$real/a.test.tack.pem");
my ($planted) = pem_blocks("$real/a.test.tack.pem", 'TACK');
write_file("$d/ask", "#!/bin/sh\n[ -e $d/up ] || { echo 'signing host down' >&2; exit 2; }\n"
    . "echo " . PASSWORD . "\n");
chmod 0700, "$d/ask";
(my $svhosts = $vhosts) =~ s{TackSigningPassword file:\S+}{TackSigningPassword exec:$d/ask\nTackSigningRetry 1};
$svhosts =~ s/TackStore \Q$store\E/TackStore $sroot\/store/;
$hs->write_conf($svhosts);
$r = $hs->configtest;
isnt($r->{rc}, 0, 'apache2 -t refuses a TackStore that is a symbolic link');
like($r->{out}, qr/TackStore \Q$sroot\E\/store: a symbolic link \(to \Q$real\E\), not followed: whoever can write the directory it is in could point it at any directory, which root would read TACKs from and write TACKs into; if \Q$real\E is the store, name it: TackStore \Q$real\E/,
     '... with advice that can fix a link (name the directory), not chmod go-w');
unlike($r->{out}, qr/chmod go-w \Q$sroot\E\/store/, '... which cannot');
write_file("$d/up", '');
$r = $hs->start;
ok($r->{ready}, 'a real start with it serves all the same') or diag($r->{out});
my $slog = $hs->log_since(0);
like($slog, qr/\[tack:error\].*TACK00016: TackStore \Q$sroot\E\/store: a symbolic link \(to \Q$real\E\), not followed.*; nothing is served from it/,
     '... and says, as an error, that nothing is served from the link');
my $sa = s_client(port => $hs->port, name => 'a.test');
ok(defined $sa->{ext} && index($sa->{ext}, $planted) < 0,
   '... a.test is served a TACK, not the one behind the link');
is(scalar(my @w = glob("$real/*.tack.pem")), 1, '... and nothing is written behind the link')
    or diag(`ls -l $real`);
$hs->stop;
unlink "$d/up";

# the race: a real store at the start, a link when the background writes
unlink "$sroot/store", glob("$real/*");
rename $real, "$sroot/store" or die "rename: $!";
$hs->write_conf($svhosts);
$r = $hs->start;
ok($r->{ready}, 'a start with a real store while the signing host is down') or diag($r->{out});
rename "$sroot/store", "$sroot/store.old" or die "rename: $!";
symlink($rootonly, "$sroot/store") or die "symlink: $!";
write_file("$d/up", '');
my $t0 = time;
select(undef, undef, undef, 0.2)
    until scalar(my @g = glob("$sroot/store.old/*.tack.pem")) == 2 || time - $t0 > 15;
is(scalar(my @ro = glob("$rootonly/*")), 0,
   'the store swapped for a link to a root-only directory: the background writes nothing there')
    or diag(`ls -la $rootonly`);
is(scalar(my @old = glob("$sroot/store.old/*.tack.pem")), 2,
   '... it writes both TACKs into the directory it opened at the start')
    or diag($hs->log_since(0));
$hs->stop;
unlink "$d/up";

# ---- a store file planted by another user (issue 36) -----------------------
# A file of the store owned by neither root nor TackStoreOwner was served
# at a real start with a warning whose advice, chown root FILE, would have
# blessed it.  Now it is not served, at a start as under -t, and the advice
# is to remove it or sign it again.
my $hp = RelTest::Httpd->new(name => 'planted');
my $pstore = $hp->root . '/store';
mkdir $pstore;
chmod 0755, $pstore;
tack_sign("$d/other.key", "$d/a.crt", "$pstore/a.test.tack.pem");
tack_sign("$d/other.key", "$d/b.crt", "$pstore/b.test.tack.pem");
chown 65534, 65534, "$pstore/a.test.tack.pem";
(my $pvhosts = $vhosts) =~ s/^TackSigning.*\n//mg;
$pvhosts =~ s/TackStore \Q$store\E/TackStore $pstore/;
$hp->write_conf($pvhosts);
$r = $hp->configtest;
isnt($r->{rc}, 0, 'apache2 -t refuses a store file owned by nobody');
like($r->{out}, qr/TACK00065: TackStore \Q$pstore\E\/a\.test\.tack\.pem: owned by nobody \(uid 65534\), not by root \(whoever owns a store file decides what pinned clients must accept\): remove it, or sign it again as root \(tack sign -o \Q$pstore\E\/, or TackSigningKey\); a chown would serve what nobody put there/,
     '... saying to remove it or sign it again');
unlike($r->{out}, qr/chown root \S*a\.test\.tack\.pem/, '... never to chown it');
$r = $hp->start;
ok($r->{ready}, 'a real start with it is not refused') or diag($r->{out});
my $plog = $hp->log_since(0);
like($plog, qr/\[tack:error\].*TACK00121: TackStore \Q$pstore\E\/a\.test\.tack\.pem: owned by nobody \(uid 65534\).*remove it, or sign it again.*; not served/,
     '... it says, as an error, that the file is not served');
unlike($plog, qr/TACK00066: [^\n]*a\.test\.tack\.pem/, '... not "served all the same"');
ok(!defined s_client(port => $hp->port, name => 'a.test')->{ext},
   '... and a.test serves no TACK (before: the planted one)');
ok(defined s_client(port => $hp->port, name => 'b.test')->{ext},
   '... b.test, whose file root owns, still serves its TACK');
$hp->stop;

done_testing();
