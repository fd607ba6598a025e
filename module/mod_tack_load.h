/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_load.h -- loading and verifying the files a directive names, and
 * describing a certificate (mod_tack_load.c).
 */
#ifndef MOD_TACK_LOAD_H
#define MOD_TACK_LOAD_H

#include "mod_tack_model.h"

/* mt_item_name returns "TACK" or, in a pair file, "TACK 2 of 2". */
const char *mt_item_name(apr_pool_t *p, const mt_item_t *item);

/* mt_key_type_name names a key type (an EVP_PKEY base id or a public-key
 * algorithm's NID) as messages, the status page and the guard's memory do:
 * "RSA", "RSA-PSS", "ECDSA", else OpenSSL's short name. */
const char *mt_key_type_name(int nid);

/* mt_cert_describe fills |out|'s hash, x509 (borrowed), subject and key
 * type from |x509|, and its label: |label|, or "TYPE certificate SUBJECT"
 * when NULL; strings from |p|.  Returns 0 when the certificate cannot be
 * hashed (OpenSSL's error queue says why). */
int mt_cert_describe(apr_pool_t *p, X509 *x509, const char *label,
                     mt_certsel_t *out);

/* mt_load_gen_init makes the load's part of |gen| (pre_config). */
void mt_load_gen_init(mt_gen_t *gen);

/* mt_load_proc_init starts a configuration pass (pre_config): the cache
 * of verified signatures, made in |pproc| the first time, is rotated. */
void mt_load_proc_init(mt_proc_t *proc, apr_pool_t *pproc);

/* mt_load_vcache_prune ends a configuration pass: it forgets the
 * verified signatures this pass did not use. */
void mt_load_vcache_prune(server_rec *s);

/* mt_load_tackfile reads, decodes and verifies every TACK of |f|; returns
 * NULL or the reason nothing of the file may be served (|*expired| set when
 * that reason is only the expiration). */
const char *mt_load_tackfile(apr_pool_t *p, mt_file_t *f, int *expired);

/* mt_load_writable returns a warning naming |directive| and |path| when the
 * file or directory can be written by its group or everyone, else NULL. */
const char *mt_load_writable(apr_pool_t *p, const char *directive,
                             const char *path);

/* mt_load_sigfile fills |f| from its file; returns NULL or the reason
 * none of its break signatures may be served. */
const char *mt_load_sigfile(apr_pool_t *p, mt_sigfile_t *f);

/* mt_load_item makes the one-TACK file item a TACK that did not come from
 * a directive's file is served as (|kind| "TackSigningKey": just signed;
 * "TackStateFile": served again from the memory), verified by the caller,
 * in |p|, for the vhost |s|; |store|: the TackStore it was written into
 * (|path| is its file there), or NULL. */
mt_item_t *mt_load_item(apr_pool_t *p, server_rec *s, const char *kind,
                        const char *path, const ap_directive_t *where,
                        const mt_store_t *store, const tack_t *tack);

#endif /* MOD_TACK_LOAD_H */
