# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The tack-status handler (t/conf/extra.conf.in: <Location /tack-status>):
# for each SSL vhost the TACK served per certificate, break signatures,
# settings and handshake counters, as HTML and as JSON (?json); a section of
# mod_status's page.  Then a private prefork server with one connection per
# child process shows the counters are shared by all processes and survive
# graceful and full restarts.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET POST);
use HTTP::Tiny;
use JSON::PP qw(decode_json);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes tackpy_pem write_file spki_hash
    key_public fingerprint);

plan tests => 130;

my $mark = log_mark();
my $port = ssl_port();
my $fp = sub { fingerprint(key_public(fx("$_[0].key"))) };

sub status_json {
    my $res = GET('/tack-status?json');
    return ($res, $res->is_success ? decode_json($res->content) : undef);
}
# promtool($what, $text): promtool check $what (metrics: the text on
# stdin; rules: the file $text); (exit status, output).  Never skipped: a
# missing promtool (Debian "prometheus", scripts/deps.sh) fails the test.
sub promtool {
    my ($what, $text) = @_;
    my $tmp = t_dir() . "/tmp/promtool.$$";
    TackHelpers::write_file($tmp, $text) if $what eq 'metrics';
    my $cmd = $what eq 'metrics' ? "promtool check metrics < $tmp"
        : "promtool check rules $text";
    my $out = qx{$cmd 2>&1};
    my $rc = $? == -1 ? 127 : $? >> 8;
    unlink $tmp if $what eq 'metrics';
    return ($rc, $out);
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
ok(!$t->{expired}, 'not expired');
is_deeply([exists $t->{active}, $t->{activates_pins}], ['', JSON::PP::true],
    'a.test (pin activation on): "activates_pins": true, no "active" member');
my $bt = vhost_of($doc, 'b.test')->{certificates}[0]{tacks}[0];
ok(!$bt->{expired} && exists $bt->{activates_pins} && !$bt->{activates_pins},
    'b.test (pin activation off): served, "activates_pins": false');

# Configuration order (t/conf/extra.conf.in), in the JSON as on the page.
my @conf_order = do {
    open my $fh, '<', top_dir() . '/t/conf/extra.conf.in' or die $!;
    map { /^<VirtualHost (\S+):tack_ssl\d*>/ ? ("$1") : () } <$fh>;
};
my @json_order = grep { my $n = $_; grep { $_ eq $n } @conf_order }
    map { (split /:/, $_->{name})[0] } @{ $doc->{vhosts} };
is("@json_order", "@conf_order", 'JSON: vhosts in configuration order');

# Problems, gathered and named: c.test (break signatures only) serves no
# TACK; default.test has none configured (TackRequired off by default: no
# problem).
my $cp = vhost_of($doc, 'c.test')->{problems};
is_deeply($cp, [{ severity => 'error', kind => 'no_tack',
    certificate => '/CN=c.test', key_type => 'ECDSA',
    message => 'no TACK for this certificate' }],
    'JSON: c.test: its problem named (no TACK for /CN=c.test)');
is_deeply(vhost_of($doc, 'default.test')->{problems}, [],
    'JSON: default.test (nothing configured: not required to serve a TACK): no problem');
is_deeply([map { vhost_of($doc, $_)->{tack_required} ? 1 : 0 } qw(c.test default.test)], [1, 0],
    'JSON: "tack_required": c.test (break signatures) yes, default.test no');
is_deeply(vhost_of($doc, 'a.test')->{problems}, [], 'JSON: a.test: no problem');
my ($nerr, $nwarn) = map { $doc->{summary}{$_} // -1 } qw(errors warnings);
ok($nerr >= 1 && $nwarn >= 0,
    "JSON: summary counts them ($nerr errors, $nwarn warnings)");

my $d = vhost_of($doc, 'd.test');
is_deeply([sort map { $_->{key_type} } @{ $d->{certificates} }], ['ECDSA', 'RSA'],
    'd.test: two certificates, each with its TACK');
ok($d->{tls13}, 'd.test: TLS 1.3 on');
my $e = vhost_of($doc, 'e.test');
is($e->{format}, 'draft-02', 'e.test: draft-02');
is_deeply([map { $_->{activates_pins} ? 1 : 0 } @{ $e->{certificates}[0]{tacks} }], [1, 0],
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
my $ncerts = 0;
$ncerts += @{ $_->{certificates} } || 1 for @{ $doc->{vhosts} };
my ($vtable) = $html =~ m{<table class="vhosts">(.*?)</table>}s;
my $rows = () = ($vtable // '') =~ /<tr[ >]/g;
is($rows - 1, $ncerts, "HTML: one row per vhost and certificate ($ncerts)");
my @html_order = grep { my $n = $_; grep { $_ eq $n } @conf_order }
    ($vtable // '') =~ m{<td rowspan="\d+" class="v[^"]*" id="v\w+">([\w.]+):\d+}g;
is("@html_order", "@conf_order", 'HTML: vhosts in configuration order');
like($vtable, qr{id="v\w+">a\.test:$port</td><td rowspan="1" class="v" title="no TackStore">draft-00, pins</td><td rowspan="1" class="v n" title="\Q${\$fp->('kb1')}\E from \S+a\.breaks\.pem\n\Q${\$fp->('kb2')}\E from \S+a\.breaks\.pem">2</td>},
    'a.test: name, settings (draft-00, pins), break signatures counted, listed in the title');
like($vtable, qr{<span class="e c" title="ECDSA /CN=a\.test">ECDSA /CN=a\.test</span></td><td><code>\Q${\$fp->('k1')}\E</code></td><td>1/2</td>},
    'a.test: certificate, TACK key and generations in its one row');
my $ahash = $c->{spki_sha256};
like($vtable, qr{<code title="$ahash">\Q${\substr($ahash, 0, 8)}\E&hellip;</code>},
    'a.test: the target hash shortened to 8 hex digits, whole in the title');
unlike($html, qr{>$ahash<}, 'no 64-hex hash as text on the page');
like($vtable, qr{file <span class="e f" title="\S+/a\.tack\.pem">a\.tack\.pem</span>},
    'a.test: the file by its name, the full path in the title');
like($html, qr{<code>\Q${\$fp->('k2')}\E</code> \(inactive\)}, 'e.test: the inactive TACK');
like($vtable, qr{<tr class="bad"><td[^>]*>c\.test:$port</td>.*?<td colspan="6" class="bad">no TACK</td>}s,
    'c.test: "no TACK" highlighted, its row marked');
my $problems_at = index($html, '<h2 id="problems">');
ok($problems_at > 0 && $problems_at < index($html, '<table class="vhosts">'),
    'HTML: the problems come before the vhosts');
like($html, qr{<h2 id="problems">Problems: \d+ errors?, \d+ warnings?</h2>}, 'HTML: counted');
like($html, qr{<tr class="bad"><td>error</td><td><a href="#v\w+">c\.test:$port</a></td><td><span class="e" title="ECDSA /CN=c\.test">ECDSA /CN=c\.test</span></td><td class="m">no TACK for this certificate</td></tr>},
    'HTML: c.test\'s problem named: vhost, certificate, what is wrong');
like($html, qr{<a href="\?json">JSON</a>}, 'a link to the JSON');
like($html, qr{<a href="\?metrics">metrics</a>}, 'and to the metrics');

$res = POST('/tack-status', content => 'x');
is($res->code, 405, 'POST: 405');
$res = GET('/tack-status-denied');
is($res->code, 403, 'Require all denied is honoured (access control is httpd\'s)');

# ---- metrics (Prometheus) ---------------------------------------------------
$res = GET('/tack-status?metrics');
ok($res->is_success, 'GET /tack-status?metrics');
is($res->header('Content-Type'), 'text/plain; version=0.0.4; charset=utf-8',
    'in the Prometheus text format 0.0.4');
my $prom = $res->content;
my ($prc, $pout) = promtool('metrics', $prom);
is($prc, 0, 'promtool check metrics: clean') or diag($pout);
(undef, $doc) = status_json();
my $ah = vhost_of($doc, 'a.test')->{certificates}[0]{handshakes};
my $al = qq{vhost="a.test:$port",key_type="ECDSA",subject="/CN=a.test"};
like($prom, qr/^tack_handshakes_requested_total\{\Q$al\E\} $ah->{requested}$/m,
    'a.test: requested handshakes, as in the JSON');
like($prom, qr/^tack_handshakes_served_total\{\Q$al\E\} $ah->{served}$/m, 'and served');
like($prom, qr/^# TYPE tack_handshakes_served_total counter$/m, 'a counter');
my $ak = qq{$al,key="${\$fp->('k1')}"};
like($prom, qr/^tack_generation\{\Q$ak\E\} 2$/m, 'a.test: generation');
like($prom, qr/^tack_min_generation\{\Q$ak\E\} 1$/m, 'min_generation');
like($prom, qr/^tack_activates_pins\{\Q$ak\E\} 1$/m, 'activates pins');
my ($exp_ts) = $prom =~ /^tack_expiry_timestamp_seconds\{\Q$ak\E\} (\d+)$/m;
my ($left) = $prom =~ /^tack_expiry_seconds_left\{\Q$ak\E\} (-?\d+)$/m;
ok($exp_ts && abs($exp_ts - time - $left) <= 5 && int($left / 86400) == $t->{days_left},
    "expiry timestamp and seconds left agree with days_left ($t->{days_left})");
like($prom, qr/^tack_certificate_tacks\{vhost="c\.test:$port",key_type="ECDSA",subject="\/CN=c\.test"\} 0$/m,
    'c.test: serves no TACK (0)');
like($prom, qr/^tack_vhost_required\{vhost="c\.test:$port"\} 1$/m,
     'metrics: c.test is required to serve a TACK');
like($prom, qr/^tack_vhost_required\{vhost="default\.test:$port"\} 0$/m,
     '... default.test is not');
like($prom, qr/^tack_vhost_problems\{vhost="c\.test:$port",kind="no_tack"\} 1$/m,
    'c.test: the problem as a gauge');
like($prom, qr/^tack_vhost_problems\{vhost="a\.test:$port",kind="expiring"\} 0$/m,
    'a.test: 0 for each kind it does not have');
like($prom, qr/^tack_vhost_pin_activation\{vhost="b\.test:$port"\} 0$/m,
    'b.test: pin activation off');
my @prom_order = grep { my $n = $_; grep { $_ eq $n } @conf_order }
    $prom =~ /^tack_vhost_info\{vhost="([\w.]+):\d+"/mg;
is("@prom_order", "@conf_order", 'metrics: vhosts in configuration order');

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
    write_file("$lr/caf\xe9.tack.pem", tackpy_pem('TACK', tack_bytes(key => "$lr/lk.key",
        cert => "$lr/l.test.crt")));
    write_file("$lr/br\xe9ak.pem", tackpy_pem('TACK BREAK SIG',
        TackHelpers::breaksig_bytes("$lr/lb.key")));
    mkdir "$lr/st\xe9\\re";
    write_file("$lr/st\xe9\\re/u.test.tack.pem", tackpy_pem('TACK', tack_bytes(
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
    like($lhtml, qr{id="v\w+">caf\\xe9\.test:$lp</td>}, 'HTML: the ServerName with \xe9');
    like($lhtml, qr{file <span class="e f" title="\S*/caf\\xe9\.tack\.pem">caf\\xe9\.tack\.pem</span>},
        'HTML: the TackFile');
    like($lhtml, qr{ from \S*/br\\xe9ak\.pem">1</td>}, 'HTML: the break signature file');
    like($lhtml, qr{id="v\w+">caf\xc3\xa9\.test:$lp</td>}, 'HTML: UTF-8 kept as it is');
    ok(utf8::decode(my $copy = $lhtml), 'HTML: valid UTF-8 throughout');
    my $lprom = $get->('?metrics')->{content} // '';
    my ($lprc, $lpout) = promtool('metrics', $lprom);
    is($lprc, 0, 'metrics: promtool check metrics: clean') or diag($lpout);
    like($lprom, qr/^tack_vhost_info\{vhost="caf\xc3\xa9\.test:$lp",format="draft-00",store="\Q$lr\E\/st\\\\xe9\\\\\\\\re"\} 1$/m,
        'metrics: UTF-8 kept, 0xE9 as \\xe9 and the backslashes escaped');
    # The certificates are for l.test and u.test.
    log_clean(0, [qr/AH01909: .* server certificate does NOT include an ID/],
        $l->error_log);
    $l->stop;
}

# ---- problems first, named; label values escaped -----------------------------
# A private server whose vhosts have each kind of problem, in this order:
# ok.test (none), soon.test (its TACK expires in 10 days: a warning),
# none.test (a TackStore without its TACK: an error), and q"uo\te.test
# whose certificate's subject holds quotes, a backslash and UTF-8.  The
# store also holds a malformed and an expired file.
{
    my $q = TackTest::Httpd->new('status-problems');
    my $qr = $q->root;
    make_cert($qr, $_, 'ec', $_) for qw(ok.test soon.test none.test);
    TackHelpers::must_run(qq{openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256}
        . qq{ -nodes -sha256 -days 90 -utf8 -subj '/O=Q "uo" \\\\ b/CN=caf\xc3\xa9.test'}
        . qq{ -addext basicConstraints=critical,CA:FALSE}
        . qq{ -keyout $qr/q.key -out $qr/q.crt});
    make_key("$qr/$_.key") for qw(k1 k2);
    write_file("$qr/ok.pem", tackpy_pem('TACK', tack_bytes(key => "$qr/k1.key",
        cert => "$qr/ok.test.crt")));
    write_file("$qr/soon.pem", tackpy_pem('TACK', tack_bytes(key => "$qr/k2.key",
        cert => "$qr/soon.test.crt",
        expiration => TackHelpers::minutes_from_now(10 * 24 * 60))));
    write_file("$qr/q.pem", tackpy_pem('TACK', tack_bytes(key => "$qr/k1.key",
        cert => "$qr/q.crt")));
    mkdir "$qr/store";
    write_file("$qr/store/broken.tack.pem", "-----BEGIN TACK-----\nAAAA\n-----END TACK-----\n");
    write_file("$qr/store/old.tack.pem", tackpy_pem('TACK', tack_bytes(key => "$qr/k1.key",
        cert => "$qr/none.test.crt",
        expiration => TackHelpers::minutes_from_now(-60))));
    $q->write_conf(<<"C");
<Location /tack-status>
    SetHandler tack-status
</Location>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName ok.test
    SSLEngine on
    SSLCertificateFile ok.test.crt
    SSLCertificateKeyFile ok.test.key
    TackFile ok.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName soon.test
    SSLEngine on
    SSLCertificateFile soon.test.crt
    SSLCertificateKeyFile soon.test.key
    TackFile soon.pem
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName none.test
    SSLEngine on
    SSLCertificateFile none.test.crt
    SSLCertificateKeyFile none.test.key
    TackStore store
</VirtualHost>
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName q"uo\\te.test
    SSLEngine on
    SSLCertificateFile q.crt
    SSLCertificateKeyFile q.key
    TackFile q.pem
</VirtualHost>
C
    my ($qrc, $qout) = $q->start;
    is($qrc, 0, 'a server with a problem of each kind started') or diag($qout);
    my $qp = $q->port;
    my $get = sub {
        HTTP::Tiny->new(verify_SSL => 0, timeout => 10)
            ->get("https://127.0.0.1:$qp/tack-status$_[0]")->{content} // '';
    };
    my $qdoc = eval { decode_json($get->('?json')) } || {};
    is(join(' ', map { $_->{name} } @{ $qdoc->{vhosts} || [] }),
        "ok.test:$qp soon.test:$qp none.test:$qp q\"uo\\\\te.test:$qp",
        'JSON: configuration order (a backslash is shown doubled)');
    my %qv = map { $_->{name} => $_ } @{ $qdoc->{vhosts} || [] };
    my $soon = $qv{"soon.test:$qp"}{problems}[0] // {};
    is(join(' ', map { $_ // '' } @$soon{qw(severity kind)}), 'warning expiring',
        'soon.test: expiring');
    like($soon->{message} // '', qr/^TACK key \S+ expires in (9|10) days \(\S+\): \S+\/soon\.pem$/,
        'named: key, time left, date, file');
    is_deeply([map { "$_->{kind}" } @{ $qdoc->{stores}[0]{problems} || [] }],
        ['malformed', 'expired_file'], 'JSON: the store\'s problems');

    my $qhtml = $get->('');
    my ($ptable) = $qhtml =~ m{<table class="problems">(.*?)</table>}s;
    my @kinds = ($ptable // '') =~ m{<tr class="(bad|warn)">}g;
    is("@kinds", 'bad bad warn warn', 'HTML: errors first, then warnings');
    # none.test's only TACK is the store's expired one: counted as expired,
    # not as "no TACK" (issue 15)
    like($ptable // '', qr{^.*?none\.test:$qp.*?TACK key \S+ expired \S+, not served: \S+old\.tack\.pem.*?broken\.tack\.pem: line 1: wrong length.*?soon\.test:$qp.*?expires in (9|10) days}s,
        'HTML: none.test\'s error, the store\'s, then soon.test\'s warning, each named');
    like($qhtml, qr{<h2 id="problems">Problems: 2 errors, 2 warnings</h2>}, 'HTML: counted');
    like($qhtml, qr{soonest expiry \S+ \(soon\.test:$qp\)}, 'HTML: the soonest expiry names its vhost');

    my $qprom = $get->('?metrics');
    my ($rc2, $o2) = promtool('metrics', $qprom);
    is($rc2, 0, 'promtool check metrics: clean with quotes, backslashes, UTF-8') or diag($o2);
    my $qsub = $qv{"q\"uo\\\\te.test:$qp"}{certificates}[0]{subject} // '?';
    like($qsub, qr/"uo"/, 'the subject has quotes');
    like($qsub, qr{/CN=caf\x{e9}\.test$},
         'JSON: its UTF-8 value is kept, not escaped (caf\xC3\xA9 before)');
    like($qhtml, qr{/CN=caf\xc3\xa9\.test}, 'HTML: UTF-8 too');
    (my $esc = $qsub) =~ s/([\\"])/\\$1/g;
    utf8::encode($esc);   # the metrics text is UTF-8 bytes
    like($qprom, qr/^tack_certificate_tacks\{vhost="q\\"uo\\\\\\\\te\.test:$qp",key_type="ECDSA",subject="\Q$esc\E"\} 1$/m,
        'label values escaped: \" and \\\\');
    like($qprom, qr/^tack_vhost_problems\{vhost="soon\.test:$qp",kind="expiring"\} 1$/m,
        'soon.test: expiring = 1');
    like($qprom, qr/^tack_vhost_problems\{vhost="none\.test:$qp",kind="expired"\} 1$/m,
        'none.test: expired = 1 (its store TACK expired before the start)');
    like($qprom, qr/^tack_vhost_problems\{vhost="none\.test:$qp",kind="no_tack"\} 0$/m,
        '... and no_tack = 0');
    like($qprom, qr/^tack_store_problems\{store="\Q$qr\E\/store",kind="malformed"\} 1$/m,
        'the store: malformed = 1');
    like($qprom, qr/^tack_store_problems\{store="\Q$qr\E\/store",kind="expired_file"\} 1$/m,
        'the store: expired_file = 1');

    # The alert rules of docs/hosting-guide.md, as written.
    my $guide = do { local (@ARGV, $/) = top_dir() . '/docs/hosting-guide.md'; <> };
    my ($rules) = $guide =~ /```yaml\n(# tack-alerts\.yml.*?)```/s;
    ok($rules, 'the hosting guide has the alert rules (tack-alerts.yml)');
    write_file("$qr/tack-alerts.yml", $rules // '');
    my ($rc3, $o3) = promtool('rules', "$qr/tack-alerts.yml");
    is($rc3, 0, 'promtool check rules: the guide\'s rules are valid') or diag($o3);
    like($rules // '', qr/tack_expiry_seconds_left\b.*14 \* 86400/s, 'one for a TACK expiring within 14 days');
    like($rules // '', qr/tack_certificate_tacks\b.*== 0/s, 'one for a certificate serving no TACK');

    log_clean(0, [qr/AH01909: .* server certificate does NOT include an ID/,
        qr/TACK00010: .*soon\.pem/, qr/TACK00017: .*broken\.tack\.pem/,
        qr/TACK00018: .*old\.tack\.pem/], $q->error_log);
    $q->stop;
}

# ---- many processes, restarts -------------------------------------------------
# prefork, one connection per child: each handshake and each status request
# is served by a different process.
my $h = TackTest::Httpd->new('status');
my $root = $h->root;
make_cert($root, 'm.test', 'ec', 'm.test');
make_key("$root/k.key");
write_file("$root/m.pem", tackpy_pem('TACK', tack_bytes(key => "$root/k.key",
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
