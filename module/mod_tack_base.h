/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_base.h -- what every file of the module needs: the module
 * record, the configuration of a server (mt_conf_get), the two regimes
 * (mt_strict, mt_quiet), names for messages and small helpers, all in
 * mod_tack_base.c, which calls no other file of the module.
 *
 * The module's headers follow its layers (docs/contributing.md,
 * "Architecture"): this one; mod_tack_model.h, the configuration-time
 * model's types, and a header per model file for its functions
 * (mod_tack_load.h ... mod_tack_config.h); mod_tack_runtime.h, the table
 * a handshake reads; mod_tack_status.h, the status page's internals;
 * mod_tack_setup.h, the pass.  A file includes the headers of the files
 * it uses, never one above it (t/apache/layers.t).  Module
 * functions and types are mt_*; the core library's are tack_* (tack_*.h).
 *
 * Log tags: every ap_log_* call site carries its own "TACKnnnnn: " tag,
 * never reused; each is listed with its level and meaning in
 * docs/log-tags.md (t/apache/docs.t checks both ways).
 */
#ifndef MOD_TACK_BASE_H
#define MOD_TACK_BASE_H

#include "httpd.h"
#include "http_config.h"
#include "apr_hash.h"

#include <sys/stat.h>

#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/* The core's types, sizes and codec; each file includes the other core
 * headers it uses itself. */
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

/* The types the bottom layer passes around without looking inside. */
typedef struct mt_conf mt_conf_t;   /* mod_tack_model.h */
typedef struct mt_file mt_file_t;   /* mod_tack_model.h */
typedef struct mt_item mt_item_t;   /* mod_tack_model.h */
typedef struct mt_store mt_store_t; /* mod_tack_model.h */
typedef struct mt_pending mt_pending_t; /* mod_tack_signer.h: a certificate
                                        * queued for the background */

/* The module's state has two owners, by lifetime (docs/contributing.md):
 *
 *  - mt_gen_t, one configuration generation: made in pre_config, in pconf,
 *    and gone with it.  Each file's part is a member of the file's own
 *    type (opaque here), made by that file when it first needs it, and
 *    dropped by it (NULL) when its part ends sooner (the guard's, at the
 *    end of the pass).  The background process and httpd's children see
 *    the generation they were forked in.
 *  - mt_proc_t, the httpd process: what deliberately outlives a
 *    generation, kept in the process pool (the module itself is unloaded
 *    and loaded again at every restart, its statics with it).
 *
 * Nothing else of the module lives at file scope but constants and a
 * signal handler's process group. */
typedef struct {
    apr_pool_t *pconf;
    struct mt_stores *stores;   /* mod_tack_store.c: every TackStore named */
    struct mt_memory *memory;   /* mod_tack_memory.c: TackStateFile's */
    struct mt_guard *guard;     /* mod_tack_guard.c: this pass's notes */
    struct mt_signers *signers; /* mod_tack_signer.c: the signers */
    struct mt_sign_gen *sign;   /* mod_tack_sign.c: the pass's queue */
    struct mt_md *md;           /* mod_tack_md.c: mod_md's staging */
    struct mt_bg *background;   /* mod_tack_background.c: its process
                                 * and segment */
    struct mt_status *status;   /* mod_tack_status.c: the tables, counters */
} mt_gen_t;

typedef struct {
    struct mt_vcache *vcache;     /* mod_tack_load.c: signatures verified */
    struct mt_bg_proc *background; /* mod_tack_background.c: since when
                                   * each certificate waits, restarts */
    struct mt_ctrgen *counters;   /* mod_tack_status.c: the last
                                   * generation's counters, carried over */
} mt_proc_t;

/* mt_gen_start makes the generation of |pconf| (pre_config); mt_gen
 * returns the current one (made from the main server's pconf if pre_config
 * has not run); mt_proc returns the process's, made the first time. */
void mt_gen_start(apr_pool_t *pconf);
mt_gen_t *mt_gen(void);
mt_proc_t *mt_proc(void);

/* mt_conf_get returns the (merged) configuration of |s|. */
mt_conf_t *mt_conf_get(server_rec *s);

/* mt_strict returns 1 under "apache2 -t", where every problem is an
 * error, 0 at a real start or restart, where problems are logged and the
 * offending TACK or file is left out. */
int mt_strict(void);

/* mt_quiet returns 1 during the first of the two configuration
 * passes of an initial start, whose messages would only be repeated by the
 * second. */
int mt_quiet(void);

/* mt_vhost_name returns "name:port" for messages, allocated in pconf:
 * for configuration time.  mt_vhost_name_buf writes it into |buf| and
 * returns |buf|, for run time (nothing allocated, nothing kept per vhost). */
#define TACK_NAME_SIZE 300 /* a 255-byte host name, ':', a port */
const char *mt_vhost_name(server_rec *s);
const char *mt_vhost_name_buf(server_rec *s, char buf[TACK_NAME_SIZE]);

/* The arrays of a mt_conf_t are NULL until a directive needs them. */
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

/* mt_openssl_log logs, at error level, each error on OpenSSL's queue for
 * the vhost |s|, after |what| was attempted, and empties the queue. */
void mt_openssl_log(server_rec *s, const char *what);

/* mt_warning_add appends |warning| to |*list|, made in |p| when NULL. */
void mt_warning_add(apr_pool_t *p, apr_array_header_t **list,
                    const char *warning);

/* mt_read_text reads |path| for |directive| into a malloc'd |*text|;
 * returns NULL, or why it cannot be read. */
const char *mt_read_text(apr_pool_t *p, const char *directive, const char *path,
                         char **text, size_t *len);

/* mt_read_text_at reads the file |name| of the directory |dirfd| (|path|,
 * for messages) like mt_read_text, never through a symbolic link and never
 * blocking (tack_file_read_at), and fills |*sb| with what it read. */
const char *mt_read_text_at(apr_pool_t *p, const char *directive, int dirfd,
                            const char *name, const char *path, char **text,
                            size_t *len, struct stat *sb);

/* mt_pem_error says why |path| gave |st| when decoding |label| blocks of
 * |size| bytes (at |line| when not 0). */
const char *mt_pem_error(apr_pool_t *p, const char *directive, const char *path,
                         tack_status_t st, unsigned line, const char *label,
                         size_t size);

/* mt_duration returns "12 days", "5 hours", "3 minutes": how long until
 * |secs| have passed, allocated in |p|. */
const char *mt_duration(apr_pool_t *p, long secs);

/* mt_ms_now: CLOCK_MONOTONIC in milliseconds; mt_ms_left: the
 * milliseconds left until |deadline| (on that clock), at least 0. */
long mt_ms_now(void);
int mt_ms_left(long deadline);

/* mt_hex returns |in| as lower-case hex, in |p|. */
const char *mt_hex(apr_pool_t *p, const uint8_t *in, size_t len);

#define TACK_SUBJECT_SIZE 256 /* a certificate's subject, for people */

/* One prebuilt extension body; len 0 means "send nothing".  |served| lists
 * the key fingerprints of the TACKs it carries, space-separated, or is NULL
 * when it carries none: the value of the TACK_SERVED variable.  A
 * connection's conn_config slot points at the body it was answered with. */
typedef struct {
    const uint8_t *data;
    size_t len;
    const char *served;
} mt_body_t;

/* mt_answer_encode encodes into |buf| the extension body that carries
 * the |n| TACKs |tacks| and, in draft-00, the |nsigs| break signatures
 * |sigs|: in draft-00 the first TACK only (or none), its activation flag
 * |pin_activation| unless inactive[0]; in -02 every TACK, each activated
 * unless inactive[i].  *len is 0 when there is nothing to send (-02
 * without a TACK, draft-00 without a TACK or a break signature).  The one
 * encoder of the prebuilt bodies (mod_tack_handshake.c) and of those
 * published after a signature in the background (mod_tack_background.c). */
#define MT_ANSWER_MAX                                                          \
    (TACK_EXT00_MAX_LEN > TACK_EXT02_MAX_LEN ? TACK_EXT00_MAX_LEN              \
                                             : TACK_EXT02_MAX_LEN)
tack_status_t mt_answer_encode(int format, int pin_activation,
                               const tack_t *const *tacks,
                               const unsigned char *inactive, int n,
                               const tack_breaksig_t *sigs, size_t nsigs,
                               uint8_t buf[MT_ANSWER_MAX], size_t *len);

#endif /* MOD_TACK_BASE_H */
