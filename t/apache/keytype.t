# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# One name for a certificate's key type, whoever describes it: the guard's
# memory is kept per "name:port TYPE", so apache2 -t (which reads the
# certificate files itself) and a real start (which reads mod_ssl's) must
# name an RSA-PSS certificate alike, or -t looks up an entry the start
# never wrote and passes a key change that breaks pinned clients.  Before
# there was one describer, -t said "RSASSA-PSS" where the start said
# "RSA-PSS".
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use JSON::PP;
use TackTest;
use TackHelpers qw(make_key tack_bytes tackpy_pem write_file fingerprint key_public);

plan tests => 9;

my $h = TackTest::Httpd->new('keytype');
my $d = $h->root;
my $port = $h->port;
my $state = "$d/var/tack/state.json";

# an RSA-PSS certificate (its own OpenSSL slot, SSL_PKEY_RSA_PSS_SIGN)
sub make_pss_cert {
    system("openssl req -x509 -newkey rsa-pss -pkeyopt rsa_keygen_bits:2048"
           . " -nodes -sha256 -days 90 -subj /CN=a.test"
           . " -addext subjectAltName=DNS:a.test"
           . " -addext basicConstraints=critical,CA:FALSE"
           . " -keyout $d/a.key -out $d/a.crt 2>/dev/null") == 0
        or die "openssl req (rsa-pss) failed";
}
make_pss_cert();
make_key("$d/k1.key");
my $K1 = fingerprint(key_public("$d/k1.key"));
mkdir "$d/store";
write_file("$d/store/a1.tack.pem",
           tackpy_pem('TACK', tack_bytes(key => "$d/k1.key", cert => "$d/a.crt")));
$h->write_conf(<<"C");
TackStateFile \@ROOT\@/var/tack/state.json
TackStore \@ROOT\@/store
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
    TackPinActivation on
</VirtualHost>
C

sub memory {
    open my $fh, '<', $state or return {};
    local $/;
    return eval { decode_json(<$fh>) } // {};
}

my ($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t accepts an RSA-PSS certificate with its TACK') or diag($out);
($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
my $t = served_tack($port, 'a.test');
is($t ? $t->{id} : undef, $K1, 'the RSA-PSS certificate is served its TACK under K1');
my @slots = sort keys %{ memory()->{slots} // {} };
is("@slots", "a.test:$port RSA-PSS",
   'the start remembers it as "a.test:PORT RSA-PSS"');

# ten days of serving, then a renewed certificate with a new key and no
# TACK for it: clients that pinned K1 would refuse the name
my $j = memory();
$_->{first_seen} -= 10 * 86400 for map { @$_ } values %{ $j->{slots} };
write_file($state, encode_json($j));
$h->stop;
make_pss_cert();
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses the renewed RSA-PSS certificate without a TACK under K1')
    or diag($out);
like($out, qr/TACK00040: vhost a\.test:$port: certificate \S+a\.crt would be served without a TACK under key \Q$K1\E/,
     '... naming the certificate and the pinned key') or diag($out);
unlike($out, qr/RSASSA-PSS/, '... and no second name for the key type');

# the real start logs the same, for the same entry
($rc, $out) = $h->start;
is($rc, 0, 'a real start is not fatal') or diag($out);
like(log_since(0, $h->error_log),
     qr/TACK00042: vhost a\.test:$port: RSA-PSS certificate \/CN=a\.test would be served without a TACK under key \Q$K1\E/,
     '... and logs the same refusal for the RSA-PSS certificate');
$h->stop;
