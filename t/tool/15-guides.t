# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The shell blocks of docs/admin-guide.md and docs/hosting-guide.md, as
# written, on private paths (issue 17, item 2).  Every block is either run
# here, in document order, in one sandbox (/etc/apache2, /etc/ssl, /root,
# /srv, /secure under a temporary root; apache2ctl a stub that records its
# arguments) or listed below with the reason it cannot run here; a block
# that is neither fails the test, so a new block needs a decision.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
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
    'admin-guide.md: a2enmod tack                   # also enables ssl, which it depends on (+2)' =>
        "$sys: /etc/apache2 and its server (install.t runs it on a private instance)",
    'admin-guide.md: mkdir -m 700 /root/tack (+1)' => '',
    'admin-guide.md: mkdir -p /etc/apache2/tack (+4)' => '',
    'admin-guide.md: apache2ctl configtest && apache2ctl graceful' => '',
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
    'admin-guide.md: #!/bin/sh (+11)' => 'the renewal script: install.t runs it as cron does, against a real httpd',
    'admin-guide.md: chmod 700 /usr/local/sbin/tack-renew (+3)' =>
        "$sys: /etc/cron.d, an editor, and connects to www.example.org",
    'admin-guide.md: tack sign -k /root/tack/www.key -c /etc/ssl/certs/www.example.org.new.crt \\ (+4)' => '',
    'admin-guide.md: tack view /etc/apache2/tack/www.example.org.tack.pem   # say generation 0 (+3)' => '',
    'admin-guide.md: tack break -k /root/tack/www.key -o /etc/apache2/tack/breaksigs.pem' => '',
    'admin-guide.md: tack genkey -o /root/tack/www2.key (+2)' => '',
    'admin-guide.md: make uninstall        # a2dismod tack if enabled, then removes every installed file (+1)' =>
        "$sys (install.t)",
    'admin-guide.md: # /etc/tack/hook.conf -- read by tack-certbot-hook, as root (+6)' =>
        'a configuration file, not commands (t/acme/certbot.t writes one)',
    'admin-guide.md: install -d -m 755 /etc/tack /etc/apache2/tack/store (+8)' =>
        "runs certbot against Let's Encrypt (t/acme/certbot.t: against pebble)",
    'admin-guide.md: apt-get install -y sudo (+9)' => "$sys: a user, sudoers (t/acme/md.t)",
    'admin-guide.md: # /etc/tack/md-hook.conf -- read by tack-md-hook as www-data; owned by root, mode 0644 (+5)' =>
        'a configuration file, not commands (t/acme/md.t writes one)',
    'hosting-guide.md: tack genkey -o /secure/fleet.key                    # once (+2)' => '',
    'hosting-guide.md: rsync -a --delete /srv/tack-store/ web1:/etc/apache2/tack/store/ (+1)' =>
        'copies to another machine over ssh',
    'hosting-guide.md: tack break -k /secure/fleet.key -o /srv/breaksigs.pem (+2)' => '',
    'hosting-guide.md: url=https://web1.example.net/tack-status?json (+13)' =>
        "fetches web1's status page (t/apache/status.t checks the JSON)",
);

my $root = tmp() . '/root';
my @blocks;
for my $guide (qw(admin-guide.md hosting-guide.md)) {
    my $text = slurp(top() . "/docs/$guide");
    # Blocks inside list items are indented: found too, de-indented.
    while ($text =~ /^( *)```sh\n(.*?)^\1```$/msg) {
        my ($indent, $body) = ($1, $2);
        $body =~ s/^\Q$indent\E//mg;
        my ($first) = $body =~ /^(.*)$/m;
        my $more = ($body =~ tr/\n//) - 1;
        push @blocks, { guide => $guide, body => $body,
                        id => "$guide: $first" . ($more ? " (+$more)" : '') };
    }
}
# Two blocks may share a key (sections 8 and 12 both reload, then check
# out over the network): they share the decision.
my %ids = map { $_->{id} => 1 } @blocks;
ok(!grep({ !$ids{$_} } keys %plan), 'every block of the plan is in the guides')
    or diag(join "\n", grep { !$ids{$_} } keys %plan);
ok(@blocks >= 20, scalar(@blocks) . ' shell blocks in the guides');

# The sandbox: what the guides assume exists on the server.
mkdir $root;
for my $d (qw(etc etc/apache2 etc/ssl etc/ssl/certs root srv srv/certs secure bin)) {
    mkdir "$root/$d";
}
my ($crt) = mkcert('www', 'www.example.org', 90);
system('cp', $crt, "$root/etc/ssl/certs/www.example.org.crt") == 0 or die;
my ($new) = mkcert('www-new', 'www.example.org', 90);
system('cp', $new, "$root/etc/ssl/certs/www.example.org.new.crt") == 0 or die;
for my $n (qw(a.example.org b.example.org)) {
    my ($c) = mkcert("fleet-$n", $n, 90);
    system('cp', $c, "$root/srv/certs/$n.crt") == 0 or die;
}
spew("$root/secure/fleet.pw", "fleet-password\n");
spew("$root/bin/apache2ctl", "#!/bin/sh\necho \"\$*\" >> $root/apache2ctl.log\n");
chmod 0755, "$root/bin/apache2ctl";
(my $tackdir = $TACK) =~ s{/[^/]+$}{};
symlink($TACK, "$root/bin/tack") or die unless $TACK =~ m{/tack$};

sub rewrite {
    my ($body) = @_;
    $body =~ s{(^|[\s'"=])/(etc|root|srv|secure)\b}{$1$root/$2}g;
    return $body;
}

my $ran = 0;
for my $b (@blocks) {
    if (!exists $plan{$b->{id}}) {
        # Never run a block nobody looked at: it may change the system.
        fail("a new block, neither run nor listed: $b->{id}");
        next;
    }
    if ($plan{$b->{id}} ne '') {
        pass("not run: $b->{id}: $plan{$b->{id}}");
        next;
    }
    my $script = rewrite($b->{body});
    my ($rc, $out, $err) = run_cmd(
        { env => { PATH => "$root/bin:" . ($TACK =~ m{/tack$} ? $tackdir : '')
                       . ":/usr/bin:/bin",
                   TACK_PASSWORD => $b->{body} =~ /fleet/ ? 'fleet-password'
                                                          : 'guide-password' } },
        'sh', '-e', '-c', "cd $root && $script");
    is($rc, 0, "ran as written: $b->{id}") or diag("$script\n$out$err");
    $ran++;
}
ok($ran >= 6, "$ran blocks run");

# What the runs left, as the guides say.
ok(-f "$root/root/tack/www.key", 'admin guide: the TACK key');
ok(-f "$root/etc/apache2/tack/www.example.org.tack.pem", 'admin guide: the TACK');
ok(-f "$root/etc/apache2/tack/breaksigs.pem", 'admin guide: the break signature');
ok(-f "$root/srv/tack-store/$_.tack.pem", "hosting guide: $_ signed into the new store")
    for qw(a.example.org b.example.org);
ok(-f "$root/srv/breaksigs.pem", 'hosting guide: the fleet break signature');
like(slurp("$root/apache2ctl.log"), qr/^configtest$/m, 'apache2ctl configtest was asked');

done_testing();
