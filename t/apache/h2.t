# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# HTTP/2 (issue 29, item 12): with mod_http2 and "Protocols h2 http/1.1"
# the TACK goes out in the handshake whatever ALPN settles on (it is a TLS
# extension: the protocol above plays no part), and requests are answered
# over HTTP/2.  (openssl s_client's -serverinfo reads the answer in TLS
# 1.2's ServerHello only; TLS 1.3's EncryptedExtensions are tls13.t's.)
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes tackpy_pem write_file);
use MIME::Base64 qw(decode_base64);

my $mod_http2 = "$PrivateHttpd::MODDIR/mod_http2.so";
plan tests => 6;

my $h = TackTest::Httpd->new('h2');
my $d = $h->root;
my $port = $h->port;
make_cert($d, 'a', 'ec', 'h2.test');
make_key("$d/k.key");
my $tack = tack_bytes(key => "$d/k.key", cert => "$d/a.crt");
write_file("$d/a.pem", tackpy_pem('TACK', $tack));
write_file("$d/index.html", "hello over h2\n");
ok(-f $mod_http2, "mod_http2 is installed ($mod_http2)");
$h->write_conf(<<"C");
LoadModule http2_module $mod_http2
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName h2.test
    Protocols h2 http/1.1
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
    TackFile \@ROOT\@/a.pem
</VirtualHost>
C
my ($rc, $out) = $h->start;
is($rc, 0, 'started with mod_http2 and Protocols h2 http/1.1') or diag($out);

# openssl s_client -serverinfo 62208 sends an empty TACK extension and
# prints what the server answers in it as a SERVERINFO block.
sub answer {
    my ($tls) = @_;
    my $got = qx{echo | openssl s_client -connect 127.0.0.1:$port -servername h2.test -$tls -alpn h2 -serverinfo 62208 2>&1};
    my ($alpn) = $got =~ /^ALPN protocol: (\S+)$/m;
    my ($b64) = $got =~ /-----BEGIN SERVERINFO FOR EXTENSION 62208-----\n(.*?)-----END/s;
    my $si = defined $b64 ? decode_base64($b64) : '';
    # a SERVERINFO record: type (2 bytes), length (2), the extension's body
    return ($alpn // '(none)', length($si) > 4 ? substr($si, 4) : '', $got);
}
my $want = unpack('H*', TackHelpers::ext00($tack, [], 0));
for my $tls (qw(tls1_2)) {
    my ($alpn, $body, $raw) = answer($tls);
    is($alpn, 'h2', "$tls: ALPN settles on h2") or diag($raw);
    is(unpack('H*', $body), $want, "$tls: the TACK is in the handshake, as with HTTP/1.1");
}

my $curl = qx{curl -sk --http2 --resolve h2.test:$port:127.0.0.1 -w '\\n%{http_version}' https://h2.test:$port/index.html 2>&1};
like($curl, qr/^hello over h2\n+2$/, 'a request is answered over HTTP/2') or diag($curl);
log_clean(0, [], $h->error_log);
$h->stop;
