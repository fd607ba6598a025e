# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# mod_md + pebble + hooks/tack-md-hook behind the sudo rule that the admin
# guide printed until 0.1.1: the retired route, as the sites that set it
# up still have it.  mod_md's route is now TackSigningKey (md-signing.t).
#
# Two things are checked.  The hook keeps such a site's pinned name through
# renewals (a new TLS key, certificate and TACK activated by the same
# graceful restart) and says in its log at each renewal that it is
# retired.  And what the rule let the child user do is refused by the
# tool (issue 45, item 1): sudo matches the arguments joined by single
# spaces, so one word with spaces inside passed for several: a key and a
# certificate of the caller's choosing (relative paths in a directory the
# caller owns), a password typed on the caller's terminal, an output
# directory of the caller's choosing, a probe of what exists as the
# signing user sees it.  What the rule itself held is kept here too.
#
# A private apache2 with mod_md gets its certificate from a private pebble;
# a renew window longer than pebble's 5-year certificates makes every start
# and graceful restart renew.  At `renewed` mod_md runs the hook (as the
# child user, nobody, when started as root), which has the signing user
# sign the staged certificate into the TackStore, through sudo.  Obtain,
# then renew twice, each activated by a graceful restart: a client whose
# pin is active accepts the name with each new key.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use AcmeTest;
BEGIN { need('pebble', 'mod_md') }
use Test::More;
use TackTest qw(log_mark log_since log_clean);

plan tests => 71;

my $name = 'md.tack.test';
my $d = acme_tmp('md');
my $pebble = Pebble->start("$d/pebble");
my $hook = top() . '/hooks/tack-md-hook';
my $store = "$d/store";
my $keydir = "$d/key";
mkdir $_ or die "$_: $!" for $store, $keydir;
chmod 0700, $keydir;

# The child user runs the signing command and writes the store.  Here the
# command is the tool itself, with a key only that user (and root) reads.
write_file("$keydir/password", "md-test\n");
my ($rc, $out, $err) = tack('genkey', '-o', "$keydir/tack.key",
                            '--password-file', "$keydir/password");
is($rc, 0, 'a TACK key') or diag($err);
my $id = ($err =~ /TACK ID (\S+)/)[0];
# The store and the key belong to a signing user of their own, never to
# the child user (httpd refuses a store others can write: a TACK dropped in
# would be served): the hook, run as the child user (nobody), asks that user
# through sudo to sign the staged certificate into the store, as the admin
# guide's mod_md section sets up (TACK_SIGN_WRITES_STORE, TackStoreOwner).
$> == 0 or BAIL_OUT('t/acme/md-hook.t needs root (a signing user and sudo)');
-x '/usr/bin/sudo' or BAIL_OUT('sudo is not installed: run make deps');
my $signer = 'mod-tack-md-test';
unless (getpwnam($signer)) {
    system('useradd', '--system', '--no-create-home', '--shell',
           '/usr/sbin/nologin', $signer) == 0 or BAIL_OUT("useradd $signer failed");
}
my $sudoers = '/etc/sudoers.d/mod-tack-md-test';
END {
    unlink $sudoers if defined $sudoers;
    system('userdel', $signer) if defined $signer && getpwnam($signer);
}
my ($suid, $sgid) = (getpwnam($signer))[2, 3];
chown $suid, $sgid, $store, $keydir, "$keydir/tack.key", "$keydir/password"
    or die "chown: $!";
my $sign = top() . "/tack sign -k $keydir/tack.key --password-file $keydir/password"
    . " -e 45d -c - -o $store/ --force";
# The sudoers rule is the one the admin guide printed until 0.1.1, word for
# word, with this test's user names and paths: its arguments an anchored
# regular expression that ends with the file name, so that nothing can be
# appended.
my $rule = 'www-data ALL=(tack) NOPASSWD: /usr/local/bin/tack ^sign -k /var/lib/tack/www[.]key --password-file /var/lib/tack/password -e 45d -c - -o /etc/apache2/tack/md/ --force --name [A-Za-z0-9_][A-Za-z0-9_.-]*[.]tack[.]pem$';
unlike(slurp(top() . '/docs/admin-guide.md'), qr/^www-data ALL=/m,
       'the admin guide no longer sets up a sudo rule for the child user');
sub sudo_re { (my $p = $_[0]) =~ s/\./[.]/g; $p }
my %path = ('www-data ALL=(tack)' => "nobody ALL=($signer)",
            '/usr/local/bin/tack ' => top() . '/tack ',
            '/var/lib/tack/www[.]key' => sudo_re("$keydir/tack.key"),
            '/var/lib/tack/password' => sudo_re("$keydir/password"),
            '/etc/apache2/tack/md/' => sudo_re("$store/"));
for my $from (sort keys %path) {
    $rule =~ s/\Q$from\E/$path{$from}/ or BAIL_OUT("the guide's sudoers rule has no '$from'");
}
write_file($sudoers, "$rule\n");
chmod 0440, $sudoers;
($rc, $out, $err) = run('visudo', '-c', '-f', $sudoers);
is($rc, 0, "visudo accepts the guide's sudoers rule") or diag($out, $err);
write_file("$d/md-hook.conf", <<"C");
TACK=@{[ top() ]}/tack
MD_STORE=$d/md
TACK_STORE=$store
TACK_HOOK_LOG=$store/../hook.log
TACK_SIGN_WRITES_STORE=yes
TACK_SIGN_COMMAND="sudo -n -u $signer $sign"
C
chmod 0644, "$d/md-hook.conf";
write_file("$d/hook.log", '');
chmod 0666, "$d/hook.log";

# Reasons the hook does not handle: exit 0 whatever the configuration
# (a non-zero exit at `renewing` would stop the renewal).
write_file("$d/broken.conf", "exit 3\n");
for my $reason ('renewing', 'challenge-setup:http-01:md.tack.test',
                'installed', 'expiring', 'errored') {
    ($rc) = run($hook, "$d/broken.conf", $reason, $name);
    is($rc, 0, "the hook exits 0 at '$reason', without reading its configuration");
}
($rc, $out, $err) = run($hook, "$d/md-hook.conf", 'renewed', 'none.tack.test');
is($rc, 1, "'renewed' with nothing staged: exit 1");
like($err, qr/tack-md-hook: no staged certificate in \S+staging\/none\.tack\.test/,
     '... and says so');

my $h = TackTest::Httpd->new('acme-md');
my $http = Pebble::free_port();
$h->write_conf(md_conf($pebble, store => "$d/md", http => $http,
                       https => $h->port, renew => 1,
                       extra => "MDMessageCmd $hook $d/md-hook.conf\n")
    . <<"C", loglevel => 'info tack:info ssl:warn md:info');
Listen 127.0.0.1:$http
TackStore $store
TackStoreOwner $signer
TackPinActivation on
MDomain $name
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName $name
    SSLEngine on
</VirtualHost>
C

my $tackfile;    # the staged certificate's store file (wait_signed)
my $staged = "$d/md/staging/$name/pubcert.secp256r1.pem";

# wait_signed($old): the store holds a TACK for the staged certificate
# other than $old (the previous target hash); returns its target hash.
sub wait_signed {
    my ($old) = @_;
    return TackHelpers::wait_until(30, sub {
        return 0 unless -f $staged;
        my $key = key_sha256($staged) or return 0;
        $tackfile = "$store/" . store_name($staged, $name);
        return 0 unless -f $tackfile;
        my ($rc, $out) = tack('view', $tackfile);
        return 0 unless $out =~ /^target_hash\s+= ([0-9a-f]{64})$/m;
        return $1 eq $key && (!$old || $1 ne $old) ? $1 : 0;
    }, 0.2);
}

my $port = $h->port;
my $pins = "$d/pins.json";
sub check_at {
    my ($days) = @_;
    return tack('check', "127.0.0.1:$port", '--servername', $name,
                '--pins', $pins, '--now', "+${days}d");
}

my $t0 = time;
($rc, $out) = $h->start;
is($rc, 0, 'apache2 with mod_md started') or diag($out);
my $key = wait_signed();
ok($key, 'mod_md obtained a certificate; the hook signed a TACK for it')
    or diag(log_since(0, $h->error_log), $pebble->log_text);
is((stat $tackfile)[2] & 07777, 0644, '... mode 0644');
is(tack_id($tackfile), $id, '... by our TACK key');
is((getpwuid((stat $tackfile)[4]))[0], $signer,
   '... written by the signing user through sudo, not by the child user');

like(slurp("$d/hook.log"), qr/^\S+Z tack-md-hook: signed \Q$tackfile\E for \Q$staged\E$/m,
     '... and said so in TACK_HOOK_LOG');
like(slurp("$d/hook.log"), qr/^\S+Z tack-md-hook: warning: this hook is retired .*move to TackSigningKey and remove any \/etc\/sudoers.d rule for it.*Security note: the retired mod_md hook behind sudo/m,
     '... with a warning that the route is retired, and where the guide says how to move');

# What the rule let the child user do, one word holding several: each is
# refused by the tool now (exit 2, naming the value), with the store, the
# signing user's directory and the signer's answers unchanged.
{
    my @nobody = ('setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups');
    my $tool = top() . '/tack';
    my $victim = (split m{/}, $tackfile)[-1];
    my $victim_text = slurp($tackfile);
    my @store_before = sort glob("$store/*");
    my @keydir_before = sort glob("$keydir/*");
    # The caller's working directory, where the relative paths lead.
    my $cwd = "$d/caller";
    mkdir $cwd or die "$cwd: $!";
    chown((getpwnam('nobody'))[2], (getgrnam('nogroup'))[2], $cwd) or die "chown: $!";
    chmod 0755, $cwd;
    my $mkpath = sub { system('mkdir', '-p', $_[0]) == 0 or die "mkdir -p $_[0]" };
    my $sq = sub { (my $w = $_[0]) =~ s/'/'\\''/g; "'$w'" };

    # (a) "-k KEY --password-file PW" and "-c -" each one word: the key
    # and the certificate are the caller's (" /...key --password-file
    # /...password" and " -", relative), and with no --password-file left
    # the tool asked on the caller's terminal, which answered.  Before:
    # the vhost's store file replaced by a TACK under the caller's key.
    my $evil = "$cwd/ $keydir/tack.key --password-file $keydir/password";
    $mkpath->(substr($evil, 0, rindex($evil, '/')));
    ($rc, $out, $err) = tack('genkey', '-o', $evil, '-p', 'evil');
    is($rc, 0, "(a) the caller's own TACK key, at the relative path one word gives") or diag($err);
    chmod 0644, $evil;
    system('cp', $staged, "$cwd/ -") == 0 or die;
    chmod 0644, "$cwd/ -";
    my $cmd = join(' ', map { $sq->($_) } @nobody, 'sudo', '-n', '-u', $signer, $tool,
                   'sign', "-k $keydir/tack.key --password-file $keydir/password",
                   '-e', '45d', '-c -', '-o', "$store/", '--force', '--name', $victim);
    # script(1) gives the command a terminal and types the password.
    ($rc, $out) = run({ cwd => $cwd },
        'sh', '-c', "(sleep 1; printf 'evil\\n'; sleep 1) | script -qec "
                    . $sq->("$cmd; echo EXIT=\$?") . ' /dev/null');
    like($out, qr/EXIT=2/, '(a) -k and -c - merged into words, a terminal at hand: exit 2');
    like($out, qr/tack sign: -k " \Q$keydir\E\/tack\.key --password-file [^"]*": a value that begins or ends with white space is refused/,
         '... the -k value refused, named');
    unlike($out, qr/Password for/, '... before any password prompt');
    is(slurp($tackfile), $victim_text, "... and the vhost's TACK in the store is unchanged");

    # (b) "-o STORE/" one word: " STORE/", relative, a link in the
    # caller's directory to a directory the signing user may write (its
    # own, beside the key).  Before: a TACK written there.
    $mkpath->("$cwd/ " . substr($store, 0, rindex($store, '/')));
    symlink($keydir, "$cwd/ $store") or die "symlink: $!";
    ($rc, $out, $err) = run({ stdin => slurp($staged), cwd => $cwd }, @nobody, 'sudo', '-n',
        '-u', $signer, $tool, 'sign', '-k', "$keydir/tack.key", '--password-file',
        "$keydir/password", '-e', '45d', '-c', '-', "-o $store/", '--force', '--name',
        'planted.tack.pem');
    is($rc, 2, '(b) -o merged into a word, leading through a link of the caller: exit 2');
    like($err, qr/tack sign: -o " \Q$store\E\/": a value that begins or ends with white space is refused/,
         '... the -o value refused, named');
    is_deeply([sort glob("$keydir/*")], \@keydir_before,
              "... nothing written into the signing user's directory");

    # (c) "-c -" one word, " -" a link to a path the caller may not see:
    # before, the error told whether it exists and what it is.  Now the
    # answer is the same whatever is there.
    unlink "$cwd/ -";
    my @probe;
    for my $target ("$keydir/password", "$keydir/none") {
        unlink "$cwd/ -";
        symlink($target, "$cwd/ -") or die "symlink: $!";
        ($rc, $out, $err) = run({ stdin => '', cwd => $cwd }, @nobody, 'sudo', '-n',
            '-u', $signer, $tool, 'sign', '-k', "$keydir/tack.key", '--password-file',
            "$keydir/password", '-e', '45d', '-c -', '-o', "$store/", '--force',
            '--name', 'probe.tack.pem');
        # (sudo's own warnings, such as a host name it cannot resolve in
        # a bare tree, are the same in both and not the tool's answer)
        $err =~ s/^sudo: unable to resolve host [^\n]*\n//mg;
        push @probe, "$rc $err";
    }
    like($probe[0], qr/^2 tack sign: -c " -": a value that begins or ends with white space is refused/,
         '(c) -c - merged into a word: exit 2, the value refused');
    is($probe[1], $probe[0], '... the same answer for a path that exists and one that does not');
    is_deeply([sort glob("$store/*")], \@store_before, '... and through (a) to (c) the store is unchanged');

    # What the rule held, and still holds: sudo refuses each of these
    # (the anchored expression does not match), the store unchanged.
    my @sign = split(' ', $sign);
    my @held = (
        ['--name=x.tack.pem'   => [@sign, '--name=x.tack.pem']],
        ['a glued short option' => [map({ $_ eq '-k' ? () : $_ eq "$keydir/tack.key" ? "-k$_" : $_ } @sign), '--name', 'x.tack.pem']],
        ['--'                  => [@sign, '--', '--name', 'x.tack.pem']],
        ['a newline in the name' => [@sign, '--name', "x\ny.tack.pem"]],
        ['a tab in the name'   => [@sign, '--name', "x\ty.tack.pem"]],
        ['a word after the name' => [@sign, '--name', 'x.tack.pem', '-m', '255']],
    );
    for my $h (@held) {
        ($rc, $out, $err) = run({ stdin => slurp($staged) }, @nobody, 'sudo', '-n', '-u',
                                $signer, @{ $h->[1] });
        ok($rc != 0 && $err =~ /sudo: a password is required/,
           "held by sudo: $h->[0]") or diag("$rc $err");
    }
    # A name the expression lets through but no file system takes: refused.
    ($rc, $out, $err) = run({ stdin => slurp($staged) }, @nobody, 'sudo', '-n', '-u',
                            $signer, @sign, '--name', ('a' x 300) . '.tack.pem');
    isnt($rc, 0, 'held: a 309-character name is refused') or diag($err);
    is_deeply([sort glob("$store/*")], \@store_before, '... the store unchanged');
    # A name that is a symbolic link in the store: the link is replaced by
    # the TACK, what it pointed to is untouched.
    write_file("$d/target.pem", "not a TACK\n");
    symlink("$d/target.pem", "$store/link.tack.pem") or die "symlink: $!";
    ($rc, $out, $err) = run({ stdin => slurp($staged) }, @nobody, 'sudo', '-n', '-u',
                            $signer, @sign, '--name', 'link.tack.pem');
    is($rc, 0, 'held: a name that is a link in the store is signed') or diag($err);
    ok(!-l "$store/link.tack.pem" && -f _, '... the link replaced by a file');
    is(slurp("$d/target.pem"), "not a TACK\n", '... its target untouched');
    unlink "$store/link.tack.pem";
}

# What the child user could do with a `--name *` rule (a `*` in sudoers
# matches spaces too): append options after the name, a TACK at
# min_generation 255 (options the fixed line does not give, so the tool's
# own refusal of a repeated option cannot help).  The guide's rule is
# anchored at the name: sudo refuses, and the store is unchanged.
{
    my @store_before = sort glob("$store/*");
    my @nobody = ('setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups');
    my @sudo = ('sudo', '-n', '-u', $signer, split(' ', $sign));
    ($rc, $out, $err) = run({ stdin => slurp($staged) }, @nobody, @sudo,
                            '--name', 'evil.tack.pem', '-m', '255', '-g', '255');
    isnt($rc, 0, 'through sudo, options appended after --name NAME are refused');
    like($err, qr/sudo: a password is required/, '... by sudo (the rule does not match)');
    ($rc, $out, $err) = run({ stdin => slurp($staged) }, @nobody, @sudo,
                            '--name', 'evil.tack.pem -m 255');
    isnt($rc, 0, '... so is a name with a space in it');
    is_deeply([sort glob("$store/*")], \@store_before, '... and the store is unchanged');
}

my $mark = log_mark($h->error_log);
ok($h->graceful, 'graceful restart: mod_md activates the certificate');
like(log_since($mark, $h->error_log), qr/AH10068: \Q$name\E: staged set activated/,
     '... mod_md says so');
($rc, $out, $err) = check_at(0);
is($rc, 0, 'first check: accepted, pinned') or diag($out, $err);
like($out, qr/^key_sha256\s+= $key$/m, '... the certificate from pebble');
($rc, $out, $err) = check_at(10);
is($rc, 0, 'ten days later: accepted') or diag($out, $err);
like($out, qr/activated until/, '... and the pin is active');

my %seen = ($key => 1);
my $day = 11;
for my $n (1, 2) {
    # The graceful restart began a renewal (the window is 1900 days).
    my $new = wait_signed($key);
    ok($new, "renewal $n: the hook signed a TACK for the staged certificate")
        or diag(log_since($mark, $h->error_log));
    ok($new && !$seen{$new}++, '... a new key');
    is(tack_id($tackfile), $id, '... the TACK key is unchanged');
    ($rc, $out, $err) = check_at($day++);
    is($rc, 0, '... until the restart the old certificate is served, and accepted')
        or diag($out, $err);
    like($out, qr/^key_sha256\s+= $key$/m, '... with its old key');
    $mark = log_mark($h->error_log);
    ok($h->graceful, '... graceful restart');
    like(log_since($mark, $h->error_log), qr/AH10068: \Q$name\E: staged set activated/,
         '... the renewed certificate activated');
    ($rc, $out, $err) = check_at($day++);
    is($rc, 0, '... the pinned client accepts the name') or diag($out, $err);
    like($out, qr/^key_sha256\s+= \Q$new\E$/m, '... served with the new key');
    like($out, qr/^result\s+= accepted$/m, '... result accepted');
    $key = $new;
}
my $secs = time - $t0;

# mod_md's own warning before it has any certificate: the vhost answers
# 503 until the first one is activated.
log_clean(0, [qr/AH10085: Init: \Q$name\E:\d+ will respond with '503 Service Unavailable' for now/,
              qr/TACK00074: vhost \Q$name\E:\d+: ECDSA certificate \/CN=Apache Managed Domain Fallback/],
          $h->error_log);
$h->stop;
ok($secs < 60, "obtained and renewed twice within 60 s ($secs s)");
