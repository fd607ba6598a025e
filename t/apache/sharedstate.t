# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# A TackStateFile two httpds share (Debian's apache2@INSTANCE share
# /var/lib/apache2, and so the default /var/lib/apache2/tack/state.json):
# what the other one writes while this one's restart runs must not be lost.
# Each pass reads the file at its start and writes it at its end; under
# the file's lock the writer reads it again and keeps what another wrote
# meanwhile.
#
# The other httpd's write is made to land inside this one's pass, not by
# timing: a pinned name renewed with TackSigningKey is signed during the
# pass, and the password program, before it answers, writes the state file
# as the other httpd would (an entry for other.test, and for a.test what
# the other remembers of a key since it first saw it).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use JSON::PP;
use TackTest;
use TackFixture qw(make_cert write_file);

plan tests => 10;

my $TACK = top_dir() . '/tack';
my $h = TackTest::Httpd->new('sharedstate');
my $d = $h->root;
my $port = $h->port;
my $state = "$d/var/state.json";

my $out = `$TACK genkey -p sekrit -o $d/sign.key 2>&1`;
die "genkey: $out" if $?;
my ($key_id) = `$TACK view $d/sign.key` =~ /TACK ID\s+=\s+(\S+)/;
make_cert($d, 'a', 'ec', 'a.test');
mkdir "$d/store";
# The password program; with $d/other present it first writes the state
# file as the other httpd would: other.test's entry, a copy of a.test's.
write_file("$d/other.pl", <<'P');
use strict;
use JSON::PP;
my ($state) = @ARGV;
open my $f, '<', $state or exit 0;
my $m = decode_json(do { local $/; <$f> });
my ($a) = grep { /^a\.test:/ } keys %{ $m->{slots} };
$m->{slots}{'other.test:443 ECDSA'} = $m->{slots}{$a};
open my $o, '>', "$state.other" or die;
print $o encode_json($m);
close $o;
rename "$state.other", $state or die;
P
write_file("$d/ask", "#!/bin/sh\n[ -e $d/other ] && perl $d/other.pl $state\necho sekrit\n");
chmod 0700, "$d/ask";

$h->write_conf(<<"C", loglevel => 'info tack:info');
TackSigningKey \@ROOT\@/sign.key
TackSigningPassword exec:\@ROOT\@/ask
TackSigningWait 10
TackStore \@ROOT\@/store
TackStateFile \@ROOT\@/var/state.json
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
    TackPinActivation on
</VirtualHost>
C

sub slots { my $t = eval { local $/; open my $f, '<', $state or return; <$f> };
            $t ? decode_json($t)->{slots} : {} }
sub served_key { my $t = served_tack($port, $_[0]); $t ? $t->{id} : undef }

my ($rc, $o) = $h->start;
is($rc, 0, 'httpd starts') or diag($o);
my $t0 = time;
sleep 0.2 until (served_key('a.test') // '') eq $key_id || time - $t0 > 20;
ok($h->graceful, 'graceful: a.test serves its TACK from the store, with activation');
my ($a_id) = grep { /^a\.test:/ } keys %{ slots() };
ok($a_id, 'the state file remembers a.test');
# a.test's key has been served for 10 days: its pins are active, so a
# renewal is signed during the restart's pass
my $mem = decode_json(scalar `cat $state`);
$_->{first_seen} -= 10 * 86400 for map { @$_ } values %{ $mem->{slots} };
write_file($state, encode_json($mem));
my $first = slots()->{$a_id}[0]{first_seen};

make_cert($d, 'a', 'ec', 'a.test');
write_file("$d/other", '');
my $mark = -s $h->error_log;
ok($h->graceful, 'graceful with a renewed a.test: signed in the pass, while "the other httpd" writes the file');
unlink "$d/other";
my $log = log_since($mark, $h->error_log);
is(served_key('a.test'), $key_id, '... the renewal is served its TACK');
my $s = slots();
ok($s->{'other.test:443 ECDSA'}, 'what the other httpd wrote meanwhile is kept (other.test)')
    or diag(join ', ', sort keys %$s);
is((sort { $a <=> $b } map { $_->{first_seen} } @{ $s->{$a_id} // [] })[0], $first,
   "... and a.test's key is still remembered since it was first seen (10 days)");
unlike($log, qr/TACK00046/, '... the file written under its lock, without a warning');
# Each httpd takes the other's names for vhosts it no longer has
# (TACK00043): why each should have a TackStateFile of its own
# (directives.md); the lock and the merge make sure nothing is lost when
# two share one all the same.
like($log, qr/TACK00043: vhost other\.test:443 .*is no longer configured/,
     "... and the other httpd's name is taken for one this httpd no longer has (hence: one file each)");
log_clean($mark, [qr/TACK00042|TACK00043|TACK00080/], $h->error_log);
$h->stop;
