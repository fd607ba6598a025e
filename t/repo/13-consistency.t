# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The rough edges of issue 17, item 7: what `tack help` lists, error
# messages, options that contradict each other, ports, passwords, what
# sign says, the version, --resolve for a single check.  Every test here
# failed on the tool before the fix.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

my $d = tmp();
my ($rc, $out, $err);

# ---- every command `tack help` lists has its help
($rc, $out) = tack('help');
my @listed = $out =~ /^  (\w+)\s/mg;
ok((grep { $_ eq 'help' } @listed) && (grep { $_ eq 'version' } @listed),
   'tack help lists help and version');
for my $c (@listed) {
    ($rc, $out, $err) = tack('help', $c);
    is($rc, 0, "tack help $c exits 0") or diag($err);
    like($out, qr/^usage: tack $c/, "... and shows its usage");
}
($rc, $out) = tack('help', 'version');
like($out, qr/tack --version/, 'tack help version names --version');
like($out, qr/tack -V/, '... and -V');

# ---- version: version, --version, -V say the same
($rc, my $v) = tack('version');
like($v, qr/^tack \d+\.\d+\.\d+ \(mod_tack; OpenSSL /, 'tack version');
for my $spelling ('--version', '-V') {
    ($rc, $out, $err) = tack($spelling);
    is($rc, 0, "tack $spelling exits 0") or diag($err);
    is($out, $v, '... and prints the version');
}
($rc, $out, $err) = tack('version', 'extra');
is($rc, 2, 'tack version with an argument exits 2');

# ---- one message, one prefix, for an unknown option or a missing argument
for my $case (['genkey', '--bogus', qr/^tack genkey: unrecognized option '--bogus'$/],
              ['sign', '-z', qr/^tack sign: invalid option -- 'z'$/],
              ['view', '--bogus', qr/^tack view: unrecognized option '--bogus'$/],
              ['genkey', '-o', qr/^tack genkey: option requires an argument -- 'o'$/],
              ['check', '--bogus', qr/^tack check: unrecognized option '--bogus'$/],
              ['preload', 'build', '--bogus',
               qr/^tack preload build: unrecognized option '--bogus'$/]) {
    my $re = pop @$case;
    ($rc, $out, $err) = tack(@$case);
    is($rc, 2, "tack @$case exits 2");
    my @lines = split /\n/, $err;
    like($lines[0] // '', $re, '... says what is wrong once, as "tack CMD: "');
    is(scalar(@lines), 2, '... in two lines') or diag($err);
    like($lines[1] // '', qr/^\(`tack help \w+` explains the options\)$/,
         '... the second pointing to the help');
}

# ---- --tls1_2 and --tls1_3 together are refused before connecting
my $closed = free_port(18440, 18449);
for my $pair (['--tls1_2', '--tls1_3'], ['--tls1_3', '--tls1_2']) {
    ($rc, $out, $err) = tack('check', @$pair, "127.0.0.1:$closed");
    is($rc, 2, "check @$pair: exit 2");
    like($err, qr/^tack check: --tls1_2 and --tls1_3: .*give one of them$/m,
         '... explained');
    unlike($err . $out, qr/cannot connect/, '... without connecting');
}
($rc, $out, $err) = tack('check', '--tls1_2', '--tls1_2', "127.0.0.1:$closed");
is($rc, 1, 'the same version twice is fine (a connection failure here)');

# ---- ports out of range
for my $bad ('99999', '0', '65536', 'https', '-1') {
    ($rc, $out, $err) = tack('check', "localhost:$bad");
    is($rc, 2, "check localhost:$bad: exit 2");
    like($err, qr/^tack check: bad port "\Q$bad\E" in "localhost:\Q$bad\E": want 1 to 65535$/m,
         '... a bad port, not a connection failure');
    unlike($err . $out, qr/Connection refused|cannot connect/, '... never tried');
}
($rc, $out, $err) = tack('check', '--all-addresses', '--resolve',
                         'localhost:127.0.0.1', 'localhost:70000');
is($rc, 2, 'the fleet check refuses it too');
like($err, qr/bad port "70000"/, '... named');
write_file("$d/hosts", "127.0.0.1:123456 www.example.org\n");
($rc, $out, $err) = tack('preload', 'build', '--hosts', "$d/hosts");
is($rc, 2, 'preload build --hosts refuses a bad port');
like($err, qr/\Q$d\E\/hosts:1: bad port "123456": want 1 to 65535/, '... with the line');

# ---- no new key with an empty password, whatever the source
write_file("$d/empty.pw", "\n");
for my $src ([['-p', ''], {}, '-p \'\''],
             [['--password-file', "$d/empty.pw"], {}, 'an empty password file'],
             [[], { env => { TACK_PASSWORD => '' } }, 'an empty $TACK_PASSWORD']) {
    my ($args, $opt, $what) = @$src;
    unlink "$d/empty.key";
    ($rc, $out, $err) = tack($opt, 'genkey', @$args, '-o', "$d/empty.key");
    is($rc, 2, "genkey with $what: exit 2");
    like($err, qr/^tack: the new key: empty password/m, '... explained');
    ok(!-e "$d/empty.key", '... and no key written');
}

# ---- single-file sign says what it wrote, as genkey and a fleet sign do
my ($crt) = mkcert('www', 'www.example.org', 30);
($rc, $out, $err) = tack('genkey', '-p', 'pw', '-o', "$d/k.pem");
is($rc, 0, 'genkey') or diag($err);
my ($id) = $err =~ /TACK ID (\S+)/;
like($err, qr/^tack: wrote \Q$d\E\/k\.pem, TACK ID \S+$/m, 'genkey says what it wrote');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $crt,
                         '-g', 2, '-e', '2031-06-01T12:00Z', '-o', "$d/t.pem");
is($rc, 0, 'sign one certificate') or diag($err);
is($err, "tack: wrote $d/t.pem, TACK ID $id, generation 2, expires 2031-06-01T12:00Z\n",
   '... says what it wrote, with the TACK ID, generation and expiration');
is($out, '', '... on stderr only');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $crt,
                         '-e', '2031-06-01Z');
is($rc, 0, 'sign to standard output');
like($out, qr/^-----BEGIN TACK-----$/m, '... writes the TACK there');
is($err, '', '... and, as genkey to standard output, nothing else');

# ---- fleet sign into DIR/ makes the directory (item 2: the hosting
# guide's -o /srv/tack-store/ on a fresh machine)
mkdir("$d/certs");
my ($c1) = mkcert('certs/a.example.org', 'a.example.org', 30);
my ($c2) = mkcert('certs/b.example.org', 'b.example.org', 30);
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', "$d/certs/",
                         '-e', '45d', '-o', "$d/store/", '--force');
is($rc, 0, 'sign -c DIR/ -o NEW/: exit 0') or diag($err);
is($err, "tack: signed 2 certificates into $d/store/ (2 other files skipped)\n",
   '... says what it did (the keys beside the certificates skipped)');
ok(-f "$d/store/" . store_name($_->[0], $_->[1]),
   "... $_->[1]'s TACK in the new directory, by its TackStore name")
    for [$c1, 'a.example.org'], [$c2, 'b.example.org'];
is((stat "$d/store")[2] & 0777, 0755 & ~umask, '... made 0755 (TACKs are public)');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', "$d/certs/",
                         '-o', "$d/store/", '--force');
is($rc, 0, '... and again into it, existing') or diag($err);
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', "$d/certs/",
                         '-o', "$d/missing/deeper/");
is($rc, 2, 'a DIR/ whose parent is missing: exit 2');
like($err, qr/^tack: \Q$d\E\/missing\/deeper\/: cannot make the directory: No such file or directory; nothing written$/m,
     '... explained');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', "$d/certs/",
                         '-o', "$d/typo");
is($rc, 2, 'without the slash, a missing directory is still refused');
like($err, qr/need -o DIR, an existing directory \(or DIR\/, made if missing\)/, '... saying how');
ok(!-e "$d/typo", '... and nothing made');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'wrong', '-c', "$d/certs/",
                         '-o', "$d/store3/");
is($rc, 2, 'a wrong password: exit 2');
ok(!-e "$d/store3", '... and no directory made');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $crt,
                         '-o', "$d/one/");
is($rc, 0, 'one certificate into DIR/') or diag($err);
ok(-f "$d/one/" . store_name($crt, 'www.example.org'),
   '... named after the certificate, as a TackStore names it');

# ---- --resolve HOST:ADDR for a single check (curl's spelling)
my $port = free_port(18440, 18449);
my $si = (tack('serverinfo', '-t', "$d/t.pem"))[1];
write_file("$d/si.pem", $si);
(my $key = $crt) =~ s/\.crt$/.key/;
my $pid = start_s_server($port, '-cert', $crt, '-key', $key,
                         '-serverinfo', "$d/si.pem");
($rc, $out, $err) = tack('check', '--require', '--resolve',
                         "www.example.org:127.0.0.1", "www.example.org:$port");
is($rc, 0, 'check --resolve NAME:127.0.0.1 NAME:PORT connects there') or diag($out, $err);
like($out, qr/^server         = 127\.0\.0\.1 port $port, server name www\.example\.org$/m,
     '... the address, with the name as SNI');
like($out, qr/^TACK ID        = \Q$id\E$/m, '... and checks the TACK');
($rc, $out, $err) = tack('check', '--json', '--resolve', "www.example.org:[::ffff:127.0.0.1]",
                         "www.example.org:$port");
like($out, qr/"address": "::ffff:127\.0\.0\.1"/, 'an IPv6 address in brackets');
($rc, $out, $err) = tack('check', '--resolve', 'other.example.org:127.0.0.1',
                         "www.example.org:$port");
is($rc, 2, '--resolve for another name: exit 2');
like($err, qr/--resolve "other\.example\.org:127\.0\.0\.1": names other\.example\.org, but the check is of www\.example\.org/,
     '... explained');
($rc, $out, $err) = tack('check', '--resolve', 'www.example.org:127.0.0.1',
                         '--resolve', 'www.example.org:127.0.0.2',
                         "www.example.org:$port");
is($rc, 2, 'two --resolve for a single check: exit 2');
like($err, qr/2 --resolve addresses: a single check connects to one; add --all-addresses/,
     '... pointing to --all-addresses');
($rc, $out, $err) = tack('check', '--resolve', 'www.example.org:nowhere',
                         "www.example.org:$port");
is($rc, 2, '--resolve with a name for an address: exit 2');
like($err, qr/"nowhere" is not an IPv4 or IPv6 address/, '... explained');
stop_server($pid);

done_testing();
