/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_md.h -- mod_md's staged certificates, signed ahead
 * (mod_tack_md.c), for the background.
 */
#ifndef MOD_TACK_MD_H
#define MOD_TACK_MD_H

#include "mod_tack_model.h"

/* mt_md_gen_init makes the generation's part (pre_config). */
void mt_md_gen_init(mt_gen_t *gen);

/* mt_md_watch notes, at the end of the pass, where mod_md stages and which
 * vhosts sign ahead: nothing when mod_md is not loaded. */
void mt_md_watch(server_rec *s_main);

/* mt_md_staging returns mod_md's staging directory when a vhost signs
 * ahead what it stages, or NULL. */
const char *mt_md_staging(void);

/* mt_md_mark_fallback marks each certificate of |sel| (vhost |s|) without
 * a TACK that is mod_md's self-signed fallback for one of the vhost's names
 * (its key is that of MDStoreDir/domains/NAME/fallback-pubcert*.pem: the
 * store's layout, not the subject's text), so that TackSigningKey does not
 * sign it (TACK00149, at info).  Nothing when mod_md is not loaded. */
void mt_md_mark_fallback(apr_pool_t *p, server_rec *s, mt_sel_t *sel);

/* mt_md_round signs, in the background, a TACK into the vhost's TackStore
 * for each staged certificate that has none; |seen| (in a pool that lives
 * across rounds) remembers what was signed or said. */
void mt_md_round(apr_pool_t *p, apr_hash_t *seen);

#endif /* MOD_TACK_MD_H */
