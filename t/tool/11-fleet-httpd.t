# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The fleet check against the real thing: one private apache2 with mod_tack
# answering for www.example.org on 127.0.0.1 to 127.0.0.4 (an IP-based
# vhost per address, as four servers behind one name would be), first with
# one address forgotten in the rollout, then with all four serving.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use JSON::PP;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
BAIL_OUT("apache2 or mod_ssl not installed: run make deps")
    unless -x $PrivateHttpd::HTTPD
        && -e "$PrivateHttpd::MODDIR/mod_ssl.so";
my $so = top() . '/build/mod_tack.so';
BAIL_OUT("$so not built: run make module") unless -e $so;

my $name = 'www.example.org';
my @addrs = map { "127.0.0.$_" } 1 .. 4;
my $d = tmp();
chmod(0755, $d);    # the server's children run as nobody
ok0(tack('genkey', '-p', 'pw', '-o', "$d/k.pem"));
my ($id) = (tack('view', "$d/k.pem"))[1] =~ /= (\S+)/;
my (%crt, %key);
for my $i (1 .. 4) {
    ($crt{$i}, $key{$i}) = mkcert("www$i", $name);
    ok0(tack('sign', '-k', "$d/k.pem", '-p', 'pw', '-c', $crt{$i},
             '-o', "$d/www$i.tack.pem"));
}

# conf(TACKED...): the vhosts, a TackFile on the addresses listed.
sub conf {
    my ($port, %tacked) = @_;
    my $c = "LoadModule tack_module $so\n"
        . "TackStateFile " . tmp() . "/fleet-state.json\n";
    $c .= "Listen $addrs[$_ - 1]:$port\n" for 2 .. 4;
    for my $i (1 .. 4) {
        $c .= "<VirtualHost $addrs[$i - 1]:$port>\n"
            . "    ServerName $name\n    SSLEngine on\n"
            . "    SSLCertificateFile $crt{$i}\n"
            . "    SSLCertificateKeyFile $key{$i}\n"
            . ($tacked{$i} ? "    TackFile $d/www$i.tack.pem\n" : '')
            . "</VirtualHost>\n";
    }
    return $c;
}
sub fleet {
    my ($port, @args) = @_;
    return tack('check', '--all-addresses', "$name:$port", '--timeout', '5',
                (map { ('--resolve', "$name:$_") } @addrs), @args);
}

my $port = free_port_at(\@addrs, 18450, 18459);
my $conf = start_httpd('fleet', $port, conf($port, 1 => 1, 2 => 1, 4 => 1));
ok($conf, 'apache2 with mod_tack on four addresses starts') or diag($@);
BAIL_OUT("apache2 did not start: $@") unless $conf;

my ($rc, $out, $err) = fleet($port);
is($rc, 1, 'one address without its TackFile: not safe (exit 1)')
    or diag($out, $err);
note($out);
like($out, qr/^127\.0\.0\.3 .*no TACK$/m, '... its row says no TACK');
like($out, qr/^127\.0\.0\.1\s+\Q$id\E\s.*\sok$/m,
     '... the others serve our TACK');
like($out, qr/^verdict\s+= do not enable pin activation: 1 of 4 addresses would lock clients out: 127\.0\.0\.3 \(no TACK\)$/m,
     '... and the verdict names it');

($rc, $out, $err) = fleet($port, '--json');
my $j = eval { decode_json($out) };
ok($j, '--json is JSON') or diag($out, $err);
is(join(' ', map { $_->{status} } @{ $j->{addresses} // [] }),
   'ok ok no TACK ok', '... a status per address') or diag($out);
is($j->{safe}, JSON::PP::false, '... safe: false');
stop_httpd($conf);

$conf = start_httpd('fleet2', $port,
                    conf($port, 1 => 1, 2 => 1, 3 => 1, 4 => 1));
ok($conf, 'the same with a TackFile on every address') or diag($@);
BAIL_OUT("apache2 did not start: $@") unless $conf;
($rc, $out, $err) = fleet($port);
is($rc, 0, 'every address serves a TACK by one key: safe (exit 0)')
    or diag($out, $err);
like($out, qr/^verdict\s+= safe to enable pin activation: 4 addresses serve valid TACKs by \Q$id\E/m,
     '... says the verdict');
is(scalar(() = $out =~ /^127\.0\.0\.\d .*\sok$/mg), 4, '... four rows ok');
stop_httpd($conf);

done_testing();
