# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# genkey -> sign -> break -> view round trips, and the failures users meet:
# expired, mismatched, wrong password, truncated and wrong-kind files.
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
my ($crt2) = mkcert('other', 'other.example.org', 30);

sub tampered {
    my ($file, $label, $offset, $newfile, $cut) = @_;
    my $text = slurp($file);
    my $bytes = pem_body($text, $label);
    if (defined $cut) {
        $bytes = substr($bytes, 0, $cut);
    } else {
        substr($bytes, $offset, 1) = chr(ord(substr($bytes, $offset, 1)) ^ 1);
    }
    return write_file($newfile, TackHelpers::pem($label, $bytes));
}

# ---- genkey
($rc, $out, $err) = tack('genkey', '-p', 'secret', '-o', "$d/k.pem");
is($rc, 0, 'genkey -p -o exits 0') or diag($err);
is((stat("$d/k.pem"))[2] & 07777, 0600, 'the key file is mode 0600');
like($err, qr/wrote .*k\.pem, TACK ID ([a-z2-7]{5}\.){4}[a-z2-7]{5}/,
     'genkey names the new TACK ID');
my ($id) = $err =~ /TACK ID (\S+)/;
like(slurp("$d/k.pem"), qr/-----BEGIN TACK PRIVATE KEY-----/, 'PEM label');
($rc, $out) = tack('view', "$d/k.pem");
is($out, "TACK ID        = $id\n", 'view of the new key: same TACK ID');

($rc, $out, $err) = tack('genkey', '-p', 'other', '-o', "$d/k.pem");
is($rc, 2, 'genkey refuses to overwrite a key');
like($err, qr/exists; not overwritten/, '... and says so');
($rc, $out) = tack('view', "$d/k.pem");
is($out, "TACK ID        = $id\n", '... and the key is unchanged');

($rc, $out, $err) = tack('genkey', '-o', "$d/nopw.pem");
is($rc, 2, 'genkey without a password and without a terminal exits 2');
like($err, qr/a password is needed/, '... and explains the ways');
ok(!-e "$d/nopw.pem", '... and writes nothing');

# The output's directory is checked before the password is asked for:
# without a terminal the first error is the directory's, not the password's.
($rc, $out, $err) = tack('genkey', '-o', "$d/nodir/k.pem");
is($rc, 2, 'genkey -o into a missing directory exits 2');
is($err, "tack: $d/nodir/k.pem: cannot write there: $d/nodir: No such file or directory\n",
   '... naming the directory, before the password');
($rc, $out, $err) = tack('genkey', '-p', 'x', '-o', "$d/k.pem/k.pem");
like($err, qr{\Q$d/k.pem is not a directory\E}, '... a file as the directory');
($rc, $out, $err) = tack('genkey', '-p', 'x', '-o', $d);
like($err, qr{\Q$d: is a directory\E}, '... a directory as the file');
($rc, $out, $err) = tack('break', '-k', "$d/k.pem", '-o', "$d/nodir/b.pem");
like($err, qr{\Q$d/nodir: No such file or directory\E},
     'break -o into a missing directory: said before the key is opened');
SKIP: {
    skip('root writes into read-only directories', 2) if $> == 0;
    mkdir("$d/ro", 0555);
    ($rc, $out, $err) = tack('genkey', '-o', "$d/ro/k.pem");
    is($rc, 2, 'genkey -o into a read-only directory exits 2');
    like($err, qr{\Q$d/ro: Permission denied\E}, '... and says so first');
}

write_file("$d/pwfile", "from-file\n");
($rc, $out, $err) = tack('genkey', '--password-file', "$d/pwfile",
                         '-o', "$d/k2.pem", '--iterations', '1000');
is($rc, 0, 'genkey --password-file') or diag($err);
($rc, $out, $err) = tack('break', '-k', "$d/k2.pem", '-p', 'from-file');
is($rc, 0, 'the password file\'s first line, without its newline, is the '
         . 'password') or diag($err);
($rc, $out) = tack('view', '--json', "$d/k2.pem");
is(decode_json($out)->[0]{iterations}, 1000, '--iterations is kept');

# The first-line rule every password source follows (tack_password_line,
# the module's file: and exec: passwords too): the line ends at the first
# LF, one CR right before it belongs to the line end, any other CR is part
# of the password.
for my $case (["pass\rword\n", "pass\rword", 'a CR inside the line is kept'],
              ["pw\r\n", 'pw', 'a CRLF ends the line'],
              ["pw\r\r\n", "pw\r", 'one CR of CR CR LF is part of the password'],
              ["first\nsecond\n", 'first', 'only the first line counts']) {
    my ($text, $pw, $what) = @$case;
    (my $name = $pw) =~ s/\W/_/g;
    write_file("$d/pw-$name", $text);
    ($rc, $out, $err) = tack('genkey', '--password-file', "$d/pw-$name",
                             '-o', "$d/k-$name.pem", '--iterations', '1000');
    is($rc, 0, "genkey --password-file: $what") or diag($err);
    ($rc, $out, $err) = tack('break', '-k', "$d/k-$name.pem", '-p', $pw);
    is($rc, 0, "... the password is the line by the rule") or diag($err);
    ($rc, $out, $err) = tack('break', '-k', "$d/k-$name.pem", '-p', "${pw}x");
    is($rc, 2, '... and nothing else decrypts it') or diag($err);
}
($rc, $out, $err) = tack('break', '-k', "$d/k-pw.pem", '-p', "pw\r");
isnt($rc, 0, 'the CR of a CRLF is not part of the password');

($rc, $out, $err) = tack({ env => { TACK_PASSWORD => 'from-env' } },
                         'genkey');
is($rc, 0, 'genkey with $TACK_PASSWORD, to standard output');
like($out, qr/BEGIN TACK PRIVATE KEY/, '... writes the key to stdout');
write_file("$d/k3.pem", $out);
($rc) = tack({ env => { TACK_PASSWORD => 'from-env' } }, 'break', '-k',
             "$d/k3.pem");
is($rc, 0, '$TACK_PASSWORD decrypts it');

($rc, $out, $err) = tack('genkey', '-p', 'x', '-o', "$d/k.pem", '--force');
is($rc, 0, 'genkey --force replaces');
is((stat("$d/k.pem"))[2] & 07777, 0600, '... still mode 0600');
($rc, $out) = tack('view', "$d/k.pem");
isnt($out, "TACK ID        = $id\n", '... with a new key');
($rc) = tack('genkey', '-p', 'secret', '-o', "$d/k.pem", '--force');
($rc, $out) = tack('view', "$d/k.pem");
($id) = $out =~ /= (\S+)/;

# ---- sign
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret',
                         '-c', $crt, '-o', "$d/t.pem");
is($rc, 0, 'sign exits 0') or diag($err);
like(slurp("$d/t.pem"), qr/^Created by tack .*\nCreated at .*\n-----BEGIN TACK-----/,
     'TACK file in TACKpy\'s layout');
($rc, $out, $err) = tack('view', '-c', $crt, "$d/t.pem");
is($rc, 0, 'the signed TACK verifies against its certificate') or diag($err);
like($out, qr/^TACK ID        = \Q$id\E$/m, 'signed with the key');
like($out, qr/^min_generation = 0\ngeneration     = 0$/m, 'generations 0');
like($out, qr/^status         = valid for the certificate$/m, 'status line');
my ($hash) = (tack('view', $crt))[1] =~ /key_sha256     = (\S+)/;
like($out, qr/^target_hash    = $hash$/m, 'target_hash = certificate hash');

# expiration defaults to notAfter, rounded up to the minute
my ($na) = (tack('view', $crt))[1] =~ /notAfter       = (\S+)/;
my ($exp) = $out =~ /expiration     = (\S+)/;
my ($y, $mo, $dd, $h, $mi, $s) =
    $na =~ /(\d+)-(\d+)-(\d+)T(\d+):(\d+)(?::(\d+))?Z/;
use Time::Local qw(timegm);
my $na_t = timegm($s // 0, $mi, $h, $dd, $mo - 1, $y);
my $want = int(($na_t + 59) / 60) * 60;
my @g = gmtime($want);
is($exp, sprintf('%04d-%02d-%02dT%02d:%02dZ', $g[5] + 1900, $g[4] + 1,
                 $g[3], $g[2], $g[1]),
   'expiration = notAfter rounded up to the minute');

($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret',
                         '-c', $crt, '-m', '3', '-g', '7',
                         '-e', '2030-06-06T12:00Z', '--now', '2030-01-01Z');
is($rc, 0, 'sign -m -g -e') or diag($err);
write_file("$d/t2.pem", $out);
($rc, $out) = tack('view', "$d/t2.pem");
like($out, qr/min_generation = 3\ngeneration     = 7\nexpiration     = 2030-06-06T12:00Z/,
     '-m, -g and an absolute -e are kept');
($rc, $out) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                   '-m', '2', '-e', '2030-06-06Z', '--now', '2030-01-01Z');
write_file("$d/t3.pem", $out);
($rc, $out) = tack('view', "$d/t3.pem");
like($out, qr/min_generation = 2\ngeneration     = 2\nexpiration     = 2030-06-06T00:00Z/,
     '-g defaults to -m; a date alone is midnight');
($rc, $out) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                   '-e', '12h', '--now', '2030-01-01T00:00:30Z');
write_file("$d/t4.pem", $out);
($rc, $out) = tack('view', "$d/t4.pem");
like($out, qr/expiration     = 2030-01-01T12:01Z/,
     'a duration counts from now, rounded up to the minute');
($rc, $out) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                   '-e', '30d', '--now', '2030-01-01Z');
write_file("$d/t5.pem", $out);
like((tack('view', "$d/t5.pem"))[1], qr/expiration     = 2030-01-31T00:00Z/,
     '-e 30d');

# ---- failures of sign
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'wrong', '-c', $crt);
is($rc, 2, 'a wrong password exits 2');
like($err, qr/k\.pem: wrong password/, '... and says "wrong password"');
is($out, '', '... and writes nothing');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                         '-e', '2020-01-01Z');
is($rc, 2, 'an expiration in the past exits 2');
like($err, qr/not in the future/, '... and says so');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                         '--now', '2040-01-01Z');
is($rc, 2, 'an expired certificate without -e exits 2');
like($err, qr/certificate expired at .*give -e/, '... and suggests -e');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                         '-e', 'tomorrow');
is($rc, 2, 'a bad -e is a usage error');
like($err, qr/neither a UTC time/, '... explained');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                         '-m', '5', '-g', '4');
is($rc, 2, '-g below -m is refused');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                         '-m', '256');
is($rc, 2, '-m 256 is refused');
($rc, $out, $err) = tack('sign', '-k', $crt, '-p', 'secret', '-c', $crt);
is($rc, 2, 'a certificate as -k exits 2');
like($err, qr/www\.crt: not a TACK PRIVATE KEY file/, '... naming the file');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret',
                         '-c', "$d/k.pem");
is($rc, 2, 'a key as -c exits 2');
like($err, qr/k\.pem: not a certificate file/, '... naming the file');
($rc, $out, $err) = tack('sign', '-k', "$d/missing.pem", '-c', $crt);
is($rc, 2, 'a missing key file exits 2');
like($err, qr/missing\.pem: No such file/, '... with the system\'s reason');
($rc, $out, $err) = tack('sign', '-c', $crt);
is($rc, 2, 'sign without -k is a usage error');
like($err, qr/needs -k KEYFILE/, '... explained');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                         '-o', "$d/t.pem");
is($rc, 2, 'sign refuses to overwrite a TACK file');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'secret', '-c', $crt,
                         '-o', "$d/t.pem", '--force');
is($rc, 0, '... unless --force');

# ---- checks that fail: mismatch, expiry, tampering, truncation
($rc, $out, $err) = tack('view', '-c', $crt2, "$d/t.pem");
is($rc, 1, 'a TACK checked against another certificate exits 1');
like($err, qr/target_hash does not match/, '... saying target_hash');
($rc, $out, $err) = tack('view', '-c', $crt, '--now', '+400d', "$d/t.pem");
is($rc, 1, 'an expired TACK checked against its certificate exits 1');
like($err, qr/expired/, '... saying expired');
($rc, $out, $err) = tack('view', '-c', $crt, "$d/t2.pem");
is($rc, 0, 'a TACK whose generation is above min is fine');

tampered("$d/t.pem", 'TACK', 150, "$d/bad-sig.pem");
($rc, $out, $err) = tack('view', "$d/bad-sig.pem");
is($rc, 1, 'a TACK with a broken signature exits 1');
like($err, qr/signature/, '... blaming the signature');
tampered("$d/t.pem", 'TACK', 65, "$d/bad-gen.pem");
($rc, $out, $err) = tack('view', "$d/bad-gen.pem");
is($rc, 1, 'a TACK whose signed fields changed exits 1');

tampered("$d/t.pem", 'TACK', 0, "$d/short.pem", 165);
($rc, $out, $err) = tack('view', "$d/short.pem");
is($rc, 2, 'a truncated TACK exits 2');
like($err, qr/short\.pem: line 1: TACK block: .*165 bytes, want 166/,
     '... with the size');
my $half = slurp("$d/t.pem");
$half = substr($half, 0, int(length($half) * 2 / 3));
write_file("$d/half.pem", $half);
($rc, $out, $err) = tack('view', "$d/half.pem");
is($rc, 2, 'a file cut inside the PEM block exits 2');
like($err, qr/half\.pem: /, '... naming the file');
($rc, $out, $err) = tack('serverinfo', '-t', "$d/half.pem");
is($rc, 2, 'serverinfo of a cut file exits 2');
tampered("$d/k.pem", 'TACK PRIVATE KEY', 0, "$d/kshort.pem", 100);
($rc, $out, $err) = tack('sign', '-k', "$d/kshort.pem", '-p', 'secret',
                         '-c', $crt);
is($rc, 2, 'a truncated key file exits 2');
like($err, qr/kshort\.pem: .*TACK PRIVATE KEY/, '... naming file and block');
tampered("$d/k.pem", 'TACK PRIVATE KEY', 30, "$d/kbad.pem");
($rc, $out, $err) = tack('sign', '-k', "$d/kbad.pem", '-p', 'secret',
                         '-c', $crt);
is($rc, 2, 'a key file with a changed ciphertext exits 2');
like($err, qr/wrong password/, '... a MAC mismatch, as TACKpy reports it');
write_file("$d/empty.pem", '');
($rc, $out, $err) = tack('view', "$d/empty.pem");
is($rc, 2, 'an empty file exits 2');
like($err, qr/empty\.pem: not a TACK/, '... and says what it is not');
($rc, $out, $err) = tack('view', $key);
is($rc, 2, 'a TLS private key is not something view shows');
like($err, qr/holds "BEGIN PRIVATE KEY"/, '... and says what it holds');

# ---- break
($rc, $out, $err) = tack('break', '-k', "$d/k.pem", '-p', 'secret',
                         '-o', "$d/b.pem");
is($rc, 0, 'break exits 0') or diag($err);
like($err, qr/^tack: wrote \Q$d\E\/b\.pem, break signature of TACK ID \Q$id\E: clients that see it drop their pins on that key$/m,
     '... and says what it wrote, as genkey and sign do');
($rc, $out) = tack('view', "$d/b.pem");
is($out, "Breaks TACK ID = $id\n", 'the break signature names the key');
tampered("$d/b.pem", 'TACK BREAK SIG', 100, "$d/b-bad.pem");
($rc, $out, $err) = tack('view', "$d/b-bad.pem");
is($rc, 1, 'a broken break signature exits 1');
($rc, $out, $err) = tack('break', '-k', "$d/k.pem", '-p', 'wrong');
is($rc, 2, 'break with a wrong password exits 2');
like($err, qr/wrong password/, '... saying so');
($rc, $out, $err) = tack('serverinfo', '-t', "$d/t.pem", '-b', "$d/b.pem");
is($rc, 1, 'serverinfo refuses a TACK with its own break signature');

# ---- serverinfo of our own TACK, checked against the certificate
($rc, $out, $err) = tack('serverinfo', '-t', "$d/t.pem", '-c', $crt,
                         '-b', vec00('TACK_Break_Sigs.pem'), '-a', '1',
                         '-o', "$d/si.pem");
is($rc, 0, 'serverinfo of a fresh TACK with -c') or diag($err);
($rc, $out) = tack('view', "$d/si.pem");
like($out, qr/draft-00, 426 bytes\npin_activation = 1\n\nTACK ID        = \Q$id\E/,
     'view of the serverinfo file');

# ---- help and usage
($rc, $out) = tack('help');
is($rc, 0, 'tack help exits 0');
like($out, qr/genkey.*sign.*break.*view.*serverinfo.*check.*pins/s,
     'tack help lists the commands');
for my $c (qw(genkey sign break view serverinfo check pins)) {
    ($rc, $out) = tack('help', $c);
    is($rc, 0, "tack help $c exits 0");
    like($out, qr/^usage: tack $c/, "tack help $c shows its usage");
}
($rc, $out) = tack('sign', '--help');
like($out, qr/^usage: tack sign/, 'tack sign --help');
($rc, $out, $err) = tack('frobnicate');
is($rc, 2, 'an unknown command exits 2');
($rc, $out, $err) = tack();
is($rc, 2, 'no command exits 2');
($rc, $out, $err) = tack('view', '--bogus', "$d/t.pem");
is($rc, 2, 'an unknown option exits 2');

# ---- tack --quiet: success is silent (a cron job, a certificate hook), a
# failure is not
($rc, $out, $err) = tack('genkey', '-p', 'qpw', '-o', "$d/q.key");
like($err, qr/^tack: wrote \Q$d\E\/q\.key, TACK ID /, 'genkey says what it wrote');
unlink "$d/q.key";
($rc, $out, $err) = tack('--quiet', 'genkey', '-p', 'qpw', '-o', "$d/q.key");
is("$rc [$out] [$err]", '0 [] []', 'tack --quiet genkey: exit 0, nothing on stdout or stderr');
($rc, $out, $err) = tack('-q', 'sign', '-k', "$d/q.key", '-p', 'qpw', '-c', $crt,
                         '-o', "$d/q.tack.pem");
is("$rc [$out] [$err]", '0 [] []', 'tack -q sign -o FILE: silent');
mkdir "$d/qstore";
($rc, $out, $err) = tack('-q', 'sign', '-k', "$d/q.key", '-p', 'qpw', '-c', $crt,
                         '-o', "$d/qstore/");
is("$rc [$out] [$err]", '0 [] []', 'tack -q sign -o STORE/: silent');
ok(-f "$d/qstore/" . store_name($crt, 'www.example.org'), '... and the file is written');
($rc, $out, $err) = tack('-q', 'genkey', '-p', 'qpw', '-o', "$d/q.key");
is($rc, 2, 'tack -q genkey over an existing key: the failure ...');
like($err, qr/q\.key: exists; not overwritten/, '... is said all the same');
($rc, $out, $err) = tack('-q');
is($rc, 2, 'tack -q without a command exits 2');

done_testing();
