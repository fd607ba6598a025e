/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pkcs11.c -- TACK keys in a PKCS#11 token, loaded through OpenSSL's
 * pkcs11-provider and OSSL_STORE.  See tack_pkcs11.h.
 *
 * The provider lives in a library context of its own, one per PKCS#11
 * module, with the default and base providers beside it: never in the
 * default context, never through OPENSSL_CONF, so that nothing of it
 * reaches mod_ssl or the rest of httpd.  The contexts are kept for the
 * life of the process (a key holds its provider), each recorded with
 * tack_key_libctx_add so that tack_key.c signs with the key's own
 * context.
 *
 * What the URI names is read by tack_pkcs11_uri.c, the PKCS#11 module
 * asked directly by tack_pkcs11_token.c; here are the API (tack_pkcs11.h),
 * the provider's contexts and the load.
 */
#include "tack_pkcs11.h"
#include "tack_key.h"
#include "tack_pkcs11_token.h"
#include "tack_pkcs11_uri.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/conf.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/provider.h>
#include <openssl/store.h>
#include <openssl/ui.h>

/* The provider's name. */
#define TACK_PK11_PROVIDER "pkcs11"
/* The longest PIN a pin-source file may hold (PKCS#11 has no limit;
 * tokens take far less). */
#define TACK_PK11_PIN_SIZE TACK_PKCS11_PIN_SIZE

#if TACK_PK11_ERR_SIZE != TACK_PKCS11_ERR_SIZE
#error "tack_pkcs11_uri.h's TACK_PK11_ERR_SIZE is not TACK_PKCS11_ERR_SIZE"
#endif

/* ---- URIs (RFC 7512) ---------------------------------------------------- */

int tack_key_is_uri(const char *spec)
{
    return tack_pk11_is_uri(spec);
}

tack_status_t tack_pkcs11_uri_check(const char *uri, char *err, size_t err_len)
{
    tack_pk11_uri_t *u = OPENSSL_zalloc(sizeof(*u));
    tack_status_t st;

    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (u == NULL) {
        return tack_pk11_fail(err, err_len, TACK_ERR_NOMEM, "out of memory");
    }
    st = tack_pk11_uri_parse(uri, u, err, err_len);
    tack_pk11_uri_wipe(u);
    OPENSSL_free(u);
    return st;
}

int tack_pkcs11_uri_has_pin(const char *uri)
{
    tack_pk11_uri_t *u = OPENSSL_zalloc(sizeof(*u));
    int has = 0;

    if (u != NULL && tack_pk11_uri_parse(uri, u, NULL, 0) == TACK_OK) {
        has = u->has_pin_value || u->pin_source[0] != '\0';
    } else if (u != NULL && tack_key_is_uri(uri)) {
        /* A URI that does not parse fails at its load, with the reason;
         * asking for a PIN first would only delay that. */
        has = 1;
    }
    if (u != NULL) {
        tack_pk11_uri_wipe(u);
        OPENSSL_free(u);
    }
    ERR_clear_error();
    return has;
}

/* ---- The provider, in a library context of its own --------------------- */

typedef struct tack_pk11_ctx_st {
    struct tack_pk11_ctx_st *next;
    char module[TACK_PK11_ATTR_SIZE]; /* "" for the provider's default */
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *pkcs11, *deflt, *base;
} tack_pk11_ctx_t;

/* Every context made, for the life of the process: a key holds its
 * provider, and a PKCS#11 module is initialised once per process. */
static tack_pk11_ctx_t *tack_pk11_ctxs;
static CRYPTO_RWLOCK *tack_pk11_lock;
static CRYPTO_ONCE tack_pk11_lock_once = CRYPTO_ONCE_STATIC_INIT;

static void tack_pk11_lock_init(void)
{
    tack_pk11_lock = CRYPTO_THREAD_lock_new();
}

/* tack_pk11_conf_quote writes |in| to |out| as a double-quoted value of an
 * OpenSSL configuration (where only '"' and '\' need a backslash).  0
 * when it does not fit or holds a control character. */
static int tack_pk11_conf_quote(const char *in, char *out, size_t out_size)
{
    size_t n = 0;

    if (out_size < 3) {
        return 0;
    }
    out[n++] = '"';
    for (; *in != '\0'; in++) {
        if ((unsigned char)*in < 0x20 || *in == 0x7f || n + 4 >= out_size) {
            return 0;
        }
        if (*in == '"' || *in == '\\') {
            out[n++] = '\\';
        }
        out[n++] = *in;
    }
    out[n++] = '"';
    out[n] = '\0';
    return 1;
}

/* tack_pk11_ctx_new makes a library context with the pkcs11 provider for
 * |module| ("": its default) and the default and base providers.  The
 * module reaches the provider as its pkcs11-module-path parameter,
 * through a configuration read into this context alone (OpenSSL 3.0 has
 * no other way to give a provider a parameter); the provider itself is
 * found where OpenSSL keeps its modules. */
static tack_pk11_ctx_t *tack_pk11_ctx_new(const char *module, char *err,
                                          size_t err_len, tack_status_t *st)
{
    tack_pk11_ctx_t *c = OPENSSL_zalloc(sizeof(*c));
    char quoted[2 * TACK_PK11_ATTR_SIZE + 3], text[3 * TACK_PK11_ATTR_SIZE];
    const OSSL_PROVIDER *provs[3];
    CONF *conf = NULL;
    BIO *bio = NULL;
    long line = 0;
    int ok;

    *st = TACK_ERR_NOMEM;
    if (c == NULL || (c->libctx = OSSL_LIB_CTX_new()) == NULL) {
        OPENSSL_free(c);
        tack_pk11_fail(err, err_len, *st, "out of memory");
        return NULL;
    }
    snprintf(c->module, sizeof(c->module), "%s", module);
    if (module[0] != '\0') {
        if (!tack_pk11_conf_quote(module, quoted, sizeof(quoted))) {
            *st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                                 "module-path has a control character or "
                                 "is too long");
            goto fail;
        }
        snprintf(text, sizeof(text),
                 "tack_conf = tack_init\n"
                 "[tack_init]\n"
                 "providers = tack_providers\n"
                 "[tack_providers]\n"
                 "%s = tack_pkcs11\n"
                 "[tack_pkcs11]\n"
                 "pkcs11-module-path = %s\n",
                 TACK_PK11_PROVIDER, quoted);
        conf = NCONF_new_ex(c->libctx, NULL);
        bio = BIO_new_mem_buf(text, -1);
        ok = conf != NULL && bio != NULL && NCONF_load_bio(conf, bio, &line) &&
             CONF_modules_load(conf, "tack_conf", 0) > 0;
        BIO_free(bio);
        NCONF_free(conf);
        if (!ok) {
            unsigned long e = ERR_peek_last_error();
            const char *why = e != 0 ? ERR_reason_error_string(e) : NULL;

            *st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                                 "cannot configure the pkcs11 provider%s%s",
                                 why != NULL ? ": " : "", why ? why : "");
            goto fail;
        }
    }
    c->pkcs11 = OSSL_PROVIDER_load(c->libctx, TACK_PK11_PROVIDER);
    if (c->pkcs11 == NULL) {
        *st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                             "the OpenSSL provider \"pkcs11\" is not "
                             "installed (Debian: pkcs11-provider; on "
                             "Debian 12 from bookworm-backports)");
        goto fail;
    }
    c->deflt = OSSL_PROVIDER_load(c->libctx, "default");
    c->base = OSSL_PROVIDER_load(c->libctx, "base");
    if (c->deflt == NULL || c->base == NULL) {
        *st = tack_pk11_fail(err, err_len, TACK_ERR_CRYPTO,
                             "cannot load OpenSSL's default provider");
        goto fail;
    }
    /* Keys of these providers are signed in this context (tack_key.c). */
    provs[0] = c->pkcs11;
    provs[1] = c->deflt;
    provs[2] = c->base;
    if (tack_key_libctx_add(c->libctx, provs, 3) != TACK_OK) {
        *st = tack_pk11_fail(err, err_len, TACK_ERR_NOMEM, "out of memory");
        goto fail;
    }
    *st = TACK_OK;
    return c;
fail:
    if (c->base != NULL) {
        OSSL_PROVIDER_unload(c->base);
    }
    if (c->deflt != NULL) {
        OSSL_PROVIDER_unload(c->deflt);
    }
    if (c->pkcs11 != NULL) {
        OSSL_PROVIDER_unload(c->pkcs11);
    }
    OSSL_LIB_CTX_free(c->libctx);
    OPENSSL_free(c);
    return NULL;
}

/* tack_pk11_ctx returns the context for |module|, made at its first use. */
static tack_pk11_ctx_t *tack_pk11_ctx(const char *module, char *err,
                                      size_t err_len, tack_status_t *st)
{
    tack_pk11_ctx_t *c;

    if (!CRYPTO_THREAD_run_once(&tack_pk11_lock_once, tack_pk11_lock_init) ||
        tack_pk11_lock == NULL || !CRYPTO_THREAD_write_lock(tack_pk11_lock)) {
        *st = tack_pk11_fail(err, err_len, TACK_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (c = tack_pk11_ctxs; c != NULL; c = c->next) {
        if (strcmp(c->module, module) == 0) {
            break;
        }
    }
    if (c == NULL &&
        (c = tack_pk11_ctx_new(module, err, err_len, st)) != NULL) {
        c->next = tack_pk11_ctxs;
        tack_pk11_ctxs = c;
    }
    CRYPTO_THREAD_unlock(tack_pk11_lock);
    if (c != NULL) {
        *st = TACK_OK;
    }
    return c;
}

/* ---- The PIN ---------------------------------------------------------------
 */

/* tack_pk11_pin_cb gives the provider the PIN (a pem_password_cb, wrapped
 * as a UI_METHOD for OSSL_STORE_open_ex): never a prompt, neither on
 * httpd's terminal nor the tool's, which asks for the PIN itself.  The UI
 * layer wipes its copy. */
static int tack_pk11_pin_cb(char *buf, int size, int rwflag, void *u)
{
    tack_pk11_pin_t *pin = u;

    if (pin == NULL) {
        return -1;
    }
    pin->asked = 1;
    if (pin->pin == NULL || size < 0 || pin->pin_len > (size_t)size) {
        return -1;
    }
    memcpy(buf, pin->pin, pin->pin_len);
    return (int)pin->pin_len;
}

tack_status_t tack_pkcs11_uri_pin(const char *uri, char *out, size_t out_size,
                                  size_t *out_len, char *err, size_t err_len)
{
    tack_pk11_uri_t *u;
    tack_status_t st = TACK_OK;
    size_t n;

    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (out == NULL || out_len == NULL || out_size < TACK_PK11_PIN_SIZE) {
        return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                              "no room for the PIN");
    }
    *out_len = 0;
    if ((u = OPENSSL_zalloc(sizeof(*u))) == NULL) {
        return tack_pk11_fail(err, err_len, TACK_ERR_NOMEM, "out of memory");
    }
    if ((st = tack_pk11_uri_parse(uri, u, err, err_len)) != TACK_OK) {
        goto done;
    }
    if (u->has_pin_value) {
        n = strlen(u->pin_value);
        memcpy(out, u->pin_value, n);
        *out_len = n;
    } else if (u->pin_source[0] != '\0') {
        st = tack_pk11_pin_source(u->pin_source, out, out_size, out_len, err,
                                  err_len);
    } else {
        st = tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                            "the URI carries no PIN");
    }
done:
    tack_pk11_uri_wipe(u);
    OPENSSL_free(u);
    ERR_clear_error();
    return st;
}

/* ---- The key ------------------------------------------------------------- */

/* tack_pk11_type_name names |key|'s algorithm for messages: "RSA", ... */
static const char *tack_pk11_type_name(EVP_PKEY *key)
{
    int id = EVP_PKEY_get_base_id(key);
    const char *name = id == EVP_PKEY_RSA ? "RSA" : OBJ_nid2sn(id);

    return name != NULL ? name : "of an unknown type";
}

/* tack_pk11_check_key makes sure |key| is P-256 and, when |sign|, that it
 * can sign TACKs. */
static tack_status_t tack_pk11_check_key(EVP_PKEY *key, int sign, char *err,
                                         size_t err_len)
{
    char group[64] = "";
    size_t len = 0;
    uint8_t pub[TACK_KEY_LEN];
    tack_status_t st;

    if (tack_key_public(key, pub) != TACK_OK) {
        if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) {
            return tack_pk11_fail(err, err_len, TACK_ERR_BAD_KEY,
                                  "not an EC P-256 key (it is %s): a TACK "
                                  "key is ECDSA P-256",
                                  tack_pk11_type_name(key));
        }
        (void)EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME,
                                             group, sizeof(group), &len);
        return tack_pk11_fail(err, err_len, TACK_ERR_BAD_KEY,
                              "not an EC P-256 key (it is EC on %s): a "
                              "TACK key is ECDSA P-256",
                              group[0] ? group : "another curve");
    }
    st = sign ? tack_key_check_signing(key) : TACK_OK;
    if (st == TACK_ERR_KEY_MISMATCH) {
        return tack_pk11_fail(err, err_len, st,
                              "the token's public key is not the one of its "
                              "private key: signatures would not verify");
    }
    if (st != TACK_OK) {
        unsigned long e = ERR_peek_error();
        const char *why = e != 0 ? ERR_reason_error_string(e) : NULL;

        return tack_pk11_fail(err, err_len, st, "the key cannot sign%s%s",
                              why != NULL ? ": " : "", why ? why : "");
    }
    return TACK_OK;
}

/* ---- Loading ---------------------------------------------------------------
 */

/* tack_pk11_ckr is the PKCS#11 return value behind the newest error the
 * provider left on the queue (it puts a failed call's CKR_ code in the
 * reason), or 0; the last reason goes to |last|.  The queue is emptied. */
static unsigned long tack_pk11_ckr(char *last, size_t last_size)
{
    unsigned long e, ckr = 0;

    last[0] = '\0';
    while ((e = ERR_get_error()) != 0) {
        unsigned long r = (unsigned long)ERR_GET_REASON(e);
        const char *reason = ERR_reason_error_string(e);

        if (r == 0xA0 || r == 0xA1 || r == 0xA2 || r == 0xA4) {
            ckr = r;
        }
        if (reason != NULL) {
            snprintf(last, last_size, "%s", reason);
        }
    }
    return ckr;
}

/* tack_pk11_load_error explains why the store gave no key. */
static tack_status_t tack_pk11_load_error(const tack_pk11_uri_t *u,
                                          const char *module,
                                          const tack_pk11_pin_t *pin,
                                          const char *kind, char *err,
                                          size_t err_len)
{
    char last[256];
    unsigned long ckr = tack_pk11_ckr(last, sizeof(last));

    if (ckr != 0) {
        return tack_pk11_login_refused(ckr, 0, err, err_len);
    }
    /* pkcs11-provider leaves no error behind a failed login: the token
     * says whether the login took.  (tack_pk11_reach has logged in
     * first, with the code, when the URI names the token's label.) */
    if (pin->asked && pin->pin != NULL && u->has_token) {
        char names[256];
        int login;

        if (tack_pk11_list_tokens(module, u->token, names, sizeof(names),
                                  &login) == 1) {
            if (login == TACK_PK11_LOCKED) {
                return tack_pk11_fail(err, err_len, TACK_ERR_WRONG_PASSWORD,
                                      "the token's PIN is locked (login "
                                      "refused)");
            }
            if (login == TACK_PK11_LOGGED_OUT) {
                return tack_pk11_fail(err, err_len, TACK_ERR_WRONG_PASSWORD,
                                      "wrong PIN (login refused)");
            }
        }
    }
    /* Looking for a public object, the provider logs in when it finds
     * none: that it wanted a PIN then means no such object. */
    if (pin->asked && pin->pin == NULL && strcmp(kind, "private") == 0) {
        return tack_pk11_fail(err, err_len, TACK_ERR_WRONG_PASSWORD,
                              "the token needs a PIN and none was given");
    }
    return tack_pk11_not_found(u, module, kind, err, err_len);
}

/* tack_pk11_store_load opens |store_uri| in |c|'s context and returns the
 * one key of the kind wanted (|private|), or NULL: |*several| is set when
 * more than one matches. */
static EVP_PKEY *tack_pk11_store_load(tack_pk11_ctx_t *c, const char *store_uri,
                                      int private, UI_METHOD *ui,
                                      tack_pk11_pin_t *pin, int *several)
{
    OSSL_STORE_CTX *store;
    EVP_PKEY *key = NULL;
    int want = private ? OSSL_STORE_INFO_PKEY : OSSL_STORE_INFO_PUBKEY;

    *several = 0;
    store = OSSL_STORE_open_ex(store_uri, c->libctx, NULL, ui, pin, NULL, NULL,
                               NULL);
    if (store == NULL) {
        return NULL;
    }
    (void)OSSL_STORE_expect(store, want);
    while (!OSSL_STORE_eof(store)) {
        OSSL_STORE_INFO *info = OSSL_STORE_load(store);
        EVP_PKEY *k = NULL;

        if (info == NULL) {
            if (OSSL_STORE_error(store)) {
                break;
            }
            continue;
        }
        if (OSSL_STORE_INFO_get_type(info) == want) {
            k = private ? OSSL_STORE_INFO_get1_PKEY(info)
                        : OSSL_STORE_INFO_get1_PUBKEY(info);
        }
        OSSL_STORE_INFO_free(info);
        if (k != NULL && key != NULL) {
            EVP_PKEY_free(k);
            *several = 1;
        } else if (k != NULL) {
            key = k;
        }
    }
    OSSL_STORE_close(store);
    if (*several) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    return key;
}

/* tack_pk11_load is tack_pkcs11_load, for the private key or (|private|
 * 0) the public key object of |uri|. */
static tack_status_t tack_pk11_load(const char *uri, const char *pin,
                                    size_t pin_len, int private, EVP_PKEY **out,
                                    char *err, size_t err_len)
{
    char module[TACK_PK11_ATTR_SIZE], store_uri[2 * TACK_PK11_ATTR_SIZE];
    char source_pin[TACK_PK11_PIN_SIZE];
    const char *kind = private ? "private" : "public";
    tack_pk11_uri_t *u = NULL;
    tack_pk11_pin_t given = {NULL, 0, 0};
    tack_pk11_ctx_t *c;
    UI_METHOD *ui = NULL;
    EVP_PKEY *key = NULL;
    tack_status_t st;
    int several = 0;

    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (out == NULL || !tack_key_is_uri(uri)) {
        return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                              "not a pkcs11: URI");
    }
    if (pin != NULL && memchr(pin, '\0', pin_len) != NULL) {
        return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                              "the PIN has a NUL byte in it");
    }
    if ((u = OPENSSL_zalloc(sizeof(*u))) == NULL) {
        return tack_pk11_fail(err, err_len, TACK_ERR_NOMEM, "out of memory");
    }
    if ((st = tack_pk11_uri_parse(uri, u, err, err_len)) != TACK_OK) {
        goto done;
    }
    /* A TACK key is a private key object, shown by its public one. */
    if (u->type[0] != '\0' && strcmp(u->type, "private") != 0 &&
        strcmp(u->type, "public") != 0) {
        st = tack_pk11_fail(err, err_len, TACK_ERR_BAD_KEY,
                            "type=%s is not a key: a TACK key is a private "
                            "key object (type=private)",
                            u->type);
        goto done;
    }
    if (private && strcmp(u->type, "public") == 0) {
        st = tack_pk11_fail(err, err_len, TACK_ERR_BAD_KEY,
                            "type=public cannot sign: name the private "
                            "key object (type=private)");
        goto done;
    }
    if (!tack_pk11_store_uri(u, kind, store_uri, sizeof(store_uri))) {
        st = tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                            "the URI is too long");
        goto done;
    }
    /* The URI's own PIN first (RFC 7512 section 2.3), then the caller's. */
    if (!private) {
        given.pin = NULL;
    } else if (u->has_pin_value) {
        given.pin = u->pin_value;
        given.pin_len = strlen(u->pin_value);
    } else if (u->pin_source[0] != '\0') {
        st = tack_pk11_pin_source(u->pin_source, source_pin, sizeof(source_pin),
                                  &given.pin_len, err, err_len);
        if (st != TACK_OK) {
            goto done;
        }
        given.pin = source_pin;
    } else if (pin != NULL) {
        given.pin = pin;
        given.pin_len = pin_len;
    }
    /* An empty PIN is a mistake of its source (an empty file, a program
     * that printed nothing useful): sent, it would count as a wrong PIN
     * towards the token's lock.  Refused before any login. */
    if (given.pin != NULL && given.pin_len == 0) {
        if (u->has_pin_value) {
            st = tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                                "pin-value is empty; not sent to the token");
        } else if (u->pin_source[0] != '\0') {
            st = tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                                "pin-source %s: the PIN is empty (an empty "
                                "first line); not sent to the token",
                                tack_pk11_source_path(u->pin_source));
        } else {
            st = tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                                "the PIN is empty; not sent to the token");
        }
        goto done;
    }
    if ((st = tack_pk11_module(u, module, sizeof(module), err, err_len)) !=
        TACK_OK) {
        goto done;
    }
    /* Whether the token can be reached, and takes the PIN, asked of the
     * module itself: through the provider all three failures look alike. */
    if ((st = tack_pk11_reach(u, module[0] ? module : TACK_PK11_DEFAULT_MODULE,
                              &given, err, err_len)) != TACK_OK) {
        goto done;
    }
    if ((c = tack_pk11_ctx(module, err, err_len, &st)) == NULL) {
        goto done;
    }
    ui = UI_UTIL_wrap_read_pem_callback(tack_pk11_pin_cb, 0);
    if (ui == NULL) {
        st = tack_pk11_fail(err, err_len, TACK_ERR_NOMEM, "out of memory");
        goto done;
    }
    ERR_clear_error();
    key = tack_pk11_store_load(c, store_uri, private, ui, &given, &several);
    if (several) {
        st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                            "more than one %s key matches: name one with "
                            "object= or id=",
                            kind);
    } else if (key == NULL) {
        st = tack_pk11_load_error(u,
                                  module[0] ? module : TACK_PK11_DEFAULT_MODULE,
                                  &given, kind, err, err_len);
    } else if ((st = tack_pk11_check_key(key, private, err, err_len)) !=
               TACK_OK) {
        EVP_PKEY_free(key);
        key = NULL;
    }
done:
    UI_destroy_method(ui);
    OPENSSL_cleanse(source_pin, sizeof(source_pin));
    tack_pk11_uri_wipe(u);
    OPENSSL_free(u);
    if (key == NULL) {
        return st;
    }
    ERR_clear_error();
    *out = key;
    return TACK_OK;
}

/* tack_pk11_load_quiet is tack_pk11_load with SIGPIPE blocked in this
 * thread: p11-kit's client writes to its socket without MSG_NOSIGNAL, and
 * a server that goes away (a forwarding whose far end closes) would end
 * the tool with SIGPIPE.  One raised meanwhile is taken off before the
 * old mask comes back (httpd ignores SIGPIPE anyway). */
static tack_status_t tack_pk11_load_quiet(const char *uri, const char *pin,
                                          size_t pin_len, int private,
                                          EVP_PKEY **out, char *err,
                                          size_t err_len)
{
    sigset_t pipe_set, old_set;
    tack_status_t st;

    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    st = tack_pk11_load(uri, pin, pin_len, private, out, err, err_len);
    if (!sigismember(&old_set, SIGPIPE)) {
        struct timespec zero = {0, 0};

        while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE) {
        }
        pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    }
    return st;
}

int tack_pkcs11_env_module(char *value, size_t value_len)
{
    const char *env = getenv(TACK_PKCS11_ENV_MODULE);
    int set = env != NULL && env[0] != '\0';

    if (set && value_len > 0) {
        snprintf(value, value_len, "%s", env);
    }
    if (env != NULL) {
        unsetenv(TACK_PKCS11_ENV_MODULE);
    }
    return set;
}

tack_status_t tack_pkcs11_load(const char *uri, const char *pin, size_t pin_len,
                               EVP_PKEY **out, char *err, size_t err_len)
{
    tack_pkcs11_env_module(NULL, 0); /* before the provider reads it */
    return tack_pk11_load_quiet(uri, pin, pin_len, 1, out, err, err_len);
}

tack_status_t tack_pkcs11_load_public(const char *uri, EVP_PKEY **out,
                                      char *err, size_t err_len)
{
    tack_pkcs11_env_module(NULL, 0);
    return tack_pk11_load_quiet(uri, NULL, 0, 0, out, err, err_len);
}
