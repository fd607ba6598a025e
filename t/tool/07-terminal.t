# Passwords on a terminal: a prompt with echo off (script(1) provides the
# pty), asked twice by genkey, refused when the two differ.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use TackTool;

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
    return run_cmd('sh', '-c',
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

# Killed at the prompt, the tool must give the terminal its echo back:
# the shell after it would otherwise stay silent.
for my $sig (qw(TERM INT HUP)) {
    open(my $fh, '>', "$d/kill.sh") or die;
    print $fh "(sleep 1; kill -$sig \$(cat $d/pid)) &\n",
              "sh -c 'echo \$\$ > $d/pid; exec $TACK genkey -o $d/k4.pem'\n",
              "stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e -echo\n";
    close($fh);
    ($rc, $out) = run_cmd('sh', '-c', "sleep 3 | script -qec 'sh $d/kill.sh' /dev/null");
    like($out, qr/(?:^|: )echo\r?$/m, "killed by SIG$sig at the prompt: echo is back on")
        or diag($out);
    ok(!-e "$d/k4.pem", '... and no key was written');
}

done_testing();
