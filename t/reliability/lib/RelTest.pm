# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package RelTest;

# Shared by t/reliability/*.t: prerequisites that fail (never skip) when
# missing, commands run under a time limit, fixtures made at test time
# (certificates with openssl req, TACK keys, TACKs and break signatures with
# the project's ./tack), the client views of a server (openssl s_client's
# SERVERINFO dump, ./tack check, t/reliability/rawhello) and private httpd
# instances (t/lib/PrivateHttpd.pm) in t/tmp/rel-XXXX on 127.0.0.1 ports
# 18600-18699.  The small helpers (files, certificates, TACK bytes, PEM,
# s_client) are t/lib/TackHelpers.pm's, exported again with this suite's
# defaults: commands may run 60 s, their output goes through t/tmp/rel-XXXX.
#
# No Apache::Test here: its generated t/conf and t/logs belong to the
# module's suite, which may run at the same time.

use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use Test::More;
# t/lib: the helpers and the private httpd the Perl suites share.
use TackHelpers qw(write_file read_file pem pem_blocks make_key
    key_public tack_bytes spki_hash ext00 ext02 hexs);
use PrivateHttpd;

use Exporter 'import';
our @EXPORT = qw(top_dir tool module_so loadgen_bin rawhello_bin
    need run_cmd tmp_root free_port write_file read_file
    make_cert tack_genkey tack_sign tack_break pem pem_blocks
    make_key key_public tack_bytes spki_hash
    ext00 ext02 s_client tack_check hexs PASSWORD);

use constant PASSWORD => 'rel-pw';

my $TOP = abs_path(dirname(__FILE__) . '/../../..');

sub top_dir     { $TOP }
sub tool        { "$TOP/tack" }
sub module_so   { "$TOP/build/mod_tack.so" }
sub loadgen_bin { "$TOP/build/loadgen" }
sub rawhello_bin { "$TOP/build/rel/rawhello" }
sub keyspy_so { "$TOP/build/rel/keyspy.so" }

our $HTTPD = $PrivateHttpd::HTTPD;
our $APACHE2CTL = $PrivateHttpd::APACHE2CTL;
our $MODDIR = $PrivateHttpd::MODDIR;

# need(@things): every prerequisite is there, or the test file dies (a
# missing prerequisite is a failure, never a skip).
sub need {
    my @missing;
    for my $w (@_) {
        if ($w eq 'httpd') {
            push @missing, $HTTPD unless -x $HTTPD;
            push @missing, "$MODDIR/mod_ssl.so" unless -f "$MODDIR/mod_ssl.so";
            push @missing, $APACHE2CTL unless -x $APACHE2CTL;
        }
        elsif ($w eq 'module') {
            push @missing, module_so() . ' (make module)' unless -f module_so();
        }
        elsif ($w eq 'tool') {
            push @missing, tool() . ' (make tool)' unless -x tool();
        }
        elsif ($w eq 'loadgen') {
            push @missing, loadgen_bin() . ' (make reliability-build)'
                unless -x loadgen_bin();
        }
        elsif ($w eq 'rawhello') {
            push @missing, rawhello_bin() . ' (make reliability-build)'
                unless -x rawhello_bin();
        }
        elsif ($w eq 'keyspy') {
            push @missing, keyspy_so() . ' (make reliability-build)'
                unless -f keyspy_so();
        }
        elsif (grep { $w eq $_ } qw(openssl valgrind gdb script)) {
            push @missing, $w unless grep { -x "$_/$w" } split /:/, $ENV{PATH};
        }
        else {
            die "need: unknown prerequisite $w";
        }
    }
    if (@missing) {
        plan tests => 1;
        fail('prerequisites: ' . join(', ', @missing));
        exit 1;
    }
}

# run_cmd({timeout => S (60), stdin => TEXT, env => {...}}, @argv): runs
# the command in its own process group, kills the group after S seconds.
# Returns { rc => exit status (-1 on timeout), signal => N, out => stdout
# and stderr, timed_out => 0|1, seconds => elapsed } (PrivateHttpd's).
sub run_cmd {
    my ($o, @argv) = @_;
    return PrivateHttpd::run_cmd({ %$o, dir => tmp_root() }, @argv);
}

# tmp_root: t/tmp/rel-XXXX, one per test file, removed at exit unless
# RELIABILITY_KEEP is set.
my $TMP;
sub tmp_root {
    return $TMP if $TMP;
    make_path("$TOP/t/tmp");
    $TMP = tempdir('rel-XXXX', DIR => "$TOP/t/tmp",
                   CLEANUP => !$ENV{RELIABILITY_KEEP});
    chmod 0755, $TMP;    # httpd children run as nobody
    return $TMP;
}

# free_port(): a port of 18600-18699 nobody listens on, claimed with a lock
# file so that two of our test files running at once do not pick the same.
sub free_port {
    return PrivateHttpd::claim_port(18600, 18699, '/tmp/mod_tack-rel-ports')
        // die "free_port: no free port in 18600-18699\n";
}

# ---- fixtures -----------------------------------------------------------

# _must(@argv): the command, which must succeed within 60 s.
sub _must { TackHelpers::must_run({ timeout => 60, dir => tmp_root() }, @_) }

# make_cert($dir, $name, 'ec'|'rsa', $cn, @more_names): $dir/$name.crt and
# .key, a self-signed end-entity certificate for $cn (and @more_names),
# valid for a year (TackHelpers').
sub make_cert { TackHelpers::make_cert({ days => 365 }, @_) }

sub tack_genkey {
    my ($path) = @_;
    _must(tool(), 'genkey', '-p', PASSWORD, '-o', $path);
    return $path;
}

# tack_sign($key, $cert, $out, @options): ./tack sign with the password.
sub tack_sign {
    my ($key, $cert, $out, @opt) = @_;
    _must(tool(), 'sign', '-k', $key, '-p', PASSWORD, '-c', $cert,
        '-o', $out, '--force', @opt);
    return $out;
}

sub tack_break {
    my ($key, $out) = @_;
    _must(tool(), 'break', '-k', $key, '-p', PASSWORD, '-o', $out,
        '--force');
    return $out;
}

# ---- clients -------------------------------------------------------------

# s_client(port => P, name => SNI, version => '-tls1_2', request => 1,
# extra => [...], timeout => 20): openssl's client with -tlsextdebug
# (TackHelpers').  Returns { ext => body or undef, ok => handshake
# completed, out => text }.
sub s_client { TackHelpers::s_client(dir => tmp_root(), @_) }

# tack_check($port, $name, @options): ./tack check --json.
sub tack_check {
    my ($port, $name, @opt) = @_;
    return run_cmd({ timeout => 30 }, tool(), 'check', "127.0.0.1:$port",
        '--servername', $name, @opt);
}

# ---- private httpd instances -------------------------------------------

# A test that dies, is interrupted or loses its output pipe still stops
# the servers it started: PrivateHttpd makes INT, TERM and HUP an exit and
# stops them at END (before File::Temp removes the directories and the pid
# files); a lost pipe is an exit too.
$SIG{PIPE} = sub { exit 1 };
# Every instance lives until the test ends, out of scope or not.
our @INSTANCES;

package RelTest::Httpd;

use parent -norequire, 'PrivateHttpd';

# RelTest::Httpd->new(name => N): a server root under the test's t/tmp/rel-
# directory with its own port, logs and pid file.
sub new {
    my ($class, %o) = @_;
    my $name = $o{name} || 'httpd';
    my $root = RelTest::tmp_root() . "/$name";
    my $self = $class->SUPER::new(root => $root,
        port => $o{port} || RelTest::free_port(),
        error_log => 'logs/error_log', pid_file => 'logs/httpd.pid',
        run_dir => 'run', dirs => [qw(logs run lock htdocs)]);
    $self->{name} = $name;
    chmod 0755, $root;
    TackHelpers::write_file("$root/htdocs/index.html", "ok\n");
    push @RelTest::INSTANCES, $self;
    return $self;
}

sub modules {
    return PrivateHttpd::load_modules(
        qw(mpm_event authz_core mime socache_shmcb ssl dir log_config));
}

# write_conf($body, %o): what a private Debian apache2 needs, then $body
# with @PORT@ and @ROOT@ replaced.  %o: loglevel, module (path of
# mod_tack.so), global (lines before $body).
sub write_conf {
    my ($self, $body, %o) = @_;
    my $root = $self->{root};
    my $module = $o{module} || RelTest::module_so();
    return $self->SUPER::write_conf($body,
        loglevel => $o{loglevel} || 'info ssl:warn',
        head => "Mutex file:$root/lock default\n"
            . "DocumentRoot $root/htdocs\n"
            . modules()
            . "LoadModule tack_module $module\n"
            . "TackStateFile $root/run/tack-state.json\n"
            . "SSLSessionCache shmcb:$root/run/ssl_scache(512000)\n"
            . ($o{global} || '') . "\n");
}

# run_httpd($timeout, @args), start (serving within 20 s),
# graceful_signal, graceful_k, stop, pid, alive, log_mark, log_since,
# wait_ready: PrivateHttpd's.  configtest: apache2 -t, 30 s at most.
sub configtest { $_[0]->run_httpd(30, '-t') }

sub ctl {
    my ($self, @args) = @_;
    return $self->SUPER::ctl(60, @args);
}

# crashes($log): lines of a log that say a process died of a signal.
sub crashes {
    my ($self, $log) = @_;
    $log //= $self->log_since(0);
    return grep { /exit signal|AH00052|Segmentation|Aborted|core dumped/ }
        split /\n/, $log;
}

1;
