# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TACK goes out on full handshakes only (SSL_EXT_IGNORE_ON_RESUMPTION).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;

plan tests => 8;

my $mark = log_mark();
my $sess = t_dir() . "/tmp/resume.sess";

for my $v ('1.2', '1.3') {
    my $name = $v eq '1.2' ? 'a.test' : 'f.test';
    unlink $sess;
    my $r = probe(name => $name, version => $v, args => "-o $sess");
    ok(defined $r->{ext} && length $r->{ext}, "TLS $v $name: full handshake: TACK sent");
    $r = probe(name => $name, version => $v, args => "-i $sess");
    is($r->{resumed}, 1, "TLS $v $name: second handshake resumed");
    ok(!defined $r->{ext}, "TLS $v $name: resumed: no extension");
}

my $r = s_client(name => 'a.test', extra => "-sess_out $sess");
unlink $sess unless defined $r->{ext};
$r = s_client(name => 'a.test', extra => "-sess_in $sess");
ok($r->{out} =~ /^Reused/m && !defined $r->{ext},
    's_client: resumed session, no extension');

log_clean($mark);
