# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# No TACK lapses between renewals (issue 43, item 1), for the routes whose
# served bytes are a file: the admin guide's section 9 weekly job re-signing
# a TackFile, certbot's deploy hook with section 15's hook.conf, and the
# hosting guide's store signed elsewhere and swapped in.  Time moves over
# 200 days from Monday 2030-01-07: 90-day certificates, made here with
# openssl under libfaketime, renewed as certbot renews them (its runs at
# 00:00 and 12:00, when less than 30 days are left: days 60, 121 and 181),
# swapped in by the test; the job runs when cron would (Mondays 04:17), the
# hook when certbot would (at a renewal only).  At 06:00 and 18:00 of every
# day, `tack view -c CERT --now WHEN FILE` judges the file served for the
# current certificate (a TackFile or store file is served as is if valid),
# and each case lists the days it found none.  The guides' own options are
# read from the guides, so a guide that lapses fails here.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;
use File::Copy qw(copy);
use File::Path qw(make_path remove_tree);
use POSIX qw(strftime);
use Time::Local qw(timegm);

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
my $FAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
ok(-e $FAKETIME, "libfaketime is installed ($FAKETIME; apt-get install libfaketime)")
    or BAIL_OUT('no libfaketime: the certificates and the hook need a faked clock');

my $d = tmp();
my $T0 = timegm(0, 0, 0, 7, 0, 2030);    # a Monday, day 0
my $DAY = 86400;
my $DAYS = 200;
my $HOST = 'www.example.org';
# No state file of the machine's (a tool older than generations, df53e05,
# has no --state and reads none: the test also runs against 5893a4e).
my @nostate = join('', (tack('sign', '--help'))[1, 2]) =~ /--state/
    ? ('--state', "$d/no-state.json") : ();

ok0(tack('genkey', '-p', 'pw', '-o', "$d/tack.key"));
write_file("$d/pw", "pw\n");
chmod 0600, "$d/pw";

sub when { strftime('%Y-%m-%dT%H:%MZ', gmtime $_[0]) }
sub faked { (LD_PRELOAD => $FAKETIME,
             FAKETIME => '@' . strftime('%Y-%m-%d %H:%M:%S', gmtime $_[0])) }
sub day_of { int(($_[0] - $T0) / $DAY) }

# cert_at($name, $t, $key): $d/$name.crt, a 90-day certificate for $HOST
# issued at $t, with a new P-256 key $d/$name.key, or with $key (a renewal
# that keeps the key, as certbot --reuse-key).
sub cert_at {
    my ($name, $t, $key) = @_;
    my @key = $key ? ('-key', $key)
        : ('-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
           '-keyout', "$d/$name.key");
    ok0(run3({ env => { faked($t) } }, 'openssl', 'req', '-x509', @key,
        '-sha256', '-days', 90, '-subj', "/CN=$HOST",
        '-addext', "subjectAltName=DNS:$HOST",
        '-addext', 'basicConstraints=critical,CA:FALSE',
        '-out', "$d/$name.crt"));
    return "$d/$name.crt";
}

# The certificates every case renews through: certbot's schedule, computed
# (renewed at its first run with less than 30 days left).
my (@certs, @reuse);
{
    my $t = $T0 + 3 * 3600;    # the first, by hand, day 0 03:00
    my $n = 0;
    while ($t < $T0 + $DAYS * $DAY) {
        push @certs, { t => $t, crt => cert_at("new$n", $t) };
        push @reuse, { t => $t, crt => cert_at("reuse$n", $t,
                                               $n ? "$d/reuse0.key" : undef) };
        my $end = $t + 90 * $DAY;
        $t = $T0 + 12 * 3600 * (int(($t - $T0) / (12 * 3600)) + 1);
        $t += 12 * 3600 while $end - $t >= 30 * $DAY;
        $n++;
    }
}
my ($rc, $out) = run3('openssl', 'x509', '-in', $certs[1]{crt}, '-noout',
                         '-startdate', '-enddate');
is($out, "notBefore=Mar  8 12:00:00 2030 GMT\nnotAfter=Jun  6 12:00:00 2030 GMT\n",
   'the faked clock: the first renewal issued at day 60 12:00, for 90 days');
is(join(',', map { day_of($_->{t}) } @certs), '0,60,121,181',
   'certbot renews at days 60, 121 and 181 (less than 30 days left)');
is(join(',', map { day_of($_->{t}) } @reuse), '0,60,121,181', '... with --reuse-key too');

# lapses(\@certs, \%hooks): moves time over $DAYS days; $hooks{renew}->($cert,
# $t) when a certificate is swapped in, $hooks{weekly}->($cert, $t) at cron's
# Monday 04:17, $hooks{file}->($cert) the file served for it.  Returns the
# days at whose 06:00 or 18:00 no valid TACK for the current certificate
# was served, as ranges ("45-59,105-120"), or "none".
sub lapses {
    my ($certs, %h) = @_;
    my @ev;
    push @ev, map { [ $_->{t}, 'renew', $_ ] } @$certs;
    for my $day (0 .. $DAYS - 1) {
        push @ev, [ $T0 + $day * $DAY + 4 * 3600 + 17 * 60, 'weekly' ]
            if $day % 7 == 0 && $h{weekly};
        push @ev, [ $T0 + $day * $DAY + $_ * 3600, 'check' ] for 6, 18;
    }
    my ($cur, %bad);
    for my $e (sort { $a->[0] <=> $b->[0] } @ev) {
        my ($t, $what, $c) = @$e;
        if ($what eq 'renew') {
            $cur = $c->{crt};
            $h{renew}->($cur, $t) if $h{renew};
        }
        elsif ($what eq 'weekly') {
            $h{weekly}->($cur, $t);
        }
        else {
            my $file = $h{file}->($cur);
            my ($vrc) = -f $file
                ? tack('view', '-c', $cur, @nostate, '--now', when($t), $file)
                : (1);
            $bad{ day_of($t) } = 1 if $vrc != 0;
        }
    }
    my @days = sort { $a <=> $b } keys %bad;
    my @r;
    for my $day (@days) {
        if (@r && $r[-1][1] == $day - 1) { $r[-1][1] = $day }
        else { push @r, [ $day, $day ] }
    }
    return @r ? join(',', map { $_->[0] == $_->[1] ? $_->[0] : "$_->[0]-$_->[1]" } @r)
              : 'none';
}

sub guide { slurp(top() . "/docs/$_[0]") }

# file_of($cert): its TackStore file name (TackHelpers' store_name, which
# runs openssl: once per certificate).
my %file_of;
sub file_of { $file_of{ $_[0] } //= store_name($_[0], $HOST) }

# ---- (a) the admin guide's section 9: a weekly job re-signs the TackFile ----
my ($job) = guide('admin-guide.md') =~ /^(tack --quiet sign .*?-o \S+ --force)$/ms;
ok($job, "section 9's job: its tack sign command") or diag('not found');
$job //= '';
$job =~ s/\\\n\s*/ /g;
my ($job_e) = $job =~ /\s(-e \S+)/;
my @job_e = $job_e ? split(' ', $job_e) : ();
my ($crt_path) = $job =~ /-c (\S+)/;
is($crt_path, "/etc/ssl/certs/$HOST.crt", '... re-signs the certificate at a fixed path');
{
    my $root = "$d/a";
    make_path($root);
    my $installed = "$root/$HOST.crt";
    my $tf = "$root/$HOST.tack.pem";
    my $sign = sub {
        my ($t, $out, @force) = @_;
        ok0(tack('--quiet', 'sign', '-k', "$d/tack.key", '--password-file', "$d/pw",
                 @nostate, '--now', when($t), '-c', $installed, @job_e,
                 '-o', $out, @force));
    };
    my $weekly = sub { $sign->($_[1], $tf, '--force') };
    my $swap = sub { copy($_[0], $installed) or die "copy: $!" };
    # the first TACK: section 4, then the job run once by hand
    my $first = sub { $swap->(@_); $sign->($_[1], $tf, '--force') };
    my $seen = lapses(\@certs,
        renew => sub { $_[1] == $certs[0]{t} ? $first->(@_) : $swap->(@_) },
        weekly => $weekly, file => sub { $tf });
    is($seen, '60-62,121-125,181',
       "section 9's job alone, certificates renewed with a new key: no TACK from each renewal to the job's next Monday");
    $seen = lapses(\@certs,
        renew => sub {
            # section 10: the new certificate's TACK signed, then both put in place
            $swap->(@_);
            $sign->($_[1], "$tf.new");
            rename("$tf.new", $tf) or die "rename: $!";
        },
        weekly => $weekly, file => sub { $tf });
    is($seen, 'none', "section 9's job with section 10 at each new key: a valid TACK every day (the job's $job_e)");
    $seen = lapses(\@reuse, renew => sub { $_[1] == $reuse[0]{t} ? $first->(@_) : $swap->(@_) },
                   weekly => $weekly, file => sub { $tf });
    is($seen, 'none', "section 9's job alone, renewals that keep the key: a valid TACK every day");
}

# ---- (b) certbot's deploy hook with section 15's hook.conf -------------------
my ($conf) = guide('admin-guide.md') =~ m{^(# /etc/tack/hook\.conf .*?)^```}ms;
ok($conf, "section 15's hook.conf") or diag('not found');
$conf //= '';
my ($guide_opts) = $conf =~ /^TACK_SIGN_OPTIONS=("[^"]*"|\S*)/m;
$guide_opts //= '';
$guide_opts =~ s/^"(.*)"$/$1/;
my ($guide_minv) = $conf =~ /^TACK_MIN_VALIDITY=(\S+)/m;
my $hook = top() . '/hooks/tack-certbot-hook';
my $hook_case = sub {
    my ($certs, $opts, $label, $signcmd) = @_;
    my $root = "$d/b-$label";
    my $live = "$root/live/$HOST";
    make_path($live, "$root/store");
    write_file("$root/hook.conf", join('', "TACK=$TACK\n",
        $signcmd ? "TACK_SIGN_COMMAND='$signcmd'\n"
                 : "TACK_KEY=$d/tack.key\nTACK_PASSWORD_FILE=$d/pw\n",
        "TACK_STORE=$root/store\n", "TACK_SIGN_OPTIONS=\"$opts @nostate\"\n",
        $guide_minv ? "TACK_MIN_VALIDITY=$guide_minv\n" : '',
        "TACK_RELOAD_COMMAND=\n"));
    chmod 0600, "$root/hook.conf";
    my $fails = 0;
    my $seen = lapses($certs,
        renew => sub {
            my ($crt, $t) = @_;
            copy($crt, "$live/cert.pem") or die "copy: $!";
            # certbot runs the hook after each certificate it obtained (the
            # first one by hand, as section 15 says), at the faked time
            my ($hrc, $hout, $herr) = run3({ env => { faked($t),
                TACK_HOOK_CONF => "$root/hook.conf",
                RENEWED_LINEAGE => $live, TACK_QUIET => 'yes' } }, $hook);
            $fails++, diag("the hook at day " . day_of($t) . ": $herr") if $hrc;
        },
        file => sub { "$root/store/" . file_of($_[0]) });
    is($fails, 0, "$label: the hook succeeded at each renewal");
    return $seen;
};
is($hook_case->(\@certs, '-e 45d', 'e45'), '45-60,105-120,166-181',
   'certbot with TACK_SIGN_OPTIONS="-e 45d": no TACK from day 45 of each certificate to its renewal');
is($hook_case->(\@reuse, '-e 45d', 'e45-reuse'), '45-60,105-120,166-181',
   '... the same with --reuse-key (the hook runs only at a renewal)');
is($hook_case->(\@certs, $guide_opts, 'guide'), 'none',
   "certbot with the guide's hook.conf (TACK_SIGN_OPTIONS=\"$guide_opts\"): a valid TACK every day");
is($hook_case->(\@reuse, $guide_opts, 'guide-reuse'), 'none',
   '... and with --reuse-key: the TACK that expires with the old certificate is re-signed (TACK_MIN_VALIDITY)');

# The key on another machine: TACK_SIGN_COMMAND runs the guide's
# authorized_keys command (here without ssh, at the faked time too).
my ($remote) = guide('admin-guide.md') =~ /command="(tack sign [^"]*)"/;
ok($remote, "section 15's signer command (authorized_keys)") or diag('not found');
$remote //= '';
$remote =~ s/\s+/ /g;
$remote =~ s{^tack }{$TACK };
$remote =~ s{/home/tack/www\.key}{$d/tack.key};
$remote =~ s{/home/tack/password}{$d/pw};
$remote =~ s{ -c - }{ @nostate -c - };
is($hook_case->(\@certs, '', 'remote', $remote), 'none',
   "certbot with TACK_SIGN_COMMAND, the signer's command as printed: a valid TACK every day");

# ---- (d) the hosting guide: the store signed elsewhere, swapped in -----------
my $hg = guide('hosting-guide.md');
my ($fleet) = $hg =~ /^(tack sign -k \/secure\/fleet\.key .*?--force)$/ms;
ok($fleet, "the hosting guide's fleet signing command") or diag('not found');
$fleet //= '';
my ($fleet_e) = $fleet =~ /\s(-e \S+)/;
my @fleet_e = $fleet_e ? split(' ', $fleet_e) : ();
like($hg, qr/a new certificate with a new\s+key needs its TACK in the store before the certificate goes live: sign as\s+part of your certificate deployment/,
     '... which signs and pushes at each new certificate too');
like($hg, qr/Re-sign the whole store on a schedule \(weekly/, '... and weekly');
# fleet($label, $at_renewal): a case of its own: the store signed and pushed
# weekly, and at each new certificate too when $at_renewal.
sub fleet {
    my ($label, $at_renewal) = @_;
    my $root = "$d/d-$label";
    make_path("$root/certs", "$root/signed", "$root/live");
    my $push = sub {
        my ($t) = @_;
        ok0(tack('--quiet', 'sign', '-k', "$d/tack.key", '--password-file', "$d/pw",
                 @nostate, '--now', when($t), '-c', "$root/certs/", @fleet_e,
                 '-o', "$root/signed/", '--force'));
        # the tar swap: a complete copy replaces the live store
        remove_tree("$root/live");
        make_path("$root/live");
        opendir(my $dh, "$root/signed") or die "$root/signed: $!";
        copy("$root/signed/$_", "$root/live/$_") or die "copy: $!"
            for grep { !/^\./ } readdir $dh;
    };
    return lapses(\@certs,
        renew => sub {
            copy($_[0], "$root/certs/$HOST.crt") or die "copy: $!";
            $push->($_[1]) if $at_renewal || $_[1] == $certs[0]{t};
        },
        weekly => sub { $push->($_[1]) },
        file => sub { "$root/live/" . file_of($_[0]) });
}
is(fleet('deploy', 1), 'none',
   "the hosting guide's store, signed at each new certificate and weekly ($fleet_e): a valid TACK every day");
is(fleet('weekly', 0), '60-62,121-125,181',
   '... only weekly: no TACK from each new certificate to the next Monday');

done_testing();
