/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_model.h -- the configuration-time model: what the directives
 * name (TackFile, TackBreakSigsFile and TackStore files, loaded and
 * verified), a server's configuration (mt_conf_t), and what a vhost serves
 * per certificate once every rule is applied (mt_sel_t); with the files
 * that build and judge it, from the bottom up: mod_tack_load.c,
 * mod_tack_store.c, mod_tack_resolve.c, mod_tack_guard.c, mod_tack_sign.c,
 * mod_tack_config.c (the directives) and mod_tack_setup.c (the pass).
 */
#ifndef MOD_TACK_MODEL_H
#define MOD_TACK_MODEL_H

#include "mod_tack_base.h"

/* One prebuilt extension body; len 0 means "send nothing".  |served| lists
 * the key fingerprints of the TACKs it carries, space-separated, or is NULL
 * when it carries none: the value of the TACK_SERVED variable.  A
 * connection's conn_config slot points at the body it was answered with. */
typedef struct {
    const uint8_t *data;
    size_t len;
    const char *served;
} mt_body_t;

/* A certificate waiting for TackSigningKey's signature, in the queue of
 * mod_tack_sign.c (opaque). */
typedef struct mt_pending mt_pending_t;

/* What a handshake sends for a certificate that TackSigningKey signed in
 * the background, after the start: published by the parent's signing
 * process into an anonymous shared-memory segment made at the end of the
 * pass (so every child of this generation sees it), in this order: the
 * body, then |ready| set with a release store; the handshake reads |ready|
 * with an acquire load, then the body.  Nothing is changed after that. */
typedef struct {
    apr_uint32_t ready;   /* 1: |body| is published */
    apr_uint32_t expires; /* the TACK's expiration, minutes since 1970 */
    apr_uint32_t written; /* 1: it is in the vhost's TackStore too */
    apr_time_t since;     /* waiting since (the first start that queued it) */
    tack_t tack;          /* the TACK, for the status page */
    mt_body_t body;       /* data -> data[], served -> served[] */
    char served[TACK_FINGERPRINT_SIZE];
    uint8_t data[]; /* body.len bytes, sized when queued */
} mt_late_t;

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
    server_rec *s;               /* the context it was written in */
    const char *kind;            /* "TackFile" or "TackStore", for messages */
    struct mt_store *store;      /* the store it belongs to, or NULL */
    const char *path;            /* resolved against ServerRoot */
    const char *name; /* a store file's name in its directory, or NULL */
    const ap_directive_t *where; /* its line, for messages */
    int inactive;                /* "TackFile FILE inactive" */
    /* A store file's owner and mode, of the bytes read (stat_known) */
    int stat_known;
    uid_t uid;
    mode_t mode;
    int removed; /* a store file replaced by one TackSigningKey wrote in
                  * this pass (mt_store_replace_older): gone, not reported */
    int server_level;            /* outside any <VirtualHost> */
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
    apr_array_header_t *files;        /* mt_file_t *, written here; NULL */
    apr_array_header_t *server_files; /* main server's: candidates; NULL */
    apr_array_header_t *sigfiles;     /* mt_sigfile_t *, own/inherited */
    size_t num_sigs;                  /* break signatures in own sigfiles */
    mt_store_t *store;                /* TackStore, own or inherited */
    int store_set;                    /* TackStore given here (maybe none) */
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
    /* TackSigningWait, TackSigningRetry (main server; seconds, TACK_UNSET:
     * the defaults): how long a start waits for signatures in all, how
     * often the background tries a signing key that failed again. */
    int sign_wait, sign_retry;
    const char *state_file;     /* TackStateFile (main server), or NULL */
    const char *store_owner;    /* TackStoreOwner (main server), or NULL */
    apr_array_header_t *lapse;  /* TackLetPinsLapse TACK IDs, or NULL */
    int ssl_seen; /* ssl_init_server ran for it in this generation */
};

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
} mt_certsel_t;

/* What a vhost serves, once every rule of the issue has been applied. */
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

/* ---- mod_tack_load.c --------------------------------------------------- */

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

/* mt_load_vcache_start starts a configuration pass (pre_config, before
 * any directive is read): it rotates the cache of verified signatures
 * (see mod_tack_load.c). */
void mt_load_vcache_start(apr_pool_t *pconf);

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
 * in |p|, for the vhost |s|. */
mt_item_t *mt_load_item(apr_pool_t *p, server_rec *s, const char *kind,
                        const char *path, const ap_directive_t *where,
                        const tack_t *tack);

/* ---- mod_tack_store.c -------------------------------------------------- */

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

/* mt_store_has says whether |st|'s directory has an entry |name| (looked
 * at relative to its descriptor). */
int mt_store_has(const mt_store_t *st, const char *name);

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

/* ---- mod_tack_resolve.c ------------------------------------------------ */

/* mt_resolve applies the configuration of |s| to its certificates
 * |certs| (|ncerts| of them; |certs_known| is 0 when they could not be
 * found, and then target hashes are not checked): picks the TACKs for each
 * certificate, the break signatures, the format and the activation flag,
 * into |out|.  Every problem is logged (at error level, unless quiet) and
 * what caused it left out.  Returns the number of problems. */
int mt_resolve(apr_pool_t *p, server_rec *s, mt_conf_t *conf,
               mt_certsel_t *certs, int ncerts, int certs_known, mt_sel_t *out);

/* mt_resolve_log_load_errors logs, at a real start, the files that could
 * not be loaded; mt_resolve_check_unmatched logs server-level TACKs that
 * matched no certificate.  Both return the number of problems. */
int mt_resolve_log_load_errors(server_rec *s_main);

/* mt_resolve_log_warnings logs, once per pass, what is served but must be
 * heard of (mt_file_t.warnings, mt_sigfile_t.warning); returns how many
 * lines it logged.  Never a problem: warnings do not refuse a
 * configuration. */
int mt_resolve_log_warnings(server_rec *s_main);
int mt_resolve_check_unmatched(server_rec *s_main);

/* mt_resolve_warn_expiry logs a warning for a TACK of |sel| that expires
 * within TACK_EXPIRY_WARN_SECS, unless its certificate ends first. */
void mt_resolve_warn_expiry(server_rec *s, const mt_sel_t *sel);

/* mt_resolve_own_directives returns 1 when |s| has TackFile or
 * TackBreakSigsFile lines of its own (not inherited from the server config). */
int mt_resolve_own_directives(server_rec *s, const mt_conf_t *conf);

/* mt_resolve_warn_partial warns when a vhost with several certificates
 * has a TACK for only some of them (most clients negotiate ECDSA). */
void mt_resolve_warn_partial(server_rec *s, const mt_conf_t *conf,
                             const mt_sel_t *sel);

/* mt_resolve_mark_cert_bound sets ends_with_cert on each TACK of |sel|
 * whose certificate expires no later than it (real start: certificates
 * known). */
void mt_resolve_mark_cert_bound(const mt_sel_t *sel);

/* ---- mod_tack_guard.c -------------------------------------------------- */

/* mt_guard_note records what |sel| (the vhost |s|) is about to serve,
 * for the guard and the memory; nothing when the vhost has no pin
 * activation and nothing is remembered of it.  |signing| (under -t) is
 * the public key of the vhost's TackSigningKey: a certificate with no TACK
 * gets one under it at the start, so a pin on that key is not lost. */
void mt_guard_note(server_rec *s, const mt_conf_t *conf, const mt_sel_t *sel,
                   mt_rt_t *rt, const uint8_t *signing);

/* mt_guard_recover serves again, for a certificate of |sel| left
 * without it, the TACK the memory holds under a key whose pins can still
 * be active, when a TackFile or TackStore file of the vhost failed to load
 * in this pass and that TACK is still valid for the certificate (a file
 * broken between the configuration test and a restart must not cut
 * pinned clients off).  Real start only; logged as an error. */
void mt_guard_recover(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                      mt_sel_t *sel);

/* mt_guard_pinned returns until when clients can hold an active pin on
 * |key| for a name |s| answers (its |key_type| certificate), or 0: what
 * TackSigningKey keeps served against a TACK under another key. */
long mt_guard_pinned(server_rec *s, const mt_conf_t *conf, const char *key_type,
                     const uint8_t *key);

/* mt_guard_state_path returns TackStateFile's path followed by |suffix|
 * (a file kept beside it). */
const char *mt_guard_state_path(apr_pool_t *p, const char *suffix);

/* mt_guard_remembers returns 1 when the memory holds TACK keys served by
 * the vhost |s| (under -t: its certificates must be looked at). */
int mt_guard_remembers(server_rec *s);

/* mt_guard_check logs every certificate that would be served without a
 * TACK under a key its clients may still have pinned; returns the number
 * that refuse the configuration (under -t; expiry is only a warning). */
int mt_guard_check(server_rec *s_main);

/* mt_guard_end writes what this pass serves into the memory (real start
 * only) and forgets the pass. */
void mt_guard_end(server_rec *s_main);

/* ---- mod_tack_sign.c --------------------------------------------------- */

/* The sources TackSigningPassword accepts, checked when it is read. */
const char *mt_signer_pw_syntax(apr_pool_t *p, const char *arg);

/* mt_signer_register_hooks registers the child_init hook that wipes env:
 * passwords from every httpd child's environment. */
void mt_signer_register_hooks(apr_pool_t *p);

/* mt_sign_vhost signs, with the vhost's TackSigningKey, a TACK for each
 * certificate of |sel| that has none, and anew a TACK under that key that
 * expires within 30 days, and writes each into the vhost's TackStore when
 * the parent can write there.  Real start only (not in the quiet pass);
 * what it signs is allocated in |p| (the configuration pool) and put in
 * |sel|.  Problems are logged. */
void mt_sign_vhost(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                   mt_sel_t *sel);

/* mt_sign_check loads, under "apache2 -t", every key TackSigningKey
 * names, and returns the number that cannot be used (each logged with its
 * directive, file or URI, and reason). */
int mt_sign_check(apr_pool_t *ptemp, server_rec *s_main);

/* mt_sign_end reports what was signed in this pass (info) and makes it
 * reach the disk; mt_sign_close then ends the signers. */
void mt_sign_end(server_rec *s_main);

/* mt_sign_public returns the public key of |conf|'s TackSigningKey,
 * loading it if needed, or NULL when there is none or it cannot be used. */
const uint8_t *mt_sign_public(server_rec *s, const mt_conf_t *conf);

/* mt_sign_pending_slot records |where|, the slot of the handshake's table
 * that serves |pd|'s certificate: it gets its mt_late_t at the end of the
 * pass. */
void mt_sign_pending_slot(mt_pending_t *pd, const mt_late_t **where);

/* mt_sign_close ends the pass's signing: its signers free their keys and
 * exit, unless the background (mt_background_start) has taken them over. */
void mt_sign_close(void);

/* ---- mod_tack_background.c ---------------------------------------------- */

/* mt_background_start makes, at the end of a real start's pass, the
 * shared-memory segment of the queued certificates' answers and forks the
 * background process, which takes over the pass's signers that are up;
 * nothing under -t, in the discarded first pass or without a
 * TackSigningKey. */
void mt_background_start(server_rec *s_main);

/* mt_background_last_error copies into |buf| the last reason the background
 * could not sign (a signing key that cannot be used now) and returns when
 * it was said, or 0 when there is none (nothing failed, or it signs
 * again).  For the status page, in any process of this generation. */
apr_time_t mt_background_last_error(char *buf, size_t size);

/* mt_sign_retry_secs returns TackSigningRetry (or its default). */
int mt_sign_retry_secs(void);

/* mt_sign_late_ready returns 1 when |late| is published. */
static inline int mt_sign_late_ready(const mt_late_t *late)
{
    return late && __atomic_load_n(&late->ready, __ATOMIC_ACQUIRE);
}

/* ---- mod_tack_config.c ------------------------------------------------- */

/* mod_tack_config.c */
extern const command_rec mt_config_cmds[];
void *mt_config_create(apr_pool_t *p, server_rec *s);
void *mt_config_merge(apr_pool_t *p, void *basev, void *addv);

#endif /* MOD_TACK_MODEL_H */
