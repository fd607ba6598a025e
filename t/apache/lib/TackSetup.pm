# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package TackSetup;

# The fixtures the Apache::Test server (t/conf/extra.conf.in) and the tests
# use, made fresh for every run in t/tmp/fixtures.  Names:
#   <host>.crt/.key         certificates (EC unless noted)
#   k<n>.key                TACK keys (plain PEM P-256 keys)
#   <name>.tack.pem         TACKs, <name>.breaks.pem break signatures
# When the project's tool ./tack exists, one vhost (t.test) is served a TACK
# that the tool signed, so the tool's output is proven servable.

use strict;
use warnings;

use File::Path qw(make_path remove_tree);
use TackHelpers qw(make_cert make_key tack_bytes breaksig_bytes tackpy_pem
    write_file minutes_from_now);

our $VERSION = 1;

sub generate {
    my ($dir, $top) = @_;
    remove_tree($dir);
    make_path($dir);
    # The suite's memory of pins (extra.conf.in's TackStateFile) starts
    # empty with the new keys: a run's pins on the last run's keys would
    # otherwise be reported as broken (TACK00042) and show on the status
    # page as problems.
    unlink "$dir/../tack-state.json", "$dir/../tack-state.json.pin-refused";

    # certificates
    make_cert($dir, $_, 'ec', $_)
        for qw(default.test a.test c.test e.test p.test s.test f.test
               g.test h.test t.test);
    make_cert($dir, $_, 'rsa', $_) for qw(b.test);
    make_cert($dir, 'd.test-rsa', 'rsa', 'd.test');
    make_cert($dir, 'd.test-ec', 'ec', 'd.test');

    # TACK keys and break keys
    make_key("$dir/$_.key") for qw(k1 k2 k3 k4 kb1 kb2 kb3);

    my %t = (
        'a'      => ['k1', 'a.test'],
        'b'      => ['k2', 'b.test'],
        'd-rsa'  => ['k3', 'd.test-rsa'],
        'd-ec'   => ['k3', 'd.test-ec'],
        'e1'     => ['k1', 'e.test'],
        'e2'     => ['k2', 'e.test'],
        's'      => ['k4', 's.test'],
        'f'      => ['k1', 'f.test'],
        'g'      => ['k2', 'g.test'],
        'h'      => ['k3', 'h.test'],
    );
    for my $name (sort keys %t) {
        my ($key, $cert) = @{ $t{$name} };
        write_file("$dir/$name.tack.pem", tackpy_pem('TACK',
            tack_bytes(key => "$dir/$key.key", cert => "$dir/$cert.crt",
                       min_generation => 1, generation => 2)));
    }
    # a draft-02 pair file: two keys, one certificate
    write_file("$dir/pair.tack.pem", tackpy_pem('TACK',
        tack_bytes(key => "$dir/k3.key", cert => "$dir/p.test.crt"),
        tack_bytes(key => "$dir/k4.key", cert => "$dir/p.test.crt")));

    write_file("$dir/a.breaks.pem", tackpy_pem('TACK BREAK SIG',
        breaksig_bytes("$dir/kb1.key"), breaksig_bytes("$dir/kb2.key")));
    write_file("$dir/c.breaks.pem", tackpy_pem('TACK BREAK SIG',
        breaksig_bytes("$dir/kb3.key")));

    # The project's own tool, when it has been built.
    my $tool = "$top/tack";
    if (-x $tool) {
        my $pw = 'test-pw';
        system("$tool genkey -p $pw -o $dir/tool.key >/dev/null 2>&1") == 0
            && system("$tool sign -k $dir/tool.key -p $pw"
                . " -c $dir/t.test.crt -e 90d -o $dir/t.tack.pem"
                . " >/dev/null 2>&1") == 0
            or die "the tool ./tack failed to make a fixture\n";
    }
    return 1;
}

1;
