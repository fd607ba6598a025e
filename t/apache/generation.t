# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Generations only go up (issue 42, items 1, 2 and 4).  A client raises its
# record of a TACK key's min_generation from any TACK it sees, with pin
# activation on or off, and from then on refuses a lower generation under
# that key (certificate_revoked).  So the module remembers, per name and
# key, the highest min_generation it served (the floor, in TackStateFile);
# apache2 -t refuses a TACK below it; a real restart logs it and serves the
# TACK served before where it still vouches for the certificate; and
# TackSigningKey signs at the floor at least.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use JSON::PP;
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes tackpy_pem write_file fingerprint
    key_public store_name);

plan tests => 46;

my $TACK = top_dir() . '/tack';
my $h = TackTest::Httpd->new('generation');
my $d = $h->root;
my $port = $h->port;
my $state = "$d/logs/tack-state.json"; # TackTest::Httpd's TackStateFile
make_cert($d, 'a', 'ec', 'a.test');
make_key("$d/k1.key");
my $K1 = fingerprint(key_public("$d/k1.key"));
mkdir "$d/store";

sub store_only {
    my (%files) = @_;
    unlink glob("$d/store/*.tack.pem");
    write_file("$d/store/$_.tack.pem", tackpy_pem('TACK', $files{$_})) for keys %files;
}
sub conf {
    my ($extra) = @_;
    $h->write_conf(<<"C");
TackStore \@ROOT\@/store
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
@{[ $extra // '' ]}
</VirtualHost>
C
}
sub slot {
    my $j = eval { decode_json(TackHelpers::read_file($state) // '') } // {};
    return $j->{slots}{"a.test:$port ECDSA"} // [];
}
sub served { served_tack($port, 'a.test') // {} }
sub gen_tack {
    my ($min, $gen) = @_;
    return tack_bytes(key => "$d/k1.key", cert => "$d/a.crt",
                      min_generation => $min, generation => $gen);
}

# ---- a TACK at generation 1, pin activation off: its floor is remembered ----
store_only(g1 => gen_tack(1, 1));
conf();
my ($rc, $out) = $h->start;
is($rc, 0, 'started, serving a generation-1 TACK with pin activation off') or diag($out);
is(served()->{gen}, 1, '... generation 1 is served');
my @s = @{ slot() };
is(scalar(@s), 1, 'the state file remembers the key though activation is off');
is($s[0]{tack_id}, $K1, '... K1');
ok(JSON::PP::is_bool($s[0]{activation}) && !$s[0]{activation}, '... as served with activation off');
is($s[0]{min_generation}, 1, '... with its floor, min_generation 1');
ok($s[0]{min_generation_until} > time + 29 * 86400
   && $s[0]{min_generation_until} <= time + 30 * 86400 + 60,
   '... kept 30 days past its last serving');
is($s[0]{pins_until}, 0, '... and no pin counted (activation was never on)');

# ---- generation 0 under the same key: refused by apache2 -t ------------------
store_only(g0 => gen_tack(0, 0));
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses a generation-0 TACK under K1 after generation 1');
like($out, qr/\[tack:error\].*TACK00142: vhost a\.test:$port: certificate \S+a\.crt: its TACK under key \Q$K1\E has generation 0, below min_generation 1, which a TACK under that key served here raised: clients that saw it refuse this one \(certificate_revoked\); sign it again at that generation \(tack sign -g 1, or TackSigningGeneration 1 1\)/,
     '... naming the name, the key, the generation, the floor and the fix') or diag($out);
like($out, qr/TACK00015: 1 TACK configuration problem/, '... one problem');

# ---- a real restart: not fatal; the generation-1 TACK served again -----------
my $mark = log_mark($h->error_log);
ok($h->graceful, 'a graceful restart by signal is not fatal');
my $log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00143: vhost a\.test:$port: ECDSA certificate \/CN=a\.test: the TACK of TackStore \S+g0\.tack\.pem under key \Q$K1\E has generation 0, below min_generation 1, .*the TACK served before, generation 1, is served again from TackStateFile \Q$state\E \(it expires \S+\): sign one at generation 1 \(tack sign -g 1\)/,
     'the error is logged: the TACK served before is served again') or diag($log);
my $t = served();
is($t->{gen}, 1, 'a.test serves generation 1, not the lower one');
is($t->{id}, $K1, '... under K1');
unlike($log, qr/TACK00142/, '... so nothing below the floor is served');
is(slot()->[0]{min_generation}, 1, 'the floor stays 1');
log_clean($mark, [qr/TACK00143/], $h->error_log);

# ---- a renewed certificate with a generation-0 TACK: nothing to serve again --
make_cert($d, 'a', 'ec', 'a.test');
store_only(g0new => gen_tack(0, 0));
($rc, $out) = $h->configtest;
isnt($rc, 0, 'a renewed certificate whose TACK is generation 0: refused by -t');
like($out, qr/TACK00142: vhost a\.test:$port: certificate \S+a\.crt: its TACK under key \Q$K1\E has generation 0, below min_generation 1/,
     '... TACK00142');
$mark = log_mark($h->error_log);
ok($h->graceful, 'a graceful restart is not fatal');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00142: vhost a\.test:$port: ECDSA certificate \/CN=a\.test: its TACK under key \Q$K1\E has generation 0, below min_generation 1/,
     '... logged at error level: the remembered TACK is for the old certificate');
is(served()->{gen}, 0, '... the site is up, serving what it has');
log_clean($mark, [qr/TACK00142/], $h->error_log);

# ---- generation 1 for it: accepted, nothing said ----------------------------
store_only(g1new => gen_tack(1, 1));
($rc, $out) = $h->configtest;
is($rc, 0, 'generation 1 for the renewed certificate: Syntax OK') or diag($out);
$mark = log_mark($h->error_log);
ok($h->graceful, 'graceful');
is(served()->{gen}, 1, '... generation 1 served');
unlike(log_since($mark, $h->error_log), qr/TACK0014[23]/, '... no generation message');
$h->stop;

# ---- TackSigningKey signs at the floor --------------------------------------
my $r = TackHelpers::run_cmd({ merge => 1 }, $TACK, 'genkey', '-p', 'sekrit',
                             '-o', "$d/sign.key");
die "genkey: $r->{out}" if $r->{rc};
my ($KS) = TackHelpers::run_cmd({}, $TACK, 'view', "$d/sign.key")->{out}
    =~ /TACK ID\s+=\s+(\S+)/;
write_file("$d/pw", "sekrit\n");
chmod 0600, "$d/pw";
unlink glob("$d/store/*.tack.pem");
my $signed = "$d/store/" . store_name("$d/a.crt", 'a.test', 'ecdsa');
$r = TackHelpers::run_cmd({ merge => 1 }, $TACK, 'sign', '-k', "$d/sign.key",
                          '-p', 'sekrit', '-m', '2', '-g', '2', '-c', "$d/a.crt",
                          '-o', $signed);
is($r->{rc}, 0, 'a generation-2 TACK under the signing key, in the store') or diag($r->{out});
my $signing = "TackSigningKey \@ROOT\@/sign.key\n    TackSigningPassword file:\@ROOT\@/pw";
conf($signing);
($rc, $out) = $h->start;
is($rc, 0, 'started with TackSigningKey') or diag($out);
is(served()->{gen}, 2, '... serving the generation-2 TACK of the store');
my ($ks) = grep { $_->{tack_id} eq $KS } @{ slot() };
is($ks && $ks->{min_generation}, 2, '... remembered at floor 2, beside K1') or diag(explain(slot()));
$h->stop;
# A renewal: the store has no TACK for the new certificate.
make_cert($d, 'a', 'ec', 'a.test');
($rc, $out) = $h->configtest;
is($rc, 0, 'a renewed certificate, TackSigningGeneration unset: Syntax OK') or diag($out);
like($out, qr/\[tack:warn\].*TACK00146: vhost a\.test:$port: TackSigningGeneration 0 is below min_generation 2, which a TACK under key \Q$KS\E served here raised; TackSigningKey signs at 2 instead \(say TackSigningGeneration 2 2 to make it so\)/,
     '... with a warning that the directive is below the floor') or diag($out);
$mark = log_mark($h->error_log);
($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
my $ok = TackHelpers::wait_until(20, sub { (served()->{spki} // '') ne ''
    && (served()->{gen} // -1) == 2 });
ok($ok, 'the TACK signed for the renewed certificate is served at generation 2');
$t = served();
is($t->{min}, 2, '... min_generation 2');
is($t->{id}, $KS, '... under the signing key');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:info\].*TACK00145: vhost a\.test:$port: TackSigningKey \S+sign\.key signs for ECDSA certificate \/CN=a\.test at generation 2, not 0: a TACK under that key served here raised min_generation to 2/,
     '... and says so once at info') or diag($log);
my @n = $log =~ /TACK00145/g;
is(scalar(@n), 1, '... once');
like($log, qr/TACK00031: vhost a\.test:$port: signed a TACK for ECDSA certificate \/CN=a\.test with TackSigningKey \S+ \(key \Q$KS\E, generation 2,/,
     'TACK00031 says generation 2');
log_clean($mark, [], $h->error_log);
$h->stop;

# ---- a time outside 1970 to 9999 in the state file (issue 42, item 6) -------
my $j = decode_json(TackHelpers::read_file($state));
my ($k1) = grep { $_->{tack_id} eq $K1 } @{ $j->{slots}{"a.test:$port ECDSA"} };
$k1->{last_served} = 253402300800; # 10000-01-01: no pin arithmetic takes it
write_file($state, encode_json($j));
$mark = log_mark($h->error_log);
($rc, $out) = $h->start;
is($rc, 0, 'started with a state file holding the year 10000') or diag($out);
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:warn\].*TACK00144: TackStateFile \Q$state\E: 1 remembered key holds a time outside 1970 to 9999 \(the first: entry "a\.test:$port ECDSA", key \Q$K1\E\); each is counted as pinned for 30 days from now, and the rest of the file is used/,
     '... said once, naming the entry and the key') or diag($log);
like($log, qr/TACK00042: vhost a\.test:$port: ECDSA certificate \/CN=a\.test would be served without a TACK under key \Q$K1\E/,
     '... and K1 is judged as pinned: the guard says the name no longer serves it');
($k1) = grep { $_->{tack_id} eq $K1 } @{ slot() };
ok($k1 && $k1->{pins_until} > time + 29 * 86400 && $k1->{pins_until} <= time + 30 * 86400 + 60,
   '... its pins counted until 30 days from now, the rest of the file kept') or diag(explain(slot()));
$h->stop;
