/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* fuzz_ext00.c -- the draft-00 extension body, as a TACK client parses it. */
#include "fuzz_common.h"
#include "tack_ext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tack_ext00_t ext;
    uint8_t out[TACK_EXT00_MAX_LEN];
    size_t out_len = 0, i;
    tack_status_t st;

    st = tack_ext00_parse(&ext, data, size);
    fuzz_check_status(st);
    if (st != TACK_OK) {
        return 0;
    }
    fuzz_require(ext.num_breaksigs <= TACK_MAX_BREAKSIGS);
    fuzz_require(ext.pin_activation <= 1);
    /* Strict parsing means exactly one encoding: re-encoding gives the input
     * back. */
    st = tack_ext00_encode(&ext, out, sizeof(out), &out_len);
    fuzz_require(st == TACK_OK);
    fuzz_require(out_len == size && memcmp(out, data, size) == 0);
    if (ext.has_tack) {
        fuzz_check_status(tack_verify(&ext.tack));
    }
    for (i = 0; i < ext.num_breaksigs; i++) {
        fuzz_check_status(tack_breaksig_verify(&ext.breaksigs[i]));
    }
    return 0;
}
