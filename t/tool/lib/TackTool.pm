# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TackTool.pm -- helpers for the t/tool/*.t tests of the `tack` tool.
#
# Tests run ./tack from the top directory, write only under a temporary
# directory, and start servers on ports 18400-18459 and 18470-18489 only
# (18460-18469 are the demo's): 127.0.0.1, and 127.0.0.2-4 for the fleet
# checks (09-fleet-check.t 18470-18479, 10-preload.t 18480-18489,
# 11-fleet-httpd.t 18450-18459).  The small helpers (files, commands,
# certificates, store names, TACK bytes) are t/lib/TackHelpers.pm's,
# exported again with this suite's conventions.
package TackTool;

use strict;
use warnings;
use Exporter 'import';
use File::Temp qw(tempdir);
use File::Spec;
use Cwd qw(abs_path);
use POSIX ();
# t/lib: the helpers and the private httpd the Perl suites share.
use TackHelpers qw(slurp write_file wait_port store_name pem_decode
                   serverinfo_pem fingerprint outside_make_install);
use PrivateHttpd;

our @EXPORT = qw(tack run3 ok0 tmp top vec00 vec02 slurp write_file mkcert
                 free_port start_s_server stop_server wait_port pem_body
                 store_name pem_decode serverinfo_pem fingerprint
                 outside_make_install man_render make_install_copy $TACK);

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

# run3(\%opt, @argv): TackHelpers' run3 with this suite's defaults: the
# output kept under tmp() while it runs, TACK_PASSWORD removed unless
# $opt{env} names it.  Stdin from /dev/null (or $opt{stdin}), in $opt{cwd}
# if given; returns (exit status, 128 + N for signal N; stdout; stderr).
# (run_cmd, everywhere else, answers a hash: TackHelpers' and PrivateHttpd's.)
sub run3 {
    my $opt = ref($_[0]) eq 'HASH' ? shift : {};
    return TackHelpers::run3({ %$opt, dir => $tmp,
        env => { TACK_PASSWORD => undef, %{ $opt->{env} || {} } } }, @_);
}

# make_install_copy(NAME, \%copy, SO): make install of this tree, with the
# module |SO| and the tool $TACK as they are (nothing rebuilt), into
# tmp()/NAME with $copy{vars} (the package's are debian/rules' MAKE_VARS),
# checked as one test; sets $copy{dest} and $copy{docs}
# ($copy{docdir} under it).
sub make_install_copy {
    my ($name, $d, $so) = @_;
    $d->{dest} = "$tmp/$name";
    my ($rc, $out, $err) = run3({ env => { MAKEFLAGS => '' } }, 'make',
        '-s', '-C', $top, '-o', $so, '-o', $TACK, 'install',
        "TOOL_OUT=$TACK", "MODULE_SO=$so", "DESTDIR=$d->{dest}", @{ $d->{vars} });
    Test::More::is($rc, 0, "make install DESTDIR=... @{ $d->{vars} }: the $name copy")
        or Test::More::diag($out, $err);
    $d->{docs} = "$d->{dest}$d->{docdir}";
    return $rc == 0;
}

# ok0(run3's answer): the answer, or die with its stderr unless the
# command succeeded (for the steps that make a test's fixtures).
sub ok0 { my @r = @_; die "failed: $r[2]" if $r[0]; return @r }

# tack(@args) runs ./tack; tack(\%opt, @args) passes options to run3.
# man_render(@args): `man @args` rendered 80 columns wide as text: its exit
# status, its text with every run of blanks made one space (groff's
# justification differs between releases: Debian 13's spreads the NAME
# line, "tack  -  make,  inspect"), and its stderr.  Tests check what a
# page says, never its spacing.
sub man_render {
    my ($rc, $out, $err) = run3(
        { env => { MANWIDTH => 80, LC_ALL => 'C.UTF-8', MANPAGER => 'cat',
                   PAGER => 'cat' } },
        'man', @_);
    $out =~ s/[ \t]+/ /g;
    return ($rc, $out, $err);
}

sub tack {
    my $opt = ref($_[0]) eq 'HASH' ? shift : {};
    return run3($opt, $TACK, @_);
}

# mkcert(NAME, CN, DAYS): a fresh P-256 certificate NAME.crt / NAME.key in
# the temporary directory, valid for DAYS (30) days; returns the two paths
# (TackHelpers' make_cert).
sub mkcert {
    my ($name, $cn, $days) = @_;
    return TackHelpers::make_cert({ days => $days // 30 }, $tmp, $name, 'ec',
                                  $cn);
}

# free_port(LO, HI): a port nobody listens on, in our range.
sub free_port {
    my ($lo, $hi) = @_;
    return PrivateHttpd::first_free_port($lo, $hi)
        // die "no free port in $lo-$hi";
}

# wait_port(PORT, SECS, ADDR): TackHelpers'.

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

# store_name(CRT, HOST[, KEYTYPE]): TackHelpers'.

# pem_body(TEXT, LABEL): the decoded bytes of the first LABEL block.
sub pem_body { (pem_decode(@_))[0] }

1;

package TackTool;

push @EXPORT, qw(forge_tack);

# forge_tack(%a): a TACK signed with a throwaway openssl key, with fields the
# tool itself refuses to sign (generation below min_generation).  Keys:
# min_generation, generation, expiration (minutes), target (32 bytes).
sub forge_tack {
    my (%a) = @_;
    my $k = "$tmp/forge.key";
    TackHelpers::make_key($k) unless -e $k;
    return TackHelpers::tack_bytes(key => $k, target_hash => $a{target},
        map { $_ => $a{$_} } qw(min_generation generation expiration));
}

# serverinfo_pem(BODY): TackHelpers'.

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

push @EXPORT, qw(free_port_at start_s_server_at);

# The fleet check's tests (09-fleet-check.t) run one server per loopback
# address, 127.0.0.1 to 127.0.0.4, all on one port: on Linux every
# 127.0.0.0/8 address is the local host, with nothing to configure.

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
        unless wait_port($port, 10, $addr);
    return $pid;
}

1;
