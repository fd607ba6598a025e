# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Cases that used to be silent (issue 15, item 3), each with its message:
# a ServerInfoFile that sends 0xF300 beside mod_tack is refused; a TACK for
# only some certificates of a vhost, Tack directives in a vhost without
# SSLEngine on, and a TLS 1.3-only vhost with TackTLS13 off are warned
# about (under apache2 -t where it can see them, and at a real start).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes tackpy_pem write_file minutes_from_now);
use HTTP::Tiny;
use JSON::PP;

plan tests => 38;

my $h = TackTest::Httpd->new('silent');
my $d = $h->root;
my $port = $h->port;
make_cert($d, 'ec', 'ec', 'dual.test');
make_cert($d, 'rsa', 'rsa', 'dual.test');
make_cert($d, 'p', 'ec', 'plain.test');
make_cert($d, 't13', 'ec', 't13.test');
make_key("$d/k.key");
write_file("$d/rsa.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k.key", cert => "$d/rsa.crt")));
write_file("$d/p.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k.key", cert => "$d/p.crt")));
write_file("$d/t13.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k.key", cert => "$d/t13.crt")));
my $plain_port = TackTest::Httpd::free_port();

sub conf {
    my ($extra) = @_;
    $h->write_conf(<<"C" . ($extra // ''));
Listen 127.0.0.1:$plain_port
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName dual.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/rsa.crt
    SSLCertificateKeyFile \@ROOT\@/rsa.key
    SSLCertificateFile \@ROOT\@/ec.crt
    SSLCertificateKeyFile \@ROOT\@/ec.key
    TackFile \@ROOT\@/rsa.pem
</VirtualHost>
<VirtualHost 127.0.0.1:$plain_port>
    ServerName plain.test
    TackFile \@ROOT\@/p.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName t13.test
    SSLEngine on
    SSLProtocol -all +TLSv1.3
    SSLCertificateFile \@ROOT\@/t13.crt
    SSLCertificateKeyFile \@ROOT\@/t13.key
    TackFile \@ROOT\@/t13.pem
</VirtualHost>
C
}

conf();
my ($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t passes: these are warnings') or diag($out);
like($out, qr/\[tack:warn\].*TACK00027: vhost dual\.test:$port: a TACK for 1 of its 2 certificates; clients that negotiate the other get none: certificate \S+ec\.crt \(sign one for each: tack sign -c CERT\)/,
     'a TACK for the RSA certificate only: warned, naming the ECDSA one');
like($out, qr/\[tack:warn\].*TACK00062: vhost plain\.test:$plain_port: Tack directives in a virtual host without SSLEngine on: nothing is served here/,
     'TackFile in a vhost without SSLEngine on: warned');
like($out, qr/\[tack:warn\].*TACK00061: vhost t13\.test:$port: speaks only TLS 1\.3 \(SSLProtocol\) and TackTLS13 is off: no TACK is sent to anyone/,
     'a TLS 1.3-only vhost with TackTLS13 off: warned by apache2 -t too, from its SSLProtocol line');

($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
my $log = log_since(0, $h->error_log);
like($log, qr/\[tack:warn\].*TACK00027: vhost dual\.test:$port: a TACK for 1 of its 2 certificates; .*ECDSA certificate \/CN=dual\.test/,
     'the start warns about the dual-certificate vhost too');
like($log, qr/\[tack:warn\].*TACK00062: vhost plain\.test:$plain_port: Tack directives in a virtual host without SSLEngine on/,
     '... and about the plain vhost');
like($log, qr/\[tack:warn\].*TACK00061: vhost t13\.test:$port: speaks only TLS 1\.3 \(SSLProtocol\) and TackTLS13 is off: no TACK is sent to anyone; add TackTLS13 on, or allow TLS 1\.2/,
     'a TLS 1.3-only vhost with TackTLS13 off: warned');
my @w = $log =~ /(TACK0002[67]|TACK0006[12])/g;
is(scalar(@w), 3, 'each said once (not again for the discarded first pass)');
my $r = probe(port => $port, name => 'dual.test', version => '1.2', args => '-a ECDSA+SHA256 -C ECDHE-ECDSA-AES128-GCM-SHA256');
ok($r->{ok} && !defined $r->{ext}, 'indeed: an ECDSA client of dual.test gets no TACK') or diag($r->{out});
log_clean(0, [qr/TACK0002[67]|TACK0006[12]/], $h->error_log);
$h->stop;

# the ways out silence them
write_file("$d/ec.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k.key", cert => "$d/ec.crt")));
my $fixed = <<"C";
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName dual.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/rsa.crt
    SSLCertificateKeyFile \@ROOT\@/rsa.key
    SSLCertificateFile \@ROOT\@/ec.crt
    SSLCertificateKeyFile \@ROOT\@/ec.key
    TackFile \@ROOT\@/rsa.pem
    TackFile \@ROOT\@/ec.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName t13.test
    SSLEngine on
    SSLProtocol -all +TLSv1.3
    SSLCertificateFile \@ROOT\@/t13.crt
    SSLCertificateKeyFile \@ROOT\@/t13.key
    TackFile \@ROOT\@/t13.pem
    TackTLS13 on
</VirtualHost>
C
$h->write_conf($fixed);
($rc, $out) = $h->configtest;
is($rc, 0, 'fixed: Syntax OK') or diag($out);
unlike($out, qr/TACK0002[67]/, '... and no warning');
my $mark = -s $h->error_log;
($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
unlike(log_since($mark, $h->error_log), qr/TACK0002[67]|TACK0006[12]/, '... no warning at the start either');
$h->stop;

# ---- a ServerInfoFile that sends 0xF300 itself: refused ---------------------
my $top = top_dir();
my $si = qx{$top/tack serverinfo -t $d/t13.pem 2>&1};
like($si, qr/-----BEGIN SERVERINFO FOR TACK-----/, 'a serverinfo file for 0xF300 (tack serverinfo)');
write_file("$d/tack.si", $si);
$h->write_conf(<<"C");
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName t13.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/t13.crt
    SSLCertificateKeyFile \@ROOT\@/t13.key
    SSLOpenSSLConfCmd ServerInfoFile \@ROOT\@/tack.si
    TackFile \@ROOT\@/t13.pem
</VirtualHost>
C
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses it beside mod_tack');
like($out, qr/\[tack:error\].*TACK00025: vhost t13\.test:$port: SSLOpenSSLConfCmd ServerInfoFile \S+tack\.si \(\S+:\d+\) sends TLS extension 0xF300 \(TACK\) itself: OpenSSL would serve its bytes and refuse mod_tack's/,
     '... saying what would happen');
$h->write_conf(<<"C");
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName t13.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/t13.crt
    SSLCertificateKeyFile \@ROOT\@/t13.key
    SSLOpenSSLConfCmd ServerInfoFile \@ROOT\@/tack.si
</VirtualHost>
C
($rc, $out) = $h->configtest;
is($rc, 0, 'without Tack directives in that vhost the ServerInfoFile is its own business') or diag($out);

# ---- expired before the start: counted as expired, not as "no TACK" ----------
# (an expired TackStore TACK and an expired TackFile: the status JSON, the
# mod_status lines and the problem list say "expired")
make_cert($d, 's', 'ec', 'store.test');
mkdir "$d/store";
write_file("$d/store/s.tack.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k.key",
    cert => "$d/s.crt", expiration => minutes_from_now(-60))));
write_file("$d/old.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k.key",
    cert => "$d/t13.crt", expiration => minutes_from_now(-60))));
$h->write_conf(<<"C");
<Location /tack-status>
    SetHandler tack-status
</Location>
<Location /server-status>
    SetHandler server-status
</Location>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName store.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/s.crt
    SSLCertificateKeyFile \@ROOT\@/s.key
    TackStore \@ROOT\@/store
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName t13.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/t13.crt
    SSLCertificateKeyFile \@ROOT\@/t13.key
    TackFile \@ROOT\@/old.pem
</VirtualHost>
C
$mark = -s $h->error_log;
($rc, $out) = $h->start;
is($rc, 0, 'started with an expired store TACK and an expired TackFile') or diag($out);
my $http = HTTP::Tiny->new(verify_SSL => 0, timeout => 10);
my $st = $http->get("https://127.0.0.1:$port/tack-status?json");
my $j = eval { decode_json($st->{content}) } // {};
is($j->{summary}{expired}, 2, 'the status JSON counts both as expired') or diag($st->{content});
my %kinds = map { $_->{name} => join(',', map { $_->{kind} } @{ $_->{problems} }) } @{ $j->{vhosts} // [] };
is($kinds{"store.test:$port"}, 'expired', 'store.test: its problem is "expired", not "no_tack"');
is($kinds{"t13.test:$port"}, 'expired', 't13.test: the same for the TackFile');
my $auto = $http->get("https://127.0.0.1:$port/server-status?auto");
like($auto->{content}, qr/^TackExpired: 2$/m, 'mod_status: TackExpired: 2') or diag($auto->{content});
my $m = $http->get("https://127.0.0.1:$port/tack-status?metrics");
like($m->{content}, qr/^tack_vhost_problems\{vhost="store\.test:$port",kind="expired"\} 1$/m,
     'the metrics too');
log_clean($mark, [qr/TACK00011|TACK00018/], $h->error_log);
$h->stop;

# ---- TackRequired: one store for the server, rolled out vhost by vhost ------
# (a vhost not rolled out is "not configured": no problem, no metric that
# alerts, no warning; one rolled out without its TACK is all three)
mkdir "$d/rstore";
for my $n (qw(done later missing)) {
    make_cert($d, $n, 'ec', "$n.test");
}
write_file("$d/rstore/done.tack.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k.key",
    cert => "$d/done.crt")));
# the TACK of a certificate done.test had before its renewal (another key),
# expired with it: history, not a problem
make_cert($d, 'gone', 'ec', 'done.test');
write_file("$d/rstore/done-2025.tack.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k.key",
    cert => "$d/gone.crt", expiration => minutes_from_now(-60))));
my $rollout = <<"C";
<Location /tack-status>
    SetHandler tack-status
</Location>
TackStore \@ROOT\@/rstore
TackRequired off
C
for my $v (['done', 'on'], ['later', ''], ['missing', 'on']) {
    my ($n, $req) = @$v;
    $rollout .= "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName $n.test\n"
        . "    SSLEngine on\n    SSLCertificateFile \@ROOT\@/$n.crt\n"
        . "    SSLCertificateKeyFile \@ROOT\@/$n.key\n"
        . ($req ? "    TackRequired $req\n" : '') . "</VirtualHost>\n";
}
$h->write_conf($rollout);
($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t: a missing TACK is a warning, not a refusal') or diag($out);
my @said = $out =~ /TACK00074: vhost (\S+?):/g;
is("@said", 'missing.test', 'apache2 -t warns about the vhost rolled out without its TACK, only');
$mark = -s $h->error_log;
($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
my $rlog = log_since($mark, $h->error_log);
@said = $rlog =~ /\[tack:warn\].*TACK00074: vhost (\S+?):/g;
is("@said", 'missing.test', 'the start warns about it once, naming it');
$st = $http->get("https://127.0.0.1:$port/tack-status?json");
$j = eval { decode_json($st->{content}) } // {};
my %v = map { (split /:/, $_->{name})[0] => $_ } @{ $j->{vhosts} // [] };
is_deeply([map { $v{"$_.test"}{tack_required} ? 1 : 0 } qw(done later missing)], [1, 0, 1],
    'JSON: "tack_required" as configured (inherited off, on where rolled out)');
is_deeply($v{'later.test'}{problems}, [], 'later.test (not rolled out): no problem');
is(join(',', map { "$_->{severity} $_->{kind}" } @{ $v{'missing.test'}{problems} }),
   'error no_tack', 'missing.test (rolled out, no TACK): an error');
is(scalar @{ $v{'done.test'}{certificates}[0]{tacks} }, 1, 'done.test serves its TACK');
$m = $http->get("https://127.0.0.1:$port/tack-status?metrics");
like($m->{content}, qr/^tack_vhost_required\{vhost="later\.test:$port"\} 0\n(?s:.*)^tack_vhost_required\{vhost="missing\.test:$port"\} 1$/m,
     'metrics: tack_vhost_required 0 for later.test, 1 for missing.test') or diag($m->{content});
unlike($rlog, qr/\[tack:(?:warn|error)\].*done-2025/, 'an expired store file for a certificate no vhost uses is not warned about');
is_deeply([map { $_->{kind} } map { @{ $_->{problems} // [] } } @{ $j->{stores} // [] }], [],
    '... nor a problem on the status page');
log_clean($mark, [qr/TACK00074: vhost missing\.test/], $h->error_log);
$h->stop;

