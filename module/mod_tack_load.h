/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_load.h -- the files directives name, read and verified, and a
 * certificate described (mod_tack_load.c). */
#ifndef MOD_TACK_LOAD_H
#define MOD_TACK_LOAD_H

#include "mod_tack_model.h"

/* mt_item_name returns "TACK" or, in a pair file, "TACK 2 of 2". */
const char *mt_item_name(apr_pool_t *p, const mt_item_t *item);

/* mt_key_type_name names a key type (an EVP_PKEY base id or an algorithm's
 * NID): "RSA", "RSA-PSS", "ECDSA", else OpenSSL's short name. */
const char *mt_key_type_name(int nid);

/* mt_cert_describe fills |out| from |x509| (borrowed), its label |label|
 * or "TYPE certificate SUBJECT", in |p|; returns 0 when it cannot be
 * hashed (OpenSSL's queue says why). */
int mt_cert_describe(apr_pool_t *p, X509 *x509, const char *label,
                     mt_certsel_t *out);

/* mt_main_conf returns the main server's TackStateFile, TackStoreOwner,
 * TackSigningWait and TackSigningRetry, with their defaults (NULL,
 * TACK_UNSET) when none is given, and before the configuration is read. */
const mt_main_conf_t *mt_main_conf(void);

/* mt_load_gen_init makes the part of |gen| (pre_config); mt_load_proc_init
 * starts a pass of the process's verified-signature cache, made in |pproc|
 * the first time; mt_load_vcache_end ends it. */
void mt_load_gen_init(mt_gen_t *gen);
void mt_load_proc_init(mt_proc_t *proc, apr_pool_t *pproc);

/* mt_load_vcache_file names TackStateFile |state_file| for this pass: the
 * verified signatures are kept beside it (else beside the default). */
void mt_load_vcache_file(const char *state_file);

/* mt_load_vcache_end ends a configuration pass: it forgets the verified
 * signatures this pass did not use and, when |save|, writes the file of
 * them if they changed.  When |say|, returns why the file could not be
 * used (read or written), once a process; else NULL. */
const char *mt_load_vcache_end(apr_pool_t *p, int say, int save);

/* mt_load_tackfile reads and verifies every TACK of |f|; returns NULL or
 * why nothing of it may be served (|*expired|: only its expiry).  A
 * TackFile's TACK bytes are staged until the pass ends; a store file's are
 * in |p|. */
const char *mt_load_tackfile(apr_pool_t *p, mt_file_t *f, int *expired);

/* mt_load_settle points |it|'s TACK, when staged, at its copy in the
 * |len| bytes at |bytes| (a body that serves it, which lives as long as
 * the configuration); mt_load_settle_end copies the TACKs still staged to
 * |pconf| and frees the staging pool, at the end of a pass.  A TACK'd
 * vhost keeps one copy of its TACK: the one on the wire. */
void mt_load_settle(mt_item_t *it, const uint8_t *bytes, size_t len);
void mt_load_settle_end(apr_pool_t *pconf);

/* mt_load_writable returns a warning naming |directive| and |path| when
 * its group or everyone can write it, else NULL. */
const char *mt_load_writable(apr_pool_t *p, const char *directive,
                             const char *path);

/* mt_load_sigfile fills |f| from its file; returns NULL or why none of its
 * break signatures may be served. */
const char *mt_load_sigfile(apr_pool_t *p, mt_sigfile_t *f);

/* mt_load_item makes, in |p|, the one-TACK item a verified |tack| of
 * |kind| ("TackSigningKey", "TackStateFile") is served as for |s|; |store|
 * is the TackStore |path| is in, or NULL. */
mt_item_t *mt_load_item(apr_pool_t *p, server_rec *s, const char *kind,
                        const char *path, const ap_directive_t *where,
                        const mt_store_t *store, const tack_t *tack);

#endif /* MOD_TACK_LOAD_H */
