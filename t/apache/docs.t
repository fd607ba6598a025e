# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The documentation keeps up with the source:
#  - every TACKnnnnn log tag appears exactly once in the module's source
#    (one call site, never reused) and exactly once in docs/log-tags.md, at
#    the level the source logs it at, and the table lists no other tag;
#  - every directive of mt_config_cmds has its section in
#    docs/directives.md, in the Apache manual's layout;
#  - the README links every guide.
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;
use TackHelpers qw(slurp);

my $top = top_dir();

# ---- tags in the source, with their level -----------------------------------
my %level_name = (ERR => 'error', WARNING => 'warn', INFO => 'info',
    DEBUG => 'debug', NOTICE => 'notice', CRIT => 'crit', ALERT => 'alert',
    EMERG => 'emerg');
my (%src, @dups);
for my $file (glob "$top/mod_tack*.c $top/module/mod_tack*.c") {
    my $text = slurp($file);
    while ($text =~ /"(TACK\d{5})/g) {
        my ($tag, $pos) = ($1, pos($text));
        push @dups, "$tag (" . ($src{$tag}{file} // '') . " and $file)"
            if $src{$tag};
        # The level: the nearest APLOG_x before the tag, or mt_problem()
        # (which logs at error level).
        my $before = substr($text, 0, $pos);
        my ($lvl, $at) = ('?', -1);
        while ($before =~ /APLOG_(ERR|WARNING|INFO|DEBUG|NOTICE|CRIT|ALERT|EMERG)\b/g) {
            ($lvl, $at) = ($level_name{$1}, pos($before));
        }
        while ($before =~ /mt_problem\(/g) {
            ($lvl, $at) = ('error', pos($before)) if pos($before) > $at;
        }
        $src{$tag} = { file => $file =~ s{.*/}{}r, level => $lvl };
    }
}

# ---- the table -------------------------------------------------------------------
my (%doc, @doc_dups);
for my $line (split /\n/, slurp("$top/docs/log-tags.md")) {
    next unless $line =~ /^\|\s*(TACK\d{5})\s*\|\s*(\w+)\s*\|\s*(.*?)\s*\|/;
    push @doc_dups, $1 if $doc{$1};
    $doc{$1} = { level => $2, meaning => $3 };
}

my @src_tags = sort keys %src;
my @directives = do {
    my $c = slurp("$top/module/mod_tack_config.c");
    $c =~ /mt_config_cmds\[\] = \{(.*?)\{NULL\}/s or die 'no command table';
    my $t = $1;
    my @d = ($t =~ /AP_INIT_\w+\("(\w+)"/g);
    @d;
};

plan tests => 8 + 2 * @directives;

ok(@src_tags >= 30, scalar(@src_tags) . ' tags in the source');
ok(!@dups, 'each tag appears once in the source (one call site)')
    or diag("repeated: @dups");
ok(!@doc_dups, 'each tag appears once in docs/log-tags.md') or diag("@doc_dups");
my @missing = grep { !$doc{$_} } @src_tags;
ok(!@missing, 'every tag of the source is documented') or diag("missing: @missing");
my @stale = grep { !$src{$_} } sort keys %doc;
ok(!@stale, 'the table lists no tag the source does not have') or diag("stale: @stale");
my @wrong = map { "$_: source $src{$_}{level}, table $doc{$_}{level}" }
    grep { $doc{$_} && $doc{$_}{level} ne $src{$_}{level} } @src_tags;
ok(!@wrong, 'the documented level is the level logged') or diag(join "\n", @wrong);

# ---- directives ---------------------------------------------------------------
my $ref = slurp("$top/docs/directives.md");
for my $d (@directives) {
    my ($section) = $ref =~ /^## \Q$d\E\n(.*?)(?=^## |\z)/ms;
    ok($section, "docs/directives.md has a section for $d");
    like($section // '', qr/\*\*Description:\*\*.*\*\*Syntax:\*\* \| `\Q$d\E .*\*\*Default:\*\*.*\*\*Context:\*\*.*\*\*Module:\*\* \| mod_tack/s,
        "$d: description, syntax, default, context, module");
}
like($ref, qr/^## The tack-status handler\n.*\*\*Syntax:\*\* \| `SetHandler tack-status`/ms,
    'and for the tack-status handler');

# ---- README ---------------------------------------------------------------------
my $readme = slurp("$top/README");
my @unlinked = grep { index($readme, "docs/$_") < 0 }
    qw(directives.md admin-guide.md hosting-guide.md log-tags.md);
ok(!@unlinked, 'README links the directive reference and the guides')
    or diag("not linked: @unlinked");
