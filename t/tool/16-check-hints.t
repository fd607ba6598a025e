# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# tack check for monitoring and for the cases that used to leave the
# operator guessing (issue 15, item 4): --key-type chooses the certificate
# of a dual-certificate server; --warn-days warns (a line, "warnings" in
# --json, the exit status unchanged) about a TACK that expires soon; a
# server that speaks only TLS 1.3 gets a hint, with the default TLS 1.2 and
# with --tls1_3.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use JSON::PP;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

my ($rc, $out, $err);
my $d = tmp();
my ($ec, $eck) = mkcert('ec', 'dual.example.org', 60);
my ($rsa, $rsak) = TackHelpers::make_cert({ days => 60 }, $d, 'rsa', 'rsa',
                                          'dual.example.org');
(tack('genkey', '-p', 'pw', '-o', "$d/k.pem"))[0] == 0 or die;
(tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $ec, '-e', '10d',
      '-o', "$d/t.pem"))[0] == 0 or die;
my %hash = map { my ($r, $o) = tack('view', $_->[1]);
                 ($_->[0] => ($o =~ /^key_sha256\s+= (\S+)/m)[0]) } (['ec', $ec], ['rsa', $rsa]);
ok($hash{ec} && $hash{rsa} && $hash{ec} ne $hash{rsa}, 'two certificates, two keys');
my ($r0, $si) = tack('serverinfo', '-t', "$d/t.pem", '-a', '1');
write_file("$d/t.si", $si);

sub serve {
    my (@args) = @_;
    my $port = free_port(18400, 18429);
    my $pid = start_s_server($port, '-cert', $ec, '-key', $eck, @args);
    return ($port, $pid);
}

# ---- --key-type on a dual-certificate server ----------------------------------
my ($port, $pid) = serve('-dcert', $rsa, '-dkey', $rsak, '-serverinfo', "$d/t.si",
                         '-tls1_2');
for my $kt ('ecdsa', 'rsa') {
    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--key-type', $kt,
                             '--warn-days', '0');
    my $want = $kt eq 'ecdsa' ? 'ec' : 'rsa';
    like($out, qr/^key_sha256\s+= $hash{$want}$/m,
         "--key-type $kt: the server presents its " . uc($kt) . ' certificate')
        or diag($out, $err);
}
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--key-type', 'ecdsa');
is($rc, 0, '--key-type ecdsa: the TACK for the ECDSA certificate is accepted') or diag($out, $err);
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--key-type', 'dsa');
is($rc, 2, '--key-type dsa is a usage error');
like($err, qr/--key-type: ecdsa or rsa, not "dsa"/, '... saying what is accepted');
stop_server($pid);

# ---- --warn-days ----------------------------------------------------------------
($port, $pid) = serve('-serverinfo', "$d/t.si", '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--require');
is($rc, 0, 'a TACK that expires in 10 days: accepted, exit status 0') or diag($out, $err);
like($out, qr/^warning\s+= TACK [a-z2-7.]+ expires at \S+, in (9|10) days \(--warn-days 30\)$/m,
     '... with a warning line (30 days by default)');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--json');
my $j = decode_json($out);
is($j->{result}, 'accepted', '--json: accepted');
like(($j->{warnings} // [])->[0] // '', qr/expires at .* in (9|10) days/, '--json: the warning in "warnings"');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--warn-days', '5');
unlike($out, qr/^warning/m, '--warn-days 5: no warning for 10 days');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--warn-days', '0');
unlike($out, qr/^warning/m, '--warn-days 0: no warning at all');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--warn-days', 'x');
is($rc, 2, '--warn-days x is a usage error');
stop_server($pid);

# ---- a server that speaks only TLS 1.3 ----------------------------------------------
($port, $pid) = serve('-tls1_3');
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 1, 'TLS 1.2 (the default) to a TLS 1.3-only server fails');
like($err, qr/TLS handshake with 127\.0\.0\.1 port $port failed: .*; the server does not speak TLS 1\.2 \(it may speak only TLS 1\.3\): try --tls1_3, where mod_tack sends a TACK only with TackTLS13 on/,
     '... and says what to try');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_3');
is($rc, 0, '--tls1_3 connects');
like($out, qr/^extension\s+= none \(the server sent no TACK; in TLS 1\.3 mod_tack sends one only with TackTLS13 on\)$/m,
     '... and "extension = none" says why there may be none');
stop_server($pid);

done_testing();
