# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TackTLS13: off by default (TLS 1.2 and below only); on: also in TLS 1.3
# EncryptedExtensions.  With SNI, the flags of the SNI vhost decide, whatever
# the default vhost of the address says: OpenSSL collects the ClientHello's
# extensions with the default vhost's table (which has 0xF300 registered on
# every context), but decides relevance and answers with the table of the
# context mod_ssl switched to.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;

plan tests => 15;

my $mark = log_mark();
my $p13 = ssl_port('tack_ssl13');

# port tack_ssl: default vhost off
my $r = probe(name => 'a.test', version => '1.3');
ok($r->{ok} && $r->{version} eq 'TLSv1.3', 'a.test (off): TLS 1.3 handshake');
ok(!defined $r->{ext}, 'a.test (off): no TACK in TLS 1.3');

$r = s_client(name => 'a.test', version => '-tls1_3');
ok($r->{out} =~ /New, TLSv1\.3/ && $r->{out} =~ /Peer signature type/
    && $r->{out} !~ /:error:/, 'a.test (off): s_client -tls1_3 -serverinfo 62208 completes');
ok(!defined $r->{ext}, 'a.test (off): and sees no extension');

$r = probe(name => 'f.test', version => '1.3');
is($r->{version}, 'TLSv1.3', 'f.test (on, behind a default vhost that is off): TLS 1.3');
is(hex($r->{ext}), hex(body00(tack_of('f.tack.pem'), [], 0)),
    'f.test (on): TACK in EncryptedExtensions');

$r = probe(name => 'f.test', version => '1.2');
is(hex($r->{ext}), hex(body00(tack_of('f.tack.pem'), [], 0)), 'f.test (on): TLS 1.2 too');

# Why it is off by default: a client that registered the extension the
# TLS 1.2 way aborts when it comes back in EncryptedExtensions.
$r = s_client(name => 'f.test', version => '-tls1_3');
like($r->{out}, qr/tls_collect_extensions:bad extension/,
    'f.test (on): s_client -tls1_3 -serverinfo 62208 aborts on the EncryptedExtensions answer');

# port tack_ssl13: default vhost on, SNI vhost off
$r = probe(name => 'g.test', port => $p13, version => '1.3');
is(hex($r->{ext}), hex(body00(tack_of('g.tack.pem'), [], 0)), 'g.test (default vhost, on): TLS 1.3');
$r = probe(port => $p13, version => '1.3');
is(hex($r->{ext}), hex(body00(tack_of('g.tack.pem'), [], 0)), 'no SNI: the default vhost, TLS 1.3');
$r = probe(name => 'h.test', port => $p13, version => '1.3');
ok($r->{ok}, 'h.test (off, behind a default vhost that is on): TLS 1.3 handshake');
ok(!defined $r->{ext}, 'h.test (off): no TACK in TLS 1.3');
$r = probe(name => 'h.test', port => $p13, version => '1.2');
is(hex($r->{ext}), hex(body00(tack_of('h.tack.pem'), [], 0)), 'h.test (off): TLS 1.2 TACK');
$r = s_client(name => 'h.test', port => $p13, version => '-tls1_3');
ok($r->{out} =~ /New, TLSv1\.3/ && $r->{out} =~ /Peer signature type/
    && $r->{out} !~ /:error:/, 'h.test (off): s_client -tls1_3 completes');

log_clean($mark, [qr/AH02032/]);
