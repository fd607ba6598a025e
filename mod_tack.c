/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack.c -- serve TACK (draft-perrin-tls-tack) from Apache httpd 2.4.
 *
 * The glue between httpd, mod_ssl and OpenSSL: the module record, the hooks
 * and the OpenSSL extension callbacks.  Directives and the loading and
 * checking of files live in mod_tack_config.c and its siblings (mod_tack.h
 * lists them); everything about TACK itself goes through the core library
 * (tack_ext.h).
 *
 * At start-up, mod_ssl's ssl_init_server hook hands over each vhost's
 * SSL_CTX with its certificates loaded.  For each certificate the module
 * builds, once, the extension bodies it may send (one per subset of its TACKs
 * still unexpired) and registers extension 0xF300 with a per-vhost runtime
 * table as callback argument.  A handshake then only compares the
 * certificate pointer OpenSSL chose and the current time against that table,
 * adds to two shared-memory counters (relaxed atomics, mod_tack_status.c)
 * and notes the answer in the connection's conn_config slot, from which
 * post_read_request sets TACK_REQUESTED / TACK_SERVED: no allocation, no
 * lock, no file I/O, no signature work.
 */
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_atomic.h"
#include "apr_strings.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "mod_ssl.h"
#if defined(__has_include)
#if __has_include("mod_ssl_openssl.h")
#include "mod_ssl_openssl.h"
#define TACK_HAVE_MOD_SSL_OPENSSL_H 1
#endif
#endif
#ifndef TACK_HAVE_MOD_SSL_OPENSSL_H
/* Debian's apache2-dev lacks mod_ssl_openssl.h; optional hooks are found by
 * name at run time, so declaring the hook here is enough. */
APR_DECLARE_EXTERNAL_HOOK(ssl, SSL, int, init_server,
                          (server_rec * s, apr_pool_t *p, int is_proxy,
                           SSL_CTX *ctx))
#endif

#include "mod_tack.h"

APLOG_USE_MODULE(tack);

/* ---- building the bodies (start-up) -------------------------------------- */

static void tack_openssl_log(server_rec *s, const char *what)
{
    unsigned long e;
    char buf[256], name[TACK_NAME_SIZE];

    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, buf, sizeof(buf));
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00050: vhost %s: %s: OpenSSL: %s",
                     tack_vhost_name_buf(s, name), what, buf);
    }
}

/* tack_body_build encodes the body for the TACKs of |slot| selected by
 * |mask|.  Returns an empty body when there is nothing to send. */
static tack_body_t tack_body_build(apr_pool_t *p, server_rec *s,
                                   const tack_sel_t *sel,
                                   const tack_slot_t *slot, unsigned mask)
{
    tack_body_t body = {NULL, 0, NULL};
    tack_status_t st;
    /* TACK_EXT00_MAX_LEN = 1 + 166 + 2 + 8 * 128 + 1 is the larger. */
    uint8_t buf[TACK_EXT00_MAX_LEN > TACK_EXT02_MAX_LEN ? TACK_EXT00_MAX_LEN
                                                        : TACK_EXT02_MAX_LEN];
    size_t len = 0;
    char name[TACK_NAME_SIZE];
    int i;

    if (sel->format == TACK_FORMAT_02) {
        tack_ext02_t ext;

        memset(&ext, 0, sizeof(ext));
        for (i = 0; i < slot->ntacks; i++) {
            if (!(mask & (1u << i))) {
                continue;
            }
            /* -02 section 3: bit n activates the n-th TACK of the list */
            if (sel->pin_activation && !slot->tacks[i]->file->inactive) {
                ext.activation_flags |= (uint8_t)(1u << ext.num_tacks);
            }
            ext.tacks[ext.num_tacks++] = slot->tacks[i]->tack;
        }
        if (ext.num_tacks == 0) {
            return body; /* -02 has no empty list: send nothing */
        }
        st = tack_ext02_encode(&ext, buf, sizeof(buf), &len);
    } else {
        tack_ext00_t ext;
        const tack_item_t *item = NULL;

        memset(&ext, 0, sizeof(ext));
        if (slot && slot->ntacks && (mask & 1u)) {
            item = slot->tacks[0];
            ext.has_tack = 1;
            ext.tack = item->tack;
        }
        if (!item && sel->nsigs == 0) {
            return body; /* nothing configured, or the TACK expired */
        }
        ext.num_breaksigs = sel->nsigs;
        memcpy(ext.breaksigs, sel->sigs, sel->nsigs * sizeof(sel->sigs[0]));
        ext.pin_activation =
            sel->pin_activation && !(item && item->file->inactive);
        st = tack_ext00_encode(&ext, buf, sizeof(buf), &len);
    }
    if (st != TACK_OK) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00051: vhost %s: cannot encode the extension: %s",
                     tack_vhost_name_buf(s, name), tack_status_str(st));
        return body;
    }
    /* Only the bytes used: at 10,000 vhosts the maximum size (1,194 bytes
     * per body, two or three bodies per vhost) would cost megabytes. */
    body.data = apr_pmemdup(p, buf, len);
    body.len = len;
    for (i = 0; slot && i < slot->ntacks; i++) {
        if (mask & (1u << i) && (sel->format == TACK_FORMAT_02 || i == 0)) {
            body.served = body.served
                              ? apr_pstrcat(p, body.served, " ",
                                            slot->tacks[i]->fingerprint, NULL)
                              : slot->tacks[i]->fingerprint;
        }
    }
    return body;
}

static tack_rt_t *tack_rt_build(apr_pool_t *p, server_rec *s,
                                const tack_sel_t *sel)
{
    tack_rt_t *rt = apr_pcalloc(p, sizeof(*rt));
    int c, i;
    size_t k;
    unsigned mask;

    rt->s = s;
    rt->format = sel->format;
    rt->pin_activation = sel->pin_activation;
    rt->tls13 = sel->tls13;
    rt->store = sel->store;
    rt->nsigs = sel->nsigs;
    if (sel->nsigs) {
        const char **keys = apr_palloc(p, sel->nsigs * sizeof(*keys));
        const char **files = apr_palloc(p, sel->nsigs * sizeof(*files));

        for (k = 0; k < sel->nsigs; k++) {
            keys[k] = sel->sigfiles[k]->fingerprints[sel->sigidx[k]];
            files[k] = sel->sigfiles[k]->path;
        }
        rt->sig_keys = keys;
        rt->sig_files = files;
    }
    /* Sized by count, as the rest: at 10,000 vhosts every byte per vhost
     * is 10 KB in the parent and again in each child (bench/findings.md). */
    rt->nslots = sel->ncerts;
    rt->slots = apr_pcalloc(p, sizeof(tack_slot_t) * (sel->ncerts + 1));
    for (c = 0; c <= sel->ncerts; c++) {
        tack_slot_t *slot = &rt->slots[c];
        tack_body_t *bodies;

        /* The last slot stands for a certificate the table does not know:
         * no certificate, no TACK, the vhost's break signatures only. */
        if (c < sel->ncerts) {
            slot->cert = sel->certs[c].x509;
            slot->lapsed =
                sel->certs[c].ntacks ? NULL : sel->certs[c].lapsed;
            slot->key_type = sel->certs[c].key_type;
            slot->ntacks = sel->certs[c].ntacks;
            for (i = 0; i < slot->ntacks; i++) {
                slot->tacks[i] = sel->certs[c].tacks[i];
            }
        }
        bodies = apr_palloc(p, sizeof(*bodies) << slot->ntacks);
        for (mask = 0; mask < (1u << slot->ntacks); mask++) {
            bodies[mask] = tack_body_build(p, s, sel, slot, mask);
        }
        slot->bodies = bodies;
        slot->ctr = &tack_ctr_unset;
    }
    return rt;
}

const char *tack_slot_subject(const tack_slot_t *slot,
                              char buf[TACK_SUBJECT_SIZE])
{
    buf[0] = '\0';
    if (slot->cert) {
        tack_cert_name(slot->cert, buf, TACK_SUBJECT_SIZE);
    }
    return buf;
}

/* ---- the handshake ------------------------------------------------------- */

/* tack_cb_ext_parse sees the client's request in the ClientHello.
 * draft-00 section 4.1: the request is empty; anything else is malformed. */
static int tack_cb_ext_parse(SSL *ssl, unsigned int ext_type,
                             unsigned int context, const unsigned char *in,
                             size_t inlen, X509 *x, size_t chainidx, int *al,
                             void *parse_arg)
{
    tack_rt_t *rt = parse_arg;

    if (inlen != 0) {
        /* Only here: SSL_get_app_data costs ~40 instructions a call. */
        conn_rec *c = SSL_get_app_data(ssl);
        char name[TACK_NAME_SIZE];

        if (c) {
            ap_log_cserror(APLOG_MARK, APLOG_INFO, 0, c, rt->s,
                           "TACK00052: vhost %s: non-empty TACK request "
                           "(%" APR_SIZE_T_FMT " bytes) in ClientHello; "
                           "decode_error alert",
                           tack_rt_name(rt, name), inlen);
        }
        *al = SSL_AD_DECODE_ERROR;
        return 0;
    }
    return 1;
}

static void tack_note_expired(tack_rt_t *rt, tack_slot_t *slot, int i)
{
    const tack_item_t *item = slot->tacks[i];
    char name[TACK_NAME_SIZE];

    if (apr_atomic_cas32(&slot->expired_logged[i], 1, 0) != 0) {
        return;
    }
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, rt->s,
                 "TACK00053: vhost %s: %s %s: TACK (key %s) expired at "
                 "%s; no longer served%s",
                 tack_rt_name(rt, name), item->file->kind, item->file->path,
                 item->fingerprint, item->expiry,
                 rt->nsigs ? " (break signatures still are)" : "");
}

/* tack_log_answer traces one answer at LogLevel debug.  Out of line and
 * cold: its buffers and formatting stay off the handshake path, which only
 * tests the level. */
static void __attribute__((noinline, cold))
tack_log_answer(SSL *ssl, conn_rec *c, const tack_rt_t *rt,
                const tack_slot_t *slot, unsigned mask, const tack_body_t *body)
{
    char subject[TACK_SUBJECT_SIZE], name[TACK_NAME_SIZE];

    ap_log_cserror(APLOG_MARK, APLOG_DEBUG, 0, c, rt->s,
                   "TACK00054: vhost %s: %s: TACK requested; %s certificate "
                   "%s: %s%s%s "
                   "(%u live), %" APR_SIZE_T_FMT " break signature(s); "
                   "answer %" APR_SIZE_T_FMT " bytes%s",
                   tack_rt_name(rt, name), SSL_get_version(ssl),
                   slot->cert ? slot->key_type : "unknown",
                   tack_slot_subject(slot, subject),
                   slot->ntacks ? "TACK key " : "no TACK",
                   slot->ntacks ? slot->tacks[0]->fingerprint : "",
                   slot->ntacks > 1 ? " and another" : "",
                   (unsigned)__builtin_popcount(mask),
                   rt->format == TACK_FORMAT_02 ? 0 : rt->nsigs, body->len,
                   body->len ? "" : " (extension omitted)");
}

/* tack_cb_ext_add answers a ClientHello that carried the request (OpenSSL
 * calls it only then, and, with SSL_EXT_IGNORE_ON_RESUMPTION, only on full
 * handshakes).  mod_ssl has switched to the SNI vhost's SSL_CTX by now, so
 * |add_arg| is that vhost's table; and the certificate to be presented is
 * already chosen, so SSL_get_certificate() picks the slot.
 *
 * Besides answering it only counts (two relaxed atomic adds into shared
 * memory) and notes the body in the connection's conn_config slot, a
 * pointer that mod_ssl's conn_rec (its SSL app data) already has room for:
 * no allocation, no lock. */
static int tack_cb_ext_add(SSL *ssl, unsigned int ext_type,
                           unsigned int context, const unsigned char **out,
                           size_t *outlen, X509 *x, size_t chainidx, int *al,
                           void *add_arg)
{
    tack_rt_t *rt = add_arg;
    X509 *cert = SSL_get_certificate(ssl);
    conn_rec *c = SSL_get_app_data(ssl);
    tack_slot_t *slot = &rt->slots[rt->nslots];
    const tack_body_t *body;
    unsigned mask = 0;
    int i;

    for (i = 0; i < rt->nslots; i++) {
        if (rt->slots[i].cert == cert) {
            slot = &rt->slots[i];
            break;
        }
    }
    if (slot->ntacks) {
        time_t now = time(NULL);

        mask = (1u << slot->ntacks) - 1;
        for (i = 0; i < slot->ntacks; i++) {
            if (now >= slot->tacks[i]->expires) {
                mask &= ~(1u << i);
                tack_note_expired(rt, slot, i);
            }
        }
    }
    body = &slot->bodies[mask];
    __atomic_fetch_add(&slot->ctr->requested, 1, __ATOMIC_RELAXED);
    if (body->served) {
        __atomic_fetch_add(&slot->ctr->served, 1, __ATOMIC_RELAXED);
    }
    if (c) {
        ap_set_module_config(c->conn_config, &tack_module, (void *)body);
        if (APLOG_CS_IS_LEVEL(c, rt->s, APLOG_DEBUG)) {
            tack_log_answer(ssl, c, rt, slot, mask, body);
        }
    }
    if (body->len == 0) {
        return 0;
    }
    *out = body->data;
    *outlen = body->len;
    return 1;
}

/* ---- hooks --------------------------------------------------------------- */

#define TACK_MAX_SLOTS 16

static const char *tack_key_type(EVP_PKEY *pkey)
{
    switch (EVP_PKEY_get_base_id(pkey)) {
    case EVP_PKEY_RSA:
        return "RSA";
    case EVP_PKEY_RSA_PSS:
        return "RSA-PSS";
    case EVP_PKEY_EC:
        return "ECDSA";
    default:
        return OBJ_nid2sn(EVP_PKEY_get_base_id(pkey));
    }
}

/* tack_ctx_certs fills |certs| (capacity TACK_MAX_SLOTS) with the
 * certificates mod_ssl loaded into |ctx|, their labels allocated in |tmp|;
 * returns the count. */
static int tack_ctx_certs(server_rec *s, apr_pool_t *tmp, SSL_CTX *ctx,
                          tack_certsel_t *certs)
{
    int n = 0, ok;

    for (ok = SSL_CTX_set_current_cert(ctx, SSL_CERT_SET_FIRST);
         ok && n < TACK_MAX_SLOTS;
         ok = SSL_CTX_set_current_cert(ctx, SSL_CERT_SET_NEXT)) {
        X509 *x509 = SSL_CTX_get0_certificate(ctx);
        char subject[TACK_SUBJECT_SIZE];

        if (!x509 || tack_spki_hash(x509, certs[n].hash) != TACK_OK) {
            tack_openssl_log(s, "hashing a certificate");
            continue;
        }
        tack_cert_name(x509, subject, sizeof(subject));
        certs[n].x509 = x509;
        certs[n].key_type = tack_key_type(X509_get0_pubkey(x509));
        certs[n].subject = apr_pstrdup(tmp, subject);
        certs[n].label =
            apr_psprintf(tmp, "%s certificate %s", certs[n].key_type, subject);
        n++;
    }
    SSL_CTX_set_current_cert(ctx, SSL_CERT_SET_FIRST);
    ERR_clear_error();
    return n;
}

/* tack_ext_register registers extension 0xF300 on |ctx| with |rt| as the
 * callbacks' argument, in TLS 1.3 EncryptedExtensions too when TackTLS13
 * is on.  Returns 1, or 0 (logged) when OpenSSL refuses. */
static int tack_ext_register(server_rec *s, SSL_CTX *ctx,
                             const tack_conf_t *conf, tack_rt_t *rt)
{
    char name[TACK_NAME_SIZE];
    unsigned int context;

    context = SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO |
              SSL_EXT_IGNORE_ON_RESUMPTION;
    if (conf->tls13 == 1) {
        context |= SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS;
    } else {
        context |= SSL_EXT_TLS1_2_AND_BELOW_ONLY;
    }
    if (!SSL_CTX_add_custom_ext(ctx, TACK_EXT_TYPE, context, tack_cb_ext_add,
                                NULL, rt, tack_cb_ext_parse, rt)) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00055: vhost %s: cannot register TLS extension "
                     "0xF300 (already registered, e.g. by SSLOpenSSLConfCmd "
                     "ServerInfoFile?); TACK is not served here",
                     tack_vhost_name_buf(s, name));
        tack_openssl_log(s, "SSL_CTX_add_custom_ext");
        return 0;
    }
    return 1;
}

/* tack_log_serving logs, at info level, what the vhost serves: each TACK
 * with its certificate, and the number of break signatures. */
static void tack_log_serving(server_rec *s, const tack_sel_t *sel)
{
    char name[TACK_NAME_SIZE];
    int c, k;

    for (c = 0; c < sel->ncerts; c++) {
        for (k = 0; k < sel->certs[c].ntacks; k++) {
            const tack_item_t *item = sel->certs[c].tacks[k];

            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                         "TACK00056: vhost %s: serving TACK %s (%s, key %s, "
                         "expires %s%s) for %s",
                         tack_vhost_name_buf(s, name), item->file->path,
                         item->file->kind, item->fingerprint, item->expiry,
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
                     tack_vhost_name_buf(s, name), sel->nsigs);
    }
}

/* tack_warn_tls13_only warns when a vhost that has something to serve
 * speaks only TLS 1.3 while TackTLS13 is off: nothing would be sent. */
static void tack_warn_tls13_only(server_rec *s, SSL_CTX *ctx,
                                 const tack_conf_t *conf, const tack_sel_t *sel)
{
    char name[TACK_NAME_SIZE];
    int c, any = sel->nsigs > 0;

    for (c = 0; c < sel->ncerts; c++) {
        any |= sel->certs[c].ntacks > 0;
    }
    if (any && conf->tls13 != 1 &&
        SSL_CTX_get_min_proto_version(ctx) >= TLS1_3_VERSION) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00061: vhost %s: speaks only TLS 1.3 (SSLProtocol) "
                     "and TackTLS13 is off: no TACK is sent to anyone; add "
                     "TackTLS13 on, or allow TLS 1.2",
                     tack_vhost_name_buf(s, name));
    }
}

/* tack_warn_plain_vhosts warns about vhosts with Tack directives of their
 * own that mod_ssl does not serve (no SSLEngine on): nothing is sent. */
static void tack_warn_plain_vhosts(server_rec *s_main)
{
    char name[TACK_NAME_SIZE];
    server_rec *s;

    for (s = s_main->next; s; s = s->next) {
        tack_conf_t *conf = tack_config_get(s);

        if (!conf->ssl_seen && tack_own_directives(s, conf)) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00062: vhost %s: Tack directives in a virtual "
                         "host without SSLEngine on: nothing is served here "
                         "(an Include shared with a plain-HTTP vhost?)",
                         tack_vhost_name_buf(s, name));
        }
    }
}

/* tack_hook_init_server runs once per SSL vhost, at every start and restart,
 * on a fresh SSL_CTX with its certificates loaded.
 *
 * The SNI trap: OpenSSL 3.0 collects the ClientHello's extensions with the
 * extension table of the context the connection started on -- the default
 * vhost of the address -- before mod_ssl switches to the SNI vhost's.  If
 * that first context has not registered 0xF300, the request is dropped for
 * every vhost behind it (and libssl over-reads its table).  So the extension
 * is registered on every server context, with or without anything to send.
 *
 * TLS 1.3 and SNI (t/apache/tls13.t): the SNI vhost's TackTLS13 decides, in
 * both directions.  The default vhost's table only has to know 0xF300 for
 * the request to be collected; whether it is relevant to TLS 1.3, parsed
 * and answered is decided with the table of the context mod_ssl switched
 * to. */
static int tack_hook_init_server(server_rec *s, apr_pool_t *p, int is_proxy,
                                 SSL_CTX *ctx)
{
    tack_conf_t *conf = tack_config_get(s);
    tack_certsel_t certs[TACK_MAX_SLOTS];
    tack_sel_t sel;
    tack_rt_t *rt;
    apr_pool_t *tmp;
    int n;

    if (is_proxy) {
        return OK; /* a client-role context for backend connections */
    }
    /* Labels and messages only live as long as this call: at 10,000 vhosts
     * whatever stays in |p| is paid for in the parent and every child. */
    if (apr_pool_create(&tmp, p) != APR_SUCCESS) {
        tmp = p;
    }
    memset(certs, 0, sizeof(certs));
    conf->ssl_seen = 1;
    n = tack_ctx_certs(s, tmp, ctx, certs);
    tack_config_resolve(tmp, s, conf, certs, n, 1, &sel);
    tack_sign_vhost(p, s, conf, &sel);
    tack_guard_recover(p, s, conf, &sel);
    tack_config_mark_cert_bound(&sel);
    rt = tack_rt_build(p, s, &sel);
    tack_guard_note(s, conf, &sel, rt);
    tack_status_add(p, rt);
    if (tack_ext_register(s, ctx, conf, rt)) {
        rt->registered = 1;
        if (!tack_config_quiet()) {
            tack_log_serving(s, &sel);
            tack_config_warn_expiry(s, &sel);
            tack_config_warn_partial(s, conf, &sel);
            tack_warn_tls13_only(s, ctx, conf, &sel);
        }
    }
    if (tmp != p) {
        apr_pool_destroy(tmp);
    }
    return OK;
}

/* tack_hook_post_config runs after mod_ssl's, so after every vhost went
 * through tack_hook_init_server: report what could not be served. */
static int tack_hook_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                                 apr_pool_t *ptemp, server_rec *s)
{
    tack_config_vcache_prune(s);
    tack_sign_end(s); /* no signing key outlives the pass */
    if (tack_config_strict()) {
        return OK;
    }
    tack_guard_check(s);
    tack_guard_end(s);
    if (!tack_config_quiet()) {
        tack_warn_plain_vhosts(s);
    }
    tack_config_log_load_errors(s);
    tack_config_log_warnings(s);
    tack_config_check_unmatched(s);
    tack_config_log_stores(s, 1);
    return tack_status_post_config(pconf, ptemp, s);
}

/* tack_hook_post_read_request sets TACK_REQUESTED=1 on every request of a
 * connection whose full handshake asked for TACK, and TACK_SERVED to the
 * fingerprints of the TACKs it received, from the note tack_cb_ext_add left
 * in the connection's conn_config.  An HTTP/2 stream runs on a secondary
 * connection: the note is on the master. */
static int tack_hook_post_read_request(request_rec *r)
{
    conn_rec *c = r->connection->master ? r->connection->master : r->connection;
    const tack_body_t *body =
        ap_get_module_config(c->conn_config, &tack_module);

    if (body) {
        apr_table_setn(r->subprocess_env, TACK_ENV_REQUESTED, "1");
        if (body->served) {
            apr_table_setn(r->subprocess_env, TACK_ENV_SERVED, body->served);
        }
    }
    return DECLINED;
}

static void tack_register_hooks(apr_pool_t *p)
{
    static const char *const after_ssl[] = {"mod_ssl.c", NULL};

    ap_hook_pre_config(tack_config_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(tack_config_check, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(tack_hook_post_config, after_ssl, NULL,
                        APR_HOOK_MIDDLE);
    APR_OPTIONAL_HOOK(ssl, init_server, tack_hook_init_server, NULL, NULL,
                      APR_HOOK_MIDDLE);
    ap_hook_post_read_request(tack_hook_post_read_request, NULL, NULL,
                              APR_HOOK_MIDDLE);
    tack_status_register_hooks(p);
    tack_sign_register_hooks(p);
}

/* Spelled out rather than AP_DECLARE_MODULE(tack), which would repeat the
 * APLOG_USE_MODULE(tack) that the log calls above already need. */
module AP_MODULE_DECLARE_DATA tack_module = {
    STANDARD20_MODULE_STUFF,
    NULL,                /* per-directory config: none */
    NULL,                /* merge per-directory */
    tack_config_create,  /* per-server config */
    tack_config_merge,   /* merge per-server */
    tack_config_cmds,    /* directives */
    tack_register_hooks, /* hooks */
    AP_MODULE_FLAG_ALWAYS_MERGE,
};
