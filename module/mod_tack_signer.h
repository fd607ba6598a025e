/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_signer.h -- TackSigningKey's key in a process of its own
 * (mod_tack_signer.c), for the files that sign. */
#ifndef MOD_TACK_SIGNER_H
#define MOD_TACK_SIGNER_H

#include "mod_tack_model.h"
#include "mod_tack_secret.h"

/* TackSigningWait's and TackSigningRetry's defaults and limit, and how
 * long the background waits for a signer's first answer. */
#define TACK_SIGN_WAIT_SECS 10
#define TACK_SIGN_RETRY_SECS 60
#define TACK_SIGN_RETRY_MAX_SECS 3600
#define TACK_SIGN_RETRY_MAX_LIMIT 86400
#define TACK_SIGN_AGENT_SECS (TACK_PW_EXEC_SECS + 5)

/* One signing key of this time: a TackSigningKey with its password
 * source, loaded once however many vhosts use it. */
struct mt_signer {
    const char *key; /* resolved path, or the pkcs11: URI */
    const char *pw;  /* TackSigningPassword, or NULL */
    const ap_directive_t *where;
    const ap_directive_t *pw_where;
    EVP_PKEY *pkey; /* in the signer process only */
    const char *error;
    int fd;    /* the parent's end of the signer's socket; -1: none */
    pid_t pid; /* the signer process, or 0 */
    uint8_t pub[TACK_KEY_LEN];
    char fingerprint[TACK_FINGERPRINT_SIZE];
    int nsigned, nwritten, nkept, nskipped, nqueued;
    int nlater;       /* queued with a due time (mt_pending_t.due) */
    time_t later;     /* the earliest of those due times */
    int reported;     /* its error was counted under -t (once per key) */
    int pub_known;    /* its signer started: |pub| is the key's */
    int pub_recalled; /* it did not, |pub| is its last load's */
    int transient;    /* its error is the signing host's, not the
                       * configuration's: no answer, no connection */
};

/* mt_signer_gen_init makes the part of |gen| (pre_config). */
void mt_signer_gen_init(mt_gen_t *gen);

/* mt_signer_all returns this time's signers (mt_signer_t *), or NULL
 * when none was made since mt_signer_close_all; mt_signer_ms_left the
 * milliseconds left to wait for them; mt_signer_in_background marks this
 * process as the background's. */
apr_hash_t *mt_signer_all(void);
int mt_signer_ms_left(void);
void mt_signer_in_background(void);

/* mt_signer_wait_secs returns TackSigningWait or its default. */
int mt_signer_wait_secs(void);

/* mt_signer_add returns the signer of |conf| in this time, made
 * (|created|, not started) the first time; mt_signer_get also starts it
 * then, its error logged once.  mt_signer_spawn forks it, mt_signer_hello
 * waits for its first answer until the deadline, mt_signer_start does
 * both: each returns NULL (sg->pub is the key's), or why not.
 * mt_signer_sign has |tack| signed and checks it: TACK_OK, or why not.
 * mt_signer_stop ends a signer process; mt_signer_close_all ends this time's
 * (the parent's ends only, when the background took them over). */
mt_signer_t *mt_signer_add(server_rec *s, const mt_conf_t *conf, int *created);
mt_signer_t *mt_signer_get(server_rec *s, const mt_conf_t *conf);
tack_status_t mt_signer_sign(mt_signer_t *sg, tack_t *tack);
void mt_signer_close_all(void);
const char *mt_signer_spawn(mt_signer_t *sg);
const char *mt_signer_hello(mt_signer_t *sg);
const char *mt_signer_start(mt_signer_t *sg);
void mt_signer_stop(pid_t pid);

/* mt_signer_allow gives waiting for signers |secs| from now;
 * mt_signer_answer_secs is how long one signature may take in the
 * background (TackSigningWait, or its default when it is 0). */
void mt_signer_allow(int secs);
int mt_signer_answer_secs(void);

/* mt_signer_retry_secs and mt_signer_retry_max_secs return TackSigningRetry's
 * two, or their defaults. */
int mt_signer_retry_secs(void);
int mt_signer_retry_max_secs(void);

#endif /* MOD_TACK_SIGNER_H */
