# TackTool.pm -- helpers for the t/tool/*.t tests of the `tack` tool.
#
# Tests run ./tack from the top directory, write only under a temporary
# directory, and start servers on 127.0.0.1 ports 18400-18449 only.
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

our @EXPORT = qw(tack run_cmd tmp top vec00 vec02 slurp spew mkcert
                 free_port start_s_server stop_server wait_port pem_body
                 $TACK);

my $top = abs_path(File::Spec->catdir((File::Spec->splitpath(
    abs_path(__FILE__)))[1], '..', '..', '..'));
our $TACK = "$top/tack";
my $tmp = tempdir('tack-tool-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my @servers;

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
    for my $p ($lo .. $hi) {
        my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1',
            LocalPort => $p, Proto => 'tcp', ReuseAddr => 1, Listen => 1);
        if ($s) {
            close($s);
            return $p;
        }
    }
    die "no free port in $lo-$hi";
}

sub wait_port {
    my ($port, $secs) = @_;
    $secs //= 10;
    for (1 .. $secs * 20) {
        my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
            PeerPort => $port, Proto => 'tcp');
        if ($s) {
            close($s);
            return 1;
        }
        sleep(0.05);
    }
    return 0;
}

# start_s_server(PORT, ARGS...): `openssl s_server` in the background.
sub start_s_server {
    my ($port, @args) = @_;
    my $log = "$tmp/s_server.$port.log";
    my $pid = fork();
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open(STDIN, '<', '/dev/null');
        open(STDOUT, '>>', $log);
        open(STDERR, '>&', \*STDOUT);
        exec('openssl', 's_server', '-accept', "127.0.0.1:$port", @args)
            or POSIX::_exit(127);
    }
    push @servers, $pid;
    die "s_server on $port did not start: " . slurp($log)
        unless wait_port($port);
    return $pid;
}

sub stop_server {
    my ($pid) = @_;
    kill('TERM', $pid);
    waitpid($pid, 0);
    @servers = grep { $_ != $pid } @servers;
}

END {
    for my $pid (@servers) {
        kill('TERM', $pid);
        waitpid($pid, 0);
    }
}

# pem_body(TEXT, LABEL): the decoded bytes of the first LABEL block.
sub pem_body {
    my ($text, $label) = @_;
    require MIME::Base64;
    $text =~ /-----BEGIN \Q$label\E-----\s*\n(.*?)-----END \Q$label\E-----/s
        or return undef;
    return MIME::Base64::decode_base64($1);
}

1;
