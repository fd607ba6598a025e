/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_sign.h -- TackSigningKey: what a pass signs (mod_tack_sign.c).
 */
#ifndef MOD_TACK_SIGN_H
#define MOD_TACK_SIGN_H

#include "mod_tack_model.h"

/* mt_sign_gen_init makes the generation's queue and signers (pre_config). */
void mt_sign_gen_init(mt_gen_t *gen);

/* mt_sign_vhost signs, with the vhost's TackSigningKey, a TACK for each
 * certificate of |sel| that has none, and anew a TACK under that key that
 * expires within 30 days (one that expires later, but before its
 * certificate, is left to the background, due when 30 days are left), and
 * writes each into the vhost's TackStore when the parent can write there.  Real
 * start only (not in the quiet pass); what it signs is allocated in |p| (the
 * configuration pool) and put in |sel|.  Problems are logged. */
void mt_sign_vhost(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                   mt_sel_t *sel);

/* mt_sign_check loads, under "apache2 -t", every key TackSigningKey
 * names, and returns the number that cannot be used (each logged with its
 * directive, file or URI, and reason). */
int mt_sign_check(apr_pool_t *ptemp, server_rec *s_main);

/* mt_sign_end reports what was signed in this pass (info) and makes it
 * reach the disk; mt_sign_close then ends the signers. */
void mt_sign_end(server_rec *s_main);

/* mt_sign_public returns the public key of |conf|'s TackSigningKey,
 * loading it if needed, or NULL when there is none or it cannot be used. */
const uint8_t *mt_sign_public(server_rec *s, const mt_conf_t *conf);

/* mt_sign_close ends the pass's signing: its signers free their keys and
 * exit, unless the background (mt_background_start) has taken them over. */
void mt_sign_close(void);

/* For the background and mod_md's staging (mod_tack_background.c,
 * mod_tack_md.c): mt_sign_queued returns the pass's queue (mt_pending_t *,
 * in pconf); mt_sign_one signs a TACK for |cert| with |sg| that
 * expires with it (|expires|, minutes), never below the min_generation of
 * |prev| (the TACK it replaces, or NULL), writes it into the vhost's store
 * when |write|, and returns its item, or NULL (logged; sg->fd < 0 when the
 * signer is gone); mt_sign_replaced says that |old|, a TACK under the key
 * that expires within 30 days, gives way to one just signed; mt_sign_sync makes
 * the stores written to reach the disk. */
apr_array_header_t *mt_sign_queued(void);
mt_item_t *mt_sign_one(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                       mt_signer_t *sg, const mt_certsel_t *cert,
                       uint32_t expires, int write, const tack_t *prev);
void mt_sign_replaced(server_rec *s, const mt_item_t *old);
void mt_sign_sync(void);

#endif /* MOD_TACK_SIGN_H */
