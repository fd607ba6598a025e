/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_secret.h -- TackSigningPassword's sources and the signers'
 * files beside TackStateFile (mod_tack_secret.c). */
#ifndef MOD_TACK_SECRET_H
#define MOD_TACK_SECRET_H

#include "mod_tack_model.h"

#define TACK_PW_MAX 1024     /* a longer password or PIN is refused */
#define TACK_PW_EXEC_SECS 30 /* what an exec: program may take */

/* mt_secret_pw_syntax returns what is wrong with a TackSigningPassword
 * value, or NULL. */
const char *mt_secret_pw_syntax(apr_pool_t *p, const char *arg);

/* mt_secret_register_hooks registers the child_init hook that wipes env:
 * passwords from every httpd child's environment. */
void mt_secret_register_hooks(apr_pool_t *p);

/* mt_secret_password fetches the password source |src| gives for |key| into
 * |buf| (TACK_PW_MAX) and |*len|; returns NULL, or why it cannot. */
const char *mt_secret_password(apr_pool_t *p, const char *src, const char *key,
                               char *buf, size_t *len);

/* mt_secret_pw_end_group ends a running exec: program and all it started
 * (async-signal-safe). */
void mt_secret_pw_end_group(void);

/* The PINs a token refused.  mt_secret_pin_digest returns what is remembered
 * of |pin| sent for |keyname| from the source |pw|, or NULL with |*why|
 * (then no PIN is sent); mt_secret_pin_refused returns 1 when |id| was
 * refused for |uri| at the last attempt (|*gone|: how to clear an entry of
 * a key that is gone), else 0; mt_secret_pin_note records (|refused|) or
 * forgets it. */
const char *mt_secret_pin_digest(apr_pool_t *p, const char *keyname,
                                 const char *pw, const char *pin,
                                 size_t pin_len, const char **why);
int mt_secret_pin_refused(apr_pool_t *p, const char *uri, const char *id,
                          const char **gone);
void mt_secret_pin_note(apr_pool_t *p, const char *uri, const char *id,
                        int refused);

/* mt_secret_pub_remember keeps |pub|, the public key of |key|;
 * mt_secret_pub_recall fills |pub| with the last one kept and returns 1, or 0
 * for none. */
void mt_secret_pub_remember(apr_pool_t *p, const char *key,
                            const uint8_t pub[TACK_KEY_LEN]);
int mt_secret_pub_recall(apr_pool_t *p, const char *key,
                         uint8_t pub[TACK_KEY_LEN]);

#endif /* MOD_TACK_SECRET_H */
