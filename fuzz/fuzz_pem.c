/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* fuzz_pem.c -- the PEM reader and the TACK / break-signature file readers,
 * exactly as the module and the tool call them on a file's contents. */
#include "fuzz_common.h"
#include "tack_ext.h"
#include "tack_pem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tack_pem_t pem;
    tack_t tacks[2];
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    size_t count = 0, i;
    unsigned line = 0;
    const char *text = (const char *)data;
    tack_status_t st;

    st = tack_pem_decode(&pem, text, size, TACK_PEM_LABEL_TACK, &line);
    fuzz_check_status(st);
    if (st == TACK_OK) {
        fuzz_require(pem.count > 0);
        for (i = 0; i < pem.count; i++) {
            char *enc = NULL;
            size_t enc_len = 0;
            tack_pem_t again;

            /* What we write, we read back identically. */
            fuzz_require(tack_pem_encode(&enc, &enc_len, TACK_PEM_LABEL_TACK,
                                         pem.blocks[i].data,
                                         pem.blocks[i].len) == TACK_OK);
            fuzz_require(tack_pem_decode(&again, enc, enc_len,
                                         TACK_PEM_LABEL_TACK, NULL) == TACK_OK);
            fuzz_require(again.count == 1 &&
                         again.blocks[0].len == pem.blocks[i].len);
            fuzz_require(pem.blocks[i].len == 0 ||
                         memcmp(again.blocks[0].data, pem.blocks[i].data,
                                pem.blocks[i].len) == 0);
            tack_pem_free(&again);
            free(enc);
        }
        tack_pem_free(&pem);
    }
    st = tack_tacks_from_pem(tacks, 2, &count, text, size, &line);
    fuzz_check_status(st);
    if (st == TACK_OK) {
        fuzz_require(count >= 1 && count <= 2);
    }
    st = tack_breaksigs_from_pem(sigs, TACK_MAX_BREAKSIGS, &count, text, size,
                                 &line);
    fuzz_check_status(st);
    if (st == TACK_OK) {
        fuzz_require(count >= 1 && count <= TACK_MAX_BREAKSIGS);
    }
    return 0;
}
