# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Certificates only the hook can see: mod_md supplies the certificate
# (MDCertificateFile, no SSLCertificateFile in the vhost).  apache2 -t cannot
# match the TACK (it says so at info level and passes); the real start
# matches it in ssl_init_server against the certificate mod_md handed to
# mod_ssl, serves a matching TACK and logs a mismatching one.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes tackpy_pem write_file);

my $md = "$PrivateHttpd::MODDIR/mod_md.so";
plan tests => 9;

my $h = TackTest::Httpd->new('md');
my $d = $h->root;
make_cert($d, $_, 'ec', $_) for qw(m.test n.test other.test);
make_key("$d/k1.key");
my $tm = tack_bytes(key => "$d/k1.key", cert => "$d/m.test.crt");
write_file("$d/m.pem", tackpy_pem('TACK', $tm));
write_file("$d/n.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k1.key", cert => "$d/other.test.crt")));

$h->write_conf(<<"C", loglevel => 'info tack:debug ssl:warn md:warn');
LoadModule md_module $md
MDStoreDir \@ROOT\@/md
MDRenewMode manual
<MDomain m.test>
    MDCertificateFile \@ROOT\@/m.test.crt
    MDCertificateKeyFile \@ROOT\@/m.test.key
</MDomain>
<MDomain n.test>
    MDCertificateFile \@ROOT\@/n.test.crt
    MDCertificateKeyFile \@ROOT\@/n.test.key
</MDomain>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName m.test
    SSLEngine on
    TackFile m.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName n.test
    SSLEngine on
    TackFile n.pem
</VirtualHost>
C

my ($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t passes: the certificates are not in the configuration tree')
    or diag($out);

($rc, $out) = $h->start;
is($rc, 0, 'started with mod_md') or diag($out);
ok($h->alive, 'running');
my $log = log_since(0, $h->error_log);
like($log, qr/TACK00056: vhost m\.test:\d+: serving TACK \S+m\.pem .* for ECDSA certificate \/CN=m\.test/,
    'm.test: TACK matched in ssl_init_server against the mod_md certificate');
like($log, qr/\[tack:error\].*TACK00005: vhost n\.test:\d+: TackFile \S+n\.pem .*matches none of the vhost's certificates \(ECDSA certificate \/CN=n\.test \(key_sha256 [0-9a-f]{64}\)\); sign one for the certificate in use: tack sign -k KEY -c CERT -o \S+n\.pem/,
    'n.test: mismatch found at start-up and logged');

my $r = probe(port => $h->port, name => 'm.test', version => '1.2');
is(hex($r->{ext}), hex(body00($tm, [], 0)), 'm.test serves its TACK');
is(hex(substr($r->{ext}, 71, 32)), $r->{cert_spki}, 'for the certificate mod_md supplied');
$r = probe(port => $h->port, name => 'n.test', version => '1.2');
ok($r->{ok} && !defined $r->{ext}, 'n.test serves nothing');

log_clean(0, [qr/TACK00005: vhost n\.test/], $h->error_log);
$h->stop;
