# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package TackFixture;

# Test fixtures made at test time, independently of the project's C code:
# certificates and P-256 keys with the openssl command, TACKs and break
# signatures assembled here byte by byte (draft-perrin-tls-tack-00 sections
# 3-4) and signed with "openssl dgst -sign".  A module that accepts these has
# been checked against a second implementation, not against itself.

use strict;
use warnings;

use Digest::SHA qw(sha256);
use File::Path qw(make_path);
use File::Temp qw(tempfile);
use MIME::Base64 qw(encode_base64 decode_base64);
use POSIX qw(strftime);

use Exporter 'import';
our @EXPORT_OK = qw(make_cert make_key spki_hash store_file key_public tack_bytes
    breaksig_bytes pem write_file read_pem_blocks minutes_from_now
    ext00 ext02 fingerprint);

sub run {
    my @cmd = @_;
    my $out = qx{@cmd 2>&1};
    die "fixture command failed: @cmd\n$out" if $?;
    return $out;
}

sub write_file {
    my ($path, $data) = @_;
    open my $fh, '>', $path or die "$path: $!";
    binmode $fh;
    print $fh $data;
    close $fh or die "$path: $!";
    return $path;
}

# make_cert($dir, $name, 'rsa'|'ec', $cn): $dir/$name.crt and .key, a
# self-signed end-entity certificate (CA:FALSE keeps mod_ssl quiet).
sub make_cert {
    my ($dir, $name, $type, $cn) = @_;
    my $newkey = $type eq 'rsa'
        ? '-newkey rsa:2048'
        : '-newkey ec -pkeyopt ec_paramgen_curve:P-256';
    make_path($dir);
    run("openssl req -x509 $newkey -nodes -sha256 -days 90"
        . " -subj /CN=$cn -addext subjectAltName=DNS:$cn"
        . " -addext basicConstraints=critical,CA:FALSE"
        . " -keyout $dir/$name.key -out $dir/$name.crt");
    return ("$dir/$name.crt", "$dir/$name.key");
}

# make_key($path): a P-256 private key (PEM), standing in for a TACK key.
sub make_key {
    my ($path) = @_;
    run("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256"
        . " -out $path");
    return $path;
}

# spki_hash($cert): SHA-256 of the DER SubjectPublicKeyInfo.
sub spki_hash {
    my ($cert) = @_;
    my $der = run("openssl x509 -in $cert -pubkey -noout"
        . " | openssl pkey -pubin -outform DER");
    return sha256($der);
}

# store_file($cert, $host, $type): the name a TackStore file for $cert has,
# whoever writes it (tack_cert_store_name): HOST.TYPE.SPKI8.tack.pem, with
# $host its first DNS name in lower case and $type "ecdsa" or "rsa".
sub store_file {
    my ($cert, $host, $type) = @_;
    return lc($host) . ".$type." . substr(unpack('H*', spki_hash($cert)), 0, 8)
        . '.tack.pem';
}

# key_public($key): x || y, 64 bytes.
sub key_public {
    my ($key) = @_;
    my $der = run("openssl pkey -in $key -pubout -outform DER");
    return substr($der, -64);
}

sub fingerprint {
    my ($pub) = @_;
    my $h = sha256($pub);
    my @alpha = ('a' .. 'z', '2' .. '7');
    my $bits = unpack('B*', $h);
    my $b32 = join '', map { $alpha[oct("0b$_")] } ($bits =~ /(.{5})/g);
    return join '.', unpack('(A5)5', substr($b32, 0, 25));
}

# sign($key, $msg): ECDSA P-256 / SHA-256, as r || s (32 bytes each).
sub sign {
    my ($key, $msg) = @_;
    my ($fh, $tmp) = tempfile(UNLINK => 1);
    binmode $fh;
    print $fh $msg;
    close $fh;
    my $der = run("openssl dgst -sha256 -sign $key $tmp");
    my ($rlen, $r, $slen, $s);
    # SEQUENCE { INTEGER r, INTEGER s }, all short-form lengths for P-256
    my @b = unpack('C*', $der);
    die "not an ECDSA signature" unless $b[0] == 0x30 && $b[2] == 0x02;
    $rlen = $b[3];
    $r = substr($der, 4, $rlen);
    $slen = $b[4 + $rlen + 1];
    $s = substr($der, 4 + $rlen + 2, $slen);
    for ($r, $s) {
        s/^\x00+//;
        $_ = ("\x00" x (32 - length)) . $_;
    }
    return $r . $s;
}

sub minutes_from_now {
    my ($minutes) = @_;
    return int(time() / 60) + $minutes;
}

# tack_bytes(key => K, cert => C | target_hash => H, min_generation => m,
#            generation => g, expiration => minutes, corrupt => 1):
# a signed TACK (166 bytes).
sub tack_bytes {
    my %a = @_;
    my $pub = key_public($a{key});
    my $target = $a{target_hash} // spki_hash($a{cert});
    my $exp = $a{expiration} // minutes_from_now(365 * 24 * 60);
    my $body = $pub . pack('CCN', $a{min_generation} // 0,
        $a{generation} // 0, $exp) . $target;
    my $sig = sign($a{key}, "tack_sig" . $body);
    substr($sig, 10, 1) = chr(ord(substr($sig, 10, 1)) ^ 0x55)
        if $a{corrupt};
    return $body . $sig;
}

sub breaksig_bytes {
    my ($key) = @_;
    return key_public($key) . sign($key, "tack_break_sig");
}

# pem($label, @blobs): TACKpy's layout, comment lines before each block.
sub pem {
    my ($label, @blobs) = @_;
    my $out = '';
    for my $b (@blobs) {
        my $b64 = encode_base64($b, '');
        $b64 =~ s/(.{64})/$1\n/g;
        $b64 .= "\n" unless $b64 =~ /\n$/;
        $out .= "Created by tack.py 0.9.7\n"
            . strftime("Created at %Y-%m-%dT%H:%M:%SZ\n", gmtime)
            . "-----BEGIN $label-----\n$b64-----END $label-----\n";
    }
    return $out;
}

sub read_pem_blocks {
    my ($path, $label) = @_;
    open my $fh, '<', $path or die "$path: $!";
    local $/;
    my $text = <$fh>;
    my @blocks;
    while ($text =~ /-----BEGIN \Q$label\E-----\s*\n(.*?)-----END \Q$label\E-----/sg) {
        push @blocks, decode_base64($1);
    }
    return @blocks;
}

# The draft-00 body (section 4) and the draft-02 body (section 3), built
# here to compare with what the server sends.
sub ext00 {
    my ($tack, $sigs, $activation) = @_;
    my $t = defined $tack ? chr(166) . $tack : chr(0);
    my $s = join '', @{ $sigs || [] };
    return $t . pack('n', length $s) . $s . chr($activation ? 1 : 0);
}

sub ext02 {
    my ($tacks, $flags) = @_;
    my $t = join '', @$tacks;
    return pack('n', length $t) . $t . chr($flags);
}

1;
