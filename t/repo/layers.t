# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The module's files in their layers (docs/contributing.md, "Architecture";
# issue 27), read from the objects make module built (build/module/*.o):
#  - the Makefile's MODULE_SRC lists every mod_tack*.c, bottom first;
#  - a file calls only the files listed before it, except within the
#    status group (mod_tack_status*.c, mod_tack_metrics.c);
#  - mod_tack_base.c calls no other file of the module;
#  - includes follow the same order: each header belongs to a file (or
#    to the layer's first file: mod_tack_model.h to the model's), and a
#    file or header includes only headers of its own layer or below;
#    mod_tack_base.c and mod_tack_base.h include no header above the base;
#  - the handshake's table (mt_rt_t, mt_slot_t) is written only by
#    mod_tack_handshake.c, which owns it;
#  - the module's state has two owners (mt_gen_t, mt_proc_t): no other
#    writable variable at file or function scope but the module record,
#    the counters' placeholder and a signal handler's process group;
#  - each part is made in pre_config, no getter makes what it returns,
#    and a part's type is defined in its own file only;
#  - build/mod_tack.so exports tack_module and nothing else (no core or
#    module symbol can clash with another module's).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";

use Test::More;
use TackTool;
use TackHelpers ();

my $top = top();
my $makefile = TackHelpers::slurp("$top/Makefile");
my ($list) = $makefile =~ /^MODULE_SRC := (.*?)\n(?!\s)/ms
    or die 'no MODULE_SRC in the Makefile';
# the words naming .c files: "$(addprefix module/,mod_tack_base.c", ...
my @order = map { m{([A-Za-z0-9_]+)\.c\)?$} ? $1 : () } split /[\s\\]+/, $list;
my %rank = map { $order[$_] => $_ } 0 .. $#order;

plan tests => 18;

# mod_tack.c at the top, the rest of the module in module/.
sub src { my ($f, $ext) = @_; -f "$top/$f.$ext" ? "$top/$f.$ext" : "$top/module/$f.$ext" }
my @sources = sort map { m{([^/]+)\.c$} } glob "$top/mod_tack*.c $top/module/mod_tack*.c";
is(join(' ', sort @order), join(' ', @sources),
   'MODULE_SRC lists every mod_tack*.c file');

# Who defines each function, and who calls it: nm's T (defined, global)
# and U (undefined) symbols of each object.
my $group = qr/^mod_tack_(?:status|metrics)/;
my ($defines, $edges, $upward) = TackHelpers::layer_calls(
    order => \@order, object => sub { "$top/build/module/$_[0].o" },
    defined => qr/T/, group => $group);
my %defines = %$defines;
my %edges = %$edges;
my @upward = @$upward;
ok(scalar(keys %edges) > 20,
   'calls between the files are found (' . scalar(keys %edges) . ' edges)');
is(join("\n", @upward), '',
   'every call goes down the layers (or stays in the status group)');
is(join(' ', grep { /^mod_tack_base -> / } sort keys %edges), '',
   'mod_tack_base.c calls no other file of the module');
ok(exists $defines{mt_setup_check} && exists $defines{mt_handshake_build},
   'the pass and the handshake table are where the layers say');

my @exported = map { /\s[A-TV-Z]\s+(\S+)$/ ? $1 : () }
    `nm -D --defined-only $top/build/mod_tack.so`;
is("@exported", 'tack_module', 'build/mod_tack.so exports tack_module only');

# ---- includes -----------------------------------------------------------
# The file each header belongs to: its own, or the layer's first file.
my %hdr_owner = (
    mod_tack_base    => 'mod_tack_base',
    mod_tack_model   => 'mod_tack_load',
    mod_tack_runtime => 'mod_tack_handshake',
    mod_tack_status  => 'mod_tack_status',
);
my @headers = sort map { m{([^/]+)\.h$} } glob "$top/module/mod_tack*.h";
for my $h (@headers) {
    $hdr_owner{$h} //= $h if exists $rank{$h};
}
is(join(' ', grep { !defined $hdr_owner{$_} } @headers), '',
   'every mod_tack*.h header belongs to a file of MODULE_SRC');

sub includes_of {
    my ($path) = @_;
    open my $fh, '<', $path or die "$path: $!";
    return map { /^\s*#\s*include\s+"(mod_tack\w*)\.h"/ ? $1 : () } <$fh>;
}
my (@up, $nincl);
for my $f (@order, @headers) {
    my $is_h = !exists $rank{$f} || grep { $_ eq $f } @headers;
    my $path = -f src($f, 'c') && !grep({ $_ eq $f } @headers) ? src($f, 'c') : src($f, 'h');
    my $me = $path =~ /\.h$/ ? $hdr_owner{$f} : $f;
    next unless defined $me;
    for my $inc (includes_of($path)) {
        $nincl++;
        my $to = $hdr_owner{$inc} or do { push @up, "$f includes unknown $inc.h"; next };
        next if $me =~ $group && $to =~ $group;
        push @up, ($path =~ m{([^/]+)$})[0] . " includes $inc.h (of $to)"
            if $rank{$to} > $rank{$me};
    }
}
# the .c files again, each under its own name
for my $f (@order) {
    for my $inc (includes_of(src($f, 'c'))) {
        my $to = $hdr_owner{$inc} or next;
        next if $f =~ $group && $to =~ $group;
        push @up, "$f.c includes $inc.h (of $to)" if $rank{$to} > $rank{$f};
    }
}
ok($nincl > 30, "module includes are found ($nincl)");
is(join("\n", sort { $a cmp $b } keys %{{ map { $_ => 1 } @up }}), '',
   'every #include goes down the layers (or stays in the status group)');
is(join(' ', includes_of(src('mod_tack_base', 'c')), includes_of(src('mod_tack_base', 'h'))),
   'mod_tack_base',
   'mod_tack_base.c includes only its own header, which includes no module header');

# The signers are the business of the files that sign or configure or
# report them, included by those alone, never through another header
# (before: runtime.h -> background.h -> signer.h made the handshake, the
# status files, setup and mod_tack.c see them).
my @signer_users = sort map { m{([^/]+)$} }
    grep { includes_of($_) && grep { $_ eq 'mod_tack_signer' } includes_of($_) }
    glob "$top/mod_tack.c $top/module/*.c $top/module/*.h";
is("@signer_users", join(' ', map { "$_.c" } qw(mod_tack_background mod_tack_config
   mod_tack_md mod_tack_sign mod_tack_signer mod_tack_status)),
   'mod_tack_signer.h is included only by the files that use the signers');
# The longest chain of module headers, each including the next: a short
# one, not a near-total order (before: 7, status.h ... signer.h, secret.h,
# model.h, base.h).
my %hincl = map { $_ => [includes_of(src($_, 'h'))] } @headers;
my %depth;
my $depth_of;
$depth_of = sub {
    my ($h) = @_;
    return $depth{$h} //= 1 + (sort { $b <=> $a } 0, map { $depth_of->($_) } @{ $hincl{$_[0]} || [] })[0];
};
my ($deepest) = sort { $depth_of->($b) <=> $depth_of->($a) } @headers;
ok($depth_of->($deepest) <= 5,
   'the longest chain of module headers is at most 5 (' . $depth_of->($deepest) . ", from $deepest.h)");

# ---- the handshake's table: written by its owner only ----------------------
my @writes;
for my $f (grep { $_ ne 'mod_tack_handshake' } @order) {
    open my $fh, '<', src($f, 'c') or die "$f.c: $!";
    while (my $line = <$fh>) {
        push @writes, "$f.c:$.: $line"
            if $line =~ /\b(?:slot|rt|slots\[[^\]]*\])(?:->|\.)\w+(?:\[[^\]]*\])?\s*(?:=[^=]|\+\+|--|[-+|&]=)/;
    }
}
is(join('', @writes), '', 'no file but mod_tack_handshake.c writes the handshake\'s table');

# ---- every part made in pre_config, no getter that allocates -------------
# A member of mt_gen_t or mt_proc_t is assigned only where the part is
# made (mt_*_gen_init, mt_*_proc_init, from mt_setup_start in pre_config;
# mt_gen_start), never by a getter on first use (a child at request time
# would allocate from the parent's pconf, unlocked).  The one named
# exception: the counters post_config hands over (their segment is sized
# by the pass).  A part that ends sooner than its generation (the guard's
# notes, the memory) is emptied by its file, not dropped and made again.
my $base_h = TackHelpers::slurp(src('mod_tack_base', 'h'));
my %part = map { $_ => 1 } map { /struct \w+ \*(\w+);/g }
    ($base_h =~ /typedef struct \{(.*?)\} mt_(?:gen|proc)_t;/gs);
my %allowed_at = (mt_status_post_config => 'counters');
# The functions of a C text: [name, first line, body].
sub functions_of {
    my ($text) = @_;
    my (@fns, $cur);
    my $n = 0;
    for my $line (split /\n/, $text) {
        $n++;
        if (!$cur && $line =~ /^[a-z][^;(]*?\b(\w+)\(/ && $line !~ /;\s*$/) {
            $cur = [$1, $n, ''];
        }
        next unless $cur;
        $cur->[2] .= "$line\n";
        if ($line =~ /^\}/) { push @fns, $cur; undef $cur }
    }
    return @fns;
}
sub part_writes {
    my ($name, $text) = @_;
    my @bad;
    for my $f (functions_of($text)) {
        my ($fn, $first, $body) = @$f;
        my $n = $first - 1;
        for my $line (split /\n/, $body) {
            $n++;
            while ($line =~ /\b(?:gen|proc|mt_gen\(\)|mt_proc\(\))->(\w+)\s*=(?!=)/g) {
                my $m = $1;
                next unless $part{$m};
                next if $fn =~ /^mt_\w+_(?:gen|proc)_init$|^mt_(?:gen|proc)_start$/;
                next if ($allowed_at{$fn} // '') eq $m;
                push @bad, "$name:$n: $fn assigns $m";
            }
        }
    }
    return @bad;
}
# A getter that makes what it returns when it finds it missing: "if
# (!X->m) { ... X->m = ... } ... return X->m;", whatever X is (the
# generation, a part, a member of a part).
sub lazy_getters {
    my ($name, $text) = @_;
    my @bad;
    for my $f (functions_of($text)) {
        my ($fn, $first, $body) = @$f;
        while ($body =~ /\bif\s*\(\s*(?:!\s*([\w>.()-]+->\w+)|([\w>.()-]+->\w+)\s*==\s*NULL)\s*\)/g) {
            my ($e, $at) = ($1 // $2, $-[0]);
            my $q = quotemeta $e;
            next unless $body =~ /(?<![\w>.])$q\s*=(?!=)/ && $body =~ /\breturn\s+$q\s*;/;
            my $line = $first + (() = substr($body, 0, $at) =~ /\n/g);
            push @bad, "$name:$line: $fn makes $e on first use";
        }
    }
    return @bad;
}
my $planted_gen = <<'C';
static struct mt_status *mt_status_get(void)
{
    mt_gen_t *gen = mt_gen();

    if (!gen->status) {
        gen->status = apr_pcalloc(gen->pconf, sizeof(*gen->status));
    }
    return gen->status;
}
C
my $planted_part = <<'C';
static struct mt_sign_tables *mt_sign_tables(void)
{
    mt_signers_t *sgs = mt_signers_get();

    if (!sgs->tables) {
        sgs->tables = apr_pcalloc(sgs->pool, sizeof(*sgs->tables));
        sgs->tables->done = apr_hash_make(sgs->pool);
    }
    return sgs->tables;
}
C
is(join(' ', part_writes('planted.c', $planted_gen), lazy_getters('planted.c', $planted_gen),
             lazy_getters('planted2.c', $planted_part)),
   'planted.c:6: mt_status_get assigns status planted.c:5: mt_status_get makes gen->status on first use '
   . 'planted2.c:5: mt_sign_tables makes sgs->tables on first use',
   'a getter that makes its part, or a part\'s member, on first use is found (planted)');
my @module_c = glob "$top/mod_tack.c $top/module/*.c";
my @writes_bad = map { part_writes(m{([^/]+)$}, TackHelpers::slurp($_)) } @module_c;
is(join("\n", @writes_bad), '',
   'every part of the generation and the process is made in pre_config ('
   . join(' ', sort keys %part) . ')');
my @lazy = map { lazy_getters(m{([^/]+)$}, TackHelpers::slurp($_)) } @module_c;
is(join("\n", @lazy), '', 'no getter makes what it returns');
# Each part's type is its file's own: defined in the .c file, never in a
# header others include (before: struct mt_signers in mod_tack_signer.h,
# its members read and written by three other files).
my %part_type = map { $_ => 1 } map { /struct (\w+) \*\w+;/g }
    ($base_h =~ /typedef struct \{(.*?)\} mt_(?:gen|proc)_t;/gs);
my @open_parts = map {
    my $h = $_;
    map { "$h defines struct $_" } grep { $part_type{$_} }
        (TackHelpers::slurp($h) =~ /^(?:typedef\s+)?struct\s+(\w+)\s*\{/mg);
} glob "$top/module/*.h";
ok(keys %part_type > 8 && !@open_parts,
   'every part\'s type is opaque outside its file (' . scalar(keys %part_type) . ' types)')
    or diag join("\n", @open_parts);

# ---- state: the generation's and the process's, nothing else -------------
# Writable data: objects in .data, .data.rel or .bss (objdump's section,
# not nm's letter, which calls a constant table of pointers "d" under one
# compiler and not under another); a static inside a function is "name.N".
my %allowed = map { $_ => 1 } qw(
    mod_tack:tack_module
    mod_tack_base:mt_gen_current mod_tack_base:mt_proc_current
    mod_tack_handshake:mt_ctr_unset mod_tack_secret:mt_pw_pgid);
my (@vars, $nvars);
for my $f (@order) {
    for (`objdump -t $top/build/module/$f.o`) {
        next unless /\sO\s+\.(?:data|bss)(\S*)\s+\S+\s+(?:\.hidden\s+)?([A-Za-z_]\w*)(?:\.\d+)?$/;
        next if $1 =~ /^\.rel\.ro/;
        $nvars++;
        push @vars, "$f:$2" unless $allowed{"$f:$2"};
    }
}
is(join(' ', @vars) . ($nvars ? '' : ' (no writable object found at all)'), '',
   'no writable variable at file or function scope but the generation\'s and the process\'s pointers and the listed few');
