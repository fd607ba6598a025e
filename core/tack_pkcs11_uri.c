/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pkcs11_uri.c -- what an RFC 7512 URI names, for tack_pkcs11.c:
 * the URI split into its attributes and checked against the RFC, the URI
 * the provider gets, the PKCS#11 module (module-path, module-name: a
 * module registered with p11-kit), the PIN of a pin-source.  See
 * tack_pkcs11_uri.h.
 */
#include "tack_pkcs11_uri.h"
#include "tack_file.h"
#include "tack_util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>

/* ---- Messages ----------------------------------------------------------- */

tack_status_t tack_pk11_fail(char *err, size_t err_len, tack_status_t st,
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

int tack_pk11_is_uri(const char *spec)
{
    return spec != NULL && strncasecmp(spec, "pkcs11:", 7) == 0;
}

/* Where an attribute belongs (RFC 7512 section 2.3): the path part holds
 * what names the token and the object, the query what says how to reach
 * it.  Vendor attributes ("x-...") may be in either. */
static const char *const tack_pk11_path_attrs[] = {"token",
                                                   "manufacturer",
                                                   "serial",
                                                   "model",
                                                   "library-manufacturer",
                                                   "library-description",
                                                   "library-version",
                                                   "slot-description",
                                                   "slot-manufacturer",
                                                   "slot-id",
                                                   "object",
                                                   "type",
                                                   "id",
                                                   NULL};
static const char *const tack_pk11_query_attrs[] = {
    "pin-value", "pin-source", "module-name", "module-path", NULL};
/* RFC 7512's object classes (the type attribute). */
static const char *const tack_pk11_types[] = {"public",     "private", "cert",
                                              "secret-key", "data",    NULL};

void tack_pk11_uri_wipe(tack_pk11_uri_t *u)
{
    OPENSSL_cleanse(u->pin_value, sizeof(u->pin_value));
}

int tack_pk11_decode(const char *in, size_t in_len, char *out, size_t out_size)
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
                     (int)a->name_len, a->name, secret ? 3 : (int)a->value_len,
                     secret ? "***" : a->value);
            first = 0;
        }
    }
}

tack_status_t tack_pk11_uri_parse(const char *uri, tack_pk11_uri_t *u,
                                  char *err, size_t err_len)
{
    const char *p;
    int in_query = 0;
    size_t i, j;

    memset(u, 0, sizeof(*u));
    if (!tack_pk11_is_uri(uri)) {
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
        char fixed[TACK_PK11_ERR_SIZE];

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

int tack_pk11_store_uri(const tack_pk11_uri_t *u, const char *type, char *out,
                        size_t out_size)
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

    if (lib != NULL && dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != NULL &&
        (slash = strrchr(map->l_name, '/')) != NULL) {
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

tack_status_t tack_pk11_module(const tack_pk11_uri_t *u, char *module,
                               size_t module_size, char *err, size_t err_len)
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
            int n = snprintf(module, module_size, "%s/%s%s%s", u->module_path,
                             forms[i][0], u->module_name, forms[i][1]);

            if (n > 0 && (size_t)n < module_size && access(module, F_OK) == 0) {
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

/* ---- The PIN ---------------------------------------------------------------
 */

const char *tack_pk11_source_path(const char *source)
{
    if (strncmp(source, "file:", 5) == 0) {
        source += 5;
        if (strncmp(source, "//", 2) == 0) {
            source += 2;
        }
    }
    return source;
}

tack_status_t tack_pk11_pin_source(const char *source, char *out,
                                   size_t out_size, size_t *out_len, char *err,
                                   size_t err_len)
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
        return tack_pk11_fail(
            err, err_len, TACK_ERR_TOKEN, "pin-source %s: %s", path,
            st == TACK_ERR_IO ? strerror(errno) : tack_status_str(st));
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
