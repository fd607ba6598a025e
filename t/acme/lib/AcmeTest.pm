# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package AcmeTest;

# AcmeTest.pm -- what t/acme/*.t share besides Pebble.pm: the parts they
# need (a missing one fails the test, it never skips), a temporary
# directory the httpd children can read, the tool, certbot runs and the
# mod_md configuration for a private pebble.
#
#   use AcmeTest;            # also loads Pebble and TackTest (t/apache/lib)
#   need('pebble', 'certbot', 'mod_md');
#   my $d = acme_tmp('certbot');           # t/tmp/acme/certbot, fresh
#   my ($rc, $out, $err) = run({ env => {...} }, @argv);
#   my $h = TackTest::Httpd->new('acme-md');
#   $h->write_conf(md_conf($pebble, ...) . $vhosts, loglevel => ...);

use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
# Pebble.pm beside it, TackTest.pm in t/apache/lib, PrivateHttpd.pm in
# t/lib: from any test directory.
BEGIN {
    my $d = dirname(abs_path(__FILE__));
    unshift @INC, $d, "$d/../../apache/lib", "$d/../../lib";
}
use File::Path qw(make_path remove_tree);
use Test::More;

use Pebble;
use TackTest ();
use TackHelpers qw(slurp write_file store_name);

use Exporter 'import';
our @EXPORT = qw(need acme_tmp run tack top slurp write_file key_sha256 tack_id
                 store_name
                 certbot md_conf MOD_MD);

use constant MOD_MD => '/usr/lib/apache2/modules/mod_md.so';

my $top = TackTest::top_dir();
sub top { $top }

# need(@parts): every part is there, or the test fails here (a suite that
# passes without running is a defect).  Also writes t/tmp/inherit.conf,
# the LoadModule lines TackTest::Httpd uses, as t/run-apache-tests does,
# when no run made it yet.
sub need {
    my %where = (pebble => '/usr/bin/pebble', certbot => '/usr/bin/certbot',
                 mod_md => MOD_MD, tack => "$top/tack",
                 softhsm2 => '/usr/lib/softhsm/libsofthsm2.so',
                 'pkcs11-tool' => '/usr/bin/pkcs11-tool',
                 provider => '/usr/lib/x86_64-linux-gnu/ossl-modules/pkcs11.so',
                 mod_tack => "$top/build/mod_tack.so");
    my @missing = grep { !-e $where{$_} } (@_, 'tack', 'mod_tack');
    if (@missing) {
        plan tests => 1;
        fail("missing: " . join(', ', map { "$_ ($where{$_})" } @missing)
             . '; run make deps and make');
        exit 1;
    }
    my $inherit = TackTest::t_dir() . '/tmp/inherit.conf';
    return if -s $inherit;
    make_path(TackTest::t_dir() . '/tmp');
    write_file($inherit, PrivateHttpd::load_modules(
        qw(mpm_event authz_core mime socache_shmcb ssl dir alias authz_host
           log_config status)) . "TypesConfig /etc/mime.types\n");
}

# acme_tmp($name): t/tmp/acme/$name, emptied; under the tree (not root's
# /tmp files) so that httpd's children, nobody, can read it.
sub acme_tmp {
    my ($name) = @_;
    my $d = TackTest::t_dir() . "/tmp/acme/$name";
    remove_tree($d);
    make_path($d);
    chmod 0755, $d;
    return $d;
}

# run(\%opt, @argv): (exit status, stdout, stderr); $opt{env} adds to the
# environment, $opt{stdin} is the input (TackHelpers' run3).
sub run { TackHelpers::run3(@_) }

sub tack { run(ref($_[0]) eq 'HASH' ? shift : {}, "$top/tack", @_) }

# key_sha256($cert): the SHA-256 of its public key, as tack view shows it
# (what a TACK's target_hash must be).
sub key_sha256 {
    my ($rc, $out) = tack('view', $_[0]);
    return $out =~ /^key_sha256\s+= ([0-9a-f]{64})$/m ? $1 : undef;
}

# store_name($cert, $host): the name of $cert's TackStore file (an ECDSA
# certificate for $host), the one name the hooks, TackSigningKey and tack
# sign -o STORE/ give it: TackHelpers'.

# tack_id($file): the TACK ID of the first TACK in a file.
sub tack_id {
    my ($rc, $out) = tack('view', $_[0]);
    return $out =~ /^TACK ID\s+= (\S+)$/m ? $1 : undef;
}

# certbot($pebble, $dir, \%env, @args): certbot against $pebble with its
# configuration, work and log directories in $dir/certbot; returns
# (exit status, stdout, stderr).
sub certbot {
    my ($pebble, $dir, $env, @args) = @_;
    return run({ env => { REQUESTS_CA_BUNDLE => $pebble->ca_file,
                          %{ $env || {} } } },
        '/usr/bin/certbot', @args, '--server', $pebble->url,
        '--config-dir', "$dir/certbot/etc", '--work-dir', "$dir/certbot/work",
        '--logs-dir', "$dir/certbot/logs", '--non-interactive');
}

# md_conf($pebble, store => DIR, http => PORT, https => PORT, ...): the
# server-level mod_md lines for a private pebble: its CA, the agreement,
# a contact, MDPortMap to the private ports, the store, ECDSA keys
# (keys => 'secp256r1' unless set) and, with renew => 1, a renew window
# longer than pebble's 5-year certificates, so every start or graceful
# renews.  Add more lines with extra => '...'.  The caller listens on both
# ports ("Listen 127.0.0.1:HTTP").
sub md_conf {
    my ($pebble, %o) = @_;
    my $conf = "LoadModule md_module " . MOD_MD . "\n"
        . "MDCertificateAuthority " . $pebble->url . "\n"
        . "MDCACertificateFile " . $pebble->ca_file . "\n"
        . "MDCertificateAgreement accepted\n"
        . "MDContactEmail " . ($o{email} || 'admin@tack.test') . "\n"
        . "MDPortMap http:$o{http} https:$o{https}\n"
        . "MDStoreDir $o{store}\n"
        . "MDPrivateKeys " . ($o{keys} || 'secp256r1') . "\n";
    $conf .= "MDRenewWindow 1900d\n" if $o{renew};
    $conf .= $o{extra} if $o{extra};
    return $conf;
}

1;
