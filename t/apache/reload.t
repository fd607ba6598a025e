# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Graceful and full restarts pick up edited files; a bad edit is refused by
# apache2ctl (which runs "apache2 -t" first) and the running server keeps
# serving the last good configuration.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem write_file);

plan tests => 20;

my $h = TackTest::Httpd->new('reload');
my $d = $h->root;
make_cert($d, 'r.test', 'ec', 'r.test');
make_key("$d/$_.key") for qw(k1 k2 k3 kb1 kb2);
my %t = map { $_ => tack_bytes(key => "$d/$_.key", cert => "$d/r.test.crt") } qw(k1 k2 k3);
my %b = map { $_ => breaksig_bytes("$d/$_.key") } qw(kb1 kb2);

write_file("$d/r.pem", tackpy_pem('TACK', $t{k1}));
write_file("$d/rb.pem", tackpy_pem('TACK BREAK SIG', $b{kb1}));
$h->write_conf(<<'C');
<VirtualHost 127.0.0.1:@PORT@>
    ServerName r.test
    SSLEngine on
    SSLCertificateFile r.test.crt
    SSLCertificateKeyFile r.test.key
    Include tack.conf
</VirtualHost>
C
write_file("$d/tack.conf", "TackFile r.pem\nTackBreakSigsFile rb.pem\n");

my $get = sub { probe(port => $h->port, name => 'r.test', version => '1.2')->{ext} };

my ($rc, $out) = $h->start;
is($rc, 0, 'started') or diag($out);
is(hex($get->()), hex(body00($t{k1}, [$b{kb1}], 0)), 'serves TACK k1 and one break signature');

# 1. edit the files, apache2ctl graceful
write_file("$d/r.pem", tackpy_pem('TACK', $t{k2}));
write_file("$d/rb.pem", tackpy_pem('TACK BREAK SIG', $b{kb1}, $b{kb2}));
my $mark = log_mark($h->error_log);
($rc, $out) = $h->ctl('graceful');
is($rc, 0, 'apache2ctl graceful') or diag($out);
ok($h->wait_ready($mark), 'new generation running');
is(hex($get->()), hex(body00($t{k2}, [$b{kb1}, $b{kb2}], 0)),
    'graceful: the edited TACK and break signatures are served');

# 2. a bad edit: refused, the old bytes still go out
write_file("$d/r.pem", tackpy_pem('TACK', tack_bytes(key => "$d/k3.key",
    cert => "$d/r.test.crt", corrupt => 1)));
($rc, $out) = $h->ctl('graceful');
isnt($rc, 0, 'apache2ctl graceful refuses a bad TACK file');
like($out, qr{TackFile \S+/r\.pem: TACK: signature does not verify}, 'and says why');
ok($h->alive, 'the server keeps running');
is(hex($get->()), hex(body00($t{k2}, [$b{kb1}, $b{kb2}], 0)),
    'and keeps serving the last good configuration');
($rc, $out) = $h->ctl('configtest');
isnt($rc, 0, 'apache2ctl configtest fails too');

# 3. fixed, a graceful restart by apache2 itself
write_file("$d/r.pem", tackpy_pem('TACK', $t{k3}));
$mark = log_mark($h->error_log);
($rc, $out) = $h->run_httpd('-k', 'graceful');
is($rc, 0, 'apache2 -k graceful') or diag($out);
ok($h->wait_ready($mark), 'new generation running');
is(hex($get->()), hex(body00($t{k3}, [$b{kb1}, $b{kb2}], 0)), 'serves TACK k3');

# 4. a full restart with an edited included configuration
write_file("$d/tack.conf", "TackFile r.pem\nTackPinActivation on\n");
$mark = log_mark($h->error_log);
($rc, $out) = $h->ctl('restart');
is($rc, 0, 'apache2ctl restart') or diag($out);
ok($h->wait_ready($mark), 'restarted');
is(hex($get->()), hex(body00($t{k3}, [], 1)),
    'full restart: activation on, break signatures gone');

# 5. draft-02 after a graceful restart
write_file("$d/tack.conf", "TackFormat draft-02\nTackFile r.pem\n"
    . "TackPinActivation on\n");
$mark = log_mark($h->error_log);
($rc, $out) = $h->ctl('graceful');
is($rc, 0, 'apache2ctl graceful to draft-02');
ok($h->wait_ready($mark), 'new generation running');
is(hex($get->()), hex(body02([$t{k3}], 1)), 'draft-02 body served');

log_clean(0, [], $h->error_log);
$h->stop;
