# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TackTool.pm -- helpers for the t/tool/*.t tests of the `tack` tool.
#
# Tests run ./tack from the top directory, write only under a temporary
# directory, and start servers on ports 18400-18459 and 18470-18489 only
# (18460-18469 are the demo's): 127.0.0.1, and 127.0.0.2-4 for the fleet
# checks (09-fleet-check.t 18470-18479, 10-preload.t 18480-18489,
# 11-fleet-httpd.t 18450-18459).
package TackTool;

use strict;
use warnings;
use Exporter 'import';
use File::Temp qw(tempdir);
use File::Spec;
use Cwd qw(abs_path);
use IO::Socket::INET;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep);
# t/lib: the private httpd the Perl suites share.
use PrivateHttpd;

our @EXPORT = qw(tack run_cmd tmp top vec00 vec02 slurp spew mkcert
                 free_port start_s_server stop_server wait_port pem_body
                 man_render $TACK);

my $top = abs_path(File::Spec->catdir((File::Spec->splitpath(
    abs_path(__FILE__)))[1], '..', '..', '..'));
# TACK_BIN runs the tests against another build (e.g. a sanitizer one).
our $TACK = $ENV{TACK_BIN} // "$top/tack";
my $tmp = tempdir('tack-tool-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my @servers;
my %stdin_of;

sub top  { $top }
sub tmp  { $tmp }
sub vec00 { "$top/t/vectors/draft00/$_[0]" }
sub vec02 { "$top/t/vectors/draft02/$_[0]" }

sub slurp {
    my ($f) = @_;
    open(my $fh, '<', $f) or die "$f: $!";
    local $/;
    my $s = <$fh>;
    return $s;
}

sub spew {
    my ($f, $s) = @_;
    open(my $fh, '>', $f) or die "$f: $!";
    print $fh $s;
    close($fh);
}

# run_cmd(\%opt, @argv): runs a command with stdin from /dev/null (or
# $opt{stdin}) and returns (exit status, stdout, stderr).  $opt{env} adds
# environment variables.
sub run_cmd {
    my $opt = ref($_[0]) eq 'HASH' ? shift : {};
    my @argv = @_;
    my $out = "$tmp/.out.$$";
    my $err = "$tmp/.err.$$";
    my $in = '/dev/null';
    if (defined $opt->{stdin}) {
        $in = "$tmp/.in.$$";
        spew($in, $opt->{stdin});
    }
    my $pid = fork();
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open(STDIN, '<', $in) or die;
        open(STDOUT, '>', $out) or die;
        open(STDERR, '>', $err) or die;
        delete $ENV{TACK_PASSWORD} unless exists $opt->{env}{TACK_PASSWORD};
        %ENV = (%ENV, %{ $opt->{env} || {} });
        chdir($opt->{cwd}) if $opt->{cwd};
        exec(@argv) or POSIX::_exit(127);
    }
    waitpid($pid, 0);
    my $rc = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    return ($rc, slurp($out), slurp($err));
}

# tack(@args) runs ./tack; tack(\%opt, @args) passes options to run_cmd.
# man_render(@args): `man @args` rendered 80 columns wide as text: its exit
# status, its text with every run of blanks made one space (groff's
# justification differs between releases: Debian 13's spreads the NAME
# line, "tack  -  make,  inspect"), and its stderr.  Tests check what a
# page says, never its spacing.
sub man_render {
    my ($rc, $out, $err) = run_cmd(
        { env => { MANWIDTH => 80, LC_ALL => 'C.UTF-8', MANPAGER => 'cat',
                   PAGER => 'cat' } },
        'man', @_);
    $out =~ s/[ \t]+/ /g;
    return ($rc, $out, $err);
}

sub tack {
    my $opt = ref($_[0]) eq 'HASH' ? shift : {};
    return run_cmd($opt, $TACK, @_);
}

# mkcert(NAME, CN, DAYS): a fresh P-256 certificate NAME.crt / NAME.key in
# the temporary directory; returns the two paths.
sub mkcert {
    my ($name, $cn, $days) = @_;
    $days //= 30;
    my ($crt, $key) = ("$tmp/$name.crt", "$tmp/$name.key");
    my ($rc, $o, $e) = run_cmd('openssl', 'req', '-x509', '-newkey', 'ec',
        '-pkeyopt', 'ec_paramgen_curve:P-256',
        '-addext', 'basicConstraints=critical,CA:FALSE',
        '-addext', "subjectAltName=DNS:$cn",
        '-nodes', '-keyout', $key, '-out', $crt, '-subj', "/CN=$cn",
        '-days', $days);
    die "openssl req: $e" if $rc;
    return ($crt, $key);
}

# free_port(LO, HI): a port nobody listens on, in our range.
sub free_port {
    my ($lo, $hi) = @_;
    return PrivateHttpd::first_free_port($lo, $hi)
        // die "no free port in $lo-$hi";
}

sub wait_port {
    my ($port, $secs) = @_;
    return wait_addr_port('127.0.0.1', $port, $secs);
}

# start_s_server(PORT, ARGS...): `openssl s_server` in the background.
sub start_s_server {
    my ($port, @args) = @_;
    return start_s_server_at('127.0.0.1', $port, @args);
}

sub stop_server {
    my ($pid) = @_;
    kill('TERM', $pid);
    waitpid($pid, 0);
    close(delete $stdin_of{$pid}) if $stdin_of{$pid};
    @servers = grep { $_ != $pid } @servers;
}

END {
    # waitpid sets $?, which at END is the test's exit status: keep it.
    local $?;
    for my $pid (@servers) {
        kill('TERM', $pid);
        waitpid($pid, 0);
    }
}

# store_name(CRT, HOST[, KEYTYPE]): the TackStore file name of the
# certificate CRT (tack_cert_store_name's rule, computed here with openssl,
# not by the tool): HOST.KEYTYPE.SPKI8.tack.pem, KEYTYPE ecdsa by default,
# SPKI8 the first 8 hex digits of the SHA-256 of its SubjectPublicKeyInfo.
sub store_name {
    my ($crt, $host, $type) = @_;
    require Digest::SHA;
    my ($rc, $spki, $e) = run_cmd('openssl', 'x509', '-in', $crt, '-noout',
                                  '-pubkey');
    die "openssl x509 -pubkey $crt: $e" if $rc;
    my $der = pem_body($spki, 'PUBLIC KEY');
    die "$crt: no public key" unless defined $der;
    return join('.', $host, $type // 'ecdsa',
                substr(Digest::SHA::sha256_hex($der), 0, 8)) . '.tack.pem';
}
push @EXPORT, 'store_name';

# pem_body(TEXT, LABEL): the decoded bytes of the first LABEL block.
sub pem_body {
    my ($text, $label) = @_;
    require MIME::Base64;
    $text =~ /-----BEGIN \Q$label\E-----\s*\n(.*?)-----END \Q$label\E-----/s
        or return undef;
    return MIME::Base64::decode_base64($1);
}

1;

package TackTool;

push @EXPORT, qw(forge_tack serverinfo_pem);

# forge_tack(%a): a TACK signed with a throwaway openssl key, with fields the
# tool itself refuses to sign (generation below min_generation).  Keys:
# min_generation, generation, expiration (minutes), target (32 bytes).
sub forge_tack {
    my (%a) = @_;
    my $k = "$tmp/forge.key";
    unless (-e $k) {
        my ($rc, $o, $e) = run_cmd('openssl', 'ecparam', '-name',
            'prime256v1', '-genkey', '-noout', '-out', $k);
        die "ecparam: $e" if $rc;
    }
    my ($rc, $der, $e) = run_cmd('openssl', 'ec', '-in', $k, '-pubout',
                                 '-outform', 'DER');
    die "ec: $e" if $rc;
    my $pub = substr($der, -64);
    my $signed = $pub . chr($a{min_generation}) . chr($a{generation})
        . pack('N', $a{expiration}) . $a{target};
    spew("$tmp/forge.msg", "tack_sig" . $signed);
    ($rc, my $o, $e) = run_cmd('openssl', 'dgst', '-sha256', '-sign', $k,
        '-out', "$tmp/forge.sig", "$tmp/forge.msg");
    die "dgst: $e" if $rc;
    my $sig = slurp("$tmp/forge.sig");
    # SEQUENCE { INTEGER r, INTEGER s }, short lengths for P-256
    my ($rl) = unpack('C', substr($sig, 3, 1));
    my $r = substr($sig, 4, $rl);
    my ($sl) = unpack('C', substr($sig, 5 + $rl, 1));
    my $s = substr($sig, 6 + $rl, $sl);
    for ($r, $s) {
        $_ =~ s/^\x00+//;
        $_ = ("\x00" x (32 - length($_))) . $_;
    }
    return $signed . $r . $s;
}

# serverinfo_pem(BODY): a SERVERINFO block carrying any extension body.
sub serverinfo_pem {
    my ($body) = @_;
    require MIME::Base64;
    my $b64 = MIME::Base64::encode_base64(
        pack('nn', 0xf300, length($body)) . $body, '');
    $b64 =~ s/(.{64})/$1\n/g;
    $b64 .= "\n" unless $b64 =~ /\n$/;
    return "-----BEGIN SERVERINFO FOR TACK-----\n$b64"
         . "-----END SERVERINFO FOR TACK-----\n";
}

1;

package TackTool;

push @EXPORT, qw(start_httpd stop_httpd);

my %httpd;    # configuration file => PrivateHttpd

# start_httpd(NAME, PORT, BODY): a private apache2 (t/lib/PrivateHttpd.pm)
# with mod_ssl and BODY (LoadModule lines, vhosts), serving within 10 s.
# Returns the configuration file, or undef with the error log in $@.
sub start_httpd {
    my ($name, $port, $body) = @_;
    my $h = PrivateHttpd->new(root => "$tmp/httpd-$name", port => $port,
        error_log => 'error.log', pid_file => 'run/httpd.pid',
        run_dir => 'run');
    $h->write_conf($body, loglevel => 'warn', user => $> == 0,
        head => PrivateHttpd::load_modules(
                    qw(mpm_event authz_core mime socache_shmcb ssl))
            . "SSLSessionCache shmcb:$h->{run_dir}/scache(512000)\n");
    my $r = $h->start(10);
    unless ($r->{ready}) {
        $@ = "apache2 -k start: $r->{out}"
           . (-e $h->error_log ? slurp($h->error_log) : '');
        $h->stop;
        return undef;
    }
    $httpd{ $h->conf_file } = $h;
    return $h->conf_file;
}

sub stop_httpd {
    my ($conf) = @_;
    my $h = delete $httpd{$conf} or return;
    $h->stop;
}

1;

package TackTool;

push @EXPORT, qw(free_port_at wait_addr_port start_s_server_at);

# The fleet check's tests (09-fleet-check.t) run one server per loopback
# address, 127.0.0.1 to 127.0.0.4, all on one port: on Linux every
# 127.0.0.0/8 address is the local host, with nothing to configure.

# wait_addr_port(ADDR, PORT, SECS): wait_port on a given address.
sub wait_addr_port {
    my ($addr, $port, $secs) = @_;
    $secs //= 10;
    for (1 .. $secs * 20) {
        my $s = IO::Socket::INET->new(PeerAddr => $addr, PeerPort => $port,
                                      Proto => 'tcp');
        if ($s) {
            close($s);
            return 1;
        }
        sleep(0.05);
    }
    return 0;
}

# free_port_at(\@ADDRS, LO, HI): a port in our range free on every address.
sub free_port_at {
    my ($addrs, $lo, $hi) = @_;
    return PrivateHttpd::first_free_port($lo, $hi, @$addrs)
        // die "no port in $lo-$hi free on @$addrs";
}

# start_s_server_at(ADDR, PORT, ARGS...): start_s_server on ADDR; stopped
# by stop_server (or at the end) like the others.
sub start_s_server_at {
    my ($addr, $port, @args) = @_;
    my $log = "$tmp/s_server.$addr.$port.log";
    # s_server stops at end of input: give it a pipe that stays open.
    pipe(my $r, my $w) or die "pipe: $!";
    my $pid = fork();
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        close($w);
        open(STDIN, '<&', $r);
        open(STDOUT, '>>', $log);
        open(STDERR, '>&', \*STDOUT);
        exec('openssl', 's_server', '-accept', "$addr:$port", @args)
            or POSIX::_exit(127);
    }
    close($r);
    $stdin_of{$pid} = $w;
    push @servers, $pid;
    die "s_server on $addr:$port did not start: " . slurp($log)
        unless wait_addr_port($addr, $port);
    return $pid;
}

1;
