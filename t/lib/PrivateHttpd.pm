# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package PrivateHttpd;

# PrivateHttpd.pm -- a private Debian apache2 for the Perl suites
# (t/apache, t/reliability, t/tool, t/acme): a free port, the boiler-plate
# a private server needs (the spec's "Running httpd privately"),
# start, wait until it serves, graceful, stop, the error log.  Each suite's
# helper keeps its own layout (where the log, the pid file and the runtime
# files go) and the lines it adds; this module does the rest, once.
#
#   my $h = PrivateHttpd->new(root => DIR, port => PORT,
#       error_log => 'logs/error_log', pid_file => 'logs/httpd.pid',
#       run_dir => 'logs');
#   $h->write_conf($body, loglevel => ..., head => "LoadModule ...\n");
#   my $r = $h->start(10);   # { rc, out, ready, ... }
#   $h->stop;                # also at DESTROY and at the end of the test
#
# Every instance is stopped when the test file ends, dies or is sent INT,
# TERM or HUP (an exit then), by the process that made it (not by a forked
# child that dies before its exec).  The scripts' counterpart is
# scripts/httpd-lib.sh.

use strict;
use warnings;

use Fcntl qw(:flock);
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use Scalar::Util qw(weaken);
use Time::HiRes qw(time sleep);
use TackHelpers qw(read_file write_file);

# Debian's apache2 unless the environment names another httpd (make
# test-openssl4's, built against OpenSSL 4.0, with Debian's apache2ctl
# beside it).
our $HTTPD      = $ENV{APACHE2} || '/usr/sbin/apache2';
our $APACHE2CTL = $ENV{APACHE2CTL} || '/usr/sbin/apache2ctl';
our $MODDIR     = $ENV{MODDIR} || '/usr/lib/apache2/modules';

# ---- ports ----------------------------------------------------------------

sub _bindable {
    my ($addr, $port) = @_;
    my $s = IO::Socket::INET->new(LocalAddr => $addr, LocalPort => $port,
        Proto => 'tcp', Listen => 1, ReuseAddr => 1) or return;
    return $s;
}

# any_port(): a port the kernel picks, free on 127.0.0.1 just now; dies
# "no port: ERRNO" when there is none.
sub any_port {
    my $s = _bindable('127.0.0.1', 0) or die "no port: $!";
    my $port = $s->sockport;
    close $s;
    return $port;
}

# first_free_port($lo, $hi, @addrs): the first port of $lo..$hi nothing
# listens on at every address of @addrs (127.0.0.1 unless given); undef
# when all are taken.  Fixed ranges keep a suite out of another's way.
sub first_free_port {
    my ($lo, $hi, @addrs) = @_;
    @addrs = ('127.0.0.1') unless @addrs;
    PORT: for my $p ($lo .. $hi) {
        my @held;
        for my $a (@addrs) {
            my $s = _bindable($a, $p) or next PORT;
            push @held, $s;
        }
        close($_) for @held;
        return $p;
    }
    return undef;
}

# claim_port($lo, $hi, $lockdir): a free port of $lo..$hi, starting at a
# random one, claimed with a lock on $lockdir/PORT held until the process
# ends, so that test files running at once never pick the same; undef when
# none is left.
my @CLAIMS;
sub claim_port {
    my ($lo, $hi, $lockdir) = @_;
    make_path($lockdir);
    my $n = $hi - $lo + 1;
    my $start = int(rand($n));
    for my $i (0 .. $n - 1) {
        my $port = $lo + ($start + $i) % $n;
        open my $lk, '>', "$lockdir/$port" or next;
        next unless flock($lk, LOCK_EX | LOCK_NB);
        my $s = _bindable('127.0.0.1', $port);
        unless ($s) { close $lk; next }
        close $s;
        push @CLAIMS, $lk;
        return $port;
    }
    return undef;
}

# load_modules(@names): "LoadModule NAME_module MODDIR/mod_NAME.so" lines
# for those of @names this machine has.
sub load_modules {
    return join '', map { "LoadModule ${_}_module $MODDIR/mod_$_.so\n" }
        grep { -f "$MODDIR/mod_$_.so" } @_;
}

# ---- commands ---------------------------------------------------------------

# run_cmd({timeout => S, env => {...}, stdin => TEXT, dir => D}, @argv):
# TackHelpers::run_cmd with stderr merged into out and a time limit of S
# (60) seconds; its output goes through a file in D (/tmp) while it runs.
# Returns { rc => exit status (-1 on timeout), signal, out => stdout and
# stderr, timed_out => 0|1, seconds }.
sub run_cmd {
    my ($o, @argv) = @_;
    return TackHelpers::run_cmd({ %$o, timeout => $o->{timeout} // 60,
                                  merge => 1 }, @argv);
}

# ---- instances --------------------------------------------------------------
#
# A suite's subclass may give run_httpd, wait_ready and the like its own
# arguments and results: the methods here call their PrivateHttpd versions
# by full name.

our @INSTANCES;

# A test that dies, or is interrupted, still stops its servers: a signal
# becomes an exit, and END runs (before File::Temp removes the directories
# of a suite that loaded it first, and so their pid files).
$SIG{$_} ||= sub { exit 1 } for qw(INT TERM HUP);
END {
    local $?;
    $_->stop for grep { defined } @INSTANCES;
}

# PrivateHttpd->new(root => DIR, port => PORT, fresh => 1 (DIR emptied
# first), error_log, pid_file, run_dir (DefaultRuntimeDir): paths under
# DIR; dirs => [more directories under DIR]).
sub new {
    my ($class, %o) = @_;
    my $self = bless {
        root      => $o{root},
        port      => $o{port},
        error_log => "$o{root}/" . ($o{error_log} || 'logs/error_log'),
        pid_file  => "$o{root}/" . ($o{pid_file} || 'logs/httpd.pid'),
        run_dir   => "$o{root}/" . ($o{run_dir} || 'logs'),
        owner     => $$,
    }, $class;
    remove_tree($o{root}) if $o{fresh};
    make_path($o{root}, map { "$o{root}/$_" } @{ $o{dirs} || [] });
    make_path($self->{run_dir},
        map { s{/[^/]*$}{}r } @$self{qw(error_log pid_file)});
    # weak: an instance that goes out of scope is stopped then (DESTROY)
    push @INSTANCES, $self;
    weaken($INSTANCES[-1]);
    return $self;
}

sub root      { $_[0]{root} }
sub port      { $_[0]{port} }
sub error_log { $_[0]{error_log} }
sub pid_file  { $_[0]{pid_file} }
sub run_dir   { $_[0]{run_dir} }
sub conf_file { "$_[0]{root}/httpd.conf" }

# write_conf($body, loglevel => L, user => 0|1, head => LINES): the lines
# every private Debian apache2 needs (User and Group nobody/nogroup unless
# user => 0, for a start as root), then head (LoadModule lines and the
# like), then $body, with @PORT@ and @ROOT@ replaced in both.
sub write_conf {
    my ($self, $body, %o) = @_;
    my $root = $self->{root};
    my $user = ($o{user} // 1) ? "User nobody\nGroup nogroup\n" : '';
    my $conf = <<"CONF" . ($o{head} // '') . "$body\n";
ServerRoot $root
DefaultRuntimeDir $self->{run_dir}
PidFile $self->{pid_file}
Listen 127.0.0.1:$self->{port}
ErrorLog $self->{error_log}
LogLevel @{[ $o{loglevel} || 'warn' ]}
${user}ServerName localhost
TypesConfig /etc/mime.types
CONF
    $conf =~ s/\@PORT\@/$self->{port}/g;
    $conf =~ s/\@ROOT\@/$root/g;
    write_file($self->conf_file, $conf);
    return $self;
}

# run_httpd($timeout, @args): "apache2 -f CONF @args", a run_cmd result.
sub run_httpd {
    my ($self, $timeout, @args) = @_;
    return run_cmd({ timeout => $timeout, dir => $self->{root} },
        $HTTPD, '-f', $self->conf_file, @args);
}

# ctl($timeout, @args): Debian's apache2ctl on this instance (its
# apache2.conf is the configuration written last, its envvars name the
# instance's directories and the file, with -f: an httpd not built by
# Debian looks for conf/httpd.conf); "graceful", "restart" and
# "configtest" run "apache2 -t" first.  A run_cmd result.
sub ctl {
    my ($self, $timeout, @args) = @_;
    my $root = $self->{root};
    make_path("$root/run", "$root/lock");
    write_file("$root/apache2.conf", read_file($self->conf_file) // '');
    write_file("$root/envvars",
        "export APACHE_RUN_USER=nobody\nexport APACHE_RUN_GROUP=nogroup\n"
        . "export APACHE_RUN_DIR=$root/run\nexport APACHE_LOCK_DIR=$root/lock\n"
        . "export APACHE_PID_FILE=$self->{pid_file}\n"
        . "export APACHE_ARGUMENTS='-f $root/apache2.conf'\n"
        . "export APACHE_LOG_DIR=" . ($self->{error_log} =~ s{/[^/]*$}{}r)
        . "\n");
    return run_cmd({ timeout => $timeout, dir => $root,
        env => { APACHE_CONFDIR => $root, APACHE_HTTPD => $HTTPD } },
        $APACHE2CTL, @args);
}

# pid: the parent's pid from the pid file (remembered, so that a server
# whose pid file is gone can still be stopped).
sub pid {
    my ($self) = @_;
    my $p = read_file($self->{pid_file});
    return $self->{last_pid} = $1 if defined $p && $p =~ /(\d+)/;
    return;
}

sub alive {
    my ($self) = @_;
    my $pid = $self->pid or return 0;
    return kill(0, $pid) ? 1 : 0;
}

sub log_mark { -s $_[0]{error_log} || 0 }

sub log_since {
    my ($self, $mark) = @_;
    return read_file($self->{error_log}, $mark) // '';
}

# log_tail($n): the last $n (10) lines of the error log.
sub log_tail {
    my ($self, $n) = @_;
    my @l = split /\n/, $self->log_since(0);
    splice @l, 0, @l - ($n || 10) if @l > ($n || 10);
    return join '', map { "$_\n" } @l;
}

# wait_port($secs): the port accepts a connection within $secs (5).
sub wait_port {
    my ($self, $secs) = @_;
    return TackHelpers::wait_port($self->{port}, $secs || 5);
}

# wait_ready($mark, $secs): within $secs (20), the parent is alive, the log
# says a generation is up since $mark ("resuming normal operations": the
# listening socket alone is bound long before) and the port answers.
sub wait_ready {
    my ($self, $mark, $secs) = @_;
    my $end = time + ($secs || 20);
    while (time < $end) {
        return 1 if $self->alive
            && $self->log_since($mark) =~ /resuming normal operations/
            && TackHelpers::wait_port($self->{port}, 0);
        sleep 0.05;
    }
    return 0;
}

# start($secs): "apache2 -k start" and wait_ready($secs).  Returns the
# run_cmd result with ready => 0|1.
sub start {
    my ($self, $secs) = @_;
    my $mark = $self->log_mark;
    my $r = $self->PrivateHttpd::run_httpd(60, '-k', 'start');
    $r->{ready} = $r->{rc} == 0
        ? $self->PrivateHttpd::wait_ready($mark, $secs) : 0;
    return $r;
}

# graceful_signal($secs): SIGUSR1, no configuration test (as "kill -USR1"
# or a package upgrade would send); 1 once the new generation is up.
sub graceful_signal {
    my ($self, $secs) = @_;
    my $pid = $self->pid or return 0;
    my $mark = $self->log_mark;
    kill 'USR1', $pid;
    return $self->PrivateHttpd::wait_ready($mark, $secs);
}

# graceful_k($secs): "apache2 -k graceful" (parses the configuration in
# the invoking process, then signals).  Returns (run_cmd result, ready).
sub graceful_k {
    my ($self, $secs) = @_;
    my $mark = $self->log_mark;
    my $r = $self->PrivateHttpd::run_httpd(60, '-k', 'graceful');
    return ($r, $r->{rc} == 0
        ? $self->PrivateHttpd::wait_ready($mark, $secs) : 0);
}

# stop($secs): SIGTERM, then SIGKILL after $secs (15) seconds; only in the
# process that made the instance.
sub stop {
    my ($self, $secs) = @_;
    return unless $self->{owner} == $$;
    my $pid = $self->pid || $self->{last_pid} or return;
    delete $self->{last_pid};
    return unless kill 0, $pid;
    kill 'TERM', $pid;
    my $end = time + ($secs || 15);
    while (time < $end && kill(0, $pid)) {
        sleep 0.05;
    }
    kill 'KILL', $pid if kill 0, $pid;
    unlink $self->{pid_file};
}

sub DESTROY {
    local $?;    # the test's exit status, at the end
    $_[0]->stop;
}

1;
