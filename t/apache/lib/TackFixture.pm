# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
package TackFixture;

# Test fixtures made at test time, independently of the project's C code:
# certificates and P-256 keys with the openssl command, TACKs and break
# signatures assembled byte by byte (draft-perrin-tls-tack-00 sections
# 3-4) and signed with "openssl dgst -sign".  A module that accepts these has
# been checked against a second implementation, not against itself.
#
# The helpers are t/lib/TackHelpers.pm's, exported again here; this suite
# writes every PEM file in TACKpy's layout (pem is TackHelpers' tackpy_pem:
# comment lines before each block, as the module must accept them).

use strict;
use warnings;

use TackHelpers qw(make_cert make_key spki_hash store_name key_public
    tack_bytes breaksig_bytes write_file pem_blocks minutes_from_now ext00
    ext02 fingerprint must_run);

use Exporter 'import';
our @EXPORT_OK = qw(make_cert make_key spki_hash store_name key_public tack_bytes
    breaksig_bytes pem write_file pem_blocks minutes_from_now
    ext00 ext02 fingerprint must_run);

{ no warnings 'once'; *pem = \&TackHelpers::tackpy_pem; }

1;
