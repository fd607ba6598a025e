# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package Pebble;

# Pebble.pm -- a private pebble (Let's Encrypt's ACME test server) for tests.
#
#   my $p = Pebble->start("$tmp/pebble");   # dies if it cannot start
#   $p->url        # https://127.0.0.1:PORT/dir, the ACME directory
#   $p->ca_file    # the CA of pebble's own listener (MDCACertificateFile,
#                  # REQUESTS_CA_BUNDLE)
#   $p->stop       # also done when $p goes out of scope
#
# Debian's pebble has no certificate for its listener: start() makes a CA
# and a localhost / 127.0.0.1 certificate with openssl, writes the JSON
# configuration with every port free on 127.0.0.1, and runs pebble with
# PEBBLE_VA_ALWAYS_VALID=1 (every challenge passes without a connection),
# PEBBLE_VA_NOSLEEP=1 and PEBBLE_WFE_NONCEREJECT=0 (no random bad-nonce
# errors).  Certificates it issues are valid for 5 years.

use strict;
use warnings;

use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep);
use PrivateHttpd ();
use TackHelpers qw(wait_until must_run write_file read_file wait_port);

my $PEBBLE = $ENV{PEBBLE} || '/usr/bin/pebble';

# free_port(): a TCP port nothing listens on at 127.0.0.1 just now (one
# the kernel picks, as for the suites' httpds: t/lib/PrivateHttpd.pm).
sub free_port { PrivateHttpd::any_port() }

# wait_until($seconds, $code, $step), mustmust_run(@argv) (dies unless the
# command succeeds; returns its stdout), write_file, read_file:
# t/lib/TackHelpers.pm's.

# Pebble->start($dir, %opt): makes $dir, starts pebble there.  %opt:
# env => { NAME => VALUE } more environment for pebble (e.g.
# PEBBLE_CHAIN_LENGTH).
sub start {
    my ($class, $dir, %opt) = @_;
    die "pebble is not installed ($PEBBLE): apt-get install pebble\n"
        unless -x $PEBBLE;
    system('mkdir', '-p', $dir) == 0 or die "mkdir $dir";
    # Two ports, never the same one: each is free when asked, and the
    # kernel may hand the same free port out twice (pebble then fails to
    # bind its management listener: "address already in use").
    my $port = free_port();
    my $mgmt = free_port();
    $mgmt = free_port() while $mgmt == $port;
    my $self = bless { dir => $dir, port => $port, mgmt => $mgmt }, $class;

    # The listener's CA and certificate (pebble needs SAN 127.0.0.1 and
    # localhost; clients check them against ca.pem).
    must_run('openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt',
        'ec_paramgen_curve:P-256', '-nodes', '-days', '30',
        '-subj', '/CN=mod_tack test pebble CA',
        '-addext', 'basicConstraints=critical,CA:TRUE',
        '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
        '-keyout', "$dir/ca.key", '-out', "$dir/ca.pem");
    must_run('openssl', 'req', '-new', '-newkey', 'ec', '-pkeyopt',
        'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost',
        '-keyout', "$dir/listener.key", '-out', "$dir/listener.csr");
    write_file("$dir/listener.ext",
        "basicConstraints=critical,CA:FALSE\n"
        . "keyUsage=critical,digitalSignature\n"
        . "extendedKeyUsage=serverAuth\n"
        . "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    must_run('openssl', 'x509', '-req', '-in', "$dir/listener.csr",
        '-CA', "$dir/ca.pem", '-CAkey', "$dir/ca.key", '-CAcreateserial',
        '-days', '30', '-extfile', "$dir/listener.ext",
        '-out', "$dir/listener.pem");

    # httpPort / tlsPort: where the validation authority would connect;
    # with PEBBLE_VA_ALWAYS_VALID it never does, but they must be numbers.
    write_file("$dir/pebble.json", <<"J");
{
  "pebble": {
    "listenAddress": "127.0.0.1:$self->{port}",
    "managementListenAddress": "127.0.0.1:$self->{mgmt}",
    "certificate": "$dir/listener.pem",
    "privateKey": "$dir/listener.key",
    "httpPort": @{[ free_port() ]},
    "tlsPort": @{[ free_port() ]},
    "ocspResponderURL": "",
    "externalAccountBindingRequired": false
  }
}
J
    my $log = "$dir/pebble.log";
    my $pid = fork();
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open(STDIN, '<', '/dev/null');
        open(STDOUT, '>', $log) or POSIX::_exit(127);
        open(STDERR, '>&', \*STDOUT);
        %ENV = (%ENV, PEBBLE_VA_ALWAYS_VALID => 1, PEBBLE_VA_NOSLEEP => 1,
                PEBBLE_WFE_NONCEREJECT => 0, %{ $opt{env} || {} });
        exec($PEBBLE, '-config', "$dir/pebble.json") or POSIX::_exit(127);
    }
    $self->{pid} = $pid;
    my $up = wait_until(20, sub {
        die "pebble exited at start:\n" . $self->log_text . "\n"
            if waitpid($pid, WNOHANG) == $pid;
        return wait_port($self->{port}, 0);
    }, 0.2);
    unless ($up) {
        $self->stop;
        die "pebble did not listen on 127.0.0.1:$self->{port}:\n"
            . $self->log_text . "\n";
    }
    return $self;
}

sub dir      { $_[0]{dir} }
sub port     { $_[0]{port} }
sub url      { "https://127.0.0.1:$_[0]{port}/dir" }
sub ca_file  { "$_[0]{dir}/ca.pem" }
sub log_file { "$_[0]{dir}/pebble.log" }

sub log_text { read_file($_[0]->log_file) // '' }

# root_pem(): pebble's issuing root (from its management listener), for a
# client that verifies what pebble issued.
sub root_pem {
    my ($self) = @_;
    return must_run('curl', '-sS', '--cacert', $self->ca_file,
        "https://127.0.0.1:$self->{mgmt}/roots/0");
}

sub stop {
    my ($self) = @_;
    my $pid = delete $self->{pid} or return;
    kill 'TERM', $pid;
    for (1 .. 50) {
        return if waitpid($pid, WNOHANG) == $pid;
        sleep(0.1);
    }
    kill 'KILL', $pid;
    waitpid($pid, 0);
}

sub DESTROY {
    local $?;    # the test's exit status, at the end
    $_[0]->stop;
}

1;
