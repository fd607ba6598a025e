# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# debian/tacktool.prerm remove, run directly (issue 46, item 4): apt
# remove tacktool is refused while something still runs the tool or one
# of its hooks -- certbot's renewal configuration (renew_hook) or a link in
# its renewal-hooks, mod_md's MDMessageCmd, a cron job, a sudoers rule --
# naming each file; TACK_FORCE_REMOVE=1 removes it all the same; an
# upgrade is never refused.  Before, the next renewal said "Hook
# 'deploy-hook' reported error code 127" and "all renewals succeeded",
# the certificate live with no TACK.  The script runs as root in a mount
# namespace of its own where /etc and /usr/libexec are overlays whose
# changes go to a tmpfs: the machine's are never touched.  (make uninstall
# KEEP_SITES=1 names the same files with the same scan, tool-refs.sh.)
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $prerm = top() . '/debian/tacktool.prerm';
my $refs = top() . '/scripts/tool-refs.sh';
my $ns = tmp() . '/prerm';
mkdir $ns or die "$ns: $!";
mkdir "$ns/mnt" or die "$ns/mnt: $!";

# prerm(ARG, SETUP): /etc as SETUP makes it, the package's tool-refs.sh in
# place, then `prerm ARG`: (exit status, output).
sub prerm {
    my ($arg, $setup) = @_;
    write_file("$ns/run.sh", <<"S");
set -e
mount -t tmpfs tmpfs $ns/mnt
for d in etc usr/libexec; do
    mkdir -p $ns/mnt/up/\$d $ns/mnt/work/\$d
    mount -t overlay overlay -o lowerdir=/\$d,upperdir=$ns/mnt/up/\$d,workdir=$ns/mnt/work/\$d /\$d
done
mkdir -p /usr/libexec/tacktool /etc/letsencrypt/renewal /etc/letsencrypt/renewal-hooks/deploy /etc/cron.d
cp $refs /usr/libexec/tacktool/tool-refs.sh
rm -f /etc/letsencrypt/renewal/*.conf /etc/letsencrypt/renewal-hooks/deploy/* /etc/cron.d/tack-*
$setup
rc=0
sh $prerm $arg >$ns/out 2>&1 || rc=\$?
echo \$rc >$ns/rc
S
    unlink "$ns/out", "$ns/rc";
    my ($rc, $out, $err) = run3('unshare', ($> == 0 ? () : ('-r')), '-m',
                                   'sh', "$ns/run.sh");
    is($rc, 0, '(the namespace ran the case)') or diag($out, $err);
    return ((slurp("$ns/rc") // -1) + 0, slurp("$ns/out") // '');
}

my ($rc, $out) = prerm('remove', '');
is($rc, 0, 'nothing runs the tool or its hooks: remove goes ahead') or diag($out);

my $certbot = "echo 'renew_hook = /usr/libexec/tacktool/tack-certbot-hook' >/etc/letsencrypt/renewal/www.example.org.conf\n"
    . "ln -s /usr/libexec/tacktool/tack-certbot-hook /etc/letsencrypt/renewal-hooks/deploy/\n"
    . "echo '17 4 * * 1 root /usr/bin/tacktool --quiet sign -k /root/k' >/etc/cron.d/tack-renew\n";
($rc, $out) = prerm('remove', $certbot);
is($rc, 1, "certbot's renew_hook, its deploy link and a cron job: remove refused (exit 1)");
like($out, qr/^tacktool: not removed: these still run the tool or one of its hooks/m, '... saying why');
like($out, qr{^    /etc/letsencrypt/renewal/www\.example\.org\.conf$}m, "... naming certbot's renewal configuration");
like($out, qr{^    /etc/letsencrypt/renewal-hooks/deploy/tack-certbot-hook$}m, '... the deploy link');
like($out, qr{^    /etc/cron\.d/tack-renew$}m, '... and the cron job');
like($out, qr/TACK_FORCE_REMOVE=1/, '... and how to remove it all the same');
($rc, $out) = prerm('remove', "export TACK_FORCE_REMOVE=1\n" . $certbot);
is($rc, 0, 'TACK_FORCE_REMOVE=1: removed all the same') or diag($out);
($rc, $out) = prerm('upgrade', $certbot);
is($rc, 0, 'an upgrade is never refused') or diag($out);

# The package's own cron line, which runs its hook tack-renew (inert until
# /etc/tack/renew.conf names something), goes with it: no reason to refuse.
my $own = top() . '/debian/tacktool.tacktool-renew.cron.d';
($rc, $out) = prerm('remove', "cp $own /etc/cron.d/tacktool-renew\n"
                              . "grep -q /usr/libexec/tacktool/tack-renew /etc/cron.d/tacktool-renew\n");
is($rc, 0, "the package's own cron line (tacktool-renew) alone: remove goes ahead") or diag($out);

done_testing();
