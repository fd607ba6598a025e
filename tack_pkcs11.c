/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pkcs11.c -- TACK keys in a PKCS#11 token, loaded through OpenSSL's
 * "pkcs11" engine (libp11).  See tack_pkcs11.h.
 *
 * Debian 12 has no OpenSSL 3 PKCS#11 provider, only the engine, and the
 * engine API is deprecated in OpenSSL 3.0: this is the one file of the
 * project that uses it, so the deprecation warnings are silenced here only.
 *
 * libp11 says "object not found" both for a token that is not there and
 * for a key that is not in the token.  To tell the user which, a failed
 * load asks the PKCS#11 module itself for its tokens' labels (PKCS#11 v2.40
 * C_GetSlotList / C_GetTokenInfo), through the few declarations below: the
 * core needs no PKCS#11 header.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include "tack_pkcs11.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/engine.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/ui.h>

/* The engine's id, and the module it loads when the URI names none. */
#define TACK_PK11_ENGINE "pkcs11"
#define TACK_PK11_DEFAULT_MODULE "p11-kit-proxy.so"

/* The longest attribute value we look at: a token label is 32 bytes
 * (PKCS#11 v2.40 section 3.2, CK_TOKEN_INFO), a path can be longer. */
#define TACK_PK11_ATTR_SIZE 1024

/* ---- URIs (RFC 7512) ---------------------------------------------------- */

int tack_key_is_uri(const char *spec)
{
    return spec != NULL && strncasecmp(spec, "pkcs11:", 7) == 0;
}

static int tack_pk11_hex(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* tack_pk11_decode percent-decodes |in| (|in_len| bytes) into |out|
 * (capacity |out_size|, NUL-terminated); returns 0 when it does not fit, on
 * a bad escape or an escaped NUL. */
static int tack_pk11_decode(const char *in, size_t in_len, char *out,
                            size_t out_size)
{
    size_t i, n = 0;

    for (i = 0; i < in_len; i++) {
        char c = in[i];

        if (c == '%') {
            int hi = i + 2 < in_len ? tack_pk11_hex(in[i + 1]) : -1;
            int lo = hi >= 0 ? tack_pk11_hex(in[i + 2]) : -1;

            if (lo < 0 || (hi == 0 && lo == 0)) {
                return 0;
            }
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (n + 1 >= out_size) {
            return 0;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return 1;
}

/* tack_pk11_attr finds attribute |name| of |uri|: in the path part
 * (";"-separated, before "?") or the query (after "?", "&"-separated).
 * Returns 1 and its decoded value in |out| when present and well-formed. */
static int tack_pk11_attr(const char *uri, const char *name, char *out,
                          size_t out_size)
{
    const char *p = uri + 7; /* after "pkcs11:" */
    size_t name_len = strlen(name);
    int in_query = 0;

    while (*p != '\0') {
        size_t len = strcspn(p, in_query ? "&" : ";?");

        if (len > name_len && strncmp(p, name, name_len) == 0 &&
            p[name_len] == '=') {
            return tack_pk11_decode(p + name_len + 1, len - name_len - 1, out,
                                    out_size);
        }
        p += len;
        if (*p == '?') {
            in_query = 1;
        }
        if (*p != '\0') {
            p++;
        }
    }
    return 0;
}

int tack_pkcs11_uri_has_pin(const char *uri)
{
    char v[TACK_PK11_ATTR_SIZE];

    return tack_key_is_uri(uri) &&
           (tack_pk11_attr(uri, "pin-value", v, sizeof(v)) ||
            tack_pk11_attr(uri, "pin-source", v, sizeof(v)));
}

/* tack_pk11_engine_uri returns a copy of |uri| (OPENSSL_malloc'd: it may
 * hold a pin-value, free with OPENSSL_clear_free and strlen + 1) without
 * the module-path and module-name query attributes, which libp11 refuses
 * ("invalid id"); the module goes to the engine as MODULE_PATH. */
static char *tack_pk11_engine_uri(const char *uri)
{
    size_t size = strlen(uri) + 1, n;
    const char *q = strchr(uri, '?');
    char *out = OPENSSL_malloc(size);

    if (out == NULL) {
        return NULL;
    }
    n = q != NULL ? (size_t)(q - uri) : size - 1;
    memcpy(out, uri, n);
    out[n] = '\0';
    while (q != NULL && *q != '\0') {
        size_t len;

        q++; /* the '?' or '&' */
        len = strcspn(q, "&");
        if (len > 0 && strncmp(q, "module-path=", 12) != 0 &&
            strncmp(q, "module-name=", 12) != 0) {
            out[n++] = strchr(out, '?') == NULL ? '?' : '&';
            memcpy(out + n, q, len);
            n += len;
            out[n] = '\0';
        }
        q += len;
    }
    return out;
}

/* ---- Messages ----------------------------------------------------------- */

static tack_status_t tack_pk11_fail(char *err, size_t err_len, tack_status_t st,
                                    const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* tack_pk11_fail writes the reason to |err|, empties OpenSSL's error queue
 * (the reason is in |err|) and returns |st|. */
static tack_status_t tack_pk11_fail(char *err, size_t err_len, tack_status_t st,
                                    const char *fmt, ...)
{
    va_list ap;

    if (err != NULL && err_len > 0) {
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    ERR_clear_error();
    return st;
}

/* ---- The token probe (PKCS#11 v2.40, section 5) ------------------------ */

/* The leading members of CK_FUNCTION_LIST and the whole CK_TOKEN_INFO, as
 * every Unix module lays them out (natural alignment, no packing). */
typedef unsigned long tack_ck_ulong;
typedef struct {
    unsigned char major, minor;
} tack_ck_version;
typedef struct {
    unsigned char label[32];
    unsigned char manufacturer_id[32];
    unsigned char model[16];
    unsigned char serial_number[16];
    tack_ck_ulong flags;
    tack_ck_ulong counts[10]; /* session counts, PIN lengths, memory */
    tack_ck_version hardware_version, firmware_version;
    unsigned char utc_time[16];
} tack_ck_token_info;
typedef struct {
    tack_ck_version version;
    tack_ck_ulong (*initialize)(void *args);
    tack_ck_ulong (*finalize)(void *reserved);
    tack_ck_ulong (*get_info)(void *info);
    tack_ck_ulong (*get_function_list)(void *list);
    tack_ck_ulong (*get_slot_list)(unsigned char token_present,
                                   tack_ck_ulong *slots, tack_ck_ulong *count);
    tack_ck_ulong (*get_slot_info)(tack_ck_ulong slot, void *info);
    tack_ck_ulong (*get_token_info)(tack_ck_ulong slot,
                                    tack_ck_token_info *info);
} tack_ck_functions;
#define TACK_CKR_OK 0x0UL
#define TACK_CKR_ALREADY_INITIALIZED 0x191UL
#define TACK_CKF_TOKEN_INITIALIZED 0x400UL
#define TACK_PK11_MAX_SLOTS 64

/* tack_pk11_label copies a blank-padded 32-byte label into |out| (33
 * bytes), without the padding. */
static void tack_pk11_label(const unsigned char in[32], char out[33])
{
    size_t n = 32;

    while (n > 0 && in[n - 1] == ' ') {
        n--;
    }
    memcpy(out, in, n);
    out[n] = '\0';
}

/* tack_pk11_list_tokens asks |module| for the labels of its tokens: writes
 * them, quoted and comma-separated, to |names| and returns 1 when |label|
 * is one of them, 0 when not, -1 when the module cannot be asked. */
static int tack_pk11_list_tokens(const char *module, const char *label,
                                 char *names, size_t names_size)
{
    tack_ck_ulong (*get_list)(tack_ck_functions **);
    tack_ck_functions *f = NULL;
    tack_ck_ulong slots[TACK_PK11_MAX_SLOTS], n = TACK_PK11_MAX_SLOTS, i, rv;
    void *lib = dlopen(module, RTLD_NOW | RTLD_LOCAL);
    int found = -1;

    names[0] = '\0';
    if (lib == NULL) {
        return -1;
    }
    *(void **)&get_list = dlsym(lib, "C_GetFunctionList");
    if (get_list == NULL || get_list(&f) != TACK_CKR_OK || f == NULL) {
        dlclose(lib);
        return -1;
    }
    /* The engine may hold the module initialised in this process (another
     * key's); then it is not ours to finalise. */
    rv = f->initialize(NULL);
    if ((rv == TACK_CKR_OK || rv == TACK_CKR_ALREADY_INITIALIZED) &&
        f->get_slot_list(1, slots, &n) == TACK_CKR_OK) {
        found = 0;
        for (i = 0; i < n && i < TACK_PK11_MAX_SLOTS; i++) {
            tack_ck_token_info info;
            char name[33];
            size_t used = strlen(names);

            /* SoftHSM2 always shows one free, uninitialised token. */
            if (f->get_token_info(slots[i], &info) != TACK_CKR_OK ||
                !(info.flags & TACK_CKF_TOKEN_INITIALIZED)) {
                continue;
            }
            tack_pk11_label(info.label, name);
            found |= strcmp(name, label) == 0;
            snprintf(names + used, names_size - used, "%s\"%s\"",
                     used ? ", " : "", name);
        }
    }
    if (rv == TACK_CKR_OK) {
        f->finalize(NULL);
    }
    dlclose(lib);
    return found;
}

/* tack_pk11_not_found explains an "object not found" from the engine:
 * which of the token and the key is missing. */
static tack_status_t tack_pk11_not_found(const char *uri, const char *module,
                                         const char *kind, char *err,
                                         size_t err_len)
{
    char token[TACK_PK11_ATTR_SIZE], object[TACK_PK11_ATTR_SIZE];
    char names[256];
    int have_token = tack_pk11_attr(uri, "token", token, sizeof(token));
    int in_list;

    if (!tack_pk11_attr(uri, "object", object, sizeof(object))) {
        snprintf(object, sizeof(object), "%s", "(any)");
    }
    if (!have_token) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no %s key object=\"%s\" in any token", kind,
                              object);
    }
    in_list = tack_pk11_list_tokens(module, token, names, sizeof(names));
    if (in_list == 0) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no token \"%s\" (tokens present: %s)", token,
                              names[0] ? names : "none");
    }
    if (in_list < 0) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no token \"%s\", or no %s key "
                              "object=\"%s\" in it",
                              token, kind, object);
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                          "no %s key object=\"%s\" in token \"%s\"", kind,
                          object, token);
}

/* ---- The engine --------------------------------------------------------- */

/* A UI method that never reads anything: the engine must not prompt on
 * httpd's terminal (or the tool's, which asks for the PIN itself).  Its
 * failure, a UI error on the queue, says that the token wanted a PIN. */
static UI_METHOD *tack_pk11_ui;
static CRYPTO_ONCE tack_pk11_ui_once = CRYPTO_ONCE_STATIC_INIT;

static int tack_pk11_ui_read(UI *ui, UI_STRING *uis)
{
    return 0;
}

static void tack_pk11_ui_init(void)
{
    tack_pk11_ui = UI_create_method("tack: no prompt");
    if (tack_pk11_ui != NULL) {
        UI_method_set_reader(tack_pk11_ui, tack_pk11_ui_read);
    }
}

/* tack_pk11_engine returns an initialised engine (a structural and a
 * functional reference: release with ENGINE_finish and ENGINE_free) with
 * |module| and |pin| set, or NULL with the reason in |err|. */
static ENGINE *tack_pk11_engine(const char *module, int module_given,
                                const char *pin, size_t pin_len, char *err,
                                size_t err_len, tack_status_t *st)
{
    ENGINE *e = ENGINE_by_id(TACK_PK11_ENGINE);
    char *copy = NULL;
    int ok;

    if (e == NULL) {
        *st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                             "the OpenSSL engine \"pkcs11\" is not installed "
                             "(Debian: libengine-pkcs11-openssl)");
        return NULL;
    }
    /* libp11 writes its reasons to stderr unless told to be quiet; ours
     * go to |err|. */
    (void)ENGINE_ctrl_cmd(e, "QUIET", 0, NULL, NULL, 0);
    ok = !module_given || ENGINE_ctrl_cmd_string(e, "MODULE_PATH", module, 0);
    if (ok && pin != NULL) {
        copy = OPENSSL_malloc(pin_len + 1);
        ok = copy != NULL;
        if (ok) {
            memcpy(copy, pin, pin_len);
            copy[pin_len] = '\0';
            ok = ENGINE_ctrl_cmd_string(e, "PIN", copy, 0);
        }
        OPENSSL_clear_free(copy, pin_len + 1);
    }
    if (!ok || !ENGINE_init(e)) {
        ENGINE_free(e);
        *st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                             "the pkcs11 engine cannot load the PKCS#11 "
                             "module %s",
                             module);
        return NULL;
    }
    return e;
}

/* tack_pk11_load_error explains why the engine returned no key, from the
 * reasons on OpenSSL's error queue (libp11 puts a failed PKCS#11 call's
 * CKR_ code in the reason of its "PKCS#11 module" library). */
static tack_status_t tack_pk11_load_error(const char *uri, const char *module,
                                          const char *kind, char *err,
                                          size_t err_len)
{
    unsigned long e, ckr = 0;
    int ui = 0, not_found = 0;
    char last[256] = "";

    while ((e = ERR_get_error()) != 0) {
        const char *lib = ERR_lib_error_string(e);
        const char *reason = ERR_reason_error_string(e);

        if (ERR_GET_LIB(e) == ERR_LIB_UI) {
            ui = 1;
        } else if (lib != NULL && strcmp(lib, "PKCS#11 module") == 0) {
            ckr = (unsigned long)ERR_GET_REASON(e);
        } else if (reason != NULL && strcmp(reason, "object not found") == 0) {
            not_found = 1;
        }
        if (last[0] == '\0' && reason != NULL) {
            snprintf(last, sizeof(last), "%s", reason);
        }
    }
    switch (ckr) {
    case 0xA0: /* CKR_PIN_INCORRECT */
    case 0xA1: /* CKR_PIN_INVALID */
    case 0xA2: /* CKR_PIN_LEN_RANGE */
        return tack_pk11_fail(err, err_len, TACK_ERR_WRONG_PASSWORD,
                              "wrong PIN (the token refused the login)");
    case 0xA4: /* CKR_PIN_LOCKED */
        return tack_pk11_fail(err, err_len, TACK_ERR_WRONG_PASSWORD,
                              "the token's PIN is locked");
    default:
        break;
    }
    /* Looking for a public object, libp11 logs in when it finds none:
     * that it wanted a PIN then means no such object. */
    if (ui && strcmp(kind, "private") == 0) {
        return tack_pk11_fail(err, err_len, TACK_ERR_WRONG_PASSWORD,
                              "the token needs a PIN and none was given");
    }
    if (not_found || ui) {
        return tack_pk11_not_found(uri, module, kind, err, err_len);
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_CRYPTO,
                          "the pkcs11 engine cannot load the key%s%s",
                          last[0] ? ": " : "", last);
}

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

/* tack_pk11_module finds the PKCS#11 module of |uri| (its module-path, or
 * p11-kit's proxy) and, for a module-path, makes sure it loads: libp11
 * would only say "Unable to load PKCS#11 module". */
static tack_status_t tack_pk11_module(const char *uri, char *module,
                                      size_t module_size, int *given, char *err,
                                      size_t err_len)
{
    void *lib;

    *given = tack_pk11_attr(uri, "module-path", module, module_size);
    if (!*given) {
        snprintf(module, module_size, "%s", TACK_PK11_DEFAULT_MODULE);
        return TACK_OK;
    }
    lib = dlopen(module, RTLD_LAZY | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();

        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "cannot load the PKCS#11 module: %s",
                              why != NULL ? why : module);
    }
    dlclose(lib);
    return TACK_OK;
}

/* tack_pk11_load is tack_pkcs11_load, for the private key or (|private|
 * 0) the public key object of |uri|. */
static tack_status_t tack_pk11_load(const char *uri, const char *pin,
                                    size_t pin_len, int private, EVP_PKEY **out,
                                    char *err, size_t err_len)
{
    char module[TACK_PK11_ATTR_SIZE], *engine_uri;
    int module_given;
    ENGINE *e;
    EVP_PKEY *key;
    tack_status_t st;

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
    st = tack_pk11_module(uri, module, sizeof(module), &module_given, err,
                          err_len);
    if (st != TACK_OK) {
        return st;
    }
    if (!CRYPTO_THREAD_run_once(&tack_pk11_ui_once, tack_pk11_ui_init) ||
        tack_pk11_ui == NULL ||
        (engine_uri = tack_pk11_engine_uri(uri)) == NULL) {
        return tack_pk11_fail(err, err_len, TACK_ERR_NOMEM, "out of memory");
    }
    e = tack_pk11_engine(module, module_given, pin, pin_len, err, err_len, &st);
    if (e == NULL) {
        key = NULL;
    } else if (private) {
        key = ENGINE_load_private_key(e, engine_uri, tack_pk11_ui, NULL);
    } else {
        key = ENGINE_load_public_key(e, engine_uri, tack_pk11_ui, NULL);
    }
    OPENSSL_clear_free(engine_uri, strlen(uri) + 1);
    if (e == NULL) {
        return st;
    }
    if (key == NULL) {
        st = tack_pk11_load_error(uri, module, private ? "private" : "public",
                                  err, err_len);
    } else if ((st = tack_pk11_check_key(key, private, err, err_len)) !=
               TACK_OK) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    /* The key keeps its own hold on libp11's context and the module; the
     * engine references are ours to drop (ENGINE_finish also makes libp11
     * wipe its copy of the PIN). */
    ENGINE_finish(e);
    ENGINE_free(e);
    if (key == NULL) {
        return st;
    }
    ERR_clear_error();
    *out = key;
    return TACK_OK;
}

tack_status_t tack_pkcs11_load(const char *uri, const char *pin, size_t pin_len,
                               EVP_PKEY **out, char *err, size_t err_len)
{
    return tack_pk11_load(uri, pin, pin_len, 1, out, err, err_len);
}

tack_status_t tack_pkcs11_load_public(const char *uri, EVP_PKEY **out,
                                      char *err, size_t err_len)
{
    return tack_pk11_load(uri, NULL, 0, 0, out, err, err_len);
}
