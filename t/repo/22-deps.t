# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# scripts/deps.sh, the first step of make demo and make test, on the two
# ways a new machine's first command fails before anything is installed:
# apt's lock held by another apt, and an archive that cannot be reached
# (apt-get update then says "W: Failed to fetch" and exits 0).  Each is one
# line that says which and what to do, and nothing is installed.  apt-get,
# apt-cache, apt-mark, dpkg-query and id are stand-ins on PATH that act as
# on a bare Debian 12 machine as root (nothing installed, every package
# available), and record what they were asked; the real ones are never
# run.  Then what the packages' scripts switch on, switched off again
# however the install ends (it succeeds, fails, is stopped by a signal or
# killed), in a mount namespace where the system's directories are
# overlays (below).  What the real ones do is proven where they run: make
# demo and make test as the first commands in pristine trees (.ci/run, make
# test-release).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $bin = tmp() . '/deps-bin';
my $calls = tmp() . '/deps-calls';
mkdir $bin or die "$bin: $!";

# stub(NAME, SHELL BODY): a command on PATH that records its arguments.
sub stub {
    my ($name, $body) = @_;
    write_file("$bin/$name", "#!/bin/sh\necho \"$name \$*\" >>$calls\n$body\n");
    chmod 0755, "$bin/$name";
}
stub('id', 'echo 0');
stub('dpkg-query', 'exit 1');                       # nothing installed
stub('apt-mark', 'exit 0');
stub('apt-cache', 'echo "  Candidate: 1.0-1"');    # everything available

# deps(APT-GET BODY): deps.sh demo as make demo runs it.
sub deps {
    my ($apt_get) = @_;
    stub('apt-get', $apt_get);
    unlink $calls;
    return run3({ env => { PATH => "$bin:/usr/bin:/bin",
                              TACK_DEPS_FOR => 'demo' } },
                   'sh', top() . '/scripts/deps.sh', 'demo');
}

my ($rc, $out, $err) = deps(<<'S');
echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
exit 100
S
is($rc, 1, "apt's lock held by another apt: exit 1");
like($err, qr/^deps: apt is busy \(apt-get, process 4242 holds its lock\): wait until it has finished, then run make demo again; nothing was installed$/m,
     '... one line says so, who holds it, and what to do');
unlike(slurp($calls) // '', qr/^apt-get install/m, '... and nothing was installed');

($rc, $out, $err) = deps(<<'S');
case "$*" in
*update*)
    echo "Err:1 http://deb.example.invalid/debian bookworm InRelease"
    echo "  Temporary failure resolving 'deb.example.invalid'"
    echo "W: Failed to fetch http://deb.example.invalid/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.example.invalid'" >&2
    echo "W: Some index files failed to download. They have been ignored, or old ones used instead." >&2
    exit 0 ;;
esac
exit 100
S
is($rc, 1, 'no network (apt-get update exits 0 with "Failed to fetch"): exit 1');
like($err, qr{^deps: cannot reach the Debian archive \(http://deb\.example\.invalid\): check the network and apt's sources \(/etc/apt/sources\.list\), then run make demo again; nothing was installed$}m,
     '... one line says so, naming the archive, and what to do');
unlike(slurp($calls) // '', qr/^apt-get install/m, '... and nothing was installed');

# The archive answers the lists but not the packages: everything is
# downloaded before anything is installed.
($rc, $out, $err) = deps(<<'S');
case "$*" in
*update*) exit 0 ;;
*--download-only*)
    echo "E: Failed to fetch http://deb.example.invalid/debian/pool/main/a/apache2/apache2_2.4.71-1_amd64.deb  Connection timed out" >&2
    exit 100 ;;
esac
echo "installed" ; exit 0
S
is($rc, 1, 'a download that fails half-way: exit 1');
like($err, qr/^deps: cannot reach the Debian archive/m, '... said in one line');
my @installs = grep { /^apt-get install/ } split /\n/, slurp($calls) // '';
is_deeply([grep { !/--download-only/ } @installs], [],
          '... and apt-get install ran only to download, never to install');

# ---- what the packages switched on, put back whatever ends the install ----
# deps.sh demo as root in a mount namespace of its own (unshare -m; -r as
# another user), where /etc and /var/lib are overlays whose changes go to
# a tmpfs: it reads and changes the links of the machine's own
# directories, and the machine's are never touched.  The stand-ins switch
# off what they are asked to as Debian's would (a2dismod, systemctl and
# deb-systemd-helper remove the link, update-rc.d disable makes S?? K01)
# and only record what would stop a service (invoke-rc.d, apache2ctl).
# Before each case only apache2's own is on: its module ssl, its site, its
# service (systemd's link and sysvinit's S01apache2), and dbus's S01dbus.
my $ns = tmp() . '/deps-ns';
mkdir $ns or die "$ns: $!";
stub('dpkg-query', <<'S');
case "$1 $2" in
"-S "*/mods-available/perl.*) echo "libapache2-mod-perl2: $2" ;;
"-S "*/mods-available/ssl.load | "-S "*/000-default.conf | \
"-S "*/init.d/apache2 | "-S "*/apache2.service) echo "apache2: $2" ;;
"-S "*prometheus*) echo "prometheus: $2" ;;
"-S "*certbot*) echo "certbot: $2" ;;
"-S "*/init.d/sudo) echo "sudo: $2" ;;
"-S "*/init.d/dbus) echo "dbus: $2" ;;
"-W "*) [ -e "$NS/installed" ] || exit 1
        echo "install ok installed 1.0-1" ;;
*) exit 1 ;;
esac
S
for my $a2 ('a2dismod', 'a2disconf', 'a2dissite') {
    my $dir = { a2dismod => 'mods', a2disconf => 'conf',
                a2dissite => 'sites' }->{$a2};
    stub($a2, "for n; do :; done\n"
            . "rm -f /etc/apache2/$dir-enabled/\$n.load "
            . "/etc/apache2/$dir-enabled/\$n.conf");
}
stub($_, "for n; do :; done\n"
       . 'find /etc/systemd/system -type l -name "$n" -delete')
    for 'systemctl', 'deb-systemd-helper';
stub('update-rc.d', <<'S');
for r in 2 3 4 5; do
    for l in /etc/rc$r.d/S[0-9][0-9]"$1"; do
        [ -L "$l" ] && mv "$l" "/etc/rc$r.d/K01$1"
    done
done
exit 0
S
stub('invoke-rc.d', 'exit 0');
stub('apache2ctl', 'exit 1');

# What a package's install switches on, for the apt-get stand-in to source.
write_file("$ns/switch-on.sh", <<'S');
ln -s ../mods-available/perl.load /etc/apache2/mods-enabled/perl.load
mkdir -p /etc/systemd/system/timers.target.wants
ln -s /lib/systemd/system/prometheus.service \
    /etc/systemd/system/multi-user.target.wants/prometheus.service
ln -s /lib/systemd/system/certbot.timer \
    /etc/systemd/system/timers.target.wants/certbot.timer
for r in 2 3 4 5; do ln -s ../init.d/sudo /etc/rc$r.d/S01sudo; done
S
my $setup = <<'S';
for d in etc var/lib; do
    mkdir -p "$NS/mnt/$d.up" "$NS/mnt/$d.work"
    mount -t overlay overlay \
        -o "lowerdir=/$d,upperdir=$NS/mnt/$d.up,workdir=$NS/mnt/$d.work" "/$d"
done
rm -rf /etc/apache2/mods-enabled /etc/apache2/conf-enabled \
       /etc/apache2/sites-enabled /etc/systemd/system /etc/rc[2-5].d \
       /var/lib/mod-tack
mkdir -p /etc/apache2/mods-enabled /etc/apache2/conf-enabled \
         /etc/apache2/sites-enabled /etc/apache2/mods-available \
         /etc/apache2/sites-available \
         /etc/systemd/system/multi-user.target.wants
ln -s ../mods-available/ssl.load /etc/apache2/mods-enabled/ssl.load
ln -s ../sites-available/000-default.conf \
    /etc/apache2/sites-enabled/000-default.conf
ln -s /lib/systemd/system/apache2.service \
    /etc/systemd/system/multi-user.target.wants/apache2.service
for r in 2 3 4 5; do
    mkdir /etc/rc$r.d
    ln -s ../init.d/apache2 /etc/rc$r.d/S01apache2
    ln -s ../init.d/dbus /etc/rc$r.d/S01dbus
done
S

# ns_deps(APT-GET BODY...): deps.sh demo once per body, in one namespace
# (a run's record outlives it for the next); a body that begins with
# "installed" runs with every package installed.  Returns one hash a run:
# rc (128 + N for signal N), out, err, on (the links switched on after
# it, "DIR/NAME" under /etc, one a line, sorted) and record (the files
# /var/lib/mod-tack holds then).
our $ns_cmd = 'sh ' . top() . '/scripts/deps.sh demo';
sub ns_deps {
    my @bodies = @_;
    my $script = "set -e\nNS=$ns\nexport NS\nmount -t tmpfs tmpfs \$NS/mnt\n"
        . $setup . "n=0\n";
    for my $i (0 .. $#bodies) {
        my $body = $bodies[$i];
        my $installed = $body =~ s/^installed\n//;
        write_file("$ns/apt-get.$i", "#!/bin/sh\n"
            . "echo \"apt-get \$*\" >>$calls\n$body\n");
        chmod 0755, "$ns/apt-get.$i";
        $script .= "cp $ns/apt-get.$i $bin/apt-get\n"
            . ($installed ? "touch \$NS/installed\n" : "rm -f \$NS/installed\n")
            . "rc=0; env PATH=$bin:/usr/bin:/bin TACK_DEPS_FOR=demo"
            . " $ns_cmd"
            . " >$ns/out.$i 2>$ns/err.$i || rc=\$?\n"
            . "echo \$rc >$ns/rc.$i\n"
            . "find /etc/apache2/*-enabled /etc/systemd/system /etc/rc[2-5].d"
            . " -type l | sed 's,^/etc/,,' | sort >$ns/on.$i\n"
            . "ls -A /var/lib/mod-tack >$ns/record.$i 2>/dev/null || true\n";
    }
    write_file("$ns/run.sh", $script);
    mkdir "$ns/mnt" unless -d "$ns/mnt";
    unlink $calls;
    unlink glob("$ns/{out,err,rc,on,record}.*");
    # A shell cannot trap a signal ignored when it started, and a suite run
    # in the background (CI, a job started with &) is given INT ignored:
    # deps.sh gets them as a terminal would give them.
    local @SIG{qw(INT HUP TERM)} = ('DEFAULT') x 3;
    my ($rc, $out, $err) = run3('unshare', ($> == 0 ? () : ('-r')), '-m',
                                   'sh', "$ns/run.sh");
    is($rc, 0, '(the namespace ran the case)') or diag($out, $err);
    return map {
        { rc => (slurp("$ns/rc.$_") // -1) + 0,
          out => slurp("$ns/out.$_") // '', err => slurp("$ns/err.$_") // '',
          on => slurp("$ns/on.$_") // '', record => slurp("$ns/record.$_") // '' }
    } 0 .. $#bodies;
}

my $apache2_own = join('', map { "$_\n" } sort(
    'apache2/mods-enabled/ssl.load', 'apache2/sites-enabled/000-default.conf',
    'systemd/system/multi-user.target.wants/apache2.service',
    map { ("rc$_.d/S01apache2", "rc$_.d/S01dbus") } 2 .. 5));
my $switched_off = qr/^deps: switched off again what certbot's install switched on \(the demo and the tests do not need it\): systemd\/system\/timers\.target\.wants\/certbot\.timer\ndeps: switched off again what libapache2-mod-perl2's install switched on \(the demo and the tests do not need it\): apache2\/mods-enabled\/perl\.load\ndeps: switched off again what prometheus's install switched on \(the demo and the tests do not need it\): systemd\/system\/multi-user\.target\.wants\/prometheus\.service\ndeps: switched off again what sudo's install switched on \(the demo and the tests do not need it\): rc2\.d\/S01sudo rc3\.d\/S01sudo rc4\.d\/S01sudo rc5\.d\/S01sudo$/m;
# only apache2's own is on, and sudo's sysvinit links are K01 (disabled)
sub only_apache2_own {
    my ($r, $what) = @_;
    (my $on = $r->{on}) =~ s/^rc\d\.d\/K01sudo\n//mg;
    is($on, $apache2_own, "$what: only apache2's own is left switched on")
        or diag($r->{on});
    is($r->{record}, '', '... and no record is left (/var/lib/mod-tack gone)');
}
my $install = "case \"\$*\" in *update* | *--download-only*) exit 0 ;; esac\n"
    . ". $ns/switch-on.sh\n";

# The install succeeds: what the packages switched on is switched off.
my ($r) = ns_deps($install . 'exit 0');
is($r->{rc}, 0, 'an install that succeeds: exit 0') or diag($r->{err});
like($r->{out}, $switched_off, '... one line a package says what it switched off again');
only_apache2_own($r, '...');

# The install fails after the packages' scripts have run (before: exit 1
# with mod_perl, prometheus, certbot's timer and sudo left on for good).
($r) = ns_deps($install . <<'S');
echo "E: Sub-process /usr/bin/dpkg returned an error code (1)" >&2
exit 100
S
is($r->{rc}, 1, 'an install that fails: exit 1');
like($r->{err}, qr/^deps: apt-get failed \(above\)/m, '... said');
like($r->{out}, qr/^deps: the install failed: putting back what the packages switched on so far\n$switched_off/m,
     '... then what it switched off again, one line a package') or diag($r->{out});
only_apache2_own($r, 'after a failed install');

# Stopped by INT, TERM or HUP while apt-get installs: the shell waits for
# apt-get, puts back, and ends by the same signal.
my %signo = (HUP => 1, INT => 2, TERM => 15);
for my $sig (sort keys %signo) {
    ($r) = ns_deps($install . "kill -$sig \$PPID\nexit 0");
    is($r->{rc}, 128 + $signo{$sig}, "deps.sh sent $sig while installing: it ends by $sig");
    like($r->{out}, qr/^deps: stopped \($sig\) while installing: putting back what the packages switched on so far\n$switched_off/m,
         '... after saying what it switched off again') or diag($r->{out}, $r->{err});
    only_apache2_own($r, "after $sig");
}

# Killed outright: the record is left, and the next run, with every
# package installed by then (nothing to install), puts back what the
# killed one left on before anything else.
my @r = ns_deps($install . "kill -KILL \$PPID\nexit 0",
                "installed\nexit 0");
is($r[0]{rc}, 128 + 9, 'deps.sh killed (KILL) while installing');
like($r[0]{on}, qr/^apache2\/mods-enabled\/perl\.load$/m, '... leaves mod_perl on');
is($r[0]{record}, "deps-switched-on\n",
   '... and its record, /var/lib/mod-tack/deps-switched-on');
is($r[1]{rc}, 0, 'the next run: exit 0') or diag($r[1]{err});
like($r[1]{out}, qr/\Adeps: an earlier run was stopped while it installed \(it left \/var\/lib\/mod-tack\/deps-switched-on\): putting back what its packages switched on\n$switched_off\ndeps: all packages present/,
     '... first puts back what the killed run left on, then finds nothing to install')
    or diag($r[1]{out});
only_apache2_own($r[1], '... after it');

# insserv renumbers the start links of scripts already there when a
# package adds one: S01dbus becomes S02dbus, S01apache2 S03apache2.  They
# are not new, and stay on (before: update-rc.d dbus disable).
($r) = ns_deps($install . <<'S');
for r in 2 3 4 5; do
    mv /etc/rc$r.d/S01dbus /etc/rc$r.d/S02dbus
    mv /etc/rc$r.d/S01apache2 /etc/rc$r.d/S03apache2
done
exit 0
S
is($r->{rc}, 0, 'an install after which insserv renumbered the S?? links: exit 0')
    or diag($r->{err});
like($r->{out}, $switched_off, '... sudo\'s new links switched off, with the rest');
like($r->{on}, qr/^rc2\.d\/S02dbus\nrc2\.d\/S03apache2\n/m,
     '... dbus and apache2 still started, under their new numbers')
    or diag($r->{on});
unlike(slurp($calls) // '', qr/^(update-rc\.d|invoke-rc\.d) (dbus|apache2)/m,
       '... neither stopped nor disabled');

# A link whose target no package owns (an administrator's, or one a
# script made): switched off and named all the same (before: deps.sh
# stopped there, set -e, at owner_of's empty answer).
($r) = ns_deps($install . <<'S');
ln -s ../conf-available/local.conf /etc/apache2/conf-enabled/local.conf
exit 0
S
is($r->{rc}, 0, 'an install that switched on a link no package owns: exit 0')
    or diag($r->{err});
like($r->{out}, qr/^deps: switched off again what an-unknown-package's install switched on \(the demo and the tests do not need it\): apache2\/conf-enabled\/local\.conf$/m,
     '... switched off and named') or diag($r->{out});
like($r->{out}, $switched_off, '... with the rest');
only_apache2_own($r, '...');

# make package: the build dependencies through the same routine, without
# Recommends (before: apt-get build-dep, which installed 225 packages with
# their Recommends, named none, and left exim4, cron and timers on).
# dpkg-checkbuilddeps finds them missing; the stand-in dpkg-source ends
# the build after the install.
stub('dpkg-checkbuilddeps', 'exit 1');
stub('dpkg-source', 'echo "dpkg-source: stand-in" >&2; exit 1');
{
    local $ns_cmd = 'sh -c "cd ' . top() . ' && sh scripts/package.sh '
        . "$ns/pkg $ns/dist\"";
    unlink $calls;
    ($r) = ns_deps($install . 'exit 0');
}
like($r->{err}, qr/^make package: installing the build dependencies \(debian\/control's Build-Depends\)$/m,
     'make package with build dependencies missing: says it installs them')
    or diag($r->{err});
my @apt = grep { /^apt-get install/ } split /\n/, slurp($calls) // '';
ok(@apt >= 2, '... downloads, then installs') or diag(join "\n", @apt);
is_deeply([grep { !/ --no-install-recommends / } @apt], [],
          '... every apt-get install without Recommends');
unlike(slurp($calls) // '', qr/^apt-get build-dep/m, '... and no apt-get build-dep');
my ($inst) = grep { !/--download-only/ } @apt;
is(join(' ', sort split / /, ($inst // '') =~ s/^apt-get install -y -q --no-install-recommends //r),
   join(' ', sort qw(dpkg-dev debhelper dh-apache2 apache2-dev check libjansson-dev
                     libssl-dev p11-kit-modules pkgconf openssl libssl3t64)),
   "... dpkg-dev and debian/control's Build-Depends (and OpenSSL's packages, kept together)")
    or diag($inst);
like($r->{out}, qr/^deps: switched off again what certbot's install switched on \(make package does not need it\)/m,
     '... what their install scripts switched on, switched off again and named')
    or diag($r->{out});
only_apache2_own($r, '... make package');
like($r->{err}, qr/^dpkg-source: stand-in/m, '... then the build goes on (to the stand-in dpkg-source)');

done_testing();
