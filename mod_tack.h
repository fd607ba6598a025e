/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack.h -- declarations private to the module, what its files share.
 * Not an API: the module exports nothing but tack_module, and every name
 * here is hidden.  One concern a file, as in mod_md:
 *
 *   mod_tack.c             module record, hooks, OpenSSL callbacks, the
 *                          bytes served (tack_rt_t, tack_slot_t, tack_body_t)
 *   mod_tack_config.c      directives, create/merge (tack_conf_t), the two
 *                          regimes (tack_config_strict, tack_config_quiet)
 *   mod_tack_load.c        loading and verifying TackFile and
 *                          TackBreakSigsFile files (tack_file_t, tack_item_t,
 *                          tack_sigfile_t), the verified-signature cache
 *   mod_tack_store.c       the TackStore (tack_store_t) and its report
 *   mod_tack_resolve.c     what a vhost serves per certificate
 *                          (tack_certsel_t, tack_sel_t), start-up reporting
 *   mod_tack_configtest.c  "apache2 -t": certificates from the
 *                          configuration tree
 *   mod_tack_sign.c        TackSigningKey: TACKs signed in the parent at
 *                          start-up for certificates that have none
 *   mod_tack_guard.c       pin continuity: the memory of what was served
 *                          (TackStateFile) and the guard
 *   mod_tack_status.c      counters (tack_ctr_t), the status handler,
 *                          the problems it shows, mod_status's section
 *   mod_tack_status_json.c its JSON (?json)
 *   mod_tack_status_html.c its HTML page
 *   mod_tack_metrics.c     its Prometheus metrics (?metrics)
 *
 * Log tags: every ap_log_* call site carries its own "TACKnnnnn: " tag,
 * never reused.  The configuration files (mod_tack_config.c, _load, _store,
 * _resolve, _configtest) use TACK00001-TACK00049, mod_tack.c
 * TACK00050-TACK00099, the status files (mod_tack_status*.c,
 * mod_tack_metrics.c) TACK00100-TACK00149.  Every tag is
 * listed with its level and meaning in docs/log-tags.md (t/apache/docs.t
 * checks both ways).
 */
#ifndef MOD_TACK_H
#define MOD_TACK_H

#include "httpd.h"
#include "http_config.h"
#include "apr_hash.h"

#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "tack_ext.h"

/* TACK_PROG is the tool's command name in the log's hints ("run tack sign"):
 * the Makefile's TACK_PROG, tacktool in Debian's package. */
#ifndef TACK_PROG
#define TACK_PROG "tack"
#endif

/* Only tack_module leaves the shared object: the module is built with
 * -fvisibility=hidden, this marks the one exception. */
#define TACK_EXPORT __attribute__((visibility("default")))

extern module TACK_EXPORT AP_MODULE_DECLARE_DATA tack_module;

#define TACK_UNSET (-1)
#define TACK_FORMAT_00 0
#define TACK_FORMAT_02 2

/* A TACK about to be served is logged as a warning when it expires within
 * this many seconds (30 days). */
#define TACK_EXPIRY_WARN_SECS (30L * 24 * 60 * 60)

/* Where a directive was written, for messages: "(" TACK_WHERE_FMT ")" with
 * TACK_WHERE(d) gives "(conf/file.conf:12)".  The configuration tree lives
 * in pconf as long as what was built from it, so a pointer to the directive
 * costs 8 bytes where a formatted string cost ~50 per TACK'd vhost. */
#define TACK_WHERE_FMT "%s:%d"
#define TACK_WHERE(d) ((d) ? (d)->filename : "?"), ((d) ? (d)->line_num : 0)

struct tack_file;
struct tack_store;

/* Files a TackStore directory serves: what "tack sign -c DIR -o DIR" writes.
 * Other names (and names starting with a dot) are ignored. */
#define TACK_STORE_SUFFIX ".tack.pem"

/* One TACK of a TackFile, verified (signature, generation, expiry) when the
 * directive was read. */
typedef struct tack_item {
    struct tack_file *file;
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
    /* Store only: the next TACK of the store with the same target_hash. */
    struct tack_item *next_same;
} tack_item_t;

/* One TackFile directive, or one file of a TackStore. */
typedef struct tack_file {
    server_rec *s;               /* the context it was written in */
    const char *kind;            /* "TackFile" or "TackStore", for messages */
    struct tack_store *store;    /* the store it belongs to, or NULL */
    const char *path;            /* resolved against ServerRoot */
    const ap_directive_t *where; /* its line, for messages */
    int inactive;                /* "TackFile FILE inactive" */
    int server_level;            /* outside any <VirtualHost> */
    const char *error; /* why none of it is served (real start), or NULL */
    int expired; /* ... and that reason is only the expiration: then the
                  * number of its TACKs, still in |items| for the record */
    /* Served, but with something an administrator must hear of (a private
     * key beside the TACK, break signatures a TackFile does not serve, a
     * file others can write): const char * each, or NULL. */
    apr_array_header_t *warnings;
    int nitems;
    tack_item_t *items; /* nitems of them, allocated by count */
} tack_file_t;

/* One TackBreakSigsFile directive. */
typedef struct {
    server_rec *s;
    const char *path;
    const ap_directive_t *where;
    const char *error; /* why none of it is served, or NULL */
    const char *warning; /* served, but writable by others; or NULL */
    size_t num;
    /* The file's contents, loaded once per configuration pass and shared
     * by every directive naming the same path (hosting configurations name
     * one file in thousands of vhosts). */
    const tack_breaksig_t *sigs;
    const char (*fingerprints)[TACK_FINGERPRINT_SIZE];
} tack_sigfile_t;

/* One TackStore directory, read once per configuration generation however
 * many servers name it, and indexed by target_hash: a vhost's certificate
 * finds its TACK with one hash lookup, so 10,000 vhosts cost 10,000
 * lookups, not 10,000 x 10,000 comparisons. */
typedef struct tack_store {
    const char *path;
    const ap_directive_t *where; /* the first TackStore line naming it */
    const char *error;           /* the directory cannot be read, or NULL */
    /* The directory or some of its files writable by others, a file that
     * also holds a private key or break signatures: const char *, or NULL */
    apr_array_header_t *warnings;
    /* The directory or files owned by another user than root and
     * TackStoreOwner, or writable by others: refused under apache2 -t
     * (const char *, with the fix), warned about at a start. */
    apr_array_header_t *untrusted;
    int loaded;                  /* 0 in the discarded first pass of a start */
    int nfiles;                  /* TACK files served from it */
    int nduplicates;     /* files repeating another's TACK byte for byte */
    apr_hash_t *by_hash; /* target_hash (32 bytes) -> tack_item_t * */
    apr_array_header_t *files;    /* tack_file_t *, loaded, in name order */
    apr_array_header_t *bad;      /* tack_file_t *, malformed (->error) */
    apr_array_header_t *expired;  /* tack_file_t *, expired (->error) */
    apr_array_header_t *expiring; /* tack_item_t *, within 30 days */
    apr_hash_t *expired_by_hash;  /* target_hash -> tack_item_t * of an
                                   * expired file, or NULL */
} tack_store_t;

/* Per-server configuration.  AP_MODULE_FLAG_ALWAYS_MERGE gives every vhost
 * its own merged copy, so that every SSL_CTX gets its own callback argument
 * (see the SNI trap in mod_tack.c). */
typedef struct {
    /* The arrays are created by the first directive that needs them: most
     * vhosts of a large server have none, and each would cost ~80 bytes. */
    apr_array_header_t *files;        /* tack_file_t *, written here; NULL */
    apr_array_header_t *server_files; /* main server's: candidates; NULL */
    apr_array_header_t *sigfiles;     /* tack_sigfile_t *, own/inherited */
    size_t num_sigs;                  /* break signatures in own sigfiles */
    tack_store_t *store;              /* TackStore, own or inherited */
    int store_set;                    /* TackStore given here (maybe none) */
    int pin_activation;
    int format;
    int tls13;
    /* TackSigningKey (mod_tack_sign.c): a key file's resolved path or a
     * pkcs11: URI, "" for "none", NULL when unset; with the
     * TackSigningPassword source ("file:PATH", "exec:PATH", "env:NAME") and
     * TackSigningGeneration.  Each one inherits on its own. */
    const char *sign_key;
    const ap_directive_t *sign_key_where;
    const char *sign_pw;
    const ap_directive_t *sign_pw_where;
    int sign_min_gen, sign_gen; /* TACK_UNSET: 0 */
    const char *state_file;    /* TackStateFile (main server), or NULL */
    const char *store_owner;   /* TackStoreOwner (main server), or NULL */
    apr_array_header_t *lapse; /* TackLetPinsLapse TACK IDs, or NULL */
    int ssl_seen; /* ssl_init_server ran for it in this generation */
} tack_conf_t;

/* A certificate of a vhost and the TACKs chosen for it. */
typedef struct {
    uint8_t hash[TACK_HASH_LEN]; /* SHA-256 of its SubjectPublicKeyInfo */
    X509 *x509;                  /* mod_ssl's certificate; NULL under -t */
    const char *label;           /* for messages */
    const char *subject;         /* its subject (NULL under -t) */
    const char *key_type;        /* "RSA", "ECDSA"... (NULL under -t) */
    int ntacks;
    tack_item_t *tacks[TACK_EXT02_MAX_TACKS];
    /* With no TACK: an expired one for it, left out (the status page
     * counts it as expired, not as "no TACK"), or NULL. */
    const tack_item_t *lapsed;
} tack_certsel_t;

/* What a vhost serves, once every rule of the issue has been applied. */
typedef struct {
    int format;
    int pin_activation;
    int tls13;
    const tack_store_t *store;
    size_t nsigs;
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    const tack_sigfile_t *sigfiles[TACK_MAX_BREAKSIGS]; /* where each is from */
    unsigned char sigidx[TACK_MAX_BREAKSIGS]; /* its index in that file */
    int ncerts;
    tack_certsel_t *certs;
} tack_sel_t;

/* ---- what a handshake reads (built by mod_tack.c at start-up) ---------- */

/* The handshake counters of one certificate of one vhost.  They live in one
 * anonymous shared-memory segment created at post_config (see
 * mod_tack_status.c), so every child process and thread adds to the same
 * numbers, with relaxed atomic adds: no lock, no allocation. */
typedef struct {
    apr_uint64_t requested; /* full handshakes whose ClientHello asked */
    apr_uint64_t served;    /* of those, the ones that received a TACK */
} tack_ctr_t;

/* One prebuilt extension body; len 0 means "send nothing".  |served| lists
 * the key fingerprints of the TACKs it carries, space-separated, or is NULL
 * when it carries none: the value of the TACK_SERVED variable.  A
 * connection's conn_config slot points at the body it was answered with. */
typedef struct {
    const uint8_t *data;
    size_t len;
    const char *served;
} tack_body_t;

/* One certificate of a vhost and what goes out with it.  bodies[] (1 <<
 * ntacks of them, allocated by count) is indexed by the set of its TACKs
 * that are still unexpired (bit i: tacks[i]), so an expiry while the server
 * runs needs no rebuilding.  cert is NULL in the vhost's last slot, "a
 * certificate not in the table". */
typedef struct {
    X509 *cert; /* mod_ssl's, alive as long as this table */
    const char *key_type;
    int ntacks;
    apr_uint32_t expired_logged[TACK_EXT02_MAX_TACKS]; /* once per process */
    const tack_item_t *tacks[TACK_EXT02_MAX_TACKS];
    const tack_body_t *bodies;
    tack_ctr_t *ctr;
    const tack_item_t *lapsed; /* tack_certsel_t.lapsed */
} tack_slot_t;

/* tack_slot_subject writes the subject of |slot|'s certificate into |buf|
 * ("" for the last slot) and returns |buf|.  Computed when shown, not kept:
 * 30-odd bytes per vhost. */
#define TACK_SUBJECT_SIZE 256
const char *tack_slot_subject(const tack_slot_t *slot,
                              char buf[TACK_SUBJECT_SIZE]);

/* What one vhost's SSL_CTX serves: the add/parse callbacks' argument.
 * slots[nslots] stands for a certificate not in the table (no TACK, the
 * vhost's break signatures only). */
typedef struct tack_rt {
    server_rec *s; /* its name for log lines: tack_rt_name */
    int format;
    int pin_activation;
    int tls13;
    int registered; /* 0 when SSL_CTX_add_custom_ext failed */
    const tack_store_t *store;
    size_t nsigs;
    const char *const *sig_keys;  /* nsigs fingerprints */
    const char *const *sig_files; /* where each is from */
    int nslots;
    tack_slot_t *slots;
    /* Problems found at configuration time that the status page, its JSON
     * and the metrics show for this vhost (tack_status_problem_add); NULL
     * when none.  Never read in a handshake. */
    apr_array_header_t *problems;
} tack_rt_t;

/* The variables set on requests (post_read_request), for CGI, SSI, access
 * control and LogFormat "%{TACK_REQUESTED}e". */
#define TACK_ENV_REQUESTED "TACK_REQUESTED"
#define TACK_ENV_SERVED "TACK_SERVED"

/* mod_tack_status.c */

/* tack_status_add records |rt| (a vhost of this configuration generation)
 * for the counters and the status page. */
void tack_status_add(apr_pool_t *pconf, tack_rt_t *rt);

/* tack_ctr_unset is where every slot's counters point until post_config
 * hands out the real ones (no handshake runs before). */
extern tack_ctr_t tack_ctr_unset;

/* tack_status_post_config gives every recorded slot its counters in a new
 * shared-memory segment, carrying over the previous generation's values
 * (graceful restart); |ptemp| holds what only the hand-over needs.  Returns
 * OK (a failure only costs shared counters). */
int tack_status_post_config(apr_pool_t *pconf, apr_pool_t *ptemp,
                            server_rec *s);

/* tack_status_register_hooks registers the tack-status handler and the
 * section of mod_status's page. */
void tack_status_register_hooks(apr_pool_t *p);

/* A problem of a vhost, shown first on the status page, in the JSON
 * ("problems") and in the metrics (tack_vhost_problems{kind=...}). */
#define TACK_PROBLEM_ERROR 2   /* something is not served: red */
#define TACK_PROBLEM_WARNING 1 /* served, but will not be for long: amber */
typedef struct {
    int severity;        /* TACK_PROBLEM_ERROR or TACK_PROBLEM_WARNING */
    const char *kind;    /* a short [a-z_] word, the metrics' label */
    int slot;            /* the certificate (index in slots), or -1 */
    const char *message; /* a sentence naming what is wrong */
} tack_problem_t;

/* tack_status_problem_add records, at configuration time, a problem of the
 * vhost |rt| that the status page, the JSON and the metrics show with the
 * ones they find themselves (expired, expiring, no TACK, store): |kind| a
 * short word such as "pin_continuity" (a metrics label, [a-z_]), |slot|
 * the index of the certificate in rt->slots or -1 for the whole vhost,
 * |message| a sentence.  |kind| and |message| must live as long as |p|,
 * which must be the pool |rt| lives in (pconf). */
void tack_status_problem_add(apr_pool_t *p, tack_rt_t *rt, int severity,
                             const char *kind, int slot, const char *message);

/* What mod_tack_status.c shares with mod_tack_status_html.c and
 * mod_tack_metrics.c, the other parts of the tack-status handler. */

/* tack_status_vhosts returns the SSL vhosts of this generation in
 * configuration order (tack_rt_t *), or NULL when there are none. */
const apr_array_header_t *tack_status_vhosts(void);

/* tack_status_counters_since returns when counting started;
 * tack_status_counters_shared 1 when the counters are in shared memory. */
apr_time_t tack_status_counters_since(void);
int tack_status_counters_shared(void);

static inline apr_uint64_t tack_ctr_load(const apr_uint64_t *v)
{
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* tack_status_utf8 returns |s| as valid UTF-8 (tack_utf8_escape's rule):
 * |s| itself or a copy in |p|; NULL stays NULL. */
const char *tack_status_utf8(apr_pool_t *p, const char *s);

/* tack_status_hex returns |in| as lower-case hex, in |p|. */
const char *tack_status_hex(apr_pool_t *p, const uint8_t *in, size_t len);

/* tack_status_activates_pins returns 1 when |item| is served with pin
 * activation (TackPinActivation On and not "inactive"). */
int tack_status_activates_pins(const tack_rt_t *rt, const tack_item_t *item);

/* tack_status_problem_fn receives each problem of a vhost (|rt|, or NULL
 * for a store's problem, then with |store|).  |pr| and its strings live in
 * the pool given to tack_status_problems. */
typedef void tack_status_problem_fn(void *data, const tack_rt_t *rt,
                                    const tack_store_t *store,
                                    const tack_problem_t *pr);

/* tack_status_problems calls |fn| for each problem of |rt| at |now|, the
 * ones of severity |severity| only (0: all): expired TACKs, certificates
 * serving no TACK, the extension not registered, those recorded with
 * tack_status_problem_add, TACKs expiring within 30 days.  Returns how
 * many. */
int tack_status_problems(apr_pool_t *p, const tack_rt_t *rt, time_t now,
                         int severity, tack_status_problem_fn *fn, void *data);

/* tack_status_store_problems does the same for a TackStore: unreadable,
 * malformed files, expired files, warnings (writable by others...). */
int tack_status_store_problems(apr_pool_t *p, const tack_store_t *st,
                               int severity, tack_status_problem_fn *fn,
                               void *data);

/* tack_status_stores returns the distinct stores the vhosts use, in the
 * order the vhosts first name them (const tack_store_t *), in |p|. */
apr_array_header_t *tack_status_stores(apr_pool_t *p);

/* Totals over the whole server, for summaries (tack_status_totals). */
typedef struct {
    int vhosts;   /* SSL vhosts */
    int serving;  /* of them, serving at least one TACK */
    int tacks;    /* TACKs served, counting each (vhost, cert) */
    int expiring; /* of them, expiring within 30 days */
    int expired;  /* of them, expired (no longer served) */
    int errors;   /* problems of severity TACK_PROBLEM_ERROR */
    int warnings; /* and TACK_PROBLEM_WARNING (vhosts and stores) */
    const tack_item_t *soonest;
    const tack_rt_t *soonest_rt; /* the vhost serving it */
    apr_uint64_t requested, served;
} tack_totals_t;

/* tack_status_totals fills |t| at |now|; |p| holds scratch space only. */
void tack_status_totals(apr_pool_t *p, tack_totals_t *t, time_t now);

/* tack_status_format_name returns "draft-00" or "draft-02";
 * tack_status_days_left the days until |expires|, rounded down, negative
 * once expired; tack_status_iso_time |t| as "2026-12-03T07:39:47Z" in |p|. */
const char *tack_status_format_name(int format);
long tack_status_days_left(time_t expires, time_t now);
const char *tack_status_iso_time(apr_pool_t *p, apr_time_t t);

/* tack_status_json writes the JSON document (mod_tack_status_json.c);
 * tack_status_html writes the HTML page (mod_tack_status_html.c);
 * tack_status_metrics the Prometheus text format (mod_tack_metrics.c).
 * Both return OK. */
int tack_status_json(request_rec *r, time_t now);
int tack_status_html(request_rec *r, time_t now);
int tack_status_metrics(request_rec *r, time_t now);

/* mod_tack_config.c */
extern const command_rec tack_config_cmds[];
void *tack_config_create(apr_pool_t *p, server_rec *s);
void *tack_config_merge(apr_pool_t *p, void *basev, void *addv);

/* tack_config_get returns the (merged) configuration of |s|. */
tack_conf_t *tack_config_get(server_rec *s);

/* tack_config_strict returns 1 under "apache2 -t", where every problem is an
 * error, 0 at a real start or restart, where problems are logged and the
 * offending TACK or file is left out. */
int tack_config_strict(void);

/* tack_config_quiet returns 1 during the first of the two configuration
 * passes of an initial start, whose messages would only be repeated by the
 * second. */
int tack_config_quiet(void);

/* tack_vhost_name returns "name:port" for messages, allocated in pconf:
 * for configuration time.  tack_vhost_name_buf writes it into |buf| and
 * returns |buf|, for run time (nothing allocated, nothing kept per vhost);
 * tack_rt_name is the same for a runtime table. */
#define TACK_NAME_SIZE 300 /* a 255-byte host name, ':', a port */
const char *tack_vhost_name(server_rec *s);
const char *tack_vhost_name_buf(server_rec *s, char buf[TACK_NAME_SIZE]);
#define tack_rt_name(rt, buf) tack_vhost_name_buf((rt)->s, (buf))

/* The arrays of a tack_conf_t are NULL until a directive needs them. */
static inline int tack_nelts(const apr_array_header_t *a)
{
    return a ? a->nelts : 0;
}

static inline void *tack_elts(const apr_array_header_t *a)
{
    return a ? a->elts : NULL;
}

static inline int tack_key_equal(const uint8_t *a, const uint8_t *b)
{
    return CRYPTO_memcmp(a, b, TACK_KEY_LEN) == 0;
}

static inline const ap_directive_t *tack_where(cmd_parms *cmd)
{
    return cmd->directive;
}

/* mod_tack_load.c */

/* tack_config_pre_config starts a configuration pass: it rotates the cache
 * of verified signatures (see mod_tack_load.c). */
int tack_config_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp);

/* tack_config_vcache_prune ends a configuration pass: it forgets the
 * verified signatures this pass did not use. */
void tack_config_vcache_prune(server_rec *s);

/* tack_load_tackfile reads, decodes and verifies every TACK of |f|; returns
 * NULL or the reason nothing of the file may be served (|*expired| set when
 * that reason is only the expiration). */
const char *tack_load_tackfile(apr_pool_t *p, tack_file_t *f, int *expired);

/* tack_warning_add appends |warning| to |*list|, made in |p| when NULL. */
void tack_warning_add(apr_pool_t *p, apr_array_header_t **list,
                      const char *warning);

/* tack_writable returns a warning naming |directive| and |path| when the
 * file or directory can be written by its group or everyone, else NULL. */
const char *tack_writable(apr_pool_t *p, const char *directive,
                          const char *path);

/* tack_load_sigfile fills |f| from its file; returns NULL or the reason
 * none of its break signatures may be served. */
const char *tack_load_sigfile(apr_pool_t *p, tack_sigfile_t *f);

/* tack_item_name returns "TACK" or, in a pair file, "TACK 2 of 2". */
const char *tack_item_name(apr_pool_t *p, const tack_item_t *item);

/* mod_tack_store.c */

/* tack_store_get returns the store for directory |path|, reading it the
 * first time it is named in this generation. */
tack_store_t *tack_store_get(cmd_parms *cmd, const char *path);

/* tack_config_log_stores logs what each TackStore could not serve: at a
 * real start (after the hooks ran) and under -t.  Malformed files are
 * errors and count as problems; expired ones are warnings (skipped in both
 * modes); store TACKs that matched no certificate are reported at debug
 * level when |report_unmatched|.  Returns the number of problems. */
int tack_config_log_stores(server_rec *s_main, int report_unmatched);

/* mod_tack_resolve.c */

/* tack_config_resolve applies the configuration of |s| to its certificates
 * |certs| (|ncerts| of them; |certs_known| is 0 when they could not be
 * found, and then target hashes are not checked): picks the TACKs for each
 * certificate, the break signatures, the format and the activation flag,
 * into |out|.  Every problem is logged (at error level, unless quiet) and
 * what caused it left out.  Returns the number of problems. */
int tack_config_resolve(apr_pool_t *p, server_rec *s, tack_conf_t *conf,
                        tack_certsel_t *certs, int ncerts, int certs_known,
                        tack_sel_t *out);

/* tack_config_log_load_errors logs, at a real start, the files that could
 * not be loaded; tack_config_check_unmatched logs server-level TACKs that
 * matched no certificate.  Both return the number of problems. */
int tack_config_log_load_errors(server_rec *s_main);

/* tack_config_log_warnings logs, once per pass, what is served but must be
 * heard of (tack_file_t.warnings, tack_sigfile_t.warning); returns how many
 * lines it logged.  Never a problem: warnings do not refuse a
 * configuration. */
int tack_config_log_warnings(server_rec *s_main);
int tack_config_check_unmatched(server_rec *s_main);

/* tack_config_warn_expiry logs a warning for a TACK of |sel| that expires
 * within TACK_EXPIRY_WARN_SECS, unless its certificate ends first. */
void tack_config_warn_expiry(server_rec *s, const tack_sel_t *sel);

/* tack_own_directives returns 1 when |s| has TackFile or TackBreakSigsFile
 * lines of its own (not inherited from the server config). */
int tack_own_directives(server_rec *s, const tack_conf_t *conf);

/* tack_config_warn_partial warns when a vhost with several certificates
 * has a TACK for only some of them (most clients negotiate ECDSA). */
void tack_config_warn_partial(server_rec *s, const tack_conf_t *conf,
                              const tack_sel_t *sel);

/* tack_cert_not_after returns the end of |x509|'s validity, or 0. */
time_t tack_cert_not_after(X509 *x509);

/* tack_config_mark_cert_bound sets ends_with_cert on each TACK of |sel|
 * whose certificate expires no later than it (real start: certificates
 * known). */
void tack_config_mark_cert_bound(const tack_sel_t *sel);

/* tack_duration returns "12 days", "5 hours", "3 minutes": how long until
 * |secs| have passed, allocated in |p|. */
const char *tack_duration(apr_pool_t *p, long secs);

/* mod_tack_load.c, for the other loaders */

/* tack_read_text reads |path| for |directive| into a malloc'd |*text|;
 * returns NULL, or why it cannot be read. */
const char *tack_read_text(apr_pool_t *p, const char *directive,
                           const char *path, char **text, size_t *len);

/* tack_pem_error says why |path| gave |st| when decoding |label| blocks of
 * |size| bytes (at |line| when not 0). */
const char *tack_pem_error(apr_pool_t *p, const char *directive,
                           const char *path, tack_status_t st, unsigned line,
                           const char *label, size_t size);

/* mod_tack_sign.c */

/* The sources TackSigningPassword accepts, checked when it is read. */
const char *tack_sign_pw_syntax(apr_pool_t *p, const char *arg);

/* tack_sign_register_hooks registers the child_init hook that wipes env:
 * passwords from every httpd child's environment. */
void tack_sign_register_hooks(apr_pool_t *p);

/* tack_sign_vhost signs, with the vhost's TackSigningKey, a TACK for each
 * certificate of |sel| that has none, and anew a TACK under that key that
 * expires within 30 days, and writes each into the vhost's TackStore when
 * the parent can write there.  Real start only (not in the quiet pass);
 * what it signs is allocated in |p| (the configuration pool) and put in
 * |sel|.  Problems are logged. */
void tack_sign_vhost(apr_pool_t *p, server_rec *s, const tack_conf_t *conf,
                     tack_sel_t *sel);

/* tack_sign_check loads, under "apache2 -t", every key TackSigningKey
 * names, and returns the number that cannot be used (each logged with its
 * directive, file or URI, and reason). */
int tack_sign_check(apr_pool_t *ptemp, server_rec *s_main);

/* tack_sign_end reports what was signed in this pass (info) and frees and
 * wipes every signing key: none outlives the configuration pass. */
void tack_sign_end(server_rec *s_main);

/* tack_sign_public returns the public key of |conf|'s TackSigningKey,
 * loading it if needed, or NULL when there is none or it cannot be used. */
const uint8_t *tack_sign_public(server_rec *s, const tack_conf_t *conf);

/* mod_tack_guard.c */

/* tack_guard_note records what |sel| (the vhost |s|) is about to serve,
 * for the guard and the memory; nothing when the vhost has no pin
 * activation and nothing is remembered of it. */
struct tack_rt;
void tack_guard_note(server_rec *s, const tack_conf_t *conf,
                     const tack_sel_t *sel, struct tack_rt *rt);

/* tack_guard_recover serves again, for a certificate of |sel| left
 * without it, the TACK the memory holds under a key whose pins can still
 * be active, when a TackFile or TackStore file of the vhost failed to load
 * in this pass and that TACK is still valid for the certificate (a file
 * broken between the configuration test and a restart must not cut
 * pinned clients off).  Real start only; logged as an error. */
void tack_guard_recover(apr_pool_t *p, server_rec *s, const tack_conf_t *conf,
                        tack_sel_t *sel);

/* tack_guard_pinned returns until when clients can hold an active pin on
 * |key| for a name |s| answers (its |key_type| certificate), or 0: what
 * TackSigningKey keeps served against a TACK under another key. */
long tack_guard_pinned(server_rec *s, const tack_conf_t *conf,
                       const char *key_type, const uint8_t *key);

/* tack_guard_state_path returns TackStateFile's path followed by |suffix|
 * (a file kept beside it). */
const char *tack_guard_state_path(apr_pool_t *p, const char *suffix);

/* tack_guard_remembers returns 1 when the memory holds TACK keys served by
 * the vhost |s| (under -t: its certificates must be looked at). */
int tack_guard_remembers(server_rec *s);

/* tack_guard_check logs every certificate that would be served without a
 * TACK under a key its clients may still have pinned; returns the number
 * that refuse the configuration (under -t; expiry is only a warning). */
int tack_guard_check(server_rec *s_main);

/* tack_guard_end writes what this pass serves into the memory (real start
 * only) and forgets the pass. */
void tack_guard_end(server_rec *s_main);

/* mod_tack_configtest.c */

/* tack_config_check is the check_config hook: under "apache2 -t" it
 * resolves every server's TACKs against the certificates its
 * SSLCertificateFile lines name, and refuses the configuration when
 * anything is wrong.  Returns OK or HTTP_INTERNAL_SERVER_ERROR. */
int tack_config_check(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                      server_rec *s);

#endif /* MOD_TACK_H */
