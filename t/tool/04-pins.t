# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# `tack check --pins`: the pin store rules of draft-perrin-tls-tack-00
# section 5, driven through --now against openssl s_server.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use JSON::PP;
use Digest::SHA;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

my ($rc, $out, $err);
my $d = tmp();
my ($crt, $key) = mkcert('www', 'www.example.org', 30);
my $name = 'www.example.org';
my $day = 86400;
my $T0 = 1893456000;    # 2030-01-01T00:00Z


ok0(tack('genkey', '-p', 'pw', '-o', "$d/k1.pem"));
ok0(tack('genkey', '-p', 'pw', '-o', "$d/k2.pem"));
my %id;
for my $k (qw(k1 k2)) {
    ($id{$k}) = (tack('view', "$d/$k.pem"))[1] =~ /= (\S+)/;
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

# serverinfo files, one per situation
my %si = (
    k1_act1 => ['-t', "$d/k1.tack", '-a', '1'],
    k1_act0 => ['-t', "$d/k1.tack", '-a', '0'],
    k2_act1 => ['-t', "$d/k2.tack", '-a', '1'],
    k1g2    => ['-t', "$d/k1-g2.tack", '-a', '1'],
    k1g1    => ['-t', "$d/k1-g1.tack", '-a', '1'],
    k2_breaks_k1 => ['-t', "$d/k2.tack", '-a', '1', '-b', "$d/k1.break"],
    breaks_k1 => ['-b', "$d/k1.break"],
);
for my $s (keys %si) {
    ok0(tack('serverinfo', @{ $si{$s} }, '-o', "$d/$s.si"));
}

my ($port, $pid);
sub serve {
    my ($what) = @_;
    stop_server($pid) if $pid;
    $port = free_port(18400, 18429);
    $pid = start_s_server($port, '-cert', $crt, '-key', $key, '-tls1_2',
        $what eq 'none' ? () : ('-serverinfo', "$d/$what.si"));
}
sub check {
    my ($store, $t, @more) = @_;
    return tack('check', "127.0.0.1:$port", '--servername', $name,
                '--pins', "$d/$store", '--now', "\@$t", @more);
}
sub pins {
    my ($store) = @_;
    my ($rc, $out, $err) = tack('pins', '--pins', "$d/$store", '--json');
    die "pins: $err" if $rc;
    my $list = decode_json($out);
    return { map { $_->{name} => $_ } @$list };
}
sub store { decode_json(slurp("$d/$_[0]")) }

# ---- first seen, activation, extension, the 30-day cap
serve('k1_act1');
($rc, $out, $err) = check('a.json', $T0);
is($rc, 0, 'first connection: accepted') or diag($out, $err);
like($out, qr/^pin            = www\.example\.org: new inactive pin on \Q$id{k1}\E$/m,
     'first connection: a new inactive pin');
my $p = pins('a.json');
is($p->{$name}{first_seen}, $T0, 'first_seen = now');
is($p->{$name}{active_until}, 0, 'not active yet');
ok(!$p->{$name}{active}, 'pins: inactive');
is($p->{$name}{tack_id}, $id{k1}, 'pinned to the TACK key');
is((stat("$d/a.json"))[2] & 07777, 0600, 'the store is mode 0600');

($rc, $out) = check('a.json', $T0 + 10 * $day);
is($rc, 0, 'ten days later: accepted');
like($out, qr/activated until 2030-01-21T00:00Z/,
     'activated for MIN(30 days, 10 days) = 10 days');
$p = pins('a.json');
is($p->{$name}{active_until}, $T0 + 20 * $day, 'active_until = now + 10d');

($rc, $out) = check('a.json', $T0 + 15 * $day);
like($out, qr/active, extended until 2030-01-31T00:00Z/,
     'day 15: extended by 15 days');
($rc, $out) = check('a.json', $T0 + 29 * $day);
is(pins('a.json')->{$name}{active_until}, $T0 + 58 * $day,
   'day 29: extended by 29 days');
($rc, $out) = check('a.json', $T0 + 57 * $day);
is(pins('a.json')->{$name}{active_until}, $T0 + 87 * $day,
   'day 57: the extension is capped at 30 days');

($rc, $out, $err) = tack('pins', '--pins', "$d/a.json",
                         '--now', '@' . ($T0 + 57 * $day));
is($rc, 0, 'tack pins lists the store');
like($out, qr/^NAME\s+TACK ID\s+MIN\s+FIRST SEEN\s+ACTIVE UNTIL$/m,
     'tack pins: a header');
like($out, qr/^www\.example\.org\s+\Q$id{k1}\E\s+0\s+2030-01-01T00:00Z\s+2030-03-29T00:00Z$/m,
     'tack pins: the record');

# ---- rejection with an active pin
serve('none');
($rc, $out, $err) = check('a.json', $T0 + 60 * $day);
is($rc, 1, 'active pin, no TACK: rejected (exit 1)');
like($err, qr/rejected with access_denied: .*pinned to \Q$id{k1}\E until 2030-03-29T00:00Z.*no TACK/,
     '... access_denied, saying why');
like($out, qr/^result         = rejected: access_denied/m, '... on stdout too');
serve('k2_act1');
($rc, $out, $err) = check('a.json', $T0 + 60 * $day);
is($rc, 1, 'active pin, a TACK with another key: rejected');
like($err, qr/access_denied: .*another key/, '... access_denied');
is(pins('a.json')->{$name}{tack_id}, $id{k1}, '... and the pin stays');

# activation off: accepted, not extended
serve('k1_act0');
($rc, $out) = check('a.json', $T0 + 61 * $day);
is($rc, 0, 'pin_activation 0 with the pinned key: accepted');
like($out, qr/activation off: not extended/, '... not extended');
is(pins('a.json')->{$name}{active_until}, $T0 + 87 * $day,
   '... active_until unchanged');

# after the pin lapses: another key replaces it; no TACK deletes it
serve('k2_act1');
($rc, $out) = check('a.json', $T0 + 100 * $day);
is($rc, 0, 'inactive pin, another key: accepted');
like($out, qr/inactive pin on \Q$id{k1}\E replaced by a new inactive pin on \Q$id{k2}\E/,
     '... the pin is replaced');
$p = pins('a.json');
is($p->{$name}{tack_id}, $id{k2}, '... by the new key');
is($p->{$name}{first_seen}, $T0 + 100 * $day, '... first seen now');
is(scalar(keys %{ store('a.json')->{keys} }), 1,
   'the unused key record is dropped');
serve('none');
($rc, $out) = check('a.json', $T0 + 101 * $day);
is($rc, 0, 'inactive pin, no TACK: accepted');
like($out, qr/inactive pin on \Q$id{k2}\E deleted/, '... the pin is deleted');
is(scalar(keys %{ pins('a.json') }), 0, '... the store is empty');

# ---- revocation by generation
serve('k1_act1');
check('g.json', $T0);
check('g.json', $T0 + 5 * $day);
serve('k1g2');
($rc, $out) = check('g.json', $T0 + 6 * $day);
is($rc, 0, 'a TACK with min_generation 2: accepted');
like($out, qr/min_generation of \Q$id{k1}\E raised from 0 to 2/,
     '... the key record is raised');
is(pins('g.json')->{$name}{min_generation}, 2, 'pins: min_generation 2');
serve('k1g1');
($rc, $out, $err) = check('g.json', $T0 + 7 * $day);
is($rc, 1, 'generation 1 below the stored min_generation 2: rejected');
like($err, qr/rejected with certificate_revoked: TACK generation 1/,
     '... certificate_revoked');
serve('k1_act1');
($rc, $out, $err) = check('g.json', $T0 + 8 * $day);
is($rc, 1, 'generation 0 too');
like($err, qr/certificate_revoked/, '... certificate_revoked');

# ---- what each line judges (issue 42, item 5): a TACK that passes its own
# checks and that the pin store revokes used to print "tack check = ok"
# right above "result = rejected: certificate_revoked (...)".  The TACK's
# line, the pin store's and the verdict each say what they judge.
serve('k1g1');
check('r.json', $T0);
is(pins('r.json')->{$name}{min_generation}, 1,
   'a pin store whose key record has min_generation 1');
serve('k1_act1');
($rc, $out, $err) = check('r.json', $T0 + $day);
is($rc, 1, 'a generation-0 TACK under that key: rejected (exit 1)')
    or diag($out, $err);
my $revoked = "TACK generation 0 of \Q$id{k1}\E is below the pinned "
            . 'min_generation 1';
like($out, qr/^TACK           = valid \(signature, generation, target hash, expiration\)$/m,
     '... the TACK line judges the TACK alone: valid');
like($out, qr/^pin            = rejected: certificate_revoked \($revoked\)$/m,
     '... the pin line says the pin store rejects it, and why');
like($out, qr/^result         = rejected: certificate_revoked \(by the pin store\)$/m,
     '... the result line is the verdict, naming the pin store');
my ($tack_key) = $out =~ /^(\S.*?)\s+= valid \(signature/m;
my ($pin_key) = $out =~ /^(\S.*?)\s+= rejected: certificate_revoked \(TACK/m;
ok(defined $tack_key && defined $pin_key && $tack_key ne $pin_key,
   '... the two judgements carry distinct labels')
    or diag($out);
unlike($out, qr/^[^=\n]+= (?:ok|accepted)\b/m,
       '... and no line says ok or accepted while the pin store rejects');
like($err, qr/rejected with certificate_revoked: $revoked$/m,
     '... standard error still gives the reason');
($rc, $out, $err) = check('r.json', $T0 + $day, '--require');
is($rc, 1, '--require: exit 1 on the pin store\'s rejection')
    or diag($out, $err);
like($out, qr/^result         = rejected: certificate_revoked/m, '... rejected');
($rc, $out) = check('r.json', $T0 + $day, '--json');
is($rc, 1, '--json: exit 1');
my $j = decode_json($out);
is_deeply($j->{tack_checks}, { valid => JSON::PP::true,
    checks => ['signature', 'generation', 'target hash', 'expiration'] },
    '--json: tack_checks, the TACK alone: valid');
is($j->{pins}{status}, 'rejected', '--json: pins status rejected');
is($j->{pins}{alert}, 'certificate_revoked', '--json: pins alert');
like($j->{pins}{reason}, qr/^$revoked$/, '--json: pins reason');
is($j->{result}, 'rejected', '--json: the result, the verdict, rejected');
is($j->{alert}, 'certificate_revoked', '--json: alert');
like($j->{reason}, qr/^$revoked$/, '--json: reason');
is(pins('r.json')->{$name}{min_generation}, 1,
   'the pin store is left as it was');

# ---- a break signature discards the pin
serve('k1_act1');
check('b.json', $T0);
check('b.json', $T0 + 10 * $day);
ok(pins('b.json')->{$name}{active_until} > $T0 + 10 * $day,
   'an active pin on k1');
serve('k2_breaks_k1');
($rc, $out, $err) = check('b.json', $T0 + 11 * $day);
is($rc, 0, 'a TACK with k2 and the break signature of k1: accepted')
    or diag($out, $err);
like($out, qr/www\.example\.org: discarded \(break signature for \Q$id{k1}\E\)/,
     '... the k1 pin is discarded');
like($out, qr/new inactive pin on \Q$id{k2}\E/, '... and k2 pinned afresh');
my $st = store('b.json');
is(scalar(keys %{ $st->{keys} }), 1, 'one key record left');
is((values %{ $st->{keys} })[0]{tack_id}, $id{k2}, '... k2\'s');
# break signatures alone
check('c.json', $T0) for serve('k1_act1');
serve('breaks_k1');
($rc, $out) = check('c.json', $T0 + 1);
is($rc, 0, 'a break signature alone: accepted');
like($out, qr/discarded/, '... the pin is discarded');
is(scalar(keys %{ pins('c.json') }), 0, '... the store is empty');

# ---- the store file: atomic replacement, corruption, no leftovers
serve('k1_act1');
check('d.json', $T0);
my $ino = (stat("$d/d.json"))[1];
check('d.json', $T0 + 3 * $day);
isnt((stat("$d/d.json"))[1], $ino, 'the store is replaced, not rewritten '
                                  . 'in place');
my @left = glob("$d/.d.json.*");
is(scalar(@left), 0, 'no temporary file left behind');
# a crash mid-write leaves at most a temporary file beside an intact store
write_file("$d/.d.json.ABCDEF", '{"format": "tack-pi');
($rc, $out) = check('d.json', $T0 + 4 * $day);
is($rc, 0, 'a stale temporary file does not disturb the store');
ok(store('d.json')->{names}{$name}, '... which still holds the pin');
write_file("$d/bad.json", '{"format": "tack-pi');
($rc, $out, $err) = check('bad.json', $T0);
is($rc, 2, 'a corrupt store exits 2');
like($err, qr/bad\.json: not a pin store/, '... and names the file');
# ... and is reported as a failure in both forms (issue 16, item 3: the
# human form ended at "tack check = ok", the JSON had no result, alert,
# reason or error)
like($out, qr/^result         = error: the pin store cannot be used$/m,
     '... with a result line saying so');
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--servername', $name,
                         '--pins', "$d/bad.json", '--json');
is($rc, 2, '... --json too');
is(decode_json($out)->{error}, 'the pin store cannot be used',
   '... whose report has the error');
write_file("$d/bad2.json", '{"format": "something-else", "keys": {}, "names": {}}');
($rc, $out, $err) = tack('pins', '--pins', "$d/bad2.json");
is($rc, 2, 'tack pins of a foreign JSON file exits 2');
like($err, qr/not a pin store: no "format"/, '... explained');

# Stores an attacker (or a bad editor) wrote: found by fuzz/fuzz_pins.c.
# A key record without its TACK ID used to be listed as "(null)", and a
# first_seen near the smallest 64-bit integer overflowed the activation
# arithmetic; both are now refused when the store is loaded.
my $k1 = '01' x 64;
write_file("$d/no-id.json", qq({"format": "tack-pins-1", "keys": {"$k1": {"min_generation": 0}}, "names": {}}));
($rc, $out, $err) = tack('pins', '--pins', "$d/no-id.json");
is($rc, 2, 'a key record without tack_id is refused');
like($err, qr/no-id\.json: not a pin store: bad key record/, '... explained');
unlike($out . $err, qr/\(null\)/, '... and nothing prints "(null)"');
write_file("$d/wrong-id.json", qq({"format": "tack-pins-1", "keys": {"$k1": {"tack_id": "aaaaa.aaaaa.aaaaa.aaaaa.aaaaa", "min_generation": 0}}, "names": {}}));
($rc, $out, $err) = tack('pins', '--pins', "$d/wrong-id.json");
is($rc, 2, 'a key record whose tack_id is not its key\'s is refused');
like($err, qr/tack_id is not its key's/, '... explained');
# The TACK ID of that key, computed here as the draft defines it.
my $tid = fingerprint(pack('H*', $k1));
my $old = '{"format": "tack-pins-1", "keys": {"' . $k1 . '": {"tack_id": "' . $tid . '", "min_generation": 0}}, "names": {"a.test": {"key": "' . $k1 . '", "first_seen": FIRST, "active_until": 1800000000}}}';
for my $first ('-9223372036854775807', '-1', '253402300800') {
    (my $text = $old) =~ s/FIRST/$first/;
    write_file("$d/time.json", $text);
    ($rc, $out, $err) = tack('pins', '--pins', "$d/time.json");
    is($rc, 2, "first_seen $first is refused");
    like($err, qr/not a pin store: bad name record "a\.test"/, '... explained');
}

# --delete
($rc) = tack('pins', '--pins', "$d/d.json", '--delete', 'WWW.example.org.');
is($rc, 0, 'pins --delete (names compare case-insensitively)');
is(scalar(keys %{ pins('d.json') }), 0, '... removed');
($rc, $out, $err) = tack('pins', '--pins', "$d/d.json", '--delete', 'nope');
is($rc, 1, 'deleting a name that has no pin exits 1');

# --json from check carries the pin actions
serve('k1_act1');
($rc, $out) = tack('check', "127.0.0.1:$port", '--servername', $name,
                   '--pins', "$d/e.json", '--now', "\@$T0", '--json');
$j = decode_json($out);
is($j->{pins}{name}, $name, 'check --json: the pin name');
like($j->{pins}{actions}[0], qr/new inactive pin/, 'check --json: action');
is($j->{pins}{status}, 'accepted', 'check --json: the pin store accepts');
ok($j->{tack_checks}{valid}, 'check --json: the TACK alone is valid');
is($j->{result}, 'accepted', 'check --json: accepted');
stop_server($pid);

# ---- a symbolic link to the store (issue 16, item 7): the check used to
# rename its new store over the link and lock the link's name.  The target
# is the store: it is locked, read and replaced, and the link stays.
undef $pid;    # stopped above
serve('k1_act1');
mkdir("$d/sl");
ok0(check('sl/target.json', $T0));
symlink('target.json', "$d/sl/store.json") or die "symlink: $!";
($rc, $out, $err) = check('sl/store.json', $T0 + 10 * $day);
is($rc, 0, 'a check through a link to the store exits 0') or diag($out, $err);
like($out, qr/activated until/, '... and sees the pin made in the target');
ok(-l "$d/sl/store.json", '... the link is still a link');
is(readlink("$d/sl/store.json"), 'target.json', '... to the same target');
is(store('sl/target.json')->{names}{$name}{active_until}, $T0 + 20 * $day,
   '... and the target got the update');
ok(!-e "$d/sl/store.json.lock", '... the lock is not taken on the link\'s name');
ok(-e "$d/sl/target.json.lock", '... but on the target\'s');
symlink('missing.json', "$d/sl/dangling.json") or die "symlink: $!";
($rc, $out, $err) = check('sl/dangling.json', $T0);
is($rc, 2, 'a link to a missing store exits 2');
like($err, qr/dangling\.json: a symbolic link whose target cannot be used/,
     '... saying so');
ok(!-e "$d/sl/missing.json" && -l "$d/sl/dangling.json",
   '... and makes nothing');
stop_server($pid);

# ---- a big store (issue 16, item 3): from a store just under the 1 MiB
# the tool used to read, checks wrote stores it could no longer read, and
# every later check and `tack pins` failed with "file is too large".  (A
# compact store: the tool writes it indented, bigger.)
sub big_store {
    my ($file, $n) = @_;
    my (%keys, %names);
    for my $i (1 .. $n) {
        my $key = Digest::SHA::sha256("k$i") . Digest::SHA::sha256("K$i");
        my $hex = unpack('H*', $key);
        $keys{$hex} = { tack_id => fingerprint($key), min_generation => 0 };
        $names{"host$i.example.org"} = {
            key => $hex, first_seen => $T0, active_until => 0,
            first_seen_utc => '2030-01-01T00:00:00Z',
            active_until_utc => 'never active' };
    }
    write_file("$d/$file", JSON::PP->new->canonical->encode({ format => 'tack-pins-1', keys => \%keys,
                    names => \%names }));
}
undef $pid;    # stopped above
serve('k1_act1');
big_store('big.json', 2225);
my $size = -s "$d/big.json";
ok($size > 1040000 && $size < 1048576, "a store of $size bytes, under 1 MiB");
($rc, $out, $err) = check('big.json', $T0);
is($rc, 0, 'a check adds a pin to it') or diag($out, $err);
($rc, $out, $err) = tack('check', "127.0.0.1:$port", '--servername',
                         'other.example.org', '--pins', "$d/big.json",
                         '--now', "\@$T0");
is($rc, 0, '... and another check a second one') or diag($out, $err);
ok(-s "$d/big.json" > 1048576, '... and the store is now over 1 MiB');
($rc, $out, $err) = check('big.json', $T0 + 10 * $day);
is($rc, 0, 'the next check reads it back') or diag($out, $err);
like($out, qr/activated until/, '... and activates the pin');
($rc, $out, $err) = tack('pins', '--pins', "$d/big.json", '--json');
is($rc, 0, 'tack pins reads it') or diag($err);
is(scalar(@{ decode_json($out) }), 2227, '... all 2227 names');
stop_server($pid);

done_testing();
