/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* fuzz_ext02.c -- the draft-02 extension body, as a TACK client parses it. */
#include "fuzz_common.h"
#include "tack_ext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tack_ext02_t ext;
    uint8_t out[TACK_EXT02_MAX_LEN];
    size_t out_len = 0, i;
    tack_status_t st;

    st = tack_ext02_parse(&ext, data, size);
    fuzz_check_status(st);
    if (st != TACK_OK) {
        return 0;
    }
    fuzz_require(ext.num_tacks >= 1 && ext.num_tacks <= 2);
    st = tack_ext02_encode(&ext, out, sizeof(out), &out_len);
    fuzz_require(st == TACK_OK && out_len == size);
    /* Reserved flag bits are accepted but not re-encoded: compare the rest. */
    fuzz_require(memcmp(out, data, size - 1) == 0);
    fuzz_require((out[size - 1] & ~0x03) == 0);
    for (i = 0; i < ext.num_tacks; i++) {
        fuzz_check_status(tack_verify(&ext.tacks[i]));
    }
    return 0;
}
