/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pkcs11_uri.h -- what an RFC 7512 URI names, for tack_pkcs11.c
 * (tack_pkcs11_uri.c): the URI split and checked, the URI the provider
 * gets, the PKCS#11 module, the PIN of a pin-source; and how the
 * tack_pkcs11*.c files fail.  Only those files include it: what the core
 * offers is tack_pkcs11.h.
 */
#ifndef TACK_PKCS11_URI_H
#define TACK_PKCS11_URI_H

#include <stddef.h>

#include "tack_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest attribute value we keep: a token label is 32 bytes
 * (PKCS#11 v2.40 section 3.2, CK_TOKEN_INFO), a path can be longer. */
#define TACK_PK11_ATTR_SIZE 1024
/* The most attributes a URI may have: RFC 7512 defines 17. */
#define TACK_PK11_MAX_ATTRS 32
/* Room for any message: tack_pkcs11.h's TACK_PKCS11_ERR_SIZE
 * (tack_pkcs11.c checks that the two agree). */
#define TACK_PK11_ERR_SIZE 512
/* The module the provider loads when the URI names none (Debian builds
 * it with p11-kit: its proxy, which loads every module registered with
 * p11-kit). */
#define TACK_PK11_DEFAULT_MODULE "p11-kit-proxy.so"

/* tack_pk11_fail writes the reason to |err|, empties OpenSSL's error queue
 * (the reason is in |err|) and returns |st|. */
tack_status_t tack_pk11_fail(char *err, size_t err_len, tack_status_t st,
                             const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* tack_pk11_is_uri is tack_key_is_uri (tack_pkcs11.h). */
int tack_pk11_is_uri(const char *spec);

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
    char token[TACK_PK11_ATTR_SIZE];  /* "" when absent */
    char object[TACK_PK11_ATTR_SIZE]; /* "" when absent */
    char type[16];                    /* "" when absent */
    char module_path[TACK_PK11_ATTR_SIZE];
    char module_name[TACK_PK11_ATTR_SIZE];
    char pin_source[TACK_PK11_ATTR_SIZE];
    char pin_value[TACK_PK11_ATTR_SIZE]; /* wiped by tack_pk11_uri_wipe */
    int has_token, has_object, has_pin_value;
} tack_pk11_uri_t;

/* tack_pk11_uri_parse splits |uri| into its attributes and checks them
 * against RFC 7512: each known, in its part, given once, well escaped.
 * Returns TACK_OK, or TACK_ERR_INVALID_ARG with the reason in |err| (a
 * pin-value never in it). */
tack_status_t tack_pk11_uri_parse(const char *uri, tack_pk11_uri_t *u,
                                  char *err, size_t err_len);

/* tack_pk11_uri_wipe wipes the pin-value |u| holds. */
void tack_pk11_uri_wipe(tack_pk11_uri_t *u);

/* tack_pk11_decode percent-decodes |in| (|in_len| bytes) into |out|
 * (capacity |out_size|, NUL-terminated); returns 0 when it does not fit, on
 * a bad escape or an escaped NUL.  RFC 3986's pct-encoded is '%' and two
 * HEXDIGs, either case: the core's tack_hex_digit. */
int tack_pk11_decode(const char *in, size_t in_len, char *out, size_t out_size);

/* tack_pk11_store_uri writes the URI the provider gets to |out|: the path
 * attributes of |u| (escaped as written) with type set to |type|; the
 * query's module and PIN are given to the provider otherwise. */
int tack_pk11_store_uri(const tack_pk11_uri_t *u, const char *type, char *out,
                        size_t out_size);

/* tack_pk11_module works out the PKCS#11 module of |u| into |module|:
 * module-path (a library, or with module-name a directory to find it in),
 * module-name alone (a module registered with p11-kit), or none ("":
 * the provider's own default, p11-kit's proxy).  A module given is loaded
 * once here, so that its failure is told with dlopen's reason. */
tack_status_t tack_pk11_module(const tack_pk11_uri_t *u, char *module,
                               size_t module_size, char *err, size_t err_len);

/* tack_pk11_source_path returns the file a pin-source names ("file:" and
 * "file://" taken off), as messages name it. */
const char *tack_pk11_source_path(const char *source);

/* tack_pk11_pin_source reads the PIN of a pin-source (RFC 7512: a file,
 * "file:" or a path; its first line, tack_password_line's) into |out|
 * (|out_size| bytes) and |out_len|. */
tack_status_t tack_pk11_pin_source(const char *source, char *out,
                                   size_t out_size, size_t *out_len, char *err,
                                   size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TACK_PKCS11_URI_H */
