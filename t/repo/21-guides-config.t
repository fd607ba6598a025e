# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The guides work as printed, in both copies make install writes (issue
# 35): the source tree's (make install's defaults: /usr/local, the tool
# `tack`) and the Debian package's (debian/rules' MAKE_VARS: the tool
# /usr/bin/tacktool, the hooks in /usr/libexec/tacktool/), each installed
# here into a DESTDIR of its own, which is also the sandbox its blocks run
# against.
#
#  1. Every ```apache block passes `apache2 -t` in a private instance: the
#     modules it needs loaded, the certificates, keys, TACKs, break
#     signatures, passwords and stores it names made for it (%fixture) under
#     the sandbox (its absolute paths relocated there), inside a virtual
#     host when it is a fragment of one (%apache_plan).  A block neither
#     planned nor listed as not checkable fails: a new block needs a decision.
#  2. Every command a ```sh block runs exists on that install: the first
#     word of each simple command (after sudo, env, runuser...; inside
#     $(...), subshells, if/for/while/case, the scripts a block writes with
#     a heredoc, what ssh and sh -c are given, a *_COMMAND= value) is a
#     shell builtin, a command on this machine, one the block's install
#     puts in its DESTDIR, or one a guide makes (%made_by_guide).  The
#     tool's own names (tack, tacktool, the hooks) count only where that
#     install put them: `tack` is no command of the package's copy.
#  3. No directive line of an apache block has a trailing comment (httpd
#     has none: the words become arguments).
#  4. Outside the <!-- make install --> passages (found by the source's
#     markers: the installed copies leave the marker lines out), the
#     package's copy names no `tack` command (prose and inline code too)
#     and none of make install's /usr/local paths of the tool, its hooks,
#     manual or docs.
# The installs use the tool and the module already built (make -o), as
# t/repo/18-prog-name.t does: nothing in the tree is rebuilt.  apache2 -t
# binds no port.  TACK_GUIDES_COMMANDS=1 lists every command word found.
# On b7a5e38 it failed 50 of its tests: the trailing comments (4 blocks),
# and 19 shell blocks and 6 guides of the package's copy naming `tack`.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
my $top = top();
my $so = "$top/build/mod_tack.so";
BAIL_OUT("$so not built: run make module") unless -e $so;
BAIL_OUT("$PrivateHttpd::HTTPD not installed: run make deps")
    unless -x $PrivateHttpd::HTTPD;

# ---- the two copies --------------------------------------------------------
my %copy = (
    source  => { vars => [],
                 bindir => '/usr/local/bin', prog => 'tack',
                 hookdir => '/usr/local/lib/tack',
                 docdir => '/usr/local/share/doc/mod_tack' },
    package => { vars => ['TACK_PROG=tacktool', 'PREFIX=/usr',
                          'DOCDIR=/usr/share/doc/libapache2-mod-tack',
                          'HOOKDIR=/usr/libexec/tacktool', 'DOC_COPY=package'],
                 bindir => '/usr/bin', prog => 'tacktool',
                 hookdir => '/usr/libexec/tacktool',
                 docdir => '/usr/share/doc/libapache2-mod-tack' },
);
my @copies = qw(source package);
for my $c (@copies) {
    my $d = $copy{$c};
    make_install_copy($c, $d, $so);
    ok(-x "$d->{dest}$d->{bindir}/$d->{prog}", "... puts $d->{bindir}/$d->{prog}");
}

# The guides: what make install copies (DOCS: every docs/*.md but the
# developers'), found in the DESTDIR, so a guide added later is checked too.
my @guides = sort map { s{.*/}{}r } glob("$copy{source}{docs}/*.md");
ok(grep({ $_ eq 'admin-guide.md' } @guides) && @guides >= 5,
   "the guides installed: @guides");

# blocks(TEXT, LANG): the fenced blocks of a language, de-indented (blocks
# in list items are indented), as { body, line, id }.
sub blocks {
    my ($guide, $text, $lang) = @_;
    my @b;
    while ($text =~ /^( *)```\Q$lang\E\n(.*?)^\1```$/msg) {
        my ($indent, $body, $at) = ($1, $2, $-[0]);
        $body =~ s/^\Q$indent\E//mg;
        my $line = 1 + (substr($text, 0, $at) =~ tr/\n//);
        my ($first) = $body =~ /^(.*)$/m;
        my $more = ($body =~ tr/\n//) - 1;
        push @b, { guide => $guide, body => $body, line => $line,
                   id => "$guide: $first" . ($more ? " (+$more)" : '') };
    }
    return @b;
}

# ---- 1. the Apache configuration blocks -------------------------------------
# Every ```apache block by guide, first line and the number of lines after
# it (the same in both copies): where it goes, or why it cannot be checked.
#   'as is'   it has its own virtual hosts
#   'server'  at server level, before the site of admin-guide.md section 5
#             (www.example.org, its certificate and key)
#   'vhost'   inside that site's <VirtualHost>
# A '; warns TAG: why' part names a warning apache2 -t gives on this
# machine and says why; any other [warn] or [error] line fails.
my $no_token = 'warns TACK00083: the token is a p11-kit server on the '
    . 'signing host, which is not here (apache2 -t warns, refuses nothing)';
my %apache_plan = (
    'admin-guide.md: <VirtualHost *:443> (+6)' => 'as is',
    'admin-guide.md: # in <VirtualHost *:443> of www.example.org: (+9)' => 'vhost',
    'admin-guide.md: TackPinActivation On' => 'vhost',
    'admin-guide.md: TackLetPinsLapse b6s7y.ft55s.klpsp.eizyu.bsast' => 'vhost',
    'admin-guide.md: # days 0-30: clients learn the new key (+7)' => 'vhost',
    'admin-guide.md: TackFile          /etc/apache2/tack/www.example.org.tack.pem (+1)' => 'vhost',
    "admin-guide.md: # a TACKpy key file, or a token's key: pkcs11:token=tack;object=tackkey (+4)" => 'server',
    'admin-guide.md: TackStore /etc/apache2/tack/store (+6)' => 'as is',
    "admin-guide.md: # the CA's terms: without it, no certificate (+12)" => 'as is',
    'directives.md: TackBreakSigsFile /etc/apache2/tack/breaksigs.pem' => 'server',
    'directives.md: <VirtualHost *:443> (+9)' => 'as is',
    'directives.md: TackFormat draft-02 (+1)' => 'vhost',
    'directives.md: TackPinActivation On' => 'vhost',
    'directives.md: TackStore /etc/apache2/tack/store (+9)' => 'as is',
    'directives.md: # every SSL vhost, mod_md\'s included; TACKs kept in the store (+4)' => 'server',
    'directives.md: # server config: every SSL vhost, including those added later (+7)' => 'as is',
    'directives.md: TackStoreOwner tack (+1)' => 'server',
    'directives.md: TackTLS13 On' => 'vhost',
    'directives.md: <Location /tack-status> (+4)' => 'vhost',
    'directives.md: LogFormat "%h %t \"%r\" %>s %{TACK_REQUESTED}e %{TACK_SERVED}e" tack (+1)' => 'server',
    'hosting-guide.md: # /etc/apache2/conf-available/tack-store.conf  (a2enconf tack-store) (+1)' => 'server',
    'hosting-guide.md: TackBreakSigsFile /etc/apache2/tack/breaksigs.pem' => 'server',
    'hosting-guide.md: TackSigningKey "pkcs11:token=tack;object=tackkey;type=private?module-path=/usr/lib/x86_64-linux-gnu/pkcs11/p11-kit-client.so" (+2)' =>
        "server; $no_token",
    'hosting-guide.md: <VirtualHost *:443> (+11)' => 'as is',
    'hosting-guide.md: LogFormat "%v %h %t \"%r\" %>s %{TACK_REQUESTED}e %{TACK_SERVED}e" tackvhost (+1)' => 'server',
);

# The site every 'server' and 'vhost' block is checked with: section 5's,
# serving its TACK unless the block says where the TACKs come from.
sub site_open {
    my ($block) = @_;
    return "<VirtualHost *:443>\n    ServerName www.example.org\n"
        . "    SSLEngine on\n"
        . "    SSLCertificateFile    /etc/ssl/certs/www.example.org.crt\n"
        . "    SSLCertificateKeyFile /etc/ssl/private/www.example.org.key\n"
        . ($block =~ /^\s*(TackFile|TackStore|TackSigningKey)\s/m ? ''
           : "    TackFile /etc/apache2/tack/www.example.org.tack.pem\n");
}

# Every absolute path a block names and how the test makes it: a path
# nobody decided on fails.  Certificates: [key file, name, ec|rsa];
# TACKs: [the TACK keys, certificate]; the TACK keys: a (the site's),
# old and new (section 11's rollover), stolen (section 12's).
my %fixture = (
    '/etc/ssl/certs/www.example.org.crt' => [cert => '/etc/ssl/private/www.example.org.key', 'www.example.org', 'ec'],
    '/etc/ssl/certs/www-rsa.crt' => [cert => '/etc/ssl/private/www-rsa.key', 'www.example.org', 'rsa'],
    '/etc/ssl/certs/www-ec.crt' => [cert => '/etc/ssl/private/www-ec.key', 'www.example.org', 'ec'],
    '/etc/ssl/certs/web1.example.net.crt' => [cert => '/etc/ssl/private/web1.example.net.key', 'web1.example.net', 'ec'],
    '/etc/letsencrypt/live/www.example.org/fullchain.pem' => [cert => '/etc/letsencrypt/live/www.example.org/privkey.pem', 'www.example.org', 'ec'],
    '/etc/apache2/tack/www.example.org.tack.pem' => [tack => ['a'], '/etc/ssl/certs/www.example.org.crt'],
    '/etc/apache2/tack/www-oldkey.tack.pem' => [tack => ['old'], '/etc/ssl/certs/www.example.org.crt'],
    '/etc/apache2/tack/www-newkey.tack.pem' => [tack => ['new'], '/etc/ssl/certs/www.example.org.crt'],
    '/etc/apache2/tack/www-pair.tack.pem' => [tack => ['old', 'new'], '/etc/ssl/certs/www.example.org.crt'],
    '/etc/apache2/tack/www-rsa.tack.pem' => [tack => ['a'], '/etc/ssl/certs/www-rsa.crt'],
    '/etc/apache2/tack/www-ec.tack.pem' => [tack => ['a'], '/etc/ssl/certs/www-ec.crt'],
    '/etc/apache2/tack/breaksigs.pem' => [break => 'stolen'],
    '/etc/apache2/tack/tack.key' => [key => 'a'],
    '/etc/apache2/tack/tack.pw' => [password => 'a'],
    '/etc/apache2/tack/tack.key.pw' => [password => 'a'],
    '/etc/apache2/tack/token.pin' => [password => 'token'],
    '/etc/apache2/tack/store' => ['dir'],
    '/etc/apache2/tack/md' => ['dir'],
    '/var/lib/apache2/tack/store' => ['dir'],
    '/var/lib/tack/store' => ['dir'],
    # MDMessageCmd's: apache2 -t runs neither; the hook is the one the
    # copy's install put in its DESTDIR.
    '/etc/tack/md-hook.conf' => ['file'],
    '/usr/local/lib/tack/tack-md-hook' => ['installed'],
    '/usr/libexec/tacktool/tack-md-hook' => ['installed'],
    # a TackSigningKey's PKCS#11 module (p11-kit-modules): this machine's
    '/usr/lib/x86_64-linux-gnu/pkcs11/p11-kit-client.so' => ['system'],
);
# Users the blocks name, and the one of this machine that stands in for
# each (TackStoreOwner: an unknown user is a syntax error; not httpd's
# User, nobody here, which TackStoreOwner refuses).
my %user = (tack => 'daemon');

# relocate(TEXT, ROOT): absolute paths under ROOT, but those of this
# machine's libraries (/usr/lib: the PKCS#11 module).
sub relocate {
    my ($text, $root) = @_;
    $text =~ s{(^|[\s'"=:])/(etc|var|srv|root|usr/local|usr/libexec|usr/bin)\b}{$1$root/$2}mg;
    return $text;
}

my %made;    # per sandbox: path => 1
my %pw = (a => 'site-password', token => '1234');
sub tackkey {
    my ($root, $name) = @_;
    my $k = "$root/.keys/$name.key";
    return $k if -e $k;
    mkdir "$root/.keys";
    my ($rc, $o, $e) = tack('genkey', '-p', $pw{a}, '-o', $k);
    die "genkey: $e" if $rc;
    return $k;
}
# make_fixture(ROOT, PATH): PATH (as the block names it) made under ROOT;
# '' or why not.
sub make_fixture {
    my ($root, $path) = @_;
    return '' if $made{$root}{$path}++;
    my $f = $fixture{$path} or return "no fixture for $path";
    my ($kind, @a) = @$f;
    my $at = "$root$path";
    (my $dir = $at) =~ s{/[^/]+$}{};
    system('mkdir', '-p', $dir) == 0 or die;
    if ($kind eq 'cert') {
        my ($keyfile, $cn, $type) = @a;
        system('mkdir', '-p', ("$root$keyfile" =~ s{/[^/]+$}{}r)) == 0 or die;
        my ($rc, $o, $e) = run3('openssl', 'req', '-x509', '-newkey',
            $type eq 'rsa' ? ('rsa:2048') : ('ec', '-pkeyopt', 'ec_paramgen_curve:P-256'),
            '-addext', 'basicConstraints=critical,CA:FALSE',
            '-addext', "subjectAltName=DNS:$cn", '-nodes',
            '-keyout', "$root$keyfile", '-out', $at, '-subj', "/CN=$cn",
            '-days', 90);
        die "openssl req: $e" if $rc;
        $made{$root}{$keyfile} = 1;
    } elsif ($kind eq 'tack') {
        my ($keys, $crt) = @a;
        my $why = make_fixture($root, $crt);
        return $why if $why;
        my $pem = '';
        for my $k (@$keys) {
            my ($rc, $o, $e) = tack('sign', '-k', tackkey($root, $k),
                '-p', $pw{a}, '-c', "$root$crt", '-e', '45d');
            die "sign: $e" if $rc;
            $pem .= $o;
        }
        write_file($at, $pem);
    } elsif ($kind eq 'break') {
        my ($rc, $o, $e) = tack('break', '-k', tackkey($root, $a[0]),
                                '-p', $pw{a}, '-o', $at);
        die "break: $e" if $rc;
    } elsif ($kind eq 'key') {
        system('cp', tackkey($root, $a[0]), $at) == 0 or die;
    } elsif ($kind eq 'password') {
        write_file($at, "$pw{$a[0]}\n");
        chmod 0600, $at;
    } elsif ($kind eq 'dir') {
        mkdir $at;
        chmod 0755, $at;
    } elsif ($kind eq 'file') {
        write_file($at, "# made by $0\n");
    } elsif ($kind eq 'installed') {
        return '' if -e $at;
        # the other copy's hook: not where this install puts it
        return "$path: not installed by this copy's make install";
    } elsif ($kind eq 'system') {
        return -e $path ? '' : "$path: not on this machine (make deps)";
    }
    return '';
}

my %seen_apache;
my %checked = map { $_ => 0 } @copies;
my $n = 0;
for my $c (@copies) {
    my $root = $copy{$c}{dest};
    for my $guide (@guides) {
        for my $b (blocks($guide, slurp("$copy{$c}{docs}/$guide"), 'apache')) {
            $seen_apache{$b->{id}} = 1;
            my $name = "$c copy: $b->{id} (line $b->{line})";
            # 3. trailing comments
            for my $l (split /\n/, $b->{body}) {
                next if $l =~ /^\s*(#|$)/;
                (my $bare = $l) =~ s/"(?:[^"\\]|\\.)*"//g;
                ok($bare !~ /\s#/, "$name: no trailing comment on a directive line")
                    or diag("$l\n(httpd has no trailing comments: the words "
                          . "become arguments; put the comment on a line of its own)");
            }
            my $plan = $apache_plan{$b->{id}};
            unless (defined $plan) {
                fail("a new apache block, neither checked nor listed: $name");
                next;
            }
            my ($ctx, $warns) = split /;\s*/, $plan, 2;
            unless ($ctx =~ /^(as is|server|vhost)$/) {
                pass("not checked: $name: $plan");
                next;
            }
            my $conf = $ctx eq 'as is' ? $b->{body}
                     : $ctx eq 'server' ? "$b->{body}\n" . site_open($b->{body}) . "</VirtualHost>\n"
                     : site_open($b->{body}) . ($b->{body} =~ s/^/    /mgr) . "</VirtualHost>\n";
            while (my ($u, $stand_in) = each %user) {
                $conf =~ s/^(\s*TackStoreOwner\s+)\Q$u\E\s*$/$1$stand_in/mg;
            }
            # the fixtures: every absolute path named
            my @why;
            (my $directives = $conf) =~ s/^\s*#.*\n//mg;
            for my $p ($directives =~ m{(?:^|[\s'"=:])(/(?:etc|var|srv|root|usr)/[^\s'"?;]*)}mg) {
                my $why = make_fixture($root, $p);
                push @why, $why if $why;
            }
            if (@why) {
                fail("$name: its files: " . join('; ', @why));
                next;
            }
            # Each store holds the TACKs of the block's certificates, as
            # the guides' hooks, TackSigningKey or tack sign -o STORE/ put
            # them there.
            for my $store ($directives =~ /^\s*TackStore\s+(\/\S+)/mg) {
                for my $crt ($directives =~ /^\s*SSLCertificateFile\s+(\S+)/mg) {
                    my ($rc, $o, $e) = tack('-q', 'sign', '-k', tackkey($root, 'a'),
                        '-p', $pw{a}, '-c', "$root$crt", '-e', '45d',
                        '-o', "$root$store/", '--force');
                    die "sign into $store: $e" if $rc;
                }
            }
            my $mods = join ' ', grep { defined }
                'mpm_event', 'authz_core', 'mime', 'socache_shmcb', 'ssl',
                ($conf =~ /^\s*Require\s+(ip|local|host)\b/m ? 'authz_host' : undef),
                ($conf =~ /^\s*MD\w+/m ? 'md' : undef);
            my $h = PrivateHttpd->new(root => "$root/httpd/" . ++$n,
                port => PrivateHttpd::any_port(), run_dir => 'run');
            $h->write_conf(relocate($conf, $root), user => 1,
                head => PrivateHttpd::load_modules(split / /, $mods)
                      . "LoadModule tack_module $so\n"
                      . "SSLSessionCache shmcb:$h->{run_dir}/scache(512000)\n"
                      . "TackStateFile $root/httpd/$n/state.json\n"
                      . "Define APACHE_LOG_DIR $root/httpd/$n/logs\n");
            my $r = $h->run_httpd(60, '-t');
            # anything said but "Syntax OK" fails, but the warning planned
            my @bad = grep { !/^Syntax OK$/ && /\S/ } split /\n/, $r->{out};
            if ($warns && $warns =~ /^warns (TACK\d+)/) {
                my $tag = $1;
                ok((grep { /\b\Q$tag\E\b/ } @bad), "$name: warns $tag, as planned")
                    or diag($r->{out});
                @bad = grep { !/\b\Q$tag\E\b/ } @bad;
            }
            ok($r->{rc} == 0 && $r->{out} =~ /^Syntax OK$/m && !@bad,
               "$name: apache2 -t (modules: $mods, $ctx)")
                or diag("$r->{out}\n--- " . $h->conf_file . "\n"
                        . slurp($h->conf_file));
            $checked{$c}++ if $r->{rc} == 0;
        }
    }
}
ok(!grep({ !$seen_apache{$_} } keys %apache_plan),
   'every apache block of the plan is in the guides')
    or diag(join "\n", grep { !$seen_apache{$_} } keys %apache_plan);
for my $c (@copies) {
    ok($checked{$c} >= 20, "$checked{$c} apache blocks of the $c copy pass apache2 -t");
}

# ---- 2. the commands of the shell blocks ------------------------------------
my %builtin = map { $_ => 1 } qw(
    . : [ alias break cd command continue echo eval exec exit export false
    getopts hash kill printf pwd read readonly return set shift source test
    times trap true type ulimit umask unalias unset wait local);
my %keyword = map { $_ => 1 } qw(! { } if then else elif fi do done while until);
# Files a guide makes and later runs: path => where.
my %made_by_guide = (
    '/usr/local/sbin/tack-renew' => 'admin-guide.md section 9: the script shown above it',
    '/usr/local/lib/nagios/plugins/check_tack_status' => 'hosting-guide.md: the block before writes it',
);
# Commands that take a command after their own options (the options with
# an argument listed).
my %prefix = (sudo => qr/^-[ugCDhpRrTt]$/, env => qr/^-[uCS]$/,
              runuser => qr/^-[ugGs]$/, nohup => undef, nice => qr/^-n$/,
              exec => undef, command => undef, time => undef,
              xargs => qr/^-[IdEnLPs]$/);
my $PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

# words(TEXT): the shell's tokens of TEXT: [type, value, raw] with type
# 'w' (a word: value unquoted) or 'op' (; & && || | ( ) ;; newline), and
# each heredoc's body after the line that opens it as ['heredoc', body].
# Command substitutions inside a word are returned as ['subst', text]
# before it.
sub words {
    my ($s) = @_;
    my @t;
    my @pending;    # heredoc delimiters of the current line
    my $i = 0;
    my $len = length $s;
    while ($i < $len) {
        my $ch = substr($s, $i, 1);
        if ($ch eq "\\" && substr($s, $i + 1, 1) eq "\n") { $i += 2; next }
        if ($ch eq ' ' || $ch eq "\t") { $i++; next }
        if ($ch eq '#') { $i++ while $i < $len && substr($s, $i, 1) ne "\n"; next }
        if ($ch eq "\n") {
            push @t, ['op', "\n"];
            $i++;
            for my $d (@pending) {
                my $body = '';
                while ($i < $len) {
                    my $e = index($s, "\n", $i);
                    $e = $len if $e < 0;
                    my $line = substr($s, $i, $e - $i);
                    $i = $e + 1;
                    last if $line eq $d;
                    $body .= "$line\n";
                }
                push @t, ['heredoc', $body];
            }
            @pending = ();
            next;
        }
        if (substr($s, $i) =~ /^(;;|&&|\|\||[;&|()])/) {
            push @t, ['op', $1];
            $i += length $1;
            next;
        }
        # a word
        my ($val, $raw) = ('', '');
        while ($i < $len) {
            $ch = substr($s, $i, 1);
            last if $ch =~ /[ \t\n;&|()]/ && !($ch eq '(' && $raw =~ /\$$/);
            if ($ch eq "'") {
                my $e = index($s, "'", $i + 1);
                $e = $len if $e < 0;
                $val .= substr($s, $i + 1, $e - $i - 1);
                $raw .= substr($s, $i, $e - $i + 1);
                $i = $e + 1;
            } elsif ($ch eq '"' || $ch eq '$' && substr($s, $i + 1, 1) eq '(') {
                # "...": to its closing quote; $(...): to its parenthesis
                my ($start, $depth, $q) = ($i, 0, $ch eq '"');
                $i += $q ? 1 : 0;
                while ($i < $len) {
                    my $c2 = substr($s, $i, 1);
                    if ($c2 eq "\\") { $i += 2; next }
                    if ($c2 eq '$' && substr($s, $i + 1, 1) eq '(') {
                        my ($j, $d) = ($i + 2, 1);
                        while ($j < $len && $d) {
                            my $c3 = substr($s, $j, 1);
                            if ($c3 eq "'") {
                                my $e = index($s, "'", $j + 1);
                                $j = $e < 0 ? $len : $e + 1;
                                next;
                            }
                            $d++ if $c3 eq '(';
                            $d-- if $c3 eq ')';
                            $j++;
                        }
                        push @t, ['subst', substr($s, $i + 2, $j - $i - 3)];
                        $i = $j;
                        next if $q;
                        last;
                    }
                    if ($q && $c2 eq '"') { $i++; last }
                    $i++;
                }
                my $part = substr($s, $start, $i - $start);
                $raw .= $part;
                $val .= $q ? substr($part, 1, -1) : $part;
            } elsif ($ch eq "\\") {
                $val .= substr($s, $i + 1, 1);
                $raw .= substr($s, $i, 2);
                $i += 2;
            } else {
                $val .= $ch;
                $raw .= $ch;
                $i++;
            }
        }
        if ($raw =~ /^\d*<<-?(.+)$/) {
            # a heredoc (the guides write <<'EOF', the delimiter attached)
            (my $d = $1) =~ s/['"]//g;
            push @pending, $d;
            push @t, ['redir', $raw];
            next;
        }
        push @t, ['w', $val, $raw];
    }
    return @t;
}

# commands(TEXT): the command words TEXT runs, as [word, context].
sub commands {
    my ($text, $where) = @_;
    my @cmd;
    my @t = words($text);
    my ($pos, $skip_target, $case, $for) = (1, 0, 0, 0);
    my @args;       # the words of the current simple command
    my $cur;        # its command word
    my $finish = sub {
        if (defined $cur) {
            my ($w, @a) = ($cur, @args);
            # what ssh HOST and sh -c run
            if (($w eq 'ssh' || $w eq 'sh') && @a
                && $a[-1][0] =~ /^['"]/ && $a[-1][1] =~ / /) {
                push @cmd, commands($a[-1]->[1], "$where, ${w}'s command");
            }
        }
        ($cur, @args) = (undef);
        $pos = 1;
    };
    for (my $k = 0; $k < @t; $k++) {
        my ($type, $v, $raw) = @{ $t[$k] };
        if ($type eq 'subst') { push @cmd, commands($v, "$where, \$(...)"); next }
        if ($type eq 'heredoc') {
            push @cmd, commands($v, "$where, the script its heredoc writes")
                if $v =~ m{^#!/bin/(ba)?sh};
            next;
        }
        if ($type eq 'redir') { next }
        if ($type eq 'op') {
            if ($case && $v eq ')') { $pos = 1; next }
            $finish->();
            if ($case && ($v eq ';;')) { $case = 2 }
            next;
        }
        # a word
        if ($skip_target) { $skip_target = 0; next }
        if ($raw =~ /^\d*(>>?|<|>&|<&)(&?\d*)$/ && $raw !~ /&\d$/) {
            # a redirection whose target is the next word
            $skip_target = 1 if $raw =~ /^\d*(>>?|<)$/;
            next;
        }
        next if $raw =~ /^\d*(>>?|<|>&)/;
        if ($for) {
            $for = 0 if $v eq 'do';
            next;
        }
        if ($case == 1) { $case = 2 if $v eq 'in'; next }
        if ($case == 2) {
            if ($v eq 'esac') { $case = 0; next }
            # a pattern up to its ')'
            $case = 3;
            next;
        }
        if ($pos) {
            if ($keyword{$v}) { next }
            if ($v eq 'for') { $for = 1; next }
            if ($v eq 'case') { $case = 1; $pos = 0; next }
            if ($v eq 'esac') { $case = 0; next }
            if ($raw =~ /^([A-Za-z_]\w*)=/) {
                # an assignment; a *_COMMAND= value is a command line
                my $name = $1;
                push @cmd, commands($v =~ s/^[^=]*=//r, "$where, $name")
                    if $name =~ /_COMMAND$/;
                next;
            }
            if (defined $cur && exists $prefix{$cur}) {
                # the prefix command's options, then the command it runs
                my $opt = $prefix{$cur};
                if ($v =~ /^-/ || $v =~ /^\w+=/) {
                    $k++ if defined $opt && $v =~ $opt;
                    next;
                }
            }
            push @cmd, [$v, $where];
            $cur = $v;
            $pos = exists $prefix{$v} ? 1 : 0;
            next;
        }
        push @args, [$raw, $v];
    }
    $finish->();
    return @cmd;
}
# Commands every Debian server the guides address has, though a minimal
# tree (debootstrap --variant=minbase, where make test also runs) may not:
# each named with the package or rule that brings it.
my %server_has = (
    systemctl => 'systemd, the init system of Debian 12 and 13',
    ssh       => 'openssh-client, what reaches the other servers',
    editor    => "Debian's editor alternative (nano in a standard install)",
);
my %cmds_checked = map { $_ => 0 } @copies;
for my $c (@copies) {
    my $d = $copy{$c};
    my %ours;    # the tool and hooks of this copy's install
    $ours{$d->{prog}} = "$d->{dest}$d->{bindir}/$d->{prog}";
    for my $p (glob("$d->{dest}$d->{bindir}/*"), glob("$d->{dest}$d->{hookdir}/*")) {
        (my $abs = $p) =~ s{^\Q$d->{dest}\E}{};
        $ours{$abs} = $p;
    }
    for my $guide (@guides) {
        for my $b (blocks($guide, slurp("$d->{docs}/$guide"), 'sh')) {
            my $where = "$c copy: $b->{id} (line $b->{line})";
            my @bad;
            for my $cw (commands($b->{body}, $where)) {
                my ($w, $ctx) = @$cw;
                note("$w\t($ctx)") if $ENV{TACK_GUIDES_COMMANDS};
                $cmds_checked{$c}++;
                my $own = $w =~ m{(^|/)(tack|tacktool|tack-\w+-hook)$};
                my $ok;
                if ($own) {
                    $ok = $ours{$w} && -x $ours{$w};
                } elsif ($builtin{$w} || $made_by_guide{$w}) {
                    $ok = 1;
                } elsif ($w =~ m{^/}) {
                    $ok = -x $w;
                } elsif ($w =~ /\$/) {
                    $ok = 0;
                } else {
                    $ok = grep { -x "$_/$w" } split /:/, $PATH;
                    if (!$ok && $server_has{$w}) {
                        note("$w is not on this machine: $server_has{$w} ($ctx)");
                        $ok = 1;
                    }
                }
                push @bad, "$w ($ctx)" unless $ok;
            }
            ok(!@bad, "$where: every command exists on this install")
                or diag("not a builtin, nor on this machine, nor installed by this copy's make install:\n  "
                        . join("\n  ", @bad));
        }
    }
}
for my $c (@copies) {
    ok($cmds_checked{$c} >= 100, "$cmds_checked{$c} commands of the $c copy's shell blocks checked");
}

# ---- 4. the package's copy names the package's command and paths ------------
for my $guide (@guides) {
    my $text = slurp("$copy{package}{docs}/$guide");
    $text = outside_make_install($text, "$top/docs/$guide");
    my @lines = grep { defined }
        map { /(?<![-\w.\/=@])tack (?:(?:--quiet|-q) )?(?:genkey|sign|break|view|serverinfo|check|pins|preload|help|version)(?=[ ,`)"':\]]|$)(?! {2})/ ? $_ : undef }
        split /\n/, $text;
    ok(!@lines, "package copy: $guide names no `tack` command")
        or diag(join "\n", @lines);
    my @paths = $text =~ m{(/usr/local/(?:bin/tack\b|lib/tack/|share/doc/mod_tack|share/man/man1/tack\.1)\S*)}g;
    ok(!@paths, "package copy: $guide names none of make install's paths")
        or diag(join "\n", @paths);
}

done_testing();
