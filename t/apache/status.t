# The tack-status handler (t/conf/extra.conf.in: <Location /tack-status>):
# for each SSL vhost the TACK served per certificate, break signatures,
# settings and handshake counters, as HTML and as JSON (?json); a section of
# mod_status's page.  Then a private prefork server with one connection per
# child process shows the counters are shared by all processes and survive
# graceful and full restarts.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib";

use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET POST);
use HTTP::Tiny;
use JSON::PP qw(decode_json);
use TackTest;
use TackFixture qw(make_cert make_key tack_bytes pem write_file spki_hash
    key_public fingerprint);

plan tests => 70;

my $mark = log_mark();
my $port = ssl_port();
my $fp = sub { fingerprint(key_public(fx("$_[0].key"))) };

sub status_json {
    my $res = GET('/tack-status?json');
    return ($res, $res->is_success ? decode_json($res->content) : undef);
}
sub vhost_of {
    my ($doc, $name) = @_;
    my ($v) = grep { $_->{name} eq "$name:$port" } @{ $doc->{vhosts} };
    return $v;
}

# ---- JSON -------------------------------------------------------------------
my ($res, $doc) = status_json();
ok($res->is_success, 'GET /tack-status?json') or diag($res->status_line);
is($res->header('Content-Type'), 'application/json', 'served as application/json');
ok($doc->{counters_shared}, 'counters in shared memory');
like($doc->{counters_since}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'counters_since');
ok($doc->{summary}{vhosts} >= 12, "summary: $doc->{summary}{vhosts} SSL vhosts");

my $a = vhost_of($doc, 'a.test');
ok($a, 'a.test is listed') or BAIL_OUT('no a.test in the status');
is($a->{format}, 'draft-00', 'a.test: format');
ok($a->{pin_activation} && !$a->{tls13}, 'a.test: pin activation on, TLS 1.3 off');
is_deeply([map { $_->{key} } @{ $a->{break_signatures} }], [$fp->('kb1'), $fp->('kb2')],
    'a.test: both break signatures, by key');
like($a->{break_signatures}[0]{file}, qr{/a\.breaks\.pem$}, 'with their file');
my $c = $a->{certificates}[0];
is(scalar @{ $a->{certificates} }, 1, 'a.test: one certificate');
is($c->{subject}, '/CN=a.test', 'its subject');
is($c->{key_type}, 'ECDSA', 'its key type');
is($c->{spki_sha256}, hex(spki_hash(fx('a.test.crt'))), 'its public key hash');
my $t = $c->{tacks}[0];
is($t->{key}, $fp->('k1'), 'the TACK key fingerprint');
is("$t->{min_generation}/$t->{generation}", '1/2', 'generations');
like($t->{expires}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\dZ$/, 'expiration');
ok($t->{days_left} >= 363 && $t->{days_left} <= 365, "days left: $t->{days_left}");
is($t->{target_hash}, $c->{spki_sha256}, 'target hash = the certificate it matched');
is($t->{source}, 'TackFile', 'source');
ok($t->{active} && !$t->{expired}, 'active, not expired');

my $d = vhost_of($doc, 'd.test');
is_deeply([sort map { $_->{key_type} } @{ $d->{certificates} }], ['ECDSA', 'RSA'],
    'd.test: two certificates, each with its TACK');
ok($d->{tls13}, 'd.test: TLS 1.3 on');
my $e = vhost_of($doc, 'e.test');
is($e->{format}, 'draft-02', 'e.test: draft-02');
is_deeply([map { $_->{active} ? 1 : 0 } @{ $e->{certificates}[0]{tacks} }], [1, 0],
    'e.test: two TACKs, the second inactive');
is(scalar @{ vhost_of($doc, 'default.test')->{certificates}[0]{tacks} }, 0,
    'default.test: no TACK');
is(vhost_of($doc, 's.test')->{certificates}[0]{tacks}[0]{key}, $fp->('k4'),
    's.test: the server-level TackFile');

# ---- counters ---------------------------------------------------------------
my $before_a = $a->{certificates}[0]{handshakes};
my $before_c = vhost_of($doc, 'c.test')->{handshakes};
probe(name => 'a.test', version => '1.2') for 1 .. 3;
probe(name => 'a.test', version => '1.2', args => '-N');
probe(name => 'c.test', version => '1.2');
(undef, $doc) = status_json();
is($doc && vhost_of($doc, 'a.test')->{certificates}[0]{handshakes}{requested},
    $before_a->{requested} + 3, 'a.test: 3 more handshakes asked (not the one without request)');
is(vhost_of($doc, 'a.test')->{certificates}[0]{handshakes}{served},
    $before_a->{served} + 3, 'a.test: and received a TACK');
is(vhost_of($doc, 'c.test')->{handshakes}{requested}, $before_c->{requested} + 1,
    'c.test: asked');
is(vhost_of($doc, 'c.test')->{handshakes}{served}, $before_c->{served},
    'c.test: break signatures only, no TACK served');

# ---- HTML -------------------------------------------------------------------
$res = GET('/tack-status');
ok($res->is_success, 'GET /tack-status');
like($res->header('Content-Type'), qr{^text/html}, 'as HTML');
my $html = $res->content;
like($html, qr{<h1>TACK status</h1>}, 'a title');
like($html, qr{<h2>a\.test:$port</h2>\n<p>Format draft-00, pin activation on, TLS 1\.3 off, store none\. Handshakes: \d+ requested, \d+ served a TACK\.</p>},
    'a.test: its settings and counters');
like($html, qr{<td rowspan="1">ECDSA /CN=a\.test</td><td><code>\Q${\$fp->('k1')}\E</code></td><td>1 / 2</td>},
    'a.test: certificate, TACK key and generations');
like($html, qr{<li>key <code>\Q${\$fp->('kb1')}\E</code> from \S+a\.breaks\.pem</li>},
    'a.test: break signatures');
like($html, qr{<code>\Q${\$fp->('k2')}\E</code> \(inactive\)}, 'e.test: the inactive TACK');
like($html, qr{<a href="\?json">JSON</a>}, 'a link to the JSON');

$res = POST('/tack-status', content => 'x');
is($res->code, 405, 'POST: 405');
$res = GET('/tack-status-denied');
is($res->code, 403, 'Require all denied is honoured (access control is httpd\'s)');

# ---- mod_status -------------------------------------------------------------
$res = GET('/server-status');
like($res->content, qr{<h2>TACK \(mod_tack\)</h2>.*SSL virtual hosts, \d+ serving a TACK}s,
    'a section in mod_status\'s page');
$res = GET('/server-status?auto');
like($res->content, qr/^TackVhosts: \d+\nTackServingVhosts: \d+\n.*^TackHandshakesRequested: \d+\n/ms,
    'and key: value lines in ?auto');

log_clean($mark, [qr/AH01630: client denied by server configuration/]);

# ---- names that are not UTF-8 -----------------------------------------------
# A ServerName, a TackFile, a TackBreakSigsFile and a TackStore directory
# with the Latin-1 byte 0xE9 (httpd takes configuration strings as bytes):
# the JSON still parses, every TACK and break signature is in it, and the
# byte is shown as \xe9 (lower case, as httpd's error log writes it), in the
# JSON and in the HTML page.  A backslash is written \\ so the form reads
# back; valid UTF-8 (U+00E9 as C3 A9) is kept as it is.
{
    my $l = TackTest::Httpd->new('status-latin1');
    my $lr = $l->root;
    make_cert($lr, 'l.test', 'ec', 'l.test');
    make_cert($lr, 'u.test', 'ec', 'u.test');
    make_key("$lr/$_.key") for qw(lk lb uk);
    write_file("$lr/caf\xe9.tack.pem", pem('TACK', tack_bytes(key => "$lr/lk.key",
        cert => "$lr/l.test.crt")));
    write_file("$lr/br\xe9ak.pem", pem('TACK BREAK SIG',
        TackFixture::breaksig_bytes("$lr/lb.key")));
    mkdir "$lr/st\xe9\\re";
    write_file("$lr/st\xe9\\re/u.test.tack.pem", pem('TACK', tack_bytes(
        key => "$lr/uk.key", cert => "$lr/u.test.crt")));
    $l->write_conf(<<"C");
<Location /tack-status>
    SetHandler tack-status
</Location>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName caf\xe9.test
    SSLEngine on
    SSLCertificateFile l.test.crt
    SSLCertificateKeyFile l.test.key
    TackFile caf\xe9.tack.pem
    TackBreakSigsFile br\xe9ak.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName caf\xc3\xa9.test
    SSLEngine on
    SSLCertificateFile u.test.crt
    SSLCertificateKeyFile u.test.key
    TackStore st\xe9\\re
</VirtualHost>
C
    my ($lrc, $lout) = $l->start;
    is($lrc, 0, 'a server with Latin-1 names started') or diag($lout);
    my $lp = $l->port;
    my $get = sub {
        HTTP::Tiny->new(verify_SSL => 0, timeout => 10)
            ->get("https://127.0.0.1:$lp/tack-status$_[0]");
    };
    my $r = $get->('?json');
    my $ldoc = eval { decode_json($r->{content}) };
    ok($ldoc, 'the JSON parses') or diag($@ || $r->{status}, "\n", $r->{content});
    my %v = map { $_->{name} => $_ } $ldoc ? @{ $ldoc->{vhosts} } : ();
    is_deeply([sort keys %v], ["caf\\xe9.test:$lp", "caf\x{e9}.test:$lp"],
        'the ServerName: 0xE9 as \xe9, UTF-8 kept');
    my ($lv, $uv) = @v{"caf\\xe9.test:$lp", "caf\x{e9}.test:$lp"};
    my @t = map { @{ $_->{tacks} } } map { @{ $_->{certificates} } }
        grep { defined } $lv, $uv;
    is(scalar @t, 2, 'both TACKs are listed');
    is($ldoc && $ldoc->{summary}{tacks}, scalar @t, 'as many as summary.tacks');
    like($lv && $lv->{certificates}[0]{tacks}[0]{file} // '',
        qr{/caf\\xe9\.tack\.pem$}, 'the TackFile, with \xe9');
    my $ut = $uv && $uv->{certificates}[0]{tacks}[0];
    like($ut && $ut->{file} // '', qr{/st\\xe9\\\\re/u\.test\.tack\.pem$},
        'the store TACK: \xe9, the backslash doubled');
    is($ut && $ut->{source} // '', 'TackStore', 'from the store');
    is($uv && $uv->{store}, "$lr/st\\xe9\\\\re", 'the TackStore directory');
    like($lv && $lv->{break_signatures}[0]{file} // '', qr{/br\\xe9ak\.pem$},
        'the break signature file, with \xe9');

    $r = $get->('');
    my $lhtml = $r->{content} // '';
    like($lhtml, qr{<h2>caf\\xe9\.test:$lp</h2>}, 'HTML: the ServerName with \xe9');
    like($lhtml, qr{TackFile <code>\S*/caf\\xe9\.tack\.pem</code>}, 'HTML: the TackFile');
    like($lhtml, qr{from \S*/br\\xe9ak\.pem</li>}, 'HTML: the break signature file');
    like($lhtml, qr{<h2>caf\xc3\xa9\.test:$lp</h2>}, 'HTML: UTF-8 kept as it is');
    ok(utf8::decode(my $copy = $lhtml), 'HTML: valid UTF-8 throughout');
    # The certificates are for l.test and u.test.
    log_clean(0, [qr/AH01909: .* server certificate does NOT include an ID/],
        $l->error_log);
    $l->stop;
}

# ---- many processes, restarts -------------------------------------------------
# prefork, one connection per child: each handshake and each status request
# is served by a different process.
my $h = TackTest::Httpd->new('status');
my $root = $h->root;
make_cert($root, 'm.test', 'ec', 'm.test');
make_key("$root/k.key");
write_file("$root/m.pem", pem('TACK', tack_bytes(key => "$root/k.key",
    cert => "$root/m.test.crt")));
$h->write_conf(<<'C', mpm => 'prefork');
StartServers 12
MinSpareServers 12
MaxSpareServers 30
MaxRequestWorkers 40
MaxConnectionsPerChild 1
<Location /tack-status>
    SetHandler tack-status
</Location>
<VirtualHost 127.0.0.1:@PORT@>
    ServerName m.test
    SSLEngine on
    SSLCertificateFile m.test.crt
    SSLCertificateKeyFile m.test.key
    TackFile m.pem
</VirtualHost>
C
my ($rc, $out) = $h->start;
is($rc, 0, 'prefork server started') or diag($out);

my $http = HTTP::Tiny->new(verify_SSL => 0, timeout => 10);
my $count = sub {
    my $r = $http->get('https://127.0.0.1:' . $h->port . '/tack-status?json');
    return 'no status' unless $r->{success};
    my $v = decode_json($r->{content})->{vhosts}[0];
    return "$v->{handshakes}{requested}/$v->{handshakes}{served}";
};
for (1 .. 5) {
    probe(port => $h->port, name => 'm.test', version => '1.2');
}
probe(port => $h->port, name => 'm.test', version => '1.2', args => '-N');
is($count->(), '5/5', 'five handshakes in five processes, counted in a sixth');
is($count->(), '5/5', 'and read the same from a seventh');

$mark = log_mark($h->error_log);
ok($h->graceful, 'graceful restart');
is($count->(), '5/5', 'the counters survive a graceful restart');
probe(port => $h->port, name => 'm.test', version => '1.2') for 1 .. 2;
is($count->(), '7/7', 'and go on counting');

$mark = log_mark($h->error_log);
($rc) = $h->run_httpd('-k', 'restart');
ok($h->wait_ready($mark), 'full restart');
is($count->(), '7/7', 'the counters survive a full restart too');

$h->stop;
($rc) = $h->start;
is($count->(), '0/0', 'stop and start: from zero');
log_clean(0, [], $h->error_log);
$h->stop;
