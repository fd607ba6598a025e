# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# `tack check` against `openssl s_server -serverinfo`: a server that is not
# ours.  TLS 1.2 (ServerHello), TLS 1.3 (EncryptedExtensions, with a
# SERVERINFOV2 file), SNI, and each of the draft's client checks.
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
my ($crt, $key) = mkcert('www', 'www.example.org', 30);
my ($crt2, $key2) = mkcert('b', 'b.example.org', 30);

(tack('genkey', '-p', 'pw', '-o', "$d/k.pem"))[0] == 0 or die;
(tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $crt, '-e', '2031-06-01Z',
     '-o', "$d/t.pem"))[0] == 0 or die;
(tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $crt2, '-e', '2031-06-01Z',
     '-o', "$d/t-b.pem"))[0] == 0 or die;
my ($id) = (tack('view', "$d/t.pem"))[1] =~ /TACK ID        = (\S+)/;

sub serve {
    my ($name, $pem, @args) = @_;
    write_file("$d/$name.si", $pem);
    my $port = free_port(18400, 18429);
    my $pid = start_s_server($port, '-cert', $crt, '-key', $key,
                             '-serverinfo', "$d/$name.si", @args);
    return ($port, $pid);
}

sub si {
    my @args = @_;
    my ($rc, $out, $err) = tack('serverinfo', @args);
    die "serverinfo @args: $err" if $rc;
    return $out;
}

# ---- TLS 1.2: the draft's ServerHello
my ($port, $pid) = serve('v1', si('-t', "$d/t.pem", '-a', '1',
                         '-b', vec00('TACK_Break_Sigs.pem')));
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2',
                         '--servername', 'www.example.org');
is($rc, 0, 'TLS 1.2 check exits 0') or diag($out, $err);
like($out, qr/^connection     = TLSv1\.2, /m, 'TLS 1.2 negotiated');
like($out, qr/^extension      = draft-00, 426 bytes, in the TLS 1\.2 ServerHello$/m,
     'the extension came in the ServerHello');
like($out, qr/^pin_activation = 1$/m, 'pin_activation shown');
like($out, qr/^TACK ID        = \Q$id\E$/m, 'the TACK shown');
like($out, qr/^Breaks TACK ID = nxt3o\.zoovj\.xq5qk\.mue76\.wmx6t\nBreaks TACK ID = neuda/m,
     'the break signatures shown');
like($out, qr/^chain          = not verified \(no --ca; TACK does not depend on CAs\)$/m,
     'says the chain is not checked');
like($out, qr/^result         = accepted$/m, 'accepted');

($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2', '--json');
is($rc, 0, 'check --json exits 0');
my $j = decode_json($out);
is($j->{result}, 'accepted', 'json: accepted');
is($j->{extension}{message}, 'TLS 1.2 ServerHello', 'json: where');
is($j->{extension}{length}, 426, 'json: length');
is($j->{tacks}[0]{tack_id}, $id, 'json: the TACK');
is(scalar(@{ $j->{break_sigs} }), 2, 'json: two break signatures');

# A V1 serverinfo is TLS 1.2 only: over TLS 1.3 nothing comes back.
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_3');
is($rc, 0, 'TLS 1.3 to a TLS-1.2-only TACK server is accepted');
like($out, qr/^extension      = none/m, '... with no TACK');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_3', '--require');
is($rc, 1, '... and --require makes that a failure');
like($err, qr/no TACK/, '... saying so');

# Without a version flag the check speaks TLS 1.2, where the drafts put
# TACK, even to a server that offers TLS 1.3 (s_server does).
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 0, 'a check without a version flag exits 0') or diag($err);
like($out, qr/^connection     = TLSv1\.2, /m, '... over TLS 1.2 by default');
like($out, qr/in the TLS 1\.2 ServerHello$/m, '... and gets the TACK');

# An expired TACK: move the client's clock.
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2',
                         '--now', '2031-06-02Z');
is($rc, 1, 'an expired TACK exits 1');
like($err, qr/rejected with certificate_expired/, '... certificate_expired');
like($out, qr/^result         = rejected: certificate_expired/m,
     '... also on stdout');
stop_server($pid);

# ---- TLS 1.3: a SERVERINFOV2 file puts it in EncryptedExtensions
($port, $pid) = serve('v2', si('-t', "$d/t.pem", '-a', '1', '--v2'));
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_3');
is($rc, 0, 'TLS 1.3 check exits 0') or diag($out, $err);
like($out, qr/^connection     = TLSv1\.3, /m, 'TLS 1.3 negotiated');
like($out, qr/in the TLS 1\.3 EncryptedExtensions$/m,
     'the extension came in EncryptedExtensions');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--tls1_2');
is($rc, 0, 'the same server over TLS 1.2');
like($out, qr/in the TLS 1\.2 ServerHello$/m, '... in the ServerHello');
stop_server($pid);

# ---- SNI: s_server switches to a second certificate for b.example.org
($port, $pid) = serve('sni', si('-t', "$d/t.pem", '-a', '1'),
                      '-servername', 'b.example.org', '-cert2', $crt2,
                      '-key2', $key2, '-tls1_2');
my ($hash_www) = (tack('view', $crt))[1] =~ /key_sha256     = (\S+)/;
my ($hash_b) = (tack('view', $crt2))[1] =~ /key_sha256     = (\S+)/;
($rc, $out, $err) = tack('check', "127.0.0.1:$port",
                         '--servername', 'www.example.org');
is($rc, 0, 'SNI www.example.org accepted') or diag($out, $err);
like($out, qr/^key_sha256     = $hash_www$/m, '... with www\'s certificate');
like($out, qr/^TACK ID        = \Q$id\E$/m, '... and its TACK');
($rc, $out, $err) = tack('check', "127.0.0.1:$port",
                         '--servername', 'b.example.org');
like($out, qr/^key_sha256     = $hash_b$/m, 'SNI b.example.org gets b\'s '
                                           . 'certificate');
stop_server($pid);

# ---- the TACK of another certificate: illegal_parameter
($port, $pid) = serve('mismatch', si('-t', "$d/t-b.pem"), '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 1, 'a TACK for another certificate exits 1');
like($err, qr/rejected with illegal_parameter: .*target_hash/,
     '... illegal_parameter, naming target_hash');
stop_server($pid);

# ---- malformed bodies: decode_error
my $good = pem_body(si('-t', "$d/t.pem", '-a', '1'), 'SERVERINFO FOR TACK');
$good = substr($good, 4);
for my $case (['tack_len 5', "\x05" . substr($good, 1)],
              ['trailing byte', $good . "\x00"],
              ['pin_activation 2', substr($good, 0, -1) . "\x02"],
              ['truncated', substr($good, 0, 100)]) {
    my ($what, $body) = @$case;
    ($port, $pid) = serve('bad', serverinfo_pem($body), '-tls1_2');
    ($rc, $out, $err) = tack('check', "127.0.0.1:$port");
    is($rc, 1, "a body with $what exits 1");
    like($err, qr/rejected with decode_error/, "... decode_error ($what)");
    stop_server($pid);
}

# ---- the message names the real fault (issue 16, item 9): a draft-00
# body with two TACKs is not "too many break signatures", and a draft-02
# body's bad flag is not blamed on draft-00.
my $tack_b = pem_body(slurp("$d/t-b.pem"), 'TACK');
for my $case (
    ['a draft-00 body with two TACKs',
     substr($good, 0, 167) . $tack_b . "\0\0\1", [],
     qr/decode_error: the extension is not a draft-00 body: a second TACK follows the first, at byte 167: a draft-00 body carries at most one TACK/],
    ['... the same with --format draft-00',
     substr($good, 0, 167) . $tack_b . "\0\0\1", ['--format', 'draft-00'],
     qr/not a draft-00 body: a second TACK follows the first, at byte 167/],
    ['a draft-02 single TACK with activation bit 1',
     pack('n', 166) . substr($good, 1, 166) . "\x02", [],
     qr/decode_error: the extension is not a draft-02 body: activation_flags at byte 168 is 0x02: bit 1 activates a second TACK, but the body has one \(as draft-00: break_sigs_len at byte 1 is \d+: too many/],
    ['... the same with --format draft-02',
     pack('n', 166) . substr($good, 1, 166) . "\x02", ['--format', 'draft-02'],
     qr/decode_error: the extension is not a draft-02 body: activation_flags at byte 168 is 0x02: bit 1/],
    ['draft-00 pin_activation 2',
     substr($good, 0, -1) . "\x02", [],
     qr/not a draft-00 body: pin_activation at byte 169 is 2, not 0 or 1/],
    ['draft-00 tack_len 5',
     "\x05" . substr($good, 1), ['--format', 'draft-00'],
     qr/not a draft-00 body: tack_len at byte 0: wrong length/],
    ['a draft-02 body with one byte too many',
     pack('n', 166) . substr($good, 1, 166) . "\x01\x00", [],
     qr/not a draft-02 body: end at byte 169: unexpected bytes after the end/]) {
    my ($what, $body, $opts, $want) = @$case;
    ($port, $pid) = serve('fault', serverinfo_pem($body), '-tls1_2');
    ($rc, $out, $err) = tack('check', "127.0.0.1:$port", @$opts);
    is($rc, 1, "$what exits 1");
    like($err, $want, '... naming the fault') or diag($err);
    stop_server($pid);
    # tack view of the same serverinfo file says the same (auto only)
    next if @$opts;
    ($rc, $out, $err) = tack('view', "$d/fault.si");
    isnt($rc, 0, "tack view of it fails");
    (my $view_want = "$want") =~ s/decode_error: the extension is //;
    like($err, qr/$view_want/, '... with the same fault') or diag($err);
}
# The second TACK's key may begin with two zero bytes (1 time in 65,536):
# they read as break_sigs_len 0 and the parse then stumbles on
# pin_activation; the diagnosis is the same.
write_file("$d/fault0.si", serverinfo_pem(substr($good, 0, 167) . "\0\0"
                                     . substr($tack_b, 2) . "\0\0\1"));
($rc, $out, $err) = tack('view', "$d/fault0.si");
like($err, qr/not a draft-00 body: a second TACK follows the first, at byte 167/,
     'a second TACK whose key begins with 00 00: still named as a second TACK')
    or diag($err);

# ---- signatures: decrypt_error
my $bad = $good;
substr($bad, 1 + 150, 1) = chr(ord(substr($bad, 151, 1)) ^ 0x40);
($port, $pid) = serve('badsig', serverinfo_pem($bad), '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 1, 'a TACK with a bad signature exits 1');
like($err, qr/rejected with decrypt_error/, '... decrypt_error');
stop_server($pid);

my $bs = pem_body(si('-b', vec00('TACK_Break_Sigs.pem')),
                  'SERVERINFO FOR TACK');
$bs = substr($bs, 4);
substr($bs, 3 + 100, 1) = chr(ord(substr($bs, 103, 1)) ^ 1);
($port, $pid) = serve('badbs', serverinfo_pem($bs), '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 1, 'a bad break signature exits 1');
like($err, qr/rejected with decrypt_error: break signature 1/,
     '... decrypt_error, naming the break signature');
stop_server($pid);

# ---- a TACK with a break signature of its own key in the same reply
# (issue 16, item 4): `tack serverinfo` refuses to build it, so the body
# is made by hand; --require must fail, with and without --pins.
(tack('break', '-k', "$d/k.pem", '-p', 'pw', '-o', "$d/self-bs.pem"))[0] == 0
    or die;
my $self_bs = pem_body(slurp("$d/self-bs.pem"), 'TACK BREAK SIG');
($port, $pid) = serve('selfbreak', serverinfo_pem(substr($good, 0, 167)
                      . pack('n', 128) . $self_bs . "\x01"), '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--require');
is($rc, 1, '--require fails a TACK broken in the same reply')
    or diag($out, $err);
like($err, qr/break signature 1 breaks the key of TACK 1/,
     '... saying the break signature breaks the TACK\'s key');
like($out, qr/^result         = failed: break signature 1 breaks/m,
     '... on stdout too');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--require', '--json');
is($rc, 1, '--require --json fails it too');
like(decode_json($out)->{reason}, qr/breaks the key of TACK 1/,
     '... with the reason in the report');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--require',
                         '--pins', "$d/selfbreak-pins.json");
is($rc, 1, '--require --pins fails it as well') or diag($out, $err);
like($err, qr/breaks the key of TACK 1/, '... with the same reason');
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 0, 'without --require the check accepts it, as before');
stop_server($pid);

# ---- generation below min_generation: decode_error (a forged, well-signed
# TACK; the tool refuses to sign one)
my $target = pack('H*', $hash_www);
my $forged = forge_tack(min_generation => 5, generation => 4,
                        expiration => 40000000, target => $target);
($port, $pid) = serve('gen', serverinfo_pem("\xa6" . $forged . "\0\0\0"),
                      '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 1, 'generation below min_generation exits 1');
like($err, qr/rejected with decode_error: .*generation 4 is below min_generation 5/,
     '... decode_error, saying why');
stop_server($pid);
$forged = forge_tack(min_generation => 1, generation => 4,
                     expiration => 40000000, target => $target);
($port, $pid) = serve('gen2', serverinfo_pem("\xa6" . $forged . "\0\0\1"),
                      '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 0, 'a forged but well-formed TACK (openssl-signed) is accepted')
    or diag($out, $err);
stop_server($pid);

# ---- draft-02 bodies
($port, $pid) = serve('d02', si('--format', 'draft-02', '-t', "$d/t.pem",
                                 '-a', '1'), '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port");
is($rc, 0, 'a draft-02 body is accepted in auto mode') or diag($out, $err);
like($out, qr/^extension      = draft-02, 169 bytes/m, '... as draft-02');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--format', 'draft-00');
is($rc, 1, '... and refused with --format draft-00');
like($err, qr/decode_error: the extension is not a draft-00 body: break_sigs_len at byte 1 is \d+: too many break signatures .*\(it is a draft-02 one: --format auto accepts both\)/,
     '... as decode_error, saying it is a draft-02 body');
stop_server($pid);

# ---- the chain, with --ca
($port, $pid) = serve('ca', si('-t', "$d/t.pem"), '-tls1_2');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--ca', $crt,
                         '--servername', 'www.example.org');
is($rc, 0, '--ca with the right anchor exits 0') or diag($out, $err);
like($out, qr/^chain          = verified against /m, '... chain verified');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--ca', $crt2,
                         '--servername', 'www.example.org');
is($rc, 1, '--ca with another anchor exits 1');
like($err, qr/certificate chain/, '... blaming the chain');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--ca', $crt,
                         '--servername', 'wrong.example.org');
is($rc, 1, '--ca checks the name too');
stop_server($pid);

# ---- failures to connect and usage
my $closed = free_port(18430, 18449);
($rc, $out, $err) = tack('check', "127.0.0.1:$closed", '--timeout', '2');
is($rc, 1, 'a refused connection exits 1');
like($err, qr/cannot connect/, '... cannot connect');
# stdout and stderr to one file (a terminal, 2>&1): the reason is said once
my $both = qx{$TACK check 127.0.0.1:$closed --timeout 2 2>&1};
my $times = () = $both =~ /Connection refused/g;
is($times, 1, '... said once when standard output and error are the same file')
    or diag($both);
($rc, $out, $err) = tack('check');
is($rc, 2, 'check without a host exits 2');
($rc, $out, $err) = tack('check', 'localhost:1', '--format', 'draft-99');
is($rc, 2, 'a bad --format exits 2');

done_testing();
