# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# What the packages' readers read (issue 46, item 5): the docs and hooks as
# make install writes them for the Debian packages, with debian/rules'
# MAKE_VARS (read from debian/rules), beside the source tree's copy (make
# install's defaults), each installed into a DESTDIR of its own with the
# tool and the module already built (make -o, as 21-guides-config.t).
#
#  - No installed doc shows a build marker (<!-- make install -->): the
#    passages between them are copied word for word, the marker lines left
#    out.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;
my $top = top();
my $so = "$top/build/mod_tack.so";
BAIL_OUT("$so not built: run make module") unless -e $so;

# debian/rules' MAKE_VARS: what the package's build gives make install.
(my $rules = slurp("$top/debian/rules")) =~ s/\\\n/ /g;
my ($make_vars) = $rules =~ /^MAKE_VARS\s*:=\s*(.*)$/m;
my @pkg_vars = split ' ', $make_vars // '';
ok(grep({ /^TACK_PROG=tacktool$/ } @pkg_vars), "debian/rules' MAKE_VARS: @pkg_vars");
my %var = map { /^(\w+)=(.*)$/ } @pkg_vars;

my %copy = (
    source  => { vars => [], docdir => '/usr/local/share/doc/mod_tack',
                 hookdir => '/usr/local/lib/tack' },
    package => { vars => \@pkg_vars, docdir => $var{DOCDIR} // '?',
                 hookdir => $var{HOOKDIR} // '?' },
);
my @copies = qw(source package);
for my $c (@copies) {
    my $d = $copy{$c};
    $d->{dest} = tmp() . "/$c";
    my ($rc, $out, $err) = run_cmd({ env => { MAKEFLAGS => '' } }, 'make',
        '-s', '-C', $top, '-o', $so, '-o', $TACK, 'install',
        "TOOL_OUT=$TACK", "MODULE_SO=$so", "DESTDIR=$d->{dest}", @{ $d->{vars} });
    is($rc, 0, "make install DESTDIR=... @{ $d->{vars} }: the $c copy")
        or diag($out, $err);
    $d->{docs} = "$d->{dest}$d->{docdir}";
    $d->{hooks} = "$d->{dest}$d->{hookdir}";
}
my @guides = sort map { s{.*/}{}r } glob("$copy{package}{docs}/*.md");
ok(grep({ $_ eq 'admin-guide.md' } @guides) && grep({ $_ eq 'hosting-guide.md' } @guides),
   "the package's guides: @guides");

# ---- no build markers -------------------------------------------------------
for my $c (@copies) {
    for my $f (map { s{.*/}{}r } glob("$copy{$c}{docs}/*")) {
        next if $f =~ /\.png$/;
        my @marks = grep { /<!--/ } split /\n/, slurp("$copy{$c}{docs}/$f");
        ok(!@marks, "$c copy: $f shows no build marker") or diag(join "\n", @marks);
    }
    # what is between the source's markers is there, word for word
    for my $g (@guides) {
        my @kept = slurp("$top/docs/$g") =~ /^<!-- make install -->\n(.*?)^<!-- \/make install -->\n/msg;
        next unless @kept;
        my $text = slurp("$copy{$c}{docs}/$g");
        is(scalar(grep { index($text, $_) >= 0 } @kept), scalar(@kept),
           "$c copy: $g has its " . scalar(@kept) . " make install passages word for word");
    }
}

done_testing();
