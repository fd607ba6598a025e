# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# `tack sign` for a fleet: several certificates or directories into -o DIR.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use File::Copy qw(copy);
use Time::HiRes qw(time);

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

my ($rc, $out, $err);
my $d = tmp();
mkdir("$d/certs") or die;
mkdir("$d/out") or die;
my ($a_crt, $a_key) = mkcert('a', 'a.example.org');
my ($b_crt) = mkcert('b', 'b.example.org');
my ($c_crt) = mkcert('c', 'c.example.org');
copy($a_crt, "$d/certs/a.example.org.crt");
copy($b_crt, "$d/certs/b.example.org.pem");
run3('openssl', 'x509', '-in', $c_crt, '-outform', 'DER',
        '-out', "$d/certs/c.example.org.der");
copy($a_key, "$d/certs/a.example.org.key");   # not a certificate
copy($a_key, "$d/certs/a-key.pem");           # .pem without a certificate
write_file("$d/certs/README.txt", "notes\n");
write_file("$d/certs/notes.crt", "not a certificate\n"); # a .crt that is none

(tack('genkey', '-p', 'pw', '-o', "$d/k.pem"))[0] == 0 or die;
# The TackStore's name of each (tack_cert_store_name): from the certificate,
# not from its file's name.
my %file = (a => store_name($a_crt, 'a.example.org'),
            b => store_name($b_crt, 'b.example.org'),
            c => store_name($c_crt, 'c.example.org'));

($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw',
                         '-c', "$d/certs", '-o', "$d/out");
is($rc, 0, 'sign a directory into a directory') or diag($err);
like($err, qr/signed 3 certificates into .*out \(4 other files skipped\)/,
     'a summary with the skipped files');
like($err, qr/warning: \S+notes\.crt: no certificate in it \(no BEGIN CERTIFICATE\); skipped/,
     '... a .crt that holds no certificate is named (a .pem may be a key: not)');
unlike($err, qr/a-key\.pem/, '... the key beside the certificates is not');
is(join(' ', map { s{.*/}{}r } sort glob("$d/out/*")),
   join(' ', sort values %file),
   'one file per certificate, named by the TackStore rule: '
   . 'HOST.KEYTYPE.SPKI8.tack.pem');
like($file{a}, qr/^a\.example\.org\.ecdsa\.[0-9a-f]{8}\.tack\.pem$/,
     '... e.g. ' . $file{a});
for my $n (qw(a b c)) {
    my $crt = { a => $a_crt, b => $b_crt, c => $c_crt }->{$n};
    ($rc, $out, $err) = tack('view', '-c', $crt, "$d/out/$file{$n}");
    is($rc, 0, "$file{$n} matches its certificate")
        or diag($err);
}
($rc, $out, $err) = tack('view', '-c', $a_crt, "$d/out/$file{b}");
is($rc, 1, '... and not another one');
like(slurp("$d/out/$file{a}"),
     qr/\ACreated by tack \S+\nCreated at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n-----BEGIN TACK-----\n/,
     '... each under the "Created by" lines the module writes too');

# The name comes from the certificate: a renamed copy, or a file named
# after something else, signs into the same file.
{
    mkdir("$d/renamed") or die;
    mkdir("$d/renamed-out") or die;
    copy($a_crt, "$d/renamed/whatever.crt") or die;
    ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw',
                             '-c', "$d/renamed", '-o', "$d/renamed-out/");
    is($rc, 0, 'a certificate whose file is named otherwise') or diag($err);
    ok(-f "$d/renamed-out/$file{a}", '... is signed into its TackStore name');
    # -c - (standard input, read once) into a store directory
    ($rc, $out, $err) = tack({ stdin => slurp($b_crt) }, 'sign', '-k',
                             "$d/k.pem", '-p', 'pw', '-c', '-', '-o',
                             "$d/renamed-out/");
    is($rc, 0, '-c - with -o DIR/') or diag($err);
    ok(-f "$d/renamed-out/$file{b}", '... the same name, not -.tack.pem');
    ok(!-e "$d/renamed-out/-.tack.pem", '... and no -.tack.pem');
}

# existing files: nothing written without --force
my $before = slurp("$d/out/$file{a}");
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw',
                         '-c', "$d/certs", '-o', "$d/out", '-m', '1');
is($rc, 2, 'existing TACK files: exit 2');
like($err, qr/exists; nothing written/, '... nothing written');
is(slurp("$d/out/$file{a}"), $before, '... really');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw',
                         '-c', "$d/certs", '-o', "$d/out", '-m', '1',
                         '--force');
is($rc, 0, '--force replaces them');
like((tack('view', "$d/out/$file{c}"))[1],
     qr/min_generation = 1/, '... with the new TACKs');

# name collisions (the same certificate twice): an error before anything
# is written
mkdir("$d/out2") or die;
copy($b_crt, "$d/certs/a.example.org.pem");
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw',
                         '-c', "$d/certs", '-o', "$d/out2");
is($rc, 2, 'a name collision exits 2');
like($err, qr/[ab]\.example\.org\.pem and .*[ab]\.example\.org\.pem would both be signed into .*\Q$file{b}\E; nothing written/,
     '... naming both certificates and the file');
is(scalar(glob("$d/out2/*")), undef, '... and nothing is written');
unlink("$d/certs/a.example.org.pem");

# several -c, and certificates after the options
mkdir("$d/out3") or die;
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-o',
                         "$d/out3", '-c', $a_crt, $b_crt, $c_crt);
is($rc, 0, 'several certificates as arguments');
is(scalar(my @x = glob("$d/out3/*.tack.pem")), 3, '... three TACKs');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw',
                         '-c', $a_crt, '-c', $b_crt);
is($rc, 2, 'several certificates without -o DIR: usage error');
like($err, qr/need -o DIR/, '... explained');

# a bad certificate stops the run before anything is written
mkdir("$d/out4") or die;
write_file("$d/broken.crt", "-----BEGIN CERTIFICATE-----\nAAAA\n"
                    . "-----END CERTIFICATE-----\n");
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw',
                         '-o', "$d/out4", '-c', $a_crt, "$d/broken.crt");
is($rc, 2, 'a certificate that does not parse: exit 2');
like($err, qr/broken\.crt: /, '... naming it');
is(scalar(glob("$d/out4/*")), undef, '... and nothing written');

# thousands of vhosts: fast, one key decryption.  Each its own certificate
# (copies of one would share one file): build/gencerts makes 2000 in a
# second; without it (a run of prove alone) 200 by openssl.
mkdir("$d/many") or die;
mkdir("$d/many-out") or die;
my $gencerts = top() . '/build/gencerts';
my $n = -x $gencerts ? 2000 : 200;
if (-x $gencerts) {
    ($rc, $out, $err) = run3($gencerts, '-n', $n, '-o', "$d/many",
                                '--prefix', 'vhost', '--domain', 'example.org');
    $rc == 0 or die "gencerts: $err";
}
else {
    diag("$gencerts not built (make test-tool builds it): $n certificates");
    for my $i (1 .. $n) {
        my $name = sprintf('vhost%05d.example.org', $i);
        ($rc, $out, $err) = run3('openssl', 'req', '-x509', '-key', $a_key,
            '-subj', "/CN=$name", '-addext', "subjectAltName=DNS:$name",
            '-days', 30, '-out', "$d/many/$name.crt");
        $rc == 0 or die "openssl req: $err";
    }
}
my $t0 = time();
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw',
                         '-c', "$d/many", '-o', "$d/many-out");
my $secs = time() - $t0;
is($rc, 0, "$n certificates signed") or diag($err);
is(scalar(my @y = glob("$d/many-out/*.tack.pem")), $n, "... $n files");
cmp_ok($secs, '<', 30, "... in under 30 s (took ${\ sprintf('%.2f', $secs)} s)");
unlike($err, qr/\r/, 'no progress line when stderr is not a terminal');

# progress on a terminal (script(1) gives the tool a pty)
{
    # script(1) is in bsdutils, an essential package: always there.
    mkdir("$d/tty-out") or die;
    my $cmd = "$TACK sign -k $d/k.pem -p pw -c $d/many -o $d/tty-out";
    ($rc, $out, $err) = run3('script', '-qec', $cmd, '/dev/null');
    is($rc, 0, 'fleet signing on a terminal');
    like($out, qr/\rtack sign: signed \d+\/$n .*\rtack sign: written $n\/$n \(100%\)/s,
         '... shows progress');
}

# ---- --name: one certificate into a store, as the mod_md hook's sudo rule
# allows (a fixed -k and -o, the name appended)
{
    my $st = "$d/named-store";
    my ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $a_crt,
                                '-o', "$st/", '--name', 'www.ecdsa.tack.pem');
    is($rc, 0, 'sign --name NAME -o DIR/: exit 0') or diag($err);
    ok(-f "$st/www.ecdsa.tack.pem", '... the file has that name in DIR');
    for my $bad ('../x.tack.pem', '.hidden.tack.pem', 'x.pem', 'a/b.tack.pem', 'a b.tack.pem') {
        ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $a_crt,
                                 '-o', "$st/", '--name', $bad, '--force');
        is($rc, 2, "--name '$bad' is refused");
        like($err, qr/--name \Q$bad\E: want a file name ending in \.tack\.pem/, '... saying what it wants');
    }
    ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $a_crt,
                             '-o', "$st/", '--force', '--name', 'y.tack.pem', '-o', "$d/");
    is($rc, 2, '-o given twice is refused (what sudo lets one append cannot redirect it)');
    like($err, qr/-o given twice/, '... saying so');
    # Every option with a value is taken once: after a fixed command line
    # (the sudo rule's), a second -e, -m or -g would otherwise win (a TACK
    # at min_generation 255 revokes every other TACK of the key for pinned
    # clients).  The sudo rule itself refuses anything appended
    # (t/acme/md-hook.t); this is the tool's own half.
    my @fixed = ('sign', '-k', "$d/k.pem", '--password-file', "$d/pw",
                 '-e', '45d', '-c', $a_crt, '-o', "$st/", '--force',
                 '--name', 'w.tack.pem');
    write_file("$d/pw", "pw\n");
    for my $twice (['-m', '0', '-m', '255'], ['-g', '0', '-g', '255'],
                   ['-e', '36500d'], ['--now', '2030-01-01', '--now', '2030-01-02'],
                   ['--password-file', "$d/pw"], ['--name', 'v.tack.pem'],
                   ['-k', "$d/k.pem"]) {
        ($rc, $out, $err) = tack(@fixed, @$twice);
        is($rc, 2, "$twice->[0] given twice is refused");
        like($err, qr/\Q$twice->[0]\E given twice/, '... saying which option');
    }
    ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-p', 'x',
                             '-c', $a_crt, '-o', "$d/p.tack.pem");
    is($rc, 2, '-p given twice is refused');
    ok(!-e "$st/w.tack.pem" && !-e "$d/p.tack.pem", '... and nothing was written');
    ($rc, $out, $err) = tack(@fixed);
    is($rc, 0, 'the fixed command line alone signs') or diag($err);
    # A value with white space at either end: how one word passes for
    # several through a rule that matches the words joined by spaces
    # (sudo's; t/acme/md-hook.t runs it through sudo).  Each refused, named.
    for my $case (['-k', " $d/k.pem"], ['--password-file', "$d/pw "], ['-e', ' 45d'],
                  ['-c', ' -'], ['-c', "$a_crt\n"], ['-o', " $st/"],
                  ['--name', "w.tack.pem\t"], ['--now', ' 2030-01-01']) {
        my @argv = @fixed;
        my ($at) = grep { $argv[$_] eq $case->[0] } 0 .. $#argv - 1;
        if (defined $at) { $argv[$at + 1] = $case->[1] }
        else { push @argv, @$case }
        ($rc, $out, $err) = tack(@argv);
        (my $shown = $case->[1]) =~ s/\s/ /g;
        is($rc, 2, "$case->[0] '$shown' (white space at an end) is refused");
        like($err, qr/tack sign: \Q$case->[0]\E "\Q$case->[1]\E": a value that begins or ends with white space is refused/,
             '... naming the option and the value');
    }
    ($rc, $out, $err) = tack(@fixed, " $b_crt");
    is($rc, 2, 'a certificate argument with a leading space is refused');
    like($err, qr/tack sign: a certificate " \Q$b_crt\E": a value that begins/, '... named');
    ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', ' pw ', '-c', $a_crt, '-o', '-');
    is($rc, 2, "-p's value is a password: any bytes, spaces too (here the wrong one)");
    like($err, qr/wrong password/i, '... so it fails on the password, not on the spaces');
    # The certificate on standard input: no prompt, the missing option named.
    ($rc, $out, $err) = tack({ stdin => slurp($a_crt), env => { TACK_PASSWORD => undef } },
                             'sign', '-k', "$d/k.pem", '-c', '-', '-o', '-');
    is($rc, 2, '-c - with no password source: exit 2');
    like($err, qr/a password is needed: give --password-file FILE or \$TACK_PASSWORD; standard input is the certificate \(-c -\), so no prompt/,
         '... naming --password-file and $TACK_PASSWORD');
    ($rc, $out, $err) = tack({ stdin => slurp($a_crt) }, 'sign', '-k', "$d/k.pem",
                             '--password-file', "$d/pw", '-c', '-', '-o', '-');
    is($rc, 0, '... and with --password-file it signs') or diag($err);
    like($out, qr/BEGIN TACK/, '... printing the TACK');
    ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $a_crt,
                             '-c', $b_crt, '-o', "$st/", '--force', '-f');
    is($rc, 0, '-c and the flags may repeat') or diag($err);
    ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $a_crt, '-c', $b_crt,
                             '-o', "$st/", '--name', 'z.tack.pem');
    is($rc, 2, '--name with two certificates is refused');
    ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $a_crt,
                             '-o', "$d/one.pem", '--name', 'z.tack.pem');
    is($rc, 2, '--name without -o DIR/ is refused');
}

done_testing();
