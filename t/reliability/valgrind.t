# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Memory safety of the running server (issue 6, item 4), with valgrind's
# memcheck (--leak-check=full):
#
#  1. "apache2 -X" (one process) through a few hundred handshakes: TLS 1.2
#     and 1.3, SNI vhosts (one with an RSA and an ECDSA certificate and a
#     TACK each), with and without the TACK request, malformed requests
#     (one byte, the largest possible, twice, TLS 1.3), half ClientHellos
#     and resets, HTTP requests good and malformed, and session resumption
#     (TLS 1.2 session IDs and TLS 1.3 tickets); then a clean stop.
#  2. A normal server ("apache2 -k start", valgrind following every
#     process) through three graceful restarts with handshakes in between,
#     the TACK files swapped before each; then a stop.
#
# Asserted: zero memcheck errors in every process; no "definitely lost"
# block whose allocation stack passes through mod_tack or the TACK core.
# The valgrind summaries go to the test output and t/tmp/valgrind-summary.txt.
# Slow (a minute or two): part of make reliability-full, not make test.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use Time::HiRes qw(time sleep);
use IO::Socket::INET;
use RelTest;

need(qw(httpd module tool openssl rawhello loadgen valgrind));

my $d = tmp_root() . '/fx';
mkdir $d;
chmod 0755, $d;
make_cert($d, 'ec', 'ec', 'a.test', '*.test');
make_cert($d, 'rsa', 'rsa', 'b.test', '*.test');
tack_genkey("$d/$_.key") for qw(k1 k2 k3 kb);
tack_sign("$d/k1.key", "$d/ec.crt", "$d/a.pem", '-e', '100d');
tack_sign("$d/k2.key", "$d/ec.crt", "$d/a2.pem", '-e', '100d');
tack_sign("$d/k3.key", "$d/rsa.crt", "$d/b-rsa.pem", '-e', '100d');
tack_break("$d/kb.key", "$d/a.breaks.pem");
# A TackStore holding the same TACK twice: its deduplication compares TACKs
# (it once compared whole structs, padding included, and memcheck saw
# uninitialised bytes decide).
make_cert($d, 'st', 'ec', 's.test');
mkdir "$d/store";
tack_sign("$d/k1.key", "$d/st.crt", "$d/store/s1.tack.pem", '-e', '100d');
write_file("$d/store/s2.tack.pem", read_file("$d/store/s1.tack.pem"));
my %T = map { $_ => (pem_blocks("$d/$_.pem", 'TACK'))[0] } qw(a a2 b-rsa);
my $BS = (pem_blocks("$d/a.breaks.pem", 'TACK BREAK SIG'))[0];
my %BODY = (
    a     => ext00($T{a}, [$BS], 0),
    t13   => ext00($T{a}, [], 0),
    b_ec  => ext00($T{a2}, [], 0),
    b_rsa => ext00($T{'b-rsa'}, [], 0),
    a2    => ext00($T{a2}, [$BS], 0),
);
write_file("$d/$_.body", $BODY{$_}) for keys %BODY;

my $ec = "SSLCertificateFile $d/ec.crt\n    SSLCertificateKeyFile $d/ec.key";
my $rsa = "SSLCertificateFile $d/rsa.crt\n    SSLCertificateKeyFile $d/rsa.key";
my $conf = <<"C";
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName default.test
    SSLEngine on
    $ec
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    $ec
    TackFile $d/a.pem
    TackBreakSigsFile $d/a.breaks.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName b.test
    SSLEngine on
    $rsa
    $ec
    TackFile $d/b-rsa.pem
    TackFile $d/a2.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName s.test
    SSLEngine on
    SSLCertificateFile $d/st.crt
    SSLCertificateKeyFile $d/st.key
    TackStore $d/store
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName t13.test
    SSLEngine on
    $ec
    TackFile $d/a.pem
    TackTLS13 on
</VirtualHost>
C

my @VG = ('valgrind', '--tool=memcheck', '--leak-check=full',
    '--show-leak-kinds=definite', '--errors-for-leak-kinds=none',
    '--num-callers=40', '--vgdb=no');

# vg_logs($dir): { pid => text } of every valgrind log there.
sub vg_logs {
    my ($dir) = @_;
    my %l;
    for my $f (glob "$dir/vg.*.log") {
        my ($pid) = $f =~ /vg\.(\d+)\.log$/;
        $l{$pid} = read_file($f);
    }
    return \%l;
}

# vg_check($name, $logs): the assertions and a summary line.
sub vg_check {
    my ($name, $logs) = @_;
    my ($errors, $def_bytes, $def_blocks, $ours, $procs, $unfinished) =
        (0, 0, 0, 0, 0, 0);
    my @ours_text;
    for my $pid (sort keys %$logs) {
        my $t = $logs->{$pid};
        $procs++;
        if ($t !~ /ERROR SUMMARY: (\d+) errors/) {
            $unfinished++;
            next;
        }
        $errors += $1;
        if ($t =~ /definitely lost: ([\d,]+) bytes in ([\d,]+) blocks/) {
            (my $b = $1) =~ s/,//g;
            (my $n = $2) =~ s/,//g;
            $def_bytes += $b;
            $def_blocks += $n;
        }
        # Each loss record: from its header to the next empty "==PID== ".
        while ($t =~ /(==\d+== [\d,]+ (?:\([\d, ]+direct[^)]*\) )?bytes in [\d,]+ blocks are definitely lost.*?)\n==\d+== \n/sg) {
            my $rec = $1;
            if ($rec =~ /mod_tack|\btack_\w+ \(|tack_ext\.c|tack_pem\.c|tack_keyfile\.c/) {
                $ours++;
                push @ours_text, $rec;
            }
        }
    }
    is($unfinished, 0, "$name: every one of $procs valgrind logs is complete");
    is($errors, 0, "$name: zero memcheck errors in $procs process(es)")
        or diag(join "\n", map { my $t = $logs->{$_};
            $t =~ /(==\d+== (?:Invalid|Conditional|Use of|Syscall|Mismatched).{0,2500})/s ? $1 : () }
            sort keys %$logs);
    is($ours, 0, "$name: no definitely lost block allocated through mod_tack or the TACK core")
        or diag(join "\n\n", @ours_text);
    my $sum = sprintf('%s: %d process(es), %d errors, definitely lost %d bytes in %d blocks '
        . '(%d through mod_tack or the core)', $name, $procs, $errors, $def_bytes,
        $def_blocks, $ours);
    note($sum);
    return $sum;
}

my @summaries;

# ---- 1. apache2 -X -------------------------------------------------------------
{
    my $h = RelTest::Httpd->new(name => 'vg-x');
    $h->write_conf($conf, loglevel => 'warn');
    my $vgdir = $h->root . '/vg';
    mkdir $vgdir;
    my $t0 = time;
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open STDOUT, '>', "$vgdir/stdout" or die;
        open STDERR, '>&', \*STDOUT or die;
        exec @VG, "--log-file=$vgdir/vg.%p.log", $RelTest::HTTPD, '-f',
            $h->conf_file, '-X';
        exit 127;
    }
    my $up = 0;
    for (1 .. 1200) {
        my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
            PeerPort => $h->port, Proto => 'tcp');
        if ($s) { close $s; $up = 1; last }
        last if waitpid($pid, POSIX::WNOHANG()) == $pid;
        sleep 0.1;
    }
    ok($up, sprintf('apache2 -X under valgrind is up (%.1f s)', time - $t0))
        or diag(read_file($h->error_log) // '');
    my $target = '127.0.0.1:' . $h->port;
    my $hs = 0;
    my $lg = sub {
        my ($what, @args) = @_;
        my $r = run_cmd({ timeout => 300 }, loadgen_bin(), '-q', '-c', '2',
            '--timeout', '60', @args, $target);
        my ($n) = $r->{out} =~ /RESULT handshakes=(\d+)/;
        $hs += $n // 0;
        is($r->{rc}, 0, "valgrind -X: $what") or diag($r->{out});
    };
    $lg->('100 TLS 1.2 handshakes with the TACK request, SNI a.test, exact bytes',
        '-n', '100', '--tls', '1.2', '-s', 'a.test', '--expect', "$d/a.body");
    $lg->('50 TLS 1.3 handshakes, SNI t13.test (TACK in EncryptedExtensions), exact bytes',
        '-n', '50', '--tls', '1.3', '-s', 't13.test', '--expect', "$d/t13.body");
    $lg->('30 TLS 1.2 handshakes, b.test with the ECDSA certificate, its TACK',
        '-n', '30', '--tls', '1.2', '-s', 'b.test', '--sigalgs', 'ECDSA+SHA256',
        '--expect', "$d/b_ec.body");
    $lg->('30 TLS 1.2 handshakes, b.test with the RSA certificate, its TACK',
        '-n', '30', '--tls', '1.2', '-s', 'b.test', '--sigalgs',
        'RSA-PSS+SHA256:RSA+SHA256', '--expect', "$d/b_rsa.body");
    $lg->('30 TLS 1.2 handshakes without the request, nothing sent',
        '-n', '30', '--tls', '1.2', '-s', 'a.test');
    $lg->('30 TLS 1.3 handshakes to the default vhost (no SNI), nothing sent',
        '-n', '30', '--tls', '1.3', '--expect-none');
    $lg->('20 handshakes with an HTTP request each',
        '-n', '20', '--tls', '1.2', '-s', 'a.test', '-x', '--http', '/');
    my %raw = (one => 'alert50', max => 'alert50', dup => 'alert47',
        trunc => 'alert50', half => 'dropped', drop => 'dropped');
    for my $m (sort keys %raw) {
        my $n = $m eq 'max' ? 3 : 10;
        my $r = run_cmd({ timeout => 300 }, rawhello_bin(), '-c', $target, '-n',
            'a.test', '-m', $m, '-r', $n, '-i', '20');
        $hs += $n;
        like($r->{out}, qr/\b$raw{$m}=$n\b/, "valgrind -X: $n x rawhello $m")
            or diag($r->{out});
    }
    my $r13 = run_cmd({ timeout => 300 }, rawhello_bin(), '-c', $target, '-n',
        't13.test', '-m', 'one', '-v', '1.3', '-r', '10', '-i', '20');
    $hs += 10;
    like($r13->{out}, qr/\balert50=10\b/, 'valgrind -X: 10 x malformed request in TLS 1.3');
    {
        my $s = s_client(port => $h->port, name => 'a.test', version => '-tls1_2',
            extra => ['-reconnect'], timeout => 120);
        my $reused = () = $s->{out} =~ /^Reused, /mg;
        $hs += 6;
        cmp_ok($reused, '>=', 4, "valgrind -X: TLS 1.2 session-ID resumption ($reused of 5 reconnections resumed)")
            or diag($s->{out});
        # TLS 1.3: a ticket arrives after the handshake; a request makes
        # s_client read it.
        my $sess = $h->root . '/s13.sess';
        my @cmd = ('openssl', 's_client', '-connect', $target, '-servername',
            'a.test', '-tls1_3', '-ign_eof');
        my $get = "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n";
        run_cmd({ timeout => 120, stdin => $get }, @cmd, '-sess_out', $sess);
        $reused = 0;
        for (1 .. 4) {
            my $x = run_cmd({ timeout => 120, stdin => $get }, @cmd, '-sess_in', $sess);
            $reused++ if $x->{out} =~ /^Reused, TLSv1\.3/m;
            $hs++;
        }
        $hs++;
        is($reused, 4, "valgrind -X: TLS 1.3 ticket resumption ($reused of 4 resumed)");
    }
    for my $req ("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n",
                 "\x01\x02 garbage \xff\r\n\r\n",
                 "GET /" . ('x' x 20000) . " HTTP/1.1\r\n\r\n") {
        my $r = run_cmd({ timeout => 120, stdin => $req }, 'openssl', 's_client',
            '-connect', $target, '-servername', 'a.test', '-tls1_2', '-quiet',
            '-serverinfo', '62208');
        $hs++;
        like($r->{out}, qr{^HTTP/1\.1 (200|400|414)}m,
             'valgrind -X: an HTTP request (' . length($req) . ' bytes) gets an answer')
            or diag($r->{out});
    }
    note("valgrind -X: about $hs handshakes");
    cmp_ok($hs, '>=', 300, "a few hundred handshakes went through ($hs)");
    kill 'TERM', $pid;
    my $t1 = time;
    waitpid($pid, 0);
    ok(time - $t1 < 300, sprintf('apache2 -X stopped (%.1f s)', time - $t1));
    push @summaries, vg_check('apache2 -X', vg_logs($vgdir));
    is(join("\n", $h->crashes), '', 'apache2 -X: no crash in the error log');
}

# ---- 2. a normal server, three graceful restarts -------------------------------
{
    my $h = RelTest::Httpd->new(name => 'vg-restart');
    # a.test's TACK file is swapped (key 1, key 2, key 1, ...) before each
    # restart: both sign for the ECDSA certificate.
    (my $conf2 = $conf) =~ s{TackFile \Q$d\E/a\.pem\n    TackBreakSigsFile}
                            {TackFile $d/served.pem\n    TackBreakSigsFile};
    write_file("$d/served.pem", read_file("$d/a.pem"));
    $h->write_conf($conf2, loglevel => 'warn', global => "StartServers 1\nServerLimit 4\n");
    my $vgdir = $h->root . '/vg';
    mkdir $vgdir;
    my $mark = $h->log_mark;
    my $r = run_cmd({ timeout => 300 }, @VG, '--trace-children=yes',
        "--log-file=$vgdir/vg.%p.log", $RelTest::HTTPD, '-f', $h->conf_file,
        '-k', 'start');
    is($r->{rc}, 0, 'apache2 -k start under valgrind') or diag($r->{out});
    ok($h->wait_ready($mark, 300), 'the server is up');
    my $target = '127.0.0.1:' . $h->port;
    my $traffic = sub {
        my ($label, $body) = @_;
        my $x = run_cmd({ timeout => 300 }, loadgen_bin(), '-q', '-c', '2',
            '--timeout', '60', '-n', '20', '--tls', '1.2', '-s', 'a.test',
            '--expect', "$d/$body.body", $target);
        is($x->{rc}, 0, "$label: 20 handshakes with the expected TACK") or diag($x->{out});
        my $y = run_cmd({ timeout => 300 }, rawhello_bin(), '-c', $target, '-n',
            'a.test', '-m', 'one', '-r', '5', '-i', '20');
        like($y->{out}, qr/alert50=5/, "$label: malformed requests refused");
    };
    $traffic->('before the restarts', 'a');
    my $pid0 = $h->pid;
    for my $i (1 .. 3) {
        my ($src, $body) = $i % 2 ? ('a2.pem', 'a2') : ('a.pem', 'a');
        write_file("$d/served.pem.new", read_file("$d/$src"));
        rename "$d/served.pem.new", "$d/served.pem" or die;
        ok($h->graceful_signal(300), "graceful restart $i under valgrind (SIGUSR1)");
        # Old children finish what they accepted and stop; under valgrind
        # that takes a while: wait until new connections see the new TACK.
        my ($seen, $t0) = (0, time);
        while (time - $t0 < 120 && $seen < 3) {
            my $x = s_client(port => $h->port, name => 'a.test', timeout => 60);
            $seen = hexs($x->{ext}) eq hexs($BODY{$body}) ? $seen + 1 : 0;
        }
        is($seen, 3, sprintf('restart %d: the new TACK is served (%.1f s)', $i, time - $t0));
        $traffic->("after restart $i", $body);
    }
    is($h->pid, $pid0, 'the same parent throughout');
    $h->stop(300);
    # Every valgrind process writes its summary on the way out.
    my $end = time + 180;
    my $logs;
    while (time < $end) {
        $logs = vg_logs($vgdir);
        last if %$logs && !grep { !/ERROR SUMMARY/ } values %$logs;
        sleep 0.5;
    }
    push @summaries, vg_check('apache2 -k start + 3 graceful restarts', $logs);
    is(join("\n", $h->crashes), '', 'restarts: no crash in the error log');
}

write_file(RelTest::top_dir() . '/t/tmp/valgrind-summary.txt', join("\n", @summaries) . "\n");
done_testing();
