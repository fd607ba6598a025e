# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# tack state --redate on a state file it must not rewrite (issue 45, item
# 7).  The module does not read a TackStateFile that is a symbolic link
# (TACK00045: whoever could plant one would make httpd's parent, as root,
# read any file); --redate followed one and replaced the link with a
# regular file, its target left as it was.  It now refuses the link as the
# module does, exit status 2 with nothing changed.  `--redate -` wrote a
# file named "-" in the working directory; it is refused too.  The rest of
# `tack state` with httpd: t/apache/guard.t.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

BAIL_OUT("$TACK not built: run make tool") unless -x $TACK;

my $d = tmp() . '/state';
mkdir $d or die "$d: $!";
mkdir "$d/elsewhere" or die "$d/elsewhere: $!";

# A state file written while the clock ran ten years ahead: one key, first
# seen 10 days ago, last served then.
my $ahead = time + 3650 * 86400;
my $first = time - 10 * 86400;
my $json = sprintf('{"version": 1, "written": %d, "slots": {"a.test:443 ECDSA": '
    . '[{"key": "%s", "first_seen": %d, "last_served": %d, "serving": true}]}}',
    $ahead, '11' x 64, $first, $ahead);

# ---- a symbolic link: refused, the link and its target untouched -------
my $target = "$d/elsewhere/state.json";
write_file($target, $json);
symlink('elsewhere/state.json', "$d/state.json") or die "symlink: $!";
my ($rc, $out, $err) = tack('state', '--redate', "$d/state.json");
is($rc, 2, 'tack state --redate on a symbolic link: exit status 2');
like($err, qr/^tack: \Q$d\E\/state\.json: a symbolic link, not followed \(the module does not read one either, TACK00045\); nothing changed: name the file itself$/m,
     '... one line names the file, the reason and what to do') or diag($err);
ok(-l "$d/state.json", '... the link is still a link');
is(readlink("$d/state.json"), 'elsewhere/state.json', '... to the same target');
is(slurp($target), $json, '... and the target is unchanged');
is(join(' ', sort grep { !/^\.\.?$/ } do { opendir(my $dh, $d) or die; readdir $dh }),
   'elsewhere state.json', '... and no file is left beside it');

# ---- standard input: refused, no file named "-" ------------------------
($rc, $out, $err) = tack({ stdin => $json, cwd => $d }, 'state', '--redate',
                         '-');
is($rc, 2, 'tack state --redate - (standard input): exit status 2');
like($err, qr/^tack state: --redate rewrites FILE: name the file, not - \(standard input\)$/m,
     '... it says to name the file') or diag($err);
ok(!-e "$d/-", '... and writes no file named "-" where it runs');

# ---- the file itself, as before -----------------------------------------
($rc, $out, $err) = tack('state', '--redate', $target);
is($rc, 0, 'tack state --redate on the file the link named: exit status 0')
    or diag($err);
like($err, qr/^tack: \Q$target\E: dated back from \S+ to the clock \(\S+\): 1 key counted as served until now/m,
     '... says what it did');
($rc, $out, $err) = tack('state', $target);
is($rc, 0, '... and tack state finds nothing later than the clock in it')
    or diag($out, $err);
like($out, qr/^  \S+  first seen \S+, last served \S+ \(serving\), pins until /m,
     '... the key still listed as serving');
ok(-l "$d/state.json", '... the link left as it is');

done_testing();
