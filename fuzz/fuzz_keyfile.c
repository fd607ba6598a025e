/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* fuzz_keyfile.c -- the TACK PRIVATE KEY file: PEM, structure and the
 * decryption path with a fixed password ("asdf") and a fixed, low PBKDF2
 * iteration count (FUZZ_KEYFILE_ITERATIONS), so that the fuzzer explores
 * the parser and the MAC / key checks rather than spending its time in
 * PBKDF2.  The seeds iter2_asdf_* were made with
 * `tack genkey -p asdf --iterations 2`: their MAC verifies, so the
 * decryption's success path and the private/public key match are reached
 * too (a count derived from the file's own would never equal 2 for them). */
#include "fuzz_common.h"
#include "tack_key.h"
#include "tack_keyfile.h"

#define FUZZ_KEYFILE_ITERATIONS 2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tack_keyfile_t kf, parsed;
    uint8_t out[TACK_KEYFILE_LEN];
    EVP_PKEY *key = NULL;
    unsigned line = 0;
    tack_status_t st;

    st = tack_keyfile_from_pem(&kf, (const char *)data, size, &line);
    fuzz_check_status(st);
    if (st != TACK_OK) {
        /* The raw structure too, for inputs that are not PEM. */
        st = tack_keyfile_parse(&kf, data, size);
        fuzz_check_status(st);
        if (st != TACK_OK) {
            return 0;
        }
    }
    fuzz_require(kf.iterations >= 1 &&
                 kf.iterations <= TACK_KEYFILE_MAX_ITERATIONS);
    tack_keyfile_encode(&kf, out);
    fuzz_require(tack_keyfile_parse(&parsed, out, sizeof(out)) == TACK_OK);
    fuzz_require(memcmp(&parsed, &kf, sizeof(kf)) == 0);

    kf.iterations = FUZZ_KEYFILE_ITERATIONS;
    st = tack_keyfile_decrypt(&kf, "asdf", 4, &key);
    fuzz_check_status(st);
    if (st == TACK_OK) {
        uint8_t pub[TACK_KEY_LEN];

        fuzz_require(tack_key_public(key, pub) == TACK_OK);
        fuzz_require(memcmp(pub, kf.public_key, TACK_KEY_LEN) == 0);
        EVP_PKEY_free(key);
    }
    return 0;
}
