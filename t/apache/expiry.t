# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Expiry: a TACK expiring within 30 days is a warning at start-up, at reload
# and under apache2 -t; an expired one is left out, an error at a restart
# and a warning (never a refusal) under apache2 -t; a TACK that expires while the server runs stops being
# served at once (its vhost's break signatures still are), logged once per
# process.  Waits for the next minute boundary (TACK expirations are in
# minutes): up to about 75 seconds.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem write_file
    minutes_from_now);

plan tests => 16;

my $h = TackTest::Httpd->new('expiry');
my $d = $h->root;
make_cert($d, $_, 'ec', $_) for qw(x.test y.test);
make_key("$d/$_.key") for qw(k1 k2 kb);

# y's TACK expires at the next minute boundary at least 15 s away
my $now = time;
my $exp = int($now / 60) + 1;
$exp++ if $exp * 60 - $now < 15;

# One minute short of 10 days from the current minute, so that the warning
# says "in 9 days" whatever the second the test starts at (at exactly :00
# the full 10 days would otherwise remain).
my $tx = tack_bytes(key => "$d/k1.key", cert => "$d/x.test.crt",
    expiration => minutes_from_now(10 * 24 * 60) - 1);
my $ty = tack_bytes(key => "$d/k2.key", cert => "$d/y.test.crt", expiration => $exp);
my $bs = breaksig_bytes("$d/kb.key");
write_file("$d/x.pem", tackpy_pem('TACK', $tx));
write_file("$d/y.pem", tackpy_pem('TACK', $ty));
write_file("$d/yb.pem", tackpy_pem('TACK BREAK SIG', $bs));
$h->write_conf(<<'C');
<VirtualHost 127.0.0.1:@PORT@>
    ServerName x.test
    SSLEngine on
    SSLCertificateFile x.test.crt
    SSLCertificateKeyFile x.test.key
    TackFile x.pem
</VirtualHost>
<VirtualHost 127.0.0.1:@PORT@>
    ServerName y.test
    SSLEngine on
    SSLCertificateFile y.test.crt
    SSLCertificateKeyFile y.test.key
    TackFile y.pem
    TackBreakSigsFile yb.pem
</VirtualHost>
C

my ($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t passes with a TACK expiring in 10 days');
like($out, qr/\[tack:warn\].*TACK00010: vhost x\.test:\d+: TackFile \S+x\.pem: TACK \(key \S+\) expires at \S+, in 9 days/,
    'apache2 -t warns about it');

($rc, $out) = $h->start;
is($rc, 0, 'started');
my $log = log_since(0, $h->error_log);
like($log, qr/\[tack:warn\].*TACK00010: vhost x\.test:\d+: TackFile \S+x\.pem: TACK \(key \S+\) expires at/,
    'start-up warns about the TACK expiring within 30 days');
my $n = () = $log =~ /TACK00010: vhost x\.test/g;
is($n, 1, 'once');

my $mark = log_mark($h->error_log);
ok($h->graceful, 'graceful restart');
like(log_since($mark, $h->error_log), qr/TACK00010: vhost x\.test/, 'reload warns again');

my $get = sub { probe(port => $h->port, name => 'y.test', version => '1.2') };
is(hex($get->()->{ext}), hex(body00($ty, [$bs], 0)), 'y.test: TACK and break signature before expiry');

my $wait = $exp * 60 - time + 1;
diag("waiting $wait s for the TACK to expire");
sleep $wait if $wait > 0;

$mark = log_mark($h->error_log);
my @r = map { $get->() } 1 .. 12;
ok(!(grep { !$_->{ok} } @r), 'handshakes succeed after the expiry');
is(scalar(grep { hex($_->{ext}) eq hex(body00(undef, [$bs], 0)) } @r), 12,
    'the expired TACK is no longer served, the break signature still is');
$log = log_since($mark, $h->error_log);
my @pids = $log =~ /\[pid (\d+):tid \d+\][^\n]*TACK00053: vhost y\.test:\d+: TackFile \S+y\.pem: TACK \(key \S+\) expired at \S+; no longer served \(break signatures still are\)/g;
ok(@pids >= 1, 'the expiry is logged');
my %seen;
$seen{$_}++ for @pids;
ok(!(grep { $_ > 1 } values %seen), 'once per process') or diag(join ' ', @pids);

# a restart now meets an expired TACK: logged, left out, server runs
$mark = log_mark($h->error_log);
ok($h->graceful, 'graceful restart after the expiry');
like(log_since($mark, $h->error_log),
    qr/\[tack:error\].*TACK00011: vhost y\.test:\d+: TackFile \S+y\.pem: TACK \(key \S+\) expired at/,
    'the restart logs the expired TACK as an error and runs on');

# and apache2 -t (every apache2ctl graceful, logrotate's daily reload) is not
# blocked by it: an expiry is a condition of time, warned about (issue 15)
($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t still passes with the expired TACK');
like($out, qr/\[tack:warn\].*TACK00024: TackFile \S+y\.pem: TACK \(key \S+\) expired at \S+ \(\S+:\d+\); left out: sign a new one/,
     '... and warns that it is left out');

$h->stop;
