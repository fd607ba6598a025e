# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# A TackStateFile two httpds share (Debian's apache2@INSTANCE share
# /var/lib/apache2, and so the default /var/lib/apache2/tack/state.json):
# what the other one writes while this one's restart runs must not be lost.
# Each pass reads the file at its start and writes it at its end; under a
# lock (STATEFILE.lock, a file only root opens) the writer reads it again
# and keeps what another wrote meanwhile.  A lock anyone can open, anyone
# can hold (issue 45, item 2): the directory's lock, which 0.1.0 took, held
# by nobody no longer stalls a restart, and a lock file nobody made first
# is replaced.
#
# "The other httpd" is a writer that keeps the same rule (the lock, read,
# add, rename) and adds a new entry every few milliseconds, each one a name
# of its own, never written again; meanwhile this httpd restarts
# gracefully, again and again.  Every entry the other wrote must be in the
# file at the end (without the lock and the second read, a restart's write
# dropped those written during its pass).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Fcntl qw(:flock O_RDONLY O_RDWR O_CREAT O_DIRECTORY);
use JSON::PP;
use POSIX ();
use Time::HiRes qw(time sleep);
use TackTest;
use TackHelpers qw(make_cert write_file);

plan tests => 18;

my $TACK = top_dir() . '/tack';
my $RESTARTS = 8;
my $h = TackTest::Httpd->new('sharedstate');
my $d = $h->root;
my $port = $h->port;
my $state = "$d/var/state.json";

make_cert($d, 'a', 'ec', 'a.test');
my $out = `$TACK genkey -p pw -o $d/k.key 2>&1 && $TACK sign -k $d/k.key -p pw -c $d/a.crt -e 30d -o $d/a.tack.pem 2>&1`;
die "tack: $out" if $?;

$h->write_conf(<<"C", loglevel => 'info tack:info');
TackStateFile \@ROOT\@/var/state.json
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
    TackFile \@ROOT\@/a.tack.pem
    TackPinActivation on
</VirtualHost>
C

sub slots {
    my $t = TackHelpers::read_file($state) // return {};
    return eval { decode_json($t)->{slots} } // {};
}

my ($rc, $o) = $h->start;
is($rc, 0, 'httpd starts') or diag($o);
my ($a_id) = grep { /^a\.test:/ } keys %{ slots() };
ok($a_id, 'it remembers a.test in the state file');

# The other writer: under the file's lock, one more entry each round
# (other-N.test, a copy of a.test's key pinned for 10 days), written to a
# temporary file and renamed over the state file; the last N to stdout.
pipe(my $rd, my $wr) or die "pipe: $!";
my $other = fork // die "fork: $!";
if ($other == 0) {
    close $rd;
    my $n = 0;
    local $SIG{TERM} = sub { print $wr "$n\n"; close $wr; POSIX::_exit(0) };
    while (1) {
        sysopen(my $dir, "$state.lock", O_RDWR | O_CREAT, 0600) or POSIX::_exit(2);
        flock($dir, LOCK_EX) or POSIX::_exit(3);
        if (open my $f, '<', $state) {
            my $m = eval { decode_json(do { local $/; <$f> }) };
            if ($m && $m->{slots}{$a_id}) {
                my $k = { %{ $m->{slots}{$a_id}[0] } };
                @$k{qw(first_seen last_served serving)} = (int(time) - 10 * 86400, int(time), JSON::PP::true);
                $m->{slots}{'other-' . ($n + 1) . '.test:443 ECDSA'} = [$k];
                if (open my $w, '>', "$state.other") {
                    print $w encode_json($m);
                    close $w;
                    rename "$state.other", $state and $n++;
                }
            }
        }
        close $dir;    # the lock with it
        sleep 0.005;
    }
}
close $wr;

my $ok = 0;
for (1 .. $RESTARTS) {
    $ok++ if $h->graceful;
}
kill 'TERM', $other;
my $written = <$rd> // 0;
chomp $written;
waitpid($other, 0);
is($ok, $RESTARTS, "$RESTARTS graceful restarts while the other writer writes");
cmp_ok($written, '>', $RESTARTS, "the other writer wrote $written entries meanwhile");
my $s = slots();
my @lost = grep { !$s->{"other-$_.test:443 ECDSA"} } 1 .. $written;
is(scalar(@lost), 0, "every entry the other wrote is in the file ($written of $written)")
    or diag('lost: other-' . join(', other-', @lost[0 .. ($#lost < 9 ? $#lost : 9)]));
ok($s->{$a_id}, '... and so is this httpd\'s a.test');

my $mark = -s $h->error_log;
ok($h->graceful, 'one more restart');
# Each httpd takes the other's names for vhosts it no longer has
# (TACK00043): why each should have a TackStateFile of its own
# (directives.md).
like(log_since($mark, $h->error_log), qr/TACK00043: vhost other-1\.test:443 .*is no longer configured/,
     "the other's names are taken for vhosts this httpd no longer has (hence: one file each)");
my @st = stat "$state.lock";
is(@st ? sprintf('%d %o %d', $st[4], $st[2] & 07777, -f _ ? 1 : 0) : 'none', '0 600 1',
   'the lock file: root\'s, mode 0600, a regular file');

# holder(@what): a process of nobody's that holds a flock on what it opens
# (read-only) until killed; returns its pid once it holds it.
sub holder {
    my ($path) = @_;
    pipe(my $r, my $w) or die "pipe: $!";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $r;
        POSIX::setgid(scalar getgrnam('nogroup'));
        POSIX::setuid(scalar getpwnam('nobody'));
        $> == 0 and POSIX::_exit(9);
        open(my $fh, '<', $path) or POSIX::_exit(2);
        flock($fh, LOCK_EX) or POSIX::_exit(3);
        print $w "held\n";
        close $w;
        sleep 60;
        POSIX::_exit(0);
    }
    close $w;
    my $said = <$r> // '';
    return $said eq "held\n" ? $pid : (waitpid($pid, 0), 0);
}
# The directory's lock (0.1.0's), held by nobody, who can read it.
my $pid = holder("$d/var");
ok($pid, "nobody holds a flock on the state file's directory");
$mark = -s $h->error_log;
my $t0 = time;
ok($h->graceful, 'a graceful restart');
my $took = time - $t0;
ok($took < 2, sprintf('... answers within a second or so (%.1f s; 0.1.0 waited 10 s)', $took));
unlike(log_since($mark, $h->error_log), qr/TACK00141/, '... and took its lock');
kill 'KILL', $pid;
waitpid($pid, 0);
# A lock file not root's 0600 (made first by someone who could): replaced.
chown scalar(getpwnam('nobody')), scalar(getgrnam('nogroup')), "$state.lock";
chmod 0644, "$state.lock";
$pid = holder("$state.lock");
ok($pid, 'nobody holds a flock on a lock file of its own, mode 0644');
$mark = -s $h->error_log;
$t0 = time;
ok($h->graceful, 'a graceful restart');
$took = time - $t0;
ok($took < 2, sprintf('... answers within a second or so (%.1f s)', $took));
like(log_since($mark, $h->error_log), qr/\[tack:warn\].*TACK00147: TackStateFile \Q$state\E: its lock file \Q$state\E\.lock was not a regular file of root's, mode 0600 \(whoever can open it can hold it and stall every start\); replaced by one that is/,
     '... saying the lock file was replaced');
kill 'KILL', $pid;
waitpid($pid, 0);
@st = stat "$state.lock";
is(@st ? sprintf('%d %o', $st[4], $st[2] & 07777) : 'none', '0 600', '... by root\'s, mode 0600');
$h->stop;
