# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Name-based vhosts on one address behind a default vhost that has no TACK
# (the SNI trap of the facts file): each vhost serves its own TACK, for the
# certificate actually presented.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(spki_hash);

plan tests => 13;

my $mark = log_mark();

for my $v (['a.test', 'a.tack.pem'], ['b.test', 'b.tack.pem'],
           ['s.test', 's.tack.pem']) {
    my ($name, $file) = @$v;
    my $r = probe(name => $name, version => '1.2');
    ok($r->{ok}, "$name: handshake") or diag($r->{out});
    my $tack = substr($r->{ext} // '', 1, 166);
    is(hex($tack), hex(tack_of($file)), "$name: its own TACK");
    is(hex(substr($tack, 70, 32)), $r->{cert_spki},
        "$name: target_hash is the presented certificate's");
}

my $r = probe(name => 'c.test', version => '1.2');
is(hex($r->{ext}), hex(body00(undef, sigs_of('c.breaks.pem'), 0)),
    'c.test: break signatures only');

$r = probe(version => '1.2');
ok($r->{ok} && !defined $r->{ext}, 'no SNI: the default vhost, nothing sent');

$r = probe(name => 'unknown.test', version => '1.2');
ok($r->{ok} && !defined $r->{ext}, 'unknown name: the default vhost, nothing sent');

log_clean($mark, [qr/AH01909|AH02032|Hostname .* not found/]);
