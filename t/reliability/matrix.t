# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The bad-input matrix (issue 6, item 2).  Every case is one broken
# configuration: unreadable, empty, truncated, garbage, wrong-label and
# oversized files, bad base64, bad signatures, expired TACKs, generations
# below the minimum, target hashes for another certificate, too many break
# signatures, several TACKs for one certificate, break signatures in
# draft-02, unknown directive values and directives in the wrong context.
#
#  1. "apache2 -t" on each case alone: it fails, within a time limit, and
#     its output gives the exact reason (directive, file, why).
#  2. A real start: every file/content case is one virtual host of a single
#     configuration (cases that need the server level start alone); the
#     server starts, logs each reason with the case's vhost, serves nothing
#     of the broken input (what else the vhost has stays served), keeps
#     serving a good vhost, and no process dies.  Directive-syntax cases
#     (unknown values, wrong context) are refused by httpd itself at a real
#     start too: the start fails with the same message and leaves nothing
#     running.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use File::Path qw(make_path);
use POSIX qw(mkfifo);
use RelTest;

need(qw(httpd module tool openssl));

my $d = tmp_root() . '/fx';
make_path($d);
chmod 0755, $d;

# ---- fixtures -----------------------------------------------------------
make_cert($d, 'ec', 'ec', 'v.test', '*.test');
make_cert($d, 'rsa', 'rsa', 'v.test', '*.test');
make_cert($d, 'other', 'ec', 'other.test');
tack_genkey("$d/$_.key") for qw(k1 k2 k3 kb kc);
my $sign = sub { my ($k, $c, $out, @o) = @_;
    tack_sign("$d/$k.key", "$d/$c.crt", "$d/$out", '-e', '200d', @o) };
$sign->('k1', 'ec', 'good.pem');
$sign->('k2', 'ec', 'good2.pem');
$sign->('k3', 'ec', 'good3.pem');
$sign->('k1', 'ec', 'samekey.pem', '-g', '1');
$sign->('k2', 'rsa', 'rsa.pem');
$sign->('k1', 'other', 'other.pem');
tack_sign("$d/k2.key", "$d/ec.crt", "$d/expired.pem", '--now', '2020-01-01',
    '-e', '1d');
tack_break("$d/kb.key", "$d/breaks.pem");
tack_break("$d/kc.key", "$d/breaks-c.pem");
tack_break("$d/k1.key", "$d/own-break.pem");
make_key("$d/raw.key");

my %T = map { $_ => (pem_blocks("$d/$_.pem", 'TACK'))[0] }
    qw(good good2 good3 samekey rsa other expired);
my $BS  = (pem_blocks("$d/breaks.pem", 'TACK BREAK SIG'))[0];
my $BSC = (pem_blocks("$d/breaks-c.pem", 'TACK BREAK SIG'))[0];
my $OWN = (pem_blocks("$d/own-break.pem", 'TACK BREAK SIG'))[0];

sub flip { my ($s, $i) = @_; substr($s, $i, 1) = chr(ord(substr($s, $i, 1)) ^ 0x01); $s }
# A point that is not on P-256: x = 1, y = 1.
my $offcurve = ("\0" x 31) . "\1" . ("\0" x 31) . "\1";
my $good_text = read_file("$d/good.pem");
my ($good_b64) = $good_text =~ /-----BEGIN TACK-----\n(.*?)-----END TACK-----/s;

my %files = (
    'empty.pem'      => '',
    'blank.pem'      => "\n   \n\t\n",
    'empty-bs.pem'   => '',
    'nobegin.pem'    => "Created by tack 0.1.0\nno armour here\n",
    'noend.pem'      => "-----BEGIN TACK-----\n$good_b64",
    'cut.pem'        => "-----BEGIN TACK-----\n" . substr($good_b64, 0, 70) . "\n",
    'short.pem'      => pem('TACK', substr($T{good}, 0, 165)),
    'long.pem'       => pem('TACK', $T{good} . "\0"),
    'emptyblock.pem' => "-----BEGIN TACK-----\n-----END TACK-----\n",
    'bs-short.pem'   => pem('TACK BREAK SIG', substr($BS, 0, 127)),
    'bs-long.pem'    => pem('TACK BREAK SIG', $BS . "\0"),
    'garbage.bin'    => join('', map { chr(($_ * 7919 + 13) % 256) } 1 .. 4096),
    'mismatched-end.pem' => "-----BEGIN TACK-----\n$good_b64-----END TACK BREAK SIG-----\n",
    'big.pem'        => ("# padding padding padding padding padding padding\n" x 22000)
                        . $good_text,
    'b64-char.pem'   => do { (my $t = $good_text) =~ s/(-----BEGIN TACK-----\n....)./$1*/; $t },
    'b64-pad.pem'    => do { (my $t = $good_text) =~ s/(-----BEGIN TACK-----\n)./$1/; $t },
    'bs-b64.pem'     => do { my $t = pem('TACK BREAK SIG', $BS); $t =~ s/(BREAK SIG-----\n...)./$1!/; $t },
    'badsig.pem'     => pem('TACK', flip($T{good}, 140)),
    'badfield.pem'   => pem('TACK', flip($T{good}, 65)),
    'offcurve.pem'   => pem('TACK', $offcurve . substr($T{good}, 64)),
    'bs-badsig.pem'  => pem('TACK BREAK SIG', flip($BS, 100)),
    'bs-offcurve.pem' => pem('TACK BREAK SIG', $offcurve . substr($BS, 64)),
    'pair-expired.pem' => pem('TACK', $T{good}, $T{expired}),
    'gen.pem'        => pem('TACK', tack_bytes(key => "$d/raw.key", cert => "$d/ec.crt",
                                             min_generation => 3, generation => 2)),
    'gen255.pem'     => pem('TACK', tack_bytes(key => "$d/raw.key", cert => "$d/ec.crt",
                                             min_generation => 255, generation => 0)),
    'pair.pem'       => pem('TACK', $T{good}, $T{good2}),
    'samepair.pem'   => pem('TACK', $T{good}, $T{samekey}),
    'triple.pem'     => pem('TACK', $T{good}, $T{good2}, $T{good3}),
    'nine.pem'       => pem('TACK BREAK SIG', ($BS) x 9),
    'five.pem'       => pem('TACK BREAK SIG', ($BS) x 5),
    'four.pem'       => pem('TACK BREAK SIG', ($BSC) x 4),
    'crlf.pem'       => do { (my $t = $good_text) =~ s/\n/\r\n/g; $t },
    'begin-junk.pem' => do { (my $t = $good_text) =~ s/-----BEGIN TACK-----/-----BEGIN TACK-----junk/; $t },
);
write_file("$d/$_", $files{$_}) for keys %files;
# What does not belong in a TACK file, and files others can write.
write_file("$d/with-key.pem", $good_text . read_file("$d/k1.key"));
write_file("$d/with-pkey.pem", $good_text . read_file("$d/raw.key"));
write_file("$d/with-bs.pem", $good_text . read_file("$d/breaks.pem"));
write_file("$d/rw.pem", $good_text);
chmod 0666, "$d/rw.pem";
write_file("$d/bs-rw.pem", read_file("$d/breaks.pem"));
chmod 0664, "$d/bs-rw.pem";
make_path("$d/rwstore");
write_file("$d/rwstore/v.test.tack.pem", $good_text);
chmod 0777, "$d/rwstore";
chmod 0666, "$d/rwstore/v.test.tack.pem";
make_path("$d/nbstore");
write_file("$d/nbstore/v.test.tack.pem", $good_text);
# the directory alone: a file of another owner is not served at all
# (files.t), so the TACK here is root's
chown 65534, 65534, "$d/nbstore";
make_path("$d/adir");
symlink("$d/nowhere.pem", "$d/dangling.pem");
symlink("$d/loop1.pem", "$d/loop2.pem");
symlink("$d/loop2.pem", "$d/loop1.pem");
mkfifo("$d/fifo.pem", 0644) or die "mkfifo: $!";

# ---- the cases ------------------------------------------------------------
#
# { id, in => lines inside the vhost, out => lines at server level,
#   certs => 'ec' (default) | 'ec+rsa',
#   want => regex of the reason (apache2 -t output and error log),
#   kind => 'file' (default: a real start serves what is left),
#           'syntax' (httpd refuses a real start as well),
#           'alone' (real start in a configuration of its own),
#   serve => expected body at a real start (undef: no extension),
#   todo => a known bug, reported as TODO until fixed }
my $P = qr{\S+/};
my $K = qr{[a-z2-7]{5}(?:\.[a-z2-7]{5}){4}};
my @cases = (
    # unreadable
    { id => 'missing file', in => 'TackFile missing.pem',
      want => qr{TackFile ${P}missing\.pem: cannot read file: No such file or directory} },
    { id => 'path through a file', in => 'TackFile good.pem/x',
      want => qr{TackFile ${P}good\.pem/x: cannot read file: Not a directory} },
    { id => 'a directory', in => 'TackFile adir',
      want => qr{TackFile ${P}adir: cannot read file: Is a directory} },
    { id => 'dangling symlink', in => 'TackFile dangling.pem',
      want => qr{TackFile ${P}dangling\.pem: cannot read file: No such file or directory} },
    { id => 'symlink loop', in => 'TackFile loop1.pem',
      want => qr{TackFile ${P}loop1\.pem: cannot read file: Too many levels of symbolic links} },
    { id => 'missing break-signature file', in => 'TackBreakSigsFile missing-bs.pem',
      want => qr{TackBreakSigsFile ${P}missing-bs\.pem: cannot read file: No such file or directory} },
    # Files of pseudo-filesystems are refused before they are opened:
    # /proc/kmsg blocks in read() (httpd -t never returned, a restart hung
    # the parent), and reading it as root would consume the kernel log.
    { id => 'a procfs file that blocks (/proc/kmsg)', in => 'TackFile /proc/kmsg',
      alone => 1,
      want => qr{TackFile /proc/kmsg: cannot read file: a file of a pseudo-filesystem \(proc, sysfs, \.\.\.\), not read} },
    { id => 'a procfs file (/proc/self/mem)', in => 'TackFile /proc/self/mem',
      want => qr{TackFile /proc/self/mem: cannot read file: a file of a pseudo-filesystem} },
    { id => 'a sysfs file', in => 'TackBreakSigsFile /sys/kernel/uevent_seqnum',
      want => qr{TackBreakSigsFile /sys/kernel/uevent_seqnum: cannot read file: a file of a pseudo-filesystem} },
    { id => 'a FIFO (nobody writes)', in => 'TackFile fifo.pem', alone => 1,
      want => qr{TackFile ${P}fifo\.pem: cannot read file: not a regular file} },
    # empty
    { id => 'empty TACK file', in => 'TackFile empty.pem',
      want => qr{TackFile ${P}empty\.pem: no "TACK" PEM block \(no PEM block found\)} },
    { id => 'whitespace-only TACK file', in => 'TackFile blank.pem',
      want => qr{TackFile ${P}blank\.pem: no "TACK" PEM block \(no PEM block found\)} },
    { id => 'empty break-signature file', in => 'TackBreakSigsFile empty-bs.pem',
      want => qr{TackBreakSigsFile ${P}empty-bs\.pem: no "TACK BREAK SIG" PEM block \(no PEM block found\)} },
    { id => 'text without armour', in => 'TackFile nobegin.pem',
      want => qr{TackFile ${P}nobegin\.pem: no "TACK" PEM block \(no PEM block found\)} },
    { id => 'empty PEM block', in => 'TackFile emptyblock.pem',
      want => qr{TackFile ${P}emptyblock\.pem: line 1: wrong length: a "TACK" block must hold 166 bytes} },
    # truncated
    { id => 'BEGIN without END', in => 'TackFile noend.pem',
      want => qr{TackFile ${P}noend\.pem: line 1: malformed PEM armour} },
    { id => 'file cut inside the base64', in => 'TackFile cut.pem',
      want => qr{TackFile ${P}cut\.pem: line 1: malformed PEM armour} },
    { id => 'TACK of 165 bytes', in => 'TackFile short.pem',
      want => qr{TackFile ${P}short\.pem: line 1: wrong length: a "TACK" block must hold 166 bytes} },
    { id => 'break signature of 127 bytes', in => 'TackBreakSigsFile bs-short.pem',
      want => qr{TackBreakSigsFile ${P}bs-short\.pem: line 1: wrong length: a "TACK BREAK SIG" block must hold 128 bytes} },
    # garbage and wrong labels
    { id => 'binary garbage', in => 'TackFile garbage.bin',
      want => qr{TackFile ${P}garbage\.bin: no "TACK" PEM block \(no PEM block found\)} },
    { id => 'a certificate as TackFile', in => 'TackFile ec.crt',
      want => qr{TackFile ${P}ec\.crt: no "TACK" PEM block \(it holds "BEGIN CERTIFICATE"\)} },
    { id => 'a break-signature file as TackFile', in => 'TackFile breaks.pem',
      want => qr{TackFile ${P}breaks\.pem: no "TACK" PEM block \(it holds "BEGIN TACK BREAK SIG"\)} },
    { id => 'a key file as TackFile', in => 'TackFile k1.key',
      want => qr{TackFile ${P}k1\.key: no "TACK" PEM block: it holds a private key \("BEGIN TACK PRIVATE KEY"\), which does not belong in a TackFile \(name the file tack sign wrote; keep the key where only root can read it\)} },
    { id => 'a private key (openssl) as TackFile', in => 'TackFile raw.key',
      want => qr{TackFile ${P}raw\.key: no "TACK" PEM block: it holds a private key \("BEGIN PRIVATE KEY"\)} },
    # A private key beside a TACK is exposed (TACK files are public): a
    # mistake under -t; at a real start the TACK stays served, with a warning.
    { id => 'a TACK file that also holds the TACK key', in => 'TackFile with-key.pem',
      want => qr{TackFile ${P}with-key\.pem: also holds a private key \("BEGIN TACK PRIVATE KEY"\), exposed in a public file: move the key to a file only root can read},
      serve => sub { ext00($T{good}) } },
    { id => 'a TACK file that also holds a TLS private key', in => 'TackFile with-pkey.pem',
      want => qr{TackFile ${P}with-pkey\.pem: also holds a private key \("BEGIN PRIVATE KEY"\)},
      serve => sub { ext00($T{good}) } },
    { id => 'a TACK file as TackBreakSigsFile', in => 'TackBreakSigsFile good.pem',
      want => qr{TackBreakSigsFile ${P}good\.pem: no "TACK BREAK SIG" PEM block \(it holds "BEGIN TACK"\)} },
    { id => 'garbage after the BEGIN armour', in => 'TackFile begin-junk.pem',
      want => qr{TackFile ${P}begin-junk\.pem: line 3: malformed PEM armour} },
    { id => 'END label differs from BEGIN', in => 'TackFile mismatched-end.pem',
      want => qr{TackFile ${P}mismatched-end\.pem: line \d+: malformed PEM armour} },
    # oversized
    { id => 'file over 1 MiB', in => 'TackFile big.pem',
      want => qr{TackFile ${P}big\.pem: cannot read file: file is too large} },
    { id => 'an endless device (/dev/zero)', in => 'TackBreakSigsFile /dev/zero',
      want => qr{TackBreakSigsFile /dev/zero: cannot read file: not a regular file} },
    { id => 'TACK of 167 bytes', in => 'TackFile long.pem',
      want => qr{TackFile ${P}long\.pem: line 1: wrong length: a "TACK" block must hold 166 bytes} },
    { id => 'break signature of 129 bytes', in => 'TackBreakSigsFile bs-long.pem',
      want => qr{TackBreakSigsFile ${P}bs-long\.pem: line 1: wrong length: a "TACK BREAK SIG" block must hold 128 bytes} },
    { id => 'three TACKs in a file', in => "TackFormat draft-02\n    TackFile triple.pem",
      want => qr{TackFile ${P}triple\.pem: more than two TACK blocks} },
    # bad base64
    { id => 'invalid base64 character', in => 'TackFile b64-char.pem',
      want => qr{TackFile ${P}b64-char\.pem: line \d+: invalid base64 in PEM block} },
    { id => 'base64 of a wrong length', in => 'TackFile b64-pad.pem',
      want => qr{TackFile ${P}b64-pad\.pem: line \d+: invalid base64 in PEM block} },
    { id => 'invalid base64 in a break signature', in => 'TackBreakSigsFile bs-b64.pem',
      want => qr{TackBreakSigsFile ${P}bs-b64\.pem: line \d+: invalid base64 in PEM block} },
    # bad signatures and keys
    { id => 'TACK signature does not verify', in => 'TackFile badsig.pem',
      want => qr{TackFile ${P}badsig\.pem: TACK: signature does not verify} },
    { id => 'TACK field changed after signing', in => 'TackFile badfield.pem',
      want => qr{TackFile ${P}badfield\.pem: TACK: signature does not verify} },
    { id => 'TACK key not on the curve', in => 'TackFile offcurve.pem',
      want => qr{TackFile ${P}offcurve\.pem: TACK: public key is not a valid P-256 point} },
    { id => 'break signature does not verify', in => "TackFile good.pem\n    TackBreakSigsFile bs-badsig.pem",
      want => qr{TackBreakSigsFile ${P}bs-badsig\.pem: break signature 1 \(key $K\): signature does not verify},
      serve => sub { ext00($T{good}) } },
    { id => 'break-signature key not on the curve', in => 'TackBreakSigsFile bs-offcurve.pem',
      want => qr{TackBreakSigsFile ${P}bs-offcurve\.pem: break signature 1 \(key $K\): public key is not a valid P-256 point} },
    # expired
    # (a condition of time: -t warns and passes, a real start logs an error)
    { id => 'expired TACK', in => "TackFile expired.pem\n    TackBreakSigsFile breaks.pem",
      expiry => 1,
      want => qr{TackFile ${P}expired\.pem: TACK \(key $K\) expired at 2020-01-02T00:00Z},
      serve => sub { ext00(undef, [$BS]) } },
    { id => 'expired second TACK of a pair', in => "TackFormat draft-02\n    TackFile pair-expired.pem",
      expiry => 1,
      want => qr{TackFile ${P}pair-expired\.pem: TACK 2 of 2 \(key $K\) expired at 2020-01-02T00:00Z} },
    # generation
    { id => 'generation 2 below min_generation 3', in => 'TackFile gen.pem',
      want => qr{TackFile ${P}gen\.pem: TACK: generation 2 is below min_generation 3} },
    { id => 'generation 0 below min_generation 255', in => 'TackFile gen255.pem',
      want => qr{TackFile ${P}gen255\.pem: TACK: generation 0 is below min_generation 255} },
    # target hash
    { id => 'TACK for another certificate', in => 'TackFile other.pem',
      want => qr{TackFile ${P}other\.pem \(\S+:\d+\): target_hash [0-9a-f]{64} of TACK \(key $K\) matches none of the vhost's certificates \(.* \(key_sha256 [0-9a-f]{64}\)\); sign one for the certificate in use: tack sign -k KEY -c CERT -o } },
    { id => 'TACK for the RSA certificate, vhost has ECDSA only', in => "TackFile rsa.pem\n    TackFile good2.pem",
      want => qr{TackFile ${P}rsa\.pem \(\S+:\d+\): target_hash [0-9a-f]{64} of TACK \(key $K\) matches none of the vhost's certificates},
      serve => sub { ext00($T{good2}) } },
    { id => 'server-level TACK matching no vhost', out => 'TackFile other.pem', kind => 'alone',
      want => qr{TackFile ${P}other\.pem \(\S+:\d+\): target_hash of TACK \(key $K\) matches no certificate of any virtual host} },
    # too many break signatures
    { id => 'nine break signatures in one file', in => 'TackBreakSigsFile nine.pem',
      want => qr{TackBreakSigsFile ${P}nine\.pem: more than 8 break signatures \(a vhost serves at most 8\)} },
    { id => 'nine break signatures in two files', in => "TackBreakSigsFile five.pem\n    TackBreakSigsFile four.pem",
      want => qr{TackBreakSigsFile ${P}four\.pem: 9 break signatures in all for this virtual host, at most 8 allowed},
      serve => sub { ext00(undef, [($BS) x 5]) } },
    # several TACKs for one certificate
    { id => 'two TACKs for one certificate (draft-00)', in => "TackFile good.pem\n    TackFile good2.pem",
      want => qr{TackFile ${P}good2\.pem \(\S+:\d+\): a second TACK for (?:\S+ )?certificate \S+, already served by TackFile ${P}good\.pem; draft-00 serves one TACK per certificate},
      serve => sub { ext00($T{good}) } },
    { id => 'the same TackFile twice (draft-00)', in => "TackFile good.pem\n    TackFile good.pem",
      want => qr{TackFile ${P}good\.pem \(\S+:\d+\): a second TACK for .* already served by TackFile ${P}good\.pem},
      serve => sub { ext00($T{good}) } },
    { id => 'a pair file in draft-00', in => 'TackFile pair.pem',
      want => qr{TackFile ${P}pair\.pem \(\S+:\d+\): holds 2 TACKs; in TackFormat draft-00 a TACK file holds one} },
    { id => 'three TACKs for one certificate (draft-02)',
      in => "TackFormat draft-02\n    TackFile good.pem\n    TackFile good2.pem\n    TackFile good3.pem",
      want => qr{TackFile ${P}good3\.pem \(\S+:\d+\): a third TACK for .*draft-02 serves at most two per certificate},
      serve => sub { ext02([$T{good}, $T{good2}]) } },
    { id => 'two TACKs with one key (draft-02)', in => "TackFormat draft-02\n    TackFile good.pem\n    TackFile samekey.pem",
      want => qr{TackFile ${P}samekey\.pem \(\S+:\d+\): TACK has the key $K of TackFile ${P}good\.pem, also for .*two TACKs for one certificate need two keys},
      serve => sub { ext02([$T{good}]) } },
    { id => 'a pair file with one key twice (draft-02)', in => "TackFormat draft-02\n    TackFile samepair.pem",
      want => qr{TackFile ${P}samepair\.pem: both TACKs have the same key $K \(a pair must use two TACK keys\)} },
    # break signatures where they cannot go
    { id => 'break signatures in draft-02', in => "TackFormat draft-02\n    TackFile good.pem\n    TackBreakSigsFile breaks.pem",
      want => qr{TackBreakSigsFile ${P}breaks\.pem \(\S+:\d+\): break signatures do not exist in TackFormat draft-02},
      serve => sub { ext02([$T{good}]) } },
    { id => 'break signature of the served TACK key', in => "TackFile good.pem\n    TackBreakSigsFile own-break.pem",
      want => qr{TackFile ${P}good\.pem \(\S+:\d+\): its key $K is broken by a break signature in TackBreakSigsFile ${P}own-break\.pem},
      serve => sub { ext00(undef, [$OWN]) } },
    # unknown directive values
    { id => 'TackFormat draft-03', in => 'TackFormat draft-03', kind => 'syntax',
      want => qr{TackFormat draft-03: unknown format \(draft-00 or draft-02\)} },
    { id => 'TackFormat empty', in => 'TackFormat ""', kind => 'syntax',
      want => qr{TackFormat takes one argument, draft-00 \(default\) or draft-02} },
    { id => 'TackFile flag "active"', in => 'TackFile good.pem active', kind => 'syntax',
      want => qr{TackFile \S*good\.pem: unknown flag "active" \(only "inactive" is allowed\)} },
    { id => 'TackPinActivation maybe', in => 'TackPinActivation maybe', kind => 'syntax',
      want => qr{TackPinActivation must be On or Off} },
    { id => 'TackTLS13 1', in => 'TackTLS13 1', kind => 'syntax',
      want => qr{TackTLS13 must be On or Off} },
    { id => 'TackFile without argument', in => 'TackFile', kind => 'syntax',
      want => qr{TackFile takes 1-2 arguments, a TACK file, and optionally 'inactive'} },
    { id => 'TackFile with three arguments', in => 'TackFile good.pem inactive x', kind => 'syntax',
      want => qr{TackFile takes 1-2 arguments, a TACK file, and optionally 'inactive'} },
    { id => 'TackBreakSigsFile with two arguments', in => 'TackBreakSigsFile breaks.pem breaks.pem', kind => 'syntax',
      want => qr{TackBreakSigsFile takes one argument} },
    { id => 'misspelt directive', in => 'TackFiles good.pem', kind => 'syntax',
      want => qr{Invalid command 'TackFiles'} },
    # directives in the wrong context
    { id => 'TackFile in <Directory>', in => "<Directory \@ROOT\@/htdocs>\n    TackFile good.pem\n    </Directory>",
      kind => 'syntax', want => qr{TackFile not allowed in <Directory> context} },
    { id => 'TackBreakSigsFile in <Location>', in => "<Location /x>\n    TackBreakSigsFile breaks.pem\n    </Location>",
      kind => 'syntax', want => qr{TackBreakSigsFile not allowed in <Location> context} },
    { id => 'TackFormat in <Files>', in => "<Files x>\n    TackFormat draft-02\n    </Files>",
      kind => 'syntax', want => qr{TackFormat not allowed in <Files> context} },
    { id => 'TackPinActivation in <Directory>', in => "<Directory />\n    TackPinActivation on\n    </Directory>",
      kind => 'syntax', want => qr{TackPinActivation not allowed in <Directory> context} },
    { id => 'TackTLS13 in <Location>', in => "<Location />\n    TackTLS13 on\n    </Location>",
      kind => 'syntax', want => qr{TackTLS13 not allowed in <Location> context} },
);

# Good configurations first: the matrix proves nothing if these fail.
my @good = (
    { id => 'a good TACK', in => 'TackFile good.pem' },
    { id => 'TACK, break signatures, activation',
      in => "TackFile good.pem\n    TackBreakSigsFile breaks.pem\n    TackPinActivation on" },
    { id => 'RSA and ECDSA certificates, one TACK each', certs => 'ec+rsa',
      in => "TackFile rsa.pem\n    TackFile good.pem" },
    { id => 'draft-02 pair file', in => "TackFormat draft-02\n    TackFile pair.pem" },
    { id => 'CRLF line endings', in => 'TackFile crlf.pem' },
);

my $n_bad = @cases;
my @real_file = grep { ($_->{kind} // 'file') eq 'file' && !$_->{alone} } @cases;
my @real_alone = grep { ($_->{kind} // '') eq 'alone' } @cases;
my @real_syntax = grep { ($_->{kind} // '') eq 'syntax' } @cases;
my @hang = grep { $_->{alone} } @cases;

# Served, with a warning (section at the end).
my @warned = (
    { id => 'break signatures inside a TackFile', in => 'TackFile with-bs.pem',
      want => qr{\[tack:warn\].*TACK00059: vhost \S+: TackFile ${P}with-bs\.pem: its "TACK BREAK SIG" blocks are not served from here \(name the file with TackBreakSigsFile\)} },
    { id => 'a TackFile everyone can write', in => 'TackFile rw.pem',
      want => qr{\[tack:warn\].*TACK00059: vhost \S+: TackFile ${P}rw\.pem: writable by everyone \(whoever can write it decides what pinned clients must accept\): chmod go-w} },
    { id => 'a break-signature file its group can write',
      in => "TackFile good.pem\n    TackBreakSigsFile bs-rw.pem",
      want => qr{\[tack:warn\].*TACK00060: vhost \S+: TackBreakSigsFile ${P}bs-rw\.pem: writable by its group} },
    # (issue 25) a store others can write or own is refused under -t, and
    # warned about at a start, where its TACKs are still served
    { id => 'a store directory and file everyone can write', in => 'TackStore fx/rwstore',
      t_refuses => qr{\[tack:error\].*TACK00065: TackStore ${P}rwstore: writable by everyone \(whoever can write it decides what pinned clients must accept\): chmod go-w ${P}rwstore .*\n.*TACK00065: TackStore ${P}rwstore/v\.test\.tack\.pem: writable by everyone}s,
      want => qr{TACK00066: TackStore ${P}rwstore: writable by everyone.*; its TACKs are served all the same\n.*TACK00066: TackStore ${P}rwstore/v\.test\.tack\.pem: writable by everyone}s },
    { id => 'a store directory owned by nobody', in => 'TackStore fx/nbstore',
      t_refuses => qr{\[tack:error\].*TACK00065: TackStore ${P}nbstore: owned by nobody \(uid 65534\), not by root \(whoever owns it decides what pinned clients must accept\): chown root ${P}nbstore, and remove or sign again any file in it you did not sign}s,
      want => qr{TACK00066: TackStore ${P}nbstore: owned by nobody .*; its TACKs are served all the same}s },
);

plan tests => 2 * @good + 3 * $n_bad
    + 5 + 3 * @real_file
    + 4 * @real_alone + 4 * @real_syntax + 3 * @hang + 5 * @warned + 1;

note("matrix: $n_bad broken configurations, " . scalar(@good) . " good ones");

my $certs_ec = "SSLCertificateFile $d/ec.crt\n    SSLCertificateKeyFile $d/ec.key";
my $certs_rsa = "SSLCertificateFile $d/rsa.crt\n    SSLCertificateKeyFile $d/rsa.key\n    $certs_ec";

sub vhost {
    my ($c, $name) = @_;
    my $certs = ($c->{certs} // 'ec') eq 'ec+rsa' ? $certs_rsa : $certs_ec;
    my $in = $c->{in} // '';
    return <<"V";
<VirtualHost 127.0.0.1:\@PORT\@>
    ServerName $name
    SSLEngine on
    $certs
    $in
</VirtualHost>
V
}

my $h = RelTest::Httpd->new(name => 'matrix');
my $conf_of = sub {
    my ($c) = @_;
    # Relative file names resolve against ServerRoot: the fixtures are
    # reached through a symlink there.
    return ($c->{out} // '') . "\n" . vhost($c, 'v.test');
};
symlink($d, $h->root . '/fx') or die;
for my $c (@cases, @good) {
    $c->{in} =~ s/\b(TackFile|TackBreakSigsFile)(\s+)(?!fx\/)(?![\"\/])(\S)/$1$2fx\/$3/g if defined $c->{in};
    $c->{out} =~ s/\b(TackFile|TackBreakSigsFile)(\s+)(?!fx\/)(?![\"\/])(\S)/$1$2fx\/$3/g if defined $c->{out};
}

# ---- 1. apache2 -t ------------------------------------------------------------
for my $c (@good) {
    $h->write_conf($conf_of->($c));
    my $r = $h->configtest;
    is($r->{rc}, 0, "good: $c->{id}: apache2 -t passes") or diag($r->{out});
    like($r->{out}, qr/Syntax OK/, "good: $c->{id}: Syntax OK");
}

for my $c (@cases) {
    $h->write_conf($conf_of->($c));
    my $r;
    TODO: {
        local $TODO = $c->{todo};
        $r = $c->{alone} ? $h->run_httpd(3, '-t') : $h->configtest;
        ok(!$r->{timed_out} && !$r->{signal},
           "$c->{id}: apache2 -t ends by itself, without a crash ($r->{seconds}s)")
            or diag("timed out or killed by a signal:\n$r->{out}");
        if ($c->{expiry}) {
            ok(!$r->{timed_out} && $r->{rc} == 0,
               "$c->{id}: apache2 -t passes (expiry is warned about, not refused)")
                or diag($r->{out});
            like($r->{out}, qr/\[tack:warn\].*TACK00024: .*$c->{want}.*; left out: sign a new one/,
                 "$c->{id}: apache2 -t warns, saying why") or diag($r->{out});
            next;
        }
        ok(!$r->{timed_out} && $r->{rc} != 0, "$c->{id}: apache2 -t fails")
            or diag($r->{out});
        like($r->{out}, $c->{want}, "$c->{id}: apache2 -t says why")
            or diag($r->{out});
    }
}

# ---- 2. a real start with every file case at once --------------------------------
my $all = vhost({ in => 'TackFile fx/good.pem' }, 'good.test');
my $i = 0;
for my $c (@real_file) {
    $c->{name} = sprintf('c%02d.test', ++$i);
    $all .= vhost($c, $c->{name});
}
$h->write_conf($all);
my $r = $h->start;
is($r->{rc}, 0, 'real start with ' . @real_file . ' broken vhosts: apache2 -k start succeeds')
    or diag($r->{out});
ok($r->{ready}, 'the server comes up');
my $log = $h->log_since(0);

for my $c (@real_file) {
    my $n = $c->{name};
    like($log, qr/vhost \Q$n\E:\d+: .*$c->{want}/,
         "real start: $c->{id}: logged with its vhost")
        or diag(join "\n", grep { /\Q$n\E/ } split /\n/, $log);
    my $s = s_client(port => $h->port, name => $n);
    ok($s->{ok}, "real start: $c->{id}: the handshake succeeds")
        or diag($s->{out});
    my $want = $c->{serve} ? $c->{serve}->() : undef;
    is(hexs($s->{ext}), hexs($want),
       "real start: $c->{id}: " . ($want ? 'only what is good is served'
                                         : 'nothing is served'));
}
my $s = s_client(port => $h->port, name => 'good.test');
is(hexs($s->{ext}), hexs(ext00($T{good})), 'real start: the good vhost serves its TACK');
ok($h->alive, 'the server still runs after every case was fetched');
is(join("\n", $h->crashes), '', 'no process died');
$h->stop;

# ---- cases that need a configuration of their own ---------------------------------
for my $c (@real_alone) {
    my $ha = RelTest::Httpd->new(name => 'alone');
    symlink($d, $ha->root . '/fx');
    $ha->write_conf($conf_of->($c));
    my $ra = $ha->start;
    is($ra->{rc}, 0, "real start: $c->{id}: starts") or diag($ra->{out});
    ok($ra->{ready}, "real start: $c->{id}: serves");
    like($ha->log_since(0), $c->{want}, "real start: $c->{id}: logged");
    my $sa = s_client(port => $ha->port, name => 'v.test');
    ok($sa->{ok} && !defined $sa->{ext}, "real start: $c->{id}: nothing served")
        or diag($sa->{out});
    $ha->stop;
}

# ---- directive syntax: httpd refuses a real start too ---------------------------
for my $c (@real_syntax) {
    my $hs = RelTest::Httpd->new(name => 'syntax');
    symlink($d, $hs->root . '/fx');
    $hs->write_conf($conf_of->($c));
    my $rs = $hs->run_httpd(30, '-k', 'start');
    ok(!$rs->{timed_out}, "real start: $c->{id}: ends by itself");
    isnt($rs->{rc}, 0, "real start: $c->{id}: refused");
    like($rs->{out}, $c->{want}, "real start: $c->{id}: says why") or diag($rs->{out});
    select(undef, undef, undef, 0.2);
    ok(!$hs->alive, "real start: $c->{id}: nothing left running");
    $hs->stop;
}

# ---- cases that could hang: each alone, under a time limit ------------------------------
for my $c (@hang) {
    my $ht = RelTest::Httpd->new(name => 'alone');
    symlink($d, $ht->root . '/fx');
    $ht->write_conf($conf_of->($c) . vhost({ in => 'TackFile fx/good.pem' }, 'good.test'));
    TODO: {
        local $TODO = $c->{todo};
        my $rt = $ht->run_httpd(3, '-k', 'start');
        ok(!$rt->{timed_out}, "real start: $c->{id}: does not hang")
            or diag("apache2 -k start killed after 3 s");
        ok($rt->{rc} == 0 && $ht->wait_ready(0, 3), "real start: $c->{id}: serves");
        like($ht->log_since(0), $c->{want}, "real start: $c->{id}: logged");
    }
    $ht->stop;
}

# ---- served, with a warning: -t passes and says so, a real start too -------------
for my $c (@warned) {
    $c->{in} =~ s/\b(TackFile|TackBreakSigsFile)(\s+)(?!fx\/)(?![\"\/])(\S)/$1$2fx\/$3/g;
    $h->write_conf($conf_of->($c));
    my $rt = $h->configtest;
    if ($c->{t_refuses}) {
        isnt($rt->{rc}, 0, "warned: $c->{id}: apache2 -t refuses it");
        like($rt->{out}, $c->{t_refuses}, "warned: $c->{id}: apache2 -t says why, with the fix");
    } else {
        is($rt->{rc}, 0, "warned: $c->{id}: apache2 -t passes") or diag($rt->{out});
        like($rt->{out}, $c->{want}, "warned: $c->{id}: apache2 -t warns");
    }
    my $rw = $h->start;
    ok($rw->{ready}, "warned: $c->{id}: a real start serves") or diag($rw->{out});
    like($h->log_since(0), $c->{want}, "warned: $c->{id}: and logs the warning");
    my $sw = s_client(port => $h->port, name => 'v.test');
    is(hexs($sw->{ext}), hexs(ext00($T{good}, $c->{in} =~ /bs-rw/ ? [$BS] : [])),
       "warned: $c->{id}: the TACK is served");
    $h->stop;
}

ok(1, "matrix size: $n_bad broken configurations");
