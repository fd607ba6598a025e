# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# The licence: LICENSE is the Apache License 2.0 as Debian ships it, NOTICE
# names the copyright holders, and every source file says its licence with
# an SPDX identifier (a new file without one fails here).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tool/lib", "$FindBin::Bin/../lib";
use Test::More;
use File::Find;
use TackTool;

my $top = top();
my $common = '/usr/share/common-licenses/Apache-2.0';
ok(-f "$top/LICENSE", 'LICENSE exists');
if (-f $common) {
    is(slurp("$top/LICENSE"), slurp($common),
       "LICENSE is the text of $common");
} else {
    like(slurp("$top/LICENSE"), qr/Apache License\s+Version 2\.0, January 2004/,
         'LICENSE is the Apache License 2.0');
}
like(slurp("$top/NOTICE"), qr/Copyright \d{4} the mod_tack authors/,
     'NOTICE names the copyright holders');

# Data (vectors, seeds, PEM fixtures, pictures) and prose carry no header.
my $data = qr{(?:^|/)(?:fuzz/corpus|t/vectors|t/state|t/logs|t/tmp|t/conf/apache_test_config\.pm|build[^/]*|
                        debian|\.git|\.libs)(?:/|$)}x;
my @src;
find({ no_chdir => 1, wanted => sub {
    # the top itself is one character short of "$top/"
    return if length($File::Find::name) <= length($top);
    my $rel = substr($File::Find::name, length($top) + 1);
    if (-d $_) { $File::Find::prune = 1 if $rel =~ $data; return; }
    return if $rel =~ $data;
    return unless $rel =~ m{\.(?:c|h|t|pm|sh|1)$|(?:^|/)(?:Makefile|TEST\.PL|
                                run-apache-tests|run|tack-[a-z]+-hook)$|
                                ^conf/tack\.(?:load|conf)$|\.conf\.in$}x;
    push @src, $rel;
} }, $top);
cmp_ok(scalar(@src), '>=', 130, 'the source files are found (' . @src . ')');
for my $f (sort @src) {
    my ($head) = slurp("$top/$f") =~ /\A((?:[^\n]*\n){0,4})/;
    like($head // '', qr/SPDX-License-Identifier: Apache-2\.0/,
         "$f names its licence in its first lines");
}
done_testing();
