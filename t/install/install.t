#!/usr/bin/perl
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# make install / make uninstall on the real Debian system, and the steps of
# docs/admin-guide.md against the real apache2: a2enmod tack, apache2ctl
# configtest, start, tack check, apache2ctl graceful.  The server runs from
# a private copy of /etc/apache2 (APACHE_CONFDIR, Debian's way of running
# several instances) listening on 127.0.0.1 at a port in 18700-18749, so a
# running system httpd is never touched.  Whatever happens, the test stops
# its server, runs make uninstall and puts back any file that was there
# before, then checks the system is as it found it.  Needs root.
use strict;
use warnings;

use Cwd qw(abs_path);
use Fcntl qw(:flock);
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use HTTP::Tiny;
use IO::Socket::INET;
use JSON::PP qw(decode_json);
use Test::More;
use FindBin;
use lib "$FindBin::Bin/../lib";
use TackHelpers qw(slurp write_file run_sh);

# Nothing here may pass by skipping: a missing prerequisite fails the run.
BAIL_OUT('make install needs root: run make test as root (it restores the '
         . 'system afterwards), or leave this test out with make test '
         . 'NO_INSTALL_TEST=1') if $> != 0;
for my $tool (qw(/usr/sbin/apache2 /usr/sbin/apache2ctl /usr/sbin/a2enmod
                 /usr/bin/apxs /usr/bin/man)) {
    BAIL_OUT("$tool missing: run make deps") unless -x $tool;
}

my $top = abs_path(dirname(__FILE__) . '/../..');
chdir $top or die "$top: $!";
# make install refuses while Debian's package owns the module's files
# (scripts/package-owned.sh, which says why on stderr): this test needs a
# system without it, and must not pass by skipping.
BAIL_OUT('libapache2-mod-tack is installed: the install test runs where '
         . 'the package is not; apt purge it first')
    if system('scripts/package-owned.sh', 'install') != 0;
my $moddir = qx{apxs -q LIBEXECDIR}; chomp $moddir;
my $confdir = qx{apxs -q SYSCONFDIR}; chomp $confdir;
my @installed = ("$moddir/mod_tack.so", "$confdir/mods-available/tack.load",
    "$confdir/mods-available/tack.conf", '/usr/local/bin/tack',
    '/usr/local/share/man/man1/tack.1',
    map({ "/usr/local/lib/tack/$_" } qw(tack-certbot-hook tack-md-hook)),
    map { "/usr/local/share/doc/mod_tack/$_" }
        qw(README admin-guide.md hosting-guide.md directives.md));
my @watched = (@installed, "$confdir/mods-available/tack.conf.dist",
    "$confdir/mods-enabled/tack.load", "$confdir/mods-enabled/tack.conf");

# One install test at a time on this machine.
open my $lock, '>', '/run/lock/mod_tack-install-test.lock' or die "lock: $!";
flock $lock, LOCK_EX or die "flock: $!";

my $tmp = tempdir('mod_tack-install-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $etc = "$tmp/apache2";

# ---- what the system looks like before ----------------------------------------
sub snapshot {
    my %s;
    for my $dir ($confdir, $moddir, '/usr/local/bin', '/usr/local/share/man/man1',
                 '/usr/local/share/doc', '/usr/local/lib') {
        for (split /\n/, qx{find $dir -printf '%p %y %s %m %l\\n' 2>/dev/null}) {
            my ($p) = split / /;
            $s{$p} = $_;
        }
    }
    $s{"sum $_"} = qx{sha256sum $_ 2>/dev/null} for grep { -f } @watched;
    return \%s;
}
my $before = snapshot();
my %backup;
for my $f (@watched) {
    next unless -e $f || -l $f;
    my $b = "$tmp/backup" . ($f =~ s{/}{_}gr);
    if (-l $f) {
        $backup{$f} = ['link', readlink $f];
    }
    else {
        copy($f, $b) or die "backing up $f: $!";
        $backup{$f} = ['file', $b, (stat $f)[2] & 07777];
    }
}
diag('already installed here, kept aside and put back afterwards: '
    . join(' ', sort keys %backup)) if %backup;

my $pidfile = "$tmp/run/apache2.pid";
my $uninstalled = 1; # nothing to undo until make install runs
my $port;

sub ctl {
    my ($args) = @_;
    return run_sh("APACHE_CONFDIR=$etc APACHE_STARTED_BY_SYSTEMD=1 apache2ctl $args");
}

sub cleanup {
    if ($pidfile && -s $pidfile) {
        ctl('stop');
        for (1 .. 50) {
            last unless -e $pidfile;
            select(undef, undef, undef, 0.1);
        }
    }
    run_sh('make -s uninstall FORCE=1') unless $uninstalled;
    $uninstalled = 1;
    for my $f (sort keys %backup) {
        my ($kind, $what, $mode) = @{ $backup{$f} };
        unlink $f;
        if ($kind eq 'link') {
            symlink $what, $f or warn "restoring $f: $!";
        }
        else {
            copy($what, $f) or warn "restoring $f: $!";
            chmod $mode, $f;
        }
    }
    %backup = ();
}
END { cleanup() }
$SIG{INT} = $SIG{TERM} = sub { cleanup(); exit 1 };

# ---- make install ----------------------------------------------------------
$uninstalled = 0;
my ($rc, $out) = run_sh('make -s install');
is($rc, 0, 'make install') or diag($out);
ok(-f $_, "installed $_") for @installed;
is((stat "$moddir/mod_tack.so")[2] & 0777, 0644, 'the module is mode 644');
like(scalar qx{cat $confdir/mods-available/tack.load},
    qr{^# Depends: ssl\nLoadModule tack_module \Q$moddir\E/mod_tack\.so$}m,
    'tack.load loads it and names its dependency for a2enmod');
($rc, $out) = run_sh('/usr/local/bin/tack version');
is($rc, 0, 'the installed tool runs') or diag($out);
like(scalar qx{man -w tack 2>&1}, qr{^/usr/local/(?:share/)?man/man1/tack\.1}m,
    'man tack finds the page');
like(scalar qx{MANWIDTH=200 MANPAGER=cat man tack 2>&1},
    qr{installed in\s+/usr/local/share/doc/mod_tack\b},
    '... which names where the guides are');
for my $h (qw(tack-certbot-hook tack-md-hook)) {
    like(scalar qx{cat /usr/local/lib/tack/$h},
        qr{^TACK=\$\{TACK:-/usr/local/bin/tack\}$}m,
        "the installed $h runs the installed tool");
    ok(-x "/usr/local/lib/tack/$h", "... and is executable");
}

# ---- an instance of the stock Debian configuration ---------------------------
for my $p (18700 .. 18749) {
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $p,
        Proto => 'tcp', Listen => 1, ReuseAddr => 1) or next;
    close $s;
    $port = $p;
    last;
}
ok($port, "a free port: $port") or BAIL_OUT('no free port in 18700-18749');
($rc, $out) = run_sh("cp -a $confdir $etc");
is($rc, 0, "a private copy of $confdir") or diag($out);
make_path("$tmp/run", "$tmp/lock", "$tmp/log", "$tmp/tack", "$tmp/www");
chmod 0755, $tmp; # the server's children (www-data) serve $tmp/www
open my $fh, '>>', "$etc/envvars" or die $!;
print $fh "export APACHE_RUN_DIR=$tmp/run\nexport APACHE_PID_FILE=$pidfile\n"
    . "export APACHE_LOCK_DIR=$tmp/lock\nexport APACHE_LOG_DIR=$tmp/log\n";
close $fh;
write_file("$etc/ports.conf", "Listen 127.0.0.1:$port\n");
# The site of the admin guide: a certificate, a TACK key, a TACK.
($rc, $out) = run_sh("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256"
    . " -nodes -days 30 -subj /CN=www.tack.test -addext subjectAltName=DNS:www.tack.test"
    . " -addext basicConstraints=critical,CA:FALSE"
    . " -keyout $tmp/tack/www.key -out $tmp/tack/www.crt");
is($rc, 0, 'a certificate') or diag($out);
($rc, $out) = run_sh("/usr/local/bin/tack genkey -p install-test -o $tmp/tack/key.pem");
is($rc, 0, 'tack genkey') or diag($out);
($rc, $out) = run_sh("/usr/local/bin/tack sign -k $tmp/tack/key.pem -p install-test"
    . " -c $tmp/tack/www.crt -o $tmp/tack/www.tack.pem");
is($rc, 0, 'tack sign') or diag($out);
sub write_site {
    my ($extra) = @_;
    # The guard's memory of served keys in the instance's own file: the
    # system's /var/lib/apache2/tack/state.json would keep this run's pins,
    # and refuse the next run's new key for www.tack.test (TACK00040).
    write_file("$etc/sites-available/tack-test.conf", <<"SITE");
TackStateFile $tmp/state.json
<VirtualHost 127.0.0.1:$port>
    ServerName www.tack.test
    DocumentRoot $tmp/www
    SSLEngine on
    SSLCertificateFile    $tmp/tack/www.crt
    SSLCertificateKeyFile $tmp/tack/www.key
    TackFile $tmp/tack/www.tack.pem
$extra</VirtualHost>
SITE
}
write_site('');

my $env = "APACHE_CONFDIR=$etc";
($rc, $out) = run_sh("$env a2dissite -q 000-default; $env a2ensite -q tack-test");
is($rc, 0, 'a2ensite') or diag($out);
($rc, $out) = run_sh("$env a2enmod tack");
is($rc, 0, 'a2enmod tack') or diag($out);
like($out, qr/ssl/i, 'which enables mod_ssl as well');
ok(-l "$etc/mods-enabled/tack.load" && -l "$etc/mods-enabled/tack.conf",
    'mods-enabled/tack.load and tack.conf');
($rc, $out) = ctl('configtest');
is($rc, 0, 'apache2ctl configtest') or diag($out);
like($out, qr/Syntax OK/, 'Syntax OK');
($rc, $out) = ctl('start');
is($rc, 0, 'apache2ctl start') or diag($out);
my $up = 0;
for (1 .. 100) {
    last if $up = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port");
    select(undef, undef, undef, 0.1);
}
ok($up, 'listening');

($rc, $out) = run_sh("/usr/local/bin/tack check 127.0.0.1:$port --servername www.tack.test --tls1_2 --require");
is($rc, 0, 'tack check: the TACK is served and valid') or diag($out);
my $fpr = qx{/usr/local/bin/tack view $tmp/tack/www.tack.pem};
my ($fp) = $fpr =~ /([a-z2-7]{5}(?:\.[a-z2-7]{5}){4})/;
like($out, qr/\Q$fp\E/, "it shows the TACK key $fp");

# Pin activation on and the status page, then a graceful restart.
write_site("    TackPinActivation on\n    <Location /tack-status>\n"
    . "        SetHandler tack-status\n        Require local\n    </Location>\n");
($rc, $out) = ctl('graceful');
is($rc, 0, 'apache2ctl graceful') or diag($out);
my ($json, $r);
for (1 .. 50) {
    select(undef, undef, undef, 0.2);
    $r = HTTP::Tiny->new(verify_SSL => 0)->get("https://127.0.0.1:$port/tack-status?json");
    next unless $r->{success};
    $json = decode_json($r->{content});
    last if $json->{vhosts}[0]{pin_activation};
}
ok($json && $json->{vhosts}[0]{pin_activation}, 'the new generation serves the status page')
    or diag("$r->{status} $r->{reason}\n" . qx{tail -5 $tmp/log/error.log});
is($json && $json->{vhosts}[0]{certificates}[0]{tacks}[0]{key}, $fp,
    'which shows the TACK');
($rc, $out) = run_sh("/usr/local/bin/tack check 127.0.0.1:$port --servername www.tack.test --tls1_2 --require");
like($out, qr/activation\W+(?:on|1|enabled)/i, 'tack check sees pin activation on')
    or diag($out);

# ---- admin-guide section 9's renewal job, run as cron runs it -------------
# The script as the guide prints it, on this test's paths; apache2ctl is
# still found through PATH, only pointed at this instance.
my ($job) = slurp('docs/admin-guide.md')
    =~ m{^`/usr/local/sbin/tack-renew`:\n\n```sh\n(.*?)^```$}ms;
ok($job, 'admin-guide.md section 9 has the renewal script');
for ($job) {
    s{/root/tack/www\.key}{$tmp/tack/key.pem}g;
    s{/root/tack/password}{$tmp/tack/pw}g;
    s{/etc/ssl/certs/www\.example\.org\.crt}{$tmp/tack/www.crt}g;
    s{/etc/apache2/tack}{$tmp/tack}g;
    s{www\.example\.org\.tack\.pem}{www.tack.pem}g;
    s{\bapache2ctl\b}{APACHE_CONFDIR=$etc APACHE_STARTED_BY_SYSTEMD=1 apache2ctl}g;
}
write_file("$tmp/tack-renew", $job);
chmod 0700, "$tmp/tack-renew";
write_file("$tmp/tack/pw", "install-test\n");
my $old_tack = slurp("$tmp/tack/www.tack.pem");
($rc, $out) = run_sh("env -i PATH=/usr/bin:/bin $tmp/tack-renew");
is($rc, 0, 'the renewal job runs with an empty environment and cron\'s PATH')
    or diag($out);
is($out, '', '... and says nothing (cron would mail root every week)');
isnt(slurp("$tmp/tack/www.tack.pem"), $old_tack, '... and re-signs the TACK');
my ($exp) = qx{/usr/local/bin/tack view $tmp/tack/www.tack.pem} =~ /expiration\s+= (\S+)/;
my $served;
for (1 .. 50) {
    ($rc, $served) = run_sh("/usr/local/bin/tack check 127.0.0.1:$port --servername www.tack.test --require");
    last if $served =~ /expiration\s+= \Q$exp\E/;
    select(undef, undef, undef, 0.1);
}
like($served, qr/expiration\s+= \Q$exp\E/, "... which the graceful restart serves ($exp)");

# ---- the certbot hook, as cron (or a crontab) runs certbot ----------------
make_path("$tmp/le/live/www.tack.test", "$tmp/store");
copy("$tmp/tack/www.crt", "$tmp/le/live/www.tack.test/cert.pem") or die $!;
write_file("$tmp/hook.conf", "TACK_KEY=$tmp/tack/key.pem\nTACK_PASSWORD_FILE=$tmp/tack/pw\n"
    . "TACK_STORE=$tmp/store\n"
    . "export APACHE_CONFDIR=$etc APACHE_STARTED_BY_SYSTEMD=1\n");
chmod 0600, "$tmp/hook.conf";
($rc, $out) = run_sh("env -i PATH=/usr/bin:/bin TACK_HOOK_CONF=$tmp/hook.conf"
    . " RENEWED_LINEAGE=$tmp/le/live/www.tack.test /usr/local/lib/tack/tack-certbot-hook");
is($rc, 0, 'tack-certbot-hook signs and reloads with cron\'s PATH') or diag($out);
my ($sf) = qx{/usr/local/bin/tack view $tmp/le/live/www.tack.test/cert.pem}
    =~ /^store_file\s+= (\S+)$/m;
like($sf // '', qr/^www\.tack\.test\.ecdsa\.[0-9a-f]{8}\.tack\.pem$/,
     '... into the file the certificate gives (HOST.KEYTYPE.SPKI8)');
ok($sf && -f "$tmp/store/$sf", '... the TACK in the store');

($rc, $out) = ctl('stop');
is($rc, 0, 'apache2ctl stop') or diag($out);
for (1 .. 50) {
    last unless -e $pidfile;
    select(undef, undef, undef, 0.1);
}

# ---- make uninstall ------------------------------------------------------
# With Tack directives in a site, uninstall refuses, names each line and
# removes nothing: without the module httpd would not start again.
my $site = "$etc/sites-enabled/tack-test.conf";
my @lines = split /\n/, slurp($site);
my @tack_lines = grep { $lines[$_ - 1] =~ /^\s*Tack/ } 1 .. @lines;
is(scalar(@tack_lines), 3, 'the site has 3 Tack directives (TackStateFile too)');
# httpd accepts a handler no module knows: a leftover, not a refusal.
my ($handler_line) = grep { $lines[$_ - 1] =~ /^\s*SetHandler tack-status/ } 1 .. @lines;
ok($handler_line, '... and a SetHandler tack-status line');
for my $disabled (0, 1) {
    if ($disabled) {
        # Already a2dismod'ed: httpd cannot read the configuration any
        # more, and the enabled files are searched instead.
        ($rc, $out) = run_sh("$env a2dismod -q tack");
        is($rc, 0, 'a2dismod tack (the module off, its directives left)') or diag($out);
    }
    ($rc, $out) = run_sh("APACHE_CONFDIR=$etc make -s uninstall");
    isnt($rc, 0, 'make uninstall with Tack directives left refuses'
        . ($disabled ? ' (module disabled)' : ''));
    like($out, qr/still uses mod_tack.*Remove these lines first/s, '... says why');
    like($out, qr/^\Q$site\E:$_:/m, "... names $site:$_") for @tack_lines;
    my ($refused) = $out =~ /Remove these lines first:\n(.*?)\nthen/s;
    unlike($refused // '', qr/SetHandler/,
        '... not the SetHandler tack-status line among the lines to remove');
    like($out, qr/Left for you to remove, no reason to refuse.*\n\Q$site\E:$handler_line:\s*SetHandler tack-status/s,
        "... which it names as a leftover ($site:$handler_line)");
    like($out, qr/nothing was removed.*FORCE=1/s, '... and how to force it');
    ok(-e $_, "... $_ still installed") for @installed;
}
($rc, $out) = run_sh("$env a2enmod -q tack");
is($rc, 0, 'a2enmod tack again') or diag($out);
($rc, $out) = run_sh("APACHE_CONFDIR=$etc make -s uninstall FORCE=1");
$uninstalled = 1;
is($rc, 0, 'make uninstall FORCE=1 removes it all the same') or diag($out);
like($out, qr/FORCE=1: removing mod_tack all the same/, '... saying so');
ok(!-e $_, "... removed $_") for @installed;
($rc, $out) = ctl('configtest');
like($out, qr/Invalid command 'Tack/, '... and configtest then fails, as uninstall warned');

# Once the directives are gone, uninstall goes through and the server
# still starts.
($rc, $out) = run_sh('make -s install');
$uninstalled = 0;
is($rc, 0, 'make install again') or diag($out);
($rc, $out) = run_sh("$env a2enmod -q tack");
write_site('');
write_file($site, join("\n", grep { !/^\s*Tack/ } split /\n/, slurp($site)) . "\n");
($rc, $out) = run_sh("APACHE_CONFDIR=$etc make -s uninstall");
$uninstalled = 1;
is($rc, 0, 'make uninstall with no Tack directive left') or diag($out);
ok(!-e $_, "removed $_") for @installed;
ok(!-e "$etc/mods-enabled/tack.load", '... a2dismod tack in the instance');
($rc, $out) = ctl('configtest');
is($rc, 0, '... and the instance still passes configtest') or diag($out);

cleanup();
my $after = snapshot();
my @diff = grep { ($before->{$_} // '') ne ($after->{$_} // '') }
    sort(keys %$before, grep { !exists $before->{$_} } keys %$after);
ok(!@diff, 'the system is as it was before the test') or diag(join "\n", @diff);

done_testing();
