# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# A vhost with an RSA and an ECDSA certificate: each handshake gets the TACK
# whose target_hash matches the certificate actually presented, chosen by
# OpenSSL from the client's signature algorithms (TLS 1.2 and 1.3).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(spki_hash);

plan tests => 15;

my $mark = log_mark();
my %spki = (ec  => hex(spki_hash(fx('d.test-ec.crt'))),
            rsa => hex(spki_hash(fx('d.test-rsa.crt'))));
my %tack = (ec => tack_of('d-ec.tack.pem'), rsa => tack_of('d-rsa.tack.pem'));

my %how = (
    '1.2 ec'  => '-a ECDSA+SHA256 -C ECDHE-ECDSA-AES128-GCM-SHA256',
    '1.2 rsa' => '-a RSA+SHA256 -C ECDHE-RSA-AES128-GCM-SHA256',
    '1.3 ec'  => '-a ECDSA+SHA256',
    '1.3 rsa' => '-a rsa_pss_rsae_sha256',
);
for my $k (sort keys %how) {
    my ($v, $type) = split ' ', $k;
    my $r = probe(name => 'd.test', version => $v, args => $how{$k});
    is($r->{cert_spki}, $spki{$type}, "TLS $v: the $type certificate is presented")
        or diag($r->{out});
    is(hex($r->{ext}), hex(body00($tack{$type}, [], 0)),
        "TLS $v: with the $type certificate's TACK");
    is(hex(substr($r->{ext} // '', 71, 32)), $r->{cert_spki},
        "TLS $v $type: target_hash = the presented certificate's SPKI hash");
}

# The same with the independent client.
my $r = s_client(name => 'd.test', extra => '-sigalgs ECDSA+SHA256 -cipher ECDHE-ECDSA-AES128-GCM-SHA256');
is(hex($r->{ext}), hex(body00($tack{ec}, [], 0)), 's_client ECDSA: the ECDSA TACK');
$r = s_client(name => 'd.test', extra => '-sigalgs RSA+SHA256 -cipher ECDHE-RSA-AES128-GCM-SHA256');
is(hex($r->{ext}), hex(body00($tack{rsa}, [], 0)), 's_client RSA: the RSA TACK');

log_clean($mark);
