# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package RelTest;

# Shared by t/reliability/*.t: prerequisites that fail (never skip) when
# missing, commands run under a time limit, fixtures made at test time
# (certificates with openssl req, TACK keys, TACKs and break signatures with
# the project's ./tack), the client views of a server (openssl s_client's
# SERVERINFO dump, ./tack check, t/reliability/rawhello) and private httpd
# instances in t/tmp/rel-XXXX on 127.0.0.1 ports 18600-18699.
#
# No Apache::Test here: its generated t/conf and t/logs belong to the
# module's suite, which may run at the same time.

use strict;
use warnings;

use Cwd qw(abs_path);
use Digest::SHA qw(sha256);
use Errno qw(EINTR);
use Fcntl qw(:flock);
use File::Basename qw(dirname);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use IO::Socket::INET;
use MIME::Base64 qw(encode_base64 decode_base64);
use POSIX qw(:sys_wait_h setsid);
use Time::HiRes qw(time sleep);
use Test::More;

use Exporter 'import';
our @EXPORT = qw(top_dir tool module_so loadgen_bin rawhello_bin
    need run_cmd tmp_root free_port write_file read_file
    make_cert tack_genkey tack_sign tack_break pem pem_blocks
    openssl_key key_public sign_raw tack_raw breaksig_raw spki_hash
    ext00 ext02 s_client tack_check hexs PASSWORD);

use constant PASSWORD => 'rel-pw';

my $TOP = abs_path(dirname(__FILE__) . '/../../..');

sub top_dir     { $TOP }
sub tool        { "$TOP/tack" }
sub module_so   { "$TOP/build/mod_tack.so" }
sub loadgen_bin { "$TOP/build/loadgen" }
sub rawhello_bin { "$TOP/build/rel/rawhello" }
sub keyspy_so { "$TOP/build/rel/keyspy.so" }

our $HTTPD = $ENV{APACHE2} || '/usr/sbin/apache2';
our $APACHE2CTL = '/usr/sbin/apache2ctl';
our $MODDIR = $ENV{MODDIR} || '/usr/lib/apache2/modules';

sub hexs { unpack('H*', $_[0] // '') }

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

# run_cmd({timeout => S, stdin => TEXT, env => {...}}, @argv): runs the
# command in its own process group, kills the group after S seconds.
# Returns { rc => exit status (-1 on timeout), signal => N, out => stdout
# and stderr, timed_out => 0|1, seconds => elapsed }.
sub run_cmd {
    my ($o, @argv) = @_;
    my $timeout = $o->{timeout} // 60;
    my $dir = tmp_root();
    my $outf = "$dir/.cmd.$$." . int(rand(1e9));
    my $t0 = time;
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        setsid();
        %ENV = (%ENV, %{ $o->{env} || {} });
        open STDOUT, '>', $outf or die;
        open STDERR, '>&', \*STDOUT or die;
        if (defined $o->{stdin}) {
            my $inf = "$outf.in";
            write_file($inf, $o->{stdin});
            open STDIN, '<', $inf or die;
        }
        else {
            open STDIN, '<', '/dev/null' or die;
        }
        exec @argv or do { print "exec $argv[0]: $!\n"; POSIX::_exit(127) };
    }
    my ($timed_out, $status) = (0, undef);
    while (1) {
        my $r = waitpid($pid, WNOHANG);
        if ($r == $pid) { $status = $?; last }
        if (time - $t0 > $timeout) {
            $timed_out = 1;
            kill 'KILL', -$pid;
            waitpid($pid, 0);
            $status = $?;
            last;
        }
        sleep 0.01;
    }
    my $out = -e $outf ? read_file($outf) : '';
    unlink $outf, "$outf.in";
    return {
        rc => $timed_out ? -1 : ($status >> 8),
        signal => $status & 127,
        out => $out,
        timed_out => $timed_out,
        seconds => time - $t0,
    };
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
my @CLAIMS;
sub free_port {
    my $lockdir = "/tmp/mod_tack-rel-ports";
    make_path($lockdir);
    my $start = 18600 + int(rand(100));
    for my $i (0 .. 99) {
        my $port = 18600 + ($start - 18600 + $i) % 100;
        open my $lk, '>', "$lockdir/$port" or next;
        next unless flock($lk, LOCK_EX | LOCK_NB);
        my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1',
            LocalPort => $port, Proto => 'tcp', Listen => 1, ReuseAddr => 1);
        unless ($s) { close $lk; next }
        close $s;
        push @CLAIMS, $lk;
        return $port;
    }
    die "free_port: no free port in 18600-18699\n";
}

sub write_file {
    my ($path, $data) = @_;
    open my $fh, '>', $path or die "$path: $!";
    binmode $fh;
    print $fh $data;
    close $fh or die "$path: $!";
    return $path;
}

sub read_file {
    my ($path) = @_;
    open my $fh, '<', $path or return undef;
    binmode $fh;
    local $/;
    my $d = <$fh>;
    return $d // '';
}

# ---- fixtures -----------------------------------------------------------

sub _must {
    my ($what, @argv) = @_;
    my $r = run_cmd({ timeout => 60 }, @argv);
    die "fixture: $what failed (@argv):\n$r->{out}" if $r->{rc} != 0;
    return $r->{out};
}

# make_cert($dir, $name, 'ec'|'rsa', $cn, @more_names): $dir/$name.crt and
# .key, a self-signed end-entity certificate for $cn (and @more_names).
sub make_cert {
    my ($dir, $name, $type, $cn, @more) = @_;
    my $san = join ',', map { "DNS:$_" } $cn, @more;
    my @newkey = $type eq 'rsa'
        ? ('-newkey', 'rsa:2048')
        : ('-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256');
    _must("certificate $name", 'openssl', 'req', '-x509', @newkey, '-nodes',
        '-sha256', '-days', '365', '-subj', "/CN=$cn",
        '-addext', "subjectAltName=$san",
        '-addext', 'basicConstraints=critical,CA:FALSE',
        '-keyout', "$dir/$name.key", '-out', "$dir/$name.crt");
    return ("$dir/$name.crt", "$dir/$name.key");
}

sub tack_genkey {
    my ($path) = @_;
    _must('tack genkey', tool(), 'genkey', '-p', PASSWORD, '-o', $path);
    return $path;
}

# tack_sign($key, $cert, $out, @options): ./tack sign with the password.
sub tack_sign {
    my ($key, $cert, $out, @opt) = @_;
    _must('tack sign', tool(), 'sign', '-k', $key, '-p', PASSWORD, '-c', $cert,
        '-o', $out, '--force', @opt);
    return $out;
}

sub tack_break {
    my ($key, $out) = @_;
    _must('tack break', tool(), 'break', '-k', $key, '-p', PASSWORD, '-o', $out,
        '--force');
    return $out;
}

# pem($label, @blobs): PEM blocks, base64 at 64 columns.
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

# pem_blocks($path_or_text, $label): the decoded blocks.
sub pem_blocks {
    my ($src, $label) = @_;
    my $text = $src =~ /-----BEGIN/ ? $src : read_file($src);
    my @b;
    while ($text =~ /-----BEGIN \Q$label\E-----\r?\n(.*?)-----END \Q$label\E-----/sg) {
        push @b, decode_base64($1);
    }
    return @b;
}

# A plain P-256 key for the few fixtures ./tack rightly refuses to make
# (a TACK whose generation is below its min_generation): signed here with
# "openssl dgst", an implementation independent of the project's.
sub openssl_key {
    my ($path) = @_;
    _must('openssl genpkey', 'openssl', 'genpkey', '-algorithm', 'EC',
        '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', $path);
    return $path;
}

sub key_public {
    my ($key) = @_;
    my $der = _must('openssl pkey', 'sh', '-c',
        "openssl pkey -in '$key' -pubout -outform DER");
    return substr($der, -64);
}

# sign_raw($key, $msg): ECDSA P-256/SHA-256 as r || s, 32 bytes each.
sub sign_raw {
    my ($key, $msg) = @_;
    my $f = tmp_root() . "/.msg.$$";
    write_file($f, $msg);
    my $der = _must('openssl dgst', 'openssl', 'dgst', '-sha256', '-sign', $key,
        $f);
    unlink $f;
    # SEQUENCE { INTEGER r, INTEGER s }: short lengths for P-256
    my ($tag, $len, $rest) = unpack('C C a*', $der);
    die "not a DER ECDSA signature" unless $tag == 0x30;
    my @ints;
    while (length $rest) {
        my ($t, $l) = unpack('C C', $rest);
        die "not an INTEGER" unless $t == 0x02;
        my $v = substr($rest, 2, $l);
        $rest = substr($rest, 2 + $l);
        $v =~ s/^\x00+//;
        push @ints, ("\x00" x (32 - length $v)) . $v;
    }
    return $ints[0] . $ints[1];
}

sub spki_hash {
    my ($cert) = @_;
    my $der = _must('spki', 'sh', '-c',
        "openssl x509 -in '$cert' -pubkey -noout | openssl pkey -pubin -outform DER");
    return sha256($der);
}

# tack_raw(key => K, cert => C, min_generation => m, generation => g,
# expiration => minutes): a TACK signed with an openssl key.
sub tack_raw {
    my %a = @_;
    my $body = key_public($a{key})
        . pack('CCN', $a{min_generation} // 0, $a{generation} // 0,
               $a{expiration} // int(time() / 60) + 60 * 24 * 200)
        . spki_hash($a{cert});
    return $body . sign_raw($a{key}, "tack_sig$body");
}

sub breaksig_raw {
    my ($key) = @_;
    return key_public($key) . sign_raw($key, 'tack_break_sig');
}

# The draft-00 (section 4) and draft-02 (section 3) bodies, built here to
# compare with what comes over the wire.
sub ext00 {
    my ($tack, $sigs, $act) = @_;
    my $s = join '', @{ $sigs || [] };
    return (defined $tack ? chr(166) . $tack : chr(0)) . pack('n', length $s)
        . $s . chr($act ? 1 : 0);
}

sub ext02 {
    my ($tacks, $flags) = @_;
    my $t = join '', @$tacks;
    return pack('n', length $t) . $t . chr($flags // 0);
}

# ---- clients -------------------------------------------------------------

# s_client(port => P, name => SNI, version => '-tls1_2', request => 1):
# openssl's client with -tlsextdebug.  Returns { ext => body or undef,
# ok => handshake completed, out => text }.
sub s_client {
    my %o = @_;
    my @argv = ('openssl', 's_client', '-connect', "127.0.0.1:$o{port}",
        ($o{name} ? ('-servername', $o{name}) : ()),
        $o{version} || '-tls1_2',
        (($o{request} // 1) ? ('-serverinfo', '62208') : ()),
        '-tlsextdebug', @{ $o{extra} || [] });
    my $r = run_cmd({ timeout => $o{timeout} || 20, stdin => '' }, @argv);
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

# tack_check($port, $name, @options): ./tack check --json.
sub tack_check {
    my ($port, $name, @opt) = @_;
    return run_cmd({ timeout => 30 }, tool(), 'check', "127.0.0.1:$port",
        '--servername', $name, @opt);
}

# ---- private httpd instances -------------------------------------------

# A test that dies, is interrupted or loses its output pipe still stops
# the servers it started: a signal becomes an exit, and this END block runs
# before File::Temp's removes the directories (and the pid files).
$SIG{$_} = sub { exit 1 } for qw(INT TERM HUP PIPE);
our @INSTANCES;
END {
    my $status = $?;
    $_->stop for grep { defined } @INSTANCES;
    $? = $status;
}

package RelTest::Httpd;

use File::Path qw(make_path);
use IO::Socket::INET;
use Time::HiRes qw(time sleep);

# RelTest::Httpd->new(name => N): a server root under the test's t/tmp/rel-
# directory with its own port, logs and pid file.
sub new {
    my ($class, %o) = @_;
    my $name = $o{name} || 'httpd';
    my $root = RelTest::tmp_root() . "/$name";
    make_path("$root/logs", "$root/run", "$root/lock", "$root/htdocs");
    chmod 0755, $root;
    RelTest::write_file("$root/htdocs/index.html", "ok\n");
    my $self = bless { name => $name, root => $root,
        port => $o{port} || RelTest::free_port() }, $class;
    push @RelTest::INSTANCES, $self;
    return $self;
}

sub root      { $_[0]{root} }
sub port      { $_[0]{port} }
sub error_log { "$_[0]{root}/logs/error_log" }
sub conf_file { "$_[0]{root}/httpd.conf" }

sub modules {
    my @m;
    for my $m (qw(mpm_event authz_core mime socache_shmcb ssl dir
                  log_config)) {
        my $f = "$RelTest::MODDIR/mod_$m.so";
        push @m, "LoadModule ${m}_module $f" if -f $f;
    }
    return join "\n", @m;
}

# write_conf($body, %o): what a private Debian apache2 needs, then $body
# with @PORT@ and @ROOT@ replaced.  %o: loglevel, mpm (extra lines),
# module (path of mod_tack.so), listen (extra Listen lines).
sub write_conf {
    my ($self, $body, %o) = @_;
    my $root = $self->{root};
    my $module = $o{module} || RelTest::module_so();
    $body =~ s/\@PORT\@/$self->{port}/g;
    $body =~ s/\@ROOT\@/$root/g;
    my $loglevel = $o{loglevel} || 'info ssl:warn';
    my $mods = modules();
    my $extra = $o{global} || '';
    my $conf = <<"CONF";
ServerRoot $root
DefaultRuntimeDir $root/run
PidFile $root/logs/httpd.pid
Mutex file:$root/lock default
Listen 127.0.0.1:$self->{port}
ErrorLog $root/logs/error_log
LogLevel $loglevel
User nobody
Group nogroup
ServerName localhost
TypesConfig /etc/mime.types
DocumentRoot $root/htdocs
$mods
LoadModule tack_module $module
TackStateFile $root/run/tack-state.json
SSLSessionCache shmcb:$root/run/ssl_scache(512000)
$extra
$body
CONF
    RelTest::write_file($self->conf_file, $conf);
    return $self;
}

sub run_httpd {
    my ($self, $timeout, @args) = @_;
    return RelTest::run_cmd({ timeout => $timeout },
        $RelTest::HTTPD, '-f', $self->conf_file, @args);
}

# configtest: the result of "apache2 -t" (a run_cmd hash), 30 s at most.
sub configtest { $_[0]->run_httpd(30, '-t') }

# ctl(@args): Debian's apache2ctl on this instance; "graceful", "restart"
# and "configtest" run "apache2 -t" first.
sub ctl {
    my ($self, @args) = @_;
    my $root = $self->{root};
    RelTest::write_file("$root/apache2.conf", RelTest::read_file($self->conf_file));
    RelTest::write_file("$root/envvars",
        "export APACHE_RUN_USER=nobody\nexport APACHE_RUN_GROUP=nogroup\n"
        . "export APACHE_RUN_DIR=$root/run\nexport APACHE_LOCK_DIR=$root/lock\n"
        . "export APACHE_PID_FILE=$root/logs/httpd.pid\n"
        . "export APACHE_LOG_DIR=$root/logs\n");
    return RelTest::run_cmd({ timeout => 60,
        env => { APACHE_CONFDIR => $root, APACHE_HTTPD => $RelTest::HTTPD } },
        $RelTest::APACHE2CTL, @args);
}

# pid: the parent's pid from the pid file (remembered, so that a server
# whose pid file is gone can still be stopped).
sub pid {
    my ($self) = @_;
    my $p = RelTest::read_file("$self->{root}/logs/httpd.pid");
    return $self->{last_pid} = $1 if defined $p && $p =~ /(\d+)/;
    return;
}

sub alive {
    my ($self) = @_;
    my $pid = $self->pid or return 0;
    return kill(0, $pid) ? 1 : 0;
}

sub log_mark { -s $_[0]->error_log || 0 }

sub log_since {
    my ($self, $mark) = @_;
    open my $fh, '<', $self->error_log or return '';
    seek $fh, $mark || 0, 0;
    local $/;
    return <$fh> // '';
}

# wait_ready($mark, $secs): the log says a generation is up since $mark
# and the port answers.
sub wait_ready {
    my ($self, $mark, $secs) = @_;
    my $end = time + ($secs || 20);
    while (time < $end) {
        if ($self->alive
            && $self->log_since($mark) =~ /resuming normal operations/) {
            my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
                PeerPort => $self->{port}, Proto => 'tcp', Timeout => 1);
            if ($s) { close $s; return 1 }
        }
        sleep 0.05;
    }
    return 0;
}

# start(): "apache2 -k start", waits until it serves.  Returns the run_cmd
# result with ready => 0|1.
sub start {
    my ($self) = @_;
    my $mark = $self->log_mark;
    my $r = $self->run_httpd(60, '-k', 'start');
    $r->{ready} = $r->{rc} == 0 ? $self->wait_ready($mark) : 0;
    return $r;
}

# graceful_signal(): SIGUSR1, no configuration test; waits for the new
# generation.  Returns 1 when it is up.
sub graceful_signal {
    my ($self, $secs) = @_;
    my $pid = $self->pid or return 0;
    my $mark = $self->log_mark;
    kill 'USR1', $pid;
    return $self->wait_ready($mark, $secs);
}

# graceful_k(): "apache2 -k graceful" (parses the configuration in the
# invoking process, then signals).  Returns (run_cmd result, ready).
sub graceful_k {
    my ($self) = @_;
    my $mark = $self->log_mark;
    my $r = $self->run_httpd(60, '-k', 'graceful');
    return ($r, $r->{rc} == 0 ? $self->wait_ready($mark) : 0);
}

# stop($secs): SIGTERM, then SIGKILL after $secs (15) seconds.
sub stop {
    my ($self, $secs) = @_;
    my $pid = $self->pid || $self->{last_pid} or return;
    delete $self->{last_pid};
    return unless kill 0, $pid;
    kill 'TERM', $pid;
    my $end = time + ($secs || 15);
    while (time < $end && kill(0, $pid)) {
        sleep 0.05;
    }
    kill 'KILL', $pid if kill 0, $pid;
    unlink "$self->{root}/logs/httpd.pid";
}

# crashes($log): lines of a log that say a process died of a signal.
sub crashes {
    my ($self, $log) = @_;
    $log //= $self->log_since(0);
    return grep { /exit signal|AH00052|Segmentation|Aborted|core dumped/ }
        split /\n/, $log;
}

sub DESTROY { $_[0]->stop }

1;
