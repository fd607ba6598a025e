# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Signatures verified once (docs/security.md): the digests of the TACKs a
# start verified are kept beside TackStateFile (STATEFILE.verified, root's,
# 0600), so that a later start verifies only what changed.  The file never
# lets a TACK that does not verify be served: one byte of a TACK file
# changed (its signature, its TACK key) is refused between two graceful
# restarts and between two starts; a file that is not root's alone, even
# holding the digest of the changed TACK, is not believed (TACK00154) and
# is replaced by the start.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Digest::SHA qw(sha256);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes key_public tackpy_pem
    write_file read_file);

plan tests => 27;

my $h = TackTest::Httpd->new('verified');
my $d = $h->root;
my $vfile = "$d/logs/tack-state.json.verified";
make_cert($d, 'x.test', 'ec', 'x.test');
make_key("$d/$_.key") for qw(k1 k2);
my $good = tack_bytes(key => "$d/k1.key", cert => "$d/x.test.crt");
write_file("$d/x.pem", tackpy_pem('TACK', $good));
$h->write_conf(<<'C');
<VirtualHost 127.0.0.1:@PORT@>
    ServerName x.test
    SSLEngine on
    SSLCertificateFile x.test.crt
    SSLCertificateKeyFile x.test.key
    TackFile x.pem
</VirtualHost>
C

# The digests the file holds, as a set of raw 32-byte strings.
sub digests {
    my $b = read_file($vfile) // return undef;
    return undef unless substr($b, 0, 8) eq 'TACKVRF1';
    return { map { substr($b, 8 + 32 * $_, 32) => 1 }
             0 .. (length($b) - 8) / 32 - 1 };
}
sub served { my $t = served_tack($h->port, 'x.test'); $t ? $t->{bytes} : undef }
# one byte of the TACK changed at offset $at (xor 1)
sub changed { my ($at) = @_; my $t = $good;
    substr($t, $at, 1) = chr(ord(substr($t, $at, 1)) ^ 1); $t }

my ($rc) = $h->start;
is($rc, 0, 'started');
is(served(), $good, 'the TACK is served');
my $st = [ stat $vfile ];
ok(@$st, 'a start writes STATEFILE.verified beside TackStateFile');
is(sprintf('%04o', $st->[2] & 07777), '0600', 'mode 0600');
is($st->[4], $>, 'owned by the user the start ran as');
is_deeply(digests(), { sha256($good) => 1 },
    'it holds the SHA-256 of the TACK verified, nothing else');

# ---- between two graceful restarts -------------------------------------------
my $bad_sig = changed(166 - 10);      # a byte of the signature
my $other = key_public("$d/k2.key");  # another valid TACK key, same signature
my $bad_key = $other . substr($good, 64);
for my $case ([ 'its signature', $bad_sig ], [ 'its TACK key', $bad_key ]) {
    my ($what, $bytes) = @$case;
    write_file("$d/x.pem", tackpy_pem('TACK', $bytes));
    my $mark = log_mark($h->error_log);
    ok($h->graceful, "graceful restart with one byte of $what changed");
    my $got = served();
    ok(!defined $got || $got ne $bytes,
        "graceful: the changed TACK ($what) is not served");
    like(log_since($mark, $h->error_log),
        qr/x\.pem: TACK: .*(signature|key)/i,
        "graceful: the log names the file and the reason ($what)");
}
write_file("$d/x.pem", tackpy_pem('TACK', $good));
ok($h->graceful, 'graceful restart with the TACK restored');
is(served(), $good, 'served again');

# ---- between two starts -----------------------------------------------------
for my $case ([ 'its signature', $bad_sig ], [ 'its TACK key', $bad_key ]) {
    my ($what, $bytes) = @$case;
    $h->stop;
    write_file("$d/x.pem", tackpy_pem('TACK', $bytes));
    my $mark = log_mark($h->error_log);
    ($rc) = $h->start;
    is($rc, 0, "a new start with one byte of $what changed");
    my $got = served();
    ok(!defined $got || $got ne $bytes,
        "start: the changed TACK ($what) is not served");
    like(log_since($mark, $h->error_log), qr/x\.pem: TACK: .*signature/i,
        "start: the log names the file and the reason ($what)");
}

# ---- a file not root's alone is not believed ------------------------------
# The digest of the changed TACK planted in the file, then the file given
# to nobody: the start does not read it, says so, verifies, refuses.
$h->stop;
write_file("$d/x.pem", tackpy_pem('TACK', $bad_sig));
write_file($vfile, 'TACKVRF1' . sha256($bad_sig) . sha256($good));
chmod 0600, $vfile;
chown scalar(getpwnam('nobody')), -1, $vfile;
my $mark = log_mark($h->error_log);
($rc) = $h->start;
is($rc, 0, 'started with the digest of the changed TACK planted in a file nobody owns');
my $got = served();
ok(!defined $got || $got ne $bad_sig, 'the planted digest is not believed: the changed TACK is not served');
like(log_since($mark, $h->error_log),
    qr/\[tack:notice\].*TACK00154: \Q$vfile\E: owned by uid \d+, not by root/,
    'TACK00154 names the file and why');
$st = [ stat $vfile ];
is($st->[4], $>, 'the start replaced it with its own');
ok(!digests()->{ sha256($bad_sig) }, 'without the planted digest');

# writable by its group: the same
$h->stop;
write_file($vfile, 'TACKVRF1' . sha256($bad_sig));
chmod 0660, $vfile;
$mark = log_mark($h->error_log);
($rc) = $h->start;
$got = served();
ok(!defined $got || $got ne $bad_sig, 'a group-writable file is not believed either');
like(log_since($mark, $h->error_log), qr/TACK00154: \Q$vfile\E: writable by its group/,
    'TACK00154 says it is writable by its group');
$h->stop;
