# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package TackTest;

# Helpers shared by t/apache/*.t: the two TLS peers (openssl s_client and
# t/tmp/tackprobe), expected extension bodies built from the fixture files,
# the error-log check run after each test, and private httpd instances for
# the configuration-test, start-up and reload cases.

use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use MIME::Base64 qw(decode_base64);
use Test::More;

use TackFixture qw(read_pem_blocks ext00 ext02 write_file);

use Exporter 'import';
our @EXPORT = qw(fx t_dir top_dir ssl_port s_client probe probe_batch tack_of sigs_of
    body00 body02 hex log_mark log_since log_clean);

my $T = abs_path(dirname(__FILE__) . '/../..');

sub t_dir   { $T }
sub top_dir { dirname($T) }
sub fx      { "$T/tmp/fixtures/$_[0]" }

sub hex { unpack('H*', $_[0] // '') }

sub ssl_port {
    my ($label) = @_;
    require Apache::Test;
    my $port = Apache::Test::config()->{vhosts}{ $label || 'tack_ssl' }{port};
    die "no port for $label" unless $port;
    return $port;
}

# s_client(name => SNI, port => P, request => 1, extra => '...'): the
# openssl client with -tlsextdebug; returns { ext => body bytes or undef,
# out => text, rc => status }.
sub s_client {
    my %o = @_;
    my $port = $o{port} || ssl_port();
    my $cmd = "openssl s_client -connect 127.0.0.1:$port"
        . ($o{name} ? " -servername $o{name}" : '')
        . ' ' . ($o{version} || '-tls1_2')
        . ($o{request} // 1 ? ' -serverinfo 62208' : '')
        . " -tlsextdebug " . ($o{extra} || '')
        . ' </dev/null 2>&1';
    my $out = qx{$cmd};
    my %r = (out => $out, rc => $?);
    if ($out =~ /-----BEGIN SERVERINFO FOR EXTENSION 62208-----\n(.*?)-----END/s) {
        my $raw = decode_base64($1);
        my ($type, $len) = unpack('nn', $raw);
        $r{ext} = substr($raw, 4) if $type == 0xF300 && $len == length($raw) - 4;
    }
    return \%r;
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

# The bytes of the first TACK of a fixture, and of every break signature.
sub tack_of { my @b = read_pem_blocks(fx($_[0]), 'TACK'); wantarray ? @b : $b[0] }
sub sigs_of { [ read_pem_blocks(fx($_[0]), 'TACK BREAK SIG') ] }

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
    open my $fh, '<', log_file($file) or return '';
    seek $fh, $mark, 0;
    local $/;
    return <$fh> // '';
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

use File::Copy ();
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;

my $HTTPD = $ENV{APACHE2} || '/usr/sbin/apache2';

sub free_port {
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
        Proto => 'tcp', Listen => 1, ReuseAddr => 1) or die "no port: $!";
    my $port = $s->sockport;
    close $s;
    return $port;
}

# TackTest::Httpd->new($name): a server root in t/tmp/httpd/$name with its
# own port, logs and pid file.
sub new {
    my ($class, $name) = @_;
    my $root = TackTest::t_dir() . "/tmp/httpd/$name";
    remove_tree($root);
    make_path("$root/logs");
    return bless { name => $name, root => $root, port => free_port() }, $class;
}

sub root { $_[0]{root} }
sub port { $_[0]{port} }
sub error_log { "$_[0]{root}/logs/error_log" }
sub conf_file { "$_[0]{root}/httpd.conf" }

# write_conf($body): the boiler-plate a private Debian apache2 needs, then
# $body (vhosts with @PORT@ and @ROOT@ substituted).
sub write_conf {
    my ($self, $body, %o) = @_;
    my $mods = TackTest::t_dir() . '/tmp/inherit.conf';
    open my $in, '<', $mods or die "$mods: $!";
    my $load = join '', grep { /^LoadModule/ } <$in>;
    close $in;
    # mpm => 'prefork': another MPM in place of event (one connection per
    # process, e.g. to prove counters are shared between processes).
    if ($o{mpm}) {
        $load =~ s{^LoadModule mpm_event_module (\S+)/mod_mpm_event\.so$}
                  {LoadModule mpm_$o{mpm}_module $1/mod_mpm_$o{mpm}.so}m;
    }
    my $module = TackTest::top_dir() . '/build/mod_tack.so';
    my $root = $self->{root};
    $body =~ s/\@PORT\@/$self->{port}/g;
    $body =~ s/\@ROOT\@/$root/g;
    my $loglevel = $o{loglevel} || 'info tack:debug ssl:warn';
    my $conf = <<"CONF";
ServerRoot $root
DefaultRuntimeDir $root/logs
PidFile $root/logs/httpd.pid
Listen 127.0.0.1:$self->{port}
ErrorLog $root/logs/error_log
LogLevel $loglevel
User nobody
Group nogroup
ServerName localhost
TypesConfig /etc/mime.types
DocumentRoot $root
$load
LoadModule tack_module $module
TackStateFile $root/logs/tack-state.json
SSLSessionCache shmcb:$root/logs/ssl_scache(512000)
$body
CONF
    TackFixture::write_file($self->conf_file, $conf);
    return $self;
}

sub run_httpd {
    my ($self, @args) = @_;
    my $cmd = join ' ', $HTTPD, '-f', $self->conf_file, @args;
    my $out = qx{$cmd 2>&1};
    return ($? >> 8, $out);
}

# ctl(@args): Debian's apache2ctl on this instance (APACHE_CONFDIR points at
# the instance, whose apache2.conf is the configuration written last).
# "apache2ctl graceful" and "restart" run "apache2 -t" first.
sub ctl {
    my ($self, @args) = @_;
    my $root = $self->{root};
    make_path("$root/run", "$root/lock");
    File::Copy::copy($self->conf_file, "$root/apache2.conf") or die $!;
    TackFixture::write_file("$root/envvars",
        "export APACHE_RUN_USER=nobody\nexport APACHE_RUN_GROUP=nogroup\n"
        . "export APACHE_RUN_DIR=$root/run\nexport APACHE_LOCK_DIR=$root/lock\n"
        . "export APACHE_PID_FILE=$root/logs/httpd.pid\n"
        . "export APACHE_LOG_DIR=$root/logs\n");
    my $cmd = "APACHE_CONFDIR=$root APACHE_HTTPD=$HTTPD /usr/sbin/apache2ctl @args";
    my $out = qx{$cmd 2>&1};
    return ($? >> 8, $out);
}

# configtest: (exit status, output) of "apache2 -t".
sub configtest { $_[0]->run_httpd('-t') }

sub pid {
    my ($self) = @_;
    open my $fh, '<', "$self->{root}/logs/httpd.pid" or return;
    my $pid = <$fh>;
    chomp $pid if defined $pid;
    return $pid;
}

sub alive {
    my ($self) = @_;
    my $pid = $self->pid or return 0;
    return kill(0, $pid) ? 1 : 0;
}

sub wait_port {
    my ($self) = @_;
    for (1 .. 50) {
        my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
            PeerPort => $self->{port}, Proto => 'tcp');
        if ($s) { close $s; return 1 }
        select(undef, undef, undef, 0.1);
    }
    return 0;
}

# wait_ready($mark): the pid file is there and the log says the server is
# up; the listening socket alone is bound long before (first pass).
sub wait_ready {
    my ($self, $mark) = @_;
    # $self->{timeout}: seconds (10 unless set, e.g. for 10,000 vhosts)
    for (1 .. 10 * ($self->{timeout} || 10)) {
        my $log = TackTest::log_since($mark || 0, $self->error_log);
        return 1 if $self->alive && $log =~ /resuming normal operations/;
        select(undef, undef, undef, 0.1);
    }
    return 0;
}

sub start {
    my ($self) = @_;
    my $mark = -s $self->error_log || 0;
    my @r = $self->run_httpd('-k', 'start');
    $self->wait_ready($mark) if $r[0] == 0;
    return @r;
}

# graceful: a signal without a configuration test, as "kill -USR1" or a
# package upgrade would send; waits for the new generation.
sub graceful {
    my ($self) = @_;
    my $pid = $self->pid or return 0;
    my $mark = -s $self->error_log;
    kill 'USR1', $pid;
    return $self->wait_ready($mark);
}

sub stop {
    my ($self) = @_;
    my $pid = $self->pid or return;
    kill 'TERM', $pid;
    for (1 .. 100) {
        last unless kill 0, $pid;
        select(undef, undef, undef, 0.1);
    }
    unlink "$self->{root}/logs/httpd.pid";
}

sub DESTROY { $_[0]->stop }

1;
