# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Interop with TACKpy's files: the known answers of t/vectors.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use JSON::PP;
use Digest::SHA qw(sha256_hex);

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

my ($rc, $out, $err);

# view: TACK1.pem, exactly TACKpy's lines
($rc, $out, $err) = tack('view', vec00('TACK1.pem'));
is($rc, 0, 'view TACK1.pem exits 0');
is($out, <<'E', 'view TACK1.pem prints TACKpy\'s form');
TACK ID        = rrted.ptvtl.d2uiq.ox2xe.w4ss3
min_generation = 0
generation     = 0
expiration     = 2042-01-29T01:09Z
target_hash    = bf3e45a33d604cb0689106562289266a581bf8091e07c669e7c8f6429b5d20e6
E
is($err, '', 'view TACK1.pem is quiet on stderr');

($rc, $out) = tack('view', vec00('TACK_Break_Sigs.pem'));
is($rc, 0, 'view TACK_Break_Sigs.pem exits 0');
is($out, "Breaks TACK ID = nxt3o.zoovj.xq5qk.mue76.wmx6t\n"
       . "Breaks TACK ID = neuda.jg26x.ixmom.wzdry.qxdii\n",
   'view break signatures: both fingerprints');

($rc, $out) = tack('view', vec00('TACK_Key1.pem'));
is($rc, 0, 'view of a key file needs no password');
is($out, "TACK ID        = rrted.ptvtl.d2uiq.ox2xe.w4ss3\n",
   'view key file: public part only');

($rc, $out) = tack('view', vec00('tackpy-unit-Key.pem'));
is($rc, 0, 'view of an indented key file works');
like($out, qr/^TACK ID        = [a-z2-7]{5}(\.[a-z2-7]{5}){4}$/m,
     'indented key file shows a TACK ID');

($rc, $out, $err) = tack('view', vec00('tackpy-unit-TACK.pem'));
is($rc, 0, 'view of an expired TACK still exits 0');
like($out, qr/^TACK ID        = nkufh\.czttd\.5cmlw\.7cxtv\.k6srn$/m,
     'tackpy-unit-TACK fingerprint');
like($out, qr/^expiration     = 2019-06-25T22:24Z$/m, 'its expiration');
like($out, qr/^target_hash    = 31de0cb19f2adbb0d1cd7b1b31ef8ee3eb59b74459aef94b480beeeeb85c64c9$/m,
     'its target hash');
like($err, qr/expired at 2019-06-25T22:24Z/, 'expiry noted on stderr');

($rc, $out) = tack('view', vec00('tackpy-unit-BreakSigs.pem'));
like($out, qr/nkufh\.czttd\.5cmlw\.7cxtv\.k6srn.*\n.*6xwgu\.ydz7m\.7cki3\.kizmd\.pt2f2/,
     'tackpy-unit-BreakSigs fingerprints');

($rc, $out) = tack('view', vec00('TACKunrelated.pem'));
like($out, qr/^min_generation = 3\ngeneration     = 5\nexpiration     = 2026-11-16T01:55Z\ntarget_hash    = 32b64b66/m,
     'TACKunrelated fields');

($rc, $out) = tack('view', vec00('serverX509Cert.pem'));
is($rc, 0, 'view certificate exits 0');
like($out, qr/^key_sha256     = bf3e45a33d604cb0689106562289266a581bf8091e07c669e7c8f6429b5d20e6$/m,
     'certificate: SPKI SHA-256');
like($out, qr/^pin-sha256     = "vz5Foz1gTLBokQZWIokmalgb\+AkeB8Zp58j2QptdIOY="$/m,
     'certificate: pin-sha256 in base64');
like($out, qr/^store_file     = [a-z0-9._-]+\.bf3e45a3\.tack\.pem$/m,
     'certificate: the name of its TackStore file (ending in its SPKI hash\'s first 8 digits)');

for my $f (qw(TACK1.pem TACK2.pem TACK_Key1.pem TACK_Key2.pem)) {
    ($rc, $out) = tack('view', vec02($f));
    my $fp = $f =~ /1/ ? '5lcbe.eyweo.yxuan.rw6xd.jtoz7'
                       : 'oagrn.kfxeo.zz2zn.plssa.uzblz';
    like($out, qr/^TACK ID        = \Q$fp\E$/m, "draft02 $f fingerprint");
}
($rc, $out) = tack('view', vec02('serverX509Cert.pem'));
like($out, qr/^key_sha256     = c6e3b607/m, 'draft02 certificate hash');

# Several files: a header per file.
($rc, $out) = tack('view', vec00('TACK1.pem'), vec00('TACK_Key1.pem'));
like($out, qr/==> .*TACK1\.pem <==\nTACK ID/, 'several files: headers');

# view of what s_client printed against the reference server
($rc, $out) = tack('view', vec00('reference-server-s_client.txt'));
is($rc, 0, 'view of s_client output exits 0');
like($out, qr/^extension      = TACK \(62208\), draft-00, 426 bytes\npin_activation = 1$/m,
     's_client output: the extension');
like($out, qr/rrted.*\n(.*\n)*Breaks TACK ID = nxt3o.*\nBreaks TACK ID = neuda/,
     's_client output: TACK and break signatures');

# --json
($rc, $out) = tack('view', '--json', vec00('TACK1.pem'),
                   vec00('TACK_Break_Sigs.pem'), vec00('TACK_Key1.pem'),
                   vec00('serverX509Cert.pem'));
is($rc, 0, 'view --json exits 0');
my $j = eval { decode_json($out) };
ok($j, 'view --json is JSON') or diag($out);
is(scalar(@$j), 5, 'view --json: five items');
is($j->[0]{type}, 'tack', 'json: first is a tack');
is($j->[0]{tack_id}, 'rrted.ptvtl.d2uiq.ox2xe.w4ss3', 'json: TACK ID');
is($j->[0]{expiration_minutes}, 37909509, 'json: expiration in minutes');
ok($j->[0]{signature_valid}, 'json: signature valid');
is($j->[1]{breaks_tack_id}, 'nxt3o.zoovj.xq5qk.mue76.wmx6t', 'json: breaksig');
is($j->[3]{type}, 'private_key', 'json: key');
is($j->[3]{iterations}, 8192, 'json: key iterations');
is($j->[4]{key_sha256},
   'bf3e45a33d604cb0689106562289266a581bf8091e07c669e7c8f6429b5d20e6',
   'json: certificate hash');

# Key files decrypt with their passwords: `break` needs the private key,
# and its output names the same key.
for my $k ([vec00('TACK_Key1.pem'), 'asdf', 'rrted.ptvtl.d2uiq.ox2xe.w4ss3'],
           [vec02('TACK_Key1.pem'), 'test', '5lcbe.eyweo.yxuan.rw6xd.jtoz7'],
           [vec02('TACK_Key2.pem'), 'test', 'oagrn.kfxeo.zz2zn.plssa.uzblz']) {
    my ($file, $pw, $fp) = @$k;
    ($rc, $out, $err) = tack('break', '-k', $file, '-p', $pw);
    is($rc, 0, "$file decrypts with its password") or diag($err);
    my $bs = tmp() . "/bs.pem";
    write_file($bs, $out);
    ($rc, $out) = tack('view', $bs);
    is($out, "Breaks TACK ID = $fp\n", "break signature of $file");
}
($rc, $out, $err) = tack('break', '-k', vec00('tackpy-unit-Key.pem'),
                         '-p', 'asdf');
is($rc, 0, 'the indented key decrypts with its password') or diag($err);

# serverinfo: TACK1 + both break signatures, activation 1 == the gold bytes
my $gold = slurp(vec00('ext00_tack_2breaks_act1.hex'));
$gold =~ s/\s+//g;
($rc, $out, $err) = tack('serverinfo', '-t', vec00('TACK1.pem'),
                         '-b', vec00('TACK_Break_Sigs.pem'), '-a', '1');
is($rc, 0, 'serverinfo exits 0') or diag($err);
my $body = pem_body($out, 'SERVERINFO FOR TACK');
ok(defined $body, 'serverinfo writes a SERVERINFO FOR TACK block');
is(unpack('H*', substr($body, 0, 4)), 'f30001aa', 'header f3 00 01 aa');
is(unpack('H*', substr($body, 4)), $gold,
   'body = ext00_tack_2breaks_act1.hex');
is(sha256_hex(substr($body, 4)),
   '49e1a947e66059911e3f0d9689a080924a5aaf465c8eee4a416eeca02d11ab45',
   'body SHA-256 as in the README');

# the other gold files
my %gold = (
    'ext00_tack_only_act0.hex'   => ['-t', vec00('TACK1.pem'), '-a', '0'],
    'ext00_tack_only_act1.hex'   => ['-t', vec00('TACK1.pem'), '-a', '1'],
    'ext00_breaks_only_act0.hex' => ['-b', vec00('TACK_Break_Sigs.pem')],
);
for my $g (sort keys %gold) {
    my $want = slurp(vec00($g));
    $want =~ s/\s+//g;
    ($rc, $out, $err) = tack('serverinfo', @{ $gold{$g} });
    is($rc, 0, "serverinfo for $g exits 0") or diag($err);
    $body = pem_body($out, 'SERVERINFO FOR TACK') // '';
    is(unpack('H*', substr($body, 4)), $want, "serverinfo reproduces $g");
}

# the s_client output of the reference server, byte for byte
my $ref = slurp(vec00('reference-server-s_client.txt'));
($rc, $out) = tack('serverinfo', '-t', vec00('TACK1.pem'),
                   '-b', vec00('TACK_Break_Sigs.pem'), '-a', '1');
is(pem_body($out, 'SERVERINFO FOR TACK'),
   pem_body($ref, 'SERVERINFO FOR EXTENSION 62208'),
   'serverinfo = what the reference server sent');

# serverinfo refuses what clients would refuse
($rc, $out, $err) = tack('serverinfo', '-t', vec00('TACK1.pem'),
                         '-c', vec02('serverX509Cert.pem'));
is($rc, 1, 'serverinfo -c with the wrong certificate exits 1');
like($err, qr/target_hash does not match/, '... and says why');
is($out, '', '... and writes nothing');
($rc, $out, $err) = tack('serverinfo', '-t', vec00('tackpy-unit-TACK.pem'));
is($rc, 1, 'serverinfo of an expired TACK exits 1');
like($err, qr/expired/i, '... and says it expired');
($rc, $out, $err) = tack('serverinfo', '-t', vec00('TACK1.pem'), '-a', '2');
is($rc, 2, 'serverinfo -a 2 in draft-00 is a usage error');

# draft-02 serverinfo with both TACKs (at a time before they expired)
($rc, $out, $err) = tack('serverinfo', '--format', 'draft-02',
                         '-t', vec02('TACK1.pem'), '-t', vec02('TACK2.pem'),
                         '-a', '3', '--now', '2025-01-01Z',
                         '-c', vec02('serverX509Cert.pem'));
is($rc, 0, 'draft-02 serverinfo with two TACKs') or diag($err);
$body = pem_body($out, 'SERVERINFO FOR TACK') // '';
is(length($body), 4 + 335, 'draft-02 body is 335 bytes');
is(unpack('H*', substr($body, 4, 2)), '014c', 'tacks_len 332');
is(ord(substr($body, -1)), 3, 'activation_flags 3');
my $si = tmp() . '/si02.pem';
write_file($si, $out);
($rc, $out) = tack('view', '--now', '2025-01-01Z', $si);
like($out, qr/draft-02, 335 bytes.*5lcbe.*oagrn/s, 'view shows a draft-02 serverinfo');

# a TACKpy pair file: two TACK blocks
my $pair = tmp() . '/pair.pem';
write_file($pair, slurp(vec02('TACK1.pem')) . slurp(vec02('TACK2.pem')));
($rc, $out, $err) = tack('view', '--now', '2025-01-01Z', $pair);
like($out, qr/5lcbe.*\n(.*\n)*\nTACK ID        = oagrn/, 'view shows both TACKs '
                                                       . 'of a pair file');
($rc, $out, $err) = tack('serverinfo', '-t', $pair);
is($rc, 2, 'a pair file in draft-00 exits 2');
like($err, qr/pair\.pem: holds more than one TACK .*--format draft-02/,
     '... and says what to do');
($rc, $out, $err) = tack('serverinfo', '-t', $pair, '--format', 'draft-02',
                         '--now', '2025-01-01Z');
is($rc, 0, 'a pair file in draft-02 is fine') or diag($err);

done_testing();
