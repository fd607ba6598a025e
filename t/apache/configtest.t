# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Under "apache2 -t" (and so apache2ctl configtest/graceful/restart) every
# bad input is an error: the test fails with a message naming the directive,
# the file and the reason.  Each case is a private configuration with one
# problem; the good cases must pass.  Certificates are matched by finding
# SSLCertificateFile in the configuration tree, including Include'd files,
# relative paths and Define'd variables.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem write_file
    minutes_from_now);

my $h = TackTest::Httpd->new('configtest');
my $d = $h->root;

# ---- material ---------------------------------------------------------------
make_cert($d, 'ec', 'ec', 'v.test');
make_cert($d, 'rsa', 'rsa', 'v.test');
make_cert($d, 'other', 'ec', 'other.test');
make_key("$d/$_.key") for qw(k1 k2 k3 kb);
# a certificate file with its private key in front of the certificate
write_file("$d/combined.pem",
    TackHelpers::slurp("$d/ec.key") . TackHelpers::slurp("$d/ec.crt"));

my $tack = sub { tack_bytes(key => "$d/$_[0].key", cert => "$d/$_[1].crt", @_[2 .. $#_]) };
my %files = (
    'good.pem'     => tackpy_pem('TACK', $tack->('k1', 'ec')),
    'good2.pem'    => tackpy_pem('TACK', $tack->('k2', 'ec')),
    'good3.pem'    => tackpy_pem('TACK', $tack->('k3', 'ec')),
    'samekey.pem'  => tackpy_pem('TACK', $tack->('k1', 'ec', generation => 1)),
    'rsa.pem'      => tackpy_pem('TACK', $tack->('k2', 'rsa')),
    'other.pem'    => tackpy_pem('TACK', $tack->('k1', 'other')),
    'pair.pem'     => tackpy_pem('TACK', $tack->('k1', 'ec'), $tack->('k2', 'ec')),
    'triple.pem'   => tackpy_pem('TACK', $tack->('k1', 'ec'), $tack->('k2', 'ec'),
                          $tack->('k3', 'ec')),
    'badsig.pem'   => tackpy_pem('TACK', $tack->('k1', 'ec', corrupt => 1)),
    'gen.pem'      => tackpy_pem('TACK', $tack->('k1', 'ec', min_generation => 3,
                                          generation => 2)),
    'expired.pem'  => tackpy_pem('TACK', $tack->('k1', 'ec',
                                          expiration => minutes_from_now(-60))),
    'short.pem'    => tackpy_pem('TACK', substr($tack->('k1', 'ec'), 0, 165)),
    'noblock.pem'  => "Created by tack.py 0.9.7\nno armour here\n",
    'badpem.pem'   => "-----BEGIN TACK-----\nAAAA\n",
    'breaks.pem'   => tackpy_pem('TACK BREAK SIG', breaksig_bytes("$d/kb.key")),
    'own-break.pem' => tackpy_pem('TACK BREAK SIG', breaksig_bytes("$d/k1.key")),
    'badbs.pem'    => do {
        my $b = breaksig_bytes("$d/kb.key");
        substr($b, 100, 1) = chr(ord(substr($b, 100, 1)) ^ 1);
        tackpy_pem('TACK BREAK SIG', $b);
    },
    'nine.pem'     => tackpy_pem('TACK BREAK SIG', (breaksig_bytes("$d/kb.key")) x 9),
    'five.pem'     => tackpy_pem('TACK BREAK SIG', (breaksig_bytes("$d/kb.key")) x 5),
    'four.pem'     => tackpy_pem('TACK BREAK SIG', (breaksig_bytes("$d/kb.key")) x 4),
    'certs.conf'   => "SSLCertificateFile ec.crt\nSSLCertificateKeyFile ec.key\n",
    'certs-other.conf' => "SSLCertificateFile other.crt\n"
                        . "SSLCertificateKeyFile other.key\n",
);
write_file("$d/$_", $files{$_}) for keys %files;

sub vhost {
    my ($inside, %o) = @_;
    my $certs = $o{certs} // "SSLCertificateFile \@ROOT\@/ec.crt\n"
        . "    SSLCertificateKeyFile \@ROOT\@/ec.key";
    return ($o{outside} // '') . <<"V";
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName v.test
    SSLEngine on
    $inside
    $certs
</VirtualHost>
V
}

my $rsa_ec = "SSLCertificateFile \@ROOT\@/rsa.crt\n"
    . "    SSLCertificateKeyFile \@ROOT\@/rsa.key\n"
    . "    SSLCertificateFile \@ROOT\@/ec.crt\n"
    . "    SSLCertificateKeyFile \@ROOT\@/ec.key";

# [name, configuration, undef for "Syntax OK" or the expected message]
my @cases = (
    ['a good TACK', vhost('TackFile good.pem'), undef],
    ['TACK, break signatures, activation', vhost("TackFile good.pem\n"
        . "    TackBreakSigsFile breaks.pem\n    TackPinActivation on"), undef],
    ['RSA + ECDSA, one TACK each', vhost("TackFile rsa.pem\n    TackFile good.pem",
        certs => $rsa_ec), undef],
    ['certificate from an Include with relative paths', vhost('TackFile good.pem',
        certs => 'Include certs.conf'), undef],
    ['certificate via Define', vhost('TackFile good.pem',
        outside => "Define CERTDIR \@ROOT\@\n",
        certs => "SSLCertificateFile \${CERTDIR}/ec.crt\n"
               . "    SSLCertificateKeyFile \${CERTDIR}/ec.key"), undef],
    ['certificate and key in one file (the key is not read)',
        vhost('TackFile good.pem',
              certs => 'SSLCertificateFile combined.pem'), undef],
    ['server-level TACK matching a vhost', vhost('', outside =>
        "TackFile good.pem\n"), undef],
    ['draft-02 pair file', vhost("TackFormat draft-02\n    TackFile pair.pem"), undef],
    ['draft-02 two files, one inactive', vhost("TackFormat draft-02\n"
        . "    TackFile good.pem\n    TackFile good2.pem inactive"), undef],

    ['missing file', vhost('TackFile missing.pem'),
        qr{TackFile \S+/missing\.pem: cannot read file: No such file or directory}],
    ['a directory', vhost('TackFile @ROOT@'),
        qr{TackFile \S+/configtest: cannot read file: Is a directory}],
    ['a file without PEM block', vhost('TackFile noblock.pem'),
        qr{TackFile \S+/noblock\.pem: no "TACK" PEM block}],
    ['a break-signature file as TackFile', vhost('TackFile breaks.pem'),
        qr{TackFile \S+/breaks\.pem: no "TACK" PEM block}],
    ['broken PEM armour', vhost('TackFile badpem.pem'),
        qr{TackFile \S+/badpem\.pem: (line \d+: )?malformed PEM armour}],
    ['wrong size', vhost('TackFile short.pem'),
        qr{TackFile \S+/short\.pem: line \d+: wrong length: a "TACK" block must hold 166 bytes}],
    ['bad signature', vhost('TackFile badsig.pem'),
        qr{TackFile \S+/badsig\.pem: TACK: signature does not verify}],
    ['generation below min_generation', vhost('TackFile gen.pem'),
        qr{TackFile \S+/gen\.pem: TACK: generation 2 is below min_generation 3}],
    ['more than two TACKs in a file', vhost("TackFormat draft-02\n    TackFile triple.pem"),
        qr{TackFile \S+/triple\.pem: more than two TACK blocks}],
    ['a bad break signature', vhost('TackBreakSigsFile badbs.pem'),
        qr{TackBreakSigsFile \S+/badbs\.pem: break signature 1 \(key [a-z2-7.]+\): signature does not verify}],
    ['nine break signatures in one file', vhost('TackBreakSigsFile nine.pem'),
        qr{TackBreakSigsFile \S+/nine\.pem: more than 8 break signatures}],
    ['nine break signatures in two files', vhost("TackBreakSigsFile five.pem\n"
        . "    TackBreakSigsFile four.pem"),
        qr{TackBreakSigsFile \S+/four\.pem: 9 break signatures in all for this virtual host, at most 8}],
    ['a break signature for the served TACK key', vhost("TackFile good.pem\n"
        . "    TackBreakSigsFile own-break.pem"),
        qr{TackFile \S+/good\.pem \(\S+:\d+\): its key [a-z2-7.]+ is broken by a break signature in TackBreakSigsFile \S+/own-break\.pem}],
    ['target_hash matching no certificate', vhost('TackFile other.pem'),
        qr{TackFile \S+/other\.pem \(\S+:\d+\): target_hash [0-9a-f]{64} of TACK \(key [a-z2-7.]+\) matches none of the vhost's certificates \(certificate \S+/ec\.crt \(key_sha256 [0-9a-f]{64}\)\); sign one for the certificate in use: tack sign -k KEY -c CERT -o \S+/other\.pem}],
    ['mismatch with the certificate of an Include', vhost('TackFile good.pem',
        certs => 'Include certs-other.conf'),
        qr{TackFile \S+/good\.pem \(\S+:\d+\): target_hash .* matches none of the vhost's certificates \(certificate \S+/other\.crt \(key_sha256 [0-9a-f]{64}\)\)}],
    ['two TACKs for one certificate (draft-00)', vhost("TackFile good.pem\n"
        . "    TackFile good2.pem"),
        qr{TackFile \S+/good2\.pem \(\S+:\d+\): a second TACK for certificate \S+/ec\.crt, already served by TackFile \S+/good\.pem}],
    ['a pair file in draft-00', vhost('TackFile pair.pem'),
        qr{TackFile \S+/pair\.pem \(\S+:\d+\): holds 2 TACKs; in TackFormat draft-00 a TACK file holds one}],
    ['three TACKs for one certificate (draft-02)', vhost("TackFormat draft-02\n"
        . "    TackFile good.pem\n    TackFile good2.pem\n    TackFile good3.pem"),
        qr{TackFile \S+/good3\.pem \(\S+:\d+\): a third TACK for certificate}],
    ['two TACKs with one key (draft-02)', vhost("TackFormat draft-02\n"
        . "    TackFile good.pem\n    TackFile samekey.pem"),
        qr{TackFile \S+/samekey\.pem \(\S+:\d+\): TACK has the key [a-z2-7.]+ of TackFile \S+/good\.pem}],
    ['break signatures in draft-02', vhost("TackFormat draft-02\n"
        . "    TackFile good.pem\n    TackBreakSigsFile breaks.pem"),
        qr{TackBreakSigsFile \S+/breaks\.pem \(\S+:\d+\): break signatures do not exist in TackFormat draft-02}],
    ['server-level TACK matching no vhost', vhost('', outside => "TackFile other.pem\n"),
        qr{TackFile \S+/other\.pem \(\S+:\d+\): target_hash of TACK \(key [a-z2-7.]+\) matches no certificate of any virtual host}],
    ['unknown flag', vhost('TackFile good.pem active'),
        qr{TackFile good\.pem: unknown flag "active"}],
    ['unknown format', vhost('TackFormat draft-03'),
        qr{TackFormat draft-03: unknown format}],
);

plan tests => 2 * @cases + 1;

for my $c (@cases) {
    my ($name, $conf, $want) = @$c;
    $h->write_conf($conf);
    my ($rc, $out) = $h->configtest;
    if (!defined $want) {
        is($rc, 0, "$name: apache2 -t passes") or diag($out);
        like($out, qr/Syntax OK/, "$name: Syntax OK");
    }
    else {
        isnt($rc, 0, "$name: apache2 -t fails") or diag($out);
        like($out, $want, "$name: says why") or diag($out);
    }
}

# A directive error points at the configuration line.
$h->write_conf(vhost('TackFile badsig.pem'));
my (undef, $out) = $h->configtest;
like($out, qr/Syntax error on line \d+ of \S+httpd\.conf:\s*TackFile/,
    'directive errors carry the configuration file and line');
