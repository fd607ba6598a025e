# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# `tack check --all-addresses`: the fleet check before pin activation.
# One `openssl s_server -serverinfo` per loopback address, 127.0.0.1 to
# 127.0.0.4, all on one port in 18470-18479, named www.example.org by
# --resolve; each case changes one server and expects the verdict to name
# it, and only it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use JSON::PP;
use IO::Socket::INET;
use Time::HiRes qw(time);

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
BAIL_OUT('openssl not installed') unless grep { -x "$_/openssl" }
    split(/:/, $ENV{PATH});

my ($rc, $out, $err);
my $d = tmp();
my $name = 'www.example.org';
my @addrs = map { "127.0.0.$_" } 1 .. 4;
my $port = free_port_at(\@addrs, 18470, 18479);
my @resolve = map { ('--resolve', "$name:$_") } @addrs;

sub ok_tool {
    my @args = @_;
    my ($rc, $out, $err) = tack(@args);
    die "tack @args: $err" if $rc;
    return $out;
}

# Four servers, each with its own certificate and TLS key.
my (@crt, @key);
for my $i (1 .. 4) {
    ($crt[$i], $key[$i]) = mkcert("f$i", $name, 30);
}
ok_tool('genkey', '-p', 'pw', '-o', "$d/a.key");
ok_tool('genkey', '-p', 'pw', '-o', "$d/b.key");
my ($id_a) = ok_tool('view', "$d/a.key") =~ /TACK ID\s+= (\S+)/;
my ($id_b) = ok_tool('view', "$d/b.key") =~ /TACK ID\s+= (\S+)/;
ok($id_a && $id_b && $id_a ne $id_b, 'two TACK keys');

# tack_file(NAME, KEY, SERVER, SIGN OPTIONS...) signs server i's
# certificate (expiring 2031-06-01 unless the options give -e);
# si_file(NAME, SERVERINFO OPTIONS...) makes its SERVERINFO.
sub tack_file {
    my ($n, $k, $i, @opt) = @_;
    ok_tool('sign', '-k', "$d/$k.key", '-p', 'pw', '-c', $crt[$i],
            (grep({ $_ eq '-e' } @opt) ? () : ('-e', '2031-06-01Z')), @opt,
            '-o', "$d/$n.tack");
    return "$d/$n.tack";
}

sub si_file {
    my ($n, @opt) = @_;
    write_file("$d/$n.si", ok_tool('serverinfo', @opt));
    return "$d/$n.si";
}

# The consistent fleet: key A everywhere, generations 1, 1, 1 and 2 over
# min_generation 1 (consistent: every generation >= every min_generation).
my @good = (undef, map {
    si_file("good$_", '-t', tack_file("a$_", 'a', $_, '-m', 1, '-g',
                                      $_ == 4 ? 2 : 1))
} 1 .. 4);

my %pid;

# serve(i, SERVERINFO or undef): (re)starts server i.
sub serve {
    my ($i, $si) = @_;
    stop_server(delete $pid{$i}) if $pid{$i};
    $pid{$i} = start_s_server_at($addrs[$i - 1], $port, '-cert', $crt[$i],
                                 '-key', $key[$i],
                                 defined $si ? ('-serverinfo', $si) : ());
}

sub down {
    my ($i) = @_;
    stop_server(delete $pid{$i}) if $pid{$i};
}

sub fleet {
    my @args = @_;
    return tack('check', '--all-addresses', "$name:$port", @resolve, @args);
}

# row(OUT, ADDR): the table row of ADDR.
sub row {
    my ($out, $addr) = @_;
    return ($out =~ /^(\Q$addr\E\s.*)$/m)[0] // '';
}

serve($_, $good[$_]) for 1 .. 4;

# ---- all consistent
($rc, $out, $err) = fleet();
is($rc, 0, 'four consistent servers: exit 0') or diag($out, $err);
like($out, qr/^verdict\s+= safe to enable pin activation: 4 addresses serve valid TACKs by \Q$id_a\E, min_generation 1$/m,
     '... safe to enable pin activation');
like($out, qr/^fleet\s+= \Q$name\E port $port, server name \Q$name\E$/m,
     '... the header names the host, port and SNI');
like($out, qr/^addresses\s+= 4 \(from --resolve\), over TLS 1\.2$/m,
     '... and where the addresses came from');
like($out, qr/^ADDRESS\s+TACK ID\s+GEN\s+MIN\s+EXPIRES\s+TARGET\s+BREAKS\s+PIN\s+STATUS$/m,
     '... a table header');
for my $i (1 .. 4) {
    my $gen = $i == 4 ? 2 : 1;
    like(row($out, "127.0.0.$i"),
         qr/^127\.0\.0\.$i\s+\Q$id_a\E\s+$gen\s+1\s+2031-06-01\s+ok\s+0\s+off\s+ok$/,
         "... row of 127.0.0.$i: key, generation $gen, min 1, expiry, "
         . 'target, breaks, activation, ok');
}
unlike($out, qr/^(problem|warning)/m, '... no problem, no warning');
is($err, '', '... nothing on stderr');

# ---- --json
($rc, $out, $err) = fleet('--json');
is($rc, 0, '--json: exit 0');
my $j = eval { decode_json($out) };
ok($j, '... valid JSON') or diag($out);
is($j->{safe}, JSON::PP::true, '... safe: true');
like($j->{verdict}, qr/^safe to enable pin activation/, '... the verdict');
is($j->{fleet_key}, $id_a, '... the fleet key');
is($j->{min_generation}, 1, '... the highest min_generation');
is($j->{host}, $name, '... the host');
is($j->{source}, 'resolve', '... where the addresses came from');
is(ref($j->{addresses}), 'ARRAY', '... an array of addresses');
is(join(' ', map { $_->{address} } @{ $j->{addresses} }), "@addrs",
   '... one per address, in order');
is(join(' ', map { $_->{status} } @{ $j->{addresses} }), 'ok ok ok ok',
   '... each ok');
my $c = $j->{addresses}[3]{check};
is($c->{result}, 'accepted', '... each with the check\'s own report');
is($c->{address}, '127.0.0.4', '... naming the address');
is($c->{servername}, $name, '... and the SNI name');
is($c->{tacks}[0]{generation}, 2, '... and its TACK');
is_deeply($j->{lockouts}, [], '... no lockouts');

# ---- one without TACK
serve(2, undef);
($rc, $out, $err) = fleet();
is($rc, 1, 'one server without TACK: exit 1') or diag($out);
like($out, qr/^verdict\s+= do not enable pin activation: 1 of 4 addresses would lock clients out: 127\.0\.0\.2 \(no TACK\)$/m,
     '... the verdict names it');
like($out, qr/^problem\s+= 127\.0\.0\.2: serves no TACK/m, '... and says why');
like(row($out, '127.0.0.2'), qr/\(no TACK\).*no TACK$/, '... in its row');
like(row($out, '127.0.0.1'), qr/ ok$/, '... the others are ok');
unlike($out, qr/safe to enable/, '... never "safe to enable"');
serve(2, $good[2]);

# ---- one under another key
serve(3, si_file('b3', '-t', tack_file('b3', 'b', 3, '-m', 1, '-g', 1)));
($rc, $out, $err) = fleet();
is($rc, 1, 'one server under another key: exit 1') or diag($out);
like($out, qr/^verdict\s+= do not enable pin activation: 1 of 4 addresses would lock clients out: 127\.0\.0\.3 \(other key\)$/m,
     '... the verdict names it');
like($out, qr/^problem\s+= 127\.0\.0\.3: TACK key \Q$id_b\E is not the fleet's key \Q$id_a\E \(served at 3 of 4 addresses\)/m,
     '... naming both keys');
like(row($out, '127.0.0.3'), qr/\Q$id_b\E.*other key$/, '... its row shows its key');
like($out, qr/^fleet key\s+= \Q$id_a\E \(3 of 4 addresses\), min_generation 1$/m,
     '... the fleet key is the one most serve');
serve(3, $good[3]);

# ---- one with a generation below another's min_generation
serve(4, si_file('a4g0', '-t', tack_file('a4g0', 'a', 4)));
($rc, $out, $err) = fleet();
is($rc, 1, 'one server with generation 0 under min_generation 1: exit 1')
    or diag($out);
like($out, qr/^verdict\s+= do not enable pin activation: 1 of 4 addresses would lock clients out: 127\.0\.0\.4 \(low generation\)$/m,
     '... the verdict names it');
like($out, qr/^problem\s+= 127\.0\.0\.4: generation 0 is below min_generation 1 served at 127\.0\.0\.1: .*certificate_revoked/m,
     '... saying which address serves the higher min_generation');
like(row($out, '127.0.0.4'), qr/\Q$id_a\E\s+0\s+0\s/, '... its row shows 0/0');

# ---- several at once, one unreachable: 127.0.0.4 has nothing listening
down(4);
serve(2, undef);
($rc, $out, $err) = fleet('--timeout', '3');
is($rc, 1, 'one address unreachable: exit 1') or diag($out);
like(row($out, '127.0.0.4'), qr/\(no answer\).*unreachable$/,
     '... it is reported in its row');
like($out, qr/^problem\s+= 127\.0\.0\.4: unreachable: cannot connect to 127\.0\.0\.4 port $port: Connection refused$/m,
     '... with the reason');
like(row($out, '127.0.0.1'), qr/\Q$id_a\E.* ok$/, '... the others are still checked');
like(row($out, '127.0.0.3'), qr/\Q$id_a\E.* ok$/, '... all of them');
like($out, qr/^verdict\s+= do not enable pin activation: 2 of 4 addresses would lock clients out: 127\.0\.0\.2 \(no TACK\), 127\.0\.0\.4 \(unreachable\)$/m,
     '... and the verdict names both problems');
is(scalar(my @rows = $out =~ /^127\.0\.0\.\d /mg), 4, '... four rows');
serve(2, $good[2]);
serve(4, $good[4]);

# ---- a break signature of the fleet's key, next to its TACK
ok_tool('break', '-k', "$d/a.key", '-p', 'pw', '-o', "$d/a.break");
my $tack_body = substr(pem_body(slurp($good[1]), 'SERVERINFO FOR TACK'), 4);
my $bs_body = substr(pem_body(si('-b', "$d/a.break"), 'SERVERINFO FOR TACK'),
                     4);
my $with_break = substr($tack_body, 0, 167) . substr($bs_body, 1, 130)
               . substr($tack_body, -1);
write_file("$d/break1.si", serverinfo_pem($with_break));
serve(1, "$d/break1.si");
($rc, $out, $err) = fleet();
is($rc, 1, 'a break signature of the fleet key: exit 1') or diag($out);
like($out, qr/^problem\s+= 127\.0\.0\.1: serves a break signature of the fleet's key \Q$id_a\E/m,
     '... named');
like(row($out, '127.0.0.1'), qr/\s1\s+off\s+breaks key$/,
     '... its row counts the break signature');
serve(1, $good[1]);

sub si {
    return ok_tool('serverinfo', @_);
}

# ---- warnings: expirations far apart, activation on somewhere, soon expiry
serve(4, si_file('a4e', '-t', tack_file('a4e', 'a', 4, '-m', 1, '-g', 1,
                                        '-e', '2031-03-01Z'), '-a', 1));
($rc, $out, $err) = fleet();
is($rc, 0, 'warnings alone: exit 0') or diag($out);
like($out, qr/^warning\s+= TACK expirations differ by 92 days: 2031-03-01T00:00Z at 127\.0\.0\.4, 2031-06-01T00:00Z at 127\.0\.0\.1/m,
     '... expirations far apart');
like($out, qr/^warning\s+= pin activation is already on at 1 of 4 addresses$/m,
     '... activation already on at one');
like(row($out, '127.0.0.4'), qr/\son\s+ok$/, '... shown in its row');
($rc, $out, $err) = fleet('--now', '2031-02-20Z');
is($rc, 0, 'a TACK that expires within 30 days: exit 0') or diag($out);
like($out, qr/^warning\s+= 127\.0\.0\.4: the TACK expires in 9 days, at 2031-03-01T00:00Z$/m,
     '... a warning');
($rc, $out, $err) = fleet('--now', '2031-04-01Z');
is($rc, 1, 'an expired TACK (--now): exit 1') or diag($out);
like($out, qr/^problem\s+= 127\.0\.0\.4: a TACK client rejects it with certificate_expired: TACK 1 expired at 2031-03-01T00:00Z$/m,
     '... rejected like a client would');
like(row($out, '127.0.0.4'), qr/ rejected$/, '... its status');
serve(4, $good[4]);

# ---- --tls1_3 is passed on: these servers send TACK in TLS 1.2 only (a
# SERVERINFO V1 file)
($rc, $out, $err) = fleet('--tls1_3');
is($rc, 1, '--tls1_3 against TLS-1.2-only TACK servers: exit 1');
like($out, qr/^addresses\s+= 4 \(from --resolve\), over TLS 1\.3$/m,
   '... says TLS 1.3');
is(scalar(my @nt = $out =~ /\(no TACK\).* no TACK$/mg), 4,
   '... and no address sends a TACK');

# ---- usage
for my $bad (['www.example.org', 'want HOST:ADDR'],
             ["$name:300.1.2.3", 'is not an IPv4 or IPv6 address'],
             ['other.example.org:127.0.0.1', 'names other\.example\.org, but the check is of www\.example\.org'],
             ["$name:", 'want HOST:ADDR']) {
    ($rc, $out, $err) = tack('check', '--all-addresses', "$name:$port",
                             '--resolve', $bad->[0]);
    is($rc, 2, "--resolve $bad->[0]: exit 2");
    like($err, qr/--resolve "\Q$bad->[0]\E": .*$bad->[1]/, '... explained');
}
($rc, $out, $err) = tack('check', "$name:$port", '--resolve', "$name:127.0.0.1",
                         '--resolve', "$name:127.0.0.2");
is($rc, 2, 'several --resolve without --all-addresses: exit 2');
like($err, qr/a single check connects to one; add --all-addresses/, '... explained');
($rc, $out, $err) = fleet('--pins', "$d/pins.json");
is($rc, 2, '--pins with --all-addresses: exit 2');
ok(!-e "$d/pins.json", '... and no store written');
($rc, $out, $err) = fleet('--ca', "$d/missing.pem");
is($rc, 2, 'an unreadable --ca: exit 2');
like($err, qr/missing\.pem: cannot load CA certificates/, '... said once');
is(scalar(my @l = $err =~ /cannot load/g), 1, '... only once');

# ---- IPv6 in brackets and duplicates
($rc, $out, $err) = fleet('--resolve', "$name:[::1]", '--resolve',
                          "$name:127.0.0.1", '--timeout', '2');
is($rc, 1, 'an IPv6 address nothing listens on: exit 1');
like(row($out, '::1'), qr/^::1\s+\(no answer\)/, '... its row, after the IPv4 ones');
is(scalar(my @r = $out =~ /^127\.0\.0\.1 /mg), 1, '... a duplicate counts once');

# ---- the DNS: localhost resolves to 127.0.0.1 (and perhaps ::1)
($rc, $out, $err) = tack('check', '--all-addresses', "localhost:$port",
                         '--timeout', '2');
like($out, qr/^addresses\s+= \d \(from the DNS\)/m,
     'without --resolve the DNS gives the addresses');
like(row($out, '127.0.0.1'), qr/\Q$id_a\E/, '... 127.0.0.1 among them');

# ---- 50 addresses: 4 servers, and 46 addresses that accept a connection
# and never answer (a listening socket nobody accepts on).  Sequentially
# that is 46 timeouts; in parallel one.
my @silent;
for my $i (5 .. 50) {
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.$i", LocalPort => $port,
                                  Proto => 'tcp', ReuseAddr => 1, Listen => 5)
        or BAIL_OUT("cannot listen on 127.0.0.$i:$port: $!");
    push @silent, $s;
}
my @many = map { ('--resolve', "$name:127.0.0.$_") } 5 .. 50;
my $t0 = time();
($rc, $out, $err) = fleet(@many, '--timeout', '2');
my $secs = time() - $t0;
is($rc, 1, '50 addresses, 46 silent: exit 1');
cmp_ok($secs, '<', 15, sprintf('... in %.1f s (a bound of 15 s; 46 '
                               . 'timeouts of 2 s in a row would be 92 s)',
                               $secs));
is(scalar(my @rows50 = $out =~ /^127\.0\.0\.\d+ /mg), 50, '... 50 rows');
is(scalar(my @ok50 = $out =~ / ok$/mg), 4, '... the four servers ok');
is(scalar(my @to = $out =~ /\(no answer\).* timed out$/mg), 46,
   '... 46 timed out');
like($out, qr/^problem\s+= 127\.0\.0\.50: TLS handshake with 127\.0\.0\.50 port $port failed: timed out after 2 s$/m,
     '... with the reason');
like($out, qr/^verdict\s+= do not enable pin activation: 46 of 50 addresses would lock clients out: 127\.0\.0\.5 \(timed out\), .* and 38 more$/m,
     '... the verdict names the first ones and counts the rest');
close($_) for @silent;
down($_) for 1 .. 4;

done_testing();
