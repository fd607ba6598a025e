# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package TackTest;

# Helpers shared by t/apache/*.t: the two TLS peers (openssl s_client and
# t/tmp/tackprobe), expected extension bodies built from the fixture files,
# the error-log check run after each test, and private httpd instances for
# the configuration-test, start-up and reload cases (t/lib/PrivateHttpd.pm).

use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use Test::More;

# t/lib: the helpers and the private httpd the Perl suites share.
use TackHelpers qw(pem_blocks ext00 ext02 write_file read_file
    fingerprint);
use PrivateHttpd;

use Exporter 'import';
our @EXPORT = qw(fx t_dir top_dir ssl_port s_client probe probe_batch served_tack tack_of sigs_of
    body00 body02 hex log_mark log_since log_clean);

my $T = abs_path(dirname(__FILE__) . '/../..');

sub t_dir   { $T }
sub top_dir { dirname($T) }
sub fx      { "$T/tmp/fixtures/$_[0]" }

# hex($bytes): TackHelpers' hexs (in these tests hex() shows bytes).
{ no warnings 'once'; *hex = \&TackHelpers::hexs; }

sub ssl_port {
    my ($label) = @_;
    require Apache::Test;
    my $port = Apache::Test::config()->{vhosts}{ $label || 'tack_ssl' }{port};
    die "no port for $label" unless $port;
    return $port;
}

# s_client(name => SNI, port => P (the suite's tack_ssl port), request => 1,
# version => '-tls1_2', extra => '...'): TackHelpers' s_client, the openssl
# client with -tlsextdebug; returns { ext => body bytes or undef, out =>
# text, ok, rc }.
sub s_client {
    my %o = @_;
    return TackHelpers::s_client(%o, port => $o{port} || ssl_port());
}

# probe_batch(port => P, names => [...], version => '1.2'): one handshake per
# name in one process; returns { name => body bytes, '' for none, undef for
# a failed handshake }.
sub probe_batch {
    my %o = @_;
    my $file = "$T/tmp/probe-batch.txt";
    write_file($file, join('', map { "$_\n" } @{ $o{names} }));
    my $cmd = "$T/tmp/tackprobe -c 127.0.0.1:$o{port} -f $file"
        . ($o{version} ? " -v $o{version}" : '') . ' 2>&1';
    my %r;
    for my $line (split /\n/, qx{$cmd}) {
        my ($name, $v) = split / /, $line, 2;
        next unless defined $v;
        $r{$name} = $v eq 'none' ? '' : $v eq 'error' ? undef : pack('H*', $v);
    }
    return \%r;
}

# probe(name => SNI, port => P, version => '1.2'|'1.3', args => '...'): the
# test client; returns { ok, version, resumed, cert_spki, ext (bytes or
# undef), error, out }.
sub probe {
    my %o = @_;
    my $port = $o{port} || ssl_port();
    my $cmd = "$T/tmp/tackprobe -c 127.0.0.1:$port"
        . ($o{name} ? " -n $o{name}" : '')
        . ($o{version} ? " -v $o{version}" : '')
        . ' ' . ($o{args} || '') . ' 2>&1';
    my $out = qx{$cmd};
    my %r = (out => $out, ok => $? == 0);
    $r{version}   = $1 if $out =~ /^version (\S+)/m;
    $r{resumed}   = $1 if $out =~ /^resumed (\d)/m;
    $r{cert_spki} = $1 if $out =~ /^cert_spki ([0-9a-f]+)/m;
    $r{error}     = $1 if $out =~ /^error (.*)/m;
    $r{http}      = $1 if $out =~ /^http (.*)/m;
    if ($out =~ /^ext ([0-9a-f]+)$/m) {
        $r{ext} = pack('H*', $1);
    }
    elsif ($out =~ /^ext $/m) {
        $r{ext} = '';
    }
    return \%r;
}

# served_tack($port, $name): the TACK a TLS 1.2 handshake with $name gets
# in a draft-00 body, as fields (bytes, id: the TACK key's fingerprint,
# min, gen, exp, target, the certificate's spki, pin: activation), or undef.
sub served_tack {
    my ($port, $name) = @_;
    my $r = probe(port => $port, name => $name, version => '1.2');
    return undef unless defined $r->{ext} && length($r->{ext}) >= 167
        && ord($r->{ext}) == 166;
    my $t = substr($r->{ext}, 1, 166);
    my ($min, $gen, $exp) = unpack('CCN', substr($t, 64, 6));
    return { bytes => $t, id => fingerprint(substr($t, 0, 64)),
             min => $min, gen => $gen, exp => $exp,
             target => unpack('H*', substr($t, 70, 32)),
             spki => $r->{cert_spki}, pin => ord(substr($r->{ext}, -1)) };
}

# The bytes of the first TACK of a fixture, and of every break signature.
sub tack_of { my @b = pem_blocks(fx($_[0]), 'TACK'); wantarray ? @b : $b[0] }
sub sigs_of { [ pem_blocks(fx($_[0]), 'TACK BREAK SIG') ] }

sub body00 { ext00(@_) }
sub body02 { ext02(@_) }

# ---- error log ------------------------------------------------------------

sub log_file { $_[0] || "$T/logs/error_log" }

sub log_mark {
    my ($file) = @_;
    return -s log_file($file) || 0;
}

sub log_since {
    my ($mark, $file) = @_;
    return read_file(log_file($file), $mark) // '';
}

# log_clean($mark, [qr/allowed/...], $file): no [error] or [warn] line since
# $mark other than the allowed ones (mod_md's harness habit).
sub log_clean {
    my ($mark, $allowed, $file) = @_;
    my @bad;
    for my $line (split /\n/, log_since($mark, $file)) {
        next unless $line =~ /\[[\w:]*(?:error|warn|crit|alert|emerg)\]/;
        next if grep { $line =~ $_ } @{ $allowed || [] };
        push @bad, $line;
    }
    ok(!@bad, 'no unexpected [error]/[warn] lines in the error log')
        or diag(join "\n", @bad);
}

# ---- private httpd instances ------------------------------------------------

package TackTest::Httpd;

# t/lib/PrivateHttpd.pm with this suite's layout (t/tmp/httpd/NAME, logs/),
# the modules of t/tmp/inherit.conf and (rc, output) results.
use parent -norequire, 'PrivateHttpd';

# free_port(): a port the kernel picks, free on 127.0.0.1 just now.
sub free_port { PrivateHttpd::any_port() }

# TackTest::Httpd->new($name): a server root in t/tmp/httpd/$name with its
# own port (free_port), logs and pid file.
sub new {
    my ($class, $name) = @_;
    my $self = $class->SUPER::new(
        root => TackTest::t_dir() . "/tmp/httpd/$name", fresh => 1,
        port => free_port(), error_log => 'logs/error_log',
        pid_file => 'logs/httpd.pid', run_dir => 'logs');
    $self->{name} = $name;
    return $self;
}

# write_conf($body, %o): the boiler-plate a private Debian apache2 needs,
# then $body (vhosts with @PORT@ and @ROOT@ substituted).
sub write_conf {
    my ($self, $body, %o) = @_;
    my $mods = TackTest::t_dir() . '/tmp/inherit.conf';
    my $load = join '', grep { /^LoadModule/ }
        split /^/m, TackHelpers::slurp($mods);
    # mpm => 'prefork': another MPM in place of event (one connection per
    # process, e.g. to prove counters are shared between processes).
    if ($o{mpm}) {
        $load =~ s{^LoadModule mpm_event_module (\S+)/mod_mpm_event\.so$}
                  {LoadModule mpm_$o{mpm}_module $1/mod_mpm_$o{mpm}.so}m;
    }
    my $module = TackTest::top_dir() . '/build/mod_tack.so';
    my $root = $self->{root};
    return $self->SUPER::write_conf($body,
        loglevel => $o{loglevel} || 'info tack:debug ssl:warn',
        head => "DocumentRoot $root\n$load"
            . "LoadModule tack_module $module\n"
            . "TackStateFile $root/logs/tack-state.json\n"
            . "SSLSessionCache shmcb:$root/logs/ssl_scache(512000)\n");
}

# run_httpd(@args), ctl(@args) (Debian's apache2ctl on this instance;
# "graceful" and "restart" run "apache2 -t" first), configtest ("apache2
# -t"): (exit status, output).
sub run_httpd {
    my ($self, @args) = @_;
    my $r = $self->SUPER::run_httpd(60, @args);
    return ($r->{rc}, $r->{out});
}

sub ctl {
    my ($self, @args) = @_;
    my $r = $self->SUPER::ctl(60, @args);
    return ($r->{rc}, $r->{out});
}

sub configtest { $_[0]->run_httpd('-t') }

# wait_ready($mark): a generation is up since $mark, within
# $self->{timeout} seconds (10 unless set, e.g. for 10,000 vhosts).
sub wait_ready {
    my ($self, $mark) = @_;
    return $self->SUPER::wait_ready($mark || 0, $self->{timeout} || 10);
}

# start: "apache2 -k start", (exit status, output) once it serves.
sub start {
    my ($self) = @_;
    my $r = $self->SUPER::start($self->{timeout} || 10);
    return ($r->{rc}, $r->{out});
}

# graceful: a signal without a configuration test, as "kill -USR1" or a
# package upgrade would send; waits for the new generation.
sub graceful { $_[0]->graceful_signal($_[0]{timeout} || 10) }

# stop, pid, alive, wait_port: PrivateHttpd's.

1;
