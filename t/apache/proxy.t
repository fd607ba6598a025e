# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Never on is_proxy contexts: mod_ssl also hands over the client-role
# context of SSLProxyEngine.  Were 0xF300 registered there, the proxy would
# put the vhost's bytes into its ClientHello to the backend, and a backend
# running mod_tack would answer with decode_error.  Here the backend is the
# same server: requests through the proxy must succeed.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem write_file);

plan tests => 7;

my $mods = $PrivateHttpd::MODDIR;
my $h = TackTest::Httpd->new('proxy');
my $d = $h->root;
make_cert($d, $_, 'ec', $_) for qw(back.test front.test front2.test);
make_key("$d/$_.key") for qw(k1 kb);
my $tf = tack_bytes(key => "$d/k1.key", cert => "$d/front.test.crt");
my $bs = breaksig_bytes("$d/kb.key");
write_file("$d/front.pem", tackpy_pem('TACK', $tf));
write_file("$d/breaks.pem", tackpy_pem('TACK BREAK SIG', $bs));

$h->write_conf(<<"C");
LoadModule proxy_module $mods/mod_proxy.so
LoadModule proxy_http_module $mods/mod_proxy_http.so
# the backend: default vhost (the proxy connects by IP, without SNI)
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName back.test
    SSLEngine on
    SSLCertificateFile back.test.crt
    SSLCertificateKeyFile back.test.key
    TackBreakSigsFile breaks.pem
    # a distinctive answer: 410 comes from the backend only
    Redirect gone /
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName front.test
    SSLEngine on
    SSLCertificateFile front.test.crt
    SSLCertificateKeyFile front.test.key
    TackFile front.pem
    TackBreakSigsFile breaks.pem
    SSLProxyEngine on
    SSLProxyVerify none
    SSLProxyCheckPeerName off
    SSLProxyCheckPeerCN off
    ProxyPass / https://127.0.0.1:\@PORT\@/
    # relevant in a TLS 1.3 ClientHello too (a TLS 1.2-only registration
    # would be left out of a ClientHello offering TLS 1.3)
    TackTLS13 on
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName front2.test
    SSLEngine on
    SSLCertificateFile front2.test.crt
    SSLCertificateKeyFile front2.test.key
    TackBreakSigsFile breaks.pem
    SSLProxyEngine on
    SSLProxyProtocol -all +TLSv1.2
    SSLProxyVerify none
    SSLProxyCheckPeerName off
    SSLProxyCheckPeerCN off
    ProxyPass / https://127.0.0.1:\@PORT\@/
</VirtualHost>
C

my ($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
my $r = probe(port => $h->port, name => 'front.test', version => '1.2');
is(hex($r->{ext}), hex(body00($tf, [$bs], 0)), 'front.test serves its TACK');
like($r->{http} // '', qr{^HTTP/1\.1 410}, 'a request through the TLS proxy reaches the backend')
    or diag($r->{out});
$r = probe(port => $h->port, name => 'front.test', version => '1.3');
like($r->{http} // '', qr{^HTTP/1\.1 410}, 'again over TLS 1.3');
$r = probe(port => $h->port, name => 'front2.test', version => '1.2');
like($r->{http} // '', qr{^HTTP/1\.1 410}, 'through a TLS 1.2-only proxy too');
my $log = log_since(0, $h->error_log);
unlike($log, qr/non-empty TACK request/, 'the backend saw no TACK request from the proxy');

log_clean(0, [qr/TACK00074: vhost (?:front2|back)\.test/], $h->error_log);
$h->stop;
