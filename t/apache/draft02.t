# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TackFormat draft-02: one or two TACKs per certificate with activation
# flags (bit n: n-th TACK active); "TackFile FILE inactive" clears a bit;
# pair files carry two TACKs.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;

plan tests => 7;

my $mark = log_mark();

my $r = probe(name => 'e.test', version => '1.2');
is(hex($r->{ext}),
    hex(body02([tack_of('e1.tack.pem'), tack_of('e2.tack.pem')], 0x01)),
    'e.test: two TACKs (rollover), the second inactive: flags 01');
is(hex(substr($r->{ext}, 2 + 70, 32)), $r->{cert_spki}, 'first TACK targets the certificate');
is(hex(substr($r->{ext}, 2 + 166 + 70, 32)), $r->{cert_spki}, 'second TACK too');

$r = s_client(name => 'e.test');
is(hex($r->{ext}),
    hex(body02([tack_of('e1.tack.pem'), tack_of('e2.tack.pem')], 0x01)),
    'e.test: s_client sees the same');

$r = probe(name => 'p.test', version => '1.2');
my @pair = tack_of('pair.tack.pem');
is(scalar @pair, 2, 'the pair file holds two TACKs');
is(hex($r->{ext}), hex(body02(\@pair, 0x03)),
    'p.test: a pair file, both active: flags 03');

log_clean($mark);
