# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# One TACK key for many servers (issue 28; docs/hosting-guide.md, "One
# TACK key for many servers"), on 127.0.0.1: a signing host (a SoftHSM2
# token in a directory of its own, served by `p11-kit server` on a unix
# socket) and two private httpds, each with its own certificate and
# TackStore, both with TackSigningKey through p11-kit-client.so, only
# P11_KIT_SERVER_ADDRESS in their environment (no SOFTHSM2_CONF: the
# token is not theirs).  Both serve a TACK under the token's key, which
# `tack check` accepts; the key cannot be read through the socket; with
# the signing host down, a graceful restart after a renewal says "cannot
# connect to the token" and the server answers at once.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use File::Path qw(make_path remove_tree);
use POSIX ();
use Time::HiRes qw(time sleep);
use TackTest;
use TackHelpers qw(make_cert store_name fingerprint write_file);

plan tests => 52;

# Nothing here may pass by skipping: make deps installs all of it.
my $softhsm = '/usr/lib/softhsm/libsofthsm2.so';
my ($client) = glob('/usr/lib/*/pkcs11/p11-kit-client.so');
for my $need ('/usr/bin/p11-kit', '/usr/bin/softhsm2-util',
              '/usr/bin/pkcs11-tool', $softhsm, $client // 'p11-kit-client.so') {
    BAIL_OUT("$need not installed: run make deps (p11-kit, p11-kit-modules,"
             . " softhsm2, opensc)") unless -e $need;
}
my $TACK = top_dir() . '/tack';
BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

# ---- the signing host: its token, its key, its p11-kit server -------------
my $sd = t_dir() . '/tmp/fleet-signer';
remove_tree($sd);
make_path("$sd/tokens", "$sd/run");
chmod 0700, "$sd/run";
write_file("$sd/softhsm2.conf", "directories.tokendir = $sd/tokens\n"
           . "objectstore.backend = file\nlog.level = ERROR\n");
my $sock = "$sd/run/p11.sock";
my $server_pid;
{
    local $ENV{SOFTHSM2_CONF} = "$sd/softhsm2.conf";
    TackHelpers::must_run("softhsm2-util --init-token --free --label fleet"
                     . " --pin 1234 --so-pin 5678");
    # A key the token makes: sensitive and never extractable.
    TackHelpers::must_run("pkcs11-tool --module $softhsm --login --pin 1234"
                     . " --keypairgen --key-type EC:prime256v1"
                     . " --label tackkey --id 01");
    TackHelpers::must_run("pkcs11-tool --module $softhsm --read-object"
                     . " --type pubkey --id 01 -o $sd/pub.der");
}
# start_server: the signing host's p11-kit server, on $sock
sub start_server {
    local $ENV{SOFTHSM2_CONF} = "$sd/softhsm2.conf";
    $server_pid = fork();
    die "fork: $!" unless defined $server_pid;
    if ($server_pid == 0) {
        open(STDIN, '<', '/dev/null');
        open(STDOUT, '>>', "$sd/p11-kit.out");
        open(STDERR, '>&', \*STDOUT);
        $ENV{XDG_RUNTIME_DIR} = "$sd/run";
        exec('p11-kit', 'server', '-f', '-n', $sock, '--provider', $softhsm,
             'pkcs11:token=fleet') or POSIX::_exit(127);
    }
}
start_server();
END {
    if ($server_pid && kill(0, $server_pid)) {
        local $?;
        kill('CONT', $server_pid);
        kill('TERM', $server_pid);
        waitpid($server_pid, 0);
    }
}
my $pub = TackHelpers::slurp("$sd/pub.der");
my $token_id = fingerprint(substr($pub, -64));
for (1 .. 100) { last if -S $sock; sleep 0.05; }
ok(-S $sock, 'the signing host: p11-kit server listens on its socket')
    or BAIL_OUT('p11-kit server did not start: '
                . `cat $sd/p11-kit.out`);

# ---- two web servers: their own certificates and stores, the one key ------
# Their environment: the server's address, and nothing of the token.
delete $ENV{SOFTHSM2_CONF};
$ENV{P11_KIT_SERVER_ADDRESS} = "unix:path=$sock";
my $uri = "pkcs11:token=fleet;object=tackkey;type=private"
    . "?module-path=$client";
my (%h, %mark);
for my $n ('a', 'b') {
    my $h = $h{$n} = TackTest::Httpd->new("fleet-$n");
    my $d = $h->root;
    make_cert($d, 'www', 'ec', "$n.test");
    mkdir "$d/store";
    write_file("$d/pin", "1234\n");
    chmod 0600, "$d/pin";
    $h->write_conf(<<"C");
TackSigningKey "$uri"
TackSigningPassword file:\@ROOT\@/pin
TackSigningWait 3
TackSigningRetry 2
TackStore \@ROOT\@/store
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName $n.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/www.crt
    SSLCertificateKeyFile \@ROOT\@/www.key
</VirtualHost>
C
    $mark{$n} = $h->log_mark;
    my ($rc, $out) = $h->start;
    is($rc, 0, "$n.test starts with its TACK key behind p11-kit") or diag($out);
}

# settled($h, $mark, $re): the log since $mark once it matches $re (the
# background's "all signed" by default), or after 20 s.
sub settled {
    my ($h, $mark, $re) = @_;
    $re //= qr/TACK00077/;
    my $log = '';
    for (1 .. 200) {
        $log = $h->log_since($mark);
        last if $log =~ $re;
        sleep 0.1;
    }
    return $log;
}
# served_in($n, $secs): seconds until $n.test serves the token key's TACK
sub served_in {
    my ($n, $secs) = @_;
    my $t0 = time;
    while (time - $t0 < $secs) {
        my $r = probe(port => $h{$n}->port, name => "$n.test", version => '1.2');
        return time - $t0 if defined $r->{ext} && length($r->{ext}) > 100
            && fingerprint(substr($r->{ext}, 1, 64)) eq $token_id;
        sleep 0.1;
    }
    return undef;
}
settled($h{$_}, $mark{$_}) for 'a', 'b';

# check($n): `tack check` of $n.test: (exit status, TACK ID, result).
sub check {
    my ($n) = @_;
    my $out = qx{$TACK check 127.0.0.1:@{[ $h{$n}->port ]} --servername $n.test --tls1_2 2>&1};
    my $rc = $? >> 8;
    my ($id) = $out =~ /^TACK ID\s+=\s+(\S+)$/m;
    my ($result) = $out =~ /^result\s+=\s+(.*)$/m;
    return ($rc, $id // '', $result // $out);
}
for my $n ('a', 'b') {
    my $d = $h{$n}->root;
    my ($rc, $id, $result) = check($n);
    is($rc, 0, "$n.test: tack check exits 0");
    is($result, 'accepted', "$n.test: its TACK is accepted");
    is($id, $token_id, "$n.test: under the token's key");
    my $file = "$d/store/" . store_name("$d/www.crt", "$n.test", 'ecdsa');
    ok(-s $file, "$n.test: the TACK is written into its own store");
    my ($sid) = `$TACK view -c $d/www.crt $file 2>&1` =~ /^TACK ID\s+=\s+(\S+)$/m;
    is($sid // '', $token_id, "$n.test: the stored TACK is the token key's");
    like($h{$n}->log_since($mark{$n}),
         qr/TACK00031: vhost $n\.test:\d+: signed a TACK for .*written to \Q$d\E\/store\//,
         "$n.test: the log says it signed");
    log_clean($mark{$n}, [], $h{$n}->error_log);
    my $env = TackHelpers::slurp("/proc/" . $h{$n}->pid . "/environ");
    my %penv = map { /^([^=]*)=(.*)$/s ? ($1, $2) : () } split /\0/, $env;
    ok(!exists $penv{SOFTHSM2_CONF},
       "$n.test: no SOFTHSM2_CONF in the parent's environment");
    is($penv{P11_KIT_SERVER_ADDRESS} // '', "unix:path=$sock",
       "$n.test: P11_KIT_SERVER_ADDRESS is");
}

# ---- the key stays on the signing host ------------------------------------
# Whoever holds the socket can sign with the key, but not read it: the
# token answers CKR_ATTRIBUTE_SENSITIVE (0x11) for its value, and it is
# not extractable (no wrapping it out either).
my $probe = t_dir() . '/tmp/p11value';
TackHelpers::must_run("cc -O2 -o $probe $FindBin::Bin/p11value.c -ldl");
my $got = `$probe $client fleet tackkey 1234 2>&1`;
is($? >> 8, 0, 'through the socket, the private key\'s value is refused')
    or diag($got);
like($got, qr/^CKA_VALUE=CKR 0x11$/m, '... CKR_ATTRIBUTE_SENSITIVE');
like($got, qr/^CKA_SENSITIVE=1$/m, '... the key is sensitive');
like($got, qr/^CKA_EXTRACTABLE=0$/m, '... and not extractable');
unlink "$sd/read.der";
`pkcs11-tool --module $client --login --pin 1234 --read-object --type privkey --id 01 -o $sd/read.der 2>&1`;
ok(!-e "$sd/read.der", 'pkcs11-tool --read-object reads no private key');

# ---- the signing host down: a renewal, a graceful restart -----------------
kill('TERM', $server_pid);
waitpid($server_pid, 0);
$server_pid = 0;
ok(!-e $sock, 'the signing host is down (no socket)');
my $ha = $h{a};
make_cert($ha->root, 'www', 'ec', 'a.test');    # renewed: a new key
my $m = $ha->log_mark;
my $t0 = time;
ok($ha->graceful, 'a.test: a graceful restart completes without the token');
my $secs = time - $t0;
ok($secs < 5, "... within 5 seconds ($secs)");
my $log = $ha->log_since($m);
like($log, qr/TACK00030: TackSigningKey \Q$uri\E: cannot connect to the token: no p11-kit server at P11_KIT_SERVER_ADDRESS=unix:path=\Q$sock\E: No such file or directory \(PIN from TackSigningPassword file:\S+\/pin\)/,
     '... the log says the token cannot be reached, and where it was looked for')
    or diag($log);
my ($rc, $id, $result) = check('a');
like($result, qr/^accepted/, 'a.test answers, under its new certificate')
    or diag($result);
is($id, '', '... without a TACK (none can be signed now)');
($rc, $id, $result) = check('b');
is($id, $token_id, 'b.test, not restarted, still serves its TACK');
$log = settled($ha, $m, qr/TACK00076/);
like($log, qr/\[tack:error\].*TACK00076: TackSigningKey \Q$uri\E: cannot connect to the token: .*tried again every 2 seconds/,
     'the background says so too, and that it tries again');
my ($trc, $tout) = $ha->configtest;
is($trc, 0, 'apache2 -t accepts the configuration: the signing host down is not a mistake in it')
    or diag($tout);
like($tout, qr/\[tack:warn\].*TACK00083: TackSigningKey \Q$uri\E: cannot connect to the token: .*the key cannot be used now; the configuration is accepted/,
     '... it says the key cannot be used now, promising no signature');

# ---- the signing host back: the TACK is served, no restart -------------------
my $pid_a = $ha->pid;
my $m_back = $ha->log_mark;
start_server();
for (1 .. 100) { last if -S $sock; sleep 0.05; }
my $back = served_in('a', 20);
ok(defined $back, 'the signing host back: a.test serves its TACK under the token key, by itself');
diag(sprintf('served %.1f s after the signing host came back (TackSigningRetry 2)', $back // -1));
ok(defined $back && $back < 10, '... within TackSigningRetry and a signature');
is($ha->pid, $pid_a, '... with no restart');
unlike($ha->log_since($m_back), qr/AH00493|resuming normal operations/, '... of any kind');

# ---- the signing host frozen (a hung HSM, a stalled network): the restart
# waits TackSigningWait, not the 60 s a signer waits for an answer ----------
kill('STOP', $server_pid);
make_cert($ha->root, 'www', 'ec', 'a.test');    # renewed again
$m = $ha->log_mark;
$t0 = time;
{
    local $ha->{timeout} = 90;
    ok($ha->graceful, 'a.test: a graceful restart with the signing host frozen');
}
$secs = time - $t0;
ok($secs < 3 + 4, sprintf('... answers after TackSigningWait (3 s), not more (%.1f s)', $secs));
$log = $ha->log_since($m);
like($log, qr/TACK00030: TackSigningKey \Q$uri\E: no answer within 3 seconds, the time a restart waits for signing \(TackSigningWait\)/,
     '... and says the token gave no answer within the wait');
($rc, $id, $result) = check('b');
is($id, $token_id, 'b.test still serves its TACK');
kill('CONT', $server_pid);
$back = served_in('a', 60);
ok(defined $back, 'the signing host thawed: a.test is served its new TACK by itself');
diag(sprintf('served %.1f s after the signing host answered again', $back // -1));
# The lines a token out of reach or frozen causes, and no other.
log_clean($m, [qr/TACK0003[08]: .*(cannot connect to the token|no answer within|the signer ended)/,
               qr/TACK0007[6]: /],
          $ha->error_log);

# ---- the token frozen, the background killed, then a stop: nothing left ----
# (issue 36, item 3) The background's signer is stuck in a token call for
# as long as the token is frozen.  When the background dies (kill -9: the
# OOM killer) its signer dies with it -- it held the PIN for nobody -- and
# a stop leaves no process of this server, the token still frozen.
# ours($h): the live processes of $h's server, by its root in their
# arguments (httpd's own and its signers', which are httpd's copies) --
# never every process of the machine
sub ours {
    my ($h) = @_;
    my $root = $h->root;
    return grep { !/^\s*\d+\s+Z/ && /\Q$root\E\// } `ps -eo pid=,stat=,comm=,args=`;
}
sub bg_of {
    my ($h) = @_;
    my $parent = $h->pid or return ();
    return map { /^\s*(\d+)\s+tack-signing$/ ? $1 : () }
        `ps -o pid=,comm= --ppid $parent`;
}
kill('STOP', $server_pid);
make_cert($ha->root, 'www', 'ec', 'a.test');    # renewed again
$m = $ha->log_mark;
{
    local $ha->{timeout} = 90;
    ok($ha->graceful, 'a.test: a graceful restart with the signing host frozen again');
}
my @bg = bg_of($ha);
is(scalar(@bg), 1, '... its background runs');
my $t1 = time;
my @signers;
while (time - $t1 < 10) {
    my $bg = $bg[0] // 0;
    @signers = map { /^\s*(\d+)\s+tack-signer$/ ? $1 : () }
        `ps -o pid=,comm= --ppid $bg`;
    last if @signers;
    sleep 0.1;
}
is(scalar(@signers), 1, '... and its signer waits for the frozen token');
kill('KILL', grep { $_ > 0 } @bg);
$t1 = time;
sleep 0.1 while @signers && kill(0, $signers[0]) && time - $t1 < 5
    && `ps -o stat= -p $signers[0]` !~ /Z/;
ok(@signers && !grep({ /^\s*$signers[0]\s/ } ours($ha)),
   sprintf('the background killed: its signer, stuck in a token call, dies with it (%.1f s)', time - $t1))
    or diag(ours($ha));
$t1 = time;
sleep 0.1 until $ha->log_since($m) =~ /TACK00090/ || time - $t1 > 5;
like($ha->log_since($m), qr/\[tack:error\].*TACK00090: the background signing process \(tack-signing, pid \d+\) was killed by signal 9 \(Killed\)/,
     '... the parent says so and starts another');
sleep 1;    # whose signer is stuck in turn
$ha->stop;
sleep 0.5;
my @left = ours($ha);
ok(!@left, 'a stop with the token frozen leaves no process of a.test\'s server')
    or diag(@left);
kill('CONT', $server_pid);
