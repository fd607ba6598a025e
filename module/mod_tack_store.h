/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_store.h -- TackStore's directories and files (mod_tack_store.c). */
#ifndef MOD_TACK_STORE_H
#define MOD_TACK_STORE_H

#include "mod_tack_model.h"

/* mt_store_gen_init makes the part of |gen| (pre_config). */
void mt_store_gen_init(mt_gen_t *gen);

/* mt_store_get returns the store of directory |path|, read the first time
 * this generation names it. */
mt_store_t *mt_store_get(cmd_parms *cmd, const char *path);

/* mt_store_log logs what each store could not serve (unmatched TACKs too,
 * at debug, when |report_unmatched|); returns the number of problems. */
int mt_store_log(server_rec *s_main, int report_unmatched);

/* mt_store_ready judges and indexes the files of |st|. */
void mt_store_ready(mt_store_t *st);

/* mt_store_has returns 1 when |st| has a file for |x509|, else 0;
 * mt_store_path returns that file's path, or NULL. */
int mt_store_has(const mt_store_t *st, X509 *x509);
const char *mt_store_path(apr_pool_t *p, const mt_store_t *st, X509 *x509);

/* mt_store_other_key returns 1 when |x509|'s file in |st|, read now, holds
 * anything but TACKs under |key| (|*path|: the file), else 0. */
int mt_store_other_key(apr_pool_t *p, const mt_store_t *st, X509 *x509,
                       const uint8_t *key, const char **path);

/* mt_store_child_init closes every store's directory in a new child. */
void mt_store_child_init(void);

/* mt_store_sync makes what was written into |st| durable. */
void mt_store_sync(const mt_store_t *st);

/* mt_store_write writes |tack|, signed for |x509|, into |store| under the
 * certificate's name, atomically, mode 0644, unsynced, and sets |*path|;
 * returns
 * NULL, or why not. */
const char *mt_store_write(apr_pool_t *p, const mt_store_t *store, X509 *x509,
                           const tack_t *tack, const char **path);

/* mt_store_replace_older removes, each logged, the files of |store| that
 * |tack| just written at |path| makes redundant; returns how many. */
int mt_store_replace_older(server_rec *s, const mt_store_t *store,
                           const tack_t *tack, const char *path);

#endif /* MOD_TACK_STORE_H */
