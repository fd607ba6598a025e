# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# `tack check` against a private Apache httpd: stock mod_ssl serving
# `tack serverinfo` files with SSLOpenSSLConfCmd ServerInfoFile, and
# mod_tack itself when build/mod_tack.so is built.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
BAIL_OUT("apache2 or mod_ssl not installed: run make deps")
    unless -x $PrivateHttpd::HTTPD
        && -e "$PrivateHttpd::MODDIR/mod_ssl.so";
# make test-tool builds the module first: its part below may not pass by
# skipping.
my $so = top() . '/build/mod_tack.so';
BAIL_OUT("$so not built: run make module") unless -e $so;

my ($rc, $out, $err);
my $d = tmp();
chmod(0755, $d);    # the server's children run as nobody
my ($a_crt, $a_key) = mkcert('a', 'a.example.org');
my ($b_crt, $b_key) = mkcert('b', 'b.example.org');
my ($dflt_crt, $dflt_key) = mkcert('default', 'default.example.org');
ok0(tack('genkey', '-p', 'pw', '-o', "$d/k.pem"));
ok0(tack('break', '-k', "$d/k.pem", '-p', 'pw', '-o', "$d/k.break"));
my ($id) = (tack('view', "$d/k.pem"))[1] =~ /= (\S+)/;
for my $n (qw(a b)) {
    my $crt = $n eq 'a' ? $a_crt : $b_crt;
    ok0(tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $crt,
             '-o', "$d/$n.tack.pem"));
}
ok0(tack('serverinfo', '-t', "$d/a.tack.pem", '-c', $a_crt, '-a', '1',
         '-b', vec00('TACK_Break_Sigs.pem'), '-o', "$d/a.si"));
ok0(tack('serverinfo', '-t', "$d/b.tack.pem", '-c', $b_crt, '--v2',
         '-o', "$d/b.si"));
ok0(tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $dflt_crt,
         '-o', "$d/default.tack.pem"));
ok0(tack('serverinfo', '-t', "$d/default.tack.pem", '-c', $dflt_crt,
         '-o', "$d/default.si"));

# ---- stock mod_ssl with ServerInfoFile
# OpenSSL reads ClientHello extensions with the table of the IP:port's
# default vhost, before SNI switches contexts: unless that vhost has a
# ServerInfoFile too, the SNI vhosts' files are never used.
my $port = free_port(18430, 18449);
my $conf = start_httpd('modssl', $port, <<"C");
<VirtualHost 127.0.0.1:$port>
    ServerName default.example.org
    SSLEngine on
    SSLCertificateFile $dflt_crt
    SSLCertificateKeyFile $dflt_key
    SSLOpenSSLConfCmd ServerInfoFile $d/default.si
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName a.example.org
    SSLEngine on
    SSLCertificateFile $a_crt
    SSLCertificateKeyFile $a_key
    SSLOpenSSLConfCmd ServerInfoFile $d/a.si
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName b.example.org
    SSLEngine on
    SSLCertificateFile $b_crt
    SSLCertificateKeyFile $b_key
    SSLOpenSSLConfCmd ServerInfoFile $d/b.si
</VirtualHost>
C
ok($conf, 'a private apache2 with mod_ssl and ServerInfoFile starts')
    or diag($@);
if ($conf) {

    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2',
                             '--servername', 'a.example.org');
    is($rc, 0, 'mod_ssl ServerInfoFile, SNI a.example.org, TLS 1.2')
        or diag($out, $err);
    like($out, qr/^extension      = draft-00, 426 bytes, in the TLS 1\.2 ServerHello$/m,
         '... the whole extension');
    like($out, qr/^TACK ID        = \Q$id\E$/m, '... our TACK');
    like($out, qr/^result         = accepted$/m, '... accepted');

    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_3',
                             '--servername', 'a.example.org');
    is($rc, 0, 'TLS 1.3 to a V1 ServerInfoFile vhost');
    like($out, qr/^extension      = none/m, '... no TACK (TLS 1.2 only)');

    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_3',
                             '--servername', 'b.example.org');
    is($rc, 0, 'SNI b.example.org with a SERVERINFOV2 file, TLS 1.3')
        or diag($out, $err);
    like($out, qr/in the TLS 1\.3 EncryptedExtensions$/m,
         '... in EncryptedExtensions');
    my ($hb) = (tack('view', $b_crt))[1] =~ /key_sha256     = (\S+)/;
    like($out, qr/^target_hash    = $hb$/m, '... b\'s TACK');

    # the pin store across vhosts: a.example.org pinned, then its TACK gone
    my $pins = "$d/httpd-pins.json";
    for my $t ('+0d', '+10d') {
        ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2',
                                 '--servername', 'a.example.org',
                                 '--pins', $pins, '--now', $t);
    }
    like($out, qr/activated until/, 'a.example.org pinned and activated');
    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_3',
                             '--servername', 'a.example.org',
                             '--pins', $pins, '--now', '+11d');
    is($rc, 1, 'the same name over TLS 1.3 (no TACK there): rejected');
    like($err, qr/access_denied/, '... access_denied');
    stop_httpd($conf);
}

# ---- mod_tack itself
{
    $port = free_port(18430, 18449);
    $conf = start_httpd('modtack', $port, <<"C");
LoadModule tack_module $so
TackStateFile ${\ tmp()}/modtack-state.json
<VirtualHost 127.0.0.1:$port>
    ServerName default.example.org
    SSLEngine on
    SSLCertificateFile $dflt_crt
    SSLCertificateKeyFile $dflt_key
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName a.example.org
    SSLEngine on
    SSLCertificateFile $a_crt
    SSLCertificateKeyFile $a_key
    TackFile $d/a.tack.pem
    TackBreakSigsFile ${\ vec00('TACK_Break_Sigs.pem')}
    TackPinActivation on
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName b.example.org
    SSLEngine on
    SSLCertificateFile $b_crt
    SSLCertificateKeyFile $b_key
    TackFile $d/b.tack.pem
    TackTLS13 on
</VirtualHost>
C
    ok($conf, 'a private apache2 with mod_tack starts') or diag($@);
    BAIL_OUT("httpd with mod_tack did not start: $@") unless $conf;

    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2',
                             '--servername', 'a.example.org');
    is($rc, 0, 'mod_tack, SNI a.example.org, TLS 1.2') or diag($out, $err);
    like($out, qr/^extension      = draft-00, 426 bytes, in the TLS 1\.2 ServerHello$/m,
         '... TACK and both break signatures');
    like($out, qr/^pin_activation = 1$/m, '... pin_activation on');
    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_3',
                             '--servername', 'b.example.org');
    is($rc, 0, 'mod_tack, SNI b.example.org, TLS 1.3 (TackTLS13 on)')
        or diag($out, $err);
    like($out, qr/in the TLS 1\.3 EncryptedExtensions$/m,
         '... in EncryptedExtensions');
    like($out, qr/^pin_activation = 0$/m, '... pin_activation off');
    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2',
                             '--servername', 'default.example.org',
                             '--require');
    is($rc, 1, 'the default vhost serves no TACK (--require fails)');
    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2',
                             '--servername', 'a.example.org',
                             '--now', '2200-01-01Z');
    like($err, qr/certificate_expired/,
         'mod_tack\'s TACK seen from the future: certificate_expired');
    stop_httpd($conf);
}

done_testing();
