/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_runtime.h -- what a handshake reads (mod_tack_handshake.c). */
#ifndef MOD_TACK_RUNTIME_H
#define MOD_TACK_RUNTIME_H

#include "mod_tack_model.h"

typedef struct mt_slot mt_slot_t;
typedef struct mt_rt mt_rt_t;

/* One certificate's handshake counters, in shared memory. */
typedef struct {
    apr_uint64_t requested; /* full handshakes whose ClientHello asked */
    apr_uint64_t served;    /* of those, the ones that received a TACK */
} mt_ctr_t;

/* One certificate of a vhost; bodies[] is indexed by the set of its
 * unexpired TACKs (bit i: tacks[i]). */
struct mt_slot {
    X509 *cert; /* mod_ssl's, alive as long as this table */
    const mt_item_t *tacks[TACK_EXT02_MAX_TACKS];
    const mt_body_t *bodies;
    mt_ctr_t *ctr;
    const mt_item_t *lapsed;     /* mt_certsel_t.lapsed */
    const mt_pending_t *pending; /* mt_background_answer, once signed */
    apr_uint32_t expired_logged; /* bit i: tacks[i]'s, once per process */
    unsigned char ntacks;
};

/* What one vhost's SSL_CTX serves: the callbacks' argument.  Small
 * fields small: at 10,000 vhosts every byte here is 10 KB in the parent
 * (bench/findings.md). */
struct mt_rt {
    server_rec *s; /* its name for log lines: mt_rt_name */
    const mt_store_t *store;
    /* nsigs break signatures: a fingerprint, then the file it is from */
    const char *const *sigs;
    mt_slot_t *slots; /* nslots */
    /* for a certificate not in slots: the break signatures only, and its
     * counters (as a slot of its own it cost 96 bytes a vhost) */
    const mt_body_t *other;
    mt_ctr_t *other_ctr;
    int nslots; /* an int: the handshake's loop bound (a byte costs it
                 * four instructions a handshake) */
    unsigned char format;
    unsigned char nsigs; /* at most TACK_MAX_BREAKSIGS */
    unsigned char pin_activation : 1;
    unsigned char tls13 : 1;
    unsigned char required : 1;   /* mt_sel_t.required */
    unsigned char registered : 1; /* 0 when SSL_CTX_add_custom_ext failed */
};

/* The variables set on requests. */
#define TACK_ENV_REQUESTED "TACK_REQUESTED"
#define TACK_ENV_SERVED "TACK_SERVED"

static inline apr_uint64_t mt_ctr_load(const apr_uint64_t *v)
{
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* mt_rt_slot returns slot |k| of |rt|, 0 <= k <= nslots; the last, for a
 * certificate the table does not know (no TACK, the break signatures
 * only), is made in |tmp|. */
static inline const mt_slot_t *mt_rt_slot(const mt_rt_t *rt, int k,
                                          mt_slot_t *tmp)
{
    if (k < rt->nslots) {
        return &rt->slots[k];
    }
    *tmp = (mt_slot_t){.bodies = rt->other, .ctr = rt->other_ctr};
    return tmp;
}

/* mt_rt_name is mt_vhost_name_buf for a runtime table. */
#define mt_rt_name(rt, buf) mt_vhost_name_buf((rt)->s, (buf))

/* mt_slot_subject writes the subject of |slot|'s certificate into |buf|
 * ("" for the last slot) and returns |buf|. */
const char *mt_slot_subject(const mt_slot_t *slot, char buf[TACK_SUBJECT_SIZE]);

/* mt_slot_key_type names the key type of |slot|'s certificate ("RSA",
 * "ECDSA"...), read from it when said; NULL for the last slot. */
const char *mt_slot_key_type(const mt_slot_t *slot);

/* mt_handshake_build builds, in |p|, the table of |s| from |sel|;
 * mt_handshake_counters points its slots at |ctrs| (nslots, then the
 * other certificate's);
 * mt_handshake_register registers extension 0xF300 on |ctx| for |rt| (TLS
 * 1.3 too when rt->tls13) and returns 1, or 0 (logged). */
mt_rt_t *mt_handshake_build(apr_pool_t *p, server_rec *s, const mt_sel_t *sel);
void mt_handshake_counters(mt_rt_t *rt, mt_ctr_t *ctrs);
int mt_handshake_register(server_rec *s, SSL_CTX *ctx, mt_rt_t *rt);

#endif /* MOD_TACK_RUNTIME_H */
