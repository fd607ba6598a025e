# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Preload lists: `tack preload build|view` and `tack check --preload`,
# alone and with --pins (the precedence in docs/preload.md), against
# openssl s_server on 127.0.0.1:18480-18489, the clock driven by --now.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use JSON::PP;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
BAIL_OUT('openssl not found') unless (run3('openssl', 'version'))[0] == 0;

my ($rc, $out, $err);
my $d = tmp();
my $name = 'www.example.org';
my ($crt, $key) = mkcert('www', $name, 30);
my $day = 86400;
my $T0 = 1893456000;    # 2030-01-01T00:00Z
my $json = JSON::PP->new->canonical;


ok0(tack('genkey', '-p', 'pw', '-o', "$d/k1.pem"));
ok0(tack('genkey', '-p', 'pw', '-o', "$d/k2.pem"));
my (%id, %hex);
for my $k (qw(k1 k2)) {
    ok0(tack('break', '-k', "$d/$k.pem", '-p', 'pw', '-o', "$d/$k.break"));
}
sub sign {
    my ($k, $file, @args) = @_;
    ok0(tack('sign', '-k', "$d/$k.pem", '-p', 'pw', '-c', $crt,
             '-e', '2031-06-01Z', '-o', "$d/$file", @args));
}
sign('k1', 'k1.tack');
sign('k2', 'k2.tack');
sign('k1', 'k1-g2.tack', '-m', '2');
sign('k1', 'k1-g1.tack', '-m', '1', '-g', '1');
sign('k1', 'k1-g3.tack', '-m', '0', '-g', '3');
for my $k (qw(k1 k2)) {
    my $j = decode_json((ok0(tack('view', '--json', "$d/$k.tack")))[1]);
    $id{$k} = $j->[0]{tack_id};
    $hex{$k} = $j->[0]{public_key};
}

my %si = (
    k1        => ['-t', "$d/k1.tack", '-a', '0'],
    k1_act1   => ['-t', "$d/k1.tack", '-a', '1'],
    k2        => ['-t', "$d/k2.tack", '-a', '0'],
    k2_act1   => ['-t', "$d/k2.tack", '-a', '1'],
    k1g2      => ['-t', "$d/k1-g2.tack", '-a', '0'],
    k1g1      => ['-t', "$d/k1-g1.tack", '-a', '0'],
    k1g3      => ['-t', "$d/k1-g3.tack", '-a', '0'],
    k2_breaks_k1 => ['-t', "$d/k2.tack", '-a', '0', '-b', "$d/k1.break"],
);
for my $s (keys %si) {
    ok0(tack('serverinfo', @{ $si{$s} }, '-o', "$d/$s.si"));
}

my ($port, $pid);
sub serve {
    my ($what) = @_;
    stop_server($pid) if $pid;
    $port = free_port(18480, 18489);
    $pid = start_s_server($port, '-cert', $crt, '-key', $key, '-tls1_2',
        $what eq 'none' ? () : ('-serverinfo', "$d/$what.si"));
}
# check(LIST, T, ARGS...): `tack check` of the server as www.example.org.
sub check {
    my ($list, $t, @args) = @_;
    return tack('check', "127.0.0.1:$port", '--servername', $name,
                ($list ? ('--preload', "$d/$list") : ()),
                '--now', "\@$t", @args);
}
sub pins {
    my ($store) = @_;
    my ($rc, $out, $err) = tack('pins', '--pins', "$d/$store", '--json');
    die "pins: $err" if $rc;
    return { map { $_->{name} => $_ } @{ decode_json($out) } };
}
sub store { decode_json(slurp("$d/$_[0]")) }
sub list { decode_json(slurp("$d/$_[0]")) }
sub write_list { write_file("$d/$_[0]", $json->encode($_[1])) }

# ---- build from TACK files, view
($rc, $out, $err) = tack('preload', 'build', '--now', "\@$T0",
    '--tack', "WWW.Example.org.=$d/k1.tack",
    '--tack', "b.example.org=$d/k2.tack", '-o', "$d/l.json");
is($rc, 0, 'build from --tack files') or diag($err);
like($err, qr/wrote .*l\.json: 2 hosts, expires 2030-04-01T00:00Z/,
     '... says what it wrote; 90 days by default');
my $l = list('l.json');
is($l->{format}, 'tack-preload', 'format');
is($l->{version}, 1, 'version 1');
is($l->{generated}, $T0, 'generated = now');
is($l->{expires}, $T0 + 90 * $day, 'expires = now + 90 days');
is_deeply([map { $_->{host} } @{ $l->{entries} }],
          ['b.example.org', $name], 'entries sorted, names normalised');
is($l->{entries}[1]{public_key}, $hex{k1}, 'the TACK key');
is($l->{entries}[1]{tack_id}, $id{k1}, 'its TACK ID');
is($l->{entries}[1]{min_generation}, 0, 'min_generation');
is($l->{entries}[1]{observed}, $T0, 'observed');
ok(!exists $l->{entries}[1]{include_subdomains}, 'no include_subdomains');
is((stat("$d/l.json"))[2] & 0777, 0644 & ~umask, 'a readable file');

($rc, $out, $err) = tack('preload', 'build', '--now', "\@$T0",
    '--tack', "$name=$d/k2.tack", '-o', "$d/l.json");
is($rc, 2, 'an existing list is not replaced');
like($err, qr/l\.json: exists; not overwritten/, '... and says so');
is(list('l.json')->{entries}[1]{tack_id}, $id{k1}, '... it is intact');
($rc) = tack('preload', 'build', '--now', "\@$T0", '-f',
    '--tack', "$name=$d/k1.tack", '-o', "$d/l1.json");
is($rc, 0, '-f writes');
is(scalar(@{ list('l1.json')->{entries} }), 1, '... one entry');

($rc, $out, $err) = tack('preload', 'build', '--now', "\@$T0",
    '--tack', "$name=$d/k1.tack", '--tack', "WWW.example.org=$d/k2.tack");
is($rc, 2, 'a host given twice is refused');
like($err, qr/host www\.example\.org is listed twice/, '... explained');
($rc, $out, $err) = tack('preload', 'build', '--tack', "*.example.org=$d/k1.tack");
is($rc, 2, 'a wildcard is refused');
like($err, qr/not a host name \(one exact DNS name, no wildcards\)/, '... explained');
($rc, $out, $err) = tack('preload', 'build', '--now', "\@$T0",
                         '--tack', "$name=$d/k1.tack", '--expires', '30d');
is(decode_json($out)->{expires}, $T0 + 30 * $day, '--expires 30d');
($rc, $out, $err) = tack('preload', 'build', '--tack', "$name=$d/k1.tack",
                         '--expires', '400d');
is($rc, 2, '--expires beyond 365 days is refused');
like($err, qr/at most 365 days/, '... explained');

($rc, $out, $err) = tack('preload', 'view', '--now', "\@$T0", "$d/l.json");
is($rc, 0, 'view exits 0') or diag($err);
like($out, qr/^expires        = 2030-04-01T00:00Z \(in 90 days\)$/m, 'view: expiry');
like($out, qr/^entries        = 2$/m, 'view: count');
like($out, qr/^www\.example\.org\s+\Q$id{k1}\E\s+0\s+2030-01-01T00:00Z$/m,
     'view: an entry');
($rc, $out) = tack('preload', 'view', '--json', "$d/l.json");
is_deeply(decode_json($out), list('l.json'), 'view --json: the list');
($rc, $out, $err) = tack('preload', 'view', '--now', "\@" . ($T0 + 91 * $day),
                         "$d/l.json");
is($rc, 1, 'view of an expired list exits 1');
like($out, qr/EXPIRED: not enforced/, '... and says it is not enforced');
($rc, $out, $err) = tack('preload', 'view', '--json', '--now',
                         "\@" . ($T0 + 91 * $day), "$d/l.json");
is($rc, 1, 'view --json of an expired list exits 1');
like($err, qr/^tack: \S+l\.json: the preload list expired at 2030-04-01T00:00Z$/m,
     '... naming the date (it read an unset buffer: fuzz_preload under clang 19)');
($rc, $out) = tack('help', 'preload');
like($out, qr/usage: tack preload build/, 'tack help preload');

# ---- check: the first connection to a listed host
serve('k1');
($rc, $out, $err) = check('l.json', $T0 + $day);
is($rc, 0, 'listed host, listed key: accepted') or diag($out, $err);
like($out, qr/^preload        = www\.example\.org: preloaded on \Q$id{k1}\E \(min_generation 0\): the server's TACK matches$/m,
     '... reported as preloaded (pin_activation 0 does not matter)');
($rc, $out) = check('l.json', $T0 + $day, '--json');
my $j = decode_json($out);
is($j->{preload}{status}, 'enforced', 'json: preload status enforced');
is($j->{preload}{tack_id}, $id{k1}, 'json: the listed TACK ID');
is($j->{result}, 'accepted', 'json: accepted');

serve('k2');
($rc, $out, $err) = check('l.json', $T0 + $day);
is($rc, 1, 'listed host, a TACK under another key: rejected');
like($err, qr/rejected with access_denied: www\.example\.org is preloaded with \Q$id{k1}\E \(.*l\.json, until 2030-04-01T00:00Z\), and the server presents a TACK with another key/,
     '... access_denied, saying why');
like($out, qr/^result         = rejected: access_denied/m, '... on stdout too');
# The list's own line says it rejects, and why; the result line is the
# verdict and names the list; the TACK line judged the TACK alone.
like($out, qr/^preload        = rejected: access_denied \(www\.example\.org is preloaded with \Q$id{k1}\E \(.*l\.json, until 2030-04-01T00:00Z\), and the server presents a TACK with another key\)$/m,
     '... on the preload line, with the reason');
like($out, qr/^result         = rejected: access_denied \(by the preload list\)$/m,
     '... and the result line names the preload list');
like($out, qr/^TACK           = valid \(signature, generation, target hash, expiration\)$/m,
     '... while the TACK alone is valid');
($rc, $out) = check('l.json', $T0 + $day, '--json');
$j = decode_json($out);
is($j->{preload}{status}, 'rejected', 'json: preload status rejected');
is($j->{preload}{alert}, 'access_denied', 'json: preload alert');
is($j->{alert}, 'access_denied', 'json: the verdict\'s alert');

serve('none');
($rc, $out, $err) = check('l.json', $T0 + $day);
is($rc, 1, 'listed host, no TACK: rejected');
like($err, qr/access_denied: .*presents no TACK/, '... access_denied');

serve('k2_breaks_k1');
($rc, $out, $err) = check('l.json', $T0 + $day);
is($rc, 0, 'the break signature of the listed key lifts the entry')
    or diag($out, $err);
like($out, qr/^preload        = break signature for \Q$id{k1}\E: its 1 preload entry is lifted$/m,
     '... reported');
like($out, qr/preload entry on \Q$id{k1}\E lifted \(the server sent its break signature\): not enforced/,
     '... for this host');
($rc, $out) = check('l.json', $T0 + $day, '--json');
is(decode_json($out)->{preload}{status}, 'lifted', 'json: lifted');

ok0(tack('preload', 'build', '--now', "\@$T0", '--tack', "$name=$d/k1-g2.tack",
         '-o', "$d/g2.json"));
is(list('g2.json')->{entries}[0]{min_generation}, 2,
   'a list from a TACK with min_generation 2');
serve('k1');
($rc, $out, $err) = check('g2.json', $T0 + $day);
is($rc, 1, 'a TACK of generation 0 under that entry: rejected');
like($err, qr/rejected with certificate_revoked: TACK generation 0 of \Q$id{k1}\E is below the preloaded min_generation 2/,
     '... certificate_revoked');
serve('k1g2');
($rc) = check('g2.json', $T0 + $day);
is($rc, 0, 'generation 2: accepted');

# an expired list is not enforced
serve('k2');
($rc, $out, $err) = check('l.json', $T0 + 90 * $day);
is($rc, 0, 'an expired list is not enforced (at the second it expires)')
    or diag($out, $err);
like($err, qr/warning: .*l\.json: the preload list expired at 2030-04-01T00:00Z: not enforced/,
     '... with a warning');
like($out, qr/^preload        = .*expired at 2030-04-01T00:00Z: not enforced$/m,
     '... and a line');
($rc) = check('l.json', $T0 + 90 * $day - 1);
is($rc, 1, 'a second earlier it is');
# A fleet check says it once, not once per address.
my $pid2 = start_s_server_at('127.0.0.2', $port, '-cert', $crt, '-key', $key,
    '-tls1_2', '-serverinfo', "$d/k2.si");
($rc, $out, $err) = tack('check', '--all-addresses', "$name:$port",
    '--resolve', "$name:127.0.0.1", '--resolve', "$name:127.0.0.2",
    '--timeout', '2', '--preload', "$d/l.json", '--now', '@' . ($T0 + 90 * $day));
my @expired = $err =~ /the preload list expired/g;
is(scalar @expired, 1, 'a fleet check warns of an expired list once')
    or diag($err);
is($rc, 0, '... and, the list not enforced, both servers are fine')
    or diag($out, $err);
stop_server($pid2);

# a host not in the list: exactly a plain check
serve('k2');
for my $case (['', 'accepted'], ['--require', 'no TACK required']) {
    my @a = $case->[0] ? ($case->[0]) : ();
    my @plain = tack('check', "127.0.0.1:$port", '--servername', 'c.example.org',
                     '--now', "\@$T0", @a);
    my @pre = tack('check', "127.0.0.1:$port", '--servername', 'c.example.org',
                   '--now', "\@$T0", '--preload', "$d/l.json", @a);
    is($pre[0], $plain[0], "not listed ($case->[1]): same exit status");
    like($pre[1], qr/^preload        = c\.example\.org: not in the list$/m,
         '... says it is not listed');
    (my $o = $pre[1]) =~ s/^preload .*\n//mg;
    is($o, $plain[1], '... otherwise the same output');
    is($pre[2], $plain[2], '... and the same stderr');
}

# ---- malformed lists: refused, exit 2, file and reason named
my $good = list('l.json');
my @bad = (
    ['syntax', undef, qr/line 1: /],
    ['future version', sub { $_[0]{version} = 2 },
     qr/version 2 is newer than this tool reads \(1\): upgrade tack/],
    ['no format', sub { delete $_[0]{format} }, qr/no "format": "tack-preload"/],
    ['duplicate host', sub {
        push @{ $_[0]{entries} }, { %{ $_[0]{entries}[1] }, host => 'WWW.Example.ORG.' } },
     qr/host www\.example\.org is listed twice/],
    ['key/fingerprint mismatch', sub { $_[0]{entries}[1]{tack_id} = $id{k2} },
     qr/entry 2 \(www\.example\.org\): "tack_id" is not its public_key's \(\Q$id{k1}\E\)/],
    ['short key', sub { chop($_[0]{entries}[1]{public_key}) },
     qr/"public_key" is not 128 hex digits/],
    ['key not on the curve', sub { $_[0]{entries}[1]{public_key} = '01' x 64 },
     qr/"public_key" is not a P-256 point/],
    ['generation 256', sub { $_[0]{entries}[1]{min_generation} = 256 },
     qr/"min_generation" is not 0 to 255/],
    ['negative time', sub { $_[0]{entries}[1]{observed} = -1; delete $_[0]{entries}[1]{observed_utc} },
     qr/"observed" is not a time/],
    ['observed after generated', sub { $_[0]{entries}[1]{observed} += 60; delete $_[0]{entries}[1]{observed_utc} },
     qr/"observed" is not a time before "generated"/],
    ['a year and more', sub { $_[0]{expires} = $_[0]{generated} + 366 * $day; delete $_[0]{expires_utc} },
     qr/"expires" must be after "generated", by at most 365 days/],
    ['readable copy disagrees', sub { $_[0]{expires} += 60 },
     qr/"expires_utc" does not say the same/],
    ['include_subdomains', sub { $_[0]{entries}[1]{include_subdomains} = JSON::PP::true },
     qr/unknown member "include_subdomains" \(TACK pins exact names: list each one\)/],
    ['a wildcard', sub { $_[0]{entries}[1]{host} = '*.example.org' },
     qr/"\*\.example\.org" is not a host name/],
);
serve('k1');
for my $b (@bad) {
    my ($what, $edit, $re) = @$b;
    if ($edit) {
        my $copy = decode_json(encode_json($good));
        $edit->($copy);
        write_list('bad.json', $copy);
    } else {
        write_file("$d/bad.json", '{"format": "tack-prel');
    }
    ($rc, $out, $err) = tack('preload', 'view', "$d/bad.json");
    is($rc, 2, "$what: view exits 2");
    like($err, qr/^tack: \Q$d\E\/bad\.json: not a usable preload list: .*$re/m,
         "... naming the file and the reason");
    ($rc, $out, $err) = check('bad.json', $T0 + $day);
    is($rc, 2, "$what: check --preload exits 2");
    like($err, qr/bad\.json: not a usable preload list/, '... and says why');
}
write_file("$d/dupkey.json", '{"format": "tack-preload", "format": "tack-preload"}');
($rc, $out, $err) = tack('preload', 'view', "$d/dupkey.json");
is($rc, 2, 'a member given twice is refused');
like($err, qr/dupkey\.json: not a usable preload list: .*duplicate/, '... explained');

# ---- build from live checks
{
    my $p1 = $port;    # serving k1 as www.example.org
    my $p2 = free_port(18480, 18489);
    my $pid2 = start_s_server($p2, '-cert', $crt, '-key', $key, '-tls1_2',
                              '-serverinfo', "$d/k2.si");
    write_file("$d/hosts", "# the fleet\n127.0.0.1:$p1 $name\n\n"
                   . "127.0.0.1:$p2 B.example.org   # the second\n");
    ($rc, $out, $err) = tack('preload', 'build', '--hosts', "$d/hosts",
                             '-o', "$d/live.json");
    is($rc, 0, 'build --hosts against two live servers') or diag($err);
    my $lv = list('live.json');
    is_deeply([map { [$_->{host}, $_->{tack_id}] } @{ $lv->{entries} }],
              [['b.example.org', $id{k2}], [$name, $id{k1}]],
              '... each host with the key it serves');
    ok(abs($lv->{entries}[0]{observed} - time()) < 120, '... observed now');
    write_file("$d/hosts2", "127.0.0.1:$p1 $name\n127.0.0.1:$p1 nothere.example.org\n");
    stop_server($pid2);
    write_file("$d/hosts3", "127.0.0.1:$p1 $name\n127.0.0.1:$p2 b.example.org\n");
    ($rc, $out, $err) = tack('preload', 'build', '--hosts', "$d/hosts3",
                             '--timeout', '3', '-o', "$d/live3.json");
    is($rc, 1, 'a host that cannot be checked fails the build');
    like($err, qr/hosts3:2: b\.example\.org port \Q$p2\E: cannot connect/,
         '... naming the line and the reason');
    ok(!-e "$d/live3.json", '... and nothing is written');
    serve('none');
    write_file("$d/hosts4", "127.0.0.1:$port $name\n");
    ($rc, $out, $err) = tack('preload', 'build', '--hosts', "$d/hosts4");
    is($rc, 1, 'a host that serves no TACK fails the build');
    like($err, qr/hosts4:1: www\.example\.org port \d+: serves no TACK/, '... explained');
    write_file("$d/hosts5", "127.0.0.1:$port $name extra\n");
    ($rc, $out, $err) = tack('preload', 'build', '--hosts', "$d/hosts5");
    is($rc, 2, 'a malformed hosts line is a usage error');
}

# ---- with --pins: the precedence of docs/preload.md
# 1. The list is enforced first, whatever the store says, and a connection
#    it rejects is not shown to the store.
serve('k2');
check('', $T0, '--pins', "$d/p1.json");
is(pins('p1.json')->{$name}{tack_id}, $id{k2}, 'store: an inactive pin on k2');
($rc, $out, $err) = check('l.json', $T0 + $day, '--pins', "$d/p1.json");
is($rc, 1, 'rule 1: the store cannot weaken the list: k2 is rejected');
like($err, qr/access_denied: www\.example\.org is preloaded with \Q$id{k1}\E/,
     '... by the list');
unlike($out, qr/^pin /m, '... and the store is not consulted');
is(pins('p1.json')->{$name}{first_seen}, $T0, '... nor changed');

# 2. Then the store applies as today: it learns, and may reject too.
serve('k1');
($rc, $out) = check('l.json', $T0 + $day, '--pins', "$d/p2.json");
is($rc, 0, 'rule 2: accepted by the list');
like($out, qr/preloaded on \Q$id{k1}\E.*\n(?:.*\n)*pin            = www\.example\.org: new inactive pin on \Q$id{k1}\E/,
     '... then the store pins as usual');
serve('k2_act1');
check('', $T0, '--pins', "$d/p3.json");
check('', $T0 + 10 * $day, '--pins', "$d/p3.json");
ok(pins('p3.json')->{$name}{active}, 'store: an active pin on k2');
serve('k1');
($rc, $out, $err) = check('l.json', $T0 + 11 * $day, '--pins', "$d/p3.json");
is($rc, 1, 'rule 2: an active learned pin on another key still rejects');
like($out, qr/preloaded on \Q$id{k1}\E/, '... though the list accepts');
like($err, qr/access_denied: www\.example\.org is pinned to \Q$id{k2}\E/,
     '... by the store');

# 3. min_generation is the higher of the list's and the store's, and the
#    store keeps the list's.
serve('k1g2');
check('', $T0, '--pins', "$d/p4.json");
is(pins('p4.json')->{$name}{min_generation}, 2, 'store: k1 at min_generation 2');
serve('k1g1');
($rc, $out, $err) = check('l.json', $T0 + $day, '--pins', "$d/p4.json");
is($rc, 1, 'rule 3: the list says 0, the store 2: generation 1 is revoked');
like($err, qr/certificate_revoked: TACK generation 1 of \Q$id{k1}\E is below the pinned min_generation 2/,
     '... by the store\'s floor');
serve('k1g3');
($rc, $out, $err) = check('g2.json', $T0 + $day, '--pins', "$d/p5.json");
is($rc, 0, 'a generation-3 TACK with min_generation 0 under a list saying 2')
    or diag($out, $err);
like($out, qr/min_generation of \Q$id{k1}\E raised from 0 to 2 \(preload list\)/,
     'rule 3: the store takes the list\'s min_generation');
is(pins('p5.json')->{$name}{min_generation}, 2, '... and keeps it');
serve('k1g1');
($rc, $out, $err) = check('', $T0 + 100 * $day, '--pins', "$d/p5.json");
is($rc, 1, '... so generation 1 stays revoked once the list has expired');
like($err, qr/certificate_revoked/, '... certificate_revoked');

# 4. A break signature that lifts an entry is recorded in the store, so the
#    entry stays lifted once the server stops serving it.
serve('k2_breaks_k1');
($rc, $out, $err) = check('l.json', $T0 + $day, '--pins', "$d/p6.json");
is($rc, 0, 'rule 4: the break signature lifts the entry') or diag($err);
like($out, qr/^pin            = \Q$id{k1}\E: broken key recorded \(its preload entries stay lifted\)$/m,
     '... and the store records the key');
is(store('p6.json')->{broken_keys}{$hex{k1}}{tack_id}, $id{k1},
   '... in broken_keys');
serve('k2');
($rc, $out, $err) = check('l.json', $T0 + 2 * $day, '--pins', "$d/p6.json");
is($rc, 0, 'rule 4: later, without the break signature: still lifted')
    or diag($out, $err);
like($out, qr/lifted \(a break signature recorded in the pin store\)/,
     '... because the store remembers');
($rc) = check('l.json', $T0 + 2 * $day);
is($rc, 1, '... (without the store it would be rejected)');
($rc, $out, $err) = tack('pins', '--pins', "$d/p6.json");
is($rc, 0, 'tack pins reads a store with broken_keys');
like($out, qr/^BROKEN TACK KEY\s+BREAK SIGNATURE SEEN\n\Q$id{k1}\E\s+\d{4}-\d\d-\d\dT\d\d:\d\dZ$/m,
     '... and lists the broken key');
my $st = store('p6.json');
$st->{broken_keys}{$hex{k1}}{tack_id} = $id{k2};
write_list('p7.json', $st);
($rc, $out, $err) = tack('pins', '--pins', "$d/p7.json");
is($rc, 2, 'a broken key record whose tack_id is not its key\'s is refused');
like($err, qr/p7\.json: not a pin store: broken key record .*tack_id is not its key's/,
     '... explained');

stop_server($pid);
done_testing();
