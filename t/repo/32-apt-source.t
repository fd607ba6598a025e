# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# scripts/apt-source.sh, the Debian mirror the scripts that fetch from the
# archive use (issue 47): read from apt's own configuration, a
# deb822-only host's (Debian 13: sources.list.d/debian.sources, no
# sources.list) as well as a one-line sources.list (the three openssl4
# scripts read only the first `deb` line of /etc/apt/sources.list, and
# found no mirror there); TACK_MIRROR first; deb.debian.org when apt names
# none.  The scripts ask it, and read no sources.list themselves.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use File::Path qw(make_path remove_tree);
use TackTool;

my $script = top() . '/scripts/apt-source.sh';
my $apt = tmp() . '/apt';
my $default = 'http://deb.debian.org/debian';

# mirror(%files): what the script prints for an apt directory holding
# only %files (relative name => content), TACK_MIRROR unset unless
# $files{TACK_MIRROR} names one.
sub mirror {
    my (%files) = @_;
    my $env = delete $files{TACK_MIRROR};
    remove_tree($apt);
    make_path("$apt/sources.list.d");
    write_file("$apt/$_", $files{$_}) for keys %files;
    my ($rc, $out, $err) = run3(
        { env => { TACK_APT_DIR => $apt, TACK_MIRROR => $env } },
        'sh', $script);
    is($rc, 0, 'it succeeds') or diag($err);
    is($err, '', 'it says nothing on standard error');
    chomp $out;
    return $out;
}

# Debian 12's one-line sources.list.
is(mirror('sources.list' => <<'L'),
# deb http://commented.example/debian bookworm main
deb-src http://src.example/debian bookworm main
deb http://one.example/debian bookworm main contrib
deb http://two.example/debian bookworm-updates main
L
   'http://one.example/debian', 'sources.list: the first deb line');
is(mirror('sources.list' =>
          "\tdeb [arch=amd64 signed-by=/k.gpg]  http://opt.example/debian/ "
          . "bookworm main\n"),
   'http://opt.example/debian/', 'a deb line with options and blanks');

# Debian 13's default: no sources.list, a deb822 debian.sources.
my $trixie = <<'S';
# Modernized from /etc/apt/sources.list
Types: deb deb-src
URIs: http://mirror.example/debian/
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.example/debian-security/
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
S
is(mirror('sources.list.d/debian.sources' => $trixie),
   'http://mirror.example/debian/',
   'deb822 only: the first URIs of a stanza with Types: deb');
is(mirror('sources.list' => "# See sources.list.d/debian.sources\n",
          'sources.list.d/debian.sources' => $trixie),
   'http://mirror.example/debian/',
   'a sources.list of comments only: debian.sources\'s');
is(mirror('sources.list.d/debian.sources' => <<'S'),
Types: deb-src
URIs: http://src.example/debian
Suites: trixie

Enabled: no
Types: deb
URIs: http://off.example/debian
Suites: trixie

types: deb
uris:
 http://cont.example/debian http://second.example/debian
suites: trixie
S
   'http://cont.example/debian',
   'deb822: deb-src and disabled stanzas skipped, field names in any case, '
   . 'a value on the next line');
is(mirror('sources.list.d/a.list' => "deb http://list.example/debian sid main\n"),
   'http://list.example/debian', 'a .list of sources.list.d');
is(mirror('sources.list' => "deb http://main.example/debian bookworm main\n",
          'sources.list.d/debian.sources' => $trixie),
   'http://main.example/debian', 'sources.list before sources.list.d');
is(mirror('sources.list.d/debian.sources' => $trixie,
          'sources.list.d/docker.list' =>
              "deb http://vendor.example/linux bookworm stable\n"),
   'http://mirror.example/debian/',
   'sources.list.d in apt\'s order, by name: debian.sources before '
   . 'docker.list');

# Neither.
is(mirror(), $default, 'no sources at all: deb.debian.org');
is(mirror('sources.list' => "deb-src http://src.example/debian bookworm main\n"),
   $default, 'no deb line: deb.debian.org');

# TACK_MIRROR first.
is(mirror(TACK_MIRROR => 'http://env.example/debian',
          'sources.list' => "deb http://one.example/debian bookworm main\n"),
   'http://env.example/debian', 'TACK_MIRROR before apt\'s sources');
is(mirror(TACK_MIRROR => 'http://env.example/debian'),
   'http://env.example/debian', 'TACK_MIRROR without apt\'s sources');

# The scripts that fetch from the mirror ask apt-source.sh, and none reads
# a sources.list itself.
for my $s (qw(openssl4-httpd.sh openssl4-pkcs11-provider.sh
              test-openssl4.sh httpd-suite.sh)) {
    my $text = slurp(top() . "/scripts/$s");
    like($text, qr/^mirror=\$\(sh [^\n]*apt-source\.sh"?\)$/m,
         "$s takes its mirror from apt-source.sh");
    unlike($text, qr{(?:sed|grep|awk)[^\n]*/etc/apt/sources\.list},
           "$s reads no sources.list itself");
}

done_testing();
