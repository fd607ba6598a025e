# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The shell blocks of docs/admin-guide.md and docs/hosting-guide.md, as
# written, on private paths (issue 17, item 2).  Every block is either run
# here, in document order, in one sandbox (/etc/apache2, /etc/ssl, /root,
# /srv, /secure, /usr/local under a temporary root, holding only what a
# Debian server has: a guide makes the rest itself; apache2ctl a stub that
# records its arguments, ssh one that runs the command here, as if this
# sandbox were each web server) or listed below with the reason it cannot
# run here; a block that is neither fails the test, so a new block needs a
# decision.  The hosting guide's monitoring commands run after the others,
# as written, against a private httpd with mod_tack serving the status
# page over TLS with an internal CA's certificate (curl's connect-to, from
# a .curlrc in the sandbox, takes web1.example.net:443 there): with a
# certificate missing from the store, a TACK expiring soon, all well, and
# no server (issue "Operations, round two", items 1 and 2).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

# Every block, by guide, first line and the number of lines after it:
# '' means run here, anything else is the reason it is not.
my $sys = 'changes the real system';
my %plan = (
    'admin-guide.md: apt-get install -y make        # if make itself is missing (+3)' =>
        "$sys: packages, make install (t/install/install.t runs make install)",
    'admin-guide.md: make package (+1)' =>
        "$sys: build dependencies, packages (make package-cycle installs and purges them)",
    'admin-guide.md: make uninstall KEEP_SITES=1     # the module, tool, man page, hooks and docs; not your sites (+2)' =>
        "$sys: make uninstall, packages (t/package/cycle.t runs these steps)",
    'admin-guide.md: a2enmod tack                   # also enables ssl, which it depends on (+2)' =>
        "$sys: /etc/apache2 and its server (install.t runs it on a private instance)",
    'admin-guide.md: openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 90 \\ (+4)' => '',
    'admin-guide.md: mkdir -m 700 /root/tack (+1)' => '',
    'admin-guide.md: mkdir -p /etc/apache2/tack (+4)' => '',
    'admin-guide.md: apache2ctl configtest && apache2ctl graceful' => '',
    "admin-guide.md: curl -fsS --resolve www.example.org:443:127.0.0.1 'https://www.example.org/tack-status?json'" =>
        "connects to the server's own status page (the hosting guide's are run below)",
    'admin-guide.md: tack check www.example.org' => 'connects to www.example.org (t/tool/03, 06 check private servers)',
    'admin-guide.md: tack check --all-addresses www.example.org' => 'connects to www.example.org (09-fleet-check.t)',
    'admin-guide.md: tack check --all-addresses www.example.org \\ (+3)' =>
        'connects to 192.0.2.10, .11, 2001:db8::10 (09-fleet-check.t: --resolve on 127.0.0.x)',
    'admin-guide.md: tack check --all-addresses www.example.org > /dev/null && echo "ready for activation"' =>
        'connects to www.example.org',
    'admin-guide.md: apache2ctl configtest && apache2ctl graceful (+1)' =>
        'the check after the reload connects to www.example.org',
    "admin-guide.md: cat > /root/tack/preload-hosts <<'EOF' (+7)" =>
        'connects to 192.0.2.10 and .20 (10-preload.t builds from private servers)',
    'admin-guide.md: #!/bin/sh (+13)' => 'the renewal script: install.t runs it as cron does, against a real httpd',
    "admin-guide.md: install -m 600 /dev/null /root/tack/password && editor /root/tack/password   # the key's password, one line" => '',
    'admin-guide.md: chmod 700 /usr/local/sbin/tack-renew (+2)' =>
        "$sys: /etc/cron.d, an editor, and connects to www.example.org",
    'admin-guide.md: tack sign -k /root/tack/www.key -c /etc/ssl/certs/www.example.org.new.crt \\ (+4)' => '',
    'admin-guide.md: tack view /etc/apache2/tack/www.example.org.tack.pem   # say generation 0 (+3)' => '',
    'admin-guide.md: tack break -k /root/tack/www.key -o /etc/apache2/tack/breaksigs.pem' => '',
    'admin-guide.md: tack genkey -o /root/tack/www2.key --password-file /root/tack/password (+3)' => '',
    "admin-guide.md: cat > /etc/apache2/sites-available/www.example.org.conf <<'SITE' (+9)" => '',
    'admin-guide.md: make uninstall        # a2dismod tack if enabled, then removes every installed file (+1)' =>
        "$sys (install.t)",
    'admin-guide.md: cp -p /var/lib/apache2/tack/state.json /root/tack/state.json        # before apt purge (+1)' =>
        "$sys: the module's state in /var/lib/apache2 (t/package/ purges and checks it)",
    'admin-guide.md: # /etc/tack/hook.conf -- read by tack-certbot-hook, as root (+6)' =>
        'a configuration file, not commands (t/acme/certbot.t writes one)',
    'admin-guide.md: install -d -m 755 /etc/tack /etc/apache2/tack/store (+8)' =>
        "runs certbot against Let's Encrypt (t/acme/certbot.t: against pebble)",
    'admin-guide.md: install -m 600 /var/lib/tack/www.key /etc/apache2/tack/tack.key (+3)' =>
        "moves a site off the retired mod_md hook: it needs that route's files (t/acme/md-hook.t keeps such a site)",
    'admin-guide.md: a2dismod ssl socache_shmcb    # socache_shmcb: unless another module uses it (+1)' =>
        "$sys: /etc/apache2 after a purge (t/package/cycle.t purges)",
    'admin-guide.md: install -m 600 /root/tack/www.key /etc/apache2/tack/tack.key (+2)' => '',
    'hosting-guide.md: install -d -m 700 /secure                           # once: root\'s alone (+4)' => '',
    'hosting-guide.md: for host in web1 web2; do (+7)' => '',
    'hosting-guide.md: tack break -k /secure/fleet.key --password-file /secure/fleet.pw -o /srv/breaksigs.pem (+4)' => '',
    'hosting-guide.md: apt-get install -y p11-kit softhsm2 opensc (+9)' =>
        "$sys: packages, a user, a token under /var/lib (t/apache/fleet.t makes a token and its key so, in a directory of its own)",
    'hosting-guide.md: systemctl daemon-reload && systemctl enable --now tack-p11-kit' =>
        "$sys: a systemd service (t/apache/fleet.t runs its p11-kit server command on a private socket)",
    'hosting-guide.md: apt-get install -y p11-kit-modules (+4)' =>
        "$sys: packages, /etc/apache2/envvars (t/apache/fleet.t gives its httpds P11_KIT_SERVER_ADDRESS)",
    'hosting-guide.md: P11_KIT_SERVER_ADDRESS=unix:path=/run/tack/p11.sock \\ (+2)' =>
        'needs the signing host (t/apache/fleet.t signs through p11-kit-client.so; t/tool/12-pkcs11.t runs tack through it)',
    "hosting-guide.md: url='https://web1.example.net/tack-status?json'  # quoted: ? is a pattern to the shell (+13)" =>
        'later: against a private httpd, below',
    'hosting-guide.md: mkdir -p /usr/local/lib/nagios/plugins (+31)' => '',
    "hosting-guide.md: /usr/local/lib/nagios/plugins/check_tack_status 'https://web1.example.net/tack-status?json' /etc/ssl/certs/internal-ca.pem" =>
        'later: against a private httpd, below',
);

my $root = tmp() . '/root';
# blocks_in(DIR): the shell blocks of DIR's two guides, in order.
sub blocks_in {
    my ($dir) = @_;
    my @found;
    for my $guide (qw(admin-guide.md hosting-guide.md)) {
        my $text = slurp("$dir/$guide");
        # Blocks inside list items are indented: found too, de-indented.
        while ($text =~ /^( *)```sh\n(.*?)^\1```$/msg) {
            my ($indent, $body) = ($1, $2);
            $body =~ s/^\Q$indent\E//mg;
            my ($first) = $body =~ /^(.*)$/m;
            my $more = ($body =~ tr/\n//) - 1;
            push @found, { guide => $guide, body => $body,
                           id => "$guide: $first" . ($more ? " (+$more)" : '') };
        }
    }
    return @found;
}
my @blocks = blocks_in(top() . '/docs');
# Two blocks may share a key (sections 8 and 12 both reload, then check
# out over the network): they share the decision.
my %ids = map { $_->{id} => 1 } @blocks;
ok(!grep({ !$ids{$_} } keys %plan), 'every block of the plan is in the guides')
    or diag(join "\n", grep { !$ids{$_} } keys %plan);
ok(@blocks >= 20, scalar(@blocks) . ' shell blocks in the guides');

# The sandbox: what the guides assume exists on the server, made by
# sandbox(ROOT) (the certificates come from here, made once).
my ($crt) = mkcert('www', 'www.example.org', 90);
my ($new) = mkcert('www-new', 'www.example.org', 90);
my (%store_file, %fleet_key, %fleet_crt);
for my $n (qw(a.example.org b.example.org)) {
    my ($c, $k) = mkcert("fleet-$n", $n, 90);
    $fleet_crt{$n} = $c;
    $store_file{$n} = store_name($c, $n);
    $fleet_key{$n} = $k;
}
# The monitoring: web1.example.net's certificate from an internal CA, in
# the fleet (so signed into the store), the CA where the guide says.
my $t = tmp();
sub openssl {
    my ($rc, $o, $e) = run3('openssl', @_);
    die "openssl @_: $e" if $rc;
}
openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
        '-nodes', '-keyout', "$t/ca.key", '-out', "$t/ca.crt",
        '-subj', '/CN=Example Internal CA', '-days', 30,
        '-addext', 'basicConstraints=critical,CA:TRUE',
        '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
        '-nodes', '-keyout', "$t/web1.key", '-out', "$t/web1.csr",
        '-subj', '/CN=web1.example.net');
write_file("$t/web1.ext", "basicConstraints=critical,CA:FALSE\n"
                  . "subjectAltName=DNS:web1.example.net\n");
openssl('x509', '-req', '-in', "$t/web1.csr", '-CA', "$t/ca.crt",
        '-CAkey', "$t/ca.key", '-CAcreateserial', '-days', 30,
        '-extfile', "$t/web1.ext", '-out', "$t/web1.crt");
# c.example.org: a host whose certificate the fleet run never saw.
my ($c_crt, $c_key) = mkcert('fleet-c', 'c.example.org', 90);
(my $tackdir = $TACK) =~ s{/[^/]+$}{};

# sandbox(ROOT, PROG): a Debian server's file system under ROOT, holding
# only what such a server has: nothing a guide should make itself
# (/secure, password files, stores, sites); the tool as PROG (tack, or
# the package's tacktool); stand-ins for ssh, a2ensite, an editor and
# apache2ctl.
sub sandbox {
    my ($r, $prog) = @_;
    mkdir $r;
    for my $d (qw(etc etc/apache2 etc/apache2/sites-available etc/apache2/sites-enabled
                  etc/ssl etc/ssl/certs etc/ssl/private root srv srv/certs bin
                  usr usr/local var var/lib var/lib/apache2)) {
        mkdir "$r/$d";
    }
    system('cp', $crt, "$r/etc/ssl/certs/www.example.org.crt") == 0 or die;
    system('cp', $new, "$r/etc/ssl/certs/www.example.org.new.crt") == 0 or die;
    for my $n (sort keys %fleet_crt) {
        system('cp', $fleet_crt{$n}, "$r/srv/certs/$n.crt") == 0 or die;
    }
    system('cp', "$t/web1.crt", "$r/srv/certs/web1.example.net.crt") == 0 or die;
    system('cp', "$t/ca.crt", "$r/etc/ssl/certs/internal-ca.pem") == 0 or die;
    write_file("$r/bin/ssh", "#!/bin/sh\necho \"\$1\" >> $r/ssh.log\nshift\nexec sh -c \"\$*\"\n");
    chmod 0755, "$r/bin/ssh";
    # a2ensite SITE: Debian's, on the sandbox's /etc/apache2.
    write_file("$r/bin/a2ensite", "#!/bin/sh\nln -s ../sites-available/\$1.conf $r/etc/apache2/sites-enabled/\$1.conf\n");
    chmod 0755, "$r/bin/a2ensite";
    # editor FILE: the administrator types the password the test gives.
    write_file("$r/bin/editor", "#!/bin/sh\nprintf '%s\\n' \"\$TACK_PASSWORD\" > \"\$1\"\n");
    chmod 0755, "$r/bin/editor";
    write_file("$r/bin/apache2ctl", "#!/bin/sh\necho \"\$*\" >> $r/apache2ctl.log\n");
    chmod 0755, "$r/bin/apache2ctl";
    symlink($TACK, "$r/bin/$prog") or die "symlink: $!"
        unless $prog eq 'tack' && $TACK =~ m{/tack$};
}

sub rewrite {
    my ($body, $r) = @_;
    $r //= $root;
    $body =~ s{(^|[\s'"=])/(etc|root|srv|secure|usr/local|var/lib/apache2)\b}{$1$r/$2}g;
    return $body;
}

# run_block(BLOCK, ROOT): the block as written, on the sandbox's paths,
# with sh -e; returns (exit status, stdout, stderr).
sub run_block {
    my ($b, $r) = @_;
    $r //= $root;
    return run3(
        { env => { PATH => "$r/bin:" . ($TACK =~ m{/tack$} ? $tackdir : '')
                       . ":/usr/bin:/bin",
                   CURL_HOME => "$r/root",
                   TACK_PASSWORD => $b->{body} =~ /fleet/ ? 'fleet-password'
                                                          : 'guide-password' } },
        'sh', '-e', '-c', "cd $r && " . rewrite($b->{body}, $r));
}

# walk(COPY, ROOT, BLOCKS): every block the plan runs, in document order,
# in one sandbox; BLOCKS' ids are the source copy's (the package's copy
# differs in words, not in blocks).  Returns the number run.
sub walk {
    my ($copy, $r, @list) = @_;
    my $n = 0;
    for my $b (@list) {
        if (!exists $plan{$b->{id}}) {
            # Never run a block nobody looked at: it may change the system.
            fail("$copy copy: a new block, neither run nor listed: $b->{id}");
            next;
        }
        next if $plan{$b->{id}} =~ /^later: / || $plan{$b->{id}} ne '';
        my ($rc, $out, $err) = run_block($b, $r);
        is($rc, 0, "$copy copy: ran as written: $b->{id}")
            or diag(rewrite($b->{body}, $r) . "\n$out$err");
        $n++;
    }
    return $n;
}

sandbox($root, 'tack');
my %later;
for my $b (@blocks) {
    if (exists $plan{$b->{id}} && $plan{$b->{id}} =~ /^later: /) {
        $later{$b->{id}} = $b;
    } elsif (exists $plan{$b->{id}} && $plan{$b->{id}} ne '') {
        pass("not run: $b->{id}: $plan{$b->{id}}");
    }
}
my $ran = walk('source', $root, @blocks);
ok($ran >= 6, "$ran blocks run");

# What the runs left, as the guides say.
{
    # The test certificate: P-256, CA:FALSE (no AH01906), the site's name.
    my ($rc, $out) = run3('openssl', 'x509', '-noout', '-text', '-in',
                             "$root/etc/ssl/certs/www.example.org.crt");
    like($out, qr/CA:FALSE/, 'admin guide: the test certificate says CA:FALSE');
    like($out, qr/DNS:www\.example\.org/, '... names www.example.org');
    like($out, qr/prime256v1|P-256/, '... a P-256 key');
    ok(-f "$root/etc/ssl/private/www.example.org.key", '... and its key');
}
ok(-f "$root/root/tack/www.key", 'admin guide: the TACK key');
ok(-l "$root/etc/apache2/sites-enabled/www.example.org.conf"
   && slurp("$root/etc/apache2/sites-available/www.example.org.conf") =~ /^\s*TackFile \S*\/etc\/apache2\/tack\/www\.example\.org\.tack\.pem$/m,
   'admin guide section 5: the test machine\'s site, made and enabled');
ok(-f "$root/root/tack/www2.key", 'admin guide section 12: the new key, under section 9\'s password file');
ok(-f "$root/etc/apache2/tack/tack.key" && -f "$root/etc/apache2/tack/tack.pw"
   && -d "$root/var/lib/apache2/tack/store",
   'admin guide section 15: TackSigningKey\'s key, password file and store, made by its recipe');
ok(-f "$root/etc/apache2/tack/www.example.org.tack.pem", 'admin guide: the TACK');
ok(-f "$root/etc/apache2/tack/breaksigs.pem", 'admin guide: the break signature');
ok(-f "$root/srv/tack-store/$store_file{$_}",
   "hosting guide: $_ signed into the new store as $store_file{$_}")
    for qw(a.example.org b.example.org);
ok(-f "$root/srv/breaksigs.pem", 'hosting guide: the fleet break signature');
like(slurp("$root/apache2ctl.log"), qr/^configtest$/m, 'apache2ctl configtest was asked');
is(slurp("$root/ssh.log"), "web1\nweb2\n", 'hosting guide: the store copied to web1 and web2');
is(join(' ', sort map { s{.*/}{}r } glob("$root/etc/apache2/tack/store/*")),
   join(' ', sort(values(%store_file), store_name("$t/web1.crt", 'web1.example.net'))),
   '... a copy of the fleet store, in place');
ok(!-e "$root/etc/apache2/tack/store.new" && -d "$root/etc/apache2/tack/store.old",
   '... swapped with the one before');
ok(-x "$root/usr/local/lib/nagios/plugins/check_tack_status",
   'hosting guide: the Nagios check installed');

# ---- the monitoring commands against a private httpd
my ($queries) = grep { /: url=/ } keys %later;
my ($check) = grep { /check_tack_status '/ } keys %later;
ok($queries && $check, 'the monitoring blocks are found') or BAIL_OUT('no monitoring blocks');
{
my $so = top() . '/build/mod_tack.so';
BAIL_OUT("$so not built: run make module") unless -e $so;
BAIL_OUT('curl or jq not installed: run make deps')
    unless -x '/usr/bin/curl' && -x '/usr/bin/jq';
chmod(0755, $t);    # the server's children run as nobody
my $mods = '/usr/lib/apache2/modules';
my $store = "$root/etc/apache2/tack/store";
my $port = free_port(18460, 18469);
my $conf;
sub vhost {
    my ($name, $crt, $key, $extra) = @_;
    return "<VirtualHost 127.0.0.1:$port>\n    ServerName $name\n    SSLEngine on\n"
         . "    SSLCertificateFile $crt\n    SSLCertificateKeyFile $key\n"
         . ($extra // '') . "</VirtualHost>\n";
}
# serve(): (re)starts the server on the store as it is now.
sub serve {
    stop_httpd($conf) if $conf;
    $conf = start_httpd('guides', $port,
        "LoadModule tack_module $so\n"
      . "LoadModule authz_host_module $mods/mod_authz_host.so\n"
      . "TackStateFile $t/guides-state.json\n"
      . "TackStore $store\n"
      . vhost('web1.example.net', "$t/web1.crt", "$t/web1.key",
              "    <Location /tack-status>\n        SetHandler tack-status\n"
            . "        Require ip 127.0.0.1\n    </Location>\n")
      . vhost('a.example.org', "$root/srv/certs/a.example.org.crt", $fleet_key{'a.example.org'})
      . vhost('b.example.org', "$root/srv/certs/b.example.org.crt", $fleet_key{'b.example.org'})
      . vhost('c.example.org', $c_crt, $c_key));
    return $conf;
}
write_file("$root/root/.curlrc",
     "connect-to = web1.example.net:443:127.0.0.1:$port\nnoproxy = \"*\"\n");
my $name_c = qr/c\.example\.org:$port/;

ok(serve(), 'httpd serves the copied store, c.example.org missing from it')
    or diag($@);
my ($rc, $out, $err) = run_block($later{$check});
is($rc, 2, 'the check, c.example.org serving no TACK: CRITICAL (exit 2)')
    or diag($out, $err);
like($out, qr/^TACK CRITICAL: 4 vhosts, 1 errors, 0 expired, 0 expiring within 30 days: $name_c \(https:/,
     '... naming the host') or diag($out);
($rc, $out, $err) = run_block($later{$queries});
is($rc, 0, 'the jq queries run as written') or diag($out, $err);
like($out, qr/\A$name_c\n\{/, '... "hosts serving no TACK" lists c.example.org alone, nothing expires within 14 days')
    or diag($out);
like($out, qr/"requested": 0,\s+"served": 0/, '... adoption: the handshake counters');

is((run3($TACK, 'sign', '-k', "$root/secure/fleet.key", '-p', 'fleet-password',
            '-c', $c_crt, '-e', '10d', '-o', "$store/"))[0], 0,
   'c.example.org signed into the store for 10 days');
ok(serve(), '... and served');
($rc, $out, $err) = run_block($later{$check});
is($rc, 1, 'the check, a TACK expiring in 10 days: WARNING (exit 1)') or diag($out, $err);
like($out, qr/^TACK WARNING: 4 vhosts, 0 errors, 0 expired, 1 expiring within 30 days, the soonest $name_c on /,
     '... naming the host') or diag($out);
($rc, $out, $err) = run_block($later{$queries});
like($out, qr/\A(9|10)\t$name_c\t\Q$store\E\/c\.example\.org\.[^\n]*\.tack\.pem\n\{/,
     'the queries: no host without TACK; c.example.org expires within 14 days')
    or diag($out, $err);

run3($TACK, 'sign', '-k', "$root/secure/fleet.key", '-p', 'fleet-password',
        '-c', $c_crt, '-e', '45d', '-o', "$store/", '--force');
ok(serve(), 'c.example.org re-signed for 45 days and served');
($rc, $out, $err) = run_block($later{$check});
is($rc, 0, 'the check, all well: OK (exit 0)') or diag($out, $err);
like($out, qr/^TACK OK: 4 vhosts, 0 errors, 0 expired, 0 expiring within 30 days \(https:/,
     '... and says so') or diag($out);
($rc, $out, $err) = run_block($later{$queries});
like($out, qr/\A\{/, 'the queries: nothing listed') or diag($out, $err);

write_file("$store/broken.tack.pem", "-----BEGIN TACK-----\nAAAA\n-----END TACK-----\n");
ok(serve(), 'a malformed file in the store: the rest served (a start without -t)')
    or diag($@);
($rc, $out, $err) = run_block($later{$check});
is($rc, 2, 'the check, a malformed store file: CRITICAL (exit 2)') or diag($out, $err);
like($out, qr/^TACK CRITICAL: 4 vhosts, 1 errors, .*: \Q$store\E \(https:/,
     '... naming the store') or diag($out);
unlink("$store/broken.tack.pem");
ok(serve(), 'the store as it was');

# Not the page expected: the HTML page, a CA that did not issue the
# certificate (curl's exit 60), no server at all.
my $plugin = "$root/usr/local/lib/nagios/plugins/check_tack_status";
($rc, $out) = run3({ env => { CURL_HOME => "$root/root" } }, $plugin,
                      'https://web1.example.net/tack-status', "$root/etc/ssl/certs/internal-ca.pem");
is($rc, 3, 'the check on the HTML page: UNKNOWN (exit 3)');
like($out, qr/^TACK UNKNOWN: not a mod_tack status page/, '... and says so');
($rc, $out) = run3({ env => { CURL_HOME => "$root/root" } }, $plugin,
                      'https://web1.example.net/tack-status?json', '/etc/ssl/certs/ca-certificates.crt');
is($rc, 3, 'the check without the internal CA: UNKNOWN (exit 3)');
like($out, qr/^TACK UNKNOWN: .*SSL certificate problem/, '... saying why');
stop_httpd($conf);
($rc, $out, $err) = run_block($later{$check});
is($rc, 3, 'the check with no server: UNKNOWN (exit 3)') or diag($out, $err);
like($out, qr/^TACK UNKNOWN: https:\S+: curl: \(7\)/, '... curl\'s reason') or diag($out);
($rc, $out, $err) = run_block($later{$queries});
isnt($rc, 0, 'the queries with no server fail, not an empty all-clear');
is($out, '', '... printing nothing on stdout');
like($err, qr/curl: \(7\)/, '... and curl says why on stderr');
}

# ---- the package's copy, as the package installs it ---------------------------
# The same walk on the guides make install writes for the Debian package
# (the tool tacktool, /usr paths; debian/rules' MAKE_VARS), in a sandbox of
# their own: a recipe the rewrite breaks fails here.
{
    my $so = top() . '/build/mod_tack.so';
    my $dest = tmp() . '/package-copy';
    my ($rc, $out, $err) = run3({ env => { MAKEFLAGS => '' } }, 'make', '-s',
        '-C', top(), '-o', $so, '-o', $TACK, 'install', "TOOL_OUT=$TACK",
        "MODULE_SO=$so", "DESTDIR=$dest", 'TACK_PROG=tacktool', 'PREFIX=/usr',
        'DOCDIR=/usr/share/doc/libapache2-mod-tack', 'HOOKDIR=/usr/libexec/tacktool',
        'DOC_COPY=package');
    is($rc, 0, "make install of the package's copy") or diag($out, $err);
    my @pkg = blocks_in("$dest/usr/share/doc/libapache2-mod-tack");
    is(scalar(@pkg), scalar(@blocks), "the package's guides have the source's " . scalar(@blocks) . ' shell blocks');
    # each the source's block, its words rewritten: the source's decision
    $pkg[$_]{id} = $blocks[$_]{id} for 0 .. $#pkg;
    my $proot = tmp() . '/package-root';
    sandbox($proot, 'tacktool');
    my $n = walk('package', $proot, @pkg);
    is($n, $ran, "the package's copy: the same $ran blocks run");
    ok(-f "$proot/etc/apache2/tack/www.example.org.tack.pem" && -f "$proot/srv/tack-store/$store_file{'a.example.org'}",
       "... leaving the admin guide's TACK and the hosting guide's store");
}

done_testing();
