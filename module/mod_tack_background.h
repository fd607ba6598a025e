/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_background.h -- TackSigningKey's background: its shared-memory
 * segment of late answers, read by the handshake and the status page
 * (mod_tack_background.c).
 */
#ifndef MOD_TACK_BACKGROUND_H
#define MOD_TACK_BACKGROUND_H

#include "mod_tack_model.h"

/* What a handshake sends for a certificate that TackSigningKey signed in
 * the background, after the start: published by the parent's signing
 * process into an anonymous shared-memory segment made at the end of the
 * pass (so every child of this generation sees it), in this order: the
 * body, then |ready| set with a release store.  Read only through
 * mt_background_answer (the acquire load of |ready|, then the body).
 * Nothing is changed after that. */
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

/* mt_background_gen_init makes the generation's part and, the first time,
 * the process's (pre_config). */
void mt_background_gen_init(mt_gen_t *gen, mt_proc_t *proc, apr_pool_t *pproc);

/* mt_background_start makes, at the end of a real start's pass, the
 * shared-memory segment of the queued certificates' answers and forks the
 * background process, which takes over the pass's signers that are up;
 * nothing under -t, in the discarded first pass or without a
 * TackSigningKey. */
void mt_background_start(server_rec *s_main);

/* mt_background_last_error copies into |buf| the last reason the background
 * could not sign (a signing key that cannot be used now) and returns when
 * it was said, or 0 when there is none (nothing failed, or it signs
 * again).  For the status page, in any process of this generation. */
apr_time_t mt_background_last_error(char *buf, size_t size);

/* mt_background_answer returns the answer the background published for
 * |pd| (a certificate the pass queued, or NULL), or NULL while it waits:
 * the one place that reads the segment's ready flag (an acquire load).
 * Any process of the generation; no allocation, no lock; inline, as the
 * handshake reads it (bench/bench-callgrind.sh, part A2). */
static inline const mt_late_t *mt_background_answer(const mt_pending_t *pd)
{
    const mt_late_t *late = pd ? pd->late : NULL;

    return late && __atomic_load_n(&late->ready, __ATOMIC_ACQUIRE) ? late
                                                                   : NULL;
}

/* mt_background_waiting returns since when |pd| waits for its TACK (the
 * first start that queued it, or its due time if later), or 0 when it does
 * not: not queued (NULL), no segment, published, or due later (its TACK
 * is served meanwhile). */
apr_time_t mt_background_waiting(const mt_pending_t *pd);

#endif /* MOD_TACK_BACKGROUND_H */
