/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* fuzz_validate.c -- the whole "validate a TACK against a certificate" path
 * a server runs before serving and a client runs on what it receives: the
 * input is a TACK followed by a DER certificate. */
#include "fuzz_common.h"
#include "tack_ext.h"

#include <openssl/x509.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tack_t tack;
    const uint8_t *p;
    uint8_t hash[TACK_HASH_LEN];
    uint8_t walk_hash[TACK_HASH_LEN];
    const uint8_t *oid = NULL;
    size_t oid_len = 0;
    X509 *cert;
    tack_status_t st, walk;

    if (size < TACK_LEN) {
        return 0;
    }
    fuzz_require(tack_parse(&tack, data, TACK_LEN) == TACK_OK);
    p = data + TACK_LEN;
    walk =
        tack_cert_der_spki_hash(p, size - TACK_LEN, walk_hash, &oid, &oid_len);
    fuzz_check_status(walk);
    cert = d2i_X509(NULL, &p, (long)(size - TACK_LEN));
    st = tack_validate(&tack, cert, 1700000000);
    fuzz_check_status(st);
    if (cert != NULL) {
        st = tack_spki_hash(cert, hash);
        fuzz_check_status(st);
        if (st == TACK_OK) {
            fuzz_require((tack_check_target_hash(&tack, hash) == TACK_OK) ==
                         (memcmp(tack.target_hash, hash, TACK_HASH_LEN) == 0));
            /* Whatever the DER walk accepts, it hashes exactly what
             * OpenSSL's decoder and re-encoder hash: apache2 -t (the walk)
             * and a real start (mod_ssl's X509) must agree. */
            if (walk == TACK_OK) {
                fuzz_require(memcmp(walk_hash, hash, TACK_HASH_LEN) == 0);
            }
        }
        X509_free(cert);
    }
    return 0;
}
