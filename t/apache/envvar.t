# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Knowing who asks: every request of a connection whose full handshake
# asked for TACK gets TACK_REQUESTED=1, and TACK_SERVED=<key fingerprints>
# when that handshake carried a TACK; LogFormat "%{TACK_REQUESTED}e"
# measures adoption, "Require env TACK_REQUESTED" can act on it.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem write_file
    key_public fingerprint);

plan tests => 16;

my $h = TackTest::Httpd->new('envvar');
my $d = $h->root;
make_cert($d, $_, 'ec', $_) for qw(a.test b.test c.test p.test);
make_key("$d/$_.key") for qw(k1 k2 kb);
my $fp = sub { fingerprint(key_public("$d/$_[0].key")) };
write_file("$d/a.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k1.key", cert => "$d/a.test.crt")));
write_file("$d/c.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k2.key", cert => "$d/c.test.crt")));
write_file("$d/p.pem", tackpy_pem('TACK',
    tack_bytes(key => "$d/k1.key", cert => "$d/p.test.crt"),
    tack_bytes(key => "$d/k2.key", cert => "$d/p.test.crt")));
write_file("$d/b.breaks", tackpy_pem('TACK BREAK SIG', breaksig_bytes("$d/kb.key")));
mkdir "$d/htdocs";
write_file("$d/htdocs/index.html", "hello\n");
mkdir "$d/htdocs/pinned";
write_file("$d/htdocs/pinned/index.html", "for TACK clients\n");

sub vh {
    my ($name, $body) = @_;
    return "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName $name\n"
        . "    SSLEngine on\n    SSLCertificateFile $name.crt\n"
        . "    SSLCertificateKeyFile $name.key\n    $body\n</VirtualHost>\n";
}
$h->write_conf("DocumentRoot \@ROOT\@/htdocs\n"
    . "LogFormat \"%v %r|%{TACK_REQUESTED}e|%{TACK_SERVED}e|\" tack\n"
    . "CustomLog \@ROOT\@/logs/tack_log tack\n"
    . "<Location /pinned>\n    Require env TACK_REQUESTED\n</Location>\n"
    . vh('a.test', 'TackFile a.pem')
    . vh('b.test', 'TackBreakSigsFile b.breaks')
    . vh('c.test', "TackFile c.pem\n    TackTLS13 on")
    . vh('p.test', "TackFormat draft-02\n    TackFile p.pem"));

my ($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);

my $log = "$d/logs/tack_log";
my $seen = 0;
# last_lines(): the access-log lines written since the previous call
sub last_lines {
    for (1 .. 20) {
        last if (-s $log || 0) > $seen;
        select(undef, undef, undef, 0.1);
    }
    open my $fh, '<', $log or return ();
    seek $fh, $seen, 0;
    my @l = <$fh>;
    $seen = tell $fh;
    chomp @l;
    return @l;
}

my %p = (port => $h->port);
probe(%p, name => 'a.test', version => '1.2');
my ($l) = last_lines();
is($l, "a.test HEAD / HTTP/1.0|1|" . $fp->('k1') . '|',
    'asked and served: TACK_REQUESTED=1, TACK_SERVED=the key fingerprint');

probe(%p, name => 'a.test', version => '1.2', args => '-N');
($l) = last_lines();
is($l, 'a.test HEAD / HTTP/1.0|-|-|', 'not asked: neither variable');

probe(%p, name => 'b.test', version => '1.2');
($l) = last_lines();
is($l, 'b.test HEAD / HTTP/1.0|1|-|',
    'asked, answered with break signatures only: TACK_REQUESTED alone');

probe(%p, name => 'p.test', version => '1.2');
($l) = last_lines();
is($l, 'p.test HEAD / HTTP/1.0|1|' . $fp->('k1') . ' ' . $fp->('k2') . '|',
    'draft-02 pair: both fingerprints, space-separated');

probe(%p, name => 'c.test', version => '1.3');
($l) = last_lines();
is($l, 'c.test HEAD / HTTP/1.0|1|' . $fp->('k2') . '|',
    'TLS 1.3 with TackTLS13 on: served in EncryptedExtensions');

probe(%p, name => 'a.test', version => '1.3');
($l) = last_lines();
is($l, 'a.test HEAD / HTTP/1.0|-|-|',
    'TLS 1.3 with TackTLS13 off: the request is not processed, no variable');

# every request of a keep-alive connection
my $req = "HEAD / HTTP/1.1\\r\\nHost: a.test\\r\\n\\r\\n"
    . "HEAD /index.html HTTP/1.1\\r\\nHost: a.test\\r\\nConnection: close\\r\\n\\r\\n";
qx{printf '$req' | openssl s_client -quiet -connect 127.0.0.1:$p{port} -servername a.test -tls1_2 -serverinfo 62208 2>&1};
my @l = last_lines();
is(scalar @l, 2, 'two requests on one connection');
is($l[0], 'a.test HEAD / HTTP/1.1|1|' . $fp->('k1') . '|', 'the first has the variables');
is($l[1], 'a.test HEAD /index.html HTTP/1.1|1|' . $fp->('k1') . '|',
    'and so has the second');

# a resumed session: the TACK went out on the first connection only
my $sess = "$d/sess.pem";
probe(%p, name => 'a.test', version => '1.2', args => "-o $sess");
last_lines();
my $r = probe(%p, name => 'a.test', version => '1.2', args => "-i $sess");
is($r->{resumed}, 1, 'second connection resumed');
($l) = last_lines();
is($l, 'a.test HEAD / HTTP/1.0|-|-|',
    'resumed: no handshake extension, no variable (documented)');

# access control on it
$r = probe(%p, name => 'a.test', version => '1.2', args => '-p /pinned/');
like($r->{http}, qr/ 200 /, 'Require env TACK_REQUESTED: a TACK client gets in');
$r = probe(%p, name => 'a.test', version => '1.2', args => '-N -p /pinned/');
like($r->{http}, qr/ 403 /, 'and another client does not');
last_lines();

log_clean(0, [qr/AH01630: client denied by server configuration/,
               qr/TACK00074: vhost b\.test/], $h->error_log);
like(log_since(0, $h->error_log), qr/AH01630/, 'the denial was logged by httpd');
$h->stop;
