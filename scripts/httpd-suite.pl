#!/usr/bin/perl
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# httpd-suite.pl -- the parts of scripts/httpd-suite.sh that read and
# write httpd's test framework (Debian's debian/perl-framework), and its
# results:
#
#   httpd-suite.pl inject DIR TACKFILE STATEFILE
#       In the framework copy DIR, put "TackFile TACKFILE" and
#       "TackTLS13 On" after every "SSLEngine on" of a <VirtualHost> in the
#       sources its configuration is generated from (t/conf/**/*.conf.in,
#       and the configuration blocks of c-modules/*/*.c); print each such
#       virtual host's label, one a line.  A t/conf/tack.conf.in of its
#       own names STATEFILE as mod_tack's TackStateFile.
#   httpd-suite.pl vhosts DIR [TACKFILE]
#       From the configuration the framework generated in DIR: print
#       "LABEL PORT" for every <VirtualHost> with SSLEngine on (the
#       labels of the name-based ones on a port joined by '/').  With
#       TACKFILE, each must name it in a TackFile line; without, no Tack
#       directive may be in the configuration at all.  Exit 1 otherwise.
#   httpd-suite.pl free-ports FROM
#       Print the first port P of FROM, FROM+100, ... (below 10000) such
#       that P to P+99 are all free on every address (the framework's
#       httpd listens on 0.0.0.0, from its base port up, a port per
#       virtual host); exit 1 when there is none.
#   httpd-suite.pl tap LOG
#       Read the verbose output of t/TEST (Test::Harness's) and print one
#       line per result, tab-separated: "FILE N STATUS" per subtest
#       (ok, not ok, skip, todo ok, todo not ok), "FILE plan N", and
#       "FILE skipped REASON" for a file skipped whole.
#   httpd-suite.pl compare STOCK TACK [LABEL]
#       Compare two outputs of tap, without and with mod_tack, file by
#       file and subtest by subtest.  Prints every difference (file,
#       subtest, both results), the stock failures (the same on both
#       sides, or they are differences), the per-side counts; exit 0 when
#       both sides ran the same non-zero number of subtests with identical
#       results, 1 otherwise.  "compare-files" prints only the files that
#       differ, one a line (for the one re-run allowed).
use strict;
use warnings;
use File::Find ();
use FindBin;
# t/lib: the helpers the Perl test suites share.
use lib "$FindBin::Bin/../t/lib";
use TackHelpers qw(slurp write_file);
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_REUSEADDR INADDR_ANY
              sockaddr_in);

my $cmd = shift // '';
if ($cmd eq 'inject') {
    inject(@ARGV);
}
elsif ($cmd eq 'vhosts') {
    exit vhosts(@ARGV);
}
elsif ($cmd eq 'free-ports') {
    exit free_ports(@ARGV);
}
elsif ($cmd eq 'tap') {
    tap(@ARGV);
}
elsif ($cmd eq 'compare' || $cmd eq 'compare-files') {
    exit compare($cmd eq 'compare-files', @ARGV);
}
else {
    die "usage: httpd-suite.pl inject|vhosts|free-ports|tap|compare|compare-files ...\n";
}

# inject DIR TACKFILE STATEFILE: the virtual hosts are in the .conf.in files, and in
# the C test modules between "#if CONFIG_FOR_HTTPD_TEST" and "#endif"
# (Apache::TestConfigC copies that block into httpd.conf).
sub inject {
    my ($dir, $tackfile, $statefile) = @_;
    die "usage: httpd-suite.pl inject DIR TACKFILE STATEFILE\n"
        unless defined $statefile;
    my @files;
    File::Find::find(sub {
        push @files, $File::Find::name
            if /\.conf\.in$/ || ($File::Find::dir =~ m{/c-modules/} && /\.c$/);
    }, "$dir/t/conf", "$dir/c-modules");
    my $n = 0;
    for my $f (sort @files) {
        my $in = slurp($f);
        my ($out, $label, $changed) = ('', undef, 0);
        for my $line (split /^/, $in) {
            $out .= $line;
            if ($line =~ /^\s*<VirtualHost\s+([^>]+)>/i) {
                $label = $1;
            }
            elsif ($line =~ m{^\s*</VirtualHost>}i) {
                $label = undef;
            }
            elsif (defined $label && $line =~ /^(\s*)SSLEngine\s+on\s*$/i) {
                my $indent = $1;
                $out .= "${indent}TackFile $tackfile\n${indent}TackTLS13 On\n";
                print "$label\n";
                $changed = $n += 1;
            }
        }
        write_file($f, $out) if $changed;
    }
    die "httpd-suite: no <VirtualHost> with SSLEngine on in $dir\n" unless $n;
    # The module's memory of served pins: the run's own, not the machine's
    # (/var/lib/apache2/tack/, which other runs of mod_tack may have
    # written and the framework's user cannot).
    write_file("$dir/t/conf/tack.conf.in",
         "# mod_tack's server-level configuration (scripts/httpd-suite.pl)\n" .
         "TackStateFile $statefile\n");
}

sub free_ports {
    my ($from) = @_;
    die "usage: httpd-suite.pl free-ports FROM\n" unless $from;
    BASE: for (my $base = $from; $base + 100 < 10000; $base += 100) {
        for my $port ($base .. $base + 99) {
            socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n";
            setsockopt($s, SOL_SOCKET, SO_REUSEADDR, pack('l', 1));
            my $ok = bind($s, sockaddr_in($port, INADDR_ANY));
            close $s;
            next BASE unless $ok;
        }
        print "$base\n";
        return 0;
    }
    print STDERR "httpd-suite: no 100 free ports from $from up to 9999\n";
    return 1;
}

# The generated configuration: httpd.conf and what it includes (in order,
# an Include where it stands).
sub generated_conf {
    my ($file, $seen) = @_;
    return '' if $seen->{$file}++;
    my $text = '';
    for my $line (split /^/, slurp($file)) {
        if ($line =~ /^\s*Include(?:Optional)?\s+"?([^"\s]+)"?/i && -f $1) {
            $text .= generated_conf($1, $seen);
        }
        else {
            $text .= $line;
        }
    }
    return $text;
}

sub vhosts {
    my ($dir, $tackfile) = @_;
    my $conf = generated_conf("$dir/t/conf/httpd.conf", {});
    # The label of each port, from the cached configuration
    # (t/conf/apache_test_config.pm: 'vhosts' => { LABEL => { port => N } }).
    my %label;
    my $cache = slurp("$dir/t/conf/apache_test_config.pm");
    while ($cache =~ /'([\w.-]+)' => \{([^{}]*'hostport'[^{}]*)\}/g) {
        my ($name, $body) = ($1, $2);
        $label{$1} = join '/', sort grep { defined } $label{$1}, $name
            if $body =~ /'port' => '?(\d+)/;
    }
    my $rc = 0;
    my @blocks = $conf =~ m{^\s*(<VirtualHost\s[^>]*>.*?</VirtualHost>)}msig;
    my $ssl = 0;
    for my $b (@blocks) {
        next unless $b =~ /^\s*SSLEngine\s+on\s*$/mi;
        $ssl++;
        my ($port) = $b =~ /<VirtualHost\s+[^>]*:(\d+)>/i;
        $port //= '?';
        my $name = $label{$port} // "port-$port";
        if (defined $tackfile) {
            unless ($b =~ /^\s*TackFile\s+\Q$tackfile\E\s*$/m) {
                print STDERR "httpd-suite: the SSL virtual host $name" .
                    " (port $port) has no TackFile $tackfile\n";
                $rc = 1;
            }
        }
        print "$name $port\n";
    }
    if (!defined $tackfile && $conf =~ /^\s*(Tack\w+.*)$/mi) {
        print STDERR "httpd-suite: the configuration without mod_tack" .
            " has a Tack directive: $1\n";
        $rc = 1;
    }
    if (!$ssl) {
        print STDERR "httpd-suite: no SSL virtual host in $dir/t/conf\n";
        $rc = 1;
    }
    return $rc;
}

# tap LOG: Test::Harness's verbose output is, for each file, a line
# "t/dir/file.t .... " (with "skipped: REASON" after the dots when the
# file is skipped whole), then the file's TAP; subtests of Test::More are
# indented and left to their parent's result.
sub tap {
    my ($log) = @_;
    my ($file, %todo);
    for my $line (split /\n/, slurp($log)) {
        if ($line =~ m{^(t/\S+\.t) \.+\s*(.*?)\s*$}) {
            $file = $1;
            %todo = ();
            my $rest = $2;
            print "$file\tskipped\t$1\n" if $rest =~ /^skipped:\s*(.*)$/;
            next;
        }
        next unless defined $file;
        if ($line =~ /^1\.\.(\d+)(.*)$/) {
            print "$file\tplan\t$1\n";
            # Test.pm's expected failures: "1..N todo 3 5;"
            %todo = map { $_ => 1 } split ' ', $1 if $2 =~ /^\s+todo\s+([\d\s]*)/;
        }
        elsif ($line =~ /^(not )?ok (\d+)\b(.*)$/) {
            my ($not, $n, $rest) = ($1, $2, $3);
            my $status = $not ? 'not ok' : 'ok';
            if ($rest =~ /#\s*skip\b/i) {
                $status = 'skip';
            }
            elsif ($rest =~ /#\s*todo\b/i || $todo{$n}) {
                $status = "todo $status";
            }
            print "$file\t$n\t$status\n";
        }
        elsif ($line =~ /^(Test Summary Report|Files=\d+)/) {
            undef $file;
        }
    }
}

sub read_tap {
    my ($f) = @_;
    my %r;
    for my $line (split /\n/, slurp($f)) {
        my ($file, $k, $v) = split /\t/, $line, 3;
        next unless defined $v;
        $r{$file}{$k} = $v;
    }
    return \%r;
}

sub counts {
    my ($r) = @_;
    my %c = (subtests => 0, files => 0, skipped_files => 0);
    for my $file (keys %$r) {
        $c{files}++;
        $c{skipped_files}++ if exists $r->{$file}{skipped};
        for my $k (keys %{ $r->{$file} }) {
            next unless $k =~ /^\d+$/;
            $c{subtests}++;
            $c{ $r->{$file}{$k} }++;
        }
    }
    return \%c;
}

sub by_number { ($a =~ /^\d+$/ ? $a : -1) <=> ($b =~ /^\d+$/ ? $b : -1) or $a cmp $b }

sub compare {
    my ($files_only, $stock_f, $tack_f, $label) = @_;
    die "usage: httpd-suite.pl compare STOCK TACK [LABEL]\n" unless defined $tack_f;
    $label = defined $label ? "$label: " : '';
    my ($stock, $tack) = (read_tap($stock_f), read_tap($tack_f));
    my %files = map { $_ => 1 } keys %$stock, keys %$tack;
    my (@diff, %diff_file, @known, @todo);
    for my $file (sort keys %files) {
        my ($s, $t) = ($stock->{$file} // {}, $tack->{$file} // {});
        unless (%$s && %$t) {
            my ($ran, $side) = %$s ? ($s, 'with') : ($t, 'without');
            my $n = grep { /^\d+$/ } keys %$ran;
            push @diff, "$file: not run $side mod_tack ($n subtests on the" .
                " other side)";
            $diff_file{$file} = 1;
            next;
        }
        my %k = map { $_ => 1 } keys %$s, keys %$t;
        my @file_diff;
        for my $k (sort by_number keys %k) {
            my ($sv, $tv) = ($s->{$k} // '(none)', $t->{$k} // '(none)');
            if ($sv ne $tv) {
                my $what = $k =~ /^\d+$/ ? "subtest $k" : $k;
                push @file_diff, "$file $what: without mod_tack '$sv'," .
                    " with mod_tack '$tv'";
            }
            elsif ($k =~ /^\d+$/ && $sv eq 'not ok') {
                push @known, "$file $k";
            }
            elsif ($k =~ /^\d+$/ && $sv eq 'todo not ok') {
                push @todo, "$file $k";
            }
        }
        next unless @file_diff;
        $diff_file{$file} = 1;
        # A file that stopped half-way differs in every subtest after.
        if (@file_diff > 20) {
            my $more = @file_diff - 20;
            splice @file_diff, 20;
            push @file_diff, "$file: and $more more subtests";
        }
        push @diff, @file_diff;
    }
    if ($files_only) {
        print "$_\n" for sort keys %diff_file;
        return 0;
    }
    my ($cs, $ct) = (counts($stock), counts($tack));
    my $side = sub {
        my $c = shift;
        sprintf "%d subtests in %d files (%d ok, %d not ok, %d skip%s%s)",
            $c->{subtests}, $c->{files} - $c->{skipped_files},
            $c->{ok} // 0, $c->{'not ok'} // 0, $c->{skip} // 0,
            ($c->{'todo ok'} || $c->{'todo not ok'})
                ? sprintf(", %d todo", ($c->{'todo ok'} // 0) + ($c->{'todo not ok'} // 0))
                : '',
            $c->{skipped_files} ? ", $c->{skipped_files} files skipped whole" : '';
    };
    print "httpd-suite: ${label}without mod_tack: ", $side->($cs), "\n";
    print "httpd-suite: ${label}with mod_tack:    ", $side->($ct), "\n";
    my $per_file = sub {
        my %per;
        for (@_) {
            my ($f, $n) = split ' ';
            push @{ $per{$f} }, $n;
        }
        return join '; ', map { "$_ " . join(',', @{ $per{$_} }) } sort keys %per;
    };
    print "httpd-suite: ${label}failing on both sides (the stock suite's" .
        " failures here): ", $per_file->(@known), "\n" if @known;
    print "httpd-suite: ${label}expected failures (TODO) failing on both" .
        " sides: ", $per_file->(@todo), "\n" if @todo;
    for my $file (sort keys %files) {
        my $r = $stock->{$file} // {};
        print "httpd-suite: ${label}skipped whole on both sides: $file" .
            " ($r->{skipped})\n"
            if exists $r->{skipped} && exists(($tack->{$file} // {})->{skipped});
    }
    my $rc = 0;
    if (@diff) {
        print "httpd-suite: ${label}DIFFERENT: $_\n" for @diff;
        $rc = 1;
    }
    if (!$cs->{subtests} || !$ct->{subtests}) {
        print "httpd-suite: ${label}FAILED: a side ran no subtest\n";
        $rc = 1;
    }
    elsif ($cs->{subtests} != $ct->{subtests}) {
        print "httpd-suite: ${label}FAILED: $cs->{subtests} subtests without" .
            " mod_tack, $ct->{subtests} with\n";
        $rc = 1;
    }
    print "httpd-suite: ${label}identical, subtest by subtest" .
        " ($cs->{subtests} each side)\n" unless $rc;
    return $rc;
}
