# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Hostile clients (issue 6, item 5): ClientHellos written byte by byte by
# t/reliability/rawhello.c with a TACK request that is malformed (one byte,
# as large as a ClientHello allows, a length past its end, a length past
# the extension block, twice), clients that send half a ClientHello and
# reset, and clients that reset as soon as the server answers.  Each gets
# the right alert or is dropped; a flood of them at a bounded rate, while
# good clients handshake all along, costs the good clients nothing, and the
# server logs each malformed request at info level only.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use RelTest;

need(qw(httpd module tool openssl rawhello loadgen));

my $d = tmp_root() . '/fx';
mkdir $d;
make_cert($d, 'ec', 'ec', 'a.test', '*.test');
tack_genkey("$d/$_.key") for qw(k1 kb);
tack_sign("$d/k1.key", "$d/ec.crt", "$d/a.pem", '-e', '100d');
tack_break("$d/kb.key", "$d/a.breaks.pem");
my $TACK = (pem_blocks("$d/a.pem", 'TACK'))[0];
my $BS = (pem_blocks("$d/a.breaks.pem", 'TACK BREAK SIG'))[0];
my $BODY = ext00($TACK, [$BS], 0);
write_file("$d/a.body", $BODY);

my $certs = "SSLCertificateFile $d/ec.crt\n    SSLCertificateKeyFile $d/ec.key";
my $h = RelTest::Httpd->new(name => 'hostile');
$h->write_conf(<<"C", loglevel => 'warn tack:info');
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName default.test
    SSLEngine on
    $certs
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    $certs
    TackFile $d/a.pem
    TackBreakSigsFile $d/a.breaks.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName t13.test
    SSLEngine on
    $certs
    TackFile $d/a.pem
    TackTLS13 on
</VirtualHost>
C

my $target = '127.0.0.1:' . $h->port;
sub raw {
    my (%o) = @_;
    my $r = run_cmd({ timeout => 60 }, rawhello_bin(), '-c', $target,
        '-n', $o{name} || 'a.test', '-m', $o{mode},
        ($o{v} ? ('-v', $o{v}) : ()),
        ($o{repeat} ? ('-r', $o{repeat}, '-i', $o{interval} // 5) : ()));
    chomp(my $out = $r->{out});
    return $out;
}
sub good_client {
    my $s = s_client(port => $h->port, name => 'a.test');
    return $s->{ok} && hexs($s->{ext}) eq hexs($BODY);
}

my $r = $h->start;
is($r->{rc}, 0, 'the server starts') or diag($r->{out});
ok($r->{ready}, 'and serves');
my $mark = $h->log_mark;

# ---- one connection each -------------------------------------------------
my $want_ext = 'serverhello 0303 ext ' . hexs($BODY);
is(raw(mode => 'empty'), $want_ext,
   'a proper request (f3 00 00 00): the TACK and break signature in the ServerHello');
is(raw(mode => 'none'), 'serverhello 0303 ext none', 'no request: no extension');
is(raw(mode => 'one'), 'alert 2 50', 'one byte of request data: fatal decode_error');
is(raw(mode => 'max'), 'alert 2 50',
   'a request as large as the ClientHello allows (65478 bytes): fatal decode_error');
is(raw(mode => 'claim'), 'alert 2 50',
   'a request claiming 65535 bytes in a smaller block: fatal decode_error');
is(raw(mode => 'trunc'), 'alert 2 50',
   'a request running past the extension block: fatal decode_error');
is(raw(mode => 'dup'), 'alert 2 47',
   'two requests in one ClientHello: fatal illegal_parameter (OpenSSL refuses duplicate extensions)');
is(raw(mode => 'one', name => 'default.test'), 'alert 2 50',
   'one byte of request data to a vhost without TACK: decode_error all the same');
is(raw(mode => 'one', name => 'nosuch.test'), 'alert 2 50',
   'one byte of request data with an unknown SNI name: decode_error');
is(raw(mode => 'one', name => 't13.test', v => '1.3'), 'alert 2 50',
   'TLS 1.3, TackTLS13 on: one byte of request data is a decode_error');
is(raw(mode => 'one', name => 'a.test', v => '1.3'), 'serverhello 0304 ext none',
   'TLS 1.3, TackTLS13 off: the extension is not TLS 1.3\'s, so it is ignored');
is(raw(mode => 'empty', name => 't13.test', v => '1.3'), 'serverhello 0304 ext none',
   'TLS 1.3 proper request: nothing in the ServerHello (the TACK goes in EncryptedExtensions)');
is(raw(mode => 'half'), 'dropped', 'half a ClientHello, then a reset');
is(raw(mode => 'drop'), 'dropped', 'a reset right after the server answers');
ok(good_client(), 'a good client still gets exactly the TACK and break signature');

# ---- floods at a bounded rate, good clients all along ------------------------
my $lg_out = tmp_root() . '/loadgen.out';
my $lg_pid = fork;
die "fork: $!" unless defined $lg_pid;
if ($lg_pid == 0) {
    open STDOUT, '>', $lg_out or die;
    open STDERR, '>&', \*STDOUT or die;
    exec loadgen_bin(), '-c', '4', '-d', '12', '--tls', '1.2', '-s', 'a.test',
        '--expect', "$d/a.body", '--timeout', '10', $target;
    exit 127;
}
my @floods = (
    # [mode, repeat, interval ms, name, version, expected summary fields]
    ['one',   300, 3, 'a.test', undef, { alert50 => 300 }],
    ['max',    60, 10, 'a.test', undef, { alert50 => 60 }],
    ['claim', 100, 3, 'a.test', undef, { alert50 => 100 }],
    ['dup',   100, 3, 'a.test', undef, { alert47 => 100 }],
    ['trunc', 100, 3, 'a.test', undef, { alert50 => 100 }],
    ['one',   100, 3, 't13.test', '1.3', { alert50 => 100 }],
    ['half',  200, 3, 'a.test', undef, { dropped => 200 }],
    ['drop',  200, 3, 'a.test', undef, { dropped => 200 }],
    ['empty', 100, 3, 'a.test', undef, { serverhello => 100 }],
);
for my $f (@floods) {
    my ($mode, $n, $ms, $name, $v, $want) = @$f;
    my $out = raw(mode => $mode, repeat => $n, interval => $ms, name => $name,
        v => $v);
    my %got = $out =~ /(\w+)=(\d+)/g;
    my %exp = (n => $n, alert50 => 0, alert47 => 0, alert_other => 0,
        serverhello => 0, closed => 0, dropped => 0, timeout => 0, error => 0,
        %$want);
    is_deeply(\%got, \%exp, "flood: $n x '$mode'" . ($v ? " (TLS $v)" : '')
        . " to $name, one every ${ms} ms: each answered as expected")
        or diag($out);
}
waitpid($lg_pid, 0);
my $lg_rc = $? >> 8;
my $lg = read_file($lg_out) // '';
my ($hs) = $lg =~ /RESULT handshakes=(\d+)/;
my ($fails) = $lg =~ /failures=(\d+)/;
is($lg_rc, 0, 'the good clients (loadgen, 4 connections, 12 s) saw no failure')
    or diag($lg);
is($fails, 0, 'zero failed handshakes among good clients');
cmp_ok($hs // 0, '>', 100, "good clients kept handshaking during the floods ("
    . ($hs // 0) . ' handshakes, each with the exact TACK bytes)');
note($lg);

ok(good_client(), 'after the floods a good client gets exactly the TACK');
ok($h->alive, 'the server runs');
my $log = $h->log_since($mark);
is(join("\n", $h->crashes($log)), '', 'no process died');
my $n52 = () = $log =~ /\[tack:info\].*TACK00052: vhost \S+: non-empty TACK request \(\d+ bytes\) in ClientHello; decode_error alert/g;
# one, max, one to default, one to nosuch, TLS 1.3 one, then the floods
is($n52, 5 + 300 + 60 + 100, "each malformed request that reached the module was logged once at info ($n52)");
like($log, qr/TACK00052: vhost a\.test:\d+: non-empty TACK request \(65478 bytes\)/,
     'the largest request is logged with its size');
my @loud = grep { /\[tack:(?:warn|error|crit|alert|emerg)\]/ } split /\n/, $log;
is(scalar(@loud), 0, 'nothing a peer did is logged above info by mod_tack')
    or diag(join "\n", @loud);

$h->stop;
done_testing();
