# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# scripts/uninstall-check.sh, what make uninstall and the package's prerm
# run before removing the module (issue 46, item 1): every line httpd
# would refuse without the module is named, FILE:LINE, and refuses the
# removal -- every Tack directive, and every LogLevel naming the module in
# any form httpd takes (the admin guide's "LogLevel ... tack:info" passed
# before, and purge left httpd unable to restart: "Cannot find module
# tack") -- except inside <IfModule tack_module> or <IfModule mod_tack.c>,
# which httpd skips without it.  SetHandler tack-status is a leftover,
# named, no reason to refuse (httpd takes a handler no module knows).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib", "$FindBin::Bin/../lib";
use Test::More;
use TackTool;

my $check = top() . '/scripts/uninstall-check.sh';
my $etc = tmp() . '/etc-apache2';
mkdir $etc;
mkdir "$etc/$_" for qw(sites-enabled mods-enabled conf-enabled);
write_file("$etc/apache2.conf", "IncludeOptional sites-enabled/*.conf\n");
# The module's own file goes with the package: never named.
write_file("$etc/mods-enabled/tack.conf", "LogLevel tack:info\nTackStore /x\n");

sub check {
    my ($site) = @_;
    write_file("$etc/sites-enabled/site.conf", $site);
    return run3({ env => { APACHE_CONFDIR => $etc } }, $check, $etc);
}

my $site = <<'C';
LogLevel warn tack:info
loglevel info ssl:warn TACK_module:debug
  LogLevel mod_tack.c:trace1
LogLevel warn ssl:info
<IfModule tack_module>
  TackFile /x
  LogLevel tack:debug
  <IfModule ssl_module>
    TackStore /y
  </IfModule>
</IfModule>
<IfModule mod_tack.c>
  TackRequired on
</IfModule>
<IfModule !tack_module>
  TackRequired off
</IfModule>
TackPinActivation on
# TackFile /commented
<Location /tack-status>
  SetHandler tack-status
</Location>
C
my ($rc, $out, $err) = check($site);
is($rc, 1, 'lines that need the module: the removal is refused (exit 1)');
my ($refused) = $err =~ /Remove these lines first:\n(.*?)\nthen/s;
my @named = map { /:(\d+):/ ? $1 : () } split /\n/, $refused // '';
is("@named", '1 2 3 16 18',
   '... naming each LogLevel of the module (tack:, TACK_module:, mod_tack.c:) and each Tack directive outside <IfModule tack_module>, in order')
    or diag($err);
like($refused, qr/^\Q$etc\E\/sites-enabled\/site\.conf:1:LogLevel warn tack:info$/m, '... as FILE:LINE:TEXT');
unlike($refused, qr/mods-enabled\/tack\.conf/, "... not the module's own tack.conf");
like($err, qr/"Cannot find module tack"/, '... saying what httpd would say');
like($err, qr/Left for you to remove, no reason to refuse.*\n\Q$etc\E\/sites-enabled\/site\.conf:21:\s*SetHandler tack-status/s,
     'SetHandler tack-status: a leftover, named');

($rc, $out, $err) = check("LogLevel warn ssl:info\n<IfModule tack_module>\nLogLevel tack:info\nTackStore /s\n</IfModule>\n");
is($rc, 0, 'only what <IfModule tack_module> encloses: the removal goes ahead') or diag($err);

($rc, $out, $err) = check("LogLevel warn\n  LogLevel  info  tack:debug\n");
is($rc, 1, 'the guide\'s LogLevel line alone refuses it');
like($err, qr/site\.conf:2:  LogLevel  info  tack:debug/, '... naming it');

done_testing();
