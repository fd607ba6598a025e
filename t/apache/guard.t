# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The pin-continuity guard (issue 15): the module remembers, in
# TackStateFile, the TACK keys each vhost served with pin activation on and
# since when; a configuration that would serve a certificate without a
# TACK under a key whose pins can still be active is refused by
# apache2 -t (a warning when the cause is the TACK's expiry) and logged at a
# real start, until a way out is taken: a TACK under that key, a break
# signature for it, or TackLetPinsLapse.  Ten days of serving are made by
# moving the remembered first_seen back, as the file a server kept would
# say.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use HTTP::Tiny;
use JSON::PP;
use Fcntl qw(:flock);
use POSIX qw(strftime);
use Time::HiRes ();
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem
    write_file fingerprint key_public);

plan tests => 135;

my $h = TackTest::Httpd->new('guard');
my $d = $h->root;
my $port = $h->port;
my $state = "$d/var/tack/state.json"; # its directory: made by the start
make_cert($d, 'a', 'ec', 'a.test');
make_cert($d, 'b', 'ec', 'b.test');
make_key("$d/k1.key");
make_key("$d/k2.key");
my ($K1, $K2) = map { fingerprint(key_public("$d/$_.key")) } qw(k1 k2);
mkdir "$d/store";

sub store_only {
    my (%files) = @_;
    unlink glob("$d/store/*.tack.pem");
    write_file("$d/store/$_.tack.pem", tackpy_pem('TACK', $files{$_})) for keys %files;
}
sub conf {
    my ($extra, $names) = @_;
    $extra //= '';
    $names //= 'ServerName a.test';
    $h->write_conf(<<"C");
TackStateFile \@ROOT\@/var/tack/state.json
TackStore \@ROOT\@/store
<Location /tack-status>
    SetHandler tack-status
</Location>
<VirtualHost 127.0.0.1:\@PORT\@>
    $names
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
    TackPinActivation on
$extra
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName b.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/b.crt
    SSLCertificateKeyFile \@ROOT\@/b.key
    TackRequired off
</VirtualHost>
C
}
sub memory {
    my $t = TackHelpers::read_file($state) // return undef;
    return eval { decode_json($t) };
}
sub slot { (memory() // {})->{slots}{"a.test:$port ECDSA"} // [] }
# backdate($days): the remembered keys were first served $days ago
sub backdate {
    my ($days) = @_;
    my $j = memory() or die "no state";
    for my $k (map { @$_ } values %{ $j->{slots} }) {
        $k->{first_seen} -= $days * 86400;
    }
    write_file($state, encode_json($j));
}
# tack_source($name): the "source" of the TACK the status JSON lists for
# the first certificate of vhost $name.
sub tack_source {
    my ($name) = @_;
    my $st = HTTP::Tiny->new(verify_SSL => 0, timeout => 10)
        ->get("https://127.0.0.1:$port/tack-status?json");
    my ($v) = grep { $_->{name} eq "$name:$port" }
        @{ (eval { decode_json($st->{content}) } // {})->{vhosts} // [] };
    return $v ? ($v->{certificates}[0]{tacks}[0]{source} // '') : '';
}

sub served_key { my $t = served_tack($port, 'a.test'); $t ? $t->{id} : undef }
sub day { strftime('%Y-%m-%d', gmtime(time + $_[0] * 86400)) }

# ---- a start remembers what is served with pin activation ------------------
store_only(a1 => tack_bytes(key => "$d/k1.key", cert => "$d/a.crt"));
conf();
my ($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t: Syntax OK with no memory yet') or diag($out);
ok(!-e $state, '... and -t writes no memory');
($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
is(served_key(), $K1, 'a.test serves its TACK under K1');
is(sprintf('%04o', (stat "$d/var/tack")[2] & 07777), '0755',
   'the missing state directory was made, mode 0755');
my @s = @{ slot() };
is(scalar(@s), 1, 'the memory holds one key for a.test\'s ECDSA certificate');
is($s[0]{tack_id}, $K1, '... K1');
ok($s[0]{serving} && abs($s[0]{first_seen} - time) < 60, '... served since now');
ok(!exists memory()->{slots}{"b.test:$port ECDSA"}, 'nothing is remembered for b.test (no pin activation)');
like(log_since(0, $h->error_log), qr/TACK00044: TackStateFile \S+state\.json: created \(there was no memory of TACKs served before this start\)/,
     'the first start says there was no memory');
backdate(10);

# ---- a certificate with a new key and no TACK for it: refused ---------------
make_cert($d, 'a', 'ec', 'a.test');
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses: the renewed certificate has no TACK under K1');
my $tack00040 = join '',
    qr/\[tack:error\].*TACK00040: vhost a\.test:$port: /,
    qr/certificate \S+a\.crt would be served without a TACK under key \Q$K1\E: /,
    qr/clients that pinned that key here \(served with pin activation since ${\ day(-10)}T\S+\) /,
    qr/refuse this name until ${\ day(10)}T\S+; /,
    qr/ways out: serve a TACK under \Q$K1\E for this certificate /,
    qr/\(tack sign -k KEY -c CERT into its TackFile or TackStore, or TackSigningKey with that key\), /,
    qr/a break signature for \Q$K1\E \(TackBreakSigsFile\), /,
    qr/or "TackLetPinsLapse \Q$K1\E" to let those pins lapse/;
like($out, qr/$tack00040/,
     '... naming the vhost, the certificate, the key, until when, and the ways out') or diag($out);
like($out, qr/TACK00015: 1 TACK configuration problem/, '... one problem');
($rc, $out) = $h->ctl('configtest');
isnt($rc, 0, 'apache2ctl configtest refuses it too');
($rc, $out) = $h->ctl('graceful');
isnt($rc, 0, 'apache2ctl graceful refuses to restart');
is(served_key(), $K1, '... and the running server still serves K1 for the old certificate');

# a real restart (a signal, a reboot): logged, every site up
my $mark = -s $h->error_log;
ok($h->graceful, 'a graceful restart by signal is not fatal');
my $log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00042: vhost a\.test:$port: ECDSA certificate \/CN=a\.test would be served without a TACK under key \Q$K1\E: .*refuse this name until ${\ day(10)}/,
     'the error is logged, with the same facts');
my $r = probe(port => $port, name => 'a.test', version => '1.2');
ok($r->{ok} && !defined $r->{ext}, 'a.test is up, serving no TACK');
@s = @{ slot() };
ok(@s == 1 && !$s[0]{serving} && $s[0]{tack_id} eq $K1, 'the memory keeps K1, no longer served');
my $st = HTTP::Tiny->new(verify_SSL => 0, timeout => 10)
    ->get("https://127.0.0.1:$port/tack-status?json");
my ($va) = grep { $_->{name} eq "a.test:$port" }
    @{ (eval { decode_json($st->{content}) } // {})->{vhosts} // [] };
my ($pc) = grep { $_->{kind} eq 'pin_continuity' } @{ $va->{problems} // [] };
ok($pc && $pc->{severity} eq 'error' && $pc->{message} =~ /without a TACK under key \Q$K1\E/,
   'the status page (JSON) shows it as an error of a.test') or diag($st->{content});
my $until = $s[0]{pins_until};
ok($until > time + 9 * 86400 && $until < time + 11 * 86400, '... pins counted until about 10 days from now');
log_clean($mark, [qr/TACK00042|TACK00074/], $h->error_log);

# ---- way out 1: a TACK under K1 for the new certificate -----------------------
store_only(a2 => tack_bytes(key => "$d/k1.key", cert => "$d/a.crt"));
($rc, $out) = $h->configtest;
is($rc, 0, 'a TACK under K1 for the new certificate: Syntax OK') or diag($out);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful');
is(served_key(), $K1, 'K1 is served again');
ok(slot()->[0]{serving}, '... and remembered as served');
unlike(log_since($mark, $h->error_log), qr/TACK0004[02]/, '... no guard message');

# ---- a change of TACK key: K1's pins break the same -----------------------------
store_only(a3 => tack_bytes(key => "$d/k2.key", cert => "$d/a.crt"));
($rc, $out) = $h->configtest;
isnt($rc, 0, 'a new TACK key K2 in place of K1: refused');
like($out, qr/TACK00040: vhost a\.test:$port: certificate \S+ would be served without a TACK under key \Q$K1\E/,
     '... K1 is named');

# ---- way out 2: TackLetPinsLapse records the decision ------------------------------
conf("    TackLetPinsLapse $K1");
($rc, $out) = $h->configtest;
is($rc, 0, "TackLetPinsLapse $K1: Syntax OK") or diag($out);
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with K2 and the decision');
is(served_key(), $K2, 'K2 is served');
@s = @{ slot() };
is(join(',', map { $_->{tack_id} } @s), $K2, 'the memory forgot K1 and holds K2');
unlike(log_since($mark, $h->error_log), qr/TACK0004[02]/, '... no guard message');
($rc, $out) = $h->configtest;
is($rc, 0, 'later configurations pass') or diag($out);
conf();
($rc, $out) = $h->configtest;
is($rc, 0, '... even without the directive: the memory no longer holds K1') or diag($out);

# ---- way out 3: a break signature for the key ---------------------------------------
backdate(10);
store_only();
($rc, $out) = $h->configtest;
isnt($rc, 0, 'serving nothing after K2 was pinned: refused');
like($out, qr/TACK00040: .*without a TACK under key \Q$K2\E/, '... naming K2');
write_file("$d/k2.break.pem", tackpy_pem('TACK BREAK SIG', breaksig_bytes("$d/k2.key")));
conf("    TackBreakSigsFile \@ROOT\@/k2.break.pem");
($rc, $out) = $h->configtest;
is($rc, 0, 'with a break signature for K2: Syntax OK') or diag($out);

# ---- expiry: a warning under -t, an error at the start ------------------------------
# The TACK last served under K2 (as the memory holds it) has expired, and so
# has the one in the store: only time ran out.
conf();
my $expired = tack_bytes(key => "$d/k2.key", cert => "$d/a.crt",
                         expiration => TackHelpers::minutes_from_now(-60));
store_only(a4 => $expired);
my $j = memory();
$_->{tack} = unpack('H*', $expired) for @{ $j->{slots}{"a.test:$port ECDSA"} };
write_file($state, encode_json($j));
($rc, $out) = $h->configtest;
is($rc, 0, 'apache2 -t does not refuse for an expired TACK (a condition of time)') or diag($out);
like($out, qr/\[tack:warn\].*TACK00041: vhost a\.test:$port: certificate \S+a\.crt: its TACK under key \Q$K2\E expired at \S+; clients that pinned that key here .*refuse this name until ${\ day(10)}/,
     '... it warns, naming the key and until when');
$mark = -s $h->error_log;
ok($h->graceful, 'graceful');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00042: vhost a\.test:$port: ECDSA certificate \/CN=a\.test would be served without a TACK under key \Q$K2\E, whose TACK expired at \S+: /,
     'at the start it is an error, saying the TACK expired');
log_clean($mark, [qr/TACK00042|TACK00018/], $h->error_log);

# ---- the memory file ------------------------------------------------------------------
# configtest_within($secs): apache2 -t that may not hang (a FIFO would block
# its open() forever before the fix): exit 124 when it had to be killed.
sub configtest_within {
    my ($secs) = @_;
    my $httpd = $ENV{APACHE2} || '/usr/sbin/apache2';
    my $out = qx{timeout $secs $httpd -f ${\ $h->conf_file} -t 2>&1};
    return ($? >> 8, $out);
}
write_file($state, "{ not json hunter2");
store_only(a5 => tack_bytes(key => "$d/k2.key", cert => "$d/a.crt"));
($rc, $out) = $h->configtest;
is($rc, 0, 'a corrupt memory file does not refuse the configuration') or diag($out);
like($out, qr/\[tack:warn\].*TACK00047: TackStateFile \S+state\.json: not a version 1 state file \(not JSON: line 1, column \d+\); starting with no memory of TACKs served before; the file is left as it is/,
     '... it says so, with the position');
unlike($out, qr/hunter2|not json/, '... and quotes nothing of the file');
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with it');
$log = log_since($mark, $h->error_log);
my @lines = $log =~ /(TACK00047)/g;
is(scalar(@lines), 1, '... said once');
is(TackHelpers::read_file($state), "{ not json hunter2",
   '... and the file is left as it is, never overwritten (it may be the only record of the pins)');
log_clean($mark, [qr/TACK00047/], $h->error_log);
unlink $state;
$mark = -s $h->error_log;
ok($h->graceful, 'graceful once it is moved away');
like(log_since($mark, $h->error_log), qr/TACK00044: TackStateFile \S+state\.json: created/, '... a new one is created');
@s = @{ slot() };
ok(@s == 1 && $s[0]{tack_id} eq $K2 && $s[0]{serving}, '... remembering K2');
is(sprintf('%o', (stat $state)[2] & 07777), '644', 'the memory file is mode 0644');
my @tmp = grep { $_ ne "$state.lock" && $_ ne "$state.verified" }
    glob("$state.* $d/var/tack/.state.json.*");
is(scalar(@tmp), 0, 'no temporary file left beside it (its lock file, STATEFILE.lock, and the verified signatures, STATEFILE.verified, stay)');
my $good = TackHelpers::read_file($state);

# its directory: root's alone, or refused under -t and warned at a start
chmod 0777, "$d/var/tack";
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses a state directory everyone can write');
like($out, qr/\[tack:error\].*TACK00069: TackStateFile \S+state\.json: its directory is writable by everyone: chmod go-w \S+var\/tack \(whoever can write it can replace the memory of pins clients hold\)/,
     '... with the fix');
$mark = -s $h->error_log;
ok($h->graceful, 'a graceful restart with it is not refused');
like(log_since($mark, $h->error_log), qr/\[tack:warn\].*TACK00070: TackStateFile \S+state\.json: its directory is writable by everyone/,
     '... and warns');
log_clean($mark, [qr/TACK00070/], $h->error_log);
chmod 0755, "$d/var/tack";

# a FIFO in its place: never opened (it would block apache2 -t and the
# parent's start forever), named, left alone
unlink $state;
system('mkfifo', $state) == 0 or die "mkfifo: $!";
($rc, $out) = configtest_within(20);
isnt($rc, 124, 'apache2 -t with a FIFO as TackStateFile does not hang');
like($out, qr/\[tack:warn\].*TACK00045: TackStateFile \S+state\.json: cannot be read \(not a regular file\); starting with no memory/,
     '... it says the file is not a regular file');
$mark = -s $h->error_log;
ok($h->graceful, 'a graceful restart with it completes');
ok(-p $state, '... and leaves the FIFO in place');
log_clean($mark, [qr/TACK00045/], $h->error_log);

# a symbolic link to a root-only file: not followed, nothing quoted
unlink $state;
write_file("$d/secret", "hunter2\n");
chmod 0600, "$d/secret";
symlink("$d/secret", $state) or die "symlink: $!";
($rc, $out) = $h->configtest;
like($out, qr/TACK00045: TackStateFile \S+state\.json: cannot be read \(a symbolic link, not followed \(name the file itself\)\)/,
     'a symbolic link as TackStateFile is not followed');
unlike($out, qr/hunter2/, '... and nothing of the file it points to is quoted');
unlink $state;

# a malformed entry costs that entry alone
$j = decode_json($good);
$j->{slots}{"x.test:$port ECDSA"} = [{ key => 'zz', first_seen => 1 }];
$j->{slots}{"\x01hunter2"} = 'nope';
write_file($state, encode_json($j));
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with two malformed entries beside a good one');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:warn\].*TACK00048: TackStateFile \S+state\.json: entry (\(a name that is not a vhost's\)|"x\.test:$port ECDSA") is malformed; it is left out \(the pins it remembered are forgotten\), the other entries are kept/,
     'the first malformed entry is named (the one that is not a vhost\'s name is not quoted)');
like($log, qr/TACK00063: TackStateFile \S+state\.json: 2 malformed entries left out in all, 1 kept/,
     '... and the count');
unlike($log, qr/hunter2/, '... nothing of a bad name is quoted');
@s = @{ slot() };
ok(@s == 1 && $s[0]{tack_id} eq $K2, 'a.test\'s entry is kept');
ok(!exists memory()->{slots}{"x.test:$port ECDSA"}, 'the malformed ones are gone from the file');
log_clean($mark, [qr/TACK00048|TACK00063/], $h->error_log);

# ---- a memory dated ten years ahead (issue 36, item 5) -----------------
# One start with the clock far ahead (FAKETIME=+3650d, a board without a
# real-time clock, an NTP mistake) writes the memory at that time: K2, first
# served 10 days ago, last served ten years from now.  Before: the guard
# judged pins at the file's time, where K2's TACK had long expired, so a
# key change passed apache2 -t with warnings only (TACK00064, TACK00041),
# and the memory stayed frozen for ten years.  Now: pins are judged at the
# clock, the key change is refused as before, and an error says how to
# recover.
my $TOOL = top_dir() . '/tack';
my $ahead = time + 3650 * 86400;
$j = memory();
$j->{written} = $ahead;
for my $k (map { @$_ } values %{ $j->{slots} }) {
    $k->{first_seen} = time - 10 * 86400;
    $k->{last_served} = $ahead;
    $k->{serving} = JSON::PP::true;
}
write_file($state, encode_json($j));
my $before = TackHelpers::read_file($state);
store_only(a6 => tack_bytes(key => "$d/k1.key", cert => "$d/a.crt"));
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t with a memory dated ten years ahead still refuses the key change K2 -> K1');
like($out, qr/\[tack:error\].*TACK00040: vhost a\.test:$port: .* without a TACK under key \Q$K2\E: .*refuse this name until ${\ day(10)}T/,
     '... judging K2\'s pins at the clock (10 days of serving: 10 more days)') or diag($out);
unlike($out, qr/TACK00041/, '... not as an expiry: K2\'s TACK has not expired at the clock');
like($out, qr/\[tack:error\].*TACK00064: TackStateFile \S+state\.json: it holds a time \(\S+\) later than the clock \(\S+\); pins are judged at the clock, .*if the clock is wrong, set it \(NTP\) and restart; if it is right \(the file was written while the clock ran ahead\), run "tack state --redate \S+state\.json" and restart/,
     '... and an error names the file, the times and how to recover');
$mark = -s $h->error_log;
ok($h->graceful, 'a real start with it');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00064: TackStateFile \S+state\.json: it holds a time/, '... logs the error');
like($log, qr/\[tack:error\].*TACK00042: vhost a\.test:$port: .* under key \Q$K2\E/,
     '... and K2\'s pins as broken, judged at the clock');
is(TackHelpers::read_file($state), $before, '... the memory is left unchanged (the clock could be the wrong one)');
log_clean($mark, [qr/TACK00064|TACK00042|TACK00074/], $h->error_log);
my $tool_out = `$TOOL state $state 2>&1`;
is($? >> 8, 1, 'tack state: exit status 1 for a file ahead of the clock');
like($tool_out, qr/\Q$K2\E  first seen ${\ day(-10)}T\S+, last served \S+ \(serving\), pins until ${\ day(10)}T/,
     '... listing K2 with its pins judged at the clock') or diag($tool_out);
# --redate takes the lock a starting httpd writes the file under: with it
# held by another writer for 2 seconds, it waits, then writes
my $locker = fork // die "fork: $!";
if (!$locker) {
    # the lock file, as httpd makes it: root's, mode 0600
    sysopen(my $dh, "$state.lock", Fcntl::O_RDWR() | Fcntl::O_CREAT(), 0600)
        or POSIX::_exit(1);
    flock($dh, LOCK_EX) or POSIX::_exit(1);
    sleep 2;
    POSIX::_exit(0);
}
Time::HiRes::sleep(0.3);
my $t_redate = Time::HiRes::time();
$tool_out = `$TOOL state --redate $state 2>&1`;
is($?, 0, 'tack state --redate') or diag($tool_out);
my $waited = Time::HiRes::time() - $t_redate;
ok($waited > 1.2,
   sprintf('... after the other writer let go of the lock (waited %.1f s)', $waited));
waitpid($locker, 0);
like($tool_out, qr/\Q$state\E: dated back from \S+ to the clock \(\S+\): 1 key counted as served until now/,
     '... says what it did');
my $m = memory();
ok($m->{written} <= time && $m->{slots}{"a.test:$port ECDSA"}[0]{last_served} <= time,
   '... nothing in the file is later than the clock any more');
($rc, $out) = $h->configtest;
isnt($rc, 0, 'after it, apache2 -t still refuses the key change');
like($out, qr/TACK00040: .* under key \Q$K2\E: .*refuse this name until ${\ day(10)}T/, '... K2 still pinned for 10 days');
unlike($out, qr/TACK00064/, '... and no longer says the file is ahead');
$mark = -s $h->error_log;
ok($h->graceful, 'a real start after it');
isnt(TackHelpers::read_file($state), $before, '... updates the memory again');
log_clean($mark, [qr/TACK00042|TACK00074/], $h->error_log);
write_file($state, $good);

# ---- the memory is keyed by what clients reach, not by spelling -------------
# a.test served K2 with pin activation 10 days ago; its TACK is gone.  Each
# edit below leaves the same clients reaching the same vhost: each is refused
# as the plain ServerName a.test is (before: a warning and Syntax OK).
backdate(10);
store_only();
for my $case (['ServerName A.TEST', 'A.TEST'],
              ['ServerName a.test.', 'a.test.'],
              ["ServerName www.a.test\n    ServerAlias a.test", "www.a.test"],
              ['ServerName a.test:443', 'a.test']) {
    my ($lines, $vname) = @$case;
    conf('', $lines);
    ($rc, $out) = $h->configtest;
    (my $say = $lines) =~ s/\n\s*/ + /;
    isnt($rc, 0, "apache2 -t refuses dropping K2 with '$say'");
    like($out, qr/TACK00040: vhost \Q$vname\E:\d+ \(as a\.test:$port\): .* without a TACK under key \Q$K2\E/,
         '... naming the vhost and the name clients reach it as')
        or diag($out);
}
like($out, qr/TACK00040: vhost a\.test:443 \(as a\.test:$port\)/,
     'a ServerName port that is not the listening port: judged by the port clients reach');
write_file($state, $good);

# ---- a TACK file broken between apache2 -t and the restart: the TACK it
# served is served again from the memory, with an error ------------------------
store_only();
my $own = tack_bytes(key => "$d/k2.key", cert => "$d/a.crt");
write_file("$d/own.pem", tackpy_pem('TACK', $own));
conf("    TackFile \@ROOT\@/own.pem");
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with a TackFile under K2');
is(served_key(), $K2, '... served');
backdate(10);
write_file("$d/own.pem", "-----BEGIN TACK-----\ngarbage\n-----END TACK-----\n");
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses the broken file, as always');
$mark = -s $h->error_log;
ok($h->graceful, 'a restart by signal with the broken file');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00049: vhost a\.test:$port: TackFile \S+own\.pem cannot be loaded \(.*\); for ECDSA certificate \/CN=a\.test, whose clients may have pinned key \Q$K2\E, the TACK served before is served again from TackStateFile \S+state\.json \(it expires \S+\): fix the file, or remove the directive to stop serving it/,
     'the error says what is served instead, and how to stop it');
$r = probe(port => $port, name => 'a.test', version => '1.2');
is(unpack('H*', substr($r->{ext} // '', 1, 166)), unpack('H*', $own),
   'the pinned clients still get the same TACK, byte for byte');
unlike($log, qr/TACK00042/, '... so the guard has nothing to report');
is(tack_source('a.test'), 'TackStateFile', 'the status JSON says where it comes from: "source": "TackStateFile"');
log_clean($mark, [qr/TACK00049|TACK00011|TACK00012/], $h->error_log);

# ---- a TACK dropped into the store does not displace the pinned signing key
# (issue 25): TackSigningKey SK signs a.test's TACK, served with pin
# activation for 10 days; then someone who can write the store replaces
# that file with a TACK under another key.  Before: apache2 -t said Syntax OK
# (it assumed the start would sign under SK) and the start served the
# planted key with pin activation.
my $sk_out = `$TOOL genkey -p skpw -o $d/sk.key 2>&1`;
is($?, 0, 'a TACK key for TackSigningKey') or diag($sk_out);
my ($SK) = `$TOOL view $d/sk.key` =~ /TACK ID\s+=\s+(\S+)/;
write_file("$d/sk.pw", "skpw\n");
chmod 0600, "$d/sk.pw";
store_only();
my $k2_memory = TackHelpers::read_file($state);
unlink $state;
conf("    TackSigningKey \@ROOT\@/sk.key\n    TackSigningPassword file:\@ROOT\@/sk.pw");
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with TackSigningKey for a.test');
is(served_key(), $SK, '... a.test serves a TACK signed under it');
is(tack_source('a.test'), 'TackSigningKey', '... "source": "TackSigningKey" in the status JSON (signed at this start)');
backdate(10);
my ($signed) = glob("$d/store/a.test.*.tack.pem");
ok($signed, '... written into the store');
log_clean($mark, [qr/TACK00044/], $h->error_log);
write_file($signed, tackpy_pem('TACK', tack_bytes(key => "$d/k1.key", cert => "$d/a.crt")));
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses a store TACK under another key for a certificate whose clients pinned the signing key');
like($out, qr/TACK00040: vhost a\.test:$port: .* without a TACK under key \Q$SK\E/,
     '... naming the pinned key') or diag($out);
$mark = -s $h->error_log;
ok($h->graceful, 'a restart by signal all the same');
is(served_key(), $SK, '... serves a TACK under the pinned key, not the planted one');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00067: vhost a\.test:$port: TackStore \Q$signed\E holds a TACK for ECDSA certificate \/CN=a\.test under key \Q$K1\E, but clients pinned TackSigningKey's key \Q$SK\E here \(until \S+\): serving a TACK under \Q$SK\E, signed now and kept in memory, instead/,
     '... and says so, naming the file');
unlike($log, qr/TACK00042/, '... so no pin is broken');
log_clean($mark, [qr/TACK00067/], $h->error_log);
chown 65534, 65534, $signed;
($rc, $out) = $h->configtest;
like($out, qr/\[tack:error\].*TACK00065: TackStore \Q$signed\E: owned by nobody \(uid 65534\), not by root/,
     'a store file owned by another user: refused under -t, named');
store_only();
conf();
write_file($state, $k2_memory);

# ---- a pinned vhost removed from the configuration: a warning --------------
$h->write_conf(<<"C");
TackStateFile \@ROOT\@/var/tack/state.json
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName b.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/b.crt
    SSLCertificateKeyFile \@ROOT\@/b.key
</VirtualHost>
C
($rc, $out) = $h->configtest;
is($rc, 0, 'removing the pinned vhost a.test is not refused (a decision)') or diag($out);
like($out, qr/\[tack:warn\].*TACK00043: vhost a\.test:$port \(ECDSA certificate\) is no longer configured; it served TACK key \Q$K2\E with pin activation, and clients that pinned it refuse the name until ${\ day(10)}\S+ wherever it now leads/,
     '... but warned about, with the key and until when');

# syntax of the decision
conf("    TackLetPinsLapse not-a-tack-id");
($rc, $out) = $h->configtest;
isnt($rc, 0, 'TackLetPinsLapse with something else than a TACK ID is refused');
like($out, qr/TackLetPinsLapse not-a-tack-id: not a TACK ID/, '... saying so');
$h->write_conf("<VirtualHost 127.0.0.1:\@PORT\@>\n    TackStateFile /tmp/x.json\n</VirtualHost>\n");
($rc, $out) = $h->configtest;
isnt($rc, 0, 'TackStateFile in a virtual host is refused');
like($out, qr/TackStateFile cannot occur within <VirtualHost> section/, '... by httpd');

$h->stop;
