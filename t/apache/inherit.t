# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Server-level settings: TackFile TACKs are candidates for every vhost
# (served where they match the certificate in use; a vhost's own TACK for a
# certificate takes precedence), other settings inherit the usual way (the
# vhost overrides the server).  Both apache2 -t and the real start agree.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem write_file);

plan tests => 10;

my $h = TackTest::Httpd->new('inherit');
my $d = $h->root;
make_cert($d, $_, 'ec', $_) for qw(i1.test i2.test i3.test i4.test i5.test);
make_key("$d/$_.key") for qw(k1 k2 k3 k4 kb1 kb2);
my %t = (
    i1   => tack_bytes(key => "$d/k1.key", cert => "$d/i1.test.crt"),
    srv2 => tack_bytes(key => "$d/k2.key", cert => "$d/i2.test.crt"),
    srv4 => tack_bytes(key => "$d/k3.key", cert => "$d/i4.test.crt"),
    i4   => tack_bytes(key => "$d/k4.key", cert => "$d/i4.test.crt"),
    i5   => tack_bytes(key => "$d/k1.key", cert => "$d/i5.test.crt"),
);
write_file("$d/$_.pem", tackpy_pem('TACK', $t{$_})) for keys %t;
my %b = (srv => breaksig_bytes("$d/kb1.key"), own => breaksig_bytes("$d/kb2.key"));
write_file("$d/srv-breaks.pem", tackpy_pem('TACK BREAK SIG', $b{srv}));
write_file("$d/own-breaks.pem", tackpy_pem('TACK BREAK SIG', $b{own}));

sub vh {
    my ($name, $body) = @_;
    return "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName $name\n"
        . "    SSLEngine on\n    SSLCertificateFile $name.crt\n"
        . "    SSLCertificateKeyFile $name.key\n    $body\n</VirtualHost>\n";
}
$h->write_conf("TackFile srv2.pem\nTackFile srv4.pem\n"
    . "TackBreakSigsFile srv-breaks.pem\nTackPinActivation on\n"
    . vh('i1.test', 'TackFile i1.pem')
    . vh('i2.test', '')
    . vh('i3.test', "TackBreakSigsFile own-breaks.pem\n    TackPinActivation off")
    . vh('i4.test', 'TackFile i4.pem')
    . vh('i5.test', 'TackFile i5.pem inactive'));

my ($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t passes') or diag($out);
($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);

my $get = sub { probe(port => $h->port, name => $_[0], version => '1.2')->{ext} };
is(hex($get->('i1.test')), hex(body00($t{i1}, [$b{srv}], 1)),
    'i1: its TACK, inherited break signatures and activation');
is(hex($get->('i2.test')), hex(body00($t{srv2}, [$b{srv}], 1)),
    'i2: the server-level TACK that matches its certificate');
is(hex($get->('i3.test')), hex(body00(undef, [$b{own}], 0)),
    'i3: own break signatures and activation override the server');
is(hex($get->('i4.test')), hex(body00($t{i4}, [$b{srv}], 1)),
    'i4: its own TACK takes precedence over a server-level one for its certificate');

is(hex($get->('i5.test')), hex(body00($t{i5}, [$b{srv}], 0)),
    'i5: draft-00 "TackFile FILE inactive": pin_activation 0 with that TACK');

my $log = log_since(0, $h->error_log);
unlike($log, qr/TACK00013/, 'no server-level TACK reported unmatched');
unlike($log, qr/TACK00001/, 'no "second TACK" for i4');
log_clean(0, [qr/TACK00074: vhost i3\.test/], $h->error_log);  # i3: nothing of its own
$h->stop;
