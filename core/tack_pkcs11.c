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
 * The store finds nothing both for a token that is not there and for a key
 * that is not in the token.  To tell the user which, a failed load asks the
 * PKCS#11 module itself for its tokens' labels (PKCS#11 v2.40
 * C_GetSlotList / C_GetTokenInfo), through the few declarations below: the
 * core needs no PKCS#11 header.
 */
#include "tack_pkcs11.h"
#include "tack_file.h"
#include "tack_key.h"
#include "tack_util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/conf.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/provider.h>
#include <openssl/store.h>
#include <openssl/ui.h>

/* The provider's name, and the module it loads when the URI names none
 * (Debian builds it with p11-kit: its proxy, which loads every module
 * registered with p11-kit). */
#define TACK_PK11_PROVIDER "pkcs11"
#define TACK_PK11_DEFAULT_MODULE "p11-kit-proxy.so"

/* The longest attribute value we keep: a token label is 32 bytes
 * (PKCS#11 v2.40 section 3.2, CK_TOKEN_INFO), a path can be longer. */
#define TACK_PK11_ATTR_SIZE 1024
/* The longest PIN a pin-source file may hold (PKCS#11 has no limit;
 * tokens take far less). */
#define TACK_PK11_PIN_SIZE TACK_PKCS11_PIN_SIZE
/* The most attributes a URI may have: RFC 7512 defines 17. */
#define TACK_PK11_MAX_ATTRS 32

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

/* ---- URIs (RFC 7512) ---------------------------------------------------- */

int tack_key_is_uri(const char *spec)
{
    return spec != NULL && strncasecmp(spec, "pkcs11:", 7) == 0;
}

/* Where an attribute belongs (RFC 7512 section 2.3): the path part holds
 * what names the token and the object, the query what says how to reach
 * it.  Vendor attributes ("x-...") may be in either. */
static const char *const tack_pk11_path_attrs[] = {
    "token",          "manufacturer",        "serial",
    "model",          "library-manufacturer", "library-description",
    "library-version", "slot-description",   "slot-manufacturer",
    "slot-id",        "object",              "type",
    "id",             NULL};
static const char *const tack_pk11_query_attrs[] = {
    "pin-value", "pin-source", "module-name", "module-path", NULL};
/* RFC 7512's object classes (the type attribute). */
static const char *const tack_pk11_types[] = {
    "public", "private", "cert", "secret-key", "data", NULL};

/* One attribute of a URI, as written: name=value, value still escaped. */
typedef struct {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
    int in_query; /* where it belongs, once checked */
} tack_pk11_attr_t;

/* What a URI says, decoded. */
typedef struct {
    tack_pk11_attr_t attrs[TACK_PK11_MAX_ATTRS];
    size_t n;
    char token[TACK_PK11_ATTR_SIZE];    /* "" when absent */
    char object[TACK_PK11_ATTR_SIZE];   /* "" when absent */
    char type[16];                      /* "" when absent */
    char module_path[TACK_PK11_ATTR_SIZE];
    char module_name[TACK_PK11_ATTR_SIZE];
    char pin_source[TACK_PK11_ATTR_SIZE];
    char pin_value[TACK_PK11_ATTR_SIZE]; /* wiped by tack_pk11_uri_wipe */
    int has_token, has_object, has_pin_value;
} tack_pk11_uri_t;

static void tack_pk11_uri_wipe(tack_pk11_uri_t *u)
{
    OPENSSL_cleanse(u->pin_value, sizeof(u->pin_value));
}

/* tack_pk11_decode percent-decodes |in| (|in_len| bytes) into |out|
 * (capacity |out_size|, NUL-terminated); returns 0 when it does not fit, on
 * a bad escape or an escaped NUL.  RFC 3986's pct-encoded is '%' and two
 * HEXDIGs, either case: the core's tack_hex_digit. */
static int tack_pk11_decode(const char *in, size_t in_len, char *out,
                            size_t out_size)
{
    size_t i, n = 0;

    for (i = 0; i < in_len; i++) {
        char c = in[i];

        if (c == '%') {
            int hi =
                i + 2 < in_len ? tack_hex_digit((unsigned char)in[i + 1]) : -1;
            int lo = hi >= 0 ? tack_hex_digit((unsigned char)in[i + 2]) : -1;

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

/* tack_pk11_in returns 1 when |name| (|len| bytes) is in |list|. */
static int tack_pk11_in(const char *const *list, const char *name, size_t len)
{
    for (; *list != NULL; list++) {
        if (strlen(*list) == len && strncmp(*list, name, len) == 0) {
            return 1;
        }
    }
    return 0;
}

static int tack_pk11_is(const tack_pk11_attr_t *a, const char *name)
{
    return a->name_len == strlen(name) &&
           strncmp(a->name, name, a->name_len) == 0;
}

/* tack_pk11_uri_print writes |u|'s attributes as a URI, each where it
 * belongs, to |out| (|out_size| bytes), with a pin-value as "***": the
 * URI a misplaced attribute's message shows. */
static void tack_pk11_uri_print(const tack_pk11_uri_t *u, char *out,
                                size_t out_size)
{
    size_t i, used;
    int pass, first;

    snprintf(out, out_size, "pkcs11:");
    for (pass = 0; pass < 2; pass++) {
        first = 1;
        for (i = 0; i < u->n; i++) {
            const tack_pk11_attr_t *a = &u->attrs[i];
            int secret = tack_pk11_is(a, "pin-value");

            if (a->in_query != pass) {
                continue;
            }
            used = strlen(out);
            snprintf(out + used, out_size - used, "%s%.*s=%.*s",
                     first ? (pass ? "?" : "") : (pass ? "&" : ";"),
                     (int)a->name_len, a->name,
                     secret ? 3 : (int)a->value_len,
                     secret ? "***" : a->value);
            first = 0;
        }
    }
}

/* tack_pk11_uri_parse splits |uri| into its attributes and checks them
 * against RFC 7512: each known, in its part, given once, well escaped.
 * Returns TACK_OK, or TACK_ERR_INVALID_ARG with the reason in |err| (a
 * pin-value never in it). */
static tack_status_t tack_pk11_uri_parse(const char *uri, tack_pk11_uri_t *u,
                                         char *err, size_t err_len)
{
    const char *p;
    int in_query = 0;
    size_t i, j;

    memset(u, 0, sizeof(*u));
    if (!tack_key_is_uri(uri)) {
        return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                              "not a pkcs11: URI");
    }
    for (p = uri + 7; *p != '\0';) {
        size_t len = strcspn(p, in_query ? "&" : ";?");
        const char *eq = memchr(p, '=', len);
        tack_pk11_attr_t *a;

        if (len > 0) {
            if (eq == NULL || eq == p) {
                return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                                      "\"%.*s\" is not an attribute "
                                      "(RFC 7512: name=value)",
                                      (int)(len > 64 ? 64 : len), p);
            }
            if (u->n == TACK_PK11_MAX_ATTRS) {
                return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                                      "more than %d attributes",
                                      TACK_PK11_MAX_ATTRS);
            }
            a = &u->attrs[u->n++];
            a->name = p;
            a->name_len = (size_t)(eq - p);
            a->value = eq + 1;
            a->value_len = len - a->name_len - 1;
            a->in_query = in_query;
        }
        p += len;
        if (*p == '?') {
            in_query = 1;
        }
        if (*p != '\0') {
            p++;
        }
    }
    /* Where each attribute belongs; the first misplaced one is named with
     * the URI as it should read. */
    for (i = 0; i < u->n; i++) {
        tack_pk11_attr_t *a = &u->attrs[i];
        int path = tack_pk11_in(tack_pk11_path_attrs, a->name, a->name_len);
        int query = tack_pk11_in(tack_pk11_query_attrs, a->name, a->name_len);
        char fixed[TACK_PKCS11_ERR_SIZE];

        if (!path && !query) {
            if (a->name_len > 2 && strncmp(a->name, "x-", 2) == 0) {
                continue; /* a vendor's: anywhere */
            }
            return tack_pk11_fail(
                err, err_len, TACK_ERR_INVALID_ARG,
                "unknown attribute \"%.*s\" (RFC 7512: token, object, "
                "type, id, manufacturer, model, serial, slot-id, ...; "
                "after \"?\": module-path, module-name, pin-value, "
                "pin-source)",
                (int)(a->name_len > 64 ? 64 : a->name_len), a->name);
        }
        if (query == a->in_query) {
            continue;
        }
        for (j = 0; j < u->n; j++) {
            tack_pk11_attr_t *b = &u->attrs[j];

            if (tack_pk11_in(tack_pk11_query_attrs, b->name, b->name_len)) {
                b->in_query = 1;
            } else if (tack_pk11_in(tack_pk11_path_attrs, b->name,
                                    b->name_len)) {
                b->in_query = 0;
            }
        }
        tack_pk11_uri_print(u, fixed, sizeof(fixed) - 100);
        return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                              "%.*s belongs in the %s: %s", (int)a->name_len,
                              a->name, query ? "query" : "path", fixed);
    }
    for (i = 0; i < u->n; i++) {
        tack_pk11_attr_t *a = &u->attrs[i];
        static const struct {
            const char *name;
            size_t off;
        } keep[] = {
            {"token", offsetof(tack_pk11_uri_t, token)},
            {"object", offsetof(tack_pk11_uri_t, object)},
            {"type", offsetof(tack_pk11_uri_t, type)},
            {"module-path", offsetof(tack_pk11_uri_t, module_path)},
            {"module-name", offsetof(tack_pk11_uri_t, module_name)},
            {"pin-source", offsetof(tack_pk11_uri_t, pin_source)},
            {"pin-value", offsetof(tack_pk11_uri_t, pin_value)},
        };
        char scratch[TACK_PK11_ATTR_SIZE];
        char *out = scratch;
        size_t out_size = sizeof(scratch), k;

        for (j = 0; j < i; j++) {
            if (u->attrs[j].name_len == a->name_len &&
                strncmp(u->attrs[j].name, a->name, a->name_len) == 0) {
                return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                                      "attribute \"%.*s\" given twice",
                                      (int)a->name_len, a->name);
            }
        }
        for (k = 0; k < sizeof(keep) / sizeof(keep[0]); k++) {
            if (tack_pk11_is(a, keep[k].name)) {
                out = (char *)u + keep[k].off;
                out_size = tack_pk11_is(a, "type") ? sizeof(u->type)
                                                   : TACK_PK11_ATTR_SIZE;
            }
        }
        if (!tack_pk11_decode(a->value, a->value_len, out, out_size)) {
            OPENSSL_cleanse(scratch, sizeof(scratch));
            return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                                  "%.*s: a bad percent-escape, an escaped "
                                  "NUL, or too long",
                                  (int)a->name_len, a->name);
        }
        OPENSSL_cleanse(scratch, sizeof(scratch));
        u->has_token |= tack_pk11_is(a, "token");
        u->has_object |= tack_pk11_is(a, "object");
        u->has_pin_value |= tack_pk11_is(a, "pin-value");
    }
    if (u->type[0] != '\0' &&
        !tack_pk11_in(tack_pk11_types, u->type, strlen(u->type))) {
        return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                              "type=%s: RFC 7512's types are public, "
                              "private, cert, secret-key and data",
                              u->type);
    }
    return TACK_OK;
}

tack_status_t tack_pkcs11_uri_check(const char *uri, char *err,
                                    size_t err_len)
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

/* tack_pk11_store_uri writes the URI the provider gets to |out|: the path
 * attributes of |u| (escaped as written) with type set to |type|; the
 * query's module and PIN are given to the provider otherwise. */
static int tack_pk11_store_uri(const tack_pk11_uri_t *u, const char *type,
                               char *out, size_t out_size)
{
    size_t i, used;
    int n;

    snprintf(out, out_size, "pkcs11:");
    for (i = 0; i < u->n; i++) {
        const tack_pk11_attr_t *a = &u->attrs[i];

        if (a->in_query || tack_pk11_is(a, "type")) {
            continue;
        }
        used = strlen(out);
        n = snprintf(out + used, out_size - used, "%.*s=%.*s;",
                     (int)a->name_len, a->name, (int)a->value_len, a->value);
        if (n < 0 || (size_t)n >= out_size - used) {
            return 0;
        }
    }
    used = strlen(out);
    n = snprintf(out + used, out_size - used, "type=%s", type);
    return n > 0 && (size_t)n < out_size - used;
}

/* ---- The module (RFC 7512 module-path and module-name) ----------------- */

/* p11-kit's registered modules: the administrator's, then the packages'. */
static const char *const tack_pk11_module_dirs[] = {
    "/etc/pkcs11/modules", "/usr/share/p11-kit/modules", NULL};

/* tack_pk11_stem_is returns 1 when |file| (a library's path) is the
 * library RFC 7512 calls |name|: its file name without "lib" and
 * without ".so" and what follows, compared without regard to case. */
static int tack_pk11_stem_is(const char *file, const char *name)
{
    const char *base = strrchr(file, '/');
    size_t len;

    base = base != NULL ? base + 1 : file;
    if (strncmp(base, "lib", 3) == 0) {
        base += 3;
    }
    len = strcspn(base, ".");
    return len == strlen(name) && strncasecmp(base, name, len) == 0;
}

/* tack_pk11_p11kit_dir writes the directory p11-kit resolves a registered
 * module's relative file name against (where its proxy is, "pkcs11/"). */
static int tack_pk11_p11kit_dir(char *out, size_t out_size)
{
    void *lib = dlopen(TACK_PK11_DEFAULT_MODULE, RTLD_LAZY | RTLD_LOCAL);
    struct link_map *map = NULL;
    const char *slash;
    int ok = 0;

    if (lib != NULL && dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 &&
        map != NULL && (slash = strrchr(map->l_name, '/')) != NULL) {
        int n = snprintf(out, out_size, "%.*s/pkcs11/",
                         (int)(slash - map->l_name), map->l_name);

        ok = n > 0 && (size_t)n < out_size;
    }
    if (lib != NULL) {
        dlclose(lib);
    }
    return ok;
}

/* tack_pk11_registered finds module |name| among p11-kit's registered
 * modules (NAME.module, or a module whose library is NAME) and writes its
 * library's path to |out|.  Returns 1 when found. */
static int tack_pk11_registered(const char *name, char *out, size_t out_size)
{
    size_t d;

    for (d = 0; tack_pk11_module_dirs[d] != NULL; d++) {
        DIR *dir = opendir(tack_pk11_module_dirs[d]);
        struct dirent *ent;

        while (dir != NULL && (ent = readdir(dir)) != NULL) {
            size_t len = strlen(ent->d_name);
            char path[512], line[TACK_PK11_ATTR_SIZE], lib[TACK_PK11_ATTR_SIZE];
            FILE *f;
            int found = 0;

            if (len <= 7 || strcmp(ent->d_name + len - 7, ".module") != 0) {
                continue;
            }
            snprintf(path, sizeof(path), "%s/%s", tack_pk11_module_dirs[d],
                     ent->d_name);
            lib[0] = '\0';
            if ((f = fopen(path, "r")) == NULL) {
                continue;
            }
            while (fgets(line, sizeof(line), f) != NULL) {
                if (strncmp(line, "module:", 7) == 0) {
                    const char *v = line + 7 + strspn(line + 7, " \t");

                    snprintf(lib, sizeof(lib), "%.*s",
                             (int)strcspn(v, " \t\r\n"), v);
                }
            }
            fclose(f);
            found = lib[0] != '\0' &&
                    ((len - 7 == strlen(name) &&
                      strncasecmp(ent->d_name, name, len - 7) == 0) ||
                     tack_pk11_stem_is(lib, name));
            if (!found) {
                continue;
            }
            closedir(dir);
            if (lib[0] == '/') {
                snprintf(out, out_size, "%s", lib);
            } else {
                char base[TACK_PK11_ATTR_SIZE];

                if (!tack_pk11_p11kit_dir(base, sizeof(base))) {
                    return 0;
                }
                snprintf(out, out_size, "%s%s", base, lib);
            }
            return 1;
        }
        if (dir != NULL) {
            closedir(dir);
        }
    }
    return 0;
}

/* tack_pk11_module works out the PKCS#11 module of |u| into |module|:
 * module-path (a library, or with module-name a directory to find it in),
 * module-name alone (a module registered with p11-kit), or none ("":
 * the provider's own default, p11-kit's proxy).  A module given is loaded
 * once here, so that its failure is told with dlopen's reason. */
static tack_status_t tack_pk11_module(const tack_pk11_uri_t *u, char *module,
                                      size_t module_size, char *err,
                                      size_t err_len)
{
    struct stat sb;
    void *lib;
    size_t i;

    module[0] = '\0';
    if (u->module_path[0] != '\0' && stat(u->module_path, &sb) == 0 &&
        S_ISDIR(sb.st_mode)) {
        /* RFC 7512 section 2.3: a directory, with module-name the library
         * in it. */
        static const char *const forms[][2] = {
            {"lib", ".so"}, {"", ".so"}, {"", ""}};

        if (u->module_name[0] == '\0') {
            return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                                  "module-path %s is a directory: add "
                                  "module-name=NAME to say which module "
                                  "in it",
                                  u->module_path);
        }
        for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
            int n = snprintf(module, module_size, "%s/%s%s%s",
                             u->module_path, forms[i][0], u->module_name,
                             forms[i][1]);

            if (n > 0 && (size_t)n < module_size &&
                access(module, F_OK) == 0) {
                break;
            }
        }
        if (i == sizeof(forms) / sizeof(forms[0])) {
            return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                                  "no module \"%s\" in %s (looked for "
                                  "lib%s.so and %s.so)",
                                  u->module_name, u->module_path,
                                  u->module_name, u->module_name);
        }
    } else if (u->module_path[0] != '\0') {
        snprintf(module, module_size, "%s", u->module_path);
    } else if (u->module_name[0] != '\0') {
        if (!tack_pk11_registered(u->module_name, module, module_size)) {
            return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                                  "no PKCS#11 module named \"%s\" is "
                                  "registered with p11-kit (%s, %s): give "
                                  "its module-path",
                                  u->module_name, tack_pk11_module_dirs[0],
                                  tack_pk11_module_dirs[1]);
        }
    } else {
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
    if (c == NULL && (c = tack_pk11_ctx_new(module, err, err_len, st)) != NULL) {
        c->next = tack_pk11_ctxs;
        tack_pk11_ctxs = c;
    }
    CRYPTO_THREAD_unlock(tack_pk11_lock);
    if (c != NULL) {
        *st = TACK_OK;
    }
    return c;
}

/* ---- The PIN --------------------------------------------------------------- */

/* What the passphrase callback hands the provider. */
typedef struct {
    const char *pin; /* NULL: none given */
    size_t pin_len;
    int asked; /* the provider wanted a PIN */
} tack_pk11_pin_t;

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

/* tack_pk11_source_path returns the file a pin-source names ("file:" and
 * "file://" taken off), as messages name it. */
static const char *tack_pk11_source_path(const char *source)
{
    if (strncmp(source, "file:", 5) == 0) {
        source += 5;
        if (strncmp(source, "//", 2) == 0) {
            source += 2;
        }
    }
    return source;
}

/* tack_pk11_pin_source reads the PIN of a pin-source (RFC 7512: a file,
 * "file:" or a path; its first line, tack_password_line's) into |out|
 * (|out_size| bytes) and |out_len|. */
static tack_status_t tack_pk11_pin_source(const char *source, char *out,
                                          size_t out_size, size_t *out_len,
                                          char *err, size_t err_len)
{
    const char *path = source;
    tack_status_t st;
    char *text = NULL;
    size_t n = 0;

    if (strncmp(path, "file:", 5) == 0) {
        path += 5;
        /* file:///p and file:/p are both the file /p */
        if (strncmp(path, "//", 2) == 0) {
            path += 2;
        }
    }
    if (path[0] != '/') {
        return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                              "pin-source=%s: only a file is supported "
                              "(file:/path or /path)",
                              source);
    }
    /* Read as a TackFile is (tack_file_read): a regular file only, never a
     * FIFO that would block the signer or the tool for good, nor a
     * pseudo-file (/proc/kmsg), nor more than the PIN's room.  Its buffer
     * is allocated once at that size, and wiped. */
    st = tack_file_read(path, out_size - 2, &text, &n);
    if (st == TACK_ERR_FILE_TOO_LARGE) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "pin-source %s: longer than %zu bytes", path,
                              out_size - 2);
    }
    if (st != TACK_OK) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "pin-source %s: %s", path,
                              st == TACK_ERR_IO ? strerror(errno)
                                                : tack_status_str(st));
    }
    memcpy(out, text, n + 1);
    OPENSSL_cleanse(text, n);
    free(text);
    /* The first line, as every password source of mod_tack reads it. */
    *out_len = tack_password_line(out, n);
    OPENSSL_cleanse(out + *out_len, out_size - *out_len);
    /* A NUL would cut the PIN short: a wrong PIN, which counts towards the
     * token's lock.  Refused, as tack_pkcs11_load refuses a given one. */
    if (memchr(out, '\0', *out_len) != NULL) {
        OPENSSL_cleanse(out, out_size);
        *out_len = 0;
        return tack_pk11_fail(err, err_len, TACK_ERR_INVALID_ARG,
                              "pin-source %s: the PIN has a NUL byte in it",
                              path);
    }
    return TACK_OK;
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
    tack_ck_ulong slot, state, flags, device_error;
} tack_ck_session_info;
typedef struct {
    tack_ck_version cryptoki_version;
    unsigned char manufacturer_id[32];
    tack_ck_ulong flags;
    unsigned char library_description[32];
    tack_ck_version library_version;
} tack_ck_info;
typedef struct {
    tack_ck_version version;
    tack_ck_ulong (*initialize)(void *args);
    tack_ck_ulong (*finalize)(void *reserved);
    tack_ck_ulong (*get_info)(tack_ck_info *info);
    tack_ck_ulong (*get_function_list)(void *list);
    tack_ck_ulong (*get_slot_list)(unsigned char token_present,
                                   tack_ck_ulong *slots, tack_ck_ulong *count);
    tack_ck_ulong (*get_slot_info)(tack_ck_ulong slot, void *info);
    tack_ck_ulong (*get_token_info)(tack_ck_ulong slot,
                                    tack_ck_token_info *info);
    void *get_mechanism_list, *get_mechanism_info, *init_token, *init_pin,
        *set_pin;
    tack_ck_ulong (*open_session)(tack_ck_ulong slot, tack_ck_ulong flags,
                                  void *app, void *notify,
                                  tack_ck_ulong *session);
    tack_ck_ulong (*close_session)(tack_ck_ulong session);
    void *close_all_sessions;
    tack_ck_ulong (*get_session_info)(tack_ck_ulong session,
                                      tack_ck_session_info *info);
    void *get_operation_state, *set_operation_state;
    tack_ck_ulong (*login)(tack_ck_ulong session, tack_ck_ulong user_type,
                           const unsigned char *pin, tack_ck_ulong pin_len);
    tack_ck_ulong (*logout)(tack_ck_ulong session);
} tack_ck_functions;
#define TACK_CKR_OK 0x0UL
#define TACK_CKR_ALREADY_INITIALIZED 0x191UL
#define TACK_CKR_USER_ALREADY_LOGGED_IN 0x100UL
#define TACK_CKF_LOGIN_REQUIRED 0x4UL
#define TACK_CKF_PROTECTED_AUTHENTICATION_PATH 0x100UL
#define TACK_CKF_TOKEN_INITIALIZED 0x400UL
#define TACK_CKF_USER_PIN_FINAL_TRY 0x20000UL
#define TACK_CKF_USER_PIN_LOCKED 0x40000UL
#define TACK_CKU_USER 1UL
#define TACK_CKF_SERIAL_SESSION 0x4UL
#define TACK_CKS_RO_USER_FUNCTIONS 1UL
#define TACK_CKS_RW_USER_FUNCTIONS 3UL
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

/* tack_pk11_login_state says whether this process is logged in to the
 * token in |slot| (the state is the application's, shared by every
 * session, the provider's included): TACK_PK11_LOGGED_IN or
 * TACK_PK11_LOGGED_OUT, TACK_PK11_LOCKED when the token says its PIN is
 * locked, TACK_PK11_UNKNOWN.  It never logs in: a PIN tried here would
 * count against the token's retry limit. */
#define TACK_PK11_UNKNOWN (-1)
#define TACK_PK11_LOGGED_OUT 0
#define TACK_PK11_LOGGED_IN 1
#define TACK_PK11_LOCKED 2
static int tack_pk11_login_state(tack_ck_functions *f, tack_ck_ulong slot,
                                 const tack_ck_token_info *info)
{
    tack_ck_session_info si;
    tack_ck_ulong session;
    int state = TACK_PK11_UNKNOWN;

    if (info->flags & TACK_CKF_USER_PIN_LOCKED) {
        return TACK_PK11_LOCKED;
    }
    if (f->open_session(slot, TACK_CKF_SERIAL_SESSION, NULL, NULL,
                        &session) != TACK_CKR_OK) {
        return TACK_PK11_UNKNOWN;
    }
    if (f->get_session_info(session, &si) == TACK_CKR_OK) {
        state = si.state == TACK_CKS_RO_USER_FUNCTIONS ||
                        si.state == TACK_CKS_RW_USER_FUNCTIONS
                    ? TACK_PK11_LOGGED_IN
                    : TACK_PK11_LOGGED_OUT;
    }
    f->close_session(session);
    return state;
}

/* tack_pk11_list_tokens asks |module| for the labels of its tokens: writes
 * them, quoted and comma-separated, to |names| and returns 1 when |label|
 * is one of them, 0 when not, -1 when the module cannot be asked.  When
 * |login| is not NULL it gets the login state of the token |label|
 * (tack_pk11_login_state), TACK_PK11_UNKNOWN when there is none. */
static int tack_pk11_list_tokens(const char *module, const char *label,
                                 char *names, size_t names_size, int *login)
{
    tack_ck_ulong (*get_list)(tack_ck_functions **);
    tack_ck_functions *f = NULL;
    tack_ck_ulong slots[TACK_PK11_MAX_SLOTS], n = TACK_PK11_MAX_SLOTS, i, rv;
    void *lib = dlopen(module, RTLD_NOW | RTLD_LOCAL);
    int found = -1;

    names[0] = '\0';
    if (login != NULL) {
        *login = TACK_PK11_UNKNOWN;
    }
    if (lib == NULL) {
        return -1;
    }
    *(void **)&get_list = dlsym(lib, "C_GetFunctionList");
    if (get_list == NULL || get_list(&f) != TACK_CKR_OK || f == NULL) {
        dlclose(lib);
        return -1;
    }
    /* The provider may hold the module initialised in this process; then
     * it is not ours to finalise. */
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
            if (strcmp(name, label) == 0 && !found && login != NULL) {
                *login = tack_pk11_login_state(f, slots[i], &info);
            }
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

/* tack_pk11_not_found explains a key the store did not find: which of
 * the token and the key is missing. */
static tack_status_t tack_pk11_not_found(const tack_pk11_uri_t *u,
                                         const char *module, const char *kind,
                                         char *err, size_t err_len)
{
    const char *object = u->has_object ? u->object : "(any)";
    char names[256];
    int in_list;

    if (!u->has_token) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no %s key object=\"%s\" in any token", kind,
                              object);
    }
    in_list =
        tack_pk11_list_tokens(module, u->token, names, sizeof(names), NULL);
    if (in_list == 0) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no token \"%s\" (tokens present: %s)",
                              u->token, names[0] ? names : "none");
    }
    if (in_list < 0) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no token \"%s\", or no %s key "
                              "object=\"%s\" in it",
                              u->token, kind, object);
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                          "no %s key object=\"%s\" in token \"%s\"", kind,
                          object, u->token);
}

/* ---- Reaching the token (PKCS#11 v2.40, section 5.4 to 5.6) ---------- */

/* The PKCS#11 return values a failure is named by, and their class: 'c'
 * the token cannot be reached (a device or transport error), 'p' the
 * token refused the PIN. */
static const struct {
    tack_ck_ulong rv;
    const char *name;
    char class;
} tack_pk11_ckrs[] = {
    {0x02UL, "CKR_HOST_MEMORY", 0},
    {0x03UL, "CKR_SLOT_ID_INVALID", 'c'},
    {0x05UL, "CKR_GENERAL_ERROR", 'c'},
    {0x06UL, "CKR_FUNCTION_FAILED", 'c'},
    {0x07UL, "CKR_ARGUMENTS_BAD", 0},
    {0x0AUL, "CKR_CANT_LOCK", 0},
    {0x30UL, "CKR_DEVICE_ERROR", 'c'},
    {0x31UL, "CKR_DEVICE_MEMORY", 'c'},
    {0x32UL, "CKR_DEVICE_REMOVED", 'c'},
    {0xA0UL, "CKR_PIN_INCORRECT", 'p'},
    {0xA1UL, "CKR_PIN_INVALID", 'p'},
    {0xA2UL, "CKR_PIN_LEN_RANGE", 'p'},
    {0xA3UL, "CKR_PIN_EXPIRED", 'p'},
    {0xA4UL, "CKR_PIN_LOCKED", 'p'},
    {0xB1UL, "CKR_SESSION_COUNT", 0},
    {0xE0UL, "CKR_TOKEN_NOT_PRESENT", 'c'},
    {0xE1UL, "CKR_TOKEN_NOT_RECOGNIZED", 'c'},
    {0x101UL, "CKR_USER_NOT_LOGGED_IN", 0},
    {0x102UL, "CKR_USER_PIN_NOT_INITIALIZED", 'p'},
    {0x103UL, "CKR_USER_TYPE_INVALID", 0},
    {0x104UL, "CKR_USER_ANOTHER_ALREADY_LOGGED_IN", 0},
    {0x190UL, "CKR_CRYPTOKI_NOT_INITIALIZED", 0},
};

/* tack_pk11_ckr_name writes |rv|'s name ("CKR_PIN_INCORRECT", or
 * "CKR 0x1234" for one not listed) to |out| and returns its class. */
static char tack_pk11_ckr_name(tack_ck_ulong rv, char *out, size_t out_size)
{
    size_t i;

    for (i = 0; i < sizeof(tack_pk11_ckrs) / sizeof(tack_pk11_ckrs[0]); i++) {
        if (tack_pk11_ckrs[i].rv == rv) {
            snprintf(out, out_size, "%s", tack_pk11_ckrs[i].name);
            return tack_pk11_ckrs[i].class;
        }
    }
    snprintf(out, out_size, "CKR 0x%lx", rv);
    return 0;
}

/* The address p11-kit's client module takes (p11-kit 0.24: "unix:path="
 * and an absolute path, or "vsock:"; it crashes in C_Initialize on any
 * other), and the one it uses when P11_KIT_SERVER_ADDRESS is not set. */
#define TACK_PK11_CLIENT "p11-kit-client.so"
#define TACK_PK11_CLIENT_ENV "P11_KIT_SERVER_ADDRESS"

/* tack_pk11_is_client returns 1 when |module| is p11-kit's client. */
static int tack_pk11_is_client(const char *module)
{
    const char *base = strrchr(module, '/');

    return strcmp(base != NULL ? base + 1 : module, TACK_PK11_CLIENT) == 0;
}

/* tack_pk11_client_address refuses, before the module is initialised, a
 * P11_KIT_SERVER_ADDRESS that p11-kit-client 0.24 would crash on. */
static tack_status_t tack_pk11_client_address(const char *module, char *err,
                                              size_t err_len)
{
    const char *address = getenv(TACK_PK11_CLIENT_ENV);

    if (!tack_pk11_is_client(module) || address == NULL || address[0] == '\0' ||
        strncmp(address, "unix:path=/", 11) == 0 ||
        strncmp(address, "vsock:", 6) == 0) {
        return TACK_OK;
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN_UNREACHABLE,
                          "cannot connect to the token: %s=%.200s is not an "
                          "address of p11-kit server (unix:path=/SOCKET, "
                          "as p11-kit server prints it)",
                          TACK_PK11_CLIENT_ENV, address);
}

/* tack_pk11_no_connection explains a p11-kit client that says it has no
 * connection: the address it tried (P11_KIT_SERVER_ADDRESS, or without
 * it $XDG_RUNTIME_DIR/p11-kit/pkcs11) and what connecting to it gives. */
static tack_status_t tack_pk11_no_connection(char *err, size_t err_len)
{
    const char *address = getenv(TACK_PK11_CLIENT_ENV);
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    struct sockaddr_un sa;
    char path[TACK_PK11_ATTR_SIZE] = "", where[TACK_PK11_ATTR_SIZE];
    const char *why = "the server did not answer", *note = "";
    int fd;

    if (address != NULL && address[0] != '\0') {
        snprintf(where, sizeof(where), "%s=%.200s", TACK_PK11_CLIENT_ENV,
                 address);
        /* p11-kit writes the path percent-encoded (p11_path_encode). */
        if (strncmp(address, "unix:path=", 10) != 0 ||
            !tack_pk11_decode(address + 10, strlen(address + 10), path,
                              sizeof(path))) {
            path[0] = '\0';
        }
    } else if (runtime != NULL && runtime[0] == '/') {
        snprintf(path, sizeof(path), "%.200s/p11-kit/pkcs11", runtime);
        snprintf(where, sizeof(where), "%s", path);
        note = " (the client's default: " TACK_PK11_CLIENT_ENV " is not set)";
    } else {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN_UNREACHABLE,
                              "cannot connect to the token: %s has no "
                              "p11-kit server (neither %s nor "
                              "XDG_RUNTIME_DIR is set)",
                              TACK_PK11_CLIENT, TACK_PK11_CLIENT_ENV);
    }
    if (path[0] != '\0' && strlen(path) < sizeof(sa.sun_path)) {
        memset(&sa, 0, sizeof(sa));
        sa.sun_family = AF_UNIX;
        memcpy(sa.sun_path, path, strlen(path));
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
            why = strerror(errno);
        }
        if (fd >= 0) {
            close(fd);
        }
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN_UNREACHABLE,
                          "cannot connect to the token: no p11-kit server "
                          "at %s: %s%s",
                          where, why, note);
}

/* tack_pk11_login_refused says why the token refused the PIN: |rv| from
 * C_Login, |final| when the token now says one more wrong PIN locks it.
 * A wrong, locked or expired PIN is TACK_ERR_WRONG_PASSWORD; any other
 * refusal TACK_ERR_TOKEN (another PIN would not help). */
static tack_status_t tack_pk11_login_refused(tack_ck_ulong rv, int final,
                                             char *err, size_t err_len)
{
    char name[48];
    const char *what;

    tack_pk11_ckr_name(rv, name, sizeof(name));
    switch (rv) {
    case 0xA0UL: /* CKR_PIN_INCORRECT */
    case 0xA1UL: /* CKR_PIN_INVALID */
    case 0xA2UL: /* CKR_PIN_LEN_RANGE */
        what = "wrong PIN";
        break;
    case 0xA3UL: /* CKR_PIN_EXPIRED */
        what = "the token's PIN has expired: set a new one";
        break;
    case 0xA4UL: /* CKR_PIN_LOCKED */
        what = "the token's PIN is locked";
        break;
    case 0x102UL: /* CKR_USER_PIN_NOT_INITIALIZED */
        what = "the token has no user PIN yet";
        break;
    default:
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "login refused: C_Login: %s", name);
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_WRONG_PASSWORD,
                          "%s (login refused: %s)%s", what, name,
                          final ? "; one more wrong PIN locks the token" : "");
}

/* tack_pk11_reach asks |module| (its own handle on it, as
 * tack_pk11_list_tokens does) whether the token |u| names can be reached
 * and, with a PIN in |pin|, whether it takes it: the provider says
 * neither (it finds no key, whatever the reason).  Returns TACK_OK when
 * nothing stands in the way or it cannot tell, and otherwise:
 *   TACK_ERR_TOKEN_UNREACHABLE  C_Initialize, C_GetSlotList,
 *                               C_GetTokenInfo, C_OpenSession or C_Login
 *                               failed with a device or transport error
 *                               (named), or p11-kit's client has no
 *                               connection to its server
 *   TACK_ERR_WRONG_PASSWORD     C_Login refused the PIN (code named)
 *   TACK_ERR_TOKEN              the module cannot be loaded, or refused
 *                               the login otherwise
 * The login is the one the provider would make, made first: the token
 * counts one wrong PIN, not two.  A token with a PIN pad of its own
 * (CKF_PROTECTED_AUTHENTICATION_PATH) is not logged in to here. */
static tack_status_t tack_pk11_reach(const tack_pk11_uri_t *u,
                                     const char *module,
                                     const tack_pk11_pin_t *pin, char *err,
                                     size_t err_len)
{
    tack_ck_ulong (*get_list)(tack_ck_functions **);
    tack_ck_functions *f = NULL;
    tack_ck_ulong slots[TACK_PK11_MAX_SLOTS], n = TACK_PK11_MAX_SLOTS, i, rv;
    tack_ck_ulong slot = 0, session = 0, mine;
    tack_ck_token_info info;
    tack_ck_info lib_info;
    tack_status_t st = TACK_OK;
    const char *call = NULL;
    char name[48];
    int found = 0, opened = 0, logged_in = 0;
    void *lib;

    if ((st = tack_pk11_client_address(module, err, err_len)) != TACK_OK) {
        return st;
    }
    if ((lib = dlopen(module, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        const char *why = dlerror();

        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "cannot load the PKCS#11 module: %s",
                              why != NULL ? why : module);
    }
    *(void **)&get_list = dlsym(lib, "C_GetFunctionList");
    if (get_list == NULL || get_list(&f) != TACK_CKR_OK || f == NULL) {
        dlclose(lib);
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "cannot load the PKCS#11 module: %s has no "
                              "C_GetFunctionList",
                              module);
    }
    /* The provider may hold the module initialised in this process (a
     * key loaded before): then its state is the provider's, not ours to
     * log out or finalise. */
    mine = rv = f->initialize(NULL);
    if (rv != TACK_CKR_OK && rv != TACK_CKR_ALREADY_INITIALIZED) {
        call = "C_Initialize";
    } else if ((rv = f->get_slot_list(1, slots, &n)) != TACK_CKR_OK) {
        call = "C_GetSlotList";
    } else if (n == 0 && f->get_info(&lib_info) == TACK_CKR_OK &&
               memmem(lib_info.library_description,
                      sizeof(lib_info.library_description), "(no connection)",
                      15) != NULL) {
        /* p11-kit's client: C_Initialize succeeds without its server
         * ("p11-kit (no connection)", no slots) */
        st = tack_pk11_no_connection(err, err_len);
    }
    for (i = 0; call == NULL && st == TACK_OK && u->has_token && i < n &&
                i < TACK_PK11_MAX_SLOTS;
         i++) {
        char label[33];

        if ((rv = f->get_token_info(slots[i], &info)) != TACK_CKR_OK) {
            call = "C_GetTokenInfo";
            break;
        }
        tack_pk11_label(info.label, label);
        if (strcmp(label, u->token) == 0) {
            found++;
            slot = slots[i];
        }
    }
    /* One token of that label: open a session, and log in as the provider
     * would.  None (or several): the store's search says which. */
    if (call == NULL && st == TACK_OK && found == 1) {
        (void)f->get_token_info(slot, &info);
        rv = f->open_session(slot, TACK_CKF_SERIAL_SESSION, NULL, NULL,
                             &session);
        if (rv != TACK_CKR_OK) {
            call = "C_OpenSession";
        } else {
            opened = 1;
        }
        if (opened && pin->pin != NULL &&
            (info.flags & TACK_CKF_LOGIN_REQUIRED) &&
            !(info.flags & TACK_CKF_PROTECTED_AUTHENTICATION_PATH)) {
            rv = f->login(session, TACK_CKU_USER,
                          (const unsigned char *)pin->pin, pin->pin_len);
            if (rv == TACK_CKR_OK) {
                logged_in = 1;
            } else if (rv != TACK_CKR_USER_ALREADY_LOGGED_IN &&
                       tack_pk11_ckr_name(rv, name, sizeof(name)) == 'c') {
                call = "C_Login";
            } else if (rv != TACK_CKR_USER_ALREADY_LOGGED_IN) {
                int final = f->get_token_info(slot, &info) == TACK_CKR_OK &&
                            (info.flags & TACK_CKF_USER_PIN_FINAL_TRY);

                st = tack_pk11_login_refused(rv, final, err, err_len);
            }
        }
    }
    if (call != NULL && tack_pk11_ckr_name(rv, name, sizeof(name)) == 'c') {
        /* p11-kit's client fails C_Initialize with CKR_DEVICE_ERROR when
         * the socket accepts and closes at once: a forwarding (ssh -L)
         * whose far end has no server.  Say which server. */
        const char *address = getenv(TACK_PK11_CLIENT_ENV);
        int client = tack_pk11_is_client(module) && address != NULL &&
                     address[0] != '\0';

        st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN_UNREACHABLE,
                            "cannot connect to the token: %s: %s%s%.200s%s",
                            call, name,
                            client ? " (from the p11-kit server at " : "",
                            client ? address : "", client ? ")" : "");
    } else if (call != NULL) {
        st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                            "the token cannot be used: %s: %s", call, name);
    }
    if (logged_in && mine == TACK_CKR_OK) {
        f->logout(session);
    }
    if (opened) {
        f->close_session(session);
    }
    if (mine == TACK_CKR_OK) {
        f->finalize(NULL);
    }
    dlclose(lib);
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

/* ---- Loading --------------------------------------------------------------- */

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
static EVP_PKEY *tack_pk11_store_load(tack_pk11_ctx_t *c,
                                      const char *store_uri, int private,
                                      UI_METHOD *ui, tack_pk11_pin_t *pin,
                                      int *several)
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
        st = tack_pk11_pin_source(u->pin_source, source_pin,
                                  sizeof(source_pin), &given.pin_len, err,
                                  err_len);
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
        st = tack_pk11_load_error(u, module[0] ? module
                                               : TACK_PK11_DEFAULT_MODULE,
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
