# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# A non-empty TACK request is malformed (draft-00 section 4.1): fatal
# decode_error alert, logged at info only (a peer caused it).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;

plan tests => 6;

my $mark = log_mark();

my $r = probe(name => 'a.test', version => '1.2', args => '-x');
ok(!$r->{ok}, 'a.test: non-empty request: handshake fails');
like($r->{error} // '', qr/alert decode error/, 'a.test: with a decode_error alert');

$r = probe(name => 'default.test', version => '1.2', args => '-x');
like($r->{error} // '', qr/alert decode error/,
    'default vhost without TACK: decode_error too');

$r = probe(name => 'f.test', version => '1.3', args => '-x');
like($r->{error} // '', qr/alert decode error/,
    'TLS 1.3 on a TackTLS13 vhost: decode_error');

like(log_since($mark), qr/\[tack:info\].*TACK00052: vhost a\.test:\d+: non-empty TACK request \(1 bytes\)/,
    'logged at info with the vhost name');

log_clean($mark);
