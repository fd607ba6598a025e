/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_model.h -- the configuration-time model's types: what the
 * directives name (TackFile, TackBreakSigsFile and TackStore files, loaded
 * and verified), a server's configuration (mt_conf_t), and what a vhost
 * serves per certificate once every rule is applied (mt_sel_t).  The files
 * that build and judge it each declare their functions in a header of
 * their own, from the bottom up: mod_tack_load.h, mod_tack_store.h,
 * mod_tack_resolve.h, mod_tack_memory.h, mod_tack_guard.h,
 * mod_tack_secret.h, mod_tack_signer.h, mod_tack_sign.h, mod_tack_md.h,
 * mod_tack_background.h and mod_tack_config.h.
 */
#ifndef MOD_TACK_MODEL_H
#define MOD_TACK_MODEL_H

#include "mod_tack_base.h"

/* Its answer in the background's shared-memory segment (opaque here:
 * mod_tack_background.h). */
typedef struct mt_late mt_late_t;

/* One TACK of a TackFile, verified (signature, generation, expiry) when the
 * directive was read. */
struct mt_item {
    struct mt_file *file;
    unsigned index; /* 1-based position in its file */
    tack_t tack;
    time_t expires;
    char fingerprint[TACK_FINGERPRINT_SIZE];
    char expiry[TACK_TIME_SIZE];
    /* Set when the TACK matched a certificate of any vhost in this
     * configuration generation: a server-level TACK that matches none is an
     * error. */
    int matched;
    /* Set when a certificate it is served for expires no later than it: its
     * own expiry then needs no warning (the certificate's comes first, and
     * a renewed certificate needs a new TACK anyway). */
    int ends_with_cert;
    /* TackSigningKey signs its successor in the background (it expires
     * within 30 days): no expiry warning either. */
    int resigning;
    /* Store only: the next TACK of the store with the same target_hash. */
    struct mt_item *next_same;
};

/* One TackFile directive, or one file of a TackStore. */
struct mt_file {
    server_rec *s;                /* the context it was written in */
    const char *kind;             /* "TackFile" or "TackStore", for messages */
    const struct mt_store *store; /* the store it belongs to, or NULL */
    const char *path;             /* resolved against ServerRoot */
    const char *name; /* a store file's name in its directory, or NULL */
    const ap_directive_t *where; /* its line, for messages */
    int inactive;                /* "TackFile FILE inactive" */
    /* A store file's owner and mode, of the bytes read (stat_known) */
    int stat_known;
    uid_t uid;
    mode_t mode;
    int removed;       /* a store file replaced by one TackSigningKey wrote in
                        * this pass (mt_store_replace_older): gone, not reported */
    int server_level;  /* outside any <VirtualHost> */
    const char *error; /* why none of it is served (real start), or NULL */
    int expired;       /* ... and that reason is only the expiration: then the
                        * number of its TACKs, still in |items| for the record */
    /* Served, but with something an administrator must hear of (a private
     * key beside the TACK, break signatures a TackFile does not serve, a
     * file others can write): const char * each, or NULL. */
    apr_array_header_t *warnings;
    int nitems;
    mt_item_t *items; /* nitems of them, allocated by count */
};

/* One TackBreakSigsFile directive. */
typedef struct {
    server_rec *s;
    const char *path;
    const ap_directive_t *where;
    const char *error;   /* why none of it is served, or NULL */
    const char *warning; /* served, but writable by others; or NULL */
    size_t num;
    /* The file's contents, loaded once per configuration pass and shared
     * by every directive naming the same path (hosting configurations name
     * one file in thousands of vhosts). */
    const tack_breaksig_t *sigs;
    const char (*fingerprints)[TACK_FINGERPRINT_SIZE];
} mt_sigfile_t;

/* One TackStore directory, read once per configuration generation however
 * many servers name it, and indexed by target_hash: a vhost's certificate
 * finds its TACK with one hash lookup, so 10,000 vhosts cost 10,000
 * lookups, not 10,000 x 10,000 comparisons. */
struct mt_store {
    const char *path;
    const ap_directive_t *where; /* the first TackStore line naming it */
    const char *error;           /* the directory cannot be read, or NULL */
    /* The directory, opened once (tack_dir_open: never a symbolic link):
     * read, written, renamed in and unlinked from relative to it, whatever
     * is done to |path| meanwhile; -1 when not open.  Closed with pconf. */
    int fd;
    apr_pool_t *pool;
    /* The files read, in name order (mt_store_read_t), until mt_store_ready
     * judges and indexes them once the whole configuration is read
     * (TackStoreOwner may come after TackStore). */
    apr_array_header_t *read;
    int ready;
    /* Files owned by another user than root and TackStoreOwner: never
     * served (mt_file_t *, with ->error). */
    apr_array_header_t *foreign;
    /* The directory or some of its files writable by others, a file that
     * also holds a private key or break signatures: const char *, or NULL */
    apr_array_header_t *warnings;
    /* The directory or files owned by another user than root and
     * TackStoreOwner, or writable by others: refused under apache2 -t
     * (const char *, with the fix), warned about at a start. */
    apr_array_header_t *untrusted;
    int loaded;          /* 0 in the discarded first pass of a start */
    int nfiles;          /* TACK files served from it */
    int nduplicates;     /* files repeating another's TACK byte for byte */
    apr_hash_t *by_hash; /* target_hash (32 bytes) -> mt_item_t * */
    apr_array_header_t *files;    /* mt_file_t *, loaded, in name order */
    apr_array_header_t *bad;      /* mt_file_t *, malformed (->error) */
    apr_array_header_t *expired;  /* mt_file_t *, expired (->error) */
    apr_array_header_t *expiring; /* mt_item_t *, within 30 days */
    apr_hash_t *expired_by_hash;  /* target_hash -> mt_item_t * of an
                                   * expired file, or NULL */
};

/* Per-server configuration.  AP_MODULE_FLAG_ALWAYS_MERGE gives every vhost
 * its own merged copy, so that every SSL_CTX gets its own callback argument
 * (see the SNI trap in mod_tack.c). */
struct mt_conf {
    /* The arrays are created by the first directive that needs them: most
     * vhosts of a large server have none, and each would cost ~80 bytes. */
    apr_array_header_t *files;         /* mt_file_t *, written here; NULL */
    apr_array_header_t *server_files;  /* main server's: candidates; NULL */
    apr_array_header_t *sigfiles;      /* mt_sigfile_t *, own/inherited */
    size_t num_sigs;                   /* break signatures in own sigfiles */
    mt_store_t *store;                 /* TackStore, own or inherited */
    int store_set;                     /* TackStore given here (maybe none) */
    const char *store_arg;             /* ... its path (or "none") as read */
    const ap_directive_t *store_where; /* ... and its line */
    /* A second TackStore of another directory in this very context, at a
     * real start (under -t it is a syntax error): said at the pass. */
    const char *store_twice;
    int pin_activation;
    int format;
    int tls13;
    int required; /* TackRequired: 1, 0, or TACK_UNSET (mt_resolve_required) */
    /* TackSigningKey (mod_tack_sign.c): a key file's resolved path or a
     * pkcs11: URI, "" for "none", NULL when unset; with the
     * TackSigningPassword source ("file:PATH", "exec:PATH", "env:NAME") and
     * TackSigningGeneration.  Each one inherits on its own. */
    const char *sign_key;
    const ap_directive_t *sign_key_where;
    const char *sign_pw;
    const ap_directive_t *sign_pw_where;
    int sign_min_gen, sign_gen; /* TACK_UNSET: 0 */
    /* TackSigningWait, TackSigningRetry's two (main server; seconds,
     * TACK_UNSET: the defaults): how long a start waits for signatures in
     * all, how often the background tries a signing key that failed again,
     * the ceiling of a dying background's back-off. */
    int sign_wait, sign_retry, sign_retry_max;
    const char *state_file;    /* TackStateFile (main server), or NULL */
    const char *store_owner;   /* TackStoreOwner (main server), or NULL */
    apr_array_header_t *lapse; /* TackLetPinsLapse TACK IDs, or NULL */
};

/* A problem of a vhost found at configuration time, shown first on the
 * status page, in the JSON ("problems") and in the metrics
 * (tack_vhost_problems{kind=...}) with the ones those find themselves
 * (expired, expiring, no TACK, store). */
#define TACK_PROBLEM_ERROR 2   /* something is not served: red */
#define TACK_PROBLEM_WARNING 1 /* served, but will not be for long: amber */
typedef struct {
    int severity;        /* TACK_PROBLEM_ERROR or TACK_PROBLEM_WARNING */
    const char *kind;    /* a short [a-z_] word, the metrics' label */
    int slot;            /* the certificate (index in mt_sel_t.certs and
                          * the table's slots), or -1 */
    const char *message; /* a sentence naming what is wrong */
} mt_problem_t;

/* A certificate of a vhost and the TACKs chosen for it. */
typedef struct {
    uint8_t hash[TACK_HASH_LEN]; /* SHA-256 of its SubjectPublicKeyInfo */
    X509 *x509;                  /* mod_ssl's certificate; NULL under -t */
    const char *label;           /* for messages */
    const char *subject;         /* its subject (NULL under -t) */
    const char *key_type;        /* mt_key_type_name: "RSA", "ECDSA"... */
    int ntacks;
    mt_item_t *tacks[TACK_EXT02_MAX_TACKS];
    /* With no TACK: an expired one for it, left out (the status page
     * counts it as expired, not as "no TACK"), or NULL. */
    const mt_item_t *lapsed;
    /* Queued for TackSigningKey's signature in the background (served
     * without a TACK from it until then), or NULL. */
    mt_pending_t *pending;
    /* mod_md's self-signed fallback (it answers 503 until mod_md has a
     * certificate): TackSigningKey never signs it (mt_md_mark_fallback). */
    int md_fallback;
} mt_certsel_t;

/* What a vhost serves, once every rule of mt_resolve has been applied. */
typedef struct {
    int format;
    int pin_activation;
    int tls13;
    int required; /* a certificate serving no TACK is a problem */
    const mt_store_t *store;
    size_t nsigs;
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    const mt_sigfile_t *sigfiles[TACK_MAX_BREAKSIGS]; /* where each is from */
    unsigned char sigidx[TACK_MAX_BREAKSIGS]; /* its index in that file */
    int ncerts;
    mt_certsel_t *certs;
} mt_sel_t;

/* A signing key of a pass (mod_tack_signer.h). */
typedef struct mt_signer mt_signer_t;

/* A certificate the pass did not wait for: signed by the background
 * process (mt_agent_main) after the start, its answer published in the
 * background's segment (mt_late_t), which the handshake reads through
 * mt_background_answer.  In pconf. */
struct mt_pending {
    server_rec *s;
    const mt_conf_t *conf;
    mt_certsel_t cert; /* its certificate (no TACKs) */
    uint32_t expires;  /* the TACK's expiration: the certificate's end */
    int write;         /* into the vhost's TackStore */
    int format, pin_activation;
    size_t nsigs; /* the vhost's break signatures, sent with it */
    const tack_breaksig_t *sigs;
    size_t len;          /* the size of its answer */
    mt_late_t *late;     /* its place in the segment */
    long pinned;         /* clients may pin the signing key here */
    mt_item_t *replaces; /* its TACK under the key, expiring soon */
    time_t due;          /* not signed before (0: at once): a TACK
                          * that |replaces| one 30 days before it
                          * expires (mt_sign_cert) */
};

#endif /* MOD_TACK_MODEL_H */
