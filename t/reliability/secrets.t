# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Secrets (issue 6, item 6), checked from the outside.
#
# The module: with t/reliability/keyspy.c preloaded into apache2, no private
# key is PEM-decoded and no SSLCertificateKeyFile is opened while mod_tack is
# on the stack -- under "apache2 -t" (where the module reads certificate
# files itself) and at a real start; mod_ssl's own reads of the keys are
# seen too, which proves the spy works.  A TACK key on disk is never opened
# without TackSigningKey; with it (issue 14) the module opens that key and
# no other, once per pass, and after the start neither the parent nor any
# child process holds its password or scalar (gcore of each, searched; the
# control is a core of httpd stopped inside tack_sign).
#
# The tool: key files are mode 0600 whatever the umask and whatever file
# they replace; a password typed at the prompt is not echoed (checked on a
# pseudo-terminal, with an echoing control); a wrong password is refused
# without being repeated; and after genkey, sign and break neither the
# password nor the private scalar is left anywhere in the process's memory
# (a core dump taken at exit_group by gdb is searched for both, in both byte
# orders; a control dump taken in the middle of tack_sign must contain the
# scalar).  The scalar is found by decrypting the key file here, in Perl --
# an implementation of the key-file format independent of the project's.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use Digest::SHA qw(hmac_sha256);
use MIME::Base64 qw(decode_base64);
use RelTest;

need(qw(httpd module tool openssl gdb script keyspy));

my $d = tmp_root() . '/fx';
mkdir $d;
chmod 0755, $d;
my $spy = RelTest::keyspy_so();

# ---- the module ----------------------------------------------------------------
make_cert($d, 'ec', 'ec', 'a.test', '*.test');
make_cert($d, 'ec2', 'ec', 'c.test', '*.test');
write_file("$d/key-first.pem", read_file("$d/ec.key") . read_file("$d/ec.crt"));
write_file("$d/cert-first.pem", read_file("$d/ec2.crt") . read_file("$d/ec2.key"));
tack_genkey("$d/k1.key");
tack_sign("$d/k1.key", "$d/ec.crt", "$d/a.pem", '-e', '100d');
tack_sign("$d/k1.key", "$d/ec2.crt", "$d/c.pem", '-e', '100d');
my %T = map { $_ => (pem_blocks("$d/$_.pem", 'TACK'))[0] } qw(a c);

sub vh {
    my ($name, $certs, $tack) = @_;
    return "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName $name\n"
        . "    SSLEngine on\n    $certs\n    TackFile $d/$tack\n</VirtualHost>\n";
}
my $separate = vh('a.test', "SSLCertificateFile $d/ec.crt\n    SSLCertificateKeyFile $d/ec.key", 'a.pem');
my $cert_first = vh('c.test', "SSLCertificateFile $d/cert-first.pem", 'c.pem');
my $key_first = vh('b.test', "SSLCertificateFile $d/key-first.pem", 'a.pem');
# The TACK key of the TackSigningKey section below is on disk from the start
# and watched too: without the directive the module never opens it.
tack_genkey("$d/sign.key");
my $paths = join ':', "$d/ec.key", "$d/ec2.key", "$d/sign.key";

sub spy_run {
    my ($h, @args) = @_;
    my $log = $h->root . '/spy.log';
    unlink $log;
    my $r = RelTest::run_cmd({ timeout => 60, env => { LD_PRELOAD => $spy,
        KEYSPY_LOG => $log, KEYSPY_PATHS => $paths } },
        $RelTest::HTTPD, '-f', $h->conf_file, @args);
    return ($r, read_file($log) // '');
}
sub ours { join "\n", grep { /mod_tack=1/ } split /\n/, $_[0] }

my $h = RelTest::Httpd->new(name => 'secrets');
$h->write_conf($separate . $cert_first);
my ($r, $ev) = spy_run($h, '-t');
like($r->{out}, qr/Syntax OK/, 'apache2 -t: key files apart, or after the certificate: Syntax OK')
    or diag($r->{out});
is(ours($ev), '', 'apache2 -t: mod_tack decodes no private key and opens no key file');

$h->write_conf($key_first);
($r, $ev) = spy_run($h, '-t');
like($r->{out}, qr/Syntax OK/, 'apache2 -t: the key in front of the certificate: Syntax OK')
    or diag($r->{out});
is(ours($ev), '', 'apache2 -t: mod_tack decodes no private key when the key comes first');

$h->write_conf($separate . $cert_first . $key_first);
my $mark = $h->log_mark;
($r, $ev) = spy_run($h, '-k', 'start');
ok($r->{rc} == 0 && $h->wait_ready($mark), 'a real start with the spy preloaded')
    or diag($r->{out});
# what the daemon did in its (second) configuration pass, after -k start
# returned, is in the log only now
$ev = read_file($h->root . '/spy.log') // '';
is(ours($ev), '', 'real start: mod_tack decodes no private key and opens no key file');
like($ev, qr/^open \Q$d\E\/ec\.key mod_tack=0$/m,
     'real start: the spy sees mod_ssl open the key file (the spy works)');
like($ev, qr/^pem-private-key \S*PRIVATE_KEY mod_tack=0$/m,
     'real start: the spy sees mod_ssl decode the keys');
for (['a.test', 'a'], ['b.test', 'a'], ['c.test', 'c']) {
    my ($name, $t) = @$_;
    my $s = s_client(port => $h->port, name => $name);
    is(hexs($s->{ext}), hexs(ext00($T{$t})), "real start: $name serves its TACK");
}
$h->stop;

# ---- the tool: files and prompts --------------------------------------------------
my $tool = tool();
{
    my $k = "$d/umask.key";
    my $x = run_cmd({}, 'sh', '-c', "umask 000; '$tool' genkey -p pw -o '$k'");
    is($x->{rc}, 0, 'genkey under umask 000');
    is(sprintf('%o', (stat $k)[2] & 07777), '600', 'the key file is mode 0600');
    write_file($k, 'old');
    chmod 0644, $k;
    $x = run_cmd({}, 'sh', '-c', "umask 000; '$tool' genkey -p pw -o '$k' --force");
    is(sprintf('%o', (stat $k)[2] & 07777), '600',
       'replacing a 0644 file with --force gives a 0600 key file');
    unlike(read_file($k), qr/^old$/, 'and the key is in it');
}
{
    my $pw = 'Typed-Secret-4711';
    my $feed = "sleep 1; printf '$pw\\n'; sleep 0.7; printf '$pw\\n'; sleep 1";
    my $x = run_cmd({ timeout => 30 }, 'sh', '-c',
        "($feed) | script -q -c \"'$tool' genkey -o '$d/typed.key'\" /dev/null");
    like($x->{out}, qr/Password for the new key: .*Again, to confirm: /s,
         'genkey on a terminal prompts twice') or diag($x->{out});
    unlike($x->{out}, qr/\Q$pw\E/, 'the typed password is not echoed');
    ok(-s "$d/typed.key", 'and the key file is written');
    my $c = run_cmd({ timeout => 30 }, 'sh', '-c',
        "(sleep 0.5; printf '$pw\\n'; sleep 0.5) | script -q -c 'head -1' /dev/null");
    like($c->{out}, qr/\Q$pw\E/, 'control: a program that leaves echo on does show it');
    my $w = run_cmd({}, $tool, 'sign', '-k', "$d/typed.key", '-p', 'Wrong-Guess-123',
        '-c', "$d/ec.crt", '-o', "$d/w.pem");
    is($w->{rc}, 2, 'a wrong password is refused (exit 2)');
    like($w->{out}, qr/wrong password/, 'saying so');
    unlike($w->{out}, qr/Wrong-Guess-123/, 'without repeating it');
}

# ---- the tool: nothing secret left in memory ------------------------------------
# key_scalar($file, $password): the private scalar, by decrypting the key
# file here (PBKDF2-HMAC-SHA256, HMAC-SHA256 sub-keys, AES-256-CBC).
sub key_scalar {
    my ($file, $pw) = @_;
    my ($b64) = read_file($file) =~ /-----BEGIN TACK PRIVATE KEY-----\n(.*?)-----END/s;
    my ($ver, $iter, $salt, $ct, $pub, $mac) = unpack('C N a16 a32 a64 a32', decode_base64($b64));
    my $u = hmac_sha256($salt . pack('N', 1), $pw);
    my $master = $u;
    for (2 .. $iter) { $u = hmac_sha256($u, $pw); $master ^= $u }
    my ($enc, $mk) = (hmac_sha256("\x01", $master), hmac_sha256("\x02", $master));
    return undef unless hmac_sha256($ct . $pub, $mk) eq $mac;
    write_file("$d/ct.bin", $ct);
    my $x = run_cmd({}, 'openssl', 'enc', '-d', '-aes-256-cbc', '-K', unpack('H*', $enc),
        '-iv', '00' x 16, '-nopad', '-in', "$d/ct.bin");
    return length($x->{out}) == 32 ? $x->{out} : undef;
}

# core_at($stop, @argv): a core dump of the tool taken by gdb at $stop
# ('exit' = the exit_group system call, else a function name).
sub core_at {
    my ($stop, @argv) = @_;
    my $core = "$d/tool.core";
    unlink $core;
    write_file("$d/gdb.cmds", join "\n", 'set pagination off', 'set confirm off',
        $stop eq 'exit' ? 'catch syscall exit_group' : "break $stop",
        'run', "generate-core-file $core", 'kill', 'quit', '');
    run_cmd({ timeout => 120 }, 'gdb', '-q', '-batch', '-x', "$d/gdb.cmds", '--args', @argv);
    my $c = read_file($core);
    unlink $core;
    return $c;
}
sub copies {
    my ($core, $s) = @_;
    return -1 unless defined $core && length $core;
    my $n = () = $core =~ /\Q$s\E/g;
    my $rev = reverse $s;
    my $m = () = $core =~ /\Q$rev\E/g;
    return $n + $m;
}

my $PW = 'Core-Scan-Secret-5309';
write_file("$d/pw.txt", "$PW\n");
my $key = "$d/core.key";
my $core = core_at('exit', $tool, 'genkey', '--password-file', "$d/pw.txt", '-o', $key);
my $scalar = key_scalar($key, $PW);
ok(defined $scalar, 'the key file genkey wrote decrypts here (MAC and format as documented)');
ok(defined $core && length $core > 100000, 'gdb dumped genkey at exit');
is(copies($core, $PW), 0, 'genkey: the password is gone from memory at exit');
is(copies($core, $scalar), 0, 'genkey: the private scalar is gone from memory at exit');

my @sign = ($tool, 'sign', '-k', $key, '--password-file', "$d/pw.txt", '-c', "$d/ec.crt",
    '-e', '30d', '-o', "$d/core.tack.pem", '--force');
$core = core_at('tack_sign', @sign);
cmp_ok(copies($core, $scalar), '>', 0, 'control: in the middle of tack_sign the scalar is in memory');
$core = core_at('exit', @sign);
is(copies($core, $PW), 0, 'sign: the password is gone from memory at exit');
is(copies($core, $scalar), 0, 'sign: the private scalar is gone from memory at exit');
$core = core_at('exit', $tool, 'break', '-k', $key, '--password-file', "$d/pw.txt",
    '-o', "$d/core.break.pem", '--force');
is(copies($core, $PW), 0, 'break: the password is gone from memory at exit');
is(copies($core, $scalar), 0, 'break: the private scalar is gone from memory at exit');

# gcore_of($pid): a core dump of the running process $pid, or undef.
sub gcore_of {
    my ($pid) = @_;
    my $prefix = "$d/httpd.core";
    unlink "$prefix.$pid";
    run_cmd({ timeout => 120 }, 'gcore', '-o', $prefix, $pid);
    my $c = read_file("$prefix.$pid");
    unlink "$prefix.$pid";
    return $c;
}

# ---- the module with TackSigningKey (issue 14) ---------------------------------
# The parent forks a signer process that reads the one key the directive
# names and signs with it during the configuration pass; it exits before any
# httpd child is forked: after a start, neither the parent nor any child
# holds the password or the scalar.  The control: a core of the signer
# taken inside tack_sign holds the scalar.
my $SPW = RelTest::PASSWORD;
my $sscalar = key_scalar("$d/sign.key", $SPW);
ok(defined $sscalar, 'the TACK key decrypts here');
write_file("$d/sign.pw", "$SPW\n");
chmod 0600, "$d/sign.pw";
my $signing = "TackSigningKey $d/sign.key\nTackSigningPassword file:$d/sign.pw\n"
    . "<VirtualHost 127.0.0.1:\@PORT\@>\n    ServerName s.test\n    SSLEngine on\n"
    . "    SSLCertificateFile $d/ec2.crt\n    SSLCertificateKeyFile $d/ec2.key\n"
    . "</VirtualHost>\n";
$h->write_conf($separate . $signing);
($r, $ev) = spy_run($h, '-t');
like($r->{out}, qr/Syntax OK/, 'apache2 -t with TackSigningKey: Syntax OK') or diag($r->{out});
is(ours($ev), "open $d/sign.key mod_tack=1",
   'apache2 -t: mod_tack opens the TACK key, and no other key');
$mark = $h->log_mark;
($r, $ev) = spy_run($h, '-k', 'start');
ok($r->{rc} == 0 && $h->wait_ready($mark), 'a real start with TackSigningKey') or diag($r->{out});
$ev = read_file($h->root . '/spy.log') // '';   # the daemon's second pass too
is(ours($ev), "open $d/sign.key mod_tack=1",
   'real start: mod_tack opens the TACK key once (not in the discarded first pass), and no other key')
    or diag($ev);
my $s = s_client(port => $h->port, name => 's.test');
ok(defined $s->{ext} && length($s->{ext}) > 100, 's.test serves the TACK signed for it');
my $ppid = $h->pid;
# httpd's children (the signing processes, tack-signing and tack-signer,
# are not: they have ended by now, or hold what they must)
sub httpd_kids {
    my ($parent) = @_;
    return grep { /^\d+$/ && (read_file("/proc/$_/comm") // '') !~ /^tack-sign/ }
        split /\s+/, `pgrep -P $parent`;
}
my @kids = httpd_kids($ppid);
ok(@kids >= 1, 'the server has child processes (' . scalar(@kids) . ')');
for my $pid ($ppid, @kids) {
    my $what = $pid == $ppid ? 'the parent' : "child $pid";
    my $c = gcore_of($pid);
    ok(defined $c && length $c > 100000, "gcore dumped $what");
    is(copies($c, $sscalar), 0, "$what: no copy of the TACK key's scalar");
    is(copies($c, $SPW), 0, "$what: no copy of its password");
}
$h->stop;

# env: and exec: (issue 25): the children never hold the password either.
# env: the parent keeps the variable (every restart reads it again); each
# child wipes it in place at its start, so neither a request handler nor
# /proc/PID/environ shows it.  exec: the program's output stays in the
# signer.
sub environ_of { my $e = read_file("/proc/$_[0]/environ") // ''; return $e }
for my $src ('env', 'exec') {
    my $pwsrc = $src eq 'env' ? 'env:TACK_SECRETS_PW' : "exec:$d/askpw";
    write_file("$d/askpw", "#!/bin/sh\necho '$SPW'\n");
    chmod 0700, "$d/askpw";
    (my $conf = $signing) =~ s{^TackSigningPassword .*$}{TackSigningPassword $pwsrc}m;
    $h->write_conf($separate . $conf);
    local $ENV{TACK_SECRETS_PW} = $SPW if $src eq 'env';
    $r = $h->start;
    ok($r->{rc} == 0 && $r->{ready}, "$src: a real start with TackSigningPassword $pwsrc")
        or diag($r->{out});
    $s = s_client(port => $h->port, name => 's.test');
    ok(defined $s->{ext} && length($s->{ext}) > 100, "$src: s.test serves the TACK signed for it");
    $ppid = $h->pid;
    @kids = httpd_kids($ppid);
    ok(@kids >= 1, "$src: the server has child processes");
    if ($src eq 'env') {
        like(environ_of($ppid), qr/(^|\0)TACK_SECRETS_PW=\Q$SPW\E\0/,
             'env: the parent keeps the variable (each restart reads it again)');
    }
    for my $pid (@kids) {
        unlike(environ_of($pid), qr/\Q$SPW\E/, "$src: child $pid: /proc/$pid/environ does not show the password");
        my $c = gcore_of($pid);
        ok(defined $c && length $c > 100000, "$src: gcore dumped child $pid");
        is(copies($c, $SPW), 0, "$src: child $pid: no copy of the password");
        is(copies($c, $sscalar), 0, "$src: child $pid: no copy of the scalar");
    }
    if ($src eq 'exec') {
        my $c = gcore_of($ppid);
        is(copies($c, $SPW), 0, 'exec: the parent holds no copy of the password');
    }
    $h->stop;
}
$h->write_conf($separate . $signing);   # file:, for the control below
# the control, on httpd itself (-X): its signer process, stopped inside
# tack_sign, holds the scalar
my $ctl_core = "$d/httpd-sign.core";
unlink $ctl_core;
write_file("$d/gdb-httpd.cmds", join "\n", 'set pagination off', 'set confirm off',
    'set breakpoint pending on', 'set follow-fork-mode child',
    'set detach-on-fork on', 'break tack_sign', 'run',
    "generate-core-file $ctl_core", 'kill', 'quit', '');
run_cmd({ timeout => 120 }, 'gdb', '-q', '-batch', '-x', "$d/gdb-httpd.cmds", '--args',
    $RelTest::HTTPD, '-X', '-f', $h->conf_file);
my $cc = read_file($ctl_core);
unlink $ctl_core;
# gdb followed the signer; httpd -X itself was detached and still runs
system('pkill', '-f', '--', '-X -f ' . $h->conf_file);
cmp_ok(copies($cc, $sscalar), '>', 0,
       'control: httpd\'s signer process stopped inside tack_sign holds the scalar (the scan sees it)');

done_testing();
