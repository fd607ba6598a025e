# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# A PIN the token refused is not sent again (issue 36, item 4): smart cards
# and PIV tokens lock after 3 wrong PINs, and in the fleet recipe one token
# serves every server.  Whatever its source -- exec:, env:, a pin-source in
# the URI -- a refused PIN is tried once, not at every TackSigningRetry,
# restart and apache2 -t, until the PIN or the configuration changes; an
# empty PIN is refused before any login, naming its source, by the module
# and the tool.  The token is SoftHSM2 behind p11spy.c, a module that
# writes down each C_Login (SoftHSM2 has no counter of wrong PINs to read).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Time::HiRes qw(time sleep);
use TackTest;
use TackHelpers qw(make_cert write_file);
use POSIX ();
use Digest::SHA qw(hmac_sha256_hex);

plan tests => 61;

my $softhsm = '/usr/lib/softhsm/libsofthsm2.so';
BAIL_OUT('softhsm2 / opensc missing: run make deps')
    unless -e $softhsm && -x '/usr/bin/pkcs11-tool';
my $TACK = top_dir() . '/tack';
my $h = TackTest::Httpd->new('pin');
my $d = $h->root;
mkdir "$d/tokens";
write_file("$d/softhsm2.conf", "directories.tokendir = $d/tokens\n"
    . "objectstore.backend = file\nlog.level = ERROR\n");
$ENV{SOFTHSM2_CONF} = "$d/softhsm2.conf";
TackHelpers::must_run("softhsm2-util --init-token --free --label pin --pin 1234 --so-pin 5678 2>&1");
TackHelpers::must_run("pkcs11-tool --module $softhsm --login --pin 1234 --keypairgen"
    . " --key-type EC:prime256v1 --label tackkey --id 01 2>&1");
TackHelpers::must_run("cc -O2 -shared -fPIC -DSPY_MODULE='\"$softhsm\"'"
    . " -DSPY_LOG='\"$d/logins\"' -o $d/p11spy.so $FindBin::Bin/p11spy.c -ldl");
my $uri = "pkcs11:token=pin;object=tackkey;type=private?module-path=$d/p11spy.so";

# logins(): the C_Logins the token was sent; wrong(): those it refused
sub logins { open my $fh, '<', "$d/logins" or return (); grep { /^C_Login / } <$fh> }
sub wrong { scalar grep { !/ rv=0x0$/ } logins() }

make_cert($d, 'a', 'ec', 'a.test');
write_file("$d/pin-prog", "#!/bin/sh\ncat $d/pin-value\n");
chmod 0700, "$d/pin-prog";
write_file("$d/pin-value", "x9w7q-wrong\n");
my $vhost = <<'V';
<VirtualHost 127.0.0.1:@PORT@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile @ROOT@/a.crt
    SSLCertificateKeyFile @ROOT@/a.key
</VirtualHost>
V
sub conf {
    my ($key, $pw) = @_;
    $h->write_conf("TackSigningKey \"$key\"\n"
        . ($pw ? "TackSigningPassword $pw\n" : '')
        . "TackSigningWait 2\nTackSigningRetry 1\n$vhost");
}

# ---- exec: a wrong PIN, retried every second, a graceful, an apache2 -t --
conf($uri, "exec:\@ROOT\@/pin-prog");
my $mark = $h->log_mark;
my ($rc, $out) = $h->start;
is($rc, 0, 'httpd starts with a wrong PIN from exec: (TackSigningRetry 1)') or diag($out);
sleep 5;
ok($h->graceful, 'a graceful restart');
sleep 3;
($rc, $out) = $h->configtest;
like($out, qr/TACK00033: TackSigningKey \Q$uri\E: the token refused this PIN \(from TackSigningPassword exec:\S+pin-prog\) at the last attempt, and neither the PIN nor the configuration has changed since: not tried again \(a token locks itself after a few wrong PINs\)/,
     'apache2 -t: the refused PIN is not tried again, and it says why') or diag($out);
is(wrong(), 1, 'one wrong PIN sent to the token in 8 s of retries, a graceful and a -t (before: one a second)')
    or diag(logins());
my $log = $h->log_since($mark);
like($log, qr/TACK00030: TackSigningKey \Q$uri\E: wrong PIN \(login refused: CKR_PIN_INCORRECT\)/,
     'the start says the token refused it');
like($log, qr/TACK00076: TackSigningKey \Q$uri\E: the token refused this PIN .*not tried again/,
     '... and the background that it does not try it again');
unlike($log, qr/x9w7q-wrong/, "the error log never has the PIN");
my $mem = TackHelpers::read_file("$d/logs/tack-state.json.pin-refused") // "";
unlike($mem, qr/x9w7q-wrong/, 'the memory of refused PINs holds no PIN') or diag($mem);
like($mem, qr/"\Q$uri\E": "hmac-sha256:[0-9a-f]{64} key:[0-9a-f]{16} source:[0-9a-f]{64}"/,
     '... a keyed hash of it, the name of its key and a hash of its source') or diag($mem);
is(((stat "$d/logs/tack-state.json.pin-refused")[2] // 0) & 07777, 0600, '... readable by root only');
is(((stat "$d/logs/tack-state.json.pin-key")[2] // 0) & 07777, 0600, '... and so is its key');
# the source changes: the right PIN is tried, and used
write_file("$d/pin-value", "1234\n");
my $t0 = time;
my $ok;
while (time - $t0 < 10) {
    my $t = served_tack($h->port, 'a.test');
    last if $ok = $t;
    sleep 0.2;
}
ok($ok, sprintf('the program prints the right PIN: signed and served by the background (%.1f s)', time - $t0));
is(wrong(), 1, '... still one wrong PIN in all');

# ---- env: the same, across a restart ------------------------------------------
$h->stop;
$ENV{TACK_TEST_PIN} = '9998';
conf($uri, 'env:TACK_TEST_PIN');
($rc, $out) = $h->start;
is($rc, 0, 'restarted with a wrong PIN from env:') or diag($out);
sleep 3;
($rc, $out) = $h->configtest;
like($out, qr/not tried again/, 'apache2 -t does not try it again');
$h->stop;
($rc, $out) = $h->start;
sleep 2;
is(wrong(), 2, 'one more wrong PIN: across 5 s of retries, a -t and another start');
$h->stop;
delete $ENV{TACK_TEST_PIN};

# ---- a pin-source in the URI ----------------------------------------------------
write_file("$d/pinfile", "9997\n");
chmod 0600, "$d/pinfile";
my $src_uri = "$uri&pin-source=file:$d/pinfile";
conf($src_uri);
($rc, $out) = $h->configtest;
like($out, qr/wrong PIN/, 'a wrong PIN in the URI\'s pin-source: refused by the token');
($rc, $out) = $h->configtest;
like($out, qr/the token refused this PIN \(from the URI's pin-source\) .*not tried again/,
     '... and not sent again at the next apache2 -t') or diag($out);
is(wrong(), 3, '... one wrong PIN');

# ---- an empty PIN: refused before any login ---------------------------------------
my $n = logins();
write_file("$d/empty", '');
chmod 0600, "$d/empty";
my $empty_uri = "$uri&pin-source=file:$d/empty";
conf($empty_uri);
($rc, $out) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses an empty pin-source');
like($out, qr/TACK00033: TackSigningKey \Q$empty_uri\E: pin-source \Q$d\E\/empty: the PIN is empty \(an empty first line\); not sent to the token/,
     '... naming the source') or diag($out);
write_file("$d/pin-value", "\n");
conf($uri, "exec:\@ROOT\@/pin-prog");
($rc, $out) = $h->configtest;
like($out, qr/TACK00033: TackSigningKey \Q$uri\E: the PIN is empty; not sent to the token \(PIN from TackSigningPassword exec:\S+pin-prog\)/,
     'an empty PIN from exec: too') or diag($out);
my $tout = `$TACK sign -k '$empty_uri' -c $d/a.crt -o $d/x.tack 2>&1`;
isnt($? >> 8, 0, 'tack sign refuses an empty pin-source');
like($tout, qr/pin-source \Q$d\E\/empty: the PIN is empty/, '... naming it') or diag($tout);
is(scalar(logins()), $n, 'no login was made with an empty PIN');

# ---- an unusable .pin-key (issue 45, item 3) --------------------------------------
# The key of the record of refused PINs, broken in each way it can be:
# before, each made the record unusable, and the PIN was sent at every
# TackSigningRetry (13 wrong logins in 12 s), or (another's, 0644) it was
# taken as it was.  Now it is replaced, logged, and the PIN sent once.
write_file("$d/pin-value", "x9w7q-wrong\n");
conf($uri, "exec:\@ROOT\@/pin-prog");
my $pkey = "$d/logs/tack-state.json.pin-key";
my $pref = "$d/logs/tack-state.json.pin-refused";
my $nobody = (getpwnam('nobody'))[2];
my $key32 = sub { write_file($pkey, 'k' x 32); chmod 0600, $pkey };
my @broken = (
    ['an empty .pin-key', qr/0 bytes, not 32/, sub { write_file($pkey, ''); chmod 0600, $pkey }],
    ['a .pin-key of 31 bytes', qr/31 bytes, not 32/, sub { write_file($pkey, 'k' x 31); chmod 0600, $pkey }],
    ['a FIFO as .pin-key', qr/a FIFO/, sub { POSIX::mkfifo($pkey, 0600) or die "mkfifo: $!" }],
    ['a symbolic link as .pin-key', qr/a symbolic link/, sub {
        write_file("$d/other-key", 'o' x 32); chmod 0600, "$d/other-key";
        symlink("$d/other-key", $pkey) or die "symlink: $!" }],
    ["nobody's .pin-key", qr/owned by uid $nobody, not 0/, sub { $key32->(); chown $nobody, -1, $pkey }],
    ['a .pin-key of mode 0644', qr/mode 0644, not 0600/, sub { $key32->(); chmod 0644, $pkey }],
);
sub break_key { system('rm', '-rf', $pkey, $pref) == 0 or die; $_[0]->() }
for my $b (@broken) {
    my ($form, $what, $make) = @$b;
    break_key($make);
    my $before = wrong();
    my $m = $h->log_mark;
    ($rc, $out) = $h->start;
    sleep 4;
    my (undef, $tout) = $h->configtest;
    $h->stop;
    is(wrong() - $before, 1, "$form: one wrong PIN in 4 s of retries and an apache2 -t (TackSigningRetry 1)")
        or diag(logins());
    like($h->log_since($m), qr/\[tack:error\].*TACK00150: \Q$pkey\E: cannot be used as the key of the PINs a token refused \($what\): replaced by a new key/,
         '... said in the error log, naming what is wrong') or diag($h->log_since($m));
    my @st = lstat $pkey;
    ok(-f _ && $st[7] == 32 && ($st[2] & 07777) == 0600 && $st[4] == 0,
       '... a new key in its place: a regular file, root\'s, 0600, 32 bytes');
}
is(TackHelpers::read_file("$d/other-key"), 'o' x 32, 'the file the link named is left as it was');

# a directory: never removed, and no PIN sent at all
break_key(sub { mkdir $pkey or die });
my $before = wrong();
($rc, $out) = $h->configtest;
isnt($rc, 0, 'a directory as .pin-key: apache2 -t refuses the key');
like($out, qr/TACK00151: \Q$pkey\E: a directory, and no new key could be put in its place \(Is a directory\): no PIN is sent to the token until it is removed/,
     '... saying why no PIN is sent') or diag($out);
like($out, qr/TACK00033: TackSigningKey \Q$uri\E: no PIN is sent to the token \(from TackSigningPassword exec:\S+pin-prog\)/,
     '... for the key');
my $m = $h->log_mark;
($rc, $out) = $h->start;
sleep 4;
$h->stop;
is(wrong(), $before, '... not one login in a start and 4 s of retries');
like($h->log_since($m), qr/\[tack:error\].*TACK00151: \Q$pkey\E: a directory/, '... logged at the start too');
ok(-d $pkey, '... the directory is left there');
rmdir $pkey;

# a PIN refused under a key that is gone: refused until the source changes
($rc, $out) = $h->configtest;
is(wrong(), $before + 1, 'the directory gone: the PIN is sent once, refused');
write_file($pkey, '');
chmod 0600, $pkey;
($rc, $out) = $h->configtest;
like($out, qr/TACK00150: \Q$pkey\E: cannot be used .*\(0 bytes, not 32\)/, 'the key emptied: replaced') or diag($out);
like($out, qr/TACK00033: TackSigningKey \Q$uri\E: the token refused a PIN \(from TackSigningPassword exec:\S+pin-prog\) at the last attempt, and neither its source nor the configuration has changed since: not tried again .*remembered under a key that is gone \(\Q$pkey\E was replaced\).*remove the URI's line from \Q$pref\E/,
     '... the PIN refused under the old key is not sent again, and the message says which file to edit') or diag($out);
($rc, $out) = $h->configtest;
like($out, qr/remembered under a key that is gone/, '... nor at the next apache2 -t');
is(wrong(), $before + 1, '... no login');
write_file("$d/pin-prog2", "#!/bin/sh\ncat $d/pin-value\n");
chmod 0700, "$d/pin-prog2";
conf($uri, "exec:\@ROOT\@/pin-prog2");
($rc, $out) = $h->configtest;
like($out, qr/wrong PIN/, 'another source: the PIN is sent') or diag($out);
($rc, $out) = $h->configtest;
like($out, qr/the token refused this PIN .*not tried again/, '... once');
is(wrong(), $before + 2, '... one wrong PIN');
# an entry of an earlier mod_tack (the HMAC alone), under the current key
my $legacy = 'hmac-sha256:' . hmac_sha256_hex("$uri\0exec:$d/pin-prog2\0\0x9w7q-wrong",
    TackHelpers::read_file($pkey));
write_file($pref, qq({\n "$uri": "$legacy"\n}));
chmod 0600, $pref;
($rc, $out) = $h->configtest;
like($out, qr/the token refused this PIN .*not tried again/, 'an earlier mod_tack\'s entry is still recognised') or diag($out);
is(wrong(), $before + 2, '... no login');
log_clean($mark, [qr/TACK0003[03]|TACK00076|TACK0015[01]/], $h->error_log);
