# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Reload under load (issue 6, item 3).  While the load generator keeps
# several connections doing full TLS 1.2 handshakes that ask for the TACK,
# and a byte-exact observer (rawhello) reads the extension of one handshake
# after another, the TACK file and the break-signature file are swapped
# between two good versions (A: TACK by key 1 and one break signature; B:
# TACK by key 2 and two break signatures) and the server is restarted
# gracefully after each swap ("apache2 -k graceful" and a bare SIGUSR1 in
# turn).  Then one edit breaks
# the TACK file and "apache2ctl graceful" is run: it must refuse, and the
# server must go on serving the last good configuration.
#
# Asserted: zero failed handshakes; every handshake carried a TACK reply;
# every reply the observer saw is exactly A's or B's bytes; the load
# generator's reply byte count is explained by A and B replies only; after
# the broken edit only the last good bytes are served.
#
# make test runs 4 graceful restarts; RELIABILITY_FULL=1 (make
# reliability-full) runs 20.  The figures go to the test output (note).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use Time::HiRes qw(time sleep);
use RelTest;

need(qw(httpd module tool openssl rawhello loadgen));

my $RESTARTS = $ENV{RELIABILITY_RESTARTS} || ($ENV{RELIABILITY_FULL} ? 20 : 4);
my $DWELL = 0.7;    # seconds of traffic after each restart

my $d = tmp_root() . '/fx';
mkdir $d;
chmod 0755, $d;
make_cert($d, 'ec', 'ec', 'a.test', '*.test');
tack_genkey("$d/$_.key") for qw(k1 k2 kb1 kb2);
tack_sign("$d/k1.key", "$d/ec.crt", "$d/A.tack.pem", '-e', '100d');
tack_sign("$d/k2.key", "$d/ec.crt", "$d/B.tack.pem", '-e', '100d');
tack_break("$d/kb1.key", "$d/kb1.pem");
tack_break("$d/kb2.key", "$d/kb2.pem");
write_file("$d/A.breaks.pem", read_file("$d/kb1.pem"));
write_file("$d/B.breaks.pem", read_file("$d/kb1.pem") . read_file("$d/kb2.pem"));

my %V;
for my $v (qw(A B)) {
    my $t = (pem_blocks("$d/$v.tack.pem", 'TACK'))[0];
    my @s = pem_blocks("$d/$v.breaks.pem", 'TACK BREAK SIG');
    $V{$v} = ext00($t, \@s, 1);
}
my ($LA, $LB) = (length $V{A}, length $V{B});
isnt($LA, $LB, "the two versions differ in length ($LA and $LB bytes)");

# What the server reads: a.pem and a.breaks.pem, replaced atomically.
sub place {
    my ($src, $dst) = @_;
    write_file("$dst.new", read_file($src));
    rename "$dst.new", $dst or die "rename: $!";
}
sub install {
    my ($v) = @_;
    place("$d/$v.tack.pem", "$d/a.pem");
    place("$d/$v.breaks.pem", "$d/a.breaks.pem");
}
install('A');

my $certs = "SSLCertificateFile $d/ec.crt\n    SSLCertificateKeyFile $d/ec.key";
my $h = RelTest::Httpd->new(name => 'reload');
# Enough processes and threads that a restart's old and new generations
# both fit (the default ServerLimit would do too; this keeps it small).
$h->write_conf(<<"C", loglevel => 'warn', global => <<'G');
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    $certs
    TackFile $d/a.pem
    TackBreakSigsFile $d/a.breaks.pem
    TackPinActivation on
</VirtualHost>
C
StartServers 2
ServerLimit 16
ThreadsPerChild 25
MaxRequestWorkers 200
G
my $r = $h->start;
is($r->{rc}, 0, 'the server starts') or diag($r->{out});
ok($r->{ready}, 'and serves');
my $pid0 = $h->pid;
my $target = '127.0.0.1:' . $h->port;

my $s = s_client(port => $h->port, name => 'a.test');
is(hexs($s->{ext}), hexs($V{A}), 'version A is served before the load starts');

# ---- load and observer --------------------------------------------------------
# The load generator has a time bound only: give it enough for the restarts
# and the broken edit (checked below: the load must outlast them).
my $budget = 4 + $RESTARTS * ($DWELL + 1.3) + 8;
my $lg_out = tmp_root() . '/loadgen.out';
my $obs_out = tmp_root() . '/observer.out';

sub spawn {
    my ($out, @argv) = @_;
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open STDOUT, '>', $out or die;
        open STDERR, '>&', \*STDOUT or die;
        exec @argv;
        exit 127;
    }
    return $pid;
}
my $t_load = time;
my $lg_pid = spawn($lg_out, loadgen_bin(), '-c', '8', '-d', $budget, '--tls', '1.2',
    '-s', 'a.test', '-x', '--timeout', '10', $target);
my $obs_pid = spawn($obs_out, rawhello_bin(), '-c', $target, '-n', 'a.test',
    '-m', 'empty', '-d', $budget, '-e', hexs($V{A}), '-e', hexs($V{B}));
sleep 1.5;

# ---- the restarts -----------------------------------------------------------------
my @durations;
my $failed_restarts = 0;
my $cur = 'A';
for my $i (1 .. $RESTARTS) {
    $cur = $cur eq 'A' ? 'B' : 'A';
    install($cur);
    my $t0 = time;
    # Alternately "apache2 -k graceful" and a bare SIGUSR1.
    my ($res, $ready) = $i % 2 ? $h->graceful_k
                               : ({ rc => 0, out => '' }, $h->graceful_signal);
    push @durations, time - $t0;
    $failed_restarts++ unless $res->{rc} == 0 && $ready;
    diag("restart $i: rc $res->{rc} ready $ready\n$res->{out}")
        unless $res->{rc} == 0 && $ready;
    sleep $DWELL;
}
my $t_restarts = time - $t_load;
is($failed_restarts, 0, "$RESTARTS graceful restarts (apache2 -k graceful and SIGUSR1 in turn), files swapped before each, all came up");
is($h->pid, $pid0, 'the parent process is the same throughout');
my $last_good = $cur;
$s = s_client(port => $h->port, name => 'a.test');
is(hexs($s->{ext}), hexs($V{$last_good}), "after the last restart version $last_good is served");

# ---- a broken edit and apache2ctl graceful ---------------------------------------
my $mark = $h->log_mark;
my $tb = (pem_blocks("$d/A.tack.pem", 'TACK'))[0];
substr($tb, 120, 1) = chr(ord(substr($tb, 120, 1)) ^ 0x01);
write_file("$d/a.pem.new", pem('TACK', $tb));
rename "$d/a.pem.new", "$d/a.pem" or die;
my $ctl = $h->ctl('graceful');
isnt($ctl->{rc}, 0, 'apache2ctl graceful with a broken TACK file is refused');
like($ctl->{out}, qr{TackFile \S+/a\.pem: TACK: signature does not verify},
     'and says why') or diag($ctl->{out});
sleep 1.0;
is($h->pid, $pid0, 'the running server was not restarted');
like($h->log_since($mark), qr/^\s*$/s, 'and logged nothing (no restart happened)')
    or diag($h->log_since($mark));
my $still = 0;
for (1 .. 5) {
    my $x = s_client(port => $h->port, name => 'a.test');
    $still++ if $x->{ok} && hexs($x->{ext}) eq hexs($V{$last_good});
}
is($still, 5, "after the broken edit 5 of 5 clients get the last good version ($last_good)");
my $after = run_cmd({ timeout => 30 }, rawhello_bin(), '-c', $target, '-n', 'a.test',
    '-m', 'empty', '-d', '2', '-e', hexs($V{$last_good}));
my %af = $after->{out} =~ /(\w+)=(\d+)/g;
ok($af{n} > 0 && $af{match1} == $af{n} && $af{nomatch} == 0,
   "and for 2 s every observed handshake carried exactly the last good bytes ($af{match1} of $af{n})")
    or diag($after->{out});

# ---- results --------------------------------------------------------------------------
my $t_checked = time - $t_load;
waitpid($lg_pid, 0);
my $lg_rc = $? >> 8;
waitpid($obs_pid, 0);
my $load_secs = time - $t_load;
my $lg = read_file($lg_out) // '';
my $obs = read_file($obs_out) // '';
my %L = $lg =~ /(\w+)=([\d.]+)/g;
my %O = $obs =~ /(\w+)=(\d+)/g;

ok(defined $L{handshakes} && $L{handshakes} > 0, "load generator ran ($L{handshakes} handshakes)")
    or diag($lg);
is($L{failures}, 0, 'zero failed handshakes') or diag($lg);
cmp_ok($L{elapsed}, '>=', $t_checked - 0.5,
    sprintf('the load lasted through the restarts (%.1f s) and the broken edit (%.1f s)',
            $t_restarts, $t_checked));
is($L{tack_replies}, $L{handshakes}, 'every handshake carried a TACK reply');
# tack_bytes = LA * nA + LB * nB with nA + nB = handshakes
my $nB = ($L{tack_bytes} - $LA * $L{handshakes}) / ($LB - $LA);
my $nA = $L{handshakes} - $nB;
ok($nB == int($nB) && $nB >= 0 && $nA >= 0,
   "the reply byte count is explained by A and B replies only (A $nA, B $nB)")
    or diag("tack_bytes $L{tack_bytes}, handshakes $L{handshakes}");
ok($O{n} > 0, "the observer made $O{n} handshakes");
is($O{nomatch}, 0, 'every reply the observer saw was exactly version A or version B')
    or diag($obs);
is($O{n} - $O{serverhello}, 0, 'the observer got a ServerHello every time (no alert, close or timeout)')
    or diag($obs);
ok($O{match1} > 0 && $O{match2} > 0,
   "the observer saw both versions (A $O{match1}, B $O{match2})");
is(join("\n", $h->crashes), '', 'no process died');
my $log = $h->log_since(0);
my @errs = grep { /\[[\w:]*(?:error|crit|alert|emerg)\]/ } split /\n/, $log;
is(scalar(@errs), 0, 'no error in the log') or diag(join "\n", @errs);

my @sorted = sort { $a <=> $b } @durations;
my $fig = sprintf("reload figures: %d graceful restarts in %.1f s under load; "
    . "loadgen %d handshakes (%.0f/s, 8 connections), %d failures, "
    . "%d TACK replies (A %d, B %d); observer %d handshakes (A %d, B %d, other %d); "
    . "restart time median %.2f s, max %.2f s; broken edit refused, last good served",
    $RESTARTS, $load_secs, $L{handshakes}, $L{rate} // 0, $L{failures},
    $L{tack_replies}, $nA, $nB, $O{n}, $O{match1}, $O{match2}, $O{nomatch},
    $sorted[$#sorted / 2], $sorted[-1]);
note($fig);
write_file(RelTest::top_dir() . "/t/tmp/reload-figures.txt", "$fig\n");
ok(1, $fig);

$h->stop;
done_testing();
