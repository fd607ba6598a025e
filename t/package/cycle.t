# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The packages' life on the machine's real apache2 (make package-cycle):
# install, reinstall of the same version, upgrade to a higher one (built
# here from a copy of the packaged tree with a new changelog entry), a
# removal refused while the configuration uses mod_tack, remove, reinstall
# after remove, and purge, which keeps a TackStore where the guides put it
# (/var/lib/apache2/tack/store), served again after a reinstall, and purge
# with /var/lib/apache2/tack a symbolic link to a directory elsewhere; then the move from make install to the packages
# (admin guide, "Moving from make install to the package").  After each step: the files dpkg should have put
# or left (and none it should have taken), the module's enabled state, and
# apache2ctl configtest of /etc/apache2.  As root; /etc/apache2 and
# /var/lib/apache2 are copied aside first and put back at the end.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use File::Path qw(make_path remove_tree);
use FindBin;
use JSON::PP;
use lib "$FindBin::Bin/../lib";
use TackHelpers qw(read_file write_file run_sh outside_make_install);

my $top = "$FindBin::Bin/../..";
my $dist = $ENV{PKG_DIST} // "$top/dist";
my $v1 = $ENV{PKG_VERSION} or BAIL_OUT('PKG_VERSION is not set (make package-cycle sets it)');
# A release's build is the tool's version followed by ~debNu1
# (scripts/package.sh); the upgrade is a higher tool version, built for the
# same release by scripts/package-next.sh: 0.1.1+next1~deb12u1.
my ($tv1, $release) = $v1 =~ /\A([^~]+)(~.*)?\z/;
$release //= '';
my $tv2 = "$tv1+next1";
my $v2 = "$tv2$release";
my ($mod_deb) = glob("$dist/libapache2-mod-tack_${v1}_*.deb");
my ($tool_deb) = glob("$dist/tacktool_${v1}_*.deb");
BAIL_OUT("must run as root: it installs packages and edits /etc/apache2") if $> != 0;
BAIL_OUT("no libapache2-mod-tack_$v1 / tacktool_$v1 .deb in $dist: make package")
    unless $mod_deb && $tool_deb;
for my $p (qw(libapache2-mod-tack tacktool)) {
    my $st = qx{dpkg-query -W -f='\${db:Status-Abbrev}' $p 2>/dev/null};
    BAIL_OUT("$p is on this machine already ($st): the cycle starts where"
        . " it is not; apt purge $p first") if $st =~ /^[ir]/;
}

# Another apt-get on the machine (a test, unattended-upgrades) holds
# dpkg's lock for a while: wait for it rather than fail the step.
my $apt = 'DEBIAN_FRONTEND=noninteractive APT_LISTCHANGES_FRONTEND=none'
    . ' apt-get -y -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300';

# ---- the system, put aside --------------------------------------------------
my $tmp = tempdir('/tmp/tack-cycle.XXXXXX', CLEANUP => 1);
chmod 0755, $tmp;
my $saved = "$tmp/saved";
make_path($saved);
my ($rc, $out) = run_sh("cp -a /etc/apache2 $saved/etc-apache2 && cp -a /var/lib/apache2 $saved/var-lib-apache2");
is($rc, 0, '/etc/apache2 and /var/lib/apache2 copied aside') or BAIL_OUT($out);
# The module's state directory belongs to this test while it runs: a
# leftover of an earlier run of something else must not decide it.
remove_tree('/var/lib/apache2/tack');
# So does tack-md-hook's log (the rotation below): any is put aside.
make_path("$saved/log");
($rc, $out) = run_sh("for f in /var/log/tack-md-hook.log*; do [ ! -e \"\$f\" ] || mv \"\$f\" $saved/log/; done");
is($rc, 0, '/var/log/tack-md-hook.log* put aside') or BAIL_OUT($out);
BAIL_OUT('logrotate is not installed (make package installs it)') unless -x '/usr/sbin/logrotate';
my $made_install = 0;
sub restore {
    return unless -d "$saved/etc-apache2";
    run_sh("TACK_FORCE_REMOVE=1 dpkg --purge tacktool libapache2-mod-tack");
    # What make install put, /etc/apache2 aside (put back below).
    run_sh("make -s -C $top uninstall KEEP_SITES=1") if $made_install;
    run_sh("rm -rf /etc/apache2 /var/lib/apache2 && cp -a $saved/etc-apache2 /etc/apache2"
        . " && cp -a $saved/var-lib-apache2 /var/lib/apache2");
    run_sh("rm -f /var/log/tack-md-hook.log* && for f in $saved/log/*; do"
        . " [ ! -e \"\$f\" ] || mv \"\$f\" /var/log/; done");
}
END { restore() }
$SIG{INT} = $SIG{TERM} = sub { restore(); exit 1 };

sub configtest {
    my ($what) = @_;
    my ($rc, $out) = run_sh('apache2ctl configtest');
    is($rc, 0, "$what: apache2ctl configtest passes") or diag($out);
}
sub status { my ($p) = @_; my $s = qx{dpkg-query -W -f='\${db:Status-Abbrev}\${Version}' $p 2>/dev/null}; $s =~ s/\s+/ /g; return $s }

my @mod_files = qw(/usr/lib/apache2/modules/mod_tack.so
    /usr/libexec/libapache2-mod-tack/uninstall-check.sh
    /usr/share/doc/libapache2-mod-tack/copyright
    /usr/share/doc/libapache2-mod-tack/README.Debian
    /usr/share/doc/libapache2-mod-tack/directives.md.gz
    /usr/share/doc/libapache2-mod-tack/admin-guide.md.gz);
my @tool_files = qw(/usr/bin/tacktool /usr/share/man/man1/tacktool.1.gz
    /usr/libexec/tacktool/tack-certbot-hook /usr/libexec/tacktool/tack-md-hook
    /usr/share/doc/tacktool/copyright /usr/share/doc/tacktool/README.Debian);
my @conffiles = qw(/etc/apache2/mods-available/tack.load
    /etc/apache2/mods-available/tack.conf);
# tacktool's conffile: the rotation of tack-md-hook's log.
my $logrotate = '/etc/logrotate.d/tacktool';
sub present {
    my ($what, @f) = @_;
    my @missing = grep { !-e $_ } @f;
    ok(!@missing, "$what: present (" . scalar(@f) . " files)") or diag("missing: @missing");
}
sub absent {
    my ($what, @f) = @_;
    my @left = grep { -e $_ } @f;
    ok(!@left, "$what: absent (" . scalar(@f) . " files)") or diag("still there: @left");
}
sub enabled { -e '/etc/apache2/mods-enabled/tack.load' }
# dpkg --verify: the installed files are the packaged ones (a conffile
# the test edited is reported with a "c" and left out here).
sub verified {
    my ($what, $p) = @_;
    my ($rc, $out) = run_sh("dpkg --verify $p");
    my @bad = grep { !/^\S+ c \// } split /\n/, $out;
    ok(!@bad, "$what: dpkg --verify $p finds every file as packaged") or diag($out);
}
sub tool_version {
    my ($rc, $out) = run_sh('tacktool --version');
    return $rc == 0 ? (split ' ', $out)[0, 1] : ('', $out);
}

# make install's files (step 7 makes them, and removes them).
my @source_files = qw(/usr/local/bin/tack /usr/local/share/man/man1/tack.1
    /usr/local/lib/tack/tack-certbot-hook /usr/local/lib/tack/tack-md-hook
    /usr/local/share/doc/mod_tack);
for (@source_files, '/usr/lib/apache2/modules/mod_tack.so') {
    BAIL_OUT("$_ is here (make install?): the cycle starts where mod_tack is"
        . " not installed; make uninstall first") if -e $_;
}
configtest('before');
ok(!enabled(), 'before: mod_tack is not enabled');

# ---- 1. install ---------------------------------------------------------------
($rc, $out) = run_sh("$apt install $mod_deb $tool_deb");
is($rc, 0, "apt-get install ./libapache2-mod-tack_$v1 ./tacktool_$v1") or diag($out);
like(status('libapache2-mod-tack'), qr/^ii \Q$v1\E$/, "... libapache2-mod-tack $v1 is installed");
like(status('tacktool'), qr/^ii \Q$v1\E$/, "... tacktool $v1 is installed");
present('install: the module, its helper and docs', @mod_files);
present('install: the tool, its man page, hooks and docs', @tool_files);
present('install: mods-available/tack.{load,conf}', @conffiles);
like(read_file('/etc/apache2/mods-available/tack.load') // '',
     qr{^# Depends: ssl\n(?:.*\n)*?LoadModule tack_module /usr/lib/apache2/modules/mod_tack\.so\n}m,
     '... tack.load loads the module and declares its dependency on ssl');
like(read_file('/etc/apache2/mods-available/tack.conf') // '', qr{/usr/share/doc/libapache2-mod-tack},
     '... tack.conf points to the installed docs');
ok(!-e '/usr/bin/tack', '... and /usr/bin/tack (Debian\'s tack package\'s name) is not ours');
like(read_file('/usr/libexec/tacktool/tack-certbot-hook') // '', qr{^TACK=\$\{TACK:-/usr/bin/tacktool\}$}m,
     '... the hooks run /usr/bin/tacktool');
is_deeply([tool_version()], ['tacktool', $tv1], "tacktool --version says $tv1");
# The package names this release: its version and its name in the changelog.
my %os = map { /^(\w+)=("?)(.*)\2$/ ? ($1, $3) : () } split /\n/, read_file('/etc/os-release') // '';
my ($suite, $want) = $os{ID} eq 'debian' && ($os{VERSION_ID} // '') =~ /^\d+$/ && $os{VERSION_CODENAME}
    ? ($os{VERSION_CODENAME}, "~deb$os{VERSION_ID}u1") : ('unstable', '');
is($release, $want, "$v1 is the build of this release ($os{PRETTY_NAME})");
like(qx{zcat /usr/share/doc/libapache2-mod-tack/changelog.gz 2>&1}, qr/\Amod-tack \(\Q$v1\E\) \Q$suite\E; /,
     "... and its changelog says $v1 $suite");
($rc, $out) = run_sh('MANWIDTH=80 man --warnings -P cat tacktool 2>/dev/null');
is($rc, 0, 'man tacktool renders') or diag($out);
like($out, qr/^NAME\s+tacktool\b/m, '... as tacktool');
($rc, $out) = run_sh('MANWIDTH=80 man --warnings -P cat tacktool 2>&1 >/dev/null');
is($out, '', '... without groff warnings');
# The packaged docs: the package's paths, the picture, no developer docs.
my $doc = '/usr/share/doc/libapache2-mod-tack';
my $guide = qx{zcat $doc/admin-guide.md.gz};
# What the guide says about make install's own paths is between markers in
# the source (the packaged copy has no markers: they are left out).
my $outside = outside_make_install($guide, "$top/docs/admin-guide.md");
unlike($guide, qr/<!--/, "$doc/admin-guide.md has no build markers");
my @local = grep { m{/usr/local/(?:bin/tack|lib/tack|share/(?:man|doc))} } split /\n/, $outside;
ok(!@local, "$doc/admin-guide.md names the package's paths") or diag(join "\n", @local);
like($guide, qr{`MDMessageCmd` `/usr/libexec/tacktool/tack-md-hook`}m, '... in the retired MDMessageCmd');
like(qx{zcat /usr/share/doc/tacktool/NEWS.Debian.gz 2>&1}, qr{\Amod-tack \(\Q$tv1\E\) .*/etc/sudoers\.d/tack-md}s,
     "/usr/share/doc/tacktool/NEWS.Debian.gz: the retired sudo route, in this version's entry");
like($guide, qr{^ln -s /usr/libexec/tacktool/tack-certbot-hook /etc/letsencrypt/renewal-hooks/deploy/$}m, '... and in the renewal-hooks link');
like($guide, qr{/usr/local/bin/tack`.*?/usr/local/lib/tack/}s, '... and make install\'s in section 1');
# The status page's screenshot (570 KB) stays in the source tree.
ok(!-e "$doc/status-1000.png", "$doc/status-1000.png: not in the package");
my $hosting = qx{zcat $doc/hosting-guide.md.gz};
like($hosting, qr{^\*The tack-status page at 1,000 virtual hosts, 1,280 pixels wide: the screenshot is docs/status-1000\.png in mod_tack's source tree \(not in this package\)\.\*$}m,
     '... the hosting guide says where it is');
my @shows = grep { /status-1000\.png\)/ } map { split /\n/, qx{zcat $_} } glob("$doc/*.md.gz");
ok(!@shows, '... and no packaged guide shows it') or diag(join "\n", @shows);
# README.Debian: the name, the hooks, enabling, purge, the guides.
my $readme = read_file("$doc/README.Debian") // '';
like($readme, qr{^a2enmod tack enables ssl too}m, "$doc/README.Debian says a2enmod tack enables ssl");
like($readme, qr{never removes a TackStore\s+\(the guides put one in /var/lib/apache2/tack/store\)}, '... what purge keeps');
like($readme, qr{/usr/share/doc/libapache2-mod-tack/admin-guide\.md\.gz}, '... where the guide is');
like($readme, qr{/usr/bin/tacktool.*\n.*/usr/bin/tack\b}, '... why the tool is tacktool');
my $readme_tool = read_file('/usr/share/doc/tacktool/README.Debian') // '';
like($readme_tool, qr{^    /usr/libexec/tacktool/tack-md-hook }m, "/usr/share/doc/tacktool/README.Debian names the hooks' place");
like($readme_tool, qr{owns /usr/bin/tack\b}, '... and why the tool is tacktool');

# tack-md-hook's log, made as the admin guide makes it, rotated by the
# package's snippet: the old lines kept aside, a new file the hook (as
# www-data) can append to.
present('install: tacktool\'s conffile', $logrotate);
my $hook_log = '/var/log/tack-md-hook.log';
($rc, $out) = run_sh("install -o www-data -g adm -m 640 /dev/null $hook_log && echo 'a renewal' >> $hook_log"
    . " && logrotate -f -s $tmp/logrotate.state $logrotate");
is($rc, 0, "logrotate -f $logrotate") or diag($out);
is(read_file("$hook_log.1"), "a renewal\n", "... moves $hook_log to $hook_log.1 (compressed at the next rotation)");
my @st = stat $hook_log;
is(@st ? sprintf('%s:%s %o %d', scalar getpwuid($st[4]), scalar getgrgid($st[5]), $st[2] & 07777, $st[7]) : 'none',
   'www-data:adm 640 0', "... and makes a new, empty $hook_log: www-data's, group adm, mode 640");
($rc, $out) = run_sh("logrotate -f -s $tmp/logrotate.state $logrotate");
is($rc, 0, "logrotate -f $logrotate again") or diag($out);
ok(read_file("$hook_log.1") eq "a renewal\n" && !glob("$hook_log.2*"), '... leaves the empty log alone (notifempty)');
absent('the developers\' docs', map { ("$doc/$_.md", "$doc/$_.md.gz") } qw(contributing fuzzing));

ok(!enabled(), 'install does not enable the module');
ok(!-e '/etc/apache2/mods-enabled/ssl.load' || -e "$saved/etc-apache2/mods-enabled/ssl.load",
   '... nor mod_ssl');
configtest('install');
verified('install', 'libapache2-mod-tack');
verified('install', 'tacktool');

# make install and make uninstall: refused while the package owns the files.
my $so_before = qx{md5sum /usr/lib/apache2/modules/mod_tack.so};
($rc, $out) = run_sh("make -s -C $top install");
isnt($rc, 0, 'make install refuses while libapache2-mod-tack is installed');
like($out, qr/libapache2-mod-tack/, '... naming the package') or diag($out);
($rc, $out) = run_sh("make -s -C $top uninstall");
isnt($rc, 0, 'make uninstall refuses too');
like($out, qr/libapache2-mod-tack/, '... naming the package') or diag($out);
is(qx{md5sum /usr/lib/apache2/modules/mod_tack.so}, $so_before, '... and mod_tack.so is untouched');
ok(!-e '/usr/local/bin/tack', '... and no /usr/local/bin/tack was installed');
verified('after make install and uninstall', 'libapache2-mod-tack');

# a2enmod is the administrator's step.
($rc, $out) = run_sh('a2enmod tack');
is($rc, 0, 'a2enmod tack') or diag($out);
ok(enabled() && -e '/etc/apache2/mods-enabled/ssl.load', '... enables tack and ssl');
configtest('a2enmod tack');

# A site that uses it, made with the installed tool; a local edit of the
# conffile tack.conf.
make_path("$tmp/tack");
($rc, $out) = run_sh("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30"
    . " -subj /CN=cycle.tack.test -addext subjectAltName=DNS:cycle.tack.test"
    . " -addext basicConstraints=critical,CA:FALSE"
    . " -keyout $tmp/tack/www.key -out $tmp/tack/www.crt"
    . " && tacktool genkey -p cycle -o $tmp/tack/key.pem"
    . " && tacktool sign -k $tmp/tack/key.pem -p cycle -c $tmp/tack/www.crt -o $tmp/tack/www.tack.pem");
is($rc, 0, 'a certificate, a TACK key and a TACK, by the installed tacktool') or diag($out);
# A TackStore where the guides put one (admin guide section 15, the hosting
# guide's "Each web server"), beside the module's state, with a TACK signed
# into it, and a TACK key and its password file beside them: all the
# administrator's, for purge to keep.
my $vstate = '/var/lib/apache2/tack';
my $store = "$vstate/store";
my $store_tack = "$store/cycle.tack.test.tack.pem";
my @admin_files = ($store_tack, "$vstate/tack.key", "$vstate/tack.pw");
($rc, $out) = run_sh("install -d -m 755 $store && tacktool sign -k $tmp/tack/key.pem -p cycle"
    . " -c $tmp/tack/www.crt -o $store_tack"
    . " && install -m 600 $tmp/tack/key.pem $vstate/tack.key"
    . " && (umask 077; echo cycle > $vstate/tack.pw)");
is($rc, 0, "a TackStore $store with a TACK, by the installed tacktool; a TACK key and password beside it")
    or diag($out);
my $store_sum = qx{md5sum $store_tack};
my $site = '/etc/apache2/sites-available/tack-cycle.conf';
write_file($site, <<"SITE");
<VirtualHost 127.0.0.1:18798>
    ServerName cycle.tack.test
    SSLEngine on
    SSLCertificateFile    $tmp/tack/www.crt
    SSLCertificateKeyFile $tmp/tack/www.key
    TackFile $tmp/tack/www.tack.pem
    TackPinActivation on
</VirtualHost>
SITE
($rc, $out) = run_sh('a2ensite -q tack-cycle');
is($rc, 0, 'a2ensite tack-cycle (a vhost with a TackFile)') or diag($out);
configtest('a site with a TackFile');
open my $fh, '>>', '/etc/apache2/mods-available/tack.conf' or die $!;
print $fh "# a local edit, kept by dpkg\n";
close $fh;

# The signatures of the TACKs in a tacktool --json answer (view: a list;
# check: its "tacks").
sub signatures {
    my ($cmd) = @_;
    my $j = eval { JSON::PP::decode_json(scalar qx{$cmd 2>/dev/null}) } // [];
    $j = $j->{tacks} // [] if ref $j eq 'HASH';
    return [map { $_->{signature} // () } @$j];
}

# A private start of this configuration (its own ports, pid and logs) with
# the default TackStateFile: the module's state in /var/lib/apache2/tack.
my $etc = "$tmp/apache2";
# With $tack, the TACK a handshake gets must be that file's (its signature).
sub private_start {
    my ($what, $tack) = @_;
    remove_tree($etc, "$tmp/run");
    run_sh("cp -a /etc/apache2 $etc");
    make_path("$tmp/run", "$tmp/lock", "$tmp/log");
    open my $fh, '>>', "$etc/envvars" or die $!;
    print $fh "export APACHE_RUN_DIR=$tmp/run\nexport APACHE_PID_FILE=$tmp/run/apache2.pid\n"
        . "export APACHE_LOCK_DIR=$tmp/lock\nexport APACHE_LOG_DIR=$tmp/log\n";
    close $fh;
    write_file("$etc/ports.conf", "Listen 127.0.0.1:18798\n");
    unlink glob("$etc/sites-enabled/000-default*");
    my $ctl = "APACHE_CONFDIR=$etc APACHE_STARTED_BY_SYSTEMD=1 apache2ctl";
    my ($rc, $out) = run_sh("$ctl start");
    is($rc, 0, "$what: a private start of the configuration") or diag($out);
    for (1 .. 50) { last if -f "$tmp/run/apache2.pid"; select(undef, undef, undef, 0.1) }
    ($rc, $out) = run_sh('tacktool check 127.0.0.1:18798 --servername cycle.tack.test');
    is($rc, 0, "$what: tacktool check: the TACK is served") or diag($out);
    if ($tack) {
        my $want = signatures("tacktool view --json $tack");
        my $got = signatures('tacktool check 127.0.0.1:18798 --servername cycle.tack.test --require --json');
        ok(@$want == 1 && "@$got" eq "@$want", "$what: ... and it is the TACK of $tack")
            or diag("$tack: @$want; served: @$got");
    }
    run_sh("$ctl stop");
    for (1 .. 50) { last unless -f "$tmp/run/apache2.pid"; select(undef, undef, undef, 0.1) }
}
private_start('install');
ok(-f '/var/lib/apache2/tack/state.json', '... the module remembered its pinned key in /var/lib/apache2/tack/state.json');

# ---- 2. the same version again -------------------------------------------------
($rc, $out) = run_sh("$apt install --reinstall $mod_deb $tool_deb");
is($rc, 0, "apt-get install --reinstall of $v1") or diag($out);
like(status('libapache2-mod-tack'), qr/^ii \Q$v1\E$/, "... libapache2-mod-tack is $v1");
present('reinstall: module files', @mod_files, @conffiles);
present('reinstall: tool files', @tool_files);
ok(enabled(), '... the module is still enabled');
like(read_file('/etc/apache2/mods-available/tack.conf'), qr/a local edit, kept by dpkg/, '... the edited tack.conf is kept');
configtest('reinstall');
verified('reinstall', 'libapache2-mod-tack');

# ---- 3. a higher version ---------------------------------------------------------
($rc, $out) = run_sh("dpkg --compare-versions $v2 gt $v1");
is($rc, 0, "$v2 sorts above $v1 (dpkg --compare-versions)");
($rc, $out) = run_sh("cd $top && sh scripts/package-next.sh $v1 $tmp/build");
is($rc, 0, "scripts/package-next.sh: $v2 built from the packaged tree")
    or diag(substr($out, -3000));
my ($mod2) = glob("$tmp/build/libapache2-mod-tack_${v2}_*.deb");
my ($tool2) = glob("$tmp/build/tacktool_${v2}_*.deb");
ok($mod2 && $tool2, "... made both .debs of $v2") or BAIL_OUT('no upgrade to test');
($rc, $out) = run_sh("$apt install $mod2 $tool2");
is($rc, 0, "apt-get install of $v2 (an upgrade)") or diag($out);
like(status('libapache2-mod-tack'), qr/^ii \Q$v2\E$/, "... libapache2-mod-tack is $v2");
like(status('tacktool'), qr/^ii \Q$v2\E$/, "... tacktool is $v2");
is_deeply([tool_version()], ['tacktool', $tv2], "tacktool --version says $tv2");
present('upgrade: module files', @mod_files, @conffiles);
present('upgrade: tool files', @tool_files);
ok(enabled(), '... the module is still enabled');
like(read_file('/etc/apache2/mods-available/tack.conf'), qr/a local edit, kept by dpkg/, '... the edited tack.conf is kept');
ok(-f '/var/lib/apache2/tack/state.json', '... and so is the module\'s state');
configtest('upgrade');
verified('upgrade', 'libapache2-mod-tack');
private_start('upgrade');

# ---- 4. remove, refused while a site uses the module ------------------------------
($rc, $out) = run_sh("$apt remove libapache2-mod-tack");
isnt($rc, 0, 'apt-get remove libapache2-mod-tack is refused while a site has a TackFile');
like($out, qr{not removed: the configuration in /etc/apache2 still uses\s+mod_tack}, '... saying why') or diag($out);
like($out, qr{\Q/etc/apache2/sites-enabled/tack-cycle.conf\E:6:\s*TackFile}, '... naming the line (file:line)');
like(status('libapache2-mod-tack'), qr/^ii \Q$v2\E$/, '... and the package stays installed');
ok(enabled(), '... and enabled');
present('refused remove: module files', @mod_files);
configtest('refused remove');

# The admin guide's LogLevel line (section 13), alone: without the module
# httpd refuses it ("Cannot find module tack"), so remove refuses too.
($rc, $out) = run_sh('a2dissite -q tack-cycle');
is($rc, 0, 'a2dissite tack-cycle') or diag($out);
write_file('/etc/apache2/conf-available/tack-cycle-log.conf', "LogLevel warn tack:info\n");
($rc, $out) = run_sh('a2enconf -q tack-cycle-log');
is($rc, 0, "a2enconf the guide's LogLevel ... tack:info line") or diag($out);
($rc, $out) = run_sh("$apt remove libapache2-mod-tack");
isnt($rc, 0, 'apt-get remove is refused while a LogLevel line names the module');
like($out, qr{\Q/etc/apache2/conf-enabled/tack-cycle-log.conf\E:1:LogLevel warn tack:info}, '... naming it (file:line)') or diag($out);
like(status('libapache2-mod-tack'), qr/^ii /, '... and the package stays installed');
run_sh('a2disconf -q tack-cycle-log');
unlink '/etc/apache2/conf-available/tack-cycle-log.conf';

# ---- 5. remove ---------------------------------------------------------------------
($rc, $out) = run_sh("$apt remove libapache2-mod-tack tacktool");
is($rc, 0, 'apt-get remove libapache2-mod-tack tacktool') or diag($out);
like(status('libapache2-mod-tack'), qr/^rc /, '... libapache2-mod-tack: removed, configuration kept (rc)');
absent('remove: the module, helper and docs', @mod_files);
absent('remove: the tool, man page, hooks and docs', @tool_files);
present('remove: the conffiles', @conffiles, $logrotate);
like(read_file('/etc/apache2/mods-available/tack.conf'), qr/a local edit, kept by dpkg/, '... tack.conf with its edit');
ok(!enabled(), '... the module is disabled');
ok(-e '/var/lib/apache2/module/disabled_by_maint/tack', '... by the maintainer script (so a reinstall enables it again)');
ok(-f '/var/lib/apache2/tack/state.json', '... the module\'s state is kept');
configtest('remove');

# Back after a remove: the module comes back enabled, as it was.
($rc, $out) = run_sh("$apt install $mod2 $tool2");
is($rc, 0, "apt-get install of $v2 after the remove") or diag($out);
ok(enabled(), '... enables the module again, as it was before the remove');
like(read_file('/etc/apache2/mods-available/tack.conf'), qr/a local edit, kept by dpkg/, '... with the edited tack.conf');
configtest('install after remove');
($rc, $out) = run_sh("$apt remove libapache2-mod-tack tacktool");
is($rc, 0, 'removed again') or diag($out);

# ---- 6. purge ------------------------------------------------------------------------
# What the module writes beside its state file: a token's refused PIN, the
# keys it signed with, and what an interrupted atomic write leaves (those
# three made here: this test's server signs nothing and has no token).
my @state_files = map { "$vstate/$_" } qw(state.json state.json.lock
    state.json.pin-refused state.json.pin-key state.json.signing-keys
    state.json.verified .state.json.Ab3dE9);
write_file($_, "{}\n") for grep { !-e $_ } @state_files;
# The administrator's copy, named like a temporary file but not of its
# shape (six of mkstemp's letters and digits): kept.
my $admin_copy = "$vstate/.state.json.old-01";
write_file($admin_copy, "{}\n");
($rc, $out) = run_sh("$apt purge libapache2-mod-tack tacktool");
is($rc, 0, 'apt-get purge libapache2-mod-tack tacktool') or diag($out);
is(status('libapache2-mod-tack'), '', '... libapache2-mod-tack is gone from dpkg\'s database');
is(status('tacktool'), '', '... tacktool too');
absent('purge: every file', @mod_files, @tool_files, @conffiles, $logrotate);
my @marks = glob('/var/lib/apache2/module/*/tack');
ok(!@marks, '... and apache2\'s enabled/disabled marks for tack') or diag("@marks");
ok(-f "$tmp/tack/key.pem", '... the administrator\'s TACK key is not the package\'s to remove');
# The site had pin activation on: the state file's pins outlive the
# package, and purge keeps it, saying until when (issue 46, item 2).
ok(-f "$vstate/state.json", 'purge: the state file, whose pins may still be active, is kept');
like($out, qr{libapache2-mod-tack: purge kept \Q$vstate\E/state\.json: clients\s+may hold pins on the TACK keys it names until\s+\d{4}-\d\d-\d\dT\d\d:\d\dZ.*TACK_PURGE_STATE=1}s,
     '... saying until when, and how to remove it now') or diag($out);
absent('purge: the state file\'s companions and a temporary file', grep { !/\/state\.json$/ } @state_files);
present("purge: the TACK in the TackStore $store, the TACK key and its password beside it", @admin_files);
present('purge: the administrator\'s .state.json.old-01', $admin_copy);
is(qx{md5sum $store_tack}, $store_sum, "... $store_tack unchanged");
my ($kept) = $out =~ m{libapache2-mod-tack: purge removed the module's files but its state file and kept\s+\Q$vstate\E/, which holds files that are not the package's:\s+([^\n]*)};
is(join(' ', sort split ' ', $kept // ''), '.state.json.old-01 store tack.key tack.pw',
   '... purge says what it kept') or diag($out);
configtest('purge');

# Installed again, the site serves the TACK from that store.
($rc, $out) = run_sh("$apt install $mod_deb $tool_deb");
is($rc, 0, "apt-get install of $v1 after the purge") or diag($out);
ok(!enabled(), '... the module is not enabled (purge forgot it was)');
($rc, $out) = run_sh('a2enmod -q tack');
is($rc, 0, '... a2enmod tack') or diag($out);
my $conf = read_file($site);
$conf =~ s{^(\s*)TackFile .*$}{$1TackStore $store}m or BAIL_OUT("no TackFile line in $site");
write_file($site, $conf);
($rc, $out) = run_sh('a2ensite -q tack-cycle');
is($rc, 0, "a2ensite tack-cycle, its TackFile now TackStore $store") or diag($out);
configtest('reinstall after purge');
private_start('reinstall after purge', $store_tack);
($rc, $out) = run_sh("a2dissite -q tack-cycle && TACK_PURGE_STATE=1 $apt purge libapache2-mod-tack tacktool");
is($rc, 0, 'apt-get purge again, TACK_PURGE_STATE=1') or diag($out);
present('purge again: the TackStore\'s TACK, the key and password', @admin_files);
ok(!-e "$vstate/state.json", '... not the state file: TACK_PURGE_STATE=1 removes it, pins or not');

# The state directory moved to other storage by the administrator, a
# symbolic link left in its place (before: purge failed there, rmdir on
# the link, exit 1, and dpkg with it): the module's files where it leads
# go, the link and that directory stay.
my $moved = "$tmp/persist";
($rc, $out) = run_sh("mv $vstate $moved && ln -s $moved $vstate && $apt install $mod_deb $tool_deb");
is($rc, 0, "$vstate moved to $moved, a symbolic link left in its place; installed again") or diag($out);
my @moved_state = map { "$vstate/$_" } qw(state.json .state.json.Xy12Zq);
write_file($_, "{}\n") for @moved_state;
($rc, $out) = run_sh("$apt purge libapache2-mod-tack tacktool");
is($rc, 0, 'apt-get purge with the state directory a symbolic link') or diag($out);
is(status('libapache2-mod-tack'), '', '... libapache2-mod-tack is gone from dpkg\'s database');
is(readlink($vstate) // '', $moved, '... the link is kept, to the same directory');
absent('purge through the link: the module\'s files', map { s/^\Q$vstate\E/$moved/r } @moved_state);
present('purge through the link: the administrator\'s', map { s/^\Q$vstate\E/$moved/r } @admin_files, $admin_copy);
like($out, qr{libapache2-mod-tack: purge removed the module's state file\s+from \Q$vstate\E/, a symbolic link to \Q$moved\E, and kept\s+the link and the directory it leads to: the administrator's},
     '... and says so') or diag($out);
($rc, $out) = run_sh("rm $vstate && mv $moved $vstate");
is($rc, 0, "$vstate a directory again") or diag($out);

# ---- 7. from make install to the packages ------------------------------------------
# A source install serving a site, with an edited tack.conf; then the admin
# guide's "Moving from make install to the package", non-interactively.
$made_install = 1;
($rc, $out) = run_sh("make -s -C $top install");
is($rc, 0, 'make install (a source install)') or diag($out);
present('make install', @source_files, '/usr/lib/apache2/modules/mod_tack.so', @conffiles);
($rc, $out) = run_sh('a2enmod -q tack && a2ensite -q tack-cycle');
is($rc, 0, '... a2enmod tack, a2ensite tack-cycle (its TackFile)') or diag($out);
open $fh, '>>', '/etc/apache2/mods-available/tack.conf' or die $!;
print $fh "TackStateFile /var/lib/apache2/tack/state.json\n";
close $fh;
# A file under /etc that runs a hook from make install's place.
my $md_conf = '/etc/apache2/conf-available/tack-cycle-md.conf';
write_file($md_conf, "#MDMessageCmd /usr/local/lib/tack/tack-md-hook /etc/tack/md-hook.conf\n");
configtest('make install');
my $sums = 'md5sum /usr/lib/apache2/modules/mod_tack.so /etc/apache2/sites-available/tack-cycle.conf'
    . ' /etc/apache2/mods-available/tack.conf /etc/apache2/mods-available/tack.load';
my $sums_before = qx{$sums};

($rc, $out) = run_sh("$apt install $mod_deb $tool_deb </dev/null");
isnt($rc, 0, 'apt-get install over make install is refused');
note($out);
like($out, qr/libapache2-mod-tack: not installed, nothing changed: mod_tack was installed here\s+from its source tree \(make install\)/,
     '... by libapache2-mod-tack\'s preinst, saying why') or diag($out);
like($out, qr/^\s+\Q$_\E$/m, "... naming $_") for '/usr/lib/apache2/modules/mod_tack.so', @source_files;
like($out, qr/^\s+make uninstall KEEP_SITES=1$/m, '... and the command that removes them');
like($out, qr/tacktool: not installed, nothing changed/, '... and by tacktool\'s');
unlike($out, qr/conffile prompt/, '... with no conffile prompt');
unlike(status($_), qr/^.[^n]/, "... $_ is not installed") for qw(libapache2-mod-tack tacktool);
is(qx{$sums}, $sums_before, '... the module, the site and mods-available are untouched');
present('refused install: make install\'s files', @source_files);
configtest('refused install');

($rc, $out) = run_sh("make -s -C $top uninstall KEEP_SITES=1");
is($rc, 0, 'make uninstall KEEP_SITES=1') or diag($out);
note($out);
like($out, qr/kept: .*tack\.load, tack\.conf, the sites.*\nnext, before apache2 restarts: apt install/,
     '... saying what it kept and what next') or diag($out);
like($out, qr{still run the tool or a hook from /usr/local .*\n\s+\Q$md_conf\E$}m,
     '... and naming the files under /etc that run the old hook');
absent('make uninstall KEEP_SITES=1', @source_files, '/usr/lib/apache2/modules/mod_tack.so');
present('... leaves', @conffiles, '/etc/apache2/sites-enabled/tack-cycle.conf');
ok(enabled(), '... and the module enabled');

($rc, $out) = run_sh("$apt install $mod_deb $tool_deb </dev/null");
is($rc, 0, 'apt-get install, non-interactive, then goes through') or diag($out);
unlike($out, qr/conffile prompt|Configuration file/, '... with no conffile question');
like(status($_), qr/^ii \Q$v1\E$/, "... $_ $v1 is installed") for qw(libapache2-mod-tack tacktool);
like($out, qr{took over /etc/apache2/mods-available/tack\.load from make install}, '... tack.load taken over');
like($out, qr{kept your edited /etc/apache2/mods-available/tack\.conf}, '... the edited tack.conf kept, saying so');
like(read_file('/etc/apache2/mods-available/tack.conf'), qr{^TackStateFile /var/lib/apache2/tack/state\.json$}m,
     '... with its edit');
like(read_file('/etc/apache2/mods-available/tack.conf.dpkg-dist') // '', qr{/usr/share/doc/libapache2-mod-tack},
     '... and the package\'s beside it, as tack.conf.dpkg-dist');
absent('no file aside left', map { "$_.make-install" } @conffiles);
absent('no make install file left', @source_files);
ok(enabled(), 'the module is still enabled');
my ($site_after) = grep { /tack-cycle/ } split /\n/, qx{$sums};
my ($site_before) = grep { /tack-cycle/ } split /\n/, $sums_before;
is($site_after, $site_before, '... and the site untouched');
configtest('after the move');
verified('after the move', 'libapache2-mod-tack');
verified('after the move', 'tacktool');
private_start('after the move');
($rc, $out) = run_sh('a2dissite -q tack-cycle');
($rc, $out) = run_sh("$apt purge libapache2-mod-tack tacktool");
is($rc, 0, 'apt-get purge after the move') or diag($out);
absent('purge after the move', @mod_files, @tool_files, @conffiles, $logrotate,
    '/etc/apache2/mods-available/tack.conf.dpkg-dist');
configtest('purge after the move');

done_testing();
