# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The module's files in their layers (docs/contributing.md, "Architecture";
# issue 27), read from the objects make module built (build/module/*.o):
#  - the Makefile's MODULE_SRC lists every mod_tack*.c, bottom first;
#  - a file calls only the files listed before it, except within the
#    status group (mod_tack_status*.c, mod_tack_metrics.c);
#  - mod_tack_base.c calls no other file of the module;
#  - build/mod_tack.so exports tack_module and nothing else (no core or
#    module symbol can clash with another module's).
use strict;
use warnings FATAL => 'all';
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use TackTest;

my $top = top_dir();
my $makefile = TackHelpers::slurp("$top/Makefile");
my ($list) = $makefile =~ /^MODULE_SRC := (.*?)\n(?!\s)/ms
    or die 'no MODULE_SRC in the Makefile';
my @order = map { s/\.c$//r } grep { /\.c$/ } split /[\s\\]+/, $list;
my %rank = map { $order[$_] => $_ } 0 .. $#order;

plan tests => 6;

my @sources = sort map { m{([^/]+)\.c$} } glob "$top/mod_tack*.c";
is(join(' ', sort @order), join(' ', @sources),
   'MODULE_SRC lists every mod_tack*.c file');

# Who defines each function, and who calls it: nm's T (defined, global)
# and U (undefined) symbols of each object.
my (%defines, %calls);
for my $f (@order) {
    my $obj = "$top/build/module/$f.o";
    die "$obj not built: run make module" unless -f $obj;
    for (`nm $obj`) {
        if (/^\s*[0-9a-f]*\s+T\s+(\S+)$/) {
            $defines{$1} = $f;
        } elsif (/^\s+U\s+(\S+)$/) {
            push @{$calls{$f}}, $1;
        }
    }
}
my (%edges, @upward);
for my $f (@order) {
    for my $sym (@{$calls{$f} // []}) {
        my $to = $defines{$sym} or next;
        next if $to eq $f;
        $edges{"$f -> $to"}++;
        my $group = qr/^mod_tack_(?:status|metrics)/;
        next if $f =~ $group && $to =~ $group;
        push @upward, "$f -> $to ($sym)" if $rank{$to} > $rank{$f};
    }
}
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
