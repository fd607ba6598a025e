# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Passwords on a terminal: a prompt with echo off (script(1) provides the
# pty), asked twice by genkey, refused when the two differ.  And what a
# server sends cannot drive the terminal (issue 16, item 6).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use JSON::PP;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
BAIL_OUT("script(1) not installed (package bsdutils)") unless -x '/usr/bin/script';

my $d = tmp();
my ($crt) = mkcert('www', 'www.example.org');

# script(1) copies its standard input to the pty and the pty to stdout.
# Each line is typed a while after the last, as a person would: the tool
# discards what was typed before its prompt (as getpass does).
sub on_tty {
    my ($input, $cmd) = @_;
    my $typing = join('; ', map { "sleep 1; printf '%s\\n' '$_'" }
                      split(/\n/, $input, -1));
    $typing =~ s/; sleep 1; printf '%s\\n' ''$//;
    return run3('sh', '-c',
                   "($typing; sleep 1) | script -qec '$cmd' /dev/null");
}

my ($rc, $out) = on_tty("hunter2\nhunter2\n", "$TACK genkey -o $d/k.pem");
is($rc, 0, 'genkey prompts on a terminal') or diag($out);
like($out, qr/Password for the new key: /, '... asks for the password');
like($out, qr/Again, to confirm: /, '... twice');
unlike($out, qr/hunter2/, '... without echoing it');
($rc) = tack('break', '-k', "$d/k.pem", '-p', 'hunter2');
is($rc, 0, 'the typed password protects the key');

($rc, $out) = on_tty("hunter2\n", "$TACK sign -k $d/k.pem -c $crt");
is($rc, 0, 'sign prompts for the key\'s password') or diag($out);
like($out, qr/Password for .*k\.pem: /, '... naming the key file');
like($out, qr/BEGIN TACK-----/, '... and signs');
unlike($out, qr/hunter2/, '... without echo');

($rc, $out) = on_tty("wrong\n", "$TACK sign -k $d/k.pem -c $crt");
is($rc, 2, 'a wrong typed password exits 2');
like($out, qr/wrong password/, '... and says so');

($rc, $out) = on_tty("one\ntwo\n", "$TACK genkey -o $d/k2.pem");
is($rc, 2, 'genkey refuses two different passwords');
like($out, qr/the two passwords differ/, '... and says so');
ok(!-e "$d/k2.pem", '... writing nothing');

($rc, $out) = on_tty("\n\n", "$TACK genkey -o $d/k3.pem");
is($rc, 2, 'genkey refuses an empty typed password');

# The README's old quick start: -o into a directory not made yet.  The
# tool says so before asking, not after the password was typed twice.
($rc, $out) = on_tty("hunter2\nhunter2\n", "$TACK genkey -o $d/missing/key.pem");
is($rc, 2, 'genkey -o into a missing directory exits 2');
like($out, qr{\Q$d/missing/key.pem: cannot write there: $d/missing: No such file or directory\E},
     '... naming the directory');
unlike($out, qr/Password/, '... before asking for a password');

# Killed at the prompt, the tool must give the terminal its echo back:
# the shell after it would otherwise stay silent.
for my $sig (qw(TERM INT HUP)) {
    open(my $fh, '>', "$d/kill.sh") or die;
    print $fh "(sleep 1; kill -$sig \$(cat $d/pid)) &\n",
              "sh -c 'echo \$\$ > $d/pid; exec $TACK genkey -o $d/k4.pem'\n",
              "stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e -echo\n";
    close($fh);
    ($rc, $out) = run3('sh', '-c', "sleep 3 | script -qec 'sh $d/kill.sh' /dev/null");
    like($out, qr/(?:^|: )echo\r?$/m, "killed by SIG$sig at the prompt: echo is back on")
        or diag($out);
    ok(!-e "$d/k4.pem", '... and no key was written');
}

# ---- a certificate subject that would drive the terminal (issue 16,
# item 6): ESC, the C1 control CSI (U+009B, bytes C2 9B), a bidi override
# (U+202E) and isolate (U+2066) come out escaped, in the human form and in
# the JSON form (which stays valid JSON); an e acute stays as it is.
{
    my $cn = "a\xc2\x9b[31mb\xe2\x80\xaec\xe2\x81\xa6d\x1be\xc3\xa9";
    my ($hrc, $o, $e) = run3('openssl', 'req', '-x509', '-newkey', 'ec',
        '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
        '-keyout', "$d/evil.key", '-out', "$d/evil.crt", '-utf8',
        '-subj', "/CN=$cn", '-days', '30');
    die "openssl req: $e" if $hrc;
    my $port = free_port(18400, 18429);
    my $pid = start_s_server($port, '-cert', "$d/evil.crt", '-key',
                             "$d/evil.key", '-tls1_2');
    ($hrc, $o, $e) = tack('check', "127.0.0.1:$port");
    is($hrc, 0, 'check of a server with a hostile subject exits 0')
        or diag($o, $e);
    my ($line) = $o =~ /^(certificate    = .*)$/m;
    is($line, 'certificate    = CN = a\U009B[31mb\U202Ec\U2066d\1Be'
              . "\xc3\xa9",
       '... the subject is shown with CSI, the bidi override and isolate '
       . 'and ESC escaped');
    unlike($o . $e, qr/\x1b|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]/,
           '... and none of them reaches the output raw');
    ($hrc, $o, $e) = tack('check', "127.0.0.1:$port", '--json');
    my $j = eval { JSON::PP->new->utf8->decode($o) };
    ok($j, '--json: valid JSON') or diag($@, $o);
    is($j && $j->{certificate}{subject},
       "CN = a\\U009B[31mb\\U202Ec\\U2066d\\1Be\x{e9}",
       '--json: the subject escaped the same way');
    stop_server($pid);
}

done_testing();
