# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package RelTest;

# Shared by t/reliability/*.t: prerequisites that fail (never skip) when
# missing, commands run under a time limit, fixtures made at test time
# (certificates with openssl req, TACK keys, TACKs and break signatures with
# the project's ./tack), the client views of a server (openssl s_client's
# SERVERINFO dump, ./tack check, t/reliability/rawhello) and private httpd
# instances (t/lib/PrivateHttpd.pm) in t/tmp/rel-XXXX on 127.0.0.1 ports
# 18600-18699.
#
# No Apache::Test here: its generated t/conf and t/logs belong to the
# module's suite, which may run at the same time.

use strict;
use warnings;

use Cwd qw(abs_path);
use Digest::SHA qw(sha256);
use File::Basename qw(dirname);
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use MIME::Base64 qw(encode_base64 decode_base64);
use Test::More;
# t/lib: the private httpd the Perl suites share.
use PrivateHttpd;

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

our $HTTPD = $PrivateHttpd::HTTPD;
our $APACHE2CTL = $PrivateHttpd::APACHE2CTL;
our $MODDIR = $PrivateHttpd::MODDIR;

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
    RelTest::write_file("$root/htdocs/index.html", "ok\n");
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
