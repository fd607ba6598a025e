# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# certbot + pebble + hooks/tack-certbot-hook: a pinned name survives
# renewals with a new TLS key.
#
# certbot obtains an ECDSA certificate from a private pebble; its deploy
# hook signs a TACK into the TackStore of a private apache2 (pin activation
# on).  A client pins the TACK key and activates the pin; then two forced
# renewals, each with a new TLS key, each followed by the hook's graceful
# restart: the pinned client accepts the name after each.  A renewal with
# --reuse-key signs nothing.  Last, the control: without the TACK the
# pinned client refuses the name.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use AcmeTest;
BEGIN { need('pebble', 'certbot') }
use Test::More;
use TackTest qw(log_mark log_since log_clean);

plan tests => 55;

# dot_files($dir): how many names start with a dot (. and .. alone: 2).
sub dot_files {
    opendir my $dh, $_[0] or die "$_[0]: $!";
    return scalar grep { /^\./ } readdir $dh;
}

my $name = 'www.tack.test';
my $d = acme_tmp('certbot');
my $pebble = Pebble->start("$d/pebble");
my $store = "$d/store";
mkdir $store or die;
my $live = "$d/certbot/etc/live/$name";
my $hook = top() . '/hooks/tack-certbot-hook';

# The TACK key and the hook's configuration (root's, mode 0600).
write_file("$d/password", "acme-test\n");
my ($rc, $out, $err) = tack('genkey', '-o', "$d/tack.key",
                            '--password-file', "$d/password");
is($rc, 0, 'a TACK key') or diag($err);
my $id = ($err =~ /TACK ID (\S+)/)[0];
write_file("$d/hook.conf", <<"C");
TACK=@{[ top() ]}/tack
TACK_KEY=$d/tack.key
TACK_PASSWORD_FILE=$d/password
TACK_STORE=$store
TACK_SIGN_OPTIONS="-e 45d"
C
chmod 0600, "$d/hook.conf";

my $h = TackTest::Httpd->new('acme-certbot');
my $port = $h->port;
my $graceful = "/usr/sbin/apache2 -f " . $h->conf_file . " -k graceful";
my %env = (TACK_HOOK_CONF => "$d/hook.conf");

my @common = ('--key-type', 'ecdsa', '--deploy-hook', $hook);
my $t0 = time;
($rc, $out, $err) = certbot($pebble, $d, { %env, TACK_RELOAD_COMMAND => '' },
    'certonly', '--standalone', '--http-01-address', '127.0.0.1',
    '--http-01-port', Pebble::free_port(), '-d', $name, '--agree-tos',
    '-m', 'admin@tack.test', '--no-eff-email', @common);
is($rc, 0, 'certbot certonly from pebble') or diag($out, $err, $pebble->log_text);
my $tackfile = "$store/" . store_name("$live/cert.pem", $name);
like($out . $err, qr/tack-certbot-hook: signed \Q$tackfile\E for /,
     '... the deploy hook signed a TACK into the store, under the certificate\'s name');
unlike($err, qr/ran with error output/, '... and certbot reports no error output from it');
is((stat $tackfile)[2] & 07777, 0644, '... mode 0644');
is(tack_id($tackfile), $id, '... by our TACK key');
my $key1 = key_sha256("$live/cert.pem");
($rc, $out) = tack('view', $tackfile);
like($out, qr/^target_hash\s+= $key1$/m, "... for the certificate's key");
is(dot_files($store), 2,
   '... no temporary file left in the store');

$h->write_conf(<<"C", loglevel => 'info tack:info ssl:warn');
TackStore $store
TackPinActivation on
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName $name
    SSLEngine on
    SSLCertificateFile $live/fullchain.pem
    SSLCertificateKeyFile $live/privkey.pem
</VirtualHost>
C
($rc, $out) = $h->start;
is($rc, 0, 'apache2 with the certificate and the store started') or diag($out);

# The client pins the TACK key, and after 10 days the pin is active.
my $pins = "$d/pins.json";
sub check_at {
    my ($days) = @_;
    return tack('check', "127.0.0.1:$port", '--servername', $name,
                '--pins', $pins, '--now', "+${days}d");
}
($rc, $out, $err) = check_at(0);
is($rc, 0, 'first check: accepted, pinned') or diag($out, $err);
($rc, $out, $err) = check_at(10);
is($rc, 0, 'ten days later: accepted') or diag($out, $err);
like($out, qr/activated until/, '... and the pin is active');

# Two renewals, each with a new key; the hook signs and restarts.
my %seen = ($key1 => 1);
my $day = 11;
for my $n (1, 2) {
    my $mark = log_mark($h->error_log);
    ($rc, $out, $err) = certbot($pebble, $d,
        { %env, TACK_RELOAD_COMMAND => $graceful },
        'renew', '--force-renewal', '--no-random-sleep-on-renew', @common);
    is($rc, 0, "renewal $n") or diag($out, $err);
    like($out . $err, qr/tack-certbot-hook: signed /, '... the hook signed a TACK');
    unlike($err, qr/ran with error output/, '... quietly: no error output (Syntax OK included)');
    ok($h->wait_ready($mark), '... and restarted httpd gracefully');
    my $key = key_sha256("$live/cert.pem");
    ok($key && !$seen{$key}++, '... the certificate has a new key');
    $tackfile = "$store/" . store_name("$live/cert.pem", $name);
    ok(-f $tackfile, '... its TACK is in its own file of the store');
    ($rc, $out) = tack('view', $tackfile);
    like($out, qr/^target_hash\s+= $key$/m, '... the TACK in the store names it');
    is(tack_id($tackfile), $id, '... the TACK key is unchanged');
    ($rc, $out, $err) = check_at($day++);
    is($rc, 0, '... the pinned client accepts the name') or diag($out, $err);
    like($out, qr/^key_sha256\s+= $key$/m, '... served with the new key');
    like($out, qr/^result\s+= accepted$/m, '... result accepted');
}

# --reuse-key: a new certificate, the same key: nothing to sign.
my @before = (stat $tackfile)[1, 9];
my $bytes = slurp($tackfile);
my $serial = (run('openssl', 'x509', '-noout', '-serial', '-in', "$live/cert.pem"))[1];
my $key2 = key_sha256("$live/cert.pem");
sleep 1;    # an mtime that would change
my $mark = log_mark($h->error_log);
($rc, $out, $err) = certbot($pebble, $d,
    { %env, TACK_RELOAD_COMMAND => $graceful },
    'renew', '--force-renewal', '--reuse-key', '--no-random-sleep-on-renew',
    @common);
is($rc, 0, 'renewal with --reuse-key') or diag($out, $err);
like($out . $err, qr/tack-certbot-hook: \S+ matches \S+cert\.pem .*: kept/,
     '... the hook saw the TACK still matches');
unlike($err, qr/signed/, '... and signed nothing');
ok($h->wait_ready($mark), '... httpd restarted for the new certificate');
isnt((run('openssl', 'x509', '-noout', '-serial', '-in', "$live/cert.pem"))[1],
     $serial, '... a new certificate');
is(key_sha256("$live/cert.pem"), $key2, '... with the same key');
is_deeply([(stat $tackfile)[1, 9]], \@before, '... the TACK file untouched');
is(slurp($tackfile), $bytes, '... byte for byte');
($rc, $out, $err) = check_at($day++);
is($rc, 0, '... the pinned client accepts the name') or diag($out, $err);

# The hook refuses a configuration others can write, as root.
SKIP: {
    skip 'not root: the ownership check applies to root', 2 if $> != 0;
    chmod 0666, "$d/hook.conf";
    local $ENV{RENEWED_LINEAGE} = $live;
    ($rc, $out, $err) = run({ env => \%env }, $hook);
    is($rc, 1, 'a hook.conf writable by others: the hook fails');
    like($err, qr/hook\.conf: not owned by root, or writable by others/,
         '... and says why');
    chmod 0600, "$d/hook.conf";
}

# The control: a TACK that does not verify for the certificate is refused
# by the hook before httpd sees it.
{
    write_file("$d/other.conf", slurp("$d/hook.conf")
        . "TACK_SIGN_COMMAND='cat $d/stale.tack.pem'\n");
    chmod 0600, "$d/other.conf";
    ($rc, $out, $err) = tack('sign', '-k', "$d/tack.key", '--password-file',
        "$d/password", '-c', "$d/certbot/etc/archive/$name/cert1.pem",
        '-o', "$d/stale.tack.pem");
    is($rc, 0, 'a TACK for the first certificate (an old key)') or diag($err);
    unlink $tackfile;
    local $ENV{RENEWED_LINEAGE} = $live;
    ($rc, $out, $err) = run({ env => { TACK_HOOK_CONF => "$d/other.conf",
                                       TACK_RELOAD_COMMAND => 'false' } }, $hook);
    is($rc, 1, 'a signer that sends a TACK for another key: the hook fails')
        or diag($err);
    like($err, qr/the signed TACK does not verify against/, '... and says why');
    ok(!-e $tackfile, '... nothing written to the store');
    unlike($err, qr/false failed/, '... and httpd is not restarted');
    is(dot_files($store), 2,
       '... no temporary file left');
}

# Without its TACK the pinned client refuses the name: the pin is real.
$mark = log_mark($h->error_log);
$h->graceful;
($rc, $out, $err) = check_at($day++);
is($rc, 1, 'with no TACK in the store, the pinned client refuses the name');
like($err . $out, qr/access_denied/, '... access_denied');

log_clean(0, [qr/TACK00074: vhost www\.tack\.test/], $h->error_log);  # before the first certificate
$h->stop;
my $secs = time - $t0;
ok($secs < 90, "certbot and httpd part within 90 s ($secs s)");
