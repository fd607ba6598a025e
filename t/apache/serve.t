# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# What each vhost of t/conf/extra.conf.in serves over TLS 1.2, seen by
# openssl s_client (-serverinfo 62208 asks for TACK, -tlsextdebug prints the
# answer), compared with bodies built from the fixture files.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(spki_hash);

plan tests => 14;

my $mark = log_mark();

my $r = s_client(name => 'a.test');
is(hex($r->{ext}),
    hex(body00(tack_of('a.tack.pem'), sigs_of('a.breaks.pem'), 1)),
    'a.test: its TACK, both break signatures, pin_activation 1');
like($r->{out}, qr/Verify return code|Verification/, 'a.test: handshake completed');

$r = s_client(name => 'b.test');
is(hex($r->{ext}), hex(body00(tack_of('b.tack.pem'), [], 0)),
    'b.test (RSA, relative paths): its TACK, no break signature, pin_activation 0');

$r = s_client(name => 'c.test');
is(hex($r->{ext}), hex(body00(undef, sigs_of('c.breaks.pem'), 0)),
    'c.test: break signatures served without a TACK');

$r = s_client(name => 'default.test');
ok(!defined $r->{ext}, 'default vhost without TACK: no extension');
like($r->{out}, qr/Protocol\s*:\s*TLSv1\.2/, 'default vhost: handshake completed');

$r = s_client(name => 's.test');
is(hex($r->{ext}), hex(body00(tack_of('s.tack.pem'), [], 0)),
    's.test: the server-level TackFile that matches its certificate');

$r = s_client(name => 'a.test', request => 0);
unlike($r->{out}, qr/id=62208/, 'no request: s_client sees no 0xF300 extension');
like($r->{out}, qr/Protocol\s*:\s*TLSv1\.2/, 'no request: handshake completed');

$r = probe(name => 'a.test', version => '1.2', args => '-N');
is($r->{ext}, undef, 'no request: the probe sees no extension either');

$r = probe(name => 'a.test', version => '1.2');
is(hex($r->{ext}),
    hex(body00(tack_of('a.tack.pem'), sigs_of('a.breaks.pem'), 1)),
    'the probe sees the same bytes as s_client');

# The tool's TACK (when t/TEST.PL could make one with ./tack).
$r = s_client(name => 't.test');
if (-e fx('t.tack.pem')) {
    is(hex($r->{ext}), hex(body00(tack_of('t.tack.pem'), [], 0)),
        't.test: a TACK signed by the project tool ./tack is served');
}
else {
    ok(!defined $r->{ext}, 't.test: no tool, no TACK');
}

like(log_since($mark), qr/\[tack:debug\].*TACK00054: vhost a\.test:\d+: TLSv1\.2: TACK requested/,
    'LogLevel tack:debug logs the per-handshake decision with the vhost');

log_clean($mark);
