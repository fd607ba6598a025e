/*
 * mod_tack_config.c -- the module's configuration: directives, per-server
 * create/merge, loading and verifying TACK and break-signature files, and
 * matching TACKs to a vhost's certificates.
 *
 * Two regimes (see docs and the facts file):
 *  - under "apache2 -t" (and so apache2ctl configtest/graceful/restart) every
 *    problem is an error and the test fails, so a bad edit never reaches a
 *    running server;
 *  - at a real start or restart a problem is logged and only what caused it
 *    is left out: a directive that fails during a restart makes httpd exit,
 *    which would take every site down for one expired TACK.
 * Certificates are known to mod_ssl only after the directives have been read:
 * at a real start they are matched in the ssl_init_server hook (mod_tack.c);
 * under -t, where that hook does not run, tack_config_check finds each vhost's
 * SSLCertificateFile lines in the configuration tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "apr_file_info.h"
#include "apr_strings.h"

#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/objects.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "mod_tack.h"

APLOG_USE_MODULE(tack);

/* ---- small helpers ------------------------------------------------------- */

int tack_config_strict(void)
{
    return ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_CONFIG_TEST;
}

int tack_config_quiet(void)
{
    /* httpd reads its configuration twice when it first starts; the first
     * pass (AP_SQ_MS_CREATE_PRE_CONFIG) would log everything twice.  Under
     * -t that first pass is the only one. */
    return !tack_config_strict() &&
           ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG;
}

const char *tack_vhost_name_buf(server_rec *s, char buf[TACK_NAME_SIZE])
{
    apr_port_t port = s->port;

    if (!port && s->addrs) {
        port = s->addrs->host_port;
    }
    apr_snprintf(buf, TACK_NAME_SIZE, "%s:%u",
                 s->server_hostname ? s->server_hostname : "(unnamed)",
                 (unsigned)port);
    return buf;
}

const char *tack_vhost_name(server_rec *s)
{
    char buf[TACK_NAME_SIZE];

    return apr_pstrdup(s->process->pconf, tack_vhost_name_buf(s, buf));
}

tack_conf_t *tack_config_get(server_rec *s)
{
    return ap_get_module_config(s->module_config, &tack_module);
}

/* The arrays of a tack_conf_t are NULL until a directive needs them. */
static int tack_nelts(const apr_array_header_t *a)
{
    return a ? a->nelts : 0;
}

static void *tack_elts(const apr_array_header_t *a)
{
    return a ? a->elts : NULL;
}

static int tack_key_equal(const uint8_t *a, const uint8_t *b)
{
    return CRYPTO_memcmp(a, b, TACK_KEY_LEN) == 0;
}

/* "TACK 2 of 2 " when a file holds several, "" otherwise. */
static const char *tack_item_name(apr_pool_t *p, const tack_item_t *item)
{
    if (item->file->nitems < 2) {
        return "TACK";
    }
    return apr_psprintf(p, "TACK %u of %d", item->index, item->file->nitems);
}

/* ---- loading files (at directive time) ----------------------------------- */

/* tack_read_text reads |path| for |directive|; returns an error message or
 * NULL with |*text| malloc'd (the caller frees it). */
static const char *tack_read_text(apr_pool_t *p, const char *directive,
                                  const char *path, char **text, size_t *len)
{
    tack_status_t st = tack_file_read(path, TACK_FILE_MAX_DEFAULT, text, len);

    if (st == TACK_ERR_IO) {
        return apr_psprintf(p, "%s %s: cannot read file: %s", directive, path,
                            strerror(errno));
    }
    if (st != TACK_OK) {
        return apr_psprintf(p, "%s %s: cannot read file: %s", directive, path,
                            tack_status_str(st));
    }
    return NULL;
}

static const char *tack_pem_error(apr_pool_t *p, const char *directive,
                                  const char *path, tack_status_t st,
                                  unsigned line, const char *label, size_t size)
{
    const char *reason = tack_status_str(st);

    if (st == TACK_ERR_PEM_NO_BLOCK || st == TACK_ERR_PEM_WRONG_LABEL) {
        reason = apr_psprintf(p, "no \"%s\" PEM block (%s)", label, reason);
    } else if (st == TACK_ERR_BAD_LENGTH) {
        reason = apr_psprintf(
            p, "%s: a \"%s\" block must hold %" APR_SIZE_T_FMT " bytes", reason,
            label, size);
    }
    if (line) {
        return apr_psprintf(p, "%s %s: line %u: %s", directive, path, line,
                            reason);
    }
    return apr_psprintf(p, "%s %s: %s", directive, path, reason);
}

/* ---- signatures already verified ------------------------------------- */

/* Signatures verified in this process, keyed by the SHA-256 of the exact
 * bytes of the signed object (a 166-byte TACK, a 128-byte break
 * signature): only a successful verification is remembered, and the key
 * covers every signed byte, so a hit is as good as verifying again.  httpd
 * reads its configuration twice at start-up and again at every graceful
 * restart, and a provider's vhosts share break-signature files and TACK keys:
 * without this, start-up re-verified every ECDSA signature several times over
 * (bench/findings.md).
 *
 * The cache hangs off the process pool's userdata, not a static: httpd
 * unloads and reloads the module between configuration passes.  One table,
 * each entry stamped with the last pass that used it: tack_config_pre_config
 * starts a pass, tack_config_vcache_prune drops what the finished pass did
 * not use (its entries are reused).  So a restart finds the previous pass's
 * signatures, and memory stays bounded by one configuration's TACKs: about
 * 90 bytes a TACK, where two generations of tables cost twice that at the
 * peak of every start (bench/findings.md, memory). */
typedef struct tack_vent {
    union {
        uint8_t digest[SHA256_DIGEST_LENGTH]; /* in the table */
        struct tack_vent *next;               /* on the free list */
    } u;
    apr_uint32_t pass; /* the last pass that used it */
} tack_vent_t;

typedef struct {
    apr_pool_t *pool;
    apr_hash_t *seen; /* digest -> tack_vent_t * */
    tack_vent_t *free;
    apr_uint32_t pass;
} tack_vcache_t;

#define TACK_VCACHE_KEY "mod_tack:verified"

static tack_vcache_t *tack_vcache_get(apr_pool_t *pproc)
{
    tack_vcache_t *vc = NULL;

    apr_pool_userdata_get((void **)&vc, TACK_VCACHE_KEY, pproc);
    if (vc == NULL) {
        vc = apr_pcalloc(pproc, sizeof(*vc));
        apr_pool_create(&vc->pool, pproc);
        apr_pool_tag(vc->pool, "mod_tack_verified");
        vc->seen = apr_hash_make(vc->pool);
        apr_pool_userdata_set(vc, TACK_VCACHE_KEY, apr_pool_cleanup_null,
                              pproc);
    }
    return vc;
}

int tack_config_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp)
{
    /* pconf is a child of the process pool (httpd's init_process) */
    tack_vcache_get(apr_pool_parent_get(pconf))->pass++;
    return OK;
}

void tack_config_vcache_prune(server_rec *s)
{
    tack_vcache_t *vc = tack_vcache_get(s->process->pool);
    apr_hash_index_t *hi;

    /* Deleting the current entry while iterating is allowed by APR. */
    for (hi = apr_hash_first(NULL, vc->seen); hi; hi = apr_hash_next(hi)) {
        tack_vent_t *e = apr_hash_this_val(hi);

        if (e->pass != vc->pass) {
            apr_hash_set(vc->seen, e->u.digest, sizeof(e->u.digest), NULL);
            e->u.next = vc->free;
            vc->free = e;
        }
    }
}

/* tack_vcache_verify returns TACK_OK when |bytes| were verified before in
 * this pass or the previous one, and otherwise runs |verify| on |obj| and
 * remembers a success. */
static tack_status_t tack_vcache_verify(server_rec *s, const uint8_t *bytes,
                                        size_t len,
                                        tack_status_t (*verify)(const void *),
                                        const void *obj)
{
    tack_vcache_t *vc = tack_vcache_get(s->process->pool);
    uint8_t digest[SHA256_DIGEST_LENGTH];
    unsigned int dlen = 0;
    tack_status_t st;
    tack_vent_t *e;

    /* Keyed by SHA-256 of the signed object's bytes: 32 bytes an entry
     * instead of 166, and a collision would need a SHA-256 collision. */
    if (!EVP_Digest(bytes, len, digest, &dlen, EVP_sha256(), NULL)) {
        ERR_clear_error();
        st = verify(obj);
        ERR_clear_error();
        return st;
    }
    e = apr_hash_get(vc->seen, digest, sizeof(digest));
    if (e != NULL) {
        e->pass = vc->pass;
        return TACK_OK;
    }
    st = verify(obj);
    ERR_clear_error();
    if (st != TACK_OK) {
        return st;
    }
    if (vc->free) {
        e = vc->free;
        vc->free = e->u.next;
    } else {
        e = apr_palloc(vc->pool, sizeof(*e));
    }
    memcpy(e->u.digest, digest, sizeof(digest));
    e->pass = vc->pass;
    apr_hash_set(vc->seen, e->u.digest, sizeof(e->u.digest), e);
    return TACK_OK;
}

static tack_status_t tack_verify_tack(const void *obj)
{
    return tack_verify(obj);
}

static tack_status_t tack_verify_breaksig(const void *obj)
{
    return tack_breaksig_verify(obj);
}

/* tack_validate_cached is tack_validate(tack, NULL, now) with the signature
 * check answered from the cache when it can be. */
static tack_status_t tack_validate_cached(server_rec *s, const tack_t *tack,
                                          time_t now)
{
    uint8_t wire[TACK_LEN];
    tack_status_t st;

    tack_encode(tack, wire);
    st = tack_vcache_verify(s, wire, sizeof(wire), tack_verify_tack, tack);
    if (st == TACK_OK) {
        st = tack_check_generation(tack);
    }
    if (st == TACK_OK) {
        st = tack_check_expiration(tack, now);
    }
    return st;
}

static tack_status_t tack_breaksig_verify_cached(server_rec *s,
                                                 const tack_breaksig_t *sig)
{
    uint8_t wire[TACK_BREAKSIG_LEN];

    tack_breaksig_encode(sig, wire);
    return tack_vcache_verify(s, wire, sizeof(wire), tack_verify_breaksig, sig);
}

/* tack_load_tackfile reads, decodes and verifies every TACK of |f|: the
 * checks a client runs that need no certificate (signature, generation,
 * expiration).  Returns NULL or the reason nothing of the file may be
 * served; |*expired| is set when that reason is only the expiration. */
static const char *tack_load_tackfile(apr_pool_t *p, tack_file_t *f,
                                      int *expired)
{
    tack_t tacks[TACK_EXT02_MAX_TACKS];
    size_t count = 0, i;
    unsigned line = 0;
    char *text;
    size_t len;
    tack_status_t st;
    time_t now = time(NULL);
    const char *err;

    *expired = 0;
    err = tack_read_text(p, f->kind, f->path, &text, &len);
    if (err) {
        return err;
    }
    /* Room for two: pair files are legal in draft-02; whether the format
     * allows a pair is decided once the vhost's TackFormat is known. */
    st = tack_tacks_from_pem(tacks, TACK_EXT02_MAX_TACKS, &count, text, len,
                             &line);
    free(text);
    if (st == TACK_ERR_TOO_MANY_TACKS) {
        return apr_psprintf(p,
                            "%s %s: more than two TACK blocks (a TACK "
                            "file holds one, or a pair in TackFormat draft-02)",
                            f->kind, f->path);
    }
    if (st != TACK_OK) {
        return tack_pem_error(p, f->kind, f->path, st, line,
                              TACK_PEM_LABEL_TACK, TACK_LEN);
    }
    f->nitems = (int)count;
    f->items = apr_pcalloc(p, count * sizeof(*f->items));
    for (i = 0; i < count; i++) {
        tack_item_t *item = &f->items[i];

        item->file = f;
        item->index = (unsigned)i + 1;
        item->tack = tacks[i];
        item->expires = tack_expiration_time(&tacks[i]);
        tack_fingerprint(tacks[i].public_key, item->fingerprint);
        tack_time_format(tacks[i].expiration, item->expiry);

        st = tack_validate_cached(f->s, &tacks[i], now);
        if (st == TACK_ERR_GENERATION) {
            return apr_psprintf(p,
                                "%s %s: %s: generation %u is below "
                                "min_generation %u",
                                f->kind, f->path, tack_item_name(p, item),
                                tacks[i].generation, tacks[i].min_generation);
        }
        if (st == TACK_ERR_EXPIRED) {
            *expired = 1;
            return apr_psprintf(p, "%s %s: %s (key %s) expired at %s", f->kind,
                                f->path, tack_item_name(p, item),
                                item->fingerprint, item->expiry);
        }
        if (st != TACK_OK) {
            return apr_psprintf(p, "%s %s: %s: %s", f->kind, f->path,
                                tack_item_name(p, item), tack_status_str(st));
        }
    }
    if (count == 2 &&
        tack_key_equal(tacks[0].public_key, tacks[1].public_key)) {
        return apr_psprintf(p,
                            "%s %s: both TACKs have the same key %s "
                            "(a pair must use two TACK keys)",
                            f->kind, f->path, f->items[0].fingerprint);
    }
    return NULL;
}

/* What one break-signature file holds, read and verified once per
 * configuration pass however many directives name it. */
typedef struct {
    const char *error;
    size_t num;
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    char fingerprints[TACK_MAX_BREAKSIGS][TACK_FINGERPRINT_SIZE];
} tack_sigload_t;

#define TACK_SIGLOAD_KEY "mod_tack:sigfiles"

static const char *tack_sigload_read(apr_pool_t *p, tack_sigfile_t *f,
                                     tack_sigload_t *l)
{
    size_t i;
    unsigned line = 0;
    char *text;
    size_t len;
    tack_status_t st;
    const char *err;

    err = tack_read_text(p, "TackBreakSigsFile", f->path, &text, &len);
    if (err) {
        return err;
    }
    st = tack_breaksigs_from_pem(l->sigs, TACK_MAX_BREAKSIGS, &l->num, text,
                                 len, &line);
    free(text);
    if (st == TACK_ERR_TOO_MANY_BREAKSIGS) {
        l->num = 0;
        return apr_psprintf(p,
                            "TackBreakSigsFile %s: more than %d break "
                            "signatures (a vhost serves at most %d)",
                            f->path, TACK_MAX_BREAKSIGS, TACK_MAX_BREAKSIGS);
    }
    if (st != TACK_OK) {
        l->num = 0;
        return tack_pem_error(p, "TackBreakSigsFile", f->path, st, line,
                              TACK_PEM_LABEL_BREAKSIG, TACK_BREAKSIG_LEN);
    }
    for (i = 0; i < l->num; i++) {
        tack_fingerprint(l->sigs[i].public_key, l->fingerprints[i]);
        st = tack_breaksig_verify_cached(f->s, &l->sigs[i]);
        if (st != TACK_OK) {
            return apr_psprintf(
                p,
                "TackBreakSigsFile %s: break signature %" APR_SIZE_T_FMT " "
                "(key %s): %s",
                f->path, i + 1, l->fingerprints[i], tack_status_str(st));
        }
    }
    return NULL;
}

/* tack_load_sigfile fills |f| from its file, sharing what another directive
 * of this pass already loaded from the same path (|p| is the configuration
 * pool, cleared before each pass). */
static const char *tack_load_sigfile(apr_pool_t *p, tack_sigfile_t *f)
{
    apr_hash_t *loaded = NULL;
    tack_sigload_t *l;

    apr_pool_userdata_get((void **)&loaded, TACK_SIGLOAD_KEY, p);
    if (loaded == NULL) {
        loaded = apr_hash_make(p);
        apr_pool_userdata_set(loaded, TACK_SIGLOAD_KEY, apr_pool_cleanup_null,
                              p);
    }
    l = apr_hash_get(loaded, f->path, APR_HASH_KEY_STRING);
    if (l == NULL) {
        l = apr_pcalloc(p, sizeof(*l));
        l->error = tack_sigload_read(p, f, l);
        apr_hash_set(loaded, f->path, APR_HASH_KEY_STRING, l);
    }
    f->num = l->num;
    f->sigs = l->sigs;
    f->fingerprints = (const char(*)[TACK_FINGERPRINT_SIZE])l->fingerprints;
    return l->error;
}

/* ---- directives ---------------------------------------------------------- */

/* tack_server_path resolves |arg| against ServerRoot.  An absolute path
 * that is already canonical is kept as it is: http_config.h promises a
 * freshly allocated argument in cmd->pool that may be stored, and
 * ap_server_root_relative would allocate another buffer, sized for
 * ServerRoot and the argument together, for every TackFile line. */
static const char *tack_server_path(cmd_parms *cmd, const char *arg)
{
    if (arg[0] == '/' && !strstr(arg, "//") && !strstr(arg, "/./") &&
        !strstr(arg, "/../")) {
        size_t len = strlen(arg);

        if (!(len >= 2 && strcmp(arg + len - 2, "/.") == 0) &&
            !(len >= 3 && strcmp(arg + len - 3, "/..") == 0)) {
            return arg;
        }
    }
    return ap_server_root_relative(cmd->pool, arg);
}

static const ap_directive_t *tack_where(cmd_parms *cmd)
{
    return cmd->directive;
}

/* ---- TackStore ----------------------------------------------------------- */

/* Every store named in this configuration generation, by resolved path, so
 * that a directory named by many vhosts is read once.  Both live in pconf;
 * the cleanup forgets them when pconf is cleared for the next generation. */
static apr_hash_t *tack_stores;
static apr_array_header_t *tack_store_list;

static apr_status_t tack_stores_forget(void *unused)
{
    tack_stores = NULL;
    tack_store_list = NULL;
    return APR_SUCCESS;
}

static int tack_strcmp_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* tack_store_name returns 1 for a file name the store serves. */
static int tack_store_name(const char *name)
{
    size_t n = strlen(name), suffix = sizeof(TACK_STORE_SUFFIX) - 1;

    return name[0] != '.' && n > suffix &&
           !strcmp(name + n - suffix, TACK_STORE_SUFFIX);
}

/* tack_store_index adds the TACKs of |f| to |st|'s index.  A TACK that
 * repeats one already indexed byte for byte (the same certificate in two
 * files) is counted and left out; two different TACKs for one certificate
 * are both kept, for the vhost's format to decide (draft-02: a pair). */
static void tack_store_index(tack_store_t *st, tack_file_t *f, time_t now)
{
    int k;

    for (k = 0; k < f->nitems; k++) {
        tack_item_t *item = &f->items[k];
        tack_item_t *head, *last = NULL, *it;
        int dup = 0;

        head = apr_hash_get(st->by_hash, item->tack.target_hash, TACK_HASH_LEN);
        for (it = head; it; it = it->next_same) {
            dup |= !memcmp(&it->tack, &item->tack, sizeof(item->tack));
            last = it;
        }
        if (dup) {
            st->nduplicates++;
            item->matched = 1; /* reported as a duplicate, not as unused */
            continue;
        }
        if (last) {
            last->next_same = item;
        } else {
            apr_hash_set(st->by_hash, item->tack.target_hash, TACK_HASH_LEN,
                         item);
        }
        if (item->expires - now < TACK_EXPIRY_WARN_SECS) {
            APR_ARRAY_PUSH(st->expiring, tack_item_t *) = item;
        }
    }
}

/* tack_store_load reads every *.tack.pem of |st|'s directory, in name order,
 * validating each like a TackFile.  Nothing is logged here: the outcome is
 * kept in |st| and reported once by tack_config_log_stores. */
static void tack_store_load(apr_pool_t *p, server_rec *s, tack_store_t *st)
{
    apr_array_header_t *names = apr_array_make(p, 64, sizeof(const char *));
    apr_dir_t *dir;
    apr_finfo_t fi;
    apr_status_t rv;
    time_t now = time(NULL);
    int i;

    rv = apr_dir_open(&dir, st->path, p);
    if (rv != APR_SUCCESS) {
        st->error = apr_psprintf(p, "TackStore %s: cannot read directory: %pm",
                                 st->path, &rv);
        return;
    }
    for (;;) {
        rv = apr_dir_read(&fi, APR_FINFO_NAME, dir);
        if (rv != APR_SUCCESS && rv != APR_INCOMPLETE) {
            break;
        }
        if (fi.name && tack_store_name(fi.name)) {
            APR_ARRAY_PUSH(names, const char *) = apr_pstrdup(p, fi.name);
        }
    }
    apr_dir_close(dir);
    if (names->nelts > 1) {
        qsort(names->elts, (size_t)names->nelts, sizeof(const char *),
              tack_strcmp_ptr);
    }
    for (i = 0; i < names->nelts; i++) {
        tack_file_t *f = apr_pcalloc(p, sizeof(*f));
        int expired;

        f->s = s;
        f->kind = "TackStore";
        f->store = st;
        f->where = st->where;
        f->server_level = 1;
        f->path = apr_pstrcat(p, st->path, "/",
                              APR_ARRAY_IDX(names, i, const char *), NULL);
        f->error = tack_load_tackfile(p, f, &expired);
        if (f->error) {
            f->nitems = 0;
            APR_ARRAY_PUSH(expired ? st->expired : st->bad, tack_file_t *) = f;
            continue;
        }
        APR_ARRAY_PUSH(st->files, tack_file_t *) = f;
        tack_store_index(st, f, now);
    }
    st->nfiles = st->files->nelts;
}

/* tack_store_get returns the store for directory |path|, reading it the
 * first time it is named in this generation. */
static tack_store_t *tack_store_get(cmd_parms *cmd, const char *path)
{
    apr_pool_t *p = cmd->pool;
    tack_store_t *st;

    if (!tack_stores) {
        tack_stores = apr_hash_make(p);
        tack_store_list = apr_array_make(p, 2, sizeof(tack_store_t *));
        apr_pool_cleanup_register(p, NULL, tack_stores_forget,
                                  apr_pool_cleanup_null);
    }
    st = apr_hash_get(tack_stores, path, APR_HASH_KEY_STRING);
    if (st) {
        return st;
    }
    st = apr_pcalloc(p, sizeof(*st));
    st->path = path;
    st->where = tack_where(cmd);
    st->by_hash = apr_hash_make(p);
    st->files = apr_array_make(p, 64, sizeof(tack_file_t *));
    st->bad = apr_array_make(p, 1, sizeof(tack_file_t *));
    st->expired = apr_array_make(p, 1, sizeof(tack_file_t *));
    st->expiring = apr_array_make(p, 1, sizeof(tack_item_t *));
    /* The first pass of an initial start is thrown away before anything
     * is served, and would only double the start-up time of a large
     * store: the directory is read in the pass that counts. */
    if (!tack_config_quiet()) {
        tack_store_load(p, cmd->server, st);
        st->loaded = 1;
    }
    apr_hash_set(tack_stores, path, APR_HASH_KEY_STRING, st);
    APR_ARRAY_PUSH(tack_store_list, tack_store_t *) = st;
    return st;
}

static const char *tack_cmd_TackStore(cmd_parms *cmd, void *dcfg,
                                      const char *arg)
{
    tack_conf_t *conf = tack_config_get(cmd->server);
    const char *path;
    tack_store_t *st;

    conf->store_set = 1;
    if (!strcasecmp(arg, "none")) {
        conf->store = NULL;
        return NULL;
    }
    path = ap_server_root_relative(cmd->pool, arg);
    if (!path) {
        return apr_psprintf(cmd->pool, "TackStore %s: invalid path", arg);
    }
    while (strlen(path) > 1 && path[strlen(path) - 1] == '/') {
        path = apr_pstrndup(cmd->pool, path, strlen(path) - 1);
    }
    st = tack_store_get(cmd, path);
    if (st->error && tack_config_strict()) {
        return st->error;
    }
    conf->store = st;
    return NULL;
}

static const char *tack_cmd_TackFile(cmd_parms *cmd, void *dcfg,
                                     const char *arg, const char *flag)
{
    tack_conf_t *conf = tack_config_get(cmd->server);
    tack_file_t *f;
    const char *err;
    int expired;

    if (flag && strcasecmp(flag, "inactive")) {
        return apr_psprintf(cmd->pool,
                            "TackFile %s: unknown flag \"%s\" (only "
                            "\"inactive\" is allowed)",
                            arg, flag);
    }
    f = apr_pcalloc(cmd->pool, sizeof(*f));
    f->s = cmd->server;
    f->kind = "TackFile";
    f->where = tack_where(cmd);
    f->inactive = flag != NULL;
    f->server_level = !cmd->server->is_virtual;
    f->path = tack_server_path(cmd, arg);
    if (!f->path) {
        return apr_psprintf(cmd->pool, "TackFile %s: invalid file path", arg);
    }
    err = tack_load_tackfile(cmd->pool, f, &expired);
    if (err) {
        if (tack_config_strict()) {
            return err;
        }
        f->error = err;
        f->nitems = 0;
    }
    if (!conf->files) {
        conf->files = apr_array_make(cmd->pool, 1, sizeof(tack_file_t *));
    }
    APR_ARRAY_PUSH(conf->files, tack_file_t *) = f;
    return NULL;
}

static const char *tack_cmd_TackBreakSigsFile(cmd_parms *cmd, void *dcfg,
                                              const char *arg)
{
    tack_conf_t *conf = tack_config_get(cmd->server);
    tack_sigfile_t *f;
    const char *err;

    f = apr_pcalloc(cmd->pool, sizeof(*f));
    f->s = cmd->server;
    f->where = tack_where(cmd);
    f->path = tack_server_path(cmd, arg);
    if (!f->path) {
        return apr_psprintf(cmd->pool,
                            "TackBreakSigsFile %s: invalid file path", arg);
    }
    err = tack_load_sigfile(cmd->pool, f);
    if (!err && conf->num_sigs + f->num > TACK_MAX_BREAKSIGS) {
        /* draft-00 section 3: at most 8 break signatures in one extension */
        err = apr_psprintf(cmd->pool,
                           "TackBreakSigsFile %s: %" APR_SIZE_T_FMT
                           " break signatures in all "
                           "for this %s, at most %d allowed",
                           f->path, conf->num_sigs + f->num,
                           cmd->server->is_virtual ? "virtual host" : "server",
                           TACK_MAX_BREAKSIGS);
    }
    if (err) {
        if (tack_config_strict()) {
            return err;
        }
        f->error = err;
        f->num = 0;
    }
    conf->num_sigs += f->num;
    if (!conf->sigfiles) {
        conf->sigfiles = apr_array_make(cmd->pool, 1, sizeof(tack_sigfile_t *));
    }
    APR_ARRAY_PUSH(conf->sigfiles, tack_sigfile_t *) = f;
    return NULL;
}

static const char *tack_cmd_TackPinActivation(cmd_parms *cmd, void *dcfg,
                                              int on)
{
    tack_config_get(cmd->server)->pin_activation = on ? 1 : 0;
    return NULL;
}

static const char *tack_cmd_TackTLS13(cmd_parms *cmd, void *dcfg, int on)
{
    tack_config_get(cmd->server)->tls13 = on ? 1 : 0;
    return NULL;
}

static const char *tack_cmd_TackFormat(cmd_parms *cmd, void *dcfg,
                                       const char *arg)
{
    tack_conf_t *conf = tack_config_get(cmd->server);

    if (!strcasecmp(arg, "draft-00")) {
        conf->format = TACK_FORMAT_00;
    } else if (!strcasecmp(arg, "draft-02")) {
        conf->format = TACK_FORMAT_02;
    } else {
        return apr_psprintf(cmd->pool,
                            "TackFormat %s: unknown format (draft-00 or "
                            "draft-02)",
                            arg);
    }
    return NULL;
}

const command_rec tack_config_cmds[] = {
    AP_INIT_TAKE12("TackFile", tack_cmd_TackFile, NULL, RSRC_CONF,
                   "a TACK file, and optionally 'inactive' (repeatable)"),
    AP_INIT_TAKE1("TackBreakSigsFile", tack_cmd_TackBreakSigsFile, NULL,
                  RSRC_CONF,
                  "a file of TACK BREAK SIG blocks (repeatable, 8 in all)"),
    AP_INIT_FLAG("TackPinActivation", tack_cmd_TackPinActivation, NULL,
                 RSRC_CONF, "ask clients to activate pins (default off)"),
    AP_INIT_TAKE1("TackFormat", tack_cmd_TackFormat, NULL, RSRC_CONF,
                  "draft-00 (default) or draft-02"),
    AP_INIT_FLAG("TackTLS13", tack_cmd_TackTLS13, NULL, RSRC_CONF,
                 "also serve TACK in TLS 1.3 EncryptedExtensions (default "
                 "off)"),
    AP_INIT_TAKE1("TackStore", tack_cmd_TackStore, NULL, RSRC_CONF,
                  "a directory of *.tack.pem files served to every SSL vhost "
                  "by target_hash, or 'none'"),
    {NULL}};

/* ---- create / merge ------------------------------------------------------ */

void *tack_config_create(apr_pool_t *p, server_rec *s)
{
    tack_conf_t *conf = apr_pcalloc(p, sizeof(*conf));

    conf->pin_activation = TACK_UNSET;
    conf->format = TACK_UNSET;
    conf->tls13 = TACK_UNSET;
    return conf;
}

/* tack_config_merge merges into |addv| itself: a vhost's own configuration
 * is created for that vhost only, and httpd replaces it by what the merge
 * returns, so nothing else sees it (a copy would cost every vhost another
 * struct). */
void *tack_config_merge(apr_pool_t *p, void *basev, void *addv)
{
    tack_conf_t *base = basev, *mrg = addv;

    /* A vhost's own TackFiles; the main server's are candidates, served
     * for a certificate for which the vhost has no TACK of its own. */
    mrg->server_files = base->files;
    if (!mrg->sigfiles) {
        mrg->sigfiles = base->sigfiles;
        mrg->num_sigs = base->num_sigs;
    }
    if (mrg->pin_activation == TACK_UNSET) {
        mrg->pin_activation = base->pin_activation;
    }
    if (mrg->format == TACK_UNSET) {
        mrg->format = base->format;
    }
    if (!mrg->store_set) {
        mrg->store = base->store;
        mrg->store_set = base->store_set;
    }
    if (mrg->tls13 == TACK_UNSET) {
        mrg->tls13 = base->tls13;
    }
    return mrg;
}

/* ---- matching TACKs to certificates -------------------------------------- */

/* tack_problem logs one problem found while resolving |s|'s configuration:
 * at error level, with the vhost's name.  Returns 1 (one problem). */
static int tack_problem(server_rec *s, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int tack_problem(server_rec *s, const char *tag, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];

    if (tack_config_quiet()) {
        return 1;
    }
    va_start(ap, fmt);
    apr_vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* |tag| is the caller's own literal "TACKnnnnn", one per call site. */
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, "%s: vhost %s: %s%s", tag,
                 tack_vhost_name(s), msg,
                 tack_config_strict() ? "" : "; left out");
    return 1;
}

static const char *tack_cert_list(apr_pool_t *p, tack_certsel_t *certs,
                                  int ncerts)
{
    const char *list = "";
    int i;

    for (i = 0; i < ncerts; i++) {
        list = apr_pstrcat(p, list, i ? ", " : "", certs[i].label, NULL);
    }
    return list;
}

/* tack_select tries |item| for |cert|; returns the number of problems. */
static int tack_select(apr_pool_t *p, server_rec *s, int format,
                       tack_certsel_t *cert, tack_item_t *item)
{
    int j;

    if (format == TACK_FORMAT_00 && cert->ntacks == 1) {
        return tack_problem(
            s, "TACK00001",
            "%s %s (" TACK_WHERE_FMT "): a second TACK for %s, already "
            "served by %s %s; draft-00 serves one TACK "
            "per certificate",
            item->file->kind, item->file->path, TACK_WHERE(item->file->where),
            cert->label, cert->tacks[0]->file->kind,
            cert->tacks[0]->file->path);
    }
    if (cert->ntacks == TACK_EXT02_MAX_TACKS) {
        return tack_problem(s, "TACK00002",
                            "%s %s (" TACK_WHERE_FMT
                            "): a third TACK for %s; draft-02 "
                            "serves at most two per certificate",
                            item->file->kind, item->file->path,
                            TACK_WHERE(item->file->where), cert->label);
    }
    for (j = 0; j < cert->ntacks; j++) {
        if (tack_key_equal(cert->tacks[j]->tack.public_key,
                           item->tack.public_key)) {
            return tack_problem(
                s, "TACK00003",
                "%s %s (" TACK_WHERE_FMT "): %s has the key %s of "
                "%s %s, also for %s; two TACKs for one "
                "certificate need two keys",
                item->file->kind, item->file->path,
                TACK_WHERE(item->file->where), tack_item_name(p, item),
                item->fingerprint, cert->tacks[j]->file->kind,
                cert->tacks[j]->file->path, cert->label);
        }
    }
    cert->tacks[cert->ntacks++] = item;
    return 0;
}

/* tack_files_usable returns 1 when |f| is served at all under |format|. */
static int tack_file_usable(server_rec *s, tack_file_t *f, int format,
                            int *problems)
{
    if (f->error || f->nitems == 0) {
        return 0;
    }
    if (format == TACK_FORMAT_00 && f->nitems > 1) {
        *problems +=
            tack_problem(s, "TACK00004",
                         "%s %s (" TACK_WHERE_FMT "): holds %d TACKs; in "
                         "TackFormat draft-00 a TACK file holds one "
                         "(pair files need TackFormat draft-02)",
                         f->kind, f->path, TACK_WHERE(f->where), f->nitems);
        return 0;
    }
    return 1;
}

int tack_config_resolve(apr_pool_t *p, server_rec *s, tack_conf_t *conf,
                        tack_certsel_t *certs, int ncerts, int certs_known,
                        tack_sel_t *out)
{
    int problems = 0, i, c, k, pass;
    apr_array_header_t *lists[2];

    memset(out, 0, sizeof(*out));
    out->format = conf->format == TACK_UNSET ? TACK_FORMAT_00 : conf->format;
    out->pin_activation = conf->pin_activation == 1;
    out->tls13 = conf->tls13 == 1;
    out->store = conf->store;
    out->certs = certs;
    out->ncerts = ncerts;
    for (c = 0; c < ncerts; c++) {
        certs[c].ntacks = 0;
    }

    /* The vhost's own TACKs first; the main server's fill in certificates
     * the vhost has no TACK for.  For the main server itself its TackFiles
     * are the candidates (its own and every vhost's). */
    lists[0] = s->is_virtual ? conf->files : NULL;
    lists[1] = s->is_virtual ? conf->server_files : conf->files;
    for (pass = 0; pass < 2; pass++) {
        tack_file_t **files;
        int nfiles;

        if (!lists[pass]) {
            continue;
        }
        files = (tack_file_t **)lists[pass]->elts;
        nfiles = lists[pass]->nelts;
        for (i = 0; i < nfiles; i++) {
            tack_file_t *f = files[i];

            if (!tack_file_usable(s, f, out->format, &problems)) {
                continue;
            }
            for (k = 0; k < f->nitems; k++) {
                tack_item_t *item = &f->items[k];
                int hit = 0;

                for (c = 0; c < ncerts; c++) {
                    if (tack_check_target_hash(&item->tack, certs[c].hash) !=
                        TACK_OK) {
                        continue;
                    }
                    hit = 1;
                    item->matched = 1;
                    /* Server-level TACKs only where the vhost has none. */
                    if (pass == 1 && s->is_virtual) {
                        int own = 0, j;

                        for (j = 0; j < certs[c].ntacks; j++) {
                            own |= !certs[c].tacks[j]->file->server_level;
                        }
                        if (own) {
                            continue;
                        }
                    }
                    problems += tack_select(p, s, out->format, &certs[c], item);
                }
                if (!hit && pass == 0 && certs_known) {
                    problems += tack_problem(
                        s, "TACK00005",
                        "TackFile %s (" TACK_WHERE_FMT
                        "): target_hash of %s (key %s) matches "
                        "none of the vhost's certificates (%s)",
                        f->path, TACK_WHERE(f->where), tack_item_name(p, item),
                        item->fingerprint,
                        ncerts ? tack_cert_list(p, certs, ncerts) : "none");
                }
            }
        }
    }

    /* The store: only for certificates no TackFile line gave a TACK to
     * (explicit lines win), one hash lookup per certificate. */
    if (conf->store && conf->store->loaded) {
        for (c = 0; c < ncerts; c++) {
            tack_item_t *item;
            const tack_file_t *unusable = NULL;

            if (certs[c].ntacks) {
                continue;
            }
            item = apr_hash_get(conf->store->by_hash, certs[c].hash,
                                TACK_HASH_LEN);
            for (; item; item = item->next_same) {
                item->matched = 1;
                if (item->file == unusable) {
                    continue; /* the second TACK of a pair already refused */
                }
                if (!tack_file_usable(s, item->file, out->format, &problems)) {
                    unusable = item->file;
                    continue;
                }
                problems += tack_select(p, s, out->format, &certs[c], item);
            }
        }
    }

    /* Break signatures: draft-00 only (draft-02 dropped them). */
    if (conf->sigfiles) {
        tack_sigfile_t **sf = (tack_sigfile_t **)conf->sigfiles->elts;

        for (i = 0; i < conf->sigfiles->nelts; i++) {
            size_t j;

            if (sf[i]->error || sf[i]->num == 0) {
                continue;
            }
            if (out->format == TACK_FORMAT_02 && sf[i]->s != s) {
                /* Inherited from the server config, meant "for all": a
                 * draft-02 vhost cannot carry them, and that is no error. */
                if (!tack_config_quiet()) {
                    ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                                 "TACK00023: vhost %s: TackFormat draft-02 "
                                 "has no break signatures: the %" APR_SIZE_T_FMT
                                 " inherited from %s (" TACK_WHERE_FMT
                                 ") are not served here",
                                 tack_vhost_name(s), sf[i]->num, sf[i]->path,
                                 TACK_WHERE(sf[i]->where));
                }
                continue;
            }
            if (out->format == TACK_FORMAT_02) {
                problems += tack_problem(s, "TACK00006",
                                         "TackBreakSigsFile %s (" TACK_WHERE_FMT
                                         "): break "
                                         "signatures do not exist in "
                                         "TackFormat draft-02",
                                         sf[i]->path, TACK_WHERE(sf[i]->where));
                continue;
            }
            for (j = 0; j < sf[i]->num && out->nsigs < TACK_MAX_BREAKSIGS;
                 j++) {
                out->sigfiles[out->nsigs] = sf[i];
                out->sigidx[out->nsigs] = (unsigned char)j;
                out->sigs[out->nsigs++] = sf[i]->sigs[j];
            }
        }
    }

    /* A break signature for the key of a TACK this vhost serves: the site
     * says the key is compromised and vouches with it at once.  The break
     * signature is the later, safer statement: the TACK is left out. */
    for (c = 0; c < ncerts; c++) {
        for (k = 0; k < certs[c].ntacks; k++) {
            tack_item_t *item = certs[c].tacks[k];
            size_t j;

            for (j = 0; j < out->nsigs; j++) {
                if (tack_key_equal(out->sigs[j].public_key,
                                   item->tack.public_key)) {
                    break;
                }
            }
            if (j == out->nsigs) {
                continue;
            }
            problems += tack_problem(
                s, "TACK00007",
                "%s %s (" TACK_WHERE_FMT "): its key %s is broken "
                "by a break signature in "
                "TackBreakSigsFile %s (" TACK_WHERE_FMT "); a TACK and "
                "the break signature of its key cannot "
                "be served together",
                item->file->kind, item->file->path,
                TACK_WHERE(item->file->where), item->fingerprint,
                out->sigfiles[j]->path, TACK_WHERE(out->sigfiles[j]->where));
            memmove(&certs[c].tacks[k], &certs[c].tacks[k + 1],
                    (size_t)(certs[c].ntacks - k - 1) * sizeof(item));
            certs[c].ntacks--;
            k--;
        }
    }
    return problems;
}

/* "12 days", "5 hours", "3 minutes": how long until |secs| have passed. */
static const char *tack_duration(apr_pool_t *p, long secs)
{
    if (secs >= 2 * 86400) {
        return apr_psprintf(p, "%ld days", secs / 86400);
    }
    if (secs >= 2 * 3600) {
        return apr_psprintf(p, "%ld hours", secs / 3600);
    }
    return apr_psprintf(p, "%ld minute%s", secs / 60,
                        secs / 60 == 1 ? "" : "s");
}

void tack_config_warn_expiry(server_rec *s, const tack_sel_t *sel)
{
    time_t now = time(NULL);
    int c, k;

    if (tack_config_quiet()) {
        return;
    }
    for (c = 0; c < sel->ncerts; c++) {
        for (k = 0; k < sel->certs[c].ntacks; k++) {
            const tack_item_t *item = sel->certs[c].tacks[k];

            /* A store's TACKs are reported once per store, not per vhost
             * (tack_config_log_stores): at 10,000 vhosts signed the same
             * day, one line per TACK would bury everything else. */
            if (item->file->store) {
                continue;
            }
            if (item->expires - now < TACK_EXPIRY_WARN_SECS) {
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                             "TACK00010: vhost %s: TackFile %s: TACK (key "
                             "%s) expires at %s, in %s; sign a new one",
                             tack_vhost_name(s), item->file->path,
                             item->fingerprint, item->expiry,
                             tack_duration(s->process->pconf,
                                           (long)(item->expires - now)));
            }
        }
    }
}

int tack_config_log_load_errors(server_rec *s_main)
{
    server_rec *s;
    int problems = 0, i;

    if (tack_config_quiet()) {
        return 0;
    }
    for (s = s_main; s; s = s->next) {
        tack_conf_t *conf = tack_config_get(s);
        tack_file_t **tf = tack_elts(conf->files);
        tack_sigfile_t **sf = tack_elts(conf->sigfiles);

        /* A vhost may share the main server's break-signature list: each
         * file is logged with the server it was written in only. */
        for (i = 0; i < tack_nelts(conf->files); i++) {
            if (!tf[i]->error || tf[i]->s != s) {
                continue;
            }
            problems++;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         "TACK00011: vhost %s: %s (" TACK_WHERE_FMT
                         "); this TACK file is "
                         "not served",
                         tack_vhost_name(s), tf[i]->error,
                         TACK_WHERE(tf[i]->where));
        }
        for (i = 0; i < tack_nelts(conf->sigfiles); i++) {
            if (!sf[i]->error || sf[i]->s != s) {
                continue;
            }
            problems++;
            ap_log_error(
                APLOG_MARK, APLOG_ERR, 0, s,
                "TACK00012: vhost %s: %s (" TACK_WHERE_FMT "); these break "
                "signatures are not served",
                tack_vhost_name(s), sf[i]->error, TACK_WHERE(sf[i]->where));
        }
    }
    return problems;
}

int tack_config_log_stores(server_rec *s_main, int report_unmatched)
{
    apr_pool_t *p = s_main->process->pconf;
    time_t now = time(NULL);
    int problems = 0, i, j, k;

    if (tack_config_quiet() || !tack_store_list) {
        return 0;
    }
    for (i = 0; i < tack_store_list->nelts; i++) {
        tack_store_t *st = APR_ARRAY_IDX(tack_store_list, i, tack_store_t *);
        int unmatched = 0;

        if (st->error) {
            /* Under -t the directive has already failed with it. */
            problems++;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00016: %s (" TACK_WHERE_FMT
                         "); nothing is served from it",
                         st->error, TACK_WHERE(st->where));
            continue;
        }
        for (j = 0; j < st->bad->nelts; j++) {
            tack_file_t *f = APR_ARRAY_IDX(st->bad, j, tack_file_t *);

            problems++;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00017: %s (TackStore at " TACK_WHERE_FMT ")%s",
                         f->error, TACK_WHERE(st->where),
                         tack_config_strict() ? "" : "; this file is skipped");
        }
        /* Expiry is routine at a provider's scale: a warning in both
         * modes, never a refused configuration. */
        for (j = 0; j < st->expired->nelts; j++) {
            tack_file_t *f = APR_ARRAY_IDX(st->expired, j, tack_file_t *);

            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                         "TACK00018: %s; skipped: sign a new one", f->error);
        }
        if (st->expiring->nelts) {
            const tack_item_t *first = NULL;

            for (j = 0; j < st->expiring->nelts; j++) {
                const tack_item_t *it =
                    APR_ARRAY_IDX(st->expiring, j, tack_item_t *);

                if (!first || it->expires < first->expires) {
                    first = it;
                }
                ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s_main,
                             "TACK00019: TackStore %s: TACK (key %s) "
                             "expires at %s",
                             it->file->path, it->fingerprint, it->expiry);
            }
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                         "TACK00020: TackStore %s: %d TACK%s expire%s "
                         "within 30 days, the first %s at %s, in %s; "
                         "sign new ones",
                         st->path, st->expiring->nelts,
                         st->expiring->nelts == 1 ? "" : "s",
                         st->expiring->nelts == 1 ? "s" : "", first->file->path,
                         first->expiry,
                         tack_duration(p, (long)(first->expires - now)));
        }
        for (j = 0; j < st->files->nelts; j++) {
            tack_file_t *f = APR_ARRAY_IDX(st->files, j, tack_file_t *);

            for (k = 0; k < f->nitems; k++) {
                if (f->items[k].matched || !report_unmatched) {
                    continue;
                }
                unmatched++;
                ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s_main,
                             "TACK00021: TackStore %s: target_hash of %s "
                             "(key %s) matches no certificate of any "
                             "virtual host using the store; not used",
                             f->path, tack_item_name(p, &f->items[k]),
                             f->items[k].fingerprint);
            }
        }
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, s_main,
                     "TACK00022: TackStore %s (" TACK_WHERE_FMT
                     "): %d TACK file%s loaded, "
                     "%d malformed, %d expired, %d duplicate%s, %d unused",
                     st->path, TACK_WHERE(st->where), st->nfiles,
                     st->nfiles == 1 ? "" : "s", st->bad->nelts,
                     st->expired->nelts, st->nduplicates,
                     st->nduplicates == 1 ? "" : "s", unmatched);
    }
    return problems;
}

int tack_config_check_unmatched(server_rec *s_main)
{
    tack_conf_t *conf = tack_config_get(s_main);
    tack_file_t **tf = tack_elts(conf->files);
    int problems = 0, i, k;

    for (i = 0; i < tack_nelts(conf->files); i++) {
        for (k = 0; k < tf[i]->nitems; k++) {
            tack_item_t *item = &tf[i]->items[k];

            if (tf[i]->error || item->matched) {
                continue;
            }
            problems++;
            if (tack_config_quiet()) {
                continue;
            }
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00013: TackFile %s (" TACK_WHERE_FMT
                         "): target_hash of %s "
                         "(key %s) matches no certificate of any virtual "
                         "host%s",
                         tf[i]->path, TACK_WHERE(tf[i]->where),
                         tack_item_name(s_main->process->pconf, item),
                         item->fingerprint,
                         tack_config_strict() ? "" : "; not served");
        }
    }
    return problems;
}

/* ---- certificates from the configuration tree (apache2 -t only) ---------- */

/* What the tree says about one server's certificates. */
typedef struct {
    apr_array_header_t *paths; /* const char *, in order */
    int ssl_on;                /* SSLEngine on (or unset: -1) */
} tack_tree_certs_t;

/* tack_tree_collect walks a list of sibling nodes for SSLCertificateFile and
 * SSLEngine, descending into conditional sections (<IfModule>, <IfDefine>,
 * <IfFile>, <IfVersion>, ...) but not into other containers. */
static void tack_tree_collect(apr_pool_t *p, const ap_directive_t *d,
                              tack_tree_certs_t *out)
{
    for (; d; d = d->next) {
        const char *args = d->args;

        if (!strcasecmp(d->directive, "SSLCertificateFile")) {
            char *word = ap_getword_conf(p, &args);
            const char *path = ap_server_root_relative(p, word);

            if (path && *word) {
                APR_ARRAY_PUSH(out->paths, const char *) = path;
            }
        } else if (!strcasecmp(d->directive, "SSLEngine")) {
            char *word = ap_getword_conf(p, &args);

            out->ssl_on = !strcasecmp(word, "on");
        } else if (!strncasecmp(d->directive, "<If", 3)) {
            tack_tree_collect(p, d->first_child, out);
        }
    }
}

/* tack_tree_index_vhosts records every <VirtualHost> node under |d| (and
 * in conditional sections) by "file:line", the place httpd remembers in
 * server_rec: one walk of the tree for all vhosts, not one per vhost. */
static void tack_tree_index_vhosts(apr_pool_t *p, const ap_directive_t *d,
                                   apr_hash_t *index)
{
    for (; d; d = d->next) {
        if (!strcasecmp(d->directive, "<VirtualHost")) {
            if (d->filename) {
                apr_hash_set(index,
                             apr_psprintf(p, "%s:%d", d->filename, d->line_num),
                             APR_HASH_KEY_STRING, d);
            }
        } else if (!strncasecmp(d->directive, "<If", 3)) {
            tack_tree_index_vhosts(p, d->first_child, index);
        }
    }
}

/* What the tree says about the main server, and where each vhost is. */
typedef struct {
    tack_tree_certs_t top;
    apr_hash_t *vhosts;
} tack_tree_t;

static void tack_tree_init(apr_pool_t *p, tack_tree_t *tree)
{
    tree->top.paths = apr_array_make(p, 4, sizeof(const char *));
    tree->top.ssl_on = -1;
    tack_tree_collect(p, ap_conftree, &tree->top);
    tree->vhosts = apr_hash_make(p);
    tack_tree_index_vhosts(p, ap_conftree, tree->vhosts);
}

/* tack_tree_der_hash hashes the SubjectPublicKeyInfo of a DER certificate
 * and returns its key type (NID_undef on failure).  The core's DER walk
 * decodes no key: with thousands of vhosts, OpenSSL 3's public-key decoder
 * in d2i_X509 made "apache2 -t" (and so every apachectl graceful) many
 * times slower.  A certificate that is not plain DER gets d2i_X509. */
static int tack_tree_der_hash(const uint8_t *der, size_t len,
                              uint8_t hash[TACK_HASH_LEN])
{
    const uint8_t *oid = NULL, *p;
    size_t oid_len = 0;
    ASN1_OBJECT *obj;
    X509 *x509;
    int type = NID_undef;

    if (tack_cert_der_spki_hash(der, len, hash, &oid, &oid_len) == TACK_OK &&
        oid_len < 0x80) {
        uint8_t enc[2 + 0x7f]; /* OBJECT IDENTIFIER tag, length, contents */

        enc[0] = 0x06;
        enc[1] = (uint8_t)oid_len;
        memcpy(enc + 2, oid, oid_len);
        p = enc;
        obj = d2i_ASN1_OBJECT(NULL, &p, (long)(oid_len + 2));
        type = obj ? OBJ_obj2nid(obj) : NID_undef;
        ASN1_OBJECT_free(obj);
        return type;
    }
    p = der;
    x509 = d2i_X509(NULL, &p, (long)len);
    if (x509 && tack_spki_hash(x509, hash) == TACK_OK) {
        type = EVP_PKEY_get_base_id(X509_get0_pubkey(x509));
    }
    X509_free(x509);
    return type;
}

/* tack_tree_cert_hash reads the first certificate of |path| and hashes its
 * SubjectPublicKeyInfo.  The file may hold the private key as well: the
 * core's PEM reader decodes only the CERTIFICATE blocks (OpenSSL's
 * PEM_read_bio_X509 would base64-decode a key block in passing and free it
 * unwiped), and the file's text is wiped before it is released.  Returns the
 * key type or NID_undef. */
static int tack_tree_cert_hash(const char *path, uint8_t hash[TACK_HASH_LEN])
{
    static const char *const labels[] = {"CERTIFICATE", "X509 CERTIFICATE"};
    char *text = NULL;
    size_t len = 0, i;
    tack_pem_t pem;
    int type = NID_undef;

    if (tack_file_read(path, TACK_FILE_MAX_DEFAULT, &text, &len) != TACK_OK) {
        return NID_undef;
    }
    for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
        if (tack_pem_decode(&pem, text, len, labels[i], NULL) == TACK_OK) {
            type =
                tack_tree_der_hash(pem.blocks[0].data, pem.blocks[0].len, hash);
            tack_pem_free(&pem);
            break;
        }
    }
    OPENSSL_cleanse(text, len);
    free(text);
    ERR_clear_error();
    return type;
}

/* tack_tree_certs fills |certs| (capacity |max|) with the certificates
 * mod_ssl will load for |s|.  mod_ssl appends a vhost's SSLCertificateFile
 * list to the main server's, and a later certificate replaces an earlier
 * one of the same key type (one OpenSSL slot per type).  Returns the count;
 * |*ssl_on| says whether SSLEngine on was seen. */
static int tack_tree_certs(apr_pool_t *p, const tack_tree_t *tree,
                           server_rec *s, tack_certsel_t *certs, int max,
                           int *ssl_on)
{
    tack_tree_certs_t tc;
    const ap_directive_t *vh;
    int types[16], n = 0, i, j;

    tc.paths = apr_array_copy(p, tree->top.paths);
    tc.ssl_on = tree->top.ssl_on;
    if (s->is_virtual && s->defn_name) {
        vh = apr_hash_get(
            tree->vhosts,
            apr_psprintf(p, "%s:%u", s->defn_name, s->defn_line_number),
            APR_HASH_KEY_STRING);
        if (vh) {
            tack_tree_collect(p, vh->first_child, &tc);
        }
    }
    *ssl_on = tc.ssl_on == 1;
    for (i = 0; i < tc.paths->nelts && n < max && n < 16; i++) {
        const char *path = APR_ARRAY_IDX(tc.paths, i, const char *);
        uint8_t hash[TACK_HASH_LEN];
        int type = tack_tree_cert_hash(path, hash);

        if (type == NID_undef) {
            /* mod_ssl reports unreadable certificates itself */
            continue;
        }
        for (j = 0; j < n && types[j] != type; j++) {
        }
        memcpy(certs[j].hash, hash, TACK_HASH_LEN);
        certs[j].x509 = NULL;
        certs[j].label = apr_psprintf(p, "certificate %s", path);
        types[j] = type;
        if (j == n) {
            n++;
        }
    }
    return n;
}

#define TACK_MAX_CERTS 8

int tack_config_check(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                      server_rec *s_main)
{
    server_rec *s;
    tack_tree_t tree;
    int problems = 0, all_known = 1;

    if (!tack_config_strict()) {
        return OK;
    }
    tack_tree_init(ptemp, &tree);
    for (s = s_main; s; s = s->next) {
        tack_conf_t *conf = tack_config_get(s);
        tack_certsel_t certs[TACK_MAX_CERTS];
        tack_sel_t sel;
        int n, ssl_on, has_tacks, has_own;

        has_tacks = tack_nelts(conf->files) || tack_nelts(conf->server_files);
        has_own = has_tacks || tack_nelts(conf->sigfiles);
        if (!has_own && !conf->store) {
            continue; /* nothing to check: leave its certificates alone */
        }
        memset(certs, 0, sizeof(certs));
        n = tack_tree_certs(ptemp, &tree, s, certs, TACK_MAX_CERTS, &ssl_on);
        if (!has_own && !ssl_on) {
            continue; /* only the store, and no TLS here */
        }
        if (!n && ssl_on) {
            /* e.g. mod_md: the certificate is found only at a real start */
            all_known = 0;
            if (has_tacks) {
                ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                             "TACK00014: vhost %s: no SSLCertificateFile "
                             "found; TACK target hashes are checked at "
                             "start-up",
                             tack_vhost_name(s));
            }
        }
        problems += tack_config_resolve(ptemp, s, conf, certs, n, n > 0, &sel);
        tack_config_warn_expiry(s, &sel);
    }
    if (all_known) {
        problems += tack_config_check_unmatched(s_main);
    }
    problems += tack_config_log_stores(s_main, all_known);
    if (problems) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                     "TACK00015: %d TACK configuration problem%s; refusing "
                     "the configuration",
                     problems, problems == 1 ? "" : "s");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}
