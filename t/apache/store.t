# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TackStore: one directory of TACKs signed with "tack sign -c CERTDIR -o
# STORE" serves every SSL vhost by target_hash, with no per-vhost directive.
# TACK_STORE_VHOSTS vhosts (200 by default; "make test-store-scale" runs
# 10,000) behind one server-level TackStore, plus vhosts for the rules:
# explicit TackFile lines win, "TackStore none" and a per-vhost store
# override, server-level break signatures go with store TACKs, draft-02
# pairs from two store files.  Then the rules for bad files: a malformed
# file fails apache2 -t with its path and is skipped with an error at a real
# restart; an expired one is skipped with a warning in both modes; a TACK
# for no certificate is reported at debug level only.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use File::Path qw(make_path);
use Time::HiRes qw(time);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem write_file
    minutes_from_now spki_hash fingerprint key_public);

my $N = $ENV{TACK_STORE_VHOSTS} || 200;
my $tool = top_dir() . '/tack';
my $gencerts = top_dir() . '/build/gencerts';
my $pw = 'store-pw';

plan tests => 52;

my $h = TackTest::Httpd->new('store');
$h->{timeout} = 10 + $N / 50; # mod_ssl alone needs 20-40 s at 10,000
my $d = $h->root;
make_path("$d/certs", "$d/store", "$d/other-store", "$d/extra");


# ---- the fleet: N certificates, one TACK key, one command ------------------
my $t0 = time;
if (-x $gencerts) {
    TackHelpers::must_run("$gencerts -n $N -o $d/certs --prefix s --domain store.test");
}
else {
    for my $i (1 .. $N) {
        my $name = sprintf('s%05d.store.test', $i);
        make_cert("$d/certs", $name, 'ec', $name);
    }
}
my @names = map { sprintf('s%05d.store.test', $_) } 1 .. $N;
TackHelpers::must_run("$tool genkey -p $pw -o $d/fleet.key");
TackHelpers::must_run("$tool sign -k $d/fleet.key -p $pw -c $d/certs -o $d/store -e 90d"
    . ' --no-progress');
my @signed = glob("$d/store/*.tack.pem");
is(scalar @signed, $N, "tack sign wrote $N TACK files into the store");
# Each under the TackStore's name of its certificate
# (HOST.KEYTYPE.SPKI8.tack.pem, tack_cert_store_name).
my %file = map { my $n = $_; ($n => (map { s{.*/}{}r }
                                     glob("$d/store/$n.ecdsa.*.tack.pem"))[0])
               } @names;
is(scalar(grep { defined $file{$_} } @names), $N,
   '... each named HOST.ecdsa.SPKI8.tack.pem');
diag(sprintf('fleet of %d made in %.1f s', $N, time - $t0)) if $N > 1000;

# ---- vhosts that exercise the rules ----------------------------------------
make_cert("$d/extra", $_, 'ec', $_)
    for qw(explicit.test none.test own.test pair.test dup.test expired.test
           unused.test bad.test);
make_key("$d/extra/$_.key") for qw(k1 k2 kb);
my $x = sub { tack_bytes(key => "$d/extra/$_[0].key", cert => "$d/extra/$_[1].crt",
    @_[2 .. $#_]) };
my %t = (
    explicit_store => $x->('k1', 'explicit.test'),
    explicit_file  => $x->('k2', 'explicit.test'),
    none           => $x->('k1', 'none.test'),
    own            => $x->('k2', 'own.test'),
    own_main       => $x->('k1', 'own.test'),
    pair1          => $x->('k1', 'pair.test'),
    pair2          => $x->('k2', 'pair.test'),
    dup            => $x->('k1', 'dup.test'),
    unused         => $x->('k1', 'unused.test'),
);
write_file("$d/store/explicit.test.tack.pem", tackpy_pem('TACK', $t{explicit_store}));
write_file("$d/explicit.pem", tackpy_pem('TACK', $t{explicit_file}));
write_file("$d/store/none.test.tack.pem", tackpy_pem('TACK', $t{none}));
write_file("$d/store/own.test.tack.pem", tackpy_pem('TACK', $t{own_main}));
write_file("$d/other-store/own.test.tack.pem", tackpy_pem('TACK', $t{own}));
write_file("$d/store/pair-a.tack.pem", tackpy_pem('TACK', $t{pair1}));
write_file("$d/store/pair-b.tack.pem", tackpy_pem('TACK', $t{pair2}));
# the same TACK twice (one certificate in two files): served once, quietly
write_file("$d/store/dup-1.tack.pem", tackpy_pem('TACK', $t{dup}));
write_file("$d/store/dup-2.tack.pem", tackpy_pem('TACK', $t{dup}));
# a TACK no vhost has the certificate of
write_file("$d/store/unused.tack.pem", tackpy_pem('TACK', $t{unused}));
# names the store does not read
write_file("$d/store/README", "not a TACK\n");
write_file("$d/store/.hidden.tack.pem", "not a TACK either\n");
write_file("$d/store/notes.pem", "-----BEGIN TACK-----\nAAAA\n");
my $breaks = breaksig_bytes("$d/extra/kb.key");
write_file("$d/breaks.pem", tackpy_pem('TACK BREAK SIG', $breaks));

sub vh {
    my ($name, $certdir, $body) = @_;
    return "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName $name\n"
        . "    SSLEngine on\n    SSLCertificateFile $certdir/$name.crt\n"
        . "    SSLCertificateKeyFile $certdir/$name.key\n"
        . ($body ? "    $body\n" : '') . "</VirtualHost>\n";
}

# Server-level break signatures go to every vhost with its store TACK;
# pair.test (draft-02, which has no break signatures) leaves them out.
my $conf = "TackStore \@ROOT\@/store/\nTackBreakSigsFile \@ROOT\@/breaks.pem\n"
    . join('', map { vh($_, '@ROOT@/certs') } @names)
    . vh('explicit.test', '@ROOT@/extra', 'TackFile @ROOT@/explicit.pem')
    . vh('none.test', '@ROOT@/extra', 'TackStore none')
    . vh('own.test', '@ROOT@/extra', 'TackStore @ROOT@/other-store')
    . vh('pair.test', '@ROOT@/extra', 'TackFormat draft-02')
    . vh('dup.test', '@ROOT@/extra')
    . vh('expired.test', '@ROOT@/extra')
    . vh('bad.test', '@ROOT@/extra');
$h->write_conf($conf);

sub tk { (TackHelpers::pem_blocks($_[0], 'TACK'))[0] }

# ---- apache2 -t, then a real start ------------------------------------------
$t0 = time;
my ($rc, $out) = $h->configtest;
my $t_test = time - $t0;
is($rc, 0, "apache2 -t passes with $N store vhosts") or diag($out);
like($out, qr/Syntax OK/, 'Syntax OK');
unlike($out, qr/\[tack:(?:warn|error)\](?!.*TACK00074)/, 'and says nothing about the store');
is(join(' ', sort($out =~ /TACK00074: vhost (\S+?):/g)), 'bad.test expired.test none.test',
   '... only that the vhosts whose store file is missing or unusable serve no TACK');

$t0 = time;
($rc, $out) = $h->start;
my $t_start = time - $t0;
is($rc, 0, 'a real start') or diag($out);
ok($h->alive, 'running');
diag(sprintf('%d vhosts: apache2 -t %.2f s, start %.2f s', $N, $t_test, $t_start));
my $limit = 10 + $N / 100;
ok($t_test < $limit && $t_start < $limit,
    "apache2 -t and start each take less than $limit s");

my $log = log_since(0, $h->error_log);
like($log, qr/TACK00022: TackStore \S+\/store \(\S+:\d+\): ${\($N + 8)} TACK files loaded, 0 malformed, 0 expired, 1 duplicate, 4 unused/,
    'the store reports what it loaded, once');
like($log, qr/\[tack:debug\].*TACK00021: TackStore \S+\/unused\.tack\.pem: target_hash of TACK \(key \S+\) matches no certificate/,
    'a TACK matching no certificate: debug level only');
like($log, qr/TACK00022: TackStore \S+\/other-store \(\S+:\d+\): 1 TACK file loaded, 0 malformed, 0 expired, 0 duplicates, 0 unused/,
    'a second store, named in one vhost');
like($log, qr/\[tack:info\].*TACK00023: vhost pair\.test:\d+: TackFormat draft-02 has no break signatures: the 1 inherited from \S+breaks\.pem/,
    'a draft-02 vhost leaves inherited break signatures out, at info level');
unlike($log, qr/TACK0002[01].*store\/(?:README|notes\.pem|\.hidden)/,
    'README, notes.pem and dot files are not read');

# every fleet vhost serves its TACK and the server's break signature
$t0 = time;
my $got = probe_batch(port => $h->port, names => \@names, version => '1.2');
my @bad = grep {
    !defined $got->{$_}
        || $got->{$_} ne body00(tk("$d/store/$file{$_}"), [$breaks], 0)
} @names;
ok(!@bad, "all $N fleet vhosts serve their own store TACK and the break signature")
    or diag(scalar(@bad) . " wrong, e.g. @bad[0 .. ($#bad < 4 ? $#bad : 4)]");
diag(sprintf('%d handshakes checked in %.1f s', $N, time - $t0)) if $N > 1000;
like($log, qr/TACK00056: vhost $names[-1]:\d+: serving TACK \S+\/store\/\Q$file{$names[-1]}\E \(TackStore, key/,
    'the start-up log names the store file');

my $get = sub {
    my $r = probe(port => $h->port, name => $_[0], version => '1.2');
    return hex($r->{ext});
};
is($get->('explicit.test'), hex(body00($t{explicit_file}, [$breaks], 0)),
    'an explicit TackFile wins over the store');
is($get->('none.test'), hex(body00(undef, [$breaks], 0)),
    'TackStore none: no TACK from the store (the break signature still)');
is($get->('own.test'), hex(body00($t{own}, [$breaks], 0)),
    'a vhost-level TackStore replaces the server one');
is($get->('pair.test'), hex(body02([$t{pair1}, $t{pair2}], 0)),
    'draft-02: two store TACKs (two keys) for one certificate, a pair');
is($get->('dup.test'), hex(body00($t{dup}, [$breaks], 0)),
    'a TACK found twice in the store is served once');

log_clean(0, [qr/TACK00074: vhost (?:bad|expired|none)\.test/], $h->error_log);

# ---- an expired TACK: a warning in both modes, never a refusal -------------
write_file("$d/store/expired.test.tack.pem",
    tackpy_pem('TACK', $x->('k1', 'expired.test', expiration => minutes_from_now(-10))));
($rc, $out) = $h->ctl('configtest');
is($rc, 0, 'apache2ctl configtest passes with an expired store TACK') or diag($out);
like($out, qr/\[tack:warn\].*TACK00018: TackStore \S+\/expired\.test\.tack\.pem: TACK \(key \S+\) expired at \S+; skipped/,
    'and warns with its path');
my $mark = log_mark($h->error_log);
($rc, $out) = $h->ctl('graceful');
is($rc, 0, 'apache2ctl graceful passes too') or diag($out);
ok($h->wait_ready($mark), 'new generation running');
like(log_since($mark, $h->error_log),
    qr/\[tack:warn\].*TACK00018: TackStore \S+\/expired\.test\.tack\.pem: .*expired at \S+; skipped/,
    'a real restart warns the same way');
is($get->('expired.test'), hex(body00(undef, [$breaks], 0)),
    'the expired TACK is not served');
is($get->($names[0]), hex(body00(tk("$d/store/$file{$names[0]}"), [$breaks], 0)),
    'the rest is');

# ---- re-signing: one fleet command, one graceful restart -------------------
TackHelpers::must_run("$tool genkey -p $pw -o $d/fleet2.key");
TackHelpers::must_run("$tool sign -k $d/fleet2.key -p $pw -c $d/certs/$names[0].crt -o $d/store/$file{$names[0]} -e 90d -f");
$mark = log_mark($h->error_log);
($rc, $out) = $h->ctl('graceful');
is($rc, 0, 'graceful after re-signing one TACK') or diag($out);
ok($h->wait_ready($mark), 'new generation running');
my $new = tk("$d/store/$file{$names[0]}");
is($get->($names[0]), hex(body00($new, [$breaks], 0)), 'the new TACK is served');

# ---- a malformed file: apache2 -t fails with its path; a signal survives --
my $corrupt = $x->('k1', 'bad.test', corrupt => 1);
write_file("$d/store/bad.test.tack.pem", tackpy_pem('TACK', $corrupt));
write_file("$d/store/short.tack.pem", tackpy_pem('TACK', substr($corrupt, 0, 100)));
($rc, $out) = $h->ctl('configtest');
isnt($rc, 0, 'apache2ctl configtest fails on a malformed store file');
like($out, qr/TACK00017: TackStore \S+\/store\/bad\.test\.tack\.pem: TACK: signature does not verify/,
    'naming the file and the reason');
like($out, qr/TACK00017: TackStore \S+\/store\/short\.tack\.pem: line \d+: wrong length/,
    'every malformed file is listed');
like($out, qr/TACK00015: 2 TACK configuration problems/, 'and counted');
($rc, $out) = $h->ctl('graceful');
isnt($rc, 0, 'apache2ctl graceful refuses it');
ok($h->alive, 'the running server is untouched');
$mark = log_mark($h->error_log);
ok($h->graceful, 'a graceful restart by signal (no configuration test) survives');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00017: TackStore \S+\/bad\.test\.tack\.pem: TACK: signature does not verify \(TackStore at \S+:\d+\); this file is skipped/,
    'and logs the malformed file as an error');
is($get->('bad.test'), hex(body00(undef, [$breaks], 0)),
    'the malformed file is not served');
is($get->($names[-1]), hex(body00(tk("$d/store/$file{$names[-1]}"), [$breaks], 0)),
    'every other vhost still is');

# ---- symbolic links: never followed -----------------------------------------
# Whoever can write in the store could point a link anywhere: httpd's parent,
# as root, opened the target before looking at it, so a link to /proc/kmsg
# hung a graceful restart for good (the parent blocked in read(), every
# handshake timed out, SIGTERM no longer stopped it).  A link is now refused
# like a malformed file, its target never opened.
unlink("$d/store/bad.test.tack.pem", "$d/store/short.tack.pem");
make_path("$d/elsewhere");
write_file("$d/elsewhere/bad.test.pem", tackpy_pem('TACK', $x->('k1', 'bad.test')));
symlink("$d/elsewhere/bad.test.pem", "$d/store/bad.test.tack.pem")
    or die "symlink: $!";
symlink('/proc/kmsg', "$d/store/kmsg.tack.pem") or die "symlink: $!";
($rc, $out) = $h->ctl('configtest');
isnt($rc, 0, 'apache2ctl configtest fails on a symbolic link in the store');
like($out, qr/TACK00017: TackStore \S+\/store\/bad\.test\.tack\.pem: a symbolic link, not followed \(a TackStore serves the regular files in it; name a file kept elsewhere with TackFile\)/,
    'naming the link and what to do instead');
like($out, qr/TACK00017: TackStore \S+\/store\/kmsg\.tack\.pem: a symbolic link, not followed/,
    'a link to /proc/kmsg is refused without being read');
$mark = log_mark($h->error_log);
my $t_sig = time;
ok($h->graceful, 'a graceful restart by signal with both links in the store serves');
cmp_ok(time - $t_sig, '<', 10, 'within a bounded time');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00017: TackStore \S+\/kmsg\.tack\.pem: a symbolic link, not followed .*; this file is skipped/,
    'and logs the link as an error');
is($get->('bad.test'), hex(body00(undef, [$breaks], 0)),
    'the TACK behind the link is not served');
is($get->($names[0]), hex(body00(tk("$d/store/$file{$names[0]}"), [$breaks], 0)),
    'every other vhost still is');
unlink("$d/store/bad.test.tack.pem", "$d/store/kmsg.tack.pem");

# ---- a directory that cannot be read ---------------------------------------
$h->write_conf("TackStore \@ROOT\@/missing\n" . vh('dup.test', '@ROOT@/extra'));
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t fails for a missing store directory');
like($out, qr{TackStore (\S+/missing): no such directory: make it, root's and writable by root only \(install -d -m 755 \1\), or correct the path},
     'and says so, and what to do');

$h->stop;
