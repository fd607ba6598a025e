/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_secret.h -- TackSigningPassword's sources and the signers'
 * files beside TackStateFile (mod_tack_secret.c).
 */
#ifndef MOD_TACK_SECRET_H
#define MOD_TACK_SECRET_H

#include "mod_tack_model.h"

/* A password or PIN longer than this is refused. */
#define TACK_PW_MAX 1024
/* How long an exec: program may take to print the password. */
#define TACK_PW_EXEC_SECS 30

/* mt_secret_pw_syntax checks a TackSigningPassword value when it is read:
 * NULL, or what is wrong with it. */
const char *mt_secret_pw_syntax(apr_pool_t *p, const char *arg);

/* mt_secret_register_hooks registers the child_init hook that wipes env:
 * passwords from every httpd child's environment. */
void mt_secret_register_hooks(apr_pool_t *p);

/* mt_sign_password fetches the password TackSigningPassword |src| gives
 * for the key |key| (a path or URI) into |buf| (TACK_PW_MAX), its length
 * into |*len|; NULL, or why it cannot. */
const char *mt_sign_password(apr_pool_t *p, const char *src, const char *key,
                             char *buf, size_t *len);

/* mt_pw_end_group ends an exec: program still running and everything it
 * started (async-signal-safe: the signer's SIGTERM handler). */
void mt_pw_end_group(void);

/* The PINs a token refused: mt_pin_digest is what is remembered of |pin|
 * sent for the key |keyname| from the source |pw| (a keyed hash with that
 * source and its file's identity), or NULL with |*why| when it cannot be
 * made: then no PIN is to be sent.  mt_pin_refused says whether |id| was
 * refused for |uri| at the last attempt (1, or 1 with |*gone| saying how to
 * clear it: an entry made from the same source under a key that is gone),
 * or not (0); mt_pin_note records (|refused|) or forgets it. */
const char *mt_pin_digest(apr_pool_t *p, const char *keyname, const char *pw,
                          const char *pin, size_t pin_len, const char **why);
int mt_pin_refused(apr_pool_t *p, const char *uri, const char *id,
                   const char **gone);
void mt_pin_note(apr_pool_t *p, const char *uri, const char *id, int refused);

/* mt_pub_remember keeps |pub|, the public key of |key| (a path or URI);
 * mt_pub_recall fills |pub| with the last one kept (1), or says there is
 * none (0). */
void mt_pub_remember(apr_pool_t *p, const char *key,
                     const uint8_t pub[TACK_KEY_LEN]);
int mt_pub_recall(apr_pool_t *p, const char *key, uint8_t pub[TACK_KEY_LEN]);

#endif /* MOD_TACK_SECRET_H */
