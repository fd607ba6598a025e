/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_model.h -- the configuration-time model's types: the files the
 * directives name, a server's configuration, what a vhost serves. */
#ifndef MOD_TACK_MODEL_H
#define MOD_TACK_MODEL_H

#include "mod_tack_base.h"

typedef struct mt_late mt_late_t; /* mod_tack_background.h */

/* One TACK of a file, verified when the directive was read.  One per
 * TACK'd vhost: sized to what is read (its expiry as text is made when
 * said, MT_ITEM_EXPIRY; its fields decoded when read, MT_ITEM_TACK). */
struct mt_item {
    struct mt_file *file;
    struct mt_item *next_same; /* store: the next with its target_hash */
    /* its TACK_LEN bytes: a TackFile's are staged while the pass runs,
     * then the ones in a body that serves it (mt_load_settle) */
    const uint8_t *wire;
    time_t expires;
    char fingerprint[TACK_FINGERPRINT_SIZE];
    unsigned char index;              /* 1-based position in its file */
    unsigned char staged : 1;         /* |wire| in the pass's staging pool */
    unsigned char matched : 1;        /* matched a certificate of any vhost */
    unsigned char ends_with_cert : 1; /* a certificate it serves ends
                                       * first: no warning */
    unsigned char resigning : 1;      /* the background signs its
                                       * successor: no warning */
};

/* MT_ITEM_TACK(it) is |it|'s TACK decoded, in a tack_t that lives until
 * the end of the enclosing block (bytes verified when read: it decodes). */
#define MT_ITEM_TACK(it) mt_item_tack((it), &(tack_t){0})
static inline const tack_t *mt_item_tack(const struct mt_item *it, tack_t *t)
{
    (void)tack_parse(t, it->wire, TACK_LEN);
    return t;
}

/* Its TACK's fields read in place, at their fixed offsets in the wire
 * form (tack-protocol.md, "TACK"): no decoding for one field. */
static inline const uint8_t *mt_item_key(const struct mt_item *it)
{
    return it->wire;
}
static inline int mt_item_min_gen(const struct mt_item *it)
{
    return it->wire[TACK_KEY_LEN];
}
static inline int mt_item_gen(const struct mt_item *it)
{
    return it->wire[TACK_KEY_LEN + 1];
}
static inline uint32_t mt_item_expiration(const struct mt_item *it)
{
    return (uint32_t)(it->expires / 60); /* minutes, as on the wire */
}
static inline const uint8_t *mt_item_target(const struct mt_item *it)
{
    return it->wire + TACK_KEY_LEN + 2 + 4;
}
/* mt_item_targets says whether |it|'s target_hash is |spki_hash|. */
static inline int mt_item_targets(const struct mt_item *it,
                                  const uint8_t *spki_hash)
{
    return CRYPTO_memcmp(mt_item_target(it), spki_hash, TACK_HASH_LEN) == 0;
}

/* MT_ITEM_EXPIRY(it) is |it|'s expiration as text ("2027-01-02T03:04Z"),
 * in a buffer that lives until the end of the enclosing block. */
#define MT_ITEM_EXPIRY(it) mt_item_expiry((it), (char[TACK_TIME_SIZE]){0})
static inline const char *mt_item_expiry(const struct mt_item *it,
                                         char buf[TACK_TIME_SIZE])
{
    tack_time_format(mt_item_expiration(it), buf);
    return buf;
}

/* One TackFile directive, or one file of a TackStore. */
struct mt_file {
    server_rec *s;                /* the context it was written in */
    const char *kind;             /* "TackFile" or "TackStore", for messages */
    const struct mt_store *store; /* the store it belongs to, or NULL */
    const char *path;             /* resolved against ServerRoot */
    const char *name; /* a store file's name in its directory, or NULL */
    const ap_directive_t *where; /* its line, for messages */
    const char *error; /* why none of it is served (real start), or NULL */
    apr_array_header_t *warnings; /* served, but said: const char *, NULL */
    mt_item_t *items;             /* nitems of them, allocated by count */
    struct mt_file *next;  /* the next TackFile line of its context, or NULL
                            * (a list: an array cost a vhost 40 bytes) */
    uid_t uid;             /* a store file's owner and mode, of */
    mode_t mode;           /* ... the bytes read (stat_known) */
    unsigned char nitems;  /* 1, or 2 (a draft-02 pair) */
    unsigned char expired; /* items left out for their expiry alone (the
                            * error says so; kept for the record) */
    unsigned char inactive : 1;     /* "TackFile FILE inactive" */
    unsigned char stat_known : 1;   /* uid and mode are known */
    unsigned char removed : 1;      /* replaced by mt_store_replace_older: not
                                     * reported */
    unsigned char server_level : 1; /* outside any <VirtualHost> */
};

/* One TackBreakSigsFile directive. */
typedef struct {
    server_rec *s;
    const char *path;
    const ap_directive_t *where;
    const char *error;   /* why none of it is served, or NULL */
    const char *warning; /* served, but writable by others; or NULL */
    size_t num;
    const tack_breaksig_t *sigs; /* shared by the directives of its path */
    const char (*fingerprints)[TACK_FINGERPRINT_SIZE];
} mt_sigfile_t;

/* One TackStore directory, read once a generation, indexed by
 * target_hash. */
struct mt_store {
    const char *path;
    const ap_directive_t *where; /* the first TackStore line naming it */
    const char *error;           /* the directory cannot be read, or NULL */
    int fd; /* the directory, all access relative to it; -1: not open */
    apr_pool_t *pool;
    apr_array_header_t *read; /* mt_store_read_t, until mt_store_ready */
    int ready;
    apr_array_header_t *foreign;   /* mt_file_t *, another owner's: refused */
    apr_array_header_t *warnings;  /* const char *, or NULL */
    apr_array_header_t *untrusted; /* const char *: refused under -t */
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

/* The main server's own settings (GLOBAL_ONLY directives), made with its
 * mt_conf_t; mt_main_conf reads them. */
typedef struct {
    const char *state_file;  /* TackStateFile, or NULL */
    const char *store_owner; /* TackStoreOwner, or NULL */
    /* TackSigningWait, TackSigningRetry's two (seconds; TACK_UNSET) */
    int sign_wait, sign_retry, sign_retry_max;
} mt_main_conf_t;

/* TackSigningKey (a path, a pkcs11: URI, "" for none, NULL: unset),
 * TackSigningPassword and TackSigningGeneration of a context: each
 * inherits alone.  Made by the first of them: most vhosts have none. */
typedef struct {
    const char *key;
    const ap_directive_t *key_where;
    const char *pw;
    const ap_directive_t *pw_where;
    short min_gen, gen; /* 0-255, TACK_UNSET: 0 */
} mt_sign_conf_t;

/* A TackStore line of a context, for what is said of it (not inherited). */
typedef struct {
    const char *arg;             /* its path (or "none") as read */
    const ap_directive_t *where; /* ... and its line */
    const char *twice;           /* a second TackStore here, said at the pass */
} mt_store_line_t;

/* A server's configuration, merged into each vhost's own copy.  One per
 * vhost, TACK'd or not: small fields small, what few vhosts set out of
 * line (bench/findings.md). */
struct mt_conf {
    mt_file_t *files;             /* TackFile lines written here; NULL */
    mt_file_t *server_files;      /* main server's: candidates; NULL */
    apr_array_header_t *sigfiles; /* mt_sigfile_t *, own/inherited */
    mt_store_t *store;            /* TackStore, own or inherited */
    mt_store_line_t *store_line;  /* TackStore written here, or NULL */
    mt_sign_conf_t *sign;         /* own or inherited, or NULL: mt_conf_sign */
    apr_array_header_t *lapse;    /* TackLetPinsLapse TACK IDs, or NULL */
    mt_main_conf_t *main;         /* the main server's; NULL in a vhost */
    signed char pin_activation;   /* 1, 0, TACK_UNSET */
    signed char format;           /* TACK_FORMAT_*, TACK_UNSET */
    signed char tls13;            /* 1, 0, TACK_UNSET */
    signed char required;         /* TackRequired: 1, 0, TACK_UNSET */
    unsigned char store_set;      /* TackStore given here (maybe none) */
    unsigned char ssl_seen;       /* mod_ssl serves it (set by the pass) */
    unsigned char num_sigs;       /* break signatures in own sigfiles (<= 8) */
};

/* mt_conf_sign returns |conf|'s signing settings, all unset when none is
 * given; mt_conf_signs whether it names a TackSigningKey (not "none"). */
static inline const mt_sign_conf_t *mt_conf_sign(const mt_conf_t *conf)
{
    static const mt_sign_conf_t unset = {NULL, NULL,       NULL,
                                         NULL, TACK_UNSET, TACK_UNSET};

    return conf->sign ? conf->sign : &unset;
}
static inline int mt_conf_signs(const mt_conf_t *conf)
{
    return conf->sign && conf->sign->key && *conf->sign->key;
}

/* mt_conf_sign_gen returns TackSigningGeneration's generation (with |min|,
 * its min_generation): 0 when it is not given. */
static inline int mt_conf_sign_gen(const mt_conf_t *conf, int min)
{
    const mt_sign_conf_t *sign = mt_conf_sign(conf);

    return sign->gen == TACK_UNSET ? 0 : min ? sign->min_gen : sign->gen;
}

/* A problem of a vhost found at configuration time, for the status page. */
#define TACK_PROBLEM_ERROR 2   /* something is not served: red */
#define TACK_PROBLEM_WARNING 1 /* served, but will not be for long: amber */
typedef struct {
    int severity;        /* TACK_PROBLEM_ERROR or TACK_PROBLEM_WARNING */
    const char *kind;    /* a short [a-z_] word, the metrics' label */
    int slot;            /* the certificate's index, or -1 */
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
    const mt_item_t *lapsed; /* with no TACK: an expired one left out */
    mt_pending_t *pending;   /* left to the background, or NULL */
    int md_fallback;         /* mod_md's self-signed fallback: not signed */
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

typedef struct mt_signer mt_signer_t; /* mod_tack_signer.h */

/* A certificate left to the background, its answer read through
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
    time_t due;          /* not signed before (0: at once) */
};

#endif /* MOD_TACK_MODEL_H */
