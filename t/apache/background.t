# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TackSigningKey's background (issue 28): a start or restart waits for a
# signing key that cannot be used at most TackSigningWait seconds; what it
# leaves unsigned is signed by the background, tried again every
# TackSigningRetry seconds, and served as soon as it is signed -- through
# shared memory, with no restart, signal or command from outside.  The
# status page, its JSON and the metrics show what waits, since when, and
# the last error.  "The signing host is down" is a password program that
# fails until a file exists (the fleet test, fleet.t, does it with a real
# remote token).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use HTTP::Tiny;
use JSON::PP;
use Time::HiRes qw(time sleep);
use TackTest;
use TackHelpers qw(make_cert write_file store_name);

plan tests => 101;

my $TACK = top_dir() . '/tack';
my $h = TackTest::Httpd->new('background');
my $d = $h->root;
my $port = $h->port;
my $state = "$d/var/state.json";

my $out = `$TACK genkey -p sekrit -o $d/sign.key 2>&1`;
die "genkey: $out" if $?;
my ($key_id) = `$TACK view $d/sign.key` =~ /TACK ID\s+=\s+(\S+)/;
make_cert($d, 'a', 'ec', 'a.test');
make_cert($d, 'b', 'ec', 'b.test');
mkdir "$d/store";
# the "signing host": answers while $d/up exists
write_file("$d/ask", "#!/bin/sh\n[ -e $d/up ] || { echo 'signing host down' >&2; exit 2; }\necho sekrit\n");
chmod 0700, "$d/ask";

$h->write_conf(<<"C", loglevel => 'info tack:debug');
LoadModule md_module $PrivateHttpd::MODDIR/mod_md.so
MDStoreDir \@ROOT\@/md
TackSigningKey \@ROOT\@/sign.key
TackSigningPassword exec:\@ROOT\@/ask
TackSigningWait 2
TackSigningRetry 2
TackStore \@ROOT\@/store
TackStateFile \@ROOT\@/var/state.json
<Location /tack-status>
    SetHandler tack-status
</Location>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
    TackPinActivation on
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName b.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/b.crt
    SSLCertificateKeyFile \@ROOT\@/b.key
</VirtualHost>
C

sub served_key { my $t = served_tack($port, $_[0]); $t ? $t->{id} : undef }
sub status {
    my ($q) = @_;
    my $r = HTTP::Tiny->new(verify_SSL => 0, timeout => 10)
        ->get("https://127.0.0.1:$port/tack-status?$q");
    return $r->{content} // '';
}
sub json { eval { decode_json(status('json')) } // {} }
sub vhost_json {
    my ($j, $name) = @_;
    my ($v) = grep { $_->{name} eq "$name:$port" } @{ $j->{vhosts} // [] };
    return $v // {};
}
# wait_served($name, $secs): seconds until $name serves a TACK under the
# signing key, or undef
sub wait_served {
    my ($name, $secs) = @_;
    my $t0 = time;
    while (time - $t0 < $secs) {
        my $k = served_key($name);
        return time - $t0 if $k && $k eq $key_id;
        sleep 0.1;
    }
    return undef;
}
sub parent_pid { (`cat $d/logs/httpd.pid` =~ /(\d+)/)[0] }

# ---- the signing host is down at the start ---------------------------------
my $t0 = time;
my ($rc, $o) = $h->start;
is($rc, 0, 'httpd starts while the signing key cannot be used') or diag($o);
ok(time - $t0 < 10, sprintf('... at once: the start waits at most TackSigningWait (took %.1f s)', time - $t0));
my $log = log_since(0, $h->error_log);
like($log, qr/\[tack:error\].*TACK00030: TackSigningPassword exec:\S+ask .*exited with status 2 .*the start does not wait for it: every certificate without a TACK is served without one until the background signs it \(tried again every 2 seconds\)/,
     'the start says the key cannot be used and that the background will try again');
sleep 0.5;
$log = log_since(0, $h->error_log);
like($log, qr/\[tack:error\].*TACK00076: TackSigningPassword exec:\S+ask .*exited with status 2.*tried again every 2 seconds/,
     'the background says so too, once');
like($log, qr/signing host down/, 'the program\'s own message reaches the error log');
ok(!defined served_key('a.test'), 'a.test is up and serves no TACK meanwhile');
my $j = json();
is($j->{signing}{waiting}, 2, 'the status JSON: 2 certificates wait for a signature');
ok($j->{signing}{waiting_since}, '... since a time it gives');
like($j->{signing}{last_error} // '', qr/exited with status 2/, '... and the last error');
my ($p) = grep { $_->{kind} eq 'waiting_signature' } @{ vhost_json($j, 'a.test')->{problems} // [] };
ok($p, 'a.test has a "waiting_signature" problem');
is($p->{severity}, 'error', '... an error while the key cannot be used');
like($p->{message} // '', qr/waits for its TACK from TackSigningKey \S+sign\.key since \S+ \(.*\), served without one until then: .*exited with status 2/,
     '... saying since when and why');
my $m = status('metrics');
like($m, qr/^tack_signing_waiting_certificates 2$/m, 'the metrics: tack_signing_waiting_certificates 2');
like($m, qr/^tack_signing_last_error_timestamp_seconds [1-9]\d+$/m, '... and when the key last failed');
like($m, qr/^tack_vhost_problems\{vhost="a\.test:$port",kind="waiting_signature"\} 1$/m,
     '... and the problem by kind');
unlike(status(''), qr/>no TACK</, 'the page says the certificate waits, not just "no TACK"');
like(status(''), qr/no TACK: waits for TackSigningKey/, '... it says what it waits for');

# a graceful restart while they wait: since when is the process's to keep
# (the module is unloaded and loaded again at every restart)
my $since = $j->{signing}{waiting_since};
sleep 1.2;
ok($h->graceful, 'a graceful restart while the certificates wait');
my $since2;
for (1 .. 50) {
    $since2 = json()->{signing}{waiting_since};
    last if $since2;
    sleep 0.1;
}
is($since2, $since, '... they wait since the same time, not since the restart');

# ---- the signing host comes back: served without a restart -----------------
my $t1;
my $pid = parent_pid();
my $mark = -s $h->error_log;
write_file("$d/up", '');
my $took = wait_served('a.test', 15);
ok(defined $took, 'a.test is served a TACK under the signing key once the host answers again');
diag(sprintf('served %.1f s after the signing host came back (TackSigningRetry 2)', $took // -1));
ok(defined $took && $took < 8, '... within TackSigningRetry and the signing');
is(served_key('b.test'), $key_id, '... b.test too');
my @ok = grep { ($_ // '') eq $key_id } map { served_key('a.test') } 1 .. 6;
is(scalar(@ok), 6, '... on every new connection (every child process reads it)');
is(parent_pid(), $pid, '... by the same httpd parent');
$log = log_since($mark, $h->error_log);
unlike($log, qr/AH00493|AH00489|resuming normal operations/, '... with no restart of any kind');
like($log, qr/\[tack:info\].*TACK00077: the background signed 2 TACKs in [\d.]+ seconds \(2 written to a TackStore, 0 kept in memory only\)/,
     'the background says it is done');
my $fa = "$d/store/" . store_name("$d/a.crt", 'a.test', 'ecdsa');
ok(-f $fa, 'the TACK is in the store, under its certificate\'s name');
$j = json();
is($j->{signing}{waiting}, 0, 'the status JSON: nothing waits');
ok(!defined $j->{signing}{last_error}, '... and no error now');
my $ta = vhost_json($j, 'a.test')->{certificates}[0]{tacks}[0] // {};
is($ta->{key}, $key_id, '... a.test\'s TACK is listed');
is($ta->{source}, 'TackSigningKey', '... "source": "TackSigningKey"');
is($ta->{file}, $fa, '... with its store file');
ok(!grep({ $_->{kind} eq 'waiting_signature' } @{ vhost_json($j, 'a.test')->{problems} // [] }),
   '... and no problem left');
like(status('metrics'), qr/^tack_signing_waiting_certificates 0$/m, 'the metrics: 0 waiting');
log_clean($mark, [], $h->error_log);

# ---- a pinned name renewed while the host is down ----------------------------
# a.test has served the key with pin activation "for 10 days"
$mark = -s $h->error_log;
ok($h->graceful, 'graceful: the store serves both');
my $mem = decode_json(scalar `cat $state`);
$_->{first_seen} -= 10 * 86400 for map { @$_ } values %{ $mem->{slots} };
write_file($state, encode_json($mem));
unlink "$d/up";
make_cert($d, 'a', 'ec', 'a.test');
$mark = -s $h->error_log;
ok($h->graceful, 'graceful with a renewed a.test (new key) while the host is down');
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00080: vhost a\.test:$port: ECDSA certificate \/CN=a\.test waits for its TACK from the background \(TackSigningPassword exec:\S+ask .*exited with status 2.*\); clients that pinned key \Q$key_id\E here \(until \S+\) refuse this name until it is signed/,
     'the start names the pinned name left waiting, and what it means for its clients');
unlike($log, qr/TACK00042/, '... which the guard does not report a second time');
unlike($log, qr/TACK00074/, '... nor "serves no TACK"');
ok(!defined served_key('a.test'), 'a.test serves no TACK while the host is down');
is(served_key('b.test'), $key_id, 'b.test keeps its TACK from the store');
write_file("$d/up", '');
$took = wait_served('a.test', 15);
ok(defined $took, 'the renewed certificate is served its TACK once the host answers again');
my $r = probe(port => $port, name => 'a.test', version => '1.2');
is(unpack('H*', substr($r->{ext} // '', 1 + 70, 32)), unpack('H*', TackHelpers::spki_hash("$d/a.crt")),
   '... for its new key');
log_clean($mark, [qr/TACK00030|TACK00076|TACK00080/], $h->error_log);

# ---- apache2 -t says what it can know --------------------------------------
# a signing host that does not answer is its condition, not a mistake in
# the configuration: warned about within TackSigningWait, never refused
my $conf_text = TackHelpers::slurp($h->conf_file);
write_file("$d/ask-hang", "#!/bin/sh\nexec sleep 60\n");
chmod 0700, "$d/ask-hang";
(my $hang = $conf_text) =~ s{exec:\S+/ask$}{exec:$d/ask-hang}m;
write_file($h->conf_file, $hang);
$t1 = time;
($rc, $o) = $h->run_httpd('-t');
is($rc, 0, 'apache2 -t accepts a configuration whose signing key does not answer now') or diag($o);
ok(time - $t1 < 8, sprintf('... within TackSigningWait (took %.1f s)', time - $t1));
like($o, qr/\[tack:warn\].*TACK00083: TackSigningKey \S+sign\.key: no answer within 2 seconds, the time a restart waits for signing \(TackSigningWait\).*the key cannot be used now; the configuration is accepted, and a start waits for it at most 2 seconds/,
     '... and says so, promising no signature');
write_file($h->conf_file, $conf_text);

# ---- mod_md's staged certificates are signed ahead ---------------------------
# (a renewal mod_md staged: its TACK is in the store before the restart
# that activates it, which then signs nothing)
mkdir "$d/md/staging";
mkdir "$d/md/staging/a.test";
make_cert("$d/md/staging/a.test", 'pubcert', 'ec', 'a.test');
my $fs = "$d/store/" . store_name("$d/md/staging/a.test/pubcert.crt", 'a.test', 'ecdsa');
rename "$d/md/staging/a.test/pubcert.crt", "$d/md/staging/a.test/pubcert.pem";
$mark = -s $h->error_log;
$t1 = time;
sleep 0.1 until -f $fs || time - $t1 > 10;
ok(-f $fs, sprintf('a certificate mod_md staged gets its TACK in the store, before any restart (%.1f s)', time - $t1));
like(log_since($mark, $h->error_log), qr/\[tack:info\].*TACK00081: vhost a\.test:$port: signed ahead for \S+staging\/a\.test\/pubcert\.pem: its TACK is in the store when a restart activates it/,
     '... said at info');
unlink "$d/md/staging/a.test/pubcert.pem";

# ---- a stop ends the background, even while it waits ------------------------
unlink "$d/up";
make_cert($d, 'b', 'ec', 'b.test');
ok($h->graceful, 'graceful with a renewed b.test while the host is down');
# Only this server's processes: another mod_tack server on the machine (a
# production apache2, another suite's) has a tack-signing of its own.
my $parent = parent_pid();
my @bg = grep { /^\s*\d+\s+\d+ tack-signing$/ } `ps -o pid=,ppid=,comm= --ppid $parent`;
my ($bgpid) = map { /^\s*(\d+)/ } @bg;
ok($bgpid, 'the background process (tack-signing in ps) is the httpd parent\'s, waiting');
$h->stop;
sleep 0.5;
my $left = $bgpid ? `ps -o stat=,comm= -p $bgpid` : '';
ok($bgpid && $left !~ /^\s*[^Z\s]\S*\s+tack-signing/, 'no background process is left after the stop')
    or diag($left);

# ---- a background that dies is replaced (issue 36, item 3) -------------------
# The OOM killer or a crash: kill -9 of tack-signing.  The parent says so,
# with the signal, and starts a new one with what still waits, which signs
# once the host answers: within TackSigningRetry, with no restart.
# bg_pids(): this server's tack-signing processes (children of its parent)
sub bg_pids {
    my $parent = parent_pid() or return ();
    return map { /^\s*(\d+)\s+\d+ tack-signing$/ ? $1 : () }
        `ps -o pid=,ppid=,comm= --ppid $parent`;
}
# ours(): the live processes of this server, by its root in their
# arguments (httpd's own, the signers': they are httpd's copies; the
# password program's: the key's path) -- never every process of the machine
sub ours {
    return grep { !/^\s*\d+\s+Z/ && /\Q$d\E\// }
        `ps -eo pid=,stat=,comm=,args=`;
}
unlink "$d/up";
make_cert($d, 'a', 'ec', 'a.test');
make_cert($d, 'b', 'ec', 'b.test');
$mark = -s $h->error_log;
($rc, $o) = $h->start;
is($rc, 0, 'started again with two renewed certificates while the host is down') or diag($o);
$t1 = time;
my @was = bg_pids();
sleep 0.1 until @was || time - $t1 > 20;
@was = bg_pids() unless @was;
is(scalar(@was), 1, 'one background process waits for the host');
kill 'KILL', grep { $_ > 0 } @was;
$was[0] //= 0;
$t1 = time;
my @now;
while (time - $t1 < 5) {
    @now = grep { $_ != $was[0] } bg_pids();
    last if @now && log_since($mark, $h->error_log) =~ /TACK00090/;
    sleep 0.1;
}
$log = log_since($mark, $h->error_log);
like($log, qr/\[tack:error\].*TACK00090: the background signing process \(tack-signing, pid $was[0]\) was killed by signal 9 \(Killed\) before its work was done; 2 certificates still wait for a TACK, and mod_md's staged renewals for theirs: a new one starts now/,
     'the parent says the background was killed, with the signal, and what still waits')
    or diag($log);
is(scalar(@now), 1, sprintf('... and a new background runs (%.1f s after the kill)', time - $t1));
write_file("$d/up", '');
$took = wait_served('a.test', 15);
ok(defined $took && $took < 8, sprintf('the new background signs once the host answers, within TackSigningRetry (%.1f s)', $took // -1));
is(served_key('b.test'), $key_id, '... b.test too');
# a crash loop: each successor waits longer before its first round
@was = bg_pids();
$was[0] //= 0;
$mark = -s $h->error_log;
kill 'KILL', grep { $_ > 0 } @was;
$t1 = time;
sleep 0.1 until log_since($mark, $h->error_log) =~ /TACK00090/ || time - $t1 > 20;
like(log_since($mark, $h->error_log), qr/TACK00090: .*pid $was[0]\) was killed by signal 9 \(Killed\) before its work was done; 0 certificates still wait for a TACK, and mod_md's staged renewals for theirs: a new one starts in 2 seconds \(2 ends in a row, each within 7200 seconds of the end of its wait: waiting longer each time, up to 3600 seconds, TackSigningRetry's ceiling\)/,
     'killed again soon after: its successor waits TackSigningRetry first (a back-off)');
log_clean(0, [qr/TACK0003[08]|TACK00076|TACK00080|TACK00090/], $h->error_log);

# ---- a stop leaves no process behind, whatever the signer was doing ----------
# A password program that hangs (as a frozen token would): the background's
# signer waits for it (30 s).  Killing the background ends its signer and
# the program with it; a stop then leaves no process of this server.
write_file("$d/ask-hang2", "#!/usr/bin/perl\nsleep 60;\n");
chmod 0700, "$d/ask-hang2";
($hang = $conf_text) =~ s{exec:\S+/ask$}{exec:$d/ask-hang2}m;
write_file($h->conf_file, $hang);
make_cert($d, 'a', 'ec', 'a.test');
ok($h->graceful, 'graceful with a renewed a.test and a password program that hangs');
$t1 = time;
sleep 0.1 until grep({ /ask-hang2/ } ours()) || time - $t1 > 10;
my @prog = grep { /ask-hang2/ } ours();
is(scalar(@prog), 1, 'the background\'s signer runs the program, which hangs') or diag(ours());
@was = bg_pids();
kill 'KILL', grep { $_ > 0 } @was;
$t1 = time;
sleep 0.1 while grep({ $_ eq ($prog[0] // '') } ours()) && time - $t1 < 5;
ok(@prog && !grep({ $_ eq $prog[0] } ours()), sprintf('the background killed: its signer and the program end with it (%.1f s)', time - $t1))
    or diag(ours());
sleep 0.5; # the new background's signer starts the program again
$h->stop;
sleep 0.5;
my @left = ours();
ok(!@left, 'the stop leaves no process of this server (httpd, background, signer, program)')
    or diag(@left);

# ---- TackSigningWait 0: everything is the background's, and no error says
# otherwise (issue 36, item 8); the debug trace names the TACK it serves --
(my $nowait = $conf_text) =~ s/^TackSigningWait 2$/TackSigningWait 0/m;
write_file($h->conf_file, $nowait);
write_file("$d/up", '');
make_cert($d, 'a', 'ec', 'a.test');
($rc, $o) = $h->configtest;
is($rc, 0, 'apache2 -t accepts TackSigningWait 0, and checks the key') or diag($o);
unlike($o, qr/TACK000(30|33|83)/, '... with no complaint about the wait');
$mark = -s $h->error_log;
($rc, $o) = $h->start;
is($rc, 0, 'started with TackSigningWait 0') or diag($o);
$took = wait_served('a.test', 10);
ok(defined $took, sprintf('a.test is signed by the background (%.1f s)', $took // -1));
$log = log_since($mark, $h->error_log);
unlike($log, qr/TACK00030|spent by another key's signer/, '... and no TACK00030 "spent by another key\'s signer" error at the start')
    or diag($log =~ /(.*TACK00030.*)/);
like($log, qr/TACK00054: vhost a\.test:$port: TLSv1\.[23]: TACK requested; ECDSA certificate \S+: TACK key \Q$key_id\E \(signed in the background\) \(1 live\)/,
     'the debug trace of a handshake names the TACK sent from the shared table, not "no TACK"');
# (a.test's pins: its renewal waits, which TACK00080 rightly calls an error)
log_clean($mark, [qr/TACK00080: .*TackSigningWait 0/], $h->error_log);
$h->stop;

# ---- a crash loop backs off to TackSigningRetry's ceiling and stays there
# (issue 45, item 5): each successor's life is counted from the end of its
# wait, not from its fork; with a ceiling of 4 s a background that dies
# within 8 s of its first round is still a crash loop, and its successor
# waits 1, 2, 4, 4 ... seconds -- not "now" again once a wait was long.
(my $bad = $conf_text) =~ s/^TackSigningRetry 2$/TackSigningRetry 60 30/m;
write_file($h->conf_file, $bad);
($rc, $o) = $h->configtest;
isnt($rc, 0, 'apache2 -t refuses TackSigningRetry 60 30');
like($o, qr/TackSigningRetry 60 30: the ceiling \(30 seconds\), the longest the background's successor waits, is below the first wait \(60 seconds\): give a ceiling from 60 to 86400, or none \(3600\)/,
     '... saying the ceiling is below the first wait') or diag($o);
# the signing host is down; the program notes when each round runs it
# (when, and for which background: its signer's parent)
write_file("$d/ask-note", "#!/bin/sh\necho \$(date +%s.%N) \$(cut -d' ' -f4 /proc/\$PPID/stat) >> $d/rounds\n"
    . "echo 'signing host down' >&2\nexit 2\n");
chmod 0700, "$d/ask-note";
(my $loop = $conf_text) =~ s/^TackSigningRetry 2$/TackSigningRetry 1 4/m;
$loop =~ s/^TackSigningWait 2$/TackSigningWait 0/m;
$loop =~ s{exec:\S+/ask$}{exec:$d/ask-note}m;
write_file($h->conf_file, $loop);
unlink "$d/up", "$d/rounds";
make_cert($d, 'a', 'ec', 'a.test');
($rc, $o) = $h->configtest;
unlike($o, qr/TackSigningRetry/, 'apache2 -t takes TackSigningRetry 1 4 without a word (it refuses the pinned a.test left unsigned, TACK00040)') or diag($o);
$mark = -s $h->error_log;
($rc, $o) = $h->start;
is($rc, 0, 'started with TackSigningRetry 1 4, a renewed a.test and the host down') or diag($o);
# rounds(): when the password program ran, and for which background
# ([time, pid] each)
sub rounds {
    open(my $fh, '<', "$d/rounds") or return ();
    return map { /^([\d.]+) (\d+)$/ ? [$1, $2] : () } <$fh>;
}
# kill_bg($live): once the background has run its first round, waits $live
# more seconds, kills it and returns (the wait its successor is given, in
# the TACK00090 line, in seconds, or undef; the seconds from the kill to
# the successor's first round, or undef)
sub kill_bg {
    my ($live) = @_;
    my $t = time;
    my @bg;
    sleep 0.05 until (@bg = bg_pids()) && rounds() || time - $t > 20;
    return (undef, undef) unless @bg;
    sleep $live if $live;
    my $m = -s $h->error_log;
    my $n = () = rounds();
    my $k = time;
    kill 'KILL', @bg;
    sleep 0.05 until log_since($m, $h->error_log) =~ /TACK00090.*pid $bg[0]\b/ || time - $k > 10;
    my ($said) = log_since($m, $h->error_log) =~ /TACK00090: .*pid $bg[0]\) .*: a new one starts (now|in \d+ seconds)/;
    return (undef, undef) unless defined $said;
    $said = $said eq 'now' ? 0 : ($said =~ /(\d+)/)[0];
    my @r;
    my $next = sub { grep { $_->[1] != $bg[0] } splice(@{ [rounds()] }, $n) };
    sleep 0.05 until (@r = $next->()) || time - $k > $said + 10;
    return ($said, @r ? $r[0][0] - $k : undef);
}
my (@said, @took);
for my $i (1 .. 6) {
    my ($said, $took) = kill_bg(0);
    push @said, $said // 'none';
    push @took, $took;
}
is("@said", '0 1 2 4 4 4', 'each background killed after its first round: its successor starts now, then waits 1, 2, 4, 4, 4 seconds (TackSigningRetry 1 4)')
    or diag(log_since($mark, $h->error_log));
for my $i (0 .. 5) {
    my $w = $said[$i] =~ /^\d+$/ ? $said[$i] : -99;
    ok(defined $took[$i] && $took[$i] >= $w - 0.1 && $took[$i] < $w + 2.5,
       sprintf('... and waits that long: killed %d, it ran its first round %.1f s later (said %s)',
               $i + 1, $took[$i] // -1, $said[$i]));
}
like(log_since($mark, $h->error_log), qr/TACK00090: .*a new one starts in 4 seconds \(6 ends in a row, each within 8 seconds of the end of its wait: waiting longer each time, up to 4 seconds, TackSigningRetry's ceiling\)/,
     'the line says how many ends, within what window, and the ceiling');
# 9 s from its fork, 5 s from the end of its wait: still the crash loop
my $said;
($said, $took) = kill_bg(5);
is($said, 4, 'a successor that dies 5 s after its 4-second wait is still in the loop: the next waits 4 seconds, not 0')
    or diag(log_since($mark, $h->error_log));
ok(defined $took && $took >= 3.9, sprintf('... and does (%.1f s)', $took // -1));
# past twice the ceiling after its wait: not a loop any more
($said, $took) = kill_bg(9);
is($said, 0, 'one that ran 9 s (over twice the ceiling) after its wait is replaced at once');
ok(defined $took && $took < 2.5, sprintf('... and its successor runs at once (%.1f s)', $took // -1));
log_clean($mark, [qr/TACK00076|TACK00080|TACK00090/], $h->error_log);
$h->stop;

# ---- a password program's daemon ends with it (issue 45, item 4) --------------
# A program that starts a grandchild in a session of its own (setsid: out
# of its process group, which was all that was killed) and then prints the
# password: before, each run left a root "sleep 300" behind, past a stop.
write_file("$d/ask-daemon", "#!/bin/sh\nsetsid sleep 300 &\necho \$! >>$d/daemon-pids\necho sekrit\n");
chmod 0700, "$d/ask-daemon";
write_file("$d/ask-daemon-fail", "#!/bin/sh\nsetsid sleep 300 &\necho \$! >>$d/daemon-pids\nexit 3\n");
chmod 0700, "$d/ask-daemon-fail";
unlink "$d/daemon-pids";
# daemons(): [the grandchildren started so far, those still running]
sub daemons {
    my @pids = split /\s+/, TackHelpers::read_file("$d/daemon-pids") // '';
    my @alive = grep {
        (TackHelpers::read_file("/proc/$_/cmdline") // '') =~ /^sleep\x00300\x00/
    } @pids;
    return (scalar(@pids), scalar(@alive));
}
(my $daemon = $conf_text) =~ s{exec:\S+/ask$}{exec:$d/ask-daemon}m;
write_file($h->conf_file, $daemon);
make_cert($d, 'a', 'ec', 'a.test');
make_cert($d, 'b', 'ec', 'b.test');
($rc, $o) = $h->start;
is($rc, 0, 'started with a password program that leaves a setsid daemon') or diag($o);
$took = wait_served('a.test', 10);
ok(defined $took, sprintf('... the password arrives as printed: a.test is signed (%.1f s)', $took // -1));
sleep 0.3;
my ($started, $alive) = daemons();
ok($started >= 1, "... the program ran and started its daemon ($started)");
is($alive, 0, '... which is ended with it');
for my $i (1 .. 3) {
    my ($n0) = daemons();
    make_cert($d, 'a', 'ec', 'a.test');
    ok($h->graceful, "graceful $i with a renewed a.test (signed again)");
    my $t2 = time;
    sleep 0.3 until (daemons())[0] > $n0 || time - $t2 > 10;
}
$took = wait_served('a.test', 10);
ok(defined $took, '... still signed after three gracefuls');
sleep 0.3;
my $before_stop;
($before_stop, $alive) = daemons();
ok($before_stop > $started, "... the program ran at each ($before_stop daemons started in all)");
$h->stop;
sleep 0.5;
is((daemons())[1], 0, '... and not one of its daemons runs after the gracefuls and the stop');
# the program's exit status is still the one reported
write_file($h->conf_file, $daemon =~ s{/ask-daemon$}{/ask-daemon-fail}mr);
($rc, $o) = $h->configtest;
like($o, qr/TACK00033: TackSigningPassword exec:\S+ask-daemon-fail .*exited with status 3/,
     'a program that fails: apache2 -t reports its exit status') or diag($o);
is((daemons())[1], 0, '... and its daemon is ended too');
