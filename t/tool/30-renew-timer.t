# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The weekly re-sign of TackFile TACKs the package ships, inert (issue 43,
# item 2): hooks/tack-renew (installed as /usr/libexec/tacktool/tack-renew),
# run by tacktool-renew.timer where systemd runs and by
# /etc/cron.d/tacktool-renew where it does not.  It does nothing and says nothing until
# /etc/tack/renew.conf names what to re-sign; then it re-signs as section
# 9's job does (-e 45d, the file's generations kept), is silent when all
# goes well and says what failed, exiting 1, when not.  The units pass
# systemd-analyze verify (in a root tree of this machine's units, without
# the man page check: tacktool(1) is the package's); the cron line is run
# as cron runs it, with and without /run/systemd/system (a /run of its
# own in a mount namespace, whatever this machine runs), and stands down
# where systemd runs.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $top = top();
my $script = "$top/hooks/tack-renew";
my $d = tmp() . '/renew';
mkdir $d;
my $conf = "$d/renew.conf";
my %env = (TACK => "$top/tack", TACK_RENEW_CONF => $conf,
           PATH => '/usr/bin:/bin');

sub renew { return run3({ env => \%env }, $script) }

sub conf {
    my ($text, $mode) = @_;
    write_file($conf, $text);
    chmod $mode // 0600, $conf;
}

# ---- inert -------------------------------------------------------------------
my ($rc, $out, $err) = renew();
is("$rc|$out|$err", '0||', 'no renew.conf: does nothing, says nothing, exits 0');
conf("# TACK_RENEW=\"/etc/ssl/certs/www.crt:/etc/apache2/tack/www.tack.pem\"\nTACK_KEY=/nonexistent\n");
($rc, $out, $err) = renew();
is("$rc|$out|$err", '0||', 'a renew.conf that names nothing to re-sign: the same');
conf("TACK_RENEW=x:y\n", 0666);
($rc, $out, $err) = renew();
is($rc, 1, 'a renew.conf others can write: refused');
like($err, qr/^tack-renew: \Q$conf\E: not owned by root, or writable by others; not read$/m,
     '... saying so');

# ---- re-signing, as section 9's job ---------------------------------------------
ok0(tack('genkey', '-p', 'sekrit', '-o', "$d/k.key"));
write_file("$d/pw", "sekrit\n");
chmod 0600, "$d/pw";
my ($crt) = mkcert('renew/www', 'www.renew.test', 90);
my $file = "$d/www.tack.pem";
ok0(tack('sign', '-k', "$d/k.key", '-p', 'sekrit', '-c', $crt, '-m', 1, '-g', 1,
         '-e', '10d', '-o', $file));
my $before = slurp($file);
conf(<<"C");
TACK_KEY=$d/k.key
TACK_PASSWORD_FILE=$d/pw
TACK_RENEW="$crt:$file"
TACK_RELOAD_COMMAND="echo reloaded >> $d/reloads"
C
($rc, $out, $err) = renew();
is("$rc|$out|$err", '0||', 'renew.conf names a certificate and its TackFile: re-signed silently');
isnt(slurp($file), $before, '... the file holds a new TACK');
($rc) = tack('view', '-c', $crt, '--now', '+44d', $file);
is($rc, 0, '... valid for the certificate 44 days from now');
($rc) = tack('view', '-c', $crt, '--now', '+46d', $file);
isnt($rc, 0, '... and expired in 46 (-e 45d)');
($rc, $out) = tack('view', $file);
like($out, qr/^min_generation\s*=\s*1$/m, '... the file\'s min_generation kept');
like($out, qr/^generation\s*=\s*1$/m, '... and its generation');
is(slurp("$d/reloads"), "reloaded\n", '... then httpd reloaded once');

# ---- a failure is said, and nothing is reloaded ---------------------------------
write_file("$d/pw", "wrong\n");
$before = slurp($file);
($rc, $out, $err) = renew();
is($rc, 1, 'a wrong password: exits 1');
like($err, qr/^tack-renew: \Q$top\E\/tack sign failed for \Q$crt\E \(\Q$file\E is unchanged\)$/m,
     '... naming the certificate and the file');
is(slurp($file), $before, '... which is unchanged');
is(slurp("$d/reloads"), "reloaded\n", '... and httpd is not reloaded');
write_file("$d/pw", "sekrit\n");

# ---- the cron line ------------------------------------------------------------
my ($line) = grep { /^\d/ } split /\n/, slurp("$top/debian/tacktool.tacktool-renew.cron.d");
my ($when, $user, $cmd) = $line =~ /^((?:\S+\s+){4}\S+)\s+(\S+)\s+(.*)$/;
is("$when|$user", '17 4 * * 1|root', 'cron: Mondays at 04:17, as root (section 9)');
like($cmd, qr{^\[ -d /run/systemd/system \] && exit 0; }, '... standing down first where systemd runs');
(my $here = $cmd) =~ s{/usr/libexec/tacktool/tack-renew}{$script}g;
isnt($here, $cmd, '... and running /usr/libexec/tacktool/tack-renew');
# cron_line($systemd): runs the line as cron would, under a /run of its
# own (a tmpfs in a mount namespace), with /run/systemd/system or without.
sub cron_line {
    my ($systemd) = @_;
    return run3({ env => { %env, LINE => $here } }, 'unshare', '-m', 'sh',
        '-c', 'mount -t tmpfs tack-test /run && '
            . ($systemd ? 'mkdir -p /run/systemd/system && ' : '')
            . 'sh -c "$LINE"');
}
$before = slurp($file);
($rc, $out, $err) = cron_line(0);
is("$rc|$out|$err", '0||', 'cron\'s line without systemd: runs the job, silently');
isnt(slurp($file), $before, '... which re-signed the file');
$before = slurp($file);
($rc, $out, $err) = cron_line(1);
is("$rc|$out|$err", '0||', 'cron\'s line where /run/systemd/system exists: silent');
is(slurp($file), $before, '... and the job did not run (the timer runs it)');

# ---- the units ------------------------------------------------------------------
my $root = "$d/root";
my $units = "$root/usr/lib/systemd/system";
system('mkdir', '-p', $units, "$root/usr/libexec/tacktool") == 0 or die;
system('cp', '-a', '/lib/systemd/system/.', "$units/") == 0 or die;
system('cp', $script, "$root/usr/libexec/tacktool/tack-renew") == 0 or die;
for my $u (qw(service timer)) {
    system('cp', "$top/debian/tacktool.tacktool-renew.$u", "$units/tacktool-renew.$u") == 0 or die;
}
($rc, $out, $err) = run3('systemd-analyze', 'verify', '--man=no', "--root=$root",
                            'tacktool-renew.timer', 'tacktool-renew.service');
is("$rc|$out|$err", '0||', 'systemd-analyze verify: the timer and the service are clean');
my $service = slurp("$units/tacktool-renew.service");
like($service, qr{^ConditionPathExists=/etc/tack/renew\.conf$}m,
     '... the service is skipped, silently, without /etc/tack/renew.conf');
like($service, qr{^ExecStart=/usr/libexec/tacktool/tack-renew$}m, '... and runs the job');
like(slurp("$units/tacktool-renew.timer"), qr{^OnCalendar=Mon \*-\*-\* 04:17$}m,
     '... the timer: Mondays at 04:17');
# the same check catches a broken unit
my $t = slurp("$units/tacktool-renew.timer");
write_file("$units/tacktool-renew.timer", $t =~ s/OnCalendar=Mon/OnCalendar=Mox/r);
($rc, $out, $err) = run3('systemd-analyze', 'verify', '--man=no', "--root=$root",
                            'tacktool-renew.timer');
isnt($rc, 0, 'control: verify refuses a timer with a bad OnCalendar');

done_testing();
