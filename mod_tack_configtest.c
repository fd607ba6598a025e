/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_configtest.c -- "apache2 -t": mod_ssl loads no certificate in a
 * configuration test and the ssl_init_server hook does not run, so the
 * certificates each server will have are found by walking the configuration
 * tree for SSLCertificateFile (and SSLEngine), and every server's TACKs are
 * resolved against them (tack_config_check); any problem refuses the
 * configuration.
 */
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

#include "mod_tack.h"

APLOG_USE_MODULE(tack);

/* ---- certificates from the configuration tree (apache2 -t only) ---------- */

/* What the tree says about one server's certificates. */
typedef struct {
    apr_array_header_t *paths; /* const char *, in order */
    int ssl_on;                /* SSLEngine on (or unset: -1) */
    const char *serverinfo;    /* SSLOpenSSLConfCmd ServerInfoFile, or NULL */
    const ap_directive_t *serverinfo_where;
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
        } else if (!strcasecmp(d->directive, "SSLOpenSSLConfCmd")) {
            char *cmd = ap_getword_conf(p, &args);
            char *word = ap_getword_conf(p, &args);

            if (!strcasecmp(cmd, "ServerInfoFile") && *word) {
                out->serverinfo = ap_server_root_relative(p, word);
                out->serverinfo_where = d;
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
    tree->top.serverinfo = NULL;
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
                           int *ssl_on, tack_tree_certs_t *tcout)
{
    tack_tree_certs_t tc;
    const ap_directive_t *vh;
    int types[16], n = 0, i, j;

    tc.paths = apr_array_copy(p, tree->top.paths);
    tc.ssl_on = tree->top.ssl_on;
    tc.serverinfo = tree->top.serverinfo;
    tc.serverinfo_where = tree->top.serverinfo_where;
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
    *tcout = tc;
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
        certs[j].key_type = type == EVP_PKEY_EC    ? "ECDSA"
                            : type == EVP_PKEY_RSA ? "RSA"
                                                   : OBJ_nid2sn(type);
        types[j] = type;
        if (j == n) {
            n++;
        }
    }
    return n;
}

#define TACK_MAX_CERTS 8

/* tack_config_serverinfo refuses a ServerInfoFile that sends extension
 * 0xF300 beside mod_tack: OpenSSL would send the file's TACK and refuse
 * the module's registration, so the status page and the wire would
 * disagree.  Returns the number of problems. */
static int tack_config_serverinfo(server_rec *s, const tack_tree_certs_t *tc)
{
    char *text;
    size_t len;
    int has;

    if (!tc->serverinfo ||
        tack_file_read(tc->serverinfo, TACK_FILE_MAX_DEFAULT, &text, &len) !=
            TACK_OK) {
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
                 tack_vhost_name(s), tc->serverinfo,
                 TACK_WHERE(tc->serverinfo_where));
    return 1;
}

/* tack_config_warn_expired says, under -t, which TackFiles of |s| are left
 * out because they expired (a warning: a condition of time). */
static void tack_config_warn_expired(server_rec *s, const tack_conf_t *conf)
{
    tack_file_t **f = tack_elts(conf->files);
    int i;

    for (i = 0; i < tack_nelts(conf->files); i++) {
        if (f[i]->error && f[i]->expired) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00024: %s (" TACK_WHERE_FMT "); left out: sign "
                         "a new one (an expired TACK is warned about, not "
                         "refused)",
                         f[i]->error, TACK_WHERE(f[i]->where));
        }
    }
}

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
        tack_tree_certs_t tc;
        tack_sel_t sel;
        int n, ssl_on, has_tacks, has_own;

        if (s == s_main || s->is_virtual) {
            tack_config_warn_expired(s, conf);
        }
        has_tacks = tack_nelts(conf->files) || tack_nelts(conf->server_files);
        has_own = has_tacks || tack_nelts(conf->sigfiles);
        if (!has_own && !conf->store && !tack_guard_remembers(s)) {
            continue; /* nothing to check: leave its certificates alone */
        }
        memset(certs, 0, sizeof(certs));
        n = tack_tree_certs(ptemp, &tree, s, certs, TACK_MAX_CERTS, &ssl_on,
                            &tc);
        if (!has_own && !ssl_on) {
            continue; /* only the store, and no TLS here */
        }
        if (!ssl_on && s->is_virtual && tack_own_directives(s, conf)) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00026: vhost %s: Tack directives in a virtual "
                         "host without SSLEngine on: nothing is served here "
                         "(an Include shared with a plain-HTTP vhost?)",
                         tack_vhost_name(s));
            continue;
        }
        if (ssl_on) {
            problems += tack_config_serverinfo(s, &tc);
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
        tack_config_warn_partial(s, conf, &sel);
        if (n > 0) {
            tack_guard_note(s, conf, &sel, NULL);
        }
    }
    if (all_known) {
        problems += tack_config_check_unmatched(s_main);
    }
    problems += tack_config_log_stores(s_main, all_known);
    problems += tack_sign_check(ptemp, s_main);
    problems += tack_guard_check(s_main);
    tack_sign_end(s_main);
    tack_guard_end(s_main);
    tack_config_log_warnings(s_main);
    if (problems) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                     "TACK00015: %d TACK configuration problem%s; refusing "
                     "the configuration",
                     problems, problems == 1 ? "" : "s");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}
