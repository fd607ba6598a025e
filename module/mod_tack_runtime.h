/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_runtime.h -- what a handshake reads: one table per SSL vhost
 * (mt_rt_t), one slot per certificate (mt_slot_t), each with the extension
 * bodies prebuilt at start-up (mt_body_t) and its counters (mt_ctr_t, in
 * shared memory); built and read by mod_tack_handshake.c, shown by the
 * status files (mod_tack_status.h).
 */
#ifndef MOD_TACK_RUNTIME_H
#define MOD_TACK_RUNTIME_H

#include "mod_tack_model.h"
#include "mod_tack_background.h"

typedef struct mt_slot mt_slot_t;
typedef struct mt_rt mt_rt_t;

/* The handshake counters of one certificate of one vhost.  They live in one
 * anonymous shared-memory segment created at post_config (see
 * mod_tack_status.c), so every child process and thread adds to the same
 * numbers, with relaxed atomic adds: no lock, no allocation. */
typedef struct {
    apr_uint64_t requested; /* full handshakes whose ClientHello asked */
    apr_uint64_t served;    /* of those, the ones that received a TACK */
} mt_ctr_t;

/* mt_body_t, one prebuilt extension body: mod_tack_base.h. */

/* One certificate of a vhost and what goes out with it.  bodies[] (1 <<
 * ntacks of them, allocated by count) is indexed by the set of its TACKs
 * that are still unexpired (bit i: tacks[i]), so an expiry while the server
 * runs needs no rebuilding.  cert is NULL in the vhost's last slot, "a
 * certificate not in the table". */
struct mt_slot {
    X509 *cert; /* mod_ssl's, alive as long as this table */
    const char *key_type;
    int ntacks;
    apr_uint32_t expired_logged[TACK_EXT02_MAX_TACKS]; /* once per process */
    const mt_item_t *tacks[TACK_EXT02_MAX_TACKS];
    const mt_body_t *bodies;
    mt_ctr_t *ctr;
    const mt_item_t *lapsed; /* mt_certsel_t.lapsed */
    /* A certificate whose TACK TackSigningKey signs in the background
     * (queued by mod_tack_sign.c): once mt_background_answer has an
     * answer for it, that answer goes out.  The table only reads it. */
    const mt_pending_t *pending;
};

/* What one vhost's SSL_CTX serves: the add/parse callbacks' argument.
 * slots[nslots] stands for a certificate not in the table (no TACK, the
 * vhost's break signatures only). */
struct mt_rt {
    server_rec *s; /* its name for log lines: mt_rt_name */
    int format;
    int pin_activation;
    int tls13;
    int required;   /* mt_sel_t.required */
    int registered; /* 0 when SSL_CTX_add_custom_ext failed */
    const mt_store_t *store;
    size_t nsigs;
    const char *const *sig_keys;  /* nsigs fingerprints */
    const char *const *sig_files; /* where each is from */
    int nslots;
    mt_slot_t *slots;
};

/* The variables set on requests (post_read_request), for CGI, SSI, access
 * control and LogFormat "%{TACK_REQUESTED}e". */
#define TACK_ENV_REQUESTED "TACK_REQUESTED"
#define TACK_ENV_SERVED "TACK_SERVED"

static inline apr_uint64_t mt_ctr_load(const apr_uint64_t *v)
{
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* ---- mod_tack_handshake.c ---------------------------------------------- */

/* mt_rt_name is mt_vhost_name_buf for a runtime table. */
#define mt_rt_name(rt, buf) mt_vhost_name_buf((rt)->s, (buf))

/* mt_slot_subject writes the subject of |slot|'s certificate into |buf|
 * ("" for the last slot) and returns |buf|.  Computed when shown, not kept:
 * 30-odd bytes per vhost. */
const char *mt_slot_subject(const mt_slot_t *slot, char buf[TACK_SUBJECT_SIZE]);


/* mt_ctr_unset is where every slot's counters point until post_config
 * (mod_tack_status.c) hands out the real ones (no handshake runs before). */
extern mt_ctr_t mt_ctr_unset;

/* mt_handshake_build builds, in |p|, the table the handshake reads for the
 * vhost |s| from what it serves (|sel|): each certificate's bodies,
 * encoded once. */
mt_rt_t *mt_handshake_build(apr_pool_t *p, server_rec *s, const mt_sel_t *sel);

/* mt_handshake_counters points the slots of |rt| at |ctrs| (rt->nslots + 1
 * of them, in the order of the slots): where its handshakes count from
 * now on (post_config, mod_tack_status.c's segment, before any child). */
void mt_handshake_counters(mt_rt_t *rt, mt_ctr_t *ctrs);

/* mt_handshake_register registers extension 0xF300 on |ctx| with |rt| as
 * the callbacks' argument, in TLS 1.3 EncryptedExtensions too when
 * TackTLS13 is on (rt->tls13), and notes the outcome in rt->registered.
 * Returns 1, or 0 (logged) when OpenSSL refuses. */
int mt_handshake_register(server_rec *s, SSL_CTX *ctx, mt_rt_t *rt);

#endif /* MOD_TACK_RUNTIME_H */
