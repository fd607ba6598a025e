# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# debian/libapache2-mod-tack.postrm purge, run directly (issue 45, item 9):
# what it removes of /var/lib/apache2/tack/ and what it keeps, when that is
# a directory and when it is a symbolic link an administrator put there
# after moving the module's state to other storage.  Before: purge failed
# there (rmdir on the link, exit 1, and dpkg with it), and its
# ".state.json.??????" also removed files that are not the module's
# temporary files (".state.json.old-01").  The script runs as root in a
# mount namespace of its own (unshare -m; -r as another user) where
# /var/lib is an overlay whose changes go to a tmpfs: the machine's
# /var/lib/apache2 is never touched.  The whole life of the packages on
# a real apache2, purge included: t/package/cycle.t (make package-cycle).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $postrm = top() . '/debian/libapache2-mod-tack.postrm';
my $ns = tmp() . '/postrm';
mkdir $ns or die "$ns: $!";
mkdir "$ns/mnt" or die "$ns/mnt: $!";
my $vstate = '/var/lib/apache2/tack';

# What the module writes there: the state file, its companions, and what
# an interrupted write of each leaves (tack_file_write_temp: ".NAME." and
# six of mkstemp's letters and digits).
my @ours = qw(state.json state.json.lock state.json.pin-refused state.json.pin-key
    state.json.signing-keys state.json.verified .state.json.Ab3dE9
    .state.json.pin-refused.ZZZZZZ .state.json.verified.q1W2e3
    .state.json.pin-key.x9Z0aB .state.json.signing-keys.000000);
# What is not: the administrator's, named like them but not of that shape.
my @not_ours = qw(.state.json.old-01 .state.json.ab.d12 .state.json.bak
    .state.json.1234567 .state.json.pin-key.~ZZZZZ state.json.orig tack.key);

# purge(SETUP): the state directory as SETUP (shell) makes it, then
# `postrm purge`.  Returns its exit status, output, and what is left:
# kind ("dir", "link TARGET", "none") and the names in the directory (or
# where the link leads), sorted, one a line.
sub purge {
    my ($setup) = @_;
    write_file("$ns/run.sh", <<"S");
set -e
mount -t tmpfs tmpfs $ns/mnt
mkdir $ns/mnt/up $ns/mnt/work
mount -t overlay overlay -o lowerdir=/var/lib,upperdir=$ns/mnt/up,workdir=$ns/mnt/work /var/lib
rm -rf $vstate
mkdir -p /var/lib/apache2
$setup
rc=0
sh $postrm purge >$ns/out 2>&1 || rc=\$?
echo \$rc >$ns/rc
if [ -L $vstate ]; then echo "link \$(readlink $vstate)"
elif [ -d $vstate ]; then echo dir
else echo none; fi >$ns/kind
(cd $vstate 2>/dev/null && ls -A | sort) >$ns/left || true
S
    unlink map { "$ns/$_" } qw(out rc kind left);
    my ($rc, $out, $err) = run3('unshare', ($> == 0 ? () : ('-r')), '-m',
                                   'sh', "$ns/run.sh");
    is($rc, 0, '(the namespace ran the case)') or diag($out, $err);
    chomp(my $kind = slurp("$ns/kind") // '');
    return ((slurp("$ns/rc") // -1) + 0, slurp("$ns/out") // '', $kind,
            slurp("$ns/left") // '');
}
sub lines { join('', map { "$_\n" } sort @_) }
# make_files(DIR, NAMES...): the shell lines that make DIR with NAMES in
# it; "store/" among them, a TackStore with a TACK.
sub make_files {
    my ($dir, @names) = @_;
    return "mkdir -p $dir\n" . join('', map {
        m{/$} ? "mkdir $dir/$_\necho tack >$dir/${_}a.test.tack.pem\n"
              : "echo '{}' >$dir/$_\n" } @names);
}

# ---- a directory ----------------------------------------------------------
my ($rc, $out, $kind, $left) = purge(make_files($vstate, @ours, @not_ours, 'store/'));
is($rc, 0, 'purge with the state directory holding the administrator\'s files too: exit 0');
is($left, lines(@not_ours, 'store'),
   '... removes the module\'s files and its temporary files, and only those');
is($kind, 'dir', '... keeps the directory');
like($out, qr/^libapache2-mod-tack: purge removed the module's state file and kept \Q$vstate\E\/, which holds files that are not the package's: \Q${\ join(' ', sort(@not_ours, 'store')) }\E$/m,
     '... and names what it kept') or diag($out);

($rc, $out, $kind) = purge(make_files($vstate, @ours));
is($rc, 0, 'purge with only the module\'s files there: exit 0');
is($kind, 'none', '... removes the directory');
is($out, '', '... saying nothing');

# The usual case: the state file and its lock, no temporary file (an
# unmatched pattern must not become a name too long for rm -f).
($rc, $out, $kind) = purge(make_files($vstate, 'state.json', 'state.json.lock'));
is($rc, 0, 'purge with the state file and its lock alone, no temporary file: exit 0') or diag($out);
is($kind, 'none', '... removes the directory');

# ---- a symbolic link -------------------------------------------------------
my $moved = "$ns/persist/tack";
($rc, $out, $kind, $left) = purge("rm -rf $ns/persist\n"
    . make_files($moved, @ours, @not_ours, 'store/') . "ln -s $moved $vstate\n");
is($rc, 0, 'purge with the state directory a symbolic link to another: exit 0');
is($left, lines(@not_ours, 'store'),
   '... removes the module\'s files where it leads, and only those');
is($kind, "link $moved", '... keeps the link, to the same directory');
ok(-d $moved, '... and that directory');
like($out, qr/^libapache2-mod-tack: purge removed the module's state file from \Q$vstate\E\/, a symbolic link to \Q$moved\E, and kept the link and the directory it leads to: the administrator's$/m,
     '... and says so') or diag($out);

($rc, $out, $kind, $left) = purge("rm -rf $ns/persist\n"
    . make_files($moved, @ours) . "ln -s $moved $vstate\n");
is($rc, 0, 'purge with the link leading to the module\'s files only: exit 0');
is($left, '', '... removes them');
is($kind, "link $moved", '... and keeps the link');
ok(-d $moved, '... and the directory it leads to, empty');

# ---- pins outlive the package ------------------------------------------------
# A state file whose pins may still be active (its "pins_until") is kept,
# with the date, unless TACK_PURGE_STATE=1 (issue 46, item 2).
my $soon = time + 86400;
my $state = sub { "mkdir -p $vstate\nprintf '{\\n \"slots\": {\\n  \"a.test:443 ECDSA\": [\\n   {\\n    \"pins_until\": %d\\n   }\\n  ]\\n },\\n \"version\": 1\\n}\\n' $_[0] >$vstate/state.json\n" };
($rc, $out, $kind, $left) = purge($state->($soon) . make_files($vstate, 'state.json.lock', 'state.json.pin-key'));
is($rc, 0, 'purge with pins that may still be active: exit 0');
is($left, "state.json\n", '... keeps the state file alone');
like($out, qr/^libapache2-mod-tack: purge kept \Q$vstate\E\/state\.json: clients may hold pins on the TACK keys it names until \d{4}-\d\d-\d\dT\d\d:\d\dZ \(pins outlive the package; a reinstall before then needs it to guard them\)\. Remove it after that date, or purge with TACK_PURGE_STATE=1 in apt's environment to remove it now$/m,
     '... saying until when, and how to remove it now') or diag($out);
unlike($out, qr/files that are not the package's/, '... and nothing else');
($rc, $out, $kind, $left) = purge("export TACK_PURGE_STATE=1\n" . $state->($soon));
is($rc, 0, 'purge with TACK_PURGE_STATE=1: exit 0');
is($kind, 'none', '... removes the state file and its directory');
($rc, $out, $kind) = purge($state->(time - 60));
is($kind, 'none', 'pins lapsed (pins_until past): removed');
is($out, '', '... saying nothing');

($rc, $out, $kind) = purge("rm -rf $ns/persist\nln -s $moved $vstate\n");
is($rc, 0, 'purge with a link that leads nowhere: exit 0');
is($kind, "link $moved", '... keeps the link');
like($out, qr/^libapache2-mod-tack: purge kept \Q$vstate\E, a symbolic link to \Q$moved\E, which leads to no directory: the administrator's$/m,
     '... and says so') or diag($out);

done_testing();
