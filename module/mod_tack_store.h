/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_store.h -- TackStore: its directories, read once a generation,
 * and its files (mod_tack_store.c). */
#ifndef MOD_TACK_STORE_H
#define MOD_TACK_STORE_H

#include "mod_tack_model.h"

/* mt_store_gen_init makes the generation's part (pre_config). */
void mt_store_gen_init(mt_gen_t *gen);

/* mt_store_get returns the store for directory |path|, reading it the
 * first time it is named in this generation. */
mt_store_t *mt_store_get(cmd_parms *cmd, const char *path);

/* mt_store_log logs what each TackStore could not serve (TACKs that
 * matched no certificate too, at debug, when |report_unmatched|) and
 * returns the number of problems. */
int mt_store_log(server_rec *s_main, int report_unmatched);

/* mt_store_ready judges and indexes the files of |st|, once the whole
 * configuration is read. */
void mt_store_ready(mt_store_t *st);

/* mt_store_has says whether |st| has an entry for |x509|'s file (never
 * followed); mt_store_path is that file's path, or NULL. */
int mt_store_has(const mt_store_t *st, X509 *x509);
const char *mt_store_path(apr_pool_t *p, const mt_store_t *st, X509 *x509);

/* mt_store_other_key says whether |x509|'s file in |st|, read now, holds
 * anything but TACKs under |key| (1: a TACK under another key, or bytes
 * that are no TACK), setting |*path| to it; 0 when it holds only TACKs
 * under |key|, or there is none. */
int mt_store_other_key(apr_pool_t *p, const mt_store_t *st, X509 *x509,
                       const uint8_t *key, const char **path);

/* mt_store_child_init closes, in a new httpd child, every store's
 * directory descriptor. */
void mt_store_child_init(void);

/* mt_store_sync makes what was written into |st| durable. */
void mt_store_sync(const mt_store_t *st);

/* mt_store_write writes |tack|, signed for |x509|, into |store| under the
 * certificate's name, atomically, mode 0644, and sets |*path|; not synced
 * (mt_store_sync).  Returns NULL, or why it could not. */
const char *mt_store_write(apr_pool_t *p, const mt_store_t *store, X509 *x509,
                           const tack_t *tack, const char **path);

/* mt_store_replace_older removes the files of |store| that |tack|, just
 * written at |path|, makes redundant: a TACK alone in its file, for the
 * same certificate, under the same TACK key, ending no later (a file the
 * previous naming rule or `tack sign` gave another name, an expired one).
 * Each is logged; returns how many were removed. */
int mt_store_replace_older(server_rec *s, const mt_store_t *store,
                           const tack_t *tack, const char *path);

#endif /* MOD_TACK_STORE_H */
