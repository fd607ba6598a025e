/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_store.h -- TackStore: its directories, read once a generation, its files (mod_tack_store.c).
 */
#ifndef MOD_TACK_STORE_H
#define MOD_TACK_STORE_H

#include "mod_tack_model.h"

/* mt_store_get returns the store for directory |path|, reading it the
 * first time it is named in this generation. */
mt_store_t *mt_store_get(cmd_parms *cmd, const char *path);

/* mt_store_log logs what each TackStore could not serve: at a
 * real start (after the hooks ran) and under -t.  Malformed files are
 * errors and count as problems; expired ones are warnings (skipped in both
 * modes); store TACKs that matched no certificate are reported at debug
 * level when |report_unmatched|.  Returns the number of problems. */
int mt_store_log(server_rec *s_main, int report_unmatched);

/* mt_store_ready judges and indexes the files of |st| read at its
 * TackStore line (a file owned by another user than root and
 * TackStoreOwner is never served), once, when the whole configuration is
 * read; the first lookup calls it. */
void mt_store_ready(mt_store_t *st);

/* mt_store_has says whether |st|'s directory has an entry for |x509|'s
 * file (looked up, never followed); mt_store_path is that file's path
 * (NULL when the certificate cannot be named): the store's file names
 * are made here and in the core (tack_cert_store_name) only. */
int mt_store_has(const mt_store_t *st, X509 *x509);
const char *mt_store_path(apr_pool_t *p, const mt_store_t *st, X509 *x509);

/* mt_store_other_key says whether |x509|'s file in |st|, read now, holds
 * anything but TACKs under |key| (1: a TACK under another key, or bytes
 * that are no TACK), setting |*path| to it; 0 when it holds only TACKs
 * under |key|, or there is none. */
int mt_store_other_key(apr_pool_t *p, const mt_store_t *st, X509 *x509,
                       const uint8_t *key, const char **path);

/* mt_store_child_init closes, in a new httpd child, the descriptor of
 * every store's directory: a child serves from memory, and code running in
 * it (mod_lua, mod_perl, mod_php) would otherwise read every file of the
 * store through /proc/self/fd, whatever the modes of its parent directory.
 * The parent and the background keep theirs (they write the store). */
void mt_store_child_init(void);

/* mt_store_sync makes what was written into |st| durable: its directory
 * fsynced, its file system synced (syncfs), both on its descriptor. */
void mt_store_sync(const mt_store_t *st);

/* mt_store_write writes |tack|, signed for the certificate |x509|, into
 * |store| under the one name the certificate gives (tack_cert_store_name,
 * as `tack sign -o STORE/` does), with the "Created by" lines, atomically
 * and mode 0644 (tack_file_replace_at, relative to the directory's
 * descriptor: a new file made with O_EXCL, its mode set on its descriptor,
 * renamed over the old one: nothing a writer of the directory or of its
 * parent swaps in is followed), and sets |*path|.  The directory is not
 * synced: mt_store_sync, once at the end of the pass (10,000 fsyncs cost
 * seconds of every pass that signs them all).  Returns NULL, or why it
 * could not. */
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
