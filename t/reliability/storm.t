# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# A storm of graceful restarts while TackSigningKey's background serves the
# TACK.  With no TackStore, every restart leaves the certificate to the
# background, which signs a new TACK and hands it to the running children
# through shared memory: the handshake reads bytes that another process
# writes.  While SIGUSR1 follows SIGUSR1 faster than a restart completes, a
# byte-exact observer (rawhello -u) records every 0xF300 body the
# ServerHellos carry.
#
# Asserted: every handshake got a ServerHello (no alert, close or
# timeout); every body was either no TACK (the moments after a restart,
# before the background has signed) or a whole, well-formed draft-00 body
# whose TACK verifies and names the certificate's key (tack view -c): no
# torn TACK; TACKs were served through the storm; after it, one parent,
# the same as before, serving a TACK, and no crash or error in the log.
#
# make test sends 12 signals; RELIABILITY_FULL=1 (make reliability-full)
# 50, the graceful restarts the hostile review ran clean.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use Time::HiRes qw(time sleep);
use RelTest;

need(qw(httpd module tool openssl rawhello));

my $SIGNALS = $ENV{RELIABILITY_SIGNALS} || ($ENV{RELIABILITY_FULL} ? 50 : 12);
my $GAP = 0.3;    # seconds between two signals: less than a restart takes

my $d = tmp_root() . '/storm';
mkdir $d;
chmod 0755, $d;
make_cert($d, 'ec', 'ec', 'a.test');
write_file("$d/pw", "storm-pass\n");
chmod 0600, "$d/pw";
my $r = run_cmd({}, tool(), 'genkey', '--password-file', "$d/pw",
                '-o', "$d/sign.key");
$r->{rc} == 0 or BAIL_OUT("tack genkey: $r->{out}");

my $h = RelTest::Httpd->new(name => 'storm');
$h->write_conf(<<"C", loglevel => 'warn', global => <<"G");
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile $d/ec.crt
    SSLCertificateKeyFile $d/ec.key
</VirtualHost>
C
TackSigningKey $d/sign.key
TackSigningPassword file:$d/pw
TackSigningRetry 1
StartServers 2
ServerLimit 16
ThreadsPerChild 25
MaxRequestWorkers 200
G
$r = $h->start;
is($r->{rc}, 0, 'the server starts') or diag($r->{out});
ok($r->{ready}, 'and serves');
my $pid0 = $h->pid;
my $target = '127.0.0.1:' . $h->port;

# check_body(HEX): '' when the body is a whole draft-00 body with a TACK
# that verifies for the certificate, else what is wrong with it.
my $n_checked = 0;
sub check_body {
    my ($hex) = @_;
    my $b = pack('H*', $hex);
    return 'not 170 bytes (one TACK, no break signature, activation off)'
        unless length($b) == 170;
    return 'does not start with a TACK (166)' unless ord(substr($b, 0, 1)) == 166;
    return 'break signatures or activation where there are none'
        unless substr($b, 167) eq "\0\0\0";
    my $f = "$d/seen-" . $n_checked++ . '.pem';
    write_file($f, pem('TACK', substr($b, 1, 166)));
    my $v = run_cmd({}, tool(), 'view', '-c', "$d/ec.crt", $f);
    return $v->{rc} == 0 ? '' : "tack view -c: $v->{out}";
}

# The first TACK, signed by the background after the start.
my $first;
for (1 .. 100) {
    my $s = s_client(port => $h->port, name => 'a.test');
    if (defined $s->{ext} && length $s->{ext} > 3) { $first = $s->{ext}; last }
    sleep 0.1;
}
ok($first, 'the background signs a TACK and the children serve it');
is(check_body(unpack('H*', $first // '')), '', '... whole, and it verifies for the certificate');

# ---- the storm ------------------------------------------------------------------
my $seen = "$d/seen.txt";
my $budget = $SIGNALS * $GAP + 6;
my $obs_out = "$d/observer.out";
my $obs_pid = fork;
die "fork: $!" unless defined $obs_pid;
if ($obs_pid == 0) {
    open STDOUT, '>', $obs_out or die;
    open STDERR, '>&', \*STDOUT or die;
    exec rawhello_bin(), '-c', $target, '-n', 'a.test', '-m', 'empty',
        '-d', $budget, '-u', $seen;
    exit 127;
}
sleep 1;
my $mark = $h->log_mark;
for (1 .. $SIGNALS) {
    kill 'USR1', $pid0;
    sleep $GAP;
}
ok($h->wait_ready($mark, 30), "$SIGNALS SIGUSR1 $GAP s apart: the server serves afterwards");
waitpid($obs_pid, 0);
my %O = (read_file($obs_out) // '') =~ /(\w+)=(\d+)/g;
ok(($O{n} // 0) > 0, "the observer made $O{n} handshakes through the storm")
    or diag(read_file($obs_out));
is($O{serverhello}, $O{n}, '... each got a ServerHello (no alert, close or timeout)')
    or diag(read_file($obs_out));

my (%bodies, $n_tack, $n_none);
for (split /\n/, read_file($seen) // '') {
    my ($count, $body) = split ' ';
    $bodies{$body} = $count;
}
$n_none = $bodies{none} // 0;
my @bad;
for my $body (grep { $_ ne 'none' } sort keys %bodies) {
    my $why = $body eq 'overflow' ? 'more distinct bodies than rawhello keeps'
                                  : check_body($body);
    push @bad, "$bodies{$body} x $body: $why" if $why ne '';
    $n_tack += $bodies{$body} unless $why ne '';
}
$n_tack //= 0;
is(scalar(@bad), 0, 'every TACK served through the storm was whole and verified for the certificate'
   . sprintf(' (%d handshakes with a TACK, %d distinct TACKs; %d without one, between a restart and its signature)',
             $n_tack, scalar(grep { $_ ne 'none' } keys %bodies), $n_none))
    or diag(join "\n", @bad);
cmp_ok($n_tack, '>', 0, 'TACKs were served during the storm');
cmp_ok(scalar(grep { $_ ne 'none' } keys %bodies), '>=', 2,
       '... signed anew by restarts during the storm (the shared table was rewritten under the handshakes)');

# ---- afterwards ---------------------------------------------------------------------
is($h->pid, $pid0, 'one parent throughout, the same as before the storm');
my $after;
for (1 .. 100) {
    my $s = s_client(port => $h->port, name => 'a.test');
    if (defined $s->{ext} && length $s->{ext} > 3) { $after = $s->{ext}; last }
    sleep 0.1;
}
is(check_body(unpack('H*', $after // '')), '', 'after the storm a verified TACK is served');
my $log = $h->log_since($mark);
is_deeply([$h->crashes($log)], [], 'no process died of a signal');
is_deeply([grep { /\[(?:[a-z_]+:)?(?:error|crit|alert|emerg)\]/ } split /\n/, $log], [],
          'no error in the log') or diag($log);
$h->stop;

done_testing();
