# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# A real start or restart that meets a bad TACK input is never stopped by it
# (a reboot after a TACK expired, a signal sent without a configuration
# test): the module logs the error with the vhost, leaves out only what is
# wrong, and the server runs.  The same configuration fails "apache2 -t".
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem write_file
    minutes_from_now);

plan tests => 37;

my $h = TackTest::Httpd->new('lenient');
my $d = $h->root;

make_cert($d, $_, 'ec', $_) for qw(default.test a.test b.test c.test e.test
    f.test g.test h.test other.test);
make_cert($d, 'd.test-rsa', 'rsa', 'd.test');
make_cert($d, 'd.test-ec', 'ec', 'd.test');
make_key("$d/$_.key") for qw(k1 k2 k3 kb1 kb2 kb3);

my $tack = sub { tack_bytes(key => "$d/$_[0].key", cert => "$d/$_[1].crt", @_[2 .. $#_]) };
my %files = (
    'a.pem'         => tackpy_pem('TACK', $tack->('k1', 'a.test')),
    'breaks1.pem'   => tackpy_pem('TACK BREAK SIG', breaksig_bytes("$d/kb1.key")),
    'breaks2.pem'   => tackpy_pem('TACK BREAK SIG', breaksig_bytes("$d/kb2.key")),
    'badbs.pem'     => do {
        my $b = breaksig_bytes("$d/kb3.key");
        substr($b, 70, 1) = chr(ord(substr($b, 70, 1)) ^ 1);
        tackpy_pem('TACK BREAK SIG', $b);
    },
    'b-expired.pem' => tackpy_pem('TACK', $tack->('k1', 'b.test',
                                          expiration => minutes_from_now(-5))),
    'c-other.pem'   => tackpy_pem('TACK', $tack->('k1', 'other.test')),
    'c.pem'         => tackpy_pem('TACK', $tack->('k2', 'c.test')),
    'd-ec.pem'      => tackpy_pem('TACK', $tack->('k1', 'd.test-ec')),
    'd-ec2.pem'     => tackpy_pem('TACK', $tack->('k2', 'd.test-ec')),
    'd-rsa.pem'     => tackpy_pem('TACK', $tack->('k3', 'd.test-rsa')),
    'e.pem'         => tackpy_pem('TACK', $tack->('k3', 'e.test')),
    'e-break.pem'   => tackpy_pem('TACK BREAK SIG', breaksig_bytes("$d/k3.key")),
    'f-pair.pem'    => tackpy_pem('TACK', $tack->('k1', 'f.test'), $tack->('k2', 'f.test')),
    'g.pem'         => tackpy_pem('TACK', $tack->('k1', 'g.test')),
    'five.pem'      => tackpy_pem('TACK BREAK SIG', (breaksig_bytes("$d/kb1.key")) x 5),
    'four.pem'      => tackpy_pem('TACK BREAK SIG', (breaksig_bytes("$d/kb2.key")) x 4),
    'srv-other.pem' => tackpy_pem('TACK', $tack->('k2', 'other.test')),
);
write_file("$d/$_", $files{$_}) for keys %files;

sub vh {
    my ($name, $body, $certs) = @_;
    $certs //= "SSLCertificateFile $name.crt\n    SSLCertificateKeyFile $name.key";
    return "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName $name\n"
        . "    SSLEngine on\n    $certs\n    $body\n</VirtualHost>\n";
}

my $conf = "TackFile srv-other.pem\n"
    . vh('default.test', '')
    . vh('a.test', "TackFile a.pem\n    TackFile missing.pem\n"
        . "    TackBreakSigsFile breaks1.pem\n    TackBreakSigsFile badbs.pem")
    . vh('b.test', "TackFile b-expired.pem\n    TackBreakSigsFile breaks2.pem")
    . vh('c.test', "TackFile c-other.pem\n    TackFile c.pem")
    . vh('d.test', "TackFile d-ec.pem\n    TackFile d-ec2.pem\n    TackFile d-rsa.pem",
        "SSLCertificateFile d.test-rsa.crt\n    SSLCertificateKeyFile d.test-rsa.key\n"
        . "    SSLCertificateFile d.test-ec.crt\n    SSLCertificateKeyFile d.test-ec.key")
    . vh('e.test', "TackFile e.pem\n    TackBreakSigsFile e-break.pem")
    . vh('f.test', 'TackFile f-pair.pem')
    . vh('g.test', "TackFormat draft-02\n    TackFile g.pem\n"
        . "    TackBreakSigsFile breaks1.pem")
    . vh('h.test', "TackBreakSigsFile five.pem\n    TackBreakSigsFile four.pem");
$h->write_conf($conf);

my ($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses this configuration');

($rc, $out) = $h->start;
is($rc, 0, 'a real start succeeds') or diag($out);
ok($h->alive, 'and the server runs');

my $log = TackTest::log_since(0, $h->error_log);
my $T = sub { my $f = shift; my @b = TackHelpers::pem_blocks("$d/$f", 'TACK'); $b[0] };
my $S = sub { [ map { TackHelpers::pem_blocks("$d/$_", 'TACK BREAK SIG') } @_ ] };
my $get = sub { probe(port => $h->port, name => $_[0], version => '1.2', args => $_[1] // '') };

# a.test: the missing file and the bad break signature are left out
like($log, qr/\[tack:error\].*TACK00011: vhost a\.test:\d+: TackFile \S+missing\.pem: cannot read file: No such file or directory \(\S+httpd\.conf:\d+\); this TACK file is not served/,
    'a.test: missing TACK file logged');
like($log, qr/\[tack:error\].*TACK00012: vhost a\.test:\d+: TackBreakSigsFile \S+badbs\.pem: break signature 1 \(key \S+\): signature does not verify/,
    'a.test: bad break signature logged');
is(hex($get->('a.test')->{ext}), hex(body00($T->('a.pem'), $S->('breaks1.pem'), 0)),
    'a.test: serves its good TACK and good break signatures');

# b.test: expired TACK: break signatures still go out
like($log, qr/TACK00011: vhost b\.test:\d+: TackFile \S+b-expired\.pem: TACK \(key \S+\) expired at/,
    'b.test: expired TACK logged');
is(hex($get->('b.test')->{ext}), hex(body00(undef, $S->('breaks2.pem'), 0)),
    'b.test: break signatures without the expired TACK');

# c.test: a TACK for another certificate
like($log, qr/TACK00005: vhost c\.test:\d+: TackFile \S+c-other\.pem \(\S+:\d+\): target_hash [0-9a-f]{64} of TACK \(key \S+\) matches none of the vhost's certificates \(ECDSA certificate \/CN=c\.test \(key_sha256 [0-9a-f]{64}\)\); sign one for the certificate in use: tack sign -k KEY -c CERT -o \S+c-other\.pem; left out/,
    'c.test: mismatching TACK logged, against the certificate mod_ssl loaded');
is(hex($get->('c.test')->{ext}), hex(body00($T->('c.pem'), [], 0)),
    'c.test: the matching TACK is served');

# d.test: a second TACK for the ECDSA certificate
like($log, qr/TACK00001: vhost d\.test:\d+: TackFile \S+d-ec2\.pem .*a second TACK for ECDSA certificate \/CN=d\.test, already served by TackFile \S+d-ec\.pem/,
    'd.test: second TACK for one certificate logged');
my $r = $get->('d.test', '-a ECDSA+SHA256 -C ECDHE-ECDSA-AES128-GCM-SHA256');
is(hex($r->{ext}), hex(body00($T->('d-ec.pem'), [], 0)), 'd.test ECDSA: the first TACK');
$r = $get->('d.test', '-a RSA+SHA256 -C ECDHE-RSA-AES128-GCM-SHA256');
is(hex($r->{ext}), hex(body00($T->('d-rsa.pem'), [], 0)), 'd.test RSA: its TACK');

# e.test: the break signature of the TACK's own key wins
like($log, qr/TACK00007: vhost e\.test:\d+: TackFile \S+e\.pem .*is broken by a break signature in TackBreakSigsFile \S+e-break\.pem/,
    'e.test: TACK with broken key logged');
is(hex($get->('e.test')->{ext}), hex(body00(undef, $S->('e-break.pem'), 0)),
    'e.test: only the break signature');

# f.test: a pair file in draft-00
like($log, qr/TACK00004: vhost f\.test:\d+: TackFile \S+f-pair\.pem .*holds 2 TACKs/,
    'f.test: pair file in draft-00 logged');
$r = $get->('f.test');
ok($r->{ok} && !defined $r->{ext}, 'f.test: nothing sent');

# g.test: break signatures in draft-02
like($log, qr/TACK00006: vhost g\.test:\d+: TackBreakSigsFile \S+breaks1\.pem .*draft-02/,
    'g.test: break signatures in draft-02 logged');
is(hex($get->('g.test')->{ext}), hex(body02([$T->('g.pem')], 0)),
    'g.test: the TACK, in draft-02');

# h.test: the file that makes nine is left out
like($log, qr/TACK00012: vhost h\.test:\d+: TackBreakSigsFile \S+four\.pem: 9 break signatures in all/,
    'h.test: ninth break signature logged');
is(hex($get->('h.test')->{ext}), hex(body00(undef, $S->('five.pem'), 0)),
    'h.test: the first five served');

# server level
like($log, qr/TACK00013: TackFile \S+srv-other\.pem \(\S+:\d+\): target_hash of TACK \(key \S+\) matches no certificate of any virtual host; not served/,
    'server-level TACK matching nothing logged');

$r = $get->('default.test');
ok($r->{ok} && !defined $r->{ext}, 'default vhost: nothing');

# Once per start, not once per configuration pass.
my $n = () = $log =~ /TACK00011: vhost b\.test/g;
is($n, 1, 'each problem is logged once at start-up');
unlike(join("\n", grep { !/TACK00074: vhost h\.test/ } split /\n/, $log), qr/\[tack:warn/,
       'no warnings besides the errors (and h.test\'s: break signatures, no TACK)');

# ---- a restart signalled without a test ------------------------------------
write_file("$d/a.pem", $files{'c-other.pem'});   # now a TACK for another cert
write_file("$d/c.pem", tackpy_pem('TACK', $tack->('k2', 'c.test', corrupt => 1)));
unlink "$d/breaks2.pem";
my $mark = TackTest::log_mark($h->error_log);
ok($h->graceful, 'graceful restart (SIGUSR1) completes');
ok($h->alive, 'the server still runs');
$log = TackTest::log_since($mark, $h->error_log);
like($log, qr/TACK00005: vhost a\.test:\d+: TackFile \S+a\.pem .*matches none/,
    'after restart: a.test mismatch logged');
like($log, qr/TACK00011: vhost c\.test:\d+: TackFile \S+c\.pem: TACK: signature does not verify/,
    'after restart: c.test bad signature logged');
like($log, qr/TACK00012: vhost b\.test:\d+: TackBreakSigsFile \S+breaks2\.pem: cannot read file/,
    'after restart: b.test missing break signatures logged');
is(hex($get->('a.test')->{ext}), hex(body00(undef, $S->('breaks1.pem'), 0)),
    'after restart: a.test serves its break signatures only');
$r = $get->('b.test');
ok($r->{ok} && !defined $r->{ext}, 'after restart: b.test sends nothing');
$r = $get->('c.test');
ok($r->{ok} && !defined $r->{ext}, 'after restart: c.test sends nothing');
is(hex($get->('h.test')->{ext}), hex(body00(undef, $S->('five.pem'), 0)),
    'after restart: h.test unchanged');

# A full restart ("apache2 -k restart" reads the configuration in the
# invoking process at a real-start run mode: lenient too).
$mark = TackTest::log_mark($h->error_log);
($rc, $out) = $h->run_httpd('-k', 'restart');
is($rc, 0, 'apache2 -k restart is not refused') or diag($out);
ok($h->wait_ready($mark), 'the server runs after a full restart');

$h->stop;
ok(!$h->alive, 'stopped');
