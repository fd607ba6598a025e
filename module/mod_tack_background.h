/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_background.h -- TackSigningKey's background and its segment of
 * late answers (mod_tack_background.c). */
#ifndef MOD_TACK_BACKGROUND_H
#define MOD_TACK_BACKGROUND_H

#include "mod_tack_model.h"

/* The answer for a certificate the background signed, in shared memory:
 * read only through mt_background_answer, never changed once ready. */
struct mt_late {
    apr_uint32_t ready;   /* 1: |body| is published */
    apr_uint32_t expires; /* the TACK's expiration, minutes since 1970 */
    apr_uint32_t written; /* 1: it is in the vhost's TackStore too */
    apr_time_t since;     /* waiting since (the first start that queued it) */
    tack_t tack;          /* the TACK, for the status page */
    mt_body_t body;       /* data -> data[], served -> served[] */
    char served[TACK_FINGERPRINT_SIZE];
    uint8_t data[]; /* body.len bytes, sized when queued */
};

/* mt_background_gen_init makes the part of |gen|, and of |proc| the
 * first time (pre_config). */
void mt_background_gen_init(mt_gen_t *gen, mt_proc_t *proc, apr_pool_t *pproc);

/* mt_background_start makes the segment of the pass's queue and forks the
 * background, which takes over the signers that are up (a real start's
 * pass with a TackSigningKey only). */
void mt_background_start(server_rec *s_main);

/* mt_background_last_error copies into |buf| why the background last
 * could not sign and returns when, or 0 when it signs (any process). */
apr_time_t mt_background_last_error(char *buf, size_t size);

/* mt_background_answer returns the answer published for |pd| (or NULL),
 * or NULL while it waits; any process, no allocation, no lock. */
static inline const mt_late_t *mt_background_answer(const mt_pending_t *pd)
{
    const mt_late_t *late = pd ? pd->late : NULL;

    return late && __atomic_load_n(&late->ready, __ATOMIC_ACQUIRE) ? late
                                                                   : NULL;
}

/* mt_background_waiting returns since when |pd| waits for its TACK, or 0
 * when it does not (NULL, no segment, published, or due later). */
apr_time_t mt_background_waiting(const mt_pending_t *pd);

#endif /* MOD_TACK_BACKGROUND_H */
