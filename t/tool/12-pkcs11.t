# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# TACK keys in a PKCS#11 token (issue 14): a private SoftHSM2 token under
# the test's temporary directory, keys made with pkcs11-tool, and `tack
# sign`, `tack break` and `tack view` given a pkcs11: URI for -k.  The
# TACKs are checked by `tack view -c` and by `tack check` against `openssl
# s_server -serverinfo`, as 03-check-s_server.t does for file keys.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use JSON::PP;
use POSIX ();

# Nothing here may pass by skipping: make deps installs softhsm2, opensc
# and pkcs11-provider (on Debian 12 from bookworm-backports).  The keys go
# through the provider: OpenSSL's modules directory must hold it.
BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
my $softhsm = '/usr/lib/softhsm/libsofthsm2.so';
my $modules = `openssl version -m` =~ /MODULESDIR: "([^"]+)"/ ? $1 : '';
my $provider = "$modules/pkcs11.so";
for my $need ('/usr/bin/softhsm2-util', '/usr/bin/pkcs11-tool', $softhsm,
              $provider) {
    BAIL_OUT("$need not installed: run make deps") unless -e $need;
}

my $d = tmp();
my ($rc, $out, $err);

# ---- the token: its own directory, found through SOFTHSM2_CONF
mkdir("$d/tokens") or die "$d/tokens: $!";
write_file("$d/softhsm2.conf", "directories.tokendir = $d/tokens\n"
     . "objectstore.backend = file\nlog.level = ERROR\n");
# Under make test-tool-asan, the memory libp11 and p11-kit keep is not the
# tool's: lib/lsan-pkcs11.supp says which, and why.
my %env = (SOFTHSM2_CONF => "$d/softhsm2.conf",
           LSAN_OPTIONS => "suppressions=$FindBin::Bin/lib/lsan-pkcs11.supp"
                           . ":fast_unwind_on_malloc=0:print_suppressions=0");

sub setup {
    my @argv = @_;
    my ($rc, $out, $err) = run3({ env => \%env }, @argv);
    die "@argv: $out$err" if $rc;
    return $out;
}
setup('softhsm2-util', '--init-token', '--free', '--label', 'tack',
      '--pin', '1234', '--so-pin', '5678');
my @p11 = ('pkcs11-tool', '--module', $softhsm, '--login', '--pin', '1234');
setup(@p11, '--keypairgen', '--key-type', 'EC:prime256v1',
      '--label', 'tackkey', '--id', '01');
setup(@p11, '--keypairgen', '--key-type', 'rsa:2048', '--label', 'rsakey',
      '--id', '02');
setup(@p11, '--keypairgen', '--key-type', 'EC:secp384r1',
      '--label', 'p384key', '--id', '03');

sub tk {
    my $opt = ref($_[0]) eq 'HASH' ? shift : {};
    return tack({ %$opt, env => { %env, %{ $opt->{env} || {} } } }, @_);
}

my $uri = 'pkcs11:token=tack;object=tackkey;type=private';

# The TACK ID, computed here from the token's public key: SHA-256 of x || y,
# base32, 25 characters in groups of five (draft-00 section 3.3).
setup('pkcs11-tool', '--module', $softhsm, '--read-object', '--type',
      'pubkey', '--id', '01', '-o', "$d/pub.der");
my $xy = substr(slurp("$d/pub.der"), -64);
my $id = fingerprint($xy);

# ---- tack view URI: the key's TACK ID, no PIN needed
($rc, $out, $err) = tk('view', $uri);
is($rc, 0, 'view of a token key exits 0') or diag($err);
is($out, "TACK ID        = $id\n", '... and shows its TACK ID');
is($err, '', '... without asking for a PIN');
($rc, $out, $err) = tk('view', '--json', $uri);
my $j = eval { decode_json($out) } || [];
is($j->[0]{type}, 'token_key', 'view --json: a token key');
is($j->[0]{tack_id}, $id, 'view --json: its TACK ID');
is($j->[0]{public_key}, unpack('H*', $xy), 'view --json: its public key');

# ---- tack sign -k URI
my ($crt, $key) = mkcert('www', 'www.example.org', 30);
($rc, $out, $err) = tk('sign', '-k', $uri, '-p', '1234', '-c', $crt,
                       '-e', '2031-06-01Z', '-o', "$d/t.pem");
is($rc, 0, 'sign -k pkcs11:... exits 0') or diag($err);
($rc, $out, $err) = tk('view', '-c', $crt, "$d/t.pem");
is($rc, 0, 'the TACK verifies and matches the certificate') or diag($err);
like($out, qr/^TACK ID        = \Q$id\E$/m, '... under the token key');
like($out, qr/^status         = valid for the certificate$/m,
     '... valid for the certificate');

# The PIN comes through every password option.
($rc, $out, $err) = tk({ env => { TACK_PASSWORD => '1234' } }, 'sign', '-k',
                       $uri, '-c', $crt);
is($rc, 0, 'the PIN from $TACK_PASSWORD') or diag($err);
like($out, qr/BEGIN TACK/, '... gives a TACK');
write_file("$d/pin", "1234\n");
($rc, $out, $err) = tk('sign', '-k', $uri, '--password-file', "$d/pin",
                       '-c', $crt);
is($rc, 0, 'the PIN from --password-file') or diag($err);
($rc, $out, $err) = tk('sign', '-k', "$uri?pin-value=1234", '-c', $crt);
is($rc, 0, 'the PIN from the URI\'s pin-value, no password option')
    or diag($err);
($rc, $out, $err) = tk('sign', '-k', "$uri?module-path=$softhsm", '-p',
                       '1234', '-c', $crt);
is($rc, 0, 'a module-path in the URI loads that module') or diag($err);

# A fleet: every certificate signed with one login.
mkdir("$d/fleet") or die;
my ($c1) = mkcert('fleet/a', 'a.example.org', 30);
my ($c2) = mkcert('fleet/b', 'b.example.org', 30);
unlink(glob("$d/fleet/*.key"));
mkdir("$d/fleet-out") or die;
($rc, $out, $err) = tk('sign', '-k', $uri, '-p', '1234', '-c', "$d/fleet",
                       '-o', "$d/fleet-out", '--no-progress');
is($rc, 0, 'a fleet signed with the token key') or diag($err);
for my $n ('a', 'b') {
    ($rc, $out, $err) = tk('view', '-c', "$d/fleet/$n.crt", "$d/fleet-out/"
                           . store_name("$d/fleet/$n.crt", "$n.example.org"));
    is($rc, 0, "... ${n}'s TACK verifies for its certificate") or diag($err);
}

# ---- served by a server that is not ours, checked by tack check
my ($rc2, $si, $e2) = tk('serverinfo', '-t', "$d/t.pem", '-c', $crt);
is($rc2, 0, 'serverinfo takes the token-signed TACK') or diag($e2);
write_file("$d/t.si", $si);
my $port = free_port(18400, 18429);
my $pid = start_s_server($port, '-cert', $crt, '-key', $key,
                         '-serverinfo', "$d/t.si");
($rc, $out, $err) = tk('check', "127.0.0.1:$port", '--tls1_2',
                       '--servername', 'www.example.org');
is($rc, 0, 'tack check accepts the token-signed TACK') or diag($out, $err);
like($out, qr/^TACK ID        = \Q$id\E$/m, '... naming the token key');
like($out, qr/^result         = accepted$/m, '... accepted');
stop_server($pid);

# ---- tack break -k URI
($rc, $out, $err) = tk('break', '-k', $uri, '-p', '1234', '-o', "$d/b.pem");
is($rc, 0, 'break -k pkcs11:... exits 0') or diag($err);
($rc, $out, $err) = tk('view', "$d/b.pem");
is($rc, 0, 'the break signature verifies') or diag($err);
is($out, "Breaks TACK ID = $id\n", '... and breaks the token key');
($rc2, $si, $e2) = tk('serverinfo', '-b', "$d/b.pem");
is($rc2, 0, 'serverinfo takes the token-made break signature') or diag($e2);
($rc2, $si, $e2) = tk('serverinfo', '-t', "$d/t.pem", '-b', "$d/b.pem");
like($e2, qr/breaks this very TACK's key/,
     '... and knows it breaks the token-signed TACK');

# ---- errors: the URI and the reason, exit status 2, nothing written
sub fails_like {
    my ($argv, $re, $name, $opt) = @_;
    my ($rc, $out, $err) = tk($opt || {}, @$argv);
    is($rc, 2, "$name: exit status 2");
    like($err, $re, "$name: says why");
    is($out, '', "$name: writes nothing");
}
my $q = quotemeta($uri);
fails_like(['sign', '-k', $uri, '-p', '9999', '-c', $crt, '-o', "$d/w.pem"],
           qr/^tack: $q: wrong PIN \(login refused: CKR_PIN_INCORRECT\)$/m,
           'a wrong PIN, named by the code the token answered');
ok(!-e "$d/w.pem", 'a wrong PIN writes no file');
fails_like(['break', '-k', $uri, '-p', '9999'], qr/^tack: $q: wrong PIN/m,
           'break with a wrong PIN');
fails_like(['sign', '-k', $uri, '-c', $crt],
           qr/^tack: $q: a PIN is needed: give -p PIN, --password-file/m,
           'no PIN and no terminal');
fails_like(['sign', '-k', 'pkcs11:token=tack;object=nokey;type=private', '-p',
            '1234', '-c', $crt],
           qr/^tack: pkcs11:token=tack;object=nokey;type=private: no private key object="nokey" in token "tack"$/m,
           'a missing object');
fails_like(['sign', '-k', 'pkcs11:token=nope;object=tackkey', '-p', '1234',
            '-c', $crt],
           qr/^tack: pkcs11:token=nope;object=tackkey: no token "nope" \(tokens present: "tack"\)$/m,
           'a missing token');
fails_like(['sign', '-k', 'pkcs11:token=tack;object=rsakey', '-p', '1234',
            '-c', $crt],
           qr/^tack: pkcs11:token=tack;object=rsakey: not an EC P-256 key \(it is RSA\): a TACK key is ECDSA P-256$/m,
           'an RSA key object');
fails_like(['break', '-k', 'pkcs11:token=tack;object=p384key', '-p', '1234'],
           qr/^tack: pkcs11:token=tack;object=p384key: not an EC P-256 key \(it is EC on secp384r1\)/m,
           'a P-384 key object');
fails_like(['sign', '-k', "$uri?pin-value=9999", '-c', $crt],
           qr/^tack: $q\?pin-value=\*\*\*: wrong PIN/m,
           'a wrong pin-value (not shown)');
unlike((tk('sign', '-k', "$uri?pin-value=9999", '-c', $crt))[2], qr/9999/,
       '... the PIN of a URI never appears in a message');
fails_like(['sign', '-k', "$uri?module-path=$d/none.so", '-p', '1234', '-c',
            $crt],
           qr/^tack: $q\?module-path=\S+none\.so: cannot load the PKCS#11 module: /m,
           'a module that is not there');
mkdir("$d/no-modules") or die;
fails_like(['sign', '-k', $uri, '-p', '1234', '-c', $crt],
           qr/^tack: $q: the OpenSSL provider "pkcs11" is not installed \(Debian: pkcs11-provider; on Debian 12 from bookworm-backports\)$/m,
           'no pkcs11 provider', { env => { OPENSSL_MODULES => "$d/no-modules" } });
fails_like(['view', 'pkcs11:token=tack;object=nokey'],
           qr/^tack: pkcs11:token=tack;object=nokey: no public key object="nokey" in token "tack"$/m,
           'view of a missing object');
fails_like(['view', 'pkcs11:token=nope;object=tackkey'],
           qr/^tack: pkcs11:token=nope;object=tackkey: no token "nope"/m,
           'view of a missing token');

# ---- RFC 7512: the query names the module and the PIN
($rc, $out, $err) = tk('sign', '-k', "$uri?module-name=softhsm2", '-p',
                       '1234', '-c', $crt);
is($rc, 0, 'module-name: a module registered with p11-kit') or diag($err);
like($out, qr/BEGIN TACK/, '... gives a TACK');
(my $softdir = $softhsm) =~ s{/[^/]+$}{};
($rc, $out, $err) = tk('sign', '-k',
                       "$uri?module-path=$softdir&module-name=softhsm2",
                       '-p', '1234', '-c', $crt);
is($rc, 0, 'module-path a directory, module-name the library in it')
    or diag($err);
write_file("$d/pinfile", "1234\n");
($rc, $out, $err) = tk('sign', '-k', "$uri?pin-source=file:$d/pinfile",
                       '-c', $crt);
is($rc, 0, 'pin-source=file:...: the PIN from a file, no password option')
    or diag($err);
($rc, $out, $err) = tk('sign', '-k', "$uri?pin-source=$d/pinfile", '-c',
                       $crt);
is($rc, 0, 'pin-source=/path works too') or diag($err);
# The first-line rule of every password source (tack_password_line): a
# CRLF ends the line; a NUL byte is refused before any login (cut short,
# the PIN would be a wrong one, counted towards the token's lock).
write_file("$d/pin-crlf", "1234\r\n");
($rc, $out, $err) = tk('sign', '-k', "$uri?pin-source=$d/pin-crlf", '-c',
                       $crt);
is($rc, 0, 'pin-source: a CRLF line end is not part of the PIN') or diag($err);
write_file("$d/pin-nul", "12\x0034\n");
fails_like(['sign', '-k', "$uri?pin-source=$d/pin-nul", '-c', $crt],
           qr/^tack: \S+: pin-source \Q$d\E\/pin-nul: the PIN has a NUL byte in it$/m,
           'a pin-source PIN with a NUL byte');
($rc, $out, $err) = tk('view', "$uri?module-path=$softhsm");
is($out, "TACK ID        = $id\n", 'view with a module-path');
fails_like(['sign', '-k', "$uri?pin-source=file:$d/nopin", '-c', $crt],
           qr/^tack: \Q$uri?pin-source=file:$d\E\/nopin: pin-source \Q$d\E\/nopin: No such file or directory$/m,
           'a pin-source that is not there');
fails_like(['sign', '-k', "$uri?pin-source=https://pin.example/",
            '-c', $crt],
           qr/^tack: \S+: pin-source=https:\/\/pin\.example\/: only a file is supported \(file:\/path or \/path\)$/m,
           'a pin-source that is not a file');
fails_like(['sign', '-k', "$uri?module-name=nosuch", '-p', '1234',
            '-c', $crt],
           qr/^tack: \S+: no PKCS#11 module named "nosuch" is registered with p11-kit/m,
           'a module-name that is not registered');
my $in_path = "pkcs11:token=tack;object=tackkey;module-path=$softhsm";
fails_like(['sign', '-k', $in_path, '-p', '1234', '-c', $crt],
           qr/^tack: \Q$in_path\E: module-path belongs in the query: \Qpkcs11:token=tack;object=tackkey?module-path=$softhsm\E$/m,
           'module-path in the path part');
fails_like(['view', "pkcs11:token=tack;object=tackkey;module-name=softhsm2"],
           qr/: module-name belongs in the query: \Qpkcs11:token=tack;object=tackkey?module-name=softhsm2\E$/m,
           'view: module-name in the path part');
fails_like(['sign', '-k', 'pkcs11:token=tack;object=tackkey;pin-value=1234',
            '-c', $crt],
           qr/: pin-value belongs in the query: \Qpkcs11:token=tack;object=tackkey?pin-value=***\E$/m,
           'pin-value in the path part');
unlike((tk('sign', '-k', 'pkcs11:token=tack;object=tackkey;pin-value=1234',
           '-c', $crt))[2], qr/1234/, '... never shown');
fails_like(['sign', '-k', 'pkcs11:token=tack?object=tackkey', '-p', '1234',
            '-c', $crt],
           qr/: object belongs in the path: \Qpkcs11:token=tack;object=tackkey\E$/m,
           'object in the query');
fails_like(['sign', '-k', 'pkcs11:token=tack;objekt=tackkey', '-p', '1234',
            '-c', $crt],
           qr/^tack: pkcs11:token=tack;objekt=tackkey: unknown attribute "objekt" \(RFC 7512: token, object, type, id, /m,
           'an unknown attribute is named');
fails_like(['sign', '-k', "$uri?modul-path=$softhsm", '-p', '1234',
            '-c', $crt],
           qr/: unknown attribute "modul-path"/m,
           'an unknown query attribute is named');
fails_like(['sign', '-k', 'pkcs11:token=tack;object=tackkey;type=cert', '-p',
            '1234', '-c', $crt],
           qr/: type=cert is not a key: a TACK key is a private key object \(type=private\)$/m,
           'type=cert');
fails_like(['sign', '-k', 'pkcs11:token=tack;object=tackkey;type=public', '-p',
            '1234', '-c', $crt],
           qr/: type=public cannot sign: name the private key object \(type=private\)$/m,
           'type=public for signing');
fails_like(['sign', '-k', 'pkcs11:token=tack', '-p', '1234', '-c', $crt],
           qr/^tack: pkcs11:token=tack: more than one private key matches: name one with object= or id=$/m,
           'a URI that matches several keys');

# ---- the token behind p11-kit server (docs/hosting-guide.md, "One TACK
# key for many servers"): the tool with p11-kit-client.so and no
# SOFTHSM2_CONF signs, and each way of not reaching the server is named.
my $client = '/usr/lib/x86_64-linux-gnu/pkcs11/p11-kit-client.so';
for my $need ('/usr/bin/p11-kit', $client) {
    BAIL_OUT("$need not installed: run make deps (p11-kit, p11-kit-modules)")
        unless -e $need;
}
mkdir("$d/run", 0700) or die "$d/run: $!";
my $sock = "$d/run/p11.sock";
my $p11_pid = fork();
die "fork: $!" unless defined $p11_pid;
if ($p11_pid == 0) {
    open(STDIN, '<', '/dev/null');
    open(STDOUT, '>', "$d/p11-kit.out");
    open(STDERR, '>&', \*STDOUT);
    %ENV = (%ENV, %env, XDG_RUNTIME_DIR => "$d/run");
    exec('p11-kit', 'server', '-f', '-n', $sock, '--provider', $softhsm,
         'pkcs11:token=tack') or POSIX::_exit(127);
}
for (1 .. 100) { last if -S $sock; select(undef, undef, undef, 0.05); }
ok(-S $sock, 'p11-kit server makes its socket') or diag(slurp("$d/p11-kit.out"));
my $curi = "$uri?module-path=$client";
my $cq = quotemeta($curi);
sub client {
    my ($address, @argv) = @_;
    my %e = (LSAN_OPTIONS => $env{LSAN_OPTIONS});
    $e{P11_KIT_SERVER_ADDRESS} = $address if defined $address;
    return tack({ env => \%e }, @argv);
}
($rc, $out, $err) = client("unix:path=$sock", 'sign', '-k', $curi, '-p',
                           '1234', '-c', $crt, '-o', "$d/remote.pem");
is($rc, 0, 'sign through p11-kit-client.so, no SOFTHSM2_CONF') or diag($err);
($rc, $out, $err) = tk('view', '-c', $crt, "$d/remote.pem");
like($out, qr/^TACK ID        = \Q$id\E$/m, '... under the token\'s key');
# ---- PKCS11_PROVIDER_MODULE never chooses the module (issue 36, item 7):
# pkcs11-provider lets that variable override the module it is given, so
# `tack view` showed another module's key of the same label.  A second
# SoftHSM2 token, also "tack" with a "tackkey", holds another key; the
# variable names p11-kit-client.so, whose server serves the first token.
mkdir("$d/tokens-b") or die "$d/tokens-b: $!";
write_file("$d/softhsm2-b.conf", "directories.tokendir = $d/tokens-b\n"
     . "objectstore.backend = file\nlog.level = ERROR\n");
my %env_b = (%env, SOFTHSM2_CONF => "$d/softhsm2-b.conf");
for my $argv (['softhsm2-util', '--init-token', '--free', '--label', 'tack',
               '--pin', '1234', '--so-pin', '5678'],
              [@p11, '--keypairgen', '--key-type', 'EC:prime256v1',
               '--label', 'tackkey', '--id', '01'],
              ['pkcs11-tool', '--module', $softhsm, '--read-object', '--type',
               'pubkey', '--id', '01', '-o', "$d/pub-b.der"]) {
    my ($rc, $out, $err) = run3({ env => \%env_b }, @$argv);
    die "@$argv: $out$err" if $rc;
}
my $id_b = fingerprint(substr(slurp("$d/pub-b.der"), -64));
isnt($id_b, $id, 'a second token "tack" holds another key "tackkey"');
my %redirect = (%env_b, PKCS11_PROVIDER_MODULE => $client,
                P11_KIT_SERVER_ADDRESS => "unix:path=$sock");
($rc, $out, $err) = tack({ env => \%redirect }, 'view',
                         "$uri?module-path=$softhsm");
is($rc, 0, 'view with PKCS11_PROVIDER_MODULE naming another module') or diag($err);
is($out, "TACK ID        = $id_b\n",
   '... shows the key of the URI\'s module-path, not the other module\'s');
like($err, qr/^tack: warning: PKCS11_PROVIDER_MODULE=\Q$client\E is ignored: the PKCS#11 module is the URI's module-path or module-name \(p11-kit's proxy when it names none\)$/m,
     '... and says the variable, its value, and that it is ignored');
($rc, $out, $err) = tack({ env => \%redirect }, 'sign', '-k',
                         "$uri?module-path=$softhsm", '-p', '1234', '-c',
                         $crt, '-o', "$d/redirect.pem");
is($rc, 0, 'sign with it') or diag($err);
($rc, $out) = tk('view', "$d/redirect.pem");
like($out, qr/^TACK ID        = \Q$id_b\E$/m, '... signs with the URI\'s key');
($rc, $out, $err) = tk({ env => { PKCS11_PROVIDER_MODULE => "$d/nosuch.so" } },
                       'view', $uri);
is($rc, 0, 'a URI without module-path: a bogus PKCS11_PROVIDER_MODULE is not loaded either') or diag($err);
is($out, "TACK ID        = $id\n", '... p11-kit\'s proxy finds the token');
like($err, qr/^tack: warning: PKCS11_PROVIDER_MODULE=\Q$d\E\/nosuch\.so is ignored/m,
     '... with the warning');
($rc, $out, $err) = tk({ env => { PKCS11_PROVIDER_MODULE => '' } }, 'view', $uri);
is($err, '', 'an empty PKCS11_PROVIDER_MODULE (which the provider ignores) is not warned about');

sub client_fails {
    my ($address, $re, $name, @argv) = @_;
    my ($rc, $out, $err) = client($address, @argv ? @argv :
                                  ('sign', '-k', $curi, '-p', '1234', '-c',
                                   $crt));
    is($rc, 2, "$name: exit status 2");
    like($err, $re, "$name: says why");
    is($out, '', "$name: writes nothing");
}
client_fails("unix:path=$sock",
             qr/^tack: $cq: wrong PIN \(login refused: CKR_PIN_INCORRECT\)$/m,
             'a wrong PIN through the server', 'sign', '-k', $curi, '-p',
             '9999', '-c', $crt);
client_fails("unix:path=$d/run/none.sock",
             qr/^tack: $cq: cannot connect to the token: no p11-kit server at P11_KIT_SERVER_ADDRESS=unix:path=\Q$d\E\/run\/none\.sock: No such file or directory$/m,
             'no socket at the address');
client_fails("unix:path=$d/pin",
             qr/^tack: $cq: cannot connect to the token: no p11-kit server at \S+: Connection refused$/m,
             'a file that is not a socket');
client_fails('nowhere',
             qr/^tack: $cq: cannot connect to the token: P11_KIT_SERVER_ADDRESS=nowhere is not an address of p11-kit server \(unix:path=\/SOCKET, as p11-kit server prints it\)$/m,
             'an address p11-kit-client would crash on');
client_fails("unix:path=$d/run/none.sock",
             qr/^tack: $cq: cannot connect to the token: /m,
             'view: no socket', 'view', $curi);
kill('TERM', $p11_pid);
waitpid($p11_pid, 0);
ok(!-e $sock, 'p11-kit server stopped: its socket is gone');
client_fails("unix:path=$sock",
             qr/^tack: $cq: cannot connect to the token: no p11-kit server at P11_KIT_SERVER_ADDRESS=unix:path=\Q$sock\E: No such file or directory$/m,
             'the server stopped');
# The token's own module: C_Initialize fails when SoftHSM2 cannot read its
# configuration, and the code is named.
fails_like(['sign', '-k', "$uri?module-path=$softhsm", '-p', '1234', '-c',
            $crt],
           qr/^tack: \S+: cannot connect to the token: C_Initialize: CKR_GENERAL_ERROR$/m,
           'SoftHSM2 without its configuration',
           { env => { SOFTHSM2_CONF => "$d/none.conf" } });

# The token still works after the failures (a wrong PIN did not lock it).
($rc, $out, $err) = tk('sign', '-k', $uri, '-p', '1234', '-c', $crt);
is($rc, 0, 'the token signs after the failed logins') or diag($err);

# ---- the documentation names the way to make a key in a token
($rc, $out) = tack('help', 'genkey');
like($out, qr/pkcs11-tool .*--keypairgen/s, 'genkey --help shows pkcs11-tool');
like(slurp(top() . '/docs/tack.1'), qr/pkcs11\\-tool .*keypairgen/s,
     'the man page shows pkcs11-tool');

done_testing();
