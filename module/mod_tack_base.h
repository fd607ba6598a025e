/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_base.h -- the bottom of the module (mod_tack_base.c). */
#ifndef MOD_TACK_BASE_H
#define MOD_TACK_BASE_H

#include "httpd.h"
#include "http_config.h"
#include "apr_hash.h"

#include <sys/stat.h>

#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "tack_ext.h"

/* The tool's name in the log's hints (tacktool in Debian's package). */
#ifndef TACK_PROG
#define TACK_PROG "tack"
#endif

/* The one symbol the shared object exports (-fvisibility=hidden). */
#define TACK_EXPORT __attribute__((visibility("default")))

extern module TACK_EXPORT AP_MODULE_DECLARE_DATA tack_module;

#define TACK_UNSET (-1)

/* A TACK about to be served that expires within this is warned about. */
#define TACK_EXPIRY_WARN_SECS (30L * 24 * 60 * 60)

/* "(" TACK_WHERE_FMT ")" with TACK_WHERE(d) gives "(conf/file.conf:12)". */
#define TACK_WHERE_FMT "%s:%d"
#define TACK_WHERE(d) ((d) ? (d)->filename : "?"), ((d) ? (d)->line_num : 0)

/* Types passed through the bottom layer unopened (mod_tack_model.h). */
typedef struct mt_conf mt_conf_t;
typedef struct mt_file mt_file_t;
typedef struct mt_item mt_item_t;
typedef struct mt_store mt_store_t;
typedef struct mt_pending mt_pending_t;

/* One configuration generation, in pconf: each member one file's part. */
typedef struct {
    apr_pool_t *pconf;
    struct mt_sigloads *sigloads; /* mod_tack_load.c */
    struct mt_stores *stores;     /* mod_tack_store.c */
    struct mt_memory *memory;     /* mod_tack_memory.c */
    struct mt_guard *guard;       /* mod_tack_guard.c */
    struct mt_signers *signers;   /* mod_tack_signer.c */
    struct mt_sign_gen *sign;     /* mod_tack_sign.c */
    struct mt_md *md;             /* mod_tack_md.c */
    struct mt_bg *background;     /* mod_tack_background.c */
    struct mt_status *status;     /* mod_tack_status.c */
} mt_gen_t;

/* Where TackStateFile is when the configuration says nothing: a persistent
 * directory (not the runtime directory, a tmpfs wiped at every boot). */
#define MT_STATE_DEFAULT "/var/lib/apache2/tack/state.json"

/* What outlives a generation, in the process pool. */
typedef struct {
    struct mt_vcache *vcache;      /* mod_tack_load.c */
    struct mt_bg_proc *background; /* mod_tack_background.c */
    struct mt_ctrgen *counters;    /* mod_tack_status.c */
} mt_proc_t;

/* mt_gen_start makes the generation of |pconf| (pre_config), and the
 * process's part in |pproc| the first time; mt_gen and mt_proc return
 * them (used before pre_config: a bug, logged, and the process aborts). */
void mt_gen_start(apr_pool_t *pconf, apr_pool_t *pproc);
mt_gen_t *mt_gen(void);
mt_proc_t *mt_proc(void);

/* mt_conf_get returns the (merged) configuration of |s|. */
mt_conf_t *mt_conf_get(server_rec *s);

/* mt_strict returns 1 under "apache2 -t" (every problem an error), 0 at
 * a real start; mt_quiet 1 in the first, discarded pass of a start. */
int mt_strict(void);
int mt_quiet(void);

/* mt_vhost_name returns "name:port" for messages, in pconf;
 * mt_vhost_name_buf writes it into |buf| and returns it, for run time. */
#define TACK_NAME_SIZE 300 /* a 255-byte host name, ':', a port */
const char *mt_vhost_name(server_rec *s);
const char *mt_vhost_name_buf(server_rec *s, char buf[TACK_NAME_SIZE]);

/* A mt_conf_t's arrays are NULL until a directive needs them. */
static inline int mt_nelts(const apr_array_header_t *a)
{
    return a ? a->nelts : 0;
}

static inline void *mt_elts(const apr_array_header_t *a)
{
    return a ? a->elts : NULL;
}

static inline int mt_key_equal(const uint8_t *a, const uint8_t *b)
{
    return CRYPTO_memcmp(a, b, TACK_KEY_LEN) == 0;
}

static inline const ap_directive_t *mt_where(cmd_parms *cmd)
{
    return cmd->directive;
}

/* mt_openssl_log logs each error on OpenSSL's queue for the vhost |s|,
 * after |what| was attempted, and empties the queue. */
void mt_openssl_log(server_rec *s, const char *what);

/* mt_pool_apart makes a subpool of |parent| with an allocator of its own,
 * tagged |tag|: what a pass holds only for a while (the memory, the guard)
 * goes back to malloc when it is destroyed, not to the free lists httpd's
 * allocator keeps for good. */
apr_pool_t *mt_pool_apart(apr_pool_t *parent, const char *tag);

/* mt_warning_add appends |warning| to |*list|, made in |p| when NULL. */
void mt_warning_add(apr_pool_t *p, apr_array_header_t **list,
                    const char *warning);

/* mt_read_text reads |path| for |directive| into |*text| (malloc'd: the
 * caller frees it); returns NULL, or why it cannot be read. */
const char *mt_read_text(apr_pool_t *p, const char *directive, const char *path,
                         char **text, size_t *len);

/* mt_read_text_at reads |name| in |dirfd| (|path| for messages) like
 * mt_read_text, never through a symbolic link, and fills |*sb|. */
const char *mt_read_text_at(apr_pool_t *p, const char *directive, int dirfd,
                            const char *name, const char *path, char **text,
                            size_t *len, struct stat *sb);

/* mt_pem_error says why |path| gave |st| when decoding |label| blocks of
 * |size| bytes (at |line| when not 0). */
const char *mt_pem_error(apr_pool_t *p, const char *directive, const char *path,
                         tack_status_t st, unsigned line, const char *label,
                         size_t size);

/* mt_duration returns |secs| for people ("12 days", "5 hours"), in |p|. */
const char *mt_duration(apr_pool_t *p, long secs);

/* mt_ms_now returns CLOCK_MONOTONIC in milliseconds; mt_ms_left the
 * milliseconds left until |deadline| on that clock, at least 0. */
long mt_ms_now(void);
int mt_ms_left(long deadline);

/* mt_hex returns |in| as lower-case hex, in |p|. */
const char *mt_hex(apr_pool_t *p, const uint8_t *in, size_t len);

#define TACK_SUBJECT_SIZE 256 /* a certificate's subject, for people */

/* A prebuilt extension body (len 0: send nothing) and the fingerprints of
 * the TACKs it carries (TACK_SERVED; NULL for none). */
typedef struct {
    const uint8_t *data;
    size_t len;
    const char *served;
} mt_body_t;

#endif /* MOD_TACK_BASE_H */
