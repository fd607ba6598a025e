/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_md.h -- mod_md's staged certificates, signed ahead by the
 * background (mod_tack_md.c). */
#ifndef MOD_TACK_MD_H
#define MOD_TACK_MD_H

#include "mod_tack_model.h"

/* mt_md_gen_init makes the part of |gen| (pre_config). */
void mt_md_gen_init(mt_gen_t *gen);

/* mt_md_watch notes, at the end of the pass, where mod_md stages and which
 * vhosts sign ahead; mt_md_staging returns that directory, or NULL. */
void mt_md_watch(server_rec *s_main);
const char *mt_md_staging(void);

/* mt_md_mark_fallback marks each certificate of |sel| without a TACK that
 * is mod_md's self-signed fallback for a name of |s|: never signed. */
void mt_md_mark_fallback(apr_pool_t *p, server_rec *s, mt_sel_t *sel);

/* mt_md_round signs into the vhost's TackStore a TACK for each staged
 * certificate that has none; |seen| (kept across rounds) remembers what
 * was signed or said. */
void mt_md_round(apr_pool_t *p, apr_hash_t *seen);

#endif /* MOD_TACK_MD_H */
