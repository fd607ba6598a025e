/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_sign.h -- TackSigningKey: what a pass signs (mod_tack_sign.c). */
#ifndef MOD_TACK_SIGN_H
#define MOD_TACK_SIGN_H

#include "mod_tack_model.h"

/* mt_sign_gen_init makes the part of |gen| and its signers (pre_config). */
void mt_sign_gen_init(mt_gen_t *gen);

/* mt_sign_vhost signs with the vhost's TackSigningKey, into |sel| (in
 * |p|), a TACK for each certificate without one and anew one that expires
 * within 30 days, written into the vhost's TackStore where it can; what
 * it does not wait for is queued for the background.  Real start only;
 * problems are logged. */
void mt_sign_vhost(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                   mt_sel_t *sel);

/* mt_sign_check loads every TackSigningKey under "apache2 -t" and returns
 * the number that cannot be used (each logged). */
int mt_sign_check(apr_pool_t *ptemp, server_rec *s_main);

/* mt_sign_end reports what the pass signed (info) and makes it reach the
 * disk. */
void mt_sign_end(server_rec *s_main);

/* mt_sign_public returns the public key of |conf|'s TackSigningKey,
 * loading it if needed, or NULL when there is none or it cannot be used. */
const uint8_t *mt_sign_public(server_rec *s, const mt_conf_t *conf);

/* mt_sign_close ends this time's signers (but those the background took
 * over) and forgets what they signed. */
void mt_sign_close(void);

/* mt_sign_queued returns the pass's queue (mt_pending_t *, in pconf).
 * mt_sign_one signs with |sg| a TACK for |cert| expiring at |expires|
 * (minutes), never below the min_generation of |prev| (the TACK it
 * replaces, or NULL), written into the store when |write|; returns its
 * item (the same one again this time), or NULL (logged; sg->fd < 0 when
 * the signer is gone).
 * mt_sign_replaced says |old| gives way to one just signed; mt_sign_sync
 * makes the stores written to reach the disk. */
apr_array_header_t *mt_sign_queued(void);
mt_item_t *mt_sign_one(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                       mt_signer_t *sg, const mt_certsel_t *cert,
                       uint32_t expires, int write, const tack_t *prev);
void mt_sign_replaced(server_rec *s, const mt_item_t *old);
void mt_sign_sync(void);

#endif /* MOD_TACK_SIGN_H */
