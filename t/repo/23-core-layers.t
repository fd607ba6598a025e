# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The core's files in their layers (docs/contributing.md, "Architecture"),
# as t/apache/layers.t checks the module's, read from the objects make core
# built (build/tack_*.o) and from the sources:
#  - the Makefile's CORE_SRC lists every tack_*.c, bottom first, and each
#    has a header of its own (tack_X.c, tack_X.h);
#  - a file calls only the files listed before it (nm: what each object
#    defines, T, and what it leaves to others, U): no loop;
#  - tack_base.c calls no other file of the core;
#  - a core file (.c or .h) includes the headers of itself and of the files
#    before it only; a header without a file of its own (tack_cbs.h) lies
#    beneath all and includes none;
#  - each file tack_X.c has its unit tests in t/unit/test_X.c, the suite
#    "X" (X_suite), which check_main.c runs in CORE_SRC's order; a file
#    too long for one test file adds test_X_SUBJECT.c files, each a TCase
#    (X_SUBJECT_tcase) that test_X.c's suite takes.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $top = top();
my $makefile = slurp("$top/Makefile");
my ($list) = $makefile =~ /^CORE_SRC := (.*?)\n(?!\s)/ms
    or BAIL_OUT('no CORE_SRC in the Makefile');
# the words naming .c files: "$(addprefix core/,tack_base.c", ...
my @order = map { m{([A-Za-z0-9_]+)\.c\)?$} ? $1 : () } split /[\s\\]+/, $list;
my %rank = map { $order[$_] => $_ } 0 .. $#order;

my @sources = sort map { m{([^/]+)\.c$} } glob "$top/core/tack_*.c";
ok(@sources >= 10, 'the core\'s sources are found (' . @sources . ')');
is(join(' ', sort @order), join(' ', @sources),
   'CORE_SRC lists every tack_*.c file');
is(join(' ', grep { !-f "$top/core/$_.h" } @order), '',
   'each file of the core has a header of its own');

# ---- calls ----------------------------------------------------------------

for my $f (@order) {
    my $obj = "$top/build/$f.o";
    BAIL_OUT("$obj not built: run make core") unless -f $obj;
    BAIL_OUT("$obj is older than $f.c: run make core")
        if -M $obj > -M "$top/core/$f.c";
}
my ($defines, $edges, $upward) = TackHelpers::layer_calls(
    order => \@order, object => sub { "$top/build/$_[0].o" },
    defined => qr/[TDBR]/);
my %defines = %$defines;
my %edges = %$edges;
my @upward = @$upward;
is(join(' ', grep { my $f = $_; !grep { $defines{$_} eq $f } keys %defines }
             @order), '',
   'every core object defines functions (nm read them)');

ok(keys(%edges) >= 10,
   'calls between the core\'s files are found (' . keys(%edges) . ' edges)');
ok($edges{'tack_ext -> tack_key'} && $edges{'tack_pkcs11 -> tack_key'},
   'the known calls are among them (tack_ext and tack_pkcs11 sign with '
   . 'tack_key)');
is(join("\n", @upward), '', 'every call goes down the layers: no loop');
is(join(' ', grep { /^tack_base -> / } sort keys %edges), '',
   'tack_base.c calls no other file of the core');
diag(join("\n", 'core calls:', sort keys %edges)) if $ENV{TEST_VERBOSE};

# ---- includes -------------------------------------------------------------

# A header's rank is its file's; a header with no file beneath all.
my %hrank = map { ("$_.h" => $rank{$_}) } @order;
my (@wrong, $checked);
for my $file (sort glob("$top/core/tack_*.c"), sort glob("$top/core/tack_*.h")) {
    my ($name, $base) = $file =~ m{(([^/]+)\.[ch])$};
    my $r = $rank{$base} // -1;
    open my $fh, '<', $file or die "$file: $!";
    while (<$fh>) {
        next unless /^\s*#\s*include\s+"(tack_[^"]+\.h)"/;
        my $h = $1;
        $checked++;
        my $hr = $hrank{$h} // -1;
        push @wrong, "$name includes $h" if $hr > $r || (!-f "$top/core/$h")
            || ($r < 0 && $h ne $name);
    }
}
ok($checked >= 20, "the core's include lines are read ($checked)");
is(join("\n", @wrong), '',
   'every core file includes only headers of itself and the files below it');

# ---- unit tests -------------------------------------------------------------

my $unit = "$top/t/unit";
my (@no_suite, @stray);
for my $x (@order) {
    (my $name = $x) =~ s/^tack_//;
    my $src = TackHelpers::read_file("$unit/test_$name.c") // '';
    push @no_suite, "tack_$name.c: no t/unit/test_$name.c with "
        . "Suite *${name}_suite(void) and suite_create(\"$name\")"
        unless $src =~ /^Suite \*\Q$name\E_suite\(void\)\n\{/m
            && $src =~ /suite_create\("\Q$name\E"\)/;
}
is(join("\n", @no_suite), '',
   'each core file tack_X.c has t/unit/test_X.c with the suite X');

my %core = map { (s/^tack_//r => 1) } @order;
for my $t (sort map { m{/test_(\w+)\.c$} } glob "$unit/test_*.c") {
    next if $core{$t};
    # test_X_SUBJECT.c: a TCase of the suite of the longest X it starts with
    my ($x) = sort { length $b <=> length $a }
        grep { index($t, "${_}_") == 0 } keys %core;
    my $own = $x ? TackHelpers::read_file("$unit/test_$t.c") // '' : '';
    my $suite = $x ? TackHelpers::read_file("$unit/test_$x.c") // '' : '';
    push @stray, "t/unit/test_$t.c: neither a core file's tests nor a TCase "
        . "${t}_tcase() that a core file's suite takes"
        unless $x && $own =~ /^TCase \*\Q$t\E_tcase\(void\)\n\{/m
            && $suite =~ /\b\Q$t\E_tcase\(\)/;
}
is(join("\n", @stray), '',
   'every other t/unit/test_*.c is a TCase of its core file\'s suite');

my $main = TackHelpers::read_file("$unit/check_main.c") // '';
my @run = $main =~ /\b(\w+)_suite\(\)/g;
is(join(' ', @run), join(' ', map { s/^tack_//r } @order),
   'check_main.c runs the suites in CORE_SRC\'s order, each once');

done_testing();
