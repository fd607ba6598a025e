/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* fuzz_tack.c -- tack_parse / tack_breaksig_parse and their checks. */
#include "fuzz_common.h"
#include "tack_ext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tack_t tack;
    tack_breaksig_t sig;
    uint8_t out[TACK_LEN];
    char fp[TACK_FINGERPRINT_SIZE], when[TACK_TIME_SIZE];
    tack_status_t st;

    st = tack_parse(&tack, data, size);
    fuzz_check_status(st);
    if (st == TACK_OK) {
        /* The codec is a bijection on 166-byte strings. */
        tack_encode(&tack, out);
        fuzz_require(memcmp(out, data, TACK_LEN) == 0);
        fuzz_check_status(tack_verify(&tack));
        fuzz_check_status(tack_check_generation(&tack));
        fuzz_check_status(tack_check_expiration(&tack, 1700000000));
        tack_fingerprint(tack.public_key, fp);
        fuzz_require(strlen(fp) == TACK_FINGERPRINT_SIZE - 1);
        tack_time_format(tack.expiration, when);
        fuzz_require(when[0] != '\0');
    } else {
        fuzz_require(size != TACK_LEN);
    }

    st = tack_breaksig_parse(&sig, data, size);
    fuzz_check_status(st);
    if (st == TACK_OK) {
        uint8_t sout[TACK_BREAKSIG_LEN];

        tack_breaksig_encode(&sig, sout);
        fuzz_require(memcmp(sout, data, TACK_BREAKSIG_LEN) == 0);
        fuzz_check_status(tack_breaksig_verify(&sig));
    }
    return 0;
}
