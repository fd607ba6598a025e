/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_setup.c -- the configuration pass: one sequence for a real start
 * or restart and for "apache2 -t" (mt_setup_vhost for each server, then
 * mt_setup_end), so that both say the same things in the same order.  The
 * two differ only in where the certificates come from and in what follows:
 *  - at a real start, mod_ssl's ssl_init_server hook hands over each SSL
 *    vhost's context with its certificates loaded (mt_setup_server); the
 *    pass also signs what TackSigningKey must sign, builds the table the
 *    handshake reads and registers the extension, and post_config ends it
 *    (mt_setup_finish): problems are logged, what caused them left out;
 *  - under -t mod_ssl loads no certificate and that hook does not run, so
 *    each server's certificates are found by walking the configuration tree
 *    for SSLCertificateFile (and SSLEngine, SSLProtocol), and any problem
 *    refuses the configuration (mt_setup_check).
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_strings.h"

#include <openssl/asn1.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

#include "mod_tack_setup.h"
#include "mod_tack_load.h"
#include "mod_tack_store.h"
#include "mod_tack_resolve.h"
#include "mod_tack_memory.h"
#include "mod_tack_guard.h"
#include "mod_tack_sign.h"
#include "mod_tack_md.h"
#include "mod_tack_background.h"
#include "mod_tack_runtime.h"
#include "mod_tack_status.h"
#include "tack_file.h"
#include "tack_pem.h"

APLOG_USE_MODULE(tack);

/* ---- certificates from the configuration tree (apache2 -t only) ---------- */

/* What the tree says about one server's certificates. */
typedef struct {
    apr_array_header_t *paths; /* const char *, in order */
    int ssl_on;                /* SSLEngine on (or unset: -1) */
    const char *serverinfo;    /* SSLOpenSSLConfCmd ServerInfoFile, or NULL */
    const ap_directive_t *serverinfo_where;
    unsigned protocols; /* SSLProtocol (TACK_PROTO_*), 0: unset */
} mt_tree_certs_t;

/* SSLProtocol's versions, as mt_tree_protocols reads them. */
#define TACK_PROTO_TLS1 0x01u
#define TACK_PROTO_TLS11 0x02u
#define TACK_PROTO_TLS12 0x04u
#define TACK_PROTO_TLS13 0x08u
#define TACK_PROTO_SSL3 0x10u

/* mt_tree_protocols reads an SSLProtocol line the way mod_ssl does: each
 * line starts from nothing, a bare version sets the list to it, "+V" adds
 * and "-V" removes; "all" is every TLS version.  A word mod_ssl would
 * refuse counts as nothing (mod_ssl reports it). */
static unsigned mt_tree_protocols(apr_pool_t *p, const char *args)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"all", TACK_PROTO_TLS1 | TACK_PROTO_TLS11 | TACK_PROTO_TLS12 |
                             TACK_PROTO_TLS13},
                 {"SSLv3", TACK_PROTO_SSL3},
                 {"TLSv1", TACK_PROTO_TLS1},
                 {"TLSv1.1", TACK_PROTO_TLS11},
                 {"TLSv1.2", TACK_PROTO_TLS12},
                 {"TLSv1.3", TACK_PROTO_TLS13}};
    unsigned set = 0;
    char *w;

    while (*(w = ap_getword_conf(p, &args))) {
        char action = (*w == '+' || *w == '-') ? *w++ : 0;
        unsigned bit = 0;
        size_t i;

        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            if (!strcasecmp(w, names[i].name)) {
                bit = names[i].bit;
            }
        }
        set = action == '+' ? set | bit : action == '-' ? set & ~bit : bit;
    }
    return set;
}

/* mt_tree_collect walks a list of sibling nodes for SSLCertificateFile and
 * SSLEngine, descending into conditional sections (<IfModule>, <IfDefine>,
 * <IfFile>, <IfVersion>, ...) but not into other containers. */
static void mt_tree_collect(apr_pool_t *p, const ap_directive_t *d,
                            mt_tree_certs_t *out)
{
    for (; d; d = d->next) {
        const char *args = d->args;

        if (!strcasecmp(d->directive, "SSLCertificateFile")) {
            char *word = ap_getword_conf(p, &args);
            const char *path = ap_server_root_relative(p, word);

            if (path && *word) {
                APR_ARRAY_PUSH(out->paths, const char *) = path;
            }
        } else if (!strcasecmp(d->directive, "SSLOpenSSLConfCmd")) {
            char *cmd = ap_getword_conf(p, &args);
            char *word = ap_getword_conf(p, &args);

            if (!strcasecmp(cmd, "ServerInfoFile") && *word) {
                out->serverinfo = ap_server_root_relative(p, word);
                out->serverinfo_where = d;
            }
        } else if (!strcasecmp(d->directive, "SSLProtocol")) {
            out->protocols = mt_tree_protocols(p, args);
        } else if (!strcasecmp(d->directive, "SSLEngine")) {
            char *word = ap_getword_conf(p, &args);

            out->ssl_on = !strcasecmp(word, "on");
        } else if (!strncasecmp(d->directive, "<If", 3)) {
            mt_tree_collect(p, d->first_child, out);
        }
    }
}

/* mt_tree_index_vhosts records every <VirtualHost> node under |d| (and
 * in conditional sections) by "file:line", the place httpd remembers in
 * server_rec: one walk of the tree for all vhosts, not one per vhost. */
static void mt_tree_index_vhosts(apr_pool_t *p, const ap_directive_t *d,
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
            mt_tree_index_vhosts(p, d->first_child, index);
        }
    }
}

/* What the tree says about the main server, and where each vhost is. */
typedef struct {
    mt_tree_certs_t top;
    apr_hash_t *vhosts;
} mt_tree_t;

static void mt_tree_init(apr_pool_t *p, mt_tree_t *tree)
{
    tree->top.paths = apr_array_make(p, 4, sizeof(const char *));
    tree->top.ssl_on = -1;
    tree->top.serverinfo = NULL;
    tree->top.protocols = 0;
    mt_tree_collect(p, ap_conftree, &tree->top);
    tree->vhosts = apr_hash_make(p);
    mt_tree_index_vhosts(p, ap_conftree, tree->vhosts);
}

/* mt_tree_der_hash hashes the SubjectPublicKeyInfo of a DER certificate
 * and returns its key type (NID_undef on failure).  The core's DER walk
 * decodes no key: with thousands of vhosts, OpenSSL 3's public-key decoder
 * in d2i_X509 made "apache2 -t" (and so every apachectl graceful) many
 * times slower.  A certificate that is not plain DER gets d2i_X509. */
static int mt_tree_der_hash(const uint8_t *der, size_t len,
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

/* mt_tree_cert_hash reads the first certificate of |path| and hashes its
 * SubjectPublicKeyInfo.  The file may hold the private key as well: the
 * core's PEM reader decodes only the CERTIFICATE blocks (OpenSSL's
 * PEM_read_bio_X509 would base64-decode a key block in passing and free it
 * unwiped), and the file's text is wiped before it is released.  Returns the
 * key type or NID_undef. */
static int mt_tree_cert_hash(const char *path, uint8_t hash[TACK_HASH_LEN])
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
                mt_tree_der_hash(pem.blocks[0].data, pem.blocks[0].len, hash);
            tack_pem_free(&pem);
            break;
        }
    }
    OPENSSL_cleanse(text, len);
    free(text);
    ERR_clear_error();
    return type;
}

/* mt_tree_certs fills |certs| (capacity |max|) with the certificates
 * mod_ssl will load for |s|.  mod_ssl appends a vhost's SSLCertificateFile
 * list to the main server's, and a later certificate replaces an earlier
 * one of the same key type (one OpenSSL slot per type).  Returns the count;
 * |*ssl_on| says whether SSLEngine on was seen. */
static int mt_tree_certs(apr_pool_t *p, const mt_tree_t *tree, server_rec *s,
                         mt_certsel_t *certs, int max, int *ssl_on,
                         mt_tree_certs_t *tcout)
{
    mt_tree_certs_t tc;
    const ap_directive_t *vh;
    int types[16], n = 0, i, j;

    tc.paths = apr_array_copy(p, tree->top.paths);
    tc.ssl_on = tree->top.ssl_on;
    tc.serverinfo = tree->top.serverinfo;
    tc.serverinfo_where = tree->top.serverinfo_where;
    tc.protocols = tree->top.protocols;
    if (s->is_virtual && s->defn_name) {
        vh = apr_hash_get(
            tree->vhosts,
            apr_psprintf(p, "%s:%u", s->defn_name, s->defn_line_number),
            APR_HASH_KEY_STRING);
        if (vh) {
            mt_tree_collect(p, vh->first_child, &tc);
        }
    }
    *ssl_on = tc.ssl_on == 1;
    *tcout = tc;
    for (i = 0; i < tc.paths->nelts && n < max && n < 16; i++) {
        const char *path = APR_ARRAY_IDX(tc.paths, i, const char *);
        uint8_t hash[TACK_HASH_LEN];
        int type = mt_tree_cert_hash(path, hash);

        if (type == NID_undef) {
            /* mod_ssl reports unreadable certificates itself */
            continue;
        }
        for (j = 0; j < n && types[j] != type; j++) {
        }
        memcpy(certs[j].hash, hash, TACK_HASH_LEN);
        certs[j].x509 = NULL;
        certs[j].label = apr_psprintf(p, "certificate %s", path);
        certs[j].key_type = mt_key_type_name(type);
        types[j] = type;
        if (j == n) {
            n++;
        }
    }
    return n;
}

#define TACK_MAX_CERTS 8

/* At a real start: the certificates of one SSL_CTX looked at. */
#define TACK_MAX_SLOTS 16

/* mt_setup_serverinfo refuses a ServerInfoFile that sends extension
 * 0xF300 beside mod_tack: OpenSSL would send the file's TACK and refuse
 * the module's registration, so the status page and the wire would
 * disagree.  Returns the number of problems. */
static int mt_setup_serverinfo(server_rec *s, const mt_tree_certs_t *tc)
{
    char *text;
    size_t len;
    int has;

    if (!tc->serverinfo || tack_file_read(tc->serverinfo, TACK_FILE_MAX_DEFAULT,
                                          &text, &len) != TACK_OK) {
        return 0; /* mod_ssl reports a file it cannot read */
    }
    has = tack_serverinfo_has(text, len, TACK_EXT_TYPE);
    free(text);
    if (!has) {
        return 0;
    }
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                 "TACK00025: vhost %s: SSLOpenSSLConfCmd ServerInfoFile %s "
                 "(" TACK_WHERE_FMT ") sends TLS extension 0xF300 (TACK) "
                 "itself: OpenSSL would serve its bytes and refuse mod_tack's; "
                 "serve TACKs with one of the two (remove the 0xF300 record "
                 "or the Tack directives)",
                 mt_vhost_name(s), tc->serverinfo,
                 TACK_WHERE(tc->serverinfo_where));
    return 1;
}

/* mt_setup_warn_expired says, under -t, which TackFiles of |s| are left
 * out because they expired (a warning: a condition of time). */
static void mt_setup_warn_expired(server_rec *s, const mt_conf_t *conf)
{
    const mt_file_t *f;

    for (f = conf->files; f; f = f->next) {
        if (f->error && f->expired) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00024: %s (" TACK_WHERE_FMT "); left out: sign "
                         "a new one (an expired TACK is warned about, not "
                         "refused)",
                         f->error, TACK_WHERE(f->where));
        }
    }
}
/* mt_ctx_certs fills |certs| (capacity TACK_MAX_SLOTS) with the
 * certificates mod_ssl loaded into |ctx|, their labels allocated in |tmp|;
 * returns the count. */
static int mt_ctx_certs(server_rec *s, apr_pool_t *tmp, SSL_CTX *ctx,
                        mt_certsel_t *certs)
{
    int n = 0, ok;

    for (ok = SSL_CTX_set_current_cert(ctx, SSL_CERT_SET_FIRST);
         ok && n < TACK_MAX_SLOTS;
         ok = SSL_CTX_set_current_cert(ctx, SSL_CERT_SET_NEXT)) {
        if (!mt_cert_describe(tmp, SSL_CTX_get0_certificate(ctx), NULL,
                              &certs[n])) {
            mt_openssl_log(s, "hashing a certificate");
            continue;
        }
        n++;
    }
    SSL_CTX_set_current_cert(ctx, SSL_CERT_SET_FIRST);
    ERR_clear_error();
    return n;
}

/* mt_log_serving logs, at info level, what the vhost serves: each TACK
 * with its certificate, and the number of break signatures. */
static void mt_log_serving(server_rec *s, const mt_sel_t *sel)
{
    char name[TACK_NAME_SIZE];
    int c, k;

    for (c = 0; c < sel->ncerts; c++) {
        for (k = 0; k < sel->certs[c].ntacks; k++) {
            const mt_item_t *item = sel->certs[c].tacks[k];

            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                         "TACK00056: vhost %s: serving TACK %s (%s, key %s, "
                         "expires %s%s) for %s",
                         mt_vhost_name_buf(s, name), item->file->path,
                         item->file->kind, item->fingerprint,
                         MT_ITEM_EXPIRY(item),
                         sel->format == TACK_FORMAT_02 && item->file->inactive
                             ? ", inactive"
                             : "",
                         sel->certs[c].label);
        }
    }
    if (sel->nsigs) {
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                     "TACK00057: vhost %s: serving %" APR_SIZE_T_FMT
                     " break signature(s)",
                     mt_vhost_name_buf(s, name), sel->nsigs);
    }
}

/* mt_warn_tls13_only warns when a vhost that has something to serve
 * speaks only TLS 1.3 while TackTLS13 is off: nothing would be sent. */
static void mt_warn_tls13_only(server_rec *s, int tls13_only,
                               const mt_sel_t *sel)
{
    char name[TACK_NAME_SIZE];
    int c, any = sel->nsigs > 0;

    for (c = 0; c < sel->ncerts; c++) {
        any |= sel->certs[c].ntacks > 0;
    }
    if (any && !sel->tls13 && tls13_only) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00061: vhost %s: speaks only TLS 1.3 (SSLProtocol) "
                     "and TackTLS13 is off: no TACK is sent to anyone; add "
                     "TackTLS13 on, or allow TLS 1.2",
                     mt_vhost_name_buf(s, name));
    }
}

/* mt_warn_required warns about each certificate of a vhost required to
 * serve a TACK (TackRequired, or evidently meant to) when none of its
 * certificates serves one (a TACK for some of them only is TACK00027's). */
static void mt_warn_required(server_rec *s, const mt_sel_t *sel)
{
    char name[TACK_NAME_SIZE];
    int c;

    for (c = 0; c < sel->ncerts; c++) {
        if (sel->certs[c].ntacks || sel->certs[c].pending) {
            return; /* served, or signed in the background (TACK00036) */
        }
    }
    for (c = 0; sel->required && c < sel->ncerts; c++) {
        if (!sel->certs[c].ntacks && !sel->certs[c].lapsed) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00074: vhost %s: %s serves no TACK; sign one "
                         "(" TACK_PROG " sign -c CERT), or say TackRequired "
                         "off while this vhost is not rolled out",
                         mt_vhost_name_buf(s, name), sel->certs[c].label);
        }
    }
}

/* mt_warn_plain_vhosts warns about vhosts with Tack directives of their
 * own that mod_ssl does not serve (no SSLEngine on): nothing is sent. */
static void mt_warn_plain_vhosts(server_rec *s_main)
{
    char name[TACK_NAME_SIZE];
    server_rec *s;

    for (s = s_main->next; s; s = s->next) {
        mt_conf_t *conf = mt_conf_get(s);

        if (!conf->ssl_seen && mt_resolve_own_directives(s, conf)) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00062: vhost %s: Tack directives in a virtual "
                         "host without SSLEngine on: nothing is served here "
                         "(an Include shared with a plain-HTTP vhost?)",
                         mt_vhost_name_buf(s, name));
        }
    }
}

/* ---- the pass: one vhost, then the whole server ----------------------------
 */

/* mt_setup_vhost applies the configuration of |s| to its |n| certificates
 * |certs|: the one sequence of a real start (|ctx| is mod_ssl's context,
 * the certificates are known) and of "apache2 -t" (|ctx| is NULL, the
 * certificates come from the configuration tree, |known| 0 when none was
 * found).  At a real start it also signs what TackSigningKey must sign,
 * builds the table the handshake reads (in |p|) and registers the
 * extension.  |tmp| holds what the pass does not keep.  Returns the number
 * of problems (each logged). */
static int mt_setup_vhost(apr_pool_t *p, apr_pool_t *tmp, server_rec *s,
                          mt_conf_t *conf, mt_certsel_t *certs, int n,
                          int known, SSL_CTX *ctx, int tls13_only)
{
    mt_sel_t sel;
    mt_rt_t *rt = NULL;
    int problems;

    problems = mt_resolve(tmp, s, conf, certs, n, known, &sel);
    if (ctx) {
        if (mt_conf_signs(conf)) {
            mt_md_mark_fallback(tmp, s, &sel);
        }
        mt_sign_vhost(p, s, conf, &sel);
        mt_guard_recover(p, s, conf, &sel);
        mt_resolve_mark_cert_bound(&sel);
        rt = mt_handshake_build(p, s, &sel);
        mt_handshake_register(s, ctx, rt);
        mt_status_add(p, rt);
    }
    /* Under -t the start signs a certificate that has no TACK under the
     * vhost's TackSigningKey, and at a start the background signs what
     * the start did not wait for: the guard counts that key as served
     * (TACK00080 says when clients may hold a pin on it meanwhile). */
    mt_guard_note(s, conf, &sel, rt != NULL,
                  !n ? NULL : mt_sign_public(s, conf));
    if (mt_quiet() || (rt && !rt->registered)) {
        return problems;
    }
    if (rt) {
        mt_log_serving(s, &sel);
    }
    mt_resolve_warn_expiry(s, &sel);
    mt_resolve_warn_partial(s, conf, &sel);
    mt_warn_tls13_only(s, tls13_only, &sel);
    if (!problems && (ctx || !mt_conf_signs(conf))) {
        /* not when a problem of its own was said (a TACK left out), nor
         * under -t where a TackSigningKey signs them at the start */
        mt_warn_required(s, &sel);
    }
    return problems;
}

/* mt_setup_end ends the pass over every server: what could not be served,
 * what no vhost used, the stores, the signing keys (checked under -t, then
 * wiped), the pin-continuity guard and its memory, and what is served but
 * must be heard of.  |all_known| is 0 under -t when some vhost's
 * certificates could not be found (server-level and store TACKs are then
 * not reported as unmatched).  Returns the number of problems. */
static int mt_setup_end(apr_pool_t *ptemp, server_rec *s_main, int all_known)
{
    int problems = 0;
    const char *why;
    if (!mt_quiet()) {
        mt_warn_plain_vhosts(s_main);
    }
    if (!mt_strict()) {
        /* under -t the directives refused them as they were read */
        problems += mt_resolve_log_load_errors(s_main);
    }
    if (all_known) {
        problems += mt_resolve_check_unmatched(s_main);
    }
    problems += mt_store_log(s_main, all_known);
    if (mt_strict()) {
        problems += mt_sign_check(ptemp, s_main);
    }
    mt_sign_end(s_main);
    mt_background_start(s_main); /* what the pass left to it */
    mt_sign_close(); /* no signing key outlives the pass but its work */
    problems += mt_guard_check(s_main);
    mt_guard_end(s_main);
    mt_resolve_log_warnings(s_main);
    /* after the memory made its directory: a notice, since the cost of a
     * file not used is a start that verifies every signature again */
    why = mt_load_vcache_end(ptemp, !mt_quiet(), !mt_quiet() && !mt_strict());
    if (why) {
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s_main,
                     "TACK00154: %s: this start verifies every signature "
                     "the file would have spared (slower, nothing more)",
                     why);
    }
    mt_load_settle_end(mt_gen()->pconf);
    /* The pass's peak (the memory's JSON, read and written whole; OpenSSL's
     * verifications) was freed to malloc, which keeps it: given back, so
     * that the parent, and every child forked from it, does not carry it */
    malloc_trim(0);
    return problems;
}

/* ---- a real start or restart --------------------------------------------- */

/* Before any directive is read; no part is made later, on first use (a
 * child at request time would allocate from the parent's pconf). */
void mt_setup_start(apr_pool_t *pconf, apr_pool_t *pproc)
{
    mt_gen_t *gen;
    mt_proc_t *proc;

    mt_gen_start(pconf, pproc);
    gen = mt_gen();
    proc = mt_proc();
    mt_load_gen_init(gen);
    mt_store_gen_init(gen);
    mt_memory_gen_init(gen);
    mt_guard_gen_init(gen);
    mt_sign_gen_init(gen);
    mt_background_gen_init(gen, proc, pproc);
    mt_status_gen_init(gen);
    mt_md_gen_init(gen);
    mt_load_proc_init(proc, pproc);
}

void mt_setup_server(apr_pool_t *p, server_rec *s, SSL_CTX *ctx)
{
    mt_conf_t *conf = mt_conf_get(s);
    mt_certsel_t certs[TACK_MAX_SLOTS];
    apr_pool_t *tmp;
    int n;

    /* Labels and messages only live as long as this call: at 10,000 vhosts
     * whatever stays in |p| is paid for in the parent and every child. */
    if (apr_pool_create(&tmp, p) != APR_SUCCESS) {
        tmp = p;
    }
    memset(certs, 0, sizeof(certs));
    conf->ssl_seen = 1;
    n = mt_ctx_certs(s, tmp, ctx, certs);
    mt_setup_vhost(p, tmp, s, conf, certs, n, 1, ctx,
                   SSL_CTX_get_min_proto_version(ctx) >= TLS1_3_VERSION);
    if (tmp != p) {
        apr_pool_destroy(tmp);
    }
}

void mt_setup_finish(apr_pool_t *ptemp, server_rec *s_main)
{
    mt_setup_end(ptemp, s_main, 1);
}

/* ---- apache2 -t ------------------------------------------------------------
 */

int mt_setup_check(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                   server_rec *s_main)
{
    server_rec *s;
    mt_tree_t tree;
    int problems = 0, all_known = 1;

    if (!mt_strict()) {
        return OK;
    }
    mt_tree_init(ptemp, &tree);
    for (s = s_main; s; s = s->next) {
        mt_conf_t *conf = mt_conf_get(s);
        mt_certsel_t certs[TACK_MAX_CERTS];
        mt_tree_certs_t tc;
        int n, ssl_on, has_tacks, has_own;

        if (s == s_main || s->is_virtual) {
            mt_setup_warn_expired(s, conf);
        }
        has_tacks = conf->files || conf->server_files;
        has_own = has_tacks || mt_nelts(conf->sigfiles);
        if (!has_own && !conf->store && !mt_guard_remembers(s)) {
            continue; /* nothing to check: leave its certificates alone */
        }
        memset(certs, 0, sizeof(certs));
        n = mt_tree_certs(ptemp, &tree, s, certs, TACK_MAX_CERTS, &ssl_on, &tc);
        if (!has_own && !ssl_on) {
            continue; /* only the store, and no TLS here */
        }
        conf->ssl_seen = ssl_on; /* mt_warn_plain_vhosts */
        if (!ssl_on && s->is_virtual && mt_resolve_own_directives(s, conf)) {
            continue; /* nothing is served here: said at the end */
        }
        if (ssl_on) {
            problems += mt_setup_serverinfo(s, &tc);
        }
        if (!n && ssl_on) {
            /* e.g. mod_md: the certificate is found only at a real start */
            all_known = 0;
            if (has_tacks) {
                ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                             "TACK00014: vhost %s: no SSLCertificateFile "
                             "found; TACK target hashes are checked at "
                             "start-up",
                             mt_vhost_name(s));
            }
        }
        problems += mt_setup_vhost(ptemp, ptemp, s, conf, certs, n, n > 0, NULL,
                                   tc.protocols == TACK_PROTO_TLS13);
    }
    problems += mt_setup_end(ptemp, s_main, all_known);
    if (problems) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                     "TACK00015: %d TACK configuration problem%s; refusing "
                     "the configuration",
                     problems, problems == 1 ? "" : "s");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}
