# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package TackHelpers;

# TackHelpers.pm -- the small helpers every Perl suite needs, written once
# (t/apache, t/reliability, t/tool, t/acme, t/install, t/package, and
# t/lib/PrivateHttpd.pm): files, commands, certificates and keys made with
# the openssl command, TACKs and extension bodies assembled here byte by
# byte (draft-perrin-tls-tack-00 sections 3-4, draft-02 section 3), the
# names the project gives files, and openssl s_client's view of a server.
# Everything a test compares with the project's output is computed here
# with openssl and Perl, never with the project's own code.
#
#   use FindBin;
#   use lib "$FindBin::Bin/../lib";          # t/lib, from any t/SUITE/
#   use TackHelpers qw(slurp write_file run_cmd make_cert store_name);
#
# t/apache imports from here directly.  A suite's own module (TackTool,
# RelTest, AcmeTest) imports what it needs from here and exports it again,
# with the suite's defaults where a suite has its own (where its files go,
# how long a command may run).
#
# Every command runs without a shell (unless given as one string with
# shell characters, as Perl's exec does), its input from /dev/null or the
# text given, never the test's terminal; run_sh alone is a shell line with
# the test's input, for the suites that drive apt, dpkg and make.

use strict;
use warnings;

use Digest::SHA qw(sha256 sha256_hex);
use File::Path qw(make_path);
use File::Spec;
use IO::Socket::INET;
use MIME::Base64 qw(encode_base64 decode_base64);
use POSIX qw(:sys_wait_h setsid strftime);
use Time::HiRes ();

use Exporter 'import';
our @EXPORT_OK = qw(
    read_file slurp write_file outside_make_install
    run_cmd run3 must_run run_sh
    wait_until wait_port
    make_cert make_key key_public spki_hash store_name fingerprint
    ecdsa_sign tack_bytes breaksig_bytes minutes_from_now
    ext00 ext02 pem tackpy_pem pem_decode pem_blocks serverinfo_pem
    s_client hexs layer_calls
);
our %EXPORT_TAGS = (all => \@EXPORT_OK);

# ---- files -------------------------------------------------------------------

# read_file($path, $offset): the file's bytes (from byte $offset, 0 unless
# given), '' for an empty file, undef when it cannot be opened (a missing
# file is an answer for many callers: a pid file, a log not written yet).
sub read_file {
    my ($path, $offset) = @_;
    open my $fh, '<', $path or return undef;
    binmode $fh;
    seek $fh, $offset, 0 if $offset;
    local $/;
    return scalar(<$fh>) // '';
}

# slurp($path): the same, but a file that cannot be read is an error:
# dies "PATH: ERRNO".
sub slurp {
    my ($path) = @_;
    open my $fh, '<', $path or die "$path: $!\n";
    binmode $fh;
    local $/;
    return scalar(<$fh>) // '';
}

# write_file($path, $data): writes $data's bytes (replacing the file);
# dies "PATH: ERRNO" on failure.  Returns $path.
sub write_file {
    my ($path, $data) = @_;
    open my $fh, '>', $path or die "$path: $!\n";
    binmode $fh;
    print $fh $data;
    close $fh or die "$path: $!\n";
    return $path;
}

# outside_make_install($text, $source): an installed copy of a guide
# without what its source ($source, docs/NAME.md) says between <!-- make
# install --> and <!-- /make install -->: make install copies those
# passages word for word and leaves the two marker lines out (the
# doc_sed of scripts/install.sh), so each is found in the copy as the text
# between its markers.
sub outside_make_install {
    my ($text, $source) = @_;
    for my $kept (slurp($source) =~ /^<!-- make install -->\n(.*?)^<!-- \/make install -->\n/msg) {
        $text =~ s/\Q$kept\E//g;
    }
    return $text;
}

# ---- commands ----------------------------------------------------------------

my $SEQ = 0;

# run_cmd(\%o, @argv): runs a command and waits for it.  %o (all optional):
#   stdin   => TEXT   its input (/dev/null unless given)
#   env     => {...}  more environment; a name with an undef value is removed
#   cwd     => DIR    where it runs
#   timeout => S      seconds it may take: it then runs in a process group
#                     of its own, killed with the whole group after S
#                     seconds (no limit unless given)
#   merge   => 1      stderr into the same stream as stdout (out)
#   dir     => DIR    where its output is kept while it runs (the system's
#                     temporary directory unless given)
# Returns { rc => exit status (0 when a signal ended it; -1 on timeout),
# signal => the signal that ended it or 0, out => stdout (and stderr with
# merge), err => stderr ('' with merge), timed_out => 0|1, seconds }.
sub run_cmd {
    my ($o, @argv) = @_;
    my $dir = $o->{dir} || File::Spec->tmpdir;
    my $base = "$dir/.cmd.$$." . $SEQ++;
    my $timeout = $o->{timeout};
    write_file("$base.in", $o->{stdin}) if defined $o->{stdin};
    my $t0 = Time::HiRes::time();
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        setsid() if defined $timeout;
        while (my ($k, $v) = each %{ $o->{env} || {} }) {
            if (defined $v) { $ENV{$k} = $v } else { delete $ENV{$k} }
        }
        open STDIN, '<', defined $o->{stdin} ? "$base.in" : '/dev/null'
            or POSIX::_exit(127);
        open STDOUT, '>', "$base.out" or POSIX::_exit(127);
        if ($o->{merge}) {
            open STDERR, '>&', \*STDOUT or POSIX::_exit(127);
        }
        else {
            open STDERR, '>', "$base.err" or POSIX::_exit(127);
        }
        if ($o->{cwd} && !chdir $o->{cwd}) {
            print STDERR "chdir $o->{cwd}: $!\n";
            POSIX::_exit(127);
        }
        exec @argv or do { print STDERR "exec $argv[0]: $!\n"; POSIX::_exit(127) };
    }
    my ($timed_out, $status) = (0, undef);
    if (defined $timeout) {
        while (1) {
            my $r = waitpid($pid, WNOHANG);
            if ($r == $pid) { $status = $?; last }
            if (Time::HiRes::time() - $t0 > $timeout) {
                $timed_out = 1;
                kill 'KILL', -$pid;
                waitpid($pid, 0);
                $status = $?;
                last;
            }
            Time::HiRes::sleep(0.01);
        }
    }
    else {
        waitpid($pid, 0);
        $status = $?;
    }
    my %r = (
        rc        => $timed_out ? -1 : $status >> 8,
        signal    => $status & 127,
        out       => read_file("$base.out") // '',
        err       => $o->{merge} ? '' : read_file("$base.err") // '',
        timed_out => $timed_out,
        seconds   => Time::HiRes::time() - $t0,
    );
    unlink "$base.in", "$base.out", "$base.err";
    return \%r;
}

# run3(\%o, @argv) or run3(@argv): run_cmd's command, answered as a shell
# would: (exit status, 128 + N when signal N ended it, -1 on timeout;
# stdout; stderr).
sub run3 {
    my $o = ref $_[0] eq 'HASH' ? shift : {};
    my $r = run_cmd({ %$o, merge => 0 }, @_);
    return ($r->{signal} && !$r->{timed_out} ? 128 + $r->{signal} : $r->{rc},
            $r->{out}, $r->{err});
}

# must_run(\%o, @argv) or must_run(@argv): run_cmd's command, which must
# succeed: returns its stdout, or dies with the command, its exit status
# and its output.
sub must_run {
    my $o = ref $_[0] eq 'HASH' ? shift : {};
    my $r = run_cmd({ %$o, merge => 0 }, @_);
    return $r->{out} if $r->{rc} == 0 && !$r->{signal} && !$r->{timed_out};
    die "command failed ("
        . ($r->{timed_out} ? "timed out after $o->{timeout} s"
           : $r->{signal} ? "signal $r->{signal}" : "exit $r->{rc}")
        . "): @_\n$r->{out}$r->{err}";
}

# run_sh($cmd): the shell command line $cmd as the system tests (t/install,
# t/package) run admin commands, with the test's own input (as qx): (exit
# status, stdout and stderr of the whole line).
sub run_sh {
    my ($cmd) = @_;
    my $out = qx{( $cmd ) 2>&1};
    return ($? >> 8, $out);
}

# ---- waiting -------------------------------------------------------------------

# wait_until($secs, $code, $step): calls $code every $step seconds (0.05)
# until it returns true (returned), or $secs have passed (undef).
sub wait_until {
    my ($secs, $code, $step) = @_;
    my $end = Time::HiRes::time() + $secs;
    while (1) {
        my $r = $code->();
        return $r if $r;
        return undef if Time::HiRes::time() >= $end;
        Time::HiRes::sleep($step || 0.05);
    }
}

# wait_port($port, $secs, $addr): something accepts a TCP connection on
# $addr (127.0.0.1):$port within $secs (10) seconds: 1, else 0.
sub wait_port {
    my ($port, $secs, $addr) = @_;
    return wait_until($secs // 10, sub {
        my $s = IO::Socket::INET->new(PeerAddr => $addr || '127.0.0.1',
            PeerPort => $port, Proto => 'tcp', Timeout => 1) or return 0;
        close $s;
        return 1;
    }) ? 1 : 0;
}

# ---- certificates and keys ---------------------------------------------------

# make_cert(\%o, $dir, $name, $type, $cn, @more_names) or without \%o:
# $dir/$name.crt and $dir/$name.key, a self-signed end-entity certificate
# (CA:FALSE keeps mod_ssl quiet) for $cn and @more_names (subjectAltName
# DNS names), with a P-256 key ($type 'ec') or RSA 2048 ('rsa'), valid for
# $o{days} (90) days.  Makes $dir.  Returns the two paths.
sub make_cert {
    my $o = ref $_[0] eq 'HASH' ? shift : {};
    my ($dir, $name, $type, $cn, @more) = @_;
    my @newkey = $type eq 'rsa'
        ? ('-newkey', 'rsa:2048')
        : ('-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256');
    make_path($dir);
    must_run('openssl', 'req', '-x509', @newkey, '-nodes', '-sha256',
        '-days', $o->{days} // 90, '-subj', "/CN=$cn",
        '-addext', 'subjectAltName=' . join(',', map { "DNS:$_" } $cn, @more),
        '-addext', 'basicConstraints=critical,CA:FALSE',
        '-keyout', "$dir/$name.key", '-out', "$dir/$name.crt");
    return ("$dir/$name.crt", "$dir/$name.key");
}

# make_key($path): a P-256 private key (PKCS#8 PEM), e.g. standing in for a
# TACK key in TACKs signed here.  Returns $path.
sub make_key {
    my ($path) = @_;
    must_run('openssl', 'genpkey', '-algorithm', 'EC',
        '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', $path);
    return $path;
}

# key_public($key): a P-256 key's public point, x || y (64 bytes).
sub key_public {
    my ($key) = @_;
    return substr(must_run('openssl', 'pkey', '-in', $key, '-pubout',
                           '-outform', 'DER'), -64);
}

# spki_hash($cert): SHA-256 of the certificate's DER SubjectPublicKeyInfo
# (32 bytes: a TACK's target_hash).
sub spki_hash {
    my ($cert) = @_;
    my ($der) = pem_decode(
        must_run('openssl', 'x509', '-in', $cert, '-noout', '-pubkey'),
        'PUBLIC KEY');
    die "$cert: no public key\n" unless defined $der;
    return sha256($der);
}

# store_name($cert, $host, $type): the name of $cert's file in a TackStore,
# whoever writes it (tack_cert_store_name's rule, computed here):
# HOST.TYPE.SPKI8.tack.pem, HOST in lower case, TYPE 'ecdsa' (unless
# given) or 'rsa', SPKI8 the first 8 hex digits of spki_hash($cert).
sub store_name {
    my ($cert, $host, $type) = @_;
    return join('.', lc $host, $type // 'ecdsa',
                substr(unpack('H*', spki_hash($cert)), 0, 8)) . '.tack.pem';
}

# fingerprint($pub): the TACK ID of a public key x || y: SHA-256, base32
# (a-z2-7), 25 characters in five groups of five (draft-00 section 3.3).
sub fingerprint {
    my ($pub) = @_;
    my @alpha = ('a' .. 'z', '2' .. '7');
    my $bits = unpack('B*', sha256($pub));
    my $b32 = join '', map { $alpha[oct("0b$_")] } ($bits =~ /(.{5})/g);
    return join '.', unpack('(A5)5', substr($b32, 0, 25));
}

# ---- TACKs and extension bodies ----------------------------------------------

# ecdsa_sign($key, $msg): "openssl dgst -sha256 -sign" with a P-256 key,
# as r || s (32 bytes each, not DER).
sub ecdsa_sign {
    my ($key, $msg) = @_;
    my $der = must_run({ stdin => $msg }, 'openssl', 'dgst', '-sha256',
                       '-sign', $key);
    # SEQUENCE { INTEGER r, INTEGER s }: short lengths for P-256
    my ($tag, $len, $rest) = unpack('C C a*', $der);
    die "not a DER ECDSA signature\n" unless $tag == 0x30;
    my @ints;
    while (length $rest) {
        my ($t, $l) = unpack('C C', $rest);
        die "not an INTEGER\n" unless $t == 0x02;
        my $v = substr($rest, 2, $l);
        $rest = substr($rest, 2 + $l);
        $v =~ s/^\x00+//;
        push @ints, ("\x00" x (32 - length $v)) . $v;
    }
    return $ints[0] . $ints[1];
}

# minutes_from_now($m): a TACK expiration $m minutes from now.
sub minutes_from_now {
    my ($minutes) = @_;
    return int(time() / 60) + $minutes;
}

# tack_bytes(key => KEY, cert => CERT | target_hash => H, min_generation,
# generation (0), expiration (minutes; a year from now), corrupt => 1): a
# TACK (166 bytes) signed here with the P-256 key KEY; corrupt flips bits
# of its signature.  Fields the project's tool refuses to sign
# (generation below min_generation) are made all the same.
sub tack_bytes {
    my %a = @_;
    my $body = key_public($a{key})
        . pack('CCN', $a{min_generation} // 0, $a{generation} // 0,
               $a{expiration} // minutes_from_now(365 * 24 * 60))
        . ($a{target_hash} // spki_hash($a{cert}));
    my $sig = ecdsa_sign($a{key}, "tack_sig" . $body);
    substr($sig, 10, 1) = chr(ord(substr($sig, 10, 1)) ^ 0x55)
        if $a{corrupt};
    return $body . $sig;
}

# breaksig_bytes($key): the break signature of the TACK key KEY (128 bytes).
sub breaksig_bytes {
    my ($key) = @_;
    return key_public($key) . ecdsa_sign($key, "tack_break_sig");
}

# ext00($tack, \@breaksigs, $activation): the draft-00 extension body
# (section 4).  ext02(\@tacks, $flags): the draft-02 body (section 3).
sub ext00 {
    my ($tack, $sigs, $activation) = @_;
    my $s = join '', @{ $sigs || [] };
    return (defined $tack ? chr(166) . $tack : chr(0))
        . pack('n', length $s) . $s . chr($activation ? 1 : 0);
}

sub ext02 {
    my ($tacks, $flags) = @_;
    my $t = join '', @$tacks;
    return pack('n', length $t) . $t . chr($flags // 0);
}

# pem($label, @blobs): one PEM block per blob, base64 at 64 columns.
sub pem {
    my ($label, @blobs) = @_;
    my $out = '';
    for my $b (@blobs) {
        my $b64 = encode_base64($b, '');
        $b64 =~ s/(.{1,64})/$1\n/g;
        $out .= "-----BEGIN $label-----\n$b64-----END $label-----\n";
    }
    return $out;
}

# tackpy_pem($label, @blobs): pem() in TACKpy's layout, two comment lines
# before each block, as tack.py 0.9.7 writes its files (t/apache writes
# every PEM file so: the module must accept them).
sub tackpy_pem {
    my ($label, @blobs) = @_;
    return join '', map {
        "Created by tack.py 0.9.7\n"
        . strftime("Created at %Y-%m-%dT%H:%M:%SZ\n", gmtime)
        . pem($label, $_)
    } @blobs;
}

# pem_decode($text, $label): the decoded LABEL blocks of a PEM text, in
# order.  pem_blocks($path, $label): those of a file (which must be there).
sub pem_decode {
    my ($text, $label) = @_;
    my @b;
    while (($text // '') =~ /-----BEGIN \Q$label\E-----\s*\n(.*?)-----END \Q$label\E-----/sg) {
        push @b, decode_base64($1);
    }
    return @b;
}

sub pem_blocks {
    my ($path, $label) = @_;
    return pem_decode(slurp($path), $label);
}

# serverinfo_pem($body): an OpenSSL serverinfo file carrying the extension
# body $body as extension 0xF300 (62208).
sub serverinfo_pem {
    my ($body) = @_;
    return pem('SERVERINFO FOR TACK', pack('nn', 0xf300, length $body) . $body);
}

# ---- clients -----------------------------------------------------------------

# s_client(port => P, name => SNI, version => '-tls1_2', request => 1,
# extra => [more arguments] or 'more arguments', timeout => 20): openssl's
# client with -tlsextdebug, asking for extension 62208 (0xF300) unless
# request => 0.  Returns { ext => the server's body or undef, ok =>
# handshake completed, out => its output, rc, timed_out }.
sub s_client {
    my %o = @_;
    my @extra = ref $o{extra} ? @{ $o{extra} } : split ' ', $o{extra} // '';
    my @argv = ('openssl', 's_client', '-connect', "127.0.0.1:$o{port}",
        ($o{name} ? ('-servername', $o{name}) : ()),
        $o{version} || '-tls1_2',
        (($o{request} // 1) ? ('-serverinfo', '62208') : ()),
        '-tlsextdebug', @extra);
    my $r = run_cmd({ timeout => $o{timeout} || 20, stdin => '', merge => 1,
                      dir => $o{dir} }, @argv);
    my %res = (out => $r->{out}, rc => $r->{rc}, timed_out => $r->{timed_out});
    $res{ok} = $r->{out} =~ /^\s*Protocol\s*:\s*TLSv1\.[23]/m
        && $r->{out} =~ /^\s*Cipher\s*:\s*(?!0000)\S+/m ? 1 : 0;
    if ($r->{out} =~ /-----BEGIN SERVERINFO FOR EXTENSION 62208-----\n(.*?)-----END/s) {
        my $raw = decode_base64($1);
        my ($type, $len) = unpack('nn', $raw);
        $res{ext} = substr($raw, 4)
            if $type == 0xF300 && $len == length($raw) - 4;
    }
    return \%res;
}

# hexs($bytes): lower-case hex, '' for undef (for is() of binary values).
sub hexs { unpack('H*', $_[0] // '') }


# ---- the code's layers -------------------------------------------------------

# layer_calls(order => [FILE, ...], object => sub { FILE -> .o path },
#             defined => qr/[T]/, group => qr/.../):
# who defines each function and who calls it, read with nm from each
# object (|defined|: the nm types that count as defining; U: calling);
# returns (\%defines: symbol -> file, \%edges: "a -> b" -> count,
# \@upward: "a -> b (symbol)" for each call to a file listed later in
# |order|, calls within |group| (both ends matching) excepted).  Dies when
# an object is missing or nm fails.
sub layer_calls {
    my (%o) = @_;
    my @order = @{ $o{order} };
    my %rank = map { $order[$_] => $_ } 0 .. $#order;
    my $types = $o{defined} // qr/T/;
    my (%defines, %calls, %edges, @upward);
    for my $f (@order) {
        my $obj = $o{object}->($f);
        die "$obj not built\n" unless -f $obj;
        my @nm = `nm $obj`;
        die "nm $obj failed\n" if $? != 0 || !@nm;
        for (@nm) {
            if (/^\s*[0-9a-f]*\s+$types\s+(\S+)$/) {
                $defines{$1} = $f;
            } elsif (/^\s+U\s+(\S+)$/) {
                push @{ $calls{$f} }, $1;
            }
        }
    }
    for my $f (@order) {
        for my $sym (@{ $calls{$f} // [] }) {
            my $to = $defines{$sym} or next;
            next if $to eq $f;
            $edges{"$f -> $to"}++;
            next if $o{group} && $f =~ $o{group} && $to =~ $o{group};
            push @upward, "$f -> $to ($sym)" if $rank{$to} > $rank{$f};
        }
    }
    return (\%defines, \%edges, \@upward);
}

1;
