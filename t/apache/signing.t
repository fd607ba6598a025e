# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TackSigningKey (issue 14, part 1): the parent signs, at each start and
# graceful restart, a TACK for every certificate of an SSL vhost that has
# none, expiring with the certificate, and writes it into the vhost's
# TackStore; a renewed certificate (new key) gets a new TACK under the same
# TACK key.  Strict under apache2 -t (key, password and syntax problems
# refused with the directive, the file and the reason), lenient at a real
# start (logged, nothing signed, every site up).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use File::Copy qw(copy);
use Time::Local qw(timegm);
use TackTest;
use TackHelpers qw(make_cert make_key spki_hash store_name fingerprint tack_bytes
    breaksig_bytes tackpy_pem write_file);

plan tests => 155;

my $TACK = top_dir() . '/tack';
my $h = TackTest::Httpd->new('signing');
my $d = $h->root;

sub tool {
    my $r = TackHelpers::run_cmd({ merge => 1 }, $TACK, @_);
    return ($r->{rc}, $r->{out});
}

# The TACK key, a TACKpy key file, and its password in a root-only file.
my ($rc, $out) = tool('genkey', '-p', 'sekrit', '-o', "$d/sign.key");
die "genkey: $out" if $rc;
my ($key_id) = (tool('view', "$d/sign.key"))[1] =~ /TACK ID\s+=\s+(\S+)/;
write_file("$d/pw", "sekrit\n");
chmod 0600, "$d/pw";
make_cert($d, 'a', 'ec', 'a.test');
make_cert($d, 'b', 'rsa', 'b.test');
make_cert($d, 'own', 'ec', 'own.test');
make_key("$d/other.key");
write_file("$d/own.pem", tackpy_pem('TACK', tack_bytes(key => "$d/other.key",
                                                cert => "$d/own.crt")));
mkdir "$d/store";

# not_after_minutes($cert): the certificate's notAfter, in minutes.
sub not_after_minutes {
    my ($cert) = @_;
    my ($end) = `openssl x509 -in $cert -noout -enddate` =~ /notAfter=(.*)/;
    my %mon; @mon{qw(Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec)} = (0 .. 11);
    my ($m, $dd, $hh, $mi, $ss, $y) =
        $end =~ /^(\w+)\s+(\d+) (\d+):(\d+):(\d+) (\d+) GMT/ or die $end;
    return int(timegm($ss, $mi, $hh, $dd, $mon{$m}, $y) / 60);
}

# served($name): the TACK a draft-00 body carries, as fields.
sub served { served_tack($h->port, $_[0]) }

sub settled {
    my ($mark, $until) = @_;
    $until //= qr/TACK0007[67]/;
    my $log = '';
    for (1 .. 450) {
        $log = log_since($mark, $h->error_log);
        last if $log =~ $until;
        select(undef, undef, undef, 0.1);
    }
    return $log;
}

sub vhosts {
    my ($extra) = @_;
    $extra //= '';
    return <<"C";
TackSigningKey \@ROOT\@/sign.key
TackSigningPassword file:\@ROOT\@/pw
TackStore \@ROOT\@/store
$extra
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName b.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/b.crt
    SSLCertificateKeyFile \@ROOT\@/b.key
    TackSigningGeneration 3 5
    TackPinActivation on
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName own.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/own.crt
    SSLCertificateKeyFile \@ROOT\@/own.key
    TackFile \@ROOT\@/own.pem
</VirtualHost>
C
}

# ---- a start signs, writes the store, serves -------------------------------
$h->write_conf(vhosts());
($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t accepts TackSigningKey with a password file') or diag($out);
my $fa = "$d/store/" . store_name("$d/a.crt", 'a.test', 'ecdsa');
my $fb = "$d/store/" . store_name("$d/b.crt", 'b.test', 'rsa');
ok(!-e $fa, '... and -t signs nothing');
($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
my $log = settled(0);
my $port = $h->port;
my $a1 = served('a.test');
ok($a1, 'a.test serves a TACK it had no file for');
is($a1->{id}, $key_id, '... under the TackSigningKey');
is($a1->{target}, $a1->{spki}, '... for the certificate served');
is($a1->{exp}, not_after_minutes("$d/a.crt"), '... expiring with the certificate');
is("$a1->{min}/$a1->{gen}", '0/0', '... generation 0, min_generation 0 by default');
my $b1 = served('b.test');
ok($b1 && $b1->{id} eq $key_id && $b1->{target} eq $b1->{spki},
   'b.test (RSA) gets one too');
is("$b1->{min}/$b1->{gen}", '3/5', '... with TackSigningGeneration 3 5');
is($b1->{pin}, 1, '... and its pin activation');
my $own = served('own.test');
is(fingerprint(substr($own->{bytes}, 0, 64)), fingerprint(TackHelpers::key_public("$d/other.key")),
   'own.test keeps its TackFile TACK under another key: nothing signed for it');
like($log, qr/\[tack:info\].*TACK00031: vhost a\.test:$port: signed a TACK for ECDSA certificate \/CN=a\.test with TackSigningKey \S+sign\.key \(key \Q$key_id\E, generation 0, expires \S+, with the certificate\); written to \Q$fa\E/,
     'the signing is logged at info, with the file written');
like($log, qr/TACK00036: TackSigningKey \S+sign\.key \(key \Q$key_id\E\): 0 TACKs signed, 0 written to a TackStore, 0 kept in memory only, 0 certificates left without one, 2 left to the background/,
     'a summary per key: the start waited for none (no client can hold a pin on the key here yet)');
like($log, qr/\[tack:info\].*TACK00077: the background signed 2 TACKs in [\d.]+ seconds \(2 written to a TackStore, 0 kept in memory only\): every certificate the start left to it is served with one/,
     '... the background signed both right after the start');
unlike($log, qr/TACK00074/, '... and no vhost was said to serve no TACK meanwhile');
ok(-f $fa, 'the store holds a.test\'s TACK, named after its certificate');
is(sprintf('%o', (stat $fa)[2] & 07777), '644', '... mode 0644');
is(unpack('H*', (TackHelpers::pem_blocks($fa, 'TACK'))[0]), unpack('H*', $a1->{bytes}),
   '... the bytes served');
ok(-f $fb, 'and b.test\'s');
my @hidden = glob("$d/store/.*.XXXXXX $d/store/.a.test*");
is(scalar(@hidden), 0, 'no temporary file is left in the store');
($rc, $out) = tool('check', "127.0.0.1:$port", '--servername', 'a.test');
is($rc, 0, 'tack check accepts what a.test serves') or diag($out);
like($out, qr/^result\s+= accepted/m, '... the signature verifies');

# ---- a graceful restart verifies the store instead of signing -------------
my $mark = -s $h->error_log;
ok($h->graceful, 'graceful restart');
$log = log_since($mark, $h->error_log);
unlike($log, qr/TACK00031/, 'nothing is signed again: the store has the TACKs');
like($log, qr/TACK00056: vhost a\.test:$port: serving TACK \Q$fa\E \(TackStore/,
     'a.test is served from the store');
is(unpack('H*', served('a.test')->{bytes}), unpack('H*', $a1->{bytes}), '... the same bytes');

# ---- a renewal with a new key: a new TACK, the same TACK key ---------------
copy("$d/a.crt", "$d/a-old.crt");
make_cert($d, 'a', 'ec', 'a.test');
$mark = -s $h->error_log;
($rc, $out) = $h->ctl('graceful');
is($rc, 0, 'apachectl graceful after the certificate got a new key') or diag($out);
ok($h->wait_ready($mark), '... the new generation runs');
$log = settled($mark);
my $a2 = served('a.test');
isnt($a2->{spki}, $a1->{spki}, 'the certificate has a new key');
ok($a2 && $a2->{id} eq $key_id && $a2->{target} eq $a2->{spki},
   'a.test serves a TACK for the new key, under the same TACK key');
my $fa_old = $fa;
$fa = "$d/store/" . store_name("$d/a.crt", 'a.test', 'ecdsa');
is(unpack('H*', (TackHelpers::pem_blocks($fa, 'TACK'))[0]), unpack('H*', $a2->{bytes}),
   'the new certificate\'s TACK is written to its own file');
ok(-f $fa_old, '... and the old certificate\'s file is left (another server sharing the store may still use it)');
like($log, qr/TACK00031: vhost a\.test:$port: signed a TACK/, 'logged');
($rc, $out) = tool('check', "127.0.0.1:$port", '--servername', 'a.test');
is($rc, 0, 'tack check accepts the new TACK') or diag($out);
log_clean($mark, [], $h->error_log);

# ---- no store: signed in memory, at every pass ------------------------------
my $nostore = vhosts();
$nostore =~ s/^TackStore .*$//m;
$h->write_conf($nostore);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful without a TackStore');
$log = settled($mark);
like($log, qr/TACK00031: vhost a\.test:$port: signed a TACK for ECDSA certificate \/CN=a\.test with TackSigningKey \S+ \(key \S+, generation 0, expires \S+, with the certificate\)\n/,
     'signed, kept in memory');
like($log, qr/TACK00077: the background signed 2 TACKs in \S+ seconds \(0 written to a TackStore, 2 kept in memory only\)/,
     '... as the summary says');
ok(served('a.test')->{id} eq $key_id, '... and served');

# ---- a TACK under the key that expires within 30 days is signed anew -------
($rc, $out) = tool('sign', '-k', "$d/sign.key", '-p', 'sekrit', '-c', "$d/a.crt",
                   '-e', '10d', '-o', "$d/soon.pem");
is($rc, 0, 'a TACK under the signing key for 10 days') or diag($out);
my $soon = $nostore;
$soon =~ s{(ServerName a\.test\n)}{$1    TackFile \@ROOT\@/soon.pem\n};
$h->write_conf($soon);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with it as a.test\'s TackFile');
$log = settled($mark);
like($log, qr/TACK00037: vhost a\.test:$port: the TACK of TackFile \S+soon\.pem expires at \S+; serving the one just signed instead/,
     'it is replaced by a TACK signed right after the start (served until then)');
is(served('a.test')->{exp}, not_after_minutes("$d/a.crt"), '... that lives as long as the certificate');
unlike($log, qr/TACK00010: vhost a\.test/, '... and no expiry warning is left for a.test');

# ---- the site broke the signing key: nothing is signed with it --------------
($rc, $out) = tool('break', '-k', "$d/sign.key", '-p', 'sekrit', '-o', "$d/broken.pem");
is($rc, 0, 'a break signature for the signing key');
my $broken = $nostore;
$broken =~ s{(ServerName a\.test\n)}{$1    TackBreakSigsFile \@ROOT\@/broken.pem\n};
$h->write_conf($broken);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with it in a.test');
$log = settled($mark);
like($log, qr/\[tack:error\].*TACK00032: vhost a\.test:$port: TackSigningKey \S+sign\.key \(key \Q$key_id\E\) is broken by a break signature in TackBreakSigsFile \S+broken\.pem; nothing is signed with it here/,
     'refused, with the break signature named');
my $r = probe(port => $port, name => 'a.test', version => '1.2');
ok(defined $r->{ext} && ord($r->{ext}) == 0, 'a.test serves its break signature and no TACK');
ok(served('b.test')->{id} eq $key_id, 'b.test still gets its TACK');
log_clean($mark, [qr/TACK00032|TACK00074/], $h->error_log);

# ---- expiry warnings: a store TACK in use that ends before its certificate
# is warned about; one that ends with its certificate (every TACK this key
# signs) is not
write_file("$d/store/b-soon.tack.pem", tackpy_pem('TACK', tack_bytes(key => "$d/other.key",
    cert => "$d/b.crt", expiration => TackHelpers::minutes_from_now(5 * 1440))));
unlink $fb;   # the one signed above
$h->write_conf(vhosts());
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with a store TACK for b.test that expires in 5 days');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:warn\].*TACK00020: TackStore \S+store: 1 TACK expires within 30 days, the first \S+b-soon\.tack\.pem at \S+, in (4|5) days; sign new ones/,
     'warned about, once for the store');
is(fingerprint(substr(served('b.test')->{bytes}, 0, 64)),
   fingerprint(TackHelpers::key_public("$d/other.key")),
   'b.test serves it: a TACK under another key is not replaced');
unlike($log, qr/TACK00010/, 'no warning for the TACKs that expire with their certificates');
log_clean($mark, [qr/TACK00020/], $h->error_log);
unlink "$d/store/b-soon.tack.pem";

# ---- a TACK the store holds under another name (an earlier mod_tack's
# HOST.PORT.KEYTYPE.tack.pem, a name given by hand), under the signing key
# and expiring within 30 days: the one signed anew goes into the
# certificate's file and the old file is removed, never to turn into an
# expired-file warning on a healthy host
unlink $fa;
my $old = "$d/store/a.test.$port.ecdsa.tack.pem";
($rc, $out) = tool('sign', '-k', "$d/sign.key", '-p', 'sekrit', '-c', "$d/a.crt",
                   '-o', $old, '-e', '5d');
is($rc, 0, 'a TACK under the signing key, expiring in 5 days, under an old name')
    or diag($out);
$h->write_conf(vhosts());
$mark = -s $h->error_log;
ok($h->graceful, 'graceful');
$log = settled($mark);
like($log, qr/\[tack:info\].*TACK00072: TackStore file \Q$old\E removed: \Q$fa\E replaces it/,
     'the old file is removed, naming the file that replaces it') or diag($log);
ok(!-e $old && -f $fa, '... gone; the certificate\'s file is there');
is(unpack('H*', (TackHelpers::pem_blocks($fa, 'TACK'))[0]),
   unpack('H*', served('a.test')->{bytes}), 'a.test serves the TACK of that file');
unlike($log, qr/TACK00020/, 'no "expires within 30 days" for the TACK replaced');
log_clean($mark, [], $h->error_log);

# ---- password sources: exec: and env: --------------------------------------
write_file("$d/askpass", "#!/bin/sh\n[ \"\$1\" = \"$d/sign.key\" ] || exit 3\necho sekrit\n");
chmod 0700, "$d/askpass";
my $exec = $nostore;
$exec =~ s{^TackSigningPassword .*$}{TackSigningPassword exec:\@ROOT\@/askpass}m;
$h->write_conf($exec);
($rc, $out) = $h->configtest;
is($rc, 0, 'exec: a program that prints the password (given the key as its argument)') or diag($out);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with exec:');
settled($mark);
ok(served('a.test')->{id} eq $key_id, '... signs');
my $env = $nostore;
$env =~ s{^TackSigningPassword .*$}{TackSigningPassword env:TACK_TEST_PASSWORD}m;
$h->write_conf($env);
{
    local $ENV{TACK_TEST_PASSWORD} = 'sekrit';
    ($rc, $out) = $h->configtest;
}
is($rc, 0, 'env: a variable of httpd\'s environment') or diag($out);

# ---- password programs that hang: one deadline, everything killed ----------
# (a program that prints the password and does not exit, and one that prints
# nothing, for two keys: before, 58 s and 30 s one after the other, with the
# programs left running as root)
($rc, $out) = tool('genkey', '-p', 'sekrit2', '-o', "$d/sign2.key");
die "genkey: $out" if $rc;
# Durations unique to this run: the check below looks at every process of
# the machine (a chroot shares them), and another run's programs are not ours.
my $tag = 600000 + ($$ % 100000) * 10;
write_file("$d/hang1", "#!/bin/sh\nsleep ${\ ($tag + 1)} &\necho sekrit\nexec >&-\nexec sleep ${\ ($tag + 2)}\n");
write_file("$d/hang2", "#!/bin/sh\nexec sleep ${\ ($tag + 3)}\n");
chmod 0700, "$d/hang1", "$d/hang2";
my $hang = $nostore;
$hang =~ s{^TackSigningPassword .*$}{TackSigningPassword exec:\@ROOT\@/hang1}m;
$hang =~ s{(ServerName b\.test\n)}{$1    TackSigningKey \@ROOT\@/sign2.key\n    TackSigningPassword exec:\@ROOT\@/hang2\n};
$hang = "TackSigningWait 3\n$hang";
$h->write_conf($hang);
$mark = -s $h->error_log;
{
    local $h->{timeout} = 90;
    my $t0 = time;
    ok($h->graceful, 'a graceful restart with two password programs that hang');
    my $took = time - $t0;
    ok($took <= 8, "... answers within TackSigningWait (3 s) for both keys, not the programs' 30 s (took $took s)");
}
$log = log_since($mark, $h->error_log);
like($log, qr/TACK00030: TackSigningKey \S+sign\.key: no answer within 3 seconds, the time a restart waits for signing \(TackSigningWait\) \(its password program or token did not answer; the signer and its password program were killed\)/,
     'the first key: no answer within the wait, said so');
like($log, qr/TACK00030: TackSigningKey \S+sign2\.key: not tried: the 3 seconds a restart waits for signing \(TackSigningWait\) were spent by another key's signer/,
     'the second key: waited for only what was left of the wait, said why');
ok(served('own.test'), 'every site is up');
# the background gives the password program its own 30 s, then kills it
$log = settled($mark, qr/hang1: did not/);
like($log, qr/\[tack:error\].*TACK00076: TackSigningPassword exec:\S+hang1 .*: exec:\S+hang1: did not exit within 30 seconds; it and what it started were killed .*tried again every 60 seconds/,
     'the program that printed the password and stayed: killed at 30 s in the background, named');
like($log, qr/\[tack:error\].*TACK00076: TackSigningPassword exec:\S+hang2 .*: exec:\S+hang2: did not answer within 30 seconds/,
     '... and the other key\'s, side by side (not 30 s later)');
# a restart ends the background and what it runs (hang2 is running now)
$h->write_conf($nostore);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful back to one key');
sleep 1;
my %ours = map { ('sleep ' . ($tag + $_)) => 1 } 1 .. 3;
my @left = grep { chomp; $ours{$_} } `ps -eo args`;
is(scalar(@left), 0, 'no password program, nor what it started, is left running') or diag(@left);
settled($mark);
log_clean($mark, [], $h->error_log);

# ---- mistakes: refused under -t, logged at a real start ----------------------
my @bad = (
    ['a wrong password', sub { write_file("$d/pw2", "wrong\n"); chmod 0600, "$d/pw2";
        $_[0] =~ s{file:\@ROOT\@/pw$}{file:\@ROOT\@/pw2}m },
     qr/TACK00033: TackSigningKey \S+sign\.key: wrong password \(from TackSigningPassword file:\S+pw2\) \(\S+httpd\.conf:\d+\)/],
    ['no TackSigningPassword', sub { $_[0] =~ s{^TackSigningPassword .*$}{}m },
     qr/TACK00033: TackSigningKey \S+sign\.key: a TACK key file is encrypted; say where its password comes from with TackSigningPassword/],
    ['a password file others can read', sub { write_file("$d/pw3", "sekrit\n"); chmod 0644, "$d/pw3";
        $_[0] =~ s{file:\@ROOT\@/pw$}{file:\@ROOT\@/pw3}m },
     qr/TACK00033: TackSigningPassword file:\S+pw3 \(\S+:\d+\) for TackSigningKey \S+: file:\S+pw3 can be read or written by everyone; a password file must be readable by root only \(chmod 600\)/],
    ['a TLS key instead of a TACK key', sub { $_[0] =~ s{sign\.key$}{a.key}m },
     qr/TACK00033: TackSigningKey \S+a\.key: not a TACK key: no "TACK PRIVATE KEY" PEM block \(it holds "BEGIN PRIVATE KEY"; make a TACK key with tack genkey\)/],
    ['a missing key file', sub { $_[0] =~ s{sign\.key$}{missing.key}m },
     qr/TACK00033: TackSigningKey \S+missing\.key: cannot read file: No such file or directory/],
    ['an unset variable', sub { $_[0] =~ s{^TackSigningPassword .*$}{TackSigningPassword env:TACK_NO_SUCH_VARIABLE}m },
     qr/TACK00033: TackSigningPassword env:TACK_NO_SUCH_VARIABLE .*: env:TACK_NO_SUCH_VARIABLE: httpd's environment has no such variable/],
    ['a program that fails', sub { write_file("$d/nopass", "#!/bin/sh\nexit 4\n"); chmod 0700, "$d/nopass";
        $_[0] =~ s{^TackSigningPassword .*$}{TackSigningPassword exec:\@ROOT\@/nopass}m },
     qr/TACK00033: TackSigningPassword exec:\S+nopass .*: exec:\S+nopass: exited with status 4/],
);
for my $case (@bad) {
    my ($what, $edit, $want) = @$case;
    my $conf = $nostore;
    $edit->($conf);
    $h->write_conf($conf);
    ($rc, $out) = $h->configtest;
    isnt($rc, 0, "apache2 -t refuses $what");
    like($out, $want, '... naming the directive, the file and the reason') or diag($out);
}
# the same at a real start: logged once, nothing signed, every site up
my $wrong = $nostore;
write_file("$d/pw2", "wrong\n");
chmod 0600, "$d/pw2";
$wrong =~ s{file:\@ROOT\@/pw$}{file:\@ROOT\@/pw2}m;
$h->write_conf($wrong);
$mark = -s $h->error_log;
ok($h->graceful, 'a graceful restart with a wrong password is not fatal');
$log = settled($mark);
my @lines = $log =~ /(TACK00030: .*)/g;
is(scalar(@lines), 1, '... one error line for the key, not one per vhost');
like($lines[0] // '', qr/wrong password .*the start does not wait for it: every certificate without a TACK is served without one until the background signs it \(tried again every 60 seconds\)/, '... saying what it means');
like($log, qr/\[tack:error\].*TACK00076: TackSigningKey \S+sign\.key: wrong password .*; the certificates that wait for it are served without a TACK: tried again every 60 seconds/,
     '... and the background, which tries it again, says so');
$r = probe(port => $port, name => 'a.test', version => '1.2');
ok($r->{ok} && !defined $r->{ext}, 'a.test is up and serves no TACK');
ok(served('own.test'), 'own.test still serves its TackFile');
log_clean($mark, [qr/TACK00030|TACK00076/], $h->error_log);

# ---- a key in a PKCS#11 token (SoftHSM2): errors name the URI and reason --
my $softhsm = '/usr/lib/softhsm/libsofthsm2.so';
ok(-e $softhsm && -x '/usr/bin/pkcs11-tool', 'SoftHSM2 and pkcs11-tool are installed (make deps)')
    or BAIL_OUT('softhsm2 / opensc missing');
mkdir "$d/tokens";
write_file("$d/softhsm2.conf", "directories.tokendir = $d/tokens\nobjectstore.backend = file\nlog.level = ERROR\n");
$ENV{SOFTHSM2_CONF} = "$d/softhsm2.conf";
TackHelpers::must_run("softhsm2-util --init-token --free --label tack --pin 1234 --so-pin 5678 2>&1");
TackHelpers::must_run("pkcs11-tool --module $softhsm --login --pin 1234 --keypairgen"
    . " --key-type EC:prime256v1 --label tackkey --id 01 2>&1");
TackHelpers::must_run("pkcs11-tool --module $softhsm --login --pin 1234 --keypairgen"
    . " --key-type rsa:2048 --label rsakey --id 02 2>&1");
write_file("$d/pin", "1234\n");
chmod 0600, "$d/pin";
my $uri = 'pkcs11:token=tack;object=tackkey;type=private';
my $token = $nostore;
$token =~ s{^TackSigningKey .*$}{TackSigningKey "$uri"}m;
$token =~ s{^TackSigningPassword .*$}{TackSigningPassword file:\@ROOT\@/pin}m;
$h->write_conf($token);
($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t accepts a key in a token, with its PIN from a file') or diag($out);
# (SOFTHSM2_CONF reaches the parent at its start: restart it)
$h->stop;
$mark = -s $h->error_log;
($rc, $out) = $h->start;
is($rc, 0, 'started with the token key') or diag($out);
settled($mark);
my $tok = served('a.test');
my ($tok_id) = (tool('view', 'pkcs11:token=tack;object=tackkey'))[1] =~ /TACK ID\s+=\s+(\S+)/;
ok($tok && $tok_id && $tok->{id} eq $tok_id, 'a.test serves a TACK signed in the token');
($rc, $out) = tool('check', "127.0.0.1:$port", '--servername', 'a.test');
like($out, qr/^result\s+= accepted$/m, '... which verifies') or diag($out);
for my $case (
    ['a wrong PIN', sub { write_file("$d/pin2", "9999\n"); chmod 0600, "$d/pin2";
        $_[0] =~ s{file:\@ROOT\@/pin$}{file:\@ROOT\@/pin2}m },
     qr/TACK00033: TackSigningKey \Q$uri\E: wrong PIN .*\(PIN from TackSigningPassword file:\S+pin2\)/],
    ['a missing object', sub { $_[0] =~ s{object=tackkey}{object=nosuchkey} },
     qr/TACK00033: TackSigningKey pkcs11:token=tack;object=nosuchkey;type=private: no private key object="nosuchkey" in token "tack"/],
    ['a missing token', sub { $_[0] =~ s{token=tack;}{token=nosuch;} },
     qr/TACK00033: TackSigningKey pkcs11:token=nosuch;\S+: no token "nosuch" \(tokens present: "tack"\)/],
    ['an RSA key object', sub { $_[0] =~ s{object=tackkey}{object=rsakey} },
     qr/TACK00033: TackSigningKey \S+object=rsakey\S*: not an EC P-256 key \(it is RSA\)/],
    ['a PIN in the URI', sub { $_[0] =~ s{type=private}{type=private?pin-value=1234} },
     qr/TackSigningKey: the PKCS#11 URI carries pin-value: the PIN does not belong in httpd\.conf/]) {
    my ($what, $edit, $want) = @$case;
    my $conf = $token;
    $edit->($conf);
    $h->write_conf($conf);
    ($rc, $out) = $h->configtest;
    isnt($rc, 0, "apache2 -t refuses $what");
    like($out, $want, '... naming the URI and the reason') or diag($out);
    unlike($out, qr/1234/, '... and never the PIN') if $what eq 'a PIN in the URI';
}
# a wrong PIN is tried once per PIN file change: a token locks itself after a
# few wrong PINs (before: tried again at every configtest and restart)
{
    my $conf = $token;
    $conf =~ s{file:\@ROOT\@/pin$}{file:\@ROOT\@/pin2}m;
    $h->write_conf($conf);
    ($rc, $out) = $h->configtest;
    like($out, qr/TACK00033: TackSigningKey \Q$uri\E: the token refused this PIN \(from TackSigningPassword file:\S+pin2\) at the last attempt, and neither the PIN nor the configuration has changed since: not tried again \(a token locks itself after a few wrong PINs\); correct the PIN to try again/,
         'the same wrong PIN file again: not tried, said why') or diag($out);
    sleep 1;
    write_file("$d/pin2", "9998\n");
    chmod 0600, "$d/pin2";
    ($rc, $out) = $h->configtest;
    like($out, qr/TACK00033: TackSigningKey \Q$uri\E: wrong PIN/, '... a changed file is tried');
    $h->write_conf($token);
    ($rc, $out) = $h->configtest;
    is($rc, 0, 'the right PIN: accepted') or diag($out);
}
# PKCS11_PROVIDER_MODULE in httpd's environment (which the signer inherits)
# does not choose the module (issue 36, item 7): before, pkcs11-provider
# loaded the module it names whatever the URI said.
{
    local $ENV{PKCS11_PROVIDER_MODULE} = "$d/nosuch-pkcs11.so";
    ($rc, $out) = $h->configtest;
    is($rc, 0, 'apache2 -t with PKCS11_PROVIDER_MODULE naming another module: the token key still loads') or diag($out);
    like($out, qr/\[tack:warn\].*TACK00140: TackSigningKey \Q$uri\E: PKCS11_PROVIDER_MODULE=\Q$d\E\/nosuch-pkcs11\.so in httpd's environment is ignored: the PKCS#11 module is the URI's module-path or module-name/,
         '... and the variable, its value, and that it is ignored are said') or diag($out);
}
log_clean($mark, [], $h->error_log);

# syntax: never the password itself, generations in range
for my $case (['TackSigningPassword sekrit', qr/TackSigningPassword sek\.\.\.: not a password source; write file:PATH/],
              ['TackSigningPassword file:', qr/not a password source/],
              ['TackSigningGeneration 5 3', qr/TackSigningGeneration 5 3: the generation is below min_generation/],
              ['TackSigningGeneration 256', qr/TackSigningGeneration 256: not a number from 0 to 255/]) {
    my ($line, $want) = @$case;
    $h->write_conf(vhosts($line));
    ($rc, $out) = $h->configtest;
    isnt($rc, 0, "apache2 -t refuses '$line'");
    like($out, $want, '... saying why') or diag($out);
}

# ---- an expired certificate gets no TACK ----------------------------------------
# (openssl ca: req -x509 cannot date a certificate in the past)
mkdir "$d/ca";
write_file("$d/ca/index.txt", '');
write_file("$d/ca/serial", "01\n");
write_file("$d/ca/ca.cnf", "[ca]\ndefault_ca = c\n[c]\ndir = $d/ca\n"
    . "database = $d/ca/index.txt\nserial = $d/ca/serial\nnew_certs_dir = $d/ca\n"
    . "default_md = sha256\npolicy = p\nunique_subject = no\n[p]\ncommonName = supplied\n");
TackHelpers::must_run("openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
    . " -subj /CN=a.test -keyout $d/a.key -out $d/ca/a.csr 2>&1");
TackHelpers::must_run("openssl ca -batch -config $d/ca/ca.cnf -selfsign -keyfile $d/a.key"
    . " -in $d/ca/a.csr -startdate 20200101000000Z -enddate 20200102000000Z"
    . " -out $d/a.crt 2>&1");
like(`openssl x509 -in $d/a.crt -noout -enddate`, qr/Jan  2 00:00:00 2020/,
     'a certificate that expired in 2020');
$h->write_conf($nostore);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with it for a.test');
$log = settled($mark);
like($log, qr/\[tack:error\].*TACK00034: vhost a\.test:$port: ECDSA certificate \/CN=a\.test expired at 2020-01-02T00:00Z; TackSigningKey signs no TACK for it/,
     'an expired certificate gets no TACK, with an error');
like($log, qr/TACK00036: .*1 certificate left without one/, '... counted in the summary');
log_clean($mark, [qr/TACK00034|TACK00074/], $h->error_log);

# ---- a certificate without a subject, its name only in the SAN (pebble's on
# Debian 13): named by its DNS name, and its TACK in the store served at the
# next pass instead of signed again
TackHelpers::must_run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256"
    . " -nodes -sha256 -days 90 -subj / -addext subjectAltName=DNS:e.test,DNS:www.e.test"
    . " -addext basicConstraints=critical,CA:FALSE"
    . " -keyout $d/e.key -out $d/e.crt 2>&1");
like(`openssl x509 -in $d/e.crt -noout -subject`, qr/^subject=\s*$/m,
     'a certificate with an empty subject');
my $nosubject = <<"C";
TackSigningKey \@ROOT\@/sign.key
TackSigningPassword file:\@ROOT\@/pw
TackStore \@ROOT\@/store
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName e.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/e.crt
    SSLCertificateKeyFile \@ROOT\@/e.key
</VirtualHost>
C
unlink glob("$d/store/*.tack.pem");   # the other vhosts' TACKs
$h->write_conf($nosubject);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with it');
$log = settled($mark);
my $fe = "$d/store/" . store_name("$d/e.crt", 'e.test', 'ecdsa');
like($log, qr/TACK00031: vhost e\.test:$port: signed a TACK for ECDSA certificate DNS:e\.test with TackSigningKey \S+ \(key [^)]*\); written to \Q$fe\E/,
     'signed, the certificate named by its first DNS name (never an empty label)')
    or diag($log);
my $e1 = served('e.test');
ok($e1 && $e1->{id} eq $key_id && $e1->{target} eq $e1->{spki}, '... and served');
for my $pass (1, 2) {
    $mark = -s $h->error_log;
    ok($h->graceful, "graceful restart $pass");
    $log = log_since($mark, $h->error_log);
    unlike($log, qr/TACK00031/, '... signs nothing again') or diag($log);
    like($log, qr/TACK00056: vhost e\.test:$port: serving TACK \Q$fe\E \(TackStore.* for ECDSA certificate DNS:e\.test/,
         '... serves the TACK it wrote into the store');
    like($log, qr/TACK00022: .*: 1 TACK file loaded, .* 0 unused/,
         '... which the store does not call unused');
    is(unpack('H*', served('e.test')->{bytes}), unpack('H*', $e1->{bytes}),
       '... the same bytes');
    log_clean($mark, [], $h->error_log);
}

# ---- two vhosts whose names differ only by case, each with a certificate
# of its own: a store file is named after its certificate, so each gets its
# own file and neither takes the other's (the name of the vhost plays no
# part)
make_cert($d, 'f', 'ec', 'e.test');
my $twocase = $nosubject . <<"C";
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName E.TEST
    SSLEngine on
    SSLCertificateFile \@ROOT\@/f.crt
    SSLCertificateKeyFile \@ROOT\@/f.key
</VirtualHost>
C
$h->write_conf($twocase);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with vhosts e.test and E.TEST (another certificate)');
$log = settled($mark);
my $ff = "$d/store/" . store_name("$d/f.crt", 'e.test', 'ecdsa');
isnt($ff, $fe, 'the two certificates have two file names');
like($log, qr/TACK00031: vhost E\.TEST:$port: signed a TACK for \S+ certificate \S+ with TackSigningKey \S+ \(key [^)]*\); written to \Q$ff\E/,
     'E.TEST\'s TACK is written to its certificate\'s file')
    or diag($log);
is(unpack('H*', (TackHelpers::pem_blocks($fe, 'TACK'))[0]),
   unpack('H*', $e1->{bytes}), 'the store file of e.test\'s certificate still holds its TACK');
# (SNI cannot tell the two apart: a client reaching "E.TEST" gets e.test)
my $tf = (TackHelpers::pem_blocks($ff, 'TACK'))[0];
ok(fingerprint(substr($tf, 0, 64)) eq $key_id
       && substr($tf, 70, 32) eq spki_hash("$d/f.crt"),
   '... and E.TEST\'s holds a TACK under the signing key for its certificate');
log_clean($mark, [], $h->error_log);

$h->stop;
