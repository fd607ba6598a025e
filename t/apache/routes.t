# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Routes that cannot fight (issue 44, item 2).  Two guides' blocks pasted
# at server level each bring a TackStore line: the one read later used to
# win silently, by include order; now apache2 -t refuses two TackStore
# lines of different directories in one context, naming both, and a real
# start says so (TACK00148) and goes on.  And TackSigningKey writes only
# into a store of root's: a store owned by TackStoreOwner's user is a
# hook's, another route's, and is left to it (the TACK is served from
# memory, TACK00035 says why).  (mod_md's fallback certificate, never
# signed: t/acme/md-signing.t.)
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert write_file store_name);

plan tests => 14;

my $TACK = top_dir() . '/tack';
my $h = TackTest::Httpd->new('routes');
my $d = $h->root;
my $port = $h->port;
make_cert($d, 'a', 'ec', 'a.test');
mkdir "$d/$_" for qw(store1 store2 hook);
my $r = TackHelpers::run_cmd({ merge => 1 }, $TACK, 'genkey', '-p', 'sekrit',
                             '-o', "$d/sign.key");
die "genkey: $r->{out}" if $r->{rc};
write_file("$d/pw", "sekrit\n");
chmod 0600, "$d/pw";

my $vhost = <<"C";
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
    TackRequired off
</VirtualHost>
C
# The two blocks as two files, included at server level.
write_file("$d/hosting.conf", "TackStore $d/store1\n");
write_file("$d/signing.conf", "TackStore $d/store2\n");
$h->write_conf("Include $d/hosting.conf\nInclude $d/signing.conf\n$vhost");
my ($rc, $out) = $h->configtest;
isnt($rc, 0, 'two TackStore lines of different directories at server level: apache2 -t refuses');
like($out, qr/TackStore \Q$d\E\/store1 \(\Q$d\E\/hosting\.conf:1\) and TackStore \Q$d\E\/store2 \(\Q$d\E\/signing\.conf:1\) in one context: the one read later would replace the other silently, by the order of the included files; keep one \(a TackStore of its own in each virtual host that needs another\)/,
     '... naming both, where each is') or diag($out);
# A real start is never refused for it: said, the later one used.
write_file("$d/signing.conf", '');
$h->write_conf("Include $d/hosting.conf\nInclude $d/signing.conf\n$vhost");
($rc, $out) = $h->start;
is($rc, 0, 'started with one TackStore') or diag($out);
write_file("$d/signing.conf", "TackStore $d/store2\n");
my $mark = log_mark($h->error_log);
ok($h->graceful, 'a restart by signal with both: not fatal');
like(log_since($mark, $h->error_log), qr/\[tack:warn\].*TACK00148: vhost \S+: TackStore \Q$d\E\/store1 \(\S+hosting\.conf:1\) and TackStore \Q$d\E\/store2 \(\S+signing\.conf:1\) in one context: .*; the later is used/,
     '... logged, naming both');
ok(probe(port => $port, name => 'a.test', version => '1.2')->{ok}, '... and the site is up');
# The same directory twice (two copies of one block) is one store.
write_file("$d/signing.conf", "TackStore $d/store1/\n");
($rc, $out) = $h->configtest;
is($rc, 0, 'the same directory twice: Syntax OK') or diag($out);
$h->stop;

# ---- TackSigningKey and a store another route owns ----------------------------
write_file("$d/signing.conf", '');
$h->write_conf(<<"C" . $vhost);
TackStoreOwner daemon
TackStore $d/hook
TackSigningKey \@ROOT\@/sign.key
TackSigningPassword file:\@ROOT\@/pw
C
# (TackStoreOwner daemon: a signing user of its own, not httpd's children's,
# as the hooks' stores have.)
chown scalar(getpwnam('daemon')), -1, "$d/hook" or die "chown: $!";
$mark = log_mark($h->error_log);
($rc, $out) = $h->start;
is($rc, 0, 'started: TackSigningKey with a TackStore owned by TackStoreOwner') or diag($out);
my $file = "$d/hook/" . store_name("$d/a.crt", 'a.test', 'ecdsa');
my $t = TackHelpers::wait_until(20, sub { served_tack($port, 'a.test') });
ok($t, 'a TACK is signed and served') or diag(log_since($mark, $h->error_log));
ok(!-e $file, '... but not written into the store another route owns');
like(log_since($mark, $h->error_log), qr/TACK00035: vhost a\.test:$port: TackStore \Q$d\E\/hook: owned by uid \d+, not root: another route's store \(TackStoreOwner\), which TackSigningKey does not write into \(chown root \Q$d\E\/hook to let it\); the TACK signed for \S+ certificate \/CN=a\.test is served from memory/,
     '... saying why and how to let it') or diag(log_since($mark, $h->error_log));
$h->stop;
# Given to root, it is written.
chown 0, -1, "$d/hook" or die "chown: $!";
$mark = log_mark($h->error_log);
($rc, $out) = $h->start;
is($rc, 0, 'the store given to root: started') or diag($out);
ok(TackHelpers::wait_until(20, sub { -f $file }), '... and TackSigningKey writes the TACK into it')
    or diag(log_since($mark, $h->error_log));
unlike(log_since($mark, $h->error_log), qr/TACK00035/, '... with nothing to say');
$h->stop;
