# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# Generations only go up (issue 42, item 3): `tack sign` keeps min_generation
# and generation at least where a TACK under the same key already has them
# for the certificate's names -- the file it replaces, the store's other
# files for the host, the module's state file -- says so in one line, and
# refuses a generation asked below that floor unless
# --allow-lower-generation; `tack view -c` fails a TACK below it; and the
# certbot hook's "kept" test counts a TACK below the asked or inherited
# generation as not kept.  The admin guide's section 10 then section 9, as
# printed, keep generation 1.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use JSON::PP;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

my $d = tmp();
my ($crt) = mkcert('www', 'www.example.org');
my ($new) = mkcert('www-new', 'www.example.org');
my ($other) = mkcert('other', 'other.example.org');
ok0(tack('genkey', '-p', 'pw', '-o', "$d/k.pem"));
ok0(tack('genkey', '-p', 'pw', '-o', "$d/k2.pem"));
write_file("$d/pw", "pw\n");
# No state file of the machine's: each run names its own (or none there).
my @st = ('--state', "$d/none.json");

sub gens {
    my ($file) = @_;
    my ($rc, $out) = tack('view', $file);
    return $out =~ /^min_generation = (\d+)\ngeneration     = (\d+)$/m ? "$1/$2" : "?";
}

# ---- the admin guide: section 10 raises, section 9's job as printed keeps ----
my $tf = "$d/www.example.org.tack.pem";
my ($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                            '-c', $crt, '-e', '45d', '-o', $tf);
is($rc, 0, 'section 9: the first TACK, generation 0') or diag($err);
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-m', '1', '-g', '1', '-e', '45d', '-o', $tf, '--force');
is($rc, 0, 'section 10: -m 1 -g 1 over it') or diag($err);
($rc, $out, $err) = tack('--quiet', 'sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-e', '45d', '-o', $tf, '--force');
is($rc, 0, "section 9's job as printed (no -m, no -g) runs") or diag($err);
is(gens($tf), '1/1', '... and keeps min_generation 1 and generation 1');
is($err, '', '... silently under --quiet');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-e', '45d', '-o', $tf, '--force');
like($err, qr/^tack: \Q$new\E: signed at generation 1 \(min_generation 1\), not 0 \(0\): \Q$tf\E holds a TACK under this key that high \(generations only go up\)$/m,
     'without --quiet one line says it raised them, and why');

# ---- asked below the floor: refused, unless --allow-lower-generation ---------
my $before = slurp($tf);
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-g', '0', '-o', $tf, '--force');
is($rc, 2, '-g 0 over a generation-1 TACK: exit 2');
like($err, qr/tack: \Q$new\E: -g 0 is below min_generation 1, which a TACK under this key holds for its names \(\Q$tf\E\): clients that saw it refuse a lower generation \(certificate_revoked\); give -g 1 or higher, or --allow-lower-generation if no client can have seen it; nothing written/,
     '... naming the floor, where it was found, and both ways out');
is(slurp($tf), $before, '... the file unchanged');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-g', '0', '-o', $tf, '--force', '--allow-lower-generation');
is($rc, 0, '--allow-lower-generation says so') or diag($err);
is(gens($tf), '0/0', '... generation 0 written');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-m', '0', '-g', '2', '-o', $tf, '--force');
is(gens($tf), '0/2', 'a generation asked above the floor is taken as asked');
($rc, $out, $err) = tack('sign', '-k', "$d/k2.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-o', $tf, '--force');
is(gens($tf), '0/0', "another key's TACK in the file replaced: nothing inherited");

# ---- a store: the other files of the host, under the key ---------------------
my $store = "$d/store";
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $crt, '-m', '2', '-g', '3', '-o', "$store/");
is($rc, 0, 'a store file at min_generation 2, generation 3') or diag($err);
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-o', "$store/");
is($rc, 0, 'the renewed certificate (a new TLS key: a new file) into the store') or diag($err);
is(gens("$store/" . store_name($new, 'www.example.org')), '2/3',
   '... signed at the generations of the host\'s other file under the key');
like($err, qr/signed at generation 3 \(min_generation 2\), not 0 \(0\): \Q$store\E\/\S+ holds a TACK under this key that high/,
     '... saying which file');
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $other, '-o', "$store/");
is(gens("$store/" . store_name($other, 'other.example.org')), '0/0',
   "another host's certificate in the same store: nothing inherited");
($rc, $out, $err) = tack('sign', '-k', "$d/k2.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-o', "$d/store2/");
is(gens("$d/store2/" . store_name($new, 'www.example.org')), '0/0', 'another store: nothing inherited');

# ---- the module's state file ---------------------------------------------------
my ($kout) = (tack('view', '--json', "$store/" . store_name($crt, 'www.example.org')))[1];
my $pub = (eval { decode_json($kout) } // [{}])->[0]{public_key};
ok($pub && $pub =~ /\A[0-9a-f]{128}\z/, 'the TACK key\'s public key') or diag($kout);
sub state_file {
    my ($file, $until) = @_;
    write_file($file, encode_json({ version => 1, written => time, slots => {
        'www.example.org:443 ECDSA' => [{ key => $pub, first_seen => time - 86400,
            last_served => time - 3600, serving => JSON::PP::false,
            activation => JSON::PP::false, min_generation => 4,
            min_generation_until => $until }] } }));
}
state_file("$d/state.json", time + 86400);
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw",
                         '--state', "$d/state.json", '-c', $new, '-o', "$d/fresh.pem");
is($rc, 0, 'a fresh file, the state file remembering min_generation 4 for www.example.org') or diag($err);
is(gens("$d/fresh.pem"), '4/4', '... signed at 4');
like($err, qr/\Q$d\E\/state\.json \("www\.example\.org:443 ECDSA"\) holds a TACK under this key that high/,
     '... naming the state file and its entry');
state_file("$d/old.json", time - 60);
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw",
                         '--state', "$d/old.json", '-c', $new, '-o', "$d/fresh2.pem");
is(gens("$d/fresh2.pem"), '0/0', 'a floor the state file no longer keeps (past min_generation_until): not inherited');

# ---- tack view -c: below the floor fails ---------------------------------------
($rc, $out, $err) = tack('sign', '-k', "$d/k.pem", '--password-file', "$d/pw", @st,
                         '-c', $new, '-g', '0', '-o', "$store/low.tack.pem", '--allow-lower-generation');
($rc, $out, $err) = tack('view', '-c', $new, @st, "$store/low.tack.pem");
is($rc, 1, 'tack view -c: a valid TACK below the floor of its host in its store fails');
like($out, qr/^status         = valid for the certificate\nfloor          = below min_generation 2 \(\Q$store\E\/\S+\)$/m,
     '... the TACK valid alone, its floor named on the next line');
like($err, qr/generation 0 is below min_generation 2, which a TACK under its key holds for the certificate's names .*\(certificate_revoked\)/,
     '... and on standard error');
($rc, $out, $err) = tack('view', '-c', $new, '--state', "$d/state.json", "$d/fresh2.pem");
is($rc, 1, '... and below the floor the state file remembers');

# ---- the certbot hook: a raised generation is not "kept" -------------------------
{
    # (the hook reads its configuration only when it is root's)
    my $hook = top() . '/hooks/tack-certbot-hook';
    my $live = "$d/live/www.example.org";
    system('mkdir', '-p', $live, "$d/hstore") == 0 or die;
    system('cp', $crt, "$live/cert.pem") == 0 or die;
    my $conf = "$d/hook.conf";
    my $run = sub {
        my ($opts) = @_;
        write_file($conf, "TACK=$TACK\nTACK_KEY=$d/k.pem\nTACK_PASSWORD_FILE=$d/pw\n"
            . "TACK_STORE=$d/hstore\nTACK_RELOAD_COMMAND=\nTACK_SIGN_OPTIONS=\"$opts\"\n");
        chmod 0600, $conf;
        return run3({ env => { RENEWED_LINEAGE => $live, TACK_HOOK_CONF => $conf } }, $hook);
    };
    my $file = "$d/hstore/" . store_name($crt, 'www.example.org');
    ($rc, $out, $err) = $run->('-e 45d');
    is($rc, 0, 'the hook signs the lineage at generation 0') or diag($out, $err);
    is(gens($file), '0/0', '... 0');
    ($rc, $out, $err) = $run->('-e 45d -m 1 -g 1');
    like($out, qr/signed \Q$file\E/, '-m 1 -g 1 added to the options afterwards: re-signed, not "kept"') or diag($out, $err);
    is(gens($file), '1/1', '... at 1');
    ($rc, $out, $err) = $run->('-e 45d');
    like($out, qr/\Q$file\E matches \S+ \(www\.example\.org\): kept/, 'the options back to none: generation 1 is kept');
    is(gens($file), '1/1', '... still 1');
    system('cp', $new, "$live/cert.pem") == 0 or die;
    ($rc, $out, $err) = $run->('-e 45d');
    my $nfile = "$d/hstore/" . store_name($new, 'www.example.org');
    is($rc, 0, 'a renewal with a new TLS key, the options without -m and -g') or diag($out, $err);
    is(gens($nfile), '1/1', '... signed at the generation of the lineage\'s earlier TACK');
}

done_testing();
