/*
 * mod_tack.h -- declarations private to the module: what mod_tack.c (hooks,
 * OpenSSL callbacks, the bytes served) and mod_tack_config.c (directives,
 * file loading, matching TACKs to certificates) share.  Not an API: the
 * module exports nothing but tack_module, and every name here is hidden.
 *
 * Log tags: every ap_log_* call site carries its own "TACKnnnnn: " tag,
 * never reused.  mod_tack_config.c uses TACK00001-TACK00049, mod_tack.c
 * TACK00050-TACK00099.
 */
#ifndef MOD_TACK_H
#define MOD_TACK_H

#include "httpd.h"
#include "http_config.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "tack_ext.h"

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

struct tack_file;

/* One TACK of a TackFile, verified (signature, generation, expiry) when the
 * directive was read. */
typedef struct {
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
} tack_item_t;

/* One TackFile directive. */
typedef struct tack_file {
    server_rec *s;     /* the context it was written in */
    const char *path;  /* resolved against ServerRoot */
    const char *where; /* "conf/file.conf:12" */
    int inactive;      /* "TackFile FILE inactive" */
    int server_level;  /* outside any <VirtualHost> */
    const char *error; /* why none of it is served (real start), or NULL */
    int nitems;
    tack_item_t items[TACK_EXT02_MAX_TACKS];
} tack_file_t;

/* One TackBreakSigsFile directive. */
typedef struct {
    server_rec *s;
    const char *path;
    const char *where;
    const char *error; /* why none of it is served, or NULL */
    size_t num;
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    char fingerprints[TACK_MAX_BREAKSIGS][TACK_FINGERPRINT_SIZE];
} tack_sigfile_t;

/* Per-server configuration.  AP_MODULE_FLAG_ALWAYS_MERGE gives every vhost
 * its own merged copy, so that every SSL_CTX gets its own callback argument
 * (see the SNI trap in mod_tack.c). */
typedef struct {
    apr_array_header_t *files;        /* tack_file_t *, written here */
    apr_array_header_t *server_files; /* main server's: candidates */
    apr_array_header_t *sigfiles;     /* tack_sigfile_t *, own or inherited */
    size_t num_sigs;                  /* break signatures in own sigfiles */
    int pin_activation;
    int format;
    int tls13;
} tack_conf_t;

/* A certificate of a vhost and the TACKs chosen for it. */
typedef struct {
    uint8_t hash[TACK_HASH_LEN]; /* SHA-256 of its SubjectPublicKeyInfo */
    X509 *x509;                  /* mod_ssl's certificate; NULL under -t */
    const char *label;           /* for messages */
    int ntacks;
    tack_item_t *tacks[TACK_EXT02_MAX_TACKS];
} tack_certsel_t;

/* What a vhost serves, once every rule of the issue has been applied. */
typedef struct {
    int format;
    int pin_activation;
    size_t nsigs;
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    const tack_sigfile_t *sigfiles[TACK_MAX_BREAKSIGS]; /* where each is from */
    int ncerts;
    tack_certsel_t *certs;
} tack_sel_t;

/* mod_tack_config.c */
extern const command_rec tack_config_cmds[];
void *tack_config_create(apr_pool_t *p, server_rec *s);
void *tack_config_merge(apr_pool_t *p, void *basev, void *addv);
int tack_config_check(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                      server_rec *s);

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

/* tack_vhost_name returns "name:port" for messages. */
const char *tack_vhost_name(server_rec *s);

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
int tack_config_check_unmatched(server_rec *s_main);

/* tack_config_warn_expiry logs a warning for a TACK of |sel| that expires
 * within TACK_EXPIRY_WARN_SECS. */
void tack_config_warn_expiry(server_rec *s, const tack_sel_t *sel);

#endif /* MOD_TACK_H */
