# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# What the module's processes hold open (issue 45, item 6).  An httpd
# child serves from memory: it holds no descriptor on a TackStore's
# directory, through which code running in it (mod_lua, mod_perl, mod_php)
# would read every file of the store (/proc/self/fd/N) whatever the modes
# of the directory above it.  A signer (tack-signer: a PKCS#11 module's
# code, a password program) holds only its own: its socket, the pipe to
# its password program, standard input, output and error and the error
# log; none of httpd's listening sockets, nor the MPM's pipe.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Time::HiRes qw(time sleep);
use TackTest;
use TackHelpers qw(make_cert write_file);

plan tests => 14;

my $TACK = top_dir() . '/tack';
my $h = TackTest::Httpd->new('descriptors');
my $d = $h->root;
my $out = `$TACK genkey -p sekrit -o $d/sign.key 2>&1`;
die "genkey: $out" if $?;
make_cert($d, 'a', 'ec', 'a.test');
mkdir "$d/store";
# a password program that says who runs it (the signer), then hangs as a
# slow token would: the signer stays up, waiting for it
write_file("$d/ask", "#!/bin/sh\necho \$PPID > $d/signer.pid.new\n"
    . "mv $d/signer.pid.new $d/signer.pid\nexec sleep 30\n");
chmod 0700, "$d/ask";

$h->write_conf(<<"C");
TackSigningKey \@ROOT\@/sign.key
TackSigningPassword exec:\@ROOT\@/ask
TackSigningWait 0
TackStore \@ROOT\@/store
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName a.test
    SSLEngine on
    SSLCertificateFile \@ROOT\@/a.crt
    SSLCertificateKeyFile \@ROOT\@/a.key
</VirtualHost>
C

# fds($pid): { fd => what it leads to } from /proc/PID/fd
sub fds {
    my ($pid) = @_;
    my %f;
    opendir(my $dh, "/proc/$pid/fd") or return {};
    for my $n (grep { /^\d+$/ } readdir $dh) {
        my $l = readlink("/proc/$pid/fd/$n");
        $f{$n} = $l if defined $l;
    }
    return \%f;
}
sub show { my ($f) = @_; join ', ', map { "$_ -> $f->{$_}" } sort { $a <=> $b } keys %$f }
# listening(): the inodes of the machine's listening TCP sockets
sub listening {
    my %i;
    for my $t ('/proc/net/tcp', '/proc/net/tcp6') {
        open(my $fh, '<', $t) or next;
        for (<$fh>) {
            my @c = split ' ';
            $i{ $c[9] } = 1 if @c > 9 && $c[3] eq '0A';
        }
    }
    return \%i;
}

# children_of(PID): [pid, comm] of each process whose parent is PID, read
# from /proc (a bare tree may have no ps: sid's minbase has no procps).
sub children_of {
    my ($ppid) = @_;
    my @kids;
    for my $stat (glob '/proc/[0-9]*/stat') {
        # a process may exit between the glob and the read: not a child
        my $line = TackHelpers::read_file($stat) // next;
        my ($pid, $comm, $pp) = $line =~ /^(\d+) \((.*)\) \S+ (\d+)/s or next;
        push @kids, [$pid, $comm] if $pp == $ppid;
    }
    return @kids;
}

unlink "$d/signer.pid";
my ($rc, $o) = $h->start;
is($rc, 0, 'httpd starts with a TackStore and a TackSigningKey') or diag($o);
my $parent = $h->pid;
my $t0 = time;
sleep 0.1 until -s "$d/signer.pid" || time - $t0 > 15;
my ($signer) = -s "$d/signer.pid" ? TackHelpers::slurp("$d/signer.pid") =~ /(\d+)/ : ();

# ---- the httpd children ------------------------------------------------------
my @children = map { $_->[1] ne 'tack-signing' ? $_->[0] : () }
    children_of($parent);
ok(@children, sprintf('httpd runs %d child process(es)', scalar @children));
my %parent_fds = reverse %{ fds($parent) };
ok($parent_fds{"$d/store"}, 'the parent keeps the store\'s directory open (the background writes it)')
    or diag(show(fds($parent)));
my @holding = grep { grep { $_ eq "$d/store" } values %{ fds($_) } } @children;
ok(@children && !@holding, 'no httpd child holds a descriptor on the store\'s directory')
    or diag(map { "child $_: " . show(fds($_)) . "\n" } @holding);
my $r = TackTest::probe(port => $h->port, name => 'a.test', version => '1.2');
ok($r->{cert_spki}, 'a.test completes a handshake (served without a TACK while it waits for the signer)');
@holding = grep { grep { $_ eq "$d/store" } values %{ fds($_) } } @children;
ok(!@holding, '... and no child holds it after serving one');

# ---- the signer --------------------------------------------------------------
ok($signer && -d "/proc/$signer", 'a signer (tack-signer) is up, running its password program')
    or diag(join ' ', map { "$_->[0]:$_->[1]" } children_of($parent));
my $comm = $signer && -e "/proc/$signer/comm" ? TackHelpers::slurp("/proc/$signer/comm") : '';
like($comm, qr/^tack-signer$/, '... named tack-signer');
my $sf = $signer ? fds($signer) : {};
my ($prog) = map { $_->[0] } $signer ? children_of($signer) : ();
my %prog_pipes = map { $_ => 1 } grep { /^pipe:/ } values %{ $prog ? fds($prog) : {} };
my $listen = listening();
my @sockets = grep { /^socket:/ } values %$sf;
my @listening = grep { /^socket:\[(\d+)\]$/ && $listen->{$1} } @sockets;
ok($signer && !@listening, 'the signer holds none of httpd\'s listening sockets')
    or diag(show($sf));
is(scalar(@sockets), 1, '... and one socket only: its own, to its starter')
    or diag(show($sf));
my @pipes = grep { /^pipe:/ } values %$sf;
my @foreign = grep { !$prog_pipes{$_} } @pipes;
ok($signer && @pipes <= 1 && !@foreign,
   'the signer holds no pipe of httpd\'s (at most one, shared with the process that runs its password program)')
    or diag(show($sf));
my $log = "$d/logs/error_log";
my @other = grep { !/^(?:socket|pipe):/ && $_ ne '/dev/null' && $_ ne $log } values %$sf;
ok($signer && !@other, 'nothing else: no TackStore, no file of httpd but /dev/null and the error log')
    or diag(show($sf));
log_clean(0, [], $h->error_log);
$h->stop;
sleep 0.5;
ok(!($signer && kill 0, $signer), 'the stop ends the signer');
