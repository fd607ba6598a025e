# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The project's own TACK client, "tack check", against the module: it
# checks each reply as a TACK client must (draft-00 section 5) and speaks
# TLS 1.3 (EncryptedExtensions), which s_client cannot here.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use JSON::PP ();
use TackTest;

plan tests => 24;

my $mark = log_mark();
my $tool = top_dir() . '/tack';
my $port = ssl_port();
my $p13 = ssl_port('tack_ssl13');

sub check {
    my ($name, $args, $p) = @_;
    my $out = qx{$tool check 127.0.0.1:@{[$p || $port]} --servername $name $args --json 2>&1};
    my $rc = $? >> 8;
    my $j = eval { JSON::PP::decode_json($out) } || { raw => $out };
    return ($rc, $j);
}

ok(-x $tool, 'the tool is built');

my ($rc, $j) = check('a.test', '--tls1_2 --require');
is($rc, 0, 'a.test TLS 1.2: accepted');
is($j->{extension}{format}, 'draft-00', 'a.test: draft-00');
is(scalar @{ $j->{tacks} }, 1, 'a.test: one TACK');
is(scalar @{ $j->{break_sigs} }, 2, 'a.test: two break signatures');
is($j->{extension}{pin_activation}, 1, 'a.test: pin activation on');
is($j->{extension}{hex},
    hex(body00(tack_of('a.tack.pem'), sigs_of('a.breaks.pem'), 1)),
    'a.test: the bytes of the files');

($rc, $j) = check('a.test', '--tls1_3');
is($rc, 0, 'a.test TLS 1.3: accepted');
ok(!$j->{extension}{received}, 'a.test TLS 1.3 (TackTLS13 off): no TACK');

($rc, $j) = check('f.test', '--tls1_3 --require');
is($rc, 0, 'f.test TLS 1.3 (on): accepted');
like($j->{extension}{message} // '', qr/EncryptedExtensions/, 'f.test: in EncryptedExtensions');
is($j->{extension}{hex}, hex(body00(tack_of('f.tack.pem'), [], 0)), 'f.test: its TACK');

($rc, $j) = check('h.test', '--tls1_3', $p13);
ok($rc == 0 && !$j->{extension}{received}, 'h.test TLS 1.3 (off, default vhost on): no TACK');
($rc, $j) = check('g.test', '--tls1_3 --require', $p13);
is($rc, 0, 'g.test TLS 1.3 (on, default vhost): TACK accepted');

($rc, $j) = check('e.test', '--tls1_2 --require');
is($rc, 0, 'e.test draft-02: accepted');
is($j->{extension}{format}, 'draft-02', 'e.test: draft-02');
is($j->{extension}{activation_flags}, 1, 'e.test: flags 1');

($rc, $j) = check('c.test', '--tls1_2');
is($rc, 0, 'c.test: break signatures only, accepted');
is(scalar @{ $j->{break_sigs} }, 1, 'c.test: one break signature');

($rc, $j) = check('default.test', '--tls1_2');
ok($rc == 0 && !$j->{extension}{received}, 'default vhost: no TACK');

($rc, $j) = check('t.test', '--tls1_2 --require');
is($rc, 0, 't.test: the TACK the tool signed is served and accepted');

# a full client with a pin store: pin created, then honoured
my $pins = t_dir() . '/tmp/toolclient-pins.json';
unlink $pins;
($rc, $j) = check('a.test', "--tls1_2 --pins $pins");
is($rc, 0, 'pin store: first connection accepted');
($rc, $j) = check('a.test', "--tls1_2 --pins $pins");
is($rc, 0, 'pin store: second connection accepted with the pin');

log_clean($mark);
